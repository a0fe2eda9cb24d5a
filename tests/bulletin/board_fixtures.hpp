// Shared helpers for the bulletin-board tests: parties that sign entries, temporary directories.
#pragma once

#include <filesystem>
#include <random>
#include <string>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"

namespace gopa::test {

// A temporary directory removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("gopa-board-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// prefix + decimal i (built by appending: GCC 12 warns falsely on "literal" + std::string).
inline std::string label(std::string_view prefix, std::uint64_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

// A protocol party that signs entries with consecutive sequence numbers.
class Party {
 public:
  explicit Party(std::uint8_t id) : key_(make_key(id)) {}
  bulletin::Bytes next(std::string_view payload, bulletin::MessageType type = bulletin::MessageType::commitment) {
    bulletin::Entry e;
    e.session_id.fill(0x5e);
    e.round = 1;
    e.type = type;
    e.sequence = seq_++;
    e.payload.assign(payload.begin(), payload.end());
    return bulletin::sign_entry(e, key_);
  }
  // A different entry reusing sequence number `seq` (equivocation).
  bulletin::Bytes at(std::uint64_t seq, std::string_view payload) {
    bulletin::Entry e;
    e.session_id.fill(0x5e);
    e.round = 1;
    e.type = bulletin::MessageType::commitment;
    e.sequence = seq;
    e.payload.assign(payload.begin(), payload.end());
    return bulletin::sign_entry(e, key_);
  }
  [[nodiscard]] const bulletin::SigningKey& key() const { return key_; }

 private:
  static bulletin::SigningKey make_key(std::uint8_t id) {
    std::array<std::uint8_t, 32> seed{};
    seed.fill(id);
    seed[0] = 0xa7;
    return bulletin::SigningKey::from_seed(seed);
  }
  bulletin::SigningKey key_;
  std::uint64_t seq_ = 0;
};

}  // namespace gopa::test
