// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model.c - software model of an FPGA card with the Xilinx XDMA IP
 * (PG195, "DMA/Bridge Subsystem for PCI Express") with AXI memory-mapped or
 * AXI-Stream channels.
 *
 * What is modelled (docs/xdma-model.md is the register reference):
 *  - the DMA/config BAR: H2C/C2H channel blocks, IRQ block, config block,
 *    H2C/C2H SGDMA blocks and the SGDMA common block;
 *  - the scatter-gather engines: descriptor fetch over the bus (host ops),
 *    adjacent-descriptor blocks, data movement between bus memory and card
 *    memory, status, completed count, poll-mode writeback, halt, and the
 *    stop rule of PG195's Run bit (a descriptor that started is finished);
 *  - time, with a PCIe link model (xdma_link.h): descriptor fetches, data
 *    and writebacks take link time on one link per direction shared by the
 *    engines, a descriptor's data lands progressively, in MPS multiples;
 *  - interrupts: channel and user sources, IRQ block enables, requests,
 *    pending bits and vector numbers, delivered as MSI/MSI-X messages on a
 *    rising edge of a pending bit or as an INTx level;
 *  - the performance monitors of each channel;
 *  - card DDR;
 *  - AXI-Stream channels (config st): the C2H stream writeback and
 *    descriptor credits.
 *
 * What is not: the user logic behind the IP (the user BAR, the stream
 * sources and sinks at the AXI-Stream ports, the usr_irq_req lines).  The
 * card's creator attaches it (xdma_model_config.user); the IP reaches it
 * only through its ops (xdma_user.h), always with m->lock held, but for
 * st_read (the bytes of a C2H record, made in the bounce buffer without it).
 *
 * Locking: one mutex (m->lock) protects every register.  Host ops are never
 * called with it held: work that must reach the host (kick, writeback,
 * messages, INTx) is collected in a struct model_act while the lock is held
 * and performed after it is dropped (act_flush()).  Data is copied between
 * bus memory and card memory without the lock; a sequence number per engine
 * (seq) tells an engine thread that the engine was reset while it was
 * copying, so it drops the result.
 *
 * Time (link model): each engine keeps its own clock, the time its last
 * activity ended on the link; a descriptor is fetched (link time), waits
 * desc_ns, then its data is carried in slices reserved one after the other
 * on its direction's link (link_busy).  A slice's bytes land when the host
 * calls the engine after the slice's end (ops->schedule), in one bus access
 * per wake-up.  Slices follow the engine's clock, not the time of the
 * wake-up, so a late wake-up catches up and the rate stays the link's.
 */
#include "xdma_model.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hf_os.h"
#include "xdma_regs.h"

/* What the modelled card reports (a Gen3 x8 card with a 250 MHz AXI clock). */
#define MODEL_ADDR_BITS		64
#define MODEL_AXI_NS_PER_CYCLE	4		/* 250 MHz */
#define MODEL_DATA_WIDTH_CODE	2		/* 256-bit AXI data path */
#define MODEL_DATA_BYTES	32
#define MODEL_MPS_CODE		1		/* 256 bytes (no link model) */
#define MODEL_MRRS_CODE		2		/* 512 bytes */
#define MODEL_SYSTEM_ID		0xff01
#define MODEL_MAX_ALIGN		128	/* largest that ALIGNMENTS can report */

#define PERF_COUNTER_MAX	GENMASK_ULL(41, 0)
#define CTRL_RW_MASK							\
	(XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL | XDMA_CTRL_NON_INCR_ADDR |	\
	 XDMA_CTRL_POLL_MODE_WB | XDMA_CTRL_STM_WB_DISABLE)
#define IRQ_VEC_REG_MASK	0x1f1f1f1fu
#define USER_IRQ_MASK		GENMASK(XDMA_USER_IRQS - 1, 0)
#define MSIX_REGION_END		(XDMA_MSIX_TABLE_OFFSET + 0x1000)

/*
 * Link model: a wake-up per slice of this much link time (and at least
 * SLICE_MIN_MPS payloads), so that 64 MiB at Gen1 x1 costs thousands of
 * wake-ups, not hundreds of thousands, and a region mapping (a GPU's copy
 * engine) is not called for every TLP.  Short descriptors share wake-ups
 * the same way: the end of one that does not tell the driver (no Completed
 * or Stop flag) is looked at SLICE_NS after the engine last made progress.
 */
#define SLICE_NS		50000
#define SLICE_MIN_MPS		4

/*
 * AXI-Stream: bytes an engine moves through its bounce buffer at a time;
 * without a link model, descriptors an engine completes in one call of
 * xdma_model_engine_work() before it lets its host call it again.
 */
#define ST_BUF_SIZE		(64u << 10)
#define ST_BURST		256
/**
 * enum eng_xfer - where an engine is with its current descriptor.
 * @X_NONE: between descriptors (or none yet)
 * @X_LAT: accepted, its data not yet started (link model: fetch and
 *	desc_ns still running)
 * @X_DATA: its data is moving; once all of it landed it completes
 */
enum eng_xfer {
	X_NONE = 0,
	X_LAT,
	X_DATA,
};

/**
 * struct model_engine - one SGDMA engine (H2C or C2H channel).
 * @index: engine order index (H2C n -> n, C2H n -> num_h2c + n)
 * @ch: channel number within its direction
 * @c2h: true for a card-to-host engine
 * @ctrl: Control register (0x04)
 * @status: Status register (0x40); XDMA_STAT_BUSY while the engine runs
 * @completed: Completed Descriptor Count (0x48)
 * @irq_mask: Interrupt Enable Mask (0x90)
 * @wb_lo: Poll Mode Low Write Back Address (0x88)
 * @wb_hi: Poll Mode High Write Back Address (0x8c)
 * @desc_lo: SGDMA Descriptor Low Address (0x80)
 * @desc_hi: SGDMA Descriptor High Address (0x84)
 * @desc_adj: SGDMA Descriptor Adjacent (0x88)
 * @credits: SGDMA Descriptor Credits (0x8c)
 * @perf_ctrl: Performance Monitor Control (0xc0), Run and Auto bits
 * @perf_on: the performance counters are counting
 * @perf_auto_stopped: Auto mode stopped the counters at a Stop descriptor
 * @perf_start_ns: monotonic time the counters last started
 * @perf_cyc_ns: nanoseconds counted before @perf_start_ns
 * @perf_data: data beats counted
 * @perf_pend_ns: nanoseconds a descriptor's data was in flight
 * @parked: busy, but no thread works on it (halt, stall or dead card)
 * @held: progress was held (halt, stall, hang, dead card): on resume the
 *	engine takes up time from then, not from where it stopped
 * @restart: Run went 0->1 while the engine was still busy: it starts
 *	anew once its current descriptor has ended
 * @in_work: a thread is inside xdma_model_engine_work() for this engine
 * @seq: bumped at every start and reset; an engine thread that sees it
 *	change while it copied data drops what it did
 * @cur_addr: bus address of the next descriptor block to fetch
 * @cur_adj: adjacent count of that block
 * @blk: the fetched descriptor block
 * @blk_n: descriptors in @blk (0: fetch the next block)
 * @blk_i: next descriptor of @blk to process (the current one while
 *	@xs is not X_NONE)
 * @xs: enum eng_xfer
 * @clock: link model: when the engine's last activity ended
 * @x_src: current descriptor's source address
 * @x_dst: its destination address
 * @x_len: its length
 * @x_ctl: its control word
 * @x_off: bytes of it reserved on the link so far (slices)
 * @x_done: bytes of it landed
 * @x_t0: when it was accepted (performance pending count)
 * @x_ready: X_LAT: when its data may start (fetch and desc_ns over)
 * @s_end: X_DATA: end of the slice reserved on the link (without a link
 *	model: when the copy ended)
 * @s_len: bytes of that slice, 0 when none is reserved
 * @woke: link model: when the engine last made progress (wake-ups of
 *	short descriptors are SLICE_NS apart)
 * @blk_addr: bus address of @blk
 * @blk_rest: descriptors of the block after @blk not fetched yet (credit
 *	mode fetches no more descriptors than it has credits)
 * @burst: AXI-ST without a link model: descriptors completed in this call
 *	of xdma_model_engine_work()
 */
struct model_engine {
	u32 index;
	u32 ch;
	bool c2h;
	u32 ctrl;
	u32 status;
	u32 completed;
	u32 irq_mask;
	u32 wb_lo;
	u32 wb_hi;
	u32 desc_lo;
	u32 desc_hi;
	u32 desc_adj;
	u32 credits;
	u32 perf_ctrl;
	bool perf_on;
	bool perf_auto_stopped;
	u64 perf_start_ns;
	u64 perf_cyc_ns;
	u64 perf_data;
	u64 perf_pend_ns;
	bool parked;
	bool held;
	bool restart;
	bool in_work;
	u32 seq;
	u64 cur_addr;
	u32 cur_adj;
	struct hf_xdma_desc blk[XDMA_DESC_MAX_ADJ + 1];
	u32 blk_n;
	u32 blk_i;
	enum eng_xfer xs;
	u64 clock;
	u64 x_src;
	u64 x_dst;
	u32 x_len;
	u32 x_ctl;
	u32 x_off;
	u32 x_done;
	u64 x_t0;
	u64 x_ready;
	u64 s_end;
	u32 s_len;
	u64 woke;
	u64 blk_addr;
	u32 blk_rest;
	u32 burst;
};

/**
 * struct xdma_model - the card.
 * @cfg: configuration, defaults filled in
 * @ops: host operations
 * @host: first argument of every host op
 * @lock: protects everything below that is not atomic
 * @copies_cond: signalled when @copies drops to zero
 * @copies: engine threads inside a host DMA op (xdma_model_reset() waits)
 * @wb_cond: signalled when @wb_pending drops to zero with @wb_waiters
 * @wb_waiters: register reads waiting on @wb_cond
 * @wb_pending: writebacks queued (the status register already shows their
 *	run ended) and not yet written to host memory: a register read waits
 *	for them, as a PCIe read completion never passes the card's posted
 *	writes, so a driver that sees an engine idle also sees its writeback
 *	in memory, and may free that memory
 * @intx_lock: serialises INTx level delivery (recursive: an ISR may
 *	cause another level change from inside ops->intx)
 * @num_engines: num_h2c + num_c2h
 * @eng: the engines in engine order
 * @ddr: card memory
 * @ddr_mapped: @ddr was mapped by the model
 * @user_en: IRQ block User Interrupt Enable Mask (0x04)
 * @chan_en: IRQ block Channel Interrupt Enable Mask (0x10)
 * @user_vec: IRQ block User Vector Number registers (0x80..0x8c)
 * @chan_vec: IRQ block Channel Vector Number registers (0xa0, 0xa4)
 * @user_pend_prev: user pending bits at the last evaluation (edges)
 * @chan_pend_prev: channel pending bits at the last evaluation (edges)
 * @intx_level: INTx level the IRQ block drives
 * @intx_delivered: level last passed to ops->intx
 * @irq_mode: what the host enabled in PCI config space
 * @sg_halt: SGDMA common Descriptor Control (halt bits)
 * @sg_credit_en: SGDMA common Descriptor Credit Mode Enable
 * @pcie_ctrl: config block PCIE Control
 * @user_mps: config block AXI User Max Payload Size, programmed field
 * @user_mrrs: config block AXI User Max Read Request Size, programmed field
 * @wr_flush: config block Write Flush Timeout
 * @faults: injected faults (enum xdma_model_fault)
 * @debug: log guest errors (HF_MODEL_DEBUG set)
 * @rate: link model: payload bytes per ns, 0 without a link model
 * @slice: link model: bytes of one slice (a multiple of the MPS)
 * @mps_code: PCIe max payload size as the config block encodes it
 * @link_busy: link model, per direction (0 card reads, 1 card writes):
 *	the time the link is reserved until
 * @hang_from: XDMA_FAULT_HANG: when the hang began
 * @hang_until: when it ends
 * @hang_engines: the engines a hang holds, a bit per engine index (H2C n
 *	is n, C2H n is num_h2c + n); 0: every engine
 * @uops: the user logic's ops (NULL: the card has none)
 * @user: the user logic
 * @uenv: what the user logic gets of the IP
 * @st_buf: AXI-ST: a bounce buffer per engine (ST_BUF_SIZE), used by the
 *	thread working on the engine
 * @cnt: counters, updated with atomics
 */
