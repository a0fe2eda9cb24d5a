// libFuzzer target: the hidden-sample committee's public log (docs/sampling.md, "Public log").
// Invariants: decoding and verification never crash; whatever decodes re-encodes to the same
// bytes; a log that differs from an honest one verifies only with the honest commitments (a
// message added, or moved before a message of an earlier phase, is misplaced and names its sender,
// never changes the verdict).
//
// Input: the bytes are tried as one message and as a whole log (frames), and, as
//   op (u8) ‖ index (u16, little-endian) ‖ data
// a change to message `index` of an honest log of 2 members (f = 8, 704-bit Paillier keys):
// op % 5 = 0 replace its payload by data, 1 xor data into its payload, 2 set its member, kind
// and sequence number from data, 3 insert the message decoded from data before it, 4 remove it.
// Unless op ≥ 128 the log is cut after the changed message, which keeps each run short. With
// op & 64 the log changed is the committee's second call, which has no key round and is
// verified with the keys its first call proved.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "gopa/random.hpp"
#include "gopa/sampling.hpp"
#include "gopa/sampling/log.hpp"

namespace {

using namespace gopa::sampling;

const HiddenParams& params() {
  static const HiddenParams p = [] {
    HiddenParams q = HiddenParams::make(8, 2, 1.0, 4);
    q.paillier_bits = 704;  // insecure, tests only
    return q;
  }();
  return p;
}

const std::vector<std::size_t> kMembers{0, 1};

struct Honest {
  std::vector<HiddenMessage> log[2];  // the committee's first call (key round) and second call
  HiddenVerdict verdict[2];
};

const Honest& honest() {
  static const Honest h = [] {
    gopa::DeterministicRng rng(7);
    HiddenCommittee com(params(), kMembers, rng);
    Honest out;
    for (auto& log : out.log) {
      Attempt a = com.attempt(kMembers, {}, rng);
      if (!a.output) std::abort();
      log = std::move(a.log);
    }
    out.verdict[0] = verify_hidden_log(params(), kMembers, out.log[0]);
    if (!out.verdict[0].ok || !out.verdict[0].keys) std::abort();
    out.verdict[1] = verify_hidden_log(params(), kMembers, out.log[1], &*out.verdict[0].keys);
    if (!out.verdict[1].ok) std::abort();
    return out;
  }();
  return h;
}

void check(const std::vector<HiddenMessage>& log, int call) {
  const Honest& h = honest();
  const HiddenVerdict v = verify_hidden_log(params(), kMembers, log,
                                            call == 0 ? nullptr : &*h.verdict[0].keys);
  // An accepted log read the honest messages: the honest commitments.
  if (v.ok && v.commitments != h.verdict[call].commitments) std::abort();
  // A blame names a member of the committee.
  if (!v.ok && v.blame &&
      std::find(kMembers.begin(), kMembers.end(), v.blame->member) == kMembers.end())
    std::abort();
  // Only a key round proves keys.
  if (call == 1 && v.keys) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  if (auto m = HiddenMessage::decode(in)) {
    const auto again = m->encode();
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  }
  if (auto log = decode_hidden_log(in)) {
    const auto again = encode_hidden_log(*log);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
    check(*log, 0);
  }
  if (size < 3) return 0;
  const std::uint8_t op = data[0];
  const int call = (op & 64) != 0 ? 1 : 0;
  const auto& base = honest().log[call];
  const std::size_t index =
      (static_cast<std::size_t>(data[1]) | (static_cast<std::size_t>(data[2]) << 8)) % base.size();
  const std::span<const std::uint8_t> rest = in.subspan(3);
  const auto cut = op >= 128 ? base.end() : base.begin() + static_cast<std::ptrdiff_t>(index + 1);
  std::vector<HiddenMessage> log(base.begin(), cut);
  HiddenMessage& m = log[index];
  switch (op % 5) {
    case 0:
      m.payload.assign(rest.begin(), rest.end());
      break;
    case 1:
      for (std::size_t i = 0; i < rest.size() && i < m.payload.size(); ++i) m.payload[i] ^= rest[i];
      break;
    case 2:
      if (rest.size() >= 9) {
        m.member = static_cast<std::uint32_t>(rest[0] | (rest[1] << 8) | (rest[2] << 16)) |
                   (static_cast<std::uint32_t>(rest[3]) << 24);
        m.kind = static_cast<HiddenKind>(1 + rest[4] % kHiddenKindMax);
        m.seq = static_cast<std::uint32_t>(rest[5] | (rest[6] << 8) | (rest[7] << 16)) |
                (static_cast<std::uint32_t>(rest[8]) << 24);
      }
      break;
    case 3:
      if (auto extra = HiddenMessage::decode(rest))
        log.insert(log.begin() + static_cast<std::ptrdiff_t>(index), std::move(*extra));
      break;
    default:
      log.erase(log.begin() + static_cast<std::ptrdiff_t>(index));
      break;
  }
  check(log, call);
  return 0;
}
