#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <vector>

#include "gopa/pedersen.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/edges.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/session.hpp"

using namespace gopa::protocol;

namespace {
SessionParams params(std::uint32_t n = 10, std::uint32_t d = 3) {
  SessionParams p = SessionParams::defaults(n, d);
  p.neighbors = 3;
  p.sigma_eta = 0.5;
  p.sigma_delta = 20.0;
  return p;
}
}  // namespace

TEST_CASE("Session parameters: encoding is canonical and the id binds every field", "[protocol][session]") {
  const SessionParams p = params();
  REQUIRE_FALSE(p.validate().has_value());
  const auto enc = p.encode();
  auto back = SessionParams::decode(enc);
  REQUIRE(back.has_value());
  CHECK(*back == p);
  // Every single-byte change is either rejected or gives a different session id.
  std::set<gopa::Bytes32> ids{p.session_id()};
  for (std::size_t i = 0; i < enc.size(); ++i) {
    auto m = enc;
    m[i] ^= 0x01;
    if (auto q = SessionParams::decode(m)) {
      CHECK(ids.insert(q->session_id()).second);
    }
  }
  // Truncations and extensions are rejected with a message.
  for (std::size_t len = 0; len < enc.size(); ++len) {
    std::string why;
    CHECK_FALSE(SessionParams::decode(std::span(enc).first(len), &why).has_value());
    CHECK_FALSE(why.empty());
  }
  auto longer = enc;
  longer.push_back(0);
  CHECK_FALSE(SessionParams::decode(longer).has_value());
}

TEST_CASE("Session parameters: validation names the bad parameter", "[protocol][session]") {
  auto expect_bad = [](SessionParams p, const std::string& name) {
    auto why = p.validate();
    REQUIRE(why.has_value());
    CHECK(why->find(name) != std::string::npos);
  };
  SessionParams p = params();
  auto q = p; q.parties = 1; expect_bad(q, "parties");
  q = p; q.neighbors = 10; expect_bad(q, "neighbors");
  q = p; q.neighbors = 0; expect_bad(q, "neighbors");
  q = p; q.dim = 0; expect_bad(q, "dim");
  q = p; q.input_bits = 12; expect_bad(q, "input_bits");
  q = p; q.sigma_eta = -1; expect_bad(q, "sigma_eta");
  q = p; q.sigma_delta = std::numeric_limits<double>::infinity(); expect_bad(q, "sigma_delta");
  q = p; q.sigma_delta = -0.0; expect_bad(q, "sigma_delta");
  q = p; q.noise_bits = 20; q.frac_bits = 16; expect_bad(q, "noise_bits");  // 2^4 < 40σ
  q = p; q.parties = 1u << 24; q.neighbors = 20; q.input_bits = 64; q.noise_bits = 62;
  q.frac_bits = 16;
  CHECK(q.sums_fit(2 * q.neighbors));  // 2^24 · 41 · 2^62 ≈ 2^91.4 < ℓ/2: fits comfortably
  expect_bad(q, "parties");             // but a session has at most kMaxParties parties
  q.parties = SessionParams::kMaxParties;
  CHECK_FALSE(q.validate().has_value());
  // Hidden noise: a committee, Box–Muller, Paillier moduli; private noise has none of them.
  q = p; q.committee = 3; expect_bad(q, "committee");
  q = p; q.paillier_bits = 2048; expect_bad(q, "committee");
  SessionParams h = p;
  h.noise = NoiseMode::hidden;
  h.committee = 3;
  h.paillier_bits = 2048;
  CHECK_FALSE(h.validate().has_value());
  q = h; q.committee = 1; expect_bad(q, "committee");
  q = h; q.committee = 11; expect_bad(q, "committee");  // more than n = 10
  q = h; q.sampler = SamplerKind::clt; expect_bad(q, "sampler");
  q = h; q.paillier_bits = 512; expect_bad(q, "paillier_bits");
  q = h; q.frac_bits = 30; q.sampler_precision = 25; expect_bad(q, "sampler_precision");
}

TEST_CASE("Session parameters with hidden noise round-trip and get their own id", "[protocol][session]") {
  SessionParams p = params();
  SessionParams h = p;
  h.noise = NoiseMode::hidden;
  h.committee = 5;
  h.paillier_bits = 2048;
  const auto enc = h.encode();
  REQUIRE(enc.size() == SessionParams::kEncodedBytes);
  // Noise mode, committee and paillier_bits follow the 8-byte input_max (since session version 3).
  CHECK(enc[42] == 2);
  CHECK(enc[43] == 5);
  CHECK(enc[44] == 0x08);
  CHECK(enc[45] == 0x00);
  auto back = SessionParams::decode(enc);
  REQUIRE(back.has_value());
  CHECK(*back == h);
  CHECK(h.session_id() != p.session_id());
  auto bad = enc;
  bad[42] = 3;
  std::string why;
  CHECK_FALSE(SessionParams::decode(bad, &why).has_value());
  CHECK(why.find("noise mode") != std::string::npos);
}

