// Shared by the hidden-sample tests: small parameters, and tampering with a committee's public
// log (test_hidden_log.cpp and the long suite): every tampered log must be rejected with a blame naming a committee member, and the
// verifier must never abort.
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

// Message i dropped, duplicated, swapped with the next one, given to another member or to a
// non-member, renumbered, relabelled.
inline void tamper_message(const HiddenParams& p, const std::vector<std::size_t>& members,
                           const std::vector<HiddenMessage>& log, std::size_t i) {
  INFO("message " << i << " (" << hidden_kind_name(log[i].kind) << ")");
  const auto at = [&](std::size_t k) { return static_cast<std::ptrdiff_t>(k); };
  auto dropped = log;
  dropped.erase(dropped.begin() + at(i));
  check_rejected(p, members, dropped);
  auto dup = log;
  dup.insert(dup.begin() + at(i), log[i]);
  check_rejected(p, members, dup);
  if (i + 1 < log.size() && !(log[i] == log[i + 1])) {
    auto swapped = log;
    std::swap(swapped[i], swapped[i + 1]);
    check_rejected(p, members, swapped);
  }
  for (std::size_t id : members)
    if (id != log[i].member) {
      auto moved = log;
      moved[i].member = static_cast<std::uint32_t>(id);
      check_rejected(p, members, moved);
    }
  auto outsider = log;
  outsider[i].member = 1000;
  check_rejected(p, members, outsider);
  auto reseq = log;
  ++reseq[i].seq;
  check_rejected(p, members, reseq);
  auto rekind = log;
  rekind[i].kind = rekind[i].kind == HiddenKind::kMulOpening ? HiddenKind::kBitOpening
                                                              : HiddenKind::kMulOpening;
  check_rejected(p, members, rekind);
}

// Whole-log tamperings: distant swap, empty and truncated logs, extra messages at the end.
inline void tamper_log(const HiddenParams& p, const std::vector<std::size_t>& members,
                       const std::vector<HiddenMessage>& log) {
  const std::size_t n = log.size();
  auto far = log;
  std::swap(far[2], far[n / 2]);
  check_rejected(p, members, far);
  check_rejected(p, members, {});
  const auto third = log.begin() + static_cast<std::ptrdiff_t>(n / 3);
  check_rejected(p, members, std::vector<HiddenMessage>(log.begin(), third));
  check_rejected(p, members, std::vector<HiddenMessage>(log.begin(), log.end() - 1));
  // An extra message after the end names its sender; from a non-member, nobody is named.
  auto extra = log;
  HiddenMessage m = log.back();
  ++m.seq;
  extra.push_back(m);
  CHECK(check_rejected(p, members, extra).blame->member == m.member);
  extra.back().member = 1000;
  const HiddenVerdict w = verify_hidden_log(p, members, extra);
  CHECK_FALSE(w.ok);
  CHECK_FALSE(w.blame.has_value());
  CHECK_FALSE(w.error.empty());
}

}  // namespace gopa::sampling::test
