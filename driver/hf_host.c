// SPDX-License-Identifier: GPL-2.0
/*
 * The host-memory provider of PIN (HELLOFPGA_PIN_HOST): pins a
 * user buffer long-term (FOLL_LONGTERM, writable), maps it for the card in
 * both directions and hands the merged DMA segments to the pin core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "hf_drv.h"

/* Pages pinned per call of pin_user_pages_fast(). */
#define HF_HOST_PIN_BATCH	65536u

/**
 * struct hf_host_pin - provider data of a host pin.
 * @pages: the pinned pages
 * @npages: their number
 * @sgt: the sg table, DMA-mapped
 * @need_sync: the mapping needs CPU/device syncs (swiotlb bounce buffers,
 *	a non-coherent device)
 * @bounce: what the card writes may not reach the pages themselves (a
 *	bounce buffer, a non-coherent device): no writeback words in it
 */
struct hf_host_pin {
	struct page **pages;
	unsigned long npages;
	struct sg_table sgt;
	bool need_sync;
	bool bounce;
};

/**
 * hf_host_bounces() - whether the card's writes to a mapped piece may not
 *	reach the page itself, visible to the CPU (and a GPU) at once.
 * @dev: the card
 * @addr: the piece's DMA address
 *
 * dma_need_sync() answers that for the direct mapping (swiotlb, a
 * non-coherent device); for an IOMMU's DMA domain it answers true
 * whatever the device (the ops have sync callbacks), though iommu-dma
 * bounces only an untrusted device's pieces that are not whole IOVA
 * granules, and a pin's pieces are whole pages.
 *
 * Return: true when a writeback word in the piece would not work.
 */
static bool hf_host_bounces(struct device *dev, dma_addr_t addr)
{
	struct iommu_domain *d;

	if (!hf_dma_need_sync(dev, addr))
		return false;
	d = iommu_get_domain_for_dev(dev);
	return !d || !(d->type & __IOMMU_DOMAIN_DMA_API) ||
	       !dev_is_dma_coherent(dev) ||
	       (dev_is_pci(dev) && to_pci_dev(dev)->untrusted);
}

/**
 * hf_host_segs() - the merged DMA segments of a mapped table.
 * @pin: the pin
 * @hp: the provider data, its table mapped; @hp->need_sync is set
 *
 * Return: 0 or -ENOMEM.
 */
static int hf_host_segs(struct hf_pin *pin, struct hf_host_pin *hp)
{
	struct device *dev = hf_pin_dev(pin);
	struct sg_table *sgt = &hp->sgt;
	struct scatterlist *s;
	struct hf_sg *segs;
	u32 n = 0;
	int i;

	segs = kvmalloc_array(sgt->nents, sizeof(*segs), GFP_KERNEL);
	if (!segs)
		return -ENOMEM;
	for_each_sg(sgt->sgl, s, sgt->nents, i) {
		u64 a = sg_dma_address(s), l = sg_dma_len(s);

		hp->need_sync |= hf_dma_need_sync(dev, a);
		hp->bounce |= hf_host_bounces(dev, a);
		hf_pin_add_seg(segs, &n, a, l);
	}
	pin->segs = segs;
	pin->nsegs = n;
	return 0;
}

static int hf_host_pin(struct hf_pin *pin, const struct hellofpga_pin *req)
{
	struct device *dev = hf_pin_dev(pin);
	unsigned long start = req->addr & PAGE_MASK;
	unsigned int off = offset_in_page(req->addr);
	unsigned long npages, done = 0;
	unsigned int max_seg;
	struct hf_host_pin *hp;
	size_t max;
	int ret;

	if (!IS_ALIGNED(req->addr, SZ_4K) || !IS_ALIGNED(req->size, SZ_4K)) {
		hf_pin_set_error(pin, "address 0x%llx and size 0x%llx must be 4 KiB aligned",
				 req->addr, req->size);
		return -EINVAL;
	}
	if (req->addr + req->size < req->addr || req->addr > ULONG_MAX ||
	    req->size > ULONG_MAX - req->addr) {
		hf_pin_set_error(pin, "range 0x%llx + 0x%llx wraps", req->addr,
				 req->size);
		return -EINVAL;
	}
	npages = DIV_ROUND_UP(off + req->size, PAGE_SIZE);
	if (npages > UINT_MAX) {
		hf_pin_set_error(pin, "0x%llx bytes is too large", req->size);
		return -EINVAL;
	}
	hp = kzalloc(sizeof(*hp), GFP_KERNEL);
	if (!hp)
		return -ENOMEM;
	hp->pages = kvmalloc_array(npages, sizeof(*hp->pages), GFP_KERNEL);
	if (!hp->pages) {
		ret = -ENOMEM;
		hf_pin_set_error(pin, "no memory for %lu page pointers",
				 npages);
		goto err_free;
	}
	while (done < npages) {
		int n = min_t(unsigned long, npages - done,
			      HF_HOST_PIN_BATCH);

		ret = hf_pin_user_pages_fast(start + done * PAGE_SIZE, n,
					     FOLL_WRITE | FOLL_LONGTERM,
					     hp->pages + done);
		if (ret <= 0) {
			ret = ret ? ret : -EFAULT;
			hf_pin_set_error(pin,
					 "cannot pin host memory at 0x%lx (%d): not mapped writable, or not pinnable long-term (DAX/file-backed)",
					 start + done * PAGE_SIZE, ret);
			goto err_unpin;
		}
		done += ret;
	}
	hp->npages = npages;

	max = min_t(size_t, hf_dma_max_mapping_size(dev),
		    dma_get_max_seg_size(dev));
	max = min_t(size_t, max, UINT_MAX) & PAGE_MASK;
	max_seg = max_t(size_t, max, PAGE_SIZE);
	ret = hf_sg_alloc_table_from_pages(&hp->sgt, hp->pages, npages, off,
					   req->size, max_seg);
	if (ret) {
		hf_pin_set_error(pin, "no memory for the sg table");
		goto err_unpin;
	}
	ret = hf_dma_map_sgtable(dev, &hp->sgt, DMA_BIDIRECTIONAL);
	if (ret) {
		hf_pin_set_error(pin, "DMA mapping failed (%d)", ret);
		goto err_sgt;
	}
	ret = hf_host_segs(pin, hp);
	if (ret) {
		hf_pin_set_error(pin, "no memory for the segment list");
		goto err_unmap;
	}
	pin->page_size = PAGE_SIZE;
	pin->priv = hp;
	return 0;

err_unmap:
	hf_dma_unmap_sgtable(dev, &hp->sgt, DMA_BIDIRECTIONAL,
			     DMA_ATTR_SKIP_CPU_SYNC);
err_sgt:
	sg_free_table(&hp->sgt);
err_unpin:
	hf_unpin_user_pages(hp->pages, done, false);
	kvfree(hp->pages);
err_free:
	kfree(hp);
	return ret;
}

