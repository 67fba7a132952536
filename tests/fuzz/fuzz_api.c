// SPDX-License-Identifier: MIT
/*
 * fuzz_api.c - a seeded, bounded random fuzzer of libhellofpga's public
 * API (every function of include/hellofpga.h) on emulated cards and the
 * emulated GPU.
 *
 *	fuzz_api fuzz_api_one_thread     one thread: a seed replays exactly
 *	fuzz_api fuzz_api_threads        several threads on shared handles
 *
 * Environment:
 *	HF_FUZZ_SECONDS   run time of each case (default 3)
 *	HF_FUZZ_SEED      the seed (default: from the clock); "seed N" is
 *			  printed first, HF_FUZZ_SEED=N replays it (one
 *			  thread: the same calls; several: each thread's
 *			  draws, not their interleaving)
 *	HF_FUZZ_THREADS   threads of fuzz_api_threads (default 3)
 *	HF_FUZZ_ENABLE    comma-separated parts to switch on, HF_FUZZ_DISABLE
 *			  to switch off ("all" for every part); see parts[]
 *	HF_FUZZ_VERBOSE   1: print every call
 * All numbers as README.md's "Numbers".
 *
 * Every thread calls random entry points with good and bad arguments:
 * NULL pointers, NULL and bogus handles, channels out of range, huge,
 * unaligned and wrapping sizes, card addresses past the end of card
 * memory, unknown TransferMode values and directions, GPU buffers that
 * are unaligned, host memory or freed while pinned, random card names;
 * and valid requests too.  The parts (parts[], mix[] their shares):
 *  - data, GPU Direct, TransferMode, GPU memory, info, user BAR, Open,
 *    calls on closed handles, Close racing transfers, bad host pointers,
 *    short timeouts, shared card files, an aligned card;
 *  - user interrupts: the reference design's lines raised, pulsed and
 *    dropped, waited for and their descriptors polled, on the cards and
 *    on cards that close meanwhile; a line each thread holds is always
 *    delivered;
 *  - streams: an AXI-Stream card whose source sends frames on four C2H
 *    channels, a stream slot per channel shared by every thread: rings in
 *    library, host and GPU Direct memory opened, waited on, released on
 *    the CPU and through GPU streams, GPU waits enqueued, counters read,
 *    the ring's GPU memory freed or its pin unpinned under it, closed
 *    while the other threads hammer the stream (a storm, st_close()), and
 *    the card closed under all of it (H2C packets in flight, behind short
 *    hangs of its engines) and opened again;
 *  - GPU streams of the emulated GPU created, destroyed under use,
 *    synchronised, given host functions;
 *  - GPUDirect_Submit with and without WAIT_ON_GPU / START_ON_GPU on a
 *    card of its own, the race card and the stream card, pins unpinned
 *    and GPU memory freed under queued submissions, tickets completed
 *    later by any thread, through another handle, made up;
 *  - fork() while the others are inside calls of every family: the
 *    child's calls on what the parent opened answer at once (alarm()).
 * Checks:
 *  - every int function returns 0, a positive value, or a negative errno
 *    that include/hellofpga.h lists for it (tests/lib/api_doc.c reads the
 *    header), and a valid request succeeds (-EBADF only once the handle
 *    or stream is being closed);
 *  - card memory: each thread owns a slice of every card (the last slice
 *    is a guard nobody writes), and keeps a shadow copy of it; after each
 *    data call the card's memory (read straight from the emulated card)
 *    still matches the shadow outside the request, and inside it when
 *    the call succeeded; a rejected request changes nothing and reports 0
 *    bytes moved; data read, into host or GPU memory, is the shadow's;
 *  - a stream's frames are whole and as the source sent them, stay so
 *    while held, are never handed out twice; a GPU wait names the buffer
 *    the Wait handed out; a ticket completes only through its own handle;
 *  - no call hangs: a thread still inside a call FZ_HANG_S after the end
 *    fails the case with its last calls (a Stream_Close that misses its
 *    wake-up, a lock a fork() child inherited held);
 *  - the emulated card makes no DMA fault (the harness's check after the
 *    case, tests/dma_faults.c), but for those a wedged short-timeout run
 *    makes by design (short_timeout_wedged());
 *  - the sanitizers of the ASan/UBSan and TSan builds report nothing
 *    (and freed memory is scribbled over in the plain build, M_PERTURB).
 *
 * Every part is on by default.  A part that a known bug would fail is
 * marked off in parts[] with the reason, until the fix lands;
 * HF_FUZZ_ENABLE=name turns it on anyway.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api_doc.h"
#include "harness.h"
#include "hf_lib.h"
#include "hf_number.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "lib_helpers.h"
#include "xdma_model.h"

#define FZ_MAX_THREADS	16
#define FZ_HOST		(256u << 10)	/* host buffer per thread */
#define FZ_MAX_XFER	(64u << 10)	/* largest valid CPU-path request */
#define FZ_GPU_SIZE	(128u << 10)	/* each GPU buffer of a thread */
#define FZ_NGPU		2
#define FZ_NPINS	6
#define FZ_LOG		8
#define FZ_LOGLEN	200
#define FZ_NCARDS	4

/* ---- parts that can be switched on and off ---- */

enum fz_part {
	P_DATA,			/* DMA_MM on good and bad arguments */
	P_INFO,			/* GetInfo, counters, timeouts, StrError ... */
	P_USER,			/* user BAR scratch, RAM and bad offsets */
	P_GPUDIRECT,		/* Pin, Xfer, Unpin, freeing pinned memory */
	P_TRANSFER_MODE,	/* SetGPUBuffer, SetTransferMode, DMA_MM on it */
	P_GPU_MEM,		/* GPU_Alloc, GPU_Free, GPU_Memcpy */
	P_OPEN,			/* Open of random names, Close */
	P_ALIGNED_CARD,		/* a card with align=64 (bounce, RMW) */
	P_USER_IRQ,		/* user interrupts: the user BAR lines, Wait, GetFd */
	P_CLOSED_HANDLE,	/* calls on a handle after its Close */
	P_CLOSE_RACE,		/* Close while other threads use the handle */
	P_BAD_HOST_PTR,		/* unmapped, PROT_NONE, read-only host buffers */
	P_SHORT_TIMEOUT,	/* 1..20 ms timeouts, -ETIMEDOUT and actual */
	P_FORK,			/* fork(), the child calls every family */
	P_SHARED_OPEN,		/* threads open the same shared emu:N at once */
	P_STREAM,		/* Stream_* on shared streams of an AXI-Stream card */
	P_STREAM_CLOSE,		/* HelloFPGA_Close of the stream card under them */
	P_GPU_STREAM,		/* GPU_Stream*: create, destroy under use, sync */
	P_SUBMIT,		/* GPUDirect_Submit/_Complete, GPU-side flags */
	P_COUNT
};

static const struct {
	const char *name;
	bool on;
	const char *why_off;
} parts[P_COUNT] = {
	[P_DATA] = { "data", true },
	[P_INFO] = { "info", true },
	[P_USER] = { "user", true },
	[P_GPUDIRECT] = { "gpudirect", true },
	[P_TRANSFER_MODE] = { "transfer_mode", true },
	[P_GPU_MEM] = { "gpu_mem", true },
	[P_OPEN] = { "open", true },
	[P_ALIGNED_CARD] = { "aligned_card", true },
	[P_USER_IRQ] = { "user_irq", true },
	/* issue 10: closed-handle reuse (generation-checked handles) */
	[P_CLOSED_HANDLE] = { "closed_handle", true },
	/* issue 10: Close racing transfers (references, Close waits) */
	[P_CLOSE_RACE] = { "close_race", true },
	/* issue 10: bad host pointers, -EFAULT on the emulated card */
	[P_BAD_HOST_PTR] = { "bad_host_ptr", true },
	/* issue 10: actual after timeout */
	[P_SHORT_TIMEOUT] = { "short_timeout", true },
	/* issue 10: fork (-ECHILD on inherited handles) */
	[P_FORK] = { "fork", true },
	/* issue 10: card files, created in one locked step */
	[P_SHARED_OPEN] = { "shared_open", true },
	[P_STREAM] = { "stream", true },
	/* issue 25: Stream_Close, GetStats racing Close; fork locks */
	[P_STREAM_CLOSE] = { "stream_close", true },
	[P_GPU_STREAM] = { "gpu_stream", true },
	/* issue 25: tickets bound to their handle */
	[P_SUBMIT] = { "submit", true },
};

static bool part_on[P_COUNT];

/* ---- state ---- */

struct fz_card {
	const char *name;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	const uint8_t *mem;	/* the emulated card's memory, read directly */
	uint64_t slice;		/* bytes each thread owns */
	uint64_t guard;		/* first byte of the guard nobody writes */
};

struct fz_gbuf {
	uint8_t *gpu;		/* NULL: none */
	uint8_t *copy;		/* what it holds */
};

struct fz_pin {
	HELLOFPGA_GPU_HANDLE h;	/* 0: free entry */
	int card;
	int g;			/* its GPU buffer */
	size_t off;		/* in the buffer */
	size_t size;
	bool revoked;		/* its GPU buffer was freed */
};

struct fz_thread {
	int id;
	uint64_t rng;
	pthread_t th;
	uint8_t *host;
	uint8_t *shadow[FZ_NCARDS];	/* of the thread's own slices */
	struct fz_gbuf g[FZ_NGPU];
	struct fz_pin pins[FZ_NPINS];
	HELLOFPGA_HANDLE closed;	/* P_CLOSED_HANDLE */
	uint8_t *sgpu;			/* P_SUBMIT: GPU memory, unchecked */
	HELLOFPGA_GPU_HANDLE spin;	/* its pin on the submission card */
	bool spin_revoked;		/* the pin's memory was freed */
	uint64_t calls;
	unsigned int logn;
	char log[FZ_LOG][FZ_LOGLEN];
	bool failed;
	char failure[1024];
};

static struct fz_card cards[FZ_NCARDS] = {
	{ .name = "emu:0,private,ddr=1M" },
	{ .name = "emu:1,private,ddr=1M,h2c=2,c2h=1,irq=poll" },
	{ .name = "emu:2,private,ddr=512K,h2c=1,c2h=2,irq=legacy,align=64" },
	{ .name = "emu:3,private,ddr=512K,h2c=2,c2h=2,irq=msi,sync" },
};

static int ncards;
static int nthreads;
static struct fz_thread threads[FZ_MAX_THREADS];
static int stop;		/* atomic: the threads end */
static int ndone;		/* atomic: threads that ended */
static bool verbose;
static HELLOFPGA_HANDLE race_h;		/* P_CLOSE_RACE's card */
#define FZ_RACE_NAME	"emu:9,private,ddr=64K"
#define FZ_RACE_SIZE	(64u << 10)
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
/* where a submission's ticket comes from (P_SUBMIT) */
enum { TK_SUB, TK_RACE, TK_ST, TK_MM };
static void ticket_add(HELLOFPGA_HANDLE h, uint64_t ticket, int card);
/* a handle-shaped object that is no handle (magic 0) */
static uint64_t bogus_dev[512];
#define BOGUS ((HELLOFPGA_HANDLE)(void *)bogus_dev)

/* ---- helpers ---- */

static uint64_t rnd(struct fz_thread *t)
{
	return t_rand(&t->rng);
}

static uint64_t below(struct fz_thread *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

static bool chance(struct fz_thread *t, unsigned int percent)
{
	return below(t, 100) < percent;
}

/* A length: mostly small, sometimes 0, 1, odd, up to @max. */
static size_t rnd_len(struct fz_thread *t, size_t max)
{
	switch (below(t, 6)) {
	case 0:
		return 0;
	case 1:
		return 1 + below(t, 16);
	case 2:
		return below(t, max + 1);
	case 3:
		return ALIGN_DOWN(below(t, max + 1), 4096);
	default: {
		size_t n = below(t, 4096) + 1;

		return n > max ? max : n;
	}
	}
}

static void fz_log(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_log(struct fz_thread *t, const char *fmt, ...)
{
	char *line = t->log[t->logn++ % FZ_LOG];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, FZ_LOGLEN, fmt, ap);
	va_end(ap);
	t->calls++;
	if (verbose)
		fprintf(stderr, "[%d] %s\n", t->id, line);
}

static void fz_fail(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_fail(struct fz_thread *t, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (t->failed)
		return;
	t->failed = true;
	va_start(ap, fmt);
	n = vsnprintf(t->failure, sizeof(t->failure), fmt, ap);
	va_end(ap);
	if (n < sizeof(t->failure))
		snprintf(t->failure + n, sizeof(t->failure) - n,
			 " (thread %d, call %llu: the last calls, oldest first, below)",
			 t->id, (unsigned long long)t->calls);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* @ret of @fn must be 0, positive or documented. */
static bool doc_ok(struct fz_thread *t, const char *fn, int ret)
{
	if (t_doc_allows(fn, ret))
		return true;
	fz_fail(t, "%s returned %d (%s), which include/hellofpga.h does not list",
		fn, ret, HelloFPGA_StrError(ret));
	return false;
}

/* A valid call must succeed. */
static bool must_succeed(struct fz_thread *t, const char *fn, int ret,
			 HELLOFPGA_HANDLE h)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret >= 0)
		return true;
	fz_fail(t, "%s: a valid call failed: %d (%s): %s", fn, ret,
		HelloFPGA_StrError(ret), HelloFPGA_GetLastError(h));
	return false;
}

/* A call that must fail: a documented negative errno. */
static bool must_fail(struct fz_thread *t, const char *fn, int ret)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret < 0)
		return true;
	fz_fail(t, "%s: a call with bad arguments returned %d", fn, ret);
	return false;
}

static uint64_t slice_base(const struct fz_card *c, int tid)
{
	return (uint64_t)tid * c->slice;
}

/* The largest valid CPU-path request on @c: its slice at most. */
static size_t max_xfer(const struct fz_card *c)
{
	return c->slice < FZ_MAX_XFER ? c->slice : FZ_MAX_XFER;
}

/*
 * The card's memory in [@lo, @hi) of the thread's slice is its shadow's;
 * the guard is still all zeros when @guard.
 */
static bool check_slice(struct fz_thread *t, int ci, uint64_t lo, uint64_t hi,
			const char *after)
{
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);

	lo = lo < base ? base : lo;
	hi = hi > base + c->slice ? base + c->slice : hi;
	for (uint64_t a = lo; a < hi; a++) {
		if (c->mem[a] != t->shadow[ci][a - base]) {
			fz_fail(t, "%s: card %s byte 0x%llx is 0x%02x, expected 0x%02x",
				after, c->name, (unsigned long long)a, c->mem[a],
				t->shadow[ci][a - base]);
			return false;
		}
	}
	return true;
}

static bool check_whole_slice(struct fz_thread *t, int ci, const char *after)
{
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);

	if (!memcmp(c->mem + base, t->shadow[ci], c->slice))
		return true;
	return check_slice(t, ci, base, base + c->slice, after);
}

/* Around a request: 4 KiB before and after it, and every 32nd call all. */
static bool check_around(struct fz_thread *t, int ci, uint64_t off,
			 uint64_t len, const char *after)
{
	if (!(t->calls % 32))
		return check_whole_slice(t, ci, after);
	return check_slice(t, ci, off > 4096 ? off - 4096 : 0,
			   off + len + 4096, after);
}

static int pick_card(struct fz_thread *t)
{
	int ci = below(t, ncards);

	if (!part_on[P_ALIGNED_CARD] && cards[ci].info.addr_align > 1)
		ci = 0;
	return ci;
}

/* A channel number, mostly valid for @n channels. */
static int rnd_channel(struct fz_thread *t, int n, bool *valid)
{
	static const int bad[] = { -1, INT_MIN, INT_MAX, 4, 5, 255 };
	int ch;

	if (chance(t, 90)) {
		*valid = true;
		return below(t, n);
	}
	ch = chance(t, 50) ? n : bad[below(t, ARRAY_SIZE(bad))];
	*valid = ch >= 0 && ch < n;
	return ch;
}

/* ---- CPU-path data calls ---- */

/* An argument the API must reject, with what it is. */
struct fz_bad {
	HELLOFPGA_HANDLE h;
	int ch;
	void *buf;
	uint64_t off;
	size_t len;
	const char *what;
};

static bool pick_bad(struct fz_thread *t, int ci, int nch, struct fz_bad *b)
{
	const struct fz_card *c = &cards[ci];
	uint64_t ddr = c->info.ddr_size;

	b->h = c->h;
	b->ch = below(t, nch);
	b->buf = t->host + below(t, 64);
	b->off = slice_base(c, t->id);
	b->len = 1 + below(t, 4096);
	switch (below(t, 10)) {
	case 0:
		b->h = chance(t, 50) ? NULL : BOGUS;
		b->what = "bad handle";
		break;
	case 1:
		b->ch = chance(t, 50) ? nch : (chance(t, 50) ? -1 : INT_MAX);
		b->what = "bad channel";
		break;
	case 2:
		b->buf = NULL;
		b->what = "NULL buffer";
		break;
	case 3:
		b->off = ddr + below(t, 1 << 20);
		b->what = "past the end";
		break;
	case 4:
		b->off = ddr - below(t, b->len);
		b->len += below(t, 4096) + 1;
		b->what = "straddling the end";
		break;
	case 5:
		b->off = UINT64_MAX - below(t, 4096);
		b->len = 4097 + below(t, 4096);
		b->what = "address + length wraps";
		break;
	case 6:
		b->len = chance(t, 50) ? SIZE_MAX : SIZE_MAX / 2 + below(t, 99);
		b->what = "huge length";
		break;
	case 7:
		b->buf = (void *)(UINTPTR_MAX - below(t, 4096));
		b->len = 8192;
		b->what = "buffer wraps the address space";
		break;
	case 8:
		b->off = ddr;
		b->len = 1;
		b->what = "first byte past the end";
		break;
	default:
		b->off = (1ull << 63) + below(t, 1 << 30);
		b->what = "address far past the end";
		break;
	}
	return true;
}

static void op_bad_dma(struct fz_thread *t)
{
	int ci = pick_card(t);
	const struct fz_card *c = &cards[ci];
	bool h2c = chance(t, 50);
	int nch = h2c ? c->info.num_h2c : c->info.num_c2h;
	const char *fn = h2c ? "HelloFPGA_DMA_MM_WriteH2C" :
			       "HelloFPGA_DMA_MM_ReadC2H";
	size_t actual = 77;
	struct fz_bad b;
	int ret;

	pick_bad(t, ci, nch, &b);
	fz_log(t, "%s(%s, ch %d, buf %p, 0x%llx, 0x%zx): %s", fn,
	       b.h == c->h ? c->name : b.h ? "bogus" : "NULL", b.ch, b.buf,
	       (unsigned long long)b.off, b.len, b.what);
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(b.h, b.ch, b.buf, b.off, b.len,
						&actual);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(b.h, b.ch, b.buf, b.off, b.len,
					       &actual);
	if (!must_fail(t, fn, ret))
		return;
	if (actual)
		fz_fail(t, "%s: rejected (%d), but actual is %zu", fn, ret,
			actual);
	check_whole_slice(t, ci, fn);
}

static void op_write(struct fz_thread *t)
{
	int ci = pick_card(t);
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);
	size_t len = rnd_len(t, max_xfer(c));
	uint64_t off = base + below(t, c->slice - len + 1);
	size_t at = below(t, FZ_HOST - len + 1), actual = 77;
	int ch = below(t, c->info.num_h2c), ret;

	for (size_t i = 0; i < len; i++)
		t->host[at + i] = (uint8_t)rnd(t);
	fz_log(t, "HelloFPGA_DMA_MM_WriteH2C(%s, ch %d, host+%zu, 0x%llx, 0x%zx)",
	       c->name, ch, at, (unsigned long long)off, len);
	ret = HelloFPGA_DMA_MM_WriteH2C(c->h, ch, t->host + at, off, len,
					&actual);
	if (!must_succeed(t, "HelloFPGA_DMA_MM_WriteH2C", ret, c->h))
		return;
	if (actual != len)
		fz_fail(t, "WriteH2C: actual %zu, length %zu", actual, len);
	memcpy(t->shadow[ci] + (off - base), t->host + at, len);
	check_around(t, ci, off, len, "WriteH2C");
}

