// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model_sgdma.c - descriptor processing of the XDMA IP model's
 * SGDMA engines: fetch of descriptor blocks, data between bus and card memory
 * (memory-mapped or AXI-Stream C2H), completion, writeback, and the engine
 * thread's entry, xdma_model_engine_work().
 */
#include "xdma_model_priv.h"

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
		xm_guest_error(m, "engine %u: desc block 0x%llx+%u crosses 4 KiB",
			       e->index, (unsigned long long)addr, n);
		xm_eng_error(m, e, FIELD_PREP(XDMA_STAT_DESC_ERROR,
					      XDMA_DESC_ERR_UR), act);
		return 1;
	}
	if (xm_eng_credit_mode(m, e))	/* no more than it has credits for */
		n = min_t(u32, n, e->credits);
	if (m->faults & XDMA_FAULT_DESC_READ) {
		__atomic_and_fetch(&m->faults, ~(u32)XDMA_FAULT_DESC_READ,
				   __ATOMIC_RELAXED);
		r = -EIO;
	} else {
		r = xm_bus_read(m, addr, blk, n * XDMA_DESC_SIZE);
		if (seq != e->seq)
			return -EAGAIN;
	}
	if (r == -EBUSY) {
		/* the request waits for bus mastering, busy */
		e->parked = true;
		return 2;
	}
	if (r) {
		xm_eng_error(m, e, FIELD_PREP(XDMA_STAT_DESC_ERROR,
					      XDMA_DESC_ERR_UR), act);
		return 1;
	}
	memcpy(e->blk, blk, n * XDMA_DESC_SIZE);
	e->blk_n = n;
	e->blk_i = 0;
	e->blk_addr = addr;
	e->blk_rest = e->cur_adj + 1 - n;
	if (xm_eng_credit_mode(m, e))
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
		e->status |= xm_logged(e, XDMA_STAT_DESC_COMPLETED);
	if (ctl & XDMA_DESC_CTRL_STOP) {
		again = e->restart && (e->ctrl & XDMA_CTRL_RUN);
		if (e->perf_ctrl & XDMA_PERF_AUTO) {
			e->perf_auto_stopped = true;
			xm_perf_eval(e, now);
		}
		xm_eng_idle(m, e, XDMA_STAT_DESC_STOPPED, act);
		if (again)
			xm_eng_start(m, e, now, act);
	} else {
		xm_irq_update(m, act);
	}
	if (ctl & (XDMA_DESC_CTRL_COMPLETED | XDMA_DESC_CTRL_STOP)) {
		xm_queue_writeback(m, e, act);
		if (m->rate && (e->ctrl & XDMA_CTRL_POLL_MODE_WB))
			xm_link_small(m, 1, end, sizeof(__le32));
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
 * waits for the hang to end.  An AXI-ST H2C port that is back-pressured
 * (st_wait) holds the engine until the user logic kicks it: nothing more
 * lands before its port took what it did not; its descriptor with EOP ends
 * once the port took the TLAST too.
 *
 * Return: as eng_step().
 */
static bool eng_data(struct xdma_model *m, struct model_engine *e, u64 now,
		     bool hang, struct model_act *act)
{
	u64 end = e->s_end, limit = now;
	u32 seq = e->seq, n = e->st_wait, took;
	int r;

	if (hang)
		limit = min_t(u64, now, m->hang_from);
	while (!e->st_wait && e->s_len && e->s_end <= limit) {
		n += e->s_len;
		end = e->s_end;
		e->s_len = 0;
		if (e->x_off < e->x_len && !hang)
			xm_slice_next(m, e, end);
	}
	if (n) {
		r = xm_eng_move(m, e, e->x_done, n, &took, act);
		if (seq != e->seq)
			return false;
		if (r) {
			xm_eng_error(m, e, xm_data_error(e), act);
			return true;
		}
		e->x_done += took;
		e->st_wait = n - took;
		e->woke = now;
	}
	if (hang && (e->x_done < e->x_len || end > limit))
		return xm_eng_hold(m, e, act);
	if (e->st_wait)
		return true;	/* back-pressure: XDMA_USER_KICK_H2C resumes it */
	if (e->x_done < e->x_len) {
		/* a descriptor's end is on time when it tells the driver */
		xm_eng_wake(e, e->s_end, e->x_off < e->x_len ||
			    (e->x_ctl & (XDMA_DESC_CTRL_COMPLETED |
				      XDMA_DESC_CTRL_STOP)), act);
		return true;
	}
	if (m->cfg.st && !e->c2h && (e->x_ctl & XDMA_DESC_CTRL_EOP) &&
	    !e->st_eop) {
		if (!(xm_user_st_in(m, e, NULL, 0, true, act) &
		      XDMA_USER_TLAST))
			return true;	/* TLAST back-pressured */
		e->st_eop = true;
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
		r = xm_bus_write(m, e->x_src, wb, sizeof(wb));
		if (seq != e->seq)
			return false;
		if (r) {
			xm_eng_error(m, e, xm_data_error(e), act);
			return true;
		}
		if (m->rate)
			xm_link_small(m, 1, e->clock, sizeof(wb));
	}
	e->x_len = e->x_done;
	e->burst++;
	eng_complete(m, e, e->clock, now, act);
	if (!(e->status & XDMA_STAT_BUSY))
		return true;
	if (!m->rate && e->burst >= ST_BURST) {
		/* a ring filled at once: let the host call it again */
		xm_eng_wake(e, now, true, act);
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
					return xm_eng_hold(m, e, act);
				xm_eng_wake(e, e->s_end, true, act);
				return true;
			}
			n = e->s_len;
			r = xm_st_send(m, e, e->x_dst + e->x_done, n);
			if (r > 0)
				return false;
			if (r) {
				xm_eng_error(m, e, xm_data_error(e), act);
				return true;
			}
			e->s_len = 0;
			e->x_done += n;
			e->clock = e->s_end;
			e->woke = now;
			flags = m->uops->st_take(m->user, e->ch, n, e->clock);
			eop = flags & XDMA_USER_TLAST;
			xm_user_flags(m, flags, act);
			if (eop || e->x_done == e->x_len)
				return st_c2h_complete(m, e, eop, now, act);
			continue;
		}
		if (hang)
			return xm_eng_hold(m, e, act);
		if (!xm_user_st_peek(m, e, limit, &rec)) {
			if (!(e->ctrl & XDMA_CTRL_RUN)) {
				if (e->x_done)
					return st_c2h_complete(m, e, false, now,
							       act);
				xm_eng_idle(m, e, XDMA_STAT_IDLE_STOPPED, act);
				return true;
			}
			if (rec.next_ns != UINT64_MAX)
				xm_eng_wake(e, rec.next_ns, true, act);
			return true;	/* a user BAR write kicks it */
		}
		n = min_t(u32, rec.left, e->x_len - e->x_done);
		if (m->rate)
			n = min_t(u32, n, m->slice);
		e->s_len = n;
		e->s_end = max_t(u64, e->clock, rec.ready_ns);
		if (m->rate)
			e->s_end = xm_link_reserve(m, 1, e->s_end, n);
	}
}

