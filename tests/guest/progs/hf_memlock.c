// SPDX-License-Identifier: MIT
/*
 * hf_memlock - pinned memory is the pinning user's locked memory, and an
 * open file holds a bounded number of pins.
 *
 *   hf_memlock [-d /dev/hellofpgaN] [-n MAX_PINS] [-s]
 *
 * As root (max_pins, default 4096): MAX_PINS pins of 4 KiB succeed, one more
 * fails with ENOSPC and a text naming max_pins, an UNPIN makes room again,
 * close gives everything back.  Then, with the control node open, the
 * program sets RLIMIT_MEMLOCK to 128 KiB and becomes nobody (no capability,
 * so no CAP_IPC_LOCK): a PIN of 1 MiB fails with ENOMEM and a text naming
 * RLIMIT_MEMLOCK, one of 128 KiB succeeds and shows in VmLck, an XFER that
 * needs a page of descriptor storage more fails with ENOMEM (descriptor
 * storage counts too), UNPIN gives the locked memory back.
 *
 * -s, on an AXI-Stream card (cases/stream.sh), instead: the stream rings'
 * locked memory, as nobody under the same 128 KiB.  Two MEM_HOST rings of
 * 64 KiB, each stopped but still mapped, hold the whole limit: a third
 * START fails with ENOMEM naming RLIMIT_MEMLOCK, and munmap() of one gives
 * its share back (the next START works).  40 START/STOP cycles of a
 * MEM_PIN ring in a pin of 64 KiB, which the limit could not charge 16
 * pages of descriptor storage more for, all work and leave VmLck where the
 * pin put it; a START over the limit says STREAM_START in its text.
 *
 * Prints PASS/FAIL lines "memlock/NAME"; exit status 1 when one failed.
 */
#include <grp.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "hf_guest.h"

#define LIMIT		(128 * 1024)

