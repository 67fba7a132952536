// SPDX-License-Identifier: MIT
/*
 * gpu_emu.c - the emulated GPU, for machines without CUDA (CI).
 *
 * Its memory lives in one window of address space reserved at start-up
 * (PROT_NONE, like a BAR nothing is mapped behind).  An allocation maps
 * anonymous memory at a GPU-page-aligned place of the window, first fit, so
 * a freed address is soon handed out again, as CUDA does; freeing maps the
 * range back to PROT_NONE, so a stray access to freed memory faults (and
 * write(2) from it fails with EFAULT) instead of landing somewhere.
 *
 * Two flavours:
 *  desktop  device memory with 64 KiB pages; host memory is not GPU memory
 *  tegra    an integrated GPU: pinned host memory with 4 KiB pages
 *
 * Every allocation has a buffer id (a counter, never reused) for
 * hf_gpu_check(), and a list of watchers: freeing an allocation first calls
 * their revoke callbacks, one after the other (as NVIDIA's free callback
 * does for pinned pages), and only then unmaps the memory, so a user of a
 * pin has stopped DMA before the memory goes.
 *
 * HELLOFPGA_EMU_GPU_DEV=/dev/nvp2p-standin (tests in a VM): allocations map
 * memory of that device instead of anonymous memory (MAP_SHARED at offset
 * 0: each mapping is a new allocation of the device), so a kernel-side
 * stand-in of nvidia_p2p can hand it out as GPU memory; unmapping it is the
 * device's "cudaFree".
 *
 * Locking: emu.lock protects the allocation list and the watch list,
 * including the mmap() calls that change the window (so a range is never
 * given out while it is still being unmapped).  Revoke callbacks run with
 * emu.lock NOT held: a callback may call any hf_gpu_* function.  The
 * caller of hf_gpu_unwatch() must not hold a lock that a callback takes,
 * since unwatch waits for a running callback (the rule of
 * nvidia_p2p_put_pages()).
 *
 * fork(): emu.lock is taken around fork() (pthread_atfork()), so the child
 * never inherits it held by a thread it does not have.  The child keeps
 * the allocations (its copy of the memory) but not the parent's watchers:
 * they belong to pins of handles that do not survive fork() (the child's
 * calls on them are -ECHILD), and their callbacks must not run in the
 * child (a thread of the parent may have held a pin's lock).  A free that
 * a thread of the parent had begun is finished in the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu_internal.h"
#include "hf_error.h"
#include "hf_os.h"

#define EMU_PAGE_DESKTOP	(64u << 10)
#define EMU_PAGE_TEGRA		(4u << 10)
/*
 * Like cudaMalloc() on a desktop GPU: an allocation of 2 MiB or more starts
 * on a 2 MiB boundary, so each 2 MiB run of it is one contiguous piece of a
 * pin (the BAR window maps 2 MiB runs) and a ring of 1 MiB buffers never has
 * a buffer across two pieces.
 */
#define EMU_ALIGN_LARGE		(2u << 20)
#define EMU_WINDOW_MAX		(64ull << 30)
#define EMU_WINDOW_MIN		(256ull << 20)

/**
 * struct emu_alloc - one allocation of the emulated GPU.
 * @next: next allocation, by ascending @base
 * @base: start (GPU-page aligned)
 * @size: size, a multiple of the GPU page
 * @id: buffer id
 * @freeing: free has begun: invisible to query/check/watch
 */
struct emu_alloc {
	struct emu_alloc *next;
	uintptr_t base;
	size_t size;
	uint64_t id;
	bool freeing;
};

/**
 * struct emu_watch - a revoke callback registered with hf_gpu_watch().
 * @next: next watcher (any allocation)
 * @id: registration id, > 0
 * @alloc: the watched allocation
 * @fn: revoke callback
 * @arg: its argument
 * @running: the callback runs now, in @thread
 * @thread: the thread freeing the allocation, while @running
 */
struct emu_watch {
	struct emu_watch *next;
	long id;
	struct emu_alloc *alloc;
	hf_gpu_revoke_fn fn;
	void *arg;
	bool running;
	pthread_t thread;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t done;		/* a revoke callback returned */
	uintptr_t win;
	size_t win_size;
	size_t page;
	bool tegra;
	struct emu_alloc *allocs;
	struct emu_watch *watches;
	uint64_t next_buffer_id;
	long next_watch_id;
	int dev_fd;			/* HELLOFPGA_EMU_GPU_DEV, or -1 */
} emu = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.dev_fd = -1,
};

