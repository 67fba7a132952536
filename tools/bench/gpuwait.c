// SPDX-License-Identifier: MIT
/*
 * gpuwait.c - the bench's gpuwait section on an AXI-Stream card (a
 * memory-mapped one: gpuwait_mm.c): the time from the card's
 * completion of a stream buffer to the start of the GPU kernel that
 * consumes it, two ways:
 *   gpu-wait  HelloFPGA_Stream_WaitOnGPU() and the kernel queued behind it
 *             before the frame comes: no CPU thread wakes in between;
 *   cpu-wait  HelloFPGA_Stream_Wait() in a CPU thread that sleeps in it
 *             when the frame comes, then the launch;
 * and beside them, as the ceiling of the same run, an unblocked launch
 * (the launch call to the kernel's start: what no wait can beat).
 *
 * One frame of 4 KiB per sample, into a host ring of 4 buffers; the
 * reference design's source sends it when told.  A spinner thread stamps
 * both ends with CLOCK_MONOTONIC: the completion when the buffer's
 * writeback slot shows the magic (host memory the card writes), the start
 * when the kernel's first store reaches host memory (bgpu_flag_launch()),
 * so both ways are measured alike.  The kernel is a PTX kernel on a real
 * GPU, a host function of the emulated GPU's stream otherwise (there the
 * figures only show the path runs).  Samples of the two ways and the
 * ceiling alternate; the first ring's worth are a warm-up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuwait.h"
#include "hf_user_regs.h"
#include "sections.h"
#include "stats.h"

#define GW_BUFFERS	4
#define GW_FRAME	4096

/*
 * struct gw - the section on a stream: the rig (gpuwait.h), the stream,
 * its buffers' writeback slots, the next sequence number, what the
 * spinner looks for and saw, and what the consumer took.
 */
struct gw {
	struct gw_rig rig;
	HELLOFPGA_STREAM s;
	const volatile uint32_t *slot[GW_BUFFERS];
	uint64_t seq;
	/* the spinner */
	const volatile uint32_t *status;	/* NULL: the ceiling */
	uint32_t value;
	uint64_t t_c, t_k;
	bool timed_out;
	/* the consumer */
	int cons_ret;
	uint32_t cons_index;
};

static void gw_spinner(void *arg)
{
	struct gw *g = arg;
	uint64_t t0;

	g->timed_out = false;
	t0 = cli_now_ns();
	gw_rig_spinning(&g->rig);
	if (g->status) {
		while (!(__atomic_load_n(g->status, __ATOMIC_ACQUIRE) &
			 HELLOFPGA_STREAM_WB_MAGIC_MASK) &&
		       cli_now_ns() - t0 < GW_SPIN_NS)
			;
		g->t_c = cli_now_ns();
	}
	while (__atomic_load_n(g->rig.flag, __ATOMIC_ACQUIRE) != g->value &&
	       !(g->timed_out = cli_now_ns() - t0 > GW_SPIN_NS))
		;
	g->t_k = cli_now_ns();
}

static int src_wr(struct gw *g, uint32_t reg, uint32_t v)
{
	struct bench *bn = g->rig.bn;
	int ret = HelloFPGA_UserWrite32(bn->h, HF_USER_ST_SRC(bn->ch) + reg, v);

	if (ret)
		cli_lib_err(bn->h, ret, "the stream source's register 0x%x",
			    reg);
	return ret;
}

/* The reference design's source: one frame, now. */
static int gw_trigger(struct gw *g)
{
	if (src_wr(g, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR) ||
	    src_wr(g, HF_ST_SRC_FRAME_SIZE, GW_FRAME) ||
	    src_wr(g, HF_ST_SRC_INTERVAL_NS, 0) ||
	    src_wr(g, HF_ST_SRC_COUNT, 1))
		return -1;
	return src_wr(g, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE);
}

/*
 * cpu-wait's consumer: blocked in the library's wait before the frame
 * comes (as a consumer thread is), it wakes, then launches.
 */
