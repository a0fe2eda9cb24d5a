// libFuzzer target: every decoder of untrusted board data — entries, signed notes, checkpoint
// bodies, verifier keys, session parameters, the GOPA round messages, training manifests and chunk payloads (alone and
// as a sequence fed to one assembler).
// Invariants: never crash; whatever decodes re-encodes to the same bytes; an assembler that
// completes a message holds one whose length its chunks declared.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/note.hpp"
#include "gopa/learn/manifest.hpp"
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
  round_trip<gopa::learn::TrainingManifest>(in, nullptr);
  // Chunks: the payload alone, then the input as a sequence of payloads (each after its 16-bit
  // length) fed to one assembler, as one sender's chunks of one (type, round) are.
  (void)gp::decode_chunk(in, nullptr);
  gp::ChunkAssembler assembler;
  for (std::size_t at = 0; at + 2 <= size;) {
    const std::size_t want = std::size_t{data[at]} | (std::size_t{data[at + 1]} << 8);
    const std::size_t len = std::min(want, size - at - 2);
    const auto part = in.subspan(at + 2, len);
    std::string why;
    if (assembler.add(part, &why) == gp::ChunkAssembler::Status::complete) {
      const auto h = gp::decode_chunk(part, nullptr);
      if (!h || assembler.take_message().size() != h->length) std::abort();
    }
    at += 2 + len;
  }
  return 0;
}
