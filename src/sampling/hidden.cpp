// Hidden Box–Muller samples by a committee with committed additive shares
// (include/gopa/sampling.hpp, docs/sampling.md).
//
// One class, Committee, plays both roles. In the simulation it holds every member's secrets and
// the members write their messages to the public log (sampling/log.hpp); in both the simulation
// and verify_hidden_log, every public check reads those messages back from the log and uses
// nothing else. The verifier is the same code without the members, so it reaches exactly the
// simulation's verdict.
#include <algorithm>
#include <deque>
#include <array>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include "box_muller_shares.hpp"
#include "engines.hpp"
#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "gopa/msm.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sampling.hpp"
#include "gopa/sampling/enc_proofs.hpp"
#include "gopa/sampling/key_proofs.hpp"
#include "gopa/sampling/paillier.hpp"
#include "gopa/sampling/paillier_proofs.hpp"
#include "gopa/sigma/range.hpp"
#include "gopa/transcript.hpp"
#include "modarith.hpp"
#include "rp_exp.hpp"
#include "wire.hpp"

namespace gopa::sampling {
namespace {

using detail::p2;
__extension__ typedef unsigned __int128 u128;

// Paillier reply masks: they must hide a·b for every plaintext the ciphertext proof admits,
// |a| < 2^373 (EncProofParams::kBoundBits), times b < 2^253, with 40 bits of statistical hiding.
constexpr unsigned kMaskBits = EncProofParams::kBoundBits + EncProofParams::kPlainBits + 40;
constexpr std::size_t kMaskBytes = (kMaskBits + 7) / 8;  // 84: a revealed mask
// Paillier slot width: the receiver decrypts the sum of its (at most 31) replies, so each slot
// holds a sum of at most 31 terms a_i·b_j + r_ij < 2^(kMaskBits + 1): below 2^(kMaskBits + 6).
constexpr unsigned kSlotBits = kMaskBits + 6;
constexpr unsigned kMinPaillierBits = kSlotBits + 2;
constexpr unsigned kMaxPaillierBits = 4096;  // keeps every message below kMaxHiddenPayload
constexpr std::size_t kMaxMembers = 32;
constexpr std::size_t kAlphaBytes = PaillierKey::kAlphaBits / 8;  // α and β: 32 bytes
constexpr std::size_t kOpeningBytes = 2 * Scalar::kBytes;         // share ‖ blinder
constexpr char kGens[] = "gopa";
// A member's mask values are proven in range by proofs of at most this many values each (a
// power of two: the prover's cost jumps just above one).
constexpr std::size_t kMaskProofValues = 128;
static_assert(kSlotBits >= kMaskBits + 6, "31 summed replies never carry into the next slot");

Scalar scalar_of(i128 v) {
  const bool neg = v < 0;
  const u128 a = neg ? static_cast<u128>(-(v + 1)) + 1 : static_cast<u128>(v);
  const Scalar two64 = Scalar::from_u64(1ULL << 32) * Scalar::from_u64(1ULL << 32);
  Scalar s = Scalar::from_u64(static_cast<std::uint64_t>(a)) +
             Scalar::from_u64(static_cast<std::uint64_t>(a >> 64)) * two64;
  return neg ? -s : s;
}

// A public scalar as a signed integer (values above ℓ/2 are negative); |v| < 2^126.
i128 signed_of(const Scalar& s) {
  BigInt v = BigInt::from_scalar(s);
  static const BigInt half = [] {
    BigInt h;
    mpz_set_str(h.get(), "3618502788666131106986593281521497120428558179689953803000975469142727125494", 10);
    return h;
  }();
  const bool neg = mpz_cmp(v.get(), half.get()) > 0;
  if (neg) v = BigInt::from_scalar(-s);
  GOPA_CHECK(v.bits() < 126, "revealed value fits 126 bits");
  u128 a = 0;
  auto bytes = v.to_bytes(16);
  for (std::uint8_t b : bytes) a = (a << 8) | b;
  const auto r = static_cast<i128>(a);
  return neg ? -r : r;
}

// An abort of the attempt: the member named, or (blame empty) why nobody can be named.
struct Fault {
  std::optional<Blame> blame;
  std::string why;
};

[[noreturn]] void fault(std::size_t member, Step step, std::string why) {
  throw Fault{Blame{member, step, std::move(why)}, {}};
}
[[noreturn]] void fault_missing(std::size_t member, Step step, std::string why) {
  throw Fault{Blame{member, step, std::move(why), true}, {}};
}
[[noreturn]] void fault_unnamed(std::string why) { throw Fault{std::nullopt, std::move(why)}; }

std::string who(std::size_t id) { return "member " + std::to_string(id); }

// CPU time of the calling thread: the committee is simulated in one thread, so this is the sum
// of the members' computing time, unaffected by other load on the machine.
struct Clock {
  using time_point = double;
  static double now() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
};
double since(double t0) { return Clock::now() - t0; }

// Accumulates the verification time (every member repeats it).
class VerifyTimer {
 public:
  explicit VerifyTimer(double& acc) : acc_(acc), t0_(Clock::now()) {}
  ~VerifyTimer() { acc_ += since(t0_); }
  VerifyTimer(const VerifyTimer&) = delete;
  VerifyTimer& operator=(const VerifyTimer&) = delete;

 private:
  double& acc_;
  Clock::time_point t0_;
};

// ---------------------------------------------------------------- the public log
// The simulation appends to *out and reads back what it wrote; the verifier reads `in`; a member
// of its own process (HiddenMember) posts through its MemberIo and reads the log as the io
// fetches it, waiting for a message that is not there yet (a member whose message does not come
// before the io gives up is named as missing). Member
// k's messages are read by (member, sequence number) in protocol order, wherever they stand in
// the log: member k's message #s is the first message of the log from k with sequence number s,
// and must have the expected kind; its encoding is then bound into the Fiat–Shamir transcript
// in protocol order. A message cannot make another member blamed: what stands out of place (a
// non-member's message, a second message under a taken sequence number, a message posted
// before one that precedes it in protocol order, a message left over after the end of a
// successful attempt) only names its own sender as misplaced (docs/sampling.md, "Reading and
// blame").
class Board {
 public:
  Board(const HiddenParams& p, const std::vector<std::size_t>& ids, std::vector<HiddenMessage>* out,
        std::span<const HiddenMessage> in, const MemberIo* io = nullptr)
      : ids_(ids), out_(out), in_(in), io_(io), posted_(ids.size(), 0), next_(ids.size(), 0),
        t_("gopa/hidden-sample v1") {
    t_.domain_separator("gopa/hidden/box-muller v5");
    t_.append_message("params", p.name());
    for (std::size_t id : ids_) t_.append_u64("member", id);
  }

  // Member k publishes a message (the simulation's members, or a member through its io).
  void post(std::size_t k, HiddenKind kind, std::vector<std::uint8_t> payload) {
    GOPA_CHECK(out_ != nullptr || io_ != nullptr, "only members post");
    GOPA_CHECK(payload.size() <= kMaxHiddenPayload, "a message fits one board entry");
    HiddenMessage m{static_cast<std::uint32_t>(ids_[k]), kind, posted_[k]++, std::move(payload)};
    if (io_ != nullptr) {
      io_->post(m);
      return;
    }
    out_->push_back(std::move(m));
  }

  // A list of fixed-size items, split into as few messages as kMaxHiddenPayload allows.
  void post_list(std::size_t k, HiddenKind kind, const std::vector<std::uint8_t>& items,
                 std::size_t item) {
    const std::size_t cap = kMaxHiddenPayload / item * item;
    for (std::size_t pos = 0; pos < items.size(); pos += cap) {
      const std::size_t end = std::min(items.size(), pos + cap);
      post(k, kind, std::vector<std::uint8_t>(items.begin() + static_cast<std::ptrdiff_t>(pos),
                                              items.begin() + static_cast<std::ptrdiff_t>(end)));
    }
  }

  // Member k's next message, which must be of this kind (a fault names k with `step`).
  const std::vector<std::uint8_t>& take(std::size_t k, HiddenKind kind, Step step) {
    index();
    const std::string expected = std::string(hidden_kind_name(kind)) + " message #" +
                                 std::to_string(next_[k]);
    auto it = at_.find({static_cast<std::uint32_t>(ids_[k]), next_[k]});
    // A member of its own process waits for the message as long as its io fetches more.
    while (it == at_.end() && fetch()) {
      index();
      it = at_.find({static_cast<std::uint32_t>(ids_[k]), next_[k]});
    }
    if (it == at_.end())
      fault_missing(ids_[k], step, who(ids_[k]) + ": its " + expected + " is missing");
    const std::size_t i = it->second;
    const HiddenMessage& m = msg(i);
    if (m.kind != kind)
      fault(ids_[k], step,
            who(ids_[k]) + ": message #" + std::to_string(m.seq) + " (" + hidden_kind_name(m.kind) +
                ") at log position " + std::to_string(i) + " where its " + expected +
                " was expected");
    // Posted before a message of an earlier phase, which its sender had to read first: out of
    // turn (still read). Within a phase the members post in any order.
    if (i < phase_end_)
      misplace(m, "message #" + std::to_string(m.seq) + " (" + hidden_kind_name(m.kind) +
                      ") at log position " + std::to_string(i) +
                      " was posted out of turn, before a message of an earlier phase that precedes it");
    end_ = std::max(end_, i + 1);
    taken_[i] = true;
    ++read_;
    ++next_[k];
    bytes_ += m.encoded_size();
    t_.append_message("message", m.encode());
    return m.payload;
  }

  // The concatenated payloads of a list of n items posted with post_list.
  std::vector<std::uint8_t> take_list(std::size_t k, HiddenKind kind, Step step, std::size_t n,
                                      std::size_t item) {
    const std::size_t total = n * item;
    const std::size_t cap = kMaxHiddenPayload / item * item;
    std::vector<std::uint8_t> out;
    out.reserve(total);
    while (out.size() < total) {
      const auto& pl = take(k, kind, step);
      if (pl.size() != std::min(cap, total - out.size()))
        fault(ids_[k], step,
              who(ids_[k]) + ": malformed " + hidden_kind_name(kind) + " message (length " +
                  std::to_string(pl.size()) + ")");
      out.insert(out.end(), pl.begin(), pl.end());
    }
    return out;
  }

  // A new phase of the protocol: the members post what depends on every message read so far.
  void phase() noexcept { phase_end_ = end_; }

  // After the last message of a successful attempt: every message of a member not read is
  // surplus and names its sender.
  void finish() {
    index();
    for (const auto& [key, i] : at_)
      if (!taken_[i])
        misplace(msg(i), "extra message #" + std::to_string(msg(i).seq) + " (" +
                             hidden_kind_name(msg(i).kind) + ") after the end of the protocol");
  }

  Transcript& transcript() noexcept { return t_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::size_t read() const noexcept { return read_; }
  [[nodiscard]] const std::vector<Misplaced>& misplaced() const noexcept { return misplaced_; }

 private:
  // The log as this reader has it: position i, and how many positions there are. A member's
  // fetched log is a deque, so a payload taken stays where it is while more is fetched.
  const HiddenMessage& msg(std::size_t i) const {
    if (io_ != nullptr) return fetched_[i];
    return out_ != nullptr ? (*out_)[i] : in_[i];
  }
  std::size_t log_size() const {
    if (io_ != nullptr) return fetched_.size();
    return out_ != nullptr ? out_->size() : in_.size();
  }
  // A member: more of the log from its io (false: nothing more came in time).
  bool fetch() {
    if (io_ == nullptr) return false;
    std::vector<HiddenMessage> more;
    if (!io_->fetch(fetched_.size(), more) || more.empty()) return false;
    for (auto& m : more) fetched_.push_back(std::move(m));
    return true;
  }

  // Indexes the messages appended since the last call: a member's first message under each
  // sequence number; a non-member's message, or a member's second one under the same number,
  // names its sender.
  void index() {
    for (; indexed_ < log_size(); ++indexed_) {
      const HiddenMessage& m = msg(indexed_);
      taken_.push_back(false);
      if (std::find(ids_.begin(), ids_.end(), std::size_t{m.member}) == ids_.end()) {
        misplace(m, "message #" + std::to_string(m.seq) + " (" + hidden_kind_name(m.kind) +
                        ") at log position " + std::to_string(indexed_) +
                        " from a party that is not a member of this attempt");
      } else if (!at_.try_emplace({m.member, m.seq}, indexed_).second) {
        misplace(m, "message #" + std::to_string(m.seq) + " (" + hidden_kind_name(m.kind) +
                        ") at log position " + std::to_string(indexed_) +
                        " repeats a sequence number already used (ignored)");
      }
    }
  }

  void misplace(const HiddenMessage& m, std::string why) {
    misplaced_.push_back(Misplaced{m.member, "party " + std::to_string(m.member) + ": " + std::move(why)});
  }

  const std::vector<std::size_t>& ids_;
  std::vector<HiddenMessage>* out_;
  std::span<const HiddenMessage> in_;
  const MemberIo* io_;
  std::deque<HiddenMessage> fetched_;  // a member: the log as its io fetched it
  std::vector<std::uint32_t> posted_, next_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> at_;  // (member, seq) → position
  std::vector<bool> taken_;     // per indexed position: read
  std::vector<Misplaced> misplaced_;
  std::size_t indexed_ = 0;     // positions indexed so far
  std::size_t end_ = 0;         // one past the furthest position read so far
  std::size_t phase_end_ = 0;   // end_ when the current phase began
  std::size_t read_ = 0;
  std::size_t bytes_ = 0;
  Transcript t_;
};

// A group of K triples packed in the same Paillier replies: the public parts, read from the log.
struct Group {
  std::size_t first = 0, count = 0;                // triples first .. first + count − 1
  std::vector<std::vector<BigInt>> ct;             // [slot][i]: Enc_i(a_i·2^(slot·W))
  std::vector<std::vector<RpMultiProof>> proof;    // [slot][i]: ct encrypts the committed a_i
  std::vector<std::vector<BigInt>> e;              // [slot][i]: the proof's challenge
  std::vector<std::vector<BigInt>> reply;          // [i][j]: from replier j to i
};

// Simulation only: the members' generation randomness of a group, revealed only if one of the
// group's triples fails its sacrifice check.
struct GroupSecrets {
  std::vector<std::vector<BigInt>> alpha;               // [slot][i]
  std::vector<std::vector<BigInt>> beta;                // [i][j]: j's reply randomness to i
  std::vector<std::vector<std::vector<BigInt>>> r;      // [slot][i][j]: j's mask for i
};

// A group's generation as revealed on the log.
struct Revealed {
  std::vector<std::vector<Scalar>> a, ra, b, rb, c, rc;  // [slot][i]
  std::vector<std::vector<BigInt>> alpha;                // [slot][i]
  std::vector<std::vector<BigInt>> beta;                 // [i][j]
  std::vector<std::vector<std::vector<BigInt>>> r;       // [slot][i][j]
};

struct Mask {
  std::uint32_t low = 0;                // R' (masked-sum truncations only)
  std::array<std::uint32_t, 3> limb{};  // R'' = l0 + 2^32·l1 + 2^64·l2
  bool exact = false;
  unsigned s = 0;
};

struct DryRun {
  std::uint64_t muls = 0;
  std::vector<std::pair<bool, unsigned>> truncs;
  std::size_t bits = 0;
};

}  // namespace

// Simulation: the ring-Pedersen tables of the members' proven parameters (public data), kept by a
// HiddenCommittee for all its attempts: the provers' fixed-base tables of s_j, t_j and each
// member's own check, by original index, with the parameters they were built for.
struct detail::RpTableCache {
  struct Entry {
    RingPedersen rp;
    std::shared_ptr<const FixedBaseSec> s, t;
    std::shared_ptr<const RpOwnerCheck> own;
  };
  std::map<std::size_t, Entry> by_member;
};

namespace {

class Committee {
 public:
  using Val = std::uint32_t;

