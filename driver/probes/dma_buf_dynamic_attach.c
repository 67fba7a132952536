// SPDX-License-Identifier: GPL-2.0
/*
 * dynamic dma-buf importers: dma_buf_dynamic_attach() with importer ops and
 * move_notify, dma_buf_pin(): 5.7
 */
#include <linux/dma-buf.h>

static void hf_probe_move(struct dma_buf_attachment *attach)
{
}

static const struct dma_buf_attach_ops hf_probe_ops = {
	.move_notify = hf_probe_move,
};

int hf_probe(struct dma_buf *buf, struct device *dev)
{
	struct dma_buf_attachment *a;

	a = dma_buf_dynamic_attach(buf, dev, &hf_probe_ops, NULL);
	return IS_ERR(a) ? PTR_ERR(a) : dma_buf_pin(a);
}
