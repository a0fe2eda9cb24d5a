// L2-ball proofs (gopa/sigma/ball.hpp; docs/proofs.md §5.2, §7.4): honest proofs in and on the
// ball verify; a malicious prover (gopa/deviation.hpp) with ‖x‖₂ slightly above C, a coordinate
// just above C, a coordinate that wraps below −C, or a binding forged along any generator is
// rejected by the verifier and by batch verification; and the tamper matrix of the wire format
// and the statement (truncation, bit flips, splicing, another C, other commitments).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/ball.hpp"
#include "gopa/sigma/range.hpp"
#include "wire.hpp"

using namespace gopa;
using namespace gopa::sigma;
using testing::Along;
using testing::Deviation;
using testing::ScopedDeviation;

namespace {

const char* const kLabel = "gopa/ball test";

struct Instance {
  BallStatement st;
  std::vector<SecretScalar> values, blinders;
};

// Commitments to x (signed integers, embedded in Z_ℓ as ℓ − |x_j| when negative).
Instance make_instance(unsigned bits, std::uint64_t radius, const std::vector<Scalar>& x, const GeneratorSet& gens,
                       Rng& rng) {
  Instance in;
  in.st.bits = bits;
  in.st.radius = radius;
  for (const Scalar& v : x) {
    in.values.emplace_back(v);
    in.blinders.push_back(SecretScalar::random(rng));
    in.st.commitments.push_back(commit(in.values.back(), in.blinders.back(), gens));
  }
  return in;
}

std::vector<Scalar> signed_vector(std::initializer_list<std::int64_t> xs) {
  std::vector<Scalar> out;
  for (std::int64_t x : xs) out.push_back(Scalar::from_i64(x));
  return out;
}

std::shared_ptr<const GeneratorSet> gens_for(unsigned bits, std::size_t d) {
  return GeneratorSet::get("gopa", ball_generators(bits, d));
}

std::optional<BallProof> prove(const Instance& in, const GeneratorSet& gens, Rng& rng) {
  Transcript t(kLabel);
  return prove_ball(t, gens, in.st.bits, in.st.radius, in.st.commitments, in.values, in.blinders, rng);
}

bool verifies(const BallStatement& st, const GeneratorSet& gens, const BallProof& proof) {
  Transcript t(kLabel);
  return verify_ball(t, gens, st, proof).ok();
}

// The fast verifier and a batch holding an honest proof beside it; true if either accepts.
bool accepted_anywhere(const BallStatement& st, const GeneratorSet& gens, const BallProof& proof, Rng& rng) {
  auto decoded = BallProof::decode(proof.encode());
  REQUIRE(decoded);
  const bool fast = verifies(st, gens, *decoded);
  std::vector<Scalar> hx(st.commitments.size(), Scalar::zero());
  hx[0] = Scalar::from_u64(st.radius);
  Instance honest = make_instance(st.bits, st.radius, hx, gens, rng);
  auto hp = prove(honest, gens, rng);
  REQUIRE(hp);
  std::vector<Transcript> ts;
  ts.emplace_back(kLabel);
  ts.emplace_back(kLabel);
  std::vector<BallStatement> sts{honest.st, st};
  std::vector<BallProof> prs{*hp, *decoded};
  const bool batch = batch_verify_ball(ts, gens, sts, prs, rng).ok();
  return fast || batch;
}

}  // namespace

TEST_CASE("ball: parameters", "[sigma][ball]") {
  CHECK(ball_params_supported(8, 1, 1));
  CHECK(ball_params_supported(8, 1, 127));
  CHECK_FALSE(ball_params_supported(8, 1, 128));  // 2C must fit in 8 bits
  CHECK_FALSE(ball_params_supported(8, 1, 0));
  CHECK_FALSE(ball_params_supported(12, 1, 5));
  CHECK_FALSE(ball_params_supported(32, 0, 5));
  CHECK_FALSE(ball_params_supported(32, kMaxBallDim + 1, 5));
  CHECK(ball_params_supported(64, kMaxBallDim, (std::uint64_t{1} << 63) - 1));
  // The circuit: d·(b + 1) + 2b variables and gates, d bindings, C and C² public.
  const auto c = ball_circuit(16, 3);
  CHECK(c->num_witness == 3 * 17 + 32);
  CHECK(c->gates.size() == 3 * 17 + 32);
  CHECK(c->bindings.size() == 3);
  CHECK(c->num_public == 2);
  CHECK(c->generators_needed() == ball_generators(16, 3));
}

TEST_CASE("ball: honest proofs in and on the ball verify", "[sigma][ball]") {
  DeterministicRng rng(11);
  struct Case {
    unsigned bits;
    std::uint64_t radius;
    std::vector<Scalar> x;
  };
  const std::vector<Case> cases = {
      {8, 5, signed_vector({3, 4})},                 // on the sphere
      {8, 5, signed_vector({-3, -4})},
      {8, 5, signed_vector({0, 0, 0})},
      {8, 127, signed_vector({127})},                 // the largest radius at 8 bits, x = C
      {8, 127, signed_vector({-127})},
      {16, 1000, signed_vector({-600, 800, 0, 0})},
      {32, 65536, signed_vector({-65536, 0, 0, 0, 0})},
      {64, (std::uint64_t{1} << 63) - 1, signed_vector({std::int64_t{1} - (std::int64_t{1} << 62), 12345})},
  };
  for (const Case& c : cases) {
    auto gens = gens_for(c.bits, c.x.size());
    Instance in = make_instance(c.bits, c.radius, c.x, *gens, rng);
    auto proof = prove(in, *gens, rng);
    REQUIRE(proof);
    const auto bytes = proof->encode();
    CHECK(bytes.size() == BallProof::encoded_size(c.bits, c.x.size()));
    auto decoded = BallProof::decode(bytes);
    REQUIRE(decoded);
    CHECK(decoded->encode() == bytes);
    CHECK(verifies(in.st, *gens, *decoded));
  }
  // A batch of honest proofs.
  auto gens = gens_for(16, 4);
  std::vector<Transcript> ts;
  std::vector<BallStatement> sts;
  std::vector<BallProof> prs;
  for (std::int64_t k = 0; k < 4; ++k) {
    Instance in = make_instance(16, 1000, signed_vector({-k * 100, 0, 700, -7}), *gens, rng);
    auto p = prove(in, *gens, rng);
    REQUIRE(p);
    ts.emplace_back(kLabel);
    sts.push_back(in.st);
    prs.push_back(*p);
  }
  CHECK(batch_verify_ball(ts, *gens, sts, prs, rng).ok());
}

TEST_CASE("ball: the honest prover refuses vectors outside the ball", "[sigma][ball]") {
  DeterministicRng rng(12);
  auto gens = gens_for(8, 3);
  for (const auto& x : {signed_vector({3, 4, 1}), signed_vector({6, 0, 0}), signed_vector({0, -6, 0}),
                        signed_vector({127, 0, 0})}) {
    Instance in = make_instance(8, 5, x, *gens, rng);
    CHECK_FALSE(prove(in, *gens, rng));
  }
}

