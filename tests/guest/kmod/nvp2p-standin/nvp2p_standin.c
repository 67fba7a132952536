// SPDX-License-Identifier: GPL-2.0
/*
 * nvp2p-standin.ko: NVIDIA's nvidia_p2p API over ordinary guest memory, so
 * that hellofpga-nvp2p.ko runs its real code (pin, DMA, unpin, the free
 * callback) in a VM without a GPU.  It replaces nv-p2p-stub.ko: the same
 * symbols from the same nv-p2p.h (driver/nvp2p/nv-p2p-compat.h), so the
 * provider links against either.  Never load it next to nvidia.ko.
 *
 * Desktop flavor (nvidia.ko's nv-p2p.h, 535 and later), after the open
 * driver's nv-p2p.c:
 *   "GPU memory" is allocated by mmap(MAP_SHARED, offset 0) of
 *   /dev/nvp2p-standin: 64 KiB physically contiguous chunks (order-4
 *   pages), mapped with remap_pfn_range() like a BAR (no struct page
 *   behind the VMA for GUP); its user address is the "CUDA VA".
 *   get_pages()/get_pages_persistent() take a 64 KiB aligned range of such
 *   a mapping in the calling process and return one 64 KiB GPU page per
 *   chunk.  dma_map_pages() maps each chunk for the peer with
 *   dma_map_resource() (a BAR is not bounced by swiotlb; with an IOMMU it
 *   gets an IOVA), falling back to dma_map_page().  Unmapping the memory is
 *   cudaFree(): it calls the free callback of every page table on it,
 *   synchronously, then (after the callback returns) frees the page table
 *   and its DMA mappings itself, as the open driver does, where
 *   free_page_table() and free_dma_mapping() are no-ops.  RM's API lock is
 *   one semaphore: get_pages, get_pages_persistent, dma_map_pages,
 *   dma_unmap_pages, put_pages and put_pages_persistent take it, and
 *   cudaFree() and revocations hold it while they run free callbacks and
 *   free what the callbacks leave, as RM does; so put_pages() racing the
 *   callback waits for it and then returns 0, and a callback that waits for
 *   a caller of those functions deadlocks.  A caller gives up after wait_ms
 *   with -EDEADLK and counts a deadlock, so the guest does not hang.
 *   Persistent page tables have no callback: they keep freed memory alive
 *   until put_pages_persistent().  Module parameter persistent=0 makes
 *   get_pages_persistent() fail with -EOPNOTSUPP (as on MIG or vGPU).
 *
 * Tegra flavor (TEGRA=1, L4T's nv-p2p.h), after L4T's nvidia_p2p.c:
 *   get_pages() pins any page-aligned user memory (4 KiB pages,
 *   pin_user_pages(FOLL_LONGTERM)) and registers an MMU notifier whose
 *   release (process exit) and invalidate_range_start (munmap and the
 *   like, overlapping the range) call the free callback; put_pages()
 *   unregisters it, which calls the callback synchronously;
 *   free_page_table() unpins the pages; dma_map_pages() is dma_map_sg().
 *   Unlike L4T the page table structure itself is freed once its pages are
 *   released and its notifier is gone, so leaks show in the counters.
 *
 * Both: NVP2P_STANDIN_IOC_REVOKE (and debugfs revoke_all) fire free
 * callbacks on demand, synchronously or from a kernel worker after a
 * delay, in the middle of a stream of transfers; NVP2P_STANDIN_IOC_HOOK
 * fires one from a worker exactly while the provider is inside (or at the
 * end of) one of its nvidia_p2p calls (nvp2p_standin_uapi.h); counters
 * (NVP2P_STANDIN_IOC_STATS, debugfs counters) let tests check that nothing
 * leaks.  Misuse by the caller (put_pages from the callback, unknown page
 * tables, free_page_table outside the callback) is refused and counted,
 * with a warning.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../../../../driver/compat.h"
#include "nv-p2p-compat.h"
#include "nvp2p_standin_uapi.h"

#ifdef HF_NVP2P_TEGRA
#define SA_TEGRA	1
#else
#define SA_TEGRA	0
#endif

/* Who owns a page table's teardown. */
enum sa_state {
	SA_LIVE,	/* pinned; a callback or put_pages may take it */
	SA_REVOKING,	/* its free callback runs (in cb_task) */
	SA_DONE,	/* the callback has returned */
};

static atomic64_t sa_allocs, sa_alloc_bytes, sa_tables, sa_ptables;
static atomic64_t sa_maps, sa_callbacks, sa_gets, sa_puts, sa_fpt, sa_fdm;
static atomic64_t sa_refused, sa_revokes, sa_revokes_pending;

/* Protects the page table registry, their states and revocation works. */
static DEFINE_MUTEX(sa_lock);
static LIST_HEAD(sa_pts);
static LIST_HEAD(sa_revoke_works);
static struct workqueue_struct *sa_workq;

static int sa_refuse(int err, const char *fn, const char *why)
{
	atomic64_inc(&sa_refused);
	pr_warn_ratelimited("%s: refused (%d): %s\n", fn, err, why);
	return err;
}

static bool sa_overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static unsigned int wait_ms = 3000;
module_param(wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms,
		 "longest wait of an nvidia_p2p call for the RM lock (desktop) or for a hooked free callback, in ms (default 3000); a desktop call that gives up reports a deadlock");

static atomic64_t sa_deadlocks, sa_hooks;

/**
 * struct sa_hook - a one-shot NVP2P_STANDIN_IOC_HOOK.
 * @ref: the arming (until a call takes it), the hooked call and the
 *	worker hold one each
 * @work: fires the free callback
 * @mm: the process whose page table it fires (grabbed)
 * @va: start of the range
 * @len: its bytes
 * @point: NVP2P_STANDIN_HOOK_*
 * @after: NVP2P_STANDIN_HOOK_AFTER
 * @target: the page table it fires, once a call took it (compared only)
 * @locked: desktop: the worker holds the RM lock
 * @done: the worker is done: callback and teardown over, lock released
 */
struct sa_hook {
	struct kref ref;
	struct work_struct work;
	struct mm_struct *mm;
	u64 va;
	u64 len;
	u32 point;
	bool after;
	const struct nvidia_p2p_page_table *target;
	struct completion locked;
	struct completion done;
};

/* The armed hook, under sa_lock. */
static struct sa_hook *sa_hook_armed;

static void sa_hook_fn(struct work_struct *w);

static void sa_hook_release(struct kref *ref)
{
	struct sa_hook *h = container_of(ref, struct sa_hook, ref);

	mmdrop(h->mm);
	kfree(h);
}

static void sa_hook_put(struct sa_hook *h)
{
	if (h)
		kref_put(&h->ref, sa_hook_release);
}

/*
 * Take the armed hook of @point if it matches a page table of @mm at
 * [@va, @va + @len); the arming's reference goes to the caller.
 */
static struct sa_hook *sa_hook_match(u32 point,
				     const struct nvidia_p2p_page_table *pt,
				     struct mm_struct *mm, u64 va, u64 len)
{
	struct sa_hook *h = sa_hook_armed;

	lockdep_assert_held(&sa_lock);
	if (!h || h->point != point || h->mm != mm ||
	    !sa_overlaps(va, len, h->va, h->len))
		return NULL;
	sa_hook_armed = NULL;
	h->target = pt;
	return h;
}

/* Let the worker fire the hook's callback. */
static void sa_hook_start(struct sa_hook *h)
{
	kref_get(&h->ref);
	queue_work(sa_workq, &h->work);
}

/* Wait (at most wait_ms) for a completion of a hook; false on timeout. */
static bool sa_hook_wait(struct completion *c)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(wait_ms));
}

