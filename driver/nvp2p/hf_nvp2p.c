// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hellofpga-nvp2p.ko: the nvidia_p2p memory provider of hellofpga.ko
 * (HELLOFPGA_PIN_CUDA), a module of its own so that
 * hellofpga.ko loads on machines without NVIDIA's driver.  It registers with
 * hf_p2p_register() at load; hellofpga.ko holds a reference to this module
 * while one of its pins lives.
 *
 * One source, two flavors chosen at build time (driver/nvp2p/Makefile):
 *   desktop  nvidia.ko's nv-p2p.h; cudaMalloc() memory in 64 KiB GPU pages.
 *            nvidia_p2p_get_pages_persistent() where the driver offers it
 *            (NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API, use_persistent=1 and,
 *            where the driver exports it, nvidia_p2p_cap_persistent_pages),
 *            else nvidia_p2p_get_pages() with a free callback.
 *   Tegra    HF_NVP2P_TEGRA, L4T nv-p2p.h; cudaHostAlloc() memory in 4 KiB
 *            pages, mapped for the card (through the SMMU) by
 *            nvidia_p2p_dma_map_pages(); put_pages() calls the free callback.
 *
 * The free callback (non-persistent pins), after NVIDIA's "Unpin Callback"
 * rules and gdrcopy's gdrdrv:
 *   - it may run at any time once nvidia_p2p_get_pages() has registered it,
 *     even before that returns: from cudaFree() or process exit with
 *     NVIDIA's own locks held (desktop), from an MMU notifier, or
 *     synchronously inside our own nvidia_p2p_put_pages() (Tegra);
 *   - before it returns, DMA to the pages has stopped and cannot restart
 *     (hf_pin_revoke()), and it calls only nvidia_p2p_free_dma_mapping()
 *     and nvidia_p2p_free_page_table(); afterwards the page table is gone,
 *     so nvidia_p2p_put_pages() is skipped;
 *   - no lock is ever held across an nvidia_p2p_*() call, so the callback
 *     cannot deadlock on one.
 *
 * Who may touch the page table is a per-pin state under a spinlock that is
 * only held to read or change the state:
 *
 *   SETUP --pin() done--> LIVE --callback--> REVOKING --> FREED
 *     |                    |
 *     | pin() fails        | unpin()
 *     +-------------------UNMAPPING --unmapped--> PUTTING --put_pages-->
 *
 *   SETUP      pin() maps the page table; a callback arriving now waits for
 *              pin() to finish (then pin() fails: the memory is going away)
 *   LIVE       a callback revokes the pin and frees mapping and page table
 *   UNMAPPING  unpin() unmaps; a callback arriving now waits for it
 *   PUTTING    unpin() calls put_pages; a callback (Tegra: the one put_pages
 *              runs) only frees the page table
 *   REVOKING, FREED  the callback owns the teardown; unpin() waits for it
 *              to end (cb_running) and skips put_pages
 *
 * Residual risk, shared with every nvidia_p2p user: a callback that fires
 * while pin() is inside nvidia_p2p_dma_map_pages() waits for it; should the
 * NVIDIA driver hold a lock there that dma_map_pages needs, that would
 * deadlock.  It takes freeing the memory while it is being pinned, and NVIDIA
 * does not support it either (the callback frees what dma_map_pages reads).
 *
 * License: "Dual MIT/GPL".  The open kernel modules export nvidia_p2p_* as
 * GPL-only symbols, which this license may use.  With the proprietary
 * nvidia.ko (a tainting module) the kernel refuses a module that uses both
 * its symbols and GPL-only symbols, as gdrcopy found (it builds a different
 * flavor then): for that driver hellofpga.ko must export hf_p2p_* with
 * EXPORT_SYMBOL, and this module must stay off GPL-only kernel symbols.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "../hf_p2p.h"
#include "nv-p2p-compat.h"

#ifdef HF_NVP2P_TEGRA
#define HF_NV_ALIGN		SZ_4K
#define HF_NV_KIND		"Tegra"
#else
#define HF_NV_ALIGN		SZ_64K
#define HF_NV_KIND		"desktop"
#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
#define HF_NV_PERSISTENT_API
#endif
#endif

