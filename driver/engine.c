// SPDX-License-Identifier: GPL-2.0
/*
 * The OS-neutral engine core (core/xdma_*.c), compiled
 * unchanged into hellofpga.ko with the kernel OS layer
 * (core/os/hf_os_kernel.h), as one unit: its hot path is compiled as when
 * the core was one file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "../core/xdma_chain.c"
#include "../core/xdma_card.c"
#include "../core/xdma_engine.c"
#include "../core/xdma_ring.c"
