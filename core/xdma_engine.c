// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xdma_engine.c - the OS-neutral engine core of the XDMA IP (PG195): the
 * SGDMA engines' set-up, start, wait, stop and error-decode logic, for
 * cards of either interface (AXI memory-mapped, AXI-Stream).  The core is
 * four files sharing xdma_priv.h: xdma_chain.c (descriptor chains),
 * xdma_card.c (card probe, status decoding), this file (the engines and
 * the runs of a chain) and xdma_ring.c (the C2H rings of AXI-Stream cards).
 *
 * The XDMA IP has up to four host-to-card (H2C) and four card-to-host (C2H)
 * scatter-gather engines.  An engine fetches 32-byte descriptors from host
 * memory (bursts of adjacent descriptors, never across a 4 KiB boundary),
 * moves each descriptor's bytes between a bus address (host or GPU memory)
 * and an AXI address (card memory), and stops after a descriptor with the
 * Stop bit.  At the end of a chain the engine writes its completed-
 * descriptor count, with an error flag, to a word in host memory (the
 * poll-mode writeback, which PG195 offers whatever the interrupt mode) and,
 * in interrupt mode, the IRQ block raises the channel's vector.  A run
 * learns how it ended from that word: a transfer that succeeds reads no
 * register, and writes two (Run set, Run cleared) on a chain run before;
 * registers are read on an error, a timeout or a stop, and to confirm the
 * end that a word of the caller's tells (hf_xdma_engine_run_wb()).  Setting Run clears
 * the status register (PG195), so the channel's interrupt request falls
 * with each start and rises once at each end.
 *
 * The core is compiled unchanged into hellofpga.ko and into libhellofpga;
 * everything it needs from its surroundings comes from hf_os.h.  It never
 * allocates: descriptor storage and the writeback word belong to the caller.
 */
#include "xdma_priv.h"

/* Idle proof of a stopped engine: first and longest sleep between looks. */
#define XDMA_STOP_SLEEP_MIN_US		10u
#define XDMA_STOP_SLEEP_MAX_US		1000u
/* Idle proof: an engine with Busy clear must keep its count this long. */
#define XDMA_STOP_STABLE_US		20u
/* Idle proof: margin over the link time of the descriptor in progress. */
#define XDMA_STOP_LINK_MARGIN		2ull

static const char * const hf_xdma_dir_name[] = {
	[XDMA_H2C] = "H2C",
	[XDMA_C2H] = "C2H",
};

/* ------------------------------------------------------------------------ */
/* Engines                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * hf_xdma_engine_halt_bit() - this engine's bit in the SGDMA common halt field.
 * @e: the engine
 *
 * Return: the bit.
 */
static u32 hf_xdma_engine_halt_bit(const struct hf_xdma_engine *e)
{
	return e->dir == XDMA_H2C ? XDMA_SGDMA_HALT_H2C(e->ch) :
				    XDMA_SGDMA_HALT_C2H(e->ch);
}

/**
 * hf_xdma_engine_stop_bound() - how long a stopped engine may take to go idle.
 * @e: the engine
 * @c: the chain it runs, or NULL when unknown (a descriptor of any length)
 * @done: descriptors of @c the engine has completed
 * @desc_len: when not 0, the length of every descriptor the engine may be
 *	working on (a ring of equal buffers); @c is then unused
 *
 * Clearing Run lets the descriptor in progress finish (PG195), so the bound
 * is what that descriptor can still take at the link's rate, shared with
 * every other engine of the direction, with a margin; never less than
 * XDMA_STOP_MIN_NS, never more than hf_xdma_dev.stop_max_ns (also the answer
 * when the link rate is unknown).
 *
 * Return: the bound in ns.
 */
static u64 hf_xdma_engine_stop_bound(const struct hf_xdma_engine *e,
				     const struct hf_xdma_chain *c, u32 done,
				     u64 desc_len)
{
	const struct hf_xdma_dev *xdev = e->xdev;
	u64 cap = xdev->stop_max_ns ? xdev->stop_max_ns :
				      XDMA_STOP_MAX_DEFAULT_NS;
	u32 share = e->dir == XDMA_H2C ? xdev->num_h2c : xdev->num_c2h;
	u64 bytes = XDMA_DESC_MAX_LEN, ns;

	if (!xdev->link_rate)
		return cap;
	if (desc_len)
		bytes = desc_len;
	else if (c && done < c->count)
		bytes = le32_to_cpu(c->desc[done].len) & XDMA_DESC_LEN_MASK;
	else if (c)
		bytes = 0;
	/* at most 2^28 * 2 * 4 * 10^9: no overflow */
	ns = bytes * XDMA_STOP_LINK_MARGIN * max_t(u32, share, 1) *
	     1000000000ull / xdev->link_rate;
	ns += XDMA_STOP_MIN_NS;
	return min(ns, max(cap, (u64)XDMA_STOP_MIN_NS));
}

/**
 * hf_xdma_engine_idle() - whether an engine is idle, by two looks.
 * @e: the engine
 * @status: receives the status register (not cleared)
 *
 * Idle means Busy clear and the completed-descriptor count the same across
 * XDMA_STOP_STABLE_US, with Busy still clear at the end.
 *
 * Return: 1 idle, 0 not (yet), -ENODEV when the card reads all ones.
 */
static int hf_xdma_engine_idle(struct hf_xdma_engine *e, u32 *status)
{
	u32 d1, d2;

	*status = hf_xdma_rd(e, XDMA_CHAN_STATUS);
	if (*status == XDMA_ID_DEAD)
		return -ENODEV;
	if (*status & XDMA_STAT_BUSY)
		return 0;
	d1 = hf_xdma_rd(e, XDMA_CHAN_COMPLETED_DESC);
	hf_os_sleep_us(XDMA_STOP_STABLE_US);
	*status = hf_xdma_rd(e, XDMA_CHAN_STATUS);
	d2 = hf_xdma_rd(e, XDMA_CHAN_COMPLETED_DESC);
	if (d1 == XDMA_ID_DEAD || d2 == XDMA_ID_DEAD ||
	    *status == XDMA_ID_DEAD)
		return -ENODEV;
	return !(*status & XDMA_STAT_BUSY) && d1 == d2;
}

/**
 * hf_xdma_engine_stop() - stop an engine and prove it idle.
 * @e: the engine
 * @c: the chain it runs, or NULL when unknown
 * @desc_len: 0, or the length of each descriptor of the ring it runs
 * @status: receives the last status read (not cleared)
 *
 * Clears Run and halts the engine's descriptor fetch in the SGDMA common
 * block, then waits, bounded by hf_xdma_engine_stop_bound(), sleeping between
 * looks, until hf_xdma_engine_idle() says so; the wait is not interruptible
 * (freeing memory the card still writes is worse than a late return).
 * When idle the halt is released.  When not, the engine is wedged:
 * @e->wedged is set and the halt stays, so that an engine that finishes
 * later fetches nothing more.  A card that reads all ones proves nothing
 * either (its registers may be gone while its DMA is still in flight: a
 * link being reset, a function reset, an FPGA reload): the engine is
 * wedged as well, and what it may reach stays until
 * hf_xdma_engine_recover() or a reset proves it idle, or bus mastering is
 * off.
 *
 * Return: 0 when idle, -EBUSY when wedged, -ENODEV when the card reads all
 * ones (wedged too).
 */
