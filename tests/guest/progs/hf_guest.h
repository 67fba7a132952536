/* SPDX-License-Identifier: MIT */
/*
 * hf_guest.h - what the guest test programs share: result lines, the
 * driver's last-error text, thin wrappers of the ioctls of
 * include/uapi/hellofpga.h, the card's guest fault/counter window
 * (xdma-sim,fault-regs=on: BAR0 + 0xf000, model/qemu/README.md), the
 * kernel log and whether an AER error can be injected.  Header only: each
 * program in tests/guest/progs/ is built on its own
 * (tests/guest/harness/guest-ci.sh).
 *
 * Result lines, one per check, as the guest harness counts them:
 *   PASS group/name[: detail]   FAIL group/name: reason   SKIP group/name: why
 * Every program prints them through hfg_result() (HFG_PASS, HFG_FAIL,
 * HFG_SKIP, hfg_expect) with its group in hfg_group, and exits with
 * hfg_exit().
 */
#ifndef HF_GUEST_H
#define HF_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <time.h>
#include <unistd.h>

#include "uapi/hellofpga.h"

static const char *hfg_group = "guest";
static int hfg_failed, hfg_passed, hfg_skipped;

/*
 * One result line: @res ("PASS", "FAIL", "SKIP") hfg_group/@name, then
 * ": " and the text of @fmt, if any and not empty.
 */
