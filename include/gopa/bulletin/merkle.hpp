// gopa/bulletin/merkle.hpp — RFC 6962 / RFC 9162 Merkle tree: hashes, proofs, verifiers.
//
//   MerkleTree t;  t.append(leaf_hash(entry_bytes));
//   auto proof = t.inclusion_proof(index, t.size());
//   Status s = verify_inclusion(leaf, index, t.size(), proof, t.root());
//
// leaf = SHA-256(0x00 || data), node = SHA-256(0x01 || left || right) (RFC 6962 §2.1).
// The tree keeps every complete aligned subtree hash, so any root, proof or C2SP tile is
// O(log n) hashes away, and appending is amortised O(1).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gopa/bulletin/result.hpp"

namespace gopa::bulletin {

[[nodiscard]] Hash leaf_hash(std::span<const std::uint8_t> data);
[[nodiscard]] Hash node_hash(const Hash& left, const Hash& right);
// SHA-256 of the empty string: the root of the empty tree (RFC 6962 §2.1).
[[nodiscard]] Hash empty_root();

class MerkleTree {
 public:
  void append(const Hash& leaf);
  [[nodiscard]] std::uint64_t size() const noexcept { return levels_.empty() ? 0 : levels_[0].size(); }
  [[nodiscard]] Hash root() const { return root_at(size()); }
  // Root of the first `size` leaves (size <= this->size()).
  [[nodiscard]] Hash root_at(std::uint64_t size) const;
  [[nodiscard]] const Hash& leaf(std::uint64_t index) const;
  // Hash of the complete subtree of 2^level leaves starting at index << level, if complete.
  [[nodiscard]] const Hash& complete_subtree(unsigned level, std::uint64_t index) const;
  [[nodiscard]] std::uint64_t complete_count(unsigned level) const noexcept;

  // RFC 6962 §2.1.1 PATH(index, D[0:size]); requires index < size <= this->size().
  [[nodiscard]] std::vector<Hash> inclusion_proof(std::uint64_t index, std::uint64_t size) const;
  // RFC 6962 §2.1.2 PROOF(size1, D[0:size2]); requires 0 < size1 <= size2 <= this->size().
  [[nodiscard]] std::vector<Hash> consistency_proof(std::uint64_t size1, std::uint64_t size2) const;
  void truncate(std::uint64_t size);

 private:
  Hash range_hash(std::uint64_t begin, std::uint64_t end) const;
  void path(std::uint64_t index, std::uint64_t begin, std::uint64_t end, std::vector<Hash>& out) const;
  void subproof(std::uint64_t m, std::uint64_t begin, std::uint64_t end, bool whole,
                std::vector<Hash>& out) const;
  std::vector<std::vector<Hash>> levels_;
};

// RFC 9162 §2.1.3.2. `leaf` must be 32 bytes, index < size. Proof items must be 32 bytes.
[[nodiscard]] Status verify_inclusion(std::span<const std::uint8_t> leaf, std::uint64_t index,
                                      std::uint64_t size, std::span<const Bytes> proof,
                                      std::span<const std::uint8_t> root);
// RFC 9162 §2.1.4.2, with size1 == 0 rejected and size1 == size2 requiring an empty proof and
// byte-identical roots.
[[nodiscard]] Status verify_consistency(std::uint64_t size1, std::uint64_t size2,
                                        std::span<const Bytes> proof,
                                        std::span<const std::uint8_t> root1,
                                        std::span<const std::uint8_t> root2);
// Convenience overloads for 32-byte hashes.
[[nodiscard]] Status verify_inclusion(const Hash& leaf, std::uint64_t index, std::uint64_t size,
                                      std::span<const Hash> proof, const Hash& root);
[[nodiscard]] Status verify_consistency(std::uint64_t size1, std::uint64_t size2,
                                        std::span<const Hash> proof, const Hash& root1,
                                        const Hash& root2);

}  // namespace gopa::bulletin
