// SPDX-License-Identifier: GPL-2.0
/*
 * The pin core: memory providers, pin lifetime, revocation.
 *
 * A pin is created by HELLOFPGA_IOC_PIN through the provider of its type,
 * registered with hf_p2p_register(): host memory and dma-buf built in
 * (hf_host.c, hf_dmabuf.c; hf_main.c registers them at load), CUDA memory
 * from hellofpga-nvp2p.ko, which registers its own.
 *
 * Runs: XFER marks the pin active on its channel (hf_pin_start_run(), under
 * the channel's lock) for as long as DMA to the pin may be in flight, and
 * clears the mark after the run, which has proven its engine idle
 * (hf_pin_end_run()).  Revocation (hf_pin_revoke(), a provider's callback)
 * and teardown (UNPIN, close, card removal) set @revoked, so no run starts
 * any more, cancel the runs in progress (hf_xdma_engine_cancel()) and wait for
 * the marks to clear: a short, fixed bound (the stop_wait_ms parameter plus
 * a little), never the timeout a user chose for the transfer, and never
 * behind a lock some other transfer holds.  A run that wedges its engine
 * leaves the pin in the channel's quarantine (hf_stop.c): the provider's
 * unpin then waits for the quarantine's release, and a revocation turns
 * the card's bus mastering off, since the memory goes away regardless.
 * The provider's unpin is called once, without any lock of ours held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "compat.h"
#include "hf_drv.h"

#define HF_MAX_PROVIDERS	8
/* Revocation waits stop_wait_ms plus this for the runs of a pin. */
#define HF_PIN_RUN_SLACK_MS	200

static DEFINE_MUTEX(hf_providers_lock);	/* protects hf_providers */
static const struct hf_p2p_ops *hf_providers[HF_MAX_PROVIDERS];

/**
 * hf_p2p_register() - make a memory provider available to PIN.
 * @ops: the provider; must stay valid until hf_p2p_unregister()
 *
 * Return: 0, -EINVAL for incomplete ops, -EBUSY when a provider of the same
 * type is registered, -ENOSPC when the table is full.
 */
int hf_p2p_register(const struct hf_p2p_ops *ops)
{
	int i, free = -1, ret = 0;

	if (!ops || !ops->pin || !ops->unpin || !ops->name)
		return -EINVAL;
	mutex_lock(&hf_providers_lock);
	for (i = 0; i < HF_MAX_PROVIDERS; i++) {
		if (!hf_providers[i]) {
			if (free < 0)
				free = i;
			continue;
		}
		if (hf_providers[i]->type == ops->type) {
			ret = -EBUSY;
			goto out;
		}
	}
	if (free < 0) {
		ret = -ENOSPC;
		goto out;
	}
	hf_providers[free] = ops;
out:
	mutex_unlock(&hf_providers_lock);
	if (ret)
		pr_err("memory provider \"%s\" not registered: %d\n", ops->name,
		       ret);
	else
		pr_info("memory provider \"%s\" registered\n", ops->name);
	return ret;
}
EXPORT_SYMBOL_GPL(hf_p2p_register);

/**
 * hf_p2p_unregister() - withdraw a provider.
 * @ops: the provider given to hf_p2p_register()
 *
 * Called from the provider module's exit, when no pin of it is left (each
 * pin holds the provider's module).
 */
void hf_p2p_unregister(const struct hf_p2p_ops *ops)
{
	int i;

	mutex_lock(&hf_providers_lock);
	for (i = 0; i < HF_MAX_PROVIDERS; i++) {
		if (hf_providers[i] == ops)
			hf_providers[i] = NULL;
	}
	mutex_unlock(&hf_providers_lock);
}
EXPORT_SYMBOL_GPL(hf_p2p_unregister);

/**
 * hf_p2p_get() - the provider of a pin type, with its module held.
 * @type: HELLOFPGA_PIN_*
 *
 * Return: the provider, or NULL when none is registered (or its module is
 * going away).
 */
