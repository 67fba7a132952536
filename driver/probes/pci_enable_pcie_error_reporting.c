// SPDX-License-Identifier: GPL-2.0
/*
 * pci_enable_pcie_error_reporting(), which drivers called until the PCI
 * core enabled AER reporting for every device: removed in 6.5
 */
#include <linux/pci.h>
#include <linux/aer.h>

int hf_probe(struct pci_dev *pdev)
{
	return pci_enable_pcie_error_reporting(pdev);
}
