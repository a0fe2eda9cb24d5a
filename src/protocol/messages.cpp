// Board payloads of the GOPA rounds. Layouts: docs/protocol.md §Messages.
#include "gopa/protocol/messages.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bytes.hpp"
#include "gopa/check.hpp"
#include "gopa/protocol/edges.hpp"

namespace gopa::protocol {

namespace {

using Writer = ByteWriter<ByteOrder::big>;

// The strict reader (gopa/bytes.hpp) with the messages' version byte; the first failure goes to
// *why when the reader goes out of scope, whichever way the decoder returns.
class Reader : public ByteReader<ByteOrder::big> {
 public:
  Reader(std::span<const std::uint8_t> in, std::string* why) : ByteReader(in), why_(why) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader() {
    if (!ok() && why_ != nullptr) *why_ = error();
  }
  bool version() {
    if (u8("version") != kMessageVersion && ok()) return fail("unknown message version");
    return ok();
  }

 private:
  std::string* why_;
};

template <class T>
std::optional<T> done(Reader& r, T value) {
  if (!r.finish()) return std::nullopt;
  return value;
}

}  // namespace

std::string round_name(std::uint32_t round) {
  switch (round) {
    case kRoundTraining: return "training manifest";
    case kRoundSetup: return "setup";
    case kRoundSeedCommit: return "noise-seed commitments";
    case kRoundSeedReveal: return "randomness reveals";
    case kRoundEdgeSeed: return "sealed seeds";
    case kRoundBoxComplaint: return "bad-box complaints";
    case kRoundCommit: return "commitments";
    case kRoundCancelComplaint: return "cancellation reveals";
    case kRoundMasked: return "masked values";
    case kRoundRecovery: return "recovery";
    case kRoundResult: return "result";
    case kRoundCommittee: return "committee";
    default: break;
  }
  if (round >= kRoundRestart1 && round < kRoundRestart1 + 2 * SessionParams::kMaxRandomnessRestarts) {
    const std::uint32_t a = (round - kRoundRestart1) / 2 + 1;
    return "restart " + std::to_string(a) + ((round - kRoundRestart1) % 2 == 0 ? " commitments" : " reveals");
  }
  return "round " + std::to_string(round);
}

// ---------------------------------------------------------------- setup

namespace {

void write_keys(Writer& w, std::span<const RosterEntry> keys) {
  for (const auto& e : keys) {
    w.bytes(e.sign_key);
    w.bytes(e.box_key);
  }
}

// Reads `count` roster keys; the caller has checked that exactly 64·count bytes remain.
std::vector<RosterEntry> read_keys(Reader& r, std::uint32_t count) {
  std::vector<RosterEntry> out(count);
  for (auto& e : out) {
    e.sign_key = r.array<32>("signing key");
    e.box_key = r.array<32>("box key");
  }
  if (!r.ok()) return {};
  return out;
}

// A chunk's key count and length: 1..kRosterChunk keys, exactly 64 bytes each, nothing after.
bool read_key_count(Reader& r, std::uint32_t& count) {
  count = r.u32("key count");
  if (!r.ok()) return false;
  if (count < 1 || count > kRosterChunk) return r.fail("a roster chunk holds 1.." + std::to_string(kRosterChunk) + " keys");
  if (r.remaining() != static_cast<std::size_t>(count) * 64) return r.fail("roster chunk length does not match its key count");
  return true;
}

}  // namespace

std::optional<std::size_t> roster_repeat(std::span<const RosterEntry> roster) {
  std::set<Key32> sign, box;
  for (std::size_t u = 0; u < roster.size(); ++u) {
    if (!sign.insert(roster[u].sign_key).second || !box.insert(roster[u].box_key).second) return u;
  }
  return std::nullopt;
}

Key32 roster_digest(std::span<const RosterEntry> roster) {
  static constexpr std::string_view kDomain = "gopa/roster/v1";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  const auto n = static_cast<std::uint32_t>(roster.size());
  const auto be = be_bytes(n);
  crypto_hash_sha256_update(&st, be.data(), be.size());
  for (const auto& e : roster) {
    crypto_hash_sha256_update(&st, e.sign_key.data(), e.sign_key.size());
    crypto_hash_sha256_update(&st, e.box_key.data(), e.box_key.size());
  }
  Key32 h{};
  crypto_hash_sha256_final(&st, h.data());
  return h;
}

Bytes SetupHead::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.bytes(params.encode());
  w.bytes(digest);
  w.u32(static_cast<std::uint32_t>(first.size()));
  write_keys(w, first);
  return out;
}

