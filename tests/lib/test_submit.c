// SPDX-License-Identifier: MIT
/*
 * test_submit.c - GPU Direct transfers submitted to a channel's queue and
 * their GPU-side completion (HelloFPGA_GPUDirect_Submit(), _Complete()),
 * on the emulated card with the emulated GPU, or the GPU of HF_TEST_GPU
 * (HF_TEST_GPU=cuda ctest -R submit on the GPU machine).  A host function
 * enqueued on the GPU stream stands in for the consumer kernel: it records
 * that it ran and the writeback word it saw.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_consumer.h"
#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "lib_helpers.h"
#include "xdma_model.h"

#define CARD	"emu,private,h2c=2,c2h=2,ddr=16M"
#define TMO_MS	5000
#define SHORT_MS 100
#define SIZE	(256u * 1024u)
#define CARD_AT	0x100000ull

/* A host function that holds its GPU stream until released. */
struct gate {
	int open;			/* atomic */
	int reached;			/* atomic */
};

static void gate_fn(void *arg)
{
	struct gate *g = arg;

	__atomic_store_n(&g->reached, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE))
		usleep(1000);
}

/*
 * Open @g from another thread after @ms: on a real GPU, HelloFPGA_Close()
 * frees CUDA memory, which waits for the device, which waits for the host
 * function a gate holds; the opener ends that wait.
 */
struct gate_later {
	pthread_t t;
	struct gate *g;
	int ms;
};

static void *gate_later_fn(void *arg)
{
	struct gate_later *l = arg;

	usleep((useconds_t)l->ms * 1000);
	__atomic_store_n(&l->g->open, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void gate_open_later(struct gate_later *l, struct gate *g, int ms)
{
	l->g = g;
	l->ms = ms;
	HF_CHECK_ERR(pthread_create(&l->t, NULL, gate_later_fn, l), 0);
}

struct env {
	HELLOFPGA_HANDLE h;
	void *gpu;
	HELLOFPGA_GPU_HANDLE pin;
	void *gs;
};

static void env_open_card(struct env *e, const char *card)
{
	memset(e, 0, sizeof(*e));
	use_test_gpu();
	e->h = t_open(card);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&e->gpu, SIZE), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(e->h, e->gpu, SIZE, &e->pin), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&e->gs), 0);
}

static void env_open(struct env *e)
{
	env_open_card(e, CARD);
}

static void env_close(struct env *e)
{
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e->gs, TMO_MS), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(e->gs), 0);
	if (e->pin)
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(e->h, e->pin), 0);
	HF_CHECK_ERR(HelloFPGA_Close(e->h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(e->gpu), 0);
}

/* Card memory at @at holds the pattern of @seed (CPU path). */
static void card_fill(HELLOFPGA_HANDLE h, uint64_t at, size_t len,
		      uint32_t seed)
{
	uint8_t *tmp = malloc(len);

	HF_CHECK(tmp);
	t_fill(tmp, len, seed);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, tmp, at, len, NULL), 0);
	free(tmp);
}

static long card_check(HELLOFPGA_HANDLE h, uint64_t at, size_t len,
		       uint32_t seed)
{
	uint8_t *tmp = malloc(len);
	long bad;

	HF_CHECK(tmp);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 1, tmp, at, len, NULL), 0);
	bad = t_check(tmp, len, seed);
	free(tmp);
	return bad;
}

static long gpu_check(struct env *e, size_t len, uint32_t seed)
{
	uint8_t *tmp = malloc(len);
	long bad;

	HF_CHECK(tmp);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(tmp, e->gpu, len,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	bad = t_check(tmp, len, seed);
	free(tmp);
	return bad;
}

static void gpu_fill(struct env *e, size_t len, uint32_t seed)
{
	uint8_t *tmp = malloc(len);

	HF_CHECK(tmp);
	t_fill(tmp, len, seed);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(e->gpu, tmp, len,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	free(tmp);
}

/* A submission without GPU flags runs, and Complete gives its result. */
HF_TEST(submit_runs_in_the_background_and_completes)
{
	HELLOFPGA_SUBMISSION sub;
	size_t actual = 0;
	struct env e;

	env_open(&e);
	card_fill(e.h, CARD_AT, SIZE, 11);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, SIZE,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), 0);
	HF_CHECK(sub.ticket != 0);
	HF_CHECK(sub.status != NULL);
	HF_CHECK_EQ(sub.status_dev, 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS,
						  &actual), 0);
	HF_CHECK_EQ(actual, SIZE);
	/* the card's writeback: the descriptors it completed, no error */
	HF_CHECK(*sub.status != 0);
	HF_CHECK_EQ(*sub.status & HELLOFPGA_XFER_WB_ERROR, 0);
	HF_CHECK_EQ(gpu_check(&e, SIZE, 11), -1);
	/* asked again: the same result */
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, 0, NULL), 0);
	env_close(&e);
}