static void max_pins_case(const char *card, unsigned int max)
{
	struct hellofpga_stats st0, st1;
	uint64_t *h = calloc(max + 1, sizeof(*h));
	uint8_t *buf = mmap(NULL, (size_t)(max + 1) * 4096,
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	int ctl = hfg_open(card, "_control", O_RDWR), r = 0;
	unsigned int i;

	if (ctl < 0 || !h || buf == MAP_FAILED) {
		HFG_FAIL("max-pins", "setup: %s", strerror(errno));
		return;
	}
	hfg_stats(ctl, &st0);
	for (i = 0; i < max; i++) {
		r = hfg_pin_host(ctl, buf + (size_t)i * 4096, 4096, &h[i]);
		if (r)
			break;
	}
	if (i < max) {
		HFG_FAIL("max-pins", "pin %u of %u: %s (%s)", i + 1, max,
			 strerror(-r), hfg_drv_err(ctl));
		close(ctl);
		return;
	}
	r = hfg_pin_host(ctl, buf + (size_t)max * 4096, 4096, &h[max]);
	if (r == -ENOSPC && strstr(hfg_drv_err(ctl), "max_pins"))
		HFG_PASS("max-pins", "%u pins, then ENOSPC: %s", max,
			 hfg_drv_err(ctl));
	else
		HFG_FAIL("max-pins", "pin %u of a file: %s (%s), expected ENOSPC naming max_pins",
			 max + 1, r ? strerror(-r) : "succeeded",
			 hfg_drv_err(ctl));
	if (!r)
		hfg_unpin(ctl, h[max]);
	hfg_unpin(ctl, h[0]);
	r = hfg_pin_host(ctl, buf, 4096, &h[0]);
	if (!r)
		HFG_PASS("max-pins-unpin-makes-room", NULL);
	else
		HFG_FAIL("max-pins-unpin-makes-room", "%s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
	close(ctl);
	ctl = hfg_open(card, "_control", O_RDWR);
	hfg_stats(ctl, &st1);
	if (st1.pins == st0.pins && st1.pinned_bytes == st0.pinned_bytes)
		HFG_PASS("max-pins-close-releases", NULL);
	else
		HFG_FAIL("max-pins-close-releases", "pins %llu -> %llu after close",
			 (unsigned long long)st0.pins,
			 (unsigned long long)st1.pins);
	close(ctl);
	munmap(buf, (size_t)(max + 1) * 4096);
	free(h);
}

static void memlock_case(const char *card)
{
	struct rlimit rl = { LIMIT, LIMIT };
	uint64_t h, h2, bytes;
	long before, during, after;
	int ctl = hfg_open(card, "_control", O_RDWR), r;
	uint8_t *buf = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (ctl < 0 || buf == MAP_FAILED) {
		HFG_FAIL("rlimit", "setup: %s", strerror(errno));
		return;
	}
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(0, NULL) ||
	    setgid(65534) || setuid(65534)) {
		HFG_FAIL("rlimit", "setrlimit/setuid: %s", strerror(errno));
		return;
	}
	before = hfg_vmlck_kib();
	r = hfg_pin_host(ctl, buf, 1 << 20, &h);
	if (r == -ENOMEM && strstr(hfg_drv_err(ctl), "RLIMIT_MEMLOCK"))
		HFG_PASS("rlimit-over", "%s", hfg_drv_err(ctl));
	else
		HFG_FAIL("rlimit-over", "PIN of 1 MiB with RLIMIT_MEMLOCK 128 KiB: %s (%s)",
			 r ? strerror(-r) : "succeeded", hfg_drv_err(ctl));
	if (!r)
		hfg_unpin(ctl, h);
	r = hfg_pin_host(ctl, buf, LIMIT, &h);
	during = hfg_vmlck_kib();
	if (!r && during - before == LIMIT / 1024)
		HFG_PASS("rlimit-within", "PIN of 128 KiB, VmLck %ld -> %ld kB",
			 before, during);
	else
		HFG_FAIL("rlimit-within", "PIN of 128 KiB: %s (%s), VmLck %ld -> %ld kB",
			 r ? strerror(-r) : "ok", hfg_drv_err(ctl), before,
			 during);
	if (r)
		return;
	/* the chain's descriptor storage is one page more than the limit */
	r = hfg_xfer(ctl, h, HELLOFPGA_XFER_H2C, 0, 0, 0, 4096, 0, &bytes);
	if (r == -ENOMEM && strstr(hfg_drv_err(ctl), "descriptor storage"))
		HFG_PASS("rlimit-counts-descriptors", "%s", hfg_drv_err(ctl));
	else
		HFG_FAIL("rlimit-counts-descriptors", "XFER at the limit: %s (%s)",
			 r ? strerror(-r) : "succeeded", hfg_drv_err(ctl));
	/* a second pin does not fit either */
	r = hfg_pin_host(ctl, buf + LIMIT, 4096, &h2);
	if (r == -ENOMEM)
		HFG_PASS("rlimit-second-pin", NULL);
	else
		HFG_FAIL("rlimit-second-pin", "%s", r ? strerror(-r) : "succeeded");
	if (!r)
		hfg_unpin(ctl, h2);
	hfg_unpin(ctl, h);
	after = hfg_vmlck_kib();
	if (after == before)
		HFG_PASS("rlimit-unpin-releases", "VmLck back to %ld kB", after);
	else
		HFG_FAIL("rlimit-unpin-releases", "VmLck %ld kB before, %ld after",
			 before, after);
	close(ctl);
}

/* STREAM_START of a ring of @n x @size bytes, MEM_HOST or in pin @handle. */
static int st_start(int fd, uint32_t n, uint64_t size, int ctl,
		    uint64_t handle, uint64_t *mlen)
{
	struct hellofpga_stream_config c;

	memset(&c, 0, sizeof(c));
	c.buffers = n;
	c.buffer_size = size;
	c.mem = handle ? HELLOFPGA_MEM_PIN : HELLOFPGA_MEM_HOST;
	c.pin_fd = handle ? ctl : -1;
	c.pin_handle = handle;
	if (ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c))
		return -errno;
	if (mlen)
		*mlen = c.mmap_size;
	return 0;
}

static int st_stop(int fd)
{
	struct hellofpga_stream_stop s;

	memset(&s, 0, sizeof(s));
	return ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, &s) ? -errno : 0;
}

/* MEM_HOST rings stopped but mapped stay counted until munmap(). */
static void stream_host_case(int c2h)
{
	uint64_t mlen = 0;
	void *m[2] = { MAP_FAILED, MAP_FAILED };
	int r, i;

	for (i = 0; i < 2; i++) {
		r = st_start(c2h, 2, 32768, -1, 0, &mlen);
		if (!r) {
			m[i] = mmap(NULL, mlen, PROT_READ, MAP_SHARED, c2h, 0);
			r = m[i] == MAP_FAILED ? -errno : st_stop(c2h);
		}
		if (r) {
			HFG_FAIL("stream-mapped-rings-count",
				 "ring %d of 64 KiB under a limit of 128 KiB: %s (%s)",
				 i + 1, strerror(-r), hfg_drv_err(c2h));
			goto out;
		}
	}
	r = st_start(c2h, 2, 32768, -1, 0, NULL);
	hfg_expect(r == -ENOMEM && strstr(hfg_drv_err(c2h), "RLIMIT_MEMLOCK"),
		   "stream-mapped-rings-count",
		   "a third ring with two stopped but mapped: %s (%s)",
		   r ? strerror(-r) : "started", hfg_drv_err(c2h));
	if (!r)
		st_stop(c2h);
	munmap(m[0], mlen);
	m[0] = MAP_FAILED;
	r = st_start(c2h, 2, 32768, -1, 0, NULL);
	hfg_expect(!r, "stream-munmap-gives-back",
		   "START after munmap() of a stopped ring: %s (%s)",
		   r ? strerror(-r) : "started", r ? hfg_drv_err(c2h) : "");
	if (!r)
		st_stop(c2h);
out:
	for (i = 0; i < 2; i++)
		if (m[i] != MAP_FAILED)
			munmap(m[i], mlen);
}

