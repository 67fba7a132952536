/* SPDX-License-Identifier: GPL-2.0-or-later OR MIT */
/*
 * hf_refdesign.h - the hellofpga reference design's user logic in C: an
 * implementation of the emulated card's user-logic ops (model/xdma_user.h).
 * Whoever creates an emulated card attaches it:
 *
 *	struct xdma_model_config cfg = { .user = &hf_refdesign_user };
 *
 * Its registers are hf_user_regs.h, its frames hf_stream_pattern.h.
 */
#ifndef HF_REFDESIGN_H
#define HF_REFDESIGN_H

#include "hf_user_regs.h"
#include "xdma_user.h"

/* User-BAR version the C behaviour reports (1.1: HF_USER_IRQ_PULSE). */
#define HF_REFDESIGN_VERSION	HF_USER_VERSION_LOOPBACK	/* 1.2 */

extern const struct xdma_user_ops hf_refdesign_user;

#endif /* HF_REFDESIGN_H */
