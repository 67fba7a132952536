// SPDX-License-Identifier: MIT
/*
 * gpuwait_mm.c - the gpuwait section on a memory-mapped card: GPU
 * Direct transfers submitted to a channel's queue
 * (HelloFPGA_GPUDirect_Submit()), four ways and a ceiling:
 *   gpu-wait   the card's completion of a 4 KiB C2H transfer to the start
 *              of the kernel queued behind its HELLOFPGA_SUBMIT_WAIT_ON_GPU;
 *   cpu-wait   the same completion to the start of a kernel launched by a
 *              CPU thread that sleeps in HelloFPGA_GPUDirect_Complete();
 *   ceiling    an unblocked launch: the launch call to the kernel's start;
 *   gpu-start  a kernel's start to the card's completion of the 4 KiB
 *              transfer queued behind it with HELLOFPGA_SUBMIT_START_ON_GPU
 *              (the doorbell, the queue thread's look, the run);
 *   xfer       its ceiling: one 4 KiB HelloFPGA_GPUDirect_ReadC2H() call.
 * So that the kernel (gpu-wait) or the CPU thread (cpu-wait) is waiting
 * when the measured transfer ends, whatever the machine's load, a 4 KiB
 * transfer submitted before it holds the channel's queue: its start waits
 * (START_ON_GPU) for a second GPU stream, held by a host function until
 * the spinner looks.  A spinner thread stamps both ends
 * with CLOCK_MONOTONIC: the completion when the submission's writeback
 * word turns non-zero (host memory the card writes), a kernel's start
 * when its first store reaches host memory (bgpu_flag_launch()).  A
 * sample whose completion came before the spinner looked is taken again.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sections.h"
#include "stats.h"

#define MM_XFER		4096u
#define MM_GPU_SIZE	(128u << 10)
#define MM_TMO_MS	2000
#define MM_SPIN_NS	(1000ull * 1000000ull)
#define MM_RETRIES	5

/* What a spinner looks for: @w != 0 (of the mask), or @w == @val. */
struct mm_look {
	const volatile uint32_t *w;
	uint32_t val;		/* 0: any completion */
};

struct mm_spin {
	pthread_t thread;
	sem_t arm, done;
	bool stop;
	struct mm_look first, second;
	uint64_t t1, t2;
	bool early;		/* the first was there at the first look */
	bool timed_out;
	bool spinning;
};

static bool mm_seen(const struct mm_look *l)
{
	uint32_t v = __atomic_load_n(l->w, __ATOMIC_ACQUIRE);

	return l->val ? v == l->val : (v & HELLOFPGA_XFER_WB_MASK) != 0;
}

static void *mm_spinner(void *arg)
{
	struct mm_spin *sp = arg;
	uint64_t t0;

	for (;;) {
		sem_wait(&sp->arm);
		if (__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE))
			break;
		sp->timed_out = false;
		t0 = cli_now_ns();
		sp->early = mm_seen(&sp->first);
		__atomic_store_n(&sp->spinning, true, __ATOMIC_RELEASE);
		while (!mm_seen(&sp->first) &&
		       !(sp->timed_out = cli_now_ns() - t0 > MM_SPIN_NS))
			;
		sp->t1 = cli_now_ns();
		/* the second word may be named only now (gpu-start) */
		for (;;) {
			struct mm_look l = sp->second;

			l.w = __atomic_load_n(&sp->second.w, __ATOMIC_ACQUIRE);
			if ((l.w && mm_seen(&l)) ||
			    (sp->timed_out = cli_now_ns() - t0 > MM_SPIN_NS))
				break;
		}
		sp->t2 = cli_now_ns();
		sem_post(&sp->done);
	}
	return NULL;
}

/* cpu-wait's consumer: a thread blocked in HelloFPGA_GPUDirect_Complete(). */
struct mm_cons {
	pthread_t thread;
	sem_t go, taken;
	bool stop;
	uint64_t ticket;
	int ret;
};