static const struct hf_p2p_ops *hf_p2p_get(u32 type)
{
	const struct hf_p2p_ops *ops = NULL;
	int i;

	mutex_lock(&hf_providers_lock);
	for (i = 0; i < HF_MAX_PROVIDERS; i++) {
		if (hf_providers[i] && hf_providers[i]->type == type) {
			if (try_module_get(hf_providers[i]->owner))
				ops = hf_providers[i];
			break;
		}
	}
	mutex_unlock(&hf_providers_lock);
	return ops;
}

/**
 * hf_pin_features() - HELLOFPGA_FEAT_* of the registered providers.
 *
 * Return: the OR of their feature bits.
 */
u64 hf_pin_features(void)
{
	u64 feat = 0;
	int i;

	mutex_lock(&hf_providers_lock);
	for (i = 0; i < HF_MAX_PROVIDERS; i++) {
		if (hf_providers[i])
			feat |= hf_providers[i]->feature;
	}
	mutex_unlock(&hf_providers_lock);
	return feat;
}

/**
 * hf_pin_dev() - the device a provider maps the pin's memory for.
 * @pin: the pin
 *
 * Return: the card's struct device.
 */
struct device *hf_pin_dev(struct hf_pin *pin)
{
	return hf_dev(pin->core->card);
}
EXPORT_SYMBOL_GPL(hf_pin_dev);

/**
 * hf_pin_pci_dev() - the PCI device of the card of a pin.
 * @pin: the pin
 *
 * Return: the card's struct pci_dev.
 */
struct pci_dev *hf_pin_pci_dev(struct hf_pin *pin)
{
	return pin->core->card->pdev;
}
EXPORT_SYMBOL_GPL(hf_pin_pci_dev);

/**
 * hf_pin_set_error() - text for a provider's failure, for LAST_ERROR.
 * @pin: the pin
 * @fmt: printf format
 *
 * The text goes to the owning file's last error, prefixed with the
 * provider's name; the errno is the one the provider returns.
 */
void hf_pin_set_error(struct hf_pin *pin, const char *fmt, ...)
{
	struct hf_pin_core *pc = pin->core;
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (pc->hfile)
		hf_set_error(pc->hfile, -EIO, "%s: %pV", pc->ops->name, &vaf);
	else
		dev_dbg(hf_dev(pc->card), "%s: %pV\n", pc->ops->name, &vaf);
	va_end(args);
	pc->err_set = true;
}
EXPORT_SYMBOL_GPL(hf_pin_set_error);

/**
 * hf_pin_sync_sgt() - make the part of a streaming mapping a run moves
 *	coherent, for a provider's sync op.
 * @pin: the pin
 * @sgt: the provider's mapped table; its DMA segments in order hold the
 *	pin's bytes from offset 0
 * @off: first byte of the run in the pin
 * @len: bytes of the run
 * @for_device: before the run (CPU writes -> device), else after a C2H run
 *
 * Only the run's bytes are synced: a concurrent run on another channel
 * over another range of the same pin keeps its data (a whole-table sync
 * would copy stale bounce-buffer bytes over it).  This needs the DMA
 * segments to be the CPU segments (direct mapping and swiotlb: always);
 * an IOMMU that merged segments gets the whole table synced, as before.
 */
void hf_pin_sync_sgt(struct hf_pin *pin, struct sg_table *sgt, u64 off,
		     u64 len, bool for_device)
{
	struct device *dev = hf_pin_dev(pin);
	struct scatterlist *s;
	u64 pos = 0, l, a, n;
	int i;

	if (sgt->nents != sgt->orig_nents) {
		hf_dma_sync_sgtable(dev, sgt, DMA_BIDIRECTIONAL, for_device);
		return;
	}
	for_each_sg(sgt->sgl, s, sgt->nents, i) {
		l = sg_dma_len(s);
		if (pos >= off + len)
			break;
		if (pos + l > off) {
			dma_addr_t d = sg_dma_address(s);

			a = max(off, pos) - pos;
			n = min(off + len, pos + l) - pos - a;
			if (for_device)
				dma_sync_single_range_for_device(dev, d, a, n,
								 DMA_BIDIRECTIONAL);
			else
				dma_sync_single_range_for_cpu(dev, d, a, n,
							      DMA_BIDIRECTIONAL);
		}
		pos += l;
	}
}
EXPORT_SYMBOL_GPL(hf_pin_sync_sgt);