/*
 * The consumer after a WAIT_ON_GPU runs only once the card completed the
 * transfer (the card hangs 200 ms first), and sees the data.
 */
HF_TEST(submit_gpu_wait_holds_the_consumer_until_the_card_completed)
{
	HELLOFPGA_SUBMISSION sub;
	struct consumer c = { 0 };
	struct env e;

	env_open(&e);
	t_need_emulated(e.h, "hf_emu_test_inject_hang");
	card_fill(e.h, CARD_AT, SIZE, 12);
	HF_CHECK_ERR(hf_emu_test_inject_hang(e.h, 200000000ull), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, SIZE,
						HELLOFPGA_DIR_C2H, e.gs,
						HELLOFPGA_SUBMIT_WAIT_ON_GPU,
						0, &sub), 0);
	HF_CHECK(sub.status_dev != 0);
	c.word = sub.status;
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, consumer_fn, &c), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, 50), -ETIMEDOUT);
	HF_CHECK_EQ(ran(&c), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK(c.status != 0);
	HF_CHECK_EQ(c.status & HELLOFPGA_XFER_WB_ERROR, 0);
	HF_CHECK_EQ(gpu_check(&e, SIZE, 12), -1);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     0);
	env_close(&e);
}

/*
 * START_ON_GPU: the H2C transfer waits for its GPU stream (held by a gate)
 * to get there; the card memory is untouched until the gate opens.
 */
HF_TEST(submit_start_on_gpu_waits_for_the_stream)
{
	HELLOFPGA_SUBMISSION sub;
	struct gate g = { 0 };
	struct env e;

	env_open(&e);
	card_fill(e.h, CARD_AT, SIZE, 13);
	gpu_fill(&e, SIZE, 14);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, gate_fn, &g), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, SIZE,
						HELLOFPGA_DIR_H2C, e.gs,
						HELLOFPGA_SUBMIT_START_ON_GPU,
						0, &sub), 0);
	usleep(50000);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, 0, NULL),
		     -EAGAIN);
	HF_CHECK_EQ(*sub.status, 0);
	HF_CHECK_EQ(card_check(e.h, CARD_AT, SIZE, 13), -1);
	__atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     0);
	HF_CHECK_EQ(card_check(e.h, CARD_AT, SIZE, 14), -1);
	env_close(&e);
}

/*
 * Both flags: a GPU producer step, the transfer to the card, then a GPU
 * consumer, ordered by the stream alone; a loop of them through two
 * halves of the buffer.
 */
HF_TEST(submit_start_and_wait_on_gpu_in_a_loop)
{
	struct consumer c[32];
	HELLOFPGA_SUBMISSION sub[32];
	struct env e;

	env_open(&e);
	gpu_fill(&e, SIZE / 2, 15);
	for (int i = 0; i < 32; i++) {
		int dir = i % 2 ? HELLOFPGA_DIR_C2H : HELLOFPGA_DIR_H2C;

		HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin,
							(size_t)(i % 2) * (SIZE / 2),
							CARD_AT, SIZE / 2, dir, e.gs,
							HELLOFPGA_SUBMIT_START_ON_GPU |
							HELLOFPGA_SUBMIT_WAIT_ON_GPU,
							0, &sub[i]), 0);
		memset(&c[i], 0, sizeof(c[i]));
		c[i].word = sub[i].status;
		HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, consumer_fn,
							  &c[i]), 0);
	}
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	for (int i = 0; i < 32; i++) {
		HF_CHECK_EQ(ran(&c[i]), 1);
		HF_CHECK_MSG(c[i].status && !(c[i].status & HELLOFPGA_XFER_WB_ERROR),
			     "submission %d: status 0x%x", i, c[i].status);
		/* the GPU may pass its wait before the queue's thread ends
		 * the run: wait for that too */
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub[i].ticket,
							  TMO_MS, NULL), 0);
	}
	/* the first half went to the card, and from there to the second */
	{
		uint8_t *tmp = malloc(SIZE / 2);

		HF_CHECK(tmp);
		HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(tmp, (uint8_t *)e.gpu + SIZE / 2,
						  SIZE / 2,
						  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
		HF_CHECK_EQ(t_check(tmp, SIZE / 2, 15), -1);
		free(tmp);
	}
	env_close(&e);
}

