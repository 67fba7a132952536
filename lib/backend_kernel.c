// SPDX-License-Identifier: MIT
/*
 * backend_kernel.c - cards driven by the hellofpga kernel driver
 * (hellofpga.ko), through its /dev/hellofpga<N>_* nodes and the ioctl ABI
 * of include/uapi/hellofpga.h.  Its calls of the nodes are in
 * backend_kernel_node.c, its C2H streams in backend_kernel_stream.c
 * (backend_kernel.h).
 *
 * Nodes used, and how:
 *   _control     opened at HelloFPGA_Open(): GET_INFO (ABI check, geometry),
 *                GET_STATS (counters), PIN / XFER / UNPIN (GPU Direct; pins
 *                belong to this open file, so closing it releases them all),
 *                LAST_ERROR (the driver's text for a failure)
 *   _h2c_C       opened on first use of the channel: pwrite(), the file
 *                position argument being the card address
 *   _c2h_C       likewise with pread()
 *   _user        opened on first user-register access: 4-byte pread/pwrite
 *   _events_U    opened (O_RDONLY | O_NONBLOCK) at the first user-interrupt
 *                wait or GetFd for U, which enables U in the driver; a
 *                4-byte read takes the count (-EAGAIN: none yet), and
 *                user_irq.c poll()s it
 *
 * The backend makes few kinds of system calls (access, open, close, read,
 * pread, pwrite, ioctl; poll() of the events nodes, whose double gives
 * them real pollable descriptors), so that a test double of the driver
 * (tests/fakedev/) can stand in for hellofpga.ko by interposing them.
 *
 * Exclusion: api.c takes the handle's per-channel mutex around every
 * transfer, which also guards the lazy open of a channel's node.  Between
 * processes the driver serialises each engine itself (a transfer holds the
 * engine for its whole run; one that waits for it longer than its timeout
 * fails with -EBUSY), so the library takes no file lock of its own:
 * dev->lock_fd stays -1.  A flock() on the node would only add a second,
 * advisory serialisation that other users of the nodes (dd, other tools)
 * would not honour anyway.
 *
 * User BAR: 4-byte pread/pwrite on _user rather than an mmap(): one system
 * call per register access (about a microsecond; user registers are a
 * control path), no SIGBUS when the card goes away, the driver can refuse
 * unaligned or out-of-range accesses with an errno, and the test double
 * needs no mmap interposition.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_kernel.h"
#include "gpu.h"
#include "gpu_dmabuf.h"
#include "hf_abi.h"
#include "hf_number.h"
#include "hf_user_pages.h"

/* GET_INFO's irq_mode is passed on as HELLOFPGA_INFO's */
HF_ABI_SAME(HELLOFPGA_IRQ_POLL, HELLOFPGA_IRQ_MODE_POLL);
HF_ABI_SAME(HELLOFPGA_IRQ_LEGACY, HELLOFPGA_IRQ_MODE_LEGACY);
HF_ABI_SAME(HELLOFPGA_IRQ_MSI, HELLOFPGA_IRQ_MODE_MSI);
HF_ABI_SAME(HELLOFPGA_IRQ_MSIX, HELLOFPGA_IRQ_MODE_MSIX);
/* the GPU Direct directions are XFER's */
HF_ABI_SAME(HELLOFPGA_DIR_H2C, HELLOFPGA_XFER_H2C);
HF_ABI_SAME(HELLOFPGA_DIR_C2H, HELLOFPGA_XFER_C2H);
/* a failed XFER_WB's word is what the library marks a failed submission's */
HF_ABI_SAME(HELLOFPGA_XFER_WB_ERROR, HELLOFPGA_XFER_WB_FAILED);
/* the slots of STREAM_WB_PIN are the library's */
HF_ABI_SAME(XDMA_STM_WB_SIZE, 32);

#define HF_EMU_HINT \
	"To develop without a card, use the emulated card: set HELLOFPGA_DEVICE=emu or open \"emu\"."

#define KB_MAX_CARDS	64		/* cards probed by Open(NULL) */
#define KB_MAX_IO	(1u << 30)	/* bytes per pread/pwrite call */
#define KB_MODULE_DIR	"/sys/module/hellofpga"

static bool driver_loaded(void)
{
	return access(KB_MODULE_DIR, F_OK) == 0;
}

static void kcard_close_fds(struct kcard *kc)
{
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			if (kc->ch_fd[d][c] >= 0)
				close(kc->ch_fd[d][c]);
	if (kc->user_fd >= 0)
		close(kc->user_fd);
	for (int i = 0; i < XDMA_USER_IRQS; i++)
		if (kc->events_fd[i] >= 0)
			close(kc->events_fd[i]);
	if (kc->ctl_fd >= 0)
		close(kc->ctl_fd);
}

