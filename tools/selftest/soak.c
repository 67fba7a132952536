// SPDX-License-Identifier: MIT
/*
 * soak.c - --soak DURATION: GPU Direct transfers kept running, sampled at
 * intervals, data verified, drift between the first and last third.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* ------------------------------------------------------------------------
 * Soak
 * ------------------------------------------------------------------------ */

static void on_sigint(int sig)
{
	t_stop = 1;
}

/* "01:02:03" */
static const char *fmt_hms(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NS_PER_S;

	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600,
		 s / 60 % 60, s % 60);
	return buf;
}

/* "12h", "10m", "1h 30m", "90s" -> "1m 30s" */
const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NS_PER_S, d = s / 86400, h = s / 3600 % 24;
	uint64_t m = s / 60 % 60;
	size_t n = 0;

	buf[0] = '\0';
	if (d)
		n += snprintf(buf + n, len - n, "%" PRIu64 "d ", d);
	if (h && n < len)
		n += snprintf(buf + n, len - n, "%" PRIu64 "h ", h);
	if (m && n < len)
		n += snprintf(buf + n, len - n, "%" PRIu64 "m ", m);
	if ((s % 60 || !s) && n < len)
		n += snprintf(buf + n, len - n, "%" PRIu64 "s ", s % 60);
	if (n && n <= len)
		buf[n - 1] = '\0';
	return buf;
}

/**
 * soak_sample() - one measurement: after T_SOAK_WARMUP untimed transfers
 * each way (the first sample comes right after the cases, cold), take
 * T_SOAK_XFERS card -> GPU transfers
 * from two card regions holding different patterns, then as many GPU ->
 * card transfers from two buffers holding different patterns; each
 * transfer verified (through host staging or the CPU path), so a
 * transfer that silently did nothing cannot pass.
 * @g: two pinned buffers of t->size
 * @base: card region of 3 * t->size
 * @k: sample number, for the patterns
 * @s: receives the medians
 * Return: 0 or -1 (recorded).  Leaves pattern (k, 2) in g[0] and t->ha.
 */
static int soak_sample(struct tctx *t, struct gbuf *g, uint64_t base,
		       uint32_t k, struct soak_sample *s)
{
	uint64_t lat[T_SOAK_XFERS], reg[2] = { base, base + t->size };
	uint64_t wr = base + 2 * (uint64_t)t->size;
	uint8_t *pat[2] = { t->ha, t->hb };
	size_t n = t->size;
	char what[64];
	int i;

	fill(t->ha, n, seed_of(16, k, 0));
	fill(t->hb, n, seed_of(16, k, 1));
	if (card_put(t, reg[0], t->ha, n) || card_put(t, reg[1], t->hb, n))
		return -1;
	for (i = 0; i < T_SOAK_WARMUP; i++)
		if (gd_xfer(t, &g[0], 0, reg[0], n, HELLOFPGA_DIR_C2H, NULL) ||
		    gd_xfer(t, &g[1], 0, wr, n, HELLOFPGA_DIR_H2C, NULL))
			return -1;
	for (i = 0; i < T_SOAK_XFERS; i++) {
		snprintf(what, sizeof(what), "sample %u, card -> GPU %d", k + 1,
			 i + 1);
		if (gd_xfer(t, &g[0], 0, reg[i & 1], n, HELLOFPGA_DIR_C2H,
			    &lat[i]) ||
		    gpu_get(t, t->hc, g[0].p, n) ||
		    check_bytes(t, what, pat[i & 1], t->hc, n, 0))
			return -1;
	}
	s->rd_ns = median(lat, T_SOAK_XFERS);

	fill(t->ha, n, seed_of(16, k, 2));
	fill(t->hb, n, seed_of(16, k, 3));
	if (gpu_put(t, g[0].p, t->ha, n) || gpu_put(t, g[1].p, t->hb, n))
		return -1;
	for (i = 0; i < T_SOAK_XFERS; i++) {
		snprintf(what, sizeof(what), "sample %u, GPU -> card %d", k + 1,
			 i + 1);
		if (gd_xfer(t, &g[i & 1], 0, wr, n, HELLOFPGA_DIR_H2C, &lat[i]) ||
		    card_get(t, wr, t->hc, n) ||
		    check_bytes(t, what, pat[i & 1], t->hc, n, wr))
			return -1;
	}
	s->wr_ns = median(lat, T_SOAK_XFERS);
	t->soak_xfers += 2 * (T_SOAK_XFERS + T_SOAK_WARMUP);
	t->soak_bytes += 2ull * (T_SOAK_XFERS + T_SOAK_WARMUP) * n;
	return 0;
}

