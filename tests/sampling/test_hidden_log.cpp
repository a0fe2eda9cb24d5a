// The public log of the hidden-sample committee and its standalone verifier
// (docs/sampling.md, "Public log"): honest logs verify with the simulation's commitments, every
// deviation gets the simulation's verdict, a changed or missing message is rejected naming its
// sender, and a message out of place names only its own sender.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "gopa/sampling.hpp"
#include "gopa/sampling/log.hpp"
#include "gopa/sigma/range.hpp"
#include "hidden_tamper.hpp"

using namespace gopa;
using namespace gopa::sampling;
using gopa::sampling::test::small_params;

namespace {


// An honest attempt of a committee of 2 (shared by the tampering tests).
const Attempt& honest_attempt() {
  static const Attempt a = [] {
    DeterministicRng rng(123);
    return hidden_box_muller_attempt(small_params(2), {0, 1}, {}, rng);
  }();
  return a;
}

void check_same_verdict(const HiddenParams& p, const std::vector<std::size_t>& members,
                        const Attempt& a) {
  const HiddenVerdict v = verify_hidden_log(p, members, a.log);
  // An attempt ends at the first failed check: later messages of the same round stay unread.
  CHECK(v.messages <= a.log.size());
  if (a.output) {
    CHECK(v.messages == a.log.size());
    REQUIRE(v.ok);
    CHECK_FALSE(v.blame.has_value());
    REQUIRE(v.commitments.size() == 2);
    for (std::size_t s = 0; s < 2; ++s) CHECK(v.commitments[s] == a.output->samples[s].commitments);
    CHECK(v.bytes == a.output->cost.bytes);
  } else {
    REQUIRE(a.blame.has_value());
    CHECK_FALSE(v.ok);
    REQUIRE(v.blame.has_value());
    CHECK(v.blame->member == a.blame->member);
    CHECK(v.blame->step == a.blame->step);
    CHECK(v.blame->why == a.blame->why);
  }
}

}  // namespace

TEST_CASE("hidden log: frames round-trip and decoding is strict", "[sampling][hidden][log]") {
  HiddenMessage m{7, HiddenKind::kMulOpening, 42, {1, 2, 3, 4, 5}};
  const auto bytes = m.encode();
  REQUIRE(bytes.size() == m.encoded_size());
  CHECK(bytes.size() == kHiddenHeaderBytes + 5);
  auto d = HiddenMessage::decode(bytes);
  REQUIRE(d.has_value());
  CHECK(*d == m);
  // Every truncation, a trailing byte, a wrong version or kind, a length above the bound.
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_FALSE(HiddenMessage::decode(std::span(bytes.data(), n)).has_value());
  auto longer = bytes;
  longer.push_back(0);
  CHECK_FALSE(HiddenMessage::decode(longer).has_value());
  CHECK(bytes[0] == kHiddenLogVersion);
  auto bad = bytes;
  for (std::uint8_t version : {std::uint8_t{0}, std::uint8_t{1}, std::uint8_t{kHiddenLogVersion + 1}}) {
    bad[0] = version;  // 1: the layouts before the ring-Pedersen ciphertext proofs
    CHECK_FALSE(HiddenMessage::decode(bad).has_value());
  }
  bad = bytes;
  for (std::uint8_t kind : {std::uint8_t{0}, std::uint8_t{kHiddenKindMax + 1}, std::uint8_t{255}}) {
    bad = bytes;
    bad[5] = kind;
    CHECK_FALSE(HiddenMessage::decode(bad).has_value());
  }
  HiddenMessage big{0, HiddenKind::kMasks, 0, std::vector<std::uint8_t>(kMaxHiddenPayload + 1)};
  CHECK_FALSE(HiddenMessage::decode(big.encode()).has_value());
  big.payload.pop_back();
  CHECK(HiddenMessage::decode(big.encode()).has_value());
  // A whole log.
  const auto& log = honest_attempt().log;
  const auto enc = encode_hidden_log(log);
  auto back = decode_hidden_log(enc);
  REQUIRE(back.has_value());
  CHECK(*back == log);
  CHECK_FALSE(decode_hidden_log(std::span(enc.data(), enc.size() - 1)).has_value());
  CHECK(decode_hidden_log({}).has_value());
}

