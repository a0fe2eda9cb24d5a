// The setup's roster chunks and the result's counted-party bitmap: round trips, strict decoding,
// and assembly that refuses chunks out of order, repeated keys and a roster that does not match
// the digest in the setup entry.
#include <catch2/catch.hpp>

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
