// libFuzzer target: the board server's request-head parser (bulletin/server.cpp), which reads
// untrusted bytes from every client. Invariants: never crash or hang; an accepted head has a
// token method, a path starting with '/', no CR/LF in any part, and a Content-Length only if the
// head carries one; the server never sees more than kMaxHeaderFields fields.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gopa/bulletin/http.hpp"
#include "http_internal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace d = gopa::bulletin::detail;
  const std::string_view head(reinterpret_cast<const char*>(data), size);
  const auto parsed = d::parse_request_head(head);
  if (const auto* h = std::get_if<d::RequestHead>(&parsed)) {
    if (h->method.empty() || h->path.empty() || h->path[0] != '/') std::abort();
    for (const std::string* s : {&h->method, &h->path, &h->query}) {
      if (s->find('\r') != std::string::npos || s->find('\n') != std::string::npos) std::abort();
    }
    if (h->content_length && head.find(':') == std::string_view::npos) std::abort();
  } else {
    const auto& no = std::get<d::HeadRefusal>(parsed);
    if (no.status < 400 || no.status > 599 || no.message.empty()) std::abort();
  }
  return 0;
}
