// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model_stream.c - the XDMA IP model's side of the user logic's
 * ports (xdma_user.h): its time, its usr_irq flags, and the AXI-Stream H2C
 * and C2H ports through each engine's bounce buffer.  @m locked.
 */
#include "xdma_model_priv.h"

/*
 * Bring the user logic's time to @now, telling it which C2H channels take
 * no data (engine idle, or parked: no credits, halt, stall): a source that
 * drops frames drops what came due meanwhile.  Sources of running engines
 * are brought along by the engines.  Called before anything that can
 * change whether an engine takes data, and before user BAR accesses.
 */
void xm_user_advance(struct xdma_model *m, u64 now)
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
void xm_user_flags(struct xdma_model *m, u32 flags, struct model_act *act)
{
	u32 k;

	for (k = flags & (XDMA_USER_KICK_MASK | XDMA_USER_KICK_H2C_MASK); k;
	     k &= k - 1) {
		u32 bit = __builtin_ctz(k);
		struct model_engine *e = xm_chan_engine(m, bit < 8, bit % 8);

		if (e && (e->status & XDMA_STAT_BUSY))
			act->kick |= BIT(e->index);
	}
	if (flags & XDMA_USER_IRQ)
		xm_irq_update(m, act);
}

/* C2H stream input at @t: the record the user logic offers, if any. */
bool xm_user_st_peek(struct xdma_model *m, const struct model_engine *e,
		     u64 t, struct xdma_user_rec *rec)
{
	rec->next_ns = UINT64_MAX;
	return m->uops && m->uops->st_peek(m->user, e->ch, t, rec);
}

/*
 * H2C stream output: @n bytes, or TLAST, into the channel's user logic.
 * Return: the bytes it took (all but under back-pressure), with
 * XDMA_USER_TLAST when it took the TLAST; its other flags acted on.
 */
u32 xm_user_st_in(struct xdma_model *m, const struct model_engine *e,
		  const void *buf, u32 n, bool last, struct model_act *act)
{
	u32 took = n, flags = last ? XDMA_USER_TLAST : 0;

	if (m->uops) {
		flags = m->uops->st_in(m->user, e->ch, buf, n, last, &took);
		xm_user_flags(m, flags, act);
	}
	return min_t(u32, took, n) | (flags & XDMA_USER_TLAST);
}

/*
 * H2C stream: @len bytes at offset @off of the current descriptor from bus
 * memory into the user logic, through the bounce buffer; @m locked (dropped
 * around the bus reads).  *@took: the bytes its port took, fewer than @len
 * when it is back-pressured.  0 or the failed read's errno; the caller
 * checks e->seq.
 */
int xm_st_recv(struct xdma_model *m, struct model_engine *e, u64 off,
	       u32 len, u32 *took, struct model_act *act)
{
	u8 *buf = m->st_buf[e->index];
	u32 seq = e->seq, c, t;
	int r;

	*took = 0;
	while (len) {
		c = min_t(u32, len, ST_BUF_SIZE);
		r = xm_bus_read(m, e->x_src + off, buf, c);
		if (seq != e->seq)
			return 0;
		if (r)
			return r;
		t = xm_user_st_in(m, e, buf, c, false, act) & ~XDMA_USER_TLAST;
		*took += t;
		if (t < c)
			break;
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
int xm_st_send(struct xdma_model *m, struct model_engine *e, u64 bus,
	       u32 n)
{
	u8 *buf = m->st_buf[e->index];
	u32 seq = e->seq, skip = 0, c;
	int r = 0;

	while (n && !r) {
		c = min_t(u32, n, ST_BUF_SIZE);
		xm_bus_enter(m);
		m->uops->st_read(m->user, e->ch, skip, buf, c);
		r = xm_bus_leave(m, m->ops.dma_write(m->host, bus, buf, c));
		if (seq != e->seq)
			return 1;
		bus += c;
		skip += c;
		n -= c;
	}
	return r;
}
