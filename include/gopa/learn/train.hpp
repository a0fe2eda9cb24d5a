// gopa/learn/train.hpp — federated SGD: in every round each party computes the mean gradient of
// its own rows, clips it into the L2 ball of radius C, and an averager releases the average of
// the parties' vectors, which every party applies to the shared model.
//
//   learn::TrainOptions o;  o.rounds = 10;  o.learning_rate = 1.0;  o.clip = 1.0;
//   auto curve = learn::train(split, parties, o, learn::exact_average());
//
// The averager is where privacy comes from: exact (non-private SGD), a trusted curator adding
// Gaussian noise to the average (central DP, simulated), every party adding its own noise
// before averaging (local DP, simulated), or a verifiable GOPA session on a bulletin board
// (`gopa train`, src/cli/train.cpp). The model only ever sees released averages, so the rounds'
// privacy composes (protocol/requirements.hpp, compose_sessions).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "gopa/learn/data.hpp"
#include "gopa/learn/model.hpp"

namespace gopa::learn {

// The averaging step of one round: the parties' clipped vectors (one per party, in roster
// order) in, the released average out (same dimension).
using Averager = std::function<std::vector<double>(std::uint32_t round, const std::vector<std::vector<double>>& vectors)>;

struct TrainOptions {
  std::uint32_t rounds = 10;
  double learning_rate = 1.0;
  double clip = 1.0;  // C: every party's vector is clipped to ‖v‖₂ ≤ C
};

struct RoundStats {
  std::uint32_t round = 0;     // 0: the initial model
  double train_loss = 0.0;
  double test_loss = 0.0;
  double test_accuracy = 0.0;
  double clipped_fraction = 0.0;  // parties whose gradient was longer than C
  double seconds = 0.0;           // the averaging step
};

// Runs o.rounds rounds from the zero model; `progress` sees round 0 and every round after.
[[nodiscard]] std::vector<RoundStats> train(const Split& data, const std::vector<std::vector<std::size_t>>& parties,
                                            const TrainOptions& o, const Averager& average,
                                            const std::function<void(const RoundStats&)>& progress = {},
                                            Model* final_model = nullptr);

// The plain average.
[[nodiscard]] Averager exact_average();
// The average plus N(0, σ²) on every coordinate (a trusted curator).
[[nodiscard]] Averager central_average(double sigma, std::uint64_t seed);
// Every party adds N(0, σ²) to each coordinate of its own vector before the average (local DP).
[[nodiscard]] Averager local_average(double sigma, std::uint64_t seed);

}  // namespace gopa::learn
