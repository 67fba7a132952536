/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hf_p2p.h - memory providers of hellofpga.ko: what HELLOFPGA_IOC_PIN pins.
 *
 * The main module (hellofpga.ko) owns pins: their handles, their descriptor
 * chains, the lock transfers hold, accounting and lifetime.  A provider only
 * turns a pin request into DMA segments the card can reach, and gives them
 * back.  Host memory and dma-buf providers live in the main module; the
 * nvidia_p2p providers (desktop and Tegra) live in hellofpga-nvp2p.ko, which
 * registers them at load, so hellofpga.ko loads on machines without the
 * NVIDIA driver.
 *
 * Revocation: when memory goes away behind the driver's back (NVIDIA's free
 * callback, a dma-buf move_notify), the provider calls hf_pin_revoke(),
 * which returns only when no DMA to the pin is in flight and none will
 * start, within a short fixed bound (runs in progress are cancelled; if an
 * engine cannot be proven idle, the card's bus mastering goes off).  It
 * takes the pin's own spinlock only, never a lock the provider holds across
 * nvidia_p2p_put_pages() or dma_buf calls, and never waits for a transfer's
 * own timeout.
 */
#ifndef HF_P2P_H
#define HF_P2P_H

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

#include "../core/xdma_engine.h"
#include "../include/uapi/hellofpga.h"

struct hf_pin;

/**
 * struct hf_p2p_ops - a memory provider.
 * @type: HELLOFPGA_PIN_* it serves
 * @feature: HELLOFPGA_FEAT_* bit(s) it adds to GET_INFO
 * @name: for messages ("nvidia_p2p (persistent)", "dma-buf", "host")
 * @owner: THIS_MODULE of the provider (held while a pin of it lives)
 * @pin: pin @req for DMA by hf_pin_dev(@pin): fill @pin->segs, @pin->nsegs,
 *	@pin->page_size, @pin->priv; may sleep; 0 or negative errno with
 *	hf_pin_set_error() text
 * @unpin: release what @pin set up but @pin->segs (freed after it); DMA to
 *	it has stopped; may sleep
 * @sync: optional: make the bytes [@off, @off + @len) of the pin, those one
 *	engine run moves, coherent around the run: @for_device before it,
 *	!@for_device after a C2H run (bounce buffers, non-coherent SoCs);
 *	never more than those bytes (another channel may be moving others);
 *	hf_pin_sync_sgt() does it for an sg table; NULL when the memory needs
 *	none (a GPU BAR); called with the pin in use, must not sleep on the
 *	pin's locks
 */
struct hf_p2p_ops {
	u32 type;
	u64 feature;
	const char *name;
	struct module *owner;
	int (*pin)(struct hf_pin *pin, const struct hellofpga_pin *req);
	void (*unpin)(struct hf_pin *pin);
	void (*sync)(struct hf_pin *pin, u64 off, u64 len, bool for_device);
};

/**
 * struct hf_pin - pinned memory of one open file.
 * @addr: the request's address (VA or dma-buf offset)
 * @size: the request's size
 * @page_size: set by the provider
 * @segs: DMA segments, set by the provider's @pin (kvmalloc'ed by it;
 *	freed by hellofpga.ko after its @unpin)
 * @nsegs: entries of @segs
 * @priv: provider data
 *
 * The main module's part of the structure is private to it
 * (driver/hf_drv.h).
 */
struct hf_pin {
	u64 addr;
	u64 size;
	u64 page_size;
	struct hf_sg *segs;
	u32 nsegs;
	void *priv;
	/* private to hellofpga.ko from here on */
	struct hf_pin_core *core;
};

/**
 * hf_pin_add_seg() - append a DMA range to a provider's segment list, merged
 *	with the previous entry where the two are contiguous.
 * @segs: the list, with room for one more entry
 * @n: entries in @segs, updated
 * @addr: DMA address of the range
 * @len: its length
 */
static inline void hf_pin_add_seg(struct hf_sg *segs, u32 *n, u64 addr,
				  u64 len)
{
	if (*n && segs[*n - 1].addr + segs[*n - 1].len == addr) {
		segs[*n - 1].len += len;
		return;
	}
	segs[*n].addr = addr;
	segs[*n].len = len;
	(*n)++;
}

int hf_p2p_register(const struct hf_p2p_ops *ops);
void hf_p2p_unregister(const struct hf_p2p_ops *ops);
struct device *hf_pin_dev(struct hf_pin *pin);
struct pci_dev *hf_pin_pci_dev(struct hf_pin *pin);
void hf_pin_revoke(struct hf_pin *pin);
void hf_pin_sync_sgt(struct hf_pin *pin, struct sg_table *sgt, u64 off,
		     u64 len, bool for_device);
__printf(2, 3) void hf_pin_set_error(struct hf_pin *pin, const char *fmt, ...);

#endif /* HF_P2P_H */
