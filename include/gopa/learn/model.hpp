// gopa/learn/model.hpp — logistic regression (binary: one sigmoid output; multiclass: softmax
// over the classes), its gradient, and the clipping that bounds one party's contribution.
//
//   learn::Model m = learn::Model::zeros(/*classes=*/2, /*features=*/13);   // dim() = 14
//   std::vector<double> g = learn::gradient(m, train, rows);   // mean over the rows
//   learn::clip(g, 1.0);                                       // ‖g‖₂ ≤ 1
//   m.step(average, /*learning_rate=*/0.5);                    // w ← w − η · average
//   double acc = learn::accuracy(m, test);
//
// Parameters are laid out output by output, each with its features' weights then the bias, so a
// binary model over F features has F + 1 parameters and a K-class one K·(F + 1) (digits: 650).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gopa/learn/data.hpp"

namespace gopa::learn {

struct Model {
  std::uint32_t classes = 2;
  std::size_t features = 0;
  std::vector<double> w;

  [[nodiscard]] static Model zeros(std::uint32_t classes, std::size_t features);
  [[nodiscard]] std::size_t outputs() const noexcept { return classes == 2 ? 1 : classes; }
  [[nodiscard]] std::size_t dim() const noexcept { return outputs() * (features + 1); }
  // Class probabilities of one row.
  [[nodiscard]] std::vector<double> probabilities(std::span<const double> x) const;
  [[nodiscard]] std::uint32_t predict(std::span<const double> x) const;
  // w ← w − rate · direction (direction.size() == dim()).
  void step(std::span<const double> direction, double rate);
};

// The mean gradient of the cross-entropy loss over rows `rows` of `d` (all rows when empty).
[[nodiscard]] std::vector<double> gradient(const Model& m, const Dataset& d, std::span<const std::size_t> rows = {});

// Mean cross-entropy and accuracy over every row of `d`.
[[nodiscard]] double loss(const Model& m, const Dataset& d);
[[nodiscard]] double accuracy(const Model& m, const Dataset& d);

// Scales v onto the L2 ball of radius c > 0 when it lies outside; returns ‖v‖₂ before.
double clip(std::vector<double>& v, double c);

}  // namespace gopa::learn
