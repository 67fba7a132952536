// SPDX-License-Identifier: MIT
/*
 * xfer.c - one transfer of a path of the sweep, timed, and the check that
 * GPU Direct and TransferMode moved the right bytes (xfer.h); the sweep,
 * the soak, the frames and the counts of the prediction run them.
 *
 * Timing: CLOCK_MONOTONIC around each transfer, which ends when its data
 * is in place (gpu.c makes the pageable host-to-GPU copy honest).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "xfer.h"

/* Keep the compiler from dropping or merging memcpy()s of @p. */
static inline void clobber(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/* @n bytes of reference data at @p, different for each @seed. */
void bench_fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t *w = (uint32_t *)p;

	for (size_t i = 0; i < n / 4; i++)
		w[i] = (uint32_t)(i * 2654435761u) ^ (seed * 0x9e3779b9u) ^
		       (uint32_t)(i >> 7);
}

/* A failed library call of a transfer, reported.  Return: -1. */
int bench_lib_fail(struct bench *bn, int ret, const char *what, size_t len)
{
	cli_lib_err(bn->h, ret, "%s of %zu bytes at card 0x%" PRIx64
		    " on channel %d", what, len, bn->addr, bn->ch);
	return -1;
}

/* A failed GPU call (gpu.c), reported.  Return: -1. */
int bench_gpu_fail(const char *what)
{
	cli_err("%s: %s", what, bgpu_error());
	return -1;
}

/**
 * bench_op() - one transfer of @len bytes on path @p, direction @d.
 * Return: 0, or -1 after reporting.
 */
int bench_op(struct bench *bn, enum bpath p, int d, size_t len)
{
	size_t got = len;
	int ret = 0;

	switch (p) {
	case BP_CEIL:
		if (d == BD_C2H)
			ret = bgpu_to_gpu(&bn->gpu, bn->g, bn->hceil, len, false);
		else
			ret = bgpu_from_gpu(&bn->gpu, bn->hceil, bn->g, len);
		return ret ? bench_gpu_fail("ceiling copy") : 0;
	case BP_DIRECT:
		if (d == BD_C2H)
			ret = HelloFPGA_GPUDirect_ReadC2H(bn->h, bn->ch, bn->hg,
							  bn->gaddr, len, 0);
		else
			ret = HelloFPGA_GPUDirect_WriteH2C(bn->h, bn->ch, bn->hg,
							   bn->gaddr, len, 0);
		return ret ? bench_lib_fail(bn, ret, "GPU Direct", len) : 0;
	case BP_TRAD_PAGE:
	case BP_TRAD_PIN: {
		uint8_t *host = p == BP_TRAD_PAGE ? bn->hp : bn->hpin;

		if (d == BD_C2H) {
			ret = HelloFPGA_DMA_MM_ReadC2H(bn->h, bn->ch, host,
						       bn->addr, len, &got);
			if (ret)
				return bench_lib_fail(bn, ret, "C2H read", len);
			if (bgpu_to_gpu(&bn->gpu, bn->g, host, len,
					p == BP_TRAD_PAGE))
				return bench_gpu_fail("host-to-GPU copy");
		} else {
			if (bgpu_from_gpu(&bn->gpu, host, bn->g, len))
				return bench_gpu_fail("GPU-to-host copy");
			ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, host,
							bn->addr, len, &got);
			if (ret)
				return bench_lib_fail(bn, ret, "H2C write", len);
		}
		break;
	}
	case BP_XMODE:
	case BP_CPU: {
		void *buf = p == BP_XMODE ? bn->gx : (void *)bn->hp;
		uint64_t at = p == BP_XMODE ? bn->gaddr : bn->addr;

		if (d == BD_C2H)
			ret = HelloFPGA_DMA_MM_ReadC2H(bn->h, bn->ch, buf,
						       at, len, &got);
		else
			ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, buf,
							at, len, &got);
		if (ret)
			return bench_lib_fail(bn, ret, p == BP_XMODE ?
					"TransferMode DMA_MM" : "DMA_MM", len);
		break;
	}
	case BP_MEMCPY:
		if (d == BD_C2H)
			memcpy(bn->hb, bn->hp, len);
		else
			memcpy(bn->hp, bn->hb, len);
		clobber(bn->hb);
		clobber(bn->hp);
		return 0;
	default:
		return -1;
	}
	if (got != len) {
		cli_err("%s moved %zu of %zu bytes", bpath_label[p], got, len);
		return -1;
	}
	return 0;
}

/* One timed transfer; TransferMode is switched on around its own. */
int bench_timed(struct bench *bn, enum bpath p, int d, size_t len,
		       uint64_t *ns)
{
	uint64_t t0;
	int ret;

	if (p == BP_XMODE &&
	    HelloFPGA_SetTransferMode(bn->h, HELLOFPGA_XFER_MODE_GPU_PINNED))
		return bench_lib_fail(bn, -EINVAL, "SetTransferMode", len);
	t0 = cli_now_ns();
	ret = bench_op(bn, p, d, len);
	*ns = cli_now_ns() - t0;
	if (p == BP_XMODE)
		HelloFPGA_SetTransferMode(bn->h, HELLOFPGA_XFER_MODE_CPU);
	return ret;
}

/**
 * bench_verify() - GPU Direct and TransferMode moved the right bytes at
 * @len: pattern -> card (CPU path) -> GPU (GPU Direct) -> host, compared;
 * zeros -> card, GPU -> card (GPU Direct) -> host, compared.
 * Return: 0 (result in *@ok), or -1 after reporting a failed call.
 */
int bench_verify(struct bench *bn, size_t len, bool *ok)
{
	size_t got;
	int ret;

	*ok = true;
	if (!bn->paths[BP_DIRECT])
		return 0;
	bench_fill_pattern(bn->pattern, len, (uint32_t)len);
	ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, bn->pattern, bn->addr,
					len, &got);
	if (!ret)
		ret = HelloFPGA_GPUDirect_ReadC2H(bn->h, bn->ch, bn->hg,
						  bn->addr, len, 0);
	if (ret)
		return bench_lib_fail(bn, ret, "verification", len);
	if (bgpu_from_gpu(&bn->gpu, bn->hb, bn->g, len))
		return bench_gpu_fail("verification copy");
	*ok = *ok && !memcmp(bn->hb, bn->pattern, len);
	if (bn->paths[BP_XMODE]) {
		HelloFPGA_SetTransferMode(bn->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
		ret = HelloFPGA_DMA_MM_ReadC2H(bn->h, bn->ch, bn->gx, bn->addr,
					       len, &got);
		HelloFPGA_SetTransferMode(bn->h, HELLOFPGA_XFER_MODE_CPU);
		if (ret)
			return bench_lib_fail(bn, ret, "TransferMode verification",
					len);
		memset(bn->hb, 0, len);
		if (bgpu_from_gpu(&bn->gpu, bn->hb, bn->gx, len))
			return bench_gpu_fail("verification copy");
		*ok = *ok && !memcmp(bn->hb, bn->pattern, len);
	}
	memset(bn->hb, 0, len);
	ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, bn->hb, bn->addr, len,
					&got);
	if (!ret)
		ret = HelloFPGA_GPUDirect_WriteH2C(bn->h, bn->ch, bn->hg,
						   bn->addr, len, 0);
	if (!ret)
		ret = HelloFPGA_DMA_MM_ReadC2H(bn->h, bn->ch, bn->hb, bn->addr,
					       len, &got);
	if (ret)
		return bench_lib_fail(bn, ret, "verification", len);
	*ok = *ok && !memcmp(bn->hb, bn->pattern, len);
	return 0;
}

