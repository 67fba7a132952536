/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * hellofpga.h - the ioctl ABI of hellofpga.ko, shared verbatim by the driver
 * (driver/) and libhellofpga (lib/backend_kernel.c).
 *
 * Nodes of card N:
 *   /dev/hellofpgaN_control    ioctls below (no capability needed);
 *                              read/write/pread/pwrite of the DMA/config BAR
 *                              (32-bit registers) only for a file opened
 *                              with CAP_SYS_RAWIO, else -EPERM
 *   /dev/hellofpgaN_h2c_C      write()/pwrite(): host memory -> card memory
 *   /dev/hellofpgaN_c2h_C      read()/pread():   card memory -> host memory
 *                              (the file position is the card address);
 *                              both also take Xilinx's ioctls
 *                              (hellofpga_xdma.h)
 *   /dev/hellofpgaN_user       mmap() and pread/pwrite of the user BAR
 *   /dev/hellofpgaN_events_U   read() blocks for user interrupt U (4-byte count)
 *
 * Rules of the ABI: fixed-width fields only, naturally aligned, explicit
 * padding; every flags, pad and reserved field must be zero on input
 * (-EINVAL otherwise) so it can gain meaning later; new behaviour gets a new
 * flag or a new command number, never a changed struct.  Every ioctl
 * returns 0 or -1 with errno; the driver's text for the last failure of the
 * open file is HELLOFPGA_IOC_LAST_ERROR.
 *
 * A transfer (read(), write(), HELLOFPGA_IOC_XFER) waits while another
 * run of any open file holds its channel, for at most its own timeout
 * (HELLOFPGA_IOC_SET_TIMEOUT); then it fails with EBUSY, having moved
 * nothing.
 */
#ifndef _UAPI_HELLOFPGA_H
#define _UAPI_HELLOFPGA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HELLOFPGA_ABI_MAJOR		1
/*
 * Minor 1: info.user_bar_size64 and info.pci_domain; Xilinx's aperture,
 * alignment and address-mode ioctls on the h2c/c2h nodes (hellofpga_xdma.h).
 * Minor 2: HELLOFPGA_IOC_SET_TIMEOUT; a transfer that waits for a busy
 * channel longer than its timeout fails with EBUSY.
 */
#define HELLOFPGA_ABI_MINOR		2

#define HELLOFPGA_IOC_MAGIC		0xb6

/* Feature bits of struct hellofpga_info.features */
#define HELLOFPGA_FEAT_PIN_HOST		(1ULL << 0)	/* PIN of host memory */
#define HELLOFPGA_FEAT_PIN_NVP2P	(1ULL << 1)	/* nvidia_p2p, desktop */
#define HELLOFPGA_FEAT_PIN_NVP2P_PERSISTENT (1ULL << 2) /* ... persistent API */
#define HELLOFPGA_FEAT_PIN_TEGRA	(1ULL << 3)	/* nvidia_p2p, Tegra */
#define HELLOFPGA_FEAT_PIN_DMABUF	(1ULL << 4)	/* dma-buf import */
#define HELLOFPGA_FEAT_POLL_MODE	(1ULL << 5)	/* poll-mode writeback */
#define HELLOFPGA_FEAT_USER_EVENTS	(1ULL << 6)	/* _events_U nodes */

/* Completion modes (struct hellofpga_info.irq_mode) */
#define HELLOFPGA_IRQ_MODE_POLL		0
#define HELLOFPGA_IRQ_MODE_LEGACY	1
#define HELLOFPGA_IRQ_MODE_MSI		2
#define HELLOFPGA_IRQ_MODE_MSIX		3

/* Directions */
#define HELLOFPGA_XFER_H2C		0	/* pinned memory -> card */
#define HELLOFPGA_XFER_C2H		1	/* card -> pinned memory */

