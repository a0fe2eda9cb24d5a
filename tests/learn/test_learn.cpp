// The training data sets, logistic regression and federated SGD (gopa/learn).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "gopa/learn/data.hpp"
#include "gopa/learn/model.hpp"
#include "gopa/learn/train.hpp"

namespace gl = gopa::learn;

namespace {

double identity(double v) { return v; }

// A linearly separable two-class set: label 1 when x0 + 0.5·x1 > 0.
gl::Dataset separable(std::size_t rows, std::uint64_t seed) {
  gl::Dataset d;
  d.name = "synthetic";
  d.features = {"a", "b", "c"};
  d.classes = 2;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  for (std::size_t i = 0; i < rows; ++i) {
    std::vector<double> x{n(rng), n(rng), n(rng)};
    d.y.push_back(x[0] + 0.5 * x[1] > 0 ? 1U : 0U);
    d.x.push_back(std::move(x));
  }
  return d;
}

}  // namespace

TEST_CASE("sklearn CSV layout: good files parse, bad ones are refused with the line", "[learn][data]") {
  const std::string good = "3,2,no,yes\n1.5,2,0\n-1,0.25,1\n3,4,1\n";
  const gl::Dataset d = gl::parse_sklearn_csv(good, "t.csv", 2, false, identity);
  REQUIRE(d.rows() == 3);
  CHECK(d.dim() == 2);
  CHECK(d.x[1][1] == 0.25);
  CHECK(d.y == std::vector<std::uint32_t>{0, 1, 1});

  const std::string housing = "2,2,,\n\"A\",\"B\",\"MEDV\"\n1,2,30\n3,4,10\n";
  const gl::Dataset h = gl::parse_sklearn_csv(housing, "h.csv", 2, true, [](double v) { return v > 21.2 ? 1.0 : 0.0; });
  CHECK(h.features == std::vector<std::string>{"A", "B"});
  CHECK(h.y == std::vector<std::uint32_t>{1, 0});

  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b : {Bad{"", "empty"}, Bad{"x,2\n1,2,0\n", "first line"}, Bad{"2,2\n1,2,0\n", "announces 2 rows"},
                       Bad{"1,2\n1,2\n", "t.csv:2: expected 3 values"}, Bad{"1,2\n1,z,0\n", "t.csv:2: 'z' is not a number"},
                       Bad{"1,2\n1,2,7\n", "not a class"}, Bad{"1,2\n1,2,0.5\n", "not a class"},
                       Bad{"1,2\n1,nan,0\n", "not a number"}, Bad{"1,2\n1,2,0\n1,2,1\n", "announces 1 rows"}}) {
    INFO(b.text);
    try {
      (void)gl::parse_sklearn_csv(b.text, "t.csv", 2, false, identity);
      FAIL("accepted");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find(b.says) != std::string::npos);
    }
  }
  CHECK_THROWS(gl::load_dataset("no-such-set", "/tmp"));
  CHECK_THROWS(gl::find_data_dir("/nonexistent-gopa-dir"));
}

TEST_CASE("split, standardize and deal", "[learn][data]") {
  const gl::Dataset d = separable(101, 3);
  gl::Split s = gl::split(d, 0.2, 7);
  CHECK(s.train.rows() + s.test.rows() == 101);
  const std::size_t ones = static_cast<std::size_t>(std::count(d.y.begin(), d.y.end(), 1U));
  const std::size_t test_ones = static_cast<std::size_t>(std::count(s.test.y.begin(), s.test.y.end(), 1U));
  CHECK(test_ones == static_cast<std::size_t>(std::lround(0.2 * static_cast<double>(ones))));  // stratified
  gl::standardize(s);
  for (std::size_t j = 0; j < 3; ++j) {
    double mean = 0, var = 0;
    for (const auto& r : s.train.x) mean += r[j];
    mean /= static_cast<double>(s.train.rows());
    for (const auto& r : s.train.x) var += (r[j] - mean) * (r[j] - mean);
    CHECK(std::fabs(mean) < 1e-12);
    CHECK(std::fabs(var / static_cast<double>(s.train.rows()) - 1.0) < 1e-9);
  }
  const auto parts = gl::deal(81, 10, 5);
  REQUIRE(parts.size() == 10);
  std::set<std::size_t> seen;
  for (const auto& p : parts) {
    CHECK((p.size() == 8 || p.size() == 9));
    for (const std::size_t i : p) CHECK(seen.insert(i).second);
  }
  CHECK(seen.size() == 81);
  CHECK_THROWS_AS(gl::deal(5, 6, 1), std::invalid_argument);
  CHECK_THROWS_AS(gl::split(d, 1.0, 1), std::invalid_argument);
}