static void hf_host_unpin(struct hf_pin *pin)
{
	struct hf_host_pin *hp = pin->priv;

	if (!hp)
		return;
	/*
	 * Every run synced its own range (hf_host_sync()); an unmap that syncs
	 * would copy a bounce buffer's old contents over what the CPU wrote
	 * since the last run, or over the pages a new pin of them uses.
	 */
	hf_dma_unmap_sgtable(hf_pin_dev(pin), &hp->sgt, DMA_BIDIRECTIONAL,
			     DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(&hp->sgt);
	/* The card may have written any page: they are all dirty. */
	hf_unpin_user_pages(hp->pages, hp->npages, true);
	kvfree(hp->pages);
	kfree(hp);
}

/**
 * hf_host_sync() - make the range of a host pin a run moves coherent.
 * @pin: a pin of hf_host_ops
 * @off: first byte of the run in the pin
 * @len: its bytes
 * @for_device: before the run (CPU writes -> device), else after a C2H run
 *	(device writes -> CPU)
 *
 * The mapping is long-lived and bidirectional: with bounce buffers the
 * run's bytes are synced before every run (so the bounce buffer holds what
 * the CPU wrote, also for a C2H run that moves fewer bytes than it covers)
 * and after every C2H run; nothing else is touched, so runs of other
 * channels over other ranges of the pin keep their data.  Nothing happens
 * when the mapping needs no sync (the usual case).
 */
void hf_host_sync(struct hf_pin *pin, u64 off, u64 len, bool for_device)
{
	struct hf_host_pin *hp = pin->priv;

	if (hp && hp->need_sync)
		hf_pin_sync_sgt(pin, &hp->sgt, off, len, for_device);
}

/**
 * hf_host_words_map() - the CPU and bus address of words of a host pin
 *	that the card writes and the CPU (and a GPU mapping the same user
 *	memory) reads: writeback words.
 * @pin: a pin of hf_host_ops
 * @off: first byte in the pin, 4-byte aligned
 * @len: bytes, > 0, inside the pin
 * @w: receives the addresses
 *
 * The words must lie in one contiguous bus piece of the pin; their CPU
 * address is the page's kernel address when they lie in one lowmem page,
 * else a vmap() of their pages (hf_host_words_unmap() undoes it).  The
 * pages stay pinned until the provider's unpin.
 *
 * Return: 0, -EOPNOTSUPP (the card's writes may miss the pages: swiotlb bounce
 * buffers or a non-coherent device, so neither the CPU nor a GPU would see
 * what the card writes), -EINVAL (not in one bus piece), -ENOMEM.
 */
int hf_host_words_map(struct hf_pin *pin, u64 off, u64 len,
		      struct hf_host_words *w)
{
	struct hf_host_pin *hp = pin->priv;
	u64 at = offset_in_page(pin->addr) + off, pos = 0;
	unsigned long first = at >> PAGE_SHIFT;
	unsigned long last = (at + len - 1) >> PAGE_SHIFT;
	u32 i;

	memset(w, 0, sizeof(*w));
	if (!hp)
		return -EINVAL;
	if (hp->bounce)
		return -EOPNOTSUPP;
	for (i = 0; i < pin->nsegs; i++) {
		const struct hf_sg *s = &pin->segs[i];

		if (off < pos + s->len) {
			if (off + len > pos + s->len)
				return -EINVAL;
			w->bus = s->addr + (off - pos);
			break;
		}
		pos += s->len;
	}
	if (i == pin->nsegs || last >= hp->npages)
		return -EINVAL;
	if (first == last && !PageHighMem(hp->pages[first])) {
		w->cpu = page_address(hp->pages[first]) + offset_in_page(at);
		return 0;
	}
	w->vbase = vmap(hp->pages + first, last - first + 1, VM_MAP,
			PAGE_KERNEL);
	if (!w->vbase)
		return -ENOMEM;
	w->cpu = w->vbase + offset_in_page(at);
	return 0;
}

/**
 * hf_host_words_unmap() - undo hf_host_words_map().
 * @w: its addresses (zeroed: nothing to do)
 */
void hf_host_words_unmap(struct hf_host_words *w)
{
	if (w->vbase)
		vunmap(w->vbase);
	memset(w, 0, sizeof(*w));
}

const struct hf_p2p_ops hf_host_ops = {
	.type = HELLOFPGA_PIN_HOST,
	.feature = HELLOFPGA_FEAT_PIN_HOST,
	.name = "host",
	.owner = THIS_MODULE,
	.pin = hf_host_pin,
	.unpin = hf_host_unpin,
	.sync = hf_host_sync,
};
