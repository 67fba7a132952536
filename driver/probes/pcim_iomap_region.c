// SPDX-License-Identifier: GPL-2.0
/* pcim_iomap_region(): 6.11 */
#include <linux/pci.h>

void __iomem *hf_probe(struct pci_dev *pdev)
{
	return pcim_iomap_region(pdev, 0, "hf_probe");
}
