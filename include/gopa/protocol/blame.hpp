// gopa/protocol/blame.hpp — what a verdict holds against a party: one offence of a fixed list,
// and a free-text detail (which round, edge, coordinate, committee step, proof error).
//
//   for (const auto& [u, b] : report.excluded) std::printf("%u %s: %s\n", u, offence_name(b.offence), b.text().c_str());
//
// The offences and which of them exclude: docs/protocol.md § Blame.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace gopa::protocol {

enum class Offence {
  malformed,           // a message that does not decode (chunks that make no message included)
  misplaced,           // an entry outside its round, or a committee message out of place
  randomness_missing,  // no randomness commitment in an attempt it could take part in
  reveal_withheld,     // committed to randomness, no reveal before the reveal round closed
  false_randomness,    // a randomness reveal that does not open its commitment
  seed_missing,        // no sealed seed for an edge before round 4 closed
  false_seed,          // revealed an edge seed that does not open the edge's commitment
  neighbours,          // commitments name neighbours other than the graph's
  range,               // the input-domain proof fails (or is malformed)
  unsettled,           // a pairwise term that does not cancel, and no seed revealed for the edge
  cancel,              // a pairwise term that does not follow from the edge's revealed seed
  noise,               // the noise proof fails (or is posted although the noise is hidden)
  noise_share,         // the noise commitment is not the committee's share (hidden noise)
  committee,           // a deviation in the hidden-noise committee (a step of docs/sampling.md)
  committee_missing,   // a hidden-noise committee message missing
  output,              // the masked value fails its output proof
  dropout,             // no commitments published
  no_masked,           // no masked value published (or the board refused it)
};

// Every offence, in declaration order.
inline constexpr std::array<Offence, 18> kOffences = {
    Offence::malformed,        Offence::misplaced,    Offence::randomness_missing, Offence::reveal_withheld,
    Offence::false_randomness, Offence::seed_missing, Offence::false_seed,         Offence::neighbours,
    Offence::range,            Offence::unsettled,    Offence::cancel,             Offence::noise,
    Offence::noise_share,      Offence::committee,    Offence::committee_missing,  Offence::output,
    Offence::dropout,          Offence::no_masked};

// A short stable token ("range", "no-masked-value", …): the `excluded_offences` and
// `named_offences` of the --json reports.
[[nodiscard]] const char* offence_name(Offence o) noexcept;
[[nodiscard]] std::optional<Offence> offence_from_name(std::string_view name) noexcept;

// Whether the board attests the offence: something the party posted. The others are a message
// missing at a round's close, which an honest party cut off by an early close shows too; a
// committee member excluded only for such an offence never opens its share of the hidden noise.
[[nodiscard]] bool attested(Offence o) noexcept;

struct Blame {
  Offence offence = Offence::malformed;
  std::string detail;
  // One sentence: what the offence is, then the detail ("input-domain proof fails: input outside
  // the domain [0, M] (range proof rejected: …)").
  [[nodiscard]] std::string text() const;
  bool operator==(const Blame&) const = default;
};

}  // namespace gopa::protocol
