#include "commands.hpp"

namespace gopa::cli {

void add_bench_group_command(CLI::App& /*bench*/, Context& /*ctx*/) {}

}  // namespace gopa::cli
