// Test-size scaling under sanitizers (≈10× slower): the default suite also runs with
// GOPA_ASAN/GOPA_UBSAN, so loops shrink there (GCC and Clang define these macros).
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define GOPA_CIRCUITS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define GOPA_CIRCUITS_SANITIZED 1
#endif
#endif

namespace gopa::circuits::test {
#if defined(GOPA_CIRCUITS_SANITIZED)
inline constexpr int kScale = 8;  // divide iteration counts by this
#else
inline constexpr int kScale = 1;
#endif
}  // namespace gopa::circuits::test
