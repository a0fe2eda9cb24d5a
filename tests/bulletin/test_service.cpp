// The HTTP service and its client, on 127.0.0.1 with ephemeral ports: the verified append/read
// path, tlog-tiles paths, abuse (4xx, nothing stored), 64 concurrent appenders, fork detection.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>

#include "board_fixtures.hpp"
#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/http.hpp"

using namespace gopa::bulletin;
using gopa::test::label;
using gopa::test::Party;
using gopa::test::TempDir;

namespace {

struct Served {
  std::unique_ptr<LocalBoard> board;
  std::unique_ptr<BoardServer> server;
};

Served serve(std::unique_ptr<Store> store, const std::string& state = "") {
  LocalBoardOptions opt;
  opt.origin = "test.example/board";
  opt.state_path = state;
  auto b = LocalBoard::open(std::move(store), opt);
  if (!b) FAIL(b.error().message);
  Served s;
  s.board = std::move(b).value();
  s.server = std::make_unique<BoardServer>(*s.board, ServerOptions{});
  auto port = s.server->start();
  REQUIRE(port.ok());
  REQUIRE(port.value() > 0);
  return s;
}

std::unique_ptr<HttpBoard> client_for(const Served& s, const std::string& state = "") {
  HttpBoardOptions opt;
  opt.url = s.server->url();
  opt.vkey = s.board->vkey();
  opt.state_path = state;
  opt.timeout_seconds = 20;
  auto c = HttpBoard::connect(opt);
  REQUIRE(c.ok());
  return std::move(c).value();
}

}  // namespace

TEST_CASE("tile paths: encoding and strict parsing", "[bulletin][http]") {
  CHECK(tile_index_path(0) == "000");
  CHECK(tile_index_path(1234067) == "x001/x234/067");
  CHECK(tile_path(0, 5, 256) == "/tile/0/005");
  CHECK(tile_path(2, 1000, 7) == "/tile/2/x001/000.p/7");
  CHECK(entry_bundle_path(3, 12) == "/tile/entries/003.p/12");
  auto p = parse_tile_index_path("x001/x234/067.p/5");
  REQUIRE(p.ok());
  CHECK(p.value().first == 1234067);
  CHECK(p.value().second == 5);
  CHECK_FALSE(parse_tile_index_path("x000/067").ok());  // leading zero element
  CHECK_FALSE(parse_tile_index_path("67").ok());
  CHECK_FALSE(parse_tile_index_path("067.p/0").ok());
  CHECK_FALSE(parse_tile_index_path("067.p/256").ok());
  CHECK_FALSE(parse_tile_index_path("067.p/07").ok());
  CHECK_FALSE(parse_tile_index_path("001/067").ok());
  CHECK_FALSE(parse_tile_index_path("x001/").ok());
}

TEST_CASE("service: verified append, read, checkpoint and audit over HTTP", "[bulletin][http]") {
  TempDir dir;
  Served s = serve(open_store(dir.file("b.db")).value(), dir.file("b.state"));
  auto client = client_for(s, dir.file("client.ckpt"));
  Party p(1);
  std::vector<Bytes> sent;
  for (int i = 0; i < 300; ++i) {
    sent.push_back(p.next(label("hello ", static_cast<std::uint64_t>(i))));
    auto r = client->append(sent.back());
    REQUIRE(r.ok());
    CHECK(r.value().index == static_cast<std::uint64_t>(i));
  }
  auto note = client->checkpoint();
  REQUIRE(note.ok());
  auto read = client->read(250, 260);
  REQUIRE(read.ok());
  REQUIRE(read.value().size() == 10);
  CHECK(read.value()[0] == sent[250]);
  // The client's stored checkpoint survives a restart of the client.
  client.reset();
  client = client_for(s, dir.file("client.ckpt"));
  REQUIRE(client->trusted_checkpoint().has_value());
  REQUIRE(client->append(p.next("after restart")).ok());
  // Cosign through the API.
  std::array<std::uint8_t, 32> seed{};
  seed.fill(3);
  Cosigner w("party.example/3", SigningKey::from_seed(seed));
  auto cp = open_checkpoint(client->checkpoint().value(), client->verifier());
  REQUIRE(cp.ok());
  CHECK(client->add_cosignature(cp.value().size, w.vkey(), w.cosign(checkpoint_body(cp.value()), 1700000001)).ok());
  // A full audit: pinned key, cosigner, state recorded then re-checked.
  AuditOptions ao;
  ao.vkey = s.board->vkey();
  ao.state_path = dir.file("audit.ckpt");
  ao.cosigners = {w.vkey()};
  AuditReport r1 = audit_board(s.server->url(), ao);
  INFO(r1.to_text());
  CHECK(r1.exit_code() == 0);
  CHECK(r1.size == 301);
  for (const auto& c : r1.checks) CHECK(c.status != CheckStatus::fail);
  REQUIRE(client->append(p.next("one more")).ok());
  ao.cosigners.clear();  // the new checkpoint is not cosigned yet
  AuditReport r2 = audit_board(s.server->url(), ao);
  INFO(r2.to_text());
  CHECK(r2.exit_code() == 0);
}

