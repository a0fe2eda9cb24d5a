// Where the tests find their data and the programs they run: absolute paths, fixed when the build
// is configured. tests/CMakeLists.txt generates their definitions in one source of its own, so
// that no test source carries a path (a checkout in another folder reuses every other object from
// the compiler cache). Global names: some tests have a function named gopa.
#pragma once

extern "C" {
const char* gopa_test_data_dir();           // tests/data: the public test vectors
const char* gopa_test_sigma_golden_dir();   // tests/sigma/golden: frozen proofs
const char* gopa_test_binary();             // the `gopa` executable of this build
const char* gopa_test_board_load_binary();  // bench/bulletin's board_load, or "" without benchmarks
}