/* A transfer that fails marks its word, so a waiting GPU goes on. */
HF_TEST(submit_failure_marks_the_word_and_the_gpu_goes_on)
{
	HELLOFPGA_SUBMISSION sub;
	struct consumer c = { 0 };
	struct env e;

	env_open(&e);
	t_need_emulated(e.h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_EQ(hf_emu_test_inject(e.h, XDMA_FAULT_STALL), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, e.gs,
						HELLOFPGA_SUBMIT_WAIT_ON_GPU,
						50, &sub), 0);
	c.word = sub.status;
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, consumer_fn, &c), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK(c.status & HELLOFPGA_XFER_WB_ERROR);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS,
						  NULL), -ETIMEDOUT);
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "submission 1"));
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "timed out"));
	HF_CHECK_EQ(hf_emu_test_inject(e.h, XDMA_FAULT_NONE), 0);
	/* the channel goes on */
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     0);
	env_close(&e);
}

/* B's submission on C2H0 fails (the card stalls, 50 ms timeout). */
static uint64_t submit_failing(struct env *b)
{
	HELLOFPGA_SUBMISSION sub;

	t_need_emulated(b->h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_EQ(hf_emu_test_inject(b->h, XDMA_FAULT_STALL), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(b->h, 0, b->pin, 0, CARD_AT,
						4096, HELLOFPGA_DIR_C2H, NULL,
						0, 50, &sub), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(b->h, sub.ticket, TMO_MS,
						  NULL), -ETIMEDOUT);
	HF_CHECK_EQ(hf_emu_test_inject(b->h, XDMA_FAULT_NONE), 0);
	return sub.ticket;
}

struct other_ticket_row {
	const char *name;
	bool b_closed;		/* B is closed before A opens (its slot) */
};

static const struct other_ticket_row other_ticket_rows[] = {
	{ "of_an_open_handle", false },
	{ "of_a_closed_handle_whose_slot_it_took", true },
};

/*
 * Handle A's Complete of a ticket handle B gave: -EINVAL, never the result
 * of A's own submission of the same number on the same channel (A's
 * succeeded, B's failed).
 */
static void other_ticket_case(const void *arg)
{
	const struct other_ticket_row *row = arg;
	HELLOFPGA_SUBMISSION sa;
	struct env a, b;
	uint64_t tb;

	env_open(&b);
	tb = submit_failing(&b);
	if (row->b_closed)
		env_close(&b);
	env_open(&a);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(a.h, 0, a.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sa), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(a.h, sa.ticket, TMO_MS, NULL),
		     0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(a.h, tb, TMO_MS, NULL),
		     -EINVAL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(a.h), "not one of"), "%s",
		     HelloFPGA_GetLastError(a.h));
	if (!row->b_closed) {
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(b.h, sa.ticket, 0,
							  NULL), -EINVAL);
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(b.h, tb, 0, NULL),
			     -ETIMEDOUT);
		env_close(&b);
	}
	env_close(&a);
}

HF_TEST_ROWS(submit_complete_of_another_handles_ticket_is_einval,
	     other_ticket_rows, other_ticket_case)

/*
 * A failure in the background does not overwrite the handle's text of the
 * caller's own last failure; Complete sets it.
 */
HF_TEST(submit_background_failure_leaves_the_callers_text)
{
	HELLOFPGA_SUBMISSION sub;
	struct env e;

	env_open(&e);
	t_need_emulated(e.h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(e.h, 9, e.pin, 0, 4096, 0),
		     -ECHRNG);
	HF_CHECK_EQ(hf_emu_test_inject(e.h, XDMA_FAULT_STALL), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 30,
						&sub), 0);
	while (HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, 0, NULL) == -EAGAIN)
		usleep(5000);
	HF_CHECK_EQ(hf_emu_test_inject(e.h, XDMA_FAULT_NONE), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(e.h, 9, e.pin, 0, 4096, 0),
		     -ECHRNG);
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "channel 9"));
	env_close(&e);
}

