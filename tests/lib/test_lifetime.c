// SPDX-License-Identifier: MIT
/*
 * test_lifetime.c - the life of a handle under hostile use: a closed handle
 * is -EBADF and never reaches another card, Close against transfers in
 * flight, fork() (an inherited handle fails fast with -ECHILD, Close in the
 * child leaves the parent alone, the channel lock keeps parent and child
 * apart), and waits for a busy channel that end at the timeout (-EBUSY).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "lib_helpers.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/*
 * ThreadSanitizer cannot run a fork() child of a threaded process that
 * starts threads (as opening a card does): such cases run in the other
 * builds only.
 */
static void skip_child_threads_under_tsan(void)
{
#ifdef __SANITIZE_THREAD__
	HF_SKIP("a fork() child that starts threads: ThreadSanitizer does not support it");
#endif
}

/* Wait for child @pid; its exit status, or 128 + signal. */
static int child_status(pid_t pid)
{
	int status;

	HF_CHECK(waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

HF_TEST(closed_handle_is_ebadf_and_never_reaches_the_next_card)
{
	HELLOFPGA_HANDLE a = t_open("emu:700,ddr=1M");
	HELLOFPGA_HANDLE b[8];
	uint8_t buf[4096], back[4096];
	HELLOFPGA_INFO info;
	char name[32];

	memset(buf, 0xa5, sizeof(buf));
	memset(back, 0, sizeof(back));
	HF_CHECK_ERR(HelloFPGA_Close(a), 0);
	/*
	 * Later Opens reuse the memory, and the slot, of the first: a
	 * pointer handle would now name one of them.
	 */
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "emu:%d,ddr=1M", 710 + i);
		b[i] = t_open(name);
		HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(b[i], 0, back, 0,
						       sizeof(back), NULL), 0);
		HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(a, 0, buf, 0,
						       sizeof(buf), NULL),
			     -EBADF);
		HF_CHECK_ERR(HelloFPGA_GetInfo(a, &info), -EBADF);
		HF_CHECK_ERR(HelloFPGA_SetTimeout(a, 100), -EBADF);
	}
	HF_CHECK_ERR(HelloFPGA_Close(a), -EBADF);
	for (int i = 0; i < 8; i++) {
		HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(b[i], 0, back, 0,
						      sizeof(back), NULL), 0);
		for (size_t k = 0; k < sizeof(back); k++)
			HF_CHECK_MSG(!back[k], "byte %zu of emu:%d is 0x%02x",
				     k, 710 + i, back[k]);
		HF_CHECK_ERR(HelloFPGA_GetInfo(b[i], &info), 0);
		HF_CHECK_EQ(info.timeout_ms, 5000);
		HF_CHECK_ERR(HelloFPGA_Close(b[i]), 0);
	}
}

