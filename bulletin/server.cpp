// The board's HTTP/1.1 service (docs/board.md §5). One event thread accepts, reads and writes every
// connection without blocking (epoll, plain or TLS); only complete requests reach the workers, so a
// client that is idle, sends slowly or never reads its answers holds a buffer, not a thread.
// Requests on one connection are answered in order, one at a time (pipelining).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "gopa/bulletin/http.hpp"
#include "http_internal.hpp"

namespace gopa::bulletin {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
using detail::hashes_json;

constexpr std::size_t kMaxSmallBody = 64 * 1024;  // POST /cosign and any other body
constexpr std::uint64_t kListenTag = 0;
constexpr std::uint64_t kWakeTag = 1;

struct HttpRequest {
  std::string method;
  std::string path;
  std::string query;
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string cache_control;
  std::string body;
};

int http_status(Errc code) {
  switch (code) {
    case Errc::malformed:
    case Errc::non_canonical:
    case Errc::bad_signature:
    case Errc::unknown_type:
    case Errc::invalid_argument:
    case Errc::bad_proof: return 400;
    case Errc::too_large: return 413;
    case Errc::equivocation: return 409;
    case Errc::not_found: return 404;
    case Errc::io:
    case Errc::timeout: return 503;
    case Errc::fork:
    case Errc::corrupted:
    case Errc::stale_database: return 500;
  }
  return 500;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

HttpResponse error_response(const Error& e) {
  HttpResponse r;
  r.status = http_status(e.code);
  r.body = std::string(errc_name(e.code)) + ": " + e.message + "\n";
  return r;
}

HttpResponse error_response(int status, Errc code, const std::string& message) {
  HttpResponse r = error_response(Error{code, message});
  r.status = status;
  return r;
}

// The value of `name` in an application/x-www-form-urlencoded query (no decoding: every value the
// board reads is a decimal).
std::optional<std::string_view> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> query_u64(std::string_view query, std::string_view name) {
  auto v = query_param(query, name);
  if (!v) return std::nullopt;
  return parse_decimal_u64(*v);
}

bool is_read_route(const HttpRequest& r) {
  return (r.method == "GET" || r.method == "HEAD") &&
         (r.path == "/checkpoint" || r.path == "/key" || r.path.starts_with("/tile/"));
}

std::size_t body_limit(const std::string& method, const std::string& path) {
  if (method == "POST" && path == "/add") return kMaxEntrySize;
  if (method == "POST" && path == "/blob") return kMaxBlobSize;
  return kMaxSmallBody;
}

HttpResponse bytes_response(const Bytes& b, bool immutable) {
  HttpResponse r;
  r.content_type = "application/octet-stream";
  if (immutable) r.cache_control = "public, max-age=31536000, immutable";
  r.body.assign(b.begin(), b.end());
  return r;
}

HttpResponse json_response(const json& j) {
  HttpResponse r;
  r.content_type = "application/json";
  r.body = j.dump();
  return r;
}

HttpResponse route(LocalBoard& board, const HttpRequest& req) {
  const bool get = req.method == "GET" || req.method == "HEAD";
  const bool post = req.method == "POST";
  const std::string& p = req.path;
  auto wrong_method = [] { return error_response(405, Errc::invalid_argument, "method not allowed here"); };
  if (p == "/checkpoint") {
    if (!get) return wrong_method();
    auto note = board.cosigned_checkpoint();
    if (!note) return error_response(note.error());
    HttpResponse r;
    r.cache_control = "no-cache";
    r.body = std::move(note).value();
    return r;
  }
  if (p == "/key") {
    if (!get) return wrong_method();
    HttpResponse r;
    r.body = board.vkey() + "\n";
    return r;
  }
  if (p.starts_with("/tile/")) {
    if (!get) return wrong_method();
    std::string_view rest = std::string_view(p).substr(6);
    if (rest.starts_with("entries/")) {
      auto idx = parse_tile_index_path(rest.substr(8));
      if (!idx) return error_response(Error{Errc::not_found, idx.error().message});
      auto bundle = board.entry_bundle(idx.value().first, idx.value().second);
      if (!bundle) return error_response(bundle.error());
      return bytes_response(bundle.value(), true);
    }
    // <L> is 0..63 without leading zeros.
    const auto slash = rest.find('/');
    const std::string_view level_text = rest.substr(0, slash);
    const auto level = parse_decimal_u64(level_text);
    if (slash == std::string_view::npos || !level || *level > 63) return error_response(Error{Errc::not_found, "not a tile path"});
    auto idx = parse_tile_index_path(rest.substr(slash + 1));
    if (!idx) return error_response(Error{Errc::not_found, "not a tile path"});
    auto tile = board.tile(static_cast<unsigned>(*level), idx.value().first, idx.value().second);
    if (!tile) return error_response(tile.error());
    return bytes_response(tile.value(), true);
  }
  if (p == "/add") {
    if (!post) return wrong_method();
    auto r = board.append(as_bytes(req.body));
    if (!r) return error_response(r.error());
    return json_response(json{{"index", r.value().index},
                              {"duplicate", r.value().duplicate},
                              {"proof", hashes_json(r.value().proof)},
                              {"checkpoint", r.value().checkpoint}});
  }
  if (p == "/proof/inclusion") {
    if (!get) return wrong_method();
    const auto index = query_u64(req.query, "index");
    const auto size = query_u64(req.query, "size");
    if (!index || !size) return error_response(Error{Errc::invalid_argument, "need decimal index and size"});
    auto proof = board.inclusion_proof(*index, *size);
    if (!proof) return error_response(proof.error());
    return json_response(json{{"proof", hashes_json(proof.value())}});
  }
  if (p == "/proof/consistency") {
    if (!get) return wrong_method();
    const auto a = query_u64(req.query, "size1");
    const auto b = query_u64(req.query, "size2");
    if (!a || !b) return error_response(Error{Errc::invalid_argument, "need decimal size1 and size2"});
    auto proof = board.consistency_proof(*a, *b);
    if (!proof) return error_response(proof.error());
    return json_response(json{{"proof", hashes_json(proof.value())}});
  }
  if (p == "/cosign") {
    if (!post) return wrong_method();
    const json j = json::parse(req.body, nullptr, false);
    if (!j.is_object() || !j.contains("size") || !j["size"].is_number_unsigned() || !j.contains("vkey") ||
        !j["vkey"].is_string() || !j.contains("line") || !j["line"].is_string()) {
      return error_response(Error{Errc::malformed, "cosign body must be {size, vkey, line}"});
    }
    // The line is parsed as the signature part of a note.
    auto note = parse_note("x\n\n" + j["line"].get<std::string>() + "\n");
    if (!note || note.value().signatures.size() != 1) {
      return error_response(Error{Errc::malformed, "line is not one note signature line"});
    }
    Status st = board.add_cosignature(j["size"].get<std::uint64_t>(), j["vkey"].get<std::string>(),
                                      note.value().signatures[0]);
    if (!st) return error_response(st.error());
    return json_response(json::object());
  }
  if (p == "/blob") {
    if (!post) return wrong_method();
    Status st = board.put_blob(as_bytes(req.body));
    if (!st) return error_response(st.error());
    HttpResponse r;
    r.body = to_hex(sha256(req.body)) + "\n";
    return r;
  }
  if (p.starts_with("/blob/")) {
    if (!get) return wrong_method();
    const std::string hex = p.substr(6);
    const bool lower_hex = hex.size() == 64 && hex.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!lower_hex) return error_response(Error{Errc::not_found, "not a blob path"});
    auto h = from_hex(hex);
    Hash hash{};
    std::copy(h->begin(), h->end(), hash.begin());
    auto b = board.get_blob(hash);
    if (!b) return error_response(b.error());
    return bytes_response(b.value(), false);
  }
  if (p == "/equivocations") {
    if (!get) return wrong_method();
    auto ev = board.equivocations();
    if (!ev) return error_response(ev.error());
    json a = json::array();
    for (const auto& e : ev.value()) {
      a.push_back({{"existing_index", e.existing_index}, {"conflicting", to_base64(e.conflicting)},
                   {"received_unix", e.received_unix}});
    }
    return json_response(a);
  }
  return error_response(Error{Errc::not_found, "no such resource"});
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

}  // namespace

namespace detail {

std::variant<RequestHead, HeadRefusal> parse_request_head(std::string_view head) {
  const auto line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return HeadRefusal{400, Errc::malformed, "malformed request line"};
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  // The target is visible ASCII only (RFC 9112 §3.2): no bare CR, control or non-ASCII byte.
  const auto visible = [](char ch) { return static_cast<unsigned char>(ch) > 0x20 && static_cast<unsigned char>(ch) < 0x7f; };
  if (method.empty() || !std::all_of(method.begin(), method.end(), is_token_char) || target.empty() || target[0] != '/' ||
      !std::all_of(target.begin(), target.end(), visible)) {
    return HeadRefusal{400, Errc::malformed, "malformed request line"};
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return HeadRefusal{505, Errc::invalid_argument, "only HTTP/1.0 and HTTP/1.1"};
  }
  bool keep_alive = version == "HTTP/1.1";
  std::optional<std::uint64_t> content_length;
  bool expect_continue = false;
  std::size_t fields = 0;
  std::size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    auto e = head.find("\r\n", pos);
    if (e == std::string_view::npos) e = head.size();  // a last field without its CRLF
    const std::string_view f = head.substr(pos, e - pos);
    pos = e + 2;
    if (++fields > kMaxHeaderFields) {
      return HeadRefusal{431, Errc::too_large, "more than " + std::to_string(kMaxHeaderFields) + " header fields"};
    }
    const auto colon = f.find(':');
    if (colon == 0 || colon == std::string_view::npos ||
        !std::all_of(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(colon), is_token_char)) {
      return HeadRefusal{400, Errc::malformed, "malformed header field"};
    }
    const std::string name = lower(f.substr(0, colon));
    std::string_view value = f.substr(colon + 1);
    // A bare CR, NUL or other control byte in a field value is refused (RFC 9112 §2.2, §5.5).
    if (std::any_of(value.begin(), value.end(), [](char ch) {
          const auto b = static_cast<unsigned char>(ch);
          return (b < 0x20 && b != '\t') || b == 0x7f;
        })) {
      return HeadRefusal{400, Errc::malformed, "control character in a header field"};
    }
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (name == "content-length") {
      const auto v = parse_decimal_u64(value);
      if (!v || (content_length && *content_length != *v)) {
        return HeadRefusal{400, Errc::malformed, "bad Content-Length"};
      }
      content_length = v;
    } else if (name == "transfer-encoding") {
      return HeadRefusal{411, Errc::invalid_argument, "request bodies need a Content-Length (no Transfer-Encoding)"};
    } else if (name == "connection") {
      const std::string v = lower(value);
      if (v.find("close") != std::string::npos) keep_alive = false;
      if (v.find("keep-alive") != std::string::npos && version == "HTTP/1.0") keep_alive = true;
    } else if (name == "expect") {
      if (lower(value) != "100-continue") {
        return HeadRefusal{400, Errc::invalid_argument, "unsupported Expect"};
      }
      expect_continue = true;
    }
  }
  RequestHead out;
  out.method = std::string(method);
  const auto q = target.find('?');
  out.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) out.query = std::string(target.substr(q + 1));
  out.keep_alive = keep_alive;
  out.content_length = content_length;
  out.expect_continue = expect_continue;
  return out;
}

}  // namespace detail

