// SPDX-License-Identifier: MIT
/*
 * cases_seed.c - the ten cases of the seed's gpu_direct_api_test
 * (docs/test-program.md, cases 1 to 10).
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
int case_get_status(struct tctx *t)
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

/*
 * Pin the 8 KiB at +4 KiB of GPU buffer @p (inside its first GPU page) as
 * *@sub.  Return: 0, or -1 after recording @what as failed.
 */
static int pin_sub(struct tctx *t, void *p, HELLOFPGA_GPU_HANDLE *sub,
		   const char *what)
{
	int ret = HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)p + T_PAGE,
					  2 * T_PAGE, sub);

	if (ret)
		return tlibfail(t, t->h, ret, "%s", what);
	return 0;
}

/*
 * Unpin @sub of pin_sub(), if pinned.
 * Return: @rc, or -1 after recording @what as failed.
 */
static int unpin_sub(struct tctx *t, HELLOFPGA_GPU_HANDLE sub,
		     const char *what, int rc)
{
	int ret;

	if (!sub)
		return rc;
	ret = HelloFPGA_GPUDirect_Unpin(t->h, sub);
	if (ret)
		return tlibfail(t, t->h, ret, "%s", what);
	return rc;
}

/**
 * case_pin() - 2. Pin: GPU_Alloc aligns to the GPU page; pinning a whole
 * buffer, a second buffer and a 4 KiB-aligned sub-range inside a GPU page
 * gives distinct non-zero handles; the buffer is usable at once.  The
 * first buffer stays pinned for read_c2h, write_h2c and unpin.
 */
int case_pin(struct tctx *t)
{
	struct gbuf two = { 0 };
	HELLOFPGA_GPU_HANDLE sub = 0;
	uint64_t pin_ns;
	char sz[32];
	int rc = -1;

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
	if (pin_sub(t, t->shared.p, &sub,
		    "GPUDirect_Pin of 8 KiB at +4 KiB inside the buffer"))
		goto out;
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
	rc = unpin_sub(t, sub, "GPUDirect_Unpin of the sub-range", rc);
	gbuf_free(t, &two);
	return rc;
}

/**
 * case_read_c2h() - 3. ReadC2H, card -> GPU: a pattern written to the card
 * by the CPU path arrives byte for byte in the pinned buffer; a transfer
 * of half the buffer leaves the other half untouched.
 */
int case_read_c2h(struct tctx *t)
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
int case_write_h2c(struct tctx *t)
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
int case_unpin(struct tctx *t)
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
int case_data_correctness(struct tctx *t)
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
	if (pin_sub(t, gb.p, &sub, "GPUDirect_Pin of 8 KiB at +4 KiB"))
		goto out;
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
	rc = unpin_sub(t, sub, "GPUDirect_Unpin of the 8 KiB pin", rc);
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_batch_10x_read() - 7. Batch of 10 ReadC2H on one handle, each from
 * a card region with a pattern of its own, each verified; latency and
 * bandwidth of the batch.
 */
int case_batch_10x_read(struct tctx *t)
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
int case_addr_space(struct tctx *t)
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
int case_stress(struct tctx *t)
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
int case_boundary(struct tctx *t)
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
