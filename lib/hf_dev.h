/* SPDX-License-Identifier: MIT */
/*
 * hf_dev.h - an open card: the handle's state every backend shares, the
 * backend ops table.
 *
 * A handle (struct hellofpga_dev) holds what every backend shares: geometry,
 * per-channel locks, the last-error text and statistics.  What differs
 * between the emulated card (backend_emu.c) and the kernel driver
 * (backend_kernel.c) sits behind struct hf_backend_ops.
 *
 * GPU Direct (gpudirect.c): each handle has a table of pinned GPU buffers
 * (struct hf_pin); the generic part validates, accounts and locks, the
 * backend maps the buffer for the card and keeps its descriptor chains.
 */
#ifndef HF_DEV_H
#define HF_DEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "hellofpga.h"
#include "hf_error.h"
#include "xdma_engine.h"

#define HF_DEFAULT_TIMEOUT_MS	5000
#define HF_MAX_TIMEOUT_MS	3600000

struct hf_pin;
struct hf_shared_locks;
struct hf_stream_gpu_slot;
struct hf_submitq;
struct hf_xfer_wb;
struct hellofpga_stream;

#define HF_STAT_ADD(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)
#define HF_STAT_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/**
 * struct hf_backend_ops - what a backend implements.
 * @name: backend name for HELLOFPGA_INFO.backend_name
 * @close: release everything the backend holds
 * @fork_child: in a child right after fork(), close the files that carry
 *	locks of the parent's handle; takes no lock, frees nothing (NULL:
 *	nothing to do)
 * @xfer: move @len bytes between @buf and card address @card on channel
 *	@ch of direction @dir; arguments are already validated and the
 *	channel lock is held.  Every wait for a lock ends at @dl (-EBUSY).
 *	Sets *@actual to the bytes moved.
 * @user_read32: read a user-BAR register (offset validated)
 * @user_write32: write a user-BAR register (offset validated)
 * @counters: fill the card-side (model) fields of @c, if any
 * @dma_faults: fill @f; NULL: the backend does not see DMA faults
 * @link_model: fill @lm (zeroed); NULL: no link model
 * @gpu_pin: make the GPU range of @pin (validated, SYNC_MEMOPS set)
 *	reachable by the card and prepare everything a transfer needs (bus
 *	segments, descriptor chains), storing it in @pin->bdata.  NULL: the
 *	backend has no GPU Direct (-EOPNOTSUPP).
 * @gpu_unpin: release what @gpu_pin made; called once, with @pin's lock
 *	held exclusively (no transfer in flight), also from the revocation
 *	callback when the GPU memory is freed while pinned
 * @gpu_xfer: move @len bytes between offset @off of @pin and card address
 *	@card on channel @ch of direction @dir; arguments validated, channel
 *	lock and @pin's lock (shared) held.  The engine may run @timeout_ms;
 *	waits for locks end at @dl.  Allocates nothing.  Sets *@actual.
 *	@wb: NULL, or the word of a GPU-side completion (submit.c) the
 *	card's poll-mode writeback of this run goes to (in memory of @wb_map)
 * @wb_map: make host memory [@mem, @mem + @len) (page aligned, kept by
 *	the caller until @wb_unmap) writable by the card for writebacks;
 *	*@map names the mapping in struct hf_xfer_wb.  NULL: the backend
 *	cannot send a run's writeback elsewhere (-EOPNOTSUPP).
 * @wb_unmap: undo @wb_map; the card no longer writes the memory
 * @uirq_arm: arm user interrupt @irq (validated) and return, in *@fd, a
 *	descriptor the backend owns that polls readable while a delivery of
 *	it waits to be taken; called once per @irq (user_irq.c remembers the
 *	descriptor, under the device's @uirq_lock).  NULL: no user
 *	interrupts (-EOPNOTSUPP).
 * @uirq_take: take the count of armed user interrupt @irq without
 *	waiting, enabling it again in the card: 1 with *@count set, 0 when
 *	there is none, or a negative errno with the error text set
 */
struct hf_backend_ops {
	const char *name;
	void (*close)(struct hellofpga_dev *dev);
	void (*fork_child)(struct hellofpga_dev *dev);
	int (*xfer)(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		    void *buf, uint64_t card, size_t len,
		    const struct timespec *dl, size_t *actual);
	int (*user_read32)(struct hellofpga_dev *dev, uint32_t off,
			   uint32_t *val);
	int (*user_write32)(struct hellofpga_dev *dev, uint32_t off,
			    uint32_t val);
	void (*counters)(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c);
	void (*dma_faults)(struct hellofpga_dev *dev, HELLOFPGA_DMA_FAULTS *f);
	void (*link_model)(struct hellofpga_dev *dev, HELLOFPGA_LINK_MODEL *lm);
	int (*gpu_pin)(struct hellofpga_dev *dev, struct hf_pin *pin);
	void (*gpu_unpin)(struct hellofpga_dev *dev, struct hf_pin *pin);
	int (*gpu_xfer)(struct hellofpga_dev *dev, struct hf_pin *pin,
			enum hf_xdma_dir dir, int ch, size_t off, uint64_t card,
			size_t len, int timeout_ms, const struct timespec *dl,
			const struct hf_xfer_wb *wb, size_t *actual);
	int (*wb_map)(struct hellofpga_dev *dev, void *mem, size_t len,
		      uint64_t *map);
	void (*wb_unmap)(struct hellofpga_dev *dev, uint64_t map);
	int (*uirq_arm)(struct hellofpga_dev *dev, int irq, int *fd);
	int (*uirq_take)(struct hellofpga_dev *dev, int irq, uint32_t *count);
	/*
	 * C2H streams (stream.c): start sets up and starts @s's ring (the
	 * configuration validated, the channel free); wait, release and stop
	 * run under @s->lock; kick from any thread makes a wait return
	 * -EAGAIN; stop proves the engine idle and frees the ring (-EIO:
	 * wedged, the memory kept).  All set the error text on failure.
	 */
	int (*stream_start)(struct hellofpga_dev *dev, struct hellofpga_stream *s);
	int (*stream_wait)(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			   uint64_t timeout_ns, struct hf_xdma_ring_buf *b);
	int (*stream_release)(struct hellofpga_dev *dev,
			      struct hellofpga_stream *s, uint32_t index);
	void (*stream_kick)(struct hellofpga_dev *dev, struct hellofpga_stream *s);
	void (*stream_stats)(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			     struct hf_xdma_ring_stats *st);
	int (*stream_stop)(struct hellofpga_dev *dev, struct hellofpga_stream *s);
	/*
	 * The GPU memory of the pin @s's ring lies in is being freed: stop
	 * the ring and prove its engine idle (as stop does), mark its slots,
	 * but keep the ring (stop frees it later); under @s->lock and
	 * @s->gw_lock.  0, or -EIO (wedged).  NULL: the backend's revocation
	 * of a pin stops its rings itself (the kernel driver).
	 */
	int (*stream_halt)(struct hellofpga_dev *dev, struct hellofpga_stream *s);
	/*
	 * GPU-side completion (HelloFPGA_Stream_WaitOnGPU()): the writeback
	 * slot of buffer @seq, mapped for the GPU; under @s->gw_lock (not
	 * @s->lock: a wait may hold that).  The slots of a stream waited on
	 * stay allocated after the stop, which marks them (error bit).
	 * NULL: -EOPNOTSUPP.
	 */
	int (*stream_gpu_slot)(struct hellofpga_dev *dev,
			       struct hellofpga_stream *s, uint64_t seq,
			       struct hf_stream_gpu_slot *gs, const char *fn);
	/*
	 * HelloFPGA_Stream_ReleaseOnGPU(): a word per buffer in host memory
	 * mapped for the GPU (*@db, *@db_dev), all 0, kept as the slots are;
	 * under @s->gw_lock.  NULL: -EOPNOTSUPP.
	 */
	int (*stream_gpu_doorbells)(struct hellofpga_dev *dev,
				    struct hellofpga_stream *s, uint32_t **db,
				    uint64_t *db_dev, const char *fn);
};

/**
 * struct hf_xfer_wb - where a run's poll-mode writeback goes (GPU-side
 *	completion of a transfer, submit.c).
 * @cpu: the 4-byte word, host memory mapped by the backend's @wb_map
 * @map: what @wb_map returned for that memory
 * @off: @cpu's offset in it
 */
struct hf_xfer_wb {
	uint32_t *cpu;
	uint64_t map;
	uint64_t off;
};

/**
 * struct hf_pin_slot - an entry of a handle's pin table.
 * @pin: the pin, or NULL for a free slot
 * @gen: generation of the handle that names @pin
 */
struct hf_pin_slot {
	struct hf_pin *pin;
	uint32_t gen;
};

/**
 * struct hf_stats - per-handle transfer statistics (updated atomically).
 */
struct hf_stats {
	uint64_t transfers;
	uint64_t bytes[2];	/* indexed by enum hf_xdma_dir */
	uint64_t errors;
	uint64_t timeouts;
};

/**
 * struct hellofpga_dev - an open card, named by a handle (handle.c).
 * @refs: calls in progress on it (under handle.c's table lock)
 * @closing: out of the table; HelloFPGA_Close() waits for @refs to drop
 *	to 0 (table lock)
 * @inherited: this process is a fork() child of the one that opened it
 *	(table lock)
 * @handle: the value of its HELLOFPGA_HANDLE (handle.c), set before any
 *	call can use it
 * @ops: backend
 * @priv: backend state
 * @info: geometry and identity, filled by the backend's open
 * @pci: PCI address and IDs (valid 0 for the emulated card) and user BAR
 *	size, filled by the backend's open
 * @timeout_ms: per-transfer timeout
 * @chan_lock: in-process mutual exclusion per channel [dir][ch]
 * @lock_fd: the card's lock file (creation and other inter-process OFD
 *	locks); -1 for none
 * @shlocks: the channel locks between processes, mapped from @lock_fd;
 *	NULL for none (a private card, the kernel backend)
 * @err_lock: protects @last_error
 * @last_error: text of the last failure on this handle
 * @stats: transfer statistics
 * @pin_lock: guards the pin table, @pinned_bytes and the TransferMode
 *	fields below
 * @pins: pin table; handle = generation << 32 | (slot + 1)
 * @npins: slots in @pins
 * @pinned_bytes: bytes pinned through this handle
 * @xfer_mode: HELLOFPGA_XFER_MODE_* (also read atomically without the lock)
 * @gbuf: start of the GPU buffer registered by HelloFPGA_SetGPUBuffer()
 * @gbuf_size: its size (0: none)
 * @gbuf_handle: its internal pin
 * @wake_fd: eventfd that HelloFPGA_Close() makes readable to wake the
 *	user-interrupt waits on the handle; -1 until the first wait needs it
 *	(made and signalled under handle.c's table lock)
 * @uirq_lock: guards @uirq_fd
 * @uirq_fd: per user interrupt, the backend's descriptor once armed, else -1
 * @stream: the card's channels are AXI-Stream
 * @stream_lock: guards @streams
 * @streams: the open C2H streams (stream.c)
 * @submit_lock: guards @submitq
 * @submitq: per direction and channel, the queue of
 *	HelloFPGA_GPUDirect_Submit() (submit.c), NULL until its first use
 */
struct hellofpga_dev {
	unsigned int refs;
	bool closing;
	bool inherited;
	uintptr_t handle;
	const struct hf_backend_ops *ops;
	void *priv;
	HELLOFPGA_INFO info;
	HELLOFPGA_PCI_INFO pci;
	int timeout_ms;
	pthread_mutex_t chan_lock[2][XDMA_MAX_CHANNELS];
	int lock_fd;
	struct hf_shared_locks *shlocks;
	pthread_mutex_t err_lock;
	char last_error[HF_ERRLEN];
	struct hf_stats stats;
	pthread_mutex_t pin_lock;
	struct hf_pin_slot *pins;
	uint32_t npins;
	uint64_t pinned_bytes;
	int xfer_mode;
	uintptr_t gbuf;
	size_t gbuf_size;
	HELLOFPGA_GPU_HANDLE gbuf_handle;
	int wake_fd;
	pthread_mutex_t uirq_lock;
	int uirq_fd[XDMA_USER_IRQS];
	bool stream;
	pthread_mutex_t stream_lock;
	struct hellofpga_stream *streams;
	pthread_mutex_t submit_lock;
	struct hf_submitq *submitq[2][XDMA_MAX_CHANNELS];
};

/* backends: open fills dev->info, dev->ops, dev->priv */
int hf_emu_open(struct hellofpga_dev *dev, const char *spec);
int hf_kernel_open(struct hellofpga_dev *dev, const char *path);

static inline const char *hf_dir_name(enum hf_xdma_dir dir)
{
	return dir == XDMA_H2C ? "H2C" : "C2H";
}

#endif /* HF_DEV_H */
