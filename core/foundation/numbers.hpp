/* Deterministic, shortest round-trip formatting of numbers for generated files. */
#ifndef SGAI_CORE_FOUNDATION_NUMBERS_HPP
#define SGAI_CORE_FOUNDATION_NUMBERS_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace sgai {

/** Infinity, for times and bounds that have none. */
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/** Shortest decimal text that reads back to exactly the same double ("1.25e+09", "0.5", "3").
 *  A value that is not finite (NaN: no figure) gives "", an empty field in tables. */
std::string format_number(double value);

/** As format_number, but whole numbers below 2^53 as integers ("100000", not "1e+05"): for
 *  tables that people and spreadsheets read (times, counts, joules). */
std::string format_plain(double value);

/** "0-3 5 8-9": ids, sorted, as Batsim's intervals (allocated resources in out_jobs.csv). */
std::string format_intervals(std::vector<uint32_t> ids);

/** Fixed-point text with the given number of decimals, for human-oriented reports. */
std::string format_fixed(double value, int decimals);

/** log(sum of exp(v)), computed without overflow; -inf for an empty or all -inf list. */
double log_sum_exp(const std::vector<double>& v);

} // namespace sgai

#endif
