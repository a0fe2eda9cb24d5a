#include "gopa/sigma/range.hpp"

#include <sodium.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "gopa/check.hpp"
#include "wire.hpp"

namespace gopa::sigma {

namespace {
constexpr std::string_view kDomain = "gopa/sigma/range v2";

void bind_range(Transcript& t, unsigned bits, std::size_t d) {
  t.domain_separator(kDomain);
  t.append_u64("bits", bits);
  t.append_u64("d", d);
}
}  // namespace

bool range_bits_supported(unsigned bits) noexcept {
  return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

std::shared_ptr<const Circuit> range_circuit(unsigned bits, std::size_t d) {
  GOPA_CHECK(range_bits_supported(bits) && d >= 1 && d <= kMaxRangeValues,
             "range_circuit: unsupported parameters");
  static CircuitCache<std::pair<unsigned, std::size_t>> cache(kCircuitCacheCapacity);
  return cache.get({bits, d}, [bits, d] {
    CircuitBuilder b(CircuitBuilder::kVerifier);
    for (std::size_t j = 0; j < d; ++j) b.bind_commitment(b.bits(bits));
    return sealed(b.circuit());
  });
}

std::size_t range_generators(unsigned bits, std::size_t d) {
  return 2U * bits * d + 3U;
}

std::size_t RangeProof::encoded_size(unsigned bits, std::size_t d) {
  // Header, P, f(c), g(c), then the compressed proof for N = (2·bits·d + 3) + G + H.
  return 5U + 96U + CompressedProof::encoded_size(fold_shape(range_generators(bits, d) + 2U));
}

std::vector<std::uint8_t> RangeProof::encode() const {
  std::vector<std::uint8_t> out;
  wire::put_sized_header(out, ProofKind::kRange, bits, d);
  body.encode_body(out);
  return out;
}

std::optional<RangeProof> RangeProof::decode(std::span<const std::uint8_t> in) {
  const auto h = wire::read_sized_header(in, ProofKind::kRange);
  if (!h) return std::nullopt;
  const auto bits = h->bits;
  const auto d = h->d;
  if (!range_bits_supported(bits) || d == 0 || d > kMaxRangeValues) return std::nullopt;
  if (in.size() != encoded_size(bits, d)) return std::nullopt;
  // By shape alone: the circuit is built by the verifier, once (bits, d) matches its statement.
  auto body = CircuitProof::decode_body(in.subspan(5), Basis{range_generators(bits, d), true});
  if (!body) return std::nullopt;
  return RangeProof{bits, d, std::move(*body)};
}

std::optional<RangeProof> prove_range(Transcript& t, const GeneratorSet& gens, unsigned bits,
                                      std::span<const Point> commitments,
                                      std::span<const SecretScalar> values,
                                      std::span<const SecretScalar> blinders, Rng& rng) {
  const std::size_t d = values.size();
  if (!range_bits_supported(bits) || d == 0 || d > kMaxRangeValues ||
      commitments.size() != d || blinders.size() != d ||
      gens.size() < range_generators(bits, d))
    return std::nullopt;
  // Bit decomposition, constant time: bit i of the 32-byte encoding.
  std::vector<SecretScalar> w;
  w.reserve(bits * d);
  unsigned char high = 0;  // OR of the bytes above `bits`: non-zero iff out of range
  for (const SecretScalar& v : values) {
    std::uint8_t enc[32];
    decaf_255_scalar_encode(enc, v.raw());
    for (unsigned i = 0; i < bits; ++i)
      w.push_back(SecretScalar::from_u64((static_cast<unsigned>(enc[i / 8]) >> (i % 8)) & 1U));
    for (unsigned i = bits / 8; i < 32; ++i) high = static_cast<unsigned char>(high | enc[i]);
    sodium_memzero(enc, sizeof enc);
  }
  if (high != 0) return std::nullopt;  // reveals only that a value is out of range
  const auto circuit = range_circuit(bits, d);
  bind_range(t, bits, d);
  RangeProof proof{bits, d, prove_circuit(t, gens, *circuit, {}, commitments, w, blinders, rng)};
  return proof;
}

namespace {
VerifyResult check_params(const GeneratorSet& gens, const RangeStatement& st,
                          const RangeProof& proof) {
  if (!range_bits_supported(st.bits) || st.commitments.empty() ||
      st.commitments.size() > kMaxRangeValues)
    return VerifyResult::fail(VerifyStatus::kBadStatement,
                              "range statement: bits must be 8/16/32/64 and 1..1024 commitments");
  if (proof.bits != st.bits || proof.d != st.commitments.size())
    return VerifyResult::fail(VerifyStatus::kParameterMismatch,
                              "proof header (bits, d) differs from the statement");
  if (gens.size() < range_generators(st.bits, proof.d))
    return VerifyResult::fail(VerifyStatus::kBadStatement, "generator set too small");
  return VerifyResult::valid();
}
}  // namespace

VerifyResult verify_range(Transcript& t, const GeneratorSet& gens, const RangeStatement& st,
                          const RangeProof& proof) {
  VerifyResult r = check_params(gens, st, proof);
  if (!r) return r;
  bind_range(t, st.bits, proof.d);
  return verify_circuit(t, gens, *range_circuit(st.bits, proof.d), {}, st.commitments,
                        proof.body);
}

bool verify_range_naive(Transcript& t, const GeneratorSet& gens, const RangeStatement& st,
                        const RangeProof& proof) {
  if (!check_params(gens, st, proof)) return false;
  bind_range(t, st.bits, proof.d);
  return verify_circuit_naive(t, gens, *range_circuit(st.bits, proof.d), {}, st.commitments,
                              proof.body);
}

VerifyResult batch_verify_range(std::span<Transcript> transcripts, const GeneratorSet& gens,
                                std::span<const RangeStatement> statements,
                                std::span<const RangeProof> proofs, Rng& rng) {
  if (transcripts.size() != proofs.size() || statements.size() != proofs.size())
    return VerifyResult::fail(VerifyStatus::kBadStatement,
                              "one transcript and one statement per proof");
  MsmTerms eq;
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    VerifyResult r = check_params(gens, statements[i], proofs[i]);
    if (r) {
      eq.set_weight(Scalar::random_nonzero(rng));
      bind_range(transcripts[i], statements[i].bits, proofs[i].d);
      r = add_circuit_terms(transcripts[i], gens, *range_circuit(statements[i].bits, proofs[i].d),
                            {}, statements[i].commitments, proofs[i].body, eq);
    }
    if (!r) return of_proof(i, std::move(r));
  }
  return batch_verdict(eq, gens);
}

}  // namespace gopa::sigma