Result<int> bind_listener(const std::string& host, int port) {
  if (port < 0 || port > 65535) return make_error(Errc::invalid_argument, "port out of range");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &res); rc != 0) {
    return make_error(Errc::invalid_argument, "cannot resolve " + host + ": " + ::gai_strerror(rc));
  }
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd < 0) return make_error(Errc::io, "cannot listen on " + host + ":" + service + ": " + why);
  return fd;
}

struct BoardServer::Impl {
  // linger: the last answer is written and the write side shut; input is read and dropped until
  // the client closes (or a short deadline), so the answer is not lost to a reset.
  enum class State { header, body, dispatched, linger };

  struct Conn {
    std::uint64_t id = 0;
    int fd = -1;
    SSL* ssl = nullptr;
    std::string peer;
    State state = State::header;
    std::string in;
    std::string out;
    std::size_t out_off = 0;
    bool answer_pending = false;  // a final answer is in `out`: read nothing until it is written
    bool close_after = false;
    bool dead = false;
    bool first_request = true;
    bool request_started = false;
    bool keep_alive = true;
    bool peer_eof = false;    // the client shut its sending side: answer what it sent, then close
    bool want_read = false;   // TLS: the last operation needs the socket readable
    bool want_write = false;  // TLS: the last operation needs the socket writable
    std::uint32_t events = 0;
    HttpRequest req;
    std::size_t body_len = 0;
    std::size_t reserved = 0;  // bytes of body_budget held by the current request
    std::size_t charged = 0;   // bytes of answer_budget held by the answer in `out`
    Clock::time_point deadline{};
    Clock::time_point last_progress{};
  };