/* A MEM_PIN ring's descriptor storage: charged while it runs, not after. */
static void stream_pin_case(int ctl, int c2h, uint8_t *buf)
{
	long before, after;
	uint64_t h;
	int r, i;

	r = hfg_pin_host(ctl, buf, LIMIT / 2, &h);
	if (r) {
		HFG_FAIL("stream-pin-ring-cycles", "PIN of 64 KiB: %s (%s)",
			 strerror(-r), hfg_drv_err(ctl));
		return;
	}
	before = hfg_vmlck_kib();
	for (i = 0; i < 40; i++) {
		r = st_start(c2h, 2, 4096, ctl, h, NULL);
		if (r)
			break;
		r = st_stop(c2h);
		if (r)
			break;
	}
	after = hfg_vmlck_kib();
	hfg_expect(i == 40 && after == before, "stream-pin-ring-cycles",
		   "%d of 40 START/STOP cycles of a ring in a 64 KiB pin under 128 KiB (%s), VmLck %ld -> %ld kB",
		   i, r ? hfg_drv_err(c2h) : "ok", before, after);
	hfg_unpin(ctl, h);

	/* the whole limit pinned: the ring's storage does not fit */
	r = hfg_pin_host(ctl, buf, LIMIT, &h);
	if (r) {
		HFG_FAIL("stream-pin-ring-over-limit", "PIN of 128 KiB: %s (%s)",
			 strerror(-r), hfg_drv_err(ctl));
		return;
	}
	r = st_start(c2h, 2, 4096, ctl, h, NULL);
	hfg_expect(r == -ENOMEM &&
		   !strncmp(hfg_drv_err(c2h), "STREAM_START: ", 14) &&
		   strstr(hfg_drv_err(c2h), "RLIMIT_MEMLOCK"),
		   "stream-pin-ring-over-limit", "%s (%s)",
		   r ? strerror(-r) : "started", hfg_drv_err(c2h));
	if (!r)
		st_stop(c2h);
	hfg_unpin(ctl, h);
}

/* -s: the stream rings' locked memory, as nobody. */
static void stream_case(const char *card)
{
	struct rlimit rl = { LIMIT, LIMIT };
	struct hellofpga_info info;
	int ctl = hfg_open(card, "_control", O_RDWR);
	int c2h = hfg_open(card, "_c2h_0", O_RDWR);
	uint8_t *buf = mmap(NULL, LIMIT, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (ctl < 0 || c2h < 0 || buf == MAP_FAILED || hfg_info(ctl, &info)) {
		HFG_FAIL("stream", "setup: %s", strerror(errno));
		return;
	}
	if (!(info.features & HELLOFPGA_FEAT_STREAM)) {
		HFG_SKIP("stream", "%s is no AXI-Stream card", card);
		return;
	}
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(0, NULL) ||
	    setgid(65534) || setuid(65534)) {
		HFG_FAIL("stream", "setrlimit/setuid: %s", strerror(errno));
		return;
	}
	stream_host_case(c2h);
	stream_pin_case(ctl, c2h, buf);
	close(c2h);
	close(ctl);
}

int main(int argc, char **argv)
{
	const char *card = "/dev/hellofpga0";
	unsigned int max = 4096;
	bool stream = false;
	int opt;

	hfg_group = "memlock";
	while ((opt = hfg_getopt(argc, argv, "d:n:s", &card)) != -1) {
		if (opt == 'n')
			max = atoi(optarg);
		else if (opt == 's')
			stream = true;
		else
			return 2;
	}
	if (stream) {
		stream_case(card);
		return hfg_exit();
	}
	max_pins_case(card, max);
	memlock_case(card);
	return hfg_exit();
}
