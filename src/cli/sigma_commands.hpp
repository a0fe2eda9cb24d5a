// Registration of the sigma-layer subcommands (src/cli/prove.cpp, src/cli/bench_proofs.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace gopa::cli {

// `gopa prove range …` and `gopa verify FILE` (src/cli/prove.cpp).
void add_prove_commands(CLI::App& app, Context& ctx);
// `gopa bench proofs` (src/cli/bench_proofs.cpp), registered on the `bench` subcommand.
void add_bench_proofs_command(CLI::App& bench, Context& ctx);

}  // namespace gopa::cli