TEST_CASE("hidden log: an honest log verifies with the simulation's commitments",
          "[sampling][hidden][log]") {
  const HiddenParams p = small_params(3);
  DeterministicRng rng(21);
  HiddenRun run = run_hidden_box_muller(p, {}, rng);
  REQUIRE(run.ok());
  REQUIRE(run.logs.size() == 1);
  const auto& log = run.logs[0];
  CHECK(log.members == std::vector<std::size_t>{0, 1, 2});
  const HiddenVerdict v = verify_hidden_log(p, log.members, log.messages);
  REQUIRE(v.ok);
  CHECK(v.error.empty());
  REQUIRE(v.commitments.size() == 2);
  CHECK(v.commitments[0] == run.output->samples[0].commitments);
  CHECK(v.commitments[1] == run.output->samples[1].commitments);
  CHECK(v.messages == log.messages.size());
  std::size_t bytes = 0;
  std::map<std::uint32_t, std::uint32_t> seq;
  std::set<HiddenKind> kinds;
  for (const auto& m : log.messages) {
    bytes += m.encoded_size();
    CHECK(m.payload.size() <= kMaxHiddenPayload);
    CHECK(m.seq == seq[m.member]++);  // per-member sequence numbers from 0
    kinds.insert(m.kind);
  }
  CHECK(v.bytes == bytes);
  CHECK(run.output->cost.bytes == bytes);
  // Every kind but the blame phase's revelation appears in an honest log.
  CHECK(kinds.size() == kHiddenKindMax - 1);
  CHECK(kinds.count(HiddenKind::kTripleReveal) == 0);
  // A different committee or different parameters do not verify the log.
  const std::vector<std::size_t> other{0, 2, 1};
  CHECK_FALSE(verify_hidden_log(p, other, log.messages).ok);
  HiddenParams p2 = p;
  p2.members = 4;  // bound into the Fiat–Shamir transcript
  CHECK_FALSE(verify_hidden_log(p2, log.members, log.messages).ok);
}

