#include "gopa/protocol/graph.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "gopa/check.hpp"

namespace gopa::protocol {

std::uint64_t uniform_below(Prng& rng, std::uint64_t bound) {
  GOPA_CHECK(bound > 0, "uniform_below: empty range");
  if (bound <= 0xffffffffULL) {
    // Multiply-shift on 32-bit halves with rejection of the biased low region (exactly uniform).
    const std::uint64_t threshold = (0x100000000ULL - bound) % bound;
    for (;;) {
      const std::uint64_t m = (rng() >> 32) * bound;
      if ((m & 0xffffffffULL) >= threshold) return m >> 32;
    }
  }
  // Reject the lowest (2^64 mod bound) outputs so that the remainder is exactly uniform.
  const std::uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % bound;
  }
}

std::uint64_t trial_seed(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Graph Graph::from_edges(std::uint32_t n,
                        std::span<const std::pair<std::uint32_t, std::uint32_t>> edges) {
  Graph g;
  g.n = n;
  std::vector<std::uint32_t> deg(n, 0);
  for (const auto& [a, b] : edges) {
    if (a >= n || b >= n) throw std::invalid_argument("graph edge endpoint out of range");
    if (a == b) throw std::invalid_argument("graph edge is a self-loop");
    ++deg[a];
    ++deg[b];
  }
  std::vector<std::uint32_t> off(std::size_t{n} + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u) off[u + 1] = off[u] + deg[u];
  std::vector<std::uint32_t> adj(off[n]);
  std::vector<std::uint32_t> pos(off.begin(), off.end() - 1);
  for (const auto& [a, b] : edges) {
    adj[pos[a]++] = b;
    adj[pos[b]++] = a;
  }
  // Sort and deduplicate every row, then compact.
  g.offsets.assign(std::size_t{n} + 1, 0);
  std::uint32_t w = 0;
  for (std::uint32_t u = 0; u < n; ++u) {
    auto first = adj.begin() + off[u];
    auto last = adj.begin() + off[u + 1];
    // Rows are short (about 2k): insertion sort beats std::sort here.
    for (auto it = first + (first == last ? 0 : 1); it < last; ++it) {
      const std::uint32_t v = *it;
      auto j = it;
      while (j > first && *(j - 1) > v) {
        *j = *(j - 1);
        --j;
      }
      *j = v;
    }
    last = std::unique(first, last);
    for (auto it = first; it != last; ++it) adj[w++] = *it;
    g.offsets[u + 1] = w;
  }
  adj.resize(w);
  g.adj = std::move(adj);
  return g;
}

Graph sample_k_out(std::uint32_t n, std::uint32_t k, Prng& rng) {
  if (n < 2) throw std::invalid_argument("a k-out graph needs at least 2 parties");
  if (k < 1 || k > n - 1) {
    throw std::invalid_argument("k must be in [1, n-1] (n=" + std::to_string(n) +
                                ", k=" + std::to_string(k) + ")");
  }
  // picks[u·k + i]: the i-th neighbour chosen by u.
  std::vector<std::uint32_t> picks(std::size_t{n} * k);
  const bool dense = std::uint64_t{k} * 4 > n;  // partial shuffle beats rejection for large k
  std::vector<std::uint32_t> pool;
  for (std::uint32_t u = 0; u < n; ++u) {
    std::uint32_t* mine = picks.data() + std::size_t{u} * k;
    if (dense) {
      pool.clear();
      for (std::uint32_t v = 0; v < n; ++v) {
        if (v != u) pool.push_back(v);
      }
      for (std::uint32_t i = 0; i < k; ++i) {
        const auto j = i + static_cast<std::uint32_t>(uniform_below(rng, pool.size() - i));
        std::swap(pool[i], pool[j]);
        mine[i] = pool[i];
      }
    } else {
      std::uint32_t got = 0;
      while (got < k) {
        auto v = static_cast<std::uint32_t>(uniform_below(rng, n - 1));
        if (v >= u) ++v;  // skip u itself
        if (std::find(mine, mine + got, v) == mine + got) mine[got++] = v;
      }
    }
  }
  // Undirected rows: out-picks plus in-picks, deduplicated (a pair chosen by both ends is one
  // edge).
  Graph g;
  g.n = n;
  std::vector<std::uint32_t> deg(n, 0);
  for (auto v : picks) ++deg[v];
  std::vector<std::uint32_t> off(std::size_t{n} + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u) off[u + 1] = off[u] + deg[u];
  std::vector<std::uint32_t> adj(off[n]);
  std::vector<std::uint32_t> fill(off.begin(), off.end() - 1);
  // In-arcs of every row, gathered by a counting pass.
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint32_t i = 0; i < k; ++i) adj[fill[picks[std::size_t{v} * k + i]]++] = v;
  }
  // Row u = out-picks of u, then in-arcs not already among them (stamp array, no sorting).
  g.offsets.assign(std::size_t{n} + 1, 0);
  std::vector<std::uint32_t> stamp(n, ~std::uint32_t{0});
  std::vector<std::uint32_t> result;
  result.reserve(2 * adj.size());
  for (std::uint32_t u = 0; u < n; ++u) {
    const std::uint32_t* mine = picks.data() + std::size_t{u} * k;
    for (std::uint32_t i = 0; i < k; ++i) {
      stamp[mine[i]] = u;
      result.push_back(mine[i]);
    }
    for (std::uint32_t j = off[u]; j < fill[u]; ++j) {
      if (stamp[adj[j]] != u) result.push_back(adj[j]);
    }
    g.offsets[u + 1] = static_cast<std::uint32_t>(result.size());
  }
  g.adj = std::move(result);
  return g;
}

