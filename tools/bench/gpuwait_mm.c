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
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuwait.h"
#include "stats.h"

#define MM_XFER		4096u
#define MM_GPU_SIZE	(128u << 10)
#define MM_RETRIES	5
#define MM_WARMUP	10
#define BGW_MM_WAYS	5	/* gpu-wait, cpu-wait, ceiling, gpu-start, xfer */

/* What a spinner looks for: @w != 0 (of the mask), or @w == @val. */
struct mm_look {
	const volatile uint32_t *w;
	uint32_t val;		/* 0: any completion */
};

/*
 * struct mm - the section on a memory-mapped card: the rig (gpuwait.h;
 * gs[1] holds the holding transfer), the pinned GPU buffer, the gate of
 * the holding transfer, the kernel's next value, what the spinner looks
 * for and saw, and the consumer's ticket.
 */
struct mm {
	struct gw_rig rig;
	void *gpu;
	HELLOFPGA_GPU_HANDLE pin;
	int gate_open;		/* atomic: lets the holding transfer go */
	uint32_t value;
	/* the spinner */
	struct mm_look first, second;
	uint64_t t1, t2;
	bool early;		/* the first was there at the first look */
	bool timed_out;
	/* the consumer */
	uint64_t ticket;
	int cons_ret;
};

static bool mm_seen(const struct mm_look *l)
{
	uint32_t v = __atomic_load_n(l->w, __ATOMIC_ACQUIRE);

	return l->val ? v == l->val : (v & HELLOFPGA_XFER_WB_MASK) != 0;
}

static void mm_spinner(void *arg)
{
	struct mm *m = arg;
	uint64_t t0;

	m->timed_out = false;
	t0 = cli_now_ns();
	m->early = mm_seen(&m->first);
	gw_rig_spinning(&m->rig);
	while (!mm_seen(&m->first) &&
	       !(m->timed_out = cli_now_ns() - t0 > GW_SPIN_NS))
		;
	m->t1 = cli_now_ns();
	/* the second word may be named only now (gpu-start) */
	for (;;) {
		struct mm_look l = m->second;

		l.w = __atomic_load_n(&m->second.w, __ATOMIC_ACQUIRE);
		if ((l.w && mm_seen(&l)) ||
		    (m->timed_out = cli_now_ns() - t0 > GW_SPIN_NS))
			break;
	}
	m->t2 = cli_now_ns();
}

/* cpu-wait's consumer: a thread blocked in HelloFPGA_GPUDirect_Complete(). */
static void mm_consumer(void *arg)
{
	struct mm *m = arg;
	struct bench *bn = m->rig.bn;
	int ret;

	ret = HelloFPGA_GPUDirect_Complete(bn->h, m->ticket, GW_TMO_MS, NULL);
	if (ret)
		cli_lib_err(bn->h, ret, "bench: gpuwait: cpu-wait: HelloFPGA_GPUDirect_Complete");
	else if (gw_rig_launch(&m->rig, m->value))
		ret = -1;
	m->cons_ret = ret;
}

static void mm_spin_start(struct mm *m, const struct mm_look *first,
			  const struct mm_look *second)
{
	m->first = *first;
	m->second = *second;
	gw_rig_spin_start(&m->rig);
}

static int mm_submit(struct mm *m, size_t off, uint64_t card, size_t len,
		     uint32_t flags, HELLOFPGA_SUBMISSION *sub)
{
	struct bench *bn = m->rig.bn;
	int ret = HelloFPGA_GPUDirect_Submit(bn->h, bn->ch, m->pin, off, card,
					     len, HELLOFPGA_DIR_C2H,
					     m->rig.gs[0], flags, GW_TMO_MS,
					     sub);

	if (ret)
		cli_lib_err(bn->h, ret, "bench: gpuwait: HelloFPGA_GPUDirect_Submit");
	return ret;
}

/* The host function that holds gs[1] until the gate opens. */
static void mm_gate_fn(void *arg)
{
	struct mm *m = arg;

	while (!__atomic_load_n(&m->gate_open, __ATOMIC_ACQUIRE))
		sched_yield();
}

/*
 * The holding transfer: 4 KiB into the pin after the measured one, its
 * start behind the gate on gs[1].  mm_go() opens the gate.
 */