#ifdef HF_NV_PERSISTENT_API
static bool use_persistent = true;
module_param(use_persistent, bool, 0444);
MODULE_PARM_DESC(use_persistent,
		 "pin with nvidia_p2p_get_pages_persistent() where the driver supports it (default 1)");
#endif

/**
 * enum hf_nv_state - who owns the page table of a pin (see the top).
 * @HF_NV_SETUP: pin() is setting it up
 * @HF_NV_LIVE: pinned and mapped; the callback or unpin() may take it
 * @HF_NV_UNMAPPING: unpin() is unmapping it
 * @HF_NV_PUTTING: unpin() has unmapped it and gives the pages back
 * @HF_NV_REVOKING: the free callback is revoking and freeing it
 * @HF_NV_FREED: the free callback has freed it
 */
enum hf_nv_state {
	HF_NV_SETUP,
	HF_NV_LIVE,
	HF_NV_UNMAPPING,
	HF_NV_PUTTING,
	HF_NV_REVOKING,
	HF_NV_FREED,
};

/**
 * struct hf_nv_pin - provider data of one pin (hf_pin.priv).
 * @pin: the pin
 * @va: CUDA virtual address (desktop) or CPU address (Tegra), aligned
 * @len: bytes
 * @pt: NVIDIA's page table
 * @map: NVIDIA's DMA mapping for the card, NULL once unmapped
 * @persistent: pinned with the persistent API (no callback)
 * @put_after_cb: Tegra: the callback came from the process's exit (MMU
 *	notifier release), so put_pages must still drop the notifier's mm
 *	reference
 * @lock: protects @state and @cb_running
 * @state: enum hf_nv_state
 * @cb_running: the free callback is running
 * @wq: waiters for @state and @cb_running
 */
struct hf_nv_pin {
	struct hf_pin *pin;
	u64 va;
	u64 len;
	struct nvidia_p2p_page_table *pt;
	struct nvidia_p2p_dma_mapping *map;
	bool persistent;
	bool put_after_cb;
	spinlock_t lock;	/* protects state and cb_running */
	enum hf_nv_state state;
	bool cb_running;
	wait_queue_head_t wq;
};

/* Page tables held (nvidia_p2p_get_pages() without put_pages or callback). */
static atomic_t hf_nv_held = ATOMIC_INIT(0);

static u64 hf_nv_page_bytes(u32 page_size)
{
	switch (page_size) {
	case NVIDIA_P2P_PAGE_SIZE_4KB:
		return SZ_4K;
	case NVIDIA_P2P_PAGE_SIZE_64KB:
		return SZ_64K;
	case NVIDIA_P2P_PAGE_SIZE_128KB:
		return SZ_128K;
	default:
		return 0;
	}
}

/* ---- the flavors' nvidia_p2p calls ------------------------------------ */

static void hf_nv_free_cb(void *data);

#ifdef HF_NVP2P_TEGRA

static int hf_nv_get_pages(struct hf_nv_pin *nvp)
{
	int ret;

	ret = nvidia_p2p_get_pages(nvp->va, nvp->len, &nvp->pt,
				   hf_nv_free_cb, nvp);
	if (ret)
		hf_pin_set_error(nvp->pin,
				 "nvidia_p2p_get_pages(0x%llx, %llu) failed (%d): Tegra pins cudaHostAlloc() memory",
				 nvp->va, nvp->len, ret);
	return ret;
}

static int hf_nv_dma_map(struct hf_nv_pin *nvp)
{
	return nvidia_p2p_dma_map_pages(hf_pin_dev(nvp->pin), nvp->pt,
					&nvp->map, DMA_BIDIRECTIONAL);
}

static void hf_nv_dma_unmap(struct hf_nv_pin *nvp)
{
	int ret = nvidia_p2p_dma_unmap_pages(nvp->map);

	if (ret)
		pr_warn("nvidia_p2p_dma_unmap_pages: %d\n", ret);
}

