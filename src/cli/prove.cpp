// `gopa prove range` and `gopa verify`: standalone proofs on files (docs/proofs.md §6).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/sigma/range.hpp"
#include "sigma_commands.hpp"

namespace gopa::cli {

namespace {

constexpr const char* kFormat = "gopa-proof";
constexpr const char* kDefaultLabel = "gopa/cli v1";
constexpr std::size_t kMaxFileBytes = 16U << 20;

struct ProveRangeOptions {
  unsigned bits = 64;
  std::string values;
  std::string out;
  std::string generators = "gopa";
  std::string label = kDefaultLabel;
};

// Strict decimal: digits only, no sign, no leading zeros, fits in 64 bits.
bool parse_u64(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    const auto digit = static_cast<std::uint64_t>(ch - '0');
    if (v > (~std::uint64_t{0} - digit) / 10) return false;
    v = v * 10 + digit;
  }
  return true;
}

bool valid_name(const std::string& s, std::size_t max) {
  if (s.empty() || s.size() > max) return false;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '/' || ch == '-' || ch == '_' || ch == '.' || ch == ' ';
    if (!ok) return false;
  }
  return true;
}

// Writes `path` through a temporary file and a hard link: no half-written file is left behind,
// and an existing file is never replaced (false if `path` exists).
bool write_new_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot create " + tmp);
    f << content;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp);
    }
  }
  const int linked = ::link(tmp.c_str(), path.c_str());
  const int err = errno;
  std::remove(tmp.c_str());
  if (linked != 0 && err == EEXIST) return false;
  if (linked != 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(err));
  return true;
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "gopa: error: %s\n", msg.c_str());
  return kExitUsage;
}

int run_prove_range(const ProveRangeOptions& o) {
  std::error_code ec;
  if (std::filesystem::exists(o.out, ec) || std::filesystem::is_symlink(o.out, ec))
    return usage_error("--out: '" + o.out + "' already exists; not overwritten");
  if (!sigma::range_bits_supported(o.bits))
    return usage_error("--bits must be 8, 16, 32 or 64 (got " + std::to_string(o.bits) + ")");
  if (!valid_name(o.generators, 64)) return usage_error("--generators: invalid name");
  if (!valid_name(o.label, 128)) return usage_error("--label: invalid label");
  std::vector<std::uint64_t> vals;
  std::stringstream ss(o.values);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::uint64_t v = 0;
    if (!parse_u64(item, v))
      return usage_error("--values: '" + item + "' is not a non-negative decimal integer < 2^64");
    if (o.bits < 64 && v >= (std::uint64_t{1} << o.bits))
      return usage_error("--values: " + item + " is out of range [0, 2^" + std::to_string(o.bits) +
                         "); no proof written");
    vals.push_back(v);
  }
  if (vals.empty() || o.values.back() == ',') return usage_error("--values: give v1,v2,…");
  if (vals.size() > sigma::kMaxRangeValues)
    return usage_error("--values: at most " + std::to_string(sigma::kMaxRangeValues) + " values");

  SystemRng rng;
  auto gens = GeneratorSet::get(o.generators, sigma::range_generators(o.bits, vals.size()));
  std::vector<SecretScalar> values, blinders;
  std::vector<Point> commitments;
  for (std::uint64_t v : vals) {
    values.push_back(SecretScalar::from_u64(v));
    blinders.push_back(SecretScalar::random(rng));
    commitments.push_back(commit(values.back(), blinders.back(), *gens));
  }
  Transcript t(o.label);
  auto proof = sigma::prove_range(t, *gens, o.bits, commitments, values, blinders, rng);
  if (!proof) return usage_error("a value is out of range; no proof written");
  const auto bytes = proof->encode();
  nlohmann::json j{{"format", kFormat},          {"version", 1},
                   {"type", "range"},            {"generators", o.generators},
                   {"label", o.label},           {"bits", o.bits},
                   {"commitments", nlohmann::json::array()}, {"proof", to_hex(bytes)}};
  for (const Point& c : commitments) j["commitments"].push_back(c.to_hex());
  if (!write_new_atomically(o.out, j.dump(2) + "\n"))
    return usage_error("--out: '" + o.out + "' already exists; not overwritten");
  std::printf("wrote %s: range proof that %zu committed value%s lie in [0, 2^%u), %zu bytes\n",
              o.out.c_str(), vals.size(), vals.size() == 1 ? "" : "s", o.bits, bytes.size());
  return kExitOk;
}

int malformed(const std::string& path, const std::string& why) {
  std::fprintf(stderr, "gopa: %s: malformed proof file: %s\n", path.c_str(), why.c_str());
  return kExitUsage;
}

