#include "gopa/circuits/sigma_adapter.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "gopa/check.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/transcript.hpp"

namespace gopa::circuits {
namespace {

constexpr const char* kGaussianProtocol = "gopa/gaussian-sample v1";

struct Index {
  std::vector<std::uint32_t> slot;  // var → witness or public index
  std::vector<bool> is_public;
};

sigma::LinComb convert(const LinComb& lc, const Index& ix) {
  sigma::LinComb out;
  out.constant = lc.constant;
  for (const Term& t : lc.terms) {
    if (ix.is_public[t.var]) out.public_terms.push_back({ix.slot[t.var], t.coef});
    else out.terms.push_back({ix.slot[t.var], t.coef});
  }
  out.normalize();
  return out;
}

std::shared_ptr<const GeneratorSet> gens_for(const sigma::Circuit& c) {
  return GeneratorSet::get("gopa", c.generators_needed());
}

void bind_statement(Transcript& t, const SamplerParams& p, std::size_t d, const Circuit& c) {
  t.domain_separator(kGaussianProtocol);
  t.append_message("circuit-name", p.circuit_name(d));
  const Bytes32 id = c.id();
  t.append_message("circuit-id", std::span<const std::uint8_t>(id));
  t.append_u64("d", d);
}

// Records the circuit with the given seed values (all zero for the verifier's copy: the
// circuit does not depend on the witness). With `samples`, also returns the committed outputs'
// integer values (the prover's samples).
std::unique_ptr<Recorder> record(const SamplerParams& p, std::size_t d,
                                 std::span<const i128> xs, std::span<const std::uint64_t> ys,
                                 std::vector<std::int64_t>* samples = nullptr) {
  std::vector<i128> y(ys.begin(), ys.end());
  auto rec = std::make_unique<Recorder>(p.circuit_name(d));
  const auto out = gaussian_circuit(*rec, p, xs, y, d);
  if (samples != nullptr) {
    samples->clear();
    for (const auto& w : out) samples->push_back(static_cast<std::int64_t>(rec->value(w)));
  }
  return rec;
}

std::size_t seeds_needed(const SamplerParams& p, std::size_t d) {
  return (d + p.samples_per_call() - 1) / p.samples_per_call() * p.seeds_per_call();
}

}  // namespace

SigmaCircuit to_sigma(const Circuit& c, std::span<const Scalar> z, std::span<const Scalar> publics) {
  SigmaCircuit out;
  Index ix;
  ix.slot.resize(c.vars.size());
  ix.is_public.resize(c.vars.size());
  std::uint32_t nw = 0, np = 0;
  std::vector<std::uint32_t> bound;
  for (std::size_t i = 0; i < c.vars.size(); ++i) {
    const VarKind k = c.vars[i];
    ix.is_public[i] = k == VarKind::kPublic;
    ix.slot[i] = ix.is_public[i] ? np++ : nw++;
    if (k == VarKind::kCommitted || k == VarKind::kOutput) bound.push_back(static_cast<std::uint32_t>(i));
    if (!z.empty()) {
      if (ix.is_public[i]) out.publics.push_back(z[i]);
      else out.witness.emplace_back(z[i]);
    }
  }
  if (z.empty()) out.publics.assign(publics.begin(), publics.end());
  out.circuit.num_witness = nw;
  out.circuit.num_public = np;
  out.circuit.gates.reserve(c.muls.size());
  for (const MulGate& g : c.muls)
    out.circuit.gates.push_back({convert(g.a, ix), convert(g.b, ix), convert(g.c, ix)});
  for (const LinComb& l : c.linear) out.circuit.zero.push_back(convert(l, ix));
  for (std::uint32_t v : bound) out.circuit.bindings.push_back(sigma::LinComb::variable(ix.slot[v]));
  return out;
}

std::size_t GaussianProof::size_bytes() const {
  return 32U * sample_commitments.size() + proof.encode().size();
}

GaussianProof prove_gaussian(const SamplerParams& p, std::size_t d,
                             std::span<const PrivateSeed> seeds, std::span<const std::uint64_t> ys,
                             std::vector<std::int64_t>& samples, std::vector<SecretScalar>& blinders,
                             Rng& rng) {
  const std::size_t need = seeds_needed(p, d);
  GOPA_CHECK(seeds.size() == need && ys.size() == need, "wrong number of seeds");
  // Recording (hints included) is constant time in the seeds (recorder.hpp); the samples are
  // the recorded outputs, so no variable-time clear evaluation touches the secrets.
  std::vector<i128> xs;
  for (const PrivateSeed& s : seeds) xs.push_back(static_cast<i128>(s.value()));
  auto rec = record(p, d, xs, ys, &samples);
  sodium_memzero(xs.data(), xs.size() * sizeof(i128));
  GOPA_CHECK(check_witness(rec->circuit(), rec->values()).ok(), "sampler witness does not satisfy its circuit");
  SigmaCircuit sc = to_sigma(rec->circuit(), rec->values());
  auto gens = gens_for(sc.circuit);
  GaussianProof out;
  std::vector<Point> coms;
  std::vector<SecretScalar> blind;
  for (const PrivateSeed& s : seeds) {
    coms.push_back(s.commitment());
    blind.push_back(s.blinder().clone());
  }
  blinders.clear();
  for (std::uint32_t v : rec->circuit().vars_of(VarKind::kOutput)) {
    SecretScalar r = SecretScalar::random(rng);
    const SecretScalar eta(rec->values()[v]);
    out.sample_commitments.push_back(commit(eta, r, *gens));
    coms.push_back(out.sample_commitments.back());
    blinders.push_back(r.clone());
    blind.push_back(std::move(r));
  }
  Transcript t("gopa");
  bind_statement(t, p, d, rec->circuit());
  out.proof = sigma::prove_circuit(t, *gens, sc.circuit, sc.publics, coms, sc.witness, blind, rng);
  return out;
}

sigma::VerifyResult verify_gaussian(const SamplerParams& p, std::size_t d,
                                    std::span<const std::uint64_t> ys,
                                    std::span<const Point> seed_commitments,
                                    const GaussianProof& proof) {
  return verify_gaussian_encoded(p, d, ys, seed_commitments, proof.sample_commitments, proof.proof.encode());
}

ProofCost measure_proof(const SamplerParams& p, std::size_t d, int reps, std::uint64_t seed) {
  DeterministicRng rng(seed);
  const std::size_t need = seeds_needed(p, d);
  std::vector<PrivateSeed> seeds;
  std::vector<Point> coms;
  std::vector<std::uint64_t> ys;
  for (std::size_t i = 0; i < need; ++i) {
    seeds.push_back(PrivateSeed::draw(p.m, rng));
    coms.push_back(seeds.back().commitment());
    ys.push_back(rng.next_u64() & ((std::uint64_t{1} << p.m) - 1U));
  }
  ProofCost c;
  c.d = d;
  c.verified = true;
  std::vector<double> tp, tv;
  const int runs = std::max(1, reps) + 2;  // first (timed apart), warm-up (untimed), reps
  for (int i = 0; i < runs; ++i) {
    std::vector<std::int64_t> samples;
    std::vector<SecretScalar> blinders;
    const auto t0 = std::chrono::steady_clock::now();
    GaussianProof pr = prove_gaussian(p, d, seeds, ys, samples, blinders, rng);
    const auto t1 = std::chrono::steady_clock::now();
    const bool ok = verify_gaussian(p, d, ys, coms, pr).ok();
    const auto t2 = std::chrono::steady_clock::now();
    c.verified = c.verified && ok;
    c.bytes = pr.size_bytes();
    const double prove_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (i == 0) c.first_prove_ms = prove_ms;
    if (i < 2) continue;
    tp.push_back(prove_ms);
    tv.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::sort(tp.begin(), tp.end());
  std::sort(tv.begin(), tv.end());
  c.prove_ms = tp[tp.size() / 2];
  c.verify_ms = tv[tv.size() / 2];
  return c;
}

namespace {

// The verifier's side of one claim: the recorded circuit (sizes and publics), the decoded proof,
// the commitments in binding order, and the transcript with the statement bound.
struct PreparedClaim {
  SigmaCircuit sc;
  std::optional<sigma::CircuitProof> proof;
  std::vector<Point> coms;
  Transcript t{"gopa"};
};

sigma::VerifyResult prepare_claim(const SamplerParams& p, std::size_t d, const GaussianClaim& c, PreparedClaim& out) {
  const std::size_t need = seeds_needed(p, d);
  if (c.ys.size() != need || c.seed_commitments.size() != need || c.sample_commitments.size() != d)
    return sigma::VerifyResult::fail(sigma::VerifyStatus::kBadStatement, "gaussian: wrong statement sizes");
  for (std::uint64_t y : c.ys)
    if (p.m < 64 && (y >> p.m) != 0)
      return sigma::VerifyResult::fail(sigma::VerifyStatus::kBadStatement, "gaussian: public randomness out of range");
  std::vector<i128> zeros(need, 0);
  auto rec = record(p, d, zeros, c.ys);
  std::vector<Scalar> publics;
  for (std::uint64_t y : c.ys) publics.push_back(Scalar::from_u64(y));
  out.sc = to_sigma(rec->circuit(), {}, publics);
  out.proof = sigma::CircuitProof::decode(c.proof, out.sc.circuit);
  if (!out.proof)
    return sigma::VerifyResult::fail(sigma::VerifyStatus::kMalformedProof, "gaussian: proof encoding is malformed");
  out.coms.assign(c.seed_commitments.begin(), c.seed_commitments.end());
  out.coms.insert(out.coms.end(), c.sample_commitments.begin(), c.sample_commitments.end());
  bind_statement(out.t, p, d, rec->circuit());
  return sigma::VerifyResult::valid();
}

}  // namespace

sigma::VerifyResult verify_gaussian_encoded(const SamplerParams& p, std::size_t d,
                                            std::span<const std::uint64_t> ys,
                                            std::span<const Point> seed_commitments,
                                            std::span<const Point> sample_commitments,
                                            std::span<const std::uint8_t> proof) {
  PreparedClaim pc;
  if (auto r = prepare_claim(p, d, {ys, seed_commitments, sample_commitments, proof}, pc); !r) return r;
  auto gens = gens_for(pc.sc.circuit);
  return sigma::verify_circuit(pc.t, *gens, pc.sc.circuit, pc.sc.publics, pc.coms, *pc.proof);
}

sigma::VerifyResult batch_verify_gaussian(const SamplerParams& p, std::size_t d, std::span<const GaussianClaim> claims,
                                          Rng& rng) {
  sigma::MsmTerms eq;
  std::shared_ptr<const GeneratorSet> gens;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    PreparedClaim pc;
    sigma::VerifyResult r = prepare_claim(p, d, claims[i], pc);
    if (r) {
      if (!gens) gens = gens_for(pc.sc.circuit);
      eq.set_weight(Scalar::random_nonzero(rng));
      r = sigma::add_circuit_terms(pc.t, *gens, pc.sc.circuit, pc.sc.publics, pc.coms, *pc.proof, eq);
    }
    if (!r) {
      r.message = "proof " + std::to_string(i) + ": " + r.message;
      return r;
    }
  }
  if (gens && !eq.is_identity(*gens))
    return sigma::VerifyResult::fail(sigma::VerifyStatus::kBatchEquation,
                                     "gaussian: batched final equation fails: at least one proof is invalid");
  return sigma::VerifyResult::valid();
}

}  // namespace gopa::circuits
