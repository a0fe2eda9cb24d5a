// Load test of the bulletin board (DESIGN.md §7 targets):
//   1. N concurrent HTTP clients append signed entries to a SQLite board served on 127.0.0.1 for
//      a fixed time: acknowledged appends/s and latency percentiles (every ack verified by the
//      client: checkpoint signature, inclusion proof, consistency with its previous checkpoint);
//   2. builds a board of M entries and times the full audit (`gopa board check`) of it, both from
//      the database file and over HTTP.
//
//   board_load [--clients 64] [--seconds 10] [--check-entries 100000] [--dir /tmp]
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/http.hpp"

using namespace gopa::bulletin;
using Clock = std::chrono::steady_clock;

namespace {

SigningKey party_key(std::uint32_t id) {
  std::array<std::uint8_t, 32> seed{};
  for (std::size_t i = 0; i < 4; ++i) seed[i] = static_cast<std::uint8_t>(id >> (8 * i));
  seed[31] = 0x42;
  return SigningKey::from_seed(seed);
}

Bytes make_entry(const SigningKey& key, std::uint64_t seq, std::size_t payload) {
  Entry e;
  e.session_id.fill(0x10);
  e.round = 1;
  e.type = MessageType::commitment;
  e.sequence = seq;
  e.payload.assign(payload, static_cast<std::uint8_t>(seq));
  for (std::size_t i = 0; i < 8 && i < payload; ++i) e.payload[i] = static_cast<std::uint8_t>(seq >> (8 * i));
  return sign_entry(e, key);
}

// CPU seconds (user + system) this process has used: on a shared machine, the audit's wall time
// depends on the other load, its CPU time does not.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto idx = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  return v[idx];
}

struct Args {
  int clients = 64;
  double seconds = 10;
  std::uint64_t check_entries = 100000;
  std::string dir = std::filesystem::temp_directory_path().string();
};

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: board_load [--clients N] [--seconds S] [--check-entries E] [--dir DIR]\n"
               "Load test of the bulletin board: N clients append to a served SQLite board for S seconds\n"
               "(appends/s, p99 latency), then the audit time of an E-entry board. 0 skips a part.\n"
               "  --clients N        concurrent appending clients (default 64)\n"
               "  --seconds S        duration of the append test (default 10)\n"
               "  --check-entries E  entries of the board whose audit is timed (default 100000)\n"
               "  --dir DIR          where the temporary boards go (default the temporary directory)\n");
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      usage(stdout);
      std::exit(0);
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "board_load: option %s needs a value\n", argv[argc - 1]);
    usage(stderr);
    std::exit(3);
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    if (k == "--clients") a.clients = std::atoi(v.c_str());
    else if (k == "--seconds") a.seconds = std::atof(v.c_str());
    else if (k == "--check-entries") a.check_entries = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--dir") a.dir = v;
    else {
      std::fprintf(stderr, "board_load: unknown option %s\n", k.c_str());
      usage(stderr);
      std::exit(3);
    }
  }
  return a;
}

