// gopa — verifiable differentially private averaging. Entry point of the command line.
#include <cstdio>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <exception>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "sigma_commands.hpp"
#include "gopa/random.hpp"
#include "gopa/version.hpp"

#ifndef GOPA_COMMIT
#define GOPA_COMMIT "unknown"
#endif

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc raises its mmap threshold to the size of each large block it frees (up to 32 MiB);
  // blocks below it then come from the heap and stay mapped after they are freed. The provers'
  // and verifiers' scratch (buckets, digits, witnesses: 1–30 MB each, allocated per proof block)
  // kept over 150 MB of freed memory mapped at n = 16, d = 2,048. A fixed threshold gives every
  // block of 1 MiB or more its own mapping, returned when freed (README, Performance).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  gopa::crypto_init();
  CLI::App app{
      "gopa — verifiable differentially private averaging (GOPA) with zero-knowledge proofs\n"
      "on a public bulletin board. Run `gopa help <command>` or `gopa <command> --help` for the options\n"
      "of a command. Exit codes of every command: 0 verified/ok, 1 a party misbehaved (named), 2 the\n"
      "board's log or the coordinator misbehaved, 3 usage error or malformed input, 4 I/O error."};
  const std::string version = std::string("gopa ") + gopa::kVersion + " (commit " + GOPA_COMMIT + ")";
  app.set_version_flag("--version", version);
  app.require_subcommand(0, 1);
  app.fallthrough(false);

  gopa::cli::Context ctx;
  gopa::cli::add_run_commands(app, ctx);
  gopa::cli::add_party_commands(app, ctx);
  gopa::cli::add_train_command(app, ctx);
  gopa::cli::add_bench_commands(app, ctx);
  gopa::cli::add_board_commands(app, ctx);
  gopa::cli::add_plan_commands(app, ctx);
  gopa::cli::add_prove_commands(app, ctx);

  // `gopa help [COMMAND [SUBCOMMAND]]`: the help of the root or of that command; `gopa version`.
  auto help_path = std::make_shared<std::vector<std::string>>();
  CLI::App* help = app.add_subcommand("help", "Print the help of gopa, or of COMMAND (gopa help board check)");
  help->add_option("COMMAND", *help_path, "a command and its subcommands");
  help->callback([&ctx, &app, help_path] {
    ctx.run = [&app, help_path] {
      CLI::App* at = &app;
      std::string prev = app.get_name();  // "gopa board check", as `gopa board check --help` shows it
      for (const auto& name : *help_path) {
        CLI::App* sub = nullptr;
        try {
          sub = at->get_subcommand(name);
        } catch (const CLI::OptionNotFound&) {
          sub = nullptr;
        }
        if (sub == nullptr || name == "help" || name == "version") {
          std::fprintf(stderr, "gopa help: no command '%s'; run `gopa help` for the list\n", name.c_str());
          return gopa::cli::kExitUsage;
        }
        at = sub;
        prev += " " + sub->get_name();
      }
      std::cout << at->get_formatter()->make_help(at, prev, CLI::AppFormatMode::Normal);
      return gopa::cli::kExitOk;
    };
  });
  CLI::App* version_cmd = app.add_subcommand("version", "Print the version and the git commit gopa was built from");
  version_cmd->callback([&ctx, version] {
    ctx.run = [version] {
      std::printf("%s\n", version.c_str());
      return gopa::cli::kExitOk;
    };
  });

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
