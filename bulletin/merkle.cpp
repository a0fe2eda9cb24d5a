// RFC 6962 Merkle tree and the RFC 9162 proof verifiers.
#include "gopa/bulletin/merkle.hpp"

#include <sodium.h>

#include <algorithm>
#include <bit>

namespace gopa::bulletin {

namespace {

// Largest power of two strictly less than n (n >= 2), the split point k of RFC 6962 §2.1.
std::uint64_t split_point(std::uint64_t n) {
  GOPA_CHECK(n >= 2, "split_point needs n >= 2");
  return std::bit_floor(n - 1);
}

bool equal_bytes(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

Hash node_hash_raw(std::span<const std::uint8_t> left, std::span<const std::uint8_t> right) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  const std::uint8_t prefix = 0x01;
  crypto_hash_sha256_update(&st, &prefix, 1);
  crypto_hash_sha256_update(&st, left.data(), left.size());
  crypto_hash_sha256_update(&st, right.data(), right.size());
  Hash out{};
  crypto_hash_sha256_final(&st, out.data());
  return out;
}

}  // namespace

Hash leaf_hash(std::span<const std::uint8_t> data) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  const std::uint8_t prefix = 0x00;
  crypto_hash_sha256_update(&st, &prefix, 1);
  crypto_hash_sha256_update(&st, data.data(), data.size());
  Hash out{};
  crypto_hash_sha256_final(&st, out.data());
  return out;
}

Hash node_hash(const Hash& left, const Hash& right) { return node_hash_raw(left, right); }

Hash empty_root() { return sha256(std::span<const std::uint8_t>{}); }

void MerkleTree::append(const Hash& leaf) {
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].push_back(leaf);
  // Every time a level gains an even count, a new complete subtree one level up is finished.
  for (std::size_t level = 0; levels_[level].size() % 2 == 0; ++level) {
    if (levels_.size() == level + 1) levels_.emplace_back();
    const auto& cur = levels_[level];
    levels_[level + 1].push_back(node_hash(cur[cur.size() - 2], cur[cur.size() - 1]));
  }
}

void MerkleTree::truncate(std::uint64_t size) {
  GOPA_CHECK(size <= this->size(), "truncate beyond the tree size");
  for (std::size_t level = 0; level < levels_.size(); ++level) {
    levels_[level].resize(static_cast<std::size_t>(size >> level));
  }
}

const Hash& MerkleTree::leaf(std::uint64_t index) const {
  GOPA_CHECK(index < size(), "leaf index out of range");
  return levels_[0][static_cast<std::size_t>(index)];
}

std::uint64_t MerkleTree::complete_count(unsigned level) const noexcept {
  return level < levels_.size() ? levels_[level].size() : 0;
}

const Hash& MerkleTree::complete_subtree(unsigned level, std::uint64_t index) const {
  GOPA_CHECK(index < complete_count(level), "complete subtree out of range");
  return levels_[level][static_cast<std::size_t>(index)];
}

Hash MerkleTree::range_hash(std::uint64_t begin, std::uint64_t end) const {
  GOPA_CHECK(begin < end && end <= size(), "range_hash over an empty or out-of-range span");
  const std::uint64_t n = end - begin;
  if (std::has_single_bit(n)) {
    const auto level = static_cast<unsigned>(std::countr_zero(n));
    GOPA_CHECK(begin % n == 0, "RFC 6962 subtrees are aligned");
    return complete_subtree(level, begin >> level);
  }
  const std::uint64_t k = split_point(n);
  return node_hash(range_hash(begin, begin + k), range_hash(begin + k, end));
}

Hash MerkleTree::root_at(std::uint64_t size) const {
  GOPA_CHECK(size <= this->size(), "root_at beyond the tree size");
  if (size == 0) return empty_root();
  return range_hash(0, size);
}

void MerkleTree::path(std::uint64_t index, std::uint64_t begin, std::uint64_t end,
                      std::vector<Hash>& out) const {
  const std::uint64_t n = end - begin;
  if (n <= 1) return;
  const std::uint64_t k = split_point(n);
  if (index < k) {
    path(index, begin, begin + k, out);
    out.push_back(range_hash(begin + k, end));
  } else {
    path(index - k, begin + k, end, out);
    out.push_back(range_hash(begin, begin + k));
  }
}

std::vector<Hash> MerkleTree::inclusion_proof(std::uint64_t index, std::uint64_t size) const {
  GOPA_CHECK(index < size && size <= this->size(), "inclusion_proof arguments out of range");
  std::vector<Hash> out;
  path(index, 0, size, out);
  return out;
}

void MerkleTree::subproof(std::uint64_t m, std::uint64_t begin, std::uint64_t end, bool whole,
                          std::vector<Hash>& out) const {
  const std::uint64_t n = end - begin;
  if (m == n) {
    if (!whole) out.push_back(range_hash(begin, end));
    return;
  }
  const std::uint64_t k = split_point(n);
  if (m <= k) {
    subproof(m, begin, begin + k, whole, out);
    out.push_back(range_hash(begin + k, end));
  } else {
    subproof(m - k, begin + k, end, false, out);
    out.push_back(range_hash(begin, begin + k));
  }
}

