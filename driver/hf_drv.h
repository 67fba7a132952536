/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hf_drv.h - internal structures of hellofpga.ko, the PCIe driver of a
 * Xilinx XDMA (PG195) card, private to its files (the ioctl ABI is
 * include/uapi/hellofpga.h, the memory providers' interface hf_p2p.h).
 *
 * Objects and lifetimes:
 *   struct hf_card   one bound PCI function; reference counted, because open
 *                    files outlive remove() (they then fail with -ENODEV)
 *   struct hf_chan   one H2C or C2H engine with its read()/write() state
 *   struct hf_file   one open file of any node of the card; owns pins
 *   struct hf_pin_core  one pin (hf_p2p.h's struct hf_pin plus our part)
 *   struct hf_stream one C2H stream ring of an AXI-Stream card (hf_stream.c)
 *
 * Lock order (outer first):
 *   hf_chan.lock -> mmap_lock (pinning user pages) ;
 *   hf_chan.lock -> hf_file.stream_lock (spinlock; mmap of a stream
 *   ring takes only this one, under mmap_lock) ;
 *   hf_chan.lock -> hf_card.hw_lock (read) ;
 *   hf_chan.lock -> hf_pin_core.state_lock (spinlock, innermost) ;
 *   hf_card.files_lock -> hf_file.pins_lock
 * hw_lock is never held while touching user memory (the BAR fault handler
 * takes it for reading under mmap_lock) and never taken while holding it
 * already.  Revocation (a provider's callback) takes only state_lock and
 * waits, bounded, for the runs of the pin to end (docs/driver-stop.md).
 */
#ifndef HF_DRV_H
#define HF_DRV_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/idr.h>
#include <linux/irqreturn.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "../core/xdma_engine.h"
#include "../include/uapi/hellofpga.h"
#include "hf_p2p.h"

#define HF_DRV_NAME		"hellofpga"

/* Cards and their minors: one block of HF_MINORS_PER_CARD per card. */
#define HF_MAX_CARDS		64
#define HF_MINORS_PER_CARD	32
#define HF_MINOR_CONTROL	0
#define HF_MINOR_USER		1
#define HF_MINOR_H2C(ch)	(2 + (ch))
#define HF_MINOR_C2H(ch)	(2 + XDMA_MAX_CHANNELS + (ch))
#define HF_MINOR_EVENTS(n)	(2 + 2 * XDMA_MAX_CHANNELS + (n))

/* Interrupt vectors at most: one per engine plus the 16 user interrupts. */
#define HF_MAX_VECTORS		(XDMA_MAX_ENGINES + XDMA_USER_IRQS)

/* ddr_size parameter not given: each card says its own (hf_pci.c). */
#define HF_DDR_SIZE_AUTO	(~0ULL)
/* Card memory of a card that does not say (not the reference design). */
#define HF_DDR_SIZE_DEFAULT	(2ULL << 30)

/* Length of the per-file last-error text (struct hellofpga_last_error). */
#define HF_ERR_LEN		256

/* read()/write(): pages pinned, mapped and run per engine run. */
#define HF_RW_CHUNK_PAGES	1024u
/* XFER: most descriptors of one engine run; longer ranges are split. */
#define HF_RUN_MAX_DESC		16384u

/* Control node: registers below the MSI-X table are visible. */
#define HF_CONTROL_SIZE		XDMA_MSIX_TABLE_OFFSET

/**
 * enum hf_node_type - kinds of character device node of a card.
 * @HF_NODE_CONTROL: _control: ioctls; DMA/config BAR registers for openers
 *	with CAP_SYS_RAWIO
 * @HF_NODE_USER: _user: the user BAR
 * @HF_NODE_H2C: _h2c_<ch>: write() to card memory
 * @HF_NODE_C2H: _c2h_<ch>: read() from card memory
 * @HF_NODE_EVENTS: _events_<n>: user interrupt n
 */
enum hf_node_type {
	HF_NODE_CONTROL,
	HF_NODE_USER,
	HF_NODE_H2C,
	HF_NODE_C2H,
	HF_NODE_EVENTS,
};

struct hf_card;

/**
 * struct hf_desc_mem - DMA-coherent descriptor storage of a chain.
 * @cpu: CPU address, NULL before the first allocation
 * @bus: bus address
 * @cap: capacity in descriptors
 */
struct hf_desc_mem {
	void *cpu;
	dma_addr_t bus;
	u32 cap;
};

/**
 * struct hf_quarantine - what a wedged engine may still reach.
 * @held: the engine is wedged and the fields below hold its memory
 * @mem: storage of the chain the engine was running
 * @has_rw: a read()/write() chunk: @sgt, @pages, @npages are its mapping
 * @sgt: the chunk's DMA-mapped sg table
 * @pages: the chunk's pinned user pages (the array is owned)
 * @npages: their number
 * @c2h: direction of the chunk (pages dirtied on release)
 * @release: lets go of what else the run used, NULL when nothing: for a
 *	pin whose chain the engine was running (hf_pin_quarantine()), its
 *	reference, and the provider's unpin that waits for this release
 *	(hf_pin_core.quarantined)
 * @release_data: the argument of @release
 * @wb_release: lets go of the host pin the run's writeback went to
 *	(hf_pin_quarantine_wb()), NULL when none or the same pin as @release's
 * @wb_release_data: the argument of @wb_release
 *
 * Nothing here is unmapped, unpinned or freed while the engine may still
 * move data: only when hf_xdma_engine_recover() proves it idle, or once bus
 * mastering is off (removal, revocation of the pin).
 */
struct hf_quarantine {
	bool held;
	struct hf_desc_mem mem;
	bool has_rw;
	struct sg_table sgt;
	struct page **pages;
	unsigned int npages;
	bool c2h;
	void (*release)(void *data);
	void *release_data;
	void (*wb_release)(void *data);
	void *wb_release_data;
};

/**
 * struct hf_chan - one SGDMA engine of a card.
 * @card: the card
 * @dir: direction
 * @ch: channel within the direction
 * @lock: serialises engine runs and protects @chain, @mem, @pages and
 *	@sg, and the per-pin chains of this engine (struct hf_pin_core)
 * @engine: the engine core's state
 * @ready: @engine was initialised (read by the interrupt handlers)
 * @chain: chain of the read()/write() path
 * @mem: storage of @chain, grown on demand
 * @pages: pinned user pages of one read()/write() chunk, or of one H2C
 *	packet of an AXI-Stream card (hf_xfer.c)
 * @pages_cap: entries of @pages
 * @sg: DMA segments of one chunk or packet
 * @sg_cap: entries of @sg
 * @index: engine order index (H2C n -> n, C2H n -> num_h2c + n)
 * @q: memory a wedged engine may still reach (protected by @lock)
 * @stream: AXI-Stream C2H: the channel's stream (hf_stream.c), under @lock
 * @revoke_work: set while a stream's ring lies in a pin marked active on
 *	this channel: a revocation or teardown of the pin queues it to end
 *	the ring (read under the pin's state_lock, hf_pin_cancel_runs())
 */
struct hf_chan {
	struct hf_card *card;
	enum hf_xdma_dir dir;
	u32 ch;
	struct mutex lock;	/* runs, @chain, @mem, @pages, @sg, @q */
	/* waiters for @lock (hf_chan_lock()), and stream RELEASEs */
	wait_queue_head_t lock_wq;
	struct hf_xdma_engine engine;
	bool ready;
	struct hf_xdma_chain chain;
	struct hf_desc_mem mem;
	struct page **pages;
	u32 pages_cap;
	struct hf_sg *sg;
	u32 sg_cap;
	u32 index;
	struct hf_quarantine q;
	struct hf_stream *stream;
	struct work_struct *revoke_work;
};

/**
 * struct hf_user_irq - one user interrupt (usr_irq_req line) of the card.
 * @card: the card
 * @n: its number, 0..15
 * @lock: protects @events (taken in hard interrupt context)
 * @events: interrupts since the last read() of the events node
 * @wq: readers and pollers of the events node
 */
struct hf_user_irq {
	struct hf_card *card;
	u32 n;
	spinlock_t lock;	/* @events */
	u32 events;
	wait_queue_head_t wq;
};

/**
 * struct hf_card - one bound XDMA function.
 * @ref: references: probe until remove, each open file
 * @pdev: the PCI device (a reference is held until the card is freed)
 * @index: N of /dev/hellofpgaN_*
 * @cdev: the character device of the card's minors (dynamically allocated,
 *	so it may outlive the card)
 * @devt: first device number of the card
 * @node_made: bitmap of device nodes created, by minor offset
 * @dma_bar: the DMA/config BAR as the engine core sees it
 * @dma_bar_idx: its BAR number
 * @user_bar: the user BAR mapping, NULL when the card has none
 * @user_bar_idx: its BAR number, -1 when none
 * @user_bar_size: its length
 * @user_bar_phys: its physical address (mmap)
 * @xdev: the engine core's card
 * @chans: engines, [dir][ch]
 * @wb_cpu: poll-mode writeback words, one cache line per engine
 * @wb_bus: bus address of @wb_cpu
 * @poll: engines complete by poll-mode writeback
 * @irq_mode: HELLOFPGA_IRQ_MODE_* of the interrupt vectors (POLL: none)
 * @nvec: interrupt vectors allocated
 * @irq_names: names of the requested interrupts (for /proc/interrupts)
 * @irq_requested: bitmap of requested vectors
 * @user_irq: the 16 user interrupts
 * @hw_lock: held for reading by every access to the card's registers or
 *	engines from a file, for writing by remove() to set @dead
 * @dead: the card was removed: no register access any more
 * @frozen: a PCIe error recovery or a reset of the card is in progress
 *	(hw_lock held for writing to change it): accesses fail with -EIO
 * @recovering: a PCIe error recovery or a reset began (set before the runs
 *	in flight are aborted, cleared at its end, without a lock): a wait it
 *	cuts short fails with -EIO, not as for a removal (hf_run_exit(), a
 *	stream's WAIT)
 * @bus_off: bus mastering was turned off because memory a wedged engine
 *	could reach had to go (revocation): no run until the driver is
 *	rebound; the reason is in dmesg
 * @files_lock: protects @files
 * @files: open files (struct hf_file.node)
 * @pinned_bytes: bytes pinned by all files of the card
 * @pins: pins alive
 * @irqs: interrupts handled
 * @pin_limit: most bytes that may be pinned
 * @ddr_size: card memory size (0: unbounded): the ddr_size parameter, else
 *	what the card says (hf_card_ddr_size())
 * @timeout_ms: default engine timeout
 * @name: "hellofpgaN"
 */
struct hf_card {
	struct kref ref;
	struct pci_dev *pdev;
	int index;
	struct cdev *cdev;
	dev_t devt;
	DECLARE_BITMAP(node_made, HF_MINORS_PER_CARD);
	struct hf_mmio dma_bar;
	int dma_bar_idx;
	void __iomem *user_bar;
	int user_bar_idx;
	resource_size_t user_bar_size;
	phys_addr_t user_bar_phys;
	struct hf_xdma_dev xdev;
	struct hf_chan chans[2][XDMA_MAX_CHANNELS];
	__le32 *wb_cpu;
	dma_addr_t wb_bus;
	bool poll;
	u32 irq_mode;
	int nvec;
	char irq_names[HF_MAX_VECTORS][32];
	DECLARE_BITMAP(irq_requested, HF_MAX_VECTORS);
	struct hf_user_irq user_irq[XDMA_USER_IRQS];
	struct rw_semaphore hw_lock;	/* @dead; register access */
	bool dead;
	bool frozen;
	bool recovering;
	atomic_t bus_off;
	struct mutex files_lock;	/* @files */
	struct list_head files;
	atomic64_t pinned_bytes;
	atomic64_t pins;
	atomic64_t irqs;
	u64 pin_limit;
	u64 ddr_size;
	u32 timeout_ms;
	char name[24];	/* "hellofpga" and any int */
};

#define HF_NCHANS	(2 * XDMA_MAX_CHANNELS)

/* Channel slot @i of @card, 0 .. HF_NCHANS - 1: H2C 0..3, then C2H 0..3. */
static inline struct hf_chan *hf_chan_at(struct hf_card *card, u32 i)
{
	return &card->chans[i / XDMA_MAX_CHANNELS][i % XDMA_MAX_CHANNELS];
}

/**
 * struct hf_file - one open file of a card node.
 * @card: the card (a reference is held)
 * @type: kind of node
 * @index: channel or user interrupt number of the node
 * @node: entry in the card's file list
 * @filp: the file (its mapping is zapped at remove())
 * @rawio: the file may access the DMA/config registers itself (read,
 *	write, mmap of the control node), decided at open from the opener's
 *	credentials (hf_rawio_check())
 * @rawio_why: why it may not (control node), for the error text
 * @err_lock: protects @err and @err_text
 * @err: negative errno of the last failure, 0 when none
 * @err_text: its text
 * @pins_lock: protects @pins and @npins; never held across a provider's
 *	unpin
 * @pins: pins of the file by handle (struct hf_pin_core)
 * @npins: handles of @pins in use (reserved or published), at most the
 *	max_pins parameter
 * @timeout_ms: timeout of its runs (HELLOFPGA_IOC_SET_TIMEOUT), 0 for the
 *	card's (module parameter timeout_ms)
 * @stream_lock: protects @stream, and its pages, for readers without the
 *	channel's lock
 * @stream: the stream this file started on its c2h node (hf_stream.c);
 *	changed under the channel's lock and @stream_lock
 */
struct hf_file {
	struct hf_card *card;
	enum hf_node_type type;
	u32 index;
	struct list_head node;
	struct file *filp;
	bool rawio;
	const char *rawio_why;
	spinlock_t err_lock;		/* @err, @err_text */
	int err;
	char err_text[HF_ERR_LEN];
	struct mutex pins_lock;		/* @pins, @npins */
	struct idr pins;
	u32 npins;
	u32 timeout_ms;
	spinlock_t stream_lock;		/* @stream */
	struct hf_stream *stream;
};

/* The timeout of @hf's runs (HELLOFPGA_IOC_SET_TIMEOUT, else the card's). */
static inline u64 hf_file_timeout_ns(struct hf_file *hf)
{
	u32 ms = READ_ONCE(hf->timeout_ms);

	return (u64)(ms ? ms : hf->card->timeout_ms) * NSEC_PER_MSEC;
}

/**
 * struct hf_pin_chain - descriptor chain of a pin for one engine, kept
 *	between XFERs and rebuilt only when the range changes.
 * @cache: the chain and the range it was built for
 * @mem: its storage
 */
struct hf_pin_chain {
	struct hf_xdma_chain_cache cache;
	struct hf_desc_mem mem;
};

/**
 * struct hf_pin_core - the main module's part of a pin.
 * @pin: the provider's view (hf_p2p.h); @pin.core points back here
 * @ref: references: the file's table, each XFER or teardown using it, a
 *	quarantine holding it
 * @state_lock: protects @revoked, @released, @active, @quarantined and
 *	@unpin_deferred; innermost, never held across a sleep
 * @wq: woken when @active drops
 * @revoked: no DMA may start any more
 * @released: teardown has begun (UNPIN, close, removal)
 * @active: engines (engine order bits) running a chain of the pin now;
 *	revocation cancels their runs and waits for the bits to clear
 * @quarantined: wedged channels holding the pin's memory (hf_quarantine)
 * @streams: stream rings in the pin (hf_pin_stream_begin()): UNPIN is
 *	refused while there are any
 * @unpin_deferred: teardown found @quarantined: the last release of a
 *	quarantine calls the provider's unpin
 * @ops: the provider (its module is held)
 * @card: the card
 * @hfile: the file owning the pin, NULL once it is torn down
 * @handle: its handle
 * @accounted: bytes counted in the card's pinned_bytes
 * @mm: the pinning process's memory (grabbed), charged with @locked
 * @locked: pages charged to @mm's locked memory (RLIMIT_MEMLOCK): the
 *	pinned host pages and the descriptor storage of the chains (an
 *	XFER's until the pin goes, a stream ring's until the ring ends)
 * @err_set: the provider set an error text (hf_pin_set_error())
 * @read_only: the provider pinned memory the caller may not write (a
 *	dma-buf whose file is not open for writing): the card only reads it
 *	(H2C); C2H XFERs and stream rings into it are refused with -EACCES
 * @chains: chains by [dir][ch]; their content is protected by the
 *	channel's lock, their storage lives until teardown (or the release
 *	of a quarantine that took it)
 */
struct hf_pin_core {
	struct hf_pin pin;
	struct kref ref;
	spinlock_t state_lock;		/* the flags and counts below */
	wait_queue_head_t wq;
	bool revoked;
	bool released;
	u32 active;
	u32 quarantined;
	u32 streams;
	bool unpin_deferred;
	const struct hf_p2p_ops *ops;
	struct hf_card *card;
	struct hf_file *hfile;
	u64 handle;
	u64 accounted;
	struct mm_struct *mm;
	atomic_long_t locked;
	bool err_set;
	bool read_only;
	struct hf_pin_chain chains[2][XDMA_MAX_CHANNELS];
};

/*
 * What each file gives the others, by layer: a file calls into the files
 * above it here, never into one below (hf_main.c, at the bottom, loads the
 * module).  scripts/driver-deps.py checks it (kernel-ci.sh's driver-deps).
 */

/* hf_param.c: the module parameters */
extern bool hf_poll_mode;
extern char *hf_irq_mode;
extern unsigned int hf_timeout_ms;
extern unsigned long long hf_ddr_size;
extern unsigned int hf_pin_limit_mb;
extern unsigned int hf_stop_wait_ms;
extern unsigned int hf_max_pins;
extern char *hf_ids;

/* hf_file.c: state of an open file */
__printf(3, 4) void hf_set_error(struct hf_file *hf, int err,
				 const char *fmt, ...);
void hf_set_errno(struct hf_file *hf, int err);
void hf_rawio_decide(struct hf_file *hf);
int hf_rawio_check(struct hf_file *hf, const char *what);

/* hf_card.c: the card object, its registry and lifetime */
struct hf_card *hf_card_alloc(struct pci_dev *pdev);
int hf_card_reserve_index(struct hf_card *card);
void hf_card_publish(struct hf_card *card);
void hf_card_unpublish(struct hf_card *card);
void hf_card_put(struct hf_card *card);
struct hf_card *hf_card_get_by_index(int index);
int hf_card_enter(struct hf_card *card);
const char *hf_card_enter_why(int err);
int hf_card_enter_for(struct hf_card *card, struct hf_file *hf,
		      const char *what);
void hf_card_exit(struct hf_card *card);
void hf_card_abort_runs(struct hf_card *card);

/* hf_engine.c: the engines and their descriptor memory */
const char *hf_chan_name(const struct hf_chan *chan);
u64 hf_link_rate(struct pci_dev *pdev);
int hf_chan_lock(struct hf_chan *chan, u64 timeout_ns);
void hf_chan_unlock(struct hf_chan *chan);
int hf_engines_init(struct hf_card *card);
int hf_engine_reinit(struct hf_chan *c);
void hf_engines_fini(struct hf_card *card);
void hf_engines_quiesce(struct hf_card *card);
int hf_desc_mem_reserve(struct hf_card *card, struct hf_desc_mem *mem,
			u32 n);
unsigned long hf_desc_mem_pages(u32 n);
void hf_desc_mem_free(struct hf_card *card, struct hf_desc_mem *mem);
void hf_engines_free_desc(struct hf_card *card);

/* hf_stop.c: what wedged engines hold, bus mastering off */
void hf_quarantine_rw(struct hf_chan *chan, struct sg_table *sgt,
		      unsigned int npages);
void hf_quarantine_hold(struct hf_chan *chan, struct hf_desc_mem *mem,
			void (*release)(void *data), void *data,
			const char *what);
void hf_quarantine_hold_wb(struct hf_chan *chan, void (*release)(void *data),
			   void *data);
void hf_quarantine_release(struct hf_chan *chan);
int hf_chan_usable(struct hf_file *hf, struct hf_chan *chan);
void hf_card_bus_off(struct hf_card *card, const char *why);
void hf_card_release_quarantines(struct hf_card *card);
void hf_card_release_idle_quarantines(struct hf_card *card);

/* hf_pin.c: pins (the provider interface: hf_p2p.h) */
u64 hf_pin_features(void);
int hf_pin_create(struct hf_file *hf, const struct hellofpga_pin *req,
		  struct hf_pin_core **out);
void hf_pin_teardown(struct hf_pin_core *pc);
void hf_pin_put(struct hf_pin_core *pc);
int hf_pin_start_run(struct hf_pin_core *pc, struct hf_chan *chan);
void hf_pin_end_run(struct hf_pin_core *pc, struct hf_chan *chan);
void hf_pin_quarantine(struct hf_pin_core *pc, struct hf_chan *chan);
void hf_pin_quarantine_wb(struct hf_pin_core *pc, struct hf_chan *chan);
struct hf_pin_core *hf_pin_lookup(struct hf_file *hf, u64 handle);
int hf_pin_stream_begin(struct hf_pin_core *pc, struct hf_chan *chan);
void hf_pin_stream_end(struct hf_pin_core *pc, struct hf_chan *chan);
int hf_pin_ring_reserve(struct hf_file *hf, struct hf_pin_core *pc,
			struct hf_pin_chain *pch, u32 n);
int hf_pin_stream_reserve(struct hf_file *hf, struct hf_pin_core *pc,
			  struct hf_chan *chan, u32 n);
void hf_pin_stream_free(struct hf_pin_core *pc, struct hf_chan *chan);
void hf_file_release_pins(struct hf_file *hf);
void hf_card_release_pins(struct hf_card *card);

/* hf_host.c, hf_dmabuf.c: the built-in providers */
extern const struct hf_p2p_ops hf_host_ops;
extern const struct hf_p2p_ops hf_dmabuf_ops;
void hf_host_sync(struct hf_pin *pin, u64 off, u64 len, bool for_device);

/**
 * struct hf_host_words - writeback words in a host pin (hf_host_words_map()).
 * @cpu: their kernel address, NULL when not mapped
 * @bus: their bus address
 * @vbase: the vmap() behind @cpu, NULL when @cpu is a page's address
 */
struct hf_host_words {
	void *cpu;
	dma_addr_t bus;
	void *vbase;
};

int hf_host_words_map(struct hf_pin *pin, u64 off, u64 len,
		      struct hf_host_words *w);
void hf_host_words_unmap(struct hf_host_words *w);

/**
 * struct hf_card_window - card addresses of a read()/write()-style transfer.
 * @base: card address of the first byte, or of the window
 * @size: 0: the bytes go to @base onwards; else byte i goes to
 *	@base + i mod @size (Xilinx's aperture transfers)
 */
struct hf_card_window {
	u64 base;
	u64 size;
};

/* hf_xfer.c: read()/write() and the XFER ioctl */
int hf_xfer_no_stream(struct hf_file *hf, struct hf_card *card);
ssize_t hf_xfer_rw(struct hf_file *hf, struct hf_chan *chan,
		   char __user *buf, size_t count, loff_t *ppos);
ssize_t hf_xfer_window(struct hf_file *hf, struct hf_chan *chan,
		       char __user *buf, size_t count,
		       const struct hf_card_window *win);
u64 hf_sg_fit(const struct hf_sg *sg, u32 nsg, u64 offset, u64 len,
	      u32 max_desc);
bool hf_card_range_ok(struct hf_card *card, u64 addr, u64 len);
void hf_report_run(struct hf_file *hf, struct hf_chan *chan,
		   const struct hf_xdma_result *res);
int hf_run_exit(struct hf_chan *chan, int ret, struct hf_xdma_result *res);
long hf_xfer_ioctl(struct hf_file *hf, void __user *uarg);

/* hf_stream.c: C2H AXI-Stream rings of the c2h nodes */
long hf_stream_ioctl(struct hf_file *hf, unsigned int cmd, void __user *uarg);
__poll_t hf_stream_poll(struct hf_file *hf, struct file *file,
			poll_table *wait);
int hf_stream_mmap(struct hf_file *hf, struct vm_area_struct *vma);
void hf_stream_file_release(struct hf_file *hf);
void hf_card_halt_streams(struct hf_card *card, int err);

/* hf_xdma.c: the Xilinx reference driver's ioctls */
long hf_xdma_ioctl(struct hf_file *hf, unsigned int cmd, void __user *uarg);

/* hf_ioctl.c: the ioctls of every node */
long hf_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* hf_events.c: user interrupts */
irqreturn_t hf_user_irq_handle(struct hf_user_irq *ui);
int hf_events_open(struct hf_file *hf);
ssize_t hf_events_read(struct hf_file *hf, char __user *buf, size_t count);
__poll_t hf_events_poll(struct hf_file *hf, struct file *file,
			poll_table *wait);
u32 hf_events_open_mask(struct hf_card *card);
void hf_events_wake_all(struct hf_card *card);

/* hf_mmap.c: BAR mappings */
int hf_mmap(struct file *file, struct vm_area_struct *vma);
void hf_mmap_zap(struct hf_card *card);

/* hf_cdev.c: the character devices */
int hf_cdev_init(void);
void hf_cdev_exit(void);
int hf_cdev_create(struct hf_card *card);
void hf_cdev_destroy(struct hf_card *card);

/* hf_pci.c: the PCI driver */
extern struct pci_driver hf_pci_driver;

/**
 * hf_dev() - the struct device of a card for messages and DMA.
 * @card: the card
 *
 * Return: &card->pdev->dev.
 */
static inline struct device *hf_dev(struct hf_card *card)
{
	return &card->pdev->dev;
}

/**
 * hf_engine_count() - engines of a card.
 * @card: the card
 *
 * Return: H2C plus C2H channels.
 */
static inline u32 hf_engine_count(const struct hf_card *card)
{
	return card->xdev.num_h2c + card->xdev.num_c2h;
}

/**
 * hf_chan_of() - the engine of a direction and channel, if the card has it.
 * @card: the card
 * @dir: XDMA_H2C or XDMA_C2H
 * @ch: channel
 *
 * Return: the channel, NULL when the card lacks it.
 */
static inline struct hf_chan *hf_chan_of(struct hf_card *card, u32 dir,
					 u32 ch)
{
	u32 n;

	if (dir > XDMA_C2H)
		return NULL;
	dir = array_index_nospec(dir, 2);
	n = dir == XDMA_H2C ? card->xdev.num_h2c : card->xdev.num_c2h;
	if (ch >= n)
		return NULL;
	/* a user's index: no speculative access past the card's channels */
	ch = array_index_nospec(ch, n);
	return &card->chans[dir][ch];
}

/**
 * hf_chan_by_index() - the engine of an engine order index.
 * @card: the card
 * @index: H2C n -> n, C2H n -> num_h2c + n
 *
 * Return: the channel, NULL when the card lacks it.
 */
static inline struct hf_chan *hf_chan_by_index(struct hf_card *card,
					       u32 index)
{
	u32 nh = card->xdev.num_h2c;

	return index < nh ? hf_chan_of(card, XDMA_H2C, index) :
			    hf_chan_of(card, XDMA_C2H, index - nh);
}

#endif /* HF_DRV_H */
