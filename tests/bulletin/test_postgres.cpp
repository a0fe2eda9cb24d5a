// The PostgreSQL backend against a throwaway local server (initdb + pg_ctl in a temporary
// directory, listening on 127.0.0.1 only). Where the server binaries are absent the test prints a
// SKIP message and exits with code 77, which CTest reports as skipped — never as a pass.
// As root (CI), the server runs as the `postgres` user through runuser, since initdb refuses root.
// With the gopa executable, a hidden-noise session across processes runs on such a board too.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "board_fixtures.hpp"
#include "gopa/bulletin/audit.hpp"
#include "nlohmann/json.hpp"
#include "test_paths.hpp"

using namespace gopa::bulletin;
using gopa::test::label;
using gopa::test::Party;
using gopa::test::TempDir;

namespace {

[[noreturn]] void skip(const std::string& why) {
  std::printf("SKIP: PostgreSQL backend tests: %s\n", why.c_str());
  std::fflush(stdout);
  std::_Exit(77);
}

std::string find_bindir() {
  if (const char* env = std::getenv("GOPA_PG_BINDIR")) return env;
  std::error_code ec;
  std::string best;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const auto bin = e.path() / "bin";
    if (std::filesystem::exists(bin / "initdb") && std::filesystem::exists(bin / "pg_ctl")) best = bin.string();
  }
  return best;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

class PgServer {
 public:
  PgServer() {
    bindir_ = find_bindir();
    if (bindir_.empty()) skip("no initdb/pg_ctl under /usr/lib/postgresql/*/bin (set GOPA_PG_BINDIR)");
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("postgres");
      if (pw == nullptr) skip("running as root and there is no `postgres` user to run the server");
      if (std::system("command -v runuser > /dev/null 2>&1") != 0) skip("running as root without runuser");
      as_ = "runuser -u postgres -- ";
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      if (::chown(dir_.path().c_str(), uid_, gid_) != 0) skip("cannot hand the temporary directory to postgres");
    }
    data_ = dir_.file("data");
    port_ = free_port();
    REQUIRE(port_ > 0);
    run(as_ + bindir_ + "/initdb -D " + data_ + " -A trust -U postgres --no-sync -E UTF8 > " + dir_.file("initdb.log") + " 2>&1");
    run(as_ + bindir_ + "/pg_ctl -D " + data_ + " -l " + dir_.file("server.log") + " -w -t 60 -o \"-p " +
        std::to_string(port_) + " -k " + dir_.path().string() + " -c listen_addresses=127.0.0.1\" start > " +
        dir_.file("pg_ctl.log") + " 2>&1");
    started_ = true;
  }
  ~PgServer() {
    if (started_) {
      (void)std::system((as_ + bindir_ + "/pg_ctl -D " + data_ + " -m immediate -w -t 30 stop > /dev/null 2>&1").c_str());
    }
  }
  [[nodiscard]] std::string url() const {
    return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/postgres";
  }
  [[nodiscard]] std::string file(const std::string& name) const { return dir_.file(name); }
  // Runs SQL through psql; returns its first output line.
  std::string psql(const std::string& sql) {
    const std::string out = dir_.file("psql.out");
    const std::string cmd = bindir_ + "/psql -X -q -t -A -v ON_ERROR_STOP=1 -h 127.0.0.1 -p " + std::to_string(port_) +
                            " -U postgres -d postgres -c \"" + sql + "\" > " + out + " 2>&1";
    if (std::system(cmd.c_str()) != 0) FAIL("psql failed: " << sql);
    std::FILE* in = std::fopen(out.c_str(), "r");
    char buf[256] = {0};
    if (in != nullptr) {
      if (std::fgets(buf, sizeof buf, in) == nullptr) buf[0] = 0;
      std::fclose(in);
    }
    std::string line(buf);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return line;
  }

