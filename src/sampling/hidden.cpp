// Hidden Box–Muller samples by a committee with committed additive shares
// (include/gopa/sampling.hpp, docs/sampling.md).
#include <algorithm>
#include <array>
#include <ctime>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include "box_muller_shares.hpp"
#include "engines.hpp"
#include "gopa/check.hpp"
#include "gopa/msm.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sampling.hpp"
#include "gopa/sampling/paillier.hpp"
#include "gopa/sampling/paillier_proofs.hpp"
#include "gopa/sigma/range.hpp"
#include "gopa/transcript.hpp"

namespace gopa::sampling {
namespace {

using detail::p2;
__extension__ typedef unsigned __int128 u128;

// Paillier reply masks: they must hide a·b for every plaintext the ciphertext proof admits,
// |a| < 2^373 (EncProofParams::kBoundBits), times b < 2^253, with 40 bits of statistical hiding.
constexpr unsigned kMaskBits = EncProofParams::kBoundBits + EncProofParams::kPlainBits + 40;
constexpr char kGens[] = "gopa";

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

struct Fault {
  Blame blame;
};

[[noreturn]] void fault(std::size_t member, Step step, std::string why) {
  throw Fault{Blame{member, step, std::move(why)}};
}

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

// Generation data of a group of K triples packed in the same Paillier replies, kept by the
// members and opened only if one of the group's triples fails its sacrifice check.
struct TripleGroup {
  std::vector<std::size_t> triples;                      // indices into the generated triples
  std::vector<std::vector<BigInt>> ct, alpha;            // [slot][i]: Enc_i(a_i·2^(slot·W)), public
  std::vector<std::vector<EncProof>> proof;              // [slot][i]: ct encrypts committed a_i
  std::vector<std::vector<BigInt>> reply, beta;          // [i][j]: from replier j to i (public)
  std::vector<std::vector<std::vector<BigInt>>> r;       // [slot][i][j]: j's mask (private to j)
};

struct Mask {
  std::uint32_t low = 0;                // R' (masked-sum truncations only)
  std::array<std::uint32_t, 3> limb{};  // R'' = l0 + 2^32·l1 + 2^64·l2
  bool exact = false;
  unsigned s = 0;
};

class Committee {
 public:
  using Val = std::uint32_t;

  Committee(const HiddenParams& p, std::vector<std::size_t> ids,
            std::vector<const PaillierKey*> keys, const std::vector<Cheat>& cheats, Rng& rng,
            bool trace)
      : p_(p), ids_(std::move(ids)), c_(ids_.size()), keys_(std::move(keys)), rng_(rng),
        trace_(trace), board_("gopa/hidden-sample v1"),
        gens_(GeneratorSet::get(kGens, 1)) {
    for (const auto& ch : cheats)
      for (std::size_t k = 0; k < c_; ++k)
        if (ids_[k] == ch.member) cheats_.push_back({k, ch.step, ch.occurrence});
    sh_.resize(c_);
    bl_.resize(c_);
    board_.domain_separator("gopa/hidden/box-muller v1");
    board_.append_message("params", p_.name());
    for (std::size_t id : ids_) board_.append_u64("member", id);
  }

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
  void preprocess(std::size_t triples, std::size_t bits,
                  const std::vector<std::pair<bool, unsigned>>& truncs) {
    const auto t0 = Clock::now();
    const std::size_t bytes0 = bytes_;
    generate_triples(triples, false);
    generate_triples(bits, true);
    generate_masks(truncs);
    generate_bits(bits);
    out_.cost.seconds_preprocessing = since(t0);
    out_.cost.bytes_preprocessing = bytes_ - bytes0;
  }

  HiddenOutput online() {
    const auto t0 = Clock::now();
    auto [e1, e2] = detail::box_muller_shares(*this, p_);
    out_.cost.seconds_online = since(t0);
    for (Val v : {e1, e2}) {
      SharedOutput o;
      o.members = ids_;
      o.commitments = C_[v];
      for (std::size_t k = 0; k < c_; ++k) {
        o.shares.push_back(sh_[k][v].declassify());
        o.blinders.push_back(bl_[k][v].declassify());
      }
      out_.samples.push_back(std::move(o));
    }
    out_.cost.bytes = bytes_;
    // Every member verifies the public messages: count the verification c times.
    const double extra = static_cast<double>(c_ - 1) * verify_seconds_;
    out_.cost.seconds_verify = verify_seconds_ + ct_verify_seconds_;
    out_.cost.seconds_preprocessing += extra * pre_verify_share();
    // A ciphertext proof is checked by the c − 1 other members (measured once above).
    out_.cost.seconds_preprocessing += static_cast<double>(c_ - 2) * ct_verify_seconds_;
    out_.cost.seconds_online += extra * (1 - pre_verify_share());
    return std::move(out_);
  }

