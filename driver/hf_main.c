// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters, load and unload of hellofpga.ko.
 *
 * hellofpga.ko drives the Xilinx DMA/Bridge Subsystem for PCI Express (XDMA,
 * PG195) in AXI memory-mapped mode: character devices compatible with the
 * XDMA reference tools, and an ioctl ABI (include/uapi/hellofpga.h) that
 * pins host, dma-buf and (through hellofpga-nvp2p.ko) CUDA memory for
 * transfers between it and card memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "compat.h"
#include "hf_drv.h"

bool hf_poll_mode;
module_param_named(poll_mode, hf_poll_mode, bool, 0444);
MODULE_PARM_DESC(poll_mode,
		 "Complete transfers by poll-mode writeback instead of interrupts (default: no)");

char *hf_irq_mode = "auto";
module_param_named(irq_mode, hf_irq_mode, charp, 0444);
MODULE_PARM_DESC(irq_mode,
		 "Interrupts: auto (MSI-X, then MSI, then legacy), msix, msi or legacy (default: auto)");

unsigned int hf_timeout_ms = 5000;
module_param_named(timeout_ms, hf_timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "Engine timeout of one run in ms, XFER may ask another; the engine is stopped after it (default: 5000)");

unsigned long long hf_ddr_size = HF_DDR_SIZE_AUTO;
module_param_named(ddr_size, hf_ddr_size, ullong, 0444);
MODULE_PARM_DESC(ddr_size,
		 "Card memory size in bytes, the bound of card addresses, for every card; 0: unbounded (default: each card's own, from the reference design's user BAR register DDR_SIZE_MB, else 2 GiB)");

unsigned int hf_pin_limit_mb;
module_param_named(pin_limit_mb, hf_pin_limit_mb, uint, 0444);
MODULE_PARM_DESC(pin_limit_mb,
		 "Most MiB pinned per card by PIN; 0: half of system RAM (default: 0)");

unsigned int hf_stop_wait_ms = 2000;
module_param_named(stop_wait_ms, hf_stop_wait_ms, uint, 0444);
MODULE_PARM_DESC(stop_wait_ms,
		 "Longest wait, in ms, for a stopped engine to finish the descriptor in progress (bounded first by that descriptor's time at the link's speed); an engine still busy after it is wedged: its memory stays allocated and its channel refuses transfers until it is idle (default: 2000)");

unsigned int hf_max_pins = 4096;
module_param_named(max_pins, hf_max_pins, uint, 0444);
MODULE_PARM_DESC(max_pins,
		 "Most pins one open file may hold (default: 4096)");

static char *hf_ids;
module_param_named(ids, hf_ids, charp, 0444);
MODULE_PARM_DESC(ids,
		 "More PCI IDs to bind, \"vendor:device[,vendor:device...]\" in hex");

/**
 * hf_add_ids() - bind the IDs of the ids parameter as dynamic IDs.
 *
 * A malformed entry is reported and skipped.
 */
static void hf_add_ids(void)
{
	char *list, *p, *tok;
	unsigned int vendor, device;
	int ret;

	if (!hf_ids || !*hf_ids)
		return;
	list = kstrdup(hf_ids, GFP_KERNEL);
	if (!list)
		return;
	p = list;
	while ((tok = strsep(&p, ",")) != NULL) {
		tok = strim(tok);
		if (!*tok)
			continue;
		if (sscanf(tok, "%x:%x", &vendor, &device) != 2 ||
		    vendor > 0xffff || device > 0xffff) {
			pr_warn("ids: ignoring \"%s\": not vendor:device in hex\n",
				tok);
			continue;
		}
		ret = pci_add_dynid(&hf_pci_driver, vendor, device,
				    PCI_ANY_ID, PCI_ANY_ID, 0, 0, 0);
		if (ret)
			pr_warn("ids: cannot add %04x:%04x: %d\n", vendor,
				device, ret);
		else
			pr_info("binding %04x:%04x (ids parameter)\n", vendor,
				device);
	}
	kfree(list);
}

static int __init hf_init(void)
{
	int ret;

	ret = hf_pin_init();
	if (ret)
		return ret;
	ret = hf_cdev_init();
	if (ret)
		goto err_pin;
	ret = pci_register_driver(&hf_pci_driver);
	if (ret)
		goto err_cdev;
	hf_add_ids();
	pr_info("version " HF_DRV_VERSION " loaded (ABI %u.%u)\n",
		HELLOFPGA_ABI_MAJOR, HELLOFPGA_ABI_MINOR);
	return 0;

err_cdev:
	hf_cdev_exit();
err_pin:
	hf_pin_exit();
	return ret;
}

static void __exit hf_exit(void)
{
	pci_unregister_driver(&hf_pci_driver);
	hf_cdev_exit();
	hf_pin_exit();
}

module_init(hf_init);
module_exit(hf_exit);

MODULE_AUTHOR("hellofpga contributors");
MODULE_DESCRIPTION("Xilinx XDMA (PG195) driver with host, dma-buf and GPU memory pins");
MODULE_LICENSE("GPL");
MODULE_VERSION(HF_DRV_VERSION);
#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
#if HF_KERNEL_GE(6, 13, 0)
MODULE_IMPORT_NS("DMA_BUF");
#elif HF_KERNEL_GE(5, 16, 0)
MODULE_IMPORT_NS(DMA_BUF);
#endif
#endif
