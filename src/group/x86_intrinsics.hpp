// Internal: <immintrin.h> for the group layer's vector paths, included through here only.
//
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() (a self-initialised variable) as
// the unused merge source of unmasked shifts, which -W(maybe-)uninitialized reports at that
// line of the compiler's header once the intrinsic is inlined into our code: a false positive,
// silenced for the header's own lines only (our code keeps both warnings).
#pragma once

#if defined(__x86_64__)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif
