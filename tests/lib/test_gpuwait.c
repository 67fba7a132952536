// SPDX-License-Identifier: MIT
/*
 * test_gpuwait.c - GPU-side completion: HelloFPGA_Stream_WaitOnGPU() and
 * the GPU stream calls, on the emulated card with "st" and the emulated
 * GPU, or the GPU of HF_TEST_GPU (HF_TEST_GPU=cuda ctest -R gpuwait: the
 * GPU machine's script, scripts/gpuwait-h200.sh).  A host function enqueued after
 * the wait is the consumer "kernel": it records that it ran and the
 * status word it saw.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_consumer.h"
#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "xdma_model.h"
#include "lib_helpers.h"

#define CARD	"emu,private,st,h2c=1,c2h=1,ddr=1M"
#define TMO_MS	2000
#define SHORT_MS 100

struct env {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	void *gs;
};

static void src_start(HELLOFPGA_HANDLE h, u32 size, u32 count)
{
	u32 base = HF_USER_ST_SRC(0);

	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, base + HF_ST_SRC_CTRL,
					   HF_ST_SRC_CTRL_CLEAR), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, base + HF_ST_SRC_FRAME_SIZE,
					   size), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, base + HF_ST_SRC_COUNT, count), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, base + HF_ST_SRC_INTERVAL_NS, 0),
		     0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, base + HF_ST_SRC_CTRL,
					   HF_ST_SRC_CTRL_ENABLE), 0);
}

static void env_open(struct env *e, u32 buffers)
{
	HELLOFPGA_STREAM_CONFIG c;

	use_test_gpu();
	memset(e, 0, sizeof(*e));
	memset(&c, 0, sizeof(c));
	c.buffers = buffers;
	c.buffer_size = 4096;
	e->h = t_open(CARD);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(e->h, &c, &e->s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&e->gs), 0);
}

static void env_close(struct env *e)
{
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e->gs, TMO_MS), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(e->gs), 0);
	if (e->s)
		HF_CHECK_ERR(HelloFPGA_Stream_Close(e->s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(e->h), 0);
}

HF_TEST(gpuwait_consumer_starts_only_after_the_cards_completion)
{
	HELLOFPGA_GPU_WAIT w;
	struct consumer c;
	struct env e;

	env_open(&e, 4);
	wait_then_consume(e.s, e.gs, 0, &c, &w);
	HF_CHECK_EQ(w.index, 0);
	HF_CHECK(w.host != NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, SHORT_MS), -ETIMEDOUT);
	HF_CHECK_EQ(ran(&c), 0);
	src_start(e.h, 1000, 1);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK_EQ(c.status & HELLOFPGA_STREAM_WB_MAGIC_MASK,
		    HELLOFPGA_STREAM_WB_MAGIC);
	HF_CHECK_EQ(c.status & HELLOFPGA_STREAM_WB_ERROR, 0);
	HF_CHECK(c.status & HELLOFPGA_STREAM_WB_EOP);
	HF_CHECK_EQ(w.status[1], 1000);
	HF_CHECK_ERR(hf_stream_verify(w.host, 1000, NULL), 0);
	env_close(&e);
}

/* The CPU took the buffer first: the GPU still sees its completion. */
HF_TEST(gpuwait_sees_a_buffer_the_cpu_took_already)
{
	HELLOFPGA_GPU_WAIT w;
	HELLOFPGA_FRAME f;
	struct consumer c;
	struct env e;

	env_open(&e, 4);
	src_start(e.h, 4096, 1);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f), 0);
	HF_CHECK_EQ(f.sequence, 0);
	wait_then_consume(e.s, e.gs, 0, &c, &w);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK_EQ(c.status & HELLOFPGA_STREAM_WB_ERROR, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f.index), 0);
	env_close(&e);
}

/*
 * Sequence 2 lands in buffer 0 of a ring of 2, whose slot showed
 * sequence 0's writeback: the release cleared it, so the wait for 2 waits
 * for the card.
 */
HF_TEST(gpuwait_stale_writeback_of_the_last_round_never_satisfies)
{
	HELLOFPGA_GPU_WAIT w;
	HELLOFPGA_FRAME f;
	struct consumer c;
	struct env e;

	env_open(&e, 2);
	src_start(e.h, 4096, 2);
	for (int i = 0; i < 2; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f.index), 0);
	}
	wait_then_consume(e.s, e.gs, 2, &c, &w);
	HF_CHECK_EQ(w.index, 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, SHORT_MS), -ETIMEDOUT);
	HF_CHECK_EQ(ran(&c), 0);
	src_start(e.h, 4096, 1);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK_EQ(c.status & HELLOFPGA_STREAM_WB_ERROR, 0);
	env_close(&e);
}

/* The window: released .. released + buffers - 1. */
HF_TEST(gpuwait_wrap_window_a_whole_ring_ahead_or_behind_erange)
{
	HELLOFPGA_FRAME f;
	struct env e;

	env_open(&e, 4);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 4, 0, NULL), -ERANGE);
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "whole ring"));
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 3, 0, NULL), 0);
	src_start(e.h, 4096, 4);
	for (int i = 0; i < 4; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f), 0);
		if (i == 0) {
			/* held, not released: 4 is still a ring ahead */
			HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 4, 0,
								NULL), -ERANGE);
		}
		HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f.index), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 3, 0, NULL), -ERANGE);
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "went back"));
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 7, 0, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 8, 0, NULL), -ERANGE);
	src_start(e.h, 4096, 4);
	env_close(&e);
}