static void kcard_free(struct kcard *kc)
{
	if (!kc)
		return;
	kcard_close_fds(kc);
	pthread_mutex_destroy(&kc->user_lock);
	free(kc);
}

static void kernel_close(struct hellofpga_dev *dev)
{
	kcard_free(dev->priv);
	dev->priv = NULL;
}

/*
 * fork() child: the nodes hold the parent's pins and channels (the driver
 * ends them when the last file of an open goes); the child's copies must
 * not keep them alive after the parent closes or dies.  The events nodes
 * go too: they reach the card's shared user-interrupt counts.
 */
static void kernel_fork_child(struct hellofpga_dev *dev)
{
	struct kcard *kc = dev->priv;

	kcard_close_fds(kc);
	/*
	 * The streams' nodes too: the parent's streams end with its files.
	 * No lock (atfork child: another thread of the parent may have held
	 * it); only the thread that forked runs.
	 */
	for (struct hellofpga_stream *s = dev->streams; s; s = s->next) {
		struct kstream *ks = s->bdata;

		if (ks && ks->fd >= 0) {
			close(ks->fd);
			ks->fd = -1;
		}
	}
	memset(kc->ch_fd, 0xff, sizeof(kc->ch_fd));
	memset(kc->events_fd, 0xff, sizeof(kc->events_fd));
	kc->user_fd = -1;
	kc->ctl_fd = -1;
}

/* The node of channel @ch of @dir, opened on first use (channel lock held). */
static int chan_fd(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch)
{
	struct kcard *kc = dev->priv;
	char path[64], node[16];
	int fd = kc->ch_fd[dir][ch];

	if (fd >= 0)
		return fd;
	snprintf(node, sizeof(node), "%s_%d", dir == XDMA_H2C ? "h2c" : "c2h",
		 ch);
	knode_path(path, sizeof(path), kc->index, node);
	fd = knode_open(path);
	if (fd < 0)
		return hf_set_error(dev, fd, "%s%d: cannot open %s: %s",
				    hf_dir_name(dir), ch, path, strerror(-fd));
	kc->ch_fd[dir][ch] = fd;
	kc->ch_timeout[dir][ch] = 0;
	return fd;
}

/*
 * The handle's timeout on channel node @fd (HELLOFPGA_IOC_SET_TIMEOUT,
 * ABI 1.2), set when it changed; a driver of ABI 1.0 or 1.1 has only its
 * module parameter timeout_ms for read() and write().
 */
static int chan_timeout(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
			int fd)
{
	struct kcard *kc = dev->priv;
	int ms = __atomic_load_n(&dev->timeout_ms, __ATOMIC_RELAXED), ret;
	struct hellofpga_timeout t = { .timeout_ms = (uint32_t)ms };

	if (kc->abi_minor < 2 || kc->ch_timeout[dir][ch] == ms)
		return 0;
	ret = kioctl(fd, HELLOFPGA_IOC_SET_TIMEOUT, &t);
	if (ret)
		return kfail(dev, fd, ret, "%s%d: SET_TIMEOUT of %d ms failed",
			     hf_dir_name(dir), ch, ms);
	kc->ch_timeout[dir][ch] = ms;
	return 0;
}

/*
 * Errors of a read() or write() of the driver that can come after its
 * engine ran (docs/driver-stop.md): timeout, fatal signal, cancel,
 * removal, an engine error (or a wedged channel's refusal, which -EIO does
 * not tell apart).
 */
static bool engine_may_have_run(int err)
{
	return err == -ETIMEDOUT || err == -EINTR || err == -ECANCELED ||
	       err == -ENODEV || err == -EIO;
}

/**
 * packet_check() - whether the driver sends an H2C packet of an AXI-Stream
 *	card (api.c lets only H2C with card address 0 through on one).
 * @dev: the handle
 * @dir: direction
 * @ch: channel
 *
 * Return: 0 (a memory-mapped card, or a driver with
 * HELLOFPGA_FEAT_STREAM_H2C), else -EOPNOTSUPP with the reason.
 */
static int packet_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			int ch)
{
	struct kcard *kc = dev->priv;

	if (!dev->stream || dir != XDMA_H2C ||
	    (kc->features & HELLOFPGA_FEAT_STREAM_H2C))
		return 0;
	return hf_set_error(dev, -EOPNOTSUPP,
			    "H2C%d: the driver (ABI 1.%u) sends no packets to an AXI-Stream H2C channel: no HELLOFPGA_FEAT_STREAM_H2C (drivers of ABI 1.4 and later send them)",
			    ch, kc->abi_minor);
}