/* Unpinned while its start waits for the GPU: fails -ENOENT, word marked. */
HF_TEST(submit_unpin_fails_the_submissions_not_run)
{
	HELLOFPGA_SUBMISSION sub;
	struct gate g = { 0 };
	struct env e;

	env_open(&e);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, gate_fn, &g), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, e.gs,
						HELLOFPGA_SUBMIT_START_ON_GPU,
						0, &sub), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(e.h, e.pin), 0);
	e.pin = 0;
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     -ENOENT);
	HF_CHECK(*sub.status & HELLOFPGA_XFER_WB_ERROR);
	__atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
	env_close(&e);
}

/*
 * Close with a submission whose start waits for a GPU stream: it is
 * cancelled, its word marked, and Close does not hang.
 */
HF_TEST(submit_close_cancels_what_has_not_started)
{
	HELLOFPGA_SUBMISSION sub;
	struct consumer c = { 0 };
	struct gate_later gl;
	struct gate g = { 0 };
	struct env e;

	env_open(&e);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, gate_fn, &g), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, e.gs,
						HELLOFPGA_SUBMIT_START_ON_GPU |
						HELLOFPGA_SUBMIT_WAIT_ON_GPU,
						0, &sub), 0);
	c.word = sub.status;
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, consumer_fn, &c), 0);
	/* the cancel comes first: the gate opens well after it */
	gate_open_later(&gl, &g, 200);
	HF_CHECK_ERR(HelloFPGA_Close(e.h), 0);
	/* the words outlive the handle: the GPU stream goes on */
	HF_CHECK(*sub.status & HELLOFPGA_XFER_WB_ERROR);
	pthread_join(gl.t, NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_EQ(ran(&c), 1);
	HF_CHECK(c.status & HELLOFPGA_XFER_WB_ERROR);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(e.gs), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(e.gpu), 0);
}

/* A Complete blocked in another thread returns -EBADF at Close. */
struct completer {
	HELLOFPGA_HANDLE h;
	uint64_t ticket;
	int ret;
};

static void *complete_fn(void *arg)
{
	struct completer *c = arg;

	c->ret = HelloFPGA_GPUDirect_Complete(c->h, c->ticket, -1, NULL);
	return NULL;
}

HF_TEST(submit_close_wakes_a_blocked_complete)
{
	HELLOFPGA_SUBMISSION sub;
	struct completer cp;
	struct gate_later gl;
	struct gate g = { 0 };
	pthread_t t;
	struct env e;

	env_open(&e);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, gate_fn, &g), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, e.gs,
						HELLOFPGA_SUBMIT_START_ON_GPU,
						0, &sub), 0);
	cp.h = e.h;
	cp.ticket = sub.ticket;
	cp.ret = 1;
	HF_CHECK_ERR(pthread_create(&t, NULL, complete_fn, &cp), 0);
	usleep(20000);
	gate_open_later(&gl, &g, 200);
	HF_CHECK_ERR(HelloFPGA_Close(e.h), 0);
	pthread_join(t, NULL);
	HF_CHECK_ERR(cp.ret, -EBADF);
	pthread_join(gl.t, NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(e.gs, TMO_MS), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(e.gs), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(e.gpu), 0);
}

/*
 * The queue's depth: more submissions than words, with GPU waits, run to
 * the end (words come back as the GPU passes its waits); a result whose
 * word was used again is -ERANGE.
 */
HF_TEST(submit_more_than_the_queue_depth)
{
	uint64_t first = 0;
	HELLOFPGA_SUBMISSION sub;
	struct env e;
	int n = HELLOFPGA_SUBMIT_DEPTH * 2 + 5;

	env_open(&e);
	for (int i = 0; i < n; i++) {
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0,
							CARD_AT, 4096,
							HELLOFPGA_DIR_C2H, e.gs,
							HELLOFPGA_SUBMIT_WAIT_ON_GPU,
							0, &sub), 0);
		if (!i)
			first = sub.ticket;
	}
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, first, 0, NULL), -ERANGE);
	env_close(&e);
}

/* The queue is full while a GPU stream holds the oldest start: -EBUSY. */
HF_TEST(submit_full_queue_is_ebusy_after_the_timeout)
{
	HELLOFPGA_SUBMISSION sub;
	struct gate g = { 0 };
	struct env e;

	env_open(&e);
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(e.gs, gate_fn, &g), 0);
	for (int i = 0; i < HELLOFPGA_SUBMIT_DEPTH; i++)
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0,
							CARD_AT, 4096,
							HELLOFPGA_DIR_C2H, e.gs,
							HELLOFPGA_SUBMIT_START_ON_GPU,
							0, &sub), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, e.gs, 0, 30,
						&sub), -EBUSY);
	HF_CHECK(strstr(HelloFPGA_GetLastError(e.h), "stayed full"));
	__atomic_store_n(&g.open, 1, __ATOMIC_RELEASE);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     0);
	env_close(&e);
}