static void op_read(struct fz_thread *t)
{
	int ci = pick_card(t);
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);
	size_t len = rnd_len(t, max_xfer(c));
	uint64_t off = base + below(t, c->slice - len + 1);
	size_t at = below(t, FZ_HOST - len + 1), actual = 77;
	int ch = below(t, c->info.num_c2h), ret;
	bool guard = chance(t, 10);

	if (guard)	/* the guard: nobody writes it, it stays 0 */
		off = c->guard + below(t, c->info.ddr_size - c->guard - len + 1);
	fz_log(t, "HelloFPGA_DMA_MM_ReadC2H(%s, ch %d, host+%zu, 0x%llx, 0x%zx)",
	       c->name, ch, at, (unsigned long long)off, len);
	ret = HelloFPGA_DMA_MM_ReadC2H(c->h, ch, t->host + at, off, len,
				       &actual);
	if (!must_succeed(t, "HelloFPGA_DMA_MM_ReadC2H", ret, c->h))
		return;
	if (actual != len)
		fz_fail(t, "ReadC2H: actual %zu, length %zu", actual, len);
	for (size_t i = 0; i < len && !t->failed; i++) {
		uint8_t want = guard ? 0 : t->shadow[ci][off - base + i];

		if (t->host[at + i] != want)
			fz_fail(t, "ReadC2H: byte 0x%llx read 0x%02x, expected 0x%02x",
				(unsigned long long)(off + i), t->host[at + i],
				want);
	}
	if (!guard)
		check_around(t, ci, off, len, "ReadC2H");
}

/*
 * Host memory the process may not use (P_BAD_HOST_PTR): unmapped,
 * PROT_NONE, or read-only for a read.  The API must say -EFAULT, and the
 * card must not change.
 */
static void op_bad_host_ptr(struct fz_thread *t)
{
	int ci = pick_card(t);
	const struct fz_card *c = &cards[ci];
	bool h2c = chance(t, 50);
	const char *fn = h2c ? "HelloFPGA_DMA_MM_WriteH2C" :
			       "HelloFPGA_DMA_MM_ReadC2H";
	int kind = below(t, 3), ret;
	size_t len = 1 + below(t, 8192), actual = 0;
	uint64_t off = slice_base(c, t->id);
	uint8_t *p;

	if (kind == 0) {
		/*
		 * Below vm.mmap_min_addr (64 KiB): never mapped.  A buffer
		 * unmapped here could be mapped again by another thread
		 * before the call, which would then write into it.
		 */
		p = (uint8_t *)(uintptr_t)(0x1000 + below(t, 0x4000));
	} else {
		p = mmap(NULL, 16384, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		mprotect(p, 16384, kind == 1 ? PROT_NONE : PROT_READ);
	}
	fz_log(t, "%s(%s, %s buffer %p, 0x%llx, 0x%zx)", fn, c->name,
	       kind == 0 ? "unmapped" : kind == 1 ? "PROT_NONE" : "read-only",
	       p, (unsigned long long)off, len);
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(c->h, 0, p, off, len, &actual);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(c->h, 0, p, off, len, &actual);
	if (kind)
		munmap(p, 16384);
	if (!doc_ok(t, fn, ret))
		return;
	if (kind == 2 && h2c) {		/* reading read-only memory is fine */
		if (must_succeed(t, fn, ret, c->h)) {
			memset(t->shadow[ci], 0, len);
			check_around(t, ci, off, len, fn);
		}
		return;
	}
	if (ret != -EFAULT)
		fz_fail(t, "%s on a %s buffer returned %d, expected -EFAULT",
			fn, kind == 0 ? "unmapped" : kind == 1 ? "PROT_NONE" :
			"read-only", ret);
	check_whole_slice(t, ci, fn);
}

/* ---- GPU memory of a thread ---- */

static bool gpu_alloc(struct fz_thread *t, int g)
{
	void *p = NULL;
	int ret;

	fz_log(t, "HelloFPGA_GPU_Alloc(%u)", FZ_GPU_SIZE);
	ret = HelloFPGA_GPU_Alloc(&p, FZ_GPU_SIZE);
	if (!must_succeed(t, "HelloFPGA_GPU_Alloc", ret, NULL))
		return false;
	for (size_t i = 0; i < FZ_GPU_SIZE; i++)
		t->g[g].copy[i] = (uint8_t)rnd(t);
	ret = HelloFPGA_GPU_Memcpy(p, t->g[g].copy, FZ_GPU_SIZE,
				   HELLOFPGA_MEMCPY_HOST_TO_GPU);
	if (!must_succeed(t, "HelloFPGA_GPU_Memcpy", ret, NULL))
		return false;
	t->g[g].gpu = p;
	return true;
}

/* The GPU buffer @g holds its copy in [@off, @off + @len). */
static bool check_gpu(struct fz_thread *t, int g, size_t off, size_t len,
		      const char *after)
{
	uint8_t *tmp = t->host;	/* scratch: FZ_HOST >= FZ_GPU_SIZE */
	int ret;

	ret = HelloFPGA_GPU_Memcpy(tmp, t->g[g].gpu + off, len,
				   HELLOFPGA_MEMCPY_GPU_TO_HOST);
	if (!must_succeed(t, "HelloFPGA_GPU_Memcpy", ret, NULL))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (tmp[i] != t->g[g].copy[off + i]) {
			fz_fail(t, "%s: GPU buffer %d byte 0x%zx is 0x%02x, expected 0x%02x",
				after, g, off + i, tmp[i],
				t->g[g].copy[off + i]);
			return false;
		}
	}
	return true;
}

static void drop_pins_of(struct fz_thread *t, int g)
{
	for (int i = 0; i < FZ_NPINS; i++)
		if (t->pins[i].h && t->pins[i].g == g)
			t->pins[i].revoked = true;
}

static void gpu_free(struct fz_thread *t, int g)
{
	int ret;

	fz_log(t, "HelloFPGA_GPU_Free(GPU buffer %d %p)", g, t->g[g].gpu);
	ret = HelloFPGA_GPU_Free(t->g[g].gpu);
	must_succeed(t, "HelloFPGA_GPU_Free", ret, NULL);
	t->g[g].gpu = NULL;
	drop_pins_of(t, g);
}

/* GPU_Alloc / Free / Memcpy with good and bad arguments. */
static void op_gpu_mem(struct fz_thread *t)
{
	int g = below(t, FZ_NGPU), ret;
	void *p = (void *)1;
	size_t n;

	if (!t->g[g].gpu) {
		gpu_alloc(t, g);
		return;
	}
	switch (below(t, 9)) {
	case 0:
		fz_log(t, "HelloFPGA_GPU_Alloc(NULL, 4096)");
		must_fail(t, "HelloFPGA_GPU_Alloc",
			  HelloFPGA_GPU_Alloc(NULL, 4096));
		break;
	case 1:
		fz_log(t, "HelloFPGA_GPU_Alloc(&p, 0)");
		must_fail(t, "HelloFPGA_GPU_Alloc", HelloFPGA_GPU_Alloc(&p, 0));
		break;
	case 2:
		n = chance(t, 50) ? SIZE_MAX : (1ull << 62);
		fz_log(t, "HelloFPGA_GPU_Alloc(&p, 0x%zx)", n);
		must_fail(t, "HelloFPGA_GPU_Alloc", HelloFPGA_GPU_Alloc(&p, n));
		break;
	case 3:
		fz_log(t, "HelloFPGA_GPU_Free(inside GPU buffer %d)", g);
		must_fail(t, "HelloFPGA_GPU_Free",
			  HelloFPGA_GPU_Free(t->g[g].gpu + 4096 *
					     (1 + below(t, 8))));
		break;
	case 4:
		fz_log(t, "HelloFPGA_GPU_Free(host memory)");
		must_fail(t, "HelloFPGA_GPU_Free",
			  HelloFPGA_GPU_Free(t->host + 4096));
		break;
	case 5:
		fz_log(t, "HelloFPGA_GPU_Free(NULL)");
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(NULL),
			     NULL);
		break;
	case 6: {
		int kind = chance(t, 50) ? 0 : (chance(t, 50) ? 3 : INT_MIN);

		fz_log(t, "HelloFPGA_GPU_Memcpy(kind %d)", kind);
		ret = HelloFPGA_GPU_Memcpy(t->g[g].gpu, t->host, 64, kind);
		must_fail(t, "HelloFPGA_GPU_Memcpy", ret);
		break;
	}
	case 7:
		/* across the end of the allocation, or NULL */
		n = FZ_GPU_SIZE - 1 - below(t, 64);
		fz_log(t, "HelloFPGA_GPU_Memcpy(GPU buffer %d + 0x%zx, 4096) or NULL",
		       g, n);
		ret = chance(t, 50) ?
		      HelloFPGA_GPU_Memcpy(t->host, t->g[g].gpu + n, 4096,
					   HELLOFPGA_MEMCPY_GPU_TO_HOST) :
		      HelloFPGA_GPU_Memcpy(NULL, t->host, 16,
					   HELLOFPGA_MEMCPY_HOST_TO_GPU);
		must_fail(t, "HelloFPGA_GPU_Memcpy", ret);
		break;
	default:
		n = below(t, FZ_GPU_SIZE);
		fz_log(t, "check GPU buffer %d from 0x%zx", g, n);
		check_gpu(t, g, n, FZ_GPU_SIZE - n, "GPU_Memcpy");
		break;
	}
}

/* ---- GPU Direct ---- */

static struct fz_pin *free_pin(struct fz_thread *t)
{
	for (int i = 0; i < FZ_NPINS; i++)
		if (!t->pins[i].h)
			return &t->pins[i];
	return NULL;
}

static void op_pin(struct fz_thread *t)
{
	int ci = pick_card(t), g = below(t, FZ_NGPU), ret;
	const struct fz_card *c = &cards[ci];
	struct fz_pin *p = free_pin(t);
	HELLOFPGA_GPU_HANDLE gh = 0;
	size_t off, size;

	if (!t->g[g].gpu && !gpu_alloc(t, g))
		return;
	off = 4096 * below(t, FZ_GPU_SIZE / 4096);
	size = 4096 * (1 + below(t, (FZ_GPU_SIZE - off) / 4096));
	if (!p || chance(t, 25)) {
		/* bad: unaligned, size 0 or odd, past the buffer, host, NULL */
		static const char *const what[] = {
			"unaligned address", "unaligned size", "size 0",
			"host memory", "NULL buffer", "NULL handle pointer",
			"bad card handle", "past the allocation",
		};
		void *addr = t->g[g].gpu + off;
		HELLOFPGA_HANDLE h = c->h;
		HELLOFPGA_GPU_HANDLE *out = &gh;
		int k = below(t, ARRAY_SIZE(what));

		switch (k) {
		case 0:
			addr = (uint8_t *)addr + 1 + below(t, 4095);
			break;
		case 1:
			size += 1 + below(t, 4095);
			break;
		case 2:
			size = 0;
			break;
		case 3:
			addr = (void *)ALIGN((uintptr_t)t->host, 4096);
			size = 4096;
			break;
		case 4:
			addr = NULL;
			break;
		case 5:
			out = NULL;
			break;
		case 6:
			h = chance(t, 50) ? NULL : BOGUS;
			break;
		default:
			size = FZ_GPU_SIZE - off + 4096;
			break;
		}
		fz_log(t, "HelloFPGA_GPUDirect_Pin(%s, %p, 0x%zx): %s", c->name,
		       addr, size, what[k]);
		ret = HelloFPGA_GPUDirect_Pin(h, addr, size, out);
		if (must_fail(t, "HelloFPGA_GPUDirect_Pin", ret) && gh)
			fz_fail(t, "GPUDirect_Pin failed (%d) but set a handle",
				ret);
		return;
	}
	fz_log(t, "HelloFPGA_GPUDirect_Pin(%s, GPU buffer %d + 0x%zx, 0x%zx)",
	       c->name, g, off, size);
	ret = HelloFPGA_GPUDirect_Pin(c->h, t->g[g].gpu + off, size, &gh);
	if (!must_succeed(t, "HelloFPGA_GPUDirect_Pin", ret, c->h))
		return;
	if (!gh) {
		fz_fail(t, "GPUDirect_Pin returned handle 0");
		return;
	}
	*p = (struct fz_pin){ .h = gh, .card = ci, .g = g, .off = off,
			      .size = size };
}

static void op_unpin(struct fz_thread *t)
{
	struct fz_pin *p = &t->pins[below(t, FZ_NPINS)];
	int ret;

	if (!p->h || chance(t, 20)) {
		/* never pinned, 0, another card's or random handles */
		const struct fz_card *c = &cards[pick_card(t)];
		HELLOFPGA_GPU_HANDLE gh = chance(t, 30) ? 0 : rnd(t);

		if (p->h && p->card != c - cards)
			gh = p->h;
		fz_log(t, "HelloFPGA_GPUDirect_Unpin(%s, 0x%llx): not pinned there",
		       c->name, (unsigned long long)gh);
		must_fail(t, "HelloFPGA_GPUDirect_Unpin",
			  HelloFPGA_GPUDirect_Unpin(chance(t, 10) ? NULL : c->h,
						    gh));
		return;
	}
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(%s, 0x%llx)", cards[p->card].name,
	       (unsigned long long)p->h);
	ret = HelloFPGA_GPUDirect_Unpin(cards[p->card].h, p->h);
	must_succeed(t, "HelloFPGA_GPUDirect_Unpin", ret, cards[p->card].h);
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(again)");
	must_fail(t, "HelloFPGA_GPUDirect_Unpin",
		  HelloFPGA_GPUDirect_Unpin(cards[p->card].h, p->h));
	p->h = 0;
}

/* Free the GPU buffer of a pin: its later transfers are -ENXIO. */
static void op_free_pinned(struct fz_thread *t)
{
	struct fz_pin *p = &t->pins[below(t, FZ_NPINS)];

	if (!p->h || p->revoked || !t->g[p->g].gpu)
		return;
	gpu_free(t, p->g);
}

static void op_xfer(struct fz_thread *t)
{
	struct fz_pin *p = &t->pins[below(t, FZ_NPINS)];
	const struct fz_card *c;
	bool h2c = chance(t, 50), valid_ch, bad = chance(t, 20);
	int dir = h2c ? HELLOFPGA_DIR_H2C : HELLOFPGA_DIR_C2H;
	uint64_t base, card_addr;
	size_t bo, len, actual = 77, align;
	int ch, ret, variant = below(t, 4), timeout = 0;
	const char *fn;

	if (!p->h)
		return;
	c = &cards[p->card];
	align = c->info.addr_align;
	base = slice_base(c, t->id);
	ch = rnd_channel(t, h2c ? c->info.num_h2c : c->info.num_c2h,
			 &valid_ch);
	len = rnd_len(t, p->size < c->slice ? p->size : c->slice);
	bo = variant >= 2 ? below(t, p->size - len + 1) : 0;
	card_addr = base + below(t, c->slice - len + 1);
	if (align > 1) {
		len = ALIGN_DOWN(len, align);
		bo = ALIGN_DOWN(bo, align);
		card_addr = ALIGN_DOWN(card_addr, align);
	}
	if (variant == 3 && !len)
		variant = 2;	/* a submission moves at least one byte */
	if (bad) {
		switch (below(t, 6)) {
		case 0:
			card_addr = c->info.ddr_size - len / 2;
			len = len ? len : 1;
			break;
		case 1:
			card_addr = UINT64_MAX - below(t, 100);
			len = 4096;
			break;
		case 2:
			dir = chance(t, 50) ? 2 : -1;
			variant = 2;
			break;
		case 3:
			timeout = 3600001 + below(t, 1000);
			break;
		case 4:
			variant = 2;
			bo = p->size - below(t, 4096);
			len = 8192;
			break;
		default:
			ch = -1;
			valid_ch = false;
			break;
		}
	} else if (chance(t, 20)) {
		timeout = chance(t, 50) ? -1 : 1000 + below(t, 5000);
	}
	if (variant == 0) {
		fn = h2c ? "HelloFPGA_GPUDirect_WriteH2C" :
			   "HelloFPGA_GPUDirect_ReadC2H";
		fz_log(t, "%s(%s, ch %d, 0x%llx, 0x%llx, 0x%zx, %d ms)%s", fn,
		       c->name, ch, (unsigned long long)p->h,
		       (unsigned long long)card_addr, len, timeout,
		       p->revoked ? " revoked" : "");
		ret = h2c ? HelloFPGA_GPUDirect_WriteH2C(c->h, ch, p->h,
							  card_addr, len,
							  timeout) :
			    HelloFPGA_GPUDirect_ReadC2H(c->h, ch, p->h,
							card_addr, len,
							timeout);
		actual = ret ? 0 : len;
	} else if (variant == 3) {
		/* queued, then its result: as an Xfer's */
		HELLOFPGA_SUBMISSION sub;

		fn = "HelloFPGA_GPUDirect_Submit";
		fz_log(t, "%s(%s, ch %d, 0x%llx, +0x%zx, 0x%llx, 0x%zx, dir %d, %d ms)%s",
		       fn, c->name, ch, (unsigned long long)p->h, bo,
		       (unsigned long long)card_addr, len, dir, timeout,
		       p->revoked ? " revoked" : "");
		ret = HelloFPGA_GPUDirect_Submit(c->h, ch, p->h, bo, card_addr,
						 len, dir, NULL, 0, timeout,
						 &sub);
		actual = 0;
		if (!ret) {
			if (!doc_ok(t, fn, ret))
				return;
			fn = "HelloFPGA_GPUDirect_Complete";
			ret = HelloFPGA_GPUDirect_Complete(c->h, sub.ticket, -1,
							   &actual);
			/* completed again later, also through other handles */
			if (part_on[P_SUBMIT])
				ticket_add(c->h, sub.ticket, TK_MM);
		}
	} else {
		fn = "HelloFPGA_GPUDirect_Xfer";
		fz_log(t, "%s(%s, ch %d, 0x%llx, +0x%zx, 0x%llx, 0x%zx, dir %d, %d ms)%s",
		       fn, c->name, ch, (unsigned long long)p->h, bo,
		       (unsigned long long)card_addr, len, dir, timeout,
		       p->revoked ? " revoked" : "");
		ret = HelloFPGA_GPUDirect_Xfer(c->h, ch, p->h, bo, card_addr,
					       len, dir, timeout, &actual);
	}
	if (!doc_ok(t, fn, ret))
		return;
	if (bad || !valid_ch) {
		if (ret >= 0 && len)
			fz_fail(t, "%s: bad arguments, returned %d", fn, ret);
		if (ret < 0 && actual)
			fz_fail(t, "%s: rejected (%d), but actual is %zu", fn,
				ret, actual);
		check_whole_slice(t, p->card, fn);
		return;
	}
	if (p->revoked) {
		if (len && ret != -ENXIO)
			fz_fail(t, "%s on freed pinned memory: %d, not -ENXIO",
				fn, ret);
		check_whole_slice(t, p->card, fn);
		return;
	}
	if (!must_succeed(t, fn, ret, c->h))
		return;
	if (actual != len)
		fz_fail(t, "%s: actual %zu, length %zu", fn, actual, len);
	if (h2c) {
		memcpy(t->shadow[p->card] + (card_addr - base),
		       t->g[p->g].copy + p->off + bo, len);
		check_around(t, p->card, card_addr, len, fn);
	} else {
		memcpy(t->g[p->g].copy + p->off + bo,
		       t->shadow[p->card] + (card_addr - base), len);
		check_gpu(t, p->g, p->off + bo, len, fn);
	}
}

