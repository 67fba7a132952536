// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xdma_ring.c - C2H AXI-Stream rings of the engine core (XDMA IP, PG195): a
 * circle of descriptors, one per buffer, that a C2H engine of an AXI-Stream
 * card keeps filling, each buffer's packet length and end reported in its
 * 32-byte writeback slot; buffers are handed to the consumer and credited
 * back to the engine as they are released.  It runs on the engines of
 * xdma_engine.c and never allocates: ring memory belongs to the caller.
 */
#include "xdma_priv.h"

/* ------------------------------------------------------------------------ */
/* C2H stream rings (AXI-Stream cards)                                      */
/* ------------------------------------------------------------------------ */

/* Buffer states of a ring (struct hf_xdma_ring, @state). */
#define XDMA_RING_ENGINE	0	/* credited: the engine may fill it */
#define XDMA_RING_HELD		1	/* completed, handed to the consumer */
#define XDMA_RING_RELEASED	2	/* given back, its credit not yet */

#define XDMA_RING_DEAD_MSG "card not responding (reads all ones): removed or link down"

static inline void hf_xdma_common_wr(const struct hf_xdma_engine *e, u32 off,
				     u32 val)
{
	hf_iowrite32(val, e->xdev->bar, XDMA_SGDMA_COMMON_BASE + off);
}

/* The C2H stream writeback slot of buffer @i. */
static __le32 *hf_xdma_ring_slot(const struct hf_xdma_ring *r, u32 i)
{
	return (__le32 *)((u8 *)r->wb + (size_t)i * XDMA_STM_WB_SIZE);
}

static u32 hf_xdma_ring_next(const struct hf_xdma_ring *r, u32 i)
{
	return i + 1 < r->n ? i + 1 : 0;
}

/**
 * hf_xdma_ring_res() - the result a ring call writes to.
 * @res: the caller's (may be NULL)
 * @local: used when it is
 *
 * Return: the result, cleared.
 */
static struct hf_xdma_result *hf_xdma_ring_res(struct hf_xdma_result *res,
					       struct hf_xdma_result *local)
{
	if (!res)
		res = local;
	memset(res, 0, sizeof(*res));
	return res;
}

/**
 * hf_xdma_ring_err() - finish a ring's error: code and text.
 * @res: the result, its text written by the caller
 * @err: the negative errno
 * @n: what snprintf() returned for @res->msg
 *
 * Return: @err.
 */
static int hf_xdma_ring_err(struct hf_xdma_result *res, int err, int n)
{
	res->err = err;
	hf_xdma_msg_end(res, n);
	return err;
}

/* An error with a fixed text after the engine's name. */
static int hf_xdma_ring_fail(const struct hf_xdma_ring *r,
			     struct hf_xdma_result *res, int err,
			     const char *text)
{
	return hf_xdma_ring_err(res, err,
				snprintf(res->msg, sizeof(res->msg), "C2H%u: %s",
					 r->e->ch, text));
}

/**
 * hf_xdma_ring_init() - give a ring its engine and its storage.
 * @r: the ring
 * @e: an initialised C2H engine of an AXI-Stream card, used by nothing else
 *	while the ring runs
 * @desc_cpu: CPU address of DMA-coherent storage for @n descriptors
 *	(32-byte aligned)
 * @desc_bus: bus address of @desc_cpu
 * @wb_cpu: CPU address of DMA-coherent storage for @n C2H stream
 *	writebacks (XDMA_STM_WB_SIZE bytes each, 32-byte aligned)
 * @wb_bus: bus address of @wb_cpu
 * @n: buffers, XDMA_RING_MIN..XDMA_RING_MAX
 *
 * Return: 0; -EINVAL for a bad count, storage or engine (an H2C engine, a
 * memory-mapped card's, an uninitialised one).
 */