HF_TEST(a_forged_handle_is_ebadf)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	uintptr_t v = (uintptr_t)(void *)h;
	HELLOFPGA_INFO info;

	/* the same slot with another generation, and junk */
	HF_CHECK_ERR(HelloFPGA_GetInfo((HELLOFPGA_HANDLE)(void *)
				       (v + ((uintptr_t)1 << 16)), &info),
		     -EBADF);
	HF_CHECK_ERR(HelloFPGA_GetInfo((HELLOFPGA_HANDLE)(void *)&info,
				       &info), -EBADF);
	HF_CHECK_ERR(HelloFPGA_GetInfo((HELLOFPGA_HANDLE)(void *)(uintptr_t)1,
				       &info), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

struct looper {
	HELLOFPGA_HANDLE h;
	int ch;
	volatile int stop;
	unsigned long ok;
	unsigned long ebadf;
	int bad;		/* first result that is neither */
};

static void *transfer_loop(void *arg)
{
	struct looper *l = arg;
	uint8_t buf[65536];

	memset(buf, l->ch, sizeof(buf));
	for (unsigned long n = 0;
	     !__atomic_load_n(&l->stop, __ATOMIC_RELAXED); n++) {
		int ret = (n & 1) ?
			  HelloFPGA_DMA_MM_ReadC2H(l->h, l->ch, buf,
						   l->ch * sizeof(buf),
						   sizeof(buf), NULL) :
			  HelloFPGA_DMA_MM_WriteH2C(l->h, l->ch, buf,
						    l->ch * sizeof(buf),
						    sizeof(buf), NULL);

		if (!ret) {
			__atomic_add_fetch(&l->ok, 1, __ATOMIC_RELAXED);
		} else if (ret == -EBADF) {
			/* closed: every later call is -EBADF too */
			if (__atomic_add_fetch(&l->ebadf, 1,
					       __ATOMIC_RELAXED) > 3)
				break;
		} else {
			__atomic_store_n(&l->bad, ret, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

/* Start four transfer threads on @h, wait until each moved data. */
static void start_loopers(HELLOFPGA_HANDLE h, struct looper *l,
			  pthread_t *t)
{
	for (int i = 0; i < 4; i++) {
		l[i] = (struct looper){ .h = h, .ch = i };
		HF_CHECK(!pthread_create(&t[i], NULL, transfer_loop, &l[i]));
	}
	for (int i = 0; i < 4; i++)
		while (!__atomic_load_n(&l[i].ok, __ATOMIC_RELAXED) &&
		       !__atomic_load_n(&l[i].bad, __ATOMIC_RELAXED))
			usleep(1000);
}

static void join_loopers(struct looper *l, pthread_t *t)
{
	for (int i = 0; i < 4; i++) {
		__atomic_store_n(&l[i].stop, 1, __ATOMIC_RELAXED);
		pthread_join(t[i], NULL);
		HF_CHECK_MSG(!l[i].bad, "channel %d: a transfer racing Close returned %d (%s)",
			     i, l[i].bad, HelloFPGA_StrError(l[i].bad));
	}
}

HF_TEST(close_against_transfers_in_flight_frees_nothing_in_use)
{
	for (int round = 0; round < 20; round++) {
		HELLOFPGA_HANDLE h = t_open("emu,private,ddr=4M");
		struct looper l[4];
		pthread_t t[4];

		start_loopers(h, l, t);
		HF_CHECK_ERR(HelloFPGA_Close(h), 0);
		join_loopers(l, t);
	}
}

HF_TEST(close_wins_against_four_threads_that_keep_transferring)
{
	HELLOFPGA_HANDLE h = t_open("emu:720,ddr=4M");
	struct looper l[4];
	pthread_t t[4];
	uint64_t t0;

	start_loopers(h, l, t);
	/* give the threads time to hold the handle back to back */
	usleep(50000);
	t0 = now_ms();
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	/* a liveness bound, far above the longest transfer here */
	HF_CHECK_MSG(now_ms() - t0 < 10000, "Close took %llu ms",
		     (unsigned long long)(now_ms() - t0));
	for (int i = 0; i < 4; i++)
		while (!__atomic_load_n(&l[i].bad, __ATOMIC_RELAXED) &&
		       !__atomic_load_n(&l[i].ebadf, __ATOMIC_RELAXED))
			usleep(1000);
	join_loopers(l, t);
	for (int i = 0; i < 4; i++)
		HF_CHECK_MSG(l[i].ebadf >= 1, "channel %d never saw -EBADF",
			     i);
}

HF_TEST(an_inherited_handle_fails_fast_in_the_child_and_close_is_harmless)
{
	HELLOFPGA_HANDLE h = t_open("emu:721,ddr=1M");
	uint8_t buf[4096], back[4096];
	pid_t pid;

	t_fill(buf, sizeof(buf), 703);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		uint8_t junk[4096];
		uint64_t t0 = now_ms();
		int r1, r2, r3;

		memset(junk, 0x5a, sizeof(junk));
		r1 = HelloFPGA_DMA_MM_WriteH2C(h, 0, junk, 0, sizeof(junk),
					       NULL);
		r2 = HelloFPGA_DMA_MM_ReadC2H(h, 1, junk, 0, sizeof(junk),
					      NULL);
		r3 = HelloFPGA_Close(h);
		if (r1 != -ECHILD || r2 != -ECHILD)
			_exit(1);
		if (!strstr(HelloFPGA_GetLastError(h), "fork"))
			_exit(2);
		if (r3 != 0 || HelloFPGA_Close(h) != -EBADF)
			_exit(3);
		if (now_ms() - t0 > 1000)
			_exit(4);
		_exit(0);
	}
	HF_CHECK_EQ(child_status(pid), 0);
	/* the parent's handle, card and data are untouched */
	memset(back, 0, sizeof(back));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, back, 0, sizeof(back),
					      NULL), 0);
	HF_CHECK_EQ(t_check(back, sizeof(back), 703), -1);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(a_child_opens_the_card_again_and_uses_it)
{
	HELLOFPGA_HANDLE h;
	uint8_t buf[4096];
	pid_t pid;

	skip_child_threads_under_tsan();
	h = t_open("emu:722,ddr=1M");

	t_fill(buf, sizeof(buf), 704);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		HELLOFPGA_HANDLE c;

		if (HelloFPGA_Open("emu:722", &c))
			_exit(1);
		if (HelloFPGA_DMA_MM_WriteH2C(c, 0, buf, 0, sizeof(buf),
					      NULL)) {
			fprintf(stderr, "child: %s\n", HelloFPGA_GetLastError(c));
			_exit(2);
		}
		if (HelloFPGA_Close(c) || HelloFPGA_Close(h))
			_exit(3);
		_exit(0);
	}
	HF_CHECK_EQ(child_status(pid), 0);
	memset(buf, 0, sizeof(buf));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf),
					      NULL), 0);
	HF_CHECK_EQ(t_check(buf, sizeof(buf), 704), -1);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

