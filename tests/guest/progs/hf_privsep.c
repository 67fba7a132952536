// SPDX-License-Identifier: MIT
/*
 * hf_privsep - the privilege split of hellofpga.ko's nodes as a process
 * sees it (docs/security.md); cases/privsep.sh runs it through hf_runas.
 *
 *   hf_privsep [-d CARD] [-p PREFIX] MODE [FD]
 *
 *   unpriv       a user given the nodes (group rw), no capabilities: every
 *                register access through CARD_control (pread, pwrite,
 *                read, write, mmap; the read-to-clear status 0x44, the
 *                SGDMA descriptor address 0x4080) fails with EPERM and a
 *                last-error text; GET_INFO, PIN (host memory), XFER,
 *                UNPIN, GET_STATS, LAST_ERROR, the h2c/c2h nodes, the user
 *                BAR (pread, pwrite, mmap) and the events nodes work
 *   raw [FD]     register access through CARD_control works (FD: a file
 *                of it opened by another process and inherited)
 *   refused [FD] register access through CARD_control fails with EPERM
 *   deputy FD    run setuid root, given FD opened by an unprivileged
 *                process: FD stays refused, its own open is allowed
 *   info         GET_INFO's fields of ABI 1.1 against sysfs
 *   mmap-rules   (root) MAP_PRIVATE, ranges and nodes mmap refuses
 *
 * One line per check: "PASS PREFIX/NAME[: detail]" or "FAIL PREFIX/NAME:
 * why" (PREFIX default: privsep, info for MODE info); exit status 1 when a
 * check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uapi/hellofpga.h"
#include "hf_guest.h"

#define REG_H2C0_ID		0x0000u	/* 0x1fc0xxxx */
#define REG_H2C0_STATUS_RC	0x0044u	/* read to clear */
#define REG_H2C0_SGDMA_DESC_LO	0x4080u
#define REG_CFG_WRITE_FLUSH	0x3060u	/* RW [4:0] */
#define USER_ID			0x0000u
#define USER_ID_VALUE		0x48465047u	/* "HFPG" */
#define USER_SCRATCH		0x0008u
#define USER_IRQ_SET		0x000cu
#define USER_IRQ_CLEAR		0x0010u
#define CAP_SYS_RAWIO_BIT	17
#define XFER_SIZE		(1u << 20)
#define XFER_CARD		0x5000000ull

static const char *card = "/dev/hellofpga0";
static int last_error(int fd, struct hellofpga_last_error *le)
{
	memset(le, 0, sizeof(*le));
	return ioctl(fd, HELLOFPGA_IOC_LAST_ERROR, le);
}

static bool failed_with(long r, int err)
{
	return r < 0 && errno == err;
}

static const char *err_name(long r)
{
	return r < 0 ? strerror(errno) : "succeeded";
}

/* CapEff of this process, from /proc/self/status */
static unsigned long long cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long v = ~0ull;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* Every register access through @fd (a control node file) is refused. */
static void regs_refused(int fd, const char *tag)
{
	struct hellofpga_last_error le;
	char name[64];
	uint32_t v = 0x12345678;
	void *map;
	long r;

	snprintf(name, sizeof(name), "%s-pread-status-rc-0x44", tag);
	r = pread(fd, &v, 4, REG_H2C0_STATUS_RC);
	hfg_expect(failed_with(r, EPERM), name, "%s", err_name(r));
	snprintf(name, sizeof(name), "%s-last-error-text", tag);
	r = last_error(fd, &le);
	hfg_expect(!r && le.error == -EPERM && strstr(le.text, "CAP_SYS_RAWIO"),
		   name, "%d \"%s\"", le.error, le.text);
	snprintf(name, sizeof(name), "%s-pwrite-sgdma-desc-0x4080", tag);
	v = 0xdead0000;
	r = pwrite(fd, &v, 4, REG_H2C0_SGDMA_DESC_LO);
	hfg_expect(failed_with(r, EPERM), name, "%s", err_name(r));
	snprintf(name, sizeof(name), "%s-lseek-read-write", tag);
	r = lseek(fd, REG_H2C0_STATUS_RC, SEEK_SET);
	if (r == REG_H2C0_STATUS_RC) {
		r = read(fd, &v, 4);
		if (failed_with(r, EPERM)) {
			lseek(fd, REG_H2C0_SGDMA_DESC_LO, SEEK_SET);
			r = write(fd, &v, 4);
		}
	}
	hfg_expect(failed_with(r, EPERM), name, "%s", err_name(r));
	snprintf(name, sizeof(name), "%s-mmap", tag);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	r = map == MAP_FAILED ? -1 : 0;
	if (r == 0)
		munmap(map, 4096);
	if (failed_with(r, EPERM)) {
		map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   0x4000);
		r = map == MAP_FAILED ? -1 : 0;
		if (r == 0)
			munmap(map, 4096);
	}
	hfg_expect(failed_with(r, EPERM), name, "%s", err_name(r));
}

