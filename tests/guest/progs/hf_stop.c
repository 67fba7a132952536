// SPDX-License-Identifier: MIT
/*
 * hf_stop - a transfer that does not finish in time, and the memory it used
 * (docs/driver-stop.md): the card must write nothing after the driver has
 * given the memory back.
 *
 *   hf_stop [-d /dev/hellofpgaN] -m timeout|kill|busy|unplug|wb|stuck [-q LINE]
 *
 * The 64 MiB modes want a card on a slow link (xdma-sim link=gen1x1: about
 * 290 ms for one 64 MiB descriptor) and a pin that is one DMA segment (the
 * vIOMMU maps it to one IOVA range), so one descriptor moves it all.  The
 * buffer is a memfd mapped twice, MAP_SHARED: the pin is made through map
 * A, map B stays, so what the card writes after the pin is gone can be
 * seen through B.  Card memory holds a pattern P, the buffer another one.
 *
 *   timeout  XFER C2H of 64 MiB with a 20 ms timeout: -ETIMEDOUT, bytes the
 *            whole 64 MiB, all of P in B when it returns (the engine was
 *            proven idle: its descriptor finished); UNPIN, munmap(A), B
 *            unchanged 0.5 s later; no DMA fault (the card's dma_errors
 *            counter, DMAR lines in the kernel log); the next transfer
 *            works.  Then H2C likewise: card memory has all of the buffer
 *            afterwards, no DMA fault.
 *            Last, SET_TIMEOUT on the c2h_0 node: 0 gives the module's
 *            timeout back (a pread() works); flags, reserved and a
 *            timeout above 3600000 ms are EINVAL.
 *   kill     a child pins through A and starts the XFER (10 s timeout);
 *            once P shows up in B the parent SIGKILLs it: when waitpid()
 *            returns, B has all of P (the driver proved the engine idle
 *            before the child's file was released) and stays unchanged;
 *            the child's pin is gone; no DMA fault; the next transfer works.
 *   busy     a child's XFER C2H0 of 64 MiB holds the channel for ~290 ms;
 *            meanwhile an XFER on C2H0 of another open file, with a 20 ms
 *            timeout, fails with EBUSY, bytes 0, well before the child's
 *            run ends (the wait for a channel ends at the run's timeout),
 *            and so does a pread() of c2h_0 whose file's SET_TIMEOUT is
 *            20 ms (the module's timeout_ms would wait the child out);
 *            then the child's transfer completes and the next one works.
 *   unplug   XFERs from two card regions (P1, P2) back to back until one
 *            fails, after printing LINE (-q: "HF-QMP TAG {device_del}") on
 *            the console, so the host removes the card meanwhile: the
 *            failing XFER ends with ENODEV (or EIO), with bytes 64 MiB and
 *            all of its pattern in B (remove() proved the engine idle
 *            first), B unchanged 0.5 s later, no DMAR fault; a PIN on the
 *            open file then fails with ENODEV.
 *   wb       XFERs with HELLOFPGA_XFER_WB of 16 MiB (one descriptor, ~70
 *            ms) C2H whose word says "all done" (0x00ffffff) long before
 *            the card is done: written over and over by a thread (the
 *            word in a page of its own), or by the card's own data (the
 *            word inside the destination, card memory holding that value
 *            there); in MSI-X mode the card also sends a stray interrupt
 *            of C2H0 every 300 us (the fault window), a wake-up with
 *            nothing finished.  XFER must succeed only with the whole
 *            descriptor in the buffer (the card's count, 1, over the word
 *            inside it); UNPIN and munmap right after, nothing written
 *            later, no DMA fault; the next transfer works.  Run once per
 *            completion mode (stop64.sh: the configuration's, then
 *            poll_mode=1).
 *   stuck    any card: with the stall fault, a child's XFER (30 s timeout)
 *            and a child's read() of c2h_0 (the module's timeout_ms: load
 *            it with 30000) are stuck; SIGKILL ends each well within 2 s
 *            (the wait looks for fatal signals, in poll mode at least every
 *            100 us, and the idle proof of a stalled engine is short); the
 *            stall cleared, the next transfer works, no pin is left.
 *
 * Prints PASS/FAIL/SKIP lines "stop64/MODE-..." (stuck: "stuck/..."); exit
 * status 1 when one failed.
 */
#define _GNU_SOURCE	/* memfd_create() */
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "hf_guest.h"

#define BIG		(64ull << 20)
#define SEED_P		0x5031u
#define SEED_P2		0x5032u
#define SEED_Q		0x5100u
#define SEED_H2C	0x4832u
#define SETUP_MS	10000		/* timeout of the transfers that set up */
#define SHORT_MS	20		/* the timeout that expires */
#define QUIET_US	500000		/* longer than the card could still need */

static const char *card = "/dev/hellofpga0";
static int ctl = -1, ufd = -1;
static uint8_t *map_a, *map_b;
static int mfd = -1;
static unsigned int marks;
static char mark[64];

/* a new mark in the kernel log; klog_bad() counts DMAR lines since */
static void kmark(void)
{
	snprintf(mark, sizeof(mark), "hf_stop mark %d.%u end", getpid(),
		 ++marks);
	hfg_kmark(mark);
}

static int klog_bad(void)
{
	return hfg_klog_count(mark, "DMAR:");
}

