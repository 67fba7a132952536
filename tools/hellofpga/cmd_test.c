// SPDX-License-Identifier: MIT
/*
 * cmd_test.c - "hellofpga test": the GPU Direct test program.
 *
 * Fifteen named cases run in order, each reported PASS, FAIL or SKIP with
 * its reason: the ten items of the seed's gpu_direct_api_test (platform
 * detection, pin, card -> GPU, GPU -> card, unpin, byte-by-byte data, a
 * batch of ten reads, seven points over card memory, six stress offsets,
 * six boundary points) and five more (the TransferMode switch, the CPU
 * path beside it, pin misuse, one handle over thousands of transfers,
 * rotation over four pinned buffers).  --soak DURATION then keeps GPU
 * Direct transfers running, samples latency and bandwidth at intervals,
 * verifies the data and reports the drift between the first and the last
 * third of the samples.
 *
 * GPU memory comes from HelloFPGA_GPU_Alloc() and is filled and read
 * through HelloFPGA_GPU_Memcpy() (host staging), so the program runs the
 * same on a real GPU and on the library's emulated one.  Card memory is
 * written and checked through the CPU path (DMA_MM calls with host
 * buffers).  docs/test-program.md describes every case.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define T_NCASES		15
#define T_PAGE			4096u
#define T_DEFAULT_SIZE		(4ull << 20)
#define T_MIN_SIZE		(64ull << 10)
#define T_MAX_SIZE		(1ull << 30)
#define T_STRESS_SIZE		(64ull << 20)
#define T_MIN_DDR		(16ull << 20)
#define T_GUARD			4096u	/* bytes checked untouched each side */
#define T_POISON		0xa5
#define T_BATCH			10
#define T_ADDR_POINTS		7
#define T_STRESS_POINTS		6
#define T_REUSE_XFERS		5000
#define T_REUSE_SIZE		(64u << 10)
#define T_REUSE_SLOTS		16
#define T_REUSE_CHECK_EVERY	250
#define T_REUSE_NEW_EVERY	50
#define T_ROT_BUFS		4
#define T_ROT_SLOTS		8
#define T_ROT_FRAMES		64
#define T_ROT_FRAME		(1u << 20)
#define T_CPU_ROUNDS		32
#define T_SOAK_XFERS		10	/* per direction and sample */
#define T_SOAK_WARMUP		3	/* untimed ones before them */
#define T_SOAK_SAMPLES		72	/* default: DURATION / 72 */
#define T_SOAK_CHECK_EVERY	16	/* load rounds per verified round */
#define T_SOAK_MAX_S		(30ull * 86400)
#define T_NONE			1	/* "no alternative" for expect() */
#define NS_PER_S		1000000000ull

enum t_result { T_NOTRUN = 0, T_PASS, T_FAIL, T_SKIP };

static const char *const result_name[] = { "NOT RUN", "PASS", "FAIL", "SKIP" };

/**
 * struct t_res - the outcome of one case (or of the soak).
 * @res: T_*
 * @ns: wall time of the case
 * @text: PASS: what was checked and measured; FAIL/SKIP: the reason
 */
struct t_res {
	enum t_result res;
	uint64_t ns;
	char text[384];
};

/**
 * struct gbuf - a GPU buffer of the test and its pin.
 * @p: memory from HelloFPGA_GPU_Alloc(), NULL when none
 * @size: bytes
 * @hd: GPU Direct handle, 0 when not pinned
 */
struct gbuf {
	void *p;
	size_t size;
	HELLOFPGA_GPU_HANDLE hd;
};

/**
 * struct soak_sample - one soak measurement.
 * @t_ns: start of the sample since the start of the soak
 * @rd_ns: median card -> GPU transfer time
 * @wr_ns: median GPU -> card transfer time
 * @load: load transfers since the previous sample
 */
struct soak_sample {
	uint64_t t_ns;
	uint64_t rd_ns;
	uint64_t wr_ns;
	uint64_t load;
};

/**
 * struct tctx - the test run.
 * @h: the card
 * @info: what it is
 * @gs: the GPU as HelloFPGA_GetGPUStatus() reports it
 * @ch: H2C and C2H channel of the GPU Direct transfers
 * @size: bytes of an ordinary transfer (--size)
 * @stress: bytes of a stress transfer
 * @gran: engine alignment and length granule (at least 1)
 * @ha, @hb, @hc: host scratch buffers of @hlen bytes each
 * @hlen: their size
 * @shared: the buffer pinned by "pin" and used until "unpin"
 * @cur: outcome of the running case; NULL between cases
 * @prog: progress line of the running case
 * @verified: bytes verified by the running case
 * @soak_ns: --soak, 0 without
 * @interval_ns: --interval
 * @samples: soak samples taken
 * @nsamples: how many
 * @soak_start: when the soak began
 * @soak_shown_ms: milliseconds of it the progress line has counted
 * @soak_last: the last sample, for the progress line (NULL before one)
 * @soak_xfers: soak transfers, measured and load
 * @soak_bytes: bytes they moved
 * @soak: outcome of the soak
 */
struct tctx {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	HELLOFPGA_GPU_STATUS gs;
	int ch;
	size_t size;
	size_t stress;
	uint64_t gran;
	uint8_t *ha;
	uint8_t *hb;
	uint8_t *hc;
	size_t hlen;
	struct gbuf shared;
	struct t_res *cur;
	struct cli_progress prog;
	uint64_t verified;
	uint64_t soak_ns;
	uint64_t interval_ns;
	struct soak_sample *samples;
	size_t nsamples;
	uint64_t soak_start;
	uint64_t soak_shown_ms;
	const struct soak_sample *soak_last;
	uint64_t soak_xfers;
	uint64_t soak_bytes;
	struct t_res soak;
};

struct tcase {
	const char *name;
	const char *title;
	bool gpu;	/* needs a GPU; SKIP without one */
	int (*fn)(struct tctx *t);
};

static volatile sig_atomic_t t_stop;

/* ------------------------------------------------------------------------
 * Outcomes
 * ------------------------------------------------------------------------ */

/* Record the first failure of the running case (later ones add nothing). */
static int __attribute__((format(printf, 2, 3)))
tfail(struct tctx *t, const char *fmt, ...)
{
	char msg[sizeof(t->cur->text)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!t->cur) {
		cli_err("test: %s", msg);
		return -1;
	}
	if (t->cur->res != T_FAIL) {
		t->cur->res = T_FAIL;
		snprintf(t->cur->text, sizeof(t->cur->text), "%s", msg);
	}
	return -1;
}

/**
 * tlibfail() - record a failed library call as
 * "<what>: <StrError(err)>: <GetLastError(h)>".
 * @h: the handle of the call, or NULL for calls without one
 * @err: the negative errno it returned
 * Return: -1.
 */
static int __attribute__((format(printf, 4, 5)))
tlibfail(struct tctx *t, HELLOFPGA_HANDLE h, int err, const char *fmt, ...)
{
	const char *last = HelloFPGA_GetLastError(h);
	char detail[200], what[200];
	va_list ap;

	snprintf(detail, sizeof(detail), "%s", last ? last : "");
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tfail(t, "%s: %s%s%s", what, HelloFPGA_StrError(err),
		     *detail ? ": " : "", detail);
}

/* The PASS text of the running case. */
static void __attribute__((format(printf, 2, 3)))
tpass(struct tctx *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->cur || t->cur->res == T_FAIL)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cur->text, sizeof(t->cur->text), fmt, ap);
	va_end(ap);
}

/* The short name of an error code: "EINVAL" of "EINVAL: invalid argument". */
static const char *errname(int err, char *buf, size_t len)
{
	const char *s;

	if (err == 0)
		return "0";
	s = HelloFPGA_StrError(err);
	snprintf(buf, len, "%.*s", (int)strcspn(s, ":"), s);
	return buf;
}

/**
 * expect() - check that a call returned @want (or @alt; T_NONE for no
 * alternative).
 * @fmt: printf format naming the call
 * Return: 0, or -1 after recording what came back instead.
 */
static int __attribute__((format(printf, 5, 6)))
expect(struct tctx *t, int ret, int want, int alt, const char *fmt, ...)
{
	char what[200], a[32], b[32], c[32];
	va_list ap;

	if (ret == want || (alt != T_NONE && ret == alt))
		return 0;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (alt != T_NONE)
		return tfail(t, "%s: returned %s, expected %s or %s", what,
			     errname(ret, a, sizeof(a)),
			     errname(want, b, sizeof(b)),
			     errname(alt, c, sizeof(c)));
	return tfail(t, "%s: returned %s, expected %s", what,
		     errname(ret, a, sizeof(a)), errname(want, b, sizeof(b)));
}

/* Say what the running case is doing on the progress line. */
static void __attribute__((format(printf, 2, 3)))
tprog(struct tctx *t, const char *fmt, ...)
{
	char msg[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_progress_label(&t->prog, "test: %s", msg);
}

/* ------------------------------------------------------------------------
 * Patterns and checks
 * ------------------------------------------------------------------------ */

/* splitmix64 */
static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The seed of pattern (@cs, @a, @b): case number and two indices. */
static uint64_t seed_of(int cs, uint32_t a, uint32_t b)
{
	return mix64(((uint64_t)cs << 56) ^ ((uint64_t)a << 24) ^ b);
}

/* Pattern families of data_correctness; PAT_RANDOM everywhere else. */
enum { PAT_ZERO, PAT_ONES, PAT_ALT, PAT_INC, PAT_WALK, PAT_RANDOM, PAT_N };

static const char *const pat_name[] = {
	"0x00", "0xff", "0x55/0xaa", "incrementing", "walking one", "random",
};

/**
 * pattern() - fill @len bytes with pattern family @fam of @seed.  A
 * random pattern draws every 8-byte word from its own index, so a copy
 * from the wrong place, shifted or stale, does not verify.
 */
static void pattern(uint8_t *p, size_t len, int fam, uint64_t seed)
{
	size_t i, words;

	switch (fam) {
	case PAT_ZERO:
		memset(p, 0, len);
		return;
	case PAT_ONES:
		memset(p, 0xff, len);
		return;
	case PAT_ALT:
		for (i = 0; i < len; i++)
			p[i] = (i ^ seed) & 1 ? 0xaa : 0x55;
		return;
	case PAT_INC:
		for (i = 0; i < len; i++)
			p[i] = (uint8_t)(i + seed);
		return;
	case PAT_WALK:
		for (i = 0; i < len; i++)
			p[i] = (uint8_t)(1u << ((i + seed) & 7));
		return;
	}
	words = len / 8;
	for (i = 0; i < words; i++) {
		uint64_t v = mix64(seed + i);

		memcpy(p + 8 * i, &v, 8);
	}
	for (i = words * 8; i < len; i++)
		p[i] = (uint8_t)mix64(seed ^ (i << 32));
}

static void fill(uint8_t *p, size_t len, uint64_t seed)
{
	pattern(p, len, PAT_RANDOM, seed);
}

/**
 * check_bytes() - compare @len bytes of @got with @want, byte by byte.
 * @what: what is compared, for the failure reason
 * @base: the address of got[0] as the reason should show it
 * Return: 0, or -1 after recording how many bytes differ and the first.
 */
static int check_bytes(struct tctx *t, const char *what, const uint8_t *want,
		       const uint8_t *got, size_t len, uint64_t base)
{
	size_t i, first = 0;
	uint64_t bad = 0;

	if (!memcmp(want, got, len)) {
		t->verified += len;
		return 0;
	}
	for (i = 0; i < len; i++) {
		if (want[i] != got[i]) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	return tfail(t, "%s: %" PRIu64 " of %zu bytes differ, first at 0x%"
		     PRIx64 ": expected 0x%02x, got 0x%02x", what, bad, len,
		     base + first, want[first], got[first]);
}

/**
 * check_poison() - check that @len guard bytes still hold T_POISON.
 * Return: 0, or -1 after recording the first byte that changed.
 */
static int check_poison(struct tctx *t, const char *what, const uint8_t *got,
			size_t len, uint64_t base)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (got[i] != T_POISON)
			return tfail(t, "%s: byte at 0x%" PRIx64
				     " outside the transfer changed from 0x%02x to 0x%02x",
				     what, base + i, T_POISON, got[i]);
	return 0;
}

/* ------------------------------------------------------------------------
 * Transfers
 * ------------------------------------------------------------------------ */

/**
 * mm_xfer() - one CPU-path transfer (DMA_MM call) of @len bytes between
 * @buf and card address @addr, checked for its error and its byte count.
 * @c2h: true: card -> @buf; false: @buf -> card
 * @ns: if not NULL, receives the time of the call
 * @what: what the transfer is, for the failure reason
 * Return: 0 or -1 (recorded).
 */
static int mm_xfer(struct tctx *t, bool c2h, void *buf, uint64_t addr,
		   size_t len, uint64_t *ns, const char *what)
{
	uint64_t t0 = cli_now_ns();
	size_t got = 0;
	int ret;

	if (c2h)
		ret = HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, buf, addr, len, &got);
	else
		ret = HelloFPGA_DMA_MM_WriteH2C(t->h, t->ch, buf, addr, len,
						&got);
	if (ns)
		*ns = cli_now_ns() - t0;
	if (ret)
		return tlibfail(t, t->h, ret, "%s of %zu bytes %s card 0x%" PRIx64,
				what, len, c2h ? "from" : "to", addr);
	if (got != len)
		return tfail(t, "%s of %zu bytes %s card 0x%" PRIx64 " moved %zu",
			     what, len, c2h ? "from" : "to", addr, got);
	return 0;
}

/* CPU path: host buffer -> card.  Return: 0 or -1 (recorded). */
static int card_put(struct tctx *t, uint64_t addr, const void *buf,
		    size_t len)
{
	return mm_xfer(t, false, (void *)buf, addr, len, NULL,
		       "CPU-path DMA_MM_WriteH2C");
}

/* CPU path: card -> host buffer.  Return: 0 or -1 (recorded). */
static int card_get(struct tctx *t, uint64_t addr, void *buf, size_t len)
{
	return mm_xfer(t, true, buf, addr, len, NULL, "CPU-path DMA_MM_ReadC2H");
}

/* Host staging: host -> GPU memory.  Return: 0 or -1 (recorded). */
static int gpu_put(struct tctx *t, void *gpu, const void *host, size_t len)
{
	int ret = HelloFPGA_GPU_Memcpy(gpu, host, len,
				       HELLOFPGA_MEMCPY_HOST_TO_GPU);

	if (ret)
		return tlibfail(t, NULL, ret,
				"GPU_Memcpy of %zu bytes host -> GPU %p", len,
				gpu);
	return 0;
}

/* Host staging: GPU memory -> host.  Return: 0 or -1 (recorded). */
static int gpu_get(struct tctx *t, void *host, const void *gpu, size_t len)
{
	int ret = HelloFPGA_GPU_Memcpy(host, gpu, len,
				       HELLOFPGA_MEMCPY_GPU_TO_HOST);

	if (ret)
		return tlibfail(t, NULL, ret,
				"GPU_Memcpy of %zu bytes GPU %p -> host", len,
				gpu);
	return 0;
}