static int sa_hook_arm(const struct nvp2p_standin_hook *in)
{
	struct sa_hook *h = NULL, *old;

	if ((in->flags & ~NVP2P_STANDIN_HOOK_AFTER) ||
	    in->addr + in->size < in->addr)
		return -EINVAL;
	if (in->size) {
		switch (in->point) {
		case NVP2P_STANDIN_HOOK_DMA_MAP:
			break;
		case NVP2P_STANDIN_HOOK_DMA_UNMAP:
		case NVP2P_STANDIN_HOOK_PUT_PAGES:
			if (in->flags & NVP2P_STANDIN_HOOK_AFTER)
				return -EINVAL;
			/* L4T's put_pages runs the callback itself. */
			if (SA_TEGRA && in->point == NVP2P_STANDIN_HOOK_PUT_PAGES)
				return -EOPNOTSUPP;
			break;
		default:
			return -EINVAL;
		}
		h = kzalloc(sizeof(*h), GFP_KERNEL);
		if (!h)
			return -ENOMEM;
		kref_init(&h->ref);
		INIT_WORK(&h->work, sa_hook_fn);
		init_completion(&h->locked);
		init_completion(&h->done);
		mmgrab(current->mm);
		h->mm = current->mm;
		h->va = in->addr;
		h->len = in->size;
		h->point = in->point;
		h->after = in->flags & NVP2P_STANDIN_HOOK_AFTER;
	}
	mutex_lock(&sa_lock);
	old = sa_hook_armed;
	sa_hook_armed = h;
	mutex_unlock(&sa_lock);
	sa_hook_put(old);
	return 0;
}

#ifndef HF_NVP2P_TEGRA

/* ==== desktop ========================================================= */

#define SA_GPU_PAGE	SZ_64K
#define SA_CHUNK_ORDER	(16 - PAGE_SHIFT)

static unsigned int max_mb = 1024;
module_param(max_mb, uint, 0644);
MODULE_PARM_DESC(max_mb, "most MiB of GPU memory allocated at once (default 1024)");

static bool persistent = true;
module_param(persistent, bool, 0644);
MODULE_PARM_DESC(persistent,
		 "offer nvidia_p2p_get_pages_persistent() (default 1; 0: -EOPNOTSUPP, as on MIG and vGPU)");

static bool dma_resource = true;
module_param(dma_resource, bool, 0644);
MODULE_PARM_DESC(dma_resource,
		 "map GPU pages with dma_map_resource() like a BAR (default 1; 0: dma_map_page())");

#ifdef HF_NV_HAVE_CAP_PERSISTENT_PAGES
int nvidia_p2p_cap_persistent_pages = 1;
EXPORT_SYMBOL(nvidia_p2p_cap_persistent_pages);
#endif

/**
 * struct sa_alloc - "GPU memory": one mapping of the device.
 * @ref: the mapping and each page table on it hold one
 * @maps: VMAs of it (1 but for a moment in mremap)
 * @freed: unmapped: no new page table on it
 * @size: bytes
 * @nchunks: 64 KiB chunks
 * @chunks: their order-4 pages
 */
struct sa_alloc {
	struct kref ref;
	int maps;
	bool freed;
	u64 size;
	u32 nchunks;
	struct page *chunks[];
};

/**
 * struct sa_map - a DMA mapping of a page table.
 * @node: in sa_pt.maps
 * @dev: the peer
 * @resource: mapped with dma_map_resource()
 * @map: what the caller sees
 */
struct sa_map {
	struct list_head node;
	struct device *dev;
	bool resource;
	struct nvidia_p2p_dma_mapping map;
};

/**
 * struct sa_pt - a page table from get_pages.
 * @node: in sa_pts
 * @maps: its struct sa_map
 * @alloc: the memory (referenced)
 * @mm: the process that pinned it (identity only, for revocation)
 * @va: CUDA VA
 * @len: bytes
 * @persistent: from get_pages_persistent (no callback)
 * @state: enum sa_state
 * @cb_task: the task running the free callback
 * @cb: free callback
 * @data: its argument
 * @pt: what the caller sees
 * @uuid: "GPU UUID"
 * @pagep: @pt.pages
 * @pages: the GPU pages
 */
struct sa_pt {
	struct list_head node;
	struct list_head maps;
	struct sa_alloc *alloc;
	struct mm_struct *mm;
	u64 va;
	u64 len;
	bool persistent;
	enum sa_state state;
	struct task_struct *cb_task;
	void (*cb)(void *data);
	void *data;
	struct nvidia_p2p_page_table pt;
	u8 uuid[NVIDIA_P2P_GPU_UUID_LEN];
	struct nvidia_p2p_page **pagep;
	struct nvidia_p2p_page pages[];
};

static const struct vm_operations_struct sa_vm_ops;

/*
 * RM's API lock (rmapiLockAcquire() in the open driver): the nvidia_p2p
 * calls that enter RM take it (get_pages, get_pages_persistent,
 * dma_map_pages, put_pages, put_pages_persistent; dma_unmap_pages too, as
 * it did through rm_p2p_dma_unmap_pages() in older drivers), and RM holds
 * it while it runs free callbacks and frees their page tables.  A caller
 * that waits for it longer than wait_ms gives up with -EDEADLK and counts
 * a deadlock (lockdep is off in the test kernel), so a provider whose
 * callback waits for a caller of this API fails a test instead of hanging
 * the guest.
 */
static struct semaphore sa_rm_sem = __SEMAPHORE_INITIALIZER(sa_rm_sem, 1);
static struct task_struct *sa_rm_owner;

/* Page tables a hook fired: gone, still recognized; freed at unload. */
static LIST_HEAD(sa_zombies);

/* RM lock for an nvidia_p2p call; -EDEADLK when it does not come. */
static int sa_rm_lock(const char *fn)
{
	if (READ_ONCE(sa_rm_owner) == current)
		return sa_refuse(-EDEADLK, fn,
				 "called with the RM lock held, from a free callback");
	if (down_timeout(&sa_rm_sem, msecs_to_jiffies(wait_ms))) {
		atomic64_inc(&sa_deadlocks);
		pr_err("%s: the RM lock is still held after %u ms: deadlock (its holder waits for this caller); giving up\n",
		       fn, wait_ms);
		return -EDEADLK;
	}
	WRITE_ONCE(sa_rm_owner, current);
	return 0;
}

/* RM lock for RM's own paths (cudaFree, revocations): they wait. */
static void sa_rm_lock_rm(void)
{
	down(&sa_rm_sem);
	WRITE_ONCE(sa_rm_owner, current);
}

static void sa_rm_unlock(void)
{
	WRITE_ONCE(sa_rm_owner, NULL);
	up(&sa_rm_sem);
}

static void sa_alloc_release(struct kref *ref)
{
	struct sa_alloc *a = container_of(ref, struct sa_alloc, ref);
	u32 i;

	for (i = 0; i < a->nchunks; i++)
		if (a->chunks[i])
			__free_pages(a->chunks[i], SA_CHUNK_ORDER);
	atomic64_dec(&sa_allocs);
	atomic64_sub(a->size, &sa_alloc_bytes);
	kvfree(a);
}

static struct sa_alloc *sa_alloc_create(u64 size)
{
	u32 n = size / SA_GPU_PAGE, i;
	struct sa_alloc *a;

	if (atomic64_add_return(size, &sa_alloc_bytes) > (u64)max_mb << 20) {
		atomic64_sub(size, &sa_alloc_bytes);
		return NULL;
	}
	atomic64_inc(&sa_allocs);
	a = kvzalloc(struct_size(a, chunks, n), GFP_KERNEL);
	if (!a) {
		atomic64_dec(&sa_allocs);
		atomic64_sub(size, &sa_alloc_bytes);
		return NULL;
	}
	kref_init(&a->ref);
	a->size = size;
	a->nchunks = n;
	for (i = 0; i < n; i++) {
		a->chunks[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO |
					   __GFP_NOWARN, SA_CHUNK_ORDER);
		if (!a->chunks[i]) {
			kref_put(&a->ref, sa_alloc_release);
			return NULL;
		}
	}
	return a;
}

static struct sa_pt *sa_find(const struct nvidia_p2p_page_table *pt)
{
	struct sa_pt *p;

	lockdep_assert_held(&sa_lock);
	list_for_each_entry(p, &sa_pts, node)
		if (&p->pt == pt)
			return p;
	return NULL;
}

