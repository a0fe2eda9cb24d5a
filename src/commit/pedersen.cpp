// Pedersen commitments over ristretto255. Generator derivation: docs/pedersen.md.
#include "gopa/pedersen.hpp"

#include <sodium.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "gopa/bytes.hpp"
#include "gopa/check.hpp"
#include "gopa/msm_ct.hpp"
#include "gopa/parallel.hpp"

namespace gopa {

namespace {

constexpr std::string_view kGeneratorDomain = "gopa/generators/v1";
constexpr std::string_view kSetIdDomain = "gopa/generator-set-id/v1";

Point derive_one(std::string_view name, char tag, std::optional<std::uint64_t> index) {
  std::vector<std::uint8_t> msg;
  msg.reserve(1 + name.size() + 1 + 8);
  msg.push_back(static_cast<std::uint8_t>(name.size()));
  msg.insert(msg.end(), name.begin(), name.end());
  msg.push_back(static_cast<std::uint8_t>(tag));
  if (index) ByteWriter<ByteOrder::little>(msg).u64(*index);
  return Point::hash_to_group(kGeneratorDomain, msg);
}

}  // namespace

GeneratorSet GeneratorSet::derive(std::string_view name, std::size_t n) { return derive(name, n, nullptr); }

GeneratorSet GeneratorSet::derive(std::string_view name, std::size_t n, const GeneratorSet* prefix) {
  GOPA_CHECK(!name.empty() && name.size() <= 255, "generator set names are 1..255 bytes");
  GOPA_CHECK(prefix == nullptr || prefix->name_ == name, "generator set: a prefix of another set");
  crypto_init();
  GeneratorSet s;
  s.name_ = std::string(name);
  s.g_ = Point::base();
  s.h_ = derive_one(name, 'H', std::nullopt);
  s.q_ = derive_one(name, 'Q', std::nullopt);
  // G_i of the prefix are the same points (each depends on its index only); the rest are hashed
  // to the group on every core, in chunks.
  const std::size_t have = prefix == nullptr ? 0 : std::min(n, prefix->gi_.size());
  s.gi_.resize(n);
  std::copy_n(prefix == nullptr ? s.gi_.begin() : prefix->gi_.begin(), have, s.gi_.begin());
  constexpr std::size_t kChunk = 1024;
  const std::size_t chunks = (n - have + kChunk - 1) / kChunk;
  parallel_for(chunks, 0, [&](std::size_t c) {
    const std::size_t lo = have + c * kChunk, hi = std::min(n, lo + kChunk);
    for (std::size_t i = lo; i < hi; ++i) s.gi_[i] = derive_one(name, 'G', i);
  });
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, s.id_.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(kSetIdDomain.data()),
                            kSetIdDomain.size());
  const auto len = static_cast<std::uint8_t>(name.size());
  crypto_generichash_update(&st, &len, 1);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(name.data()), name.size());
  crypto_generichash_final(&st, s.id_.data(), s.id_.size());
  s.h_table_ = std::make_shared<FixedBaseTable>(s.h_);
  return s;
}

std::shared_ptr<const GeneratorSet> GeneratorSet::get(std::string_view name, std::size_t n) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const GeneratorSet>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end() && it->second->size() >= n) return it->second;
  // Grow geometrically so repeated small extensions stay cheap.
  std::size_t want = n;
  if (it != cache.end()) want = std::max(n, 2 * it->second->size());
  auto fresh = std::make_shared<const GeneratorSet>(
      derive(name, want, it != cache.end() ? it->second.get() : nullptr));
  cache[std::string(name)] = fresh;
  return fresh;
}

std::span<const Point> GeneratorSet::Gi(std::size_t n) const {
  GOPA_CHECK(n <= gi_.size(), "generator set too small for the requested vector length");
  return std::span<const Point>(gi_).first(n);
}

Point commit(const SecretScalar& v, const SecretScalar& r, const GeneratorSet& gens) {
  return Point::base_mul(v) + gens.H_table().mul(r);
}

Point commit_vector(std::span<const SecretScalar> x, const SecretScalar& r,
                    const GeneratorSet& gens) {
  return msm_secret(x, gens.Gi(x.size())) + gens.H_table().mul(r);
}

Point commit_public(const Scalar& v, const Scalar& r, const GeneratorSet& gens) {
  return Point::base_mul(v) + gens.H() * r;
}

Point commit_vector_public(std::span<const Scalar> x, const Scalar& r, const GeneratorSet& gens) {
  return msm(x, gens.Gi(x.size())) + gens.H() * r;
}

bool verify_opening(const Point& c, const Scalar& v, const Scalar& r, const GeneratorSet& gens) {
  return commit_public(v, r, gens) == c;
}

bool verify_vector_opening(const Point& c, std::span<const Scalar> x, const Scalar& r,
                           const GeneratorSet& gens) {
  if (x.size() > gens.size()) return false;
  return commit_vector_public(x, r, gens) == c;
}

}  // namespace gopa
