// SPDX-License-Identifier: GPL-2.0
/*
 * The OS-neutral engine core (core/xdma_engine.c), compiled
 * unchanged into hellofpga.ko with the kernel OS layer
 * (core/os/hf_os_kernel.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "../core/xdma_engine.c"
