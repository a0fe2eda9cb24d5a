// Internal: how the AVX-512 IFMA paths are compiled (fe25519_ifma.hpp, src/sigma/ntt_ifma.cpp).
//
// GOPA_HAVE_IFMA_CODE is defined where the compiler can emit the code (x86-64, GCC or Clang),
// whatever the build machine: the functions carry GOPA_IFMA_TARGET instead of a global -m flag,
// so the rest of the binary runs on any x86-64 CPU, and they must only run after simd.hpp's
// ifma_enabled() said the CPU and the OS support AVX-512 F/DQ/VL and IFMA.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GOPA_HAVE_IFMA_CODE 1

#include "x86_intrinsics.hpp"

#define GOPA_IFMA_TARGET __attribute__((target("avx512f,avx512ifma,avx512dq,avx512vl")))
#define GOPA_IFMA_INLINE GOPA_IFMA_TARGET __attribute__((always_inline)) inline
#endif