HF_TEST(gpuwait_stream_close_marks_the_slot_error)
{
	HELLOFPGA_GPU_WAIT w;
	struct consumer c;
	struct env e;

	env_open(&e, 4);
	wait_then_consume(e.s, e.gs, 1, &c, &w);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(e.s), 0);
	e.s = NULL;
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK_EQ(c.status, HELLOFPGA_STREAM_WB_MAGIC | HELLOFPGA_STREAM_WB_ERROR);
	HF_CHECK_EQ(w.status[1], 0);
	env_close(&e);
}

HF_TEST(gpuwait_handle_close_marks_the_slot_error)
{
	HELLOFPGA_GPU_WAIT w;
	struct consumer c;
	struct env e;

	env_open(&e, 4);
	wait_then_consume(e.s, e.gs, 0, &c, &w);
	HF_CHECK_ERR(HelloFPGA_Close(e.h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK(c.status & HELLOFPGA_STREAM_WB_ERROR);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 0, 0, NULL), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(e.s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(e.gs), 0);
}

HF_TEST(gpuwait_engine_error_marks_the_slot_error)
{
	HELLOFPGA_STREAM_CONFIG cfg;
	HELLOFPGA_GPU_WAIT w;
	HELLOFPGA_FRAME f;
	struct consumer c;
	struct env e;

	env_open(&e, 4);
	t_need_emulated(e.h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_ERR(HelloFPGA_Stream_Close(e.s), 0);
	/* the ring's first descriptor fetch fails: the engine stops */
	HF_CHECK_EQ(hf_emu_test_inject(e.h, XDMA_FAULT_DESC_READ), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.buffers = 4;
	cfg.buffer_size = 4096;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(e.h, &cfg, &e.s), 0);
	wait_then_consume(e.s, e.gs, 0, &c, &w);
	src_start(e.h, 4096, 1);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f), -EIO);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK(c.status & HELLOFPGA_STREAM_WB_ERROR);
	HF_CHECK_EQ(hf_emu_test_inject(e.h, XDMA_FAULT_NONE), 0);
	env_close(&e);
}

HF_TEST(gpuwait_does_not_survive_fork)
{
	struct env e;
	pid_t pid;
	int st;

	env_open(&e, 4);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (!pid) {
		int a = HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 0, 0, NULL);
		int b = hf_gpu_get()->kind == HF_GPU_EMU ?
			HelloFPGA_GPU_StreamSynchronize(e.gs, 0) : -ECHILD;

		_exit(a == -ECHILD && b == -ECHILD ? 0 : 1);
	}
	HF_CHECK_EQ(waitpid(pid, &st, 0), pid);
	HF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	env_close(&e);
}

HF_TEST(gpuwait_bad_arguments)
{
	struct env e;

	env_open(&e, 4);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(NULL, e.gs, 0, 0, NULL), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU((HELLOFPGA_STREAM)(void *)0x12345,
						e.gs, 0, 0, NULL), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 0, 0x80, NULL),
		     -EINVAL);
	if (hf_gpu_get()->kind == HF_GPU_EMU) {
		HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, NULL, 0, 0, NULL),
			     -EINVAL);
		HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, (void *)0x777, 0,
							0, NULL), -EINVAL);
		HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize((void *)0x777, 0),
			     -EINVAL);
	}
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, NULL, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, HF_MAX_TIMEOUT_MS + 1),
		     -EINVAL);
	env_close(&e);
}

HF_TEST(gpuwait_destroyed_gpu_stream_is_einval)
{
	void *gs = NULL;

	use_test_gpu();
	if (hf_gpu_get()->kind != HF_GPU_EMU)
		HF_SKIP("a real GPU's streams are CUDA's");
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&gs), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 0), -EINVAL);
}

HF_TEST(gpuwait_without_stream_memory_operations_eopnotsupp)
{
	struct env e;

	env_open(&e, 4);
	if (hf_gpu_get()->kind != HF_GPU_EMU)
		HF_SKIP("the hook is the emulated GPU's");
	hf_gpu_test_no_memops(true);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 0, 0, NULL),
		     -EOPNOTSUPP);
	hf_gpu_test_no_memops(false);
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "cuStreamWaitValue32"));
	env_close(&e);
}