static double ms_since(double t)
{
	return (hfg_now() - t) * 1e3;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The memfd and its two mappings; 0 or -errno. */
static int buf_setup(void)
{
	mfd = memfd_create("hf_stop", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, BIG))
		return -errno;
	map_a = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_SHARED |
		     MAP_POPULATE, mfd, 0);
	map_b = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_SHARED |
		     MAP_POPULATE, mfd, 0);
	if (map_a == MAP_FAILED || map_b == MAP_FAILED)
		return -errno;
	return 0;
}

/*
 * Card memory [@addr, +@len) := pattern @seed, through a pin of the first
 * @len bytes of map A (which then holds it too); the pin stays in *@handle
 * when asked for.  0 or -errno.
 */
static int card_load_len(uint64_t addr, uint32_t seed, uint64_t len,
			 uint64_t *handle, uint32_t *nsegs)
{
	struct hellofpga_pin p = {
		.type = HELLOFPGA_PIN_HOST,
		.addr = (uintptr_t)map_a,
		.size = len,
		.fd = -1,
	};
	int ret;

	hfg_fill(map_a, len, seed);
	if (ioctl(ctl, HELLOFPGA_IOC_PIN, &p))
		return -errno;
	if (nsegs)
		*nsegs = p.nsegs;
	ret = hfg_xfer(ctl, p.handle, HELLOFPGA_XFER_H2C, 0, 0, addr, len,
		       SETUP_MS, NULL);
	if (ret || !handle)
		hfg_unpin(ctl, p.handle);
	else
		*handle = p.handle;
	return ret;
}

/* card_load_len() of BIG bytes */
static int card_load(uint64_t addr, uint32_t seed, uint64_t *handle,
		     uint32_t *nsegs)
{
	return card_load_len(addr, seed, BIG, handle, nsegs);
}

