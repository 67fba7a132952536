// SPDX-License-Identifier: GPL-2.0
/* dma_map_sgtable() and dma_unmap_sgtable(): 5.8 */
#include <linux/dma-mapping.h>

int hf_probe(struct device *dev, struct sg_table *sgt)
{
	int ret = dma_map_sgtable(dev, sgt, DMA_TO_DEVICE, 0);

	if (!ret)
		dma_unmap_sgtable(dev, sgt, DMA_TO_DEVICE, 0);
	return ret;
}
