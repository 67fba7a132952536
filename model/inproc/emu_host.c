// SPDX-License-Identifier: MIT
/*
 * emu_host.c - the in-process host of the XDMA model (see emu_host.h).
 *
 * IOMMU: every mapping gets a bus address (IOVA) of its own, allocated
 * upward from EMU_IOVA_BASE with page granularity and a guard page between
 * mappings; the in-page offset of the CPU address is kept.  Only the mapped
 * bytes [bus, bus + len) are reachable, with the mapped direction.  A DMA
 * access is resolved as a whole before a byte moves: if any byte is not
 * mapped or lacks permission nothing is copied, a fault is counted and the
 * access fails, as an IOMMU fault would.
 *
 * A region mapping has no CPU address: its bytes are moved by the owner's
 * callbacks (struct hf_emu_region_ops), called once the whole access has
 * been resolved, outside @map_lock.  The region counts the callbacks in
 * progress; unmapping it takes it out of the table first (no new callback
 * can start) and then waits for those to return.
 *
 * The caller's memory may be unmapped while the card still writes it: the
 * kernel driver pins such pages, user space cannot.  The card's accesses to
 * a mapping made HF_DMA_GUARDED (a stream ring in the caller's memory, which
 * lives as long as the stream) therefore go through
 * process_vm_writev()/process_vm_readv() on this process, which fail where
 * a page is gone or lacks the access instead of raising SIGSEGV: the access
 * fails and counts a fault at the first byte it could not move, as an IOMMU
 * fault would.  Where those calls are refused (a seccomp filter), plain
 * copies are used.
 *
 * Locking: @map_lock (rwlock) guards the mapping table; DMA copies hold it
 * for reading so engines copy in parallel and a mapping cannot go away
 * under a copy.  @region_lock and @region_cond let an unmap wait for the
 * callbacks of its region.  @irq_lock guards the handler table and the INTx
 * level.
 * Each engine thread waits on its own condition variable.
 *
 * Time: the host's clock is CLOCK_MONOTONIC.  An engine that asks to run
 * again at a time (the model's link model and timed faults,
 * ops->schedule) has its thread sleep until shortly before it and spin the
 * rest, or with HF_EMU_SYNC the thread that ran the engine sleeps in place.
 */
#include "emu_host.h"

#include "xdma_regs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EMU_PAGE		4096ull
#define EMU_IOVA_BASE		0x100000000ull	/* 4 GiB */
#define EMU_NVEC		XDMA_MSIX_VECTORS

/**
 * struct emu_region - the callbacks behind a region mapping.
 * @ops: the callbacks
 * @ctx: their context
 * @users: callbacks in progress (changed atomically; the last one to
 *	return signals @region_cond under @region_lock)
 */
struct emu_region {
	const struct hf_emu_region_ops *ops;
	void *ctx;
	u32 users;
};

/**
 * struct emu_map - one IOMMU mapping.
 * @bus: bus address of the first mapped byte
 * @len: mapped bytes
 * @cpu: CPU address of the first mapped byte (NULL for a region)
 * @dir: what the card may do (enum hf_dma_dir bits)
 * @owned: memory from hf_emu_dma_alloc(), freed with the mapping
 * @guarded: HF_DMA_GUARDED: accesses through emu_caller_copy()
 * @region: the callbacks of a region mapping, else NULL
 */
struct emu_map {
	u64 bus;
	u64 len;
	u8 *cpu;
	u32 dir;
	bool owned;
	bool guarded;
	struct emu_region *region;
};

/**
 * struct emu_engine - the thread that runs one engine.
 * @h: the host
 * @index: engine order index
 * @thread: the thread
 * @lock: protects @kicked and @stop
 * @work: held around every xdma_model_engine_work() of this engine outside
 *	HF_EMU_SYNC (its thread's, or a kick's run in the kicking thread)
 * @cond: signalled by a kick and at shutdown
 * @kicked: the model asked for xdma_model_engine_work() (written under
 *	@lock, read without it while the thread spins)
 * @wake_at: the model asked for xdma_model_engine_work() at this time
 *	(ops->schedule), 0 when it did not (under @lock; HF_EMU_SYNC: the
 *	running thread's)
 * @stop: the thread must end
 * @sleeping: the thread waits on @cond (a kick must signal it)
 * @started: @thread was created
 * @sync_busy: HF_EMU_SYNC: a thread runs this engine's wake-ups
 */
struct emu_engine {
	struct hf_emu_host *h;
	u32 index;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_mutex_t work;
	pthread_cond_t cond;
	bool kicked;
	u64 wake_at;
	bool stop;
	bool sleeping;
	bool started;
	bool running;
	bool sync_busy;
};