TEST_CASE("logistic regression: the gradient is the loss's derivative, binary and multiclass", "[learn][model]") {
  for (const std::uint32_t classes : {2U, 4U}) {
    INFO("classes " << classes);
    gl::Dataset d = separable(40, 11);
    d.classes = classes;
    for (std::size_t i = 0; i < d.rows(); ++i) d.y[i] = static_cast<std::uint32_t>(i % classes);
    gl::Model m = gl::Model::zeros(classes, 3);
    CHECK(m.dim() == (classes == 2 ? 4U : 16U));
    std::mt19937_64 rng(1);
    std::normal_distribution<double> n(0.0, 0.5);
    for (double& w : m.w) w = n(rng);
    const std::vector<double> g = gl::gradient(m, d);
    for (std::size_t k = 0; k < m.dim(); ++k) {
      gl::Model up = m, down = m;
      up.w[k] += 1e-6;
      down.w[k] -= 1e-6;
      const double numeric = (gl::loss(up, d) - gl::loss(down, d)) / 2e-6;
      CHECK(std::fabs(numeric - g[k]) < 1e-6);
    }
  }
}

TEST_CASE("clipping bounds the norm and leaves short vectors alone", "[learn][model]") {
  std::vector<double> v{3, 4};
  CHECK(gl::clip(v, 1.0) == 5.0);
  CHECK(std::fabs(std::hypot(v[0], v[1]) - 1.0) < 1e-15);
  CHECK(v[0] / v[1] == Approx(0.75));
  std::vector<double> w{0.3, 0.4};
  CHECK(gl::clip(w, 1.0) == Approx(0.5));
  CHECK(w == std::vector<double>{0.3, 0.4});
  CHECK_THROWS(gl::clip(w, 0.0));
}

TEST_CASE("federated SGD learns a separable set; noise makes it worse", "[learn][train]") {
  gl::Split s = gl::split(separable(400, 21), 0.25, 2);
  gl::standardize(s);
  const auto parts = gl::deal(s.train.rows(), 30, 3);
  gl::TrainOptions o;
  o.rounds = 20;
  o.learning_rate = 2.0;
  o.clip = 1.0;
  std::vector<gl::RoundStats> seen;
  const auto exact = gl::train(s, parts, o, gl::exact_average(), [&](const gl::RoundStats& r) { seen.push_back(r); });
  REQUIRE(exact.size() == 21);
  CHECK(seen.size() == 21);
  CHECK(exact.front().test_accuracy < 0.7);  // the zero model predicts one class
  CHECK(exact.back().test_accuracy > 0.9);
  CHECK(exact.back().train_loss < exact.front().train_loss);
  // A curator adding no noise is the exact average.
  const auto zero = gl::train(s, parts, o, gl::central_average(0.0, 1));
  CHECK(zero.back().test_accuracy == exact.back().test_accuracy);
  // Huge local noise destroys the signal.
  const auto local = gl::train(s, parts, o, gl::local_average(100.0, 1));
  CHECK(local.back().test_accuracy < exact.back().test_accuracy - 0.1);
  // The averager sees every party's clipped vector.
  const auto checked = gl::train(s, parts, o, [&](std::uint32_t, const std::vector<std::vector<double>>& v) {
    REQUIRE(v.size() == 30);
    for (const auto& x : v) CHECK(std::sqrt(std::inner_product(x.begin(), x.end(), x.begin(), 0.0)) <= 1.0 + 1e-12);
    return gl::exact_average()(0, v);
  });
  CHECK(checked.back().test_accuracy == exact.back().test_accuracy);
}

TEST_CASE("the Debian data sets load with their documented shapes", "[learn][data]") {
  std::string dir;
  try {
    dir = gl::find_data_dir("");
  } catch (const std::exception& e) {
    FAIL(std::string(e.what()) + " (scripts/test runs scripts/fetch-datasets)");
  }
  const gl::Dataset h = gl::load_dataset("housing", dir);
  CHECK(h.rows() == 506);
  CHECK(h.dim() == 13);
  CHECK(h.features.front() == "CRIM");
  const auto above = std::count(h.y.begin(), h.y.end(), 1U);
  CHECK(above > 240);  // MEDV > 21.2 splits the set near its median
  CHECK(above < 266);
  const gl::Dataset b = gl::load_dataset("breast-cancer", dir);
  CHECK(b.rows() == 569);
  CHECK(b.dim() == 30);
  const gl::Dataset g = gl::load_dataset("digits", dir);
  CHECK(g.rows() == 1797);
  CHECK(g.dim() == 64);
  CHECK(g.classes == 10);
  CHECK(gl::Model::zeros(g.classes, g.dim()).dim() == 650);
  // Non-private federated SGD on housing beats the majority class clearly.
  gl::Split s = gl::split(h, 0.2, 1);
  gl::standardize(s);
  gl::TrainOptions o;
  o.rounds = 10;
  o.learning_rate = 3.0;
  o.clip = 0.5;
  const auto curve = gl::train(s, gl::deal(s.train.rows(), 100, 1), o, gl::exact_average());
  CHECK(curve.back().test_accuracy > 0.75);
}