struct holder {
	HELLOFPGA_HANDLE h;
	int ret;
};

/* A write on H2C0 that holds the channel while the card hangs. */
static void *hold_h2c0(void *arg)
{
	struct holder *ho = arg;
	uint8_t buf[4096] = { 0 };

	ho->ret = HelloFPGA_DMA_MM_WriteH2C(ho->h, 0, buf, 0, sizeof(buf),
					    NULL);
	return NULL;
}

/*
 * Make the engines of @h hang for @ms and start a write on H2C0 that
 * waits them out; returns once it holds the channel.
 */
static void start_holder(HELLOFPGA_HANDLE h, int ms, struct holder *ho,
			 pthread_t *t)
{
	HELLOFPGA_COUNTERS c0, c;

	t_need_emulated(h, "fault injection (hf_emu_test_inject_hang)");
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 20000), 0);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c0), 0);
	HF_CHECK_ERR(hf_emu_test_inject_hang(h, (uint64_t)ms * 1000000ull),
		     0);
	ho->h = h;
	ho->ret = 1;
	HF_CHECK(!pthread_create(t, NULL, hold_h2c0, ho));
	/* it holds the channel once its engine was started */
	do {
		usleep(1000);
		HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	} while (c.mmio_writes == c0.mmio_writes);
	usleep(20000);
}

static void end_holder(struct holder *ho, pthread_t t)
{
	pthread_join(t, NULL);
	HF_CHECK_ERR(ho->ret, 0);
}

