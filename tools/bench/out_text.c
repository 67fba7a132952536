// SPDX-License-Identifier: MIT
/*
 * out_text.c - "hellofpga bench" on standard output, as the run goes: the
 * environment and the tables, for people (the files are rendered from
 * the JSON).
 */
#include <inttypes.h>
#include <math.h>

#include "link.h"
#include "out.h"
#include "stats.h"

/* the environment, a line each, every line after @pre */
static void bench_print_env(const struct bench *bn, FILE *f, const char *pre)
{
	const HELLOFPGA_GPU_STATUS *g = &bn->gpu.status;

	/* the card and the GPU first: what the figures are of */
	fprintf(f, "%scard:     %s, %s, irq %s, channel %d, card address 0x%" PRIx64 " (GPU paths 0x%" PRIx64 ")\n",
		pre, bn->info.name, bn->info.backend_name,
		cli_irq_name(bn->info.irq_mode), bn->ch, bn->addr, bn->gaddr);
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
		fprintf(f, "%sgpu:      %s (emulated, %s: the library's emulated GPU, no CUDA), GPU Direct %s\n",
			pre, g->name,
			g->platform == HELLOFPGA_PLATFORM_TEGRA ? "Tegra" :
			"desktop", g->supported ? "supported" : "NOT supported");
	else
		fprintf(f, "%sgpu:      none (%s)\n", pre, bn->gpu_why);
	fprintf(f, "%slink:     %s\n", pre, bn->link_desc);
	fprintf(f, "%sseed:     %" PRIu32 " (the order of the paths in each round; --seed repeats it)\n",
		pre, bn->seed);
	fprintf(f, "%sdate:     %s\n", pre, bn->date);
	fprintf(f, "%scpu:      %s\n", pre, bn->cpu);
	fprintf(f, "%skernel:   %s\n", pre, bn->kernel);
	fprintf(f, "%slibrary:  %s\n", pre, HelloFPGA_Version());
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

/* 1b: how stable each median was across the repeats */
static void print_spread(const struct bench *bn)
{
	char sz[32], c[BP_N][16], lo_hi[32];
	double lo, hi;

	printf("\n## 1b. Stability across %d repeat%s: spread of each median, (highest - lowest\n"
	       "##     repeat median) / median, %%; GPU Direct %% of the ceiling, lowest..highest\n",
	       bn->repeats, bn->repeats > 1 ? "s" : "");
	if (bn->repeats < 2) {
		printf("# one repeat: no spread (--repeats 3 measures it)\n");
		return;
	}
	printf("%9s %-5s %8s %8s %8s %8s %8s %8s %8s | %s\n", "size", "dir",
	       "ceiling", "direct", "trad-pg", "trad-pin", "xmode", "cpu",
	       "memcpy", "% of ceiling");
	for (int i = 0; i < bn->npoints; i++) {
		uint64_t s = bn->points[i].size;

		for (int d = BD_C2H; d >= BD_H2C; d--) {
			for (int k = 0; k < BP_N; k++)
				bench_cell(c[k], sizeof(c[k]), "%.1f%%",
				     bench_spread(bn, s, k, d, NULL, NULL));
			if (isnan(bench_pct_range(bn, s, d, &lo, &hi)))
				snprintf(lo_hi, sizeof(lo_hi), "-");
			else
				snprintf(lo_hi, sizeof(lo_hi), "%.1f..%.1f",
					 lo, hi);
			printf("%9s %-5s %8s %8s %8s %8s %8s %8s %8s | %s\n",
			       cli_fmt_size(s, sz, sizeof(sz)),
			       d == BD_C2H ? "read" : "write", c[BP_CEIL],
			       c[BP_DIRECT], c[BP_TRAD_PAGE], c[BP_TRAD_PIN],
			       c[BP_XMODE], c[BP_CPU], c[BP_MEMCPY], lo_hi);
		}
	}
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
				bench_cell(c[k], sizeof(c[k]), "%.3f",
				     bench_gbps(bn, p->size, k, d));
			printf("%9s %-5s %8s %8s %6s %8s %8s %8s %8s %8s",
			       cli_fmt_size(p->size, sz, sizeof(sz)),
			       d == BD_C2H ? "read" : "write", c[BP_CEIL],
			       c[BP_DIRECT],
			       bench_cell(pred, sizeof(pred), "%.1f",
				    100 / bench_ratio(bn, p->size, BP_DIRECT,
						BP_CEIL, d)),
			       c[BP_TRAD_PAGE], c[BP_TRAD_PIN], c[BP_XMODE],
			       c[BP_CPU], c[BP_MEMCPY]);
			if (bn->link_on)
				printf(" %8.3f", cli_gbps(p->size,
					bench_link_ns(bn, p->size)));
			printf("%s\n", p->verified ? "" : "  (NOT VERIFIED)");
		}
	}

	print_spread(bn);

	printf("\n## 2. Latency (us per transfer)\n");
	printf("%9s %-5s %6s | %9s %9s %9s %9s | %9s %9s %9s %9s %9s\n",
	       "size", "dir", "rounds", "direct min", "median", "p99", "max",
	       "ceiling", "trad-pg", "trad-pin", "xmode", "cpu");
	for (int i = 0; i < bn->npoints; i++) {
		const struct bpoint *p = &bn->points[i];

		for (int d = BD_C2H; d >= BD_H2C; d--) {
			const struct bstats *s = bench_st(bn, p->size, BP_DIRECT, d);
			int k0 = s ? BP_DIRECT : BP_CPU;

			if (!s)
				s = bench_st(bn, p->size, BP_CPU, d);
			for (int k = 0; k < BP_N; k++) {
				const struct bstats *x = bench_st(bn, p->size, k, d);

				bench_cell(c[k], sizeof(c[k]), "%.2f",
				     x ? bench_us(x->median_ns) : NAN);
			}
			printf("%9s %-5s %6u | %9.2f %9.2f %9.2f %9.2f | %9s %9s %9s %9s %9s%s\n",
			       cli_fmt_size(p->size, sz, sizeof(sz)),
			       d == BD_C2H ? "read" : "write",
			       s ? s->iters : 0, s ? bench_us(s->min_ns) : 0,
			       s ? bench_us(s->median_ns) : 0, s ? bench_us(s->p99_ns) : 0,
			       s ? bench_us(s->max_ns) : 0, c[BP_CEIL], c[BP_TRAD_PAGE],
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
		       bench_cell(a, sizeof(a), "%.2fx",
			    bench_ratio(bn, s, BP_TRAD_PAGE, BP_DIRECT, BD_C2H)),
		       bench_cell(b, sizeof(b), "%.2fx",
			    bench_ratio(bn, s, BP_TRAD_PIN, BP_DIRECT, BD_C2H)),
		       bench_cell(e, sizeof(e), "%.2fx",
			    bench_ratio(bn, s, BP_TRAD_PAGE, BP_DIRECT, BD_H2C)),
		       bench_cell(f, sizeof(f), "%.2fx",
			    bench_ratio(bn, s, BP_TRAD_PIN, BP_DIRECT, BD_H2C)));
	}

	printf("\n## 2c. TransferMode speedup over CPU mode (median CPU-mode DMA_MM / GPU_PINNED DMA_MM)\n");
	printf("%9s | %9s %9s\n", "size", "write", "read");
	for (int i = 0; i < bn->npoints; i++) {
		uint64_t s = bn->points[i].size;
		char a[16], b[16];

		printf("%9s | %9s %9s\n", cli_fmt_size(s, sz, sizeof(sz)),
		       bench_cell(a, sizeof(a), "%.2fx",
			    bench_ratio(bn, s, BP_CPU, BP_XMODE, BD_H2C)),
		       bench_cell(b, sizeof(b), "%.2fx",
			    bench_ratio(bn, s, BP_CPU, BP_XMODE, BD_C2H)));
	}
}

