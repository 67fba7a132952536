/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xdma_engine.h - the OS-neutral engine core: descriptor chains and the
 * SGDMA engine start/complete/stop logic of the XDMA IP (PG195).
 *
 * Written once in kernel style and compiled unchanged into hellofpga.ko and
 * into libhellofpga (see core/hf_os.h for what it needs from its host).
 *
 * Life of a transfer:
 *   hf_xdma_chain_count()   how many descriptors a scatter list needs
 *   hf_xdma_chain_init()    hand the chain its (DMA-coherent) descriptor storage
 *   hf_xdma_chain_build()   write the descriptors; no allocation, may be redone
 *                        (the _window variants: card addresses that wrap
 *                        inside a window, for Xilinx's aperture ioctls)
 *   hf_xdma_engine_run()    program, start, wait (poll-mode writeback or IRQ),
 *                        stop; on error or timeout decode the status
 * A chain built once can be run any number of times.  Runs on one engine
 * must be serialised by the caller; different engines run in parallel.
 *
 * A card keeps moving data after software gives up: clearing Run lets the
 * descriptor in progress finish (PG195), and one descriptor can carry up to
 * 256 MiB - 4 KiB.  So a run that fails (timeout, fatal signal, cancel,
 * removal) stops its engine and then proves it idle: Busy clear and the
 * completed-descriptor count stable, waiting at most what the descriptor in
 * progress can still take at the link's rate (hf_xdma_dev.link_rate, capped
 * by hf_xdma_dev.stop_max_ns).  Only then may the caller unmap or free what
 * the chain points at.  An engine that does not go idle in that time, or
 * whose card reads all ones (no proof either: its DMA may still be in
 * flight), is wedged (hf_xdma_result.wedged): the caller keeps every buffer
 * of the chain and the chain's storage, runs on the engine fail at once,
 * and hf_xdma_engine_recover() tells when it is idle again.
 */
#ifndef HF_XDMA_ENGINE_H
#define HF_XDMA_ENGINE_H

#include "hf_os.h"
#include "xdma_regs.h"

/**
 * struct hf_sg - one contiguous range of bus (DMA) addresses.
 * @addr: bus address of the first byte
 * @len: length in bytes, > 0
 */
struct hf_sg {
	u64 addr;
	u64 len;
};

/**
 * enum hf_xdma_dir - transfer direction.
 * @XDMA_H2C: host (or GPU) memory -> card memory
 * @XDMA_C2H: card memory -> host (or GPU) memory
 */
enum hf_xdma_dir {
	XDMA_H2C = 0,
	XDMA_C2H = 1,
};

/**
 * hf_xdma_desc_pack() - write descriptor @d, little endian.
 * @d: the descriptor
 * @control: its control word (magic, Nxt_adj, Stop, Completed, EOP)
 * @len: bytes
 * @src: source address (host bus address for H2C, card address for C2H)
 * @dst: destination address
 * @next: bus address of the next descriptor block, 0 for none
 */
static inline void hf_xdma_desc_pack(struct hf_xdma_desc *d, u32 control,
				     u32 len, u64 src, u64 dst, u64 next)
{
	d->control = cpu_to_le32(control);
	d->len = cpu_to_le32(len);
	d->src_lo = cpu_to_le32(lower_32_bits(src));
	d->src_hi = cpu_to_le32(upper_32_bits(src));
	d->dst_lo = cpu_to_le32(lower_32_bits(dst));
	d->dst_hi = cpu_to_le32(upper_32_bits(dst));
	d->next_lo = cpu_to_le32(lower_32_bits(next));
	d->next_hi = cpu_to_le32(upper_32_bits(next));
}

/**
 * struct hf_xdma_chain - a built descriptor chain in DMA-coherent storage.
 * @desc: CPU address of descriptor 0 (32-byte aligned)
 * @bus: bus address of descriptor 0; descriptor i is at @bus + 32 * i
 * @capacity: number of descriptors the storage holds
 * @count: number of descriptors of the built chain (0 before a build)
 * @first_adj: value for the SGDMA first-descriptor adjacent register
 * @bytes: number of bytes the chain moves
 * @card_addr: card address of the first byte
 * @dir: direction the chain was built for
 */
struct hf_xdma_chain {
	struct hf_xdma_desc *desc;
	u64 bus;
	u32 capacity;
	u32 count;
	u32 first_adj;
	u64 bytes;
	u64 card_addr;
	enum hf_xdma_dir dir;
};

