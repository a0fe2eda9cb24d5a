// gopa/learn/manifest.hpp — a training run on the board: its manifest (the sessions of its rounds
// in order, the training configuration and the digest of the final model) and the auditor's
// recomputation of the model trajectory from the verified averages (docs/training.md §6).
//
//   learn::TrainingManifest m;  m.data = "housing"; …; m.sessions = ids;  m.model = model_digest(w_T);
//   learn::post_manifest(board, m, coordinator_key);              // `training` entries
//   auto runs = learn::audit_trainings(board, outcomes);          // one TrainingAudit per manifest
//
// Model trajectory: w_0 = 0; round t steps w_t = w_{t−1} − learning_rate · estimate_t with the
// estimate the auditor recomputed from session t's board, and leaves the model unchanged when the
// session released no result. Nothing about the parties' data is on the board: the auditor
// certifies that the published model is this trajectory over verified sessions, not that the
// parties' inputs were gradients of their rows (which nobody but a party can know).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/keys.hpp"
#include "gopa/group.hpp"
#include "gopa/learn/model.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::learn {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::uint8_t kManifestVersion = 0x01;
inline constexpr std::uint32_t kMaxManifestRounds = 10'000;  // gopa train's --rounds limit
inline constexpr std::size_t kMaxDataName = 32;

// Layout (all integers big-endian; a double is its IEEE-754 binary64 bit pattern, u64):
//   version (0x01) ‖ name length (u8, 1..32) ‖ name ([a-z0-9-]) ‖ test fraction (f64, in (0, 1))
//   ‖ split seed (u64) ‖ parties (u32, ≥ 2) ‖ classes (u32, ≥ 2) ‖ features (u32, ≥ 1)
//   ‖ learning rate (f64, finite, > 0) ‖ clip C (f64, finite, > 0) ‖ noise (u8: 1 private, 2 hidden)
//   ‖ rounds T (u32, 1..10,000) ‖ T × session id (32) ‖ data digest (32) ‖ final model digest (32)
// The manifest is posted as `training` entries (round 0, signed by the sessions' coordinator) whose
// session_id field is the run id, SHA-256("gopa/training-run/v1" ‖ encoding); one entry when it
// fits, else the chunks of docs/protocol.md § Chunked messages.
struct TrainingManifest {
  std::string data;  // the data set (learn::load_dataset's name)
  double test_fraction = 0.2;
  std::uint64_t split_seed = 1;
  std::uint32_t parties = 0;
  std::uint32_t classes = 2;
  std::uint32_t features = 0;
  double learning_rate = 0;
  double clip = 0;
  protocol::NoiseMode noise = protocol::NoiseMode::private_samples;
  std::vector<Bytes32> sessions;  // round t is sessions[t − 1]
  Bytes32 data_digest{};          // dataset_digest of the data set as loaded, before the split
  Bytes32 model{};                // model_digest of w_T as the trainer computed it

  [[nodiscard]] Bytes encode() const;
  // Strict: exact length, every field in its range; nullopt and *why otherwise.
  [[nodiscard]] static std::optional<TrainingManifest> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
  [[nodiscard]] Bytes32 run_id() const;
  [[nodiscard]] std::size_t model_dim() const;  // the sessions' d
};

// SHA-256("gopa/train/data/v1" ‖ classes (u32) ‖ rows (u32) ‖ features (u32) ‖ per row: each
// feature (f64 bits, u64) ‖ label (u32)): which file of a data set's name the run used.
[[nodiscard]] Bytes32 dataset_digest(const Dataset& d);

// SHA-256("gopa/train/model/v1" ‖ classes (u32) ‖ features (u32) ‖ each weight (f64 bits, u64)).
[[nodiscard]] Bytes32 model_digest(const Model& m);

// Posts the manifest (its chunks when it outgrows one entry) signed by `key`.
[[nodiscard]] bulletin::Status post_manifest(bulletin::Board& board, const TrainingManifest& m,
                                             const bulletin::SigningKey& key);

// What the auditor learned of one session (protocol::audit_session).
struct SessionOutcome {
  Bytes32 id{};
  bool passed = false;                        // every check passed and nobody misbehaved
  std::vector<double> estimate;               // empty: no result released
  std::optional<protocol::SessionParams> params;
};

struct TrainingAudit {
  Bytes32 run_id{};
  bulletin::PublicKey signer{};
  std::optional<TrainingManifest> manifest;   // when it assembled and decoded
  std::vector<bulletin::CheckResult> checks;
  std::vector<Model> models;                  // w_0 … w_T recomputed (empty when not recomputed)
  bool ignored = false;                       // signed by no session's coordinator: not a run of this board
  [[nodiscard]] bool passed() const;          // false when ignored
};

// w_0 … w_T over the rounds' estimates (empty: that round released nothing). Throws
// std::invalid_argument when an estimate's length is not the model's dimension.
[[nodiscard]] std::vector<Model> trajectory(const TrainingManifest& m, std::span<const std::vector<double>> estimates);

// Every training run on the board, in the order of its first entry. A manifest whose signer set up
// no session on the board is reported as ignored (an outsider cannot fail anyone's run); exact
// copies of an entry count once. `sessions` holds the audit of
// every session on the board (protocol::list_sessions order). Checks per run: the manifest (its
// entries from one signer, assembled, decoded, the run id); its sessions (on the board, distinct,
// in board order, each set up by the manifest's signer with parameters that fit the model, and no
// other session of that coordinator left out); every session verified; the trajectory recomputed
// and equal to the manifest's final model.
[[nodiscard]] bulletin::Result<std::vector<TrainingAudit>> audit_trainings(bulletin::Board& board,
                                                                           std::span<const SessionOutcome> sessions);

}  // namespace gopa::learn