int hf_xdma_ring_init(struct hf_xdma_ring *r, struct hf_xdma_engine *e,
		      void *desc_cpu, u64 desc_bus, void *wb_cpu, u64 wb_bus,
		      u32 n)
{
	memset(r, 0, sizeof(*r));
	if (!e || !e->xdev || e->dir != XDMA_C2H || !e->xdev->stream)
		return -EINVAL;
	if (n < XDMA_RING_MIN || n > XDMA_RING_MAX)
		return -EINVAL;
	if (!wb_cpu || !IS_ALIGNED((unsigned long)wb_cpu, XDMA_STM_WB_SIZE) ||
	    !IS_ALIGNED(wb_bus, (u64)XDMA_STM_WB_SIZE))
		return -EINVAL;
	hf_xdma_chain_init(&r->chain, desc_cpu, desc_bus, n);
	if (!r->chain.capacity)
		return -EINVAL;
	r->e = e;
	r->wb = wb_cpu;
	r->wb_bus = wb_bus;
	r->n = n;
	return 0;
}

/**
 * hf_xdma_ring_build() - write a ring's descriptors.
 * @r: the ring, initialised and stopped
 * @sg: scatter list of the buffers' bus addresses: buffer i is bytes
 *	[i * @buf_size, (i + 1) * @buf_size) of it
 * @nsg: entries of @sg
 * @buf_size: bytes per buffer, a multiple of the engine's address
 *	alignment and length granularity, at most XDMA_DESC_MAX_LEN
 * @res: receives the text of an error (may be NULL)
 *
 * One descriptor per buffer, each buffer one run of contiguous bus
 * addresses, linked cyclically (the last one's next is the first, no Stop
 * flag), each with the Completed flag (every buffer raises the channel's
 * completion) and, as its source address, the bus address of its writeback
 * slot.  Adjacent counts follow the blocks of hf_xdma_block_end() from
 * descriptor 0; the last descriptor's are those of the block at 0.
 *
 * Return: 0; -EINVAL for a bad size, a list too short or a buffer that is
 * not contiguous in bus addresses (@res->msg says which), a running ring.
 */
int hf_xdma_ring_build(struct hf_xdma_ring *r, const struct hf_sg *sg, u32 nsg,
		       u64 buf_size, struct hf_xdma_result *res)
{
	struct hf_xdma_chain *c = &r->chain;
	struct hf_xdma_result local;
	struct hf_xdma_sg_iter it;
	u32 gran, i, blk_end, nx, ctrl;
	u64 addr = 0, run;

	res = hf_xdma_ring_res(res, &local);
	if (!r->e)
		return -EINVAL;
	if (r->running)
		return hf_xdma_ring_fail(r, res, -EINVAL,
					 "ring built while it runs");
	gran = max(r->e->len_gran, r->e->addr_align);
	if (!buf_size || buf_size > XDMA_DESC_MAX_LEN ||
	    !IS_ALIGNED(buf_size, (u64)gran))
		return hf_xdma_ring_err(res, -EINVAL,
					snprintf(res->msg, sizeof(res->msg),
						 "C2H%u: ring buffer size %llu: must be 1..%u bytes, a multiple of %u",
						 r->e->ch,
						 (unsigned long long)buf_size,
						 (u32)XDMA_DESC_MAX_LEN, gran));
	if (hf_xdma_sg_check(sg, nsg, 0, buf_size * r->n))
		return hf_xdma_ring_err(res, -EINVAL,
					snprintf(res->msg, sizeof(res->msg),
						 "C2H%u: ring of %u buffers of %llu bytes: the memory list is invalid or too short",
						 r->e->ch, r->n,
						 (unsigned long long)buf_size));
	c->count = 0;
	blk_end = hf_xdma_block_end(c->bus, 0, r->n);
	c->first_adj = blk_end;
	for (i = 0; i < r->n; i++) {
		hf_xdma_sg_iter_start(&it, sg, nsg, (u64)i * buf_size, buf_size);
		run = hf_xdma_sg_next_run(&it, &addr);
		if (run != buf_size)
			return hf_xdma_ring_err(res, -EINVAL,
						snprintf(res->msg, sizeof(res->msg),
							 "C2H%u: ring buffer %u is not contiguous in bus addresses (%llu of its %llu bytes are): each buffer must be one contiguous range",
							 r->e->ch, i,
							 (unsigned long long)run,
							 (unsigned long long)buf_size));
		if (!IS_ALIGNED(addr, (u64)r->e->addr_align))
			return hf_xdma_ring_err(res, -EINVAL,
						snprintf(res->msg, sizeof(res->msg),
							 "C2H%u: ring buffer %u at bus address 0x%llx: the engine needs %u-byte alignment",
							 r->e->ch, i,
							 (unsigned long long)addr,
							 r->e->addr_align));
		nx = hf_xdma_ring_next(r, i);
		if (nx && nx > blk_end)
			blk_end = hf_xdma_block_end(c->bus, nx, r->n);
		ctrl = FIELD_PREP(XDMA_DESC_CTRL_MAGIC, XDMA_DESC_MAGIC) |
		       XDMA_DESC_CTRL_COMPLETED |
		       FIELD_PREP(XDMA_DESC_CTRL_NXT_ADJ,
				  nx ? blk_end - nx : c->first_adj);
		hf_xdma_desc_pack(&c->desc[i], ctrl, (u32)buf_size,
				  r->wb_bus + (u64)i * XDMA_STM_WB_SIZE, addr,
				  c->bus + (u64)nx * XDMA_DESC_SIZE);
	}
	c->count = r->n;
	c->bytes = buf_size * r->n;
	c->dir = XDMA_C2H;
	r->buf_size = (u32)buf_size;
	return 0;
}

