// SPDX-License-Identifier: MIT
/*
 * hf_stream - C2H AXI-Stream rings of the real driver, raw ioctls
 * (include/uapi/hellofpga.h, "C2H AXI-Stream rings"), on a card with
 * xdma-sim,st=on: the reference design's stream source (user BAR
 * HF_USER_ST_SRC) sends frames that every check verifies
 * (refdesign/hf_stream_pattern.h).  A source disabled while it holds a
 * frame still sends it (docs/refdesign.md, "Disabling a source"): each
 * check starts on a quiet channel (src_quiet()), and its frames from
 * sequence 0 on.
 *
 *   hf_stream [-d /dev/hellofpgaN] [-c CHANNEL] [-g] [-u]
 *
 * -g: also the rings in a GPU pin of nvp2p-standin.ko (desktop flavor,
 * loaded by the case with its provider): frames read through the stand-in's
 * mapping, UNPIN refused while the ring runs, the free callback mid-stream.
 * -u: last, the card's removal (sysfs unbind) under a waiting ring, then
 * bind again.
 * Also H2C packets (ABI 1.4): write() of the h2c node and H2C XFERs of a
 * host pin, each packet checked by the design's sink (HF_USER_ST_SINK),
 * and their refusals; the stop paths: a ring wedged by the card's hang
 * fault (its memory kept until the engine is idle again), a card that
 * reads all ones (its memory kept too), a PCIe error recovery (AER,
 * injected by the host through the "HF-QMP" console channel where the
 * configuration has one) under a running ring with poll() and epoll
 * waiters on its node, and a function reset behind the driver's back
 * (sysfs reset) under a running ring.
 * Around a WAIT that holds the channel, ordered for certain by SCHED_FIFO
 * on one CPU: a STOP killed while it waits for the channel leaves the
 * stream to the other users of its file (their WAITs wait, not ENOENT);
 * a RELEASE while a WAIT that began before the ring holds it returns at
 * once, not after the WAIT's timeout.
 * -W US: only the wedge, the hang left on for US microseconds and the
 * channel wedged at exit (cases/stream.sh unloads the module then).
 *
 * Prints PASS/FAIL/SKIP lines prefixed "stream/"; exit status 1 on failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/hellofpga.h"
#include "hf_user_regs.h"
#include "hf_stream_pattern.h"
#include "../kmod/nvp2p-standin/nvp2p_standin_uapi.h"
#include "hf_guest.h"

static const char *card = "/dev/hellofpga0";
static unsigned int ch;
static int ctl = -1, ufd = -1;
static char c2h[64];

/* The step about to run, on the console (a hang shows where it is). */
static void step(const char *name)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		dprintf(fd, "<3>hf_stream: step %s\n", name);
		close(fd);
	}
}

/* --- the source --------------------------------------------------------- */

static void src_wr(uint32_t reg, uint32_t v)
{
	hfg_wr32(ufd, HF_USER_ST_SRC(ch) + reg, v);
}

static uint32_t src_rd(uint32_t reg)
{
	uint32_t v = 0;

	hfg_rd32(ufd, HF_USER_ST_SRC(ch) + reg, &v);
	return v;
}

/*
 * Program and enable the source: @count frames (0: for ever) of @size
 * bytes (records of @rmin..@rmax when @rmax), @ival_ns apart, drop mode.
 */
static void src_start(uint32_t size, uint32_t rmin, uint32_t rmax,
		      uint32_t ival_ns, uint32_t count, bool drop)
{
	src_wr(HF_ST_SRC_CTRL, 0);
	src_wr(HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR);
	src_wr(HF_ST_SRC_FRAME_SIZE, size);
	src_wr(HF_ST_SRC_REC_MIN, rmin);
	src_wr(HF_ST_SRC_REC_MAX, rmax);
	src_wr(HF_ST_SRC_INTERVAL_NS, ival_ns);
	src_wr(HF_ST_SRC_COUNT, count);
	src_wr(HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE |
	       (rmax ? HF_ST_SRC_CTRL_RECORDS : 0) |
	       (drop ? HF_ST_SRC_CTRL_DROP : 0));
}

static void src_stop(void)
{
	src_wr(HF_ST_SRC_CTRL, 0);
}

/* --- the ioctls ------------------------------------------------------- */

static int st_start(int fd, uint32_t n, uint64_t size, uint32_t mem,
		    int pin_fd, uint64_t handle, uint64_t off, uint64_t *mlen)
{
	struct hellofpga_stream_config c;

	memset(&c, 0, sizeof(c));
	c.buffers = n;
	c.buffer_size = size;
	c.mem = mem;
	c.pin_fd = pin_fd;
	c.pin_handle = handle;
	c.pin_offset = off;
	if (ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c))
		return -errno;
	if (mlen)
		*mlen = c.mmap_size;
	return 0;
}

static int st_host(int fd, uint32_t n, uint64_t size)
{
	return st_start(fd, n, size, HELLOFPGA_MEM_HOST, -1, 0, 0, NULL);
}

static int st_wait(int fd, uint64_t timeout_ms, struct hellofpga_stream_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->timeout_ns = timeout_ms * 1000000ull;
	return ioctl(fd, HELLOFPGA_IOC_STREAM_WAIT, f) ? -errno : 0;
}

static int st_release(int fd, uint32_t i)
{
	struct hellofpga_stream_release r = { .index = i };

	return ioctl(fd, HELLOFPGA_IOC_STREAM_RELEASE, &r) ? -errno : 0;
}

static int st_stop(int fd)
{
	struct hellofpga_stream_stop s;

	memset(&s, 0, sizeof(s));
	return ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, &s) ? -errno : 0;
}

static int st_stats(int fd, struct hellofpga_stream_stats *s)
{
	memset(s, 0, sizeof(*s));
	return ioctl(fd, HELLOFPGA_IOC_STREAM_STATS, s) ? -errno : 0;
}

static int open_c2h(void)
{
	return open(c2h, O_RDWR | O_CLOEXEC);
}

/*
 * take(): frames from a running ring into a check, buffer by buffer.
 * @base: the ring's bytes (a mapping), buffer i at f.offset - @off0
 * The first frame must be sequence 0 (a source just CLEARed), unless
 * seq_known is cleared: a gap counts what it skipped.
 */
struct taker {
	int fd;
	const uint8_t *base;
	uint64_t off0;
	struct hf_stream_check chk;
	uint64_t frames, bad, next_seq, gaps, dropped, buffers;
	bool seq_known;
	char why[200];
};

static void taker_init(struct taker *t, int fd, const void *base, uint64_t off0)
{
	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->base = base;
	t->off0 = off0;
	t->seq_known = true;	/* next_seq 0 */
	hf_stream_check_init(&t->chk);
}

/* One buffer: fed to the check, released.  0, or the WAIT's error. */
static int take_one(struct taker *t, uint64_t timeout_ms)
{
	struct hellofpga_stream_frame f;
	uint64_t seq;
	int ret;

	ret = st_wait(t->fd, timeout_ms, &f);
	if (ret)
		return ret;
	t->buffers++;
	hf_stream_check_feed(&t->chk, t->base + (f.offset - t->off0),
			     (uint32_t)f.length);
	t->dropped += f.dropped;
	if (f.frame_flags & HELLOFPGA_STREAM_EOP) {
		t->frames++;
		if (!hf_stream_check_end(&t->chk, &seq)) {
			if (!t->bad++)
				snprintf(t->why, sizeof(t->why),
					 "frame %llu (buffer %u, %llu bytes) corrupt",
					 (unsigned long long)t->frames - 1,
					 f.index, (unsigned long long)f.length);
		} else {
			if (t->seq_known && seq != t->next_seq)
				t->gaps += seq - t->next_seq;
			t->seq_known = true;
			t->next_seq = seq + 1;
		}
	}
	ret = st_release(t->fd, f.index);
	return ret;
}

/* Take @frames frames, each wait at most @ms. */
static int take_frames(struct taker *t, uint64_t frames, uint64_t ms)
{
	int ret = 0;

	while (t->frames < frames && !(ret = take_one(t, ms)))
		;
	return ret;
}

/*
 * Disable the source and take what the card still sends on the channel:
 * the frame the source holds (it offered it, TVALID, which AXI-Stream does
 * not let it take back) and what the IP's C2H buffer took of it and of
 * earlier frames go out on the next ring, whatever the source does
 * meanwhile (docs/refdesign.md, "Disabling a source").  A ring of its own
 * takes them, each verified, until a WAIT finds nothing for 200 ms: the
 * check @name that follows starts on a quiet channel.  (The rest of a
 * frame an earlier STOP cut, the driver skips.)
 */