  void mark_preprocessing_verify() { pre_verify_ = verify_seconds_; }

 private:
  double pre_verify_share() const {
    return verify_seconds_ > 0 ? pre_verify_ / verify_seconds_ : 0;
  }

  // ---------------------------------------------------------------- shares and commitments
  Val new_value() {
    const auto id = static_cast<Val>(C_.size());
    C_.emplace_back(c_);
    for (std::size_t k = 0; k < c_; ++k) {
      sh_[k].emplace_back();
      bl_[k].emplace_back();
    }
    return id;
  }

  // Member k's private value as a shared value (other shares 0 with blinder 0); publishes C_k.
  Val contribute(std::size_t k, SecretScalar v) {
    Val id = new_value();
    SecretScalar r = SecretScalar::random(rng_);
    C_[id][k] = commit(v, r, *gens_);
    sh_[k][id] = std::move(v);
    bl_[k][id] = std::move(r);
    publish_point("contribution", C_[id][k]);
    return id;
  }

  // Every member contributes a uniformly random share.
  Val random_value() {
    Val id = new_value();
    for (std::size_t k = 0; k < c_; ++k) {
      sh_[k][id] = SecretScalar::random(rng_);
      bl_[k][id] = SecretScalar::random(rng_);
      C_[id][k] = commit(sh_[k][id], bl_[k][id], *gens_);
      publish_point("share", C_[id][k]);
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
      SecretScalar s, r;
      for (std::size_t i = 0; i < v.size(); ++i) {
        s += sh_[k][v[i]] * w[i];
        r += bl_[k][v[i]] * w[i];
        pts[i] = C_[v[i]][k];
      }
      if (k == 0) s = s + c;
      Point P = v.empty() ? Point::identity() : (v.size() <= 2 ? lin_small(w, pts) : msm(w, pts));
      if (k == 0 && !c.is_zero()) P += Point::base_mul(c);
      sh_[k][id] = std::move(s);
      bl_[k][id] = std::move(r);
      C_[id][k] = P;
    }
    return id;
  }

  static Point lin_small(std::span<const Scalar> w, std::span<const Point> pts) {
    Point P;
    for (std::size_t i = 0; i < w.size(); ++i) P += pts[i] * w[i];
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

  void publish_point(std::string_view label, const Point& P) {
    bytes_ += Point::kBytes;
    board_.append_point(label, P);
  }

  // Every member publishes its share and blinder of each value; anyone checks them against the
  // commitments (one random-weighted MSM; on failure, member by member to name the culprit).
  std::vector<Scalar> open(std::span<const Val> vals, Step step) {
    const std::size_t n = vals.size();
    std::vector<Scalar> s(n * c_), r(n * c_);
    for (std::size_t k = 0; k < c_; ++k) {
      const bool cheat = cheat_now(k, step);
      for (std::size_t i = 0; i < n; ++i) {
        s[k * n + i] = sh_[k][vals[i]].declassify();
        r[k * n + i] = bl_[k][vals[i]].declassify();
        if (cheat && i == 0) s[k * n + i] += Scalar::one();
      }
    }
    bytes_ += 2 * Scalar::kBytes * n * c_;
    out_.cost.openings += n;
    {
      VerifyTimer vt(verify_seconds_);
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
                    "member " + std::to_string(ids_[k]) + ": opened share of value " +
                        std::to_string(i) + " does not match its commitment (" + step_name(step) + ")");
        GOPA_CHECK(false, "batched opening check failed but every opening verifies");
      }
    }
    std::vector<Scalar> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < c_; ++k) out[i] += s[k * n + i];
      board_.append_scalar("opened", out[i]);
    }
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
    std::vector<Scalar> op = open(de, Step::kMulOpening);
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
    std::vector<Scalar> d = open(ds, Step::kMulOpening);
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
    const Scalar cp = open(mv, Step::kTruncOpening)[0];
    BigInt q = BigInt::from_scalar(cp);
    GOPA_CHECK(q.bits() < 240, "masked value does not wrap (range-proven masks)");
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

