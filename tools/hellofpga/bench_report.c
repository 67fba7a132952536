// SPDX-License-Identifier: MIT
/*
 * bench_report.c - what "hellofpga bench" writes: the tables on standard
 * output, JSON, CSV, a Markdown summary and gnuplot plots.  This
 * project's targets and the seed's published figures are judged from the
 * JSON by scripts/bench-judge.py, not here.
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

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static const struct bstats *st_of(const struct bench *bn, uint64_t size,
				  enum bpath p, int d)
{
	const struct bpoint *pt = bench_point(bn, size);

	if (!pt || !bn->paths[p] || !pt->st[p][d].iters)
		return NULL;
	return &pt->st[p][d];
}

/* median(a) / median(b) at @size, or NAN. */
static double ratio(const struct bench *bn, uint64_t size, enum bpath a,
		    enum bpath b, int d)
{
	const struct bstats *sa = st_of(bn, size, a, d);
	const struct bstats *sb = st_of(bn, size, b, d);

	if (!sa || !sb || !sb->median_ns)
		return NAN;
	return (double)sa->median_ns / (double)sb->median_ns;
}

/* median(a) - median(b) at @size in ns, or NAN. */
static double diff_ns(const struct bench *bn, uint64_t size, enum bpath a,
		      enum bpath b, int d)
{
	const struct bstats *sa = st_of(bn, size, a, d);
	const struct bstats *sb = st_of(bn, size, b, d);

	if (!sa || !sb)
		return NAN;
	return (double)sa->median_ns - (double)sb->median_ns;
}

static double gbps_of(const struct bench *bn, uint64_t size, enum bpath p,
		      int d)
{
	const struct bstats *s = st_of(bn, size, p, d);

	return s ? cli_gbps(size, s->median_ns) : NAN;
}

static const struct bframes *frames_n(const struct bench *bn, int n)
{
	return n >= 1 && n <= bn->nframes ? &bn->frames[n - 1] : NULL;
}

