// Logistic regression (model.hpp).
#include "gopa/learn/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gopa::learn {

Model Model::zeros(std::uint32_t classes, std::size_t features) {
  if (classes < 2) throw std::invalid_argument("a model needs at least 2 classes");
  Model m;
  m.classes = classes;
  m.features = features;
  m.w.assign(m.dim(), 0.0);
  return m;
}

std::vector<double> Model::probabilities(std::span<const double> x) const {
  if (x.size() != features) throw std::invalid_argument("row of " + std::to_string(x.size()) + " features, model has " + std::to_string(features));
  const std::size_t stride = features + 1;
  std::vector<double> z(outputs());
  for (std::size_t k = 0; k < z.size(); ++k) {
    double s = w[k * stride + features];
    for (std::size_t j = 0; j < features; ++j) s += w[k * stride + j] * x[j];
    z[k] = s;
  }
  if (classes == 2) {
    const double p1 = 1.0 / (1.0 + std::exp(-z[0]));
    return {1.0 - p1, p1};
  }
  double top = -std::numeric_limits<double>::infinity();
  for (const double v : z) top = std::max(top, v);
  double sum = 0;
  for (double& v : z) sum += (v = std::exp(v - top));
  for (double& v : z) v /= sum;
  return z;
}

std::uint32_t Model::predict(std::span<const double> x) const {
  const std::vector<double> p = probabilities(x);
  std::uint32_t best = 0;
  for (std::uint32_t k = 1; k < p.size(); ++k) {
    if (p[k] > p[best]) best = k;
  }
  return best;
}

void Model::step(std::span<const double> direction, double rate) {
  if (direction.size() != w.size()) throw std::invalid_argument("update of the wrong dimension");
  for (std::size_t i = 0; i < w.size(); ++i) w[i] -= rate * direction[i];
}

std::vector<double> gradient(const Model& m, const Dataset& d, std::span<const std::size_t> rows) {
  std::vector<double> g(m.dim(), 0.0);
  const std::size_t count = rows.empty() ? d.rows() : rows.size();
  if (count == 0) return g;
  const std::size_t stride = m.features + 1;
  for (std::size_t r = 0; r < count; ++r) {
    const std::size_t i = rows.empty() ? r : rows[r];
    const std::vector<double>& x = d.x.at(i);
    const std::vector<double> p = m.probabilities(x);
    for (std::size_t k = 0; k < m.outputs(); ++k) {
      // d(cross-entropy)/d(score_k) = p_k − [y = k] (binary: the sigmoid's class-1 output).
      const std::size_t cls = m.classes == 2 ? 1 : k;
      const double e = p[cls] - (d.y[i] == cls ? 1.0 : 0.0);
      for (std::size_t j = 0; j < m.features; ++j) g[k * stride + j] += e * x[j];
      g[k * stride + m.features] += e;
    }
  }
  for (double& v : g) v /= static_cast<double>(count);
  return g;
}

double loss(const Model& m, const Dataset& d) {
  if (d.rows() == 0) return 0.0;
  double total = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    const std::vector<double> p = m.probabilities(d.x[i]);
    total -= std::log(std::max(p[d.y[i]], std::numeric_limits<double>::min()));
  }
  return total / static_cast<double>(d.rows());
}

double accuracy(const Model& m, const Dataset& d) {
  if (d.rows() == 0) return 0.0;
  std::size_t right = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) right += m.predict(d.x[i]) == d.y[i] ? 1U : 0U;
  return static_cast<double>(right) / static_cast<double>(d.rows());
}

double clip(std::vector<double>& v, double c) {
  if (!(c > 0.0)) throw std::invalid_argument("clip: the radius must be > 0");
  double n2 = 0;
  for (const double x : v) n2 += x * x;
  const double n = std::sqrt(n2);
  if (n > c) {
    for (double& x : v) x *= c / n;
  }
  return n;
}

}  // namespace gopa::learn
