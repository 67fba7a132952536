// SPDX-License-Identifier: GPL-2.0
/*
 * Stopping engines, and memory a wedged engine may still reach.
 *
 * A card keeps moving data after software gives up: clearing Run lets the
 * descriptor in progress finish, and one descriptor can carry 256 MiB.  The
 * engine core (hf_xdma_engine_run(), hf_xdma_engine_quiesce()) therefore proves an
 * engine idle after every stop, waiting at most what the descriptor can
 * still take at the link's rate (hf_link_rate() in hf_engine.c, capped by
 * the stop_wait_ms parameter).  An engine that does not go idle is wedged,
 * and this file keeps what it may still touch alive:
 *
 *   - hf_quarantine_rw() takes over the mapping and the pinned pages of a
 *     read()/write() chunk, hf_quarantine_hold() what else a run used (a
 *     pin, through hf_pin_quarantine(), with a callback that lets go of
 *     it), each with the descriptor storage of the run that wedged the
 *     channel; the pin's provider unpin waits for the release;
 *   - hf_chan_usable(), at the start of every run, looks again: an engine
 *     found idle is released (the quarantine freed) and used, one still
 *     busy fails at once with -EIO and a text that names the channel;
 *   - removal and shutdown stop and prove idle every engine, then turn bus
 *     mastering off before anything is freed (hf_engines_quiesce(),
 *     hf_engine.c), and only then release the quarantines
 *     (hf_card_release_quarantines());
 *   - a reset of the card (PCIe error recovery, a function or bus reset)
 *     sets every engine up again and proves it idle; only the quarantines
 *     of engines proven idle go (hf_card_release_idle_quarantines());
 *   - a pin whose memory goes away behind our back (revocation) while a
 *     wedged channel holds it turns bus mastering off too
 *     (hf_card_bus_off()): the card can reach nothing any more, until the
 *     driver is unbound and bound again.
 * docs/driver-stop.md describes the rules for users.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "compat.h"
#include "hf_drv.h"

/**
 * hf_quarantine_log() - say once per wedge that a channel is wedged.
 * @chan: the channel
 * @what: what it keeps
 */
static void hf_quarantine_log(struct hf_chan *chan, const char *what)
{
	dev_err(hf_dev(chan->card),
		"%s wedged: the engine was not proven idle after a failed run (still busy, or the card reads all ones); keeping %s allocated until it is; the channel refuses transfers meanwhile (unbind and bind the driver to reset the card)\n",
		hf_chan_name(chan), what);
}

/**
 * hf_quarantine_rw() - keep a read()/write() chunk the wedged engine has.
 * @chan: the channel, locked, its engine wedged
 * @sgt: the chunk's mapped table; taken over (the caller forgets it)
 * @npages: pages of @chan->pages pinned for the chunk; the array is taken
 *	over too (a new one is allocated for the next chunk)
 *
 * The channel's descriptor storage goes with it.
 */
void hf_quarantine_rw(struct hf_chan *chan, struct sg_table *sgt,
		      unsigned int npages)
{
	struct hf_quarantine *q = &chan->q;

	lockdep_assert_held(&chan->lock);
	q->held = true;
	q->has_rw = true;
	q->sgt = *sgt;
	memset(sgt, 0, sizeof(*sgt));
	q->pages = chan->pages;
	q->npages = npages;
	q->c2h = chan->dir == XDMA_C2H;
	chan->pages = NULL;
	chan->pages_cap = 0;
	q->mem = chan->mem;
	memset(&chan->mem, 0, sizeof(chan->mem));
	hf_xdma_chain_init(&chan->chain, NULL, 0, 0);
	hf_quarantine_log(chan, "the user buffer's pages and mapping");
}

/**
 * hf_quarantine_hold() - keep the chain of a run the wedged engine has, and
 *	what else the run used.
 * @chan: the channel, locked, its engine wedged
 * @mem: storage of the chain; taken over (emptied)
 * @release: called by hf_quarantine_release() with @data to let go of the
 *	rest (a pin: hf_pin_quarantine()), once nothing can reach it
 * @data: its argument
 * @what: what is kept, for the message
 */
void hf_quarantine_hold(struct hf_chan *chan, struct hf_desc_mem *mem,
			void (*release)(void *data), void *data,
			const char *what)
{
	struct hf_quarantine *q = &chan->q;

	lockdep_assert_held(&chan->lock);
	q->held = true;
	q->release = release;
	q->release_data = data;
	q->mem = *mem;
	memset(mem, 0, sizeof(*mem));
	hf_quarantine_log(chan, what);
}

/**
 * hf_quarantine_hold_wb() - a wedged engine also keeps the host pin its
 *	run's writeback went to.
 * @chan: the channel, locked, its quarantine held (hf_quarantine_hold())
 * @release: lets go of that pin at the quarantine's release
 * @data: its argument
 */
