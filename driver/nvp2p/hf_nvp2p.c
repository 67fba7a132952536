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
 * rules, NVIDIA's nvidia-peermem and gdrcopy's gdrdrv:
 *   - it may run at any time once nvidia_p2p_get_pages() has registered it,
 *     even before that returns.  Desktop: from cudaFree() or process exit,
 *     inside RM with RM's API lock held, the lock that get_pages,
 *     get_pages_persistent, dma_map_pages and put_pages take (and, in older
 *     drivers, dma_unmap_pages).  Tegra: from an MMU notifier (munmap,
 *     exit), or synchronously inside our own nvidia_p2p_put_pages();
 *   - so it never waits for a thread that may be inside an nvidia_p2p
 *     call: no lock is held across one, and the per-pin lock the callback
 *     takes is held only around loads and stores;
 *   - before it returns, DMA to the pages has stopped and cannot restart:
 *     hf_pin_revoke() for a LIVE pin, and a pin still in SETUP never
 *     reaches the card; of NVIDIA's API it calls only
 *     nvidia_p2p_free_dma_mapping() and nvidia_p2p_free_page_table();
 *   - desktop: when it returns, NVIDIA frees the page table and every DMA
 *     mapping of it (the open driver's nv_p2p_free_page_table() after the
 *     callback), so nothing of them is touched afterwards and
 *     nvidia_p2p_put_pages() is skipped.
 *
 * Who may touch the page table is a per-pin state under nvp->lock:
 *
 *            pin() done              callback
 *   SETUP -------------> LIVE -------------------> REVOKING ------> FREED
 *     |                   |                                          ^
 *     | pin() fails       | unpin()                                  |
 *     +-------------> UNMAPPING --unmapped--> PUTTING --put_pages----+
 *
 *   callback in SETUP or UNMAPPING:  desktop -> FREED at once,
 *                                    Tegra   -> ORPHANED -> owner -> FREED
 *   callback in PUTTING:             -> FREED
 *
 *   SETUP      pin() gets and maps the page table, and reads NVIDIA's page
 *              table and mapping only under nvp->lock, in SETUP (so while
 *              they are valid).  A callback now does not wait: the pin is
 *              unusable, pin() fails with -EFAULT.  Desktop: the callback
 *              frees the page table; NVIDIA frees it and any mapping pin()
 *              got when the callback returns, pin() touches neither again.
 *              Tegra: ORPHANED; pin() unmaps its mapping and frees the page
 *              table itself (L4T: unpins the pages; allowed outside the
 *              callback) once out of NVIDIA's calls
 *   LIVE       a callback revokes the pin and frees mapping and page table
 *   UNMAPPING  unpin() (or a failing pin()) unmaps; a callback now does not
 *              wait either and leaves the mapping to the unmap in flight.
 *              Desktop: it frees the page table (the unmap, if it comes
 *              after RM's teardown, finds the mapping gone and returns 0);
 *              Tegra: ORPHANED, the owner frees the page table after
 *              unmapping
 *   PUTTING    unpin() calls put_pages; a callback frees the page table
 *              (desktop: put_pages waits for it on RM's lock, then finds
 *              nothing; Tegra: put_pages runs it)
 *   REVOKING, ORPHANED, FREED  the callback took the page table: pin() and
 *              unpin() wait for it to end (cb_running; it waits for nobody)
 *              and skip put_pages (Tegra: not after process exit,
 *              put_after_cb)
 *
 * Residual risk, in NVIDIA's API and shared with every nvidia_p2p user:
 * when the memory is freed while pin() is inside nvidia_p2p_dma_map_pages()
 * (or unpin() inside nvidia_p2p_dma_unmap_pages()), NVIDIA's own code goes
 * on with the page table RM frees after the callback (the open driver reads
 * it before it takes its lock and links the mapping to it afterwards; its
 * dma_unmap_pages takes no RM lock, so a callback never blocks it).  A
 * mapping made in that window is one the callback cannot name; the open
 * driver frees it with the page table, a driver that needed
 * nvidia_p2p_free_dma_mapping() for it would leak it.  The callback still
 * waits for DMA in flight to a LIVE pin (hf_pin_revoke()), and RM's lock is
 * held meanwhile.
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
#include <linux/mutex.h>
#include <linux/sizes.h>
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
 * @HF_NV_UNMAPPING: unpin(), or pin() failing, is unmapping it
 * @HF_NV_PUTTING: unmapped; unpin() gives the pages back
 * @HF_NV_REVOKING: the free callback is revoking and freeing it
 * @HF_NV_ORPHANED: Tegra: the callback came in SETUP or UNMAPPING and
 *	left the page table to its owner, who unmaps and frees it
 * @HF_NV_FREED: freed (by the callback, by NVIDIA after it, or by the
 *	owner)
 */
enum hf_nv_state {
	HF_NV_SETUP,
	HF_NV_LIVE,
	HF_NV_UNMAPPING,
	HF_NV_PUTTING,
	HF_NV_REVOKING,
	HF_NV_ORPHANED,
	HF_NV_FREED,
};

/*
 * Whether a callback in SETUP or UNMAPPING leaves the page table to its
 * owner.  Desktop: no, NVIDIA frees it (and its mappings) as soon as the
 * callback returns, so the callback calls nvidia_p2p_free_page_table() as
 * the rules say and the owner never touches either again.  Tegra: yes, L4T
 * frees nothing after the callback and its free_page_table() unpins the
 * pages the owner may be mapping or unmapping at that moment; the owner
 * frees it once done, which L4T allows outside the callback.
 */
#ifdef HF_NVP2P_TEGRA
#define HF_NV_CB_DEFERS		true
#else
#define HF_NV_CB_DEFERS		false
#endif

/**
 * struct hf_nv_pin - provider data of one pin (hf_pin.priv).
 * @pin: the pin
 * @va: CUDA virtual address (desktop) or CPU address (Tegra), aligned
 * @len: bytes
 * @pt: NVIDIA's page table (written by get_pages before it can call back)
 * @map: NVIDIA's DMA mapping for the card, set when LIVE, NULL once
 *	unmapped or freed
 * @persistent: pinned with the persistent API (no callback)
 * @put_after_cb: Tegra: the callback came from the process's exit (MMU
 *	notifier release), so put_pages must still drop the notifier's mm
 *	reference
 * @lock: protects @state, @map, @cb_running and @put_after_cb; pin()
 *	holds it while it reads NVIDIA's page table and mapping; held only
 *	around loads and stores: never across an nvidia_p2p_*() call, an
 *	allocation or a wait, so the callback waits for it only that long
 * @state: enum hf_nv_state
 * @cb_running: the free callback is running
 * @wq: waiters for @cb_running
 */
struct hf_nv_pin {
	struct hf_pin *pin;
	u64 va;
	u64 len;
	struct nvidia_p2p_page_table *pt;
	struct nvidia_p2p_dma_mapping *map;
	bool persistent;
	bool put_after_cb;
	struct mutex lock;	/* protects state, map, cb_running */
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

static int hf_nv_dma_map(struct hf_nv_pin *nvp,
			 struct nvidia_p2p_dma_mapping **map)
{
	return nvidia_p2p_dma_map_pages(hf_pin_dev(nvp->pin), nvp->pt, map,
					DMA_BIDIRECTIONAL);
}

static void hf_nv_dma_unmap(struct hf_nv_pin *nvp,
			    struct nvidia_p2p_dma_mapping *map)
{
	int ret = nvidia_p2p_dma_unmap_pages(map);

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
	struct nvidia_p2p_page_table *pt = READ_ONCE(nvp->pt);

	return pt && pt->mm && !atomic_read(&pt->mm->mm_users);
}

static void hf_nv_map_seg(const struct hf_nv_pin *nvp,
			  const struct nvidia_p2p_dma_mapping *map, u32 i,
			  u64 *addr, u64 *len)
{
	*addr = map->hw_address[i];
	*len = map->hw_len[i];
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

static int hf_nv_dma_map(struct hf_nv_pin *nvp,
			 struct nvidia_p2p_dma_mapping **map)
{
	return nvidia_p2p_dma_map_pages(hf_pin_pci_dev(nvp->pin), nvp->pt,
					map);
}

static void hf_nv_dma_unmap(struct hf_nv_pin *nvp,
			    struct nvidia_p2p_dma_mapping *map)
{
	int ret = nvidia_p2p_dma_unmap_pages(hf_pin_pci_dev(nvp->pin),
					     nvp->pt, map);

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

static void hf_nv_map_seg(const struct hf_nv_pin *nvp,
			  const struct nvidia_p2p_dma_mapping *map, u32 i,
			  u64 *addr, u64 *len)
{
	u64 page = nvp->pin->page_size;

	/* One GPU page each; the first may start before @va (128 KiB). */
	*addr = map->dma_addresses[i];
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
		mutex_unlock(&nvp->lock);
		wait_event(nvp->wq, !READ_ONCE(nvp->cb_running));
		mutex_lock(&nvp->lock);
	}
}

/* The page table is given back: free it, as NVIDIA's rules say. */
static void hf_nv_free_pt(struct hf_nv_pin *nvp)
{
	nvidia_p2p_free_page_table(READ_ONCE(nvp->pt));
	atomic_dec(&hf_nv_held);
}

/*
 * NVIDIA's free callback.  Waits for nothing but DMA in flight to a LIVE
 * pin (hf_pin_revoke()) and, at most for a few loads and stores, for
 * nvp->lock: whoever else owns the page table may be inside an nvidia_p2p
 * call that needs the lock NVIDIA holds around this callback.
 */
static void hf_nv_free_cb(void *data)
{
	struct hf_nv_pin *nvp = data;
	struct nvidia_p2p_dma_mapping *map;
	enum hf_nv_state state;

	mutex_lock(&nvp->lock);
	state = nvp->state;
	switch (state) {
	case HF_NV_LIVE:
		nvp->state = HF_NV_REVOKING;
		break;
	case HF_NV_SETUP:
	case HF_NV_UNMAPPING:
		/* Take it over from pin() or unpin() without waiting. */
		nvp->state = HF_NV_CB_DEFERS ? HF_NV_ORPHANED : HF_NV_FREED;
		break;
	case HF_NV_PUTTING:
		break;
	default:
		mutex_unlock(&nvp->lock);
		/* NVIDIA calls it once per page table. */
		pr_err_ratelimited("free callback for 0x%llx in state %d ignored\n",
				   nvp->va, state);
		return;
	}
	nvp->cb_running = true;
	mutex_unlock(&nvp->lock);

	switch (state) {
	case HF_NV_LIVE:
		/* Waits for DMA in flight; none starts afterwards. */
		hf_pin_revoke(nvp->pin);
		map = nvp->map;
		WRITE_ONCE(nvp->map, NULL);
		if (map)
			nvidia_p2p_free_dma_mapping(map);
		fallthrough;
	case HF_NV_PUTTING:
		/* PUTTING: unpin() has unmapped; it is in put_pages. */
		hf_nv_free_pt(nvp);
		break;
	default:
		/*
		 * SETUP, UNMAPPING: the owner's mapping is not ours to free.
		 * Desktop: NVIDIA frees it with the page table when we
		 * return, and the owner touches neither again.  Tegra: the
		 * owner unmaps it and frees the page table itself.
		 */
		if (!HF_NV_CB_DEFERS)
			hf_nv_free_pt(nvp);
		break;
	}

	mutex_lock(&nvp->lock);
	if (state == HF_NV_LIVE || state == HF_NV_PUTTING)
		nvp->state = HF_NV_FREED;
	/* Not consulted when put_pages itself called us. */
	nvp->put_after_cb = hf_nv_cb_needs_put(nvp);
	nvp->cb_running = false;
	wake_up_all(&nvp->wq);
	mutex_unlock(&nvp->lock);
}

/*
 * Give back what nvidia_p2p_get_pages() took, whoever holds it now, and
 * free @nvp.  Called by unpin() (DMA has stopped; @map NULL: the pin's) and
 * by pin() when it fails after get_pages (@map: its mapping, if any); no
 * lock held.
 */
static void hf_nv_release(struct hf_nv_pin *nvp,
			  struct nvidia_p2p_dma_mapping *map)
{
	bool unmap, own = false, put;

	mutex_lock(&nvp->lock);
	if (nvp->state == HF_NV_LIVE)
		map = nvp->map;
	if (nvp->state == HF_NV_SETUP || nvp->state == HF_NV_LIVE)
		nvp->state = HF_NV_UNMAPPING;
	/* Ours to unmap, unless a desktop callback took it (FREED). */
	unmap = map && (nvp->state == HF_NV_UNMAPPING ||
			nvp->state == HF_NV_ORPHANED);
	mutex_unlock(&nvp->lock);

	/* A callback arriving now takes over without waiting for us. */
	if (unmap)
		hf_nv_dma_unmap(nvp, map);

	mutex_lock(&nvp->lock);
	WRITE_ONCE(nvp->map, NULL);
	if (nvp->state == HF_NV_UNMAPPING)
		nvp->state = HF_NV_PUTTING;
	/* A callback that took over finishes first; it waits for nobody. */
	hf_nv_wait_cb(nvp);
	put = nvp->put_after_cb;
	switch (nvp->state) {
	case HF_NV_PUTTING:
		mutex_unlock(&nvp->lock);
		/* No lock held: put_pages may wait for, or run, the callback. */
		hf_nv_put_pages(nvp);
		put = false;
		mutex_lock(&nvp->lock);
		hf_nv_wait_cb(nvp);
		if (nvp->state == HF_NV_PUTTING) {
			/* put_pages gave the pages back, no callback ran. */
			nvp->state = HF_NV_FREED;
			own = true;
		}
		break;
	case HF_NV_ORPHANED:
		/* Tegra: the callback left the page table to us. */
		nvp->state = HF_NV_FREED;
		own = true;
		break;
	default:
		/* FREED: the callback freed it (put_after_cb: Tegra exit). */
		break;
	}
	mutex_unlock(&nvp->lock);

	if (own) {
		/* L4T releases the pages only in free_page_table. */
		if (HF_NV_CB_DEFERS)
			hf_nv_free_pt(nvp);
		else
			atomic_dec(&hf_nv_held);
	}
	if (put)
		hf_nv_put_pages(nvp);
	kfree(nvp);
}

/* Check the page table; called with nvp->lock, the pin in SETUP. */
static int hf_nv_check(struct hf_nv_pin *nvp)
	__must_hold(&nvp->lock)
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

/* Check @map; called with nvp->lock, the pin in SETUP. */
static int hf_nv_check_map(struct hf_nv_pin *nvp,
			   const struct nvidia_p2p_dma_mapping *map)
	__must_hold(&nvp->lock)
{
#ifdef NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE
	if (!NVIDIA_P2P_DMA_MAPPING_VERSION_COMPATIBLE(map)) {
		hf_pin_set_error(nvp->pin, "NVIDIA DMA mapping version 0x%x, built for 0x%x",
				 map->version, NVIDIA_P2P_DMA_MAPPING_VERSION);
		return -EPROTO;
	}
#endif
	if (!map->entries) {
		hf_pin_set_error(nvp->pin, "NVIDIA DMA mapping without entries");
		return -EPROTO;
	}
	return 0;
}

/*
 * The pin's segments from @map into @segs (room for @max); called with
 * nvp->lock, the pin in SETUP.  Loads and stores only.
 */
static int hf_nv_fill(struct hf_nv_pin *nvp,
		      const struct nvidia_p2p_dma_mapping *map,
		      struct hf_sg *segs, u32 max, u32 *nsegs)
	__must_hold(&nvp->lock)
{
	u32 i, n = 0, entries = min(map->entries, max);
	u64 left = nvp->len;

	for (i = 0; i < entries && left; i++) {
		u64 addr, len;

		hf_nv_map_seg(nvp, map, i, &addr, &len);
		len = min(len, left);
		hf_pin_add_seg(segs, &n, addr, len);
		left -= len;
	}
	if (left) {
		hf_pin_set_error(nvp->pin, "NVIDIA mapped %llu of %llu bytes at 0x%llx",
				 nvp->len - left, nvp->len, nvp->va);
		return -EPROTO;
	}
	*nsegs = n;
	return 0;
}

/*
 * Whether a free callback came during SETUP (the memory is going away).
 * Called with nvp->lock; while it returns false, and until the lock is
 * released, NVIDIA's page table and mapping stay valid.
 */
static bool hf_nv_gone(struct hf_nv_pin *nvp)
	__must_hold(&nvp->lock)
{
	return nvp->state != HF_NV_SETUP;
}

static int hf_nv_pin(struct hf_pin *pin, const struct hellofpga_pin *req)
{
	struct nvidia_p2p_dma_mapping *map = NULL;
	struct hf_sg *segs = NULL;
	struct hf_nv_pin *nvp;
	u32 entries = 0, n;
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
	mutex_init(&nvp->lock);
	init_waitqueue_head(&nvp->wq);
	nvp->state = HF_NV_SETUP;

	/* From here on the free callback may run, even before this returns. */
	atomic_inc(&hf_nv_held);
	ret = hf_nv_get_pages(nvp);
	if (ret) {
		atomic_dec(&hf_nv_held);
		kfree(nvp);
		return ret;
	}

	/* nvp->lock is held only around loads and stores, never across a call. */
	mutex_lock(&nvp->lock);
	if (hf_nv_gone(nvp))
		goto gone;
	ret = hf_nv_check(nvp);
	mutex_unlock(&nvp->lock);
	if (ret)
		goto release;

	ret = hf_nv_dma_map(nvp, &map);
	if (ret)
		map = NULL;
	mutex_lock(&nvp->lock);
	if (hf_nv_gone(nvp))
		goto gone;
	if (ret) {
		hf_pin_set_error(pin, "nvidia_p2p_dma_map_pages(0x%llx, %llu) failed (%d)",
				 nvp->va, nvp->len, ret);
	} else {
		ret = hf_nv_check_map(nvp, map);
		entries = map->entries;
	}
	mutex_unlock(&nvp->lock);
	if (ret)
		goto release;

	segs = kvmalloc_array(entries, sizeof(*segs), GFP_KERNEL);
	if (!segs) {
		ret = -ENOMEM;
		goto release;
	}
	mutex_lock(&nvp->lock);
	if (hf_nv_gone(nvp))
		goto gone;
	ret = hf_nv_fill(nvp, map, segs, entries, &n);
	if (!ret) {
		pin->segs = segs;
		pin->nsegs = n;
		pin->priv = nvp;
		WRITE_ONCE(nvp->map, map);
		nvp->state = HF_NV_LIVE;
	}
	mutex_unlock(&nvp->lock);
	if (!ret)
		return 0;

release:
	kvfree(segs);
	hf_nv_release(nvp, map);
	return ret;

gone:
	/*
	 * A free callback took the page table while we were setting it up
	 * (cudaFree() racing the pin): no DMA has started, none will.  Desktop:
	 * the page table and @map are gone; Tegra: hf_nv_release() frees them.
	 */
	mutex_unlock(&nvp->lock);
	kvfree(segs);
	hf_pin_set_error(pin, "CUDA memory at 0x%llx was freed while being pinned",
			 nvp->va);
	hf_nv_release(nvp, map);
	return -EFAULT;
}

static void hf_nv_unpin(struct hf_pin *pin)
{
	struct hf_nv_pin *nvp = pin->priv;

	if (!nvp)
		return;
	hf_nv_release(nvp, NULL);
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
MODULE_VERSION(HF_VERSION);
