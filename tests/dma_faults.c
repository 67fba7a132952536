// SPDX-License-Identifier: MIT
/*
 * dma_faults.c - the DMA fault check at the end of every test case (see
 * dma_faults.h), through the harness's hooks: it compares
 * hf_emu_dma_faults_total(), the faults of every in-process host of the
 * program, before and after the case.
 */
#include "dma_faults.h"

#include "harness.h"
#include "inproc/emu_host.h"

static uint64_t base, expect_lo, expect_hi;

void t_expect_dma_faults(uint64_t n)
{
	expect_lo = n;
	expect_hi = n;
}

void t_expect_dma_faults_range(uint64_t lo, uint64_t hi)
{
	expect_lo = lo;
	expect_hi = hi;
}

static void dma_faults_before(void)
{
	base = hf_emu_dma_faults_total();
	expect_lo = 0;
	expect_hi = 0;
}

static void dma_faults_after(void)
{
	uint64_t n = hf_emu_dma_faults_total() - base;
	char want[48];

	if (expect_lo == expect_hi)
		snprintf(want, sizeof(want), "%" PRIu64, expect_lo);
	else
		snprintf(want, sizeof(want), "%" PRIu64 "..%" PRIu64,
			 expect_lo, expect_hi);
	HF_CHECK_MSG(n >= expect_lo && n <= expect_hi,
		     "%" PRIu64 " DMA fault(s) of the emulated card during the case, expected %s: it reached memory that was not, or no longer, mapped for it",
		     n, want);
}

__attribute__((constructor)) static void dma_faults_register(void)
{
	hf_test_add_hooks(dma_faults_before, dma_faults_after);
}