TEST_CASE("ball: a prover outside the ball is rejected (malicious prover)", "[sigma][ball][malicious][heavy]") {
  DeterministicRng rng(13);
  const unsigned bits = 16;
  const std::uint64_t radius = 1000;
  const std::size_t d = 3;
  auto gens = gens_for(bits, d);
  const Scalar ell_minus = Scalar::zero() - Scalar::from_u64(radius + 1);  // ℓ − (C + 1) = −(C + 1)
  struct Bad {
    const char* what;
    std::vector<Scalar> x;
  };
  const std::vector<Bad> bad = {
      {"norm slightly above C", signed_vector({600, 800, 1})},           // 1000² + 1
      {"on the sphere plus one ulp", signed_vector({601, 800, 0})},
      {"one coordinate C + 1, others 0", signed_vector({1001, 0, 0})},
      {"one coordinate -(C + 1) = l - (C + 1)", {ell_minus, Scalar::zero(), Scalar::zero()}},
      {"coordinate 2^b - C (x + C wraps the b bits)", signed_vector({(1 << 16) - 1000, 0, 0})},
      {"coordinate l - 2^b", {Scalar::zero() - Scalar::from_u64(1 << 16), Scalar::zero(), Scalar::zero()}},
      {"coordinate 2^126 (its square wraps mod l)", {Scalar::from_u64(2).pow(126),
                                                      Scalar::zero(), Scalar::zero()}},
  };
  // The in-ball vector the forging prover decomposes instead.
  const std::vector<Scalar> claimed = signed_vector({600, 800, 0});
  for (const Bad& b : bad) {
    INFO(b.what);
    Instance in = make_instance(bits, radius, b.x, *gens, rng);
    {
      // The true values, proven with truncated decompositions.
      Deviation dev;
      dev.prove_outside_domain = true;
      ScopedDeviation scope(dev);
      auto proof = prove(in, *gens, rng);
      REQUIRE(proof);
      CHECK_FALSE(accepted_anywhere(in.st, *gens, *proof, rng));
    }
    {
      // The commitments to the bad vector, a witness of an in-ball vector (on_statement), with and
      // without the binding forgery along G (the gap of the first coordinate), along H, Q, and every
      // wire generator.
      Instance good = make_instance(bits, radius, claimed, *gens, rng);
      const Scalar gap = claimed[0] - b.x[0];
      std::vector<testing::Offset> offsets;
      for (const Scalar& a : {gap, -gap, Scalar::random_nonzero(rng)}) {
        offsets.push_back({Along::kG, 0, a});
        offsets.push_back({Along::kH, 0, a});
        offsets.push_back({Along::kQ, 0, a});
      }
      for (std::size_t i = 0; i < ball_generators(bits, d); i += 7) offsets.push_back({Along::kGi, i, gap});
      const std::vector<Point> claimed_commitments = in.st.commitments;
      for (const auto& o : offsets) {
        Deviation dev;
        dev.on_statement = [&claimed_commitments](std::vector<Point>& coms) { coms = claimed_commitments; };
        dev.wire_offsets.push_back(o);
        ScopedDeviation scope(dev);
        auto proof = prove(good, *gens, rng);
        REQUIRE(proof);
        CHECK_FALSE(accepted_anywhere(in.st, *gens, *proof, rng));
      }
    }
  }
}

TEST_CASE("ball: responses, evaluations and nonces chosen by the prover are rejected", "[sigma][ball][malicious]") {
  DeterministicRng rng(14);
  auto gens = gens_for(8, 2);
  // Commitments to (5, 1) at C = 5 (norm² 26), witness of (4, 3) — every deviation after P.
  Instance bad = make_instance(8, 5, signed_vector({5, 1}), *gens, rng);
  Instance good = make_instance(8, 5, signed_vector({4, 3}), *gens, rng);
  const std::vector<Point> coms = bad.st.commitments;
  std::vector<Deviation> devs(5);
  for (auto& dev : devs) dev.on_statement = [&coms](std::vector<Point>& c) { c = coms; };
  devs[0].on_evaluations = [](Scalar& fa, Scalar&) { fa += Scalar::one(); };
  devs[1].on_evaluations = [](Scalar&, Scalar& gb) { gb -= Scalar::one(); };
  devs[2].on_mask_commitment = [&gens](Point& a) { a += gens->G(); };
  devs[3].on_responses = [](CompressedProof& p) { p.final.back() += Scalar::one(); };
  devs[4].reuse_nonces = true;
  for (const Deviation& dev : devs) {
    ScopedDeviation scope(dev);
    auto proof = prove(good, *gens, rng);
    REQUIRE(proof);
    CHECK_FALSE(accepted_anywhere(bad.st, *gens, *proof, rng));
  }
}

TEST_CASE("ball: tampered proofs and statements are rejected", "[sigma][ball][tamper]") {
  DeterministicRng rng(15);
  const unsigned bits = 8;
  auto gens = gens_for(bits, 2);
  Instance in = make_instance(bits, 5, signed_vector({-3, 4}), *gens, rng);
  auto proof = prove(in, *gens, rng);
  REQUIRE(proof);
  const auto bytes = proof->encode();
  REQUIRE(verifies(in.st, *gens, *proof));

  SECTION("truncation at every length and one extra byte") {
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      CHECK_FALSE(BallProof::decode(std::span(bytes).first(n)));
    }
    auto longer = bytes;
    longer.push_back(0);
    CHECK_FALSE(BallProof::decode(longer));
  }
  SECTION("every bit of every byte flipped") {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      for (unsigned bit = 0; bit < 8; bit += 3) {
        auto flipped = bytes;
        flipped[i] = static_cast<std::uint8_t>(flipped[i] ^ (1U << bit));
        auto d = BallProof::decode(flipped);
        if (d) {
          INFO("byte " << i << " bit " << bit);
          CHECK_FALSE(verifies(in.st, *gens, *d));
        }
      }
    }
  }
  SECTION("the kind byte of a range proof, the header's bits and d") {
    auto other = bytes;
    other[1] = static_cast<std::uint8_t>(ProofKind::kRange);
    CHECK_FALSE(BallProof::decode(other));
    BallProof p = *proof;
    p.bits = 16;
    CHECK_FALSE(verifies(in.st, *gens, p));
    BallStatement st = in.st;
    st.bits = 16;
    CHECK_FALSE(verifies(st, *gens, *proof));
  }
  SECTION("another radius") {
    for (std::uint64_t c : {std::uint64_t{4}, std::uint64_t{6}, std::uint64_t{100}}) {
      BallStatement st = in.st;
      st.radius = c;
      CHECK_FALSE(verifies(st, *gens, *proof));
    }
    BallStatement st = in.st;
    st.radius = 128;  // not supported at 8 bits
    Transcript t(kLabel);
    CHECK(verify_ball(t, *gens, st, *proof).status == VerifyStatus::kBadStatement);
  }
  SECTION("other commitments") {
    BallStatement st = in.st;
    std::swap(st.commitments[0], st.commitments[1]);
    CHECK_FALSE(verifies(st, *gens, *proof));
    st = in.st;
    st.commitments[1] += gens->G();
    CHECK_FALSE(verifies(st, *gens, *proof));
    st = in.st;
    st.commitments[0] += gens->H();
    CHECK_FALSE(verifies(st, *gens, *proof));
    st = in.st;
    st.commitments.push_back(st.commitments[0]);
    CHECK_FALSE(verifies(st, *gens, *proof));
  }
  SECTION("another transcript label, another proof spliced in") {
    Transcript t("gopa/ball test, another party");
    CHECK_FALSE(verify_ball(t, *gens, in.st, *proof).ok());
    Instance other = make_instance(bits, 5, signed_vector({1, 1}), *gens, rng);
    auto op = prove(other, *gens, rng);
    REQUIRE(op);
    const auto ob = op->encode();
    for (std::size_t cut : {std::size_t{5 + 32}, std::size_t{5 + 96}, bytes.size() - 32}) {
      auto spliced = bytes;
      std::copy(ob.begin() + static_cast<std::ptrdiff_t>(cut), ob.end(), spliced.begin() + static_cast<std::ptrdiff_t>(cut));
      auto d = BallProof::decode(spliced);
      if (d) CHECK_FALSE(verifies(in.st, *gens, *d));
    }
  }
}