/*
 * An H2C packet of an AXI-Stream card: one pwrite() at position 0, never
 * split (the driver sends it whole or fails; a short count is no packet).
 */
static int kernel_packet(struct hellofpga_dev *dev, int ch, int fd,
			 const void *buf, size_t len, size_t *actual)
{
	ssize_t r;

	do
		r = pwrite(fd, buf, len, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		int err = -errno;

		*actual = engine_may_have_run(err) ? len : 0;
		return kfail(dev, fd, err,
			     "H2C%d: pwrite of a packet of 0x%zx bytes failed",
			     ch, len);
	}
	if ((size_t)r != len) {
		*actual = len;
		return hf_set_error(dev, -EIO,
				    "H2C%d: the driver took 0x%zx bytes of a packet of 0x%zx",
				    ch, (size_t)r, len);
	}
	*actual = len;
	return 0;
}

/**
 * kernel_xfer() - CPU-path transfer: pwrite() to the H2C node or pread()
 * from the C2H node, the card address as file position.
 *
 * Short transfers are continued and EINTR retried, so *@actual ends as the
 * bytes the driver moved.  A read() or write() that fails after the engine
 * ran (or after a short one, whose failed chunk may have moved bytes
 * beyond what it returned) reports only the error, not the bytes its
 * failed chunk moved: *@actual then counts all of that call's range, every
 * byte the card may have written.
 *
 * Return: 0, or negative errno with the driver's text.
 */
static int kernel_xfer(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		       void *buf, uint64_t card, size_t len,
		       const struct timespec *dl, size_t *actual)
{
	int fd = chan_fd(dev, dir, ch), ret;
	bool was_short = false;
	size_t done = 0;

	*actual = 0;
	if (fd < 0)
		return fd;
	/* a bad page deep inside: -EFAULT before the pieces before it move */
	ret = hf_user_buf_check(dev, dir, buf, len);
	if (!ret)
		ret = packet_check(dev, dir, ch);
	if (!ret)
		ret = chan_timeout(dev, dir, ch, fd);
	if (ret)
		return ret;
	if (dev->stream)
		return kernel_packet(dev, ch, fd, buf, len, actual);
	while (done < len) {
		size_t n = min_t(size_t, len - done, KB_MAX_IO);
		off_t at = (off_t)(card + done);
		ssize_t r;

		if (dir == XDMA_H2C)
			r = pwrite(fd, (const char *)buf + done, n, at);
		else
			r = pread(fd, (char *)buf + done, n, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			*actual = done;
			if (was_short || engine_may_have_run(err))
				*actual += n;
			return kfail(dev, fd, err,
				     "%s%d: %s of 0x%zx bytes at card address 0x%llx failed",
				     hf_dir_name(dir), ch,
				     dir == XDMA_H2C ? "pwrite" : "pread", n,
				     (unsigned long long)at);
		}
		if (r == 0) {
			*actual = done;
			return hf_set_error(dev, -EIO,
					    "%s%d: the driver moved no bytes at card address 0x%llx (0x%zx of 0x%zx done)",
					    hf_dir_name(dir), ch,
					    (unsigned long long)at, done, len);
		}
		done += (size_t)r;
		was_short = (size_t)r < n;
	}
	*actual = done;
	return 0;
}

/* The _user node, opened on first use. */
static int user_fd(struct hellofpga_dev *dev)
{
	struct kcard *kc = dev->priv;
	char path[64];
	int fd;

	pthread_mutex_lock(&kc->user_lock);
	fd = kc->user_fd;
	if (fd < 0) {
		knode_path(path, sizeof(path), kc->index, "user");
		fd = knode_open(path);
		if (fd >= 0)
			kc->user_fd = fd;
		else
			hf_set_error(dev, fd, "cannot open %s: %s", path,
				     strerror(-fd));
	}
	pthread_mutex_unlock(&kc->user_lock);
	return fd;
}

static int user_io(struct hellofpga_dev *dev, uint32_t off, uint32_t *val,
		   bool write)
{
	int fd = user_fd(dev);
	ssize_t r;

	if (fd < 0)
		return fd;
	do {
		r = write ? pwrite(fd, val, 4, off) : pread(fd, val, 4, off);
	} while (r < 0 && errno == EINTR);
	if (r == 4)
		return 0;
	if (r >= 0)
		return hf_set_error(dev, -EIO,
				    "user BAR %s at 0x%x moved %zd of 4 bytes",
				    write ? "write" : "read", off, r);
	return kfail(dev, fd, -errno, "user BAR %s at 0x%x failed",
		     write ? "write" : "read", off);
}

static int kernel_user_read32(struct hellofpga_dev *dev, uint32_t off,
			      uint32_t *val)
{
	return user_io(dev, off, val, false);
}