/* A 1 MiB round trip H2C0 -> card @addr -> C2H0 on a fresh pin. */
static int next_transfer(uint64_t addr, char *why, size_t len)
{
	size_t n = 1 << 20;
	uint8_t *b = mmap(NULL, 2 * n, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	uint64_t h;
	long bad;
	int ret;

	if (b == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		return -1;
	}
	hfg_fill(b, n, 0x7777);
	memset(b + n, 0, n);
	ret = hfg_pin_host(ctl, b, 2 * n, &h);
	if (ret) {
		snprintf(why, len, "PIN: %s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		munmap(b, 2 * n);
		return -1;
	}
	ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_H2C, 0, 0, addr, n, 0, NULL);
	if (!ret)
		ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_C2H, 0, n, addr, n, 0,
			       NULL);
	if (ret)
		snprintf(why, len, "XFER: %s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
	hfg_unpin(ctl, h);
	bad = ret ? 0 : hfg_check(b + n, n, 0x7777);
	munmap(b, 2 * n);
	if (!ret && bad >= 0) {
		snprintf(why, len, "data differs at byte %ld", bad);
		return -1;
	}
	return ret ? -1 : 0;
}

/*
 * What B holds the moment the memory went back (UNPIN, the child gone, the
 * XFER failed): copied at once, since looking at 64 MiB takes long enough
 * under TCG for a card that still writes to finish meanwhile.
 */
static uint8_t *snapshot_len(uint64_t len)
{
	uint8_t *snap = malloc(len);

	if (snap)
		memcpy(snap, map_b, len);
	return snap;
}

static uint8_t *snapshot(void)
{
	return snapshot_len(BIG);
}

/* The first @len bytes of B unchanged over @quiet_us since @snap; 0 or the
 * first differing byte + 1, -1 without a snapshot.  Frees @snap. */
static long quiet_check_len(uint8_t *snap, uint64_t len, long quiet_us)
{
	long at = 0;

	if (!snap)
		return -1;
	sleep_us(quiet_us);
	/* memcmp() first: a byte loop over 64 MiB is slow under TCG */
	if (!memcmp(snap, map_b, len))
		len = 0;
	for (uint64_t i = 0; i < len; i++) {
		if (snap[i] != map_b[i]) {
			at = (long)i + 1;
			break;
		}
	}
	free(snap);
	return at;
}

static long quiet_check(uint8_t *snap)
{
	return quiet_check_len(snap, BIG, QUIET_US);
}

static void report_quiet_us(const char *name, long at, long quiet_us)
{
	if (!at)
		HFG_PASS(name, "the shared buffer did not change in %ld ms after it",
			 quiet_us / 1000);
	else if (at < 0)
		HFG_FAIL(name, "no memory for the snapshot");
	else
		HFG_FAIL(name, "the card wrote into the buffer after the driver gave it back (first change at byte %ld)",
			 at - 1);
}

static void report_quiet(const char *name, long at)
{
	report_quiet_us(name, at, QUIET_US);
}

static void report_faults(const char *name, uint64_t dma0)
{
	uint64_t dma = hfg_counter(ufd, HFG_CNT_DMA_ERRORS);
	int k = klog_bad();

	if (dma == dma0 && !k)
		HFG_PASS(name, NULL);
	else
		HFG_FAIL(name, "%llu DMA accesses of the card failed (dma_errors), %d DMAR lines in the kernel log",
			 (unsigned long long)(dma - dma0), k);
}

static void report_next(const char *name, uint64_t addr)
{
	char why[300];

	if (!next_transfer(addr, why, sizeof(why)))
		HFG_PASS(name, "1 MiB round trip, data checked");
	else
		HFG_FAIL(name, "%s", why);
}

/* -------------------------------------------------------------- timeout */

static uint64_t sum(const __u64 *v)
{
	uint64_t t = 0;

	for (int i = 0; i < HELLOFPGA_MAX_ENGINES; i++)
		t += v[i];
	return t;
}

static int set_timeout(int fd, uint32_t ms, uint32_t flags)
{
	struct hellofpga_timeout t = { .timeout_ms = ms, .flags = flags };

	return ioctl(fd, HELLOFPGA_IOC_SET_TIMEOUT, &t) ? -errno : 0;
}

/* SET_TIMEOUT on a channel node: back to the default, and its checks. */
static void rw_set_timeout(void)
{
	size_t n = 4 << 20;
	int fd = hfg_open(card, "_c2h_0", O_RDONLY);
	uint8_t *b = malloc(n);
	ssize_t r;
	int e1, e2, e3;

	if (fd < 0 || !b) {
		HFG_FAIL("timeout-rw-setup", "c2h_0: %s", strerror(errno));
		free(b);
		return;
	}
	memset(b, 0, n);
	e1 = set_timeout(fd, 20, 0);
	if (!e1)
		e1 = set_timeout(fd, 0, 0);
	r = pread(fd, b, n, 0);
	if (!e1 && r == (ssize_t)n)
		HFG_PASS("timeout-rw-default-again", "20 ms, then 0: the module's timeout; the pread() works");
	else
		HFG_FAIL("timeout-rw-default-again", "SET_TIMEOUT 20 then 0: %s; pread(): %zd (%s)",
			 e1 ? strerror(-e1) : "ok", r,
			 r < 0 ? strerror(errno) : "short");
	e1 = set_timeout(fd, 10, 1);
	e2 = set_timeout(fd, HELLOFPGA_MAX_TIMEOUT_MS + 1, 0);
	e3 = set_timeout(fd, HELLOFPGA_MAX_TIMEOUT_MS, 0);
	if (e1 == -EINVAL && e2 == -EINVAL && !e3)
		HFG_PASS("timeout-rw-set-timeout-checks", "flags and too long a timeout: EINVAL");
	else
		HFG_FAIL("timeout-rw-set-timeout-checks", "flags 1: %d, %u ms: %d, %u ms: %d (want EINVAL, EINVAL, 0)",
			 e1, HELLOFPGA_MAX_TIMEOUT_MS + 1, e2,
			 HELLOFPGA_MAX_TIMEOUT_MS, e3);
	free(b);
	close(fd);
}

static void mode_timeout(void)
{
	struct hellofpga_stats st0, st1;
	uint64_t h, bytes = 0, dma0;
	uint32_t nsegs = 0;
	uint8_t *snap;
	double t0, dt;
	int ret, ret2;
	long bad;

	ret = card_load(0, SEED_P, &h, &nsegs);
	if (ret) {
		HFG_FAIL("timeout-setup", "64 MiB H2C with a %d ms timeout: %s: %s",
			 SETUP_MS, strerror(-ret), hfg_drv_err(ctl));
		return;
	}
	if (nsegs == 1)
		HFG_PASS("one-descriptor", "the 64 MiB pin is one DMA segment");
	else
		HFG_FAIL("one-descriptor", "the 64 MiB pin has %u DMA segments: no one-descriptor transfer (needs the vIOMMU)",
			 nsegs);
	hfg_fill(map_a, BIG, SEED_Q);
	dma0 = hfg_counter(ufd, HFG_CNT_DMA_ERRORS);
	hfg_stats(ctl, &st0);
	kmark();

	/* C2H: the card writes the buffer */
	t0 = hfg_now();
	ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_C2H, 0, 0, 0, BIG, SHORT_MS,
		       &bytes);
	dt = ms_since(t0);
	/* the memory goes back at once, as a program would give it back */
	ret2 = hfg_unpin(ctl, h);
	munmap(map_a, BIG);
	snap = snapshot();
	bad = snap ? hfg_check(snap, BIG, SEED_P) : 0;
	hfg_stats(ctl, &st1);
	if (ret == -ETIMEDOUT)
		HFG_PASS("timeout-c2h-etimedout", "after %.0f ms: %s", dt,
			 hfg_drv_err(ctl));
	else
		HFG_FAIL("timeout-c2h-etimedout", "XFER with a %d ms timeout returned %s after %.0f ms (%s; the card's lost_irqs +%llu, timeouts +%llu)",
			 SHORT_MS, ret ? strerror(-ret) : "success", dt,
			 ret ? hfg_drv_err(ctl) : "no error text",
			 (unsigned long long)(sum(st1.lost_irqs) -
					      sum(st0.lost_irqs)),
			 (unsigned long long)(sum(st1.timeouts) -
					      sum(st0.timeouts)));
	if (bytes == BIG)
		HFG_PASS("timeout-c2h-bytes", "bytes = 64 MiB");
	else
		HFG_FAIL("timeout-c2h-bytes", "bytes = %llu, not the whole descriptor (64 MiB) that the card finishes after Run is cleared",
			 (unsigned long long)bytes);
	if (bad < 0)
		HFG_PASS("timeout-c2h-landed-before-return",
			 "all of card memory's pattern in the buffer when XFER returned");
	else
		HFG_FAIL("timeout-c2h-landed-before-return", "XFER returned after %.0f ms while the card was still writing: byte %ld of 64 MiB not there at UNPIN",
			 dt, bad);
	if (ret2)
		HFG_FAIL("timeout-c2h-unpin", "UNPIN: %s", strerror(-ret2));
	report_quiet("timeout-c2h-nothing-written-after-unpin", quiet_check(snap));
	report_faults("timeout-c2h-no-dma-fault", dma0);
	report_next("timeout-c2h-next-transfer", BIG);

	/* H2C: the card reads the buffer */
	map_a = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_SHARED |
		     MAP_POPULATE, mfd, 0);
	if (map_a == MAP_FAILED) {
		HFG_FAIL("timeout-h2c", "mmap: %s", strerror(errno));
		return;
	}
	ret = card_load(0, SEED_P, NULL, NULL);
	hfg_fill(map_a, BIG, SEED_H2C);
	if (!ret)
		ret = hfg_pin_host(ctl, map_a, BIG, &h);
	if (ret) {
		HFG_FAIL("timeout-h2c-setup", "%s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		return;
	}
	dma0 = hfg_counter(ufd, HFG_CNT_DMA_ERRORS);
	kmark();
	t0 = hfg_now();
	ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_H2C, 0, 0, 0, BIG, SHORT_MS,
		       &bytes);
	dt = ms_since(t0);
	if (ret == -ETIMEDOUT && bytes == BIG)
		HFG_PASS("timeout-h2c-etimedout", "after %.0f ms, bytes = 64 MiB",
			 dt);
	else
		HFG_FAIL("timeout-h2c-etimedout", "XFER with a %d ms timeout returned %s after %.0f ms, bytes %llu (want ETIMEDOUT, 64 MiB)",
			 SHORT_MS, ret ? strerror(-ret) : "success", dt,
			 (unsigned long long)bytes);
	hfg_unpin(ctl, h);
	munmap(map_a, BIG);
	map_a = NULL;
	sleep_us(QUIET_US);
	report_faults("timeout-h2c-no-dma-fault", dma0);
	/* what the card read: all of the buffer, before it went back */
	hfg_fill(map_b, BIG, SEED_Q);
	ret = hfg_pin_host(ctl, map_b, BIG, &h);
	if (!ret)
		ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_C2H, 0, 0, 0, BIG,
			       SETUP_MS, NULL);
	if (!ret)
		hfg_unpin(ctl, h);
	bad = ret ? 0 : hfg_check(map_b, BIG, SEED_H2C);
	if (ret)
		HFG_FAIL("timeout-h2c-card-has-all", "reading card memory back: %s: %s",
			 strerror(-ret), hfg_drv_err(ctl));
	else if (bad >= 0)
		HFG_FAIL("timeout-h2c-card-has-all", "card memory differs from the buffer at byte %ld: the card read it after it was unmapped",
			 bad);
	else
		HFG_PASS("timeout-h2c-card-has-all", "the card read all 64 MiB before XFER returned");
	report_next("timeout-h2c-next-transfer", BIG);
	rw_set_timeout();
}

