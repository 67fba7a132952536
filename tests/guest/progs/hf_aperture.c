// SPDX-License-Identifier: MIT
/*
 * hf_aperture - what Xilinx's dma_to_device -k and dma_from_device -k do
 * (their aperture ioctls, include/uapi/hellofpga_xdma.h), written for the
 * guest tests, and checks of the ioctls' semantics and validation.
 *
 *   hf_aperture write -d H2C_NODE -a ADDR -k APERTURE -s SIZE [-o OFF] -f IN
 *   hf_aperture read  -d C2H_NODE -a ADDR -k APERTURE -s SIZE [-o OFF] -w OUT
 *       as the tools: a 4 KiB aligned buffer of SIZE + 4096 bytes, used from
 *       OFF (0..4095) on; IOCTL_XDMA_APERTURE_W of IN's first SIZE bytes,
 *       or APERTURE_R into OUT; fails when the ioctl or its error field
 *       does, or when done < SIZE
 *   hf_aperture check [-d CARD]
 *       PASS/FAIL xilinx/aperture-... lines: the card address formula
 *       (byte i at ADDR + i mod APERTURE) over chunk boundaries, tiny
 *       windows, error and done, every refusal, the other ioctls
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/hellofpga.h"
#include "uapi/hellofpga_xdma.h"
#include "hf_guest.h"

/* one aperture ioctl; returns the ioctl's result, errno kept */
static int aperture(int fd, bool write, uint64_t ep, unsigned int ap,
		    void *buf, unsigned long len,
		    struct hellofpga_xdma_aperture *io)
{
	memset(io, 0, sizeof(*io));
	io->ep_addr = ep;
	io->aperture = ap;
	io->buffer = (unsigned long)buf;
	io->len = len;
	io->error = 12345;	/* the tools leave it uninitialised */
	return ioctl(fd, write ? HELLOFPGA_XDMA_IOC_APERTURE_W :
			     HELLOFPGA_XDMA_IOC_APERTURE_R, io);
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

/* the tools' mode */
static int tool(int argc, char **argv)
{
	const char *dev = NULL, *in = NULL, *out = NULL;
	uint64_t addr = 0, ap = 0, size = 32, off = 0;
	bool wr = !strcmp(argv[1], "write");
	struct hellofpga_xdma_aperture io;
	char *mem, *buf;
	int c, fd, f, r;
	ssize_t n;

	optind = 2;
	while ((c = getopt(argc, argv, "d:a:k:s:o:f:w:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'a': addr = num(optarg); break;
		case 'k': ap = num(optarg); break;
		case 's': size = num(optarg); break;
		case 'o': off = num(optarg) & 4095; break;
		case 'f': in = optarg; break;
		case 'w': out = optarg; break;
		default: return 2;
		}
	}
	if (!dev || !ap || (wr ? !in : !out)) {
		fprintf(stderr, "hf_aperture %s: -d, -k and %s are needed\n",
			argv[1], wr ? "-f" : "-w");
		return 2;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0 || posix_memalign((void **)&mem, 4096, size + 4096)) {
		perror(dev);
		return 1;
	}
	buf = mem + off;
	if (wr) {
		f = open(in, O_RDONLY);
		n = f < 0 ? -1 : read(f, buf, size);
		if (n != (ssize_t)size) {
			fprintf(stderr, "%s: cannot read %llu bytes\n", in,
				(unsigned long long)size);
			return 1;
		}
		close(f);
	}
	r = aperture(fd, wr, addr, ap, buf, size, &io);
	if (r < 0 || io.error) {
		printf("aperture %s ioctl failed %d,%d (%s)\n", wr ? "W" : "R",
		       r, io.error, strerror(errno));
		return 1;
	}
	if (io.done < size) {
		printf("underflow %lu/%llu\n", (unsigned long)io.done,
		       (unsigned long long)size);
		return 1;
	}
	if (!wr) {
		f = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (f < 0 || write(f, buf, size) != (ssize_t)size) {
			perror(out);
			return 1;
		}
		close(f);
	}
	printf("%s %s: %lu bytes, card window 0x%llx + 0x%llx\n", dev,
	       wr ? "aperture W" : "aperture R", (unsigned long)io.done,
	       (unsigned long long)addr, (unsigned long long)ap);
	free(mem);
	close(fd);
	return 0;
}

/*
 * Write @size bytes through a window of @ap at @ep, read the window back
 * linearly (c2h pread) and check it holds, at each offset j, the last byte
 * written there; then read @rsize bytes through the window (APERTURE_R)
 * and check byte i is window[i mod ap].
 */
static void wrap_case(int h2c, int c2h, const char *name, uint64_t ep,
		      unsigned int ap, size_t size, size_t rsize)
{
	struct hellofpga_xdma_aperture io;
	uint8_t *src = malloc(size), *win = malloc(ap), *out = malloc(rsize);
	size_t j, bad = 0;
	int r;

	hfg_fill(src, size, (uint32_t)size ^ ap);
	r = aperture(h2c, true, ep, ap, src, size, &io);
	if (r || io.error || io.done != size) {
		HFG_FAIL(name, "APERTURE_W of 0x%zx: %d (%s), error %d, done 0x%lx",
			 size, r, strerror(errno), io.error,
			 (unsigned long)io.done);
		goto out;
	}
	if (pread(c2h, win, ap, ep) != ap) {
		HFG_FAIL(name, "pread of the window: %s", strerror(errno));
		goto out;
	}
	for (j = 0; j < ap && j < size; j++) {
		size_t last = j + (size - 1 - j) / ap * ap;

		bad += win[j] != src[last];
	}
	r = aperture(c2h, false, ep, ap, out, rsize, &io);
	for (j = 0; !r && j < rsize; j++)
		bad += out[j] != win[j % ap];
	hfg_expect(!r && !io.error && io.done == rsize && !bad, name,
		   "0x%zx bytes into 0x%x at 0x%llx, 0x%zx back: %zu bytes differ (R: %d, error %d, done 0x%lx)",
		   size, ap, (unsigned long long)ep, rsize, bad, r, io.error,
		   (unsigned long)io.done);
out:
	free(src);
	free(win);
	free(out);
}

/* an aperture call that must fail with @err, error = -@err, done 0 */
static void refused(int fd, const char *name, bool write, uint64_t ep,
		    unsigned int ap, void *buf, unsigned long len, int err)
{
	struct hellofpga_xdma_aperture io;
	struct hellofpga_last_error le;
	int r = aperture(fd, write, ep, ap, buf, len, &io);
	int e = errno;

	memset(&le, 0, sizeof(le));
	ioctl(fd, HELLOFPGA_IOC_LAST_ERROR, &le);
	hfg_expect(r == -1 && e == err && io.error == -err && !io.done &&
		   le.text[0], name, "%s, error %d, done %lu, \"%s\"",
		   r ? strerror(e) : "succeeded", io.error,
		   (unsigned long)io.done, le.text);
}

static int check_all(int argc, char **argv)
{
	const char *card = "/dev/hellofpga0";
	int h2c, c2h, ctl, v, r;
	struct hellofpga_info hi;
	struct hellofpga_xdma_aperture io;
	static uint8_t buf[65536];

	hfg_group = "xilinx";
	if (argc > 3 && !strcmp(argv[2], "-d"))
		card = argv[3];
	h2c = hfg_open(card, "_h2c_0", O_RDWR);
	c2h = hfg_open(card, "_c2h_1", O_RDWR);
	ctl = hfg_open(card, "_control", O_RDWR);
	memset(&hi, 0, sizeof(hi));
	if (h2c < 0 || c2h < 0 || ctl < 0 ||
	    ioctl(ctl, HELLOFPGA_IOC_GET_INFO, &hi)) {
		HFG_FAIL("aperture-setup", "open or GET_INFO: %s",
			 strerror(errno));
		return 1;
	}
	/* the formula, over the 4 MiB chunks of the driver, odd sizes */
	wrap_case(h2c, c2h, "aperture-wrap-over-chunks", 0x7000100, 0x3000,
		  (5u << 20) + 123, 3 * 0x3000 + 77);
	/* a power-of-two window as dma_to_device -k uses it */
	wrap_case(h2c, c2h, "aperture-wrap-64k", 0x7800000, 0x10000, 0x28000,
		  0x30000);
	/* 4-byte windows: a descriptor each, several chains */
	wrap_case(h2c, c2h, "aperture-tiny-window", 0x7900000, 4, 96 * 1024,
		  64);
	/* a window larger than the transfer is a plain transfer */
	wrap_case(h2c, c2h, "aperture-window-larger-than-transfer", 0x7a00000,
		  0x100000, 0x1000, 0x800);

	r = aperture(h2c, true, 0x7000000, 0x1000, buf, 0, &io);
	hfg_expect(!r && !io.error && !io.done, "aperture-zero-length",
		   "%d, error %d, done %lu", r, io.error,
		   (unsigned long)io.done);
	refused(h2c, "aperture-zero-aperture", true, 0x7000000, 0, buf, 4096,
		EINVAL);
	refused(h2c, "aperture-read-on-h2c-node", false, 0x7000000, 0x1000,
		buf, 4096, EINVAL);
	refused(c2h, "aperture-write-on-c2h-node", true, 0x7000000, 0x1000,
		buf, 4096, EINVAL);
	refused(h2c, "aperture-beyond-card-memory", true, hi.ddr_size - 0x800,
		0x1000, buf, 4096, ERANGE);
	refused(h2c, "aperture-window-wraps", true, ~0ull - 0x7ff, 0x1000, buf,
		4096, EOVERFLOW);
	refused(h2c, "aperture-bad-buffer", true, 0x7000000, 0x1000,
		(void *)16, 4096, EFAULT);
	refused(c2h, "aperture-bad-buffer-read", false, 0x7000000, 0x1000,
		(void *)16, 4096, EFAULT);
	v = hfg_open(card, "_h2c_0", O_RDONLY);
	refused(v, "aperture-write-on-read-only-open", true, 0x7000000, 0x1000,
		buf, 4096, EBADF);
	close(v);
	r = ioctl(ctl, HELLOFPGA_XDMA_IOC_APERTURE_W, &io);
	hfg_expect(r == -1 && errno == ENOTTY, "aperture-not-on-control-node",
		   "%s", r ? strerror(errno) : "succeeded");

	v = -1;
	r = ioctl(h2c, HELLOFPGA_XDMA_IOC_ALIGN_GET, &v);
	hfg_expect(!r && v == (int)(hi.addr_align ? hi.addr_align : 1),
		   "aperture-align-get", "%d (GET_INFO %u)", v, hi.addr_align);
	v = -1;
	r = ioctl(c2h, HELLOFPGA_XDMA_IOC_ADDRMODE_GET, &v);
	hfg_expect(!r && v == 0, "aperture-addrmode-get", "%d", v);
	v = 0;
	r = ioctl(h2c, HELLOFPGA_XDMA_IOC_ADDRMODE_SET, &v);
	v = 1;
	if (!r)
		r = ioctl(h2c, HELLOFPGA_XDMA_IOC_ADDRMODE_SET, &v) == -1 &&
		    errno == EOPNOTSUPP ? 0 : -1;
	hfg_expect(!r, "aperture-addrmode-set",
		   "0 accepted, 1 refused with EOPNOTSUPP: %s",
		   r ? "no" : "yes");
	close(h2c);
	close(c2h);
	close(ctl);
	return hfg_exit();
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "write") || !strcmp(argv[1], "read")))
		return tool(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return check_all(argc, argv);
	fprintf(stderr, "usage: hf_aperture write|read -d NODE -a ADDR -k APERTURE -s SIZE [-o OFF] -f IN|-w OUT\n"
		"       hf_aperture check [-d CARD]\n");
	return 2;
}
