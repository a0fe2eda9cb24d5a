// The `gopa` command's subcommands. Each add_*_commands() registers its subcommands on the
// root app; the subcommand's callback stores the work to do in Context::run, and main() runs
// it after parsing and returns its exit code.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace gopa::cli {

// Exit codes of every gopa subcommand (DESIGN.md §8).
enum ExitCode : int {
  kExitOk = 0,             // success / verified
  kExitMisbehaved = 1,     // a proof or a party failed verification (named in the output)
  kExitLogMisbehaved = 2,  // the board/log misbehaved (evidence written)
  kExitUsage = 3,          // bad command line or malformed input file
  kExitIo = 4,             // transient I/O error
};

struct Context {
  std::function<int()> run;
};

void add_bench_commands(CLI::App& app, Context& ctx);  // src/cli/bench.cpp: `gopa bench`
void add_bench_group_command(CLI::App& bench, Context& ctx);  // src/cli/bench_group.cpp
void add_bench_gaussian_command(CLI::App& bench, Context& ctx);  // src/cli/bench_gaussian.cpp
void add_bench_hidden_command(CLI::App& bench, Context& ctx);  // src/cli/bench_hidden.cpp
void add_board_commands(CLI::App& app, Context& ctx);  // src/cli/board.cpp
void add_plan_commands(CLI::App& app, Context& ctx);   // src/cli/plan.cpp
void add_run_commands(CLI::App& app, Context& ctx);    // src/cli/run.cpp: `gopa run`, `gopa audit`
void add_party_commands(CLI::App& app, Context& ctx);
void add_train_command(CLI::App& app, Context& ctx);  // src/cli/train.cpp: `gopa train`  // src/cli/party.cpp: `gopa keys`, `gopa coordinate`, `gopa party`

}  // namespace gopa::cli