/* ---- TransferMode ---- */

static void op_transfer_mode(struct fz_thread *t)
{
	int ci = pick_card(t), g = below(t, FZ_NGPU), ret;
	const struct fz_card *c = &cards[ci];
	int mode;

	if (!t->g[g].gpu && !gpu_alloc(t, g))
		return;
	switch (below(t, 5)) {
	case 0:
		fz_log(t, "HelloFPGA_SetGPUBuffer(%s, GPU buffer %d)", c->name,
		       g);
		ret = HelloFPGA_SetGPUBuffer(c->h, t->g[g].gpu, FZ_GPU_SIZE);
		must_succeed(t, "HelloFPGA_SetGPUBuffer", ret, c->h);
		break;
	case 1:
		fz_log(t, "HelloFPGA_SetGPUBuffer(%s, NULL)", c->name);
		ret = HelloFPGA_SetGPUBuffer(c->h, NULL, 0);
		must_succeed(t, "HelloFPGA_SetGPUBuffer", ret, c->h);
		break;
	case 2: {
		void *bad = chance(t, 50) ? t->g[g].gpu + 1 :
			    (void *)ALIGN((uintptr_t)t->host, 4096);

		fz_log(t, "HelloFPGA_SetGPUBuffer(%s, %p: unaligned or host)",
		       c->name, bad);
		ret = HelloFPGA_SetGPUBuffer(chance(t, 10) ? BOGUS : c->h, bad,
					     4096);
		must_fail(t, "HelloFPGA_SetGPUBuffer", ret);
		break;
	}
	default:
		mode = chance(t, 80) ? (int)below(t, 2) :
		       (chance(t, 50) ? 2 : INT_MIN);
		fz_log(t, "HelloFPGA_SetTransferMode(%s, %d)", c->name, mode);
		ret = HelloFPGA_SetTransferMode(c->h, mode);
		if (!doc_ok(t, "HelloFPGA_SetTransferMode", ret))
			break;
		if (mode > 1 || mode < 0)
			must_fail(t, "HelloFPGA_SetTransferMode", ret);
		break;
	}
}

/*
 * DMA_MM with a buffer inside one of the thread's GPU buffers: GPU Direct
 * when it is the registered one in GPU_PINNED mode, else refused (device
 * memory on the CPU path) or the GPU Direct errors; either way, on
 * success the data moved.
 */
static void op_dma_gpu(struct fz_thread *t)
{
	int ci = pick_card(t), g = below(t, FZ_NGPU), ch, ret;
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);
	size_t len, bo, actual = 0, a = c->info.addr_align;
	uint64_t off;
	bool h2c = chance(t, 50);
	const char *fn = h2c ? "HelloFPGA_DMA_MM_WriteH2C" :
			       "HelloFPGA_DMA_MM_ReadC2H";

	if (!t->g[g].gpu)
		return;
	len = rnd_len(t, max_xfer(c));
	bo = below(t, FZ_GPU_SIZE - len + 1);
	off = base + below(t, c->slice - len + 1);
	if (a > 1 && chance(t, 80)) {
		len = ALIGN_DOWN(len, a);
		bo = ALIGN_DOWN(bo, a);
		off = ALIGN(off, a);
		if (off + len > base + c->slice)
			off -= a;
	}
	if (len && chance(t, 10))	/* straddles the end: starts inside */
		bo = FZ_GPU_SIZE - 1 - below(t, len);
	ch = below(t, h2c ? c->info.num_h2c : c->info.num_c2h);
	fz_log(t, "%s(%s, ch %d, GPU buffer %d + 0x%zx, 0x%llx, 0x%zx)", fn,
	       c->name, ch, g, bo, (unsigned long long)off, len);
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(c->h, ch, t->g[g].gpu + bo, off,
						len, &actual);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(c->h, ch, t->g[g].gpu + bo, off,
					       len, &actual);
	if (!doc_ok(t, fn, ret))
		return;
	if (ret < 0 || bo + len > FZ_GPU_SIZE) {
		if (ret >= 0 && len)
			fz_fail(t, "%s: a buffer straddling the GPU buffer's end succeeded",
				fn);
		check_whole_slice(t, ci, fn);
		return;
	}
	if (actual != len)
		fz_fail(t, "%s: actual %zu, length %zu", fn, actual, len);
	if (h2c) {
		memcpy(t->shadow[ci] + (off - base), t->g[g].copy + bo, len);
		check_around(t, ci, off, len, fn);
	} else {
		memcpy(t->g[g].copy + bo, t->shadow[ci] + (off - base), len);
		check_gpu(t, g, bo, len, fn);
	}
}

/* ---- everything else ---- */

/* A getter call of op_info(): on card c, with its handle or a bad one. */
struct fz_getter {
	struct fz_thread *t;
	const struct fz_card *c;
	HELLOFPGA_HANDLE h;	/* c->h, NULL or BOGUS */
	bool good;		/* h is c->h */
	bool nul;		/* the result pointer is NULL */
};

/* Log getter @fn of @g before it is called; @arg names its result. */
static void getter_log(const struct fz_getter *g, const char *fn,
		       const char *arg)
{
	fz_log(g->t, "%s(%s, %s)", fn, g->good ? g->c->name : "bad",
	       g->nul ? "NULL" : arg);
}

/*
 * A getter's result: success with a good handle and pointer (true), else
 * one of its documented errors (false).
 */
static bool getter_ok(const struct fz_getter *g, const char *fn, int ret)
{
	if (g->good && !g->nul)
		return must_succeed(g->t, fn, ret, g->h);
	must_fail(g->t, fn, ret);
	return false;
}

/*
 * Log, call and check getter FN of struct fz_getter @g into @res (NULL when
 * @g->nul), @name naming @res in the log; true when it succeeded.
 */
#define CALL_GETTER(g, fn, res, name)					\
	(getter_log(g, #fn, name),					\
	 getter_ok(g, #fn, fn((g)->h, (g)->nul ? NULL : (res))))

static void op_info(struct fz_thread *t)
{
	const struct fz_card *c = &cards[pick_card(t)];
	HELLOFPGA_HANDLE h = chance(t, 15) ? (chance(t, 50) ? NULL : BOGUS) :
			     c->h;
	bool good = h == c->h, nul = chance(t, 15);
	const struct fz_getter g = {
		.t = t, .c = c, .h = h, .good = good, .nul = nul,
	};
	HELLOFPGA_INFO info;
	HELLOFPGA_PCI_INFO pci;
	HELLOFPGA_COUNTERS cnt;
	HELLOFPGA_DMA_FAULTS f;
	HELLOFPGA_GPU_STATUS st;
	HELLOFPGA_LINK_MODEL lm;
	const char *s;
	int ret, v;

	switch (below(t, 10)) {
	case 0:
		if (CALL_GETTER(&g, HelloFPGA_GetInfo, &info, "&info") &&
		    (info.ddr_size != c->info.ddr_size ||
		     info.num_h2c != c->info.num_h2c))
			fz_fail(t, "GetInfo: the card changed");
		break;
	case 1:
		CALL_GETTER(&g, HelloFPGA_GetPCIInfo, &pci, "&pci");
		break;
	case 2:
		CALL_GETTER(&g, HelloFPGA_GetCounters, &cnt, "&c");
		break;
	case 3:
		if (CALL_GETTER(&g, HelloFPGA_GetDMAFaults, &f, "&f") &&
		    f.faults)
			fz_fail(t, "GetDMAFaults: %llu faults",
				(unsigned long long)f.faults);
		break;
	case 4: {
		static const int bad[] = { 0, -1, INT_MIN, INT_MAX, 3600001 };

		v = chance(t, 60) ? 1000 + (int)below(t, 9000) :
		    bad[below(t, ARRAY_SIZE(bad))];
		fz_log(t, "HelloFPGA_SetTimeout(%s, %d)",
		       good ? c->name : "bad", v);
		ret = HelloFPGA_SetTimeout(h, v);
		if (good && v >= 1 && v <= 3600000)
			must_succeed(t, "HelloFPGA_SetTimeout", ret, h);
		else
			must_fail(t, "HelloFPGA_SetTimeout", ret);
		break;
	}
	case 5:
		v = chance(t, 50) ? -(int)below(t, 5000) : (int)rnd(t);
		fz_log(t, "HelloFPGA_StrError(%d)", v);
		s = HelloFPGA_StrError(v);
		if (!s || !*s)
			fz_fail(t, "StrError(%d) is empty", v);
		break;
	case 6:
		fz_log(t, "HelloFPGA_GetLastError(%s)", good ? c->name : "bad");
		s = HelloFPGA_GetLastError(h);
		if (!s)
			fz_fail(t, "GetLastError is NULL");
		break;
	case 7:
		fz_log(t, "HelloFPGA_GetGPUStatus(%s)", nul ? "NULL" : "&st");
		ret = HelloFPGA_GetGPUStatus(nul ? NULL : &st);
		if (nul)
			must_fail(t, "HelloFPGA_GetGPUStatus", ret);
		else if (must_succeed(t, "HelloFPGA_GetGPUStatus", ret, NULL) &&
			 !st.supported)
			fz_fail(t, "GetGPUStatus: the emulated GPU is gone");
		break;
	case 8:
		if (CALL_GETTER(&g, HelloFPGA_GetLinkModel, &lm, "&lm") &&
		    lm.enabled)
			fz_fail(t, "GetLinkModel: a link model on %s", c->name);
		break;
	default:
		fz_log(t, "HelloFPGA_Version()");
		s = HelloFPGA_Version();
		if (!s || strcmp(s, HELLOFPGA_VERSION_STRING))
			fz_fail(t, "Version is '%s'", s ? s : "(null)");
		break;
	}
}

static void op_user_irq(struct fz_thread *t);

/* The user BAR: scratch and RAM (the thread's own word), bad offsets. */
static void op_user(struct fz_thread *t)
{
	const struct fz_card *c = &cards[pick_card(t)];
	uint32_t own = HF_USER_RAM + 4 * t->id, v = 0, val = (uint32_t)rnd(t);
	int ret;

	switch (below(t, 6)) {
	case 0:
	case 1:
		fz_log(t, "HelloFPGA_UserWrite32/Read32(%s, 0x%x)", c->name,
		       own);
		ret = HelloFPGA_UserWrite32(c->h, own, val);
		if (!must_succeed(t, "HelloFPGA_UserWrite32", ret, c->h))
			break;
		ret = HelloFPGA_UserRead32(c->h, own, &v);
		if (must_succeed(t, "HelloFPGA_UserRead32", ret, c->h) &&
		    v != val)
			fz_fail(t, "user RAM 0x%x: wrote 0x%x, read 0x%x", own,
				val, v);
		break;
	case 2: {
		uint32_t off = 4 * below(t, HF_USER_BAR_SIZE / 4);

		fz_log(t, "HelloFPGA_UserRead32(%s, 0x%x)", c->name, off);
		ret = HelloFPGA_UserRead32(c->h, off, &v);
		must_succeed(t, "HelloFPGA_UserRead32", ret, c->h);
		break;
	}
	case 3: {
		uint32_t off = chance(t, 50) ? 4 * below(t, 1024) + 1 +
			       below(t, 3) : HF_USER_BAR_SIZE + (uint32_t)rnd(t) %
			       (UINT32_MAX - HF_USER_BAR_SIZE);

		fz_log(t, "HelloFPGA_UserWrite32(%s, 0x%x): bad offset",
		       c->name, off);
		must_fail(t, "HelloFPGA_UserWrite32",
			  HelloFPGA_UserWrite32(c->h, off, val));
		fz_log(t, "HelloFPGA_UserRead32(%s, 0x%x): bad offset",
		       c->name, off);
		must_fail(t, "HelloFPGA_UserRead32",
			  HelloFPGA_UserRead32(c->h, off, &v));
		break;
	}
	case 4:
		fz_log(t, "HelloFPGA_UserRead32(%s, 0, NULL)", c->name);
		must_fail(t, "HelloFPGA_UserRead32",
			  HelloFPGA_UserRead32(c->h, 0, NULL));
		break;
	default:
		fz_log(t, "HelloFPGA_UserWrite32/Read32(bad handle)");
		must_fail(t, "HelloFPGA_UserWrite32",
			  HelloFPGA_UserWrite32(BOGUS, HF_USER_SCRATCH, val));
		must_fail(t, "HelloFPGA_UserRead32",
			  HelloFPGA_UserRead32(NULL, HF_USER_ID, &v));
		break;
	}
	if (part_on[P_USER_IRQ] && chance(t, 20))
		op_user_irq(t);
}

/* A random card name, mostly near the grammar; shared ones the thread's. */
static void rnd_name(struct fz_thread *t, char *buf, size_t len)
{
	static const char *const pfx[] = {
		"emu", "emu:", "emu,", "", "/dev/hellofpga", "/dev/hellofpga0",
		"emulator", "EMU", "emu::", "/dev/hellofpga01",
	};
	static const char *const nums[] = {
		"0", "7", "9999", "10000", "010", "0x10", " 1", "-1", "", "1K",
		"18446744073709551616", "0x",
	};
	static const char *const opts[] = {
		"sync", "h2c=1", "h2c=5", "c2h=0", "c2h=4", "ddr=64K",
		"ddr=4095", "ddr=1000", "ddr=0x10000", "ddr=16777216T",
		"align=64", "align=3", "irq=poll", "irq=msi", "irq=fast",
		"link=gen3x4", "mps=0x200", "mps=300", "desc_ns=5", "colour=blue",
		"h2c= 2", "", "ddr=010M", "private=1", "link=gen9x1",
		"mps=4K",
	};
	bool private = chance(t, 80) || !part_on[P_SHARED_OPEN];
	size_t n = 0;
	int k = below(t, ARRAY_SIZE(pfx));

	n += snprintf(buf + n, len - n, "%s", pfx[k]);
	if (k == 1) {
		if (!private && chance(t, 70))
			n += snprintf(buf + n, len - n, "%d",
				      part_on[P_SHARED_OPEN] ? 100 :
				      100 + t->id);
		else
			n += snprintf(buf + n, len - n, "%s",
				      nums[below(t, ARRAY_SIZE(nums))]);
	}
	for (int i = below(t, 4); i > 0 && n < len - 32; i--)
		n += snprintf(buf + n, len - n, ",%s",
			      opts[below(t, ARRAY_SIZE(opts))]);
	/*
	 * A shared card (it lives in HELLOFPGA_EMU_DIR) always of 64 KiB:
	 * threads opening one card number at once then agree on its size
	 * (unless P_SHARED_OPEN).
	 */
	if (private || k != 1)
		snprintf(buf + n, len - n, ",private");
	else
		snprintf(buf + n, len - n, ",ddr=%s",
			 part_on[P_SHARED_OPEN] && chance(t, 50) ? "128K" :
			 "64K");
}

static void op_open(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h = NULL;
	HELLOFPGA_INFO info;
	char name[256];
	uint8_t b[16], r[16];
	int ret;

	if (chance(t, 10)) {
		fz_log(t, "HelloFPGA_Open(emu,private, NULL)");
		must_fail(t, "HelloFPGA_Open",
			  HelloFPGA_Open("emu,private", NULL));
		fz_log(t, "HelloFPGA_Close(bad handle)");
		must_fail(t, "HelloFPGA_Close",
			  HelloFPGA_Close(chance(t, 50) ? NULL : BOGUS));
		return;
	}
	rnd_name(t, name, sizeof(name));
	fz_log(t, "HelloFPGA_Open(\"%s\")", name);
	ret = HelloFPGA_Open(name, &h);
	if (!doc_ok(t, "HelloFPGA_Open", ret))
		return;
	if (ret < 0) {
		if (!HelloFPGA_GetLastError(NULL)[0])
			fz_fail(t, "Open(\"%s\") failed (%d) without a text",
				name, ret);
		return;
	}
	/* private cards: a round trip of 16 bytes; then Close */
	if (must_succeed(t, "HelloFPGA_GetInfo", HelloFPGA_GetInfo(h, &info),
			 h) && strstr(name, ",private") &&
	    !strcmp(strstr(name, ",private"), ",private")) {
		for (int i = 0; i < 16; i++)
			b[i] = (uint8_t)rnd(t);
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, b, 0, 16, NULL);
		if (must_succeed(t, "HelloFPGA_DMA_MM_WriteH2C", ret, h)) {
			ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, r, 0, 16, NULL);
			if (must_succeed(t, "HelloFPGA_DMA_MM_ReadC2H", ret,
					 h) && memcmp(b, r, 16))
				fz_fail(t, "Open(\"%s\"): round trip differs",
					name);
		}
	}
	fz_log(t, "HelloFPGA_Close(\"%s\")", name);
	must_succeed(t, "HelloFPGA_Close", HelloFPGA_Close(h), NULL);
}

/* P_CLOSED_HANDLE: every handle function on a handle after its Close. */
static void op_closed_handle(struct fz_thread *t)
{
	HELLOFPGA_LINK_MODEL lm;
	uint8_t b[16] = { 0 };
	HELLOFPGA_INFO info;
	uint32_t v;

	if (!t->closed) {
		if (HelloFPGA_Open("emu,private,ddr=64K", &t->closed))
			return;
		HelloFPGA_Close(t->closed);
	}
	fz_log(t, "calls on a closed handle");
	must_fail(t, "HelloFPGA_DMA_MM_WriteH2C",
		  HelloFPGA_DMA_MM_WriteH2C(t->closed, 0, b, 0, 16, NULL));
	must_fail(t, "HelloFPGA_DMA_MM_ReadC2H",
		  HelloFPGA_DMA_MM_ReadC2H(t->closed, 0, b, 0, 16, NULL));
	must_fail(t, "HelloFPGA_GetInfo", HelloFPGA_GetInfo(t->closed, &info));
	must_fail(t, "HelloFPGA_GetLinkModel",
		  HelloFPGA_GetLinkModel(t->closed, &lm));
	must_fail(t, "HelloFPGA_UserRead32",
		  HelloFPGA_UserRead32(t->closed, 0, &v));
	must_fail(t, "HelloFPGA_SetTimeout",
		  HelloFPGA_SetTimeout(t->closed, 1000));
	must_fail(t, "HelloFPGA_Close", HelloFPGA_Close(t->closed));
	(void)HelloFPGA_GetLastError(t->closed);
}

/*
 * P_CLOSE_RACE: transfers on a card that one thread closes and opens
 * again meanwhile; -EBADF (and only documented errors) while it is gone.
 */
static void op_close_race(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h;
	uint8_t b[4096];
	size_t len;
	int ret;

	pthread_mutex_lock(&race_lock);
	h = race_h;
	if (t->id == 0 && chance(t, 30)) {
		race_h = NULL;
		pthread_mutex_unlock(&race_lock);
		if (h) {
			fz_log(t, "HelloFPGA_Close(race card)");
			must_succeed(t, "HelloFPGA_Close", HelloFPGA_Close(h),
				     NULL);
		}
		fz_log(t, "HelloFPGA_Open(race card)");
		ret = HelloFPGA_Open(FZ_RACE_NAME, &h);
		if (must_succeed(t, "HelloFPGA_Open", ret, NULL)) {
			pthread_mutex_lock(&race_lock);
			race_h = h;
			pthread_mutex_unlock(&race_lock);
		}
		return;
	}
	pthread_mutex_unlock(&race_lock);
	if (!h)
		return;
	/*
	 * h may be closed by now: only documented errors.  Each thread's
	 * bytes of the first 4 KiB (a write and a read of the same card
	 * bytes by two threads at once race in the card's memory).
	 */
	len = ALIGN_DOWN(sizeof(b) / nthreads, 64);
	fz_log(t, "transfers on the race card");
	doc_ok(t, "HelloFPGA_DMA_MM_WriteH2C",
	       HelloFPGA_DMA_MM_WriteH2C(h, 0, b, len * t->id, len, NULL));
	doc_ok(t, "HelloFPGA_DMA_MM_ReadC2H",
	       HelloFPGA_DMA_MM_ReadC2H(h, 0, b, len * t->id, len, NULL));
}

/*
 * Faults the case expects (tests/dma_faults.c): those of the emulated
 * IOMMU against an engine that a short timeout left wedged.  The stop of a
 * timed-out run waits for the descriptor in progress only as long as the
 * link needs for it; when the engine thread is late (a loaded machine, a
 * sanitizer's slowdown) the run ends wedged, the emulated backend unmaps
 * the caller's buffer all the same (it is the caller's again: the emulated
 * IOMMU, not a pin, keeps the late engine out of it), and the engine's
 * next read of it is a fault, by design (backend_emu.c,
 * emu_engine_usable()).
 */
static uint64_t excused_faults;		/* atomic */

/*
 * After a run that ended wedged on @h: wait for its engine to go idle (a
 * transfer on the channel works again), then count the card's faults as
 * expected.
 */
static void short_timeout_wedged(struct fz_thread *t, HELLOFPGA_HANDLE h)
{
	HELLOFPGA_DMA_FAULTS f;
	uint8_t b = 0;
	int ret, i;

	must_succeed(t, "HelloFPGA_SetTimeout", HelloFPGA_SetTimeout(h, 1000),
		     h);
	for (i = 0; i < 10000; i++) {
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, &b, 0, 1, NULL);
		if (ret != -EIO)
			break;
		usleep(1000);
	}
	if (!must_succeed(t, "HelloFPGA_DMA_MM_WriteH2C", ret, h))
		return;
	ret = HelloFPGA_GetDMAFaults(h, &f);
	if (must_succeed(t, "HelloFPGA_GetDMAFaults", ret, h))
		__atomic_add_fetch(&excused_faults, f.faults, __ATOMIC_RELAXED);
}

