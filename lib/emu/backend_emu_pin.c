// SPDX-License-Identifier: MIT
/*
 * backend_emu_pin.c - the emulated card's GPU Direct: pins and transfers.
 *
 * GPU Direct: a pin maps the GPU range through the emulated IOMMU once and
 * builds a descriptor chain per direction and channel over it; a transfer
 * rebuilds its chain in place only when the sub-range or card address
 * changed, and runs it.  GPU memory the CPU can address (the emulated GPU,
 * Tegra) is mapped in pieces the way the GPU exposes it: 2 MiB runs of
 * 64 KiB pages behind a desktop GPU's BAR window, 64 KiB chunks of 4 KiB
 * pages behind Tegra's SMMU.  A real desktop GPU's memory is one region
 * mapping whose bytes the GPU's copy engine moves straight from or to the
 * card memory (registered with CUDA once per card), so each byte crosses
 * PCIe once, as with hardware.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend_emu.h"
#include "backend_emu_priv.h"
#include "gpu.h"

#define EMU_GPU_RUN_DESKTOP	(2u << 20)	/* BAR window: 2 MiB runs */
#define EMU_GPU_RUN_TEGRA	(64u << 10)	/* SMMU: 64 KiB chunks */

/* The card reads GPU memory (H2C): the GPU's copy engine moves it. */
static int emu_gpu_region_read(void *ctx, u64 off, void *dst, size_t len)
{
	struct emu_pin *ep = ctx;

	return hf_gpu_copy_from_gpu(dst, ep->gpu + off, len);
}

/* The card writes GPU memory (C2H). */
static int emu_gpu_region_write(void *ctx, u64 off, const void *src,
				size_t len)
{
	struct emu_pin *ep = ctx;

	return hf_gpu_copy_to_gpu(ep->gpu + off, src, len);
}

static const struct hf_emu_region_ops emu_gpu_region_ops = {
	.read = emu_gpu_region_read,
	.write = emu_gpu_region_write,
};

/*
 * Register the card memory with the GPU once per card, so the copy engine
 * reads and writes it at pinned-memory speed.  Failure only costs speed
 * (pageable copies), so it is logged, not returned.
 */
static void emu_gpu_register_ddr(struct hellofpga_dev *dev,
				 struct emu_card *card)
{
	struct xdma_model *m = hf_emu_host_model(card->host);
	void *mem = xdma_model_card_mem(m);
	u64 size = xdma_model_card_size(m);
	int ret;

	pthread_mutex_lock(&card->gpu_lock);
	if (!card->gpu_host_tried) {
		card->gpu_host_tried = true;
		ret = hf_gpu_register_host(mem, size);
		if (!ret)
			card->gpu_host = mem;
		else
			hf_os_log("%s: cannot register the emulated card memory (%llu bytes) with the GPU (%d): GPU copies run from pageable memory",
				  dev->info.name, (unsigned long long)size,
				  ret);
	}
	pthread_mutex_unlock(&card->gpu_lock);
}

static void emu_pin_free(struct emu_card *card, struct emu_pin *ep)
{
	for (u32 i = 0; i < ep->nseg; i++)
		hf_emu_dma_unmap(card->host, ep->sg[i].addr);
	if (ep->desc_cpu)
		hf_emu_dma_free(card->host, ep->desc_cpu, ep->desc_bus);
	free(ep->sg);
	free(ep);
}

/*
 * Map CPU-addressable GPU memory in @run-byte pieces aligned to @run in
 * GPU addresses: each piece is bus-contiguous, pieces are not.
 */
