#include "gopa/circuits/sigma_adapter.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "gopa/bytes.hpp"
#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "gopa/parallel.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/transcript.hpp"

namespace gopa::circuits {
namespace {

// The proofs layer's byte order (docs/proofs.md: little-endian).
using Writer = ByteWriter<ByteOrder::little>;
using Reader = ByteReader<ByteOrder::little>;

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

namespace {

// ------------------------------------------------------------------ blocks

constexpr const char* kBlocksProtocol = "gopa/gaussian-sample-blocks v2";

// The partition of d samples into blocks of `block` (a multiple of samples_per_call).
struct Blocks {
  std::size_t d = 0, block = 0, count = 0;
  [[nodiscard]] std::size_t first(std::size_t k) const { return k * block; }
  [[nodiscard]] std::size_t len(std::size_t k) const { return std::min(block, d - k * block); }
  [[nodiscard]] std::size_t first_seed(const SamplerParams& p, std::size_t k) const {
    return k * block / p.samples_per_call() * p.seeds_per_call();
  }
};

// Empty when block is not acceptable for (p, d).
std::optional<Blocks> partition(const SamplerParams& p, std::size_t d, std::size_t block) {
  if (d == 0 || block == 0 || block > kMaxGaussianBlock || block % p.samples_per_call() != 0) return std::nullopt;
  Blocks b{d, block, (d + block - 1) / block};
  if (b.count > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return b;
}

// The circuit of one block of `len` samples, recorded once (seeds zero, y zero: the circuit does
// not depend on either; the prover checks that its own recording has the same id).
struct BlockCircuit {
  std::size_t len = 0;
  std::string name;
  Bytes32 id{};
  sigma::Circuit circuit;
};

std::shared_ptr<const BlockCircuit> make_block_circuit(const SamplerParams& p, std::size_t len) {
  const std::size_t need = seeds_needed(p, len);
  std::vector<i128> zeros(need, 0);
  std::vector<std::uint64_t> ys(need, 0);
  auto rec = record(p, len, zeros, ys);
  auto out = std::make_shared<BlockCircuit>();
  out->len = len;
  out->name = p.circuit_name(len);
  out->id = rec->circuit().id();
  out->circuit = to_sigma(rec->circuit(), {}, {}).circuit;
  out->circuit.seal();
  return out;
}

// At most two circuits per partition: the full block and a shorter last block.
struct BlockCircuits {
  std::shared_ptr<const BlockCircuit> full, last;
  [[nodiscard]] const BlockCircuit& of(const Blocks& b, std::size_t k) const {
    return b.len(k) == full->len ? *full : *last;
  }
};

// The blocks as proven: the full blocks in one batch, then the shorter last block (if any) in
// a batch of its own; at most two groups, each one circuit.
struct Group {
  std::size_t first = 0, count = 0;  // blocks [first, first + count)
  const BlockCircuit* circuit = nullptr;
};
std::vector<Group> groups_of(const Blocks& b, const BlockCircuits& bc) {
  std::vector<Group> out;
  for (const sigma::BlockBatch& g : sigma::block_batches(b.d, b.block))
    out.push_back({g.first, g.count, g.len == b.block ? bc.full.get() : bc.last.get()});
  return out;
}

// Circuits by length, shared by the claims of one call.
class CircuitCache {
 public:
  BlockCircuits get(const SamplerParams& p, const Blocks& b) {
    BlockCircuits out;
    out.full = one(p, b.len(0));
    out.last = one(p, b.len(b.count - 1));
    return out;
  }

 private:
  std::shared_ptr<const BlockCircuit> one(const SamplerParams& p, std::size_t len) {
    auto& slot = by_len_[len];
    if (!slot) slot = make_block_circuit(p, len);
    return slot;
  }
  std::map<std::size_t, std::shared_ptr<const BlockCircuit>> by_len_;
};

// The whole statement, bound once; each block's transcript is a clone of it.
Transcript statement_transcript(const SamplerParams& p, const Blocks& b, std::span<const std::uint64_t> ys,
                                std::span<const Point> seed_commitments, std::span<const Point> sample_commitments) {
  Transcript t("gopa");
  t.domain_separator(kBlocksProtocol);
  t.append_message("sampler", p.circuit_name(b.d));
  t.append_u64("d", b.d);
  t.append_u64("block", b.block);
  t.append_u64("blocks", b.count);
  std::vector<std::uint8_t> yb;
  yb.reserve(8 * ys.size());
  for (std::uint64_t y : ys) Writer(yb).u64(y);
  t.append_message("y", std::span<const std::uint8_t>(yb));
  t.append_points("seed-commitments", seed_commitments);
  t.append_points("sample-commitments", sample_commitments);
  return t;
}

Transcript group_transcript(const Transcript& statement, std::size_t g, const Group& grp) {
  Transcript t = statement.clone();
  t.append_u64("group", g);
  t.append_u64("first-block", grp.first);
  t.append_u64("group-blocks", grp.count);
  t.append_message("circuit-name", grp.circuit->name);
  t.append_message("circuit-id", std::span<const std::uint8_t>(grp.circuit->id));
  return t;
}

std::vector<Scalar> publics_of(std::span<const std::uint64_t> ys) {
  std::vector<Scalar> out;
  out.reserve(ys.size());
  for (std::uint64_t y : ys) out.push_back(Scalar::from_u64(y));
  return out;
}

// The public side of the instances of a group: each block's y's, and its seed commitments
// followed by its sample commitments.
void group_statement(const SamplerParams& p, const Blocks& b, const Group& grp, std::span<const std::uint64_t> ys,
                     std::span<const Point> seed_coms, std::span<const Point> sample_coms,
                     std::vector<std::vector<Scalar>>& publics, std::vector<std::vector<Point>>& coms) {
  publics.clear();
  coms.clear();
  for (std::size_t k = grp.first; k < grp.first + grp.count; ++k) {
    const std::size_t s0 = b.first_seed(p, k), ns = seeds_needed(p, b.len(k));
    publics.push_back(publics_of(ys.subspan(s0, ns)));
    std::vector<Point> c(seed_coms.begin() + static_cast<std::ptrdiff_t>(s0),
                         seed_coms.begin() + static_cast<std::ptrdiff_t>(s0 + ns));
    const auto samples = sample_coms.subspan(b.first(k), b.len(k));
    c.insert(c.end(), samples.begin(), samples.end());
    coms.push_back(std::move(c));
  }
}

// One block's witness: records the block's samples from its seeds (constant time in the seeds)
// and returns the recorder, whose committed outputs are the samples.
std::unique_ptr<Recorder> record_block(const SamplerParams& p, const Blocks& b, std::size_t k,
                                       std::span<const PrivateSeed> seeds, std::span<const std::uint64_t> ys,
                                       std::vector<std::int64_t>& samples) {
  const std::size_t s0 = b.first_seed(p, k), ns = seeds_needed(p, b.len(k));
  std::vector<i128> xs;
  xs.reserve(ns);
  for (std::size_t i = s0; i < s0 + ns; ++i) xs.push_back(static_cast<i128>(seeds[i].value()));
  auto rec = record(p, b.len(k), xs, ys.subspan(s0, ns), &samples);
  sodium_memzero(xs.data(), xs.size() * sizeof(i128));
  return rec;
}

// Block k's witness (the values of its non-public variables, in order), as record_block would
// record them, from the witness-only builder. The caller has recorded the block once and checked
// it; an honest prover's shadows are always exact, which this checks.
void block_witness(const SamplerParams& p, const Blocks& b, std::size_t k, std::span<const PrivateSeed> seeds,
                   std::span<const std::uint64_t> ys, std::vector<SecretScalar>& witness) {
  const std::size_t s0 = b.first_seed(p, k), ns = seeds_needed(p, b.len(k));
  std::vector<i128> xs, y;
  xs.reserve(ns);
  for (std::size_t i = s0; i < s0 + ns; ++i) xs.push_back(static_cast<i128>(seeds[i].value()));
  for (std::size_t i = s0; i < s0 + ns; ++i) y.push_back(static_cast<i128>(ys[i]));
  WitnessRecorder rec;
  (void)gaussian_circuit(rec, p, xs, y, b.len(k));
  sodium_memzero(xs.data(), xs.size() * sizeof(i128));
  std::uint8_t exact = rec.shadow_exact() ? 1 : 0;
  gopa_declassify(&exact, sizeof exact);
  GOPA_CHECK(exact == 1, "sampler witness left the exact range");
  const auto kinds = rec.kinds();
  for (std::size_t v = 0; v < kinds.size(); ++v)
    if (kinds[v] != VarKind::kPublic) witness.emplace_back(rec.values()[v]);
}

}  // namespace

std::vector<std::uint8_t> GaussianBlocks::encode() const {
  std::vector<std::uint8_t> out;
  Writer(out).u8(kGaussianBlocksVersion).u32(block).u32(count);
  for (const auto& g : groups) g.encode_body(out);
  return out;
}

std::size_t GaussianProof::size_bytes() const {
  return 32U * sample_commitments.size() + proof.encode().size();
}

GaussianProof prove_gaussian(const SamplerParams& p, std::size_t d,
                             std::span<const PrivateSeed> seeds, std::span<const std::uint64_t> ys,
                             std::vector<std::int64_t>& samples, std::vector<SecretScalar>& blinders,
                             Rng& rng, std::size_t block, unsigned threads) {
  const std::size_t need = seeds_needed(p, d);
  GOPA_CHECK(seeds.size() == need && ys.size() == need, "wrong number of seeds");
  const auto part = partition(p, d, block);
  GOPA_CHECK(part.has_value(), "d must be positive and the block a positive multiple of samples_per_call, at most kMaxGaussianBlock");
  const Blocks b = *part;
  CircuitCache cache;
  const BlockCircuits circuits = cache.get(p, b);
  const std::vector<Group> groups = groups_of(b, circuits);
  auto gens = gens_for(circuits.full->circuit);

  // Randomness first, in a fixed order, so that nothing depends on the thread count: the
  // sample blinders, then one 32-byte generator seed per group.
  blinders.clear();
  blinders.reserve(d);
  for (std::size_t j = 0; j < d; ++j) blinders.push_back(SecretScalar::random(rng));
  std::vector<std::array<std::uint8_t, 32>> group_seeds(groups.size());
  for (auto& s : group_seeds) rng.fill(s);

  // Pass 1: the samples and their commitments (the statement binds all of them). Recording
  // (hints included) is constant time in the seeds (recorder.hpp); the samples are the recorded
  // outputs, so no variable-time clear evaluation touches the secrets.
  GaussianProof out;
  out.sample_commitments.resize(d);
  samples.assign(d, 0);
  parallel_for(b.count, std::max(threads, 1U), [&](std::size_t k) {
    std::vector<std::int64_t> mine;
    auto rec = record_block(p, b, k, seeds, ys, mine);
    GOPA_CHECK(rec->circuit().id() == circuits.of(b, k).id, "the block circuit depends on its inputs");
    GOPA_CHECK(check_witness(rec->circuit(), rec->values()).ok(), "sampler witness does not satisfy its circuit");
    const auto outs = rec->circuit().vars_of(VarKind::kOutput);
    GOPA_CHECK(mine.size() == b.len(k) && outs.size() == b.len(k), "block sample count");
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const SecretScalar eta(rec->values()[outs[i]]);
      out.sample_commitments[b.first(k) + i] = commit(eta, blinders[b.first(k) + i], *gens);
      samples[b.first(k) + i] = mine[i];
    }
  });

