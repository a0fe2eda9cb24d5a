// L2-ball proofs (ball.hpp, docs/proofs.md §5.2).
#include "gopa/sigma/ball.hpp"

#include <sodium.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "wire.hpp"

namespace gopa::sigma {

namespace {
constexpr std::string_view kDomain = "gopa/sigma/l2-ball v1";

bool bits_supported(unsigned bits) noexcept { return bits == 8 || bits == 16 || bits == 32 || bits == 64; }

void bind_ball(Transcript& t, unsigned bits, std::size_t d, std::uint64_t radius) {
  t.domain_separator(kDomain);
  t.append_u64("bits", bits);
  t.append_u64("d", d);
  t.append_u64("radius", radius);
}

// The circuit's public inputs: C and C² (C² may exceed 64 bits: computed in Z_ℓ, where it is
// below 2^126 < ℓ, hence the integer).
std::vector<Scalar> ball_publics(std::uint64_t radius) {
  const Scalar c = Scalar::from_u64(radius);
  return {c, c.square()};
}

// Appends the low `bits` bits of v (a multiple of 8) to out, constant time; returns the OR of the
// encoding's bytes above them (non-zero iff v ≥ 2^bits).
unsigned char append_bits(const SecretScalar& v, unsigned bits, std::vector<SecretScalar>& out) {
  std::uint8_t enc[32];
  decaf_255_scalar_encode(enc, v.raw());
  for (unsigned i = 0; i < bits; ++i)
    out.push_back(SecretScalar::from_u64((static_cast<unsigned>(enc[i / 8]) >> (i % 8)) & 1U));
  unsigned char high = 0;
  for (unsigned i = bits / 8; i < 32; ++i) high = static_cast<unsigned char>(high | enc[i]);
  sodium_memzero(enc, sizeof enc);
  return high;
}
}  // namespace

bool ball_params_supported(unsigned bits, std::size_t d, std::uint64_t radius) noexcept {
  if (!bits_supported(bits) || d == 0 || d > kMaxBallDim || radius == 0) return false;
  return radius < (std::uint64_t{1} << (bits - 1));
}

std::shared_ptr<const Circuit> ball_circuit(unsigned bits, std::size_t d) {
  GOPA_CHECK(bits_supported(bits) && d >= 1 && d <= kMaxBallDim, "ball_circuit: unsupported parameters");
  static std::mutex mu;
  static std::map<std::pair<unsigned, std::size_t>, std::shared_ptr<const Circuit>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[{bits, d}];
  if (!slot) {
    // Variables in order: per coordinate its b bits, then its square; then the 2b bits of the
    // slack C² − Σ x_j² (prove_ball builds the witness in the same order).
    CircuitBuilder b(CircuitBuilder::kVerifier);
    const LinComb radius = b.public_input(Scalar::zero());
    const LinComb radius_sq = b.public_input(Scalar::zero());
    LinComb norm_sq;
    for (std::size_t j = 0; j < d; ++j) {
      LinComb shifted;  // x_j + C
      Scalar pow2 = Scalar::one();
      for (unsigned i = 0; i < bits; ++i) {
        LinComb bit = b.secret();
        b.assert_mul(bit, bit - Scalar::one(), LinComb{});
        shifted += bit * pow2;
        pow2 += pow2;
      }
      const LinComb x = shifted - radius;
      b.bind_commitment(x);
      norm_sq += b.mul(x, x);
    }
    LinComb slack;  // C² − Σ x_j²
    Scalar pow2 = Scalar::one();
    for (unsigned i = 0; i < 2 * bits; ++i) {
      LinComb bit = b.secret();
      b.assert_mul(bit, bit - Scalar::one(), LinComb{});
      slack += bit * pow2;
      pow2 += pow2;
    }
    b.assert_equal(slack, radius_sq - norm_sq);
    slot = std::make_shared<const Circuit>(b.circuit());
  }
  return slot;
}

std::size_t ball_generators(unsigned bits, std::size_t d) {
  // Witness d·(b + 1) + 2b, as many gates, plus 3 (circuit.hpp: generators_needed).
  const std::size_t vars = d * (bits + 1U) + 2U * bits;
  return 2U * vars + 3U;
}

std::size_t BallProof::encoded_size(unsigned bits, std::size_t d) {
  // Header, P, f(c), g(c), then the compressed proof for N = generators + G + H.
  return 5U + 96U + CompressedProof::encoded_size(fold_shape(ball_generators(bits, d) + 2U));
}

std::vector<std::uint8_t> BallProof::encode() const {
  std::vector<std::uint8_t> out;
  wire::put_sized_header(out, ProofKind::kBall, bits, d);
  body.encode_body(out);
  return out;
}

std::optional<BallProof> BallProof::decode(std::span<const std::uint8_t> in) {
  const auto h = wire::read_sized_header(in, ProofKind::kBall);
  if (!h) return std::nullopt;
  const auto bits = h->bits;
  const auto d = h->d;
  if (!bits_supported(bits) || d == 0 || d > kMaxBallDim) return std::nullopt;
  if (in.size() != encoded_size(bits, d)) return std::nullopt;  // before building the circuit
  auto body = CircuitProof::decode_body(in.subspan(5), *ball_circuit(bits, d));
  if (!body) return std::nullopt;
  return BallProof{bits, d, std::move(*body)};
}

std::optional<BallProof> prove_ball(Transcript& t, const GeneratorSet& gens, unsigned bits, std::uint64_t radius,
                                    std::span<const Point> commitments, std::span<const SecretScalar> values,
                                    std::span<const SecretScalar> blinders, Rng& rng) {
  const std::size_t d = values.size();
  if (!ball_params_supported(bits, d, radius) || commitments.size() != d || blinders.size() != d ||
      gens.size() < ball_generators(bits, d))
    return std::nullopt;
  const std::vector<Scalar> publics = ball_publics(radius);
  std::vector<SecretScalar> w;
  w.reserve(d * (bits + 1U) + 2U * bits);
  unsigned char high = 0;  // non-zero iff some x_j + C ∉ [0, 2^b) or C² − Σ x_j² ∉ [0, 2^2b)
  SecretScalar slack(publics[1]);
  for (const SecretScalar& x : values) {
    high = static_cast<unsigned char>(high | append_bits(x + publics[0], bits, w));
    w.push_back(x * x);
    slack -= w.back();
  }
  high = static_cast<unsigned char>(high | append_bits(slack, 2 * bits, w));
  // Test-only deviation: a prover outside the ball with truncated decompositions, which the
  // circuit's constraints must reject.
  const testing::Deviation* dev = testing::deviation();
  if (high != 0 && (dev == nullptr || !dev->prove_outside_domain)) return std::nullopt;
  const auto circuit = ball_circuit(bits, d);
  bind_ball(t, bits, d, radius);
  return BallProof{bits, d, prove_circuit(t, gens, *circuit, publics, commitments, w, blinders, rng)};
}

namespace {
VerifyResult check_params(const GeneratorSet& gens, const BallStatement& st, const BallProof& proof) {
  if (!ball_params_supported(st.bits, st.commitments.size(), st.radius))
    return VerifyResult::fail(VerifyStatus::kBadStatement,
                              "ball statement: bits must be 8/16/32/64, 1..1024 commitments, 1 <= C < 2^(bits-1)");
  if (proof.bits != st.bits || proof.d != st.commitments.size())
    return VerifyResult::fail(VerifyStatus::kParameterMismatch, "proof header (bits, d) differs from the statement");
  if (gens.size() < ball_generators(st.bits, proof.d))
    return VerifyResult::fail(VerifyStatus::kBadStatement, "generator set too small");
  return VerifyResult::valid();
}
}  // namespace

VerifyResult verify_ball(Transcript& t, const GeneratorSet& gens, const BallStatement& st, const BallProof& proof) {
  VerifyResult r = check_params(gens, st, proof);
  if (!r) return r;
  bind_ball(t, st.bits, proof.d, st.radius);
  return verify_circuit(t, gens, *ball_circuit(st.bits, proof.d), ball_publics(st.radius), st.commitments,
                        proof.body);
}

VerifyResult batch_verify_ball(std::span<Transcript> transcripts, const GeneratorSet& gens,
                               std::span<const BallStatement> statements, std::span<const BallProof> proofs,
                               Rng& rng) {
  if (transcripts.size() != proofs.size() || statements.size() != proofs.size())
    return VerifyResult::fail(VerifyStatus::kBadStatement, "one transcript and one statement per proof");
  MsmTerms eq;
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    VerifyResult r = check_params(gens, statements[i], proofs[i]);
    if (r) {
      eq.set_weight(Scalar::random_nonzero(rng));
      bind_ball(transcripts[i], statements[i].bits, proofs[i].d, statements[i].radius);
      r = add_circuit_terms(transcripts[i], gens, *ball_circuit(statements[i].bits, proofs[i].d),
                            ball_publics(statements[i].radius), statements[i].commitments, proofs[i].body, eq);
    }
    if (!r) {
      r.message = "proof " + std::to_string(i) + ": " + r.message;
      return r;
    }
  }
  if (!eq.is_identity(gens))
    return VerifyResult::fail(VerifyStatus::kBatchEquation,
                              "batched final equation fails: at least one proof is invalid");
  return VerifyResult::valid();
}

}  // namespace gopa::sigma
