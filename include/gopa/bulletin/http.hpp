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

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gopa/bulletin/board.hpp"

namespace httplib {
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

inline constexpr int kMaxServerThreads = 4096;

// The service reads requests on one event thread and hands only complete requests (header and
// body) to `threads` workers, so connections that are idle, slow to send or never read their
// answers hold no worker. A quarter of the workers (at least one, from two workers up) is kept
// for GET /checkpoint, /tile/… and /key, so the read API answers while every other worker waits on
// appends. Limits (docs/board.md §5): a request header of at most kMaxHeaderBytes and
// kMaxHeaderFields fields (else 431), read within header_timeout_ms of its first byte (of the
// connection, for the first request); a body read within body_timeout_ms plus one second per
// body_min_rate bytes; at most max_connections connections and max_per_client per client
// address: beyond either, the connection idle or waiting the longest is closed for the new one.
inline constexpr std::size_t kMaxHeaderBytes = 32 * 1024;
inline constexpr std::size_t kMaxHeaderFields = 100;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: ephemeral
  std::string tls_cert{};  // PEM files; both empty: plain HTTP
  std::string tls_key{};
  int threads = 96;                      // requests handled at once
  int listen_fd = -1;                    // a socket from bind_listener, adopted by start()
  std::size_t max_connections = 1024;
  std::size_t max_per_client = 64;
  int header_timeout_ms = 10'000;
  int body_timeout_ms = 10'000;
  std::size_t body_min_rate = 256 * 1024;  // bytes per second
  int idle_timeout_ms = 30'000;            // keep-alive between requests
  int write_timeout_ms = 10'000;           // without progress writing an answer
  std::size_t body_budget = 256u << 20;    // bytes of request bodies buffered at once, all connections
  std::size_t answer_budget = 256u << 20;  // bytes of answers not yet written; a larger one: 503
};

// Binds and listens on host:port (0: ephemeral); the socket is closed on exec. Binding before
// opening the database lets a server whose port is taken fail without creating anything.
[[nodiscard]] Result<int> bind_listener(const std::string& host, int port);

class BoardServer {
 public:
  BoardServer(LocalBoard& board, ServerOptions options);
  ~BoardServer();
  BoardServer(const BoardServer&) = delete;
  BoardServer& operator=(const BoardServer&) = delete;
  // Binds (unless given listen_fd) and starts serving on background threads; returns the port.
  [[nodiscard]] Result<int> start();
  void stop();
  [[nodiscard]] std::string url() const;

  struct Impl;

 private:
  LocalBoard& board_;
  ServerOptions options_;
  std::unique_ptr<Impl> impl_;
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