/* How long revocation and teardown wait for a pin's runs to end. */
static unsigned long hf_pin_run_wait(void)
{
	return msecs_to_jiffies(hf_stop_wait_ms + HF_PIN_RUN_SLACK_MS);
}

/**
 * hf_pin_cancel_runs() - cancel the runs of a pin in progress.
 * @pc: the pin, state_lock held, @revoked set
 */
static void hf_pin_cancel_runs(struct hf_pin_core *pc)
	__must_hold(&pc->state_lock)
{
	unsigned long act = pc->active;
	int bit;

	for_each_set_bit(bit, &act, XDMA_MAX_ENGINES) {
		struct hf_chan *c = hf_chan_by_index(pc->card, bit);
		struct work_struct *w;

		if (!c)
			continue;
		hf_xdma_engine_cancel(&c->engine);
		/* a stream ring in the pin: ended by its work, not a wait */
		w = READ_ONCE(c->revoke_work);
		if (w)
			queue_work(system_unbound_wq, w);
	}
}

/**
 * hf_pin_wait_runs() - wait, bounded, for the runs of a pin to end.
 * @pc: the pin, @revoked set and its runs cancelled
 *
 * Return: true when none is left.
 */
static bool hf_pin_wait_runs(struct hf_pin_core *pc)
{
	return wait_event_timeout(pc->wq, !READ_ONCE(pc->active),
				  hf_pin_run_wait()) > 0;
}

/**
 * hf_pin_start_run() - mark a pin busy on a channel before its DMA starts.
 * @pc: the pin
 * @chan: the channel, locked
 *
 * Also clears the engine's cancel flag: from here on only a revocation of
 * @pc may cancel the run.
 *
 * Return: 0, or -EFAULT when the pin is revoked or torn down.
 */
int hf_pin_start_run(struct hf_pin_core *pc, struct hf_chan *chan)
{
	int ret = 0;

	lockdep_assert_held(&chan->lock);
	spin_lock(&pc->state_lock);
	if (pc->revoked) {
		ret = -EFAULT;
	} else {
		WRITE_ONCE(chan->engine.cancel, false);
		pc->active |= BIT(chan->index);
	}
	spin_unlock(&pc->state_lock);
	return ret;
}

/**
 * hf_pin_end_run() - the run of a pin on a channel is over.
 * @pc: the pin
 * @chan: the channel, locked; its engine proven idle, or the pin in its
 *	quarantine (hf_pin_quarantine())
 */
void hf_pin_end_run(struct hf_pin_core *pc, struct hf_chan *chan)
{
	lockdep_assert_held(&chan->lock);
	spin_lock(&pc->state_lock);
	pc->active &= ~BIT(chan->index);
	spin_unlock(&pc->state_lock);
	wake_up_all(&pc->wq);
}

/**
 * hf_pin_stream_begin() - a stream ring in a pin starts on a channel.
 * @pc: the pin
 * @chan: the channel, locked, its revoke_work set
 *
 * Marks the pin active on @chan for the ring's whole life, as a run
 * (hf_pin_start_run()), and counts the stream: UNPIN is refused with
 * -EBUSY while it runs; a revocation or teardown queues the channel's
 * revoke_work, which ends the ring and calls hf_pin_stream_end().
 *
 * Return: 0, or -EFAULT when the pin is revoked or torn down.
 */
int hf_pin_stream_begin(struct hf_pin_core *pc, struct hf_chan *chan)
{
	int ret;

	ret = hf_pin_start_run(pc, chan);
	if (!ret) {
		spin_lock(&pc->state_lock);
		pc->streams++;
		spin_unlock(&pc->state_lock);
	}
	return ret;
}

