#include "gopa/circuits/seeds.hpp"

#include <sodium.h>

#include <memory>
#include <string_view>

#include "gopa/check.hpp"

namespace gopa::circuits {
namespace {

// Held by the caller while it uses the set: GeneratorSet::get replaces its entry when another
// caller asks for more generators, and a reference to the old set would dangle.
std::shared_ptr<const GeneratorSet> seed_gens() { return GeneratorSet::get("gopa", 0); }

void put_u64(crypto_hash_sha256_state& st, std::uint64_t v) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
  crypto_hash_sha256_update(&st, b, 8);
}

void put_label(crypto_hash_sha256_state& st, std::string_view s) {
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(s.data()), s.size());
}

}  // namespace

PrivateSeed PrivateSeed::draw(unsigned m, Rng& rng) {
  GOPA_CHECK(m >= 1 && m <= 63, "seed bits out of range");
  const std::uint64_t x = rng.next_u64() & ((std::uint64_t{1} << m) - 1U);
  return PrivateSeed(x, SecretScalar::random(rng), m);
}

PrivateSeed::PrivateSeed(std::uint64_t x, SecretScalar r, unsigned m)
    : x_(x), r_(std::move(r)), m_(m) {
  GOPA_CHECK(m >= 1 && m <= 63, "seed bits out of range");
  gopa_secret(&x_, sizeof x_);  // secret from here on (constant-time validation builds)
  // Only the verdict of the range check is public.
  auto in_range = static_cast<std::uint8_t>((x_ >> m) == 0);
  gopa_declassify(&in_range, sizeof in_range);
  GOPA_CHECK(in_range == 1, "seed out of range");
}

PrivateSeed::~PrivateSeed() { sodium_memzero(&x_, sizeof x_); }

Point PrivateSeed::commitment() const {
  return commit(SecretScalar::from_u64(x_), r_, *seed_gens());
}

Bytes32 beacon_commit(const Bytes32& rho) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  put_label(st, "gopa/seed-beacon/v1/commit");
  crypto_hash_sha256_update(&st, rho.data(), rho.size());
  Bytes32 h{};
  crypto_hash_sha256_final(&st, h.data());
  return h;
}

bool beacon_check(const Bytes32& commitment, const Bytes32& rho) {
  const Bytes32 h = beacon_commit(rho);
  return sodium_memcmp(h.data(), commitment.data(), h.size()) == 0;
}

std::vector<std::uint64_t> public_randomness(std::span<const Bytes32> rhos, std::uint64_t party,
                                             std::size_t count, unsigned m) {
  GOPA_CHECK(m >= 1 && m <= 64, "seed bits out of range");
  std::vector<std::uint64_t> ys;
  ys.reserve(count);
  for (std::size_t j = 0; j < count; ++j) {
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    put_label(st, "gopa/seed-beacon/v1/expand");
    put_u64(st, rhos.size());
    for (const Bytes32& r : rhos) crypto_hash_sha256_update(&st, r.data(), r.size());
    put_u64(st, party);
    put_u64(st, j);
    Bytes32 h{};
    crypto_hash_sha256_final(&st, h.data());
    std::uint64_t y = 0;
    for (int i = 0; i < 8; ++i) y |= static_cast<std::uint64_t>(h[static_cast<std::size_t>(i)]) << (8 * i);
    ys.push_back(m == 64 ? y : (y & ((std::uint64_t{1} << m) - 1U)));
  }
  return ys;
}

bool check_committed_seeds(const Circuit& c, std::span<const Scalar> z,
                           std::span<const Point> commitments, std::span<const Scalar> blinders) {
  const auto vars = c.vars_of(VarKind::kCommitted);
  if (vars.size() != commitments.size() || vars.size() != blinders.size() || z.size() != c.vars.size())
    return false;
  const auto gens = seed_gens();
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (!verify_opening(commitments[i], z[vars[i]], blinders[i], *gens)) return false;
  return true;
}

}  // namespace gopa::circuits
