// gopa/bulletin/http.hpp — the board's HTTP service and its verifying client.
//
//   BoardServer server(*board, {.host = "127.0.0.1", .port = 0});
//   int port = server.start().value();                 // serves until stop()
//   auto client = HttpBoard::connect({.url = server.url(), .vkey = board->vkey(),
//                                     .state_path = "party.checkpoint"}).value();
//   auto receipt = client->append(entry_bytes);       // verified: signature, inclusion, consistency
//
// Read API (C2SP tlog-tiles): GET /checkpoint, /tile/<L>/<N>[.p/<W>], /tile/entries/<N>[.p/<W>].
// Write API: POST /add (body: one encoded entry) → JSON {index, duplicate, proof[], checkpoint}.
// Convenience: GET /proof/inclusion?index=I&size=N, GET /proof/consistency?size1=M&size2=N,
// POST /cosign, GET /key, POST /blob, GET /blob/<hex>, GET /equivocations (docs/board.md §5).
// The server listens on the address it is given; tests use 127.0.0.1 with an ephemeral port.
// Both the server and the client set SIGPIPE to ignored for the process (a closed peer socket is
// then an ordinary write error).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gopa/bulletin/board.hpp"

namespace httplib {
class Server;
class Client;
}  // namespace httplib

namespace gopa::bulletin {

// Tile index path: 1234067 → "x001/x234/067" (C2SP tlog-tiles).
[[nodiscard]] std::string tile_index_path(std::uint64_t index);
// "<N>[.p/<W>]" → (index, width); width 256 for a full tile. Strict: only the canonical form.
[[nodiscard]] Result<std::pair<std::uint64_t, unsigned>> parse_tile_index_path(std::string_view path);
[[nodiscard]] std::string tile_path(unsigned level, std::uint64_t index, unsigned width);
[[nodiscard]] std::string entry_bundle_path(std::uint64_t index, unsigned width);
// Splits an entry bundle (uint16 big-endian length-prefixed entries).
[[nodiscard]] Result<std::vector<Bytes>> split_entry_bundle(std::span<const std::uint8_t> bundle);

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: ephemeral
  std::string tls_cert;  // PEM files; both empty: plain HTTP
  std::string tls_key;
  int threads = 96;      // connections served at once (keep-alive holds one thread each)
};

class BoardServer {
 public:
  BoardServer(LocalBoard& board, ServerOptions options);
  ~BoardServer();
  BoardServer(const BoardServer&) = delete;
  BoardServer& operator=(const BoardServer&) = delete;
  // Binds and starts serving on a background thread; returns the bound port.
  [[nodiscard]] Result<int> start();
  void stop();
  [[nodiscard]] std::string url() const;

 private:
  void routes();
  LocalBoard& board_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

struct HttpBoardOptions {
  std::string url;         // http://host:port or https://host:port
  std::string vkey;        // the log's verifier key (C2SP vkey); pins the checkpoint signer
  std::string state_path;  // last verified checkpoint, kept between runs ("" = memory only)
  std::string ca_cert;     // PEM bundle for https (empty: system store)
  int timeout_seconds = 30;
};

// Evidence that the log presented two views that cannot both be true: self-contained (both
// signed notes, the vkey, and a proof or the recomputed root) — docs/board.md §7.
struct ForkEvidence {
  std::string vkey;
  std::string reason;
  std::string checkpoint_a;
  std::string checkpoint_b;
  std::vector<Hash> proof;  // consistency proof offered by the log (may be empty)
  [[nodiscard]] std::string to_json() const;
};

class HttpBoard final : public Board {
 public:
  [[nodiscard]] static Result<std::unique_ptr<HttpBoard>> connect(HttpBoardOptions options);
  ~HttpBoard() override;

  Result<AppendReceipt> append(std::span<const std::uint8_t> entry) override;
  // Fetches, verifies and records the latest checkpoint (consistency with the stored one).
  Result<std::string> checkpoint() override;
  Result<std::vector<Bytes>> read(std::uint64_t begin, std::uint64_t end) override;
  Result<std::vector<Hash>> inclusion_proof(std::uint64_t index, std::uint64_t size) override;
  Result<std::vector<Hash>> consistency_proof(std::uint64_t size1, std::uint64_t size2) override;
  Status add_cosignature(std::uint64_t size, const std::string& vkey, const NoteSignature& sig) override;
  const NoteVerifier& verifier() const override { return verifier_; }

  // The last checkpoint verified by this client (empty before the first).
  [[nodiscard]] std::optional<std::string> trusted_checkpoint() const;
  [[nodiscard]] std::optional<ForkEvidence> fork_evidence() const;
  // Raw tlog-tiles fetches (not verified: callers check them against a checkpoint).
  [[nodiscard]] Result<Bytes> fetch(const std::string& path);
  // Verifies `note` and its consistency with the trusted checkpoint, then trusts it if larger.
  [[nodiscard]] Status observe(const std::string& note);

 private:
  explicit HttpBoard(HttpBoardOptions options, NoteVerifier verifier);
  Result<std::string> get_text(const std::string& path);

  HttpBoardOptions options_;
  NoteVerifier verifier_;
  std::unique_ptr<httplib::Client> client_;
  mutable std::mutex mu_;  // guards client_ use and the trusted state
  std::optional<std::string> trusted_note_;
  Checkpoint trusted_{};
  std::optional<ForkEvidence> fork_;
};

}  // namespace gopa::bulletin