  // The simulation: every member's secrets; the members write `log`.
  // `proven`: the keys of an earlier key round (null: this attempt opens with its own).
  Committee(const HiddenParams& p, std::vector<std::size_t> ids,
            std::vector<const PaillierKey*> keys, const HiddenKeySet* proven,
            const std::vector<Cheat>& cheats, Rng& rng, bool trace, std::vector<HiddenMessage>& log,
            detail::RpTableCache* tables = nullptr)
      : p_(p), ids_(std::move(ids)), c_(ids_.size()), sim_(true), keys_(std::move(keys)),
        proven_(proven), tables_(tables), rng_(rng), trace_(trace), board_(p_, ids_, &log, {}),
        gens_(GeneratorSet::get(kGens, 1)) {
    for (const auto& ch : cheats)
      for (std::size_t k = 0; k < c_; ++k)
        if (ids_[k] == ch.member) cheats_.push_back({k, ch.step, ch.occurrence});
    sh_.resize(c_);
    bl_.resize(c_);
  }

  // One member of its own process (HiddenMember): its own key and shares only; it posts and
  // reads the log through `io`. `me`: its position in ids.
  Committee(const HiddenParams& p, std::vector<std::size_t> ids, std::size_t me, const PaillierKey& key,
            const HiddenKeySet* proven, const std::vector<Cheat>& cheats, Rng& rng, const MemberIo& io,
            detail::RpTableCache* tables)
      : p_(p), ids_(std::move(ids)), c_(ids_.size()), sim_(false), me_(me), keys_(c_, nullptr),
        proven_(proven), tables_(tables), rng_(rng), trace_(false), board_(p_, ids_, nullptr, {}, &io),
        gens_(GeneratorSet::get(kGens, 1)) {
    keys_[me] = &key;
    for (const auto& ch : cheats)
      if (ids_[me] == ch.member) cheats_.push_back({me, ch.step, ch.occurrence});
    sh_.resize(c_);
    bl_.resize(c_);
  }

  // The verifier: the log only; rng gives the weights of the batch checks.
  Committee(const HiddenParams& p, std::vector<std::size_t> ids, std::span<const HiddenMessage> log,
            const HiddenKeySet* proven, Rng& rng)
      : p_(p), ids_(std::move(ids)), c_(ids_.size()), sim_(false), proven_(proven), rng_(rng),
        trace_(false), board_(p_, ids_, nullptr, log), gens_(GeneratorSet::get(kGens, 1)) {}

  // ---------------------------------------------------------------- engine interface
  Val constant(i128 v) { return lincomb({}, std::span<const Scalar>{}, scalar_of(v)); }
  Val add(Val a, Val b) { return lin2(a, 1, b, 1); }
  Val sub(Val a, Val b) { return lin2(a, 1, b, -1); }
  Val add_const(Val a, i128 c) {
    const Val v[1] = {a};
    const Scalar w[1] = {Scalar::one()};
    return lincomb(v, w, scalar_of(c));
  }
  Val mul_const(Val a, i128 c) {
    const Val v[1] = {a};
    const Scalar w[1] = {scalar_of(c)};
    return lincomb(v, w, Scalar::zero());
  }
  Val lincomb(std::span<const Val> v, std::span<const i128> w, i128 c) {
    std::vector<Scalar> ws;
    ws.reserve(w.size());
    for (i128 x : w) ws.push_back(scalar_of(x));
    return lincomb(v, ws, scalar_of(c));
  }
  Val mul(Val a, Val b) {
    const Val x[1] = {a}, y[1] = {b};
    return mul_many(x, y)[0];
  }
  Val trunc(Val x, unsigned s, unsigned k) { return truncate(x, s, k, false); }
  Val trunc_exact(Val x, unsigned s, unsigned k) { return truncate(x, s, k, true); }
  std::vector<Val> seed_bits(unsigned m) {
    std::vector<Val> out = take_bits(m);
    std::uint64_t seed = 0;
    if (trace_)
      for (unsigned i = 0; i < m; ++i)
        seed |= static_cast<std::uint64_t>(signed_of(reveal(out[i]))) << i;
    (seed_calls_++ == 0 ? out_.seed1 : out_.seed2) = seed;
    return out;
  }

  // ---------------------------------------------------------------- phases
  void preprocess(const DryRun& d) {
    const auto t0 = Clock::now();
    if (proven_ != nullptr) {
      use_keys(*proven_);
    } else {
      exchange_keys();
      // The key round's committee time: the work, and the key proofs checked by the c − 1
      // members other than their owner (measured once).
      out_.cost.seconds_keys = since(t0) + static_cast<double>(c_ - 2) * others_verify_seconds_;
      out_.cost.bytes_keys = board_.bytes();
    }
    build_rp_tables();
    generate_triples(static_cast<std::size_t>(d.muls), false);
    generate_triples(d.bits, true);
    generate_masks(d.truncs);
    generate_bits(d.bits);
    out_.cost.seconds_preprocessing = since(t0) + extra_seconds_;
    out_.cost.bytes_preprocessing = board_.bytes();
    pre_verify_ = verify_seconds_;
  }

  // The two samples' values (the simulation fills out_ with the shares).
  std::pair<Val, Val> online() {
    const auto t0 = Clock::now();
    auto [e1, e2] = detail::box_muller_shares(*this, p_);
    board_.finish();
    out_.cost.seconds_online = since(t0);
    return {e1, e2};
  }

  HiddenOutput output(std::pair<Val, Val> eta) {
    for (Val v : {eta.first, eta.second}) {
      SharedOutput o;
      o.members = ids_;
      o.commitments = C_[v];
      for (std::size_t k = 0; k < c_; ++k) {
        o.shares.push_back(owns(k) ? sh_[k][v].declassify() : Scalar::zero());
        o.blinders.push_back(owns(k) ? bl_[k][v].declassify() : Scalar::zero());
      }
      out_.samples.push_back(std::move(o));
    }
    out_.cost.bytes = board_.bytes();
    // Every member verifies the public messages: count the verification c times.
    const double extra = static_cast<double>(c_ - 1) * verify_seconds_;
    out_.cost.seconds_verify = verify_seconds_ + others_verify_seconds_;
    out_.cost.seconds_preprocessing += extra * pre_verify_share();
    // Key proofs and ciphertext proofs are checked by the c − 1 members other than their
    // sender (measured once above).
    out_.cost.seconds_preprocessing += static_cast<double>(c_ - 2) * others_verify_seconds_;
    out_.cost.seconds_online += extra * (1 - pre_verify_share());
    return std::move(out_);
  }

  [[nodiscard]] const std::vector<Point>& commitments(Val v) const { return C_[v]; }
  // Whether this reader holds member k's secrets: every member in the simulation, its own in a
  // member's process, none in the verifier.
  [[nodiscard]] bool owns(std::size_t k) const noexcept { return sim_ || me_ == k; }
  [[nodiscard]] bool holds_secrets() const noexcept { return sim_ || me_.has_value(); }
  [[nodiscard]] std::size_t bytes() const noexcept { return board_.bytes(); }
  [[nodiscard]] std::size_t messages() const noexcept { return board_.read(); }
  [[nodiscard]] const std::vector<Misplaced>& misplaced() const noexcept { return board_.misplaced(); }

 private:
  double pre_verify_share() const {
    return verify_seconds_ > 0 ? pre_verify_ / verify_seconds_ : 0;
  }

  // ---------------------------------------------------------------- shares and commitments
  Val new_value() {
    const auto id = static_cast<Val>(C_.size());
    C_.emplace_back(c_);
    for (std::size_t k = 0; k < c_; ++k)
      if (owns(k)) {
        sh_[k].emplace_back();
        bl_[k].emplace_back();
      }
    return id;
  }

  Val lin2(Val a, i128 wa, Val b, i128 wb) {
    const Val v[2] = {a, b};
    const Scalar w[2] = {scalar_of(wa), scalar_of(wb)};
    return lincomb(v, w, Scalar::zero());
  }

  // Σ w_i·v_i + c: shares and blinders locally, commitments by anyone (member 0 adds c).
  Val lincomb(std::span<const Val> v, std::span<const Scalar> w, const Scalar& c) {
    Val id = new_value();
    std::vector<Point> pts(v.size());
    for (std::size_t k = 0; k < c_; ++k) {
      if (owns(k)) {
        SecretScalar s, r;
        for (std::size_t i = 0; i < v.size(); ++i) {
          s += sh_[k][v[i]] * w[i];
          r += bl_[k][v[i]] * w[i];
        }
        if (k == 0) s = s + c;
        sh_[k][id] = std::move(s);
        bl_[k][id] = std::move(r);
      }
      for (std::size_t i = 0; i < v.size(); ++i) pts[i] = C_[v[i]][k];
      Point P = v.empty() ? Point::identity() : (v.size() <= 2 ? lin_small(w, pts) : msm(w, pts));
      if (k == 0 && !c.is_zero()) P += Point::base_mul(c);
      C_[id][k] = P;
    }
    return id;
  }

  // Σ w_i·P_i for one or two public terms: weights ±1 (most of them) are additions, the
  // others one variable-time MSM.
  static Point lin_small(std::span<const Scalar> w, std::span<const Point> pts) {
    static const Scalar one = Scalar::one(), minus_one = -Scalar::one();
    Point P;
    std::array<Scalar, 2> ws;
    std::array<Point, 2> ps;
    std::size_t n = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (w[i] == one) {
        P += pts[i];
      } else if (w[i] == minus_one) {
        P -= pts[i];
      } else {
        ws[n] = w[i];
        ps[n++] = pts[i];
      }
    }
    if (n > 0) P += msm(std::span(ws.data(), n), std::span(ps.data(), n));
    return P;
  }

  // Simulation only: the value (Σ shares).
  Scalar reveal(Val v) const {
    Scalar s;
    for (std::size_t k = 0; k < c_; ++k) s += sh_[k][v].declassify();
    return s;
  }

  bool cheat_now(std::size_t k, Step step) {
    const std::size_t n = occurrences_[{k, step}]++;
    for (const auto& ch : cheats_)
      if (ch.member == k && ch.step == step && ch.occurrence == n) return true;
    return false;
  }

  [[noreturn]] void malformed(std::size_t k, Step step, HiddenKind kind,
                             std::string_view what = {}) {
    fault(ids_[k], step,
          who(ids_[k]) + ": malformed " + hidden_kind_name(kind) + " message" +
              (what.empty() ? std::string() : " (" + std::string(what) + ")"));
  }

  // A list of n points of member k from the log (posted with post_list).
  std::vector<Point> take_points(std::size_t k, HiddenKind kind, Step step, std::size_t n) {
    const auto bytes = board_.take_list(k, kind, step, n, Point::kBytes);
    wire::Reader r(bytes);
    std::vector<Point> out(n);
    for (auto& P : out) P = r.point();
    if (!r.ok()) malformed(k, step, kind, "not a canonical point");
    return out;
  }