// ---------------------------------------------------------------- blocked L2-ball proofs (§5.3)
//
// Completeness across block boundaries; vectors outside the ball proven anyway (truncated
// decompositions) with the norm spread over several blocks; a prover that lies about a block's
// partial sum q_k with the block proof built for the lie (square or binding forged), including
// shifts of q between blocks that keep the total; honest proofs with S_k, blocks or the S_k list
// moved, dropped, duplicated or spliced from another proof; every truncation; other statements;
// thread counts.

namespace {

struct BlockedInstance {
  BallStatement st;
  std::vector<SecretScalar> values, blinders;
};

BlockedInstance make_blocked(unsigned bits, std::uint64_t radius, const std::vector<std::int64_t>& x,
                             const GeneratorSet& gens, Rng& rng) {
  BlockedInstance in;
  in.st.bits = bits;
  in.st.radius = radius;
  in.values.reserve(x.size());
  in.blinders.reserve(x.size());
  in.st.commitments.reserve(x.size());
  for (std::int64_t v : x) {
    in.values.push_back(SecretScalar::from_i64(v));
    in.blinders.push_back(SecretScalar::random(rng));
    in.st.commitments.push_back(commit(in.values.back(), in.blinders.back(), gens));
  }
  return in;
}

// d coordinates uniform in [−m, m] with m = ⌊C/√(2d)⌋ (norm at most C/√2: room for one more
// coordinate of C/2).
std::vector<std::int64_t> random_in_ball(std::size_t d, std::uint64_t radius, Rng& rng) {
  REQUIRE(radius < (std::uint64_t{1} << 31));
  auto m = static_cast<std::uint64_t>(static_cast<long double>(radius) / std::sqrt(2.0L * static_cast<long double>(d)));
  while (m > 0 && m * m * d * 2 > radius * radius) --m;  // radius < 2^31 in these tests
  std::vector<std::int64_t> x(d);
  for (auto& v : x) v = static_cast<std::int64_t>(rng.uniform(2 * m + 1)) - static_cast<std::int64_t>(m);
  return x;
}

std::shared_ptr<const GeneratorSet> blocked_gens(unsigned bits) {
  return GeneratorSet::get("gopa", ball_blocked_generators(bits, kBallBlockSize));
}

// Block k's part of a blocked proof: its wire commitment and evaluations in its batch (the full
// blocks form batch 0, a shorter last block batch 1).
struct BlockPart {
  Point p;
  Scalar fa, gb;
};
std::pair<std::size_t, std::size_t> block_at(const BlockedBallProof& pr, std::size_t k) {
  const std::size_t full = pr.batches[0].p.size();
  return pr.batches.size() == 2 && k >= full ? std::pair<std::size_t, std::size_t>{1, k - full}
                                             : std::pair<std::size_t, std::size_t>{0, k};
}
BlockPart get_block(const BlockedBallProof& pr, std::size_t k) {
  const auto [g, i] = block_at(pr, k);
  return {pr.batches[g].p[i], pr.batches[g].fa[i], pr.batches[g].gb[i]};
}
void set_block(BlockedBallProof& pr, std::size_t k, const BlockPart& part) {
  const auto [g, i] = block_at(pr, k);
  pr.batches[g].p[i] = part.p;
  pr.batches[g].fa[i] = part.fa;
  pr.batches[g].gb[i] = part.gb;
}

std::optional<BlockedBallProof> prove_blocked(const BlockedInstance& in, const GeneratorSet& gens, Rng& rng,
                                              unsigned threads = 1) {
  Transcript t(kLabel);
  return prove_ball_blocked(t, gens, in.st.bits, in.st.radius, in.st.commitments, in.values, in.blinders, rng,
                            threads);
}

VerifyResult verify_blocked(const BallStatement& st, const GeneratorSet& gens, const BlockedBallProof& proof,
                            unsigned threads = 1) {
  Transcript t(kLabel);
  return verify_ball_blocked(t, gens, st, proof, threads);
}

// An honest blocked proof (one short block) to batch other proofs with.
struct HonestBlocked {
  BlockedInstance in;
  BlockedBallProof proof;
};
const HonestBlocked& honest_blocked(const GeneratorSet& gens) {
  static const HonestBlocked h = [&] {
    DeterministicRng rng(41);
    HonestBlocked out{make_blocked(8, 90, random_in_ball(5, 90, rng), gens, rng), {}};
    Transcript t(kLabel);
    auto proof = prove_ball_blocked(t, gens, 8, 90, out.in.st.commitments, out.in.values, out.in.blinders, rng);
    REQUIRE(proof);
    out.proof = *proof;
    return out;
  }();
  return h;
}

// batch_verify_ball_blocked over `proofs` on `threads` threads.
VerifyResult batch_blocked(std::vector<BallStatement> st, const GeneratorSet& gens,
                           std::vector<BlockedBallProof> proofs, unsigned threads, std::uint64_t seed = 5) {
  std::vector<Transcript> ts;
  for (std::size_t i = 0; i < proofs.size(); ++i) ts.emplace_back(kLabel);
  DeterministicRng rng(seed);
  return batch_verify_ball_blocked(ts, gens, st, proofs, rng, threads);
}

// Accepted after an encode/decode round trip on one or two threads (false if it does not decode).
// The batch verifier must agree: the proof alone (two threads), and after an honest proof (one).
bool blocked_accepted(const BallStatement& st, const GeneratorSet& gens, const BlockedBallProof& proof) {
  auto decoded = BlockedBallProof::decode(proof.encode());
  if (!decoded) return false;
  const VerifyResult one = verify_blocked(st, gens, *decoded, 1);
  const VerifyResult two = verify_blocked(st, gens, *decoded, 2);
  CHECK(one.status == two.status);
  CHECK(one.message == two.message);
  const HonestBlocked& h = honest_blocked(gens);
  CHECK(batch_blocked({st}, gens, {*decoded}, 2).ok() == one.ok());
  CHECK(batch_blocked({h.in.st, st}, gens, {h.proof, *decoded}, 1).ok() == one.ok());
  return one.ok() || two.ok();
}

// A malicious prover built from the public pieces (bind_ball_blocked, the forks, the circuits):
// it commits S_k to q_k + shift[k] and proves block k for that claim, either with the square of
// the block's last coordinate raised by shift[k] (a gate x·x = q that fails; the binding of S_k
// holds) or with the honest witness (the binding of S_k fails), then proves the slack of the
// claimed sums honestly. Rejection must come from the block proofs.
enum class Lie { kSquare, kBinding };
BlockedBallProof forge_partial_sums(const BlockedInstance& in, const GeneratorSet& gens,
                                    const std::vector<Scalar>& shift, Lie how, Rng& rng) {
  const unsigned bits = in.st.bits;
  const std::size_t d = in.values.size();
  const std::size_t nb = ball_block_count(bits, d);
  const std::size_t block = ball_block_size(bits);
  const Scalar c = Scalar::from_u64(in.st.radius);
  BlockedBallProof proof;
  proof.bits = bits;
  proof.d = d;
  std::vector<SecretScalar> q(nb), tb;
  for (std::size_t j = 0; j < d; ++j) q[j / block] += in.values[j] * in.values[j];
  SecretScalar slack(c.square());
  SecretScalar slack_blinder;
  for (std::size_t k = 0; k < nb; ++k) {
    q[k] += SecretScalar(shift[k]);
    slack -= q[k];
    tb.push_back(SecretScalar::random(rng));
    slack_blinder -= tb.back();
    proof.partial.push_back(commit(q[k], tb.back(), gens));
  }
  Transcript t(kLabel);
  bind_ball_blocked(t, bits, d, in.st.radius, proof.partial);
  const auto batches = ball_batches(bits, d);
  for (std::size_t g = 0; g < batches.size(); ++g) {
    const BallBatch& b = batches[g];
    std::vector<std::vector<Scalar>> pub;
    std::vector<std::vector<Point>> coms;
    for (std::size_t k = b.first; k < b.first + b.count; ++k) {
      pub.push_back({c});
      std::vector<Point> cs(in.st.commitments.begin() + static_cast<std::ptrdiff_t>(k * block),
                            in.st.commitments.begin() + static_cast<std::ptrdiff_t>(k * block + b.len));
      cs.push_back(proof.partial[k]);
      coms.push_back(std::move(cs));
    }
    const WitnessSource source = [&](std::size_t i, std::vector<SecretScalar>& w, std::vector<SecretScalar>& bl) {
      const std::size_t k = b.first + i;
      for (std::size_t j = k * block; j < k * block + b.len; ++j) {
        const Scalar shifted = in.values[j].declassify() + c;
        const auto enc = shifted.encode();
        for (unsigned bit = 0; bit < bits; ++bit)
          w.push_back(SecretScalar::from_u64((static_cast<unsigned>(enc[bit / 8]) >> (bit % 8)) & 1U));
        w.push_back(in.values[j] * in.values[j]);
        bl.push_back(in.blinders[j].clone());
      }
      if (how == Lie::kSquare) w.back() += SecretScalar(shift[k]);
      bl.push_back(tb[k].clone());
    };
    Transcript fork = ball_batch_transcript(t, g);
    proof.batches.push_back(prove_circuit_batch(fork, gens, *ball_block_circuit(bits, b.len), pub, coms, source, rng));
  }
  std::vector<SecretScalar> w;
  const auto enc = slack.declassify().encode();
  for (unsigned i = 0; i < 2 * bits; ++i) w.push_back(SecretScalar::from_u64((static_cast<unsigned>(enc[i / 8]) >> (i % 8)) & 1U));
  const Point com = ball_slack_commitment(gens, in.st.radius, proof.partial);
  Transcript fork = ball_slack_transcript(t);
  proof.slack = prove_circuit(fork, gens, *ball_slack_circuit(bits), {}, {&com, 1}, w, {&slack_blinder, 1}, rng);
  // The slack proof alone is honest for the claimed sums (unless a deviation breaks every proof).
  if (testing::deviation() != nullptr) return proof;
  Transcript tv(kLabel);
  bind_ball_blocked(tv, bits, d, in.st.radius, proof.partial);
  Transcript sv = ball_slack_transcript(tv);
  CHECK(verify_circuit(sv, gens, *ball_slack_circuit(bits), {}, {&com, 1}, proof.slack).ok());
  return proof;
}

}  // namespace

