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
 *			  printed first, HF_FUZZ_SEED=N replays it
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
 * and valid requests too.  Checks:
 *  - every int function returns 0, a positive value, or a negative errno
 *    that include/hellofpga.h lists for it (tests/lib/api_doc.c reads the
 *    header), and a valid request succeeds;
 *  - card memory: each thread owns a slice of every card (the last slice
 *    is a guard nobody writes), and keeps a shadow copy of it; after each
 *    data call the card's memory (read straight from the emulated card)
 *    still matches the shadow outside the request, and inside it when
 *    the call succeeded; a rejected request changes nothing and reports 0
 *    bytes moved; data read, into host or GPU memory, is the shadow's;
 *  - the emulated card makes no DMA fault (the harness's check after the
 *    case, tests/dma_faults.c), but for those a wedged short-timeout run
 *    makes by design (short_timeout_wedged()).
 *
 * Every part is on by default.  A part that a known bug would fail is
 * marked off in parts[] with the reason, until the fix lands;
 * HF_FUZZ_ENABLE=name turns it on anyway.
 */
#include <errno.h>
#include <limits.h>
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
	/* off by default: */
	P_CLOSED_HANDLE,	/* calls on a handle after its Close */
	P_CLOSE_RACE,		/* Close while other threads use the handle */
	P_BAD_HOST_PTR,		/* unmapped, PROT_NONE, read-only host buffers */
	P_SHORT_TIMEOUT,	/* 1..20 ms timeouts, -ETIMEDOUT and actual */
	P_FORK,			/* fork(), the child uses inherited handles */
	P_SHARED_OPEN,		/* threads open the same shared emu:N at once */
	P_STREAM,		/* Stream_* on an AXI-Stream card, good and bad */
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
	HELLOFPGA_STREAM stream;	/* P_STREAM: the thread's, or NULL */
	HELLOFPGA_STREAM closed_stream;	/* P_STREAM: one it closed */
	void *gstream;			/* P_STREAM: its GPU stream */
	uint32_t stream_bufs;		/* its buffers */
	uint64_t stream_held;		/* bit i: buffer i is held */
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
static bool verbose;
static HELLOFPGA_HANDLE race_h;		/* P_CLOSE_RACE's card */
static HELLOFPGA_HANDLE st_h;		/* P_STREAM's card (AXI-Stream) */
#define FZ_ST_CARD	"emu:8,private,st,ddr=64K,h2c=1,c2h=4"
static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
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

/* The user BAR: scratch and RAM (the thread's own word), bad offsets. */
/*
 * User interrupts: raise, pulse and drop the reference design's lines, and
 * wait for them with good and bad arguments (a wait of 0 or 1 ms: the
 * fuzzer never blocks).  Any result must be one the header lists.
 */
static void op_user_irq(struct fz_thread *t, const struct fz_card *c,
			uint32_t val)
{
	static const uint32_t regs[] = {
		HF_USER_IRQ_SET, HF_USER_IRQ_CLEAR, HF_USER_IRQ_PULSE,
	};
	int irq = chance(t, 80) ? (int)below(t, HELLOFPGA_USER_IRQS) :
		  (int)below(t, 40) - 20;
	uint32_t r = regs[below(t, ARRAY_SIZE(regs))], n = 0;
	int fd = -1, ret;

	switch (below(t, 4)) {
	case 0:
		fz_log(t, "HelloFPGA_UserWrite32(%s, 0x%x, 0x%x): user IRQ",
		       c->name, r, val);
		must_succeed(t, "HelloFPGA_UserWrite32",
			     HelloFPGA_UserWrite32(c->h, r, val), c->h);
		break;
	case 1:
		fz_log(t, "HelloFPGA_UserIRQ_Wait(%s, %d)", c->name, irq);
		ret = HelloFPGA_UserIRQ_Wait(c->h, irq, (int)below(t, 2),
					     chance(t, 90) ? &n : NULL);
		if (doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret) && !ret && !n)
			fz_fail(t, "HelloFPGA_UserIRQ_Wait: 0 with a count of 0");
		break;
	case 2:
		fz_log(t, "HelloFPGA_UserIRQ_GetFd(%s, %d)", c->name, irq);
		ret = HelloFPGA_UserIRQ_GetFd(c->h, irq,
					      chance(t, 90) ? &fd : NULL);
		if (doc_ok(t, "HelloFPGA_UserIRQ_GetFd", ret) && !ret &&
		    fd < 0)
			fz_fail(t, "HelloFPGA_UserIRQ_GetFd: 0 with fd %d", fd);
		break;
	default:
		fz_log(t, "HelloFPGA_UserIRQ_Wait/GetFd(bad handle)");
		must_fail(t, "HelloFPGA_UserIRQ_Wait",
			  HelloFPGA_UserIRQ_Wait(BOGUS, 0, 0, &n));
		must_fail(t, "HelloFPGA_UserIRQ_GetFd",
			  HelloFPGA_UserIRQ_GetFd(NULL, 0, &fd));
		break;
	}
}

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
		op_user_irq(t, c, val);
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
		ret = HelloFPGA_Open("emu:9,private,ddr=64K", &h);
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
	/* h may be closed by now: only documented errors */
	fz_log(t, "transfers on the race card");
	doc_ok(t, "HelloFPGA_DMA_MM_WriteH2C",
	       HelloFPGA_DMA_MM_WriteH2C(h, 0, b, 0, sizeof(b), NULL));
	doc_ok(t, "HelloFPGA_DMA_MM_ReadC2H",
	       HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), NULL));
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