/* Register access through @fd (a control node file) works. */
static void regs_allowed(int fd, const char *tag)
{
	char name[64];
	uint32_t id = 0, v = 0;
	volatile uint32_t *map;
	long r;

	snprintf(name, sizeof(name), "%s-pread", tag);
	r = pread(fd, &id, 4, REG_H2C0_ID);
	if (r == 4)
		r = pread(fd, &v, 4, REG_H2C0_STATUS_RC);
	hfg_expect(r == 4 && id >> 20 == 0x1fc, name,
		   "H2C0 identifier 0x%08x, %s", id,
		   r == 4 ? "status read" : err_name(r));
	snprintf(name, sizeof(name), "%s-pwrite", tag);
	v = 0x15;
	r = pwrite(fd, &v, 4, REG_CFG_WRITE_FLUSH);
	v = 0;
	if (r == 4)
		r = pread(fd, &v, 4, REG_CFG_WRITE_FLUSH);
	hfg_expect(r == 4 && (v & 0x1f) == 0x15, name,
		   "write flush timeout 0x%x after writing 0x15 (%s)", v,
		   r == 4 ? "ok" : err_name(r));
	v = 0;
	pwrite(fd, &v, 4, REG_CFG_WRITE_FLUSH);
	snprintf(name, sizeof(name), "%s-mmap", tag);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		hfg_expect(false, name, "%s", strerror(errno));
		return;
	}
	v = map[REG_H2C0_ID / 4];
	hfg_expect(v == id, name, "identifier through the mapping 0x%08x", v);
	munmap((void *)map, 4096);
}