static void emu_fork_prepare(void)
{
	pthread_mutex_lock(&emu.lock);
}

static void emu_fork_parent(void)
{
	pthread_mutex_unlock(&emu.lock);
}

static void emu_unmap(uintptr_t base, size_t len);

/* Only the thread that forked runs here; emu.lock held since prepare. */
static void emu_fork_child(void)
{
	struct emu_alloc **link = &emu.allocs;

	while (emu.watches) {
		struct emu_watch *w = emu.watches;

		emu.watches = w->next;
		free(w);
	}
	while (*link) {
		struct emu_alloc *a = *link;

		if (!a->freeing) {
			link = &a->next;
			continue;
		}
		emu_unmap(a->base, a->size);
		*link = a->next;
		free(a);
	}
	/* a new condition variable: waiters of the parent are not here */
	pthread_cond_init(&emu.done, NULL);
	pthread_mutex_unlock(&emu.lock);
}

/* The live allocation holding @p, or NULL.  emu.lock held. */
static struct emu_alloc *emu_find(uintptr_t p)
{
	struct emu_alloc *a;

	for (a = emu.allocs; a && a->base <= p; a = a->next)
		if (p - a->base < a->size && !a->freeing)
			return a;
	return NULL;
}

static const char *emu_not_gpu_hint(void)
{
	return emu.tegra ?
	       "GPU Direct on Tegra needs pinned host memory (cudaHostAlloc, HelloFPGA_GPU_Alloc)" :
	       "host memory or unallocated; GPU Direct on a desktop GPU needs device memory (cudaMalloc, HelloFPGA_GPU_Alloc)";
}

/**
 * emu_range() - is [@p, @p + @size) inside one live allocation?
 * @p: start
 * @size: bytes, > 0, no overflow
 * @what: name of the range for the text ("dst", "the range")
 * @why: receives the reason when not
 * @whylen: size of @why
 *
 * emu.lock held.  Return: the allocation, or NULL with @why filled.
 */
static struct emu_alloc *emu_range(uintptr_t p, size_t size, const char *what,
				   char *why, size_t whylen)
{
	struct emu_alloc *a = emu_find(p), *b;

	if (!a) {
		snprintf(why, whylen, "%s %#lx is not GPU memory: %s", what,
			 (unsigned long)p, emu_not_gpu_hint());
		return NULL;
	}
	if (size <= a->size - (p - a->base))
		return a;
	b = emu_find(p + size - 1);
	if (b)
		snprintf(why, whylen,
			 "%s [%#lx, +%zu) crosses from the GPU allocation at %#lx (%zu bytes) into the one at %#lx: a buffer must lie inside one allocation",
			 what, (unsigned long)p, size, (unsigned long)a->base,
			 a->size, (unsigned long)b->base);
	else
		snprintf(why, whylen,
			 "%s [%#lx, +%zu) runs %zu bytes past the end of the GPU allocation at %#lx (%zu bytes)",
			 what, (unsigned long)p, size,
			 (size_t)(p + size - (a->base + a->size)),
			 (unsigned long)a->base, a->size);
	return NULL;
}

/**
 * emu_place() - first fit for @len bytes in the window.  emu.lock held.
 * @align: the start's alignment, a power of two
 * @prevp: receives the link to insert the new allocation at
 * Return: the address, or 0 when no gap is large enough.
 */
static uintptr_t emu_place(size_t len, uintptr_t align,
			   struct emu_alloc ***prevp)
{
	struct emu_alloc **link = &emu.allocs;
	uintptr_t at = ALIGN(emu.win, align);

	for (; *link; link = &(*link)->next) {
		if ((*link)->base >= at && (*link)->base - at >= len)
			break;
		at = ALIGN((*link)->base + (*link)->size, align);
	}
	if (!*link && (at > emu.win + emu.win_size ||
		       emu.win + emu.win_size - at < len))
		return 0;
	*prevp = link;
	return at;
}