static int kernel_user_write32(struct hellofpga_dev *dev, uint32_t off,
			       uint32_t val)
{
	return user_io(dev, off, &val, true);
}

/* Counters: the driver's interrupt count; the rest is the handle's own. */
static void kernel_counters(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c)
{
	struct kcard *kc = dev->priv;
	struct hellofpga_stats st;

	c->model_valid = 0;
	memset(&st, 0, sizeof(st));
	if (!kioctl(kc->ctl_fd, HELLOFPGA_IOC_GET_STATS, &st))
		c->irqs = st.irqs;
}

/* ---- GPU Direct ---- */

/**
 * pin_override() - the pin type HELLOFPGA_PIN forces, for tests.
 * @dev: the handle (for the error text)
 * @type: receives HELLOFPGA_PIN_*, or 0 for the automatic choice
 *
 * HELLOFPGA_PIN=cuda|dmabuf|host; unset, empty or "auto" is the automatic
 * choice.  "cuda" with the emulated GPU needs the emulated GPU's memory to
 * come from an nvidia_p2p stand-in (HELLOFPGA_EMU_GPU_DEV, see
 * tests/guest/kmod/nvp2p-standin).
 *
 * Return: 0, or -EINVAL for an unknown value.
 */
static int pin_override(struct hellofpga_dev *dev, uint32_t *type)
{
	const char *env = getenv("HELLOFPGA_PIN");

	*type = 0;
	if (!env || !*env || !strcmp(env, "auto"))
		return 0;
	if (!strcmp(env, "cuda"))
		*type = HELLOFPGA_PIN_CUDA;
	else if (!strcmp(env, "dmabuf"))
		*type = HELLOFPGA_PIN_DMABUF;
	else if (!strcmp(env, "host"))
		*type = HELLOFPGA_PIN_HOST;
	else
		return hf_set_error(dev, -EINVAL,
				    "HELLOFPGA_PIN=%.32s is unknown: use auto, cuda, dmabuf or host",
				    env);
	return 0;
}

/**
 * cuda_range() - round a PIN_CUDA request out to whole GPU pages.
 * @kc: the card (Tegra pages are 4 KiB, desktop GPU pages 64 KiB)
 * @p: the request; addr and size are rounded out
 *
 * Return: the offset of the buffer in the rounded range.
 */
static uint64_t cuda_range(const struct kcard *kc, struct hellofpga_pin *p)
{
	uint64_t page = kc->features & HELLOFPGA_FEAT_PIN_TEGRA ? 4096 : 65536;
	uint64_t off = p->addr & (page - 1);

	p->addr -= off;
	p->size = (off + p->size + page - 1) & ~(page - 1);
	return off;
}

/**
 * kernel_gpu_pin() - pin a GPU range with HELLOFPGA_IOC_PIN.
 *
 * The emulated GPU's memory is host memory: PIN_HOST.  A real GPU: PIN_CUDA
 * when the driver has an nvidia_p2p provider (desktop or Tegra; the driver
 * checks which), else PIN_DMABUF over a dma-buf CUDA exports for the range,
 * when the driver imports dma-bufs.  HELLOFPGA_PIN overrides the choice
 * (pin_override()).  PIN_CUDA pins whole GPU pages (64 KiB desktop, 4 KiB
 * Tegra): the range is rounded out to them, inside the allocation (which
 * is made of whole GPU pages), and transfers are offset to the buffer.
 *
 * Return: 0 or negative errno with the error text set.
 */