/* P_SHORT_TIMEOUT: a big transfer under a timeout of a few ms. */
static void op_short_timeout(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h;
	size_t len = 4u << 20, actual = 0;
	uint8_t *buf;
	int ret;

	if (HelloFPGA_Open("emu,private,ddr=8M,link=gen1x1", &h))
		return;
	buf = calloc(1, len);
	if (!buf) {
		HelloFPGA_Close(h);
		return;
	}
	memset(buf, 0xa5, len);
	fz_log(t, "HelloFPGA_SetTimeout(1..20 ms), WriteH2C 4 MiB on Gen1 x1");
	must_succeed(t, "HelloFPGA_SetTimeout",
		     HelloFPGA_SetTimeout(h, 1 + below(t, 20)), h);
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, &actual);
	if (doc_ok(t, "HelloFPGA_DMA_MM_WriteH2C", ret) && ret &&
	    ret != -ETIMEDOUT)
		fz_fail(t, "short timeout: %d, expected 0 or -ETIMEDOUT", ret);
	if (actual > len || (!ret && actual != len)) {
		fz_fail(t, "short timeout: %d, actual %zu of %zu", ret, actual,
			len);
	} else {
		/* actual counts every byte that may have been written */
		const uint8_t *mem = xdma_model_card_mem(hf_emu_test_model(h));

		for (size_t i = actual; i < len; i++) {
			if (mem[i]) {
				fz_fail(t, "short timeout: %d, actual %zu, but byte 0x%zx was written",
					ret, actual, i);
				break;
			}
		}
	}
	if (ret == -ETIMEDOUT && strstr(HelloFPGA_GetLastError(h), "wedged"))
		short_timeout_wedged(t, h);
	free(buf);
	HelloFPGA_Close(h);
}

/* The race card's handle now (NULL while it is closed). */
static HELLOFPGA_HANDLE race_card(void)
{
	HELLOFPGA_HANDLE h;

	pthread_mutex_lock(&race_lock);
	h = race_h;
	pthread_mutex_unlock(&race_lock);
	return h;
}

/* ---- GPU streams of the emulated GPU, shared by the threads ---- */

/*
 * Two pools: streams that carry the stream rings' GPU waits and GPU
 * releases (and host functions), and streams that carry submissions'
 * doorbell writes and waits.  Kept apart so that a submission's start
 * never waits behind a ring's wait for a frame: a submission's GPU
 * operations then only depend on earlier submissions, and every
 * HelloFPGA_GPUDirect_Complete() ends.  Any thread destroys one now and
 * then while others use it.
 */
#define FZ_GS_WAIT	2
#define FZ_GS_SUB	2
#define FZ_GS		(FZ_GS_WAIT + FZ_GS_SUB)

static struct {
	pthread_mutex_t lock;
	void *s[FZ_GS];		/* NULL: none now */
	void *dead[FZ_GS];	/* the last one destroyed in each place */
} gsp = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A value that is never a GPU stream (its high bits are set). */
static void *made_up_gs(struct fz_thread *t)
{
	return (void *)(uintptr_t)(rnd(t) | 1ull << 63);
}

/*
 * A GPU stream of pool @sub (submissions) or of the stream waits, made if
 * need be, and its place in *@ip; NULL when none could be made.
 */
static void *gs_get(struct fz_thread *t, bool sub, int *ip)
{
	int i = sub ? FZ_GS_WAIT + (int)below(t, FZ_GS_SUB) :
		      (int)below(t, FZ_GS_WAIT);
	void *v;
	int ret = 0;

	pthread_mutex_lock(&gsp.lock);
	if (!gsp.s[i]) {
		void *made = NULL;

		fz_log(t, "HelloFPGA_GPU_StreamCreate(place %d)", i);
		ret = HelloFPGA_GPU_StreamCreate(&made);
		/* (read without the lock by fork()'s child and hammers) */
		__atomic_store_n(&gsp.s[i], ret ? NULL : made, __ATOMIC_RELAXED);
	}
	v = gsp.s[i];
	pthread_mutex_unlock(&gsp.lock);
	if (ret)
		must_succeed(t, "HelloFPGA_GPU_StreamCreate", ret, NULL);
	*ip = i;
	return v;
}

/* Is @v still the GPU stream in place @i (not destroyed)? */
static bool gs_current(int i, const void *v)
{
	bool r;

	pthread_mutex_lock(&gsp.lock);
	r = gsp.s[i] == v;
	pthread_mutex_unlock(&gsp.lock);
	return r;
}

/*
 * A GPU stream call on @v (place @i) returned @ret: -EINVAL only once @v
 * was destroyed; else documented.
 */
static bool gs_ret_ok(struct fz_thread *t, const char *fn, int ret, int i,
		      const void *v)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret == -EINVAL && gs_current(i, v)) {
		fz_fail(t, "%s: -EINVAL on a GPU stream not destroyed: %s", fn,
			HelloFPGA_GetLastError(NULL));
		return false;
	}
	return true;
}

static void fz_noop(void *arg)
{
	(void)arg;
}

/*
 * A host function after a GPU wait: reads the status word the wait was
 * on (HelloFPGA_GPU_WAIT.status).  The slots of a stream that was waited
 * on are never freed, so this reads live memory even after the stream
 * closed (a sanitizer reports it otherwise).
 */
static void fz_read_word(void *arg)
{
	uint32_t v = __atomic_load_n((const uint32_t *)arg, __ATOMIC_ACQUIRE);

	(void)v;
}

/*
 * P_GPU_STREAM: GPU_StreamCreate/Destroy/Synchronize/LaunchHostFunc with
 * good and bad arguments, a stream destroyed while other threads use it.
 */
static void op_gpu_stream(struct fz_thread *t)
{
	void *v, *bad;
	int i, ret;

	v = gs_get(t, chance(t, 50), &i);
	if (!v)
		return;
	switch (below(t, 6)) {
	case 0:
		pthread_mutex_lock(&gsp.lock);
		v = gsp.s[i];
		__atomic_store_n(&gsp.s[i], NULL, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&gsp.lock);
		if (!v)
			break;
		fz_log(t, "HelloFPGA_GPU_StreamDestroy(%p), then again", v);
		must_succeed(t, "HelloFPGA_GPU_StreamDestroy",
			     HelloFPGA_GPU_StreamDestroy(v), NULL);
		must_fail(t, "HelloFPGA_GPU_StreamDestroy",
			  HelloFPGA_GPU_StreamDestroy(v));
		/* a value for calls on a destroyed stream, once it is */
		pthread_mutex_lock(&gsp.lock);
		__atomic_store_n(&gsp.dead[i], v, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&gsp.lock);
		break;
	case 1: {
		int ms = (int)below(t, 6);

		fz_log(t, "HelloFPGA_GPU_StreamSynchronize(%p, %d)", v, ms);
		ret = HelloFPGA_GPU_StreamSynchronize(v, ms);
		gs_ret_ok(t, "HelloFPGA_GPU_StreamSynchronize", ret, i, v);
		break;
	}
	case 2:
		fz_log(t, "HelloFPGA_GPU_LaunchHostFunc(%p, noop)", v);
		ret = HelloFPGA_GPU_LaunchHostFunc(v, fz_noop, NULL);
		gs_ret_ok(t, "HelloFPGA_GPU_LaunchHostFunc", ret, i, v);
		break;
	case 3:
		fz_log(t, "HelloFPGA_GPU_LaunchHostFunc(%p, NULL)", v);
		must_fail(t, "HelloFPGA_GPU_LaunchHostFunc",
			  HelloFPGA_GPU_LaunchHostFunc(v, NULL, NULL));
		fz_log(t, "HelloFPGA_GPU_StreamSynchronize(%p, 3600001)", v);
		must_fail(t, "HelloFPGA_GPU_StreamSynchronize",
			  HelloFPGA_GPU_StreamSynchronize(v, 3600001));
		fz_log(t, "HelloFPGA_GPU_StreamCreate(NULL)");
		must_fail(t, "HelloFPGA_GPU_StreamCreate",
			  HelloFPGA_GPU_StreamCreate(NULL));
		break;
	default:
		pthread_mutex_lock(&gsp.lock);
		bad = chance(t, 60) ? gsp.dead[i] : NULL;
		pthread_mutex_unlock(&gsp.lock);
		if (!bad && chance(t, 80))
			bad = made_up_gs(t);
		fz_log(t, "HelloFPGA_GPU_Stream*(%p): destroyed, made up or NULL",
		       bad);
		must_fail(t, "HelloFPGA_GPU_StreamSynchronize",
			  HelloFPGA_GPU_StreamSynchronize(bad, 0));
		must_fail(t, "HelloFPGA_GPU_LaunchHostFunc",
			  HelloFPGA_GPU_LaunchHostFunc(bad, fz_noop, NULL));
		must_fail(t, "HelloFPGA_GPU_StreamDestroy",
			  HelloFPGA_GPU_StreamDestroy(bad));
		break;
	}
}

/* ---- the stream card and its streams, shared by the threads ---- */

/*
 * P_STREAM: an AXI-Stream card whose reference-design source sends
 * FZ_ST_FRAME-byte frames back to back on each of its C2H channels, and
 * a stream slot per channel that every thread uses: any thread opens a
 * stream there (a ring the library allocates, one in the fuzzer's host
 * memory, or one in a GPU Direct pin), waits on it, releases what some
 * thread holds (on the CPU or through a GPU stream), reads its counters,
 * enqueues GPU waits on it, frees the GPU memory under its ring, closes
 * it, while others are inside calls on it.  P_STREAM_CLOSE: a thread
 * closes the card under all that (H2C packets in flight, held up by a
 * hang of the card's engines of a few ms) and opens it again.
 *
 * Checks: a frame handed out is whole and as the source sent it, and
 * stays so while held (the card never writes a held buffer); no buffer is
 * handed out twice; -EBADF only once the stream or its card is being
 * closed; -EIO only from a ring whose GPU memory was freed; the calls of
 * a stream never block past their timeout (a Close that does not return
 * is a hang, see run()).
 */
#define FZ_ST_NAME	"emu:8,private,st,ddr=64K,h2c=2,c2h=4"
#define FZ_ST_CH	4
#define FZ_ST_FRAME	4096u
#define FZ_ST_MAXBUF	8

enum { RING_LIB, RING_HOST, RING_GPU };
enum { SL_EMPTY, SL_BUSY, SL_OPEN };

/**
 * struct fz_slot - the stream of one C2H channel of the stream card.
 * @lock: over all below
 * @state: SL_EMPTY, SL_BUSY (a thread opens or closes it), SL_OPEN
 * @s: the stream (SL_OPEN)
 * @h: the card's handle it was opened on
 * @gen: that card's generation (stc.gen): once the card's Close began,
 *	the stream is dead (its calls are -EBADF, its ring freed)
 * @bufs: its buffers
 * @bsize: their size
 * @held: bit i: buffer i was handed out and no thread has taken it to
 *	release it yet
 * @fseq: the sequence number of the frame in each held buffer
 * @fptr: where each held buffer is (host and library rings)
 * @ring: RING_*
 * @host: RING_HOST: the ring's memory (the fuzzer's)
 * @gpu: RING_GPU: the ring's GPU memory, NULL once freed under it
 * @gpu_off: the ring's offset in it
 * @pin: RING_GPU: the pin the ring lies in
 * @revoked: RING_GPU: its GPU memory was freed while the stream was open
 * @closed: the last stream closed here (for calls on a closed stream)
 */
struct fz_slot {
	pthread_mutex_t lock;
	int state;
	HELLOFPGA_STREAM s;
	HELLOFPGA_HANDLE h;
	uint64_t gen;
	uint32_t bufs;
	size_t bsize;
	uint64_t held;
	uint64_t fseq[FZ_ST_MAXBUF];
	const uint8_t *fptr[FZ_ST_MAXBUF];
	int ring;
	uint8_t *host;
	uint8_t *gpu;
	size_t gpu_off;
	HELLOFPGA_GPU_HANDLE pin;
	bool revoked;
	HELLOFPGA_STREAM closed;
};

static struct {
	pthread_mutex_t lock;
	HELLOFPGA_HANDLE h;	/* NULL while it is closed and opened again */
	uint64_t gen;		/* bumped when a Close of it begins */
	int closers;		/* atomic: a Close of it runs */
} stc = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct fz_slot slots[FZ_ST_CH];

/*
 * Rings whose stream's close found the engine wedged (-EIO: the card may
 * still write them): what the fuzzer gave them is freed after the cards
 * are closed.
 */
#define FZ_WEDGED	64
static struct {
	pthread_mutex_t lock;
	uint8_t *host[FZ_WEDGED];
	uint8_t *gpu[FZ_WEDGED];
	unsigned int n;
	unsigned int count;
} wedged = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Is the last error text of @h (or the thread's) that of a wedged engine? */
static bool is_wedged(HELLOFPGA_HANDLE h)
{
	return strstr(HelloFPGA_GetLastError(h), "wedged") ||
	       strstr(HelloFPGA_GetLastError(NULL), "wedged");
}

/* The stream card's handle and generation; NULL while it is closed. */
static HELLOFPGA_HANDLE st_card(uint64_t *gen)
{
	HELLOFPGA_HANDLE h;

	pthread_mutex_lock(&stc.lock);
	h = stc.h;
	*gen = stc.gen;
	pthread_mutex_unlock(&stc.lock);
	return h;
}

static uint64_t st_gen(void)
{
	return __atomic_load_n(&stc.gen, __ATOMIC_ACQUIRE);
}

/* The stream of @sl (its lock held) is open and its card not closing. */
static bool slot_alive(const struct fz_slot *sl)
{
	return sl->state == SL_OPEN && sl->gen == st_gen();
}

/*
 * A call on stream @v of @sl (opened on card generation @gen) returned
 * -EBADF: only once the stream or its card is being closed.
 */
static void st_ebadf_ok(struct fz_thread *t, struct fz_slot *sl,
			HELLOFPGA_STREAM v, uint64_t gen, const char *fn)
{
	bool ok;

	pthread_mutex_lock(&sl->lock);
	ok = sl->s != v || sl->state != SL_OPEN || gen != st_gen();
	pthread_mutex_unlock(&sl->lock);
	if (!ok)
		fz_fail(t, "%s: -EBADF on an open stream of an open card: %s",
			fn, HelloFPGA_GetLastError(NULL));
}

/* Start the source of every channel of the stream card @h. */
static int st_source_start(HELLOFPGA_HANDLE h)
{
	/* the handle's timeout, a Wait's of -1 ms: not all of a case's time */
	int ret = HelloFPGA_SetTimeout(h, 500);

	for (uint32_t ch = 0; !ret && ch < FZ_ST_CH; ch++) {
		ret = HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(ch) +
					    HF_ST_SRC_FRAME_SIZE, FZ_ST_FRAME);
		if (!ret)
			ret = HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(ch) +
						    HF_ST_SRC_CTRL,
						    HF_ST_SRC_CTRL_ENABLE);
	}
	return ret;
}

/*
 * Buffer @i of @sl (lock held, stream alive, host or library ring) holds
 * the whole frame @seq as the source sent it.
 */
static bool st_check_buf(struct fz_thread *t, struct fz_slot *sl,
			 const uint8_t *p, uint32_t i, uint64_t seq,
			 const char *when)
{
	uint64_t got = ~0ull;

	if (hf_stream_verify(p, FZ_ST_FRAME, &got) || got != seq) {
		fz_fail(t, "stream on C2H%d: buffer %u %s: not the whole frame %llu the source sent (header sequence %llu, bytes %02x %02x %02x %02x ...)",
			(int)(sl - slots), i, when, (unsigned long long)seq,
			(unsigned long long)got, p[0], p[1], p[2], p[3]);
		return false;
	}
	return true;
}

/*
 * Free what the fuzzer gave a ring after its stream's Close; its card of
 * generation @gen may be closing meanwhile (its pins go with it).
 */
static void st_free_ring(struct fz_thread *t, HELLOFPGA_HANDLE h, int ring,
			 uint8_t *host, uint8_t *gpu, HELLOFPGA_GPU_HANDLE pin,
			 uint64_t gen)
{
	int ret;

	free(host);
	if (ring != RING_GPU)
		return;
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(ring pin 0x%llx), closed",
	       (unsigned long long)pin);
	ret = HelloFPGA_GPUDirect_Unpin(h, pin);
	if (ret != -EBADF || gen == st_gen())
		must_succeed(t, "HelloFPGA_GPUDirect_Unpin", ret, h);
	else
		doc_ok(t, "HelloFPGA_GPUDirect_Unpin", ret);
	if (gpu) {
		fz_log(t, "HelloFPGA_GPU_Free(ring)");
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu),
			     NULL);
	}
}

/*
 * A storm: a thread about to close a stream names it here, and the other
 * threads, at their next call, hammer it (non-blocking Waits, GetStats,
 * GPU waits, bad releases) until the Close returns, so that the Close
 * comes while calls are in flight on the stream, blocked on its locks
 * during the stop, or entering as it drains them: the races of the
 * stream's life against Stream_Close.  Meanwhile no call ends on another
 * stream (whose end would wake a Close that missed its own wake-up): a
 * Close that waits for ever is a hang (run()).
 */
static struct {
	HELLOFPGA_STREAM v;	/* atomic: the stream being closed, or NULL */
	int owner;		/* atomic: its closer */
	int hammering;		/* atomic: threads hammering it */
	unsigned int n;		/* atomic: storms */
	unsigned int hammered;	/* atomic: of them, hammered at the Close */
} storm;