int hf_xdma_engine_stop(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
			u64 desc_len, u32 *status)
{
	const struct hf_mmio *bar = e->xdev->bar;
	u32 halt = hf_xdma_engine_halt_bit(e);
	u32 sleep_us = XDMA_STOP_SLEEP_MIN_US, done;
	u64 deadline;
	int idle;

	*status = XDMA_ID_DEAD;
	hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
	hf_iowrite32(halt, bar, XDMA_SGDMA_COMMON_BASE +
		     XDMA_SGDMA_COMMON_CTRL_W1S);
	done = hf_xdma_rd(e, XDMA_CHAN_COMPLETED_DESC);
	if (done == XDMA_ID_DEAD) {
		e->wedged = true;
		return -ENODEV;
	}
	deadline = hf_os_now_ns() + hf_xdma_engine_stop_bound(e, c, done, desc_len);
	for (;;) {
		idle = hf_xdma_engine_idle(e, status);
		if (idle < 0) {
			e->wedged = true;
			return idle;
		}
		if (idle)
			break;
		if (hf_os_now_ns() >= deadline) {
			e->wedged = true;
			e->stats.wedges++;
			return -EBUSY;
		}
		hf_os_sleep_us(sleep_us);
		sleep_us = min(sleep_us * 2, XDMA_STOP_SLEEP_MAX_US);
	}
	hf_iowrite32(halt, bar, XDMA_SGDMA_COMMON_BASE +
		     XDMA_SGDMA_COMMON_CTRL_W1C);
	return 0;
}

/**
 * hf_xdma_engine_program() - set the registers of an idle engine up.
 * @e: the engine, proven idle (its descriptor fetch not halted)
 *
 * Clears its status, programs its interrupt mask and its own writeback
 * address (slot 0 of its area); in poll mode the channel interrupt is
 * disabled in the IRQ block, in interrupt mode it is enabled.  What the
 * engine remembered of the registers is forgotten: the next run programs
 * its chain's address.
 *
 * Return: 0, -ENODEV when the card reads all ones.
 */
static int hf_xdma_engine_program(struct hf_xdma_engine *e)
{
	if (hf_xdma_rd(e, XDMA_CHAN_STATUS_RC) == XDMA_ID_DEAD)
		return -ENODEV;
	hf_xdma_wr(e, XDMA_CHAN_IRQ_MASK, XDMA_IRQ_MASK_BITS);
	e->wb = e->wb_area;
	e->wb_bus = e->wb_area_bus;
	WRITE_ONCE(*e->wb, 0);
	hf_xdma_wr(e, XDMA_CHAN_POLL_WB_LO, lower_32_bits(e->wb_bus));
	hf_xdma_wr(e, XDMA_CHAN_POLL_WB_HI, upper_32_bits(e->wb_bus));
	hf_xdma_irq_wr(e, e->poll ? XDMA_IRQ_CHAN_EN_W1C : XDMA_IRQ_CHAN_EN_W1S,
		       BIT(e->index));
	e->prog_valid = false;
	e->regs_lost = false;
	return 0;
}

/**
 * hf_xdma_engine_setup() - stop an engine, prove it idle and program it.
 * @e: the engine, its fields set
 *
 * Return: 0; -EBUSY when it does not stop, -ENODEV when the card reads all
 * ones (both leave it wedged: @e->wedged).
 */
static int hf_xdma_engine_setup(struct hf_xdma_engine *e)
{
	u32 status;
	int ret;

	ret = hf_xdma_engine_stop(e, NULL, 0, &status);
	if (!ret)
		ret = hf_xdma_engine_program(e);
	if (ret == -ENODEV)
		e->wedged = true;
	if (ret)
		hf_os_log("xdma: %s%u: %s", hf_xdma_dir_name[e->dir], e->ch,
			  ret == -EBUSY ? "engine left running does not stop" :
					  "card not responding");
	return ret;
}

/**
 * hf_xdma_engine_init() - prepare one engine for transfers.
 * @e: the engine
 * @xdev: the card, probed with hf_xdma_dev_probe()
 * @dir: XDMA_H2C or XDMA_C2H
 * @ch: channel number within the direction
 * @poll: wait by looking at the writeback word (else for an interrupt)
 * @wb_cpu: CPU address of XDMA_WB_AREA bytes of 4-byte aligned DMA-coherent
 *	memory for the writeback slots (both modes)
 * @wb_bus: bus address of @wb_cpu
 *
 * Sets the engine object up once (its event, its counters) and then its
 * registers (hf_xdma_engine_reinit() does only the latter, after a reset):
 * stops the engine if it runs (a crashed user, an earlier driver) and
 * proves it idle, clears its status, programs its interrupt mask and the
 * writeback address; in poll mode the channel interrupt is disabled in the
 * IRQ block, in interrupt mode it is enabled.  The caller installs the
 * interrupt handler (hf_xdma_engine_isr()) before the first run, and
 * enables bus mastering only once every engine of the card is initialised
 * (an engine left running would otherwise go on with stale descriptors).
 *
 * Return: 0, -EINVAL for a channel the card lacks or a missing writeback
 * area, -ENODEV when the card does not respond, -EBUSY when the engine
 * does not stop.  On failure the engine is not initialised (nothing to
 * hf_xdma_engine_fini()).
 */