int hf_xdma_chain_count(const struct hf_sg *sg, u32 nsg, u64 offset, u64 len);
void hf_xdma_chain_init(struct hf_xdma_chain *c, void *cpu, u64 bus, u32 capacity);
int hf_xdma_chain_build(struct hf_xdma_chain *c, enum hf_xdma_dir dir,
			const struct hf_sg *sg, u32 nsg, u64 offset, u64 len,
			u64 card_addr);
int hf_xdma_chain_count_window(const struct hf_sg *sg, u32 nsg, u64 offset,
			       u64 len, u64 win_size, u64 win_off);
int hf_xdma_chain_build_window(struct hf_xdma_chain *c, enum hf_xdma_dir dir,
			       const struct hf_sg *sg, u32 nsg, u64 offset,
			       u64 len, u64 win_base, u64 win_size, u64 win_off);

/**
 * struct hf_xdma_chain_cache - a chain kept between runs and rebuilt only
 *	when the range it moves changes: a pinned buffer's chain on one
 *	engine (the driver's XFER, the emulated backend's GPU transfers).
 * @chain: the chain, with storage from hf_xdma_chain_init()
 * @off: offset in the scatter list of the range it was last built for
 * @len: length of that range
 * @card: card address of that range
 * @valid: @chain holds a build of (@off, @len, @card); cleared by the
 *	owner when the storage goes
 */
struct hf_xdma_chain_cache {
	struct hf_xdma_chain chain;
	u64 off;
	u64 len;
	u64 card;
	bool valid;
};

/**
 * hf_xdma_chain_cached() - whether a cache holds the chain of a range.
 * @cc: the cache
 * @off: offset of the range in the scatter list
 * @len: its length
 * @card: its card address
 *
 * Return: true when @cc->chain may run as it is.
 */
static inline bool hf_xdma_chain_cached(const struct hf_xdma_chain_cache *cc,
					u64 off, u64 len, u64 card)
{
	return cc->valid && cc->off == off && cc->len == len &&
	       cc->card == card;
}

int hf_xdma_chain_cache_build(struct hf_xdma_chain_cache *cc,
			      enum hf_xdma_dir dir, const struct hf_sg *sg,
			      u32 nsg, u64 off, u64 len, u64 card);

/**
 * struct hf_xdma_dev - the DMA/config BAR of one card as the engine core sees it.
 * @bar: the mapped DMA/config BAR
 * @num_h2c: H2C channels found by hf_xdma_dev_probe()
 * @num_c2h: C2H channels found by hf_xdma_dev_probe()
 * @version: IP version byte of the H2C0 (or C2H0) identifier
 * @gone: set (WRITE_ONCE, then hf_xdma_engine_abort() on every engine) when the
 *	card is being removed: runs in flight stop waiting at once and end
 *	with -ENODEV once their engine is proven idle (see hf_xdma_engine_run()),
 *	and new runs fail with -ENODEV
 * @link_rate: bytes per second the card's link moves in one direction, 0
 *	when unknown; bounds how long a descriptor the engine is still working
 *	on can take (the idle proof after a stop); set by the host after
 *	hf_xdma_dev_probe() and changeable at any time (a link may retrain)
 * @stop_max_ns: longest wait for a stopped engine to go idle, whatever the
 *	link (0: XDMA_STOP_MAX_DEFAULT_NS); also the wait when @link_rate is 0
 * @stream: the card's channels are AXI-Stream (XDMA_ID_STREAM), not
 *	memory-mapped: hf_xdma_engine_run() chains do not apply to them, a
 *	C2H channel is driven as a ring (struct hf_xdma_ring)
 * @irq_shared: the engines share one vector (single MSI, INTx), set by
 *	hf_xdma_dev_set_vectors(): the ISR masks an engine's interrupt, which
 *	the next run enables again; with a vector of its own (MSI-X) an
 *	engine's interrupt stays enabled, one message per run
 */
struct hf_xdma_dev {
	const struct hf_mmio *bar;
	u32 num_h2c;
	u32 num_c2h;
	u32 version;
	bool gone;
	bool stream;
	bool irq_shared;
	u64 link_rate;
	u64 stop_max_ns;
};

/* Idle proof of a stopped engine: shortest and default longest wait. */
#define XDMA_STOP_MIN_NS		2000000ull		/* 2 ms */
#define XDMA_STOP_MAX_DEFAULT_NS	2000000000ull		/* 2 s */

/*
 * Writeback storage of one engine (hf_xdma_engine_init()): two 32-bit
 * slots, at 0 and at XDMA_WB_SLOT_OFFSET; a run that follows a failed one
 * switches slots, so a writeback of the failed run that arrives late cannot
 * complete it.  Every engine has one, in poll and in interrupt mode: a run
 * learns how it ended from the writeback word, not from a register.
 */