struct mm {
	struct bench *bn;
	void *gpu;
	HELLOFPGA_GPU_HANDLE pin;
	void *gs;
	void *gs_hold;		/* the holding transfer's stream */
	int gate_open;		/* atomic: lets it go */
	volatile uint32_t *flag;
	uint32_t value;
	struct mm_spin sp;
	struct mm_cons cons;
};

static void *mm_consumer(void *arg)
{
	struct mm *m = arg;
	int ret;

	for (;;) {
		sem_wait(&m->cons.go);
		if (__atomic_load_n(&m->cons.stop, __ATOMIC_ACQUIRE))
			break;
		ret = HelloFPGA_GPUDirect_Complete(m->bn->h, m->cons.ticket,
						   MM_TMO_MS, NULL);
		if (ret) {
			cli_lib_err(m->bn->h, ret, "bench: gpuwait: cpu-wait: HelloFPGA_GPUDirect_Complete");
		} else if (bgpu_flag_launch(&m->bn->gpu, m->gs, m->flag,
					    m->value)) {
			cli_err("bench: gpuwait: %s", bgpu_error());
			ret = -1;
		}
		m->cons.ret = ret;
		sem_post(&m->cons.taken);
	}
	return NULL;
}

static void mm_spin_start(struct mm *m, const struct mm_look *first,
			  const struct mm_look *second)
{
	m->sp.first = *first;
	m->sp.second = *second;
	__atomic_store_n(&m->sp.spinning, false, __ATOMIC_RELAXED);
	sem_post(&m->sp.arm);
	while (!__atomic_load_n(&m->sp.spinning, __ATOMIC_ACQUIRE))
		;
}

static int mm_submit(struct mm *m, size_t off, uint64_t card, size_t len,
		     uint32_t flags, HELLOFPGA_SUBMISSION *sub)
{
	int ret = HelloFPGA_GPUDirect_Submit(m->bn->h, m->bn->ch, m->pin, off,
					     card, len, HELLOFPGA_DIR_C2H,
					     m->gs, flags, MM_TMO_MS, sub);

	if (ret)
		cli_lib_err(m->bn->h, ret, "bench: gpuwait: HelloFPGA_GPUDirect_Submit");
	return ret;
}

/* The host function that holds @gs_hold until the gate opens. */
static void mm_gate_fn(void *arg)
{
	struct mm *m = arg;

	while (!__atomic_load_n(&m->gate_open, __ATOMIC_ACQUIRE))
		sched_yield();
}

/*
 * The holding transfer: 4 KiB into the pin after the measured one, its
 * start behind the gate on @gs_hold.  mm_go() opens the gate.
 */
static int mm_hold(struct mm *m, HELLOFPGA_SUBMISSION *hold)
{
	int ret;

	__atomic_store_n(&m->gate_open, 0, __ATOMIC_RELEASE);
	ret = HelloFPGA_GPU_LaunchHostFunc(m->gs_hold, mm_gate_fn, m);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: HelloFPGA_GPU_LaunchHostFunc");
		return ret;
	}
	ret = HelloFPGA_GPUDirect_Submit(m->bn->h, m->bn->ch, m->pin, 64u << 10,
					 m->bn->addr, MM_XFER,
					 HELLOFPGA_DIR_C2H, m->gs_hold,
					 HELLOFPGA_SUBMIT_START_ON_GPU,
					 MM_TMO_MS, hold);
	if (ret)
		cli_lib_err(m->bn->h, ret, "bench: gpuwait: HelloFPGA_GPUDirect_Submit");
	return ret;
}

static void mm_go(struct mm *m)
{
	__atomic_store_n(&m->gate_open, 1, __ATOMIC_RELEASE);
}

