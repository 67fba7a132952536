# SPDX-License-Identifier: MIT
"""bench_render.py BENCH.json [--csv F] [--markdown F] [--plot F.png]
[--plot-dir DIR] - the files of a `hellofpga bench` run rendered from its
JSON, the one source of them (docs/benchmarks.md, "Outputs"): the CSV
table, the Markdown summary and the gnuplot plots and scripts.

hellofpga-bench runs it for --csv, --markdown, --plot and --plot-dir (with
the python3 the build found; installed in DATADIR/hellofpga).  The figures
are derived as the bench's text tables derive them (tools/bench/stats.c),
from the JSON's integers and its exactly written rates, so a file says
what the tables say.  scripts/bench-judge.py reads runs through Run.

Exit status 0, or 1 when a file could not be written (said on stderr)."""
import json
import math
import os
import shutil
import subprocess
import sys

PATHS = ("ceiling", "direct", "trad_pageable", "trad_pinned", "transfer_mode",
         "cpu_mode", "memcpy")
DIRS = ("h2c", "c2h")          # the JSON's and the CSV's order
READ_FIRST = (("c2h", "read"), ("h2c", "write"))   # the tables' order
NAN = float("nan")
ENC = dict(encoding="utf-8", errors="surrogateescape")


class Failed(Exception):
    """A file could not be written; the message is said already."""


def err(msg):
    sys.stdout.flush()
    sys.stderr.write("hellofpga: %s\n" % msg)
    sys.stderr.flush()


def fdiv(a, b):
    """a / b as C divides doubles: infinite or NaN for a zero @b."""
    if b:
        return a / b
    return NAN if not a or math.isnan(a) else math.copysign(math.inf, a)


def gbps(size, ns):
    """@size bytes in @ns as GB/s; 0 for no time (cli_gbps())."""
    return size / ns if ns else 0.0


def cell(fmt, v):
    """A cell: @fmt of @v, or "-" for NaN (bench_cell())."""
    return "-" if v is None or math.isnan(v) else fmt % v


def size_name(b):
    """cli_fmt_size(): "4 KiB", "64 MiB", "1.50 GiB", "123 B"."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    i, v = 0, b
    while i < 4 and v >= 1024 and not v & 1023:
        v >>= 10
        i += 1
    if i > 0 or b < 1024:
        return "%d %s" % (v, units[i])
    d, i = float(b), 0
    while i < 4 and d >= 1024.0:
        d /= 1024.0
        i += 1
    return "%.2f %s" % (d, units[i])


class Run:
    """A bench run from its JSON, and the figures of stats.c."""

    def __init__(self, d):
        self.d = d
        self.env = d["environment"]
        self.gpu = self.env.get("gpu")
        self.link = self.env.get("link_model")
        self.real_gpu = bool(self.gpu) and not self.gpu.get("emulated", True)
        self.emulated_card = self.env.get("emulated_card", False)
        self.repeats = d.get("config", {}).get("repeats", 1)
        self.sweep = d.get("sweep", [])
        self.points = {p["size"]: p for p in self.sweep}
        self.frames = d.get("frames", {}).get("runs", [])

    def label(self, path):
        return self.d["paths"][path]["label"]

    def measured(self, path):
        return self.d["paths"][path]["measured"]

    def st(self, size, path, dr):
        """A measured path's statistics at @size, or None (bench_st())."""
        p = self.points.get(size)
        s = p and p[dr].get(path)
        return s if s and s["iterations"] else None

    def median(self, size, path, dr):
        s = self.st(size, path, dr)
        return s["median_ns"] if s else None

    def us(self, size, path, dr):
        m = self.median(size, path, dr)
        return m / 1e3 if m is not None else NAN

    def ratio(self, size, a, b, dr):
        x, y = self.median(size, a, dr), self.median(size, b, dr)
        return fdiv(float(x), float(y)) if x is not None and y else NAN

    def diff_ns(self, size, a, b, dr):
        x, y = self.median(size, a, dr), self.median(size, b, dr)
        return float(x) - float(y) if x is not None and y is not None else NAN

    def gbps(self, size, path, dr):
        m = self.median(size, path, dr)
        return gbps(size, m) if m is not None else NAN

    def spread(self, size, path, dr):
        """(spread %, lowest, highest repeat median) (bench_spread())."""
        s = self.st(size, path, dr)
        if not s or self.repeats < 2 or not s["median_ns"]:
            return NAN, None, None
        reps = s["repeat_stats"]
        if any(not r["iterations"] for r in reps):
            return NAN, None, None
        m = [r["median_ns"] for r in reps]
        lo, hi = min(m), max(m)
        return float(hi - lo) / float(s["median_ns"]) * 100.0, lo, hi

    def pct_range(self, size, dr):
        """(range, lowest, highest) of GPU Direct's % of the ceiling per
        repeat (bench_pct_range())."""
        a, c = self.st(size, "direct", dr), self.st(size, "ceiling", dr)
        if not a or not c or self.repeats < 2:
            return NAN, NAN, NAN
        lo, hi = math.inf, -math.inf
        for ra, rc in zip(a["repeat_stats"], c["repeat_stats"]):
            if not ra["iterations"] or not rc["iterations"] or not ra["median_ns"]:
                return NAN, NAN, NAN
            q = 100.0 * float(rc["median_ns"]) / float(ra["median_ns"])
            lo, hi = min(q, lo), max(q, hi)
        return hi - lo, lo, hi

    def frame_fps(self, r):
        """A frame run's frames per second, as the bench computed it."""
        return r["frames"] * 1e9 / float(r["ns"]) if r["ns"] else 0.0

    def soak_drift(self, dr):
        """The last third's bandwidth against the first's, % (NaN without
        three samples)."""
        soak = self.d.get("soak")
        s = soak["samples"] if soak else []
        n, third = len(s), len(s) // 3
        if third < 1:
            return NAN
        a = b = 0.0
        for i in range(third):
            a += gbps(soak["size"], s[i][dr]["median_ns"])
            b += gbps(soak["size"], s[n - third + i][dr]["median_ns"])
        return (b - a) / a * 100.0 if a > 0 else NAN

    def link_text(self):
        return self.env.get("link", self.link["text"] if self.link else "none")


