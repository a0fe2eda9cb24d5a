// Pieces shared by the board's HTTP service (server.cpp) and its client (http.cpp).
#pragma once

#include <signal.h>

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gopa/bulletin/entry.hpp"

namespace gopa::bulletin::detail {

inline nlohmann::json hashes_json(const std::vector<Hash>& hs) {
  nlohmann::json a = nlohmann::json::array();
  for (const Hash& h : hs) a.push_back(to_base64(h));
  return a;
}

// The request line and header fields of an HTTP/1.x request, as the board's server reads them
// (server.cpp). `head` is everything before the blank line, ending with the last field's CRLF
// (or the request line's). Untrusted bytes: fuzzed by tests/bulletin/fuzz_http_head.cpp.
struct RequestHead {
  std::string method, path, query;
  bool keep_alive = true;
  std::optional<std::uint64_t> content_length;
  bool expect_continue = false;
};
struct HeadRefusal {
  int status = 400;
  Errc code = Errc::malformed;
  std::string message;
};
[[nodiscard]] std::variant<RequestHead, HeadRefusal> parse_request_head(std::string_view head);

// A peer that closes its socket must surface as a write error, not kill the process with SIGPIPE.
inline void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace gopa::bulletin::detail
