// In-memory store: the same contract as the databases, for tests and in-process runs.
#include <algorithm>
#include <map>
#include <mutex>

#include "gopa/bulletin/merkle.hpp"
#include "gopa/bulletin/store.hpp"

namespace gopa::bulletin {

namespace {

class MemoryStore final : public Store {
 public:
  std::string describe() const override { return "memory"; }

  Result<std::optional<std::string>> get_meta(const std::string& key) override {
    std::lock_guard lk(mu_);
    auto it = meta_.find(key);
    if (it == meta_.end()) return std::optional<std::string>{};
    return std::optional<std::string>(it->second);
  }
  Status init_meta(const std::vector<std::pair<std::string, std::string>>& kv) override {
    std::lock_guard lk(mu_);
    for (const auto& [k, v] : kv) meta_.emplace(k, v);
    return {};
  }
  Status set_meta(const std::string& key, const std::string& value) override {
    std::lock_guard lk(mu_);
    meta_[key] = value;
    return {};
  }
  Status erase_meta(const std::string& key) override {
    std::lock_guard lk(mu_);
    meta_.erase(key);
    return {};
  }
  Result<std::uint64_t> size() override {
    std::lock_guard lk(mu_);
    return static_cast<std::uint64_t>(rows_.size());
  }
  Result<std::vector<StoredRow>> read_rows(std::uint64_t begin, std::uint64_t end) override {
    std::lock_guard lk(mu_);
    std::vector<StoredRow> out;
    for (std::uint64_t i = begin; i < end && i < rows_.size(); ++i) out.push_back(rows_[static_cast<std::size_t>(i)]);
    return out;
  }
  Status append_batch(std::uint64_t first, std::span<const PendingEntry> entries,
                      std::span<const EquivocationRecord> evidence, const SealFn& seal) override {
    {
      std::lock_guard lk(mu_);
      if (first != rows_.size()) return make_error(Errc::io, std::string(kLogMoved));
    }
    // `seal` takes the board's locks: call it without holding ours (one writer at a time is the
    // caller's rule, as for the databases).
    std::optional<StoredCheckpoint> cp;
    if (!entries.empty()) {
      std::vector<Hash> leaves;
      for (const auto& e : entries) leaves.push_back(leaf_hash(e.data));
      auto sealed = seal(leaves);
      if (!sealed) return sealed.error();
      cp = std::move(sealed).value();
    }
    std::lock_guard lk(mu_);
    if (first != rows_.size()) return make_error(Errc::io, std::string(kLogMoved));
    for (const auto& e : entries) rows_.push_back(StoredRow{e.data, e.leaf});
    for (const auto& ev : evidence) {
      const bool known = std::any_of(equivocations_.begin(), equivocations_.end(),
                                     [&](const EquivocationRecord& r) { return r.existing_index == ev.existing_index; });
      if (!known) equivocations_.push_back(ev);
    }
    if (cp) checkpoints_.emplace(cp->size, *cp);
    return {};
  }
  Status put_checkpoint(const StoredCheckpoint& cp) override {
    std::lock_guard lk(mu_);
    checkpoints_.emplace(cp.size, cp);
    return {};
  }
  Result<std::optional<StoredCheckpoint>> latest_checkpoint() override {
    std::lock_guard lk(mu_);
    if (checkpoints_.empty()) return std::optional<StoredCheckpoint>{};
    return std::optional<StoredCheckpoint>(checkpoints_.rbegin()->second);
  }
  Result<std::vector<StoredCheckpoint>> checkpoints() override {
    std::lock_guard lk(mu_);
    std::vector<StoredCheckpoint> out;
    for (const auto& [s, cp] : checkpoints_) out.push_back(cp);
    return out;
  }
  Result<std::vector<EquivocationRecord>> equivocations() override {
    std::lock_guard lk(mu_);
    return equivocations_;
  }
  Status add_cosignature(const CosignatureRecord& rec) override {
    std::lock_guard lk(mu_);
    for (const auto& c : cosignatures_) {
      if (c.size == rec.size && c.cosigner_vkey == rec.cosigner_vkey && c.line == rec.line) return {};
    }
    cosignatures_.push_back(rec);
    return {};
  }
  Result<std::vector<CosignatureRecord>> cosignatures(std::uint64_t size) override {
    std::lock_guard lk(mu_);
    std::vector<CosignatureRecord> out;
    for (const auto& c : cosignatures_) {
      if (c.size == size) out.push_back(c);
    }
    return out;
  }
  Status put_blob(const Hash& hash, std::span<const std::uint8_t> data) override {
    std::lock_guard lk(mu_);
    blobs_.emplace(hash, Bytes(data.begin(), data.end()));
    return {};
  }
  Result<std::optional<Bytes>> get_blob(const Hash& hash) override {
    std::lock_guard lk(mu_);
    auto it = blobs_.find(hash);
    if (it == blobs_.end()) return std::optional<Bytes>{};
    return std::optional<Bytes>(it->second);
  }
  Result<std::uint64_t> blob_bytes() override {
    std::lock_guard lk(mu_);
    std::uint64_t n = 0;
    for (const auto& [h, b] : blobs_) n += b.size();
    return n;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> meta_;
  std::vector<StoredRow> rows_;
  std::map<std::uint64_t, StoredCheckpoint> checkpoints_;
  std::vector<EquivocationRecord> equivocations_;
  std::vector<CosignatureRecord> cosignatures_;
  std::map<Hash, Bytes> blobs_;
};

}  // namespace

std::unique_ptr<Store> make_memory_store() { return std::make_unique<MemoryStore>(); }

}  // namespace gopa::bulletin
