// `gopa bench group`: medians of the group and MSM operations, with a naive MSM built from
// libsodium's public ristretto255 calls as the baseline, measured in the same run.
#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "report.hpp"
#include "gopa/group.hpp"
#include "gopa/msm.hpp"

namespace gopa::cli {

namespace {

struct GroupBenchOptions {
  bool json = false;
  bool quick = false;
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time of this process (all threads), in seconds.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Medians over `samples` runs of one call of f, in microseconds of wall-clock time and of
// process CPU time (the latter is less disturbed by other processes on a shared machine); each
// run calls f `inner` times.
struct Timing {
  double wall_us = 0, cpu_us = 0;
};

Timing median_timing(int samples, int inner, const std::function<void()>& f) {
  std::vector<double> wall, cpu;
  f();  // warm-up
  for (int s = 0; s < samples; ++s) {
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    for (int i = 0; i < inner; ++i) f();
    cpu.push_back((process_cpu_seconds() - c0) * 1e6 / inner);
    wall.push_back(seconds_since(t0) * 1e6 / inner);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return Timing{wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

double median_us(int samples, int inner, const std::function<void()>& f) {
  return median_timing(samples, inner, f).wall_us;
}

// The 1-minute load average (other processes compete for the cores and slow every figure).
double load_average() {
  std::ifstream in("/proc/loadavg");
  double v = -1;
  in >> v;
  return v;
}

// Peak resident set size of this process (VmHWM), in bytes.
std::size_t peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream s(line.substr(6));
      std::size_t kb = 0;
      s >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

// Inputs for MSMs of up to n terms: consecutive points differ by a random point (one addition
// each, so large inputs are quick to build); the algorithms do not see the structure.
struct MsmInputs {
  std::vector<Scalar> scalars;
  std::vector<Point> points;
  std::vector<Bytes32> scalar_bytes, point_bytes;  // for the libsodium baseline
};

MsmInputs make_inputs(std::size_t n, std::size_t baseline_n, Rng& rng) {
  MsmInputs in;
  in.scalars.reserve(n);
  in.points.reserve(n);
  const Point step = Point::random(rng);
  Point p = Point::random(rng);
  for (std::size_t i = 0; i < n; ++i) {
    in.scalars.push_back(Scalar::random(rng));
    in.points.push_back(p);
    p += step;
  }
  for (std::size_t i = 0; i < std::min(n, baseline_n); ++i) {
    in.scalar_bytes.push_back(in.scalars[i].encode());
    in.point_bytes.push_back(in.points[i].encode());
  }
  return in;
}

// The baseline: Σ s_i·P_i with one libsodium scalar multiplication and one addition per term,
// on encodings (scalarmult reports the identity as −1; that is a valid result here).
Bytes32 sodium_naive_msm(const MsmInputs& in, std::size_t n) {
  Bytes32 acc{};
  Bytes32 term{};
  for (std::size_t i = 0; i < n; ++i) {
    if (crypto_scalarmult_ristretto255(term.data(), in.scalar_bytes[i].data(),
                                       in.point_bytes[i].data()) != 0) {
      term = Bytes32{};
    }
    Bytes32 sum{};
    if (crypto_core_ristretto255_add(sum.data(), acc.data(), term.data()) != 0) return Bytes32{};
    acc = sum;
  }
  return acc;
}

struct OpRow {
  std::string name;
  double us;
};

struct MsmRow {
  std::size_t n;
  double us1, us2;  // total µs (wall clock), 1 and 2 threads
  double cpu1;      // total µs of CPU time, 1 thread
  double baseline_us;  // total µs of the libsodium naive MSM, < 0 when not run
};

int run_group_bench(const GroupBenchOptions& o) {
  const auto started = Clock::now();
  const double load_at_start = load_average();
  DeterministicRng rng(2024);
  const int samples = o.quick ? 3 : 9;
  const int inner = o.quick ? 20 : 100;

  // ---------------------------------------------------------------- single operations
  std::vector<OpRow> ops;
  const Point p = Point::random(rng), q = Point::random(rng);
  const SecretScalar sk = SecretScalar::random(rng);
  const Bytes32 enc = p.encode();
  const FixedBaseTable table(q);
  Bytes32 sk_bytes{}, sodium_out{};
  crypto_core_ristretto255_scalar_random(sk_bytes.data());
  Point sink;
  ops.push_back({"scalar mult, constant time (Point * SecretScalar)",
                 median_us(samples, inner / 4 + 1, [&] { sink = p * sk; })});
  ops.push_back({"scalar mult, libsodium crypto_scalarmult_ristretto255",
                 median_us(samples, inner / 4 + 1, [&] {
                   if (crypto_scalarmult_ristretto255(sodium_out.data(), sk_bytes.data(),
                                                      enc.data()) != 0) {
                     sodium_out = Bytes32{};
                   }
                 })});
  ops.push_back({"fixed-base mult, FixedBaseTable::mul (constant time)",
                 median_us(samples, inner, [&] { sink = table.mul(sk); })});
  ops.push_back({"fixed-base mult, Point::base_mul (libdecaf table)",
                 median_us(samples, inner, [&] { sink = Point::base_mul(sk); })});
  ops.push_back({"FixedBaseTable construction",
                 median_us(samples, 1, [&] { const FixedBaseTable t(p); sink = t.base(); })});
  ops.push_back({"point add", median_us(samples, inner * 20, [&] { sink = p + sink; })});
  Bytes32 out{};
  ops.push_back({"encode", median_us(samples, inner * 10, [&] { p.encode_to(out); })});
  ops.push_back({"decode", median_us(samples, inner * 10, [&] {
                   if (auto d = Point::decode(enc)) sink = *d;
                 })});
  const std::array<std::uint8_t, 32> msg{};
  ops.push_back({"hash-to-group (SHA-512 + RFC 9496 map)", median_us(samples, inner * 2, [&] {
                   sink = Point::hash_to_group("gopa/bench", msg);
                 })});

  // ---------------------------------------------------------------- MSM
  const std::vector<std::size_t> sizes{16, 64, 256, 1024, 4096, 16384};
  const std::size_t baseline_max = 1024;
  const MsmInputs in = make_inputs(sizes.back(), baseline_max, rng);
  std::vector<MsmRow> rows;
  for (std::size_t n : sizes) {
    const auto s = std::span<const Scalar>(in.scalars).first(n);
    const auto pts = std::span<const Point>(in.points).first(n);
    // About the same total time per size: fewer repetitions at large n.
    const int reps = std::max(3, static_cast<int>((o.quick ? 40000 : 400000) / (n * 40 + 1000)));
    const int msm_samples = std::min(o.quick ? 5 : 11, reps);
    const int msm_inner = std::max(1, reps / msm_samples);
    MsmRow r{n, 0, 0, 0, -1};
    const Timing t1 = median_timing(msm_samples, msm_inner, [&] { sink = gopa::msm(s, pts); });
    r.us1 = t1.wall_us;
    r.cpu1 = t1.cpu_us;
    r.us2 = median_us(msm_samples, msm_inner, [&] { sink = gopa::msm(s, pts, {.threads = 2}); });
    if (n <= baseline_max) {
      Bytes32 b{};
      r.baseline_us = median_us(o.quick ? 1 : 3, 1, [&] { b = sodium_naive_msm(in, n); });
      if (b != gopa::msm(s, pts).encode()) {
        std::fprintf(stderr, "gopa bench group: MSM and the libsodium baseline disagree at n=%zu\n",
                     n);
        return kExitMisbehaved;
      }
    }
    rows.push_back(r);
  }

  // ---------------------------------------------------------------- memory at n = 2^20
  const std::size_t big = std::size_t{1} << 20;
  const std::size_t computed1 = gopa::msm_scratch_bytes(big);
  const std::size_t computed2 = gopa::msm_scratch_bytes(big, {.threads = 2});
  std::size_t measured = 0;
  double big_seconds = -1;
  if (!o.quick) {
    // Build the big input first, so the peak RSS increase during the call is the MSM's own.
    MsmInputs big_in = make_inputs(big, 0, rng);
    const std::size_t before = peak_rss_bytes();
    const auto t0 = Clock::now();
    sink = gopa::msm(big_in.scalars, big_in.points, {.threads = 2});
    big_seconds = seconds_since(t0);
    const std::size_t after = peak_rss_bytes();
    measured = after > before ? after - before : 0;
  }

  const unsigned hw = std::thread::hardware_concurrency();
  if (o.json) {
    nlohmann::json j = json_report("bench-group");
    j["machine"] = {{"hardware_threads", hw},
                    {"load_average_1min_at_start", load_at_start},
                    {"load_average_1min_at_end", load_average()}};
    j["unit"] = "microseconds, median";
    for (const OpRow& r : ops) j["ops"].push_back({{"op", r.name}, {"us", r.us}});
    for (const MsmRow& r : rows) {
      nlohmann::json m = {{"n", r.n},
                          {"us_total_1thread", r.us1},
                          {"us_per_point_1thread", r.us1 / static_cast<double>(r.n)},
                          {"cpu_us_per_point_1thread", r.cpu1 / static_cast<double>(r.n)},
                          {"us_total_2threads", r.us2},
                          {"us_per_point_2threads", r.us2 / static_cast<double>(r.n)},
                          {"speedup_2threads", r.us1 / r.us2}};
      if (r.baseline_us >= 0) {
        m["us_per_point_libsodium_naive"] = r.baseline_us / static_cast<double>(r.n);
        m["speedup_vs_libsodium_naive"] = r.baseline_us / r.us1;
      }
      j["msm"].push_back(m);
    }
    j["msm_memory_n_2_20"] = {{"computed_scratch_bytes_1thread", computed1},
                              {"computed_scratch_bytes_2threads", computed2}};
    if (!o.quick) {
      j["msm_memory_n_2_20"]["measured_peak_rss_increase_bytes_2threads"] = measured;
      j["msm_memory_n_2_20"]["seconds_2threads"] = big_seconds;
    }
    j["run_seconds"] = seconds_since(started);
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }

  std::printf("gopa bench group — medians, %u hardware threads, load average %.2f at start, "
              "%.2f at end%s\n\n",
              hw, load_at_start, load_average(), o.quick ? " (--quick: fewer repetitions)" : "");
  std::printf("%-56s %12s\n", "operation", "µs");
  for (const OpRow& r : ops) std::printf("%-56s %12.2f\n", r.name.c_str(), r.us);
  std::printf("\nMSM (variable time), µs per point\n");
  std::printf("%8s %10s %10s %10s %9s %14s %12s\n", "n", "1 thread", "(1t CPU)", "2 threads",
              "2t/1t", "libsodium", "speed-up");
  for (const MsmRow& r : rows) {
    const double n = static_cast<double>(r.n);
    if (r.baseline_us >= 0) {
      std::printf("%8zu %10.3f %10.3f %10.3f %8.2fx %14.2f %11.1fx\n", r.n, r.us1 / n,
                  r.cpu1 / n, r.us2 / n, r.us1 / r.us2, r.baseline_us / n, r.baseline_us / r.us1);
    } else {
      std::printf("%8zu %10.3f %10.3f %10.3f %8.2fx %14s %12s\n", r.n, r.us1 / n, r.cpu1 / n,
                  r.us2 / n, r.us1 / r.us2, "-", "-");
    }
  }
  std::printf("(wall-clock medians; 1t CPU = process CPU time of the 1-thread run; libsodium = naive"
              " Σ crypto_scalarmult_ristretto255 + crypto_core_ristretto255_add, speed-up ="
              " libsodium / 1 thread)\n");
  const double mib = 1024.0 * 1024.0;
  std::printf("\nMSM memory at n = 2^20: computed scratch allocation %.1f MiB (1 thread), "
              "%.1f MiB (2 threads)\n",
              static_cast<double>(computed1) / mib, static_cast<double>(computed2) / mib);
  if (!o.quick) {
    std::printf("                        measured peak-RSS increase during the call %.1f MiB "
                "(2 threads, %.2f s)\n",
                static_cast<double>(measured) / mib, big_seconds);
  }
  std::printf("\ntotal run time %.1f s\n", seconds_since(started));
  return kExitOk;
}

}  // namespace

void add_bench_group_command(CLI::App& bench, Context& ctx) {
  auto opts = std::make_shared<GroupBenchOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "group", "Group operations and multi-scalar multiplication, against a libsodium baseline");
  cmd->add_flag("--json", opts->json, "Print the results as JSON");
  cmd->add_flag("--quick", opts->quick, "Fewer repetitions, no n = 2^20 memory run");
  cmd->callback([opts, &ctx]() { ctx.run = [opts]() -> int { return run_group_bench(*opts); }; });
}

}  // namespace gopa::cli
