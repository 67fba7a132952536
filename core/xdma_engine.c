// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xdma_engine.c - the OS-neutral engine core of the XDMA IP (PG195) in AXI
 * memory-mapped mode: descriptor chains and the SGDMA engine start, wait,
 * stop and error-decode logic.
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
 * This file is compiled unchanged into hellofpga.ko and into libhellofpga;
 * everything it needs from its surroundings comes from hf_os.h.  It never
 * allocates: descriptor storage and the writeback word belong to the caller.
 */
#include "xdma_engine.h"

/* Poll mode: spin this long before sleeping between writeback checks. */
#define XDMA_POLL_SPIN_NS		50000ull
/* Poll mode: first and longest sleep between writeback checks. */
#define XDMA_POLL_SLEEP_MIN_US		2u
#define XDMA_POLL_SLEEP_MAX_US		100u
/* Poll mode: while sleeping, look at the status register this often. */
#define XDMA_POLL_HEALTH_NS		2000000ull
/* Idle proof of a stopped engine: first and longest sleep between looks. */
#define XDMA_STOP_SLEEP_MIN_US		10u
#define XDMA_STOP_SLEEP_MAX_US		1000u
/* Idle proof: an engine with Busy clear must keep its count this long. */
#define XDMA_STOP_STABLE_US		20u
/* Idle proof: margin over the link time of the descriptor in progress. */
#define XDMA_STOP_LINK_MARGIN		2ull
/* Descriptors per adjacent block (Nxt_adj is at most 63). */
#define XDMA_DESC_BLOCK_MAX		(XDMA_DESC_MAX_ADJ + 1)
/* Longest chain whose count the writeback word and registers can report. */
#define XDMA_CHAIN_MAX			XDMA_WB_COUNT

/* Interrupt enable mask: every error plus the stop and completion events. */
#define XDMA_IRQ_MASK_BITS						\
	(XDMA_STAT_ERR_MASK | XDMA_STAT_DESC_STOPPED |			\
	 XDMA_STAT_DESC_COMPLETED)

static const char * const hf_xdma_dir_name[] = {
	[XDMA_H2C] = "H2C",
	[XDMA_C2H] = "C2H",
};

/* ------------------------------------------------------------------------ */
/* Scatter lists and descriptor chains                                      */
/* ------------------------------------------------------------------------ */

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
static int hf_xdma_sg_check(const struct hf_sg *sg, u32 nsg, u64 offset, u64 len)
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
static void hf_xdma_sg_iter_start(struct hf_xdma_sg_iter *it, const struct hf_sg *sg,
				  u32 nsg, u64 offset, u64 len)
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
static u64 hf_xdma_sg_next_run(struct hf_xdma_sg_iter *it, u64 *addr)
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
 * hf_xdma_chain_count() - number of descriptors a byte range of a list needs.
 * @sg: scatter list of bus-address segments
 * @nsg: number of entries in @sg
 * @offset: first byte of the range within the list
 * @len: length of the range in bytes
 *
 * Physically contiguous neighbours are merged; a run longer than
 * XDMA_DESC_MAX_LEN is split into descriptors of at most that length.
 *
 * Return: the number of descriptors, -EINVAL for an empty range, a range
 * beyond the end of the list, an empty list, a NULL list or an empty or
 * wrapping entry, -E2BIG when the chain would exceed what the engine counts.
 */
int hf_xdma_chain_count(const struct hf_sg *sg, u32 nsg, u64 offset, u64 len)
{
	struct hf_xdma_sg_iter it;
	u64 n = 0, run, addr;
	int ret;

	ret = hf_xdma_sg_check(sg, nsg, offset, len);
	if (ret)
		return ret;
	hf_xdma_sg_iter_start(&it, sg, nsg, offset, len);
	while ((run = hf_xdma_sg_next_run(&it, &addr)) != 0)
		n += DIV_ROUND_UP(run, (u64)XDMA_DESC_MAX_LEN);
	if (n > XDMA_CHAIN_MAX)
		return -E2BIG;
	return (int)n;
}

