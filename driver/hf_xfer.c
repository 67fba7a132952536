// SPDX-License-Identifier: GPL-2.0
/*
 * Read()/write() of the h2c and c2h nodes, and the XFER ioctl (hf_ioctl.c
 * dispatches it to hf_xfer_ioctl()): segment fitting, range checks,
 * failure reports shared by both.
 *
 * A read() or write() moves the user buffer in chunks of at most
 * HF_RW_CHUNK_PAGES pages: pin the pages, build an sg table with segments
 * no longer than the DMA layer maps at once (dma_max_mapping_size(), 256 KiB
 * under swiotlb), map it, turn the DMA segments into a descriptor chain
 * (contiguous segments merge into one descriptor) in the channel's
 * coherent storage, run it, unmap and unpin.  The file position is the
 * card address and advances by the bytes moved.  Xilinx's aperture ioctls
 * (hf_xdma.c) take the same path with card addresses that wrap inside a
 * window (struct hf_card_window).
 *
 * On an AXI-Stream card a write() of an h2c node is one packet: the whole
 * buffer is pinned and chained at once (the channel's arrays grow for it),
 * so that EOP (TLAST) ends the one chain; a packet is never cut, and one
 * too long for a chain fails with -EMSGSIZE.
 *
 * An XFER moves a range of a pin (hf_pin.c) in runs of the chain the pin
 * keeps for the engine (its chain cache, rebuilt only when the range
 * changes), with the writeback word of HELLOFPGA_XFER_WB in a host pin.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "hf_drv.h"

/*
 * Window transfers: most window ends in one chunk, so that its chain
 * (a descriptor per page run and per window end) stays below
 * HF_RUN_MAX_DESC descriptors.
 */
#define HF_RW_CHUNK_WINDOWS	8192u

/**
 * hf_sg_fit() - bytes of a range that fit in a chain of @max_desc.
 * @sg: DMA segments
 * @nsg: entries
 * @offset: first byte of the range
 * @len: length of the range (within the list)
 * @max_desc: most descriptors
 *
 * Walks the range as hf_xdma_chain_count() does: contiguous segments merge,
 * runs split at XDMA_DESC_MAX_LEN.
 *
 * Return: @len when the whole range fits, else the bytes that do (> 0
 * when @max_desc > 0 and the range starts within the list).
 */
u64 hf_sg_fit(const struct hf_sg *sg, u32 nsg, u64 offset, u64 len,
	      u32 max_desc)
{
	u64 fit = 0, run = 0, next = 0, addr, take, room, t;
	u32 i, ndesc = 0;

	for (i = 0; i < nsg && fit < len; i++) {
		if (offset >= sg[i].len) {
			offset -= sg[i].len;
			continue;
		}
		addr = sg[i].addr + offset;
		take = min(sg[i].len - offset, len - fit);
		offset = 0;
		if (addr != next)
			run = 0;	/* not contiguous: a new run */
		while (take) {
			/* A run opens a descriptor every XDMA_DESC_MAX_LEN. */
			if (!(run % XDMA_DESC_MAX_LEN)) {
				if (ndesc == max_desc)
					return fit;
				ndesc++;
			}
			room = XDMA_DESC_MAX_LEN - run % XDMA_DESC_MAX_LEN;
			t = min(take, room);
			run += t;
			fit += t;
			take -= t;
			addr += t;
		}
		next = addr;
	}
	return fit;
}

/**
 * hf_card_range_ok() - whether a card address range lies in card memory.
 * @card: the card
 * @addr: card address
 * @len: bytes, > 0
 *
 * Return: true when [@addr, @addr + @len) lies below ddr_size (or does not
 * wrap, with ddr_size 0).
 */
bool hf_card_range_ok(struct hf_card *card, u64 addr, u64 len)
{
	if (addr + len < addr)
		return false;
	return !card->ddr_size || addr + len <= card->ddr_size;
}

/**
 * hf_report_run() - report a failed engine run to dmesg and the file.
 * @hf: the file
 * @chan: the engine
 * @res: the result with the engine core's decoded text
 */
void hf_report_run(struct hf_file *hf, struct hf_chan *chan,
		   const struct hf_xdma_result *res)
{
	if (res->err == -EINTR)
		dev_dbg(hf_dev(chan->card), "%s\n", res->msg);
	else
		dev_err_ratelimited(hf_dev(chan->card), "%s\n", res->msg);
	hf_set_error(hf, res->err, "%s", res->msg);
}

/**
 * hf_run_exit() - end the card access of an engine run (hf_card_exit()),
 *	a reset's or PCIe error recovery's -ENODEV turned into -EIO.
 * @chan: the engine
 * @ret: what the run returned
 * @res: its result (error and text, for hf_report_run())
 *
 * The engine core ends a run with -ENODEV when the driver aborts it
 * (hf_card_abort_runs(): the card's removal, or the start of a reset or
 * PCIe error recovery) or when the card reads all ones.  @recovering of
 * the card is set before a recovery's abort and cleared only after the
 * recovery took hw_lock for writing, so while the run still holds it for
 * reading it tells which: a run a recovery or reset cut short fails with
 * -EIO, as every access during the recovery does (and a stream's WAIT),
 * not with a removal's -ENODEV: the card stays.
 *
 * Return: @ret, or -EIO instead of a recovery's -ENODEV.
 */
