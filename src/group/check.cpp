#include "gopa/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace gopa {

void check_failed(std::string_view condition, std::string_view why, const char* file,
                  int line) noexcept {
  std::fprintf(stderr, "gopa: internal invariant violated at %s:%d: %.*s (%.*s)\n", file, line,
               static_cast<int>(why.size()), why.data(), static_cast<int>(condition.size()),
               condition.data());
  std::abort();
}

}  // namespace gopa
