// gopa/pedersen.hpp — nothing-up-my-sleeve generators and Pedersen commitments.
//
//   auto gens = gopa::GeneratorSet::get("gopa", 64);       // G, H, Q and G_0..G_63
//   gopa::SecretScalar v = ..., r = gopa::SecretScalar::random(rng);
//   gopa::Point C = gopa::commit(v, r, *gens);             // v·G + r·H, constant time
//   bool ok = gopa::verify_opening(C, v.declassify(), r.declassify(), *gens);
//   gopa::Point V = gopa::commit_vector(xs, r, *gens);     // Σ x_i·G_i + r·H
//
// Generators (docs/pedersen.md): G is the ristretto255 base point B; H, Q and every G_i are
// hash_to_group("gopa/generators/v1", len(name) ‖ name ‖ tag [‖ LE64(i)]) with tag "H", "Q",
// "G". Nobody knows a discrete-log relation between them. A set is an unbounded sequence fixed
// by its name; its id, bound into transcripts, is BLAKE2b-256("gopa/generator-set-id/v1" ‖ name).
//
// Security notes: commitments to secrets are computed in constant time (fixed-base tables for G
// and H, msm_secret for vectors); verifying an opening uses public data only.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/msm.hpp"

namespace gopa {

class GeneratorSet {
 public:
  // The process-wide cached set `name` with at least n vector generators (derived on first use,
  // extended when a larger n is asked for; thread-safe).
  static std::shared_ptr<const GeneratorSet> get(std::string_view name, std::size_t n);
  // Derivation without the cache.
  static GeneratorSet derive(std::string_view name, std::size_t n);

  const Point& G() const noexcept { return g_; }
  const Point& H() const noexcept { return h_; }
  const Point& Q() const noexcept { return q_; }
  // G_0 … G_{size-1}.
  std::span<const Point> Gi() const noexcept { return gi_; }
  std::span<const Point> Gi(std::size_t n) const;  // the first n (aborts if n > size())
  std::size_t size() const noexcept { return gi_.size(); }
  const Bytes32& id() const noexcept { return id_; }
  const std::string& name() const noexcept { return name_; }
  const FixedBaseTable& H_table() const noexcept { return *h_table_; }

 private:
  // The same, reusing the vector generators of `prefix` (a smaller set of the same name).
  static GeneratorSet derive(std::string_view name, std::size_t n, const GeneratorSet* prefix);
  GeneratorSet() = default;
  std::string name_;
  Point g_, h_, q_;
  std::vector<Point> gi_;
  Bytes32 id_{};
  std::shared_ptr<FixedBaseTable> h_table_;
};

// v·G + r·H (constant time in v and r).
[[nodiscard]] Point commit(const SecretScalar& v, const SecretScalar& r, const GeneratorSet& gens);
// Σ x_i·G_i + r·H with x.size() ≤ gens.size() (constant time in x and r).
[[nodiscard]] Point commit_vector(std::span<const SecretScalar> x, const SecretScalar& r,
                                  const GeneratorSet& gens);
// Public-data versions (variable time), e.g. to check an opening.
[[nodiscard]] Point commit_public(const Scalar& v, const Scalar& r, const GeneratorSet& gens);
[[nodiscard]] Point commit_vector_public(std::span<const Scalar> x, const Scalar& r,
                                         const GeneratorSet& gens);
[[nodiscard]] bool verify_opening(const Point& c, const Scalar& v, const Scalar& r,
                                  const GeneratorSet& gens);
[[nodiscard]] bool verify_vector_opening(const Point& c, std::span<const Scalar> x, const Scalar& r,
                                         const GeneratorSet& gens);

}  // namespace gopa