/**
 * hf_pin_stream_end() - the stream ring of hf_pin_stream_begin() ended.
 * @pc: the pin
 * @chan: the channel, locked; its engine proven idle, or the pin in its
 *	quarantine
 */
void hf_pin_stream_end(struct hf_pin_core *pc, struct hf_chan *chan)
{
	spin_lock(&pc->state_lock);
	pc->streams--;
	spin_unlock(&pc->state_lock);
	hf_pin_end_run(pc, chan);
}

/**
 * hf_pin_lookup() - a pin of a file by handle, referenced.
 * @hf: the file
 * @handle: the handle
 *
 * Return: the pin (hf_pin_put() it), or NULL.
 */
struct hf_pin_core *hf_pin_lookup(struct hf_file *hf, u64 handle)
{
	struct hf_pin_core *pc = NULL;

	if (!handle || handle > INT_MAX)
		return NULL;
	mutex_lock(&hf->pins_lock);
	pc = idr_find(&hf->pins, handle);
	if (pc)
		kref_get(&pc->ref);
	mutex_unlock(&hf->pins_lock);
	return pc;
}

/**
 * hf_pin_revoke() - stop all DMA to a pin, for good.
 * @pin: the pin
 *
 * Called by a provider when the memory goes away behind the driver's back
 * (NVIDIA's free callback, a dma-buf move_notify).  Returns when no DMA to
 * the pin is in flight and none will start: runs in progress are cancelled
 * and end within a fixed bound (their engine's idle proof, at most the
 * stop_wait_ms parameter); should one not be provably over by then, or
 * should a wedged channel hold the pin's memory, the card's bus mastering
 * is turned off.  Every later XFER fails.  The provider's unpin is still
 * called later (at UNPIN or close) and must cope with memory it already
 * released.  Takes only the pin's own spinlock; may sleep.
 */
void hf_pin_revoke(struct hf_pin *pin)
{
	struct hf_pin_core *pc = pin->core;
	bool was, held;

	spin_lock(&pc->state_lock);
	was = pc->revoked;
	pc->revoked = true;
	hf_pin_cancel_runs(pc);
	spin_unlock(&pc->state_lock);
	if (!was)
		dev_info(hf_dev(pc->card), "pin %llu (%s) revoked by its provider\n",
			 pc->handle, pc->ops->name);
	held = !hf_pin_wait_runs(pc);
	spin_lock(&pc->state_lock);
	held |= pc->quarantined || pc->active;
	spin_unlock(&pc->state_lock);
	if (held)
		hf_card_bus_off(pc->card,
				"the memory of a pin that a wedged engine may still reach was revoked by its owner");
}
EXPORT_SYMBOL_GPL(hf_pin_revoke);

/**
 * hf_pin_release() - free a pin core when its last reference goes.
 * @ref: its kref
 */
static void hf_pin_release(struct kref *ref)
{
	struct hf_pin_core *pc = container_of(ref, struct hf_pin_core, ref);

	if (pc->mm)
		mmdrop(pc->mm);
	kfree(pc);
}

/**
 * hf_pin_put() - drop a reference to a pin.
 * @pc: the pin
 */
void hf_pin_put(struct hf_pin_core *pc)
{
	kref_put(&pc->ref, hf_pin_release);
}

/**
 * hf_pin_charge() - charge pages to the pinning process's locked memory.
 * @pc: the pin
 * @pages: pages
 *
 * RLIMIT_MEMLOCK of the calling task applies unless it has CAP_IPC_LOCK
 * (account_locked_vm()), as for every other long-term pin of host memory.
 *
 * Return: 0, or -ENOMEM over the limit.
 */
static int hf_pin_charge(struct hf_pin_core *pc, unsigned long pages)
{
	int ret;

	if (!pages)
		return 0;
	ret = hf_account_locked_vm(pc->mm, pages, true);
	if (!ret)
		atomic_long_add(pages, &pc->locked);
	return ret;
}