TEST_CASE("service: abuse gets clear 4xx errors and stores nothing", "[bulletin][http][abuse]") {
  Served s = serve(make_memory_store());
  httplib::Client raw(s.server->url());
  raw.set_read_timeout(10, 0);
  Party p(2);
  const Bytes good = p.next("good");
  REQUIRE(raw.Post("/add", std::string(good.begin(), good.end()), "application/octet-stream")->status == 200);
  const std::uint64_t size0 = s.board->size();

  auto post = [&](const Bytes& b) {
    auto res = raw.Post("/add", std::string(b.begin(), b.end()), "application/octet-stream");
    REQUIRE(res);
    return std::make_pair(res->status, res->body);
  };
  SECTION("malformed") {
    auto [st, body] = post(Bytes{1, 2, 3});
    CHECK(st == 400);
    CHECK(body.rfind("malformed:", 0) == 0);
  }
  SECTION("oversize") {
    auto [st, body] = post(Bytes(70000, 0x41));
    CHECK(st == 413);
  }
  SECTION("badly signed") {
    Bytes b = p.next("tampered");
    b[120] ^= 0x20;
    auto [st, body] = post(b);
    CHECK(st == 400);
    CHECK(body.rfind("bad_signature:", 0) == 0);
  }
  SECTION("unknown type") {
    Entry e;
    e.type = static_cast<MessageType>(999);
    e.sequence = 77;
    Bytes b = sign_entry(e, p.key());
    auto [st, body] = post(b);
    CHECK(st == 400);
    CHECK(body.rfind("unknown_type:", 0) == 0);
  }
  SECTION("replayed entry: original index, nothing stored") {
    auto res = raw.Post("/add", std::string(good.begin(), good.end()), "application/octet-stream");
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(res->body.find("\"duplicate\":true") != std::string::npos);
    CHECK(res->body.find("\"index\":0") != std::string::npos);
  }
  SECTION("conflicting replay (equivocation)") {
    auto [st, body] = post(p.at(0, "rewritten"));
    CHECK(st == 409);
    CHECK(body.rfind("equivocation:", 0) == 0);
  }
  SECTION("bad paths and queries") {
    CHECK(raw.Get("/tile/0/x000/000")->status == 404);
    CHECK(raw.Get("/tile/64/000")->status == 404);
    CHECK(raw.Get("/tile/0/001")->status == 404);
    CHECK(raw.Get("/tile/entries/000.p/2")->status == 404);
    CHECK(raw.Get("/proof/inclusion?index=5&size=1")->status == 400);
    CHECK(raw.Get("/proof/consistency?size1=01&size2=1")->status == 400);
    CHECK(raw.Post("/cosign", "{\"size\":1}", "application/json")->status == 400);
  }
  CHECK(s.board->size() == size0);
}

