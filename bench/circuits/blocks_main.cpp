// `gopa-bench-gaussian-blocks`: prove and verify time per sample, bytes per sample of blocked
// Gaussian-sample proofs (circuits/sigma_adapter.hpp; docs/circuits.md §6.3).
//
//   gopa-bench-gaussian-blocks <sampler> <f> <d> <block>[,<block>…] [threads] [reps]
//
// One untimed proof of one block first (generators, tables), then per block size `reps` timed
// proofs of d samples (median), each verified. Peak RSS: run under /usr/bin/time -v.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/random.hpp"

using namespace gopa;
using namespace gopa::circuits;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <box-muller|polar|inverse-cdf|clt> <f> <d> <block,...> [threads] [reps]\n", argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  SamplerKind kind = SamplerKind::kBoxMuller;
  for (SamplerKind k : {SamplerKind::kBoxMuller, SamplerKind::kPolar, SamplerKind::kInverseCdf, SamplerKind::kClt})
    if (name == sampler_name(k)) kind = k;
  const auto f = static_cast<unsigned>(std::stoul(argv[2]));
  const std::size_t d = std::stoul(argv[3]);
  std::vector<std::size_t> blocks;
  std::stringstream ss(argv[4]);
  for (std::string b; std::getline(ss, b, ',');) blocks.push_back(std::stoul(b));
  const unsigned threads = argc > 5 ? static_cast<unsigned>(std::stoul(argv[5])) : 1U;
  const int reps = argc > 6 ? std::max(1, std::stoi(argv[6])) : 1;
  const SamplerParams p = SamplerParams::make(kind, f);

  DeterministicRng rng(1);
  const std::size_t need = (d + p.samples_per_call() - 1) / p.samples_per_call() * p.seeds_per_call();
  std::vector<PrivateSeed> seeds;
  std::vector<Point> coms;
  std::vector<std::uint64_t> ys;
  for (std::size_t i = 0; i < need; ++i) {
    seeds.push_back(PrivateSeed::draw(p.m, rng));
    coms.push_back(seeds.back().commitment());
    ys.push_back(rng.next_u64() & ((std::uint64_t{1} << p.m) - 1U));
  }
  std::printf("sampler,f,d,block,threads,prove_ms_per_sample,verify_ms_per_sample,bytes_per_sample,verified\n");
  for (std::size_t block : blocks) {
    {  // warm-up: one block (generators, constant-time and window tables)
      const std::size_t wd = std::min(d, block);
      const std::size_t wn = (wd + p.samples_per_call() - 1) / p.samples_per_call() * p.seeds_per_call();
      std::vector<std::int64_t> s;
      std::vector<SecretScalar> b;
      auto pr = prove_gaussian(p, wd, std::span(seeds).first(wn), std::span(ys).first(wn), s, b, rng, block, threads);
      (void)verify_gaussian(p, wd, std::span(ys).first(wn), std::span(coms).first(wn), pr, threads);
    }
    std::vector<double> tp, tv;
    std::size_t bytes = 0;
    bool ok = true;
    for (int r = 0; r < reps; ++r) {
      std::vector<std::int64_t> s;
      std::vector<SecretScalar> b;
      const auto t0 = std::chrono::steady_clock::now();
      GaussianProof pr = prove_gaussian(p, d, seeds, ys, s, b, rng, block, threads);
      const auto t1 = std::chrono::steady_clock::now();
      ok = ok && verify_gaussian(p, d, ys, coms, pr, threads).ok();
      const auto t2 = std::chrono::steady_clock::now();
      bytes = pr.size_bytes();
      tp.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      tv.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    }
    std::sort(tp.begin(), tp.end());
    std::sort(tv.begin(), tv.end());
    const auto nd = static_cast<double>(d);
    std::printf("%s,%u,%zu,%zu,%u,%.3f,%.3f,%.2f,%d\n", name.c_str(), f, d, block, threads, tp[tp.size() / 2] / nd,
                tv[tv.size() / 2] / nd, static_cast<double>(bytes) / nd, ok ? 1 : 0);
    std::fflush(stdout);
  }
  return 0;
}
