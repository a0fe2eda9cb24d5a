// Options shared by the commands that start a GOPA session (`gopa run`, `gopa coordinate`):
// the parties, the dimension, the input domain, the privacy target or hand-set noise, and the
// proven sampler; and the parameters planned from them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include <nlohmann/json.hpp>

#include "gopa/protocol/requirements.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::cli {

// Bad command-line input: reported as "gopa CMD: message", exit code 3, nothing written.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class F>
int guarded(const char* cmd, F&& f) {
  try {
    return f();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "gopa %s: %s\n", cmd, e.what());
    return kExitUsage;
  }
}

struct SessionArgs {
  std::uint32_t parties = 0;
  std::uint32_t dim = 1;
  double input_max = 1.0;
  double epsilon = 1.0;
  double delta = 1e-5;
  double honest_fraction = 0.5;
  std::uint32_t neighbors = 0;
  double sigma_eta = 0;
  double sigma_delta = 0;
  std::string sampler = "box-muller";
  unsigned sampler_precision = 16;
  std::string noise = "private";  // private | hidden
  unsigned committee = 0;  // 0: the smallest committee whose capture fits δ (plan_session)
  std::uint32_t round_timeout_ms = 60'000;
  std::uint64_t seed = 1;
};

// --parties, --dim, --input-max, --epsilon, --delta, --honest-fraction, --neighbors,
// --sigma-eta, --sigma-delta, --sampler, --sampler-precision, --noise, --committee.
void add_session_options(CLI::App* cmd, SessionArgs& a);

// The parameters of a new session and what they are certified to give.
struct PlannedSession {
  protocol::SessionParams params;
  protocol::Certificate certificate;  // certify_session of params at --honest-fraction and --delta
  std::string privacy;                // one sentence stating the guarantee (or that none is certified)
};

// Validated parameters (fresh nonce), planned for the whole input vector (L2 sensitivity M·√d,
// replace-one) so that δ = the accountant's δ + P(honest subgraph disconnected) + P(committee
// captured) meets --delta, and the certificate of what they give; throws UsageError naming the bad
// option, or saying why no parameters meet (ε, δ) (for example --neighbors too small).
[[nodiscard]] PlannedSession plan_session(const SessionArgs& a);

// The sentence stating what a certificate certifies (or why nothing is).
[[nodiscard]] std::string privacy_sentence(const protocol::Certificate& c);

// The certificate's numbers for --json outputs.
[[nodiscard]] nlohmann::json certificate_json(const protocol::Certificate& c);

}  // namespace gopa::cli
