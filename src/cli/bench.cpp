// `gopa bench …`: benchmark tables. Each benchmark family registers itself on the `bench` app.
#include "commands.hpp"
#include "sigma_commands.hpp"

namespace gopa::cli {

void add_bench_commands(CLI::App& app, Context& ctx) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Measure proof sizes and prove/verify times, and group operation costs");
  bench->require_subcommand(1);
  add_bench_group_command(*bench, ctx);
  add_bench_gaussian_command(*bench, ctx);
  add_bench_hidden_command(*bench, ctx);
  add_bench_proofs_command(*bench, ctx);
}

}  // namespace gopa::cli