static void src_quiet(const char *name)
{
	char what[64];
	struct taker t;
	uint64_t mlen = 0;
	int fd = open_c2h(), ret;
	void *m;

	src_stop();
	snprintf(what, sizeof(what), "%s/quiet", name);
	ret = st_start(fd, 4, 65536, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL(what, "a ring to take what the source still sends: %d: %s",
			 ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	taker_init(&t, fd, m, 0);
	t.seq_known = false;
	while (!(ret = take_one(&t, 200)) && t.buffers < 10000)
		;
	if (ret != -ETIMEDOUT || t.bad)
		HFG_FAIL(what, "after the disable: %llu frames in %llu buffers, %llu corrupt, WAIT %d %s",
			 (unsigned long long)t.frames,
			 (unsigned long long)t.buffers, (unsigned long long)t.bad,
			 ret, t.why);
	st_stop(fd);
	munmap(m, mlen);
	close(fd);
}

/* --- checks --------------------------------------------------------- */

static void check_refusals(void)
{
	static const struct {
		const char *name;
		uint32_t n, mem;
		uint64_t size;
		int pin_fd;
		uint64_t handle, off;
		int err;
	} rows[] = {
		{ "one-buffer", 1, HELLOFPGA_MEM_HOST, 4096, -1, 0, 0, EINVAL },
		{ "513-buffers", 513, HELLOFPGA_MEM_HOST, 4096, -1, 0, 0, EINVAL },
		{ "size-0", 4, HELLOFPGA_MEM_HOST, 0, -1, 0, 0, EINVAL },
		{ "size-unaligned", 4, HELLOFPGA_MEM_HOST, 6000, -1, 0, 0, EINVAL },
		{ "size-too-big", 2, HELLOFPGA_MEM_HOST, 1ull << 28, -1, 0, 0, EINVAL },
		{ "host-too-big", 2, HELLOFPGA_MEM_HOST, 64ull << 20, -1, 0, 0, EINVAL },
		{ "mem-0", 4, 0, 4096, -1, 0, 0, EINVAL },
		{ "mem-3", 4, 3, 4096, -1, 0, 0, EINVAL },
		{ "host-with-pin-fd", 4, HELLOFPGA_MEM_HOST, 4096, 0, 0, 0, EINVAL },
		{ "pin-no-handle", 4, HELLOFPGA_MEM_PIN, 4096, -2, 0, 0, EINVAL },
		{ "pin-unknown", 4, HELLOFPGA_MEM_PIN, 4096, -2, 12345, 0, ENOENT },
		{ "pin-fd-not-control", 4, HELLOFPGA_MEM_PIN, 4096, -3, 1, 0, EBADF },
		{ "pin-offset-unaligned", 4, HELLOFPGA_MEM_PIN, 4096, -2, 1, 100, EINVAL },
	};
	struct hellofpga_stream_config c;
	struct hellofpga_stream_frame f;
	int fd = open_c2h(), ret;
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char name[64];
		int pfd = rows[i].pin_fd == -2 ? ctl :
			  rows[i].pin_fd == -3 ? fd : rows[i].pin_fd;

		ret = st_start(fd, rows[i].n, rows[i].size, rows[i].mem, pfd,
			       rows[i].handle, rows[i].off, NULL);
		snprintf(name, sizeof(name), "refuse/%s", rows[i].name);
		hfg_expect(ret == -rows[i].err, name, "%d (%s)", ret,
			   ret ? hfg_drv_err(fd) : "started");
		if (!ret)
			st_stop(fd);
	}
	memset(&c, 0, sizeof(c));
	c.buffers = 4;
	c.buffer_size = 4096;
	c.mem = HELLOFPGA_MEM_HOST;
	c.pin_fd = -1;
	c.reserved[0] = 1;
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c) ? -errno : 0;
	hfg_expect(ret == -EINVAL, "refuse/reserved", "%d", ret);
	c.reserved[0] = 0;
	c.flags = 1;
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c) ? -errno : 0;
	hfg_expect(ret == -EINVAL, "refuse/flags", "%d", ret);
	ret = ioctl(ctl, HELLOFPGA_IOC_STREAM_START, &c) ? -errno : 0;
	hfg_expect(ret == -ENOTTY, "refuse/control-node", "%d", ret);
	ret = st_wait(fd, 0, &f);
	hfg_expect(ret == -ENOENT, "refuse/wait-without-stream", "%d", ret);
	ret = st_release(fd, 0);
	hfg_expect(ret == -ENOENT, "refuse/release-without-stream", "%d", ret);
	ret = st_stop(fd);
	hfg_expect(ret == -ENOENT, "refuse/stop-without-stream", "%d", ret);
	close(fd);
}

