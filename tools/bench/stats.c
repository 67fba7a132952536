// SPDX-License-Identifier: MIT
/*
 * stats.c - the statistics of a series of timed transfers, and the
 * figures the text and the JSON derive from a run: a path's statistics at
 * a size, ratios, differences, GB/s, frame runs, soak drift (the renderer,
 * bench_render.py, derives the same from the JSON); the names of the
 * paths and directions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const char *const bpath_name[BP_N] = {
	"ceiling", "direct", "trad_pageable", "trad_pinned", "transfer_mode",
	"cpu_mode", "memcpy",
};
const char *const bpath_label[BP_N] = {
	"cudaMemcpy pinned (ceiling)", "GPU Direct", "traditional, pageable",
	"traditional, pinned", "TransferMode GPU_PINNED", "CPU mode DMA_MM",
	"host memcpy",
};
const char *const bdir_name[BD_N] = { "h2c", "c2h" };

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Sort @s and fill @st: median of an even count is the mean of the two
 * middle samples; p99 is the nearest-rank 99th percentile. */
void bench_stats_from(uint64_t *s, unsigned int n, struct bstats *st)
{
	unsigned int rank;
	uint64_t sum = 0;

	memset(st, 0, sizeof(*st));
	if (!n)
		return;
	qsort(s, n, sizeof(*s), cmp_u64);
	for (unsigned int i = 0; i < n; i++)
		sum += s[i];
	st->iters = n;
	st->min_ns = s[0];
	st->max_ns = s[n - 1];
	st->mean_ns = sum / n;
	st->median_ns = n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	rank = (unsigned int)((99ull * n + 99) / 100);	/* ceil(0.99 n) */
	st->p99_ns = s[(rank ? rank : 1) - 1];
}

const struct bpoint *bench_point(const struct bench *bn, uint64_t size)
{
	for (int i = 0; i < bn->npoints; i++)
		if (bn->points[i].size == size)
			return &bn->points[i];
	return NULL;
}

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

/**
 * bench_spread() - how stable the median of path @p at @size was across
 * the repeats: (highest - lowest repeat median) / the median of all
 * repeats together, in percent; the same relative range holds for its
 * bandwidth to first order.
 * @lo_ns, @hi_ns: receive the lowest and highest repeat median (or NULL)
 * Return: the percentage, or NAN (not measured, or a single repeat).
 */
double bench_spread(const struct bench *bn, uint64_t size, enum bpath p,
		    int d, uint64_t *lo_ns, uint64_t *hi_ns)
{
	const struct bpoint *pt = bench_point(bn, size);
	const struct bstats *all = bench_st(bn, size, p, d);
	uint64_t lo = UINT64_MAX, hi = 0;

	if (!all || bn->repeats < 2 || !all->median_ns)
		return NAN;
	for (int r = 0; r < bn->repeats; r++) {
		uint64_t m = pt->rep[r][p][d].median_ns;

		if (!pt->rep[r][p][d].iters)
			return NAN;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	if (lo_ns)
		*lo_ns = lo;
	if (hi_ns)
		*hi_ns = hi;
	return (double)(hi - lo) / (double)all->median_ns * 100.0;
}

/**
 * bench_pct_range() - GPU Direct as a percentage of the ceiling, computed
 * per repeat from its medians: the lowest in *@lo, the highest in *@hi.
 * Return: @hi - @lo in percentage points, or NAN (not measured, or a
 * single repeat).
 */
double bench_pct_range(const struct bench *bn, uint64_t size, int d,
		       double *lo, double *hi)
{
	const struct bpoint *pt = bench_point(bn, size);
	double l = INFINITY, h = -INFINITY;

	if (!bench_st(bn, size, BP_DIRECT, d) || !bench_st(bn, size, BP_CEIL, d) ||
	    bn->repeats < 2)
		return NAN;
	for (int r = 0; r < bn->repeats; r++) {
		const struct bstats *a = &pt->rep[r][BP_DIRECT][d];
		const struct bstats *c = &pt->rep[r][BP_CEIL][d];
		double q;

		if (!a->iters || !c->iters || !a->median_ns)
			return NAN;
		q = 100.0 * (double)c->median_ns / (double)a->median_ns;
		l = q < l ? q : l;
		h = q > h ? q : h;
	}
	*lo = l;
	*hi = h;
	return h - l;
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

