// Session parameters: canonical encoding, validation, session id. Layout: docs/protocol.md.
#include "gopa/protocol/session.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "gopa/bytes.hpp"
#include "gopa/check.hpp"
#include "gopa/sigma/ball.hpp"

namespace gopa::protocol {

namespace {

constexpr std::size_t kEncodedSize = 1 + 4 + 4 + 1 + 1 + 8 + 1 + 4 + 8 + 8 + 1 + 1 + 1 + 1 + 2 + 4 + 1 + 4 + 1 + 16;  // 72
static_assert(kEncodedSize == SessionParams::kEncodedBytes);
constexpr std::string_view kSessionIdDomain = "gopa/session/v1";

// ℓ/2 ≈ 2^251.x; we compare log2 magnitudes with one bit of slack: 2^251 < ℓ/2.
constexpr double kHalfEllLog2 = 251.0;

}  // namespace

const char* sampler_name(SamplerKind s) noexcept {
  switch (s) {
    case SamplerKind::box_muller: return "box-muller";
    case SamplerKind::polar: return "polar";
    case SamplerKind::inverse_cdf: return "inverse-cdf";
    case SamplerKind::clt: return "clt";
  }
  return "unknown";
}

std::optional<SamplerKind> sampler_from_name(std::string_view name) noexcept {
  for (auto s : {SamplerKind::box_muller, SamplerKind::polar, SamplerKind::inverse_cdf, SamplerKind::clt}) {
    if (name == sampler_name(s)) return s;
  }
  return std::nullopt;
}

SessionParams SessionParams::defaults(std::uint32_t parties, std::uint32_t dim) {
  SessionParams p;
  p.parties = parties;
  p.dim = dim;
  p.neighbors = parties > 1 ? std::min<std::uint32_t>(parties - 1, 20) : 0;
  p.sigma_eta = 1.0;
  p.sigma_delta = 100.0;
  return p;
}

bool SessionParams::sums_fit(std::uint32_t max_degree) const {
  // log2( n · (2^b + (max_degree + 1) · 2^noise) ) < log2(ℓ/2)
  const double per_party = std::ldexp(1.0, input_bits) +
                           (static_cast<double>(max_degree) + 1.0) * std::ldexp(1.0, noise_bits);
  const double total = static_cast<double>(parties) * per_party;
  return std::log2(total) < kHalfEllLog2;
}

std::optional<std::string> SessionParams::validate() const {
  if (parties < 2) return "parties: need at least 2 (got " + std::to_string(parties) + ")";
  if (parties > (1u << 24)) return "parties: at most 16,777,216 supported";
  // One board entry carries at most 65,355 payload bytes (bulletin::kMaxInlinePayload): the roster
  // is split over several entries, and longer messages over chunks.
  if (parties > kMaxParties) {
    return "parties: at most " + std::to_string(kMaxParties) + " in this protocol version; got " + std::to_string(parties);
  }
  // Messages longer than one board entry travel in chunks (docs/protocol.md § Chunked messages).
  if (dim < 1 || dim > kMaxDim) return "dim: must be in 1.." + std::to_string(kMaxDim) + " (got " + std::to_string(dim) + ")";
  if (input_bits != 8 && input_bits != 16 && input_bits != 32 && input_bits != 64) {
    return "input_bits: must be 8, 16, 32 or 64 (got " + std::to_string(input_bits) + ")";
  }
  if (frac_bits > 40) return "frac_bits: at most 40 (got " + std::to_string(frac_bits) + ")";
  if (input_max < 1 || (input_bits < 64 && input_max >= (std::uint64_t{1} << input_bits))) {
    return "input_max: M must be in 1..2^input_bits − 1 in fixed point (got " + std::to_string(input_max) + ")";
  }
  if (noise_bits < 8 || noise_bits > 62) return "noise_bits: must be in 8..62";
  if (neighbors < 1 || neighbors >= parties) {
    return "neighbors: k must be in 1..n−1 (got k=" + std::to_string(neighbors) +
           ", n=" + std::to_string(parties) + ")";
  }
  if (!std::isfinite(sigma_eta) || sigma_eta <= 0) return "sigma_eta: must be finite and > 0";
  if (!std::isfinite(sigma_delta) || sigma_delta <= 0) return "sigma_delta: must be finite and > 0";
  // Noise terms are clipped at 2^noise_bits: demand a generous margin over the standard deviation
  // (a Gaussian exceeds 40σ with probability < 10^-340).
  const double limit = std::ldexp(1.0, noise_bits - frac_bits);
  if (40.0 * sigma_eta >= limit || 40.0 * sigma_delta >= limit) {
    return "noise_bits: 2^(noise_bits−frac_bits) must exceed 40σ for both σ_η and σ_Δ";
  }
  if (sampler_precision < 8 || sampler_precision > 32) return "sampler_precision: must be in 8..32";
  if (sampler_precision > frac_bits) {
    return "sampler_precision: at most frac_bits (" + std::to_string(frac_bits) + "), got " +
           std::to_string(sampler_precision);
  }
  // The sampler circuit scales by σ on a 2^-16 grid and bounds σ (gopa/circuits/samplers.hpp).
  if (sigma_eta < 0x1p-16 || sigma_eta > 1e5) return "sigma_eta: must be in [2^-16, 10^5]";
  if (round_timeout_ms == 0) return "round_timeout_ms: must be positive";
  if (min_round_ms == 0 || min_round_ms > round_timeout_ms) {
    return "min_round_ms: must be in 1..round_timeout_ms (got " + std::to_string(min_round_ms) + ", timeout " +
           std::to_string(round_timeout_ms) + ")";
  }
  if (randomness_restarts > kMaxRandomnessRestarts) {
    return "randomness_restarts: at most " + std::to_string(kMaxRandomnessRestarts) + " (got " +
           std::to_string(randomness_restarts) + ")";
  }
  if (input_domain == InputDomain::l2_ball) {
    // The ball proof (docs/protocol.md § Input-domain proof): x_j + C ∈ [0, 2^b) holds for every
    // x_j ∈ [−C, C] only if 2C < 2^b, and the proof is one circuit over at most 1,024 coordinates.
    if (input_bits < 64 && input_max >= (std::uint64_t{1} << (input_bits - 1))) {
      return "input_max: the radius C must be below 2^(input_bits − 1) in fixed point for the L2 ball (got " +
             std::to_string(input_max) + " at input_bits " + std::to_string(input_bits) + ")";
    }
    if (input_bits == 64 && input_max >= (std::uint64_t{1} << 63)) {
      return "input_max: the radius C must be below 2^63 in fixed point for the L2 ball";
    }
    // More than kMaxBallDim coordinates: the blocked proof (docs/proofs.md §5.3).
    if (dim > sigma::kMaxBlockedBallDim) {
      return "dim: the L2 ball is proven for at most " + std::to_string(sigma::kMaxBlockedBallDim) + " coordinates (got " +
             std::to_string(dim) + ")";
    }
  } else if (input_domain != InputDomain::box) {
    return "input_domain: unknown input domain";
  }
  if (noise == NoiseMode::private_samples) {
    if (committee != 0 || paillier_bits != 0) return "committee: only hidden noise has a committee (set 0 and paillier_bits 0)";
  } else if (noise == NoiseMode::hidden) {
    if (committee < 2 || committee > 32 || committee > parties) {
      return "committee: must be in 2..min(32, n) (got " + std::to_string(committee) + ")";
    }
    if (sampler != SamplerKind::box_muller) return "sampler: hidden noise is computed by Box–Muller";
    if (sampler_precision > 24) return "sampler_precision: hidden samples have at most 24 fractional bits";
    if (paillier_bits < 674 || paillier_bits > 4096 || paillier_bits % 2 != 0) {
      return "paillier_bits: must be even and in 674..4096 (2048 or more for security)";
    }
  } else {
    return "noise: unknown noise mode";
  }
  if (chain_rounds < 1 || chain_rounds > kMaxChainRounds) {
    return "chain_rounds: must be in 1.." + std::to_string(kMaxChainRounds) + " (got " + std::to_string(chain_rounds) + ")";
  }
  if (chain_index >= chain_rounds) {
    return "chain_index: must be below chain_rounds = " + std::to_string(chain_rounds) + " (got " + std::to_string(chain_index) + ")";
  }
  const bool zero_base = std::all_of(chain_base.begin(), chain_base.end(), [](std::uint8_t b) { return b == 0; });
  if (linked() == zero_base) {
    return linked() ? "chain_base: a chain session after its base names the base's session id"
                    : "chain_base: the base of a chain (chain_index 0) and a session outside any chain name no base";
  }
  if (!sums_fit(2 * neighbors)) {
    return "bounds: n · (2^input_bits + (2k+1)·2^noise_bits) must stay below ℓ/2; lower input_bits or noise_bits";
  }
  return std::nullopt;
}

std::vector<std::uint8_t> SessionParams::encode() const {
  std::vector<std::uint8_t> out;
  out.reserve(encoded_size());
  ByteWriter<ByteOrder::big> w(out);
  w.u8(chained() ? kChainVersion : kVersion)
      .u32(parties)
      .u32(dim)
      .u8(frac_bits)
      .u8(input_bits)
      .u64(input_max)
      .u8(noise_bits)
      .u32(neighbors)
      .f64(sigma_eta)
      .f64(sigma_delta)
      .u8(static_cast<std::uint8_t>(sampler))
      .u8(sampler_precision)
      .u8(static_cast<std::uint8_t>(noise))
      .u8(committee)
      .u16(paillier_bits)
      .u32(round_timeout_ms)
      .u8(static_cast<std::uint8_t>(input_domain))
      .u32(min_round_ms)
      .u8(randomness_restarts)
      .bytes(nonce);
  if (chained()) w.u32(chain_rounds).u32(chain_index).bytes(chain_base);
  GOPA_CHECK(out.size() == encoded_size(), "session encoding size");
  return out;
}

std::optional<SessionParams> SessionParams::decode(std::span<const std::uint8_t> bytes,
                                                   std::string* why) {
  auto fail = [&](std::string m) -> std::optional<SessionParams> {
    if (why) *why = std::move(m);
    return std::nullopt;
  };
  if (bytes.empty() || (bytes[0] != kVersion && bytes[0] != kChainVersion)) {
    return fail("session parameters: unknown version");
  }
  const bool chain = bytes[0] == kChainVersion;
  const std::size_t want = chain ? kChainEncodedBytes : kEncodedBytes;
  if (bytes.size() != want) {
    return fail("session parameters: expected " + std::to_string(want) + " bytes, got " + std::to_string(bytes.size()));
  }
  ByteReader<ByteOrder::big> r(bytes);  // exactly the version's size: no read fails
  (void)r.u8("version");
  SessionParams p;
  p.parties = r.u32("parties");
  p.dim = r.u32("dim");
  p.frac_bits = r.u8("frac_bits");
  p.input_bits = r.u8("input_bits");
  p.input_max = r.u64("input_max");
  p.noise_bits = r.u8("noise_bits");
  p.neighbors = r.u32("neighbors");
  p.sigma_eta = r.f64("sigma_eta");
  p.sigma_delta = r.f64("sigma_delta");
  const std::uint8_t s = r.u8("sampler");
  if (s < 1 || s > 4) return fail("session parameters: unknown sampler " + std::to_string(s));
  p.sampler = static_cast<SamplerKind>(s);
  p.sampler_precision = r.u8("sampler precision");
  const std::uint8_t mode = r.u8("noise mode");
  if (mode < 1 || mode > 2) return fail("session parameters: unknown noise mode " + std::to_string(mode));
  p.noise = static_cast<NoiseMode>(mode);
  p.committee = r.u8("committee");
  p.paillier_bits = r.u16("paillier_bits");
  p.round_timeout_ms = r.u32("round_timeout_ms");
  const std::uint8_t domain = r.u8("input domain");
  if (domain < 1 || domain > 2) return fail("session parameters: unknown input domain " + std::to_string(domain));
  p.input_domain = static_cast<InputDomain>(domain);
  p.min_round_ms = r.u32("min_round_ms");
  p.randomness_restarts = r.u8("randomness restarts");
  p.nonce = r.array<sizeof p.nonce>("nonce");
  if (chain) {
    p.chain_rounds = r.u32("chain rounds");
    p.chain_index = r.u32("chain index");
    p.chain_base = r.array<sizeof p.chain_base>("chain base");
    if (p.chain_rounds < 2) return fail("session parameters: a version-6 encoding is for chains of at least 2 rounds");
  }
  if (!r.finish()) return fail("session parameters: " + r.error());
  if (auto bad = p.validate()) return fail("session parameters: " + *bad);
  // Canonical: −0.0 and NaN payloads are excluded by validate(); re-encoding must reproduce.
  if (p.encode() != std::vector<std::uint8_t>(bytes.begin(), bytes.end())) {
    return fail("session parameters: non-canonical encoding");
  }
  return p;
}

const char* input_domain_name(InputDomain d) noexcept {
  switch (d) {
    case InputDomain::box: return "box";
    case InputDomain::l2_ball: return "l2-ball";
  }
  return "unknown";
}

const char* noise_mode_name(NoiseMode m) noexcept {
  switch (m) {
    case NoiseMode::private_samples: return "private";
    case NoiseMode::hidden: return "hidden";
  }
  return "unknown";
}

Bytes32 SessionParams::session_id() const {
  const auto enc = encode();
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kSessionIdDomain.data()),
                            kSessionIdDomain.size());
  crypto_hash_sha256_update(&st, enc.data(), enc.size());
  Bytes32 id{};
  crypto_hash_sha256_final(&st, id.data());
  return id;
}