  struct Task {
    std::uint64_t conn = 0;
    HttpRequest req;
    bool head = false;
    bool keep_alive = true;
    std::size_t reserved = 0;
  };

  struct Done {
    std::uint64_t conn = 0;
    HttpResponse res;
    bool head = false;
    bool keep_alive = true;
    std::size_t reserved = 0;
  };

  Impl(LocalBoard& b, const ServerOptions& o) : board(b), opt(o) {}

  ~Impl() {
    for (auto& [id, c] : conns) release(*c);
    if (listen_fd >= 0) ::close(listen_fd);
    if (epoll_fd >= 0) ::close(epoll_fd);
    if (wake_fd >= 0) ::close(wake_fd);
    if (ctx != nullptr) SSL_CTX_free(ctx);
  }

  LocalBoard& board;
  ServerOptions opt;
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  SSL_CTX* ctx = nullptr;
  std::thread io;
  std::vector<std::thread> workers;
  std::atomic<bool> stopping{false};

  // Event thread only.
  std::unordered_map<std::uint64_t, std::unique_ptr<Conn>> conns;
  std::unordered_map<std::string, std::size_t> per_peer;
  std::uint64_t next_id = 2;
  std::size_t body_in_use = 0;
  std::size_t answers_in_use = 0;
  bool accept_paused = false;
  Clock::time_point resume_accepting_at{};

