// The setup's roster chunks and the result's counted-party bitmap: round trips, strict decoding,
// and assembly that refuses chunks out of order, repeated keys and a roster that does not match
// the digest in the setup entry.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/session.hpp"

namespace {

namespace gp = gopa::protocol;

gp::SetupMessage make_setup(std::uint32_t n) {
  gp::SessionParams p = gp::SessionParams::defaults(n, 1);
  p.neighbors = 2;
  p.sigma_eta = 1;
  p.sigma_delta = 10;
  gp::SetupMessage s{p, {}};
  for (std::uint32_t u = 0; u < n; ++u) {
    gp::RosterEntry e;
    for (std::size_t i = 0; i < 4; ++i) e.sign_key[i] = static_cast<std::uint8_t>(u >> (8 * i));
    e.box_key = e.sign_key;
    e.box_key[31] = 0x5a;
    s.roster.push_back(e);
  }
  return s;
}

struct Decoded {
  gp::SetupHead head;
  std::vector<gp::RosterChunk> chunks;
};

Decoded decode_all(const std::vector<gp::Bytes>& entries) {
  Decoded d;
  auto h = gp::SetupHead::decode(entries.at(0));
  REQUIRE(h.has_value());
  d.head = *h;
  for (std::size_t i = 1; i < entries.size(); ++i) {
    auto c = gp::RosterChunk::decode(entries[i]);
    REQUIRE(c.has_value());
    d.chunks.push_back(*c);
  }
  return d;
}

}  // namespace

TEST_CASE("A roster of 2,500 keys travels in three entries and reassembles exactly", "[protocol][messages]") {
  const auto setup = make_setup(2500);
  const auto entries = setup.encode_entries();
  REQUIRE(entries.size() == 3);
  for (const auto& e : entries) CHECK(e.size() <= gopa::bulletin::kMaxInlinePayload);
  Decoded d = decode_all(entries);
  CHECK(d.head.first.size() == gp::kRosterChunk);
  CHECK(d.head.digest == gp::roster_digest(setup.roster));
  REQUIRE(d.chunks.size() == 2);
  CHECK(d.chunks[0].first == 1000);
  CHECK(d.chunks[1].first == 2000);
  CHECK(d.chunks[1].keys.size() == 500);
  CHECK(d.head.encode() == entries[0]);
  CHECK(d.chunks[1].encode() == entries[2]);

  std::string why = "stale";
  auto whole = gp::SetupMessage::assemble(d.head, d.chunks, &why);
  REQUIRE(whole.has_value());
  CHECK(why.empty());
  CHECK(whole->roster == setup.roster);
  CHECK(whole->params.session_id() == setup.params.session_id());

  SECTION("incomplete: not yet a setup, and not an error") {
    auto part = gp::SetupMessage::assemble(d.head, std::span(d.chunks).first(1), &why);
    CHECK_FALSE(part.has_value());
    CHECK(why.empty());
  }
  SECTION("chunks out of order") {
    std::swap(d.chunks[0], d.chunks[1]);
    CHECK_FALSE(gp::SetupMessage::assemble(d.head, d.chunks, &why).has_value());
    CHECK(why.find("does not continue") != std::string::npos);
  }
  SECTION("a chunk repeated") {
    d.chunks.insert(d.chunks.begin() + 1, d.chunks[0]);
    CHECK_FALSE(gp::SetupMessage::assemble(d.head, d.chunks, &why).has_value());
    CHECK(why.find("does not continue") != std::string::npos);
  }
  SECTION("more keys than parties") {
    d.chunks.push_back(gp::RosterChunk{2500, {setup.roster[0]}});
    CHECK_FALSE(gp::SetupMessage::assemble(d.head, d.chunks, &why).has_value());
    CHECK(why.find("more keys") != std::string::npos);
  }
  SECTION("a key changed in a later chunk: the digest catches it") {
    d.chunks[1].keys[17].box_key[5] ^= 1;
    CHECK_FALSE(gp::SetupMessage::assemble(d.head, d.chunks, &why).has_value());
    CHECK(why.find("digest") != std::string::npos);
  }
  SECTION("a repeated key is refused even when the digest matches") {
    auto bad = setup;
    bad.roster[2400] = bad.roster[3];
    Decoded e = decode_all(bad.encode_entries());
    CHECK_FALSE(gp::SetupMessage::assemble(e.head, e.chunks, &why).has_value());
    CHECK(why == "roster repeats a key");
  }
}

TEST_CASE("A small roster is one setup entry", "[protocol][messages]") {
  const auto setup = make_setup(5);
  const auto entries = setup.encode_entries();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].size() == 1 + gp::SessionParams::kEncodedBytes + 32 + 4 + 5 * 64);
  Decoded d = decode_all(entries);
  auto whole = gp::SetupMessage::assemble(d.head, {});
  REQUIRE(whole.has_value());
  CHECK(whole->roster == setup.roster);
}

