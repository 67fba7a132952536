// SPDX-License-Identifier: GPL-2.0
/* dma_need_sync(): 5.8 */
#include <linux/dma-mapping.h>

bool hf_probe(struct device *dev, dma_addr_t addr)
{
	return dma_need_sync(dev, addr);
}