int hf_run_exit(struct hf_chan *chan, int ret, struct hf_xdma_result *res)
{
	struct hf_card *card = chan->card;

	if (ret == -ENODEV && READ_ONCE(card->recovering)) {
		ret = -EIO;
		res->err = ret;
		snprintf(res->msg, sizeof(res->msg),
			 "%s: cut short by a reset or PCIe error recovery of the card after %u descriptors (see dmesg); try again",
			 hf_chan_name(chan), res->completed);
	}
	hf_card_exit(card);
	return ret;
}

/**
 * hf_rw_chan_prepare() - allocate a channel's read()/write() arrays.
 * @chan: the channel, locked
 * @npages: pages of the largest chunk or packet to come
 *
 * The arrays hold at least HF_RW_CHUNK_PAGES entries and grow for a
 * larger H2C packet.
 *
 * Return: 0 or -ENOMEM.
 */
static int hf_rw_chan_prepare(struct hf_chan *chan, u32 npages)
{
	u32 cap = max(npages, HF_RW_CHUNK_PAGES);

	lockdep_assert_held(&chan->lock);
	if (!chan->pages || chan->pages_cap < cap) {
		kvfree(chan->pages);
		chan->pages_cap = 0;
		chan->pages = kvmalloc_array(cap, sizeof(*chan->pages),
					     GFP_KERNEL);
		if (!chan->pages)
			return -ENOMEM;
		chan->pages_cap = cap;
	}
	if (!chan->sg || chan->sg_cap < cap) {
		kvfree(chan->sg);
		chan->sg_cap = 0;
		chan->sg = kvmalloc_array(cap, sizeof(*chan->sg), GFP_KERNEL);
		if (!chan->sg)
			return -ENOMEM;
		chan->sg_cap = cap;
	}
	return 0;
}

/**
 * hf_max_segment() - longest sg segment to build for the card's device.
 * @card: the card
 *
 * Return: a multiple of PAGE_SIZE, at least PAGE_SIZE.
 */
static unsigned int hf_max_segment(struct hf_card *card)
{
	size_t max = min_t(size_t, hf_dma_max_mapping_size(hf_dev(card)),
			   dma_get_max_seg_size(hf_dev(card)));

	max = min_t(size_t, max, UINT_MAX);
	max &= PAGE_MASK;
	return max_t(size_t, max, PAGE_SIZE);
}

/**
 * hf_rw_build() - the descriptor chain of a read()/write() chunk.
 * @hf: the file (its last error is set on failure)
 * @chan: the engine, locked; its @sg holds the chunk's DMA pieces
 * @nsg: entries of @chan->sg
 * @len: bytes of the chunk
 * @win: card addresses of the transfer
 * @at: bytes of the transfer before this chunk
 * @packet: an H2C packet of an AXI-Stream card (one chain or nothing)
 *
 * Return: 0 with the card entered (hf_card_exit() after the run), or a
 * negative errno; -EMSGSIZE when a packet needs more than HF_RUN_MAX_DESC
 * descriptors.
 */
static int hf_rw_build(struct hf_file *hf, struct hf_chan *chan, u32 nsg,
		       size_t len, const struct hf_card_window *win, u64 at,
		       bool packet)
{
	struct hf_card *card = chan->card;
	u64 win_off = at;
	int ret;

	if (win->size)
		div64_u64_rem(at, win->size, &win_off);
	ret = hf_xdma_chain_count_window(chan->sg, nsg, 0, len, win->size,
					 win_off);
	if (ret < 0) {
		hf_set_error(hf, ret, "descriptor chain of %zu bytes: %d", len,
			     ret);
		return ret;
	}
	if (packet && ret > HF_RUN_MAX_DESC) {
		hf_set_error(hf, -EMSGSIZE,
			     "a packet of %zu bytes needs %d descriptors, more than one chain holds (%u)",
			     len, ret, HF_RUN_MAX_DESC);
		return -EMSGSIZE;
	}
	ret = hf_desc_mem_reserve(card, &chan->mem, ret);
	if (ret) {
		hf_set_error(hf, ret, "no coherent memory for descriptors");
		return ret;
	}
	ret = hf_card_enter_for(card, hf, NULL);
	if (ret)
		return ret;
	hf_xdma_chain_init(&chan->chain, chan->mem.cpu, chan->mem.bus,
			   chan->mem.cap);
	ret = hf_xdma_chain_build_window(&chan->chain, chan->dir, chan->sg, nsg, 0,
					 len, win->base, win->size, win_off);
	if (ret) {
		hf_card_exit(card);
		hf_set_error(hf, ret, "building the descriptor chain failed: %d",
			     ret);
		return ret;
	}
	return 0;
}

/**
 * hf_rw_chunk() - move one chunk of a read() or write().
 * @hf: the file
 * @chan: the engine, locked
 * @uaddr: user address of the chunk
 * @len: its length (at most HF_RW_CHUNK_PAGES pages, a packet's at most
 *	@chan->pages_cap pages, in-page offset included)
 * @win: card addresses of the transfer
 * @at: bytes of the transfer before this chunk
 * @packet: an H2C packet of an AXI-Stream card: all of it is pinned and
 *	sent as one chain (TLAST on its last descriptor), or nothing
 * @moved: bytes moved (also on failure)
 *
 * Return: 0 or a negative errno (with the file's last error set);
 * -EMSGSIZE when a packet needs more than HF_RUN_MAX_DESC descriptors.
 */