int hf_xdma_engine_init(struct hf_xdma_engine *e, struct hf_xdma_dev *xdev,
			enum hf_xdma_dir dir, u32 ch, bool poll,
			void *wb_cpu, u64 wb_bus)
{
	u32 align;
	int ret;

	memset(e, 0, sizeof(*e));
	if (dir != XDMA_H2C && dir != XDMA_C2H)
		return -EINVAL;
	if (ch >= (dir == XDMA_H2C ? xdev->num_h2c : xdev->num_c2h))
		return -EINVAL;
	if (!wb_cpu || !IS_ALIGNED((unsigned long)wb_cpu, 4) ||
	    !IS_ALIGNED(wb_bus, 4ull))
		return -EINVAL;

	e->xdev = xdev;
	e->dir = dir;
	e->ch = ch;
	e->index = dir == XDMA_H2C ? ch : xdev->num_h2c + ch;
	e->base = dir == XDMA_H2C ? XDMA_H2C_BASE(ch) : XDMA_C2H_BASE(ch);
	e->sgdma_base = dir == XDMA_H2C ? XDMA_H2C_SGDMA_BASE(ch) :
					  XDMA_C2H_SGDMA_BASE(ch);
	e->poll = poll;
	e->wb = wb_cpu;
	e->wb_bus = wb_bus;
	e->wb_area = e->wb;
	e->wb_area_bus = e->wb_bus;

	align = hf_xdma_rd(e, XDMA_CHAN_ALIGNMENTS);
	if (align == XDMA_ID_DEAD) {
		e->xdev = NULL;
		return -ENODEV;
	}
	e->addr_align = max_t(u32, FIELD_GET(XDMA_ALIGN_ADDR, align), 1);
	e->len_gran = max_t(u32, FIELD_GET(XDMA_ALIGN_LEN_GRAN, align), 1);
	e->addr_bits = FIELD_GET(XDMA_ALIGN_ADDR_BITS, align);

	/*
	 * Once, for the engine's life: a reset of the card sets the
	 * registers up again (hf_xdma_engine_reinit()), never the event,
	 * whose wait queue others may sit on (poll() of a stream's node).
	 */
	hf_os_event_init(&e->irq_event);
	/* Left running (a crashed user, a previous driver): stop it. */
	ret = hf_xdma_engine_setup(e);
	if (ret) {
		hf_os_event_destroy(&e->irq_event);
		e->xdev = NULL;
	}
	return ret;
}

/**
 * hf_xdma_engine_reinit() - set an engine up again after a reset of the
 *	card, or of its link (PCIe error recovery).
 * @e: an initialised engine, no run in progress, its interrupt handler not
 *	using it
 *
 * A reset (function level, of the bus or link, an FPGA reload) clears the
 * engine's registers behind its back: its descriptor address, its
 * writeback address, its interrupt mask and enable.  The engine object
 * stays as it is (its event, on whose wait queue poll() and epoll waiters
 * may sit; its counters; its writeback area); what it cached of the
 * registers is forgotten, then, as at init, the engine is stopped, proven
 * idle, its status cleared and its registers programmed.  A wedged engine
 * found idle is wedged no longer.
 *
 * Return: 0; -EBUSY when the engine does not stop, -ENODEV when the card
 * reads all ones: the engine is then wedged (@e->wedged): whatever its
 * last run could reach stays allocated, its runs fail at once, and
 * hf_xdma_engine_recover() programs its registers once it finds it idle.
 */
int hf_xdma_engine_reinit(struct hf_xdma_engine *e)
{
	bool was = e->wedged;
	int ret;

	e->prog_valid = false;
	e->regs_lost = true;
	/* notifications of runs before the reset are stale */
	e->stale = true;
	ret = hf_xdma_engine_setup(e);
	if (ret)
		return ret;
	e->wedged = false;
	if (was) {
		e->stats.recoveries++;
		hf_os_log("xdma: %s%u: idle after the reset, no longer wedged",
			  hf_xdma_dir_name[e->dir], e->ch);
	}
	return 0;
}

/**
 * hf_xdma_engine_fini() - stop an engine and disable its interrupt.
 * @e: the engine, initialised with hf_xdma_engine_init()
 *
 * The caller has freed (or synchronised and disabled) the interrupt
 * handler first: a late interrupt's handler signals the engine's event,
 * which this destroys.
 */
void hf_xdma_engine_fini(struct hf_xdma_engine *e)
{
	if (!e->xdev)
		return;
	hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
	hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1C, BIT(e->index));
	e->prog_valid = false;
	hf_os_event_destroy(&e->irq_event);
	e->xdev = NULL;
}

/**
 * hf_xdma_engine_isr() - interrupt of one engine (its own vector, or called by
 *	the shared handler for each bit hf_xdma_dev_isr_pending() returned).
 * @e: the engine
 *
 * Wakes the waiter; reads and writes no register when the engine has a
 * vector of its own.  On a shared vector (@e->xdev->irq_shared) it masks
 * the engine's channel interrupt in the IRQ block first: the request stays
 * asserted until the next run sets Run (which clears the status), and a
 * level-triggered line would fire again at once.  That run enables it
 * again.
 */
void hf_xdma_engine_isr(struct hf_xdma_engine *e)
{
	if (e->xdev->irq_shared)
		hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1C, BIT(e->index));
	hf_os_event_signal(&e->irq_event);
}

/**
 * hf_xdma_engine_abort() - wake a run waiting on @e because the card is being
 *	removed; the caller has set @e->xdev->gone (WRITE_ONCE) and issued a
 *	full barrier first, so the run sees it and ends with -ENODEV.
 * @e: an initialised engine
 */
void hf_xdma_engine_abort(struct hf_xdma_engine *e)
{
	hf_os_event_signal(&e->irq_event);
}

/**
 * hf_xdma_engine_cancel() - end the run in progress on @e early.
 * @e: an initialised engine
 *
 * For revocation: the memory of the run is going away.  The run stops its
 * engine, proves it idle (bounded, see hf_xdma_engine_run()) and fails with
 * -ECANCELED.  Callable from any context that may signal an event; the
 * caller makes sure the run it means is the one in progress (see
 * struct hf_xdma_engine, @cancel).
 */
void hf_xdma_engine_cancel(struct hf_xdma_engine *e)
{
	WRITE_ONCE(e->cancel, true);
	/* the flag before the wake-up; pairs with the waiters' checks */
	mb();
	hf_os_event_signal(&e->irq_event);
}

/**
 * hf_xdma_engine_quiesce() - stop an engine outside a run and prove it idle.
 * @e: an initialised engine, no run in progress
 * @c: the chain it last ran, or NULL when unknown
 *
 * For removal, shutdown and error recovery.  When idle, the status is
 * cleared and the next run treats notifications of earlier runs as stale.
 *
 * Return: 0 when idle, -EBUSY when the engine is wedged (@e->wedged set),
 * -ENODEV when the card reads all ones.
 */
int hf_xdma_engine_quiesce(struct hf_xdma_engine *e, const struct hf_xdma_chain *c)
{
	u32 status;
	int ret;

	ret = hf_xdma_engine_stop(e, c, 0, &status);
	if (ret)
		return ret;
	if (hf_xdma_rd(e, XDMA_CHAN_STATUS_RC) == XDMA_ID_DEAD)
		return -ENODEV;
	e->prog_valid = false;
	e->stale = true;
	return 0;
}

/**
 * hf_xdma_engine_recover() - bring a wedged engine back once it is idle.
 * @e: an initialised engine, no run in progress
 *
 * The stop is written again (Run cleared, the fetch halted: a card that
 * read all ones may have dropped the first), then one look
 * (hf_xdma_engine_idle()): when the engine has since finished what
 * it was doing, its status is cleared, the fetch halt released and runs
 * are allowed again (an engine that a reset left wedged gets its registers
 * programmed, as hf_xdma_engine_reinit() does); the caller may then free
 * what the run that wedged it used.  A card reset (unbind and bind the
 * driver) is the other way back.
 *
 * Return: 0 (also when the engine was not wedged), -EBUSY when it is still
 * busy, -ENODEV when the card reads all ones.
 */
