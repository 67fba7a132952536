// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload of hellofpga.ko (its parameters: hf_param.c).
 *
 * hellofpga.ko drives the Xilinx DMA/Bridge Subsystem for PCI Express (XDMA,
 * PG195) in AXI memory-mapped and AXI-Stream mode: character devices
 * compatible with the XDMA reference tools (on a stream card the C2H nodes
 * read from rings, hf_stream.c), and an ioctl ABI (include/uapi/hellofpga.h) that
 * pins host, dma-buf and (through hellofpga-nvp2p.ko) CUDA memory for
 * transfers between it and card memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "compat.h"
#include "hf_drv.h"

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

/**
 * hf_providers_register() - the built-in memory providers, at load.
 *
 * Host memory always, dma-bufs where the kernel has them; registered as
 * hellofpga-nvp2p.ko registers its own.
 *
 * Return: 0 or the error of hf_p2p_register().
 */
static int hf_providers_register(void)
{
	int ret;

	ret = hf_p2p_register(&hf_host_ops);
	if (ret)
		return ret;
#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
	ret = hf_p2p_register(&hf_dmabuf_ops);
	if (ret) {
		hf_p2p_unregister(&hf_host_ops);
		return ret;
	}
#endif
	return 0;
}

/**
 * hf_providers_unregister() - withdraw the built-in providers, at unload.
 */
static void hf_providers_unregister(void)
{
#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
	hf_p2p_unregister(&hf_dmabuf_ops);
#endif
	hf_p2p_unregister(&hf_host_ops);
}

static int __init hf_init(void)
{
	int ret;

	ret = hf_providers_register();
	if (ret)
		return ret;
	ret = hf_cdev_init();
	if (ret)
		goto err_providers;
	ret = pci_register_driver(&hf_pci_driver);
	if (ret)
		goto err_cdev;
	hf_add_ids();
	pr_info("version " HF_VERSION " loaded (ABI %u.%u)\n",
		HELLOFPGA_ABI_MAJOR, HELLOFPGA_ABI_MINOR);
	return 0;

err_cdev:
	hf_cdev_exit();
err_providers:
	hf_providers_unregister();
	return ret;
}

static void __exit hf_exit(void)
{
	pci_unregister_driver(&hf_pci_driver);
	hf_cdev_exit();
	hf_providers_unregister();
}

module_init(hf_init);
module_exit(hf_exit);

MODULE_AUTHOR("hellofpga contributors");
MODULE_DESCRIPTION("Xilinx XDMA (PG195) driver with host, dma-buf and GPU memory pins");
MODULE_LICENSE("GPL");
MODULE_VERSION(HF_VERSION);
#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)
/* compat.h: an identifier 5.4 to 6.12, a string from 6.13 */
#if defined(HF_HAVE_MODULE_IMPORT_NS_IDENT)
MODULE_IMPORT_NS(DMA_BUF);
#elif defined(MODULE_IMPORT_NS)
MODULE_IMPORT_NS("DMA_BUF");
#endif
#endif
