// TEST ONLY: a randomized malicious party (include/gopa/protocol/adversary.hpp).
#include "gopa/protocol/adversary.hpp"

namespace gopa::protocol {

using bulletin::Entry;
using bulletin::MessageType;

std::vector<Entry> RandomAdversary::operator()(const Entry& planned) {
  std::vector<Entry> out;
  if (!kept_.empty() && rng_.uniform(3) == 0) {  // something kept back, now
    out.push_back(kept_.back());
    kept_.pop_back();
  }
  Entry e = planned;
  const bool marker = planned.type == MessageType::round_cosignature;
  switch (marker && rng_.uniform(8) != 0 ? 9 : rng_.uniform(10)) {
    case 0:  // withheld
      break;
    case 1:  // kept back
      kept_.push_back(e);
      break;
    case 2:  // relabelled to any round
      e.round = static_cast<std::uint32_t>(rng_.uniform(22));
      out.push_back(e);
      break;
    case 3:  // posted twice
      out.push_back(e);
      out.push_back(e);
      break;
    case 4:  // replayed under another session, then posted
      e.session_id[0] ^= 0x5a;
      out.push_back(e);
      out.push_back(planned);
      break;
    case 5:  // another type, same payload and round
      e.type = static_cast<MessageType>(1 + rng_.uniform(14));
      out.push_back(e);
      if (rng_.uniform(2) == 0) out.push_back(planned);
      break;
    case 6:  // an earlier entry again, under this round
      if (!sent_.empty()) {
        Entry old = sent_[rng_.uniform(sent_.size())];
        old.round = planned.round;
        out.push_back(old);
      }
      out.push_back(planned);
      break;
    case 7:  // garbage payload, then the real one
      e.payload.resize(rng_.uniform(64));
      rng_.fill(e.payload);
      out.push_back(e);
      out.push_back(planned);
      break;
    default:
      out.push_back(planned);
      break;
  }
  for (const auto& x : out) sent_.push_back(x);
  return out;
}

std::vector<Entry> RandomAdversary::leftovers(std::size_t extra) {
  std::vector<Entry> out = std::move(kept_);
  kept_.clear();
  for (std::size_t k = 0; k < extra && !sent_.empty(); ++k) {
    Entry e = sent_[rng_.uniform(sent_.size())];
    e.round = static_cast<std::uint32_t>(rng_.uniform(22));
    out.push_back(std::move(e));
  }
  return out;
}

bulletin::Bytes sign_as(const PartyKeys& keys, Entry e, std::uint64_t sequence) {
  e.sequence = sequence;
  return bulletin::sign_entry(e, bulletin::SigningKey::from_seed(keys.sign_seed));
}

}  // namespace gopa::protocol