/*
 * A child with a control file of its own (released when it dies) pins map
 * A and reads BIG bytes of card memory into it (C2H, timeout SETUP_MS),
 * exiting 0 when that worked.  Its pid once it holds the pin; -1 after a
 * FAIL of check @tag-fork or @tag-child-pin.
 */
static pid_t child_c2h(const char *tag)
{
	int pfd[2], status = 0, ret, err;
	char name[64], c;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0) {
		err = errno;
		snprintf(name, sizeof(name), "%s-fork", tag);
		HFG_FAIL(name, "%s", strerror(err));
		return -1;
	}
	if (!pid) {
		int cfd = hfg_open(card, "_control", O_RDWR);
		uint64_t h;

		if (cfd < 0 || hfg_pin_host(cfd, map_a, BIG, &h))
			_exit(3);
		if (write(pfd[1], "g", 1) != 1)
			_exit(3);
		ret = hfg_xfer(cfd, h, HELLOFPGA_XFER_C2H, 0, 0, 0, BIG,
			       SETUP_MS, NULL);
		_exit(ret ? 1 : 0);
	}
	close(pfd[1]);
	ret = read(pfd[0], &c, 1);
	close(pfd[0]);
	if (ret != 1) {
		waitpid(pid, &status, 0);
		snprintf(name, sizeof(name), "%s-child-pin", tag);
		HFG_FAIL(name, "the child could not pin (exit %d)",
			 WEXITSTATUS(status));
		return -1;
	}
	return pid;
}

/* ----------------------------------------------------------------- kill */