 private:
  void run(const std::string& cmd) {
    if (std::system(cmd.c_str()) != 0) {
      std::string log;
      for (const char* f : {"initdb.log", "pg_ctl.log", "server.log"}) {
        std::FILE* in = std::fopen(dir_.file(f).c_str(), "r");
        if (!in) continue;
        char buf[4096];
        const std::size_t n = std::fread(buf, 1, sizeof buf - 1, in);
        std::fclose(in);
        log += std::string(f) + ": " + std::string(buf, n) + "\n";
      }
      FAIL("command failed: " << cmd << "\n" << log);
    }
  }
  TempDir dir_;
  std::string bindir_, data_, as_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int port_ = 0;
  bool started_ = false;
};

std::unique_ptr<LocalBoard> open_pg(const std::string& url, const std::string& state) {
  auto store = open_store(url, {});
  if (!store) FAIL(store.error().message);
  auto b = LocalBoard::open(std::move(store).value(), {"pg.test/board", state, 512, {}});
  if (!b) FAIL(b.error().message);
  return std::move(b).value();
}

}  // namespace

TEST_CASE("postgres: one database shared by two board servers", "[bulletin][postgres]") {
  PgServer pg;
  Party alice(1);
  {
    auto board = open_pg(pg.url(), pg.file("a.state"));
    for (int i = 0; i < 10; ++i) REQUIRE(board->append(alice.next(label("pg ", static_cast<std::uint64_t>(i)))).ok());
    auto dup = board->append(alice.at(3, "pg 3"));
    REQUIRE(dup.ok());
    CHECK(dup.value().index == 3);
    CHECK(dup.value().duplicate);
    auto eq = board->append(alice.at(3, "pg three"));
    REQUIRE_FALSE(eq.ok());
    CHECK(eq.error().code == Errc::equivocation);
  }
  // Two servers (two connections, two sequencers) append concurrently to the same log.
  auto a = open_pg(pg.url(), pg.file("a.state"));
  auto b = open_pg(pg.url(), pg.file("b.state"));
  CHECK(a->vkey() == b->vkey());
  CHECK(b->size() == 10);
  std::vector<std::vector<std::pair<std::uint64_t, Bytes>>> acked(8);
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t) {
    ts.emplace_back([&, t] {
      Party p(static_cast<std::uint8_t>(40 + t));
      LocalBoard& board = (t % 2) ? *a : *b;
      for (int i = 0; i < 15; ++i) {
        Bytes e = p.next(label("shared ", static_cast<std::uint64_t>(t * 100 + i)));
        auto r = board.append(e);
        if (!r) FAIL_CHECK(r.error().message);
        if (r.ok()) acked[static_cast<std::size_t>(t)].emplace_back(r.value().index, e);
      }
    });
  }
  for (auto& t : ts) t.join();
  a.reset();
  b.reset();
  // A third server opening the database re-derives and verifies everything both committed.
  auto c = open_pg(pg.url(), pg.file("c.state"));
  auto all = c->read(0, c->size());
  REQUIRE(all.ok());
  std::set<std::uint64_t> seen;
  std::size_t total = 0;
  for (const auto& list : acked) {
    for (const auto& [index, bytes] : list) {
      ++total;
      CHECK(seen.insert(index).second);
      REQUIRE(index < all.value().size());
      CHECK(all.value()[static_cast<std::size_t>(index)] == bytes);
    }
  }
  CHECK(total == 120);
  CHECK(all.value().size() == 130);
  c.reset();
  const AuditReport r = audit_board(pg.url(), {});
  INFO(r.to_text());
  CHECK(r.exit_code() == 1);  // alice's equivocation is on record and named
  CHECK(r.equivocating_senders.size() == 1);
  for (const auto& check : r.checks) CHECK(check.status != CheckStatus::fail);
}