int hf_xdma_engine_recover(struct hf_xdma_engine *e)
{
	u32 status;
	int idle;

	if (!e->wedged)
		return 0;
	/* again: a card that read all ones may have dropped the stop */
	hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
	hf_iowrite32(hf_xdma_engine_halt_bit(e), e->xdev->bar,
		     XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1S);
	idle = hf_xdma_engine_idle(e, &status);
	if (idle <= 0)
		return idle ? idle : -EBUSY;
	/* a reset it did not stop for left its registers unknown */
	if (e->regs_lost ? hf_xdma_engine_program(e) :
	    hf_xdma_rd(e, XDMA_CHAN_STATUS_RC) == XDMA_ID_DEAD)
		return -ENODEV;
	hf_iowrite32(hf_xdma_engine_halt_bit(e), e->xdev->bar,
		     XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1C);
	e->wedged = false;
	e->prog_valid = false;
	e->stale = true;
	e->stats.recoveries++;
	hf_os_log("xdma: %s%u: idle again, no longer wedged",
		  hf_xdma_dir_name[e->dir], e->ch);
	return 0;
}

/**
 * hf_xdma_dev_isr_pending() - engines requesting an interrupt (shared vector).
 * @xdev: the card
 *
 * For a vector shared by all engines (single MSI, INTx): one read of the IRQ
 * block's channel pending register (request & enable), so an engine whose
 * interrupt its ISR already masked, or a poll-mode engine (never enabled),
 * is not reported again.  The caller calls hf_xdma_engine_isr() for each bit
 * set.
 *
 * Return: bitmask in engine order, 0 when none (or the card is gone).
 */
u32 hf_xdma_dev_isr_pending(struct hf_xdma_dev *xdev)
{
	u32 n = xdev->num_h2c + xdev->num_c2h;
	u32 pend;

	if (!n)
		return 0;
	pend = hf_ioread32(xdev->bar, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND);
	if (pend == XDMA_ID_DEAD)
		return 0;
	return pend & GENMASK(n - 1, 0);
}

/**
 * hf_xdma_chain_done_bytes() - bytes of the first @done descriptors of a chain.
 * @c: the chain
 * @done: completed descriptors
 *
 * Return: the sum of their lengths.
 */
static u64 hf_xdma_chain_done_bytes(const struct hf_xdma_chain *c, u32 done)
{
	u64 bytes = 0;
	u32 i;

	if (done >= c->count)
		return c->bytes;
	for (i = 0; i < done; i++)
		bytes += le32_to_cpu(c->desc[i].len) & XDMA_DESC_LEN_MASK;
	return bytes;
}

/**
 * hf_xdma_engine_wb_state() - what the writeback word says of the run.
 * @e: the engine
 * @count: descriptors of the chain
 *
 * Return: 1 when it shows the chain done (the reads of the data that follow
 * are ordered after it), 0 when not (yet), -EIO when it flags an error.
 */
static int hf_xdma_engine_wb_state(const struct hf_xdma_engine *e, u32 count)
{
	u32 wb = le32_to_cpu(READ_ONCE(*e->wb));

	if (wb & XDMA_WB_ERR)
		return -EIO;
	if (FIELD_GET(XDMA_WB_COUNT, wb) < count)
		return 0;
	dma_rmb();
	return 1;
}

/**
 * hf_xdma_engine_wait_wb() - wait for the poll-mode writeback of a run.
 * @e: the engine
 * @count: descriptors of the chain
 * @start: time the engine was started
 * @timeout_ns: how long to wait
 *
 * Spins on the writeback word for a short while, then sleeps between looks
 * with a growing interval (at most XDMA_POLL_SLEEP_MAX_US).  While sleeping
 * it checks the status register now and then, so a card that is gone, or
 * that stopped on an error without flagging it in the writeback, does not
 * hold the caller until the timeout; and at every look whether the run was
 * cancelled or the task got a fatal signal.
 *
 * Return: 0 when the writeback shows the chain done, -EIO when the
 * writeback flags an error or the status register shows one, -ENODEV when
 * the card reads all ones or is being removed, -ECANCELED, -EINTR (fatal
 * signal), -ETIMEDOUT.
 */
static int hf_xdma_engine_wait_wb(struct hf_xdma_engine *e, u32 count, u64 start,
				  u64 timeout_ns)
{
	u64 now, spin_end = start + XDMA_POLL_SPIN_NS;
	u64 deadline = hf_xdma_deadline(start, timeout_ns), health = 0;
	u32 sleep_us = XDMA_POLL_SLEEP_MIN_US;
	u32 status;
	int wb;

	for (;;) {
		wb = hf_xdma_engine_ended(e);
		if (wb)
			return wb;
		wb = hf_xdma_engine_wb_state(e, count);
		if (wb)
			return wb < 0 ? wb : 0;
		now = hf_os_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		if (now < spin_end) {
			hf_os_relax();
			continue;
		}
		if (hf_os_fatal_signal_pending())
			return -EINTR;
		if (!health) {
			health = now + XDMA_POLL_HEALTH_NS;
		} else if (now >= health) {
			health = now + XDMA_POLL_HEALTH_NS;
			status = hf_xdma_rd(e, XDMA_CHAN_STATUS);
			if (status == XDMA_ID_DEAD)
				return -ENODEV;
			if (status & XDMA_STAT_ERR_MASK)
				return -EIO;
		}
		hf_os_sleep_us(sleep_us);
		sleep_us = min(sleep_us * 2, XDMA_POLL_SLEEP_MAX_US);
	}
}

/**
 * hf_xdma_engine_wait_irq() - wait for the completion interrupt of a run.
 * @e: the engine
 * @count: descriptors of the chain
 * @start: time the engine was started
 * @timeout_ns: how long to wait
 *
 * Woken by the interrupt, the run looks at its writeback word, which the
 * card wrote before it raised the interrupt: that it shows the chain done
 * (or an error) is all a transfer that succeeds needs, no register is read.
 * A wake-up whose writeback shows nothing is either a late interrupt of an
 * earlier, failed run (its writeback went to the other slot, see @e->stale)
 * or a card that wrote no writeback; the status register tells which.  A
 * late one is counted and the wait goes on (on a shared vector with the
 * channel interrupt, which the ISR masked, enabled again).
 *
 * Return: 0 when the writeback shows the chain done, 1 when the status
 * register shows the engine stopped without a writeback, -EIO when either
 * shows an error, -ETIMEDOUT, -EINTR (fatal signal), -ECANCELED, -ENODEV
 * when the card is being removed or reads all ones.
 */
