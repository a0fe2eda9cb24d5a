// Options shared by the commands that start a GOPA session (`gopa run`, `gopa coordinate`):
// the parties, the dimension, the input domain, the privacy target or hand-set noise, and the
// proven sampler; and the parameters planned from them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include <nlohmann/json.hpp>

#include "gopa/bulletin/board.hpp"
#include "gopa/protocol/blame.hpp"
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

// Shares of --delta (docs/privacy.md §9): P(honest subgraph disconnected) may use a tenth, the
// capture of a hidden-noise committee half; the accountant plans with the rest and certifies with
// δ minus the actual bounds (at least what it planned with).
inline constexpr double kGraphShare = 0.1;
inline constexpr double kCommitteeShare = 0.5;

// The smallest k in [1, n − 1] whose union bound on P(honest subgraph disconnected) is at most
// `budget`; 0 if none.
std::uint32_t smallest_connected_k(std::uint32_t n, std::uint32_t malicious, double budget);

struct SessionArgs {
  std::uint32_t parties = 0;
  std::uint32_t dim = 1;
  double input_max = 1.0;
  std::string input_domain = "box";  // box | l2-ball
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
  std::uint32_t min_round_ms = 0;  // 0: min(5000, round_timeout_ms)
  unsigned randomness_restarts = 3;
  std::uint64_t seed = 1;
  // gopa run --seed: the session nonce derives from `seed` (a reproducible simulation);
  // otherwise it comes from the operating system.
  bool nonce_from_seed = false;
  // Which of these were given on the command line (conflicting or partial options are refused).
  bool parties_set = false, epsilon_set = false, sigma_eta_set = false, sigma_delta_set = false, committee_set = false;
};

// Refuses (UsageError) options that conflict or are partial: --sigma-eta without --sigma-delta
// or the other way round, a σ that is not finite and > 0, --epsilon with hand-set σ's (they fix
// ε), --committee without --noise hidden.
void check_session_options(const SessionArgs& a);

// --parties (not required: the CSV or the roster may fix it), --dim, --input-domain, --input-max, --epsilon, --delta, --honest-fraction, --neighbors,
// --sigma-eta, --sigma-delta, --sampler, --sampler-precision, --noise, --committee.
void add_session_options(CLI::App* cmd, SessionArgs& a);

// The parameters of a new session and what they are certified to give.
struct PlannedSession {
  protocol::SessionParams params;
  protocol::Certificate certificate;  // certify_session of params at --honest-fraction and --delta
  std::string privacy;                // one sentence stating the guarantee (or that none is certified)
};

// Validated parameters (fresh nonce), planned for the whole input vector (L2 sensitivity M·√d
// for the box, 2C for the L2 ball; replace-one) so that δ = the accountant's δ + P(honest subgraph disconnected) + P(committee
// captured) meets --delta, and the certificate of what they give; throws UsageError naming the bad
// option, or saying why no parameters meet (ε, δ) (for example --neighbors too small).
[[nodiscard]] PlannedSession plan_session(const SessionArgs& a);

// The board's verifier key given as `option` (--board-key, --key, or GOPA_BOARD_KEY): the vkey
// itself, or @FILE to read it from FILE (surrounding whitespace dropped). Empty stays empty; a
// file that cannot be read or a value that is not a vkey is a UsageError.
[[nodiscard]] std::string resolve_vkey(const std::string& value, const std::string& option);

// A board given as a path (not an http[s]:// or postgres[ql]:// URL) must exist and be an SQLite
// database; otherwise a UsageError (the same refusal in `gopa audit` and `gopa board check`).
void check_board_path(const std::string& board);

// The sessions on `board` whose id (lower-case hex) starts with `prefix`; the board's error when
// it cannot be read.
[[nodiscard]] bulletin::Result<std::vector<Bytes32>> sessions_with_prefix(bulletin::Board& board, const std::string& prefix);

// The session on `board` whose id (hex) starts with `prefix`: UsageError naming `option` when no
// session or more than one does; the board's error when it cannot be read.
[[nodiscard]] bulletin::Result<Bytes32> session_by_prefix(bulletin::Board& board, const std::string& prefix,
                                                         const std::string& option);

// Whether any of these parties (index → why it was excluded or named) misbehaved: a party that
// dropped out before publishing anything (protocol::Offence::dropout) did not; a
// session where only such parties are missing and every check passes exits 0, not 1.
[[nodiscard]] bool anyone_misbehaved(const std::map<std::uint32_t, protocol::Blame>& parties);

// The input domain of --input-domain ("box" or "l2-ball"), or a UsageError.
[[nodiscard]] protocol::InputDomain parse_input_domain(const std::string& name);

// The largest --input-max of a domain at the sessions' 32 input bits and 16 fractional bits: the
// box's M below 2^16, the ball's C below 2^15 (2C must fit the 32-bit proof of x_j + C).
[[nodiscard]] double input_max_limit(protocol::InputDomain d);

// x rounded up to 4 significant digits, so a printed ε never understates the certified one; and
// x to 3 significant digits.
[[nodiscard]] std::string up4(double x);
[[nodiscard]] std::string g3(double x);

// The sentence stating what a certificate certifies (or why nothing is).
[[nodiscard]] std::string privacy_sentence(const protocol::Certificate& c);

// The session parameters in a --json report, under the same names in `run`, `audit` and
// `coordinate` (docs/cli-json.md).
void put_params(nlohmann::json& j, const protocol::SessionParams& p);

// The certificate's numbers for --json outputs.
[[nodiscard]] nlohmann::json certificate_json(const protocol::Certificate& c);

}  // namespace gopa::cli