HF_TEST(the_channel_lock_keeps_a_forked_child_out)
{
	HELLOFPGA_HANDLE h;
	struct holder ho;
	pthread_t t;
	pid_t pid;

	skip_child_threads_under_tsan();
	h = t_open("emu:723,ddr=1M");

	start_holder(h, 1500, &ho, &t);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		uint8_t buf[4096] = { 0 };
		HELLOFPGA_HANDLE c;
		int ret;

		/* the inherited handle shares the parent's lock: refused */
		if (HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					      NULL) != -ECHILD)
			_exit(1);
		if (HelloFPGA_Close(h))
			_exit(2);
		/* a handle of its own waits for the parent, until timeout */
		if (HelloFPGA_Open("emu:723", &c) ||
		    HelloFPGA_SetTimeout(c, 200))
			_exit(3);
		ret = HelloFPGA_DMA_MM_WriteH2C(c, 0, buf, 0, sizeof(buf),
						NULL);
		_exit(ret == -EBUSY ? 0 : 4);
	}
	HF_CHECK_EQ(child_status(pid), 0);
	end_holder(&ho, t);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(waiting_for_a_channel_another_process_holds_ends_at_the_timeout)
{
	HELLOFPGA_HANDLE h;
	struct holder ho;
	pthread_t t;
	pid_t pid;

	skip_child_threads_under_tsan();
	h = t_open("emu:724,ddr=1M");

	start_holder(h, 3000, &ho, &t);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		uint8_t buf[4096] = { 0 };
		HELLOFPGA_HANDLE c;
		uint64_t t0;
		size_t actual = 1;
		int ret;

		if (HelloFPGA_Open("emu:724", &c) ||
		    HelloFPGA_SetTimeout(c, 200))
			_exit(1);
		t0 = now_ms();
		ret = HelloFPGA_DMA_MM_WriteH2C(c, 0, buf, 0, sizeof(buf),
						&actual);
		if (ret != -EBUSY || actual != 0)
			_exit(2);
		/* liveness: far below the 3 s the parent holds it */
		if (now_ms() - t0 > 2000)
			_exit(3);
		/* other channels stay free */
		if (HelloFPGA_DMA_MM_WriteH2C(c, 1, buf, 0, sizeof(buf),
					      NULL))
			_exit(4);
		_exit(HelloFPGA_Close(c) ? 5 : 0);
	}
	HF_CHECK_EQ(child_status(pid), 0);
	end_holder(&ho, t);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(waiting_for_a_channel_of_the_same_handle_ends_at_the_timeout)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,ddr=1M");
	uint8_t buf[4096] = { 0 };
	struct holder ho;
	pthread_t t;
	uint64_t t0;
	int ret;

	start_holder(h, 1500, &ho, &t);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 100), 0);
	t0 = now_ms();
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf), NULL);
	HF_CHECK_ERR(ret, -EBUSY);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "stayed in use"));
	HF_CHECK_MSG(now_ms() - t0 < 1000, "waited %llu ms",
		     (unsigned long long)(now_ms() - t0));
	end_holder(&ho, t);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* ---- fork() while another thread is inside the library ---- */

enum fork_lock {
	FL_STREAMS,		/* the table of streams */
	FL_GPU_MEMORY,		/* the emulated GPU's allocations */
	FL_GPU_STREAMS,		/* the emulated GPU's streams */
};

struct forker {
	enum fork_lock what;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	void *gs;
	void *gpu;		/* 4 KiB of GPU memory */
	int stop;		/* atomic */
	int bad;		/* a call of the hammer failed */
};

/*
 * Call into the library all along, so that fork() comes while inside.
 * (Without allocating memory: the sanitizers' allocators do not take
 * their locks around fork(), so a child's malloc() could wait for ever on
 * one this thread held.)
 */
static void *hammer_fn(void *arg)
{
	struct forker *f = arg;
	HELLOFPGA_STREAM_STATS st;
	uint8_t buf[4096];

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		switch (f->what) {
		case FL_STREAMS:
			f->bad |= HelloFPGA_Stream_GetStats(f->s, &st) != 0;
			break;
		case FL_GPU_MEMORY:
			f->bad |= HelloFPGA_GPU_Memcpy(buf, f->gpu,
						       sizeof(buf),
						       HELLOFPGA_MEMCPY_GPU_TO_HOST);
			break;
		default:
			f->bad |= HelloFPGA_GPU_StreamSynchronize(f->gs, 0) != 0;
			break;
		}
	}
	return NULL;
}