static int emu_alloc(void **ptr, size_t size)
{
	struct emu_alloc *a, **link;
	size_t len;
	uintptr_t at;
	void *m;

	if (size > emu.win_size)
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_Alloc: %zu bytes exceed the emulated GPU's %zu MiB of memory",
				    size, emu.win_size >> 20);
	len = ALIGN(size, emu.page);
	a = calloc(1, sizeof(*a));
	if (!a)
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_Alloc: out of memory");
	pthread_mutex_lock(&emu.lock);
	at = emu_place(len, !emu.tegra && len >= EMU_ALIGN_LARGE ?
			    EMU_ALIGN_LARGE : emu.page, &link);
	if (!at) {
		pthread_mutex_unlock(&emu.lock);
		free(a);
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_Alloc: no free range of %zu bytes left in the emulated GPU's %zu MiB of memory",
				    len, emu.win_size >> 20);
	}
	if (emu.dev_fd >= 0)
		m = mmap((void *)at, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, emu.dev_fd, 0);
	else
		m = mmap((void *)at, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (m == MAP_FAILED) {
		int err = errno;

		pthread_mutex_unlock(&emu.lock);
		free(a);
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_Alloc: cannot map %zu bytes of emulated GPU memory: %s",
				    len, strerror(err));
	}
	if (emu.tegra && emu.dev_fd < 0) {
		/*
		 * Like cudaHostAlloc() memory: pinned pages that stay where
		 * they are, so no khugepaged collapse or fork copy-on-write
		 * invalidates a pin of it (the Tegra nvidia_p2p API revokes
		 * pins on any invalidation of their range).
		 */
		madvise(m, len, MADV_NOHUGEPAGE);
		madvise(m, len, MADV_DONTFORK);
	}
	a->base = at;
	a->size = len;
	a->id = ++emu.next_buffer_id;
	a->next = *link;
	*link = a;
	pthread_mutex_unlock(&emu.lock);
	*ptr = (void *)at;
	return 0;
}

/* Give [base, base + len) back to the window: PROT_NONE, pages dropped. */
static void emu_unmap(uintptr_t base, size_t len)
{
	void *m = mmap((void *)base, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		       -1, 0);

	if (m == MAP_FAILED) {
		/* cannot fail short of a VMA limit; still make it fault */
		madvise((void *)base, len, MADV_DONTNEED);
		mprotect((void *)base, len, PROT_NONE);
	}
}

/**
 * emu_free() - free an allocation: revoke its watchers, then unmap it.
 *
 * The allocation is marked freeing first, so no new watcher, query or
 * check sees it; then each watcher's callback runs, without emu.lock, and
 * is removed when it returns; last the memory is unmapped and the address
 * range becomes free.
 */
static int emu_free(void *ptr)
{
	uintptr_t p = (uintptr_t)ptr;
	struct emu_alloc *a, **link;
	struct emu_watch *w, **wl;

	pthread_mutex_lock(&emu.lock);
	for (link = &emu.allocs; *link; link = &(*link)->next)
		if ((*link)->base == p && !(*link)->freeing)
			break;
	a = *link;
	if (!a) {
		a = emu_find(p);
		pthread_mutex_unlock(&emu.lock);
		if (a)
			return hf_set_error(NULL, -EINVAL,
					    "HelloFPGA_GPU_Free: %p is inside the GPU allocation at %#lx: free takes the address HelloFPGA_GPU_Alloc returned",
					    ptr, (unsigned long)a->base);
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_Free: %p is not GPU memory from HelloFPGA_GPU_Alloc (or was freed already)",
				    ptr);
	}
	a->freeing = true;
	for (;;) {
		for (w = emu.watches; w; w = w->next)
			if (w->alloc == a && !w->running)
				break;
		if (!w)
			break;
		w->running = true;
		w->thread = pthread_self();
		pthread_mutex_unlock(&emu.lock);
		w->fn(w->arg);
		pthread_mutex_lock(&emu.lock);
		for (wl = &emu.watches; *wl != w; wl = &(*wl)->next)
			;
		*wl = w->next;
		free(w);
		pthread_cond_broadcast(&emu.done);
	}
	emu_unmap(a->base, a->size);
	/* the list may have changed while callbacks ran: find a again */
	for (link = &emu.allocs; *link != a; link = &(*link)->next)
		;
	*link = a->next;
	pthread_mutex_unlock(&emu.lock);
	free(a);
	return 0;
}

static int emu_memcpy(void *dst, const void *src, size_t size, int kind)
{
	bool to_gpu = kind == HELLOFPGA_MEMCPY_HOST_TO_GPU;
	uintptr_t g = (uintptr_t)(to_gpu ? dst : src);
	char why[256];

	if (g + size < g)
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_Memcpy: %p + %zu overflows",
				    (void *)g, size);
	pthread_mutex_lock(&emu.lock);
	if (!emu_range(g, size, to_gpu ? "dst" : "src", why, sizeof(why))) {
		pthread_mutex_unlock(&emu.lock);
		return hf_set_error(NULL, -EINVAL, "HelloFPGA_GPU_Memcpy: %s",
				    why);
	}
	pthread_mutex_unlock(&emu.lock);
	/* a free racing with this copy is the caller's bug, as with CUDA */
	memcpy(dst, src, size);
	return 0;
}

