// SPDX-License-Identifier: MIT
/*
 * stream.c - the bench's stream section: on a card of the reference
 * design with AXI-Stream channels, its C2H source streams frames back to
 * back into a ring of --buffers buffers, one frame per buffer, in host
 * memory and (with a GPU) in GPU memory through a GPU Direct pin; every
 * frame is verified (a GPU ring's by a copy back: that copy is part of
 * the figure).  Two tables: by frame size (4 KiB .. 4 MiB, ring of
 * --buffers), and the frame-rate table over ST: --frame-size frames into
 * rings of 2, 4, .. --buffers buffers.  The run is stream_run.c's, as
 * "hellofpga stream".
 */
#include <stdlib.h>
#include <string.h>

#include "hf_stream_pattern.h"
#include "link.h"
#include "sections.h"
#include "stream_run.h"

static const uint64_t bstream_sizes[] = {
	4096, 64 << 10, 1 << 20, 4 << 20,
};

#define BSTREAM_NSIZES	(sizeof(bstream_sizes) / sizeof(bstream_sizes[0]))
/*
 * A frame larger than this spans several buffers of this size, as a frame
 * grabber's large frames do: a GPU pin is mapped in pieces (2 MiB runs of
 * the BAR window on a desktop GPU) and a buffer must lie in one.
 */
#define BSTREAM_BUF_MAX	(1ull << 20)
/* Frames a point takes at least, also past its time: a percentile of some */
#define BSTREAM_MIN_FRAMES	16

/*
 * One point: @size bytes per frame into a host or GPU ring of @depth
 * frames (@depth buffers, or more where a frame spans several).
 */
static int stream_point(struct bench *bn, uint64_t size, uint32_t depth,
			bool gpu, uint64_t ns, struct bstream *out)
{
	uint64_t bsize = size < BSTREAM_BUF_MAX ? size : BSTREAM_BUF_MAX;
	uint32_t nbuf = depth * (uint32_t)((size + bsize - 1) / bsize);
	struct st_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.name = "bench: stream";
	r.h = bn->h;
	r.ch = bn->ch;
	r.duration_ns = ns;
	r.min_frames = BSTREAM_MIN_FRAMES;
	r.frame_size = (uint32_t)size;
	r.buffers = nbuf;
	r.buffer_size = bsize;
	r.gpu = gpu;
	ret = st_setup(&r);
	if (!ret)
		ret = st_run(&r);
	if (!ret) {
		ret = HelloFPGA_Stream_GetStats(r.s, &r.st);
		if (ret)
			cli_lib_err(bn->h, ret, "stream statistics");
	}
	if (!ret) {
		st_finish(&r);
		memset(out, 0, sizeof(*out));
		out->frame_size = size;
		out->buffers = nbuf;
		out->buffer_size = bsize;
		out->gpu = gpu;
		out->frames = r.frames;
		out->ns = r.end_ns - r.start_ns;
		out->fps = out->ns ? (double)r.frames * 1e9 / (double)out->ns : 0;
		out->gbps = cli_gbps(r.bytes, out->ns);
		out->p50_ns = st_pct(&r, 50);
		out->p99_ns = st_pct(&r, 99);
		out->corrupt = r.corrupt;
		out->dropped = r.st.source_dropped + r.gaps;
		out->ring_full = r.st.ring_full;
	}
	st_free(&r);
	return ret;
}

/*
 * The ceiling of the same run: the CPU filling frames of @size with the
 * reference design's pattern (the emulated card's source) and, apart,
 * checking them (the run's consumer); the two run in parallel threads, so
 * the slower is the ceiling.  A hardware card's source is its logic: there
 * the link is the ceiling (the model column).  Each half timed for about
 * @ns, at least twice.  Return: 10^9 bytes per second, or 0.
 */
