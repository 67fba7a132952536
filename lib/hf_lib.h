/* SPDX-License-Identifier: MIT */
/*
 * hf_lib.h - internals of libhellofpga: the handle, the backend ops table,
 * error reporting and channel locking.
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
#ifndef HF_LIB_H
#define HF_LIB_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hellofpga.h"
#include "xdma_engine.h"

#define HF_DEFAULT_TIMEOUT_MS	5000
#define HF_MAX_TIMEOUT_MS	3600000
#define HF_ERRLEN		512

struct hellofpga_dev;
struct hf_pin;
struct hf_emu_host_stats;
struct hf_stream_gpu_slot;
struct hf_xfer_wb;

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
 * struct hf_stream_gpu_slot - where a GPU waits for a buffer of a stream.
 * @index: the buffer
 * @status: its writeback slot's status word (host address)
 * @status_dev: the same, the GPU's address
 * @gpu_ring: the ring is in GPU memory (the wait flushes remote writes)
 */
struct hf_stream_gpu_slot {
	uint32_t index;
	uint32_t *status;
	uint64_t status_dev;
	bool gpu_ring;
};

/**
 * struct hellofpga_stream - a C2H stream (HELLOFPGA_STREAM).
 * @h: the handle it was opened on (every call looks it up: -EBADF, -ECHILD)
 * @dev: the card; NULL once the ring is stopped (by HelloFPGA_Close() of @h
 *	or HelloFPGA_Stream_Close(); cleared under @lock and @gw_lock)
 * @next: the card's list of streams, under the card's @stream_lock
 * @cfg: the configuration
 * @lock: serialises waits, the application of releases and the stop
 * @gw_lock: serialises GPU waits (HelloFPGA_Stream_WaitOnGPU()) and GPU
 *	releases with the stop (taken inside @lock there)
 * @db: the doorbells of HelloFPGA_Stream_ReleaseOnGPU(), one word per
 *	buffer the GPU sets to 1 (atomic pointer; NULL until the first)
 * @db_dev: their GPU address
 * @db_armed: per buffer (atomic): a GPU release of it is queued
 * @ndb_armed: how many are (atomic)
 * @closing: set (atomic) when the handle or the stream is being closed
 * @revoked: set (atomic) when the GPU memory of the pin the ring lies in
 *	is freed: the ring is stopped (stream_halt), its waits -EIO
 * @halted: that stop was done (under @lock)
 * @pending: releases wait to be applied (atomic)
 * @held: per buffer (atomic): 0 with the card, 1 held by the caller, 2
 *	released, to be handed to the backend under @lock
 * @nheld: buffers in state 1 (atomic)
 * @host: the ring in host memory (NULL for a GPU ring)
 * @ref_design: the card is the reference design (HF_USER_ID): its source's
 *	counters are read
 * @drop_base: the source's DROPPED counter when the stream opened
 * @sent_base: its SENT counter then
 * @drop_last: DROPPED at the last EOP a wait handed out
 * @bdata: the backend's state
 * @refs: calls using it, under the stream table's lock (stream.c): a
 *	HelloFPGA_Stream_Close() waits for the others before it frees it
 * @stopped: HelloFPGA_Close() of @h has stopped it and is done with it
 *	(stream table's lock): a HelloFPGA_Stream_Close() that came during
 *	that Close waits for this before it frees it
 * @inherited: this process is a fork() child of the one that opened it
 *	(stream table's lock)
 * @value: its HELLOFPGA_STREAM (generation << 16 | slot + 1), never a
 *	pointer: a stale or made-up value is -EBADF, not a crash
 */
struct hellofpga_stream {
	uint32_t refs;
	bool stopped;
	bool inherited;
	HELLOFPGA_STREAM value;
	HELLOFPGA_HANDLE h;
	struct hellofpga_dev *dev;
	struct hellofpga_stream *next;
	HELLOFPGA_STREAM_CONFIG cfg;
	pthread_mutex_t lock;
	pthread_mutex_t gw_lock;
	uint32_t *db;
	uint64_t db_dev;
	uint8_t db_armed[HELLOFPGA_STREAM_MAX_BUFFERS];
	uint32_t ndb_armed;
	bool closing;
	bool revoked;
	bool halted;
	bool pending;
	uint8_t held[HELLOFPGA_STREAM_MAX_BUFFERS];
	uint32_t nheld;
	uint8_t *host;
	bool ref_design;
	uint32_t drop_base;
	uint32_t sent_base;
	uint32_t drop_last;
	void *bdata;
};

/* stream.c */
void hf_stream_wake_all(struct hellofpga_dev *dev);
void hf_stream_close_all(struct hellofpga_dev *dev);
struct hf_pin;
void hf_stream_pin_revoke(struct hellofpga_dev *dev, struct hf_pin *pin);
/* the writeback memory of a ring of @n buffers, as both backends lay it out */
void hf_stream_wb_layout(uint32_t n, size_t *slots_len, size_t *wb_len);
void hf_stream_wb_slot(void *wb, uint64_t wb_dev, uint32_t index,
		       struct hf_stream_gpu_slot *gs);
