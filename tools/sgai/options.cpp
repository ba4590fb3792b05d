#include "tools/sgai/options.hpp"

#include "core/collectives/nccl.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace sgai::cli {

namespace {

/** Values are echoed in messages; a pasted megabyte of text is cut. */
std::string shown(const std::string& text)
{
  constexpr size_t most = 40;
  return "'" + (text.size() <= most ? text : text.substr(0, most) + "...") + "'";
}

std::string real_text(double v)
{
  std::ostringstream s;
  s << v;
  return s.str();
}

CLI::Validator count_validator(int64_t min, int64_t max)
{
  return CLI::Validator([min, max](std::string& text) { return check_count_text(text, min, max); }, "", "");
}

CLI::Validator real_validator(double min, double max)
{
  return CLI::Validator([min, max](std::string& text) { return check_real_text(text, min, max); }, "", "");
}

std::string with_bounds(std::string help, const std::string& bounds)
{
  return help + (help.empty() ? "" : " ") + "(" + bounds + ")";
}

} // namespace

std::string grouped(int64_t value)
{
  std::string digits = std::to_string(value < 0 ? -(value + 1) : value);
  if (value < 0) // -(INT64_MIN) overflows: add the one back on the digits
    digits = std::to_string(static_cast<uint64_t>(-(value + 1)) + 1);
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it, ++n) {
    if (n > 0 && n % 3 == 0)
      out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
  }
  return (value < 0 ? "-" : "") + out;
}

std::string check_count_text(const std::string& text, int64_t min, int64_t max)
{
  size_t start = (not text.empty() && text[0] == '-') ? 1 : 0;
  bool digits  = text.size() > start;
  for (size_t i = start; i < text.size(); i++)
    digits = digits && text[i] >= '0' && text[i] <= '9';
  if (not digits)
    return shown(text) + " is not a whole number";
  errno       = 0;
  char* end   = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  bool over   = errno == ERANGE;
  if ((over && start == 1) || (not over && v < min))
    return shown(text) + " is below " + grouped(min) + ", the least it takes";
  if (over || v > max)
    return shown(text) + " is above " + grouped(max) + ", the most it takes";
  return "";
}

std::string check_real_text(const std::string& text, double min, double max)
{
  bool plain = not text.empty();
  for (char c : text) // strtod also reads "inf", "nan", hex floats and leading spaces: not here
    plain = plain && ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E');
  char* end = nullptr;
  double v  = plain ? std::strtod(text.c_str(), &end) : 0;
  if (not plain || end != text.c_str() + text.size())
    return shown(text) + " is not a number";
  if (not std::isfinite(v))
    return shown(text) + " is too large";
  if (v < min)
    return shown(text) + " is below " + real_text(min) + ", the least it takes";
  if (v > max)
    return shown(text) + " is above " + real_text(max) + ", the most it takes";
  return "";
}

CLI::Option* add_count(CLI::App* cmd, const std::string& name, int64_t& var, std::string help, int64_t min, int64_t max)
{
  return cmd->add_option(name, var, with_bounds(std::move(help), grouped(min) + " to " + grouped(max)))
      ->check(count_validator(min, max));
}

CLI::Option* add_count(CLI::App* cmd, const std::string& name, std::optional<int64_t>& var, std::string help,
                       int64_t min, int64_t max)
{
  return cmd->add_option(name, var, with_bounds(std::move(help), grouped(min) + " to " + grouped(max)))
      ->check(count_validator(min, max));
}

CLI::Option* add_real(CLI::App* cmd, const std::string& name, double& var, std::string help, double min, double max)
{
  return cmd->add_option(name, var, with_bounds(std::move(help), real_text(min) + " to " + real_text(max)))
      ->check(real_validator(min, max));
}

CLI::Option* add_real(CLI::App* cmd, const std::string& name, std::optional<double>& var, std::string help, double min,
                      double max)
{
  return cmd->add_option(name, var, with_bounds(std::move(help), real_text(min) + " to " + real_text(max)))
      ->check(real_validator(min, max));
}

CLI::Option* add_seed(CLI::App* cmd, int64_t& var, const std::string& help)
{
  return add_count(cmd, "--seed", var, help, 0, max_seed);
}

CLI::Option* add_path(CLI::App* cmd, const std::string& name, std::string& var, const std::string& help)
{
  return cmd->add_option(name, var, help)
      ->check(CLI::Validator(
          [](std::string& text) { return text.empty() ? std::string("an empty path names nothing") : std::string(); },
          "", ""));
}

namespace {
/** An option naming one of NCCL's algorithms or protocols (`parse`: nccl.hpp's reader of the names,
 *  `names`: them, for the error). */
template <typename T>
CLI::Option* add_nccl_name(CLI::App* cmd, const std::string& flag, std::string& var, const std::string& help,
                           const std::string& type, bool (*parse)(std::string_view, T&), const std::string& names)
{
  return cmd->add_option(flag, var, help)
      ->type_name(type)
      ->check(CLI::Validator(
          [parse, names](std::string& v) {
            T x;
            return parse(v, x) ? std::string() : "'" + v + "': one of " + names;
          },
          ""));
}
} // namespace

CLI::Option* add_nccl_algo(CLI::App* cmd, std::string& var, const std::string& help)
{
  return add_nccl_name(cmd, "--nccl-algo", var,
                       help + " (Ring, Tree, NVLS, NVLSTree; default: NCCL's tuning model chooses)", "ALGO",
                       &collectives::nccl::algo_from_string, "Ring, Tree, NVLS, NVLSTree");
}

CLI::Option* add_nccl_proto(CLI::App* cmd, std::string& var, const std::string& help)
{
  return add_nccl_name(cmd, "--nccl-proto", var, help + " (LL, LL128, Simple; default: NCCL's tuning model chooses)",
                       "PROTO", &collectives::nccl::proto_from_string, "LL, LL128, Simple");
}

std::string check_quantity_text(const std::string& text, units::Quantity q, double min, double max,
                                const std::string& bounds, bool whole)
{
  auto v = units::parse(text, q);
  if (not v)
    return shown(text) + " is not " + units::expected(q);
  if (not(*v >= min && *v <= max))
    return shown(text) + " is " + (*v < min ? "below" : "above") + " the bounds (" + bounds + ")";
  if (whole && *v != std::floor(*v))
    return shown(text) + " is not a whole number of " + (q == units::Quantity::size ? "bytes" : "base units");
  return "";
}

CLI::Option* add_quantity(CLI::App* cmd, const std::string& name, std::string& var, std::string help, units::Quantity q,
                          double min, double max, const std::string& bounds, bool whole)
{
  return cmd->add_option(name, var, with_bounds(std::move(help), bounds))
      ->transform(CLI::Validator(
          [=](std::string& text) {
            // a bare whole number of bytes (nccl-tests' -b 8 -e 128M style) is bytes
            if (q == units::Quantity::size && not text.empty() &&
                text.find_first_not_of("0123456789") == std::string::npos)
              text += "B";
            return check_quantity_text(text, q, min, max, bounds, whole);
          },
          "", ""));
}

} // namespace sgai::cli