TEST_CASE("ball blocked: parameters, blocks and sizes", "[sigma][ball][blocked]") {
  CHECK(ball_blocked_params_supported(8, 1, 127));
  CHECK(ball_blocked_params_supported(64, kMaxBlockedBallDim, (std::uint64_t{1} << 63) - 1));
  CHECK_FALSE(ball_blocked_params_supported(8, 1, 128));
  CHECK_FALSE(ball_blocked_params_supported(8, 1, 0));
  CHECK_FALSE(ball_blocked_params_supported(12, 5, 5));
  CHECK_FALSE(ball_blocked_params_supported(32, 0, 5));
  CHECK_FALSE(ball_blocked_params_supported(32, kMaxBlockedBallDim + 1, 5));
  CHECK(ball_block_size(8) == 1024);
  CHECK(ball_block_size(16) == 1024);
  CHECK(ball_block_size(32) == 992);  // 992·33 = 32,736 gates: 2·32,736 − 1 < 2^16
  CHECK(ball_block_size(64) == 504);
  CHECK(ball_block_count(8, 1) == 1);
  CHECK(ball_block_count(8, 1024) == 1);
  CHECK(ball_block_count(8, 1025) == 2);
  CHECK(ball_block_count(8, kMaxBlockedBallDim) == 1024);
  CHECK(ball_block_count(32, 992) == 1);
  CHECK(ball_block_count(32, 10000) == 11);
  CHECK(ball_block_len(8, 1025, 0) == 1024);
  CHECK(ball_block_len(8, 1025, 1) == 1);
  CHECK(ball_block_len(8, 1025, 2) == 0);
  CHECK(ball_block_len(32, 10000, 10) == 80);
  // The full blocks in one batch, a shorter last block in its own.
  const auto bs = ball_batches(32, 10000);
  REQUIRE(bs.size() == 2);
  CHECK((bs[0].first == 0 && bs[0].count == 10 && bs[0].len == 992));
  CHECK((bs[1].first == 10 && bs[1].count == 1 && bs[1].len == 80));
  CHECK(ball_batches(8, 2048).size() == 1);
  CHECK(ball_batches(8, 5).size() == 1);
  // A block of n: n·(b + 1) variables and gates, n + 1 bindings, C public; the slack: 2b bits.
  const auto c = ball_block_circuit(16, 3);
  CHECK(c->num_witness == 3 * 17);
  CHECK(c->gates.size() == 3 * 17);
  CHECK(c->bindings.size() == 4);
  CHECK(c->num_public == 1);
  CHECK(ball_block_circuit(16, kBallBlockSize) == ball_block_circuit(16, kBallBlockSize));  // cached
  const auto s = ball_slack_circuit(64);
  CHECK(s->num_witness == 128);
  CHECK(s->bindings.size() == 1);
  CHECK(s->num_public == 0);
  CHECK(ball_blocked_generators(16, 3) ==
        std::max(c->generators_needed(), ball_slack_circuit(16)->generators_needed()));
  CHECK(ball_blocked_generators(64, 1) == s->generators_needed());  // 2·65 + 3 < 4·64 + 3
  CHECK(ball_blocked_generators(32, 100000) == ball_block_circuit(32, ball_block_size(32))->generators_needed());
}

namespace {
struct CompletenessCase {
  unsigned bits;
  std::uint64_t radius;
  std::size_t d;
};
void check_completeness(const std::vector<CompletenessCase>& cases, std::uint64_t seed) {
  DeterministicRng rng(seed);
  for (const CompletenessCase& c : cases) {
    INFO("b = " << c.bits << ", d = " << c.d);
    auto gens = blocked_gens(c.bits);
    std::vector<std::int64_t> x = random_in_ball(c.d, c.radius, rng);
    x[c.d - 1] = static_cast<std::int64_t>(c.radius) / 2;  // one large coordinate, in the last block
    BlockedInstance in = make_blocked(c.bits, c.radius, x, *gens, rng);
    auto proof = prove_blocked(in, *gens, rng);
    REQUIRE(proof);
    CHECK(proof->partial.size() == ball_block_count(c.bits, c.d));
    const auto bytes = proof->encode();
    CHECK(bytes.size() == BlockedBallProof::encoded_size(c.bits, c.d));
    auto decoded = BlockedBallProof::decode(bytes);
    REQUIRE(decoded);
    CHECK(decoded->encode() == bytes);
    const VerifyResult r = verify_blocked(in.st, *gens, *decoded);
    INFO(r.message);
    CHECK(r.ok());
  }
}
}  // namespace