  // ---------------------------------------------------------------- preprocessing
  // Paillier slot width: a·b + r < 2^(kMaskBits + 1) never carries into the next slot.
  static constexpr unsigned kSlotBits = kMaskBits + 2;

  std::size_t slots() const {
    const std::size_t nb = keys_[0]->pub().n_bits();
    GOPA_CHECK(nb >= kSlotBits + 2, "Paillier modulus holds one reply slot (paillier_bits >= 672)");
    return std::max<std::size_t>(1, (nb - 2) / kSlotBits);
  }

  // A product of members i and j is needed for every ordered pair (triples) or for i < j only
  // (square pairs (a, a²): a² = Σ a_i² + 2·Σ_{i<j} a_i a_j).
  static bool needs_pair(bool square, std::size_t i, std::size_t j) {
    return square ? i < j : i != j;
  }

  // n triples (a, b, ab) or, with square, n square pairs (a, a, a²), each checked by sacrifice.
  void generate_triples(std::size_t n, bool square) {
    const std::size_t total = 2 * n;
    const std::size_t K = slots();
    std::vector<std::array<Val, 3>> tri(total);
    std::vector<TripleGroup> groups;
    std::vector<std::size_t> group_of(total);
    for (std::size_t first = 0; first < total; first += K) {
      TripleGroup g;
      const std::size_t kk = std::min(K, total - first);
      for (std::size_t k = 0; k < kk; ++k) {
        g.triples.push_back(first + k);
        group_of[first + k] = groups.size();
      }
      g.ct.assign(kk, std::vector<BigInt>(c_));
      g.alpha.assign(kk, std::vector<BigInt>(c_));
      g.proof.assign(kk, std::vector<EncProof>(c_));
      g.reply.assign(c_, std::vector<BigInt>(c_));
      g.beta.assign(c_, std::vector<BigInt>(c_));
      g.r.assign(kk, std::vector<std::vector<BigInt>>(c_, std::vector<BigInt>(c_)));
      // a_i, b_i committed; Enc_i(a_i·2^(slot·W)) broadcast.
      for (std::size_t k = 0; k < kk; ++k) {
        std::array<Val, 3> ids{new_value(), 0, 0};
        ids[1] = square ? ids[0] : new_value();
        ids[2] = new_value();
        for (std::size_t i = 0; i < c_; ++i) {
          for (std::size_t j = 0; j < (square ? 1U : 2U); ++j) {
            sh_[i][ids[j]] = SecretScalar::random(rng_);
            bl_[i][ids[j]] = SecretScalar::random(rng_);
            C_[ids[j]][i] = commit(sh_[i][ids[j]], bl_[i][ids[j]], *gens_);
            publish_point("triple share", C_[ids[j]][i]);
          }
          if (square && i + 1 == c_) continue;  // the last member only answers
          g.alpha[k][i] = BigInt::random_bits(PaillierKey::kAlphaBits, rng_);
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
          g.ct[k][i] = keys_[i]->pub().encrypt(slot_shift(a, k), g.alpha[k][i]);
          publish_ct(*keys_[i], g.ct[k][i]);
          // Proof that the ciphertext encrypts the committed a_i (times the slot shift) and
          // that a_i is small (docs/sampling.md §2, Ciphertext proofs).
          EncStatement st{&keys_[i]->pub(), g.ct[k][i], C_[ids[0]][i],
                          static_cast<unsigned>(k * kSlotBits)};
          Transcript tp = ct_transcript(i, square, first + k, st);
          g.proof[k][i] = big ? detail::prove_enc_unchecked(tp, st, a, g.alpha[k][i], bl_[i][ids[0]],
                                                            *gens_, rng_)
                              : prove_enc(tp, st, a, g.alpha[k][i], bl_[i][ids[0]], *gens_, rng_);
          bytes_ += EncProof::encoded_bytes(keys_[i]->pub());
        }
        tri[first + k] = ids;
      }
      verify_ciphertexts(g, tri, first, square);
      // j answers i with Enc_i(Σ_slot (a_i·b_j + r_ij)·2^(slot·W)); i keeps a_i·b_j + r_ij per
      // slot, j keeps −r_ij.
      for (std::size_t i = 0; i < c_; ++i)
        for (std::size_t j = 0; j < c_; ++j) {
          if (!needs_pair(square, i, j)) continue;
          const PaillierPublic& pk = keys_[i]->pub();
          const bool cheat = cheat_now(j, Step::kTripleReply);
          BigInt masks;
          BigInt acc;
          for (std::size_t k = 0; k < kk; ++k) {
            g.r[k][i][j] = BigInt::random_bits(kMaskBits, rng_);
            mpz_add(masks.get(), masks.get(), slot_shift(g.r[k][i][j], k).get());
            Scalar b = sh_[j][tri[first + k][1]].declassify();
            if (cheat && k == 0) b += Scalar::one();
            BigInt term = pk.mul_plain_secret(g.ct[k][i], BigInt::from_scalar(b), EncProofParams::kPlainBits);
            acc = k == 0 ? term : pk.add(acc, term);
          }
          g.beta[i][j] = BigInt::random_bits(PaillierKey::kAlphaBits, rng_);
          g.reply[i][j] = pk.add(acc, pk.encrypt(masks, g.beta[i][j]));
          publish_ct(*keys_[i], g.reply[i][j]);
        }
      for (std::size_t i = 0; i < c_; ++i) {
        std::vector<BigInt> dec(c_);
        for (std::size_t j = 0; j < c_; ++j)
          if (needs_pair(square, i, j)) dec[j] = keys_[i]->decrypt(g.reply[i][j]);
        const Scalar mult = Scalar::from_u64(square ? 2 : 1);
        for (std::size_t k = 0; k < kk; ++k) {
          const auto& ids = tri[first + k];
          SecretScalar ci = sh_[i][ids[0]] * sh_[i][ids[1]];
          for (std::size_t j = 0; j < c_; ++j) {
            if (needs_pair(square, i, j)) ci += slot_value(dec[j], k).to_secret() * mult;
            if (needs_pair(square, j, i)) ci -= g.r[k][j][i].to_secret() * mult;
          }
          if (cheat_now(i, Step::kTripleCommit)) ci = ci + Scalar::one();
          sh_[i][ids[2]] = std::move(ci);
          bl_[i][ids[2]] = SecretScalar::random(rng_);
          C_[ids[2]][i] = commit(sh_[i][ids[2]], bl_[i][ids[2]], *gens_);
          publish_point("triple product", C_[ids[2]][i]);
        }
      }
      groups.push_back(std::move(g));
    }
    out_.cost.triples_generated += total;
    // Sacrifice: (a,b,c) checked with (a',b',c') and a public challenge γ fixed after every
    // commitment: open ρ = γa − a', σ = b − b', then γc − c' − σa' − ρb' − σρ must open to 0.
    // Square pairs: open ρ = γa − a', then γ²A − A' − ρ·(γa + a') must open to 0.
    const Scalar gamma = board_.challenge_scalar("sacrifice");
    if (square) {
      std::vector<Val> rs(n), chk(n);
      for (std::size_t t = 0; t < n; ++t) {
        const Val v1[2] = {tri[2 * t][0], tri[2 * t + 1][0]};
        const Scalar w1[2] = {gamma, -Scalar::one()};
        rs[t] = lincomb(v1, w1, Scalar::zero());
      }
      std::vector<Scalar> rho = open(rs, Step::kSacrificeOpening);
      for (std::size_t t = 0; t < n; ++t) {
        const Val v[4] = {tri[2 * t][2], tri[2 * t + 1][2], tri[2 * t][0], tri[2 * t + 1][0]};
        const Scalar w[4] = {gamma * gamma, -Scalar::one(), -(rho[t] * gamma), -rho[t]};
        chk[t] = lincomb(v, w, Scalar::zero());
      }
      sacrifice_verdict(open(chk, Step::kSacrificeOpening), tri, groups, group_of, square);
      return;
    }
    std::vector<Val> rs(2 * n);
    for (std::size_t t = 0; t < n; ++t) {
      const auto& A = tri[2 * t];
      const auto& B = tri[2 * t + 1];
      const Val v1[2] = {A[0], B[0]};
      const Scalar w1[2] = {gamma, -Scalar::one()};
      rs[2 * t] = lincomb(v1, w1, Scalar::zero());
      rs[2 * t + 1] = sub(A[1], B[1]);
    }
    std::vector<Scalar> rho_sigma = open(rs, Step::kSacrificeOpening);
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
    sacrifice_verdict(open(chk, Step::kSacrificeOpening), tri, groups, group_of, square);
  }