TEST_CASE("hidden log: a committee proves its keys once and later calls use them",
          "[sampling][hidden][log][keys][heavy]") {
  const HiddenParams p = small_params(3);
  const std::vector<std::size_t> members{0, 1, 2};
  DeterministicRng rng(31);
  HiddenCommittee com(p, members, rng);
  CHECK(com.keys() == nullptr);
  const Attempt a1 = com.attempt(members, {}, rng);
  REQUIRE(a1.output.has_value());
  CHECK(a1.key_round);
  REQUIRE(com.keys() != nullptr);
  CHECK(com.keys()->members == members);
  CHECK(a1.output->cost.bytes_keys > 0);
  CHECK(a1.output->cost.seconds_keys > 0);
  const Attempt a2 = com.attempt(members, {}, rng);
  REQUIRE(a2.output.has_value());
  CHECK_FALSE(a2.key_round);
  CHECK(a2.output->cost.bytes_keys == 0);
  CHECK(a2.output->cost.seconds_keys == 0);
  for (const HiddenMessage& m : a2.log)
    CHECK((m.kind != HiddenKind::kPaillierKey && m.kind != HiddenKind::kKeyFactors));
  // The key round is all that the second call saves.
  CHECK(a2.output->cost.bytes == a1.output->cost.bytes - a1.output->cost.bytes_keys);

  // An auditor reads the first call alone and the second with the keys the first proved.
  HiddenVerdict v1 = verify_hidden_log(p, members, a1.log);
  REQUIRE(v1.ok);
  REQUIRE(v1.keys.has_value());
  CHECK(v1.keys->digest == com.keys()->digest);
  CHECK(v1.keys->members == members);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(v1.keys->pk[k]->n() == com.keys()->pk[k]->n());
    CHECK(v1.keys->rp[k].s == com.keys()->rp[k].s);
  }
  const HiddenVerdict v2 = verify_hidden_log(p, members, a2.log, &*v1.keys);
  REQUIRE(v2.ok);
  CHECK_FALSE(v2.keys.has_value());
  for (std::size_t s = 0; s < 2; ++s) CHECK(v2.commitments[s] == a2.output->samples[s].commitments);
  CHECK(v2.bytes == a2.output->cost.bytes);
  // Read without keys, the second call lacks its key round; read with another committee's
  // keys, its ciphertext proofs fail; a member without a key is a parameter error.
  CHECK_FALSE(verify_hidden_log(p, members, a2.log).ok);
  DeterministicRng rng_other(32);
  HiddenCommittee other(p, members, rng_other);
  REQUIRE(other.attempt(members, {}, rng_other).output.has_value());
  CHECK_FALSE(verify_hidden_log(p, members, a2.log, other.keys()).ok);
  const std::vector<std::size_t> outsider{0, 1, 3};
  const HiddenVerdict bad = verify_hidden_log(p, outsider, a2.log, &*v1.keys);
  CHECK_FALSE(bad.ok);
  CHECK_FALSE(bad.blame.has_value());
  CHECK(bad.error.find("has no key") != std::string::npos);

  // A member that deviates in a later call is named by the simulation and by the auditor
  // alike; the remaining members keep their proven keys.
  for (const Step st : {Step::kCiphertextFraction, Step::kTripleReply}) {
    DYNAMIC_SECTION(step_name(st)) {
      const Attempt a = com.attempt(members, {Cheat{1, st, 0}}, rng);
      REQUIRE(a.blame.has_value());
      CHECK(a.blame->member == 1);
      CHECK(a.blame->step == st);
      const HiddenVerdict v = verify_hidden_log(p, members, a.log, &*v1.keys);
      REQUIRE(v.blame.has_value());
      CHECK(v.blame->member == 1);
      CHECK(v.blame->why == a.blame->why);
      const std::vector<std::size_t> rest{0, 2};
      const Attempt b = com.attempt(rest, {}, rng);
      REQUIRE(b.output.has_value());
      CHECK_FALSE(b.key_round);
      CHECK(verify_hidden_log(p, rest, b.log, &*v1.keys).ok);
    }
  }
}

TEST_CASE("hidden log: invalid parameters are an error, not an abort", "[sampling][hidden][log]") {
  const HiddenParams p = small_params(2);
  const auto& log = honest_attempt().log;
  auto expect_error = [&](const HiddenParams& q, std::vector<std::size_t> members) {
    const HiddenVerdict v = verify_hidden_log(q, members, log);
    CHECK_FALSE(v.ok);
    CHECK_FALSE(v.blame.has_value());
    CHECK(v.error.find("invalid parameters") == 0);
  };
  expect_error(p, {0});
  expect_error(p, {0, 0});
  std::vector<std::size_t> many(33);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = i;
  expect_error(p, many);
  HiddenParams q = p;
  q.paillier_bits = 672;
  expect_error(q, {0, 1});
  q = p;
  q.paillier_bits = 8192;
  expect_error(q, {0, 1});
  q = p;
  q.degree += 1;
  expect_error(q, {0, 1});
  q = p;
  q.m = 9;
  expect_error(q, {0, 1});
  q = p;
  q.f = 40;
  expect_error(q, {0, 1});
  q = p;
  q.sigma_fx = 3;
  expect_error(q, {0, 1});
}

