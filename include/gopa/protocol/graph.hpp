// gopa/protocol/graph.hpp — communication graphs and malicious sets for the privacy planner.
//
// A random k-out graph: every party picks k distinct other parties uniformly at random; the
// orientation is then dropped and a pair chosen by both ends becomes one edge (one pairwise
// noise term). The adversary controls a set C of parties; what protects an honest party is the
// honest subgraph G^H (edges with both ends honest), see docs/privacy.md.
//
//   gopa::protocol::Prng rng(seed);
//   auto g = gopa::protocol::sample_k_out(10000, 20, rng);
//   auto bad = gopa::protocol::random_corruption(g.n, 5000, rng);   // or greedy_degree_corruption
//   auto h = gopa::protocol::HonestSubgraph::build(g, bad);
//
// Simulation randomness only (std::mt19937_64): these graphs are for planning, not for the
// protocol's own graph, which is derived from public randomness on the board.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace gopa::protocol {

using Prng = std::mt19937_64;

// Uniform integer in [0, bound), bound > 0, without modulo bias.
[[nodiscard]] std::uint64_t uniform_below(Prng& rng, std::uint64_t bound);

// A seed for trial `index` of a run seeded with `seed` (SplitMix64), so results do not depend
// on how trials are spread over threads.
[[nodiscard]] std::uint64_t trial_seed(std::uint64_t seed, std::uint64_t index) noexcept;

// Undirected simple graph in compressed sparse row form: no self-loops, no repeated neighbour
// (rows are sorted when built by from_edges, in no particular order from sample_k_out).
struct Graph {
  std::uint32_t n = 0;
  std::vector<std::uint32_t> offsets;  // size n + 1
  std::vector<std::uint32_t> adj;      // size 2 · edges

  [[nodiscard]] std::uint32_t degree(std::uint32_t u) const { return offsets[u + 1] - offsets[u]; }
  [[nodiscard]] std::span<const std::uint32_t> neighbours(std::uint32_t u) const {
    return {adj.data() + offsets[u], degree(u)};
  }
  [[nodiscard]] std::size_t edges() const { return adj.size() / 2; }

  // From an edge list (duplicates merged, self-loops rejected with std::invalid_argument).
  [[nodiscard]] static Graph from_edges(std::uint32_t n,
                                        std::span<const std::pair<std::uint32_t, std::uint32_t>> edges);
};

// Random k-out graph on n parties: 1 ≤ k ≤ n − 1 (std::invalid_argument otherwise).
[[nodiscard]] Graph sample_k_out(std::uint32_t n, std::uint32_t k, Prng& rng);

// Malicious sets: a vector<bool>-like mask of size n, true = malicious.
using Mask = std::vector<std::uint8_t>;

// `count` parties chosen uniformly at random (the static adversary of the paper).
[[nodiscard]] Mask random_corruption(std::uint32_t n, std::uint32_t count, Prng& rng);

// Graph-aware greedy attack: repeatedly corrupt the honest party with the most honest
// neighbours (ties broken deterministically), which removes the most honest-honest edges per
// corruption.
[[nodiscard]] Mask greedy_degree_corruption(const Graph& g, std::uint32_t count);

// The honest subgraph G^H, relabelled 0..n_H − 1 in increasing original order.
struct HonestSubgraph {
  Graph graph;                          // on honest parties only
  std::vector<std::uint32_t> original;  // honest index -> party index
  std::vector<std::uint32_t> component; // connected component id of each honest party
  std::vector<std::uint32_t> component_size;  // by component id

  [[nodiscard]] std::uint32_t size() const { return graph.n; }
  [[nodiscard]] std::uint32_t smallest_component() const;
  [[nodiscard]] static HonestSubgraph build(const Graph& g, const Mask& malicious);
};

}  // namespace gopa::protocol
