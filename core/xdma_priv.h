/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xdma_priv.h - what the files of the engine core share, and nobody else:
 * the poll-mode timing, the scatter-list walk and descriptor block rule
 * (xdma_chain.c and the rings of xdma_ring.c), the register accessors of an
 * engine and the engine calls a ring makes (xdma_engine.c).  The small
 * helpers are static inline so that every file's hot path is compiled as
 * when the core was one file.
 */
#ifndef HF_XDMA_PRIV_H
#define HF_XDMA_PRIV_H

#include "xdma_engine.h"

/* Poll mode: spin this long before sleeping between writeback checks. */
#define XDMA_POLL_SPIN_NS		50000ull
/* Poll mode: first and longest sleep between writeback checks. */
#define XDMA_POLL_SLEEP_MIN_US		2u
#define XDMA_POLL_SLEEP_MAX_US		100u
/* Poll mode: while sleeping, look at the status register this often. */
#define XDMA_POLL_HEALTH_NS		2000000ull
/* Descriptors per adjacent block (Nxt_adj is at most 63). */
#define XDMA_DESC_BLOCK_MAX		(XDMA_DESC_MAX_ADJ + 1)

/* Interrupt enable mask: every error plus the stop and completion events. */
#define XDMA_IRQ_MASK_BITS						\
	(XDMA_STAT_ERR_MASK | XDMA_STAT_DESC_STOPPED |			\
	 XDMA_STAT_DESC_COMPLETED)

/**
 * struct hf_xdma_sg_iter - walks bytes [offset, offset + len) of a scatter list
 *	as runs of physically contiguous bus addresses.
 * @sg: the list
 * @nsg: number of entries
 * @idx: entry holding the next byte
 * @skip: bytes of entry @idx already consumed
 * @left: bytes still to walk
 */
struct hf_xdma_sg_iter {
	const struct hf_sg *sg;
	u32 nsg;
	u32 idx;
	u64 skip;
	u64 left;
};

/**
 * hf_xdma_sg_check() - validate a scatter list and a byte range of it.
 * @sg: the list
 * @nsg: number of entries
 * @offset: first byte of the range
 * @len: length of the range
 *
 * Every entry must be non-empty and must not wrap the 64-bit bus address
 * space; the range must be non-empty and lie within the list.
 *
 * Return: 0, or -EINVAL.
 */
static inline int hf_xdma_sg_check(const struct hf_sg *sg, u32 nsg, u64 offset, u64 len)
{
	u64 total = 0;
	u32 i;

	if (!sg || !nsg || !len)
		return -EINVAL;
	if (offset + len < offset)
		return -EINVAL;
	for (i = 0; i < nsg; i++) {
		if (!sg[i].len || sg[i].addr + sg[i].len - 1 < sg[i].addr)
			return -EINVAL;
		if (total + sg[i].len < total)
			return -EINVAL;
		total += sg[i].len;
		if (total >= offset + len)
			return 0;
	}
	return -EINVAL;
}

/**
 * hf_xdma_sg_iter_start() - position an iterator at byte @offset of a list.
 * @it: the iterator
 * @sg: the list (already validated with hf_xdma_sg_check())
 * @nsg: number of entries
 * @offset: first byte
 * @len: bytes to walk
 */
static inline void hf_xdma_sg_iter_start(struct hf_xdma_sg_iter *it,
					 const struct hf_sg *sg, u32 nsg,
					 u64 offset, u64 len)
{
	it->sg = sg;
	it->nsg = nsg;
	it->idx = 0;
	while (offset >= sg[it->idx].len) {
		offset -= sg[it->idx].len;
		it->idx++;
	}
	it->skip = offset;
	it->left = len;
}

/**
 * hf_xdma_sg_next_run() - the next physically contiguous run of the range.
 * @it: the iterator
 * @addr: bus address of the run's first byte
 *
 * Adjacent entries whose bus addresses follow each other are merged into one
 * run, whatever page or 4 KiB boundaries they cross.
 *
 * Return: length of the run in bytes, 0 when the range is exhausted.
 */
