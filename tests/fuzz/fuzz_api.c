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
 *
 * Files: this one has the parts, the state, the helpers and the threads;
 * each API family's calls have a file of their own (fuzz_data.c,
 * fuzz_card.c, fuzz_stream.c, fuzz_submit.c, fuzz_fork.c); fuzz.h is what
 * they share.
 */
#include "fuzz.h"

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

bool part_on[P_COUNT];

/* ---- state ---- */

struct fz_card cards[FZ_NCARDS] = {
	{ .name = "emu:0,private,ddr=1M" },
	{ .name = "emu:1,private,ddr=1M,h2c=2,c2h=1,irq=poll" },
	{ .name = "emu:2,private,ddr=512K,h2c=1,c2h=2,irq=legacy,align=64" },
	{ .name = "emu:3,private,ddr=512K,h2c=2,c2h=2,irq=msi,sync" },
};
int ncards;
int nthreads;
static struct fz_thread threads[FZ_MAX_THREADS];
int stop;		/* atomic: the threads end */
static int ndone;		/* atomic: threads that ended */
static bool verbose;
HELLOFPGA_HANDLE race_h;		/* P_CLOSE_RACE's card */
pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
/* a handle-shaped object that is no handle (magic 0) */
uint64_t bogus_dev[512];

/* ---- helpers ---- */

uint64_t rnd(struct fz_thread *t)
{
	return t_rand(&t->rng);
}

uint64_t below(struct fz_thread *t, uint64_t n)
{
	return n ? rnd(t) % n : 0;
}

bool chance(struct fz_thread *t, unsigned int percent)
{
	return below(t, 100) < percent;
}

/* A length: mostly small, sometimes 0, 1, odd, up to @max. */
size_t rnd_len(struct fz_thread *t, size_t max)
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

void fz_log(struct fz_thread *t, const char *fmt, ...)
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

void fz_fail(struct fz_thread *t, const char *fmt, ...)
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
bool doc_ok(struct fz_thread *t, const char *fn, int ret)
{
	if (t_doc_allows(fn, ret))
		return true;
	fz_fail(t, "%s returned %d (%s), which include/hellofpga.h does not list",
		fn, ret, HelloFPGA_StrError(ret));
	return false;
}

/* A valid call must succeed. */
bool must_succeed(struct fz_thread *t, const char *fn, int ret,
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
bool must_fail(struct fz_thread *t, const char *fn, int ret)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret < 0)
		return true;
	fz_fail(t, "%s: a call with bad arguments returned %d", fn, ret);
	return false;
}

uint64_t slice_base(const struct fz_card *c, int tid)
{
	return (uint64_t)tid * c->slice;
}

/* The largest valid CPU-path request on @c: its slice at most. */
size_t max_xfer(const struct fz_card *c)
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

bool check_whole_slice(struct fz_thread *t, int ci, const char *after)
{
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);

	if (!memcmp(c->mem + base, t->shadow[ci], c->slice))
		return true;
	return check_slice(t, ci, base, base + c->slice, after);
}

/* Around a request: 4 KiB before and after it, and every 32nd call all. */
bool check_around(struct fz_thread *t, int ci, uint64_t off,
		  uint64_t len, const char *after)
{
	if (!(t->calls % 32))
		return check_whole_slice(t, ci, after);
	return check_slice(t, ci, off > 4096 ? off - 4096 : 0,
			   off + len + 4096, after);
}

int pick_card(struct fz_thread *t)
{
	int ci = below(t, ncards);

	if (!part_on[P_ALIGNED_CARD] && cards[ci].info.addr_align > 1)
		ci = 0;
	return ci;
}

/* A channel number, mostly valid for @n channels. */
int rnd_channel(struct fz_thread *t, int n, bool *valid)
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
