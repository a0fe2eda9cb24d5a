// Internal: point arithmetic on the curve behind libdecaf's decaf_255, for the MSM and fixed-base
// hot paths.
//
// libdecaf stores a ristretto255 element as a representative (X:Y:Z:T) in extended twisted
// Edwards coordinates on −x² + y² = 1 + d·x²·y² with d = 121665 (checked in tests/group/test_msm:
// the base point satisfies it and decaf's doubling agrees with ours). a = −1 is a square and d is
// not, so the formulas below (Hisil–Wong–Carter–Dawson 2008, §3.1 and §3.3, a = −1) are complete:
// no exceptional inputs, the identity and P + P included. Results written back are
// representatives of the same group elements, so every decaf operation (encode, eq, add) works
// on them unchanged.
//
// Every function here is branch-free; the variable-time code lives in msm.cpp.
#pragma once

#include <cstdint>
#include <span>

#include <decaf/point_255.h>

#include "fe25519.hpp"
#include "fe25519_adx.hpp"

// The field behind detail::Fe, detail::Ext, ... is chosen when gopa is configured
// (GOPA_ADX: BMI2/ADX assembly when the build machine has it, else portable radix 2^51).
#if defined(GOPA_FE_ADX) && GOPA_FE_ADX && !defined(__x86_64__)
#error "GOPA_FE_ADX needs an x86-64 target"
#endif

namespace gopa::detail::r51 {
#include "edwards_impl.inc"
}  // namespace gopa::detail::r51

#if defined(GOPA_FE_ADX) && GOPA_FE_ADX
namespace gopa::detail::r64 {
#include "edwards_impl.inc"
}  // namespace gopa::detail::r64
#endif

namespace gopa::detail {
#if defined(GOPA_FE_ADX) && GOPA_FE_ADX
using namespace r64;
inline constexpr const char* kFieldImpl = "x86-64 BMI2/ADX, radix 2^64";
#else
using namespace r51;
inline constexpr const char* kFieldImpl = "portable, radix 2^51";
#endif
}  // namespace gopa::detail
