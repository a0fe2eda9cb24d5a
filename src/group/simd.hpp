// Internal: which vector paths the group layer may take on this CPU.
//
// The AVX-512 IFMA paths (fe25519_ifma.hpp: eight field elements per instruction) run when the
// CPU and the operating system support AVX-512 F/DQ/VL and IFMA, unless the environment says
// GOPA_SIMD=off when the process starts. The choice is made once, from the CPU, never from data;
// the results are the same group elements either way (tests compare both paths).
#pragma once

namespace gopa::detail {

// The CPU and the OS support the AVX-512 IFMA code.
[[nodiscard]] bool ifma_supported() noexcept;

// ifma_supported(), and neither GOPA_SIMD=off nor set_ifma_allowed(false).
[[nodiscard]] bool ifma_enabled() noexcept;

// For tests and benchmarks: allow (the default) or forbid the IFMA paths. Returns the previous
// setting. Not meant to be flipped while another thread runs an MSM.
bool set_ifma_allowed(bool allowed) noexcept;

// Sets set_ifma_allowed(allowed) for a scope (tests: run a check on both paths).
class ScopedIfma {
 public:
  explicit ScopedIfma(bool allowed) noexcept : before_(set_ifma_allowed(allowed)) {}
  ~ScopedIfma() { set_ifma_allowed(before_); }
  ScopedIfma(const ScopedIfma&) = delete;
  ScopedIfma& operator=(const ScopedIfma&) = delete;

 private:
  bool before_;
};

// A short name of the vector path in use ("avx512-ifma" or "none"), for reports.
[[nodiscard]] const char* simd_path() noexcept;

}  // namespace gopa::detail