/* Bring the soak's progress line up to date: elapsed / total, last sample. */
static void soak_progress(struct tctx *t)
{
	uint64_t el = cli_now_ns() - t->soak_start, ms = el / 1000000;
	const struct soak_sample *s = t->soak_last;
	char a[32], b[32];

	if (ms > t->soak_shown_ms) {
		cli_progress_add(&t->prog, ms - t->soak_shown_ms);
		t->soak_shown_ms = ms;
	}
	if (!s) {
		cli_progress_label(&t->prog, "soak: %s/%s, first sample",
				   fmt_hms(el, a, sizeof(a)),
				   fmt_hms(t->soak_ns, b, sizeof(b)));
		return;
	}
	cli_progress_label(&t->prog,
			   "soak: %s/%s, sample %zu: read %.1f us %.2f GB/s, write %.1f us %.2f GB/s",
			   fmt_hms(el, a, sizeof(a)),
			   fmt_hms(t->soak_ns, b, sizeof(b)), t->nsamples,
			   us(s->rd_ns), cli_gbps(t->size, s->rd_ns),
			   us(s->wr_ns), cli_gbps(t->size, s->wr_ns));
}

/**
 * soak_load() - keep GPU Direct busy until @until (or Ctrl-C): g[0] ->
 * card -> g[1], every T_SOAK_CHECK_EVERY-th round with g[1] poisoned first
 * and checked against t->ha (what g[0] holds) after.
 * Return: 0 or -1 (recorded).
 */
static int soak_load(struct tctx *t, struct gbuf *g, uint64_t addr,
		     uint64_t until, uint64_t *xfers)
{
	size_t n = t->size;
	uint64_t r;

	for (r = 1; !t_stop && cli_now_ns() < until; r++) {
		bool check = !(r % T_SOAK_CHECK_EVERY);

		if ((check && gpu_poison(t, g[1].p, n)) ||
		    gd_xfer(t, &g[0], 0, addr, n, HELLOFPGA_DIR_H2C, NULL) ||
		    gd_xfer(t, &g[1], 0, addr, n, HELLOFPGA_DIR_C2H, NULL))
			return -1;
		*xfers += 2;
		t->soak_xfers += 2;
		t->soak_bytes += 2ull * n;
		if (!(r & 7))
			soak_progress(t);
		if (check && (gpu_get(t, t->hc, g[1].p, n) ||
			      check_bytes(t, "soak load round trip", t->ha, t->hc,
					  n, 0)))
			return -1;
	}
	return 0;
}


void drift_of(const struct tctx *t, bool rd, struct drift *d)
{
	size_t n = t->nsamples, third = n / 3, i;
	double sum_ns = 0, sum_bw = 0;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		uint64_t ns = rd ? t->samples[i].rd_ns : t->samples[i].wr_ns;
		double bw = cli_gbps(t->size, ns);

		sum_ns += (double)ns;
		sum_bw += bw;
		if (i < third) {
			d->first_ns += (double)ns;
			d->first_gbps += bw;
		}
		if (third && i >= n - third) {
			d->last_ns += (double)ns;
			d->last_gbps += bw;
		}
	}
	if (n) {
		d->mean_ns = sum_ns / (double)n;
		d->mean_gbps = sum_bw / (double)n;
	}
	if (third) {
		d->first_ns /= (double)third;
		d->last_ns /= (double)third;
		d->first_gbps /= (double)third;
		d->last_gbps /= (double)third;
		d->valid = d->first_ns > 0 && d->first_gbps > 0;
	}
}

/* (last - first) / first in percent. */
double pct(double first, double last)
{
	return first ? (last - first) / first * 100.0 : 0.0;
}

static void print_drift(const char *dir, const struct drift *d)
{
	printf("  %-5s  %10.1f  %9.3f", dir, d->mean_ns / 1e3, d->mean_gbps);
	if (d->valid)
		printf("  %10.1f  %10.1f  %+8.2f %%  %+8.2f %%\n",
		       d->first_ns / 1e3, d->last_ns / 1e3,
		       pct(d->first_ns, d->last_ns),
		       pct(d->first_gbps, d->last_gbps));
	else
		printf("  %10s  %10s  %10s  %10s\n", "-", "-", "n/a", "n/a");
}

/**
 * run_soak() - the soak phase: a sample every interval (the first at
 * once), GPU Direct load between samples, a row per sample as it is
 * taken, a progress line on stderr, then means and drift.  The outcome
 * goes to t->soak.
 */