static void hf_nv_put_pages(struct hf_nv_pin *nvp)
{
	int ret = nvidia_p2p_put_pages(nvp->pt);

	if (ret)
		pr_warn("nvidia_p2p_put_pages(0x%llx): %d\n", nvp->va, ret);
}

/*
 * L4T's notifier drops its mm reference itself when it invalidates (munmap,
 * cudaFreeHost) but not when the process exits (release), where only
 * nvidia_p2p_put_pages() does: by then the mm has no users left.
 */
static bool hf_nv_cb_needs_put(struct hf_nv_pin *nvp)
{
	return nvp->pt->mm && !atomic_read(&nvp->pt->mm->mm_users);
}

static void hf_nv_map_seg(const struct hf_nv_pin *nvp, u32 i, u64 *addr,
			  u64 *len)
{
	*addr = nvp->map->hw_address[i];
	*len = nvp->map->hw_len[i];
}

#else /* desktop */

static int hf_nv_get_pages(struct hf_nv_pin *nvp)
{
	const char *api = "nvidia_p2p_get_pages";
	int ret;

#ifdef HF_NV_PERSISTENT_API
	if (use_persistent) {
		ret = nvidia_p2p_get_pages_persistent(nvp->va, nvp->len,
						      &nvp->pt, 0);
		if (!ret) {
			nvp->persistent = true;
			return 0;
		}
		/* PowerPC, MIG and vGPU have only the callback API. */
		if (ret != -ENOTSUPP && ret != -EOPNOTSUPP) {
			api = "nvidia_p2p_get_pages_persistent";
			goto fail;
		}
		pr_info_once("persistent pins not supported here, using the callback API\n");
	}
#endif
	ret = nvidia_p2p_get_pages(0, 0, nvp->va, nvp->len, &nvp->pt,
				   hf_nv_free_cb, nvp);
	if (!ret)
		return 0;
#ifdef HF_NV_PERSISTENT_API
fail:
#endif
	hf_pin_set_error(nvp->pin,
			 "%s(0x%llx, %llu) failed (%d): is it cudaMalloc() memory of a GPU with GPUDirect RDMA?",
			 api, nvp->va, nvp->len, ret);
	return ret;
}

static int hf_nv_dma_map(struct hf_nv_pin *nvp)
{
	return nvidia_p2p_dma_map_pages(hf_pin_pci_dev(nvp->pin), nvp->pt,
					&nvp->map);
}

static void hf_nv_dma_unmap(struct hf_nv_pin *nvp)
{
	int ret = nvidia_p2p_dma_unmap_pages(hf_pin_pci_dev(nvp->pin),
					     nvp->pt, nvp->map);

	if (ret)
		pr_warn("nvidia_p2p_dma_unmap_pages: %d\n", ret);
}

static void hf_nv_put_pages(struct hf_nv_pin *nvp)
{
	int ret;

#ifdef HF_NV_PERSISTENT_API
	if (nvp->persistent)
		ret = nvidia_p2p_put_pages_persistent(nvp->va, nvp->pt, 0);
	else
#endif
		ret = nvidia_p2p_put_pages(0, 0, nvp->va, nvp->pt);
	if (ret)
		pr_warn("nvidia_p2p_put_pages(0x%llx): %d\n", nvp->va, ret);
}

static bool hf_nv_cb_needs_put(struct hf_nv_pin *nvp)
{
	return false;
}

static void hf_nv_map_seg(const struct hf_nv_pin *nvp, u32 i, u64 *addr,
			  u64 *len)
{
	u64 page = hf_nv_page_bytes(nvp->pt->page_size);

	/* One GPU page each; the first may start before @va (128 KiB). */
	*addr = nvp->map->dma_addresses[i];
	*len = page;
	if (!i) {
		*addr += nvp->va & (page - 1);
		*len -= nvp->va & (page - 1);
	}
}

#endif /* HF_NVP2P_TEGRA */

/* ---- lifecycle ------------------------------------------------------- */

/* Wait until no free callback runs.  Called and returns with nvp->lock. */
static void hf_nv_wait_cb(struct hf_nv_pin *nvp)
	__must_hold(&nvp->lock)
{
	while (nvp->cb_running) {
		spin_unlock(&nvp->lock);
		wait_event(nvp->wq, !READ_ONCE(nvp->cb_running));
		spin_lock(&nvp->lock);
	}
}