/*
 * P_FORK: in a child, an inherited handle fails at once with -ECHILD and
 * Close of it only forgets it; the parent's card goes on.
 */
static void op_fork(struct fz_thread *t)
{
	const struct fz_card *c = &cards[0];
	int status = 0;
	pid_t pid;

	fz_log(t, "fork(), the child reads %s", c->name);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		uint8_t b[64];
		int ret;

		alarm(10);
		ret = HelloFPGA_DMA_MM_ReadC2H(c->h, 0, b, 0, sizeof(b), NULL);
		if (ret != -ECHILD)
			_exit(1);
		_exit(HelloFPGA_Close(c->h) ? 2 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fz_fail(t, "fork: the child ended with status 0x%x", status);
}

/* ---- the threads ---- */

static void fz_noop(void *arg)
{
	(void)arg;
}

/*
 * GPU-side waits on the thread's stream: sequences in, behind and ahead
 * of the window, unknown flags, a made-up GPU stream, a host function
 * after them.  The waits end when the stream closes (its error mark).
 */
static void op_stream_gpu_wait(struct fz_thread *t)
{
	HELLOFPGA_GPU_WAIT w;
	void *gs = t->gstream;
	uint64_t seq = below(t, 3 * t->stream_bufs + 1);
	uint32_t flags = chance(t, 10) ? (uint32_t)rnd(t) : 0;
	int ret;

	if (!gs) {
		ret = HelloFPGA_GPU_StreamCreate(&t->gstream);
		if (!doc_ok(t, "HelloFPGA_GPU_StreamCreate", ret) || ret) {
			t->gstream = NULL;
			return;
		}
		gs = t->gstream;
	}
	if (chance(t, 10))
		gs = (void *)(uintptr_t)rnd(t);
	fz_log(t, "HelloFPGA_Stream_WaitOnGPU(%p, %llu, 0x%x)", gs,
	       (unsigned long long)seq, flags);
	ret = HelloFPGA_Stream_WaitOnGPU(t->stream, gs, seq, flags, &w);
	if (!doc_ok(t, "HelloFPGA_Stream_WaitOnGPU", ret))
		return;
	if (!ret && (w.index >= t->stream_bufs || w.sequence != seq))
		fz_fail(t, "HelloFPGA_Stream_WaitOnGPU: buffer %u of %u for %llu",
			w.index, t->stream_bufs, (unsigned long long)seq);
	if (chance(t, 30))
		doc_ok(t, "HelloFPGA_GPU_LaunchHostFunc",
		       HelloFPGA_GPU_LaunchHostFunc(gs, fz_noop, NULL));
	/* a GPU release of a buffer the thread does not hold (a held one's
	 * would end at a time the statistics check cannot know) */
	for (uint32_t i = 0; i < t->stream_bufs + 2; i++) {
		if (i < t->stream_bufs && t->stream_held & (1ull << i))
			continue;
		fz_log(t, "HelloFPGA_Stream_ReleaseOnGPU(%u), not held", i);
		must_fail(t, "HelloFPGA_Stream_ReleaseOnGPU",
			  HelloFPGA_Stream_ReleaseOnGPU(t->stream, gs, i, 0));
		break;
	}
}

/*
 * Streams on the AXI-Stream card: each thread opens one on a channel of
 * its own (threads beyond the card's four channels get -EBUSY), waits
 * without blocking, releases what it holds and what it does not, reads
 * the statistics, enqueues GPU-side waits, closes; bad configurations and
 * closed or made-up streams.  Every result one the header lists; a good
 * request works.
 */
static void op_stream(struct fz_thread *t)
{
	HELLOFPGA_STREAM_CONFIG c;
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_STREAM bogus;
	HELLOFPGA_FRAME f;
	uint32_t i;
	int ret;

	switch (below(t, 9)) {
	case 0:
	case 1:
		if (t->stream)
			break;
		memset(&c, 0, sizeof(c));
		c.channel = t->id % 4;
		c.buffers = 2 + below(t, 6);
		c.buffer_size = 4096 * (1 + below(t, 2));
		if (chance(t, 25)) {	/* one field wrong */
			switch (below(t, 5)) {
			case 0:
				c.channel = (int)below(t, 20) - 10 + 4;
				break;
			case 1:
				c.buffers = chance(t, 50) ? below(t, 2) :
					    HELLOFPGA_STREAM_MAX_BUFFERS + 1 +
					    below(t, 1000);
				break;
			case 2:
				c.buffer_size = chance(t, 50) ? 4096 + 1 +
						below(t, 4095) : SIZE_MAX;
				break;
			case 3:
				c.reserved[below(t, 7)] = 1;
				break;
			default:
				c.gpu = rnd(t);
				break;
			}
		}
		fz_log(t, "HelloFPGA_Stream_Open(ch %d, %u x %zu)", c.channel,
		       c.buffers, c.buffer_size);
		ret = HelloFPGA_Stream_Open(st_h, &c, &t->stream);
		if (!doc_ok(t, "HelloFPGA_Stream_Open", ret) || ret) {
			t->stream = NULL;
			break;
		}
		t->stream_bufs = c.buffers;
		t->stream_held = 0;
		break;
	case 2:
	case 3:
		if (!t->stream)
			break;
		fz_log(t, "HelloFPGA_Stream_Wait(0)");
		ret = HelloFPGA_Stream_Wait(t->stream, (int)below(t, 2), &f);
		if (!doc_ok(t, "HelloFPGA_Stream_Wait", ret) || ret)
			break;
		if (f.index >= t->stream_bufs ||
		    t->stream_held & (1ull << f.index))
			fz_fail(t, "HelloFPGA_Stream_Wait: buffer %u of %u, held %#llx",
				f.index, t->stream_bufs,
				(unsigned long long)t->stream_held);
		else
			t->stream_held |= 1ull << f.index;
		break;
	case 4:
		if (!t->stream)
			break;
		i = below(t, t->stream_bufs + 2);
		fz_log(t, "HelloFPGA_Stream_Release(%u)", i);
		ret = HelloFPGA_Stream_Release(t->stream, i);
		if (i < t->stream_bufs && t->stream_held & (1ull << i)) {
			if (must_succeed(t, "HelloFPGA_Stream_Release", ret,
					 st_h))
				t->stream_held &= ~(1ull << i);
		} else {
			must_fail(t, "HelloFPGA_Stream_Release", ret);
		}
		break;
	case 5:
		if (!t->stream)
			break;
		fz_log(t, "HelloFPGA_Stream_GetStats");
		ret = HelloFPGA_Stream_GetStats(t->stream, &st);
		if (must_succeed(t, "HelloFPGA_Stream_GetStats", ret, st_h) &&
		    st.held != (uint32_t)__builtin_popcountll(t->stream_held))
			fz_fail(t, "HelloFPGA_Stream_GetStats: %u held, the thread holds %d",
				st.held, __builtin_popcountll(t->stream_held));
		break;
	case 6:
		if (!t->stream)
			break;
		fz_log(t, "HelloFPGA_Stream_Close");
		must_succeed(t, "HelloFPGA_Stream_Close",
			     HelloFPGA_Stream_Close(t->stream), st_h);
		t->closed_stream = t->stream;
		t->stream = NULL;
		break;
	case 7:
		if (t->stream)
			op_stream_gpu_wait(t);
		break;
	default:
		bogus = t->closed_stream && chance(t, 50) ? t->closed_stream :
			(HELLOFPGA_STREAM)(void *)(uintptr_t)rnd(t);
		if (!bogus)
			break;
		fz_log(t, "HelloFPGA_Stream_*(%p): closed or made up",
		       (void *)bogus);
		must_fail(t, "HelloFPGA_Stream_Wait",
			  HelloFPGA_Stream_Wait(bogus, 0, &f));
		must_fail(t, "HelloFPGA_Stream_Release",
			  HelloFPGA_Stream_Release(bogus, 0));
		must_fail(t, "HelloFPGA_Stream_GetStats",
			  HelloFPGA_Stream_GetStats(bogus, &st));
		must_fail(t, "HelloFPGA_Stream_WaitOnGPU",
			  HelloFPGA_Stream_WaitOnGPU(bogus, t->gstream, 0, 0,
						     NULL));
		must_fail(t, "HelloFPGA_Stream_Close",
			  HelloFPGA_Stream_Close(bogus));
		break;
	}
}

static void one_call(struct fz_thread *t)
{
	unsigned int r = below(t, 100);

	if (r < 22 && part_on[P_DATA])
		op_write(t);
	else if (r < 40 && part_on[P_DATA])
		op_read(t);
	else if (r < 48 && part_on[P_DATA])
		op_bad_dma(t);
	else if (r < 56 && part_on[P_GPUDIRECT])
		op_xfer(t);
	else if (r < 60 && part_on[P_GPUDIRECT])
		op_pin(t);
	else if (r < 63 && part_on[P_GPUDIRECT])
		op_unpin(t);
	else if (r < 64 && part_on[P_GPUDIRECT])
		op_free_pinned(t);
	else if (r < 69 && part_on[P_TRANSFER_MODE])
		op_transfer_mode(t);
	else if (r < 76 && part_on[P_TRANSFER_MODE])
		op_dma_gpu(t);
	else if (r < 80 && part_on[P_GPU_MEM])
		op_gpu_mem(t);
	else if (r < 88 && part_on[P_INFO])
		op_info(t);
	else if (r < 93 && part_on[P_USER])
		op_user(t);
	else if (r < 94 && part_on[P_STREAM])
		op_stream(t);
	else if (r < 95 && part_on[P_OPEN])
		op_open(t);
	else if (r < 96 && part_on[P_CLOSED_HANDLE])
		op_closed_handle(t);
	else if (r < 98 && part_on[P_CLOSE_RACE])
		op_close_race(t);
	else if (r < 99 && part_on[P_BAD_HOST_PTR])
		op_bad_host_ptr(t);
	else if (part_on[P_SHORT_TIMEOUT] && chance(t, 20))
		op_short_timeout(t);
	else if (part_on[P_FORK] && chance(t, 5))
		op_fork(t);
}

static void *thread_main(void *arg)
{
	struct fz_thread *t = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && !t->failed)
		one_call(t);
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
	__atomic_store_n(&excused_faults, 0, __ATOMIC_RELAXED);
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
		HF_CHECK_EQ(HelloFPGA_Open("emu:9,private,ddr=64K", &race_h),
			    0);
	if (part_on[P_STREAM]) {
		HF_CHECK_EQ(HelloFPGA_Open(FZ_ST_CARD, &st_h), 0);
		/* the source: 4 KiB frames back to back on every channel */
		for (uint32_t ch = 0; ch < 4; ch++) {
			HF_CHECK_EQ(HelloFPGA_UserWrite32(st_h,
				HF_USER_ST_SRC(ch) + HF_ST_SRC_FRAME_SIZE, 4096), 0);
			HF_CHECK_EQ(HelloFPGA_UserWrite32(st_h,
				HF_USER_ST_SRC(ch) + HF_ST_SRC_CTRL,
				HF_ST_SRC_CTRL_ENABLE), 0);
		}
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
	for (int i = 0; i < ncards; i++) {
		HF_CHECK_EQ(HelloFPGA_Close(cards[i].h), 0);
		cards[i].h = NULL;
	}
	if (race_h) {
		HelloFPGA_Close(race_h);
		race_h = NULL;
	}
	for (int i = 0; i < nthreads; i++) {
		if (threads[i].stream)
			HF_CHECK_EQ(HelloFPGA_Stream_Close(threads[i].stream), 0);
		threads[i].stream = NULL;
		/* its waits ended with the close's mark */
		if (threads[i].gstream) {
			HF_CHECK_EQ(HelloFPGA_GPU_StreamSynchronize(threads[i].gstream,
								    10000), 0);
			HF_CHECK_EQ(HelloFPGA_GPU_StreamDestroy(threads[i].gstream),
				    0);
		}
		threads[i].gstream = NULL;
	}
	if (st_h) {
		HF_CHECK_EQ(HelloFPGA_Close(st_h), 0);
		st_h = NULL;
	}
	for (int i = 0; i < nthreads; i++) {
		struct fz_thread *t = &threads[i];

		for (int g = 0; g < FZ_NGPU; g++) {
			if (t->g[g].gpu)
				HF_CHECK_EQ(HelloFPGA_GPU_Free(t->g[g].gpu), 0);
			free(t->g[g].copy);
		}
		for (int c = 0; c < ncards; c++)
			free(t->shadow[c]);
		free(t->host);
	}
}

static void run(int n)
{
	double secs = env_num("HF_FUZZ_SECONDS", 3, 3600), end;
	char why[256] = "";
	uint64_t calls = 0;
	int failed = -1;

	setup(n);
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
