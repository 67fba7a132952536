/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * /dev/nvp2p-standin, the test interface of nvp2p-standin.ko
 * (tests/guest/kmod/nvp2p-standin), shared by the module and the guest
 * programs (tests/guest/progs).
 *
 * Desktop flavor: mmap(MAP_SHARED, offset 0) of the device allocates "GPU
 * memory" of the mapping's size (a multiple of 64 KiB; 64 KiB physically
 * contiguous chunks); the mapping's address is its "CUDA VA" for
 * nvidia_p2p_get_pages(); unmapping it is cudaFree(), which fires the free
 * callback of every page table on it first.  Tegra flavor: no mmap (any
 * page-aligned user memory is pinned); the ioctls below work in both.
 */
#ifndef NVP2P_STANDIN_UAPI_H
#define NVP2P_STANDIN_UAPI_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define NVP2P_STANDIN_DEV	"/dev/nvp2p-standin"

/**
 * struct nvp2p_standin_stats - NVP2P_STANDIN_IOC_STATS: counters.
 * @allocs: allocations alive (desktop; freed memory a persistent page
 *	table still holds counts)
 * @alloc_bytes: their bytes
 * @tables: page tables held (get_pages without put_pages or callback)
 * @persistent_tables: of them, persistent ones
 * @mappings: DMA mappings alive
 * @callbacks: free callbacks fired since load
 * @get_pages: successful get_pages calls since load (both kinds)
 * @put_pages: successful put_pages calls since load (both kinds)
 * @free_page_table: nvidia_p2p_free_page_table() calls since load
 * @free_dma_mapping: nvidia_p2p_free_dma_mapping() calls since load
 * @refused: calls refused (bad arguments, unknown page table) since load
 * @revokes: revocations asked for (ioctl or debugfs) since load
 * @revokes_pending: asynchronous revocations not done yet
 * @tegra: 1 for the Tegra flavor
 * @pad: 0
 * @deadlocks: desktop: nvidia_p2p calls that gave up waiting for the RM
 *	lock (its holder, a free callback, waited for the caller), since load
 * @hooks: free callbacks fired by NVP2P_STANDIN_IOC_HOOK, since load
 * @reserved: 0
 */
struct nvp2p_standin_stats {
	__u64 allocs;
	__u64 alloc_bytes;
	__u64 tables;
	__u64 persistent_tables;
	__u64 mappings;
	__u64 callbacks;
	__u64 get_pages;
	__u64 put_pages;
	__u64 free_page_table;
	__u64 free_dma_mapping;
	__u64 refused;
	__u64 revokes;
	__u64 revokes_pending;
	__u32 tegra;
	__u32 pad;
	__u64 deadlocks;
	__u64 hooks;
	__u64 reserved[2];
};

/* Fire from a kernel worker, after @delay_ms; the ioctl returns at once. */
#define NVP2P_STANDIN_REVOKE_ASYNC	_BITUL(0)

/**
 * struct nvp2p_standin_revoke - NVP2P_STANDIN_IOC_REVOKE: fire the free
 * callback of every live callback page table of the calling process that
 * overlaps [@addr, @addr + @size), as if the memory went away (the memory
 * itself stays; persistent page tables have no callback and are left).
 * @addr: in: user address (desktop: inside a mapping of the device)
 * @size: in: bytes, > 0
 * @flags: in: NVP2P_STANDIN_REVOKE_*
 * @delay_ms: in: with ASYNC, wait this long first
 * @fired: out: callbacks fired (synchronous revocation only)
 * @pad: 0
 */
struct nvp2p_standin_revoke {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 delay_ms;
	__u32 fired;
	__u32 pad;
};

/* NVP2P_STANDIN_IOC_HOOK points: the nvidia_p2p call that fires it */
#define NVP2P_STANDIN_HOOK_DMA_MAP	1	/* nvidia_p2p_dma_map_pages() */
#define NVP2P_STANDIN_HOOK_DMA_UNMAP	2	/* nvidia_p2p_dma_unmap_pages() */
#define NVP2P_STANDIN_HOOK_PUT_PAGES	3	/* nvidia_p2p_put_pages(), desktop */

/* Fire when the call has done its work, just before it returns. */
#define NVP2P_STANDIN_HOOK_AFTER	_BITUL(0)

/**
 * struct nvp2p_standin_hook - NVP2P_STANDIN_IOC_HOOK: arm a one-shot hook.
 * The next call of @point on a callback page table of the calling process
 * that overlaps [@addr, @addr + @size) fires that page table's free
 * callback from a kernel worker, as if the memory were freed exactly then:
 *   default  on entry: the worker takes the RM lock (desktop) and runs the
 *            callback and RM's teardown under it; the call waits until the
 *            worker holds the lock, then waits for the lock itself, so the
 *            callback runs while the caller is inside the call.  Tegra (no
 *            RM lock): the call waits for the callback to return, at most
 *            wait_ms, then goes on.
 *   AFTER    (DMA_MAP only) the call maps, releases the RM lock, then waits
 *            (at most wait_ms) for the worker's callback and teardown
 *            before it returns: the caller gets a mapping that is gone.
 * Desktop: the page table a hook fired stays known, emptied, so any later
 * use of it is refused (Tegra: L4T keeps it usable for its owner, as after
 * any callback).  A new hook replaces an armed one; @size 0 disarms.
 * @addr: in: user address
 * @size: in: bytes; 0 disarms
 * @point: in: NVP2P_STANDIN_HOOK_*
 * @flags: in: NVP2P_STANDIN_HOOK_AFTER
 */
struct nvp2p_standin_hook {
	__u64 addr;
	__u64 size;
	__u32 point;
	__u32 flags;
};

#define NVP2P_STANDIN_IOC_MAGIC		0xb7
#define NVP2P_STANDIN_IOC_STATS \
	_IOR(NVP2P_STANDIN_IOC_MAGIC, 0, struct nvp2p_standin_stats)
#define NVP2P_STANDIN_IOC_REVOKE \
	_IOWR(NVP2P_STANDIN_IOC_MAGIC, 1, struct nvp2p_standin_revoke)
#define NVP2P_STANDIN_IOC_HOOK \
	_IOW(NVP2P_STANDIN_IOC_MAGIC, 2, struct nvp2p_standin_hook)

#endif /* NVP2P_STANDIN_UAPI_H */
