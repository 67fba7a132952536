// SPDX-License-Identifier: MIT
/*
 * frames.c - the frame-rate section (3: 1 MiB frames into 1..--buffers
 * pinned GPU buffers, a checksum kernel consuming frame k while the card
 * fills frame k+1, every frame verified) and the pin section (4: pin and
 * unpin cost by size).
 */
#include <stdlib.h>
#include <string.h>

#include "sections.h"
#include "stats.h"
#include "xfer.h"

#define FRAME_MAGIC		0x48464652u		/* "HFFR" */
#define FRAME_WARMUP		16
#define FRAME_MIN		64
#define FRAME_MAX		250000u
#define PIN_BUDGET_NS		(NS_PER_S / 4)		/* per size */
#define PIN_QUICK_BUDGET_NS	(NS_PER_S / 50)

struct frame_ctx {
	void *gbuf[16];
	HELLOFPGA_GPU_HANDLE hbuf[16];
	uint64_t base_sum[BENCH_FRAME_SLOTS];
	uint64_t *sum;
	uint32_t *seen;
};

static uint64_t slot_addr(const struct bench *bn, uint32_t s)
{
	return bn->addr + (uint64_t)s * bn->frame_size;
}

static uint64_t frame_expected(const struct frame_ctx *fc, uint32_t k)
{
	uint32_t s = k % BENCH_FRAME_SLOTS;

	return fc->base_sum[s] + (uint64_t)FRAME_MAGIC * 1 + (uint64_t)k * 3 +
	       (uint64_t)s * 5 + (uint64_t)(uint32_t)~k * 7;
}

/* The card produces frame @k into buffer @b: header (frame number), then
 * the frame's DMA into the pinned GPU buffer. */
static int frame_fill(struct bench *bn, struct frame_ctx *fc, int b,
		      uint32_t k)
{
	uint32_t s = k % BENCH_FRAME_SLOTS, hdr[4] = { FRAME_MAGIC, k, s, ~k };
	size_t got;
	int ret;

	ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, hdr, slot_addr(bn, s),
					sizeof(hdr), &got);
	if (!ret)
		ret = HelloFPGA_GPUDirect_ReadC2H(bn->h, bn->ch, fc->hbuf[b],
						  slot_addr(bn, s),
						  (size_t)bn->frame_size, 0);
	return ret ? bench_lib_fail(bn, ret, "frame", (size_t)bn->frame_size) : 0;
}

static int frames_once(struct bench *bn, struct frame_ctx *fc, int nbuf,
		       struct bframes *out)
{
	uint32_t k, max_frames = FRAME_MAX;
	uint64_t t0 = 0, t1;

	if (bgpu_consumer_init(&bn->gpu, nbuf, (size_t)bn->frame_size,
			       max_frames))
		return bench_gpu_fail("frame consumer");
	for (k = 0; k < max_frames; k++) {
		int b = (int)(k % (uint32_t)nbuf);

		if (k == FRAME_WARMUP)
			t0 = cli_now_ns();
		if (k > FRAME_WARMUP && k - FRAME_WARMUP >= FRAME_MIN &&
		    cli_now_ns() - t0 >= bn->frames_ns)
			break;
		if (nbuf > 1 && k >= (uint32_t)nbuf &&
		    bgpu_consume_wait(&bn->gpu, b))
			return bench_gpu_fail("frame consumer");
		if (frame_fill(bn, fc, b, k))
			return -1;
		if (bgpu_consume_start(&bn->gpu, b, fc->gbuf[b], k))
			return bench_gpu_fail("frame consumer");
		if (nbuf == 1 && bgpu_consume_wait(&bn->gpu, b))
			return bench_gpu_fail("frame consumer");
	}
	for (int b = 0; b < nbuf; b++)
		if (bgpu_consume_wait(&bn->gpu, b))
			return bench_gpu_fail("frame consumer");
	t1 = cli_now_ns();
	if (bgpu_consume_results(&bn->gpu, fc->sum, fc->seen, k))
		return bench_gpu_fail("frame results");
	memset(out, 0, sizeof(*out));
	out->nbuf = nbuf;
	out->frames = k - FRAME_WARMUP;
	out->ns = t1 - t0;
	out->fps = out->ns ? (double)out->frames * 1e9 / (double)out->ns : 0;
	for (uint32_t i = 0; i < k; i++) {
		if (fc->seen[i] != i)
			out->dropped++;
		else if (fc->sum[i] != frame_expected(fc, i))
			out->corrupt++;
	}
	bgpu_consumer_fini(&bn->gpu);
	return 0;
}