/* PIN host memory, XFER it to the card and back, GET_STATS, UNPIN. */
static void pin_xfer_unpin(int fd, const struct hellofpga_info *hi)
{
	struct hellofpga_stats s0, s1;
	struct hellofpga_pin p;
	struct hellofpga_xfer x;
	struct hellofpga_unpin u;
	struct hellofpga_last_error le;
	uint8_t *buf, *ref;
	int r, i;

	if (posix_memalign((void **)&buf, 4096, XFER_SIZE) ||
	    !(ref = malloc(XFER_SIZE))) {
		hfg_expect(false, "pin-xfer-unpin", "out of memory");
		return;
	}
	for (i = 0; i < (int)XFER_SIZE; i++)
		ref[i] = buf[i] = (uint8_t)(i * 7 + (i >> 12));
	memset(&s0, 0, sizeof(s0));
	r = ioctl(fd, HELLOFPGA_IOC_GET_STATS, &s0);
	hfg_expect(!r, "get-stats", "%s, %u engines",
		   r ? strerror(errno) : "ok", s0.num_engines);

	memset(&p, 0, sizeof(p));
	p.type = HELLOFPGA_PIN_HOST;
	p.addr = (uintptr_t)buf;
	p.size = XFER_SIZE;
	p.fd = -1;
	r = ioctl(fd, HELLOFPGA_IOC_PIN, &p);
	hfg_expect(!r && p.handle, "pin-host", "%s, handle %llu, %u segments",
		   r ? strerror(errno) : "ok", (unsigned long long)p.handle,
		   p.nsegs);
	if (r)
		goto out;
	memset(&x, 0, sizeof(x));
	x.handle = p.handle;
	x.card_addr = XFER_CARD;
	x.length = XFER_SIZE;
	x.dir = HELLOFPGA_XFER_H2C;
	r = ioctl(fd, HELLOFPGA_IOC_XFER, &x);
	memset(buf, 0, XFER_SIZE);
	if (!r) {
		x.dir = HELLOFPGA_XFER_C2H;
		x.channel = hi->num_c2h > 1 ? 1 : 0;
		x.bytes = 0;
		r = ioctl(fd, HELLOFPGA_IOC_XFER, &x);
	}
	hfg_expect(!r && x.bytes == XFER_SIZE && !memcmp(buf, ref, XFER_SIZE),
		   "xfer-h2c-c2h", "%s, %llu bytes back, data %s",
		   r ? strerror(errno) : "ok", (unsigned long long)x.bytes,
		   memcmp(buf, ref, XFER_SIZE) ? "differs" : "matches");
	memset(&s1, 0, sizeof(s1));
	r = ioctl(fd, HELLOFPGA_IOC_GET_STATS, &s1);
	hfg_expect(!r && s1.runs[0] > s0.runs[0] && s1.pins >= 1,
		   "get-stats-counts", "H2C0 runs %llu -> %llu, pins %llu",
		   (unsigned long long)s0.runs[0],
		   (unsigned long long)s1.runs[0], (unsigned long long)s1.pins);
	memset(&u, 0, sizeof(u));
	u.handle = p.handle;
	r = ioctl(fd, HELLOFPGA_IOC_UNPIN, &u);
	hfg_expect(!r, "unpin", "%s", r ? strerror(errno) : "ok");
	r = ioctl(fd, HELLOFPGA_IOC_UNPIN, &u);
	hfg_expect(failed_with(r, ENOENT) && !last_error(fd, &le) &&
		   le.error == -ENOENT && strstr(le.text, "no pin"),
		   "last-error-ioctl", "second UNPIN: %s, \"%s\"", err_name(r),
		   le.text);
out:
	free(buf);
	free(ref);
}

/* pwrite on h2c_0, pread on c2h_0 */
static void h2c_c2h(void)
{
	static uint8_t a[65536], b[65536];
	int h = hfg_open(card, "_h2c_0", O_RDWR);
	int c = hfg_open(card, "_c2h_0", O_RDWR);
	long w = -1, r = -1;

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i ^ 0x5a ^ (i >> 8));
	if (h >= 0 && c >= 0) {
		w = pwrite(h, a, sizeof(a), XFER_CARD + XFER_SIZE);
		r = pread(c, b, sizeof(b), XFER_CARD + XFER_SIZE);
	}
	hfg_expect(w == sizeof(a) && r == sizeof(b) && !memcmp(a, b, sizeof(a)),
		   "h2c-c2h-pwrite-pread",
		   "open %s, pwrite %ld, pread %ld, data %s",
		   h >= 0 && c >= 0 ? "ok" : strerror(errno), w, r,
		   memcmp(a, b, sizeof(a)) ? "differs" : "matches");
	if (h >= 0)
		close(h);
	if (c >= 0)
		close(c);
}

/* the user BAR: pread, pwrite, mmap */
static void user_bar(int ufd)
{
	uint32_t v = 0xa5a51234, got = 0;
	volatile uint32_t *map;
	long r;

	r = pwrite(ufd, &v, 4, USER_SCRATCH);
	if (r == 4)
		r = pread(ufd, &got, 4, USER_SCRATCH);
	hfg_expect(r == 4 && got == v, "user-pread-pwrite",
		   "scratch 0x%08x (%s)", got, r == 4 ? "ok" : err_name(r));
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ufd, 0);
	if (map == MAP_FAILED) {
		hfg_expect(false, "user-mmap", "%s", strerror(errno));
		return;
	}
	v = map[USER_ID / 4];
	map[USER_SCRATCH / 4] = 0x5a5a;
	got = 0;
	pread(ufd, &got, 4, USER_SCRATCH);
	hfg_expect(v == USER_ID_VALUE && got == 0x5a5a, "user-mmap",
		   "ID 0x%08x, scratch written through the mapping reads 0x%x",
		   v, got);
	munmap((void *)map, 4096);
}