/**
 * hf_xdma_ring_start() - start a built ring with every buffer credited.
 * @r: the ring, built and stopped
 * @res: receives the text of an error (may be NULL)
 *
 * Clears the writeback slots and the status, programs the first
 * descriptor, turns descriptor credit mode on for the channel, gives the
 * engine one credit per buffer, enables the channel interrupt (interrupt
 * mode) and sets Run with the ie_* logging bits (no poll-mode writeback:
 * the stream writebacks tell completion).  Buffer 0 completes first.
 *
 * If the ring last run on this engine was stopped in the middle of a
 * frame (@e->st_cut), the source still holds the rest of that frame: the
 * buffers up to and including the next one with EOP are skipped (given
 * back at once, counted in @r->stats.skipped).
 *
 * Return: 0; -EINVAL (not built, already running), -EIO (engine wedged),
 * -ENODEV (card gone).
 */
int hf_xdma_ring_start(struct hf_xdma_ring *r, struct hf_xdma_result *res)
{
	struct hf_xdma_engine *e = r->e;
	struct hf_xdma_result local;

	res = hf_xdma_ring_res(res, &local);
	if (!e || !r->chain.count || r->running)
		return -EINVAL;
	if (e->wedged)
		return hf_xdma_engine_wedged_msg(e, res);
	if (READ_ONCE(e->xdev->gone))
		return hf_xdma_ring_fail(r, res, -ENODEV, "card removed");
	memset(r->wb, 0, (size_t)r->n * XDMA_STM_WB_SIZE);
	memset(r->state, XDMA_RING_ENGINE, sizeof(r->state));
	r->head = 0;
	r->credit = 0;
	r->held = 0;
	r->full = false;
	r->failed = false;
	r->resync = e->st_cut;
	WRITE_ONCE(r->credited, 0);
	WRITE_ONCE(r->seq_skip, r->resync ? ~0ull : 0);
	if (hf_xdma_rd(e, XDMA_CHAN_STATUS_RC) == XDMA_ID_DEAD)
		return hf_xdma_ring_fail(r, res, -ENODEV, XDMA_RING_DEAD_MSG);
	hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_LO, lower_32_bits(r->chain.bus));
	hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_HI, upper_32_bits(r->chain.bus));
	hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_ADJ, r->chain.first_adj);
	e->prog_valid = false;
	hf_xdma_common_wr(e, XDMA_SGDMA_COMMON_CREDIT_W1S,
			  XDMA_SGDMA_CREDIT_C2H(e->ch));
	hf_xdma_sg_wr(e, XDMA_SGDMA_DESC_CREDITS, r->n);
	if (!e->poll)
		hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1S, BIT(e->index));
	/* descriptors and cleared slots visible before the engine starts */
	mb();
	hf_xdma_wr(e, XDMA_CHAN_CONTROL, XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL);
	r->running = true;
	return 0;
}