static int hf_rw_chunk(struct hf_file *hf, struct hf_chan *chan,
		       unsigned long uaddr, size_t len,
		       const struct hf_card_window *win, u64 at, bool packet,
		       size_t *moved)
{
	struct hf_card *card = chan->card;
	struct device *dev = hf_dev(card);
	bool c2h = chan->dir == XDMA_C2H;
	enum dma_data_direction dma_dir = c2h ? DMA_FROM_DEVICE :
						DMA_TO_DEVICE;
	unsigned int off = offset_in_page(uaddr);
	unsigned int npages = DIV_ROUND_UP(off + len, PAGE_SIZE);
	struct hf_xdma_result res;
	struct sg_table sgt;
	struct scatterlist *s;
	u32 nsg = 0, i;
	int pinned, ret;

	lockdep_assert_held(&chan->lock);
	*moved = 0;
	pinned = hf_pin_user_pages_fast(uaddr & PAGE_MASK, npages,
					c2h ? FOLL_WRITE : 0, chan->pages);
	if (pinned <= 0) {
		ret = pinned ? pinned : -EFAULT;
		hf_set_error(hf, -EFAULT,
			     "cannot pin the user buffer at 0x%lx%s (%d)", uaddr,
			     c2h ? " for writing" : "", ret);
		return -EFAULT;
	}
	if (pinned < npages && packet) {
		/* a packet goes whole or not at all */
		hf_set_error(hf, -EFAULT,
			     "cannot pin the whole packet at 0x%lx: %d of %u pages",
			     uaddr, pinned, npages);
		ret = -EFAULT;
		goto unpin;
	}
	if (pinned < npages)	/* move what could be pinned */
		len = (size_t)pinned * PAGE_SIZE - off;

	ret = hf_sg_alloc_table_from_pages(&sgt, chan->pages, pinned, off, len,
					   hf_max_segment(card));
	if (ret) {
		hf_set_error(hf, ret, "no memory for an sg table of %d pages",
			     pinned);
		goto unpin;
	}
	ret = hf_dma_map_sgtable(dev, &sgt, dma_dir);
	if (ret) {
		hf_set_error(hf, ret,
			     "DMA mapping of %zu bytes of the user buffer failed (%d)",
			     len, ret);
		goto free_sgt;
	}
	for_each_sg(sgt.sgl, s, sgt.nents, i) {
		u64 a = sg_dma_address(s), l = sg_dma_len(s);

		if (nsg && chan->sg[nsg - 1].addr + chan->sg[nsg - 1].len == a) {
			chan->sg[nsg - 1].len += l;
			continue;
		}
		chan->sg[nsg].addr = a;
		chan->sg[nsg].len = l;
		nsg++;
	}

	ret = hf_rw_build(hf, chan, nsg, len, win, at, packet);
	if (ret)
		goto unmap;
	/* read()/write() runs are never cancelled: a pin's revoke may not hit */
	WRITE_ONCE(chan->engine.cancel, false);
	ret = hf_xdma_engine_run(&chan->engine, &chan->chain,
				 hf_file_timeout_ns(hf), &res);
	ret = hf_run_exit(chan, ret, &res);
	/* a wedged chunk delivered nothing one can rely on */
	*moved = res.wedged ? 0 : res.bytes;
	if (ret)
		hf_report_run(hf, chan, &res);
	if (res.wedged) {
		/* the engine may still move data: keep the pages mapped */
		hf_quarantine_rw(chan, &sgt, pinned);
		return ret;
	}
unmap:
	hf_dma_unmap_sgtable(dev, &sgt, dma_dir, 0);
free_sgt:
	sg_free_table(&sgt);
unpin:
	hf_unpin_user_pages(chan->pages, pinned, c2h);
	return ret;
}

/**
 * hf_xfer_no_stream() - refuse a memory-mapped transfer on an AXI-Stream card.
 * @hf: the file (its last error is set)
 * @card: the card
 *
 * Return: 0, or -EOPNOTSUPP when the card's channels are AXI-Stream.
 */
int hf_xfer_no_stream(struct hf_file *hf, struct hf_card *card)
{
	if (!card->xdev.stream)
		return 0;
	hf_set_error(hf, -EOPNOTSUPP, "%s", XDMA_STREAM_MM_MSG);
	return -EOPNOTSUPP;
}

/**
 * hf_chan_lock_for() - hf_chan_lock() for a transfer of an open file.
 * @hf: the file (its last error is set on failure)
 * @chan: the channel
 * @timeout_ns: how long to wait for it
 * @what: the call, the first words of the error ("XFER"), or NULL
 *
 * Return: what hf_chan_lock() returns; on failure @hf's error says why,
 * after "@what: " when @what is not NULL.
 */
static int hf_chan_lock_for(struct hf_file *hf, struct hf_chan *chan,
			    u64 timeout_ns, const char *what)
{
	int ret = hf_chan_lock(chan, timeout_ns);

	if (ret == -EBUSY)
		hf_set_error(hf, ret,
			     "%s%sthe channel stayed in use by another run until the timeout; nothing was moved",
			     what ?: "", what ? ": " : "");
	else if (ret)
		hf_set_error(hf, ret, "%s%sinterrupted waiting for the channel",
			     what ?: "", what ? ": " : "");
	return ret;
}

/**
 * hf_rw_begin() - take a channel for a read(), write() or packet.
 * @hf: the file (its last error is set on failure)
 * @chan: the engine
 * @npages: pages of the largest chunk or packet to come
 *
 * Return: 0 with the channel locked and usable, else a negative errno
 * with the channel unlocked: -EBUSY, -EINTR, -ENODEV, -EIO, -ENOMEM.
 */