TEST_CASE("hidden log: the verifier names the simulation's cheater at every step",
          "[sampling][hidden][log][abort]") {
  const HiddenParams p3 = small_params(3);
  const Cost counts = hidden_box_muller_counts(p3);
  const std::size_t muls = counts.triples - counts.random_bits;
  struct Case {
    Step step;
    std::size_t members, cheater, occurrence;
  };
  // Every step of the enum, in triples and in square pairs; late steps with 2 members.
  const Case cases[] = {
      {Step::kPaillierKey, 3, 1, 0},
      {Step::kPaillierKey, 3, 2, 1},  // a modulus with a small factor (Π_fac)
      {Step::kTripleCiphertext, 3, 0, 0},
      {Step::kTripleCiphertext, 3, 1, 2 * muls},  // first square pair
      {Step::kCiphertextRange, 3, 2, 5},
      {Step::kCiphertextRange, 3, 0, 2 * muls},
      // A fractional plaintext that passes every reader's checks by grinding: the replier's
      // ring-Pedersen part fails, the replier complains, every reader checks the part.
      {Step::kCiphertextFraction, 3, 1, 0},
      {Step::kCiphertextFraction, 3, 0, 2 * muls},
      // A complaint against a valid proof names the complainer.
      {Step::kFalseComplaint, 3, 2, 0},
      {Step::kFalseComplaint, 3, 2, 2 * muls},  // its first square-pair group
      {Step::kTripleReply, 3, 1, 0},
      {Step::kTripleReply, 3, 1, 2 * muls * 2},  // first square-pair reply of member 1
      {Step::kTripleCommit, 3, 2, 0},
      {Step::kTripleCommit, 3, 2, 2 * muls},
      {Step::kSacrificeOpening, 3, 0, 0},
      {Step::kSacrificeOpening, 3, 1, 3},  // the check values of the square pairs
      {Step::kMaskRange, 2, 1, 0},
      {Step::kBitOpening, 2, 0, 0},
      {Step::kMulOpening, 2, 1, 30},
      {Step::kMulOpening, 2, 0, 0},  // while squaring u for the random bits
      {Step::kTruncOpening, 2, 0, 3},
  };
  std::uint64_t seed = 300;
  for (const Case& c : cases) {
    DYNAMIC_SECTION(step_name(c.step) << " member " << c.cheater << " occurrence "
                                      << c.occurrence) {
      DeterministicRng rng(seed);
      const HiddenParams p = small_params(c.members);
      std::vector<std::size_t> members(c.members);
      for (std::size_t i = 0; i < c.members; ++i) members[i] = i;
      const Attempt a =
          hidden_box_muller_attempt(p, members, {Cheat{c.cheater, c.step, c.occurrence}}, rng);
      REQUIRE(a.blame.has_value());
      CHECK(a.blame->member == c.cheater);
      CHECK(a.blame->step == c.step);
      check_same_verdict(p, members, a);
    }
    ++seed;
  }
}

TEST_CASE("hidden log: every attempt of a run with restarts gets its verdict",
          "[sampling][hidden][log][abort]") {
  const HiddenParams p = small_params(3);
  DeterministicRng rng(5);
  HiddenRun run = run_hidden_box_muller(
      p, {Cheat{0, Step::kTripleReply, 0}, Cheat{2, Step::kSacrificeOpening, 0}}, rng);
  REQUIRE(run.logs.size() == 2);
  REQUIRE(run.blamed.size() == 2);
  // An auditor reads the attempts in order: the first opens with the key round, which passes
  // (the abort comes later), so the second uses the keys it proved and posts none.
  std::optional<HiddenKeySet> keys;
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(run.logs[i].keys.has_value() == (i > 0));
    HiddenVerdict v =
        verify_hidden_log(p, run.logs[i].members, run.logs[i].messages, keys ? &*keys : nullptr);
    if (i == 0) {
      REQUIRE(v.keys.has_value());
      CHECK(v.keys->digest == run.logs[1].keys->digest);
      keys = std::move(v.keys);
    } else {
      CHECK_FALSE(v.keys.has_value());
      for (const HiddenMessage& m : run.logs[i].messages)
        CHECK((m.kind != HiddenKind::kPaillierKey && m.kind != HiddenKind::kKeyFactors));
    }
    CHECK_FALSE(v.ok);
    REQUIRE(v.blame.has_value());
    CHECK(v.blame->member == run.blamed[i].member);
    CHECK(v.blame->step == run.blamed[i].step);
  }
  CHECK(run.logs[1].members == std::vector<std::size_t>{0, 1});
  // The blame phase's revelations are on the log of the triple-reply abort.
  CHECK(std::any_of(run.logs[1].messages.begin(), run.logs[1].messages.end(),
                    [](const HiddenMessage& m) { return m.kind == HiddenKind::kTripleReveal; }));
  // A run that restarts once and then succeeds.
  DeterministicRng rng2(8);
  HiddenRun ok = run_hidden_box_muller(p, {Cheat{1, Step::kCiphertextRange, 1}}, rng2);
  REQUIRE(ok.ok());
  REQUIRE(ok.logs.size() == 2);
  const HiddenVerdict v0 = verify_hidden_log(p, ok.logs[0].members, ok.logs[0].messages);
  REQUIRE(v0.blame.has_value());
  CHECK(v0.blame->member == 1);
  REQUIRE(v0.keys.has_value());
  const HiddenVerdict v1 = verify_hidden_log(p, ok.logs[1].members, ok.logs[1].messages, &*v0.keys);
  REQUIRE(v1.ok);
  CHECK(v1.commitments[0] == ok.output->samples[0].commitments);
  CHECK(v1.commitments[1] == ok.output->samples[1].commitments);
}

