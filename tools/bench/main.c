// SPDX-License-Identifier: MIT
/*
 * main.c - hellofpga-bench, the program of "hellofpga bench": the seed's
 * tables measured side by side in one run (docs/benchmarks.md):
 *  1. bandwidth per size (4 KiB .. 64 MiB) and direction for GPU Direct,
 *     the traditional path (card <-> pageable or pinned host memory, then a
 *     copy to or from the GPU), TransferMode (DMA_MM calls in GPU_PINNED
 *     mode), CPU mode, and the ceilings of the same run: a raw copy between
 *     pinned host memory and the GPU, and host memcpy;
 *  2. latency per size: min, median, p99, max; speedups;
 *  3. frame rate at 1 MiB frames, single buffer vs rotation over 2..8
 *     pinned buffers, a checksum kernel consuming frame k while the card
 *     fills frame k+1, every frame verified;
 *  4. pin and unpin cost by size; software overhead per transfer;
 *  5. --soak DURATION: samples every interval and the drift;
 *  6. with a link model, the predicted time per transfer on real hardware
 *     from the accesses the emulated card counted, beside the reference
 *     driver's (bench_predict.c);
 *  7-9. alone: an AXI-Stream card's ring (stream.c), GPU-side completion
 *     (gpuwait.c).
 * The sweep runs --repeats times over (3 by default): its figures pool
 * the repeats, and each says how much it moved between them.
 * With a link model on the emulated card the model's prediction stands
 * beside the figures; scripts/bench-judge.py puts the seed's published
 * ones beside them (from --json).
 *
 * This file: the card and the environment, the buffers and the paths
 * measured, the sections in order (sections.h), then the outputs: the
 * tables on standard output as the run goes (out_text.c), the JSON, the
 * one source of every file (out_json.c), and the CSV, Markdown and plots
 * rendered from it (out_render.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "link.h"
#include "opts.h"
#include "out.h"
#include "sections.h"
#include "stats.h"
#include "xfer.h"

#define GPU_PAGE		(64ull << 10)

/* ---- environment ---- */

static void read_cpu_model(char *buf, size_t len)
{
	char line[256];
	int ncpu = 0;
	FILE *f;

	snprintf(buf, len, "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!strncmp(line, "processor", 9))
			ncpu++;
		if (!colon || (strncmp(line, "model name", 10) &&
			       strncmp(line, "Hardware", 8)) || ncpu > 1)
			continue;
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
	}
	fclose(f);
	if (ncpu > 0) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, ", %d CPUs", ncpu);
	}
}

