// SPDX-License-Identifier: MIT
/*
 * sweep.c - the sections of timed transfers: the sweep (1, 2: bandwidth
 * and latency per size and path, --repeats times over), the counts of the
 * prediction (6, with a link model) and the soak (5: GPU Direct samples
 * every interval).
 *
 * The paths run interleaved, one transfer of each in turn per round, so
 * drift of a shared machine hits them alike, in an order that changes
 * from round to round (bench_order_init(): every path first, and after
 * every other, equally often; --seed reproduces it); each size starts with
 * untimed warm-up rounds and runs rounds until its time budget is spent
 * (between a minimum and a maximum number of rounds).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sections.h"
#include "stats.h"
#include "xfer.h"

#define BENCH_WARMUP_ROUNDS	2
#define SOAK_CAP		200000u

/* splitmix64: the order's shuffle, reproducible from --seed */
static uint64_t order_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/**
 * bench_order_init() - the order of the measured paths in each round,
 * from @bn->paths and @bn->seed.
 *
 * A balanced Latin square (Williams design) of the n measured paths: row
 * 0 is 0, 1, n-1, 2, n-2, ...; row i adds i (mod n) to each; for an odd n
 * the n rows reversed follow.  Over its rows (a period: n, or 2n for an
 * odd n) every path comes first equally often and follows every other
 * path equally often, so no path always runs after the same one (with its
 * cache or engine state).  The seed shuffles which path each symbol of the
 * square is; round r of a series runs row r mod period.
 */
void bench_order_init(struct bench *bn)
{
	uint8_t sym[BP_N], first[BP_N];
	uint64_t x = bn->seed;
	int n = 0, lo = 1, hi;

	for (int p = 0; p < BP_N; p++)
		if (bn->paths[p])
			sym[n++] = (uint8_t)p;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(order_rand(&x) % (uint64_t)(i + 1));
		uint8_t t = sym[i];

		sym[i] = sym[j];
		sym[j] = t;
	}
	first[0] = 0;
	hi = n - 1;
	for (int k = 1; k < n; k++)
		first[k] = (uint8_t)(k & 1 ? lo++ : hi--);
	bn->order_n = n;
	bn->order_period = n > 1 && (n & 1) ? 2 * n : n ? n : 1;
	for (int r = 0; r < n; r++)
		for (int k = 0; k < n; k++) {
			uint8_t v = sym[(first[k] + r) % n];

			bn->order[r][k] = v;
			if (bn->order_period > n)
				bn->order[n + r][n - 1 - k] = v;
		}
}

/* Round @r of a series: each measured path once, in the order's row for
 * @r; a timed round (@pt) keeps the times and which path came first. */
static int run_round(struct bench *bn, struct bpoint *pt, int d, size_t len,
		     unsigned int r)
{
	const uint8_t *row = bn->order[r % (unsigned int)bn->order_period];
	uint64_t ns;

	for (int k = 0; k < bn->order_n; k++) {
		enum bpath p = (enum bpath)row[k];

		if (bench_timed(bn, p, d, len, &ns))
			return -1;
		if (!pt)
			continue;
		if (!k)
			pt->first[p][d]++;
		pt->samples[p][d][pt->nsamples[p][d]++] = ns;
	}
	return 0;
}

/**
 * run_size() - repeat @rep of size @pt: per direction, warm-up rounds,
 * then timed rounds until the repeat's share of the budget is spent; the
 * order's rows go on from where the previous repeat left them.  The last
 * repeat adds the statistics of all of them and verifies the data.
 * Return: 0, or -1 after reporting.
 */