TEST_CASE("The input domain's M is part of the session: encoded, validated, refused outside [1, 2^b)",
          "[protocol][session]") {
  SessionParams p = params();
  p.input_max = 12345;
  const auto enc = p.encode();
  // Version 5; M as a big-endian u64 right after input_bits (bytes 11..18).
  CHECK(enc[0] == 5);
  CHECK(enc[17] == 0x30);
  CHECK(enc[18] == 0x39);
  auto back = SessionParams::decode(enc);
  REQUIRE(back.has_value());
  CHECK(back->input_max == 12345);
  SessionParams q = p;
  q.input_max = 12346;
  CHECK(q.session_id() != p.session_id());  // M is bound into the session id
  std::string why;
  for (std::uint64_t bad_m : {std::uint64_t{0}, std::uint64_t{1} << p.input_bits}) {
    q.input_max = bad_m;
    CHECK(q.validate().has_value());
    auto bad = enc;
    for (std::size_t i = 0; i < 8; ++i) bad[11 + i] = static_cast<std::uint8_t>(bad_m >> (56 - 8 * i));
    CHECK_FALSE(SessionParams::decode(bad, &why).has_value());
    CHECK(why.find("input_max") != std::string::npos);
  }
  // Real inputs: M = 1 at f = 16 is 65536; x ∈ [0, 1] maps into [0, 65536], anything else is refused.
  SessionParams r = params();
  r.frac_bits = 16;
  r.input_max = *r.fixed_input_max(1.0);
  CHECK(r.input_max == 65536);
  CHECK(r.fixed_input(0.0) == std::optional<std::uint64_t>{0});
  CHECK(r.fixed_input(1.0) == std::optional<std::uint64_t>{65536});
  CHECK(r.fixed_input(0.5) == std::optional<std::uint64_t>{32768});
  CHECK(r.fixed_input(1.0 + 0x1p-20) == std::optional<std::uint64_t>{65536});  // below one grid unit: clamped
  CHECK_FALSE(r.fixed_input(1.0 + 0x1p-16).has_value());
  CHECK_FALSE(r.fixed_input(60000.0).has_value());
  CHECK_FALSE(r.fixed_input(-0x1p-30).has_value());
  CHECK_FALSE(r.fixed_input(std::nan("")).has_value());
  // M not on the grid: rounded down (6553/65536 < 0.1); the input 0.1 itself is accepted and
  // clamped to M, 0.1 + 2^-16 is refused.
  r.input_max = *r.fixed_input_max(0.1);
  CHECK(r.input_max == 6553);
  CHECK(r.fixed_input(r.input_max_real()) == std::optional<std::uint64_t>{6553});
  CHECK(r.fixed_input(0.1) == std::optional<std::uint64_t>{6553});
  CHECK_FALSE(r.fixed_input(0.1 + 0x1p-16).has_value());
  CHECK_FALSE(r.fixed_input_max(0.0).has_value());
  CHECK_FALSE(r.fixed_input_max(70000.0).has_value());
}

TEST_CASE("Signed fixed-point values round-trip through Z_ℓ", "[protocol][session]") {
  for (std::int64_t v : std::initializer_list<std::int64_t>{0, 1, -1, 123456789, -987654321, INT64_MAX, INT64_MIN + 1}) {
    auto back = signed_from_scalar(scalar_from_signed(v));
    REQUIRE(back.has_value());
    CHECK(*back == static_cast<int128_t>(v));
  }
  // A sum of many negatives stays decodable.
  gopa::Scalar acc;
  for (int i = 0; i < 1000; ++i) acc += scalar_from_signed(-(1LL << 60));
  CHECK(*signed_from_scalar(acc) == -static_cast<int128_t>(1000) * (static_cast<int128_t>(1) << 60));
  // Values around ℓ/2 are not small integers.
  CHECK_FALSE(signed_from_scalar(gopa::Scalar::from_u64(2).invert().value()).has_value());
}

