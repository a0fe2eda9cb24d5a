// Shared by the hidden-sample tests: small parameters, and tampering with a committee's public
// log (test_hidden_log.cpp and the long suite): a log that lacks or changes a member's message
// must be rejected with a blame naming that member; a log that only adds or moves messages is
// read by (member, sequence number) with the same verdict, and names only the senders of what it
// added or moved; the verifier never aborts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "gopa/random.hpp"
#include "gopa/sampling.hpp"

namespace gopa::sampling::test {

// Small and fast parameters: 4 guard bits (F = f + 4), 704-bit Paillier moduli (insecure, tests
// only; one 672-bit reply slot).
inline HiddenParams small_params(std::size_t c, unsigned f = 8) {
  HiddenParams p = HiddenParams::make(f, c, 1.0, 4);
  p.paillier_bits = 704;
  return p;
}

// The verifier rejects the log and names a member of the committee.
inline HiddenVerdict check_rejected(const HiddenParams& p, const std::vector<std::size_t>& members,
                                    const std::vector<HiddenMessage>& log) {
  HiddenVerdict v = verify_hidden_log(p, members, log);
  CHECK_FALSE(v.ok);
  REQUIRE(v.blame.has_value());
  CHECK(std::find(members.begin(), members.end(), v.blame->member) != members.end());
  CHECK_FALSE(v.blame->why.empty());
  return v;
}

// Positions of the first message of each kind, in log order.
inline std::vector<std::size_t> first_of_each_kind(const std::vector<HiddenMessage>& log) {
  std::vector<std::size_t> out;
  std::set<HiddenKind> seen;
  for (std::size_t i = 0; i < log.size(); ++i)
    if (seen.insert(log[i].kind).second) out.push_back(i);
  return out;
}

// Message i's payload truncated by one byte and emptied (its sender is named), and one random
// bit of it flipped.
inline void tamper_payload(const HiddenParams& p, const std::vector<std::size_t>& members,
                           const std::vector<HiddenMessage>& log, std::size_t i, Rng& rng) {
  INFO("message " << i << " (" << hidden_kind_name(log[i].kind) << ")");
  REQUIRE_FALSE(log[i].payload.empty());
  auto t = log;
  t[i].payload.pop_back();
  CHECK(check_rejected(p, members, t).blame->member == log[i].member);
  t[i].payload.clear();
  CHECK(check_rejected(p, members, t).blame->member == log[i].member);
  t = log;
  const std::size_t byte = static_cast<std::size_t>(rng.uniform(t[i].payload.size()));
  t[i].payload[byte] ^= static_cast<std::uint8_t>(1U << rng.uniform(8));
  check_rejected(p, members, t);
}

// The verifier accepts the log with the honest log's commitments, and names as misplaced only
// `senders` (at least one message each); with `at_most`, a subset of them.
inline void check_accepted(const HiddenParams& p, const std::vector<std::size_t>& members,
                           const std::vector<HiddenMessage>& honest,
                           const std::vector<HiddenMessage>& log,
                           const std::set<std::uint32_t>& senders, bool at_most = false) {
  const HiddenVerdict h = verify_hidden_log(p, members, honest);
  const HiddenVerdict v = verify_hidden_log(p, members, log);
  REQUIRE(v.ok);
  CHECK_FALSE(v.blame.has_value());
  CHECK(v.commitments == h.commitments);
  CHECK(v.messages == h.messages);
  std::set<std::uint32_t> named;
  for (const Misplaced& m : v.misplaced) {
    CHECK_FALSE(m.why.empty());
    named.insert(m.sender);
  }
  if (at_most) {
    CHECK(std::includes(senders.begin(), senders.end(), named.begin(), named.end()));
  } else {
    CHECK(named == senders);
  }
}

// Message i dropped, duplicated, swapped with the next one, given to another member or to a
// non-member, renumbered, relabelled.
inline void tamper_message(const HiddenParams& p, const std::vector<std::size_t>& members,
                           const std::vector<HiddenMessage>& log, std::size_t i) {
  INFO("message " << i << " (" << hidden_kind_name(log[i].kind) << ")");
  const auto at = [&](std::size_t k) { return static_cast<std::ptrdiff_t>(k); };
  const std::uint32_t sender = log[i].member;
  // Missing: its sender is named, nobody else.
  auto dropped = log;
  dropped.erase(dropped.begin() + at(i));
  CHECK(check_rejected(p, members, dropped).blame->member == sender);
  // A copy: ignored, its sender named as misplaced.
  auto dup = log;
  dup.insert(dup.begin() + at(i), log[i]);
  check_accepted(p, members, log, dup, {sender});
  // Moved earlier: read in its place. Out of turn, and its sender named, when it moves before a
  // message of an earlier phase, which a message of another kind always belongs to; within a
  // phase the members post in any order, and nobody is named.
  if (i + 1 < log.size() && !(log[i] == log[i + 1])) {
    auto swapped = log;
    std::swap(swapped[i], swapped[i + 1]);
    check_accepted(p, members, log, swapped, {log[i + 1].member}, log[i].kind == log[i + 1].kind);
  }
  for (std::size_t id : members)
    if (id != sender) {
      auto moved = log;
      moved[i].member = static_cast<std::uint32_t>(id);
      check_rejected(p, members, moved);
    }
  // A non-member's message is ignored and names it; the member whose message it replaced is
  // missing.
  auto outsider = log;
  outsider[i].member = 1000;
  const HiddenVerdict o = check_rejected(p, members, outsider);
  CHECK(o.blame->member == sender);
  CHECK(std::any_of(o.misplaced.begin(), o.misplaced.end(),
                    [](const Misplaced& m) { return m.sender == 1000; }));
  auto reseq = log;
  ++reseq[i].seq;
  CHECK(check_rejected(p, members, reseq).blame->member == sender);
  auto rekind = log;
  rekind[i].kind = rekind[i].kind == HiddenKind::kMulOpening ? HiddenKind::kBitOpening
                                                              : HiddenKind::kMulOpening;
  CHECK(check_rejected(p, members, rekind).blame->member == sender);
}

// Whole-log tamperings: a distant swap, empty and truncated logs, extra messages at the end.
inline void tamper_log(const HiddenParams& p, const std::vector<std::size_t>& members,
                       const std::vector<HiddenMessage>& log) {
  const std::size_t n = log.size();
  // Message n/2 moved to position 2 (and message 2 to n/2): the messages posted before message 2
  // are out of turn and name their senders; the verdict is the honest one.
  auto far = log;
  std::swap(far[2], far[n / 2]);
  std::set<std::uint32_t> early;
  for (std::size_t i = 3; i <= n / 2; ++i) early.insert(log[i].member);
  check_accepted(p, members, log, far, early);
  check_rejected(p, members, {});
  const auto third = log.begin() + static_cast<std::ptrdiff_t>(n / 3);
  CHECK(check_rejected(p, members, std::vector<HiddenMessage>(log.begin(), third)).blame->member ==
        log[n / 3].member);
  CHECK(check_rejected(p, members, std::vector<HiddenMessage>(log.begin(), log.end() - 1))
            .blame->member == log.back().member);
  // An extra message after the end names its sender (a member or not) and changes nothing else.
  auto extra = log;
  HiddenMessage m = log.back();
  ++m.seq;
  extra.push_back(m);
  check_accepted(p, members, log, extra, {m.member});
  extra.back().member = 1000;
  check_accepted(p, members, log, extra, {1000});
  // Before the first message too.
  std::vector<HiddenMessage> first{extra.back()};
  first.insert(first.end(), log.begin(), log.end());
  check_accepted(p, members, log, first, {1000});
}

}  // namespace gopa::sampling::test