def create(path):
    try:
        return open(path, "w", **ENC)
    except OSError as e:
        err("cannot create '%s': %s" % (path, os.strerror(e.errno)))
        raise Failed from e


def finish(f, path, text):
    try:
        f.write(text)
        f.close()
    except OSError as e:
        err("cannot write '%s': %s" % (path, os.strerror(e.errno or 5)))
        raise Failed from e


# ---- CSV ----------------------------------------------------------------

CSV_HEADER = ("section,name,size,direction,iterations,min_ns,median_ns,p99_ns,"
              "max_ns,mean_ns,gbps,value,dropped,corrupt,text\n")


def csv_row(section, name, size, dr, s, rate, value, dropped=None, corrupt=None):
    row = "%s,%s,%d,%s," % (section, name, size, dr)
    if s:
        row += "%d,%d,%d,%d,%d,%d," % (s["iterations"], s["min_ns"], s["median_ns"],
                                       s["p99_ns"], s["max_ns"], s["mean_ns"])
    else:
        row += ",,,,,,"
    row += ("" if math.isnan(rate) else "%.4f" % rate) + ","
    row += ("" if math.isnan(value) else "%.4f" % value) + ","
    row += "%d,%d" % (dropped, corrupt) if dropped is not None else ","
    return row + ",\n"


def env_row(name, text):
    """An "environment" row, @text in the last column (RFC 4180 quoted)."""
    text = (text or "").replace('"', '""').replace("\n", "").replace("\r", "")
    return 'environment,%s,,,,,,,,,,,,,"%s"\n' % (name, text)