static bool sa_is_zombie(const struct nvidia_p2p_page_table *pt)
{
	struct sa_pt *p;

	lockdep_assert_held(&sa_lock);
	list_for_each_entry(p, &sa_zombies, node)
		if (&p->pt == pt)
			return true;
	return false;
}

/* Undo sa_dma_map() of one GPU page. */
static void sa_dma_unmap(struct device *dev, dma_addr_t addr, bool resource)
{
	if (resource)
		dma_unmap_resource(dev, addr, SA_GPU_PAGE, DMA_BIDIRECTIONAL, 0);
	else
		dma_unmap_page(dev, addr, SA_GPU_PAGE, DMA_BIDIRECTIONAL);
}

/* Undo the DMA mapping of @m; the structure stays. */
static void sa_map_unmap(struct sa_map *m)
{
	u32 i;

	for (i = 0; i < m->map.entries; i++)
		sa_dma_unmap(m->dev, m->map.dma_addresses[i], m->resource);
	kvfree(m->map.dma_addresses);
	m->map.dma_addresses = NULL;
	m->map.entries = 0;
	m->map.version = 0;
	atomic64_dec(&sa_maps);
}

static void sa_map_free(struct sa_map *m)
{
	sa_map_unmap(m);
	kfree(m);
}

/*
 * Free a page table taken out of the registry and its DMA mappings, as
 * NVIDIA's driver does after the free callback or in put_pages.  @bury:
 * keep the structures, emptied and poisoned, among the zombies, so that a
 * caller still holding them reads nothing valid and every later use of
 * them is refused.
 */
static void sa_pt_destroy(struct sa_pt *p, bool bury)
{
	struct sa_alloc *a = p->alloc;
	struct sa_map *m, *tmp;

	list_for_each_entry_safe(m, tmp, &p->maps, node) {
		if (bury) {
			sa_map_unmap(m);
			continue;
		}
		list_del(&m->node);
		sa_map_free(m);
	}
	atomic64_dec(&sa_tables);
	if (p->persistent)
		atomic64_dec(&sa_ptables);
	p->alloc = NULL;
	kref_put(&a->ref, sa_alloc_release);
	if (bury) {
		p->pt.version = 0;
		p->pt.entries = 0;
		p->pt.page_size = NVIDIA_P2P_PAGE_SIZE_COUNT;
		mutex_lock(&sa_lock);
		list_add_tail(&p->node, &sa_zombies);
		mutex_unlock(&sa_lock);
		return;
	}
	kvfree(p->pagep);
	kvfree(p);
}

/*
 * Run the free callback of @p, which the caller moved to SA_REVOKING (with
 * cb_task = current) under sa_lock, with the RM lock held; then free the
 * page table and its mappings, as RM does after the callback (@bury: see
 * sa_pt_destroy()).
 */
static void sa_fire(struct sa_pt *p, bool bury)
{
	p->cb(p->data);
	atomic64_inc(&sa_callbacks);
	mutex_lock(&sa_lock);
	p->cb_task = NULL;
	p->state = SA_DONE;
	list_del(&p->node);
	mutex_unlock(&sa_lock);
	sa_pt_destroy(p, bury);
}

/* Take a live callback page table matching (@mm NULL: any) for firing. */
static struct sa_pt *sa_take_live(struct mm_struct *mm, struct sa_alloc *a,
				  u64 va, u64 len)
{
	struct sa_pt *p;

	lockdep_assert_held(&sa_lock);
	list_for_each_entry(p, &sa_pts, node) {
		if (p->persistent || p->state != SA_LIVE ||
		    (mm && p->mm != mm) || (a && p->alloc != a) ||
		    !sa_overlaps(p->va, p->len, va, len))
			continue;
		p->state = SA_REVOKING;
		p->cb_task = current;
		return p;
	}
	return NULL;
}

/*
 * cudaFree(): the last mapping of @a went; called from VMA close.  RM
 * fires every callback on the memory under its lock.
 */
static void sa_alloc_free(struct sa_alloc *a)
{
	struct sa_pt *p;

	sa_rm_lock_rm();
	for (;;) {
		mutex_lock(&sa_lock);
		p = sa_take_live(NULL, a, 0, U64_MAX);
		mutex_unlock(&sa_lock);
		if (!p)
			break;
		sa_fire(p, false);
	}
	sa_rm_unlock();
}

/* Fire one live callback page table of @mm in range; false when none. */
static bool sa_revoke_next(struct mm_struct *mm, u64 va, u64 len)
{
	struct sa_pt *p;

	bool fired;

	sa_rm_lock_rm();
	mutex_lock(&sa_lock);
	p = sa_take_live(mm, NULL, va, len);
	mutex_unlock(&sa_lock);
	fired = p;
	if (p)
		sa_fire(p, false);
	sa_rm_unlock();
	return fired;
}

/* The hook's worker: RM frees the memory of the hooked page table now. */
static void sa_hook_fn(struct work_struct *w)
{
	struct sa_hook *h = container_of(w, struct sa_hook, work);
	struct sa_pt *p;

	sa_rm_lock_rm();
	complete(&h->locked);
	mutex_lock(&sa_lock);
	p = sa_find(h->target);
	if (p && p->state == SA_LIVE && !p->persistent) {
		p->state = SA_REVOKING;
		p->cb_task = current;
	} else {
		p = NULL;
	}
	mutex_unlock(&sa_lock);
	if (p) {
		atomic64_inc(&sa_hooks);
		sa_fire(p, true);
	} else {
		pr_warn("hook: the page table went before its callback could fire\n");
	}
	sa_rm_unlock();
	complete(&h->done);
	sa_hook_put(h);
}

/* The armed hook of @point if it matches the callback page table @pt. */
static struct sa_hook *sa_hook_take(u32 point,
				    const struct nvidia_p2p_page_table *pt)
{
	struct sa_hook *h = NULL;
	struct sa_pt *p;

	mutex_lock(&sa_lock);
	p = sa_hook_armed ? sa_find(pt) : NULL;
	if (p && !p->persistent)
		h = sa_hook_match(point, pt, p->mm, p->va, p->len);
	mutex_unlock(&sa_lock);
	return h;
}

/*
 * A hooked call on entry: the worker takes the RM lock and fires; the call
 * goes on (to wait for the lock) once the worker holds it.
 */
static void sa_hook_enter(struct sa_hook *h)
{
	if (!h || h->after)
		return;
	sa_hook_start(h);
	if (!sa_hook_wait(&h->locked))
		pr_warn("hook: the worker did not get the RM lock in %u ms\n",
			wait_ms);
}

/*
 * A hooked call about to return.  AFTER: now the callback fires, and the
 * call returns once it and the teardown are over; a callback that does not
 * return waits for this caller: a deadlock.  Entry hooks: the call had the
 * RM lock (@locked) after the worker, which is finishing.
 */
static void sa_hook_leave(struct sa_hook *h, bool locked)
{
	if (!h)
		return;
	if (h->after) {
		sa_hook_start(h);
		if (!sa_hook_wait(&h->done)) {
			atomic64_inc(&sa_deadlocks);
			pr_err("hook: the free callback has not returned after %u ms: deadlock (it waits for the caller of nvidia_p2p_dma_map_pages)\n",
			       wait_ms);
		}
	} else if (locked) {
		sa_hook_wait(&h->done);
	}
	sa_hook_put(h);
}

static void sa_vm_open(struct vm_area_struct *vma)
{
	struct sa_alloc *a = vma->vm_private_data;

	kref_get(&a->ref);
	mutex_lock(&sa_lock);
	a->maps++;
	mutex_unlock(&sa_lock);
}

static void sa_vm_close(struct vm_area_struct *vma)
{
	struct sa_alloc *a = vma->vm_private_data;
	bool last;

	mutex_lock(&sa_lock);
	last = !--a->maps;
	if (last)
		a->freed = true;
	mutex_unlock(&sa_lock);
	if (last)
		sa_alloc_free(a);
	kref_put(&a->ref, sa_alloc_release);
}

static int sa_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;	/* GPU memory is freed as a whole */
}