static int emu_query(const void *ptr, size_t size, struct hf_gpu_buf *buf,
		     char *why, size_t whylen)
{
	struct emu_alloc *a;

	pthread_mutex_lock(&emu.lock);
	a = emu_range((uintptr_t)ptr, size, "the buffer", why, whylen);
	if (a) {
		buf->alloc_base = a->base;
		buf->alloc_size = a->size;
		buf->buffer_id = a->id;
		buf->device_memory = !emu.tegra;
	}
	pthread_mutex_unlock(&emu.lock);
	return a ? 0 : -EINVAL;
}

static int emu_set_sync_memops(const void *ptr)
{
	bool ok;

	pthread_mutex_lock(&emu.lock);
	ok = emu_find((uintptr_t)ptr);
	pthread_mutex_unlock(&emu.lock);
	if (!ok)
		return hf_set_error(NULL, -EINVAL,
				    "set SYNC_MEMOPS: %p is not GPU memory",
				    ptr);
	return 0;	/* the emulated GPU has no asynchronous copies */
}

static int emu_buffer_id(const void *ptr, uint64_t *id)
{
	struct emu_alloc *a;

	pthread_mutex_lock(&emu.lock);
	a = emu_find((uintptr_t)ptr);
	if (a)
		*id = a->id;
	pthread_mutex_unlock(&emu.lock);
	if (!a)
		return hf_set_error(NULL, -ENXIO,
				    "GPU memory at %p was freed", ptr);
	return 0;
}

static long emu_watch(const void *ptr, hf_gpu_revoke_fn fn, void *arg)
{
	struct emu_watch *w = calloc(1, sizeof(*w));
	struct emu_alloc *a;
	long id;

	if (!w)
		return hf_set_error(NULL, -ENOMEM, "GPU free watch: out of memory");
	pthread_mutex_lock(&emu.lock);
	a = emu_find((uintptr_t)ptr);
	if (!a) {
		pthread_mutex_unlock(&emu.lock);
		free(w);
		return hf_set_error(NULL, -EINVAL,
				    "GPU free watch: %p is not GPU memory (or is being freed)",
				    ptr);
	}
	id = ++emu.next_watch_id;
	w->id = id;
	w->alloc = a;
	w->fn = fn;
	w->arg = arg;
	w->next = emu.watches;
	emu.watches = w;
	pthread_mutex_unlock(&emu.lock);
	return id;
}

/**
 * emu_unwatch() - remove watcher @id; if its callback is running in another
 * thread, wait until it has returned.  Called from the callback itself (in
 * the freeing thread) it returns at once: the watcher goes when the
 * callback returns.
 */
static void emu_unwatch(long id)
{
	struct emu_watch *w, **wl;

	pthread_mutex_lock(&emu.lock);
	for (;;) {
		for (wl = &emu.watches; *wl && (*wl)->id != id;
		     wl = &(*wl)->next)
			;
		w = *wl;
		if (!w)
			break;		/* unknown, or fired and gone */
		if (!w->running) {
			*wl = w->next;
			free(w);
			break;
		}
		if (pthread_equal(w->thread, pthread_self()))
			break;
		pthread_cond_wait(&emu.done, &emu.lock);
	}
	pthread_mutex_unlock(&emu.lock);
}

static int emu_copy_to_gpu(void *gpu_dst, const void *host_src, size_t size)
{
	memcpy(gpu_dst, host_src, size);
	return 0;
}

static int emu_copy_from_gpu(void *host_dst, const void *gpu_src, size_t size)
{
	memcpy(host_dst, gpu_src, size);
	return 0;
}

static int emu_register_host(void *ptr, size_t size)
{
	return 0;
}

static void emu_unregister_host(void *ptr)
{
}

/*
 * The emulated desktop GPU's memory is host memory underneath, but a real
 * desktop GPU's device memory is not reachable by the CPU path: report it as
 * device memory so the library refuses it the same way.  Tegra memory is
 * pinned host memory, usable by both paths.
 */
static bool emu_is_device_ptr(const void *ptr)
{
	bool found;

	if (emu.tegra)
		return false;
	pthread_mutex_lock(&emu.lock);
	found = emu_find((uintptr_t)ptr) != NULL;
	pthread_mutex_unlock(&emu.lock);
	return found;
}

