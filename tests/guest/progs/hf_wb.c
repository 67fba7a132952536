// SPDX-License-Identifier: MIT
/*
 * hf_wb - writeback words in a host pin (ABI 1.4), through the real
 * driver: what GPU-side completion needs of it.
 *
 *   hf_wb [-d /dev/hellofpgaN] [-b] [-s]
 *
 * -s: only an AXI-Stream card's tests (SKIP on a memory-mapped card).
 * On a memory-mapped card (HELLOFPGA_FEAT_XFER_WB): XFERs with
 * HELLOFPGA_XFER_WB whose word, in a host pin, shows the run's completed
 * descriptor count (a stale value cleared first; the pin's segment count
 * for a whole-pin run; the word in the data pin itself), a failed run's
 * word marked with HELLOFPGA_XFER_WB_FAILED, the refusals (unaligned, out
 * of the pin, without HELLOFPGA_XFER_WB_ROOM bytes of the pin from it,
 * unknown handle, wb fields without the flag, a timeout_ms above
 * HELLOFPGA_MAX_TIMEOUT_MS) and the pins given back; a word that another
 * thread forges ("all done") while the engine is stalled (the fault
 * window; in MSI-X mode with a stray interrupt of the channel after each
 * forgery): the XFER ends only after the stall is lifted, with the card's
 * count in the word, or with ETIMEDOUT when the stall outlasts its
 * timeout; the library's HelloFPGA_GPUDirect_Submit() with a GPU wait
 * on the emulated GPU (the consumer sees the card's count).  With -b
 * (every mapping bounces: swiotlb=force) the flag is refused with
 * EOPNOTSUPP and a LAST_ERROR that says why, and a submission fails with
 * its word marked, the GPU going on.
 *
 * On an AXI-Stream card (HELLOFPGA_FEAT_STREAM_WB_PIN): a ring whose
 * writeback slots lie in a host pin: the card's writebacks appear in user
 * memory before any WAIT (magic, EOP, length per frame), a RELEASE clears
 * its slot before it returns, UNPIN of the pin is EBUSY while the ring
 * lives, the stop marks every slot not completed (0x52b48000, length 0),
 * the refusals; then the library's HelloFPGA_Stream_WaitOnGPU() on the
 * emulated GPU through the kernel backend: consumers (host functions)
 * that start only after the card's completion, and a wait the stream's
 * close ends with the error mark.
 *
 * Prints PASS/FAIL/SKIP lines "wb/NAME"; exit status 1 when one failed.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "hellofpga.h"
#include "hf_user_regs.h"
#include "hf_guest.h"

#define MAGIC		0x52b40000u
#define MAGIC_MASK	0xffff0000u
#define WB_EOP		0x1u
#define WB_ERROR	0x00008000u
#define FRAME		3000u
#define NBUF		8u

static const char *card = "/dev/hellofpga0";
static bool bounce, stream_only;
static int ctl = -1, ufd = -1;

static void *page_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* PIN of host memory with its segment count. */
static int pin_host(void *addr, uint64_t size, uint64_t *handle,
		    uint32_t *nsegs)
{
	struct hellofpga_pin p = {
		.type = HELLOFPGA_PIN_HOST,
		.addr = (uintptr_t)addr,
		.size = size,
		.fd = -1,
	};

	if (ioctl(ctl, HELLOFPGA_IOC_PIN, &p))
		return -errno;
	*handle = p.handle;
	if (nsegs)
		*nsegs = p.nsegs;
	return 0;
}

static int xfer_wb_t(uint64_t h, uint32_t dir, uint64_t off, uint64_t len,
		     uint32_t flags, uint64_t wh, uint64_t woff,
		     uint32_t timeout_ms, uint64_t *bytes)
{
	struct hellofpga_xfer x = {
		.handle = h,
		.buf_offset = off,
		.card_addr = 1 << 20,
		.length = len,
		.dir = dir,
		.timeout_ms = timeout_ms,
		.flags = flags,
		.wb_handle = wh,
		.wb_offset = woff,
	};
	int ret = ioctl(ctl, HELLOFPGA_IOC_XFER, &x) ? -errno : 0;

	if (bytes)
		*bytes = x.bytes;
	return ret;
}

static int xfer_wb(uint64_t h, uint32_t dir, uint64_t off, uint64_t len,
		   uint32_t flags, uint64_t wh, uint64_t woff)
{
	return xfer_wb_t(h, dir, off, len, flags, wh, woff, 0, NULL);
}