/**
 * hf_xdma_ring_credit() - give the engine the credits of released buffers,
 *	in ring order, in one register write.
 * @r: the ring, running
 */
static void hf_xdma_ring_credit(struct hf_xdma_ring *r)
{
	u32 n = 0;

	__le32 *slot;

	while (n < r->n && r->state[r->credit] == XDMA_RING_RELEASED) {
		/* a stale writeback must never satisfy a wait for the next */
		slot = hf_xdma_ring_slot(r, r->credit);
		WRITE_ONCE(slot[0], 0);
		WRITE_ONCE(slot[1], 0);
		r->state[r->credit] = XDMA_RING_ENGINE;
		r->credit = hf_xdma_ring_next(r, r->credit);
		n++;
	}
	if (!n)
		return;
	r->held -= n;
	r->full = false;
	WRITE_ONCE(r->credited, r->credited + n);
	/* the consumer's reads and the slots' clearing before the reuse */
	mb();
	hf_xdma_sg_wr(r->e, XDMA_SGDMA_DESC_CREDITS, n);
	r->stats.credit_writes++;
}

/* Whether status word @st of a writeback slot holds a writeback. */
static bool hf_xdma_ring_wb_done(u32 st)
{
	return FIELD_GET(XDMA_STM_WB_MAGIC, st) == XDMA_STM_WB_MAGIC_VALUE;
}

/**
 * hf_xdma_ring_slot_take() - read a buffer's writeback slot.
 * @r: the ring
 * @i: the buffer
 * @len: its length, when complete
 * @eop: whether it ends a frame
 *
 * The slot keeps its writeback until the buffer's credit goes back
 * (hf_xdma_ring_credit() clears it), so a GPU waiting on it
 * (hf_xdma_ring_slot_of()) sees the completion whether or not the CPU
 * took the buffer first.
 *
 * Return: true when the engine completed it (magic in the status word).
 */
static bool hf_xdma_ring_slot_take(struct hf_xdma_ring *r, u32 i, u32 *len,
				   bool *eop)
{
	__le32 *slot = hf_xdma_ring_slot(r, i);
	u32 st = le32_to_cpu(READ_ONCE(slot[0]));

	if (!hf_xdma_ring_wb_done(st))
		return false;
	/* the length and the buffer's data after the status word */
	dma_rmb();
	*len = min_t(u32, le32_to_cpu(READ_ONCE(slot[1])), r->buf_size);
	*eop = st & XDMA_STM_WB_EOP;
	return true;
}

/**
 * hf_xdma_ring_full_check() - count the engine running out of buffers.
 * @r: the ring
 *
 * The buffers with the engine are the n - @held from @head on; the newest
 * of them, just before @credit, completed means all of them did: the
 * engine has no free buffer (or none is with it at all).  Counted once
 * until a release gives it one again.  One look at a writeback slot.
 */
static void hf_xdma_ring_full_check(struct hf_xdma_ring *r)
{
	u32 last = r->credit ? r->credit - 1 : r->n - 1;
	u32 st;

	if (r->full)
		return;
	st = le32_to_cpu(READ_ONCE(hf_xdma_ring_slot(r, last)[0]));
	if (r->held == r->n || hf_xdma_ring_wb_done(st)) {
		r->full = true;
		r->stats.ring_full++;
	}
}

/**
 * hf_xdma_ring_take() - the next completed buffer, if its writeback is there.
 * @r: the ring
 * @buf: filled when one is
 *
 * Reads the head buffer's writeback slot (no register), clears it for the
 * buffer's next round and hands the buffer to the consumer.  A skipped
 * buffer (see hf_xdma_ring_start()) is given back at once.
 *
 * Return: true when @buf is filled.
 */