static int hf_rw_begin(struct hf_file *hf, struct hf_chan *chan, u32 npages)
{
	struct hf_card *card = chan->card;
	int ret;

	ret = hf_chan_lock_for(hf, chan, hf_file_timeout_ns(hf), NULL);
	if (ret)
		return ret;
	/* remove() frees the channel's storage after setting dead. */
	if (READ_ONCE(card->dead)) {
		ret = -ENODEV;
		hf_set_error(hf, ret, "card removed");
		goto err;
	}
	ret = hf_chan_usable(hf, chan);
	if (ret)
		goto err;
	ret = hf_rw_chan_prepare(chan, npages);
	if (ret) {
		hf_set_error(hf, ret, "no memory for the transfer state");
		goto err;
	}
	return 0;
err:
	hf_chan_unlock(chan);
	return ret;
}

/**
 * hf_xfer_window() - move a user buffer through an engine, chunk by chunk.
 * @hf: the file
 * @chan: the engine
 * @buf: user buffer, any alignment the engine takes
 * @count: bytes, > 0
 * @win: card addresses, checked by the caller against card memory and the
 *	engine's alignment
 *
 * Return: bytes moved (fewer than @count when a later chunk failed; the
 * file's last error says why), or a negative errno when none were moved:
 * -EFAULT, -ENOMEM, -EIO (engine error), -ETIMEDOUT, -EBUSY (another
 * run held the channel for the whole timeout), -ENODEV (card removed),
 * -EINTR (fatal signal).  Never -ERESTARTSYS.
 */
ssize_t hf_xfer_window(struct hf_file *hf, struct hf_chan *chan,
		       char __user *buf, size_t count,
		       const struct hf_card_window *win)
{
	unsigned long uaddr = (unsigned long)buf;
	size_t done = 0, chunk, moved;
	int ret = 0;

	ret = hf_xfer_no_stream(hf, chan->card);
	if (ret)
		return ret;
	ret = hf_rw_begin(hf, chan, HF_RW_CHUNK_PAGES);
	if (ret)
		return ret;
	while (done < count) {
		unsigned long a = uaddr + done;

		chunk = min_t(size_t, count - done,
			      (size_t)HF_RW_CHUNK_PAGES * PAGE_SIZE -
			      offset_in_page(a));
		if (win->size && win->size <= chunk / HF_RW_CHUNK_WINDOWS)
			chunk = win->size * HF_RW_CHUNK_WINDOWS;
		ret = hf_rw_chunk(hf, chan, a, chunk, win, done, false,
				  &moved);
		done += moved;
		if (ret)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			hf_set_error(hf, ret, "killed after %zu of %zu bytes",
				     done, count);
			break;
		}
	}
	hf_chan_unlock(chan);
	return done ? (ssize_t)done : ret;
}

/**
 * hf_xfer_packet() - write() of an h2c node of an AXI-Stream card: the
 *	buffer as one packet.
 * @hf: the file
 * @chan: the H2C engine
 * @buf: user buffer, aligned as the engine needs (no bounce buffer)
 * @count: bytes
 * @pos: file position, which must be 0 (the stream has no card address)
 *
 * The whole buffer is pinned, mapped and chained at once: one chain, EOP
 * (TLAST) on its last descriptor only (include/uapi/hellofpga.h, "H2C
 * packets").
 *
 * Return: @count, 0 for @count 0, or a negative errno: -EINVAL (@pos not
 * 0, misaligned), -EMSGSIZE (over HELLOFPGA_STREAM_H2C_MAX, or more
 * descriptors than one chain holds), and those of hf_xfer_window().
 */
static ssize_t hf_xfer_packet(struct hf_file *hf, struct hf_chan *chan,
			      char __user *buf, size_t count, loff_t pos)
{
	struct hf_card_window win = { 0 };
	unsigned long uaddr = (unsigned long)buf;
	u64 align = chan->engine.addr_align;
	size_t moved = 0;
	int ret;

	if (pos) {
		hf_set_error(hf, -EINVAL, "file position 0x%llx: %s",
			     (u64)pos, XDMA_STREAM_H2C_ADDR_MSG);
		return -EINVAL;
	}
	if (!count)
		return 0;
	if (count > HELLOFPGA_STREAM_H2C_MAX) {
		hf_set_error(hf, -EMSGSIZE,
			     "a packet of %zu bytes is longer than an AXI-Stream H2C packet may be (HELLOFPGA_STREAM_H2C_MAX, %u bytes); it is not cut",
			     count, HELLOFPGA_STREAM_H2C_MAX);
		return -EMSGSIZE;
	}
	if (align > 1 && (!IS_ALIGNED(uaddr, align) ||
			  !IS_ALIGNED(count, chan->engine.len_gran))) {
		hf_set_error(hf, -EINVAL,
			     "the engine needs addresses aligned to %llu and lengths to %u bytes, and a packet has no bounce buffer",
			     align, chan->engine.len_gran);
		return -EINVAL;
	}
	ret = hf_rw_begin(hf, chan, DIV_ROUND_UP(offset_in_page(uaddr) + count,
						 PAGE_SIZE));
	if (ret)
		return ret;
	ret = hf_rw_chunk(hf, chan, uaddr, count, &win, 0, true, &moved);
	hf_chan_unlock(chan);
	return ret ? ret : (ssize_t)moved;
}