/* Fill @len bytes of GPU memory with T_POISON.  Return: 0 or -1. */
static int gpu_poison(struct tctx *t, void *gpu, size_t len)
{
	memset(t->hc, T_POISON, len);
	return gpu_put(t, gpu, t->hc, len);
}

/**
 * gd_xfer() - one timed GPU Direct transfer of @len bytes between card
 * address @addr and offset @off of the pinned buffer @gb: GPUDirect_ReadC2H
 * or _WriteH2C at offset 0, GPUDirect_Xfer elsewhere.
 * @dir: HELLOFPGA_DIR_C2H (card -> GPU) or HELLOFPGA_DIR_H2C
 * @ns: if not NULL, receives the time of the call
 * Return: 0 or -1 (recorded).
 */
static int gd_xfer(struct tctx *t, const struct gbuf *gb, size_t off,
		   uint64_t addr, size_t len, int dir, uint64_t *ns)
{
	bool c2h = dir == HELLOFPGA_DIR_C2H;
	size_t got = len;
	uint64_t t0 = cli_now_ns();
	int ret;

	if (off)
		ret = HelloFPGA_GPUDirect_Xfer(t->h, t->ch, gb->hd, off, addr,
					       len, dir, 0, &got);
	else if (c2h)
		ret = HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, gb->hd, addr,
						  len, 0);
	else
		ret = HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, gb->hd, addr,
						   len, 0);
	if (ns)
		*ns = cli_now_ns() - t0;
	if (ret)
		return tlibfail(t, t->h, ret, "GPUDirect_%s of %zu bytes, card 0x%"
				PRIx64 " %s GPU buffer +0x%zx",
				off ? "Xfer" : c2h ? "ReadC2H" : "WriteH2C",
				len, addr, c2h ? "->" : "<-", off);
	if (got != len)
		return tfail(t, "GPUDirect_Xfer moved %zu of %zu bytes", got,
			     len);
	return 0;
}

/* GPU memory of @size bytes (not pinned).  Return: 0 or -1 (recorded). */
static int gbuf_alloc(struct tctx *t, struct gbuf *gb, size_t size)
{
	char sz[32];
	int ret;

	memset(gb, 0, sizeof(*gb));
	ret = HelloFPGA_GPU_Alloc(&gb->p, size);
	if (ret) {
		gb->p = NULL;
		return tlibfail(t, NULL, ret, "GPU_Alloc of %s",
				cli_fmt_size(size, sz, sizeof(sz)));
	}
	if (!gb->p)
		return tfail(t, "GPU_Alloc of %s returned NULL",
			     cli_fmt_size(size, sz, sizeof(sz)));
	gb->size = size;
	return 0;
}

/* Pin all of @gb.  @ns: if not NULL, the time of the call. */
static int gbuf_pin(struct tctx *t, struct gbuf *gb, uint64_t *ns)
{
	uint64_t t0 = cli_now_ns();
	char sz[32];
	int ret;

	ret = HelloFPGA_GPUDirect_Pin(t->h, gb->p, gb->size, &gb->hd);
	if (ns)
		*ns = cli_now_ns() - t0;
	if (ret) {
		gb->hd = 0;
		return tlibfail(t, t->h, ret, "GPUDirect_Pin of %s at %p",
				cli_fmt_size(gb->size, sz, sizeof(sz)), gb->p);
	}
	if (!gb->hd)
		return tfail(t, "GPUDirect_Pin succeeded but returned handle 0");
	return 0;
}

/* GPU memory of @size bytes, pinned.  Return: 0 or -1 (recorded). */
static int gbuf_new(struct tctx *t, struct gbuf *gb, size_t size)
{
	if (gbuf_alloc(t, gb, size))
		return -1;
	return gbuf_pin(t, gb, NULL);
}

/* Unpin and free @gb; a failure counts against the running case. */
static void gbuf_free(struct tctx *t, struct gbuf *gb)
{
	int ret;

	if (gb->hd) {
		ret = HelloFPGA_GPUDirect_Unpin(t->h, gb->hd);
		if (ret)
			tlibfail(t, t->h, ret, "GPUDirect_Unpin of handle 0x%"
				 PRIx64 " when done", gb->hd);
		gb->hd = 0;
	}
	if (gb->p) {
		ret = HelloFPGA_GPU_Free(gb->p);
		if (ret)
			tlibfail(t, NULL, ret, "GPU_Free of %p", gb->p);
		gb->p = NULL;
	}
}

/**
 * roundtrip() - card -> GPU, then GPU -> card, of @len bytes between card
 * address @addr and offset @off of the pinned buffer @gb.  Each direction
 * moves a pattern of its own and is checked byte by byte through host
 * staging, together with up to T_GUARD bytes on either side (in the
 * buffer, in card memory), which must not change.
 * @fam: pattern family (PAT_*) of the card -> GPU half; the other half is
 *	(@fam + 1) % PAT_N
 * @seed: pattern seed
 * @ns: if not NULL, ns[0] += time card -> GPU, ns[1] += time GPU -> card
 * Return: 0 or -1 (recorded).
 */
static int roundtrip(struct tctx *t, const struct gbuf *gb, size_t off,
		     uint64_t addr, size_t len, int fam, uint64_t seed,
		     uint64_t *ns)
{
	uint64_t ddr = t->info.ddr_size, clo, chi, d;
	size_t glo, ghi;
	uint8_t *want = t->ha, *buf = t->hb, *g = (uint8_t *)gb->p;
	char what[128];

	glo = off < T_GUARD ? off : T_GUARD;
	ghi = gb->size - off - len < T_GUARD ? gb->size - off - len : T_GUARD;
	clo = addr < T_GUARD ? addr : T_GUARD;
	chi = ddr - addr - len < T_GUARD ? ddr - addr - len : T_GUARD;

	/* card -> GPU */
	pattern(want, len, fam, seed);
	if (card_put(t, addr, want, len) ||
	    gpu_poison(t, g + off - glo, glo + len + ghi) ||
	    gd_xfer(t, gb, off, addr, len, HELLOFPGA_DIR_C2H, &d) ||
	    gpu_get(t, buf, g + off - glo, glo + len + ghi))
		return -1;
	if (ns)
		ns[0] += d;
	snprintf(what, sizeof(what), "card 0x%" PRIx64 " -> GPU +0x%zx, %zu bytes of %s",
		 addr, off, len, pat_name[fam]);
	if (check_poison(t, what, buf, glo, off - glo) ||
	    check_bytes(t, what, want, buf + glo, len, off) ||
	    check_poison(t, what, buf + glo + len, ghi, off + len))
		return -1;

	/* GPU -> card */
	pattern(want, len, (fam + 1) % PAT_N, mix64(seed));
	memset(buf, T_POISON, clo + len + chi);
	if (gpu_put(t, g + off, want, len) ||
	    card_put(t, addr - clo, buf, clo + len + chi) ||
	    gd_xfer(t, gb, off, addr, len, HELLOFPGA_DIR_H2C, &d) ||
	    card_get(t, addr - clo, buf, clo + len + chi))
		return -1;
	if (ns)
		ns[1] += d;
	snprintf(what, sizeof(what), "GPU +0x%zx -> card 0x%" PRIx64 ", %zu bytes of %s",
		 off, addr, len, pat_name[(fam + 1) % PAT_N]);
	if (check_poison(t, what, buf, clo, addr - clo) ||
	    check_bytes(t, what, want, buf + clo, len, addr) ||
	    check_poison(t, what, buf + clo + len, chi, addr + len))
		return -1;
	return 0;
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
	return v - v % a;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Median of @n samples (sorts them). */
static uint64_t median(uint64_t *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_u64);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static const char *platform_name(int p)
{
	switch (p) {
	case HELLOFPGA_PLATFORM_TEGRA:
		return "Tegra";
	case HELLOFPGA_PLATFORM_DESKTOP:
		return "Desktop";
	default:
		return "none";
	}
}

/* ------------------------------------------------------------------------
 * The cases
 * ------------------------------------------------------------------------ */

/**
 * case_get_status() - 1. GetGPUStatus platform detection: the call works,
 * is stable, rejects NULL, and says something consistent: a platform of
 * 0..2, "supported" exactly when there is no reason, the documented GPU
 * page size, the platform HELLOFPGA_GPU asked for; without a GPU,
 * GPU_Alloc fails with -ENODEV.
 */
static int case_get_status(struct tctx *t)
{
	const char *env = getenv("HELLOFPGA_GPU");
	HELLOFPGA_GPU_STATUS a, b;
	char sz[32];
	void *p = NULL;
	int ret;

	memset(&a, 0, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	ret = HelloFPGA_GetGPUStatus(&a);
	if (ret)
		return tlibfail(t, NULL, ret, "GetGPUStatus");
	if (expect(t, HelloFPGA_GetGPUStatus(NULL), -EFAULT, T_NONE,
		   "GetGPUStatus(NULL)"))
		return -1;
	ret = HelloFPGA_GetGPUStatus(&b);
	if (ret)
		return tlibfail(t, NULL, ret, "GetGPUStatus, second call");
	if (a.platform != b.platform || a.supported != b.supported ||
	    a.emulated != b.emulated || a.page_size != b.page_size ||
	    strcmp(a.name, b.name) || strcmp(a.reason, b.reason))
		return tfail(t, "two GetGPUStatus calls disagree (platform %d/%d, supported %d/%d)",
			     a.platform, b.platform, a.supported, b.supported);
	t->gs = a;
	if (a.platform < HELLOFPGA_PLATFORM_NONE ||
	    a.platform > HELLOFPGA_PLATFORM_DESKTOP)
		return tfail(t, "platform %d is none of 0 (none), 1 (Tegra), 2 (Desktop)",
			     a.platform);
	if (a.supported != 0 && a.supported != 1)
		return tfail(t, "supported is %d, not 0 or 1", a.supported);
	if (a.supported && a.platform == HELLOFPGA_PLATFORM_NONE)
		return tfail(t, "GPU Direct reported supported without a GPU");
	if (a.supported && a.reason[0])
		return tfail(t, "supported, yet a reason is given: \"%s\"",
			     a.reason);
	if (!a.supported && !a.reason[0])
		return tfail(t, "not supported, and no reason is given");
	if (!memchr(a.name, '\0', sizeof(a.name)) ||
	    !memchr(a.reason, '\0', sizeof(a.reason)))
		return tfail(t, "name or reason is not NUL-terminated");

	if (env && !strcmp(env, "emu") &&
	    (a.platform != HELLOFPGA_PLATFORM_DESKTOP || !a.emulated))
		return tfail(t, "HELLOFPGA_GPU=emu, but platform %s, emulated %d",
			     platform_name(a.platform), a.emulated);
	if (env && !strcmp(env, "emu-tegra") &&
	    (a.platform != HELLOFPGA_PLATFORM_TEGRA || !a.emulated))
		return tfail(t, "HELLOFPGA_GPU=emu-tegra, but platform %s, emulated %d",
			     platform_name(a.platform), a.emulated);
	if (env && !strcmp(env, "none") &&
	    a.platform != HELLOFPGA_PLATFORM_NONE)
		return tfail(t, "HELLOFPGA_GPU=none, but platform %s",
			     platform_name(a.platform));
	if (env && !strcmp(env, "cuda") && a.emulated)
		return tfail(t, "HELLOFPGA_GPU=cuda, but the GPU is emulated");

	if (a.platform == HELLOFPGA_PLATFORM_NONE) {
		ret = HelloFPGA_GPU_Alloc(&p, T_PAGE);
		if (!ret)
			HelloFPGA_GPU_Free(p);
		if (expect(t, ret, -ENODEV, T_NONE, "GPU_Alloc without a GPU"))
			return -1;
		tpass(t, "platform none (no GPU): %s", a.reason);
		return 0;
	}
	if (a.platform == HELLOFPGA_PLATFORM_DESKTOP && a.page_size != 65536)
		return tfail(t, "Desktop GPU page size %u, expected 65536",
			     a.page_size);
	if (a.platform == HELLOFPGA_PLATFORM_TEGRA && a.page_size != 4096)
		return tfail(t, "Tegra GPU page size %u, expected 4096",
			     a.page_size);
	tpass(t, "%s, %s GPU \"%s\", page %s, GPU Direct %s%s", platform_name(a.platform),
	      a.emulated ? "emulated" : "real", a.name,
	      cli_fmt_size(a.page_size, sz, sizeof(sz)),
	      a.supported ? "supported" : "NOT supported: ", a.reason);
	return 0;
}

/* The buffer shared by pin, read_c2h, write_h2c and unpin, pinned. */
static int shared_get(struct tctx *t)
{
	if (t->shared.hd)
		return 0;
	if (!t->shared.p && gbuf_alloc(t, &t->shared, t->size))
		return -1;
	return gbuf_pin(t, &t->shared, NULL);
}

/**
 * case_pin() - 2. Pin: GPU_Alloc aligns to the GPU page; pinning a whole
 * buffer, a second buffer and a 4 KiB-aligned sub-range inside a GPU page
 * gives distinct non-zero handles; the buffer is usable at once.  The
 * first buffer stays pinned for read_c2h, write_h2c and unpin.
 */
static int case_pin(struct tctx *t)
{
	struct gbuf two = { 0 };
	HELLOFPGA_GPU_HANDLE sub = 0;
	uint64_t pin_ns;
	char sz[32];
	int ret, rc = -1;

	gbuf_free(t, &t->shared);
	if (gbuf_alloc(t, &t->shared, t->size))
		goto out;
	if ((uintptr_t)t->shared.p % t->gs.page_size) {
		tfail(t, "GPU_Alloc returned %p, not aligned to the %u-byte GPU page",
		      t->shared.p, t->gs.page_size);
		goto out;
	}
	if (gbuf_pin(t, &t->shared, &pin_ns))
		goto out;
	if (gbuf_alloc(t, &two, T_MIN_SIZE) || gbuf_pin(t, &two, NULL))
		goto out;
	if (two.hd == t->shared.hd) {
		tfail(t, "two buffers pinned with the same handle 0x%" PRIx64,
		      two.hd);
		goto out;
	}
	ret = HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)t->shared.p + T_PAGE,
				      2 * T_PAGE, &sub);
	if (ret) {
		tlibfail(t, t->h, ret, "GPUDirect_Pin of 8 KiB at +4 KiB inside the buffer");
		goto out;
	}
	if (!sub || sub == t->shared.hd || sub == two.hd) {
		tfail(t, "sub-range pinned with handle 0x%" PRIx64
		      ", 0 or already in use", sub);
		goto out;
	}
	if (gd_xfer(t, &t->shared, 0, 0, T_PAGE, HELLOFPGA_DIR_C2H, NULL))
		goto out;
	tpass(t, "%s at %p pinned in %.1f us as handle 0x%" PRIx64
	      "; a second buffer and an 8 KiB sub-range at +4 KiB got handles of their own",
	      cli_fmt_size(t->size, sz, sizeof(sz)), t->shared.p, us(pin_ns),
	      t->shared.hd);
	rc = 0;
out:
	if (sub) {
		ret = HelloFPGA_GPUDirect_Unpin(t->h, sub);
		if (ret)
			rc = tlibfail(t, t->h, ret, "GPUDirect_Unpin of the sub-range");
	}
	gbuf_free(t, &two);
	return rc;
}