static void storm_hammer(struct fz_thread *t)
{
	HELLOFPGA_STREAM v = __atomic_load_n(&storm.v, __ATOMIC_ACQUIRE);
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_GPU_WAIT w;
	HELLOFPGA_FRAME f;
	int gi, ret;
	void *gs = gs_get(t, false, &gi);

	if (!v || __atomic_load_n(&storm.owner, __ATOMIC_RELAXED) == t->id)
		return;
	fz_log(t, "hammer stream %p that another thread closes", (void *)v);
	__atomic_add_fetch(&storm.hammering, 1, __ATOMIC_ACQ_REL);
	while (!t->failed && !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&storm.v, __ATOMIC_ACQUIRE) == v) {
		switch (below(t, 20)) {
		case 0 ... 5:
			ret = HelloFPGA_Stream_Wait(v, 0, &f);
			doc_ok(t, "HelloFPGA_Stream_Wait", ret);
			break;
		case 6 ... 15:
			ret = HelloFPGA_Stream_GetStats(v, &st);
			doc_ok(t, "HelloFPGA_Stream_GetStats", ret);
			break;
		case 16:
			ret = HelloFPGA_Stream_Release(v, HELLOFPGA_STREAM_MAX_BUFFERS);
			if (must_fail(t, "HelloFPGA_Stream_Release", ret) &&
			    ret != -EINVAL && ret != -EBADF)
				fz_fail(t, "HelloFPGA_Stream_Release of no buffer: %d",
					ret);
			break;
		default:
			if (!gs)
				break;
			ret = HelloFPGA_Stream_WaitOnGPU(v, gs, below(t, 4), 0,
							 &w);
			doc_ok(t, "HelloFPGA_Stream_WaitOnGPU", ret);
			break;
		}
	}
	__atomic_sub_fetch(&storm.hammering, 1, __ATOMIC_ACQ_REL);
}

/* Close the stream of @sl (locked, SL_OPEN); unlocks. */
static void st_close(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_STREAM v = sl->s;
	HELLOFPGA_HANDLE h = sl->h;
	uint64_t gen = sl->gen;
	int ring = sl->ring, ret;
	uint8_t *host = sl->host, *gpu = sl->gpu;
	HELLOFPGA_GPU_HANDLE pin = sl->pin;

	bool in_storm = false;

	sl->state = SL_BUSY;
	sl->held = 0;
	pthread_mutex_unlock(&sl->lock);
	if (nthreads > 1 && gen == st_gen() && chance(t, 80)) {
		HELLOFPGA_STREAM none = NULL;

		in_storm = __atomic_compare_exchange_n(&storm.v, &none, v, false,
						       __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE);
		if (in_storm)
			__atomic_store_n(&storm.owner, t->id, __ATOMIC_RELAXED);
	}
	if (in_storm) {
		/* until a thread hammers it (bounded: they may be busy) */
		for (int i = 0; i < 1000 &&
		     !__atomic_load_n(&storm.hammering, __ATOMIC_ACQUIRE); i++)
			usleep(10);
		if (chance(t, 50))
			usleep(below(t, 100));
		__atomic_add_fetch(&storm.n, 1, __ATOMIC_RELAXED);
		if (__atomic_load_n(&storm.hammering, __ATOMIC_ACQUIRE))
			__atomic_add_fetch(&storm.hammered, 1,
					   __ATOMIC_RELAXED);
	}
	fz_log(t, "HelloFPGA_Stream_Close(C2H%d %p)%s%s", (int)(sl - slots),
	       (void *)v, gen != st_gen() ? ", its card closing" : "",
	       in_storm ? ", hammered by the other threads" : "");
	ret = HelloFPGA_Stream_Close(v);
	if (in_storm)
		__atomic_store_n(&storm.v, NULL, __ATOMIC_RELEASE);
	if (ret == -EIO && is_wedged(h)) {
		/*
		 * The engine did not go idle within the stop's bound (a late
		 * engine thread of the emulated card): the ring stays, and
		 * the stream is freed.
		 */
		fz_log(t, "HelloFPGA_Stream_Close: -EIO, wedged: %s",
		       HelloFPGA_GetLastError(h));
		pthread_mutex_lock(&wedged.lock);
		wedged.count++;
		if (wedged.n < FZ_WEDGED) {
			wedged.host[wedged.n] = host;
			wedged.gpu[wedged.n++] = gpu;
		}
		pthread_mutex_unlock(&wedged.lock);
	} else if (must_succeed(t, "HelloFPGA_Stream_Close", ret, h)) {
		st_free_ring(t, h, ring, host, gpu, pin, gen);
	}
	fz_log(t, "HelloFPGA_Stream_Close(C2H%d %p) again", (int)(sl - slots),
	       (void *)v);
	must_fail(t, "HelloFPGA_Stream_Close", HelloFPGA_Stream_Close(v));
	pthread_mutex_lock(&sl->lock);
	sl->state = SL_EMPTY;
	__atomic_store_n(&sl->s, NULL, __ATOMIC_RELAXED);
	sl->host = NULL;
	sl->gpu = NULL;
	sl->pin = 0;
	sl->closed = v;
	pthread_mutex_unlock(&sl->lock);
}

/* A configuration with one thing wrong: Open must fail.  Slot locked. */
static void st_open_bad(struct fz_thread *t, struct fz_slot *sl,
			HELLOFPGA_HANDLE h)
{
	static const char *const what[] = {
		"channel out of range", "buffers out of range",
		"buffer size not a multiple of 4096", "reserved not 0",
		"flags not 0", "gpu not a pin", "host and gpu both",
		"host not aligned", "gpu_offset without gpu", "NULL cfg",
		"NULL stream", "bad handle", "a channel in use",
		"gpu a pin whose GPU memory was freed",
	};
	void *gpu = NULL;
	HELLOFPGA_GPU_HANDLE pin = 0;
	HELLOFPGA_STREAM_CONFIG c;
	HELLOFPGA_STREAM s = NULL;
	const HELLOFPGA_STREAM_CONFIG *cp = &c;
	HELLOFPGA_STREAM *sp = &s;
	int k = below(t, ARRAY_SIZE(what)), ret;

	memset(&c, 0, sizeof(c));
	c.channel = (int)(sl - slots);
	c.buffers = 2 + below(t, 4);
	c.buffer_size = 4096;
	switch (k) {
	case 0:
		c.channel = chance(t, 50) ? -1 - (int)below(t, 5) :
			    FZ_ST_CH + (int)below(t, 100);
		break;
	case 1:
		c.buffers = chance(t, 50) ? below(t, 2) :
			    HELLOFPGA_STREAM_MAX_BUFFERS + 1 + below(t, 1000);
		break;
	case 2:
		c.buffer_size = chance(t, 30) ? 0 : chance(t, 50) ? SIZE_MAX :
				4096 + 1 + below(t, 4095);
		break;
	case 3:
		c.reserved[below(t, 7)] = 1 + (uint32_t)below(t, 100);
		break;
	case 4:
		c.flags = 1 + (uint32_t)below(t, 0xffff);
		break;
	case 5:
		c.gpu = rnd(t) | 1ull << 62;
		break;
	case 6:
		c.host = t->host;
		c.gpu = 1;
		break;
	case 7:
		c.host = (uint8_t *)ALIGN((uintptr_t)t->host, 4096) + 1 +
			 below(t, 4095);
		break;
	case 8:
		c.gpu_offset = 4096;
		break;
	case 9:
		cp = NULL;
		break;
	case 10:
		sp = NULL;
		break;
	case 11:
		h = chance(t, 50) ? NULL : BOGUS;
		break;
	case 12:
		/* the channel of an open stream of the card */
		if (sl->state != SL_OPEN || sl->gen != st_gen())
			return;
		break;
	default:
		if (sl->state != SL_EMPTY)
			return;
		if (HelloFPGA_GPU_Alloc(&gpu, 65536))
			return;
		if (HelloFPGA_GPUDirect_Pin(h, gpu, 65536, &pin)) {
			HelloFPGA_GPU_Free(gpu);
			return;
		}
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu),
			     NULL);
		c.gpu = pin;
		break;
	}
	fz_log(t, "HelloFPGA_Stream_Open(C2H%d, %u x %zu): %s", c.channel,
	       c.buffers, c.buffer_size, what[k]);
	ret = HelloFPGA_Stream_Open(h, cp, sp);
	if (must_fail(t, "HelloFPGA_Stream_Open", ret) && s)
		fz_fail(t, "Stream_Open failed (%d) but gave a stream %p", ret,
			(void *)s);
	if (k == 12 && ret != -EBUSY && ret != -EBADF)
		fz_fail(t, "Stream_Open on a channel in use: %d, not -EBUSY",
			ret);
	if (k == 13) {
		if (ret != -ENXIO && ret != -EBADF)
			fz_fail(t, "Stream_Open in a pin whose GPU memory was freed: %d, not -ENXIO",
				ret);
		doc_ok(t, "HelloFPGA_GPUDirect_Unpin",
		       HelloFPGA_GPUDirect_Unpin(h, pin));
	}
}

/* Open a stream in @sl (locked, SL_EMPTY); unlocks. */
static void st_open(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_STREAM_CONFIG c;
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_GPU_HANDLE pin = 0;
	uint8_t *host = NULL;
	void *gpu = NULL;
	size_t len, glen = 0;
	uint64_t gen;
	HELLOFPGA_HANDLE h = st_card(&gen);
	int ring = below(t, 4), ret;

	if (!h) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.channel = (int)(sl - slots);
	c.buffers = 2 + below(t, FZ_ST_MAXBUF - 1);
	c.buffer_size = 4096 * (1 + below(t, 2));
	len = c.buffers * c.buffer_size;
	ring = ring == 3 ? RING_LIB : ring;
	sl->state = SL_BUSY;
	pthread_mutex_unlock(&sl->lock);
	if (ring == RING_HOST) {
		host = aligned_alloc(4096, len);
		if (!host)
			goto out;
		memset(host, 0, len);
		c.host = host;
	} else if (ring == RING_GPU) {
		/* buffers never straddle the emulated GPU's pages */
		c.gpu_offset = c.buffer_size * below(t, 3);
		glen = c.gpu_offset + len + 4096 * below(t, 2);
		fz_log(t, "HelloFPGA_GPU_Alloc(%zu), Pin on the stream card", glen);
		ret = HelloFPGA_GPU_Alloc(&gpu, glen);
		if (!must_succeed(t, "HelloFPGA_GPU_Alloc", ret, NULL))
			goto out;
		ret = HelloFPGA_GPUDirect_Pin(h, gpu, glen, &pin);
		if (!doc_ok(t, "HelloFPGA_GPUDirect_Pin", ret))
			goto out;
		if (ret) {
			if (ret != -EBADF || gen == st_gen())
				must_succeed(t, "HelloFPGA_GPUDirect_Pin", ret,
					     h);
			goto out;
		}
		c.gpu = pin;
	}
	fz_log(t, "HelloFPGA_Stream_Open(C2H%d, %u x %zu, %s ring)", c.channel,
	       c.buffers, c.buffer_size, ring == RING_LIB ? "library" :
	       ring == RING_HOST ? "host" : "GPU");
	ret = HelloFPGA_Stream_Open(h, &c, &s);
	if (!doc_ok(t, "HelloFPGA_Stream_Open", ret))
		goto out;
	if (ret) {
		/*
		 * The card's Close began meanwhile (-EBADF), or the channel's
		 * engine is still wedged by the stop of the stream before.
		 */
		if ((ret != -EBADF || gen == st_gen()) &&
		    !(ret == -EIO && is_wedged(h)))
			must_succeed(t, "HelloFPGA_Stream_Open", ret, h);
		goto out;
	}
	pthread_mutex_lock(&sl->lock);
	sl->state = SL_OPEN;
	/* (read without the lock by fork()'s child and hammers) */
	__atomic_store_n(&sl->s, s, __ATOMIC_RELAXED);
	sl->h = h;
	sl->gen = gen;
	sl->bufs = c.buffers;
	sl->bsize = c.buffer_size;
	sl->held = 0;
	sl->ring = ring;
	sl->host = host;
	sl->gpu = gpu;
	sl->gpu_off = c.gpu_offset;
	sl->pin = pin;
	sl->revoked = false;
	pthread_mutex_unlock(&sl->lock);
	return;
out:
	if (pin)
		doc_ok(t, "HelloFPGA_GPUDirect_Unpin",
		       HelloFPGA_GPUDirect_Unpin(h, pin));
	if (gpu)
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu),
			     NULL);
	free(host);
	pthread_mutex_lock(&sl->lock);
	sl->state = SL_EMPTY;
	pthread_mutex_unlock(&sl->lock);
}

/* What a thread knows of a slot's stream for one call. */
struct fz_st {
	struct fz_slot *sl;
	HELLOFPGA_STREAM v;
	uint64_t gen;
	uint32_t bufs;
	size_t bsize;
	int ring;
	uint8_t *host;
	size_t gpu_off;
};

static void st_snap(struct fz_slot *sl, struct fz_st *x)
{
	x->sl = sl;
	x->v = sl->s;
	x->gen = sl->gen;
	x->bufs = sl->bufs;
	x->bsize = sl->bsize;
	x->ring = sl->ring;
	x->host = sl->host;
	x->gpu_off = sl->gpu_off;
}

/* A stream call's result: documented, and -EBADF only when closing. */
static bool st_ret_ok(struct fz_thread *t, const struct fz_st *x,
		      const char *fn, int ret)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret == -EBADF)
		st_ebadf_ok(t, x->sl, x->v, x->gen, fn);
	return ret == 0;
}

static void st_wait(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_Wait";
	struct fz_slot *sl = x->sl;
	HELLOFPGA_FRAME f;
	int ms, ret;
	uint32_t i;

	switch (below(t, 20)) {
	case 0:
		fz_log(t, "%s(C2H%d, NULL frame)", fn, (int)(sl - slots));
		must_fail(t, fn, HelloFPGA_Stream_Wait(x->v, 0, NULL));
		return;
	case 1:
		fz_log(t, "%s(C2H%d, 3600001 ms)", fn, (int)(sl - slots));
		must_fail(t, fn, HelloFPGA_Stream_Wait(x->v, 3600001, &f));
		return;
	case 2:
		ms = -1;	/* the handle's timeout */
		break;
	default:
		ms = chance(t, 40) ? 0 : 1 + (int)below(t, 5);
		break;
	}
	fz_log(t, "%s(C2H%d %p, %d ms)", fn, (int)(sl - slots), (void *)x->v,
	       ms);
	ret = HelloFPGA_Stream_Wait(x->v, ms, &f);
	if (ret == -EIO) {
		bool revoked;

		pthread_mutex_lock(&sl->lock);
		revoked = sl->s == x->v && sl->revoked;
		pthread_mutex_unlock(&sl->lock);
		if (!revoked)
			fz_fail(t, "%s: -EIO from a stream whose ring is intact: %s",
				fn, HelloFPGA_GetLastError(NULL));
		return;
	}
	if (!st_ret_ok(t, x, fn, ret))
		return;
	i = f.index;
	if (i >= x->bufs || f.length != FZ_ST_FRAME ||
	    !(f.flags & HELLOFPGA_FRAME_EOP)) {
		fz_fail(t, "%s: buffer %u of %u, length %llu, flags 0x%x: frames are %u bytes, one a buffer",
			fn, i, x->bufs, (unsigned long long)f.length, f.flags,
			FZ_ST_FRAME);
		return;
	}
	if (x->ring == RING_GPU ?
	    f.host || f.gpu_offset != x->gpu_off + i * x->bsize :
	    !f.host || (x->ring == RING_HOST &&
			f.host != x->host + i * x->bsize)) {
		fz_fail(t, "%s: buffer %u at host %p, GPU offset 0x%llx: not where the %s ring has it",
			fn, i, f.host, (unsigned long long)f.gpu_offset,
			x->ring == RING_GPU ? "GPU" : "host");
		return;
	}
	if (chance(t, 20)) {
		/*
		 * Before anyone else knows the buffer is held (nobody can
		 * release it): the GPU wait for its sequence lies in the
		 * window and names it.
		 */
		HELLOFPGA_GPU_WAIT w;
		int gi;
		void *gs = gs_get(t, false, &gi);

		fz_log(t, "HelloFPGA_Stream_WaitOnGPU(C2H%d, sequence %llu of buffer %u just handed out)",
		       (int)(sl - slots), (unsigned long long)f.sequence, i);
		ret = gs ? HelloFPGA_Stream_WaitOnGPU(x->v, gs, f.sequence, 0,
						      &w) : -EBADF;
		if (!gs || (ret == -EINVAL && !gs_current(gi, gs))) {
			/* no GPU stream, or it was destroyed */
		} else if (st_ret_ok(t, x, "HelloFPGA_Stream_WaitOnGPU", ret) &&
			   (w.index != i || w.sequence != f.sequence)) {
			fz_fail(t, "HelloFPGA_Stream_WaitOnGPU(%llu): buffer %u, but Wait handed out sequence %llu in buffer %u",
				(unsigned long long)f.sequence, w.index,
				(unsigned long long)f.sequence, i);
		} else if (ret && ret != -EBADF) {
			fz_fail(t, "HelloFPGA_Stream_WaitOnGPU of a held buffer's sequence: %d: %s",
				ret, HelloFPGA_GetLastError(NULL));
		}
	}
	pthread_mutex_lock(&sl->lock);
	if (sl->s == x->v && sl->state == SL_OPEN) {
		if (sl->held & 1ull << i)
			fz_fail(t, "%s: buffer %u handed out while another thread holds it",
				fn, i);
		sl->fptr[i] = NULL;
		if (x->ring != RING_GPU && slot_alive(sl) &&
		    st_check_buf(t, sl, f.host, i, *(const uint64_t *)f.host,
				 "as handed out")) {
			sl->fseq[i] = *(const uint64_t *)f.host;
			sl->fptr[i] = f.host;
		}
		sl->held |= 1ull << i;
	}
	pthread_mutex_unlock(&sl->lock);
}

/*
 * Take a held buffer of @sl for a release: its index, or -1.  The frame
 * in it must still be the one handed out.
 */
static int st_take_held(struct fz_thread *t, const struct fz_st *x)
{
	struct fz_slot *sl = x->sl;
	uint32_t i;
	int r = -1;

	pthread_mutex_lock(&sl->lock);
	if (sl->s == x->v && sl->state == SL_OPEN && sl->held) {
		do {
			i = below(t, x->bufs);
		} while (!(sl->held & 1ull << i));
		if (sl->fptr[i] && slot_alive(sl))
			st_check_buf(t, sl, sl->fptr[i], i, sl->fseq[i],
				     "when released");
		sl->held &= ~(1ull << i);
		r = (int)i;
	}
	pthread_mutex_unlock(&sl->lock);
	return r;
}

/* Give back a buffer taken with st_take_held() whose release failed. */
static void st_untake(const struct fz_st *x, int i)
{
	pthread_mutex_lock(&x->sl->lock);
	if (x->sl->s == x->v && x->sl->state == SL_OPEN)
		x->sl->held |= 1ull << i;
	pthread_mutex_unlock(&x->sl->lock);
}

static void st_release(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_Release";
	int i = chance(t, 85) ? st_take_held(t, x) : -1, ret;

	if (i < 0) {
		uint32_t bad = x->bufs + (uint32_t)below(t, 3);

		if (chance(t, 10))
			bad = UINT32_MAX - (uint32_t)below(t, 3);
		fz_log(t, "%s(C2H%d, %u): out of range", fn,
		       (int)(x->sl - slots), bad);
		must_fail(t, fn, HelloFPGA_Stream_Release(x->v, bad));
		return;
	}
	fz_log(t, "%s(C2H%d %p, %d)", fn, (int)(x->sl - slots), (void *)x->v,
	       i);
	ret = HelloFPGA_Stream_Release(x->v, (uint32_t)i);
	if (!st_ret_ok(t, x, fn, ret) && ret != -EBADF)
		fz_fail(t, "%s of a held buffer: %d: %s", fn, ret,
			HelloFPGA_GetLastError(NULL));
	if (ret || nthreads > 1)
		return;
	/* one thread: nobody had it handed out again since */
	fz_log(t, "%s(C2H%d, %d) again", fn, (int)(x->sl - slots), i);
	must_fail(t, fn, HelloFPGA_Stream_Release(x->v, (uint32_t)i));
}

