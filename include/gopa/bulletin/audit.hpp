// gopa/bulletin/audit.hpp — log-level audit of a board (`gopa board check`).
//
//   AuditReport r = audit_board("http://127.0.0.1:8080", {.vkey = vkey, .state_path = "seen.ckpt"});
//   AuditReport r = audit_board("board.db", {});               // a database, opened read-only
//   std::cout << r.to_text();  return r.exit_code();
//
// Every check is reported PASS, FAIL or SKIP (never a silent pass): checkpoint signature, every
// entry canonical and signed, leaf hashes and tiles, the Merkle root re-derived from the entries,
// every stored checkpoint, equivocation evidence, cosignatures, and consistency with the
// checkpoint recorded by the previous audit. A fork yields self-contained evidence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gopa/bulletin/http.hpp"

namespace gopa::bulletin {

enum class CheckStatus { pass, fail, skip };
[[nodiscard]] const char* check_status_name(CheckStatus s) noexcept;

struct CheckResult {
  std::string name;
  CheckStatus status = CheckStatus::skip;
  std::string detail;
};

struct AuditOptions {
  std::string vkey;                    // pinned log key (C2SP vkey); empty: taken from the board (SKIP noted)
  std::string state_path;              // checkpoint seen by the previous audit; updated on success
  std::vector<std::string> cosigners;  // cosigner vkeys whose cosignatures must verify
  unsigned threads = 2;                // signature verification workers
};

struct AuditReport {
  std::string board;
  std::uint64_t size = 0;
  std::string checkpoint;
  std::vector<CheckResult> checks;
  std::optional<ForkEvidence> fork;
  std::vector<std::string> equivocating_senders;  // hex Ed25519 keys, named by valid evidence
  bool io_error = false;
  bool usage_error = false;
  double seconds = 0;

  // DESIGN.md §8: 0 verified, 1 a party misbehaved (equivocation), 2 the log misbehaved,
  // 3 usage error, 4 transient I/O error.
  [[nodiscard]] int exit_code() const;
  [[nodiscard]] std::string to_text() const;
  [[nodiscard]] std::string to_json() const;
};

[[nodiscard]] AuditReport audit_board(const std::string& location, const AuditOptions& options);

}  // namespace gopa::bulletin