std::optional<SetupHead> SetupHead::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  // The parameters' length follows from their version byte (5: 72 bytes, 6: a chain's 112).
  const std::size_t plen = !in.empty() && in.size() > 1 && in[1] == SessionParams::kChainVersion
                               ? SessionParams::kChainEncodedBytes
                               : SessionParams::kEncodedBytes;
  const auto pbytes = r.bytes(plen, "session parameters");
  if (!r.ok()) return std::nullopt;
  std::string pwhy;
  auto params = SessionParams::decode(pbytes, &pwhy);
  if (!params) {
    r.fail(pwhy);
    return std::nullopt;
  }
  SetupHead h{*params, {}, {}};
  const auto d = r.bytes(32, "roster digest");
  if (!r.ok()) return std::nullopt;
  std::copy(d.begin(), d.end(), h.digest.begin());
  std::uint32_t count = 0;
  if (!read_key_count(r, count)) return std::nullopt;
  if (count > params->parties) {
    r.fail("the first roster chunk holds more keys than there are parties");
    return std::nullopt;
  }
  h.first = read_keys(r, count);
  return done(r, std::move(h));
}

Bytes RosterChunk::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.u32(first);
  w.u32(static_cast<std::uint32_t>(keys.size()));
  write_keys(w, keys);
  return out;
}

std::optional<RosterChunk> RosterChunk::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  RosterChunk c;
  c.first = r.u32("first index");
  std::uint32_t count = 0;
  if (!read_key_count(r, count)) return std::nullopt;
  c.keys = read_keys(r, count);
  return done(r, std::move(c));
}

std::vector<Bytes> SetupMessage::encode_entries() const {
  std::vector<Bytes> out;
  const std::span<const RosterEntry> all(roster);
  const std::size_t head_keys = std::min<std::size_t>(all.size(), kRosterChunk);
  SetupHead head{params, roster_digest(all), {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(head_keys)}};
  out.push_back(head.encode());
  for (std::size_t at = head_keys; at < all.size(); at += kRosterChunk) {
    const std::size_t end = std::min(all.size(), at + kRosterChunk);
    RosterChunk c{static_cast<std::uint32_t>(at),
                  {all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(end)}};
    out.push_back(c.encode());
  }
  return out;
}

std::optional<SetupMessage> SetupMessage::assemble(const SetupHead& head, std::span<const RosterChunk> chunks,
                                                   std::string* why) {
  auto fail = [&](const std::string& m) -> std::optional<SetupMessage> {
    if (why) *why = m;
    return std::nullopt;
  };
  if (why) why->clear();
  const std::uint32_t n = head.params.parties;
  SetupMessage m{head.params, head.first};
  for (const auto& c : chunks) {
    if (c.first != m.roster.size()) {
      return fail("roster chunk starting at " + std::to_string(c.first) + " does not continue the " +
                  std::to_string(m.roster.size()) + " keys before it");
    }
    if (c.keys.size() > n - m.roster.size()) return fail("roster chunks hold more keys than there are parties");
    m.roster.insert(m.roster.end(), c.keys.begin(), c.keys.end());
  }
  if (m.roster.size() < n) return std::nullopt;
  if (roster_repeat(m.roster)) return fail("roster repeats a key");
  if (roster_digest(m.roster) != head.digest) return fail("the roster does not match the digest in the setup entry");
  return m;
}

// ---------------------------------------------------------------- randomness

Key32 randomness_commitment(const Bytes32& session_id, std::uint32_t attempt, std::uint32_t index, const Key32& share) {
  static constexpr std::string_view kDomain = "gopa/randomness/v2";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  crypto_hash_sha256_update(&st, session_id.data(), session_id.size());
  for (const auto& le : {le_bytes(attempt), le_bytes(index)}) crypto_hash_sha256_update(&st, le.data(), le.size());
  crypto_hash_sha256_update(&st, share.data(), share.size());
  Key32 h{};
  crypto_hash_sha256_final(&st, h.data());
  return h;
}

