// Fiat–Shamir transcript on BLAKE2b-512 (RFC 7693) from libsodium. Layout: docs/transcript.md.
#include "gopa/transcript.hpp"

#include <cstring>
#include <vector>

#include "gopa/check.hpp"

namespace gopa {

namespace {
// Operation codes: every frame starts with one, so an append can never be confused with a
// challenge request or a ratchet.
constexpr std::uint8_t kOpInit = 0x00;
constexpr std::uint8_t kOpDomain = 0x01;
constexpr std::uint8_t kOpAppend = 0x02;
constexpr std::uint8_t kOpChallenge = 0x03;
constexpr std::uint8_t kOpRatchet = 0x04;
constexpr std::uint8_t kOpProverRng = 0x05;
constexpr std::string_view kProtocolId = "gopa/transcript/v1";

void le64(std::uint8_t* out, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
}  // namespace

Transcript::Transcript(std::string_view application_label) {
  crypto_init();
  crypto_generichash_blake2b_init(&state_, nullptr, 0, crypto_generichash_blake2b_BYTES_MAX);
  frame(kOpInit, kProtocolId, as_bytes(application_label));
}

Transcript::~Transcript() { sodium_memzero(&state_, sizeof state_); }

Transcript::Transcript(Transcript&& o) noexcept : state_(o.state_) {
  sodium_memzero(&o.state_, sizeof o.state_);
}

Transcript& Transcript::operator=(Transcript&& o) noexcept {
  if (this != &o) {
    state_ = o.state_;
    sodium_memzero(&o.state_, sizeof o.state_);
  }
  return *this;
}

Transcript Transcript::clone() const {
  Transcript t("");
  t.state_ = state_;
  return t;
}

void Transcript::frame_header(std::uint8_t op, std::string_view label, std::uint64_t data_len) {
  GOPA_CHECK(label.size() <= 255, "transcript labels are at most 255 bytes");
  std::uint8_t head[2] = {op, static_cast<std::uint8_t>(label.size())};
  crypto_generichash_blake2b_update(&state_, head, sizeof head);
  crypto_generichash_blake2b_update(&state_, reinterpret_cast<const unsigned char*>(label.data()),
                                    label.size());
  std::uint8_t len[8];
  le64(len, data_len);
  crypto_generichash_blake2b_update(&state_, len, sizeof len);
}

void Transcript::frame(std::uint8_t op, std::string_view label, std::span<const std::uint8_t> data) {
  frame_header(op, label, data.size());
  crypto_generichash_blake2b_update(&state_, data.data(), data.size());
}

void Transcript::domain_separator(std::string_view protocol) {
  frame(kOpDomain, "dom-sep", as_bytes(protocol));
}

void Transcript::append_message(std::string_view label, std::span<const std::uint8_t> data) {
  frame(kOpAppend, label, data);
}

void Transcript::append_message(std::string_view label, std::string_view data) {
  frame(kOpAppend, label, as_bytes(data));
}

void Transcript::append_u64(std::string_view label, std::uint64_t v) {
  std::uint8_t b[8];
  le64(b, v);
  frame(kOpAppend, label, b);
}

void Transcript::append_scalar(std::string_view label, const Scalar& s) {
  frame(kOpAppend, label, s.encode());
}

void Transcript::append_point(std::string_view label, const Point& p) {
  frame(kOpAppend, label, p.encode());
}

void Transcript::append_scalars(std::string_view label, std::span<const Scalar> s) {
  frame_header(kOpAppend, label, 8 + 32 * static_cast<std::uint64_t>(s.size()));
  std::uint8_t n[8];
  le64(n, s.size());
  crypto_generichash_blake2b_update(&state_, n, sizeof n);
  for (const Scalar& x : s) {
    const Bytes32 e = x.encode();
    crypto_generichash_blake2b_update(&state_, e.data(), e.size());
  }
}

void Transcript::append_points(std::string_view label, std::span<const Point> ps) {
  frame_header(kOpAppend, label, 8 + 32 * static_cast<std::uint64_t>(ps.size()));
  std::uint8_t n[8];
  le64(n, ps.size());
  crypto_generichash_blake2b_update(&state_, n, sizeof n);
  for (const Point& p : ps) {
    const Bytes32 e = p.encode();
    crypto_generichash_blake2b_update(&state_, e.data(), e.size());
  }
}

void Transcript::challenge_bytes(std::string_view label, std::span<std::uint8_t> out) {
  GOPA_CHECK(out.size() <= 65536, "challenge_bytes: at most 2^16 bytes per challenge");
  frame_header(kOpChallenge, label, out.size());
  // Output block i = BLAKE2b-512(state ‖ i) for i = 0, 1, … ; the state already holds the
  // challenge frame, so outputs of different labels or lengths are independent.
  std::size_t done = 0;
  for (std::uint64_t block = 0; done < out.size(); ++block) {
    crypto_generichash_blake2b_state fork = state_;
    std::uint8_t idx[8];
    le64(idx, block);
    crypto_generichash_blake2b_update(&fork, idx, sizeof idx);
    std::uint8_t h[64];
    crypto_generichash_blake2b_final(&fork, h, sizeof h);
    const std::size_t take = std::min<std::size_t>(64, out.size() - done);
    std::memcpy(out.data() + done, h, take);
    done += take;
    sodium_memzero(h, sizeof h);
  }
  // Ratchet: the challenge becomes part of the transcript.
  frame(kOpRatchet, label, out);
}

std::optional<Scalar> Transcript::challenge_from_wide(std::span<const std::uint8_t, 64> wide) {
  Scalar c = Scalar::reduce(wide);
  if (c.is_zero()) return std::nullopt;
  return c;
}

Scalar Transcript::challenge_scalar(std::string_view label) {
  for (;;) {
    std::array<std::uint8_t, 64> wide{};
    challenge_bytes(label, wide);
    if (auto c = challenge_from_wide(wide)) return *c;
    // Zero challenge: rejected; the ratchet changed the state, so the next try differs.
  }
}

Transcript::ProverRng Transcript::prover_rng(std::span<const SecretScalar* const> witness,
                                             Rng& external) const {
  crypto_generichash_blake2b_state st = state_;
  const std::uint8_t op = kOpProverRng;
  crypto_generichash_blake2b_update(&st, &op, 1);
  for (const SecretScalar* w : witness) {
    std::uint8_t e[32];
    decaf_255_scalar_encode(e, w->raw());
    crypto_generichash_blake2b_update(&st, e, sizeof e);
    sodium_memzero(e, sizeof e);
  }
  std::uint8_t fresh[32];
  external.fill(fresh);
  crypto_generichash_blake2b_update(&st, fresh, sizeof fresh);
  sodium_memzero(fresh, sizeof fresh);
  ProverRng rng;
  crypto_generichash_blake2b_final(&st, rng.key_.data(), rng.key_.size());
  sodium_memzero(&st, sizeof st);
  return rng;
}

Transcript::ProverRng::~ProverRng() { sodium_memzero(key_.data(), key_.size()); }

Transcript::ProverRng::ProverRng(ProverRng&& o) noexcept : key_(o.key_), counter_(o.counter_) {
  sodium_memzero(o.key_.data(), o.key_.size());
}

void Transcript::ProverRng::fill(std::span<std::uint8_t> out) {
  std::array<std::uint8_t, crypto_stream_chacha20_NONCEBYTES> nonce{};
  le64(nonce.data(), counter_++);
  crypto_stream_chacha20(out.data(), out.size(), nonce.data(), key_.data());
}

}  // namespace gopa
