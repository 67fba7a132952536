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
	__u64 reserved[4];
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

#define NVP2P_STANDIN_IOC_MAGIC		0xb7
#define NVP2P_STANDIN_IOC_STATS \
	_IOR(NVP2P_STANDIN_IOC_MAGIC, 0, struct nvp2p_standin_stats)
#define NVP2P_STANDIN_IOC_REVOKE \
	_IOWR(NVP2P_STANDIN_IOC_MAGIC, 1, struct nvp2p_standin_revoke)

#endif /* NVP2P_STANDIN_UAPI_H */
