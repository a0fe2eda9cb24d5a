// Federated SGD (train.hpp).
#include "gopa/learn/train.hpp"

#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>

namespace gopa::learn {

namespace {

std::vector<double> mean_of(const std::vector<std::vector<double>>& v) {
  if (v.empty()) throw std::invalid_argument("no vectors to average");
  std::vector<double> out(v.front().size(), 0.0);
  for (const auto& row : v) {
    if (row.size() != out.size()) throw std::invalid_argument("vectors of different dimensions");
    for (std::size_t j = 0; j < out.size(); ++j) out[j] += row[j];
  }
  for (double& x : out) x /= static_cast<double>(v.size());
  return out;
}

}  // namespace

std::vector<RoundStats> train(const Split& data, const std::vector<std::vector<std::size_t>>& parties,
                              const TrainOptions& o, const Averager& average,
                              const std::function<void(const RoundStats&)>& progress, Model* final_model) {
  if (o.rounds == 0) throw std::invalid_argument("rounds: must be at least 1");
  if (!(o.learning_rate > 0.0)) throw std::invalid_argument("learning rate: must be > 0");
  if (!(o.clip > 0.0)) throw std::invalid_argument("clip: must be > 0");
  if (parties.empty()) throw std::invalid_argument("no parties");
  Model m = Model::zeros(data.train.classes, data.train.dim());
  std::vector<RoundStats> out;
  auto record = [&](std::uint32_t round, double clipped, double seconds) {
    RoundStats s;
    s.round = round;
    s.train_loss = loss(m, data.train);
    s.test_loss = loss(m, data.test);
    s.test_accuracy = accuracy(m, data.test);
    s.clipped_fraction = clipped;
    s.seconds = seconds;
    out.push_back(s);
    if (progress) progress(s);
  };
  record(0, 0.0, 0.0);
  for (std::uint32_t t = 1; t <= o.rounds; ++t) {
    std::vector<std::vector<double>> vectors;
    vectors.reserve(parties.size());
    std::size_t clipped = 0;
    for (const auto& rows : parties) {
      std::vector<double> g = gradient(m, data.train, rows);
      if (clip(g, o.clip) > o.clip) ++clipped;
      vectors.push_back(std::move(g));
    }
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> avg = average(t, vectors);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.step(avg, o.learning_rate);
    record(t, static_cast<double>(clipped) / static_cast<double>(parties.size()), secs);
  }
  if (final_model) *final_model = m;
  return out;
}

Averager exact_average() {
  return [](std::uint32_t, const std::vector<std::vector<double>>& v) { return mean_of(v); };
}

Averager central_average(double sigma, std::uint64_t seed) {
  if (!(sigma >= 0.0)) throw std::invalid_argument("sigma: must be >= 0");
  auto rng = std::make_shared<std::mt19937_64>(seed);
  return [sigma, rng](std::uint32_t, const std::vector<std::vector<double>>& v) {
    std::vector<double> out = mean_of(v);
    std::normal_distribution<double> n(0.0, sigma);
    for (double& x : out) x += n(*rng);
    return out;
  };
}

Averager local_average(double sigma, std::uint64_t seed) {
  if (!(sigma >= 0.0)) throw std::invalid_argument("sigma: must be >= 0");
  auto rng = std::make_shared<std::mt19937_64>(seed);
  return [sigma, rng](std::uint32_t, const std::vector<std::vector<double>>& v) {
    std::normal_distribution<double> n(0.0, sigma);
    std::vector<std::vector<double>> noisy = v;
    for (auto& row : noisy) {
      for (double& x : row) x += n(*rng);
    }
    return mean_of(noisy);
  };
}

}  // namespace gopa::learn