static void mode_kill(void)
{
	struct hellofpga_stats st0;
	uint64_t dma0;
	uint8_t *snap;
	int status = 0, ret;
	double t0, t_kill, t_gone;
	long bad;
	pid_t pid;

	ret = card_load(0, SEED_P, NULL, NULL);
	if (ret) {
		HFG_FAIL("kill-setup", "64 MiB H2C: %s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		return;
	}
	hfg_fill(map_a, BIG, SEED_Q);
	hfg_stats(ctl, &st0);
	dma0 = hfg_counter(ufd, HFG_CNT_DMA_ERRORS);
	kmark();
	pid = child_c2h("kill");
	if (pid < 0)
		return;
	/* the transfer is under way once the first bytes land in B */
	t0 = hfg_now();
	while (hfg_check(map_b, 4096, SEED_P) >= 0 && ms_since(t0) < 5000)
		sleep_us(200);
	if (hfg_check(map_b, 4096, SEED_P) >= 0) {
		HFG_FAIL("kill-transfer-under-way", "no byte of the transfer landed within 5 s");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	t_kill = hfg_now();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	t_gone = ms_since(t_kill);
	snap = snapshot();
	bad = snap ? hfg_check(snap, BIG, SEED_P) : 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		HFG_PASS("kill-child-gone", "killed %.0f ms into the transfer, gone %.0f ms later",
			 (t_kill - t0) * 1e3, t_gone);
	else
		HFG_FAIL("kill-child-gone", "the child was not killed (status 0x%x): the transfer ended before the kill",
			 status);
	if (bad < 0)
		HFG_PASS("kill-landed-before-exit", "all of the descriptor in the buffer when the child was gone");
	else
		HFG_FAIL("kill-landed-before-exit", "the child's files were released while the card was still writing: byte %ld of 64 MiB not there yet",
			 bad);
	munmap(map_a, BIG);
	map_a = NULL;
	report_quiet("kill-nothing-written-after-exit", quiet_check(snap));
	hfg_pins_back("kill-pin-released", ctl, &st0);
	report_faults("kill-no-dma-fault", dma0);
	report_next("kill-next-transfer", BIG);
}

/* ----------------------------------------------------------------- busy */

/* A pread() of c2h_0 with a 20 ms file timeout; 0 or -errno, *@ms. */
static int busy_pread(uint8_t *buf, double *ms)
{
	int fd = hfg_open(card, "_c2h_0", O_RDONLY), ret;
	double t0 = hfg_now();

	if (fd < 0)
		return -errno;
	ret = set_timeout(fd, SHORT_MS, 0);
	if (!ret && pread(fd, buf, 4096, 0) < 0)
		ret = -errno;
	*ms = ms_since(t0);
	close(fd);
	return ret;
}

static void mode_busy(void)
{
	uint64_t h, bytes = 1;
	int status = 0, ret, rw;
	double t0, dt, rw_ms = 0;
	uint8_t *small;
	pid_t pid;

	ret = card_load(0, SEED_P, NULL, NULL);
	small = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ret || small == MAP_FAILED ||
	    (ret = hfg_pin_host(ctl, small, 4096, &h))) {
		HFG_FAIL("busy-setup", "%s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		return;
	}
	hfg_fill(map_a, BIG, SEED_Q);
	pid = child_c2h("busy");
	if (pid < 0)
		return;
	/* the child holds the channel once its first bytes land in B */
	t0 = hfg_now();
	while (hfg_check(map_b, 4096, SEED_P) >= 0 && ms_since(t0) < 5000)
		sleep_us(200);
	t0 = hfg_now();
	ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_C2H, 0, 0, 0, 4096, SHORT_MS,
		       &bytes);
	dt = ms_since(t0);
	rw = busy_pread(small, &rw_ms);
	waitpid(pid, &status, 0);
	if (rw == -EBUSY)
		HFG_PASS("busy-rw-set-timeout", "pread() with SET_TIMEOUT 20 ms: EBUSY after %.0f ms",
			 rw_ms);
	else
		HFG_FAIL("busy-rw-set-timeout", "pread() of c2h_0 with SET_TIMEOUT 20 ms on a held channel: %s after %.0f ms (want EBUSY)",
			 rw ? strerror(-rw) : "success", rw_ms);
	if (ret == -EBUSY && !bytes)
		HFG_PASS("busy-ebusy", "after %.0f ms: %s", dt,
			 hfg_drv_err(ctl));
	else
		HFG_FAIL("busy-ebusy", "XFER on a held channel with a %d ms timeout returned %s after %.0f ms, bytes %llu (want EBUSY, 0)",
			 SHORT_MS, ret ? strerror(-ret) : "success", dt,
			 (unsigned long long)bytes);
	if (WIFEXITED(status) && !WEXITSTATUS(status) &&
	    hfg_check(map_b, BIG, SEED_P) < 0)
		HFG_PASS("busy-holder-completes", "the child's 64 MiB arrived whole");
	else
		HFG_FAIL("busy-holder-completes", "the child ended with status 0x%x",
			 status);
	hfg_unpin(ctl, h);
	munmap(small, 4096);
	report_next("busy-next-transfer", BIG);
}

/* --------------------------------------------------------------- unplug */

static void console(const char *line)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		dprintf(fd, "%s\n", line);
		close(fd);
	}
	printf("%s\n", line);
	fflush(stdout);
}

