// `gopa board serve|key|check` — the bulletin-board service and its audit (DESIGN.md §7, §8).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "session_args.hpp"
#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/http.hpp"

namespace gopa::cli {

namespace {

namespace bb = gopa::bulletin;

int exit_for(const bb::Error& e) {
  switch (e.code) {
    case bb::Errc::io: return kExitIo;
    case bb::Errc::corrupted:
    case bb::Errc::stale_database:
    case bb::Errc::fork: return kExitLogMisbehaved;
    default: return kExitUsage;
  }
}

bool is_postgres(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

std::string default_state_path(const std::string& db) {
  if (!is_postgres(db)) return db + ".state";
  // One state file per (server, database): the checkpoint this server last published.
  const bb::Hash h = bb::sha256(db);
  return "gopa-board-" + bb::to_hex(std::span(h).first(8)) + ".state";
}

// The log's signing key: DB.key next to a SQLite file; for PostgreSQL a file named after the URL
// (every server of the database needs a copy of the one key file).
std::string default_key_path(const std::string& db) {
  if (!is_postgres(db)) return db + ".key";
  const bb::Hash h = bb::sha256(db);
  return "gopa-board-" + bb::to_hex(std::span(h).first(8)) + ".key";
}

struct ServeArgs {
  std::string db;
  std::string listen = "127.0.0.1:8080";
  std::string origin;
  std::string state;
  std::string tls_cert;
  std::string tls_key;
  std::string key_file;
  int threads = 96;
  std::size_t max_connections = 1024;
  std::size_t max_per_client = 64;
};

int run_serve(const ServeArgs& a) {
  const auto colon = a.listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    std::fprintf(stderr, "gopa board serve: --listen must be HOST:PORT\n");
    return kExitUsage;
  }
  const std::string host = a.listen.substr(0, colon);
  const auto port = bb::parse_decimal_u64(a.listen.substr(colon + 1));
  if (!port || *port > 65535) {
    std::fprintf(stderr, "gopa board serve: bad port in --listen %s\n", a.listen.c_str());
    return kExitUsage;
  }
  if (a.threads < 1 || a.threads > bb::kMaxServerThreads) {
    std::fprintf(stderr, "gopa board serve: --threads must be between 1 and %d\n", bb::kMaxServerThreads);
    return kExitUsage;
  }
  if (a.max_connections == 0 || a.max_per_client == 0) {
    std::fprintf(stderr, "gopa board serve: --max-connections and --max-per-client must be at least 1\n");
    return kExitUsage;
  }
  // Block SIGINT/SIGTERM in every thread; this one waits for them and shuts down cleanly.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  // The port first: a server that cannot listen leaves no database, key or state file behind.
  auto listener = bb::bind_listener(host, static_cast<int>(*port));
  if (!listener) {
    std::fprintf(stderr, "gopa board serve: %s\n", listener.error().message.c_str());
    return exit_for(listener.error());
  }
  struct CloseUnlessAdopted {
    int fd;
    bool adopted = false;
    ~CloseUnlessAdopted() {
      if (!adopted) ::close(fd);
    }
  } listen_fd{listener.value()};

  bb::LocalBoardOptions opt;
  opt.origin = a.origin;
  opt.state_path = a.state.empty() ? default_state_path(a.db) : a.state;
  opt.key_path = a.key_file.empty() ? default_key_path(a.db) : a.key_file;
  // A new SQLite board that fails to start (a TLS file that does not load, say) is removed again
  // with its key and state files; an existing database is never touched (its key may just have
  // moved to the key file).
  struct RemoveUnlessServing {
    std::vector<std::string> paths;
    bool serving = false;
    ~RemoveUnlessServing() {
      std::error_code ec;
      if (!serving) {
        for (const auto& p : paths) std::filesystem::remove(p, ec);
      }
    }
  } created;
  std::error_code ec;
  if (!is_postgres(a.db) && !std::filesystem::exists(a.db, ec)) {
    created.paths = {a.db, a.db + "-wal", a.db + "-shm", a.db + "-journal"};
    for (const std::string& p : {opt.key_path, opt.state_path}) {
      if (!std::filesystem::exists(p, ec)) created.paths.push_back(p);
    }
  }

  auto store = bb::open_store(a.db, {});
  if (!store) {
    std::fprintf(stderr, "gopa board serve: %s: %s\n", bb::errc_name(store.error().code), store.error().message.c_str());
    return exit_for(store.error());
  }
  auto board = bb::LocalBoard::open(std::move(store).value(), opt);
  if (!board) {
    std::fprintf(stderr, "gopa board serve: refusing to start: %s: %s\n", bb::errc_name(board.error().code),
                 board.error().message.c_str());
    return exit_for(board.error());
  }
  bb::ServerOptions so;
  so.host = host;
  so.port = static_cast<int>(*port);
  so.tls_cert = a.tls_cert;
  so.tls_key = a.tls_key;
  so.threads = a.threads;
  so.max_connections = a.max_connections;
  so.max_per_client = a.max_per_client;
  so.listen_fd = listen_fd.fd;
  listen_fd.adopted = true;
  bb::BoardServer server(*board.value(), so);
  auto bound = server.start();
  if (!bound) {
    std::fprintf(stderr, "gopa board serve: %s\n", bound.error().message.c_str());
    server.stop();
    board.value().reset();  // closes the database before its files are removed
    return exit_for(bound.error());
  }
  created.serving = true;
  std::printf("serving %s\nvkey %s\nentries %llu\n", server.url().c_str(), board.value()->vkey().c_str(),
              static_cast<unsigned long long>(board.value()->size()));
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  std::fprintf(stderr, "gopa board serve: signal %d, stopping\n", sig);
  server.stop();
  return kExitOk;
}

int run_key(const std::string& db, const std::string& origin, const std::string& key_file) {
  auto store = bb::open_store(db, {});
  if (!store) {
    std::fprintf(stderr, "gopa board key: %s\n", store.error().message.c_str());
    return exit_for(store.error());
  }
  bb::LocalBoardOptions opt;
  opt.origin = origin;
  opt.key_path = key_file.empty() ? default_key_path(db) : key_file;
  auto board = bb::LocalBoard::open(std::move(store).value(), opt);
  if (!board) {
    std::fprintf(stderr, "gopa board key: %s: %s\n", bb::errc_name(board.error().code), board.error().message.c_str());
    return exit_for(board.error());
  }
  std::printf("%s\n", board.value()->vkey().c_str());
  return kExitOk;
}

struct CheckArgs {
  std::string board;
  std::string key;
  std::string state;
  std::vector<std::string> cosigners;
  std::string evidence = "gopa-board-evidence.json";
  bool json = false;
  unsigned threads = 2;
};

int run_check(const CheckArgs& a) {
  check_board_path(a.board);
  bb::AuditOptions opt;
  opt.vkey = resolve_vkey(a.key, "--board-key");
  opt.state_path = a.state;
  opt.cosigners = a.cosigners;
  opt.threads = a.threads;
  const bb::AuditReport r = bb::audit_board(a.board, opt);
  if (r.fork) {
    std::ofstream out(a.evidence, std::ios::binary | std::ios::trunc);
    out << r.fork->to_json();
    if (!out) {
      std::fprintf(stderr, "gopa board check: cannot write evidence to %s\n", a.evidence.c_str());
    } else {
      std::fprintf(stderr, "gopa board check: fork evidence written to %s\n", a.evidence.c_str());
    }
  }
  std::cout << (a.json ? r.to_json() : r.to_text());
  return r.exit_code();
}

}  // namespace

void add_board_commands(CLI::App& app, Context& ctx) {
  auto* board = app.add_subcommand("board", "The bulletin board: serve it, print its key, audit it");
  board->require_subcommand(1);

  auto serve_args = std::make_shared<ServeArgs>();
  auto* serve = board->add_subcommand("serve", "Serve a board over HTTP(S) (C2SP tlog-tiles read API, POST /add)");
  serve->add_option("--db", serve_args->db, "SQLite file path or postgresql:// URL")->required();
  serve->add_option("--listen", serve_args->listen, "HOST:PORT to listen on (default 127.0.0.1:8080)");
  serve->add_option("--origin", serve_args->origin, "checkpoint origin / key name for a new board");
  serve->add_option("--state", serve_args->state, "file holding the last published checkpoint (default DB.state)");
  serve->add_option("--tls-cert", serve_args->tls_cert, "PEM certificate: serve HTTPS");
  serve->add_option("--tls-key", serve_args->tls_key, "PEM private key for --tls-cert");
  serve->add_option("--key-file", serve_args->key_file,
                    "the log's signing key (mode 0600; default DB.key; created with a new board)");
  serve->add_option("--threads", serve_args->threads, "requests handled at once, 1..4096 (default 96)");
  serve->add_option("--max-connections", serve_args->max_connections,
                    "connections open at once; beyond, the longest-waiting one is closed (default 1024)");
  serve->add_option("--max-per-client", serve_args->max_per_client,
                    "connections open at once per client address (default 64)");
  serve->callback([&ctx, serve_args] { ctx.run = [serve_args] { return run_serve(*serve_args); }; });

  auto key_db = std::make_shared<std::string>();
  auto key_origin = std::make_shared<std::string>();
  auto key_file = std::make_shared<std::string>();
  auto* key = board->add_subcommand("key", "Print the board's verifier key (C2SP vkey); creates the board if new");
  key->add_option("--db", *key_db, "SQLite file path or postgresql:// URL")->required();
  key->add_option("--origin", *key_origin, "checkpoint origin / key name for a new board");
  key->add_option("--key-file", *key_file, "the log's signing key (default DB.key)");
  key->callback([&ctx, key_db, key_origin, key_file] {
    ctx.run = [key_db, key_origin, key_file] { return run_key(*key_db, *key_origin, *key_file); };
  });

  auto check_args = std::make_shared<CheckArgs>();
  auto* check = board->add_subcommand("check", "Audit a board: signatures, entries, Merkle root, consistency");
  check->add_option("--board", check_args->board,
                    "board URL (http[s]://…) or database (path / postgresql://); default $GOPA_BOARD")
      ->envname("GOPA_BOARD")
      ->required();
  check->add_option("--board-key,--key", check_args->key,
                    "the log's vkey to pin (recommended), or @FILE to read it from FILE; default $GOPA_BOARD_KEY "
                    "(--key: its older name)")
      ->envname("GOPA_BOARD_KEY");
  check->add_option("--state", check_args->state, "checkpoint of the previous audit; checked and updated");
  check->add_option("--cosigner", check_args->cosigners, "cosigner vkey whose cosignature must verify (repeatable)");
  check->add_option("--evidence", check_args->evidence, "where to write fork evidence (default gopa-board-evidence.json)");
  check->add_option("--threads", check_args->threads, "signature verification threads (default 2)");
  check->add_flag("--json", check_args->json, "machine-readable report");
  check->callback([&ctx, check_args] { ctx.run = [check_args] { return guarded("board check", [&] { return run_check(*check_args); }); }; });
}

}  // namespace gopa::cli