TEST_CASE("The graph derived from public randomness is a k-out graph, reproducible", "[protocol][graph]") {
  std::array<std::uint8_t, 32> r{};
  r[0] = 7;
  const Graph g = derive_graph(50, 4, r);
  const Graph g2 = derive_graph(50, 4, r);
  CHECK(g.adj == g2.adj);
  CHECK(g.n == 50);
  for (std::uint32_t u = 0; u < g.n; ++u) {
    CHECK(g.degree(u) >= 4);
    for (auto v : g.neighbours(u)) CHECK(v != u);
  }
  CHECK(g.edges() <= 50u * 4u);
  CHECK(g.edges() >= 50u * 4u / 2u);
  r[0] = 8;
  CHECK(derive_graph(50, 4, r).adj != g.adj);
}

TEST_CASE("Edge seeds: sealed to the recipient, bound to the session and edge", "[protocol][edges]") {
  gopa::DeterministicRng rng(3);
  const BoxKey a = BoxKey::generate(), b = BoxKey::generate(), c = BoxKey::generate();
  Seed32 seed{};
  rng.fill(seed);
  gopa::Bytes32 sid{};
  sid[0] = 1;
  const auto box = seal_edge_seed(seed, sid, 2, 5, a, b.public_key(), rng);
  REQUIRE(box.size() == kSealedSeedSize);
  auto opened = open_edge_seed(box, sid, 2, 5, b, a.public_key());
  REQUIRE(opened.has_value());
  CHECK(*opened == seed);
  CHECK_FALSE(open_edge_seed(box, sid, 2, 5, c, a.public_key()).has_value());  // wrong recipient
  CHECK_FALSE(open_edge_seed(box, sid, 2, 6, b, a.public_key()).has_value());  // other edge
  CHECK_FALSE(open_edge_seed(box, sid, 5, 2, b, a.public_key()).has_value());  // reversed
  gopa::Bytes32 other = sid;
  other[31] = 9;
  CHECK_FALSE(open_edge_seed(box, other, 2, 5, b, a.public_key()).has_value());  // other session
  for (std::size_t i = 0; i < box.size(); ++i) {
    auto m = box;
    m[i] ^= 0x80;
    CHECK_FALSE(open_edge_seed(m, sid, 2, 5, b, a.public_key()).has_value());
  }
  CHECK_FALSE(open_edge_seed(std::span(box).first(box.size() - 1), sid, 2, 5, b, a.public_key()).has_value());
}

TEST_CASE("Pairwise noise cancels on the commitments and looks Gaussian", "[protocol][edges]") {
  SessionParams p = params(10, 2000);
  const gopa::Bytes32 sid = p.session_id();
  Seed32 seed{};
  seed[3] = 42;
  EdgeNoise z = derive_edge_noise(seed, sid, 1, 4, p);
  EdgeNoise z2 = derive_edge_noise(seed, sid, 1, 4, p);
  REQUIRE(z.delta.size() == 2000);
  CHECK(z.delta == z2.delta);
  // Empirical standard deviation of Δ / 2^f ≈ σ_Δ.
  double sum = 0, sq = 0;
  for (auto v : z.delta) {
    const double x = p.from_fixed(v);
    sum += x;
    sq += x * x;
  }
  const double mean = sum / 2000, sd = std::sqrt(sq / 2000 - mean * mean);
  CHECK(std::fabs(mean) < 4 * p.sigma_delta / std::sqrt(2000.0));
  CHECK(sd == Approx(p.sigma_delta).epsilon(0.08));
  // D_uv + D_vu = identity with Δ_vu = −Δ_uv, r_vu = −r_uv; each is Σ_j Δ[j]·G_j + r·H.
  auto gens = gopa::GeneratorSet::get("gopa", 2000);
  const gopa::Point duv = gopa::protocol::edge_commitment(z, 1, 4, *gens);
  const gopa::Point dvu = gopa::protocol::edge_commitment(z, 4, 1, *gens);
  CHECK((duv + dvu).is_identity());
  CHECK(gopa::protocol::edge_commitment_public(z, 1, 4, *gens) == duv);
  CHECK(gopa::protocol::edge_commitment_public(z, 4, 1, *gens) == dvu);
  std::vector<gopa::Scalar> xs;
  for (auto v : z.delta) xs.push_back(scalar_from_signed(v));
  CHECK(gopa::commit_vector_public(xs, z.blind.declassify(), *gens) == duv);
  xs[1999] += gopa::Scalar::one();  // one coordinate off: another point
  CHECK_FALSE(gopa::commit_vector_public(xs, z.blind.declassify(), *gens) == duv);
  // Another edge or session gives other noise.
  CHECK(derive_edge_noise(seed, sid, 1, 5, p).delta != z.delta);
  gopa::Bytes32 other = sid;
  other[0] ^= 1;
  CHECK(derive_edge_noise(seed, other, 1, 4, p).delta != z.delta);
}

