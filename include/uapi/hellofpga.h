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
 *                              (hellofpga_xdma.h); on an AXI-Stream card
 *                              (HELLOFPGA_FEAT_STREAM) the c2h node takes
 *                              the STREAM_* ioctls, poll() and a read-only
 *                              mmap() of a stream's ring, and a write() of
 *                              the h2c node sends one packet (see "H2C
 *                              packets" below)
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
 * Minor 3: C2H AXI-Stream rings: HELLOFPGA_FEAT_STREAM and the
 * HELLOFPGA_IOC_STREAM_* ioctls of the c2h nodes.
 * Minor 4: H2C packets on AXI-Stream cards: HELLOFPGA_FEAT_STREAM_H2C, a
 * write() of an h2c node or an H2C XFER sends one packet (-EMSGSIZE above
 * HELLOFPGA_STREAM_H2C_MAX).
 * Minor 4: writeback words in a host pin: HELLOFPGA_XFER_WB
 * (HELLOFPGA_FEAT_XFER_WB) and HELLOFPGA_STREAM_WB_PIN
 * (HELLOFPGA_FEAT_STREAM_WB_PIN), for GPU-side completion.
 */
#define HELLOFPGA_ABI_MINOR		4

#define HELLOFPGA_IOC_MAGIC		0xb6

/* Feature bits of struct hellofpga_info.features */
#define HELLOFPGA_FEAT_PIN_HOST		(1ULL << 0)	/* PIN of host memory */
#define HELLOFPGA_FEAT_PIN_NVP2P	(1ULL << 1)	/* nvidia_p2p, desktop */
#define HELLOFPGA_FEAT_PIN_NVP2P_PERSISTENT (1ULL << 2) /* ... persistent API */
#define HELLOFPGA_FEAT_PIN_TEGRA	(1ULL << 3)	/* nvidia_p2p, Tegra */
#define HELLOFPGA_FEAT_PIN_DMABUF	(1ULL << 4)	/* dma-buf import */
#define HELLOFPGA_FEAT_POLL_MODE	(1ULL << 5)	/* poll-mode writeback */
#define HELLOFPGA_FEAT_USER_EVENTS	(1ULL << 6)	/* _events_U nodes */
#define HELLOFPGA_FEAT_STREAM		(1ULL << 7)	/* AXI-Stream: STREAM_* */
#define HELLOFPGA_FEAT_STREAM_H2C	(1ULL << 8)	/* AXI-Stream: H2C packets */
#define HELLOFPGA_FEAT_XFER_WB		(1ULL << 9)	/* XFER: HELLOFPGA_XFER_WB */
#define HELLOFPGA_FEAT_STREAM_WB_PIN	(1ULL << 10)	/* STREAM_WB_PIN slots */

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
 * @pinned_bytes: out: bytes pinned by all users of the card: pins, and
 *	the buffers of HELLOFPGA_MEM_HOST stream rings as long as they exist
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
 * closed; pinned bytes count against the card's pin limit (-ENOMEM), and
 * pinned host memory and the descriptor storage of every pin's chains
 * against the pinning process's RLIMIT_MEMLOCK unless it has
 * CAP_IPC_LOCK (-ENOMEM).  PIN needs the control node open for writing (-EBADF).  A
 * dma-buf whose file is not open for writing (exported read-only, e.g.
 * DRM PRIME without DRM_RDWR) pins read-only: the card only reads it
 * (H2C); a C2H XFER or a stream ring into it fails with -EACCES.  Host
 * memory must be mapped writable (-EFAULT otherwise).
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

/*
 * struct hellofpga_xfer.flags (ABI 1.4, HELLOFPGA_FEAT_XFER_WB): the run's
 * writeback word goes to a word of a host pin (@wb_handle, @wb_offset).
 */
#define HELLOFPGA_XFER_WB		0x1u
/* The word after a failed XFER_WB run: what the card wrote, this bit set. */
#define HELLOFPGA_XFER_WB_FAILED	0x80000000u
/*
 * Bytes from @wb_offset the card may write (its poll-mode writeback: PG195
 * leaves the width open, Xilinx's driver reserves 32): they must lie in
 * the pin, and nothing there but the word should matter to the user.
 */
#define HELLOFPGA_XFER_WB_ROOM		32u

/**
 * struct hellofpga_xfer - HELLOFPGA_IOC_XFER: move bytes between a pinned
 * buffer and card memory.
 * @handle: in: from HELLOFPGA_IOC_PIN
 * @buf_offset: in: offset inside the pinned buffer
 * @card_addr: in: card (AXI) address
 * @length: in: bytes; the range must lie inside the pin and card memory
 * @dir: in: HELLOFPGA_XFER_H2C or HELLOFPGA_XFER_C2H
 * @channel: in: channel of that direction
 * @timeout_ms: in: engine timeout, 1 .. HELLOFPGA_MAX_TIMEOUT_MS ms, 0
 *	for the file's (SET_TIMEOUT, else the module's timeout_ms)
 * @flags: in: 0 or HELLOFPGA_XFER_WB
 * @bytes: out: bytes moved (also on failure)
 * @engine_ns: out: time from engine start to completion
 * @wb_handle: in (ABI 1.4): HELLOFPGA_XFER_WB: a host pin
 *	(HELLOFPGA_PIN_HOST) of this open file, else 0
 * @wb_offset: in (ABI 1.4): HELLOFPGA_XFER_WB: offset of the writeback
 *	word in that pin, a multiple of 4 with HELLOFPGA_XFER_WB_ROOM bytes
 *	of the pin from it, else 0
 * @reserved: 0
 *
 * A C2H XFER into a read-only pin (a dma-buf, see struct hellofpga_pin)
 * fails with EACCES.
 * On an AXI-Stream card (HELLOFPGA_FEAT_STREAM_H2C) an H2C XFER sends the
 * range as one packet (see "H2C packets"): @card_addr 0, at most
 * HELLOFPGA_STREAM_H2C_MAX bytes (-EMSGSIZE); C2H is -EOPNOTSUPP.
 * HELLOFPGA_XFER_WB (GPU-side completion: a GPU waits on the word with
 * cuStreamWaitValue32): the card's poll-mode writeback of the transfer's
 * run goes into the word.  The driver clears it before the first run;
 * the card writes the count of the descriptors it completed when the
 * chain is done (bit 31 set if the engine stopped on an error); a
 * transfer of more than one run (over 16384 descriptors) has its last
 * run's count there, earlier runs leave it 0.  After a failed run the
 * driver sets HELLOFPGA_XFER_WB_FAILED in it, so the word is never left
 * 0 by an XFER that returns.  The pin may be the data pin itself.  UNPIN
 * of the word's pin during the run waits for the run, as for the data
 * pin.  The word notifies a GPU; it never ends the XFER: the word is user
 * memory (and the card's data writes it when it lies in a C2H range), so
 * the driver returns only once the engine itself shows the run done (or
 * failed, or stopped and idle after the timeout); a word written by
 * anyone else changes nothing but what a watcher sees.  Errors: EINVAL
 * (the flag without HELLOFPGA_FEAT_XFER_WB, @wb_offset unaligned or
 * without HELLOFPGA_XFER_WB_ROOM bytes of the pin from it, not a host
 * pin, wb fields without the flag), ENOENT (no pin @wb_handle),
 * EOPNOTSUPP (the pin's mapping needs CPU syncs: bounce buffers (swiotlb),
 * a non-coherent device; a GPU could not watch the word; LAST_ERROR says
 * so).  EINVAL also for @timeout_ms above HELLOFPGA_MAX_TIMEOUT_MS (as
 * SET_TIMEOUT).
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
	__u64 wb_handle;
	__u64 wb_offset;
	__u64 reserved[2];
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
 * @pinned_bytes: out: bytes pinned (as hellofpga_info.pinned_bytes)
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

/*
 * H2C packets (ABI 1.4; HELLOFPGA_FEAT_STREAM_H2C, set on AXI-Stream
 * cards): an H2C channel of an AXI-Stream card has no card address; each
 * write()/pwrite() of its h2c node, and each XFER of a pin in direction
 * HELLOFPGA_XFER_H2C, sends the whole buffer as one packet: one descriptor
 * chain, TLAST (EOP) on its last byte only.  It is never cut into several
 * packets, nor written short: the call moves all of it or fails.
 * - The file position (pwrite()'s offset) or @card_addr must be 0
 *   (-EINVAL); a write() leaves the position at 0.
 * - A packet is at most HELLOFPGA_STREAM_H2C_MAX bytes (-EMSGSIZE).
 * - The buffer and length must suit the engine's alignment (-EINVAL):
 *   there is no bounce buffer.
 * - A zero-length write() sends nothing and returns 0.
 * Drivers before ABI 1.4 refuse these with -EOPNOTSUPP.
 */
#define HELLOFPGA_STREAM_H2C_MAX	0x03fff000u	/* 64 MiB - 4 KiB */

/*
 * C2H AXI-Stream rings (ABI 1.3; cards with HELLOFPGA_FEAT_STREAM), ioctls
 * of /dev/hellofpgaN_c2h_C.  A stream is a ring of equal buffers that the
 * channel's engine fills for ever, in descriptor credit mode: STREAM_WAIT
 * hands out the next filled buffer, which is the caller's until
 * STREAM_RELEASE gives it back (buffers go back to the engine in ring
 * order); with every buffer held the engine has nowhere to write and the
 * card's source stalls or drops.  A frame (AXI-Stream packet, TLAST) that
 * is shorter than a buffer fills one, HELLOFPGA_STREAM_EOP set; a longer
 * one spans consecutive buffers, EOP on the last.
 *
 * Lifetime rules:
 * - One stream per C2H channel of a card (-EBUSY for a second, from any
 *   open file); it belongs to the open file (file description) that
 *   started it: WAIT, RELEASE, STATS and STOP from another open file of
 *   the node are -ENOENT.  Processes sharing the file description (fork(),
 *   SCM_RIGHTS) share the stream.
 * - The stream ends with STREAM_STOP or the last close of its file
 *   description (also at exit or SIGKILL): the engine is stopped and
 *   proven idle before any of its memory is unmapped or freed.  A
 *   mapping of the ring holds the file description, as every mapping of
 *   a file does: close() of the last descriptor leaves the stream running
 *   until the mapping goes too.
 * - The STREAM_* ioctls work on the c2h node open in any mode.
 * - HELLOFPGA_MEM_HOST rings are driver memory, mapped by mmap() of the
 *   c2h node while the stream runs: from offset 0 (-EINVAL otherwise),
 *   at most mmap_size bytes (-EINVAL), read-only: PROT_WRITE is -EACCES
 *   and mprotect() cannot add it; MAP_SHARED and MAP_PRIVATE map the
 *   same pages (nothing is copied on write: there is no write); the node
 *   must be open for reading (-EACCES, as for every mmap()); -ENOENT
 *   without a MEM_HOST ring running on the open file.  A mapping is
 *   inherited by fork() and outlives STREAM_STOP safely: the pages stay
 *   until the last mapping of them goes (the engine no longer writes
 *   them), and stay counted as long: in the card's pin limit
 *   (pinned_bytes), against RLIMIT_MEMLOCK of the user that started the
 *   stream (per user, as io_uring's buffers: all of the user's rings
 *   that exist, unless the starter has CAP_IPC_LOCK), and in its memory
 *   cgroup.  A new stream does not appear in an old mapping: map again.
 * - HELLOFPGA_MEM_PIN rings lie in a pin of the card's control node
 *   (HELLOFPGA_IOC_PIN), named by that node's file descriptor and the
 *   handle; each buffer must lie in one contiguous bus piece of the pin.
 *   UNPIN of a pin a stream uses is -EBUSY.  Should the pin go anyway
 *   (close of the control node, the provider revoking it: NVIDIA's free
 *   callback, a dma-buf move), the stream's engine is stopped and proven
 *   idle before the memory goes, and WAIT fails with -EIO from then on.
 * - Card removal or a PCIe error recovery stops the stream the same way:
 *   WAIT then fails with -ENODEV (removal) or -EIO (recovery, also a WAIT
 *   asleep when it began); STOP and close still work.
 * - An engine that stops on an error makes WAIT fail with -EIO; the
 *   decoded status is in LAST_ERROR; STOP the stream (it can be started
 *   again).
 * - poll(): EPOLLIN | EPOLLRDNORM while a filled buffer waits to be taken
 *   by WAIT; EPOLLERR once the stream stopped on an error or the card
 *   went; 0 without a stream.
 */

/* Where a ring lies (struct hellofpga_stream_config.mem). */
#define HELLOFPGA_MEM_HOST		1	/* driver buffers, mmap()ed */
#define HELLOFPGA_MEM_PIN		2	/* a pin of the control node */

#define HELLOFPGA_RING_MIN_BUFFERS	2
#define HELLOFPGA_RING_MAX_BUFFERS	512
/* Largest buffer (one engine descriptor): 256 MiB - 4 KiB. */
#define HELLOFPGA_RING_MAX_BUFFER	0x0ffff000u

/**
 * struct hellofpga_stream_config - HELLOFPGA_IOC_STREAM_START: set up a
 *	ring on the node's channel and start it.
 * @buffers: in: HELLOFPGA_RING_MIN_BUFFERS..HELLOFPGA_RING_MAX_BUFFERS
 * @mem: in: HELLOFPGA_MEM_HOST or HELLOFPGA_MEM_PIN
 * @buffer_size: in: bytes per buffer, a multiple of 4096 and of the
 *	engine's alignment, at most HELLOFPGA_RING_MAX_BUFFER; MEM_HOST:
 *	at most what the DMA layer maps in one piece and the kernel
 *	allocates contiguously (-EINVAL, LAST_ERROR says the limit)
 * @pin_handle: in: MEM_PIN: the pin's handle, else 0
 * @pin_offset: in: MEM_PIN: offset of the ring in the pin, a multiple of
 *	4096, else 0
 * @pin_fd: in: MEM_PIN: a file descriptor of this card's control node
 *	that holds the pin, else -1
 * @flags: in: 0 or HELLOFPGA_STREAM_WB_PIN
 * @mmap_size: out: MEM_HOST: bytes to mmap() at offset 0 (buffer i at
 *	i * @buffer_size), else 0
 * @wb_handle: in (ABI 1.4): HELLOFPGA_STREAM_WB_PIN: a host pin of the
 *	control node @wb_fd, else 0
 * @wb_offset: in (ABI 1.4): HELLOFPGA_STREAM_WB_PIN: offset of the
 *	slots in that pin, a multiple of 32, else 0
 * @wb_fd: in (ABI 1.4): HELLOFPGA_STREAM_WB_PIN: a file descriptor of
 *	this card's control node that holds the pin, else 0
 * @start_flags: out (ABI 1.4): HELLOFPGA_STREAM_STARTED_RESYNC
 * @reserved: 0
 *
 * HELLOFPGA_STREAM_WB_PIN (HELLOFPGA_FEAT_STREAM_WB_PIN; GPU-side
 * completion): the ring's C2H stream writeback slots, 32 bytes per buffer
 * (buffer i at @wb_offset + 32 * i; status word, then length), lie in a
 * host pin instead of the driver's memory, so user space and a GPU that
 * maps the memory see them.  The status word is 0 while the buffer is
 * with the card, 0x52b40000 (| 1 for EOP) once the card completed it, the
 * length in the next word; the driver clears a slot when its buffer goes
 * back to the card (STREAM_RELEASE has done so when it returns), and when
 * the ring ends (STOP, close, an engine error seen by WAIT, removal, the
 * pin's teardown) writes 0x52b48000 and length 0 into every slot the card
 * did not complete.  The slots must lie in one contiguous bus piece of the
 * pin (always for up to 4096 bytes at a page-aligned offset); UNPIN of the
 * pin is -EBUSY while the ring lives.  STARTED_RESYNC in @start_flags: the ring first skips
 * the rest of a frame an earlier stop cut, so which buffer a sequence
 * lands in is known only from the first WAIT on (else sequence s lands
 * in buffer s % @buffers).  Errors as below, and EINVAL (the flag
 * without the feature, @wb_offset unaligned, the slots past the end of
 * the pin or not in one bus piece, not a host pin, wb fields without the
 * flag), ENOENT, EBADF (as for @pin_fd), EOPNOTSUPP (the pin's mapping
 * needs CPU syncs: bounce buffers, a non-coherent device).
 *
 * Errors: EINVAL (a field out of range, unaligned, flags or reserved not
 * 0, a buffer not inside one contiguous piece of the pin), ERANGE (the
 * ring lies past the end of the pin), ENOENT (no such pin), EBADF (@pin_fd
 * is no control node of this card), EACCES (MEM_PIN: a read-only pin),
 * EBUSY (a stream runs on the channel), EOPNOTSUPP (not an AXI-Stream
 * card), ENOMEM (no memory; MEM_HOST: over the card's pin limit, or over
 * RLIMIT_MEMLOCK of the starter's user, which the buffers of its rings
 * count against as long as they exist, stopped but mapped ones included;
 * MEM_PIN: the ring's descriptor storage over the pinning process's
 * RLIMIT_MEMLOCK, counted while the ring runs), EIO (the channel is
 * wedged, or bus mastering is off), ENODEV (card removed).
 */
struct hellofpga_stream_config {
	__u32 buffers;
	__u32 mem;
	__u64 buffer_size;
	__u64 pin_handle;
	__u64 pin_offset;
	__s32 pin_fd;
	__u32 flags;
	__u64 mmap_size;
	__u64 wb_handle;
	__u64 wb_offset;
	__s32 wb_fd;
	__u32 start_flags;
	__u64 reserved[1];
};

/* struct hellofpga_stream_config.flags (ABI 1.4) */
#define HELLOFPGA_STREAM_WB_PIN		0x1u
/* struct hellofpga_stream_config.start_flags (ABI 1.4) */
#define HELLOFPGA_STREAM_STARTED_RESYNC	0x1u

/* struct hellofpga_stream_frame.frame_flags: the buffer ends a frame. */
#define HELLOFPGA_STREAM_EOP		0x1u
/* Longest STREAM_WAIT (ns). */
#define HELLOFPGA_STREAM_MAX_WAIT_NS	3600000000000ull

/**
 * struct hellofpga_stream_frame - HELLOFPGA_IOC_STREAM_WAIT: the next
 *	filled buffer.
 * @timeout_ns: in: how long to wait, 0 only looks, at most
 *	HELLOFPGA_STREAM_MAX_WAIT_NS
 * @flags: in: 0
 * @index: out: the buffer, 0..buffers-1, the caller's until STREAM_RELEASE
 * @frame_flags: out: HELLOFPGA_STREAM_EOP
 * @pad: 0
 * @length: out: bytes in the buffer
 * @sequence: out: buffers completed on the stream before this one
 * @frame: out: frames (EOPs) completed before this one
 * @dropped: out: frames the reference design's source dropped since the
 *	previous EOP buffer a WAIT handed out (its DROPPED counter, read at
 *	EOP buffers), 0 on other designs
 * @timestamp_ns: out: CLOCK_MONOTONIC when the driver took the buffer
 * @offset: out: MEM_HOST: the buffer's offset in the mapping; MEM_PIN:
 *	its offset in the pin
 * @reserved: 0
 *
 * Errors: ETIMEDOUT (no buffer in time: the stream goes on), EAGAIN (a
 * STREAM_RELEASE with HELLOFPGA_STREAM_WAKE woke the wait), EINVAL (a field
 * wrong), ENOENT (no stream on this open file), EIO (the engine stopped on
 * an error, the pin went, bus mastering off, a PCIe error recovery:
 * LAST_ERROR says which), ENODEV (card removed), EINTR (a fatal signal).
 */
struct hellofpga_stream_frame {
	__u64 timeout_ns;
	__u32 flags;
	__u32 index;
	__u32 frame_flags;
	__u32 pad;
	__u64 length;
	__u64 sequence;
	__u64 frame;
	__u64 dropped;
	__u64 timestamp_ns;
	__u64 offset;
	__u64 reserved[4];
};

/*
 * struct hellofpga_stream_release.flags: release nothing, make a WAIT in
 * progress on the stream return EAGAIN (@index must be 0).
 */
#define HELLOFPGA_STREAM_WAKE		0x1u

/**
 * struct hellofpga_stream_release - HELLOFPGA_IOC_STREAM_RELEASE: give a
 *	buffer back to the engine; may be called while another thread waits
 *	(the wait hands the buffer over).
 * @index: in: a buffer STREAM_WAIT handed out and not released yet
 * @flags: in: 0 or HELLOFPGA_STREAM_WAKE
 * @reserved: 0
 *
 * Returns once the buffer is the engine's again: handed over by this
 * call, or by the WAIT that holds the stream (woken for it: never the
 * WAIT's whole timeout); a fatal signal leaves it to the next WAIT.
 *
 * Errors: EINVAL (@index not held, flags or reserved wrong), ENOENT (no
 * stream on this open file).
 */
struct hellofpga_stream_release {
	__u32 index;
	__u32 flags;
	__u64 reserved[2];
};

/**
 * struct hellofpga_stream_stop - HELLOFPGA_IOC_STREAM_STOP: stop the
 *	stream, prove its engine idle, free its ring.
 * @flags: in: 0
 * @pad: 0
 * @reserved: 0
 *
 * Errors: ENOENT (no stream on this open file), EIO (the engine did not
 * stop: the channel is wedged and keeps the ring's memory until it goes
 * idle; the stream is over anyway).
 */
struct hellofpga_stream_stop {
	__u32 flags;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct hellofpga_stream_stats - HELLOFPGA_IOC_STREAM_STATS: the
 *	stream's counters since STREAM_START.
 * @flags: in: 0
 * @held: out: buffers held by the caller now
 * @buffers: out: buffers completed and handed out
 * @frames: out: of them, those with EOP
 * @bytes: out: bytes in them
 * @ring_full: out: times the engine had no free buffer
 * @skipped: out: buffers skipped at the start (the rest of a frame an
 *	earlier stop cut)
 * @wakes: out: wake-ups by the engine's interrupt
 * @status_reads: out: status register reads
 * @credit_writes: out: credit register writes
 * @running: out: 1 while the ring runs, 0 once it stopped (error, pin
 *	gone, card gone)
 * @pad: 0
 * @reserved: 0
 *
 * Errors: EINVAL (flags or reserved not 0), ENOENT (no stream).
 */
struct hellofpga_stream_stats {
	__u32 flags;
	__u32 held;
	__u64 buffers;
	__u64 frames;
	__u64 bytes;
	__u64 ring_full;
	__u64 skipped;
	__u64 wakes;
	__u64 status_reads;
	__u64 credit_writes;
	__u32 running;
	__u32 pad;
	__u64 reserved[4];
};

#define HELLOFPGA_IOC_GET_INFO	_IOWR(HELLOFPGA_IOC_MAGIC, 0, struct hellofpga_info)
#define HELLOFPGA_IOC_PIN	_IOWR(HELLOFPGA_IOC_MAGIC, 1, struct hellofpga_pin)
#define HELLOFPGA_IOC_XFER	_IOWR(HELLOFPGA_IOC_MAGIC, 2, struct hellofpga_xfer)
#define HELLOFPGA_IOC_UNPIN	_IOW(HELLOFPGA_IOC_MAGIC, 3, struct hellofpga_unpin)
#define HELLOFPGA_IOC_GET_STATS	_IOWR(HELLOFPGA_IOC_MAGIC, 4, struct hellofpga_stats)
#define HELLOFPGA_IOC_LAST_ERROR _IOWR(HELLOFPGA_IOC_MAGIC, 5, struct hellofpga_last_error)
#define HELLOFPGA_IOC_SET_TIMEOUT _IOW(HELLOFPGA_IOC_MAGIC, 6, struct hellofpga_timeout)
#define HELLOFPGA_IOC_STREAM_START \
	_IOWR(HELLOFPGA_IOC_MAGIC, 7, struct hellofpga_stream_config)
#define HELLOFPGA_IOC_STREAM_WAIT \
	_IOWR(HELLOFPGA_IOC_MAGIC, 8, struct hellofpga_stream_frame)
#define HELLOFPGA_IOC_STREAM_RELEASE \
	_IOW(HELLOFPGA_IOC_MAGIC, 9, struct hellofpga_stream_release)
#define HELLOFPGA_IOC_STREAM_STOP \
	_IOW(HELLOFPGA_IOC_MAGIC, 10, struct hellofpga_stream_stop)
#define HELLOFPGA_IOC_STREAM_STATS \
	_IOWR(HELLOFPGA_IOC_MAGIC, 11, struct hellofpga_stream_stats)

#endif /* _UAPI_HELLOFPGA_H */
