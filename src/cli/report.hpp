// The --json reports of the command line (docs/cli-json.md): every report names its schema,
// "gopa-<command>/v1", and the same things go under the same names in every command (`checks`
// entries with `name`, `excluded` and `named` parties with their `excluded_offences` and
// `named_offences`, `k`, `committee`, `privacy_claim`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gopa/bulletin/audit.hpp"
#include "gopa/protocol/blame.hpp"

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

// Blamed parties: {"<index>": "<Blame::text()>", …}.
[[nodiscard]] inline nlohmann::json parties_json(const std::map<std::uint32_t, protocol::Blame>& parties) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [u, b] : parties) o[std::to_string(u)] = b.text();
  return o;
}

// Their offences: {"<index>": "<offence token>", …} (protocol::offence_name).
[[nodiscard]] inline nlohmann::json offences_json(const std::map<std::uint32_t, protocol::Blame>& parties) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [u, b] : parties) o[std::to_string(u)] = protocol::offence_name(b.offence);
  return o;
}

// `key` ("excluded" or "named": index → reason) and `key`_offences (index → offence token).
inline void put_blamed(nlohmann::json& j, const std::string& key, const std::map<std::uint32_t, protocol::Blame>& parties) {
  j[key] = parties_json(parties);
  j[key + "_offences"] = offences_json(parties);
}

}  // namespace gopa::cli