/* A sustained host ring, every frame verified, the ring wrapping. */
static void check_host_sustained(void)
{
	struct hellofpga_stream_stats s;
	struct taker t;
	uint64_t mlen = 0;
	int fd = open_c2h(), ret;
	void *m;

	src_quiet("host");
	ret = st_start(fd, 8, 8192, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	if (ret) {
		HFG_FAIL("host/start", "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	m = mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("host/mmap", "%s", strerror(errno));
		close(fd);
		return;
	}
	HFG_PASS("host/start", "8 x 8 KiB, mmap %llu bytes",
		 (unsigned long long)mlen);
	src_start(4096, 0, 0, 0, 3000, false);
	taker_init(&t, fd, m, 0);
	ret = take_frames(&t, 3000, 5000);
	hfg_expect(!ret && t.frames == 3000 && !t.bad && !t.gaps,
		   "host/sustained-verified",
		   "ret %d, %llu frames, %llu corrupt, %llu missing %s", ret,
		   (unsigned long long)t.frames, (unsigned long long)t.bad,
		   (unsigned long long)t.gaps, t.why);
	st_stats(fd, &s);
	hfg_expect(s.buffers == 3000 && s.frames == 3000 && s.running &&
		   s.bytes == 3000ull * 4096, "host/stats",
		   "buffers %llu frames %llu bytes %llu running %u held %u",
		   (unsigned long long)s.buffers, (unsigned long long)s.frames,
		   (unsigned long long)s.bytes, s.running, s.held);
	src_stop();

	/* read-only */
	ret = mprotect(m, 4096, PROT_READ | PROT_WRITE) ? -errno : 0;
	hfg_expect(ret == -EACCES, "host/mprotect-write-refused", "%d", ret);
	ret = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	      MAP_FAILED ? -errno : 0;
	hfg_expect(ret == -EACCES, "host/mmap-write-refused", "%d", ret);

	/* munmap after stop: the pages stay until the mapping goes */
	ret = st_stop(fd);
	hfg_expect(!ret, "host/stop", "%d", ret);
	hfg_expect(!hf_stream_verify(m, 4096, NULL) || 1,
		   "host/read-after-stop", "the mapping reads after STOP");
	close(fd);
	hfg_expect(((volatile uint8_t *)m)[mlen - 1] == ((uint8_t *)m)[mlen - 1],
		   "host/read-after-close", "the mapping reads after close");
	munmap(m, mlen);
}

/* Frames that span buffers, and records of varying length. */
static void check_spans_and_records(void)
{
	struct taker t;
	uint64_t mlen = 0;
	int fd = open_c2h(), ret;
	void *m;

	src_quiet("span");
	ret = st_start(fd, 6, 8192, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("span/start", "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	src_start(20000, 0, 0, 0, 300, false);
	taker_init(&t, fd, m, 0);
	ret = take_frames(&t, 300, 5000);
	hfg_expect(!ret && t.frames == 300 && !t.bad && !t.gaps &&
		   t.buffers == 900, "span/frames-over-3-buffers",
		   "ret %d, %llu frames in %llu buffers, %llu corrupt %s", ret,
		   (unsigned long long)t.frames, (unsigned long long)t.buffers,
		   (unsigned long long)t.bad, t.why);
	src_stop();
	st_stop(fd);
	munmap(m, mlen);

	ret = st_start(fd, 16, 16384, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("records/start", "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	src_start(0, 16, 40000, 0, 1000, false);
	taker_init(&t, fd, m, 0);
	ret = take_frames(&t, 1000, 5000);
	hfg_expect(!ret && t.frames == 1000 && !t.bad && !t.gaps,
		   "records/variable-length-verified",
		   "ret %d, %llu records in %llu buffers, %llu corrupt %s", ret,
		   (unsigned long long)t.frames, (unsigned long long)t.buffers,
		   (unsigned long long)t.bad, t.why);
	src_stop();
	st_stop(fd);
	munmap(m, mlen);
	close(fd);
}

/*
 * A source that came due with no ring on its channel holds its frame
 * (SEQ 1, STATUS HOLDING): the card offers it (TVALID) and cannot take it
 * back, so disabled it still holds it, and the next ring gets that frame
 * first (its old sequence number and length), then, after a CLEAR, the new
 * run's frames from sequence 0; then nothing.  As on the RTL.
 */
static void check_disabled_source(void)
{
	static const struct {
		uint64_t seq;
		uint32_t len;
	} want[] = { { 0, 4096 }, { 0, 2000 }, { 1, 2000 }, { 2, 2000 } };
	struct hellofpga_stream_frame f;
	uint64_t mlen = 0, seq;
	uint32_t st, st_off, seqr, i;
	int fd = open_c2h(), ret = 0;
	char got[200] = "";
	bool ok = true;
	uint8_t *m;

	src_quiet("disable");
	src_start(4096, 0, 0, 0, 0, false);
	usleep(20000);
	seqr = src_rd(HF_ST_SRC_SEQ_LO);
	st = src_rd(HF_ST_SRC_STATUS);
	src_stop();
	st_off = src_rd(HF_ST_SRC_STATUS);
	hfg_expect(seqr == 1 && st == (HF_ST_SRC_STS_ACTIVE | HF_ST_SRC_STS_HOLDING) &&
		   st_off == HF_ST_SRC_STS_HOLDING, "disable/due-frame-held",
		   "SEQ %u, STATUS 0x%x, disabled 0x%x", seqr, st, st_off);
	src_start(2000, 0, 0, 0, 3, false);
	ret = st_start(fd, 8, 8192, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("disable/held-frame-goes-out-first", "%d: %s", ret,
			 hfg_drv_err(fd));
		close(fd);
		return;
	}
	for (i = 0; i < 4 && ok; i++) {
		seq = ~0ull;
		ret = st_wait(fd, 5000, &f);
		ok = !ret && (f.frame_flags & HELLOFPGA_STREAM_EOP) &&
		     !hf_stream_verify(m + f.offset, (uint32_t)f.length, &seq) &&
		     seq == want[i].seq && f.length == want[i].len;
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 " %lld/%llu", ret ? -1ll : (long long)seq,
			 ret ? 0ull : (unsigned long long)f.length);
		if (!ret)
			st_release(fd, f.index);
	}
	if (ok)
		ok = st_wait(fd, 200, &f) == -ETIMEDOUT;
	hfg_expect(ok, "disable/held-frame-goes-out-first",
		   "WAIT %d; sequence/length of the frames:%s (want 0/4096 0/2000 1/2000 2/2000, then nothing)",
		   ret, got);
	src_stop();
	st_stop(fd);
	munmap(m, mlen);
	close(fd);
}

/* WAIT's timeout, poll(), a second stream on the channel. */
static void check_wait_poll_busy(void)
{
	struct hellofpga_stream_frame f;
	struct pollfd p;
	double t0;
	int fd = open_c2h(), fd2 = open_c2h(), ret;

	src_quiet("wait");
	ret = st_host(fd, 4, 4096);
	if (ret) {
		HFG_FAIL("wait/start", "%d: %s", ret, hfg_drv_err(fd));
		goto out;
	}
	t0 = hfg_now();
	ret = st_wait(fd, 200, &f);
	t0 = hfg_now() - t0;
	hfg_expect(ret == -ETIMEDOUT && t0 >= 0.19 && t0 < 5,
		   "wait/timeout", "%d after %.3f s", ret, t0);
	ret = st_wait(fd, 0, &f);
	hfg_expect(ret == -ETIMEDOUT, "wait/look-only", "%d", ret);
	p.fd = fd;
	p.events = POLLIN;
	ret = poll(&p, 1, 200);
	hfg_expect(ret == 0, "poll/nothing-yet", "poll %d revents 0x%x", ret,
		   p.revents);
	src_start(4096, 0, 0, 0, 1, false);
	ret = poll(&p, 1, 5000);
	hfg_expect(ret == 1 && (p.revents & POLLIN), "poll/frame-waits",
		   "poll %d revents 0x%x", ret, p.revents);
	ret = st_wait(fd, 0, &f);
	hfg_expect(!ret && (f.frame_flags & HELLOFPGA_STREAM_EOP) &&
		   f.length == 4096, "poll/wait-takes-it", "%d len %llu", ret,
		   (unsigned long long)f.length);
	ret = st_release(fd, f.index);
	hfg_expect(!ret, "release/held", "%d", ret);
	ret = st_release(fd, f.index);
	hfg_expect(ret == -EINVAL, "release/twice", "%d", ret);
	ret = st_release(fd, 4);
	hfg_expect(ret == -EINVAL, "release/out-of-range", "%d", ret);
	ret = st_host(fd2, 4, 4096);
	hfg_expect(ret == -EBUSY, "busy/second-stream", "%d: %s", ret,
		   hfg_drv_err(fd2));
	ret = st_host(fd, 4, 4096);
	hfg_expect(ret == -EBUSY, "busy/same-file", "%d", ret);
	ret = st_wait(fd2, 0, &f);
	hfg_expect(ret == -ENOENT, "busy/other-file-wait", "%d", ret);
	st_stop(fd);
	ret = st_host(fd2, 4, 4096);
	hfg_expect(!ret, "busy/free-after-stop", "%d", ret);
	st_stop(fd2);
out:
	close(fd);
	close(fd2);
}

/* --- the channel held by a WAIT: STOP and RELEASE around it ------------ */

/*
 * Where a thread of this process is: its state letter (/proc stat), and
 * whether it is in an ioctl.  On one CPU, threads of SCHED_FIFO run before
 * any of SCHED_OTHER, so these checks order the ioctls below for certain:
 * a WAIT of SCHED_OTHER that holds the channel cannot let go of it while
 * a thread of SCHED_FIFO runs.
 */
static char task_state(pid_t tid)
{
	char path[64], b[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(b, 1, sizeof(b) - 1, f);
	fclose(f);
	b[n] = 0;
	p = strrchr(b, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static bool task_in_ioctl(pid_t tid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_ioctl;
}

/* Sleeping in an ioctl: 'S' or 'D' (TASK_KILLABLE), at most @ms. */
static bool task_asleep_in_ioctl(pid_t tid, int ms)
{
	char c;

	for (; ms > 0; ms--) {
		c = task_state(tid);
		if ((c == 'S' || c == 'D') && task_in_ioctl(tid))
			return true;
		usleep(1000);
	}
	return false;
}

/* All threads made from here on on the CPU this one runs on. */
static void one_cpu(cpu_set_t *old)
{
	cpu_set_t one;

	sched_getaffinity(0, sizeof(*old), old);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
}

static int set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return pthread_setschedparam(pthread_self(),
				     prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static pthread_t fifo_thread(int prio, void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, prio ? SCHED_FIFO : SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	if (pthread_create(&t, &a, fn, arg))
		t = 0;
	pthread_attr_destroy(&a);
	return t;
}

struct held_wait {
	int fd;
	uint64_t ms;
	volatile pid_t tid;
	volatile bool done;
	int ret;
};

/* A WAIT of @ms on the ring (no frame comes: it holds the channel). */
static void *held_wait_fn(void *arg)
{
	struct held_wait *w = arg;
	struct hellofpga_stream_frame f;

	w->tid = (pid_t)syscall(SYS_gettid);
	w->ret = st_wait(w->fd, w->ms, &f);
	w->done = true;
	return NULL;
}

static void *stop_fn(void *arg)
{
	struct held_wait *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	w->ret = st_stop(w->fd);
	w->done = true;
	return NULL;
}

/*
 * The child of check_stop_interrupted(): a WAIT (SCHED_OTHER) holds the
 * channel, a STOP (SCHED_FIFO) waits for it and the process is killed
 * then.  Exits only on a setup failure.
 */
static int stop_killed_child(int fd)
{
	struct held_wait w = { .fd = fd, .ms = 10000 };
	struct held_wait s = { .fd = fd };
	cpu_set_t old;
	pthread_t t;
	double t0;

	one_cpu(&old);
	if (pthread_create(&t, NULL, held_wait_fn, &w))
		return 3;
	while (!w.tid)
		usleep(1000);
	if (!task_asleep_in_ioctl(w.tid, 3000))
		return 4;
	/* from here on the WAIT does not run until the kill */
	if (set_fifo(10) || !fifo_thread(10, stop_fn, &s))
		return 5;
	t0 = hfg_now();
	while (hfg_now() - t0 < 3) {
		sched_yield();
		if (s.tid && task_state(s.tid) == 'D' && task_in_ioctl(s.tid))
			kill(getpid(), SIGKILL);
	}
	return s.done ? 6 : 7;
}

/*
 * A STOP interrupted while it waited for the channel (SIGKILL: the wait
 * is killable) leaves the stream running for the other users of its file
 * (here the parent, after fork()): their WAITs wait for buffers, not
 * ENOENT as if a STOP were still under way, and STOP works.
 */
static void check_stop_interrupted(void)
{
	struct hellofpga_stream_stats s;
	struct hellofpga_stream_frame f;
	int fd = open_c2h(), ret, status;
	pid_t pid;

	src_quiet("stop-killed");
	ret = st_host(fd, 4, 4096);
	if (ret) {
		HFG_FAIL("stop-killed/start", "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(stop_killed_child(fd));
	waitpid(pid, &status, 0);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		HFG_FAIL("stop-killed/setup",
			 "the child was to be killed in STOP, waiting for the WAIT that held the channel: status 0x%x",
			 status);
	} else {
		ret = st_wait(fd, 200, &f);
		hfg_expect(ret == -ETIMEDOUT, "stop-killed/wait-waits-after",
			   "WAIT after a STOP killed while it waited: %d (%s)",
			   ret, ret ? hfg_drv_err(fd) : "a frame");
		ret = st_stats(fd, &s);
		hfg_expect(!ret && s.running, "stop-killed/stream-runs",
			   "STATS %d, running %u", ret, s.running);
	}
	ret = st_stop(fd);
	hfg_expect(!ret, "stop-killed/stop", "%d: %s", ret,
		   ret ? hfg_drv_err(fd) : "");
	close(fd);
}

/*
 * RELEASE while a WAIT that began before the stream did (it waited for the
 * channel behind a STOP and a START) holds the channel, asleep: RELEASE
 * hands its buffer over through the WAIT and returns, long before the
 * WAIT's timeout of 6 s.  The order, on one CPU: this thread (SCHED_FIFO
 * 20) stops the first ring while a WAIT of SCHED_OTHER holds the channel;
 * the late WAIT (SCHED_FIFO 10) starts then and waits for the channel;
 * this thread takes it first, starts the second ring and takes a frame
 * out of it; it sleeps, the late WAIT takes the channel and sleeps on
 * the second ring; then the RELEASE.
 */
static void check_release_late_wait(void)
{
	struct held_wait w0 = { .ms = 8000 }, late = { .ms = 6000 };
	struct hellofpga_stream_release wake = { .flags = HELLOFPGA_STREAM_WAKE };
	struct hellofpga_stream_frame f;
	pthread_t t0 = 0, t1 = 0;
	int fd = open_c2h(), ret;
	cpu_set_t old;
	double t, dt = -1;
	bool setup = false;

	src_quiet("release-late-wait");
	one_cpu(&old);
	w0.fd = late.fd = fd;
	ret = st_host(fd, 4, 4096);
	if (ret || pthread_create(&t0, NULL, held_wait_fn, &w0)) {
		HFG_FAIL("release-late-wait/setup", "start %d: %s", ret,
			 hfg_drv_err(fd));
		goto out;
	}
	while (!w0.tid)
		usleep(1000);
	if (!task_asleep_in_ioctl(w0.tid, 3000)) {
		HFG_FAIL("release-late-wait/setup",
			 "the first WAIT is not asleep in its ioctl: %c",
			 task_state(w0.tid));
		goto out;
	}
	ret = set_fifo(20);
	if (ret) {
		HFG_FAIL("release-late-wait/setup", "SCHED_FIFO: %s",
			 strerror(ret));
		goto out;
	}
	t1 = fifo_thread(10, held_wait_fn, &late);
	ret = t1 ? st_stop(fd) : -EAGAIN;
	if (!ret)
		ret = st_host(fd, 4, 4096);
	if (!ret) {
		src_start(4096, 0, 0, 0, 1, false);
		ret = st_wait(fd, 3000, &f);
	}
	if (!ret) {
		/* it runs now (poll mode: between its sleeps, 'R') */
		usleep(100000);
		setup = !late.done && task_asleep_in_ioctl(late.tid, 1000) &&
			!late.done;
	}
	if (setup) {
		t = hfg_now();
		ret = st_release(fd, f.index);
		dt = hfg_now() - t;
	}
	if (!setup)
		HFG_FAIL("release-late-wait/prompt",
			 "setup: %d (%s), the late WAIT %s %d (it was to hold the channel, asleep on the second ring)",
			 ret, ret ? hfg_drv_err(fd) : "",
			 late.done ? "returned" : "is not in its ioctl",
			 late.ret);
	else
		hfg_expect(!ret && dt < 3, "release-late-wait/prompt",
			   "RELEASE %d after %.3f s (the WAIT's timeout: 6 s)",
			   ret, dt);
out:
	ioctl(fd, HELLOFPGA_IOC_STREAM_RELEASE, &wake);
	set_fifo(0);
	sched_setaffinity(0, sizeof(old), &old);
	if (t1)
		pthread_join(t1, NULL);
	if (t0)
		pthread_join(t0, NULL);
	src_stop();
	st_stop(fd);
	close(fd);
}

/*
 * A consumer that falls behind: drop mode drops what finds no buffer and
 * says so (DROPPED, f.dropped, a gap in the sequence of the same size;
 * docs/xdma-model.md: a dropped frame's sequence number is skipped);
 * backpressure mode stalls the source and loses nothing.
 */
static void check_behind(bool drop)
{
	const char *tag = drop ? "drop" : "backpressure";
	struct hellofpga_stream_frame f[8];
	struct hellofpga_stream_stats s;
	struct taker t;
	char name[64];
	uint64_t mlen = 0;
	uint32_t reg;
	int fd = open_c2h(), ret, i, held = 0;
	void *m;

	src_quiet(tag);
	ret = st_start(fd, 8, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		snprintf(name, sizeof(name), "%s/start", tag);
		HFG_FAIL(name, "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	/*
	 * 200 us apart (backpressure: 400 frames; drop: for ever, so that
	 * frames after the hold show the gap); hold all 8 buffers 300 ms
	 */
	src_start(2048, 0, 0, 200000, drop ? 0 : 400, drop);
	for (i = 0; i < 8; i++)
		if (!st_wait(fd, 2000, &f[i]))
			held++;
	usleep(300000);
	st_stats(fd, &s);
	snprintf(name, sizeof(name), "%s/ring-full-counted", tag);
	hfg_expect(held == 8 && s.ring_full >= 1 && s.held == 8, name,
		   "held %d, ring_full %llu, stats.held %u", held,
		   (unsigned long long)s.ring_full, s.held);
	taker_init(&t, fd, m, 0);
	/* the held frames: verified as well */
	for (i = 0; i < held; i++) {
		uint64_t seq = 0;

		if (hf_stream_verify((uint8_t *)m + f[i].offset,
				     (uint32_t)f[i].length, &seq))
			t.bad++;
		t.dropped += f[i].dropped;
		t.frames++;
		t.seq_known = true;
		t.next_seq = seq + 1;
		st_release(fd, f[i].index);
	}
	while (!(ret = take_one(&t, 5000)))
		if (t.frames == (drop ? 200u : 400u))
			break;
	src_stop();
	reg = src_rd(HF_ST_SRC_DROPPED);
	snprintf(name, sizeof(name), "%s/verified", tag);
	hfg_expect(!t.bad, name, "%llu frames, %llu corrupt %s",
		   (unsigned long long)t.frames, (unsigned long long)t.bad,
		   t.why);
	if (drop) {
		/*
		 * every gap a frame showed was reported by a WAIT before it
		 * (a WAIT reads DROPPED when it takes a frame: drops after
		 * the frame's delivery count with it, their gap shows later)
		 */
		hfg_expect(!ret && t.gaps > 0 && t.dropped >= t.gaps &&
			   reg >= t.dropped, "drop/reported-never-silent",
			   "DROPPED %u, frames %llu, sequence gaps %llu, WAIT's dropped %llu",
			   reg, (unsigned long long)t.frames,
			   (unsigned long long)t.gaps,
			   (unsigned long long)t.dropped);
	} else {
		hfg_expect(!ret && t.frames == 400 && !t.gaps && !reg,
			   "backpressure/nothing-lost",
			   "ret %d, frames %llu, gaps %llu, DROPPED %u", ret,
			   (unsigned long long)t.frames,
			   (unsigned long long)t.gaps, reg);
	}
	src_stop();
	st_stop(fd);
	munmap(m, mlen);
	close(fd);
}

/* STOP in mid-stream and START again: the first frame is whole. */
static void check_restart(void)
{
	struct taker t;
	uint64_t mlen = 0;
	int fd = open_c2h(), ret, round, ok = 0;
	void *m;

	src_quiet("restart");
	src_start(12288, 0, 0, 0, 0, false);
	for (round = 0; round < 3; round++) {
		ret = st_start(fd, 4, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
		m = ret ? MAP_FAILED :
			  mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			break;
		taker_init(&t, fd, m, 0);
		t.seq_known = !round;	/* later: where the cut frame ends */
		/* stop with buffers of a frame taken: a frame is cut */
		ret = take_frames(&t, 5, 5000);
		if (!ret && !t.bad && !t.gaps)
			ok++;
		take_one(&t, 1000);
		st_stop(fd);
		munmap(m, mlen);
	}
	src_stop();
	hfg_expect(ok == 3, "restart/whole-frames-after-restart",
		   "%d of 3 rounds verified (ret %d %s)", ok, ret, t.why);
	close(fd);
}

/* close and SIGKILL with a ring running; a fork'd child's close. */
static void check_close_kill(void)
{
	struct hellofpga_stream_frame f;
	struct taker t;
	uint64_t mlen = 0;
	int fd, ret, st;
	pid_t pid;
	void *m;

	src_quiet("close");
	src_start(4096, 0, 0, 0, 0, false);
	/* a child starts, waits for ever, is killed */
	pid = fork();
	if (!pid) {
		int cfd = open_c2h();

		if (st_host(cfd, 8, 4096))
			_exit(2);
		for (;;)
			st_wait(cfd, 3600000, &f);	/* never releases */
	}
	usleep(500000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fd = open_c2h();
	ret = st_host(fd, 4, 4096);
	hfg_expect(!ret, "kill/channel-free-after-sigkill", "%d: %s", ret,
		   ret ? hfg_drv_err(fd) : "");
	st_stop(fd);

	/* a child starts and exits without STOP */
	pid = fork();
	if (!pid) {
		int cfd = open_c2h();

		_exit(st_host(cfd, 8, 4096) ? 2 : 0);
	}
	waitpid(pid, &st, 0);
	ret = st_host(fd, 4, 4096);
	hfg_expect(WIFEXITED(st) && !WEXITSTATUS(st) && !ret,
		   "close/channel-free-after-exit", "child %d, start %d", st,
		   ret);
	st_stop(fd);

	/* fork while running: the child's close leaves the parent's ring */
	ret = st_start(fd, 8, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("fork/start", "%d", ret);
		close(fd);
		src_stop();
		return;
	}
	pid = fork();
	if (!pid) {
		close(fd);
		munmap(m, mlen);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	taker_init(&t, fd, m, 0);
	t.seq_known = false;	/* the source ran for the rings before */
	ret = take_frames(&t, 100, 5000);
	hfg_expect(!ret && !t.bad && t.frames == 100,
		   "fork/child-close-keeps-ring", "ret %d, %llu frames %s", ret,
		   (unsigned long long)t.frames, t.why);
	/* close with the ring running and mapped; the mapping stays */
	close(fd);
	hfg_expect(!hf_stream_verify(m, 4096, NULL) || 1,
		   "close/mapping-outlives-close", "read after close");
	munmap(m, mlen);
	src_stop();
	fd = open_c2h();
	ret = st_host(fd, 4, 4096);
	hfg_expect(!ret, "close/channel-free-after-close", "%d", ret);
	st_stop(fd);
	close(fd);
}

/*
 * An engine that stops on an error (the card's desc_read fault: the
 * descriptor fetch fails): WAIT -EIO with the decoded status in
 * LAST_ERROR, poll() EPOLLERR; STOP works and the next ring runs.
 */
static void check_engine_error(void)
{
	struct hellofpga_stream_frame f;
	struct pollfd p;
	struct taker t;
	uint64_t mlen = 0;
	int fd = open_c2h(), ret, pr;
	void *m;

	if (!hfg_fw_present(ufd)) {
		HFG_SKIP("error/all", "no fault window (fault-regs=on)");
		close(fd);
		return;
	}
	src_quiet("error");
	src_start(4096, 0, 0, 0, 0, false);
	hfg_fault(ufd, HFG_FAULT_DESC_READ);
	ret = st_host(fd, 4, 4096);
	if (ret) {
		HFG_FAIL("error/start", "%d: %s", ret, hfg_drv_err(fd));
		hfg_fault(ufd, 0);
		close(fd);
		return;
	}
	ret = st_wait(fd, 3000, &f);
	hfg_expect(ret == -EIO && strstr(hfg_drv_err(fd), "stream engine stopped"),
		   "error/wait-eio-decoded", "%d: %s", ret, hfg_drv_err(fd));
	ret = st_wait(fd, 0, &f);
	hfg_expect(ret == -EIO, "error/wait-again-eio", "%d", ret);
	p.fd = fd;
	p.events = POLLIN;
	pr = poll(&p, 1, 1000);
	hfg_expect(pr == 1 && (p.revents & POLLERR), "error/poll-err",
		   "poll %d revents 0x%x", pr, p.revents);
	ret = st_stop(fd);
	hfg_expect(!ret, "error/stop", "%d: %s", ret, ret ? hfg_drv_err(fd) : "");
	hfg_fault(ufd, 0);
	ret = st_start(fd, 4, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("error/restart", "%d: %s", ret, hfg_drv_err(fd));
	} else {
		taker_init(&t, fd, m, 0);
		ret = take_frames(&t, 50, 5000);
		hfg_expect(!ret && !t.bad && t.frames == 50,
			   "error/restart-verified", "ret %d, %llu frames %s",
			   ret, (unsigned long long)t.frames, t.why);
		st_stop(fd);
		munmap(m, mlen);
	}
	src_stop();
	close(fd);
}

/* A ring in a host pin of the control node (4 KiB buffers). */
static void check_host_pin(void)
{
	const size_t len = 16 * 4096;
	uint64_t handle = 0;
	struct taker t;
	struct hellofpga_unpin u;
	int fd = open_c2h(), ret;
	void *buf;

	src_quiet("hostpin");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(buf, 0, len);
	ret = hfg_pin_host(ctl, buf, len, &handle);
	if (ret) {
		HFG_FAIL("hostpin/pin", "%d: %s", ret, hfg_drv_err(ctl));
		close(fd);
		return;
	}
	ret = st_start(fd, 8, 4096, HELLOFPGA_MEM_PIN, ctl, handle, 8192, NULL);
	hfg_expect(!ret, "hostpin/start", "%d: %s", ret,
		   ret ? hfg_drv_err(fd) : "8 x 4 KiB at offset 8 KiB");
	ret = st_start(fd, 8, 4096, HELLOFPGA_MEM_PIN, ctl, handle, 0, NULL);
	hfg_expect(ret == -EBUSY, "hostpin/second-start-busy", "%d", ret);
	src_start(4096, 0, 0, 0, 500, false);
	taker_init(&t, fd, buf, 0);
	ret = take_frames(&t, 500, 5000);
	hfg_expect(!ret && t.frames == 500 && !t.bad && !t.gaps,
		   "hostpin/verified", "ret %d, %llu frames, %llu corrupt %s",
		   ret, (unsigned long long)t.frames,
		   (unsigned long long)t.bad, t.why);
	memset(&u, 0, sizeof(u));
	u.handle = handle;
	ret = ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u) ? -errno : 0;
	hfg_expect(ret == -EBUSY, "hostpin/unpin-while-running-busy", "%d: %s",
		   ret, hfg_drv_err(ctl));
	src_stop();
	ret = st_stop(fd);
	hfg_expect(!ret, "hostpin/stop", "%d", ret);
	ret = ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u) ? -errno : 0;
	hfg_expect(!ret, "hostpin/unpin-after-stop", "%d", ret);
	ret = st_start(fd, 4, 4096, HELLOFPGA_MEM_PIN, ctl, handle, 0, NULL);
	hfg_expect(ret == -ENOENT, "hostpin/start-on-unpinned", "%d", ret);
	close(fd);
	munmap(buf, len);
}

/* A ring in an nvidia_p2p pin: frames, UNPIN refused, the free callback. */
static void check_gpu_pin(void)
{
	const size_t len = 1u << 20;
	struct nvp2p_standin_revoke rv;
	struct hellofpga_stream_frame f;
	struct hellofpga_pin p;
	struct hellofpga_unpin u;
	struct taker t;
	int sa, fd, ret;
	void *g;

	sa = open(NVP2P_STANDIN_DEV, O_RDWR | O_CLOEXEC);
	if (sa < 0) {
		HFG_SKIP("gpu/all", "no %s: the case loads nvp2p-standin.ko",
			 NVP2P_STANDIN_DEV);
		return;
	}
	src_quiet("gpu");
	/* 64 KiB aligned, as CUDA's allocations are */
	g = mmap(NULL, len + (64u << 10), PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g != MAP_FAILED)
		g = mmap((void *)(((uintptr_t)g + 0xffff) & ~(uintptr_t)0xffff),
			 len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 sa, 0);
	if (g == MAP_FAILED) {
		HFG_FAIL("gpu/alloc", "%s", strerror(errno));
		close(sa);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.type = HELLOFPGA_PIN_CUDA;
	p.addr = (uintptr_t)g;
	p.size = len;
	p.fd = -1;
	ret = ioctl(ctl, HELLOFPGA_IOC_PIN, &p) ? -errno : 0;
	if (ret) {
		HFG_FAIL("gpu/pin", "%d: %s", ret, hfg_drv_err(ctl));
		goto out_unmap;
	}
	fd = open_c2h();
	/* 64 KiB pieces: a 128 KiB buffer cannot be one of them */
	ret = st_start(fd, 4, 128 << 10, HELLOFPGA_MEM_PIN, ctl, p.handle, 0,
		       NULL);
	/* (the pin's pieces may be merged when adjacent: then it starts) */
	hfg_expect(ret == -EINVAL || !ret, "gpu/buffer-over-two-pieces",
		   "%d: %s", ret, ret ? hfg_drv_err(fd) : "pieces merged");
	if (!ret)
		st_stop(fd);
	ret = st_start(fd, 8, 8192, HELLOFPGA_MEM_PIN, ctl, p.handle,
		       len - 8 * 8192 + 4096, NULL);
	hfg_expect(ret == -ERANGE, "gpu/past-the-end", "%d", ret);
	ret = st_start(fd, 8, 64 << 10, HELLOFPGA_MEM_PIN, ctl, p.handle,
		       256 << 10, NULL);
	if (ret) {
		HFG_FAIL("gpu/start", "%d: %s", ret, hfg_drv_err(fd));
		goto out_close;
	}
	src_start(100000, 0, 0, 0, 0, false);
	taker_init(&t, fd, (uint8_t *)g + (256 << 10), 256 << 10);
	ret = take_frames(&t, 200, 5000);
	hfg_expect(!ret && t.frames == 200 && !t.bad && !t.gaps,
		   "gpu/sustained-verified", "ret %d, %llu frames, %llu corrupt %s",
		   ret, (unsigned long long)t.frames,
		   (unsigned long long)t.bad, t.why);
	memset(&u, 0, sizeof(u));
	u.handle = p.handle;
	ret = ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u) ? -errno : 0;
	hfg_expect(ret == -EBUSY, "gpu/unpin-while-running-busy", "%d: %s",
		   ret, hfg_drv_err(ctl));
	/* the free callback with the ring running: the engine stops first */
	memset(&rv, 0, sizeof(rv));
	rv.addr = (uintptr_t)g;
	rv.size = len;
	ret = ioctl(sa, NVP2P_STANDIN_IOC_REVOKE, &rv) ? -errno : 0;
	if (!ret && !rv.fired) {
		HFG_SKIP("gpu/revoke-midstream", "persistent pins: no free callback");
	} else {
		int w;

		do
			w = st_wait(fd, 2000, &f);
		while (!w && !st_release(fd, f.index));
		w = st_wait(fd, 2000, &f);
		hfg_expect(ret == 0 && w == -EIO &&
			   strstr(hfg_drv_err(fd), "pin"),
			   "gpu/revoke-midstream", "revoke %d (%u fired), WAIT %d: %s",
			   ret, rv.fired, w, hfg_drv_err(fd));
	}
	src_stop();
	ret = st_stop(fd);
	hfg_expect(!ret, "gpu/stop", "%d: %s", ret, ret ? hfg_drv_err(fd) : "");
	ret = ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u) ? -errno : 0;
	hfg_expect(!ret, "gpu/unpin-after-stop", "%d", ret);
out_close:
	close(fd);
out_unmap:
	munmap(g, len);
	close(sa);
}

/* --- H2C packets (ABI 1.4): the reference design's checking sink ---- */

static uint32_t sink_rd(uint32_t reg)
{
	uint32_t v = 0;

	hfg_rd32(ufd, HF_USER_ST_SINK(ch) + reg, &v);
	return v;
}

static uint64_t sink_bytes(void)
{
	uint32_t lo = sink_rd(HF_ST_SINK_BYTES_LO);

	return (uint64_t)sink_rd(HF_ST_SINK_BYTES_HI) << 32 | lo;
}

/* H2C engine @ch's runs so far (GET_STATS), ~0 when unreadable. */
static uint64_t h2c_runs(void)
{
	struct hellofpga_stats st;

	return hfg_stats(ctl, &st) ? ~0ull : st.runs[ch];
}

/*
 * What the sink saw since it was cleared: @frames good ones, none bad,
 * the last @last_seq, @bytes in all, no frame half received.
 */
static void sink_expect(const char *name, uint32_t frames, uint64_t last_seq,
			uint64_t bytes)
{
	uint32_t ok = sink_rd(HF_ST_SINK_FRAMES_OK);
	uint32_t bad = sink_rd(HF_ST_SINK_FRAMES_BAD);
	uint32_t seq = sink_rd(HF_ST_SINK_LAST_SEQ_LO);
	uint32_t part = sink_rd(HF_ST_SINK_PARTIAL);
	uint64_t b = sink_bytes();

	hfg_expect(ok == frames && !bad && seq == (uint32_t)last_seq &&
		   !part && b == bytes, name,
		   "sink: %u good (%u expected), %u bad, last sequence %u (%llu), %u bytes of a frame open, %llu bytes (%llu)",
		   ok, frames, bad, seq, (unsigned long long)last_seq, part,
		   (unsigned long long)b, (unsigned long long)bytes);
}

/*
 * write() of the h2c node from host memory: each is one packet, whatever
 * its size and alignment (longer than a read()/write() chunk too: the
 * driver must not cut it), checked by the sink; the position stays 0;
 * a position other than 0 is EINVAL, a packet over
 * HELLOFPGA_STREAM_H2C_MAX EMSGSIZE, and neither reaches the sink.
 */
static void check_h2c_host(void)
{
	static const struct {
		size_t off, len;
	} rows[] = {
		{ 0, 16 }, { 0, 4096 }, { 5, 100003 }, { 0, 1 << 20 },
		{ 100, (5u << 20) + 12 },	/* over one 4 MiB chunk */
		{ 0, HELLOFPGA_STREAM_H2C_MAX },
	};
	const size_t cap = HELLOFPGA_STREAM_H2C_MAX + 8192;
	uint64_t runs0, total = 0, seq = 100;
	char node[64], name[64];
	unsigned int i, good = 0;
	uint8_t *buf;
	ssize_t r;
	int fd;

	snprintf(node, sizeof(node), "%s_h2c_%u", card, ch);
	fd = open(node, O_WRONLY | O_CLOEXEC);
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || buf == MAP_FAILED) {
		HFG_FAIL("h2c/open", "%s: %s", node, strerror(errno));
		goto out;
	}
	hfg_wr32(ufd, HF_USER_ST_SINK(ch) + HF_ST_SINK_CTRL,
		 HF_ST_SINK_CTRL_CLEAR);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++, seq++) {
		size_t len = rows[i].len;

		hf_stream_fill(buf + rows[i].off, seq, (uint32_t)len, 0,
			       (uint32_t)len);
		runs0 = h2c_runs();
		r = write(fd, buf + rows[i].off, len);
		snprintf(name, sizeof(name), "h2c/host-%zu-at-%zu", len,
			 rows[i].off);
		hfg_expect(r == (ssize_t)len && h2c_runs() == runs0 + 1 &&
			   lseek(fd, 0, SEEK_CUR) == 0, name,
			   "write %zd of %zu (%s), engine runs %llu, position %lld",
			   r, len, r < 0 ? hfg_drv_err(fd) : "",
			   (unsigned long long)(h2c_runs() - runs0),
			   (long long)lseek(fd, 0, SEEK_CUR));
		if (r == (ssize_t)len) {
			good++;
			total += len;
		}
	}
	sink_expect("h2c/host-sink-verified", good, seq - 1, total);
	r = pwrite(fd, buf, 4096, 4096);
	hfg_expect(r < 0 && errno == EINVAL &&
		   strstr(hfg_drv_err(fd), "no card address"),
		   "h2c/refuse-position", "pwrite at 4096: %zd: %s", r,
		   hfg_drv_err(fd));
	lseek(fd, 8192, SEEK_SET);
	r = write(fd, buf, 4096);
	hfg_expect(r < 0 && errno == EINVAL, "h2c/refuse-lseek-position",
		   "write at 8192: %zd (%s)", r, strerror(errno));
	lseek(fd, 0, SEEK_SET);
	r = write(fd, buf, HELLOFPGA_STREAM_H2C_MAX + 4096);
	hfg_expect(r < 0 && errno == EMSGSIZE &&
		   strstr(hfg_drv_err(fd), "not cut"), "h2c/refuse-too-long",
		   "%zd: %s", r, hfg_drv_err(fd));
	r = write(fd, buf, 0);
	hfg_expect(r == 0, "h2c/zero-length", "%zd", r);
	r = write(fd, (void *)16, 4096);
	hfg_expect(r < 0 && errno == EFAULT, "h2c/bad-buffer-efault", "%zd (%s)",
		   r, strerror(errno));
	/* none of them reached the sink */
	sink_expect("h2c/refusals-send-nothing", good, seq - 1, total);
out:
	if (buf != MAP_FAILED)
		munmap(buf, cap);
	if (fd >= 0)
		close(fd);
}

/*
 * H2C XFERs from a host pin: each range one packet, checked by the
 * sink; a card address is EINVAL, a range over HELLOFPGA_STREAM_H2C_MAX
 * EMSGSIZE, C2H EOPNOTSUPP.
 */
static void check_h2c_pin(void)
{
	const size_t len = HELLOFPGA_STREAM_H2C_MAX + 8192;
	uint64_t handle = 0, bytes = 0, total = 0;
	unsigned int good = 0;
	uint8_t *buf;
	int ret;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		HFG_FAIL("h2c/pin-alloc", "%s", strerror(errno));
		return;
	}
	hf_stream_fill(buf, 200, 256 << 10, 0, 256 << 10);
	hf_stream_fill(buf + (256 << 10) + 12, 201, 60000, 0, 60000);
	hf_stream_fill(buf + (1 << 20), 202, 9 << 20, 0, 9 << 20);
	ret = hfg_pin_host(ctl, buf, len, &handle);
	if (ret) {
		HFG_FAIL("h2c/pin", "%d: %s", ret, hfg_drv_err(ctl));
		munmap(buf, len);
		return;
	}
	hfg_wr32(ufd, HF_USER_ST_SINK(ch) + HF_ST_SINK_CTRL,
		 HF_ST_SINK_CTRL_CLEAR);
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, ch, 0, 0, 256 << 10, 0,
		       &bytes);
	hfg_expect(!ret && bytes == 256 << 10, "h2c/pin-256k", "%d, %llu bytes: %s",
		   ret, (unsigned long long)bytes, ret ? hfg_drv_err(ctl) : "");
	good += !ret;
	total += ret ? 0 : 256 << 10;
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, ch, (256 << 10) + 12, 0,
		       60000, 0, &bytes);
	hfg_expect(!ret && bytes == 60000, "h2c/pin-unaligned-60000",
		   "%d, %llu bytes: %s", ret, (unsigned long long)bytes,
		   ret ? hfg_drv_err(ctl) : "");
	good += !ret;
	total += ret ? 0 : 60000;
	/* longer than what one read()/write() chunk pins */
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, ch, 1 << 20, 0, 9 << 20,
		       0, &bytes);
	hfg_expect(!ret && bytes == 9 << 20, "h2c/pin-9m", "%d: %s", ret,
		   ret ? hfg_drv_err(ctl) : "");
	good += !ret;
	total += ret ? 0 : 9 << 20;
	sink_expect("h2c/pin-sink-verified", good, 202, total);
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, ch, 0, 4096, 4096, 0,
		       NULL);
	hfg_expect(ret == -EINVAL && strstr(hfg_drv_err(ctl), "no card address"),
		   "h2c/pin-refuse-card-address", "%d: %s", ret,
		   hfg_drv_err(ctl));
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, ch, 0, 0,
		       HELLOFPGA_STREAM_H2C_MAX + 4096, 0, NULL);
	hfg_expect(ret == -EMSGSIZE && strstr(hfg_drv_err(ctl), "not cut"),
		   "h2c/pin-refuse-too-long", "%d: %s", ret, hfg_drv_err(ctl));
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_C2H, ch, 0, 0, 4096, 0, NULL);
	hfg_expect(ret == -EOPNOTSUPP, "h2c/pin-refuse-c2h", "%d: %s", ret,
		   hfg_drv_err(ctl));
	sink_expect("h2c/pin-refusals-send-nothing", good, 202, total);
	ret = hfg_unpin(ctl, handle);
	hfg_expect(!ret, "h2c/pin-unpin", "%d", ret);
	munmap(buf, len);
}

/* --- stop paths: a wedged ring, a PCIe error recovery ---------------- */

static char kmark_tag[64];

/* A fresh mark in the kernel log; klog() counts lines after it. */
static void kmark(const char *what)
{
	static unsigned int n;

	snprintf(kmark_tag, sizeof(kmark_tag), "hf_stream mark %d.%u %s",
		 (int)getpid(), ++n, what);
	hfg_kmark(kmark_tag);
}

static int klog(const char *needle)
{
	return hfg_klog_count(kmark_tag, needle);
}

/*
 * A MEM_HOST ring of @n x 4 KiB on @fd, mapped, with @frames verified
 * frames of a source left running; the mapping, or MAP_FAILED (FAIL
 * @name/start reported).
 */
static void *ring_running(int fd, const char *name, uint32_t n,
			  uint64_t frames, uint64_t *mlen)
{
	char what[64];
	struct taker t;
	void *m;
	int ret;

	src_quiet(name);
	ret = st_start(fd, n, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, mlen);
	m = ret ? MAP_FAILED : mmap(NULL, *mlen, PROT_READ, MAP_SHARED, fd, 0);
	snprintf(what, sizeof(what), "%s/start", name);
	if (m == MAP_FAILED) {
		HFG_FAIL(what, "%d: %s", ret, hfg_drv_err(fd));
		return MAP_FAILED;
	}
	src_start(4096, 0, 0, 0, 0, false);
	taker_init(&t, fd, m, 0);
	ret = take_frames(&t, frames, 5000);
	hfg_expect(!ret && !t.bad && t.frames == frames, what,
		   "ret %d, %llu frames verified %s", ret,
		   (unsigned long long)t.frames, t.why);
	return m;
}

/* @frames verified frames of a new ring on @fd; stopped and unmapped. */
static void ring_works(int fd, const char *name, uint64_t frames)
{
	uint64_t mlen = 0;
	void *m;

	m = ring_running(fd, name, 4, frames, &mlen);
	src_stop();
	if (m == MAP_FAILED)
		return;
	st_stop(fd);
	munmap(m, mlen);
}

/*
 * For the recovery cases: dmesg marked @name, a ring as ring_running(),
 * then the source stopped and, with @drain, the frames left taken, so the
 * next WAIT sleeps; the mapping, or MAP_FAILED.
 */
static void *ring_source_stopped(int fd, const char *name, uint32_t n,
				 uint64_t frames, bool drain, uint64_t *mlen)
{
	struct hellofpga_stream_frame f;
	void *m;

	kmark(name);
	m = ring_running(fd, name, n, frames, mlen);
	src_stop();
	if (m != MAP_FAILED && drain)
		while (!st_wait(fd, 200, &f))
			st_release(fd, f.index);
	return m;
}

/*
 * A ring whose engine will not stop (the card's hang fault: every engine
 * stops making progress and ignores a Run clear): STOP reports the wedge
 * (EIO), dmesg says "C2Hn wedged" once and keeps the ring's memory (no
 * "released" line), the mapping stays readable, the channel refuses a new
 * ring at once (EIO, "channel wedged").  With @leave the hang goes on
 * (@leave_us of it) and the program ends: cases/stream.sh unloads the
 * module with the channel wedged.  Else the hang ends, and the next
 * STREAM_START finds the engine idle, releases the memory (dmesg once)
 * and streams verified frames.
 */
static void check_wedge(bool leave, uint32_t leave_us)
{
	char needle[32];
	uint64_t mlen = 0, sum = 0, i;
	double t0, dt;
	int fd = open_c2h(), fd2 = -1, ret;
	uint8_t *m;

	if (!hfg_fw_present(ufd)) {
		HFG_SKIP("wedge/all", "no fault window (fault-regs=on)");
		close(fd);
		return;
	}
	kmark("wedge");
	m = ring_running(fd, "wedge", 4, 20, &mlen);
	if (m == (void *)MAP_FAILED) {
		src_stop();
		close(fd);
		return;
	}
	hfg_hang(ufd, leave ? leave_us : 60000000u);
	usleep(20000);
	t0 = hfg_now();
	ret = st_stop(fd);
	dt = (hfg_now() - t0) * 1e3;
	hfg_expect(ret == -EIO && strstr(hfg_drv_err(fd), "wedged"),
		   "wedge/stop-eio", "STOP %d after %.0f ms: %s", ret, dt,
		   hfg_drv_err(fd));
	snprintf(needle, sizeof(needle), "C2H%u wedged", ch);
	hfg_expect(klog(needle) == 1 && klog("memory released") == 0,
		   "wedge/dmesg-wedged-memory-kept", "'%s' %d times, 'released' %d",
		   needle, klog(needle), klog("memory released"));
	/* the ring's pages are still there: read every byte */
	for (i = 0; i < mlen; i++)
		sum += m[i];
	HFG_PASS("wedge/mapping-readable", "%llu bytes, sum %llu",
		 (unsigned long long)mlen, (unsigned long long)sum);
	ret = st_stop(fd);
	hfg_expect(ret == -ENOENT, "wedge/stream-over", "second STOP %d", ret);
	fd2 = open_c2h();
	ret = st_host(fd2, 4, 4096);
	hfg_expect(ret == -EIO && strstr(hfg_drv_err(fd2), "channel wedged"),
		   "wedge/new-ring-refused", "%d: %s", ret, hfg_drv_err(fd2));
	if (!ret)
		st_stop(fd2);
	/* the file and the mapping go while the channel holds the memory */
	close(fd);
	munmap(m, mlen);
	src_stop();
	if (leave) {
		close(fd2);
		return;
	}
	hfg_fault(ufd, 0);
	usleep(50000);
	ring_works(fd2, "wedge/after-hang", 50);
	hfg_expect(klog("memory released") == 1 && klog(needle) == 1,
		   "wedge/memory-released-once",
		   "'released' %d times, '%s' %d times", klog("memory released"),
		   needle, klog(needle));
	close(fd2);
}

/* poll() of @fd for POLLIN in a child, for at most @ms; its revents (or
 * -errno) on @pfd. */
static pid_t poll_child(int fd, int ms, int pfd)
{
	pid_t pid = fork();

	if (!pid) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, ms);

		r = r < 0 ? -errno : p.revents;
		_exit(write(pfd, &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	return pid;
}

/*
 * After a recovery, the epoll set @ep that held @fd across it and poll():
 * a new ring on the same file wakes epoll_wait() and poll() when a frame
 * arrives (the engine's wait queue they sit on is the one its interrupts
 * wake: the recovery did not set it up anew under them), then
 * EPOLL_CTL_DEL and close of the set work (with the queue set up anew,
 * the kernel finds the list corrupt: a BUG).
 */
static void check_aer_pollers(int fd, int ep)
{
	struct epoll_event ev;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t mlen = 0;
	int ret, n;
	void *m;

	src_quiet("aer/pollers");
	ret = st_start(fd, 4, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("aer/pollers-start", "%d: %s", ret, hfg_drv_err(fd));
		return;
	}
	/* what STOP's wake-up left, with nothing ready since */
	n = epoll_wait(ep, &ev, 1, 0);
	hfg_expect(n == 0, "aer/epoll-nothing-yet", "%d events (0x%x)", n,
		   n > 0 ? ev.events : 0);
	src_start(4096, 0, 0, 0, 2, false);
	n = epoll_wait(ep, &ev, 1, 10000);
	hfg_expect(n == 1 && (ev.events & EPOLLIN), "aer/epoll-wakes-after",
		   "%d events (0x%x)%s", n, n > 0 ? ev.events : 0,
		   n ? "" : ": no wake-up in 10 s");
	n = poll(&p, 1, 10000);
	hfg_expect(n == 1 && (p.revents & POLLIN), "aer/poll-after",
		   "%d, revents 0x%x", n, p.revents);
	ret = epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL) ? -errno : 0;
	hfg_expect(!ret, "aer/epoll-del", "%d", ret);
	src_stop();
	st_stop(fd);
	munmap(m, mlen);
}

/*
 * A PCIe error recovery (non-fatal AER error, injected by the host on
 * request) while a ring streams and a WAIT sleeps in it: the WAIT ends
 * with EIO naming the recovery (not ENODEV, a removal's), later WAITs too,
 * STATS says stopped, the ring was stopped with the engine idle (no
 * "wedged" in dmesg), STOP works, and after the recovery a new ring
 * streams verified frames.  A poll() asleep on the node meanwhile is
 * woken (POLLERR), and an epoll set holding the node through the recovery
 * works with the next ring (check_aer_pollers()).
 */
static void check_aer(void)
{
	struct hellofpga_stream_stats ss;
	struct hellofpga_stream_frame f;
	struct epoll_event ev = { .events = EPOLLIN };
	const char *why = NULL;
	uint64_t mlen = 0;
	double t0, dt;
	int fd, ret, w, i, cfd, ep, pp[2] = { -1, -1 }, prev = 0, st;
	pid_t poller = -1;
	void *m;

	if (!hfg_aer_possible(NULL, "CFG_QMP", &why)) {
		HFG_SKIP("aer/all", "%s", why);
		return;
	}
	fd = open_c2h();
	m = ring_source_stopped(fd, "aer", 8, 30, true, &mlen);
	if (m == MAP_FAILED) {
		close(fd);
		return;
	}
	/* the node in an epoll set, and a poll() asleep on it, across */
	ep = epoll_create1(EPOLL_CLOEXEC);
	ret = ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
	hfg_expect(!ret, "aer/epoll-add", "%d", ret);
	if (!pipe(pp))
		poller = poll_child(fd, 30000, pp[1]);
	cfd = open("/dev/console", O_WRONLY | O_CLOEXEC);
	if (cfd < 0) {
		HFG_FAIL("aer/console", "%s", strerror(errno));
		goto out;
	}
	dprintf(cfd, "\nHF-QMP stream-aer {\"execute\":\"human-monitor-command\",\"arguments\":{\"command-line\":\"pcie_aer_inject_error card UNSUP\"}}\n");
	close(cfd);
	t0 = hfg_now();
	w = st_wait(fd, 30000, &f);
	dt = (hfg_now() - t0) * 1e3;
	/* EIO naming the recovery: ENODEV would say the card is gone */
	hfg_expect(w == -EIO && strstr(hfg_drv_err(fd), "PCIe error recovery") &&
		   dt < 25000, "aer/waiter-woken-eio", "WAIT %d after %.0f ms: %s",
		   w, dt, hfg_drv_err(fd));
	/* the recovery halts the ring: from then on EIO, saying why */
	for (i = 0; i < 100; i++) {
		ret = st_wait(fd, 0, &f);
		if (ret == -EIO)
			break;
		usleep(100000);
	}
	hfg_expect(ret == -EIO && strstr(hfg_drv_err(fd), "PCIe error recovery"),
		   "aer/wait-eio", "%d: %s", ret, hfg_drv_err(fd));
	ret = st_stats(fd, &ss);
	hfg_expect(!ret && !ss.running, "aer/stats-stopped", "%d, running %u",
		   ret, ss.running);
	for (i = 0; i < 300 && klog("recovered from the PCIe error") < 1; i++)
		usleep(100000);
	hfg_expect(klog("recovered from the PCIe error") == 1 &&
		   klog("PCIe error (non-fatal)") == 1, "aer/recovered",
		   "error %d, recovery %d lines",
		   klog("PCIe error (non-fatal)"),
		   klog("recovered from the PCIe error"));
	hfg_expect(klog("wedged") == 0, "aer/stopped-idle",
		   "%d 'wedged' lines", klog("wedged"));
	ret = st_stop(fd);
	hfg_expect(!ret, "aer/stop", "%d: %s", ret, ret ? hfg_drv_err(fd) : "");
	munmap(m, mlen);
	m = MAP_FAILED;
	if (poller > 0) {
		if (read(pp[0], &prev, sizeof(prev)) != sizeof(prev))
			prev = 0;
		waitpid(poller, &st, 0);
		poller = -1;
		hfg_expect(prev > 0 && (prev & POLLERR), "aer/poll-woken",
			   "revents 0x%x", prev);
	}
	ring_works(fd, "aer/after-recovery", 50);
	if (ep >= 0)
		check_aer_pollers(fd, ep);
out:
	if (m != MAP_FAILED) {
		st_stop(fd);
		munmap(m, mlen);
	}
	if (poller > 0) {
		kill(poller, SIGKILL);
		waitpid(poller, &st, 0);
	}
	if (pp[0] >= 0) {
		close(pp[0]);
		close(pp[1]);
	}
	if (ep >= 0)
		close(ep);
	close(fd);
}

/* Write @val to sysfs file @path: 0 or -errno. */
static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * A function reset behind the driver's back (sysfs "reset": the PCI core
 * calls reset_prepare / reset_done) with a ring running and a WAIT asleep
 * in it: the WAIT ends with EIO naming the reset (the ring is halted with
 * its engine idle, before the reset clears the engine's registers: no
 * "wedged"), STOP works, dmesg says the card was stopped and set up again,
 * and a new ring on the same file streams verified frames (its engine and
 * interrupt registers programmed again).
 */
static void check_reset(const struct hellofpga_info *info)
{
	struct hellofpga_stream_frame f;
	char path[128];
	uint64_t mlen = 0;
	int fd, ret, w, st;
	pid_t pid;
	void *m;

	snprintf(path, sizeof(path),
		 "/sys/bus/pci/devices/%04x:%02x:%02x.%x/reset",
		 info->pci_domain, (info->pci_bdf >> 8) & 0xff,
		 (info->pci_bdf >> 3) & 0x1f, info->pci_bdf & 7);
	if (access(path, W_OK)) {
		HFG_SKIP("reset/all", "%s: %s (no reset method)", path,
			 strerror(errno));
		return;
	}
	fd = open_c2h();
	m = ring_source_stopped(fd, "reset", 8, 30, true, &mlen);
	if (m == MAP_FAILED) {
		close(fd);
		return;
	}
	/* a child resets the card while this waits (no frame comes) */
	pid = fork();
	if (!pid) {
		usleep(300000);
		_exit(sysfs_write(path, "1") ? 1 : 0);
	}
	w = st_wait(fd, 20000, &f);
	waitpid(pid, &st, 0);
	hfg_expect(WIFEXITED(st) && !WEXITSTATUS(st) && w == -EIO &&
		   strstr(hfg_drv_err(fd), "reset"), "reset/wait-ends-eio",
		   "reset: status %d, WAIT %d: %s", st, w, hfg_drv_err(fd));
	hfg_expect(klog("reset of the card: transfers stopped") == 1 &&
		   klog("set up again after the reset") == 1 &&
		   klog("wedged") == 0, "reset/driver-told",
		   "'stopped' %d, 'set up again' %d, 'wedged' %d lines",
		   klog("reset of the card: transfers stopped"),
		   klog("set up again after the reset"), klog("wedged"));
	ret = st_stop(fd);
	hfg_expect(!ret, "reset/stop", "%d: %s", ret, ret ? hfg_drv_err(fd) : "");
	munmap(m, mlen);
	ring_works(fd, "reset/after", 50);
	close(fd);
}

/*
 * A card that reads all ones (the dead fault) proves no engine idle, and
 * its DMA may still be in flight: STOP of a running ring then keeps the
 * ring's memory (EIO; "C2Hn wedged" once, nothing released), the mapping
 * stays readable, a new ring is refused while the card reads all ones;
 * once it answers again a new ring finds the engine idle (each attempt
 * writes the stop the dead card dropped again), releases the memory
 * (once) and streams verified frames.
 */
static void check_dead(void)
{
	char needle[32];
	uint64_t mlen = 0, sum = 0, i;
	int fd = open_c2h(), fd2 = -1, ret;
	uint8_t *m;

	if (!hfg_fw_present(ufd)) {
		HFG_SKIP("dead/all", "no fault window (fault-regs=on)");
		close(fd);
		return;
	}
	m = ring_source_stopped(fd, "dead", 4, 20, false, &mlen);
	if (m == (void *)MAP_FAILED) {
		close(fd);
		return;
	}
	hfg_fault(ufd, HFG_FAULT_DEAD);
	ret = st_stop(fd);
	snprintf(needle, sizeof(needle), "C2H%u wedged", ch);
	hfg_expect(ret == -EIO, "dead/stop-eio", "STOP %d: %s", ret,
		   hfg_drv_err(fd));
	hfg_expect(klog(needle) == 1 && klog("memory released") == 0,
		   "dead/memory-kept", "'%s' %d times, 'released' %d", needle,
		   klog(needle), klog("memory released"));
	for (i = 0; i < mlen; i++)
		sum += m[i];
	HFG_PASS("dead/mapping-readable", "%llu bytes, sum %llu",
		 (unsigned long long)mlen, (unsigned long long)sum);
	fd2 = open_c2h();
	ret = st_host(fd2, 4, 4096);
	hfg_expect(ret == -ENODEV || ret == -EIO, "dead/new-ring-refused",
		   "%d: %s", ret, hfg_drv_err(fd2));
	if (!ret)
		st_stop(fd2);
	/*
	 * The card answers again; its engine missed the stop written while
	 * it read all ones: each new ring asks it again and looks, until it
	 * is idle (a real engine's stop takes its time too).
	 */
	hfg_fault(ufd, 0);
	close(fd);
	munmap(m, mlen);
	for (i = 0; i < 40 && (ret = st_host(fd2, 4, 4096)) == -EIO; i++)
		usleep(50000);
	hfg_expect(!ret, "dead/new-ring-after", "%d: %s", ret,
		   ret ? hfg_drv_err(fd2) : "");
	if (!ret)
		st_stop(fd2);
	ring_works(fd2, "dead/after", 50);
	hfg_expect(klog("memory released") == 1, "dead/memory-released-once",
		   "'released' %d times", klog("memory released"));
	close(fd2);
}

/*
 * Removal with a ring running and a WAIT asleep in it (unbind, as a hot
 * unplug does it): the WAIT ends with ENODEV, later WAITs too, STOP and
 * close still work; then the card is bound again and streams.
 */
static void check_remove(const struct hellofpga_info *info)
{
	const char *drv = "/sys/bus/pci/drivers/hellofpga";
	struct hellofpga_stream_frame f;
	struct taker t;
	char bdf[32], path[128];
	uint64_t mlen = 0;
	int fd = open_c2h(), ret, w, i, st;
	pid_t pid;
	void *m;

	snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", info->pci_domain,
		 (info->pci_bdf >> 8) & 0xff, (info->pci_bdf >> 3) & 0x1f,
		 info->pci_bdf & 7);
	src_quiet("remove");
	ret = st_start(fd, 4, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("remove/start", "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	/* a child unbinds while this waits (no frame comes) */
	pid = fork();
	if (!pid) {
		usleep(300000);
		snprintf(path, sizeof(path), "%s/unbind", drv);
		_exit(sysfs_write(path, bdf) ? 1 : 0);
	}
	w = st_wait(fd, 20000, &f);
	waitpid(pid, &st, 0);
	hfg_expect(WIFEXITED(st) && !WEXITSTATUS(st) && w == -ENODEV,
		   "remove/wait-ends-enodev", "unbind %s: status %d, WAIT %d: %s",
		   bdf, st, w, hfg_drv_err(fd));
	ret = st_wait(fd, 0, &f);
	hfg_expect(ret == -ENODEV, "remove/wait-after-enodev", "%d", ret);
	ret = st_stop(fd);
	hfg_expect(!ret, "remove/stop", "%d: %s", ret, ret ? hfg_drv_err(fd) : "");
	munmap(m, mlen);	/* host pages: removal leaves the mapping */
	close(fd);
	close(ctl);
	close(ufd);
	snprintf(path, sizeof(path), "%s/bind", drv);
	ret = sysfs_write(path, bdf);
	for (i = 0; i < 100 && (fd = open_c2h()) < 0; i++)
		usleep(100000);
	ctl = hfg_open(card, "_control", O_RDWR);
	ufd = hfg_open(card, "_user", O_RDWR);
	if (ret || fd < 0 || ctl < 0 || ufd < 0) {
		HFG_FAIL("remove/bind-again", "bind %d, nodes %d %d %d", ret, fd,
			 ctl, ufd);
		return;
	}
	ret = st_start(fd, 4, 4096, HELLOFPGA_MEM_HOST, -1, 0, 0, &mlen);
	m = ret ? MAP_FAILED : mmap(NULL, mlen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		HFG_FAIL("remove/stream-after-bind", "%d: %s", ret, hfg_drv_err(fd));
		close(fd);
		return;
	}
	src_start(4096, 0, 0, 0, 50, false);
	taker_init(&t, fd, m, 0);
	ret = take_frames(&t, 50, 5000);
	hfg_expect(!ret && !t.bad && t.frames == 50, "remove/stream-after-bind",
		   "ret %d, %llu frames %s", ret, (unsigned long long)t.frames,
		   t.why);
	src_stop();
	st_stop(fd);
	munmap(m, mlen);
	close(fd);
}

int main(int argc, char **argv)
{
	struct hellofpga_info info;
	bool gpu = false, unbind = false;
	uint32_t leave_us = 0;
	int opt;

	hfg_group = "stream";
	while ((opt = hfg_getopt(argc, argv, "d:c:guW:", &card)) != -1) {
		if (opt == 'c')
			ch = (unsigned int)atoi(optarg);
		else if (opt == 'g')
			gpu = true;
		else if (opt == 'u')
			unbind = true;
		else if (opt == 'W')
			leave_us = (uint32_t)strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	snprintf(c2h, sizeof(c2h), "%s_c2h_%u", card, ch);
	ctl = hfg_open(card, "_control", O_RDWR);
	ufd = hfg_open(card, "_user", O_RDWR);
	if (ctl < 0 || ufd < 0 || hfg_info(ctl, &info)) {
		HFG_FAIL("open", "%s: %s", card, strerror(errno));
		return hfg_exit();
	}
	if (!(info.features & HELLOFPGA_FEAT_STREAM)) {
		HFG_SKIP("all", "%s is no AXI-Stream card (xdma-sim,st=on)", card);
		return 0;
	}
	HFG_PASS("feature", "ABI 1.%u, HELLOFPGA_FEAT_STREAM", info.abi_minor);
	if (leave_us) {
		/* only a wedge, left wedged for cases/stream.sh's rmmod */
		step("wedge_leave");
		check_wedge(true, leave_us);
		return hfg_exit();
	}
	step("refusals");
	check_refusals();
	step("host_sustained");
	check_host_sustained();
	step("spans_and_records");
	check_spans_and_records();
	step("disable");
	check_disabled_source();
	step("wait_poll_busy");
	check_wait_poll_busy();
	step("stop_killed");
	check_stop_interrupted();
	step("release_late_wait");
	check_release_late_wait();
	step("backpressure");
	check_behind(false);
	step("drop");
	check_behind(true);
	step("restart");
	check_restart();
	step("close_kill");
	check_close_kill();
	step("engine_error");
	check_engine_error();
	step("host_pin");
	check_host_pin();
	/* H2C packets: a driver before ABI 1.4 fails these */
	hfg_expect(info.features & HELLOFPGA_FEAT_STREAM_H2C, "h2c/feature",
		   "ABI 1.%u, features 0x%llx", info.abi_minor,
		   (unsigned long long)info.features);
	step("h2c_host");
	check_h2c_host();
	step("h2c_pin");
	check_h2c_pin();
	step("wedge");
	check_wedge(false, 0);
	step("dead");
	check_dead();
	step("aer");
	check_aer();
	step("reset");
	check_reset(&info);
	if (gpu) {
		step("gpu_pin");
		check_gpu_pin();
	}
	if (unbind) {
		step("remove");
		check_remove(&info);
	}
	src_stop();
	return hfg_exit();
}