/**
 * hf_xfer_rw() - read() of a c2h node or write() of an h2c node.
 * @hf: the file
 * @chan: the node's engine
 * @buf: user buffer, any alignment
 * @count: bytes
 * @ppos: file position = card address; advanced by the bytes moved
 *
 * On an AXI-Stream card a write() sends one packet (hf_xfer_packet()) and
 * leaves the position at 0.
 *
 * Return: bytes moved (fewer than @count when a later chunk failed, or at
 * the end of card memory), 0 at the end of card memory, or a negative
 * errno: those of hf_xfer_window(), -EINVAL (misaligned for the engine),
 * -ENOSPC (write at the end), -EMSGSIZE (a packet too long).
 */
ssize_t hf_xfer_rw(struct hf_file *hf, struct hf_chan *chan,
		   char __user *buf, size_t count, loff_t *ppos)
{
	struct hf_card *card = chan->card;
	struct hf_card_window win = { .base = *ppos };
	unsigned long uaddr = (unsigned long)buf;
	u64 pos = *ppos, max;
	ssize_t ret;

	if (*ppos < 0) {
		hf_set_error(hf, -EINVAL, "negative card address");
		return -EINVAL;
	}
	if (card->xdev.stream && chan->dir == XDMA_H2C)
		return hf_xfer_packet(hf, chan, buf, count, *ppos);
	if (!count)
		return 0;
	if (card->ddr_size) {
		if (pos >= card->ddr_size) {
			if (chan->dir == XDMA_C2H)
				return 0;
			hf_set_error(hf, -ENOSPC,
				     "write at card address 0x%llx: beyond card memory (ddr_size 0x%llx)",
				     pos, card->ddr_size);
			return -ENOSPC;
		}
		count = min_t(u64, count, card->ddr_size - pos);
	}
	max = chan->engine.addr_align;
	if (max > 1 && (!IS_ALIGNED(uaddr, max) || !IS_ALIGNED(pos, max) ||
			!IS_ALIGNED(count, chan->engine.len_gran))) {
		hf_set_error(hf, -EINVAL,
			     "the engine needs addresses aligned to %llu and lengths to %u bytes",
			     max, chan->engine.len_gran);
		return -EINVAL;
	}
	ret = hf_xfer_window(hf, chan, buf, count, &win);
	if (ret > 0)
		*ppos = pos + ret;
	return ret;
}

/**
 * hf_xfer_run() - move a range of a pin, in one or more engine runs.
 * @hf: the file
 * @pc: the pin, marked active on @chan (hf_pin_start_run())
 * @chan: the engine, locked and usable (hf_chan_usable())
 * @x: the request, validated; @x->bytes and @x->engine_ns are updated
 * @timeout_ns: timeout of each run
 * @wpc: HELLOFPGA_XFER_WB: the pin of the writeback word, marked active on
 *	@chan (it may be @pc), else NULL
 * @wb: HELLOFPGA_XFER_WB: the word, mapped, cleared: the last run's
 *	writeback goes there (an earlier run's to the engine's own word)
 *
 * A range whose chain fits in HF_RUN_MAX_DESC descriptors is one run, and
 * its chain is kept: the next XFER of the same range runs it again without
 * rebuilding.  Longer ranges run in pieces, rebuilt each time.  Each run's
 * bytes, and only those, are synced for the device before and for the CPU
 * after (C2H) when the provider needs it.  A run that wedges its engine
 * puts the pin into the channel's quarantine.  On an AXI-Stream card the
 * range is one H2C packet: one run, never pieces.
 *
 * Return: 0 or a negative errno with the file's last error set; -EMSGSIZE
 * for a packet whose chain would need more than HF_RUN_MAX_DESC
 * descriptors.
 */
static int hf_xfer_run(struct hf_file *hf, struct hf_pin_core *pc,
		       struct hf_chan *chan, struct hellofpga_xfer *x,
		       u64 timeout_ns, struct hf_pin_core *wpc,
		       const struct hf_host_words *wb)
{
	struct hf_card *card = chan->card;
	struct hf_pin_chain *pch = &pc->chains[chan->dir][chan->ch];
	const struct hf_pin *pin = &pc->pin;
	void (*sync)(struct hf_pin *pin, u64 off, u64 len, bool for_device) =
		pc->ops->sync;
	struct hf_xdma_result res;
	u64 off = x->buf_offset, left = x->length, card_addr = x->card_addr;
	u64 piece;
	bool last;
	int ret = 0, n;

	lockdep_assert_held(&chan->lock);
	while (left) {
		piece = hf_sg_fit(pin->segs, pin->nsegs, off, left,
				  HF_RUN_MAX_DESC);
		if (card->xdev.stream && piece < left) {
			/* a packet is one chain: TLAST ends it */
			hf_set_error(hf, -EMSGSIZE,
				     "XFER: a packet of 0x%llx bytes needs more descriptors than one chain holds (%u)",
				     left, HF_RUN_MAX_DESC);
			return -EMSGSIZE;
		}
		if (!hf_xdma_chain_cached(&pch->cache, off, piece, card_addr)) {
			pch->cache.valid = false;
			n = hf_xdma_chain_count(pin->segs, pin->nsegs, off, piece);
			if (n < 0) {
				hf_set_error(hf, n, "XFER: descriptor chain: %d",
					     n);
				return n;
			}
			ret = hf_pin_ring_reserve(hf, pc, pch, n);
			if (ret)
				return ret;
			hf_xdma_chain_init(&pch->cache.chain, pch->mem.cpu,
					   pch->mem.bus, pch->mem.cap);
			ret = hf_xdma_chain_cache_build(&pch->cache, chan->dir,
							pin->segs, pin->nsegs,
							off, piece, card_addr);
			if (ret) {
				hf_set_error(hf, ret,
					     "XFER: building the chain failed: %d",
					     ret);
				return ret;
			}
		}
		ret = hf_card_enter_for(card, hf, "XFER");
		if (ret)
			return ret;
		if (sync)
			sync(&pc->pin, off, piece, true);
		last = wb && piece == left;
		ret = hf_xdma_engine_run_wb(&chan->engine, &pch->cache.chain,
					    timeout_ns,
					    last ? (__le32 *)wb->cpu : NULL,
					    last ? wb->bus : 0, &res);
		ret = hf_run_exit(chan, ret, &res);
		if (res.wedged) {
			hf_pin_quarantine(pc, chan);
			if (wpc && wpc != pc)
				hf_pin_quarantine_wb(wpc, chan);
		} else if (sync && chan->dir == XDMA_C2H) {
			sync(&pc->pin, off, piece, false);
		}

		x->bytes += res.bytes;
		x->engine_ns += res.elapsed_ns;
		if (ret) {
			hf_report_run(hf, chan, &res);
			return ret;
		}
		off += piece;
		card_addr += piece;
		left -= piece;
	}
	return 0;
}

