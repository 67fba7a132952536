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
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sections.h"
#include "stats.h"
#include "hf_user_regs.h"

#define GW_BUFFERS	4
#define GW_FRAME	4096
#define GW_TMO_MS	2000
#define GW_SPIN_NS	(1000ull * 1000000ull)

struct gw_spin {
	pthread_t thread;
	sem_t arm, done;
	bool stop;
	const volatile uint32_t *status;	/* NULL: the ceiling */
	volatile uint32_t *flag;
	uint32_t value;
	uint64_t t_c, t_k;
	bool timed_out;
	bool spinning;		/* set by the spinner once it polls */
};

static void *gw_spinner(void *arg)
{
	struct gw_spin *sp = arg;
	uint64_t t0;

	for (;;) {
		sem_wait(&sp->arm);
		if (__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE))
			break;
		sp->timed_out = false;
		t0 = cli_now_ns();
		__atomic_store_n(&sp->spinning, true, __ATOMIC_RELEASE);
		if (sp->status) {
			while (!(__atomic_load_n(sp->status, __ATOMIC_ACQUIRE) &
				 HELLOFPGA_STREAM_WB_MAGIC_MASK) &&
			       cli_now_ns() - t0 < GW_SPIN_NS)
				;
			sp->t_c = cli_now_ns();
		}
		while (__atomic_load_n(sp->flag, __ATOMIC_ACQUIRE) != sp->value &&
		       !(sp->timed_out = cli_now_ns() - t0 > GW_SPIN_NS))
			;
		sp->t_k = cli_now_ns();
		sem_post(&sp->done);
	}
	return NULL;
}

/* cpu-wait's consumer: a thread blocked in HelloFPGA_Stream_Wait(). */
struct gw_cons {
	pthread_t thread;
	sem_t go, taken;
	bool stop;
	int ret;
	uint32_t index;
};

struct gw {
	struct bench *bn;
	struct gw_cons cons;
	HELLOFPGA_STREAM s;
	void *gs;
	volatile uint32_t *flag;	/* 16 bytes mapped for the GPU */
	const volatile uint32_t *slot[GW_BUFFERS];
	uint64_t seq;
	struct gw_spin sp;
};