static bool hf_xdma_ring_take(struct hf_xdma_ring *r, struct hf_xdma_ring_buf *buf)
{
	u32 i, len;
	bool eop;

	for (;;) {
		i = r->head;
		/* every buffer held: the head's slot is its last writeback */
		if (r->state[i] != XDMA_RING_ENGINE ||
		    !hf_xdma_ring_slot_take(r, i, &len, &eop))
			return false;
		r->state[i] = XDMA_RING_HELD;
		r->held++;
		r->head = hf_xdma_ring_next(r, i);
		r->e->st_cut = !eop;
		hf_xdma_ring_full_check(r);
		if (likely(!r->resync))
			break;
		r->resync = !eop;
		r->stats.skipped++;
		if (!r->resync)
			WRITE_ONCE(r->seq_skip, r->stats.skipped);
		r->state[i] = XDMA_RING_RELEASED;
		hf_xdma_ring_credit(r);
	}
	buf->index = i;
	buf->len = len;
	buf->eop = eop;
	buf->sequence = r->stats.buffers;
	buf->frame = r->stats.frames;
	r->stats.buffers++;
	r->stats.frames += eop;
	r->stats.bytes += len;
	return true;
}

/**
 * hf_xdma_ring_check() - the engine's status after a wake-up (read clears).
 * @r: the ring
 * @res: receives the error
 *
 * One read of the read-to-clear status register: it drops the channel's
 * interrupt request (the "descriptor completed" bit stays set until it is
 * read), so the next completion raises a new one; on a shared vector the
 * channel interrupt, which the ISR masked, is enabled again.
 *
 * Return: 0, -EIO (an error bit, or the engine no longer busy), -ENODEV
 * (reads all ones).
 */
static int hf_xdma_ring_check(struct hf_xdma_ring *r, struct hf_xdma_result *res)
{
	struct hf_xdma_engine *e = r->e;
	char text[128];
	u32 status;

	status = hf_xdma_rd(e, XDMA_CHAN_STATUS_RC);
	r->stats.status_reads++;
	res->status = status;
	if (status == XDMA_ID_DEAD)
		return hf_xdma_ring_fail(r, res, -ENODEV, XDMA_RING_DEAD_MSG);
	if ((status & XDMA_STAT_ERR_MASK) || !(status & XDMA_STAT_BUSY)) {
		r->failed = true;
		r->fail_status = status;
		hf_xdma_decode_status(e->dir, status, text, sizeof(text));
		return hf_xdma_ring_err(res, -EIO,
					snprintf(res->msg, sizeof(res->msg),
						 "C2H%u: stream engine stopped: %s after %llu buffers, status 0x%08x",
						 e->ch, text,
						 (unsigned long long)r->stats.buffers,
						 status));
	}
	if (!e->poll && e->xdev->irq_shared)
		hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1S, BIT(e->index));
	return 0;
}

/**
 * hf_xdma_ring_wait() - wait for the next completed buffer of a ring.
 * @r: the ring, running; its calls are serialised by the caller
 * @timeout_ns: how long to wait (0: only look)
 * @buf: the buffer, on success; it is the consumer's until
 *	hf_xdma_ring_release()
 * @res: the error's code and text (may be NULL)
 *
 * A buffer whose writeback is already there is taken with no register
 * access, so a consumer that is behind takes many buffers per wake-up.
 * Otherwise, in interrupt mode, the status is read to clear it (one read
 * per wake-up, see hf_xdma_ring_check()), the slot looked at again, and
 * the engine's event waited for (the ISR signals it); in poll mode the
 * slot is spun on briefly, then looked at with growing sleeps between
 * looks and the status read now and then.
 *
 * Return: 0; -ETIMEDOUT when no buffer completed in time (normal: the
 * ring goes on); -EIO on an engine error (@res->msg decodes the status;
 * stop the ring); -ENODEV when the card is gone; -ECANCELED after
 * hf_xdma_engine_cancel(); -EAGAIN after hf_xdma_ring_kick(); -EINTR on
 * a fatal signal; -EINVAL when the ring is not running.
 */