  // Every member publishes its share and blinder of each value; anyone checks them against the
  // commitments (one random-weighted MSM; on failure, member by member to name the culprit).
  std::vector<Scalar> open(std::span<const Val> vals, Step step, HiddenKind kind) {
    const std::size_t n = vals.size();
    board_.phase();
    for (std::size_t k = 0; k < c_; ++k)
      if (owns(k)) {
        const bool cheat = cheat_now(k, step);
        std::vector<std::uint8_t> items;
        items.reserve(n * kOpeningBytes);
        for (std::size_t i = 0; i < n; ++i) {
          Scalar s = sh_[k][vals[i]].declassify();
          if (cheat && i == 0) s += Scalar::one();
          wire::Writer(items).scalar(s).scalar(bl_[k][vals[i]].declassify());
        }
        board_.post_list(k, kind, items, kOpeningBytes);
      }
    out_.cost.openings += n;
    VerifyTimer vt(verify_seconds_);
    std::vector<Scalar> s(n * c_), r(n * c_);
    for (std::size_t k = 0; k < c_; ++k) {
      const auto bytes = board_.take_list(k, kind, step, n, kOpeningBytes);
      wire::Reader rd(bytes);
      for (std::size_t i = 0; i < n; ++i) {
        s[k * n + i] = rd.scalar();
        r[k * n + i] = rd.scalar();
      }
      if (!rd.ok()) malformed(k, step, kind, "not a canonical scalar");
    }
    std::vector<Scalar> w(n * c_ + 2);
    std::vector<Point> pts(n * c_ + 2);
    Scalar sg, sr;
    for (std::size_t k = 0; k < c_; ++k)
      for (std::size_t i = 0; i < n; ++i) {
        const Scalar wi = Scalar::random(rng_);
        w[k * n + i] = wi;
        pts[k * n + i] = C_[vals[i]][k];
        sg -= wi * s[k * n + i];
        sr -= wi * r[k * n + i];
      }
    w[n * c_] = sg;
    pts[n * c_] = gens_->G();
    w[n * c_ + 1] = sr;
    pts[n * c_ + 1] = gens_->H();
    if (!msm(w, pts).is_identity()) {
      for (std::size_t k = 0; k < c_; ++k)
        for (std::size_t i = 0; i < n; ++i)
          if (!verify_opening(C_[vals[i]][k], s[k * n + i], r[k * n + i], *gens_))
            fault(ids_[k], step,
                  who(ids_[k]) + ": opened share of value " + std::to_string(i) +
                      " does not match its commitment (" + step_name(step) + ")");
      fault_unnamed("batched opening check failed but every opening verifies");
    }
    std::vector<Scalar> out(n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < c_; ++k) out[i] += s[k * n + i];
    return out;
  }

  // Beaver multiplication of pairs, one opening round.
  std::vector<Val> mul_many(std::span<const Val> xs, std::span<const Val> ys) {
    const std::size_t n = xs.size();
    GOPA_CHECK(next_triple_ + n <= triples_.size(), "enough preprocessed triples");
    std::vector<Val> de(2 * n);
    std::vector<std::array<Val, 3>> t(n);
    for (std::size_t i = 0; i < n; ++i) {
      t[i] = triples_[next_triple_++];
      de[2 * i] = sub(xs[i], t[i][0]);
      de[2 * i + 1] = sub(ys[i], t[i][1]);
    }
    std::vector<Scalar> op = open(de, Step::kMulOpening, HiddenKind::kMulOpening);
    std::vector<Val> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Scalar& d = op[2 * i];
      const Scalar& e = op[2 * i + 1];
      const Val v[3] = {t[i][2], t[i][1], t[i][0]};
      const Scalar w[3] = {Scalar::one(), d, e};
      out[i] = lincomb(v, w, d * e);
    }
    out_.cost.triples += n;
    return out;
  }

  // u² with square pairs (a, A = a²): open d = u − a, then u² = A + 2d·a + d².
  std::vector<Val> square_many(std::span<const Val> us) {
    const std::size_t n = us.size();
    GOPA_CHECK(next_square_ + n <= squares_.size(), "enough preprocessed square pairs");
    std::vector<Val> ds(n);
    std::vector<std::array<Val, 3>> t(n);
    for (std::size_t i = 0; i < n; ++i) {
      t[i] = squares_[next_square_++];
      ds[i] = sub(us[i], t[i][0]);
    }
    std::vector<Scalar> d = open(ds, Step::kMulOpening, HiddenKind::kMulOpening);
    std::vector<Val> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Val v[2] = {t[i][2], t[i][0]};
      const Scalar w[2] = {Scalar::one(), d[i] + d[i]};
      out[i] = lincomb(v, w, d[i] * d[i]);
    }
    out_.cost.triples += n;
    return out;
  }

  std::vector<Val> take_bits(unsigned n) {
    GOPA_CHECK(next_bit_ + n <= bits_.size(), "enough preprocessed random bits");
    std::vector<Val> out(bits_.begin() + static_cast<std::ptrdiff_t>(next_bit_),
                         bits_.begin() + static_cast<std::ptrdiff_t>(next_bit_ + n));
    next_bit_ += n;
    return out;
  }

  // y ≈ floor(x / 2^s) for |x| < 2^k: open x + 2^(k+1) − D + R' + 2^s·R'' (docs §3).
  Val truncate(Val x, unsigned s, unsigned k, bool exact) {
    GOPA_CHECK(next_mask_ < masks_.size(), "enough preprocessed masks");
    const Mask& mk = masks_[next_mask_++];
    GOPA_CHECK(mk.exact == exact && mk.s == s, "masks consumed in the dry-run order");
    const unsigned K = std::max(k, s + 8);
    Val low;
    i128 D = 0;
    if (exact) {
      std::vector<Val> b = take_bits(s);
      std::vector<i128> w(s);
      for (unsigned i = 0; i < s; ++i) w[i] = p2(i);
      low = lincomb(b, w, 0);
    } else {
      low = mk.low;
      D = static_cast<i128>(c_) * (p2(s) - 1) / 2;
    }
    const Val v[5] = {x, low, mk.limb[0], mk.limb[1], mk.limb[2]};
    const Scalar w[5] = {Scalar::one(), Scalar::one(), scalar_of(p2(s)), scalar_of(p2(s + 32)),
                         scalar_of(p2(s + 64))};
    Val masked = lincomb(v, w, scalar_of(p2(K + 1) - D));
    const Val mv[1] = {masked};
    const Scalar cp = open(mv, Step::kTruncOpening, HiddenKind::kTruncOpening)[0];
    BigInt q = BigInt::from_scalar(cp);
    // Range-proven masks and sound triples keep the masked value far below ℓ.
    if (q.bits() >= 240) fault_unnamed("a truncation's masked value wraps mod ℓ");
    mpz_fdiv_q_2exp(q.get(), q.get(), s);
    const Val yv[3] = {mk.limb[0], mk.limb[1], mk.limb[2]};
    const Scalar yw[3] = {-Scalar::one(), -scalar_of(p2(32)), -scalar_of(p2(64))};
    Val y = lincomb(yv, yw, q.to_scalar() - scalar_of(p2(K + 1 - s)));
    ++out_.cost.truncations;
    if (trace_) {
      const i128 xv = signed_of(reveal(x)), yv2 = signed_of(reveal(y));
      out_.trunc_offsets.push_back(static_cast<int>(yv2 - (xv >> s)));
    }
    return y;
  }

  // ---------------------------------------------------------------- Paillier keys
  std::size_t n_bytes() const { return (p_.paillier_bits + 7) / 8; }
  std::size_t ct_bytes() const { return (2 * static_cast<std::size_t>(p_.paillier_bits) + 7) / 8; }

  // The key record of a member: N ‖ h ‖ s ‖ t ‖ Π_mod ‖ Π_prm (docs/sampling.md, "Key proofs").
  std::size_t key_record_bytes() const {
    const std::size_t nb = n_bytes();
    return 4 * nb + ModProof::encoded_bytes(nb) + PrmProof::encoded_bytes(nb);
  }
  std::size_t fac_bytes() const {
    return FacProof::encoded_bytes(p_.paillier_bits, p_.paillier_bits);
  }

  // The transcript of member k's key proofs (j: the verifier of a Π_fac).
  Transcript key_transcript(std::size_t k, std::string_view proof,
                            std::optional<std::size_t> j = std::nullopt) const {
    Transcript t("gopa/hidden-sample v1");
    t.domain_separator("gopa/hidden/keys v1");
    t.append_message("params", p_.name());
    for (std::size_t id : ids_) t.append_u64("committee", id);
    t.append_u64("member", ids_[k]);
    t.append_message("proof", proof);
    if (j) t.append_u64("verifier", ids_[*j]);
    return t;
  }

  // Simulation only: a key whose modulus has a small prime factor (a Blum modulus r·q with a
  // 40-bit r), which passes Π_mod and Π_prm and only Π_fac rejects.
  PaillierKey small_factor_key() {
    const unsigned bits = p_.paillier_bits;
    const auto blum_prime = [this](unsigned b) {
      BigInt x = BigInt::random_bits(b, rng_);
      mpz_setbit(x.get(), b - 1);
      mpz_setbit(x.get(), b - 2);
      do {
        mpz_nextprime(x.get(), x.get());
      } while (mpz_fdiv_ui(x.get(), 4) != 3);
      return x;
    };
    for (;;) {
      const BigInt r = blum_prime(40), q = blum_prime(bits - 40);
      BigInt n;
      mpz_mul(n.get(), r.get(), q.get());
      if (n.bits() == bits) return PaillierKey::from_primes(r, q, rng_);
    }
  }

  // Every member publishes its key (N, h), ring-Pedersen parameters (s, t) over N, and the
  // proofs Π_mod and Π_prm; anyone checks the form and the proofs. Then every member proves
  // Π_fac to every other member against that member's (N, s, t). Nobody uses a key before all
  // its proofs are checked; a failed check names the key's owner (`paillier-key`).
  void exchange_keys() {
    const std::size_t nb = n_bytes();
    const std::size_t bits = p_.paillier_bits;
    std::vector<std::unique_ptr<RingPedersenSecret>> rps(c_);
    board_.phase();
    for (std::size_t k = 0; k < c_; ++k) {
      if (owns(k)) {
        const bool even = cheat_now(k, Step::kPaillierKey);
        if (cheat_now(k, Step::kPaillierKey)) {
          bad_keys_.push_back(std::make_unique<PaillierKey>(small_factor_key()));
          keys_[k] = bad_keys_.back().get();
        }
        const PaillierKey& key = *keys_[k];
        rps[k] = std::make_unique<RingPedersenSecret>(RingPedersenSecret::generate(key, rng_));
        std::vector<std::uint8_t> pl;
        pl.reserve(key_record_bytes());
        BigInt n = key.pub().n();
        if (even) mpz_add_ui(n.get(), n.get(), 1);  // an even N
        wire::put_big(pl, n, nb);
        wire::put_big(pl, key.pub().h(), nb);
        wire::put_big(pl, rps[k]->pub().s, nb);
        wire::put_big(pl, rps[k]->pub().t, nb);
        Transcript tm = key_transcript(k, "mod");
        const auto pm = prove_mod(tm, key, rng_).encode(nb);
        pl.insert(pl.end(), pm.begin(), pm.end());
        Transcript tp = key_transcript(k, "prm");
        const auto pp = prove_prm(tp, *rps[k], rng_).encode(nb);
        pl.insert(pl.end(), pp.begin(), pp.end());
        board_.post_list(k, HiddenKind::kPaillierKey, pl, 1);
      }
    }
    pk_.resize(c_);
    rp_.resize(c_);
    own_pk_.resize(c_);
    {
      VerifyTimer vt(others_verify_seconds_);
      for (std::size_t k = 0; k < c_; ++k) {
        const auto pl = board_.take_list(k, HiddenKind::kPaillierKey, Step::kPaillierKey,
                                         key_record_bytes(), 1);
        wire::Reader r(pl);
        BigInt n = wire::read_big(r, nb);
        BigInt h = wire::read_big(r, nb);
        BigInt s = wire::read_big(r, nb);
        BigInt t = wire::read_big(r, nb);
        if (!r.ok()) malformed(k, Step::kPaillierKey, HiddenKind::kPaillierKey, "length");
        BigInt g;
        mpz_gcd(g.get(), h.get(), n.get());
        if (n.bits() != bits || mpz_even_p(n.get()) || mpz_cmp_ui(h.get(), 2) < 0 ||
            mpz_cmp(h.get(), n.get()) >= 0 || mpz_cmp_ui(g.get(), 1) != 0)
          fault(ids_[k], Step::kPaillierKey,
                who(ids_[k]) + ": malformed Paillier public key (N of " + std::to_string(n.bits()) +
                    " bits, must be odd with exactly " + std::to_string(bits) +
                    " bits; 2 ≤ h < N prime to N)");
        const auto pm = ModProof::decode(r.bytes(ModProof::encoded_bytes(nb)), nb);
        const auto pp = PrmProof::decode(r.bytes(PrmProof::encoded_bytes(nb)), nb);
        if (!pm.value || !pp.value || !r.finish())
          malformed(k, Step::kPaillierKey, HiddenKind::kPaillierKey,
                    !pm.value ? key_check_name(pm.error) : key_check_name(pp.error));
        Transcript tm = key_transcript(k, "mod");
        if (const KeyCheck c = verify_mod(tm, n, h, *pm.value); c != KeyCheck::kOk)
          fault(ids_[k], Step::kPaillierKey,
                who(ids_[k]) + ": Paillier modulus not proven Paillier–Blum (Π_mod: " +
                    key_check_name(c) + ")");
        RingPedersen rp{n, std::move(s), std::move(t)};
        Transcript tp = key_transcript(k, "prm");
        if (const KeyCheck c = verify_prm(tp, rp, *pp.value); c != KeyCheck::kOk)
          fault(ids_[k], Step::kPaillierKey,
                who(ids_[k]) + ": ring-Pedersen parameters not proven (Π_prm: " +
                    key_check_name(c) + ")");
        rp_[k] = std::move(rp);
        if (owns(k)) {
          GOPA_CHECK(n == keys_[k]->pub().n() && h == keys_[k]->pub().h(), "the member's own key");
          pk_[k] = &keys_[k]->pub();
        } else {
          own_pk_[k] = std::make_unique<PaillierPublic>(std::move(n), std::move(h));
          pk_[k] = own_pk_[k].get();
        }
      }
    }
    // Π_fac from every member to every other one, in committee order of the verifiers.
    board_.phase();
    for (std::size_t k = 0; k < c_; ++k)
      if (owns(k)) {
        std::vector<std::uint8_t> pl;
        pl.reserve((c_ - 1) * fac_bytes());
        for (std::size_t j = 0; j < c_; ++j) {
          if (j == k) continue;
          Transcript t = key_transcript(k, "fac", j);
          const auto pf = prove_fac(t, *keys_[k], rp_[j], rng_).encode(bits, bits);
          pl.insert(pl.end(), pf.begin(), pf.end());
        }
        board_.post_list(k, HiddenKind::kKeyFactors, pl, 1);
      }
    VerifyTimer vt(others_verify_seconds_);
    for (std::size_t k = 0; k < c_; ++k) {
      const auto pl = board_.take_list(k, HiddenKind::kKeyFactors, Step::kPaillierKey,
                                       (c_ - 1) * fac_bytes(), 1);
      wire::Reader r(pl);
      for (std::size_t j = 0; j < c_; ++j) {
        if (j == k) continue;
        const auto pf = FacProof::decode(r.bytes(fac_bytes()), bits, bits);
        if (!pf.value) malformed(k, Step::kPaillierKey, HiddenKind::kKeyFactors, key_check_name(pf.error));
        Transcript t = key_transcript(k, "fac", j);
        if (const KeyCheck c = verify_fac(t, pk_[k]->n(), rp_[j], *pf.value); c != KeyCheck::kOk)
          fault(ids_[k], Step::kPaillierKey,
                who(ids_[k]) + ": Paillier modulus not proven free of small factors to " +
                    who(ids_[j]) + " (Π_fac: " + key_check_name(c) + ")");
      }
    }
    // Every key is proven: the set later attempts use, bound to every key message read.
    HiddenKeySet ks;
    ks.members = ids_;
    for (std::size_t k = 0; k < c_; ++k) {
      ks.pk.push_back(owns(k) ? std::make_shared<const PaillierPublic>(keys_[k]->pub())
                              : std::shared_ptr<const PaillierPublic>(std::move(own_pk_[k])));
      pk_[k] = ks.pk.back().get();
      ks.rp.push_back(rp_[k]);
    }
    own_pk_.clear();
    board_.transcript().challenge_bytes("key round", ks.digest);
    key_set_ = std::move(ks);
  }