static uint32_t rd(const volatile uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

/* --- memory-mapped cards: XFER_WB ------------------------------------- */

/**
 * struct forger - a thread that writes "all done" into an XFER_WB word
 * over and over while the XFER waits, as any thread of the process may.
 * @word: the word
 * @engine: after each forgery the card sends this engine's channel
 *	message (a stray interrupt: the wake-up), -1 for none
 * @lift: when done forging, lift the card's faults (the stall)
 * @lifting: set just before the lift (the XFER may end right after it)
 * @stop: forge until set (and at most 5 s)
 * @forge_us: with @lift, forge this long, then lift
 * @t: the thread
 */
struct forger {
	volatile uint32_t *word;
	int engine;
	bool lift;
	int lifting;
	int stop;
	long forge_us;
	pthread_t t;
};

#define FORGED		0x00ffffffu	/* every count a chain can have */

static void *forger_fn(void *arg)
{
	struct forger *g = arg;
	double t0 = hfg_now();

	while (!__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE) &&
	       hfg_now() - t0 < 5 &&
	       (!g->lift || (hfg_now() - t0) * 1e6 < g->forge_us)) {
		__atomic_store_n(g->word, FORGED, __ATOMIC_RELEASE);
		if (g->engine >= 0)
			hfg_stray_irq(ufd, g->engine);
		usleep(200);
	}
	if (g->lift) {
		__atomic_store_n(&g->lifting, 1, __ATOMIC_RELEASE);
		hfg_fault(ufd, 0);
	}
	return NULL;
}

static int forger_start(struct forger *g, volatile uint32_t *word,
			int engine, bool lift, long forge_us)
{
	memset(g, 0, sizeof(*g));
	g->word = word;
	g->engine = engine;
	g->lift = lift;
	g->forge_us = forge_us;
	return pthread_create(&g->t, NULL, forger_fn, g);
}

static void forger_stop(struct forger *g)
{
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELEASE);
	pthread_join(g->t, NULL);
}

/*
 * The word is user memory: a forged "done" must not end an XFER whose
 * engine is still busy (H2C0 stalled by the fault window).  MSI-X: a stray
 * interrupt of H2C0 after each forgery wakes the waiting run too.
 */
static void forged_tests(uint64_t hd, uint64_t hw, volatile uint32_t *w,
			 uint32_t irq_mode)
{
	int engine = irq_mode == HELLOFPGA_IRQ_MODE_MSIX ? 0 : -1;
	uint64_t bytes = ~0ull;
	struct forger g;
	double t0, dt;
	int ret, lifted;

	if (ufd < 0 || !hfg_fw_present(ufd)) {
		HFG_SKIP("mm/forged-word", "no fault window");
		return;
	}
	/* 100 ms of forgeries, then the stall is lifted */
	w[8] = 0;
	hfg_fault(ufd, HFG_FAULT_STALL);
	if (forger_start(&g, &w[8], engine, true, 100000)) {
		hfg_fault(ufd, 0);
		HFG_FAIL("mm/forged-word", "pthread_create failed");
		return;
	}
	t0 = hfg_now();
	ret = xfer_wb_t(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw,
			32, 10000, &bytes);
	dt = (hfg_now() - t0) * 1e3;
	lifted = __atomic_load_n(&g.lifting, __ATOMIC_ACQUIRE);
	forger_stop(&g);
	hfg_fault(ufd, 0);
	hfg_expect(!ret && lifted && bytes == 4096 && rd(&w[8]) == 1,
		   "mm/forged-word-waits-for-the-engine",
		   "XFER %d after %.0f ms, %s, bytes %llu, word 0x%08x (the card's count is 1): %s",
		   ret, dt, lifted ? "after the stall was lifted" :
		   "BEFORE the stall was lifted: it believed the forged word",
		   (unsigned long long)bytes, rd(&w[8]),
		   ret ? hfg_drv_err(ctl) : "");
	/* the stall outlasts a 50 ms timeout: ETIMEDOUT, nothing moved */
	w[16] = 0;
	hfg_fault(ufd, HFG_FAULT_STALL);
	if (forger_start(&g, &w[16], engine, false, 0)) {
		hfg_fault(ufd, 0);
		HFG_FAIL("mm/forged-word", "pthread_create failed");
		return;
	}
	t0 = hfg_now();
	ret = xfer_wb_t(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw,
			64, 50, &bytes);
	dt = (hfg_now() - t0) * 1e3;
	forger_stop(&g);
	hfg_fault(ufd, 0);
	hfg_expect(ret == -ETIMEDOUT && bytes == 0,
		   "mm/forged-word-of-a-stalled-engine-times-out",
		   "XFER %s after %.0f ms, bytes %llu (want ETIMEDOUT, 0): %s",
		   ret ? strerror(-ret) : "succeeded", dt,
		   (unsigned long long)bytes, ret ? hfg_drv_err(ctl) : "");
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw,
		      64);
	hfg_expect(!ret && rd(&w[16]) == 1, "mm/forged-word-next-run",
		   "%d, word 0x%08x: %s", ret, rd(&w[16]),
		   ret ? hfg_drv_err(ctl) : "");
}