TEST_CASE("hidden log: tampering names the member it concerns, and only it",
          "[sampling][hidden][log][tamper][heavy]") {
  const HiddenParams p = small_params(2);
  const std::vector<std::size_t> members{0, 1};
  const Attempt& a = honest_attempt();
  REQUIRE(a.output.has_value());
  const auto& log = a.log;
  REQUIRE(verify_hidden_log(p, members, log).ok);
  const std::size_t n = log.size();
  // Every payload truncated and a bit flipped at the first message of each kind; the other
  // tamperings at the first, a middle and the last message (the long suite runs them all on a
  // spread of positions).
  const auto firsts = test::first_of_each_kind(log);
  SECTION("payloads") {
    DeterministicRng rng(9);
    for (std::size_t i : firsts) test::tamper_payload(p, members, log, i, rng);
  }
  SECTION("messages") {
    const std::size_t replies = firsts[2];
    for (std::size_t i : {std::size_t{0}, replies, n / 2, n - 1})
      test::tamper_message(p, members, log, i);
    test::tamper_log(p, members, log);
  }
}

TEST_CASE("hidden log: a message out of place never names another member",
          "[sampling][hidden][log][tamper][heavy]") {
  // A committee of 3 (members 10, 11, 12), honest; a party that is not a member (7).
  const HiddenParams p = small_params(3);
  const std::vector<std::size_t> members{10, 11, 12};
  DeterministicRng rng(77);
  const Attempt a = hidden_box_muller_attempt(p, members, {}, rng);
  REQUIRE(a.output.has_value());
  const auto& log = a.log;
  const HiddenVerdict honest = verify_hidden_log(p, members, log);
  REQUIRE(honest.ok);
  CHECK(honest.misplaced.empty());
  const auto at = [](std::size_t k) { return static_cast<std::ptrdiff_t>(k); };
  // The first triple-products message of member 11 (its turn comes after member 10's).
  std::size_t turn = 0;
  while (!(log[turn].member == 11 && log[turn].kind == HiddenKind::kTripleProducts)) ++turn;
  REQUIRE(log[turn - 1].member == 10);
  const auto only = [&](const HiddenVerdict& v, std::uint32_t sender) {
    REQUIRE(v.ok);
    CHECK_FALSE(v.blame.has_value());
    CHECK(v.commitments == honest.commitments);
    REQUIRE_FALSE(v.misplaced.empty());
    for (const Misplaced& m : v.misplaced) CHECK(m.sender == sender);
  };
  const auto nobody = [&](const HiddenVerdict& v) {
    REQUIRE(v.ok);
    CHECK(v.commitments == honest.commitments);
    CHECK(v.misplaced.empty());
  };
  SECTION("a non-member's message before a member's turn") {
    for (HiddenKind kind : {HiddenKind::kTripleProducts, HiddenKind::kPaillierKey}) {
      auto t = log;
      HiddenMessage m = log[turn];
      m.member = 7;
      m.kind = kind;
      t.insert(t.begin() + at(turn), m);
      only(verify_hidden_log(p, members, t), 7);
    }
  }
  SECTION("a member's message of a phase posted before the other members' of the same phase, or of an earlier one") {
    // Member 12's triple-products message moved before member 11's (and member 10's): the
    // members of a phase post in any order, so nobody is named.
    std::size_t next = turn + 1;
    while (!(log[next].member == 12 && log[next].kind == HiddenKind::kTripleProducts)) ++next;
    std::size_t first_products = turn;
    while (log[first_products - 1].kind == HiddenKind::kTripleProducts) --first_products;
    for (std::size_t to : {turn, first_products}) {
      auto t = log;
      const HiddenMessage m = t[next];
      t.erase(t.begin() + at(next));
      t.insert(t.begin() + at(to), m);
      nobody(verify_hidden_log(p, members, t));
    }
    // Moved before the last triple-replies message: a message of the phase before, which its
    // sender had to read first. Out of turn, its sender named.
    {
      auto t = log;
      const HiddenMessage m = t[next];
      t.erase(t.begin() + at(next));
      REQUIRE(log[first_products - 1].kind == HiddenKind::kTripleReplies);
      t.insert(t.begin() + at(first_products - 1), m);
      only(verify_hidden_log(p, members, t), 12);
    }
    // Member 12's message of a later round, before member 11's turn.
    auto t = log;
    const HiddenMessage m = t[log.size() - 1];
    REQUIRE(m.member == 12);
    t.pop_back();
    t.insert(t.begin() + at(turn), m);
    only(verify_hidden_log(p, members, t), 12);
  }
  SECTION("a surplus message after the end of the log") {
    for (std::uint32_t sender : {7U, 10U, 12U}) {
      auto t = log;
      HiddenMessage m = log.back();
      m.member = sender;
      m.seq = 100000;
      t.push_back(m);
      only(verify_hidden_log(p, members, t), sender);
      // A copy of one of the sender's messages (the same sequence number) after the end.
      if (sender != 7) {
        auto u = log;
        for (const HiddenMessage& x : log)
          if (x.member == sender) {
            u.push_back(x);
            break;
          }
        only(verify_hidden_log(p, members, u), sender);
      }
    }
  }
}

