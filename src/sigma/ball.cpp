// L2-ball proofs (ball.hpp, docs/proofs.md §5.2).
#include "gopa/sigma/ball.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "gopa/check.hpp"
#include "gopa/parallel.hpp"
#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
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

// The coordinates of a ball circuit, shared by the one-circuit and the blocked proofs: per
// coordinate its b bits (β(β − 1) = 0), x_j = Σ_i 2^i·β_i − C bound to the next commitment, and
// the gate x_j·x_j; returns Σ_j x_j².
LinComb ball_coordinates(CircuitBuilder& b, const LinComb& radius, unsigned bits, std::size_t n) {
  LinComb norm_sq;
  for (std::size_t j = 0; j < n; ++j) {
    const LinComb x = b.bits(bits) - radius;  // b.bits(bits) is x_j + C
    b.bind_commitment(x);
    norm_sq += b.mul(x, x);
  }
  return norm_sq;
}

}  // namespace

bool ball_params_supported(unsigned bits, std::size_t d, std::uint64_t radius) noexcept {
  if (!bits_supported(bits) || d == 0 || d > kMaxBallDim || radius == 0) return false;
  return radius < (std::uint64_t{1} << (bits - 1));
}

std::shared_ptr<const Circuit> ball_circuit(unsigned bits, std::size_t d) {
  GOPA_CHECK(bits_supported(bits) && d >= 1 && d <= kMaxBallDim, "ball_circuit: unsupported parameters");
  static CircuitCache<std::pair<unsigned, std::size_t>> cache(kCircuitCacheCapacity);
  return cache.get({bits, d}, [bits, d] {
    // Variables in order: per coordinate its b bits, then its square; then the 2b bits of the
    // slack C² − Σ x_j² (prove_ball builds the witness in the same order).
    CircuitBuilder b(CircuitBuilder::kVerifier);
    const LinComb radius = b.public_input(Scalar::zero());
    const LinComb radius_sq = b.public_input(Scalar::zero());
    const LinComb norm_sq = ball_coordinates(b, radius, bits, d);
    const LinComb slack = b.bits(2 * bits);  // C² − Σ x_j²
    b.assert_equal(slack, radius_sq - norm_sq);
    return sealed(b.circuit());
  });
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
  if (in.size() != encoded_size(bits, d)) return std::nullopt;
  // By shape alone: the circuit is built by the verifier, once (bits, d) matches its statement
  // (a header is not a statement: docs/proofs.md §1).
  auto body = CircuitProof::decode_body(in.subspan(5), Basis{ball_generators(bits, d), true});
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
    if (!r) return of_proof(i, std::move(r));
  }
  return batch_verdict(eq, gens);
}

// ---------------------------------------------------------------- blocked L2-ball proofs (§5.3)

namespace {
constexpr std::string_view kBlockedDomain = "gopa/sigma/blocked-l2-ball v2";

// OR of the encoding's bytes from bits/8 on: non-zero iff v ≥ 2^bits (constant time).
unsigned char high_bytes(const SecretScalar& v, unsigned bits) {
  std::uint8_t enc[32];
  decaf_255_scalar_encode(enc, v.raw());
  unsigned char high = 0;
  for (unsigned i = bits / 8; i < 32; ++i) high = static_cast<unsigned char>(high | enc[i]);
  sodium_memzero(enc, sizeof enc);
  return high;
}

// Generators of the block circuit over n coordinates: n·(b + 1) variables and as many gates, + 3.
std::size_t block_generators(unsigned bits, std::size_t n) { return 2U * n * (bits + 1U) + 3U; }
// The slack circuit: 2b variables and gates, + 3.
std::size_t slack_generators(unsigned bits) { return 4U * bits + 3U; }
// A circuit body, and a batch body of s instances, for a circuit with these generators (+ G, H).
std::size_t circuit_body_size(std::size_t generators) {
  return 96U + CompressedProof::encoded_size(fold_shape(generators + 2U));
}
std::size_t batch_body_size(std::size_t generators, std::size_t s) {
  return 96U * s + CompressedProof::encoded_size(fold_shape(generators + 2U));
}

// The 32-byte digest of a finished part's transcript, absorbed into the caller's transcript.
using Digest = std::array<std::uint8_t, 32>;
Digest finish_part(Transcript& fork) {
  Digest d{};
  fork.challenge_bytes("end", d);
  return d;
}
void absorb_digests(Transcript& t, const std::vector<Digest>& digests) {
  std::vector<std::uint8_t> all;
  all.reserve(32 * digests.size());
  for (const Digest& d : digests) all.insert(all.end(), d.begin(), d.end());
  t.append_message("parts", all);
}

std::string batch_name(const BallBatch& b) {
  return b.count == 1 ? "block " + std::to_string(b.first)
                      : "blocks " + std::to_string(b.first) + ".." + std::to_string(b.first + b.count - 1);
}

// The public side of batch b's instances: C, and each block's V_j then its S_k.
void batch_statement(const BallBatch& b, std::size_t block, std::span<const Point> commitments,
                     std::span<const Point> partial, const Scalar& radius,
                     std::vector<std::vector<Scalar>>& publics, std::vector<std::vector<Point>>& coms) {
  publics.assign(b.count, std::vector<Scalar>{radius});
  coms.clear();
  for (std::size_t k = b.first; k < b.first + b.count; ++k) {
    const auto start = static_cast<std::ptrdiff_t>(k * block);
    std::vector<Point> c(commitments.begin() + start, commitments.begin() + start + static_cast<std::ptrdiff_t>(b.len));
    c.push_back(partial[k]);
    coms.push_back(std::move(c));
  }
}
}  // namespace