def csv_env(r):
    e, g = r.env, r.gpu
    rows = [("card", e["card"]), ("backend", e["backend"]),
            ("emulated_card", "yes" if e["emulated_card"] else "no"),
            ("irq", e["irq"]), ("channel", "%d" % e["channel"]),
            ("card_address", "0x%x" % e["card_address"]),
            ("gpu_card_address", "0x%x" % e["gpu_card_address"])]
    if g:
        rows += [("gpu", g["name"]), ("gpu_emulated", "yes" if g["emulated"] else "no"),
                 ("gpu_platform", g["platform"]), ("gpu_pci_bus_id", g["pci_bus_id"]),
                 ("cuda_driver_version", "%d" % g["cuda_driver_version"]),
                 ("nvidia_driver", g["driver"]),
                 ("gpudirect_supported", "yes" if g["gpudirect_supported"] else "no")]
    else:
        rows.append(("gpu", "none"))
    if r.link:
        rows.append(("link_model", r.link["text"]))
    rows += [("seed", "%d" % e["seed"]), ("date", e["date"]), ("cpu", e["cpu"]),
             ("kernel", e["kernel"]), ("library", e["library"])]
    return "".join(env_row(k, v) for k, v in rows)


def csv_repeats(r, pt, dr):
    """Each repeat's statistics; each path's spread and GPU Direct's % of
    the ceiling across them (more than one repeat)."""
    size, out = pt["size"], []
    for p in PATHS:
        if p not in pt[dr]:
            continue
        for k, s in enumerate(pt[dr][p]["repeat_stats"]):
            out.append(csv_row("repeat", p, size, dr, s, gbps(size, s["median_ns"]), k + 1))
    if r.repeats < 2:
        return out
    for p in PATHS:
        v, lo, hi = r.spread(size, p, dr)
        if math.isnan(v):
            continue
        m = pt[dr][p]["median_ns"]
        out.append("spread,%s,%d,%s,%d,%d,%d,,%d,,%.4f,%.4f,,,\n" % (
            p, size, dr, r.repeats, lo, m, hi, gbps(size, m), v))
    v, lo, hi = r.pct_range(size, dr)
    if not math.isnan(v):
        out.append('spread,direct_pct_of_ceiling,%d,%s,%d,,,,,,,%.4f,,,"%.2f..%.2f"\n' % (
            size, dr, r.repeats, v, lo, hi))
    return out


def csv_predict(r):
    """A "predict" row per size, direction and side."""
    out, pr = [], r.d.get("prediction")
    for x in pr["sizes"] if pr else []:
        for dr in DIRS:
            for side in ("hellofpga", "reference"):
                c = x[dr][side]
                if not c:
                    continue
                out.append('predict,%s,%d,%s,,,,,,,%.4f,%.1f,,,"reads=%g writes=%g descs=%g irqs=%g"\n'
                           % (side, x["size"], dr, c["gbps"], c["ns"], c["mmio_reads"],
                              c["mmio_writes"], c["descriptors"], c["irqs"]))
    return out


def csv_sweep(r):
    out = []
    for pt in r.sweep:
        s = pt["size"]
        for dr in DIRS:
            for p in PATHS:
                if p in pt[dr]:
                    st = pt[dr][p]
                    out.append(csv_row("sweep", p, s, dr, st, gbps(s, st["median_ns"]), NAN))
            for sec, name, a, b in (("speedup", "trad_pageable", "trad_pageable", "direct"),
                                    ("speedup", "trad_pinned", "trad_pinned", "direct"),
                                    ("transfer_mode", "cpu_over_gpu_pinned", "cpu_mode",
                                     "transfer_mode")):
                out.append(csv_row(sec, name, s, dr, None, NAN, r.ratio(s, a, b, dr)))
            for name, a, b in (("direct", "direct", "ceiling"),
                               ("transfer_mode", "transfer_mode", "ceiling"),
                               ("cpu_mode", "cpu_mode", "memcpy")):
                out.append(csv_row("overhead", name, s, dr, None, NAN, r.diff_ns(s, a, b, dr)))
            out += csv_repeats(r, pt, dr)
            if r.link:
                m = pt["model_ns"]
                out.append(csv_row("model", "link", s, dr, None, gbps(s, m), float(m)))
    return out