void hf_stream_wb_doorbells(void *wb, uint64_t wb_dev, size_t slots_len,
			    uint32_t **db, uint64_t *db_dev);
int hf_stream_slot_error(struct hellofpga_dev *dev, int err, const char *fn,
			 uint64_t seq, uint64_t credited, uint32_t n);

/* submit.c */
struct hf_submitq;
void hf_submit_wake_all(struct hellofpga_dev *dev);
void hf_submit_close(struct hellofpga_dev *dev);

/**
 * struct hf_pin - a pinned GPU buffer (GPU Direct).
 * @dev: the card it is pinned on
 * @handle: its HELLOFPGA_GPU_HANDLE
 * @gpu: first byte (4 KiB aligned)
 * @size: bytes (a multiple of 4 KiB)
 * @alloc_base: start of the GPU allocation holding it
 * @buffer_id: id of that allocation (hf_gpu_check())
 * @lock: transfers hold it shared; unpin and revocation exclusively
 * @refs: references (the table's, and one per lookup in progress); under
 *	the device's @pin_lock.  The last one frees the pin.
 * @rings: open streams whose ring lies in the pin (hf_pin_get_ring());
 *	under the device's @pin_lock.  Unpin is -EBUSY while there are.
 * @rings_running: of them, those whose engine may still write the pin
 *	(hf_pin_ring_running()); under the device's @pin_lock
 * @revoking: the GPU memory is being freed: no new ring goes into the pin
 *	(under the device's @pin_lock)
 * @watch: hf_gpu_watch() registration, 0 when the GPU layer offers no
 *	free callback (then every transfer calls hf_gpu_check())
 * @revoked: the GPU memory was freed while pinned (under @lock)
 * @released: the backend state is released (under @lock)
 * @internal: pinned by HelloFPGA_SetGPUBuffer()
 * @bdata: backend state
 */
struct hf_pin {
	struct hellofpga_dev *dev;
	uint64_t handle;
	void *gpu;
	size_t size;
	uintptr_t alloc_base;
	uint64_t buffer_id;
	pthread_rwlock_t lock;
	unsigned int refs;
	unsigned int rings;
	unsigned int rings_running;
	bool revoking;
	long watch;
	bool revoked;
	bool released;
	bool internal;
	void *bdata;
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
 * struct hf_shared_locks - the first page of a shared emulated card's lock
 * file, mapped by every handle of the card (chanlock.c).
 * @magic: HF_SHARED_LOCKS_MAGIC once initialised (written last)
 * @version: HF_SHARED_LOCKS_VERSION
 * @mutex_size: sizeof(pthread_mutex_t) of the build that laid it out: a
 *	build with another layout (another ABI) is refused, never mixed
 * @chan: a robust process-shared mutex per channel [dir][ch]
 */
struct hf_shared_locks {
	uint32_t magic;
	uint32_t version;
	uint32_t mutex_size;
	uint32_t reserved;
	pthread_mutex_t chan[2][XDMA_MAX_CHANNELS];
};

#define HF_SHARED_LOCKS_MAGIC	0x4b4c4648u	/* "HFLK" */
#define HF_SHARED_LOCKS_VERSION	1u
#define HF_SHARED_LOCKS_SIZE	4096

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

/* An MM call on an AXI-Stream card: C2H refused, H2C a packet (stream.c). */
int hf_stream_card_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			 uint64_t card_addr, const char *fn);

