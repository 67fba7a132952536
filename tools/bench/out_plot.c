// SPDX-License-Identifier: MIT
/*
 * out_plot.c - --plot, --plot-dir: gnuplot plots and their scripts.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "link.h"
#include "out.h"
#include "stats.h"

static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".",
			 name);
		if (!access(buf, X_OK))
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static const char *const gp_style[BP_N] = {
	"lw 3 dt 2 lc rgb '#000000'",		/* ceiling */
	"lw 2 pt 7 lc rgb '#1f77b4'",		/* direct */
	"lw 2 pt 5 lc rgb '#d62728'",		/* trad pageable */
	"lw 2 pt 9 lc rgb '#ff7f0e'",		/* trad pinned */
	"lw 2 pt 11 lc rgb '#2ca02c'",		/* TransferMode */
	"lw 2 pt 13 lc rgb '#9467bd'",		/* CPU mode */
	"lw 2 dt 3 lc rgb '#7f7f7f'",		/* memcpy */
};

/*
 * The gnuplot script of one plot, two panels (read, write), with its data
 * inline: @latency false -> GB/s, true -> us; the ceiling dashed, the link
 * model's prediction dash-dotted.  It writes @png and @svg.
 */
static void gp_script(FILE *gp, const struct bench *bn, const char *png,
		      const char *svg, bool latency)
{
	char title[512];

	fputs("$data << EOD\n", gp);
	for (int i = 0; i < bn->npoints; i++) {
		uint64_t s = bn->points[i].size;

		fprintf(gp, "%" PRIu64, s);
		for (int d = BD_C2H; d >= BD_H2C; d--) {
			for (int p = 0; p < BP_N; p++) {
				const struct bstats *x = bench_st(bn, s, p, d);

				if (!x)
					fputs(" NaN", gp);
				else if (latency)
					fprintf(gp, " %.4f", bench_us(x->median_ns));
				else
					fprintf(gp, " %.4f", cli_gbps(s, x->median_ns));
			}
			if (bn->link_on)
				fprintf(gp, " %.4f", latency ?
					bench_us(bench_link_ns(bn, s)) :
					cli_gbps(s, bench_link_ns(bn, s)));
			else
				fputs(" NaN", gp);
		}
		fputc('\n', gp);
	}
	fputs("EOD\n", gp);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			fputs("set terminal pngcairo size 1500,640 noenhanced\nset output ", gp);
			gp_str(gp, png);
		} else {
			fputs("set terminal svg size 1500,640 dynamic noenhanced\nset output ", gp);
			gp_str(gp, svg);
		}
		fputs("\nset multiplot layout 1,2\n", gp);
		for (int panel = 0; panel < 2; panel++) {
			int base = 2 + panel * (BP_N + 1);	/* column of path 0 */
			bool first = true;

			snprintf(title, sizeof(title), "%s, %s: %s, %s GPU, link %s",
				 panel ? "write (GPU->card)" : "read (card->GPU)",
				 latency ? "median latency" : "bandwidth",
				 bn->info.name, bn->gpu.real ? bn->gpu.status.name :
				 "emulated", bn->link_desc);
			fputs("set title ", gp);
			gp_str(gp, title);
			fprintf(gp, "\nset xrange [%g:%g]\n",
				(double)bn->points[0].size / 1.4,
				(double)bn->points[bn->npoints - 1].size * 1.4);
			fputs("set xlabel 'transfer size (bytes)'\n", gp);
			fputs(latency ? "set ylabel 'median time per transfer (us)'\n" :
			      "set ylabel 'GB/s (10^9 B/s) from the median'\n", gp);
			fputs("set logscale x 2\nset logscale y 10\nset grid\n"
			      "set format x '%.0b %BB'\n"
			      "set key left top box opaque font ',9'\n", gp);
			if (!latency)
				fputs("set key right bottom\n", gp);
			fputs("plot ", gp);
			for (int p = 0; p < BP_N; p++) {
				if (!bn->paths[p])
					continue;
				fprintf(gp, "%s$data using 1:%d with %s %s title '%s%s'",
					first ? "" : ", \\\n     ", base + p,
					p == BP_CEIL || p == BP_MEMCPY ? "lines" :
					"linespoints", gp_style[p], bpath_label[p],
					p == BP_MEMCPY ? " (CPU-mode ceiling)" : "");
				first = false;
			}
			if (bn->link_on)
				fprintf(gp, ", \\\n     $data using 1:%d with lines lw 2 dt 4 lc rgb '#17becf' title 'link model'",
					base + BP_N);
			fputs("\n", gp);
		}
		fputs("unset multiplot\nset output\n", gp);
	}
}

