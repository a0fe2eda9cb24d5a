// Per-generator-set tables for the provers' constant-time commitments (compressed_impl.hpp).
#include <algorithm>
#include <map>
#include <mutex>

#include "compressed_impl.hpp"

namespace gopa::sigma::detail {

namespace {
// Sets larger than this are not kept (1.5 KiB per point: 192 MiB at the cap); they get fresh
// tables per call. 2^17 keeps the d = 64 Box–Muller circuits up to f = 24 (69,700 points) and
// polar up to f = 16 (123,000), whose repeated proofs then run 1.3–1.8× faster (docs/circuits.md §6.1).
constexpr std::size_t kMaxCachedPoints = std::size_t{1} << 17;
constexpr std::size_t kMaxCachedSets = 4;
// wNAF width of the cached public Straus tables (64 affine points per generator): the range
// prover runs ten MSMs over the same generators per proof.
constexpr int kPublicStrausWidth = 8;
// Statements up to this many rows keep their own basis: MsmBasis keeps Straus tables for sparse
// MSMs on bases of at most 4,096 points (the range prover's ten MSMs per proof).
constexpr std::size_t kSmallBasis = 4096;

// The provers' tables by set id (the points of a name are fixed).
std::mutex& secret_cache_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<Bytes32, SecretTables>& secret_cache() {
  static std::map<Bytes32, SecretTables> cache;
  return cache;
}
}  // namespace

}  // namespace gopa::sigma::detail

namespace gopa::sigma {
void release_prover_tables() {
  std::lock_guard lock(detail::secret_cache_mutex());
  detail::secret_cache().clear();  // proofs running now keep theirs (shared_ptr)
}
}  // namespace gopa::sigma

namespace gopa::sigma::detail {

SecretTables secret_tables(const GeneratorSet& gens, std::size_t n_gi) {
  GOPA_CHECK(n_gi <= gens.size(), "secret_tables: generator set too small");
  auto build = [&gens](std::size_t k) {
    std::vector<Point> pts(gens.Gi(k).begin(), gens.Gi(k).end());
    pts.push_back(gens.G());
    pts.push_back(gens.H());
    pts.push_back(gens.Q());
    return SecretTables{std::make_shared<const MsmSecretBasis>(pts), k};
  };
  if (n_gi > kMaxCachedPoints) return build(n_gi);
  auto& mu = secret_cache_mutex();
  auto& cache = secret_cache();
  std::lock_guard lock(mu);
  auto it = cache.find(gens.id());
  if (it != cache.end() && it->second.n_gi >= n_gi) return it->second;
  // Grow geometrically (within this set) so that slightly larger statements reuse the tables.
  std::size_t want = n_gi;
  if (it != cache.end()) want = std::min(gens.size(), std::max(n_gi, 2 * it->second.n_gi));
  want = std::min(want, kMaxCachedPoints);
  if (cache.size() >= kMaxCachedSets && it == cache.end()) cache.clear();
  SecretTables t = build(want);
  cache[gens.id()] = t;
  return t;
}

PublicTables public_tables(const GeneratorSet& gens, std::size_t n_gi) {
  GOPA_CHECK(n_gi <= gens.size(), "public_tables: generator set too small");
  if (n_gi + 3 <= kSmallBasis) {
    // G_0..G_{n_gi−1}, G, H, Q, one basis per (set, n_gi).
    static std::mutex mu;
    static std::map<std::pair<Bytes32, std::size_t>, std::shared_ptr<const MsmBasis>> cache;
    std::lock_guard lock(mu);
    const auto key = std::make_pair(gens.id(), n_gi);
    auto it = cache.find(key);
    if (it == cache.end()) {
      if (cache.size() >= 2 * kMaxCachedSets) cache.clear();
      std::vector<Point> pts(gens.Gi(n_gi).begin(), gens.Gi(n_gi).end());
      pts.push_back(gens.G());
      pts.push_back(gens.H());
      pts.push_back(gens.Q());
      it = cache.emplace(key, std::make_shared<const MsmBasis>(pts, kPublicStrausWidth)).first;
    }
    return {it->second, 0, n_gi, n_gi + 1, n_gi + 2, n_gi + 3};
  }
  // G, H, Q, G_0..G_{k−1} for k ≥ n_gi, shared by every larger statement over the set.
  auto build = [&gens](std::size_t k) {
    std::vector<Point> pts{gens.G(), gens.H(), gens.Q()};
    pts.insert(pts.end(), gens.Gi(k).begin(), gens.Gi(k).end());
    return std::make_shared<const MsmBasis>(pts, kPublicStrausWidth);
  };
  auto tables = [n_gi](std::shared_ptr<const MsmBasis> b) { return PublicTables{std::move(b), 3, 0, 1, 2, 3 + n_gi}; };
  if (n_gi > kMaxCachedPoints) return tables(build(n_gi));
  static std::mutex mu;
  static std::map<Bytes32, std::shared_ptr<const MsmBasis>> cache;  // by set id: the points of a name are fixed
  std::lock_guard lock(mu);
  auto it = cache.find(gens.id());
  if (it != cache.end() && it->second->size() >= 3 + n_gi) return tables(it->second);
  // Grown to the statement rounded up to 4,096 generators, not geometrically: a basis past about
  // 73,000 points would not get window tables (their 128 MiB cap, docs/circuits.md §6.1).
  const std::size_t want = std::min({gens.size(), kMaxCachedPoints, (n_gi + 4095) / 4096 * 4096});
  if (cache.size() >= kMaxCachedSets && it == cache.end()) cache.clear();
  auto b = build(want);
  cache[gens.id()] = b;
  return tables(b);
}

}  // namespace gopa::sigma::detail
