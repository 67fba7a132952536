// SPDX-License-Identifier: MIT
/*
 * hf_wedge - hang, then recover: channels whose engine does not stop
 * (docs/driver-stop.md, "Wedged channels"), through write()/read() of the
 * h2c/c2h nodes and through XFER on a pin.
 *
 *   hf_wedge [-d /dev/hellofpgaN] [-o /dev/hellofpgaM] [-t TIMEOUT_MS]
 *
 * The card's hang fault (fault window bit 4, model/qemu/README.md) makes
 * every engine stop making progress and ignore a Run clear, so a stopped
 * run cannot be proven idle: the channel is wedged.  Load hellofpga.ko with
 * timeout_ms=TIMEOUT_MS (default 1000) and a short stop_wait_ms.
 *
 * During the hang, on H2C0 (write()), C2H0 (read()) and H2C1 (XFER with a
 * 300 ms timeout): the transfer fails with ETIMEDOUT (XFER: bytes = the
 * whole range) and dmesg says "<chan> wedged" once; the next one fails at
 * once (well under its timeout) with EIO and a last-error text naming the
 * channel ("channel wedged"); UNPIN of the wedged pin succeeds; the other
 * card (-o) works meanwhile.  After the hang is ended, while the wedged
 * channels still hold their memory, another channel (H2C2 -> C2H2) works;
 * then the next transfer on each wedged channel works (data checked) and
 * dmesg says "<chan>: wedged run's memory released", once each, and the
 * buffer of the wedged read() keeps what the program wrote into it after
 * it returned (no bounce buffer copied back at the release); no pin is
 * left.
 *
 * Prints PASS/FAIL/SKIP lines "hang/NAME"; exit status 1 when one failed.
 */
#include <sys/mman.h>

#include "hf_guest.h"

#define LEN		(64 * 1024)
#define HANG_US		60000000u	/* ended by the test long before */
#define XFER_MS		300

static const char *card = "/dev/hellofpga0", *other;
static unsigned int tmo_ms = 1000;
static char mark[64];

static double ms_since(double t)
{
	return (hfg_now() - t) * 1e3;
}

static int klog(const char *needle)
{
	return hfg_klog_count(mark, needle);
}

/* the driver's last error of @fd names @chan and says "channel wedged" */
static int wedged_text(int fd, const char *chan)
{
	const char *t = hfg_drv_err(fd);

	return strstr(t, chan) && strstr(t, "channel wedged");
}

/*
 * One transfer on a wedged channel during the hang: @first must time out,
 * the next must be refused at once with a text that names @chan.
 * @op does the transfer on @fd and returns 0 or -errno.
 */
static void wedge(const char *what, const char *chan, int fd,
		  int (*op)(int fd, void *arg), void *arg, double limit_ms)
{
	char n[64], w[32];
	double t0, dt;
	int ret;

	t0 = hfg_now();
	ret = op(fd, arg);
	dt = ms_since(t0);
	snprintf(n, sizeof(n), "%s-etimedout", what);
	if (ret == -ETIMEDOUT)
		HFG_PASS(n, "%s after %.0f ms", chan, dt);
	else
		HFG_FAIL(n, "%s during the hang: %s after %.0f ms (want ETIMEDOUT): %s",
			 chan, ret ? strerror(-ret) : "success", dt,
			 hfg_drv_err(fd));
	snprintf(w, sizeof(w), "%s wedged", chan);
	snprintf(n, sizeof(n), "%s-wedged-logged", what);
	if (klog(w) == 1)
		HFG_PASS(n, "dmesg: \"%s: ...\"", w);
	else
		HFG_FAIL(n, "%d kernel log lines \"%s\" (want 1)", klog(w), w);

	t0 = hfg_now();
	ret = op(fd, arg);
	dt = ms_since(t0);
	snprintf(n, sizeof(n), "%s-refused-at-once", what);
	if (ret == -EIO && dt < limit_ms && wedged_text(fd, chan))
		HFG_PASS(n, "EIO after %.0f ms: %s", dt, hfg_drv_err(fd));
	else
		HFG_FAIL(n, "the next transfer on the wedged %s: %s after %.0f ms (want EIO well under the %.0f ms timeout, a text naming the channel): %s",
			 chan, ret ? strerror(-ret) : "success", dt, 2 * limit_ms,
			 hfg_drv_err(fd));
}

struct rw_arg {
	uint8_t *buf;
	off_t pos;
};

static int op_write(int fd, void *arg)
{
	struct rw_arg *a = arg;
	ssize_t n = pwrite(fd, a->buf, LEN, a->pos);

	return n == LEN ? 0 : n < 0 ? -errno : -EIO;
}

static int op_read(int fd, void *arg)
{
	struct rw_arg *a = arg;
	ssize_t n = pread(fd, a->buf, LEN, a->pos);

	return n == LEN ? 0 : n < 0 ? -errno : -EIO;
}

struct xfer_arg {
	uint64_t handle, bytes;
	uint32_t ms;
};