TEST_CASE("Sessions fit the board's entry limit: roster size and dimension are bounded", "[protocol][session]") {
  gopa::protocol::SessionParams p = gopa::protocol::SessionParams::defaults(gopa::protocol::SessionParams::kMaxParties, 1);
  p.neighbors = 2;
  p.sigma_eta = 1;
  p.sigma_delta = 10;
  REQUIRE_FALSE(p.validate().has_value());
  gopa::protocol::SetupMessage setup{p, {}};
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    gopa::protocol::RosterEntry e;
    e.sign_key[0] = static_cast<std::uint8_t>(u);
    e.sign_key[1] = static_cast<std::uint8_t>(u >> 8);
    e.sign_key[2] = static_cast<std::uint8_t>(u >> 16);
    e.box_key = e.sign_key;
    e.box_key[31] = 1;
    setup.roster.push_back(e);
  }
  const auto entries = setup.encode_entries();
  CHECK(entries.size() == (p.parties + gopa::protocol::kRosterChunk - 1) / gopa::protocol::kRosterChunk);
  for (const auto& e : entries) CHECK(e.size() <= gopa::bulletin::kMaxInlinePayload);
  std::vector<std::uint32_t> everyone(p.parties);
  for (std::uint32_t u = 0; u < p.parties; ++u) everyone[u] = u;
  CHECK(gopa::protocol::ResultMessage{everyone, std::vector<gopa::Scalar>(p.dim)}.encode(p.parties).size() <=
        gopa::bulletin::kMaxInlinePayload);
  p.parties += 1;
  auto why = p.validate();
  REQUIRE(why.has_value());
  CHECK(why->find("parties") == 0);
  // Any d up to kMaxDim: a party's messages are chunked when they pass one entry.
  p.parties = 100;
  p.dim = SessionParams::kMaxDim;
  CHECK_FALSE(p.validate().has_value());
  p.dim += 1;
  why = p.validate();
  REQUIRE(why.has_value());
  CHECK(why->find("dim") == 0);
}

TEST_CASE("Version 4–5 parameters: the input domain's kind, the minimum round time and the randomness restarts",
          "[protocol][session]") {
  SessionParams p = params();
  p.round_timeout_ms = 0x01020304;
  p.min_round_ms = 0x00a0b0c0;
  p.randomness_restarts = 5;
  const auto enc = p.encode();
  REQUIRE(enc.size() == 72);
  CHECK(enc[0] == 5);
  // Offsets 50 (domain), 51..54 (minimum round time, BE), 55 (restarts), then the 16-byte nonce.
  CHECK(enc[49] == 0x04);
  CHECK(enc[50] == 1);
  CHECK(enc[51] == 0x00);
  CHECK(enc[52] == 0xa0);
  CHECK(enc[54] == 0xc0);
  CHECK(enc[55] == 5);
  auto back = SessionParams::decode(enc);
  REQUIRE(back.has_value());
  CHECK(*back == p);
  SessionParams q = p;
  q.randomness_restarts = 4;
  CHECK(q.session_id() != p.session_id());  // the restarts are bound into the session id
  std::string why;
  auto bad = enc;
  bad[50] = 3;
  CHECK_FALSE(SessionParams::decode(bad, &why).has_value());
  CHECK(why.find("input domain") != std::string::npos);
  bad = enc;
  bad[55] = SessionParams::kMaxRandomnessRestarts + 1;
  CHECK_FALSE(SessionParams::decode(bad, &why).has_value());
  CHECK(why.find("randomness_restarts") != std::string::npos);
  q = p;
  q.min_round_ms = p.round_timeout_ms + 1;
  REQUIRE(q.validate().has_value());
  CHECK(q.validate()->find("min_round_ms") != std::string::npos);
  q.min_round_ms = 0;
  CHECK(q.validate().has_value());
  // Version 3 (66 bytes) is refused.
  std::vector<std::uint8_t> v3(enc.begin(), enc.begin() + 50);
  v3.insert(v3.end(), enc.begin() + 56, enc.end());
  v3[0] = 3;
  CHECK_FALSE(SessionParams::decode(v3, &why).has_value());
}

