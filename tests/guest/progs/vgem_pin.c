// SPDX-License-Identifier: MIT
/*
 * vgem_pin - HELLOFPGA_IOC_PIN of dma-bufs exported by vgem (the kernel's
 * virtual GEM driver stands in for a GPU exporting its memory), through
 * the real driver's dma-buf provider, in the guest.
 *
 *   vgem_pin [-d /dev/hellofpgaN] [-c CHANNEL]
 *
 * No libdrm: the few DRM structures and ioctls are defined here.  Card
 * memory is written and read through the card's H2C/C2H nodes (the CPU
 * path) to check what the dma-buf transfers moved; the dma-buf is read and
 * written through its mmap, bracketed by DMA_BUF_IOCTL_SYNC.  A dma-buf
 * exported read-only (PRIME without DRM_RDWR) pins for H2C only: C2H into
 * it is refused with EACCES and writes nothing.
 *
 * Prints "PASS vgem/NAME", "FAIL vgem/NAME: reason" or "SKIP vgem/NAME:
 * reason" per check; exit status 1 when one failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/types.h>

#include "uapi/hellofpga.h"
#include "hf_guest.h"

/* ---- the DRM uapi this needs (drm.h, drm_mode.h) ---- */
struct drm_version_s {
	int version_major, version_minor, version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct drm_mode_create_dumb_s {
	__u32 height, width, bpp, flags, handle, pitch;
	__u64 size;
};

struct drm_prime_handle_s {
	__u32 handle, flags;
	__s32 fd;
};

struct drm_gem_close_s {
	__u32 handle, pad;
};

#define DRM_IOCTL_VERSION_X		_IOWR('d', 0x00, struct drm_version_s)
#define DRM_IOCTL_GEM_CLOSE_X		_IOW('d', 0x09, struct drm_gem_close_s)
#define DRM_IOCTL_PRIME_HANDLE_TO_FD_X	_IOWR('d', 0x2d, struct drm_prime_handle_s)
#define DRM_IOCTL_MODE_CREATE_DUMB_X	_IOWR('d', 0xB2, struct drm_mode_create_dumb_s)

#define CARD_A		0x200000ull	/* card regions used */
#define CARD_B		0x400000ull
#define POISON		0x5a

static int ctl = -1, h2c = -1, c2h = -1, drm = -1;

struct vbuf {
	__u32 handle;
	int fd;
	uint8_t *map;
	size_t size;
};

/*
 * A vgem dumb buffer of @pages 4 KiB pages, exported (read-only unless
 * @rw: the dma-buf's file is not open for writing) and mapped.
 */
static int vbuf_new_mode(struct vbuf *b, unsigned int pages, bool rw)
{
	struct drm_mode_create_dumb_s c = { .height = pages, .width = 1024,
					    .bpp = 32 };
	struct drm_prime_handle_s p = { 0 };

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	if (ioctl(drm, DRM_IOCTL_MODE_CREATE_DUMB_X, &c))
		return -errno;
	b->handle = c.handle;
	b->size = c.size;
	p.handle = c.handle;
	p.flags = rw ? O_RDWR | O_CLOEXEC : O_CLOEXEC;
	if (ioctl(drm, DRM_IOCTL_PRIME_HANDLE_TO_FD_X, &p))
		return -errno;
	b->fd = p.fd;
	b->map = mmap(NULL, b->size, rw ? PROT_READ | PROT_WRITE : PROT_READ,
		      MAP_SHARED, b->fd, 0);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return -errno;
	}
	return 0;
}

static int vbuf_new(struct vbuf *b, unsigned int pages)
{
	return vbuf_new_mode(b, pages, true);
}