/* Run gnuplot on gp_script(): @png and @svg.  Return: 0 or -1. */
static int plot_one(const struct bench *bn, const char *png, const char *svg,
		    bool latency)
{
	int status;
	FILE *gp;

	fflush(stdout);
	fflush(stderr);
	gp = popen("gnuplot", "w");
	if (!gp) {
		cli_err("cannot run gnuplot: %s", strerror(errno));
		return -1;
	}
	gp_script(gp, bn, png, svg, latency);
	status = pclose(gp);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		cli_err("gnuplot failed to write '%s' and '%s' (status %d)", png,
			svg, status);
		return -1;
	}
	if (access(png, R_OK) || access(svg, R_OK)) {
		cli_err("gnuplot did not write '%s' and '%s'", png, svg);
		return -1;
	}
	printf("plot: %s, %s\n", png, svg);
	return 0;
}

/*
 * @dir/@name.gp: the script of a plot, drawing @name.png and @name.svg
 * beside itself, for a machine with gnuplot ("cd DIR && gnuplot NAME.gp").
 */
static int write_script(const struct bench *bn, const char *dir,
			const char *name, bool latency)
{
	char path[4096], png[256], svg[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	snprintf(png, sizeof(png), "%s.png", name);
	snprintf(svg, sizeof(svg), "%s.svg", name);
	f = fopen(path, "w");
	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	gp_script(f, bn, png, svg, latency);
	return bench_close_out(f, path);
}

/**
 * bench_plots() - in @dir: the scripts bandwidth.gp and latency.gp and,
 * with gnuplot, bandwidth.png/.svg and latency.png/.svg; and/or the
 * bandwidth plot at @png (and .svg beside it).
 * Return: 0 (also when gnuplot is missing: said on stderr) or -1.
 */
int bench_plots(const struct bench *bn, const char *dir, const char *png)
{
	bool have_gp = on_path("gnuplot");
	char a[4096], b[4096];
	size_t n;

	if (!bn->npoints) {
		cli_err("bench: plots need the sweep; none written");
		return 0;
	}
	if (dir) {
		if (mkdir(dir, 0777) && errno != EEXIST) {
			cli_err("cannot create '%s': %s", dir, strerror(errno));
			return -1;
		}
		if (write_script(bn, dir, "bandwidth", false) ||
		    write_script(bn, dir, "latency", true))
			return -1;
	}
	if (!have_gp) {
		if (dir)
			cli_err("bench: --plot: gnuplot is not on PATH: wrote %s/bandwidth.gp and %s/latency.gp; where gnuplot is, 'cd %s && gnuplot bandwidth.gp latency.gp' draws them",
				dir, dir, dir);
		else
			cli_err("bench: --plot: gnuplot is not on PATH, so no plot was written (install gnuplot, e.g. apt-get install gnuplot-nox)");
		return 0;
	}
	if (png) {
		n = strlen(png);
		if (n > 4 && !strcmp(png + n - 4, ".png"))
			snprintf(b, sizeof(b), "%.*s.svg", (int)(n - 4), png);
		else
			snprintf(b, sizeof(b), "%s.svg", png);
		if (plot_one(bn, png, b, false))
			return -1;
	}
	if (dir) {
		snprintf(a, sizeof(a), "%s/bandwidth.png", dir);
		snprintf(b, sizeof(b), "%s/bandwidth.svg", dir);
		if (plot_one(bn, a, b, false))
			return -1;
		snprintf(a, sizeof(a), "%s/latency.png", dir);
		snprintf(b, sizeof(b), "%s/latency.svg", dir);
		if (plot_one(bn, a, b, true))
			return -1;
	}
	return 0;
}