static bool hf_nv_owned(enum hf_nv_state state)
{
	return state == HF_NV_SETUP || state == HF_NV_UNMAPPING;
}

/*
 * NVIDIA's free callback.  Returns only when the card cannot reach the
 * pages any more; takes no lock that is held across an nvidia_p2p_* call.
 */
static void hf_nv_free_cb(void *data)
{
	struct hf_nv_pin *nvp = data;
	enum hf_nv_state state;

	spin_lock(&nvp->lock);
	nvp->cb_running = true;
	/* pin() or unpin() is using the page table: let it finish. */
	while (hf_nv_owned(nvp->state)) {
		spin_unlock(&nvp->lock);
		wait_event(nvp->wq, !hf_nv_owned(READ_ONCE(nvp->state)));
		spin_lock(&nvp->lock);
	}
	state = nvp->state;
	if (state == HF_NV_LIVE)
		nvp->state = HF_NV_REVOKING;
	spin_unlock(&nvp->lock);

	switch (state) {
	case HF_NV_LIVE:
		/* Waits for DMA in flight; none starts afterwards. */
		hf_pin_revoke(nvp->pin);
		fallthrough;
	case HF_NV_PUTTING:
		/* PUTTING: unpin() has unmapped already (map is NULL). */
		if (nvp->map)
			nvidia_p2p_free_dma_mapping(nvp->map);
		nvp->map = NULL;
		nvidia_p2p_free_page_table(nvp->pt);
		/* Not consulted when put_pages itself called us. */
		nvp->put_after_cb = hf_nv_cb_needs_put(nvp);
		atomic_dec(&hf_nv_held);
		break;
	default:
		WARN_ONCE(1, "free callback in state %d\n", state);
		break;
	}

	spin_lock(&nvp->lock);
	nvp->state = HF_NV_FREED;
	nvp->cb_running = false;
	wake_up_all(&nvp->wq);
	spin_unlock(&nvp->lock);
}

/*
 * Give back what nvidia_p2p_get_pages() took, whoever holds it now, and
 * free @nvp.  Called by unpin() (DMA has stopped) and by pin() when it fails
 * after get_pages; no lock held.
 */
static void hf_nv_release(struct hf_nv_pin *nvp)
{
	bool put;

	spin_lock(&nvp->lock);
	if (nvp->state == HF_NV_SETUP || nvp->state == HF_NV_LIVE) {
		nvp->state = HF_NV_UNMAPPING;
		spin_unlock(&nvp->lock);
		if (nvp->map)
			hf_nv_dma_unmap(nvp);
		spin_lock(&nvp->lock);
		nvp->map = NULL;
		nvp->state = HF_NV_PUTTING;
		wake_up_all(&nvp->wq);
	}
	/* A callback that took over (or was waiting for us) finishes first. */
	hf_nv_wait_cb(nvp);
	put = nvp->state == HF_NV_PUTTING || nvp->put_after_cb;
	spin_unlock(&nvp->lock);

	if (put) {
		/* No lock held: put_pages may run or wait for the callback. */
		hf_nv_put_pages(nvp);
		spin_lock(&nvp->lock);
		hf_nv_wait_cb(nvp);
		if (nvp->state == HF_NV_PUTTING) {
			/* put_pages gave the pages back, no callback ran. */
			nvp->state = HF_NV_FREED;
			atomic_dec(&hf_nv_held);
#ifdef HF_NVP2P_TEGRA
			/* L4T only releases the pages in the callback. */
			spin_unlock(&nvp->lock);
			nvidia_p2p_free_page_table(nvp->pt);
			spin_lock(&nvp->lock);
#endif
		}
		spin_unlock(&nvp->lock);
	}
	kfree(nvp);
}

