// kill -9 of the board server during concurrent appends, in a loop: after every restart the
// database opens (no signed checkpoint over missing data, state file consistent), and at the end
// every acknowledged entry is at its acknowledged index and the full audit passes.
// The server runs in a forked child on 127.0.0.1 with an ephemeral port. Iterations: 4 by
// default, GOPA_CRASH_ITERATIONS to change (the `long` variant runs 30).
#include <catch2/catch.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "board_fixtures.hpp"
#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/http.hpp"

#include <httplib.h>

using namespace gopa::bulletin;
using gopa::test::label;
using gopa::test::Party;
using gopa::test::TempDir;

namespace {

[[noreturn]] void child_server(const std::string& db, const std::string& state, int fd) {
  int port = -1;
  auto store = open_store(db, {});
  if (store) {
    LocalBoardOptions opt;
    opt.origin = "crash.test/board";
    opt.state_path = state;
    auto board = LocalBoard::open(std::move(store).value(), opt);
    if (board) {
      auto* server = new BoardServer(*board.value(), ServerOptions{});
      auto p = server->start();
      if (p) port = p.value();
      (void)board.value().release();  // lives until the kill
    } else {
      std::fprintf(stderr, "child: refusing to start: %s\n", board.error().message.c_str());
    }
  }
  if (::write(fd, &port, sizeof port) != static_cast<ssize_t>(sizeof port)) _exit(2);
  for (;;) pause();
}

int read_port(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 20000) != 1) return -2;
  int port = -3;
  if (::read(fd, &port, sizeof port) != static_cast<ssize_t>(sizeof port)) return -4;
  return port;
}

}  // namespace

TEST_CASE("crash: kill -9 during appends loses no acknowledged entry", "[bulletin][durability][crash]") {
  int iterations = 4;
  if (const char* env = std::getenv("GOPA_CRASH_ITERATIONS")) iterations = std::max(1, std::atoi(env));
  TempDir dir;
  const std::string db = dir.file("crash.db");
  const std::string state = dir.file("crash.db.state");
  std::mutex mu;
  std::vector<std::pair<std::uint64_t, Bytes>> acked;
  std::string vkey;
  std::mt19937 rng(12345);

  for (int iter = 0; iter < iterations; ++iter) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      child_server(db, state, fds[1]);
    }
    close(fds[1]);
    const int port = read_port(fds[0]);
    close(fds[0]);
    INFO("iteration " << iter);
    if (port <= 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      FAIL("server did not restart after kill -9 (port " << port << ")");
    }
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    if (vkey.empty()) {
      httplib::Client c(url);
      auto res = c.Get("/key");
      REQUIRE(res);
      vkey = res->body.substr(0, res->body.find('\n'));
    }
    std::atomic<bool> stop{false};
    std::vector<std::thread> ts;
    for (int t = 0; t < 8; ++t) {
      ts.emplace_back([&, t] {
        auto client = HttpBoard::connect({url, vkey, "", "", 5});
        if (!client) return;
        Party p(static_cast<std::uint8_t>(iter * 8 + t + 1));
        for (std::uint64_t i = 0; i < 100000 && !stop.load(); ++i) {
          Bytes e = p.next(label("crash entry ", i));
          auto r = client.value()->append(e);
          if (!r) break;  // the server is gone
          std::lock_guard lk(mu);
          acked.emplace_back(r.value().index, std::move(e));
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 300));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    stop = true;
    for (auto& t : ts) t.join();
  }

  auto store = open_store(db, {});
  REQUIRE(store.ok());
  LocalBoardOptions opt;
  opt.state_path = state;
  auto board = LocalBoard::open(std::move(store).value(), opt);
  if (!board) FAIL(board.error().message);
  auto all = board.value()->read(0, board.value()->size());
  REQUIRE(all.ok());
  INFO("acknowledged " << acked.size() << ", stored " << all.value().size());
  REQUIRE(acked.size() > 0);
  std::size_t lost = 0;
  for (const auto& [index, bytes] : acked) {
    if (index >= all.value().size() || all.value()[static_cast<std::size_t>(index)] != bytes) ++lost;
  }
  CHECK(lost == 0);
  board.value().reset();
  const AuditReport report = audit_board(db, {});
  INFO(report.to_text());
  CHECK(report.exit_code() == 0);
}