bool ball_blocked_params_supported(unsigned bits, std::size_t d, std::uint64_t radius) noexcept {
  if (!bits_supported(bits) || d == 0 || d > kMaxBlockedBallDim || radius == 0) return false;
  return radius < (std::uint64_t{1} << (bits - 1));
}

std::size_t ball_block_size(unsigned bits) noexcept {
  return std::min<std::size_t>(kBallBlockSize, (std::size_t{1} << 15) / (bits + 1U));
}

std::size_t ball_block_count(unsigned bits, std::size_t d) noexcept {
  const std::size_t n = ball_block_size(bits);
  return (d + n - 1) / n;
}

std::size_t ball_block_len(unsigned bits, std::size_t d, std::size_t k) noexcept {
  const std::size_t n = ball_block_size(bits);
  const std::size_t start = k * n;
  return start >= d ? 0 : std::min(n, d - start);
}

std::vector<BallBatch> ball_batches(unsigned bits, std::size_t d) { return block_batches(d, ball_block_size(bits)); }

std::shared_ptr<const Circuit> ball_block_circuit(unsigned bits, std::size_t n) {
  GOPA_CHECK(bits_supported(bits) && n >= 1 && n <= ball_block_size(bits), "ball_block_circuit: unsupported parameters");
  auto build = [bits, n]() {
    // Variables in order: per coordinate its b bits, then its square (the prover's witness
    // order). Bindings: x_j for each coordinate, then Σ_j x_j² (the block's S_k).
    CircuitBuilder b(CircuitBuilder::kVerifier);
    const LinComb radius = b.public_input(Scalar::zero());
    b.bind_commitment(ball_coordinates(b, radius, bits, n));
    return sealed(b.circuit());
  };
  // A few block lengths kept (the full block's per b, and the last short ones used); readers
  // hold what they get, so an entry dropped meanwhile outlives its use.
  static CircuitCache<std::pair<unsigned, std::size_t>> cache(kCircuitCacheCapacity);
  return cache.get({bits, n}, build);
}

std::shared_ptr<const Circuit> ball_slack_circuit(unsigned bits) {
  GOPA_CHECK(bits_supported(bits), "ball_slack_circuit: unsupported bits");
  static std::mutex mu;
  static std::map<unsigned, std::shared_ptr<const Circuit>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[bits];
  if (!slot) {
    CircuitBuilder b(CircuitBuilder::kVerifier);
    b.bind_commitment(b.bits(2 * bits));
    slot = sealed(b.circuit());
  }
  return slot;
}

std::size_t ball_blocked_generators(unsigned bits, std::size_t d) {
  return std::max(block_generators(bits, std::min(d, ball_block_size(bits))), slack_generators(bits));
}

std::size_t BlockedBallProof::encoded_size(unsigned bits, std::size_t d) {
  std::size_t n = 7U + 32U * ball_block_count(bits, d);
  for (const BallBatch& b : ball_batches(bits, d)) n += batch_body_size(block_generators(bits, b.len), b.count);
  return n + circuit_body_size(slack_generators(bits));
}