TEST_CASE("postgres: a server starts while another one appends", "[bulletin][postgres]") {
  // Starting reads the stored checkpoint and the entries while the other server commits groups;
  // a start must never take that for a checkpoint over missing entries.
  PgServer pg;
  auto a = open_pg(pg.url(), pg.file("a.state"));
  std::atomic<bool> stop{false};
  std::atomic<int> appended{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      Party p(static_cast<std::uint8_t>(60 + t));
      for (std::uint64_t i = 0; !stop.load(); ++i) {
        if (a->append(p.next(label("load ", i))).ok()) ++appended;
      }
    });
  }
  while (appended.load() < 50) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  int started = 0;
  for (int i = 0; i < 12; ++i) {
    auto store = open_store(pg.url(), {});
    REQUIRE(store.ok());
    const int before = appended.load();
    auto b = LocalBoard::open(std::move(store).value(), {"pg.test/board", pg.file("b.state"), 512, {}});
    if (!b) FAIL_CHECK("start " << i << ": " << b.error().message);
    if (b.ok()) ++started;
    // Starts overlapped with commits of the other server.
    while (appended.load() == before) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop = true;
  for (auto& t : writers) t.join();
  CHECK(started == 12);
  a.reset();
  const AuditReport r = audit_board(pg.url(), {});
  INFO(r.to_text());
  CHECK(r.exit_code() == 0);
}

TEST_CASE("postgres: another application's schema is not made into a board", "[bulletin][postgres]") {
  PgServer pg;
  (void)pg.psql("CREATE SCHEMA other; CREATE TABLE other.accounts(id BIGINT PRIMARY KEY)");
  // The board's tables would go to the first schema of the search path: `other`.
  const std::string url = pg.url() + "?options=-csearch_path%3Dother";
  auto store = open_store(url, {});
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().code == Errc::invalid_argument);
  CHECK(pg.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'other'") == "1");
  // An empty schema becomes a board.
  CHECK(open_store(pg.url(), {}).ok());
}

TEST_CASE("postgres: the key moves from the database to a key file", "[bulletin][postgres][key]") {
  PgServer pg;
  std::string vkey;
  {
    auto board = open_pg(pg.url(), pg.file("a.state"));  // no key file: the key stays in meta
    vkey = board->vkey();
    REQUIRE(board->append(Party(70).next("before")).ok());
  }
  CHECK(pg.psql("SELECT count(*) FROM meta WHERE key = 'signing_seed'") == "1");
  LocalBoardOptions opt;
  opt.state_path = pg.file("a.state");
  opt.key_path = pg.file("board.key");
  {
    auto store = open_store(pg.url(), {});
    REQUIRE(store.ok());
    auto board = LocalBoard::open(std::move(store).value(), opt);
    if (!board) FAIL(board.error().message);
    CHECK(board.value()->vkey() == vkey);
    REQUIRE(board.value()->append(Party(71).next("after")).ok());
  }
  CHECK(pg.psql("SELECT count(*) FROM meta WHERE key = 'signing_seed'") == "0");
  REQUIRE(read_key_file(opt.key_path).ok());
  // From now on the key file is needed, and enough.
  auto store = open_store(pg.url(), {});
  REQUIRE(store.ok());
  auto again = LocalBoard::open(std::move(store).value(), opt);
  REQUIRE(again.ok());
  CHECK(again.value()->vkey() == vkey);
  again.value().reset();
  auto keyless = LocalBoard::open(open_store(pg.url(), {}).value(), {"pg.test/board", pg.file("b.state"), 512, {}});
  REQUIRE_FALSE(keyless.ok());
  CHECK(audit_board(pg.url(), {}).exit_code() == 0);
}