/* The current descriptor's data starts (link model: after its latency). */
static void data_start(struct xdma_model *m, struct model_engine *e)
{
	e->xs = X_DATA;
	if (xm_st_c2h(m, e))
		e->clock = max_t(u64, e->clock, e->x_ready);
	else
		xm_slice_next(m, e, e->x_ready);
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
	u32 ctl, len, seq, err, took;
	u64 src, dst, t;
	int r;

	if (e->restart)		/* Run was set again while it was busy */
		xm_eng_latch(m, e, now);
	if (!(e->ctrl & XDMA_CTRL_RUN)) {
		xm_eng_idle(m, e, XDMA_STAT_IDLE_STOPPED, act);
		return true;
	}
	if ((m->faults & XDMA_FAULT_STALL) || xm_eng_halted(m, e)) {
		e->parked = true;
		e->held = true;
		return true;
	}
	e->parked = false;
	if (e->blk_i >= e->blk_n) {
		if (xm_eng_credit_mode(m, e) && !e->credits) {
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
	err = xm_desc_check(m, e, ctl, len, src, dst);
	if (err) {
		xm_eng_error(m, e, err, act);
		return true;
	}
	e->x_src = src;
	e->x_dst = dst;
	e->x_len = len;
	e->x_ctl = ctl;
	e->x_off = 0;
	e->x_done = 0;
	e->s_len = 0;
	e->st_wait = 0;
	e->st_eop = false;
	if (m->rate) {
		t = e->clock;
		if (fetched)
			t = xm_link_small(m, 0, t, e->blk_n * XDMA_DESC_SIZE);
		e->x_t0 = e->clock;
		e->x_ready = t + m->cfg.link.desc_ns;
		e->xs = X_LAT;
		/* soon: the data's first slice now, no wake-up for the start */
		if (e->x_ready <= now + SLICE_NS)
			data_start(m, e);
		return false;
	}
	if (xm_st_c2h(m, e)) {	/* the user logic fills it (st_c2h_data()) */
		e->xs = X_DATA;
		e->x_t0 = e->clock;
		return false;
	}

	/* No link model: the whole descriptor in one copy. */
	e->xs = X_DATA;
	e->x_t0 = now;
	seq = e->seq;
	r = xm_eng_move(m, e, 0, len, &took, act);
	if (seq != e->seq)
		return false;
	if (r) {
		xm_eng_error(m, e, xm_data_error(e), act);
		return true;
	}
	e->x_off = len;
	e->x_done = took;
	e->st_wait = len - took;	/* AXI-ST H2C back-pressure */
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
	hang = xm_hang_holds_eng(m, e, now);
	if (e->held && !hang)
		xm_eng_resume(m, e, now);
	if (hang && e->xs != X_DATA)
		return xm_eng_hold(m, e, act);
	switch (e->xs) {
	case X_DATA:
		if (xm_st_c2h(m, e))
			return st_c2h_data(m, e, now, hang, act);
		return eng_data(m, e, now, hang, act);
	case X_LAT:
		if (e->x_ready > now) {
			xm_eng_wake(e, e->x_ready, true, act);
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
		xm_act_flush(m, &act);
		if (!done)
			pthread_mutex_lock(&m->lock);
	} while (!done);
}