/**
 * hf_xdma_chain_init() - give a chain its descriptor storage.
 * @c: the chain
 * @cpu: CPU address of the storage (DMA-coherent)
 * @bus: bus address of the storage
 * @capacity: number of 32-byte descriptors the storage holds
 *
 * The engine requires descriptors aligned to 32 bytes; storage that is not
 * (at its CPU or bus address) gets capacity 0, so every build of the chain
 * fails with -ENOSPC.
 */
void hf_xdma_chain_init(struct hf_xdma_chain *c, void *cpu, u64 bus, u32 capacity)
{
	memset(c, 0, sizeof(*c));
	if (!cpu || !IS_ALIGNED((unsigned long)cpu, XDMA_DESC_SIZE) ||
	    !IS_ALIGNED(bus, (u64)XDMA_DESC_SIZE))
		return;
	c->desc = cpu;
	c->bus = bus;
	c->capacity = capacity;
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
static u32 hf_xdma_block_end(u64 bus, u32 start, u32 n)
{
	u64 at = bus + (u64)start * XDMA_DESC_SIZE;
	u32 in_page = at & (XDMA_DESC_BLOCK_BOUNDARY - 1);
	u32 room = (XDMA_DESC_BLOCK_BOUNDARY - in_page) / XDMA_DESC_SIZE;

	room = min_t(u32, room, XDMA_DESC_BLOCK_MAX);
	room = min_t(u32, room, n - start);
	return start + room - 1;
}

/**
 * hf_xdma_desc_put() - write descriptor @i of a chain of @n.
 * @c: the chain
 * @i: index of the descriptor
 * @n: descriptors of the chain
 * @blk_end: last descriptor of the adjacent block @i is in; advanced when
 *	@i + 1 starts the next block
 * @dir: direction
 * @bus: bus address of the descriptor's first byte
 * @card: card address of its first byte
 * @len: its length
 *
 * Links it to descriptor @i + 1 with the Nxt_adj count of the block, or
 * marks it the last one (Stop, Completed, EOP, no next pointer).
 */
static void hf_xdma_desc_put(struct hf_xdma_chain *c, u32 i, u32 n, u32 *blk_end,
			     enum hf_xdma_dir dir, u64 bus, u64 card, u32 len)
{
	u32 ctrl = FIELD_PREP(XDMA_DESC_CTRL_MAGIC, XDMA_DESC_MAGIC);
	u64 src = dir == XDMA_H2C ? bus : card;
	u64 dst = dir == XDMA_H2C ? card : bus;
	u64 next = 0;

	if (i + 1 < n) {
		if (i + 1 > *blk_end)
			*blk_end = hf_xdma_block_end(c->bus, i + 1, n);
		ctrl |= FIELD_PREP(XDMA_DESC_CTRL_NXT_ADJ, *blk_end - (i + 1));
		next = c->bus + (u64)(i + 1) * XDMA_DESC_SIZE;
	} else {
		ctrl |= XDMA_DESC_CTRL_STOP | XDMA_DESC_CTRL_COMPLETED |
			XDMA_DESC_CTRL_EOP;
	}
	hf_xdma_desc_pack(&c->desc[i], ctrl, len, src, dst, next);
}

/**
 * hf_xdma_win_take() - length of the next descriptor of a run in a window.
 * @run: bytes left of the physically contiguous run
 * @win_size: window size, > 0
 * @win_off: offset in the window of the run's next byte; advanced past the
 *	descriptor, back to 0 at the end of the window
 *
 * Return: the descriptor's length: the run, cut at XDMA_DESC_MAX_LEN and
 * at the end of the window.
 */
static u64 hf_xdma_win_take(u64 run, u64 win_size, u64 *win_off)
{
	u64 take = min_t(u64, run, XDMA_DESC_MAX_LEN);

	take = min_t(u64, take, win_size - *win_off);
	*win_off += take;
	if (*win_off == win_size)
		*win_off = 0;
	return take;
}

/**
 * hf_xdma_chain_fill() - write the @n descriptors of a checked range.
 * @c: the chain, with room for @n descriptors
 * @dir: XDMA_H2C or XDMA_C2H
 * @sg: scatter list of bus-address segments
 * @nsg: number of entries in @sg
 * @offset: first byte of the range within the list
 * @len: length of the range in bytes
 * @n: its descriptors, as hf_xdma_chain_count_window() counts them
 * @card: card address of the first byte, or of the window (@win_size > 0)
 * @win_size: window size; 0: card addresses advance linearly from @card
 * @win_off: offset in the window of the range's first byte
 */
static void hf_xdma_chain_fill(struct hf_xdma_chain *c, enum hf_xdma_dir dir,
			       const struct hf_sg *sg, u32 nsg, u64 offset,
			       u64 len, u32 n, u64 card, u64 win_size,
			       u64 win_off)
{
	struct hf_xdma_sg_iter it;
	u64 run, addr, take, at;
	u32 i = 0, blk_end;

	c->card_addr = card + win_off;
	blk_end = hf_xdma_block_end(c->bus, 0, n);
	c->first_adj = blk_end;
	hf_xdma_sg_iter_start(&it, sg, nsg, offset, len);
	while ((run = hf_xdma_sg_next_run(&it, &addr)) != 0) {
		while (run) {
			if (win_size) {
				at = card + win_off;
				take = hf_xdma_win_take(run, win_size, &win_off);
			} else {
				at = card;
				take = min_t(u64, run, XDMA_DESC_MAX_LEN);
				card += take;
			}
			hf_xdma_desc_put(c, i++, n, &blk_end, dir, addr, at,
					 (u32)take);
			addr += take;
			run -= take;
		}
	}
	c->count = n;
	c->bytes = len;
	c->dir = dir;
}

/**
 * hf_xdma_chain_build() - write the descriptors of a transfer.
 * @c: the chain, with storage from hf_xdma_chain_init()
 * @dir: XDMA_H2C (bus -> card) or XDMA_C2H (card -> bus)
 * @sg: scatter list of bus-address segments
 * @nsg: number of entries in @sg
 * @offset: first byte of the range within the list
 * @len: length of the range in bytes
 * @card_addr: card (AXI) address of the range's first byte; card addresses
 *	advance contiguously
 *
 * Allocates nothing and may be called again on a built chain (re-targeting
 * a pinned buffer).  Descriptor i is linked to descriptor i + 1 at
 * @c->bus + 32 * (i + 1); the last one has Stop, Completed and EOP and a next
 * pointer of 0.  The Nxt_adj field of descriptor i counts the descriptors
 * after descriptor i + 1 in the same adjacent block, @c->first_adj those
 * after descriptor 0 (see hf_xdma_block_end()).
 *
 * On failure the chain is left unusable (count 0).
 *
 * Return: 0, -EINVAL (bad range or list, see hf_xdma_chain_count(), or a bad
 * direction), -E2BIG, -EOVERFLOW when the card range wraps the 64-bit
 * address space, -ENOSPC when the storage holds too few descriptors.
 */
int hf_xdma_chain_build(struct hf_xdma_chain *c, enum hf_xdma_dir dir,
			const struct hf_sg *sg, u32 nsg, u64 offset, u64 len,
			u64 card_addr)
{
	int ret;

	c->count = 0;
	c->bytes = 0;
	if (dir != XDMA_H2C && dir != XDMA_C2H)
		return -EINVAL;
	ret = hf_xdma_chain_count(sg, nsg, offset, len);
	if (ret < 0)
		return ret;
	if (len - 1 > ~0ull - card_addr)
		return -EOVERFLOW;
	if (!c->desc || (u32)ret > c->capacity)
		return -ENOSPC;
	hf_xdma_chain_fill(c, dir, sg, nsg, offset, len, ret, card_addr, 0, 0);
	return 0;
}

/**
 * hf_xdma_chain_count_window() - descriptors of a range whose card addresses
 *	wrap inside a window.
 * @sg: scatter list of bus-address segments
 * @nsg: number of entries in @sg
 * @offset: first byte of the range within the list
 * @len: length of the range in bytes
 * @win_size: size of the card address window in bytes; 0 for none (card
 *	addresses advance linearly: hf_xdma_chain_count())
 * @win_off: offset in the window that the range's first byte goes to,
 *	below @win_size
 *
 * As hf_xdma_chain_count(), and a descriptor also ends where the window ends:
 * the byte after it goes to the window's first address again.
 *
 * Return: the number of descriptors; -EINVAL for a bad range or list (see
 * hf_xdma_chain_count()) or @win_off outside the window; -E2BIG when the
 * chain would exceed what the engine counts.
 */
int hf_xdma_chain_count_window(const struct hf_sg *sg, u32 nsg, u64 offset,
			       u64 len, u64 win_size, u64 win_off)
{
	struct hf_xdma_sg_iter it;
	u64 n = 0, run, addr;
	int ret;

	if (!win_size)
		return hf_xdma_chain_count(sg, nsg, offset, len);
	if (win_off >= win_size)
		return -EINVAL;
	ret = hf_xdma_sg_check(sg, nsg, offset, len);
	if (ret)
		return ret;
	hf_xdma_sg_iter_start(&it, sg, nsg, offset, len);
	while ((run = hf_xdma_sg_next_run(&it, &addr)) != 0) {
		while (run) {
			run -= hf_xdma_win_take(run, win_size, &win_off);
			if (++n > XDMA_CHAIN_MAX)
				return -E2BIG;
		}
	}
	return (int)n;
}

/**
 * hf_xdma_chain_build_window() - write the descriptors of a transfer whose card
 *	addresses wrap inside a window (Xilinx's "aperture" transfers).
 * @c: the chain, with storage from hf_xdma_chain_init()
 * @dir: XDMA_H2C (bus -> card) or XDMA_C2H (card -> bus)
 * @sg: scatter list of bus-address segments
 * @nsg: number of entries in @sg
 * @offset: first byte of the range within the list
 * @len: length of the range in bytes
 * @win_base: card (AXI) address of the window's first byte
 * @win_size: size of the window; 0 for none: the range goes to card
 *	addresses @win_base + @win_off onwards, as hf_xdma_chain_build() does
 * @win_off: offset in the window that the range's first byte goes to,
 *	below @win_size
 *
 * Byte i of the range goes to card address
 * @win_base + (@win_off + i) mod @win_size: descriptors are split where
 * the window ends, and the next one starts at @win_base again.  Links,
 * adjacent counts and the flags of the last descriptor are as
 * hf_xdma_chain_build() makes them; @c->card_addr is the card address of the
 * first byte.  Allocates nothing; on failure the chain is left unusable.
 *
 * Return: 0; -EINVAL (bad range or list, bad direction, @win_off outside
 * the window), -E2BIG, -EOVERFLOW when the window (or, without one, the
 * card range) wraps the 64-bit address space, -ENOSPC when the storage
 * holds too few descriptors.
 */
int hf_xdma_chain_build_window(struct hf_xdma_chain *c, enum hf_xdma_dir dir,
			       const struct hf_sg *sg, u32 nsg, u64 offset,
			       u64 len, u64 win_base, u64 win_size, u64 win_off)
{
	int ret;

	if (!win_size) {
		if (win_off > ~0ull - win_base)
			return -EOVERFLOW;
		return hf_xdma_chain_build(c, dir, sg, nsg, offset, len,
					   win_base + win_off);
	}
	c->count = 0;
	c->bytes = 0;
	if (dir != XDMA_H2C && dir != XDMA_C2H)
		return -EINVAL;
	ret = hf_xdma_chain_count_window(sg, nsg, offset, len, win_size, win_off);
	if (ret < 0)
		return ret;
	if (win_size - 1 > ~0ull - win_base)
		return -EOVERFLOW;
	if (!c->desc || (u32)ret > c->capacity)
		return -ENOSPC;
	hf_xdma_chain_fill(c, dir, sg, nsg, offset, len, ret, win_base, win_size,
			   win_off);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Card probe                                                               */
/* ------------------------------------------------------------------------ */

/**
 * hf_xdma_id_is_channel() - whether an identifier is a channel of one kind.
 * @id: identifier register value
 * @target: expected target (XDMA_TARGET_H2C or XDMA_TARGET_C2H)
 * @stream: the kind: AXI-Stream (true) or AXI memory-mapped (false)
 *
 * Return: true for an XDMA channel of @target with that interface.
 */
static bool hf_xdma_id_is_channel(u32 id, u32 target, bool stream)
{
	return FIELD_GET(XDMA_ID_SUBSYSTEM, id) == XDMA_ID_SUBSYSTEM_VALUE &&
	       FIELD_GET(XDMA_ID_TARGET, id) == target &&
	       !!(id & XDMA_ID_STREAM) == stream;
}

/**
 * hf_xdma_probe_dir() - count the channels of one direction.
 * @bar: the DMA/config BAR
 * @target: XDMA_TARGET_H2C or XDMA_TARGET_C2H
 * @stream: count channels of this kind (AXI-Stream or memory-mapped)
 * @num: channels found (contiguous from channel 0)
 * @first_id: identifier of channel 0
 *
 * Return: 0, or -ENODEV when a read returns all ones.
 */
static int hf_xdma_probe_dir(const struct hf_mmio *bar, u32 target,
			     bool stream, u32 *num, u32 *first_id)
{
	u32 ch, id;

	*num = 0;
	*first_id = 0;
	for (ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
		id = hf_ioread32(bar, XDMA_BLOCK_BASE(target, ch) + XDMA_ID);
		if (id == XDMA_ID_DEAD)
			return -ENODEV;
		if (!ch)
			*first_id = id;
		if (!hf_xdma_id_is_channel(id, target, stream))
			break;
		*num = ch + 1;
	}
	return 0;
}

/**
 * hf_xdma_dev_probe() - identify the XDMA IP behind a BAR and count its channels.
 * @xdev: filled in
 * @bar: the mapped DMA/config BAR
 *
 * Reads the identifier of H2C and C2H channels 0 to 3.  A channel is present
 * when its identifier has subsystem 0x1fc and the right target.  The card's
 * kind, AXI memory-mapped or AXI-Stream (@xdev->stream), is that of H2C
 * channel 0, or of C2H channel 0 when H2C channel 0 is no XDMA channel;
 * present channels are those of that kind, contiguous from channel 0 in
 * each direction (a channel of the other kind ends the count).
 *
 * Return: 0, or -ENODEV when the card does not respond (reads all ones) or
 * has no DMA channel.
 */
int hf_xdma_dev_probe(struct hf_xdma_dev *xdev, const struct hf_mmio *bar)
{
	u32 h2c_id, c2h_id;
	bool stream;
	int ret;

	memset(xdev, 0, sizeof(*xdev));
	xdev->bar = bar;
	h2c_id = hf_ioread32(bar, XDMA_H2C_BASE(0) + XDMA_ID);
	c2h_id = hf_ioread32(bar, XDMA_C2H_BASE(0) + XDMA_ID);
	stream = hf_xdma_id_is_channel(h2c_id, XDMA_TARGET_H2C, true) ||
		 (!hf_xdma_id_is_channel(h2c_id, XDMA_TARGET_H2C, false) &&
		  hf_xdma_id_is_channel(c2h_id, XDMA_TARGET_C2H, true));
	ret = -ENODEV;
	if (h2c_id != XDMA_ID_DEAD && c2h_id != XDMA_ID_DEAD)
		ret = hf_xdma_probe_dir(bar, XDMA_TARGET_H2C, stream,
					&xdev->num_h2c, &h2c_id);
	if (!ret)
		ret = hf_xdma_probe_dir(bar, XDMA_TARGET_C2H, stream,
					&xdev->num_c2h, &c2h_id);
	if (ret) {
		hf_os_log("xdma: card not responding (reads all ones): removed or link down");
		return ret;
	}
	if (!xdev->num_h2c && !xdev->num_c2h) {
		hf_os_log("xdma: no DMA channel (H2C0 id 0x%08x, C2H0 id 0x%08x)",
			  h2c_id, c2h_id);
		return -ENODEV;
	}
	xdev->stream = stream;
	xdev->version = FIELD_GET(XDMA_ID_VERSION,
				  xdev->num_h2c ? h2c_id : c2h_id);
	return 0;
}

/**
 * hf_xdma_dev_set_vectors() - program the IRQ block's vector numbers.
 * @xdev: the card, probed
 * @chan_first: vector of engine 0 (engine order: H2C channels, then C2H)
 * @user_first: vector of user interrupt 0
 * @shared: every engine gets @chan_first and every user interrupt
 *	@user_first (one MSI vector, or INTx where 0 means INTA); otherwise
 *	engine n gets @chan_first + n and user interrupt n @user_first + n
 *	(MSI-X, or multi-vector MSI)
 */
void hf_xdma_dev_set_vectors(struct hf_xdma_dev *xdev, u32 chan_first,
			     u32 user_first, bool shared)
{
	u32 n = xdev->num_h2c + xdev->num_c2h;
	u32 reg = 0, i, vec;

	xdev->irq_shared = shared;

	for (i = 0; i < XDMA_MAX_ENGINES; i++) {
		vec = i < n ? (shared ? chan_first : chan_first + i) : 0;
		reg |= (vec & XDMA_IRQ_VEC_MASK) << XDMA_IRQ_VEC_SHIFT(i);
		if (i % 4 == 3) {
			hf_iowrite32(reg, xdev->bar,
				     XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(i));
			reg = 0;
		}
	}
	for (i = 0; i < XDMA_USER_IRQS; i++) {
		vec = shared ? user_first : user_first + i;
		reg |= (vec & XDMA_IRQ_VEC_MASK) << XDMA_IRQ_VEC_SHIFT(i);
		if (i % 4 == 3) {
			hf_iowrite32(reg, xdev->bar,
				     XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(i));
			reg = 0;
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Status decoding                                                          */
/* ------------------------------------------------------------------------ */

/**
 * struct hf_xdma_buf - a text buffer filled piece by piece.
 * @buf: the buffer, always NUL terminated when @len > 0
 * @len: its size
 * @pos: characters written so far (may exceed @len on truncation)
 */
struct hf_xdma_buf {
	char *buf;
	size_t len;
	size_t pos;
};

/**
 * hf_xdma_buf_add() - append a string to a buffer, separating items by ", ".
 * @b: the buffer
 * @s: the text
 */
static void hf_xdma_buf_add(struct hf_xdma_buf *b, const char *s)
{
	int n;

	if (b->pos >= b->len)
		return;
	n = snprintf(b->buf + b->pos, b->len - b->pos, "%s%s",
		     b->pos ? ", " : "", s);
	if (n > 0)
		b->pos += n;
}

/**
 * hf_xdma_buf_add_field() - append an error field with its sub-bits by name.
 * @b: the buffer
 * @what: name of the field ("read error")
 * @val: value of the field (5 bits)
 * @names: name of each sub-bit, NULL for one the field does not define
 */
static void hf_xdma_buf_add_field(struct hf_xdma_buf *b, const char *what, u32 val,
				  const char * const names[5])
{
	char tmp[160];
	size_t pos;
	u32 bit;
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s (", what);
	pos = n > 0 ? n : 0;
	for (bit = 0; bit < 5 && pos < sizeof(tmp); bit++) {
		const char *sep = bit && (val & (BIT(bit) - 1)) ? ", " : "";

		if (!(val & BIT(bit)))
			continue;
		if (names[bit])
			n = snprintf(tmp + pos, sizeof(tmp) - pos, "%s%s",
				     sep, names[bit]);
		else
			n = snprintf(tmp + pos, sizeof(tmp) - pos,
				     "%sundefined bit %u", sep, bit);
		if (n > 0)
			pos += n;
	}
	if (pos < sizeof(tmp))
		snprintf(tmp + pos, sizeof(tmp) - pos, ")");
	hf_xdma_buf_add(b, tmp);
}

static const char * const hf_xdma_h2c_read_err[5] = {
	"unsupported request reading host memory",
	"completer abort reading host memory",
	"parity error reading host memory",
	"poisoned data reading host memory",
	"unexpected completion reading host memory",
};

static const char * const hf_xdma_c2h_read_err[5] = {
	"decode error at card address",
	"slave error at card address",
};

static const char * const hf_xdma_h2c_write_err[5] = {
	"decode error at card address",
	"slave error at card address",
};

static const char * const hf_xdma_no_field[5];

static const char * const hf_xdma_desc_err[5] = {
	"unsupported request",
	"completer abort",
	"parity error",
	"poisoned header",
	"unexpected completion",
};

/**
 * hf_xdma_decode_status() - explain a channel status register value.
 * @dir: direction of the channel (the error sub-fields differ)
 * @status: value of the status register
 * @buf: receives the text, one item per bit or field set, separated by
 *	", " ("none" when no bit is set)
 * @len: size of @buf
 *
 * Return: 0 when no error bit is set, -ENODEV for an all-ones value (card
 * gone), -EIO otherwise.
 */
int hf_xdma_decode_status(enum hf_xdma_dir dir, u32 status, char *buf, size_t len)
{
	struct hf_xdma_buf b = { .buf = buf, .len = len, .pos = 0 };
	bool h2c = dir == XDMA_H2C;
	char tmp[32];
	u32 bit;

	if (len)
		buf[0] = '\0';
	if (status == XDMA_ID_DEAD) {
		hf_xdma_buf_add(&b, "card not responding (reads all ones)");
		return -ENODEV;
	}
	if (status & XDMA_STAT_BUSY)
		hf_xdma_buf_add(&b, "busy");
	if (status & XDMA_STAT_DESC_STOPPED)
		hf_xdma_buf_add(&b, "descriptor stopped");
	if (status & XDMA_STAT_DESC_COMPLETED)
		hf_xdma_buf_add(&b, "descriptor completed");
	if (status & XDMA_STAT_ALIGN_MISMATCH)
		hf_xdma_buf_add(&b, "alignment mismatch");
	if (status & XDMA_STAT_MAGIC_STOPPED)
		hf_xdma_buf_add(&b, "bad descriptor magic");
	if (status & XDMA_STAT_INVALID_LENGTH)
		hf_xdma_buf_add(&b, "invalid length");
	if (status & XDMA_STAT_IDLE_STOPPED)
		hf_xdma_buf_add(&b, "idle stopped");
	if (status & XDMA_STAT_READ_ERROR)
		hf_xdma_buf_add_field(&b, "read error",
				      FIELD_GET(XDMA_STAT_READ_ERROR, status),
				      h2c ? hf_xdma_h2c_read_err : hf_xdma_c2h_read_err);
	if (status & XDMA_STAT_WRITE_ERROR)
		hf_xdma_buf_add_field(&b, "write error",
				      FIELD_GET(XDMA_STAT_WRITE_ERROR, status),
				      h2c ? hf_xdma_h2c_write_err : hf_xdma_no_field);
	if (status & XDMA_STAT_DESC_ERROR)
		hf_xdma_buf_add_field(&b, "descriptor error",
				      FIELD_GET(XDMA_STAT_DESC_ERROR, status),
				      hf_xdma_desc_err);
	for (bit = 0; bit < 32; bit++) {
		if (!(status & BIT(bit) & ~(XDMA_STAT_BUSY |
					     XDMA_IRQ_MASK_BITS |
					     XDMA_STAT_IDLE_STOPPED)))
			continue;
		snprintf(tmp, sizeof(tmp), "reserved bit %u", bit);
		hf_xdma_buf_add(&b, tmp);
	}
	if (!b.pos)
		hf_xdma_buf_add(&b, "none");
	return status & XDMA_STAT_ERR_MASK ? -EIO : 0;
}

/* ------------------------------------------------------------------------ */
/* Engines                                                                  */
/* ------------------------------------------------------------------------ */

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
static int hf_xdma_engine_stop(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
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
	u64 deadline = start + timeout_ns, health = 0;
	u32 sleep_us = XDMA_POLL_SLEEP_MIN_US;
	u32 status;
	int wb;

	if (deadline < start)
		deadline = ~0ull;
	for (;;) {
		if (unlikely(READ_ONCE(e->xdev->gone)))
			return -ENODEV;
		if (unlikely(READ_ONCE(e->cancel)))
			return -ECANCELED;
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
	u64 deadline = start + timeout_ns, now;
	u32 status;
	int ret;

	if (deadline < start)
		deadline = ~0ull;
	for (;;) {
		now = hf_os_now_ns();
		ret = hf_os_event_wait(&e->irq_event,
				       deadline > now ? deadline - now : 0);
		if (unlikely(READ_ONCE(e->xdev->gone)))
			return -ENODEV;
		if (unlikely(READ_ONCE(e->cancel)))
			return -ECANCELED;
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
	u64 deadline = start + timeout_ns, now, nap;
	u32 sleep_us = XDMA_POLL_SLEEP_MIN_US;
	bool early = false;
	int ret;

	if (deadline < start)
		deadline = ~0ull;
	for (;;) {
		if (unlikely(READ_ONCE(e->xdev->gone)))
			return -ENODEV;
		if (unlikely(READ_ONCE(e->cancel)))
			return -ECANCELED;
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
 * hf_xdma_msg_end() - mark a truncated result text.
 * @res: the result
 * @n: what snprintf() returned for @res->msg
 */
static void hf_xdma_msg_end(struct hf_xdma_result *res, int n)
{
	if (n >= (int)sizeof(res->msg))
		memcpy(res->msg + sizeof(res->msg) - 4, "...", 4);
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
static int hf_xdma_engine_wedged_msg(struct hf_xdma_engine *e,
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
 * Return: as hf_xdma_engine_run(); -EINVAL also for an unaligned @wb.
 */
int hf_xdma_engine_run_wb(struct hf_xdma_engine *e, const struct hf_xdma_chain *c,
			  u64 timeout_ns, __le32 *wb, u64 wb_bus,
			  struct hf_xdma_result *res)
{
	struct hf_xdma_result local;
	u32 count = c->count;
	u32 lo = lower_32_bits(c->bus), hi = upper_32_bits(c->bus);
	bool started = false, ended = false;
	u64 start, done_ns;
	u32 pre;
	u32 status;
	int ret, q;

	if (!res)
		res = &local;
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
	start = hf_os_now_ns();
	if (unlikely(READ_ONCE(e->xdev->gone))) {
		ret = -ENODEV;
	} else if (unlikely(READ_ONCE(e->cancel))) {
		ret = -ECANCELED;
	} else {
		hf_xdma_wr(e, XDMA_CHAN_CONTROL, XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL |
			   XDMA_CTRL_POLL_MODE_WB);
		started = true;
		/*
		 * A shared vector's ISR masked the channel at the last run's
		 * end; enabled now that Run has cleared the status (enabled
		 * before, the old request would fire).
		 */
		if (!e->poll && e->xdev->irq_shared)
			hf_xdma_irq_wr(e, XDMA_IRQ_CHAN_EN_W1S, BIT(e->index));
		if (e->poll)
			ret = hf_xdma_engine_wait_wb(e, count, start, timeout_ns);
		else
			ret = hf_xdma_engine_wait_irq(e, count, start,
						      timeout_ns);
		/*
		 * A caller's word is not the engine's: nothing is released on
		 * what it says (nor on a wake-up, which a late or stray
		 * interrupt can give) until the engine confirms the end.
		 */
		if (unlikely(wb) && (ret == 0 || ret == 1 || ret == -EIO))
			ret = hf_xdma_engine_wait_engine(e, count, start,
							 timeout_ns);
		/* woken by hf_xdma_engine_abort(): the card is going away */
		if (unlikely(READ_ONCE(e->xdev->gone)))
			ret = -ENODEV;
	}
	done_ns = hf_os_now_ns();
	res->elapsed_ns = done_ns - start;

	if (likely(!ret)) {
		/* what the writeback implies; no register read */
		hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
		status = XDMA_STAT_DESC_STOPPED | XDMA_STAT_DESC_COMPLETED;
	} else if (ret == 1) {
		/* stopped, no writeback: the status register decides */
		hf_xdma_wr(e, XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
		status = hf_xdma_rd(e, XDMA_CHAN_STATUS_RC);
		ret = 0;
	} else if (!started) {
		status = 0;
	} else {
		/*
		 * Had the chain already ended when the wait did (its
		 * notification lost)?  Only then may the run succeed: a chain
		 * that ends while the stop below waits for it still timed out.
		 */
		pre = hf_xdma_rd(e, XDMA_CHAN_STATUS);
		ended = pre != XDMA_ID_DEAD && !(pre & XDMA_STAT_BUSY) &&
			(pre & XDMA_STAT_DESC_STOPPED);
		/* The card may still be moving data: prove it idle first. */
		q = hf_xdma_engine_stop(e, c, 0, &status);
		if (q == -ENODEV) {
			/* all ones proves nothing: keep what it may reach */
			ret = -ENODEV;
			status = XDMA_ID_DEAD;
			res->wedged = true;
		} else if (q == -EBUSY) {
			res->wedged = true;
		} else {
			status = hf_xdma_rd(e, XDMA_CHAN_STATUS_RC);
		}
		e->stale = true;
	}
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
		if (done < count)
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
	res->completed = count;
	res->bytes = c->bytes;
	e->stats.bytes += c->bytes;
	return 0;
}

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
	deadline = start + timeout_ns;
	if (deadline < start)
		deadline = ~0ull;
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
