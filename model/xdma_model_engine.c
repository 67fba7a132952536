// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model_engine.c - an SGDMA engine's state in the XDMA IP model:
 * halt, credits, hang, status and errors, Run (Control), descriptor checks,
 * host DMA without the lock, and the link model's pacing (slices, wake-ups,
 * holds).  Descriptor processing is xdma_model_sgdma.c.
 */
#include "xdma_model_priv.h"

struct model_engine *xm_chan_engine(struct xdma_model *m, bool c2h,
				    u32 ch)
{
	u32 n = c2h ? m->cfg.num_c2h : m->cfg.num_h2c;

	if (ch >= n)
		return NULL;
	return &m->eng[c2h ? m->cfg.num_h2c + ch : ch];
}

bool xm_eng_halted(const struct xdma_model *m, const struct model_engine *e)
{
	u32 bit = e->c2h ? XDMA_SGDMA_HALT_C2H(e->ch) :
			   XDMA_SGDMA_HALT_H2C(e->ch);

	return m->sg_halt & bit;
}

/* A C2H engine of an AXI-ST card: its data comes from its channel's port. */
bool xm_st_c2h(const struct xdma_model *m,
			  const struct model_engine *e)
{
	return m->cfg.st && e->c2h;
}

/* Descriptor credit mode (AXI-ST cards): the engine uses credits. */
bool xm_eng_credit_mode(const struct xdma_model *m,
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
bool xm_hang_holds(struct xdma_model *m, u64 now)
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
bool xm_hang_holds_eng(struct xdma_model *m, const struct model_engine *e,
		       u64 now)
{
	if (m->hang_engines && !(m->hang_engines & BIT(e->index)))
		return false;
	return xm_hang_holds(m, now);
}

/* Status bits an event sets: the Control register ie_* bits log them. */
u32 xm_logged(const struct model_engine *e, u32 bits)
{
	return bits & e->ctrl & XDMA_CTRL_IE_ALL;
}

void xm_queue_writeback(struct xdma_model *m, const struct model_engine *e,
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
void xm_eng_idle(struct xdma_model *m, struct model_engine *e, u32 bits,
		 struct model_act *act)
{
	e->status = (e->status & ~XDMA_STAT_BUSY) | xm_logged(e, bits);
	e->parked = false;
	e->held = false;
	e->restart = false;
	e->xs = X_NONE;
	e->blk_n = 0;
	xm_irq_update(m, act);
}

/* Engine stops on an error; it stops whether or not @bits are xm_logged. */
void xm_eng_error(struct xdma_model *m, struct model_engine *e, u32 bits,
		  struct model_act *act)
{
	cnt_add(&m->cnt.errors, 1);
	xm_eng_idle(m, e, bits, act);
	xm_queue_writeback(m, e, act);
}

/**
 * xm_eng_latch() - begin a run (PG195 "H2C Channel Control (0x04)", Run bit).
 * @m: the card, locked
 * @e: the engine
 * @now: host time
 *
 * Resets the completed count and latches the first descriptor's address
 * and adjacent count; with Auto set, clears the performance counters.
 */
void xm_eng_latch(struct xdma_model *m, struct model_engine *e, u64 now)
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
		xm_perf_clear(e, now);
}

/*
 * Control Run 0->1 of an idle engine.  Setting Run resets the status
 * register's event and error bits (PG195, "H2C Channel Status (0x40)":
 * "Reset (0) on setting the Control register Run bit"), so the channel's
 * interrupt request falls and the run's end raises it anew.
 */
void xm_eng_start(struct xdma_model *m, struct model_engine *e, u64 now,
		  struct model_act *act)
{
	xm_eng_latch(m, e, now);
	e->parked = false;
	e->held = false;
	e->status = XDMA_STAT_BUSY;
	act->kick |= BIT(e->index);
	xm_irq_update(m, act);
}

void xm_ctrl_write(struct xdma_model *m, struct model_engine *e, u32 val,
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
			xm_guest_error(m, "engine %u: Run set while still busy",
				       e->index);
			e->restart = true;
		} else {
			xm_eng_start(m, e, now, act);
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
		    e->xs == X_NONE && !xm_hang_holds_eng(m, e, now))
			xm_eng_idle(m, e, XDMA_STAT_IDLE_STOPPED, act);
		else if (xm_st_c2h(m, e) && (e->status & XDMA_STAT_BUSY))
			act->kick |= BIT(e->index);	/* may wait for data */
	}
	xm_perf_eval(e, now);
}

/* Let every busy engine look again: a fault or a halt bit changed. */
void xm_kick_busy(struct xdma_model *m, struct model_act *act)
{
	u32 i;

	if (m->faults & XDMA_FAULT_DEAD)
		return;
	for (i = 0; i < m->num_engines; i++)
		if (m->eng[i].status & XDMA_STAT_BUSY)
			act->kick |= BIT(i);
}