static int sa_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;	/* a CUDA VA does not move */
}

static const struct vm_operations_struct sa_vm_ops = {
	.open = sa_vm_open,
	.close = sa_vm_close,
	.may_split = sa_vm_may_split,
	.mremap = sa_vm_mremap,
};

static int sa_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 len = vma->vm_end - vma->vm_start;
	struct sa_alloc *a;
	u32 i;
	int ret;

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff ||
	    !IS_ALIGNED(len, SA_GPU_PAGE))
		return sa_refuse(-EINVAL, "mmap",
				 "GPU memory is a MAP_SHARED mapping at offset 0, a multiple of 64 KiB");
	a = sa_alloc_create(len);
	if (!a)
		return -ENOMEM;
	hf_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < a->nchunks; i++) {
		ret = remap_pfn_range(vma, vma->vm_start + (u64)i * SA_GPU_PAGE,
				      page_to_pfn(a->chunks[i]), SA_GPU_PAGE,
				      vma->vm_page_prot);
		if (ret) {
			kref_put(&a->ref, sa_alloc_release);
			return ret;
		}
	}
	a->maps = 1;
	vma->vm_private_data = a;
	vma->vm_ops = &sa_vm_ops;
	return 0;
}

static int sa_get(u64 va, u64 len, struct nvidia_p2p_page_table **out,
		  void (*cb)(void *data), void *data, bool persist,
		  const char *fn)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct sa_alloc *a;
	struct sa_pt *p;
	u32 n, i, first;
	int ret;

	if (!out)
		return sa_refuse(-EINVAL, fn, "page_table is NULL");
	*out = NULL;
	if (!len || !IS_ALIGNED(va | len, SA_GPU_PAGE) || va + len < va ||
	    len / SA_GPU_PAGE > U32_MAX || !mm)
		return sa_refuse(-EINVAL, fn, "address and length must be 64 KiB aligned");
	n = len / SA_GPU_PAGE;
	p = kvzalloc(struct_size(p, pages, n), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->pagep = kvcalloc(n, sizeof(*p->pagep), GFP_KERNEL);
	if (!p->pagep) {
		kvfree(p);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&p->maps);
	p->mm = mm;
	p->va = va;
	p->len = len;
	p->persistent = persist;
	p->cb = cb;
	p->data = data;
	p->state = SA_LIVE;
	memcpy(p->uuid, "nvp2p-standin-00", sizeof(p->uuid));
	p->pt.version = NVIDIA_P2P_PAGE_TABLE_VERSION;
	p->pt.page_size = NVIDIA_P2P_PAGE_SIZE_64KB;
	p->pt.pages = p->pagep;
	p->pt.entries = n;
	p->pt.gpu_uuid = p->uuid;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, va);
	if (!vma || vma->vm_ops != &sa_vm_ops || len > vma->vm_end - va ||
	    !IS_ALIGNED(vma->vm_start, SA_GPU_PAGE)) {
		mmap_read_unlock(mm);
		kvfree(p->pagep);
		kvfree(p);
		return sa_refuse(-EINVAL, fn,
				 "not GPU memory (a 64 KiB aligned mapping of the device)");
	}
	a = vma->vm_private_data;
	first = (va - vma->vm_start) / SA_GPU_PAGE;
	for (i = 0; i < n; i++) {
		p->pages[i].physical_address =
			page_to_phys(a->chunks[first + i]);
		p->pagep[i] = &p->pages[i];
	}
	ret = sa_rm_lock(fn);
	if (ret) {
		mmap_read_unlock(mm);
		kvfree(p->pagep);
		kvfree(p);
		return ret;
	}
	mutex_lock(&sa_lock);
	if (a->freed) {
		mutex_unlock(&sa_lock);
		sa_rm_unlock();
		mmap_read_unlock(mm);
		kvfree(p->pagep);
		kvfree(p);
		return sa_refuse(-EINVAL, fn, "memory being freed");
	}
	kref_get(&a->ref);
	p->alloc = a;
	list_add_tail(&p->node, &sa_pts);
	atomic64_inc(&sa_tables);
	if (persist)
		atomic64_inc(&sa_ptables);
	atomic64_inc(&sa_gets);
	/* Filled in before the callback can fire, as NVIDIA's driver does. */
	*out = &p->pt;
	mutex_unlock(&sa_lock);
	sa_rm_unlock();
	mmap_read_unlock(mm);
	return 0;
}

static int sa_put(struct nvidia_p2p_page_table *pt, u64 va, bool persist,
		  const char *fn)
{
	struct sa_hook *h = NULL;
	struct sa_pt *p;
	int ret;

	if (!pt)
		return 0;
	if (!persist)
		h = sa_hook_take(NVP2P_STANDIN_HOOK_PUT_PAGES, pt);
	sa_hook_enter(h);
	ret = sa_rm_lock(fn);
	if (ret) {
		sa_hook_leave(h, false);
		return ret;
	}
	mutex_lock(&sa_lock);
	p = sa_find(pt);
	if (!p) {
		mutex_unlock(&sa_lock);
		sa_rm_unlock();
		sa_hook_leave(h, true);
		if (persist)
			return sa_refuse(-EINVAL, fn, "unknown page table");
		/* Its callback has freed it: RM finds nothing, returns 0. */
		atomic64_inc(&sa_puts);
		return 0;
	}
	if (p->persistent != persist || p->va != va) {
		mutex_unlock(&sa_lock);
		sa_rm_unlock();
		sa_hook_leave(h, true);
		return sa_refuse(-EINVAL, fn,
				 p->va != va ? "address differs from get_pages" :
				 "persistent and callback API mixed");
	}
	p->state = SA_DONE;
	list_del(&p->node);
	mutex_unlock(&sa_lock);
	sa_rm_unlock();
	sa_hook_leave(h, true);
	/* Unlinked from RM: the page table and its mappings go. */
	sa_pt_destroy(p, false);
	atomic64_inc(&sa_puts);
	return 0;
}

/* The exported API: the stub's definitions (same types, same CRCs). */

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 u64 length, struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	if (!free_callback)
		return sa_refuse(-EINVAL, __func__, "free_callback is NULL");
	return sa_get(virtual_address, length, page_table, free_callback,
		      data, false, __func__);
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

#ifdef NVIDIA_P2P_CAP_GET_PAGES_PERSISTENT_API
int nvidia_p2p_get_pages_persistent(u64 virtual_address, u64 length,
				    struct nvidia_p2p_page_table **page_table,
				    u32 flags)
{
	if (flags)
		return sa_refuse(-EINVAL, __func__, "flags must be 0");
	if (!persistent) {
		if (page_table)
			*page_table = NULL;
		return -EOPNOTSUPP;
	}
	return sa_get(virtual_address, length, page_table, NULL, NULL, true,
		      __func__);
}
EXPORT_SYMBOL(nvidia_p2p_get_pages_persistent);

int nvidia_p2p_put_pages_persistent(u64 virtual_address,
				    struct nvidia_p2p_page_table *page_table,
				    u32 flags)
{
	if (flags)
		return sa_refuse(-EINVAL, __func__, "flags must be 0");
	return sa_put(page_table, virtual_address, true, __func__);
}
EXPORT_SYMBOL(nvidia_p2p_put_pages_persistent);
#endif

int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	return sa_put(page_table, virtual_address, false, __func__);
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

/* A no-op in the open driver; meant for the free callback only. */
int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	struct sa_pt *p;
	bool ok;

	atomic64_inc(&sa_fpt);
	if (!page_table)
		return 0;
	mutex_lock(&sa_lock);
	p = sa_find(page_table);
	ok = p && p->cb_task == current;
	mutex_unlock(&sa_lock);
	if (!ok)
		return sa_refuse(-EINVAL, __func__,
				 "not a page table whose free callback runs in this task");
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