Mask random_corruption(std::uint32_t n, std::uint32_t count, Prng& rng) {
  if (count > n) throw std::invalid_argument("more malicious parties than parties");
  Mask m(n, 0);
  // Floyd's algorithm: `count` distinct indices in O(count).
  for (std::uint32_t j = n - count; j < n; ++j) {
    const auto t = static_cast<std::uint32_t>(uniform_below(rng, std::uint64_t{j} + 1));
    if (m[t]) {
      m[j] = 1;
    } else {
      m[t] = 1;
    }
  }
  return m;
}

Mask greedy_degree_corruption(const Graph& g, std::uint32_t count) {
  if (count > g.n) throw std::invalid_argument("more malicious parties than parties");
  Mask m(g.n, 0);
  if (count == 0) return m;
  // Parties sorted by current honest degree (counting sort), with the start of every degree's
  // bin; the unprocessed parties are the prefix [0, last). Decrementing a degree swaps the party
  // to the front of its bin and moves the bin boundary (as in Batagelj–Zaversnik's core
  // decomposition, here taken from the top). O(n + m).
  std::uint32_t max_deg = 0;
  std::vector<std::uint32_t> deg(g.n);
  for (std::uint32_t u = 0; u < g.n; ++u) {
    deg[u] = g.degree(u);
    max_deg = std::max(max_deg, deg[u]);
  }
  std::vector<std::uint32_t> bin(std::size_t{max_deg} + 2, 0);
  for (auto d : deg) ++bin[d + 1];
  for (std::size_t d = 1; d < bin.size(); ++d) bin[d] += bin[d - 1];
  std::vector<std::uint32_t> order(g.n), pos(g.n);
  {
    std::vector<std::uint32_t> fill(bin.begin(), bin.end() - 1);
    for (std::uint32_t u = 0; u < g.n; ++u) {
      pos[u] = fill[deg[u]]++;
      order[pos[u]] = u;
    }
  }
  std::uint32_t last = g.n;
  for (std::uint32_t done = 0; done < count; ++done) {
    const std::uint32_t u = order[--last];  // the largest current honest degree
    m[u] = 1;
    for (auto w : g.neighbours(u)) {
      if (m[w]) continue;
      const std::uint32_t dw = deg[w];
      const std::uint32_t first_pos = bin[dw];
      const std::uint32_t first = order[first_pos];
      std::swap(order[first_pos], order[pos[w]]);
      pos[first] = pos[w];
      pos[w] = first_pos;
      ++bin[dw];
      --deg[w];
    }
  }
  return m;
}

std::uint32_t HonestSubgraph::smallest_component() const {
  if (component_size.empty()) return 0;
  return *std::min_element(component_size.begin(), component_size.end());
}

HonestSubgraph HonestSubgraph::build(const Graph& g, const Mask& malicious) {
  GOPA_CHECK(malicious.size() == g.n, "mask size must match the graph");
  HonestSubgraph h;
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> index(g.n, kNone);
  for (std::uint32_t u = 0; u < g.n; ++u) {
    if (!malicious[u]) {
      index[u] = static_cast<std::uint32_t>(h.original.size());
      h.original.push_back(u);
    }
  }
  const auto nh = static_cast<std::uint32_t>(h.original.size());
  Graph& s = h.graph;
  s.n = nh;
  s.offsets.assign(std::size_t{nh} + 1, 0);
  s.adj.reserve(g.adj.size());
  for (std::uint32_t i = 0; i < nh; ++i) {
    for (auto v : g.neighbours(h.original[i])) {
      if (index[v] != kNone) s.adj.push_back(index[v]);
    }
    s.offsets[i + 1] = static_cast<std::uint32_t>(s.adj.size());
  }
  // Connected components by breadth-first search.
  h.component.assign(nh, kNone);
  std::vector<std::uint32_t> queue;
  queue.reserve(nh);
  for (std::uint32_t r = 0; r < nh; ++r) {
    if (h.component[r] != kNone) continue;
    const auto id = static_cast<std::uint32_t>(h.component_size.size());
    queue.clear();
    queue.push_back(r);
    h.component[r] = id;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      for (auto v : s.neighbours(queue[head])) {
        if (h.component[v] == kNone) {
          h.component[v] = id;
          queue.push_back(v);
        }
      }
    }
    h.component_size.push_back(static_cast<std::uint32_t>(queue.size()));
  }
  return h;
}

}  // namespace gopa::protocol