  // An attempt after a key round that passed: its keys, bound into the transcript; no message.
  void use_keys(const HiddenKeySet& ks) {
    pk_.resize(c_);
    rp_.resize(c_);
    for (std::size_t k = 0; k < c_; ++k) {
      const std::optional<std::size_t> at = ks.index_of(ids_[k]);
      GOPA_CHECK(at.has_value(), "every member of the attempt has a proven key");
      pk_[k] = ks.pk[*at].get();
      rp_[k] = ks.rp[*at];
      if (owns(k))
        GOPA_CHECK(keys_[k]->pub().n() == pk_[k]->n() && keys_[k]->pub().h() == pk_[k]->h(),
                   "the member's own key");
    }
    board_.transcript().append_message("key round", ks.digest);
  }

 public:
  // The keys proven by this attempt's key round (when it had one and it passed).
  std::optional<HiddenKeySet>& key_set() noexcept { return key_set_; }

 private:

  // ---------------------------------------------------------------- preprocessing
  std::size_t slots() const {
    GOPA_CHECK(p_.paillier_bits >= kMinPaillierBits, "Paillier modulus holds one reply slot");
    return std::max<std::size_t>(1, (p_.paillier_bits - 2) / kSlotBits);
  }

  // A product of members i and j is needed for every ordered pair (triples) or for i < j only
  // (square pairs (a, a²): a² = Σ a_i² + 2·Σ_{i<j} a_i a_j).
  static bool needs_pair(bool square, std::size_t i, std::size_t j) {
    return square ? i < j : i != j;
  }
  // Square pairs: the last member only answers (it has nobody to reply to it).
  bool encrypts(bool square, std::size_t i) const { return !(square && i + 1 == c_); }

  static BigInt slot_shift(const BigInt& v, std::size_t slot) {
    BigInt r;
    mpz_mul_2exp(r.get(), v.get(), static_cast<mp_bitcnt_t>(slot * kSlotBits));
    return r;
  }
  static BigInt slot_value(const BigInt& v, std::size_t slot) {
    BigInt r;
    mpz_fdiv_q_2exp(r.get(), v.get(), static_cast<mp_bitcnt_t>(slot * kSlotBits));
    mpz_fdiv_r_2exp(r.get(), r.get(), kSlotBits);
    return r;
  }

  // The transcript of member i's ciphertext proof for the triple (or square pair) `index` of
  // this attempt: application, member, context (the proof appends its statement).
  Transcript ct_transcript(std::size_t i, bool square, std::size_t index) const {
    Transcript t("gopa/hidden-sample v1");
    t.domain_separator("gopa/hidden/ciphertext v2");
    t.append_message("params", p_.name());
    t.append_u64("member", ids_[i]);
    t.append_message("context", square ? "square pair" : "triple");
    t.append_u64("index", index);
    return t;
  }

  // The members who reply to i (for triples every other member, for square pairs those after
  // i), in increasing order: the verifiers of i's ciphertext proofs, one part each.
  std::vector<std::size_t> verifiers_of(bool square, std::size_t i) const {
    std::vector<std::size_t> v;
    for (std::size_t j = 0; j < c_; ++j)
      if (needs_pair(square, i, j)) v.push_back(j);
    return v;
  }
  // The index of j's part in i's proofs.
  static std::size_t part_index(bool square, std::size_t i, std::size_t j) {
    return square ? j - i - 1 : (j < i ? j : j - 1);
  }

  RpMultiStatement statement(const BigInt& ct, const Point& a, std::size_t k, std::size_t i,
                             bool square) const {
    RpMultiStatement st;
    st.pk = pk_[i];
    st.c = ct;
    st.a = a;
    st.shift = static_cast<unsigned>(k * kSlotBits);
    st.prover_id = static_cast<std::uint32_t>(ids_[i]);
    for (std::size_t j : verifiers_of(square, i)) {
      st.verifiers.push_back(&rp_[j]);
      st.verifier_ids.push_back(static_cast<std::uint32_t>(ids_[j]));
    }
    return st;
  }
  RpMultiStatement statement(const Group& g, const std::vector<std::array<Val, 3>>& tri,
                             std::size_t k, std::size_t i, bool square) const {
    return statement(g.ct[k][i], C_[tri[g.first + k][0]][i], k, i, square);
  }

  // Simulation: replier j checks its own part with its factors (RpOwnerCheck: CRT).
  bool owner_holds(std::size_t j, const RpPart& part, const BigInt& z, const BigInt& e) const {
    if (!modarith::in_open(part.s, rp_[j].n) || !modarith::in_open(part.d, rp_[j].n)) return false;
    // Mod p_j only: a part that holds there and not mod N_j gives its prover a factor of N_j.
    return rp_own_[j]->holds_mod_p(z, part.w, part.d, part.s, e);
  }
  // Simulation: S and D of member i's parts, through the repliers' fixed-base tables
  // (constant time; public data, built once per attempt).
  RpPow2Sec prover_pow2(bool square, std::size_t i) const {
    return [this, vs = verifiers_of(square, i)](std::size_t x, const BigInt& a, unsigned a_bits,
                                                 const BigInt& b, unsigned b_bits) {
      const std::size_t j = vs[x];
      const FixedBaseSec* bases[2] = {rp_s_tab_[j].get(), rp_t_tab_[j].get()};
      const BigInt exps[2] = {a, b};
      const unsigned bits[2] = {a_bits, b_bits};
      return multi_pow_sec(bases, exps, bits);
    };
  }

  // Simulation: every member's ring-Pedersen tables, once the keys are proven. The provers'
  // tables hold public data, so the simulation builds each once; every other member would build
  // its own, and the committee time counts that (c − 1 builds of each member's tables).
  // With a HiddenCommittee's cache, the tables of proven parameters are built in the attempt
  // whose key round proved them and reused by every later attempt (counted once).
  void build_rp_tables() {
    if (!holds_secrets()) return;
    rp_s_tab_.resize(c_);
    rp_t_tab_.resize(c_);
    rp_own_.resize(c_);
    double built = 0;
    for (std::size_t j = 0; j < c_; ++j) {
      if (tables_ != nullptr) {
        auto it = tables_->by_member.find(ids_[j]);
        if (it != tables_->by_member.end() && it->second.rp.n == rp_[j].n &&
            it->second.rp.s == rp_[j].s && it->second.rp.t == rp_[j].t) {
          rp_s_tab_[j] = it->second.s;
          rp_t_tab_[j] = it->second.t;
          rp_own_[j] = it->second.own;
          continue;
        }
      }
      const auto t0 = Clock::now();
      const auto nh = static_cast<unsigned>(rp_[j].n.bits());
      rp_s_tab_[j] = std::make_shared<FixedBaseSec>(rp_[j].s, rp_[j].n, RpEncParams::kBoundBits);
      rp_t_tab_[j] =
          std::make_shared<FixedBaseSec>(rp_[j].t, rp_[j].n, nh + RpEncParams::kRpNonceBits);
      built += since(t0);
      // Replier j's own check, constant time in its factors, for the encoding's widths of z, w.
      const auto sz = RpEncProof::sizes(p_.paillier_bits, rp_[j].n.bits());
      if (owns(j))
        rp_own_[j] = std::make_shared<RpOwnerCheck>(
            keys_[j]->p(), keys_[j]->q(), rp_[j].s, rp_[j].t,
            static_cast<unsigned>(8 * RpEncProof::kZBytes), static_cast<unsigned>(8 * sz.wb));
      if (tables_ != nullptr)
        tables_->by_member[ids_[j]] = {rp_[j], rp_s_tab_[j], rp_t_tab_[j], rp_own_[j]};
    }
    extra_seconds_ += static_cast<double>(c_ - 2) * built;
  }

  // Byte sizes of a ring-Pedersen part for verifier j: S, D int(nb), w int(wb).
  std::size_t part_bytes(std::size_t j) const {
    const auto sz = RpEncProof::sizes(p_.paillier_bits, rp_[j].n.bits());
    return 2 * sz.nb + sz.wb;
  }
  // The length of member i's triple-shares message for a group of `count` slots.
  std::size_t shares_bytes(std::size_t i, std::size_t count, bool square) const {
    std::size_t per = (square ? 1 : 2) * Point::kBytes;
    if (encrypts(square, i)) {
      per += 2 * ct_bytes() + Point::kBytes + RpEncProof::kZBytes + RpEncProof::kNuBytes +
             Scalar::kBytes;
      for (std::size_t j : verifiers_of(square, i)) per += part_bytes(j);
    }
    return count * per;
  }

