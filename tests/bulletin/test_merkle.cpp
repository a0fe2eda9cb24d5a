// RFC 6962 Merkle tree: reference roots and every transparency-dev probe in tests/data/merkle/.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gopa/bulletin/merkle.hpp"
#include "testdata.hpp"

using namespace gopa::bulletin;
using nlohmann::json;

namespace {

Bytes b64(const json& j) {
  if (j.is_null()) return {};
  auto s = j.get<std::string>();
  if (s.empty()) return {};
  auto b = from_base64(s);
  REQUIRE(b.has_value());
  return *b;
}

std::vector<Bytes> proof_of(const json& j) {
  std::vector<Bytes> out;
  if (j.is_null()) return out;
  for (const auto& p : j) out.push_back(b64(p));
  return out;
}

Hash hex_hash(const std::string& h) {
  auto b = from_hex(h);
  REQUIRE(b.has_value());
  REQUIRE(b->size() == 32);
  Hash out{};
  std::copy(b->begin(), b->end(), out.begin());
  return out;
}

std::vector<std::filesystem::path> probe_files(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(gopa::test::data_path(dir))) {
    if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("merkle: reference roots and node hashes", "[bulletin][merkle]") {
  const json ref = json::parse(gopa::test::read_file(gopa::test::data_path("merkle/reference_roots.json")));
  CHECK(to_hex(empty_root()) == ref["empty_root"].get<std::string>());
  MerkleTree tree;
  CHECK(tree.root() == empty_root());
  const auto& leaves = ref["leaves"];
  for (std::size_t n = 0; n < leaves.size(); ++n) {
    auto data = from_hex(leaves[n].get<std::string>());
    REQUIRE(data.has_value());
    tree.append(leaf_hash(*data));
    CHECK(to_hex(tree.root()) == ref["roots"][n].get<std::string>());
  }
  const auto& nodes = ref["node_hashes"];
  for (unsigned level = 0; level < nodes.size(); ++level) {
    for (std::size_t i = 0; i < nodes[level].size(); ++i) {
      CHECK(tree.complete_subtree(level, i) == hex_hash(nodes[level][i].get<std::string>()));
    }
  }
}

TEST_CASE("merkle: every inclusion probe passes or fails as expected", "[bulletin][merkle]") {
  const auto files = probe_files("merkle/inclusion");
  REQUIRE(files.size() == 98);
  int accepted = 0;
  for (const auto& f : files) {
    const json j = json::parse(gopa::test::read_file(f.string()));
    INFO(f.string());
    const Status s = verify_inclusion(b64(j["leafHash"]), j["leafIdx"].get<std::uint64_t>(),
                                      j["treeSize"].get<std::uint64_t>(), proof_of(j["proof"]), b64(j["root"]));
    CHECK(s.ok() == !j["wantErr"].get<bool>());
    accepted += s.ok() ? 1 : 0;
  }
  CHECK(accepted == 6);
}

TEST_CASE("merkle: every consistency probe passes or fails as expected", "[bulletin][merkle]") {
  const auto files = probe_files("merkle/consistency");
  REQUIRE(files.size() == 98);
  int accepted = 0;
  for (const auto& f : files) {
    const json j = json::parse(gopa::test::read_file(f.string()));
    INFO(f.string());
    const Status s = verify_consistency(j["size1"].get<std::uint64_t>(), j["size2"].get<std::uint64_t>(),
                                        proof_of(j["proof"]), b64(j["root1"]), b64(j["root2"]));
    CHECK(s.ok() == !j["wantErr"].get<bool>());
    accepted += s.ok() ? 1 : 0;
  }
  CHECK(accepted == 6);
}

TEST_CASE("merkle: generated proofs verify for every size up to 70", "[bulletin][merkle]") {
  MerkleTree tree;
  std::vector<Hash> roots{empty_root()};
  for (std::uint64_t i = 0; i < 70; ++i) {
    const std::uint8_t b[2] = {static_cast<std::uint8_t>(i), 0x5a};
    tree.append(leaf_hash(b));
    roots.push_back(tree.root());
  }
  for (std::uint64_t n = 1; n <= 70; ++n) {
    CHECK(tree.root_at(n) == roots[n]);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto proof = tree.inclusion_proof(i, n);
      CHECK(verify_inclusion(tree.leaf(i), i, n, proof, roots[n]).ok());
      // Wrong index fails.
      if (n > 1) CHECK_FALSE(verify_inclusion(tree.leaf(i), (i + 1) % n, n, proof, roots[n]).ok());
    }
    for (std::uint64_t m = 1; m <= n; ++m) {
      const auto proof = tree.consistency_proof(m, n);
      CHECK(verify_consistency(m, n, proof, roots[m], roots[n]).ok());
      if (m < n) CHECK_FALSE(verify_consistency(m, n, proof, roots[m - 1], roots[n]).ok());
    }
  }
  // Truncation restores earlier states exactly.
  tree.truncate(33);
  CHECK(tree.root() == roots[33]);
  tree.append(leaf_hash(std::vector<std::uint8_t>{33, 0x5a}));
  CHECK(tree.root() == roots[34]);
}