static void mm_tests(uint32_t irq_mode)
{
	uint8_t *data = page_alloc(65536), *wp = page_alloc(4096);
	volatile uint32_t *w = (volatile uint32_t *)wp;
	uint64_t hd = 0, hw = 0;
	uint32_t nsegs = 0;
	int ret, ret2;

	if (!data || !wp || pin_host(data, 65536, &hd, &nsegs) ||
	    pin_host(wp, 4096, &hw, NULL)) {
		HFG_FAIL("mm/setup", "mmap or PIN: %s", hfg_drv_err(ctl));
		return;
	}
	hfg_fill(data, 65536, 5);
	w[2] = 0xdeadbeef;
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw, 8);
	if (bounce) {
		hfg_expect(ret == -EOPNOTSUPP &&
			   strstr(hfg_drv_err(ctl), "CPU syncs"),
			   "mm/bounce-refused-eopnotsupp", "%d: %s", ret,
			   hfg_drv_err(ctl));
		hfg_expect(w[2] == 0xdeadbeef, "mm/bounce-word-untouched",
			   "0x%08x", w[2]);
		ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, 0, 0, 0);
		hfg_expect(!ret, "mm/bounce-plain-xfer-still-works", "%d: %s",
			   ret, hfg_drv_err(ctl));
		goto out;
	}
	hfg_expect(!ret && rd(&w[2]) == 1, "mm/h2c-page-word-is-one-descriptor",
		   "%d, word 0x%08x (0xdeadbeef: not cleared nor written): %s",
		   ret, rd(&w[2]), ret ? hfg_drv_err(ctl) : "");
	memset(data + 4096, 0, 4096);
	w[3] = 0xdeadbeef;
	ret = xfer_wb(hd, HELLOFPGA_XFER_C2H, 4096, 4096, HELLOFPGA_XFER_WB, hw,
		      12);
	hfg_expect(!ret && rd(&w[3]) == 1 &&
		   !memcmp(data, data + 4096, 4096),
		   "mm/c2h-page-word-and-data", "%d, word 0x%08x: %s", ret,
		   rd(&w[3]), ret ? hfg_drv_err(ctl) : "");
	hfg_expect(rd(&w[2]) == 1, "mm/other-words-untouched", "0x%08x",
		   rd(&w[2]));
	/* the whole pin: one descriptor per bus segment; the last word
	 * with HELLOFPGA_XFER_WB_ROOM bytes of the pin from it */
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 65536, HELLOFPGA_XFER_WB, hw,
		      4096 - HELLOFPGA_XFER_WB_ROOM);
	hfg_expect(!ret && rd(&w[1016]) == nsegs,
		   "mm/whole-pin-word-is-its-segment-count",
		   "%d, word %u, pin of %u segments: %s", ret, rd(&w[1016]),
		   nsegs, ret ? hfg_drv_err(ctl) : "");
	/* the word in the data pin itself, outside the run's range */
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hd,
		      65536 - HELLOFPGA_XFER_WB_ROOM);
	hfg_expect(!ret && ((volatile uint32_t *)data)[16376] == 1,
		   "mm/word-in-the-data-pin", "%d, word 0x%08x: %s", ret,
		   ((volatile uint32_t *)data)[16376],
		   ret ? hfg_drv_err(ctl) : "");
	/* refusals */
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw, 6);
	hfg_expect(ret == -EINVAL, "mm/unaligned-einval", "%d: %s", ret,
		   hfg_drv_err(ctl));
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw,
		      4096);
	hfg_expect(ret == -EINVAL, "mm/outside-pin-einval", "%d: %s", ret,
		   hfg_drv_err(ctl));
	/* the word inside, not the room the card's writeback may take */
	w[1023] = 0xdeadbeef;
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw,
		      4092);
	ret2 = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB, hw,
		       4096 - HELLOFPGA_XFER_WB_ROOM + 4);
	hfg_expect(ret == -EINVAL && ret2 == -EINVAL &&
		   strstr(hfg_drv_err(ctl), "HELLOFPGA_XFER_WB_ROOM") &&
		   rd(&w[1023]) == 0xdeadbeef, "mm/word-without-room-einval",
		   "last word %d, %u bytes before the end %d, word 0x%08x: %s",
		   ret, HELLOFPGA_XFER_WB_ROOM - 4, ret2, rd(&w[1023]),
		   hfg_drv_err(ctl));
	/* XFER's timeout_ms has SET_TIMEOUT's cap */
	ret = xfer_wb_t(hd, HELLOFPGA_XFER_H2C, 0, 4096, 0, 0, 0,
			HELLOFPGA_MAX_TIMEOUT_MS + 1, NULL);
	ret2 = xfer_wb_t(hd, HELLOFPGA_XFER_H2C, 0, 4096, 0, 0, 0,
			 HELLOFPGA_MAX_TIMEOUT_MS, NULL);
	hfg_expect(ret == -EINVAL && !ret2, "mm/timeout-above-max-einval",
		   "%u ms: %d, %u ms: %d (want EINVAL, 0): %s",
		   HELLOFPGA_MAX_TIMEOUT_MS + 1, ret, HELLOFPGA_MAX_TIMEOUT_MS,
		   ret2, hfg_drv_err(ctl));
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB,
		      hw + 1000, 0);
	hfg_expect(ret == -ENOENT, "mm/unknown-handle-enoent", "%d: %s", ret,
		   hfg_drv_err(ctl));
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, 0, hw, 0);
	hfg_expect(ret == -EINVAL, "mm/wb-fields-without-flag-einval", "%d: %s",
		   ret, hfg_drv_err(ctl));
	ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, 0x2, 0, 0);
	hfg_expect(ret == -EINVAL, "mm/unknown-flag-einval", "%d: %s", ret,
		   hfg_drv_err(ctl));
	/* a failed run: the driver marks the word */
	if (ufd >= 0 && hfg_fw_present(ufd)) {
		w[4] = 0;
		hfg_fault(ufd, HFG_FAULT_DESC_READ);
		ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB,
			      hw, 16);
		hfg_fault(ufd, 0);
		hfg_expect(ret && (rd(&w[4]) & HELLOFPGA_XFER_WB_FAILED),
			   "mm/failed-run-word-marked", "%d, word 0x%08x: %s",
			   ret, rd(&w[4]), hfg_drv_err(ctl));
		ret = xfer_wb(hd, HELLOFPGA_XFER_H2C, 0, 4096, HELLOFPGA_XFER_WB,
			      hw, 16);
		hfg_expect(!ret && rd(&w[4]) == 1, "mm/next-run-after-failure",
			   "%d, word 0x%08x: %s", ret, rd(&w[4]),
			   ret ? hfg_drv_err(ctl) : "");
	} else {
		HFG_SKIP("mm/failed-run-word-marked", "no fault window");
	}
	forged_tests(hd, hw, w, irq_mode);