/**
 * hf_pin_limit_error() - the text of a failed charge.
 * @hf: the file
 * @pages: pages asked for
 * @op: the call ("PIN", "XFER", "STREAM_START")
 * @what: what they are
 *
 * Return: -ENOMEM.
 */
static int hf_pin_limit_error(struct hf_file *hf, unsigned long pages,
			      const char *op, const char *what)
{
	hf_set_error(hf, -ENOMEM,
		     "%s: %s: %lu KiB more locked memory than RLIMIT_MEMLOCK (%lu KiB) allows (ulimit -l; CAP_IPC_LOCK lifts it)",
		     op, what, pages << (PAGE_SHIFT - 10),
		     rlimit(RLIMIT_MEMLOCK) >> 10);
	return -ENOMEM;
}

/*
 * Descriptor storage for a chain of a pin, charged to the pinning
 * process's locked memory; @op names the call in the error text.
 */
static int hf_pin_chain_reserve(struct hf_file *hf, struct hf_pin_core *pc,
				struct hf_pin_chain *pch, u32 n,
				const char *op)
{
	unsigned long need, have = 0;
	int ret;

	if (pch->mem.cpu && pch->mem.cap >= n)
		return 0;
	need = hf_desc_mem_pages(n);
	if (pch->mem.cpu)
		have = hf_desc_mem_pages(pch->mem.cap);
	/* the old storage stays charged until it is freed */
	if (hf_pin_charge(pc, need))
		return hf_pin_limit_error(hf, need, op, "descriptor storage");
	ret = hf_desc_mem_reserve(pc->card, &pch->mem, n);
	if (ret) {
		hf_account_locked_vm(pc->mm, need, false);
		atomic_long_sub(need, &pc->locked);
		hf_set_error(hf, ret, "%s: no coherent memory for %u descriptors",
			     op, n);
		return ret;
	}
	/* the old storage was freed: its charge goes */
	hf_account_locked_vm(pc->mm, have, false);
	atomic_long_sub(have, &pc->locked);
	return 0;
}

/**
 * hf_pin_ring_reserve() - descriptor storage for an XFER's chain of a pin.
 * @hf: the file asking (its last error is set on failure)
 * @pc: the pin
 * @pch: the chain
 * @n: descriptors it needs
 *
 * The storage is host memory the pin keeps between XFERs as long as it
 * lives: it is charged to the pinning process's locked memory like the
 * pin itself.
 *
 * Return: 0, or -ENOMEM (over RLIMIT_MEMLOCK, or no memory).
 */
int hf_pin_ring_reserve(struct hf_file *hf, struct hf_pin_core *pc,
			struct hf_pin_chain *pch, u32 n)
{
	return hf_pin_chain_reserve(hf, pc, pch, n, "XFER");
}

/**
 * hf_pin_stream_reserve() - descriptor storage of a stream ring in a pin.
 * @hf: the file starting the ring (its last error is set on failure)
 * @pc: the pin, claimed by the ring (hf_pin_stream_begin())
 * @chan: the ring's channel, locked
 * @n: descriptors (and writeback slots) it needs
 *
 * Charged to the pinning process's locked memory while the ring lives:
 * hf_pin_stream_free() gives the storage and its charge back when the
 * ring ends.
 *
 * Return: 0, or -ENOMEM (over RLIMIT_MEMLOCK, or no memory).
 */
int hf_pin_stream_reserve(struct hf_file *hf, struct hf_pin_core *pc,
			  struct hf_chan *chan, u32 n)
{
	lockdep_assert_held(&chan->lock);
	return hf_pin_chain_reserve(hf, pc, &pc->chains[chan->dir][chan->ch],
				    n, "STREAM_START");
}

/**
 * hf_pin_stream_free() - free a ring's descriptor storage and its charge.
 * @pc: the pin
 * @chan: the ring's channel, locked, its engine proven idle
 */