/* A ring in a GPU pin: the wait flushes, the data is in GPU memory. */
HF_TEST(gpuwait_gpu_ring_in_a_pin)
{
	HELLOFPGA_STREAM_CONFIG c;
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_GPU_WAIT w;
	struct consumer k = { 0 };
	static u8 host[4096];
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	void *gpu = NULL, *gs = NULL;

	use_test_gpu();
	h = t_open(CARD);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, 1 << 20), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, 1 << 20, &gh), 0);
	memset(&c, 0, sizeof(c));
	c.buffers = 4;
	c.buffer_size = 4096;
	c.gpu = gh;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&gs), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 0, 0, &w), 0);
	HF_CHECK(w.host == NULL);
	HF_CHECK_EQ(w.gpu_offset, 0);
	k.word = w.status;
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(gs, consumer_fn, &k), 0);
	src_start(h, 2000, 1);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&k), 1);
	HF_CHECK_EQ(k.status & HELLOFPGA_STREAM_WB_ERROR, 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(host, gpu, 2000,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	HF_CHECK_ERR(hf_stream_verify(host, 2000, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
}

/*
 * A pipeline with no CPU wait on the critical path: waits a ring ahead,
 * each followed by the consumer; a CPU thread releases a buffer once its
 * consumer ran.  Every frame in order, none marked.
 */
#define PIPE_N		300
#define PIPE_RING	8

HF_TEST(gpuwait_pipeline_of_frames_in_order)
{
	static struct consumer c[PIPE_N];
	static HELLOFPGA_GPU_WAIT w[PIPE_N];
	HELLOFPGA_FRAME f;
	struct env e;
	u64 queued = 0;

	env_open(&e, PIPE_RING);
	src_start(e.h, 4096, PIPE_N);
	for (u64 k = 0; k < PIPE_N; k++) {
		while (queued < PIPE_N && queued < k + PIPE_RING) {
			wait_then_consume(e.s, e.gs, queued, &c[queued], &w[queued]);
			queued++;
		}
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f), 0);
		HF_CHECK_EQ(f.sequence, k);
		HF_CHECK_EQ(f.index, w[k].index);
		for (int t = 0; !ran(&c[k]) && t < TMO_MS * 10; t++)
			usleep(100);
		HF_CHECK_EQ(ran(&c[k]), 1);
		HF_CHECK_EQ(c[k].status & HELLOFPGA_STREAM_WB_ERROR, 0);
		HF_CHECK_ERR(hf_stream_verify(f.host, f.length, NULL), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f.index), 0);
	}
	env_close(&e);
}

/* ---- GPU releases ---- */

struct gate {
	int open;	/* atomic */
};

/* A "kernel" that runs until the test lets it end. */
static void gate_fn(void *arg)
{
	struct gate *g = arg;

	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
		usleep(100);
}

/*
 * A ring of 2, both held: the release queued behind a running kernel
 * gives the card a buffer only when the kernel ended.
 */
HF_TEST(gpurelease_frees_the_buffer_only_when_the_stream_gets_there)
{
	HELLOFPGA_STREAM_STATS st;
	struct gate g = { 0 };
	HELLOFPGA_FRAME f[2], n;
	struct env e;

	env_open(&e, 2);
	src_start(e.h, 4096, 3);
	for (int i = 0; i < 2; i++)
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f[i]), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, gate_fn, &g), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, f[0].index, 0), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f[0].index), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, f[0].index, 0),
		     -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, SHORT_MS, &n), -ETIMEDOUT);
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(e.s, &st), 0);
	HF_CHECK_EQ(st.held, 2);
	__atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
	/* the blocked Wait looks at the doorbell while it waits */
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &n), 0);
	HF_CHECK_EQ(n.sequence, 2);
	HF_CHECK_EQ(n.index, f[0].index);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f[1].index), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, n.index), 0);
	env_close(&e);
}

/*
 * A GPU release the GPU stream got to widens the window of the next
 * HelloFPGA_Stream_WaitOnGPU() itself: no other call on the stream needed.
 */
HF_TEST(gpurelease_widens_the_window_of_the_next_gpu_wait)
{
	HELLOFPGA_FRAME f[2];
	struct env e;

	env_open(&e, 2);
	src_start(e.h, 4096, 3);
	for (int i = 0; i < 2; i++)
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f[i]), 0);
	/* released: 0, so sequences 0..1 only */
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 2, 0, NULL),
		     -ERANGE);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, f[0].index, 0), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	/* the doorbell rang: 1 released, so 1..2 */
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(e.s, e.gs, 2, 0, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f[0]), 0);
	HF_CHECK_EQ(f[0].sequence, 2);
	/* the GPU past its wait before the release clears the slot */
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f[1].index), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f[0].index), 0);
	env_close(&e);
}

HF_TEST(gpurelease_bad_arguments)
{
	HELLOFPGA_FRAME f;
	struct env e;

	env_open(&e, 4);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(NULL, e.gs, 0, 0), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, 0, 0), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, 99, 0), -EINVAL);
	src_start(e.h, 4096, 1);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(e.s, TMO_MS, &f), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, f.index, 1),
		     -EINVAL);
	if (hf_gpu_get()->kind == HF_GPU_EMU) {
		HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, (void *)0x777,
							   f.index, 0), -EINVAL);
		hf_gpu_test_no_memops(true);
		HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(e.s, e.gs, f.index,
							   0), -EOPNOTSUPP);
		hf_gpu_test_no_memops(false);
	}
	/* a failed one leaves the buffer to the CPU's release */
	HF_CHECK_ERR(HelloFPGA_Stream_Release(e.s, f.index), 0);
	env_close(&e);
}
