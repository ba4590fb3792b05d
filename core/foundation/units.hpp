/* Physical quantities with units, as written in platform files: "10Gbps", "0.5us", "2.5GHz", "80GiB". */
#ifndef SGAI_CORE_FOUNDATION_UNITS_HPP
#define SGAI_CORE_FOUNDATION_UNITS_HPP

#include <optional>
#include <string>
#include <string_view>

namespace sgai::units {

/** The kinds of quantity a platform file carries, each converted to one SI base unit. */
enum class Quantity {
  bandwidth, ///< bytes per second (bps/Bps families, decimal and binary prefixes)
  time,      ///< seconds (w, d, h, m, s, ms, us, ns, ps)
  speed,     ///< floating-point operations per second (f, kf, ..., Ef; flops, Gflops, TFLOPS, ...)
  size,      ///< bytes (B, kB, MB, GB, TB, PB, KiB, ..., PiB; b, kb, ..., Gib)
  power,     ///< watts (mW, W, kW, MW)
  frequency, ///< hertz (Hz, kHz, MHz, GHz)
};

/** Parses "<number><unit>" (an optional space between them) into the SI base unit of the quantity.
 *  Returns nothing when the text is not a finite number followed by a unit known for that quantity. */
std::optional<double> parse(std::string_view text, Quantity quantity);

/** Name of the quantity, as used in messages ("bandwidth"). */
std::string_view name(Quantity quantity);

/** What a valid value looks like, for error messages: "a bandwidth such as '10Gbps' or '1.25GBps' (units: ...)". */
std::string expected(Quantity quantity);

} // namespace sgai::units

#endif