static int hf_xdma_engine_wait_irq(struct hf_xdma_engine *e, u32 count,
				   u64 start, u64 timeout_ns)
{
	u64 deadline = hf_xdma_deadline(start, timeout_ns), now;
	u32 status;
	int ret, end;

	for (;;) {
		now = hf_os_now_ns();
		ret = hf_os_event_wait(&e->irq_event,
				       deadline > now ? deadline - now : 0);
		end = hf_xdma_engine_ended(e);
		if (end)
			return end;
		if (ret)
			return ret;
		ret = hf_xdma_engine_wb_state(e, count);
		if (likely(ret))
			return ret < 0 ? ret : 0;
		status = hf_xdma_rd(e, XDMA_CHAN_STATUS);
		if (status == XDMA_ID_DEAD)
			return -ENODEV;
		if (status & XDMA_STAT_ERR_MASK)
			return -EIO;
		if (!(status & XDMA_STAT_BUSY) &&
		    (status & XDMA_STAT_DESC_STOPPED)) {
			e->stats.no_writeback++;
			return 1;
		}
		e->stats.late_notices++;
		hf_os_log("xdma: %s%u: ignored a late interrupt of an earlier run",
			  hf_xdma_dir_name[e->dir], e->ch);
		if (e->xdev->irq_shared)
			hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1S, BIT(e->index));
	}
}

/**
 * hf_xdma_engine_confirm() - whether the engine itself shows a chain done.
 * @e: the engine
 * @count: descriptors of the chain
 *
 * Done means: Busy clear, stopped at a descriptor with Stop, no error, and
 * a completed-descriptor count (which setting Run resets, PG195) of at
 * least @count.  Costs one status read, and a count read when the status
 * says stopped.
 *
 * Return: 1 done (the reads of the data that follow are ordered after
 * it), 0 not (yet), -EIO when the status shows an error, -ENODEV when the
 * card reads all ones.
 */
static int hf_xdma_engine_confirm(struct hf_xdma_engine *e, u32 count)
{
	u32 status = hf_xdma_rd(e, XDMA_CHAN_STATUS), done;

	if (status == XDMA_ID_DEAD)
		return -ENODEV;
	if (status & XDMA_STAT_ERR_MASK)
		return -EIO;
	if ((status & XDMA_STAT_BUSY) || !(status & XDMA_STAT_DESC_STOPPED))
		return 0;
	done = hf_xdma_rd(e, XDMA_CHAN_COMPLETED_DESC);
	if (done == XDMA_ID_DEAD)
		return -ENODEV;
	if (done < count)
		return 0;
	dma_rmb();
	return 1;
}

/**
 * hf_xdma_engine_wait_engine() - wait for the end of a run on the engine's
 *	registers alone.
 * @e: the engine
 * @count: descriptors of the chain
 * @start: time the engine was started
 * @timeout_ns: how long to wait, from @start
 *
 * For a run whose writeback word is the caller's (hf_xdma_engine_run_wb()
 * with a word): that word is memory others can write (the user, a GPU, or
 * the card's own data when it lies inside the run's C2H destination), so
 * when it says the chain ended, or failed, it is only a notification: the
 * engine confirms it (hf_xdma_engine_confirm()).  Until the engine does,
 * the word is no longer looked at: the run looks at the registers, sleeping
 * between looks with a growing interval (at most XDMA_POLL_SLEEP_MAX_US;
 * in interrupt mode on the engine's event, so that the completion
 * interrupt ends a sleep early), and at every look whether the card is
 * being removed, the run was cancelled or the task got a fatal signal.
 *
 * Return: 0 when the engine shows the chain done, -EIO when it shows an
 * error, -ENODEV (reads all ones, or removal), -ECANCELED, -EINTR,
 * -ETIMEDOUT.
 */
static int hf_xdma_engine_wait_engine(struct hf_xdma_engine *e, u32 count,
				      u64 start, u64 timeout_ns)
{
	u64 deadline = hf_xdma_deadline(start, timeout_ns), now, nap;
	u32 sleep_us = XDMA_POLL_SLEEP_MIN_US;
	bool early = false;
	int ret;

	for (;;) {
		ret = hf_xdma_engine_ended(e);
		if (ret)
			return ret;
		ret = hf_xdma_engine_confirm(e, count);
		if (ret)
			return ret < 0 ? ret : 0;
		if (!early) {
			early = true;
			e->stats.wb_unconfirmed++;
			hf_os_log("xdma: %s%u: writeback word not confirmed by the engine",
				  hf_xdma_dir_name[e->dir], e->ch);
		}
		now = hf_os_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		if (hf_os_fatal_signal_pending())
			return -EINTR;
		nap = min_t(u64, sleep_us * 1000ull, deadline - now);
		if (e->poll)
			hf_os_sleep_us((u32)DIV_ROUND_UP(nap, 1000));
		else if (hf_os_event_wait(&e->irq_event, nap) == -EINTR)
			return -EINTR;
		sleep_us = min(sleep_us * 2, XDMA_POLL_SLEEP_MAX_US);
	}
}

/**
 * hf_xdma_engine_name() - "H2C0" etc.
 * @e: the engine
 * @buf: receives the name
 * @len: size of @buf
 */
static void hf_xdma_engine_name(const struct hf_xdma_engine *e, char *buf,
				size_t len)
{
	snprintf(buf, len, "%s%u", hf_xdma_dir_name[e->dir], e->ch);
}

/**
 * hf_xdma_engine_fail() - fill a result for a failed run.
 * @e: the engine
 * @c: the chain
 * @res: the result, @res->status already set
 * @err: the negative errno
 * @timeout_ns: the run's timeout (for -ETIMEDOUT)
 *
 * Reads the completed-descriptor count (unless the card is gone), counts the
 * bytes of the completed descriptors and writes the text.
 */
static void hf_xdma_engine_fail(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
				struct hf_xdma_result *res, int err, u64 timeout_ns)
{
	char name[8], text[128];
	const char *what;
	u32 done = 0;
	u64 t;
	int n;

	hf_xdma_engine_name(e, name, sizeof(name));
	e->prog_valid = false;
	res->err = err;
	if (res->status != XDMA_ID_DEAD) {
		done = hf_xdma_rd(e, XDMA_CHAN_COMPLETED_DESC);
		if (done == XDMA_ID_DEAD) {
			res->status = XDMA_ID_DEAD;
			done = 0;
		}
	}
	if (res->status == XDMA_ID_DEAD) {
		res->err = -ENODEV;
		if (res->wedged)
			res->bytes = c->bytes;
		n = snprintf(res->msg, sizeof(res->msg),
			     "%s: card not responding (reads all ones): removed or link down",
			     name);
		hf_xdma_msg_end(res, n);
		return;
	}
	done = min(done, c->count);
	res->completed = done;
	res->bytes = res->wedged ? c->bytes : hf_xdma_chain_done_bytes(c, done);

