// `gopa bench hidden`: cost of hidden Box–Muller calls (two samples each) computed by a committee
// on committed shares (include/gopa/sampling.hpp, docs/sampling.md §5): the key round (once per
// committee), then bytes of public messages and total committee time per call, for several
// committee sizes and precisions, and the time one auditor takes to re-check the public log
// (verify_hidden_log).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "report.hpp"
#include "gopa/sampling.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sampling/enc_proofs.hpp"
#include "gopa/sampling/key_proofs.hpp"

namespace gopa::cli {
namespace {

struct HiddenOptions {
  std::vector<std::size_t> members = {3, 5, 10};
  std::vector<unsigned> precisions = {12, 16};
  unsigned paillier_bits = 2048;
  std::uint64_t seed = 1;
  bool json = false;
  bool quick = false;
  bool key_proofs = false;
  unsigned repeat = 5;
};

template <class T>
std::vector<T> parse_list(const std::string& s) {
  std::vector<T> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(static_cast<T>(std::stoul(item)));
  return out;
}

// CPU time of the calling thread (the auditor's verification runs in this thread).
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// One committee makes two calls: the first opens with the key round (Π_mod, Π_prm, Π_fac), the
// second uses the proven keys, as every later call of a session does. The row reports the key
// round on its own and the second call per sample.
int run_hidden(const HiddenOptions& o) {
  nlohmann::json rows = nlohmann::json::array();
  if (!o.json)
    std::printf("%4s %3s %3s %4s %8s %6s %7s %9s %10s %11s %9s %9s %9s %10s %9s %9s %9s\n", "c",
                "f", "F", "deg", "triples", "bits", "truncs", "keys s", "keys bytes", "bytes/smp",
                "pre s", "online s", "s/sample", "1st s/smp", "messages", "audit s", "audit 1st");
  for (unsigned f : o.precisions)
    for (std::size_t c : o.members) {
      sampling::HiddenParams p = sampling::HiddenParams::make(f, c);
      p.paillier_bits = o.paillier_bits;
      DeterministicRng rng(o.seed);
      std::vector<std::size_t> members;
      for (std::size_t i = 0; i < c; ++i) members.push_back(i);
      sampling::HiddenCommittee committee(p, members, rng);
      sampling::Attempt calls[2];
      for (auto& a : calls) {
        a = committee.attempt(members, {}, rng);
        if (!a.output) {
          std::fprintf(stderr, "gopa bench hidden: c=%zu f=%u did not complete (%s)\n", c, f,
                       a.blame ? a.blame->why.c_str() : a.error.c_str());
          return kExitMisbehaved;
        }
      }
      // One auditor re-checks both calls from their public logs alone, the second with the
      // keys the first proved.
      double audit[2] = {0, 0};
      std::optional<sampling::HiddenKeySet> keys;
      for (int i = 0; i < 2; ++i) {
        const double t0 = thread_seconds();
        sampling::HiddenVerdict v =
            sampling::verify_hidden_log(p, members, calls[i].log, keys ? &*keys : nullptr);
        audit[i] = thread_seconds() - t0;
        const auto& out = calls[i].output->samples;
        if (!v.ok || v.commitments.size() != 2 || v.commitments[0] != out[0].commitments ||
            v.commitments[1] != out[1].commitments || (i == 0 && !v.keys)) {
          std::fprintf(stderr, "gopa bench hidden: c=%zu f=%u: call %d's log does not verify (%s)\n",
                       c, f, i + 1, v.blame ? v.blame->why.c_str() : v.error.c_str());
          return kExitMisbehaved;
        }
        if (i == 0) keys = std::move(v.keys);
      }
      const sampling::Cost& first = calls[0].output->cost;
      const sampling::Cost& k = calls[1].output->cost;
      const double total = k.seconds_preprocessing + k.seconds_online;
      const double total_first = first.seconds_preprocessing + first.seconds_online;
      std::size_t largest = 0;
      for (const auto& a : calls)
        for (const auto& m : a.log) largest = std::max(largest, m.payload.size());
      nlohmann::json row = {{"committee", c},
                            {"f", f},
                            {"F", p.F},
                            {"seed_bits", p.m},
                            {"radius_degree", p.degree},
                            {"paillier_bits", p.paillier_bits},
                            {"triples", k.triples},
                            {"triples_generated", k.triples_generated},
                            {"random_bits", k.random_bits},
                            {"truncations", k.truncations},
                            {"openings", k.openings},
                            {"key_round_seconds", first.seconds_keys},
                            {"key_round_bytes", first.bytes_keys},
                            {"bytes", k.bytes},
                            {"bytes_preprocessing", k.bytes_preprocessing},
                            {"bytes_per_sample", k.bytes / 2},
                            {"seconds_preprocessing", k.seconds_preprocessing},
                            {"seconds_online", k.seconds_online},
                            {"seconds_verify_one", k.seconds_verify},
                            {"seconds_per_sample", total / 2},
                            {"seconds_per_call", total},
                            {"first_call_seconds_per_sample", total_first / 2},
                            {"first_call_bytes", first.bytes},
                            {"log_messages", calls[1].log.size()},
                            {"first_call_log_messages", calls[0].log.size()},
                            {"log_bytes", k.bytes},
                            {"log_largest_payload", largest},
                            {"seconds_audit", audit[1]},
                            {"seconds_audit_first_call", audit[0]}};
      rows.push_back(row);
      if (!o.json) {
        std::printf("%4zu %3u %3u %4u %8zu %6zu %7zu %9.2f %10zu %11zu %9.2f %9.2f %9.2f %10.2f"
                    " %9zu %9.2f %9.2f\n",
                    c, f, p.F, p.degree, k.triples, k.random_bits, k.truncations, first.seconds_keys,
                    first.bytes_keys, k.bytes / 2, k.seconds_preprocessing, k.seconds_online,
                    total / 2, total_first / 2, calls[1].log.size(), audit[1], audit[0]);
        std::fflush(stdout);
      }
    }
  const char* note =
      "one call = two samples; one committee makes two calls: the first opens with the key round "
      "(keys s, keys bytes: once per committee), the rest of the row is the second call, which uses "
      "the proven keys as every later call does (1st s/smp: the first call, key round included); "
      "time = total committee time (work + every check by each member that makes it: c times, "
      "c - 1 for a member's own key and ciphertext proofs); audit = one auditor re-checking a call's "
      "public log";
  if (o.json) {
    nlohmann::json j = json_report("bench-hidden");
    j["sampler"] = "box-muller";
    j["note"] = note;
    j["rows"] = rows;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%s; Paillier %u bits\n", note, o.paillier_bits);
  }
  return kExitOk;
}

// The Paillier key proofs of one member (sampling/key_proofs.hpp) and one ciphertext proof
// against another member's ring-Pedersen parameters (sampling/enc_proofs.hpp): prover and
// verifier CPU time (medians of `repeat` fresh keys and transcripts; key generation and the
// encryption itself excluded) and encoded bytes.
int run_key_proofs(const HiddenOptions& o) {
  using namespace sampling;
  const unsigned bits = o.paillier_bits;
  const std::size_t nb = (bits + 7) / 8;
  DeterministicRng rng(o.seed);
  enum { kModP, kModV, kPrmP, kPrmV, kFacP, kFacV, kEncP, kEncV, kCount };
  const auto gens = GeneratorSet::get("gopa", 1);
  std::vector<std::vector<double>> t(kCount);
  for (unsigned r = 0; r < o.repeat; ++r) {
    const PaillierKey key = PaillierKey::generate(bits, rng);
    const PaillierKey other = PaillierKey::generate(bits, rng);
    const RingPedersenSecret vrp = RingPedersenSecret::generate(other, rng);
    const auto timed = [&](int slot, auto&& fn) {
      const double t0 = thread_seconds();
      auto out = fn();
      t[static_cast<std::size_t>(slot)].push_back(thread_seconds() - t0);
      return out;
    };
    Transcript a("gopa/bench"), b("gopa/bench");
    const ModProof pm = timed(kModP, [&] { return prove_mod(a, key, rng); });
    if (timed(kModV, [&] { return verify_mod(b, key.pub().n(), key.pub().h(), pm); }) != KeyCheck::kOk)
      return kExitMisbehaved;
    Transcript c("gopa/bench"), d("gopa/bench");
    // Π_prm's prover time includes drawing the parameters (t = τ², s = t^λ).
    const auto prm = timed(kPrmP, [&] {
      RingPedersenSecret s = RingPedersenSecret::generate(key, rng);
      PrmProof p = prove_prm(c, s, rng);
      return std::make_pair(std::move(s), std::move(p));
    });
    if (timed(kPrmV, [&] { return verify_prm(d, prm.first.pub(), prm.second); }) != KeyCheck::kOk)
      return kExitMisbehaved;
    Transcript e("gopa/bench"), g("gopa/bench");
    const FacProof pf = timed(kFacP, [&] { return prove_fac(e, key, vrp.pub(), rng); });
    if (timed(kFacV, [&] { return verify_fac(g, key.pub().n(), vrp.pub(), pf); }) != KeyCheck::kOk)
      return kExitMisbehaved;
    // Π_enc of a 253-bit plaintext in the last packed slot (shift 672·(K − 1), docs/sampling.md §2).
    const SecretScalar x = SecretScalar::random(rng), xr = SecretScalar::random(rng);
    const BigInt xb = BigInt::from_secret(x);
    const BigInt alpha = BigInt::random_bits(PaillierKey::kAlphaBits, rng);
    const unsigned shift = 672U * ((bits - 2U) / 672U - 1U);
    BigInt xs;
    mpz_mul_2exp(xs.get(), xb.get(), shift);
    const RpEncStatement st{&key.pub(), key.pub().encrypt(xs, alpha), commit(x, xr, *gens), shift,
                            &vrp.pub(), 0, 1};
    Transcript h("gopa/bench"), k("gopa/bench");
    const RpEncProof pe = timed(kEncP, [&] { return prove_enc_rp(h, st, xb, alpha, xr, *gens, rng); });
    if (timed(kEncV, [&] { return verify_enc_rp(k, st, pe, *gens, nullptr, rng); }) != RpEncCheck::kOk)
      return kExitMisbehaved;
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const std::size_t bytes[4] = {ModProof::encoded_bytes(nb), 2 * nb + PrmProof::encoded_bytes(nb),
                                FacProof::encoded_bytes(bits, bits),
                                RpEncProof::encoded_bytes(bits, bits)};
  const char* names[4] = {"mod", "prm", "fac", "enc"};
  nlohmann::json rows = nlohmann::json::array();
  if (!o.json)
    std::printf("%-5s %10s %10s %9s\n", "proof", "prove ms", "verify ms", "bytes");
  for (int i = 0; i < 4; ++i) {
    const double pv = 1e3 * median(t[static_cast<std::size_t>(2 * i)]);
    const double vv = 1e3 * median(t[static_cast<std::size_t>(2 * i + 1)]);
    rows.push_back({{"proof", names[i]}, {"prove_ms", pv}, {"verify_ms", vv}, {"bytes", bytes[i]}});
    if (!o.json) std::printf("%-5s %10.1f %10.1f %9zu\n", names[i], pv, vv, bytes[i]);
  }
  if (o.json) {
    nlohmann::json j = json_report("bench-key-proofs");
    j["paillier_bits"] = bits;
    j["repeat"] = o.repeat;
    j["rows"] = rows;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("medians of %u keys, Paillier %u bits; prm includes drawing s, t and its bytes "
                "s ‖ t; a member publishes mod + prm once and one fac per other member; enc = one "
                "ciphertext proof against another member's ring-Pedersen parameters\n",
                o.repeat, bits);
  }
  return kExitOk;
}

}  // namespace

void add_bench_hidden_command(CLI::App& bench, Context& ctx) {
  auto o = std::make_shared<HiddenOptions>();
  auto members = std::make_shared<std::string>("3,5,10");
  auto prec = std::make_shared<std::string>("12,16");
  CLI::App* h = bench.add_subcommand(
      "hidden", "Hidden Box–Muller samples by a committee: bytes and time per sample");
  h->add_option("--committee,-c,--members", *members, "Committee sizes, comma-separated (--members: its older name)")->capture_default_str();
  h->add_option("--precisions", *prec, "Output fractional bits, comma-separated")->capture_default_str();
  h->add_option("--paillier-bits", o->paillier_bits,
                "Paillier modulus bits (even, 674–4096; < 2048 is insecure)")
      ->capture_default_str();
  h->add_option("--seed", o->seed, "Seed of the members' randomness (ChaCha20)")->capture_default_str();
  h->add_flag("--quick", o->quick, "c = 3 and f = 12 only");
  h->add_flag("--json", o->json, "JSON output");
  h->add_flag("--key-proofs", o->key_proofs,
              "Only the Paillier key proofs of one member (Π_mod, Π_prm, Π_fac) and one ciphertext "
              "proof against another member's ring-Pedersen parameters (Π_enc): time and bytes");
  h->add_option("--repeat", o->repeat, "Keys measured with --key-proofs (median)")
      ->check(CLI::Range(1U, 100U))
      ->capture_default_str();
  h->callback([o, members, prec, &ctx] {
    o->members = o->quick ? std::vector<std::size_t>{3} : parse_list<std::size_t>(*members);
    o->precisions = o->quick ? std::vector<unsigned>{12} : parse_list<unsigned>(*prec);
    ctx.run = [o] {
      for (std::size_t c : o->members)
        if (c < 2 || c > 32) {
          std::fprintf(stderr, "gopa bench hidden: committee size must be in [2, 32]\n");
          return static_cast<int>(kExitUsage);
        }
      for (unsigned f : o->precisions)
        if (f < 8 || f > 24) {
          std::fprintf(stderr, "gopa bench hidden: precision must be in [8, 24]\n");
          return static_cast<int>(kExitUsage);
        }
      if (o->paillier_bits < 674 || o->paillier_bits > 4096 || o->paillier_bits % 2 != 0) {
        std::fprintf(stderr, "gopa bench hidden: --paillier-bits must be even, in [674, 4096]\n");
        return static_cast<int>(kExitUsage);
      }
      return o->key_proofs ? run_key_proofs(*o) : run_hidden(*o);
    };
  });
}

}  // namespace gopa::cli
