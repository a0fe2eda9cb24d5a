// gopa/check.hpp — internal invariants and constant-time validation hooks.
//
// Internal invariants that can only fail through a bug abort loudly with GOPA_CHECK.
// Untrusted input never reaches GOPA_CHECK: parsers return typed errors instead.
//
// Constant-time validation (CMake option GOPA_CONSTTIME_VALIDATION): secrets are marked
// undefined for valgrind memcheck with gopa_secret(), so any branch or table index that
// depends on them is reported; gopa_declassify() marks a value public again (for example a
// proof response, which is published).
#pragma once

#include <cstddef>
#include <string_view>

#if defined(GOPA_CONSTTIME_VALIDATION)
#include <valgrind/memcheck.h>
#endif

namespace gopa {

[[noreturn]] void check_failed(std::string_view condition, std::string_view why,
                               const char* file, int line) noexcept;

inline void gopa_secret([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(GOPA_CONSTTIME_VALIDATION)
  VALGRIND_MAKE_MEM_UNDEFINED(p, n);
#endif
}

inline void gopa_declassify([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(GOPA_CONSTTIME_VALIDATION)
  VALGRIND_MAKE_MEM_DEFINED(p, n);
#endif
}

}  // namespace gopa

#define GOPA_CHECK(cond, why)                                              \
  do {                                                                     \
    if (!(cond)) ::gopa::check_failed(#cond, (why), __FILE__, __LINE__);   \
  } while (0)