void hf_pin_stream_free(struct hf_pin_core *pc, struct hf_chan *chan)
{
	struct hf_pin_chain *pch = &pc->chains[chan->dir][chan->ch];
	unsigned long have = 0;

	lockdep_assert_held(&chan->lock);
	if (pch->mem.cpu)
		have = hf_desc_mem_pages(pch->mem.cap);
	hf_desc_mem_free(pc->card, &pch->mem);
	pch->cache.valid = false;
	hf_account_locked_vm(pc->mm, have, false);
	atomic_long_sub(have, &pc->locked);
}

/* The provider's unpin, then the segment list it set up. */
static void hf_pin_unpin(struct hf_pin_core *pc)
{
	pc->ops->unpin(&pc->pin);
	kvfree(pc->pin.segs);
	pc->pin.segs = NULL;
	pc->pin.nsegs = 0;
	pc->pin.priv = NULL;
}

/**
 * hf_pin_give_back() - the provider's unpin and the accounting, once.
 * @pc: the pin: torn down, and no wedged engine holds its memory
 */
static void hf_pin_give_back(struct hf_pin_core *pc)
{
	struct hf_card *card = pc->card;

	hf_pin_unpin(pc);
	module_put(pc->ops->owner);
	atomic64_sub(pc->accounted, &card->pinned_bytes);
	atomic64_dec(&card->pins);
	hf_account_locked_vm(pc->mm, atomic_long_xchg(&pc->locked, 0), false);
}

/**
 * hf_pin_teardown() - revoke a pin, free its chains and unpin it.
 * @pc: the pin, referenced by the caller
 *
 * Cancels runs in progress and waits for them (bounded, as revocation).
 * Idempotent: the first caller releases the memory (the provider's unpin,
 * its module, the accounting), or leaves that to the release of the
 * quarantine of a wedged channel that holds it; later callers only wait
 * for runs to end.
 */
void hf_pin_teardown(struct hf_pin_core *pc)
{
	struct hf_card *card = pc->card;
	bool first, defer;
	u32 dir, ch;

	spin_lock(&pc->state_lock);
	pc->revoked = true;
	first = !pc->released;
	pc->released = true;
	hf_pin_cancel_runs(pc);
	spin_unlock(&pc->state_lock);
	if (!hf_pin_wait_runs(pc)) {
		/* A run that does not end: the card must not reach the pin. */
		hf_card_bus_off(card, "a transfer of a pin being released did not end");
		wait_event(pc->wq, !READ_ONCE(pc->active));
	}
	if (!first)
		return;
	/* No run of the pin is in progress nor can start: the chains are ours. */
	for (dir = 0; dir < 2; dir++) {
		for (ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
			hf_desc_mem_free(card, &pc->chains[dir][ch].mem);
			pc->chains[dir][ch].cache.valid = false;
		}
	}
	pc->hfile = NULL;
	spin_lock(&pc->state_lock);
	defer = pc->quarantined;
	pc->unpin_deferred = defer;
	spin_unlock(&pc->state_lock);
	if (!defer)
		hf_pin_give_back(pc);
}

/**
 * hf_pin_quarantine_release() - a wedged channel lets go of a pin.
 * @data: the pin (struct hf_pin_core), referenced by the quarantine
 *
 * The last one to let go of a pin already torn down gives its memory back.
 */
static void hf_pin_quarantine_release(void *data)
{
	struct hf_pin_core *pc = data;
	bool give;

	spin_lock(&pc->state_lock);
	give = !--pc->quarantined && pc->unpin_deferred;
	if (give)
		pc->unpin_deferred = false;
	spin_unlock(&pc->state_lock);
	if (give)
		hf_pin_give_back(pc);
	hf_pin_put(pc);
}

/**
 * hf_pin_quarantine() - a wedged engine keeps a pin it was running.
 * @pc: the pin, its run on @chan still marked active
 * @chan: the channel, locked, its engine wedged
 *
 * The channel's quarantine takes a reference on the pin and the storage of
 * its chain for @chan; the provider's unpin is deferred until the
 * quarantine's release (hf_quarantine_release()).
 */
