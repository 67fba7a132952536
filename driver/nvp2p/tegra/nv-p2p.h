/* SPDX-License-Identifier: MIT */
/*
 * Declarations of the Jetson (L4T) nvidia_p2p API, for compile checks of
 * hellofpga-nvp2p.ko's Tegra flavor only.
 *
 * This is hellofpga's own file.  It mirrors the signatures and structure
 * fields of L4T's include/linux/nv-p2p.h (r32 to r36, nvgpu's
 * drivers/gpu/nvgpu/os/linux/nvidia_p2p.c; JetPack 6: nvidia-oot's
 * nvidia-p2p.ko), written from NVIDIA's documentation of that API; nothing
 * more.  On a Jetson, build with NVIDIA_SRC_DIR pointing at the BSP's
 * header instead: the structure layout must be the BSP's own.
 *
 * Semantics the provider relies on (L4T implementation):
 *   nvidia_p2p_get_pages()      pins the CPU pages of a cudaHostAlloc()
 *                               buffer (4 KiB pages), registers an MMU
 *                               notifier whose release and
 *                               invalidate_range_start call free_callback
 *   nvidia_p2p_put_pages()      unregisters the notifier, which calls
 *                               free_callback synchronously
 *   nvidia_p2p_free_page_table() releases the pages (not the structure);
 *                               meant for free_callback
 *   nvidia_p2p_dma_map_pages()  dma_map_sg() for @dev: hw_address[] and
 *                               hw_len[] are the mapped segments
 *   nvidia_p2p_free_dma_mapping() unmaps; meant for free_callback
 */
#ifndef HF_TEGRA_NV_P2P_H
#define HF_TEGRA_NV_P2P_H

#include <linux/dma-mapping.h>
#include <linux/mm_types.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/types.h>

#define NVIDIA_P2P_UNINITIALIZED	0x0
#define NVIDIA_P2P_PINNED		0x1U
#define NVIDIA_P2P_MAPPED		0x2U

#define NVIDIA_P2P_MAJOR_VERSION_MASK	0xffff0000
#define NVIDIA_P2P_MINOR_VERSION_MASK	0x0000ffff

#define NVIDIA_P2P_MAJOR_VERSION(v) \
	(((v) & NVIDIA_P2P_MAJOR_VERSION_MASK) >> 16)
#define NVIDIA_P2P_MINOR_VERSION(v) \
	((v) & NVIDIA_P2P_MINOR_VERSION_MASK)
#define NVIDIA_P2P_MAJOR_VERSION_MATCHES(p, v) \
	(NVIDIA_P2P_MAJOR_VERSION((p)->version) == NVIDIA_P2P_MAJOR_VERSION(v))
/* Same major, same or newer minor. */
static inline bool hf_nv_p2p_version_compatible(u32 have, u32 want)
{
	return NVIDIA_P2P_MAJOR_VERSION(have) == NVIDIA_P2P_MAJOR_VERSION(want) &&
	       NVIDIA_P2P_MINOR_VERSION(have) >= NVIDIA_P2P_MINOR_VERSION(want);
}

#define NVIDIA_P2P_VERSION_COMPATIBLE(p, v) \
	hf_nv_p2p_version_compatible((p)->version, v)

enum nvidia_p2p_page_size_type {
	NVIDIA_P2P_PAGE_SIZE_4KB = 0,
	NVIDIA_P2P_PAGE_SIZE_64KB,
	NVIDIA_P2P_PAGE_SIZE_128KB,
	NVIDIA_P2P_PAGE_SIZE_COUNT
};

struct nvidia_p2p_page_table {
	u32 version;
	u32 page_size;		/* enum nvidia_p2p_page_size_type */
	u64 size;
	u32 entries;
	struct page **pages;
	u64 vaddr;
	u32 mapped;		/* NVIDIA_P2P_PINNED | NVIDIA_P2P_MAPPED */
	struct mm_struct *mm;
	struct mmu_notifier mn;
	struct mutex lock;	/* serialises the calls below */
	void (*free_callback)(void *data);
	void *data;
};

struct nvidia_p2p_dma_mapping {
	u32 version;
	dma_addr_t *hw_address;
	u32 *hw_len;
	u32 entries;
	struct sg_table *sgt;
	struct device *dev;
	struct nvidia_p2p_page_table *page_table;
	enum dma_data_direction direction;
};

#define NVIDIA_P2P_PAGE_TABLE_VERSION	0x00010000
#define NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(p) \
	NVIDIA_P2P_VERSION_COMPATIBLE(p, NVIDIA_P2P_PAGE_TABLE_VERSION)

#define NVIDIA_P2P_DMA_MAPPING_VERSION	0x00010000
#define NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(p) \
	NVIDIA_P2P_VERSION_COMPATIBLE(p, NVIDIA_P2P_DMA_MAPPING_VERSION)

int nvidia_p2p_get_pages(u64 vaddr, u64 size,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table);
int nvidia_p2p_dma_map_pages(struct device *dev,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **map,
			     enum dma_data_direction direction);
int nvidia_p2p_dma_unmap_pages(struct nvidia_p2p_dma_mapping *map);
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping);

#endif /* HF_TEGRA_NV_P2P_H */
