#include "simd.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace gopa::detail {

namespace {

bool detect() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // __builtin_cpu_supports also checks (XGETBV) that the OS saves the AVX-512 state.
  __builtin_cpu_init();  // static initialisers may run before the runtime's own detection
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512ifma");
#else
  return false;
#endif
}

bool env_allows() noexcept {
  const char* v = std::getenv("GOPA_SIMD");
  return v == nullptr || std::strcmp(v, "off") != 0;
}

std::atomic<bool>& allowed() noexcept {
  static std::atomic<bool> a{env_allows()};
  return a;
}

}  // namespace

bool ifma_supported() noexcept {
  static const bool s = detect();
  return s;
}

bool ifma_enabled() noexcept {
  return ifma_supported() && allowed().load(std::memory_order_relaxed);
}

bool set_ifma_allowed(bool a) noexcept { return allowed().exchange(a); }

const char* simd_path() noexcept { return ifma_enabled() ? "avx512-ifma" : "none"; }

}  // namespace gopa::detail