/**
 * struct hellofpga_info - HELLOFPGA_IOC_GET_INFO: what the card and driver are.
 * @flags: in: 0
 * @abi_major: out: HELLOFPGA_ABI_MAJOR of the driver
 * @abi_minor: out: HELLOFPGA_ABI_MINOR of the driver
 * @card_index: out: N of /dev/hellofpgaN_*
 * @features: out: HELLOFPGA_FEAT_* available now (GPU providers loaded, ...)
 * @num_h2c: out: H2C channels
 * @num_c2h: out: C2H channels
 * @ddr_size: out: card memory size in bytes (module parameter ddr_size)
 * @ip_version: out: XDMA IP version byte
 * @irq_mode: out: HELLOFPGA_IRQ_MODE_*
 * @addr_align: out: engine address alignment (ALIGNMENTS register)
 * @len_granularity: out: engine length granularity
 * @timeout_ms: out: per-transfer timeout (module parameter timeout_ms)
 * @user_bar_size: out: size of the user BAR, 0 when the card has none;
 *	0xffffffff for a user BAR of 4 GiB or more (see @user_bar_size64)
 * @pinned_bytes: out: bytes pinned by all users of the card
 * @pin_limit: out: most bytes that may be pinned (module parameter pin_limit_mb)
 * @pci_vendor: out: PCI vendor id
 * @pci_device: out: PCI device id
 * @pci_bdf: out: domain << 16 | bus << 8 | devfn, the domain saturated at
 *	0xffff (see @pci_domain)
 * @pad: 0
 * @driver_version: out: NUL-terminated driver version string
 * @user_bar_size64: out (ABI 1.1): size of the user BAR, 64 bits
 * @pci_domain: out (ABI 1.1): PCI domain (segment), 32 bits (VMD domains
 *	lie above 0xffff)
 * @pad2: 0
 * @reserved: 0
 *
 * Drivers of ABI minor 0 leave @user_bar_size64, @pci_domain and @pad2 0:
 * read them only when @abi_minor >= 1.
 */
struct hellofpga_info {
	__u32 flags;
	__u32 abi_major;
	__u32 abi_minor;
	__u32 card_index;
	__u64 features;
	__u32 num_h2c;
	__u32 num_c2h;
	__u64 ddr_size;
	__u32 ip_version;
	__u32 irq_mode;
	__u32 addr_align;
	__u32 len_granularity;
	__u32 timeout_ms;
	__u32 user_bar_size;
	__u64 pinned_bytes;
	__u64 pin_limit;
	__u32 pci_vendor;
	__u32 pci_device;
	__u32 pci_bdf;
	__u32 pad;
	char driver_version[32];
	__u64 user_bar_size64;
	__u32 pci_domain;
	__u32 pad2;
	__u64 reserved[6];
};

/* Kinds of memory HELLOFPGA_IOC_PIN pins (struct hellofpga_pin.type) */
#define HELLOFPGA_PIN_CUDA		1	/* @addr: CUDA VA (nvidia_p2p) */
#define HELLOFPGA_PIN_DMABUF		2	/* @fd + @addr as offset */
#define HELLOFPGA_PIN_HOST		3	/* @addr: host VA */

/**
 * struct hellofpga_pin - HELLOFPGA_IOC_PIN: pin memory for DMA by the card.
 * @type: in: HELLOFPGA_PIN_*
 * @flags: in: 0
 * @addr: in: virtual address (CUDA, host), or offset into the dma-buf
 * @size: in: bytes; CUDA: @addr and @size 64 KiB aligned on desktop, 4 KiB
 *	on Tegra; host: 4 KiB aligned
 * @fd: in: dma-buf file descriptor (HELLOFPGA_PIN_DMABUF), else -1
 * @pad: 0
 * @handle: out: pin handle for XFER and UNPIN, never 0
 * @page_size: out: page size of the pinned memory (GPU page size for CUDA)
 * @nsegs: out: DMA segments after merging contiguous pages
 * @pad2: 0
 * @reserved: 0
 *
 * A pin belongs to the open file and ends with UNPIN or when the file is
 * closed; pinned bytes count against the card's pin limit (-ENOMEM).
 */
struct hellofpga_pin {
	__u32 type;
	__u32 flags;
	__u64 addr;
	__u64 size;
	__s32 fd;
	__u32 pad;
	__u64 handle;
	__u64 page_size;
	__u32 nsegs;
	__u32 pad2;
	__u64 reserved[4];
};

/**
 * struct hellofpga_xfer - HELLOFPGA_IOC_XFER: move bytes between a pinned
 * buffer and card memory.
 * @handle: in: from HELLOFPGA_IOC_PIN
 * @buf_offset: in: offset inside the pinned buffer
 * @card_addr: in: card (AXI) address
 * @length: in: bytes; the range must lie inside the pin and card memory
 * @dir: in: HELLOFPGA_XFER_H2C or HELLOFPGA_XFER_C2H
 * @channel: in: channel of that direction
 * @timeout_ms: in: engine timeout, 0 for the driver default
 * @flags: in: 0
 * @bytes: out: bytes moved (also on failure)
 * @engine_ns: out: time from engine start to completion
 * @reserved: 0
 */