int load_test(const Args& a, const std::string& dir) {
  const std::string db = dir + "/load.db";
  auto store = open_store(db, {});
  if (!store) {
    std::fprintf(stderr, "open: %s\n", store.error().message.c_str());
    return 4;
  }
  LocalBoardOptions opt;
  opt.origin = "load.test/board";
  opt.state_path = db + ".state";
  auto board = LocalBoard::open(std::move(store).value(), opt);
  if (!board) {
    std::fprintf(stderr, "open: %s\n", board.error().message.c_str());
    return 4;
  }
  // Every client connects from 127.0.0.1: the per-address limit is lifted to the total.
  ServerOptions so;
  so.max_per_client = so.max_connections;
  BoardServer server(*board.value(), so);
  if (!server.start()) return 4;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> errors{0};
  std::vector<std::vector<double>> lat(static_cast<std::size_t>(a.clients));
  std::vector<std::thread> ts;
  const auto t0 = Clock::now();
  for (int c = 0; c < a.clients; ++c) {
    ts.emplace_back([&, c] {
      auto client = HttpBoard::connect({server.url(), board.value()->vkey(), "", "", 30});
      if (!client) {
        ++errors;
        return;
      }
      const SigningKey key = party_key(static_cast<std::uint32_t>(c));
      for (std::uint64_t seq = 0; !stop.load(std::memory_order_relaxed); ++seq) {
        const Bytes e = make_entry(key, seq, 256);
        const auto s = Clock::now();
        auto r = client.value()->append(e);
        const auto d = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
        if (!r) {
          ++errors;
          continue;
        }
        lat[static_cast<std::size_t>(c)].push_back(d);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(a.seconds));
  stop = true;
  for (auto& t : ts) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all;
  for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
  const double n = static_cast<double>(all.size());
  std::printf("load: %d clients, %.1f s, %zu acknowledged appends (256-byte payloads), %llu errors\n", a.clients,
              elapsed, all.size(), static_cast<unsigned long long>(errors.load()));
  std::printf("load: machine load average at the end: %.2f\n", [] {
    double l[1] = {0};
    return getloadavg(l, 1) == 1 ? l[0] : -1.0;
  }());
  std::printf("load: %.0f appends/s, latency p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", n / elapsed,
              percentile(all, 0.50), percentile(all, 0.99), percentile(all, 1.0));
  server.stop();
  return errors.load() == 0 ? 0 : 1;
}

int check_test(const Args& a, const std::string& dir) {
  const std::string db = dir + "/check.db";
  // Build the board through the store in large transactions (the sequencer's path is measured
  // above); the checkpoint is signed over the re-derived leaves exactly as the sequencer does.
  const auto t0 = Clock::now();
  {
    auto b = LocalBoard::open(open_store(db, {}).value(), {"check.test/board", db + ".state", 512, {}});
    if (!b) return 4;
  }
  {
    auto store = open_store(db, {}).value();
    const auto origin = store->get_meta("origin").value().value();
    NoteSigner signer(origin, read_key_file(db + ".key").value());
    MerkleTree tree;
    const std::uint64_t kParties = 1000;
    std::vector<SigningKey> keys;
    for (std::uint32_t p = 0; p < kParties; ++p) keys.push_back(party_key(100000 + p));
    const std::uint64_t chunk = 5000;
    for (std::uint64_t first = 0; first < a.check_entries; first += chunk) {
      const std::uint64_t end = std::min(a.check_entries, first + chunk);
      std::vector<PendingEntry> pending(static_cast<std::size_t>(end - first));
      std::vector<std::thread> ws;
      for (unsigned w = 0; w < 2; ++w) {
        ws.emplace_back([&, w] {
          for (std::uint64_t i = first + w; i < end; i += 2) {
            const auto& key = keys[static_cast<std::size_t>(i % kParties)];
            PendingEntry& pe = pending[static_cast<std::size_t>(i - first)];
            pe.data = make_entry(key, i / kParties, 256);
            pe.leaf = leaf_hash(pe.data);
            pe.session.fill(0x10);
            pe.sender = key.public_key();
            pe.sequence = i / kParties;
          }
        });
      }
      for (auto& w : ws) w.join();
      Status st = store->append_batch(first, pending, {}, [&](std::span<const Hash> leaves) -> Result<StoredCheckpoint> {
        for (const Hash& h : leaves) tree.append(h);
        Checkpoint cp{origin, tree.size(), tree.root(), {}};
        return StoredCheckpoint{cp.size, cp.root, signer.sign(checkpoint_body(cp))};
      });
      if (!st) {
        std::fprintf(stderr, "build: %s\n", st.error().message.c_str());
        return 4;
      }
    }
  }
  std::printf("check: built a %llu-entry board in %.1f s\n", static_cast<unsigned long long>(a.check_entries),
              std::chrono::duration<double>(Clock::now() - t0).count());
  double cpu0 = cpu_seconds();
  AuditReport local = audit_board(db, {});
  std::printf("check: `gopa board check --board %s`: exit %d in %.2f s (CPU %.2f s)\n", db.c_str(),
              local.exit_code(), local.seconds, cpu_seconds() - cpu0);
  auto b = LocalBoard::open(open_store(db, {}).value(), {"", db + ".state", 512, {}});
  if (!b) {
    std::fprintf(stderr, "reopen: %s\n", b.error().message.c_str());
    return 4;
  }
  BoardServer server(*b.value(), ServerOptions{});
  if (!server.start()) return 4;
  AuditOptions ao;
  ao.vkey = b.value()->vkey();
  cpu0 = cpu_seconds();
  AuditReport remote = audit_board(server.url(), ao);
  std::printf("check: `gopa board check --board %s --key …`: exit %d in %.2f s (CPU %.2f s, server included)\n",
              server.url().c_str(), remote.exit_code(), remote.seconds, cpu_seconds() - cpu0);
  if (remote.exit_code() != 0) std::fputs(remote.to_text().c_str(), stderr);
  server.stop();
  return (local.exit_code() == 0 && remote.exit_code() == 0) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  std::random_device rd;
  const std::string dir = a.dir + "/gopa-board-load-" + std::to_string(rd());
  std::filesystem::create_directories(dir);
  int rc = 0;
  if (a.clients > 0 && a.seconds > 0) rc = load_test(a, dir);
  if (a.check_entries > 0) rc = std::max(rc, check_test(a, dir));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return rc;
}