TEST_CASE("ball blocked: honest proofs verify across block boundaries", "[sigma][ball][blocked][heavy]") {
  check_completeness({{16, 30000, 1}, {16, 30000, 1025}, {8, 127, 1}, {8, 127, 1030}}, 21);
}

// The other sizes (about a minute more), run with the `long` label (ctest -L long -R test_sigma_long)
// or ./test_sigma "[slow]".
TEST_CASE("ball blocked: honest proofs at b = 16, 32 and d = 1023, 1024, 3000", "[.][slow][sigma][ball][blocked]") {
  check_completeness({{16, 30000, 1023},
                      {16, 30000, 1024},
                      {16, 30000, 3000},
                      {32, 1U << 30, 1},
                      {32, (1U << 31) - 1, 1025},
                      {32, 1U << 30, 1023},
                      {32, 1U << 30, 1024},
                      {32, (1U << 31) - 1, 3000}},
                     28);
}

TEST_CASE("ball blocked: on the sphere passes, one ulp over fails (norm over several blocks)",
          "[sigma][ball][blocked][malicious][heavy]") {
  DeterministicRng rng(22);
  const unsigned bits = 8;
  const std::uint64_t radius = 100;  // = 2·50: four coordinates ±50, two in each block
  const std::size_t d = 1100;
  auto gens = blocked_gens(bits);
  std::vector<std::int64_t> x(d, 0);
  x[0] = 50;
  x[1024] = -50;
  x[1030] = 50;
  x[d - 1] = -50;
  {
    BlockedInstance in = make_blocked(bits, radius, x, *gens, rng);
    auto proof = prove_blocked(in, *gens, rng);
    REQUIRE(proof);
    CHECK(blocked_accepted(in.st, *gens, *proof));
  }
  struct Bad {
    const char* what;
    std::size_t at;
    std::int64_t value;
  };
  const std::vector<Bad> bad = {
      {"sphere plus one ulp: a 1 in the last block", 1050, 1},
      {"sphere plus one ulp: a -1 in the first block", 7, -1},
      {"sphere plus one ulp: a 1 in the first coordinate of the last block", 1024 + 1, 1},
      {"the coordinate of the last block 51", d - 1, 51},
  };
  for (const Bad& b : bad) {
    INFO(b.what);
    std::vector<std::int64_t> y = x;
    y[b.at] = b.value;
    BlockedInstance in = make_blocked(bits, radius, y, *gens, rng);
    CHECK_FALSE(prove_blocked(in, *gens, rng));  // the honest prover refuses
    Deviation dev;
    dev.prove_outside_domain = true;
    ScopedDeviation scope(dev);
    for (unsigned threads : {1U, 2U}) {
      auto proof = prove_blocked(in, *gens, rng, threads);
      REQUIRE(proof);
      CHECK_FALSE(blocked_accepted(in.st, *gens, *proof));
    }
  }
  // One coordinate at C + 1 (the others 0), at −(C + 1), and at 2^b − C (x + C wraps the b bits).
  for (std::int64_t v : {std::int64_t{101}, std::int64_t{-101}, std::int64_t{256 - 100}}) {
    INFO("coordinate " << v);
    std::vector<std::int64_t> y(d, 0);
    y[1030] = v;
    BlockedInstance in = make_blocked(bits, radius, y, *gens, rng);
    CHECK_FALSE(prove_blocked(in, *gens, rng));
    Deviation dev;
    dev.prove_outside_domain = true;
    ScopedDeviation scope(dev);
    auto proof = prove_blocked(in, *gens, rng);
    REQUIRE(proof);
    CHECK_FALSE(blocked_accepted(in.st, *gens, *proof));
  }
}

TEST_CASE("ball blocked: a prover lying about a partial sum is rejected", "[sigma][ball][blocked][malicious][heavy]") {
  DeterministicRng rng(23);
  const unsigned bits = 8;
  const std::uint64_t radius = 100;
  const std::size_t d = 1100;
  auto gens = blocked_gens(bits);
  std::vector<std::int64_t> x(d, 0);
  x[0] = 50;
  x[1024] = -50;
  x[1030] = 50;
  x[d - 1] = -50;
  std::vector<std::int64_t> over = x;
  over[1050] = 1;  // ‖x‖² = C² + 1
  BlockedInstance in = make_blocked(bits, radius, x, *gens, rng);
  BlockedInstance out = make_blocked(bits, radius, over, *gens, rng);
  const Scalar one = Scalar::one();
  const Scalar zero = Scalar::zero();
  struct Case {
    const char* what;
    const BlockedInstance* inst;
    std::vector<Scalar> shift;
  };
  const std::vector<Case> cases = {
      {"outside: the last block claims q - 1 (total then C^2)", &out, {zero, zero - one}},
      {"outside: the first block claims q - 1", &out, {zero - one, zero}},
      {"outside: the last block claims q - 2500", &out, {zero, zero - Scalar::from_u64(2500)}},
      {"inside: 5 moved from block 0 to block 1 (same total)", &in, {zero - Scalar::from_u64(5), Scalar::from_u64(5)}},
      {"inside: block 1 claims q - 1 (the total below C^2)", &in, {zero, zero - one}},
      {"inside: random shift of block 0, compensated in block 1", &in, {Scalar::random(rng), zero}},
  };
  for (const Case& c : cases) {
    std::vector<Scalar> shift = c.shift;
    if (std::string(c.what).find("random") != std::string::npos) shift[1] = zero - shift[0];
    for (Lie how : {Lie::kSquare, Lie::kBinding}) {
      INFO(c.what << (how == Lie::kSquare ? " (square forged)" : " (binding forged)"));
      BlockedBallProof forged = forge_partial_sums(*c.inst, *gens, shift, how, rng);
      CHECK_FALSE(blocked_accepted(c.inst->st, *gens, forged));
      // The block with the lie is the one named.
      const VerifyResult r = verify_blocked(c.inst->st, *gens, forged);
      std::size_t first = 0;
      while (shift[first] == zero) ++first;
      CHECK(r.message.rfind("block " + std::to_string(first) + ":", 0) == 0);
    }
  }
  // The binding forged along G (the deviation adds a multiple of G to every block's wire
  // commitment): still rejected.
  for (const Scalar& a : {one, zero - one, Scalar::random_nonzero(rng)}) {
    Deviation dev;
    dev.wire_offsets.push_back({Along::kG, 0, a});
    ScopedDeviation scope(dev);
    BlockedBallProof forged = forge_partial_sums(out, *gens, {zero, zero - one}, Lie::kBinding, rng);
    CHECK_FALSE(blocked_accepted(out.st, *gens, forged));
  }
  // Sanity: the forger with no lie produces an accepted proof (so the rejections above are the lies).
  BlockedBallProof honest = forge_partial_sums(in, *gens, {zero, zero}, Lie::kSquare, rng);
  CHECK(blocked_accepted(in.st, *gens, honest));
}

