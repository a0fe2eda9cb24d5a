// C2SP signed-note, tlog-checkpoint and tlog-cosignature (docs/board.md §3–§4).
#include "gopa/bulletin/note.hpp"

#include <algorithm>

#include "gopa/bytes.hpp"

namespace gopa::bulletin {

namespace {

constexpr std::string_view kEmDash = "\xE2\x80\x94";  // U+2014

// signed-note: valid UTF-8 and no ASCII control characters other than '\n'.
bool valid_note_text(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
      ++i;
      continue;
    }
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1Fu; }
    else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0Fu; }
    else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07u; }
    else return false;
    if (i + n >= s.size()) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000)) return false;
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += n + 1;
  }
  return true;
}

struct ParsedVkey {
  std::string name;
  KeyId id{};
  std::uint8_t type = 0;
  PublicKey key{};
};

Result<ParsedVkey> parse_vkey(std::string_view vkey) {
  const auto p1 = vkey.find('+');
  if (p1 == std::string_view::npos) return make_error(Errc::malformed, "vkey: no '+' after the name");
  const auto p2 = vkey.find('+', p1 + 1);
  if (p2 == std::string_view::npos) return make_error(Errc::malformed, "vkey: no '+' after the key id");
  ParsedVkey out;
  out.name = std::string(vkey.substr(0, p1));
  if (!valid_key_name(out.name)) return make_error(Errc::malformed, "vkey: invalid key name");
  const auto id = from_hex(vkey.substr(p1 + 1, p2 - p1 - 1));
  if (!id || id->size() != 4) return make_error(Errc::malformed, "vkey: key id is not 8 lowercase hex digits");
  std::copy(id->begin(), id->end(), out.id.begin());
  const auto blob = from_base64(vkey.substr(p2 + 1));
  if (!blob) return make_error(Errc::malformed, "vkey: key material is not canonical base64");
  if (blob->size() != 33) return make_error(Errc::malformed, "vkey: key material is not 1 + 32 bytes");
  out.type = (*blob)[0];
  std::copy(blob->begin() + 1, blob->end(), out.key.begin());
  if (key_id(out.name, out.type, out.key) != out.id) {
    return make_error(Errc::malformed, "vkey: key id does not match name and key");
  }
  return out;
}

std::string make_vkey(const std::string& name, std::uint8_t type, const PublicKey& key) {
  Bytes blob;
  blob.push_back(type);
  blob.insert(blob.end(), key.begin(), key.end());
  return name + "+" + to_hex(key_id(name, type, key)) + "+" + to_base64(blob);
}

}  // namespace

bool valid_key_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  if (!valid_note_text(name)) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || c == '+') return false;
  }
  // Unicode spaces outside ASCII (U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
  // U+202F, U+205F, U+3000): rejected by refusing their UTF-8 encodings.
  static constexpr std::string_view kSpaces[] = {
      "\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\xA8", "\xE2\x80\xA9",
      "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
  for (auto sp : kSpaces) {
    if (name.find(sp) != std::string_view::npos) return false;
  }
  for (unsigned char b = 0x80; b <= 0x8A; ++b) {
    const char seq[3] = {'\xE2', '\x80', static_cast<char>(b)};
    if (name.find(std::string_view(seq, 3)) != std::string_view::npos) return false;
  }
  return true;
}

KeyId key_id(std::string_view name, std::uint8_t sig_type, const PublicKey& key) {
  Bytes msg(name.begin(), name.end());
  msg.push_back('\n');
  msg.push_back(sig_type);
  msg.insert(msg.end(), key.begin(), key.end());
  const Hash h = sha256(msg);
  return KeyId{h[0], h[1], h[2], h[3]};
}

std::string format_signature_line(const NoteSignature& sig) {
  Bytes blob(sig.id.begin(), sig.id.end());
  blob.insert(blob.end(), sig.signature.begin(), sig.signature.end());
  return std::string(kEmDash) + " " + sig.name + " " + to_base64(blob) + "\n";
}

std::string format_note(const Note& note) {
  std::string out = note.text;
  out += "\n";
  for (const auto& s : note.signatures) out += format_signature_line(s);
  return out;
}