Bytes SeedCommitMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.bytes(randomness_commitment);
  for (const auto& p : seed_commitments) w.point(p);
  return out;
}

std::optional<SeedCommitMessage> SeedCommitMessage::decode(std::span<const std::uint8_t> in,
                                                           std::size_t seeds, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  SeedCommitMessage m;
  auto h = r.bytes(32, "randomness commitment");
  if (!r.ok()) return std::nullopt;
  std::copy(h.begin(), h.end(), m.randomness_commitment.begin());
  if (r.remaining() != seeds * 32) {
    r.fail("expected " + std::to_string(seeds) + " noise-seed commitments");
    return std::nullopt;
  }
  for (std::size_t j = 0; j < seeds; ++j) m.seed_commitments.push_back(r.point("seed commitment"));
  return done(r, std::move(m));
}

Bytes SeedRevealMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.bytes(share);
  return out;
}

std::optional<SeedRevealMessage> SeedRevealMessage::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  SeedRevealMessage m;
  auto s = r.bytes(32, "randomness share");
  if (!r.ok()) return std::nullopt;
  std::copy(s.begin(), s.end(), m.share.begin());
  return done(r, m);
}

// ---------------------------------------------------------------- edge seeds

Bytes EdgeSeedMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.u32(lo);
  w.u32(hi);
  w.bytes(seed_commitment);
  w.bytes(sealed);
  return out;
}

std::optional<EdgeSeedMessage> EdgeSeedMessage::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  EdgeSeedMessage m;
  m.lo = r.u32("lo");
  m.hi = r.u32("hi");
  if (r.ok() && m.lo >= m.hi) {
    r.fail("edge must be given as lo < hi");
    return std::nullopt;
  }
  auto c = r.bytes(32, "seed commitment");
  auto s = r.bytes(kSealedSeedSize, "sealed seed");
  if (!r.ok()) return std::nullopt;
  std::copy(c.begin(), c.end(), m.seed_commitment.begin());
  m.sealed.assign(s.begin(), s.end());
  return done(r, std::move(m));
}

Key32 edge_seed_commitment(const Bytes32& session_id, std::uint32_t lo, std::uint32_t hi,
                           const std::array<std::uint8_t, 32>& seed) {
  static constexpr std::string_view kDomain = "gopa/edge-seed-commit/v1";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  crypto_hash_sha256_update(&st, session_id.data(), session_id.size());
  for (const auto& le : {le_bytes(lo), le_bytes(hi)}) crypto_hash_sha256_update(&st, le.data(), le.size());
  crypto_hash_sha256_update(&st, seed.data(), seed.size());
  Key32 h{};
  crypto_hash_sha256_final(&st, h.data());
  return h;
}

// ---------------------------------------------------------------- complaints

Bytes ComplaintMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.bytes(std::array<std::uint8_t, 1>{static_cast<std::uint8_t>(kind)});
  w.u32(lo);
  w.u32(hi);
  w.bytes(seed);
  if (kind == ComplaintKind::key_reveal) {
    w.u8(static_cast<std::uint8_t>(path.size()));
    for (const Key32& h : path) w.bytes(h);
  }
  return out;
}

std::optional<ComplaintMessage> ComplaintMessage::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  ComplaintMessage m;
  const std::uint8_t k = r.u8("complaint kind");
  if (r.ok() && (k < 1 || k > 3)) {
    r.fail("unknown complaint kind");
    return std::nullopt;
  }
  m.kind = static_cast<ComplaintKind>(k);
  m.lo = r.u32("lo");
  m.hi = r.u32("hi");
  if (r.ok() && m.lo >= m.hi) {
    r.fail("edge must be given as lo < hi");
    return std::nullopt;
  }
  auto s = r.bytes(32, "seed");
  if (!r.ok()) return std::nullopt;
  std::copy(s.begin(), s.end(), m.seed.begin());
  if (m.kind == ComplaintKind::bad_box && std::any_of(m.seed.begin(), m.seed.end(), [](std::uint8_t b) { return b != 0; })) {
    r.fail("a bad-box complaint carries no seed");
    return std::nullopt;
  }
  if (m.kind == ComplaintKind::key_reveal) {
    const std::uint8_t count = r.u8("path length");
    if (r.ok() && count > 16) {
      r.fail("a round key's path has at most 16 hashes");
      return std::nullopt;
    }
    for (std::uint8_t i = 0; i < count && r.ok(); ++i) m.path.push_back(r.array<32>("path hash"));
  }
  return done(r, m);
}