TEST_CASE("ball blocked: partial sums and blocks moved, dropped, duplicated, spliced",
          "[sigma][ball][blocked][tamper][heavy]") {
  DeterministicRng rng(24);
  const unsigned bits = 8;
  const std::uint64_t radius = 100;
  const std::size_t d = 2049;  // two full blocks and a block of one
  auto gens = blocked_gens(bits);
  std::vector<std::int64_t> x = random_in_ball(d, radius, rng);
  BlockedInstance in = make_blocked(bits, radius, x, *gens, rng);
  auto proof = prove_blocked(in, *gens, rng);
  REQUIRE(proof);
  REQUIRE(blocked_accepted(in.st, *gens, *proof));
  auto again = prove_blocked(in, *gens, rng);  // the same statement, other randomness
  REQUIRE(again);
  BlockedInstance other = make_blocked(bits, radius, random_in_ball(d, radius, rng), *gens, rng);
  auto op = prove_blocked(other, *gens, rng);
  REQUIRE(op);

  {
    INFO("S_k shifted along G, H or by a random multiple of G");
    for (std::size_t k = 0; k < 3; ++k) {
      for (const Point& delta : {Point::identity() - gens->G(), gens->G(), gens->G() * Scalar::random(rng),
                                 gens->H()}) {
        BlockedBallProof p = *proof;
        p.partial[k] += delta;
        CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
      }
    }
    // S_0 − G and S_1 + G: the derived slack commitment is unchanged.
    BlockedBallProof p = *proof;
    p.partial[0] -= gens->G();
    p.partial[1] += gens->G();
    CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
  }
  {
    INFO("blocks swapped, S_k reordered, both together");
    auto swap_blocks = [](BlockedBallProof& p, std::size_t a, std::size_t b) {
      const BlockPart pa = get_block(p, a);
      set_block(p, a, get_block(p, b));
      set_block(p, b, pa);
    };
    BlockedBallProof p = *proof;
    swap_blocks(p, 0, 1);
    CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
    p = *proof;
    std::swap(p.partial[0], p.partial[1]);
    CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
    swap_blocks(p, 0, 1);
    CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
    // The statement's blocks of commitments swapped along with the proof's blocks.
    BallStatement st = in.st;
    std::swap_ranges(st.commitments.begin(), st.commitments.begin() + 1024, st.commitments.begin() + 1024);
    CHECK_FALSE(verify_blocked(st, *gens, p).ok());
  }
  {
    INFO("a block dropped or duplicated");
    auto drop = [](BlockedBallProof& p, std::size_t k) {
      auto& b = p.batches[0];
      b.p.erase(b.p.begin() + static_cast<std::ptrdiff_t>(k));
      b.fa.erase(b.fa.begin() + static_cast<std::ptrdiff_t>(k));
      b.gb.erase(b.gb.begin() + static_cast<std::ptrdiff_t>(k));
    };
    BlockedBallProof p = *proof;
    drop(p, 1);
    p.partial.erase(p.partial.begin() + 1);
    CHECK(verify_blocked(in.st, *gens, p).status == VerifyStatus::kMalformedProof);
    p = *proof;
    p.batches.pop_back();
    CHECK(verify_blocked(in.st, *gens, p).status == VerifyStatus::kMalformedProof);
    p = *proof;
    drop(p, 0);
    CHECK(verify_blocked(in.st, *gens, p).status == VerifyStatus::kMalformedProof);
    p = *proof;
    {
      const BlockPart first = get_block(p, 0);
      p.batches[0].p.push_back(first.p);
      p.batches[0].fa.push_back(first.fa);
      p.batches[0].gb.push_back(first.gb);
      p.partial.push_back(p.partial[0]);
    }
    CHECK(verify_blocked(in.st, *gens, p).status == VerifyStatus::kMalformedProof);
    p = *proof;
    set_block(p, 1, get_block(p, 0));
    p.partial[1] = p.partial[0];
    CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
    // The encoding of a proof with a block removed: another length.
    const auto bytes = proof->encode();
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.end());
    cut.erase(cut.begin() + 7 + 96, cut.begin() + 7 + 96 + 96);
    CHECK_FALSE(BlockedBallProof::decode(cut));
  }
  {
    INFO("a block or a partial sum from another proof spliced in");
    for (const BlockedBallProof* src : {&*again, &*op}) {
      for (std::size_t k = 0; k < 3; ++k) {
        BlockedBallProof p = *proof;
        set_block(p, k, get_block(*src, k));
        CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
        p.partial[k] = src->partial[k];
        CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
        p = *proof;
        p.partial[k] = src->partial[k];
        CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
      }
      BlockedBallProof p = *proof;
      p.slack = src->slack;
      CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
      // A whole batch (its blocks' parts and its compressed proof) from the other proof.
      for (std::size_t g = 0; g < 2; ++g) {
        BlockedBallProof q = *proof;
        q.batches[g] = src->batches[g];
        CHECK_FALSE(verify_blocked(in.st, *gens, q).ok());
      }
      BlockedBallProof q = *proof;
      q.batches[0].inner = src->batches[0].inner;
      CHECK_FALSE(verify_blocked(in.st, *gens, q).ok());
    }
    // Everything but the slack proof from the other proof of the same statement.
    BlockedBallProof p = *again;
    p.slack = proof->slack;
    CHECK_FALSE(verify_blocked(in.st, *gens, p).ok());
  }
  {
    INFO("other statements: bits, d, radius, commitments, transcript label");
    BallStatement st = in.st;
    st.bits = 16;
    CHECK(verify_blocked(st, *gens, *proof).status == VerifyStatus::kParameterMismatch);
    BlockedBallProof p = *proof;
    p.bits = 16;
    CHECK(verify_blocked(st, *gens, p).status != VerifyStatus::kValid);
    st = in.st;
    st.commitments.pop_back();
    CHECK(verify_blocked(st, *gens, *proof).status == VerifyStatus::kParameterMismatch);
    p = *proof;
    p.d = d - 1;
    CHECK_FALSE(verify_blocked(st, *gens, p).ok());
    st = in.st;
    st.commitments.push_back(st.commitments[0]);
    CHECK(verify_blocked(st, *gens, *proof).status == VerifyStatus::kParameterMismatch);
    st = in.st;
    st.radius = 101;
    CHECK_FALSE(verify_blocked(st, *gens, *proof).ok());
    st.radius = 128;
    CHECK(verify_blocked(st, *gens, *proof).status == VerifyStatus::kBadStatement);
    st = in.st;
    std::swap(st.commitments[3], st.commitments[2000]);
    CHECK_FALSE(verify_blocked(st, *gens, *proof).ok());
    st = in.st;
    st.commitments[2048] += gens->G();
    CHECK_FALSE(verify_blocked(st, *gens, *proof).ok());
    Transcript t("gopa/ball test, another party");
    CHECK_FALSE(verify_ball_blocked(t, *gens, in.st, *proof).ok());
  }
}