void hf_pin_quarantine(struct hf_pin_core *pc, struct hf_chan *chan)
{
	struct hf_pin_chain *pch = &pc->chains[chan->dir][chan->ch];

	lockdep_assert_held(&chan->lock);
	kref_get(&pc->ref);
	spin_lock(&pc->state_lock);
	pc->quarantined++;
	spin_unlock(&pc->state_lock);
	hf_quarantine_hold(chan, &pch->mem, hf_pin_quarantine_release, pc,
			   "the pinned buffer and its mapping");
	pch->cache.valid = false;
}

/**
 * hf_pin_quarantine_wb() - a wedged engine keeps the host pin its run's
 *	writeback went to (HELLOFPGA_XFER_WB, HELLOFPGA_STREAM_WB_PIN).
 * @pc: the pin, its run on @chan still marked active
 * @chan: the channel, locked, its quarantine just held for the run's
 *	other memory (hf_pin_quarantine(), or a stream ring's)
 *
 * As hf_pin_quarantine(), without a chain: the card may still write the
 * word, so the provider's unpin waits for the quarantine's release.
 */
void hf_pin_quarantine_wb(struct hf_pin_core *pc, struct hf_chan *chan)
{
	lockdep_assert_held(&chan->lock);
	kref_get(&pc->ref);
	spin_lock(&pc->state_lock);
	pc->quarantined++;
	spin_unlock(&pc->state_lock);
	hf_quarantine_hold_wb(chan, hf_pin_quarantine_release, pc);
}

/**
 * hf_pin_check_segs() - sanity of a provider's segments.
 * @pc: the pin, pinned
 *
 * Return: 0, or -EIO when the segments are empty, wrap or do not cover the
 * pin's size.
 */
static int hf_pin_check_segs(struct hf_pin_core *pc)
{
	struct hf_pin *pin = &pc->pin;
	u64 total = 0;
	u32 i;

	if (!pin->segs || !pin->nsegs)
		return -EIO;
	for (i = 0; i < pin->nsegs; i++) {
		const struct hf_sg *s = &pin->segs[i];

		if (!s->len || s->addr + s->len - 1 < s->addr ||
		    total + s->len < total)
			return -EIO;
		total += s->len;
	}
	return total >= pin->size ? 0 : -EIO;
}

/**
 * hf_pin_create() - pin memory by a PIN request (fields validated).
 * @hf: the file that will own the pin
 * @req: the request
 * @out: the pin, with one reference (the caller's), not in any table
 *
 * Accounts the size against the card's pin limit first, and host memory
 * against the pinning process's RLIMIT_MEMLOCK.
 *
 * Return: 0 or a negative errno with the file's last error set: -ENOMEM
 * (card's pin limit or RLIMIT_MEMLOCK reached, or no memory), -EOPNOTSUPP
 * (no provider for the type), or the provider's error.
 */
int hf_pin_create(struct hf_file *hf, const struct hellofpga_pin *req,
		  struct hf_pin_core **out)
{
	struct hf_card *card = hf->card;
	const struct hf_p2p_ops *ops;
	struct hf_pin_core *pc;
	u64 now;
	int ret;

	ops = hf_p2p_get(req->type);
	if (!ops) {
		if (req->type == HELLOFPGA_PIN_CUDA)
			hf_set_error(hf, -EOPNOTSUPP,
				     "CUDA memory needs the nvidia_p2p provider: load hellofpga-nvp2p.ko (modprobe hellofpga-nvp2p), which needs the NVIDIA driver");
		else
			hf_set_error(hf, -EOPNOTSUPP,
				     "no provider for pin type %u in this kernel",
				     req->type);
		return -EOPNOTSUPP;
	}