// ---------------------------------------------------------------- commitments

Bytes CommitMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  for (const auto& p : inputs) w.point(p);
  w.u32(static_cast<std::uint32_t>(neighbours.size()));
  for (auto v : neighbours) w.u32(v);
  for (const auto& p : edge_terms) w.point(p);
  for (const auto& p : noise) w.point(p);
  w.u32(static_cast<std::uint32_t>(domain_proof.size()));
  w.bytes(domain_proof);
  w.u32(static_cast<std::uint32_t>(noise_proof.size()));
  w.bytes(noise_proof);
  return out;
}

std::optional<CommitMessage> CommitMessage::decode(std::span<const std::uint8_t> in, std::uint32_t dim,
                                                   std::uint32_t parties, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  CommitMessage m;
  if (!r.need(static_cast<std::size_t>(dim) * 32, "input commitments")) return std::nullopt;
  for (std::uint32_t j = 0; j < dim; ++j) m.inputs.push_back(r.point("input commitment"));
  const std::uint32_t deg = r.u32("neighbour count");
  if (r.ok() && deg >= parties) {
    r.fail("more neighbours than parties");
    return std::nullopt;
  }
  if (!r.need(static_cast<std::size_t>(deg) * 4, "neighbours")) return std::nullopt;
  for (std::uint32_t i = 0; i < deg; ++i) {
    const std::uint32_t v = r.u32("neighbour");
    if (v >= parties || (!m.neighbours.empty() && v <= m.neighbours.back())) {
      r.fail("neighbours must be distinct party indices in increasing order");
      return std::nullopt;
    }
    m.neighbours.push_back(v);
  }
  if (!r.need(static_cast<std::size_t>(deg) * 32, "edge commitments")) return std::nullopt;
  for (std::uint32_t i = 0; i < deg; ++i) m.edge_terms.push_back(r.point("edge commitment"));
  if (!r.need(static_cast<std::size_t>(dim) * 32, "noise commitments")) return std::nullopt;
  for (std::uint32_t j = 0; j < dim; ++j) m.noise.push_back(r.point("noise commitment"));
  const std::uint32_t len = r.u32("input-domain proof length");
  auto proof = r.bytes(len, "input-domain proof");
  if (!r.ok()) return std::nullopt;
  m.domain_proof.assign(proof.begin(), proof.end());
  const std::uint32_t noise_len = r.u32("noise proof length");
  auto noise = r.bytes(noise_len, "noise proof");
  if (!r.ok()) return std::nullopt;
  m.noise_proof.assign(noise.begin(), noise.end());
  return done(r, std::move(m));
}

// ---------------------------------------------------------------- chunked messages

namespace {
Key32 chunk_digest(std::span<const std::uint8_t> message) {
  static constexpr std::string_view kDomain = "gopa/chunked/v1";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  const auto n = static_cast<std::uint32_t>(message.size());
  const std::uint8_t le[4] = {static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8),
                              static_cast<std::uint8_t>(n >> 16), static_cast<std::uint8_t>(n >> 24)};
  crypto_hash_sha256_update(&st, le, sizeof le);
  crypto_hash_sha256_update(&st, message.data(), message.size());
  Key32 out{};
  crypto_hash_sha256_final(&st, out.data());
  return out;
}
}  // namespace