static int src_wr(struct gw *g, uint32_t reg, uint32_t v)
{
	int ret = HelloFPGA_UserWrite32(g->bn->h,
					HF_USER_ST_SRC(g->bn->ch) + reg, v);

	if (ret)
		cli_lib_err(g->bn->h, ret, "the stream source's register 0x%x",
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
 * cpu-wait's consumer thread: blocked in the library's wait before the
 * frame comes (as a consumer thread is), it wakes, then launches.
 */
static void *gw_consumer(void *arg)
{
	struct gw *g = arg;
	HELLOFPGA_FRAME f;
	int ret;

	for (;;) {
		sem_wait(&g->cons.go);
		if (__atomic_load_n(&g->cons.stop, __ATOMIC_ACQUIRE))
			break;
		ret = HelloFPGA_Stream_Wait(g->s, GW_TMO_MS, &f);
		if (ret) {
			cli_lib_err(g->bn->h, ret, "bench: gpuwait: cpu-wait: the frame of sequence %llu",
				    (unsigned long long)g->seq);
		} else if (bgpu_flag_launch(&g->bn->gpu, g->gs, g->flag,
					    g->sp.value)) {
			cli_err("bench: gpuwait: %s", bgpu_error());
			ret = -1;
		}
		g->cons.ret = ret;
		g->cons.index = f.index;
		sem_post(&g->cons.taken);
	}
	return NULL;
}

/*
 * Let the spinner go and wait until it polls: a thread woken by a
 * semaphore starts tens of microseconds later, when the frame or the
 * kernel may be there already; both ends would be stamped late.
 */
static void gw_spin_start(struct gw *g)
{
	__atomic_store_n(&g->sp.spinning, false, __ATOMIC_RELAXED);
	sem_post(&g->sp.arm);
	while (!__atomic_load_n(&g->sp.spinning, __ATOMIC_ACQUIRE))
		;
}

static void gw_arm(struct gw *g, const volatile uint32_t *status)
{
	__atomic_store_n(g->flag, 0, __ATOMIC_RELEASE);
	g->sp.status = status;
	g->sp.flag = g->flag;
	g->sp.value = (uint32_t)g->seq + 1;
}

/* The end of a sample: spinner done, the stream's work finished, the
 * buffer back with the card.  Return: 0, or -1 after reporting. */
static int gw_end(struct gw *g, uint32_t index, const char *what)
{
	int ret;

	ret = HelloFPGA_GPU_StreamSynchronize(g->gs, GW_TMO_MS);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: %s: the GPU stream", what);
		return -1;
	}
	if (g->sp.timed_out) {
		cli_err("bench: gpuwait: %s: the kernel of sequence %llu did not start within 1 s",
			what, (unsigned long long)g->seq);
		return -1;
	}
	if (index != UINT32_MAX) {
		ret = HelloFPGA_Stream_Release(g->s, index);
		if (ret) {
			cli_lib_err(g->bn->h, ret, "bench: gpuwait: release");
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

	ret = HelloFPGA_Stream_WaitOnGPU(g->s, g->gs, g->seq, 0, &w);
	if (ret) {
		cli_lib_err(g->bn->h, ret, "bench: gpuwait: HelloFPGA_Stream_WaitOnGPU");
		return -1;
	}
	g->slot[w.index] = w.status;
	gw_arm(g, w.status);
	if (bgpu_flag_launch(&g->bn->gpu, g->gs, g->flag, g->sp.value)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	usleep(200);	/* the GPU reaches the wait */
	gw_spin_start(g);
	if (gw_trigger(g))
		return -1;
	sem_wait(&g->sp.done);
	/* only now the CPU: it takes the buffer to give it back */
	ret = HelloFPGA_Stream_Wait(g->s, GW_TMO_MS, &f);
	if (ret) {
		cli_lib_err(g->bn->h, ret, "bench: gpuwait: the frame of sequence %llu",
			    (unsigned long long)g->seq);
		return -1;
	}
	if (gw_end(g, f.index, "gpu-wait"))
		return -1;
	*ns = g->sp.t_k - g->sp.t_c;
	return 0;
}

/* cpu-wait: the frame, a CPU thread's wait, then the launch. */
static int gw_cpu_sample(struct gw *g, uint64_t *ns)
{
	uint32_t index = (uint32_t)(g->seq % GW_BUFFERS);
	int ret;

	gw_arm(g, g->slot[index]);
	sem_post(&g->cons.go);
	usleep(200);	/* the consumer sleeps in its wait */
	gw_spin_start(g);
	ret = gw_trigger(g);
	sem_wait(&g->cons.taken);
	sem_wait(&g->sp.done);
	if (ret || g->cons.ret)
		return -1;
	if (gw_end(g, g->cons.index, "cpu-wait"))
		return -1;
	*ns = g->sp.t_k - g->sp.t_c;
	return 0;
}

/* The ceiling: a launch nothing holds up. */
static int gw_ceiling_sample(struct gw *g, uint64_t *ns)
{
	uint64_t t0;

	gw_arm(g, NULL);
	gw_spin_start(g);
	t0 = cli_now_ns();
	if (bgpu_flag_launch(&g->bn->gpu, g->gs, g->flag, g->sp.value)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	sem_wait(&g->sp.done);
	if (gw_end(g, UINT32_MAX, "ceiling"))
		return -1;
	g->seq--;	/* no frame */
	*ns = g->sp.t_k - t0;
	return 0;
}

static int gw_setup(struct gw *g)
{
	struct bench *bn = g->bn;
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
	ret = HelloFPGA_GPU_StreamCreate(&g->gs);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: HelloFPGA_GPU_StreamCreate");
		return -1;
	}
	g->flag = bgpu_host_alloc(&bn->gpu, 16);
	if (!g->flag || bgpu_flag_init(&bn->gpu)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	sem_init(&g->sp.arm, 0, 0);
	sem_init(&g->sp.done, 0, 0);
	if (pthread_create(&g->sp.thread, NULL, gw_spinner, &g->sp)) {
		cli_err("bench: gpuwait: cannot start the spinner thread");
		return -1;
	}
	sem_init(&g->cons.go, 0, 0);
	sem_init(&g->cons.taken, 0, 0);
	if (pthread_create(&g->cons.thread, NULL, gw_consumer, g)) {
		cli_err("bench: gpuwait: cannot start the consumer thread");
		return -1;
	}
	return 0;
}

static void gw_teardown(struct gw *g)
{
	if (g->cons.thread) {
		__atomic_store_n(&g->cons.stop, true, __ATOMIC_RELEASE);
		sem_post(&g->cons.go);
		pthread_join(g->cons.thread, NULL);
		sem_destroy(&g->cons.go);
		sem_destroy(&g->cons.taken);
	}
	if (g->sp.thread) {
		__atomic_store_n(&g->sp.stop, true, __ATOMIC_RELEASE);
		sem_post(&g->sp.arm);
		pthread_join(g->sp.thread, NULL);
		sem_destroy(&g->sp.arm);
		sem_destroy(&g->sp.done);
	}
	if (g->gs) {
		HelloFPGA_GPU_StreamSynchronize(g->gs, GW_TMO_MS);
		HelloFPGA_GPU_StreamDestroy(g->gs);
	}
	if (g->s)
		HelloFPGA_Stream_Close(g->s);
	bgpu_host_free(&g->bn->gpu, (void *)g->flag);
}

/**
 * bench_run_gpuwait() - the gpuwait section: --iters samples of each way
 * and of the ceiling (default 1000, --quick 100), after a warm-up.
 * Return: 0, or -1 after reporting (also when the GPU has no stream
 * memory operations: the text says so).
 */
int bench_run_gpuwait(struct bench *bn)
{
	unsigned int n = bn->fixed_iters ? bn->fixed_iters :
			 bn->quick ? 100 : 1000;
	uint64_t *s[3];
	struct gw g;
	int ret = 0;

	memset(&g, 0, sizeof(g));
	g.bn = bn;
	s[0] = calloc(n, sizeof(uint64_t));
	s[1] = calloc(n, sizeof(uint64_t));
	s[2] = calloc(n, sizeof(uint64_t));
	if (!s[0] || !s[1] || !s[2]) {
		cli_err("out of memory");
		ret = -1;
	}
	if (!ret)
		ret = gw_setup(&g);
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
	for (unsigned int i = 0; !ret && i < n; i++) {
		/* the order turns each sample, so no way always goes first */
		for (int k = 0; !ret && k < 3; k++) {
			switch ((i + k) % 3) {
			case 0:
				ret = gw_gpu_sample(&g, &s[0][i]);
				break;
			case 1:
				ret = gw_cpu_sample(&g, &s[1][i]);
				break;
			default:
				ret = gw_ceiling_sample(&g, &s[2][i]);
				break;
			}
		}
		cli_progress_add(&bn->prog, 1);
	}
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
