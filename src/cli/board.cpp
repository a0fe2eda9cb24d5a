#include "commands.hpp"

namespace gopa::cli {

void add_board_commands(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace gopa::cli