static void vbuf_free(struct vbuf *b)
{
	struct drm_gem_close_s g = { .handle = b->handle };

	if (b->map)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	if (b->handle)
		ioctl(drm, DRM_IOCTL_GEM_CLOSE_X, &g);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

static void vsync(struct vbuf *b, __u64 flags)
{
	struct dma_buf_sync s = { .flags = flags };

	ioctl(b->fd, DMA_BUF_IOCTL_SYNC, &s);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* First differing offset, or -1. */
static long differs(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static int pin(int fd, __u64 off, __u64 size, struct hellofpga_pin *p)
{
	memset(p, 0, sizeof(*p));
	p->type = HELLOFPGA_PIN_DMABUF;
	p->fd = fd;
	p->addr = off;
	p->size = size;
	return ioctl(ctl, HELLOFPGA_IOC_PIN, p) ? -errno : 0;
}

/* XFER that moved all of @len bytes: 0, or -errno (-EIO: fewer) */
static int xfer(__u64 handle, __u64 off, __u64 card, __u64 len, __u32 dir,
		__u32 ch)
{
	uint64_t bytes;
	int r = hfg_xfer(ctl, handle, dir, ch, off, card, len, 0, &bytes);

	return r ? r : bytes == len ? 0 : -EIO;
}

static int card_put(__u64 addr, const void *buf, size_t n)
{
	return pwrite(h2c, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -EIO;
}

static int card_get(__u64 addr, void *buf, size_t n)
{
	return pread(c2h, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -EIO;
}

static int open_vgem(void)
{
	char path[32], name[32];

	for (int i = 0; i < 8; i++) {
		struct drm_version_s v = { 0 };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (!ioctl(fd, DRM_IOCTL_VERSION_X, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *card = "/dev/hellofpga0";
	struct hellofpga_info info = { 0 };
	struct hellofpga_stats st = { 0 };
	struct hellofpga_pin p, p2, psub;
	struct vbuf b, b2;
	uint8_t *pat, *got;
	char path[64];
	size_t len;
	int ch = 0, opt, r;
	long d;

	hfg_group = "vgem";

	while ((opt = hfg_getopt(argc, argv, "d:c:", &card)) != -1) {
		if (opt == 'c')
			ch = atoi(optarg);
		else
			return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	snprintf(path, sizeof(path), "_h2c_%d", ch);
	h2c = hfg_open(card, path, O_RDWR);
	snprintf(path, sizeof(path), "_c2h_%d", ch);
	c2h = hfg_open(card, path, O_RDWR);
	if (ctl < 0 || h2c < 0 || c2h < 0) {
		HFG_FAIL("open", "%s nodes: %s", card, strerror(errno));
		return 1;
	}
	if (hfg_info(ctl, &info)) {
		HFG_FAIL("get-info", "%s", strerror(errno));
		return 1;
	}
	if (!(info.features & HELLOFPGA_FEAT_PIN_DMABUF)) {
		HFG_SKIP("all",
			 "the driver has no dma-buf provider (features 0x%llx)",
			 (unsigned long long)info.features);
		return 0;
	}
	drm = open_vgem();
	if (drm < 0) {
		HFG_SKIP("all", "no vgem device in /dev/dri (insmod vgem.ko)");
		return 0;
	}

	/* 1 MiB + 12 KiB: an odd number of pages */
	r = vbuf_new(&b, 259);
	if (r) {
		HFG_FAIL("export", "vgem dumb buffer + PRIME export: %s",
			 strerror(-r));
		return 1;
	}
	len = b.size;
	pat = malloc(len);
	got = malloc(len);
	if (!pat || !got)
		return 1;
	HFG_PASS("export", NULL);

	r = pin(b.fd, 0, len, &p);
	if (r) {
		HFG_FAIL("pin", "PIN of the whole %zu-byte dma-buf: %s (%s)",
			 len, strerror(-r), hfg_drv_err(ctl));
		return 1;
	}
	printf("# pinned %zu bytes: handle %llu, %u segments, page size %llu\n",
	       len, (unsigned long long)p.handle, p.nsegs,
	       (unsigned long long)p.page_size);
	HFG_PASS("pin", NULL);

	/* dma-buf -> card */
	vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	fill(b.map, len, 1);
	memcpy(pat, b.map, len);
	vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	r = xfer(p.handle, 0, CARD_A, len, HELLOFPGA_XFER_H2C, ch);
	if (r)
		HFG_FAIL("h2c", "XFER H2C: %s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
	else if (card_get(CARD_A, got, len))
		HFG_FAIL("h2c", "reading card memory back: %s",
			 strerror(errno));
	else if ((d = differs(pat, got, len)) >= 0)
		HFG_FAIL("h2c",
			 "card byte %ld is 0x%02x, the dma-buf had 0x%02x", d,
			 got[d], pat[d]);
	else
		HFG_PASS("h2c", NULL);

	/* card -> dma-buf */
	fill(pat, len, 2);
	vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	memset(b.map, POISON, len);
	vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	if (card_put(CARD_B, pat, len)) {
		HFG_FAIL("c2h", "writing card memory: %s", strerror(errno));
	} else {
		r = xfer(p.handle, 0, CARD_B, len, HELLOFPGA_XFER_C2H, ch);
		vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
		if (r)
			HFG_FAIL("c2h", "XFER C2H: %s (%s)", strerror(-r),
				 hfg_drv_err(ctl));
		else if ((d = differs(pat, b.map, len)) >= 0)
			HFG_FAIL("c2h", "dma-buf byte %ld is 0x%02x, the card had 0x%02x",
				 d, b.map[d], pat[d]);
		else
			HFG_PASS("c2h", NULL);
		vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	}

	/* a sub-range of the pin: bytes around it stay untouched */
	{
		size_t off = 3 * 4096 + 512, n = 5 * 4096 + 1024;

		if (info.addr_align > 512 || info.len_granularity > 512) {
			off = 3 * 4096;
			n = 5 * 4096;
		}
		vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
		memset(b.map, POISON, len);
		vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
		fill(pat, n, 3);
		r = card_put(CARD_A, pat, n) ? -EIO :
		    xfer(p.handle, off, CARD_A, n, HELLOFPGA_XFER_C2H, ch);
		vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
		if (r) {
			HFG_FAIL("xfer-subrange",
				 "C2H of %zu bytes at offset %zu: %s (%s)", n,
				 off, strerror(-r), hfg_drv_err(ctl));
		} else if ((d = differs(pat, b.map + off, n)) >= 0) {
			HFG_FAIL("xfer-subrange",
				 "byte %ld of the range differs", d);
		} else {
			memset(got, POISON, len);
			if ((d = differs(got, b.map, off)) >= 0 ||
			    (d = differs(got, b.map + off + n, len - off - n)) >= 0)
				HFG_FAIL("xfer-subrange", "a byte outside the range changed (%ld)",
					 d);
			else
				HFG_PASS("xfer-subrange", NULL);
		}
		vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	}

	/* a pin of a sub-range of the dma-buf (offset into it) */
	{
		size_t off = 5 * 4096, n = 9 * 4096;

		r = pin(b.fd, off, n, &psub);
		if (r) {
			HFG_FAIL("pin-subrange", "PIN at offset %zu: %s (%s)",
				 off, strerror(-r), hfg_drv_err(ctl));
		} else {
			fill(pat, n, 4);
			vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
			memset(b.map, POISON, len);
			vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
			r = card_put(CARD_B, pat, n) ? -EIO :
			    xfer(psub.handle, 0, CARD_B, n, HELLOFPGA_XFER_C2H, ch);
			vsync(&b, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
			memset(got, POISON, len);
			if (r)
				HFG_FAIL("pin-subrange", "C2H: %s (%s)",
					 strerror(-r), hfg_drv_err(ctl));
			else if ((d = differs(pat, b.map + off, n)) >= 0)
				HFG_FAIL("pin-subrange", "byte %ld differs", d);
			else if (differs(got, b.map, off) >= 0 ||
				 differs(got, b.map + off + n, len - off - n) >= 0)
				HFG_FAIL("pin-subrange", "bytes outside the pinned range changed");
			else if (xfer(psub.handle, 0, CARD_B, n + 4096,
				      HELLOFPGA_XFER_C2H, ch) != -EINVAL)
				HFG_FAIL("pin-subrange", "a transfer past the pinned range was not refused with EINVAL");
			else
				HFG_PASS("pin-subrange", NULL);
			vsync(&b, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
			r = hfg_unpin(ctl, psub.handle);
			if (r)
				HFG_FAIL("pin-subrange", "UNPIN: %s",
					 strerror(-r));
		}
	}

	/* refusals */
	{
		int nul = open("/dev/null", O_RDWR);
		int e1 = pin(b.fd, len, 4096, &p2);
		int e2 = pin(b.fd, len - 4096, 8192, &p2);
		int e3 = pin(nul, 0, 4096, &p2);
		int e4 = xfer(p.handle + 1000, 0, CARD_A, 4096,
			      HELLOFPGA_XFER_C2H, ch);

		close(nul);
		if (e1 != -EINVAL || e2 != -EINVAL || !e3 || e4 != -ENOENT)
			HFG_FAIL("refusals", "offset past the end %d, range past the end %d, not a dma-buf %d, unknown handle %d (want -EINVAL, -EINVAL, an error, -ENOENT)",
				 e1, e2, e3, e4);
		else
			HFG_PASS("refusals", NULL);
	}

	/* the dma-buf closed and unmapped by its user: the pin keeps it */
	r = vbuf_new(&b2, 64);
	if (r) {
		HFG_FAIL("pin-outlives-fd", "second buffer: %s", strerror(-r));
	} else {
		size_t n = b2.size;

		r = pin(b2.fd, 0, n, &p2);
		if (r) {
			HFG_FAIL("pin-outlives-fd", "PIN: %s (%s)",
				 strerror(-r), hfg_drv_err(ctl));
		} else {
			vbuf_free(&b2);
			fill(pat, n, 5);
			r = card_put(CARD_A, pat, n) ? -EIO :
			    xfer(p2.handle, 0, CARD_A, n, HELLOFPGA_XFER_C2H, ch);
			if (!r)
				r = xfer(p2.handle, 0, CARD_B, n,
					 HELLOFPGA_XFER_H2C, ch);
			if (!r)
				r = card_get(CARD_B, got, n) ? -EIO : 0;
			if (r)
				HFG_FAIL("pin-outlives-fd",
					 "transfers after close: %s (%s)",
					 strerror(-r), hfg_drv_err(ctl));
			else if ((d = differs(pat, got, n)) >= 0)
				HFG_FAIL("pin-outlives-fd",
					 "round trip byte %ld differs", d);
			else if ((r = hfg_unpin(ctl, p2.handle)))
				HFG_FAIL("pin-outlives-fd", "UNPIN: %s",
					 strerror(-r));
			else
				HFG_PASS("pin-outlives-fd", NULL);
		}
		vbuf_free(&b2);
	}

	/*
	 * A dma-buf exported read-only (PRIME without DRM_RDWR: its file is
	 * not open for writing) pins for H2C only: C2H into it is refused
	 * with EACCES and writes nothing; H2C moves its bytes.
	 */
	r = vbuf_new_mode(&b2, 16, false);
	if (r) {
		HFG_FAIL("readonly", "read-only export: %s", strerror(-r));
	} else {
		size_t n = b2.size;

		memset(got, 0, n);
		fill(pat, n, 6);
		r = card_put(CARD_A, pat, n) ? -EIO : pin(b2.fd, 0, n, &p2);
		if (r) {
			HFG_FAIL("readonly", "PIN of a read-only dma-buf: %s (%s)",
				 strerror(-r), hfg_drv_err(ctl));
		} else {
			r = xfer(p2.handle, 0, CARD_A, n, HELLOFPGA_XFER_C2H, ch);
			vsync(&b2, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
			d = differs(got, b2.map, n);
			vsync(&b2, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
			hfg_expect(r == -EACCES && d < 0 &&
				   strstr(hfg_drv_err(ctl), "read-only"),
				   "readonly-c2h-refused",
				   "C2H into it: %s (%s), first byte changed: %ld (-1: none)",
				   r ? strerror(-r) : "moved", hfg_drv_err(ctl),
				   d);
			r = xfer(p2.handle, 0, CARD_A, n, HELLOFPGA_XFER_H2C, ch);
			if (!r)
				r = card_get(CARD_A, pat, n) ? -EIO : 0;
			d = r ? -1 : differs(got, pat, n);
			hfg_expect(!r && d < 0, "readonly-h2c-works",
				   "H2C from it: %s (%s), first card byte unlike it: %ld (-1: none)",
				   r ? strerror(-r) : "ok",
				   r ? hfg_drv_err(ctl) : "", d);
			hfg_unpin(ctl, p2.handle);
		}
		vbuf_free(&b2);
	}

	/* UNPIN, then the handle is gone */
	r = hfg_unpin(ctl, p.handle);
	if (r)
		HFG_FAIL("unpin", "UNPIN: %s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
	else if (xfer(p.handle, 0, CARD_A, 4096, HELLOFPGA_XFER_C2H, ch) != -ENOENT ||
		 hfg_unpin(ctl, p.handle) != -ENOENT)
		HFG_FAIL("unpin", "the handle still answers after UNPIN");
	else
		HFG_PASS("unpin", NULL);

	/* close the control node with pins alive: the driver releases them */
	r = pin(b.fd, 0, len, &p);
	if (!r)
		r = pin(b.fd, 4096, 8192, &p2);
	if (r) {
		HFG_FAIL("close-with-pins", "PIN: %s (%s)", strerror(-r),
			 hfg_drv_err(ctl));
	} else {
		close(ctl);
		ctl = hfg_open(card, "_control", O_RDWR);
		if (ctl < 0 || ioctl(ctl, HELLOFPGA_IOC_GET_STATS, &st))
			HFG_FAIL("close-with-pins", "reopen and GET_STATS: %s",
				 strerror(errno));
		else if (st.pins || st.pinned_bytes)
			HFG_FAIL("close-with-pins", "%llu pins, %llu bytes still pinned after close (another user of the card?)",
				 (unsigned long long)st.pins,
				 (unsigned long long)st.pinned_bytes);
		else
			HFG_PASS("close-with-pins", NULL);
	}
	vbuf_free(&b);
	free(pat);
	free(got);
	printf("# %d passed, %d failed, %d skipped\n", hfg_passed, hfg_failed,
	       hfg_skipped);
	return hfg_failed ? 1 : 0;
}