/**
 * hf_xfer_packet_check() - an H2C XFER on an AXI-Stream card is one packet.
 * @hf: the file (its last error is set on failure)
 * @card: the card
 * @x: the request
 *
 * Return: 0 (also for a memory-mapped card), -EINVAL (a card address),
 * -EMSGSIZE (longer than HELLOFPGA_STREAM_H2C_MAX).
 */
static int hf_xfer_packet_check(struct hf_file *hf, struct hf_card *card,
				const struct hellofpga_xfer *x)
{
	if (!card->xdev.stream)
		return 0;
	if (x->card_addr) {
		hf_set_error(hf, -EINVAL, "XFER: card address 0x%llx: %s",
			     x->card_addr, XDMA_STREAM_H2C_ADDR_MSG);
		return -EINVAL;
	}
	if (x->length > HELLOFPGA_STREAM_H2C_MAX) {
		hf_set_error(hf, -EMSGSIZE,
			     "XFER: a packet of 0x%llx bytes is longer than an AXI-Stream H2C packet may be (HELLOFPGA_STREAM_H2C_MAX, 0x%x bytes); it is not cut",
			     x->length, HELLOFPGA_STREAM_H2C_MAX);
		return -EMSGSIZE;
	}
	return 0;
}

/**
 * hf_xfer_wb_get() - the writeback word of an XFER with HELLOFPGA_XFER_WB.
 * @hf: the file
 * @x: the request, its data range validated
 * @pc: the data pin
 * @wpc: receives the word's pin, referenced (hf_pin_put())
 *
 * Return: 0, or -EINVAL, -ENOENT with the file's last error set.
 */
static int hf_xfer_wb_get(struct hf_file *hf, const struct hellofpga_xfer *x,
			  struct hf_pin_core *pc, struct hf_pin_core **wpc)
{
	struct hf_pin_core *w;
	int ret;

	if (!(hf_pin_features() & HELLOFPGA_FEAT_PIN_HOST)) {
		hf_set_error(hf, -EINVAL,
			     "XFER: HELLOFPGA_XFER_WB needs HELLOFPGA_FEAT_XFER_WB (host pins), which this driver lacks");
		return -EINVAL;
	}
	if (!IS_ALIGNED(x->wb_offset, 4)) {
		hf_set_error(hf, -EINVAL,
			     "XFER: wb_offset 0x%llx is not a multiple of 4",
			     x->wb_offset);
		return -EINVAL;
	}
	w = hf_pin_lookup(hf, x->wb_handle);
	if (!w) {
		hf_set_error(hf, -ENOENT, "XFER: no pin with wb_handle %llu",
			     x->wb_handle);
		return -ENOENT;
	}
	if (w->ops != &hf_host_ops) {
		hf_set_error(hf, -EINVAL,
			     "XFER: wb_handle %llu is a %s pin: the writeback word must lie in a host pin (HELLOFPGA_PIN_HOST)",
			     x->wb_handle, w->ops->name);
		ret = -EINVAL;
		goto err;
	}
	/* the room the card's poll-mode writeback may take, not only 4 bytes */
	if (w->pin.size < HELLOFPGA_XFER_WB_ROOM ||
	    x->wb_offset > w->pin.size - HELLOFPGA_XFER_WB_ROOM) {
		hf_set_error(hf, -EINVAL,
			     "XFER: wb_offset 0x%llx: the word and the %u bytes from it the card may write (HELLOFPGA_XFER_WB_ROOM) must lie inside pin %llu (0x%llx bytes)",
			     x->wb_offset, HELLOFPGA_XFER_WB_ROOM, x->wb_handle,
			     w->pin.size);
		ret = -EINVAL;
		goto err;
	}
	*wpc = w;
	return 0;
err:
	hf_pin_put(w);
	return ret;
}

/**
 * hf_xfer_wb_map() - map the writeback word of an XFER_WB for its run.
 * @hf: the file
 * @x: the request
 * @wpc: the word's pin, marked active on the run's channel (its pages
 *	stay pinned until the mark clears)
 * @wb: receives the word
 *
 * Return: 0, or -EOPNOTSUPP (bounce buffers), -EINVAL, -ENOMEM with the
 * file's last error set.
 */