TEST_CASE("hidden log: complaints are parsed strictly and judged against the complainer when the "
          "part holds", "[sampling][hidden][log][tamper][enc-rp]") {
  // An honest log of 3 members (K = 1 slot at 704 bits); member 1's first triple-replies message
  // (it answers members 0 and 2) and its first square-pair one (it answers member 0 only) are
  // replaced by hand-made complaint lists. Whatever the list, only member 1 is named: a list
  // that does not parse as complaints about proofs it is to answer is malformed
  // (triple-reply), a well-formed complaint about an honest proof is false (false-complaint).
  const HiddenParams p = small_params(3);
  const std::vector<std::size_t> members{0, 1, 2};
  const Cost counts = hidden_box_muller_counts(p);
  const std::size_t muls = counts.triples - counts.random_bits;
  DeterministicRng rng(61);
  const Attempt a = hidden_box_muller_attempt(p, members, {}, rng);
  REQUIRE(a.output.has_value());
  std::vector<std::size_t> replies;  // positions of member 1's triple-replies messages
  for (std::size_t i = 0; i < a.log.size(); ++i)
    if (a.log[i].member == 1 && a.log[i].kind == HiddenKind::kTripleReplies) replies.push_back(i);
  REQUIRE(replies.size() == 2 * muls + 2 * (counts.random_bits));
  const std::size_t triple = replies[0], square = replies[2 * muls];
  REQUIRE(a.log[triple].payload[0] == 0);  // no complaints: the replies follow
  struct Case {
    std::size_t at;
    std::vector<std::uint8_t> payload;
    Step step;
  };
  const Case cases[] = {
      {triple, {1, 0, 0}, Step::kFalseComplaint},     // member 0's valid proof
      {triple, {1, 2, 0}, Step::kFalseComplaint},     // member 2's valid proof
      {triple, {2, 0, 0, 2, 0}, Step::kFalseComplaint},
      {triple, {2, 2, 0, 0, 0}, Step::kTripleReply},  // not increasing
      {triple, {2, 0, 0, 0, 0}, Step::kTripleReply},  // repeated
      {triple, {1, 1, 0}, Step::kTripleReply},        // its own proof
      {triple, {1, 3, 0}, Step::kTripleReply},        // no such member
      {triple, {1, 0, 1}, Step::kTripleReply},        // no such slot
      {triple, {1, 0}, Step::kTripleReply},           // truncated
      {triple, {1, 0, 0, 7}, Step::kTripleReply},     // trailing byte
      {triple, {0}, Step::kTripleReply},              // no complaint and no replies
      {square, {1, 0, 0}, Step::kFalseComplaint},     // member 0's valid square-pair proof
      {square, {1, 2, 0}, Step::kTripleReply},        // member 2 does not encrypt there
      {square, {1, 1, 0}, Step::kTripleReply},
  };
  for (const Case& c : cases) {
    INFO("message " << c.at << " payload size " << c.payload.size() << " first bytes "
                    << int(c.payload[0]) << " " << (c.payload.size() > 1 ? int(c.payload[1]) : -1));
    auto log = a.log;
    log[c.at].payload = c.payload;
    const HiddenVerdict v = verify_hidden_log(p, members, log);
    CHECK_FALSE(v.ok);
    REQUIRE(v.blame.has_value());
    CHECK(v.blame->member == 1);
    CHECK(v.blame->step == c.step);
  }
}

