// Test helpers: where the public test vectors live, and small utilities shared by tests.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "test_paths.hpp"

namespace gopa::test {

inline std::string data_path(const std::string& relative) {
  return std::string(gopa_test_data_dir()) + "/" + relative;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open test data file " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace gopa::test