void hf_quarantine_hold_wb(struct hf_chan *chan, void (*release)(void *data),
			   void *data)
{
	lockdep_assert_held(&chan->lock);
	chan->q.wb_release = release;
	chan->q.wb_release_data = data;
}

/**
 * hf_quarantine_release() - free what a wedged engine held.
 * @chan: the channel, locked; its engine proven idle, or bus mastering off
 */
void hf_quarantine_release(struct hf_chan *chan)
{
	struct hf_quarantine *q = &chan->q;
	struct hf_card *card = chan->card;

	lockdep_assert_held(&chan->lock);
	if (!q->held)
		return;
	if (q->has_rw) {
		enum dma_data_direction dir = q->c2h ? DMA_FROM_DEVICE :
						       DMA_TO_DEVICE;

		/*
		 * The read() or write() returned long ago: what the card wrote
		 * into a bounce buffer since is not the user's data any more.
		 */
		hf_dma_unmap_sgtable(hf_dev(card), &q->sgt, dir,
				     DMA_ATTR_SKIP_CPU_SYNC);
		sg_free_table(&q->sgt);
		hf_unpin_user_pages(q->pages, q->npages, q->c2h);
		kvfree(q->pages);
	}
	hf_desc_mem_free(card, &q->mem);
	if (q->release)
		q->release(q->release_data);
	if (q->wb_release)
		q->wb_release(q->wb_release_data);
	memset(q, 0, sizeof(*q));
	dev_info(hf_dev(card), "%s: wedged run's memory released\n",
		 hf_chan_name(chan));
}

/**
 * hf_chan_usable() - whether a run may start on a channel.
 * @hf: the file asking (its last error is set on failure)
 * @chan: the channel, locked
 *
 * A wedged channel is looked at again (hf_xdma_engine_recover()): once its
 * engine is idle its quarantine is released and it is used again.
 *
 * Return: 0, -ENODEV (card removed), -EIO (wedged, or bus mastering off),
 * -EINTR.
 */
int hf_chan_usable(struct hf_file *hf, struct hf_chan *chan)
{
	struct hf_card *card = chan->card;
	int ret;

	lockdep_assert_held(&chan->lock);
	if (atomic_read(&card->bus_off)) {
		/* the card reaches nothing any more: safe to free */
		hf_quarantine_release(chan);
		hf_set_error(hf, -EIO,
			     "%s: bus mastering of the card is off since memory a wedged engine could reach had to be freed (see dmesg); unbind and bind the driver to reset the card",
			     hf_chan_name(chan));
		return -EIO;
	}
	if (!chan->engine.wedged)
		return 0;
	ret = hf_card_enter_for(card, hf, NULL);
	if (ret)
		return ret;
	ret = hf_xdma_engine_recover(&chan->engine);
	hf_card_exit(card);
	if (!ret) {
		hf_quarantine_release(chan);
		return 0;
	}
	if (ret == -ENODEV) {
		hf_set_error(hf, ret, "%s: card not responding (reads all ones)",
			     hf_chan_name(chan));
		return ret;
	}
	hf_set_error(hf, -EIO,
		     "%s: channel wedged: its engine is still busy since a run failed; transfers on it are refused until it goes idle (unbind and bind the driver to reset the card)",
		     hf_chan_name(chan));
	return -EIO;
}

/**
 * hf_card_bus_off() - turn the card's bus mastering off for good.
 * @card: the card
 * @why: for the message
 *
 * The last resort when memory a wedged engine could still reach must go
 * (its owner freed it): with bus mastering off the card can neither read
 * nor write host or GPU memory.  Every later run fails until the driver is
 * unbound and bound again.
 */
void hf_card_bus_off(struct hf_card *card, const char *why)
{
	if (atomic_xchg(&card->bus_off, 1))
		return;
	pci_clear_master(card->pdev);
	dev_err(hf_dev(card),
		"bus mastering turned off: %s; the card cannot move data until the driver is unbound and bound again\n",
		why);
}

/**
 * hf_card_release_idle_quarantines() - after a reset of the card, free
 *	what the engines that it left idle held.
 * @card: the card, every engine set up again (hf_engine_reinit())
 *
 * An engine the reset proved idle is wedged no longer; one that is (it did
 * not stop, or the card reads all ones) keeps its quarantine, and its
 * channel refuses transfers until hf_chan_usable() finds it idle.
 */
void hf_card_release_idle_quarantines(struct hf_card *card)
{
	u32 i;

	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_chan *c = hf_chan_at(card, i);

		mutex_lock(&c->lock);
		if (!c->engine.wedged)
			hf_quarantine_release(c);
		hf_chan_unlock(c);
	}
}

/**
 * hf_card_release_quarantines() - free what wedged engines held.
 * @card: the card, bus mastering off
 */
void hf_card_release_quarantines(struct hf_card *card)
{
	u32 i;

	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_chan *c = hf_chan_at(card, i);

		mutex_lock(&c->lock);
		hf_quarantine_release(c);
		hf_chan_unlock(c);
	}
}