static int kernel_gpu_pin(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	struct kcard *kc = dev->priv;
	const struct hf_gpu *g = hf_gpu_get();
	struct hellofpga_pin p;
	struct kpin *kp;
	const uint64_t nvp2p = HELLOFPGA_FEAT_PIN_NVP2P |
			       HELLOFPGA_FEAT_PIN_TEGRA;
	uint64_t dmabuf_off = 0, off = 0;
	const char *what, *how = "";
	uint32_t forced, type;
	int dmabuf = -1, ret;

	ret = pin_override(dev, &forced);
	if (ret)
		return ret;
	/* Which kind of pin: forced by HELLOFPGA_PIN, else by GPU and driver. */
	if (forced == HELLOFPGA_PIN_CUDA && !(kc->features & nvp2p))
		return hf_set_error(dev, -EOPNOTSUPP,
				    "HELLOFPGA_PIN=cuda, but the driver has no nvidia_p2p provider (features 0x%llx): load hellofpga-nvp2p.ko",
				    (unsigned long long)kc->features);
	if (forced) {
		type = forced;
		how = " (forced by HELLOFPGA_PIN)";
	} else if (g->kind == HF_GPU_EMU) {
		if (!(kc->features & HELLOFPGA_FEAT_PIN_HOST))
			return hf_set_error(dev, -EOPNOTSUPP,
					    "the emulated GPU's memory is pinned as host memory, but the driver lacks HELLOFPGA_FEAT_PIN_HOST (features 0x%llx)",
					    (unsigned long long)kc->features);
		type = HELLOFPGA_PIN_HOST;
		how = " (emulated GPU)";
	} else if (kc->features & nvp2p) {
		type = HELLOFPGA_PIN_CUDA;
	} else if (kc->features & HELLOFPGA_FEAT_PIN_DMABUF) {
		type = HELLOFPGA_PIN_DMABUF;
	} else {
		return hf_set_error(dev, -EOPNOTSUPP,
				    "the driver has no GPU memory provider (features 0x%llx: no nvidia_p2p, Tegra or dma-buf pinning); load nvidia.ko with P2P support before hellofpga.ko",
				    (unsigned long long)kc->features);
	}

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.addr = (uintptr_t)pin->gpu;
	p.size = pin->size;
	p.fd = -1;
	if (type == HELLOFPGA_PIN_CUDA) {
		off = cuda_range(kc, &p);
		what = "CUDA (nvidia_p2p)";
	} else if (type == HELLOFPGA_PIN_DMABUF) {
		ret = hf_gpu_dmabuf_export(pin->gpu, pin->size, &dmabuf,
					   &dmabuf_off);
		if (ret)
			return hf_set_error(dev, ret,
					    "%s, and CUDA cannot export [%p, +0x%zx) as a dma-buf: %s",
					    forced ? "HELLOFPGA_PIN=dmabuf" :
					    "the driver pins GPU memory only through dma-buf",
					    pin->gpu, pin->size,
					    hf_last_error(NULL));
		p.fd = dmabuf;
		p.addr = dmabuf_off;
		what = "dma-buf";
	} else {
		what = "host";
	}
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_PIN, &p);
	if (dmabuf >= 0)
		close(dmabuf);	/* the driver holds its own reference */
	if (ret)
		return kfail(dev, kc->ctl_fd, ret,
			     "cannot pin [%p, +0x%zx) as %s memory%s",
			     pin->gpu, pin->size, what, how);
	kp = malloc(sizeof(*kp));
	if (!kp) {
		struct hellofpga_unpin u = { .handle = p.handle };

		kioctl(kc->ctl_fd, HELLOFPGA_IOC_UNPIN, &u);
		return hf_set_error(dev, -ENOMEM, "out of memory");
	}
	kp->handle = p.handle;
	kp->type = p.type;
	kp->off = off;
	pin->bdata = kp;
	return 0;
}

static void kernel_gpu_unpin(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	struct kcard *kc = dev->priv;
	struct kpin *kp = pin->bdata;
	struct hellofpga_unpin u;
	int ret;

	if (!kp)
		return;
	memset(&u, 0, sizeof(u));
	u.handle = kp->handle;
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_UNPIN, &u);
	if (ret)
		hf_os_log("%s: UNPIN of driver handle 0x%llx failed (%d)",
			  dev->info.name, (unsigned long long)kp->handle, ret);
	free(kp);
	pin->bdata = NULL;
}

static int kernel_gpu_xfer(struct hellofpga_dev *dev, struct hf_pin *pin,
			   enum hf_xdma_dir dir, int ch, size_t off,
			   uint64_t card, size_t len, int timeout_ms,
			   const struct timespec *dl,
			   const struct hf_xfer_wb *wb, size_t *actual)
{
	struct kcard *kc = dev->priv;
	struct kpin *kp = pin->bdata;
	struct hellofpga_xfer x;
	int ret;

	/* @wb comes only from a kernel_wb_map() that found XFER_WB */
	*actual = 0;
	ret = packet_check(dev, dir, ch);
	if (ret)
		return ret;
	memset(&x, 0, sizeof(x));
	if (wb) {
		x.flags = HELLOFPGA_XFER_WB;
		x.wb_handle = wb->map;
		x.wb_offset = wb->off;
	}
	x.handle = kp->handle;
	x.buf_offset = kp->off + off;
	x.card_addr = card;
	x.length = len;
	x.dir = dir == XDMA_H2C ? HELLOFPGA_XFER_H2C : HELLOFPGA_XFER_C2H;
	x.channel = ch;
	x.timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_XFER, &x);
	*actual = min_t(uint64_t, x.bytes, len);
	if (!ret)
		return 0;
	ret = kfail(dev, kc->ctl_fd, ret,
		    "%s%d: XFER of 0x%zx bytes at offset 0x%zx of the pin, card address 0x%llx failed",
		    hf_dir_name(dir), ch, len, off, (unsigned long long)card);
	/*
	 * XFER takes no user pointer: its -EFAULT means the pin was revoked
	 * (the GPU memory was freed under it), and -ECANCELED that it was
	 * revoked while the run was in flight; the API reports both as
	 * -ENXIO on every backend.
	 */
	if (ret == -EFAULT || ret == -ECANCELED)
		ret = hf_set_error(dev, -ENXIO, "%s",
				   hf_last_error(dev));
	return ret;
}