static double cpu_ceiling(uint64_t size, uint64_t ns)
{
	uint8_t *buf = malloc(size);
	struct hf_stream_check chk;
	uint64_t t0, fill_ns, check_ns, n, seq;
	bool ok = true;

	if (!buf)
		return 0;
	t0 = cli_now_ns();
	for (n = 0; n < 2 || cli_now_ns() - t0 < ns; n++)
		hf_stream_fill(buf, n, (uint32_t)size, 0, (uint32_t)size);
	fill_ns = (cli_now_ns() - t0) / n;
	t0 = cli_now_ns();
	for (n = 0; ok && (n < 2 || cli_now_ns() - t0 < ns); n++) {
		hf_stream_check_init(&chk);
		hf_stream_check_feed(&chk, buf, (uint32_t)size);
		ok = hf_stream_check_end(&chk, &seq);
	}
	check_ns = (cli_now_ns() - t0) / n;
	free(buf);
	if (!ok)
		return 0;
	return cli_gbps(size, fill_ns > check_ns ? fill_ns : check_ns);
}

/* Run one point into the next slot of bn->streams, with progress. */
static int stream_next(struct bench *bn, uint64_t size, uint32_t depth,
		       bool gpu, uint64_t ns, bool rate_table)
{
	struct bstream *p = &bn->streams[bn->nstreams];

	cli_progress_label(&bn->prog, "bench: stream, %llu KiB frames, %u buffers, %s ring",
			   (unsigned long long)(size >> 10), depth,
			   gpu ? "GPU" : "host");
	if (stream_point(bn, size, depth, gpu, ns, p))
		return -1;
	p->rate_table = rate_table;
	p->cpu_gbps = cpu_ceiling(size, ns / 8);
	if (bn->link_on)
		p->model_gbps = cli_gbps(size, bench_link_ns(bn, p->buffer_size) *
					 (p->buffers / depth));
	bn->nstreams++;
	if (p->corrupt || p->dropped)
		bn->failed_verify = true;
	cli_progress_add(&bn->prog, 1);
	return 0;
}

/* Ring depths of the frame-rate table: 2, 4, .. and --buffers. */
static uint32_t next_depth(uint32_t d, uint32_t max)
{
	return d * 2 > max && d < max ? max : d * 2;
}

/**
 * bench_run_stream() - the stream section: each size of 4 KiB .. 4 MiB
 * within --min..--max into a ring of --buffers, then --frame-size frames
 * into rings of 2 .. --buffers buffers; host memory and, with GPU Direct,
 * GPU memory.  Each point gets half the per-size budget with a GPU, all of
 * it without; a frame-rate point gets --frames-time.
 * Return: 0, or -1 after reporting.
 */
int bench_run_stream(struct bench *bn, bool gpu)
{
	uint32_t maxb = (uint32_t)(bn->max_buffers < 2 ? 2 : bn->max_buffers);
	uint64_t ns = bn->budget_ns / (1 + gpu);
	int n = 0, ret = 0;

	for (size_t i = 0; i < BSTREAM_NSIZES; i++)
		n += bstream_sizes[i] >= bn->min && bstream_sizes[i] <= bn->max;
	if (!n) {
		cli_err("bench: --sections stream: no frame size of 4K, 64K, 1M, 4M within --min..--max");
		return -1;
	}
	for (uint32_t d = 2; d <= maxb; d = next_depth(d, maxb))
		n++;
	n *= 1 + gpu;
	bn->streams = calloc((size_t)n, sizeof(*bn->streams));
	if (!bn->streams) {
		cli_err("out of memory");
		return -1;
	}
	cli_progress_start(&bn->prog, (uint64_t)n);
	for (size_t i = 0; !ret && i < BSTREAM_NSIZES; i++) {
		uint64_t s = bstream_sizes[i];

		if (s < bn->min || s > bn->max)
			continue;
		for (int g = 0; !ret && g <= (int)gpu; g++)
			ret = stream_next(bn, s, maxb, g, ns, false);
	}
	for (uint32_t d = 2; !ret && d <= maxb; d = next_depth(d, maxb))
		for (int g = 0; !ret && g <= (int)gpu; g++)
			ret = stream_next(bn, bn->frame_size, d, g,
					  bn->frames_ns, true);
	cli_progress_stop(&bn->prog);
	return ret;
}
