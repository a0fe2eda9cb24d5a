// Committee members of their own (HiddenMember): each member holds only its own Paillier key and
// shares, posts its messages and reads the others' as they arrive on a shared log. Members run
// in threads here; every member and the standalone verifier reach the same verdict, a cheater is
// named by all, and a member that stalls is named as missing after the others' time-out.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/sampling.hpp"
#include "hidden_tamper.hpp"

using namespace gopa;
using namespace gopa::sampling;
using gopa::sampling::test::small_params;

namespace {

// One attempt's log, shared by the members' threads: a post appends, a fetch waits (up to
// `timeout`) for messages after the ones a member has.
struct SharedLog {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<HiddenMessage> log;
  std::chrono::milliseconds timeout{20'000};

  MemberIo io() {
    MemberIo io;
    io.post = [this](const HiddenMessage& m) {
      {
        std::lock_guard<std::mutex> lock(mu);
        log.push_back(m);
      }
      cv.notify_all();
    };
    io.fetch = [this](std::size_t have, std::vector<HiddenMessage>& more) {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, timeout, [&] { return log.size() > have; })) return false;
      more.assign(log.begin() + static_cast<std::ptrdiff_t>(have), log.end());
      return true;
    };
    return io;
  }
};

// One attempt of `members`, each of `running` in its own thread on one shared log.
std::vector<MemberAttempt> run_attempt(std::vector<HiddenMember*> running, const std::vector<std::size_t>& members,
                                       SharedLog& shared, std::uint64_t salt, const std::vector<Cheat>& cheats = {}) {
  std::vector<MemberAttempt> out(running.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < running.size(); ++i) {
    threads.emplace_back([&, i] {
      DeterministicRng rng(1000 * salt + running[i]->id());
      const MemberIo io = shared.io();
      out[i] = running[i]->attempt(members, io, rng, cheats);
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

// One member of its own per id, each key drawn from its own seed.
std::deque<HiddenMember> make_members(const HiddenParams& p, const std::vector<std::size_t>& ids, std::uint64_t seed) {
  std::deque<HiddenMember> m;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    DeterministicRng rng(seed + i);
    m.emplace_back(p, ids[i], rng);
  }
  return m;
}

}  // namespace

TEST_CASE("hidden members of their own: an honest committee agrees with the verifier, each member holds its own shares",
          "[sampling][hidden][member]") {
  const HiddenParams p = small_params(3);
  const std::vector<std::size_t> members{4, 9, 2};
  std::deque<HiddenMember> m = make_members(p, members, 50);
  std::vector<HiddenMember*> all{&m[0], &m[1], &m[2]};
  const auto gens = GeneratorSet::get("gopa", 1);
  std::optional<HiddenKeySet> keys;
  for (int call = 0; call < 2; ++call) {
    INFO("call " << call);
    SharedLog shared;
    const auto r = run_attempt(all, members, shared, static_cast<std::uint64_t>(call) + 1);
    const HiddenVerdict v = verify_hidden_log(p, members, shared.log, keys ? &*keys : nullptr);
    REQUIRE(v.ok);
    std::string misplaced;
    for (const auto& x : v.misplaced) misplaced += x.why + "\n";
    INFO("misplaced: " << misplaced);
    CHECK(v.misplaced.empty());
    if (!keys) keys = v.keys;
    REQUIRE(keys.has_value());
    Scalar eta[2];
    for (std::size_t k = 0; k < members.size(); ++k) {
      INFO("member " << members[k]);
      REQUIRE(r[k].ok);
      CHECK(r[k].key_round == (call == 0));
      CHECK(r[k].commitments == v.commitments);
      REQUIRE(m[k].keys() != nullptr);
      CHECK(m[k].keys()->digest == keys->digest);
      for (std::size_t s = 0; s < 2; ++s) {
        // The member's share opens its own commitment, and only its own.
        const Point mine = commit(SecretScalar(r[k].share[s]), SecretScalar(r[k].blinder[s]), *gens);
        CHECK(mine == v.commitments[s][k]);
        CHECK_FALSE(mine == v.commitments[s][(k + 1) % members.size()]);
        eta[s] += r[k].share[s];
      }
    }
    // The shares add up to a sample at f fractional bits (|η| < 8σ with overwhelming probability).
    for (const Scalar& e : eta) {
      const Scalar bound = Scalar::from_u64(std::uint64_t{8} << p.f);
      CHECK(((e + bound).encode()[31] == 0 && (e + bound).encode()[30] == 0));
    }
    // A later call posts no key message.
    const bool has_keys = std::any_of(shared.log.begin(), shared.log.end(),
                                      [](const HiddenMessage& x) { return x.kind == HiddenKind::kPaillierKey; });
    CHECK(has_keys == (call == 0));
  }
}

TEST_CASE("hidden members of their own: a cheating member is named alike by every member and the verifier",
          "[sampling][hidden][member]") {
  const HiddenParams p = small_params(3);
  const std::vector<std::size_t> members{0, 1, 2};
  for (const Step step : {Step::kMulOpening, Step::kTripleReply, Step::kFalseComplaint}) {
    INFO("step " << step_name(step));
    std::deque<HiddenMember> fresh = make_members(p, members, 90);
    SharedLog shared;
    const auto r = run_attempt({&fresh[0], &fresh[1], &fresh[2]}, members, shared, 3, {Cheat{1, step, 0}});
    const HiddenVerdict v = verify_hidden_log(p, members, shared.log);
    REQUIRE_FALSE(v.ok);
    REQUIRE(v.blame.has_value());
    CHECK(v.blame->member == 1);
    CHECK(v.blame->step == step);
    for (std::size_t k = 0; k < members.size(); ++k) {
      INFO("member " << k);
      CHECK_FALSE(r[k].ok);
      REQUIRE(r[k].blame.has_value());
      CHECK(r[k].blame->member == 1);
      CHECK(r[k].blame->step == step);
      CHECK(r[k].blame->why == v.blame->why);
    }
    // The others go on without it, with the keys their key round proved.
    std::vector<std::size_t> rest = members;
    drop_blamed(rest, v.blame);
    SharedLog again;
    const auto r2 = run_attempt({&fresh[0], &fresh[2]}, rest, again, 4);
    CHECK(r2[0].ok);
    CHECK(r2[1].ok);
    CHECK_FALSE(r2[0].key_round);
    CHECK(verify_hidden_log(p, rest, again.log, fresh[0].keys()).ok);
  }
}

TEST_CASE("hidden members of their own: a member that stalls is named as missing after the time-out, and only it",
          "[sampling][hidden][member]") {
  const HiddenParams p = small_params(3);
  const std::vector<std::size_t> members{0, 1, 2};
  std::deque<HiddenMember> m = make_members(p, members, 110);
  SharedLog shared;
  shared.timeout = std::chrono::milliseconds(1'500);
  // Member 2 never runs.
  const auto r = run_attempt({&m[0], &m[1]}, members, shared, 5);
  for (std::size_t k = 0; k < 2; ++k) {
    INFO("member " << k);
    CHECK_FALSE(r[k].ok);
    REQUIRE(r[k].blame.has_value());
    CHECK(r[k].blame->member == 2);
    CHECK(r[k].blame->missing);
    CHECK(r[k].blame->step == Step::kPaillierKey);
  }
  const HiddenVerdict v = verify_hidden_log(p, members, shared.log);
  REQUIRE(v.blame.has_value());
  CHECK(v.blame->member == 2);
  // The committee restarts without it; a key round again, since the first one did not pass.
  std::vector<std::size_t> rest{0, 1};
  SharedLog again;
  const auto r2 = run_attempt({&m[0], &m[1]}, rest, again, 6);
  CHECK(r2[0].ok);
  CHECK(r2[1].ok);
  CHECK(r2[0].key_round);
  CHECK(verify_hidden_log(p, rest, again.log).ok);
}
