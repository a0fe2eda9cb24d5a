// The training data sets (data.hpp).
#include "gopa/learn/data.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gopa::learn {

namespace {

namespace fs = std::filesystem;

double housing_target(double medv) { return medv > 21.2 ? 1.0 : 0.0; }
double label_target(double v) { return v; }

struct Known {
  const char* name;
  const char* file;
  std::uint32_t classes;
  std::size_t features;  // files without the count line (digits) say nothing of their shape
  bool header_row;
  double (*target)(double);
};

const Known kKnown[] = {
    {"housing", "boston_house_prices.csv", 2, 0, true, housing_target},
    {"breast-cancer", "breast_cancer.csv", 2, 0, false, label_target},
    {"digits", "digits.csv.gz", 10, 64, false, label_target},
};

const Known& known(const std::string& name) {
  for (const Known& k : kKnown) {
    if (name == k.name) return k;
  }
  std::string list;
  for (const Known& k : kKnown) list += std::string(list.empty() ? "" : ", ") + k.name;
  throw std::runtime_error("unknown data set '" + name + "' (known: " + list + ")");
}

std::string read_file(const fs::path& path) {
  const std::string p = path.string();
  if (p.size() > 3 && p.compare(p.size() - 3, 3, ".gz") == 0) {
    gzFile f = gzopen(p.c_str(), "rb");
    if (!f) throw std::runtime_error("cannot open " + p);
    std::string out;
    char buf[1 << 15];
    for (;;) {
      const int got = gzread(f, buf, sizeof buf);
      if (got < 0) {
        int err = 0;
        const std::string why = gzerror(f, &err);
        gzclose(f);
        throw std::runtime_error(p + ": not a valid gzip file (" + why + ")");
      }
      if (got == 0) break;
      out.append(buf, static_cast<std::size_t>(got));
    }
    gzclose(f);
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream ss(line);
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

bool number(const std::string& cell, double& v) {
  std::size_t used = 0;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == cell.size() && std::isfinite(v);
}

bool holds_data(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / kKnown[0].file, ec) || fs::exists(dir / kKnown[1].file, ec) ||
         fs::exists(dir / kKnown[2].file, ec);
}

}  // namespace

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Known& k : kKnown) v.emplace_back(k.name);
    return v;
  }();
  return names;
}

std::string dataset_file(const std::string& name) { return known(name).file; }

std::string find_data_dir(const std::string& given) {
  if (!given.empty()) {
    if (!holds_data(given)) {
      throw std::runtime_error("--data-dir '" + given + "' holds none of boston_house_prices.csv, breast_cancer.csv, digits.csv.gz");
    }
    return given;
  }
  std::vector<fs::path> places;
  if (const char* env = std::getenv("GOPA_DATA_DIR"); env && *env) places.emplace_back(env);
  places.emplace_back("/usr/lib/python3/dist-packages/sklearn/datasets/data");
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    places.push_back(fs::path(xdg) / "gopa" / "datasets");
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    places.push_back(fs::path(home) / ".cache" / "gopa" / "datasets");
  }
  std::string searched;
  for (const fs::path& p : places) {
    if (holds_data(p)) return p.string();
    searched += (searched.empty() ? "" : ", ") + p.string();
  }
  throw std::runtime_error("no data files found (searched " + searched +
                           "); run scripts/fetch-datasets, install python3-sklearn, or pass --data-dir");
}