	now = req->size;
	if (req->size <= card->pin_limit) {
		now = atomic64_add_return(req->size, &card->pinned_bytes);
		if (now > card->pin_limit)
			atomic64_sub(req->size, &card->pinned_bytes);
	}
	if (now > card->pin_limit) {
		hf_set_error(hf, -ENOMEM,
			     "pin limit reached: %llu bytes pinned, %llu more asked, limit %llu (module parameter pin_limit_mb)",
			     (u64)atomic64_read(&card->pinned_bytes), req->size,
			     card->pin_limit);
		ret = -ENOMEM;
		goto err_module;
	}

	pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	if (!pc) {
		ret = -ENOMEM;
		hf_set_error(hf, ret, "no memory for a pin");
		goto err_account;
	}
	kref_init(&pc->ref);
	spin_lock_init(&pc->state_lock);
	init_waitqueue_head(&pc->wq);
	pc->ops = ops;
	pc->card = card;
	pc->hfile = hf;
	pc->accounted = req->size;
	pc->pin.addr = req->addr;
	pc->pin.size = req->size;
	pc->pin.core = pc;
	if (current->mm) {
		mmgrab(current->mm);
		pc->mm = current->mm;
	}
	if (req->type == HELLOFPGA_PIN_HOST) {
		u64 pages = DIV_ROUND_UP(offset_in_page(req->addr) + req->size,
					 PAGE_SIZE);

		if (pages > ULONG_MAX || hf_pin_charge(pc, pages)) {
			ret = hf_pin_limit_error(hf, pages, "PIN", "host memory");
			goto err_free;
		}
	}

	ret = ops->pin(&pc->pin, req);
	if (ret) {
		if (pc->err_set)
			hf_set_errno(hf, ret);
		else
			hf_set_error(hf, ret, "%s: pinning 0x%llx bytes at 0x%llx failed (%d)",
				     ops->name, req->size, req->addr, ret);
		goto err_free;
	}
	ret = hf_pin_check_segs(pc);
	if (ret) {
		hf_set_error(hf, ret, "%s: provider returned bad segments",
			     ops->name);
		hf_pin_unpin(pc);
		goto err_free;
	}
	atomic64_inc(&card->pins);
	*out = pc;
	return 0;

err_free:
	hf_account_locked_vm(pc->mm, atomic_long_read(&pc->locked), false);
	if (pc->mm)
		mmdrop(pc->mm);
	kfree(pc);
err_account:
	atomic64_sub(req->size, &card->pinned_bytes);
err_module:
	module_put(ops->owner);
	return ret;
}

/**
 * hf_file_release_pins() - tear down every pin of a closing file.
 * @hf: the file
 */
void hf_file_release_pins(struct hf_file *hf)
{
	struct hf_pin_core *pc;
	int id;

	for (;;) {
		id = 0;
		mutex_lock(&hf->pins_lock);
		pc = idr_get_next(&hf->pins, &id);
		if (pc) {
			idr_remove(&hf->pins, id);
			hf->npins--;
		}
		mutex_unlock(&hf->pins_lock);
		if (!pc)
			break;
		hf_pin_teardown(pc);
		hf_pin_put(pc);
	}
}

/**
 * hf_card_release_pins() - tear down the pins of every file of a card.
 * @card: the card, dead (no new pin is added to a table after this)
 *
 * The pins stay in their tables (UNPIN and close still find them) but hold
 * no memory and no DMA mapping any more.
 */
void hf_card_release_pins(struct hf_card *card)
{
	struct hf_pin_core *pc;
	struct hf_file *hf;
	int id;

	mutex_lock(&card->files_lock);
	list_for_each_entry(hf, &card->files, node) {
		for (id = 0;; id++) {
			mutex_lock(&hf->pins_lock);
			pc = idr_get_next(&hf->pins, &id);
			if (pc)
				kref_get(&pc->ref);
			mutex_unlock(&hf->pins_lock);
			if (!pc)
				break;
			hf_pin_teardown(pc);
			hf_pin_put(pc);
		}
	}
	mutex_unlock(&card->files_lock);
}
