// SPDX-License-Identifier: MIT
/*
 * bench_stats.c - the figures every output of "hellofpga bench" derives
 * from a run: a path's statistics at a size, ratios, differences, GB/s,
 * frame runs, soak drift; and closing an output file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

double bench_us(uint64_t ns)
{
	return (double)ns / 1e3;
}

const struct bstats *bench_st(const struct bench *bn, uint64_t size,
			      enum bpath p, int d)
{
	const struct bpoint *pt = bench_point(bn, size);

	if (!pt || !bn->paths[p] || !pt->st[p][d].iters)
		return NULL;
	return &pt->st[p][d];
}

/* median(a) / median(b) at @size, or NAN. */
double bench_ratio(const struct bench *bn, uint64_t size, enum bpath a,
		   enum bpath b, int d)
{
	const struct bstats *sa = bench_st(bn, size, a, d);
	const struct bstats *sb = bench_st(bn, size, b, d);

	if (!sa || !sb || !sb->median_ns)
		return NAN;
	return (double)sa->median_ns / (double)sb->median_ns;
}

/* median(a) - median(b) at @size in ns, or NAN. */
double bench_diff_ns(const struct bench *bn, uint64_t size, enum bpath a,
		     enum bpath b, int d)
{
	const struct bstats *sa = bench_st(bn, size, a, d);
	const struct bstats *sb = bench_st(bn, size, b, d);

	if (!sa || !sb)
		return NAN;
	return (double)sa->median_ns - (double)sb->median_ns;
}

double bench_gbps(const struct bench *bn, uint64_t size, enum bpath p,
		  int d)
{
	const struct bstats *s = bench_st(bn, size, p, d);

	return s ? cli_gbps(size, s->median_ns) : NAN;
}

const struct bframes *bench_frames_n(const struct bench *bn, int n)
{
	return n >= 1 && n <= bn->nframes ? &bn->frames[n - 1] : NULL;
}

/* A cell: "%.2f" or "-" for NAN. */
const char *bench_cell(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

double bench_soak_drift(const struct bench *bn, int d)
{
	int n = bn->nsoak, third = n / 3;
	double a = 0, b = 0;

	if (third < 1)
		return NAN;
	for (int i = 0; i < third; i++) {
		a += cli_gbps(bn->soak_size, bn->soak[i].st[d].median_ns);
		b += cli_gbps(bn->soak_size,
			      bn->soak[n - third + i].st[d].median_ns);
	}
	return a > 0 ? (b - a) / a * 100.0 : NAN;
}


int bench_close_out(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		cli_err("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