static void mode_unplug(const char *qmp)
{
	static const uint32_t seeds[2] = { SEED_P, SEED_P2 };
	uint64_t h, bytes = 0;
	double t0 = 0, start, dt = 0;
	uint8_t *snap;
	long bad;
	int i, ret;

	ret = card_load(0, SEED_P, NULL, NULL);
	if (!ret)
		ret = card_load(BIG, SEED_P2, NULL, NULL);
	hfg_fill(map_a, BIG, SEED_Q);
	if (!ret)
		ret = hfg_pin_host(ctl, map_a, BIG, &h);
	if (ret) {
		HFG_FAIL("unplug-setup", "%s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		return;
	}
	kmark();
	console(qmp);
	start = hfg_now();
	for (i = 0; ms_since(start) < 90000; i++) {
		bytes = 0;
		t0 = hfg_now();
		ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_C2H, 0, 0,
			       (i % 2) * BIG, BIG, SETUP_MS, &bytes);
		dt = ms_since(t0);
		if (ret)
			break;
	}
	snap = snapshot();
	bad = snap ? hfg_check(snap, BIG, seeds[i % 2]) : 0;
	if (ret == -ENODEV || ret == -EIO)
		HFG_PASS("unplug-transfer-ended", "XFER %d ended with %s after %.0f ms, %.1f s after the request, bytes %llu: %s",
			 i + 1, strerror(-ret), dt, ms_since(start) / 1e3,
			 (unsigned long long)bytes, hfg_drv_err(ctl));
	else
		HFG_FAIL("unplug-transfer-ended", "after %d XFERs in %.0f s: %s (want ENODEV or EIO)",
			 i, ms_since(start) / 1e3,
			 ret ? strerror(-ret) : "no error: the card was not removed");
	if (ret && !bytes && bad >= 0 && dt < 50)
		HFG_SKIP("unplug-landed-before-return", "the removal came between two transfers (XFER %d failed at once): inconclusive",
			 i + 1);
	else if (ret && bytes == BIG && bad < 0)
		HFG_PASS("unplug-landed-before-return", "bytes = 64 MiB, all of the descriptor in the buffer when XFER returned");
	else if (ret)
		HFG_FAIL("unplug-landed-before-return", "XFER returned %.0f ms into the transfer with bytes %llu while the card was still writing (byte %ld of its pattern not there)",
			 dt, (unsigned long long)bytes, bad);
	munmap(map_a, BIG);
	map_a = NULL;
	report_quiet("unplug-nothing-written-after-return", quiet_check(snap));
	ret = klog_bad();
	if (!ret)
		HFG_PASS("unplug-no-dma-fault", NULL);
	else
		HFG_FAIL("unplug-no-dma-fault", "%d DMAR lines in the kernel log since the removal began",
			 ret);
	ret = hfg_pin_host(ctl, map_b, 1 << 20, &h);
	if (ret == -ENODEV)
		HFG_PASS("unplug-file-after-removal", "PIN on the open file: ENODEV");
	else
		HFG_FAIL("unplug-file-after-removal", "PIN on the open file of the removed card: %s (want ENODEV)",
			 ret ? strerror(-ret) : "success");
}

/* ------------------------------------------------------------------- wb */

#define WB_LEN		(16ull << 20)	/* one descriptor, ~70 ms on Gen1 x1 */
#define WB_QUIET_US	200000		/* longer than WB_LEN could still need */
#define WB_IN_DATA	4096		/* the word inside the destination */
#define FORGED		0x00ffffffu	/* "every descriptor done" */

/**
 * struct wb_forger - a thread that, until stopped, writes FORGED into an
 * XFER_WB word and/or has the card send a stray interrupt, every 300 us.
 * @word: the word, NULL: forge nothing
 * @engine: the engine (engine order) whose channel message the card sends
 *	(the fault window), -1: none
 * @stop: set to end it
 * @t: the thread
 */
struct wb_forger {
	volatile uint32_t *word;
	int engine;
	int stop;
	pthread_t t;
};

static void *wb_forger_fn(void *arg)
{
	struct wb_forger *g = arg;
	double t0 = hfg_now();

	while (!__atomic_load_n(&g->stop, __ATOMIC_ACQUIRE) &&
	       ms_since(t0) < 10000) {
		if (g->word)
			__atomic_store_n(g->word, FORGED, __ATOMIC_RELEASE);
		if (g->engine >= 0)
			hfg_stray_irq(ufd, g->engine);
		sleep_us(300);
	}
	return NULL;
}

/* XFER C2H0 of card [0, @len) into pin @h with its word at (@wh, @woff). */
static int xfer_c2h_wb(uint64_t h, uint64_t len, uint64_t wh, uint64_t woff,
		       uint64_t *bytes)
{
	struct hellofpga_xfer x = {
		.handle = h,
		.length = len,
		.dir = HELLOFPGA_XFER_C2H,
		.timeout_ms = SETUP_MS,
		.flags = HELLOFPGA_XFER_WB,
		.wb_handle = wh,
		.wb_offset = woff,
	};
	int ret = ioctl(ctl, HELLOFPGA_IOC_XFER, &x) ? -errno : 0;

	*bytes = x.bytes;
	return ret;
}

/*
 * One XFER_WB C2H of WB_LEN (one descriptor) from card pattern P whose
 * word says "all done" long before the card is: forged by a thread (the
 * word in a page of its own), or, @in_data, supplied by the card's own
 * data (the word at WB_IN_DATA of the destination, where card memory holds
 * FORGED).  @engine >= 0 (interrupt mode): the card also sends a stray
 * interrupt of C2H0 every 300 us, the wake-up that makes the run look.
 * XFER must end with the descriptor: it succeeds with all of P in the
 * buffer (and, @in_data, the card's count, 1, over FORGED) when it
 * returns; UNPIN and munmap right after it, nothing is written later and
 * no DMA fails.
 */