static void gw_consumer(void *arg)
{
	struct gw *g = arg;
	HELLOFPGA_FRAME f;
	int ret;

	ret = HelloFPGA_Stream_Wait(g->s, GW_TMO_MS, &f);
	if (ret)
		cli_lib_err(g->rig.bn->h, ret, "bench: gpuwait: cpu-wait: the frame of sequence %llu",
			    (unsigned long long)g->seq);
	else if (gw_rig_launch(&g->rig, g->value))
		ret = -1;
	g->cons_ret = ret;
	g->cons_index = f.index;
}

static void gw_arm(struct gw *g, const volatile uint32_t *status)
{
	__atomic_store_n(g->rig.flag, 0, __ATOMIC_RELEASE);
	g->status = status;
	g->value = (uint32_t)g->seq + 1;
}

/* The end of a sample: spinner done, the stream's work finished, the
 * buffer back with the card.  Return: 0, or -1 after reporting. */
static int gw_end(struct gw *g, uint32_t index, const char *what)
{
	int ret;

	if (gw_rig_sync(&g->rig, what))
		return -1;
	if (g->timed_out) {
		cli_err("bench: gpuwait: %s: the kernel of sequence %llu did not start within 1 s",
			what, (unsigned long long)g->seq);
		return -1;
	}
	if (index != UINT32_MAX) {
		ret = HelloFPGA_Stream_Release(g->s, index);
		if (ret) {
			cli_lib_err(g->rig.bn->h, ret, "bench: gpuwait: release");
			return -1;
		}
	}
	g->seq++;
	return 0;
}

/* gpu-wait: the wait and the kernel queued, then the frame. */
static int gw_gpu_sample(struct gw *g, uint64_t *ns)
{
	HELLOFPGA_GPU_WAIT w;
	HELLOFPGA_FRAME f;
	int ret;

	ret = HelloFPGA_Stream_WaitOnGPU(g->s, g->rig.gs[0], g->seq, 0, &w);
	if (ret) {
		cli_lib_err(g->rig.bn->h, ret, "bench: gpuwait: HelloFPGA_Stream_WaitOnGPU");
		return -1;
	}
	g->slot[w.index] = w.status;
	gw_arm(g, w.status);
	if (gw_rig_launch(&g->rig, g->value))
		return -1;
	usleep(200);	/* the GPU reaches the wait */
	gw_rig_spin_start(&g->rig);
	if (gw_trigger(g))
		return -1;
	gw_worker_wait(&g->rig.spin);
	/* only now the CPU: it takes the buffer to give it back */
	ret = HelloFPGA_Stream_Wait(g->s, GW_TMO_MS, &f);
	if (ret) {
		cli_lib_err(g->rig.bn->h, ret, "bench: gpuwait: the frame of sequence %llu",
			    (unsigned long long)g->seq);
		return -1;
	}
	if (gw_end(g, f.index, "gpu-wait"))
		return -1;
	*ns = g->t_k - g->t_c;
	return 0;
}

/* cpu-wait: the frame, a CPU thread's wait, then the launch. */
static int gw_cpu_sample(struct gw *g, uint64_t *ns)
{
	uint32_t index = (uint32_t)(g->seq % GW_BUFFERS);
	int ret;

	gw_arm(g, g->slot[index]);
	gw_worker_go(&g->rig.cons);
	usleep(200);	/* the consumer sleeps in its wait */
	gw_rig_spin_start(&g->rig);
	ret = gw_trigger(g);
	gw_worker_wait(&g->rig.cons);
	gw_worker_wait(&g->rig.spin);
	if (ret || g->cons_ret)
		return -1;
	if (gw_end(g, g->cons_index, "cpu-wait"))
		return -1;
	*ns = g->t_k - g->t_c;
	return 0;
}

/* The ceiling: a launch nothing holds up. */
static int gw_ceiling_sample(struct gw *g, uint64_t *ns)
{
	uint64_t t0;

	gw_arm(g, NULL);
	gw_rig_spin_start(&g->rig);
	t0 = cli_now_ns();
	if (gw_rig_launch(&g->rig, g->value))
		return -1;
	gw_worker_wait(&g->rig.spin);
	if (gw_end(g, UINT32_MAX, "ceiling"))
		return -1;
	g->seq--;	/* no frame */
	*ns = g->t_k - t0;
	return 0;
}

