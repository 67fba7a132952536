// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model_irq.c - interrupts of the XDMA IP model: channel and user
 * sources, the IRQ block's enables, requests, pending bits and vectors,
 * delivered as MSI/MSI-X messages or an INTx level (xm_act_flush(): the host
 * work collected under the lock); and each channel's performance monitor.
 */
#include "xdma_model_priv.h"

u32 xm_chan_vector(const struct xdma_model *m, u32 engine)
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
u32 xm_chan_request(const struct xdma_model *m)
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

bool xm_irq_blocked(const struct xdma_model *m)
{
	return m->faults & (XDMA_FAULT_LOST_IRQ | XDMA_FAULT_DEAD);
}

/**
 * xm_irq_update() - re-evaluate the IRQ block after a state change.
 * @m: the card, locked
 * @act: collects message interrupts and the INTx re-evaluation
 *
 * Pending = request & enable.  A message (MSI or MSI-X) is sent for each
 * pending bit that rose since the last evaluation, with the vector number of
 * its source; the INTx line follows "any bit pending".  Edges are consumed
 * even when nothing is delivered (irq mode NONE, LOST_IRQ fault).
 */
void xm_irq_update(struct xdma_model *m, struct model_act *act)
{
	u32 chan_pend = xm_chan_request(m) & m->chan_en;
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
	if (!msg || xm_irq_blocked(m))
		return;
	/* the rising bits only, lowest first (engine order, then user) */
	for (; chan_rise && act->nmsi < ARRAY_SIZE(act->msi);
	     chan_rise &= chan_rise - 1) {
		i = __builtin_ctz(chan_rise);
		act->msi[act->nmsi++] = xm_chan_vector(m, i);
	}
	for (; user_rise && act->nmsi < ARRAY_SIZE(act->msi);
	     user_rise &= user_rise - 1) {
		i = __builtin_ctz(user_rise);
		act->msi[act->nmsi++] = user_vector(m, i);
	}
}

/* Bring the host's INTx line to the level the IRQ block drives. */
void xm_intx_sync(struct xdma_model *m)
{
	pthread_mutex_lock(&m->intx_lock);
	for (;;) {
		bool want;

		pthread_mutex_lock(&m->lock);
		want = m->irq_mode == XDMA_MODEL_IRQ_LEGACY && m->intx_level &&
		       !xm_irq_blocked(m);
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
void xm_act_flush(struct xdma_model *m, struct model_act *act)
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
			xm_guest_error(m, "writeback to 0x%llx failed",
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
		xm_intx_sync(m);
	for (u32 todo = act->wake | act->kick; todo; todo &= todo - 1) {
		i = __builtin_ctz(todo);
		if (act->wake & BIT(i))
			m->ops.schedule(m->host, i, act->wake_at[i]);
		if (act->kick & BIT(i))
			m->ops.kick(m->host, i);
	}
}

/* ---- performance monitor ---- */

u64 xm_perf_ns(const struct model_engine *e, u64 now)
{
	return e->perf_cyc_ns + (e->perf_on ? now - e->perf_start_ns : 0);
}

/* Counting while armed (perf Run) and the engine's Run bit is set. */
void xm_perf_eval(struct model_engine *e, u64 now)
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

void xm_perf_clear(struct model_engine *e, u64 now)
{
	e->perf_cyc_ns = 0;
	e->perf_start_ns = now;
	e->perf_data = 0;
	e->perf_pend_ns = 0;
}

u32 xm_perf_lo(u64 v)
{
	return lower_32_bits(min_t(u64, v, PERF_COUNTER_MAX));
}

u32 xm_perf_hi(u64 v)
{
	if (v > PERF_COUNTER_MAX)
		return XDMA_PERF_HI_MAXED | XDMA_PERF_HI_COUNT;
	return FIELD_PREP(XDMA_PERF_HI_COUNT, upper_32_bits(v));
}
