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
 *
 * Raw (a user's own design): no source is programmed and no frame checked;
 * the figures are the frames' lengths and the gaps between the Waits of
 * consecutive frames (in the latencies).
 *
 * Save: each frame, whole, into a file: a header of 24 bytes, little
 * endian, then the frame's bytes:
 *	u32 magic ST_SAVE_MAGIC ("HFFR"), u32 length in bytes, u64 index (the
 *	frame's number on the stream, HELLOFPGA_FRAME.frame), u64 timestamp
 *	(ns, CLOCK_MONOTONIC: HELLOFPGA_FRAME.timestamp_ns of its last buffer)
 */
#ifndef HF_CLI_STREAM_RUN_H
#define HF_CLI_STREAM_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

#define ST_SAVE_MAGIC		0x52464648u	/* "HFFR" */
#define ST_SAVE_HDR		24

/* fill in name, h, ch, frames_wanted or duration_ns, the frame and ring
 * fields, rate and drop, or raw; idle_ms and save if wanted; the rest is the
 * run's */
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
	bool raw;		/* the design's own frames, unchecked */
	uint64_t idle_ms;	/* no frame for this long fails (0: 2000) */
	FILE *save;		/* the frames into this file (layout above) */
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
	uint64_t cur_len;	/* bytes of the frame in progress */
	uint64_t len_min;	/* raw: the shortest and longest frames */
	uint64_t len_max;
	uint8_t *pend;		/* save: a frame spanning buffers, so far */
	size_t pend_cap;
	HELLOFPGA_STREAM_STATS st;
	bool progress;		/* @prog started: frames count on it */
	struct cli_progress prog;
};

int st_setup(struct st_run *r);
int st_run(struct st_run *r);
void st_finish(struct st_run *r);
uint64_t st_pct(const struct st_run *r, double p);
size_t st_count_above(const struct st_run *r, uint64_t ns);
void st_free(struct st_run *r);

#endif /* HF_CLI_STREAM_RUN_H */
