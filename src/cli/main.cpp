// gopa — verifiable differentially private averaging. Entry point of the command line.
#include <cstdio>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "sigma_commands.hpp"
#include "gopa/random.hpp"
#include "gopa/version.hpp"

int main(int argc, char** argv) {
  gopa::crypto_init();
  CLI::App app{
      "gopa — verifiable differentially private averaging (GOPA) with zero-knowledge proofs\n"
      "on a public bulletin board. Run `gopa <command> --help` for the options of a command."};
  app.set_version_flag("--version", std::string("gopa ") + gopa::kVersion);
  app.require_subcommand(0, 1);
  app.fallthrough(false);

  gopa::cli::Context ctx;
  gopa::cli::add_run_commands(app, ctx);
  gopa::cli::add_party_commands(app, ctx);
  gopa::cli::add_bench_commands(app, ctx);
  gopa::cli::add_board_commands(app, ctx);
  gopa::cli::add_plan_commands(app, ctx);
  gopa::cli::add_prove_commands(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return gopa::cli::kExitUsage;
  }
  if (!ctx.run) {
    std::cout << app.help();
    return gopa::cli::kExitOk;
  }
  try {
    return ctx.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gopa: error: %s\n", e.what());
    return gopa::cli::kExitIo;
  }
}
