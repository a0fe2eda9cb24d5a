// Pieces shared by the board's HTTP service (server.cpp) and its client (http.cpp).
#pragma once

#include <signal.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "gopa/bulletin/entry.hpp"

namespace gopa::bulletin::detail {

inline nlohmann::json hashes_json(const std::vector<Hash>& hs) {
  nlohmann::json a = nlohmann::json::array();
  for (const Hash& h : hs) a.push_back(to_base64(h));
  return a;
}

// A peer that closes its socket must surface as a write error, not kill the process with SIGPIPE.
inline void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace gopa::bulletin::detail