static void st_release_on_gpu(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_ReleaseOnGPU";
	int gi, i = st_take_held(t, x), ret;
	void *gs = gs_get(t, false, &gi);
	uint32_t flags = 0;
	bool bad = false;

	if (i < 0 || !gs) {
		if (i >= 0)
			st_untake(x, i);
		return;
	}
	if (chance(t, 10)) {
		bad = true;
		if (chance(t, 50))
			flags = 1u << below(t, 32);
		else
			gs = made_up_gs(t);
	}
	fz_log(t, "%s(C2H%d %p, GPU stream %p, %d, 0x%x)", fn,
	       (int)(x->sl - slots), (void *)x->v, gs, i, flags);
	ret = HelloFPGA_Stream_ReleaseOnGPU(x->v, gs, (uint32_t)i, flags);
	if (bad) {
		must_fail(t, fn, ret);
		st_untake(x, i);
		return;
	}
	if (ret == -EINVAL && !gs_current(gi, gs)) {
		st_untake(x, i);	/* the GPU stream was destroyed */
		return;
	}
	if (!st_ret_ok(t, x, fn, ret) && ret != -EBADF)
		fz_fail(t, "%s of a held buffer: %d: %s", fn, ret,
			HelloFPGA_GetLastError(NULL));
	if (!ret && nthreads == 1 && chance(t, 30)) {
		/*
		 * The GPU release is queued (or done: then nobody else had
		 * the buffer handed out since): a CPU release is -EINVAL.
		 */
		fz_log(t, "HelloFPGA_Stream_Release(C2H%d, %d): queued on the GPU",
		       (int)(x->sl - slots), i);
		ret = HelloFPGA_Stream_Release(x->v, (uint32_t)i);
		if (must_fail(t, "HelloFPGA_Stream_Release", ret) &&
		    ret != -EINVAL && ret != -EBADF)
			fz_fail(t, "Release of a buffer released by the GPU: %d",
				ret);
	}
}

static void st_stats(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_GetStats";
	HELLOFPGA_STREAM_STATS st;
	bool nul = chance(t, 5);
	int ret;

	fz_log(t, "%s(C2H%d %p%s)", fn, (int)(x->sl - slots), (void *)x->v,
	       nul ? ", NULL" : "");
	ret = HelloFPGA_Stream_GetStats(x->v, nul ? NULL : &st);
	if (nul) {
		must_fail(t, fn, ret);
		return;
	}
	if (st_ret_ok(t, x, fn, ret) && (st.held > x->bufs ||
					 st.frames > st.buffers ||
					 st.bytes > st.buffers * x->bsize))
		fz_fail(t, "%s: held %u of %u buffers, %llu frames in %llu buffers, %llu bytes",
			fn, st.held, x->bufs, (unsigned long long)st.frames,
			(unsigned long long)st.buffers,
			(unsigned long long)st.bytes);
}

static void st_wait_on_gpu(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_WaitOnGPU";
	HELLOFPGA_GPU_WAIT w;
	uint64_t seq = below(t, 3 * x->bufs + 1);
	uint32_t flags = chance(t, 20) ? HELLOFPGA_GPU_WAIT_FLUSH : 0;
	bool bad = false, nul = chance(t, 10);
	int gi, ret;
	void *gs = gs_get(t, false, &gi);

	if (!gs)
		return;
	if (chance(t, 5))
		seq = rnd(t);
	if (chance(t, 8)) {
		bad = true;
		if (chance(t, 50))
			flags = 2u << below(t, 31);
		else
			gs = made_up_gs(t);
	}
	fz_log(t, "%s(C2H%d %p, GPU stream %p, %llu, 0x%x)", fn,
	       (int)(x->sl - slots), (void *)x->v, gs, (unsigned long long)seq,
	       flags);
	ret = HelloFPGA_Stream_WaitOnGPU(x->v, gs, seq, flags, nul ? NULL : &w);
	if (bad) {
		must_fail(t, fn, ret);
		return;
	}
	if (ret == -EINVAL && !gs_current(gi, gs))
		return;		/* the GPU stream was destroyed */
	if (!st_ret_ok(t, x, fn, ret) || nul)
		return;
	if (w.index >= x->bufs || w.sequence != seq || !w.status ||
	    !w.status_dev ||
	    (x->ring == RING_GPU ? w.host ||
	     w.gpu_offset != x->gpu_off + w.index * x->bsize :
	     !w.host || (x->ring == RING_HOST &&
			 w.host != x->host + w.index * x->bsize)))
		fz_fail(t, "%s(%llu): buffer %u of %u, sequence %llu, status %p/0x%llx, host %p, GPU offset 0x%llx",
			fn, (unsigned long long)seq, w.index, x->bufs,
			(unsigned long long)w.sequence, (void *)w.status,
			(unsigned long long)w.status_dev, w.host,
			(unsigned long long)w.gpu_offset);
	else if (chance(t, 50))
		gs_ret_ok(t, "HelloFPGA_GPU_LaunchHostFunc",
			  HelloFPGA_GPU_LaunchHostFunc(gs, fz_read_word,
						       (void *)w.status),
			  gi, gs);
}

/*
 * The GPU ring's memory freed while the stream is open: the pin is
 * revoked; the ring must stop before the memory goes (no DMA fault), and
 * Wait may then return -EIO.  Or: its pin cannot be unpinned (-EBUSY).
 */
static void st_gpu_ring(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE pin;
	uint64_t gen;
	uint8_t *gpu;
	int ret;

	pthread_mutex_lock(&sl->lock);
	if (sl->state != SL_OPEN || sl->ring != RING_GPU || !sl->gpu) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	h = sl->h;
	pin = sl->pin;
	gen = sl->gen;
	if (chance(t, 70)) {
		pthread_mutex_unlock(&sl->lock);
		fz_log(t, "HelloFPGA_GPUDirect_Unpin(the pin of C2H%d's open ring)",
		       (int)(sl - slots));
		ret = HelloFPGA_GPUDirect_Unpin(h, pin);
		if (must_fail(t, "HelloFPGA_GPUDirect_Unpin", ret) &&
		    ret != -EBUSY && (ret != -EBADF || gen == st_gen()))
			fz_fail(t, "Unpin of an open stream's ring pin: %d, not -EBUSY",
				ret);
		return;
	}
	gpu = sl->gpu;
	sl->gpu = NULL;
	sl->revoked = true;
	pthread_mutex_unlock(&sl->lock);
	fz_log(t, "HelloFPGA_GPU_Free(the GPU memory of C2H%d's open ring)",
	       (int)(sl - slots));
	must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu), NULL);
}

/* Calls on a closed, made-up or NULL stream: -EBADF (Close(NULL): 0). */
static void st_bad(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_STREAM bad;
	HELLOFPGA_FRAME f;
	HELLOFPGA_GPU_WAIT w;
	int gi;
	void *gs = gs_get(t, false, &gi);

	pthread_mutex_lock(&sl->lock);
	bad = chance(t, 60) ? sl->closed : NULL;
	pthread_mutex_unlock(&sl->lock);
	if (!bad && chance(t, 80))
		bad = (HELLOFPGA_STREAM)(void *)(uintptr_t)(rnd(t) |
							    1ull << 62);
	fz_log(t, "HelloFPGA_Stream_*(%p): closed, made up or NULL",
	       (void *)bad);
	must_fail(t, "HelloFPGA_Stream_Wait", HelloFPGA_Stream_Wait(bad, 0, &f));
	must_fail(t, "HelloFPGA_Stream_Release",
		  HelloFPGA_Stream_Release(bad, 0));
	must_fail(t, "HelloFPGA_Stream_GetStats",
		  HelloFPGA_Stream_GetStats(bad, &st));
	if (gs) {
		must_fail(t, "HelloFPGA_Stream_WaitOnGPU",
			  HelloFPGA_Stream_WaitOnGPU(bad, gs, 0, 0, &w));
		must_fail(t, "HelloFPGA_Stream_ReleaseOnGPU",
			  HelloFPGA_Stream_ReleaseOnGPU(bad, gs, 0, 0));
	}
	if (bad)
		must_fail(t, "HelloFPGA_Stream_Close",
			  HelloFPGA_Stream_Close(bad));
	else
		must_succeed(t, "HelloFPGA_Stream_Close",
			     HelloFPGA_Stream_Close(NULL), NULL);
}

static void op_stream(struct fz_thread *t)
{
	struct fz_slot *sl = &slots[below(t, FZ_ST_CH)];
	struct fz_st x;
	uint64_t gen;

	if (chance(t, 5)) {
		st_bad(t, sl);
		return;
	}
	pthread_mutex_lock(&sl->lock);
	if (sl->state == SL_BUSY) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	if (sl->state == SL_EMPTY) {
		HELLOFPGA_HANDLE h = st_card(&gen);

		if (h && chance(t, 15)) {
			st_open_bad(t, sl, h);
			pthread_mutex_unlock(&sl->lock);
			return;
		}
		st_open(t, sl);		/* unlocks */
		return;
	}
	/* the card's Close began: close its streams (while it runs) */
	if (sl->gen != st_gen() || chance(t, 4)) {
		st_close(t, sl);	/* unlocks */
		return;
	}
	if (chance(t, 3)) {
		HELLOFPGA_HANDLE h = st_card(&gen);

		if (h)
			st_open_bad(t, sl, h);
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	st_snap(sl, &x);
	pthread_mutex_unlock(&sl->lock);
	switch (below(t, 20)) {
	case 0 ... 7:
		st_wait(t, &x);
		break;
	case 8 ... 11:
		st_release(t, &x);
		break;
	case 12 ... 13:
		st_release_on_gpu(t, &x);
		break;
	case 14 ... 15:
		st_stats(t, &x);
		break;
	case 16 ... 18:
		st_wait_on_gpu(t, &x);
		break;
	default:
		st_gpu_ring(t, sl);
		break;
	}
}

/*
 * An H2C packet on the stream card (its sink checks the frame), at times
 * behind a hang of the card's engines of a few ms, so that a Close of the
 * card waits for it; and the calls an AXI-Stream card refuses.
 */
static void op_st_h2c(struct fz_thread *t)
{
	static const char fn[] = "HelloFPGA_DMA_MM_WriteH2C";
	uint64_t gen;
	HELLOFPGA_HANDLE h = st_card(&gen);
	uint32_t len = HF_STREAM_MIN_LEN + (uint32_t)below(t, 64 << 10), v = 1;
	size_t actual = 77;
	int ret;

	if (!h)
		return;
	if (chance(t, 10)) {
		uint8_t b[64];

		fz_log(t, "stream card: C2H read, H2C at a card address");
		ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), &actual);
		if (must_fail(t, "HelloFPGA_DMA_MM_ReadC2H", ret) &&
		    ret != -EOPNOTSUPP && ret != -EBADF)
			fz_fail(t, "ReadC2H on a stream card: %d, not -EOPNOTSUPP",
				ret);
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, b, 4096, sizeof(b),
						&actual);
		if (must_fail(t, fn, ret) && ret != -EINVAL && ret != -EBADF)
			fz_fail(t, "WriteH2C at a card address on a stream card: %d, not -EINVAL",
				ret);
		return;
	}
	hf_stream_fill(t->host, t->calls, len, 0, len);
	if (chance(t, 25)) {
		/*
		 * Below the 2 ms a stop of the card's engines is given to go
		 * idle (no link model): a Close meanwhile waits for the packet,
		 * a stream's stop for the hang, and neither wedges.
		 */
		uint64_t ns = 200000 + below(t, 600000);

		fz_log(t, "stream card: its engines hang for %llu us",
		       (unsigned long long)ns / 1000);
		ret = hf_emu_test_inject_hang(h, ns);
		if (ret && (ret != -EOPNOTSUPP || gen == st_gen()))
			fz_fail(t, "hf_emu_test_inject_hang: %d", ret);
	}
	fz_log(t, "%s(stream card, packet of %u bytes)", fn, len);
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, t->host, 0, len, &actual);
	if (!doc_ok(t, fn, ret))
		return;
	if (ret) {
		if (ret != -EBADF || gen == st_gen())
			must_succeed(t, fn, ret, h);
		return;
	}
	if (actual != len)
		fz_fail(t, "%s: a packet of %u bytes, actual %zu", fn, len,
			actual);
	/* every packet was whole: the sink found none bad */
	ret = HelloFPGA_UserRead32(h, HF_USER_ST_SINK(0) + HF_ST_SINK_FRAMES_BAD,
				   &v);
	if (!doc_ok(t, "HelloFPGA_UserRead32", ret))
		return;
	if (!ret && v)
		fz_fail(t, "stream card: the H2C sink found %u bad frames", v);
	else if (ret && (ret != -EBADF || gen == st_gen()))
		must_succeed(t, "HelloFPGA_UserRead32", ret, h);
}

/*
 * P_STREAM_CLOSE: HelloFPGA_Close() of the stream card while the threads
 * are inside calls on it and its streams; the streams' slots see the new
 * generation at once, so other threads close those streams while the
 * Close may still wait for calls in flight.  Then the card is opened again.
 */
static void op_st_card_close(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h, nh = NULL;
	int ret;

	pthread_mutex_lock(&stc.lock);
	h = stc.h;
	if (!h) {
		pthread_mutex_unlock(&stc.lock);
		return;
	}
	stc.h = NULL;
	__atomic_add_fetch(&stc.gen, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&stc.lock);
	/* a thread checking a frame of a stream of @h is done with it */
	for (int i = 0; i < FZ_ST_CH; i++) {
		pthread_mutex_lock(&slots[i].lock);
		pthread_mutex_unlock(&slots[i].lock);
	}
	fz_log(t, "HelloFPGA_Close(stream card)");
	must_succeed(t, "HelloFPGA_Close", HelloFPGA_Close(h), NULL);
	fz_log(t, "HelloFPGA_Open(stream card)");
	ret = HelloFPGA_Open(FZ_ST_NAME, &nh);
	if (!must_succeed(t, "HelloFPGA_Open", ret, NULL))
		return;
	ret = st_source_start(nh);
	if (!must_succeed(t, "stream card: the source's start", ret, nh)) {
		HelloFPGA_Close(nh);
		return;
	}
	pthread_mutex_lock(&stc.lock);
	stc.h = nh;
	pthread_mutex_unlock(&stc.lock);
}

/* ---- user interrupts ---- */

/*
 * P_USER_IRQ: raise, pulse and drop the reference design's lines 0..7 and
 * wait for them (0..5 ms) with good and bad arguments, poll their
 * descriptors, on the memory-mapped cards and on the race and stream
 * cards while those are closed under the calls (a Wait blocked on a card
 * that closes returns -EBADF); and each of the first 8 threads raises a
 * line of its own (8 + id), holds it, waits for it and drops it: a held
 * request is always delivered (0, a count of at least 1), or -EOPNOTSUPP
 * on the card without interrupts.
 */
static void op_user_irq(struct fz_thread *t)
{
	static const uint32_t regs[] = {
		HF_USER_IRQ_SET, HF_USER_IRQ_CLEAR, HF_USER_IRQ_PULSE,
	};
	int ci = pick_card(t), where = below(t, 10);
	const char *name = cards[ci].name;
	HELLOFPGA_HANDLE h = cards[ci].h;
	int irq = chance(t, 85) ? (int)below(t, 8) : (int)below(t, 40) - 20;
	uint32_t r = regs[below(t, ARRAY_SIZE(regs))], n = 0;
	uint32_t val = (uint32_t)rnd(t) & 0xff;	/* lines 0..7 only */
	uint64_t gen = 0;
	bool stable = true, poll_mode = cards[ci].info.irq_mode ==
					HELLOFPGA_IRQ_POLL;
	int fd = -1, ret, ms;

	if (where == 8 && part_on[P_CLOSE_RACE]) {
		h = race_card();
		name = "race card";
		stable = poll_mode = false;
	} else if (where == 9 && part_on[P_STREAM]) {
		h = st_card(&gen);
		name = "stream card";
		stable = poll_mode = false;
	}
	if (!h)
		return;
	switch (below(t, 6)) {
	case 0:
		fz_log(t, "HelloFPGA_UserWrite32(%s, 0x%x, 0x%x): user IRQ",
		       name, r, val);
		ret = HelloFPGA_UserWrite32(h, r, val);
		if (stable)
			must_succeed(t, "HelloFPGA_UserWrite32", ret, h);
		else
			doc_ok(t, "HelloFPGA_UserWrite32", ret);
		break;
	case 1:
		ms = chance(t, 50) ? (int)below(t, 2) : (int)below(t, 6);
		fz_log(t, "HelloFPGA_UserIRQ_Wait(%s, %d, %d ms)", name, irq,
		       ms);
		ret = HelloFPGA_UserIRQ_Wait(h, irq, ms,
					     chance(t, 90) ? &n : NULL);
		if (doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret) && !ret && !n)
			fz_fail(t, "HelloFPGA_UserIRQ_Wait: 0 with a count of 0");
		if (ret == -EBADF && stable)
			fz_fail(t, "HelloFPGA_UserIRQ_Wait: -EBADF on an open card");
		break;
	case 2:
		fz_log(t, "HelloFPGA_UserIRQ_GetFd(%s, %d), poll it", name,
		       irq);
		ret = HelloFPGA_UserIRQ_GetFd(h, irq,
					      chance(t, 90) ? &fd : NULL);
		if (!doc_ok(t, "HelloFPGA_UserIRQ_GetFd", ret) || ret)
			break;
		if (fd < 0) {
			fz_fail(t, "HelloFPGA_UserIRQ_GetFd: 0 with fd %d", fd);
			break;
		}
		/* (closed by a Close of the card meanwhile: POLLNVAL) */
		poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0);
		break;
	case 3:
		fz_log(t, "HelloFPGA_UserIRQ_Wait/GetFd(bad handle)");
		must_fail(t, "HelloFPGA_UserIRQ_Wait",
			  HelloFPGA_UserIRQ_Wait(BOGUS, 0, 0, &n));
		must_fail(t, "HelloFPGA_UserIRQ_GetFd",
			  HelloFPGA_UserIRQ_GetFd(NULL, 0, &fd));
		break;
	case 4:
		/* a wait a Close of the race or stream card ends (-EBADF) */
		ms = stable ? 1 : 5 + (int)below(t, 20);
		fz_log(t, "HelloFPGA_UserIRQ_Wait(%s, 7, %d ms)", name, ms);
		ret = HelloFPGA_UserIRQ_Wait(h, 7, ms, &n);
		doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret);
		break;
	default: {
		uint32_t bit;

		if (t->id >= 8)
			break;
		irq = 8 + t->id;
		bit = 1u << irq;
		fz_log(t, "user IRQ %d of %s: raise, wait, drop", irq, name);
		ret = HelloFPGA_UserWrite32(h, HF_USER_IRQ_SET, bit);
		if (!doc_ok(t, "HelloFPGA_UserWrite32", ret) || ret) {
			if (stable)
				must_succeed(t, "HelloFPGA_UserWrite32", ret, h);
			break;
		}
		ret = HelloFPGA_UserIRQ_Wait(h, irq, 2000, &n);
		if (!doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret)) {
			/* reported */
		} else if (poll_mode) {
			if (ret != -EOPNOTSUPP)
				fz_fail(t, "HelloFPGA_UserIRQ_Wait on a card without interrupts: %d",
					ret);
		} else if (stable || (ret && ret != -EBADF)) {
			if (must_succeed(t, "HelloFPGA_UserIRQ_Wait", ret, h) &&
			    !n)
				fz_fail(t, "HelloFPGA_UserIRQ_Wait: 0 with a count of 0");
		}
		ret = HelloFPGA_UserWrite32(h, HF_USER_IRQ_CLEAR, bit);
		if (stable)
			must_succeed(t, "HelloFPGA_UserWrite32", ret, h);
		else
			doc_ok(t, "HelloFPGA_UserWrite32", ret);
		break;
	}
	}
}

