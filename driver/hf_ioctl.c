// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of include/uapi/hellofpga.h.
 *
 * Every node takes GET_INFO, GET_STATS and LAST_ERROR; PIN, XFER and UNPIN
 * are for the control node; the h2c and c2h nodes also take the Xilinx
 * reference driver's ioctls (hf_xdma.c), the c2h nodes of an AXI-Stream
 * card the STREAM_* ioctls (hf_stream.c).  None needs a capability
 * (docs/security.md).  Every input field is checked: flags, pad and
 * reserved fields must be zero (-EINVAL), so they can gain meaning later.
 * Output structures are built zeroed, so no padding reaches user space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "hf_drv.h"
#include "../core/hf_abi.h"

/**
 * hf_efault() - record a bad ioctl argument pointer.
 * @hf: the file
 * @what: the ioctl
 *
 * Return: -EFAULT.
 */
static int hf_efault(struct hf_file *hf, const char *what)
{
	hf_set_error(hf, -EFAULT, "%s: bad argument pointer", what);
	return -EFAULT;
}

/**
 * hf_all_zero() - whether a block of memory is all zero.
 * @p: the memory
 * @len: bytes
 *
 * Return: true when every byte is 0.
 */
static bool hf_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long hf_ioc_get_info(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct pci_dev *pdev = card->pdev;
	struct hellofpga_info in, out;
	struct hf_chan *c;

	if (copy_from_user(&in, uarg, sizeof(in)))
		return hf_efault(hf, "GET_INFO");
	if (in.flags || in.pad || in.pad2 ||
	    !hf_all_zero(in.reserved, sizeof(in.reserved))) {
		hf_set_error(hf, -EINVAL, "GET_INFO: flags, pad, pad2 and reserved must be 0");
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.abi_major = HELLOFPGA_ABI_MAJOR;
	out.abi_minor = HELLOFPGA_ABI_MINOR;
	out.card_index = card->index;
	out.features = hf_pin_features();
	/* writeback words go into host pins */
	if (out.features & HELLOFPGA_FEAT_PIN_HOST) {
		out.features |= HELLOFPGA_FEAT_XFER_WB;
		if (card->xdev.stream)
			out.features |= HELLOFPGA_FEAT_STREAM_WB_PIN;
	}
	if (card->poll)
		out.features |= HELLOFPGA_FEAT_POLL_MODE;
	if (card->nvec)
		out.features |= HELLOFPGA_FEAT_USER_EVENTS;
	if (card->xdev.stream)
		out.features |= HELLOFPGA_FEAT_STREAM |
				HELLOFPGA_FEAT_STREAM_H2C;
	out.num_h2c = card->xdev.num_h2c;
	out.num_c2h = card->xdev.num_c2h;
	out.ddr_size = card->ddr_size;
	out.ip_version = card->xdev.version;
	out.irq_mode = card->poll ? HELLOFPGA_IRQ_MODE_POLL : card->irq_mode;
	c = card->xdev.num_h2c ? &card->chans[XDMA_H2C][0] :
				 &card->chans[XDMA_C2H][0];
	out.addr_align = c->engine.addr_align;
	out.len_granularity = c->engine.len_gran;
	out.timeout_ms = card->timeout_ms;
	out.user_bar_size = min_t(u64, card->user_bar_size, U32_MAX);
	out.pinned_bytes = atomic64_read(&card->pinned_bytes);
	out.pin_limit = card->pin_limit;
	out.pci_vendor = pdev->vendor;
	out.pci_device = pdev->device;
	out.pci_domain = (u32)pci_domain_nr(pdev->bus);
	/* Old binaries: the domain in 16 bits, saturated. */
	out.pci_bdf = min_t(u32, out.pci_domain, 0xffff) << 16 |
		      (u32)pdev->bus->number << 8 | pdev->devfn;
	out.user_bar_size64 = card->user_bar_size;
	strscpy(out.driver_version, HF_VERSION,
		sizeof(out.driver_version));
	if (copy_to_user(uarg, &out, sizeof(out)))
		return hf_efault(hf, "GET_INFO");
	return 0;
}

static long hf_ioc_get_stats(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct hellofpga_stats *st;
	u32 i, ne = hf_engine_count(card);
	long ret = 0;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (copy_from_user(st, uarg, sizeof(*st))) {
		ret = hf_efault(hf, "GET_STATS");
		goto out;
	}
	if (st->flags || !hf_all_zero(st->reserved, sizeof(st->reserved))) {
		hf_set_error(hf, -EINVAL, "GET_STATS: flags and reserved must be 0");
		ret = -EINVAL;
		goto out;
	}
	memset(st, 0, sizeof(*st));
	st->num_engines = ne;
	for (i = 0; i < ne && i < HELLOFPGA_MAX_ENGINES; i++) {
		struct hf_chan *c = i < card->xdev.num_h2c ?
			&card->chans[XDMA_H2C][i] :
			&card->chans[XDMA_C2H][i - card->xdev.num_h2c];
		/* Unlocked snapshot: counters of a running engine may move. */
		const struct hf_xdma_engine_stats *es = &c->engine.stats;

		st->runs[i] = READ_ONCE(es->runs);
		st->bytes[i] = READ_ONCE(es->bytes);
		st->errors[i] = READ_ONCE(es->errors);
		st->timeouts[i] = READ_ONCE(es->timeouts);
		st->lost_irqs[i] = READ_ONCE(es->lost_irqs);
	}
	st->irqs = atomic64_read(&card->irqs);
	st->pins = atomic64_read(&card->pins);
	st->pinned_bytes = atomic64_read(&card->pinned_bytes);
	if (copy_to_user(uarg, st, sizeof(*st)))
		ret = hf_efault(hf, "GET_STATS");
out:
	kfree(st);
	return ret;
}

static long hf_ioc_last_error(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_last_error *le;
	long ret = 0;

	le = kzalloc(sizeof(*le), GFP_KERNEL);
	if (!le)
		return -ENOMEM;
	if (copy_from_user(le, uarg, sizeof(*le))) {
		ret = -EFAULT;
		goto out;
	}
	if (le->flags || !hf_all_zero(le->reserved, sizeof(le->reserved))) {
		/* Not recorded: it would replace the error asked for. */
		ret = -EINVAL;
		goto out;
	}
	memset(le, 0, sizeof(*le));
	spin_lock(&hf->err_lock);
	le->error = hf->err;
	strscpy(le->text, hf->err_text, sizeof(le->text));
	spin_unlock(&hf->err_lock);
	if (copy_to_user(uarg, le, sizeof(*le)))
		ret = -EFAULT;
out:
	kfree(le);
	return ret;
}

/**
 * hf_pins_full() - the error of a PIN over the max_pins parameter.
 * @hf: the file
 *
 * Return: -ENOSPC.
 */
static int hf_pins_full(struct hf_file *hf)
{
	hf_set_error(hf, -ENOSPC,
		     "PIN: this open file holds %u pins already, the most allowed (module parameter max_pins); unpin some, or open the device again",
		     hf_max_pins);
	return -ENOSPC;
}

static long hf_ioc_pin(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct hellofpga_pin req;
	struct hf_pin_core *pc;
	int id, ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return hf_efault(hf, "PIN");
	if (req.flags || req.pad || req.pad2 ||
	    !hf_all_zero(req.reserved, sizeof(req.reserved))) {
		hf_set_error(hf, -EINVAL, "PIN: flags, pad, pad2 and reserved must be 0");
		return -EINVAL;
	}
	if (req.type != HELLOFPGA_PIN_CUDA && req.type != HELLOFPGA_PIN_DMABUF &&
	    req.type != HELLOFPGA_PIN_HOST) {
		hf_set_error(hf, -EINVAL, "PIN: unknown type %u", req.type);
		return -EINVAL;
	}
	if (!req.size) {
		hf_set_error(hf, -EINVAL, "PIN: size 0");
		return -EINVAL;
	}
	if (req.type == HELLOFPGA_PIN_DMABUF ? req.fd < 0 : req.fd != -1) {
		hf_set_error(hf, -EINVAL, "PIN: fd must be %s",
			     req.type == HELLOFPGA_PIN_DMABUF ?
			     "a dma-buf file descriptor" : "-1 for this type");
		return -EINVAL;
	}
	if (req.addr + req.size < req.addr) {
		hf_set_error(hf, -EINVAL, "PIN: addr + size wraps");
		return -EINVAL;
	}
	/* Nothing is mapped for a card that is gone. */
	if (READ_ONCE(card->dead)) {
		hf_set_error(hf, -ENODEV, "PIN: card removed");
		return -ENODEV;
	}
	if (READ_ONCE(hf->npins) >= hf_max_pins)
		return hf_pins_full(hf);

	ret = hf_pin_create(hf, &req, &pc);
	if (ret)
		return ret;

	/*
	 * Reserve the handle (a NULL entry: UNPIN and XFER do not see it),
	 * tell the caller, and only then publish the pin: until then no one
	 * else can tear it down, so a failure here undoes only what it did.
	 */
	mutex_lock(&hf->pins_lock);
	/* remove() sets dead before it walks the tables under this lock. */
	if (READ_ONCE(card->dead))
		id = -ENODEV;
	else if (hf->npins >= hf_max_pins)
		id = -ENOSPC;
	else
		id = idr_alloc_cyclic(&hf->pins, NULL, 1, INT_MAX, GFP_KERNEL);
	if (id > 0)
		hf->npins++;
	mutex_unlock(&hf->pins_lock);
	if (id < 0) {
		if (id == -ENOSPC)
			hf_pins_full(hf);
		else
			hf_set_error(hf, id, "PIN: %s", id == -ENODEV ?
				     "card removed" : "no handle left");
		ret = id;
		goto err_teardown;
	}
	pc->handle = id;
	req.handle = id;
	req.page_size = pc->pin.page_size;
	req.nsegs = pc->pin.nsegs;
	ret = 0;
	if (copy_to_user(uarg, &req, sizeof(req)))
		ret = hf_efault(hf, "PIN");
	mutex_lock(&hf->pins_lock);
	if (!ret && READ_ONCE(card->dead)) {
		hf_set_error(hf, -ENODEV, "PIN: card removed");
		ret = -ENODEV;
	}
	if (ret) {
		idr_remove(&hf->pins, id);
		hf->npins--;
	} else {
		idr_replace(&hf->pins, pc, id);
	}
	mutex_unlock(&hf->pins_lock);
	if (ret)
		goto err_teardown;
	return 0;

err_teardown:
	hf_pin_teardown(pc);
	hf_pin_put(pc);
	return ret;
}

static long hf_ioc_unpin(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_unpin req;
	struct hf_pin_core *pc = NULL;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return hf_efault(hf, "UNPIN");
	if (req.flags || req.pad ||
	    !hf_all_zero(req.reserved, sizeof(req.reserved))) {
		hf_set_error(hf, -EINVAL, "UNPIN: flags, pad and reserved must be 0");
		return -EINVAL;
	}
	if (req.handle && req.handle <= INT_MAX) {
		mutex_lock(&hf->pins_lock);
		/* a handle PIN has reserved but not published yet stays */
		pc = idr_find(&hf->pins, req.handle);
		if (pc && READ_ONCE(pc->streams)) {
			mutex_unlock(&hf->pins_lock);
			hf_set_error(hf, -EBUSY,
				     "UNPIN: pin %llu holds a running stream ring: stop the stream first",
				     req.handle);
			return -EBUSY;
		}
		if (pc) {
			idr_remove(&hf->pins, req.handle);
			hf->npins--;
		}
		mutex_unlock(&hf->pins_lock);
	}
	if (!pc) {
		hf_set_error(hf, -ENOENT, "UNPIN: no pin with handle %llu",
			     req.handle);
		return -ENOENT;
	}
	hf_pin_teardown(pc);
	hf_pin_put(pc);
	return 0;
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
		if (!pch->valid || pch->off != off || pch->len != piece ||
		    pch->card_addr != card_addr) {
			pch->valid = false;
			n = hf_xdma_chain_count(pin->segs, pin->nsegs, off, piece);
			if (n < 0) {
				hf_set_error(hf, n, "XFER: descriptor chain: %d",
					     n);
				return n;
			}
			ret = hf_pin_ring_reserve(hf, pc, pch, n);
			if (ret)
				return ret;
			hf_xdma_chain_init(&pch->chain, pch->mem.cpu, pch->mem.bus,
					   pch->mem.cap);
			ret = hf_xdma_chain_build(&pch->chain, chan->dir, pin->segs,
						  pin->nsegs, off, piece,
						  card_addr);
			if (ret) {
				hf_set_error(hf, ret,
					     "XFER: building the chain failed: %d",
					     ret);
				return ret;
			}
			pch->off = off;
			pch->len = piece;
			pch->card_addr = card_addr;
			pch->valid = true;
		}
		ret = hf_card_enter(card);
		if (ret) {
			hf_set_error(hf, ret, "XFER: %s",
				     hf_card_enter_why(ret));
			return ret;
		}
		if (sync)
			sync(&pc->pin, off, piece, true);
		last = wb && piece == left;
		ret = hf_xdma_engine_run_wb(&chan->engine, &pch->chain,
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

static long hf_ioc_xfer(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct hellofpga_xfer x;
	struct hf_pin_core *pc, *wpc = NULL;
	struct hf_host_words wb = { };
	struct hf_chan *chan;
	u64 timeout_ns;
	int ret;

	if (copy_from_user(&x, uarg, sizeof(x)))
		return hf_efault(hf, "XFER");
	if ((x.flags & ~HELLOFPGA_XFER_WB) ||
	    !hf_all_zero(x.reserved, sizeof(x.reserved))) {
		hf_set_error(hf, -EINVAL,
			     "XFER: flags must be 0 or HELLOFPGA_XFER_WB, reserved 0");
		return -EINVAL;
	}
	if (!(x.flags & HELLOFPGA_XFER_WB) && (x.wb_handle || x.wb_offset)) {
		hf_set_error(hf, -EINVAL,
			     "XFER: wb_handle and wb_offset must be 0 without HELLOFPGA_XFER_WB");
		return -EINVAL;
	}
	if (x.timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS) {
		hf_set_error(hf, -EINVAL,
			     "XFER: timeout_ms %u is above %u ms (0: the file's timeout)",
			     x.timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
		return -EINVAL;
	}
	x.bytes = 0;
	x.engine_ns = 0;
	if (x.dir != HELLOFPGA_XFER_H2C && x.dir != HELLOFPGA_XFER_C2H) {
		hf_set_error(hf, -EINVAL, "XFER: bad direction %u", x.dir);
		return -EINVAL;
	}
	if (x.dir == HELLOFPGA_XFER_C2H) {
		ret = hf_xfer_no_stream(hf, card);
		if (ret)
			return ret;
	}
	chan = hf_chan_of(card, x.dir, x.channel);
	if (!chan) {
		hf_set_error(hf, -ECHRNG, "XFER: %s channel %u out of range (the card has %u)",
			     x.dir == HELLOFPGA_XFER_H2C ? "H2C" : "C2H",
			     x.channel, x.dir == HELLOFPGA_XFER_H2C ?
			     card->xdev.num_h2c : card->xdev.num_c2h);
		return -ECHRNG;
	}
	pc = hf_pin_lookup(hf, x.handle);
	if (!pc) {
		hf_set_error(hf, -ENOENT, "XFER: no pin with handle %llu",
			     x.handle);
		return -ENOENT;
	}
	if (x.buf_offset > pc->pin.size ||
	    x.length > pc->pin.size - x.buf_offset) {
		hf_set_error(hf, -EINVAL,
			     "XFER: buffer range 0x%llx + 0x%llx outside the pin (0x%llx bytes)",
			     x.buf_offset, x.length, pc->pin.size);
		ret = -EINVAL;
		goto out_put;
	}
	if (x.dir == HELLOFPGA_XFER_C2H && pc->read_only) {
		hf_set_error(hf, -EACCES,
			     "XFER: pin %llu is read-only (a dma-buf whose file is not open for writing): H2C only, no C2H into it",
			     x.handle);
		ret = -EACCES;
		goto out_put;
	}
	if (x.card_addr + x.length < x.card_addr) {
		hf_set_error(hf, -EOVERFLOW, "XFER: card address + length wraps");
		ret = -EOVERFLOW;
		goto out_put;
	}
	ret = hf_xfer_packet_check(hf, card, &x);
	if (ret)
		goto out_put;
	if (!card->xdev.stream &&
	    !hf_card_range_ok(card, x.card_addr, x.length)) {
		hf_set_error(hf, -ERANGE,
			     "XFER: card range 0x%llx + 0x%llx past the end of card memory (ddr_size 0x%llx)",
			     x.card_addr, x.length, card->ddr_size);
		ret = -ERANGE;
		goto out_put;
	}
	ret = 0;
	if (!x.length)
		goto out_put;
	if (x.flags & HELLOFPGA_XFER_WB) {
		ret = hf_xfer_wb_get(hf, &x, pc, &wpc);
		if (ret)
			goto out_put;
	}
	timeout_ns = x.timeout_ms ? (u64)x.timeout_ms * NSEC_PER_MSEC :
				    hf_file_timeout_ns(hf);

	ret = hf_chan_lock(chan, timeout_ns);
	if (ret) {
		if (ret == -EBUSY)
			hf_set_error(hf, ret,
				     "XFER: the channel stayed in use by another run until the timeout; nothing was moved");
		else
			hf_set_error(hf, ret,
				     "XFER: interrupted waiting for the channel");
		goto out_put;
	}
	ret = hf_chan_usable(hf, chan);
	if (ret)
		goto out_unlock;
	if (hf_pin_start_run(pc, chan)) {
		ret = READ_ONCE(card->dead) ? -ENODEV : -EFAULT;
		hf_set_error(hf, ret, "XFER: pin %llu was %s", x.handle,
			     ret == -ENODEV ? "released: card removed" :
			     "revoked: its memory was freed by its owner");
		goto out_unlock;
	}
	if (wpc && wpc != pc && hf_pin_start_run(wpc, chan)) {
		hf_pin_end_run(pc, chan);
		ret = READ_ONCE(card->dead) ? -ENODEV : -EFAULT;
		hf_set_error(hf, ret, "XFER: the writeback word's pin %llu was %s",
			     x.wb_handle, ret == -ENODEV ?
			     "released: card removed" : "released");
		goto out_unlock;
	}
	ret = wpc ? hf_xfer_wb_map(hf, &x, wpc, &wb) : 0;
	if (!ret) {
		ret = hf_xfer_run(hf, pc, chan, &x, timeout_ns, wpc,
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
out_unlock:
	hf_chan_unlock(chan);
out_put:
	if (wpc)
		hf_pin_put(wpc);
	hf_pin_put(pc);
	/* bytes and engine_ns are reported on failure too. */
	if (copy_to_user(uarg, &x, sizeof(x)))
		return hf_efault(hf, "XFER");
	return ret;
}

static long hf_ioc_set_timeout(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_timeout t;

	if (copy_from_user(&t, uarg, sizeof(t))) {
		hf_set_error(hf, -EFAULT, "SET_TIMEOUT: bad argument pointer");
		return -EFAULT;
	}
	if (t.flags || !hf_all_zero(t.reserved, sizeof(t.reserved))) {
		hf_set_error(hf, -EINVAL,
			     "SET_TIMEOUT: flags and reserved must be 0");
		return -EINVAL;
	}
	if (t.timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS) {
		hf_set_error(hf, -EINVAL,
			     "SET_TIMEOUT: %u ms is above %u ms (0: the module's timeout_ms)",
			     t.timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
		return -EINVAL;
	}
	WRITE_ONCE(hf->timeout_ms, t.timeout_ms);
	return 0;
}

/**
 * hf_ioctl() - ioctls of every node (see include/uapi/hellofpga.h).
 * @file: the file
 * @cmd: HELLOFPGA_IOC_*
 * @arg: user pointer to the command's structure
 *
 * Return: 0 or a negative errno; -ENOTTY for an unknown command, or a
 * PIN/XFER/UNPIN on a node other than control; -EBADF for a PIN, XFER or
 * UNPIN on a control node not open for writing.  Other commands go to
 * hf_xdma_ioctl().
 */
long hf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hf_file *hf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case HELLOFPGA_IOC_GET_INFO:
		return hf_ioc_get_info(hf, uarg);
	case HELLOFPGA_IOC_GET_STATS:
		return hf_ioc_get_stats(hf, uarg);
	case HELLOFPGA_IOC_LAST_ERROR:
		return hf_ioc_last_error(hf, uarg);
	case HELLOFPGA_IOC_SET_TIMEOUT:
		return hf_ioc_set_timeout(hf, uarg);
	case HELLOFPGA_IOC_STREAM_START:
	case HELLOFPGA_IOC_STREAM_WAIT:
	case HELLOFPGA_IOC_STREAM_RELEASE:
	case HELLOFPGA_IOC_STREAM_STOP:
	case HELLOFPGA_IOC_STREAM_STATS:
		return hf_stream_ioctl(hf, cmd, uarg);
	case HELLOFPGA_IOC_PIN:
	case HELLOFPGA_IOC_XFER:
	case HELLOFPGA_IOC_UNPIN:
		if (hf->type != HF_NODE_CONTROL) {
			hf_set_error(hf, -ENOTTY,
				     "PIN, XFER and UNPIN are ioctls of the control node");
			return -ENOTTY;
		}
		/* they write card memory or pinned memory: a writer's right */
		if (!(file->f_mode & FMODE_WRITE)) {
			hf_set_error(hf, -EBADF,
				     "PIN, XFER and UNPIN need the control node open for writing");
			return -EBADF;
		}
		break;
	default:
		return hf_xdma_ioctl(hf, cmd, uarg);
	}

	switch (cmd) {
	case HELLOFPGA_IOC_PIN:
		return hf_ioc_pin(hf, uarg);
	case HELLOFPGA_IOC_XFER:
		return hf_ioc_xfer(hf, uarg);
	default:
		return hf_ioc_unpin(hf, uarg);
	}
}
