#include "core/foundation/error.hpp"

namespace sgai {

namespace {
std::string compose(const std::string& file, const std::string& place, const std::string& message)
{
  std::string out = file.empty() ? std::string("<input>") : file;
  if (not place.empty())
    out += ": " + place;
  out += ": " + message;
  return out;
}
} // namespace

InputError::InputError(std::string file, std::string place, std::string message)
    : std::runtime_error(compose(file, place, message))
    , file_(std::move(file))
    , place_(std::move(place))
    , message_(std::move(message))
{
}

std::string quote(const std::string& value)
{
  return "'" + value + "'";
}

} // namespace sgai