TEST_CASE("ball blocked: strict decoding", "[sigma][ball][blocked][tamper]") {
  DeterministicRng rng(25);
  const unsigned bits = 8;
  const std::size_t d = 1025;
  auto gens = blocked_gens(bits);
  BlockedInstance in = make_blocked(bits, 100, random_in_ball(d, 100, rng), *gens, rng);
  auto proof = prove_blocked(in, *gens, rng);
  REQUIRE(proof);
  const auto bytes = proof->encode();
  REQUIRE(bytes.size() == BlockedBallProof::encoded_size(bits, d));
  for (std::size_t n = 0; n < bytes.size(); ++n) CHECK_FALSE(BlockedBallProof::decode(std::span(bytes).first(n)));
  auto longer = bytes;
  longer.push_back(0);
  CHECK_FALSE(BlockedBallProof::decode(longer));
  // Header: version, kind (the single ball proof's), bits, d (as another d of the same length, too).
  auto other = bytes;
  other[0] = 0x01;
  CHECK_FALSE(BlockedBallProof::decode(other));
  other = bytes;
  other[1] = static_cast<std::uint8_t>(ProofKind::kBall);
  CHECK_FALSE(BlockedBallProof::decode(other));
  other = bytes;
  other[2] = 12;
  CHECK_FALSE(BlockedBallProof::decode(other));
  for (std::uint32_t dd : {0U, 1024U, 1026U, 2048U, static_cast<std::uint32_t>(kMaxBlockedBallDim) + 1}) {
    other = bytes;
    for (unsigned i = 0; i < 4; ++i) other[3 + i] = static_cast<std::uint8_t>(dd >> (8 * i));
    CHECK_FALSE(BlockedBallProof::decode(other));
  }
  // A non-canonical point (S_0, S_1, P of each block) and a non-canonical scalar (f(c)): 0xff…
  // d = 1025 at b = 8: a batch of one full block and a batch of one block of one, each laid out
  // as a circuit body (P, f(c), g(c), compressed proof).
  const std::size_t body0 = CircuitBatchProof::body_size(*ball_block_circuit(bits, kBallBlockSize), 1);
  for (std::size_t at : {std::size_t{7}, std::size_t{39}, std::size_t{71}, 71 + body0, 71 + 32 + body0}) {
    other = bytes;
    std::fill(other.begin() + static_cast<std::ptrdiff_t>(at), other.begin() + static_cast<std::ptrdiff_t>(at + 32),
              0xff);
    CHECK_FALSE(BlockedBallProof::decode(other));
  }
  // A flipped bit in each part: decodes or not, never verifies.
  for (std::size_t at : {std::size_t{8}, std::size_t{40}, std::size_t{80}, 71 + body0 - 5, 71 + body0 + 40,
                         bytes.size() - 40, bytes.size() - 1}) {
    other = bytes;
    other[at] ^= 0x04;
    auto dec = BlockedBallProof::decode(other);
    if (dec) CHECK_FALSE(verify_blocked(in.st, *gens, *dec).ok());
  }
}

TEST_CASE("ball blocked: the thread count changes neither the proof nor the verdict", "[sigma][ball][blocked][tsan][heavy]") {
  auto gens = blocked_gens(8);
  DeterministicRng setup(26);
  BlockedInstance in = make_blocked(8, 100, random_in_ball(2049, 100, setup), *gens, setup);
  std::vector<std::vector<std::uint8_t>> encodings;
  for (unsigned threads : {1U, 2U, 3U}) {
    DeterministicRng rng(27);
    Transcript t(kLabel);
    auto proof = prove_ball_blocked(t, *gens, 8, 100, in.st.commitments, in.values, in.blinders, rng, threads);
    REQUIRE(proof);
    encodings.push_back(proof->encode());
    for (unsigned vt : {1U, 2U}) {
      // The caller's transcript ends in the same state after proving and after verifying.
      Transcript tv(kLabel);
      CHECK(verify_ball_blocked(tv, *gens, in.st, *proof, vt).ok());
      CHECK(tv.challenge_scalar("next") == t.clone().challenge_scalar("next"));
    }
  }
  CHECK(encodings[0] == encodings[1]);
  CHECK(encodings[0] == encodings[2]);
  // A bad block found on either thread count, named the same.
  auto bad = BlockedBallProof::decode(encodings[0]);
  REQUIRE(bad);
  bad->batches[1].fa[0] += Scalar::one();  // block 2, the batch of the last block
  const VerifyResult one = verify_blocked(in.st, *gens, *bad, 1);
  const VerifyResult two = verify_blocked(in.st, *gens, *bad, 2);
  CHECK_FALSE(one.ok());
  CHECK(one.status == two.status);
  CHECK(one.message == two.message);
  CHECK(one.message.rfind("block 2:", 0) == 0);
}

TEST_CASE("ball blocked: many proofs in one batched equation", "[sigma][ball][blocked][batch]") {
  auto gens = blocked_gens(8);
  const HonestBlocked& h = honest_blocked(*gens);
  DeterministicRng rng(43);
  BlockedInstance in = make_blocked(8, 100, random_in_ball(2049, 100, rng), *gens, rng);
  auto proof = prove_blocked(in, *gens, rng);
  REQUIRE(proof);
  BlockedInstance small = make_blocked(8, 90, random_in_ball(5, 90, rng), *gens, rng);
  auto small_proof = prove_blocked(small, *gens, rng);
  REQUIRE(small_proof);
  for (unsigned threads : {1U, 2U, 3U}) {
    INFO("threads " << threads);
    CHECK(batch_blocked({h.in.st, in.st, h.in.st}, *gens, {h.proof, *proof, h.proof}, threads).ok());
    CHECK(batch_blocked({}, *gens, {}, threads).ok());
    // Two proofs of the same shape, each checked against the other's statement.
    const VerifyResult swapped = batch_blocked({small.st, h.in.st}, *gens, {h.proof, *small_proof}, threads);
    CHECK(swapped.status == VerifyStatus::kBatchEquation);
    CHECK(batch_blocked({small.st, h.in.st}, *gens, {*small_proof, h.proof}, threads).ok());
    // Wrong weights cannot cancel two bad proofs: one evaluation moved up in one proof and down in
    // another proof of the same statement is still rejected, for every weight seed.
    BlockedBallProof up = *proof, down = *proof;
    up.batches[0].fa[1] += Scalar::one();
    down.batches[0].fa[1] -= Scalar::one();
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const VerifyResult r = batch_blocked({in.st, in.st}, *gens, {up, down}, threads, seed);
      CHECK(r.status == VerifyStatus::kBatchEquation);
    }
    // A bad slack proof in the last proof of a batch.
    BlockedBallProof bad_slack = *proof;
    bad_slack.slack.gb += Scalar::one();
    CHECK(batch_blocked({h.in.st, in.st}, *gens, {h.proof, bad_slack}, threads).status == VerifyStatus::kBatchEquation);
    // A structural defect names the proof and the part.
    BlockedBallProof short_proof = *proof;
    short_proof.batches.pop_back();
    const VerifyResult s1 = batch_blocked({h.in.st, in.st}, *gens, {h.proof, short_proof}, threads);
    CHECK(s1.status == VerifyStatus::kMalformedProof);
    CHECK(s1.message.rfind("proof 1:", 0) == 0);
  }
  // One transcript and one statement per proof.
  std::vector<Transcript> ts;
  ts.emplace_back(kLabel);
  std::vector<BallStatement> sts{in.st, in.st};
  std::vector<BlockedBallProof> prs{*proof, *proof};
  CHECK(batch_verify_ball_blocked(ts, *gens, sts, prs, rng).status == VerifyStatus::kBadStatement);
}

