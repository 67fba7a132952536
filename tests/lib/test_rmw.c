// SPDX-License-Identifier: MIT
/*
 * test_rmw.c - writes on an aligned emulated card (align=N): a write that
 * covers a block only partly is a read-modify-write of the whole block,
 * and racing writes of one block, from other channels, threads or
 * processes, must not undo each other.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "lib_helpers.h"

#define BLK	64		/* the cards' align= */
#define TRIALS	300		/* races, one block each */
#define SCRATCH	(512 << 10)	/* a card address no race writes */

/**
 * struct racer - one side of the races: on each trial it writes @len bytes
 * of @val at byte @off of block t (card address t * BLK), on channel @ch.
 * @aligned: write from a BLK-aligned buffer (@off and @len whole blocks:
 *	the direct path), else from a buffer 1 byte off (the bounce path)
 * @pre_read: read a block elsewhere (C2H2) before each write, so that a
 *	one-run write lands while the other side's read-modify-write, two
 *	runs, is between its read and its write
 * @b: both sides wait here before each trial
 * @failed: a write failed (then the text is in @msg)
 */
struct racer {
	HELLOFPGA_HANDLE h;
	int ch;
	size_t off;
	size_t len;
	uint8_t val;
	bool aligned;
	bool pre_read;
	pthread_barrier_t *b;
	int failed;
	char msg[200];
};

static void race(struct racer *r)
{
	uint8_t *buf = aligned_alloc(BLK, 2 * BLK);
	uint8_t *scratch = aligned_alloc(BLK, BLK);
	uint8_t *src = NULL;
	int ret;

	if (!buf || !scratch) {
		r->failed = 1;
		snprintf(r->msg, sizeof(r->msg), "out of memory");
	} else {
		memset(buf, r->val, 2 * BLK);
		src = r->aligned ? buf : buf + 1;
	}
	for (int t = 0; t < TRIALS; t++) {
		pthread_barrier_wait(r->b);
		if (r->failed)
			continue;	/* keep the other side's barriers */
		if (r->pre_read)
			HelloFPGA_DMA_MM_ReadC2H(r->h, 2, scratch, SCRATCH,
						 BLK, NULL);
		ret = HelloFPGA_DMA_MM_WriteH2C(r->h, r->ch, src,
						(uint64_t)t * BLK + r->off,
						r->len, NULL);
		if (ret) {
			r->failed = 1;
			snprintf(r->msg, sizeof(r->msg), "trial %d: %d %s", t,
				 ret, HelloFPGA_GetLastError(r->h));
		}
	}
	free(buf);
	free(scratch);
}

static void *race_thread(void *arg)
{
	race(arg);
	return NULL;
}

/*
 * Block t after the race of @a and @b: their bytes, zero around them.  A
 * whole-block write that raced a partial one may have come first or last
 * inside the partial writer's bytes, never undone outside them.
 */
static void check_blocks(HELLOFPGA_HANDLE h, const struct racer *a,
			 const struct racer *b)
{
	static uint8_t card[TRIALS * BLK];

	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, card, 0, sizeof(card),
					      NULL), 0);
	for (int t = 0; t < TRIALS; t++) {
		const uint8_t *blk = card + t * BLK;

		for (size_t i = 0; i < BLK; i++) {
			bool in_a = i >= a->off && i < a->off + a->len;
			bool in_b = i >= b->off && i < b->off + b->len;
			uint8_t want = in_b ? b->val : in_a ? a->val : 0;

			if (in_a && in_b && blk[i] == a->val)
				continue;
			HF_CHECK_MSG(blk[i] == want,
				     "trial %d: byte %zu is 0x%02x, not 0x%02x: a write was lost (%d of %d blocks checked)",
				     t, i, blk[i], want, t, TRIALS);
		}
	}
}

