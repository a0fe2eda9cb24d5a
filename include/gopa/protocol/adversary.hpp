// gopa/protocol/adversary.hpp — TEST ONLY: a randomized malicious party, for the adversary tests
// in one process (tests/protocol/test_adversary.cpp) and across processes (`gopa party
// --adversary SEED`, tests/cli).
//
//   auto adv = std::make_shared<gopa::protocol::RandomAdversary>(seed);
//   options.deviate = [adv](const bulletin::Entry& e) { return (*adv)(e); };
//   run_party(options, board);
//   for (auto& e : adv->leftovers(4)) board.append(sign_as(keys, e, sequence++));
//
// For every entry the honest party is about to post it picks one behaviour from its seed:
// post it, withhold it, keep it back (posted at a later call or after the run), relabel its
// round, post it twice, replay it under another session id, retype it, post an earlier entry
// again under this round, or post a garbage payload before the real one. Round markers are
// mostly posted as planned (a withheld one only makes the coordinator wait for the timeout).
#pragma once

#include <cstdint>
#include <vector>

#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/run.hpp"
#include "gopa/random.hpp"

namespace gopa::protocol {

class RandomAdversary {
 public:
  explicit RandomAdversary(std::uint64_t seed) : rng_(seed) {}
  // PartyOptions::deviate.
  std::vector<bulletin::Entry> operator()(const bulletin::Entry& planned);
  // What to post after the run: everything kept back, and `extra` earlier entries again under
  // random rounds.
  std::vector<bulletin::Entry> leftovers(std::size_t extra);

 private:
  DeterministicRng rng_;
  std::vector<bulletin::Entry> kept_, sent_;
};

// Signs `e` as the party with these keys, under `sequence` (leftovers use sequence numbers from
// 2^40 on, which the party's own run never reaches).
[[nodiscard]] bulletin::Bytes sign_as(const PartyKeys& keys, bulletin::Entry e, std::uint64_t sequence);

}  // namespace gopa::protocol
