// The audit of the training runs on a board (gopa/learn/manifest.hpp), as `gopa audit --all` and
// `gopa train` print it: the checks of every manifest, and the test accuracy of every recomputed
// model when the run's data set is on this machine.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gopa/bulletin/board.hpp"
#include "gopa/learn/manifest.hpp"

namespace gopa::cli {

struct TrainingRunsReport {
  nlohmann::json runs = nlohmann::json::array();  // docs/cli-json.md, `training_runs`
  std::vector<std::string> lines;                 // the human-readable report
  bool passed = true;                             // every run's checks passed (true when there is none)
  std::string error;                              // the board could not be read
};

[[nodiscard]] TrainingRunsReport audit_training_runs(bulletin::Board& board, std::span<const learn::SessionOutcome> sessions,
                                                     const std::string& data_dir = {});

}  // namespace gopa::cli
