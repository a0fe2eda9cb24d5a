// The hidden-noise committee member in its own process (round 11): docs/protocol.md § Hidden
// noise, docs/sampling.md § Members of their own.
#include "party.hpp"

namespace gopa::protocol::detail {

bulletin::Result<std::string> run_committee_member(Party& me, const View& v, const CommitteeIo& io) {
  const SessionParams& p = v.setup->params;
  const Key32 y = view_randomness(v);
  const std::vector<std::uint32_t> committee = committee_of(v);
  const std::uint32_t u = me.index();
  if (std::find(committee.begin(), committee.end(), u) == committee.end()) return std::string();
  std::vector<std::size_t> members(committee.begin(), committee.end());
  // Every secret of the member (its key, shares, masks) comes from its own stream, bound to y: a
  // member that restarts draws exactly what it drew before.
  Key32 seed = me.step_seed("committee", 0, y);
  DeterministicRng rng(seed);
  sodium_memzero(seed.data(), seed.size());
  const sampling::HiddenParams hp = hidden_params(p);
  sampling::HiddenMember member(hp, u, rng);
  for (std::uint32_t call = 0; call < hidden_calls(p); ++call) {
    for (std::uint32_t attempt = 0;; ++attempt) {
      if (const std::string why = sampling::attempt_refusal(members.size(), attempt); !why.empty()) {
        return "hidden noise, call " + std::to_string(call) + ": " + why;
      }
      std::optional<bulletin::Error> failed;  // the board, not the protocol
      sampling::MemberIo mio;
      mio.post = [&](const sampling::HiddenMessage& m) {
        if (failed) return;
        if (auto st = io.post(call, attempt, m); !st) failed = st.error();
      };
      // Waits for more of the attempt's log; none after the round's close counts, and none within
      // wait_ms names the awaited member as missing.
      mio.fetch = [&](std::size_t have, std::vector<sampling::HiddenMessage>& more) {
        if (failed) return false;
        const auto log_of = [&](const View& w) {
          auto it = w.committee_log.find({call, attempt});
          return it == w.committee_log.end() ? nullptr : &it->second;
        };
        auto read = wait_view(*io.reader, *io.board, io.poll_ms, io.wait_ms, [&](const View& w) {
          const auto* log = log_of(w);
          return (log != nullptr && log->size() > have) || w.closed.count(kRoundCommittee) > 0;
        }, "committee messages");
        if (!read) {
          if (read.error().code != Errc::timeout) failed = read.error();
          return false;
        }
        const auto* log = log_of(*read.value());
        if (log == nullptr || log->size() <= have) return false;  // the round closed
        more.assign(log->begin() + static_cast<std::ptrdiff_t>(have), log->end());
        return true;
      };
      const sampling::MemberAttempt a = member.attempt(members, mio, rng, io.cheats);
      if (failed) return *failed;
      if (a.ok) {
        for (std::uint32_t s = 0; s < 2; ++s) {
          const std::uint32_t j = 2 * call + s;
          if (j < p.dim) me.set_noise_share(p.dim, j, a.share[s], a.blinder[s]);
        }
        break;
      }
      sampling::drop_blamed(members, a.blame);
      if (std::find(members.begin(), members.end(), u) == members.end()) {
        return "named by the committee: " + (a.blame ? a.blame->why : a.error);
      }
    }
  }
  return std::string();
}

}  // namespace gopa::protocol::detail
