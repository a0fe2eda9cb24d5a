// gopa/parallel.hpp — the one way gopa spreads independent work over cores: blocks of a proof,
// proofs of distinct parties, windows of a multi-scalar multiplication.
//
//   gopa::parallel_for(blocks, threads, [&](std::size_t k) { results[k] = verify_block(k); });
//
// fn(0..count−1) runs on up to `threads` threads (0: every core), the calling thread among them,
// each index exactly once, in no particular order. The first exception a call throws is rethrown
// on the calling thread once every worker has stopped (the remaining indices are skipped). The
// test-only deviation installed on the calling thread (deviation.hpp) is installed on every worker,
// so a malicious prover stays malicious whatever the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "gopa/deviation.hpp"

namespace gopa {

// Threads to use for `wanted` (0: every core the machine reports, at least 1).
[[nodiscard]] inline unsigned resolve_threads(unsigned wanted) noexcept {
  return wanted != 0 ? wanted : std::max(1U, std::thread::hardware_concurrency());
}

template <class Fn>
void parallel_for(std::size_t count, unsigned threads, Fn&& fn) {
  const std::size_t workers = std::min<std::size_t>(resolve_threads(threads), count);
  if (workers <= 1) {
    for (std::size_t k = 0; k < count; ++k) fn(k);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  const testing::Deviation* dev = testing::deviation();
  auto work = [&] {
    std::optional<testing::ScopedDeviation> scope;
    if (dev != nullptr && testing::deviation() != dev) scope.emplace(*dev);
    for (std::size_t k = next.fetch_add(1); k < count; k = next.fetch_add(1)) {
      try {
        fn(k);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        next.store(count);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

// [0, count) cut into `runs` contiguous runs, one thread each: fn(r, k) for the k of run r in
// increasing order; fn returning false ends its run. For work that keeps one accumulator per run
// (a run's sum, a run's equation terms), so that the result does not depend on scheduling.
template <class Fn>
void parallel_runs(std::size_t count, std::size_t runs, Fn&& fn) {
  parallel_for(runs, static_cast<unsigned>(runs), [&](std::size_t r) {
    for (std::size_t k = count * r / runs; k < count * (r + 1) / runs; ++k)
      if (!fn(r, k)) return;
  });
}

}  // namespace gopa
