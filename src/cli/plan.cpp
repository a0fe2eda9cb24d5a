#include "commands.hpp"

namespace gopa::cli {

void add_plan_commands(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace gopa::cli