  // n triples (a, b, ab) or, with square, n square pairs (a, a, a²), each checked by sacrifice.
  // Three rounds, every group of K packed triples in each: (1) commitments to a_i, b_i and
  // Enc_i(a_i) with its proof, (2) replies, (3) commitments to the product shares c_i.
  void generate_triples(std::size_t n, bool square) {
    const std::size_t total = 2 * n;
    const std::size_t K = slots();
    std::vector<std::array<Val, 3>> tri(total);
    for (auto& t : tri) {
      t[0] = new_value();
      t[1] = square ? t[0] : new_value();
      t[2] = new_value();
    }
    std::vector<Group> groups;
    std::vector<std::size_t> group_of(total);
    for (std::size_t first = 0; first < total; first += K) {
      Group g;
      g.first = first;
      g.count = std::min(K, total - first);
      for (std::size_t k = 0; k < g.count; ++k) group_of[first + k] = groups.size();
      g.ct.assign(g.count, std::vector<BigInt>(c_));
      g.proof.assign(g.count, std::vector<RpMultiProof>(c_));
      g.e.assign(g.count, std::vector<BigInt>(c_));
      g.reply.assign(c_, std::vector<BigInt>(c_));
      groups.push_back(std::move(g));
    }
    std::vector<GroupSecrets> secrets(holds_secrets() ? groups.size() : 0);
    for (auto& s : secrets) {
      s.alpha.assign(K, std::vector<BigInt>(c_));
      s.beta.assign(c_, std::vector<BigInt>(c_));
      s.r.assign(K, std::vector<std::vector<BigInt>>(c_, std::vector<BigInt>(c_)));
    }
    // Round 1: a_i, b_i committed; Enc_i(a_i·2^(slot·W)) with its proof.
    board_.phase();
    for (std::size_t i = 0; i < c_; ++i)
      if (owns(i))
        for (std::size_t g = 0; g < groups.size(); ++g)
          board_.post_list(i, HiddenKind::kTripleShares,
                           make_shares(i, groups[g], secrets[g], tri, square), 1);
    {
      VerifyTimer vt(others_verify_seconds_);
      for (std::size_t i = 0; i < c_; ++i)
        for (auto& g : groups) read_shares(i, g, tri, square);
      verify_ciphertexts(groups, tri, square);
    }
    // Round 2: j answers i with Enc_i(Σ_slot (a_i·b_j + r_ij)·2^(slot·W)); i will keep
    // a_i·b_j + r_ij per slot (summed over j), j keeps −r_ij.
    // (For square pairs member 0 answers nobody and posts no replies.)
    board_.phase();
    for (std::size_t j = 0; j < c_; ++j)
      if (owns(j))
        for (std::size_t g = 0; g < groups.size() && (!square || j > 0); ++g)
          board_.post(j, HiddenKind::kTripleReplies,
                      make_replies(j, groups[g], secrets[g], tri, square));
    {
      VerifyTimer vt(verify_seconds_);
      std::vector<Complaint> complaints;
      for (std::size_t j = square ? 1 : 0; j < c_; ++j)
        for (std::size_t g = 0; g < groups.size(); ++g)
          read_replies(j, g, groups[g], square, complaints);
      judge_complaints(groups, complaints, square);
    }
    // Round 3: every member decrypts the product of its replies (one decryption per group) and
    // commits c_i = a_i b_i + Σ_j (a_i b_j + r_ij) − Σ_j r_ji.
    board_.phase();
    for (std::size_t i = 0; i < c_; ++i)
      if (owns(i)) make_products(i, groups, secrets, tri, square);
    {
      VerifyTimer vt(verify_seconds_);
      for (std::size_t i = 0; i < c_; ++i) {
        const auto pts = take_points(i, HiddenKind::kTripleProducts, Step::kTripleCommit, total);
        for (std::size_t t = 0; t < total; ++t) C_[tri[t][2]][i] = pts[t];
      }
    }
    out_.cost.triples_generated += total;
    // Sacrifice: (a,b,c) checked with (a',b',c') and a public challenge γ fixed after every
    // commitment: open ρ = γa − a', σ = b − b', then γc − c' − σa' − ρb' − σρ must open to 0.
    // Square pairs: open ρ = γa − a', then γ²A − A' − ρ·(γa + a') must open to 0.
    const Scalar gamma = board_.transcript().challenge_scalar("sacrifice");
    std::vector<Scalar> z;
    if (square) {
      std::vector<Val> rs(n), chk(n);
      for (std::size_t t = 0; t < n; ++t) {
        const Val v1[2] = {tri[2 * t][0], tri[2 * t + 1][0]};
        const Scalar w1[2] = {gamma, -Scalar::one()};
        rs[t] = lincomb(v1, w1, Scalar::zero());
      }
      std::vector<Scalar> rho = open(rs, Step::kSacrificeOpening, HiddenKind::kSacrificeOpening);
      for (std::size_t t = 0; t < n; ++t) {
        const Val v[4] = {tri[2 * t][2], tri[2 * t + 1][2], tri[2 * t][0], tri[2 * t + 1][0]};
        const Scalar w[4] = {gamma * gamma, -Scalar::one(), -(rho[t] * gamma), -rho[t]};
        chk[t] = lincomb(v, w, Scalar::zero());
      }
      z = open(chk, Step::kSacrificeOpening, HiddenKind::kSacrificeOpening);
    } else {
      std::vector<Val> rs(2 * n);
      for (std::size_t t = 0; t < n; ++t) {
        const auto& A = tri[2 * t];
        const auto& B = tri[2 * t + 1];
        const Val v1[2] = {A[0], B[0]};
        const Scalar w1[2] = {gamma, -Scalar::one()};
        rs[2 * t] = lincomb(v1, w1, Scalar::zero());
        rs[2 * t + 1] = sub(A[1], B[1]);
      }
      std::vector<Scalar> rho_sigma =
          open(rs, Step::kSacrificeOpening, HiddenKind::kSacrificeOpening);
      std::vector<Val> chk(n);
      for (std::size_t t = 0; t < n; ++t) {
        const auto& A = tri[2 * t];
        const auto& B = tri[2 * t + 1];
        const Scalar& rho = rho_sigma[2 * t];
        const Scalar& sigma = rho_sigma[2 * t + 1];
        const Val v[4] = {A[2], B[2], B[0], B[1]};
        const Scalar w[4] = {gamma, -Scalar::one(), -sigma, -rho};
        chk[t] = lincomb(v, w, -(sigma * rho));
      }
      z = open(chk, Step::kSacrificeOpening, HiddenKind::kSacrificeOpening);
    }
    for (std::size_t t = 0; t < n; ++t) {
      if (z[t].is_zero()) {
        (square ? squares_ : triples_).push_back(tri[2 * t]);
        continue;
      }
      // The attempt aborts, so every triple is discarded: the members reveal the generation of
      // the group(s) holding the failed pair for the public check.
      std::vector<std::size_t> open_groups{group_of[2 * t]};
      if (group_of[2 * t + 1] != group_of[2 * t]) open_groups.push_back(group_of[2 * t + 1]);
      board_.phase();
      for (std::size_t i = 0; i < c_; ++i)
        if (owns(i))
          for (std::size_t g : open_groups)
            board_.post(i, HiddenKind::kTripleReveal,
                        make_reveal(i, groups[g], secrets[g], tri, square));
      VerifyTimer vt(verify_seconds_);
      std::vector<Revealed> rev(open_groups.size());
      for (std::size_t i = 0; i < c_; ++i)
        for (std::size_t x = 0; x < open_groups.size(); ++x)
          read_reveal(i, groups[open_groups[x]], rev[x], square);
      for (std::size_t x = 0; x < open_groups.size(); ++x)
        blame_group(groups[open_groups[x]], rev[x], tri, square);
      fault_unnamed("a sacrifice check failed but the revealed generation is consistent");
    }
  }

  // Simulation: member i's round-1 message for group g.
  std::vector<std::uint8_t> make_shares(std::size_t i, const Group& g, GroupSecrets& sec,
                                        const std::vector<std::array<Val, 3>>& tri, bool square) {
    std::vector<std::uint8_t> pl;
    const PaillierPublic& pk = keys_[i]->pub();
    for (std::size_t k = 0; k < g.count; ++k) {
      const auto& ids = tri[g.first + k];
      Point com[2];
      for (std::size_t j = 0; j < (square ? 1U : 2U); ++j) {
        sh_[i][ids[j]] = SecretScalar::random(rng_);
        bl_[i][ids[j]] = SecretScalar::random(rng_);
        com[j] = commit(sh_[i][ids[j]], bl_[i][ids[j]], *gens_);
        wire::Writer(pl).point(com[j]);
      }
      if (!encrypts(square, i)) continue;
      sec.alpha[k][i] = BigInt::random_bits(PaillierKey::kAlphaBits, rng_);
      RpMultiStatement st = statement(BigInt(), com[0], k, i, square);
      Transcript tp = ct_transcript(i, square, g.first + k);
      const RpPow2Sec pow2 = prover_pow2(square, i);
      RpMultiProof pr;
      if (cheat_now(i, Step::kCiphertextFraction)) {
        // Deviation: encrypt the fraction u/v mod N (committed as u/v mod ℓ) and grind the
        // challenge until v | e, where the Paillier and commitment equations hold with
        // z = y + (e/v)·u; S commits to the nearest integer. Only the ring-Pedersen parts fail.
        constexpr unsigned long u = 2, v = 3;
        BigInt m(v);
        GOPA_CHECK(mpz_invert(m.get(), m.get(), pk.n().get()) != 0, "v invertible mod N");
        mpz_mul_ui(m.get(), m.get(), u);
        mpz_mul_2exp(m.get(), m.get(), static_cast<mp_bitcnt_t>(k * kSlotBits));
        mpz_mod(m.get(), m.get(), pk.n().get());
        const Scalar frac = Scalar::from_u64(u) * *Scalar::from_u64(v).invert();
        sh_[i][ids[0]] = SecretScalar(frac);
        com[0] = commit(sh_[i][ids[0]], bl_[i][ids[0]], *gens_);
        // The commitment was written first: rewrite it in place.
        const std::size_t at = pl.size() - (square ? 1U : 2U) * Point::kBytes;
        const auto enc = com[0].encode();
        std::copy(enc.begin(), enc.end(), pl.begin() + static_cast<std::ptrdiff_t>(at));
        st.a = com[0];
        st.c = pk.encrypt(m, sec.alpha[k][i], PaillierKey::kAlphaBits);
        const BigInt& alpha = sec.alpha[k][i];
        const SecretScalar& blind = bl_[i][ids[0]];
        for (bool ok = false; !ok;) {
          Transcript tt = tp.clone();
          pr = detail::prove_enc_rp_multi_unchecked(
              tt, st, BigInt(1), alpha, blind, *gens_, rng_,
              [&](const BigInt& e, RpMultiProof& q, const BigInt& y, const BigInt& mu,
                  const SecretScalar&) {
                if (mpz_divisible_ui_p(e.get(), v) == 0) return;
                BigInt t;
                mpz_divexact_ui(t.get(), e.get(), v);
                mpz_mul_ui(t.get(), t.get(), u);
                mpz_add(q.z.get(), y.get(), t.get());
                mpz_mul(q.nu.get(), e.get(), alpha.get());
                mpz_add(q.nu.get(), q.nu.get(), mu.get());
                ok = true;
              });
        }
      } else {
        // Deviations: encrypt a_i + 1 (not the committed value), or a_i + ℓ·2^200 (the
        // committed value mod ℓ, but out of range), each with the prover's best effort.
        BigInt a = BigInt::from_secret(sh_[i][ids[0]]);
        const bool wrong = cheat_now(i, Step::kTripleCiphertext);
        const bool big = cheat_now(i, Step::kCiphertextRange);
        if (wrong) a = BigInt::from_scalar(sh_[i][ids[0]].declassify() + Scalar::one());
        if (big) {
          BigInt t = BigInt::from_scalar(-Scalar::one());
          mpz_add_ui(t.get(), t.get(), 1);  // ℓ
          mpz_mul_2exp(t.get(), t.get(), 200);
          mpz_add(a.get(), a.get(), t.get());
        }
        // The owner encrypts under its own key by CRT (the same ciphertext, constant time).
        st.c = keys_[i]->encrypt_own(slot_shift(a, k), sec.alpha[k][i], PaillierKey::kAlphaBits);
        // Proof that the ciphertext encrypts the committed a_i (times the slot shift) as an
        // integer below 2^373, one ring-Pedersen part per replier (docs/sampling.md §2).
        pr = big ? detail::prove_enc_rp_multi_unchecked(tp, st, a, sec.alpha[k][i],
                                                        bl_[i][ids[0]], *gens_, rng_)
                 : prove_enc_rp_multi(tp, st, a, sec.alpha[k][i], bl_[i][ids[0]], *gens_, rng_,
                                      pow2, keys_[i]);
      }
      wire::put_big(pl, st.c, ct_bytes());
      wire::put_big(pl, pr.tc, ct_bytes());
      wire::Writer(pl).point(pr.ta);
      wire::put_big(pl, pr.z, RpEncProof::kZBytes);
      wire::put_big(pl, pr.nu, RpEncProof::kNuBytes);
      wire::Writer(pl).scalar(pr.zr);
      const auto vs = verifiers_of(square, i);
      for (std::size_t x = 0; x < vs.size(); ++x) {
        const auto sz = RpEncProof::sizes(p_.paillier_bits, rp_[vs[x]].n.bits());
        wire::put_big(pl, pr.parts[x].s, sz.nb);
        wire::put_big(pl, pr.parts[x].d, sz.nb);
        wire::put_big(pl, pr.parts[x].w, sz.wb);
      }
    }
    GOPA_CHECK(pl.size() == shares_bytes(i, g.count, square), "triple-shares length");
    return pl;
  }

  void read_shares(std::size_t i, Group& g, const std::vector<std::array<Val, 3>>& tri,
                   bool square) {
    constexpr HiddenKind kind = HiddenKind::kTripleShares;
    const auto pl =
        board_.take_list(i, kind, Step::kTripleCiphertext, shares_bytes(i, g.count, square), 1);
    wire::Reader r(pl);
    const auto vs = verifiers_of(square, i);
    for (std::size_t k = 0; k < g.count; ++k) {
      const auto& ids = tri[g.first + k];
      for (std::size_t j = 0; j < (square ? 1U : 2U); ++j) {
        C_[ids[j]][i] = r.point();
        if (!r.ok()) malformed(i, Step::kTripleCiphertext, kind, "commitment");
      }
      if (!encrypts(square, i)) continue;
      g.ct[k][i] = wire::read_big(r, ct_bytes());
      RpMultiProof& pr = g.proof[k][i];
      pr.tc = wire::read_big(r, ct_bytes());
      pr.ta = r.point();
      pr.z = wire::read_big(r, RpEncProof::kZBytes);
      pr.nu = wire::read_big(r, RpEncProof::kNuBytes);
      pr.zr = r.scalar();
      if (!r.ok()) malformed(i, Step::kTripleCiphertext, kind, "ciphertext or proof");
      pr.parts.resize(vs.size());
      for (std::size_t x = 0; x < vs.size(); ++x) {
        const auto sz = RpEncProof::sizes(p_.paillier_bits, rp_[vs[x]].n.bits());
        BigInt S = wire::read_big(r, sz.nb);
        BigInt D = wire::read_big(r, sz.nb);
        BigInt w = wire::read_big(r, sz.wb);
        if (!r.ok()) malformed(i, Step::kTripleCiphertext, kind, "ring-Pedersen part");
        pr.parts[x] = RpPart{std::move(S), std::move(D), std::move(w)};
      }
    }
    if (!r.finish()) malformed(i, Step::kTripleCiphertext, kind, "trailing bytes");
  }

  // Every member checks the shared part of every other member's ciphertext proofs (the
  // Paillier equations and ranges one by one, the commitment equations in one MSM, proof by
  // proof on failure); each replier checks its own ring-Pedersen parts before replying
  // (make_replies, read_replies). The first failing proof, in (group, slot, member) order,
  // names its sender.
  void verify_ciphertexts(std::vector<Group>& groups, const std::vector<std::array<Val, 3>>& tri,
                          bool square) {
    auto blame = [&](std::size_t i, RpEncCheck r) {
      fault(ids_[i], r == RpEncCheck::kRange ? Step::kCiphertextRange : Step::kTripleCiphertext,
            who(ids_[i]) + ": ciphertext proof rejected (" + rp_enc_check_name(r) + ")");
    };
    // Every proof, its commitment equations into `batch` (one MSM), or each checked alone.
    auto check_all = [&](CommitmentBatch* batch) {
      for (Group& g : groups)
        for (std::size_t k = 0; k < g.count; ++k)
          for (std::size_t i = 0; i < c_; ++i) {
            if (!encrypts(square, i)) continue;
            const RpMultiStatement st = statement(g, tri, k, i, square);
            Transcript t = ct_transcript(i, square, g.first + k);
            const RpEncCheck r =
                verify_enc_rp_shared(t, st, g.proof[k][i], *gens_, batch, rng_, &g.e[k][i]);
            if (r != RpEncCheck::kOk) blame(i, r);
          }
    };
    CommitmentBatch batch;
    check_all(&batch);
    if (batch.holds(*gens_)) return;
    check_all(nullptr);
    fault_unnamed("the batch of ciphertext proofs failed but every proof verifies");
  }