#define XDMA_WB_SLOT_OFFSET		32
#define XDMA_WB_AREA			64

/* Why a memory-mapped C2H transfer is refused on an AXI-Stream card. */
#define XDMA_STREAM_MM_MSG \
	"the card's channels are AXI-Stream: use HelloFPGA_Stream_*"
/* Why an H2C packet on an AXI-Stream card must not name a card address. */
#define XDMA_STREAM_H2C_ADDR_MSG \
	"an AXI-Stream H2C channel has no card address: a write sends one packet, card address 0"

int hf_xdma_dev_probe(struct hf_xdma_dev *xdev, const struct hf_mmio *bar);
void hf_xdma_dev_set_vectors(struct hf_xdma_dev *xdev, u32 chan_first,
			     u32 user_first, bool shared);

/**
 * struct hf_xdma_result - outcome of one hf_xdma_engine_run().
 * @err: 0 or a negative errno (-ETIMEDOUT, -EIO, -ENODEV, -EINVAL)
 * @bytes: bytes of the descriptors the engine completed
 * @completed: descriptors the engine completed
 * @status: channel status register at the end of the run
 * @elapsed_ns: time from start to completion as seen by the caller
 * @wedged: the run failed and its engine could not be proven idle (still
 *	busy, or the card reads all ones): it may
 *	still read or write any buffer of the chain and read the chain itself,
 *	so the caller must keep all of them allocated and mapped until
 *	hf_xdma_engine_recover() succeeds or bus mastering is off; @bytes then
 *	counts the whole chain (every byte the card may have written)
 * @msg: human-readable text for @err ("" on success)
 */
struct hf_xdma_result {
	int err;
	u64 bytes;
	u32 completed;
	u32 status;
	u64 elapsed_ns;
	bool wedged;
	char msg[192];
};

/**
 * struct hf_xdma_engine_stats - counters of one engine since init.
 * @runs: calls of hf_xdma_engine_run()
 * @bytes: bytes moved, including the completed part of failed runs
 * @errors: runs that failed (any error, timeouts included)
 * @timeouts: runs that failed with -ETIMEDOUT
 * @lost_irqs: runs that finished without their completion notification
 *	(interrupt, or poll-mode writeback) and were recovered by the timeout
 *	path's status check
 * @late_notices: completion notifications (interrupts) of an earlier,
 *	failed run that arrived during a later run and were ignored
 * @no_writeback: runs notified by interrupt whose writeback word did not
 *	show the end (a card that writes none): the status register decided
 * @wb_unconfirmed: runs on a caller's writeback word (hf_xdma_engine_run_wb())
 *	whose word, or a wake-up, told an end the engine did not show yet:
 *	the run went on waiting on the engine's registers
 * @wedges: stops after which the engine could not be proven idle
 * @recoveries: wedged engines found idle again by hf_xdma_engine_recover()
 */
struct hf_xdma_engine_stats {
	u64 runs;
	u64 bytes;
	u64 errors;
	u64 timeouts;
	u64 lost_irqs;
	u64 late_notices;
	u64 no_writeback;
	u64 wb_unconfirmed;
	u64 wedges;
	u64 recoveries;
};

/**
 * struct hf_xdma_engine - one H2C or C2H SGDMA engine.
 * @xdev: the card
 * @dir: direction
 * @ch: channel number within the direction
 * @index: engine order index (H2C n -> n, C2H n -> num_h2c + n), the bit in
 *	the IRQ block's channel registers and the channel vector slot
 * @base: offset of the channel register block in the BAR
 * @sgdma_base: offset of the SGDMA register block in the BAR
 * @addr_align: address alignment the engine requires (ALIGNMENTS register)
 * @len_gran: length granularity the engine requires
 * @addr_bits: address width the engine supports
 * @poll: wait by looking at the writeback word instead of for an interrupt
 * @wb: CPU address of the writeback slot in use
 * @wb_bus: bus address of @wb
 * @wb_area: CPU address of the engine's writeback storage (two slots)
 * @wb_area_bus: bus address of @wb_area
 * @irq_event: signalled by hf_xdma_engine_isr()
 * @prog_bus: descriptor address last written to the SGDMA registers
 * @prog_adj: adjacent count last written
 * @prog_valid: @prog_bus/@prog_adj reflect the registers
 * @stale: a run failed: its completion notification (interrupt or
 *	writeback) may still arrive during the next run, which therefore
 *	switches writeback slots, so neither can complete it; cleared by a
 *	run that succeeds
 * @wedged: a stop could not prove the engine idle (still busy, or the card
 *	read all ones): runs fail at once until hf_xdma_engine_recover() or
 *	hf_xdma_engine_reinit() finds it idle
 * @regs_lost: a reset cleared the engine's registers and it was not idle
 *	to have them programmed again: hf_xdma_engine_recover() does it
 * @st_cut: AXI-Stream C2H: the last buffer the engine completed did not
 *	end a frame (no EOP): a ring stopped then cut a frame, whose rest the
 *	source still holds; the next ring skips it (hf_xdma_ring_start())
 * @cancel: set (WRITE_ONCE, then hf_os_event_signal() by
 *	hf_xdma_engine_cancel()) to end the run in progress early with
 *	-ECANCELED; the caller clears it, under its serialisation of runs,
 *	before it lets anyone cancel the next run
 * @stats: counters
 */
