#include "core/foundation/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace sgai::units {

namespace {

/** value_in_base = value * mul / div: dividing by powers of ten keeps "700ns" exactly 7e-07. */
struct Scale {
  double mul = 1;
  double div = 1;
};

Scale scale_of(double factor)
{
  return {factor, 1};
}

struct UnitTable {
  std::map<std::string, Scale, std::less<>> factor; // unit symbol -> conversion to the SI base unit
  std::vector<std::string> listed;                  // symbols shown in error messages
  std::string example;
};

void add(UnitTable& table, const std::string& symbol, Scale scale, bool listed = true)
{
  table.factor.emplace(symbol, scale);
  if (listed)
    table.listed.push_back(symbol);
}

void add(UnitTable& table, const std::string& symbol, double factor, bool listed = true)
{
  table.factor.emplace(symbol, scale_of(factor));
  if (listed)
    table.listed.push_back(symbol);
}

const std::vector<std::pair<std::string, double>> kDecimal = {
    {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
const std::vector<std::pair<std::string, double>> kBinary = {{"Ki", 1024.0},
                                                             {"Mi", 1024.0 * 1024},
                                                             {"Gi", 1024.0 * 1024 * 1024},
                                                             {"Ti", 1024.0 * 1024 * 1024 * 1024},
                                                             {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024}};

UnitTable make_bandwidth()
{
  UnitTable t;
  t.example = "'10Gbps' or '1.25GBps'";
  for (const auto& [base, bits] : std::vector<std::pair<std::string, double>>{{"bps", 8.0}, {"Bps", 1.0}}) {
    add(t, base, Scale{1, bits});
    for (const auto& [p, f] : kDecimal)
      add(t, p + base, Scale{f, bits});
    add(t, "K" + base, Scale{1e3, bits}, false); // SimGrid accepts both k and K for kilo
    for (const auto& [p, f] : kBinary)
      add(t, p + base, Scale{f, bits});
    // "GB/s" and "Gb/s" spellings
    std::string slash = base.substr(0, 1) + "/s";
    add(t, slash, Scale{1, bits}, false);
    for (const auto& [p, f] : kDecimal)
      add(t, p + slash, Scale{f, bits}, false);
    for (const auto& [p, f] : kBinary)
      add(t, p + slash, Scale{f, bits}, false);
  }
  return t;
}

UnitTable make_time()
{
  UnitTable t;
  t.example = "'500ns' or '1.5us'";
  add(t, "w", 7 * 86400.0);
  add(t, "d", 86400.0);
  add(t, "h", 3600.0);
  add(t, "m", 60.0);
  add(t, "s", 1.0);
  add(t, "ms", Scale{1, 1e3});
  add(t, "us", Scale{1, 1e6});
  add(t, "ns", Scale{1, 1e9});
  add(t, "ps", Scale{1, 1e12});
  return t;
}

UnitTable make_speed()
{
  UnitTable t;
  t.example                                                  = "'2.2Gf' or '989TFLOPS'";
  const std::vector<std::pair<std::string, double>> prefixes = {
      {"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}, {"Z", 1e21}};
  for (const auto& [p, f] : prefixes) {
    add(t, p + "f", f, p != "K");
    for (const char* suffix : {"flops", "Flops", "FLOPS", "flop/s", "FLOP/s"})
      add(t, p + suffix, f, false);
  }
  t.listed.emplace_back("flops, Gflops, TFLOPS, ...");
  return t;
}

UnitTable make_size()
{
  UnitTable t;
  t.example = "'80GiB' or '512MB'";
  for (const auto& [base, bits] : std::vector<std::pair<std::string, double>>{{"B", 1.0}, {"b", 8.0}}) {
    add(t, base, Scale{1, bits});
    for (const auto& [p, f] : kDecimal)
      add(t, p + base, Scale{f, bits});
    add(t, "K" + base, Scale{1e3, bits}, false);
    for (const auto& [p, f] : kBinary)
      add(t, p + base, Scale{f, bits});
  }
  return t;
}

UnitTable make_power()
{
  UnitTable t;
  t.example = "'700W' or '1.2kW'";
  add(t, "mW", Scale{1, 1e3});
  add(t, "W", 1.0);
  add(t, "kW", 1e3);
  add(t, "MW", 1e6);
  return t;
}

UnitTable make_frequency()
{
  UnitTable t;
  t.example = "'2.6GHz' or '800MHz'";
  add(t, "Hz", 1.0);
  add(t, "kHz", 1e3);
  add(t, "MHz", 1e6);
  add(t, "GHz", 1e9);
  return t;
}

const UnitTable& table(Quantity q)
{
  static const UnitTable bandwidth = make_bandwidth();
  static const UnitTable time      = make_time();
  static const UnitTable speed     = make_speed();
  static const UnitTable size      = make_size();
  static const UnitTable power     = make_power();
  static const UnitTable frequency = make_frequency();
  switch (q) {
  case Quantity::bandwidth:
    return bandwidth;
  case Quantity::time:
    return time;
  case Quantity::speed:
    return speed;
  case Quantity::size:
    return size;
  case Quantity::power:
    return power;
  case Quantity::frequency:
    return frequency;
  }
  return bandwidth; // unreachable: every enumerator is handled above
}

std::string_view trim(std::string_view s)
{
  while (not s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (not s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

} // namespace

std::optional<double> parse(std::string_view text, Quantity quantity)
{
  text = trim(text);
  // The number: the longest prefix std::from_chars accepts (digits, sign, dot, exponent).
  double value   = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || not std::isfinite(value))
    return std::nullopt;
  std::string_view unit = trim(std::string_view(end, static_cast<size_t>(text.data() + text.size() - end)));
  const auto& factors   = table(quantity).factor;
  auto it               = factors.find(unit);
  if (it == factors.end())
    return std::nullopt;
  return value * it->second.mul / it->second.div;
}

std::string_view name(Quantity quantity)
{
  switch (quantity) {
  case Quantity::bandwidth:
    return "bandwidth";
  case Quantity::time:
    return "time";
  case Quantity::speed:
    return "speed";
  case Quantity::size:
    return "size";
  case Quantity::power:
    return "power";
  case Quantity::frequency:
    return "frequency";
  }
  return "quantity";
}

std::string expected(Quantity quantity)
{
  const auto& t   = table(quantity);
  std::string out = "a " + std::string(name(quantity)) + " such as " + t.example + " (units: ";
  for (size_t i = 0; i < t.listed.size(); i++)
    out += (i ? ", " : "") + t.listed[i];
  return out + ")";
}

} // namespace sgai::units