out:
	hfg_expect(!hfg_unpin(ctl, hw) && !hfg_unpin(ctl, hd), "mm/unpin",
		   "%s", hfg_drv_err(ctl));
}

struct consumer {
	const volatile uint32_t *word;
	uint32_t status;
	int ran;
};

static void consumer_fn(void *arg)
{
	struct consumer *c = arg;

	c->status = *c->word;
	__atomic_store_n(&c->ran, 1, __ATOMIC_RELEASE);
}

/*
 * The library's HelloFPGA_GPUDirect_Submit() through the kernel backend:
 * its words pinned, each run an XFER_WB; a consumer (host function of the
 * emulated GPU) after the GPU wait sees the card's count.
 */
static void lib_submit_tests(void)
{
	HELLOFPGA_SUBMISSION sub;
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h = 0;
	struct consumer c;
	void *gbuf = NULL, *gs = NULL;
	size_t actual = 0;
	int ret, done;

	setenv("HELLOFPGA_GPU", "emu", 1);
	ret = HelloFPGA_Open(card, &h);
	if (!ret)
		ret = HelloFPGA_GPU_Alloc(&gbuf, 65536);
	if (!ret)
		ret = HelloFPGA_GPUDirect_Pin(h, gbuf, 65536, &gh);
	if (!ret)
		ret = HelloFPGA_GPU_StreamCreate(&gs);
	if (ret) {
		HFG_FAIL("mm/lib/setup", "%d: %s", ret, HelloFPGA_GetLastError(h));
		goto out;
	}
	memset(&sub, 0, sizeof(sub));
	memset(&c, 0, sizeof(c));
	ret = HelloFPGA_GPUDirect_Submit(h, 0, gh, 0, 1 << 20, 4096,
					 HELLOFPGA_DIR_H2C, gs,
					 HELLOFPGA_SUBMIT_WAIT_ON_GPU, 0, &sub);
	if (!ret) {
		c.word = sub.status;
		ret = HelloFPGA_GPU_LaunchHostFunc(gs, consumer_fn, &c);
	}
	hfg_expect(!ret, "mm/lib/submit-wait-on-gpu", "%d: %s", ret,
		   ret ? HelloFPGA_GetLastError(h) : "");
	if (ret)
		goto out;
	done = HelloFPGA_GPUDirect_Complete(h, sub.ticket, 10000, &actual);
	ret = HelloFPGA_GPU_StreamSynchronize(gs, 10000);
	if (bounce)
		hfg_expect(done == -EOPNOTSUPP && !ret && c.ran &&
			   (c.status & HELLOFPGA_XFER_WB_ERROR),
			   "mm/lib/submit-bounce-fails-gpu-goes-on",
			   "complete %d, sync %d, ran %d, word 0x%08x: %s", done,
			   ret, c.ran, c.status, HelloFPGA_GetLastError(h));
	else
		hfg_expect(!done && !ret && c.ran && c.status == 1 &&
			   actual == 4096, "mm/lib/submit-consumer-sees-count",
			   "complete %d, sync %d, ran %d, word 0x%08x, %zu bytes: %s",
			   done, ret, c.ran, c.status, actual,
			   done ? HelloFPGA_GetLastError(h) : "");
out:
	if (gs) {
		HelloFPGA_GPU_StreamSynchronize(gs, 10000);
		HelloFPGA_GPU_StreamDestroy(gs);
	}
	if (gh)
		HelloFPGA_GPUDirect_Unpin(h, gh);
	if (gbuf)
		HelloFPGA_GPU_Free(gbuf);
	HelloFPGA_Close(h);
}