static int hf_nv_check(struct hf_nv_pin *nvp)
{
	struct hf_pin *pin = nvp->pin;
	u64 page;

#ifdef NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE
	if (!NVIDIA_P2P_PAGE_TABLE_VERSION_COMPATIBLE(nvp->pt)) {
		hf_pin_set_error(pin, "NVIDIA page table version 0x%x, built for 0x%x",
				 nvp->pt->version, NVIDIA_P2P_PAGE_TABLE_VERSION);
		return -EPROTO;
	}
#endif
	page = hf_nv_page_bytes(nvp->pt->page_size);
	if (!page || !nvp->pt->entries) {
		hf_pin_set_error(pin, "NVIDIA page table: page size type %u, %u entries",
				 nvp->pt->page_size, nvp->pt->entries);
		return -EPROTO;
	}
	pin->page_size = page;
	return 0;
}

static int hf_nv_map(struct hf_nv_pin *nvp)
{
	struct hf_pin *pin = nvp->pin;
	u64 left = nvp->len;
	struct hf_sg *segs;
	u32 i, n = 0, entries;
	int ret;

	ret = hf_nv_dma_map(nvp);
	if (ret) {
		nvp->map = NULL;
		hf_pin_set_error(pin, "nvidia_p2p_dma_map_pages(0x%llx, %llu) failed (%d)",
				 nvp->va, nvp->len, ret);
		return ret;
	}
#ifdef NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE
	if (!NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(nvp->map)) {
		hf_pin_set_error(pin, "NVIDIA DMA mapping version 0x%x, built for 0x%x",
				 nvp->map->version, NVIDIA_P2P_DMA_MAPPING_VERSION);
		return -EPROTO;
	}
#endif
	entries = nvp->map->entries;
	if (!entries) {
		hf_pin_set_error(pin, "NVIDIA DMA mapping without entries");
		return -EPROTO;
	}
	segs = kvmalloc_array(entries, sizeof(*segs), GFP_KERNEL);
	if (!segs)
		return -ENOMEM;
	for (i = 0; i < entries && left; i++) {
		u64 addr, len;

		hf_nv_map_seg(nvp, i, &addr, &len);
		len = min(len, left);
		hf_pin_add_seg(segs, &n, addr, len);
		left -= len;
	}
	if (left) {
		kvfree(segs);
		hf_pin_set_error(pin, "NVIDIA mapped %llu of %llu bytes at 0x%llx",
				 nvp->len - left, nvp->len, nvp->va);
		return -EPROTO;
	}
	pin->segs = segs;
	pin->nsegs = n;
	return 0;
}

static int hf_nv_pin(struct hf_pin *pin, const struct hellofpga_pin *req)
{
	struct hf_nv_pin *nvp;
	int ret;

	if (!req->size || !IS_ALIGNED(req->addr | req->size, HF_NV_ALIGN) ||
	    req->addr + req->size < req->addr) {
		hf_pin_set_error(pin,
				 "CUDA address 0x%llx and size 0x%llx must be non-zero multiples of %u KiB (%s GPU page)",
				 req->addr, req->size, HF_NV_ALIGN / SZ_1K,
				 HF_NV_KIND);
		return -EINVAL;
	}

	nvp = kzalloc(sizeof(*nvp), GFP_KERNEL);
	if (!nvp)
		return -ENOMEM;
	nvp->pin = pin;
	nvp->va = req->addr;
	nvp->len = req->size;
	spin_lock_init(&nvp->lock);
	init_waitqueue_head(&nvp->wq);
	nvp->state = HF_NV_SETUP;

	/* From here on the free callback may run (and wait for SETUP). */
	ret = hf_nv_get_pages(nvp);
	if (ret) {
		kfree(nvp);
		return ret;
	}
	atomic_inc(&hf_nv_held);

	ret = hf_nv_check(nvp);
	if (!ret)
		ret = hf_nv_map(nvp);
	if (ret)
		goto release;

	spin_lock(&nvp->lock);
	if (nvp->cb_running) {
		/* A free callback waits for us: the memory is going away. */
		spin_unlock(&nvp->lock);
		hf_pin_free_segs(pin);
		hf_pin_set_error(pin, "CUDA memory at 0x%llx was freed while being pinned",
				 nvp->va);
		ret = -EFAULT;
		goto release;
	}
	pin->priv = nvp;
	nvp->state = HF_NV_LIVE;
	spin_unlock(&nvp->lock);
	return 0;

release:
	hf_nv_release(nvp);
	return ret;
}

