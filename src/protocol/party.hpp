// Internal to gopa_protocol: one party's secrets and messages (Party), and the party as a state
// machine over the board (PartyRole), which both drivers run: run_session in lockstep, run_party
// by polling a shared board.
#pragma once

#include "cheats.hpp"
#include "run_internal.hpp"

namespace gopa::protocol::detail {

class Party {
 public:
  // A simulated party: its keys from key_seed, its random stream from seed (run_session).
  Party(std::uint32_t index, std::uint64_t key_seed, std::uint64_t seed, std::vector<std::uint64_t> input)
      : index_(index),
        sign_(SigningKey::from_seed(derive_key(key_seed, "gopa/sim/sign", index))),
        box_(BoxKey::from_seed(derive_key(key_seed, "gopa/sim/box", index))),
        rng_(std::make_unique<DeterministicRng>(derive_key(seed, "gopa/sim/rng", index))),
        input_(std::move(input)) {}
  // A party of its own process (run_party): every secret it draws comes from `secrets`, derived
  // from its key file, the board and the session (party_secrets), one stream per step (step()).
  Party(std::uint32_t index, const PartyKeys& keys, const Key32& secrets, std::vector<std::uint64_t> input)
      : index_(index),
        sign_(SigningKey::from_seed(keys.sign_seed)),
        box_(BoxKey::from_seed(keys.box_seed)),
        input_(std::move(input)),
        secrets_(secrets),
        derived_(true) {}
  ~Party() { sodium_memzero(secrets_.data(), secrets_.size()); }
  Party(const Party&) = delete;
  Party& operator=(const Party&) = delete;

  // Starts the random stream of one step of a party of its own process: a ChaCha20 stream keyed
  // by BLAKE2b(key = secrets, "gopa/party/step/v1" ‖ label ‖ i ‖ context), so the same step on
  // the same board state draws the same bytes after a restart, and distinct steps (each attempt
  // of the joint randomness, each edge) draw independent ones (docs/protocol.md § Restarts). The
  // simulation (run_session) keeps one stream from its seed and never calls this.
  void step(std::string_view label, std::uint32_t i, std::span<const std::uint8_t> context) {
    if (!derived_) return;
    Key32 seed = step_seed(label, i, context);
    rng_ = std::make_unique<DeterministicRng>(seed);
    sodium_memzero(seed.data(), seed.size());
  }
  // The seed of a step's stream (a party of its own process; the caller wipes it).
  [[nodiscard]] Key32 step_seed(std::string_view label, std::uint32_t i, std::span<const std::uint8_t> context) const {
    GOPA_CHECK(derived_, "a party of its own process derives its steps");
    static constexpr std::string_view kDomain = "gopa/party/step/v1";
    crypto_generichash_state st;
    crypto_generichash_init(&st, secrets_.data(), secrets_.size(), 32);
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
    const auto len = le_bytes(static_cast<std::uint32_t>(label.size()));
    crypto_generichash_update(&st, len.data(), len.size());
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
    const auto le = le_bytes(i);
    crypto_generichash_update(&st, le.data(), le.size());
    crypto_generichash_update(&st, context.data(), context.size());
    Key32 seed{};
    crypto_generichash_final(&st, seed.data(), seed.size());
    return seed;
  }
  // The step of round 6, bound to y, the input and the neighbours: the commitments' blinders and
  // proofs then follow from what they commit to, and a restart with another input draws others
  // (and is refused before it posts: run_party).
  void step_commitments(const Key32& y, const std::vector<std::uint32_t>& neighbours) {
    Bytes context;
    context.reserve(y.size() + 8 * input_.size() + 4 * neighbours.size());  // no reallocation: wiped once
    ByteWriter<ByteOrder::little> w(context);
    w.bytes(y);
    for (const std::uint64_t x : input_) w.u64(x);
    for (const std::uint32_t v : neighbours) w.u32(v);
    step("commitments", 0, context);
    sodium_memzero(context.data(), context.size());
  }
  // Threads for the blocks of this party's proofs (1: the calling thread only).
  void set_threads(unsigned threads) { threads_ = std::max(1U, threads); }
  // A restarted party numbers its entries after those it posted before (docs/board.md: one
  // entry per sequence number and sender).
  void resume_sequence(std::uint64_t next) { sequence_ = std::max(sequence_, next); }