/* Each argument is checked before anything is queued. */
HF_TEST(submit_refuses_bad_arguments)
{
	HELLOFPGA_SUBMISSION sub;
	struct env e;

	env_open(&e);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 0,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0x8, 0,
						&sub), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						7, NULL, 0, 0, &sub), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 2, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), -ECHRNG);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin + 1, 0, CARD_AT,
						4096, HELLOFPGA_DIR_C2H, NULL,
						0, 0, &sub), -ENOENT);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, SIZE, CARD_AT,
						4096, HELLOFPGA_DIR_C2H, NULL,
						0, 0, &sub), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, 16ull << 20,
						4096, HELLOFPGA_DIR_C2H, NULL,
						0, 0, &sub), -ERANGE);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, ~0ull, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), -EOVERFLOW);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0,
						3600001, &sub), -EINVAL);
	/* a made-up stream: only the emulated GPU can tell (CUDA would crash) */
	if (hf_gpu_get()->status.emulated)
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT,
							4096, HELLOFPGA_DIR_C2H,
							(void *)0x1234,
							HELLOFPGA_SUBMIT_WAIT_ON_GPU,
							0, &sub), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(NULL, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), -EBADF);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, 0, 0, NULL), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, 1ull << 8, 0, NULL),
		     -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, 1ull << 8, 3600001, NULL),
		     -EINVAL);
	env_close(&e);
}

/* On an AXI-Stream card: H2C packets are submitted, C2H is refused. */
HF_TEST(submit_on_a_stream_card_h2c_only)
{
	HELLOFPGA_SUBMISSION sub;
	struct env e;

	env_open_card(&e, "emu,private,st,h2c=1,c2h=1,ddr=1M");
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, 0, 4096,
						HELLOFPGA_DIR_C2H, NULL, 0, 0,
						&sub), -EOPNOTSUPP);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, 0, 4096,
						HELLOFPGA_DIR_H2C, NULL, 0, 0,
						&sub), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(e.h, sub.ticket, TMO_MS, NULL),
		     0);
	env_close(&e);
}

/* Without stream memory operations: a GPU flag is -EOPNOTSUPP. */
HF_TEST(submit_gpu_flag_without_memops_is_eopnotsupp)
{
	HELLOFPGA_SUBMISSION sub;
	struct env e;

	env_open(&e);
	if (!hf_gpu_get()->status.emulated)
		HF_SKIP("the emulated GPU's test hook (no memory operations)");
	hf_gpu_test_no_memops(true);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(e.h, 0, e.pin, 0, CARD_AT, 4096,
						HELLOFPGA_DIR_C2H, e.gs,
						HELLOFPGA_SUBMIT_WAIT_ON_GPU, 0,
						&sub), -EOPNOTSUPP);
	hf_gpu_test_no_memops(false);
	env_close(&e);
}

/* Submissions from several threads to two channels, all verified. */
struct submitter {
	struct env *e;
	int ch;
	int n;
	int bad;
};

static void *submitter_fn(void *arg)
{
	struct submitter *s = arg;
	HELLOFPGA_SUBMISSION sub;

	for (int i = 0; i < s->n; i++) {
		/* each channel its own part of the buffer */
		if (HelloFPGA_GPUDirect_Submit(s->e->h, s->ch, s->e->pin,
					       (size_t)s->ch * (SIZE / 2),
					       CARD_AT, 4096, HELLOFPGA_DIR_C2H,
					       NULL, 0, 0, &sub) ||
		    HelloFPGA_GPUDirect_Complete(s->e->h, sub.ticket, TMO_MS,
						 NULL))
			s->bad++;
	}
	return NULL;
}

HF_TEST(submit_from_several_threads)
{
	struct submitter s[4];
	pthread_t t[4];
	struct env e;

	env_open(&e);
	for (int i = 0; i < 4; i++) {
		s[i] = (struct submitter){ &e, i % 2, 100, 0 };
		HF_CHECK_ERR(pthread_create(&t[i], NULL, submitter_fn, &s[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		HF_CHECK_EQ(s[i].bad, 0);
	}
	env_close(&e);
}

