// The hidden-noise committee member in its own process (round 11): docs/protocol.md § Hidden
// noise, docs/sampling.md § Members of their own.
#include <chrono>
#include <thread>

#include "party.hpp"

namespace gopa::protocol::detail {

bulletin::Result<std::string> run_committee_member(Party& me, const View& v, const CommitteeIo& io) {
  const SessionParams& p = v.setup->params;
  const Key32 y = view_randomness(v);
  std::vector<std::uint32_t> eligible;  // the parties whose shares made y, as every reader takes them
  for (const auto& [u, share] : opened_shares(v)) eligible.push_back(u);
  const std::vector<std::uint32_t> committee = select_committee(p, y, eligible);
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
      mio.fetch = [&](std::size_t have, std::vector<sampling::HiddenMessage>& more) {
        const auto start = std::chrono::steady_clock::now();
        for (;;) {
          if (failed) return false;
          auto read = io.update();
          if (!read) {
            failed = read.error();
            return false;
          }
          const View& w = *read.value();
          if (auto it = w.committee_log.find({call, attempt}); it != w.committee_log.end() && it->second.size() > have) {
            more.assign(it->second.begin() + static_cast<std::ptrdiff_t>(have), it->second.end());
            return true;
          }
          if (w.closed.count(kRoundCommittee)) return false;  // nothing more counts
          const auto waited = std::chrono::steady_clock::now() - start;
          if (std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() >= static_cast<long long>(io.wait_ms)) {
            return false;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(io.poll_ms));
        }
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