  // TEST ONLY: the deviations of a cheating prover (cheats.hpp); none by default.
  void set_cheat(std::optional<CheatKind> kind) { cheat_ = &prover_cheat(kind); }

  RosterEntry roster_entry() const { return {sign_.public_key(), box_.public_key()}; }
  std::uint32_t index() const { return index_; }

  // A signed entry for this party (appended later, in a batch with the other parties').
  // Signs an entry built elsewhere with this party's key and its next sequence number.
  Bytes sign(Entry e) {
    e.sequence = sequence_++;
    return bulletin::sign_entry(e, sign_);
  }

  Bytes entry(const Bytes32& sid, std::uint32_t round, MessageType type, Bytes payload,
              const PublicKey& recipient = {}) {
    Entry e;
    e.session_id = sid;
    e.round = round;
    e.type = type;
    e.recipient = recipient;
    e.sequence = sequence_++;
    e.payload = std::move(payload);
    if (auto deviant = cheat_->sign(e, sign_)) return std::move(*deviant);
    return bulletin::sign_entry(e, sign_);
  }

  // The signed entries of one message: one entry, or its chunks when it is longer than an entry.
  std::vector<Bytes> entries(const Bytes32& sid, std::uint32_t round, MessageType type, Bytes payload,
                             const PublicKey& recipient = {}) {
    std::vector<Bytes> parts = chunk_payloads(std::move(payload));
    if (parts.size() > 1 && chunk_posts) chunk_posts(index_, type, round, parts);  // test only
    std::vector<Bytes> out;
    for (Bytes& part : parts) out.push_back(entry(sid, round, type, std::move(part), recipient));
    return out;
  }
  std::function<void(std::uint32_t, MessageType, std::uint32_t, std::vector<Bytes>&)> chunk_posts;