Result<Note> parse_note(std::string_view note) {
  if (note.size() > kMaxNoteSize) return make_error(Errc::too_large, "note over 1 MiB");
  if (!valid_note_text(note)) {
    return make_error(Errc::malformed, "note is not UTF-8 text without control characters");
  }
  // The text ends at the last blank line (signature lines never contain "\n\n").
  const auto split = note.rfind("\n\n");
  if (split == std::string_view::npos) return make_error(Errc::malformed, "note has no blank line before signatures");
  Note out;
  out.text = std::string(note.substr(0, split + 1));
  std::string_view sigs = note.substr(split + 2);
  if (sigs.empty()) return make_error(Errc::malformed, "note has no signature lines");
  if (sigs.back() != '\n') return make_error(Errc::malformed, "note does not end in a newline");
  while (!sigs.empty()) {
    const auto eol = sigs.find('\n');
    std::string_view line = sigs.substr(0, eol);
    sigs.remove_prefix(eol + 1);
    if (out.signatures.size() >= kMaxNoteSignatures) return make_error(Errc::too_large, "note has over 100 signatures");
    if (line.substr(0, kEmDash.size() + 1) != std::string(kEmDash) + " ") {
      return make_error(Errc::malformed, "signature line does not start with an em dash and a space");
    }
    line.remove_prefix(kEmDash.size() + 1);
    const auto sp = line.find(' ');
    if (sp == std::string_view::npos) return make_error(Errc::malformed, "signature line has no space after the key name");
    NoteSignature sig;
    sig.name = std::string(line.substr(0, sp));
    if (!valid_key_name(sig.name)) return make_error(Errc::malformed, "signature line has an invalid key name");
    const auto blob = from_base64(line.substr(sp + 1));
    if (!blob) return make_error(Errc::malformed, "signature is not canonical base64");
    if (blob->size() < 5) return make_error(Errc::malformed, "signature shorter than a key id and one byte");
    std::copy_n(blob->begin(), 4, sig.id.begin());
    sig.signature.assign(blob->begin() + 4, blob->end());
    out.signatures.push_back(std::move(sig));
  }
  return out;
}

NoteSigner::NoteSigner(std::string name, SigningKey key) : name_(std::move(name)), key_(std::move(key)) {
  GOPA_CHECK(valid_key_name(name_), "note signer name must be a valid key name");
  id_ = key_id(name_, kSigTypeEd25519, key_.public_key());
}

std::string NoteSigner::vkey() const { return make_vkey(name_, kSigTypeEd25519, key_.public_key()); }

NoteSignature NoteSigner::signature_for(std::string_view text) const {
  GOPA_CHECK(!text.empty() && text.back() == '\n', "note text must end in a newline");
  const Signature s = key_.sign(as_bytes(text));
  return NoteSignature{name_, id_, Bytes(s.begin(), s.end())};
}

std::string NoteSigner::sign(std::string_view text) const {
  Note n{std::string(text), {signature_for(text)}};
  return format_note(n);
}

Result<NoteVerifier> NoteVerifier::from_vkey(std::string_view vkey) {
  auto p = parse_vkey(vkey);
  if (!p) return p.error();
  if (p.value().type != kSigTypeEd25519) return make_error(Errc::unknown_type, "vkey: not an Ed25519 (0x01) key");
  return NoteVerifier{p.value().name, p.value().key, p.value().id};
}

NoteVerifier NoteVerifier::for_key(std::string name, const PublicKey& key) {
  const KeyId id = key_id(name, kSigTypeEd25519, key);
  return NoteVerifier{std::move(name), key, id};
}

std::string NoteVerifier::vkey() const { return make_vkey(name, kSigTypeEd25519, key); }

Status verify_note(const Note& note, const NoteVerifier& verifier) {
  for (const auto& s : note.signatures) {
    if (s.name != verifier.name || s.id != verifier.id) continue;
    if (!ed25519_verify(verifier.key, as_bytes(note.text), s.signature)) {
      return make_error(Errc::bad_signature, "note signature by " + verifier.name + " does not verify");
    }
    return {};
  }
  return make_error(Errc::bad_signature, "note carries no signature by " + verifier.name);
}

std::string checkpoint_body(const Checkpoint& cp) {
  std::string out = cp.origin + "\n" + std::to_string(cp.size) + "\n" + to_base64(cp.root) + "\n";
  for (const auto& ext : cp.extensions) out += ext + "\n";
  return out;
}

