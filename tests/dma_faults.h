/* SPDX-License-Identifier: MIT */
/*
 * dma_faults.h - every case of a test program that runs emulated cards
 * (hf_add_test_program(... EMU_CARD)) ends with a check: the cards' DMA
 * faults during the case (the in-process IOMMU's record of DMA to bus
 * addresses not, or no longer, mapped, or without permission) are 0.  A
 * case that provokes faults says how many it expects.
 */
#ifndef HF_TEST_DMA_FAULTS_H
#define HF_TEST_DMA_FAULTS_H

#include <stdint.h>

/* This case provokes @n DMA faults (checked at its end). */
void t_expect_dma_faults(uint64_t n);
/* ... between @lo and @hi of them (timing decides how many). */
void t_expect_dma_faults_range(uint64_t lo, uint64_t hi);

#endif