int hf_xdma_ring_wait(struct hf_xdma_ring *r, u64 timeout_ns,
		      struct hf_xdma_ring_buf *buf, struct hf_xdma_result *res)
{
	struct hf_xdma_engine *e = r->e;
	u64 start = hf_os_now_ns(), now, deadline, health = 0;
	u32 sleep_us = XDMA_POLL_SLEEP_MIN_US;
	struct hf_xdma_result local;
	bool checked = false;
	int ret;

	res = hf_xdma_ring_res(res, &local);
	if (!e || !r->running)
		return hf_xdma_ring_err(res, -EINVAL,
					snprintf(res->msg, sizeof(res->msg),
						 "stream ring not running"));
	if (r->failed)
		return hf_xdma_ring_err(res, -EIO,
					snprintf(res->msg, sizeof(res->msg),
						 "C2H%u: stream engine stopped earlier (status 0x%08x)",
						 e->ch, r->fail_status));
	deadline = hf_xdma_deadline(start, timeout_ns);
	for (;;) {
		if (unlikely(READ_ONCE(e->xdev->gone)))
			return hf_xdma_ring_fail(r, res, -ENODEV, "card removed");
		if (unlikely(READ_ONCE(e->cancel)))
			return hf_xdma_ring_fail(r, res, -ECANCELED,
						 "wait cancelled");
		if (unlikely(READ_ONCE(r->kick))) {
			WRITE_ONCE(r->kick, false);
			return hf_xdma_ring_fail(r, res, -EAGAIN,
						 "wait woken: look again");
		}
		if (hf_xdma_ring_take(r, buf))
			return 0;
		now = hf_os_now_ns();
		if (!e->poll && !checked) {
			/* clear the request, then look once more */
			ret = hf_xdma_ring_check(r, res);
			if (ret)
				return ret;
			checked = true;
			continue;
		}
		if (now >= deadline)
			break;
		if (!e->poll) {
			ret = hf_os_event_wait(&e->irq_event, deadline - now);
			if (ret == -EINTR)
				return hf_xdma_ring_fail(r, res, ret,
							 "interrupted by a signal");
			if (!ret)
				r->stats.wakes++;
			checked = false;
			continue;
		}
		if (now < start + XDMA_POLL_SPIN_NS) {
			hf_os_relax();
			continue;
		}
		if (hf_os_fatal_signal_pending())
			return hf_xdma_ring_fail(r, res, -EINTR,
						 "interrupted by a signal");
		if (!health) {
			health = now + XDMA_POLL_HEALTH_NS;
		} else if (now >= health) {
			health = now + XDMA_POLL_HEALTH_NS;
			ret = hf_xdma_ring_check(r, res);
			if (ret)
				return ret;
		}
		hf_os_sleep_us(min_t(u64, sleep_us, (deadline - now) / 1000 + 1));
		sleep_us = min(sleep_us * 2, XDMA_POLL_SLEEP_MAX_US);
	}
	/* a timeout never hides an engine that failed */
	if (!checked) {
		ret = hf_xdma_ring_check(r, res);
		if (ret)
			return ret;
		if (hf_xdma_ring_take(r, buf))
			return 0;
	}
	return hf_xdma_ring_err(res, -ETIMEDOUT,
				snprintf(res->msg, sizeof(res->msg),
					 "C2H%u: no stream buffer within %llu us",
					 e->ch,
					 (unsigned long long)(timeout_ns / 1000)));
}

/**
 * hf_xdma_ring_kick() - make a wait on @r return -EAGAIN soon.
 * @r: the ring
 *
 * From any thread or context that may signal an event: for a caller that
 * needs the waiter out of hf_xdma_ring_wait() (a release that another
 * thread queued for it, a close).  The next wait returns at once if none
 * is in progress.
 */
void hf_xdma_ring_kick(struct hf_xdma_ring *r)
{
	WRITE_ONCE(r->kick, true);
	/* the flag before the wake-up; pairs with the waiter's check */
	mb();
	hf_os_event_signal(&r->e->irq_event);
}