def write_csv(r, path):
    """--csv: the environment rows, then one row per measurement."""
    f = create(path)
    out = [CSV_HEADER, csv_env(r)] + csv_sweep(r) + csv_predict(r)
    fr = r.d["frames"]
    for x in r.frames:
        fps = r.frame_fps(x)
        out.append(csv_row("frames", "buffers=%d" % x["buffers"], fr["frame_size"], "c2h",
                           None, fps * float(fr["frame_size"]) / 1e9, fps,
                           x["dropped"], x["corrupt"]))
    pin = r.d["pin"]
    if pin["sizes"] or pin["first_pin_ns"]:
        out.append(csv_row("pin", "first_pin", pin["first_pin_size"], "", None, NAN,
                           float(pin["first_pin_ns"])))
    for x in pin["sizes"]:
        out.append(csv_row("pin", "pin", x["size"], "", x["pin"], NAN, NAN))
        out.append(csv_row("pin", "unpin", x["size"], "", x["unpin"], NAN, NAN))
    soak = r.d.get("soak")
    for i, x in enumerate(soak["samples"] if soak else []):
        for dr in DIRS:
            out.append(csv_row("soak", "sample=%d" % (i + 1), soak["size"], dr, x[dr],
                               gbps(soak["size"], x[dr]["median_ns"]), x["t_ns"] / 1e9))
    finish(f, path, "".join(out))


# ---- Markdown -------------------------------------------------------------