static int run_size(struct bench *bn, struct bpoint *pt, int rep)
{
	size_t len = (size_t)pt->size;
	unsigned int r, base, rounds_max;
	uint64_t start, budget;
	int p, d;

	/*
	 * One direction after the other, the paths interleaved within it:
	 * directions are not compared with each other, and running them
	 * apart keeps one engine thread busy at a time (each spins a while
	 * after its work), as a transfer of one direction would.
	 */
	rounds_max = bn->fixed_iters ? bn->fixed_iters : bn->max_iters;
	budget = bn->budget_ns / BD_N / (uint64_t)bn->repeats;
	for (d = 0; d < BD_N; d++) {
		for (r = 0; r < BENCH_WARMUP_ROUNDS; r++)
			if (run_round(bn, NULL, d, len, r))
				return -1;
		base = pt->nsamples[bn->order[0][0]][d];
		start = cli_now_ns();
		for (r = 0; r < rounds_max; r++) {
			if (!bn->fixed_iters && r >= bn->min_iters &&
			    cli_now_ns() - start >= budget)
				break;
			if (run_round(bn, pt, d, len, base + r))
				return -1;
		}
		for (p = 0; p < BP_N; p++)
			if (bn->paths[p])
				bench_stats_from(pt->samples[p][d] + base, r,
						 &pt->rep[rep][p][d]);
		if (rep + 1 < bn->repeats)
			continue;
		for (p = 0; p < BP_N; p++)
			if (bn->paths[p])
				bench_stats_from(pt->samples[p][d],
						 pt->nsamples[p][d],
						 &pt->st[p][d]);
	}
	if (rep + 1 < bn->repeats)
		return 0;
	if (bench_verify(bn, len, &pt->verified))
		return -1;
	if (!pt->verified) {
		char sz[32];

		cli_err("GPU Direct data did not verify at %s",
			cli_fmt_size(pt->size, sz, sizeof(sz)));
		bn->failed_verify = true;
	}
	return 0;
}

/* The whole sweep, @bn->repeats times over: each repeat every size. */
int bench_run_sweep(struct bench *bn)
{
	uint64_t s;
	int i, rep;

	for (rep = 0; rep < bn->repeats; rep++)
		for (i = 0, s = bn->min; i < bn->npoints; i++, s *= 2) {
			char sz[32];

			bn->points[i].size = s;
			cli_progress_label(&bn->prog,
					   "bench: sweep %s (%d/%d), repeat %d/%d",
					   cli_fmt_size(s, sz, sizeof(sz)),
					   i + 1, bn->npoints, rep + 1,
					   bn->repeats);
			if (run_size(bn, &bn->points[i], rep))
				return -1;
			cli_progress_add(&bn->prog, 1);
		}
	return 0;
}

/* ---- 6: the counts of the prediction ---- */

#define COUNT_XFERS	4

/*
 * The accesses one transfer of @pr->size in direction @d costs: the
 * emulated card's counters around COUNT_XFERS transfers of the counted
 * path (after one that builds its descriptors), divided by their number.
 */
static int count_size(struct bench *bn, struct bpredict *pr, int d)
{
	size_t len = (size_t)pr->size;
	HELLOFPGA_COUNTERS a, b;
	int ret;

	if (bench_op(bn, bn->pred_path, d, len))
		return -1;
	ret = HelloFPGA_GetCounters(bn->h, &a);
	for (int i = 0; !ret && i < COUNT_XFERS; i++)
		if (bench_op(bn, bn->pred_path, d, len))
			return -1;
	if (!ret)
		ret = HelloFPGA_GetCounters(bn->h, &b);
	if (ret) {
		cli_lib_err(bn->h, ret, "the card's counters");
		return -1;
	}
	if (!a.model_valid)
		return 0;
	pr->c[d].mmio_reads = (double)(b.mmio_reads - a.mmio_reads) /
			      COUNT_XFERS;
	pr->c[d].mmio_writes = (double)(b.mmio_writes - a.mmio_writes) /
			       COUNT_XFERS;
	pr->c[d].desc = (double)(b.desc_fetched - a.desc_fetched) /
			COUNT_XFERS;
	pr->c[d].irqs = (double)(b.irqs - a.irqs) / COUNT_XFERS;
	pr->c[d].bytes = pr->size;
	pr->counted[d] = true;
	return 0;
}

