/* SPDX-License-Identifier: MIT */
/* desc_fill.h - one XDMA descriptor, as the model tests write them. */
#ifndef HF_TEST_DESC_FILL_H
#define HF_TEST_DESC_FILL_H

#include "hf_os.h"
#include "xdma_regs.h"

/* Descriptor @d: @flags (Stop, Completed, EOP), @nxt_adj, the rest. */
static inline void desc_fill(struct hf_xdma_desc *d, u32 flags, u32 nxt_adj,
			     u32 len, u64 src, u64 dst, u64 next)
{
	d->control = cpu_to_le32(FIELD_PREP(XDMA_DESC_CTRL_MAGIC,
					    XDMA_DESC_MAGIC) |
				 FIELD_PREP(XDMA_DESC_CTRL_NXT_ADJ, nxt_adj) |
				 flags);
	d->len = cpu_to_le32(len);
	d->src_lo = cpu_to_le32(lower_32_bits(src));
	d->src_hi = cpu_to_le32(upper_32_bits(src));
	d->dst_lo = cpu_to_le32(lower_32_bits(dst));
	d->dst_hi = cpu_to_le32(upper_32_bits(dst));
	d->next_lo = cpu_to_le32(lower_32_bits(next));
	d->next_hi = cpu_to_le32(upper_32_bits(next));
}

#endif /* HF_TEST_DESC_FILL_H */