std::vector<Hash> MerkleTree::consistency_proof(std::uint64_t size1, std::uint64_t size2) const {
  GOPA_CHECK(0 < size1 && size1 <= size2 && size2 <= size(), "consistency_proof arguments out of range");
  std::vector<Hash> out;
  if (size1 == size2) return out;
  subproof(size1, 0, size2, true, out);
  return out;
}

Status verify_inclusion(std::span<const std::uint8_t> leaf, std::uint64_t index, std::uint64_t size,
                        std::span<const Bytes> proof, std::span<const std::uint8_t> root) {
  if (index >= size) return make_error(Errc::bad_proof, "inclusion: leaf index not below tree size");
  if (leaf.size() != 32) return make_error(Errc::bad_proof, "inclusion: leaf hash is not 32 bytes");
  if (proof.size() > 64) return make_error(Errc::bad_proof, "inclusion: proof longer than 64 hashes");
  std::uint64_t fn = index;
  std::uint64_t sn = size - 1;
  Hash r{};
  std::copy(leaf.begin(), leaf.end(), r.begin());
  for (const Bytes& p : proof) {
    if (p.size() != 32) return make_error(Errc::bad_proof, "inclusion: proof hash is not 32 bytes");
    if (sn == 0) return make_error(Errc::bad_proof, "inclusion: proof longer than the path");
    if ((fn & 1) != 0 || fn == sn) {
      r = node_hash_raw(p, r);
      while ((fn & 1) == 0 && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = node_hash_raw(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  if (sn != 0) return make_error(Errc::bad_proof, "inclusion: proof shorter than the path");
  if (!equal_bytes(r, root)) return make_error(Errc::bad_proof, "inclusion: computed root differs");
  return {};
}

Status verify_consistency(std::uint64_t size1, std::uint64_t size2, std::span<const Bytes> proof,
                          std::span<const std::uint8_t> root1, std::span<const std::uint8_t> root2) {
  if (size2 < size1) return make_error(Errc::bad_proof, "consistency: size2 < size1");
  if (size1 == 0) return make_error(Errc::bad_proof, "consistency: size1 is 0");
  if (size1 == size2) {
    if (!proof.empty()) return make_error(Errc::bad_proof, "consistency: equal sizes need an empty proof");
    if (!equal_bytes(root1, root2)) return make_error(Errc::bad_proof, "consistency: equal sizes, different roots");
    return {};
  }
  if (proof.empty()) return make_error(Errc::bad_proof, "consistency: empty proof");
  if (proof.size() > 128) return make_error(Errc::bad_proof, "consistency: proof longer than 128 hashes");
  for (const Bytes& p : proof) {
    if (p.size() != 32) return make_error(Errc::bad_proof, "consistency: proof hash is not 32 bytes");
  }
  // RFC 9162 §2.1.4.2 step 1: if size1 is a power of two, root1 is the first node of the path.
  std::vector<std::span<const std::uint8_t>> path;
  path.reserve(proof.size() + 1);
  if (std::has_single_bit(size1)) path.push_back(root1);
  for (const Bytes& p : proof) path.emplace_back(p);
  if (path[0].size() != 32) return make_error(Errc::bad_proof, "consistency: first hash is not 32 bytes");

  std::uint64_t fn = size1 - 1;
  std::uint64_t sn = size2 - 1;
  while ((fn & 1) != 0) {
    fn >>= 1;
    sn >>= 1;
  }
  Hash fr{};
  std::copy(path[0].begin(), path[0].end(), fr.begin());
  Hash sr = fr;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const auto c = path[i];
    if (sn == 0) return make_error(Errc::bad_proof, "consistency: proof longer than the path");
    if ((fn & 1) != 0 || fn == sn) {
      fr = node_hash_raw(c, fr);
      sr = node_hash_raw(c, sr);
      while ((fn & 1) == 0 && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      sr = node_hash_raw(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  if (sn != 0) return make_error(Errc::bad_proof, "consistency: proof shorter than the path");
  if (!equal_bytes(fr, root1)) return make_error(Errc::bad_proof, "consistency: first root differs");
  if (!equal_bytes(sr, root2)) return make_error(Errc::bad_proof, "consistency: second root differs");
  return {};
}

Status verify_inclusion(const Hash& leaf, std::uint64_t index, std::uint64_t size,
                        std::span<const Hash> proof, const Hash& root) {
  std::vector<Bytes> p;
  p.reserve(proof.size());
  for (const Hash& h : proof) p.emplace_back(h.begin(), h.end());
  return verify_inclusion(std::span<const std::uint8_t>(leaf), index, size, p,
                          std::span<const std::uint8_t>(root));
}

Status verify_consistency(std::uint64_t size1, std::uint64_t size2, std::span<const Hash> proof,
                          const Hash& root1, const Hash& root2) {
  std::vector<Bytes> p;
  p.reserve(proof.size());
  for (const Hash& h : proof) p.emplace_back(h.begin(), h.end());
  return verify_consistency(size1, size2, p, std::span<const std::uint8_t>(root1),
                            std::span<const std::uint8_t>(root2));
}

}  // namespace gopa::bulletin