  // Each group one batch proof (sigma::prove_circuit_batch), which records each of its blocks
  // again when it needs the block's witness: one block's witness per thread at a time.
  std::vector<Point> seed_coms;
  seed_coms.reserve(need);
  for (const PrivateSeed& s : seeds) seed_coms.push_back(s.commitment());
  std::vector<Point> sample_coms = out.sample_commitments;
  // Test-only deviation (gopa/deviation.hpp): the commitments the statement claims, seeds then
  // samples, bound by the statement and every batch; the batches themselves then see none.
  const testing::Deviation* dev = testing::deviation();
  std::optional<testing::Deviation> inner;
  std::optional<testing::ScopedDeviation> inner_scope;
  if (dev != nullptr && dev->on_statement) {
    std::vector<Point> claimed = seed_coms;
    claimed.insert(claimed.end(), sample_coms.begin(), sample_coms.end());
    dev->on_statement(claimed);
    std::copy_n(claimed.begin(), need, seed_coms.begin());
    std::copy(claimed.begin() + static_cast<std::ptrdiff_t>(need), claimed.end(), sample_coms.begin());
    inner.emplace(*dev);
    inner->on_statement = nullptr;
    inner_scope.emplace(*inner);
  }
  const Transcript statement = statement_transcript(p, b, ys, seed_coms, sample_coms);
  out.proof.block = static_cast<std::uint32_t>(b.block);
  out.proof.count = static_cast<std::uint32_t>(b.count);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Group& grp = groups[g];
    std::vector<std::vector<Scalar>> publics;
    std::vector<std::vector<Point>> coms;
    group_statement(p, b, grp, ys, seed_coms, sample_coms, publics, coms);
    const sigma::WitnessSource source = [&](std::size_t i, std::vector<SecretScalar>& witness,
                                            std::vector<SecretScalar>& blind) {
      const std::size_t k = grp.first + i;
      block_witness(p, b, k, seeds, ys, witness);
      const std::size_t s0 = b.first_seed(p, k), ns = seeds_needed(p, b.len(k));
      for (std::size_t j = s0; j < s0 + ns; ++j) blind.push_back(seeds[j].blinder().clone());
      for (std::size_t j = b.first(k); j < b.first(k) + b.len(k); ++j) blind.push_back(blinders[j].clone());
    };
    Transcript t = group_transcript(statement, g, grp);
    DeterministicRng grng(group_seeds[g]);
    sodium_memzero(group_seeds[g].data(), group_seeds[g].size());
    out.proof.groups.push_back(
        sigma::prove_circuit_batch(t, *gens, grp.circuit->circuit, publics, coms, source, grng, threads));
  }
  return out;
}

sigma::VerifyResult verify_gaussian(const SamplerParams& p, std::size_t d,
                                    std::span<const std::uint64_t> ys,
                                    std::span<const Point> seed_commitments,
                                    const GaussianProof& proof, unsigned threads) {
  return verify_gaussian_encoded(p, d, ys, seed_commitments, proof.sample_commitments, proof.proof.encode(),
                                 threads);
}

ProofCost measure_proof(const SamplerParams& p, std::size_t d, int reps, std::uint64_t seed, std::size_t block,
                        unsigned threads) {
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
    GaussianProof pr = prove_gaussian(p, d, seeds, ys, samples, blinders, rng, block, threads);
    const auto t1 = std::chrono::steady_clock::now();
    const bool ok = verify_gaussian(p, d, ys, coms, pr, threads).ok();
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

// The verifier's side of one claim: the partition read from the encoding, the block circuits,
// the groups, the statement transcript, and each group's proof bytes (decoded when checked).
struct PreparedClaim {
  Blocks b;
  BlockCircuits circuits;
  std::vector<Group> groups;
  std::optional<Transcript> statement;
  std::vector<std::span<const std::uint8_t>> bodies;
};

sigma::VerifyResult prepare_claim(const SamplerParams& p, std::size_t d, const GaussianClaim& c, CircuitCache& cache,
                                  PreparedClaim& out) {
  using sigma::VerifyResult;
  using sigma::VerifyStatus;
  const std::size_t need = seeds_needed(p, d);
  if (d == 0 || c.ys.size() != need || c.seed_commitments.size() != need || c.sample_commitments.size() != d)
    return VerifyResult::fail(VerifyStatus::kBadStatement, "gaussian: wrong statement sizes");
  for (std::uint64_t y : c.ys)
    if (p.m < 64 && (y >> p.m) != 0)
      return VerifyResult::fail(VerifyStatus::kBadStatement, "gaussian: public randomness out of range");
  Reader r(c.proof);
  const std::uint8_t version = r.u8();
  const std::uint32_t block = r.u32();
  const std::uint32_t count = r.u32();
  if (!r.ok() || version != kGaussianBlocksVersion)
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "gaussian: proof header is malformed");
  const auto part = partition(p, d, block);
  if (!part)
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "gaussian: block size not acceptable for the sampler");
  if (part->count != count)
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "gaussian: block count is not ceil(d / block)");
  out.b = *part;
  out.circuits = cache.get(p, out.b);
  out.groups = groups_of(out.b, out.circuits);
  out.bodies.clear();
  for (const Group& g : out.groups) {
    out.bodies.push_back(r.bytes(sigma::CircuitBatchProof::body_size(g.circuit->circuit, g.count)));
    if (!r.ok()) return VerifyResult::fail(VerifyStatus::kMalformedProof, "gaussian: proof is truncated");
  }
  if (!r.finish())
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "gaussian: trailing bytes after the last block");
  out.statement.emplace(statement_transcript(p, out.b, c.ys, c.seed_commitments, c.sample_commitments));
  return VerifyResult::valid();
}

