#include "sgai/version.hpp"

extern "C" const char* sgai_version(void)
{
  return sgai_VERSION;
}