/* Two threads of one handle race @a and @b on card @name. */
static void race_threads(const char *name, struct racer *a, struct racer *b)
{
	HELLOFPGA_HANDLE h = t_open(name);
	pthread_barrier_t bar;
	pthread_t ta, tb;

	HF_CHECK(!pthread_barrier_init(&bar, NULL, 2));
	a->h = h;
	b->h = h;
	a->b = &bar;
	b->b = &bar;
	HF_CHECK(!pthread_create(&ta, NULL, race_thread, a));
	HF_CHECK(!pthread_create(&tb, NULL, race_thread, b));
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&bar);
	HF_CHECK_MSG(!a->failed, "%s", a->msg);
	HF_CHECK_MSG(!b->failed, "%s", b->msg);
	check_blocks(h, a, b);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* Unaligned writes of different bytes of one block, H2C0 and H2C1. */
HF_TEST(racing_partial_writes_of_a_block_from_two_threads_keep_both)
{
	struct racer a = { .ch = 0, .off = 1, .len = 8, .val = 0xaa };
	struct racer b = { .ch = 1, .off = 33, .len = 8, .val = 0xbb };

	race_threads("emu:20,align=64,ddr=1M", &a, &b);
}

/* The same on a private card (no card file to lock). */
HF_TEST(racing_partial_writes_of_a_block_on_a_private_card_keep_both)
{
	struct racer a = { .ch = 2, .off = 3, .len = 5, .val = 0xaa };
	struct racer b = { .ch = 3, .off = 50, .len = 7, .val = 0xbb };

	race_threads("emu,private,align=64,ddr=1M", &a, &b);
}

/*
 * A whole-block write (direct path) racing a partial one: the partial
 * writer's read-modify-write must not put back the block as it was before
 * the whole-block write.
 */
HF_TEST(whole_block_write_racing_a_partial_write_is_not_undone)
{
	struct racer a = { .ch = 0, .off = 0, .len = BLK, .val = 0xcc,
			   .aligned = true, .pre_read = true };
	struct racer b = { .ch = 1, .off = 9, .len = 4, .val = 0xaa };

	race_threads("emu:21,align=64,ddr=1M", &a, &b);
}

/*
 * Two processes, each with its own handle on one shared card, racing
 * unaligned writes of different bytes of one block.
 */
HF_TEST(racing_partial_writes_of_a_block_from_two_processes_keep_both)
{
	struct racer a = { .ch = 0, .off = 2, .len = 9, .val = 0xaa };
	struct racer b = { .ch = 1, .off = 40, .len = 11, .val = 0xbb };
	pthread_barrierattr_t attr;
	pthread_barrier_t *bar;
	HELLOFPGA_HANDLE h;
	struct racer *shb;
	int status;
	pid_t pid;

	t_emu_dir();
	bar = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	HF_CHECK(bar != MAP_FAILED);
	shb = (struct racer *)((char *)bar + 256);
	HF_CHECK(!pthread_barrierattr_init(&attr));
	HF_CHECK(!pthread_barrierattr_setpshared(&attr,
						 PTHREAD_PROCESS_SHARED));
	HF_CHECK(!pthread_barrier_init(bar, &attr, 2));
	*shb = b;
	shb->b = bar;
	a.b = bar;
	/* no handle open (no engine thread) across the fork */
	fflush(NULL);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		if (HelloFPGA_Open("emu:22,align=64,ddr=1M", &shb->h))
			_exit(2);
		race(shb);
		_exit(HelloFPGA_Close(shb->h) ? 3 : 0);
	}
	h = t_open("emu:22,align=64,ddr=1M");
	a.h = h;
	race(&a);
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK_MSG(WIFEXITED(status) && !WEXITSTATUS(status),
		     "child: status 0x%x", status);
	HF_CHECK_MSG(!a.failed, "%s", a.msg);
	HF_CHECK_MSG(!shb->failed, "%s", shb->msg);
	check_blocks(h, &a, shb);
	pthread_barrier_destroy(bar);
	munmap(bar, 4096);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}
