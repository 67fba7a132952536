/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_abi.h - compile-time checks of what crosses from one layer to another:
 * the ioctl structures (one layout for 32- and 64-bit callers and for the
 * driver: no implicit padding, 64-bit fields 8-byte aligned, sizes fixed
 * because the ioctl numbers encode them) and the numberings that the
 * library, the driver and the engine core share.  Included by the driver
 * (hf_ioctl.c) and the library (backend_kernel.c): a change that breaks one
 * of them fails to build on both sides.
 */
#ifndef HF_ABI_H
#define HF_ABI_H

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <assert.h>
#include <stddef.h>
#endif

#include "../include/uapi/hellofpga.h"
#include "../include/uapi/hellofpga_xdma.h"
#include "xdma_engine.h"

#define HF_ABI_SIZE(type, size)						\
	static_assert(sizeof(struct type) == (size) &&			\
		      sizeof(struct type) % 8 == 0,			\
		      #type " changed size: the ioctl ABI changes with it")

HF_ABI_SIZE(hellofpga_info, 192);
HF_ABI_SIZE(hellofpga_pin, 88);
HF_ABI_SIZE(hellofpga_xfer, 96);
HF_ABI_SIZE(hellofpga_unpin, 32);
HF_ABI_SIZE(hellofpga_stats, 416);
HF_ABI_SIZE(hellofpga_last_error, 280);
HF_ABI_SIZE(hellofpga_timeout, 24);
HF_ABI_SIZE(hellofpga_xdma_aperture, 48);
HF_ABI_SIZE(hellofpga_stream_config, 80);
HF_ABI_SIZE(hellofpga_stream_frame, 104);
HF_ABI_SIZE(hellofpga_stream_release, 24);
HF_ABI_SIZE(hellofpga_stream_stop, 24);
HF_ABI_SIZE(hellofpga_stream_stats, 112);

/* two layers' names for one number */
#define HF_ABI_SAME(a, b)						\
	static_assert((long long)(a) == (long long)(b),		\
		      #a " and " #b " differ")

/* XFER's direction is the engine core's */
HF_ABI_SAME(HELLOFPGA_XFER_H2C, XDMA_H2C);
HF_ABI_SAME(HELLOFPGA_XFER_C2H, XDMA_C2H);
/* stream rings: the engine core's limits */
HF_ABI_SAME(HELLOFPGA_RING_MIN_BUFFERS, XDMA_RING_MIN);
HF_ABI_SAME(HELLOFPGA_RING_MAX_BUFFERS, XDMA_RING_MAX);
HF_ABI_SAME(HELLOFPGA_RING_MAX_BUFFER, XDMA_DESC_MAX_LEN);
/* writeback words in a host pin: the engine core's values */
HF_ABI_SAME(HELLOFPGA_XFER_WB_FAILED, XDMA_WB_ERR);
/* the room a caller's word needs is what the engine's own slots leave */
HF_ABI_SAME(HELLOFPGA_XFER_WB_ROOM, XDMA_WB_SLOT_OFFSET);

#endif /* HF_ABI_H */
