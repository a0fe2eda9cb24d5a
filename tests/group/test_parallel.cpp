// gopa::parallel_for (include/gopa/parallel.hpp): every index once, on the threads asked for,
// the first exception rethrown, the caller's test deviation installed on every worker.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gopa/deviation.hpp"
#include "gopa/parallel.hpp"

TEST_CASE("parallel_for runs every index exactly once on at most the threads asked for", "[parallel][tsan]") {
  for (unsigned threads : {0U, 1U, 2U, 3U, 8U}) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000}}) {
      INFO("threads " << threads << ", count " << count);
      std::vector<std::atomic<int>> hits(count);
      std::mutex mu;
      std::set<std::thread::id> ids;
      gopa::parallel_for(count, threads, [&](std::size_t k) {
        hits[k].fetch_add(1);
        std::lock_guard<std::mutex> lock(mu);
        ids.insert(std::this_thread::get_id());
      });
      for (const auto& h : hits) CHECK(h.load() == 1);
      CHECK(ids.size() <= std::max<std::size_t>(1, std::min<std::size_t>(gopa::resolve_threads(threads), count)));
      if (threads == 1 && count > 0) CHECK(*ids.begin() == std::this_thread::get_id());  // inline on one thread
    }
  }
  CHECK(gopa::resolve_threads(0) >= 1);
  CHECK(gopa::resolve_threads(5) == 5);
}

TEST_CASE("parallel_for rethrows the first exception and stops handing out work", "[parallel][tsan]") {
  for (unsigned threads : {1U, 2U, 4U}) {
    std::atomic<std::size_t> ran{0};
    CHECK_THROWS_AS(gopa::parallel_for(10000000, threads,
                                       [&](std::size_t k) {
                                         ran.fetch_add(1);
                                         if (k == 3) throw std::runtime_error("block 3");
                                       }),
                    std::runtime_error);
    CHECK(ran.load() < 10000000);  // indices after the failure are skipped
  }
}

TEST_CASE("parallel_for installs the caller's deviation on every worker", "[parallel][tsan]") {
  gopa::testing::Deviation dev;
  dev.reuse_nonces = true;
  std::atomic<int> seen{0}, missing{0};
  {
    gopa::testing::ScopedDeviation scope(dev);
    gopa::parallel_for(64, 4, [&](std::size_t) {
      if (gopa::testing::deviation() == &dev) {
        seen.fetch_add(1);
      } else {
        missing.fetch_add(1);
      }
    });
  }
  CHECK(seen.load() == 64);
  CHECK(missing.load() == 0);
  CHECK(gopa::testing::deviation() == nullptr);  // restored on the caller after its scope
  // Without a deviation, workers see none.
  gopa::parallel_for(64, 4, [&](std::size_t) {
    if (gopa::testing::deviation() != nullptr) missing.fetch_add(1);
  });
  CHECK(missing.load() == 0);
}
