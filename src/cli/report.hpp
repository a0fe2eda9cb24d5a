// The --json reports of the command line (docs/cli-json.md): every report names its schema,
// "gopa-<command>/v1", and the same things go under the same names in every command (`checks`
// entries with `name`, `excluded` and `named` parties, `k`, `committee`, `privacy_claim`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gopa/bulletin/audit.hpp"

namespace gopa::cli {

// An empty report of `command` ("run", "board-check", …) carrying its schema name.
[[nodiscard]] inline nlohmann::json json_report(const std::string& command) {
  nlohmann::json j = nlohmann::json::object();
  j["schema"] = "gopa-" + command + "/v1";
  return j;
}

// PASS/FAIL/SKIP checks: [{"name", "status", "detail"}, …] (an empty array when there are none).
[[nodiscard]] inline nlohmann::json checks_json(const std::vector<bulletin::CheckResult>& checks) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& c : checks) {
    a.push_back({{"name", c.name}, {"status", bulletin::check_status_name(c.status)}, {"detail", c.detail}});
  }
  return a;
}

// Parties with a reason: {"<index>": "<reason>", …} (an empty object when there are none).
[[nodiscard]] inline nlohmann::json parties_json(const std::map<std::uint32_t, std::string>& parties) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [u, why] : parties) o[std::to_string(u)] = why;
  return o;
}

}  // namespace gopa::cli