void run_soak(struct tctx *t)
{
	uint64_t start, next, load = 0, base = 0;
	uint64_t load_addr = 3 * (uint64_t)t->size;
	struct sigaction sa, old;
	struct gbuf g[2];
	struct drift rd, wr;
	size_t cap;
	char a[32], b[32], c[32];
	uint32_t k;

	memset(&t->soak, 0, sizeof(t->soak));
	memset(g, 0, sizeof(g));
	t->soak.res = T_PASS;
	t->cur = &t->soak;
	cap = (size_t)((t->soak_ns + t->interval_ns - 1) / t->interval_ns);
	t->samples = calloc(cap, sizeof(*t->samples));
	if (!t->samples) {
		tfail(t, "out of memory for %zu samples", cap);
		goto out_print;
	}
	if (t->gs.platform == HELLOFPGA_PLATFORM_NONE) {
		t->soak.res = T_SKIP;
		snprintf(t->soak.text, sizeof(t->soak.text), "no GPU: %s",
			 t->gs.reason);
		goto out_print;
	}
	if (!t->gs.supported) {
		tfail(t, "GPU Direct is not supported here: %s", t->gs.reason);
		goto out_print;
	}
	if (gbuf_new(t, &g[0], t->size) || gbuf_new(t, &g[1], t->size))
		goto out_free;

	printf("\nsoak: %s, a sample every %s (%zu samples): median of %d GPU Direct transfers of %s each way (after %d untimed), each verified; verified load in between\n",
	       fmt_duration(t->soak_ns, a, sizeof(a)),
	       fmt_duration(t->interval_ns, b, sizeof(b)), cap, T_SOAK_XFERS,
	       cli_fmt_size(t->size, c, sizeof(c)), T_SOAK_WARMUP);
	printf("  sample   elapsed   read us  read GB/s   write us  write GB/s  load xfers\n");
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;	/* a second Ctrl-C ends the program */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	t_stop = 0;

	cli_progress_start(&t->prog, t->soak_ns / 1000000);
	start = cli_now_ns();
	t->soak_start = start;
	t->soak_shown_ms = 0;
	t->soak_last = NULL;
	soak_progress(t);
	for (k = 0; k < cap && !t_stop; k++) {
		struct soak_sample *s = &t->samples[k];
		uint64_t now;

		next = start + k * t->interval_ns;
		if (soak_load(t, g, load_addr, next, &load))
			break;
		if (t_stop)
			break;
		now = cli_now_ns();
		s->t_ns = now - start;
		s->load = load;
		load = 0;
		if (soak_sample(t, g, base, k, s))
			break;
		t->nsamples++;
		printf("  %6u  %s  %8.1f  %9.3f  %9.1f  %10.3f  %10" PRIu64 "\n",
		       k + 1, fmt_hms(s->t_ns, a, sizeof(a)), us(s->rd_ns),
		       cli_gbps(t->size, s->rd_ns), us(s->wr_ns),
		       cli_gbps(t->size, s->wr_ns), s->load);
		fflush(stdout);
		t->soak_last = s;
		soak_progress(t);
	}
	if (t->soak.res != T_FAIL && !t_stop)
		soak_load(t, g, load_addr, start + t->soak_ns, &load);
	cli_progress_stop(&t->prog);
	sigaction(SIGINT, &old, NULL);
	t->soak.ns = cli_now_ns() - start;
	if (t_stop && t->soak.res != T_FAIL)
		tfail(t, "interrupted after %s of %s",
		      fmt_hms(t->soak.ns, a, sizeof(a)),
		      fmt_hms(t->soak_ns, b, sizeof(b)));

	drift_of(t, true, &rd);
	drift_of(t, false, &wr);
	printf("\nsoak summary: %zu samples over %s, %" PRIu64 " GPU Direct transfers, %s moved%s\n",
	       t->nsamples, fmt_duration(t->soak.ns, a, sizeof(a)),
	       t->soak_xfers,
	       cli_fmt_size(t->soak_bytes, b, sizeof(b)),
	       t->soak.res == T_PASS ? ", every verified transfer matched" : "");
	printf("  dir       mean us  mean GB/s  first 1/3 us  last 1/3 us  drift latency  drift bandwidth\n");
	print_drift("read", &rd);
	print_drift("write", &wr);
	if (t->soak.res == T_PASS) {
		if (rd.valid && wr.valid)
			tpass(t, "%zu samples, drift read %+.2f %% / write %+.2f %% (bandwidth, last third vs first)",
			      t->nsamples, pct(rd.first_gbps, rd.last_gbps),
			      pct(wr.first_gbps, wr.last_gbps));
		else
			tpass(t, "%zu samples, too few for drift (need 3)",
			      t->nsamples);
	}
out_free:
	gbuf_free(t, &g[0]);
	gbuf_free(t, &g[1]);
out_print:
	t->cur = NULL;
	printf("[soak]  ");
	print_name("soak");
	print_result(&t->soak);
}