static int hf_xfer_wb_map(struct hf_file *hf, const struct hellofpga_xfer *x,
			  struct hf_pin_core *wpc, struct hf_host_words *wb)
{
	int ret = hf_host_words_map(&wpc->pin, x->wb_offset, 4, wb);

	/* 0 until the last run's writeback: nothing stale satisfies a GPU */
	if (!ret)
		WRITE_ONCE(*(__le32 *)wb->cpu, 0);
	if (ret == -EOPNOTSUPP)
		hf_set_error(hf, ret,
			     "XFER: HELLOFPGA_XFER_WB: pin %llu's DMA mapping needs CPU syncs (swiotlb bounce buffers or a non-coherent device): the card's writes to the word would not reach the memory a GPU watches",
			     x->wb_handle);
	else if (ret)
		hf_set_error(hf, ret,
			     "XFER: HELLOFPGA_XFER_WB: cannot map the word of pin %llu (%d)",
			     x->wb_handle, ret);
	return ret;
}

/**
 * hf_xfer_check() - check an XFER request and find its engine and pin.
 * @hf: the file (its last error is set on failure)
 * @x: the request as copied in; @x->bytes and @x->engine_ns are zeroed
 * @chan: receives the engine
 * @pc: receives the pin, referenced (hf_xfer() puts it)
 *
 * Return: 0, or -EINVAL, -ENODEV (hf_xfer_no_stream()), -ECHRNG, -ENOENT.
 */
static int hf_xfer_check(struct hf_file *hf, struct hellofpga_xfer *x,
			 struct hf_chan **chan, struct hf_pin_core **pc)
{
	struct hf_card *card = hf->card;
	int ret;

	if ((x->flags & ~HELLOFPGA_XFER_WB) ||
	    memchr_inv(x->reserved, 0, sizeof(x->reserved))) {
		hf_set_error(hf, -EINVAL,
			     "XFER: flags must be 0 or HELLOFPGA_XFER_WB, reserved 0");
		return -EINVAL;
	}
	if (!(x->flags & HELLOFPGA_XFER_WB) && (x->wb_handle || x->wb_offset)) {
		hf_set_error(hf, -EINVAL,
			     "XFER: wb_handle and wb_offset must be 0 without HELLOFPGA_XFER_WB");
		return -EINVAL;
	}
	if (x->timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS) {
		hf_set_error(hf, -EINVAL,
			     "XFER: timeout_ms %u is above %u ms (0: the file's timeout)",
			     x->timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
		return -EINVAL;
	}
	x->bytes = 0;
	x->engine_ns = 0;
	if (x->dir != HELLOFPGA_XFER_H2C && x->dir != HELLOFPGA_XFER_C2H) {
		hf_set_error(hf, -EINVAL, "XFER: bad direction %u", x->dir);
		return -EINVAL;
	}
	if (x->dir == HELLOFPGA_XFER_C2H) {
		ret = hf_xfer_no_stream(hf, card);
		if (ret)
			return ret;
	}
	*chan = hf_chan_of(card, x->dir, x->channel);
	if (!*chan) {
		hf_set_error(hf, -ECHRNG, "XFER: %s channel %u out of range (the card has %u)",
			     x->dir == HELLOFPGA_XFER_H2C ? "H2C" : "C2H",
			     x->channel, x->dir == HELLOFPGA_XFER_H2C ?
			     card->xdev.num_h2c : card->xdev.num_c2h);
		return -ECHRNG;
	}
	*pc = hf_pin_lookup(hf, x->handle);
	if (!*pc) {
		hf_set_error(hf, -ENOENT, "XFER: no pin with handle %llu",
			     x->handle);
		return -ENOENT;
	}
	return 0;
}

/**
 * hf_xfer_range_check() - the buffer and card ranges of an XFER.
 * @hf: the file (its last error is set on failure)
 * @x: the request
 * @pc: its pin
 *
 * Return: 0, or -EINVAL, -EACCES, -EOVERFLOW, -EMSGSIZE, -ERANGE.
 */
static int hf_xfer_range_check(struct hf_file *hf,
			       const struct hellofpga_xfer *x,
			       struct hf_pin_core *pc)
{
	struct hf_card *card = hf->card;
	int ret;