static int op_xfer(int fd, void *arg)
{
	struct xfer_arg *a = arg;

	return hfg_xfer(fd, a->handle, HELLOFPGA_XFER_H2C, 1, 0, 2 << 20,
			LEN, a->ms, &a->bytes);
}

/* a round trip of LEN bytes: h2c_@hc -> card @pos -> c2h_@cc, checked */
static int round_trip(const char *c, int hc, int cc, off_t pos, uint32_t seed,
		      char *why, size_t len)
{
	static uint8_t a[LEN], b[LEN];
	char sfx[16];
	int h, k, ret = -1;

	snprintf(sfx, sizeof(sfx), "_h2c_%d", hc);
	h = hfg_open(c, sfx, O_WRONLY);
	snprintf(sfx, sizeof(sfx), "_c2h_%d", cc);
	k = hfg_open(c, sfx, O_RDONLY);
	hfg_fill(a, LEN, seed);
	memset(b, 0, LEN);
	if (h < 0 || k < 0)
		snprintf(why, len, "open: %s", strerror(errno));
	else if (pwrite(h, a, LEN, pos) != LEN)
		snprintf(why, len, "write h2c_%d: %s: %s", hc, strerror(errno),
			 hfg_drv_err(h));
	else if (pread(k, b, LEN, pos) != LEN)
		snprintf(why, len, "read c2h_%d: %s: %s", cc, strerror(errno),
			 hfg_drv_err(k));
	else if (hfg_check(b, LEN, seed) >= 0)
		snprintf(why, len, "data differs at byte %ld",
			 hfg_check(b, LEN, seed));
	else
		ret = 0;
	if (h >= 0)
		close(h);
	if (k >= 0)
		close(k);
	return ret;
}

static void released(const char *what, const char *chan)
{
	char n[64], w[64];
	int k;

	snprintf(n, sizeof(n), "%s-memory-released", what);
	snprintf(w, sizeof(w), "%s: wedged run's memory released", chan);
	k = klog(w);
	if (k == 1)
		HFG_PASS(n, "dmesg: \"%s\"", w);
	else
		HFG_FAIL(n, "%d kernel log lines \"%s\" (want 1)", k, w);
}

