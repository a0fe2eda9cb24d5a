// The auditor: re-verifies a session from its board.
#include "run_internal.hpp"

namespace gopa::protocol {

using namespace detail;

bool AuditReport::all_passed() const {
  return log_ok && std::none_of(checks.begin(), checks.end(), [](const AuditCheck& c) { return c.status == CheckStatus::fail; });
}

namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

// Which inputs the board makes computable. For a set S of parties whose masked values are all on
// the board (in time or not) and whose every edge leaving S has a public seed, Σ_{u∈S} (x_u + η_u)
// follows; the smallest such sets are the components of the graph of hidden edges, and with a
// released result over C, K \ C for a component K ⊇ C. A single party's x_u + η_u computable is a
// failure, except for an excluded party that posted its masked value in time anyway (no honest
// party does: masked_refusal).
AuditCheck exposure_check(const View& v, const Graph& g, const Verdict& verdict, std::vector<std::uint32_t>& exposed_out) {
  const SessionParams& p = v.setup->params;
  std::set<Edge> public_edges;
  for (const auto& c : v.public_reveals) {
    if (revealed_secret(v, c)) public_edges.insert({c.lo, c.hi});
  }
  std::vector<std::uint32_t> parent(p.parties);
  for (std::uint32_t u = 0; u < p.parties; ++u) parent[u] = u;
  auto find = [&](std::uint32_t u) {
    while (parent[u] != u) u = parent[u] = parent[parent[u]];
    return u;
  };
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    for (auto w : effective_neighbours(g, verdict.dropped, u)) {
      if (w > u && !public_edges.count(edge_of(u, w))) parent[find(u)] = find(w);
    }
  }
  std::map<std::uint32_t, std::vector<std::uint32_t>> components;
  for (std::uint32_t u = 0; u < p.parties; ++u) components[find(u)].push_back(u);
  std::set<std::uint32_t> released;
  if (v.result) released.insert(v.result->counted.begin(), v.result->counted.end());
  std::vector<std::string> exposed, deviators;
  std::size_t partial = 0;
  auto single = [&](std::uint32_t w) {
    if (verdict.bad.count(w) && v.masked.count(w)) deviators.push_back(std::to_string(w));
    else {
      exposed.push_back(std::to_string(w));
      exposed_out.push_back(w);
    }
  };
  for (const auto& [component_root, k] : components) {
    const std::uint32_t root = component_root;  // a plain local: lambdas cannot capture bindings
    if (!std::all_of(k.begin(), k.end(), [&](std::uint32_t u) { return v.masked_anywhere.count(u) > 0; })) continue;
    if (k.size() == 1) {
      single(k.front());
      continue;
    }
    const bool holds_result =
        !released.empty() && std::all_of(released.begin(), released.end(), [&](std::uint32_t u) { return find(u) == root; });
    if (holds_result && k.size() == released.size() + 1) {
      for (auto u : k) {
        if (!released.count(u)) single(u);
      }
    } else if (!holds_result || k.size() > released.size()) {
      ++partial;
    }
  }
  std::string detail = exposed.empty() ? "no single party's x + η follows from the board"
                                       : "x + η computable from the board for parties " + join(exposed, ", ");
  if (!deviators.empty()) detail += "; computable for parties " + join(deviators, ", ") + ", which posted masked values although excluded";
  if (partial > 0) detail += "; " + std::to_string(partial) + " partial sums of several parties computable";
  return {"no party's input computable from the board", exposed.empty() ? CheckStatus::pass : CheckStatus::fail, detail};
}

}  // namespace

AuditReport audit_session(bulletin::Board& board, const std::optional<Bytes32>& session) {
  AuditReport a;
  if (auto ids = list_sessions(board)) a.sessions = ids.value();
  if (!session && a.sessions.size() > 1) {
    a.checks.push_back({"one session chosen", CheckStatus::fail,
                        std::to_string(a.sessions.size()) + " sessions on the board: choose one by its id"});
    return a;
  }
  auto view = read_view(board, session);
  if (!view) {
    a.log_ok = false;
    a.checks.push_back({"read and decode the board", CheckStatus::fail, view.error().message});
    return a;
  }
  const View& v = view.value();
  a.checks.push_back({"entries signed and canonical", v.log_problems.empty() ? CheckStatus::pass : CheckStatus::fail,
                      v.log_problems.empty() ? std::to_string(v.entries) + " entries" : v.log_problems.front()});
  a.checks.push_back({"coordinator: rounds closed in order", v.coordinator_problems.empty() ? CheckStatus::pass : CheckStatus::fail,
                      v.coordinator_problems.empty() ? std::to_string(v.closes) + " rounds closed"
                                                     : std::to_string(v.coordinator_problems.size()) + " entries refused: " +
                                                           v.coordinator_problems.front()});
  if (!v.coordinator_problems.empty()) a.log_ok = false;
  const SessionParams& p = v.setup->params;
  a.params = p;
  const Graph g = session_graph(v);
  Verdict verdict = judge(v, g, nullptr);
  a.checks.insert(a.checks.end(), verdict.checks.begin(), verdict.checks.end());
  a.excluded = verdict.bad;
  a.named = verdict.named;
  a.misbehaving = verdict.bad;
  for (const auto& [u, b] : verdict.named) {
    a.misbehaving.emplace(u, Blame{b.offence, b.detail + (b.detail.empty() ? "" : " ") + "(not excluded for it)"});
  }
  a.counted = verdict.counted;
  // A withheld result has no estimate: its sum lacks a share of the hidden noise.
  if (verdict.withheld.empty()) a.estimate = estimate_of(p, verdict.sum, verdict.counted.size());
  a.checks.push_back(exposure_check(v, g, verdict, a.exposed));
  a.checks.push_back({"excluded parties' pairwise terms removed",
                      verdict.unresolved.empty() ? CheckStatus::pass : CheckStatus::fail,
                      std::to_string(verdict.unresolved.size()) + " edges left unopened"});
  if (!verdict.withheld.empty()) {
    a.checks.push_back({"result withheld", v.result ? CheckStatus::fail : CheckStatus::pass,
                        v.result ? "a result was released although " + verdict.withheld : verdict.withheld});
    if (v.result) a.log_ok = false;
  } else if (!v.result) {
    a.checks.push_back({"released result", CheckStatus::fail, "no result entry from the coordinator"});
  } else {
    const bool same = v.result->counted == verdict.counted && v.result->sum == verdict.sum;
    a.checks.push_back({"released result matches the recomputation", same ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(v.result->counted.size()) + " parties counted" +
                            (same ? "" : "; the coordinator's result is not the recomputation over the board")});
    if (!same) a.log_ok = false;  // the coordinator's fault, never a party's
  }
  return a;
}

}  // namespace gopa::protocol