/* --- AXI-Stream cards: STREAM_WB_PIN ---------------------------------- */

static void src_wr(uint32_t reg, uint32_t v)
{
	hfg_wr32(ufd, HF_USER_ST_SRC(0) + reg, v);
}

/* @count frames of FRAME bytes from the source of channel 0. */
static void src_frames(uint32_t count)
{
	src_wr(HF_ST_SRC_CTRL, 0);
	src_wr(HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR);
	src_wr(HF_ST_SRC_FRAME_SIZE, FRAME);
	src_wr(HF_ST_SRC_REC_MIN, 0);
	src_wr(HF_ST_SRC_REC_MAX, 0);
	src_wr(HF_ST_SRC_INTERVAL_NS, 0);
	src_wr(HF_ST_SRC_COUNT, count);
	src_wr(HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE);
}

static int st_start_wb(int fd, uint32_t n, uint32_t flags, int wfd,
		       uint64_t wh, uint64_t woff, uint32_t *start_flags)
{
	struct hellofpga_stream_config c;

	memset(&c, 0, sizeof(c));
	c.buffers = n;
	c.buffer_size = 4096;
	c.mem = HELLOFPGA_MEM_HOST;
	c.pin_fd = -1;
	c.flags = flags;
	c.wb_fd = wfd;
	c.wb_handle = wh;
	c.wb_offset = woff;
	if (ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c))
		return -errno;
	if (start_flags)
		*start_flags = c.start_flags;
	return 0;
}

static int st_stop(int fd)
{
	struct hellofpga_stream_stop s;

	memset(&s, 0, sizeof(s));
	return ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, &s) ? -errno : 0;
}

/* Wait (up to 5 s) until slot @i's status is @want. */
static bool slot_becomes(volatile uint32_t *slots, uint32_t i, uint32_t want)
{
	double end = hfg_now() + 5;

	while (rd(&slots[i * 8]) != want && hfg_now() < end)
		usleep(1000);
	return rd(&slots[i * 8]) == want;
}

