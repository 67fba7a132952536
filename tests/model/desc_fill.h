/* SPDX-License-Identifier: MIT */
/* desc_fill.h - one XDMA descriptor, as the model tests write them. */
#ifndef HF_TEST_DESC_FILL_H
#define HF_TEST_DESC_FILL_H

#include "xdma_engine.h"

/* Descriptor @d: @flags (Stop, Completed, EOP), @nxt_adj, the rest. */
static inline void desc_fill(struct hf_xdma_desc *d, u32 flags, u32 nxt_adj,
			     u32 len, u64 src, u64 dst, u64 next)
{
	hf_xdma_desc_pack(d, FIELD_PREP(XDMA_DESC_CTRL_MAGIC, XDMA_DESC_MAGIC) |
			  FIELD_PREP(XDMA_DESC_CTRL_NXT_ADJ, nxt_adj) | flags,
			  len, src, dst, next);
}

#endif /* HF_TEST_DESC_FILL_H */
