// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nv-p2p-stub.ko: every nvidia_p2p_* symbol that
 * hellofpga-nvp2p.ko uses, each failing with -ENODEV.
 *
 * Built so that modpost resolves hellofpga-nvp2p.ko's NVIDIA symbols where
 * no NVIDIA Module.symvers exists (CI, a machine with headers only); its
 * Module.symvers goes into KBUILD_EXTRA_SYMBOLS.  The prototypes come from
 * the same nv-p2p.h the provider is built against, so a signature that
 * drifts fails here too.  Never load it next to nvidia.ko (both export the
 * same names).  A stand-in over guest memory for QEMU will grow from it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "../nv-p2p-compat.h"

#ifdef HF_NVP2P_TEGRA

/* ---- Tegra (L4T) signatures ----------------------------------------- */

int nvidia_p2p_get_pages(u64 vaddr, u64 size,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	*page_table = NULL;
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

int nvidia_p2p_put_pages(struct nvidia_p2p_page_table *page_table)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

int nvidia_p2p_dma_map_pages(struct device *dev,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **map,
			     enum dma_data_direction direction)
{
	*map = NULL;
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_dma_unmap_pages(struct nvidia_p2p_dma_mapping *map)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_free_dma_mapping);

#else

/* ---- desktop (nvidia.ko) signatures --------------------------------- */

#ifdef HF_NV_HAVE_CAP_PERSISTENT_PAGES
int nvidia_p2p_cap_persistent_pages;
EXPORT_SYMBOL(nvidia_p2p_cap_persistent_pages);
#endif

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 u64 length, struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	*page_table = NULL;
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
int nvidia_p2p_get_pages_persistent(u64 virtual_address, u64 length,
				    struct nvidia_p2p_page_table **page_table,
				    u32 flags)
{
	*page_table = NULL;
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_get_pages_persistent);

int nvidia_p2p_put_pages_persistent(u64 virtual_address,
				    struct nvidia_p2p_page_table *page_table,
				    u32 flags)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages_persistent);
#endif

int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping)
{
	*dma_mapping = NULL;
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	return -ENODEV;
}
EXPORT_SYMBOL(nvidia_p2p_free_dma_mapping);

#endif /* HF_NVP2P_TEGRA */

MODULE_DESCRIPTION("hellofpga: nvidia_p2p symbols for modpost (all -ENODEV)");
MODULE_LICENSE("Dual MIT/GPL");