TEST_CASE("Setup and roster-chunk decoding is strict", "[protocol][messages]") {
  const auto entries = make_setup(1003).encode_entries();
  REQUIRE(entries.size() == 2);
  for (std::size_t which = 0; which < 2; ++which) {
    const gp::Bytes& full = entries[which];
    auto decodes = [&](const gp::Bytes& b, std::string* why) {
      return which == 0 ? gp::SetupHead::decode(b, why).has_value() : gp::RosterChunk::decode(b, why).has_value();
    };
    REQUIRE(decodes(full, nullptr));
    for (std::size_t len = 0; len < full.size(); len += (len < 200 ? 1 : 61)) {
      std::string why;
      CHECK_FALSE(decodes(gp::Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len)), &why));
      CHECK_FALSE(why.empty());
    }
    gp::Bytes longer = full;
    longer.push_back(0);
    CHECK_FALSE(decodes(longer, nullptr));
    gp::Bytes version = full;
    version[0] ^= 0x80;
    CHECK_FALSE(decodes(version, nullptr));
  }
  // Key counts 0 and above kRosterChunk are refused.
  gp::RosterChunk empty{0, {}};
  std::string why;
  CHECK_FALSE(gp::RosterChunk::decode(empty.encode(), &why).has_value());
  CHECK(why.find("1..1000") != std::string::npos);
  gp::RosterChunk big{0, std::vector<gp::RosterEntry>(gp::kRosterChunk + 1)};
  CHECK_FALSE(gp::RosterChunk::decode(big.encode(), &why).has_value());
  // A first chunk longer than the roster.
  auto three = make_setup(3);
  gp::SetupHead head{three.params, gp::roster_digest(three.roster), three.roster};
  head.first.push_back(make_setup(4).roster[3]);
  CHECK_FALSE(gp::SetupHead::decode(head.encode(), &why).has_value());
  CHECK(why.find("more keys than there are parties") != std::string::npos);
}

TEST_CASE("The result's counted set is a bitmap of n bits", "[protocol][messages]") {
  const std::vector<std::uint32_t> counted = {0, 3, 7, 8, 12};
  gp::ResultMessage m{counted, {gopa::Scalar::from_u64(5), gopa::Scalar::from_u64(9)}};
  const gp::Bytes b = m.encode(13);
  CHECK(b.size() == 1 + 2 + 2 * 32);
  CHECK(b[1] == 0x89);  // parties 0, 3, 7
  CHECK(b[2] == 0x11);  // parties 8, 12
  auto back = gp::ResultMessage::decode(b, 2, 13);
  REQUIRE(back.has_value());
  CHECK(back->counted == counted);
  CHECK(back->sum == m.sum);
  CHECK(back->encode(13) == b);

  std::string why;
  gp::Bytes pad = b;
  pad[2] |= 0x20;  // party 13 of 13
  CHECK_FALSE(gp::ResultMessage::decode(pad, 2, 13, &why).has_value());
  CHECK(why.find("beyond the last party") != std::string::npos);
  CHECK_FALSE(gp::ResultMessage::decode(b, 2, 17, &why).has_value());  // bitmap length follows n
  CHECK_FALSE(gp::ResultMessage::decode(b, 3, 13, &why).has_value());
  for (std::size_t len = 0; len < b.size(); ++len) {
    CHECK_FALSE(gp::ResultMessage::decode(gp::Bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(len)), 2, 13).has_value());
  }
}

// ---------------------------------------------------------------- chunked messages

using gopa::protocol::Bytes;
using gopa::protocol::ChunkAssembler;
using gopa::protocol::chunk_payloads;
using gopa::protocol::decode_chunk;
using gopa::protocol::kChunkData;
using gopa::protocol::kChunkHeader;
using gopa::protocol::kMessageVersion;

namespace {
Bytes long_message(std::size_t n, std::uint8_t salt) {
  Bytes m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = static_cast<std::uint8_t>((i * 131 + salt) >> 3);
  m[0] = kMessageVersion;
  return m;
}
// Feeds payloads in order; returns the final status and the message when complete.
std::pair<ChunkAssembler::Status, Bytes> feed(const std::vector<Bytes>& parts, std::string* why = nullptr) {
  ChunkAssembler a;
  ChunkAssembler::Status last = ChunkAssembler::Status::pending;
  Bytes out;
  for (const Bytes& p : parts) {
    const auto st = a.add(p, why);
    if (st == ChunkAssembler::Status::complete) out = a.take_message();
    if (st != ChunkAssembler::Status::ignored) last = st;
  }
  return {last, out};
}
}  // namespace

