/* SPDX-License-Identifier: MIT */
/*
 * stream_run.h - one C2H stream run for "hellofpga stream" and the bench's
 * stream section: program the reference design's source, take its frames
 * through a HelloFPGA_Stream ring in host or GPU memory, verify each
 * (refdesign/hf_stream_pattern.h), and keep the figures.
 *
 * Latency: with a rate the source's schedule is known (the first frame is
 * due when it is enabled, frame k at k / rate after that), so a frame's
 * latency is the time from its due time to the Wait that handed out its
 * last buffer (on the emulated card both clocks are CLOCK_MONOTONIC).
 * Without a rate frames come back to back: the figure is then the time
 * between the Waits of consecutive frames.
 */
#ifndef HF_CLI_STREAM_RUN_H
#define HF_CLI_STREAM_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* fill in h, ch, frames_wanted or duration_ns, the frame and ring fields,
 * rate and drop; the rest is the run's */
struct st_run {
	const char *name;	/* the run in messages; NULL: the stream command */
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	int ch;
	uint64_t frames_wanted;	/* 0: until the duration ends */
	uint64_t duration_ns;
	uint64_t min_frames;	/* with duration_ns: at least these frames */
	uint64_t prog_ms;	/* --duration: milliseconds shown as done */
	uint32_t frame_size;
	uint32_t rec_min;
	uint32_t rec_max;
	bool records;
	uint32_t buffers;
	uint64_t buffer_size;
	bool gpu;
	double rate;
	bool drop;
	bool src_set;		/* the reference design's source was programmed */
	/* GPU ring */
	void *gpu_mem;
	HELLOFPGA_GPU_HANDLE pin;
	uint8_t *bounce;
	/* results */
	uint64_t frames;
	uint64_t corrupt;
	uint64_t gaps;
	uint64_t bytes;
	uint64_t next_seq;
	bool synced;
	uint64_t *lat;
	size_t nlat;
	size_t cap_lat;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t prev_eop_ns;
	HELLOFPGA_STREAM_STATS st;
	bool progress;		/* @prog started: frames count on it */
	struct cli_progress prog;
};

int st_setup(struct st_run *r);
int st_run(struct st_run *r);
void st_finish(struct st_run *r);
uint64_t st_pct(const struct st_run *r, double p);
void st_free(struct st_run *r);

#endif /* HF_CLI_STREAM_RUN_H */