TEST_CASE("postgres: a cosignature stored through one server is served by the other", "[bulletin][postgres][note]") {
  PgServer pg;
  auto a = open_pg(pg.url(), pg.file("a.state"));
  auto b = open_pg(pg.url(), pg.file("b.state"));
  REQUIRE(a->append(Party(80).next("cosigned")).ok());
  auto cp = open_checkpoint(a->checkpoint().value(), a->verifier());
  REQUIRE(cp.ok());
  // b catches up on its own (idle refresh), then takes the cosignature.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (b->size() < cp.value().size && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(b->size() == cp.value().size);
  REQUIRE(a->cosigned_checkpoint().ok());  // a has cached its (empty) cosignature lines
  std::array<std::uint8_t, 32> seed{};
  seed.fill(8);
  Cosigner witness("party.example/8", SigningKey::from_seed(seed));
  REQUIRE(b->add_cosignature(cp.value().size, witness.vkey(), witness.cosign(checkpoint_body(cp.value()), 1700000000)).ok());
  bool served = false;
  while (!served && std::chrono::steady_clock::now() < until + std::chrono::seconds(2)) {
    served = a->cosigned_checkpoint().value().find("— party.example/8 ") != std::string::npos;
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(served);
}

TEST_CASE("postgres: hidden noise across processes on a PostgreSQL board; every member counted, the audit passes",
          "[bulletin][postgres][hidden][processes]") {
  // gopa board serve on the PostgreSQL database, gopa coordinate --noise hidden and three gopa
  // party processes, each a committee member with its own 2048-bit Paillier key; then gopa audit.
  PgServer pg;
  TempDir d;
  const std::string g = std::string("'") + gopa_test_binary() + "'";
  {
    std::ofstream sh(d.file("session.sh"));
    sh << "set -e\n"
       << "for i in 0 1 2; do " << g << " keys --out k$i.json > /dev/null; done\n"
       << "cat k0.json.pub k1.json.pub k2.json.pub > roster.jsonl\n"
       << g << " board serve --db '" << pg.url() << "' --key-file board.key --state board.state --origin pg.test/gopa"
       << " --listen 127.0.0.1:0 > serve.out 2> serve.err &\n"
       << "SERVER=$!\n"
       << "trap 'kill $SERVER 2>/dev/null || true' EXIT\n"
       << "for t in $(seq 1 100); do grep -q '^vkey ' serve.out 2>/dev/null && break; sleep 0.1; done\n"
       << "URL=$(sed -n 's/^serving //p' serve.out)\n"
       << "VKEY=$(sed -n 's/^vkey //p' serve.out)\n"
       << "PIDS=\"\"\n"
       << "for i in 0 1 2; do\n"
       << "  " << g << " party --board \"$URL\" --board-key \"$VKEY\" --id $i --keys k$i.json --input $((i + 1)) --json"
       << " --epsilon 1e5 --delta 1e-3 --honest-fraction 1 > party$i.json 2> party$i.err &\n"
       << "  PIDS=\"$PIDS $!\"\n"
       << "done\n"
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties 3 --input-max 10"
       << " --sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 --noise hidden --committee 3"
       << " --sampler-precision 8 --round-timeout-ms 60000 --json > coordinator.json 2> coordinator.err\n"
       << "for p in $PIDS; do wait $p; done\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" --json > audit.json\n";
  }
  const int status = std::system(("cd '" + d.path().string() + "' && bash session.sh > session.log 2>&1").c_str());
  auto slurp = [&](const char* name) {
    std::ifstream in(d.file(name));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  INFO(slurp("session.log") << slurp("serve.err") << slurp("coordinator.err") << slurp("party0.err"));
  REQUIRE(status == 0);
  const auto jc = nlohmann::json::parse(slurp("coordinator.json"));
  const auto ja = nlohmann::json::parse(slurp("audit.json"));
  CHECK(jc.at("counted") == 3);
  CHECK(jc.at("excluded").empty());
  CHECK(ja.at("estimate") == jc.at("estimate"));
  bool committee_checked = false;
  for (const auto& c : ja.at("checks")) {
    INFO(c.dump());
    CHECK(c.at("status") == "PASS");
    committee_checked = committee_checked || c.at("name").get<std::string>().find("hidden noise") != std::string::npos;
  }
  CHECK(committee_checked);
  for (const char* p : {"party0.json", "party1.json", "party2.json"}) {
    INFO(p);
    CHECK(nlohmann::json::parse(slurp(p)).at("counted_me") == true);
  }
}