static int emu_gpu_map_pieces(struct hellofpga_dev *dev,
			      struct emu_card *card, struct emu_pin *ep,
			      size_t size, size_t run)
{
	uintptr_t start = (uintptr_t)ep->gpu, end = start + size, a;
	u32 n = 0;
	int ret;

	for (a = start; a < end; a = ALIGN_DOWN(a, run) + run)
		n++;
	ep->sg = calloc(n, sizeof(*ep->sg));
	if (!ep->sg)
		return hf_set_error(dev, -ENOMEM, "out of memory (%u GPU pieces)",
				    n);
	for (a = start; a < end; a = ALIGN_DOWN(a, run) + run) {
		size_t len = min_t(uintptr_t, ALIGN_DOWN(a, run) + run, end) - a;
		struct hf_sg *sg = &ep->sg[ep->nseg];

		ret = hf_emu_dma_map(card->host, (void *)a, len,
				     HF_DMA_BIDIRECTIONAL, &sg->addr);
		if (ret)
			return hf_set_error(dev, ret,
					    "cannot map GPU memory %p (+0x%zx) for DMA: %s",
					    (void *)a, len, strerror(-ret));
		sg->len = len;
		ep->nseg++;
	}
	return 0;
}

/**
 * emu_gpu_pin() - map a GPU range for the emulated card and build its
 * descriptor chains, one per direction and channel.
 * @dev: the card
 * @pin: the pin (validated range)
 *
 * Each chain gets room for the whole buffer plus two descriptors, which is
 * enough for any sub-range, so transfers rebuild in place and allocate
 * nothing.
 *
 * Return: 0 or negative errno with the error text set.
 */
int emu_gpu_pin(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	struct emu_card *card = dev->priv;
	const struct hf_gpu *g = hf_gpu_get();
	struct emu_pin *ep;
	int count, ret;
	u32 cap, nchains, i = 0;

	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return hf_set_error(dev, -ENOMEM, "out of memory");
	ep->gpu = pin->gpu;
	ep->region = card->force_region || !hf_gpu_cpu_addressable();
	if (ep->region) {
		emu_gpu_register_ddr(dev, card);
		ep->sg = calloc(1, sizeof(*ep->sg));
		if (!ep->sg) {
			ret = hf_set_error(dev, -ENOMEM, "out of memory");
			goto err;
		}
		ret = hf_emu_dma_map_region(card->host, pin->size,
					    HF_DMA_BIDIRECTIONAL,
					    &emu_gpu_region_ops, ep,
					    &ep->sg[0].addr);
		if (ret) {
			hf_set_error(dev, ret,
				     "cannot map GPU memory %p (+0x%zx) for DMA: %s",
				     pin->gpu, pin->size, strerror(-ret));
			goto err;
		}
		ep->sg[0].len = pin->size;
		ep->nseg = 1;
	} else {
		ret = emu_gpu_map_pieces(dev, card, ep, pin->size,
					 g->status.platform ==
					 HELLOFPGA_PLATFORM_TEGRA ?
					 EMU_GPU_RUN_TEGRA :
					 EMU_GPU_RUN_DESKTOP);
		if (ret)
			goto err;
	}

	count = hf_xdma_chain_count(ep->sg, ep->nseg, 0, pin->size);
	if (count < 0) {
		ret = hf_set_error(dev, count,
				   "cannot pin 0x%zx bytes: the descriptor chain (%u segments) exceeds what the engine takes (%d)",
				   pin->size, ep->nseg, count);
		goto err;
	}
	cap = count + 2;
	nchains = card->xdev.num_h2c + card->xdev.num_c2h;
	ep->desc_cpu = hf_emu_dma_alloc(card->host,
					(size_t)cap * nchains * XDMA_DESC_SIZE,
					&ep->desc_bus);
	if (!ep->desc_cpu) {
		ret = hf_set_error(dev, -ENOMEM,
				   "cannot allocate %u descriptors for the pin",
				   cap * nchains);
		goto err;
	}
	for (int d = 0; d < 2; d++) {
		u32 n = d == XDMA_H2C ? card->xdev.num_h2c : card->xdev.num_c2h;

		for (u32 ch = 0; ch < n; ch++, i++) {
			struct hf_xdma_chain_cache *pc = &ep->chain[d][ch];
			u64 at = (u64)i * cap * XDMA_DESC_SIZE;

			hf_xdma_chain_init(&pc->chain, (u8 *)ep->desc_cpu + at,
					   ep->desc_bus + at, cap);
			ret = hf_xdma_chain_cache_build(pc, d, ep->sg, ep->nseg,
							0, pin->size, 0);
			if (ret) {
				hf_set_error(dev, ret,
					     "cannot build the descriptor chain of the pin (%d)",
					     ret);
				goto err;
			}
			ep->builds++;
		}
	}
	pin->bdata = ep;
	return 0;
err:
	emu_pin_free(card, ep);
	return ret;
}