std::vector<std::uint8_t> BlockedBallProof::encode() const {
  std::vector<std::uint8_t> out;
  out.reserve(encoded_size(bits, d));
  wire::Writer w(out);
  w.u8(kProofVersion).u8(kBlockedBallKind).u8(static_cast<std::uint8_t>(bits)).u32(static_cast<std::uint32_t>(d));
  for (const Point& s : partial) w.point(s);
  for (const CircuitBatchProof& b : batches) b.encode_body(out);
  slack.encode_body(out);
  return out;
}

std::optional<BlockedBallProof> BlockedBallProof::decode(std::span<const std::uint8_t> in) {
  wire::Reader r(in);
  const auto ver = r.u8();
  const auto kind = r.u8();
  const auto bits = r.u8();
  const auto d = r.u32();
  if (!r.ok() || ver != kProofVersion || kind != kBlockedBallKind) return std::nullopt;
  if (!bits_supported(bits) || d == 0 || d > kMaxBlockedBallDim) return std::nullopt;
  if (in.size() != encoded_size(bits, d)) return std::nullopt;  // before building any circuit
  BlockedBallProof p;
  p.bits = bits;
  p.d = d;
  const std::size_t k = ball_block_count(p.bits, p.d);
  p.partial.reserve(k);
  for (std::size_t i = 0; i < k; ++i) p.partial.push_back(r.point());
  if (!r.ok()) return std::nullopt;
  std::size_t pos = 7U + 32U * k;
  for (const BallBatch& b : ball_batches(p.bits, p.d)) {
    const std::size_t len = batch_body_size(block_generators(p.bits, b.len), b.count);
    // By shape alone, as BallProof::decode: no block circuit is built for a d nobody asked for.
    auto body = CircuitBatchProof::decode_body(in.subspan(pos, len), Basis{block_generators(p.bits, b.len), true}, b.count);
    if (!body) return std::nullopt;
    p.batches.push_back(std::move(*body));
    pos += len;
  }
  auto body = CircuitProof::decode_body(in.subspan(pos), Basis{slack_generators(p.bits), true});
  if (!body) return std::nullopt;
  p.slack = std::move(*body);
  return p;
}

void bind_ball_blocked(Transcript& t, unsigned bits, std::size_t d, std::uint64_t radius,
                       std::span<const Point> partial) {
  t.domain_separator(kBlockedDomain);
  t.append_u64("bits", bits);
  t.append_u64("d", d);
  t.append_u64("radius", radius);
  t.append_u64("block", ball_block_size(bits));
  t.append_points("partial", partial);
}

Transcript ball_batch_transcript(const Transcript& bound, std::size_t g) {
  Transcript f = bound.clone();
  f.append_u64("batch", g);
  return f;
}

Transcript ball_slack_transcript(const Transcript& bound) {
  Transcript f = bound.clone();
  f.append_message("slack", std::string_view{});
  return f;
}

Point ball_slack_commitment(const GeneratorSet& gens, std::uint64_t radius, std::span<const Point> partial) {
  Point acc = gens.G() * ball_publics(radius)[1];
  for (const Point& s : partial) acc -= s;
  return acc;
}