struct hf_xdma_engine {
	struct hf_xdma_dev *xdev;
	enum hf_xdma_dir dir;
	u32 ch;
	u32 index;
	u32 base;
	u32 sgdma_base;
	u32 addr_align;
	u32 len_gran;
	u32 addr_bits;
	bool poll;
	__le32 *wb;
	u64 wb_bus;
	__le32 *wb_area;
	u64 wb_area_bus;
	struct hf_os_event irq_event;
	u64 prog_bus;
	u32 prog_adj;
	bool prog_valid;
	bool stale;
	bool wedged;
	bool regs_lost;
	bool st_cut;
	bool cancel;
	struct hf_xdma_engine_stats stats;
};

int hf_xdma_engine_init(struct hf_xdma_engine *e, struct hf_xdma_dev *xdev,
			enum hf_xdma_dir dir, u32 ch, bool poll,
			void *wb_cpu, u64 wb_bus);
int hf_xdma_engine_reinit(struct hf_xdma_engine *e);
void hf_xdma_engine_fini(struct hf_xdma_engine *e);
int hf_xdma_engine_run(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
		       u64 timeout_ns, struct hf_xdma_result *res);
int hf_xdma_engine_run_wb(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
			  u64 timeout_ns, __le32 *wb, u64 wb_bus,
			  struct hf_xdma_result *res);
void hf_xdma_engine_isr(struct hf_xdma_engine *e);
void hf_xdma_engine_abort(struct hf_xdma_engine *e);
void hf_xdma_engine_cancel(struct hf_xdma_engine *e);
int hf_xdma_engine_quiesce(struct hf_xdma_engine *e, const struct hf_xdma_chain *c);
int hf_xdma_engine_recover(struct hf_xdma_engine *e);
u32 hf_xdma_dev_isr_pending(struct hf_xdma_dev *xdev);
int hf_xdma_decode_status(enum hf_xdma_dir dir, u32 status, char *buf,
			  size_t len);

/*
 * C2H stream rings (AXI-Stream cards, PG195 "C2H Stream"): a cyclic chain
 * of XDMA_RING_MIN..XDMA_RING_MAX equal buffers, one descriptor each, that
 * the engine fills for ever, in descriptor credit mode:
 *   hf_xdma_ring_init()     engine and coherent storage (descriptors and
 *                           a 32-byte C2H stream writeback slot per buffer)
 *   hf_xdma_ring_build()    the buffers' bus addresses (each contiguous)
 *   hf_xdma_ring_start()    credit mode on, one credit per buffer, Run
 *   hf_xdma_ring_wait()     the next completed buffer (from its writeback)
 *   hf_xdma_ring_release()  give it back: credits return in ring order
 *   hf_xdma_ring_stop()     Run off, engine proven idle, credit mode off
 * A frame (TLAST) shorter than a buffer completes it with EOP and its
 * length; a longer one spans buffers, EOP on the last.  The consumer
 * holds a buffer from its wait to its release; with every buffer held
 * the engine has no credit and waits (the source stalls or drops).
 *
 * Register cost on the running ring: a buffer whose writeback is there
 * when waited for costs nothing; a wait that has to sleep reads the
 * read-to-clear status once (the descriptor-completed bit holds the
 * interrupt request up until read; shared vector: plus the ISR's pending
 * read and mask, and the enable here); a release that returns credits
 * writes the credit register once, for as many buffers as it returns.
 */
#define XDMA_RING_MIN			2
#define XDMA_RING_MAX			512
/*
 * What hf_xdma_ring_mark_error() writes into the status word of a slot
 * the engine will not complete: the writeback magic (so a wait for the
 * magic ends) with a bit PG195 leaves reserved.
 */