/**
 * struct emu_irq - a registered interrupt handler.
 * @handler: called with @arg from the thread that raised the interrupt
 * @arg: handler argument
 * @running: a call of @handler is in progress (hf_emu_free_irq() waits)
 * @again: the vector fired while @handler ran: the running call runs it
 *	once more when it returns
 *
 * As on Linux (handle_edge_irq()), the handler of one vector never runs
 * twice at once: an interrupt that arrives while it runs is kept pending
 * and replayed, never lost and never handled by two threads at once.
 */
struct emu_irq {
	void (*handler)(void *arg);
	void *arg;
	bool running;
	bool again;
};

/**
 * struct hf_emu_host - the in-process host.
 * @m: the model
 * @flags: HF_EMU_* flags
 * @map_lock: guards @maps, @nmaps, @cap, @next_bus
 * @maps: the mapping table
 * @nmaps: live mappings
 * @cap: entries allocated in @maps
 * @next_bus: next free bus address
 * @faults: DMA faults (atomic)
 * @last_fault_bus: bus address of the last fault (atomic)
 * @maps_made: mappings made (atomic)
 * @allocs: coherent allocations made (atomic)
 * @region_calls: region callbacks called (atomic)
 * @region_lock: with @region_cond, waits for region callbacks to return
 * @region_cond: signalled when the last callback of a region returns
 * @irq_lock: guards @irqs, @mode, @intx_level
 * @irq_cond: signalled when a handler returns
 * @irqs: handlers per vector
 * @mode: interrupt mode the "driver" enabled
 * @intx_level: last INTx level the model drove
 * @dma_bar: the DMA/config BAR
 * @user_bar: the user BAR
 * @eng: engine threads
 */
struct hf_emu_host {
	struct xdma_model *m;
	u32 flags;
	pthread_rwlock_t map_lock;
	struct emu_map *maps;
	size_t nmaps;
	size_t cap;
	u64 next_bus;
	u64 faults;
	u64 last_fault_bus;
	u64 maps_made;
	u64 allocs;
	u64 region_calls;
	pthread_mutex_t region_lock;
	pthread_cond_t region_cond;
	pthread_mutex_t irq_lock;
	pthread_cond_t irq_cond;
	struct emu_irq irqs[EMU_NVEC];
	enum xdma_model_irq_mode mode;
	bool intx_level;
	struct hf_mmio dma_bar;
	struct hf_mmio user_bar;
	struct emu_engine eng[XDMA_MAX_ENGINES];
};

/* Vector of the handler the current thread runs, or -1. */
static _Thread_local int emu_in_handler = -1;

/* ---- time ---- */

/* The last stretch of a timed wait is spun, not slept: wake-ups on time. */
#define EMU_WAKE_SPIN_NS	50000ull

/* Wait until @end (CLOCK_MONOTONIC): sleep the bulk, spin the rest. */
static void emu_sleep_until(u64 end)
{
	for (;;) {
		u64 now = hf_os_now_ns();

		if (now >= end)
			return;
		if (end - now > EMU_WAKE_SPIN_NS) {
			u64 ns = end - now - EMU_WAKE_SPIN_NS;
			struct timespec ts = {
				.tv_sec = ns / 1000000000ull,
				.tv_nsec = ns % 1000000000ull,
			};

			nanosleep(&ts, NULL);
		} else {
			hf_os_relax();
		}
	}
}

static u64 emu_now_ns(void *host)
{
	return hf_os_now_ns();
}

/* ---- IOMMU ---- */

/* DMA faults of every host of this process (hf_emu_dma_faults_total()). */
static u64 emu_faults_total;

static void emu_fault(struct hf_emu_host *h, u64 bus)
{
	__atomic_fetch_add(&h->faults, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&emu_faults_total, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->last_fault_bus, bus, __ATOMIC_RELAXED);
}

/**
 * hf_emu_dma_faults_total() - DMA faults of every in-process host this
 * process has had, destroyed ones included: the emulated cards' DMA to bus
 * addresses not (or no longer) mapped, or without permission.  Tests check
 * it around each case (tests/dma_faults.c).
 *
 * Return: the count.
 */
u64 hf_emu_dma_faults_total(void)
{
	return __atomic_load_n(&emu_faults_total, __ATOMIC_RELAXED);
}

/* The mapping holding @bus, or NULL; map_lock held. */
static struct emu_map *emu_find(struct hf_emu_host *h, u64 bus)
{
	size_t i;

	for (i = 0; i < h->nmaps; i++) {
		struct emu_map *mp = &h->maps[i];

		if (bus >= mp->bus && bus - mp->bus < mp->len)
			return mp;
	}
	return NULL;
}

/**
 * emu_resolve() - translate a whole DMA access.
 * @h: the host, map_lock held
 * @bus: first byte
 * @len: bytes
 * @dir: HF_DMA_TO_DEVICE for a card read, HF_DMA_FROM_DEVICE for a write
 * @off: receives the offset of @bus in the mapping
 *
 * Mappings are separated by guard pages, so an access is valid only if one
 * mapping holds all of it.
 *
 * Return: the mapping holding the access, or NULL after counting a fault
 * at the first unreachable byte.
 */