static void stream_raw_tests(void)
{
	uint8_t *wp = page_alloc(4096);
	volatile uint32_t *slots = (volatile uint32_t *)wp;
	struct hellofpga_stream_frame f;
	struct hellofpga_stream_release r;
	uint32_t sf = 0, i, bad = 0;
	uint64_t hw = 0;
	char path[96];
	int fd, ret;

	snprintf(path, sizeof(path), "%s_c2h_0", card);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (!wp || fd < 0 || pin_host(wp, 4096, &hw, NULL)) {
		HFG_FAIL("st/setup", "%s: %s", path, hfg_drv_err(ctl));
		return;
	}
	memset(wp, 0xa5, 4096);
	/* refusals first: nothing may start */
	ret = st_start_wb(fd, NBUF, HELLOFPGA_STREAM_WB_PIN, ctl, hw, 16, NULL);
	hfg_expect(ret == -EINVAL, "st/unaligned-einval", "%d: %s", ret,
		   hfg_drv_err(fd));
	ret = st_start_wb(fd, NBUF, HELLOFPGA_STREAM_WB_PIN, ctl, hw,
			  4096 - 32, NULL);
	hfg_expect(ret == -EINVAL, "st/past-pin-einval", "%d: %s", ret,
		   hfg_drv_err(fd));
	ret = st_start_wb(fd, NBUF, HELLOFPGA_STREAM_WB_PIN, ctl, hw + 1000, 0,
			  NULL);
	hfg_expect(ret == -ENOENT, "st/unknown-handle-enoent", "%d: %s", ret,
		   hfg_drv_err(fd));
	ret = st_start_wb(fd, NBUF, HELLOFPGA_STREAM_WB_PIN, fd, hw, 0, NULL);
	hfg_expect(ret == -EBADF, "st/wb-fd-not-control-ebadf", "%d: %s", ret,
		   hfg_drv_err(fd));
	ret = st_start_wb(fd, NBUF, 0, 0, hw, 0, NULL);
	hfg_expect(ret == -EINVAL, "st/wb-fields-without-flag-einval", "%d: %s",
		   ret, hfg_drv_err(fd));
	hfg_expect(rd(&slots[0]) == 0xa5a5a5a5u, "st/refusals-leave-memory",
		   "0x%08x", rd(&slots[0]));

	src_wr(HF_ST_SRC_CTRL, 0);
	ret = st_start_wb(fd, NBUF, HELLOFPGA_STREAM_WB_PIN, ctl, hw, 0, &sf);
	if (bounce) {
		hfg_expect(ret == -EOPNOTSUPP &&
			   strstr(hfg_drv_err(fd), "CPU syncs"),
			   "st/bounce-refused-eopnotsupp", "%d: %s", ret,
			   hfg_drv_err(fd));
		goto out;
	}
	if (ret) {
		HFG_FAIL("st/start", "%d: %s", ret, hfg_drv_err(fd));
		goto out;
	}
	for (i = 0; i < NBUF; i++)
		bad += rd(&slots[i * 8]) != 0;
	hfg_expect(!bad, "st/start-clears-slots", "%u slots not 0", bad);
	ret = hfg_unpin(ctl, hw);
	hfg_expect(ret == -EBUSY, "st/unpin-busy-while-ring-lives", "%d: %s",
		   ret, hfg_drv_err(ctl));
	/* a frame still cut by an earlier ring: its buffer comes first */
	if (sf & HELLOFPGA_STREAM_STARTED_RESYNC)
		HFG_SKIP("st/resync", "the ring starts by skipping a cut frame");
	src_frames(4);
	/* the card's writebacks, in user memory, before any WAIT */
	bad = 0;
	for (i = 0; i < 4; i++)
		bad += !slot_becomes(slots, i, MAGIC | WB_EOP) ||
		       rd(&slots[i * 8 + 1]) != FRAME;
	hfg_expect(!bad, "st/slots-show-magic-eop-length-before-wait",
		   "%u of 4 slots wrong; slot 0: 0x%08x len %u", bad,
		   rd(&slots[0]), rd(&slots[1]));
	hfg_expect(rd(&slots[4 * 8]) == 0, "st/slot-of-no-frame-stays-clear",
		   "0x%08x", rd(&slots[4 * 8]));
	memset(&f, 0, sizeof(f));
	f.timeout_ns = 3000000000ull;
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_WAIT, &f) ? -errno : 0;
	hfg_expect(!ret && f.index == 0 && f.length == FRAME,
		   "st/wait-agrees-with-slot", "%d: index %u length %llu", ret,
		   f.index, (unsigned long long)f.length);
	hfg_expect(rd(&slots[0]) == (MAGIC | WB_EOP), "st/wait-leaves-slot",
		   "0x%08x", rd(&slots[0]));
	memset(&r, 0, sizeof(r));
	r.index = f.index;
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_RELEASE, &r) ? -errno : 0;
	hfg_expect(!ret && rd(&slots[0]) == 0 && rd(&slots[1]) == 0,
		   "st/release-clears-slot", "%d: 0x%08x len %u", ret,
		   rd(&slots[0]), rd(&slots[1]));
	ret = st_stop(fd);
	bad = 0;
	for (i = 1; i < 4; i++)
		bad += rd(&slots[i * 8]) != (MAGIC | WB_EOP);
	hfg_expect(!ret && !bad, "st/stop-keeps-completed-slots",
		   "%d, %u changed", ret, bad);
	bad = rd(&slots[0]) != (MAGIC | WB_ERROR);
	for (i = 4; i < NBUF; i++)
		bad += rd(&slots[i * 8]) != (MAGIC | WB_ERROR) ||
		       rd(&slots[i * 8 + 1]) != 0;
	hfg_expect(!bad, "st/stop-marks-the-rest-error",
		   "%u slots not 0x%08x; slot 0 0x%08x, slot 4 0x%08x", bad,
		   MAGIC | WB_ERROR, rd(&slots[0]), rd(&slots[4 * 8]));
	hfg_expect(rd(&slots[NBUF * 8]) == 0xa5a5a5a5u,
		   "st/slots-stay-in-their-range", "0x%08x",
		   rd(&slots[NBUF * 8]));
	/* close of a running ring marks too */
	memset(wp, 0, 4096);
	src_wr(HF_ST_SRC_CTRL, 0);
	ret = st_start_wb(fd, NBUF, HELLOFPGA_STREAM_WB_PIN, ctl, hw, 256, NULL);
	close(fd);
	fd = -1;
	bad = 0;
	for (i = 0; i < NBUF; i++)
		bad += rd(&slots[64 + i * 8]) != (MAGIC | WB_ERROR);
	hfg_expect(!ret && !bad, "st/close-marks-error", "%d, %u not marked",
		   ret, bad);