  SeedCommitMessage seed_commit(const Bytes32& sid, const SessionParams& p) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    rng_->fill(share_);
    SeedCommitMessage m;
    m.randomness_commitment = randomness_commitment(sid, 0, index_, share_);
    const unsigned bits = noise_sampler(p).m;
    const std::size_t count = noise_seed_count(p);
    for (std::size_t i = 0; i < count; ++i) {
      noise_seeds_.push_back(circuits::PrivateSeed::draw(bits, *rng_));
      m.seed_commitments.push_back(noise_seeds_.back().commitment());
    }
    return m;
  }
  // A restart of the joint randomness: a fresh share, committed to for `attempt` ≥ 1.
  SeedCommitMessage restart_commit(const Bytes32& sid, std::uint32_t attempt) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    rng_->fill(share_);
    SeedCommitMessage m;
    m.randomness_commitment = randomness_commitment(sid, attempt, index_, share_);
    return m;
  }
  const Key32& share() const { return share_; }

  Bytes seal_seed(const Bytes32& sid, std::uint32_t hi, const Key32& hi_box, const SessionParams& p) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    Seed32 seed{};
    rng_->fill(seed);
    keep_seed(sid, p, index_, hi, seed);
    Bytes sealed = seal_edge_seed(seed, sid, index_, hi, box_, hi_box, *rng_);
    EdgeSeedMessage m{index_, hi, seed_commitment_of(sid, p, index_, hi, seed), std::move(sealed)};
    sodium_memzero(seed.data(), seed.size());
    return m.encode();
  }

  // Opens the sealed seed of edge {m.lo, m.hi} from the other end (`other_box` its X25519 key):
  // in round 5 hi opens lo's box, and in a chain's later session either end opens the base's
  // (crypto_box's key is X25519 of one end's secret and the other's public key, so lo can open
  // what it sealed). The box and the commitment are bound to the chain's base id (the session's
  // own outside a chain). False when it does not open to the seed lo committed to (in round 5, a
  // bad-box complaint is due).
  bool take_seed(const Bytes32& sid, const EdgeSeedMessage& m, const Key32& other_box, const SessionParams& p) {
    const Bytes32 base = chain_base_id(p, sid);
    auto seed = open_edge_seed(m.sealed, base, m.lo, m.hi, box_, other_box);
    if (!seed || seed_commitment_of(base, p, m.lo, m.hi, *seed) != m.seed_commitment) return false;
    keep_seed(sid, p, m.lo, m.hi, *seed);
    sodium_memzero(seed->data(), seed->size());
    return true;
  }
  void drop_edge(std::uint32_t w) {
    edges_.erase(w);
    seeds_.erase(w);
  }
  const Seed32* seed_with(std::uint32_t w) const {
    auto it = seeds_.find(w);
    return it == seeds_.end() ? nullptr : &it->second;
  }
  bool has_edge(std::uint32_t w) const { return edges_.count(w) > 0; }

  // Hidden noise: this party's share (and blinder) of coordinate j, at the sampler's precision.
  void set_noise_share(std::uint32_t dim, std::uint32_t j, const Scalar& share, const Scalar& blinder) {
    noise_share_.resize(dim);
    noise_share_[j] = {share, blinder};
  }
  bool holds_noise_share() const {
    return std::any_of(noise_share_.begin(), noise_share_.end(), [](const auto& x) { return x.has_value(); });
  }
  NoiseShareMessage noise_share_message(std::uint32_t dim) const {
    NoiseShareMessage m;
    for (std::uint32_t j = 0; j < dim; ++j) {
      const bool has = j < noise_share_.size() && noise_share_[j];
      m.shares.push_back(has ? noise_share_[j]->first : Scalar::zero());
      m.blinders.push_back(has ? noise_share_[j]->second : Scalar::zero());
    }
    return m;
  }

  CommitMessage commitments(const Bytes32& sid, const SessionParams& p, const Key32& public_randomness) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    auto gens = domain_gens(p);
    CommitMessage m;
    std::vector<SecretScalar> values;
    std::vector<Point> honest_commitments;
    // A cheating prover's deviation (none for an honest party): x_0 committed and masked as
    // x_0 + shift, the shift in the witness, in the commitment given to the prover, or published.
    const DomainDeviation dd = cheat_->domain(p, input_);
    using Shift = DomainDeviation::Shift;
    input_shift_ = dd.where == Shift::none ? Scalar::zero() : dd.shift;
    for (std::uint32_t j = 0; j < p.dim; ++j) {
      const bool shifted = j == 0 && dd.where == Shift::witness;
      values.push_back(SecretScalar(input_scalar(p, input_[j]) + (shifted ? dd.shift : Scalar::zero())));
      input_blind_.push_back(SecretScalar::random(*rng_));
      honest_commitments.push_back(commit(values.back(), input_blind_.back(), *gens));
    }
    if (dd.where == Shift::commitment) honest_commitments[0] += gens->G() * dd.shift;
    if (p.input_domain == InputDomain::l2_ball) {
      m.domain_proof = ball_proof(sid, p, values, honest_commitments, *gens, dd);
      m.inputs = honest_commitments;
    } else {
      box_proof(sid, p, values, honest_commitments, *gens, dd, m);
    }
    if (dd.where == Shift::published) m.inputs[0] += gens->G() * dd.shift;

    for (const auto& [v, z] : edges_) {
      m.neighbours.push_back(v);
      m.edge_terms.push_back(edge_commitment(z, index_, v, *gens));
      if (const std::int64_t bias = cheat_->edge_bias(p); bias != 0 && !cancel_shift_) {
        cancel_shift_ = {v, bias};
        m.edge_terms.back() += gens->Gi(1)[0] * scalar_from_signed(bias);
      }
    }
    const std::int64_t scale = std::int64_t{1} << noise_shift(p);
    const Scalar scale_s = Scalar::from_u64(static_cast<std::uint64_t>(scale));
    if (p.noise == NoiseMode::hidden) {
      // A committee member's noise is its share of the hidden sample (its commitment is the
      // committee's); everyone else adds none (the identity).
      for (std::uint32_t j = 0; j < p.dim; ++j) {
        const bool has = j < noise_share_.size() && noise_share_[j];
        const Scalar offset = cheat_->hidden_noise_offset(j);
        const Scalar share = (has ? noise_share_[j]->first : Scalar::zero()) + offset;
        const Scalar blind = has ? noise_share_[j]->second : Scalar::zero();
        m.noise.push_back(has || !offset.is_zero() ? commit(SecretScalar(share), SecretScalar(blind), *gens)
                                                  : Point::identity());
        eta_.push_back(share * scale_s);
        eta_blind_.push_back(SecretScalar(blind * scale_s));
      }
      return m;
    }
    // η_j = Sampler(s_i), s_i = (x_i + y_i) mod 2^m: x_i committed in round 2, y_i from the joint
    // randomness; the proof shows the committed samples are the sampler's output on them.
    const auto sp = noise_sampler(p);
    const auto ys = noise_public_parts(p, public_randomness, index_);
    std::vector<std::int64_t> samples;
    std::vector<SecretScalar> blinders;
    const std::optional<NoiseProofDeviation> dev = cheat_->noise_proof(sp, noise_seeds_);
    std::optional<testing::ScopedDeviation> scope;
    if (dev) scope.emplace(dev->proof);
    auto noise = circuits::prove_gaussian(sp, p.dim, dev ? dev->seeds : noise_seeds_, ys, samples, blinders, *rng_,
                                          circuits::kDefaultGaussianBlock, threads_);
    scope.reset();
    m.noise = std::move(noise.sample_commitments);
    m.noise_proof = noise.proof.encode();
    if (const std::int64_t first = cheat_->first_sample(samples[0]); first != samples[0]) {
      samples[0] = first;  // committed in place of the sample, and X̂ kept consistent with it
      m.noise[0] = commit(SecretScalar(scalar_from_signed(samples[0])), blinders[0], *gens);
    }
    for (std::uint32_t j = 0; j < p.dim; ++j) {
      eta_.push_back(scalar_from_signed(samples[j] * scale));
      eta_blind_.push_back(blinders[j] * Scalar::from_u64(static_cast<std::uint64_t>(scale)));
    }
    sodium_memzero(samples.data(), samples.size() * sizeof(std::int64_t));
    return m;
  }

  // The box proof (x_j and M − x_j in [0, 2^b)) of the given commitments into m, with m.inputs;
  // a cheating prover's deviation applies to the first block.
  void box_proof(const Bytes32& sid, const SessionParams& p, const std::vector<SecretScalar>& values,
                 const std::vector<Point>& commitments, const GeneratorSet& gens, const DomainDeviation& dd,
                 CommitMessage& m) {
    const Transcript base = party_transcript(sid, index_, domain_statement(p));
    // The blocks are independent: proven on `threads_` threads, each from its own stream drawn
    // here in order, so the proof does not depend on the thread count.
    const std::uint32_t blocks = box_blocks(p);
    std::vector<Key32> streams(blocks);
    for (auto& k : streams) rng_->fill(k);
    std::vector<std::optional<sigma::RangeProof>> proofs(blocks);
    const testing::Deviation* outer = testing::deviation();
    parallel_for(blocks, [&](std::size_t b) {
      const auto [lo, hi] = box_block_range(p, static_cast<std::uint32_t>(b));
      const std::size_t n = hi - lo;
      // Witness of the block: x_j and M − x_j, blinders r_j and −r_j.
      std::vector<SecretScalar> dvalues, dblind;
      for (std::size_t j = lo; j < hi; ++j) dvalues.push_back(values[j].clone());
      for (std::size_t j = lo; j < hi; ++j) dvalues.push_back(SecretScalar(Scalar::from_u64(p.input_max)) - values[j]);
      for (std::size_t j = lo; j < hi; ++j) dblind.push_back(input_blind_[j].clone());
      for (std::size_t j = lo; j < hi; ++j) dblind.push_back(-input_blind_[j]);
      Transcript t = box_block_transcript(base, blocks, b);
      DeterministicRng rng(streams[b]);
      const auto statement = input_domain_statement(p, std::span<const Point>(commitments).subspan(lo, n), gens);
      const bool deviates = b == 0 && dd.proof.has_value();
      if (b == 0) dvalues[n] += SecretScalar(dd.twin);
      std::optional<testing::ScopedDeviation> scope;
      if (deviates) scope.emplace(*dd.proof);
      else if (outer != nullptr) scope.emplace(*outer);
      proofs[b] = sigma::prove_range(t, gens, p.input_bits, statement, dvalues, dblind, rng);
    }, threads_);
    for (auto& k : streams) sodium_memzero(k.data(), k.size());
    for (const auto& proof : proofs) {
      GOPA_CHECK(proof.has_value(), "inputs are in the domain [0, M]");
      const auto bytes = proof->encode();
      m.domain_proof.insert(m.domain_proof.end(), bytes.begin(), bytes.end());
    }
    m.inputs = commitments;
  }

  // The ball proof (‖x‖₂ ≤ C) for the given commitments; a cheating prover's deviation is
  // installed while proving.
  Bytes ball_proof(const Bytes32& sid, const SessionParams& p, const std::vector<SecretScalar>& values,
                   const std::vector<Point>& commitments, const GeneratorSet& gens, const DomainDeviation& dd) {
    Transcript t = party_transcript(sid, index_, domain_statement(p));
    std::optional<testing::ScopedDeviation> scope;
    if (dd.proof) scope.emplace(*dd.proof);
    // One circuit up to kMaxBallDim coordinates, the blocked proof (on threads_) beyond.
    if (p.dim <= sigma::kMaxBallDim) {
      auto proof = sigma::prove_ball(t, gens, p.input_bits, p.input_max, commitments, values, input_blind_, *rng_);
      GOPA_CHECK(proof.has_value(), "inputs are in the L2 ball of radius C");
      return proof->encode();
    }
    auto proof = sigma::prove_ball_blocked(t, gens, p.input_bits, p.input_max, commitments, values, input_blind_,
                                           *rng_, threads_);
    GOPA_CHECK(proof.has_value(), "inputs are in the L2 ball of radius C");
    return proof->encode();
  }

  MaskedMessage masked(const Bytes32& sid, const SessionParams& p, const CommitMessage& mine) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    auto gens = domain_gens(p);
    MaskedMessage m;
    // Δ_u[j] = Σ_v Δ_uv[j] and R = Σ_v r_uv (the pairwise vector commitments' openings), and
    // ρ_j = r_x[j] + 2^s·r_η[j].
    std::vector<std::int64_t> delta(p.dim, 0);
    SecretScalar pairwise_blind;
    for (const auto& [v, z] : edges_) {
      const auto d = terms_for(z, index_, v);
      for (std::uint32_t j = 0; j < p.dim; ++j) delta[j] += d[j];
      if (index_ < v) pairwise_blind += z.blind;
      else pairwise_blind -= z.blind;
    }
    if (cancel_shift_) delta[0] += cancel_shift_->second;
    std::vector<SecretScalar> delta_s, blind;
    delta_s.reserve(p.dim);
    blind.reserve(p.dim);
    for (std::uint32_t j = 0; j < p.dim; ++j) {
      delta_s.emplace_back(scalar_from_signed(delta[j]));
      Scalar x = input_scalar(p, input_[j]) + eta_[j] + delta_s.back().declassify();
      if (j == 0) x += input_shift_;
      m.xhat.push_back(x);
      blind.push_back(input_blind_[j] + eta_blind_[j]);
    }
    sodium_memzero(delta.data(), delta.size() * sizeof(delta[0]));
    const std::vector<Point> combined = combined_commitments(mine, p);
    Transcript t = party_transcript(sid, index_, "output");
    m.proof = prove_output(t, *gens, OutputStatement{pairwise_sum(mine), combined, m.xhat}, delta_s, pairwise_blind,
                           blind, *rng_);
    cheat_->masked(m);
    return m;
  }

 private:
  // The seed's commitment: a hash of the seed, or for a chain the root of its round keys.
  static Key32 seed_commitment_of(const Bytes32& base, const SessionParams& p, std::uint32_t lo, std::uint32_t hi,
                                  const Seed32& seed) {
    return p.chained() ? edge_key_root(seed, base, lo, hi, p.chain_rounds) : edge_seed_commitment(base, lo, hi, seed);
  }
  // Keeps the seed of edge {lo, hi} and derives this session's terms from it (from the round key
  // in a chain: edge_secret).
  void keep_seed(const Bytes32& sid, const SessionParams& p, std::uint32_t lo, std::uint32_t hi, const Seed32& seed) {
    const std::uint32_t w = lo == index_ ? hi : lo;
    Key32 secret = edge_secret(p, sid, lo, hi, seed);
    edges_.insert_or_assign(w, derive_edge_noise(secret, sid, lo, hi, p));
    sodium_memzero(secret.data(), secret.size());
    seeds_[w] = seed;
  }

  std::uint32_t index_;
  SigningKey sign_;
  BoxKey box_;
  std::unique_ptr<DeterministicRng> rng_;
  std::vector<std::uint64_t> input_;
  std::uint64_t sequence_ = 0;
  Key32 share_{};
  std::vector<circuits::PrivateSeed> noise_seeds_;
  std::map<std::uint32_t, EdgeNoise> edges_;
  std::map<std::uint32_t, Seed32> seeds_;
  std::vector<SecretScalar> input_blind_;
  std::vector<Scalar> eta_;
  std::vector<SecretScalar> eta_blind_;
  std::vector<std::optional<std::pair<Scalar, Scalar>>> noise_share_;
  Scalar input_shift_;
  std::optional<std::pair<std::uint32_t, std::int64_t>> cancel_shift_;
  const ProverCheat* cheat_ = &prover_cheat(std::nullopt);
  Key32 secrets_{};
  bool derived_ = false;
  unsigned threads_ = 1;
};