static struct emu_map *emu_resolve(struct hf_emu_host *h, u64 bus,
				   size_t len, u32 dir, u64 *off)
{
	struct emu_map *mp;

	if (bus + len < bus) {
		emu_fault(h, bus);
		return NULL;
	}
	mp = emu_find(h, bus);
	if (!mp || !(mp->dir & dir)) {
		emu_fault(h, bus);
		return NULL;
	}
	if (len > mp->len - (bus - mp->bus)) {
		emu_fault(h, mp->bus + mp->len);
		return NULL;
	}
	*off = bus - mp->bus;
	return mp;
}

/* Take a reference on @r's callbacks; map_lock held (for reading). */
static void emu_region_get(struct hf_emu_host *h, struct emu_region *r)
{
	__atomic_add_fetch(&r->users, 1, __ATOMIC_ACQUIRE);
	__atomic_add_fetch(&h->region_calls, 1, __ATOMIC_RELAXED);
}

/* Drop it; the last user wakes an unmap waiting for the region. */
static void emu_region_put(struct hf_emu_host *h, struct emu_region *r)
{
	pthread_mutex_lock(&h->region_lock);
	if (!__atomic_sub_fetch(&r->users, 1, __ATOMIC_RELEASE))
		pthread_cond_broadcast(&h->region_cond);
	pthread_mutex_unlock(&h->region_lock);
}

/* process_vm_*v() on this process works: 0 not known yet, 1 yes, -1 no. */
static int emu_vm_ok;

/*
 * Copy @len bytes between the caller's memory at @cpu and @buf (@to_cpu:
 * into @cpu) with process_vm_*v(), or memcpy() where those are refused.
 * Return: bytes moved; less than @len where a page of @cpu was not there.
 */
static size_t emu_caller_copy(u8 *cpu, void *buf, size_t len, bool to_cpu)
{
	int ok = __atomic_load_n(&emu_vm_ok, __ATOMIC_RELAXED);
	size_t done = 0;

	while (ok >= 0 && done < len) {
		struct iovec local = { (u8 *)buf + done, len - done };
		struct iovec remote = { cpu + done, len - done };
		ssize_t n;

		n = to_cpu ? process_vm_writev(getpid(), &local, 1, &remote,
					       1, 0) :
			     process_vm_readv(getpid(), &local, 1, &remote,
					      1, 0);
		if (n > 0) {
			done += (size_t)n;
			if (!ok)
				__atomic_store_n(&emu_vm_ok, ok = 1,
						 __ATOMIC_RELAXED);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == ENOSYS || errno == EPERM) && !ok) {
			__atomic_store_n(&emu_vm_ok, ok = -1, __ATOMIC_RELAXED);
			break;
		}
		return done;	/* EFAULT, ENOMEM: a page is not there */
	}
	if (ok < 0) {
		if (to_cpu)
			memcpy(cpu + done, (u8 *)buf + done, len - done);
		else
			memcpy((u8 *)buf + done, cpu + done, len - done);
		done = len;
	}
	return done;
}

static int emu_dma_read(void *host, uint64_t bus, void *dst, size_t len)
{
	struct hf_emu_host *h = host;
	struct emu_region *region = NULL;
	struct emu_map *mp;
	int r = -EFAULT;
	u64 off;

	pthread_rwlock_rdlock(&h->map_lock);
	mp = emu_resolve(h, bus, len, HF_DMA_TO_DEVICE, &off);
	if (mp && mp->region) {
		region = mp->region;
		emu_region_get(h, region);
	} else if (mp && mp->guarded) {
		size_t n = emu_caller_copy(mp->cpu + off, dst, len, false);

		r = n == len ? 0 : -EFAULT;
		if (r)
			emu_fault(h, bus + n);
	} else if (mp) {
		memcpy(dst, mp->cpu + off, len);
		r = 0;
	}
	pthread_rwlock_unlock(&h->map_lock);
	if (region) {
		r = region->ops->read(region->ctx, off, dst, len);
		emu_region_put(h, region);
	}
	return r;
}