/* ---- GPU Direct submissions and their tickets ---- */

/*
 * P_SUBMIT: HelloFPGA_GPUDirect_Submit() with and without a GPU stream
 * waiting for the transfer or starting it, on a card of their own (no
 * shadow: the transfers run in the background), on the race card (closed
 * and opened again meanwhile) and as H2C packets on the stream card;
 * pins unpinned and GPU memory freed under queued submissions; the
 * tickets kept and completed later, by any thread, with timeouts of 0 ms
 * up to 200 ms; tickets given to another handle, made up or of a closed
 * handle.
 *
 * Checks: every result documented; a valid submission on the card of its
 * own succeeds; HelloFPGA_GPUDirect_Complete() of an open handle's own
 * ticket is never -EINVAL, of another open handle's is -EINVAL.
 */
#define FZ_SUB_NAME	"emu:10,private,ddr=256K,h2c=2,c2h=2"
/*
 * A thread's GPU memory for submissions: H2C ones read the first 32 KiB;
 * each queue that writes (C2H of a channel of the submission card or the
 * race card) has 16 KiB of its own after it, so no two transfers running
 * at once write, or write and read, the same bytes.
 */
#define FZ_SUB_GPU	(128u << 10)
#define FZ_SUB_RD	(32u << 10)
#define FZ_SUB_WR	(16u << 10)
#define FZ_TICKETS	64

struct fz_ticket {
	HELLOFPGA_HANDLE h;	/* the handle that gave it */
	uint64_t ticket;
	int card;		/* TK_* */
};

static struct {
	pthread_mutex_t lock;
	struct fz_ticket t[FZ_TICKETS];
	unsigned int n;
} tks = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct fz_card subc = { .name = FZ_SUB_NAME };

static void ticket_add(HELLOFPGA_HANDLE h, uint64_t ticket, int card)
{
	pthread_mutex_lock(&tks.lock);
	tks.t[tks.n++ % FZ_TICKETS] = (struct fz_ticket){ h, ticket, card };
	pthread_mutex_unlock(&tks.lock);
}

static bool ticket_pick(struct fz_thread *t, struct fz_ticket *out)
{
	bool r;

	pthread_mutex_lock(&tks.lock);
	r = tks.n > 0;
	if (r)
		*out = tks.t[below(t, tks.n < FZ_TICKETS ? tks.n : FZ_TICKETS)];
	pthread_mutex_unlock(&tks.lock);
	return r;
}

/* The thread's GPU memory for submissions (its content is not checked). */
static bool sub_gpu(struct fz_thread *t)
{
	int ret;

	if (t->sgpu)
		return true;
	fz_log(t, "HelloFPGA_GPU_Alloc(%u) for submissions", FZ_SUB_GPU);
	ret = HelloFPGA_GPU_Alloc((void **)&t->sgpu, FZ_SUB_GPU);
	if (must_succeed(t, "HelloFPGA_GPU_Alloc", ret, NULL))
		return true;
	t->sgpu = NULL;
	return false;
}

/* ... and its pin on the card of its own. */
static bool sub_pin(struct fz_thread *t)
{
	int ret;

	if (!sub_gpu(t))
		return false;
	if (!t->spin) {
		fz_log(t, "HelloFPGA_GPUDirect_Pin(submission card, %u)",
		       FZ_SUB_GPU);
		ret = HelloFPGA_GPUDirect_Pin(subc.h, t->sgpu, FZ_SUB_GPU,
					      &t->spin);
		if (!must_succeed(t, "HelloFPGA_GPUDirect_Pin", ret, subc.h)) {
			t->spin = 0;
			return false;
		}
		t->spin_revoked = false;
	}
	return true;
}

/* Unpin the submission pin under queued submissions, or free its memory. */
static void op_sub_pin(struct fz_thread *t)
{
	int ret;

	if (!t->spin || !t->sgpu) {
		sub_pin(t);
		return;
	}
	if (chance(t, 70)) {
		fz_log(t, "HelloFPGA_GPUDirect_Unpin(submission pin 0x%llx)",
		       (unsigned long long)t->spin);
		ret = HelloFPGA_GPUDirect_Unpin(subc.h, t->spin);
		must_succeed(t, "HelloFPGA_GPUDirect_Unpin", ret, subc.h);
		t->spin = 0;
		return;
	}
	fz_log(t, "HelloFPGA_GPU_Free(the submission pin's memory)");
	must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(t->sgpu),
		     NULL);
	t->sgpu = NULL;
	t->spin_revoked = true;
}

static void op_submit(struct fz_thread *t)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Submit";
	static const uint32_t good_flags[] = {
		0, HELLOFPGA_SUBMIT_WAIT_ON_GPU, HELLOFPGA_SUBMIT_START_ON_GPU,
		HELLOFPGA_SUBMIT_WAIT_ON_GPU | HELLOFPGA_SUBMIT_START_ON_GPU,
	};
	int where = chance(t, 70) ? TK_SUB : chance(t, 50) ? TK_RACE : TK_ST;
	HELLOFPGA_SUBMISSION sub;
	HELLOFPGA_GPU_HANDLE pin = 0;
	HELLOFPGA_HANDLE h;
	uint64_t card = 0, gen = 0, part;
	size_t off, len;
	int dir = chance(t, 50) ? HELLOFPGA_DIR_H2C : HELLOFPGA_DIR_C2H;
	int ch = (int)below(t, 2), gi = -1, tmo = 0, ret, bad = -1;
	uint32_t flags = good_flags[below(t, 4)];
	bool nul = chance(t, 5), valid;
	void *gs = NULL;
	static const char *const what[] = {
		"unknown flags", "unknown direction", "no such channel",
		"size 0", "range leaves the pin", "timeout above the limit",
		"a made-up GPU stream", "a destroyed GPU stream",
	};

	if (flags) {
		gs = gs_get(t, true, &gi);
		if (!gs)
			return;
	}
	/*
	 * Card memory: the thread's slice, a quarter of it per queue
	 * (direction and channel), so that no two transfers running at once
	 * write, or write and read, the same bytes (the race card's: after
	 * the 4 KiB that op_close_race() moves).
	 */
	part = (where == TK_SUB ? subc.slice :
		ALIGN_DOWN((FZ_RACE_SIZE - 4096) / nthreads, 1024)) / 4;
	len = 1 + below(t, part < FZ_SUB_WR ? part : FZ_SUB_WR);
	card = part * ((dir == HELLOFPGA_DIR_C2H) * 2 + ch) +
	       below(t, part - len + 1);
	if (where == TK_SUB) {
		if (!sub_pin(t) && !t->spin)
			return;
		h = subc.h;
		pin = t->spin;
		card += slice_base(&subc, t->id);
	} else {
		if (where == TK_RACE) {
			h = race_card();
		} else {
			/* H2C1: the packets of H2C0 are checked by its sink */
			h = st_card(&gen);
			dir = HELLOFPGA_DIR_H2C;
			ch = 1;
		}
		if (!h || !sub_gpu(t))
			return;
		/* a pin of this call's, on a card that may be closing */
		ret = HelloFPGA_GPUDirect_Pin(h, t->sgpu, FZ_SUB_GPU, &pin);
		if (!doc_ok(t, "HelloFPGA_GPUDirect_Pin", ret) || ret)
			return;
		if (where == TK_RACE)
			card += 4096 + 4 * part * t->id;
		else
			card = 0;	/* a packet */
	}
	if (dir == HELLOFPGA_DIR_H2C)
		off = below(t, FZ_SUB_RD - len + 1);
	else
		off = FZ_SUB_RD + FZ_SUB_WR * ((where == TK_SUB ? 0 : 2) + ch) +
		      below(t, FZ_SUB_WR - len + 1);
	if (chance(t, 15)) {
		bad = (int)below(t, ARRAY_SIZE(what));
		switch (bad) {
		case 0:
			flags = 4u << below(t, 30);
			break;
		case 1:
			dir = chance(t, 50) ? 2 : -1;
			break;
		case 2:
			ch = chance(t, 50) ? -1 : XDMA_MAX_CHANNELS +
						   (int)below(t, 60);
			break;
		case 3:
			len = 0;
			break;
		case 4:
			off = FZ_SUB_GPU - below(t, len);
			break;
		case 5:
			tmo = 3600001 + (int)below(t, 1000);
			break;
		case 6:
			flags |= HELLOFPGA_SUBMIT_WAIT_ON_GPU;
			gs = made_up_gs(t);
			break;
		default:
			flags |= HELLOFPGA_SUBMIT_START_ON_GPU;
			pthread_mutex_lock(&gsp.lock);
			gs = gsp.dead[FZ_GS_WAIT + below(t, FZ_GS_SUB)];
			pthread_mutex_unlock(&gsp.lock);
			if (!gs)
				gs = made_up_gs(t);
			break;
		}
	} else if (chance(t, 20)) {
		tmo = 1000 + (int)below(t, 4000);
	}
	valid = bad < 0;
	fz_log(t, "%s(%s, %s%d, pin 0x%llx + 0x%zx, 0x%llx, 0x%zx, GPU stream %p, flags 0x%x, %d ms)%s%s",
	       fn, where == TK_SUB ? "submission card" : where == TK_RACE ?
	       "race card" : "stream card",
	       dir == HELLOFPGA_DIR_H2C ? "H2C" : "C2H", ch,
	       (unsigned long long)pin, off, (unsigned long long)card, len,
	       gs, flags, tmo, valid ? "" : ": ", valid ? "" : what[bad]);
	ret = HelloFPGA_GPUDirect_Submit(h, ch, pin, off, card, len, dir, gs,
					 flags, tmo, nul ? NULL : &sub);
	if (!valid) {
		must_fail(t, fn, ret);
	} else if (!doc_ok(t, fn, ret)) {
		/* reported */
	} else if (ret) {
		/*
		 * The card of its own fails only a submission of a pin whose
		 * memory was freed (-ENXIO) or a GPU stream just destroyed;
		 * the others may be closing meanwhile.
		 */
		if (where == TK_SUB && !(ret == -ENXIO && t->spin_revoked) &&
		    !(ret == -EINVAL && gi >= 0 && !gs_current(gi, gs)))
			must_succeed(t, fn, ret, h);
	} else if (!nul) {
		if (!sub.ticket || !sub.status ||
		    !sub.status_dev != !flags)
			fz_fail(t, "%s: ticket 0x%llx, status %p, status_dev 0x%llx with flags 0x%x",
				fn, (unsigned long long)sub.ticket,
				(void *)sub.status,
				(unsigned long long)sub.status_dev, flags);
		ticket_add(h, sub.ticket, where);
	}
	if (where == TK_SUB)
		return;
	/* the call's pin goes now or after a wait for its transfer */
	if (!ret && !nul && chance(t, 50)) {
		size_t actual = 0;

		ret = HelloFPGA_GPUDirect_Complete(h, sub.ticket, 50, &actual);
		doc_ok(t, "HelloFPGA_GPUDirect_Complete", ret);
	}
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(this submission's pin)");
	ret = HelloFPGA_GPUDirect_Unpin(h, pin);
	doc_ok(t, "HelloFPGA_GPUDirect_Unpin", ret);
}

/*
 * An open handle other than @h that never closes during the case: mostly
 * one with submissions of its own on the same channels (the submission
 * card for a ticket of another card, and the reverse).
 */
static HELLOFPGA_HANDLE other_handle(struct fz_thread *t, HELLOFPGA_HANDLE h)
{
	HELLOFPGA_HANDLE o;

	if (h != subc.h && chance(t, 70))
		return subc.h;
	do {
		int k = below(t, ncards + 1);

		o = k == ncards ? subc.h : cards[k].h;
	} while (o == h);
	return o;
}

static void op_complete(struct fz_thread *t)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Complete";
	struct fz_ticket tk;
	HELLOFPGA_HANDLE h, now = NULL;
	size_t actual = 77;
	bool own, stable, nul = chance(t, 10);
	uint64_t ticket;
	int ms, ret;

	if (!ticket_pick(t, &tk))
		return;
	ms = chance(t, 30) ? 0 : chance(t, 70) ? 1 + (int)below(t, 5) :
	     chance(t, 90) ? 200 : -1;
	ticket = tk.ticket;
	h = tk.h;
	/* the cards of TK_SUB and TK_MM never close during the case */
	stable = tk.card == TK_SUB || tk.card == TK_MM;
	switch (below(t, 10)) {
	case 0 ... 5:
		own = true;
		break;
	case 6 ... 7:
		own = false;
		h = other_handle(t, tk.h);
		break;
	case 8:
		own = false;
		ticket = chance(t, 50) ? 0 : rnd(t);
		h = stable ? tk.h : subc.h;
		break;
	default:
		fz_log(t, "%s(ticket 0x%llx, 3600001 ms)", fn,
		       (unsigned long long)ticket);
		must_fail(t, fn, HelloFPGA_GPUDirect_Complete(tk.h, ticket,
							      3600001, NULL));
		fz_log(t, "%s(bad handle)", fn);
		must_fail(t, fn, HelloFPGA_GPUDirect_Complete(chance(t, 50) ?
							      NULL : BOGUS,
							      ticket, 0, NULL));
		return;
	}
	if (own && !stable)
		now = tk.card == TK_RACE ? race_card() : st_card(&(uint64_t){0});
	fz_log(t, "%s(%s handle, ticket 0x%llx, %d ms)", fn,
	       own ? "its" : "another", (unsigned long long)ticket, ms);
	ret = HelloFPGA_GPUDirect_Complete(h, ticket, ms, nul ? NULL : &actual);
	if (!doc_ok(t, fn, ret))
		return;
	if (!nul && actual && (ret == -EBADF || ret == -EINVAL ||
			       ret == -EAGAIN || ret == -ERANGE))
		fz_fail(t, "%s: %d, but actual %zu", fn, ret, actual);
	if (!own) {
		/* another open handle's ticket, or a made-up one */
		if (ret != -EINVAL)
			fz_fail(t, "%s: ticket 0x%llx of another handle (or made up): %d, not -EINVAL",
				fn, (unsigned long long)ticket, ret);
		return;
	}
	if (ret == -EINVAL && (stable || now == h))
		fz_fail(t, "%s: the handle's own ticket 0x%llx refused: %s",
			fn, (unsigned long long)ticket,
			HelloFPGA_GetLastError(h));
	if (ret == -EBADF && stable)
		fz_fail(t, "%s: -EBADF on an open handle", fn);
	if (ret != -EBADF && !stable && now != h)
		fz_fail(t, "%s on a closed handle: %d, not -EBADF", fn, ret);
}

/*
 * P_FORK: fork() while the other threads are inside calls of every family
 * (the library's process-wide locks may be held by them then).  In the
 * child (bounded by alarm(): a hang is a failure) every call on what the
 * parent opened answers at once: -ECHILD for the handles, their streams,
 * the GPU streams (-EINVAL, -EBADF once closed or destroyed), Close of an
 * inherited handle only forgets it, after which its streams' Close only
 * forgets them too; the GPU memory is the child's copy.  The child takes
 * none of the fuzzer's locks and, under ASan, allocates and frees nothing
 * (ASan's allocator takes no lock around fork()).  The parent's card goes
 * on.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FZ_CHILD_MALLOC	0
#else
#define FZ_CHILD_MALLOC	1
#endif

/* The child's checks; 0, or 1 with the failure in @msg. */
static int fork_child(struct fz_thread *t, char *msg, size_t len)
{
	HELLOFPGA_HANDLE h = cards[0].h, sh;
	HELLOFPGA_SUBMISSION sub;
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_GPU_HANDLE pin;
	HELLOFPGA_FRAME f;
	HELLOFPGA_STREAM v;
	uint8_t b[64];
	uint32_t n;
	int fd, ret;
	void *gs, *p;

/* (the call is named in @msg first: the parent reports a hang in it) */
#define CHILD_EXPECT(call, ok)						\
	do {								\
		snprintf(msg, len, "in the fork() child: %s did not return", \
			 #call);					\
		ret = (call);						\
		if (!(ok)) {						\
			snprintf(msg, len, "in the fork() child: %s returned %d (%s)", \
				 #call, ret, HelloFPGA_StrError(ret));	\
			return 1;					\
		}							\
	} while (0)

	CHILD_EXPECT(HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), NULL),
		     ret == -ECHILD);
	CHILD_EXPECT(HelloFPGA_UserIRQ_Wait(h, 0, 0, &n), ret == -ECHILD);
	CHILD_EXPECT(HelloFPGA_UserIRQ_GetFd(h, 0, &fd), ret == -ECHILD);
	CHILD_EXPECT(HelloFPGA_GPUDirect_Complete(subc.h, 1, 0, NULL),
		     ret == -ECHILD);
	if (t->spin)
		CHILD_EXPECT(HelloFPGA_GPUDirect_Submit(subc.h, 0, t->spin, 0,
							0, 4096,
							HELLOFPGA_DIR_H2C,
							NULL, 0, 0, &sub),
			     ret == -ECHILD);
	if (t->g[0].gpu) {
		CHILD_EXPECT(HelloFPGA_GPUDirect_Pin(h, t->g[0].gpu, 4096,
						     &pin), ret == -ECHILD);
		/* the child's copy of the GPU memory */
		CHILD_EXPECT(HelloFPGA_GPU_Memcpy(b, t->g[0].gpu, sizeof(b),
						  HELLOFPGA_MEMCPY_GPU_TO_HOST),
			     !ret && !memcmp(b, t->g[0].copy, sizeof(b)));
	}
	if (FZ_CHILD_MALLOC) {
		CHILD_EXPECT(HelloFPGA_GPU_Alloc(&p, 65536), !ret);
		CHILD_EXPECT(HelloFPGA_GPU_Free(p), !ret);
	}
	for (int i = 0; i < FZ_GS; i++) {
		gs = __atomic_load_n(&gsp.s[i], __ATOMIC_RELAXED);
		if (!gs)
			gs = __atomic_load_n(&gsp.dead[i], __ATOMIC_RELAXED);
		if (!gs)
			continue;
		CHILD_EXPECT(HelloFPGA_GPU_StreamSynchronize(gs, 0),
			     ret == -ECHILD || ret == -EINVAL);
		CHILD_EXPECT(HelloFPGA_GPU_LaunchHostFunc(gs, fz_noop, NULL),
			     ret == -ECHILD || ret == -EINVAL);
	}
	for (int i = 0; i < FZ_ST_CH; i++) {
		v = __atomic_load_n(&slots[i].s, __ATOMIC_RELAXED);
		if (!v)
			continue;
		gs = __atomic_load_n(&gsp.s[0], __ATOMIC_RELAXED);
		CHILD_EXPECT(HelloFPGA_Stream_Wait(v, 0, &f),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_GetStats(v, &st),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_Release(v, 0),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_WaitOnGPU(v, gs, 0, 0, NULL),
			     ret == -ECHILD || ret == -EBADF);
		CHILD_EXPECT(HelloFPGA_Stream_ReleaseOnGPU(v, gs, 0, 0),
			     ret == -ECHILD || ret == -EBADF);
		/* (a stream of a card closed before the fork() is freed) */
		if (FZ_CHILD_MALLOC)
			CHILD_EXPECT(HelloFPGA_Stream_Close(v),
				     ret == -ECHILD || ret == -EBADF || !ret);
	}
	/* Close of an inherited card only forgets it; then its streams' */
	sh = __atomic_load_n(&stc.h, __ATOMIC_RELAXED);
	CHILD_EXPECT(HelloFPGA_Close(h), !ret);
	CHILD_EXPECT(HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), NULL),
		     ret == -EBADF);
	if (sh && FZ_CHILD_MALLOC) {
		CHILD_EXPECT(HelloFPGA_Close(sh), !ret || ret == -EBADF);
		for (int i = 0; i < FZ_ST_CH; i++) {
			v = __atomic_load_n(&slots[i].s, __ATOMIC_RELAXED);
			if (!v)
				continue;
			CHILD_EXPECT(HelloFPGA_Stream_Close(v),
				     !ret || ret == -EBADF || ret == -ECHILD);
			CHILD_EXPECT(HelloFPGA_Stream_Wait(v, 0, &f),
				     ret == -EBADF || ret == -ECHILD);
		}
	}