/* The stream, then the rig.  Return: 0, 1 on a memory-mapped card, or -1
 * after reporting. */
static int gw_setup(struct gw *g, struct bench *bn)
{
	HELLOFPGA_STREAM_CONFIG c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.channel = bn->ch;
	c.buffers = GW_BUFFERS;
	c.buffer_size = GW_FRAME;
	ret = HelloFPGA_Stream_Open(bn->h, &c, &g->s);
	if (ret == -EOPNOTSUPP)
		return 1;	/* a memory-mapped card */
	if (ret) {
		cli_lib_err(bn->h, ret, "bench: gpuwait: HelloFPGA_Stream_Open");
		return -1;
	}
	/* the frames come from the reference design's source */
	if (cli_need_refdesign(bn->h, "bench: gpuwait", NULL, NULL))
		return -1;
	return gw_rig_setup(&g->rig, bn, 1, gw_spinner, gw_consumer, g);
}

static void gw_teardown(struct gw *g)
{
	gw_rig_stop(&g->rig);
	gw_rig_free(&g->rig);
	if (g->s)
		HelloFPGA_Stream_Close(g->s);
}

/* Samples of the three ways, the order turning each sample so that no way
 * always goes first.  Return: 0, or -1 after reporting. */
static int gw_samples_run(struct gw *g, unsigned int n, uint64_t *s[3])
{
	struct bench *bn = g->rig.bn;
	int ret = 0;

	for (unsigned int i = 0; !ret && i < n; i++) {
		for (int k = 0; !ret && k < 3; k++) {
			switch ((i + k) % 3) {
			case 0:
				ret = gw_gpu_sample(g, &s[0][i]);
				break;
			case 1:
				ret = gw_cpu_sample(g, &s[1][i]);
				break;
			default:
				ret = gw_ceiling_sample(g, &s[2][i]);
				break;
			}
		}
		cli_progress_add(&bn->prog, 1);
	}
	return ret;
}

/**
 * bench_run_gpuwait() - the gpuwait section: --iters samples of each way
 * and of the ceiling (default 1000, --quick 100), after a warm-up.
 * Return: 0, or -1 after reporting (also when the GPU has no stream
 * memory operations: the text says so).
 */
int bench_run_gpuwait(struct bench *bn)
{
	unsigned int n = gw_samples(bn);
	uint64_t *s[3];
	struct gw g;
	int ret = 0;

	memset(&g, 0, sizeof(g));
	s[0] = calloc(n, sizeof(uint64_t));
	s[1] = calloc(n, sizeof(uint64_t));
	s[2] = calloc(n, sizeof(uint64_t));
	if (!s[0] || !s[1] || !s[2]) {
		cli_err("out of memory");
		ret = -1;
	}
	if (!ret)
		ret = gw_setup(&g, bn);
	if (ret == 1) {
		/* no streams: GPU Direct transfers of a memory-mapped card */
		gw_teardown(&g);
		for (int k = 0; k < 3; k++)
			free(s[k]);
		return bench_run_gpuwait_mm(bn);
	}
	cli_progress_start(&bn->prog, n + GW_BUFFERS);
	cli_progress_label(&bn->prog, "bench: gpuwait");
	for (unsigned int i = 0; !ret && i < GW_BUFFERS; i++) {
		uint64_t dummy;

		ret = gw_gpu_sample(&g, &dummy);
		if (!ret && !g.slot[i]) {
			/* a stop cut a frame before: sequences do not map */
			cli_err("bench: gpuwait: sequence %u did not land in buffer %u: run it again",
				i, i);
			ret = -1;
		}
		cli_progress_add(&bn->prog, 1);
	}
	if (!ret)
		ret = gw_samples_run(&g, n, s);
	cli_progress_stop(&bn->prog);
	gw_teardown(&g);
	if (!ret) {
		bn->gpuwait.run = true;
		bn->gpuwait.real = bn->gpu.real;
		bench_stats_from(s[0], n, &bn->gpuwait.gpu);
		bench_stats_from(s[1], n, &bn->gpuwait.cpu);
		bench_stats_from(s[2], n, &bn->gpuwait.ceiling);
	}
	free(s[0]);
	free(s[1]);
	free(s[2]);
	return ret;
}
