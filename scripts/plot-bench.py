#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot-bench.py BENCH.json OUTDIR - draw the bandwidth and latency plots of a
`hellofpga bench --json` result with gnuplot, for results measured on a machine
without gnuplot (the GPU machine).  Writes bandwidth.{png,svg} and
latency.{png,svg}: every path per direction, the ceiling drawn dashed."""
import json
import os
import subprocess
import sys
import tempfile

PATHS = [("ceiling", "raw cuMemcpy (ceiling)", "dt 2 lc rgb '#444444'"),
         ("direct", "GPU Direct", "lc rgb '#1f77b4' pt 7"),
         ("transfer_mode", "TransferMode", "lc rgb '#2ca02c' pt 5"),
         ("trad_pinned", "traditional, pinned", "lc rgb '#ff7f0e' pt 9"),
         ("trad_pageable", "traditional, pageable", "lc rgb '#d62728' pt 11")]


def main():
    src, out = sys.argv[1], sys.argv[2]
    d = json.load(open(src))
    env = d.get("environment", {})
    title = "%s, %s" % (env.get("gpu", {}).get("name", "GPU") if isinstance(env.get("gpu"), dict) else env.get("gpu", ""),
                        env.get("date", ""))
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp()
    for dirn, dname in (("c2h", "read, card -> GPU"), ("h2c", "write, GPU -> card")):
        with open(os.path.join(tmp, dirn + ".dat"), "w") as f:
            for p in d["sweep"]:
                row = [str(p["size"])]
                for key, _, _ in PATHS:
                    s = p[dirn].get(key, {})
                    row += [str(s.get("gbps", "nan")), str(s.get("median_ns", 0) / 1000.0)]
                f.write(" ".join(row) + "\n")
    for what, col, ylab, logy in (("bandwidth", 0, "GB/s (10^9 B/s, median)", False),
                                  ("latency", 1, "us per transfer (median)", True)):
        for fmt, term in (("png", "pngcairo size 1100,500 font ',10'"), ("svg", "svg size 1100,500")):
            gp = ["set terminal %s" % term, "set output '%s/%s.%s'" % (out, what, fmt),
                  "set multiplot layout 1,2 title \"hellofpga bench: %s\"" % title.replace('"', ''),
                  "set logscale x 2", "set format x '%.0b%B'", "set grid",
                  "set xlabel 'transfer size'", "set ylabel '%s'" % ylab, "set key left top"]
            if logy:
                gp.append("set logscale y")
            for dirn, dname in (("c2h", "read, card -> GPU"), ("h2c", "write, GPU -> card")):
                plots = []
                for i, (key, label, style) in enumerate(PATHS):
                    c = 2 + 2 * i + col
                    plots.append("'%s/%s.dat' using 1:%d with linespoints %s title '%s'" %
                                 (tmp, dirn, c, style, label))
                gp.append("set title '%s'" % dname)
                gp.append("plot " + ", ".join(plots))
            gp.append("unset multiplot")
            subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    print("wrote %s/{bandwidth,latency}.{png,svg}" % out)


if __name__ == "__main__":
    main()