/* A sample's end: both tickets done, the GPU stream idle, no time-out. */
static int mm_end(struct mm *m, const HELLOFPGA_SUBMISSION *a,
		  const HELLOFPGA_SUBMISSION *b, const char *what)
{
	int ret;

	ret = HelloFPGA_GPU_StreamSynchronize(m->gs, MM_TMO_MS);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: %s: the GPU stream", what);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		const HELLOFPGA_SUBMISSION *s = i ? b : a;

		if (!s)
			continue;
		ret = HelloFPGA_GPUDirect_Complete(m->bn->h, s->ticket,
						   MM_TMO_MS, NULL);
		if (ret) {
			cli_lib_err(m->bn->h, ret, "bench: gpuwait: %s", what);
			return -1;
		}
	}
	if (m->sp.timed_out) {
		cli_err("bench: gpuwait: %s: nothing seen within 1 s", what);
		return -1;
	}
	return 0;
}

static void mm_arm(struct mm *m)
{
	m->value++;
	__atomic_store_n(m->flag, 0, __ATOMIC_RELEASE);
}

/* gpu-wait: hold, the measured transfer with its GPU wait, the kernel. */
static int mm_gpu_sample(struct mm *m, uint64_t *ns)
{
	HELLOFPGA_SUBMISSION hold, sub;
	struct mm_look c, k;

	mm_arm(m);
	if (mm_hold(m, &hold) ||
	    mm_submit(m, 0, m->bn->addr, MM_XFER,
		      HELLOFPGA_SUBMIT_WAIT_ON_GPU, &sub))
		return -1;
	if (bgpu_flag_launch(&m->bn->gpu, m->gs, m->flag, m->value)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	c = (struct mm_look){ sub.status, 0 };
	k = (struct mm_look){ m->flag, m->value };
	mm_spin_start(m, &c, &k);
	mm_go(m);
	sem_wait(&m->sp.done);
	if (mm_end(m, &hold, &sub, "gpu-wait"))
		return -1;
	*ns = m->sp.t2 - m->sp.t1;
	return m->sp.early ? 1 : 0;
}

/* cpu-wait: hold, the measured transfer, a CPU thread's wait, the launch. */
static int mm_cpu_sample(struct mm *m, uint64_t *ns)
{
	HELLOFPGA_SUBMISSION hold, sub;
	struct mm_look c, k;

	mm_arm(m);
	if (mm_hold(m, &hold) ||
	    mm_submit(m, 0, m->bn->addr, MM_XFER, 0, &sub))
		return -1;
	m->cons.ticket = sub.ticket;
	sem_post(&m->cons.go);
	usleep(200);	/* the consumer sleeps in its wait */
	c = (struct mm_look){ sub.status, 0 };
	k = (struct mm_look){ m->flag, m->value };
	mm_spin_start(m, &c, &k);
	mm_go(m);
	sem_wait(&m->cons.taken);
	sem_wait(&m->sp.done);
	if (m->cons.ret || mm_end(m, &hold, NULL, "cpu-wait"))
		return -1;
	*ns = m->sp.t2 - m->sp.t1;
	return m->sp.early ? 1 : 0;
}

/* The ceiling of the waits: a launch nothing holds up. */
static int mm_ceiling_sample(struct mm *m, uint64_t *ns)
{
	struct mm_look k;
	uint64_t t0;

	mm_arm(m);
	k = (struct mm_look){ m->flag, m->value };
	/* one end only: the second look is the first, seen already */
	mm_spin_start(m, &k, &k);
	t0 = cli_now_ns();
	if (bgpu_flag_launch(&m->bn->gpu, m->gs, m->flag, m->value)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	sem_wait(&m->sp.done);
	if (mm_end(m, NULL, NULL, "ceiling"))
		return -1;
	*ns = m->sp.t1 - t0;
	return 0;
}

/* gpu-start: a kernel, then the transfer whose start waits for it. */
static int mm_start_sample(struct mm *m, uint64_t *ns)
{
	HELLOFPGA_SUBMISSION sub;
	struct mm_look k, c;

	mm_arm(m);
	k = (struct mm_look){ m->flag, m->value };
	/* the word is named once the Submit returns: the spinner waits */
	c = (struct mm_look){ NULL, 0 };
	mm_spin_start(m, &k, &c);
	if (bgpu_flag_launch(&m->bn->gpu, m->gs, m->flag, m->value)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	if (mm_submit(m, 0, m->bn->addr, MM_XFER,
		      HELLOFPGA_SUBMIT_START_ON_GPU, &sub))
		return -1;
	__atomic_store_n(&m->sp.second.w, sub.status, __ATOMIC_RELEASE);
	sem_wait(&m->sp.done);
	if (mm_end(m, &sub, NULL, "gpu-start"))
		return -1;
	*ns = m->sp.t2 - m->sp.t1;
	/* the kernel ran before the spinner looked: its start is late */
	return m->sp.early ? 1 : 0;
}

/* The ceiling of gpu-start: the 4 KiB transfer alone, synchronously. */
static int mm_xfer_sample(struct mm *m, uint64_t *ns)
{
	uint64_t t0 = cli_now_ns();
	int ret = HelloFPGA_GPUDirect_ReadC2H(m->bn->h, m->bn->ch, m->pin,
					      m->bn->addr, MM_XFER, MM_TMO_MS);

	*ns = cli_now_ns() - t0;
	if (ret)
		cli_lib_err(m->bn->h, ret, "bench: gpuwait: HelloFPGA_GPUDirect_ReadC2H");
	return ret ? -1 : 0;
}

static int mm_setup(struct mm *m)
{
	struct bench *bn = m->bn;
	int ret;

	if (bn->addr + MM_XFER > bn->info.ddr_size) {
		cli_err("bench: gpuwait: needs %u bytes of card memory from --address",
			MM_XFER);
		return -1;
	}
	ret = HelloFPGA_GPU_Alloc(&m->gpu, MM_GPU_SIZE);
	if (!ret)
		ret = HelloFPGA_GPUDirect_Pin(bn->h, m->gpu, MM_GPU_SIZE,
					      &m->pin);
	if (ret) {
		cli_lib_err(bn->h, ret, "bench: gpuwait: the GPU buffer");
		return -1;
	}
	ret = HelloFPGA_GPU_StreamCreate(&m->gs);
	if (!ret)
		ret = HelloFPGA_GPU_StreamCreate(&m->gs_hold);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: HelloFPGA_GPU_StreamCreate");
		return -1;
	}
	m->flag = bgpu_host_alloc(&bn->gpu, 16);
	if (!m->flag || bgpu_flag_init(&bn->gpu)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	sem_init(&m->sp.arm, 0, 0);
	sem_init(&m->sp.done, 0, 0);
	if (pthread_create(&m->sp.thread, NULL, mm_spinner, &m->sp)) {
		cli_err("bench: gpuwait: cannot start the spinner thread");
		return -1;
	}
	sem_init(&m->cons.go, 0, 0);
	sem_init(&m->cons.taken, 0, 0);
	if (pthread_create(&m->cons.thread, NULL, mm_consumer, m)) {
		cli_err("bench: gpuwait: cannot start the consumer thread");
		return -1;
	}
	return 0;
}

static void mm_teardown(struct mm *m)
{
	if (m->cons.thread) {
		__atomic_store_n(&m->cons.stop, true, __ATOMIC_RELEASE);
		sem_post(&m->cons.go);
		pthread_join(m->cons.thread, NULL);
		sem_destroy(&m->cons.go);
		sem_destroy(&m->cons.taken);
	}
	if (m->sp.thread) {
		__atomic_store_n(&m->sp.stop, true, __ATOMIC_RELEASE);
		sem_post(&m->sp.arm);
		pthread_join(m->sp.thread, NULL);
		sem_destroy(&m->sp.arm);
		sem_destroy(&m->sp.done);
	}
	mm_go(m);
	for (int i = 0; i < 2; i++) {
		void *gs = i ? m->gs_hold : m->gs;

		if (!gs)
			continue;
		HelloFPGA_GPU_StreamSynchronize(gs, MM_TMO_MS);
		HelloFPGA_GPU_StreamDestroy(gs);
	}
	if (m->pin)
		HelloFPGA_GPUDirect_Unpin(m->bn->h, m->pin);
	if (m->gpu)
		HelloFPGA_GPU_Free(m->gpu);
	bgpu_host_free(&m->bn->gpu, (void *)m->flag);
}

typedef int (*mm_way_fn)(struct mm *m, uint64_t *ns);

/* One sample of @fn, taken again while its first end came too early. */
static int mm_sample(struct mm *m, mm_way_fn fn, const char *name,
		     uint64_t *ns, unsigned int *retakes)
{
	int ret;

	for (int t = 0; t < MM_RETRIES; t++) {
		ret = fn(m, ns);
		if (ret <= 0)
			return ret;
		(*retakes)++;
	}
	cli_err("bench: gpuwait: %s: %d samples in a row ended before the spinner looked: the machine is too busy",
		name, MM_RETRIES);
	return -1;
}

/**
 * bench_run_gpuwait_mm() - the gpuwait section on a memory-mapped card:
 * --iters samples of each way (default 1000, --quick 100), after a
 * warm-up of 10.
 * Return: 0, or -1 after reporting.
 */
int bench_run_gpuwait_mm(struct bench *bn)
{
	static const mm_way_fn way[BGW_MM_WAYS] = {
		mm_gpu_sample, mm_cpu_sample, mm_ceiling_sample,
		mm_start_sample, mm_xfer_sample,
	};
	static const char *const name[BGW_MM_WAYS] = {
		"gpu-wait", "cpu-wait", "ceiling", "gpu-start", "xfer",
	};
	unsigned int n = bn->fixed_iters ? bn->fixed_iters :
			 bn->quick ? 100 : 1000;
	uint64_t *s[BGW_MM_WAYS], dummy;
	unsigned int retakes = 0;
	struct mm m;
	int ret = 0;

	memset(&m, 0, sizeof(m));
	m.bn = bn;
	for (int k = 0; k < BGW_MM_WAYS; k++) {
		s[k] = calloc(n, sizeof(uint64_t));
		if (!s[k])
			ret = -1;
	}
	if (ret)
		cli_err("out of memory");
	if (!ret)
		ret = mm_setup(&m);
	cli_progress_start(&bn->prog, n + 10);
	cli_progress_label(&bn->prog, "bench: gpuwait (GPU Direct)");
	for (unsigned int i = 0; !ret && i < 10; i++) {
		for (int k = 0; !ret && k < BGW_MM_WAYS; k++)
			ret = mm_sample(&m, way[k], name[k], &dummy,
					&retakes);
		cli_progress_add(&bn->prog, 1);
	}
	for (unsigned int i = 0; !ret && i < n; i++) {
		/* the order turns each sample, so no way always goes first */
		for (int k = 0; !ret && k < BGW_MM_WAYS; k++) {
			int w = (int)((i + k) % BGW_MM_WAYS);

			ret = mm_sample(&m, way[w], name[w], &s[w][i],
				       &retakes);
		}
		cli_progress_add(&bn->prog, 1);
	}
	cli_progress_stop(&bn->prog);
	mm_teardown(&m);
	if (!ret) {
		struct bgpuwait *g = &bn->gpuwait;

		g->run = true;
		g->mm = true;
		g->real = bn->gpu.real;
		g->retakes = retakes;
		bench_stats_from(s[0], n, &g->gpu);
		bench_stats_from(s[1], n, &g->cpu);
		bench_stats_from(s[2], n, &g->ceiling);
		bench_stats_from(s[3], n, &g->start);
		bench_stats_from(s[4], n, &g->xfer);
	}
	for (int k = 0; k < BGW_MM_WAYS; k++)
		free(s[k]);
	return ret;
}