/**
 * case_read_c2h() - 3. ReadC2H, card -> GPU: a pattern written to the card
 * by the CPU path arrives byte for byte in the pinned buffer; a transfer
 * of half the buffer leaves the other half untouched.
 */
static int case_read_c2h(struct tctx *t)
{
	size_t n = t->size, half = n / 2;
	uint64_t ns;
	char sz[32];

	if (shared_get(t))
		return -1;
	fill(t->ha, n, seed_of(3, 0, 0));
	if (card_put(t, 0, t->ha, n) || gpu_poison(t, t->shared.p, n) ||
	    gd_xfer(t, &t->shared, 0, 0, n, HELLOFPGA_DIR_C2H, &ns) ||
	    gpu_get(t, t->hb, t->shared.p, n) ||
	    check_bytes(t, "card 0x0 -> GPU", t->ha, t->hb, n, 0))
		return -1;

	fill(t->ha, half, seed_of(3, 1, 0));
	if (card_put(t, n, t->ha, half) || gpu_poison(t, t->shared.p, n) ||
	    gd_xfer(t, &t->shared, 0, n, half, HELLOFPGA_DIR_C2H, NULL) ||
	    gpu_get(t, t->hb, t->shared.p, n) ||
	    check_bytes(t, "half-buffer read", t->ha, t->hb, half, 0) ||
	    check_poison(t, "half-buffer read", t->hb + half, n - half, half))
		return -1;
	tpass(t, "%s card 0x0 -> GPU in %.1f us (%.2f GB/s), every byte verified; a half-buffer read left the rest untouched",
	      cli_fmt_size(n, sz, sizeof(sz)), us(ns), cli_gbps(n, ns));
	return 0;
}

/**
 * case_write_h2c() - 4. WriteH2C, GPU -> card: a pattern put in the pinned
 * buffer arrives byte for byte in card memory, checked by the CPU path,
 * with the card bytes after it untouched; likewise for half the buffer.
 */
static int case_write_h2c(struct tctx *t)
{
	size_t n = t->size, half = n / 2;
	uint64_t a = 2 * (uint64_t)n, a2 = 4 * (uint64_t)n, ns;
	char sz[32];

	if (shared_get(t))
		return -1;
	fill(t->ha, n, seed_of(4, 0, 0));
	memset(t->hb, T_POISON, n + T_GUARD);
	if (gpu_put(t, t->shared.p, t->ha, n) ||
	    card_put(t, a, t->hb, n + T_GUARD) ||
	    gd_xfer(t, &t->shared, 0, a, n, HELLOFPGA_DIR_H2C, &ns) ||
	    card_get(t, a, t->hb, n + T_GUARD) ||
	    check_bytes(t, "GPU -> card", t->ha, t->hb, n, a) ||
	    check_poison(t, "GPU -> card", t->hb + n, T_GUARD, a + n))
		return -1;

	fill(t->ha, n, seed_of(4, 1, 0));
	memset(t->hb, T_POISON, n);
	if (gpu_put(t, t->shared.p, t->ha, n) || card_put(t, a2, t->hb, n) ||
	    gd_xfer(t, &t->shared, 0, a2, half, HELLOFPGA_DIR_H2C, NULL) ||
	    card_get(t, a2, t->hb, n) ||
	    check_bytes(t, "half-buffer write", t->ha, t->hb, half, a2) ||
	    check_poison(t, "half-buffer write", t->hb + half, n - half,
			 a2 + half))
		return -1;
	tpass(t, "%s GPU -> card 0x%" PRIx64 " in %.1f us (%.2f GB/s), every byte verified; card bytes after it untouched",
	      cli_fmt_size(n, sz, sizeof(sz)), a, us(ns), cli_gbps(n, ns));
	return 0;
}

/**
 * case_unpin() - 5. Unpin: releases the handle, which then fails with
 * -ENOENT; the same memory can be pinned again, used and unpinned; the
 * GPU memory is then freed.
 */
static int case_unpin(struct tctx *t)
{
	HELLOFPGA_GPU_HANDLE hd;
	uint64_t t0, ns;
	int ret;

	if (shared_get(t))
		return -1;
	hd = t->shared.hd;
	t0 = cli_now_ns();
	ret = HelloFPGA_GPUDirect_Unpin(t->h, hd);
	ns = cli_now_ns() - t0;
	t->shared.hd = 0;
	if (ret)
		return tlibfail(t, t->h, ret, "GPUDirect_Unpin of handle 0x%" PRIx64, hd);
	if (expect(t, HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd, 0, T_PAGE, 0),
		   -ENOENT, T_NONE, "GPUDirect_ReadC2H on the unpinned handle") ||
	    expect(t, HelloFPGA_GPUDirect_Unpin(t->h, hd), -ENOENT, T_NONE,
		   "second GPUDirect_Unpin of the handle"))
		return -1;
	if (gbuf_pin(t, &t->shared, NULL) ||
	    gd_xfer(t, &t->shared, 0, 0, T_PAGE, HELLOFPGA_DIR_C2H, NULL))
		return -1;
	hd = t->shared.hd;
	ret = HelloFPGA_GPUDirect_Unpin(t->h, hd);
	t->shared.hd = 0;
	if (ret)
		return tlibfail(t, t->h, ret, "GPUDirect_Unpin after pinning again");
	ret = HelloFPGA_GPU_Free(t->shared.p);
	t->shared.p = NULL;
	if (ret)
		return tlibfail(t, NULL, ret, "GPU_Free after Unpin");
	tpass(t, "unpinned in %.1f us; the handle then fails with ENOENT; pinned again, used, unpinned, freed",
	      us(ns));
	return 0;
}

/**
 * case_data_correctness() - 6. Byte-by-byte data correctness, both
 * directions: six sizes from one engine granule to --size, each direction
 * with a pattern family of its own (0x00, 0xff, 0x55/0xaa, incrementing,
 * walking one, random), card addresses off the page grid, then sub-ranges
 * of the buffer through GPUDirect_Xfer, then an 8 KiB pin inside a GPU
 * page: guard bytes around every transfer must not change.
 */
static int case_data_correctness(struct tctx *t)
{
	uint64_t g = t->gran, addr;
	size_t sizes[6] = {
		(size_t)g, T_PAGE, T_PAGE + (size_t)g, 65536 - 3 * (size_t)g,
		1u << 20, t->size,
	};
	struct gbuf gb = { 0 };
	HELLOFPGA_GPU_HANDLE sub = 0;
	struct gbuf view;
	unsigned int i, n = 0;
	uint8_t *c;
	char sz[32];
	int ret, rc = -1;

	if (sizes[4] > t->size)
		sizes[4] = t->size / 2;
	if (gbuf_new(t, &gb, t->size))
		goto out;
	for (i = 0; i < 6; i++) {
		tprog(t, "data_correctness: %zu bytes", sizes[i]);
		addr = (uint64_t)i * (t->size + 2 * T_PAGE) + T_PAGE +
		       (i * 3 * g) % T_PAGE;
		if (roundtrip(t, &gb, 0, addr, sizes[i], (int)(2 * i) % PAT_N,
			      seed_of(6, i, 0), NULL))
			goto out;
		n += 2;
	}
	/* Sub-ranges of the pinned buffer, page-aligned and not. */
	addr = 6ull * (t->size + 2 * T_PAGE) + T_PAGE;
	if (roundtrip(t, &gb, 3 * T_PAGE, addr, 32768, PAT_RANDOM,
		      seed_of(6, 10, 0), NULL) ||
	    roundtrip(t, &gb, 5 * T_PAGE + 3 * g, addr + 65536 + g,
		      T_PAGE + 5 * g, PAT_INC, seed_of(6, 11, 0), NULL) ||
	    roundtrip(t, &gb, gb.size - 32768, addr + 2 * 65536, 32768,
		      PAT_WALK, seed_of(6, 12, 0), NULL))
		goto out;
	n += 6;

	/* An 8 KiB pin at +4 KiB: inside the first 64 KiB GPU page. */
	ret = HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)gb.p + T_PAGE,
				      2 * T_PAGE, &sub);
	if (ret) {
		tlibfail(t, t->h, ret, "GPUDirect_Pin of 8 KiB at +4 KiB");
		goto out;
	}
	c = t->hc;
	fill(t->ha, 2 * T_PAGE, seed_of(6, 13, 0));
	memset(c, T_POISON, 4 * T_PAGE);
	if (card_put(t, addr + 3 * 65536, t->ha, 2 * T_PAGE) ||
	    gpu_put(t, gb.p, c, 4 * T_PAGE))
		goto out;
	ret = HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, sub, addr + 3 * 65536,
					  2 * T_PAGE, 0);
	if (ret) {
		tlibfail(t, t->h, ret, "GPUDirect_ReadC2H into the 8 KiB pin at +4 KiB");
		goto out;
	}
	if (gpu_get(t, t->hb, gb.p, 4 * T_PAGE) ||
	    check_poison(t, "8 KiB pin at +4 KiB", t->hb, T_PAGE, 0) ||
	    check_bytes(t, "8 KiB pin at +4 KiB", t->ha, t->hb + T_PAGE,
			2 * T_PAGE, T_PAGE) ||
	    check_poison(t, "8 KiB pin at +4 KiB", t->hb + 3 * T_PAGE, T_PAGE,
			 3 * T_PAGE))
		goto out;
	view.p = (uint8_t *)gb.p + T_PAGE;
	view.size = 2 * T_PAGE;
	view.hd = sub;
	if (roundtrip(t, &view, 0, addr + 4 * 65536, 2 * T_PAGE, PAT_ALT,
		      seed_of(6, 14, 0), NULL))
		goto out;
	n += 3;
	tpass(t, "%u transfers: 6 sizes (%zu B .. %s) x 2 directions in 6 pattern families, buffer sub-ranges, an 8 KiB pin at +4 KiB; %" PRIu64 " bytes verified, guards untouched",
	      n, sizes[0], cli_fmt_size(t->size, sz, sizeof(sz)), t->verified);
	rc = 0;
out:
	if (sub) {
		ret = HelloFPGA_GPUDirect_Unpin(t->h, sub);
		if (ret)
			rc = tlibfail(t, t->h, ret, "GPUDirect_Unpin of the 8 KiB pin");
	}
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_batch_10x_read() - 7. Batch of 10 ReadC2H on one handle, each from
 * a card region with a pattern of its own, each verified; latency and
 * bandwidth of the batch.
 */
