// gopa/learn/data.hpp — the public data sets federated training runs on, read from the CSV files
// Debian's python3-sklearn ships (the seeds' UCI Housing, Wisconsin breast cancer, and the 8×8
// digits), split into training and test rows and dealt out to the parties.
//
//   std::string dir = learn::find_data_dir("");        // --data-dir, $GOPA_DATA_DIR, sklearn, cache
//   learn::Dataset d = learn::load_dataset("housing", dir);  // 506 rows, 13 features, 2 classes
//   learn::Split s = learn::split(d, 0.2, /*seed=*/1);   // 20 % test rows, stratified by class
//   learn::standardize(s);                               // zero mean, unit variance (train statistics)
//   auto parts = learn::deal(s.train.rows(), /*parties=*/100, /*seed=*/1);
//
// Labels: housing is binary, "median value above $21,200" (MEDV > 21.2, the median of the 506
// rows); breast-cancer is benign (1) against malignant (0); digits has the 10 classes 0–9.
// Standardisation uses the training rows' means and deviations, which the experiments treat as
// public (as the seeds do): only the gradients are protected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gopa::learn {

struct Dataset {
  std::string name;
  std::vector<std::string> features;  // column names (x0, x1, … when the file has none)
  std::uint32_t classes = 2;
  std::vector<std::vector<double>> x;  // rows × features
  std::vector<std::uint32_t> y;        // labels in [0, classes)
  [[nodiscard]] std::size_t rows() const noexcept { return x.size(); }
  [[nodiscard]] std::size_t dim() const noexcept { return features.size(); }
};

// The names load_dataset knows, and the file each is read from.
[[nodiscard]] const std::vector<std::string>& dataset_names();
[[nodiscard]] std::string dataset_file(const std::string& name);

// The first directory holding the data files: `given` if not empty (it must hold them), then
// $GOPA_DATA_DIR, /usr/lib/python3/dist-packages/sklearn/datasets/data, and
// $XDG_CACHE_HOME/gopa/datasets (or ~/.cache/gopa/datasets, where scripts/fetch-datasets puts
// them). Throws std::runtime_error listing the places searched and how to fill one.
[[nodiscard]] std::string find_data_dir(const std::string& given);

// Reads a data set by name from `dir` (gzip-compressed files included). Throws
// std::runtime_error naming the file, the line and what is wrong (an unknown name, a cell that
// is not a number, a row of the wrong length, a count that does not match the file's header).
[[nodiscard]] Dataset load_dataset(const std::string& name, const std::string& dir);

// Reads sklearn's layout from text: a first line "n_samples,n_features[,class names…]" (unless
// `features` is not 0: digits has no such line, only rows of 64 values and a label), for housing
// a row of column names, then the rows: the features' values and a target, which `target` turns
// into a label. Throws std::runtime_error naming the line.
[[nodiscard]] Dataset parse_sklearn_csv(const std::string& text, const std::string& name, std::uint32_t classes,
                                        bool header_row, double (*target)(double), std::size_t features = 0);

struct Split {
  Dataset train, test;
};

// Shuffles every class with `seed` and puts round(test_fraction · rows of the class) of its rows
// in the test set, 0 < test_fraction < 1.
[[nodiscard]] Split split(const Dataset& d, double test_fraction, std::uint64_t seed);

// Scales every feature of both sets to zero mean and unit variance over the training rows
// (constant features become 0).
void standardize(Split& s);

// Deals `rows` row indices out to `parties` parties (shuffled with `seed`, sizes differing by at
// most one); every party gets at least one row (throws std::invalid_argument otherwise).
[[nodiscard]] std::vector<std::vector<std::size_t>> deal(std::size_t rows, std::uint32_t parties, std::uint64_t seed);

}  // namespace gopa::learn