struct hellofpga_xfer {
	__u64 handle;
	__u64 buf_offset;
	__u64 card_addr;
	__u64 length;
	__u32 dir;
	__u32 channel;
	__u32 timeout_ms;
	__u32 flags;
	__u64 bytes;
	__u64 engine_ns;
	__u64 reserved[4];
};

/**
 * struct hellofpga_unpin - HELLOFPGA_IOC_UNPIN.
 * @handle: in: from HELLOFPGA_IOC_PIN
 * @flags: in: 0
 * @pad: 0
 * @reserved: 0
 */
struct hellofpga_unpin {
	__u64 handle;
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

#define HELLOFPGA_MAX_ENGINES		8

/**
 * struct hellofpga_stats - HELLOFPGA_IOC_GET_STATS: counters since load.
 * @flags: in: 0
 * @num_engines: out: valid entries of the per-engine arrays (engine order:
 *	H2C 0..n-1, then C2H)
 * @runs: out: engine runs
 * @bytes: out: bytes moved
 * @errors: out: runs that ended with an engine error
 * @timeouts: out: runs that timed out
 * @lost_irqs: out: completions found without their interrupt
 * @irqs: out: interrupts handled
 * @pins: out: pins alive
 * @pinned_bytes: out: bytes pinned
 * @reserved: 0
 */
struct hellofpga_stats {
	__u32 flags;
	__u32 num_engines;
	__u64 runs[HELLOFPGA_MAX_ENGINES];
	__u64 bytes[HELLOFPGA_MAX_ENGINES];
	__u64 errors[HELLOFPGA_MAX_ENGINES];
	__u64 timeouts[HELLOFPGA_MAX_ENGINES];
	__u64 lost_irqs[HELLOFPGA_MAX_ENGINES];
	__u64 irqs;
	__u64 pins;
	__u64 pinned_bytes;
	__u64 reserved[8];
};

/**
 * struct hellofpga_last_error - HELLOFPGA_IOC_LAST_ERROR: the driver's text
 * for the last failed call on this open file (any node of the card).
 * @flags: in: 0
 * @error: out: its negative errno, 0 when nothing failed
 * @text: out: NUL-terminated text, e.g. "C2H1: engine stopped: read error
 *	(decode) after 3 of 5 descriptors, status 0x00000201"
 * @reserved: 0
 */
struct hellofpga_last_error {
	__u32 flags;
	__s32 error;
	char text[256];
	__u64 reserved[2];
};

/**
 * struct hellofpga_timeout - HELLOFPGA_IOC_SET_TIMEOUT (ABI 1.2): the
 * timeout of the runs of this open file (any node of the card).
 * @timeout_ms: in: 1 .. 3600000 ms for each run of its read() and write()
 *	(h2c/c2h nodes), and for its XFERs whose timeout_ms is 0 (control
 *	node); 0 for the module parameter timeout_ms again
 * @flags: in: 0
 * @reserved: 0
 *
 * The wait for a busy channel ends at the same timeout (EBUSY).
 */
struct hellofpga_timeout {
	__u32 timeout_ms;
	__u32 flags;
	__u64 reserved[2];
};

#define HELLOFPGA_MAX_TIMEOUT_MS	3600000

#define HELLOFPGA_IOC_GET_INFO	_IOWR(HELLOFPGA_IOC_MAGIC, 0, struct hellofpga_info)
#define HELLOFPGA_IOC_PIN	_IOWR(HELLOFPGA_IOC_MAGIC, 1, struct hellofpga_pin)
#define HELLOFPGA_IOC_XFER	_IOWR(HELLOFPGA_IOC_MAGIC, 2, struct hellofpga_xfer)
#define HELLOFPGA_IOC_UNPIN	_IOW(HELLOFPGA_IOC_MAGIC, 3, struct hellofpga_unpin)
#define HELLOFPGA_IOC_GET_STATS	_IOWR(HELLOFPGA_IOC_MAGIC, 4, struct hellofpga_stats)
#define HELLOFPGA_IOC_LAST_ERROR _IOWR(HELLOFPGA_IOC_MAGIC, 5, struct hellofpga_last_error)
#define HELLOFPGA_IOC_SET_TIMEOUT _IOW(HELLOFPGA_IOC_MAGIC, 6, struct hellofpga_timeout)

#endif /* _UAPI_HELLOFPGA_H */
