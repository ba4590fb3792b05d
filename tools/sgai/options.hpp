/* Command-line options that take numbers or paths: one check each, with the bound stated in --help
 * and a short message naming the option and the value. A value that is wrong on the command line
 * alone (not a number, out of bounds, empty) is a usage error: exit status 2. */
#ifndef SGAI_TOOLS_SGAI_OPTIONS_HPP
#define SGAI_TOOLS_SGAI_OPTIONS_HPP

#include "core/foundation/units.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace sgai::cli {

/** The message for a whole number outside [min, max] or not a whole number at all; empty when
 *  `text` is fine. Digits only (an optional leading '-' is read to say "below"): no hex, no spaces,
 *  no fractions, no exponent. */
std::string check_count_text(const std::string& text, int64_t min, int64_t max);
/** The same for a finite real number in [min, max] (decimal or exponent notation). */
std::string check_real_text(const std::string& text, double min, double max);

/** "1,000,000": digits grouped by thousands, for bounds in help texts and messages. */
std::string grouped(int64_t value);

/** A whole-number option bounded to [min, max]; "(min to max)" is appended to the help text. */
CLI::Option* add_count(CLI::App* cmd, const std::string& name, int64_t& var, std::string help, int64_t min,
                       int64_t max);
CLI::Option* add_count(CLI::App* cmd, const std::string& name, std::optional<int64_t>& var, std::string help,
                       int64_t min, int64_t max);
/** A real-number option bounded to [min, max], finite. */
CLI::Option* add_real(CLI::App* cmd, const std::string& name, double& var, std::string help, double min, double max);
CLI::Option* add_real(CLI::App* cmd, const std::string& name, std::optional<double>& var, std::string help, double min,
                      double max);

/** The largest seed a command takes: 2^63 - 1 (seeds are recorded in JSON outputs as integers). */
constexpr int64_t max_seed = INT64_MAX;
/** --seed, 0 to max_seed. */
CLI::Option* add_seed(CLI::App* cmd, int64_t& var, const std::string& help);

/** A path option that may not be empty ("--out ''" is a usage error). */
CLI::Option* add_path(CLI::App* cmd, const std::string& name, std::string& var, const std::string& help);

/** The message for a quantity with units (units::parse of `q`: "25MiB", "1m") that is malformed
 *  or outside [min, max] in the base unit (or, when `whole`, not a whole number of it); empty
 *  when `text` is fine. `bounds` states them as written ("1B to 1TiB"). */
std::string check_quantity_text(const std::string& text, units::Quantity q, double min, double max,
                                const std::string& bounds, bool whole = false);
/** A quantity option: the text stays in `var` (parse it with units::parse, it is valid); "(bounds)"
 *  is appended to the help text. */
CLI::Option* add_quantity(CLI::App* cmd, const std::string& name, std::string& var, std::string help, units::Quantity q,
                          double min, double max, const std::string& bounds, bool whole = false);

/** --nccl-algo and --nccl-proto: NCCL_ALGO's and NCCL_PROTO's names (Ring, Tree, NVLS, NVLSTree; LL,
 *  LL128, Simple; any case), checked (collectives::nccl::algo_from_string, proto_from_string); the
 *  text stays in `var`; the defaults (NCCL's tuning model chooses) are stated in the help text. */
CLI::Option* add_nccl_algo(CLI::App* cmd, std::string& var, const std::string& help);
CLI::Option* add_nccl_proto(CLI::App* cmd, std::string& var, const std::string& help);

} // namespace sgai::cli

#endif