  void sacrifice_verdict(const std::vector<Scalar>& z, const std::vector<std::array<Val, 3>>& tri,
                         const std::vector<TripleGroup>& groups,
                         const std::vector<std::size_t>& group_of, bool square) {
    for (std::size_t t = 0; t < z.size(); ++t) {
      if (z[t].is_zero()) {
        (square ? squares_ : triples_).push_back(tri[2 * t]);
        continue;
      }
      // The attempt aborts, so every triple is discarded: the members open the generation of
      // the groups holding the failed pair for the public check.
      VerifyTimer vt(verify_seconds_);
      blame_group(tri, groups[group_of[2 * t]], square);
      blame_group(tri, groups[group_of[2 * t + 1]], square);
      GOPA_CHECK(false, "a failed sacrifice always names a member");
    }
  }

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
  // this attempt: application, member, context, then the statement.
  Transcript ct_transcript(std::size_t i, bool square, std::size_t index, const EncStatement& st) const {
    Transcript t("gopa/hidden-sample v1");
    t.domain_separator("gopa/hidden/ciphertext v1");
    t.append_message("params", p_.name());
    t.append_u64("member", ids_[i]);
    t.append_message("context", square ? "square pair" : "triple");
    t.append_u64("index", index);
    append_enc_statement(t, st);
    return t;
  }