TEST_CASE("hidden log: every message fits one board entry for all parameters",
          "[sampling][hidden][log]") {
  // The largest messages, from their layouts (docs/sampling.md, "Public log"): c ≤ 32 members,
  // N ≤ 4096 bits, K = ⌊(|N| − 2)/672⌋ slots.
  const std::size_t nb = 4096 / 8, ct = 2 * nb, K = (4096 - 2) / 672, c = 32;
  // triple-shares is a byte list (any length); its per-slot part without the repliers' parts:
  const std::size_t shares = K * (2 * 32 + ct + ct + 32 + 72 + 48 + 32);
  // A reply message: the complaint count, then the replies (or at most K·(c − 1) complaints of
  // 2 bytes, fewer bytes than the replies, and at most 255 of them).
  const std::size_t replies = 1 + (c - 1) * ct;
  STATIC_REQUIRE(K * (c - 1) <= 255);
  CHECK(2 * K * (c - 1) < replies);
  const std::size_t reveal = K * 6 * 32 + K * 32 + (c - 1) * (32 + K * 84);
  CHECK(replies <= kMaxHiddenPayload);
  CHECK(reveal <= kMaxHiddenPayload);
  // The most truncations: the largest f and guard (each table is built once, which is slow).
  const std::pair<unsigned, unsigned> fg[] = {{8, 4}, {16, 8}, {24, 8}, {24, 12}};
  for (const auto& [f, guard] : fg) {
    const HiddenParams p = HiddenParams::make(f, 5, 1.0, guard);
    const std::size_t t = hidden_box_muller_counts(p).truncations;
    // At most 4 commitments and 5 proven values per truncation, in proofs of ≤ 128 values.
    std::size_t bytes = 4 * t * 32;
    for (std::size_t done = 0; done < 5 * t; done += 128)
      bytes += sigma::RangeProof::encoded_size(32, std::min<std::size_t>(128, 5 * t - done));
    CHECK(bytes <= 10'000);  // docs/sampling.md, "Public log"
  }
  CHECK(shares == 13'776);
  CHECK(replies == 31'745);
  // The documented triple-shares sizes at 2048 bits (docs/sampling.md, "Payloads"): 3 slots of
  // 64 + 512 + 696 bytes and 789 bytes per replier; one message up to c = 24.
  const auto group = [](std::size_t members) { return 3 * (64 + 512 + 696 + 789 * (members - 1)); };
  CHECK(group(5) == 13'284);
  CHECK(group(17) == 41'688);
  CHECK(group(24) <= kMaxHiddenPayload);
  CHECK(group(25) > kMaxHiddenPayload);
  CHECK(reveal == 17'960);
}