static inline u64 hf_xdma_sg_next_run(struct hf_xdma_sg_iter *it, u64 *addr)
{
	u64 run = 0, take;

	while (it->left && it->idx < it->nsg) {
		const struct hf_sg *s = &it->sg[it->idx];
		u64 a = s->addr + it->skip;

		if (run && *addr + run != a)
			break;
		if (!run)
			*addr = a;
		take = min(s->len - it->skip, it->left);
		run += take;
		it->left -= take;
		it->skip += take;
		if (it->skip == s->len) {
			it->idx++;
			it->skip = 0;
		}
	}
	return run;
}

/**
 * hf_xdma_block_end() - last descriptor of the adjacent block starting at @start.
 * @bus: bus address of descriptor 0
 * @start: first descriptor of the block
 * @n: descriptors in the chain
 *
 * A block holds at most 64 descriptors and never crosses a 4 KiB boundary of
 * the descriptor bus addresses (PG195; the engine fetches a block in one
 * read request).
 *
 * Return: index of the block's last descriptor.
 */
static inline u32 hf_xdma_block_end(u64 bus, u32 start, u32 n)
{
	u64 at = bus + (u64)start * XDMA_DESC_SIZE;
	u32 in_page = at & (XDMA_DESC_BLOCK_BOUNDARY - 1);
	u32 room = (XDMA_DESC_BLOCK_BOUNDARY - in_page) / XDMA_DESC_SIZE;

	room = min_t(u32, room, XDMA_DESC_BLOCK_MAX);
	room = min_t(u32, room, n - start);
	return start + room - 1;
}

static inline u32 hf_xdma_rd(const struct hf_xdma_engine *e, u32 off)
{
	return hf_ioread32(e->xdev->bar, e->base + off);
}

static inline void hf_xdma_wr(const struct hf_xdma_engine *e, u32 off, u32 val)
{
	hf_iowrite32(val, e->xdev->bar, e->base + off);
}

static inline void hf_xdma_sg_wr(const struct hf_xdma_engine *e, u32 off, u32 val)
{
	hf_iowrite32(val, e->xdev->bar, e->sgdma_base + off);
}

static inline void hf_xdma_irq_wr(const struct hf_xdma_engine *e, u32 off, u32 val)
{
	hf_iowrite32(val, e->xdev->bar, XDMA_IRQ_BASE + off);
}

/**
 * hf_xdma_msg_end() - mark a truncated result text.
 * @res: the result
 * @n: what snprintf() returned for @res->msg
 */
static inline void hf_xdma_msg_end(struct hf_xdma_result *res, int n)
{
	if (n >= (int)sizeof(res->msg))
		memcpy(res->msg + sizeof(res->msg) - 4, "...", 4);
}

/**
 * hf_xdma_deadline() - the end of a wait.
 * @start: when it began (hf_os_now_ns())
 * @timeout_ns: how long it may last
 *
 * Return: @start + @timeout_ns, or the last nanosecond when the sum wraps.
 */
static inline u64 hf_xdma_deadline(u64 start, u64 timeout_ns)
{
	u64 deadline = start + timeout_ns;

	return deadline < start ? ~0ull : deadline;
}

/**
 * hf_xdma_engine_ended() - whether the run of @e must end now.
 * @e: the engine
 *
 * Return: -ENODEV when the card is being removed, -ECANCELED when the run
 * was cancelled, else 0.
 */
static inline int hf_xdma_engine_ended(const struct hf_xdma_engine *e)
{
	if (unlikely(READ_ONCE(e->xdev->gone)))
		return -ENODEV;
	if (unlikely(READ_ONCE(e->cancel)))
		return -ECANCELED;
	return 0;
}

int hf_xdma_engine_stop(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
			u64 desc_len, u32 *status);
int hf_xdma_engine_wedged_msg(struct hf_xdma_engine *e,
			      struct hf_xdma_result *res);

#endif /* HF_XDMA_PRIV_H */