std::int64_t SessionParams::to_fixed(double v) const {
  const double scaled = std::ldexp(v, frac_bits);
  GOPA_CHECK(std::isfinite(scaled) && std::fabs(scaled) < std::ldexp(1.0, 62),
             "fixed-point value out of the 62-bit range");
  return static_cast<std::int64_t>(std::llround(scaled));
}

double SessionParams::from_fixed(std::int64_t v) const {
  return std::ldexp(static_cast<double>(v), -static_cast<int>(frac_bits));
}

std::optional<std::uint64_t> SessionParams::fixed_input_max(double m) const {
  const double scaled = std::floor(std::ldexp(m, frac_bits));
  const int limit = input_domain == InputDomain::l2_ball ? input_bits - 1 : std::min(input_bits, std::uint8_t{63});
  if (!std::isfinite(scaled) || scaled < 1 || scaled >= std::ldexp(1.0, limit)) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(scaled);
}

std::optional<std::uint64_t> SessionParams::fixed_input(double x) const {
  // Accepted: 0 ≤ x·2^f < M + 1, i.e. x ≤ M / 2^f up to less than one unit of the grid (an
  // upper end that is not on the grid, such as 0.1, was rounded down to M); the integer is then
  // clamped to M, so the proven domain is never left.
  const double scaled = std::ldexp(x, frac_bits);
  if (!(scaled >= 0) || !(scaled < static_cast<double>(input_max) + 1.0)) return std::nullopt;
  const double r = std::nearbyint(scaled);
  if (r >= static_cast<double>(input_max)) return input_max;
  return static_cast<std::uint64_t>(r);
}