// Timing (not run by default): ./test_sigma "[.bench][ball-blocked]" or with one size,
// e.g. "[ball-blocked-100000]"; run under /usr/bin/time -v for the peak RSS.
namespace {
void bench_blocked(std::size_t d, std::initializer_list<unsigned> thread_counts) {
  const unsigned bits = 32;
  const std::uint64_t radius = std::uint64_t{1} << 30;
  auto gens = blocked_gens(bits);
  DeterministicRng rng(31);
  using clock = std::chrono::steady_clock;
  const auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  {
    // First use: the block circuit and the generators' tables are built and cached.
    const auto t0 = clock::now();
    BlockedInstance warm = make_blocked(bits, radius, random_in_ball(1024, radius, rng), *gens, rng);
    REQUIRE(prove_blocked(warm, *gens, rng));
    std::printf("first proof at d = 1024 (circuit, tables): %.2f s\n", secs(t0, clock::now()));
  }
  const auto tc = clock::now();
  BlockedInstance in = make_blocked(bits, radius, random_in_ball(d, radius, rng), *gens, rng);
  std::printf("d = %zu commitments: %.2f s\n", d, secs(tc, clock::now()));
  for (unsigned threads : thread_counts) {
    const std::clock_t c0 = std::clock();  // process CPU time, all threads
    const auto t0 = clock::now();
    auto proof = prove_blocked(in, *gens, rng, threads);
    const auto t1 = clock::now();
    const std::clock_t c1 = std::clock();
    REQUIRE(proof);
    const auto bytes = proof->encode();
    auto decoded = BlockedBallProof::decode(bytes);
    REQUIRE(decoded);
    const auto t2 = clock::now();
    CHECK(verify_blocked(in.st, *gens, *decoded, threads).ok());
    const auto t3 = clock::now();
    std::printf("blocked ball b=%u d=%zu threads=%u: prove %.2f s (CPU %.2f s), verify %.2f s (decode %.3f s), "
                "%zu bytes\n",
                bits, d, threads, secs(t0, t1), static_cast<double>(c1 - c0) / CLOCKS_PER_SEC, secs(t2, t3),
                secs(t1, t2), bytes.size());
  }
}
}  // namespace

TEST_CASE("ball blocked: timing d = 1024", "[.bench][ball-blocked][ball-blocked-1024]") {
  bench_blocked(1024, {1});
  // The single-circuit proof of the same size, for comparison.
  auto gens = gens_for(32, 1024);
  DeterministicRng rng(32);
  std::vector<Scalar> x;
  for (std::int64_t v : random_in_ball(1024, std::uint64_t{1} << 30, rng)) x.push_back(Scalar::from_i64(v));
  Instance in = make_instance(32, std::uint64_t{1} << 30, x, *gens, rng);
  for (int rep = 0; rep < 2; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    auto proof = prove(in, *gens, rng);
    const auto t1 = std::chrono::steady_clock::now();
    REQUIRE(proof);
    CHECK(verifies(in.st, *gens, *proof));
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("single ball b=32 d=1024: prove %.2f s, verify %.2f s, %zu bytes\n",
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
                proof->encode().size());
  }
}
TEST_CASE("ball blocked: timing d = 10000", "[.bench][ball-blocked][ball-blocked-10000]") {
  bench_blocked(10000, {1, 2});
}
TEST_CASE("ball blocked: timing d = 100000", "[.bench][ball-blocked-100000]") { bench_blocked(100000, {2}); }

// ---------------------------------------------------------------- hostile bytes and shared caches

namespace {
// Resident memory of this process, in bytes (Linux).
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;  // NOLINT(google-runtime-int): the format's type
  const int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}
}  // namespace

TEST_CASE("ball: decoding garbage with any header builds no circuit: 100 messages add at most 16 MiB",
          "[sigma][ball][decode]") {
  // A kind-0x04 message names (b, d) in its header and has exactly the length they imply; the
  // body is noise. Decoding reads it by shape only: no circuit is built for a d that no statement
  // asked for, so a verifier's memory does not grow with what it is sent (each circuit at b = 64,
  // d near 1024 is megabytes).
  DeterministicRng rng(61);
  // Header (kind, b = 64, d) and noise, at the length the header implies, for d = 925..1024.
  const auto garbage = [&rng](ProofKind kind, std::size_t (*encoded_size)(unsigned, std::size_t)) {
    std::vector<std::vector<std::uint8_t>> out;
    for (std::size_t d = 925; d <= 1024; ++d) {
      std::vector<std::uint8_t> m;
      wire::put_sized_header(m, kind, 64, d);
      m.resize(encoded_size(64, d));
      rng.fill(std::span<std::uint8_t>(m).subspan(5));
      out.push_back(std::move(m));
    }
    return out;
  };
  std::vector<std::vector<std::uint8_t>> messages = garbage(ProofKind::kBall, &BallProof::encoded_size);
  const std::size_t before = resident_bytes();
  std::size_t decoded = 0;
  for (const auto& m : messages) decoded += BallProof::decode(m).has_value() ? 1U : 0U;
  const std::size_t after = resident_bytes();
  INFO("decoded " << decoded << " of " << messages.size() << "; resident " << before << " -> " << after);
  CHECK(after <= before + (std::size_t{16} << 20));
  // Range proofs (kind 0x03) alike.
  messages = garbage(ProofKind::kRange, &RangeProof::encoded_size);
  const std::size_t before_range = resident_bytes();
  for (const auto& m : messages) decoded += RangeProof::decode(m).has_value() ? 1U : 0U;
  CHECK(resident_bytes() <= before_range + (std::size_t{16} << 20));
}

TEST_CASE("ball: the shape a decoder reads is the circuit's", "[sigma][ball][decode]") {
  // Decoding by shape (no circuit) and by circuit accept the same bytes, for every b and a spread of d.
  for (unsigned bits : {8U, 16U, 32U, 64U}) {
    for (std::size_t d : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{100}}) {
      INFO("b = " << bits << ", d = " << d);
      const auto c = ball_circuit(bits, d);
      CHECK(c->generators_needed() == ball_generators(bits, d));
      CHECK(CircuitProof::body_size(*c) + 5 == BallProof::encoded_size(bits, d));
      const auto rc = range_circuit(bits, d);
      CHECK(rc->generators_needed() == range_generators(bits, d));
      CHECK(CircuitProof::body_size(*rc) + 5 == RangeProof::encoded_size(bits, d));
    }
  }
}

TEST_CASE("ball blocked: circuits of other lengths asked for on another thread never free a verifier's circuit",
          "[sigma][ball][blocked][tsan]") {
  // The verifier of a blocked proof holds the circuit of its short last block while another
  // thread asks for many other short lengths (as verifying other parties' proofs of other d
  // does), which pushes the verifier's length out of the cache again and again.
  auto gens = blocked_gens(8);
  DeterministicRng setup(62);
  // d = 1030 at b = 8: a full block of 1024 and a last block of 6.
  BlockedInstance in = make_blocked(8, 100, random_in_ball(1030, 100, setup), *gens, setup);
  auto proof = prove_blocked(in, *gens, setup);
  REQUIRE(proof);
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> wrong{0};
  std::thread churn([&] {
    for (std::size_t i = 0; !stop.load(); ++i) {
      const std::size_t n = 7 + (i % 64);  // 64 lengths, never 6: every entry is pushed out in turn
      const auto c = ball_block_circuit(8, n);
      if (c->bindings.size() != n + 1) ++wrong;
    }
  });
  std::size_t verified = 0;
  for (int i = 0; i < 4; ++i) verified += verify_blocked(in.st, *gens, *proof, 2).ok() ? 1U : 0U;
  stop = true;
  churn.join();
  CHECK(verified == 4);
  CHECK(wrong.load() == 0);
}
