// Hidden Box–Muller samples: agreement with the clear-text reference, identifiable abort at
// every step, statistical sanity (docs/sampling.md §6).
#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/sampling.hpp"
#include "hidden_tamper.hpp"

using namespace gopa;
using namespace gopa::sampling;
using gopa::sampling::test::small_params;

namespace {


}  // namespace

TEST_CASE("hidden: shared result equals the clear-text reference", "[sampling][hidden]") {
  DeterministicRng rng(11);
  const HiddenParams p = small_params(3);
  HiddenRun run = run_hidden_box_muller(p, {}, rng, /*trace=*/true);
  REQUIRE(run.ok());
  CHECK(run.blamed.empty());
  const HiddenOutput& o = *run.output;
  REQUIRE(o.samples.size() == 2);
  // Every truncation offset is within its stated range.
  const auto [lo, hi] = truncation_offset_range(p.members);
  for (int d : o.trunc_offsets) {
    CHECK(d >= lo);
    CHECK(d <= hi);
  }
  const auto ref = hidden_box_muller_reference(p, o.seed1, o.seed2, o.trunc_offsets);
  CHECK(o.samples[0].reveal() == ref.first);
  CHECK(o.samples[1].reveal() == ref.second);
  // Commitments open to the shares.
  for (const auto& s : o.samples)
    for (std::size_t k = 0; k < s.members.size(); ++k)
      CHECK(verify_opening(s.commitments[k], s.shares[k], s.blinders[k],
                           *GeneratorSet::get("gopa", 1)));
  // Close to the exact Box–Muller value of the seeds.
  const double u1 = (2.0 * static_cast<double>(o.seed1) + 1) / std::ldexp(1.0, static_cast<int>(p.m) + 1);
  const double u2 = static_cast<double>(o.seed2) / std::ldexp(1.0, static_cast<int>(p.m));
  const double r = std::sqrt(-2 * std::log(u1));
  const double z1 = r * std::cos(2 * M_PI * u2), z2 = r * std::sin(2 * M_PI * u2);
  CHECK(std::fabs(static_cast<double>(o.samples[0].reveal()) - z1 * std::ldexp(1.0, static_cast<int>(p.f))) <= 3.0);
  CHECK(std::fabs(static_cast<double>(o.samples[1].reveal()) - z2 * std::ldexp(1.0, static_cast<int>(p.f))) <= 3.0);
  CHECK(o.cost.bytes > 0);
  CHECK(o.cost.triples == hidden_box_muller_counts(p).triples);
}

TEST_CASE("hidden: reference is accurate against double precision", "[sampling][hidden]") {
  for (unsigned f : {8U, 16U}) {
    const HiddenParams p = HiddenParams::make(f, 5);
    DeterministicRng rng(f);
    double worst = 0;
    for (int i = 0; i < 300; ++i) {
      const std::uint64_t s1 = rng.next_u64() >> (64 - p.m), s2 = rng.next_u64() >> (64 - p.m);
      const auto [a, b] = hidden_box_muller_reference(p, s1, s2);
      const double u1 = (2.0 * static_cast<double>(s1) + 1) / std::ldexp(1.0, static_cast<int>(p.m) + 1);
      const double u2 = static_cast<double>(s2) / std::ldexp(1.0, static_cast<int>(p.m));
      const double r = std::sqrt(-2 * std::log(u1)) * std::ldexp(1.0, static_cast<int>(f));
      worst = std::max(worst, std::fabs(static_cast<double>(a) - r * std::cos(2 * M_PI * u2)));
      worst = std::max(worst, std::fabs(static_cast<double>(b) - r * std::sin(2 * M_PI * u2)));
    }
    CHECK(worst <= 1.5);
  }
  // Extreme seeds: u1 at both ends.
  const HiddenParams p = HiddenParams::make(16, 5);
  const std::uint64_t top = (1ULL << p.m) - 1;
  for (std::uint64_t s1 : {std::uint64_t{0}, top, top / 2, top / 2 + 1}) {
    const auto [a, b] = hidden_box_muller_reference(p, s1, 12345);
    const double u1 = (2.0 * static_cast<double>(s1) + 1) / std::ldexp(1.0, static_cast<int>(p.m) + 1);
    const double u2 = 12345.0 / std::ldexp(1.0, static_cast<int>(p.m));
    const double r = std::sqrt(-2 * std::log(u1)) * 65536.0;
    CHECK(std::fabs(static_cast<double>(a) - r * std::cos(2 * M_PI * u2)) <= 1.5);
    CHECK(std::fabs(static_cast<double>(b) - r * std::sin(2 * M_PI * u2)) <= 1.5);
  }
}