static int case_batch_10x_read(struct tctx *t)
{
	uint64_t lat[T_BATCH], mn = UINT64_MAX, mx = 0, md;
	struct gbuf gb = { 0 };
	size_t n = t->size;
	char sz[32], what[64];
	int k, rc = -1;

	if (gbuf_new(t, &gb, n))
		goto out;
	for (k = 0; k < T_BATCH; k++) {
		fill(t->ha, n, seed_of(7, k, 0));
		if (card_put(t, (uint64_t)k * n, t->ha, n))
			goto out;
	}
	for (k = 0; k < T_BATCH; k++) {
		if (gd_xfer(t, &gb, 0, (uint64_t)k * n, n, HELLOFPGA_DIR_C2H,
			    &lat[k]))
			goto out;
		fill(t->ha, n, seed_of(7, k, 0));
		snprintf(what, sizeof(what), "read %d/%d", k + 1, T_BATCH);
		if (gpu_get(t, t->hb, gb.p, n) ||
		    check_bytes(t, what, t->ha, t->hb, n, 0))
			goto out;
		mn = lat[k] < mn ? lat[k] : mn;
		mx = lat[k] > mx ? lat[k] : mx;
	}
	md = median(lat, T_BATCH);
	tpass(t, "%d x %s card -> GPU, all verified: min %.1f / median %.1f / max %.1f us, %.2f GB/s",
	      T_BATCH, cli_fmt_size(n, sz, sizeof(sz)), us(mn), us(md), us(mx),
	      cli_gbps(n, md));
	rc = 0;
out:
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_addr_space() - 8. Address space at 7 points spread evenly over
 * card memory, from 0 to the last --size bytes: both directions, verified.
 */
static int case_addr_space(struct tctx *t)
{
	uint64_t span = t->info.ddr_size - t->size, addr = 0, ns[2] = { 0, 0 };
	uint64_t bytes = (uint64_t)t->size * T_ADDR_POINTS;
	struct gbuf gb = { 0 };
	char sz[32], sz2[32];
	int i, rc = -1;

	if (gbuf_new(t, &gb, t->size))
		goto out;
	for (i = 0; i < T_ADDR_POINTS; i++) {
		addr = align_down(span / (T_ADDR_POINTS - 1) * (uint64_t)i, T_PAGE);
		if (i == T_ADDR_POINTS - 1)
			addr = span;
		tprog(t, "addr_space: point %d/%d, card 0x%" PRIx64, i + 1,
		      T_ADDR_POINTS, addr);
		if (roundtrip(t, &gb, 0, addr, t->size, PAT_RANDOM,
			      seed_of(8, i, 0), ns))
			goto out;
	}
	tpass(t, "7 points 0x0 .. 0x%" PRIx64 " of %s card memory, %s each way, verified: card -> GPU %.2f GB/s, GPU -> card %.2f GB/s",
	      addr, cli_fmt_size(t->info.ddr_size, sz, sizeof(sz)),
	      cli_fmt_size(t->size, sz2, sizeof(sz2)), cli_gbps(bytes, ns[0]),
	      cli_gbps(bytes, ns[1]));
	rc = 0;
out:
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_stress() - 9. Stress: large transfers (64 MiB on a 2 GiB card) at 6
 * offsets spread over card memory, each off the page grid by a different
 * amount: both directions, verified.
 */
static int case_stress(struct tctx *t)
{
	uint64_t span = t->info.ddr_size - t->stress - T_PAGE, addr, ns[2] = { 0, 0 };
	uint64_t bytes = (uint64_t)t->stress * T_STRESS_POINTS;
	uint64_t skew_unit = t->gran > 512 ? t->gran : 512;
	struct gbuf gb = { 0 };
	char sz[32];
	int i, rc = -1;

	if (gbuf_new(t, &gb, t->stress))
		goto out;
	for (i = 0; i < T_STRESS_POINTS; i++) {
		addr = align_down(span / (T_STRESS_POINTS - 1) * (uint64_t)i, T_PAGE) +
		       (i * 3 * skew_unit) % T_PAGE;
		tprog(t, "stress: offset %d/%d, card 0x%" PRIx64, i + 1,
		      T_STRESS_POINTS, addr);
		if (roundtrip(t, &gb, 0, addr, t->stress, PAT_RANDOM,
			      seed_of(9, i, 0), ns))
			goto out;
	}
	tpass(t, "6 offsets up to 0x%" PRIx64 ", %s each way, verified: card -> GPU %.2f GB/s, GPU -> card %.2f GB/s",
	      addr, cli_fmt_size(t->stress, sz, sizeof(sz)),
	      cli_gbps(bytes, ns[0]), cli_gbps(bytes, ns[1]));
	rc = 0;
out:
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_boundary() - 10. Boundaries at 6 points: the start of card memory;
 * a 4 KiB page boundary (crossed in the card and in the buffer, also by
 * two granules); the 2^28 boundary (or the middle of a smaller card),
 * crossing a 64 KiB GPU page; the last 64 KiB; the last bytes of card
 * memory into the last bytes of the buffer; and past the end: -ERANGE
 * with nothing moved, -EOVERFLOW for a wrapping address, -EINVAL for a
 * range leaving the buffer.
 */
static int case_boundary(struct tctx *t)
{
	uint64_t ddr = t->info.ddr_size, g = t->gran, b28, past;
	size_t L = 65536, tail = 256 > g ? 256 : (size_t)g;
	struct gbuf gb = { 0 };
	size_t got;
	int rc = -1;

	b28 = ddr >= (1ull << 28) + L ? 1ull << 28 : align_down(ddr / 2, T_PAGE);
	if (gbuf_new(t, &gb, t->size))
		goto out;
	tprog(t, "boundary: start, 4 KiB, 2^28, end");
	if (roundtrip(t, &gb, 0, 0, L, PAT_RANDOM, seed_of(10, 1, 0), NULL) ||
	    roundtrip(t, &gb, T_PAGE / 2, 0x100000 + 5 * T_PAGE - T_PAGE / 2,
		      T_PAGE, PAT_RANDOM, seed_of(10, 2, 0), NULL) ||
	    roundtrip(t, &gb, T_PAGE - g, 0x200000 - g, 2 * g, PAT_RANDOM,
		      seed_of(10, 2, 1), NULL) ||
	    roundtrip(t, &gb, gb.size >= 2 * L ? L / 2 : 0, b28 - L / 2, L,
		      PAT_RANDOM, seed_of(10, 3, 0), NULL) ||
	    roundtrip(t, &gb, 0, ddr - L, L, PAT_RANDOM, seed_of(10, 4, 0),
		      NULL) ||
	    roundtrip(t, &gb, gb.size - tail, ddr - tail, tail, PAT_RANDOM,
		      seed_of(10, 5, 0), NULL) ||
	    roundtrip(t, &gb, gb.size - g, ddr - g, g, PAT_RANDOM,
		      seed_of(10, 5, 1), NULL))
		goto out;

	/* Past the end: refused, and nothing moved either way. */
	tprog(t, "boundary: past the end");
	past = ddr - T_PAGE / 2;
	fill(t->ha, 2 * T_PAGE, seed_of(10, 6, 0));
	if (card_put(t, ddr - 2 * T_PAGE, t->ha, 2 * T_PAGE) ||
	    gpu_poison(t, gb.p, 2 * T_PAGE))
		goto out;
	if (expect(t, HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, gb.hd, past,
						  T_PAGE, 0),
		   -ERANGE, T_NONE, "GPUDirect_ReadC2H across the end of card memory") ||
	    expect(t, HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, gb.hd, ddr,
						  (size_t)g, 0),
		   -ERANGE, T_NONE, "GPUDirect_ReadC2H at the end of card memory") ||
	    expect(t, HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, gb.hd,
						  ddr - T_PAGE + g, T_PAGE, 0),
		   -ERANGE, T_NONE, "GPUDirect_ReadC2H ending one granule past the end") ||
	    expect(t, HelloFPGA_GPUDirect_Xfer(t->h, t->ch, gb.hd, T_PAGE,
					       past, T_PAGE, HELLOFPGA_DIR_C2H,
					       0, &got),
		   -ERANGE, T_NONE, "GPUDirect_Xfer across the end of card memory") ||
	    gpu_get(t, t->hb, gb.p, 2 * T_PAGE) ||
	    check_poison(t, "buffer after refused reads past the end", t->hb,
			 2 * T_PAGE, 0))
		goto out;
	fill(t->hb, 2 * T_PAGE, seed_of(10, 6, 1));
	if (gpu_put(t, gb.p, t->hb, 2 * T_PAGE))
		goto out;
	if (expect(t, HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, gb.hd, past,
						   T_PAGE, 0),
		   -ERANGE, T_NONE, "GPUDirect_WriteH2C across the end of card memory") ||
	    expect(t, HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, gb.hd,
						   ddr - T_PAGE + g, T_PAGE, 0),
		   -ERANGE, T_NONE, "GPUDirect_WriteH2C ending one granule past the end") ||
	    expect(t, HelloFPGA_GPUDirect_Xfer(t->h, t->ch, gb.hd, 0, past,
					       T_PAGE, HELLOFPGA_DIR_H2C, 0,
					       &got),
		   -ERANGE, T_NONE, "GPUDirect_Xfer H2C across the end of card memory") ||
	    card_get(t, ddr - 2 * T_PAGE, t->hb, 2 * T_PAGE) ||
	    check_bytes(t, "card memory after refused writes past the end",
			t->ha, t->hb, 2 * T_PAGE, ddr - 2 * T_PAGE))
		goto out;
	if (expect(t, HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, gb.hd,
						  UINT64_MAX - T_PAGE + 1,
						  2 * T_PAGE, 0),
		   -EOVERFLOW, T_NONE, "GPUDirect_ReadC2H at a card address that wraps") ||
	    expect(t, HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, gb.hd, 0,
						  gb.size + T_PAGE, 0),
		   -EINVAL, T_NONE, "GPUDirect_ReadC2H larger than the buffer") ||
	    expect(t, HelloFPGA_GPUDirect_Xfer(t->h, t->ch, gb.hd,
					       gb.size - T_PAGE, 0,
					       2 * T_PAGE, HELLOFPGA_DIR_C2H,
					       0, &got),
		   -EINVAL, T_NONE, "GPUDirect_Xfer leaving the buffer"))
		goto out;
	tpass(t, "start 0x0, 4 KiB boundary 0x%x, 2^28 boundary 0x%" PRIx64
	      ", end 0x%" PRIx64 ", last %zu bytes, past the end (ERANGE, nothing moved); %" PRIu64 " bytes verified",
	      0x100000 + 5 * T_PAGE, b28, ddr - L, tail, t->verified);
	rc = 0;
out:
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_transfer_mode() - 11. The TransferMode switch: GPU_PINNED is refused
 * without a registered buffer and for an unknown mode; with a buffer
 * registered (SetGPUBuffer), the unchanged DMA_MM calls move card <-> GPU
 * when their buffer lies in it and card <-> host otherwise; back and forth
 * between CPU and GPU_PINNED; a new buffer replaces the old one;
 * SetGPUBuffer(NULL, 0) returns to CPU mode.
 */
static int case_transfer_mode(struct tctx *t)
{
	struct gbuf g1 = { 0 }, g2 = { 0 };
	size_t n = t->size, off = T_PAGE, len = n - 2 * T_PAGE;
	uint64_t a = 0, b = 2 * (uint64_t)n, gr_ns = 0, gw_ns = 0, cr_ns = 0;
	const char *note = "";
	uint8_t *buf;
	int ret, rc = -1;

	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (!ret)
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (expect(t, ret, -EINVAL, T_NONE,
		   "SetTransferMode(GPU_PINNED) with no GPU buffer") ||
	    expect(t, HelloFPGA_SetTransferMode(t->h, 42), -EINVAL, T_NONE,
		   "SetTransferMode(42)"))
		goto out;
	if (gbuf_alloc(t, &g1, n) || gbuf_alloc(t, &g2, T_MIN_SIZE))
		goto out;
	if (expect(t, HelloFPGA_SetGPUBuffer(t->h, (uint8_t *)g1.p + 1,
					     n - T_PAGE),
		   -EINVAL, T_NONE, "SetGPUBuffer of an unaligned address"))
		goto out;
	ret = HelloFPGA_SetGPUBuffer(t->h, g1.p, n);
	if (ret) {
		tlibfail(t, t->h, ret, "SetGPUBuffer of %zu bytes", n);
		goto out;
	}
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (ret) {
		tlibfail(t, t->h, ret, "SetTransferMode(GPU_PINNED)");
		goto out;
	}

	/* GPU mode: host buffers still take the CPU path ... */
	buf = (uint8_t *)g1.p + off;
	fill(t->ha, len, seed_of(11, 0, 0));
	if (card_put(t, a, t->ha, len) || gpu_poison(t, g1.p, n))
		goto out;
	/* ... and a buffer inside the registered one goes to the GPU. */
	if (mm_xfer(t, true, buf, a, len, &gr_ns,
		    "GPU_PINNED DMA_MM_ReadC2H into the GPU buffer") ||
	    gpu_get(t, t->hb, g1.p, n) ||
	    check_poison(t, "GPU_PINNED DMA_MM_ReadC2H", t->hb, off, 0) ||
	    check_bytes(t, "GPU_PINNED DMA_MM_ReadC2H", t->ha, t->hb + off,
			len, off) ||
	    check_poison(t, "GPU_PINNED DMA_MM_ReadC2H", t->hb + off + len,
			 n - off - len, off + len))
		goto out;
	fill(t->ha, len, seed_of(11, 1, 0));
	if (gpu_put(t, buf, t->ha, len))
		goto out;
	if (mm_xfer(t, false, buf, b, len, &gw_ns,
		    "GPU_PINNED DMA_MM_WriteH2C from the GPU buffer") ||
	    card_get(t, b, t->hb, len) ||
	    check_bytes(t, "GPU_PINNED DMA_MM_WriteH2C", t->ha, t->hb, len, b))
		goto out;

	/* Back to CPU mode: host buffers as ever. */
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (ret) {
		tlibfail(t, t->h, ret, "SetTransferMode(CPU)");
		goto out;
	}
	if (mm_xfer(t, true, t->hb, b, len, &cr_ns, "CPU-mode DMA_MM_ReadC2H") ||
	    check_bytes(t, "CPU mode read-back", t->ha, t->hb, len, b))
		goto out;
	/*
	 * Real desktop GPU memory is not reachable by the CPU path, so in CPU
	 * mode it must be refused: that also proves the GPU_PINNED transfers
	 * above really went GPU Direct.  Emulated and Tegra GPU memory is
	 * host memory, which the CPU path may use.
	 */
	if (t->gs.platform == HELLOFPGA_PLATFORM_DESKTOP && !t->gs.emulated) {
		if (expect(t, HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, buf, a, len,
						       NULL),
			   -EFAULT, T_NONE,
			   "CPU-mode DMA_MM_ReadC2H into GPU device memory"))
			goto out;
		note = "; CPU mode refuses device memory (EFAULT)";
	} else {
		note = t->gs.emulated ?
		       "; device-memory refusal not checked: emulated GPU memory is host memory" :
		       "";
	}

	/* And GPU_PINNED again: the buffer is still registered. */
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (ret) {
		tlibfail(t, t->h, ret, "SetTransferMode(GPU_PINNED), second time");
		goto out;
	}
	fill(t->ha, n, seed_of(11, 2, 0));
	if (card_put(t, a, t->ha, n))
		goto out;
	if (mm_xfer(t, true, g1.p, a, n, NULL,
		    "GPU_PINNED DMA_MM_ReadC2H, second time") ||
	    gpu_get(t, t->hb, g1.p, n) ||
	    check_bytes(t, "GPU_PINNED read, second time", t->ha, t->hb, n, 0))
		goto out;

	/* A new buffer replaces the old one. */
	ret = HelloFPGA_SetGPUBuffer(t->h, g2.p, g2.size);
	if (ret) {
		tlibfail(t, t->h, ret, "SetGPUBuffer replacing the buffer");
		goto out;
	}
	fill(t->ha, g2.size, seed_of(11, 3, 0));
	if (card_put(t, b, t->ha, g2.size))
		goto out;
	if (mm_xfer(t, true, g2.p, b, g2.size, NULL,
		    "GPU_PINNED DMA_MM_ReadC2H into the replacing buffer") ||
	    gpu_get(t, t->hb, g2.p, g2.size) ||
	    check_bytes(t, "read into the replacing buffer", t->ha, t->hb,
			g2.size, 0))
		goto out;

	/* Unregistering returns to CPU mode. */
	ret = HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
	if (ret) {
		tlibfail(t, t->h, ret, "SetGPUBuffer(NULL, 0)");
		goto out;
	}
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (!ret)
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (expect(t, ret, -EINVAL, T_NONE,
		   "SetTransferMode(GPU_PINNED) after SetGPUBuffer(NULL, 0)") ||
	    card_get(t, b, t->hb, g2.size) ||
	    check_bytes(t, "CPU mode after unregistering", t->ha, t->hb,
			g2.size, b))
		goto out;
	tpass(t, "GPU_PINNED DMA_MM card -> GPU %.2f GB/s, GPU -> card %.2f GB/s (CPU mode card -> host %.2f GB/s); CPU <-> GPU_PINNED switches, replacing and unregistering verified%s",
	      cli_gbps(len, gr_ns), cli_gbps(len, gw_ns), cli_gbps(len, cr_ns),
	      note);
	rc = 0;
out:
	HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
	HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	gbuf_free(t, &g1);
	gbuf_free(t, &g2);
	return rc;
}

/**
 * struct cpu_job - CPU-path round trips run by a thread of their own.
 * @h: the card
 * @ch: the channel
 * @addr: card region
 * @len: bytes per transfer
 * @src, @dst: host buffers
 * @rounds: write + read-back rounds done
 * @ret: 0, or the failing call's error
 * @err: what failed
 */
struct cpu_job {
	HELLOFPGA_HANDLE h;
	int ch;
	uint64_t addr;
	size_t len;
	uint8_t *src;
	uint8_t *dst;
	int rounds;
	int ret;
	char err[256];
};