static void bench_environment(struct bench *bn)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	read_cpu_model(bn->cpu, sizeof(bn->cpu));
	if (!uname(&u))
		snprintf(bn->kernel, sizeof(bn->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	else
		snprintf(bn->kernel, sizeof(bn->kernel), "unknown");
	gmtime_r(&now, &tm);
	strftime(bn->date, sizeof(bn->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- set-up ---- */

static int setup_paths(struct bench *bn, size_t gsize)
{
	bool gpu = bn->gpu.present;
	bool gd = gpu && bn->gpu.status.supported;
	uint64_t t0;
	int ret;

	for (int p = 0; p < BP_N; p++) {
		bn->paths[p] = bn->want[p];
		if (!bn->want[p])
			snprintf(bn->path_why[p], sizeof(bn->path_why[p]),
				 "not in --paths");
	}
	if (!gpu) {
		for (int p = BP_CEIL; p <= BP_XMODE; p++) {
			bn->paths[p] = false;
			snprintf(bn->path_why[p], sizeof(bn->path_why[p]),
				 "%.120s", bn->gpu_why);
		}
		return 0;
	}
	if (!gd) {
		bn->paths[BP_DIRECT] = bn->paths[BP_XMODE] = false;
		snprintf(bn->path_why[BP_DIRECT], sizeof(bn->path_why[0]),
			 "GPU Direct not supported: %.100s",
			 bn->gpu.status.reason);
		memcpy(bn->path_why[BP_XMODE], bn->path_why[BP_DIRECT],
		       sizeof(bn->path_why[0]));
	}
	ret = HelloFPGA_GPU_Alloc(&bn->g, gsize);
	if (!ret)
		ret = HelloFPGA_GPU_Alloc(&bn->gx, gsize);
	if (ret) {
		cli_lib_err(NULL, ret, "cannot allocate GPU memory");
		return -1;
	}
	bn->hpin = bgpu_host_alloc(&bn->gpu, gsize);
	if (!bn->hpin)
		return bench_gpu_fail("pinned host memory");
	bn->hceil = bgpu_host_alloc(&bn->gpu, gsize);
	if (!bn->hceil)
		return bench_gpu_fail("pinned host memory");
	if (!gd)
		return 0;
	/* The first pin of the card: includes registering card memory with
	 * CUDA (emulated card on a real GPU). */
	t0 = cli_now_ns();
	ret = HelloFPGA_GPUDirect_Pin(bn->h, bn->g, gsize, &bn->hg);
	bn->first_pin_ns = cli_now_ns() - t0;
	if (ret) {
		cli_lib_err(bn->h, ret, "cannot pin the GPU buffer");
		return -1;
	}
	ret = HelloFPGA_SetGPUBuffer(bn->h, bn->gx, gsize);
	if (ret) {
		cli_lib_err(bn->h, ret, "cannot register the TransferMode buffer");
		return -1;
	}
	return 0;
}

static void bench_free(struct bench *bn)
{
	if (bn->h && bn->hg)
		HelloFPGA_GPUDirect_Unpin(bn->h, bn->hg);
	if (bn->h && bn->gx)
		HelloFPGA_SetGPUBuffer(bn->h, NULL, 0);
	if (bn->g)
		HelloFPGA_GPU_Free(bn->g);
	if (bn->gx)
		HelloFPGA_GPU_Free(bn->gx);
	bgpu_host_free(&bn->gpu, bn->hpin);
	bgpu_host_free(&bn->gpu, bn->hceil);
	bgpu_fini(&bn->gpu);
	free(bn->hp);
	free(bn->hb);
	free(bn->pattern);
	for (int i = 0; bn->points && i < bn->npoints; i++)
		for (int p = 0; p < BP_N; p++)
			for (int d = 0; d < BD_N; d++)
				free(bn->points[i].samples[p][d]);
	free(bn->points);
	free(bn->frames);
	free(bn->streams);
	free(bn->pins);
	free(bn->soak);
	if (bn->h)
		HelloFPGA_Close(bn->h);
}

/* The card memory the run uses from --address: the sweep's transfers,
 * the frame slots, the soak's transfers. */
static uint64_t bench_span(const struct bench *bn)
{
	uint64_t span = bn->max;

	if (bn->do_frames && BENCH_FRAME_SLOTS * bn->frame_size > span)
		span = BENCH_FRAME_SLOTS * bn->frame_size;
	if (bn->soak_ns && bn->soak_size > span)
		span = bn->soak_size;
	return span;
}

/*
 * bench_open() - the card (-d), checked for the run, the environment, its
 * link model and the GPU.
 * Return: -1 to run, else the exit status (reported).
 */
static int bench_open(struct bench *bn)
{
	uint64_t span = bench_span(bn);
	int c;

	if (cli_open(&bn->h))
		return CLI_EXIT_FAIL;
	if (cli_get_info(bn->h, &bn->info) ||
	    cli_check_channel(&bn->info, bn->ch, true) ||
	    cli_check_channel(&bn->info, bn->ch, false) ||
	    cli_check_range(&bn->info, bn->addr, span))
		return CLI_EXIT_FAIL;
	/*
	 * The GPU paths time their own card region, past the CPU paths'
	 * one, where it fits.  On the emulated card, card memory is host
	 * memory: a region the CPU path has just copied through is in the
	 * CPU's caches, and the GPU's next copy of it is slower (by up to
	 * about 20 us per MiB on the H200 machine, docs/benchmarks.md); a
	 * real card's memory is never in the CPU's caches.
	 */
	bn->gaddr = bn->addr;
	if (bn->addr + 2 * span >= bn->addr + span &&
	    bn->addr + 2 * span <= bn->info.ddr_size)
		bn->gaddr = bn->addr + span;
	bench_environment(bn);
	if (!bench_link_of(bn) &&
	    bn->info.backend != HELLOFPGA_BACKEND_EMULATED)
		snprintf(bn->link_desc, sizeof(bn->link_desc), "real card");

	c = cli_report_gpu("bench", &bn->info, &bn->gpu.status);
	if (c)
		return c;
	if (bgpu_init(&bn->gpu, bn->gpu_why, sizeof(bn->gpu_why))) {
		cli_err("bench: the GPU cannot be used: %s", bn->gpu_why);
		return CLI_EXIT_FAIL;
	}
	return -1;
}

/* --sections stream and gpuwait: alone, their tables, the JSON. */
static int run_alone(struct bench *bn, const struct bench_outputs *o)
{
	bool gd = bn->gpu.present && bn->gpu.status.supported;
	int status;

	if (bn->do_stream && !gd)
		fprintf(stderr, "bench: stream: no GPU Direct: the host ring only\n");
	if (bn->do_stream && bench_run_stream(bn, gd))
		return CLI_EXIT_FAIL;
	if (bn->do_gpuwait && !bn->gpu.present) {
		cli_err("bench: gpuwait: no GPU: %s", bn->gpu_why);
		return CLI_EXIT_FAIL;
	}
	if (bn->do_gpuwait && bench_run_gpuwait(bn))
		return CLI_EXIT_FAIL;
	if (bn->do_stream)
		bench_print_stream(bn);
	if (bn->do_gpuwait)
		bench_print_gpuwait(bn);
	status = bn->failed_verify ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	if (o->json && bench_json(bn, o->json))
		status = CLI_EXIT_FAIL;
	if (bn->failed_verify)
		cli_err("bench: some frames were corrupt or dropped (see above)");
	return status;
}

/*
 * bench_buffers() - the host buffers of the sweep and the soak, the
 * samples' room, the paths measured and their GPU buffers, the order.
 * Return: 0, or -1 after reporting.
 */
static int bench_buffers(struct bench *bn)
{
	uint64_t span = bench_span(bn), gsize = bn->max;
	unsigned int n = bn->fixed_iters ? bn->fixed_iters : bn->max_iters;

	if (bn->soak_ns && bn->soak_size > gsize)
		gsize = bn->soak_size;
	gsize = (gsize + GPU_PAGE - 1) / GPU_PAGE * GPU_PAGE;
	bn->hp = cli_alloc((size_t)gsize);
	bn->hb = bn->hp ? cli_alloc((size_t)gsize) : NULL;
	bn->pattern = bn->hb ?
		      cli_alloc((size_t)(span > gsize ? span : gsize)) : NULL;
	bn->points = calloc((size_t)bn->npoints + 1, sizeof(*bn->points));
	if (!bn->pattern || !bn->points) {
		cli_err("out of memory");
		return -1;
	}
	for (int i = 0; i < bn->npoints; i++)
		for (int p = 0; p < BP_N; p++)
			for (int d = 0; d < BD_N; d++) {
				uint64_t **sp = &bn->points[i].samples[p][d];

				*sp = calloc((size_t)n * (size_t)bn->repeats,
					     sizeof(uint64_t));
				if (!*sp) {
					cli_err("out of memory");
					return -1;
				}
			}
	bench_fill_pattern(bn->hp, (size_t)gsize, 1);
	bench_fill_pattern(bn->hb, (size_t)gsize, 2);
	if (setup_paths(bn, (size_t)gsize))
		return -1;
	bench_order_init(bn);
	if (bn->hpin)
		bench_fill_pattern(bn->hpin, (size_t)gsize, 3);
	if (bn->hceil)
		bench_fill_pattern(bn->hceil, (size_t)gsize, 4);
	if (!bn->paths[BP_DIRECT]) {
		if (bn->do_frames || bn->do_pin || bn->soak_ns)
			fprintf(stderr, "bench: no GPU Direct (%s): frames, pin and soak are skipped\n",
				bn->path_why[BP_DIRECT]);
		bn->do_frames = bn->do_pin = false;
		if (bn->soak_ns) {
			cli_err("--soak needs GPU Direct: %s",
				bn->path_why[BP_DIRECT]);
			return -1;
		}
	}
	return 0;
}

/*
 * run_sections() - the sweep, the counts, frames and pins under one
 * progress line, their tables, then the soak with its own.
 * Return: 0, or -1 after reporting.
 */
static int run_sections(struct bench *bn)
{
	uint64_t s, total;
	int ret;

	total = (uint64_t)bn->npoints * (uint64_t)bn->repeats;
	if (bn->do_frames)
		total += (uint64_t)bn->max_buffers;
	if (bn->do_pin)
		for (s = 4096; s <= bn->pin_max; s *= 2)
			total++;
	if (bn->soak_ns)
		total += bn->soak_ns / bn->interval_ns + 1;
	cli_progress_start(&bn->prog, total ? total : 1);
	ret = (bn->do_sweep && bench_run_sweep(bn)) ||
	      (bn->do_sweep && bn->link_on && bench_count_transfers(bn)) ||
	      (bn->do_frames && bench_run_frames(bn)) ||
	      (bn->do_pin && bench_run_pin(bn));
	cli_progress_stop(&bn->prog);
	if (ret)
		return -1;
	bench_print(bn);
	if (!bn->soak_ns)
		return 0;
	cli_progress_start(&bn->prog, bn->soak_ns / bn->interval_ns + 1);
	cli_progress_label(&bn->prog, "bench: soak");
	ret = bench_run_soak(bn);
	cli_progress_stop(&bn->prog);
	if (ret)
		return -1;
	bench_print_soak(bn);
	return 0;
}

/* The sections of the sweep, their tables, the files asked for. */
static int run_all(struct bench *bn, const struct bench_outputs *o)
{
	int status;

	if (bench_buffers(bn) || run_sections(bn))
		return CLI_EXIT_FAIL;
	status = bn->failed_verify ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	if (bench_write_outputs(bn, o))
		status = CLI_EXIT_FAIL;
	if (bn->failed_verify)
		cli_err("bench: some data did not verify (see above)");
	return status;
}

/**
 * main() - hellofpga-bench, run by "hellofpga bench" (tools/common/prog.c).
 *
 * Return: the exit status: 0, 1 (a failure, or data that did not verify),
 * 2 (bad command line), 3 (a hardware card without a real GPU, see
 * cli_report_gpu()).
 */
int main(int argc, char **argv)
{
	struct bench_outputs o;
	struct bench bn;
	int status;

	cli_program_args(&argc, &argv);
	status = bench_parse_args(argc, argv, &bn, &o);
	if (status)
		return status > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	status = bench_open(&bn);
	if (status < 0 && (bn.do_stream || bn.do_gpuwait))
		status = run_alone(&bn, &o);
	else if (status < 0)
		status = run_all(&bn, &o);
	bench_free(&bn);
	return status;
}