static int emu_dma_write(void *host, uint64_t bus, const void *src,
			 size_t len)
{
	struct hf_emu_host *h = host;
	struct emu_region *region = NULL;
	struct emu_map *mp;
	int r = -EFAULT;
	u8 *dst;
	u64 off;

	pthread_rwlock_rdlock(&h->map_lock);
	mp = emu_resolve(h, bus, len, HF_DMA_FROM_DEVICE, &off);
	dst = mp && !mp->region ? mp->cpu + off : NULL;
	if (mp && mp->region) {
		region = mp->region;
		emu_region_get(h, region);
	} else if (dst && mp->guarded) {
		size_t n = emu_caller_copy(dst, (void *)src, len, true);

		r = n == len ? 0 : -EFAULT;
		if (r)
			emu_fault(h, bus + n);
	} else if (dst && len == 4 && IS_ALIGNED((uintptr_t)dst, 4)) {
		/*
		 * A dword write (poll-mode writeback) is one release store,
		 * so a CPU that polls it with an acquire load also sees the
		 * data the engine moved before it, as on a coherent bus.
		 */
		u32 v;

		memcpy(&v, src, 4);
		__atomic_store_n((u32 *)dst, v, __ATOMIC_RELEASE);
		r = 0;
	} else if (dst && len == XDMA_STM_WB_SIZE &&
		   IS_ALIGNED((uintptr_t)dst, 4)) {
		/*
		 * A C2H stream writeback, which the CPU polls while the card
		 * writes the ring: the status dword (0) last, one release
		 * store, after the others, so that a CPU that sees its magic
		 * with an acquire load sees the length and the data too.
		 */
		u32 v[XDMA_STM_WB_SIZE / 4];

		memcpy(v, src, sizeof(v));
		for (int i = 1; i < XDMA_STM_WB_SIZE / 4; i++)
			__atomic_store_n((u32 *)dst + i, v[i], __ATOMIC_RELAXED);
		__atomic_store_n((u32 *)dst, v[0], __ATOMIC_RELEASE);
		r = 0;
	} else if (dst) {
		memcpy(dst, src, len);
		r = 0;
	}
	pthread_rwlock_unlock(&h->map_lock);
	if (region) {
		r = region->ops->write(region->ctx, off, src, len);
		emu_region_put(h, region);
	}
	return r;
}

static int emu_map_add(struct hf_emu_host *h, void *cpu, size_t len,
		       enum hf_dma_dir dir, bool owned,
		       struct emu_region *region, u64 *bus);

