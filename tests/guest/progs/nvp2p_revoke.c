// SPDX-License-Identifier: MIT
/*
 * nvp2p_revoke - revocation of nvidia_p2p pins in the guest: the free
 * callback of nvp2p-standin.ko fires while transfers stream, through the
 * real hellofpga-nvp2p.ko and hellofpga.ko.
 *
 *   nvp2p_revoke [-d /dev/hellofpgaN] [-c CHANNEL]
 *
 * Needs nvp2p-standin.ko (either flavor) and the provider linked against
 * it loaded.  Sets, unless already set, HELLOFPGA_GPU=emu (emu-tegra for
 * the Tegra stand-in), HELLOFPGA_PIN=cuda and, desktop,
 * HELLOFPGA_EMU_GPU_DEV=/dev/nvp2p-standin, so the library's GPU memory
 * is the stand-in's and its pins are PIN_CUDA.  Checks:
 *   lib-revoke-midstream  library pin; a thread streams GPUDirect
 *                         transfers; the stand-in fires the free callback
 *                         from a kernel worker: the stream stops with an
 *                         error (errno reported), no transfer succeeds
 *                         afterwards, Unpin and Free work
 *   raw-revoke-idle       raw PIN_CUDA, synchronous revocation, XFER fails
 *   raw-revoke-in-setup   the free callback fires (stand-in hook, kernel
 *                         worker, RM lock held) while PIN is inside
 *                         nvidia_p2p_dma_map_pages(), between get_pages
 *                         and a usable pin: PIN fails with EFAULT and says
 *                         so, quickly (no deadlock), nothing leaks
 *   raw-revoke-after-map  the same, the callback and RM's teardown
 *                         running just before dma_map_pages returns: the
 *                         mapping PIN gets back is already gone
 *   raw-revoke-in-unmap   the callback fires while UNPIN is inside
 *                         nvidia_p2p_dma_unmap_pages(): UNPIN works, no
 *                         deadlock, nothing leaks
 *   raw-revoke-in-put     (desktop) the same inside nvidia_p2p_put_pages()
 *   raw-free-midstream    raw PIN_CUDA; the memory is unmapped (cudaFree:
 *                         desktop VMA close / Tegra MMU notifier) while a
 *                         thread streams XFERs
 *   exit-with-pins        a child pins, streams, and exits without
 *                         unpinning
 *   counters              every page table, mapping and allocation is gone
 * With persistent pins (desktop, use_persistent=1) there is no callback:
 * revocations fire nothing, transfers go on, freed memory lives until
 * unpin; the checks then assert that instead (the hooked ones skip).
 *
 * Prints PASS/FAIL/SKIP lines prefixed "revoke/"; exit status 1 on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hellofpga.h"
#include "uapi/hellofpga.h"
#include "../kmod/nvp2p-standin/nvp2p_standin_uapi.h"
#include "hf_guest.h"

#define BUF		(1u << 20)	/* pinned buffer */
#define PIECE		(256u << 10)	/* one streamed transfer */
#define CARD_ADDR	0x100000ull
#define STREAM_MAX_S	20

static const char *card = "/dev/hellofpga0";
static int ch;
static int sa = -1;		/* /dev/nvp2p-standin */
static bool tegra, persistent;

static int stats(struct nvp2p_standin_stats *s)
{
	memset(s, 0, sizeof(*s));
	return ioctl(sa, NVP2P_STANDIN_IOC_STATS, s) ? -errno : 0;
}

static int sa_revoke(void *p, size_t n, bool async, unsigned int delay_ms,
		  unsigned int *fired)
{
	struct nvp2p_standin_revoke r = {
		.addr = (uintptr_t)p, .size = n,
		.flags = async ? NVP2P_STANDIN_REVOKE_ASYNC : 0,
		.delay_ms = delay_ms,
	};

	if (ioctl(sa, NVP2P_STANDIN_IOC_REVOKE, &r))
		return -errno;
	if (fired)
		*fired = r.fired;
	return 0;
}

/* Arm the stand-in's one-shot hook (@n 0: disarm). */
static int sa_hook(void *p, size_t n, uint32_t point, uint32_t flags)
{
	struct nvp2p_standin_hook h = {
		.addr = (uintptr_t)p, .size = n, .point = point, .flags = flags,
	};

	return ioctl(sa, NVP2P_STANDIN_IOC_HOOK, &h) ? -errno : 0;
}