  // Workers and the event thread.
  std::mutex q_mu;
  std::condition_variable q_cv;
  std::deque<Task> reads;   // the read API: any worker
  std::deque<Task> others;  // everything else: all workers but the reserve
  std::size_t others_running = 0;
  std::size_t others_limit = 1;
  bool q_stop = false;
  std::mutex done_mu;
  std::vector<Done> done;

  Status start() {
    epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd < 0 || wake_fd < 0) return make_error(Errc::io, "cannot create the event loop");
    set_nonblocking(listen_fd);
    // Connections must fit the descriptor limit, with room for the database and the loop.
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
      const std::size_t room = lim.rlim_cur > 96 ? static_cast<std::size_t>(lim.rlim_cur) - 64 : 32;
      opt.max_connections = std::min(opt.max_connections, room);
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenTag;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev) != 0) return make_error(Errc::io, "epoll_ctl");
    ev.data.u64 = kWakeTag;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev) != 0) return make_error(Errc::io, "epoll_ctl");
    const auto n = static_cast<std::size_t>(opt.threads);
    const std::size_t reserve = n >= 2 ? std::max<std::size_t>(1, n / 4) : 0;
    others_limit = n - reserve;
    for (std::size_t i = 0; i < n; ++i) workers.emplace_back([this] { worker_loop(); });
    io = std::thread([this] { event_loop(); });
    return {};
  }

  void stop() {
    stopping = true;
    wake();
    if (io.joinable()) io.join();
    {
      std::lock_guard lk(q_mu);
      q_stop = true;
    }
    q_cv.notify_all();
    for (auto& t : workers) {
      if (t.joinable()) t.join();
    }
    workers.clear();
  }

  void wake() {
    const std::uint64_t one = 1;
    (void)!::write(wake_fd, &one, sizeof one);
  }

  // ---------------------------------------------------------------- workers

  void worker_loop() {
    for (;;) {
      Task t;
      bool other = false;
      {
        std::unique_lock lk(q_mu);
        q_cv.wait(lk, [&] { return q_stop || !reads.empty() || (!others.empty() && others_running < others_limit); });
        if (q_stop) return;
        if (!reads.empty()) {
          t = std::move(reads.front());
          reads.pop_front();
        } else {
          t = std::move(others.front());
          others.pop_front();
          ++others_running;
          other = true;
        }
      }
      HttpResponse res;
      try {
        res = route(board, t.req);
      } catch (const std::exception& e) {
        res = error_response(500, Errc::io, std::string("internal error: ") + e.what());
      }
      Done d{t.conn, std::move(res), t.head, t.keep_alive, t.reserved};
      {
        std::lock_guard lk(done_mu);
        done.push_back(std::move(d));
      }
      wake();
      if (other) {
        // This worker looks at the queues again itself; another one is woken only if a task it
        // leaves behind could run now (waking every worker per request costs more than the work).
        std::unique_lock lk(q_mu);
        --others_running;
        const bool more = !others.empty() && others_running < others_limit && !reads.empty();
        lk.unlock();
        if (more) q_cv.notify_one();
      }
    }
  }

  // ---------------------------------------------------------------- event thread

  void event_loop() {
    std::array<epoll_event, 256> evs{};
    auto last_sweep = Clock::now();
    while (!stopping.load()) {
      const int n = ::epoll_wait(epoll_fd, evs.data(), static_cast<int>(evs.size()), 100);
      for (int i = 0; i < n; ++i) {
        const std::uint64_t tag = evs[static_cast<std::size_t>(i)].data.u64;
        if (tag == kListenTag) {
          accept_all();
        } else if (tag == kWakeTag) {
          std::uint64_t v = 0;
          (void)!::read(wake_fd, &v, sizeof v);
          finish_done();
        } else if (auto it = conns.find(tag); it != conns.end()) {
          on_event(*it->second, evs[static_cast<std::size_t>(i)].events);
          reap(tag);
        }
      }
      const auto now = Clock::now();
      if (now - last_sweep >= std::chrono::milliseconds(100)) {
        last_sweep = now;
        sweep(now);
      }
    }
    std::vector<std::uint64_t> ids;
    for (auto& [id, c] : conns) ids.push_back(id);
    for (auto id : ids) {
      conns[id]->dead = true;
      reap(id);
    }
  }

  void accept_all() {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          // Out of descriptors: a waiting connection gives way; if none can, accepting pauses
          // (the listening socket would otherwise wake the loop without end).
          if (evict(nullptr)) continue;
          pause_accepting();
        }
        return;
      }
      char host[INET6_ADDRSTRLEN] = "?";
      if (addr.ss_family == AF_INET) {
        ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, host, sizeof host);
      } else if (addr.ss_family == AF_INET6) {
        ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, host, sizeof host);
      }
      const std::string peer = host;
      // At a limit, the connection of that client (or of anyone, for the total) that has made
      // no progress for the longest time gives way; if every one is being served, the new one does.
      if (conns.size() >= opt.max_connections && !evict(nullptr)) {
        ::close(fd);
        continue;
      }
      if (per_peer[peer] >= opt.max_per_client && !evict(&peer)) {
        ::close(fd);
        continue;
      }
      const int one = 1;
      (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_unique<Conn>();
      c->id = next_id++;
      c->fd = fd;
      c->peer = peer;
      const auto now = Clock::now();
      c->last_progress = now;
      c->deadline = now + std::chrono::milliseconds(opt.header_timeout_ms);
      if (ctx != nullptr) {
        c->ssl = SSL_new(ctx);
        if (c->ssl == nullptr || SSL_set_fd(c->ssl, fd) != 1) {
          if (c->ssl != nullptr) SSL_free(c->ssl);
          ::close(fd);
          continue;
        }
        SSL_set_accept_state(c->ssl);
        SSL_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
      }
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = c->id;
      c->events = EPOLLIN;
      if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        if (c->ssl != nullptr) SSL_free(c->ssl);
        ::close(fd);
        continue;
      }
      ++per_peer[peer];
      conns.emplace(c->id, std::move(c));
    }
  }

  void pause_accepting() {
    if (accept_paused) return;
    (void)::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
    accept_paused = true;
    resume_accepting_at = Clock::now() + std::chrono::milliseconds(100);
  }

  void resume_accepting() {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenTag;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev) == 0) accept_paused = false;
  }

  bool evict(const std::string* peer) {
    Conn* victim = nullptr;
    for (auto& [id, c] : conns) {
      if (c->dead || c->state == State::dispatched) continue;
      if (peer != nullptr && c->peer != *peer) continue;
      if (victim == nullptr || c->last_progress < victim->last_progress) victim = c.get();
    }
    if (victim == nullptr) return false;
    victim->dead = true;
    reap(victim->id);
    return true;
  }

  void release(Conn& c) {
    if (c.ssl != nullptr) SSL_free(c.ssl);
    c.ssl = nullptr;
    if (c.fd >= 0) ::close(c.fd);
    c.fd = -1;
  }

  // Destroys a connection marked dead. A request it left with a worker is answered into the void
  // (finish_done finds no connection) and its body budget is returned then.
  void reap(std::uint64_t id) {
    auto it = conns.find(id);
    if (it == conns.end() || !it->second->dead) return;
    Conn& c = *it->second;
    body_in_use -= c.reserved;  // a dispatched request's share is returned by finish_done
    answers_in_use -= c.charged;
    (void)::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
    release(c);
    if (auto p = per_peer.find(c.peer); p != per_peer.end() && --p->second == 0) per_peer.erase(p);
    conns.erase(it);
  }

  void sweep(Clock::time_point now) {
    if (accept_paused && now >= resume_accepting_at) resume_accepting();
    std::vector<std::uint64_t> expired;
    for (auto& [id, c] : conns) {
      if (c->out_off < c->out.size()) {
        if (now - c->last_progress > std::chrono::milliseconds(opt.write_timeout_ms)) expired.push_back(id);
      } else if (c->state != State::dispatched && now > c->deadline) {
        expired.push_back(id);
      }
    }
    for (auto id : expired) {
      conns[id]->dead = true;
      reap(id);
    }
  }

  // --------------------------------------------------------------- transport

  // > 0 bytes, 0 end of stream, -1 would block, -2 error.
  ssize_t read_some(Conn& c, char* buf, std::size_t n) {
    if (c.ssl == nullptr) {
      const ssize_t r = ::recv(c.fd, buf, n, 0);
      if (r >= 0) return r;
      return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? -1 : -2;
    }
    ERR_clear_error();
    const int r = SSL_read(c.ssl, buf, static_cast<int>(n));
    c.want_read = c.want_write = false;
    if (r > 0) return r;
    switch (SSL_get_error(c.ssl, r)) {
      case SSL_ERROR_WANT_READ: c.want_read = true; return -1;
      case SSL_ERROR_WANT_WRITE: c.want_write = true; return -1;
      case SSL_ERROR_ZERO_RETURN: return 0;
      default: return -2;
    }
  }

  ssize_t write_some(Conn& c, const char* buf, std::size_t n) {
    if (c.ssl == nullptr) {
      const ssize_t r = ::send(c.fd, buf, n, MSG_NOSIGNAL);
      if (r >= 0) return r;
      return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? -1 : -2;
    }
    ERR_clear_error();
    const int r = SSL_write(c.ssl, buf, static_cast<int>(std::min<std::size_t>(n, 1 << 20)));
    c.want_read = c.want_write = false;
    if (r > 0) return r;
    switch (SSL_get_error(c.ssl, r)) {
      case SSL_ERROR_WANT_READ: c.want_read = true; return -1;
      case SSL_ERROR_WANT_WRITE: c.want_write = true; return -1;
      default: return -2;
    }
  }

  void update_interest(Conn& c) {
    if (c.dead) return;
    const bool pending_out = c.out_off < c.out.size();
    const bool reading = !c.answer_pending && c.state != State::dispatched && !c.peer_eof;
    std::uint32_t ev = 0;
    if (reading || c.want_read) ev |= EPOLLIN;
    if (pending_out || c.want_write) ev |= EPOLLOUT;
    if (ev == c.events) return;
    epoll_event e{};
    e.events = ev;
    e.data.u64 = c.id;
    (void)::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &e);
    c.events = ev;
  }

  // ------------------------------------------------------------------ HTTP

  void on_event(Conn& c, std::uint32_t events) {
    // Both directions closed (or reset): nothing can be answered.
    if ((events & (EPOLLERR | EPOLLHUP)) != 0) {
      c.dead = true;
      return;
    }
    if (c.out_off < c.out.size()) flush(c);
    // Reads also resume on EPOLLOUT: a TLS read may have needed the socket writable.
    if (!c.dead) on_readable(c);
    update_interest(c);
  }

  void flush(Conn& c) {
    while (c.out_off < c.out.size()) {
      const ssize_t n = write_some(c, c.out.data() + c.out_off, c.out.size() - c.out_off);
      if (n == -1) return;
      if (n < 0) {
        c.dead = true;
        return;
      }
      c.out_off += static_cast<std::size_t>(n);
      c.last_progress = Clock::now();
    }
    c.out.clear();
    c.out_off = 0;
    answers_in_use -= c.charged;
    c.charged = 0;
    if (!c.answer_pending) return;
    // The answer is out: the next request may be read (and may already be buffered).
    c.answer_pending = false;
    if (c.close_after) {
      if (c.ssl != nullptr) (void)SSL_shutdown(c.ssl);
      ::shutdown(c.fd, SHUT_WR);
      c.state = State::linger;
      c.in.clear();
      c.deadline = Clock::now() + std::chrono::seconds(2);
      on_readable(c);
      return;
    }
    c.state = State::header;
    c.first_request = false;
    c.request_started = !c.in.empty();
    c.deadline = Clock::now() + std::chrono::milliseconds(c.request_started ? opt.header_timeout_ms : opt.idle_timeout_ms);
    on_readable(c);
  }

  std::size_t read_limit(const Conn& c) const {
    if (c.state == State::body) return c.body_len + kMaxHeaderBytes;
    return kMaxHeaderBytes + 1;
  }

  void on_readable(Conn& c) {
    if (c.state == State::linger) {
      char buf[16384];
      for (;;) {
        const ssize_t n = c.ssl != nullptr ? ::recv(c.fd, buf, sizeof buf, 0) : read_some(c, buf, sizeof buf);
        if (n == -1 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) return;
        if (n <= 0) {
          c.dead = true;
          return;
        }
      }
    }
    for (;;) {
      if (c.dead || c.answer_pending || c.state == State::dispatched || c.state == State::linger) return;
      const std::size_t limit = read_limit(c);
      bool blocked = false;
      while (!c.peer_eof && c.in.size() < limit) {
        char buf[16384];
        const ssize_t n = read_some(c, buf, std::min(sizeof buf, limit - c.in.size()));
        if (n > 0) {
          if (!c.request_started) {
            c.request_started = true;
            const auto by = Clock::now() + std::chrono::milliseconds(opt.header_timeout_ms);
            if (!c.first_request) c.deadline = by;
          }
          c.in.append(buf, static_cast<std::size_t>(n));
          c.last_progress = Clock::now();
        } else if (n == -1) {
          blocked = true;
          break;
        } else if (n == 0) {
          c.peer_eof = true;
        } else {
          c.dead = true;
          return;
        }
      }
      const State before = c.state;
      const std::size_t had = c.in.size();
      parse(c);
      if (c.peer_eof) {
        // Nothing more will come: once no complete request is left to answer, close.
        if (!c.dead && !c.answer_pending && c.state != State::dispatched && c.state != State::linger) c.dead = true;
        return;
      }
      if (blocked) return;
      // Limit reached: go on only if parsing consumed input or moved on.
      if (c.state == before && c.in.size() == had) return;
    }
  }

  void answer(Conn& c, const HttpResponse& res, bool head, bool keep_alive) {
    std::string out = "HTTP/1.1 " + std::to_string(res.status) + " " + reason_phrase(res.status) + "\r\n";
    out += "Content-Type: " + res.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(res.body.size()) + "\r\n";
    if (!res.cache_control.empty()) out += "Cache-Control: " + res.cache_control + "\r\n";
    if (!keep_alive) out += "Connection: close\r\n";
    out += "\r\n";
    if (!head) out += res.body;
    c.charged += out.size();
    answers_in_use += out.size();
    c.out += out;
    c.answer_pending = true;
    c.close_after = !keep_alive;
    c.state = State::header;
    flush(c);
  }

  // A protocol error: answered, then the connection is closed (its input cannot be trusted to
  // frame another request).
  void refuse(Conn& c, int status, Errc code, const std::string& message) {
    body_in_use -= c.reserved;
    c.reserved = 0;
    c.in.clear();
    answer(c, error_response(status, code, message), false, false);
  }

  void parse(Conn& c) {
    if (c.state == State::header) {
      const auto end = c.in.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (c.in.size() > kMaxHeaderBytes) {
          refuse(c, 431, Errc::too_large, "request header over " + std::to_string(kMaxHeaderBytes) + " bytes");
        }
        return;
      }
      if (end + 4 > kMaxHeaderBytes) {
        refuse(c, 431, Errc::too_large, "request header over " + std::to_string(kMaxHeaderBytes) + " bytes");
        return;
      }
      if (!parse_header(c, std::string_view(c.in).substr(0, end + 2))) return;
      c.in.erase(0, end + 4);
      c.state = State::body;
      const auto now = Clock::now();
      c.deadline = now + std::chrono::milliseconds(opt.body_timeout_ms) +
                   std::chrono::seconds(c.body_len / std::max<std::size_t>(1, opt.body_min_rate));
    }
    if (c.state == State::body && c.in.size() >= c.body_len) {
      c.req.body = c.in.substr(0, c.body_len);
      c.in.erase(0, c.body_len);
      dispatch(c);
    }
  }

  // Parses the request line and fields (`head` ends with the last field's CRLF). On a violation
  // the request is refused and false returned.
  bool parse_header(Conn& c, std::string_view head) {
    auto parsed = detail::parse_request_head(head);
    if (auto* no = std::get_if<detail::HeadRefusal>(&parsed)) {
      refuse(c, no->status, no->code, no->message);
      return false;
    }
    const detail::RequestHead& h = std::get<detail::RequestHead>(parsed);
    const std::optional<std::uint64_t> content_length = h.content_length;
    const bool expect_continue = h.expect_continue;
    c.req = HttpRequest{};
    c.req.method = h.method;
    c.req.path = h.path;
    c.req.query = h.query;
    c.keep_alive = h.keep_alive;
    c.body_len = static_cast<std::size_t>(content_length.value_or(0));
    if (content_length && *content_length > body_limit(c.req.method, c.req.path)) {
      refuse(c, 413, Errc::too_large, "request body over " + std::to_string(body_limit(c.req.method, c.req.path)) + " bytes");
      return false;
    }
    if (c.body_len > 0) {
      if (body_in_use + c.body_len > opt.body_budget) {
        refuse(c, 503, Errc::io, "too many request bodies in flight; retry");
        return false;
      }
      body_in_use += c.body_len;
      c.reserved = c.body_len;
      const std::size_t buffered = c.in.size() - head.size() - 2;
      if (expect_continue && buffered < c.body_len) {
        c.out += "HTTP/1.1 100 Continue\r\n\r\n";
        flush(c);
      }
    }
    return true;
  }

  void dispatch(Conn& c) {
    c.state = State::dispatched;
    const bool head = c.req.method == "HEAD";
    Task t{c.id, std::move(c.req), head, c.keep_alive, c.reserved};
    c.reserved = 0;  // now held by the task
    const bool read = is_read_route(t.req);
    {
      std::lock_guard lk(q_mu);
      (read ? reads : others).push_back(std::move(t));
    }
    q_cv.notify_one();
  }

  void finish_done() {
    std::vector<Done> ready;
    {
      std::lock_guard lk(done_mu);
      ready.swap(done);
    }
    for (Done& d : ready) {
      body_in_use -= d.reserved;
      auto it = conns.find(d.conn);
      if (it == conns.end()) continue;
      Conn& c = *it->second;
      c.req = HttpRequest{};
      // Answers waiting for slow readers are bounded: a large one beyond the budget is refused.
      if (!d.head && d.res.body.size() > kMaxSmallBody && answers_in_use + d.res.body.size() > opt.answer_budget) {
        d.res = error_response(503, Errc::io, "too many answers waiting to be read; retry");
      }
      answer(c, d.res, d.head, d.keep_alive && !stopping.load());
      update_interest(c);
      reap(d.conn);
    }
  }
};