static inline void hfg_vresult(const char *res, const char *name,
			       const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static inline void hfg_vresult(const char *res, const char *name,
			       const char *fmt, va_list ap)
{
	char text[1024] = "";

	if (fmt)
		vsnprintf(text, sizeof(text), fmt, ap);
	printf("%s %s/%s%s%s\n", res, hfg_group, name, *text ? ": " : "",
	       text);
	fflush(stdout);
	if (!strcmp(res, "FAIL"))
		hfg_failed++;
	else if (!strcmp(res, "PASS"))
		hfg_passed++;
	else
		hfg_skipped++;
}

static inline void hfg_result(const char *res, const char *name,
			      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void hfg_result(const char *res, const char *name,
			      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hfg_vresult(res, name, fmt, ap);
	va_end(ap);
}

#define HFG_PASS(n, ...)	hfg_result("PASS", n, __VA_ARGS__)
#define HFG_FAIL(n, ...)	hfg_result("FAIL", n, __VA_ARGS__)
#define HFG_SKIP(n, ...)	hfg_result("SKIP", n, __VA_ARGS__)


/* A size argument: bytes, with a K or M suffix (1024-based). */
static inline uint64_t hfg_parse_size(const char *s)
{
	char *e;
	uint64_t v = strtoull(s, &e, 0);

	if (*e == 'K' || *e == 'k')
		v <<= 10;
	else if (*e == 'M' || *e == 'm')
		v <<= 20;
	return v;
}

/* @s as a result name has it: 4K, 64K, 4M, or bytes; written into @b. */
static inline const char *hfg_hsize(uint64_t s, char *b)
{
	if (s >= (1 << 20) && !(s % (1 << 20)))
		sprintf(b, "%lluM", (unsigned long long)(s >> 20));
	else if (s >= 1024 && !(s % 1024))
		sprintf(b, "%lluK", (unsigned long long)(s >> 10));
	else
		sprintf(b, "%llu", (unsigned long long)s);
	return b;
}
/* Check @name: PASS when @ok, else FAIL, with the text of @fmt. */
static inline void hfg_expect(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void hfg_expect(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hfg_vresult(ok ? "PASS" : "FAIL", name, fmt, ap);
	va_end(ap);
}

/* Exit status of a program: 1 when a check failed. */
static inline int hfg_exit(void)
{
	return hfg_failed ? 1 : 0;
}

/*
 * getopt() for a program's options @opts, "d:" among them: -d CARD sets
 * *card; the next other option is returned (-1 at the end).
 */
static inline int hfg_getopt(int argc, char **argv, const char *opts,
			     const char **card)
{
	int opt;

	while ((opt = getopt(argc, argv, opts)) == 'd')
		*card = optarg;
	return opt;
}

static inline double hfg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The node of card @card ("/dev/hellofpga0") with @suffix ("_control"). */
static inline int hfg_open(const char *card, const char *suffix, int flags)
{
	char path[128];

	snprintf(path, sizeof(path), "%s%s", card, suffix);
	return open(path, flags | O_CLOEXEC);
}

/* The driver's text for the last failure of an open node. */
static inline const char *hfg_drv_err(int fd)
{
	static struct hellofpga_last_error le;

	memset(&le, 0, sizeof(le));
	if (ioctl(fd, HELLOFPGA_IOC_LAST_ERROR, &le))
		return "(LAST_ERROR failed)";
	le.text[sizeof(le.text) - 1] = 0;
	return le.text;
}

/* PIN of host memory; 0 or -errno, *handle set. */
static inline int hfg_pin_host(int ctl, void *addr, uint64_t size,
			       uint64_t *handle)
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
	return 0;
}

static inline int hfg_unpin(int ctl, uint64_t handle)
{
	struct hellofpga_unpin u = { .handle = handle };

	return ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u) ? -errno : 0;
}

/* XFER; 0 or -errno, *bytes (if not NULL) what the driver reported. */
static inline int hfg_xfer(int ctl, uint64_t handle, uint32_t dir,
			   uint32_t ch, uint64_t off, uint64_t card_addr,
			   uint64_t len, uint32_t timeout_ms, uint64_t *bytes)
{
	struct hellofpga_xfer x = {
		.handle = handle,
		.buf_offset = off,
		.card_addr = card_addr,
		.length = len,
		.dir = dir,
		.channel = ch,
		.timeout_ms = timeout_ms,
	};
	int ret = ioctl(ctl, HELLOFPGA_IOC_XFER, &x) ? -errno : 0;

	if (bytes)
		*bytes = x.bytes;
	return ret;
}

static inline int hfg_stats(int ctl, struct hellofpga_stats *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(ctl, HELLOFPGA_IOC_GET_STATS, st) ? -errno : 0;
}

/*
 * Check NAME: the card behind @ctl has the pins and pinned bytes of @before
 * again (what a test pinned, or a killed process held, is gone).
 */
static inline void hfg_pins_back(const char *name, int ctl,
				 const struct hellofpga_stats *before)
{
	struct hellofpga_stats now;

	if (hfg_stats(ctl, &now))
		HFG_FAIL(name, "GET_STATS: %s", strerror(errno));
	else if (now.pins == before->pins &&
		 now.pinned_bytes == before->pinned_bytes)
		HFG_PASS(name, NULL);
	else
		HFG_FAIL(name, "pins %llu -> %llu, pinned bytes %llu -> %llu",
			 (unsigned long long)before->pins,
			 (unsigned long long)now.pins,
			 (unsigned long long)before->pinned_bytes,
			 (unsigned long long)now.pinned_bytes);
}

/* VmLck of this process in KiB (its locked memory), -1 when unknown. */
static inline long hfg_vmlck_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static inline int hfg_info(int fd, struct hellofpga_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, HELLOFPGA_IOC_GET_INFO, info) ? -errno : 0;
}

/*
 * The guest fault/counter window of xdma-sim (fault-regs=on), through the
 * card's _user node: fault bits at 0xf000 (XDMA_FAULT_*: 1 desc_read,
 * 2 stall, 4 lost_irq, 8 dead, 0x10 hang), magic at 0xf004, counters at
 * 0xf010 + 8 * i (low half first: it latches the high half), the duration
 * of the next hang in us at 0xf0f0, what is left of one at 0xf0f4.
 */
#define HFG_FW			0xf000u
#define HFG_FW_MAGIC		0x46415554u	/* "FAUT" */
#define HFG_FAULT_DESC_READ	0x01u
#define HFG_FAULT_STALL		0x02u
#define HFG_FAULT_DEAD		0x08u
#define HFG_FAULT_HANG		0x10u
#define HFG_CNT_BYTES_H2C	5
#define HFG_CNT_BYTES_C2H	6
#define HFG_CNT_DMA_ERRORS	9

static inline int hfg_rd32(int ufd, uint32_t off, uint32_t *v)
{
	return pread(ufd, v, 4, off) == 4 ? 0 : -errno;
}