  // Every member checks every other member's ciphertext proofs of a group before replying: the
  // Paillier equations and ranges one by one, the commitment equations in one MSM (member by
  // member on failure). The first failing proof names its sender.
  void verify_ciphertexts(const TripleGroup& g, const std::vector<std::array<Val, 3>>& tri,
                          std::size_t first, bool square) {
    VerifyTimer vt(ct_verify_seconds_);
    const std::size_t kk = g.triples.size();
    auto statement = [&](std::size_t k, std::size_t i) {
      return EncStatement{&keys_[i]->pub(), g.ct[k][i], C_[tri[first + k][0]][i],
                          static_cast<unsigned>(k * kSlotBits)};
    };
    auto blame = [&](std::size_t i, EncCheck r) {
      fault(ids_[i], r == EncCheck::kRange ? Step::kCiphertextRange : Step::kTripleCiphertext,
            "member " + std::to_string(ids_[i]) + ": ciphertext proof rejected (" +
                enc_check_name(r) + ")");
    };
    CommitmentBatch batch;
    for (std::size_t k = 0; k < kk; ++k)
      for (std::size_t i = 0; i < c_; ++i) {
        if (square && i + 1 == c_) continue;
        const EncStatement st = statement(k, i);
        Transcript t = ct_transcript(i, square, first + k, st);
        const EncCheck r = verify_enc(t, st, g.proof[k][i], *gens_, &batch, rng_);
        if (r != EncCheck::kOk) blame(i, r);
      }
    if (!batch.holds(*gens_)) {
      for (std::size_t k = 0; k < kk; ++k)
        for (std::size_t i = 0; i < c_; ++i) {
          if (square && i + 1 == c_) continue;
          const EncStatement st = statement(k, i);
          Transcript t = ct_transcript(i, square, first + k, st);
          const EncCheck r = verify_enc(t, st, g.proof[k][i], *gens_, nullptr, rng_);
          if (r != EncCheck::kOk) blame(i, r);
        }
      GOPA_CHECK(false, "the batch of ciphertext proofs failed but every proof verifies");
    }
    // Accepted proofs go on the board (bound by the sacrifice challenge).
    for (std::size_t k = 0; k < kk; ++k)
      for (std::size_t i = 0; i < c_; ++i) {
        if (square && i + 1 == c_) continue;
        const EncProof& pr = g.proof[k][i];
        board_.append_message("ct proof T_C", pr.tc.to_bytes(keys_[i]->pub().ciphertext_bytes()));
        board_.append_point("ct proof T_A", pr.ta);
        board_.append_message("ct proof z", pr.z.to_bytes(48));
        board_.append_message("ct proof nu", pr.nu.to_bytes(48));
        board_.append_scalar("ct proof z_r", pr.zr);
      }
  }

  void publish_ct(const PaillierKey& k, const BigInt& ct) {
    bytes_ += k.pub().ciphertext_bytes();
    board_.append_message("ciphertext", ct.to_bytes(k.pub().ciphertext_bytes()));
  }

