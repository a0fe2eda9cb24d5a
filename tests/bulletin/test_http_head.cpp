// The server's request-head parser (bulletin/server.cpp, detail::parse_request_head): what it
// accepts and how it refuses, including heads the socket path never produces (no final CRLF).
#include <catch2/catch.hpp>

#include "gopa/bulletin/http.hpp"
#include "http_internal.hpp"

using namespace gopa::bulletin;
using detail::HeadRefusal;
using detail::RequestHead;
using detail::parse_request_head;

namespace {
int refused(std::string_view head) {
  const auto r = parse_request_head(head);
  const auto* no = std::get_if<HeadRefusal>(&r);
  return no == nullptr ? 0 : no->status;
}
}  // namespace

TEST_CASE("request head: accepted fields", "[bulletin][http]") {
  const auto r = parse_request_head("POST /add?x=1 HTTP/1.0\r\nContent-Length:  12 \r\nConnection: Keep-Alive\r\nExpect: 100-continue\r\n");
  REQUIRE(std::holds_alternative<RequestHead>(r));
  const RequestHead& h = std::get<RequestHead>(r);
  CHECK(h.method == "POST");
  CHECK(h.path == "/add");
  CHECK(h.query == "x=1");
  CHECK(h.content_length == std::optional<std::uint64_t>{12});
  CHECK(h.keep_alive);
  CHECK(h.expect_continue);
  const auto g = parse_request_head("GET /checkpoint HTTP/1.1\r\nConnection: close\r\n");
  REQUIRE(std::holds_alternative<RequestHead>(g));
  CHECK_FALSE(std::get<RequestHead>(g).keep_alive);
  CHECK_FALSE(std::get<RequestHead>(g).content_length.has_value());
}

TEST_CASE("request head: refusals", "[bulletin][http]") {
  CHECK(refused("GET /x HTTP/1.1\r\n") == 0);
  CHECK(refused("GET /x HTTP/1.1") == 0);                 // no CRLF at all: the request line alone
  CHECK(refused("GET /x HTTP/1.1\r\nHost: a") == 0);      // a last field without its CRLF
  CHECK(refused("GET  /x HTTP/1.1\r\n") == 400);
  CHECK(refused("GET x HTTP/1.1\r\n") == 400);
  CHECK(refused("G(T /x HTTP/1.1\r\n") == 400);
  CHECK(refused("GET /x HTTP/2\r\n") == 505);
  CHECK(refused("GET /x HTTP/1.1\r\n: v\r\n") == 400);
  CHECK(refused("GET /x HTTP/1.1\r\nno colon\r\n") == 400);
  CHECK(refused("GET /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n") == 400);
  CHECK(refused("GET /x HTTP/1.1\r\nContent-Length: -1\r\n") == 400);
  CHECK(refused("GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n") == 411);
  CHECK(refused("GET /x HTTP/1.1\r\nExpect: tea\r\n") == 400);
  CHECK(refused("POST /?\r\bdd HTTP/1.1\r\n") == 400);            // a bare CR in the target
  CHECK(refused("GET /\x96 HTTP/1.1\r\n") == 400);                 // a non-ASCII target byte
  CHECK(refused("GET /x HTTP/1.1\r\nHost: a\rb\r\n") == 400);     // a bare CR in a value
  CHECK(refused("GET /x HTTP/1.1\r\nHost: a\x01\r\n") == 400);
  CHECK(refused("GET /x HTTP/1.1\r\nHost: a\tb\r\n") == 0);        // a tab is allowed
  std::string many = "GET /x HTTP/1.1\r\n";
  for (std::size_t i = 0; i <= kMaxHeaderFields; ++i) many += "A: b\r\n";
  CHECK(refused(many) == 431);
}