/* The emulated GPU reaches host memory at its host address. */
static int emu_map_host(void *ptr, size_t size, uint64_t *dev, const char *fn)
{
	(void)size;
	(void)fn;
	*dev = (uint64_t)(uintptr_t)ptr;
	return 0;
}

static const struct hf_gpu_ops emu_ops = {
	.alloc = emu_alloc,
	.free = emu_free,
	.memcpy = emu_memcpy,
	.query = emu_query,
	.set_sync_memops = emu_set_sync_memops,
	.buffer_id = emu_buffer_id,
	.watch = emu_watch,
	.unwatch = emu_unwatch,
	.copy_to_gpu = emu_copy_to_gpu,
	.copy_from_gpu = emu_copy_from_gpu,
	.register_host = emu_register_host,
	.unregister_host = emu_unregister_host,
	.is_device_ptr = emu_is_device_ptr,
	.stream_create = hf_emu_gpu_stream_create,
	.stream_destroy = hf_emu_gpu_stream_destroy,
	.stream_sync = hf_emu_gpu_stream_sync,
	.host_func = hf_emu_gpu_host_func,
	.memops = hf_emu_gpu_memops,
	.map_host = emu_map_host,
	.wait32 = hf_emu_gpu_wait32,
	.write32 = hf_emu_gpu_write32,
};

/**
 * emu_reserve() - reserve the window: the largest of 64 GiB, 32 GiB, ...
 * 256 MiB that the address space grants, aligned to 2 MiB (EMU_ALIGN_LARGE).
 */
static int emu_reserve(void)
{
	size_t size;

	for (size = EMU_WINDOW_MAX; size >= EMU_WINDOW_MIN; size /= 2) {
		size_t len = size + EMU_ALIGN_LARGE;
		uintptr_t m, start;

		m = (uintptr_t)mmap(NULL, len, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS |
				    MAP_NORESERVE, -1, 0);
		if ((void *)m == MAP_FAILED)
			continue;
		start = ALIGN(m, (uintptr_t)EMU_ALIGN_LARGE);
		if (start > m)
			munmap((void *)m, start - m);
		if (m + len > start + size)
			munmap((void *)(start + size), m + len - start - size);
		emu.win = start;
		emu.win_size = size;
		return 0;
	}
	return -ENOMEM;
}

const struct hf_gpu_ops *hf_emu_gpu_init(struct hf_gpu *g, bool tegra,
					 char *reason, size_t reasonlen)
{
	HELLOFPGA_GPU_STATUS *s = &g->status;
	const char *dev = getenv("HELLOFPGA_EMU_GPU_DEV");

	if (dev && *dev) {
		emu.dev_fd = open(dev, O_RDWR | O_CLOEXEC);
		if (emu.dev_fd < 0) {
			snprintf(reason, reasonlen,
				 "HELLOFPGA_EMU_GPU_DEV: cannot open %.64s: %s",
				 dev, strerror(errno));
			return NULL;
		}
	}
	if (emu_reserve()) {
		if (emu.dev_fd >= 0) {
			close(emu.dev_fd);
			emu.dev_fd = -1;
		}
		snprintf(reason, reasonlen,
			 "cannot reserve %llu MiB of address space for its memory",
			 EMU_WINDOW_MIN >> 20);
		return NULL;
	}
	emu.tegra = tegra;
	emu.page = tegra ? EMU_PAGE_TEGRA : EMU_PAGE_DESKTOP;
	/* once: hf_gpu_get() chooses the GPU once per process */
	pthread_atfork(emu_fork_prepare, emu_fork_parent, emu_fork_child);
	hf_emu_gpu_stream_fork_init();

	memset(g, 0, sizeof(*g));
	g->kind = HF_GPU_EMU;
	s->platform = tegra ? HELLOFPGA_PLATFORM_TEGRA :
			      HELLOFPGA_PLATFORM_DESKTOP;
	s->supported = 1;
	s->emulated = 1;
	s->device = 0;
	snprintf(s->name, sizeof(s->name), "%s",
		 tegra ? "emulated Tegra GPU (integrated, 4 KiB pages)" :
			 "emulated desktop GPU (64 KiB pages)");
	s->cuda_driver_version = 0;
	s->rdma_supported = 1;
	s->dmabuf_supported = 1;
	s->page_size = emu.page;
	return &emu_ops;
}