/*
 * Stats once the page tables and mappings are back to @s0's (Tegra drops
 * a notifier's reference after an SRCU grace period), at most 5 s.
 */
static int stats_settled(const struct nvp2p_standin_stats *s0,
			 struct nvp2p_standin_stats *s)
{
	int r;

	for (int i = 0; i < 500; i++) {
		r = stats(s);
		if (r || (s->tables == s0->tables && s->mappings == s0->mappings))
			return r;
		usleep(10000);
	}
	return 0;
}

/*
 * Stats once no page table or mapping is left from earlier checks (Tegra
 * drops a notifier's reference after an SRCU grace period), at most 5 s.
 */
static int stats_quiet(struct nvp2p_standin_stats *s)
{
	struct nvp2p_standin_stats zero = { 0 };

	return stats_settled(&zero, s);
}

/* Wait (up to 5 s) for asynchronous revocations to finish. */
static void revokes_settle(void)
{
	struct nvp2p_standin_stats s;

	for (int i = 0; i < 500 && !stats(&s) && s.revokes_pending; i++)
		usleep(10000);
}

/* ---- "GPU memory" outside the library ---- */

/* desktop: 64 KiB aligned mapping of the stand-in; Tegra: anonymous */
static void *gmem_alloc(size_t n)
{
	size_t span = n + (64u << 10);
	uint8_t *r, *p;

	r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)r + 0xffff) & ~(uintptr_t)0xffff);
	if (tegra)
		p = mmap(p, n, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE,
			 -1, 0);
	else
		p = mmap(p, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 sa, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* ---- raw ioctls on a control node of our own ---- */

static int raw_pin(int ctl, void *p, size_t n, uint64_t *handle)
{
	struct hellofpga_pin r = { .type = HELLOFPGA_PIN_CUDA,
				   .addr = (uintptr_t)p, .size = n, .fd = -1 };

	if (ioctl(ctl, HELLOFPGA_IOC_PIN, &r))
		return -errno;
	*handle = r.handle;
	return 0;
}

/* XFER of [@off, +@len) of the pin to CARD_ADDR + @off on channel ch */
static int raw_xfer(int ctl, uint64_t handle, uint64_t off, uint64_t len,
		    uint32_t dir)
{
	return hfg_xfer(ctl, handle, dir, ch, off, CARD_ADDR + off, len, 0,
			NULL);
}

/* ---- a streaming thread, library or raw ---- */

struct stream {
	HELLOFPGA_HANDLE h;	/* library, or NULL for raw */
	HELLOFPGA_GPU_HANDLE hd;
	int ctl;
	uint64_t handle;
	volatile int stop;
	volatile unsigned long ok;	/* transfers that succeeded */
	int err;			/* the first failure, negative errno */
	char text[256];
};

static void *stream_fn(void *arg)
{
	struct stream *s = arg;
	double end = hfg_now() + STREAM_MAX_S;
	unsigned long i = 0;
	int r;

	while (!s->stop && hfg_now() < end) {
		uint64_t off = (i % (BUF / PIECE)) * PIECE;
		bool c2h = i & 1;

		if (s->h)
			r = c2h ? HelloFPGA_GPUDirect_Xfer(s->h, ch, s->hd, off,
							   CARD_ADDR + off, PIECE,
							   HELLOFPGA_DIR_C2H, 0, NULL) :
				  HelloFPGA_GPUDirect_Xfer(s->h, ch, s->hd, off,
							   CARD_ADDR + off, PIECE,
							   HELLOFPGA_DIR_H2C, 0, NULL);
		else
			r = raw_xfer(s->ctl, s->handle, off, PIECE,
				     c2h ? HELLOFPGA_XFER_C2H : HELLOFPGA_XFER_H2C);
		if (r) {
			s->err = r;
			snprintf(s->text, sizeof(s->text), "%s",
				 s->h ? HelloFPGA_GetLastError(s->h) :
					hfg_drv_err(s->ctl));
			break;
		}
		s->ok++;
		i++;
	}
	return NULL;
}

/* Wait until @s has done @n transfers (or ended); false on timeout. */
static bool stream_wait(struct stream *s, unsigned long n)
{
	double end = hfg_now() + 10;

	while (s->ok < n && !s->err && hfg_now() < end)
		usleep(1000);
	return s->ok >= n;
}

/*
 * Stop @s after @more further transfers (or an error, or 10 s; 0: at
 * once) and join its thread @th.
 */
static void stream_stop(struct stream *s, pthread_t th, unsigned long more)
{
	if (more)
		stream_wait(s, s->ok + more);
	s->stop = 1;
	pthread_join(th, NULL);
}

/*
 * Start @s in the thread *@th; true once it has done 16 transfers, else
 * check @n fails and the thread is stopped.
 */
static bool stream_start(const char *n, struct stream *s, pthread_t *th)
{
	pthread_create(th, NULL, stream_fn, s);
	if (stream_wait(s, 16))
		return true;
	stream_stop(s, *th, 0);
	HFG_FAIL(n, "the stream did not get going: %d (%s)", s->err, s->text);
	return false;
}

/* ---- the checks ---- */

static void lib_revoke_midstream(void)
{
	const char *n = "lib-revoke-midstream";
	struct stream s = { 0 };
	HELLOFPGA_HANDLE h;
	pthread_t th;
	unsigned long before;
	void *g = NULL;
	int r;

	r = HelloFPGA_Open(card, &h);
	if (r) {
		HFG_FAIL(n, "HelloFPGA_Open(%s): %s", card,
			 HelloFPGA_GetLastError(NULL));
		return;
	}
	r = HelloFPGA_GPU_Alloc(&g, BUF);
	if (!r)
		r = HelloFPGA_GPUDirect_Pin(h, g, BUF, &s.hd);
	if (r) {
		HFG_FAIL(n, "GPU_Alloc + GPUDirect_Pin: %s",
			 HelloFPGA_GetLastError(h));
		goto out;
	}
	s.h = h;
	if (!stream_start(n, &s, &th))
		goto out;
	before = s.ok;
	r = sa_revoke(g, BUF, true, 5, NULL);
	if (r) {
		stream_stop(&s, th, 0);
		HFG_FAIL(n, "REVOKE: %s", strerror(-r));
		goto out;
	}
	if (persistent) {
		/* no callback: the stream must go on */
		revokes_settle();
		stream_stop(&s, th, 16);
		if (s.err)
			HFG_FAIL(n, "persistent pin: a transfer failed after a revocation that has nothing to revoke: %d (%s)",
				 s.err, s.text);
		else
			HFG_PASS(n, NULL);
		goto unpin;
	}
	pthread_join(th, NULL);
	revokes_settle();
	if (!s.err) {
		HFG_FAIL(n, "the stream ran %d s without a failure after the free callback",
			 STREAM_MAX_S);
	} else {
		int again = HelloFPGA_GPUDirect_ReadC2H(h, ch, s.hd, CARD_ADDR,
							 PIECE, 0);

		printf("# %s: %lu transfers before, %lu after the revocation was asked; the stream ended with %d (%s): %s\n",
		       n, before, s.ok - before, s.err, strerror(-s.err), s.text);
		if (!again)
			HFG_FAIL(n,
				 "a transfer after the revocation succeeded");
		else
			HFG_PASS(n, NULL);
	}
unpin:
	r = HelloFPGA_GPUDirect_Unpin(h, s.hd);
	if (r)
		HFG_FAIL(n, "Unpin after the revocation: %s",
			 HelloFPGA_GetLastError(h));
out:
	if (g && HelloFPGA_GPU_Free(g))
		HFG_FAIL(n, "GPU_Free: %s", HelloFPGA_GetLastError(NULL));
	HelloFPGA_Close(h);
}

static void raw_revoke_idle(void)
{
	const char *n = "raw-revoke-idle";
	unsigned int fired = 99;
	uint64_t hd;
	int ctl = hfg_open(card, "_control", O_RDWR), r, x;
	void *g = gmem_alloc(BUF);

	if (ctl < 0 || !g) {
		HFG_FAIL(n, "control node or memory: %s", strerror(errno));
		goto out;
	}
	r = raw_pin(ctl, g, BUF, &hd);
	if (r) {
		HFG_FAIL(n, "PIN_CUDA: %s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
		goto out;
	}
	r = raw_xfer(ctl, hd, 0, PIECE, HELLOFPGA_XFER_C2H);
	if (r) {
		HFG_FAIL(n, "XFER before: %s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
		goto unpin;
	}
	r = sa_revoke(g, BUF, false, 0, &fired);
	x = raw_xfer(ctl, hd, 0, PIECE, HELLOFPGA_XFER_C2H);
	if (r)
		HFG_FAIL(n, "REVOKE: %s", strerror(-r));
	else if (persistent && (fired || x))
		HFG_FAIL(n, "persistent pin: %u callbacks fired, XFER %d",
			 fired, x);
	else if (!persistent && (fired != 1 || x != -EFAULT))
		HFG_FAIL(n, "%u callbacks fired (1 expected), XFER after it: %d %s (-EFAULT expected)",
			 fired, x, hfg_drv_err(ctl));
	else
		HFG_PASS(n, NULL);
unpin:
	r = hfg_unpin(ctl, hd);
	if (r)
		HFG_FAIL(n, "UNPIN: %s", strerror(-r));
out:
	if (g)
		munmap(g, BUF);
	if (ctl >= 0)
		close(ctl);
}

/* The card's test fault window (-device xdma-sim,fault-regs=on). */
static int card_fault(uint32_t bits)
{
	int fd = hfg_open(card, "_user", O_RDWR), r;

	if (fd < 0)
		return -errno;
	r = hfg_fault(fd, bits);
	close(fd);
	return r;
}

struct long_xfer {
	int ctl;
	uint64_t handle;
	int ret;
	double t_end;
};

static void *long_xfer_fn(void *arg)
{
	struct long_xfer *l = arg;
	l->ret = hfg_xfer(l->ctl, l->handle, HELLOFPGA_XFER_C2H, ch, 0,
			  CARD_ADDR, PIECE, 30000, NULL);
	l->t_end = hfg_now();
	return NULL;
}

/*
 * The free callback while an XFER with a 30 s timeout is stuck on the card:
 * the revocation cancels it and returns within the driver's fixed bound
 * (stop_wait_ms + 200 ms), not the 30 s the user chose; the XFER ends
 * with ECANCELED.
 */
static void raw_revoke_bounded(void)
{
	const char *n = "raw-revoke-bounded";
	struct long_xfer l = { .ret = 1 };
	unsigned int fired = 0;
	double t0, t_rev;
	pthread_t t;
	int r;
	void *g;

	if (persistent) {
		HFG_SKIP(n, "persistent pins have no free callback");
		return;
	}
	l.ctl = hfg_open(card, "_control", O_RDWR);
	g = gmem_alloc(BUF);
	if (l.ctl < 0 || !g) {
		HFG_FAIL(n, "control node or memory: %s", strerror(errno));
		goto out;
	}
	r = raw_pin(l.ctl, g, BUF, &l.handle);
	if (r) {
		HFG_FAIL(n, "PIN_CUDA: %s (%s)", strerror(-r),
			 hfg_drv_err(l.ctl));
		goto out;
	}
	r = card_fault(2);	/* stall: the engine stays busy */
	if (r) {
		HFG_SKIP(n, "no fault window on the card (%s)", strerror(-r));
		goto unpin;
	}
	pthread_create(&t, NULL, long_xfer_fn, &l);
	usleep(300000);
	t0 = hfg_now();
	r = sa_revoke(g, BUF, false, 0, &fired);
	t_rev = hfg_now() - t0;
	card_fault(0);
	pthread_join(t, NULL);
	if (r || fired != 1)
		HFG_FAIL(n, "REVOKE: %s, %u callbacks", strerror(-r), fired);
	else if (t_rev > 5)
		HFG_FAIL(n, "the free callback took %.1f s: it waited for the transfer's own timeout",
			 t_rev);
	else if (l.ret != -ECANCELED || l.t_end - t0 > 5)
		HFG_FAIL(n, "the stuck XFER ended %.1f s after the revocation with %s (ECANCELED expected): %s",
			 l.t_end - t0, strerror(-l.ret), hfg_drv_err(l.ctl));
	else
		HFG_PASS(n, "callback returned after %.0f ms, the XFER (timeout 30 s) got ECANCELED",
			 t_rev * 1000);
unpin:
	hfg_unpin(l.ctl, l.handle);
out:
	if (g)
		munmap(g, BUF);
	if (l.ctl >= 0)
		close(l.ctl);
}

static const char *hook_call(uint32_t point)
{
	switch (point) {
	case NVP2P_STANDIN_HOOK_DMA_MAP:
		return "nvidia_p2p_dma_map_pages";
	case NVP2P_STANDIN_HOOK_DMA_UNMAP:
		return "nvidia_p2p_dma_unmap_pages";
	default:
		return "nvidia_p2p_put_pages";
	}
}

/*
 * The free callback of a raw pin fires from the stand-in's worker, RM lock
 * held, exactly while PIN (DMA_MAP) or UNPIN (DMA_UNMAP, PUT_PAGES) is
 * inside @point's call (AFTER: at its end).  A provider whose callback
 * waits for the caller deadlocks: the stand-in's call gives up after
 * wait_ms and counts it.
 */
static void raw_hooked(const char *n, uint32_t point, uint32_t flags)
{
	bool setup = point == NVP2P_STANDIN_HOOK_DMA_MAP;
	struct nvp2p_standin_stats s0, s1;
	const char *what = setup ? "PIN" : "UNPIN";
	const char *text = "";
	uint64_t hd = 0;
	bool pinned = false;
	int ctl = -1, r;
	void *g = NULL;
	double t0, dt;

	if (persistent) {
		HFG_SKIP(n, "persistent pins have no free callback");
		return;
	}
	if (tegra && point == NVP2P_STANDIN_HOOK_PUT_PAGES) {
		HFG_SKIP(n, "Tegra's put_pages runs the free callback itself");
		return;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	g = gmem_alloc(BUF);
	if (ctl < 0 || !g || stats_quiet(&s0)) {
		HFG_FAIL(n, "control node, memory or stats: %s",
			 strerror(errno));
		goto out;
	}
	if (!setup) {
		r = raw_pin(ctl, g, BUF, &hd);
		if (r) {
			HFG_FAIL(n, "PIN_CUDA: %s (%s)", strerror(-r),
				 hfg_drv_err(ctl));
			goto out;
		}
		pinned = true;
		r = raw_xfer(ctl, hd, 0, PIECE, HELLOFPGA_XFER_C2H);
		if (r) {
			HFG_FAIL(n, "XFER: %s (%s)", strerror(-r),
				 hfg_drv_err(ctl));
			goto out;
		}
	}
	r = sa_hook(g, BUF, point, flags);
	if (r) {
		HFG_FAIL(n, "HOOK: %s", strerror(-r));
		goto out;
	}
	t0 = hfg_now();
	if (setup) {
		r = raw_pin(ctl, g, BUF, &hd);
		pinned = !r;
		text = hfg_drv_err(ctl);
	} else {
		r = hfg_unpin(ctl, hd);
		pinned = r != 0;
	}
	dt = hfg_now() - t0;
	sa_hook(NULL, 0, 0, 0);
	if (stats_settled(&s0, &s1)) {
		HFG_FAIL(n, "STATS: %s", strerror(errno));
		goto out;
	}
	printf("# %s: %s returned %d (%s) after %.3f s%s%s; %llu hooked callback(s), %llu deadlock(s)\n",
	       n, what, r, r ? strerror(-r) : "ok", dt, *text ? ": " : "", text,
	       (unsigned long long)(s1.hooks - s0.hooks),
	       (unsigned long long)(s1.deadlocks - s0.deadlocks));
	if (s1.deadlocks != s0.deadlocks)
		HFG_FAIL(n, "deadlock: the free callback waited for %s inside %s (the stand-in gave up after %.1f s)",
			 what, hook_call(point), dt);
	else if (s1.hooks - s0.hooks != 1)
		HFG_FAIL(n, "the hook did not fire: %s made no %s call on the page table",
			 what, hook_call(point));
	else if (setup && (r != -EFAULT || !strstr(text, "freed while being pinned")))
		HFG_FAIL(n, "PIN of memory freed while being pinned: %d (%s), \"%s\" (EFAULT and \"freed while being pinned\" expected)",
			 r, r ? strerror(-r) : "ok", text);
	else if (!setup && r)
		HFG_FAIL(n, "UNPIN: %s (%s)", strerror(-r), hfg_drv_err(ctl));
	else if (s1.tables != s0.tables || s1.mappings != s0.mappings)
		HFG_FAIL(n, "leaked: %llu page tables, %llu mappings (%llu, %llu before)",
			 (unsigned long long)s1.tables,
			 (unsigned long long)s1.mappings,
			 (unsigned long long)s0.tables,
			 (unsigned long long)s0.mappings);
	else if (s1.refused != s0.refused)
		HFG_FAIL(n, "%llu calls refused by the stand-in (misuse by the provider; see dmesg)",
			 (unsigned long long)(s1.refused - s0.refused));
	else
		HFG_PASS(n, NULL);
out:
	if (pinned && hfg_unpin(ctl, hd))
		HFG_FAIL(n, "UNPIN: %s", hfg_drv_err(ctl));
	if (g)
		munmap(g, BUF);
	if (ctl >= 0)
		close(ctl);
}

static void raw_free_midstream(void)
{
	const char *n = "raw-free-midstream";
	struct nvp2p_standin_stats s0, s1;
	struct stream s = { 0 };
	pthread_t th;
	int ctl = hfg_open(card, "_control", O_RDWR), r, x;
	void *g = gmem_alloc(BUF);

	if (ctl < 0 || !g || stats(&s0)) {
		HFG_FAIL(n, "control node, memory or stats: %s",
			 strerror(errno));
		goto out;
	}
	s.ctl = ctl;
	r = raw_pin(ctl, g, BUF, &s.handle);
	if (r) {
		HFG_FAIL(n, "PIN_CUDA: %s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
		goto out;
	}
	if (!stream_start(n, &s, &th))
		goto unpin;
	/* "cudaFree": fires the callback before the memory goes */
	munmap(g, BUF);
	g = NULL;
	if (persistent) {
		stream_stop(&s, th, 16);
		stats(&s1);
		if (s.err)
			HFG_FAIL(n, "persistent pin: the stream failed after the free: %d (%s)",
				 s.err, s.text);
		else if (s1.allocs != s0.allocs)
			HFG_FAIL(n, "persistent pin: freed memory not kept alive (%llu allocations, %llu before)",
				 (unsigned long long)s1.allocs,
				 (unsigned long long)s0.allocs);
		else
			HFG_PASS(n, NULL);
		goto unpin;
	}
	pthread_join(th, NULL);
	x = raw_xfer(ctl, s.handle, 0, PIECE, HELLOFPGA_XFER_C2H);
	if (!s.err)
		HFG_FAIL(n, "the stream went on after the memory was freed");
	else if (x != -EFAULT)
		HFG_FAIL(n, "XFER after the free: %d (-EFAULT expected): %s", x,
			 hfg_drv_err(ctl));
	else {
		printf("# %s: stream stopped after %lu transfers with %d (%s): %s\n",
		       n, s.ok, s.err, strerror(-s.err), s.text);
		HFG_PASS(n, NULL);
	}
unpin:
	r = hfg_unpin(ctl, s.handle);
	if (r)
		HFG_FAIL(n, "UNPIN after the free: %s", strerror(-r));
out:
	if (g)
		munmap(g, BUF);
	if (ctl >= 0)
		close(ctl);
}

static void exit_with_pins(void)
{
	const char *n = "exit-with-pins";
	int pfd[2], status;
	pid_t pid;
	char c;

	if (pipe(pfd)) {
		HFG_FAIL(n, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		HFG_FAIL(n, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		struct stream s = { 0 };
		pthread_t th;
		void *g1 = gmem_alloc(BUF), *g2 = gmem_alloc(BUF);
		uint64_t h2;

		s.ctl = hfg_open(card, "_control", O_RDWR);
		if (s.ctl < 0 || !g1 || !g2 || raw_pin(s.ctl, g1, BUF, &s.handle) ||
		    raw_pin(s.ctl, g2, BUF, &h2))
			_exit(3);
		pthread_create(&th, NULL, stream_fn, &s);
		if (!stream_wait(&s, 8))
			_exit(4);
		c = 'x';
		if (write(pfd[1], &c, 1) != 1)
			_exit(5);
		_exit(0);	/* pins, mappings and a stream alive */
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		c = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || c != 'x')
		HFG_FAIL(n, "the child did not pin and stream (status 0x%x)",
			 status);
	else
		HFG_PASS(n, NULL);
}

int main(int argc, char **argv)
{
	struct nvp2p_standin_stats s0, s;
	struct hellofpga_info info = { 0 };
	int opt, ctl;

	hfg_group = "revoke";

	while ((opt = hfg_getopt(argc, argv, "d:c:", &card)) != -1) {
		if (opt == 'c')
			ch = atoi(optarg);
		else
			return 2;
	}
	sa = open(NVP2P_STANDIN_DEV, O_RDWR | O_CLOEXEC);
	if (sa < 0 || stats(&s0)) {
		HFG_FAIL("setup", "%s: %s (insmod nvp2p-standin.ko)",
			 NVP2P_STANDIN_DEV, strerror(errno));
		return 1;
	}
	tegra = s0.tegra;
	ctl = hfg_open(card, "_control", O_RDWR);
	if (ctl < 0 || ioctl(ctl, HELLOFPGA_IOC_GET_INFO, &info)) {
		HFG_FAIL("setup", "%s_control: %s", card, strerror(errno));
		return 1;
	}
	close(ctl);
	if (!(info.features & (HELLOFPGA_FEAT_PIN_NVP2P | HELLOFPGA_FEAT_PIN_TEGRA))) {
		HFG_FAIL("setup", "no nvidia_p2p provider (features 0x%llx): insmod hellofpga-nvp2p.ko",
			 (unsigned long long)info.features);
		return 1;
	}
	persistent = info.features & HELLOFPGA_FEAT_PIN_NVP2P_PERSISTENT;
	setenv("HELLOFPGA_GPU", tegra ? "emu-tegra" : "emu", 0);
	setenv("HELLOFPGA_PIN", "cuda", 0);
	if (!tegra)
		setenv("HELLOFPGA_EMU_GPU_DEV", NVP2P_STANDIN_DEV, 0);
	printf("# stand-in %s, %s pins; before: %llu tables, %llu mappings, %llu allocations, %llu callbacks\n",
	       tegra ? "Tegra" : "desktop", persistent ? "persistent" : "callback",
	       (unsigned long long)s0.tables, (unsigned long long)s0.mappings,
	       (unsigned long long)s0.allocs, (unsigned long long)s0.callbacks);

	lib_revoke_midstream();
	raw_revoke_idle();
	raw_revoke_bounded();
	raw_hooked("raw-revoke-in-setup", NVP2P_STANDIN_HOOK_DMA_MAP, 0);
	raw_hooked("raw-revoke-after-map", NVP2P_STANDIN_HOOK_DMA_MAP,
		   NVP2P_STANDIN_HOOK_AFTER);
	raw_hooked("raw-revoke-in-unmap", NVP2P_STANDIN_HOOK_DMA_UNMAP, 0);
	raw_hooked("raw-revoke-in-put", NVP2P_STANDIN_HOOK_PUT_PAGES, 0);
	raw_free_midstream();
	exit_with_pins();

	revokes_settle();
	if (stats(&s)) {
		HFG_FAIL("counters", "STATS: %s", strerror(errno));
	} else if (s.tables || s.mappings || s.allocs != s0.allocs ||
		   s.persistent_tables) {
		HFG_FAIL("counters", "left: %llu page tables (%llu persistent), %llu mappings, %llu allocations (%llu before)",
			 (unsigned long long)s.tables,
			 (unsigned long long)s.persistent_tables,
			 (unsigned long long)s.mappings,
			 (unsigned long long)s.allocs,
			 (unsigned long long)s0.allocs);
	} else if (!persistent && s.callbacks - s0.callbacks < 3) {
		HFG_FAIL("counters",
			 "only %llu free callbacks fired (at least 3 expected)",
			 (unsigned long long)(s.callbacks - s0.callbacks));
	} else if (s.deadlocks != s0.deadlocks) {
		HFG_FAIL("counters",
			 "%llu deadlocks counted by the stand-in (see dmesg)",
			 (unsigned long long)(s.deadlocks - s0.deadlocks));
	} else if (s.refused != s0.refused) {
		HFG_FAIL("counters", "%llu calls refused by the stand-in (misuse by the provider; see dmesg)",
			 (unsigned long long)(s.refused - s0.refused));
	} else {
		printf("# after: %llu callbacks fired, %llu get_pages, %llu put_pages, %llu free_page_table, %llu free_dma_mapping\n",
		       (unsigned long long)(s.callbacks - s0.callbacks),
		       (unsigned long long)(s.get_pages - s0.get_pages),
		       (unsigned long long)(s.put_pages - s0.put_pages),
		       (unsigned long long)(s.free_page_table - s0.free_page_table),
		       (unsigned long long)(s.free_dma_mapping - s0.free_dma_mapping));
		HFG_PASS("counters", NULL);
	}
	return hfg_failed ? 1 : 0;
}
