/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics of timed transfers and the figures of a run
 * (stats.c); NAN (bench_cell(): "-") where not measured.
 */
#ifndef HF_BENCH_STATS_H
#define HF_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"

void bench_stats_from(uint64_t *s, unsigned int n, struct bstats *st);
const struct bpoint *bench_point(const struct bench *bn, uint64_t size);
double bench_us(uint64_t ns);
const struct bstats *bench_st(const struct bench *bn, uint64_t size,
			      enum bpath p, int d);
double bench_ratio(const struct bench *bn, uint64_t size, enum bpath a,
		   enum bpath b, int d);
double bench_diff_ns(const struct bench *bn, uint64_t size, enum bpath a,
		     enum bpath b, int d);
double bench_gbps(const struct bench *bn, uint64_t size, enum bpath p,
		  int d);
double bench_spread(const struct bench *bn, uint64_t size, enum bpath p,
		    int d, uint64_t *lo_ns, uint64_t *hi_ns);
double bench_pct_range(const struct bench *bn, uint64_t size, int d,
		       double *lo, double *hi);
const struct bframes *bench_frames_n(const struct bench *bn, int n);
const char *bench_cell(char *buf, size_t len, const char *fmt, double v);
double bench_soak_drift(const struct bench *bn, int d);

#endif /* HF_BENCH_STATS_H */
