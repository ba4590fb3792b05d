/* Internal: one function per optimization file, each returning its registry entry. */
#ifndef SGAI_CORE_WHATIF_OPTIMIZATIONS_LIST_HPP
#define SGAI_CORE_WHATIF_OPTIMIZATIONS_LIST_HPP

#include "core/whatif/optimize.hpp"

namespace sgai::whatif::optimizations_list {

Optimization amp_daydream();
Optimization amp();
Optimization fused_optimizer();
Optimization gpu_type();
Optimization power_cap();
Optimization bandwidth();
Optimization ddp();
Optimization blueconnect();
Optimization p3();
Optimization dgc();
Optimization vdnn();
Optimization gist();

} // namespace sgai::whatif::optimizations_list

#endif
