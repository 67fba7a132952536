// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xdma_chain.c - descriptor chains of the engine core (XDMA IP, PG195): a
 * byte range of a scatter list walked as runs of contiguous bus addresses
 * and written as 32-byte descriptors in adjacent blocks, for the runs of
 * xdma_engine.c (card addresses linear, or wrapping inside a window for
 * Xilinx's aperture ioctls).  It never allocates: descriptor storage
 * belongs to the caller.
 */
#include "xdma_priv.h"

/* Longest chain whose count the writeback word and registers can report. */
#define XDMA_CHAIN_MAX			XDMA_WB_COUNT

/* ------------------------------------------------------------------------ */
/* Scatter lists and descriptor chains                                      */
/* ------------------------------------------------------------------------ */

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

/**
 * hf_xdma_chain_cache_build() - build a cache's chain for a range.
 * @cc: the cache, its chain with storage from hf_xdma_chain_init()
 * @dir: direction
 * @sg: scatter list
 * @nsg: its entries
 * @off: first byte of the range within the list
 * @len: length of the range
 * @card: card address of its first byte
 *
 * Return: 0, the cache then holds the range; or as hf_xdma_chain_build(),
 * the cache then holds nothing.
 */
int hf_xdma_chain_cache_build(struct hf_xdma_chain_cache *cc,
			      enum hf_xdma_dir dir, const struct hf_sg *sg,
			      u32 nsg, u64 off, u64 len, u64 card)
{
	int ret;

	cc->valid = false;
	ret = hf_xdma_chain_build(&cc->chain, dir, sg, nsg, off, len, card);
	if (ret)
		return ret;
	cc->off = off;
	cc->len = len;
	cc->card = card;
	cc->valid = true;
	return 0;
}