static void *cpu_worker(void *arg)
{
	struct cpu_job *j = arg;
	size_t got;
	int r;

	for (r = 0; r < T_CPU_ROUNDS; r++) {
		fill(j->src, j->len, seed_of(12, 100, (uint32_t)r));
		memset(j->dst, T_POISON, j->len);
		j->ret = HelloFPGA_DMA_MM_WriteH2C(j->h, j->ch, j->src, j->addr,
						   j->len, &got);
		if (!j->ret)
			j->ret = HelloFPGA_DMA_MM_ReadC2H(j->h, j->ch, j->dst,
							  j->addr, j->len, &got);
		if (j->ret) {
			snprintf(j->err, sizeof(j->err), "CPU-path transfer on channel %d (other thread): %s: %s",
				 j->ch, HelloFPGA_StrError(j->ret),
				 HelloFPGA_GetLastError(j->h));
			return NULL;
		}
		if (memcmp(j->src, j->dst, j->len)) {
			j->ret = -EIO;
			snprintf(j->err, sizeof(j->err),
				 "CPU-path round %d on channel %d (other thread): data read back differs",
				 r + 1, j->ch);
			return NULL;
		}
		j->rounds++;
	}
	return NULL;
}

/* CPU-path write of @len bytes at @addr and read-back, verified. */
static int cpu_roundtrip(struct tctx *t, const char *what, uint8_t *src,
			 uint64_t addr, size_t len, uint64_t seed)
{
	fill(src, len, seed);
	memset(t->hb, T_POISON, len);
	if (card_put(t, addr, src, len) || card_get(t, addr, t->hb, len))
		return -1;
	return check_bytes(t, what, src, t->hb, len, addr);
}

/**
 * case_cpu_path() - 12. The CPU path unchanged beside GPU Direct: host
 * buffer round trips (also odd sizes and addresses), error codes of bad
 * calls, and counters, before, during (GPU_PINNED mode, a registered and
 * a pinned buffer, GPU Direct transfers interleaved on the same channel
 * and running at the same time from another thread) and after.  Without
 * GPU Direct only the CPU part runs, and GPU_PINNED must be refused.
 */
static int case_cpu_path(struct tctx *t)
{
	bool gpu = t->gs.supported;
	size_t n = t->size, odd = T_PAGE + (size_t)t->gran, got;
	uint64_t a = 0, b = 3 * (uint64_t)n, c = 5 * (uint64_t)n, before;
	int nch = t->info.num_h2c < t->info.num_c2h ? t->info.num_h2c :
						      t->info.num_c2h;
	struct cpu_job job = { 0 };
	struct gbuf reg = { 0 }, gb = { 0 };
	HELLOFPGA_COUNTERS c0, c1;
	pthread_t thr;
	bool started = false;
	int i, ret, rc = -1;

	if (cpu_roundtrip(t, "CPU path before", t->ha, a, n, seed_of(12, 0, 0)))
		goto out;
	ret = HelloFPGA_GetCounters(t->h, &c0);
	if (ret) {
		tlibfail(t, t->h, ret, "GetCounters");
		goto out;
	}
	if (!gpu) {
		ret = HelloFPGA_SetTransferMode(t->h,
						HELLOFPGA_XFER_MODE_GPU_PINNED);
		if (!ret)
			HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
		if (expect(t, ret, -EINVAL, T_NONE,
			   "SetTransferMode(GPU_PINNED) without GPU Direct"))
			goto out;
		ret = HelloFPGA_SetGPUBuffer(t->h, t->ha, n);
		if (!ret) {
			HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
			tfail(t, "SetGPUBuffer of host memory succeeded without GPU Direct");
			goto out;
		}
	} else {
		if (gbuf_alloc(t, &reg, n) || gbuf_new(t, &gb, n))
			goto out;
		ret = HelloFPGA_SetGPUBuffer(t->h, reg.p, n);
		if (!ret)
			ret = HelloFPGA_SetTransferMode(t->h,
					HELLOFPGA_XFER_MODE_GPU_PINNED);
		if (ret) {
			tlibfail(t, t->h, ret, "SetGPUBuffer + SetTransferMode(GPU_PINNED)");
			goto out;
		}
	}

	/* During: same data, same odd cases, same errors. */
	if (cpu_roundtrip(t, "CPU path beside GPU Direct", t->ha, a, n,
			  seed_of(12, 1, 0)) ||
	    cpu_roundtrip(t, "CPU path, unaligned host buffer", t->ha + 1,
			  b + t->gran, odd, seed_of(12, 2, 0)))
		goto out;
	if (expect(t, HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, t->hb,
					       t->info.ddr_size - 8, 16, &got),
		   -ERANGE, T_NONE, "CPU-path read past the end of card memory") ||
	    expect(t, HelloFPGA_DMA_MM_WriteH2C(t->h, 255, t->ha, 0, 16, &got),
		   -ECHRNG, T_NONE, "CPU-path write on channel 255") ||
	    expect(t, HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, NULL, 0, 16, &got),
		   -EFAULT, T_NONE, "CPU-path read into NULL"))
		goto out;
	if (gpu) {
		/* Interleaved with GPU Direct on the same channel. */
		for (i = 0; i < 4; i++) {
			if (roundtrip(t, &gb, 0, c, n, PAT_RANDOM,
				      seed_of(12, 3, (uint32_t)i), NULL) ||
			    cpu_roundtrip(t, "CPU path interleaved", t->ha, a, n,
					  seed_of(12, 4, (uint32_t)i)))
				goto out;
		}
		/* At the same time from another thread, on another channel. */
		job.h = t->h;
		job.ch = nch > 1 ? (t->ch + 1) % nch : t->ch;
		job.addr = b;
		job.len = n < (1u << 20) ? n : 1u << 20;
		job.src = cli_alloc(job.len);
		job.dst = job.src ? cli_alloc(job.len) : NULL;
		if (!job.dst) {
			tfail(t, "out of host memory");
			goto out;
		}
		ret = pthread_create(&thr, NULL, cpu_worker, &job);
		if (ret) {
			tfail(t, "cannot start a thread: %s", strerror(ret));
			goto out;
		}
		started = true;
		for (i = 0; i < 8; i++)
			if (roundtrip(t, &gb, 0, c, n, PAT_RANDOM,
				      seed_of(12, 5, (uint32_t)i), NULL))
				break;
		pthread_join(thr, NULL);
		started = false;
		if (t->cur->res == T_FAIL)
			goto out;
		if (job.ret) {
			tfail(t, "%s", job.err);
			goto out;
		}
		ret = HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
		if (!ret)
			ret = HelloFPGA_SetTransferMode(t->h,
							HELLOFPGA_XFER_MODE_CPU);
		if (ret) {
			tlibfail(t, t->h, ret, "SetGPUBuffer(NULL) + SetTransferMode(CPU)");
			goto out;
		}
	}
	ret = HelloFPGA_GetCounters(t->h, &c1);
	if (ret) {
		tlibfail(t, t->h, ret, "GetCounters");
		goto out;
	}
	before = c0.bytes_h2c;
	if (c1.transfers < c0.transfers + 4 ||
	    c1.bytes_h2c < before + n + odd) {
		tfail(t, "counters did not count the CPU-path transfers (transfers %" PRIu64
		      " -> %" PRIu64 ", H2C bytes %" PRIu64 " -> %" PRIu64 ")",
		      c0.transfers, c1.transfers, before, c1.bytes_h2c);
		goto out;
	}
	if (cpu_roundtrip(t, "CPU path after", t->ha, a, n, seed_of(12, 6, 0)))
		goto out;
	if (gpu)
		tpass(t, "host-buffer round trips, odd sizes, error codes and counters unchanged in GPU_PINNED mode, interleaved with GPU Direct and beside it on channel %d (%d rounds); %" PRIu64 " bytes verified",
		      job.ch, job.rounds, t->verified);
	else
		tpass(t, "no GPU Direct (%s): CPU path alone verified, GPU_PINNED refused",
		      t->gs.reason);
	rc = 0;
out:
	if (started)
		pthread_join(thr, NULL);
	free(job.src);
	free(job.dst);
	if (gpu) {
		HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	}
	gbuf_free(t, &reg);
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_pin_misuse() - 13. Pin misuse is refused and harms nothing:
 * unaligned address or size, zero size, a range past the allocation,
 * NULL, host memory on a desktop GPU, a NULL card handle; double unpin
 * and use after unpin (-ENOENT), handle 0 and unknown handles, transfers
 * larger than the buffer or with a bad direction or channel, GPU memory
 * freed while pinned (-ENXIO); afterwards a new pin works.
 */
static int case_pin_misuse(struct tctx *t)
{
	HELLOFPGA_GPU_HANDLE hd = 0, hd2 = 0;
	struct gbuf gb = { 0 }, ok = { 0 };
	const char *hostnote = "";
	void *freed;
	size_t got;
	int ret, rc = -1, checks = 0;

	if (gbuf_alloc(t, &gb, t->size))
		goto out;
#define MISUSE(call, want, alt, ...)					\
	do {								\
		checks++;						\
		if (expect(t, (call), (want), (alt), __VA_ARGS__))	\
			goto out;					\
	} while (0)
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)gb.p + 1, T_PAGE, &hd),
	       -EINVAL, T_NONE, "Pin of an address off by 1 byte");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)gb.p + T_PAGE / 2, T_PAGE, &hd),
	       -EINVAL, T_NONE, "Pin of an address 2 KiB into a page");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, T_PAGE - 1, &hd),
	       -EINVAL, T_NONE, "Pin of 4095 bytes");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, T_PAGE + 512, &hd),
	       -EINVAL, T_NONE, "Pin of 4608 bytes");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, 0, &hd),
	       -EINVAL, T_NONE, "Pin of 0 bytes");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, gb.size + t->gs.page_size, &hd),
	       -EINVAL, T_NONE, "Pin past the end of the allocation");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, NULL, T_PAGE, &hd),
	       -EINVAL, -EFAULT, "Pin of NULL");
	MISUSE(HelloFPGA_GPUDirect_Pin(NULL, gb.p, T_PAGE, &hd),
	       -EBADF, T_NONE, "Pin on a NULL card handle");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, T_PAGE, NULL),
	       -EFAULT, -EINVAL, "Pin with a NULL handle pointer");
	if (t->gs.platform == HELLOFPGA_PLATFORM_DESKTOP)
		MISUSE(HelloFPGA_GPUDirect_Pin(t->h, t->ha, T_PAGE, &hd),
		       -EINVAL, T_NONE, "Pin of host memory on a desktop GPU");
	else
		hostnote = "; host-memory check skipped: on Tegra GPU memory is host memory";
	hd = 0;	/* what a refused Pin leaves there is not specified */

	if (gbuf_pin(t, &gb, NULL))
		goto out;
	hd = gb.hd;
	gb.hd = 0;
	ret = HelloFPGA_GPUDirect_Unpin(t->h, hd);
	if (ret) {
		tlibfail(t, t->h, ret, "Unpin");
		goto out;
	}
	MISUSE(HelloFPGA_GPUDirect_Unpin(t->h, hd), -ENOENT, T_NONE,
	       "double Unpin");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "ReadC2H after Unpin");
	MISUSE(HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, hd, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "WriteH2C after Unpin");
	MISUSE(HelloFPGA_GPUDirect_Xfer(t->h, t->ch, hd, 0, 0, T_PAGE,
					HELLOFPGA_DIR_C2H, 0, &got),
	       -ENOENT, T_NONE, "Xfer after Unpin");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, 0, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "ReadC2H on handle 0");
	MISUSE(HelloFPGA_GPUDirect_Unpin(t->h, 0), -ENOENT, T_NONE,
	       "Unpin of handle 0");
	MISUSE(HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, ~hd, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "WriteH2C on a handle never issued");

	/* Bad transfers on a good handle. */
	if (gbuf_pin(t, &gb, NULL))
		goto out;
	hd2 = gb.hd;
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd2, 0,
					   gb.size + T_PAGE, 0),
	       -EINVAL, T_NONE, "ReadC2H larger than the buffer");
	MISUSE(HelloFPGA_GPUDirect_Xfer(t->h, t->ch, hd2, gb.size - T_PAGE, 0,
					2 * T_PAGE, HELLOFPGA_DIR_H2C, 0, &got),
	       -EINVAL, T_NONE, "Xfer leaving the buffer");
	MISUSE(HelloFPGA_GPUDirect_Xfer(t->h, t->ch, hd2, 0, 0, T_PAGE, 7, 0,
					&got),
	       -EINVAL, T_NONE, "Xfer in direction 7");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, 255, hd2, 0, T_PAGE, 0),
	       -ECHRNG, T_NONE, "ReadC2H on channel 255");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(NULL, t->ch, hd2, 0, T_PAGE, 0),
	       -EBADF, T_NONE, "ReadC2H on a NULL card handle");

	/* GPU memory freed while pinned. */
	freed = gb.p;
	ret = HelloFPGA_GPU_Free(gb.p);
	gb.p = NULL;
	gb.hd = 0;
	if (ret) {
		tlibfail(t, NULL, ret, "GPU_Free of pinned memory");
		goto out;
	}
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd2, 0, T_PAGE, 0),
	       -ENXIO, T_NONE, "ReadC2H after GPU_Free of the pinned memory %p",
	       freed);
	MISUSE(HelloFPGA_GPUDirect_Unpin(t->h, hd2), 0, -ENOENT,
	       "Unpin after GPU_Free");
	hd2 = 0;

	/* Nothing harmed: a new pin works. */
	if (gbuf_new(t, &ok, T_MIN_SIZE) ||
	    roundtrip(t, &ok, 0, 0, T_MIN_SIZE, PAT_RANDOM, seed_of(13, 0, 0),
		      NULL))
		goto out;
#undef MISUSE
	tpass(t, "%d misuses refused with the documented error; a new pin then works%s",
	      checks, hostnote);
	rc = 0;
out:
	if (hd2)
		HelloFPGA_GPUDirect_Unpin(t->h, hd2);
	gbuf_free(t, &ok);
	gbuf_free(t, &gb);
	return rc;
}

/* The pattern id @id of handle_reuse, T_REUSE_SIZE bytes into @p. */
static void reuse_pattern(uint8_t *p, uint32_t id)
{
	fill(p, T_REUSE_SIZE, seed_of(14, id, 0));
}

/**
 * case_handle_reuse() - 14. One handle over thousands of transfers:
 * T_REUSE_XFERS transfers of 64 KiB alternating card -> GPU and GPU ->
 * card between one pinned buffer and 16 card slots picked at random,
 * the program tracking which pattern each slot and the buffer hold; fresh
 * patterns enter now and then, the buffer and a slot are verified every
 * T_REUSE_CHECK_EVERY transfers and all slots at the end.
 */