/* error.c */
int hf_set_error(struct hellofpga_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hf_set_errorv(struct hellofpga_dev *dev, int err, const char *fmt,
		  va_list ap);
void hf_clear_error(struct hellofpga_dev *dev);
void hf_error_to_thread(bool on);
const char *hf_last_error(struct hellofpga_dev *dev);

/*
 * error.c: the public functions that pass on errors of system calls, the
 * driver or CUDA return only the errors include/hellofpga.h documents for
 * them; hf_api_ret() reports any other as -EIO.
 */
enum hf_api {
	HF_API_OPEN,
	HF_API_DMA_MM_READ_C2H,
	HF_API_DMA_MM_WRITE_H2C,
	HF_API_USER_READ32,
	HF_API_USER_WRITE32,
	HF_API_USER_IRQ_WAIT,
	HF_API_USER_IRQ_GET_FD,
	HF_API_GPUDIRECT_PIN,
	HF_API_GPUDIRECT_READ_C2H,
	HF_API_GPUDIRECT_WRITE_H2C,
	HF_API_GPUDIRECT_XFER,
	HF_API_SET_GPU_BUFFER,
	HF_API_GPU_ALLOC,
	HF_API_GPU_FREE,
	HF_API_GPU_MEMCPY,
	HF_API_STREAM_OPEN,
	HF_API_STREAM_WAIT,
	HF_API_STREAM_RELEASE,
	HF_API_STREAM_GET_STATS,
	HF_API_STREAM_CLOSE,
	HF_API_STREAM_WAIT_ON_GPU,
	HF_API_STREAM_RELEASE_ON_GPU,
	HF_API_GPU_STREAM_CREATE,
	HF_API_GPU_STREAM_DESTROY,
	HF_API_GPU_STREAM_SYNCHRONIZE,
	HF_API_GPU_LAUNCH_HOST_FUNC,
	HF_API_GPUDIRECT_SUBMIT,
	HF_API_GPUDIRECT_COMPLETE,
	HF_API_COUNT
};

#define HF_API_MAX_ERRS	24

/**
 * struct hf_api_errs - the errors a public function documents.
 * @fn: its name
 * @errs: the errnos (positive), 0-terminated; EIO among them
 */
struct hf_api_errs {
	const char *fn;
	int errs[HF_API_MAX_ERRS];
};

extern const struct hf_api_errs hf_api_errs[HF_API_COUNT];
int hf_api_ret(enum hf_api fn, int ret);

/* handle.c */
int hf_dev_register(struct hellofpga_dev *dev, HELLOFPGA_HANDLE *out);
int hf_dev_ref(HELLOFPGA_HANDLE h, struct hellofpga_dev **out);
int hf_dev_get(HELLOFPGA_HANDLE h, const char *fn, struct hellofpga_dev **out);
void hf_dev_put(struct hellofpga_dev *dev);
int hf_dev_unregister(HELLOFPGA_HANDLE h, struct hellofpga_dev **out,
		      void (*wake)(struct hellofpga_dev *dev));
int hf_dev_wake_fd(struct hellofpga_dev *dev);

/* hf_dev_put(@dev), then @ret: the end of a public call */
static inline int hf_dev_put_ret(struct hellofpga_dev *dev, int ret)
{
	hf_dev_put(dev);
	return ret;
}

/* gpudirect.c */
int hf_gpudirect_check(struct hellofpga_dev *dev, int ch,
		       HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		       size_t len, int dir, int timeout_ms,
		       enum hf_xdma_dir *xd, struct hf_pin **pinp,
		       const char *fn);
int hf_gpudirect_pin_live(struct hellofpga_dev *dev, struct hf_pin *pin,
			  HELLOFPGA_GPU_HANDLE handle, const char *fn);
int hf_gpudirect_run(struct hellofpga_dev *dev, struct hf_pin *pin,
		     HELLOFPGA_GPU_HANDLE handle, enum hf_xdma_dir xd, int ch,
		     size_t off, uint64_t card, size_t len, int timeout_ms,
		     const struct hf_xfer_wb *wb, size_t *actual,
		     const char *fn);
int hf_gpudirect_xfer(struct hellofpga_dev *dev, int ch,
		      HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		      size_t len, int dir, int timeout_ms, size_t *actual,
		      const char *fn);
int hf_gpudirect_dma_mm(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			int ch, void *buf, uint64_t card, size_t len,
			size_t *actual, const char *fn);
void hf_gpudirect_close(struct hellofpga_dev *dev);
struct hf_pin *hf_pin_get(struct hellofpga_dev *dev,
			  HELLOFPGA_GPU_HANDLE handle);
void hf_pin_put(struct hf_pin *pin);
int hf_pin_get_ring(struct hellofpga_dev *dev, HELLOFPGA_GPU_HANDLE handle,
		    struct hf_pin **out, const char *fn);
void hf_pin_put_ring(struct hf_pin *pin);
void hf_pin_ring_running(struct hf_pin *pin, bool on);

/* chanlock.c */
void hf_deadline_in(struct timespec *dl, int timeout_ms);
int hf_mutex_lock_until(pthread_mutex_t *m, const struct timespec *dl);
int hf_rwlock_lock_until(pthread_rwlock_t *l, bool excl,
			 const struct timespec *dl);
int hf_ofd_lock_until(int fd, short type, off_t start, off_t len,
		      const struct timespec *dl);
struct hf_shared_locks *hf_shared_locks_map(int fd, int *err);
void hf_shared_locks_unmap(struct hf_shared_locks *sl);
int hf_chan_lock(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		 const struct timespec *dl);
void hf_chan_unlock(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch);

/* user_pages.c */
int hf_user_buf_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir, void *buf,
		      size_t len);
extern bool hf_probe_no_query;
bool hf_populate_supported(void);

/* backends: open fills dev->info, dev->ops, dev->priv */
int hf_emu_open(struct hellofpga_dev *dev, const char *spec);
int hf_kernel_open(struct hellofpga_dev *dev, const char *path);

static inline const char *hf_dir_name(enum hf_xdma_dir dir)
{
	return dir == XDMA_H2C ? "H2C" : "C2H";
}

#endif /* HF_LIB_H */