// One message a role posts: its round, type, payload (whole: the driver cuts it into chunks) and
// recipient (zero: everyone).
struct Outgoing {
  std::uint32_t round = 0;
  MessageType type{};
  Bytes payload;
  PublicKey to{};
};

// What the roles of one process derive alike, held once for all of them: the setup, and once
// the joint randomness is fixed, y and the graph.
class SessionShared {
 public:
  explicit SessionShared(SetupMessage setup) : setup_(std::move(setup)), sid_(setup_.params.session_id()) {}
  [[nodiscard]] const SetupMessage& setup() const { return setup_; }
  [[nodiscard]] const Bytes32& sid() const { return sid_; }
  struct Fixed {
    Key32 y{};
    Graph graph;
  };
  // y and the graph from a view in which the randomness is fixed (the first caller computes them).
  const Fixed& fixed(const View& v) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!fixed_) {
      const Key32 y = view_randomness(v);
      fixed_ = Fixed{y, session_graph(v)};
    }
    return *fixed_;
  }

 private:
  SetupMessage setup_;
  Bytes32 sid_{};
  std::mutex mu_;
  std::optional<Fixed> fixed_;
};

// The verdict over one view, computed at most once whoever asks (a role, a driver).
class Judged {
 public:
  Judged(const View& v, ProofCache* cache) : v_(v), cache_(cache) {}
  const Verdict& of(const Graph& g) {
    if (!verdict_) verdict_ = judge(v_, g, cache_);
    return *verdict_;
  }