static int case_handle_reuse(struct tctx *t)
{
	uint32_t id[T_REUSE_SLOTS], gid = UINT32_MAX, next = T_REUSE_SLOTS;
	uint64_t rng = 0x853c49e6748fea9bull, busy = 0, ns, base = 0;
	struct gbuf gb = { 0 };
	unsigned int checks = 0;
	char what[80];
	int i, k, rc = -1;

	if (gbuf_new(t, &gb, T_REUSE_SIZE))
		goto out;
	for (k = 0; k < T_REUSE_SLOTS; k++) {
		id[k] = (uint32_t)k;
		reuse_pattern(t->ha, id[k]);
		if (card_put(t, base + (uint64_t)k * T_REUSE_SIZE, t->ha,
			     T_REUSE_SIZE))
			goto out;
	}
	for (i = 0; i < T_REUSE_XFERS; i++) {
		rng = mix64(rng);
		k = (int)(rng % T_REUSE_SLOTS);
		if (i % T_REUSE_NEW_EVERY == T_REUSE_NEW_EVERY - 1) {
			/* A fresh pattern, so slots do not all end up alike. */
			id[k] = next++;
			reuse_pattern(t->ha, id[k]);
			if (card_put(t, base + (uint64_t)k * T_REUSE_SIZE,
				     t->ha, T_REUSE_SIZE))
				goto out;
			rng = mix64(rng);
			k = (int)(rng % T_REUSE_SLOTS);
		}
		if (!(i & 1)) {
			if (gd_xfer(t, &gb, 0, base + (uint64_t)k * T_REUSE_SIZE,
				    T_REUSE_SIZE, HELLOFPGA_DIR_C2H, &ns))
				goto out;
			gid = id[k];
		} else {
			if (gd_xfer(t, &gb, 0, base + (uint64_t)k * T_REUSE_SIZE,
				    T_REUSE_SIZE, HELLOFPGA_DIR_H2C, &ns))
				goto out;
			id[k] = gid;
		}
		busy += ns;
		if ((i + 1) % T_REUSE_CHECK_EVERY)
			continue;
		tprog(t, "handle_reuse: %d/%d transfers", i + 1, T_REUSE_XFERS);
		snprintf(what, sizeof(what), "buffer after transfer %d", i + 1);
		reuse_pattern(t->ha, gid);
		if (gpu_get(t, t->hb, gb.p, T_REUSE_SIZE) ||
		    check_bytes(t, what, t->ha, t->hb, T_REUSE_SIZE, 0))
			goto out;
		snprintf(what, sizeof(what), "card slot %d after transfer %d",
			 k, i + 1);
		reuse_pattern(t->ha, id[k]);
		if (card_get(t, base + (uint64_t)k * T_REUSE_SIZE, t->hb,
			     T_REUSE_SIZE) ||
		    check_bytes(t, what, t->ha, t->hb, T_REUSE_SIZE,
				base + (uint64_t)k * T_REUSE_SIZE))
			goto out;
		checks++;
	}
	for (k = 0; k < T_REUSE_SLOTS; k++) {
		snprintf(what, sizeof(what), "card slot %d at the end", k);
		reuse_pattern(t->ha, id[k]);
		if (card_get(t, base + (uint64_t)k * T_REUSE_SIZE, t->hb,
			     T_REUSE_SIZE) ||
		    check_bytes(t, what, t->ha, t->hb, T_REUSE_SIZE,
				base + (uint64_t)k * T_REUSE_SIZE))
			goto out;
	}
	tpass(t, "%d transfers of 64 KiB alternating directions on handle 0x%" PRIx64
	      ", mean %.1f us each; %u checkpoints and all %d slots verified",
	      T_REUSE_XFERS, gb.hd, us(busy / T_REUSE_XFERS), checks,
	      T_REUSE_SLOTS);
	rc = 0;
out:
	gbuf_free(t, &gb);
	return rc;
}

/**
 * struct rot_job - one frame's card -> GPU transfer, run by a thread so
 * that the program can check the previous frame meanwhile.
 */
struct rot_job {
	HELLOFPGA_HANDLE h;
	int ch;
	HELLOFPGA_GPU_HANDLE hd;
	uint64_t addr;
	size_t len;
	int ret;
	char err[200];
};

static void *rot_worker(void *arg)
{
	struct rot_job *j = arg;

	j->ret = HelloFPGA_GPUDirect_ReadC2H(j->h, j->ch, j->hd, j->addr,
					     j->len, 0);
	if (j->ret)
		snprintf(j->err, sizeof(j->err), "%s",
			 HelloFPGA_GetLastError(j->h));
	return NULL;
}

/* Check that buffer @gb holds frame @f. */
static int rot_check(struct tctx *t, const struct gbuf *gb, int f, size_t len)
{
	char what[64];

	snprintf(what, sizeof(what), "frame %d", f);
	fill(t->ha, len, seed_of(15, (uint32_t)f, 0));
	if (gpu_get(t, t->hb, gb->p, len))
		return -1;
	return check_bytes(t, what, t->ha, t->hb, len, 0);
}

/* The card puts frame @f into its slot (as a frame grabber would). */
static int rot_produce(struct tctx *t, uint64_t base, int f, size_t len)
{
	fill(t->hc, len, seed_of(15, (uint32_t)f, 0));
	return card_put(t, base + (uint64_t)(f % T_ROT_SLOTS) * len, t->hc, len);
}

/**
 * rot_run() - move @frames frames of @len bytes from a ring of card slots
 * into @nb pinned buffers in turn.  With more than one buffer, frame f
 * arrives in buffer f % nb while the program checks frame f - 1 and the
 * card produces frame f + 7; with one, the steps run one after another.
 * @ns: receives the wall time
 * Return: 0 or -1 (recorded).
 */
static int rot_run(struct tctx *t, struct gbuf *bufs, int nb, int frames,
		   size_t len, uint64_t base, uint64_t *ns)
{
	struct rot_job job;
	uint64_t t0;
	pthread_t thr;
	int f, ret;

	for (f = 0; f < T_ROT_SLOTS - 1 && f < frames; f++)
		if (rot_produce(t, base, f, len))
			return -1;
	t0 = cli_now_ns();
	for (f = 0; f < frames; f++) {
		memset(&job, 0, sizeof(job));
		job.h = t->h;
		job.ch = t->ch;
		job.hd = bufs[f % nb].hd;
		job.addr = base + (uint64_t)(f % T_ROT_SLOTS) * len;
		job.len = len;
		ret = pthread_create(&thr, NULL, rot_worker, &job);
		if (ret)
			return tfail(t, "cannot start a thread: %s",
				     strerror(ret));
		if (nb > 1) {
			/* While frame f arrives: check f - 1, produce f + 7. */
			ret = 0;
			if (f > 0)
				ret = rot_check(t, &bufs[(f - 1) % nb], f - 1, len);
			if (!ret && f + T_ROT_SLOTS - 1 < frames)
				ret = rot_produce(t, base, f + T_ROT_SLOTS - 1,
						  len);
			pthread_join(thr, NULL);
			if (ret)
				return -1;
		} else {
			pthread_join(thr, NULL);
		}
		if (job.ret)
			return tfail(t, "GPUDirect_ReadC2H of frame %d into buffer %d: %s%s%s",
				     f, f % nb, HelloFPGA_StrError(job.ret),
				     job.err[0] ? ": " : "", job.err);
		if (nb == 1 &&
		    (rot_check(t, &bufs[0], f, len) ||
		     (f + T_ROT_SLOTS - 1 < frames &&
		      rot_produce(t, base, f + T_ROT_SLOTS - 1, len))))
			return -1;
	}
	if (nb > 1 && rot_check(t, &bufs[(frames - 1) % nb], frames - 1, len))
		return -1;
	*ns = cli_now_ns() - t0;
	return 0;
}

/**
 * case_rotation() - 15. Multi-buffer rotation over 4 pinned buffers: 64
 * frames of 1 MiB from a ring of 8 card slots, the card filling buffer k
 * while the program checks buffer k - 1; every frame verified.  The same
 * run through a single buffer gives the frame rate to compare with.
 */
static int case_rotation(struct tctx *t)
{
	struct gbuf bufs[T_ROT_BUFS];
	size_t len = t->size < T_ROT_FRAME ? t->size : T_ROT_FRAME;
	uint64_t base = 0, ns4, ns1;
	char sz[32];
	int i, rc = -1;

	memset(bufs, 0, sizeof(bufs));
	for (i = 0; i < T_ROT_BUFS; i++)
		if (gbuf_new(t, &bufs[i], len))
			goto out;
	tprog(t, "multi_buffer_rotation: 4 buffers");
	if (rot_run(t, bufs, T_ROT_BUFS, T_ROT_FRAMES, len, base, &ns4))
		goto out;
	tprog(t, "multi_buffer_rotation: single buffer");
	if (rot_run(t, bufs, 1, T_ROT_FRAMES, len, base + T_ROT_SLOTS * len,
		    &ns1))
		goto out;
	tpass(t, "%d frames of %s through %d pinned buffers, every frame verified: %.0f fps (single buffer %.0f fps)",
	      T_ROT_FRAMES, cli_fmt_size(len, sz, sizeof(sz)), T_ROT_BUFS,
	      ns4 ? T_ROT_FRAMES * 1e9 / (double)ns4 : 0.0,
	      ns1 ? T_ROT_FRAMES * 1e9 / (double)ns1 : 0.0);
	rc = 0;
out:
	for (i = 0; i < T_ROT_BUFS; i++)
		gbuf_free(t, &bufs[i]);
	return rc;
}

static const struct tcase cases[T_NCASES] = {
	{ "get_status", "GetGPUStatus platform detection", false, case_get_status },
	{ "pin", "Pin GPU memory", true, case_pin },
	{ "read_c2h", "ReadC2H: card -> GPU", true, case_read_c2h },
	{ "write_h2c", "WriteH2C: GPU -> card", true, case_write_h2c },
	{ "unpin", "Unpin", true, case_unpin },
	{ "data_correctness", "byte-by-byte data correctness, both directions", true, case_data_correctness },
	{ "batch_10x_read", "batch of 10 ReadC2H", true, case_batch_10x_read },
	{ "addr_space_2g_7pts", "card address space at 7 points", true, case_addr_space },
	{ "stress_2g_6offs", "stress: large transfers at 6 offsets", true, case_stress },
	{ "boundary_2g_6pts", "boundaries: 6 points at the edges of card memory", true, case_boundary },
	{ "transfer_mode_switch", "TransferMode switch: SetGPUBuffer, SetTransferMode", true, case_transfer_mode },
	{ "cpu_path_unchanged", "the CPU path unchanged beside GPU Direct", false, case_cpu_path },
	{ "pin_misuse", "pin misuse: unaligned, host memory, double unpin, use after unpin", true, case_pin_misuse },
	{ "handle_reuse", "one handle over thousands of transfers", true, case_handle_reuse },
	{ "multi_buffer_rotation", "rotation over 4 pinned buffers", true, case_rotation },
};

/* ------------------------------------------------------------------------
 * Running the cases
 * ------------------------------------------------------------------------ */

/* "name ......" padded to a column. */
static void print_name(const char *name)
{
	int n = printf("%s ", name);

	for (; n < 26; n++)
		putchar('.');
	putchar(' ');
}

static void print_result(const struct t_res *r)
{
	if (r->res == T_SKIP)
		printf("SKIP (%s)\n", r->text);
	else
		printf("%s (%.2f s, %s)\n", result_name[r->res],
		       (double)r->ns / 1e9, r->text);
	fflush(stdout);
}

/**
 * run_case() - run case @i (0-based) and print its line.  Without a GPU a
 * GPU case is SKIP; without GPU Direct it is FAIL, with the reason.
 */
/*
 * DMA faults of the card so far (an emulated card's IOMMU record); false
 * when the backend does not see them (the kernel driver: the kernel log).
 */
static bool dma_faults(struct tctx *t, HELLOFPGA_DMA_FAULTS *f)
{
	return !HelloFPGA_GetDMAFaults(t->h, f);
}

static void run_case(struct tctx *t, int i, struct t_res *r)
{
	const struct tcase *c = &cases[i];
	uint64_t t0 = cli_now_ns();
	HELLOFPGA_DMA_FAULTS f0, f1;
	bool faults;
	int ret;

	memset(r, 0, sizeof(*r));
	r->res = T_PASS;
	t->cur = r;
	t->verified = 0;
	if (c->gpu && t->gs.platform == HELLOFPGA_PLATFORM_NONE) {
		r->res = T_SKIP;
		snprintf(r->text, sizeof(r->text), "no GPU: %s", t->gs.reason);
	} else if (c->gpu && !t->gs.supported) {
		tfail(t, "GPU Direct is not supported here: %s", t->gs.reason);
	} else {
		faults = dma_faults(t, &f0);
		cli_progress_start(&t->prog, 0);
		tprog(t, "[%2d/%d] %s", i + 1, T_NCASES, c->name);
		ret = c->fn(t);
		cli_progress_stop(&t->prog);
		if (ret && r->res == T_PASS)
			tfail(t, "failed without a reason (a bug of the test)");
		/* the card never touches memory it was not given */
		if (faults && dma_faults(t, &f1) && f1.faults != f0.faults)
			tfail(t, "%" PRIu64 " DMA fault(s) of the card (last at bus 0x%" PRIx64 "): it reached memory that was not, or no longer, mapped for it",
			      f1.faults - f0.faults, f1.last_fault_bus);
	}
	r->ns = cli_now_ns() - t0;
	t->cur = NULL;
	printf("[%2d/%d] ", i + 1, T_NCASES);
	print_name(c->name);
	print_result(r);
}

/* ------------------------------------------------------------------------
 * Soak
 * ------------------------------------------------------------------------ */

static void on_sigint(int sig)
{
	t_stop = 1;
}

/* "01:02:03" */
static const char *fmt_hms(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NS_PER_S;

	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600,
		 s / 60 % 60, s % 60);
	return buf;
}

/* "12h", "10m", "1h 30m", "90s" -> "1m 30s" */
static const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NS_PER_S, d = s / 86400, h = s / 3600 % 24;
	uint64_t m = s / 60 % 60;
	size_t n = 0;

	buf[0] = '\0';
	if (d)
		n += snprintf(buf + n, len - n, "%" PRIu64 "d ", d);
	if (h && n < len)
		n += snprintf(buf + n, len - n, "%" PRIu64 "h ", h);
	if (m && n < len)
		n += snprintf(buf + n, len - n, "%" PRIu64 "m ", m);
	if ((s % 60 || !s) && n < len)
		n += snprintf(buf + n, len - n, "%" PRIu64 "s ", s % 60);
	if (n && n <= len)
		buf[n - 1] = '\0';
	return buf;
}

/**
 * parse_duration() - "90s", "10m", "12h", "1d", "1h30m", or plain seconds.
 * @ns: receives the duration in nanoseconds
 * Return: 0, -EINVAL (malformed) or -ERANGE (over 30 days).
 */
static int parse_duration(const char *s, uint64_t *ns)
{
	const char *p = s;
	uint64_t total = 0;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		unsigned long long v;
		uint64_t mult;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno == ERANGE || v > T_SOAK_MAX_S)
			return -ERANGE;
		switch (*end) {
		case '\0':
			if (p != s)
				return -EINVAL;	/* "1h30": unit missing */
			mult = 1;
			break;
		case 's':
			mult = 1;
			end++;
			break;
		case 'm':
			mult = 60;
			end++;
			break;
		case 'h':
			mult = 3600;
			end++;
			break;
		case 'd':
			mult = 86400;
			end++;
			break;
		default:
			return -EINVAL;
		}
		total += v * mult;
		if (total > T_SOAK_MAX_S)
			return -ERANGE;
		p = end;
	}
	*ns = total * NS_PER_S;
	return 0;
}

