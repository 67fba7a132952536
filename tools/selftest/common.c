// SPDX-License-Identifier: MIT
/*
 * common.c - what every case of "hellofpga test" uses: outcomes,
 * patterns and checks, transfers through the CPU path and GPU Direct.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

const char *const result_name[] = { "NOT RUN", "PASS", "FAIL", "SKIP" };

/* set by SIGINT: the soak ends early */
volatile sig_atomic_t t_stop;

/* ------------------------------------------------------------------------
 * Outcomes
 * ------------------------------------------------------------------------ */

/* Record the first failure of the running case (later ones add nothing). */
int __attribute__((format(printf, 2, 3)))
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
int __attribute__((format(printf, 4, 5)))
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
void __attribute__((format(printf, 2, 3)))
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
int __attribute__((format(printf, 5, 6)))
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
void __attribute__((format(printf, 2, 3)))
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

/* The seed of pattern (@cs, @a, @b): case number and two indices. */
uint64_t seed_of(int cs, uint32_t a, uint32_t b)
{
	return mix64(((uint64_t)cs << 56) ^ ((uint64_t)a << 24) ^ b);
}

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

void fill(uint8_t *p, size_t len, uint64_t seed)
{
	pattern(p, len, PAT_RANDOM, seed);
}

/**
 * check_bytes() - compare @len bytes of @got with @want, byte by byte.
 * @what: what is compared, for the failure reason
 * @base: the address of got[0] as the reason should show it
 * Return: 0, or -1 after recording how many bytes differ and the first.
 */
int check_bytes(struct tctx *t, const char *what, const uint8_t *want,
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
int check_poison(struct tctx *t, const char *what, const uint8_t *got,
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
int mm_xfer(struct tctx *t, bool c2h, void *buf, uint64_t addr,
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
int card_put(struct tctx *t, uint64_t addr, const void *buf,
	     size_t len)
{
	return mm_xfer(t, false, (void *)buf, addr, len, NULL,
		       "CPU-path DMA_MM_WriteH2C");
}

/* CPU path: card -> host buffer.  Return: 0 or -1 (recorded). */
int card_get(struct tctx *t, uint64_t addr, void *buf, size_t len)
{
	return mm_xfer(t, true, buf, addr, len, NULL, "CPU-path DMA_MM_ReadC2H");
}

/* Host staging: host -> GPU memory.  Return: 0 or -1 (recorded). */
int gpu_put(struct tctx *t, void *gpu, const void *host, size_t len)
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
int gpu_get(struct tctx *t, void *host, const void *gpu, size_t len)
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
int gpu_poison(struct tctx *t, void *gpu, size_t len)
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
int gd_xfer(struct tctx *t, const struct gbuf *gb, size_t off,
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
int gbuf_alloc(struct tctx *t, struct gbuf *gb, size_t size)
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
int gbuf_pin(struct tctx *t, struct gbuf *gb, uint64_t *ns)
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
int gbuf_new(struct tctx *t, struct gbuf *gb, size_t size)
{
	if (gbuf_alloc(t, gb, size))
		return -1;
	return gbuf_pin(t, gb, NULL);
}

/* Unpin and free @gb; a failure counts against the running case. */
void gbuf_free(struct tctx *t, struct gbuf *gb)
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
int roundtrip(struct tctx *t, const struct gbuf *gb, size_t off,
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

uint64_t align_down(uint64_t v, uint64_t a)
{
	return v - v % a;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Median of @n samples (sorts them). */
uint64_t median(uint64_t *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_u64);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

const char *platform_name(int p)
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
 * Result lines
 * ------------------------------------------------------------------------ */

/* "name ......" padded to a column. */
void print_name(const char *name)
{
	int n = printf("%s ", name);

	for (; n < 26; n++)
		putchar('.');
	putchar(' ');
}

void print_result(const struct t_res *r)
{
	if (r->res == T_SKIP)
		printf("SKIP (%s)\n", r->text);
	else
		printf("%s (%.2f s, %s)\n", result_name[r->res],
		       (double)r->ns / 1e9, r->text);
	fflush(stdout);
}
