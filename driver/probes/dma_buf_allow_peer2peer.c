// SPDX-License-Identifier: GPL-2.0
/* dma_buf_attach_ops.allow_peer2peer: 5.8 */
#include <linux/dma-buf.h>

const struct dma_buf_attach_ops hf_probe = {
	.allow_peer2peer = true,
};