struct xdma_model {
	struct xdma_model_config cfg;
	struct xdma_model_host_ops ops;
	void *host;
	pthread_mutex_t lock;
	pthread_cond_t copies_cond;
	u32 copies;
	pthread_cond_t wb_cond;
	u32 wb_pending;
	u32 wb_waiters;
	pthread_mutex_t intx_lock;
	u32 num_engines;
	struct model_engine eng[XDMA_MAX_ENGINES];
	u8 *ddr;
	bool ddr_mapped;
	u32 user_en;
	u32 chan_en;
	u32 user_vec[4];
	u32 chan_vec[2];
	u32 user_pend_prev;
	u32 chan_pend_prev;
	bool intx_level;
	bool intx_delivered;
	enum xdma_model_irq_mode irq_mode;
	u32 sg_halt;
	u32 sg_credit_en;
	u32 pcie_ctrl;
	u32 user_mps;
	u32 user_mrrs;
	u32 wr_flush;
	u32 faults;
	bool debug;
	double rate;
	u32 slice;
	u32 mps_code;
	u64 link_busy[2];
	u64 hang_from;
	u64 hang_until;
	u32 hang_engines;
	const struct xdma_user_ops *uops;
	struct xdma_user *user;
	struct xdma_user_env uenv;
	u8 *st_buf[XDMA_MAX_ENGINES];
	struct xdma_model_counters cnt;
};

/**
 * struct model_act - host work collected under the lock, done after it.
 * @kick: engines to hand to ops->kick
 * @nmsi: entries of @msi
 * @msi: message vectors to send, in order
 * @intx: re-evaluate the INTx level
 * @nwb: entries of @wb_addr / @wb_val
 * @wb_addr: poll-mode writeback addresses
 * @wb_val: poll-mode writeback words
 * @wake: engines to hand to ops->schedule
 * @wake_at: the time each of them asked for
 */
struct model_act {
	u32 kick;
	u32 wake;
	u64 wake_at[XDMA_MAX_ENGINES];
	u32 nmsi;
	u32 msi[XDMA_USER_IRQS + XDMA_MAX_ENGINES];
	bool intx;
	u32 nwb;
	u64 wb_addr[XDMA_MAX_ENGINES];
	u32 wb_val[XDMA_MAX_ENGINES];
};