void emu_gpu_unpin(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	if (pin->bdata)
		emu_pin_free(dev->priv, pin->bdata);
	pin->bdata = NULL;
}

/**
 * emu_gpu_xfer() - run a pinned buffer's chain on one engine.
 *
 * The chain is rebuilt, in place, only when the range or card address
 * differ from its last build; the engine core skips reprogramming the
 * descriptor registers when the chain is the one they hold.
 */
int emu_gpu_xfer(struct hellofpga_dev *dev, struct hf_pin *pin,
		 enum hf_xdma_dir dir, int ch, size_t off, uint64_t card_addr,
		 size_t len, int timeout_ms, const struct timespec *dl,
		 const struct hf_xfer_wb *wb, size_t *actual)
{
	struct emu_card *card = dev->priv;
	struct emu_pin *ep = pin->bdata;
	struct hf_xdma_chain_cache *pc = &ep->chain[dir][ch];
	struct hf_xdma_result res;
	int ret;

	*actual = 0;
	ret = emu_engine_usable(dev, &card->eng[dir][ch].eng);
	if (ret)
		return ret;
	if (!hf_xdma_chain_cached(pc, off, len, card_addr)) {
		ret = hf_xdma_chain_cache_build(pc, dir, ep->sg, ep->nseg, off,
						len, card_addr);
		if (ret)
			return hf_set_error(dev, ret,
					    "cannot build the descriptor chain (%d)",
					    ret);
		__atomic_add_fetch(&ep->builds, 1, __ATOMIC_RELAXED);
	}
	if (dir == XDMA_H2C) {
		ret = emu_blocks_lock(dev, card, ch, card_addr, len, false, dl);
		if (ret)
			return ret;
	}
	ret = hf_xdma_engine_run_wb(&card->eng[dir][ch].eng, &pc->chain,
				    (u64)timeout_ms * 1000000ull,
				    wb ? (__le32 *)wb->cpu : NULL,
				    wb ? wb->map + wb->off : 0, &res);
	if (dir == XDMA_H2C)
		emu_blocks_unlock(card, ch, card_addr, len);
	*actual = res.bytes;
	if (ret < 0)
		return hf_set_error(dev, ret, "%s", res.msg);
	return 0;
}

/* The card's view of host memory for writebacks: one mapping. */
int emu_wb_map(struct hellofpga_dev *dev, void *mem, size_t len,
	       uint64_t *map)
{
	struct emu_card *card = dev->priv;

	if (hf_emu_dma_map(card->host, mem, len, HF_DMA_FROM_DEVICE, map))
		return hf_set_error(dev, -ENOMEM,
				    "cannot map %zu bytes of writeback words for the card",
				    len);
	return 0;
}

void emu_wb_unmap(struct hellofpga_dev *dev, uint64_t map)
{
	hf_emu_dma_unmap(((struct emu_card *)dev->priv)->host, map);
}

/**
 * hf_emu_pin_info() - what @pin looks like inside.
 * Return: 0, -ENOENT (not pinned) or -ENXIO (revoked).
 */
int hf_emu_pin_info(struct hf_pin *pin, struct hf_emu_pin_info *info)
{
	struct emu_pin *ep;
	int ret = 0;

	pthread_rwlock_rdlock(&pin->lock);
	ep = pin->bdata;
	if (!ep) {
		ret = pin->revoked ? -ENXIO : -ENOENT;
	} else {
		info->nseg = ep->nseg;
		info->region = ep->region;
		info->desc_cpu = ep->desc_cpu;
		info->builds = __atomic_load_n(&ep->builds, __ATOMIC_RELAXED);
	}
	pthread_rwlock_unlock(&pin->lock);
	return ret;
}