/**
 * soak_sample() - one measurement: after T_SOAK_WARMUP untimed transfers
 * each way (the first sample comes right after the cases, cold), take
 * T_SOAK_XFERS card -> GPU transfers
 * from two card regions holding different patterns, then as many GPU ->
 * card transfers from two buffers holding different patterns; each
 * transfer verified (through host staging or the CPU path), so a
 * transfer that silently did nothing cannot pass.
 * @g: two pinned buffers of t->size
 * @base: card region of 3 * t->size
 * @k: sample number, for the patterns
 * @s: receives the medians
 * Return: 0 or -1 (recorded).  Leaves pattern (k, 2) in g[0] and t->ha.
 */
static int soak_sample(struct tctx *t, struct gbuf *g, uint64_t base,
		       uint32_t k, struct soak_sample *s)
{
	uint64_t lat[T_SOAK_XFERS], reg[2] = { base, base + t->size };
	uint64_t wr = base + 2 * (uint64_t)t->size;
	uint8_t *pat[2] = { t->ha, t->hb };
	size_t n = t->size;
	char what[64];
	int i;

	fill(t->ha, n, seed_of(16, k, 0));
	fill(t->hb, n, seed_of(16, k, 1));
	if (card_put(t, reg[0], t->ha, n) || card_put(t, reg[1], t->hb, n))
		return -1;
	for (i = 0; i < T_SOAK_WARMUP; i++)
		if (gd_xfer(t, &g[0], 0, reg[0], n, HELLOFPGA_DIR_C2H, NULL) ||
		    gd_xfer(t, &g[1], 0, wr, n, HELLOFPGA_DIR_H2C, NULL))
			return -1;
	for (i = 0; i < T_SOAK_XFERS; i++) {
		snprintf(what, sizeof(what), "sample %u, card -> GPU %d", k + 1,
			 i + 1);
		if (gd_xfer(t, &g[0], 0, reg[i & 1], n, HELLOFPGA_DIR_C2H,
			    &lat[i]) ||
		    gpu_get(t, t->hc, g[0].p, n) ||
		    check_bytes(t, what, pat[i & 1], t->hc, n, 0))
			return -1;
	}
	s->rd_ns = median(lat, T_SOAK_XFERS);

	fill(t->ha, n, seed_of(16, k, 2));
	fill(t->hb, n, seed_of(16, k, 3));
	if (gpu_put(t, g[0].p, t->ha, n) || gpu_put(t, g[1].p, t->hb, n))
		return -1;
	for (i = 0; i < T_SOAK_XFERS; i++) {
		snprintf(what, sizeof(what), "sample %u, GPU -> card %d", k + 1,
			 i + 1);
		if (gd_xfer(t, &g[i & 1], 0, wr, n, HELLOFPGA_DIR_H2C, &lat[i]) ||
		    card_get(t, wr, t->hc, n) ||
		    check_bytes(t, what, pat[i & 1], t->hc, n, wr))
			return -1;
	}
	s->wr_ns = median(lat, T_SOAK_XFERS);
	t->soak_xfers += 2 * (T_SOAK_XFERS + T_SOAK_WARMUP);
	t->soak_bytes += 2ull * (T_SOAK_XFERS + T_SOAK_WARMUP) * n;
	return 0;
}

/* Bring the soak's progress line up to date: elapsed / total, last sample. */
static void soak_progress(struct tctx *t)
{
	uint64_t el = cli_now_ns() - t->soak_start, ms = el / 1000000;
	const struct soak_sample *s = t->soak_last;
	char a[32], b[32];

	if (ms > t->soak_shown_ms) {
		cli_progress_add(&t->prog, ms - t->soak_shown_ms);
		t->soak_shown_ms = ms;
	}
	if (!s) {
		cli_progress_label(&t->prog, "soak: %s/%s, first sample",
				   fmt_hms(el, a, sizeof(a)),
				   fmt_hms(t->soak_ns, b, sizeof(b)));
		return;
	}
	cli_progress_label(&t->prog,
			   "soak: %s/%s, sample %zu: read %.1f us %.2f GB/s, write %.1f us %.2f GB/s",
			   fmt_hms(el, a, sizeof(a)),
			   fmt_hms(t->soak_ns, b, sizeof(b)), t->nsamples,
			   us(s->rd_ns), cli_gbps(t->size, s->rd_ns),
			   us(s->wr_ns), cli_gbps(t->size, s->wr_ns));
}

/**
 * soak_load() - keep GPU Direct busy until @until (or Ctrl-C): g[0] ->
 * card -> g[1], every T_SOAK_CHECK_EVERY-th round with g[1] poisoned first
 * and checked against t->ha (what g[0] holds) after.
 * Return: 0 or -1 (recorded).
 */
static int soak_load(struct tctx *t, struct gbuf *g, uint64_t addr,
		     uint64_t until, uint64_t *xfers)
{
	size_t n = t->size;
	uint64_t r;

	for (r = 1; !t_stop && cli_now_ns() < until; r++) {
		bool check = !(r % T_SOAK_CHECK_EVERY);

		if ((check && gpu_poison(t, g[1].p, n)) ||
		    gd_xfer(t, &g[0], 0, addr, n, HELLOFPGA_DIR_H2C, NULL) ||
		    gd_xfer(t, &g[1], 0, addr, n, HELLOFPGA_DIR_C2H, NULL))
			return -1;
		*xfers += 2;
		t->soak_xfers += 2;
		t->soak_bytes += 2ull * n;
		if (!(r & 7))
			soak_progress(t);
		if (check && (gpu_get(t, t->hc, g[1].p, n) ||
			      check_bytes(t, "soak load round trip", t->ha, t->hc,
					  n, 0)))
			return -1;
	}
	return 0;
}

/**
 * struct drift - a direction's soak statistics.
 * @mean_ns, @mean_gbps: over all samples (bandwidth per sample, averaged)
 * @first_ns, @last_ns, @first_gbps, @last_gbps: means of the first and
 *	last third of the samples
 * @valid: at least 3 samples, so that the thirds exist
 */
struct drift {
	double mean_ns;
	double mean_gbps;
	double first_ns;
	double last_ns;
	double first_gbps;
	double last_gbps;
	bool valid;
};

static void drift_of(const struct tctx *t, bool rd, struct drift *d)
{
	size_t n = t->nsamples, third = n / 3, i;
	double sum_ns = 0, sum_bw = 0;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		uint64_t ns = rd ? t->samples[i].rd_ns : t->samples[i].wr_ns;
		double bw = cli_gbps(t->size, ns);

		sum_ns += (double)ns;
		sum_bw += bw;
		if (i < third) {
			d->first_ns += (double)ns;
			d->first_gbps += bw;
		}
		if (third && i >= n - third) {
			d->last_ns += (double)ns;
			d->last_gbps += bw;
		}
	}
	if (n) {
		d->mean_ns = sum_ns / (double)n;
		d->mean_gbps = sum_bw / (double)n;
	}
	if (third) {
		d->first_ns /= (double)third;
		d->last_ns /= (double)third;
		d->first_gbps /= (double)third;
		d->last_gbps /= (double)third;
		d->valid = d->first_ns > 0 && d->first_gbps > 0;
	}
}

/* (last - first) / first in percent. */
static double pct(double first, double last)
{
	return first ? (last - first) / first * 100.0 : 0.0;
}

static void print_drift(const char *dir, const struct drift *d)
{
	printf("  %-5s  %10.1f  %9.3f", dir, d->mean_ns / 1e3, d->mean_gbps);
	if (d->valid)
		printf("  %10.1f  %10.1f  %+8.2f %%  %+8.2f %%\n",
		       d->first_ns / 1e3, d->last_ns / 1e3,
		       pct(d->first_ns, d->last_ns),
		       pct(d->first_gbps, d->last_gbps));
	else
		printf("  %10s  %10s  %10s  %10s\n", "-", "-", "n/a", "n/a");
}

/**
 * run_soak() - the soak phase: a sample every interval (the first at
 * once), GPU Direct load between samples, a row per sample as it is
 * taken, a progress line on stderr, then means and drift.  The outcome
 * goes to t->soak.
 */
static void run_soak(struct tctx *t)
{
	uint64_t start, next, load = 0, base = 0;
	uint64_t load_addr = 3 * (uint64_t)t->size;
	struct sigaction sa, old;
	struct gbuf g[2];
	struct drift rd, wr;
	size_t cap;
	char a[32], b[32], c[32];
	uint32_t k;

	memset(&t->soak, 0, sizeof(t->soak));
	memset(g, 0, sizeof(g));
	t->soak.res = T_PASS;
	t->cur = &t->soak;
	cap = (size_t)((t->soak_ns + t->interval_ns - 1) / t->interval_ns);
	t->samples = calloc(cap, sizeof(*t->samples));
	if (!t->samples) {
		tfail(t, "out of memory for %zu samples", cap);
		goto out_print;
	}
	if (t->gs.platform == HELLOFPGA_PLATFORM_NONE) {
		t->soak.res = T_SKIP;
		snprintf(t->soak.text, sizeof(t->soak.text), "no GPU: %s",
			 t->gs.reason);
		goto out_print;
	}
	if (!t->gs.supported) {
		tfail(t, "GPU Direct is not supported here: %s", t->gs.reason);
		goto out_print;
	}
	if (gbuf_new(t, &g[0], t->size) || gbuf_new(t, &g[1], t->size))
		goto out_free;

	printf("\nsoak: %s, a sample every %s (%zu samples): median of %d GPU Direct transfers of %s each way (after %d untimed), each verified; verified load in between\n",
	       fmt_duration(t->soak_ns, a, sizeof(a)),
	       fmt_duration(t->interval_ns, b, sizeof(b)), cap, T_SOAK_XFERS,
	       cli_fmt_size(t->size, c, sizeof(c)), T_SOAK_WARMUP);
	printf("  sample   elapsed   read us  read GB/s   write us  write GB/s  load xfers\n");
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESETHAND;	/* a second Ctrl-C ends the program */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	t_stop = 0;

	cli_progress_start(&t->prog, t->soak_ns / 1000000);
	start = cli_now_ns();
	t->soak_start = start;
	t->soak_shown_ms = 0;
	t->soak_last = NULL;
	soak_progress(t);
	for (k = 0; k < cap && !t_stop; k++) {
		struct soak_sample *s = &t->samples[k];
		uint64_t now;

		next = start + k * t->interval_ns;
		if (soak_load(t, g, load_addr, next, &load))
			break;
		if (t_stop)
			break;
		now = cli_now_ns();
		s->t_ns = now - start;
		s->load = load;
		load = 0;
		if (soak_sample(t, g, base, k, s))
			break;
		t->nsamples++;
		printf("  %6u  %s  %8.1f  %9.3f  %9.1f  %10.3f  %10" PRIu64 "\n",
		       k + 1, fmt_hms(s->t_ns, a, sizeof(a)), us(s->rd_ns),
		       cli_gbps(t->size, s->rd_ns), us(s->wr_ns),
		       cli_gbps(t->size, s->wr_ns), s->load);
		fflush(stdout);
		t->soak_last = s;
		soak_progress(t);
	}
	if (t->soak.res != T_FAIL && !t_stop)
		soak_load(t, g, load_addr, start + t->soak_ns, &load);
	cli_progress_stop(&t->prog);
	sigaction(SIGINT, &old, NULL);
	t->soak.ns = cli_now_ns() - start;
	if (t_stop && t->soak.res != T_FAIL)
		tfail(t, "interrupted after %s of %s",
		      fmt_hms(t->soak.ns, a, sizeof(a)),
		      fmt_hms(t->soak_ns, b, sizeof(b)));

	drift_of(t, true, &rd);
	drift_of(t, false, &wr);
	printf("\nsoak summary: %zu samples over %s, %" PRIu64 " GPU Direct transfers, %s moved%s\n",
	       t->nsamples, fmt_duration(t->soak.ns, a, sizeof(a)),
	       t->soak_xfers,
	       cli_fmt_size(t->soak_bytes, b, sizeof(b)),
	       t->soak.res == T_PASS ? ", every verified transfer matched" : "");
	printf("  dir       mean us  mean GB/s  first 1/3 us  last 1/3 us  drift latency  drift bandwidth\n");
	print_drift("read", &rd);
	print_drift("write", &wr);
	if (t->soak.res == T_PASS) {
		if (rd.valid && wr.valid)
			tpass(t, "%zu samples, drift read %+.2f %% / write %+.2f %% (bandwidth, last third vs first)",
			      t->nsamples, pct(rd.first_gbps, rd.last_gbps),
			      pct(wr.first_gbps, wr.last_gbps));
		else
			tpass(t, "%zu samples, too few for drift (need 3)",
			      t->nsamples);
	}
out_free:
	gbuf_free(t, &g[0]);
	gbuf_free(t, &g[1]);
out_print:
	t->cur = NULL;
	printf("[soak]  ");
	print_name("soak");
	print_result(&t->soak);
}

/* ------------------------------------------------------------------------
 * JSON, the command
 * ------------------------------------------------------------------------ */

static void json_result(FILE *f, const struct t_res *r)
{
	fputs("\"result\": ", f);
	cli_json_str(f, result_name[r->res]);
	fprintf(f, ", \"seconds\": %.3f, \"detail\": ", (double)r->ns / 1e9);
	cli_json_str(f, r->text);
}

static void json_drift(FILE *f, const char *name, const struct drift *d)
{
	fprintf(f, "\"%s\": {\"mean_ns\": %.0f, \"mean_gbps\": %.4f", name,
		d->mean_ns, d->mean_gbps);
	if (d->valid)
		fprintf(f, ", \"first_third_ns\": %.0f, \"last_third_ns\": %.0f"
			", \"drift_latency_pct\": %.4f, \"drift_bandwidth_pct\": %.4f}",
			d->first_ns, d->last_ns, pct(d->first_ns, d->last_ns),
			pct(d->first_gbps, d->last_gbps));
	else
		fputs(", \"drift_latency_pct\": null, \"drift_bandwidth_pct\": null}", f);
}

/**
 * write_json() - the run as JSON: card, GPU, cases, soak, totals.
 * Return: 0, or -1 after reporting.
 */