  // Simulation: replier j's round-2 message for group g (one reply per receiver i).
  std::vector<std::uint8_t> make_replies(std::size_t j, const Group& g, GroupSecrets& sec,
                                         const std::vector<std::array<Val, 3>>& tri, bool square) {
    // j first checks its own ring-Pedersen part of every proof it is to answer; a failing part
    // is a complaint (member, slot), and then j posts its complaints instead of replies.
    std::vector<std::uint8_t> pl{0};
    const bool false_complaint = cheat_now(j, Step::kFalseComplaint);
    for (std::size_t i = 0; i < c_; ++i) {
      if (!needs_pair(square, i, j)) continue;
      for (std::size_t k = 0; k < g.count; ++k) {
        const RpMultiProof& pr = g.proof[k][i];
        if (owner_holds(j, pr.parts[part_index(square, i, j)], pr.z, g.e[k][i]) &&
            !(false_complaint && pl.size() == 1))
          continue;
        pl.push_back(static_cast<std::uint8_t>(i));
        pl.push_back(static_cast<std::uint8_t>(k));
      }
    }
    if (pl.size() > 1) {
      pl[0] = static_cast<std::uint8_t>((pl.size() - 1) / 2);
      return pl;
    }
    for (std::size_t i = 0; i < c_; ++i) {
      if (!needs_pair(square, i, j)) continue;
      const PaillierPublic& pk = *pk_[i];
      const bool cheat = cheat_now(j, Step::kTripleReply);
      BigInt masks;
      std::vector<BigInt> cts, bs;
      for (std::size_t k = 0; k < g.count; ++k) {
        sec.r[k][i][j] = BigInt::random_bits(kMaskBits, rng_);
        mpz_add(masks.get(), masks.get(), slot_shift(sec.r[k][i][j], k).get());
        Scalar b = sh_[j][tri[g.first + k][1]].declassify();
        if (cheat && k == 0) b += Scalar::one();
        cts.push_back(g.ct[k][i]);
        bs.push_back(BigInt::from_scalar(b));
      }
      // Π_slot Enc_i(a_i·2^(slot·W))^{b_j}: one constant-time simultaneous exponentiation.
      const BigInt acc = pk.mul_plain_secret_multi(cts, bs, EncProofParams::kPlainBits);
      sec.beta[i][j] = BigInt::random_bits(PaillierKey::kAlphaBits, rng_);
      wire::put_big(pl, pk.add(acc, pk.encrypt(masks, sec.beta[i][j], PaillierKey::kAlphaBits)), ct_bytes());
    }
    return pl;
  }

  // A replier's complaint: i's proof of slot k in group g fails j's ring-Pedersen part. A
  // message holds at most K·(c − 1) of them, counted in one byte.
  static_assert(kMaxMembers <= 256 && (kMaxPaillierBits - 2) / kSlotBits * (kMaxMembers - 1) <= 255,
                "complaints (member, slot) and their count fit one byte each");
  struct Complaint {
    std::size_t j, g, i, k;
  };

  void read_replies(std::size_t j, std::size_t gi, Group& g, bool square,
                    std::vector<Complaint>& complaints) {
    constexpr HiddenKind kind = HiddenKind::kTripleReplies;
    const auto& pl = board_.take(j, kind, Step::kTripleReply);
    wire::Reader r(pl);
    const auto n = r.u8();
    if (!r.ok()) malformed(j, Step::kTripleReply, kind, "complaint count");
    if (n > 0) {
      // Complaints, in increasing (member, slot) order, each about a proof j is to answer.
      std::size_t last = 0;
      for (std::size_t x = 0; x < n; ++x) {
        const auto i = r.u8();
        const auto k = r.u8();
        if (!r.ok() || i >= c_ || !needs_pair(square, i, j) || k >= g.count || (x > 0 && i * 256U + k <= last))
          malformed(j, Step::kTripleReply, kind, "complaint");
        last = i * 256U + k;
        complaints.push_back(Complaint{j, gi, i, k});
      }
      if (!r.finish()) malformed(j, Step::kTripleReply, kind, "trailing bytes after complaints");
      return;
    }
    for (std::size_t i = 0; i < c_; ++i) {
      if (!needs_pair(square, i, j)) continue;
      BigInt ct = wire::read_big(r, ct_bytes());
      if (!r.ok() || !pk_[i]->valid(ct)) malformed(j, Step::kTripleReply, kind, "reply not in (0, N²)");
      g.reply[i][j] = std::move(ct);
    }
    if (!r.finish()) malformed(j, Step::kTripleReply, kind, "trailing bytes");
  }

  // Every reader checks each complained-about part itself (public data): a part that fails
  // names the prover (its plaintext is not proven an integer), one that holds names the
  // complainer. An honest prover's parts always hold and an honest replier complains only about
  // a failing part, so neither is ever named. First complaint in (replier, group) order.
  void judge_complaints(const std::vector<Group>& groups, const std::vector<Complaint>& complaints,
                        bool square) {
    for (const Complaint& c : complaints) {
      const Group& g = groups[c.g];
      const RpMultiProof& pr = g.proof[c.k][c.i];
      const std::string where = "triple " + std::to_string(g.first + c.k);
      if (!rp_part_holds(rp_[c.j], pr.parts[part_index(square, c.i, c.j)], pr.z, g.e[c.k][c.i]))
        fault(ids_[c.i], Step::kCiphertextFraction,
              who(ids_[c.i]) + ": ciphertext proof (" + where + ") rejected by " + who(ids_[c.j]) +
                  ": its ring-Pedersen equation fails (the plaintext is not proven an integer)");
      fault(ids_[c.j], Step::kFalseComplaint,
            who(ids_[c.j]) + ": complained about " + who(ids_[c.i]) + "'s ciphertext proof (" +
                where + "), which verifies");
    }
  }

