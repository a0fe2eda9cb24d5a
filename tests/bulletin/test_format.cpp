// Entry encoding, signed notes, checkpoints and cosignatures.
#include <catch2/catch.hpp>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/note.hpp"

using namespace gopa::bulletin;

namespace {

SigningKey key_from(std::uint8_t b) {
  std::array<std::uint8_t, 32> seed{};
  seed.fill(b);
  return SigningKey::from_seed(seed);
}

Entry sample_entry(std::size_t payload_size = 10) {
  Entry e;
  e.session_id.fill(0x11);
  e.round = 3;
  e.type = MessageType::commitment;
  e.recipient.fill(0);
  e.sequence = 42;
  e.payload.assign(payload_size, 0xab);
  return e;
}

}  // namespace

TEST_CASE("entry: encode/decode round trip and exact layout", "[bulletin][entry]") {
  auto key = key_from(1);
  Entry e = sample_entry();
  const Bytes wire = sign_entry(e, key);
  REQUIRE(wire.size() == kEntryHeaderSize + 10 + 64);
  CHECK(wire[0] == 0x01);
  CHECK(wire[33] == 0);  // round, big-endian
  CHECK(wire[36] == 3);
  CHECK(wire[37] == 0);  // type 4
  CHECK(wire[38] == 4);
  CHECK(wire[110] == 42);  // last byte of the sequence
  CHECK(wire[111] == 0);   // inline payload
  CHECK(wire[115] == 10);  // payload length
  auto back = decode_entry(wire);
  REQUIRE(back.ok());
  CHECK(back.value() == e);
  CHECK(encode_entry(back.value()) == wire);
}

TEST_CASE("entry: maximum size, oversize and blob references", "[bulletin][entry]") {
  auto key = key_from(2);
  Entry big = sample_entry(kMaxInlinePayload);
  const Bytes wire = sign_entry(big, key);
  CHECK(wire.size() == kMaxEntrySize);
  CHECK(decode_entry(wire).ok());
  Bytes over = wire;
  over.push_back(0);
  CHECK(decode_entry(over).error().code == Errc::too_large);

  const Bytes blob(kMaxInlinePayload + 1, 0x77);
  Entry ref = sample_entry(0);
  ref.payload_kind = PayloadKind::blob_reference;
  ref.payload = blob_reference(blob);
  CHECK(decode_entry(sign_entry(ref, key)).ok());
  // A blob small enough to be inline must be inline.
  ref.payload = blob_reference(Bytes(100, 1));
  CHECK(decode_entry(sign_entry(ref, key)).error().code == Errc::non_canonical);
}

TEST_CASE("entry: tamper matrix", "[bulletin][entry]") {
  auto key = key_from(3);
  Entry e = sample_entry(5);
  const Bytes wire = sign_entry(e, key);
  SECTION("every truncation is rejected") {
    for (std::size_t n = 0; n < wire.size(); ++n) {
      CHECK_FALSE(decode_entry(std::span(wire).first(n)).ok());
    }
  }
  SECTION("every single-bit flip is rejected") {
    for (std::size_t i = 0; i < wire.size(); ++i) {
      Bytes t = wire;
      t[i] ^= 0x01;
      CHECK_FALSE(decode_entry(t).ok());
    }
  }
  SECTION("trailing garbage is rejected") {
    Bytes t = wire;
    t.push_back(0);
    CHECK(decode_entry(t).error().code == Errc::malformed);
  }
  SECTION("unknown version, type and payload kind") {
    Bytes t = wire;
    t[0] = 2;
    CHECK(decode_entry(t).error().code == Errc::unknown_type);
    t = wire;
    t[38] = 99;
    CHECK(decode_entry(t).error().code == Errc::unknown_type);
    t = wire;
    t[111] = 7;
    CHECK(decode_entry(t).error().code == Errc::unknown_type);
  }
  SECTION("another key's signature is rejected") {
    Entry other = e;
    auto k2 = key_from(4);
    (void)sign_entry(other, k2);
    other.sender = e.sender;
    CHECK(decode_entry(encode_entry(other)).error().code == Errc::bad_signature);
  }
}