std::optional<BlockedBallProof> prove_ball_blocked(Transcript& t, const GeneratorSet& gens, unsigned bits,
                                                   std::uint64_t radius, std::span<const Point> commitments,
                                                   std::span<const SecretScalar> values,
                                                   std::span<const SecretScalar> blinders, Rng& rng,
                                                   unsigned threads) {
  const std::size_t d = values.size();
  if (!ball_blocked_params_supported(bits, d, radius) || commitments.size() != d || blinders.size() != d ||
      gens.size() < ball_blocked_generators(bits, d))
    return std::nullopt;
  const std::vector<Scalar> publics = ball_publics(radius);
  const std::size_t block = ball_block_size(bits);
  const std::size_t nblocks = ball_block_count(bits, d);
  // Partial sums q_k = Σ_{j∈k} x_j² (below 2^138 as integers when every x_j + C has b bits) and
  // the slack C² − Σ_k q_k; constant time.
  unsigned char high = 0;  // non-zero iff some x_j + C ∉ [0, 2^b) or the slack ∉ [0, 2^2b)
  std::vector<SecretScalar> q(nblocks);
  SecretScalar slack(publics[1]);
  for (std::size_t j = 0; j < d; ++j) {
    high = static_cast<unsigned char>(high | high_bytes(values[j] + publics[0], bits));
    q[j / block] += values[j] * values[j];
  }
  for (const SecretScalar& qk : q) slack -= qk;
  high = static_cast<unsigned char>(high | high_bytes(slack, 2 * bits));
  // Test-only deviation: a prover outside the ball with truncated decompositions.
  const testing::Deviation* dev = testing::deviation();
  if (high != 0 && (dev == nullptr || !dev->prove_outside_domain)) return std::nullopt;

  // Randomness, in a fixed order: the blinders t_k, then one seed per batch and one for the slack.
  BlockedBallProof proof;
  proof.bits = bits;
  proof.d = d;
  std::vector<SecretScalar> tb;
  tb.reserve(nblocks);
  SecretScalar slack_blinder;  // −Σ t_k
  for (std::size_t k = 0; k < nblocks; ++k) {
    tb.push_back(SecretScalar::random(rng));
    slack_blinder -= tb.back();
    proof.partial.push_back(commit(q[k], tb.back(), gens));
    proof.partial.back().cache_encoding();
  }
  const std::vector<BallBatch> batches = ball_batches(bits, d);
  std::vector<std::array<std::uint8_t, 32>> seeds(batches.size() + 1);
  for (auto& s : seeds) rng.fill(s);

  bind_ball_blocked(t, bits, d, radius, proof.partial);
  std::vector<Digest> digests(batches.size() + 1);
  for (std::size_t g = 0; g < batches.size(); ++g) {
    const BallBatch& b = batches[g];
    std::vector<std::vector<Scalar>> pub;
    std::vector<std::vector<Point>> coms;
    batch_statement(b, block, commitments, proof.partial, publics[0], pub, coms);
    // Block k's witness: per coordinate the bits of x_j + C and x_j²; blinders r_j, then t_k.
    const WitnessSource source = [&](std::size_t i, std::vector<SecretScalar>& w, std::vector<SecretScalar>& bl) {
      const std::size_t k = b.first + i;
      const std::size_t start = k * block;
      w.reserve(b.len * (bits + 1U));
      for (std::size_t j = start; j < start + b.len; ++j) {
        (void)append_bits(values[j] + publics[0], bits, w);
        w.push_back(values[j] * values[j]);
        bl.push_back(blinders[j].clone());
      }
      bl.push_back(tb[k].clone());
    };
    DeterministicRng batch_rng(seeds[g]);  // ChaCha20 of 32 bytes of the caller's rng
    Transcript fork = ball_batch_transcript(t, g);
    proof.batches.push_back(
        prove_circuit_batch(fork, gens, *ball_block_circuit(bits, b.len), pub, coms, source, batch_rng, threads));
    digests[g] = finish_part(fork);
  }
  {
    std::vector<SecretScalar> w;
    w.reserve(2U * bits);
    (void)append_bits(slack, 2 * bits, w);
    const Point com = ball_slack_commitment(gens, radius, proof.partial);
    DeterministicRng slack_rng(seeds.back());
    Transcript fork = ball_slack_transcript(t);
    proof.slack = prove_circuit(fork, gens, *ball_slack_circuit(bits), {}, {&com, 1}, w, {&slack_blinder, 1},
                                slack_rng);
    digests.back() = finish_part(fork);
  }
  for (auto& s : seeds) sodium_memzero(s.data(), s.size());
  absorb_digests(t, digests);
  return proof;
}