#undef CHILD_EXPECT
	msg[0] = '\0';
	return 0;
}

/*
 * A fork storm: a thread about to fork() says so, and the other threads,
 * at their next call, make calls that take the library's process-wide
 * locks (the stream table's, the emulated GPU's allocations' and streams')
 * until the child has ended, so that the fork() comes while one is held.
 */
static struct {
	int owner;		/* atomic: the forking thread + 1, or 0 */
	int hammering;		/* atomic: threads in fork_hammer() */
} fstorm;

static void fork_hammer(struct fz_thread *t)
{
	HELLOFPGA_STREAM_STATS st;
	uint8_t b[64];
	void *gs;
	int ret;

	if (__atomic_load_n(&fstorm.owner, __ATOMIC_ACQUIRE) == t->id + 1)
		return;
	fz_log(t, "calls that take the library's locks while another thread forks");
	__atomic_add_fetch(&fstorm.hammering, 1, __ATOMIC_ACQ_REL);
	while (!t->failed && !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&fstorm.owner, __ATOMIC_ACQUIRE)) {
		switch (below(t, 3)) {
		case 0:
			ret = HelloFPGA_Stream_GetStats(
				__atomic_load_n(&slots[below(t, FZ_ST_CH)].s,
						__ATOMIC_RELAXED), &st);
			doc_ok(t, "HelloFPGA_Stream_GetStats", ret);
			break;
		case 1:
			gs = __atomic_load_n(&gsp.s[below(t, FZ_GS)],
					     __ATOMIC_RELAXED);
			if (gs)
				doc_ok(t, "HelloFPGA_GPU_StreamSynchronize",
				       HelloFPGA_GPU_StreamSynchronize(gs, 0));
			break;
		default:
			if (t->g[0].gpu)
				must_succeed(t, "HelloFPGA_GPU_Memcpy",
					     HelloFPGA_GPU_Memcpy(b, t->g[0].gpu,
								  sizeof(b),
								  HELLOFPGA_MEMCPY_GPU_TO_HOST),
					     NULL);
			break;
		}
	}
	__atomic_sub_fetch(&fstorm.hammering, 1, __ATOMIC_ACQ_REL);
}

static void op_fork(struct fz_thread *t)
{
	char *msg;
	int status = 0, zero = 0;
	bool in_storm = false;
	pid_t pid;

	msg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (msg == MAP_FAILED)
		return;
	msg[0] = '\0';
	if (nthreads > 1 && chance(t, 70))
		in_storm = __atomic_compare_exchange_n(&fstorm.owner, &zero,
						       t->id + 1, false,
						       __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE);
	/* until a thread hammers (bounded: they may be busy) */
	for (int i = 0; in_storm && i < 1000 &&
	     !__atomic_load_n(&fstorm.hammering, __ATOMIC_ACQUIRE); i++)
		usleep(10);
	fz_log(t, "fork(), the child calls on what the parent opened%s",
	       in_storm ? ", the other threads inside calls" : "");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		if (in_storm)
			__atomic_store_n(&fstorm.owner, 0, __ATOMIC_RELEASE);
		munmap(msg, 4096);
		return;
	}
	if (pid == 0) {
		alarm(10);
		_exit(fork_child(t, msg, 4096));
	}
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	if (in_storm)
		__atomic_store_n(&fstorm.owner, 0, __ATOMIC_RELEASE);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status))
		fz_fail(t, "fork: the child %s (status 0x%x)%s%s",
			WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ?
			"hung (10 s)" : "failed", status, msg[0] ? ": " : "",
			msg);
	munmap(msg, 4096);
}

/* ---- the threads ---- */

/*
 * The mix of calls, per mille: of the parts, the first wins whose bound
 * the draw is below (a part switched off makes no call for its share).
 */
static const struct {
	unsigned int below;
	enum fz_part part;
	void (*op)(struct fz_thread *t);
} mix[] = {
	{ 140, P_DATA, op_write },
	{ 250, P_DATA, op_read },
	{ 300, P_DATA, op_bad_dma },
	{ 360, P_GPUDIRECT, op_xfer },
	{ 390, P_GPUDIRECT, op_pin },
	{ 410, P_GPUDIRECT, op_unpin },
	{ 420, P_GPUDIRECT, op_free_pinned },
	{ 450, P_TRANSFER_MODE, op_transfer_mode },
	{ 490, P_TRANSFER_MODE, op_dma_gpu },
	{ 520, P_GPU_MEM, op_gpu_mem },
	{ 570, P_INFO, op_info },
	{ 610, P_USER, op_user },
	{ 640, P_USER_IRQ, op_user_irq },
	{ 840, P_STREAM, op_stream },
	{ 870, P_STREAM, op_st_h2c },
	{ 875, P_STREAM_CLOSE, op_st_card_close },
	{ 895, P_GPU_STREAM, op_gpu_stream },
	{ 935, P_SUBMIT, op_submit },
	{ 955, P_SUBMIT, op_complete },
	{ 960, P_SUBMIT, op_sub_pin },
	{ 970, P_OPEN, op_open },
	{ 978, P_CLOSED_HANDLE, op_closed_handle },
	{ 990, P_CLOSE_RACE, op_close_race },
	{ 994, P_BAD_HOST_PTR, op_bad_host_ptr },
	{ 996, P_SHORT_TIMEOUT, op_short_timeout },
	{ 1000, P_FORK, op_fork },
};

static void one_call(struct fz_thread *t)
{
	unsigned int r = below(t, 1000);

	for (size_t i = 0; i < ARRAY_SIZE(mix); i++) {
		if (r < mix[i].below) {
			if (part_on[mix[i].part])
				mix[i].op(t);
			return;
		}
	}
}

static void *thread_main(void *arg)
{
	struct fz_thread *t = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && !t->failed) {
		if (__atomic_load_n(&storm.v, __ATOMIC_ACQUIRE))
			storm_hammer(t);
		if (__atomic_load_n(&fstorm.owner, __ATOMIC_ACQUIRE))
			fork_hammer(t);
		one_call(t);
	}
	__atomic_add_fetch(&ndone, 1, __ATOMIC_RELEASE);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t env_num(const char *name, uint64_t def, uint64_t max)
{
	const char *v = getenv(name);
	uint64_t n;

	if (!v || !*v)
		return def;
	HF_CHECK_MSG(!hf_parse_number(v, 0, max, &n),
		     "%s=%s: not a number 0..%llu (README.md, \"Numbers\")",
		     name, v, (unsigned long long)max);
	return n;
}

static bool part_index_known(const char *name)
{
	for (int i = 0; i < P_COUNT; i++)
		if (!strcmp(name, parts[i].name))
			return true;
	return false;
}

/* HF_FUZZ_ENABLE / HF_FUZZ_DISABLE: comma-separated parts, or "all". */
static void set_parts(const char *env, bool on)
{
	char buf[512], *tok, *save = NULL;
	const char *v = getenv(env);
	int i;

	if (!v || !*v)
		return;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < P_COUNT; i++)
			if (!strcmp(tok, "all") || !strcmp(tok, parts[i].name))
				part_on[i] = on;
		HF_CHECK_MSG(!strcmp(tok, "all") ||
			     part_index_known(tok), "%s: no part '%s'", env,
			     tok);
	}
}

static void setup(int n)
{
	HELLOFPGA_GPU_STATUS st;
	char on[512] = "", off[512] = "";
	uint64_t seed;

	nthreads = n;
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	verbose = env_num("HF_FUZZ_VERBOSE", 0, 1);
	for (int i = 0; i < P_COUNT; i++)
		part_on[i] = parts[i].on;
	set_parts("HF_FUZZ_ENABLE", true);
	set_parts("HF_FUZZ_DISABLE", false);
	seed = env_num("HF_FUZZ_SEED", 0, UINT64_MAX);
	if (!getenv("HF_FUZZ_SEED") || !*getenv("HF_FUZZ_SEED")) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000000007u + ts.tv_nsec;
	}
	/* first, so that a failure can be replayed */
	printf("seed %llu\n", (unsigned long long)seed);
	fflush(stdout);
	hf_test_log("seed %llu (HF_FUZZ_SEED=%llu replays it), %d thread%s",
		    (unsigned long long)seed, (unsigned long long)seed, n,
		    n == 1 ? "" : "s");
	for (int i = 0; i < P_COUNT; i++) {
		char *dst = part_on[i] ? on : off;
		size_t l = strlen(dst);

		snprintf(dst + l, 512 - l, "%s%s", l ? "," : "", parts[i].name);
	}
	hf_test_log("parts on: %s; off: %s (HF_FUZZ_ENABLE=NAME)", on,
		    off[0] ? off : "none");
	for (int i = 0; verbose && i < P_COUNT; i++)
		if (!part_on[i] && parts[i].why_off)
			hf_test_log("  %s is off by default: %s", parts[i].name,
				    parts[i].why_off);

	setenv("HELLOFPGA_GPU", "emu", 1);
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	HF_CHECK_MSG(st.supported, "no emulated GPU: %s", st.reason);
	t_emu_dir();
	ncards = ARRAY_SIZE(cards);
	for (int i = 0; i < ncards; i++) {
		struct fz_card *c = &cards[i];

		c->h = t_open(c->name);
		t_need_emulated(c->h, "memory, read directly");
		HF_CHECK_EQ(HelloFPGA_GetInfo(c->h, &c->info), 0);
		c->mem = xdma_model_card_mem(hf_emu_test_model(c->h));
		HF_CHECK(c->mem);
		c->slice = ALIGN_DOWN(c->info.ddr_size / (n + 1), 4096);
		c->guard = n * c->slice;
	}
	for (int i = 0; i < n; i++) {
		struct fz_thread *t = &threads[i];

		memset(t, 0, sizeof(*t));
		t->id = i;
		t->rng = (seed ^ (0x9e3779b97f4a7c15ull * (i + 1))) | 1;
		t->host = malloc(FZ_HOST);
		HF_CHECK(t->host);
		for (int c = 0; c < ncards; c++) {
			t->shadow[c] = calloc(1, cards[c].slice);
			HF_CHECK(t->shadow[c]);
		}
		for (int g = 0; g < FZ_NGPU; g++) {
			t->g[g].copy = malloc(FZ_GPU_SIZE);
			HF_CHECK(t->g[g].copy);
		}
	}
	if (part_on[P_CLOSE_RACE])
		HF_CHECK_EQ(HelloFPGA_Open(FZ_RACE_NAME, &race_h), 0);
	for (int i = 0; i < FZ_ST_CH; i++) {
		memset(&slots[i], 0, sizeof(slots[i]));
		pthread_mutex_init(&slots[i].lock, NULL);
	}
	stc.gen = 0;
	stc.h = NULL;
	storm.v = NULL;
	storm.hammering = 0;
	storm.n = 0;
	storm.hammered = 0;
	fstorm.owner = 0;
	fstorm.hammering = 0;
	wedged.count = 0;
	if (part_on[P_STREAM]) {
		HELLOFPGA_HANDLE h;

		HF_CHECK_EQ(HelloFPGA_Open(FZ_ST_NAME, &h), 0);
		/* the source: 4 KiB frames back to back on every channel */
		HF_CHECK_EQ(st_source_start(h), 0);
		stc.h = h;
	}
	memset(gsp.s, 0, sizeof(gsp.s));
	memset(gsp.dead, 0, sizeof(gsp.dead));
	tks.n = 0;
	__atomic_store_n(&excused_faults, 0, __ATOMIC_RELAXED);
	if (part_on[P_SUBMIT]) {
		struct fz_card *c = &subc;

		c->h = t_open(c->name);
		HF_CHECK_EQ(HelloFPGA_GetInfo(c->h, &c->info), 0);
		c->slice = ALIGN_DOWN(c->info.ddr_size / n, 4096);
	}
}

/* The guard of every card is still all zeros: nobody wrote it. */
static bool guards_intact(char *why, size_t len)
{
	for (int i = 0; i < ncards; i++) {
		const struct fz_card *c = &cards[i];

		for (uint64_t a = c->guard; a < c->info.ddr_size; a++) {
			if (c->mem[a]) {
				snprintf(why, len,
					 "card %s byte 0x%llx of the guard (nobody writes it) is 0x%02x",
					 c->name, (unsigned long long)a,
					 c->mem[a]);
				return false;
			}
		}
	}
	return true;
}

static void teardown(void)
{
	/* the streams, their rings, the stream card */
	for (int i = 0; i < FZ_ST_CH; i++) {
		struct fz_slot *sl = &slots[i];

		if (sl->state != SL_OPEN)
			continue;
		HF_CHECK_EQ(HelloFPGA_Stream_Close(sl->s), 0);
		free(sl->host);
		if (sl->ring == RING_GPU) {
			int ret = HelloFPGA_GPUDirect_Unpin(sl->h, sl->pin);

			/* gone with its card if that was closed */
			HF_CHECK(ret == 0 || (ret == -EBADF && sl->h != stc.h));
			if (sl->gpu)
				HF_CHECK_EQ(HelloFPGA_GPU_Free(sl->gpu), 0);
		}
		sl->state = SL_EMPTY;
	}
	if (stc.h) {
		HF_CHECK_EQ(HelloFPGA_Close(stc.h), 0);
		stc.h = NULL;
	}
	for (int i = 0; i < ncards; i++) {
		HF_CHECK_EQ(HelloFPGA_Close(cards[i].h), 0);
		cards[i].h = NULL;
	}
	if (race_h) {
		HelloFPGA_Close(race_h);
		race_h = NULL;
	}
	/* queued submissions are cancelled, their words marked */
	if (subc.h) {
		HF_CHECK_EQ(HelloFPGA_Close(subc.h), 0);
		subc.h = NULL;
	}
	/* the rings of wedged streams: nothing writes them any more */
	for (unsigned int i = 0; i < wedged.n; i++) {
		free(wedged.host[i]);
		if (wedged.gpu[i])
			HF_CHECK_EQ(HelloFPGA_GPU_Free(wedged.gpu[i]), 0);
	}
	wedged.n = 0;
	/* every GPU wait ended with its stream's or its card's close */
	for (int i = 0; i < FZ_GS; i++) {
		if (!gsp.s[i])
			continue;
		HF_CHECK_EQ(HelloFPGA_GPU_StreamSynchronize(gsp.s[i], 10000), 0);
		HF_CHECK_EQ(HelloFPGA_GPU_StreamDestroy(gsp.s[i]), 0);
		gsp.s[i] = NULL;
	}
	for (int i = 0; i < nthreads; i++) {
		struct fz_thread *t = &threads[i];

		for (int g = 0; g < FZ_NGPU; g++) {
			if (t->g[g].gpu)
				HF_CHECK_EQ(HelloFPGA_GPU_Free(t->g[g].gpu), 0);
			free(t->g[g].copy);
		}
		if (t->sgpu)
			HF_CHECK_EQ(HelloFPGA_GPU_Free(t->sgpu), 0);
		t->sgpu = NULL;
		t->spin = 0;
		for (int c = 0; c < ncards; c++)
			free(t->shadow[c]);
		free(t->host);
	}
}

/* Longest a thread may take to end its call once told to stop. */
#define FZ_HANG_S	30

/*
 * A thread still inside a call FZ_HANG_S after the stop: print what each
 * such thread did last and end the program (its calls cannot be undone).
 */
static void fuzz_hang(int n)
{
	for (int i = 0; i < n; i++) {
		struct fz_thread *t = &threads[i];
		int r = pthread_tryjoin_np(t->th, NULL);

		if (r != EBUSY)
			continue;
		hf_test_log("thread %d has not returned from its call for %d s; its last calls, oldest first:",
			    i, FZ_HANG_S);
		for (unsigned int k = 0; k < FZ_LOG && k < t->logn; k++)
			hf_test_log("  %s",
				    t->log[(t->logn - FZ_LOG + k) % FZ_LOG]);
	}
	printf("FAIL: a call hung (see above)\n");
	fflush(NULL);
	_exit(1);
}

static void run(int n)
{
	double secs = env_num("HF_FUZZ_SECONDS", 3, 3600), end;
	char why[256] = "";
	uint64_t calls = 0;
	int failed = -1;

	setup(n);
	/*
	 * Freed memory is scribbled over (glibc; the sanitizers' allocators
	 * ignore it): a use after free shows as garbage, not old values.
	 */
	mallopt(M_PERTURB, 0x5a);
	__atomic_store_n(&ndone, 0, __ATOMIC_RELAXED);
	end = now_s() + secs;
	for (int i = 0; i < n; i++)
		HF_CHECK(!pthread_create(&threads[i].th, NULL, thread_main,
					 &threads[i]));
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && now_s() < end) {
		usleep(20000);
		if (!guards_intact(why, sizeof(why)))
			break;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	/* a call that never returns (a lost wake-up, a lock held for ever) */
	end = now_s() + FZ_HANG_S;
	while (__atomic_load_n(&ndone, __ATOMIC_ACQUIRE) < n && now_s() < end)
		usleep(20000);
	if (__atomic_load_n(&ndone, __ATOMIC_ACQUIRE) < n)
		fuzz_hang(n);
	mallopt(M_PERTURB, 0);
	for (int i = 0; i < n; i++) {
		pthread_join(threads[i].th, NULL);
		calls += threads[i].calls;
		if (threads[i].failed && failed < 0)
			failed = i;
	}
	if (!why[0])
		guards_intact(why, sizeof(why));
	hf_test_log("%llu calls in %.0f s by %d thread%s",
		    (unsigned long long)calls, secs, n, n == 1 ? "" : "s");
	if (wedged.count)
		hf_test_log("%u stream%s wedged at their close (-EIO)",
			    wedged.count, wedged.count == 1 ? "" : "s");
	if (storm.n)
		hf_test_log("%u Stream_Close%s with other threads' calls on the stream, %u hammered",
			    storm.n, storm.n == 1 ? "" : "s", storm.hammered);
	if (failed >= 0) {
		struct fz_thread *t = &threads[failed];

		for (unsigned int i = 0; i < FZ_LOG && i < t->logn; i++)
			hf_test_log("  %s",
				    t->log[(t->logn - FZ_LOG + i) % FZ_LOG]);
		HF_CHECK_MSG(0, "%s", t->failure);
	}
	HF_CHECK_MSG(!why[0], "%s", why);
	teardown();
	/* after the engines stopped: no fault comes later */
	t_expect_dma_faults(__atomic_load_n(&excused_faults, __ATOMIC_RELAXED));
}

/* One thread: a seed replays the same calls. */
HF_TEST(fuzz_api_one_thread)
{
	run(1);
}

/* Several threads on shared handles, channels, cards and the GPU. */
HF_TEST(fuzz_api_threads)
{
	run(env_num("HF_FUZZ_THREADS", 3, FZ_MAX_THREADS));
}