  // Simulation: member i decrypts the product of its replies in each group and posts the
  // commitments to its product shares.
  void make_products(std::size_t i, const std::vector<Group>& groups,
                     const std::vector<GroupSecrets>& secrets,
                     const std::vector<std::array<Val, 3>>& tri, bool square) {
    const PaillierPublic& pk = keys_[i]->pub();
    const Scalar mult = Scalar::from_u64(square ? 2 : 1);
    std::vector<std::uint8_t> items;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const Group& g = groups[gi];
      BigInt sum;
      bool any = false;
      for (std::size_t j = 0; j < c_; ++j)
        if (needs_pair(square, i, j)) {
          sum = any ? pk.add(sum, g.reply[i][j]) : g.reply[i][j];
          any = true;
        }
      const BigInt dec = any ? keys_[i]->decrypt(sum) : BigInt();
      for (std::size_t k = 0; k < g.count; ++k) {
        const auto& ids = tri[g.first + k];
        SecretScalar ci = sh_[i][ids[0]] * sh_[i][ids[1]];
        if (any) ci += slot_value(dec, k).to_secret() * mult;
        for (std::size_t j = 0; j < c_; ++j)
          if (needs_pair(square, j, i)) ci -= secrets[gi].r[k][j][i].to_secret() * mult;
        if (cheat_now(i, Step::kTripleCommit)) ci = ci + Scalar::one();
        sh_[i][ids[2]] = std::move(ci);
        bl_[i][ids[2]] = SecretScalar::random(rng_);
        wire::Writer(items).point(commit(sh_[i][ids[2]], bl_[i][ids[2]], *gens_));
      }
    }
    board_.post_list(i, HiddenKind::kTripleProducts, items, Point::kBytes);
  }

  // Simulation: member i reveals its generation data of group g: shares and blinders of
  // (a, b, c) per slot, its encryption randomness α per slot, and as a replier, for every
  // receiver, its reply randomness β and its masks r per slot.
  std::vector<std::uint8_t> make_reveal(std::size_t i, const Group& g, const GroupSecrets& sec,
                                        const std::vector<std::array<Val, 3>>& tri, bool square) {
    std::vector<std::uint8_t> pl;
    for (std::size_t k = 0; k < g.count; ++k) {
      const auto& ids = tri[g.first + k];
      for (std::size_t x = 0; x < 3; ++x) {
        if (square && x == 1) continue;
        wire::Writer(pl).scalar(sh_[i][ids[x]].declassify()).scalar(bl_[i][ids[x]].declassify());
      }
    }
    if (encrypts(square, i))
      for (std::size_t k = 0; k < g.count; ++k) wire::put_big(pl, sec.alpha[k][i], kAlphaBytes);
    for (std::size_t j = 0; j < c_; ++j) {
      if (!needs_pair(square, j, i)) continue;
      wire::put_big(pl, sec.beta[j][i], kAlphaBytes);
      for (std::size_t k = 0; k < g.count; ++k) wire::put_big(pl, sec.r[k][j][i], kMaskBytes);
    }
    return pl;
  }

  void read_reveal(std::size_t i, const Group& g, Revealed& rv, bool square) {
    constexpr HiddenKind kind = HiddenKind::kTripleReveal;
    if (rv.a.empty()) {
      for (auto* v : {&rv.a, &rv.ra, &rv.b, &rv.rb, &rv.c, &rv.rc})
        v->assign(g.count, std::vector<Scalar>(c_));
      rv.alpha.assign(g.count, std::vector<BigInt>(c_));
      rv.beta.assign(c_, std::vector<BigInt>(c_));
      rv.r.assign(g.count, std::vector<std::vector<BigInt>>(c_, std::vector<BigInt>(c_)));
    }
    const auto& pl = board_.take(i, kind, Step::kTripleCommit);
    wire::Reader r(pl);
    auto scalar = [&]() {
      Scalar v = r.scalar();
      if (!r.ok()) malformed(i, Step::kTripleCommit, kind, "share or blinder");
      return v;
    };
    auto big = [&](std::size_t len) {
      BigInt v = wire::read_big(r, len);
      if (!r.ok()) malformed(i, Step::kTripleCommit, kind, "randomness");
      return v;
    };
    for (std::size_t k = 0; k < g.count; ++k) {
      rv.a[k][i] = scalar();
      rv.ra[k][i] = scalar();
      if (!square) {
        rv.b[k][i] = scalar();
        rv.rb[k][i] = scalar();
      } else {
        rv.b[k][i] = rv.a[k][i];
        rv.rb[k][i] = rv.ra[k][i];
      }
      rv.c[k][i] = scalar();
      rv.rc[k][i] = scalar();
    }
    if (encrypts(square, i))
      for (std::size_t k = 0; k < g.count; ++k) rv.alpha[k][i] = big(kAlphaBytes);
    for (std::size_t j = 0; j < c_; ++j) {
      if (!needs_pair(square, j, i)) continue;
      rv.beta[j][i] = big(kAlphaBytes);
      for (std::size_t k = 0; k < g.count; ++k) rv.r[k][j][i] = big(kMaskBytes);
    }
    if (!r.finish()) malformed(i, Step::kTripleCommit, kind, "trailing bytes");
  }

  // Recomputes every member's messages of one revealed group and names the first member whose
  // published message differs (docs/sampling.md §2).
  void blame_group(const Group& g, const Revealed& rv, const std::vector<std::array<Val, 3>>& tri,
                   bool square) {
    for (std::size_t k = 0; k < g.count; ++k) {
      const auto& ids = tri[g.first + k];
      for (std::size_t i = 0; i < c_; ++i)
        if (!verify_opening(C_[ids[0]][i], rv.a[k][i], rv.ra[k][i], *gens_) ||
            !verify_opening(C_[ids[1]][i], rv.b[k][i], rv.rb[k][i], *gens_) ||
            !verify_opening(C_[ids[2]][i], rv.c[k][i], rv.rc[k][i], *gens_))
          fault(ids_[i], Step::kTripleCommit,
                who(ids_[i]) + ": revealed triple shares do not open its commitments");
    }
    for (std::size_t k = 0; k < g.count; ++k)
      for (std::size_t i = 0; i < c_; ++i)
        if (encrypts(square, i) &&
            !(pk_[i]->encrypt_public(slot_shift(BigInt::from_scalar(rv.a[k][i]), k), rv.alpha[k][i]) ==
              g.ct[k][i]))
          fault(ids_[i], Step::kTripleCiphertext,
                who(ids_[i]) + ": its ciphertext does not encrypt its committed share a_i");
    for (std::size_t i = 0; i < c_; ++i)
      for (std::size_t j = 0; j < c_; ++j) {
        if (!needs_pair(square, i, j)) continue;
        const PaillierPublic& pk = *pk_[i];
        BigInt acc, masks;
        bool masks_ok = true;
        for (std::size_t k = 0; k < g.count; ++k) {
          masks_ok = masks_ok && rv.r[k][i][j].bits() <= kMaskBits;
          mpz_add(masks.get(), masks.get(), slot_shift(rv.r[k][i][j], k).get());
          BigInt term = pk.mul_plain(g.ct[k][i], BigInt::from_scalar(rv.b[k][j]));
          acc = k == 0 ? term : pk.add(acc, term);
        }
        if (!masks_ok || !(pk.add(acc, pk.encrypt_public(masks, rv.beta[i][j])) == g.reply[i][j]))
          fault(ids_[j], Step::kTripleReply,
                who(ids_[j]) + ": its reply to member " + std::to_string(ids_[i]) +
                    " is not Enc(a_i·b_j + r) for its committed b_j");
      }
    for (std::size_t k = 0; k < g.count; ++k)
      for (std::size_t i = 0; i < c_; ++i) {
        Scalar expect = rv.a[k][i] * rv.b[k][i];
        const Scalar mult = Scalar::from_u64(square ? 2 : 1);
        for (std::size_t j = 0; j < c_; ++j) {
          if (needs_pair(square, i, j))
            expect += (rv.a[k][i] * rv.b[k][j] + rv.r[k][i][j].to_scalar()) * mult;
          if (needs_pair(square, j, i)) expect -= rv.r[k][j][i].to_scalar() * mult;
        }
        if (expect != rv.c[k][i])
          fault(ids_[i], Step::kTripleCommit,
                who(ids_[i]) +
                    ": committed product share differs from what its messages determine");
      }
  }

  // Truncation masks: member i contributes R'_i ∈ [0, 2^s) (masked-sum truncations) and
  // R''_i = l0 + 2^32·l1 + 2^64·l2 ∈ [0, 2^96), with one 32-bit range proof over all its values
  // (R'_i < 2^s as R'_i ∈ [0, 2^32) and R'_i + 2^32 − 2^s ∈ [0, 2^32)).
  void generate_masks(const std::vector<std::pair<bool, unsigned>>& truncs) {
    masks_.resize(truncs.size());
    std::size_t npoints = 0, nvalues = 0;
    for (std::size_t t = 0; t < truncs.size(); ++t) {
      masks_[t].exact = truncs[t].first;
      masks_[t].s = truncs[t].second;
      GOPA_CHECK(truncs[t].first || truncs[t].second <= 32, "truncation shifts of at most 32 bits");
      npoints += truncs[t].first ? 3U : 4U;
      nvalues += truncs[t].first ? 3U : 5U;
    }
    // The proofs' sizes: kMaskProofValues values each, the remainder in the last one.
    std::vector<std::size_t> chunks;
    for (std::size_t done = 0; done < nvalues; done += kMaskProofValues)
      chunks.push_back(std::min(kMaskProofValues, nvalues - done));
    auto gens = GeneratorSet::get(kGens, sigma::range_generators(32, chunks[0]));
    // Simulation: each member's values (as committed) and blinders, in message order.
    std::vector<std::vector<SecretScalar>> vals(holds_secrets() ? c_ : 0), blinds(holds_secrets() ? c_ : 0);
    board_.phase();
    for (std::size_t k = 0; k < c_; ++k)
      if (owns(k)) {
        std::vector<SecretScalar> values, blinders;  // the range proof's values
        std::vector<Point> coms;
        std::vector<std::uint8_t> pl;
        const bool cheat = cheat_now(k, Step::kMaskRange);
        for (std::size_t t = 0; t < truncs.size(); ++t) {
          const unsigned s = truncs[t].second;
          auto add_value = [&](std::uint64_t v, bool twin, std::uint64_t published_v) {
            SecretScalar r = SecretScalar::random(rng_);
            const Point C = commit(SecretScalar::from_u64(published_v), r, *gens_);
            wire::Writer(pl).point(C);
            values.push_back(SecretScalar::from_u64(v));
            blinders.push_back(r.clone());
            coms.push_back(C);
            if (twin) {  // v + 2^32 − 2^s ∈ [0, 2^32) proves v < 2^s
              const Scalar off = scalar_of(p2(32) - p2(s));
              values.push_back(SecretScalar::from_u64(v) + off);
              blinders.push_back(r.clone());
              coms.push_back(C + Point::base_mul(off));
            }
            vals[k].push_back(SecretScalar::from_u64(published_v));
            blinds[k].push_back(std::move(r));
          };
          if (!truncs[t].first) {
            const std::uint64_t r1 = rng_.next_u64() & static_cast<std::uint64_t>(p2(s) - 1);
            // A cheating member publishes a commitment to a value out of [0, 2^s) and reuses a
            // proof made for an in-range value.
            const std::uint64_t pub = (cheat && t == 0) ? r1 + (1ULL << s) : r1;
            add_value(r1, true, pub);
          }
          for (std::size_t j = 0; j < 3; ++j) {
            const std::uint64_t l = rng_.next_u64() >> 32;
            add_value(l, false, l);
          }
        }
        // The cheater's proofs are made with in-range values that its commitments do not hold,
        // and the first one carries the binding forgery along G (δ = r1 − (r1 + 2^s), fixed
        // before the binding challenge; docs/proofs.md §4.4), as a malicious prover would.
        testing::Deviation forge;
        if (cheat && !truncs.empty() && !truncs[0].first)
          forge.wire_offsets.push_back({testing::Along::kG, 0, -scalar_of(p2(truncs[0].second))});
        for (std::size_t x = 0, first = 0; x < chunks.size(); first += chunks[x++]) {
          Transcript tp = mask_transcript(k, x);
          const std::size_t d = chunks[x];
          std::optional<testing::ScopedDeviation> scope;
          if (x == 0 && !forge.wire_offsets.empty()) scope.emplace(forge);
          auto proof = sigma::prove_range(tp, *gens, 32, std::span(coms).subspan(first, d),
                                          std::span(values).subspan(first, d),
                                          std::span(blinders).subspan(first, d), rng_);
          GOPA_CHECK(proof.has_value(), "mask values are in range");
          const auto enc = proof->encode();
          pl.insert(pl.end(), enc.begin(), enc.end());
        }
        board_.post(k, HiddenKind::kMasks, std::move(pl));
      }
    std::vector<std::vector<Val>> low(truncs.size(), std::vector<Val>(c_));
    std::vector<std::array<std::vector<Val>, 3>> limbs(truncs.size());
    for (auto& l : limbs)
      for (auto& v : l) v.resize(c_);
    {
      VerifyTimer vt(verify_seconds_);
      std::vector<sigma::RangeStatement> statements;
      std::vector<sigma::RangeProof> proofs;
      std::vector<std::size_t> owner;  // the member of each proof
      constexpr HiddenKind kind = HiddenKind::kMasks;
      for (std::size_t k = 0; k < c_; ++k) {
        const auto& pl = board_.take(k, kind, Step::kMaskRange);
        wire::Reader r(pl);
        std::vector<Point> coms;
        std::size_t idx = 0;
        // The next commitment of member k's message as a new value (with the member's share
        // and blinder in the simulation); `twin` adds the shifted commitment R' + 2^32 − 2^s.
        auto value = [&](Val& slot, std::optional<unsigned> twin) {
          const Point P = r.point();
          if (!r.ok()) malformed(k, Step::kMaskRange, kind, "commitment");
          slot = new_value();
          C_[slot][k] = P;
          if (owns(k)) {
            sh_[k][slot] = std::move(vals[k][idx]);
            bl_[k][slot] = std::move(blinds[k][idx]);
          }
          ++idx;
          coms.push_back(P);
          if (twin) coms.push_back(P + Point::base_mul(scalar_of(p2(32) - p2(*twin))));
        };
        for (std::size_t t = 0; t < truncs.size(); ++t) {
          if (!truncs[t].first) value(low[t][k], truncs[t].second);
          for (std::size_t j = 0; j < 3; ++j) value(limbs[t][j][k], std::nullopt);
        }
        GOPA_CHECK(npoints == idx && coms.size() == nvalues, "mask message layout");
        for (std::size_t x = 0, first = 0; x < chunks.size(); first += chunks[x++]) {
          const std::size_t d = chunks[x];
          const auto bytes = r.bytes(sigma::RangeProof::encoded_size(32, d));
          auto proof = sigma::RangeProof::decode(bytes);
          if (!r.ok() || !proof || proof->bits != 32 || proof->d != d)
            malformed(k, Step::kMaskRange, kind, "range proof");
          statements.push_back(sigma::RangeStatement{
              32, std::vector<Point>(coms.begin() + static_cast<std::ptrdiff_t>(first),
                                     coms.begin() + static_cast<std::ptrdiff_t>(first + d))});
          proofs.push_back(std::move(*proof));
          owner.push_back(k);
        }
        if (!r.finish()) malformed(k, Step::kMaskRange, kind, "trailing bytes");
      }
      // One batched verification of every member's proofs; proof by proof only on failure.
      auto transcript = [&](std::size_t i) { return mask_transcript(owner[i], i % chunks.size()); };
      std::vector<Transcript> ts;
      for (std::size_t i = 0; i < proofs.size(); ++i) ts.push_back(transcript(i));
      if (!sigma::batch_verify_range(ts, *gens, statements, proofs, rng_)) {
        for (std::size_t i = 0; i < proofs.size(); ++i) {
          Transcript tv = transcript(i);
          auto res = sigma::verify_range(tv, *gens, statements[i], proofs[i]);
          if (!res)
            fault(ids_[owner[i]], Step::kMaskRange,
                  who(ids_[owner[i]]) + ": range proof of its truncation masks rejected (" +
                      res.message + ")");
        }
        fault_unnamed("the batch of range proofs failed but every proof verifies");
      }
    }
    // Shared masks: Σ of the members' contributions.
    for (std::size_t t = 0; t < truncs.size(); ++t) {
      auto sum = [&](const std::vector<Val>& parts) {
        std::vector<Scalar> w(c_, Scalar::one());
        return lincomb(parts, w, Scalar::zero());
      };
      if (!truncs[t].first) masks_[t].low = sum(low[t]);
      for (std::size_t j = 0; j < 3; ++j) masks_[t].limb[j] = sum(limbs[t][j]);
    }
  }

  // The transcript of member k's range proof number `proof` of its masks.
  Transcript mask_transcript(std::size_t k, std::size_t proof) const {
    Transcript t("gopa/hidden-sample v1");
    t.domain_separator("gopa/hidden/masks v2");
    t.append_message("params", p_.name());
    t.append_u64("member", ids_[k]);
    t.append_u64("proof", proof);
    return t;
  }

  // Random bits b = (u/√(u²) + 1)/2: every member commits to a uniform share of each u; one
  // square pair and one opening per bit.
  void generate_bits(std::size_t n) {
    std::vector<Val> u(n);
    for (std::size_t i = 0; i < n; ++i) u[i] = new_value();
    board_.phase();
    for (std::size_t k = 0; k < c_; ++k)
      if (owns(k)) {
        std::vector<std::uint8_t> items;
        for (std::size_t i = 0; i < n; ++i) {
          sh_[k][u[i]] = SecretScalar::random(rng_);
          bl_[k][u[i]] = SecretScalar::random(rng_);
          wire::Writer(items).point(commit(sh_[k][u[i]], bl_[k][u[i]], *gens_));
        }
        board_.post_list(k, HiddenKind::kBitShares, items, Point::kBytes);
      }
    {
      VerifyTimer vt(verify_seconds_);
      for (std::size_t k = 0; k < c_; ++k) {
        const auto pts = take_points(k, HiddenKind::kBitShares, Step::kBitOpening, n);
        for (std::size_t i = 0; i < n; ++i) C_[u[i]][k] = pts[i];
      }
    }
    std::vector<Val> sq = square_many(u);
    std::vector<Scalar> w = open(sq, Step::kBitOpening, HiddenKind::kBitOpening);
    const Scalar half = *Scalar::from_u64(2).invert();
    for (std::size_t i = 0; i < n; ++i) {
      // u = 0 has probability 1/ℓ for honest members; nobody can be named for it.
      if (w[i].is_zero()) fault_unnamed("an opened u² is 0");
      const auto v = sqrt_canonical(w[i]);
      if (!v) fault_unnamed("an opened u² is not a square");
      const Val uv[1] = {u[i]};
      const Scalar coef[1] = {*v->invert() * half};
      bits_.push_back(lincomb(uv, coef, half));
    }
    out_.cost.random_bits += n;
  }

  // The square root of w mod ℓ (ℓ ≡ 5 mod 8, Atkin), the smaller of ±v; nullopt if w is not a
  // square. Public data.
  static std::optional<Scalar> sqrt_canonical(const Scalar& w) {
    static const BigInt ell = [] {
      BigInt l;
      mpz_set_str(l.get(), "7237005577332262213973186563042994240857116359379907606001950938285454250989", 10);
      return l;
    }();
    BigInt W = BigInt::from_scalar(w), two_w, e, v, i, r;
    mpz_mul_2exp(two_w.get(), W.get(), 1);
    mpz_mod(two_w.get(), two_w.get(), ell.get());
    mpz_sub_ui(e.get(), ell.get(), 5);
    mpz_fdiv_q_2exp(e.get(), e.get(), 3);
    mpz_powm(v.get(), two_w.get(), e.get(), ell.get());
    mpz_mul(i.get(), v.get(), v.get());
    mpz_mul(i.get(), i.get(), two_w.get());
    mpz_sub_ui(i.get(), i.get(), 1);
    mpz_mul(r.get(), W.get(), v.get());
    mpz_mul(r.get(), r.get(), i.get());
    mpz_mod(r.get(), r.get(), ell.get());
    BigInt neg;
    mpz_sub(neg.get(), ell.get(), r.get());
    if (mpz_cmp(neg.get(), r.get()) < 0) r = neg;
    const Scalar root = r.to_scalar();
    if (root * root != w) return std::nullopt;
    return root;
  }

  struct LocalCheat {
    std::size_t member;
    Step step;
    std::size_t occurrence;
  };

  const HiddenParams& p_;
  std::vector<std::size_t> ids_;
  std::size_t c_;
  bool sim_;
  std::optional<std::size_t> me_;         // a member of its own process: its position
  std::vector<const PaillierKey*> keys_;  // the keys this reader holds (null for the others')
  const HiddenKeySet* proven_;            // the keys of an earlier key round, or null
  std::optional<HiddenKeySet> key_set_;   // the keys this attempt's key round proved
  detail::RpTableCache* tables_ = nullptr;  // simulation: a HiddenCommittee's tables, or null
  Rng& rng_;
  bool trace_;
  Board board_;
  std::shared_ptr<const GeneratorSet> gens_;
  std::vector<LocalCheat> cheats_;
  std::map<std::pair<std::size_t, Step>, std::size_t> occurrences_;

  std::vector<const PaillierPublic*> pk_;                 // the keys as published
  std::vector<RingPedersen> rp_;                          // the members' ring-Pedersen parameters
  std::vector<std::shared_ptr<const FixedBaseSec>> rp_s_tab_, rp_t_tab_;  // simulation: s_j, t_j
  std::vector<std::shared_ptr<const RpOwnerCheck>> rp_own_;  // simulation: member j's own check
  double extra_seconds_ = 0;  // simulation: work the other members repeat (table builds)
  std::vector<std::unique_ptr<PaillierKey>> bad_keys_;    // simulation only: deliberate bad keys
  std::vector<std::unique_ptr<PaillierPublic>> own_pk_;   // verifier: built from the log

  std::vector<std::vector<Point>> C_;               // public: [value][member]
  std::vector<std::vector<SecretScalar>> sh_, bl_;  // [member][value], for the members owned

  std::vector<std::array<Val, 3>> triples_, squares_;  // squares: (a, a, a²)
  std::size_t next_triple_ = 0, next_square_ = 0;
  std::vector<Val> bits_;
  std::size_t next_bit_ = 0;
  std::vector<Mask> masks_;
  std::size_t next_mask_ = 0;
  unsigned seed_calls_ = 0;

  // Verification time: checks every member repeats (verify_seconds_, counted c times) and checks
  // of a member's own proofs by the c − 1 others (others_verify_seconds_: the key proofs and the
  // shared parts of the ciphertext proofs).
  double verify_seconds_ = 0, pre_verify_ = 0, others_verify_seconds_ = 0;
  HiddenOutput out_;
};