TEST_CASE("The L2 ball domain: validated limits, encoding, fixed-point inputs", "[protocol][session]") {
  SessionParams p = params(10, 4);
  p.input_domain = InputDomain::l2_ball;
  p.input_bits = 32;
  p.frac_bits = 16;
  p.input_max = std::uint64_t{1} << 16;  // C = 1
  REQUIRE_FALSE(p.validate().has_value());
  const auto enc = p.encode();
  CHECK(enc[50] == 2);
  auto back = SessionParams::decode(enc);
  REQUIRE(back.has_value());
  CHECK(*back == p);
  SessionParams box = p;
  box.input_domain = InputDomain::box;
  CHECK(box.session_id() != p.session_id());  // the domain is bound into the session id
  // 2C must fit the proof of x_j + C: C < 2^(b − 1).
  SessionParams q = p;
  q.input_max = (std::uint64_t{1} << 31) - 1;
  CHECK_FALSE(q.validate().has_value());
  q.input_max = std::uint64_t{1} << 31;
  REQUIRE(q.validate().has_value());
  CHECK(q.validate()->find("input_max") == 0);
  box.input_max = std::uint64_t{1} << 31;  // the box allows M up to 2^b − 1
  CHECK_FALSE(box.validate().has_value());
  // Beyond 1,024 coordinates the ball is proven in blocks (docs/proofs.md §5.3): any d the session
  // allows.
  q = p;
  q.dim = 1025;
  q.neighbors = 1;
  CHECK_FALSE(q.validate().has_value());
  q.dim = SessionParams::kMaxDim + 1;
  REQUIRE(q.validate().has_value());
  CHECK(q.validate()->find("dim") == 0);
  CHECK(p.fixed_input_max(32767.0).has_value());
  CHECK_FALSE(p.fixed_input_max(32768.0).has_value());  // 2^31 in fixed point
  CHECK(box.fixed_input_max(32768.0).has_value());
  // Sensitivities (replace-one): 2C for the ball, M·√d for the box.
  CHECK(p.input_sensitivity() == 2.0);
  CHECK(p.coordinate_sensitivity() == 2.0);
  box.input_max = std::uint64_t{1} << 16;
  CHECK(box.input_sensitivity() == 2.0);  // 1 · √4
  CHECK(box.coordinate_sensitivity() == 1.0);

  // Exact integer membership.
  const std::int64_t c = std::int64_t{1} << 16;
  CHECK(p.in_ball(std::vector<std::int64_t>{c, 0, 0, 0}));
  CHECK(p.in_ball(std::vector<std::int64_t>{0, -c, 0, 0}));
  CHECK_FALSE(p.in_ball(std::vector<std::int64_t>{c + 1, 0, 0, 0}));
  CHECK_FALSE(p.in_ball(std::vector<std::int64_t>{INT64_MIN, 0, 0, 0}));
  CHECK(p.in_ball(std::vector<std::int64_t>{39321, -52428, 0, 0}));  // 0.6, −0.8: norm² just below C²
  CHECK_FALSE(p.in_ball(std::vector<std::int64_t>{39322, -52429, 0, 0}));
  // Real vectors: rounded, signed; a vector on the sphere whose rounding leaves the ball is
  // brought back inside; beyond one grid unit it is refused.
  auto v = p.fixed_ball_input(std::vector<double>{-0.5, 0.25, 0.0, 0.125});
  REQUIRE(v.has_value());
  CHECK(*v == std::vector<std::int64_t>{-32768, 16384, 0, 8192});
  const double s = 1.0 / std::sqrt(4.0);
  v = p.fixed_ball_input(std::vector<double>{s, -s, s, -s});
  REQUIRE(v.has_value());
  CHECK(p.in_ball(*v));
  const double t = 0.6 + 0x1p-18, w = std::sqrt(1.0 - t * t);  // norm 1, rounding goes outside
  v = p.fixed_ball_input(std::vector<double>{t, w, 0.0, 0.0});
  REQUIRE(v.has_value());
  CHECK(p.in_ball(*v));
  CHECK(std::abs((*v)[0] - 39322) <= 1);
  CHECK_FALSE(p.fixed_ball_input(std::vector<double>{1.0 + 0x1p-15, 0.0, 0.0, 0.0}).has_value());
  CHECK_FALSE(p.fixed_ball_input(std::vector<double>{0.8, 0.8, 0.0, 0.0}).has_value());
  CHECK_FALSE(p.fixed_ball_input(std::vector<double>{0.1, 0.1, 0.1}).has_value());  // wrong length
  CHECK_FALSE(p.fixed_ball_input(std::vector<double>{std::nan(""), 0.0, 0.0, 0.0}).has_value());
}