/* Check one descriptor; 0 or the status bits of the error. */
u32 xm_desc_check(const struct xdma_model *m, const struct model_engine *e,
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
u32 xm_data_error(const struct model_engine *e)
{
	if (e->c2h)
		return FIELD_PREP(XDMA_STAT_READ_ERROR,
				  XDMA_C2H_READ_ERR_SLAVE);
	return FIELD_PREP(XDMA_STAT_READ_ERROR, XDMA_READ_ERR_UR);
}

/*
 * Host DMA without the lock; the caller holds it and gets it back.  A
 * failed access (IOMMU fault, bus error) is counted: never silent.
 * xm_bus_enter() drops the lock for the copy, xm_bus_leave() takes it back with
 * the copy's result @r.
 */
void xm_bus_enter(struct xdma_model *m)
{
	m->copies++;
	pthread_mutex_unlock(&m->lock);
}

int xm_bus_leave(struct xdma_model *m, int r)
{
	if (r)
		cnt_add(r == -EBUSY ? &m->cnt.dma_blocked :
				      &m->cnt.dma_errors, 1);
	pthread_mutex_lock(&m->lock);
	if (!--m->copies)
		pthread_cond_broadcast(&m->copies_cond);
	return r;
}

int xm_bus_read(struct xdma_model *m, u64 bus, void *dst, size_t len)
{
	xm_bus_enter(m);
	return xm_bus_leave(m, m->ops.dma_read(m->host, bus, dst, len));
}

int xm_bus_write(struct xdma_model *m, u64 bus, const void *src,
		 size_t len)
{
	xm_bus_enter(m);
	return xm_bus_leave(m, m->ops.dma_write(m->host, bus, src, len));
}

/*
 * Move @len bytes at offset @off of the current descriptor; as xm_bus_read().
 * An AXI-ST H2C engine streams them into the user logic at its port, which
 * may take fewer (back-pressure); *@took says how many moved.
 */
int xm_eng_move(struct xdma_model *m, struct model_engine *e, u64 off,
		u32 len, u32 *took, struct model_act *act)
{
	*took = len;
	if (m->cfg.st && !e->c2h)
		return xm_st_recv(m, e, off, len, took, act);
	if (e->c2h)
		return xm_bus_write(m, e->x_dst + off, m->ddr + e->x_src + off,
				    len);
	return xm_bus_read(m, e->x_src + off, m->ddr + e->x_dst + off, len);
}

/* ---- link model ---- */

/* Link time of @bytes of payload, ns. */
static u64 link_ns(const struct xdma_model *m, u64 bytes)
{
	return (u64)((double)bytes / m->rate + 0.5);
}

/**
 * xm_link_reserve() - carry @bytes over one direction of the link.
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
u64 xm_link_reserve(struct xdma_model *m, int w, u64 from, u64 bytes)
{
	u64 start = max_t(u64, m->link_busy[w], from);

	m->link_busy[w] = start + link_ns(m, bytes);
	return m->link_busy[w];
}

/**
 * xm_link_small() - carry a descriptor fetch or a writeback.
 * @m: the card, locked, with a link model
 * @w: direction, as xm_link_reserve()
 * @from: when it starts
 * @bytes: payload bytes
 *
 * A small transfer goes between the TLPs of the data already reserved (it
 * does not wait for a whole slice), but takes its link time from them.
 *
 * Return: when the link has carried it.
 */
u64 xm_link_small(struct xdma_model *m, int w, u64 from, u64 bytes)
{
	u64 t = link_ns(m, bytes);

	m->link_busy[w] = max_t(u64, m->link_busy[w], from) + t;
	return from + t;
}

/* Reserve the next slice of the current descriptor, from @from on. */
void xm_slice_next(struct xdma_model *m, struct model_engine *e, u64 from)
{
	u32 n = min_t(u32, m->slice, e->x_len - e->x_off);

	e->s_end = xm_link_reserve(m, e->c2h, from, n);
	e->s_len = n;
	e->x_off += n;
}

/*
 * Ask the host to run the engine again at @when; unless @precise, not
 * sooner than SLICE_NS after it last made progress (what is due then is
 * done with the times it had: the rate is kept, only the look is coarser).
 */
void xm_eng_wake(struct model_engine *e, u64 when, bool precise,
		 struct model_act *act)
{
	if (!precise)
		when = max_t(u64, when, e->woke + SLICE_NS);
	act->wake |= BIT(e->index);
	act->wake_at[e->index] = when;
}

/* The engine stops where it is until the hang ends. */
bool xm_eng_hold(struct xdma_model *m, struct model_engine *e,
		 struct model_act *act)
{
	e->held = true;
	xm_eng_wake(e, m->hang_until, true, act);
	return true;
}

/*
 * Take up time again after a hold (halt, stall, hang, dead card): the
 * engine goes on from @now; a slice that was reserved but had not landed
 * is carried anew.
 */
void xm_eng_resume(struct xdma_model *m, struct model_engine *e, u64 now)
{
	e->held = false;
	e->clock = max_t(u64, e->clock, now);
	if (!m->rate)
		return;
	if (e->xs == X_LAT) {
		e->x_ready = max_t(u64, e->x_ready, now);
	} else if (e->xs == X_DATA && xm_st_c2h(m, e)) {
		if (e->s_len)
			e->s_end = xm_link_reserve(m, 1, now, e->s_len);
	} else if (e->xs == X_DATA && e->x_done < e->x_len) {
		e->x_off -= e->s_len;
		xm_slice_next(m, e, now);
	}
}