static dma_addr_t sa_dma_map(struct device *dev, phys_addr_t phys,
			     bool *resource)
{
	dma_addr_t addr;

	if (dma_resource) {
		addr = dma_map_resource(dev, phys, SA_GPU_PAGE,
					DMA_BIDIRECTIONAL, 0);
		if (!dma_mapping_error(dev, addr)) {
			*resource = true;
			return addr;
		}
		pr_info_once("dma_map_resource() of RAM refused: mapping GPU pages with dma_map_page()\n");
		dma_resource = false;
	}
	*resource = false;
	return dma_map_page(dev, pfn_to_page(PHYS_PFN(phys)), 0, SA_GPU_PAGE,
			    DMA_BIDIRECTIONAL);
}

/* Map the GPU pages of @pt for @peer; called with the RM lock. */
static struct sa_map *sa_map_create(struct pci_dev *peer,
				    struct nvidia_p2p_page_table *pt)
{
	u32 i, n = pt->entries;
	bool res = false;
	struct sa_map *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	m->map.dma_addresses = kvcalloc(n, sizeof(u64), GFP_KERNEL);
	if (!m->map.dma_addresses) {
		kfree(m);
		return NULL;
	}
	atomic64_inc(&sa_maps);
	m->dev = &peer->dev;
	m->resource = dma_resource;
	for (i = 0; i < n; i++) {
		dma_addr_t a = sa_dma_map(m->dev,
					  pt->pages[i]->physical_address,
					  &res);

		if (dma_mapping_error(m->dev, a) || (i && res != m->resource)) {
			if (!dma_mapping_error(m->dev, a))
				sa_dma_unmap(m->dev, a, res);
			m->map.entries = i;
			sa_map_free(m);
			return NULL;
		}
		m->resource = res;
		m->map.dma_addresses[i] = a;
	}
	m->map.version = NVIDIA_P2P_DMA_MAPPING_VERSION;
	m->map.page_size_type = NVIDIA_P2P_PAGE_SIZE_64KB;
	m->map.entries = n;
	m->map.private = m;
	m->map.pci_dev = peer;
	return m;
}

/*
 * How dma_map_pages and dma_unmap_pages (@fn) begin: the hook armed for
 * @point on @pt, if any, is entered (*hook, for sa_hook_leave()) and the
 * RM lock taken; when the lock does not come, the hook is left again.
 */
static int sa_dma_call_lock(const char *fn, u32 point,
			    const struct nvidia_p2p_page_table *pt,
			    struct sa_hook **hook)
{
	struct sa_hook *h = sa_hook_take(point, pt);
	int ret;

	sa_hook_enter(h);
	ret = sa_rm_lock(fn);
	if (ret)
		sa_hook_leave(h, false);
	*hook = h;
	return ret;
}

/*
 * @fn was given a page table that is not registered.  @hooked and @zombie:
 * the test's hook fired its free callback while @fn waited for the RM
 * lock, and @fn returns what RM would, @freed; otherwise the provider used
 * a page table it must not.
 */
static int sa_pt_gone(const char *fn, bool hooked, bool zombie, int freed)
{
	if (hooked && zombie) {
		pr_info("%s: the page table's free callback ran while this call waited for the RM lock\n",
			fn);
		return freed;
	}
	return sa_refuse(-EINVAL, fn, zombie ?
			 "page table used after its free callback returned" :
			 "unknown page table");
}

int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping)
{
	struct sa_hook *h;
	struct sa_map *m;
	struct sa_pt *p;
	bool zombie;
	int ret;

	if (!peer || !page_table || !dma_mapping)
		return sa_refuse(-EINVAL, __func__, "NULL argument");
	*dma_mapping = NULL;
	ret = sa_dma_call_lock(__func__, NVP2P_STANDIN_HOOK_DMA_MAP, page_table,
			       &h);
	if (ret)
		return ret;
	mutex_lock(&sa_lock);
	p = sa_find(page_table);
	zombie = !p && sa_is_zombie(page_table);
	mutex_unlock(&sa_lock);
	if (!p) {
		/* NVIDIA's driver would go on with freed memory: EFAULT. */
		ret = sa_pt_gone(__func__, h, zombie, -EFAULT);
		goto out;
	}
	m = sa_map_create(peer, page_table);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&sa_lock);
	list_add_tail(&m->node, &p->maps);
	mutex_unlock(&sa_lock);
	*dma_mapping = &m->map;
out:
	sa_rm_unlock();
	sa_hook_leave(h, true);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping)
{
	struct sa_map *m, *found = NULL;
	struct sa_hook *h;
	struct sa_pt *p;
	bool zombie;
	int ret;

	if (!peer || !page_table || !dma_mapping)
		return sa_refuse(-EINVAL, __func__, "NULL argument");
	ret = sa_dma_call_lock(__func__, NVP2P_STANDIN_HOOK_DMA_UNMAP,
			       page_table, &h);
	if (ret)
		return ret;
	mutex_lock(&sa_lock);
	p = sa_find(page_table);
	zombie = !p && sa_is_zombie(page_table);
	if (p) {
		list_for_each_entry(m, &p->maps, node) {
			if (&m->map == dma_mapping) {
				found = m;
				list_del(&m->node);
				break;
			}
		}
	}
	mutex_unlock(&sa_lock);
	sa_rm_unlock();
	sa_hook_leave(h, true);
	if (!p)	/* freed with its page table while we waited: RM returns 0 */
		return sa_pt_gone(__func__, h, zombie, 0);
	if (!found)
		return sa_refuse(-EINVAL, __func__,
				 "not a mapping of this page table");
	if (peer != dma_mapping->pci_dev)
		sa_refuse(-EINVAL, __func__, "peer differs from dma_map_pages");
	sa_map_free(found);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

/* A no-op in the open driver; meant for the free callback only. */
int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	struct sa_map *m;
	struct sa_pt *p;
	bool ok = false;

	atomic64_inc(&sa_fdm);
	if (!dma_mapping)
		return 0;
	mutex_lock(&sa_lock);
	list_for_each_entry(p, &sa_pts, node) {
		if (p->cb_task != current)
			continue;
		list_for_each_entry(m, &p->maps, node)
			ok |= &m->map == dma_mapping;
	}
	mutex_unlock(&sa_lock);
	if (!ok)
		return sa_refuse(-EINVAL, __func__,
				 "not a mapping of a page table whose free callback runs in this task");
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_free_dma_mapping);

static void sa_flavor_exit(void)
{
	struct sa_pt *p, *tmp;
	struct sa_map *m, *mtmp;

	flush_workqueue(sa_workq);	/* hook workers */
	list_for_each_entry_safe(p, tmp, &sa_zombies, node) {
		list_for_each_entry_safe(m, mtmp, &p->maps, node)
			kfree(m);
		kvfree(p->pagep);
		kvfree(p);
	}
}

#else /* HF_NVP2P_TEGRA */

/* ==== Tegra =========================================================== */

/* Waiters for a page table's callback to return. */
static DECLARE_WAIT_QUEUE_HEAD(sa_wq);

/**
 * struct sa_tpt - a Tegra page table.
 * @pt: what the caller sees (holds the MMU notifier)
 * @node: in sa_pts
 * @refs: the pinned pages, the notifier and temporary users hold one
 * @state: enum sa_state
 * @cb_task: the task running the free callback
 * @mn_live: the notifier is registered and nobody is dropping it
 * @map: the DMA mapping, while NVIDIA_P2P_MAPPED
 * @put_work: drops the notifier's reference out of SRCU callback context
 */
struct sa_tpt {
	struct nvidia_p2p_page_table pt;
	struct list_head node;
	refcount_t refs;
	enum sa_state state;
	struct task_struct *cb_task;
	bool mn_live;
	struct nvidia_p2p_dma_mapping *map;
	struct work_struct put_work;
};

static struct sa_tpt *sa_find(const struct nvidia_p2p_page_table *pt)
{
	struct sa_tpt *t;

	lockdep_assert_held(&sa_lock);
	list_for_each_entry(t, &sa_pts, node)
		if (&t->pt == pt)
			return t;
	return NULL;
}

static void sa_t_put(struct sa_tpt *t)
{
	if (!refcount_dec_and_test(&t->refs))
		return;
	mutex_lock(&sa_lock);
	list_del(&t->node);
	mutex_unlock(&sa_lock);
	kfree(t);
	atomic64_dec(&sa_tables);
}