static void wb_case(const char *tag, bool in_data, int engine)
{
	uint64_t h = 0, hw = 0, bytes = 0, dma0;
	volatile uint32_t *wpage = NULL;
	struct wb_forger g = { .engine = engine };
	uint8_t *snap, expect[WB_IN_DATA + 4];
	uint32_t nsegs = 0, count = 0;
	char name[80];
	bool forging;
	double t0, dt;
	int ret;
	long bad;

	ret = card_load_len(0, SEED_P, WB_LEN, &h, &nsegs);
	if (!ret && in_data) {
		memcpy(map_a + WB_IN_DATA, &(uint32_t){ FORGED }, 4);
		ret = hfg_xfer(ctl, h, HELLOFPGA_XFER_H2C, 0, WB_IN_DATA,
			       WB_IN_DATA, 4, SETUP_MS, NULL);
	}
	if (!ret && !in_data) {
		wpage = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		ret = wpage == MAP_FAILED ? -errno :
		      hfg_pin_host(ctl, (void *)wpage, 4096, &hw);
		g.word = wpage;
	}
	snprintf(name, sizeof(name), "%s-setup", tag);
	if (ret || nsegs != 1) {
		HFG_FAIL(name, "%s (%u DMA segments, want 1): %s",
			 ret ? strerror(-ret) : "ok", nsegs, hfg_drv_err(ctl));
		goto out;
	}
	/* zeros, not a pattern: quicker under TCG, and P is what must land */
	memset(map_a, 0, WB_LEN);
	dma0 = hfg_counter(ufd, HFG_CNT_DMA_ERRORS);
	kmark();
	forging = g.word || g.engine >= 0;
	if (forging && pthread_create(&g.t, NULL, wb_forger_fn, &g)) {
		HFG_FAIL(name, "pthread_create failed");
		goto out;
	}
	t0 = hfg_now();
	ret = in_data ? xfer_c2h_wb(h, WB_LEN, h, WB_IN_DATA, &bytes) :
			xfer_c2h_wb(h, WB_LEN, hw, 0, &bytes);
	dt = ms_since(t0);
	/* the memory goes back at once, as a program would give it back */
	hfg_unpin(ctl, h);
	h = 0;
	munmap(map_a, BIG);
	map_a = NULL;
	snap = snapshot_len(WB_LEN);
	if (forging) {
		__atomic_store_n(&g.stop, 1, __ATOMIC_RELEASE);
		pthread_join(g.t, NULL);
	}
	snprintf(name, sizeof(name), "%s-xfer", tag);
	if (!ret && bytes == WB_LEN)
		HFG_PASS(name, "succeeded after %.0f ms (16 MiB on Gen1 x1: about 70 ms)",
			 dt);
	else
		HFG_FAIL(name, "XFER %s after %.0f ms, bytes %llu: %s",
			 ret ? strerror(-ret) : "succeeded", dt,
			 (unsigned long long)bytes, ret ? hfg_drv_err(ctl) : "");
	/* P, with the word's bytes of P where the card's count went */
	bad = 0;
	if (snap) {
		hfg_fill(expect, sizeof(expect), SEED_P);
		if (in_data) {
			memcpy(&count, snap + WB_IN_DATA, 4);
			memcpy(snap + WB_IN_DATA, expect + WB_IN_DATA, 4);
		}
		bad = hfg_check(snap, WB_LEN, SEED_P);
		if (in_data)
			memcpy(snap + WB_IN_DATA, &count, 4);
	}
	snprintf(name, sizeof(name), "%s-landed-before-return", tag);
	if (bad < 0 && (!in_data || count == 1))
		HFG_PASS(name, "all of the descriptor in the buffer when XFER returned%s",
			 in_data ? ", the card's count over the word" : "");
	else
		HFG_FAIL(name, "XFER returned after %.0f ms while the card was still writing: byte %ld of 16 MiB not there at UNPIN%s (word 0x%08x)",
			 dt, bad, in_data ? ", the card's count not over the word yet" : "",
			 count);
	snprintf(name, sizeof(name), "%s-nothing-written-after-unpin", tag);
	report_quiet_us(name, quiet_check_len(snap, WB_LEN, WB_QUIET_US),
			WB_QUIET_US);
	snprintf(name, sizeof(name), "%s-no-dma-fault", tag);
	report_faults(name, dma0);
out:
	if (h)
		hfg_unpin(ctl, h);
	if (hw)
		hfg_unpin(ctl, hw);
	if (wpage && wpage != MAP_FAILED)
		munmap((void *)wpage, 4096);
	if (!map_a)
		map_a = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_SHARED |
			     MAP_POPULATE, mfd, 0);
}

/*
 * XFER_WB words that say "done" before the engine is (docs/driver-stop.md,
 * "Words a user or a GPU can write"): forged by a thread, or by the card's
 * data; in MSI-X mode with stray interrupts as the wake-up.
 */