bool SessionParams::in_ball(std::span<const std::int64_t> v) const {
  // Every |v_j| ≤ C < 2^63 first, so each square is below 2^126 and the running sum, stopped as
  // soon as it exceeds C², below 2^127.
  const int128_t c = static_cast<int128_t>(input_max);
  const int128_t c2 = c * c;
  int128_t sum = 0;
  for (const std::int64_t x : v) {
    const int128_t a = x < 0 ? -static_cast<int128_t>(x) : static_cast<int128_t>(x);
    if (a > c) return false;
    sum += a * a;
    if (sum > c2) return false;
  }
  return true;
}

std::optional<std::vector<std::int64_t>> SessionParams::fixed_ball_input(std::span<const double> x) const {
  if (x.size() != dim) return std::nullopt;
  const long double c = static_cast<long double>(input_max);
  long double norm2 = 0;
  for (const double v : x) {
    if (!std::isfinite(v)) return std::nullopt;
    const long double s = std::ldexp(static_cast<long double>(v), frac_bits);
    norm2 += s * s;
  }
  const long double norm = std::sqrt(norm2);
  if (!(norm < c + 1)) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const double v : x) {
    // |x_j·2^f| < C + 1 ≤ 2^63; clamped to ±C so that the conversion is defined (a coordinate
    // beyond C leaves the ball and takes the branch below).
    const long double r = std::nearbyint(std::ldexp(static_cast<long double>(v), frac_bits));
    out.push_back(static_cast<std::int64_t>(std::clamp(r, -c, c)));
  }
  if (in_ball(out)) return out;
  // Within one grid unit of the ball but outside it once rounded: scale onto radius C, round
  // towards zero, and take units off the largest coordinate until the integers are inside
  // (a few steps: the scaled vector is within rounding error of the ball).
  const long double scale = norm > c ? c / norm : 1.0L;
  for (std::size_t j = 0; j < x.size(); ++j) {
    out[j] = static_cast<std::int64_t>(std::trunc(std::ldexp(static_cast<long double>(x[j]), frac_bits) * scale));
  }
  while (!in_ball(out)) {
    std::size_t big = 0;
    for (std::size_t j = 1; j < out.size(); ++j) {
      if ((out[j] < 0 ? -out[j] : out[j]) > (out[big] < 0 ? -out[big] : out[big])) big = j;
    }
    out[big] += out[big] < 0 ? 1 : -1;
  }
  return out;
}

