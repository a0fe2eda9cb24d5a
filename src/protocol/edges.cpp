// The communication graph and pairwise noise. Byte layouts: docs/protocol.md.
#include "gopa/protocol/edges.hpp"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "gopa/bulletin/merkle.hpp"
#include "gopa/bytes.hpp"
#include "gopa/check.hpp"

namespace gopa::protocol {

namespace {

std::array<std::uint8_t, 32> sha256_parts(std::initializer_list<std::span<const std::uint8_t>> parts) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  for (auto p : parts) crypto_hash_sha256_update(&st, p.data(), p.size());
  std::array<std::uint8_t, 32> out{};
  crypto_hash_sha256_final(&st, out.data());
  return out;
}

std::span<const std::uint8_t> str(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// Plaintext of a sealed seed: session id ‖ LE32(from) ‖ LE32(to) ‖ seed.
std::array<std::uint8_t, 72> seed_plaintext(const Seed32& seed, const Bytes32& sid,
                                            std::uint32_t from, std::uint32_t to) {
  std::array<std::uint8_t, 72> pt{};
  std::memcpy(pt.data(), sid.data(), 32);
  std::ranges::copy(le_bytes(from), pt.data() + 32);
  std::ranges::copy(le_bytes(to), pt.data() + 36);
  std::memcpy(pt.data() + 40, seed.data(), 32);
  return pt;
}

}  // namespace

Graph derive_graph(std::uint32_t n, std::uint32_t k, std::span<const std::uint8_t, 32> randomness) {
  GOPA_CHECK(n >= 2 && k >= 1 && k < n, "derive_graph: need 1 ≤ k < n");
  const auto key = sha256_parts({str("gopa/graph/v1"), randomness, le_bytes(n), le_bytes(k)});
  DeterministicRng rng(key);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(static_cast<std::size_t>(n) * k);
  std::vector<std::uint32_t> picked;
  for (std::uint32_t u = 0; u < n; ++u) {
    picked.clear();
    while (picked.size() < k) {
      // Uniform over the n − 1 others: draw in [0, n−1) and skip u.
      auto v = static_cast<std::uint32_t>(rng.uniform(n - 1));
      if (v >= u) ++v;
      if (std::find(picked.begin(), picked.end(), v) != picked.end()) continue;
      picked.push_back(v);
      edges.emplace_back(std::min(u, v), std::max(u, v));
    }
  }
  return Graph::from_edges(n, edges);
}

BoxKey BoxKey::generate() {
  crypto_init();
  BoxKey k;
  crypto_box_keypair(k.pk_.data(), k.sk_.data());
  return k;
}

BoxKey BoxKey::from_seed(std::span<const std::uint8_t, 32> seed) {
  crypto_init();
  BoxKey k;
  crypto_box_seed_keypair(k.pk_.data(), k.sk_.data(), seed.data());
  return k;
}

BoxKey::~BoxKey() { sodium_memzero(sk_.data(), sk_.size()); }
BoxKey::BoxKey(BoxKey&& o) noexcept : pk_(o.pk_), sk_(o.sk_) { sodium_memzero(o.sk_.data(), o.sk_.size()); }
BoxKey& BoxKey::operator=(BoxKey&& o) noexcept {
  if (this != &o) {
    pk_ = o.pk_;
    sk_ = o.sk_;
    sodium_memzero(o.sk_.data(), o.sk_.size());
  }
  return *this;
}

std::vector<std::uint8_t> seal_edge_seed(const Seed32& seed, const Bytes32& session_id,
                                         std::uint32_t from, std::uint32_t to, const BoxKey& sender,
                                         const std::array<std::uint8_t, 32>& recipient_pk, Rng& rng) {
  auto pt = seed_plaintext(seed, session_id, from, to);
  std::vector<std::uint8_t> out(kSealedSeedSize);
  rng.fill(std::span<std::uint8_t>(out.data(), crypto_box_NONCEBYTES));
  const int rc = crypto_box_easy(out.data() + crypto_box_NONCEBYTES, pt.data(), pt.size(), out.data(),
                                 recipient_pk.data(), sender.secret_key());
  sodium_memzero(pt.data(), pt.size());
  GOPA_CHECK(rc == 0, "crypto_box_easy failed (invalid recipient key)");
  return out;
}

std::optional<Seed32> open_edge_seed(std::span<const std::uint8_t> sealed, const Bytes32& session_id,
                                     std::uint32_t from, std::uint32_t to, const BoxKey& recipient,
                                     const std::array<std::uint8_t, 32>& sender_pk) {
  if (sealed.size() != kSealedSeedSize) return std::nullopt;
  std::array<std::uint8_t, 72> pt{};
  if (crypto_box_open_easy(pt.data(), sealed.data() + crypto_box_NONCEBYTES,
                           sealed.size() - crypto_box_NONCEBYTES, sealed.data(), sender_pk.data(),
                           recipient.secret_key()) != 0) {
    return std::nullopt;
  }
  Seed32 seed{};
  std::memcpy(seed.data(), pt.data() + 40, 32);
  const auto expect = seed_plaintext(seed, session_id, from, to);
  const bool bound = sodium_memcmp(expect.data(), pt.data(), 40) == 0;
  sodium_memzero(pt.data(), pt.size());
  if (!bound) {
    sodium_memzero(seed.data(), seed.size());
    return std::nullopt;  // a box for another session or edge
  }
  return seed;
}

Bytes32 edge_round_key(const Seed32& seed, const Bytes32& base, std::uint32_t lo, std::uint32_t hi, std::uint32_t round) {
  return sha256_parts({str("gopa/edge-round-key/v1"), base, le_bytes(lo), le_bytes(hi), le_bytes(round), seed});
}

namespace {
bulletin::MerkleTree round_key_tree(const Seed32& seed, const Bytes32& base, std::uint32_t lo, std::uint32_t hi,
                                    std::uint32_t rounds) {
  GOPA_CHECK(rounds >= 1 && rounds <= SessionParams::kMaxChainRounds, "edge_key_root: 1 ≤ rounds ≤ kMaxChainRounds");
  bulletin::MerkleTree t;
  for (std::uint32_t r = 0; r < rounds; ++r) {
    Bytes32 k = edge_round_key(seed, base, lo, hi, r);
    t.append(bulletin::leaf_hash(k));
    sodium_memzero(k.data(), k.size());
  }
  return t;
}
}  // namespace

Bytes32 edge_key_root(const Seed32& seed, const Bytes32& base, std::uint32_t lo, std::uint32_t hi, std::uint32_t rounds) {
  return round_key_tree(seed, base, lo, hi, rounds).root();
}

std::vector<Bytes32> edge_key_path(const Seed32& seed, const Bytes32& base, std::uint32_t lo, std::uint32_t hi,
                                 std::uint32_t rounds, std::uint32_t round) {
  GOPA_CHECK(round < rounds, "edge_key_path: round < rounds");
  return round_key_tree(seed, base, lo, hi, rounds).inclusion_proof(round, rounds);
}

bool edge_key_opens(const Bytes32& root, std::uint32_t rounds, std::uint32_t round, const Bytes32& key,
                    std::span<const Bytes32> path) {
  if (rounds < 1 || rounds > SessionParams::kMaxChainRounds || round >= rounds || path.size() > kMaxKeyPath) return false;
  return bulletin::verify_inclusion(bulletin::leaf_hash(key), round, rounds, path, root).ok();
}

EdgeNoise::~EdgeNoise() {
  if (!delta.empty()) sodium_memzero(delta.data(), delta.size() * sizeof(delta[0]));
}

EdgeNoise derive_edge_noise(const Seed32& seed, const Bytes32& session_id, std::uint32_t lo,
                            std::uint32_t hi, const SessionParams& params) {
  GOPA_CHECK(lo < hi, "derive_edge_noise: edges are oriented lo < hi");
  auto key = sha256_parts({str("gopa/edge-noise/v2"), seed, session_id, le_bytes(lo), le_bytes(hi)});
  DeterministicRng stream(key);
  sodium_memzero(key.data(), key.size());
  EdgeNoise z;
  z.delta.resize(params.dim);
  const double limit = std::ldexp(1.0, params.noise_bits);
  for (std::uint32_t j = 0; j < params.dim; ++j) {
    // Box–Muller on two 53-bit uniforms in (0, 1]. Δ only has to cancel; its distribution
    // matters for privacy and is that of an honest end, which runs this code.
    const double u1 = (static_cast<double>(stream.next_u64() >> 11) + 1.0) * 0x1p-53;
    const double u2 = static_cast<double>(stream.next_u64() >> 11) * 0x1p-53;
    const double g = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    double fixed = std::nearbyint(std::ldexp(params.sigma_delta * g, params.frac_bits));
    fixed = std::clamp(fixed, -(limit - 1), limit - 1);
    z.delta[j] = static_cast<std::int64_t>(fixed);
  }
  z.blind = SecretScalar::random(stream);
  return z;
}

namespace {
std::vector<SecretScalar> oriented(const EdgeNoise& z, std::uint32_t u, std::uint32_t w) {
  std::vector<SecretScalar> x;
  x.reserve(z.delta.size());
  // Δ = (Δ + 2^63) − 2^63 with Δ + 2^63 as an unsigned word: no branch on the sign.
  const Scalar offset = Scalar::from_u64(std::uint64_t{1} << 63);
  for (const std::int64_t d : z.delta) {
    SecretScalar s = SecretScalar::from_u64(static_cast<std::uint64_t>(d) ^ (std::uint64_t{1} << 63)) - offset;
    x.push_back(u > w ? -s : std::move(s));  // the orientation is public
  }
  return x;
}
}  // namespace

Point edge_commitment(const EdgeNoise& z, std::uint32_t u, std::uint32_t w, const GeneratorSet& gens) {
  const std::vector<SecretScalar> x = oriented(z, u, w);
  return commit_vector(x, u < w ? z.blind.clone() : -z.blind, gens);
}

Point edge_commitment_public(const EdgeNoise& z, std::uint32_t u, std::uint32_t w, const GeneratorSet& gens) {
  std::vector<Scalar> x;
  x.reserve(z.delta.size());
  for (const SecretScalar& s : oriented(z, u, w)) x.push_back(s.declassify());
  const Scalar r = u < w ? z.blind.declassify() : -z.blind.declassify();
  return commit_vector_public(x, r, gens);
}

}  // namespace gopa::protocol