TEST_CASE("Chunked messages: split at 65,000 bytes, put together in any order", "[protocol][messages][chunks]") {
  // Messages that fit one entry are posted whole.
  CHECK(chunk_payloads(long_message(100, 1)).size() == 1);
  CHECK(chunk_payloads(long_message(gopa::bulletin::kMaxInlinePayload, 1)).size() == 1);
  for (std::size_t n : {gopa::bulletin::kMaxInlinePayload + 1, std::size_t{130'000}, std::size_t{130'001}, std::size_t{400'000}}) {
    const Bytes m = long_message(n, 7);
    auto parts = chunk_payloads(m);
    REQUIRE(parts.size() == (n + kChunkData - 1) / kChunkData);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      CHECK(parts[i].size() <= gopa::bulletin::kMaxInlinePayload);
      auto h = decode_chunk(parts[i]);
      REQUIRE(h.has_value());
      CHECK(h->index == i);
      CHECK(h->count == parts.size());
      CHECK(h->length == n);
    }
    auto [st, out] = feed(parts);
    CHECK(st == ChunkAssembler::Status::complete);
    CHECK(out == m);
    // Reversed, rotated, and with repeats: the same message.
    std::reverse(parts.begin(), parts.end());
    CHECK(feed(parts).second == m);
    std::rotate(parts.begin(), parts.begin() + 1, parts.end());
    auto twice = parts;
    twice.insert(twice.begin() + 1, parts.front());
    CHECK(feed(twice).second == m);
  }
}

TEST_CASE("Chunked messages: omission, splicing, conflicts and malformed chunks", "[protocol][messages][chunks]") {
  const Bytes m = long_message(200'000, 3), other = long_message(200'000, 4), longer = long_message(260'001, 3);
  const auto parts = chunk_payloads(m), oparts = chunk_payloads(other), lparts = chunk_payloads(longer);
  REQUIRE(parts.size() == 4);
  // Omission: any chunk missing leaves the message pending.
  for (std::size_t drop = 0; drop < parts.size(); ++drop) {
    auto some = parts;
    some.erase(some.begin() + static_cast<std::ptrdiff_t>(drop));
    CHECK(feed(some).first == ChunkAssembler::Status::pending);
  }
  // Splicing a chunk of another message of the same sender (other digest, or other length).
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto spliced = parts;
    spliced[i] = oparts[i];
    std::string why;
    CHECK(feed(spliced, &why).first == ChunkAssembler::Status::bad);
    CHECK(why.find("two different messages") != std::string::npos);
    spliced[i] = lparts[i];
    CHECK(feed(spliced).first == ChunkAssembler::Status::bad);
  }
  // A chunk whose header claims this message but whose data is another's: the digest fails at the end.
  {
    auto forged = parts;
    std::copy(oparts[2].begin() + kChunkHeader, oparts[2].end(), forged[2].begin() + kChunkHeader);
    std::string why;
    CHECK(feed(forged, &why).first == ChunkAssembler::Status::bad);
    CHECK(why.find("digest") != std::string::npos);
  }
  // Two different chunks of one index.
  {
    auto twice = parts;
    Bytes alt = parts[1];
    alt.back() ^= 1;
    twice.insert(twice.begin() + 2, alt);
    std::string why;
    CHECK(feed(twice, &why).first == ChunkAssembler::Status::bad);
    CHECK(why.find("two different chunks 1") != std::string::npos);
  }
  // After a bad chunk, everything is ignored (the message stays malformed).
  {
    ChunkAssembler a;
    CHECK(a.add(oparts[0], nullptr) == ChunkAssembler::Status::pending);
    CHECK(a.add(parts[1], nullptr) == ChunkAssembler::Status::bad);
    for (const auto& p : parts) CHECK(a.add(p, nullptr) == ChunkAssembler::Status::ignored);
  }
  // Malformed chunks: every truncation, a wrong count, an index past the count, a length that
  // fits one entry, too many bytes.
  for (std::size_t len = 0; len < kChunkHeader + 10; ++len) {
    CHECK_FALSE(decode_chunk(std::span(parts[0]).first(len)).has_value());
  }
  CHECK_FALSE(decode_chunk(std::span(parts[0]).first(parts[0].size() - 1)).has_value());
  auto set_u32 = [](Bytes b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * (3 - i)));
    return b;
  };
  CHECK_FALSE(decode_chunk(set_u32(parts[0], 5, 5)).has_value());                  // count
  CHECK_FALSE(decode_chunk(set_u32(parts[3], 1, 4)).has_value());                  // index ≥ count
  CHECK_FALSE(decode_chunk(set_u32(parts[0], 9, 60'000)).has_value());             // fits one entry
  Bytes extra = parts[0];
  extra.push_back(0);
  CHECK_FALSE(decode_chunk(extra).has_value());
  std::string why;
  CHECK(feed({set_u32(parts[0], 1, 9)}, &why).first == ChunkAssembler::Status::bad);
  CHECK_FALSE(why.empty());
}
