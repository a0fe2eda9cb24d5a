// gopa/bulletin/note.hpp — C2SP signed notes, tlog-checkpoint bodies and tlog-cosignatures.
//
//   NoteSigner log(origin, std::move(key));                 // key name = checkpoint origin
//   std::string note = log.sign(checkpoint_body(cp));       // "<body>\n— <name> <base64>\n"
//   auto v = NoteVerifier::from_vkey(log.vkey());           // "<name>+<keyid hex>+<base64>"
//   Result<Checkpoint> seen = open_checkpoint(note, v.value());
//
// Formats (docs/board.md §3–§4):
// - signed-note: text ending in '\n', a blank line, then lines "— <name> base64(keyid4 || sig)".
//   Ed25519 key id = SHA-256(name || 0x0A || 0x01 || pubkey)[:4]; vkey = name+hex(keyid)+base64(0x01||pubkey).
// - tlog-checkpoint: "<origin>\n<decimal size>\n<base64 root>\n" then optional extension lines.
// - tlog-cosignature (Ed25519, type 0x04): key id = SHA-256(name || 0x0A || 0x04 || pubkey)[:4];
//   signature = u64 BE timestamp || Ed25519 over "cosignature/v1\ntime <ts>\n" || checkpoint body.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gopa/bulletin/keys.hpp"
#include "gopa/bulletin/result.hpp"

namespace gopa::bulletin {

using KeyId = std::array<std::uint8_t, 4>;

inline constexpr std::uint8_t kSigTypeEd25519 = 0x01;
inline constexpr std::uint8_t kSigTypeCosignatureV1 = 0x04;
inline constexpr std::size_t kMaxNoteSize = 1 << 20;
inline constexpr std::size_t kMaxNoteSignatures = 100;

// A key name is non-empty, valid UTF-8 with no spaces, no '+', no control characters.
[[nodiscard]] bool valid_key_name(std::string_view name) noexcept;
[[nodiscard]] KeyId key_id(std::string_view name, std::uint8_t sig_type, const PublicKey& key);

struct NoteSignature {
  std::string name;
  KeyId id{};
  Bytes signature;  // what follows the key id in the base64 blob
  bool operator==(const NoteSignature&) const = default;
};

struct Note {
  std::string text;  // ends in '\n'
  std::vector<NoteSignature> signatures;
};

[[nodiscard]] Result<Note> parse_note(std::string_view note);
[[nodiscard]] std::string format_note(const Note& note);
[[nodiscard]] std::string format_signature_line(const NoteSignature& sig);

// The log's checkpoint signer (signature type 0x01).
class NoteSigner {
 public:
  NoteSigner(std::string name, SigningKey key);
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const PublicKey& public_key() const noexcept { return key_.public_key(); }
  [[nodiscard]] KeyId id() const noexcept { return id_; }
  [[nodiscard]] std::string vkey() const;
  [[nodiscard]] NoteSignature signature_for(std::string_view text) const;
  // A complete signed note over `text` (which must end in '\n').
  [[nodiscard]] std::string sign(std::string_view text) const;

 private:
  std::string name_;
  SigningKey key_;
  KeyId id_{};
};

struct NoteVerifier {
  std::string name;
  PublicKey key{};
  KeyId id{};
  [[nodiscard]] static Result<NoteVerifier> from_vkey(std::string_view vkey);
  [[nodiscard]] static NoteVerifier for_key(std::string name, const PublicKey& key);
  [[nodiscard]] std::string vkey() const;
};

// Verifies that `note` carries a valid signature by `verifier` (lines of unknown keys are ignored,
// a line with the verifier's name and key id that does not verify rejects the note).
[[nodiscard]] Status verify_note(const Note& note, const NoteVerifier& verifier);

struct Checkpoint {
  std::string origin;
  std::uint64_t size = 0;
  Hash root{};
  std::vector<std::string> extensions;
  bool operator==(const Checkpoint&) const = default;
};

[[nodiscard]] std::string checkpoint_body(const Checkpoint& cp);
[[nodiscard]] Result<Checkpoint> parse_checkpoint_body(std::string_view text);
// Parses a signed checkpoint note, verifies the log's signature and that origin == key name.
[[nodiscard]] Result<Checkpoint> open_checkpoint(std::string_view note, const NoteVerifier& log);

// tlog-cosignature/v1 (Ed25519).
class Cosigner {
 public:
  Cosigner(std::string name, SigningKey key);
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const PublicKey& public_key() const noexcept { return key_.public_key(); }
  [[nodiscard]] std::string vkey() const;
  [[nodiscard]] NoteSignature cosign(std::string_view checkpoint_body, std::uint64_t timestamp) const;

 private:
  std::string name_;
  SigningKey key_;
  KeyId id_{};
};

struct CosignatureVerifier {
  std::string name;
  PublicKey key{};
  KeyId id{};
  [[nodiscard]] static Result<CosignatureVerifier> from_vkey(std::string_view vkey);
  [[nodiscard]] static CosignatureVerifier for_key(std::string name, const PublicKey& key);
};

[[nodiscard]] std::string cosignature_message(std::string_view checkpoint_body, std::uint64_t timestamp);
// Verifies one cosignature line over `checkpoint_body`; returns its timestamp.
[[nodiscard]] Result<std::uint64_t> verify_cosignature(std::string_view checkpoint_body,
                                                       const NoteSignature& sig,
                                                       const CosignatureVerifier& verifier);

}  // namespace gopa::bulletin