TEST_CASE("service: 64 concurrent appenders, no lost or duplicated acknowledgement", "[bulletin][http][load][tsan]") {
  TempDir dir;
  Served s = serve(open_store(dir.file("b.db")).value(), dir.file("b.state"));
  constexpr int kClients = 64;
  constexpr int kEach = 15;
  std::vector<std::vector<std::pair<std::uint64_t, Bytes>>> acked(kClients);
  std::atomic<int> failures{0};
  std::vector<std::thread> ts;
  for (int c = 0; c < kClients; ++c) {
    ts.emplace_back([&, c] {
      auto client = HttpBoard::connect({s.server->url(), s.board->vkey(), "", "", 20});
      if (!client) {
        ++failures;
        return;
      }
      Party p(static_cast<std::uint8_t>(c + 20));
      for (int i = 0; i < kEach; ++i) {
        Bytes e = p.next(label("c", static_cast<std::uint64_t>(c * 1000 + i)));
        auto r = client.value()->append(e);
        if (!r) {
          if (++failures < 5) UNSCOPED_INFO(r.error().message);
          continue;
        }
        acked[static_cast<std::size_t>(c)].emplace_back(r.value().index, e);
      }
    });
  }
  for (auto& t : ts) t.join();
  CHECK(failures.load() == 0);
  std::set<std::uint64_t> indices;
  std::size_t total = 0;
  auto all = s.board->read(0, s.board->size());
  REQUIRE(all.ok());
  for (const auto& list : acked) {
    for (const auto& [index, bytes] : list) {
      ++total;
      CHECK(indices.insert(index).second);
      REQUIRE(index < all.value().size());
      CHECK(all.value()[static_cast<std::size_t>(index)] == bytes);
    }
  }
  CHECK(total == static_cast<std::size_t>(kClients * kEach));
  CHECK(s.board->size() == total);
}

TEST_CASE("service: a forked view (two checkpoints of one size) is caught with evidence", "[bulletin][http][fork]") {
  TempDir dir;
  const std::string db_a = dir.file("a.db");
  Party p(9);
  {
    auto b = LocalBoard::open(open_store(db_a).value(), {"test.example/board", "", 512, {}});
    REQUIRE(b.ok());
    for (int i = 0; i < 4; ++i) REQUIRE(b.value()->append(p.next(label("common ", static_cast<std::uint64_t>(i)))).ok());
  }
  // The operator keeps two databases with the same key and serves different histories.
  std::filesystem::copy_file(db_a, dir.file("b.db"));
  std::filesystem::copy_file(db_a + ".key", dir.file("b.db.key"));
  Served a = serve(open_store(db_a).value());
  Served b = serve(open_store(dir.file("b.db")).value());
  REQUIRE(a.board->vkey() == b.board->vkey());
  Party q(10);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(a.board->append(q.next(label("view A ", static_cast<std::uint64_t>(i)))).ok());
    REQUIRE(b.board->append(q.next(label("view B ", static_cast<std::uint64_t>(i + 10)))).ok());
  }
  REQUIRE(a.board->size() == b.board->size());

  // A client that saw view A is shown view B: fork with evidence.
  const std::string state = dir.file("party.ckpt");
  {
    auto ca = client_for(a, state);
    REQUIRE(ca->checkpoint().ok());
  }
  HttpBoardOptions ob{b.server->url(), b.board->vkey(), state, "", 20};
  auto cb = HttpBoard::connect(ob);
  REQUIRE(cb.ok());
  auto seen = cb.value()->checkpoint();
  REQUIRE_FALSE(seen.ok());
  CHECK(seen.error().code == Errc::fork);
  auto ev = cb.value()->fork_evidence();
  REQUIRE(ev.has_value());
  // The evidence is self-contained: both notes verify under the log key, same size, other roots.
  auto v = NoteVerifier::from_vkey(ev->vkey);
  REQUIRE(v.ok());
  auto ca_cp = open_checkpoint(ev->checkpoint_a, v.value());
  auto cb_cp = open_checkpoint(ev->checkpoint_b, v.value());
  REQUIRE(ca_cp.ok());
  REQUIRE(cb_cp.ok());
  CHECK(ca_cp.value().size == cb_cp.value().size);
  CHECK(ca_cp.value().root != cb_cp.value().root);

  // The audit catches it too and exits 2.
  AuditOptions ao;
  ao.vkey = a.board->vkey();
  ao.state_path = dir.file("audit.ckpt");
  REQUIRE(audit_board(a.server->url(), ao).exit_code() == 0);
  AuditReport r = audit_board(b.server->url(), ao);
  INFO(r.to_text());
  CHECK(r.exit_code() == 2);
  REQUIRE(r.fork.has_value());
  // View B grows: the audit still proves the old checkpoint is not a prefix.
  REQUIRE(b.board->append(q.next("more B")).ok());
  AuditReport r2 = audit_board(b.server->url(), ao);
  CHECK(r2.exit_code() == 2);
  REQUIRE(r2.fork.has_value());
  CHECK_FALSE(r2.fork->proof.empty());
}