out:
	if (fd >= 0)
		close(fd);
	ret = hfg_unpin(ctl, hw);
	hfg_expect(!ret, "st/unpin-after-stop", "%d: %s", ret,
		   ret ? hfg_drv_err(ctl) : "");
}

/* --- the library: HelloFPGA_Stream_WaitOnGPU() on the emulated GPU ---- */

static void lib_tests(void)
{
	HELLOFPGA_STREAM_CONFIG cfg;
	HELLOFPGA_GPU_WAIT w[5];
	struct consumer c[5];
	HELLOFPGA_HANDLE h = 0;
	HELLOFPGA_STREAM s = 0;
	HELLOFPGA_FRAME fr;
	void *gs = NULL;
	int ret, i, bad = 0;

	setenv("HELLOFPGA_GPU", "emu", 1);
	ret = HelloFPGA_Open(card, &h);
	if (ret) {
		HFG_FAIL("lib/open", "%d: %s", ret, HelloFPGA_GetLastError(0));
		return;
	}
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_CTRL, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.buffers = 4;
	cfg.buffer_size = 4096;
	ret = HelloFPGA_Stream_Open(h, &cfg, &s);
	if (!ret)
		ret = HelloFPGA_GPU_StreamCreate(&gs);
	if (ret) {
		HFG_FAIL("lib/stream-open", "%d: %s", ret,
			 HelloFPGA_GetLastError(h));
		goto out;
	}
	memset(c, 0, sizeof(c));
	for (i = 0; i < 4 && !ret; i++) {
		ret = HelloFPGA_Stream_WaitOnGPU(s, gs, i, 0, &w[i]);
		if (!ret) {
			c[i].word = w[i].status;
			ret = HelloFPGA_GPU_LaunchHostFunc(gs, consumer_fn, &c[i]);
		}
	}
	if (bounce) {
		hfg_expect(ret == -EOPNOTSUPP, "lib/bounce-no-gpu-waits",
			   "%d: %s", ret, HelloFPGA_GetLastError(h));
		goto out;
	}
	hfg_expect(!ret, "lib/wait-on-gpu-enqueued", "%d: %s", ret,
		   ret ? HelloFPGA_GetLastError(h) : "");
	if (ret)
		goto out;
	ret = HelloFPGA_Stream_WaitOnGPU(s, gs, 4, 0, NULL);
	hfg_expect(ret == -ERANGE, "lib/window-a-ring-ahead-erange", "%d: %s",
		   ret, HelloFPGA_GetLastError(h));
	ret = HelloFPGA_GPU_StreamSynchronize(gs, 300);
	hfg_expect(ret == -ETIMEDOUT && !c[0].ran,
		   "lib/consumer-waits-for-the-card", "%d, ran %d", ret,
		   c[0].ran);
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_CTRL, 0);
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_CTRL,
			      HF_ST_SRC_CTRL_CLEAR);
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE, FRAME);
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_INTERVAL_NS, 0);
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_COUNT, 4);
	HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + HF_ST_SRC_CTRL,
			      HF_ST_SRC_CTRL_ENABLE);
	/* no CPU wait: the GPU's waits see the card's writebacks alone */
	ret = HelloFPGA_GPU_StreamSynchronize(gs, 10000);
	for (i = 0; i < 4; i++)
		bad += !c[i].ran || c[i].status != (MAGIC | WB_EOP) ||
		       w[i].status[1] != FRAME || w[i].index != (uint32_t)i;
	hfg_expect(!ret && !bad, "lib/consumers-run-after-the-cards-completion",
		   "%d, %d wrong; consumer 0 ran %d status 0x%08x", ret, bad,
		   c[0].ran, c[0].status);
	/* the CPU takes and releases them: the window moves on */
	for (i = 0; i < 4; i++) {
		ret = HelloFPGA_Stream_Wait(s, 3000, &fr);
		if (!ret)
			ret = HelloFPGA_Stream_Release(s, fr.index);
		if (ret)
			break;
	}
	hfg_expect(!ret, "lib/cpu-takes-and-releases", "%d: %s", ret,
		   ret ? HelloFPGA_GetLastError(h) : "");
	memset(&c[4], 0, sizeof(c[4]));
	ret = HelloFPGA_Stream_WaitOnGPU(s, gs, 4, 0, &w[4]);
	if (!ret) {
		c[4].word = w[4].status;
		ret = HelloFPGA_GPU_LaunchHostFunc(gs, consumer_fn, &c[4]);
	}
	hfg_expect(!ret && w[4].index == 0, "lib/window-after-releases",
		   "%d, index %u: %s", ret, w[4].index,
		   ret ? HelloFPGA_GetLastError(h) : "");
	/* no frame comes: the close ends the wait with the error mark */
	ret = HelloFPGA_GPU_StreamSynchronize(gs, 300);
	hfg_expect(ret == -ETIMEDOUT && !c[4].ran, "lib/released-slot-cleared",
		   "%d, ran %d status 0x%08x", ret, c[4].ran, c[4].status);
	ret = HelloFPGA_Stream_Close(s);
	s = 0;
	if (!ret)
		ret = HelloFPGA_GPU_StreamSynchronize(gs, 10000);
	hfg_expect(!ret && c[4].ran && c[4].status == (MAGIC | WB_ERROR),
		   "lib/close-ends-gpu-wait-with-error-mark",
		   "%d, ran %d status 0x%08x", ret, c[4].ran, c[4].status);
