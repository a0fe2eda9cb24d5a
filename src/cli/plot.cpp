// Files and gnuplot plots (plot.hpp).
#include "plot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace gopa::cli {

namespace {

int run_gnuplot(const std::string& script) {
  const char* argv[] = {"gnuplot", script.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << text;
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
}

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return out + "'";
}

PlotFiles plot_files(const std::string& png) {
  std::string base = png;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".png") base.resize(base.size() - 4);
  return {base + ".dat", base + ".gp", png + ".tmp"};
}

void render_plot(const PlotFiles& files, const std::string& png, const std::string& script) {
  write_file(files.script, script);
  const int rc = run_gnuplot(files.script);
  if (rc != 0) {
    std::remove(files.tmp_png.c_str());
    throw std::runtime_error(rc < 0 ? "cannot run gnuplot (install gnuplot-nox) for " + files.script
                                    : "gnuplot failed (exit " + std::to_string(rc) + ") on " + files.script);
  }
  if (std::rename(files.tmp_png.c_str(), png.c_str()) != 0) throw std::runtime_error("cannot write " + png);
}

}  // namespace gopa::cli