/**
 * hf_emu_dma_map() - make @len bytes at @cpu reachable by the card.
 * @h: the host
 * @cpu: first byte
 * @len: bytes, > 0
 * @dir: what the card may do with them, HF_DMA_GUARDED or not
 * @bus: the bus address of @cpu
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int hf_emu_dma_map(struct hf_emu_host *h, void *cpu, size_t len,
		   enum hf_dma_dir dir, u64 *bus)
{
	if (!cpu)
		return -EINVAL;
	return emu_map_add(h, cpu, len, dir, false, NULL, bus);
}

/**
 * hf_emu_dma_map_region() - make a @len-byte region reachable by the card
 * whose bytes are moved by callbacks rather than through a CPU address.
 * @h: the host
 * @len: bytes, > 0
 * @dir: what the card may do with them
 * @ops: the callbacks (@ops->read for a card read, @ops->write for a card
 *	write; the one @dir allows must be set)
 * @ctx: their first argument
 * @bus: the bus address of offset 0 (page aligned)
 *
 * Unmap it with hf_emu_dma_unmap(), which waits for callbacks in progress.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int hf_emu_dma_map_region(struct hf_emu_host *h, size_t len,
			  enum hf_dma_dir dir,
			  const struct hf_emu_region_ops *ops, void *ctx,
			  u64 *bus)
{
	struct emu_region *r;
	int ret;

	if (!ops || ((dir & HF_DMA_TO_DEVICE) && !ops->read) ||
	    ((dir & HF_DMA_FROM_DEVICE) && !ops->write))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->ops = ops;
	r->ctx = ctx;
	ret = emu_map_add(h, NULL, len, dir & ~HF_DMA_GUARDED, false, r, bus);
	if (ret)
		free(r);
	return ret;
}

static int emu_map_add(struct hf_emu_host *h, void *cpu, size_t len,
		       enum hf_dma_dir dir, bool owned,
		       struct emu_region *region, u64 *bus)
{
	u64 off = (uintptr_t)cpu & (EMU_PAGE - 1);
	struct emu_map *mp;
	u64 span;

	if (!h || !len || !bus ||
	    (dir & ~(HF_DMA_BIDIRECTIONAL | HF_DMA_GUARDED)) ||
	    !(dir & HF_DMA_BIDIRECTIONAL) || ((dir & HF_DMA_GUARDED) && !cpu))
		return -EINVAL;
	span = ALIGN(off + len, EMU_PAGE);
	pthread_rwlock_wrlock(&h->map_lock);
	if (h->nmaps == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;

		mp = realloc(h->maps, cap * sizeof(*mp));
		if (!mp) {
			pthread_rwlock_unlock(&h->map_lock);
			return -ENOMEM;
		}
		h->maps = mp;
		h->cap = cap;
	}
	mp = &h->maps[h->nmaps++];
	mp->bus = h->next_bus + off;
	mp->len = len;
	mp->cpu = cpu;
	mp->dir = dir & HF_DMA_BIDIRECTIONAL;
	mp->owned = owned;
	mp->guarded = !!(dir & HF_DMA_GUARDED);
	mp->region = region;
	h->next_bus += span + EMU_PAGE;		/* guard page */
	*bus = mp->bus;
	pthread_rwlock_unlock(&h->map_lock);
	__atomic_add_fetch(&h->maps_made, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Wait until no callback of @r runs, then free it. */
static void emu_region_release(struct hf_emu_host *h, struct emu_region *r)
{
	pthread_mutex_lock(&h->region_lock);
	while (__atomic_load_n(&r->users, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&h->region_cond, &h->region_lock);
	pthread_mutex_unlock(&h->region_lock);
	free(r);
}

/* Remove a mapping; @owned_cpu: the memory of a hf_emu_dma_alloc(). */
static int emu_map_remove(struct hf_emu_host *h, u64 bus, void *owned_cpu)
{
	struct emu_region *region;
	size_t i;

	pthread_rwlock_wrlock(&h->map_lock);
	for (i = 0; i < h->nmaps; i++) {
		struct emu_map *mp = &h->maps[i];

		if (mp->bus == bus && mp->owned == !!owned_cpu &&
		    (!owned_cpu || mp->cpu == owned_cpu)) {
			region = mp->region;
			h->maps[i] = h->maps[--h->nmaps];
			pthread_rwlock_unlock(&h->map_lock);
			/* Out of the table: no new callback can start. */
			if (region)
				emu_region_release(h, region);
			return 0;
		}
	}
	pthread_rwlock_unlock(&h->map_lock);
	return -ENOENT;
}

/**
 * hf_emu_dma_unmap() - remove the mapping that starts at @bus.
 * @h: the host
 * @bus: bus address hf_emu_dma_map() or hf_emu_dma_map_region() returned
 *
 * For a region, waits until its callbacks in progress have returned (so
 * it must not be called from one of them); none starts afterwards.
 *
 * Return: 0, or -ENOENT when no such mapping starts there (memory of
 * hf_emu_dma_alloc() goes with hf_emu_dma_free()).
 */
int hf_emu_dma_unmap(struct hf_emu_host *h, u64 bus)
{
	return emu_map_remove(h, bus, NULL);
}

/**
 * hf_emu_dma_alloc() - DMA-coherent memory: zeroed, page aligned, mapped
 * for both directions.
 * @h: the host
 * @len: bytes, > 0
 * @bus: its bus address
 *
 * Return: CPU address, or NULL.  Free with hf_emu_dma_free().
 */
void *hf_emu_dma_alloc(struct hf_emu_host *h, size_t len, u64 *bus)
{
	size_t size = ALIGN(len, (size_t)EMU_PAGE);
	void *p;

	if (!len || posix_memalign(&p, EMU_PAGE, size))
		return NULL;
	memset(p, 0, size);
	if (emu_map_add(h, p, len, HF_DMA_BIDIRECTIONAL, true, NULL, bus)) {
		free(p);
		return NULL;
	}
	__atomic_add_fetch(&h->allocs, 1, __ATOMIC_RELAXED);
	return p;
}

void hf_emu_dma_free(struct hf_emu_host *h, void *cpu, u64 bus)
{
	if (!h || !cpu)
		return;
	if (!emu_map_remove(h, bus, cpu))
		free(cpu);
}

void hf_emu_host_get_stats(struct hf_emu_host *h,
			   struct hf_emu_host_stats *st)
{
	pthread_rwlock_rdlock(&h->map_lock);
	st->maps = h->nmaps;
	pthread_rwlock_unlock(&h->map_lock);
	st->faults = __atomic_load_n(&h->faults, __ATOMIC_RELAXED);
	st->last_fault_bus = __atomic_load_n(&h->last_fault_bus,
					     __ATOMIC_RELAXED);
	st->maps_made = __atomic_load_n(&h->maps_made, __ATOMIC_RELAXED);
	st->allocs = __atomic_load_n(&h->allocs, __ATOMIC_RELAXED);
	st->region_calls = __atomic_load_n(&h->region_calls,
					   __ATOMIC_RELAXED);
}

/* ---- interrupts ---- */

static void emu_call_handler(struct hf_emu_host *h, u32 vector)
{
	struct emu_irq *irq;
	int prev;

	if (vector >= EMU_NVEC)
		return;
	irq = &h->irqs[vector];
	pthread_mutex_lock(&h->irq_lock);
	if (!irq->handler) {
		pthread_mutex_unlock(&h->irq_lock);
		return;
	}
	if (irq->running) {
		irq->again = true;
		pthread_mutex_unlock(&h->irq_lock);
		return;
	}
	irq->running = true;
	prev = emu_in_handler;
	emu_in_handler = (int)vector;
	do {
		void (*fn)(void *arg) = irq->handler;
		void *arg = irq->arg;

		irq->again = false;
		pthread_mutex_unlock(&h->irq_lock);
		fn(arg);
		pthread_mutex_lock(&h->irq_lock);
	} while (irq->again && irq->handler);
	emu_in_handler = prev;
	irq->running = false;
	irq->again = false;
	pthread_cond_broadcast(&h->irq_cond);
	pthread_mutex_unlock(&h->irq_lock);
}

static void emu_msi(void *host, uint32_t vector)
{
	struct hf_emu_host *h = host;
	enum xdma_model_irq_mode mode;

	pthread_mutex_lock(&h->irq_lock);
	mode = h->mode;
	pthread_mutex_unlock(&h->irq_lock);
	if (mode == XDMA_MODEL_IRQ_MSI || mode == XDMA_MODEL_IRQ_MSIX)
		emu_call_handler(h, vector);
}

/* INTx: the vector-0 handler runs on each rising edge of the line. */
static void emu_intx(void *host, bool level)
{
	struct hf_emu_host *h = host;
	bool rise;

	pthread_mutex_lock(&h->irq_lock);
	rise = level && !h->intx_level && h->mode == XDMA_MODEL_IRQ_LEGACY;
	h->intx_level = level;
	pthread_mutex_unlock(&h->irq_lock);
	if (rise)
		emu_call_handler(h, 0);
}

int hf_emu_set_irq_mode(struct hf_emu_host *h, enum xdma_model_irq_mode mode)
{
	if (mode < XDMA_MODEL_IRQ_NONE || mode > XDMA_MODEL_IRQ_MSIX)
		return -EINVAL;
	pthread_mutex_lock(&h->irq_lock);
	h->mode = mode;
	pthread_mutex_unlock(&h->irq_lock);
	xdma_model_set_irq_mode(h->m, mode);
	return 0;
}

/**
 * hf_emu_request_irq() - install the handler of one vector.
 * @h: the host
 * @vector: MSI-X/MSI vector 0..31 (INTx uses vector 0)
 * @handler: called from the thread that raised the interrupt (an engine
 *	thread, or the MMIO caller for user interrupts and in HF_EMU_SYNC)
 * @arg: its argument
 *
 * Return: 0, -EINVAL, or -EBUSY when the vector has a handler.
 */
int hf_emu_request_irq(struct hf_emu_host *h, u32 vector,
		       void (*handler)(void *arg), void *arg)
{
	int r = 0;

	if (!h || vector >= EMU_NVEC || !handler)
		return -EINVAL;
	pthread_mutex_lock(&h->irq_lock);
	if (h->irqs[vector].handler) {
		r = -EBUSY;
	} else {
		h->irqs[vector].handler = handler;
		h->irqs[vector].arg = arg;
	}
	pthread_mutex_unlock(&h->irq_lock);
	return r;
}

/**
 * hf_emu_free_irq() - remove the handler of @vector; like the kernel's
 * free_irq() it waits for running calls of it to return (except a call
 * from inside that handler).
 * @h: the host
 * @vector: the vector
 */
void hf_emu_free_irq(struct hf_emu_host *h, u32 vector)
{
	if (!h || vector >= EMU_NVEC)
		return;
	pthread_mutex_lock(&h->irq_lock);
	h->irqs[vector].handler = NULL;
	h->irqs[vector].arg = NULL;
	while (h->irqs[vector].running && emu_in_handler != (int)vector)
		pthread_cond_wait(&h->irq_cond, &h->irq_lock);
	pthread_mutex_unlock(&h->irq_lock);
}

/* ---- engines ---- */

/*
 * Engines are always awake on hardware: after work, an engine thread spins
 * (hf_os_spin_wait(): pause, then yielding) this long for the next kick
 * before it sleeps, so a driver starting
 * transfers back to back does not pay a thread wake-up for each.
 */
#define EMU_ENGINE_SPIN_NS	2000000ull

/* Make timed sleeps of this thread precise (Linux: timer slack 1 us). */
static void emu_thread_precise(void)
{
#ifdef PR_SET_TIMERSLACK
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
}

/**
 * emu_engine_wait() - wait for the next reason to run the engine.
 * @t: the engine thread, @t->lock held (dropped while spinning)
 *
 * A kick, or the time the model asked for: sleep on @t->cond until shortly
 * before it, then spin.  With nothing asked for, spin a while for a kick,
 * then sleep.
 *
 * Return: false when the thread must end.
 */
static bool emu_engine_wait(struct emu_engine *t)
{
	struct timespec ts;
	u64 now, at;

	for (;;) {
		if (t->stop)
			return false;
		if (t->kicked) {
			__atomic_store_n(&t->kicked, false, __ATOMIC_RELAXED);
			return true;
		}
		at = t->wake_at;
		now = hf_os_now_ns();
		if (at && now >= at) {
			__atomic_store_n(&t->wake_at, 0, __ATOMIC_RELAXED);
			return true;
		}
		if (at && at - now <= EMU_WAKE_SPIN_NS) {
			pthread_mutex_unlock(&t->lock);
			while (hf_os_now_ns() < at &&
			       !__atomic_load_n(&t->kicked, __ATOMIC_ACQUIRE))
				hf_os_relax();
			pthread_mutex_lock(&t->lock);
			continue;
		}
		t->sleeping = true;
		if (at) {
			at -= EMU_WAKE_SPIN_NS;
			ts.tv_sec = at / 1000000000ull;
			ts.tv_nsec = at % 1000000000ull;
			pthread_cond_timedwait(&t->cond, &t->lock, &ts);
		} else {
			pthread_cond_wait(&t->cond, &t->lock);
		}
		t->sleeping = false;
	}
}

static void *emu_engine_thread(void *arg)
{
	struct emu_engine *t = arg;
	bool run;

	emu_thread_precise();
	pthread_mutex_lock(&t->lock);
	t->running = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	for (;;) {
		if (!__atomic_load_n(&t->wake_at, __ATOMIC_RELAXED))
			hf_os_spin_wait(&t->kicked, EMU_ENGINE_SPIN_NS);
		pthread_mutex_lock(&t->lock);
		run = emu_engine_wait(t);
		pthread_mutex_unlock(&t->lock);
		if (!run)
			break;
		pthread_mutex_lock(&t->work);
		xdma_model_engine_work(t->h->m, t->index);
		pthread_mutex_unlock(&t->work);
	}
	return NULL;
}

/*
 * HF_EMU_SYNC: run the engine in this thread, then serve the wake-ups it
 * asks for by sleeping here, until it has nothing timed left.  A nested
 * call (an interrupt handler starting the engine again) only runs the
 * work; the outer call serves the wake-ups.
 */
static void emu_sync_run(struct hf_emu_host *h, struct emu_engine *t)
{
	u64 at;

	if (t->sync_busy) {
		xdma_model_engine_work(h->m, t->index);
		return;
	}
	t->sync_busy = true;
	xdma_model_engine_work(h->m, t->index);
	while ((at = t->wake_at)) {
		t->wake_at = 0;
		emu_sleep_until(at);
		xdma_model_engine_work(h->m, t->index);
	}
	t->sync_busy = false;
}

/*
 * Engine @engine has work now (@when 0: ops->kick) or at @when
 * (ops->schedule).  HF_EMU_SYNC: a kick runs it here; a wake-up, asked
 * from its own work, is served by the emu_sync_run() around that work.
 */
static void emu_wake(struct hf_emu_host *h, uint32_t engine, u64 when)
{
	struct emu_engine *t;

	if (engine >= XDMA_MAX_ENGINES)
		return;
	t = &h->eng[engine];
	if (h->flags & HF_EMU_SYNC) {
		if (when)
			t->wake_at = when;
		else
			emu_sync_run(h, t);
		return;
	}
	/*
	 * A kick (a start, a register write that lets the engine go on) runs
	 * what the engine can do now in the kicking thread, when no other
	 * thread is running the engine: the thread that started a transfer
	 * waits for it anyway, and handing the work to the engine thread
	 * costs a thread wake-up each way.  What the engine must do later
	 * (the link model's slices, a hang's end) still goes to its thread.
	 */
	if (!when && !pthread_mutex_trylock(&t->work)) {
		xdma_model_engine_work(h->m, engine);
		pthread_mutex_unlock(&t->work);
		return;
	}
	pthread_mutex_lock(&t->lock);
	if (when)
		__atomic_store_n(&t->wake_at, when, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&t->kicked, true, __ATOMIC_RELEASE);
	if (t->sleeping)
		pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

static void emu_kick(void *host, uint32_t engine)
{
	emu_wake(host, engine, 0);
}

static void emu_schedule(void *host, uint32_t engine, uint64_t when_ns)
{
	emu_wake(host, engine, when_ns ? when_ns : 1);
}

static const struct xdma_model_host_ops emu_ops = {
	.dma_read = emu_dma_read,
	.dma_write = emu_dma_write,
	.msi = emu_msi,
	.intx = emu_intx,
	.kick = emu_kick,
	.now_ns = emu_now_ns,
	.schedule = emu_schedule,
};

/* ---- BARs ---- */

static u32 emu_dma_bar_read(void *ctx, u32 off)
{
	return xdma_model_dma_read32(ctx, off);
}

static void emu_dma_bar_write(void *ctx, u32 off, u32 val)
{
	xdma_model_dma_write32(ctx, off, val);
}

static u32 emu_user_bar_read(void *ctx, u32 off)
{
	return xdma_model_user_read32(ctx, off);
}

static void emu_user_bar_write(void *ctx, u32 off, u32 val)
{
	xdma_model_user_write32(ctx, off, val);
}

const struct hf_mmio *hf_emu_dma_bar(struct hf_emu_host *h)
{
	return &h->dma_bar;
}

const struct hf_mmio *hf_emu_user_bar(struct hf_emu_host *h)
{
	return &h->user_bar;
}

struct xdma_model *hf_emu_host_model(struct hf_emu_host *h)
{
	return h->m;
}

/* ---- life cycle ---- */

static void emu_stop_threads(struct hf_emu_host *h)
{
	u32 i;

	for (i = 0; i < XDMA_MAX_ENGINES; i++) {
		struct emu_engine *t = &h->eng[i];

		if (!t->started)
			continue;
		pthread_mutex_lock(&t->lock);
		__atomic_store_n(&t->stop, true, __ATOMIC_RELEASE);
		__atomic_store_n(&t->kicked, true, __ATOMIC_RELEASE);
		pthread_cond_signal(&t->cond);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
		t->started = false;
	}
}

/**
 * hf_emu_host_create() - an emulated card and its in-process host.
 * @cfg: card configuration (NULL: defaults)
 * @flags: HF_EMU_SYNC to run engines in the thread that starts them
 * @out: the host
 *
 * Return: 0, -EINVAL (bad configuration), -ENOMEM, or the negative error
 * of thread creation.
 */
int hf_emu_host_create(const struct xdma_model_config *cfg, u32 flags,
		       struct hf_emu_host **out)
{
	pthread_condattr_t cattr;
	struct hf_emu_host *h;
	u32 i, n;
	int r;

	if (!out || (flags & ~HF_EMU_SYNC))
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->flags = flags;
	h->next_bus = EMU_IOVA_BASE;
	pthread_rwlock_init(&h->map_lock, NULL);
	pthread_mutex_init(&h->region_lock, NULL);
	pthread_cond_init(&h->region_cond, NULL);
	pthread_mutex_init(&h->irq_lock, NULL);
	pthread_cond_init(&h->irq_cond, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	for (i = 0; i < XDMA_MAX_ENGINES; i++) {
		h->eng[i].h = h;
		h->eng[i].index = i;
		pthread_mutex_init(&h->eng[i].lock, NULL);
		pthread_mutex_init(&h->eng[i].work, NULL);
		pthread_cond_init(&h->eng[i].cond, &cattr);
	}
	pthread_condattr_destroy(&cattr);
	r = xdma_model_create(cfg, &emu_ops, h, &h->m);
	if (r)
		goto err;
	h->dma_bar = (struct hf_mmio){
		.read32 = emu_dma_bar_read,
		.write32 = emu_dma_bar_write,
		.ctx = h->m,
		.size = XDMA_BAR_SIZE,
	};
	h->user_bar = (struct hf_mmio){
		.read32 = emu_user_bar_read,
		.write32 = emu_user_bar_write,
		.ctx = h->m,
		.size = xdma_model_user_bar_size(h->m),
	};
	n = xdma_model_num_engines(h->m);
	for (i = 0; i < n && !(flags & HF_EMU_SYNC); i++) {
		r = -pthread_create(&h->eng[i].thread, NULL,
				    emu_engine_thread, &h->eng[i]);
		if (r)
			goto err;
		h->eng[i].started = true;
	}
	/*
	 * A thread still starting may hold the allocator's locks (the C
	 * library and ASan allocate for a new thread): a fork() then would
	 * leave them held forever in the child.  Return once every engine
	 * thread is in its loop, where it allocates nothing.
	 */
	for (i = 0; i < n && !(flags & HF_EMU_SYNC); i++) {
		pthread_mutex_lock(&h->eng[i].lock);
		while (!h->eng[i].running)
			pthread_cond_wait(&h->eng[i].cond, &h->eng[i].lock);
		pthread_mutex_unlock(&h->eng[i].lock);
	}
	*out = h;
	return 0;
err:
	hf_emu_host_destroy(h);
	return r;
}

/**
 * hf_emu_host_destroy() - stop the engine threads, free the card, every
 * mapping (regions included) and the memory of hf_emu_dma_alloc() not yet
 * freed.
 * @h: the host (NULL is ignored)
 */
void hf_emu_host_destroy(struct hf_emu_host *h)
{
	size_t j;
	u32 i;

	if (!h)
		return;
	emu_stop_threads(h);
	xdma_model_destroy(h->m);
	for (i = 0; i < XDMA_MAX_ENGINES; i++) {
		pthread_cond_destroy(&h->eng[i].cond);
		pthread_mutex_destroy(&h->eng[i].lock);
		pthread_mutex_destroy(&h->eng[i].work);
	}
	pthread_cond_destroy(&h->irq_cond);
	pthread_mutex_destroy(&h->irq_lock);
	pthread_cond_destroy(&h->region_cond);
	pthread_mutex_destroy(&h->region_lock);
	pthread_rwlock_destroy(&h->map_lock);
	/* The engine threads are gone: no region callback runs any more. */
	for (j = 0; j < h->nmaps; j++) {
		if (h->maps[j].owned)
			free(h->maps[j].cpu);
		free(h->maps[j].region);
	}
	free(h->maps);
	free(h);
}