/* events_0: raise user interrupt 0 through the user BAR, read its count */
static void events(int ufd, const struct hellofpga_info *hi)
{
	struct pollfd pfd;
	uint32_t one = 1, n = 0;
	int efd, pr;
	long r = -1;

	if (!(hi->features & HELLOFPGA_FEAT_USER_EVENTS)) {
		HFG_SKIP("events",
			 "the card has no interrupts (poll mode): no events nodes");
		return;
	}
	efd = hfg_open(card, "_events_0", O_RDONLY);
	if (efd < 0) {
		hfg_expect(false, "events", "open: %s", strerror(errno));
		return;
	}
	pwrite(ufd, &one, 4, USER_IRQ_SET);
	pfd.fd = efd;
	pfd.events = POLLIN;
	pr = poll(&pfd, 1, 5000);
	pwrite(ufd, &one, 4, USER_IRQ_CLEAR);
	if (pr == 1)
		r = read(efd, &n, 4);
	hfg_expect(pr == 1 && r == 4 && n >= 1, "events",
		   "poll %d, read %ld, %u interrupts", pr, r, n);
	close(efd);
}

static void mode_unpriv(void)
{
	struct hellofpga_info hi;
	unsigned long long caps = cap_eff();
	int fd, ufd, r;

	hfg_expect(getuid() && geteuid() && !caps, "unpriv-credentials",
		   "uid %u euid %u gid %u, CapEff 0x%llx", getuid(), geteuid(),
		   getgid(), caps);
	fd = hfg_open(card, "_control", O_RDWR);
	if (fd < 0) {
		hfg_expect(false, "open-control",
			   "%s (is the user in the nodes' group?)",
			   strerror(errno));
		return;
	}
	regs_refused(fd, "control");
	r = hfg_info(fd, &hi);
	hfg_expect(!r && hi.abi_major == HELLOFPGA_ABI_MAJOR, "get-info",
		   "%s, ABI %u.%u, %u H2C, %u C2H", r ? strerror(errno) : "ok",
		   hi.abi_major, hi.abi_minor, hi.num_h2c, hi.num_c2h);
	if (r)
		return;
	pin_xfer_unpin(fd, &hi);
	h2c_c2h();
	ufd = hfg_open(card, "_user", O_RDWR);
	if (ufd < 0) {
		hfg_expect(false, "open-user", "%s", strerror(errno));
	} else {
		user_bar(ufd);
		events(ufd, &hi);
		close(ufd);
	}
	close(fd);
}

static int control_fd(int argc, char **argv, int i)
{
	if (i < argc)
		return atoi(argv[i]);
	return hfg_open(card, "_control", O_RDWR);
}

static void mode_deputy(int fd)
{
	unsigned long long caps = cap_eff();
	uint32_t v;
	int own;
	long r;

	hfg_expect(geteuid() == 0 && (caps >> CAP_SYS_RAWIO_BIT & 1) &&
		   getuid() != 0, "deputy-credentials",
		   "uid %u euid %u, CapEff 0x%llx", getuid(), geteuid(), caps);
	r = pread(fd, &v, 4, REG_H2C0_STATUS_RC);
	hfg_expect(failed_with(r, EPERM), "deputy-given-fd-refused",
		   "pread through the descriptor an unprivileged process opened: %s",
		   err_name(r));
	own = hfg_open(card, "_control", O_RDWR);
	r = own < 0 ? -1 : pread(own, &v, 4, REG_H2C0_ID);
	hfg_expect(r == 4, "deputy-own-open-allowed",
		   "pread through its own open: %s",
		   r == 4 ? "ok" : err_name(r));
	if (own >= 0)
		close(own);
}