TEST_CASE("service: blobs are stored by hash once an entry refers to them", "[bulletin][http]") {
  Served s = serve(make_memory_store());
  httplib::Client raw(s.server->url());
  const std::string blob(kMaxInlinePayload + 10, 'b');
  // Nobody refers to it yet: refused, nothing stored.
  auto early = raw.Post("/blob", blob, "application/octet-stream");
  REQUIRE(early);
  CHECK(early->status == 404);
  const std::string hex = to_hex(sha256(blob));
  CHECK(raw.Get(("/blob/" + hex).c_str())->status == 404);
  // The signed entry referencing the blob, then the blob.
  Party p(12);
  Entry e;
  e.type = MessageType::proof;
  e.payload_kind = PayloadKind::blob_reference;
  e.payload = blob_reference(as_bytes(blob));
  const Bytes wire = sign_entry(e, p.key());
  CHECK(s.board->append(wire).ok());
  auto put = raw.Post("/blob", blob, "application/octet-stream");
  REQUIRE(put);
  REQUIRE(put->status == 200);
  CHECK(put->body == hex + "\n");
  auto got = raw.Get(("/blob/" + hex).c_str());
  REQUIRE(got);
  CHECK(got->status == 200);
  CHECK(got->body == blob);
  CHECK(raw.Get(("/blob/" + std::string(64, '0')).c_str())->status == 404);
}

TEST_CASE("service: HTTPS with a pinned CA", "[bulletin][http][tls]") {
  if (std::system("command -v openssl > /dev/null 2>&1") != 0) {
    WARN("SKIP: no openssl command to make a test certificate");
    return;
  }
  TempDir dir;
  const std::string cmd = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 "
                          "-addext subjectAltName=IP:127.0.0.1 -keyout " + dir.file("key.pem") + " -out " +
                          dir.file("cert.pem") + " > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto b = LocalBoard::open(make_memory_store(), {});
  REQUIRE(b.ok());
  ServerOptions so;
  so.tls_cert = dir.file("cert.pem");
  so.tls_key = dir.file("key.pem");
  BoardServer server(*b.value(), so);
  REQUIRE(server.start().ok());
  CHECK(server.url().rfind("https://127.0.0.1:", 0) == 0);
  HttpBoardOptions opt;
  opt.url = server.url();
  opt.vkey = b.value()->vkey();
  opt.ca_cert = dir.file("cert.pem");
  auto client = HttpBoard::connect(opt);
  REQUIRE(client.ok());
  Party p(13);
  auto r = client.value()->append(p.next("over TLS"));
  if (!r) FAIL(r.error().message);
  CHECK(r.value().index == 0);
}

namespace {

// A loopback connection; `from` picks the client address within 127.0.0.0/8.
int connect_raw(int port, const char* from = nullptr) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  if (from != nullptr) {
    sockaddr_in src{};
    src.sin_family = AF_INET;
    REQUIRE(::inet_pton(AF_INET, from, &src.sin_addr) == 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) == 0);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

void send_raw(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may close first; the caller checks what it answered
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// Reads until the peer closes or `ms` pass.
std::string read_until_close(int fd, int ms) {
  std::string out;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// True when the server has closed `fd` (end of stream or reset), without waiting.
bool closed_by_server(int fd) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
  }
}

struct RawServer {
  std::unique_ptr<LocalBoard> board;
  std::unique_ptr<BoardServer> server;
  int port = 0;
  explicit RawServer(ServerOptions so, int entries = 0) {
    auto b = LocalBoard::open(make_memory_store(), {});
    REQUIRE(b.ok());
    board = std::move(b).value();
    Party p(20);
    for (int i = 0; i < entries; ++i) REQUIRE(board->append(p.next(std::string(900, 'e') + label("#", static_cast<std::uint64_t>(i)))).ok());
    server = std::make_unique<BoardServer>(*board, so);
    auto bound = server->start();
    REQUIRE(bound.ok());
    port = bound.value();
  }
};

}  // namespace