static int write_json(struct tctx *t, const char *path,
		      const struct t_res *res, const bool *sel, int passed,
		      int failed, int skipped)
{
	FILE *f = fopen(path, "w");
	bool first = true;
	struct drift d;
	size_t i;
	int bad;

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("{\n  \"tool\": \"hellofpga test\",\n  \"library\": ", f);
	cli_json_str(f, HelloFPGA_Version());
	fputs(",\n  \"card\": {\"name\": ", f);
	cli_json_str(f, t->info.name);
	fputs(", \"backend\": ", f);
	cli_json_str(f, t->info.backend_name);
	fprintf(f, ", \"ddr_size\": %" PRIu64 ", \"num_h2c\": %d, \"num_c2h\": %d, \"channel\": %d},\n",
		t->info.ddr_size, t->info.num_h2c, t->info.num_c2h, t->ch);
	fputs("  \"gpu\": {\"platform\": ", f);
	cli_json_str(f, platform_name(t->gs.platform));
	fprintf(f, ", \"supported\": %d, \"emulated\": %d, \"name\": ",
		t->gs.supported, t->gs.emulated);
	cli_json_str(f, t->gs.name);
	fputs(", \"pci_bus_id\": ", f);
	cli_json_str(f, t->gs.pci_bus_id);
	fputs(", \"reason\": ", f);
	cli_json_str(f, t->gs.reason);
	fprintf(f, ", \"page_size\": %u, \"cuda_driver_version\": %d},\n",
		t->gs.page_size, t->gs.cuda_driver_version);
	fprintf(f, "  \"size\": %zu,\n  \"stress_size\": %zu,\n  \"cases\": [",
		t->size, t->stress);
	for (i = 0; i < T_NCASES; i++) {
		if (!sel[i])
			continue;
		fprintf(f, "%s\n    {\"number\": %zu, \"name\": \"%s\", ",
			first ? "" : ",", i + 1, cases[i].name);
		json_result(f, &res[i]);
		fputc('}', f);
		first = false;
	}
	fputs("\n  ],\n  \"soak\": ", f);
	if (!t->soak_ns) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"duration_s\": %.0f, \"interval_s\": %.0f, \"size\": %zu, \"transfers_per_sample\": %d, ",
			(double)t->soak_ns / 1e9, (double)t->interval_ns / 1e9,
			t->size, T_SOAK_XFERS);
		json_result(f, &t->soak);
		fprintf(f, ", \"transfers\": %" PRIu64 ", \"bytes\": %" PRIu64 ",\n    ",
			t->soak_xfers, t->soak_bytes);
		drift_of(t, true, &d);
		json_drift(f, "read", &d);
		fputs(",\n    ", f);
		drift_of(t, false, &d);
		json_drift(f, "write", &d);
		fputs(",\n    \"samples\": [", f);
		for (i = 0; i < t->nsamples; i++) {
			const struct soak_sample *s = &t->samples[i];

			fprintf(f, "%s\n      {\"t_s\": %.3f, \"read_ns\": %" PRIu64
				", \"read_gbps\": %.4f, \"write_ns\": %" PRIu64
				", \"write_gbps\": %.4f, \"load_transfers\": %" PRIu64
				", \"verified\": true}", i ? "," : "",
				(double)s->t_ns / 1e9, s->rd_ns,
				cli_gbps(t->size, s->rd_ns), s->wr_ns,
				cli_gbps(t->size, s->wr_ns), s->load);
		}
		fputs("\n    ]}", f);
	}
	fprintf(f, ",\n  \"passed\": %d,\n  \"failed\": %d,\n  \"skipped\": %d\n}\n",
		passed, failed, skipped);
	bad = ferror(f);
	if (fclose(f) || bad) {
		cli_err("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/**
 * parse_only() - --only NAME[,NAME]: names or numbers 1..15.
 * Return: 0, or -1 after reporting the first unknown one.
 */
static int parse_only(const char *arg, bool *sel)
{
	char *s = strdup(arg), *tok, *save = NULL;
	int i, n, any = 0;

	if (!s) {
		cli_err("out of memory");
		return -1;
	}
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < T_NCASES; i++)
			if (!strcmp(tok, cases[i].name))
				break;
		if (i == T_NCASES && !cli_parse_int(tok, 1, T_NCASES, &n))
			i = n - 1;
		if (i == T_NCASES) {
			cli_usage_err("test", "--only: no case '%s' (see 'hellofpga test --list')",
				      tok);
			free(s);
			return -1;
		}
		sel[i] = true;
		any = 1;
	}
	free(s);
	if (!any) {
		cli_usage_err("test", "--only: no case named");
		return -1;
	}
	return 0;
}

static void print_header(const struct tctx *t)
{
	const HELLOFPGA_GPU_STATUS *g = &t->gs;
	char sz[32], sz2[32];

	printf("library:  libhellofpga %s\n", HelloFPGA_Version());
	printf("card:     %s (%s), %d H2C / %d C2H channels, %s card memory, irq %s; channel %d\n",
	       t->info.name, t->info.backend_name, t->info.num_h2c,
	       t->info.num_c2h, cli_fmt_size(t->info.ddr_size, sz, sizeof(sz)),
	       cli_irq_name(t->info.irq_mode), t->ch);
	if (g->platform == HELLOFPGA_PLATFORM_NONE) {
		printf("GPU:      none: %s\n", g->reason);
	} else {
		printf("GPU:      %s, %s: %s", platform_name(g->platform),
		       g->emulated ? "emulated" : "real", g->name);
		if (g->pci_bus_id[0])
			printf(" (%s)", g->pci_bus_id);
		printf(", page %s", cli_fmt_size(g->page_size, sz, sizeof(sz)));
		if (g->cuda_driver_version)
			printf(", CUDA driver %d.%d", g->cuda_driver_version / 1000,
			       g->cuda_driver_version % 1000 / 10);
		if (g->supported)
			printf("; GPU Direct supported\n");
		else
			printf("; GPU Direct NOT supported: %s\n", g->reason);
	}
	printf("sizes:    %s per transfer, %s per stress transfer\n\n",
	       cli_fmt_size(t->size, sz, sizeof(sz)),
	       cli_fmt_size(t->stress, sz2, sizeof(sz2)));
	fflush(stdout);
}

static void test_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] test [--soak DURATION] [--interval DURATION]\n"
	      "                 [-s SIZE] [-c CH] [--json FILE] [--only NAME[,NAME]] [--list]\n"
	      "\n"
	      "The GPU Direct test program: 15 cases (the seed's gpu_direct_api_test and\n"
	      "five more), each reported PASS, FAIL or SKIP with the reason, then, with\n"
	      "--soak, a soak phase sampling latency and bandwidth at intervals.  Uses\n"
	      "the GPU HelloFPGA_GetGPUStatus() reports (HELLOFPGA_GPU=emu, emu-tegra:\n"
	      "the library's emulated GPU).  Without -d and HELLOFPGA_DEVICE, a machine\n"
	      "without a hardware card uses the emulated card (emu).\n"
	      "\n"
	      "      --soak DURATION     after the cases, soak for DURATION: 90s, 10m,\n"
	      "                          12h, 1h30m, 1d (plain number: seconds)\n"
	      "      --interval DURATION time between soak samples (default DURATION/72,\n"
	      "                          at least 1s)\n"
	      "  -s, --size SIZE         bytes per transfer, a multiple of 4K, 64K .. 1G\n"
	      "                          (default 4M); stress transfers are 64M\n"
	      "  -c, --channel CH        H2C and C2H channel (default 0)\n"
	      "      --json FILE         write cases, soak samples and totals as JSON\n"
	      "      --only NAME[,NAME]  run only these cases (names or numbers)\n"
	      "      --list              list the cases and exit\n"
	      "  -h, --help              show this help\n"
	      "\n"
	      "The last line is \"N passed, N failed\" (\", N skipped\" when some were).\n"
	      "Exit status 0 only when nothing failed, something passed, and a GPU was\n"
	      "there to test.\n", f);
}

enum { OPT_SOAK = 256, OPT_INTERVAL, OPT_JSON, OPT_ONLY, OPT_LIST };

/* Parse a --soak / --interval argument.  Return: 0 or -1 (reported). */
static int opt_duration(const char *opt, const char *arg, uint64_t *ns)
{
	int ret = parse_duration(arg, ns);

	if (ret == -ERANGE) {
		cli_usage_err("test", "%s: duration '%s' is too long (at most 30d)",
			      opt, arg);
		return -1;
	}
	if (ret) {
		cli_usage_err("test", "%s: bad duration '%s' (expected e.g. 90s, 10m, 12h, 1h30m)",
			      opt, arg);
		return -1;
	}
	if (*ns < NS_PER_S) {
		cli_usage_err("test", "%s: duration '%s' is shorter than 1s", opt,
			      arg);
		return -1;
	}
	return 0;
}

/**
 * cmd_test() - "hellofpga test": parse the options, open the card, print
 * the header, run the selected cases, the soak, the totals and the JSON.
 * @argc: argument count, argv[0] being "test"
 * @argv: arguments
 *
 * Return: CLI_EXIT_OK only when nothing failed, at least one result
 * passed and the GPU cases could run (there was a GPU).
 */
int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "soak", required_argument, NULL, OPT_SOAK },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "size", required_argument, NULL, 's' },
		{ "channel", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tctx t = { 0 };
	struct t_res res[T_NCASES];
	bool sel[T_NCASES] = { false }, only = false, no_gpu;
	uint64_t size = T_DEFAULT_SIZE, ddr, g;
	const char *json = NULL;
	int c, i, ret, passed = 0, failed = 0, skipped = 0;
	int status = CLI_EXIT_FAIL;
	char sz[32], sz2[32];

	while ((c = getopt_long(argc, argv, "s:c:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOAK:
			if (opt_duration("--soak", optarg, &t.soak_ns))
				return CLI_EXIT_USAGE;
			break;
		case OPT_INTERVAL:
			if (opt_duration("--interval", optarg, &t.interval_ns))
				return CLI_EXIT_USAGE;
			break;
		case 's':
			if (cli_opt_size("test", "--size", optarg, &size))
				return CLI_EXIT_USAGE;
			break;
		case 'c':
			if (cli_opt_channel("test", optarg, &t.ch))
				return CLI_EXIT_USAGE;
			break;
		case OPT_JSON:
			json = optarg;
			break;
		case OPT_ONLY:
			if (parse_only(optarg, sel))
				return CLI_EXIT_USAGE;
			only = true;
			break;
		case OPT_LIST:
			for (i = 0; i < T_NCASES; i++)
				printf("%2d  %-22s %s\n", i + 1, cases[i].name,
				       cases[i].title);
			return CLI_EXIT_OK;
		case 'h':
			test_usage(stdout);
			return CLI_EXIT_OK;
		default:
			test_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_usage_err("test", "unexpected argument '%s'", argv[optind]);
		return CLI_EXIT_USAGE;
	}
	if (size < T_MIN_SIZE || size > T_MAX_SIZE || size % T_PAGE) {
		cli_usage_err("test", "--size: %s is not a multiple of 4 KiB from 64 KiB to 1 GiB",
			      cli_fmt_size(size, sz, sizeof(sz)));
		return CLI_EXIT_USAGE;
	}
	if (t.interval_ns && !t.soak_ns) {
		cli_usage_err("test", "--interval needs --soak");
		return CLI_EXIT_USAGE;
	}
	if (t.soak_ns && !t.interval_ns) {
		t.interval_ns = (t.soak_ns + T_SOAK_SAMPLES - 1) / T_SOAK_SAMPLES;
		if (t.interval_ns < NS_PER_S)
			t.interval_ns = NS_PER_S;
	}
	if (t.interval_ns > t.soak_ns) {
		cli_usage_err("test", "--interval is longer than --soak");
		return CLI_EXIT_USAGE;
	}
	if (!only)
		for (i = 0; i < T_NCASES; i++)
			sel[i] = true;

	t.size = (size_t)size;
	if (cli_open_or_emu(&t.h))
		return CLI_EXIT_FAIL;
	if (cli_get_info(t.h, &t.info) ||
	    cli_check_channel(&t.info, t.ch, true) ||
	    cli_check_channel(&t.info, t.ch, false))
		goto out;
	ddr = t.info.ddr_size;
	if (ddr < 12 * size || ddr < T_MIN_DDR) {
		cli_err("%s has %s of card memory, too little for --size %s: the test needs 12 x SIZE and at least 16 MiB",
			t.info.name, cli_fmt_size(ddr, sz, sizeof(sz)),
			cli_fmt_size(size, sz2, sizeof(sz2)));
		goto out;
	}
	g = t.info.addr_align > t.info.len_granularity ? t.info.addr_align :
							 t.info.len_granularity;
	t.gran = g ? g : 1;
	if (t.gran > 512 || (t.gran & (t.gran - 1))) {
		cli_err("%s: engine alignment %" PRIu64 " bytes is not supported by the test (1 .. 512, a power of two)",
			t.info.name, t.gran);
		goto out;
	}
	t.stress = T_STRESS_SIZE;
	if (t.stress > align_down(ddr / 8, T_PAGE))
		t.stress = (size_t)align_down(ddr / 8, T_PAGE);
	if (t.stress < t.size)
		t.stress = t.size;
	ret = HelloFPGA_GetGPUStatus(&t.gs);
	if (ret) {
		cli_lib_err(NULL, ret, "cannot detect the GPU");
		goto out;
	}
	t.hlen = t.stress + 2 * T_GUARD;
	t.ha = cli_alloc(t.hlen);
	t.hb = t.ha ? cli_alloc(t.hlen) : NULL;
	t.hc = t.hb ? cli_alloc(t.hlen) : NULL;
	if (!t.hc)
		goto out;

	for (i = 0, c = 0; i < T_NCASES; i++)
		c += sel[i];
	printf("hellofpga test: GPU Direct test program, %d of %d cases%s%s\n",
	       c, T_NCASES, t.soak_ns ? ", then a soak of " : "",
	       t.soak_ns ? fmt_duration(t.soak_ns, sz, sizeof(sz)) : "");
	print_header(&t);

	for (i = 0; i < T_NCASES; i++) {
		if (!sel[i])
			continue;
		run_case(&t, i, &res[i]);
		passed += res[i].res == T_PASS;
		failed += res[i].res == T_FAIL;
		skipped += res[i].res == T_SKIP;
	}
	gbuf_free(&t, &t.shared);
	if (t.soak_ns) {
		run_soak(&t);
		passed += t.soak.res == T_PASS;
		failed += t.soak.res == T_FAIL;
		skipped += t.soak.res == T_SKIP;
	}

	no_gpu = t.gs.platform == HELLOFPGA_PLATFORM_NONE;
	putchar('\n');
	if (no_gpu)
		printf("GPU Direct was not tested: no GPU (%s)\n", t.gs.reason);
	if (!failed && passed && !no_gpu)
		status = CLI_EXIT_OK;
	if (json && write_json(&t, json, res, sel, passed, failed, skipped))
		status = CLI_EXIT_FAIL;
	printf("%d passed, %d failed", passed, failed);
	if (skipped)
		printf(", %d skipped", skipped);
	putchar('\n');
	fflush(stdout);
out:
	gbuf_free(&t, &t.shared);
	free(t.samples);
	free(t.ha);
	free(t.hb);
	free(t.hc);
	HelloFPGA_Close(t.h);
	return status;
}