/* a number from a sysfs file of the card's PCI device */
static bool sysfs_bar(const char *devdir, int *bar, unsigned long long *size)
{
	char path[512], line[256];
	unsigned long long start, end, flags;
	FILE *f;
	int i = 0;

	snprintf(path, sizeof(path), "%s/resource", devdir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f) && i < 6) {
		/* the first memory BAR: the user BAR of an XDMA card */
		if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) == 3 &&
		    (flags & 0x200) && end > start) {
			*bar = i;
			*size = end - start + 1;
			fclose(f);
			return true;
		}
		i++;
	}
	if (f)
		fclose(f);
	return false;
}

static void mode_info(void)
{
	struct hellofpga_info hi;
	char cls[256], link[512], *bdf;
	unsigned int dom, bus, dev, fn;
	unsigned long long size = 0;
	int fd = hfg_open(card, "_control", O_RDWR), r, bar = -1;
	ssize_t n;

	r = fd < 0 ? -1 : hfg_info(fd, &hi);
	hfg_expect(!r && hi.abi_minor >= 1, "get-info-abi-1.1", "%s, ABI %u.%u",
		   r ? strerror(errno) : "ok", r ? 0 : hi.abi_major,
		   r ? 0 : hi.abi_minor);
	if (r)
		return;
	snprintf(cls, sizeof(cls), "/sys/class/hellofpga/%s_control/device",
		 strrchr(card, '/') ? strrchr(card, '/') + 1 : card);
	n = readlink(cls, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	bdf = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
		hfg_expect(false, "pci-domain", "no PCI address in %s -> '%s'",
			   cls, link);
		return;
	}
	hfg_expect(hi.pci_domain == dom, "pci-domain",
		   "GET_INFO %08x, sysfs %s (a 32-bit domain cannot be made on q35: the field is checked, not its upper half)",
		   hi.pci_domain, bdf);
	hfg_expect(hi.pci_bdf == ((dom > 0xffff ? 0xffff : dom) << 16 |
				  bus << 8 | dev << 3 | fn),
		   "pci-bdf-old-field", "pci_bdf 0x%08x, sysfs %s", hi.pci_bdf,
		   bdf);
	if (!sysfs_bar(cls, &bar, &size)) {
		hfg_expect(false, "user-bar-size64",
			   "no memory BAR in %s/resource", cls);
		return;
	}
	hfg_expect(hi.user_bar_size64 == size, "user-bar-size64",
		   "GET_INFO 0x%llx, sysfs BAR%d 0x%llx",
		   (unsigned long long)hi.user_bar_size64, bar, size);
	hfg_expect(hi.user_bar_size ==
		   (size > 0xffffffffull ? 0xffffffffu : size),
		   "user-bar-size-old-field", "0x%x for a BAR of 0x%llx bytes",
		   hi.user_bar_size, size);
	if (size > 1ull << 32) {
		/* beyond 4 GiB: the model's BAR reads 0 there */
		int ufd = hfg_open(card, "_user", O_RDWR);
		uint64_t off = size - 4096;
		volatile uint32_t *map;
		uint32_t v = 1;

		r = ufd < 0 ? -1 : pread(ufd, &v, 4, off + 4092);
		hfg_expect(r == 4 && v == 0, "user-bar-pread-beyond-4g",
			   "pread at 0x%llx: %s, 0x%x",
			   (unsigned long long)off + 4092,
			   r == 4 ? "ok" : err_name(r), v);
		map = ufd < 0 ? MAP_FAILED :
		      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ufd,
			   off);
		if (map == MAP_FAILED) {
			hfg_expect(false, "user-bar-mmap-beyond-4g",
				   "mmap at 0x%llx: %s",
				   (unsigned long long)off, strerror(errno));
		} else {
			map[1] = 0x1234;	/* ignored there */
			v = map[1];
			hfg_expect(v == 0, "user-bar-mmap-beyond-4g",
				   "page at 0x%llx reads 0x%x",
				   (unsigned long long)off, v);
			munmap((void *)map, 4096);
		}
		if (ufd >= 0)
			close(ufd);
	}
	close(fd);
}