/* In the child: the call on @f's kind of lock answers; exit status. */
static int child_call(struct forker *f)
{
	HELLOFPGA_FRAME fr;
	void *p;

	switch (f->what) {
	case FL_STREAMS:
		if (HelloFPGA_Stream_Wait(f->s, 0, &fr) != -ECHILD ||
		    HelloFPGA_Stream_Close(f->s) != -ECHILD)
			return 2;
		/* the handle closed here: the stream is only forgotten */
		if (HelloFPGA_Close(f->h) || HelloFPGA_Stream_Close(f->s))
			return 3;
		return HelloFPGA_Stream_Wait(f->s, 0, &fr) != -EBADF ? 4 : 0;
	case FL_GPU_MEMORY:
		if (HelloFPGA_GPU_Alloc(&p, 65536))
			return 2;
		return HelloFPGA_GPU_Free(p) ? 3 : 0;
	default:
		return HelloFPGA_GPU_StreamSynchronize(f->gs, 0) != -ECHILD ?
		       2 : 0;
	}
}

/* forks per case; fewer where a sanitizer makes each one slow */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FORKS	60
#else
#define FORKS	200
#endif

struct fork_row {
	const char *name;
	enum fork_lock what;
};

static const struct fork_row fork_rows[] = {
	{ "stream_calls", FL_STREAMS },
	{ "gpu_memory", FL_GPU_MEMORY },
	{ "gpu_stream_synchronize", FL_GPU_STREAMS },
};

/*
 * fork() while another thread is inside a call that takes a process-wide
 * lock: the child's call answers (-ECHILD for what the parent made, or
 * works), never waits for ever on a lock held by a thread it does not
 * have.  Many forks, so that some come while the lock is held.
 */
static void fork_case(const void *arg)
{
	const struct fork_row *row = arg;
	HELLOFPGA_STREAM_CONFIG c;
	struct forker f;
	pthread_t t;

	memset(&f, 0, sizeof(f));
	f.what = row->what;
	setenv("HELLOFPGA_GPU", "emu", 1);
	if (row->what == FL_STREAMS) {
		f.h = t_open("emu,private,st,h2c=1,c2h=1,ddr=1M");
		memset(&c, 0, sizeof(c));
		c.buffers = 4;
		c.buffer_size = 4096;
		HF_CHECK_ERR(HelloFPGA_Stream_Open(f.h, &c, &f.s), 0);
	} else if (row->what == FL_GPU_STREAMS) {
		HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&f.gs), 0);
	} else {
		HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&f.gpu, 4096), 0);
	}
	HF_CHECK_ERR(pthread_create(&t, NULL, hammer_fn, &f), 0);
	for (int i = 0; i < FORKS; i++) {
		pid_t pid;
		int st;

		fflush(NULL);
		pid = fork();
		HF_CHECK(pid >= 0);
		if (!pid) {
			t_watchdog(60, "a call in a fork() child");
			_exit(child_call(&f));
		}
		st = child_status(pid);
		HF_CHECK_MSG(st == 0, "fork %d: the child %s", i,
			     st == 1 ? "hung (its watchdog fired)" :
			     st > 128 ? "was killed by a signal" :
			     "got a wrong result");
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
	HF_CHECK_ERR(pthread_join(t, NULL), 0);
	HF_CHECK(!f.bad);
	if (f.s)
		HF_CHECK_ERR(HelloFPGA_Stream_Close(f.s), 0);
	if (f.h)
		HF_CHECK_ERR(HelloFPGA_Close(f.h), 0);
	if (f.gs)
		HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(f.gs), 0);
	if (f.gpu)
		HF_CHECK_ERR(HelloFPGA_GPU_Free(f.gpu), 0);
}

HF_TEST_ROWS(a_fork_child_never_hangs_on_a_lock_another_thread_held,
	     fork_rows, fork_case)