// Group g of a prepared claim: its proof, publics, commitments and transcript; calls
// check(t, circuit, publics, coms, proof).
template <class Check>
sigma::VerifyResult with_group(const SamplerParams& p, const GaussianClaim& c, const PreparedClaim& pc, std::size_t g,
                               Check&& check) {
  const Group& grp = pc.groups[g];
  const std::string name = "blocks " + std::to_string(grp.first) + ".." + std::to_string(grp.first + grp.count - 1);
  auto proof = sigma::CircuitBatchProof::decode_body(pc.bodies[g], grp.circuit->circuit, grp.count);
  if (!proof)
    return sigma::VerifyResult::fail(sigma::VerifyStatus::kMalformedProof, "gaussian: " + name + ": encoding is malformed");
  std::vector<std::vector<Scalar>> publics;
  std::vector<std::vector<Point>> coms;
  group_statement(p, pc.b, grp, c.ys, c.seed_commitments, c.sample_commitments, publics, coms);
  Transcript t = group_transcript(*pc.statement, g, grp);
  sigma::VerifyResult r = check(t, grp.circuit->circuit, publics, coms, *proof);
  if (!r) r.message = name + ": " + r.message;
  return r;
}

using Publics = std::span<const std::vector<Scalar>>;
using Coms = std::span<const std::vector<Point>>;

}  // namespace