TEST_CASE("hidden: a cheating member at each step is named, nobody honest is blamed",
          "[sampling][hidden][abort]") {
  const Step steps[] = {Step::kTripleCiphertext, Step::kTripleReply,   Step::kTripleCommit,
                        Step::kSacrificeOpening, Step::kMaskRange,     Step::kBitOpening,
                        Step::kMulOpening,       Step::kTruncOpening};
  std::size_t i = 0;
  for (Step st : steps) {
    DYNAMIC_SECTION("step " << step_name(st)) {
      DeterministicRng rng(100 + i);
      // Steps after the triples need the whole preprocessing: a committee of 2 keeps them fast.
      const bool late = i >= 4;
      const HiddenParams p = small_params(late ? 2 : 3);
      const std::vector<std::size_t> members = late ? std::vector<std::size_t>{0, 1}
                                                    : std::vector<std::size_t>{0, 1, 2};
      const std::size_t cheater = i % members.size();
      // Later occurrences for steps that happen many times, to cheat in the middle.
      const std::size_t occ = st == Step::kMulOpening ? 30 : (st == Step::kTruncOpening ? 3 : 0);
      Attempt a = hidden_box_muller_attempt(p, members, {Cheat{cheater, st, occ}}, rng);
      CHECK_FALSE(a.output.has_value());
      REQUIRE(a.blame.has_value());
      CHECK(a.blame->member == cheater);
      CHECK(a.blame->step == st);
      CHECK_FALSE(a.blame->why.empty());
    }
    ++i;
  }
}

TEST_CASE("hidden: cheating while generating square pairs is named", "[sampling][hidden][abort][heavy]") {
  // Triples come first (2 per multiplication); the next occurrence is in the square pairs.
  const HiddenParams p = small_params(3);
  const Cost counts = hidden_box_muller_counts(p);
  const std::size_t muls = counts.triples - counts.random_bits;
  struct Case {
    Step step;
    std::size_t member, occurrence;
  };
  // Member 1 replies to members 0 and 2 per triple group, and only to 0 for square pairs.
  const Case cases[] = {{Step::kTripleReply, 1, 2 * muls * 2},
                        {Step::kTripleCommit, 2, 2 * muls},
                        {Step::kTripleCiphertext, 0, 2 * muls}};
  std::uint64_t seed = 40;
  for (const Case& c : cases) {
    DeterministicRng rng(seed++);
    Attempt a = hidden_box_muller_attempt(p, {0, 1, 2}, {Cheat{c.member, c.step, c.occurrence}}, rng);
    REQUIRE(a.blame.has_value());
    CHECK(a.blame->member == c.member);
    CHECK(a.blame->step == c.step);
  }
}

TEST_CASE("hidden: the committee restarts without the named member", "[sampling][hidden][abort]") {
  DeterministicRng rng(3);
  const HiddenParams p = small_params(3);
  HiddenRun run = run_hidden_box_muller(p, {Cheat{2, Step::kTruncOpening, 1}}, rng);
  REQUIRE(run.blamed.size() == 1);
  CHECK(run.blamed[0].member == 2);
  CHECK(run.attempts == 2);
  REQUIRE(run.ok());
  CHECK(run.output->samples[0].members == std::vector<std::size_t>{0, 1});
}

TEST_CASE("hidden: two cheaters are both named; fewer than two members cannot sample",
          "[sampling][hidden][abort]") {
  DeterministicRng rng(5);
  const HiddenParams p = small_params(3);
  HiddenRun run = run_hidden_box_muller(
      p, {Cheat{0, Step::kTripleReply, 0}, Cheat{2, Step::kSacrificeOpening, 0}}, rng);
  REQUIRE(run.blamed.size() == 2);
  // The bad sacrifice opening is caught first (openings are checked before the check value).
  CHECK(run.blamed[0].member == 2);
  CHECK(run.blamed[0].step == Step::kSacrificeOpening);
  CHECK(run.blamed[1].member == 0);
  CHECK(run.blamed[1].step == Step::kTripleReply);
  CHECK_FALSE(run.ok());
}

TEST_CASE("hidden: the retry rule shared by runners and auditors", "[sampling][hidden][abort]") {
  CHECK_FALSE(attempt_refusal(0, 0).empty());
  CHECK_FALSE(attempt_refusal(1, 0).empty());
  CHECK(attempt_refusal(2, 0).empty());
  CHECK(attempt_refusal(2, kMaxHiddenAttempts - 1).empty());
  CHECK_FALSE(attempt_refusal(2, kMaxHiddenAttempts).empty());
  CHECK_FALSE(attempt_refusal(40, kMaxHiddenAttempts + 5).empty());
  std::vector<std::size_t> members{4, 7, 9};
  drop_blamed(members, std::nullopt);  // an abort nobody caused: the same members
  CHECK(members == std::vector<std::size_t>{4, 7, 9});
  drop_blamed(members, Blame{7, Step::kMulOpening, "bad opening"});
  CHECK(members == std::vector<std::size_t>{4, 9});
  drop_blamed(members, Blame{7, Step::kMulOpening, "again"});  // no longer a member: no change
  CHECK(members == std::vector<std::size_t>{4, 9});
}

