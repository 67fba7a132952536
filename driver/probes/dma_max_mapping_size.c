// SPDX-License-Identifier: GPL-2.0
/* dma_max_mapping_size(): 5.1 */
#include <linux/dma-mapping.h>

size_t hf_probe(struct device *dev)
{
	return dma_max_mapping_size(dev);
}
