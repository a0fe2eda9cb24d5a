#!/bin/sh
# Draws the Gaussian-sampler trade-off plots (docs/circuits.md §6) with gnuplot (pngcairo):
#   gaussian-quality.png  KS distance and max error vs MPFR against output precision f
#   gaussian-cost.png     multiplication gates and prove time per sample against f
# one line per sampler.
#
#   bench/plot-gaussian.sh [results.csv] [output-dir]
#
# Without a CSV it runs `gopa bench gaussian --csv` ($GOPA_BENCH_ARGS, default: --quick --prove)
# with `gopa` from $GOPA (default: gopa on PATH, else build/src/cli/gopa, else the stand-alone
# gopa_bench_gaussian).
set -eu
csv=${1:-}
out=${2:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -z "$csv" ]; then
  gopa=${GOPA:-}
  if [ -z "$gopa" ]; then
    for c in gopa build/src/cli/gopa build-circ/src/cli/gopa; do
      if command -v "$c" >/dev/null 2>&1 && "$c" bench gaussian --help >/dev/null 2>&1; then gopa="$c bench"; break; fi
    done
  fi
  if [ -z "$gopa" ]; then
    for c in build/bench/circuits/gopa_bench_gaussian build-circ/bench/circuits/gopa_bench_gaussian; do
      if [ -x "$c" ]; then gopa="$c"; break; fi
    done
  fi
  [ -n "$gopa" ] || { echo "plot-gaussian.sh: no gopa binary found (set GOPA)" >&2; exit 3; }
  csv="$tmp/results.csv"
  # shellcheck disable=SC2086
  $gopa gaussian --csv ${GOPA_BENCH_ARGS:---quick --prove} > "$csv"
fi
command -v gnuplot >/dev/null 2>&1 || { echo "plot-gaussian.sh: gnuplot not installed" >&2; exit 3; }
mkdir -p "$out"
# One data file per sampler: f ks mse maxerr gates gates_d prove_ms (n/a → NaN).
samplers=$(awk -F, 'NR > 1 { print $1 }' "$csv" | awk '!seen[$0]++')
for s in $samplers; do
  awk -F, -v s="$s" 'NR > 1 && $1 == s {
      p = ($14 == "n/a" || $14 == "") ? "NaN" : $14;
      print $2, $7, $8, $9, $11, $12, p }' "$csv" | sort -n > "$tmp/$s.dat"
done
plots() {  # $1 = column
  sep=""
  for s in $samplers; do
    printf '%s"%s/%s.dat" using 1:%s with linespoints title "%s"' "$sep" "$tmp" "$s" "$1" "$s"
    sep=", "
  done
}
if cat "$tmp"/*.dat | awk '$7 != "NaN" { found = 1 } END { exit !found }'; then
  cost_col=7; cost_label="prove time per sample (ms, one sampler call)"
else
  cost_col=6; cost_label="multiplication gates per sample, amortized (no proofs measured)"
fi
gnuplot <<GP
set terminal pngcairo size 1200,500 enhanced font "sans,10"
set datafile missing "NaN"
set output "$out/gaussian-quality.png"
set multiplot layout 1,2 title "Gaussian samplers: quality vs output precision f ($(awk -F, 'NR==2 { print $6 }' "$csv") samples each)"
set xlabel "output fractional bits f"
set logscale y
set grid
set key top right
set ylabel "Kolmogorov-Smirnov distance"
plot $(plots 2)
set ylabel "max |error| vs MPFR (ulps of 2^-f)"
unset logscale y
plot $(plots 4)
unset multiplot
set output "$out/gaussian-cost.png"
set multiplot layout 1,2 title "Gaussian samplers: proof cost vs output precision f"
set logscale y
set ylabel "multiplication gates per sample"
plot $(plots 5)
set ylabel "$cost_label"
plot $(plots $cost_col)
unset multiplot
GP
echo "wrote $out/gaussian-quality.png $out/gaussian-cost.png"