double SessionParams::input_sensitivity() const {
  if (input_domain == InputDomain::l2_ball) return 2.0 * input_max_real();
  return input_max_real() * std::sqrt(static_cast<double>(dim));
}

double SessionParams::coordinate_sensitivity() const {
  return input_domain == InputDomain::l2_ball ? 2.0 * input_max_real() : input_max_real();
}

Scalar scalar_from_signed(std::int64_t v) noexcept { return Scalar::from_i64(v); }

std::optional<int128_t> signed_from_scalar(const Scalar& s) noexcept {
  // Non-negative if the encoding fits in 127 bits; negative if ℓ − s does.
  auto fits = [](const Bytes32& e) {
    for (std::size_t i = 16; i < 32; ++i) {
      if (e[i] != 0) return false;
    }
    return (e[15] & 0x80) == 0;
  };
  auto to_int = [](const Bytes32& e) {
    int128_t v = 0;
    for (int i = 15; i >= 0; --i) v = (v << 8) | e[static_cast<std::size_t>(i)];
    return v;
  };
  const Bytes32 pos = s.encode();
  if (fits(pos)) return to_int(pos);
  const Bytes32 neg = (-s).encode();
  if (fits(neg)) return -to_int(neg);
  return std::nullopt;
}

}  // namespace gopa::protocol