int main(int argc, char **argv)
{
	struct hellofpga_stats st0;
	struct hellofpga_info info;
	struct rw_arg rw = { 0 };
	struct xfer_arg xa = { 0 };
	int ctl, ufd, h2c0, c2h0, opt, ret;
	uint32_t left = 1;
	char why[300];
	uint8_t *pbuf;
	uint64_t h;

	hfg_group = "hang";
	while ((opt = hfg_getopt(argc, argv, "d:o:t:", &card)) != -1) {
		if (opt == 'o')
			other = optarg;
		else if (opt == 't')
			tmo_ms = atoi(optarg);
		else
			return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	ufd = hfg_open(card, "_user", O_RDWR);
	h2c0 = hfg_open(card, "_h2c_0", O_WRONLY);
	c2h0 = hfg_open(card, "_c2h_0", O_RDONLY);
	if (ctl < 0 || ufd < 0 || h2c0 < 0 || c2h0 < 0) {
		HFG_FAIL("open", "%s nodes: %s", card, strerror(errno));
		return 1;
	}
	if (!hfg_fw_present(ufd)) {
		HFG_SKIP("all", "no fault window on %s_user", card);
		return 0;
	}
	if (hfg_info(ctl, &info) || info.num_h2c < 3 || info.num_c2h < 3) {
		HFG_SKIP("all", "%s: needs 3 H2C and 3 C2H channels", card);
		return 0;
	}
	rw.buf = malloc(LEN);
	pbuf = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!rw.buf || pbuf == MAP_FAILED)
		return 1;
	hfg_fill(rw.buf, LEN, 1);
	hfg_fill(pbuf, LEN, 2);
	hfg_stats(ctl, &st0);
	ret = hfg_pin_host(ctl, pbuf, LEN, &h);
	if (ret) {
		HFG_FAIL("pin", "%s: %s", strerror(-ret), hfg_drv_err(ctl));
		return 1;
	}
	xa.handle = h;
	if (round_trip(card, 0, 0, 1 << 20, 3, why, sizeof(why))) {
		HFG_FAIL("before", "a round trip before the hang: %s", why);
		return 1;
	}

	snprintf(mark, sizeof(mark), "hf_wedge mark %d end", getpid());
	hfg_kmark(mark);
	if (hfg_hang(ufd, HANG_US)) {
		HFG_FAIL("hang", "cannot start the hang: %s", strerror(errno));
		return 1;
	}
	rw.pos = 1 << 20;
	wedge("rw-write", "H2C0", h2c0, op_write, &rw, tmo_ms / 2.0);
	wedge("rw-read", "C2H0", c2h0, op_read, &rw, tmo_ms / 2.0);
	/* the failed read() returned: its buffer is the program's again */
	hfg_fill(rw.buf, LEN, 99);
	xa.ms = XFER_MS;
	xa.bytes = 0;
	ret = op_xfer(ctl, &xa);
	if (ret == -ETIMEDOUT && xa.bytes == LEN)
		HFG_PASS("xfer-etimedout", "H2C1, bytes = the whole range");
	else
		HFG_FAIL("xfer-etimedout", "H2C1 during the hang: %s, bytes %llu (want ETIMEDOUT and the whole range, %d): %s",
			 ret ? strerror(-ret) : "success",
			 (unsigned long long)xa.bytes, LEN, hfg_drv_err(ctl));
	/* the second look, and its timeout well above what it takes */
	xa.ms = 5000;
	{
		double t0 = hfg_now();

		ret = op_xfer(ctl, &xa);
		if (ret == -EIO && ms_since(t0) < 2500 && wedged_text(ctl, "H2C1"))
			HFG_PASS("xfer-refused-at-once", "EIO after %.0f ms: %s",
				 ms_since(t0), hfg_drv_err(ctl));
		else
			HFG_FAIL("xfer-refused-at-once", "the next XFER on the wedged H2C1: %s after %.0f ms (want EIO well under its 5000 ms timeout, a text naming the channel): %s",
				 ret ? strerror(-ret) : "success",
				 ms_since(t0), hfg_drv_err(ctl));
	}
	if (klog("H2C1 wedged") == 1)
		HFG_PASS("xfer-wedged-logged", "dmesg: \"H2C1 wedged: ...\"");
	else
		HFG_FAIL("xfer-wedged-logged", "%d kernel log lines \"H2C1 wedged\" (want 1)",
			 klog("H2C1 wedged"));
	ret = hfg_unpin(ctl, h);
	if (!ret)
		HFG_PASS("xfer-unpin-while-wedged", "UNPIN succeeds; the memory goes back later");
	else
		HFG_FAIL("xfer-unpin-while-wedged", "UNPIN: %s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
	if (other) {
		if (!round_trip(other, 0, 0, 4 << 20, 4, why, sizeof(why)))
			HFG_PASS("other-card-works-during-hang", "%s: a round trip", other);
		else
			HFG_FAIL("other-card-works-during-hang", "%s: %s", other, why);
	}

	/* the hang ends; the wedged channels still hold their memory */
	hfg_fault(ufd, 0);
	hfg_rd32(ufd, HFG_FW + 0xf4, &left);
	if (left)
		HFG_FAIL("hang-ended", "%u us of the hang left after ending it", left);
	if (!round_trip(card, 2, 2, 3 << 20, 5, why, sizeof(why)) &&
	    klog("wedged run's memory released") == 0)
		HFG_PASS("other-channel-works-while-wedged", "H2C2 -> C2H2 while H2C0, C2H0, H2C1 still hold their memory");
	else
		HFG_FAIL("other-channel-works-while-wedged", "%s (%d memory-released lines)",
			 why, klog("wedged run's memory released"));

	/* each wedged channel: the next request finds the engine idle */
	if (!round_trip(card, 0, 0, 1 << 20, 6, why, sizeof(why)))
		HFG_PASS("rw-recovers", "write() on H2C0, read() on C2H0, data checked");
	else
		HFG_FAIL("rw-recovers", "%s", why);
	released("rw-write", "H2C0");
	released("rw-read", "C2H0");
	if (hfg_check(rw.buf, LEN, 99) < 0)
		HFG_PASS("rw-read-buffer-untouched", "the wedged read()'s buffer kept what the program wrote after it returned");
	else
		HFG_FAIL("rw-read-buffer-untouched", "the buffer of the read() that wedged C2H0 changed at byte %ld after it had returned (when the kept memory was released)",
			 hfg_check(rw.buf, LEN, 99));
	hfg_fill(pbuf, LEN, 7);
	ret = hfg_pin_host(ctl, pbuf, LEN, &xa.handle);
	if (!ret)
		ret = op_xfer(ctl, &xa);
	if (!ret)
		ret = hfg_xfer(ctl, xa.handle, HELLOFPGA_XFER_C2H, 1, 0,
			       2 << 20, LEN, 0, NULL);
	if (!ret && hfg_check(pbuf, LEN, 7) < 0)
		HFG_PASS("xfer-recovers", "XFER H2C1 -> C2H1 on a new pin, data checked");
	else
		HFG_FAIL("xfer-recovers", "%s: %s", ret ? strerror(-ret) :
			 "data differs", hfg_drv_err(ctl));
	if (!ret)
		hfg_unpin(ctl, xa.handle);
	released("xfer", "H2C1");
	if (klog("H2C0 wedged") == 1 && klog("C2H0 wedged") == 1 &&
	    klog("H2C1 wedged") == 1)
		HFG_PASS("wedged-logged-once", "once per channel, refused transfers included");
	else
		HFG_FAIL("wedged-logged-once", "\"wedged\" lines: H2C0 %d, C2H0 %d, H2C1 %d",
			 klog("H2C0 wedged"), klog("C2H0 wedged"),
			 klog("H2C1 wedged"));
	hfg_pins_back("no-pin-left", ctl, &st0);
	return hfg_exit();
}