static int mm_hold(struct mm *m, HELLOFPGA_SUBMISSION *hold)
{
	struct bench *bn = m->rig.bn;
	int ret;

	__atomic_store_n(&m->gate_open, 0, __ATOMIC_RELEASE);
	ret = HelloFPGA_GPU_LaunchHostFunc(m->rig.gs[1], mm_gate_fn, m);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: HelloFPGA_GPU_LaunchHostFunc");
		return ret;
	}
	ret = HelloFPGA_GPUDirect_Submit(bn->h, bn->ch, m->pin, 64u << 10,
					 bn->addr, MM_XFER,
					 HELLOFPGA_DIR_C2H, m->rig.gs[1],
					 HELLOFPGA_SUBMIT_START_ON_GPU,
					 GW_TMO_MS, hold);
	if (ret)
		cli_lib_err(bn->h, ret, "bench: gpuwait: HelloFPGA_GPUDirect_Submit");
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
	struct bench *bn = m->rig.bn;
	int ret;

	if (gw_rig_sync(&m->rig, what))
		return -1;
	for (int i = 0; i < 2; i++) {
		const HELLOFPGA_SUBMISSION *s = i ? b : a;

		if (!s)
			continue;
		ret = HelloFPGA_GPUDirect_Complete(bn->h, s->ticket, GW_TMO_MS,
						   NULL);
		if (ret) {
			cli_lib_err(bn->h, ret, "bench: gpuwait: %s", what);
			return -1;
		}
	}
	if (m->timed_out) {
		cli_err("bench: gpuwait: %s: nothing seen within 1 s", what);
		return -1;
	}
	return 0;
}

static void mm_arm(struct mm *m)
{
	m->value++;
	__atomic_store_n(m->rig.flag, 0, __ATOMIC_RELEASE);
}

/* gpu-wait: hold, the measured transfer with its GPU wait, the kernel. */
static int mm_gpu_sample(struct mm *m, uint64_t *ns)
{
	HELLOFPGA_SUBMISSION hold, sub;
	struct mm_look c, k;

	mm_arm(m);
	if (mm_hold(m, &hold) ||
	    mm_submit(m, 0, m->rig.bn->addr, MM_XFER,
		      HELLOFPGA_SUBMIT_WAIT_ON_GPU, &sub))
		return -1;
	if (gw_rig_launch(&m->rig, m->value))
		return -1;
	c = (struct mm_look){ sub.status, 0 };
	k = (struct mm_look){ m->rig.flag, m->value };
	mm_spin_start(m, &c, &k);
	mm_go(m);
	gw_worker_wait(&m->rig.spin);
	if (mm_end(m, &hold, &sub, "gpu-wait"))
		return -1;
	*ns = m->t2 - m->t1;
	return m->early ? 1 : 0;
}

/* cpu-wait: hold, the measured transfer, a CPU thread's wait, the launch. */
static int mm_cpu_sample(struct mm *m, uint64_t *ns)
{
	HELLOFPGA_SUBMISSION hold, sub;
	struct mm_look c, k;

	mm_arm(m);
	if (mm_hold(m, &hold) ||
	    mm_submit(m, 0, m->rig.bn->addr, MM_XFER, 0, &sub))
		return -1;
	m->ticket = sub.ticket;
	gw_worker_go(&m->rig.cons);
	usleep(200);	/* the consumer sleeps in its wait */
	c = (struct mm_look){ sub.status, 0 };
	k = (struct mm_look){ m->rig.flag, m->value };
	mm_spin_start(m, &c, &k);
	mm_go(m);
	gw_worker_wait(&m->rig.cons);
	gw_worker_wait(&m->rig.spin);
	if (m->cons_ret || mm_end(m, &hold, NULL, "cpu-wait"))
		return -1;
	*ns = m->t2 - m->t1;
	return m->early ? 1 : 0;
}

/* The ceiling of the waits: a launch nothing holds up. */
static int mm_ceiling_sample(struct mm *m, uint64_t *ns)
{
	struct mm_look k;
	uint64_t t0;

	mm_arm(m);
	k = (struct mm_look){ m->rig.flag, m->value };
	/* one end only: the second look is the first, seen already */
	mm_spin_start(m, &k, &k);
	t0 = cli_now_ns();
	if (gw_rig_launch(&m->rig, m->value))
		return -1;
	gw_worker_wait(&m->rig.spin);
	if (mm_end(m, NULL, NULL, "ceiling"))
		return -1;
	*ns = m->t1 - t0;
	return 0;
}

/* gpu-start: a kernel, then the transfer whose start waits for it. */
static int mm_start_sample(struct mm *m, uint64_t *ns)
{
	HELLOFPGA_SUBMISSION sub;
	struct mm_look k, c;

	mm_arm(m);
	k = (struct mm_look){ m->rig.flag, m->value };
	/* the word is named once the Submit returns: the spinner waits */
	c = (struct mm_look){ NULL, 0 };
	mm_spin_start(m, &k, &c);
	if (gw_rig_launch(&m->rig, m->value))
		return -1;
	if (mm_submit(m, 0, m->rig.bn->addr, MM_XFER,
		      HELLOFPGA_SUBMIT_START_ON_GPU, &sub))
		return -1;
	__atomic_store_n(&m->second.w, sub.status, __ATOMIC_RELEASE);
	gw_worker_wait(&m->rig.spin);
	if (mm_end(m, &sub, NULL, "gpu-start"))
		return -1;
	*ns = m->t2 - m->t1;
	/* the kernel ran before the spinner looked: its start is late */
	return m->early ? 1 : 0;
}