/*
 * Writeback words of GPU-side completion (submit.c): host memory pinned
 * on the control node (PIN_HOST), named by the driver's handle; an XFER
 * with HELLOFPGA_XFER_WB sends its run's writeback to a word of it.
 */
static int kernel_wb_map(struct hellofpga_dev *dev, void *mem, size_t len,
			 uint64_t *map)
{
	struct kcard *kc = dev->priv;
	struct hellofpga_pin p;
	int ret;

	if (!(kc->features & HELLOFPGA_FEAT_XFER_WB))
		return hf_set_error(dev, -EOPNOTSUPP, "%s",
				    "the driver cannot send a transfer's writeback to a word of the caller's (no HELLOFPGA_FEAT_XFER_WB: a driver of ABI 1.4 or later has it)");
	memset(&p, 0, sizeof(p));
	p.type = HELLOFPGA_PIN_HOST;
	p.addr = (uintptr_t)mem;
	p.size = (len + 4095) & ~(size_t)4095;
	p.fd = -1;
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_PIN, &p);
	if (ret)
		return kfail(dev, kc->ctl_fd, ret,
			     "cannot pin %zu bytes of writeback words for the card",
			     len);
	*map = p.handle;
	return 0;
}

static void kernel_wb_unmap(struct hellofpga_dev *dev, uint64_t map)
{
	struct kcard *kc = dev->priv;
	struct hellofpga_unpin u;

	memset(&u, 0, sizeof(u));
	u.handle = map;
	if (kc->ctl_fd >= 0 && kioctl(kc->ctl_fd, HELLOFPGA_IOC_UNPIN, &u))
		hf_os_log("%s: UNPIN of the writeback words (driver handle 0x%llx) failed",
			  dev->info.name, (unsigned long long)map);
}

/* Arm user interrupt @irq: open its events node, which enables it. */
static int kernel_uirq_arm(struct hellofpga_dev *dev, int irq, int *fd)
{
	struct kcard *kc = dev->priv;
	char path[64], node[16];
	int r;

	if (!(kc->features & HELLOFPGA_FEAT_USER_EVENTS))
		return hf_set_error(dev, -EOPNOTSUPP,
				    "user interrupt %d: the driver offers no user interrupts for %s (no HELLOFPGA_FEAT_USER_EVENTS: the card has no interrupt vectors and runs in poll mode)",
				    irq, dev->info.name);
	snprintf(node, sizeof(node), "events_%d", irq);
	knode_path(path, sizeof(path), kc->index, node);
	do {
		r = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		int err = -errno;

		if (err == -ENOENT || err == -ENXIO)
			err = -ENODEV;
		return hf_set_error(dev, err,
				    "user interrupt %d: cannot open %s: %s%s",
				    irq, path, strerror(errno),
				    err == -EACCES || err == -EPERM ?
				    " (the driver's udev rule gives the nodes to a group; join it, or run as root)" :
				    "");
	}
	kc->events_fd[irq] = r;
	*fd = r;
	return 0;
}

/* Take the count of @irq: a non-blocking 4-byte read of its events node. */
static int kernel_uirq_take(struct hellofpga_dev *dev, int irq,
			    uint32_t *count)
{
	struct kcard *kc = dev->priv;
	int fd = kc->events_fd[irq];
	uint32_t n;
	ssize_t r;

	do {
		r = read(fd, &n, sizeof(n));
	} while (r < 0 && errno == EINTR);
	if (r == sizeof(n)) {
		*count = n;
		return 1;
	}
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (r >= 0)
		return hf_set_error(dev, -EIO,
				    "user interrupt %d: read of its events node returned %zd bytes, not 4",
				    irq, r);
	return kfail(dev, fd, -errno, "user interrupt %d: read of its events node failed",
		     irq);
}


