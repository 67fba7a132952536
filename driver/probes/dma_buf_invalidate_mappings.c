// SPDX-License-Identifier: GPL-2.0
/*
 * dma_buf_attach_ops.move_notify renamed invalidate_mappings (after 6.18;
 * 7.2 has it), same contract: the reservation lock is held
 */
#include <linux/dma-buf.h>

static void hf_probe_invalidate(struct dma_buf_attachment *attach)
{
}

static const struct dma_buf_attach_ops hf_probe_ops = {
	.invalidate_mappings = hf_probe_invalidate,
};

int hf_probe(struct dma_buf *buf, struct device *dev)
{
	struct dma_buf_attachment *a;

	a = dma_buf_dynamic_attach(buf, dev, &hf_probe_ops, NULL);
	return IS_ERR(a) ? PTR_ERR(a) : dma_buf_pin(a);
}
