// SPDX-License-Identifier: GPL-2.0
/*
 * The dma-buf provider of PIN (HELLOFPGA_PIN_DMABUF): imports
 * a dma-buf (a GPU allocation exported with
 * cuMemGetHandleForAddressRange(), or any other exporter) as a pinned,
 * peer-to-peer capable importer:
 *
 *   dma_buf_get -> dma_buf_dynamic_attach (allow_peer2peer, move_notify
 *   revokes) -> dma_resv_lock -> dma_buf_pin -> dma_buf_map_attachment ->
 *   dma_resv_unlock, then the DMA segments trimmed to [offset, offset+size)
 *
 * and undoes it in reverse at unpin.  Kernels before 5.7 get a static
 * attachment (no peer-to-peer: host-memory dma-bufs only).
 *
 * Note: with an IOMMU in translation mode some exporters hand out raw BAR
 * addresses instead of IOVAs (NVIDIA open-gpu-kernel-modules #1324); a
 * loopback test at the first PIN is the library's job.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "compat.h"
#include "hf_drv.h"

#if HF_DMABUF_DYNAMIC
#include <linux/dma-resv.h>
#endif

#if IS_ENABLED(CONFIG_DMA_SHARED_BUFFER)

/**
 * struct hf_dmabuf_pin - provider data of a dma-buf pin.
 * @dmabuf: the buffer (a reference is held)
 * @attach: our attachment
 * @sgt: the mapping of the attachment
 * @dir: its direction: DMA_TO_DEVICE for a read-only pin
 */
struct hf_dmabuf_pin {
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
};

#if HF_DMABUF_DYNAMIC
/**
 * hf_dmabuf_move_notify() - the exporter moves or revokes the buffer.
 * @attach: our attachment (importer_priv is the pin)
 *
 * A pinned attachment is not moved, but an exporter may still revoke it;
 * stop DMA to it for good.  Called with the reservation lock held; takes
 * only the pin's lock.
 */
static void hf_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	hf_pin_revoke(attach->importer_priv);
}

static const struct dma_buf_attach_ops hf_dmabuf_attach_ops = {
#if HF_DMABUF_P2P
	.allow_peer2peer = true,
#endif
	.HF_DMABUF_MOVE_NOTIFY = hf_dmabuf_move_notify,
};
#endif

/**
 * hf_dmabuf_segs() - the DMA segments of [offset, offset + size).
 * @pin: the pin (@pin->addr is the offset, @pin->size the size)
 * @sgt: the mapping
 *
 * Return: 0, -ENOMEM, or -EINVAL when the mapping is shorter than asked.
 */
static int hf_dmabuf_segs(struct hf_pin *pin, struct sg_table *sgt)
{
	u64 skip = pin->addr, left = pin->size;
	struct scatterlist *s;
	struct hf_sg *segs;
	u32 n = 0;
	int i;

	segs = kvmalloc_array(sgt->nents, sizeof(*segs), GFP_KERNEL);
	if (!segs)
		return -ENOMEM;
	for_each_sg(sgt->sgl, s, sgt->nents, i) {
		u64 a = sg_dma_address(s), l = sg_dma_len(s);

		if (!left)
			break;
		if (skip >= l) {
			skip -= l;
			continue;
		}
		a += skip;
		l = min(l - skip, left);
		skip = 0;
		left -= l;
		hf_pin_add_seg(segs, &n, a, l);
	}
	if (left || !n) {
		kvfree(segs);
		hf_pin_set_error(pin, "the exporter mapped fewer bytes than the dma-buf holds");
		return -EINVAL;
	}
	pin->segs = segs;
	pin->nsegs = n;
	return 0;
}

/**
 * hf_dmabuf_unmap() - unmap, unpin and detach (reverse of the pin).
 * @dp: the provider data; @dp->sgt may be NULL (not mapped)
 * @pinned: dma_buf_pin() succeeded
 */
static void hf_dmabuf_unmap(struct hf_dmabuf_pin *dp, bool pinned)
{
#if HF_DMABUF_DYNAMIC
	dma_resv_lock(dp->dmabuf->resv, NULL);
	if (dp->sgt)
		dma_buf_unmap_attachment(dp->attach, dp->sgt, dp->dir);
	if (pinned)
		dma_buf_unpin(dp->attach);
	dma_resv_unlock(dp->dmabuf->resv);
#else
	if (dp->sgt)
		dma_buf_unmap_attachment(dp->attach, dp->sgt, dp->dir);
#endif
	dp->sgt = NULL;
	dma_buf_detach(dp->dmabuf, dp->attach);
	dp->attach = NULL;
}

