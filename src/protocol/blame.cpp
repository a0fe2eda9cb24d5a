// The offences a verdict names (include/gopa/protocol/blame.hpp).
#include "gopa/protocol/blame.hpp"

namespace gopa::protocol {

namespace {

// What the offence is, as the first part of Blame::text().
const char* offence_sentence(Offence o) noexcept {
  switch (o) {
    case Offence::malformed: return "malformed message";
    case Offence::misplaced: return "message out of place";
    case Offence::randomness_missing: return "no randomness commitment";
    case Offence::reveal_withheld: return "no randomness reveal";
    case Offence::false_randomness: return "randomness reveal does not open its commitment";
    case Offence::seed_missing: return "no sealed seed";
    case Offence::false_seed: return "revealed a seed that does not open the edge's commitment";
    case Offence::neighbours: return "commitments name neighbours other than the graph's";
    case Offence::range: return "input-domain proof fails";
    case Offence::unsettled: return "pairwise term does not cancel and no seed was revealed";
    case Offence::cancel: return "pairwise term does not follow from the revealed edge seed";
    case Offence::noise: return "noise proof fails";
    case Offence::noise_share: return "noise commitment is not its share of the hidden noise";
    case Offence::committee: return "deviated in the hidden-noise committee";
    case Offence::committee_missing: return "hidden-noise committee message missing";
    case Offence::output: return "output proof fails";
    case Offence::dropout: return "no commitments published (dropped out)";
    case Offence::no_masked: return "no masked value published";
  }
  return "?";
}

}  // namespace

const char* offence_name(Offence o) noexcept {
  switch (o) {
    case Offence::malformed: return "malformed";
    case Offence::misplaced: return "misplaced";
    case Offence::randomness_missing: return "no-randomness-commit";
    case Offence::reveal_withheld: return "withheld-reveal";
    case Offence::false_randomness: return "false-randomness-reveal";
    case Offence::seed_missing: return "no-sealed-seed";
    case Offence::false_seed: return "false-seed-reveal";
    case Offence::neighbours: return "neighbours";
    case Offence::range: return "range";
    case Offence::unsettled: return "unsettled";
    case Offence::cancel: return "cancel";
    case Offence::noise: return "noise";
    case Offence::noise_share: return "noise-share";
    case Offence::committee: return "committee";
    case Offence::committee_missing: return "committee-missing";
    case Offence::output: return "output";
    case Offence::dropout: return "dropout";
    case Offence::no_masked: return "no-masked-value";
  }
  return "?";
}

std::optional<Offence> offence_from_name(std::string_view name) noexcept {
  for (const Offence o : kOffences) {
    if (name == offence_name(o)) return o;
  }
  return std::nullopt;
}

bool attested(Offence o) noexcept {
  switch (o) {
    case Offence::malformed:
    case Offence::misplaced:
    case Offence::false_randomness:
    case Offence::false_seed:
    case Offence::neighbours:
    case Offence::range:
    case Offence::cancel:
    case Offence::noise:
    case Offence::noise_share:
    case Offence::committee:
    case Offence::output:
      return true;
    case Offence::randomness_missing:
    case Offence::reveal_withheld:
    case Offence::seed_missing:
    case Offence::unsettled:
    case Offence::committee_missing:
    case Offence::dropout:
    case Offence::no_masked:
      return false;
  }
  return false;
}

std::string Blame::text() const {
  std::string out = offence_sentence(offence);
  if (!detail.empty()) out.append(": ").append(detail);
  return out;
}

}  // namespace gopa::protocol