/**
 * hf_xdma_ring_release() - give a buffer back to the engine.
 * @r: the ring
 * @index: a buffer the consumer holds (from hf_xdma_ring_wait())
 *
 * The engine uses buffers in ring order, so credits go back in ring order
 * too: a buffer released before the ones ahead of it waits for them, and
 * releasing the oldest returns it and every released one after it in one
 * register write.
 *
 * Return: 0, -EINVAL when the consumer does not hold @index.
 */
int hf_xdma_ring_release(struct hf_xdma_ring *r, u32 index)
{
	if (!r->e || index >= r->n || r->state[index] != XDMA_RING_HELD)
		return -EINVAL;
	r->state[index] = XDMA_RING_RELEASED;
	if (r->running)
		hf_xdma_ring_credit(r);
	return 0;
}

/**
 * hf_xdma_ring_held() - whether the consumer holds buffer @index.
 * @r: the ring
 * @index: the buffer
 *
 * Return: true when hf_xdma_ring_wait() gave it and it is not released.
 */
bool hf_xdma_ring_held(const struct hf_xdma_ring *r, u32 index)
{
	return index < r->n && r->state[index] == XDMA_RING_HELD;
}

/**
 * hf_xdma_ring_ready() - whether a wait would take a buffer at once.
 * @r: the ring; its calls are serialised by the caller
 * @res: the error's code and text (may be NULL)
 *
 * For poll(): looks at the head buffer's writeback slot (no register);
 * when it is not there yet, in interrupt mode, reads the read-to-clear
 * status once (as a wait that sleeps does, so the next completion raises
 * a new interrupt; shared vector: enables the channel's interrupt again)
 * and looks again.  Takes nothing: the buffer stays for
 * hf_xdma_ring_wait().
 *
 * Return: 1 when a completed buffer waits, 0 when none does, -EIO (the
 * engine stopped on an error, now or earlier), -ENODEV (card gone),
 * -EINVAL (not running).
 */
int hf_xdma_ring_ready(struct hf_xdma_ring *r, struct hf_xdma_result *res)
{
	struct hf_xdma_result local;
	u32 st;
	int ret;

	res = hf_xdma_ring_res(res, &local);
	if (!r->e || !r->running)
		return -EINVAL;
	if (r->failed)
		return hf_xdma_ring_fail(r, res, -EIO,
					 "stream engine stopped earlier");
	if (READ_ONCE(r->e->xdev->gone))
		return hf_xdma_ring_fail(r, res, -ENODEV, "card removed");
	st = le32_to_cpu(READ_ONCE(hf_xdma_ring_slot(r, r->head)[0]));
	if (hf_xdma_ring_wb_done(st))
		return 1;
	if (r->e->poll)
		return 0;
	ret = hf_xdma_ring_check(r, res);
	if (ret)
		return ret;
	st = le32_to_cpu(READ_ONCE(hf_xdma_ring_slot(r, r->head)[0]));
	return hf_xdma_ring_wb_done(st);
}

/**
 * hf_xdma_ring_stop() - stop a ring and prove its engine idle.
 * @r: the ring
 * @res: the outcome (may be NULL)
 *
 * Clears Run and halts the descriptor fetch, then waits until the engine
 * is proven idle as the stop path of hf_xdma_engine_run() does (the
 * descriptor in progress ends with what it got: a card keeps writing after
 * software gives up), turns credit mode off and clears the status.
 * Buffers completed but not taken are forgotten, after a look at whether
 * the stop cut a frame (@e->st_cut: the next ring skips its rest).  Only
 * after a return of 0 may the buffers, descriptors and writebacks be
 * freed.  A stopped ring may be started again.
 *
 * Return: 0 (also when not running); -EBUSY when the engine could not be
 * proven idle, -ENODEV when the card reads all ones (no proof either):
 * both wedge the engine (keep every buffer; @res->wedged).
 */