sigma::VerifyResult verify_gaussian_encoded(const SamplerParams& p, std::size_t d,
                                            std::span<const std::uint64_t> ys,
                                            std::span<const Point> seed_commitments,
                                            std::span<const Point> sample_commitments,
                                            std::span<const std::uint8_t> proof, unsigned threads) {
  const GaussianClaim c{ys, seed_commitments, sample_commitments, proof};
  CircuitCache cache;
  PreparedClaim pc;
  if (auto r = prepare_claim(p, d, c, cache, pc); !r) return r;
  auto gens = gens_for(pc.circuits.full->circuit);
  std::vector<sigma::VerifyResult> results(pc.groups.size());
  parallel_for(pc.groups.size(), std::max(threads, 1U), [&](std::size_t g) {
    results[g] = with_group(p, c, pc, g, [&](Transcript& t, const sigma::Circuit& circ, Publics publics, Coms coms,
                                             const sigma::CircuitBatchProof& pr) {
      return sigma::verify_circuit_batch(t, *gens, circ, publics, coms, pr);
    });
  });
  for (auto& r : results)
    if (!r) return std::move(r);
  return sigma::VerifyResult::valid();
}

sigma::VerifyResult batch_verify_gaussian(const SamplerParams& p, std::size_t d, std::span<const GaussianClaim> claims,
                                          Rng& rng, unsigned threads) {
  CircuitCache cache;
  std::vector<PreparedClaim> prepared(claims.size());
  std::size_t gens_needed = 0;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    sigma::VerifyResult r = prepare_claim(p, d, claims[i], cache, prepared[i]);
    if (!r) return sigma::of_proof(i, std::move(r));
    gens_needed = std::max(gens_needed, prepared[i].circuits.full->circuit.generators_needed());
  }
  if (claims.empty()) return sigma::VerifyResult::valid();
  auto gens = GeneratorSet::get("gopa", gens_needed);
  // Every (claim, group) with its weight, drawn in order; then their terms gathered on the threads.
  struct Job {
    std::size_t claim, group;
    Scalar weight;
  };
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < claims.size(); ++i)
    for (std::size_t g = 0; g < prepared[i].groups.size(); ++g) jobs.push_back({i, g, Scalar::random_nonzero(rng)});
  sigma::MsmTerms eq;
  std::vector<sigma::VerifyResult> results(jobs.size());
  sigma::gather_terms(jobs.size(), threads, eq, [&](std::size_t j, sigma::MsmTerms& terms) {
    const Job& job = jobs[j];
    results[j] = with_group(p, claims[job.claim], prepared[job.claim], job.group,
                            [&](Transcript& t, const sigma::Circuit& circ, Publics publics, Coms coms,
                                const sigma::CircuitBatchProof& pr) {
                              terms.set_weight(job.weight);
                              return sigma::add_circuit_batch_terms(t, *gens, circ, publics, coms, pr, terms);
                            });
    return results[j].ok();
  });
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (!results[j]) return sigma::of_proof(jobs[j].claim, std::move(results[j]));
  if (sigma::VerifyResult r = sigma::batch_verdict(eq, *gens); !r) {
    r.message = "gaussian: " + r.message;
    return r;
  }
  return sigma::VerifyResult::valid();
}

}  // namespace gopa::circuits