static inline void cnt_add(uint64_t *c, uint64_t v)
{
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

/* The host's clock. */
static inline u64 host_now(struct xdma_model *m)
{
	return m->ops.now_ns(m->host);
}

static void guest_error(void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A guest did something the IP (or the user logic: xdma_user_env) leaves
 * undefined: count it, maybe log it.  @ctx: the card.
 */
static void guest_error(void *ctx, const char *fmt, ...)
{
	struct xdma_model *m = ctx;
	va_list ap;

	cnt_add(&m->cnt.guest_errors, 1);
	if (!m->debug)
		return;
	fputs("xdma-model: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static inline bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

static inline u64 desc_addr(__le32 lo, __le32 hi)
{
	return (u64)le32_to_cpu(lo) | (u64)le32_to_cpu(hi) << 32;
}

/* The usr_irq_req lines the user logic drives.  @m locked. */
static u32 user_lines(struct xdma_model *m)
{
	return m->uops ? m->uops->irq_lines(m->user) : 0;
}

/* ---- interrupts ---- */

static u32 chan_vector(const struct xdma_model *m, u32 engine)
{
	u32 reg = m->chan_vec[engine / 4];

	return (reg >> XDMA_IRQ_VEC_SHIFT(engine)) & XDMA_IRQ_VEC_MASK;
}

static u32 user_vector(const struct xdma_model *m, u32 n)
{
	u32 reg = m->user_vec[n / 4];

	return (reg >> XDMA_IRQ_VEC_SHIFT(n)) & XDMA_IRQ_VEC_MASK;
}

/* IRQ block Channel Interrupt Request: status & Interrupt Enable Mask. */
static u32 chan_request(const struct xdma_model *m)
{
	u32 req = 0;
	u32 i;

	for (i = 0; i < m->num_engines; i++) {
		const struct model_engine *e = &m->eng[i];

		if (e->status & e->irq_mask & XDMA_CTRL_IE_ALL)
			req |= BIT(i);
	}
	return req;
}

static bool irq_blocked(const struct xdma_model *m)
{
	return m->faults & (XDMA_FAULT_LOST_IRQ | XDMA_FAULT_DEAD);
}

/**
 * irq_update() - re-evaluate the IRQ block after a state change.
 * @m: the card, locked
 * @act: collects message interrupts and the INTx re-evaluation
 *
 * Pending = request & enable.  A message (MSI or MSI-X) is sent for each
 * pending bit that rose since the last evaluation, with the vector number of
 * its source; the INTx line follows "any bit pending".  Edges are consumed
 * even when nothing is delivered (irq mode NONE, LOST_IRQ fault).
 */
static void irq_update(struct xdma_model *m, struct model_act *act)
{
	u32 chan_pend = chan_request(m) & m->chan_en;
	u32 user_pend = user_lines(m) & m->user_en;
	u32 chan_rise = chan_pend & ~m->chan_pend_prev;
	u32 user_rise = user_pend & ~m->user_pend_prev;
	bool msg = m->irq_mode == XDMA_MODEL_IRQ_MSI ||
		   m->irq_mode == XDMA_MODEL_IRQ_MSIX;
	u32 i;

	m->chan_pend_prev = chan_pend;
	m->user_pend_prev = user_pend;
	m->intx_level = chan_pend || user_pend;
	/* the line is driven in legacy mode only (a mode change syncs it) */
	if (m->irq_mode == XDMA_MODEL_IRQ_LEGACY)
		act->intx = true;
	if (!msg || irq_blocked(m))
		return;
	/* the rising bits only, lowest first (engine order, then user) */
	for (; chan_rise && act->nmsi < ARRAY_SIZE(act->msi);
	     chan_rise &= chan_rise - 1) {
		i = __builtin_ctz(chan_rise);
		act->msi[act->nmsi++] = chan_vector(m, i);
	}
	for (; user_rise && act->nmsi < ARRAY_SIZE(act->msi);
	     user_rise &= user_rise - 1) {
		i = __builtin_ctz(user_rise);
		act->msi[act->nmsi++] = user_vector(m, i);
	}
}

/* Bring the host's INTx line to the level the IRQ block drives. */
static void intx_sync(struct xdma_model *m)
{
	pthread_mutex_lock(&m->intx_lock);
	for (;;) {
		bool want;

		pthread_mutex_lock(&m->lock);
		want = m->irq_mode == XDMA_MODEL_IRQ_LEGACY && m->intx_level &&
		       !irq_blocked(m);
		if (want == m->intx_delivered) {
			pthread_mutex_unlock(&m->lock);
			break;
		}
		m->intx_delivered = want;
		pthread_mutex_unlock(&m->lock);
		if (want)
			cnt_add(&m->cnt.irqs, 1);
		if (m->ops.intx)
			m->ops.intx(m->host, want);
	}
	pthread_mutex_unlock(&m->intx_lock);
}

/* Do the host work collected under the lock; called without it. */
static void act_flush(struct xdma_model *m, struct model_act *act)
{
	u32 i;

	for (i = 0; i < act->nwb; i++) {
		__le32 wb = cpu_to_le32(act->wb_val[i]);

		cnt_add(&m->cnt.wb_writes, 1);
		int r = m->ops.dma_write(m->host, act->wb_addr[i], &wb,
					 sizeof(wb));

		if (r) {
			cnt_add(r == -EBUSY ? &m->cnt.dma_blocked :
					      &m->cnt.dma_errors, 1);
			guest_error(m, "writeback to 0x%llx failed",
				    (unsigned long long)act->wb_addr[i]);
		}
	}
	if (act->nwb) {
		/* written: register reads may go on (before the messages,
		 * whose handlers read registers)
		 */
		pthread_mutex_lock(&m->lock);
		m->wb_pending -= act->nwb;
		if (!m->wb_pending && m->wb_waiters)
			pthread_cond_broadcast(&m->wb_cond);
		pthread_mutex_unlock(&m->lock);
	}
	for (i = 0; i < act->nmsi; i++) {
		cnt_add(&m->cnt.irqs, 1);
		if (m->ops.msi)
			m->ops.msi(m->host, act->msi[i]);
	}
	if (act->intx)
		intx_sync(m);
	for (u32 todo = act->wake | act->kick; todo; todo &= todo - 1) {
		i = __builtin_ctz(todo);
		if (act->wake & BIT(i))
			m->ops.schedule(m->host, i, act->wake_at[i]);
		if (act->kick & BIT(i))
			m->ops.kick(m->host, i);
	}
}

/* ---- performance monitor ---- */

static u64 perf_ns(const struct model_engine *e, u64 now)
{
	return e->perf_cyc_ns + (e->perf_on ? now - e->perf_start_ns : 0);
}

/* Counting while armed (perf Run) and the engine's Run bit is set. */
static void perf_eval(struct model_engine *e, u64 now)
{
	bool want = (e->perf_ctrl & XDMA_PERF_RUN) &&
		    (e->ctrl & XDMA_CTRL_RUN) && !e->perf_auto_stopped;

	if (want && !e->perf_on) {
		e->perf_on = true;
		e->perf_start_ns = now;
	} else if (!want && e->perf_on) {
		e->perf_cyc_ns += now - e->perf_start_ns;
		e->perf_on = false;
	}
}

static void perf_clear(struct model_engine *e, u64 now)
{
	e->perf_cyc_ns = 0;
	e->perf_start_ns = now;
	e->perf_data = 0;
	e->perf_pend_ns = 0;
}

static u32 perf_lo(u64 v)
{
	return lower_32_bits(min_t(u64, v, PERF_COUNTER_MAX));
}

static u32 perf_hi(u64 v)
{
	if (v > PERF_COUNTER_MAX)
		return XDMA_PERF_HI_MAXED | XDMA_PERF_HI_COUNT;
	return FIELD_PREP(XDMA_PERF_HI_COUNT, upper_32_bits(v));
}

/* ---- engines ---- */

static struct model_engine *chan_engine(struct xdma_model *m, bool c2h,
					u32 ch)
{
	u32 n = c2h ? m->cfg.num_c2h : m->cfg.num_h2c;

	if (ch >= n)
		return NULL;
	return &m->eng[c2h ? m->cfg.num_h2c + ch : ch];
}

static bool eng_halted(const struct xdma_model *m, const struct model_engine *e)
{
	u32 bit = e->c2h ? XDMA_SGDMA_HALT_C2H(e->ch) :
			   XDMA_SGDMA_HALT_H2C(e->ch);

	return m->sg_halt & bit;
}

/* A C2H engine of an AXI-ST card: its data comes from its channel's port. */
static inline bool st_c2h(const struct xdma_model *m,
			  const struct model_engine *e)
{
	return m->cfg.st && e->c2h;
}

/* Descriptor credit mode (AXI-ST cards): the engine uses credits. */
static bool eng_credit_mode(const struct xdma_model *m,
			    const struct model_engine *e)
{
	u32 bit = e->c2h ? XDMA_SGDMA_CREDIT_C2H(e->ch) :
			   XDMA_SGDMA_CREDIT_H2C(e->ch);

	return m->cfg.st && (m->sg_credit_en & bit);
}

/*
 * Whether the HANG fault holds the engines at @now; a hang that is over
 * clears its fault bit.  @m locked.
 */
static bool hang_holds(struct xdma_model *m, u64 now)
{
	if (!(m->faults & XDMA_FAULT_HANG))
		return false;
	if (now < m->hang_until)
		return true;
	__atomic_and_fetch(&m->faults, ~(u32)XDMA_FAULT_HANG,
			   __ATOMIC_RELAXED);
	return false;
}

/* Whether the HANG fault holds engine @e at @now.  @m locked. */
static bool hang_holds_eng(struct xdma_model *m, const struct model_engine *e,
			   u64 now)
{
	if (m->hang_engines && !(m->hang_engines & BIT(e->index)))
		return false;
	return hang_holds(m, now);
}

/* Status bits an event sets: the Control register ie_* bits log them. */
static inline u32 logged(const struct model_engine *e, u32 bits)
{
	return bits & e->ctrl & XDMA_CTRL_IE_ALL;
}

static void queue_writeback(struct xdma_model *m, const struct model_engine *e,
			    struct model_act *act)
{
	u32 wb;

	if (!(e->ctrl & XDMA_CTRL_POLL_MODE_WB) ||
	    act->nwb >= ARRAY_SIZE(act->wb_addr))
		return;
	wb = FIELD_PREP(XDMA_WB_COUNT, e->completed);
	if (e->status & XDMA_STAT_ERR_MASK)
		wb |= XDMA_WB_ERR;
	act->wb_addr[act->nwb] = (u64)e->wb_hi << 32 | e->wb_lo;
	act->wb_val[act->nwb] = wb;
	act->nwb++;
	m->wb_pending++;
}

/* Engine goes idle; @bits are the status events to log. */
static void eng_idle(struct xdma_model *m, struct model_engine *e, u32 bits,
		     struct model_act *act)
{
	e->status = (e->status & ~XDMA_STAT_BUSY) | logged(e, bits);
	e->parked = false;
	e->held = false;
	e->restart = false;
	e->xs = X_NONE;
	e->blk_n = 0;
	irq_update(m, act);
}

/* Engine stops on an error; it stops whether or not @bits are logged. */
static void eng_error(struct xdma_model *m, struct model_engine *e, u32 bits,
		      struct model_act *act)
{
	cnt_add(&m->cnt.errors, 1);
	eng_idle(m, e, bits, act);
	queue_writeback(m, e, act);
}

/**
 * eng_latch() - begin a run (PG195 "H2C Channel Control (0x04)", Run bit).
 * @m: the card, locked
 * @e: the engine
 * @now: host time
 *
 * Resets the completed count and latches the first descriptor's address
 * and adjacent count; with Auto set, clears the performance counters.
 */
static void eng_latch(struct xdma_model *m, struct model_engine *e, u64 now)
{
	e->completed = 0;
	e->seq++;
	e->cur_addr = (u64)e->desc_hi << 32 | e->desc_lo;
	e->cur_adj = e->desc_adj & XDMA_SGDMA_DESC_ADJ_MASK;
	e->blk_n = 0;
	e->blk_i = 0;
	e->xs = X_NONE;
	e->restart = false;
	e->clock = now;
	e->woke = 0;		/* a new run's first look is not held back */
	e->perf_auto_stopped = false;
	if (e->perf_ctrl & XDMA_PERF_AUTO)
		perf_clear(e, now);
}

/*
 * Control Run 0->1 of an idle engine.  Setting Run resets the status
 * register's event and error bits (PG195, "H2C Channel Status (0x40)":
 * "Reset (0) on setting the Control register Run bit"), so the channel's
 * interrupt request falls and the run's end raises it anew.
 */
static void eng_start(struct xdma_model *m, struct model_engine *e, u64 now,
		      struct model_act *act)
{
	eng_latch(m, e, now);
	e->parked = false;
	e->held = false;
	e->status = XDMA_STAT_BUSY;
	act->kick |= BIT(e->index);
	irq_update(m, act);
}

static void ctrl_write(struct xdma_model *m, struct model_engine *e, u32 val,
		       struct model_act *act)
{
	u32 old = e->ctrl;
	u64 now = host_now(m);

	e->ctrl = val & CTRL_RW_MASK;
	if (!(old & XDMA_CTRL_RUN) && (e->ctrl & XDMA_CTRL_RUN)) {
		if (e->status & XDMA_STAT_BUSY) {
			/*
			 * Still finishing the descriptor it had when Run was
			 * cleared.  PG195 does not say what a start does then;
			 * the model starts anew once that descriptor ended.
			 */
			guest_error(m, "engine %u: Run set while still busy",
				    e->index);
			e->restart = true;
		} else {
			eng_start(m, e, now, act);
		}
	} else if ((old & XDMA_CTRL_RUN) && !(e->ctrl & XDMA_CTRL_RUN)) {
		/*
		 * PG195: "if the engine is busy it completes the current
		 * descriptor".  Parked between descriptors it stops now;
		 * hung, it stops when the hang is over.
		 */
		e->restart = false;
		if (m->cfg.st)	/* PG195: credits clear on Run's falling edge */
			e->credits = 0;
		if ((e->status & XDMA_STAT_BUSY) && e->parked &&
		    e->xs == X_NONE && !hang_holds_eng(m, e, now))
			eng_idle(m, e, XDMA_STAT_IDLE_STOPPED, act);
		else if (st_c2h(m, e) && (e->status & XDMA_STAT_BUSY))
			act->kick |= BIT(e->index);	/* may wait for data */
	}
	perf_eval(e, now);
}

/* Let every busy engine look again: a fault or a halt bit changed. */
static void kick_busy(struct xdma_model *m, struct model_act *act)
{
	u32 i;

	if (m->faults & XDMA_FAULT_DEAD)
		return;
	for (i = 0; i < m->num_engines; i++)
		if (m->eng[i].status & XDMA_STAT_BUSY)
			act->kick |= BIT(i);
}

/* Check one descriptor; 0 or the status bits of the error. */
static u32 desc_check(const struct xdma_model *m, const struct model_engine *e,
		      u32 ctl, u32 len, u64 src, u64 dst)
{
	u64 card = e->c2h ? src : dst;
	u64 size = m->cfg.ddr_size;
	u32 align = m->cfg.addr_align;

	if (FIELD_GET(XDMA_DESC_CTRL_MAGIC, ctl) != XDMA_DESC_MAGIC)
		return XDMA_STAT_MAGIC_STOPPED;
	if (!len || len % m->cfg.len_gran)
		return XDMA_STAT_INVALID_LENGTH;
	if (m->cfg.st) {
		/* no card address: H2C's destination is unused, C2H's source
		 * names where the stream writeback goes
		 */
		if (align > 1 && ((e->c2h ? dst : src) & (align - 1)))
			return XDMA_STAT_ALIGN_MISMATCH;
		return 0;
	}
	if (align > 1 && ((src | dst) & (align - 1)))
		return XDMA_STAT_ALIGN_MISMATCH;
	if (card >= size || len > size - card) {
		/* AXI-MM decode error on the card side. */
		if (e->c2h)
			return FIELD_PREP(XDMA_STAT_READ_ERROR,
					  XDMA_C2H_READ_ERR_DECODE);
		return FIELD_PREP(XDMA_STAT_WRITE_ERROR, XDMA_WRITE_ERR_DECODE);
	}
	return 0;
}

/*
 * The status of a failed data access.  H2C: the PCIe read of bus memory
 * failed (UR).  C2H: the PCIe write was not accepted; PG195 has no field
 * for it, the model reports it as an AXI slave error on the read side (see
 * docs/xdma-model.md).
 */
static u32 data_error(const struct model_engine *e)
{
	if (e->c2h)
		return FIELD_PREP(XDMA_STAT_READ_ERROR,
				  XDMA_C2H_READ_ERR_SLAVE);
	return FIELD_PREP(XDMA_STAT_READ_ERROR, XDMA_READ_ERR_UR);
}

/*
 * Host DMA without the lock; the caller holds it and gets it back.  A
 * failed access (IOMMU fault, bus error) is counted: never silent.
 * bus_enter() drops the lock for the copy, bus_leave() takes it back with
 * the copy's result @r.
 */
static void bus_enter(struct xdma_model *m)
{
	m->copies++;
	pthread_mutex_unlock(&m->lock);
}

static int bus_leave(struct xdma_model *m, int r)
{
	if (r)
		cnt_add(r == -EBUSY ? &m->cnt.dma_blocked :
				      &m->cnt.dma_errors, 1);
	pthread_mutex_lock(&m->lock);
	if (!--m->copies)
		pthread_cond_broadcast(&m->copies_cond);
	return r;
}

static int bus_read(struct xdma_model *m, u64 bus, void *dst, size_t len)
{
	bus_enter(m);
	return bus_leave(m, m->ops.dma_read(m->host, bus, dst, len));
}

static int bus_write(struct xdma_model *m, u64 bus, const void *src,
		     size_t len)
{
	bus_enter(m);
	return bus_leave(m, m->ops.dma_write(m->host, bus, src, len));
}

static int st_recv(struct xdma_model *m, struct model_engine *e, u64 off,
		   u32 len);

/*
 * Move @len bytes at offset @off of the current descriptor; as bus_read().
 * An AXI-ST H2C engine streams them into the user logic at its port.
 */
static int eng_move(struct xdma_model *m, struct model_engine *e, u64 off,
		    u32 len)
{
	if (m->cfg.st && !e->c2h)
		return st_recv(m, e, off, len);
	if (e->c2h)
		return bus_write(m, e->x_dst + off, m->ddr + e->x_src + off,
				 len);
	return bus_read(m, e->x_src + off, m->ddr + e->x_dst + off, len);
}

/* ---- link model ---- */

/* Link time of @bytes of payload, ns. */
static u64 link_ns(const struct xdma_model *m, u64 bytes)
{
	return (u64)((double)bytes / m->rate + 0.5);
}

/**
 * link_reserve() - carry @bytes over one direction of the link.
 * @m: the card, locked, with a link model
 * @w: 0 card reads (H2C data, descriptor fetches), 1 card writes (C2H
 *	data, writebacks)
 * @from: earliest start
 * @bytes: payload bytes
 *
 * The direction is one resource shared by every engine: the bytes follow
 * what was reserved on it before.
 *
 * Return: when the link has carried them.
 */
static u64 link_reserve(struct xdma_model *m, int w, u64 from, u64 bytes)
{
	u64 start = max_t(u64, m->link_busy[w], from);

	m->link_busy[w] = start + link_ns(m, bytes);
	return m->link_busy[w];
}

/**
 * link_small() - carry a descriptor fetch or a writeback.
 * @m: the card, locked, with a link model
 * @w: direction, as link_reserve()
 * @from: when it starts
 * @bytes: payload bytes
 *
 * A small transfer goes between the TLPs of the data already reserved (it
 * does not wait for a whole slice), but takes its link time from them.
 *
 * Return: when the link has carried it.
 */
static u64 link_small(struct xdma_model *m, int w, u64 from, u64 bytes)
{
	u64 t = link_ns(m, bytes);

	m->link_busy[w] = max_t(u64, m->link_busy[w], from) + t;
	return from + t;
}

/* Reserve the next slice of the current descriptor, from @from on. */
static void slice_next(struct xdma_model *m, struct model_engine *e, u64 from)
{
	u32 n = min_t(u32, m->slice, e->x_len - e->x_off);

	e->s_end = link_reserve(m, e->c2h, from, n);
	e->s_len = n;
	e->x_off += n;
}

/*
 * Ask the host to run the engine again at @when; unless @precise, not
 * sooner than SLICE_NS after it last made progress (what is due then is
 * done with the times it had: the rate is kept, only the look is coarser).
 */
static void eng_wake(struct model_engine *e, u64 when, bool precise,
		     struct model_act *act)
{
	if (!precise)
		when = max_t(u64, when, e->woke + SLICE_NS);
	act->wake |= BIT(e->index);
	act->wake_at[e->index] = when;
}

/* The engine stops where it is until the hang ends. */
static bool eng_hold(struct xdma_model *m, struct model_engine *e,
		     struct model_act *act)
{
	e->held = true;
	eng_wake(e, m->hang_until, true, act);
	return true;
}

/*
 * Take up time again after a hold (halt, stall, hang, dead card): the
 * engine goes on from @now; a slice that was reserved but had not landed
 * is carried anew.
 */
static void eng_resume(struct xdma_model *m, struct model_engine *e, u64 now)
{
	e->held = false;
	e->clock = max_t(u64, e->clock, now);
	if (!m->rate)
		return;
	if (e->xs == X_LAT) {
		e->x_ready = max_t(u64, e->x_ready, now);
	} else if (e->xs == X_DATA && st_c2h(m, e)) {
		if (e->s_len)
			e->s_end = link_reserve(m, 1, now, e->s_len);
	} else if (e->xs == X_DATA && e->x_done < e->x_len) {
		e->x_off -= e->s_len;
		slice_next(m, e, now);
	}
}

/* ---- the user logic's ports (xdma_user.h), @m locked ---- */

/*
 * Bring the user logic's time to @now, telling it which C2H channels take
 * no data (engine idle, or parked: no credits, halt, stall): a source that
 * drops frames drops what came due meanwhile.  Sources of running engines
 * are brought along by the engines.  Called before anything that can
 * change whether an engine takes data, and before user BAR accesses.
 */
static void user_advance(struct xdma_model *m, u64 now)
{
	u32 idle = 0, ch;

	if (!m->uops)
		return;
	for (ch = 0; ch < m->cfg.num_c2h; ch++) {
		const struct model_engine *e = &m->eng[m->cfg.num_h2c + ch];

		if (!(e->status & XDMA_STAT_BUSY) || e->parked)
			idle |= BIT(ch);
	}
	m->uops->advance(m->user, now, idle);
}

/* Act on the XDMA_USER_* flags an op returned: kicks, the IRQ lines. */
static void user_flags(struct xdma_model *m, u32 flags, struct model_act *act)
{
	u32 k;

	for (k = flags & XDMA_USER_KICK_MASK; k; k &= k - 1) {
		struct model_engine *e = chan_engine(m, true,
						     __builtin_ctz(k));

		if (e && (e->status & XDMA_STAT_BUSY))
			act->kick |= BIT(e->index);
	}
	if (flags & XDMA_USER_IRQ)
		irq_update(m, act);
}

/* C2H stream input at @t: the record the user logic offers, if any. */
static bool user_st_peek(struct xdma_model *m, const struct model_engine *e,
			 u64 t, struct xdma_user_rec *rec)
{
	rec->next_ns = UINT64_MAX;
	return m->uops && m->uops->st_peek(m->user, e->ch, t, rec);
}

/* H2C stream output: @n bytes, or TLAST, into the channel's user logic. */
static void user_st_in(struct xdma_model *m, const struct model_engine *e,
		       const void *buf, u32 n, bool last)
{
	if (m->uops)
		m->uops->st_in(m->user, e->ch, buf, n, last);
}

/*
 * H2C stream: @len bytes at offset @off of the current descriptor from bus
 * memory into the user logic, through the bounce buffer; @m locked (dropped
 * around the bus reads).  0 or the failed read's errno; the caller checks
 * e->seq.
 */
static int st_recv(struct xdma_model *m, struct model_engine *e, u64 off,
		   u32 len)
{
	u8 *buf = m->st_buf[e->index];
	u32 seq = e->seq, c;
	int r;

	while (len) {
		c = min_t(u32, len, ST_BUF_SIZE);
		r = bus_read(m, e->x_src + off, buf, c);
		if (seq != e->seq)
			return 0;
		if (r)
			return r;
		user_st_in(m, e, buf, c, false);
		off += c;
		len -= c;
	}
	return 0;
}

/*
 * C2H stream: the next @n bytes of the record the channel's user logic
 * offers to bus address @bus, read (st_read) into the bounce buffer without
 * the lock.
 *
 * Return: 0, a negative errno when a write failed, 1 when the engine was
 * reset meanwhile (drop everything).
 */
static int st_send(struct xdma_model *m, struct model_engine *e, u64 bus,
		   u32 n)
{
	u8 *buf = m->st_buf[e->index];
	u32 seq = e->seq, skip = 0, c;
	int r = 0;

	while (n && !r) {
		c = min_t(u32, n, ST_BUF_SIZE);
		bus_enter(m);
		m->uops->st_read(m->user, e->ch, skip, buf, c);
		r = bus_leave(m, m->ops.dma_write(m->host, bus, buf, c));
		if (seq != e->seq)
			return 1;
		bus += c;
		skip += c;
		n -= c;
	}
	return r;
}

/* ---- engines ---- */

/**
 * eng_fetch() - fetch the next descriptor block.
 * @m: the card, locked (dropped around the bus read)
 * @e: the engine
 * @act: host work
 *
 * Return: 0 when the block is in @e->blk, 1 when the engine stopped on an
 * error, 2 when it parked because bus mastering is off (the fetch is not
 * issued; xdma_model_bus_master() lets it go on, a Run clear stops it),
 * -EAGAIN when the engine was reset during the fetch.
 */
static int eng_fetch(struct xdma_model *m, struct model_engine *e,
		     struct model_act *act)
{
	struct hf_xdma_desc blk[XDMA_DESC_MAX_ADJ + 1];
	u32 n = e->cur_adj + 1;
	u64 addr = e->cur_addr;
	u32 seq = e->seq;
	int r;

	if ((addr & (XDMA_DESC_BLOCK_BOUNDARY - 1)) + n * XDMA_DESC_SIZE >
	    XDMA_DESC_BLOCK_BOUNDARY) {
		/* PG195: adjacent descriptors must not cross a 4 KiB page. */
		guest_error(m, "engine %u: desc block 0x%llx+%u crosses 4 KiB",
			    e->index, (unsigned long long)addr, n);
		eng_error(m, e, FIELD_PREP(XDMA_STAT_DESC_ERROR,
					   XDMA_DESC_ERR_UR), act);
		return 1;
	}
	if (eng_credit_mode(m, e))	/* no more than it has credits for */
		n = min_t(u32, n, e->credits);
	if (m->faults & XDMA_FAULT_DESC_READ) {
		__atomic_and_fetch(&m->faults, ~(u32)XDMA_FAULT_DESC_READ,
				   __ATOMIC_RELAXED);
		r = -EIO;
	} else {
		r = bus_read(m, addr, blk, n * XDMA_DESC_SIZE);
		if (seq != e->seq)
			return -EAGAIN;
	}
	if (r == -EBUSY) {
		/* the request waits for bus mastering, busy */
		e->parked = true;
		return 2;
	}
	if (r) {
		eng_error(m, e, FIELD_PREP(XDMA_STAT_DESC_ERROR,
					   XDMA_DESC_ERR_UR), act);
		return 1;
	}
	memcpy(e->blk, blk, n * XDMA_DESC_SIZE);
	e->blk_n = n;
	e->blk_i = 0;
	e->blk_addr = addr;
	e->blk_rest = e->cur_adj + 1 - n;
	if (eng_credit_mode(m, e))
		e->credits -= n;
	cnt_add(&m->cnt.desc_fetched, n);
	return 0;
}

/**
 * eng_complete() - the current descriptor has ended.
 * @m: the card, locked
 * @e: the engine
 * @end: when its last byte landed
 * @now: host time
 * @act: host work
 *
 * Counts it, follows the chain, logs Completed / Stop, queues the
 * poll-mode writeback (link time on the card-write direction) and the
 * interrupt; a Stop descriptor makes the engine idle (and start anew when
 * Run was set again while it was busy).
 */
static void eng_complete(struct xdma_model *m, struct model_engine *e,
			 u64 end, u64 now, struct model_act *act)
{
	const struct hf_xdma_desc *d = &e->blk[e->blk_i];
	u32 ctl = le32_to_cpu(d->control);
	bool again;

	cnt_add(e->c2h ? &m->cnt.bytes_c2h : &m->cnt.bytes_h2c, e->x_len);
	e->completed++;
	if (e->perf_on) {
		e->perf_data += DIV_ROUND_UP(e->x_len, MODEL_DATA_BYTES);
		e->perf_pend_ns += end - e->x_t0;
	}
	if (m->cfg.st && !e->c2h && (ctl & XDMA_DESC_CTRL_EOP))
		user_st_in(m, e, NULL, 0, true);	/* TLAST */
	if (e->blk_i + 1 >= e->blk_n && e->blk_rest) {
		/* credit mode fetched part of the block: the rest follows */
		e->cur_addr = e->blk_addr + e->blk_n * XDMA_DESC_SIZE;
		e->cur_adj = e->blk_rest - 1;
		e->blk_n = 0;
	} else if (e->blk_i + 1 >= e->blk_n) {
		/* The last descriptor of a block says where the next is. */
		e->cur_addr = desc_addr(d->next_lo, d->next_hi);
		e->cur_adj = FIELD_GET(XDMA_DESC_CTRL_NXT_ADJ, ctl);
		e->blk_n = 0;
	} else {
		e->blk_i++;
	}
	e->xs = X_NONE;
	e->clock = end;
	e->woke = now;
	if (ctl & XDMA_DESC_CTRL_COMPLETED)
		e->status |= logged(e, XDMA_STAT_DESC_COMPLETED);
	if (ctl & XDMA_DESC_CTRL_STOP) {
		again = e->restart && (e->ctrl & XDMA_CTRL_RUN);
		if (e->perf_ctrl & XDMA_PERF_AUTO) {
			e->perf_auto_stopped = true;
			perf_eval(e, now);
		}
		eng_idle(m, e, XDMA_STAT_DESC_STOPPED, act);
		if (again)
			eng_start(m, e, now, act);
	} else {
		irq_update(m, act);
	}
	if (ctl & (XDMA_DESC_CTRL_COMPLETED | XDMA_DESC_CTRL_STOP)) {
		queue_writeback(m, e, act);
		if (m->rate && (e->ctrl & XDMA_CTRL_POLL_MODE_WB))
			link_small(m, 1, end, sizeof(__le32));
	}
}

/**
 * eng_data() - land what the link carried of the current descriptor.
 * @m: the card, locked (dropped around the bus access)
 * @e: the engine, X_DATA
 * @now: host time
 * @hang: the HANG fault holds the engines
 * @act: host work
 *
 * The bytes of every slice that ended by @now land in one bus access, the
 * next slice being reserved after each; once all of the descriptor landed
 * it completes, else the engine asks to run again when the reserved slice
 * ends.  Without a link model the copy is already done.  During a hang only
 * what ended before the hang began lands (or completes), then the engine
 * waits for the hang to end.
 *
 * Return: as eng_step().
 */
static bool eng_data(struct xdma_model *m, struct model_engine *e, u64 now,
		     bool hang, struct model_act *act)
{
	u64 end = e->s_end, limit = now;
	u32 seq = e->seq, n = 0;
	int r;

	if (hang)
		limit = min_t(u64, now, m->hang_from);
	while (e->s_len && e->s_end <= limit) {
		n += e->s_len;
		end = e->s_end;
		e->s_len = 0;
		if (e->x_off < e->x_len && !hang)
			slice_next(m, e, end);
	}
	if (n) {
		r = eng_move(m, e, e->x_done, n);
		if (seq != e->seq)
			return false;
		if (r) {
			eng_error(m, e, data_error(e), act);
			return true;
		}
		e->x_done += n;
		e->woke = now;
	}
	if (hang && (e->x_done < e->x_len || end > limit))
		return eng_hold(m, e, act);
	if (e->x_done < e->x_len) {
		/* a descriptor's end is on time when it tells the driver */
		eng_wake(e, e->s_end, e->x_off < e->x_len ||
			 (e->x_ctl & (XDMA_DESC_CTRL_COMPLETED |
				      XDMA_DESC_CTRL_STOP)), act);
		return true;
	}
	eng_complete(m, e, end, now, act);
	return !(e->status & XDMA_STAT_BUSY);
}

/**
 * st_c2h_complete() - an AXI-ST C2H descriptor ends with what it received.
 * @m: the card, locked (dropped around the writeback)
 * @e: the engine; e->x_done bytes landed, the last at e->clock
 * @eop: the frame ended with it (TLAST)
 * @now: host time
 * @act: host work
 *
 * Writes the C2H stream writeback (PG195 "C2H Stream Writeback": magic,
 * EOP, length) to the descriptor's source address, unless Control bit 27
 * disables it, then completes the descriptor as in MM.
 *
 * Return: as eng_step().
 */
static bool st_c2h_complete(struct xdma_model *m, struct model_engine *e,
			    bool eop, u64 now, struct model_act *act)
{
	__le32 wb[XDMA_STM_WB_SIZE / 4] = { 0 };
	u32 seq = e->seq;
	int r;

	if (!(e->ctrl & XDMA_CTRL_STM_WB_DISABLE)) {
		wb[0] = cpu_to_le32(FIELD_PREP(XDMA_STM_WB_MAGIC,
					       XDMA_STM_WB_MAGIC_VALUE) |
				    (eop ? XDMA_STM_WB_EOP : 0));
		wb[1] = cpu_to_le32(e->x_done);
		r = bus_write(m, e->x_src, wb, sizeof(wb));
		if (seq != e->seq)
			return false;
		if (r) {
			eng_error(m, e, data_error(e), act);
			return true;
		}
		if (m->rate)
			link_small(m, 1, e->clock, sizeof(wb));
	}
	e->x_len = e->x_done;
	e->burst++;
	eng_complete(m, e, e->clock, now, act);
	if (!(e->status & XDMA_STAT_BUSY))
		return true;
	if (!m->rate && e->burst >= ST_BURST) {
		/* a ring filled at once: let the host call it again */
		eng_wake(e, now, true, act);
		return true;
	}
	return false;
}

/**
 * st_c2h_data() - an AXI-ST C2H descriptor takes data from the user logic.
 * @m: the card, locked (dropped around bus accesses)
 * @e: the engine, X_DATA
 * @now: host time
 * @hang: the HANG fault holds the engines
 * @act: host work
 *
 * The offered record's bytes (st_peek) go into the descriptor, in slices
 * on the card-write link with a link model (at once without one), each
 * landing when its time has come.  The descriptor ends when it is full or
 * the record ends (TLAST: EOP); the rest of a longer record goes into the
 * next one.  With no record at hand the engine waits for the next one; with
 * Run cleared it ends the descriptor with what it has (or, empty, stops
 * without it).
 *
 * Return: as eng_step().
 */
static bool st_c2h_data(struct xdma_model *m, struct model_engine *e, u64 now,
			bool hang, struct model_act *act)
{
	u64 limit = hang ? min_t(u64, now, m->hang_from) : now;
	struct xdma_user_rec rec;
	u32 n, flags;
	bool eop;
	int r;

	for (;;) {
		if (e->s_len) {
			if (e->s_end > limit) {
				if (hang)
					return eng_hold(m, e, act);
				eng_wake(e, e->s_end, true, act);
				return true;
			}
			n = e->s_len;
			r = st_send(m, e, e->x_dst + e->x_done, n);
			if (r > 0)
				return false;
			if (r) {
				eng_error(m, e, data_error(e), act);
				return true;
			}
			e->s_len = 0;
			e->x_done += n;
			e->clock = e->s_end;
			e->woke = now;
			flags = m->uops->st_take(m->user, e->ch, n, e->clock);
			eop = flags & XDMA_USER_TLAST;
			user_flags(m, flags, act);
			if (eop || e->x_done == e->x_len)
				return st_c2h_complete(m, e, eop, now, act);
			continue;
		}
		if (hang)
			return eng_hold(m, e, act);
		if (!user_st_peek(m, e, limit, &rec)) {
			if (!(e->ctrl & XDMA_CTRL_RUN)) {
				if (e->x_done)
					return st_c2h_complete(m, e, false, now,
							       act);
				eng_idle(m, e, XDMA_STAT_IDLE_STOPPED, act);
				return true;
			}
			if (rec.next_ns != UINT64_MAX)
				eng_wake(e, rec.next_ns, true, act);
			return true;	/* a user BAR write kicks it */
		}
		n = min_t(u32, rec.left, e->x_len - e->x_done);
		if (m->rate)
			n = min_t(u32, n, m->slice);
		e->s_len = n;
		e->s_end = max_t(u64, e->clock, rec.ready_ns);
		if (m->rate)
			e->s_end = link_reserve(m, 1, e->s_end, n);
	}
}

/* The current descriptor's data starts (link model: after its latency). */
static void data_start(struct xdma_model *m, struct model_engine *e)
{
	e->xs = X_DATA;
	if (st_c2h(m, e))
		e->clock = max_t(u64, e->clock, e->x_ready);
	else
		slice_next(m, e, e->x_ready);
}

/**
 * eng_next() - between descriptors: stop, park, or take the next one.
 * @m: the card, locked (dropped around bus accesses)
 * @e: the engine, X_NONE
 * @now: host time
 * @act: host work
 *
 * Run cleared: the engine goes idle (idle_stopped).  Halted or stalled: it
 * parks, busy.  Otherwise it fetches the next block if needed, checks the
 * descriptor and accepts it: with a link model its data starts once the
 * fetch and desc_ns are over (X_LAT); without one, it moves at once, in one
 * copy.  From acceptance on, the descriptor is "the current descriptor" that
 * PG195 lets finish when Run is cleared.
 *
 * Return: as eng_step().
 */
static bool eng_next(struct xdma_model *m, struct model_engine *e, u64 now,
		     struct model_act *act)
{
	const struct hf_xdma_desc *d;
	bool fetched = false;
	u32 ctl, len, seq, err;
	u64 src, dst, t;
	int r;

	if (e->restart)		/* Run was set again while it was busy */
		eng_latch(m, e, now);
	if (!(e->ctrl & XDMA_CTRL_RUN)) {
		eng_idle(m, e, XDMA_STAT_IDLE_STOPPED, act);
		return true;
	}
	if ((m->faults & XDMA_FAULT_STALL) || eng_halted(m, e)) {
		e->parked = true;
		e->held = true;
		return true;
	}
	e->parked = false;
	if (e->blk_i >= e->blk_n) {
		if (eng_credit_mode(m, e) && !e->credits) {
			/* waits for credits, busy; a credit write kicks it */
			e->parked = true;
			e->held = true;
			return true;
		}
		r = eng_fetch(m, e, act);
		if (r)
			return r > 0;
		fetched = true;
	}

	d = &e->blk[e->blk_i];
	ctl = le32_to_cpu(d->control);
	len = le32_to_cpu(d->len) & XDMA_DESC_LEN_MASK;
	src = desc_addr(d->src_lo, d->src_hi);
	dst = desc_addr(d->dst_lo, d->dst_hi);
	err = desc_check(m, e, ctl, len, src, dst);
	if (err) {
		eng_error(m, e, err, act);
		return true;
	}
	e->x_src = src;
	e->x_dst = dst;
	e->x_len = len;
	e->x_ctl = ctl;
	e->x_off = 0;
	e->x_done = 0;
	e->s_len = 0;
	if (m->rate) {
		t = e->clock;
		if (fetched)
			t = link_small(m, 0, t, e->blk_n * XDMA_DESC_SIZE);
		e->x_t0 = e->clock;
		e->x_ready = t + m->cfg.link.desc_ns;
		e->xs = X_LAT;
		/* soon: the data's first slice now, no wake-up for the start */
		if (e->x_ready <= now + SLICE_NS)
			data_start(m, e);
		return false;
	}
	if (st_c2h(m, e)) {	/* the user logic fills it (st_c2h_data()) */
		e->xs = X_DATA;
		e->x_t0 = e->clock;
		return false;
	}

	/* No link model: the whole descriptor in one copy. */
	e->xs = X_DATA;
	e->x_t0 = now;
	seq = e->seq;
	r = eng_move(m, e, 0, len);
	if (seq != e->seq)
		return false;
	if (r) {
		eng_error(m, e, data_error(e), act);
		return true;
	}
	e->x_off = len;
	e->x_done = len;
	e->s_end = host_now(m);
	return false;
}

/**
 * eng_step() - advance one engine as far as the time allows.
 * @m: the card, locked (dropped while data moves)
 * @e: the engine
 * @act: host work to do once the lock is dropped
 *
 * Return: true when the engine has nothing more to do in this thread for
 * now (idle, stopped, parked, or waiting for a time it asked the host to
 * call it at), false to call again.
 */
static bool eng_step(struct xdma_model *m, struct model_engine *e,
		     struct model_act *act)
{
	bool hang;
	u64 now;

	if (!(e->status & XDMA_STAT_BUSY))
		return true;
	if (m->faults & XDMA_FAULT_DEAD) {
		e->parked = true;
		e->held = true;
		return true;
	}
	now = host_now(m);
	hang = hang_holds_eng(m, e, now);
	if (e->held && !hang)
		eng_resume(m, e, now);
	if (hang && e->xs != X_DATA)
		return eng_hold(m, e, act);
	switch (e->xs) {
	case X_DATA:
		if (st_c2h(m, e))
			return st_c2h_data(m, e, now, hang, act);
		return eng_data(m, e, now, hang, act);
	case X_LAT:
		if (e->x_ready > now) {
			eng_wake(e, e->x_ready, true, act);
			return true;
		}
		data_start(m, e);
		return false;
	default:
		return eng_next(m, e, now, act);
	}
}

/**
 * xdma_model_engine_work() - run engine @engine as far as it can go now.
 * @m: the card
 * @engine: engine order index
 *
 * Called by the host from an engine thread (or timer) after ops->kick or
 * at the time the engine asked for with ops->schedule.  Returns when the
 * engine is idle, stopped on an error, parked (halt, stall, dead card) or
 * waiting for a later time (then it has called ops->schedule).  A call for
 * an engine that another thread (or an outer call in the same thread) is
 * working on returns at once: that worker sees the change.  Spurious calls
 * are harmless.
 */
void xdma_model_engine_work(struct xdma_model *m, uint32_t engine)
{
	struct model_engine *e;
	struct model_act act;
	bool done;

	if (!m || engine >= m->num_engines)
		return;
	e = &m->eng[engine];
	pthread_mutex_lock(&m->lock);
	if (e->in_work) {
		pthread_mutex_unlock(&m->lock);
		return;
	}
	e->in_work = true;
	e->burst = 0;
	do {
		memset(&act, 0, sizeof(act));
		done = eng_step(m, e, &act);
		if (done)
			e->in_work = false;
		pthread_mutex_unlock(&m->lock);
		act_flush(m, &act);
		if (!done)
			pthread_mutex_lock(&m->lock);
	} while (!done);
}

/* ---- DMA/config BAR ---- */

static u32 alignments(const struct xdma_model *m)
{
	return FIELD_PREP(XDMA_ALIGN_ADDR, m->cfg.addr_align) |
	       FIELD_PREP(XDMA_ALIGN_LEN_GRAN, m->cfg.len_gran) |
	       FIELD_PREP(XDMA_ALIGN_ADDR_BITS, MODEL_ADDR_BITS);
}

/*
 * PG195 gives some registers two aliases: a write to base + 4 sets the bits
 * written (W1S), one to base + 8 clears them (W1C), and a read of either
 * returns the register.  Each block decodes them once, before its switch,
 * into the base register and the kind of write.
 */
enum alias_op { ALIAS_WRITE, ALIAS_W1S, ALIAS_W1C };

static const u32 chan_aliased[] = { XDMA_CHAN_CONTROL, XDMA_CHAN_IRQ_MASK };
static const u32 common_aliased[] = { XDMA_SGDMA_COMMON_CTRL,
				      XDMA_SGDMA_COMMON_CREDIT };
static const u32 irq_aliased[] = { XDMA_IRQ_USER_EN, XDMA_IRQ_CHAN_EN };

static u32 alias_decode_n(u32 reg, const u32 *bases, size_t n,
			  enum alias_op *op)
{
	*op = ALIAS_WRITE;
	for (size_t i = 0; i < n; i++) {
		if (reg == bases[i] + 4)
			*op = ALIAS_W1S;
		else if (reg == bases[i] + 8)
			*op = ALIAS_W1C;
		else
			continue;
		return bases[i];
	}
	return reg;
}

#define alias_decode(reg, bases, op) \
	alias_decode_n(reg, bases, ARRAY_SIZE(bases), op)

/* An aliased register's value after a write of @val; @mask: what can be set. */
static u32 alias_apply(u32 cur, enum alias_op op, u32 val, u32 mask)
{
	if (op == ALIAS_W1S)
		return cur | (val & mask);
	if (op == ALIAS_W1C)
		return cur & ~val;
	return val & mask;
}

static u32 chan_read(struct xdma_model *m, struct model_engine *e, u32 target,
		     u32 reg, struct model_act *act)
{
	enum alias_op op;
	u64 now;
	u32 v;

	switch (alias_decode(reg, chan_aliased, &op)) {
	case XDMA_ID:
		return XDMA_ID_VALUE(target, e->ch) |
		       (m->cfg.st ? XDMA_ID_STREAM : 0);
	case XDMA_CHAN_CONTROL:
		return e->ctrl;
	case XDMA_CHAN_STATUS:
		return e->status;
	case XDMA_CHAN_STATUS_RC:
		v = e->status;
		e->status &= XDMA_STAT_BUSY;
		irq_update(m, act);
		return v;
	case XDMA_CHAN_COMPLETED_DESC:
		return e->completed;
	case XDMA_CHAN_ALIGNMENTS:
		return alignments(m);
	case XDMA_CHAN_POLL_WB_LO:
		return e->wb_lo;
	case XDMA_CHAN_POLL_WB_HI:
		return e->wb_hi;
	case XDMA_CHAN_IRQ_MASK:
		return e->irq_mask;
	case XDMA_CHAN_PERF_CTRL:
		return e->perf_ctrl;
	}
	now = host_now(m);
	switch (reg) {
	case XDMA_CHAN_PERF_CYC_LO:
		return perf_lo(perf_ns(e, now) / MODEL_AXI_NS_PER_CYCLE);
	case XDMA_CHAN_PERF_CYC_HI:
		return perf_hi(perf_ns(e, now) / MODEL_AXI_NS_PER_CYCLE);
	case XDMA_CHAN_PERF_DATA_LO:
		return perf_lo(e->perf_data);
	case XDMA_CHAN_PERF_DATA_HI:
		return perf_hi(e->perf_data);
	case XDMA_CHAN_PERF_PEND_LO:
		return perf_lo(e->perf_pend_ns / MODEL_AXI_NS_PER_CYCLE);
	case XDMA_CHAN_PERF_PEND_HI:
		return perf_hi(e->perf_pend_ns / MODEL_AXI_NS_PER_CYCLE);
	}
	guest_error(m, "read of reserved channel register 0x%x", reg);
	return 0;
}

static void chan_write(struct xdma_model *m, struct model_engine *e, u32 reg,
		       u32 val, struct model_act *act)
{
	enum alias_op op;
	u64 now;

	switch (alias_decode(reg, chan_aliased, &op)) {
	case XDMA_CHAN_CONTROL:
		ctrl_write(m, e, alias_apply(e->ctrl, op, val, ~0u), act);
		break;
	case XDMA_CHAN_STATUS:
		e->status &= ~(val & ~XDMA_STAT_BUSY);
		irq_update(m, act);
		break;
	case XDMA_CHAN_POLL_WB_LO:
		e->wb_lo = val;
		break;
	case XDMA_CHAN_POLL_WB_HI:
		e->wb_hi = val;
		break;
	case XDMA_CHAN_IRQ_MASK:
		e->irq_mask = alias_apply(e->irq_mask, op, val,
					  XDMA_CTRL_IE_ALL);
		irq_update(m, act);
		break;
	case XDMA_CHAN_PERF_CTRL:
		now = host_now(m);
		if (val & XDMA_PERF_CLEAR)
			perf_clear(e, now);
		e->perf_ctrl = val & (XDMA_PERF_RUN | XDMA_PERF_AUTO);
		perf_eval(e, now);
		break;
	default:
		guest_error(m, "channel: write 0x%x to RO/reserved 0x%x",
			    val, reg);
	}
}

static u32 sgdma_read(struct xdma_model *m, struct model_engine *e,
		      u32 target, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_VALUE(target, e->ch) |
		       (m->cfg.st ? XDMA_ID_STREAM : 0);
	case XDMA_SGDMA_DESC_LO:
		return e->desc_lo;
	case XDMA_SGDMA_DESC_HI:
		return e->desc_hi;
	case XDMA_SGDMA_DESC_ADJ:
		return e->desc_adj;
	case XDMA_SGDMA_DESC_CREDITS:
		return e->credits;
	}
	guest_error(m, "read of reserved SGDMA register 0x%x", reg);
	return 0;
}

static void sgdma_write(struct xdma_model *m, struct model_engine *e, u32 reg,
			u32 val, struct model_act *act)
{
	switch (reg) {
	case XDMA_SGDMA_DESC_LO:
		e->desc_lo = val;
		break;
	case XDMA_SGDMA_DESC_HI:
		e->desc_hi = val;
		break;
	case XDMA_SGDMA_DESC_ADJ:
		e->desc_adj = val & XDMA_SGDMA_DESC_ADJ_MASK;
		break;
	case XDMA_SGDMA_DESC_CREDITS:
		if (!m->cfg.st) {	/* stored only */
			e->credits = val & XDMA_SGDMA_DESC_CREDITS_MASK;
			break;
		}
		/*
		 * PG195: a write adds credits; they exist only while the
		 * channel's credit mode is on (disabling it clears them).
		 */
		if (!eng_credit_mode(m, e)) {
			guest_error(m, "engine %u: credits without credit mode",
				    e->index);
			break;
		}
		e->credits = min_t(u32, e->credits +
				   (val & XDMA_SGDMA_DESC_CREDITS_MASK),
				   XDMA_SGDMA_DESC_CREDITS_MASK);
		if (e->status & XDMA_STAT_BUSY)
			act->kick |= BIT(e->index);
		break;
	default:
		guest_error(m, "SGDMA: write 0x%x to RO/reserved 0x%x",
			    val, reg);
	}
}

/* Bits of the SGDMA common registers that exist on this card. */
static u32 sg_common_mask(const struct xdma_model *m)
{
	return GENMASK(m->cfg.num_h2c - 1, 0) |
	       GENMASK(m->cfg.num_c2h + 15, 16);
}

static u32 common_read(struct xdma_model *m, u32 reg)
{
	enum alias_op op;

	switch (alias_decode(reg, common_aliased, &op)) {
	case XDMA_ID:
		return XDMA_ID_VALUE(XDMA_TARGET_SGDMA_COMMON, 0);
	case XDMA_SGDMA_COMMON_CTRL:
		return m->sg_halt;
	case XDMA_SGDMA_COMMON_CREDIT:
		return m->sg_credit_en;
	}
	guest_error(m, "read of reserved SGDMA common register 0x%x", reg);
	return 0;
}

static void common_write(struct xdma_model *m, u32 reg, u32 val,
			 struct model_act *act)
{
	u32 mask = sg_common_mask(m), old;
	enum alias_op op;

	switch (alias_decode(reg, common_aliased, &op)) {
	case XDMA_SGDMA_COMMON_CTRL:
		m->sg_halt = alias_apply(m->sg_halt, op, val, mask);
		break;
	case XDMA_SGDMA_COMMON_CREDIT:
		old = m->sg_credit_en;
		m->sg_credit_en = alias_apply(m->sg_credit_en, op, val, mask);
		if (!m->cfg.st)
			return;
		/* credits clear when a channel's credit mode is turned off */
		for (u32 i = 0; i < m->num_engines; i++)
			if (!eng_credit_mode(m, &m->eng[i]) &&
			    (old & (m->eng[i].c2h ?
				    XDMA_SGDMA_CREDIT_C2H(m->eng[i].ch) :
				    XDMA_SGDMA_CREDIT_H2C(m->eng[i].ch))))
				m->eng[i].credits = 0;
		break;
	default:
		guest_error(m, "SGDMA common: write 0x%x to RO/reserved 0x%x",
			    val, reg);
		return;
	}
	kick_busy(m, act);
}

static u32 irq_read(struct xdma_model *m, u32 reg)
{
	enum alias_op op;

	switch (alias_decode(reg, irq_aliased, &op)) {
	case XDMA_ID:
		return XDMA_ID_VALUE(XDMA_TARGET_IRQ, 0);
	case XDMA_IRQ_USER_EN:
		return m->user_en;
	case XDMA_IRQ_CHAN_EN:
		return m->chan_en;
	case XDMA_IRQ_USER_REQ:
		return user_lines(m);
	case XDMA_IRQ_CHAN_REQ:
		return chan_request(m);
	case XDMA_IRQ_USER_PEND:
		return user_lines(m) & m->user_en;
	case XDMA_IRQ_CHAN_PEND:
		return chan_request(m) & m->chan_en;
	case XDMA_IRQ_USER_VEC(0):
	case XDMA_IRQ_USER_VEC(4):
	case XDMA_IRQ_USER_VEC(8):
	case XDMA_IRQ_USER_VEC(12):
		return m->user_vec[(reg - XDMA_IRQ_USER_VEC(0)) / 4];
	case XDMA_IRQ_CHAN_VEC(0):
	case XDMA_IRQ_CHAN_VEC(4):
		return m->chan_vec[(reg - XDMA_IRQ_CHAN_VEC(0)) / 4];
	}
	guest_error(m, "read of reserved IRQ block register 0x%x", reg);
	return 0;
}

static void irq_write(struct xdma_model *m, u32 reg, u32 val,
		      struct model_act *act)
{
	u32 chan_mask = GENMASK(m->num_engines - 1, 0);
	enum alias_op op;

	switch (alias_decode(reg, irq_aliased, &op)) {
	case XDMA_IRQ_USER_EN: {
		u32 old = m->user_en;

		m->user_en = alias_apply(m->user_en, op, val, USER_IRQ_MASK);
		/* masking an enabled line acknowledges it (usr_irq_ack) */
		if (m->uops && (old & ~m->user_en))
			m->uops->irq_ack(m->user, old & ~m->user_en);
		break;
	}
	case XDMA_IRQ_CHAN_EN:
		m->chan_en = alias_apply(m->chan_en, op, val, chan_mask);
		break;
	case XDMA_IRQ_USER_VEC(0):
	case XDMA_IRQ_USER_VEC(4):
	case XDMA_IRQ_USER_VEC(8):
	case XDMA_IRQ_USER_VEC(12):
		m->user_vec[(reg - XDMA_IRQ_USER_VEC(0)) / 4] =
			val & IRQ_VEC_REG_MASK;
		return;
	case XDMA_IRQ_CHAN_VEC(0):
	case XDMA_IRQ_CHAN_VEC(4):
		m->chan_vec[(reg - XDMA_IRQ_CHAN_VEC(0)) / 4] =
			val & IRQ_VEC_REG_MASK;
		return;
	default:
		guest_error(m, "IRQ block: write 0x%x to RO/reserved 0x%x",
			    val, reg);
		return;
	}
	irq_update(m, act);
}

static u32 config_read(struct xdma_model *m, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_VALUE(XDMA_TARGET_CONFIG, 0);
	case XDMA_CFG_BUSDEV:
		return 0;
	case XDMA_CFG_MAX_PAYLOAD:
		return m->mps_code;
	case XDMA_CFG_MAX_READ_REQ:
		return MODEL_MRRS_CODE;
	case XDMA_CFG_SYSTEM_ID:
		return MODEL_SYSTEM_ID;
	case XDMA_CFG_MSI_ENABLE:
		if (m->irq_mode == XDMA_MODEL_IRQ_MSI)
			return XDMA_CFG_MSI_EN_MSI;
		if (m->irq_mode == XDMA_MODEL_IRQ_MSIX)
			return XDMA_CFG_MSI_EN_MSIX;
		return 0;
	case XDMA_CFG_DATA_WIDTH:
		return MODEL_DATA_WIDTH_CODE;
	case XDMA_CFG_PCIE_CONTROL:
		return m->pcie_ctrl;
	case XDMA_CFG_AXI_USER_MAX_PAYLOAD:
		return FIELD_PREP(XDMA_CFG_USER_EFF,
				  min_t(u32, m->user_mps, m->mps_code)) |
		       FIELD_PREP(XDMA_CFG_USER_PRG, m->user_mps);
	case XDMA_CFG_AXI_USER_MAX_READ_REQ:
		return FIELD_PREP(XDMA_CFG_USER_EFF,
				  min_t(u32, m->user_mrrs, MODEL_MRRS_CODE)) |
		       FIELD_PREP(XDMA_CFG_USER_PRG, m->user_mrrs);
	case XDMA_CFG_WRITE_FLUSH_TIMEOUT:
		return m->wr_flush;
	}
	guest_error(m, "read of reserved config block register 0x%x", reg);
	return 0;
}

static void config_write(struct xdma_model *m, u32 reg, u32 val)
{
	switch (reg) {
	case XDMA_CFG_PCIE_CONTROL:
		m->pcie_ctrl = val & XDMA_CFG_PCIE_CTRL_RELAXED;
		break;
	case XDMA_CFG_AXI_USER_MAX_PAYLOAD:
		m->user_mps = FIELD_GET(XDMA_CFG_USER_PRG, val);
		break;
	case XDMA_CFG_AXI_USER_MAX_READ_REQ:
		m->user_mrrs = FIELD_GET(XDMA_CFG_USER_PRG, val);
		break;
	case XDMA_CFG_WRITE_FLUSH_TIMEOUT:
		m->wr_flush = val & XDMA_CFG_WRITE_FLUSH_MASK;
		break;
	default:
		guest_error(m, "config: write 0x%x to RO/reserved 0x%x",
			    val, reg);
	}
}

static bool bad_offset(struct xdma_model *m, u32 off, u32 size,
		       const char *bar)
{
	if (off < size && !(off & 3))
		return false;
	guest_error(m, "%s BAR: bad access at 0x%x", bar, off);
	return true;
}

uint32_t xdma_model_dma_read32(struct xdma_model *m, uint32_t off)
{
	u32 target = off >> 12, ch = (off >> 8) & 0xf, reg = off & 0xff;
	struct model_act act = { 0 };
	struct model_engine *e;
	u32 v = 0;

	cnt_add(&m->cnt.mmio_reads, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return XDMA_ID_DEAD;
	if (bad_offset(m, off, XDMA_BAR_SIZE, "DMA"))
		return 0;
	pthread_mutex_lock(&m->lock);
	/* PCIe ordering: the completion pushes the card's posted writes */
	while (m->wb_pending) {
		m->wb_waiters++;
		pthread_cond_wait(&m->wb_cond, &m->lock);
		m->wb_waiters--;
	}
	switch (target) {
	case XDMA_TARGET_H2C:
	case XDMA_TARGET_C2H:
		e = chan_engine(m, target == XDMA_TARGET_C2H, ch);
		if (e)
			v = chan_read(m, e, target, reg, &act);
		else if (reg != XDMA_ID)
			guest_error(m, "read of absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_H2C_SGDMA:
	case XDMA_TARGET_C2H_SGDMA:
		e = chan_engine(m, target == XDMA_TARGET_C2H_SGDMA, ch);
		if (e)
			v = sgdma_read(m, e, target, reg);
		else if (reg != XDMA_ID)
			guest_error(m, "read of absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_IRQ:
		v = irq_read(m, ch ? ~0u : reg);
		break;
	case XDMA_TARGET_CONFIG:
		v = config_read(m, ch ? ~0u : reg);
		break;
	case XDMA_TARGET_SGDMA_COMMON:
		v = common_read(m, ch ? ~0u : reg);
		break;
	default:
		/* The MSI-X table and PBA belong to the host. */
		if (off < XDMA_MSIX_TABLE_OFFSET || off >= MSIX_REGION_END)
			guest_error(m, "read of reserved offset 0x%x", off);
	}
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
	return v;
}

void xdma_model_dma_write32(struct xdma_model *m, uint32_t off, uint32_t val)
{
	u32 target = off >> 12, ch = (off >> 8) & 0xf, reg = off & 0xff;
	struct model_act act = { 0 };
	struct model_engine *e;

	cnt_add(&m->cnt.mmio_writes, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return;
	if (bad_offset(m, off, XDMA_BAR_SIZE, "DMA"))
		return;
	pthread_mutex_lock(&m->lock);
	user_advance(m, host_now(m));
	switch (target) {
	case XDMA_TARGET_H2C:
	case XDMA_TARGET_C2H:
		e = chan_engine(m, target == XDMA_TARGET_C2H, ch);
		if (e)
			chan_write(m, e, reg, val, &act);
		else
			guest_error(m, "write to absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_H2C_SGDMA:
	case XDMA_TARGET_C2H_SGDMA:
		e = chan_engine(m, target == XDMA_TARGET_C2H_SGDMA, ch);
		if (e)
			sgdma_write(m, e, reg, val, &act);
		else
			guest_error(m, "write to absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_IRQ:
		irq_write(m, ch ? ~0u : reg, val, &act);
		break;
	case XDMA_TARGET_CONFIG:
		config_write(m, ch ? ~0u : reg, val);
		break;
	case XDMA_TARGET_SGDMA_COMMON:
		common_write(m, ch ? ~0u : reg, val, &act);
		break;
	default:
		if (off < XDMA_MSIX_TABLE_OFFSET || off >= MSIX_REGION_END)
			guest_error(m, "write of 0x%x to reserved offset 0x%x",
				    val, off);
	}
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
}

/* ---- user BAR: the user logic's AXI-Lite registers ---- */

/*
 * Whether user BAR offset @off reaches the user logic; else a guest error.
 */
static bool user_reaches(struct xdma_model *m, u32 off)
{
	if (!m->uops) {
		guest_error(m, "user BAR: no user logic at 0x%x", off);
		return false;
	}
	return !bad_offset(m, off, m->uops->bar_size, "user");
}

uint32_t xdma_model_user_read32(struct xdma_model *m, uint32_t off)
{
	u64 now;
	u32 v;

	cnt_add(&m->cnt.mmio_reads, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return XDMA_ID_DEAD;
	if (!user_reaches(m, off))
		return 0;
	pthread_mutex_lock(&m->lock);
	now = host_now(m);
	user_advance(m, now);
	v = m->uops->reg_read(m->user, off, now);
	pthread_mutex_unlock(&m->lock);
	return v;
}

void xdma_model_user_write32(struct xdma_model *m, uint32_t off, uint32_t val)
{
	struct model_act act = { 0 };
	u64 now;

	cnt_add(&m->cnt.mmio_writes, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return;
	if (!user_reaches(m, off))
		return;
	pthread_mutex_lock(&m->lock);
	now = host_now(m);
	user_advance(m, now);
	user_flags(m, m->uops->reg_write(m->user, off, val, now), &act);
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
}

/* The user BAR's size: the user logic's (0 without one). */
uint32_t xdma_model_user_bar_size(const struct xdma_model *m)
{
	return m->uops ? m->uops->bar_size : 0;
}

/* ---- life cycle ---- */

/* Registers to their reset values; m->lock held, no copy in flight. */
static void regs_reset(struct xdma_model *m)
{
	u32 i;

	for (i = 0; i < m->num_engines; i++) {
		struct model_engine *e = &m->eng[i];
		u32 seq = e->seq + 1;
		bool in_work = e->in_work;

		memset(e, 0, sizeof(*e));
		e->seq = seq;
		e->in_work = in_work;
		e->index = i;
		e->c2h = i >= m->cfg.num_h2c;
		e->ch = e->c2h ? i - m->cfg.num_h2c : i;
	}
	m->user_en = 0;
	m->chan_en = 0;
	memset(m->user_vec, 0, sizeof(m->user_vec));
	memset(m->chan_vec, 0, sizeof(m->chan_vec));
	m->user_pend_prev = 0;
	m->chan_pend_prev = 0;
	m->intx_level = false;
	m->sg_halt = 0;
	m->sg_credit_en = 0;
	m->pcie_ctrl = XDMA_CFG_PCIE_CTRL_RELAXED;
	m->user_mps = m->mps_code;
	m->user_mrrs = MODEL_MRRS_CODE;
	m->wr_flush = 0;
	if (m->uops)	/* the user logic shares the IP's reset */
		m->uops->reset(m->user);
}

/* A link as xdma_link_parse() + xdma_link_finish() make them, or none. */
static int link_check(struct xdma_link *l)
{
	if (!l->gen) {
		memset(l, 0, sizeof(*l));
		return 0;
	}
	if (l->gen > XDMA_LINK_MAX_GEN || !is_pow2(l->lanes) ||
	    l->lanes > XDMA_LINK_MAX_LANES || !is_pow2(l->mps) ||
	    l->mps < XDMA_LINK_MIN_MPS || l->mps > XDMA_LINK_MAX_MPS ||
	    l->desc_ns > XDMA_LINK_MAX_DESC_NS)
		return -EINVAL;
	return 0;
}

/* The pace of a card with link @l: rate, slice, MPS code. */
static void link_setup(struct xdma_model *m, const struct xdma_link *l)
{
	u64 slice;

	m->mps_code = MODEL_MPS_CODE;
	m->rate = xdma_link_gbps(l);
	if (!m->rate)
		return;
	m->mps_code = __builtin_ctz(l->mps) - 7;	/* 128 << code */
	/* at least SLICE_NS of link time each, in MPS multiples */
	slice = DIV_ROUND_UP((u64)(m->rate * SLICE_NS), l->mps) * l->mps;
	m->slice = max_t(u64, slice, (u64)SLICE_MIN_MPS * l->mps);
}

/* User logic ops: every one there, a power-of-two BAR. */
static int user_check(const struct xdma_user_ops *u)
{
	if (!u)
		return 0;
	if (!u->create || !u->destroy || !u->reset || !u->advance ||
	    !u->reg_read || !u->reg_write || !u->irq_lines || !u->irq_ack ||
	    !u->st_peek || !u->st_read || !u->st_take || !u->st_in ||
	    !is_pow2(u->bar_size) || u->bar_size < 4)
		return -EINVAL;
	return 0;
}

static int config_check(struct xdma_model_config *c)
{
	if (!c->num_h2c)
		c->num_h2c = XDMA_MAX_CHANNELS;
	if (!c->num_c2h)
		c->num_c2h = XDMA_MAX_CHANNELS;
	if (c->num_h2c > XDMA_MAX_CHANNELS || c->num_c2h > XDMA_MAX_CHANNELS)
		return -EINVAL;
	if (!c->ddr_size) {
		if (c->ddr)
			return -EINVAL;
		c->ddr_size = XDMA_MODEL_DEFAULT_DDR_SIZE;
	}
	if (c->ddr_size % 4096)
		return -EINVAL;
	if (!c->addr_align)
		c->addr_align = 1;
	if (!c->len_gran)
		c->len_gran = 1;
	if (!is_pow2(c->addr_align) || c->addr_align > MODEL_MAX_ALIGN ||
	    !is_pow2(c->len_gran) || c->len_gran > MODEL_MAX_ALIGN)
		return -EINVAL;
	if (user_check(c->user))
		return -EINVAL;
	return link_check(&c->link);
}

/* The card's user logic (xdma_model_config.user), out of reset. */
static int user_create(struct xdma_model *m)
{
	struct xdma_user_config uc = {
		.num_h2c = m->cfg.num_h2c,
		.num_c2h = m->cfg.num_c2h,
		.st = m->cfg.st,
		.ddr_size = m->cfg.ddr_size,
		.arg = m->cfg.user_arg,
	};
	int r;

	m->uenv.ctx = m;
	m->uenv.guest_error = guest_error;
	if (!m->cfg.user)
		return 0;
	r = m->cfg.user->create(&uc, &m->uenv, &m->user);
	if (!r)
		m->uops = m->cfg.user;
	return r;
}

/**
 * xdma_model_create() - build a card.
 * @cfg: configuration (NULL: all defaults)
 * @ops: host operations; all but msi and intx are required
 * @host: first argument of every host op
 * @out: the card
 *
 * Return: 0, -EINVAL for a bad configuration, -ENOMEM.
 */
int xdma_model_create(const struct xdma_model_config *cfg,
		      const struct xdma_model_host_ops *ops, void *host,
		      struct xdma_model **out)
{
	struct xdma_model_config c = { 0 };
	pthread_mutexattr_t attr;
	struct xdma_model *m;
	int r;

	if (!ops || !ops->dma_read || !ops->dma_write || !ops->kick ||
	    !ops->now_ns || !ops->schedule || !out)
		return -EINVAL;
	if (cfg)
		c = *cfg;
	r = config_check(&c);
	if (r)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = c;
	m->ops = *ops;
	m->host = host;
	m->num_engines = c.num_h2c + c.num_c2h;
	m->debug = getenv("HF_MODEL_DEBUG") != NULL;
	link_setup(m, &c.link);
	if (c.ddr) {
		m->ddr = c.ddr;
	} else {
		void *p = mmap(NULL, c.ddr_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

		if (p == MAP_FAILED) {
			free(m);
			return -ENOMEM;
		}
		/*
		 * Huge pages where the kernel offers them: a DMA that a host
		 * hands to a copy engine (a GPU's, registered memory) walks
		 * fewer, larger pages.  Advice only; touched pages still cost
		 * what they cost.
		 */
		madvise(p, c.ddr_size, MADV_HUGEPAGE);
		m->ddr = p;
		m->ddr_mapped = true;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->copies_cond, NULL);
	pthread_cond_init(&m->wb_cond, NULL);
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m->intx_lock, &attr);
	pthread_mutexattr_destroy(&attr);
	r = user_create(m);
	if (r) {
		xdma_model_destroy(m);
		return r;
	}
	regs_reset(m);
	for (u32 i = 0; c.st && i < m->num_engines; i++) {
		m->st_buf[i] = malloc(ST_BUF_SIZE);
		if (!m->st_buf[i]) {
			xdma_model_destroy(m);
			return -ENOMEM;
		}
	}
	*out = m;
	return 0;
}

/**
 * xdma_model_destroy() - free a card.
 * @m: the card (NULL is ignored)
 *
 * The host must have stopped calling into the model: engine threads joined,
 * wake-ups asked for with ops->schedule cancelled (timers deleted).
 */
void xdma_model_destroy(struct xdma_model *m)
{
	if (!m)
		return;
	if (m->uops)
		m->uops->destroy(m->user);
	if (m->ddr_mapped)
		munmap(m->ddr, m->cfg.ddr_size);
	for (u32 i = 0; i < XDMA_MAX_ENGINES; i++)
		free(m->st_buf[i]);
	pthread_mutex_destroy(&m->intx_lock);
	pthread_cond_destroy(&m->copies_cond);
	pthread_cond_destroy(&m->wb_cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/**
 * xdma_model_reset() - reset the IP: engines stop, registers take their
 * reset values; card memory is kept.
 * @m: the card
 *
 * Waits for data copies in flight to end; an engine thread that was copying
 * drops its result, and a descriptor that was moving stops where it was
 * (a reset is the one thing that cuts a descriptor short).  Wake-ups asked
 * for earlier may still come: they find the engines idle.  The INTx line is
 * lowered.
 */
void xdma_model_reset(struct xdma_model *m)
{
	struct model_act act = { 0 };

	pthread_mutex_lock(&m->lock);
	while (m->copies)
		pthread_cond_wait(&m->copies_cond, &m->lock);
	regs_reset(m);
	act.intx = true;
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
}

void xdma_model_set_irq_mode(struct xdma_model *m,
			     enum xdma_model_irq_mode mode)
{
	pthread_mutex_lock(&m->lock);
	m->irq_mode = mode;
	pthread_mutex_unlock(&m->lock);
	intx_sync(m);
}

static int card_range(const struct xdma_model *m, uint64_t addr, size_t len)
{
	if (addr + len < addr)
		return -EOVERFLOW;
	if (addr > m->cfg.ddr_size || len > m->cfg.ddr_size - addr)
		return -ERANGE;
	return 0;
}

int xdma_model_card_read(struct xdma_model *m, uint64_t addr, void *buf,
			 size_t len)
{
	int r = card_range(m, addr, len);

	if (r)
		return r;
	memcpy(buf, m->ddr + addr, len);
	return 0;
}

int xdma_model_card_write(struct xdma_model *m, uint64_t addr,
			  const void *buf, size_t len)
{
	int r = card_range(m, addr, len);

	if (r)
		return r;
	memcpy(m->ddr + addr, buf, len);
	return 0;
}

void *xdma_model_card_mem(struct xdma_model *m)
{
	return m->ddr;
}

uint64_t xdma_model_card_size(const struct xdma_model *m)
{
	return m->cfg.ddr_size;
}

uint32_t xdma_model_num_engines(const struct xdma_model *m)
{
	return m->num_engines;
}

void xdma_model_get_counters(struct xdma_model *m,
			     struct xdma_model_counters *c)
{
	const uint64_t *src = (const uint64_t *)&m->cnt;
	uint64_t *dst = (uint64_t *)c;
	size_t i;

	for (i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void xdma_model_reset_counters(struct xdma_model *m)
{
	uint64_t *c = (uint64_t *)&m->cnt;
	size_t i;

	for (i = 0; i < sizeof(m->cnt) / sizeof(uint64_t); i++)
		__atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
}

/**
 * xdma_model_inject() - set the injected faults (replaces the previous set).
 * @m: the card
 * @faults: enum xdma_model_fault bits
 *
 * DESC_READ is one-shot: the next descriptor fetch of any engine fails and
 * the bit clears.  Clearing STALL or DEAD lets parked engines go on.  HANG
 * needs a duration (xdma_model_inject_hang()): set here it keeps a hang in
 * force, clear it ends one.
 */
void xdma_model_inject(struct xdma_model *m, uint32_t faults)
{
	struct model_act act = { 0 };
	u64 now = host_now(m);
	u32 f = faults & ~(u32)XDMA_FAULT_HANG;

	pthread_mutex_lock(&m->lock);
	if (hang_holds(m, now)) {
		if (faults & XDMA_FAULT_HANG)
			f |= XDMA_FAULT_HANG;
		else
			m->hang_until = now;
	}
	user_advance(m, now);
	__atomic_store_n(&m->faults, f, __ATOMIC_RELAXED);
	kick_busy(m, &act);
	act.intx = true;
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
}

/**
 * xdma_model_bus_master() - the host turned bus mastering on or off.
 * @m: the card
 * @on: on
 *
 * With it off the host's DMA ops fail with -EBUSY: a descriptor fetch then
 * waits, its engine busy, as the request a PCIe function may not issue
 * does; turning it on lets such engines go on (an engine started before
 * and not stopped fetches its descriptors now).
 */
void xdma_model_bus_master(struct xdma_model *m, bool on)
{
	struct model_act act = { 0 };

	if (!on)
		return;
	pthread_mutex_lock(&m->lock);
	user_advance(m, host_now(m));
	kick_busy(m, &act);
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
}

/**
 * xdma_model_inject_hang() - every engine hangs for @ns, then recovers.
 * @m: the card
 * @ns: how long from now, at most XDMA_MODEL_MAX_HANG_NS; 0 ends a hang
 *
 * From now on no engine makes progress: no byte moves, no descriptor is
 * fetched or completes, Busy stays set, a Run clear is noted but not acted
 * on.  Once @ns have passed the XDMA_FAULT_HANG bit clears itself and the
 * engines go on where they were: each finishes its current descriptor and,
 * if Run was cleared meanwhile, then goes idle.  A new call during a hang
 * moves its end.  Other faults are left as they are.
 *
 * Return: 0, or -EINVAL when @ns is too long.
 */
int xdma_model_inject_hang(struct xdma_model *m, uint64_t ns)
{
	struct model_act act = { 0 };
	u64 now = host_now(m);

	if (ns > XDMA_MODEL_MAX_HANG_NS)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	user_advance(m, now);
	if (!ns) {
		if (hang_holds(m, now)) {
			m->hang_until = now;
			__atomic_and_fetch(&m->faults, ~(u32)XDMA_FAULT_HANG,
					   __ATOMIC_RELAXED);
		}
	} else {
		if (!hang_holds(m, now))
			m->hang_from = now;
		m->hang_until = now + ns;
		__atomic_or_fetch(&m->faults, XDMA_FAULT_HANG,
				  __ATOMIC_RELAXED);
	}
	kick_busy(m, &act);
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
	return 0;
}

/**
 * xdma_model_set_hang_engines() - which engines a hang holds.
 * @m: the card
 * @mask: a bit per engine index (H2C n is bit n, C2H n bit num_h2c + n);
 *	0, the default: every engine
 *
 * For a hang of one channel while the others work (a driver's handling
 * of one engine that does not stop); applies to the hang in force too.
 * Kept across xdma_model_reset(), as the other faults are.
 */
void xdma_model_set_hang_engines(struct xdma_model *m, uint32_t mask)
{
	struct model_act act = { 0 };

	pthread_mutex_lock(&m->lock);
	user_advance(m, host_now(m));
	m->hang_engines = mask & (u32)GENMASK(m->num_engines - 1, 0);
	kick_busy(m, &act);
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
}

/**
 * xdma_model_get_hang_engines() - the engines a hang holds.
 * @m: the card
 *
 * Return: xdma_model_set_hang_engines()'s mask (0: every engine).
 */
uint32_t xdma_model_get_hang_engines(struct xdma_model *m)
{
	uint32_t v;

	pthread_mutex_lock(&m->lock);
	v = m->hang_engines;
	pthread_mutex_unlock(&m->lock);
	return v;
}

/**
 * xdma_model_hang_left_ns() - how long the hang in force still lasts.
 * @m: the card
 *
 * Return: ns, 0 when no engine hangs.
 */
uint64_t xdma_model_hang_left_ns(struct xdma_model *m)
{
	u64 now = host_now(m), left = 0;

	pthread_mutex_lock(&m->lock);
	if (hang_holds(m, now))
		left = m->hang_until - now;
	pthread_mutex_unlock(&m->lock);
	return left;
}

/**
 * xdma_model_get_faults() - the injected faults now in force.
 * @m: the card
 *
 * Return: enum xdma_model_fault bits (DESC_READ clears once it fired,
 * HANG once the hang is over).
 */
uint32_t xdma_model_get_faults(struct xdma_model *m)
{
	u64 now = host_now(m);
	u32 f;

	pthread_mutex_lock(&m->lock);
	hang_holds(m, now);
	f = m->faults;
	pthread_mutex_unlock(&m->lock);
	return f;
}

/**
 * xdma_model_stray_irq() - send an engine's channel message once, as a
 *	stray or late completion message would arrive (tests).
 * @m: the card
 * @engine: the engine, in engine order
 *
 * Nothing else changes: no status, no request or pending bit, no
 * writeback.  Only a message interrupt (MSI-X: the channel's vector; MSI:
 * the card's one vector) while the channel's interrupt is enabled in the
 * IRQ block and no LOST_IRQ or DEAD fault holds; INTx is a level the IRQ
 * block drives from pending bits, which a stray message does not touch.
 * Counted in irqs.
 *
 * Return: 0 sent, -EINVAL no such engine, -EAGAIN not sent (not in MSI or
 * MSI-X mode, the channel's interrupt disabled, or a fault holds).
 */
int xdma_model_stray_irq(struct xdma_model *m, uint32_t engine)
{
	struct model_act act = { 0 };
	int ret = 0;

	if (engine >= m->num_engines)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	if ((m->irq_mode != XDMA_MODEL_IRQ_MSI &&
	     m->irq_mode != XDMA_MODEL_IRQ_MSIX) ||
	    !(m->chan_en & BIT(engine)) || irq_blocked(m))
		ret = -EAGAIN;
	else
		act.msi[act.nmsi++] = chan_vector(m, engine);
	pthread_mutex_unlock(&m->lock);
	act_flush(m, &act);
	return ret;
}