 private:
  const View& v_;
  ProofCache* cache_;
  std::optional<Verdict> verdict_;
};

// TEST ONLY: how a party deviates, injected from outside its round logic. Message-level
// deviations are played here by PartyRole (and by the drivers: `replay` copies another party's
// masked value); the prover's cheats (range, forge, seed, cancel, noise, output, and the wrong
// key of `signature`) by the ProverCheat the party's prover consults (cheats.hpp).
struct Deviation {
  std::optional<CheatKind> cheat;
  bool dropout = false;                           // posts nothing from the commitments on
  std::optional<std::uint32_t> withhold_attempt;  // `withhold`: keeps back its reveal in this attempt
};

// One party as a state machine over the board. act(r, v) returns the messages the party posts in
// round r, given a view of the board in which every round before r (in the board's close order,
// View::close_order) is closed. The drivers call it once per round in that order; a restarted
// party process calls it again from the first round (every secret is re-derived, and what is on
// the board already is not posted twice).
class PartyRole {
 public:
  PartyRole(std::unique_ptr<Party> party, std::shared_ptr<SessionShared> shared, Deviation deviation = {});

  struct Act {
    std::vector<Outgoing> posts;
    std::string stop;  // non-empty: the party posts nothing more in this session (why)
  };
  [[nodiscard]] Act act(std::uint32_t round, const View& v, Judged& judged);
  // The heavy work of a round, which may run for several parties at once (round 6: the proofs);
  // act then only encodes. act does it itself when prepare was not called.
  void prepare(std::uint32_t round, const View& v);
  // Before round 6: drops the edges the graph left out and, in a chain's later session, takes the
  // others' seeds from the base's sealed seeds (once; prepare calls it too). A driver that
  // proves several parties on worker threads calls it on its own thread first, so the parties'
  // long-lived pairwise terms are not allocated between the provers' scratch buffers.
  void settle_edges(const View& v);

