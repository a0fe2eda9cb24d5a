// gopa/deviation.hpp — TEST ONLY: hooks through which a test plays a malicious prover that
// chooses its own messages (docs/proofs.md §7).
//
// Tampering with an honest proof's bytes is caught at once by Fiat–Shamir. A malicious prover
// instead changes its messages *before* they are absorbed, or its responses *after* it saw the
// challenges, and recomputes everything that follows honestly. The provers of gopa (circuit and
// range proofs, the compressed pivot (so the output proof too), the Paillier ciphertext proofs) consult
// the deviation installed on the calling thread at each of those points:
//
//   gopa::testing::Deviation dev;
//   dev.wire_offsets.push_back({gopa::testing::Along::kG, 0, delta});  // P += δ·G before "P"
//   gopa::testing::ScopedDeviation scope(dev);                        // this thread only
//   auto proof = gopa::sigma::prove_range(t, *gens, 8, coms, values, blinders, rng);
//
// With no deviation installed (always, outside tests) every hook is skipped: the cost is one
// thread-local load per proof. Nothing here weakens a verifier; verifiers never look at it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <memory>

#include "gopa/group.hpp"
#include "gopa/random.hpp"

namespace gopa::sigma {
struct CompressedProof;
}
namespace gopa::sampling {
struct EncProof;
}

namespace gopa::testing {

// A generator of a GeneratorSet: G, H, Q or G_index.
enum class Along : std::uint8_t { kG, kH, kQ, kGi };

struct Offset {
  Along along = Along::kG;
  std::size_t index = 0;  // for kGi
  Scalar amount;
};

struct Deviation {
  // Circuit (and range) prover: offsets added to the wire commitment P before it is absorbed.
  // Along G_i and H the prover's opening follows (that wire, the blinder); along G the binding
  // coordinate stays the one computed from the witness (the forgery of a binding when the
  // offset is the gap between witness and committed value); along Q nothing follows. Everything
  // after P is then computed honestly. Then the published evaluations f(c), g(c) after c.
  std::vector<Offset> wire_offsets;
  // Circuit prover: the commitments V_j the statement claims, replaced before they are bound
  // (a witness that does not open them: e.g. seeds changed after they were committed).
  std::function<void(std::vector<Point>&)> on_statement;
  std::function<void(Scalar& fa, Scalar& gb)> on_evaluations;
  // Compressed pivot: the mask commitment A before it is absorbed, and every response (A_r,
  // B_r and the final scalars) after the last challenge.
  std::function<void(Point&)> on_mask_commitment;
  std::function<void(sigma::CompressedProof&)> on_responses;
  // Paillier ciphertext proof: T_A before it is absorbed, the responses after the challenge.
  std::function<void(Point&)> on_enc_commitment;
  std::function<void(sampling::EncProof&)> on_enc_responses;
  // Every mask and nonce drawn from one fixed seed, identical in every proof (nonce reuse).
  bool reuse_nonces = false;
  // L2-ball prover: values outside the ball proven anyway, with their bit decompositions
  // truncated (a witness that breaks the circuit's constraints).
  bool prove_outside_domain = false;
};

namespace detail {
inline thread_local const Deviation* active_deviation = nullptr;
}

// The deviation installed on this thread, or nullptr (always, outside tests).
[[nodiscard]] inline const Deviation* deviation() noexcept { return detail::active_deviation; }

// Where a prover draws its masks and nonces: `honest`, or, under a deviation with reuse_nonces,
// one fixed seed (the same in every proof). Outside tests this is `honest`, at the cost of one
// thread-local load.
class NonceSource {
 public:
  explicit NonceSource(Rng& honest) : honest_(honest) {
    if (const Deviation* d = deviation(); d != nullptr && d->reuse_nonces) {
      fixed_ = std::make_unique<DeterministicRng>(0x6e6f6e6365);
    }
  }
  [[nodiscard]] Rng& get() noexcept { return fixed_ ? static_cast<Rng&>(*fixed_) : honest_; }

 private:
  Rng& honest_;
  // Heap-held: GCC 12 reports a false maybe-uninitialized on an optional of a polymorphic type.
  std::unique_ptr<DeterministicRng> fixed_;
};

class ScopedDeviation {
 public:
  explicit ScopedDeviation(const Deviation& d) : prev_(detail::active_deviation) {
    detail::active_deviation = &d;
  }
  ~ScopedDeviation() { detail::active_deviation = prev_; }
  ScopedDeviation(const ScopedDeviation&) = delete;
  ScopedDeviation& operator=(const ScopedDeviation&) = delete;

 private:
  const Deviation* prev_;
};

}  // namespace gopa::testing