std::vector<Bytes> chunk_payloads(Bytes message) {
  std::vector<Bytes> out;
  if (message.size() <= bulletin::kMaxInlinePayload) {
    out.push_back(std::move(message));
    return out;
  }
  GOPA_CHECK(message.size() <= std::size_t{kMaxChunks} * kChunkData, "chunk_payloads: message too long");
  const auto length = static_cast<std::uint32_t>(message.size());
  const std::uint32_t count = static_cast<std::uint32_t>((message.size() + kChunkData - 1) / kChunkData);
  const Key32 digest = chunk_digest(message);
  for (std::uint32_t i = 0; i < count; ++i) {
    Bytes chunk;
    const std::size_t from = std::size_t{i} * kChunkData;
    Writer(chunk).u8(kChunkVersion).u32(i).u32(count).u32(length).bytes(digest).bytes(
        std::span<const std::uint8_t>(message).subspan(from, std::min(kChunkData, message.size() - from)));
    out.push_back(std::move(chunk));
  }
  return out;
}

std::optional<ChunkHeader> decode_chunk(std::span<const std::uint8_t> payload, std::string* why) {
  Reader r(payload, why);
  if (payload.empty() || payload[0] != kChunkVersion) {
    r.fail("not a chunk");
    return std::nullopt;
  }
  (void)r.bytes(1, "chunk version");
  ChunkHeader h;
  h.index = r.u32("chunk index");
  h.count = r.u32("chunk count");
  h.length = r.u32("message length");
  auto d = r.bytes(32, "message digest");
  if (!r.ok()) return std::nullopt;
  std::copy(d.begin(), d.end(), h.digest.begin());
  const std::size_t count = (std::size_t{h.length} + kChunkData - 1) / kChunkData;
  if (h.length <= bulletin::kMaxInlinePayload || h.count > kMaxChunks || h.count != count) {
    r.fail("chunk count " + std::to_string(h.count) + " does not fit a message of " + std::to_string(h.length) +
           " bytes (a message that fits one entry is not chunked; at most " + std::to_string(kMaxChunks) + " chunks)");
    return std::nullopt;
  }
  if (h.index >= h.count) {
    r.fail("chunk index " + std::to_string(h.index) + " not below its count " + std::to_string(h.count));
    return std::nullopt;
  }
  const std::size_t from = std::size_t{h.index} * kChunkData;
  const std::size_t want = std::min(kChunkData, std::size_t{h.length} - from);
  if (r.remaining() != want) {
    r.fail("chunk " + std::to_string(h.index) + " carries " + std::to_string(r.remaining()) + " bytes, not " +
           std::to_string(want));
    return std::nullopt;
  }
  return h;
}

ChunkAssembler::Status ChunkAssembler::add(std::span<const std::uint8_t> payload, std::string* why) {
  if (done_) return Status::ignored;
  auto h = decode_chunk(payload, why);
  if (!h) {
    done_ = true;
    return Status::bad;
  }
  if (!header_) {
    header_ = *h;
    header_->index = 0;
    parts_.resize(h->count);
  }
  ChunkHeader same = *h;
  same.index = 0;
  if (!(same == *header_)) {
    done_ = true;
    if (why) *why = "chunks of two different messages (length or digest differ)";
    return Status::bad;
  }
  auto data = payload.subspan(kChunkHeader);
  auto& slot = parts_[h->index];
  if (slot) {
    if (std::equal(slot->begin(), slot->end(), data.begin(), data.end())) return Status::ignored;
    done_ = true;
    if (why) *why = "two different chunks " + std::to_string(h->index) + " of one message";
    return Status::bad;
  }
  slot = Bytes(data.begin(), data.end());
  if (++have_ < parts_.size()) return Status::pending;
  done_ = true;
  message_.reserve(header_->length);
  for (auto& part : parts_) {
    message_.insert(message_.end(), part->begin(), part->end());
    Bytes().swap(*part);
  }
  if (chunk_digest(message_) != header_->digest) {
    message_.clear();
    if (why) *why = "the chunks put together do not hash to their digest";
    return Status::bad;
  }
  return Status::complete;
}

// ---------------------------------------------------------------- round markers

Bytes RoundMarker::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.u32(round);
  return out;
}

std::optional<RoundMarker> RoundMarker::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  RoundMarker m;
  m.round = r.u32("round");
  if (!r.ok()) return std::nullopt;
  return done(r, m);
}

// ---------------------------------------------------------------- masked values