/* A cell: "%.2f" or "-" for NAN. */
static const char *cell(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static double soak_drift(const struct bench *bn, int d)
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

/* ---- text ---- */

static void print_env(const struct bench *bn, FILE *f, const char *pre)
{
	const HELLOFPGA_GPU_STATUS *g = &bn->gpu.status;

	fprintf(f, "%sdate:     %s\n", pre, bn->date);
	fprintf(f, "%scpu:      %s\n", pre, bn->cpu);
	fprintf(f, "%skernel:   %s\n", pre, bn->kernel);
	fprintf(f, "%slibrary:  %s\n", pre, HelloFPGA_Version());
	fprintf(f, "%scard:     %s, %s, irq %s, channel %d, card address 0x%" PRIx64 "\n",
		pre, bn->info.name, bn->info.backend_name,
		cli_irq_name(bn->info.irq_mode), bn->ch, bn->addr);
	fprintf(f, "%slink:     %s\n", pre, bn->link_desc);
	if (bn->gpu.present && bn->gpu.real)
		fprintf(f, "%sgpu:      %s (real, %s%s%s), CUDA %d.%d%s%s, GPU Direct %s\n",
			pre, g->name,
			g->platform == HELLOFPGA_PLATFORM_TEGRA ? "Tegra" :
			"desktop", g->pci_bus_id[0] ? ", PCI " : "",
			g->pci_bus_id, bn->gpu.cuda_version / 1000,
			bn->gpu.cuda_version % 1000 / 10,
			bn->gpu.driver[0] ? ", driver " : "", bn->gpu.driver,
			g->supported ? "supported" : "NOT supported");
	else if (bn->gpu.present)
		fprintf(f, "%sgpu:      %s (the library's emulated GPU, no CUDA), GPU Direct %s\n",
			pre, g->name, g->supported ? "supported" : "NOT supported");
	else
		fprintf(f, "%sgpu:      none (%s)\n", pre, bn->gpu_why);
}

static void print_paths_note(const struct bench *bn)
{
	printf("# paths: ceiling = raw copy between pinned host memory and the GPU (cuMemcpy);\n"
	       "#   direct = HelloFPGA_GPUDirect_ReadC2H/WriteH2C on a pinned handle;\n"
	       "#   trad-pg / trad-pin = DMA_MM to/from a pageable (malloc) / pinned host\n"
	       "#   buffer, then cuMemcpy (pageable host-to-GPU: synchronised before the clock\n"
	       "#   stops); xmode = DMA_MM in GPU_PINNED mode; cpu = DMA_MM with a host buffer;\n"
	       "#   memcpy = host to host (the CPU-mode ceiling); read = card->GPU, write = GPU->card\n");
	for (int p = 0; p < BP_N; p++)
		if (!bn->paths[p])
			printf("# %s: not measured: %s\n", bpath_label[p],
			       bn->path_why[p]);
}

static void print_sweep(const struct bench *bn)
{
	char sz[32], c[BP_N][16], pred[16];

	printf("\n## 1. Bandwidth (GB/s = 10^9 B/s, from the median; %% = of the ceiling)\n");
	printf("%9s %-5s %8s %8s %6s %8s %8s %8s %8s %8s%s\n", "size", "dir",
	       "ceiling", "direct", "%", "trad-pg", "trad-pin", "xmode",
	       "cpu", "memcpy", bn->link_on ? "    model" : "");
	for (int i = 0; i < bn->npoints; i++) {
		const struct bpoint *p = &bn->points[i];

		for (int d = BD_C2H; d >= BD_H2C; d--) {
			for (int k = 0; k < BP_N; k++)
				cell(c[k], sizeof(c[k]), "%.3f",
				     gbps_of(bn, p->size, k, d));
			printf("%9s %-5s %8s %8s %6s %8s %8s %8s %8s %8s",
			       cli_fmt_size(p->size, sz, sizeof(sz)),
			       d == BD_C2H ? "read" : "write", c[BP_CEIL],
			       c[BP_DIRECT],
			       cell(pred, sizeof(pred), "%.1f",
				    100 / ratio(bn, p->size, BP_DIRECT,
						BP_CEIL, d)),
			       c[BP_TRAD_PAGE], c[BP_TRAD_PIN], c[BP_XMODE],
			       c[BP_CPU], c[BP_MEMCPY]);
			if (bn->link_on)
				printf(" %8.3f", cli_gbps(p->size,
					bench_link_ns(bn, p->size)));
			printf("%s\n", p->verified ? "" : "  (NOT VERIFIED)");
		}
	}

	printf("\n## 2. Latency (us per transfer)\n");
	printf("%9s %-5s %6s | %9s %9s %9s %9s | %9s %9s %9s %9s %9s\n",
	       "size", "dir", "rounds", "direct min", "median", "p99", "max",
	       "ceiling", "trad-pg", "trad-pin", "xmode", "cpu");
	for (int i = 0; i < bn->npoints; i++) {
		const struct bpoint *p = &bn->points[i];

		for (int d = BD_C2H; d >= BD_H2C; d--) {
			const struct bstats *s = st_of(bn, p->size, BP_DIRECT, d);
			int k0 = s ? BP_DIRECT : BP_CPU;

			if (!s)
				s = st_of(bn, p->size, BP_CPU, d);
			for (int k = 0; k < BP_N; k++) {
				const struct bstats *x = st_of(bn, p->size, k, d);

				cell(c[k], sizeof(c[k]), "%.2f",
				     x ? us(x->median_ns) : NAN);
			}
			printf("%9s %-5s %6u | %9.2f %9.2f %9.2f %9.2f | %9s %9s %9s %9s %9s%s\n",
			       cli_fmt_size(p->size, sz, sizeof(sz)),
			       d == BD_C2H ? "read" : "write",
			       s ? s->iters : 0, s ? us(s->min_ns) : 0,
			       s ? us(s->median_ns) : 0, s ? us(s->p99_ns) : 0,
			       s ? us(s->max_ns) : 0, c[BP_CEIL], c[BP_TRAD_PAGE],
			       c[BP_TRAD_PIN], c[BP_XMODE], c[BP_CPU],
			       k0 == BP_CPU ? "  (cpu mode: no GPU Direct)" : "");
		}
	}

	printf("\n## 2b. Speedup of GPU Direct (median traditional / median direct)\n");
	printf("%9s | %9s %9s | %9s %9s\n", "size", "read pg", "read pin",
	       "write pg", "write pin");
	for (int i = 0; i < bn->npoints; i++) {
		uint64_t s = bn->points[i].size;
		char a[16], b[16], e[16], f[16];

		printf("%9s | %9s %9s | %9s %9s\n",
		       cli_fmt_size(s, sz, sizeof(sz)),
		       cell(a, sizeof(a), "%.2fx",
			    ratio(bn, s, BP_TRAD_PAGE, BP_DIRECT, BD_C2H)),
		       cell(b, sizeof(b), "%.2fx",
			    ratio(bn, s, BP_TRAD_PIN, BP_DIRECT, BD_C2H)),
		       cell(e, sizeof(e), "%.2fx",
			    ratio(bn, s, BP_TRAD_PAGE, BP_DIRECT, BD_H2C)),
		       cell(f, sizeof(f), "%.2fx",
			    ratio(bn, s, BP_TRAD_PIN, BP_DIRECT, BD_H2C)));
	}

	printf("\n## 2c. TransferMode speedup over CPU mode (median CPU-mode DMA_MM / GPU_PINNED DMA_MM)\n");
	printf("%9s | %9s %9s\n", "size", "write", "read");
	for (int i = 0; i < bn->npoints; i++) {
		uint64_t s = bn->points[i].size;
		char a[16], b[16];

		printf("%9s | %9s %9s\n", cli_fmt_size(s, sz, sizeof(sz)),
		       cell(a, sizeof(a), "%.2fx",
			    ratio(bn, s, BP_CPU, BP_XMODE, BD_H2C)),
		       cell(b, sizeof(b), "%.2fx",
			    ratio(bn, s, BP_CPU, BP_XMODE, BD_C2H)));
	}
}

static void print_frames(const struct bench *bn)
{
	const struct bframes *f1 = frames_n(bn, 1);
	char sz[32];

	printf("\n## 3. Frame rate, %s frames: the card fills frame k+1 while %s consumes frame k\n",
	       cli_fmt_size(bn->frame_size, sz, sizeof(sz)),
	       bn->gpu.real ? "a CUDA checksum kernel" :
	       "a CPU thread (emulated GPU)");
	printf("%8s %8s %10s %8s %9s %8s %8s\n", "buffers", "frames", "fps",
	       "GB/s", "vs single", "dropped", "corrupt");
	for (int i = 0; i < bn->nframes; i++) {
		const struct bframes *f = &bn->frames[i];

		printf("%8d %8" PRIu64 " %10.0f %8.3f %8.1f%% %8" PRIu64 " %8" PRIu64 "\n",
		       f->nbuf, f->frames, f->fps,
		       f->fps * (double)bn->frame_size / 1e9,
		       f1 && f1->fps > 0 ? f->fps / f1->fps * 100 : 0,
		       f->dropped, f->corrupt);
	}
}

static void print_pin(const struct bench *bn)
{
	char sz[32];

	printf("\n## 4. Pin and unpin (us)\n");
	printf("# first pin of the run (%s GPU buffer%s): %.1f us\n",
	       bn->g ? "the sweep's" : "-",
	       bn->gpu.real ? "; includes registering the card memory with CUDA" :
	       "", us(bn->first_pin_ns));
	printf("%9s %6s | %9s %9s %9s | %9s %9s %9s\n", "size", "n",
	       "pin min", "median", "max", "unpin min", "median", "max");
	for (int i = 0; i < bn->npins; i++) {
		const struct bpin *p = &bn->pins[i];

		if (!p->pin.iters)
			continue;
		printf("%9s %6u | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f\n",
		       cli_fmt_size(p->size, sz, sizeof(sz)), p->pin.iters,
		       us(p->pin.min_ns), us(p->pin.median_ns),
		       us(p->pin.max_ns), us(p->unpin.min_ns),
		       us(p->unpin.median_ns), us(p->unpin.max_ns));
	}
}

static void print_overhead(const struct bench *bn)
{
	char sz[32], c[6][16];

	printf("\n## 4b. Software overhead per transfer (us): median total minus the median of\n"
	       "##     the data movement alone (the raw copy of the same size, timed the same way)\n");
	if (bn->link_on)
		printf("# a link model is on: the figures include its link time\n");
	printf("%9s | %9s %9s %9s | %9s %9s %9s\n", "size", "direct rd",
	       "xmode rd", "cpu rd", "direct wr", "xmode wr", "cpu wr");
	for (int i = 0; i < bn->npoints; i++) {
		uint64_t s = bn->points[i].size;

		printf("%9s | %9s %9s %9s | %9s %9s %9s\n",
		       cli_fmt_size(s, sz, sizeof(sz)),
		       cell(c[0], 16, "%.2f",
			    diff_ns(bn, s, BP_DIRECT, BP_CEIL, BD_C2H) / 1e3),
		       cell(c[1], 16, "%.2f",
			    diff_ns(bn, s, BP_XMODE, BP_CEIL, BD_C2H) / 1e3),
		       cell(c[2], 16, "%.2f",
			    diff_ns(bn, s, BP_CPU, BP_MEMCPY, BD_C2H) / 1e3),
		       cell(c[3], 16, "%.2f",
			    diff_ns(bn, s, BP_DIRECT, BP_CEIL, BD_H2C) / 1e3),
		       cell(c[4], 16, "%.2f",
			    diff_ns(bn, s, BP_XMODE, BP_CEIL, BD_H2C) / 1e3),
		       cell(c[5], 16, "%.2f",
			    diff_ns(bn, s, BP_CPU, BP_MEMCPY, BD_H2C) / 1e3));
	}
}

void bench_print(const struct bench *bn)
{
	printf("# hellofpga bench: GPU Direct, traditional path, TransferMode and CPU mode\n");
	print_env(bn, stdout, "# ");
	if (bn->npoints)
		printf("# timing: wall clock per transfer, ended when the data is in place; paths\n"
		       "#   interleaved one transfer each per round; %s per size, %u..%u rounds\n",
		       bn->fixed_iters ? "fixed rounds" : "time budget",
		       bn->fixed_iters ? bn->fixed_iters : bn->min_iters,
		       bn->fixed_iters ? bn->fixed_iters : bn->max_iters);
	if (bn->npoints) {
		print_paths_note(bn);
		print_sweep(bn);
	}
	if (bn->nframes)
		print_frames(bn);
	if (bn->npins)
		print_pin(bn);
	if (bn->do_overhead && bn->npoints)
		print_overhead(bn);
	fflush(stdout);
}

void bench_print_soak(const struct bench *bn)
{
	double mean[BD_N] = { 0, 0 };

	if (!bn->nsoak)
		return;
	for (int i = 0; i < bn->nsoak; i++)
		for (int d = 0; d < BD_N; d++)
			mean[d] += us(bn->soak[i].st[d].median_ns) / bn->nsoak;
	printf("soak: %d samples; mean of medians: read %.2f us (%.3f GB/s), write %.2f us (%.3f GB/s)\n",
	       bn->nsoak, mean[BD_C2H],
	       mean[BD_C2H] > 0 ? bn->soak_size / mean[BD_C2H] / 1e3 : 0,
	       mean[BD_H2C],
	       mean[BD_H2C] > 0 ? bn->soak_size / mean[BD_H2C] / 1e3 : 0);
	if (bn->nsoak >= 3)
		printf("soak: drift, last third vs first third (bandwidth): read %+.2f%%, write %+.2f%%\n",
		       soak_drift(bn, BD_C2H), soak_drift(bn, BD_H2C));
	else
		printf("soak: drift needs at least 3 samples\n");
	fflush(stdout);
}

/* ---- JSON ---- */

static int close_out(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		cli_err("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static void json_stats(struct cli_json *j, const char *key,
		       const struct bstats *s, uint64_t size)
{
	cli_json_obj(j, key);
	cli_json_u64(j, "iterations", s->iters);
	cli_json_u64(j, "min_ns", s->min_ns);
	cli_json_u64(j, "median_ns", s->median_ns);
	cli_json_u64(j, "p99_ns", s->p99_ns);
	cli_json_u64(j, "max_ns", s->max_ns);
	cli_json_u64(j, "mean_ns", s->mean_ns);
	cli_json_num(j, "gbps", "%.4f", cli_gbps(size, s->median_ns));
	cli_json_end(j);
}

static void json_env(struct cli_json *j, const struct bench *bn)
{
	const HELLOFPGA_GPU_STATUS *g = &bn->gpu.status;

	cli_json_obj(j, "environment");
	cli_json_str(j, "date", bn->date);
	cli_json_str(j, "cpu", bn->cpu);
	cli_json_str(j, "kernel", bn->kernel);
	cli_json_str(j, "library", HelloFPGA_Version());
	cli_json_str(j, "card", bn->info.name);
	cli_json_str(j, "backend", bn->info.backend_name);
	cli_json_bool(j, "emulated_card",
		      bn->info.backend == HELLOFPGA_BACKEND_EMULATED);
	cli_json_str(j, "irq", cli_irq_name(bn->info.irq_mode));
	cli_json_int(j, "channel", bn->ch);
	cli_json_u64(j, "card_address", bn->addr);
	if (bn->link_on) {
		cli_json_obj(j, "link_model");
		cli_json_u64(j, "gen", bn->link_gen);
		cli_json_u64(j, "lanes", bn->link_lanes);
		cli_json_u64(j, "mps", bn->link_mps);
		cli_json_u64(j, "desc_ns", bn->link_desc_ns);
		cli_json_num(j, "gbps", "%.4f", bn->link_gbps);
		cli_json_str(j, "text", bn->link_desc);
		cli_json_end(j);
	} else {
		cli_json_null(j, "link_model");
	}
	if (bn->gpu.present) {
		cli_json_obj(j, "gpu");
		cli_json_str(j, "name", g->name);
		cli_json_bool(j, "emulated", !bn->gpu.real);
		cli_json_str(j, "platform",
			     g->platform == HELLOFPGA_PLATFORM_TEGRA ? "tegra" :
			     "desktop");
		cli_json_str(j, "pci_bus_id", g->pci_bus_id);
		cli_json_int(j, "cuda_driver_version", bn->gpu.cuda_version);
		cli_json_str(j, "driver", bn->gpu.driver);
		cli_json_bool(j, "gpudirect_supported", g->supported);
		cli_json_int(j, "rdma_supported", g->rdma_supported);
		cli_json_end(j);
	} else {
		cli_json_null(j, "gpu");
	}
	cli_json_end(j);
}

static void json_config(struct cli_json *j, const struct bench *bn)
{
	cli_json_obj(j, "config");
	cli_json_bool(j, "quick", bn->quick);
	cli_json_num(j, "budget_s", "%.3f", bn->budget_ns / 1e9);
	cli_json_u64(j, "min_rounds", bn->min_iters);
	cli_json_u64(j, "max_rounds", bn->max_iters);
	cli_json_u64(j, "fixed_rounds", bn->fixed_iters);
	cli_json_u64(j, "frame_size", bn->frame_size);
	cli_json_int(j, "buffers", bn->max_buffers);
	cli_json_num(j, "frames_time_s", "%.3f", bn->frames_ns / 1e9);
	cli_json_u64(j, "pin_max", bn->pin_max);
	cli_json_end(j);
	cli_json_obj(j, "paths");
	for (int p = 0; p < BP_N; p++) {
		cli_json_obj(j, bpath_name[p]);
		cli_json_str(j, "label", bpath_label[p]);
		cli_json_bool(j, "measured", bn->paths[p] && bn->npoints);
		cli_json_str(j, "why", bn->path_why[p]);
		cli_json_end(j);
	}
	cli_json_end(j);
}

static void json_point(struct cli_json *j, const struct bench *bn,
		       const struct bpoint *pt)
{
	int d, p;

	cli_json_obj(j, NULL);
	cli_json_u64(j, "size", pt->size);
	cli_json_bool(j, "verified", pt->verified);
	if (bn->link_on)
		cli_json_u64(j, "model_ns", bench_link_ns(bn, pt->size));
	for (d = 0; d < BD_N; d++) {
		cli_json_obj(j, bdir_name[d]);
		for (p = 0; p < BP_N; p++)
			if (bn->paths[p])
				json_stats(j, bpath_name[p], &pt->st[p][d],
					   pt->size);
		cli_json_end(j);
	}
	cli_json_obj(j, "speedup");
	for (d = 0; d < BD_N; d++) {
		cli_json_obj(j, bdir_name[d]);
		cli_json_num(j, "trad_pageable", "%.4f",
			     ratio(bn, pt->size, BP_TRAD_PAGE, BP_DIRECT, d));
		cli_json_num(j, "trad_pinned", "%.4f",
			     ratio(bn, pt->size, BP_TRAD_PIN, BP_DIRECT, d));
		cli_json_num(j, "transfer_mode_vs_cpu", "%.4f",
			     ratio(bn, pt->size, BP_CPU, BP_XMODE, d));
		cli_json_num(j, "direct_pct_of_ceiling", "%.2f",
			     100 / ratio(bn, pt->size, BP_DIRECT, BP_CEIL, d));
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_obj(j, "overhead_ns");
	for (d = 0; d < BD_N; d++) {
		cli_json_obj(j, bdir_name[d]);
		cli_json_num(j, "direct", "%.0f",
			     diff_ns(bn, pt->size, BP_DIRECT, BP_CEIL, d));
		cli_json_num(j, "transfer_mode", "%.0f",
			     diff_ns(bn, pt->size, BP_XMODE, BP_CEIL, d));
		cli_json_num(j, "cpu_mode", "%.0f",
			     diff_ns(bn, pt->size, BP_CPU, BP_MEMCPY, d));
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
}

static void json_frames_pins(struct cli_json *j, const struct bench *bn)
{
	int i;

	cli_json_obj(j, "frames");
	cli_json_u64(j, "frame_size", bn->frame_size);
	cli_json_str(j, "consumer", bn->gpu.real ? "cuda_kernel" :
		     "cpu_thread");
	if (bn->link_on)
		cli_json_u64(j, "model_ns", bench_link_ns(bn, bn->frame_size));
	cli_json_arr(j, "runs");
	for (i = 0; i < bn->nframes; i++) {
		const struct bframes *fr = &bn->frames[i];

		cli_json_obj(j, NULL);
		cli_json_int(j, "buffers", fr->nbuf);
		cli_json_u64(j, "frames", fr->frames);
		cli_json_num(j, "seconds", "%.4f", fr->ns / 1e9);
		cli_json_num(j, "fps", "%.1f", fr->fps);
		cli_json_num(j, "gbps", "%.4f",
			     fr->fps * (double)bn->frame_size / 1e9);
		cli_json_u64(j, "dropped", fr->dropped);
		cli_json_u64(j, "corrupt", fr->corrupt);
		cli_json_num(j, "vs_single", "%.4f", bn->frames[0].fps > 0 ?
			     fr->fps / bn->frames[0].fps : 0);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
	cli_json_obj(j, "pin");
	cli_json_u64(j, "first_pin_ns", bn->first_pin_ns);
	cli_json_u64(j, "first_pin_size",
		     bn->g ? (bn->max + 65535) / 65536 * 65536 : 0);
	cli_json_arr(j, "sizes");
	for (i = 0; i < bn->npins; i++) {
		cli_json_obj(j, NULL);
		cli_json_u64(j, "size", bn->pins[i].size);
		json_stats(j, "pin", &bn->pins[i].pin, 0);
		json_stats(j, "unpin", &bn->pins[i].unpin, 0);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
}

static void json_soak(struct cli_json *j, const struct bench *bn)
{
	if (!bn->nsoak) {
		cli_json_null(j, "soak");
		return;
	}
	cli_json_obj(j, "soak");
	cli_json_u64(j, "size", bn->soak_size);
	cli_json_num(j, "duration_s", "%.1f", bn->soak_ns / 1e9);
	cli_json_num(j, "interval_s", "%.3f", bn->interval_ns / 1e9);
	cli_json_arr(j, "samples");
	for (int i = 0; i < bn->nsoak; i++) {
		cli_json_obj(j, NULL);
		cli_json_num(j, "t_s", "%.3f", bn->soak[i].t_ns / 1e9);
		cli_json_bool(j, "verified", bn->soak[i].verified);
		json_stats(j, "c2h", &bn->soak[i].st[BD_C2H], bn->soak_size);
		json_stats(j, "h2c", &bn->soak[i].st[BD_H2C], bn->soak_size);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_obj(j, "drift_pct");
	cli_json_num(j, "c2h", "%.3f", soak_drift(bn, BD_C2H));
	cli_json_num(j, "h2c", "%.3f", soak_drift(bn, BD_H2C));
	cli_json_end(j);
	cli_json_end(j);
}

int bench_json(const struct bench *bn, const char *path)
{
	struct cli_json j;

	if (cli_json_open(&j, path))
		return -1;
	cli_json_str(&j, "tool", "hellofpga bench");
	cli_json_int(&j, "format", 2);
	json_env(&j, bn);
	json_config(&j, bn);
	cli_json_arr(&j, "sweep");
	for (int i = 0; i < bn->npoints; i++)
		json_point(&j, bn, &bn->points[i]);
	cli_json_end(&j);
	json_frames_pins(&j, bn);
	json_soak(&j, bn);
	return cli_json_close(&j);
}

/* ---- CSV ---- */

static void csv_row(FILE *f, const char *section, const char *name,
		    uint64_t size, const char *dir, const struct bstats *s,
		    double gbps, double value, long long dropped,
		    long long corrupt)
{
	fprintf(f, "%s,%s,%" PRIu64 ",%s,", section, name, size, dir);
	if (s)
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",", s->iters, s->min_ns, s->median_ns,
			s->p99_ns, s->max_ns, s->mean_ns);
	else
		fputs(",,,,,,", f);
	if (!isnan(gbps))
		fprintf(f, "%.4f", gbps);
	fputc(',', f);
	if (!isnan(value))
		fprintf(f, "%.4f", value);
	fputc(',', f);
	if (dropped >= 0)
		fprintf(f, "%lld,%lld", dropped, corrupt);
	else
		fputc(',', f);
	fputc('\n', f);
}

int bench_csv(const struct bench *bn, const char *path)
{
	FILE *f = fopen(path, "w");
	char nm[32];

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("section,name,size,direction,iterations,min_ns,median_ns,p99_ns,"
	      "max_ns,mean_ns,gbps,value,dropped,corrupt\n", f);
	for (int i = 0; i < bn->npoints; i++) {
		const struct bpoint *pt = &bn->points[i];

		for (int d = 0; d < BD_N; d++) {
			for (int p = 0; p < BP_N; p++)
				if (bn->paths[p])
					csv_row(f, "sweep", bpath_name[p], pt->size,
						bdir_name[d], &pt->st[p][d],
						cli_gbps(pt->size,
							 pt->st[p][d].median_ns),
						NAN, -1, -1);
			csv_row(f, "speedup", "trad_pageable", pt->size,
				bdir_name[d], NULL, NAN,
				ratio(bn, pt->size, BP_TRAD_PAGE, BP_DIRECT, d),
				-1, -1);
			csv_row(f, "speedup", "trad_pinned", pt->size,
				bdir_name[d], NULL, NAN,
				ratio(bn, pt->size, BP_TRAD_PIN, BP_DIRECT, d),
				-1, -1);
			csv_row(f, "transfer_mode", "cpu_over_gpu_pinned",
				pt->size, bdir_name[d], NULL, NAN,
				ratio(bn, pt->size, BP_CPU, BP_XMODE, d), -1, -1);
			csv_row(f, "overhead", "direct", pt->size, bdir_name[d],
				NULL, NAN,
				diff_ns(bn, pt->size, BP_DIRECT, BP_CEIL, d), -1, -1);
			csv_row(f, "overhead", "transfer_mode", pt->size,
				bdir_name[d], NULL, NAN,
				diff_ns(bn, pt->size, BP_XMODE, BP_CEIL, d), -1, -1);
			csv_row(f, "overhead", "cpu_mode", pt->size,
				bdir_name[d], NULL, NAN,
				diff_ns(bn, pt->size, BP_CPU, BP_MEMCPY, d), -1, -1);
			if (bn->link_on)
				csv_row(f, "model", "link", pt->size,
					bdir_name[d], NULL,
					cli_gbps(pt->size,
						 bench_link_ns(bn, pt->size)),
					(double)bench_link_ns(bn, pt->size), -1, -1);
		}
	}
	for (int i = 0; i < bn->nframes; i++) {
		const struct bframes *fr = &bn->frames[i];

		snprintf(nm, sizeof(nm), "buffers=%d", fr->nbuf);
		csv_row(f, "frames", nm, bn->frame_size, "c2h", NULL,
			fr->fps * (double)bn->frame_size / 1e9, fr->fps,
			(long long)fr->dropped, (long long)fr->corrupt);
	}
	if (bn->npins || bn->first_pin_ns)
		csv_row(f, "pin", "first_pin", bn->g ? (bn->max + 65535) / 65536 * 65536 : 0,
			"", NULL, NAN, (double)bn->first_pin_ns, -1, -1);
	for (int i = 0; i < bn->npins; i++) {
		csv_row(f, "pin", "pin", bn->pins[i].size, "",
			&bn->pins[i].pin, NAN, NAN, -1, -1);
		csv_row(f, "pin", "unpin", bn->pins[i].size, "",
			&bn->pins[i].unpin, NAN, NAN, -1, -1);
	}
	for (int i = 0; i < bn->nsoak; i++) {
		snprintf(nm, sizeof(nm), "sample=%d", i + 1);
		for (int d = 0; d < BD_N; d++)
			csv_row(f, "soak", nm, bn->soak_size, bdir_name[d],
				&bn->soak[i].st[d],
				cli_gbps(bn->soak_size, bn->soak[i].st[d].median_ns),
				bn->soak[i].t_ns / 1e9, -1, -1);
	}
	return close_out(f, path);
}

/* ---- Markdown ---- */

int bench_markdown(const struct bench *bn, const char *path)
{
	static const uint64_t head[] = { 4ull << 10, 64ull << 10, 1ull << 20,
					 4ull << 20, 64ull << 20 };
	FILE *f = fopen(path, "w");
	char sz[32], c[8][24];

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("# hellofpga bench\n\n", f);
	print_env(bn, f, "- ");
	if (bn->npoints) {
		fputs("\n## Headline (GB/s from the median; speedup = traditional pageable / GPU Direct)\n\n"
		      "| size | dir | ceiling | GPU Direct | % of ceiling | trad. pageable | trad. pinned | TransferMode | CPU mode | speedup |\n"
		      "|---|---|---|---|---|---|---|---|---|---|\n", f);
		for (size_t j = 0; j < sizeof(head) / sizeof(head[0]); j++) {
			if (!bench_point(bn, head[j]))
				continue;
			for (int d = BD_C2H; d >= BD_H2C; d--) {
				uint64_t s = head[j];

				fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					cli_fmt_size(s, sz, sizeof(sz)),
					d == BD_C2H ? "read" : "write",
					cell(c[0], 24, "%.2f", gbps_of(bn, s, BP_CEIL, d)),
					cell(c[1], 24, "%.2f", gbps_of(bn, s, BP_DIRECT, d)),
					cell(c[2], 24, "%.1f%%", 100 / ratio(bn, s, BP_DIRECT, BP_CEIL, d)),
					cell(c[3], 24, "%.2f", gbps_of(bn, s, BP_TRAD_PAGE, d)),
					cell(c[4], 24, "%.2f", gbps_of(bn, s, BP_TRAD_PIN, d)),
					cell(c[5], 24, "%.2f", gbps_of(bn, s, BP_XMODE, d)),
					cell(c[6], 24, "%.2f", gbps_of(bn, s, BP_CPU, d)),
					cell(c[7], 24, "%.2fx", ratio(bn, s, BP_TRAD_PAGE, BP_DIRECT, d)));
			}
		}
		fputs("\n## Latency of GPU Direct (us) beside the ceiling\n\n"
		      "| size | dir | min | median | p99 | max | ceiling median | trad. pageable median |\n"
		      "|---|---|---|---|---|---|---|---|\n", f);
		for (int i = 0; i < bn->npoints; i++)
			for (int d = BD_C2H; d >= BD_H2C; d--) {
				uint64_t s = bn->points[i].size;
				const struct bstats *x = st_of(bn, s, BP_DIRECT, d);
				const struct bstats *cl = st_of(bn, s, BP_CEIL, d);
				const struct bstats *tp = st_of(bn, s, BP_TRAD_PAGE, d);

				if (!x)
					continue;
				fprintf(f, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s |\n",
					cli_fmt_size(s, sz, sizeof(sz)),
					d == BD_C2H ? "read" : "write", us(x->min_ns),
					us(x->median_ns), us(x->p99_ns), us(x->max_ns),
					cell(c[0], 24, "%.2f", cl ? us(cl->median_ns) : NAN),
					cell(c[1], 24, "%.2f", tp ? us(tp->median_ns) : NAN));
			}
	}
	if (bn->nframes) {
		fprintf(f, "\n## Frame rate (%s frames, consumer: %s)\n\n| buffers | fps | vs single | dropped | corrupt |\n|---|---|---|---|---|\n",
			cli_fmt_size(bn->frame_size, sz, sizeof(sz)),
			bn->gpu.real ? "CUDA checksum kernel" : "CPU thread");
		for (int i = 0; i < bn->nframes; i++)
			fprintf(f, "| %d | %.0f | %.1f%% | %" PRIu64 " | %" PRIu64 " |\n",
				bn->frames[i].nbuf, bn->frames[i].fps,
				bn->frames[0].fps > 0 ?
				bn->frames[i].fps / bn->frames[0].fps * 100 : 0,
				bn->frames[i].dropped, bn->frames[i].corrupt);
	}
	if (bn->npins) {
		fprintf(f, "\n## Pin / unpin (median us)\n\nFirst pin of the run: %.1f us%s.\n\n| size | pin | unpin |\n|---|---|---|\n",
			us(bn->first_pin_ns), bn->gpu.real ?
			" (includes registering the card memory with CUDA)" : "");
		for (int i = 0; i < bn->npins; i++)
			fprintf(f, "| %s | %.1f | %.1f |\n",
				cli_fmt_size(bn->pins[i].size, sz, sizeof(sz)),
				us(bn->pins[i].pin.median_ns),
				us(bn->pins[i].unpin.median_ns));
	}
	if (bn->nsoak)
		fprintf(f, "\n## Soak\n\n%d samples of %s transfers; drift (last third vs first, bandwidth): read %+.2f%%, write %+.2f%%\n",
			bn->nsoak, cli_fmt_size(bn->soak_size, sz, sizeof(sz)),
			soak_drift(bn, BD_C2H), soak_drift(bn, BD_H2C));
	return close_out(f, path);
}

/* ---- plots ---- */

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
				const struct bstats *x = st_of(bn, s, p, d);

				if (!x)
					fputs(" NaN", gp);
				else if (latency)
					fprintf(gp, " %.4f", us(x->median_ns));
				else
					fprintf(gp, " %.4f", cli_gbps(s, x->median_ns));
			}
			if (bn->link_on)
				fprintf(gp, " %.4f", latency ?
					us(bench_link_ns(bn, s)) :
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
	return close_out(f, path);
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