static void hf_nv_unpin(struct hf_pin *pin)
{
	struct hf_nv_pin *nvp = pin->priv;

	if (!nvp)
		return;
	hf_nv_release(nvp);
	pin->priv = NULL;
	hf_pin_free_segs(pin);
}

/* ---- registration ---------------------------------------------------- */

#ifdef HF_NVP2P_TEGRA
/*
 * Tegra maps ordinary pages with a streaming mapping (the mapping's sg table,
 * through the SMMU), so bounce buffers and non-coherent SoCs need syncs
 * around each run, as for host pins: only the run's bytes
 * (hf_pin_sync_sgt()).  The mapping is bidirectional.
 */
static void hf_nv_sync(struct hf_pin *pin, u64 off, u64 len, bool for_device)
{
	struct hf_nv_pin *nvp = pin->priv;
	struct nvidia_p2p_dma_mapping *map = nvp ? READ_ONCE(nvp->map) : NULL;

	if (map && map->sgt)
		hf_pin_sync_sgt(pin, map->sgt, off, len, for_device);
}

static const struct hf_p2p_ops hf_nv_ops = {
	.type = HELLOFPGA_PIN_CUDA,
	.feature = HELLOFPGA_FEAT_PIN_TEGRA,
	.name = "nvidia_p2p (Tegra)",
	.owner = THIS_MODULE,
	.pin = hf_nv_pin,
	.unpin = hf_nv_unpin,
	.sync = hf_nv_sync,
};
#else
static const struct hf_p2p_ops hf_nv_ops = {
	.type = HELLOFPGA_PIN_CUDA,
	.feature = HELLOFPGA_FEAT_PIN_NVP2P,
	.name = "nvidia_p2p",
	.owner = THIS_MODULE,
	.pin = hf_nv_pin,
	.unpin = hf_nv_unpin,
};

#ifdef HF_NV_PERSISTENT_API
static const struct hf_p2p_ops hf_nv_ops_persistent = {
	.type = HELLOFPGA_PIN_CUDA,
	.feature = HELLOFPGA_FEAT_PIN_NVP2P |
		   HELLOFPGA_FEAT_PIN_NVP2P_PERSISTENT,
	.name = "nvidia_p2p (persistent)",
	.owner = THIS_MODULE,
	.pin = hf_nv_pin,
	.unpin = hf_nv_unpin,
};
#endif
#endif /* HF_NVP2P_TEGRA */

static const struct hf_p2p_ops *hf_nv_active;

static const struct hf_p2p_ops *hf_nv_choose(void)
{
#ifdef HF_NV_PERSISTENT_API
#ifdef HF_NV_HAVE_CAP_PERSISTENT_PAGES
	if (use_persistent && !nvidia_p2p_cap_persistent_pages) {
		pr_info("the NVIDIA driver has no persistent pins\n");
		use_persistent = false;
	}
#endif
	if (use_persistent)
		return &hf_nv_ops_persistent;
#endif
	return &hf_nv_ops;
}

static int __init hf_nv_init(void)
{
	int ret;

	hf_nv_active = hf_nv_choose();
	ret = hf_p2p_register(hf_nv_active);
	if (ret) {
		pr_err("hf_p2p_register(%s): %d\n", hf_nv_active->name, ret);
		return ret;
	}
	pr_info("%s provider registered\n", hf_nv_active->name);
	return 0;
}

static void __exit hf_nv_exit(void)
{
	hf_p2p_unregister(hf_nv_active);
	WARN(atomic_read(&hf_nv_held), "%d NVIDIA page tables still held\n",
	     atomic_read(&hf_nv_held));
}

module_init(hf_nv_init);
module_exit(hf_nv_exit);

MODULE_DESCRIPTION("hellofpga: nvidia_p2p (GPUDirect RDMA) memory provider, " HF_NV_KIND);
MODULE_LICENSE("Dual MIT/GPL");
