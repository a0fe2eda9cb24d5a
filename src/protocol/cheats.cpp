// TEST ONLY: the prover-level cheats (cheats.hpp). Each plays a malicious prover that chooses its
// own messages; docs/protocol.md § Adversary lists what catches each one.
#include "cheats.hpp"

#include <cmath>

#include "run_internal.hpp"

namespace gopa::protocol::detail {

namespace {

// range: x just outside the domain. Box: the published commitment is to x_0 + 2^b, the proof made
// for x_0 (only the range proof can catch it). Ball: x_0 raised just past the sphere through the
// other coordinates (‖x‖₂ slightly above C), proven with truncated bit decompositions.
class RangeCheat final : public ProverCheat {
 public:
  DomainDeviation domain(const SessionParams& p, std::span<const std::uint64_t> input) const override {
    DomainDeviation d;
    if (p.input_domain == InputDomain::l2_ball) {
      d.where = DomainDeviation::Shift::witness;
      d.shift = Scalar::from_u64(just_outside_ball(p, input)) - input_scalar(p, input[0]);
      d.proof.emplace();
      d.proof->prove_outside_domain = true;
      return d;
    }
    d.where = DomainDeviation::Shift::published;
    d.shift = Scalar::from_u64(std::uint64_t{1} << (p.input_bits == 64 ? 63 : p.input_bits)) +
              (p.input_bits == 64 ? Scalar::from_u64(std::uint64_t{1} << 63) : Scalar::zero());
    return d;
  }

 private:
  // The smallest non-negative integer v with v² + Σ_{j≥1} x_j² > C².
  static std::uint64_t just_outside_ball(const SessionParams& p, std::span<const std::uint64_t> input) {
    const int128_t c = static_cast<int128_t>(p.input_max);
    int128_t rest = 0;
    for (std::size_t j = 1; j < input.size(); ++j) {
      const int128_t x = static_cast<std::int64_t>(input[j]);
      rest += x * x;
    }
    const int128_t room = c * c - rest;  // ≥ 0: the input is in the ball
    auto v = static_cast<int128_t>(std::sqrt(static_cast<long double>(room)));
    while (v > 0 && v * v > room) --v;
    while (v * v <= room) ++v;
    return static_cast<std::uint64_t>(v);
  }
};

// forge: commits to x_0 − K and forges the domain proof with the binding attack along G: P carries
// δ·G with δ = K, the gap of binding 0, fixed before the binding challenge (docs/proofs.md §4.4).
// Box: K = 2^(b−1) (below 0: the average moves down by K/n); the witness decomposes x_0 for the
// first value and M − x_0 + K, in range, for its upper-end twin. Ball: K = 2^b (below −C).
class ForgeCheat final : public ProverCheat {
 public:
  DomainDeviation domain(const SessionParams& p, std::span<const std::uint64_t>) const override {
    const bool ball = p.input_domain == InputDomain::l2_ball;
    const Scalar k = ball ? Scalar::from_u64(std::uint64_t{1} << (p.input_bits - 1)) * Scalar::from_u64(2)
                          : Scalar::from_u64(std::uint64_t{1} << (p.input_bits - 1));
    DomainDeviation d;
    d.where = DomainDeviation::Shift::commitment;
    d.shift = -k;
    if (!ball) d.twin = k;  // M − (x_0 − K) = M − x_0 + K < 2^b: a true opening
    d.proof.emplace();
    d.proof->wire_offsets.push_back({testing::Along::kG, 0, k});
    return d;
  }
};

// seed: changes its first seed after the public randomness is known (keeping its commitment),
// and forges the noise proof with the binding attack along G (docs/proofs.md §4.4).
class SeedCheat final : public ProverCheat {
 public:
  std::optional<NoiseProofDeviation> noise_proof(const circuits::SamplerParams& sp,
                                                 std::span<const circuits::PrivateSeed> committed) const override {
    NoiseProofDeviation d;
    const std::uint64_t x0 = committed[0].value();
    const std::uint64_t x1 = x0 ^ (std::uint64_t{1} << (sp.m - 1));
    d.seeds.emplace_back(x1, committed[0].blinder().clone(), sp.m);
    for (std::size_t i = 1; i < committed.size(); ++i) {
      d.seeds.emplace_back(committed[i].value(), committed[i].blinder().clone(), sp.m);
    }
    const Point committed0 = committed[0].commitment();
    d.proof.on_statement = [committed0](std::vector<Point>& coms) { coms[0] = committed0; };
    d.proof.wire_offsets.push_back({testing::Along::kG, 0, Scalar::from_u64(x1) - Scalar::from_u64(x0)});
    return d;
  }
};

// cancel: one unit of bias hidden in coordinate 0 of a pairwise term.
class CancelCheat final : public ProverCheat {
 public:
  std::int64_t edge_bias(const SessionParams& p) const override { return std::int64_t{1} << p.frac_bits; }
};

// noise: private noise: twice the sample, plus one ulp, committed in place of the sample (and X̂
// kept consistent with that): only the noise proof can catch it (for η = −1, the one value
// 2η + 1 keeps, η + 1). Hidden noise: one ulp more than its share of coordinate 0.
class NoiseCheat final : public ProverCheat {
 public:
  std::int64_t first_sample(std::int64_t s) const override { return s == -1 ? 0 : 2 * s + 1; }
  Scalar hidden_noise_offset(std::uint32_t j) const override { return j == 0 ? Scalar::one() : Scalar::zero(); }
};

// output: a masked value one ulp off the one its output proof was made for.
class OutputCheat final : public ProverCheat {
 public:
  void masked(MaskedMessage& m) const override { m.xhat[0] += Scalar::one(); }
};

// signature: the masked value signed by another key, presented as the party's: the board must
// refuse it.
class SignatureCheat final : public ProverCheat {
 public:
  std::optional<Bytes> sign(bulletin::Entry& e, const bulletin::SigningKey& key) const override {
    if (e.type != MessageType::masked_value) return std::nullopt;
    const bulletin::SigningKey other = bulletin::SigningKey::generate();
    const Bytes wrong = bulletin::sign_entry(e, other);
    e.signature = bulletin::decode_entry_unverified(wrong).value().signature;
    e.sender = key.public_key();
    return bulletin::encode_entry(e);
  }
};

}  // namespace

const ProverCheat& prover_cheat(std::optional<CheatKind> kind) {
  static const ProverCheat honest;
  static const RangeCheat range;
  static const ForgeCheat forge;
  static const SeedCheat seed;
  static const CancelCheat cancel;
  static const NoiseCheat noise;
  static const OutputCheat output;
  static const SignatureCheat signature;
  if (!kind) return honest;
  switch (*kind) {
    case CheatKind::range: return range;
    case CheatKind::forge: return forge;
    case CheatKind::seed: return seed;
    case CheatKind::cancel: return cancel;
    case CheatKind::noise: return noise;
    case CheatKind::output: return output;
    case CheatKind::signature: return signature;
    case CheatKind::replay:
    case CheatKind::missing:
    case CheatKind::committee:
    case CheatKind::withhold: return honest;
  }
  return honest;
}

}  // namespace gopa::protocol::detail