int run_verify(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return malformed(path, "cannot open");
  std::string text;
  char buf[65536];
  for (;;) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f);
    text.append(buf, got);
    if (got < sizeof buf || text.size() > kMaxFileBytes) break;
  }
  const bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (read_error) return malformed(path, "read error");
  if (text.size() > kMaxFileBytes) return malformed(path, "larger than 16 MiB");
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return malformed(path, "not a JSON object");
  auto str = [&](const char* k) -> const std::string* {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
  };
  if (const auto* fmt = str("format"); fmt == nullptr || *fmt != kFormat)
    return malformed(path, "\"format\" must be \"gopa-proof\"");
  if (!j.contains("version") || !j["version"].is_number_unsigned() || j["version"] != 1)
    return malformed(path, "unsupported \"version\" (this gopa reads version 1)");
  if (const auto* ty = str("type"); ty == nullptr || *ty != "range")
    return malformed(path, "\"type\" must be \"range\"");
  const auto* gname = str("generators");
  const auto* label = str("label");
  if (gname == nullptr || !valid_name(*gname, 64)) return malformed(path, "bad \"generators\"");
  if (label == nullptr || !valid_name(*label, 128)) return malformed(path, "bad \"label\"");
  if (!j.contains("bits") || !j["bits"].is_number_unsigned() ||
      !sigma::range_bits_supported(j["bits"].get<unsigned>()))
    return malformed(path, "\"bits\" must be 8, 16, 32 or 64");
  sigma::RangeStatement st;
  st.bits = j["bits"].get<unsigned>();
  if (!j.contains("commitments") || !j["commitments"].is_array() || j["commitments"].empty() ||
      j["commitments"].size() > sigma::kMaxRangeValues)
    return malformed(path, "\"commitments\" must be an array of 1..1024 points");
  for (const auto& c : j["commitments"]) {
    if (!c.is_string()) return malformed(path, "a commitment is not a hex string");
    auto b = from_hex(c.get<std::string>());
    if (!b || b->size() != 32) return malformed(path, "a commitment is not 32 bytes of hex");
    auto p = Point::decode(*b);
    if (!p) return malformed(path, "a commitment is not a canonical ristretto255 point");
    st.commitments.push_back(*p);
  }
  const auto* proof_hex = str("proof");
  if (proof_hex == nullptr) return malformed(path, "\"proof\" missing");
  auto bytes = from_hex(*proof_hex);
  if (!bytes) return malformed(path, "\"proof\" is not hex");

  auto proof = sigma::RangeProof::decode(*bytes);
  if (!proof) {
    std::printf("invalid: proof decoding failed (malformed-proof): wrong version, kind, "
                "parameters, length or a non-canonical element\n");
    return kExitMisbehaved;
  }
  auto gens = GeneratorSet::get(*gname, sigma::range_generators(st.bits, proof->d));
  Transcript t(*label);
  const sigma::VerifyResult r = sigma::verify_range(t, *gens, st, *proof);
  if (!r) {
    std::printf("invalid: %s (%s)\n", r.message.c_str(), sigma::status_name(r.status));
    return kExitMisbehaved;
  }
  std::printf("valid: range proof, %zu value%s in [0, 2^%u)\n", st.commitments.size(),
              st.commitments.size() == 1 ? "" : "s", st.bits);
  return kExitOk;
}

}  // namespace

void add_prove_commands(CLI::App& app, Context& ctx) {
  CLI::App* prove = app.add_subcommand("prove", "Produce standalone proofs on files");
  prove->require_subcommand(1);
  auto opts = std::make_shared<ProveRangeOptions>();
  CLI::App* range = prove->add_subcommand(
      "range", "Commit to values and prove they lie in [0, 2^bits) (one compressed proof)");
  range->add_option("--bits", opts->bits, "Bit width: 8, 16, 32 or 64")->required();
  range->add_option("--values", opts->values, "Comma-separated values v1,v2,…")->required();
  range->add_option("--out", opts->out, "Output JSON file to create (written atomically; an existing file is not overwritten)")->required();
  range->add_option("--generators", opts->generators, "Generator set name")
      ->capture_default_str();
  range->add_option("--label", opts->label, "Transcript application label")
      ->capture_default_str();
  range->callback([&ctx, opts] { ctx.run = [opts] { return run_prove_range(*opts); }; });

  auto path = std::make_shared<std::string>();
  CLI::App* verify = app.add_subcommand(
      "verify", "Verify a proof file: exit 0 valid, 1 invalid (failed check named), 3 malformed");
  verify->add_option("FILE", *path, "Proof file written by `gopa prove`")->required();
  verify->callback([&ctx, path] { ctx.run = [path] { return run_verify(*path); }; });
}

}  // namespace gopa::cli