int bench_run_frames(struct bench *bn)
{
	struct frame_ctx fc;
	size_t fs = (size_t)bn->frame_size, got;
	int ret = -1, n, i;

	memset(&fc, 0, sizeof(fc));
	fc.sum = calloc(FRAME_MAX, sizeof(*fc.sum));
	fc.seen = calloc(FRAME_MAX, sizeof(*fc.seen));
	bn->frames = calloc((size_t)bn->max_buffers, sizeof(*bn->frames));
	if (!fc.sum || !fc.seen || !bn->frames) {
		cli_err("out of memory");
		goto out;
	}
	/* the card's frame slots: a pattern each, header words zero */
	for (uint32_t s = 0; s < BENCH_FRAME_SLOTS; s++) {
		bench_fill_pattern(bn->pattern, fs, 1000 + s);
		memset(bn->pattern, 0, 16);
		fc.base_sum[s] = bench_checksum((const uint32_t *)bn->pattern,
						fs / 4);
		ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, bn->pattern,
						slot_addr(bn, s), fs, &got);
		if (ret) {
			bench_lib_fail(bn, ret, "frame slot", fs);
			ret = -1;
			goto out;
		}
	}
	ret = -1;
	for (i = 0; i < bn->max_buffers; i++) {
		int r = HelloFPGA_GPU_Alloc(&fc.gbuf[i], fs);

		if (!r)
			r = HelloFPGA_GPUDirect_Pin(bn->h, fc.gbuf[i], fs,
						    &fc.hbuf[i]);
		if (r) {
			cli_lib_err(bn->h, r, "frame buffer %d", i);
			goto out;
		}
	}
	for (n = 1; n <= bn->max_buffers; n++) {
		cli_progress_label(&bn->prog, "bench: frames, %d buffer%s", n,
				   n > 1 ? "s" : "");
		if (frames_once(bn, &fc, n, &bn->frames[n - 1]))
			goto out;
		bn->nframes = n;
		if (bn->frames[n - 1].dropped || bn->frames[n - 1].corrupt)
			bn->failed_verify = true;
		cli_progress_add(&bn->prog, 1);
	}
	ret = 0;
out:
	for (i = 0; i < 16; i++) {
		if (fc.hbuf[i])
			HelloFPGA_GPUDirect_Unpin(bn->h, fc.hbuf[i]);
		if (fc.gbuf[i])
			HelloFPGA_GPU_Free(fc.gbuf[i]);
	}
	free(fc.sum);
	free(fc.seen);
	return ret;
}

/* ---- 4: pin and unpin ---- */

int bench_run_pin(struct bench *bn)
{
	uint64_t s, *ps, *us;
	unsigned int cap = 400, n;
	int i = 0, ret = -1;

	for (s = 4096; s <= bn->pin_max; s *= 2)
		bn->npins++;
	bn->pins = calloc((size_t)bn->npins, sizeof(*bn->pins));
	ps = calloc(cap, sizeof(*ps));
	us = calloc(cap, sizeof(*us));
	if (!bn->pins || !ps || !us) {
		cli_err("out of memory");
		goto out;
	}
	for (s = 4096; s <= bn->pin_max; s *= 2, i++) {
		uint64_t start = cli_now_ns(), budget = bn->quick ?
			PIN_QUICK_BUDGET_NS : PIN_BUDGET_NS;
		void *gp = NULL;
		char sz[32];
		int r;

		cli_progress_label(&bn->prog, "bench: pin %s",
				   cli_fmt_size(s, sz, sizeof(sz)));
		r = HelloFPGA_GPU_Alloc(&gp, (size_t)s);
		if (r) {
			cli_lib_err(NULL, r, "GPU memory for the pin test (%s)",
				    sz);
			goto out;
		}
		for (n = 0; n < cap; n++) {
			HELLOFPGA_GPU_HANDLE hd;
			uint64_t t0, t1, t2;

			if (n >= 5 && cli_now_ns() - start >= budget)
				break;
			t0 = cli_now_ns();
			r = HelloFPGA_GPUDirect_Pin(bn->h, gp, (size_t)s, &hd);
			t1 = cli_now_ns();
			if (!r)
				r = HelloFPGA_GPUDirect_Unpin(bn->h, hd);
			t2 = cli_now_ns();
			if (r) {
				cli_lib_err(bn->h, r, "pin/unpin of %s", sz);
				HelloFPGA_GPU_Free(gp);
				goto out;
			}
			ps[n] = t1 - t0;
			us[n] = t2 - t1;
		}
		HelloFPGA_GPU_Free(gp);
		bn->pins[i].size = s;
		bench_stats_from(ps, n, &bn->pins[i].pin);
		bench_stats_from(us, n, &bn->pins[i].unpin);
		cli_progress_add(&bn->prog, 1);
	}
	ret = 0;
out:
	free(ps);
	free(us);
	return ret;
}

