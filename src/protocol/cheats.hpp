// Internal to gopa_protocol, TEST ONLY: the deviations a cheating party plays inside its prover
// (gopa run --cheat, gopa party --cheat). The honest party (party.hpp) consults one ProverCheat
// at fixed points of its round-6 and round-8 code; the honest one changes nothing, and each
// cheat kind (cheats.cpp) overrides the points it needs. No cheat is a branch of the honest code.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/keys.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/circuits/seeds.hpp"
#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/deviation.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/run.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::protocol::detail {

// How a party's input-domain proof deviates. x_0 is committed, and masked in round 8, as
// x_0 + shift; `where` says whether the prover's witness holds the shift (a value outside the
// domain, proven anyway), only the commitment the prover is given (a forged binding), or only the
// published commitment (a proof made for another value).
struct DomainDeviation {
  enum class Shift { none, witness, commitment, published };
  Shift where = Shift::none;
  Scalar shift;
  Scalar twin;                          // box: added to the witness of M − x_0 in the first block
  std::optional<testing::Deviation> proof;  // installed while proving the ball, or the box's first block
};

// The seeds a party's noise proof is made from, and the deviation installed while proving it.
struct NoiseProofDeviation {
  std::vector<circuits::PrivateSeed> seeds;
  testing::Deviation proof;
};

class ProverCheat {
 public:
  virtual ~ProverCheat() = default;
  // Round 6: the input-domain proof (input: the party's fixed-point input).
  [[nodiscard]] virtual DomainDeviation domain(const SessionParams&, std::span<const std::uint64_t>) const { return {}; }
  // Round 6: a bias (fixed point) hidden in coordinate 0 of the pairwise term of the first edge.
  [[nodiscard]] virtual std::int64_t edge_bias(const SessionParams&) const { return 0; }
  // Round 6, hidden noise: added to the party's share of coordinate j before it is committed (a
  // party without a share then commits to the offset).
  [[nodiscard]] virtual Scalar hidden_noise_offset(std::uint32_t) const { return Scalar::zero(); }
  // Round 6, private noise: the seeds and deviation of the noise proof (nullopt: the committed seeds).
  [[nodiscard]] virtual std::optional<NoiseProofDeviation> noise_proof(const circuits::SamplerParams&,
                                                                       std::span<const circuits::PrivateSeed>) const {
    return std::nullopt;
  }
  // Round 6, private noise: the first sample as committed, given the sampler's output.
  [[nodiscard]] virtual std::int64_t first_sample(std::int64_t sample) const { return sample; }
  // Round 8: the masked value, after its output proof is made.
  virtual void masked(MaskedMessage&) const {}
  // Any round: the signed encoding of an entry of this party (nullopt: signed honestly).
  [[nodiscard]] virtual std::optional<Bytes> sign(bulletin::Entry&, const bulletin::SigningKey&) const {
    return std::nullopt;
  }
};

// The prover of a party that plays `kind` (the honest prover for none, and for the kinds played
// outside the prover: replay, missing, committee, withhold). Static instances: never freed.
[[nodiscard]] const ProverCheat& prover_cheat(std::optional<CheatKind> kind);

}  // namespace gopa::protocol::detail