static inline int hfg_wr32(int ufd, uint32_t off, uint32_t v)
{
	return pwrite(ufd, &v, 4, off) == 4 ? 0 : -errno;
}

/* Whether the card behind @ufd has the fault window. */
static inline int hfg_fw_present(int ufd)
{
	uint32_t v = 0;

	return !hfg_rd32(ufd, HFG_FW + 4, &v) && v == HFG_FW_MAGIC;
}

/* Counter @i of the card (HFG_CNT_*); ~0 when it cannot be read. */
static inline uint64_t hfg_counter(int ufd, unsigned int i)
{
	uint32_t lo, hi;

	if (hfg_rd32(ufd, HFG_FW + 0x10 + 8 * i, &lo) ||
	    hfg_rd32(ufd, HFG_FW + 0x14 + 8 * i, &hi))
		return ~0ull;
	return (uint64_t)hi << 32 | lo;
}

/* Replace the card's fault bits (0 ends a hang). */
static inline int hfg_fault(int ufd, uint32_t bits)
{
	return hfg_wr32(ufd, HFG_FW, bits);
}

/*
 * The card sends engine @engine's (engine order) channel message once, a
 * stray one: nothing finished (MSI-X, MSI; the window's 0xf0f8).
 */
static inline int hfg_stray_irq(int ufd, uint32_t engine)
{
	return hfg_wr32(ufd, HFG_FW + 0xf8, engine);
}

/* Every engine of the card hangs for @us microseconds from now. */
static inline int hfg_hang(int ufd, uint32_t us)
{
	int ret = hfg_wr32(ufd, HFG_FW + 0xf0, us);

	return ret ? ret : hfg_fault(ufd, HFG_FAULT_HANG);
}

/*
 * The kernel log: hfg_kmark() writes a line "TAG" into it (/dev/kmsg),
 * hfg_klog_count() counts the lines after the last line that contains TAG
 * (make it unique: "prog mark PID.N end") that contain @needle (all lines
 * with a NULL @tag); -1 when the log cannot be read.
 */
static inline void hfg_kmark(const char *tag)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	char line[256];
	int n;

	/* one write, with its newline: a record without one is not readable
	 * until the next record ends it */
	n = snprintf(line, sizeof(line), "%s\n", tag);
	if (fd >= 0) {
		if (write(fd, line, n) != n)
			perror("/dev/kmsg");
		close(fd);
	}
}

static inline int hfg_klog_count(const char *tag, const char *needle)
{
	int size = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf, *line, *save = NULL;
	int n = 0, len;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	len = klogctl(3, buf, size);		/* SYSLOG_ACTION_READ_ALL */
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (tag && strstr(line, tag))
			n = 0;
		else if (strstr(line, needle))
			n++;
	}
	free(buf);
	return n;
}

/*
 * Whether this guest can inject an AER error into the card: the QMP
 * channel of the harness (hf_qmp=1 on the kernel command line, or @also
 * there when not NULL) and the AER service on a root port.  If not,
 * false and the reason in @why, which names @cfgs: the configurations
 * that open the channel for the program (tests/guest/harness/configs.sh).
 */
static inline bool hfg_aer_possible(const char *also, const char *cfgs,
				    const char **why)
{
	static char no_qmp[128];
	char cmd[1024] = "";
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, cmd, sizeof(cmd) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0 ||
	    (!strstr(cmd, "hf_qmp=1") && !(also && strstr(cmd, also)))) {
		snprintf(no_qmp, sizeof(no_qmp), "no QMP channel (%s)", cfgs);
		*why = no_qmp;
		return false;
	}
	if (access("/sys/bus/pci_express/devices", F_OK) ||
	    system("ls /sys/bus/pci_express/devices | grep -q pcie002")) {
		*why = "no AER service on a root port";
		return false;
	}
	return true;
}

/* Fill @len bytes with a pattern of @seed; hfg_check() finds the first
 * byte that differs, or -1. */
static inline void hfg_fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = x >> 16;
	}
}

static inline long hfg_check(const uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		if (p[i] != (uint8_t)(x >> 16))
			return (long)i;
	}
	return -1;
}

#endif /* HF_GUEST_H */
