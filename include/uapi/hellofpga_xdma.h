/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * hellofpga_xdma.h - the ioctls of Xilinx's reference XDMA driver that
 * hellofpga.ko also takes, on its h2c and c2h nodes, so that Xilinx's tools
 * (dma_to_device -k, dma_from_device -k) run unchanged.
 *
 * Numbers and layout are those of Xilinx's ABI (dma_ip_drivers,
 * XDMA/linux-kernel/xdma/cdev_sgdma.h), declared again here; they do not
 * follow the rules of hellofpga.h: the aperture structure has native-width
 * fields and implicit padding, and the number encodes the size of a
 * pointer, so a 32-bit process on a 64-bit kernel gets -ENOTTY.
 *
 * HELLOFPGA_XDMA_IOC_APERTURE_W (h2c node), _R (c2h node): move @len bytes
 * between the user buffer @buffer and card memory, byte i at card address
 * @ep_addr + i mod @aperture (descriptors split where the window ends; any
 * @aperture of at least 1 byte, a multiple of the engine's alignment and
 * length granule when it has them).  Returns 0 with @error 0 and @done the
 * bytes moved, fewer than @len when a later part failed (as Xilinx's
 * driver does: a transfer that moved bytes reports them, not the error;
 * the node's HELLOFPGA_IOC_LAST_ERROR then says why); or -1 with errno, @error
 * the negative errno and @done 0 (Xilinx's driver leaves @done as passed).
 * Errors: EINVAL (wrong node, @aperture 0, misaligned), EBADF (the node is
 * not open for writing (W) or reading (R), as write()/read()), EOVERFLOW (the
 * window wraps), ERANGE (beyond card memory), EFAULT, EIO, ETIMEDOUT,
 * ENODEV, EINTR; @len above 2 GiB - 4 KiB is cut there (as read/write).
 *
 * HELLOFPGA_XDMA_IOC_ALIGN_GET: the engine's address alignment (an int).
 * HELLOFPGA_XDMA_IOC_ADDRMODE_GET: 0, incremental addressing (an int).
 * HELLOFPGA_XDMA_IOC_ADDRMODE_SET: 0 only; non-incremental: EOPNOTSUPP.
 * Xilinx's IOCTL_XDMA_PERF_* are not taken (ENOTTY).
 */
#ifndef _UAPI_HELLOFPGA_XDMA_H
#define _UAPI_HELLOFPGA_XDMA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HELLOFPGA_XDMA_IOC_MAGIC	'q'

/**
 * struct hellofpga_xdma_aperture - Xilinx's struct xdma_aperture_ioctl.
 * @ep_addr: in: card (AXI) address of the window
 * @aperture: in: window size in bytes
 * @buffer: in: user buffer address
 * @len: in: bytes
 * @error: out: 0 or a negative errno
 * @done: out: bytes moved
 */
struct hellofpga_xdma_aperture {
	__u64 ep_addr;
	unsigned int aperture;
	__kernel_ulong_t buffer;
	__kernel_ulong_t len;
	int error;
	__kernel_ulong_t done;
};

#define HELLOFPGA_XDMA_ADDRMODE_MEMORY	0

#define HELLOFPGA_XDMA_IOC_ADDRMODE_SET	_IOW(HELLOFPGA_XDMA_IOC_MAGIC, 4, int)
#define HELLOFPGA_XDMA_IOC_ADDRMODE_GET	_IOR(HELLOFPGA_XDMA_IOC_MAGIC, 5, int)
#define HELLOFPGA_XDMA_IOC_ALIGN_GET	_IOR(HELLOFPGA_XDMA_IOC_MAGIC, 6, int)
#define HELLOFPGA_XDMA_IOC_APERTURE_R	\
	_IOW(HELLOFPGA_XDMA_IOC_MAGIC, 7, struct hellofpga_xdma_aperture *)
#define HELLOFPGA_XDMA_IOC_APERTURE_W	\
	_IOW(HELLOFPGA_XDMA_IOC_MAGIC, 8, struct hellofpga_xdma_aperture *)

#endif /* _UAPI_HELLOFPGA_XDMA_H */