out:
	if (gs) {
		HelloFPGA_GPU_StreamSynchronize(gs, 10000);
		HelloFPGA_GPU_StreamDestroy(gs);
	}
	if (s)
		HelloFPGA_Stream_Close(s);
	HelloFPGA_Close(h);
}

int main(int argc, char **argv)
{
	struct hellofpga_info info;
	int opt;

	hfg_group = "wb";
	while ((opt = hfg_getopt(argc, argv, "d:bs", &card)) != -1) {
		if (opt == 'b')
			bounce = true;
		else if (opt == 's')
			stream_only = true;
		else
			return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	ufd = hfg_open(card, "_user", O_RDWR);
	if (ctl < 0 || hfg_info(ctl, &info)) {
		HFG_FAIL("open", "%s_control: %s", card, strerror(errno));
		return hfg_exit();
	}
	hfg_expect(info.abi_minor >= 4, "abi-1.4", "ABI 1.%u", info.abi_minor);
	if (info.features & HELLOFPGA_FEAT_STREAM) {
		hfg_expect(info.features & HELLOFPGA_FEAT_STREAM_WB_PIN,
			   "st/feature", "features 0x%llx",
			   (unsigned long long)info.features);
		stream_raw_tests();
		lib_tests();
	} else if (stream_only) {
		HFG_SKIP("st/all", "a memory-mapped card");
	} else {
		hfg_expect((info.features & HELLOFPGA_FEAT_XFER_WB) &&
			   !(info.features & HELLOFPGA_FEAT_STREAM_WB_PIN),
			   "mm/feature", "features 0x%llx",
			   (unsigned long long)info.features);
		mm_tests(info.irq_mode);
		lib_submit_tests();
	}
	close(ctl);
	if (ufd >= 0)
		close(ufd);
	return hfg_exit();
}
