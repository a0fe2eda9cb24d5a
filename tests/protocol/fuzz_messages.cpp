// libFuzzer target: every decoder of untrusted board data — entries, signed notes, checkpoint
// bodies, verifier keys, session parameters and the GOPA round messages.
// Invariants: never crash; whatever decodes re-encodes to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/note.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/session.hpp"

namespace {
template <class M, class... Args>
void round_trip(std::span<const std::uint8_t> in, Args... args) {
  if (auto m = M::decode(in, args...)) {
    const auto again = m->encode();
    if (again.size() != in.size() || !std::equal(again.begin(), again.end(), in.begin())) std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gopa::bulletin;
  namespace gp = gopa::protocol;
  const std::span<const std::uint8_t> in(data, size);
  if (auto e = decode_entry_unverified(in)) {
    const Bytes again = encode_entry(e.value());
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  }
  (void)decode_entry(in);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parse_note(text);
  (void)parse_checkpoint_body(text);
  (void)NoteVerifier::from_vkey(text);
  (void)CosignatureVerifier::from_vkey(text);
  round_trip<gp::SessionParams>(in, nullptr);
  round_trip<gp::SetupHead>(in, nullptr);
  round_trip<gp::RosterChunk>(in, nullptr);
  round_trip<gp::SeedCommitMessage>(in, 2u, nullptr);
  round_trip<gp::SeedRevealMessage>(in, nullptr);
  round_trip<gp::EdgeSeedMessage>(in, nullptr);
  round_trip<gp::ComplaintMessage>(in, nullptr);
  round_trip<gp::CommitMessage>(in, 2u, 64u, nullptr);
  round_trip<gp::MaskedMessage>(in, 2u, nullptr);
  for (std::uint32_t parties : {13u, 64u}) {
    if (auto m = gp::ResultMessage::decode(in, 2u, parties, nullptr)) {
      const auto again = m->encode(parties);
      if (again.size() != in.size() || !std::equal(again.begin(), again.end(), in.begin())) std::abort();
    }
  }
  round_trip<gp::RoundMarker>(in, nullptr);
  round_trip<gp::CommitteeMessage>(in, nullptr);
  round_trip<gp::NoiseShareMessage>(in, 2u, nullptr);
  return 0;
}