TEST_CASE("hidden: samples are standard normal (KS, reference semantics)", "[sampling][hidden][stats]") {
  // The shared computation equals the reference given the seeds and the truncation offsets
  // (test above); here the reference with uniform seeds and random offsets in their range.
  const HiddenParams p = HiddenParams::make(16, 5);
  DeterministicRng rng(99);
  const auto [lo, hi] = truncation_offset_range(p.members);
  const std::size_t nt = hidden_box_muller_counts(p).truncations;
  std::vector<double> xs;
  for (int i = 0; i < 1000; ++i) {
    std::vector<int> off(nt);
    for (std::size_t t = 0; t < nt; ++t)
      off[t] = t + 2 < nt ? lo + static_cast<int>(rng.uniform(static_cast<std::uint64_t>(hi - lo + 1)))
                          : static_cast<int>(rng.uniform(2));
    const auto [a, b] = hidden_box_muller_reference(p, rng.next_u64() >> (64 - p.m),
                                                    rng.next_u64() >> (64 - p.m), off);
    xs.push_back(std::ldexp(static_cast<double>(a), -16));
    xs.push_back(std::ldexp(static_cast<double>(b), -16));
  }
  std::sort(xs.begin(), xs.end());
  double d = 0;
  const double n = static_cast<double>(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double cdf = 0.5 * std::erfc(-xs[i] / std::sqrt(2.0));
    d = std::max({d, std::fabs(cdf - static_cast<double>(i) / n), std::fabs(cdf - static_cast<double>(i + 1) / n)});
  }
  // 1% critical value 1.63/√n.
  CHECK(d < 1.63 / std::sqrt(n));
}

TEST_CASE("hidden: a ciphertext that is not the committed value or not small is named at its proof",
          "[sampling][hidden][abort][heavy]") {
  const HiddenParams p = small_params(3);
  const Cost counts = hidden_box_muller_counts(p);
  const std::size_t muls = counts.triples - counts.random_bits;
  struct Case {
    Step step;
    std::size_t member, occurrence;
  };
  // Occurrence 2·muls is the first square pair (member 2 of 3 does not encrypt there).
  const Case cases[] = {{Step::kCiphertextRange, 1, 0}, {Step::kCiphertextRange, 2, 5},
                        {Step::kCiphertextRange, 0, 2 * muls}, {Step::kTripleCiphertext, 2, 3},
                        {Step::kTripleCiphertext, 1, 2 * muls}};
  std::uint64_t seed = 70;
  for (const Case& c : cases) {
    DeterministicRng rng(seed++);
    Attempt a = hidden_box_muller_attempt(p, {0, 1, 2}, {Cheat{c.member, c.step, c.occurrence}}, rng);
    CHECK_FALSE(a.output.has_value());
    REQUIRE(a.blame.has_value());
    CHECK(a.blame->member == c.member);
    CHECK(a.blame->step == c.step);
    CHECK(a.blame->why.find("ciphertext proof") != std::string::npos);
  }
  // The committee restarts without the out-of-range member; nobody honest is blamed.
  DeterministicRng rng(80);
  HiddenRun run = run_hidden_box_muller(p, {Cheat{1, Step::kCiphertextRange, 4}}, rng);
  REQUIRE(run.blamed.size() == 1);
  CHECK(run.blamed[0].member == 1);
  CHECK(run.blamed[0].step == Step::kCiphertextRange);
  REQUIRE(run.ok());
  CHECK(run.output->samples[0].members == std::vector<std::size_t>{0, 2});
}