Result<Checkpoint> parse_checkpoint_body(std::string_view text) {
  if (text.empty() || text.back() != '\n') return make_error(Errc::malformed, "checkpoint does not end in a newline");
  std::vector<std::string_view> lines;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto eol = rest.find('\n');
    lines.push_back(rest.substr(0, eol));
    rest.remove_prefix(eol + 1);
    if (lines.size() > 1000) return make_error(Errc::too_large, "checkpoint has too many lines");
  }
  if (lines.size() < 3) return make_error(Errc::malformed, "checkpoint has fewer than three lines");
  Checkpoint cp;
  cp.origin = std::string(lines[0]);
  if (cp.origin.empty()) return make_error(Errc::malformed, "checkpoint origin line is empty");
  const auto size = parse_decimal_u64(lines[1]);
  if (!size) return make_error(Errc::malformed, "checkpoint size is not a canonical decimal");
  cp.size = *size;
  const auto root = from_base64(lines[2]);
  if (!root || root->size() != 32) return make_error(Errc::malformed, "checkpoint root is not base64 of 32 bytes");
  std::copy(root->begin(), root->end(), cp.root.begin());
  for (std::size_t i = 3; i < lines.size(); ++i) {
    if (lines[i].empty()) return make_error(Errc::malformed, "checkpoint has an empty extension line");
    cp.extensions.emplace_back(lines[i]);
  }
  return cp;
}

Result<Checkpoint> open_checkpoint(std::string_view note, const NoteVerifier& log) {
  auto parsed = parse_note(note);
  if (!parsed) return parsed.error();
  if (Status s = verify_note(parsed.value(), log); !s) return s.error();
  auto cp = parse_checkpoint_body(parsed.value().text);
  if (!cp) return cp;
  if (cp.value().origin != log.name) {
    return make_error(Errc::malformed, "checkpoint origin '" + cp.value().origin + "' is not the log key name");
  }
  return cp;
}

Cosigner::Cosigner(std::string name, SigningKey key) : name_(std::move(name)), key_(std::move(key)) {
  GOPA_CHECK(valid_key_name(name_), "cosigner name must be a valid key name");
  id_ = key_id(name_, kSigTypeCosignatureV1, key_.public_key());
}

std::string Cosigner::vkey() const { return make_vkey(name_, kSigTypeCosignatureV1, key_.public_key()); }

std::string cosignature_message(std::string_view checkpoint_body_text, std::uint64_t timestamp) {
  return "cosignature/v1\ntime " + std::to_string(timestamp) + "\n" + std::string(checkpoint_body_text);
}

NoteSignature Cosigner::cosign(std::string_view body, std::uint64_t timestamp) const {
  GOPA_CHECK(timestamp < (1ull << 63), "cosignature timestamps stay below 2^63");
  const Signature s = key_.sign(as_bytes(cosignature_message(body, timestamp)));
  NoteSignature out{name_, id_, {}};
  ByteWriter<ByteOrder::big>(out.signature).u64(timestamp).bytes(s);
  return out;
}

Result<CosignatureVerifier> CosignatureVerifier::from_vkey(std::string_view vkey) {
  auto p = parse_vkey(vkey);
  if (!p) return p.error();
  if (p.value().type != kSigTypeCosignatureV1) {
    return make_error(Errc::unknown_type, "vkey: not an Ed25519 cosignature (0x04) key");
  }
  return CosignatureVerifier{p.value().name, p.value().key, p.value().id};
}

CosignatureVerifier CosignatureVerifier::for_key(std::string name, const PublicKey& key) {
  const KeyId id = key_id(name, kSigTypeCosignatureV1, key);
  return CosignatureVerifier{std::move(name), key, id};
}

Result<std::uint64_t> verify_cosignature(std::string_view body, const NoteSignature& sig,
                                         const CosignatureVerifier& verifier) {
  if (sig.name != verifier.name || sig.id != verifier.id) {
    return make_error(Errc::bad_signature, "cosignature line is not by " + verifier.name);
  }
  if (sig.signature.size() != 8 + 64) return make_error(Errc::malformed, "cosignature is not 8 + 64 bytes");
  const std::uint64_t ts = ByteReader<ByteOrder::big>(sig.signature).u64("timestamp");
  if (ts >= (1ull << 63)) return make_error(Errc::malformed, "cosignature timestamp is 2^63 or more");
  const auto msg = cosignature_message(body, ts);
  if (!ed25519_verify(verifier.key, as_bytes(msg), std::span(sig.signature).subspan(8))) {
    return make_error(Errc::bad_signature, "cosignature by " + verifier.name + " does not verify");
  }
  return ts;
}

}  // namespace gopa::bulletin