static void sa_t_put_work(struct work_struct *w)
{
	sa_t_put(container_of(w, struct sa_tpt, put_work));
}

/* Call the free callback once; true when this call ran it. */
static bool sa_t_fire(struct sa_tpt *t)
{
	mutex_lock(&sa_lock);
	while (t->state == SA_REVOKING && t->cb_task != current) {
		mutex_unlock(&sa_lock);
		wait_event(sa_wq, READ_ONCE(t->state) != SA_REVOKING);
		mutex_lock(&sa_lock);
	}
	if (t->state != SA_LIVE) {
		mutex_unlock(&sa_lock);
		return false;
	}
	t->state = SA_REVOKING;
	t->cb_task = current;
	mutex_unlock(&sa_lock);
	t->pt.free_callback(t->pt.data);
	atomic64_inc(&sa_callbacks);
	mutex_lock(&sa_lock);
	t->state = SA_DONE;
	t->cb_task = NULL;
	mutex_unlock(&sa_lock);
	wake_up_all(&sa_wq);
	return true;
}

/* After a callback not run by put_pages: drop the notifier from anywhere. */
static void sa_t_drop_notifier(struct sa_tpt *t)
{
	bool drop;

	mutex_lock(&sa_lock);
	drop = t->mn_live;
	t->mn_live = false;
	mutex_unlock(&sa_lock);
	if (drop)
		mmu_notifier_put(&t->pt.mn);	/* sa_mn_free() follows */
}

static void sa_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	sa_t_fire(container_of(mn, struct sa_tpt, pt.mn));
}

static int sa_mn_invalidate_start(struct mmu_notifier *mn,
				  const struct mmu_notifier_range *range)
{
	struct sa_tpt *t = container_of(mn, struct sa_tpt, pt.mn);

	if (!sa_overlaps(range->start, range->end - range->start,
			 t->pt.vaddr, t->pt.size))
		return 0;
	if (!mmu_notifier_range_blockable(range))
		return -EAGAIN;
	if (sa_t_fire(t))
		sa_t_drop_notifier(t);
	return 0;
}

/* SRCU callback, BHs off: the last reference is dropped by a worker. */
static void sa_mn_free(struct mmu_notifier *mn)
{
	struct sa_tpt *t = container_of(mn, struct sa_tpt, pt.mn);

	queue_work(sa_workq, &t->put_work);
}

static const struct mmu_notifier_ops sa_mn_ops = {
	.release = sa_mn_release,
	.invalidate_range_start = sa_mn_invalidate_start,
	.free_notifier = sa_mn_free,
};

/* Fire one live page table of @mm in range (NULL: any); false when none. */
static bool sa_revoke_next(struct mm_struct *mm, u64 va, u64 len)
{
	struct sa_tpt *t, *found = NULL;

	mutex_lock(&sa_lock);
	list_for_each_entry(t, &sa_pts, node) {
		if (t->state != SA_LIVE || (mm && t->pt.mm != mm) ||
		    !sa_overlaps(t->pt.vaddr, t->pt.size, va, len))
			continue;
		refcount_inc(&t->refs);
		found = t;
		break;
	}
	mutex_unlock(&sa_lock);
	if (!found)
		return false;
	if (sa_t_fire(found))
		sa_t_drop_notifier(found);
	sa_t_put(found);
	return true;
}

/* The hook's worker: the memory of the hooked page table goes now. */
static void sa_hook_fn(struct work_struct *w)
{
	struct sa_hook *h = container_of(w, struct sa_hook, work);
	struct sa_tpt *t;

	mutex_lock(&sa_lock);
	t = sa_find(h->target);
	if (t && t->state == SA_LIVE)
		refcount_inc(&t->refs);
	else
		t = NULL;
	mutex_unlock(&sa_lock);
	if (t) {
		if (sa_t_fire(t)) {
			atomic64_inc(&sa_hooks);
			sa_t_drop_notifier(t);
		}
		sa_t_put(t);
	} else {
		pr_warn("hook: the page table went before its callback could fire\n");
	}
	complete(&h->done);
	sa_hook_put(h);
}

/* The armed hook of @point if it matches the page table @pt. */
static struct sa_hook *sa_hook_take(u32 point,
				    const struct nvidia_p2p_page_table *pt)
{
	struct sa_hook *h = NULL;
	struct sa_tpt *t;

	mutex_lock(&sa_lock);
	t = sa_hook_armed ? sa_find(pt) : NULL;
	if (t)
		h = sa_hook_match(point, pt, t->pt.mm, t->pt.vaddr,
				  t->pt.size);
	mutex_unlock(&sa_lock);
	return h;
}

/*
 * Wait for the hooked callback.  L4T holds none of its locks while it
 * runs a callback, so one that waits for the caller only costs time.
 */
static void sa_hook_run(struct sa_hook *h)
{
	sa_hook_start(h);
	if (!sa_hook_wait(&h->done))
		pr_info("hook: the free callback has not returned after %u ms, going on\n",
			wait_ms);
}

/* A hooked call on entry: its callback runs first. */
static void sa_hook_enter(struct sa_hook *h)
{
	if (h && !h->after)
		sa_hook_run(h);
}

/* A hooked call about to return: AFTER hooks fire now. */
static void sa_hook_leave(struct sa_hook *h)
{
	if (h && h->after)
		sa_hook_run(h);
	sa_hook_put(h);
}

static int sa_mmap(struct file *file, struct vm_area_struct *vma)
{
	return sa_refuse(-ENODEV, "mmap",
			 "the Tegra flavor pins ordinary user memory");
}

int nvidia_p2p_get_pages(u64 vaddr, u64 size,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	struct mm_struct *mm = current->mm;
	struct page **pages;
	struct sa_tpt *t;
	int n, got, ret;

	if (!page_table)
		return sa_refuse(-EINVAL, __func__, "page_table is NULL");
	*page_table = NULL;
	if (!free_callback || !size || !PAGE_ALIGNED(vaddr | size) ||
	    vaddr + size < vaddr || size >> PAGE_SHIFT > INT_MAX || !mm)
		return sa_refuse(-EINVAL, __func__,
				 "needs a callback and a page-aligned range");
	n = size >> PAGE_SHIFT;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!t || !pages) {
		kfree(t);
		kvfree(pages);
		return -ENOMEM;
	}
	got = pin_user_pages_fast(vaddr, n, FOLL_WRITE | FOLL_LONGTERM, pages);
	if (got != n) {
		if (got > 0)
			unpin_user_pages(pages, got);
		kfree(t);
		kvfree(pages);
		return sa_refuse(got < 0 ? got : -EFAULT, __func__,
				 "cannot pin the user pages");
	}
	t->pt.version = NVIDIA_P2P_PAGE_TABLE_VERSION;
	t->pt.page_size = NVIDIA_P2P_PAGE_SIZE_4KB;
	t->pt.size = size;
	t->pt.entries = n;
	t->pt.pages = pages;
	t->pt.vaddr = vaddr;
	t->pt.mapped = NVIDIA_P2P_PINNED;
	t->pt.mm = mm;
	t->pt.mn.ops = &sa_mn_ops;
	mutex_init(&t->pt.lock);
	t->pt.free_callback = free_callback;
	t->pt.data = data;
	refcount_set(&t->refs, 2);	/* pages, notifier */
	t->state = SA_DONE;		/* no callback before registered */
	t->mn_live = true;
	INIT_WORK(&t->put_work, sa_t_put_work);
	atomic64_inc(&sa_tables);
	mutex_lock(&sa_lock);
	list_add_tail(&t->node, &sa_pts);
	mutex_unlock(&sa_lock);

	/* Filled in before the callback can fire, as L4T does. */
	*page_table = &t->pt;
	ret = mmu_notifier_register(&t->pt.mn, mm);
	if (ret) {
		*page_table = NULL;
		unpin_user_pages(pages, n);
		kvfree(pages);
		sa_t_put(t);
		sa_t_put(t);
		return sa_refuse(ret, __func__, "mmu_notifier_register failed");
	}
	mutex_lock(&sa_lock);
	t->state = SA_LIVE;
	mutex_unlock(&sa_lock);
	atomic64_inc(&sa_gets);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