TEST_CASE("hidden: a fractional plaintext is named by its replier's complaint in every trial, a "
          "false complaint names the complainer", "[sampling][hidden][abort][enc-rp][heavy]") {
  // The cheater encrypts 2/3 mod N (committed as 2/3 mod ℓ) and grinds its proof until every
  // reader's shared checks pass (about 3 attempts); only the repliers' ring-Pedersen parts catch
  // it. Honest repliers complain; every reader checks the complained part and names the prover.
  const HiddenParams p = small_params(3);
  const Cost counts = hidden_box_muller_counts(p);
  const std::size_t muls = counts.triples - counts.random_bits;
  std::uint64_t seed = 90;
  for (std::size_t trial = 0; trial < 6; ++trial) {
    const std::size_t member = trial % 3;
    // Triples, or (for members 0 and 1, which encrypt there) the first square pair.
    const std::size_t occurrence = trial < 3 ? trial : 2 * muls;
    if (trial >= 3 && member == 2) continue;
    DeterministicRng rng(seed++);
    Attempt a = hidden_box_muller_attempt(p, {0, 1, 2},
                                          {Cheat{member, Step::kCiphertextFraction, occurrence}}, rng);
    CHECK_FALSE(a.output.has_value());
    REQUIRE(a.blame.has_value());
    CHECK(a.blame->member == member);
    CHECK(a.blame->step == Step::kCiphertextFraction);
    CHECK(a.blame->why.find("rejected by member") != std::string::npos);
    // The public log alone gives the same verdict.
    const std::vector<std::size_t> members{0, 1, 2};
    const HiddenVerdict v = verify_hidden_log(p, members, a.log);
    REQUIRE(v.blame.has_value());
    CHECK(v.blame->member == member);
    CHECK(v.blame->step == Step::kCiphertextFraction);
  }
  // A complaint about a valid proof names the complainer, never the prover.
  DeterministicRng rng(97);
  Attempt f = hidden_box_muller_attempt(p, {0, 1, 2}, {Cheat{1, Step::kFalseComplaint, 0}}, rng);
  REQUIRE(f.blame.has_value());
  CHECK(f.blame->member == 1);
  CHECK(f.blame->step == Step::kFalseComplaint);
  // The committee restarts without the cheater and completes.
  DeterministicRng rng2(98);
  HiddenRun run = run_hidden_box_muller(p, {Cheat{2, Step::kCiphertextFraction, 1}}, rng2);
  REQUIRE(run.blamed.size() == 1);
  CHECK(run.blamed[0].member == 2);
  REQUIRE(run.ok());
  CHECK(run.output->samples[0].members == std::vector<std::size_t>{0, 1});
}

TEST_CASE("hidden: a member whose Paillier key is not well formed is named by the key proofs",
          "[sampling][hidden][abort][keys]") {
  const HiddenParams p = small_params(3);
  struct Case {
    std::size_t occurrence;  // 0: an even N; 1: a Blum modulus with a 40-bit prime factor
    const char* why;
  };
  for (const Case c : {Case{0, "malformed Paillier public key"}, Case{1, "(Π_fac: "}}) {
    DYNAMIC_SECTION("occurrence " << c.occurrence) {
      DeterministicRng rng(90 + c.occurrence);
      HiddenRun run = run_hidden_box_muller(p, {Cheat{1, Step::kPaillierKey, c.occurrence}}, rng);
      // Named at once, before anyone encrypts under the key; nobody honest is named.
      REQUIRE(run.blamed.size() == 1);
      CHECK(run.blamed[0].member == 1);
      CHECK(run.blamed[0].step == Step::kPaillierKey);
      CHECK(run.blamed[0].why.find(c.why) != std::string::npos);
      CHECK_FALSE(run.blamed[0].missing);
      REQUIRE(run.logs.size() == 2);
      for (const HiddenMessage& m : run.logs[0].messages)
        CHECK((m.kind == HiddenKind::kPaillierKey || m.kind == HiddenKind::kKeyFactors));
      // The committee restarts without it and succeeds; an auditor reaches the same verdicts.
      REQUIRE(run.ok());
      CHECK(run.output->samples[0].members == std::vector<std::size_t>{0, 2});
      const HiddenVerdict v0 = verify_hidden_log(p, run.logs[0].members, run.logs[0].messages);
      REQUIRE(v0.blame.has_value());
      CHECK(v0.blame->member == 1);
      CHECK(v0.blame->why == run.blamed[0].why);
      const HiddenVerdict v1 = verify_hidden_log(p, run.logs[1].members, run.logs[1].messages);
      CHECK(v1.ok);
    }
  }
}

TEST_CASE("hidden: every key record carries proofs that every reader checks",
          "[sampling][hidden][keys]") {
  // An honest member's key record replaced by a record of the same length whose proofs were made
  // for another member (its Π_mod and Π_prm transcripts bind the member): the copier is named.
  const HiddenParams p = small_params(3);
  DeterministicRng rng(95);
  const std::vector<std::size_t> members{0, 1, 2};
  const Attempt a = hidden_box_muller_attempt(p, members, {}, rng);
  REQUIRE(a.output.has_value());
  auto log = a.log;
  std::vector<std::size_t> k0, k2;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log[i].kind != HiddenKind::kPaillierKey) continue;
    if (log[i].member == 0) k0.push_back(i);
    if (log[i].member == 2) k2.push_back(i);
  }
  REQUIRE(k0.size() == k2.size());
  for (std::size_t i = 0; i < k0.size(); ++i) log[k2[i]].payload = log[k0[i]].payload;
  const HiddenVerdict v = verify_hidden_log(p, members, log);
  CHECK_FALSE(v.ok);
  REQUIRE(v.blame.has_value());
  CHECK(v.blame->member == 2);
  CHECK(v.blame->step == Step::kPaillierKey);
}