/* root: what mmap refuses, with which errno and text */
static void mmap_refused(int fd, const char *name, size_t len, int prot,
			 int flags, off_t off, int err, const char *text)
{
	struct hellofpga_last_error le;
	void *map = mmap(NULL, len, prot, flags, fd, off);
	long r = map == MAP_FAILED ? -1 : 0;

	if (!r)
		munmap(map, len);
	last_error(fd, &le);
	hfg_expect(failed_with(r, err) && (!text || strstr(le.text, text)),
		   name, "%s, \"%s\"", err_name(r), le.text);
}

static void mode_mmap_rules(void)
{
	int c = hfg_open(card, "_control", O_RDWR);
	int u = hfg_open(card, "_user", O_RDWR);
	int h = hfg_open(card, "_h2c_0", O_RDWR);
	struct hellofpga_info hi;

	if (c < 0 || u < 0 || h < 0 || hfg_info(c, &hi)) {
		hfg_expect(false, "mmap-rules", "open or GET_INFO: %s",
			   strerror(errno));
		return;
	}
	mmap_refused(u, "mmap-user-map-private", 4096, PROT_READ,
		     MAP_PRIVATE, 0, EINVAL, "MAP_PRIVATE");
	mmap_refused(c, "mmap-control-map-private", 4096, PROT_READ,
		     MAP_PRIVATE, 0, EINVAL, "MAP_PRIVATE");
	mmap_refused(c, "mmap-control-msix-table", 4096, PROT_READ,
		     MAP_SHARED, 0x8000, EINVAL, "beyond");
	mmap_refused(c, "mmap-control-too-long", 0x9000, PROT_READ,
		     MAP_SHARED, 0, EINVAL, "beyond");
	mmap_refused(u, "mmap-user-beyond-bar", 8192, PROT_READ, MAP_SHARED,
		     (off_t)(hi.user_bar_size64 - 4096), EINVAL, "beyond");
	mmap_refused(h, "mmap-h2c-node", 4096, PROT_READ, MAP_SHARED, 0,
		     ENODEV, "mmap() is for");
	close(c);
	close(u);
	close(h);
}

int main(int argc, char **argv)
{
	const char *mode, *pfx = NULL;
	int c, fd;

	while ((c = getopt(argc, argv, "d:p:")) != -1) {
		switch (c) {
		case 'd': card = optarg; break;
		case 'p': pfx = optarg; break;
		default: goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	mode = argv[optind];
	hfg_group = pfx ? pfx : strcmp(mode, "info") ? "privsep" : "info";
	if (!strcmp(mode, "unpriv")) {
		mode_unpriv();
	} else if (!strcmp(mode, "raw") || !strcmp(mode, "refused")) {
		fd = control_fd(argc, argv, optind + 1);
		if (fd < 0) {
			hfg_expect(false, mode, "open: %s", strerror(errno));
		} else if (!strcmp(mode, "raw")) {
			regs_allowed(fd, "raw");
		} else {
			regs_refused(fd, "refused");
		}
	} else if (!strcmp(mode, "deputy") && optind + 1 < argc) {
		mode_deputy(atoi(argv[optind + 1]));
	} else if (!strcmp(mode, "info")) {
		mode_info();
	} else if (!strcmp(mode, "mmap-rules")) {
		mode_mmap_rules();
	} else {
		goto usage;
	}
	return hfg_exit();
usage:
	fprintf(stderr, "usage: hf_privsep [-d CARD] [-p PREFIX] unpriv|raw [FD]|refused [FD]|deputy FD|info|mmap-rules\n");
	return 2;
}