int nvidia_p2p_put_pages(struct nvidia_p2p_page_table *page_table)
{
	struct sa_tpt *t;
	bool drop;

	if (!page_table)
		return sa_refuse(-EINVAL, __func__, "page_table is NULL");
	mutex_lock(&sa_lock);
	t = sa_find(page_table);
	if (!t) {
		mutex_unlock(&sa_lock);
		return sa_refuse(-EINVAL, __func__, "unknown page table");
	}
	if (t->cb_task == current) {
		mutex_unlock(&sa_lock);
		WARN_ONCE(1, "%s from the free callback\n", __func__);
		return sa_refuse(-EDEADLK, __func__, "called from the free callback");
	}
	refcount_inc(&t->refs);
	drop = t->mn_live;
	t->mn_live = false;
	mutex_unlock(&sa_lock);
	if (drop) {
		/* Calls release, i.e. the free callback, unless it ran. */
		mmu_notifier_unregister(&t->pt.mn, t->pt.mm);
		sa_t_put(t);
	} else {
		wait_event(sa_wq, READ_ONCE(t->state) != SA_REVOKING);
	}
	sa_t_put(t);
	atomic64_inc(&sa_puts);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	struct sa_tpt *t;
	bool pinned;

	atomic64_inc(&sa_fpt);
	if (!page_table)
		return 0;
	mutex_lock(&sa_lock);
	t = sa_find(page_table);
	mutex_unlock(&sa_lock);
	if (!t)
		return sa_refuse(-EINVAL, __func__, "unknown page table");
	mutex_lock(&page_table->lock);
	WARN(page_table->mapped & NVIDIA_P2P_MAPPED,
	     "nvp2p-standin: page table freed while DMA-mapped\n");
	pinned = page_table->mapped & NVIDIA_P2P_PINNED;
	page_table->mapped &= ~NVIDIA_P2P_PINNED;
	mutex_unlock(&page_table->lock);
	if (pinned) {
		unpin_user_pages_dirty_lock(page_table->pages,
					    page_table->entries, true);
		kvfree(page_table->pages);
		page_table->pages = NULL;
		sa_t_put(t);
	}
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

int nvidia_p2p_dma_map_pages(struct device *dev,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **map,
			     enum dma_data_direction direction)
{
	struct nvidia_p2p_dma_mapping *m = NULL;
	struct scatterlist *sg;
	struct sa_hook *h;
	struct sa_tpt *t;
	int ret, i;

	if (!dev || !page_table || !map)
		return sa_refuse(-EINVAL, __func__, "NULL argument");
	*map = NULL;
	h = sa_hook_take(NVP2P_STANDIN_HOOK_DMA_MAP, page_table);
	sa_hook_enter(h);
	mutex_lock(&sa_lock);
	t = sa_find(page_table);
	mutex_unlock(&sa_lock);
	if (!t) {
		sa_hook_leave(h);
		return sa_refuse(-EINVAL, __func__, "unknown page table");
	}
	mutex_lock(&page_table->lock);
	if (page_table->mapped != NVIDIA_P2P_PINNED) {
		ret = sa_refuse(-EINVAL, __func__, "not pinned, or mapped already");
		goto out;
	}
	ret = -ENOMEM;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		goto out;
	m->sgt = kzalloc(sizeof(*m->sgt), GFP_KERNEL);
	if (!m->sgt)
		goto out;
	/*
	 * Segments no larger than the DMA layer can map at once (swiotlb
	 * bounces at most 256 KiB); L4T, behind an SMMU, merges freely.
	 */
	ret = sg_alloc_table_from_pages_segment(m->sgt, page_table->pages,
						page_table->entries, 0,
						page_table->size,
						dma_max_mapping_size(dev),
						GFP_KERNEL);
	if (ret)
		goto out;
	ret = dma_map_sgtable(dev, m->sgt, direction, 0);
	if (ret) {
		sg_free_table(m->sgt);
		goto out;
	}
	m->entries = m->sgt->nents;
	m->hw_address = kcalloc(m->entries, sizeof(*m->hw_address), GFP_KERNEL);
	m->hw_len = kcalloc(m->entries, sizeof(*m->hw_len), GFP_KERNEL);
	if (!m->hw_address || !m->hw_len) {
		ret = -ENOMEM;
		dma_unmap_sgtable(dev, m->sgt, direction, 0);
		sg_free_table(m->sgt);
		goto out;
	}
	for_each_sgtable_dma_sg(m->sgt, sg, i) {
		m->hw_address[i] = sg_dma_address(sg);
		m->hw_len[i] = sg_dma_len(sg);
	}
	m->version = NVIDIA_P2P_DMA_MAPPING_VERSION;
	m->dev = dev;
	m->page_table = page_table;
	m->direction = direction;
	page_table->mapped |= NVIDIA_P2P_MAPPED;
	t->map = m;
	atomic64_inc(&sa_maps);
	*map = m;
	m = NULL;
	ret = 0;
out:
	mutex_unlock(&page_table->lock);
	if (m) {
		kfree(m->hw_address);
		kfree(m->hw_len);
		kfree(m->sgt);
		kfree(m);
	}
	sa_hook_leave(h);
	return ret;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_dma_unmap_pages(struct nvidia_p2p_dma_mapping *map)
{
	struct nvidia_p2p_page_table *pt;
	struct sa_hook *h = NULL;
	struct sa_tpt *t;
	bool unmap;

	if (!map)
		return sa_refuse(-EINVAL, __func__, "map is NULL");
	pt = map->page_table;
	if (pt)
		h = sa_hook_take(NVP2P_STANDIN_HOOK_DMA_UNMAP, pt);
	sa_hook_enter(h);
	sa_hook_put(h);
	mutex_lock(&sa_lock);
	t = pt ? sa_find(pt) : NULL;
	mutex_unlock(&sa_lock);
	if (!t)
		return sa_refuse(-EFAULT, __func__, "unknown page table");
	mutex_lock(&pt->lock);
	unmap = (pt->mapped & NVIDIA_P2P_MAPPED) && t->map == map;
	if (unmap) {
		pt->mapped &= ~NVIDIA_P2P_MAPPED;
		t->map = NULL;
	}
	mutex_unlock(&pt->lock);
	if (!unmap)
		return sa_refuse(-EINVAL, __func__, "not the page table's mapping");
	dma_unmap_sgtable(map->dev, map->sgt, map->direction, 0);
	sg_free_table(map->sgt);
	kfree(map->sgt);
	kfree(map->hw_address);
	kfree(map->hw_len);
	kfree(map);
	atomic64_dec(&sa_maps);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	atomic64_inc(&sa_fdm);
	return nvidia_p2p_dma_unmap_pages(dma_mapping);
}
EXPORT_SYMBOL(nvidia_p2p_free_dma_mapping);

static void sa_flavor_exit(void)
{
	mmu_notifier_synchronize();	/* pending sa_mn_free() */
}

#endif /* HF_NVP2P_TEGRA */

/* ==== revocation on demand, counters, the device ===================== */

/**
 * struct sa_revoke - an asynchronous revocation.
 * @dw: the work
 * @node: in sa_revoke_works
 * @mm: the process whose page tables go (grabbed), NULL for all
 * @va: start of the range
 * @len: its bytes
 * @done: the work has run (freed by the next request or at unload)
 */
struct sa_revoke {
	struct delayed_work dw;
	struct list_head node;
	struct mm_struct *mm;
	u64 va;
	u64 len;
	bool done;
};

static u32 sa_revoke_range(struct mm_struct *mm, u64 va, u64 len)
{
	u32 fired = 0;

	while (sa_revoke_next(mm, va, len))
		fired++;
	return fired;
}

static void sa_revoke_fn(struct work_struct *w)
{
	struct sa_revoke *r = container_of(to_delayed_work(w),
					   struct sa_revoke, dw);
	u32 fired = sa_revoke_range(r->mm, r->va, r->len);

	pr_info("asynchronous revocation: %u free callback(s) fired\n", fired);
	mutex_lock(&sa_lock);
	r->done = true;
	mutex_unlock(&sa_lock);
	atomic64_dec(&sa_revokes_pending);
}

/* Free the revocations that have run (@all: cancel the others first). */
static void sa_revoke_reap(bool all)
{
	struct sa_revoke *r, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&sa_lock);
	list_for_each_entry_safe(r, tmp, &sa_revoke_works, node)
		if (r->done || all)
			list_move(&r->node, &dead);
	mutex_unlock(&sa_lock);
	list_for_each_entry_safe(r, tmp, &dead, node) {
		if (cancel_delayed_work_sync(&r->dw))
			atomic64_dec(&sa_revokes_pending);
		if (r->mm)
			mmdrop(r->mm);
		kfree(r);
	}
}

static int sa_revoke_async(struct mm_struct *mm, u64 va, u64 len,
			   u32 delay_ms)
{
	struct sa_revoke *r;

	sa_revoke_reap(false);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	INIT_DELAYED_WORK(&r->dw, sa_revoke_fn);
	if (mm)
		mmgrab(mm);
	r->mm = mm;
	r->va = va;
	r->len = len;
	atomic64_inc(&sa_revokes);
	atomic64_inc(&sa_revokes_pending);
	mutex_lock(&sa_lock);
	list_add_tail(&r->node, &sa_revoke_works);
	mutex_unlock(&sa_lock);
	queue_delayed_work(sa_workq, &r->dw, msecs_to_jiffies(delay_ms));
	return 0;
}

static void sa_stats(struct nvp2p_standin_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->allocs = atomic64_read(&sa_allocs);
	s->alloc_bytes = atomic64_read(&sa_alloc_bytes);
	s->tables = atomic64_read(&sa_tables);
	s->persistent_tables = atomic64_read(&sa_ptables);
	s->mappings = atomic64_read(&sa_maps);
	s->callbacks = atomic64_read(&sa_callbacks);
	s->get_pages = atomic64_read(&sa_gets);
	s->put_pages = atomic64_read(&sa_puts);
	s->free_page_table = atomic64_read(&sa_fpt);
	s->free_dma_mapping = atomic64_read(&sa_fdm);
	s->refused = atomic64_read(&sa_refused);
	s->revokes = atomic64_read(&sa_revokes);
	s->revokes_pending = atomic64_read(&sa_revokes_pending);
	s->tegra = SA_TEGRA;
	s->deadlocks = atomic64_read(&sa_deadlocks);
	s->hooks = atomic64_read(&sa_hooks);
}

static long sa_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct nvp2p_standin_stats st;
	struct nvp2p_standin_revoke rv;
	struct nvp2p_standin_hook hk;
	int ret;

	switch (cmd) {
	case NVP2P_STANDIN_IOC_STATS:
		sa_stats(&st);
		return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
	case NVP2P_STANDIN_IOC_REVOKE:
		if (copy_from_user(&rv, uarg, sizeof(rv)))
			return -EFAULT;
		if (!rv.size || rv.addr + rv.size < rv.addr || rv.pad ||
		    (rv.flags & ~NVP2P_STANDIN_REVOKE_ASYNC) || !current->mm)
			return -EINVAL;
		if (rv.flags & NVP2P_STANDIN_REVOKE_ASYNC) {
			ret = sa_revoke_async(current->mm, rv.addr, rv.size,
					      rv.delay_ms);
			if (ret)
				return ret;
			rv.fired = 0;
		} else {
			atomic64_inc(&sa_revokes);
			rv.fired = sa_revoke_range(current->mm, rv.addr,
						   rv.size);
		}
		return copy_to_user(uarg, &rv, sizeof(rv)) ? -EFAULT : 0;
	case NVP2P_STANDIN_IOC_HOOK:
		if (copy_from_user(&hk, uarg, sizeof(hk)))
			return -EFAULT;
		if (!current->mm)
			return -EINVAL;
		return sa_hook_arm(&hk);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations sa_fops = {
	.owner = THIS_MODULE,
	.mmap = sa_mmap,
	.unlocked_ioctl = sa_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice sa_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvp2p-standin",
	.fops = &sa_fops,
	.mode = 0666,
};

static int sa_counters_show(struct seq_file *m, void *unused)
{
	struct nvp2p_standin_stats s;

	sa_stats(&s);
	seq_printf(m, "flavor %s\n", s.tegra ? "tegra" : "desktop");
	seq_printf(m, "allocs %llu\nalloc_bytes %llu\n", s.allocs,
		   s.alloc_bytes);
	seq_printf(m, "tables %llu\npersistent_tables %llu\nmappings %llu\n",
		   s.tables, s.persistent_tables, s.mappings);
	seq_printf(m, "callbacks %llu\nget_pages %llu\nput_pages %llu\n",
		   s.callbacks, s.get_pages, s.put_pages);
	seq_printf(m, "free_page_table %llu\nfree_dma_mapping %llu\n",
		   s.free_page_table, s.free_dma_mapping);
	seq_printf(m, "refused %llu\nrevokes %llu\nrevokes_pending %llu\n",
		   s.refused, s.revokes, s.revokes_pending);
	seq_printf(m, "deadlocks %llu\nhooks %llu\n", s.deadlocks, s.hooks);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sa_counters);

/* Write N: fire every live free callback, of any process, after N ms. */
static ssize_t sa_revoke_all_write(struct file *file, const char __user *buf,
				   size_t len, loff_t *ppos)
{
	u32 delay_ms;
	int ret;

	ret = kstrtou32_from_user(buf, len, 0, &delay_ms);
	if (ret)
		return ret;
	ret = sa_revoke_async(NULL, 0, U64_MAX, delay_ms);
	return ret ? ret : len;
}

static const struct file_operations sa_revoke_all_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sa_revoke_all_write,
	.llseek = noop_llseek,
};

static struct dentry *sa_debugfs;

static int __init sa_init(void)
{
	int ret;

#if defined(HF_NV_HAVE_CAP_PERSISTENT_PAGES) && !defined(HF_NVP2P_TEGRA)
	nvidia_p2p_cap_persistent_pages = persistent;
#endif
	sa_workq = alloc_workqueue("nvp2p-standin", WQ_UNBOUND, 0);
	if (!sa_workq)
		return -ENOMEM;
	ret = misc_register(&sa_misc);
	if (ret) {
		destroy_workqueue(sa_workq);
		return ret;
	}
	sa_debugfs = debugfs_create_dir("nvp2p-standin", NULL);
	debugfs_create_file("counters", 0444, sa_debugfs, NULL,
			    &sa_counters_fops);
	debugfs_create_file("revoke_all", 0200, sa_debugfs, NULL,
			    &sa_revoke_all_fops);
	pr_info("nvidia_p2p stand-in (%s) over guest memory: " NVP2P_STANDIN_DEV "\n",
		SA_TEGRA ? "Tegra, 4 KiB pages" :
		"desktop, 64 KiB GPU pages");
	return 0;
}

static void __exit sa_exit(void)
{
	debugfs_remove_recursive(sa_debugfs);
	misc_deregister(&sa_misc);
	sa_revoke_reap(true);
	sa_hook_put(sa_hook_armed);
	sa_hook_armed = NULL;
	sa_flavor_exit();
	destroy_workqueue(sa_workq);
	if (atomic64_read(&sa_tables) || atomic64_read(&sa_maps) ||
	    atomic64_read(&sa_allocs))
		pr_warn("unloaded with %lld page table(s), %lld mapping(s), %lld allocation(s) left\n",
			(long long)atomic64_read(&sa_tables),
			(long long)atomic64_read(&sa_maps),
			(long long)atomic64_read(&sa_allocs));
}

module_init(sa_init);
module_exit(sa_exit);

MODULE_DESCRIPTION("hellofpga tests: nvidia_p2p stand-in over guest memory");
MODULE_LICENSE("GPL");