  // Recomputes every member's messages of one opened group from the revealed randomness and
  // names the first member whose published message differs (docs/sampling.md §2).
  void blame_group(const std::vector<std::array<Val, 3>>& tri, const TripleGroup& g, bool square) {
    const std::size_t kk = g.triples.size();
    std::vector<std::vector<Scalar>> a(kk, std::vector<Scalar>(c_)), b = a, cc = a;
    for (std::size_t k = 0; k < kk; ++k) {
      const auto& ids = tri[g.triples[k]];
      for (std::size_t i = 0; i < c_; ++i) {
        a[k][i] = sh_[i][ids[0]].declassify();
        b[k][i] = sh_[i][ids[1]].declassify();
        cc[k][i] = sh_[i][ids[2]].declassify();
        bytes_ += 6 * Scalar::kBytes;
        if (!verify_opening(C_[ids[0]][i], a[k][i], bl_[i][ids[0]].declassify(), *gens_) ||
            !verify_opening(C_[ids[1]][i], b[k][i], bl_[i][ids[1]].declassify(), *gens_) ||
            !verify_opening(C_[ids[2]][i], cc[k][i], bl_[i][ids[2]].declassify(), *gens_))
          fault(ids_[i], Step::kTripleCommit,
                "member " + std::to_string(ids_[i]) +
                    ": revealed triple shares do not open its commitments");
      }
    }
    for (std::size_t k = 0; k < kk; ++k)
      for (std::size_t i = 0; i < c_; ++i)
        if (!(square && i + 1 == c_) && !(keys_[i]->pub().encrypt(slot_shift(BigInt::from_scalar(a[k][i]), k), g.alpha[k][i]) ==
              g.ct[k][i]))
          fault(ids_[i], Step::kTripleCiphertext,
                "member " + std::to_string(ids_[i]) +
                    ": its ciphertext does not encrypt its committed share a_i");
    for (std::size_t i = 0; i < c_; ++i)
      for (std::size_t j = 0; j < c_; ++j) {
        if (!needs_pair(square, i, j)) continue;
        const PaillierPublic& pk = keys_[i]->pub();
        BigInt acc, masks;
        bool masks_ok = true;
        for (std::size_t k = 0; k < kk; ++k) {
          masks_ok = masks_ok && g.r[k][i][j].bits() <= kMaskBits;
          mpz_add(masks.get(), masks.get(), slot_shift(g.r[k][i][j], k).get());
          BigInt term = pk.mul_plain(g.ct[k][i], BigInt::from_scalar(b[k][j]));
          acc = k == 0 ? term : pk.add(acc, term);
        }
        if (!masks_ok || !(pk.add(acc, pk.encrypt(masks, g.beta[i][j])) == g.reply[i][j]))
          fault(ids_[j], Step::kTripleReply,
                "member " + std::to_string(ids_[j]) + ": its reply to member " +
                    std::to_string(ids_[i]) + " is not Enc(a_i·b_j + r) for its committed b_j");
      }
    for (std::size_t k = 0; k < kk; ++k)
      for (std::size_t i = 0; i < c_; ++i) {
        Scalar expect = a[k][i] * b[k][i];
        const Scalar mult = Scalar::from_u64(square ? 2 : 1);
        for (std::size_t j = 0; j < c_; ++j) {
          if (needs_pair(square, i, j)) expect += (a[k][i] * b[k][j] + g.r[k][i][j].to_scalar()) * mult;
          if (needs_pair(square, j, i)) expect -= g.r[k][j][i].to_scalar() * mult;
        }
        if (expect != cc[k][i])
          fault(ids_[i], Step::kTripleCommit,
                "member " + std::to_string(ids_[i]) +
                    ": committed product share differs from what its messages determine");
      }
  }