static int hf_dmabuf_pin(struct hf_pin *pin, const struct hellofpga_pin *req)
{
	struct device *dev = hf_pin_dev(pin);
	struct hf_dmabuf_pin *dp;
	struct sg_table *sgt;
	bool pinned = false;
	int ret;

	dp = kzalloc(sizeof(*dp), GFP_KERNEL);
	if (!dp)
		return -ENOMEM;
	dp->dmabuf = dma_buf_get(req->fd);
	if (IS_ERR(dp->dmabuf)) {
		ret = PTR_ERR(dp->dmabuf);
		hf_pin_set_error(pin, "fd %d is not a dma-buf (%d)", req->fd,
				 ret);
		goto err_free;
	}
	if (req->addr >= dp->dmabuf->size ||
	    req->size > dp->dmabuf->size - req->addr) {
		hf_pin_set_error(pin,
				 "offset 0x%llx + size 0x%llx beyond the dma-buf (0x%zx bytes)",
				 req->addr, req->size, dp->dmabuf->size);
		ret = -EINVAL;
		goto err_put;
	}
	/*
	 * The dma-buf's file mode is its writers' right (an exporter hands out
	 * a read-only file, e.g. DRM PRIME without DRM_RDWR): a read-only one
	 * pins for H2C only, mapped for reads by the card where the exporter
	 * and the IOMMU tell the directions apart.
	 */
	dp->dir = DMA_BIDIRECTIONAL;
	if (!(dp->dmabuf->file->f_mode & FMODE_WRITE)) {
		dp->dir = DMA_TO_DEVICE;
		pin->core->read_only = true;
	}
#if HF_DMABUF_DYNAMIC
	dp->attach = dma_buf_dynamic_attach(dp->dmabuf, dev,
					    &hf_dmabuf_attach_ops, pin);
#else
	dp->attach = dma_buf_attach(dp->dmabuf, dev);
#endif
	if (IS_ERR(dp->attach)) {
		ret = PTR_ERR(dp->attach);
		hf_pin_set_error(pin,
				 "exporter %s refused the attachment (%d): peer-to-peer not possible between it and the card?",
				 dp->dmabuf->exp_name ?: "?", ret);
		goto err_put;
	}
#if HF_DMABUF_DYNAMIC
	dma_resv_lock(dp->dmabuf->resv, NULL);
	ret = dma_buf_pin(dp->attach);
	if (ret) {
		dma_resv_unlock(dp->dmabuf->resv);
		hf_pin_set_error(pin, "exporter %s cannot pin the buffer (%d)",
				 dp->dmabuf->exp_name ?: "?", ret);
		goto err_detach;
	}
	pinned = true;
	sgt = dma_buf_map_attachment(dp->attach, dp->dir);
	dma_resv_unlock(dp->dmabuf->resv);
#else
	sgt = dma_buf_map_attachment(dp->attach, dp->dir);
#endif
	if (IS_ERR_OR_NULL(sgt)) {
		ret = sgt ? PTR_ERR(sgt) : -ENOMEM;
		hf_pin_set_error(pin, "exporter %s cannot map the buffer for the card (%d)",
				 dp->dmabuf->exp_name ?: "?", ret);
		goto err_detach;
	}
	dp->sgt = sgt;
	ret = hf_dmabuf_segs(pin, sgt);
	if (ret)
		goto err_detach;
	pin->page_size = PAGE_SIZE;
	pin->priv = dp;
	return 0;

err_detach:
	hf_dmabuf_unmap(dp, pinned);
err_put:
	dma_buf_put(dp->dmabuf);
err_free:
	kfree(dp);
	return ret;
}

static void hf_dmabuf_unpin(struct hf_pin *pin)
{
	struct hf_dmabuf_pin *dp = pin->priv;

	if (!dp)
		return;
	hf_dmabuf_unmap(dp, true);
	dma_buf_put(dp->dmabuf);
	kfree(dp);
}

const struct hf_p2p_ops hf_dmabuf_ops = {
	.type = HELLOFPGA_PIN_DMABUF,
	.feature = HELLOFPGA_FEAT_PIN_DMABUF,
	.name = "dma-buf",
	.owner = THIS_MODULE,
	.pin = hf_dmabuf_pin,
	.unpin = hf_dmabuf_unpin,
};

#endif /* CONFIG_DMA_SHARED_BUFFER */