static void print_frames(const struct bench *bn)
{
	const struct bframes *f1 = bench_frames_n(bn, 1);
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
	       "", bench_us(bn->first_pin_ns));
	printf("%9s %6s | %9s %9s %9s | %9s %9s %9s\n", "size", "n",
	       "pin min", "median", "max", "unpin min", "median", "max");
	for (int i = 0; i < bn->npins; i++) {
		const struct bpin *p = &bn->pins[i];

		if (!p->pin.iters)
			continue;
		printf("%9s %6u | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f\n",
		       cli_fmt_size(p->size, sz, sizeof(sz)), p->pin.iters,
		       bench_us(p->pin.min_ns), bench_us(p->pin.median_ns),
		       bench_us(p->pin.max_ns), bench_us(p->unpin.min_ns),
		       bench_us(p->unpin.median_ns), bench_us(p->unpin.max_ns));
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
		       bench_cell(c[0], 16, "%.2f",
			    bench_diff_ns(bn, s, BP_DIRECT, BP_CEIL, BD_C2H) / 1e3),
		       bench_cell(c[1], 16, "%.2f",
			    bench_diff_ns(bn, s, BP_XMODE, BP_CEIL, BD_C2H) / 1e3),
		       bench_cell(c[2], 16, "%.2f",
			    bench_diff_ns(bn, s, BP_CPU, BP_MEMCPY, BD_C2H) / 1e3),
		       bench_cell(c[3], 16, "%.2f",
			    bench_diff_ns(bn, s, BP_DIRECT, BP_CEIL, BD_H2C) / 1e3),
		       bench_cell(c[4], 16, "%.2f",
			    bench_diff_ns(bn, s, BP_XMODE, BP_CEIL, BD_H2C) / 1e3),
		       bench_cell(c[5], 16, "%.2f",
			    bench_diff_ns(bn, s, BP_CPU, BP_MEMCPY, BD_H2C) / 1e3));
	}
}