/*
 * With a link model: count GPU Direct (CPU mode without it) at each of
 * the reference driver's sizes the sweep's buffers hold.
 */
int bench_count_transfers(struct bench *bn)
{
	bn->pred_path = bn->paths[BP_DIRECT] ? BP_DIRECT : BP_CPU;
	for (int i = 0; i < BCOST_NREF; i++) {
		struct bpredict *pr = &bn->pred[i];

		pr->size = bcost_reference[i].size;
		if (pr->size > bn->max)
			continue;
		for (int d = 0; d < BD_N; d++)
			if (count_size(bn, pr, d))
				return -1;
	}
	bn->predicted = true;
	return 0;
}


/* ---- 5: soak ---- */

static const char *fmt_dur(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NS_PER_S;

	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
			 s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
	return buf;
}

int bench_run_soak(struct bench *bn)
{
	size_t len = (size_t)bn->soak_size;
	uint64_t *t[BD_N], start, end, t_next;
	int cap_samples, ret = -1;
	char a[32], b[32];

	cap_samples = (int)(bn->soak_ns / bn->interval_ns) + 2;
	bn->soak = calloc((size_t)cap_samples, sizeof(*bn->soak));
	t[0] = calloc(SOAK_CAP, sizeof(uint64_t));
	t[1] = calloc(SOAK_CAP, sizeof(uint64_t));
	if (!bn->soak || !t[0] || !t[1]) {
		cli_err("out of memory");
		goto out;
	}
	printf("\n## Soak: GPU Direct, %s per transfer, %s, a sample every %s\n",
	       cli_fmt_size(len, a, sizeof(a)),
	       fmt_dur(bn->soak_ns, b, sizeof(b)),
	       fmt_dur(bn->interval_ns, a, sizeof(a)));
	printf("%6s %9s %10s %8s %10s %8s %8s %s\n", "sample", "time",
	       "read us", "GB/s", "write us", "GB/s", "xfers", "verified");
	fflush(stdout);
	start = cli_now_ns();
	end = start + bn->soak_ns;
	t_next = start + bn->interval_ns;
	while (bn->nsoak < cap_samples) {
		unsigned int n[BD_N] = { 0, 0 };
		struct bsoak_sample *sm = &bn->soak[bn->nsoak];
		uint64_t now;

		do {
			for (int d = 0; d < BD_N; d++) {
				uint64_t ns;

				if (bench_timed(bn, BP_DIRECT, d, len, &ns))
					goto out;
				if (n[d] < SOAK_CAP)
					t[d][n[d]++] = ns;
			}
			now = cli_now_ns();
		} while (now < t_next && now < end);
		for (int d = 0; d < BD_N; d++)
			bench_stats_from(t[d], n[d], &sm->st[d]);
		if (bench_verify(bn, len, &sm->verified))
			goto out;
		if (!sm->verified)
			bn->failed_verify = true;
		sm->t_ns = cli_now_ns() - start;
		bn->nsoak++;
		printf("%6d %9s %10.2f %8.3f %10.2f %8.3f %8u %s\n", bn->nsoak,
		       fmt_dur(sm->t_ns, a, sizeof(a)),
		       sm->st[BD_C2H].median_ns / 1e3,
		       cli_gbps(len, sm->st[BD_C2H].median_ns),
		       sm->st[BD_H2C].median_ns / 1e3,
		       cli_gbps(len, sm->st[BD_H2C].median_ns),
		       n[0] + n[1], sm->verified ? "yes" : "NO");
		fflush(stdout);
		cli_progress_add(&bn->prog, 1);
		if (cli_now_ns() >= end)
			break;
		t_next += bn->interval_ns;
		if (t_next > end)
			t_next = end;
	}
	ret = 0;
out:
	free(t[0]);
	free(t[1]);
	return ret;
}