	if (res->wedged) {
		t = (timeout_ns + 999999) / 1000000;
		n = snprintf(res->msg, sizeof(res->msg),
			     "%s: %s after %llu ms and the engine did not stop (still busy after %u of %u descriptors, status 0x%08x): channel wedged, its buffers stay allocated",
			     name, err == -ETIMEDOUT ? "timed out" :
			     err == -EINTR ? "interrupted" :
			     err == -ECANCELED ? "cancelled" : "failed",
			     (unsigned long long)t, done, c->count, res->status);
		hf_xdma_msg_end(res, n);
		return;
	}
	if (err == -EIO && (res->status & XDMA_STAT_ERR_MASK)) {
		hf_xdma_decode_status(e->dir, res->status & XDMA_STAT_ERR_MASK,
				      text, sizeof(text));
		n = snprintf(res->msg, sizeof(res->msg),
			     "%s: engine stopped: %s after %u of %u descriptors, status 0x%08x",
			     name, text, done, c->count, res->status);
		hf_xdma_msg_end(res, n);
		return;
	}
	hf_xdma_decode_status(e->dir, res->status, text, sizeof(text));
	if (err == -ETIMEDOUT) {
		bool ms = timeout_ns >= 1000000;

		t = ms ? timeout_ns / 1000000 : timeout_ns / 1000;
		n = snprintf(res->msg, sizeof(res->msg),
			     "%s: timed out after %llu %s: %u of %u descriptors completed, status 0x%08x (%s)",
			     name, (unsigned long long)t, ms ? "ms" : "us",
			     done, c->count, res->status, text);
		hf_xdma_msg_end(res, n);
		return;
	}
	what = err == -EINTR ? "interrupted by a signal, engine stopped" :
	       err == -ECANCELED ? "cancelled (its memory is being revoked), engine stopped" :
	       err == -ENODEV ? "card removed or recovering from a PCIe error, engine stopped" :
				"engine stopped without finishing";
	n = snprintf(res->msg, sizeof(res->msg),
		     "%s: %s: %u of %u descriptors completed, status 0x%08x (%s)",
		     name, what, done, c->count, res->status, text);
	hf_xdma_msg_end(res, n);
}

/* Is the writeback word in use one of the engine's own two slots? */
static bool hf_xdma_engine_wb_own(const struct hf_xdma_engine *e)
{
	return e->wb == e->wb_area ||
	       e->wb == (__le32 *)((u8 *)e->wb_area + XDMA_WB_SLOT_OFFSET);
}

/**
 * hf_xdma_engine_pick_wb() - choose and program the writeback word of a run.
 * @e: the engine
 * @wb: the caller's word (hf_xdma_engine_run_wb()), or NULL
 * @wb_bus: its bus address
 *
 * Without @wb: the engine's own slot, the other one after a failed run (a
 * late writeback of the failed run lands where this run does not look),
 * the first one after a run of the caller's word.  Writes only the halves
 * of the address register that change.
 */
static void hf_xdma_engine_pick_wb(struct hf_xdma_engine *e, __le32 *wb,
				   u64 wb_bus)
{
	u32 off;

	if (!wb) {
		off = e->wb == e->wb_area && e->stale ? XDMA_WB_SLOT_OFFSET : 0;
		wb = (__le32 *)((u8 *)e->wb_area + off);
		wb_bus = e->wb_area_bus + off;
	}
	e->wb = wb;
	if (lower_32_bits(wb_bus) != lower_32_bits(e->wb_bus))
		hf_xdma_wr(e, XDMA_CHAN_POLL_WB_LO, lower_32_bits(wb_bus));
	if (upper_32_bits(wb_bus) != upper_32_bits(e->wb_bus))
		hf_xdma_wr(e, XDMA_CHAN_POLL_WB_HI, upper_32_bits(wb_bus));
	e->wb_bus = wb_bus;
}

/**
 * hf_xdma_engine_wedged_msg() - the result of a run refused on a wedged engine.
 * @e: the engine
 * @res: the result to fill
 *
 * Return: -EIO.
 */
int hf_xdma_engine_wedged_msg(struct hf_xdma_engine *e,
			      struct hf_xdma_result *res)
{
	char name[8];
	int n;

	hf_xdma_engine_name(e, name, sizeof(name));
	n = snprintf(res->msg, sizeof(res->msg),
		     "%s: channel wedged: its engine did not stop after an earlier run failed; it is refused until the engine is idle again (or the card is reset by unbinding and binding the driver)",
		     name);
	hf_xdma_msg_end(res, n);
	res->err = -EIO;
	e->stats.errors++;
	return res->err;
}

/**
 * hf_xdma_engine_run() - run a built chain on an engine and wait for it.
 * @e: the engine
 * @c: a chain built for @e's direction
 * @timeout_ns: how long to wait for completion
 * @res: the outcome (may be NULL)
 *
 * Hot path: writes the SGDMA first-descriptor registers only when they differ
 * from what the engine was last programmed with, clears the writeback word
 * (poll mode), then one write of the control register starts the engine.
 * Completion is seen in the writeback word (poll mode) or by the interrupt
 * (hf_xdma_engine_isr()).  The engine is then stopped (Run cleared) and its
 * status read once through the read-to-clear register, which also drops the
 * interrupt request; in interrupt mode the channel interrupt the ISR masked
 * is enabled again.
 *
 * On a timeout, a fatal signal (kernel), hf_xdma_engine_cancel() or removal
 * (hf_xdma_dev.gone) the engine is stopped and proven idle (see the top of
 * xdma_engine.h) before this returns; if the chain had already ended when
 * the wait did, its completion notification was lost and the run succeeds
 * (stats.lost_irqs); a chain that ends only while the stop waits for it
 * timed out, and @res->bytes counts it.  If it cannot be proven idle, @res->wedged is set and
 * later runs fail at once until hf_xdma_engine_recover().  A run that fails
 * leaves the SGDMA registers to be programmed again by the next run, and
 * makes the next run distrust late notifications (@e->stale).
 *
 * Runs on one engine must be serialised by the caller.
 *
 * Return: 0, or the negative errno also stored in @res->err: -EINVAL (chain
 * not built or built for the other direction), -EOPNOTSUPP (a C2H engine of
 * an AXI-Stream card: it takes rings, hf_xdma_ring_*; an H2C one runs a
 * chain as one packet, TLAST on its last descriptor), -EIO (the engine
 * stopped on an error, or the engine is wedged; @res->msg says which),
 * -ETIMEDOUT, -EINTR, -ECANCELED, -ENODEV (the card reads all ones or is
 * removed).
 */
int hf_xdma_engine_run(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
		       u64 timeout_ns, struct hf_xdma_result *res)
{
	return hf_xdma_engine_run_wb(e, c, timeout_ns, NULL, 0, res);
}

/**
 * hf_xdma_run_check() - reset a run's result and refuse what cannot run.
 * @e: the engine
 * @c: the chain
 * @wb: the caller's writeback word, or NULL
 * @wb_bus: its bus address
 * @res: the result
 *
 * Return: 0, or the errno also stored in @res->err: -EINVAL (chain not
 * built, built for the other direction, @wb unaligned), -EIO (wedged),
 * -EOPNOTSUPP (a C2H engine of an AXI-Stream card).
 */