TEST_CASE("service: slow, idle and non-reading clients leave the read API answering", "[bulletin][http][slow]") {
  // 40 slow connections against 8 workers (5x): idle, a header byte at a time, a body byte at a
  // time, and pipelined tile reads whose answers are never read.
  ServerOptions so;
  so.threads = 8;
  so.header_timeout_ms = 1500;
  so.body_timeout_ms = 1000;
  so.body_min_rate = 1 << 20;
  so.write_timeout_ms = 1500;
  RawServer rs(so, 300);
  std::vector<int> idle, header_trickle, body_trickle, unread;
  for (int i = 0; i < 10; ++i) idle.push_back(connect_raw(rs.port));
  for (int i = 0; i < 10; ++i) {
    header_trickle.push_back(connect_raw(rs.port));
    send_raw(header_trickle.back(), "GET /checkpoint HTTP/1.1\r\nHost: x\r\n");
  }
  for (int i = 0; i < 10; ++i) {
    body_trickle.push_back(connect_raw(rs.port));
    send_raw(body_trickle.back(), "POST /blob HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nb");
  }
  std::string pipelined;
  for (int i = 0; i < 40; ++i) pipelined += "GET /tile/entries/000 HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 10; ++i) {
    unread.push_back(connect_raw(rs.port));
    send_raw(unread.back(), pipelined);
  }
  std::atomic<bool> stop{false};
  std::thread trickler([&] {
    while (!stop.load()) {
      for (int fd : header_trickle) send_raw(fd, "X");
      for (int fd : body_trickle) send_raw(fd, "b");
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  int answered = 0;
  const std::string url = rs.server->url();
  for (int i = 0; i < 20; ++i) {
    httplib::Client c(url);
    c.set_connection_timeout(2, 0);
    c.set_read_timeout(2, 0);
    auto cp = c.Get("/checkpoint");
    auto tile = c.Get("/tile/0/000");
    if (cp && cp->status == 200 && tile && tile->status == 200 && tile->body.size() == 256 * 32) ++answered;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(answered == 20);
  auto appended = HttpBoard::connect({rs.server->url(), rs.board->vkey(), "", "", 5});
  REQUIRE(appended.ok());
  CHECK(appended.value()->append(Party(21).next("still appending")).ok());
  // Header and body deadlines hold however steadily the bytes trickle in.
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(3500)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  stop = true;
  trickler.join();
  int closed = 0;
  for (const auto* group : {&idle, &header_trickle, &body_trickle}) {
    for (int fd : *group) closed += closed_by_server(fd) ? 1 : 0;
  }
  CHECK(closed == 30);
  for (const auto* group : {&idle, &header_trickle, &body_trickle, &unread}) {
    for (int fd : *group) ::close(fd);
  }
}

TEST_CASE("service: connections per client address and in total are bounded", "[bulletin][http][slow]") {
  ServerOptions so;
  so.threads = 4;
  so.max_per_client = 16;
  so.max_connections = 24;
  RawServer rs(so);
  std::vector<int> fds;
  for (int i = 0; i < 30; ++i) fds.push_back(connect_raw(rs.port));
  // A new client is served: the longest-waiting connections gave way.
  httplib::Client c(rs.server->url());
  c.set_read_timeout(2, 0);
  auto cp = c.Get("/checkpoint");
  REQUIRE(cp);
  CHECK(cp->status == 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int open = 0;
  for (int fd : fds) open += closed_by_server(fd) ? 0 : 1;
  CHECK(open <= 16);
  CHECK(open >= 14);
  // From a second address: that address has room, the total does not.
  std::vector<int> more;
  for (int i = 0; i < 16; ++i) more.push_back(connect_raw(rs.port, "127.0.0.2"));
  auto cp2 = c.Get("/checkpoint");
  REQUIRE(cp2);
  CHECK(cp2->status == 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int open_total = 0;
  for (int fd : fds) open_total += closed_by_server(fd) ? 0 : 1;
  for (int fd : more) open_total += closed_by_server(fd) ? 0 : 1;
  CHECK(open_total <= 24);
  CHECK(open_total >= 21);
  for (int fd : fds) ::close(fd);
  for (int fd : more) ::close(fd);
}

TEST_CASE("service: pipelined requests get one answer each, in order", "[bulletin][http]") {
  RawServer rs(ServerOptions{}, 3);
  const int fd = connect_raw(rs.port);
  send_raw(fd,
           "GET /key HTTP/1.1\r\nHost: x\r\n\r\n"
           "GET /checkpoint HTTP/1.1\r\nHost: x\r\n\r\n"
           "GET /no/such/thing HTTP/1.1\r\nHost: x\r\n\r\n"
           "GET /key HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string got = read_until_close(fd, 5000);
  ::close(fd);
  std::vector<std::string> statuses;
  for (std::size_t at = got.find("HTTP/1.1 "); at != std::string::npos; at = got.find("HTTP/1.1 ", at + 1)) {
    statuses.push_back(got.substr(at + 9, 3));
  }
  CHECK(statuses == std::vector<std::string>{"200", "200", "404", "200"});
  CHECK(got.find(rs.board->vkey() + "\n") != std::string::npos);
  // A client that shuts its sending side after its requests still gets every answer.
  const int half = connect_raw(rs.port);
  send_raw(half, "GET /key HTTP/1.1\r\nHost: x\r\n\r\nGET /checkpoint HTTP/1.1\r\nHost: x\r\n\r\n");
  ::shutdown(half, SHUT_WR);
  const std::string both = read_until_close(half, 5000);
  ::close(half);
  CHECK(both.find("HTTP/1.1 200") != std::string::npos);
  CHECK(both.find("HTTP/1.1 200", both.find("HTTP/1.1 200") + 1) != std::string::npos);
}

TEST_CASE("service: one limit on request header bytes and fields", "[bulletin][http][abuse]") {
  RawServer rs(ServerOptions{});
  auto status_of = [&](const std::string& request) {
    const int fd = connect_raw(rs.port);
    std::thread writer([&] { send_raw(fd, request); });
    const std::string got = read_until_close(fd, 5000);
    writer.join();
    ::close(fd);
    return got.size() >= 12 ? got.substr(9, 3) : std::string("none");
  };
  const std::string start = "GET /key HTTP/1.1\r\nHost: x\r\n";
  const std::string end = "Connection: close\r\n\r\n";
  std::string many;
  for (int i = 0; i < 20'000; ++i) many += "X-A: b\r\n";
  std::string under;
  for (int i = 0; i < 90; ++i) under += "X-A: b\r\n";
  CHECK(status_of(start + "X-Big: " + std::string(100'000, 'a') + "\r\n" + end) == "431");
  CHECK(status_of(start + many + end) == "431");
  std::string fields_over;
  for (int i = 0; i < 101; ++i) fields_over += "X-A: b\r\n";
  CHECK(status_of(start + fields_over + end) == "431");
  CHECK(status_of(start + under + end) == "200");
  CHECK(status_of(start + "X-Big: " + std::string(20'000, 'a') + "\r\n" + end) == "200");
  // A body over its route's limit is refused before it is read.
  CHECK(status_of("POST /add HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n" + end) == "413");
}

TEST_CASE("service: appends waiting on storage leave workers for the read API", "[bulletin][http][slow]") {
  // Storage that stalls (a slow fsync, a locked database): the first group's acknowledgement
  // waits until released, and every append waits behind it.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> first{true};
  LocalBoardOptions opt;
  opt.after_commit = [&](std::uint64_t) {
    if (first.exchange(false)) released.wait();
  };
  auto b = LocalBoard::open(make_memory_store(), opt);
  REQUIRE(b.ok());
  ServerOptions so;
  so.threads = 4;
  BoardServer server(*b.value(), so);
  REQUIRE(server.start().ok());
  std::vector<std::thread> appenders;
  std::atomic<int> acked{0};
  for (int i = 0; i < 6; ++i) {
    appenders.emplace_back([&, i] {
      httplib::Client c(server.url());
      c.set_read_timeout(20, 0);
      const Bytes e = Party(static_cast<std::uint8_t>(30 + i)).next("waits");
      auto r = c.Post("/add", std::string(e.begin(), e.end()), "application/octet-stream");
      if (r && r->status == 200) ++acked;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  httplib::Client reader(server.url());
  reader.set_read_timeout(2, 0);
  auto cp = reader.Get("/checkpoint");
  auto key = reader.Get("/key");
  CHECK((cp && cp->status == 200));
  CHECK((key && key->status == 200));
  release.set_value();
  for (auto& t : appenders) t.join();
  CHECK(acked == 6);
}

TEST_CASE("service: answers waiting to be read are bounded in bytes", "[bulletin][http][slow]") {
  ServerOptions tight;
  tight.answer_budget = 0;
  RawServer none(tight, 300);
  httplib::Client c(none.server->url());
  auto bundle = c.Get("/tile/entries/000");
  REQUIRE(bundle);
  CHECK(bundle->status == 503);
  CHECK(c.Get("/checkpoint")->status == 200);  // small answers always pass
  // An answer written out returns its share: one bundle at a time fits again and again.
  ServerOptions one;
  one.answer_budget = 300 * 1024;
  RawServer rs(one, 300);
  httplib::Client d(rs.server->url());
  for (int i = 0; i < 3; ++i) {
    auto r = d.Get("/tile/entries/000");
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->body.size() > 200 * 1024);
  }
}