/* The ceiling of gpu-start: the 4 KiB transfer alone, synchronously. */
static int mm_xfer_sample(struct mm *m, uint64_t *ns)
{
	struct bench *bn = m->rig.bn;
	uint64_t t0 = cli_now_ns();
	int ret = HelloFPGA_GPUDirect_ReadC2H(bn->h, bn->ch, m->pin, bn->addr,
					      MM_XFER, GW_TMO_MS);

	*ns = cli_now_ns() - t0;
	if (ret)
		cli_lib_err(bn->h, ret, "bench: gpuwait: HelloFPGA_GPUDirect_ReadC2H");
	return ret ? -1 : 0;
}

/* The pinned GPU buffer, then the rig with the holding stream. */
static int mm_setup(struct mm *m, struct bench *bn)
{
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
	return gw_rig_setup(&m->rig, bn, 2, mm_spinner, mm_consumer, m);
}

static void mm_teardown(struct mm *m, struct bench *bn)
{
	gw_rig_stop(&m->rig);
	mm_go(m);
	gw_rig_free(&m->rig);
	if (m->pin)
		HelloFPGA_GPUDirect_Unpin(bn->h, m->pin);
	if (m->gpu)
		HelloFPGA_GPU_Free(m->gpu);
}

typedef int (*mm_way_fn)(struct mm *m, uint64_t *ns);

static const mm_way_fn mm_way[BGW_MM_WAYS] = {
	mm_gpu_sample, mm_cpu_sample, mm_ceiling_sample, mm_start_sample,
	mm_xfer_sample,
};
static const char *const mm_way_name[BGW_MM_WAYS] = {
	"gpu-wait", "cpu-wait", "ceiling", "gpu-start", "xfer",
};

/* One sample of way @w, taken again while its first end came too early. */
static int mm_sample(struct mm *m, int w, uint64_t *ns,
		     unsigned int *retakes)
{
	int ret;

	for (int t = 0; t < MM_RETRIES; t++) {
		ret = mm_way[w](m, ns);
		if (ret <= 0)
			return ret;
		(*retakes)++;
	}
	cli_err("bench: gpuwait: %s: %d samples in a row ended before the spinner looked: the machine is too busy",
		mm_way_name[w], MM_RETRIES);
	return -1;
}

/*
 * A warm-up of MM_WARMUP samples of each way, then @n, the order turning
 * each sample so that no way always goes first.
 * Return: 0, or -1 after reporting.
 */
static int mm_samples_run(struct mm *m, unsigned int n,
			  uint64_t *s[BGW_MM_WAYS], unsigned int *retakes)
{
	struct bench *bn = m->rig.bn;
	uint64_t dummy;
	int ret = 0;

	for (unsigned int i = 0; !ret && i < MM_WARMUP; i++) {
		for (int k = 0; !ret && k < BGW_MM_WAYS; k++)
			ret = mm_sample(m, k, &dummy, retakes);
		cli_progress_add(&bn->prog, 1);
	}
	for (unsigned int i = 0; !ret && i < n; i++) {
		for (int k = 0; !ret && k < BGW_MM_WAYS; k++) {
			int w = (int)((i + k) % BGW_MM_WAYS);

			ret = mm_sample(m, w, &s[w][i], retakes);
		}
		cli_progress_add(&bn->prog, 1);
	}
	return ret;
}

/**
 * bench_run_gpuwait_mm() - the gpuwait section on a memory-mapped card:
 * --iters samples of each way (default 1000, --quick 100), after a
 * warm-up of 10.
 * Return: 0, or -1 after reporting.
 */
int bench_run_gpuwait_mm(struct bench *bn)
{
	unsigned int n = gw_samples(bn), retakes = 0;
	uint64_t *s[BGW_MM_WAYS];
	struct mm m;
	int ret = 0;

	memset(&m, 0, sizeof(m));
	for (int k = 0; k < BGW_MM_WAYS; k++) {
		s[k] = calloc(n, sizeof(uint64_t));
		if (!s[k])
			ret = -1;
	}
	if (ret)
		cli_err("out of memory");
	if (!ret)
		ret = mm_setup(&m, bn);
	cli_progress_start(&bn->prog, n + MM_WARMUP);
	cli_progress_label(&bn->prog, "bench: gpuwait (GPU Direct)");
	if (!ret)
		ret = mm_samples_run(&m, n, s, &retakes);
	cli_progress_stop(&bn->prog);
	mm_teardown(&m, bn);
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