int hf_xdma_ring_stop(struct hf_xdma_ring *r, struct hf_xdma_result *res)
{
	struct hf_xdma_engine *e = r->e;
	struct hf_xdma_result local;
	u32 status, i, k, len;
	bool eop;
	int ret;

	res = hf_xdma_ring_res(res, &local);
	if (!e || !r->running)
		return 0;
	ret = hf_xdma_engine_stop(e, NULL, r->buf_size, &status);
	res->status = status;
	e->prog_valid = false;
	e->stale = true;
	if (ret == -EBUSY) {
		res->wedged = true;
		return hf_xdma_ring_err(res, -EBUSY,
					snprintf(res->msg, sizeof(res->msg),
						 "C2H%u: stream engine did not stop (status 0x%08x): channel wedged, its buffers stay allocated",
						 e->ch, status));
	}
	if (ret) {
		/* all ones proves nothing: the engine may still be writing */
		res->wedged = true;
		return hf_xdma_ring_fail(r, res, ret,
					 "card not responding (reads all ones): channel wedged, its buffers stay allocated");
	}
	r->running = false;
	hf_xdma_common_wr(e, XDMA_SGDMA_COMMON_CREDIT_W1C,
			  XDMA_SGDMA_CREDIT_C2H(e->ch));
	hf_xdma_rd(e, XDMA_CHAN_STATUS_RC);
	/* what landed before the engine went idle: was a frame cut? */
	for (i = r->head, k = r->held;
	     k < r->n && hf_xdma_ring_slot_take(r, i, &len, &eop);
	     i = hf_xdma_ring_next(r, i), k++) {
		e->st_cut = !eop;
		r->stats.dropped_at_stop++;
	}
	memset(r->state, XDMA_RING_ENGINE, sizeof(r->state));
	r->held = 0;
	return 0;
}

/**
 * hf_xdma_ring_slot_of() - the buffer a sequence number lands in.
 * @r: the ring, running (any thread: reads only what is published)
 * @sequence: a buffer's sequence (struct hf_xdma_ring_buf.sequence, the
 *	buffers completed before it, skipped ones not counted)
 * @index: receives the buffer
 *
 * Buffer q of the ring (counting skipped ones) lands in buffer q % n.  Its
 * slot tells its completion only while it is the next use of that buffer:
 * from when the buffer before it in that slot (q - n) went back to the
 * engine until its own credit goes back (which clears the slot).
 *
 * Return: 0; -EAGAIN while the ring skips the rest of a frame cut by the
 * last stop (the mapping is not known yet); -ERANGE when @sequence's
 * buffer went back to the engine already (its slot belongs to a later
 * one) or lies a whole ring or more ahead of the releases (its slot still
 * shows an earlier buffer's writeback).
 */
int hf_xdma_ring_slot_of(const struct hf_xdma_ring *r, u64 sequence,
			 u32 *index)
{
	u64 skip = READ_ONCE(r->seq_skip);
	u64 credited = READ_ONCE(r->credited);
	u64 q;

	if (skip == ~0ull)
		return -EAGAIN;
	q = sequence + skip;
	if (q < sequence || q < credited || q - credited >= r->n)
		return -ERANGE;
	*index = (u32)(q % r->n);
	return 0;
}

/**
 * hf_xdma_ring_mark_error() - end every wait on a slot the engine will
 *	not complete any more.
 * @r: the ring, stopped (or failed, or wedged)
 *
 * Each slot still clear gets the writeback magic with
 * XDMA_RING_WB_ERROR and length 0, so a GPU waiting for the magic goes
 * on and sees from the bit that no data came; slots the engine completed
 * keep their writeback.
 */
void hf_xdma_ring_mark_error(struct hf_xdma_ring *r)
{
	u32 i, mark = FIELD_PREP(XDMA_STM_WB_MAGIC, XDMA_STM_WB_MAGIC_VALUE) |
		      XDMA_RING_WB_ERROR;
	__le32 *slot;

	if (!r->wb)
		return;
	for (i = 0; i < r->n; i++) {
		slot = hf_xdma_ring_slot(r, i);
		if (READ_ONCE(slot[0]))
			continue;
		WRITE_ONCE(slot[1], 0);
		/* the length before the status a waiter looks at */
		mb();
		WRITE_ONCE(slot[0], cpu_to_le32(mark));
	}
	/* the marks out before the ring's memory changes hands */
	mb();
}