static int hf_xdma_run_check(struct hf_xdma_engine *e,
			     const struct hf_xdma_chain *c, __le32 *wb,
			     u64 wb_bus, struct hf_xdma_result *res)
{
	u32 count = c->count;

	res->err = 0;
	res->bytes = 0;
	res->completed = 0;
	res->status = 0;
	res->elapsed_ns = 0;
	res->wedged = false;
	res->msg[0] = '\0';
	e->stats.runs++;

	if (unlikely(!count || c->dir != e->dir ||
		     (wb && (!IS_ALIGNED((unsigned long)wb, 4) ||
			     !IS_ALIGNED(wb_bus, 4ull))))) {
		char name[8];

		hf_xdma_engine_name(e, name, sizeof(name));
		snprintf(res->msg, sizeof(res->msg), "%s: %s", name,
			 !count ? "chain not built" :
			 c->dir != e->dir ? "chain built for the other direction" :
					    "writeback word not 4-byte aligned");
		res->err = -EINVAL;
		e->stats.errors++;
		return res->err;
	}
	if (unlikely(e->wedged))
		return hf_xdma_engine_wedged_msg(e, res);
	if (unlikely(e->xdev->stream && e->dir == XDMA_C2H)) {
		snprintf(res->msg, sizeof(res->msg), "%s%u: %s",
			 hf_xdma_dir_name[e->dir], e->ch, XDMA_STREAM_MM_MSG);
		res->err = -EOPNOTSUPP;
		e->stats.errors++;
		return res->err;
	}
	return 0;
}

/**
 * hf_xdma_run_program() - program an engine for a run of a chain.
 * @e: the engine
 * @c: the chain
 * @wb: the caller's writeback word, or NULL
 * @wb_bus: its bus address
 *
 * Writes the SGDMA first-descriptor registers that differ from what the
 * engine was last programmed with and the writeback address that changes,
 * clears the writeback word and (interrupt mode) the engine's event, and
 * makes it all visible before the engine starts.
 */
static void hf_xdma_run_program(struct hf_xdma_engine *e,
				const struct hf_xdma_chain *c, __le32 *wb,
				u64 wb_bus)
{
	u32 lo = lower_32_bits(c->bus), hi = upper_32_bits(c->bus);

	/* Re-running a chain (the common case) writes no SGDMA register. */
	if (!e->prog_valid || lower_32_bits(e->prog_bus) != lo)
		hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_LO, lo);
	if (!e->prog_valid || upper_32_bits(e->prog_bus) != hi)
		hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_HI, hi);
	if (!e->prog_valid || e->prog_adj != c->first_adj)
		hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_ADJ, c->first_adj);
	e->prog_bus = c->bus;
	e->prog_adj = c->first_adj;
	e->prog_valid = true;

	if (unlikely(wb || e->stale || !hf_xdma_engine_wb_own(e)))
		hf_xdma_engine_pick_wb(e, wb, wb_bus);
	WRITE_ONCE(*e->wb, 0);
	if (!e->poll)
		hf_os_event_reset(&e->irq_event);
	/*
	 * Descriptors and writeback word visible before the engine starts;
	 * the event reset ordered before the removal and cancel checks (pairs
	 * with the barriers of hf_xdma_engine_abort()'s caller and of
	 * hf_xdma_engine_cancel()).
	 */
	mb();
}

/**
 * hf_xdma_run_wait() - start a programmed engine and wait for its end.
 * @e: the engine
 * @count: descriptors of the chain
 * @start: when the run started (hf_os_now_ns())
 * @timeout_ns: how long to wait
 * @wb: whether the writeback word is the caller's
 * @started: set when the engine was started
 *
 * A card removed or a cancel before the start: the engine is not started.
 * A caller's word is confirmed by the engine's registers.
 *
 * Return: as the waits (0: the writeback says done, 1: stopped without
 * one), or -ENODEV, -ECANCELED, -ETIMEDOUT, -EINTR, -EIO.
 */
static int hf_xdma_run_wait(struct hf_xdma_engine *e, u32 count, u64 start,
			    u64 timeout_ns, bool wb, bool *started)
{
	int ret;

	ret = hf_xdma_engine_ended(e);
	if (ret)
		return ret;
	hf_xdma_wr(e, XDMA_CHAN_CONTROL, XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL |
		   XDMA_CTRL_POLL_MODE_WB);
	*started = true;
	/*
	 * A shared vector's ISR masked the channel at the last run's end;
	 * enabled now that Run has cleared the status (enabled before, the
	 * old request would fire).
	 */
	if (!e->poll && e->xdev->irq_shared)
		hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1S, BIT(e->index));
	if (e->poll)
		ret = hf_xdma_engine_wait_wb(e, count, start, timeout_ns);
	else
		ret = hf_xdma_engine_wait_irq(e, count, start, timeout_ns);
	/*
	 * A caller's word is not the engine's: nothing is released on what
	 * it says (nor on a wake-up, which a late or stray interrupt can
	 * give) until the engine confirms the end.
	 */
	if (unlikely(wb) && (ret == 0 || ret == 1 || ret == -EIO))
		ret = hf_xdma_engine_wait_engine(e, count, start, timeout_ns);
	/* woken by hf_xdma_engine_abort(): the card is going away */
	if (unlikely(READ_ONCE(e->xdev->gone)))
		ret = -ENODEV;
	return ret;
}

/**
 * hf_xdma_run_stop() - stop the engine at the end of a wait, read its status.
 * @e: the engine
 * @c: the chain
 * @res: the result (@res->wedged set when the engine cannot be proven idle)
 * @ret: the wait's outcome; 1 (stopped, no writeback) becomes 0
 * @started: whether the engine was started
 * @ended: set when a failed wait found the chain already ended
 *
 * Return: the status the run ends with.
 */
static u32 hf_xdma_run_stop(struct hf_xdma_engine *e,
			    const struct hf_xdma_chain *c,
			    struct hf_xdma_result *res, int *ret, bool started,
			    bool *ended)
{
	u32 status, pre;
	int q;

	if (likely(!*ret)) {
		/* what the writeback implies; no register read */
		hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
		return XDMA_STAT_DESC_STOPPED | XDMA_STAT_DESC_COMPLETED;
	}
	if (*ret == 1) {
		/* stopped, no writeback: the status register decides */
		hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
		*ret = 0;
		return hf_xdma_rd(e, XDMA_CHAN_STATUS_RC);
	}
	if (!started)
		return 0;
	/*
	 * Had the chain already ended when the wait did (its notification
	 * lost)?  Only then may the run succeed: a chain that ends while the
	 * stop below waits for it still timed out.
	 */
	pre = hf_xdma_rd(e, XDMA_CHAN_STATUS);
	*ended = pre != XDMA_ID_DEAD && !(pre & XDMA_STAT_BUSY) &&
		 (pre & XDMA_STAT_DESC_STOPPED);
	/* The card may still be moving data: prove it idle first. */
	q = hf_xdma_engine_stop(e, c, 0, &status);
	if (q == -ENODEV) {
		/* all ones proves nothing: keep what it may reach */
		*ret = -ENODEV;
		status = XDMA_ID_DEAD;
		res->wedged = true;
	} else if (q == -EBUSY) {
		res->wedged = true;
	} else {
		status = hf_xdma_rd(e, XDMA_CHAN_STATUS_RC);
	}
	e->stale = true;
	return status;
}