namespace {
// The blocked proof's checks (every batch, then the slack), in one of two modes: with `eq`, each
// part's equation is added to *eq under its weight (weights[g], the slack's last; gather_terms);
// without, each part is verified alone and the first failing one is named.
// Either way the transcript ends as the prover's did.
VerifyResult blocked_parts(Transcript& t, const GeneratorSet& gens, const BallStatement& st,
                           const BlockedBallProof& proof, unsigned threads, std::span<const Scalar> weights,
                           MsmTerms* eq) {
  const std::size_t d = st.commitments.size();
  if (!ball_blocked_params_supported(st.bits, d, st.radius))
    return VerifyResult::fail(VerifyStatus::kBadStatement,
                              "blocked ball statement: bits must be 8/16/32/64, 1..2^20 commitments, "
                              "1 <= C < 2^(bits-1)");
  if (proof.bits != st.bits || proof.d != d)
    return VerifyResult::fail(VerifyStatus::kParameterMismatch, "proof header (bits, d) differs from the statement");
  const std::size_t block = ball_block_size(st.bits);
  const std::size_t nblocks = ball_block_count(st.bits, d);
  const std::vector<BallBatch> batches = ball_batches(st.bits, d);
  if (proof.partial.size() != nblocks || proof.batches.size() != batches.size())
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "one partial sum per block and one batch proof per batch");
  for (std::size_t g = 0; g < batches.size(); ++g)
    if (proof.batches[g].p.size() != batches[g].count)
      return VerifyResult::fail(VerifyStatus::kMalformedProof, batch_name(batches[g]) + ": wrong number of blocks");
  if (gens.size() < ball_blocked_generators(st.bits, d))
    return VerifyResult::fail(VerifyStatus::kBadStatement, "generator set too small");
  const std::size_t parts = batches.size() + 1;
  GOPA_CHECK(eq == nullptr || weights.size() == parts, "blocked ball: one weight per part");
  const std::vector<Scalar> publics = ball_publics(st.radius);
  bind_ball_blocked(t, st.bits, d, st.radius, proof.partial);
  std::vector<VerifyResult> results(parts);
  std::vector<Digest> digests(parts);
  const Point slack_com = ball_slack_commitment(gens, st.radius, proof.partial);
  // Part g < batches: batch g; the last part: the slack. Contiguous runs of parts per thread.
  auto check = [&](std::size_t g, MsmTerms* terms) {
    if (g < batches.size()) {
      const BallBatch& b = batches[g];
      Transcript fork = ball_batch_transcript(t, g);
      std::vector<std::vector<Scalar>> pub;
      std::vector<std::vector<Point>> coms;
      batch_statement(b, block, st.commitments, proof.partial, publics[0], pub, coms);
      // Held for the whole check: the cache may replace its entry meanwhile (another thread,
      // another length), and the circuit must outlive every use here.
      const std::shared_ptr<const Circuit> circuit = ball_block_circuit(st.bits, b.len);
      if (terms != nullptr) {
        terms->set_weight(weights[g]);
        results[g] = add_circuit_batch_terms(fork, gens, *circuit, pub, coms, proof.batches[g], *terms);
      } else {
        results[g] = verify_circuit_batch(fork, gens, *circuit, pub, coms, proof.batches[g]);
      }
      digests[g] = finish_part(fork);
      return;
    }
    Transcript fork = ball_slack_transcript(t);
    const std::shared_ptr<const Circuit> circuit = ball_slack_circuit(st.bits);
    if (terms != nullptr) {
      terms->set_weight(weights[g]);
      results[g] = add_circuit_terms(fork, gens, *circuit, {}, {&slack_com, 1}, proof.slack, *terms);
    } else {
      results[g] = verify_circuit(fork, gens, *circuit, {}, {&slack_com, 1}, proof.slack);
    }
    digests[g] = finish_part(fork);
  };
  if (eq == nullptr) {
    parallel_for(parts, std::max(threads, 1U), [&](std::size_t g) { check(g, nullptr); });
  } else {
    gather_terms(parts, threads, *eq, [&](std::size_t g, MsmTerms& terms) {
      check(g, &terms);
      return true;
    });
  }
  for (std::size_t g = 0; g < parts; ++g) {
    if (!results[g]) {
      results[g].message = (g < batches.size() ? batch_name(batches[g]) : std::string("slack C^2 - sum of partial sums")) +
                           ": " + results[g].message;
      return results[g];
    }
  }
  absorb_digests(t, digests);
  return VerifyResult::valid();
}
}  // namespace

VerifyResult verify_ball_blocked(Transcript& t, const GeneratorSet& gens, const BallStatement& st,
                                 const BlockedBallProof& proof, unsigned threads) {
  return blocked_parts(t, gens, st, proof, threads, {}, nullptr);
}

VerifyResult batch_verify_ball_blocked(std::span<Transcript> transcripts, const GeneratorSet& gens,
                                       std::span<const BallStatement> statements,
                                       std::span<const BlockedBallProof> proofs, Rng& rng, unsigned threads) {
  if (transcripts.size() != proofs.size() || statements.size() != proofs.size())
    return VerifyResult::fail(VerifyStatus::kBadStatement, "one transcript and one statement per proof");
  MsmTerms eq;
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    const BallStatement& st = statements[i];
    const std::size_t parts = ball_blocked_params_supported(st.bits, st.commitments.size(), st.radius)
                                  ? ball_batches(st.bits, st.commitments.size()).size() + 1
                                  : 1;
    std::vector<Scalar> weights(parts);
    for (Scalar& w : weights) w = Scalar::random_nonzero(rng);
    VerifyResult r = blocked_parts(transcripts[i], gens, st, proofs[i], threads, weights, &eq);
    if (!r) return of_proof(i, std::move(r));
  }
  return batch_verdict(eq, gens);
}

}  // namespace gopa::sigma
