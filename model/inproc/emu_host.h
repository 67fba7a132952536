/* SPDX-License-Identifier: MIT */
/*
 * emu_host.h - the in-process host of the XDMA model: plays the part of the
 * PCIe host for an emulated card living inside the calling process.
 *
 *  - an IOMMU: memory the driver side maps gets a bus address (IOVA) of its
 *    own, distinct from its virtual address; the model's DMA reaches exactly
 *    the mapped bytes with the mapped permission, anything else is a PCIe
 *    read or write error, as with a real IOMMU;
 *  - "region" mappings: bus ranges whose bytes are reached through
 *    callbacks instead of a CPU address (memory the CPU cannot address, such
 *    as a real GPU's device memory, moved by its copy engine);
 *  - DMA-coherent allocations (descriptor rings, writeback words);
 *  - one thread per engine, so engines run asynchronously to the driver as
 *    hardware does, or, with HF_EMU_SYNC, in the thread that starts them
 *    (deterministic unit tests; a timed engine, see below, makes that
 *    thread sleep until the engine is done or parked);
 *  - time: CLOCK_MONOTONIC, and wake-ups at the times the model asks for
 *    (its PCIe link model, xdma_model_config.link, and timed faults);
 *  - interrupt delivery: a handler per MSI-X / MSI vector or the INTx line;
 *  - the two BARs as struct hf_mmio for the engine core.
 */
#ifndef HF_EMU_HOST_H
#define HF_EMU_HOST_H

#include "../../core/hf_os.h"
#include "../xdma_model.h"

#define HF_EMU_SYNC		(1u << 0)	/* engines run synchronously */

enum hf_dma_dir {
	HF_DMA_TO_DEVICE = 1,		/* the card reads (H2C) */
	HF_DMA_FROM_DEVICE = 2,		/* the card writes (C2H) */
	HF_DMA_BIDIRECTIONAL = 3,
	/*
	 * With a direction, for hf_emu_dma_map(): the caller's memory that
	 * stays mapped for long (a stream ring) and that a careless program
	 * may unmap meanwhile: the card's accesses fault instead of crashing
	 * the process (emu_host.c), at the cost of a system call per access.
	 */
	HF_DMA_GUARDED = 4,
};

struct hf_emu_host;

/**
 * struct hf_emu_region_ops - how the card's DMA reaches a region mapping.
 * @read: the card reads @len bytes at offset @off of the region into @dst
 *	(H2C); 0, or a negative errno (the card sees a PCIe read error)
 * @write: the card writes @len bytes from @src at offset @off (C2H); 0 or
 *	a negative errno (the write is not accepted)
 *
 * The callbacks run in the thread doing the DMA (an engine thread), without
 * any lock of the host held, possibly in parallel for different engines.
 * They must not unmap their own region.  A range checked against the
 * mapping as a whole is passed: @off + @len never exceeds the region.
 */
struct hf_emu_region_ops {
	int (*read)(void *ctx, u64 off, void *dst, size_t len);
	int (*write)(void *ctx, u64 off, const void *src, size_t len);
};

/**
 * struct hf_emu_host_stats - IOMMU activity.
 * @maps: live mappings
 * @faults: DMA accesses that hit no mapping or lacked permission
 * @last_fault_bus: bus address of the last fault
 * @maps_made: mappings made since creation (hf_emu_dma_map(),
 *	hf_emu_dma_map_region() and hf_emu_dma_alloc() each count one)
 * @allocs: hf_emu_dma_alloc() calls that succeeded since creation
 * @region_calls: region callbacks called since creation
 */
struct hf_emu_host_stats {
	u64 maps;
	u64 faults;
	u64 last_fault_bus;
	u64 maps_made;
	u64 allocs;
	u64 region_calls;
};


int hf_emu_host_create(const struct xdma_model_config *cfg, u32 flags,
		       struct hf_emu_host **out);
void hf_emu_host_destroy(struct hf_emu_host *h);
struct xdma_model *hf_emu_host_model(struct hf_emu_host *h);
const struct hf_mmio *hf_emu_dma_bar(struct hf_emu_host *h);
const struct hf_mmio *hf_emu_user_bar(struct hf_emu_host *h);

int hf_emu_dma_map(struct hf_emu_host *h, void *cpu, size_t len,
		   enum hf_dma_dir dir, u64 *bus);
int hf_emu_dma_map_region(struct hf_emu_host *h, size_t len,
			  enum hf_dma_dir dir,
			  const struct hf_emu_region_ops *ops, void *ctx,
			  u64 *bus);
int hf_emu_dma_unmap(struct hf_emu_host *h, u64 bus);
void *hf_emu_dma_alloc(struct hf_emu_host *h, size_t len, u64 *bus);
void hf_emu_dma_free(struct hf_emu_host *h, void *cpu, u64 bus);

int hf_emu_set_irq_mode(struct hf_emu_host *h, enum xdma_model_irq_mode mode);
int hf_emu_request_irq(struct hf_emu_host *h, u32 vector,
		       void (*handler)(void *arg), void *arg);
void hf_emu_free_irq(struct hf_emu_host *h, u32 vector);

void hf_emu_host_get_stats(struct hf_emu_host *h,
			   struct hf_emu_host_stats *st);
u64 hf_emu_dma_faults_total(void);

#endif /* HF_EMU_HOST_H */