static void mode_wb(void)
{
	struct hellofpga_info info;
	double t0 = hfg_now();
	int engine = -1;
	const char *m;

	if (hfg_info(ctl, &info) || !(info.features & HELLOFPGA_FEAT_XFER_WB)) {
		HFG_SKIP("wb-all", "no HELLOFPGA_FEAT_XFER_WB");
		return;
	}
	if (info.irq_mode == HELLOFPGA_IRQ_MODE_MSIX)
		engine = info.num_h2c;		/* C2H0 */
	m = info.irq_mode == HELLOFPGA_IRQ_MODE_POLL ? "wb-poll" :
	    engine >= 0 ? "wb-msix" : "wb-irq";
	if (engine >= 0 && !hfg_fw_present(ufd)) {
		HFG_SKIP(m, "no fault window for the stray interrupts");
		return;
	}
	{
		char tag[32];

		snprintf(tag, sizeof(tag), "%s-thread", m);
		wb_case(tag, false, engine);
		snprintf(tag, sizeof(tag), "%s-data", m);
		wb_case(tag, true, engine);
		snprintf(tag, sizeof(tag), "%s-next-transfer", m);
		report_next(tag, BIG);
	}
	printf("# hf_stop -m wb (%s): %.1f s\n", m, ms_since(t0) / 1e3);
}

/* ---------------------------------------------------------------- stuck */

/* A child stuck in a transfer (@rw: read() of c2h_0, else XFER H2C0),
 * SIGKILLed after a second; ms from the kill until it is gone, or -1. */
static double stuck_kill(bool rw, char *why, size_t len)
{
	int pfd[2], status;
	double t;
	pid_t pid;
	char c;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		size_t n = 65536;
		uint8_t *b = mmap(NULL, n, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				  -1, 0);
		uint64_t h = 0;
		int fd;

		if (rw) {
			fd = hfg_open(card, "_c2h_0", O_RDONLY);
			if (fd < 0 || write(pfd[1], "g", 1) != 1)
				_exit(3);
			_exit(read(fd, b, n) < 0 ? 1 : 0);
		}
		/* its own file, whose pin goes when it dies */
		fd = hfg_open(card, "_control", O_RDWR);
		if (fd < 0 || hfg_pin_host(fd, b, n, &h) ||
		    write(pfd[1], "g", 1) != 1)
			_exit(3);
		_exit(hfg_xfer(fd, h, HELLOFPGA_XFER_H2C, 0, 0, 0, n, 30000,
			       NULL) ? 1 : 0);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		waitpid(pid, &status, 0);
		snprintf(why, len, "the child could not start (exit %d)",
			 WEXITSTATUS(status));
		close(pfd[0]);
		return -1;
	}
	close(pfd[0]);
	sleep_us(1000000);
	if (waitpid(pid, &status, WNOHANG) == pid) {
		snprintf(why, len, "the transfer was not stuck: the child exited %d within 1 s",
			 WEXITSTATUS(status));
		return -1;
	}
	t = hfg_now();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return ms_since(t);
}

static void mode_stuck(void)
{
	struct hellofpga_stats st0;
	static const char *const names[2] = { "killed-xfer", "killed-read" };
	char why[200];
	double ms;

	hfg_group = "stuck";
	if (!hfg_fw_present(ufd)) {
		HFG_SKIP("all", "no fault window on %s_user", card);
		return;
	}
	hfg_stats(ctl, &st0);
	for (int rw = 0; rw < 2; rw++) {
		if (hfg_fault(ufd, HFG_FAULT_STALL)) {
			HFG_FAIL(names[rw], "cannot set the stall fault");
			continue;
		}
		why[0] = 0;
		ms = stuck_kill(rw, why, sizeof(why));
		hfg_fault(ufd, 0);
		if (ms < 0)
			HFG_FAIL(names[rw], "%s", why);
		else if (ms < 2000)
			HFG_PASS(names[rw], "gone %.0f ms after SIGKILL", ms);
		else
			HFG_FAIL(names[rw], "gone only %.0f ms after SIGKILL (the transfer's timeout, not the signal, ended it?)",
				 ms);
	}
	report_next("next-transfer", 0);
	hfg_pins_back("no-pin-left", ctl, &st0);
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *qmp = NULL;
	int opt, ret;

	hfg_group = "stop64";
	while ((opt = hfg_getopt(argc, argv, "d:m:q:", &card)) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'q')
			qmp = optarg;
		else
			return 2;
	}
	if (!mode || (!strcmp(mode, "unplug") && !qmp)) {
		fprintf(stderr, "usage: hf_stop [-d CARD] -m timeout|kill|busy|unplug|wb|stuck [-q QMP-LINE]\n");
		return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	ufd = hfg_open(card, "_user", O_RDWR);
	if (ctl < 0 || ufd < 0) {
		HFG_FAIL("open", "%s_control/_user: %s", card, strerror(errno));
		return 1;
	}
	if (!strcmp(mode, "stuck")) {
		mode_stuck();
		return hfg_exit();
	}
	ret = buf_setup();
	if (ret) {
		HFG_FAIL("setup", "memfd of 64 MiB: %s", strerror(-ret));
		return 1;
	}
	if (!strcmp(mode, "timeout"))
		mode_timeout();
	else if (!strcmp(mode, "kill"))
		mode_kill();
	else if (!strcmp(mode, "busy"))
		mode_busy();
	else if (!strcmp(mode, "unplug"))
		mode_unplug(qmp);
	else if (!strcmp(mode, "wb"))
		mode_wb();
	else
		return 2;
	return hfg_exit();
}