  // Truncation masks: member i contributes R'_i ∈ [0, 2^s) (masked-sum truncations) and
  // R''_i = l0 + 2^32·l1 + 2^64·l2 ∈ [0, 2^96), with one 32-bit range proof over all its values
  // (R'_i < 2^s as R'_i ∈ [0, 2^32) and R'_i + 2^32 − 2^s ∈ [0, 2^32)).
  void generate_masks(const std::vector<std::pair<bool, unsigned>>& truncs) {
    masks_.resize(truncs.size());
    for (std::size_t t = 0; t < truncs.size(); ++t) {
      masks_[t].exact = truncs[t].first;
      masks_[t].s = truncs[t].second;
    }
    // Per member: contribute, then prove.
    std::vector<std::vector<Val>> low(truncs.size());
    std::vector<std::array<std::vector<Val>, 3>> limbs(truncs.size());
    for (auto& v : low) v.resize(c_);
    for (auto& l : limbs)
      for (auto& v : l) v.resize(c_);
    std::vector<sigma::RangeStatement> statements;
    std::vector<sigma::RangeProof> proofs;
    for (std::size_t k = 0; k < c_; ++k) {
      std::vector<SecretScalar> values, blinders;
      std::vector<Point> coms;
      const bool cheat = cheat_now(k, Step::kMaskRange);
      for (std::size_t t = 0; t < truncs.size(); ++t) {
        const unsigned s = truncs[t].second;
        auto add_value = [&](std::uint64_t v, Val& slot, bool twin, std::uint64_t published_v) {
          slot = contribute(k, SecretScalar::from_u64(published_v));
          values.push_back(SecretScalar::from_u64(v));
          blinders.push_back(bl_[k][slot].clone());
          coms.push_back(C_[slot][k]);
          if (twin) {  // v + 2^32 − 2^s ∈ [0, 2^32) proves v < 2^s
            const Scalar off = scalar_of(p2(32) - p2(s));
            values.push_back(SecretScalar::from_u64(v) + off);
            blinders.push_back(bl_[k][slot].clone());
            coms.push_back(C_[slot][k] + Point::base_mul(off));
          }
        };
        if (!truncs[t].first) {
          GOPA_CHECK(s <= 32, "truncation shifts of at most 32 bits");
          const std::uint64_t r1 = rng_.next_u64() & static_cast<std::uint64_t>(p2(s) - 1);
          // A cheating member publishes a commitment to a value out of [0, 2^s) and reuses a
          // proof made for an in-range value.
          const std::uint64_t pub = (cheat && t == 0) ? r1 + (1ULL << s) : r1;
          add_value(r1, low[t][k], true, pub);
        }
        for (std::size_t j = 0; j < 3; ++j) {
          const std::uint64_t l = rng_.next_u64() >> 32;
          add_value(l, limbs[t][j][k], false, l);
        }
      }
      const std::size_t d = values.size();
      auto gens = GeneratorSet::get(kGens, sigma::range_generators(32, d));
      Transcript tp = mask_transcript(k);
      // The cheater's proof is made with in-range values that its commitments do not hold.
      auto proof = sigma::prove_range(tp, *gens, 32, coms, values, blinders, rng_);
      GOPA_CHECK(proof.has_value(), "mask values are in range");
      bytes_ += proof->encode().size();
      statements.push_back(sigma::RangeStatement{32, std::move(coms)});
      proofs.push_back(std::move(*proof));
    }
    {
      // One batched verification of every member's proof; member by member only on failure.
      VerifyTimer vt(verify_seconds_);
      auto gens = GeneratorSet::get(kGens, sigma::range_generators(32, statements[0].commitments.size()));
      std::vector<Transcript> ts;
      for (std::size_t k = 0; k < c_; ++k) ts.push_back(mask_transcript(k));
      if (!sigma::batch_verify_range(ts, *gens, statements, proofs, rng_)) {
        for (std::size_t k = 0; k < c_; ++k) {
          Transcript tv = mask_transcript(k);
          auto res = sigma::verify_range(tv, *gens, statements[k], proofs[k]);
          if (!res)
            fault(ids_[k], Step::kMaskRange,
                  "member " + std::to_string(ids_[k]) +
                      ": range proof of its truncation masks rejected (" + res.message + ")");
        }
        GOPA_CHECK(false, "the batch of range proofs failed but every proof verifies");
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

  Transcript mask_transcript(std::size_t k) const {
    Transcript t("gopa/hidden-sample v1");
    t.domain_separator("gopa/hidden/masks v1");
    t.append_message("params", p_.name());
    t.append_u64("member", ids_[k]);
    return t;
  }

  // Random bits b = (u/√(u²) + 1)/2: one multiplication and one opening per bit.
  void generate_bits(std::size_t n) {
    std::vector<Val> u(n);
    for (std::size_t i = 0; i < n; ++i) u[i] = random_value();
    std::vector<Val> sq = square_many(u);
    std::vector<Scalar> w = open(sq, Step::kBitOpening);
    const Scalar half = *Scalar::from_u64(2).invert();
    for (std::size_t i = 0; i < n; ++i) {
      GOPA_CHECK(!w[i].is_zero(), "u ≠ 0 (probability 1 − 1/ℓ)");
      const Scalar v = sqrt_canonical(w[i]);
      const Val uv[1] = {u[i]};
      const Scalar coef[1] = {*v.invert() * half};
      bits_.push_back(lincomb(uv, coef, half));
    }
    out_.cost.random_bits += n;
  }

  // The square root of a square w mod ℓ (ℓ ≡ 5 mod 8, Atkin), the smaller of ±v. Public data.
  static Scalar sqrt_canonical(const Scalar& w) {
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
    GOPA_CHECK(root * root == w, "square root of an opened square");
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
  std::vector<const PaillierKey*> keys_;
  Rng& rng_;
  bool trace_;
  Transcript board_;
  std::shared_ptr<const GeneratorSet> gens_;
  std::vector<LocalCheat> cheats_;
  std::map<std::pair<std::size_t, Step>, std::size_t> occurrences_;

  std::vector<std::vector<Point>> C_;            // public: [value][member]
  std::vector<std::vector<SecretScalar>> sh_, bl_;  // private: [member][value]

  std::vector<std::array<Val, 3>> triples_, squares_;  // squares: (a, a, a²)
  std::size_t next_triple_ = 0, next_square_ = 0;
  std::vector<Val> bits_;
  std::size_t next_bit_ = 0;
  std::vector<Mask> masks_;
  std::size_t next_mask_ = 0;
  unsigned seed_calls_ = 0;

  std::size_t bytes_ = 0;
  double verify_seconds_ = 0, pre_verify_ = 0, ct_verify_seconds_ = 0;
  HiddenOutput out_;
};

struct DryRun {
  std::uint64_t muls = 0;
  std::vector<std::pair<bool, unsigned>> truncs;
  std::size_t bits = 0;
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

Attempt attempt_with_keys(const HiddenParams& p, const std::vector<std::size_t>& members,
                          const std::vector<const PaillierKey*>& keys,
                          const std::vector<Cheat>& cheats, Rng& rng, bool trace) {
  GOPA_CHECK(members.size() >= 2 && members.size() == keys.size(), "a committee of at least 2");
  const DryRun d = dry_run(p);
  Committee com(p, members, keys, cheats, rng, trace);
  Attempt a;
  try {
    com.preprocess(static_cast<std::size_t>(d.muls), d.bits, d.truncs);
    com.mark_preprocessing_verify();
    a.output = com.online();
  } catch (const Fault& f) {
    a.blame = f.blame;
  }
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

Attempt hidden_box_muller_attempt(const HiddenParams& p, const std::vector<std::size_t>& members,
                                  const std::vector<Cheat>& cheats, Rng& rng, bool trace) {
  std::vector<PaillierKey> keys;
  for (std::size_t i = 0; i < members.size(); ++i)
    keys.push_back(PaillierKey::generate(p.paillier_bits, rng));
  std::vector<const PaillierKey*> kp;
  for (const auto& k : keys) kp.push_back(&k);
  return attempt_with_keys(p, members, kp, cheats, rng, trace);
}

HiddenRun run_hidden_box_muller(const HiddenParams& p, const std::vector<Cheat>& cheats, Rng& rng,
                                bool trace) {
  std::vector<PaillierKey> keys;
  std::vector<std::size_t> members;
  for (std::size_t i = 0; i < p.members; ++i) {
    keys.push_back(PaillierKey::generate(p.paillier_bits, rng));
    members.push_back(i);
  }
  HiddenRun run;
  while (members.size() >= 2) {
    std::vector<const PaillierKey*> kp;
    for (std::size_t id : members) kp.push_back(&keys[id]);
    ++run.attempts;
    Attempt a = attempt_with_keys(p, members, kp, cheats, rng, trace);
    if (a.output) {
      run.output = std::move(a.output);
      break;
    }
    GOPA_CHECK(a.blame.has_value(), "an aborted attempt names a member");
    run.blamed.push_back(*a.blame);
    members.erase(std::remove(members.begin(), members.end(), a.blame->member), members.end());
  }
  return run;
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
