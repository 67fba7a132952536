// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of Xilinx's reference XDMA driver that its tools use, on the
 * h2c and c2h nodes, with Xilinx's numbers and semantics
 * (include/uapi/hellofpga_xdma.h):
 *
 *   APERTURE_W / APERTURE_R   a transfer whose card addresses wrap inside
 *                             [ep_addr, ep_addr + aperture): dma_to_device -k
 *                             and dma_from_device -k
 *   ALIGN_GET                 the engine's address alignment
 *   ADDRMODE_GET / _SET       incremental addressing only
 *
 * An aperture transfer is validated like every other input (node and
 * direction, window, card memory, the engine's alignment) and then takes
 * the read()/write() path of hf_xfer.c with a card address window.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "hf_drv.h"
#include "../include/uapi/hellofpga_xdma.h"

/**
 * hf_xdma_aperture_check() - validate an aperture request.
 * @hf: the file
 * @chan: its engine
 * @io: the request; @io->len may be cut to MAX_RW_COUNT
 * @what: "APERTURE_W" or "APERTURE_R", for the error texts
 *
 * Return: 0, or a negative errno with the file's last error set.
 */
static int hf_xdma_aperture_check(struct hf_file *hf, struct hf_chan *chan,
				  struct hellofpga_xdma_aperture *io,
				  const char *what)
{
	struct hf_card *card = hf->card;
	u64 align = chan->engine.addr_align, gran = chan->engine.len_gran;
	u64 touched;

	if (!io->aperture) {
		hf_set_error(hf, -EINVAL, "%s: aperture 0", what);
		return -EINVAL;
	}
	if (io->aperture - 1 > U64_MAX - io->ep_addr) {
		hf_set_error(hf, -EOVERFLOW,
			     "%s: window 0x%llx + 0x%x wraps the address space",
			     what, io->ep_addr, io->aperture);
		return -EOVERFLOW;
	}
	io->len = min_t(unsigned long, io->len, MAX_RW_COUNT);
	touched = min_t(u64, io->len, io->aperture);
	if (io->len && !hf_card_range_ok(card, io->ep_addr, touched)) {
		hf_set_error(hf, -ERANGE,
			     "%s: window 0x%llx + 0x%llx past the end of card memory (ddr_size 0x%llx)",
			     what, io->ep_addr, touched, card->ddr_size);
		return -ERANGE;
	}
	if (align > 1 &&
	    (!IS_ALIGNED(io->buffer, align) || !IS_ALIGNED(io->ep_addr, align) ||
	     !IS_ALIGNED(io->len, gran) || !IS_ALIGNED(io->aperture, align) ||
	     !IS_ALIGNED(io->aperture, gran))) {
		hf_set_error(hf, -EINVAL,
			     "%s: the engine needs buffer, card address and aperture aligned to %llu bytes and length and aperture to %llu",
			     what, align, gran);
		return -EINVAL;
	}
	return 0;
}

/**
 * hf_xdma_aperture() - IOCTL_XDMA_APERTURE_W (h2c) or _R (c2h).
 * @hf: the file
 * @uarg: user pointer to struct hellofpga_xdma_aperture
 * @write: APERTURE_W
 *
 * Return: 0 with @error 0 and @done the bytes moved (fewer than asked when
 * a later part failed), or a negative errno, also in @error, with @done 0:
 * those of hf_xdma_aperture_check() and hf_xfer_window(), -EINVAL for the
 * wrong node, -EBADF for a node not open for writing (APERTURE_W) or
 * reading (APERTURE_R).
 */
static long hf_xdma_aperture(struct hf_file *hf, void __user *uarg,
			     bool write)
{
	const char *what = write ? "APERTURE_W" : "APERTURE_R";
	struct hellofpga_xdma_aperture io;
	struct hf_card_window win;
	struct hf_chan *chan;
	ssize_t ret;

	if (copy_from_user(&io, uarg, sizeof(io))) {
		hf_set_error(hf, -EFAULT, "%s: bad argument pointer", what);
		return -EFAULT;
	}
	io.done = 0;
	if (hf->type != (write ? HF_NODE_H2C : HF_NODE_C2H)) {
		ret = -EINVAL;
		hf_set_error(hf, ret, "%s is an ioctl of the %s nodes", what,
			     write ? "h2c" : "c2h");
		goto out;
	}
	/* as write() and read() of the node: the open file's mode decides */
	if (!(hf->filp->f_mode & (write ? FMODE_WRITE : FMODE_READ))) {
		ret = -EBADF;
		hf_set_error(hf, ret, "%s: the node is not open for %s", what,
			     write ? "writing" : "reading");
		goto out;
	}
	chan = &hf->card->chans[write ? XDMA_H2C : XDMA_C2H][hf->index];
	ret = hf_xdma_aperture_check(hf, chan, &io, what);
	if (ret || !io.len)
		goto out;
	win.base = io.ep_addr;
	win.size = io.aperture;
	ret = hf_xfer_window(hf, chan, (char __user *)io.buffer, io.len, &win);
	if (ret > 0) {
		io.done = ret;
		ret = 0;
	}
out:
	io.error = ret;
	if (copy_to_user(uarg, &io, sizeof(io))) {
		hf_set_error(hf, -EFAULT, "%s: bad argument pointer", what);
		return -EFAULT;
	}
	return ret;
}

/**
 * hf_xdma_ioctl() - the Xilinx reference driver's ioctls.
 * @hf: the file
 * @cmd: HELLOFPGA_XDMA_IOC_*
 * @uarg: user pointer argument
 *
 * Return: 0 or a negative errno; -ENOTTY for any other command, or for
 * these on a node other than h2c and c2h.
 */
long hf_xdma_ioctl(struct hf_file *hf, unsigned int cmd, void __user *uarg)
{
	struct hf_chan *chan;
	int mode;

	if (hf->type != HF_NODE_H2C && hf->type != HF_NODE_C2H)
		return -ENOTTY;
	chan = &hf->card->chans[hf->type == HF_NODE_H2C ? XDMA_H2C :
				XDMA_C2H][hf->index];
	switch (cmd) {
	case HELLOFPGA_XDMA_IOC_APERTURE_W:
		return hf_xdma_aperture(hf, uarg, true);
	case HELLOFPGA_XDMA_IOC_APERTURE_R:
		return hf_xdma_aperture(hf, uarg, false);
	case HELLOFPGA_XDMA_IOC_ALIGN_GET:
		if (put_user((int)chan->engine.addr_align, (int __user *)uarg))
			goto efault;
		return 0;
	case HELLOFPGA_XDMA_IOC_ADDRMODE_GET:
		if (put_user(HELLOFPGA_XDMA_ADDRMODE_MEMORY,
			     (int __user *)uarg))
			goto efault;
		return 0;
	case HELLOFPGA_XDMA_IOC_ADDRMODE_SET:
		if (get_user(mode, (int __user *)uarg))
			goto efault;
		if (mode == HELLOFPGA_XDMA_ADDRMODE_MEMORY)
			return 0;
		hf_set_error(hf, -EOPNOTSUPP,
			     "ADDRMODE_SET %d: only incremental (memory) addressing is supported; a fixed card address is an aperture transfer",
			     mode);
		return -EOPNOTSUPP;
	default:
		return -ENOTTY;
	}

efault:
	hf_set_error(hf, -EFAULT, "bad argument pointer");
	return -EFAULT;
}
