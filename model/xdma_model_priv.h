// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model_priv.h - what the files of the XDMA IP model share: the card's
 * and the engines' state, the constants of the modelled card, and the calls
 * one part makes into another (xm_*).  Not for the model's hosts: they use
 * xdma_model.h.  The files:
 *   xdma_model.c        life cycle, card memory, faults, counters
 *   xdma_model_bar.c    the DMA/config BAR's register decode, the user BAR
 *   xdma_model_engine.c engine state and Control, bus access, link pacing
 *   xdma_model_sgdma.c  descriptor processing: fetch, data, completion
 *   xdma_model_stream.c the user logic's ports: AXI-Stream, usr_irq, time
 *   xdma_model_irq.c    interrupts (IRQ block, MSI/MSI-X, INTx) and the
 *                       performance monitors
 */
#ifndef XDMA_MODEL_PRIV_H
#define XDMA_MODEL_PRIV_H

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
 * @st_wait: AXI-ST H2C: bytes after @x_done that came over the link but
 *	the user logic's port has not taken (back-pressure): offered again
 *	at its XDMA_USER_KICK_H2C, before more lands
 * @st_eop: AXI-ST H2C: the port took the current descriptor's TLAST
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
	u32 st_wait;
	bool st_eop;
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

static inline bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

static inline u64 desc_addr(__le32 lo, __le32 hi)
{
	return (u64)le32_to_cpu(lo) | (u64)le32_to_cpu(hi) << 32;
}

/* The usr_irq_req lines the user logic drives.  @m locked. */
static inline u32 user_lines(struct xdma_model *m)
{
	return m->uops ? m->uops->irq_lines(m->user) : 0;
}

/* xdma_model.c: life cycle and the public calls */
void xm_guest_error(void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* xdma_model_irq.c: interrupts and the performance monitors */
u32 xm_chan_vector(const struct xdma_model *m, u32 engine);
u32 xm_chan_request(const struct xdma_model *m);
bool xm_irq_blocked(const struct xdma_model *m);
void xm_irq_update(struct xdma_model *m, struct model_act *act);
void xm_intx_sync(struct xdma_model *m);
void xm_act_flush(struct xdma_model *m, struct model_act *act);
u64 xm_perf_ns(const struct model_engine *e, u64 now);
void xm_perf_eval(struct model_engine *e, u64 now);
void xm_perf_clear(struct model_engine *e, u64 now);
u32 xm_perf_lo(u64 v);
u32 xm_perf_hi(u64 v);

/* xdma_model_engine.c: engine state, Control, bus access, link pacing */
struct model_engine *xm_chan_engine(struct xdma_model *m, bool c2h, u32 ch);
bool xm_eng_halted(const struct xdma_model *m, const struct model_engine *e);
bool xm_st_c2h(const struct xdma_model *m, const struct model_engine *e);
bool xm_eng_credit_mode(const struct xdma_model *m,
			const struct model_engine *e);
bool xm_hang_holds(struct xdma_model *m, u64 now);
bool xm_hang_holds_eng(struct xdma_model *m, const struct model_engine *e,
		       u64 now);
u32 xm_logged(const struct model_engine *e, u32 bits);
void xm_queue_writeback(struct xdma_model *m, const struct model_engine *e,
			struct model_act *act);
void xm_eng_idle(struct xdma_model *m, struct model_engine *e, u32 bits,
		 struct model_act *act);
void xm_eng_error(struct xdma_model *m, struct model_engine *e, u32 bits,
		  struct model_act *act);
void xm_eng_latch(struct xdma_model *m, struct model_engine *e, u64 now);
void xm_eng_start(struct xdma_model *m, struct model_engine *e, u64 now,
		  struct model_act *act);
void xm_ctrl_write(struct xdma_model *m, struct model_engine *e, u32 val,
		   struct model_act *act);
void xm_kick_busy(struct xdma_model *m, struct model_act *act);
u32 xm_desc_check(const struct xdma_model *m, const struct model_engine *e,
		  u32 ctl, u32 len, u64 src, u64 dst);
u32 xm_data_error(const struct model_engine *e);
void xm_bus_enter(struct xdma_model *m);
int xm_bus_leave(struct xdma_model *m, int r);
int xm_bus_read(struct xdma_model *m, u64 bus, void *dst, size_t len);
int xm_bus_write(struct xdma_model *m, u64 bus, const void *src, size_t len);
int xm_eng_move(struct xdma_model *m, struct model_engine *e, u64 off, u32 len,
		u32 *took, struct model_act *act);
u64 xm_link_reserve(struct xdma_model *m, int w, u64 from, u64 bytes);
u64 xm_link_small(struct xdma_model *m, int w, u64 from, u64 bytes);
void xm_slice_next(struct xdma_model *m, struct model_engine *e, u64 from);
void xm_eng_wake(struct model_engine *e, u64 when, bool precise,
		 struct model_act *act);
bool xm_eng_hold(struct xdma_model *m, struct model_engine *e,
		 struct model_act *act);
void xm_eng_resume(struct xdma_model *m, struct model_engine *e, u64 now);

/* xdma_model_stream.c: the user logic's ports (AXI-Stream, usr_irq, time) */
void xm_user_advance(struct xdma_model *m, u64 now);
void xm_user_flags(struct xdma_model *m, u32 flags, struct model_act *act);
bool xm_user_st_peek(struct xdma_model *m, const struct model_engine *e, u64 t,
		     struct xdma_user_rec *rec);
u32 xm_user_st_in(struct xdma_model *m, const struct model_engine *e,
		  const void *buf, u32 n, bool last, struct model_act *act);
int xm_st_recv(struct xdma_model *m, struct model_engine *e, u64 off, u32 len,
	       u32 *took, struct model_act *act);
int xm_st_send(struct xdma_model *m, struct model_engine *e, u64 bus, u32 n);

#endif /* XDMA_MODEL_PRIV_H */