  // Before round 9: whether a masked value may still be in flight (some party that committed has
  // none on the board, and the result is not withheld). A party process then reads the board
  // again min_round_ms after round 8 closed.
  [[nodiscard]] bool awaits_late_masked(const View& v, Judged& judged);
  // A restarted party that posted its masked value before decided then; it does not decide again.
  void masked_already_posted() { masked_posted_ = true; }

  // A deviation drawn after the session began (a committee member's, once the committee is drawn).
  void inject(CheatKind k) {
    dev_.cheat = k;
    me_->set_cheat(k);
  }

  Party& party() { return *me_; }
  const Deviation& deviation() const { return dev_; }
  [[nodiscard]] const CommitMessage* commitment() const { return mine_ ? &*mine_ : nullptr; }
  [[nodiscard]] bool stopped() const { return !stopped_.empty(); }
  [[nodiscard]] const Graph* graph() const { return fixed_ ? &fixed_->graph : nullptr; }

 private:
  std::vector<Outgoing> reveal(std::uint32_t w, std::uint32_t round);
  std::string fix_randomness(const View& v);

  std::unique_ptr<Party> me_;
  std::shared_ptr<SessionShared> shared_;
  Deviation dev_;
  std::uint32_t u_;
  std::set<std::uint32_t> committed_in_;  // randomness attempts this party committed in
  const SessionShared::Fixed* fixed_ = nullptr;
  std::optional<CommitMessage> mine_;
  std::set<Edge> revealed_;
  bool masked_posted_ = false;
  std::string stopped_;
  bool edges_settled_ = false;
};

// The committee member in its own process (round 11, hidden noise): every call of the session's
// hidden noise with this party's own Paillier key and shares (sampling::HiddenMember). Its
// messages are posted as committee entries and the others' read from the board as they arrive.
// A member whose message does not come within `wait_ms` is named missing by the others, who
// restart without it; the round's close ends the reading (what comes after it counts for no
// reader). On success the party holds its shares of every coordinate.
struct CommitteeIo {
  ViewReader* reader = nullptr;  // the member's reader of the session, updated as it waits
  bulletin::Board* board = nullptr;
  std::function<bulletin::Status(std::uint32_t call, std::uint32_t attempt, const sampling::HiddenMessage&)> post;
  std::uint32_t poll_ms = 50;
  std::uint64_t wait_ms = 60'000;
  std::vector<sampling::Cheat> cheats;  // TEST ONLY: this member's deviations (its own index)
};
// Empty when the party took part to the end (or is not a member); otherwise why it stopped.
bulletin::Result<std::string> run_committee_member(Party& party, const View& v, const CommitteeIo& io);

}  // namespace gopa::protocol::detail