	if (x->buf_offset > pc->pin.size ||
	    x->length > pc->pin.size - x->buf_offset) {
		hf_set_error(hf, -EINVAL,
			     "XFER: buffer range 0x%llx + 0x%llx outside the pin (0x%llx bytes)",
			     x->buf_offset, x->length, pc->pin.size);
		return -EINVAL;
	}
	if (x->dir == HELLOFPGA_XFER_C2H && pc->read_only) {
		hf_set_error(hf, -EACCES,
			     "XFER: pin %llu is read-only (a dma-buf whose file is not open for writing): H2C only, no C2H into it",
			     x->handle);
		return -EACCES;
	}
	if (x->card_addr + x->length < x->card_addr) {
		hf_set_error(hf, -EOVERFLOW, "XFER: card address + length wraps");
		return -EOVERFLOW;
	}
	ret = hf_xfer_packet_check(hf, card, x);
	if (ret)
		return ret;
	if (!card->xdev.stream &&
	    !hf_card_range_ok(card, x->card_addr, x->length)) {
		hf_set_error(hf, -ERANGE,
			     "XFER: card range 0x%llx + 0x%llx past the end of card memory (ddr_size 0x%llx)",
			     x->card_addr, x->length, card->ddr_size);
		return -ERANGE;
	}
	return 0;
}

/**
 * hf_xfer_locked() - run an XFER on its locked, usable engine.
 * @hf: the file (its last error is set on failure)
 * @x: the request, checked; @x->bytes and @x->engine_ns are updated
 * @chan: the engine, locked
 * @pc: the data pin
 * @wpc: HELLOFPGA_XFER_WB: the word's pin, else NULL
 * @timeout_ns: timeout of each run
 *
 * Marks the pins active on @chan for the runs; a failed transfer's word is
 * marked HELLOFPGA_XFER_WB_FAILED, so that a waiting GPU goes on.
 *
 * Return: 0 or a negative errno.
 */
static int hf_xfer_locked(struct hf_file *hf, struct hellofpga_xfer *x,
			  struct hf_chan *chan, struct hf_pin_core *pc,
			  struct hf_pin_core *wpc, u64 timeout_ns)
{
	struct hf_card *card = chan->card;
	struct hf_host_words wb = { };
	int ret;

	ret = hf_chan_usable(hf, chan);
	if (ret)
		return ret;
	if (hf_pin_start_run(pc, chan)) {
		ret = READ_ONCE(card->dead) ? -ENODEV : -EFAULT;
		hf_set_error(hf, ret, "XFER: pin %llu was %s", x->handle,
			     ret == -ENODEV ? "released: card removed" :
			     "revoked: its memory was freed by its owner");
		return ret;
	}
	if (wpc && wpc != pc && hf_pin_start_run(wpc, chan)) {
		hf_pin_end_run(pc, chan);
		ret = READ_ONCE(card->dead) ? -ENODEV : -EFAULT;
		hf_set_error(hf, ret, "XFER: the writeback word's pin %llu was %s",
			     x->wb_handle, ret == -ENODEV ?
			     "released: card removed" : "released");
		return ret;
	}
	ret = wpc ? hf_xfer_wb_map(hf, x, wpc, &wb) : 0;
	if (!ret) {
		ret = hf_xfer_run(hf, pc, chan, x, timeout_ns, wpc,
				  wpc ? &wb : NULL);
		/* a failed transfer's word: marked, so a waiting GPU goes on */
		if (ret && wpc) {
			__le32 *w = wb.cpu;

			WRITE_ONCE(*w, cpu_to_le32(le32_to_cpu(READ_ONCE(*w)) |
						   HELLOFPGA_XFER_WB_FAILED));
		}
		hf_host_words_unmap(&wb);
	}
	if (wpc && wpc != pc)
		hf_pin_end_run(wpc, chan);
	hf_pin_end_run(pc, chan);
	return ret;
}

/**
 * hf_xfer() - an XFER request, copied in: move bytes between a pin and card
 *	memory.
 * @hf: the file (its last error is set on failure)
 * @x: the request; @x->bytes and @x->engine_ns are updated (on failure too)
 * @reply: set once the request names an engine and a pin: @x is then to be
 *	copied back, whatever the outcome (hf_xfer_check()'s failures are not)
 *
 * Return: 0 or a negative errno.
 */
static int hf_xfer(struct hf_file *hf, struct hellofpga_xfer *x, bool *reply)
{
	struct hf_pin_core *pc, *wpc = NULL;
	struct hf_chan *chan;
	u64 timeout_ns;
	int ret;

	ret = hf_xfer_check(hf, x, &chan, &pc);
	if (ret)
		return ret;
	*reply = true;
	ret = hf_xfer_range_check(hf, x, pc);
	if (ret || !x->length)
		goto out_put;
	if (x->flags & HELLOFPGA_XFER_WB) {
		ret = hf_xfer_wb_get(hf, x, pc, &wpc);
		if (ret)
			goto out_put;
	}
	timeout_ns = x->timeout_ms ? (u64)x->timeout_ms * NSEC_PER_MSEC :
				     hf_file_timeout_ns(hf);

	ret = hf_chan_lock_for(hf, chan, timeout_ns, "XFER");
	if (ret)
		goto out_put;
	ret = hf_xfer_locked(hf, x, chan, pc, wpc, timeout_ns);
	hf_chan_unlock(chan);
out_put:
	if (wpc)
		hf_pin_put(wpc);
	hf_pin_put(pc);
	return ret;
}

/**
 * hf_xfer_ioctl() - HELLOFPGA_IOC_XFER of the control node (hf_ioctl()
 *	dispatches it): the request copied in, run (hf_xfer()), copied out.
 * @hf: the file
 * @uarg: the user's struct hellofpga_xfer
 *
 * The copies are here, not in hf_ioctl.c, so that an XFER's kernel path
 * makes no more calls than before the runs moved here.
 *
 * Return: 0 or a negative errno.
 */
long hf_xfer_ioctl(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_xfer x;
	bool reply = false;
	int ret;

	if (copy_from_user(&x, uarg, sizeof(x)))
		goto efault;
	ret = hf_xfer(hf, &x, &reply);
	/* bytes and engine_ns are reported on failure too. */
	if (reply && copy_to_user(uarg, &x, sizeof(x)))
		goto efault;
	return ret;
efault:
	hf_set_error(hf, -EFAULT, "XFER: bad argument pointer");
	return -EFAULT;
}
