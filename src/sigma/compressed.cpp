// The compressed pivot (AC20 §3, §4). Math and transcript order: docs/proofs.md §2.
#include "gopa/sigma/compressed.hpp"

#include <sodium.h>

#include <memory>

#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"
#include "compressed_impl.hpp"
#include "wire.hpp"

namespace gopa::sigma {

namespace {

constexpr std::string_view kDomain = "gopa/sigma/compressed v1";

// Prover folding schedule: materialise the folded generators every kFoldBlock rounds while more
// than kFoldMin points remain (below that, MSMs over the current level are cheaper than folding).
constexpr std::size_t kFoldBlock = 3;
constexpr std::size_t kFoldMin = 256;

// The basis points in coordinate order: G_0..G_{n-1}, [G], H.
std::vector<Point> basis_points(const GeneratorSet& gens, const Basis& basis) {
  std::vector<Point> pts;
  pts.reserve(basis.size());
  const auto gi = gens.Gi(basis.n_gi);
  pts.insert(pts.end(), gi.begin(), gi.end());
  if (basis.with_g) pts.push_back(gens.G());
  pts.push_back(gens.H());
  return pts;
}

void bind_header(Transcript& t, std::size_t n, std::size_t s) {
  t.domain_separator(kDomain);
  t.append_u64("n", n);
  t.append_u64("s", s);
}

// Folded generator coefficients s_j = Π_r (j in the left half at round r ? x_r : 1), for the
// 2^rounds blocks of final_len coordinates (coordinate j lies in block j / final_len).
std::vector<field::Fe> block_coefficients(std::span<const Scalar> x) {
  std::vector<field::Fe> table{field::one()};
  for (const Scalar& xs : x) {
    const field::Fe xr = field::of(xs);
    std::vector<field::Fe> next(table.size() * 2);
    for (std::size_t t = 0; t < table.size(); ++t) {
      next[2 * t] = field::mul(table[t], xr);  // bit 0: left half at this round
      next[2 * t + 1] = table[t];
    }
    table = std::move(next);
  }
  return table;
}

}  // namespace

FoldShape fold_shape(std::size_t n) noexcept {
  FoldShape best{0, n == 0 ? 1 : n};
  for (std::size_t r = 1; r < 40; ++r) {
    const std::size_t k = (n + (std::size_t{1} << r) - 1) >> r;
    const std::size_t kk = k == 0 ? 1 : k;
    if (2 * r + kk < 2 * best.rounds + best.final_len) best = {r, kk};
    if (kk == 1) break;
  }
  return best;
}

Point PointExpr::evaluate() const { return msm(scalars, points); }

void CompressedProof::encode_to(std::vector<std::uint8_t>& out) const {
  wire::Writer w(out);
  w.point(a);
  for (const Point& p : cross) w.point(p);
  for (const Scalar& s : final) w.scalar(s);
}

std::optional<CompressedProof> CompressedProof::decode(std::span<const std::uint8_t> in,
                                                       const FoldShape& shape) {
  if (in.size() != encoded_size(shape)) return std::nullopt;
  wire::Reader r(in);
  CompressedProof p;
  p.a = r.point();
  p.cross.reserve(2 * shape.rounds);
  for (std::size_t i = 0; i < 2 * shape.rounds; ++i) p.cross.push_back(r.point());
  p.final.reserve(shape.final_len);
  for (std::size_t i = 0; i < shape.final_len; ++i) p.final.push_back(r.scalar());
  if (!r.finish() || p.a.is_identity()) return std::nullopt;
  return p;
}

namespace detail {

Scalar pivot_header(Transcript& t, const Basis& basis, std::size_t s) {
  bind_header(t, basis.size(), s);
  return t.challenge_scalar("q");
}

std::vector<SecretScalar> pivot_mask(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                                     std::span<const field::Fe> form, const Scalar& cq, Rng& prng,
                                     CompressedProof& proof) {
  using field::Fe;
  const std::size_t n = basis.size();
  GOPA_CHECK(form.size() == n, "pivot_mask: form size differs from the basis");
  const testing::Deviation* dev = testing::deviation();
  // Pivot (AC20 §3): mask r, A = Σ r_i·(g_i + cq·L_i·Q).
  std::vector<SecretScalar> r;
  r.reserve(n + 1);
  Fe lr;  // L(r), secret (constant-time field arithmetic)
  for (std::size_t i = 0; i < n; ++i) {
    r.push_back(SecretScalar::random(prng));
    lr = field::add(lr, field::mul(field::of(r.back()), form[i]));
  }
  lr = field::mul(lr, field::of(cq));
  {
    // A = ⟨r, g⟩ + (cq·L(r))·Q in one constant-time MSM over the cached tables.
    const SecretTables tab = secret_tables(gens, basis.n_gi);
    std::vector<std::size_t> rows(n + 1);
    for (std::size_t i = 0; i < basis.n_gi; ++i) rows[i] = i;
    if (basis.with_g) rows[basis.n_gi] = tab.g();
    rows[n - 1] = tab.h();
    rows[n] = tab.q();
    r.push_back(field::to_secret(lr));
    proof.a = tab.basis->msm(r, rows);
    if (dev != nullptr && dev->on_mask_commitment) dev->on_mask_commitment(proof.a);
    proof.a.cache_encoding();  // encoded again by the transcript, the serialiser and verifiers
    r.pop_back();
  }
  sodium_memzero(&lr, sizeof lr);
  t.append_point("A", proof.a);
  return r;
}

CompressedProof compressed_prove(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                                 std::span<const std::vector<SecretScalar>> openings,
                                 std::span<const field::Fe> form, Rng& rng) {
  using field::Fe;
  const std::size_t n = basis.size();
  GOPA_CHECK(!openings.empty(), "compressed_prove: no commitment");
  GOPA_CHECK(form.size() == n, "compressed_prove: form size differs from the basis");
  for (const auto& x : openings) GOPA_CHECK(x.size() == n, "compressed_prove: opening size");
  const Scalar cq = pivot_header(t, basis, openings.size());
  std::vector<const SecretScalar*> wit;
  for (const auto& x : openings)
    for (const SecretScalar& v : x) wit.push_back(&v);
  auto prng_honest = t.prover_rng(wit, rng);
  testing::NonceSource nonces(prng_honest);
  CompressedProof proof;
  std::vector<SecretScalar> r = pivot_mask(t, gens, basis, form, cq, nonces.get(), proof);
  const Scalar e = t.challenge_scalar("e");

  // z = r + Σ_k e^k·x_k: the pivot's public response (declassified: the uncompressed
  // protocol sends it in the clear).
  std::vector<Fe> z(n);
  {
    Scalar ek = e;
    for (const auto& x : openings) {
      for (std::size_t i = 0; i < n; ++i) r[i] += x[i] * ek;
      ek *= e;
    }
    for (std::size_t i = 0; i < n; ++i) z[i] = field::of(r[i].declassify());
  }
  compress(t, gens, basis, form, cq, std::move(z), proof);
  return proof;
}

void compress(Transcript& t, const GeneratorSet& gens, const Basis& basis, std::span<const field::Fe> form,
              const Scalar& cq, std::vector<field::Fe> z, CompressedProof& proof) {
  using field::Fe;
  const std::size_t n = basis.size();
  GOPA_CHECK(form.size() == n && z.size() == n, "compress: sizes differ from the basis");
  const FoldShape shape = fold_shape(n);
  const std::vector<Point> pts = basis_points(gens, basis);
  const Fe fcq = field::of(cq);
  const testing::Deviation* dev = testing::deviation();
  z.resize(shape.padded());

  // Compression (AC20 §4): fold z and the generators g'_j = g_j + cq·L_j·Q. The generators are
  // folded lazily: `base` is a materialised level (the basis at first), s[j] the folded
  // coefficient of its point j since then, and the cross terms are MSMs over `base` (and Q).
  // Every kFoldBlock rounds, while the base is large, the current level is materialised with
  // one strided MSM (shared scalars s), so later rounds work on fewer points.
  // VARIABLE TIME: public data from here on.
  std::vector<Point> base = pts;
  std::vector<Fe> lf(form.begin(), form.end());  // the linear form on the base
  // The first level is the generator set itself: cached tables, where base point j sits at
  // pos[j] and Q at qpos (rows of public_tables).
  const PublicTables tab = public_tables(gens, basis.n_gi);
  std::shared_ptr<const MsmBasis> msm_base = tab.basis;
  std::vector<std::size_t> pos(n);
  for (std::size_t j = 0; j < basis.n_gi; ++j) pos[j] = tab.gi(j);
  if (basis.with_g) pos[basis.n_gi] = tab.g;
  pos[n - 1] = tab.h;
  std::size_t qpos = tab.q;
  std::size_t nb = n;  // points in the base (the rest of the level is padding)
  std::vector<Fe> s(nb, field::one());
  std::size_t len = shape.padded();
  std::vector<Scalar> sa(tab.rows), sb(tab.rows);
  std::size_t since = 0;  // rounds since the base was materialised
  bool on_generators = true;  // the base is still the generator set (msm_base = public_tables)
  for (std::size_t round = 0; round < shape.rounds; ++round) {
    const std::size_t h = len / 2;
    Fe qa, qb;
    for (std::size_t j = 0; j < nb; ++j) {
      const std::size_t p = j % len;
      if (p >= h) {
        const Fe c = field::mul(z[p - h], s[j]);
        sa[pos[j]] = field::to_scalar(c);
        sb[pos[j]] = Scalar::zero();
        qa = field::add(qa, field::mul(c, lf[j]));
      } else {
        const Fe c = field::mul(z[p + h], s[j]);
        sb[pos[j]] = field::to_scalar(c);
        sa[pos[j]] = Scalar::zero();
        qb = field::add(qb, field::mul(c, lf[j]));
      }
    }
    sa[qpos] = field::to_scalar(field::mul(qa, fcq));
    sb[qpos] = field::to_scalar(field::mul(qb, fcq));
    Point ar = msm_base->msm(sa);
    Point br = msm_base->msm(sb);
    ar.cache_encoding();
    br.cache_encoding();
    proof.cross.push_back(ar);
    proof.cross.push_back(br);
    t.append_point("A_r", ar);
    t.append_point("B_r", br);
    const Fe x = field::of(t.challenge_scalar("x"));
    for (std::size_t p = 0; p < h; ++p) z[p] = field::add(z[p], field::mul(x, z[p + h]));
    z.resize(h);
    for (std::size_t j = 0; j < nb; ++j)
      if (j % len < h) s[j] = field::mul(s[j], x);
    len = h;
    if (++since >= kFoldBlock && nb > kFoldMin && round + 1 < shape.rounds) {
      // s[j] depends on j / len only: one scalar per block of the level.
      std::vector<Scalar> sigma;
      for (std::size_t j = 0; j < nb; j += len) sigma.push_back(field::to_scalar(s[j]));
      // On the generator set itself the cached basis has comb tables (once it has window
      // tables); later levels are fresh points.
      base = on_generators ? msm_base->msm_strided(sigma, std::span(pos).first(nb), len)
                           : msm_strided(sigma, base, len);
      on_generators = false;
      std::vector<Fe> nl(base.size());
      for (std::size_t j = 0; j < nb; ++j)
        nl[j % len] = field::add(nl[j % len], field::mul(s[j], lf[j]));
      lf = std::move(nl);
      nb = base.size();
      s.assign(nb, field::one());
      sa.assign(nb + 1, Scalar::zero());
      sb.assign(nb + 1, Scalar::zero());
      base.push_back(gens.Q());
      msm_base = std::make_shared<const MsmBasis>(base);
      base.pop_back();
      for (std::size_t j = 0; j < nb; ++j) pos[j] = j;
      qpos = nb;
      since = 0;
    }
  }
  for (const Fe& v : z) proof.final.push_back(field::to_scalar(v));
  if (dev != nullptr && dev->on_responses) dev->on_responses(proof);
}

}  // namespace detail

CompressedProof compressed_prove(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                                 std::span<const std::vector<SecretScalar>> openings,
                                 std::span<const Scalar> form, Rng& rng) {
  const auto f = detail::to_fe(form);
  return detail::compressed_prove(t, gens, basis, openings, f, rng);
}

namespace {

struct Replay {
  Scalar cq, e;
  std::vector<Scalar> x;
};

std::optional<Replay> replay(Transcript& t, const Basis& basis, std::size_t s,
                             const CompressedProof& proof, const FoldShape& shape) {
  if (proof.cross.size() != 2 * shape.rounds || proof.final.size() != shape.final_len)
    return std::nullopt;
  bind_header(t, basis.size(), s);
  Replay rp;
  rp.cq = t.challenge_scalar("q");
  t.append_point("A", proof.a);
  rp.e = t.challenge_scalar("e");
  for (std::size_t round = 0; round < shape.rounds; ++round) {
    t.append_point("A_r", proof.cross[2 * round]);
    t.append_point("B_r", proof.cross[2 * round + 1]);
    rp.x.push_back(t.challenge_scalar("x"));
  }
  return rp;
}

}  // namespace

namespace detail {

bool compressed_verify(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                       std::span<const PointExpr> commitments, std::span<const field::Fe> form,
                       std::span<const field::Fe> values, const CompressedProof& proof,
                       MsmTerms& eq) {
  using field::Fe;
  const std::size_t n = basis.size();
  if (commitments.empty() || values.size() != commitments.size() || form.size() != n)
    return false;
  if (basis.n_gi > gens.size()) return false;
  const FoldShape shape = fold_shape(n);
  const auto rp = replay(t, basis, commitments.size(), proof, shape);
  if (!rp) return false;

  // Final check (docs/proofs.md §2.3): Σ_j z_f[j mod k]·s_j·(g_j + cq·L_j·Q)
  //   = X·(A + Σ_k e^k (C_k + cq·v_k·Q)) + Σ_r π_r·(A_r + x_r²·B_r), X = Π x_r, π_r = Π_{r'>r} x_r'.
  // VARIABLE TIME: public data.
  const std::vector<Fe> blocks = block_coefficients(rp->x);
  const std::vector<Fe> zf = to_fe(proof.final);
  Fe qcoef;
  for (std::size_t j = 0; j < n; ++j) {
    const Fe c = field::mul(zf[j % shape.final_len], blocks[j / shape.final_len]);
    if (j < basis.n_gi) {
      eq.add_gi(j, c);
    } else if (basis.with_g && j == basis.n_gi) {
      eq.add_g(c);
    } else {
      eq.add_h(c);
    }
    qcoef = field::add(qcoef, field::mul(c, form[j]));
  }
  std::vector<Fe> pi(shape.rounds + 1), xs = to_fe(rp->x);
  pi[shape.rounds] = field::one();
  for (std::size_t r = shape.rounds; r-- > 0;) pi[r] = field::mul(pi[r + 1], xs[r]);
  const Fe big_x = pi[0];
  const Fe fe = field::of(rp->e);
  Fe ek = fe;
  Fe vsum;
  for (std::size_t k = 0; k < commitments.size(); ++k) {
    const Fe w = field::neg(field::mul(big_x, ek));
    for (std::size_t i = 0; i < commitments[k].points.size(); ++i)
      eq.add(field::mul(w, field::of(commitments[k].scalars[i])), commitments[k].points[i]);
    vsum = field::add(vsum, field::mul(ek, values[k]));
    ek = field::mul(ek, fe);
  }
  eq.add_q(field::mul(field::of(rp->cq), field::sub(qcoef, field::mul(big_x, vsum))));
  eq.add(field::neg(big_x), proof.a);
  for (std::size_t r = 0; r < shape.rounds; ++r) {
    eq.add(field::neg(pi[r + 1]), proof.cross[2 * r]);
    eq.add(field::neg(field::mul(pi[r + 1], field::mul(xs[r], xs[r]))), proof.cross[2 * r + 1]);
  }
  return true;
}

}  // namespace detail

bool compressed_verify(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                       std::span<const PointExpr> commitments, std::span<const Scalar> form,
                       std::span<const Scalar> values, const CompressedProof& proof,
                       MsmTerms& eq) {
  const auto f = detail::to_fe(form), v = detail::to_fe(values);
  return detail::compressed_verify(t, gens, basis, commitments, f, v, proof, eq);
}

namespace detail {
bool compressed_verify_naive(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                             std::span<const PointExpr> commitments,
                             std::span<const field::Fe> form, std::span<const field::Fe> values,
                             const CompressedProof& proof) {
  std::vector<Scalar> f, v;
  for (const auto& x : form) f.push_back(field::to_scalar(x));
  for (const auto& x : values) v.push_back(field::to_scalar(x));
  return sigma::compressed_verify_naive(t, gens, basis, commitments, f, v, proof);
}
}  // namespace detail

bool compressed_verify_naive(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                             std::span<const PointExpr> commitments, std::span<const Scalar> form,
                             std::span<const Scalar> values, const CompressedProof& proof) {
  const std::size_t n = basis.size();
  if (commitments.empty() || values.size() != commitments.size() || form.size() != n)
    return false;
  const FoldShape shape = fold_shape(n);
  const auto rp = replay(t, basis, commitments.size(), proof, shape);
  if (!rp) return false;
  // Target T = A + Σ_k e^k (C_k + cq·v_k·Q), then T' = A_r + x·T + x²·B_r per round.
  Point target = proof.a;
  Scalar ek = rp->e;
  for (std::size_t k = 0; k < commitments.size(); ++k) {
    target += (commitments[k].evaluate() + gens.Q() * (rp->cq * values[k])) * ek;
    ek *= rp->e;
  }
  // Generators g'_j = g_j + cq·L_j·Q, folded explicitly: one scalar multiplication per step.
  std::vector<Point> g = basis_points(gens, basis);
  std::vector<Scalar> l(form.begin(), form.end());
  g.resize(shape.padded());
  l.resize(shape.padded());
  std::size_t len = shape.padded();
  for (std::size_t r = 0; r < shape.rounds; ++r) {
    const Scalar& x = rp->x[r];
    target = proof.cross[2 * r] + target * x + proof.cross[2 * r + 1] * (x * x);
    const std::size_t h = len / 2;
    for (std::size_t p = 0; p < h; ++p) {
      g[p] = g[p] * x + g[p + h];
      l[p] = l[p] * x + l[p + h];
    }
    len = h;
  }
  Point lhs;
  Scalar lq;
  for (std::size_t p = 0; p < shape.final_len; ++p) {
    lhs += g[p] * proof.final[p];
    lq += l[p] * proof.final[p];
  }
  lhs += gens.Q() * (lq * rp->cq);
  return lhs == target;
}

}  // namespace gopa::sigma