BoardServer::BoardServer(LocalBoard& board, ServerOptions options) : board_(board), options_(std::move(options)) {}

BoardServer::~BoardServer() { stop(); }

std::string BoardServer::url() const {
  const bool tls = !options_.tls_cert.empty();
  return std::string(tls ? "https://" : "http://") + options_.host + ":" + std::to_string(port_);
}

Result<int> BoardServer::start() {
  GOPA_CHECK(!impl_, "BoardServer::start called twice");
  // A given listening socket is the server's from here on, closed on every failure.
  auto refuse = [&](Error e) -> Result<int> {
    if (options_.listen_fd >= 0) ::close(options_.listen_fd);
    return e;
  };
  if (options_.threads < 1 || options_.threads > kMaxServerThreads) {
    return refuse(Error{Errc::invalid_argument, "threads must be between 1 and " + std::to_string(kMaxServerThreads)});
  }
  if (options_.max_connections == 0 || options_.max_per_client == 0) {
    return refuse(Error{Errc::invalid_argument, "connection limits must be positive"});
  }
  detail::ignore_sigpipe();
  auto impl = std::make_unique<Impl>(board_, options_);
  if (!options_.tls_cert.empty() || !options_.tls_key.empty()) {
    impl->ctx = SSL_CTX_new(TLS_server_method());
    if (impl->ctx == nullptr || SSL_CTX_set_min_proto_version(impl->ctx, TLS1_2_VERSION) != 1 ||
        SSL_CTX_use_certificate_chain_file(impl->ctx, options_.tls_cert.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(impl->ctx, options_.tls_key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(impl->ctx) != 1) {
      return refuse(Error{Errc::invalid_argument, "cannot load the TLS certificate or key"});
    }
  }
  if (options_.listen_fd >= 0) {
    impl->listen_fd = options_.listen_fd;
  } else {
    auto fd = bind_listener(options_.host, options_.port);
    if (!fd) return fd.error();
    impl->listen_fd = fd.value();
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(impl->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return make_error(Errc::io, "getsockname failed");
  }
  port_ = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  if (Status st = impl->start(); !st) {
    impl->stop();
    return st.error();
  }
  impl_ = std::move(impl);
  return port_;
}

void BoardServer::stop() {
  if (impl_) {
    impl_->stop();
    impl_.reset();
  }
}

}  // namespace gopa::bulletin