Bytes MaskedMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  for (const auto& s : xhat) w.scalar(s);
  w.bytes(proof.encode());
  return out;
}

std::optional<MaskedMessage> MaskedMessage::decode(std::span<const std::uint8_t> in, std::uint32_t dim,
                                                   std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  if (dim == 0 || r.remaining() != static_cast<std::size_t>(dim) * 32 + OutputProof::encoded_size(dim)) {
    r.fail("masked value message has the wrong length");
    return std::nullopt;
  }
  MaskedMessage m;
  for (std::uint32_t j = 0; j < dim; ++j) m.xhat.push_back(r.scalar("masked value"));
  auto pb = r.bytes(OutputProof::encoded_size(dim), "output proof");
  if (!r.ok()) return std::nullopt;
  auto p = OutputProof::decode(pb, dim);
  if (!p) {
    r.fail("invalid output proof encoding");
    return std::nullopt;
  }
  m.proof = std::move(*p);
  return done(r, std::move(m));
}

// ---------------------------------------------------------------- result

Bytes CommitteeMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  w.u32(call);
  w.u32(attempt);
  w.bytes(message.encode());
  return out;
}

std::optional<CommitteeMessage> CommitteeMessage::decode(std::span<const std::uint8_t> in, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  CommitteeMessage m;
  m.call = r.u32("call");
  m.attempt = r.u32("attempt");
  if (!r.ok()) return std::nullopt;
  auto msg = sampling::HiddenMessage::decode(r.bytes(r.remaining(), "committee message"));
  if (!msg) {
    r.fail("committee message: malformed frame");
    return std::nullopt;
  }
  m.message = std::move(*msg);
  return done(r, std::move(m));
}

Bytes NoiseShareMessage::encode() const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  for (const auto& s : shares) w.scalar(s);
  for (const auto& b : blinders) w.scalar(b);
  return out;
}

std::optional<NoiseShareMessage> NoiseShareMessage::decode(std::span<const std::uint8_t> in, std::uint32_t dim,
                                                           std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  if (r.remaining() != static_cast<std::size_t>(dim) * 64) {
    r.fail("noise shares: expected 2·d scalars");
    return std::nullopt;
  }
  NoiseShareMessage m;
  for (std::uint32_t j = 0; j < dim; ++j) m.shares.push_back(r.scalar("noise share"));
  for (std::uint32_t j = 0; j < dim; ++j) m.blinders.push_back(r.scalar("noise blinder"));
  return done(r, std::move(m));
}

Bytes ResultMessage::encode(std::uint32_t parties) const {
  Bytes out;
  Writer w(out);
  w.u8(kMessageVersion);
  Bytes bitmap((static_cast<std::size_t>(parties) + 7) / 8, 0);
  for (auto u : counted) bitmap.at(u / 8) |= static_cast<std::uint8_t>(1u << (u % 8));
  w.bytes(bitmap);
  for (const auto& s : sum) w.scalar(s);
  return out;
}

std::optional<ResultMessage> ResultMessage::decode(std::span<const std::uint8_t> in, std::uint32_t dim,
                                                   std::uint32_t parties, std::string* why) {
  Reader r(in, why);
  if (!r.version()) return std::nullopt;
  ResultMessage m;
  const std::size_t len = (static_cast<std::size_t>(parties) + 7) / 8;
  const auto bitmap = r.bytes(len, "counted parties");
  if (!r.ok()) return std::nullopt;
  if (parties % 8 != 0 && (static_cast<unsigned>(bitmap[len - 1]) >> (parties % 8)) != 0) {
    r.fail("counted-party bitmap marks an index beyond the last party");
    return std::nullopt;
  }
  for (std::uint32_t u = 0; u < parties; ++u) {
    if ((static_cast<unsigned>(bitmap[u / 8]) >> (u % 8)) & 1u) m.counted.push_back(u);
  }
  if (!r.need(static_cast<std::size_t>(dim) * 32, "sum")) return std::nullopt;
  for (std::uint32_t j = 0; j < dim; ++j) m.sum.push_back(r.scalar("sum"));
  return done(r, std::move(m));
}

}  // namespace gopa::protocol