Dataset parse_sklearn_csv(const std::string& text, const std::string& name, std::uint32_t classes, bool header_row,
                          double (*target)(double), std::size_t features) {
  Dataset d;
  d.name = name;
  d.classes = classes;
  std::istringstream in(text);
  std::string line;
  std::size_t lineno = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(name + ":" + std::to_string(lineno) + ": " + why);
  };
  auto next = [&]() -> bool {
    while (std::getline(in, line)) {
      ++lineno;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) return true;
    }
    return false;
  };
  if (!next()) fail("empty file");
  std::size_t rows = 0, feats = features;
  if (features == 0) {
    const std::vector<std::string> head = cells_of(line);
    double rows_d = 0, feats_d = 0;
    if (head.size() < 2 || !number(head[0], rows_d) || !number(head[1], feats_d) || rows_d < 1 || feats_d < 1 ||
        rows_d != std::floor(rows_d) || feats_d != std::floor(feats_d) || rows_d > 1e7 || feats_d > 1e5) {
      fail("the first line must be 'n_samples,n_features,…'");
    }
    rows = static_cast<std::size_t>(rows_d);
    feats = static_cast<std::size_t>(feats_d);
  }
  if (header_row) {
    if (!next()) fail("missing the row of column names");
    std::vector<std::string> names = cells_of(line);
    if (names.size() != feats + 1) fail("expected " + std::to_string(feats + 1) + " column names");
    for (std::size_t j = 0; j < feats; ++j) {
      std::string n = names[j];
      n.erase(std::remove(n.begin(), n.end(), '"'), n.end());
      d.features.push_back(n);
    }
  } else {
    for (std::size_t j = 0; j < feats; ++j) {
      std::string n = "x";
      n.append(std::to_string(j));
      d.features.push_back(std::move(n));
    }
  }
  d.x.reserve(rows);
  d.y.reserve(rows);
  bool pending = features != 0;  // without a count line, the first line is already a row
  while (pending || next()) {
    pending = false;
    const std::vector<std::string> cells = cells_of(line);
    if (cells.size() != feats + 1) {
      fail("expected " + std::to_string(feats + 1) + " values, found " + std::to_string(cells.size()));
    }
    std::vector<double> row(feats);
    for (std::size_t j = 0; j < feats; ++j) {
      if (!number(cells[j], row[j])) fail("'" + cells[j] + "' is not a number");
    }
    double t = 0;
    if (!number(cells[feats], t)) fail("target '" + cells[feats] + "' is not a number");
    const double label = target(t);
    if (label < 0 || label >= classes || label != std::floor(label)) {
      fail("target '" + cells[feats] + "' is not a class in 0.." + std::to_string(classes - 1));
    }
    d.x.push_back(std::move(row));
    d.y.push_back(static_cast<std::uint32_t>(label));
  }
  if (features != 0) {
    if (d.x.empty()) fail("no rows");
  } else if (d.x.size() != rows) {
    throw std::runtime_error(name + ": the first line announces " + std::to_string(rows) + " rows, the file holds " +
                             std::to_string(d.x.size()));
  }
  return d;
}

Dataset load_dataset(const std::string& name, const std::string& dir) {
  const Known& k = known(name);
  const fs::path path = fs::path(dir) / k.file;
  return parse_sklearn_csv(read_file(path), path.string(), k.classes, k.header_row, k.target, k.features);
}

Split split(const Dataset& d, double test_fraction, std::uint64_t seed) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) throw std::invalid_argument("test fraction: must be in (0, 1)");
  Split s;
  for (Dataset* part : {&s.train, &s.test}) {
    part->name = d.name;
    part->features = d.features;
    part->classes = d.classes;
  }
  std::mt19937_64 rng(seed);
  for (std::uint32_t c = 0; c < d.classes; ++c) {
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < d.rows(); ++i) {
      if (d.y[i] == c) idx.push_back(i);
    }
    std::shuffle(idx.begin(), idx.end(), rng);
    const auto test = static_cast<std::size_t>(std::lround(test_fraction * static_cast<double>(idx.size())));
    for (std::size_t i = 0; i < idx.size(); ++i) {
      Dataset& to = i < test ? s.test : s.train;
      to.x.push_back(d.x[idx[i]]);
      to.y.push_back(c);
    }
  }
  return s;
}

void standardize(Split& s) {
  const std::size_t f = s.train.dim();
  const double n = static_cast<double>(s.train.rows());
  if (s.train.rows() == 0) throw std::invalid_argument("standardize: no training rows");
  for (std::size_t j = 0; j < f; ++j) {
    double mean = 0;
    for (const auto& r : s.train.x) mean += r[j];
    mean /= n;
    double var = 0;
    for (const auto& r : s.train.x) var += (r[j] - mean) * (r[j] - mean);
    const double sd = std::sqrt(var / n);
    for (Dataset* part : {&s.train, &s.test}) {
      for (auto& r : part->x) r[j] = sd > 0 ? (r[j] - mean) / sd : 0.0;
    }
  }
}

std::vector<std::vector<std::size_t>> deal(std::size_t rows, std::uint32_t parties, std::uint64_t seed) {
  if (parties == 0 || rows < parties) {
    throw std::invalid_argument("cannot deal " + std::to_string(rows) + " rows to " + std::to_string(parties) +
                                " parties (each needs at least one)");
  }
  std::vector<std::size_t> idx(rows);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::shuffle(idx.begin(), idx.end(), rng);
  std::vector<std::vector<std::size_t>> out(parties);
  for (std::size_t i = 0; i < rows; ++i) out[i % parties].push_back(idx[i]);
  return out;
}

}  // namespace gopa::learn