/**
 * hf_xdma_run_finish() - the verdict of a stopped run.
 * @e: the engine
 * @c: the chain
 * @res: the result
 * @status: the status the run ended with
 * @ret: the outcome of the wait and stop
 * @started: whether the engine was started
 * @ended: whether a failed wait found the chain already ended
 * @timeout_ns: the run's timeout
 *
 * Return: 0, or the errno also stored in @res->err.
 */
static int hf_xdma_run_finish(struct hf_xdma_engine *e,
			      const struct hf_xdma_chain *c,
			      struct hf_xdma_result *res, u32 status, int ret,
			      bool started, bool ended, u64 timeout_ns)
{
	res->status = status;
	/*
	 * Done: no error and the writeback count says so (the stopped bit
	 * may trail the writeback on hardware), or, without a writeback, the
	 * engine stopped at the chain's Stop descriptor.
	 */
	if (likely(status != XDMA_ID_DEAD && !(status & XDMA_STAT_ERR_MASK) &&
		   !ret && (status & XDMA_STAT_DESC_STOPPED))) {
		e->stale = false;
		goto done;
	}
	if (ended && !res->wedged && status != XDMA_ID_DEAD &&
	    !(status & XDMA_STAT_ERR_MASK) &&
	    (ret == -ETIMEDOUT || ret == -EINTR || ret == -ECANCELED) &&
	    (status & XDMA_STAT_DESC_STOPPED)) {
		/* Finished, but we were not told: check the count. */
		u32 done = hf_xdma_rd(e, XDMA_CHAN_COMPLETED_DESC);

		if (done == XDMA_ID_DEAD) {
			res->status = XDMA_ID_DEAD;
			hf_xdma_engine_fail(e, c, res, -ENODEV, 0);
			goto out;
		}
		if (done < c->count)
			goto fail;
		if (ret == -ETIMEDOUT) {
			e->stats.lost_irqs++;
			hf_os_log("xdma: %s%u: completion notification lost, noticed after %llu ns",
				  hf_xdma_dir_name[e->dir], e->ch,
				  (unsigned long long)res->elapsed_ns);
		}
		goto done;
	}
fail:
	if (res->wedged && ret)
		;	/* keep the reason the run ended */
	else if (status == XDMA_ID_DEAD)
		ret = -ENODEV;
	else if (status & XDMA_STAT_ERR_MASK)
		ret = -EIO;
	else if (!ret)
		ret = -EIO;	/* notified, yet not stopped */
	/* else: -ETIMEDOUT, -EINTR, -ECANCELED, -ENODEV, or -EIO from a
	 * writeback error flag
	 */
	if (ret == -ETIMEDOUT)
		e->stats.timeouts++;
	if (!started) {
		snprintf(res->msg, sizeof(res->msg), "%s%u: %s before the engine started",
			 hf_xdma_dir_name[e->dir], e->ch,
			 ret == -ECANCELED ? "cancelled (its memory is being revoked)" :
					     "card removed");
		res->err = ret;
		goto out;
	}
	hf_xdma_engine_fail(e, c, res, ret, timeout_ns);
out:
	e->stats.errors++;
	e->stats.bytes += res->bytes;
	hf_os_log("xdma: %s", res->msg);
	return res->err;
done:
	res->completed = c->count;
	res->bytes = c->bytes;
	e->stats.bytes += c->bytes;
	return 0;
}

/**
 * hf_xdma_engine_run_wb() - hf_xdma_engine_run() with the run's poll-mode
 *	writeback going to a word of the caller's.
 * @e: the engine
 * @c: a chain built for @e's direction
 * @timeout_ns: how long to wait for completion
 * @wb: CPU address of a 4-byte aligned word the card may write (the
 *	caller's until the run returns, then the card no longer writes it),
 *	or NULL for the engine's own slots (hf_xdma_engine_run())
 * @wb_bus: the bus address of @wb
 * @res: the outcome (may be NULL)
 *
 * For a writeback that others watch too: a GPU stream waiting for the
 * card's completion of this run (GPU-side completion of a transfer).  The
 * word is cleared, the engine's writeback address programmed to it (two
 * register writes at most), and the run waits on it as on its own slot:
 * once the chain is done it holds the completed-descriptor count,
 * XDMA_WB_ERR set if the engine stopped on an error.  A failed run leaves
 * in it whatever the card wrote (0 when nothing): the caller marks it.  The
 * next run, of either kind, programs the address it needs.
 *
 * The word is memory others can write (the user, a GPU, the card's data
 * when it lies inside the run's C2H destination), so it only notifies:
 * when it shows the end, or an error, or a wake-up comes (interrupt mode),
 * the engine must confirm it (Busy clear, stopped, no error, completed
 * count at least the chain's: one or two register reads), and until it
 * does the run waits on the engine's registers alone
 * (hf_xdma_engine_wait_engine(), @e->stats.wb_unconfirmed), to the end,
 * an error, or the timeout and its stop and idle proof.  A run never
 * returns, so the caller never releases the chain's memory, on the word
 * alone.  Runs on the engine's own slots, which nobody else writes, keep
 * the fast path that reads no register.
 *
 * A run is four steps: hf_xdma_run_check() (refuse), hf_xdma_run_program(),
 * hf_xdma_run_wait() with hf_xdma_run_stop(), hf_xdma_run_finish() (the
 * verdict and the result).
 *
 * Return: as hf_xdma_engine_run(); -EINVAL also for an unaligned @wb.
 */
int hf_xdma_engine_run_wb(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
			  u64 timeout_ns, __le32 *wb, u64 wb_bus,
			  struct hf_xdma_result *res)
{
	struct hf_xdma_result local;
	bool started = false, ended = false;
	u32 count = c->count, status;
	u64 start;
	int ret;

	if (!res)
		res = &local;
	ret = hf_xdma_run_check(e, c, wb, wb_bus, res);
	if (unlikely(ret))
		return ret;
	hf_xdma_run_program(e, c, wb, wb_bus);
	start = hf_os_now_ns();
	ret = hf_xdma_run_wait(e, count, start, timeout_ns, wb, &started);
	res->elapsed_ns = hf_os_now_ns() - start;
	status = hf_xdma_run_stop(e, c, res, &ret, started, &ended);
	return hf_xdma_run_finish(e, c, res, status, ret, started, ended,
				  timeout_ns);
}