static const struct hf_backend_ops kernel_ops = {
	.name = "kernel driver",
	.close = kernel_close,
	.fork_child = kernel_fork_child,
	.xfer = kernel_xfer,
	.user_read32 = kernel_user_read32,
	.user_write32 = kernel_user_write32,
	.counters = kernel_counters,
	.gpu_pin = kernel_gpu_pin,
	.gpu_unpin = kernel_gpu_unpin,
	.gpu_xfer = kernel_gpu_xfer,
	.wb_map = kernel_wb_map,
	.wb_unmap = kernel_wb_unmap,
	.uirq_arm = kernel_uirq_arm,
	.uirq_take = kernel_uirq_take,
	.stream_start = kernel_stream_start,
	.stream_wait = kernel_stream_wait,
	.stream_release = kernel_stream_release,
	.stream_kick = kernel_stream_kick,
	.stream_stats = kernel_stream_stats,
	.stream_stop = kernel_stream_stop,
	.stream_gpu_slot = kernel_stream_gpu_slot,
	.stream_gpu_doorbells = kernel_stream_gpu_doorbells,
};

/*
 * Card number of "/dev/hellofpgaN" or "/dev/hellofpgaN_control", N
 * 0..9999 a number of the one grammar (README.md, "Numbers"); -EINVAL for
 * anything else.
 */
static int parse_path(const char *path, unsigned int *card)
{
	static const char pfx[] = "/dev/hellofpga";
	const char *p = path + sizeof(pfx) - 1;
	char num[16];
	size_t n;
	u64 v;

	if (strncmp(path, pfx, sizeof(pfx) - 1))
		return -EINVAL;
	n = strcspn(p, "_");
	if (n >= sizeof(num) || (p[n] && strcmp(p + n, "_control")))
		return -EINVAL;
	memcpy(num, p, n);
	num[n] = '\0';
	if (hf_parse_number(num, 0, 9999, &v))
		return -EINVAL;
	*card = v;
	return 0;
}

/* Lowest N with a /dev/hellofpgaN_control node, or -ENODEV. */
static int find_first_card(unsigned int *card)
{
	char path[64];

	for (unsigned int n = 0; n < KB_MAX_CARDS; n++) {
		knode_path(path, sizeof(path), n, "control");
		if (!access(path, F_OK)) {
			*card = n;
			return 0;
		}
	}
	return -ENODEV;
}

/**
 * read_pci_info() - the handle's PCI info from GET_INFO.
 * @dev: the handle
 * @hi: GET_INFO's answer, ABI major checked
 *
 * ABI 1.1 added the 64-bit user BAR size and the 32-bit PCI domain; a
 * driver of ABI 1.0 has only the 32-bit size and the domain in the upper
 * 16 bits of pci_bdf.
 */
static void read_pci_info(struct hellofpga_dev *dev,
			  const struct hellofpga_info *hi)
{
	HELLOFPGA_PCI_INFO *p = &dev->pci;

	p->valid = 1;
	p->domain = hi->pci_bdf >> 16;
	p->bus = hi->pci_bdf >> 8 & 0xff;
	p->device = hi->pci_bdf >> 3 & 0x1f;
	p->function = hi->pci_bdf & 7;
	p->vendor_id = hi->pci_vendor;
	p->device_id = hi->pci_device;
	p->user_bar_size = hi->user_bar_size;
	if (hi->abi_minor >= 1) {
		p->domain = hi->pci_domain;
		p->user_bar_size = hi->user_bar_size64;
	}
}

/* GET_INFO, ABI check and the handle's info. */
static int read_info(struct hellofpga_dev *dev, struct kcard *kc,
		     const char *name)
{
	struct hellofpga_info hi;
	int ret;

	memset(&hi, 0, sizeof(hi));
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_GET_INFO, &hi);
	if (ret == -ENOTTY)
		return hf_set_error(dev, -EPROTO,
				    "%s: GET_INFO is not understood (ENOTTY): not a hellofpga driver node, or a driver older than ABI %d.x",
				    name, HELLOFPGA_ABI_MAJOR);
	if (ret)
		return kfail(dev, kc->ctl_fd, ret, "%s: GET_INFO failed",
			     name);
	if (hi.abi_major != HELLOFPGA_ABI_MAJOR)
		return hf_set_error(dev, -EPROTO,
				    "%s: driver ABI %u.%u, library needs %d.x: install a matching libhellofpga or hellofpga.ko",
				    name, hi.abi_major, hi.abi_minor,
				    HELLOFPGA_ABI_MAJOR);
	if (hi.num_h2c < 1 || hi.num_h2c > XDMA_MAX_CHANNELS ||
	    hi.num_c2h < 1 || hi.num_c2h > XDMA_MAX_CHANNELS || !hi.ddr_size)
		return hf_set_error(dev, -EPROTO,
				    "%s: the driver reports %u H2C / %u C2H channels and 0x%llx bytes of card memory (1..%d channels each way and memory expected)",
				    name, hi.num_h2c, hi.num_c2h,
				    (unsigned long long)hi.ddr_size,
				    XDMA_MAX_CHANNELS);

	kc->features = hi.features;
	kc->abi_minor = hi.abi_minor;
	dev->stream = hi.abi_minor >= 3 && (hi.features & HELLOFPGA_FEAT_STREAM);
	snprintf(dev->info.name, sizeof(dev->info.name), "%s", name);
	dev->info.backend = HELLOFPGA_BACKEND_KERNEL;
	snprintf(dev->info.backend_name, sizeof(dev->info.backend_name), "%s",
		 kernel_ops.name);
	dev->info.num_h2c = hi.num_h2c;
	dev->info.num_c2h = hi.num_c2h;
	dev->info.ddr_size = hi.ddr_size;
	dev->info.ip_version = hi.ip_version;
	dev->info.addr_align = hi.addr_align ? hi.addr_align : 1;
	dev->info.len_granularity = hi.len_granularity ? hi.len_granularity : 1;
	dev->info.irq_mode = hi.irq_mode;
	hi.driver_version[sizeof(hi.driver_version) - 1] = '\0';
	snprintf(dev->info.driver_version, sizeof(dev->info.driver_version),
		 "%s", hi.driver_version);
	dev->info.abi_version = hi.abi_major << 16 | (hi.abi_minor & 0xffff);
	dev->info.features = hi.features;
	read_pci_info(dev, &hi);
	/* The driver's timeout is the handle's default (GPU Direct passes it). */
	if (hi.timeout_ms >= 1 && hi.timeout_ms <= HF_MAX_TIMEOUT_MS)
		dev->timeout_ms = hi.timeout_ms;
	return 0;
}

