// The coordinator in its own process, over a shared board (gopa coordinate).
#include "run_internal.hpp"

namespace gopa::protocol {

using namespace detail;

bulletin::Result<RunReport> run_coordinator(const CoordinatorOptions& o, bulletin::Board& board) {
  const SessionParams& p = o.params;
  if (auto why = p.validate()) return make_error(Errc::invalid_argument, *why);
  if (p.noise == NoiseMode::hidden) {
    return make_error(Errc::invalid_argument, "hidden noise runs in `gopa run` only in this version (the committee runs in one process)");
  }
  if (o.roster.size() != p.parties) {
    return make_error(Errc::invalid_argument, "the roster has " + std::to_string(o.roster.size()) +
                                                  " parties but the parameters say " + std::to_string(p.parties));
  }
  RunReport report;
  const Bytes32 sid = p.session_id();
  report.session_id = sid;
  CoordinatorPoster coordinator(board, sid, SigningKey::from_seed(o.sign_seed), o.deviate);
  auto post = [&](std::uint32_t round, MessageType type, Bytes payload) {
    return coordinator.post(round, type, std::move(payload));
  };
  double t0 = now_seconds();
  {
    const auto entries = SetupMessage{p, o.roster}.encode_entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (auto st = post(kRoundSetup, i == 0 ? MessageType::session_setup : MessageType::party_key, entries[i]); !st) {
        return st.error();
      }
    }
  }
  say(o.log, "setup posted: session " + to_hex(std::span<const std::uint8_t>(sid)).substr(0, 16));
  std::set<std::uint32_t> expected;
  for (std::uint32_t u = 0; u < p.parties; ++u) expected.insert(u);
  // Waits for every party still in the session to mark `round` finished (or the timeout), then
  // closes it; only the parties that finished it are waited for next time.
  auto run_round = [&](std::uint32_t round) -> bulletin::Status {
    auto v = wait_view(board, sid, o.poll_ms, p.round_timeout_ms, [&](const View& view) {
      auto it = view.done.find(round);
      if (it == view.done.end()) return expected.empty();
      return std::includes(it->second.begin(), it->second.end(), expected.begin(), expected.end());
    }, "round " + std::to_string(round));
    if (!v && v.error().code != Errc::timeout) return v.error();
    if (auto st = post(round, MessageType::round_cosignature, RoundMarker{round}.encode()); !st) return st.error();
    auto closed = read_view(board, sid);
    if (!closed) return closed.error();
    std::set<std::uint32_t> finished;
    if (auto it = closed.value().done.find(round); it != closed.value().done.end()) finished = it->second;
    std::set<std::uint32_t> next;
    std::set_intersection(expected.begin(), expected.end(), finished.begin(), finished.end(),
                          std::inserter(next, next.begin()));
    say(o.log, "round " + std::to_string(round) + " closed: " + std::to_string(next.size()) + "/" +
                   std::to_string(expected.size()) + " parties finished it");
    expected = std::move(next);
    const double t1 = now_seconds();
    report.phases.push_back({"round " + std::to_string(round), t1 - t0});
    t0 = t1;
    return {};
  };
  // The rounds in the order every reader accepts: 2, 3, restarts while the randomness loses a
  // reveal, 4, …, 9 (the board extends the order as the randomness attempts settle).
  std::optional<View> view;
  for (std::size_t i = 0;; ++i) {
    auto read = read_view(board, sid);
    if (!read) return read.error();
    view = std::move(read).value();
    if (i >= view->close_order.size()) break;
    const std::uint32_t round = view->close_order[i];
    if (is_restart_round(round) && is_commit_round(round)) ++report.randomness_restarts;
    if (auto st = run_round(round); !st) return st.error();
  }
  const Graph graph = derive_graph(p.parties, p.neighbors, view_randomness(*view));
  const Verdict verdict = judge(*view, graph, nullptr);
  report.excluded = verdict.bad;
  report.named = verdict.named;
  report.withheld = verdict.withheld;
  report.counted = verdict.counted;
  for (const auto& [u, c] : view->commits) {
    report.proof_bytes_per_party = proof_bytes(c);
    break;
  }
  report.board_entries = view->entries;
  report.board_bytes = view->bytes;
  if (!verdict.withheld.empty()) {
    say(o.log, "no result: " + verdict.withheld);
    report.phases.push_back({"aggregate", now_seconds() - t0});
    return report;
  }
  if (auto st = post(kRoundResult, MessageType::result, ResultMessage{verdict.counted, verdict.sum}.encode(p.parties)); !st) {
    return st.error();
  }
  report.estimate = estimate_of(p, verdict.sum, verdict.counted.size());
  report.board_entries += 1;
  report.phases.push_back({"aggregate", now_seconds() - t0});
  return report;
}

}  // namespace gopa::protocol