/* counts and the prediction of one side of table 6, or dashes */
static void print_cost(const struct bench *bn, const struct bcost_counts *c)
{
	struct bcost b;

	if (!c || !bench_predict(bn, c, &b)) {
		printf(" | %5s %6s %6s %4s %9s %7s", "-", "-", "-", "-", "-",
		       "-");
		return;
	}
	printf(" | %5.4g %6.4g %6.4g %4.3g %9.2f %7.3f", c->mmio_reads,
	       c->mmio_writes, c->desc, c->irqs, b.total_ns / 1e3, b.gbps);
}

/* 6: the predicted time per transfer on real hardware (bench_predict.c) */
static void print_predict(const struct bench *bn)
{
	char sz[32], m[16];

	printf("\n## 6. Predicted time per transfer on real hardware: the counted accesses at a\n"
	       "##    cost each (docs/benchmarks.md), hellofpga's beside the reference driver's\n");
	printf("# link: %s\n", bn->link_desc);
	printf("# MMIO read %.1f us, MMIO write %.1f us, interrupt %.1f us, descriptor fetch %.1f us\n"
	       "#   (desc_ns; a later one only by what it exceeds the data before it); payload and\n"
	       "#   %.0f-byte descriptors at %.2f GB/s.  Software (system calls, pinning) is not in\n"
	       "#   it: a floor\n",
	       BCOST_MMIO_READ_NS / 1e3, BCOST_MMIO_WRITE_NS / 1e3,
	       BCOST_IRQ_NS / 1e3, bn->link_desc_ns / 1e3, BCOST_DESC_BYTES,
	       bn->link_gbps);
	printf("%9s %-5s | %-42s | %-42s | %s\n", "", "",
	       bn->pred_path == BP_DIRECT ? "hellofpga, GPU Direct (counted)" :
	       "hellofpga, CPU mode (counted)",
	       "Xilinx reference driver (XDMA 2025.2.0)", "this run");
	printf("%9s %-5s | %5s %6s %6s %4s %9s %7s | %5s %6s %6s %4s %9s %7s | %9s\n",
	       "size", "dir", "reads", "writes", "descs", "irqs", "us", "GB/s",
	       "reads", "writes", "descs", "irqs", "us", "GB/s", "us");
	for (int i = 0; i < BCOST_NREF; i++) {
		const struct bpredict *pr = &bn->pred[i];

		for (int d = BD_C2H; d >= BD_H2C; d--) {
			const struct bstats *x = bench_st(bn, pr->size,
							  bn->pred_path, d);

			printf("%9s %-5s", cli_fmt_size(pr->size, sz, sizeof(sz)),
			       d == BD_C2H ? "read" : "write");
			print_cost(bn, pr->counted[d] ? &pr->c[d] : NULL);
			print_cost(bn, &bcost_reference[i].c);
			printf(" | %9s\n", bench_cell(m, sizeof(m), "%.2f",
			       x ? bench_us(x->median_ns) : NAN));
		}
	}
}

