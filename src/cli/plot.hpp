// Files and PNG plots of the command line: written through a temporary file and a rename, so no
// half-written file is left behind; plots are drawn by gnuplot (pngcairo) from a data file.
#pragma once

#include <string>

namespace gopa::cli {

// Writes `text` to `path` atomically (throws std::runtime_error naming the file).
void write_file(const std::string& path, const std::string& text);

// 'text' quoted for a gnuplot script.
[[nodiscard]] std::string gnuplot_quote(const std::string& s);

// The files a plot of `png` uses: its data (BASE.dat), its script (BASE.gp) and the PNG being
// drawn (PNG.tmp), BASE being `png` without ".png". Both are kept, so the plot can be redrawn.
struct PlotFiles {
  std::string data, script, tmp_png;
};
[[nodiscard]] PlotFiles plot_files(const std::string& png);

// Writes `script` (which must draw into files.tmp_png) and runs gnuplot on it; on success the
// PNG is renamed to `png`, on failure removed and std::runtime_error says why.
void render_plot(const PlotFiles& files, const std::string& png, const std::string& script);

}  // namespace gopa::cli