#define XDMA_RING_WB_ERROR		BIT(15)

/**
 * struct hf_xdma_ring_buf - a completed buffer of a ring.
 * @index: buffer index, 0..n-1
 * @len: bytes the engine put in it
 * @eop: it ends a frame (TLAST)
 * @sequence: buffers completed before it since the ring was set up
 * @frame: frames (EOPs) completed before it
 */
struct hf_xdma_ring_buf {
	u32 index;
	u32 len;
	bool eop;
	u64 sequence;
	u64 frame;
};

/**
 * struct hf_xdma_ring_stats - counters of a ring since hf_xdma_ring_init().
 * @buffers: buffers completed and handed to the consumer
 * @frames: of them, those with EOP
 * @bytes: bytes in them
 * @ring_full: times the engine had no free buffer: every buffer completed
 *	and not yet credited back (seen by the consumer when it takes one)
 * @skipped: buffers skipped at a start: the rest of a frame a stop cut
 * @dropped_at_stop: buffers completed but not taken when a stop came
 * @wakes: wake-ups of a waiter by the engine's event (interrupt modes)
 * @status_reads: reads of the status register by waits
 * @credit_writes: writes of the credit register by releases
 */
struct hf_xdma_ring_stats {
	u64 buffers;
	u64 frames;
	u64 bytes;
	u64 ring_full;
	u64 skipped;
	u64 dropped_at_stop;
	u64 wakes;
	u64 status_reads;
	u64 credit_writes;
};

/**
 * struct hf_xdma_ring - a C2H stream ring.
 * @e: its engine
 * @chain: the descriptors (storage, count, first adjacent count)
 * @wb: CPU address of the writeback slots, XDMA_STM_WB_SIZE bytes each
 * @wb_bus: bus address of @wb
 * @n: buffers
 * @buf_size: bytes per buffer
 * @head: the next buffer the engine completes
 * @credit: the oldest buffer whose credit the engine does not have
 * @held: buffers taken and not credited back (held or released early)
 * @full: the engine had no free buffer, and no credit went back since
 * @running: started and not stopped
 * @failed: a wait saw the engine stopped or in error
 * @resync: skipping the rest of a frame cut by the last stop
 * @kick: set by hf_xdma_ring_kick(): the wait returns -EAGAIN
 * @fail_status: the status register then
 * @credited: buffers whose credit went back to the engine since the start
 *	(skipped ones too; WRITE_ONCE, for hf_xdma_ring_slot_of())
 * @seq_skip: buffers skipped at the start (@resync), ~0 while it
 *	skips (WRITE_ONCE)
 * @state: per buffer: with the engine, held, released (not yet credited)
 * @stats: counters
 */
struct hf_xdma_ring {
	struct hf_xdma_engine *e;
	struct hf_xdma_chain chain;
	void *wb;
	u64 wb_bus;
	u32 n;
	u32 buf_size;
	u32 head;
	u32 credit;
	u32 held;
	bool full;
	bool running;
	bool failed;
	bool resync;
	bool kick;
	u32 fail_status;
	u64 credited;
	u64 seq_skip;
	u8 state[XDMA_RING_MAX];
	struct hf_xdma_ring_stats stats;
};

int hf_xdma_ring_init(struct hf_xdma_ring *r, struct hf_xdma_engine *e,
		      void *desc_cpu, u64 desc_bus, void *wb_cpu, u64 wb_bus,
		      u32 n);
int hf_xdma_ring_build(struct hf_xdma_ring *r, const struct hf_sg *sg, u32 nsg,
		       u64 buf_size, struct hf_xdma_result *res);
int hf_xdma_ring_start(struct hf_xdma_ring *r, struct hf_xdma_result *res);
int hf_xdma_ring_wait(struct hf_xdma_ring *r, u64 timeout_ns,
		      struct hf_xdma_ring_buf *buf, struct hf_xdma_result *res);
void hf_xdma_ring_kick(struct hf_xdma_ring *r);
int hf_xdma_ring_release(struct hf_xdma_ring *r, u32 index);
bool hf_xdma_ring_held(const struct hf_xdma_ring *r, u32 index);
int hf_xdma_ring_ready(struct hf_xdma_ring *r, struct hf_xdma_result *res);
int hf_xdma_ring_stop(struct hf_xdma_ring *r, struct hf_xdma_result *res);
int hf_xdma_ring_slot_of(const struct hf_xdma_ring *r, u64 sequence,
			 u32 *index);
void hf_xdma_ring_mark_error(struct hf_xdma_ring *r);

#endif /* HF_XDMA_ENGINE_H */