void bench_print(const struct bench *bn)
{
	printf("# hellofpga bench: GPU Direct, traditional path, TransferMode and CPU mode\n");
	bench_print_env(bn, stdout, "# ");
	if (bn->npoints)
		printf("# timing: wall clock per transfer, ended when the data is in place; paths\n"
		       "#   interleaved one transfer each per round, in an order that changes per\n"
		       "#   round (a balanced Latin square of %d rows from the seed: each path first,\n"
		       "#   and after each other, equally often); the whole sweep %d time%s over,\n"
		       "#   the figures of all together; %s per size, %u..%u rounds per repeat\n",
		       bn->order_period, bn->repeats, bn->repeats > 1 ? "s" : "",
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
	if (bn->predicted)
		print_predict(bn);
	fflush(stdout);
}

void bench_print_soak(const struct bench *bn)
{
	double mean[BD_N] = { 0, 0 };

	if (!bn->nsoak)
		return;
	for (int i = 0; i < bn->nsoak; i++)
		for (int d = 0; d < BD_N; d++)
			mean[d] += bench_us(bn->soak[i].st[d].median_ns) / bn->nsoak;
	printf("soak: %d samples; mean of medians: read %.2f us (%.3f GB/s), write %.2f us (%.3f GB/s)\n",
	       bn->nsoak, mean[BD_C2H],
	       mean[BD_C2H] > 0 ? bn->soak_size / mean[BD_C2H] / 1e3 : 0,
	       mean[BD_H2C],
	       mean[BD_H2C] > 0 ? bn->soak_size / mean[BD_H2C] / 1e3 : 0);
	if (bn->nsoak >= 3)
		printf("soak: drift, last third vs first third (bandwidth): read %+.2f%%, write %+.2f%%\n",
		       bench_soak_drift(bn, BD_C2H), bench_soak_drift(bn, BD_H2C));
	else
		printf("soak: drift needs at least 3 samples\n");
	fflush(stdout);
}

static void stream_rows(const struct bench *bn, bool rate_table)
{
	char sz[32], bs[32];

	printf("%10s %7s %8s %5s %9s %11s %8s %12s %12s %8s %8s %9s%s\n",
	       "frame", "buffers", "of", "ring", "frames", "frames/s", "GB/s",
	       "between p50", "p99 (us)", "corrupt", "dropped", "cpu GB/s",
	       bn->link_on ? "  model GB/s" : "");
	for (int i = 0; i < bn->nstreams; i++) {
		const struct bstream *p = &bn->streams[i];

		if (p->rate_table != rate_table)
			continue;
		printf("%10s %7u %8s %5s %9" PRIu64 " %11.0f %8.3f %12.1f %12.1f %8" PRIu64 " %8" PRIu64 " %9.3f",
		       cli_fmt_size(p->frame_size, sz, sizeof(sz)), p->buffers,
		       cli_fmt_size(p->buffer_size, bs, sizeof(bs)),
		       p->gpu ? "GPU" : "host", p->frames, p->fps, p->gbps,
		       p->p50_ns / 1e3, p->p99_ns / 1e3, p->corrupt,
		       p->dropped, p->cpu_gbps);
		if (bn->link_on)
			printf(" %12.3f", p->model_gbps);
		printf("\n");
	}
}

/* The stream section (stream.c). */
void bench_print_stream(const struct bench *bn)
{
	printf("# hellofpga bench: C2H AXI-Stream ring\n");
	bench_print_env(bn, stdout, "# ");
	printf("\n## 7. Stream: the card's source back to back into a ring of --buffers\n"
	       "##    frames (a frame over 1 MiB spans 1 MiB buffers), every frame\n"
	       "##    verified (a GPU ring's by a copy back).  Ceilings of the same run:\n"
	       "##    cpu: the CPU filling and checking such frames (the emulated\n"
	       "##    source's and the check's work)%s\n",
	       bn->link_on ? "; model: the link model's rate" : "");
	stream_rows(bn, false);
	printf("\n## 8. Frame rate over AXI-Stream: ring depth (the frames table over ST)\n");
	stream_rows(bn, true);
	fflush(stdout);
}

static void gpuwait_row(const char *name, const struct bstats *st)
{
	printf("%-10s %8u %10.2f %10.2f %10.2f\n", name, st->iters,
	       bench_us(st->min_ns), bench_us(st->median_ns),
	       bench_us(st->p99_ns));
}

/* The gpuwait section (gpuwait.c, gpuwait_mm.c). */
void bench_print_gpuwait(const struct bench *bn)
{
	const struct bgpuwait *w = &bn->gpuwait;

	if (!w->run)
		return;
	if (!bn->do_stream) {
		printf("# hellofpga bench: GPU-side completion\n");
		bench_print_env(bn, stdout, "# ");
	}
	if (w->mm) {
		printf("\n## 9. GPU-side completion of GPU Direct transfers, in us.  gpu-wait:\n"
		       "##    the card's completion of a 4 KiB C2H transfer to the start of the\n"
		       "##    kernel queued behind HelloFPGA_GPUDirect_Submit(WAIT_ON_GPU);\n"
		       "##    cpu-wait: the same to a kernel launched after\n"
		       "##    HelloFPGA_GPUDirect_Complete() woke; ceiling: an unblocked launch.\n"
		       "##    gpu-start: a kernel's start to the card's completion of the\n"
		       "##    transfer queued behind it (START_ON_GPU); xfer, its ceiling: one\n"
		       "##    4 KiB HelloFPGA_GPUDirect_ReadC2H() call (%u samples retaken)%s\n",
		       w->retakes, w->real ? "" :
		       ".\n##    The emulated GPU: a host function is the kernel; the figures\n"
		       "##    only show that the path runs");
		printf("%-10s %8s %10s %10s %10s\n", "way", "samples", "min",
		       "median", "p99");
		gpuwait_row("gpu-wait", &w->gpu);
		gpuwait_row("cpu-wait", &w->cpu);
		gpuwait_row("ceiling", &w->ceiling);
		gpuwait_row("gpu-start", &w->start);
		gpuwait_row("xfer", &w->xfer);
		fflush(stdout);
		return;
	}
	printf("\n## 9. GPU-side completion: the card's completion of a 4 KiB stream\n"
	       "##    buffer to the start of its consumer kernel, in us.  gpu-wait:\n"
	       "##    HelloFPGA_Stream_WaitOnGPU with the kernel queued behind it;\n"
	       "##    cpu-wait: HelloFPGA_Stream_Wait, then the launch.  Ceiling of the\n"
	       "##    same run: an unblocked launch (launch call to kernel start)%s\n",
	       w->real ? "" :
	       ".\n##    The emulated GPU: a host function is the kernel; the figures\n"
	       "##    only show that the path runs");
	printf("%-10s %8s %10s %10s %10s\n", "way", "samples", "min", "median",
	       "p99");
	gpuwait_row("gpu-wait", &w->gpu);
	gpuwait_row("cpu-wait", &w->cpu);
	gpuwait_row("ceiling", &w->ceiling);
	fflush(stdout);
}