/**
 * hf_kernel_open() - open a hardware card through hellofpga.ko.
 * @dev: the handle being opened
 * @path: "/dev/hellofpgaN" or "/dev/hellofpgaN_control", or NULL for the
 *	lowest-numbered card
 *
 * Return: 0, or -ENODEV (no driver, no such card; the text points at the
 * emulated card), -EINVAL (malformed name), -EACCES, -EPROTO (driver of
 * another ABI major version), -ENOMEM, or the driver's errno.
 */
int hf_kernel_open(struct hellofpga_dev *dev, const char *path)
{
	char ctl[64], name[64];
	struct kcard *kc;
	unsigned int card;
	int ret;

	if (path) {
		if (parse_path(path, &card))
			return hf_set_error(dev, -EINVAL,
					    "unknown card name '%s': hardware cards are \"/dev/hellofpgaN\" (or NULL / \"\" for the first one)",
					    path);
		snprintf(name, sizeof(name), "%s", path);
	} else if (find_first_card(&card)) {
		if (!driver_loaded())
			return hf_set_error(dev, -ENODEV,
					    "cannot open the first hardware card: no hellofpga card found (driver not loaded: no " KB_MODULE_DIR ", no /dev/hellofpga*). "
					    HF_EMU_HINT);
		return hf_set_error(dev, -ENODEV,
				    "cannot open the first hardware card: the hellofpga driver is loaded but no card is bound to it (no /dev/hellofpga<N>_control). "
				    HF_EMU_HINT);
	} else {
		snprintf(name, sizeof(name), "/dev/hellofpga%u", card);
	}
	knode_path(ctl, sizeof(ctl), card, "control");

	kc = calloc(1, sizeof(*kc));
	if (!kc)
		return hf_set_error(dev, -ENOMEM, "out of memory");
	kc->index = card;
	kc->user_fd = -1;
	for (int i = 0; i < XDMA_USER_IRQS; i++)
		kc->events_fd[i] = -1;
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			kc->ch_fd[d][c] = -1;
	pthread_mutex_init(&kc->user_lock, NULL);
	kc->ctl_fd = knode_open(ctl);
	if (kc->ctl_fd < 0) {
		ret = kc->ctl_fd;
		if (ret == -ENOENT || ret == -ENXIO || ret == -ENODEV)
			ret = hf_set_error(dev, -ENODEV,
					   "cannot open %s: no such card (%s: %s%s). "
					   HF_EMU_HINT, name, ctl,
					   strerror(-ret),
					   driver_loaded() ? "" :
					   "; driver not loaded");
		else if (ret == -EACCES || ret == -EPERM)
			ret = hf_set_error(dev, ret,
					   "cannot open %s: %s: permission denied (the driver's udev rule gives the nodes to a group; join it, or run as root)",
					   name, ctl);
		else
			ret = hf_set_error(dev, ret, "cannot open %s: %s",
					   ctl, strerror(-ret));
		goto err;
	}
	ret = read_info(dev, kc, name);
	if (ret)
		goto err;
	dev->priv = kc;
	dev->ops = &kernel_ops;
	return 0;
err:
	kcard_free(kc);
	return ret;
}