def env_lines(r, pre):
    """The environment, a line each (the text's "# " lines)."""
    e, g = r.env, r.gpu
    out = ["%scard:     %s, %s, irq %s, channel %d, card address 0x%x (GPU paths 0x%x)\n" % (
        pre, e["card"], e["backend"], e["irq"], e["channel"], e["card_address"],
        e["gpu_card_address"])]
    plat = g and ("Tegra" if g["platform"] == "tegra" else "desktop")
    sup = g and ("supported" if g["gpudirect_supported"] else "NOT supported")
    if g and not g["emulated"]:
        cv = g["cuda_driver_version"]
        out.append("%sgpu:      %s (real, %s%s%s), CUDA %d.%d%s%s, GPU Direct %s\n" % (
            pre, g["name"], plat, ", PCI " if g["pci_bus_id"] else "", g["pci_bus_id"],
            cv // 1000, cv % 1000 // 10, ", driver " if g["driver"] else "", g["driver"], sup))
    elif g:
        out.append("%sgpu:      %s (emulated, %s: the library's emulated GPU, no CUDA),"
                   " GPU Direct %s\n" % (pre, g["name"], plat, sup))
    else:
        out.append("%sgpu:      none (%s)\n" % (pre, e.get("gpu_why", "")))
    out.append("%slink:     %s\n" % (pre, r.link_text()))
    out.append("%sseed:     %d (the order of the paths in each round; --seed repeats it)\n"
               % (pre, e["seed"]))
    for k in ("date", "cpu", "kernel", "library"):
        out.append("%s%-9s %s\n" % (pre, k + ":", e[k]))
    return out


def md_headline(r):
    out = ["\n## Headline (GB/s from the median; speedup = traditional pageable / GPU Direct)\n\n"
           "| size | dir | ceiling | GPU Direct | % of ceiling | trad. pageable | trad. pinned |"
           " TransferMode | CPU mode | speedup |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n"]
    for s in (4 << 10, 64 << 10, 1 << 20, 4 << 20, 64 << 20):
        if s not in r.points:
            continue
        for dr, word in READ_FIRST:
            c = [cell("%.2f", r.gbps(s, "ceiling", dr)), cell("%.2f", r.gbps(s, "direct", dr)),
                 cell("%.1f%%", fdiv(100.0, r.ratio(s, "direct", "ceiling", dr)))]
            c += [cell("%.2f", r.gbps(s, p, dr))
                  for p in ("trad_pageable", "trad_pinned", "transfer_mode", "cpu_mode")]
            c.append(cell("%.2fx", r.ratio(s, "trad_pageable", "direct", dr)))
            out.append("| %s | %s | %s |\n" % (size_name(s), word, " | ".join(c)))
    return out


def md_spread(r):
    """How stable each median was across the repeats."""
    out = ["\n## Stability across %d repeat%s\n\n" % (r.repeats, "s" if r.repeats > 1 else "")]
    if r.repeats < 2:
        return out + ["One repeat: no spread (`--repeats 3` measures it).\n"]
    out.append("Spread of each median: (highest - lowest repeat median) / median of all repeats.\n\n"
               "| size | dir | ceiling | GPU Direct | % of ceiling, lowest..highest |"
               " trad. pageable | trad. pinned | TransferMode | CPU mode |\n"
               "|---|---|---|---|---|---|---|---|---|\n")
    for pt in r.sweep:
        s = pt["size"]
        for dr, word in READ_FIRST:
            row = "| %s | %s |" % (size_name(s), word)
            for p in PATHS[:6]:
                row += " %s |" % cell("%.1f%%", r.spread(s, p, dr)[0])
                if p == "direct":
                    v, lo, hi = r.pct_range(s, dr)
                    row += " - |" if math.isnan(v) else " %.1f..%.1f%% |" % (lo, hi)
            out.append(row + "\n")
    return out


def md_latency(r):
    out = ["\n## Latency of GPU Direct (us) beside the ceiling\n\n"
           "| size | dir | min | median | p99 | max | ceiling median | trad. pageable median |\n"
           "|---|---|---|---|---|---|---|---|\n"]
    for pt in r.sweep:
        s = pt["size"]
        for dr, word in READ_FIRST:
            x = r.st(s, "direct", dr)
            if not x:
                continue
            out.append("| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s |\n" % (
                size_name(s), word, x["min_ns"] / 1e3, x["median_ns"] / 1e3,
                x["p99_ns"] / 1e3, x["max_ns"] / 1e3, cell("%.2f", r.us(s, "ceiling", dr)),
                cell("%.2f", r.us(s, "trad_pageable", dr))))
    return out


def md_cost(c):
    """A side of the prediction: "counts | us | GB/s |" or dashes."""
    if not c:
        return " - | - | - |"
    return " %g / %g / %g / %g | %.2f | %.3f |" % (
        c["mmio_reads"], c["mmio_writes"], c["descriptors"], c["irqs"], c["ns"] / 1e3,
        c["gbps"])


def md_predict(r):
    """The predicted time per transfer on real hardware."""
    p = r.d["prediction"]
    k = p["constants"]
    out = ["\n## Predicted time per transfer on real hardware (%s)\n\n"
           "The counted accesses at MMIO read %.1f us, MMIO write %.1f us, interrupt %.1f us,\n"
           "descriptor fetch %.1f us (a later one only by what it exceeds the data before it),\n"
           "payload and descriptors at %.2f GB/s; software not included (a floor).\n"
           "Counts: MMIO reads / writes / descriptors / interrupts per transfer.\n\n"
           "| size | dir | hellofpga counts (%s) | predicted us | GB/s | reference driver counts |"
           " predicted us | GB/s | this run us |\n"
           "|---|---|---|---|---|---|---|---|---|\n" % (
               r.link_text(), k["mmio_read_ns"] / 1e3, k["mmio_write_ns"] / 1e3,
               k["irq_ns"] / 1e3, k["fetch_ns"] / 1e3, k["gbps"], r.label(p["path"]))]
    for x in p["sizes"]:
        for dr, word in READ_FIRST:
            m = x[dr]["measured_ns"]
            out.append("| %s | %s |%s%s %s |\n" % (
                size_name(x["size"]), word, md_cost(x[dr]["hellofpga"]),
                md_cost(x[dr]["reference"]), cell("%.2f", m / 1e3 if m is not None else NAN)))
    return out


def md_frames_pins_soak(r):
    out, fr = [], r.frames
    if fr:
        out.append("\n## Frame rate (%s frames, consumer: %s)\n\n"
                   "| buffers | fps | vs single | dropped | corrupt |\n|---|---|---|---|---|\n" % (
                       size_name(r.d["frames"]["frame_size"]),
                       "CUDA checksum kernel" if r.real_gpu else "CPU thread"))
        f1 = r.frame_fps(fr[0])
        for x in fr:
            fps = r.frame_fps(x)
            out.append("| %d | %.0f | %.1f%% | %d | %d |\n" % (
                x["buffers"], fps, fps / f1 * 100 if f1 > 0 else 0, x["dropped"], x["corrupt"]))
    pin = r.d["pin"]
    if pin["sizes"]:
        out.append("\n## Pin / unpin (median us)\n\nFirst pin of the run: %.1f us%s.\n\n"
                   "| size | pin | unpin |\n|---|---|---|\n" % (
                       pin["first_pin_ns"] / 1e3,
                       " (includes registering the card memory with CUDA)" if r.real_gpu else ""))
        for x in pin["sizes"]:
            out.append("| %s | %.1f | %.1f |\n" % (size_name(x["size"]),
                                                   x["pin"]["median_ns"] / 1e3,
                                                   x["unpin"]["median_ns"] / 1e3))
    soak = r.d.get("soak")
    if soak and soak["samples"]:
        out.append("\n## Soak\n\n%d samples of %s transfers; drift (last third vs first,"
                   " bandwidth): read %+.2f%%, write %+.2f%%\n" % (
                       len(soak["samples"]), size_name(soak["size"]), r.soak_drift("c2h"),
                       r.soak_drift("h2c")))
    return out


def write_markdown(r, path):
    """--markdown: a summary of the run."""
    f = create(path)
    out = ["# hellofpga bench\n\n"] + env_lines(r, "- ")
    if r.sweep:
        out += md_headline(r) + md_spread(r) + md_latency(r)
    if r.d.get("prediction"):
        out += md_predict(r)
    finish(f, path, "".join(out + md_frames_pins_soak(r)))


# ---- plots ----------------------------------------------------------------

GP_STYLE = {
    "ceiling": "lw 3 dt 2 lc rgb '#000000'",
    "direct": "lw 2 pt 7 lc rgb '#1f77b4'",
    "trad_pageable": "lw 2 pt 5 lc rgb '#d62728'",
    "trad_pinned": "lw 2 pt 9 lc rgb '#ff7f0e'",
    "transfer_mode": "lw 2 pt 11 lc rgb '#2ca02c'",
    "cpu_mode": "lw 2 pt 13 lc rgb '#9467bd'",
    "memcpy": "lw 2 dt 3 lc rgb '#7f7f7f'",
}


def gp_str(s):
    return "'" + s.replace("'", "''") + "'"


def gp_data(r, latency):
    """The plot's data, inline: per size, per direction (read first) every
    path's median as GB/s or us, then the link model's."""
    out = ["$data << EOD\n"]
    for pt in r.sweep:
        s, row = pt["size"], "%d" % pt["size"]
        for dr, _ in READ_FIRST:
            for p in PATHS:
                x = r.st(s, p, dr)
                if not x:
                    row += " NaN"
                else:
                    m = x["median_ns"]
                    row += " %.4f" % (m / 1e3 if latency else gbps(s, m))
            if r.link:
                m = pt["model_ns"]
                row += " %.4f" % (m / 1e3 if latency else gbps(s, m))
            else:
                row += " NaN"
        out.append(row + "\n")
    return out + ["EOD\n"]


def gp_panel(r, panel, latency):
    """One panel's settings and plot command (0: read, 1: write)."""
    base = 2 + panel * (len(PATHS) + 1)    # the column of the first path
    g = r.gpu
    title = "%s, %s: %s, %s GPU, link %s" % (
        "write (GPU->card)" if panel else "read (card->GPU)",
        "median latency" if latency else "bandwidth", r.env["card"],
        g["name"] if r.real_gpu else "emulated", r.link_text())
    out = ["set title " + gp_str(title) + "\n",
           "set xrange [%g:%g]\n" % (r.sweep[0]["size"] / 1.4, r.sweep[-1]["size"] * 1.4),
           "set xlabel 'transfer size (bytes)'\n",
           "set ylabel 'median time per transfer (us)'\n" if latency else
           "set ylabel 'GB/s (10^9 B/s) from the median'\n",
           "set logscale x 2\nset logscale y 10\nset grid\n"
           "set format x '%.0b %BB'\n"
           "set key left top box opaque font ',9'\n"]
    if not latency:
        out.append("set key right bottom\n")
    plot = "plot "
    for k, p in enumerate(PATHS):
        if not r.measured(p):
            continue
        plot += "%s$data using 1:%d with %s %s title '%s%s'" % (
            "" if plot == "plot " else ", \\\n     ", base + k,
            "lines" if p in ("ceiling", "memcpy") else "linespoints",
            GP_STYLE[p], r.label(p), " (CPU-mode ceiling)" if p == "memcpy" else "")
    if r.link:
        plot += (", \\\n     $data using 1:%d with lines lw 2 dt 4 lc rgb '#17becf'"
                 " title 'link model'" % (base + len(PATHS)))
    return out + [plot + "\n"]


def gp_script(r, png, svg, latency):
    """The gnuplot script of one plot, two panels (read, write), its data
    inline, writing @png and @svg."""
    out = gp_data(r, latency)
    for term, name in (("pngcairo size 1500,640 noenhanced", png),
                       ("svg size 1500,640 dynamic noenhanced", svg)):
        out.append("set terminal %s\nset output %s\nset multiplot layout 1,2\n"
                   % (term, gp_str(name)))
        for panel in (0, 1):
            out += gp_panel(r, panel, latency)
        out.append("unset multiplot\nset output\n")
    return "".join(out)


def plot_one(r, png, svg, latency):
    """gnuplot on the script: @png and @svg."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        gp = subprocess.run(["gnuplot"], input=gp_script(r, png, svg, latency).encode(
            "utf-8", "surrogateescape"), check=False)
    except OSError as e:
        err("cannot run gnuplot: %s" % os.strerror(e.errno))
        raise Failed from e
    if gp.returncode:
        st = gp.returncode << 8 if gp.returncode > 0 else -gp.returncode
        err("gnuplot failed to write '%s' and '%s' (status %d)" % (png, svg, st))
        raise Failed
    if not os.access(png, os.R_OK) or not os.access(svg, os.R_OK):
        err("gnuplot did not write '%s' and '%s'" % (png, svg))
        raise Failed
    print("plot: %s, %s" % (png, svg), flush=True)


def write_plots(r, plotdir, png):
    """In @plotdir the scripts bandwidth.gp and latency.gp, drawing
    bandwidth.png/.svg and latency.png/.svg beside themselves, and with
    gnuplot the plots; and/or the bandwidth plot at @png (.svg beside)."""
    if not r.sweep:
        err("bench: plots need the sweep; none written")
        return
    if plotdir:
        try:
            os.mkdir(plotdir, 0o777)
        except FileExistsError:
            pass
        except OSError as e:
            err("cannot create '%s': %s" % (plotdir, os.strerror(e.errno)))
            raise Failed from e
        for name, latency in (("bandwidth", False), ("latency", True)):
            path = "%s/%s.gp" % (plotdir, name)
            finish(create(path), path, gp_script(r, name + ".png", name + ".svg", latency))
    if not shutil.which("gnuplot"):
        if plotdir:
            err("bench: --plot: gnuplot is not on PATH: wrote %s/bandwidth.gp and %s/latency.gp;"
                " where gnuplot is, 'cd %s && gnuplot bandwidth.gp latency.gp' draws them"
                % (plotdir, plotdir, plotdir))
        else:
            err("bench: --plot: gnuplot is not on PATH, so no plot was written"
                " (install gnuplot, e.g. apt-get install gnuplot-nox)")
        return
    if png:
        svg = (png[:-4] if len(png) > 4 and png.endswith(".png") else png) + ".svg"
        plot_one(r, png, svg, False)
    if plotdir:
        for name, latency in (("bandwidth", False), ("latency", True)):
            plot_one(r, "%s/%s.png" % (plotdir, name), "%s/%s.svg" % (plotdir, name), latency)


def main(argv):
    want = {"--csv": None, "--markdown": None, "--plot": None, "--plot-dir": None}
    args = list(argv)
    src = args.pop(0) if args and args[0] not in want else None
    while len(args) >= 2 and args[0] in want:
        key = args.pop(0)
        want[key] = args.pop(0)
    if not src or args:
        sys.exit("usage: bench_render.py BENCH.json [--csv F] [--markdown F] [--plot F.png]"
                 " [--plot-dir DIR]")
    with open(src, **ENC) as f:
        r = Run(json.load(f))
    failed = False
    for fn, arg in ((write_csv, want["--csv"]), (write_markdown, want["--markdown"])):
        try:
            if arg:
                fn(r, arg)
        except Failed:
            failed = True
    try:
        if want["--plot"] or want["--plot-dir"]:
            write_plots(r, want["--plot-dir"], want["--plot"])
    except Failed:
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
