// The coordinator: its role (setup, closes, result), and the coordinator in its own process over
// a shared board (gopa coordinate), which polls the board for the parties' round markers.
#include "run_internal.hpp"

namespace gopa::protocol::detail {

bulletin::Status CoordinatorRole::post_setup() {
  const auto entries = setup_.encode_entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (auto st = poster_.post(kRoundSetup, i == 0 ? MessageType::session_setup : MessageType::party_key, entries[i]); !st) {
      return st;
    }
  }
  return {};
}

bulletin::Status CoordinatorRole::close(std::uint32_t round) {
  return poster_.post(round, MessageType::round_cosignature, RoundMarker{round}.encode());
}

bulletin::Result<std::optional<std::uint32_t>> CoordinatorRole::round_to_close(ViewReader& reader, bulletin::Board& board,
                                                                               std::size_t i, const View*& view,
                                                                               RunReport& report) {
  auto read = reader.update(board);
  if (!read) return read.error();
  view = read.value();
  if (i >= view->close_order.size()) return std::optional<std::uint32_t>();
  const std::uint32_t round = view->close_order[i];
  if (is_restart_round(round) && is_commit_round(round)) ++report.randomness_restarts;
  return std::optional<std::uint32_t>(round);
}

bulletin::Result<Verdict> CoordinatorRole::release(const View& v, ProofCache* cache, RunReport& report) {
  const SessionParams& p = setup_.params;
  const Graph g = session_graph(v);
  Verdict verdict = judge(v, g, cache);
  report.counted = verdict.counted;
  report.excluded = verdict.bad;
  report.named = verdict.named;
  report.withheld = verdict.withheld;
  if (!verdict.withheld.empty()) return verdict;
  if (auto st = poster_.post(kRoundResult, MessageType::result, ResultMessage{verdict.counted, verdict.sum}.encode(p.parties));
      !st) {
    return st.error();
  }
  report.estimate = estimate_of(p, verdict.sum, verdict.counted.size());
  return verdict;
}

}  // namespace gopa::protocol::detail

namespace gopa::protocol {

using namespace detail;

bulletin::Result<RunReport> run_coordinator(const CoordinatorOptions& o, bulletin::Board& board) {
  const SessionParams& p = o.params;
  if (auto why = p.validate()) return make_error(Errc::invalid_argument, *why);
  if (o.roster.size() != p.parties) {
    return make_error(Errc::invalid_argument, "the roster has " + std::to_string(o.roster.size()) +
                                                  " parties but the parameters say " + std::to_string(p.parties));
  }
  // What every reader would refuse (SetupMessage::assemble) is refused here, before anything is posted.
  if (const auto u = roster_repeat(o.roster)) {
    return make_error(Errc::invalid_argument, "the roster repeats a key (entry " + std::to_string(*u) +
                                                  " has a key of an earlier entry); nothing was posted");
  }
  RunReport report;
  const Bytes32 sid = p.session_id();
  report.session_id = sid;
  CoordinatorRole coordinator(board, SetupMessage{p, o.roster}, SigningKey::from_seed(o.sign_seed), o.deviate);
  double t0 = now_seconds();
  if (auto st = coordinator.post_setup(); !st) return st.error();
  say(o.log, "setup posted: session " + to_hex(std::span<const std::uint8_t>(sid)).substr(0, 16));
  std::set<std::uint32_t> expected;
  for (std::uint32_t u = 0; u < p.parties; ++u) expected.insert(u);
  ViewReader reader(sid);
  ProofCache committee_cache;
  // Waits for every party still in the session to mark `round` finished (or the timeout), then
  // closes it; only the parties that finished it are waited for next time. In the committee's
  // round a member that the committee's own log names (a deviation, or a message missing after
  // the members' time-out) is not waited for once the log is complete: it is excluded whatever it
  // does next, and without this the round would stay open for the whole of its time limit
  // (round_timeout_ms times 2·calls + 2) whenever a member is gone.
  auto run_round = [&](std::uint32_t round) -> bulletin::Status {
    bool named_rest = false;  // closed because the committee's log names every party not finished
    auto v = wait_view(reader, board, o.poll_ms, round_time_limit(p, round), [&](const View& view) {
      auto it = view.done.find(round);
      std::vector<std::uint32_t> waiting;
      if (it == view.done.end()) {
        waiting.assign(expected.begin(), expected.end());
      } else {
        std::set_difference(expected.begin(), expected.end(), it->second.begin(), it->second.end(),
                            std::back_inserter(waiting));
      }
      if (waiting.empty()) return true;
      if (round != kRoundCommittee || it == view.done.end()) return false;
      // Only members can still be awaited, and some member has marked the round: it has seen every
      // call end. Then (and only then: the check reads the whole log) the log decides.
      const auto member = [&](std::uint32_t u) { return view.committee.count(u) > 0; };
      if (!std::all_of(waiting.begin(), waiting.end(), member)) return false;
      if (!std::any_of(it->second.begin(), it->second.end(), member)) return false;
      const HiddenNoise h = cached_hidden(view, view_randomness(view), &committee_cache);
      named_rest = h.complete && std::all_of(waiting.begin(), waiting.end(), [&](std::uint32_t u) { return h.blamed.count(u) > 0; });
      return named_rest;
    }, "round " + std::to_string(round));
    if (!v && v.error().code != Errc::timeout) return v.error();
    const bool timed_out = !v;
    if (auto st = coordinator.close(round); !st) return st;
    auto closed = reader.update(board);
    if (!closed) return closed.error();
    std::set<std::uint32_t> finished;
    if (auto it = closed.value()->done.find(round); it != closed.value()->done.end()) finished = it->second;
    std::set<std::uint32_t> next;
    std::set_intersection(expected.begin(), expected.end(), finished.begin(), finished.end(),
                          std::inserter(next, next.begin()));
    say(o.log, "round " + std::to_string(round) + " (" + round_name(round) + ") closed: " + std::to_string(next.size()) + "/" +
                   std::to_string(expected.size()) + " parties finished it" +
                   (timed_out ? " (time limit reached)" : named_rest ? " (the committee's log names the others)" : ""));
    expected = std::move(next);
    const double t1 = now_seconds();
    report.phases.push_back({"round " + std::to_string(round) + " (" + round_name(round) + ")", t1 - t0});
    t0 = t1;
    return {};
  };
  const View* view = nullptr;
  for (std::size_t i = 0;; ++i) {
    auto next = CoordinatorRole::round_to_close(reader, board, i, view, report);
    if (!next) return next.error();
    if (!next.value()) break;
    // A party the randomness rounds excluded knows it from the board and posts nothing more.
    for (const auto& [u, why] : view->randomness_out) expected.erase(u);
    if (auto st = run_round(*next.value()); !st) return st.error();
  }
  for (const auto& [u, c] : view->commits) {
    report.proof_bytes_per_party = proof_bytes(c);
    break;
  }
  report.board_entries = view->entries;
  report.board_bytes = view->bytes;
  report.committee.assign(view->committee.begin(), view->committee.end());
  if (p.noise == NoiseMode::hidden) report.committee_bytes = view->committee_bytes;
  auto verdict = coordinator.release(*view, nullptr, report);
  if (!verdict) return verdict.error();
  if (!report.withheld.empty()) say(o.log, "no result: " + report.withheld);
  else report.board_entries += 1;
  report.phases.push_back({"aggregate", now_seconds() - t0});
  return report;
}

}  // namespace gopa::protocol