DryRun dry_run(const HiddenParams& p) {
  detail::ClearEngine e(0, 0, {});
  (void)detail::box_muller_shares(e, p);
  DryRun d;
  d.muls = e.muls;
  d.truncs = e.truncs;
  d.bits = 2 * p.m;
  for (const auto& [exact, s] : e.truncs)
    if (exact) d.bits += s;
  return d;
}

// Why p and the member list cannot describe an attempt (empty when they can).
std::string params_error(const HiddenParams& p, std::span<const std::size_t> members) {
  if (members.size() < 2 || members.size() > kMaxMembers) return "committee size not in [2, 32]";
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] > 0xFFFFFFFFU) return "member index above 2^32 − 1";
    for (std::size_t j = 0; j < i; ++j)
      if (members[i] == members[j]) return "a member listed twice";
  }
  if (p.f < 8 || p.f > 24) return "f not in [8, 24]";
  if (p.F < p.f + 4 || p.F > p.f + 12) return "F − f not in [4, 12]";
  if (p.m != p.f + 4) return "m is not f + 4";
  const bool sigma_ok = p.sigma_bits == 0
                            ? p.sigma_fx == 1
                            : p.sigma_bits == 16 && p.sigma_fx >= 1 && p.sigma_fx < p2(40);
  if (!sigma_ok) return "sigma not as HiddenParams::make sets it";
  if (p.paillier_bits < kMinPaillierBits || p.paillier_bits > kMaxPaillierBits ||
      p.paillier_bits % 2 != 0)
    return "paillier_bits not even in [674, 4096]";
  if (p.degree != detail::radius_table(p.F, p.m).degree) return "degree is not the radius table's";
  return {};
}

Attempt attempt_with_keys(const HiddenParams& p, const std::vector<std::size_t>& members,
                          const std::vector<const PaillierKey*>& keys, const HiddenKeySet* proven,
                          const std::vector<Cheat>& cheats, Rng& rng, bool trace,
                          std::optional<HiddenKeySet>* proved = nullptr,
                          detail::RpTableCache* tables = nullptr) {
  GOPA_CHECK(members.size() == keys.size(), "one key per member");
  const std::string err = params_error(p, members);
  GOPA_CHECK(err.empty(), "valid hidden-sample parameters and committee");
  const DryRun d = dry_run(p);
  Attempt a;
  a.key_round = proven == nullptr;
  Committee com(p, members, keys, proven, cheats, rng, trace, a.log, tables);
  try {
    com.preprocess(d);
    a.output = com.output(com.online());
  } catch (const Fault& f) {
    a.blame = f.blame;
    a.error = f.why;
  }
  if (proved != nullptr && com.key_set()) *proved = std::move(com.key_set());
  return a;
}

}  // namespace

const char* step_name(Step s) noexcept {
  switch (s) {
    case Step::kTripleCiphertext: return "triple-ciphertext";
    case Step::kTripleReply: return "triple-reply";
    case Step::kTripleCommit: return "triple-commit";
    case Step::kSacrificeOpening: return "sacrifice-opening";
    case Step::kMaskRange: return "mask-range";
    case Step::kBitOpening: return "bit-opening";
    case Step::kMulOpening: return "mul-opening";
    case Step::kTruncOpening: return "trunc-opening";
    case Step::kCiphertextRange: return "ciphertext-range";
    case Step::kPaillierKey: return "paillier-key";
    case Step::kCiphertextFraction: return "ciphertext-fraction";
    case Step::kFalseComplaint: return "false-complaint";
  }
  return "unknown";
}

HiddenParams HiddenParams::make(unsigned f, std::size_t members, double sigma, unsigned guard) {
  GOPA_CHECK(f >= 8 && f <= 24, "output precision f must be in [8, 24]");
  GOPA_CHECK(members >= 2 && members <= 32, "committee size in [2, 32]");
  GOPA_CHECK(sigma > 0 && sigma < 1e6, "sigma out of range");
  GOPA_CHECK(guard >= 4 && guard <= 12, "guard bits in [4, 12]");
  HiddenParams p;
  p.members = members;
  p.f = f;
  p.F = f + guard;  // guard bits for the masked-sum truncations (docs/sampling.md §3)
  p.m = f + 4;  // seed bits, as the private samplers (circuits: m = f + 4)
  p.degree = detail::radius_table(p.F, p.m).degree;
  if (sigma != 1.0) {
    p.sigma_bits = 16;
    p.sigma_fx = static_cast<i128>(std::llround(std::ldexp(sigma, 16)));
  }
  return p;
}

std::string HiddenParams::name() const {
  std::ostringstream o;
  o << "gopa/hidden/box-muller v1 c=" << members << " f=" << f << " F=" << F << " m=" << m
    << " degree=" << degree << " sigma=" << static_cast<long long>(sigma_fx) << "/2^" << sigma_bits
    << " paillier=" << paillier_bits;
  return o.str();
}

std::int64_t SharedOutput::reveal() const {
  Scalar s;
  for (const Scalar& x : shares) s += x;
  return static_cast<std::int64_t>(signed_of(s));
}

std::optional<std::size_t> HiddenKeySet::index_of(std::size_t member) const {
  for (std::size_t k = 0; k < members.size(); ++k)
    if (members[k] == member) return k;
  return std::nullopt;
}

Attempt hidden_box_muller_attempt(const HiddenParams& p, const std::vector<std::size_t>& members,
                                  const std::vector<Cheat>& cheats, Rng& rng, bool trace) {
  std::vector<PaillierKey> keys;
  for (std::size_t i = 0; i < members.size(); ++i)
    keys.push_back(PaillierKey::generate(p.paillier_bits, rng));
  std::vector<const PaillierKey*> kp;
  for (const auto& k : keys) kp.push_back(&k);
  return attempt_with_keys(p, members, kp, nullptr, cheats, rng, trace);
}

HiddenCommittee::HiddenCommittee(const HiddenParams& p, const std::vector<std::size_t>& members,
                                 Rng& rng)
    : p_(p), tables_(std::make_shared<detail::RpTableCache>()) {
  for (std::size_t id : members) {
    GOPA_CHECK(!secret_.count(id), "a member listed once");
    secret_.emplace(id, PaillierKey::generate(p.paillier_bits, rng));
  }
}

Attempt HiddenCommittee::attempt(const std::vector<std::size_t>& members,
                                 const std::vector<Cheat>& cheats, Rng& rng, bool trace) {
  std::vector<const PaillierKey*> kp;
  for (std::size_t id : members) {
    auto it = secret_.find(id);
    GOPA_CHECK(it != secret_.end(), "a member of the committee");
    kp.push_back(&it->second);
  }
  const HiddenKeySet* proven = keys_ ? &*keys_ : nullptr;
  std::optional<HiddenKeySet> proved;
  Attempt a = attempt_with_keys(p_, members, kp, proven, cheats, rng, trace, &proved, tables_.get());
  if (proved) keys_ = std::move(proved);
  return a;
}

HiddenMember::HiddenMember(const HiddenParams& p, std::size_t id, Rng& rng)
    : p_(p), id_(id), key_(PaillierKey::generate(p.paillier_bits, rng)),
      tables_(std::make_shared<detail::RpTableCache>()) {}

MemberAttempt HiddenMember::attempt(const std::vector<std::size_t>& members, const MemberIo& io, Rng& rng,
                                    const std::vector<Cheat>& cheats) {
  const std::string err = params_error(p_, members);
  GOPA_CHECK(err.empty(), "valid hidden-sample parameters and committee");
  const auto at = std::find(members.begin(), members.end(), id_);
  GOPA_CHECK(at != members.end(), "the member is in the attempt's committee");
  const auto me = static_cast<std::size_t>(at - members.begin());
  const DryRun d = dry_run(p_);
  MemberAttempt out;
  out.key_round = !keys_;
  Committee com(p_, members, me, key_, keys_ ? &*keys_ : nullptr, cheats, rng, io, tables_.get());
  try {
    com.preprocess(d);
    HiddenOutput o = com.output(com.online());
    out.ok = true;
    for (std::size_t s = 0; s < 2; ++s) {
      out.commitments.push_back(o.samples[s].commitments);
      out.share[s] = o.samples[s].shares[me];
      out.blinder[s] = o.samples[s].blinders[me];
    }
  } catch (const Fault& f) {
    out.blame = f.blame;
    out.error = f.why;
  }
  if (!keys_ && com.key_set()) keys_ = std::move(com.key_set());
  out.misplaced = com.misplaced();
  return out;
}

HiddenRun run_hidden_box_muller(const HiddenParams& p, const std::vector<Cheat>& cheats, Rng& rng,
                                bool trace) {
  std::vector<std::size_t> members;
  for (std::size_t i = 0; i < p.members; ++i) members.push_back(i);
  HiddenCommittee com(p, members, rng);
  HiddenRun run;
  for (std::size_t attempt = 0; attempt_refusal(members.size(), attempt).empty(); ++attempt) {
    ++run.attempts;
    std::optional<HiddenKeySet> used;
    if (com.keys() != nullptr) used = *com.keys();
    Attempt a = com.attempt(members, cheats, rng, trace);
    run.logs.push_back(HiddenAttemptLog{members, std::move(a.log), std::move(used)});
    if (a.output) {
      run.output = std::move(a.output);
      break;
    }
    if (a.blame) run.blamed.push_back(*a.blame);
    drop_blamed(members, a.blame);
  }
  return run;
}

std::string attempt_refusal(std::size_t members, std::size_t attempt) {
  if (members < 2) return "fewer than two committee members left";
  if (attempt >= kMaxHiddenAttempts)
    return "no output after " + std::to_string(kMaxHiddenAttempts) + " attempts";
  return {};
}

void drop_blamed(std::vector<std::size_t>& members, const std::optional<Blame>& blame) {
  if (blame) members.erase(std::remove(members.begin(), members.end(), blame->member), members.end());
}

HiddenVerdict verify_hidden_log(const HiddenParams& p, std::span<const std::size_t> members,
                                std::span<const HiddenMessage> log, const HiddenKeySet* keys) {
  HiddenVerdict v;
  v.error = params_error(p, members);
  if (v.error.empty() && keys != nullptr) {
    const bool shaped = keys->pk.size() == keys->members.size() &&
                        keys->rp.size() == keys->members.size() &&
                        std::all_of(keys->pk.begin(), keys->pk.end(), [](const auto& k) { return k != nullptr; });
    if (!shaped) v.error = "the key set is not one key and one parameter set per member";
    for (std::size_t id : members)
      if (v.error.empty() && !keys->index_of(id))
        v.error = "member " + std::to_string(id) + " has no key in the key set";
  }
  if (!v.error.empty()) {
    v.error = "invalid parameters: " + v.error;
    return v;
  }
  const DryRun d = dry_run(p);
  SystemRng rng;
  Committee com(p, std::vector<std::size_t>(members.begin(), members.end()), log, keys, rng);
  try {
    com.preprocess(d);
    const auto [e1, e2] = com.online();
    v.commitments = {com.commitments(e1), com.commitments(e2)};
    v.ok = true;
  } catch (const Fault& f) {
    v.blame = f.blame;
    v.error = f.why;
  }
  if (com.key_set()) v.keys = std::move(com.key_set());
  v.messages = com.messages();
  v.bytes = com.bytes();
  v.misplaced = com.misplaced();
  return v;
}

std::pair<std::int64_t, std::int64_t> hidden_box_muller_reference(
    const HiddenParams& p, std::uint64_t s1, std::uint64_t s2, const std::vector<int>& offsets) {
  detail::ClearEngine e(s1, s2, offsets);
  auto [a, b] = detail::box_muller_shares(e, p);
  return {static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)};
}

Cost hidden_box_muller_counts(const HiddenParams& p) {
  const DryRun d = dry_run(p);
  Cost c;
  c.random_bits = d.bits;
  c.triples = static_cast<std::size_t>(d.muls) + d.bits;
  c.triples_generated = 2 * c.triples;
  c.truncations = d.truncs.size();
  return c;
}

std::pair<int, int> truncation_offset_range(std::size_t members) noexcept {
  const int h = static_cast<int>((members + 1) / 2);
  return {-h, h + 1};
}

}  // namespace gopa::sampling