TEST_CASE("base64 and decimals are strict", "[bulletin][note]") {
  CHECK(from_base64("AAA=").has_value());
  CHECK_FALSE(from_base64("AAB=").has_value());  // non-zero padding bits
  CHECK_FALSE(from_base64("AAA").has_value());
  CHECK_FALSE(from_base64("AA A").has_value());
  // The empty text decodes to no bytes (an empty buffer is never handed to libsodium: its output
  // pointer is declared non-null, and an empty vector's may be null).
  REQUIRE(from_base64("").has_value());
  CHECK(from_base64("")->empty());
  CHECK(to_base64({}).empty());
  CHECK(parse_decimal_u64("0").value() == 0);
  CHECK(parse_decimal_u64("18446744073709551615").value() == 18446744073709551615ull);
  CHECK_FALSE(parse_decimal_u64("18446744073709551616").has_value());
  CHECK_FALSE(parse_decimal_u64("01").has_value());
  CHECK_FALSE(parse_decimal_u64("+1").has_value());
  CHECK_FALSE(parse_decimal_u64("").has_value());
}

TEST_CASE("signed note: C2SP signed-note example verifies", "[bulletin][note]") {
  // The example of c2sp.org/signed-note (Ed25519 vkey and note).
  const std::string vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
  const std::string note =
      "If you think cryptography is the answer to your problem,\n"
      "then you don't know what your problem is.\n"
      "\n"
      "\xE2\x80\x94 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
  auto v = NoteVerifier::from_vkey(vkey);
  REQUIRE(v.ok());
  CHECK(v.value().vkey() == vkey);
  auto n = parse_note(note);
  REQUIRE(n.ok());
  CHECK(verify_note(n.value(), v.value()).ok());
  CHECK(format_note(n.value()) == note);
  std::string bad = note;
  bad[3] = 'X';
  auto nb = parse_note(bad);
  REQUIRE(nb.ok());
  CHECK_FALSE(verify_note(nb.value(), v.value()).ok());
}

TEST_CASE("checkpoint: format, signing and strict parsing", "[bulletin][note]") {
  NoteSigner log("example.com/log", key_from(5));
  Checkpoint cp{"example.com/log", 20852163, {}, {}};
  cp.root.fill(0x42);
  const std::string body = checkpoint_body(cp);
  CHECK(body == "example.com/log\n20852163\nQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\n");
  const std::string note = log.sign(body);
  auto v = NoteVerifier::from_vkey(log.vkey());
  REQUIRE(v.ok());
  auto opened = open_checkpoint(note, v.value());
  REQUIRE(opened.ok());
  CHECK(opened.value() == cp);
  // The vkey's key id is SHA-256(name || 0x0A || 0x01 || key)[:4].
  CHECK(log.vkey().substr(0, log.vkey().find('+', 16)) == "example.com/log+" + to_hex(log.id()));

  CHECK_FALSE(parse_checkpoint_body("o\n012\nQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\n").ok());
  CHECK_FALSE(parse_checkpoint_body("o\n12\nQkJC\n").ok());
  CHECK_FALSE(parse_checkpoint_body("o\n12\n").ok());
  CHECK_FALSE(parse_checkpoint_body("o\n12\nQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\n\n").ok());
  CHECK(parse_checkpoint_body("o\n12\nQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\next\n").value().extensions.size() == 1);

  // A note from another key with the same name is rejected, one with no blank line too.
  NoteSigner impostor("example.com/log", key_from(6));
  CHECK_FALSE(open_checkpoint(impostor.sign(body), v.value()).ok());
  CHECK_FALSE(parse_note(body).ok());
  CHECK_FALSE(parse_note(body + "\n-- example.com/log AAAA\n").ok());
}

TEST_CASE("cosignature: tlog-cosignature/v1 sign and verify", "[bulletin][note]") {
  Cosigner witness("party.example/7", key_from(8));
  const std::string body = "example.com/log\n5\nQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\n";
  const NoteSignature sig = witness.cosign(body, 1679315147);
  CHECK(sig.signature.size() == 72);
  CHECK(cosignature_message(body, 1679315147).rfind("cosignature/v1\ntime 1679315147\nexample.com/log\n", 0) == 0);
  auto v = CosignatureVerifier::from_vkey(witness.vkey());
  REQUIRE(v.ok());
  auto ts = verify_cosignature(body, sig, v.value());
  REQUIRE(ts.ok());
  CHECK(ts.value() == 1679315147);
  CHECK_FALSE(verify_cosignature("example.com/log\n6\nQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=\n", sig, v.value()).ok());
  NoteSignature bad = sig;
  bad.signature[3] ^= 1;  // the timestamp is signed too
  CHECK_FALSE(verify_cosignature(body, bad, v.value()).ok());
  // A cosignature vkey is not a checkpoint-signing vkey.
  CHECK_FALSE(NoteVerifier::from_vkey(witness.vkey()).ok());
}
