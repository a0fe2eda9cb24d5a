// Stand-alone `gopa-bench-gaussian`: the `gopa bench gaussian` command (src/cli/bench_gaussian.cpp)
// with its own main, so the circuits layer's benchmark builds and runs on its own.
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "gopa/random.hpp"

namespace gopa::cli {
void add_bench_gaussian_command(CLI::App& bench, Context& ctx);  // src/cli/bench_gaussian.cpp
}

int main(int argc, char** argv) {
  gopa::crypto_init();
  CLI::App app{"gopa-bench-gaussian — same options as `gopa bench gaussian`"};
  gopa::cli::Context ctx;
  gopa::cli::add_bench_gaussian_command(app, ctx);
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : gopa::cli::kExitUsage;
  }
  return ctx.run ? ctx.run() : gopa::cli::kExitUsage;
}
