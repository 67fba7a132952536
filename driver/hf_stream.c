// SPDX-License-Identifier: GPL-2.0
/*
 * C2H AXI-Stream rings of the c2h nodes: HELLOFPGA_IOC_STREAM_*, poll() and
 * the read-only mmap() of a ring in driver memory (include/uapi/hellofpga.h
 * says the rules).  The ring is the engine core's (struct hf_xdma_ring);
 * this file gives it memory, serialises it and ends it safely.
 *
 * One stream per C2H channel (hf_chan.stream), owned by the open file that
 * started it (hf_file.stream).  Every ring call runs under the channel's
 * lock; a WAIT holds it while it sleeps, so a RELEASE from another thread
 * marks its buffer in @released and kicks the wait, which hands every
 * marked buffer to the engine before it sleeps again and wakes the
 * RELEASE (hf_chan.lock_wq).
 *
 * Memory: HELLOFPGA_MEM_HOST rings are physically contiguous page blocks,
 * one per buffer, mapped for DMA (streaming, synced per buffer) and
 * reference counted (struct hf_stream_pages) by the stream and by every
 * mapping of them, so munmap() may come in any order, and counted as long
 * as they exist (the card's pin_limit_mb, the starter's user against
 * RLIMIT_MEMLOCK, its memory cgroup); HELLOFPGA_MEM_PIN
 * rings lie in a pin of the control node, which the stream marks active
 * on its channel (hf_pin_start_run()) for the ring's whole life: a
 * revocation or teardown of the pin queues @revoke_work (through
 * hf_chan.revoke_work), which stops the ring and proves the engine idle
 * before it clears the mark and lets the pin's memory go.
 *
 * Ending a ring (hf_stream_halt()): engine stopped and proven idle, then
 * the DMA mappings and the descriptors go; on STOP, last close, card
 * removal or shutdown, PCIe error recovery, the pin's revocation.  A ring
 * whose engine cannot be proven idle leaves its memory in the channel's
 * quarantine (hf_stop.c).
 *
 * Writeback slots: in the ring's descriptor storage, or with
 * HELLOFPGA_STREAM_WB_PIN in a host pin of the control node (user memory
 * a GPU may map), claimed as a MEM_PIN ring's pin is (hf_pin_stream_begin():
 * UNPIN -EBUSY, its teardown ends the ring first) and marked with the
 * error mark (hf_xdma_ring_mark_error()) whenever the ring ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "hf_drv.h"
#include "../refdesign/hf_user_regs.h"

/* MEM_HOST: the largest buffer, one block of contiguous pages. */
#define HF_STREAM_HOST_MAX	(4u << 20)

/* Why a ring ended in a PCIe error recovery or a reset (WAIT's -EIO). */
#define HF_STREAM_RECOVERY_MSG \
	"stream stopped by a reset or PCIe error recovery of the card (see dmesg): STOP it and start again"

/**
 * struct hf_stream_pages - the buffers of a MEM_HOST ring.
 * @ref: the stream (until its ring ends), each mapping, a quarantine
 * @card: the card (referenced)
 * @accounted: bytes counted in @card's pinned_bytes (pin_limit_mb)
 * @dev: the device the buffers are mapped for (the card's)
 * @n: buffers
 * @size: bytes per buffer
 * @order: page order of each buffer
 * @cred: the starter's credentials (referenced: free_uid() is not
 *	exported before 6.1), whose user is charged with @locked pages;
 *	NULL when the starter had CAP_IPC_LOCK
 * @locked: pages charged to @cred's user's locked memory
 * @mapped: the buffers are DMA-mapped (@bus valid)
 * @bus: bus address of each buffer
 * @pages: first page of each buffer
 *
 * The charges live as long as the pages and go with the last reference:
 * the close of a mapping (under mmap_lock; a forked child's may outlive
 * the ring and the process that started it by far) or the release of a
 * wedged channel's quarantine.
 */
struct hf_stream_pages {
	refcount_t ref;
	struct hf_card *card;
	u64 accounted;
	struct device *dev;
	u32 n;
	u64 size;
	unsigned int order;
	const struct cred *cred;
	unsigned long locked;
	bool mapped;
	dma_addr_t *bus;
	struct page *pages[];
};

/**
 * struct hf_stream - a C2H stream ring.
 * @ref: the owning file's link (hf_file.stream), each call using it
 *	without the channel's lock (RELEASE, the kick of STOP)
 * @hf: the open file that owns it
 * @chan: its channel
 * @ring: the engine core's ring
 * @mem_kind: HELLOFPGA_MEM_HOST or HELLOFPGA_MEM_PIN
 * @n: buffers
 * @buf_size: bytes per buffer
 * @mem: MEM_HOST: descriptor and writeback storage
 * @pages: MEM_HOST: the buffers, NULL once the ring ended (set under
 *	the channel's lock and the file's stream_lock)
 * @pc: MEM_PIN: the pin (referenced), its run marked on @chan while
 *	@claimed
 * @pin_off: MEM_PIN: offset of buffer 0 in the pin
 * @claimed: MEM_PIN: the pin is marked active on @chan
 * @wpc: HELLOFPGA_STREAM_WB_PIN: the host pin of the writeback slots
 *	(referenced), its run marked on @chan while @wb_claimed
 * @wb_claimed: @wpc is marked active on @chan
 * @wbw: the slots in @wpc, mapped while the ring has memory
 * @live: the ring has memory and may be running (not halted)
 * @err: why the ring ended on its own (-EIO, -ENODEV), 0 while it did not
 * @why: its text
 * @held: buffers WAIT handed out and not released (bit per buffer)
 * @released: buffers released while a WAIT held the ring, to hand over
 *	(hf_stream_apply_releases(), which wakes the channel's lock_wq)
 * @nheld: bits of @held
 * @wake_user: a HELLOFPGA_STREAM_WAKE asked the wait to return EAGAIN
 * @stopping: STOPs waiting for the channel: the wait returns -ENOENT;
 *	each STOP counts itself until it returns, interrupted or not
 * @ref_design: the card is the reference design: its source's DROPPED
 *	counter is read at EOP buffers
 * @drop_last: DROPPED at the last EOP buffer handed out
 * @revoke_work: ends the ring when its pin goes (hf_chan.revoke_work)
 * @poll_work: poll-mode cards: wakes poll() waiters to look again
 */
struct hf_stream {
	struct kref ref;
	struct hf_file *hf;
	struct hf_chan *chan;
	struct hf_xdma_ring ring;
	u32 mem_kind;
	u32 n;
	u64 buf_size;
	struct hf_desc_mem mem;
	struct hf_stream_pages *pages;
	struct hf_pin_core *pc;
	u64 pin_off;
	bool claimed;
	struct hf_pin_core *wpc;
	bool wb_claimed;
	struct hf_host_words wbw;
	bool live;
	int err;
	char why[160];
	DECLARE_BITMAP(held, XDMA_RING_MAX);
	DECLARE_BITMAP(released, XDMA_RING_MAX);
	atomic_t nheld;
	bool wake_user;
	atomic_t stopping;
	bool ref_design;
	u32 drop_last;
	struct work_struct revoke_work;
	struct delayed_work poll_work;
};

/*
 * Drop a reference; the last one frees the pages and gives back their
 * charges.  Any context that may sleep, mmap_lock held or not.
 */
static void hf_stream_pages_put(struct hf_stream_pages *sp)
{
	u32 i;

	if (!refcount_dec_and_test(&sp->ref))
		return;
	for (i = 0; i < sp->n; i++)
		if (sp->pages[i])
			__free_pages(sp->pages[i], sp->order);
	if (sp->cred) {
		hf_user_locked_uncharge(sp->cred->user, sp->locked);
		put_cred(sp->cred);
	}
	atomic64_sub(sp->accounted, &sp->card->pinned_bytes);
	hf_card_put(sp->card);
	kfree(sp->bus);
	kfree(sp);
}

/* Unmap the buffers of a ring whose engine is proven idle (or bus off). */
static void hf_stream_pages_unmap(struct hf_stream_pages *sp)
{
	u32 i;

	if (!sp->mapped)
		return;
	for (i = 0; i < sp->n; i++)
		dma_unmap_page(sp->dev, sp->bus[i], sp->size, DMA_FROM_DEVICE);
	sp->mapped = false;
}

/* A quarantine of a wedged channel lets go of a ring's buffers. */
static void hf_stream_pages_q_release(void *data)
{
	struct hf_stream_pages *sp = data;

	hf_stream_pages_unmap(sp);
	hf_stream_pages_put(sp);
}

/**
 * hf_stream_pages_charge() - count a MEM_HOST ring's pages before they are
 *	allocated: the card's pin_limit_mb, the starter's RLIMIT_MEMLOCK.
 * @hf: the file (its last error is set on failure)
 * @sp: the ring's buffers, none allocated yet
 *
 * The locked-memory charge goes to the starter's user (struct
 * user_struct, through its credentials), not to its process: the pages
 * may outlive the process through a forked child's mapping.  CAP_IPC_LOCK
 * lifts the limit, as for pins.
 *
 * Return: 0, or -ENOMEM with nothing charged.
 */
static int hf_stream_pages_charge(struct hf_file *hf,
				  struct hf_stream_pages *sp)
{
	struct hf_card *card = sp->card;
	unsigned long pages = (unsigned long)(sp->size >> PAGE_SHIFT) * sp->n;
	u64 bytes = sp->size * sp->n, now;

	now = atomic64_add_return(bytes, &card->pinned_bytes);
	if (now > card->pin_limit) {
		atomic64_sub(bytes, &card->pinned_bytes);
		hf_set_error(hf, -ENOMEM,
			     "STREAM_START: pin limit reached: %llu bytes pinned, a ring of %llu more asked, limit %llu (module parameter pin_limit_mb)",
			     now - bytes, bytes, card->pin_limit);
		return -ENOMEM;
	}
	if (!capable(CAP_IPC_LOCK)) {
		const struct cred *cred = get_current_cred();

		if (hf_user_locked_charge(cred->user, pages)) {
			put_cred(cred);
			atomic64_sub(bytes, &card->pinned_bytes);
			hf_set_error(hf, -ENOMEM,
				     "STREAM_START: a ring of %lu KiB is more locked memory than RLIMIT_MEMLOCK (%lu KiB) allows this user, whose rings count until their last mapping goes (ulimit -l; CAP_IPC_LOCK lifts it)",
				     pages << (PAGE_SHIFT - 10),
				     rlimit(RLIMIT_MEMLOCK) >> 10);
			return -ENOMEM;
		}
		sp->cred = cred;
		sp->locked = pages;
	}
	sp->accounted = bytes;
	return 0;
}

/**
 * hf_stream_pages_alloc() - allocate, charge and map a MEM_HOST ring.
 * @hf: the file (its last error is set on failure)
 * @n: buffers
 * @size: bytes per buffer, a multiple of PAGE_SIZE, validated
 *
 * The pages are charged to the starter's memory cgroup too
 * (__GFP_ACCOUNT).
 *
 * Return: the buffers with one reference, or an ERR_PTR.
 */
static struct hf_stream_pages *hf_stream_pages_alloc(struct hf_file *hf,
						     u32 n, u64 size)
{
	struct hf_card *card = hf->card;
	struct device *dev = hf_dev(card);
	struct hf_stream_pages *sp;
	u32 i;

	sp = kzalloc(struct_size(sp, pages, n), GFP_KERNEL);
	if (!sp)
		goto nomem;
	sp->bus = kcalloc(n, sizeof(*sp->bus), GFP_KERNEL);
	if (!sp->bus) {
		kfree(sp);
		goto nomem;
	}
	refcount_set(&sp->ref, 1);
	kref_get(&card->ref);
	sp->card = card;
	sp->dev = dev;
	sp->n = n;
	sp->size = size;
	sp->order = get_order(size);
	if (hf_stream_pages_charge(hf, sp)) {
		hf_stream_pages_put(sp);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < n; i++) {
		sp->pages[i] = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					   __GFP_NOWARN, sp->order);
		if (!sp->pages[i]) {
			hf_set_error(hf, -ENOMEM,
				     "STREAM_START: no %llu contiguous bytes for buffer %u of the ring",
				     size, i);
			hf_stream_pages_put(sp);
			return ERR_PTR(-ENOMEM);
		}
	}
	for (i = 0; i < n; i++) {
		sp->bus[i] = dma_map_page(dev, sp->pages[i], 0, size,
					  DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, sp->bus[i])) {
			while (i--)
				dma_unmap_page(dev, sp->bus[i], size,
					       DMA_FROM_DEVICE);
			hf_set_error(hf, -ENOMEM,
				     "STREAM_START: the DMA layer could not map buffer %u (%llu bytes)",
				     i, size);
			hf_stream_pages_put(sp);
			return ERR_PTR(-ENOMEM);
		}
	}
	sp->mapped = true;
	return sp;

nomem:
	hf_set_error(hf, -ENOMEM, "STREAM_START: no memory");
	return ERR_PTR(-ENOMEM);
}

/* The channel of a c2h node's file. */
static struct hf_chan *hf_stream_chan(struct hf_file *hf)
{
	return &hf->card->chans[XDMA_C2H][hf->index];
}

/* Make a buffer's bytes the CPU's (after the engine filled it). */
static void hf_stream_sync_cpu(struct hf_stream *st, u32 i, u32 len)
{
	if (st->mem_kind == HELLOFPGA_MEM_HOST) {
		if (len)
			dma_sync_single_for_cpu(st->pages->dev,
						st->pages->bus[i], len,
						DMA_FROM_DEVICE);
	} else if (st->pc->ops->sync && len) {
		st->pc->ops->sync(&st->pc->pin, st->pin_off + i * st->buf_size,
				  len, false);
	}
}

/* Give a buffer's bytes back to the device (before the engine refills it). */
static void hf_stream_sync_dev(struct hf_stream *st, u32 i)
{
	if (st->mem_kind == HELLOFPGA_MEM_HOST)
		dma_sync_single_for_device(st->pages->dev, st->pages->bus[i],
					   st->buf_size, DMA_FROM_DEVICE);
	else if (st->pc->ops->sync)
		st->pc->ops->sync(&st->pc->pin, st->pin_off + i * st->buf_size,
				  st->buf_size, true);
}

/*
 * Hand the buffers released meanwhile to the engine; channel locked.  The
 * RELEASEs that marked them wait for it on the channel's lock_wq.
 */
static void hf_stream_apply_releases(struct hf_stream *st)
{
	bool any = false;
	u32 i;

	lockdep_assert_held(&st->chan->lock);
	/* a kick seen, then the marks made before it */
	smp_rmb();
	for_each_set_bit(i, st->released, st->n) {
		if (st->live) {
			hf_stream_sync_dev(st, i);
			hf_xdma_ring_release(&st->ring, i);
		}
		clear_bit(i, st->released);
		any = true;
	}
	if (any)
		wake_up(&st->chan->lock_wq);
}

/**
 * hf_stream_halt() - end a ring: engine stopped and proven idle, its DMA
 *	mappings and descriptors gone.
 * @st: the stream, its channel locked
 * @err: 0 for a stop asked for (STOP, close), else the error later WAITs
 *	return (-EIO, -ENODEV)
 * @why: the text for @err
 *
 * Return: 0, or -EIO when the engine could not be proven idle (still busy,
 * or the card reads all ones): the ring's memory went to the channel's
 * quarantine.
 */
static int hf_stream_halt(struct hf_stream *st, int err, const char *why)
{
	struct hf_chan *chan = st->chan;
	struct hf_card *card = chan->card;
	struct hf_xdma_result res;
	bool wedged = false;
	int ret = 0;

	lockdep_assert_held(&chan->lock);
	if (err && !st->err) {
		st->err = err;
		strscpy(st->why, why, sizeof(st->why));
	}
	if (!st->live)
		return 0;
	/* registers: under hw_lock, as every run (removal waits for it) */
	down_read(&card->hw_lock);
	if (!card->dead)
		ret = hf_xdma_ring_stop(&st->ring, &res);
	up_read(&card->hw_lock);
	/* -ENODEV (all ones) proves nothing either: the memory stays */
	if (ret && res.wedged) {
		wedged = true;
		dev_err(hf_dev(card), "%s\n", res.msg);
	}
	st->live = false;
	/* no buffer completes any more: GPU waits on the slots end now */
	if (st->wb_claimed)
		hf_xdma_ring_mark_error(&st->ring);
	bitmap_zero(st->held, XDMA_RING_MAX);
	bitmap_zero(st->released, XDMA_RING_MAX);
	atomic_set(&st->nheld, 0);
	if (st->mem_kind == HELLOFPGA_MEM_HOST) {
		struct hf_stream_pages *sp;

		/* mmap() takes the pages under stream_lock only */
		spin_lock(&st->hf->stream_lock);
		sp = st->pages;
		st->pages = NULL;
		spin_unlock(&st->hf->stream_lock);
		/* the charges go with the pages, at the last put */
		if (wedged) {
			hf_quarantine_hold(chan, &st->mem,
					   hf_stream_pages_q_release, sp,
					   "the stream ring's buffers");
		} else if (sp) {
			hf_stream_pages_unmap(sp);
			hf_stream_pages_put(sp);
		}
		hf_desc_mem_free(card, &st->mem);
	} else if (st->claimed) {
		if (wedged)
			hf_pin_quarantine(st->pc, chan);
		else
			hf_pin_stream_free(st->pc, chan);
		hf_pin_stream_end(st->pc, chan);
		st->claimed = false;
	}
	if (st->wb_claimed) {
		hf_host_words_unmap(&st->wbw);
		if (wedged)
			hf_pin_quarantine_wb(st->wpc, chan);
		hf_pin_stream_end(st->wpc, chan);
		st->wb_claimed = false;
	}
	WRITE_ONCE(chan->revoke_work, NULL);
	/* pollers look again: the stream is over */
	wake_up(&chan->engine.irq_event.wq);
	return wedged ? -EIO : 0;
}

/* The pin of a MEM_PIN ring went: end the ring before its memory does. */
static void hf_stream_revoke_work(struct work_struct *w)
{
	struct hf_stream *st = container_of(w, struct hf_stream, revoke_work);
	struct hf_chan *chan = st->chan;

	mutex_lock(&chan->lock);
	hf_stream_halt(st, -EIO,
		       "stream stopped: its pin was revoked or released (the GPU memory was freed, or the control node closed)");
	hf_chan_unlock(chan);
}

/* Poll-mode cards: no interrupt wakes poll(); look again in a tick. */
static void hf_stream_poll_work(struct work_struct *w)
{
	struct hf_stream *st = container_of(to_delayed_work(w),
					    struct hf_stream, poll_work);

	wake_up(&st->chan->engine.irq_event.wq);
}

/* Free a stream whose ring ended; channel not locked, stream unlinked. */
static void hf_stream_free(struct kref *ref)
{
	struct hf_stream *st = container_of(ref, struct hf_stream, ref);

	cancel_work_sync(&st->revoke_work);
	cancel_delayed_work_sync(&st->poll_work);
	if (st->pc)
		hf_pin_put(st->pc);
	if (st->wpc)
		hf_pin_put(st->wpc);
	kfree(st);
}

/* The file's stream, referenced (hf_stream_put()), or NULL; no lock held. */
static struct hf_stream *hf_stream_get(struct hf_file *hf)
{
	struct hf_stream *st;

	spin_lock(&hf->stream_lock);
	st = hf->stream;
	if (st)
		kref_get(&st->ref);
	spin_unlock(&hf->stream_lock);
	return st;
}

static void hf_stream_put(struct hf_stream *st)
{
	kref_put(&st->ref, hf_stream_free);
}

/**
 * hf_stream_unlink() - end a file's stream and take it off the channel.
 * @hf: the file
 * @st: its stream, channel locked
 *
 * Return: what hf_stream_halt() returned.
 */
static int hf_stream_unlink(struct hf_file *hf, struct hf_stream *st)
{
	struct hf_chan *chan = st->chan;
	int ret;

	ret = hf_stream_halt(st, 0, NULL);
	chan->stream = NULL;
	spin_lock(&hf->stream_lock);
	hf->stream = NULL;
	spin_unlock(&hf->stream_lock);
	return ret;
}

/* Refusals common to the STREAM_* ioctls: -EOPNOTSUPP, -ENOTTY. */
static int hf_stream_node_ok(struct hf_file *hf, const char *what)
{
	if (hf->type != HF_NODE_C2H) {
		hf_set_error(hf, -ENOTTY, "%s: an ioctl of the c2h nodes", what);
		return -ENOTTY;
	}
	if (!hf->card->xdev.stream) {
		hf_set_error(hf, -EOPNOTSUPP,
			     "%s: the card's channels are memory-mapped, not AXI-Stream",
			     what);
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * hf_stream_lock() - the channel of a file's stream, locked.
 * @hf: the file
 * @what: the ioctl, for the error text
 * @out: the stream
 *
 * Return: 0 with the channel locked, -ENOENT (no stream of this file),
 * -EINTR.
 */
static int hf_stream_lock(struct hf_file *hf, const char *what,
			  struct hf_stream **out)
{
	struct hf_chan *chan = hf_stream_chan(hf);

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	if (!hf->stream) {
		hf_chan_unlock(chan);
		hf_set_error(hf, -ENOENT,
			     "%s: no stream started on this open file of C2H%u",
			     what, hf->index);
		return -ENOENT;
	}
	*out = hf->stream;
	return 0;
}

/* A pin of the control node @fd refers to, referenced; or an ERR_PTR. */
static struct hf_pin_core *hf_stream_find_pin(struct hf_file *hf, int fd,
					      u64 handle, const char *what)
{
	struct hf_pin_core *pc = NULL;
	struct hf_file *owner;
	struct file *f;

	/* fget(): the same on every kernel (struct fd changed in 6.12) */
	f = fget(fd);
	if (!f) {
		hf_set_error(hf, -EBADF, "STREAM_START: %s %d is not open",
			     what, fd);
		return ERR_PTR(-EBADF);
	}
	owner = f->private_data;
	if (f->f_op != hf->filp->f_op || !owner ||
	    owner->card != hf->card || owner->type != HF_NODE_CONTROL) {
		fput(f);
		hf_set_error(hf, -EBADF,
			     "STREAM_START: %s %d is not the control node of %s",
			     what, fd, hf->card->name);
		return ERR_PTR(-EBADF);
	}
	pc = hf_pin_lookup(owner, handle);
	fput(f);
	if (!pc) {
		hf_set_error(hf, -ENOENT,
			     "STREAM_START: no pin with handle %llu on that control node",
			     handle);
		return ERR_PTR(-ENOENT);
	}
	return pc;
}

/* Check a STREAM_START request's fields; -EINVAL with the text set. */
static int hf_stream_check_cfg(struct hf_file *hf,
			       const struct hellofpga_stream_config *c,
			       u32 gran)
{
	const char *bad = NULL;

	if ((c->flags & ~HELLOFPGA_STREAM_WB_PIN) || c->mmap_size ||
	    c->start_flags || memchr_inv(c->reserved, 0, sizeof(c->reserved)))
		bad = "flags: 0 or WB_PIN; mmap_size, start_flags, reserved 0";
	else if (!(c->flags & HELLOFPGA_STREAM_WB_PIN) &&
		 (c->wb_handle || c->wb_offset || c->wb_fd))
		bad = "wb_handle, wb_offset, wb_fd must be 0 without WB_PIN";
	else if ((c->flags & HELLOFPGA_STREAM_WB_PIN) &&
		 !(hf_pin_features() & HELLOFPGA_FEAT_PIN_HOST))
		bad = "WB_PIN needs FEAT_STREAM_WB_PIN (host pins)";
	else if ((c->flags & HELLOFPGA_STREAM_WB_PIN) &&
		 (!c->wb_handle || c->wb_fd < 0 ||
		  !IS_ALIGNED(c->wb_offset, XDMA_STM_WB_SIZE)))
		bad = "WB_PIN: wb_handle, wb_fd name a pin, wb_offset 32-aligned";
	else if (c->buffers < XDMA_RING_MIN || c->buffers > XDMA_RING_MAX)
		bad = "buffers must be 2..512";
	else if (!c->buffer_size || c->buffer_size > XDMA_DESC_MAX_LEN ||
		 !IS_ALIGNED(c->buffer_size, 4096) ||
		 !IS_ALIGNED(c->buffer_size, (u64)gran))
		bad = "buffer_size: 4096..268431360, 4 KiB and engine-aligned";
	else if (c->mem != HELLOFPGA_MEM_HOST && c->mem != HELLOFPGA_MEM_PIN)
		bad = "mem must be HELLOFPGA_MEM_HOST or HELLOFPGA_MEM_PIN";
	else if (c->mem == HELLOFPGA_MEM_HOST &&
		 (c->pin_handle || c->pin_offset || c->pin_fd != -1))
		bad = "MEM_HOST: pin_handle and pin_offset must be 0, pin_fd -1";
	else if (c->mem == HELLOFPGA_MEM_PIN &&
		 (!c->pin_handle || c->pin_fd < 0 ||
		  !IS_ALIGNED(c->pin_offset, 4096)))
		bad = "MEM_PIN: pin_handle and pin_fd name a pin, pin_offset a multiple of 4096";
	if (!bad)
		return 0;
	hf_set_error(hf, -EINVAL, "STREAM_START: %s", bad);
	return -EINVAL;
}

/* MEM_HOST: buffers and storage, the ring built; channel locked. */
static int hf_stream_setup_host(struct hf_stream *st, struct hf_sg *sg)
{
	struct hf_file *hf = st->hf;
	struct hf_card *card = hf->card;
	size_t max = hf_dma_max_mapping_size(hf_dev(card));
	struct hf_stream_pages *sp;
	int ret;
	u32 i;

	if (!PAGE_ALIGNED(st->buf_size) || st->buf_size > HF_STREAM_HOST_MAX ||
	    st->buf_size > max) {
		hf_set_error(hf, -EINVAL,
			     "STREAM_START: MEM_HOST buffers are multiples of %lu bytes, at most %zu here (one contiguous block the DMA layer maps in one piece); use more buffers, or a pin",
			     PAGE_SIZE, min_t(size_t, HF_STREAM_HOST_MAX, max));
		return -EINVAL;
	}
	sp = hf_stream_pages_alloc(hf, st->n, st->buf_size);
	if (IS_ERR(sp))
		return PTR_ERR(sp);
	st->pages = sp;
	/* descriptors, then the writeback slots: 32 bytes each */
	ret = hf_desc_mem_reserve(card, &st->mem, 2 * st->n);
	if (ret) {
		hf_set_error(hf, ret,
			     "STREAM_START: no coherent memory for the ring's descriptors");
		return ret;
	}
	for (i = 0; i < st->n; i++) {
		sg[i].addr = sp->bus[i];
		sg[i].len = st->buf_size;
	}
	return 0;
}

/* MEM_PIN: the pin claimed, storage, the list; channel locked. */
static int hf_stream_setup_pin(struct hf_stream *st,
			       const struct hellofpga_stream_config *c)
{
	struct hf_file *hf = st->hf;
	struct hf_chan *chan = st->chan;
	struct hf_pin_core *pc;
	u64 bytes = st->buf_size * st->n;
	int ret;

	pc = hf_stream_find_pin(hf, c->pin_fd, c->pin_handle, "pin_fd");
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	st->pc = pc;
	st->pin_off = c->pin_offset;
	if (pc->read_only) {
		hf_set_error(hf, -EACCES,
			     "STREAM_START: pin %llu is read-only (a dma-buf whose file is not open for writing): a C2H ring cannot lie in it",
			     c->pin_handle);
		return -EACCES;
	}
	if (c->pin_offset > pc->pin.size || bytes > pc->pin.size - c->pin_offset) {
		hf_set_error(hf, -ERANGE,
			     "STREAM_START: a ring of %u x %llu bytes at offset 0x%llx lies past the end of the pin (0x%llx bytes)",
			     st->n, st->buf_size, c->pin_offset, pc->pin.size);
		return -ERANGE;
	}
	WRITE_ONCE(chan->revoke_work, &st->revoke_work);
	ret = hf_pin_stream_begin(pc, chan);
	if (ret) {
		WRITE_ONCE(chan->revoke_work, NULL);
		hf_set_error(hf, -ENOENT,
			     "STREAM_START: pin %llu is being released or was revoked",
			     c->pin_handle);
		return -ENOENT;
	}
	st->claimed = true;
	return hf_pin_stream_reserve(hf, pc, chan, 2 * st->n);
}

/* STREAM_WB_PIN: the slots' host pin claimed and mapped; channel locked. */
static int hf_stream_setup_wb(struct hf_stream *st,
			      const struct hellofpga_stream_config *c)
{
	struct hf_file *hf = st->hf;
	struct hf_chan *chan = st->chan;
	u64 len = (u64)st->n * XDMA_STM_WB_SIZE;
	struct hf_pin_core *pc;
	int ret;

	pc = hf_stream_find_pin(hf, c->wb_fd, c->wb_handle, "wb_fd");
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	st->wpc = pc;
	if (pc->ops != &hf_host_ops) {
		hf_set_error(hf, -EINVAL,
			     "STREAM_START: wb_handle %llu is a %s pin: the writeback slots must lie in a host pin (HELLOFPGA_PIN_HOST)",
			     c->wb_handle, pc->ops->name);
		return -EINVAL;
	}
	if (c->wb_offset > pc->pin.size || len > pc->pin.size - c->wb_offset) {
		hf_set_error(hf, -EINVAL,
			     "STREAM_START: %u writeback slots of 32 bytes at wb_offset 0x%llx lie past the end of pin %llu (0x%llx bytes)",
			     st->n, c->wb_offset, c->wb_handle, pc->pin.size);
		return -EINVAL;
	}
	WRITE_ONCE(chan->revoke_work, &st->revoke_work);
	if (hf_pin_stream_begin(pc, chan)) {
		hf_set_error(hf, -ENOENT,
			     "STREAM_START: pin %llu is being released",
			     c->wb_handle);
		return -ENOENT;
	}
	st->wb_claimed = true;
	ret = hf_host_words_map(&pc->pin, c->wb_offset, len, &st->wbw);
	if (ret == -EOPNOTSUPP)
		hf_set_error(hf, ret,
			     "STREAM_START: HELLOFPGA_STREAM_WB_PIN: pin %llu's DMA mapping needs CPU syncs (swiotlb bounce buffers or a non-coherent device): the card's writebacks would not reach the memory a GPU watches",
			     c->wb_handle);
	else if (ret == -EINVAL)
		hf_set_error(hf, ret,
			     "STREAM_START: HELLOFPGA_STREAM_WB_PIN: the %llu bytes of slots at wb_offset 0x%llx do not lie in one contiguous bus piece of pin %llu (keep them in one page, or use an IOMMU)",
			     len, c->wb_offset, c->wb_handle);
	else if (ret)
		hf_set_error(hf, ret, "STREAM_START: cannot map the writeback slots");
	return ret;
}

/* STREAM_START, channel locked: may a ring start on it? */
static int hf_stream_start_check(struct hf_file *hf, struct hf_chan *chan)
{
	if (chan->stream) {
		hf_set_error(hf, -EBUSY, "STREAM_START: a stream runs on C2H%u already%s",
			     hf->index, hf->stream ? " (this open file's)" : "");
		return -EBUSY;
	}
	if (READ_ONCE(hf->card->dead)) {
		hf_set_error(hf, -ENODEV, "STREAM_START: card removed");
		return -ENODEV;
	}
	return hf_chan_usable(hf, chan);
}

/*
 * STREAM_START of a pin's ring: the ring's part of the pin's bus pieces,
 * from its offset on, as a list of its own in *@sgp (kvfree()).
 */
static int hf_stream_pin_sg(struct hf_stream *st, u32 nsg, struct hf_sg **sgp)
{
	u64 skip = st->pin_off;
	const struct hf_sg *s = st->pc->pin.segs;
	struct hf_sg *sg;

	while (nsg && skip >= s->len) {
		skip -= s->len;
		s++;
		nsg--;
	}
	sg = kvcalloc(nsg, sizeof(*sg), GFP_KERNEL);
	*sgp = sg;
	if (!sg)
		return -ENOMEM;
	memcpy(sg, s, nsg * sizeof(*sg));
	sg[0].addr += skip;
	sg[0].len -= skip;
	return nsg;
}

/*
 * STREAM_START, channel locked and usable, @st live: the ring's memory,
 * writeback slots and descriptors, its buffers synced for the card.  The
 * scatter list built on the way is left in *@sgp (kvfree()).
 */
static int hf_stream_setup(struct hf_stream *st,
			   const struct hellofpga_stream_config *c,
			   struct hf_sg **sgp)
{
	struct hf_file *hf = st->hf;
	struct hf_chan *chan = st->chan;
	struct hf_desc_mem *mem = NULL;
	struct hf_xdma_result res;
	struct hf_sg *sg = NULL;
	u32 nsg = 0, id;
	int ret;

	if (c->mem == HELLOFPGA_MEM_HOST) {
		sg = kvcalloc(st->n, sizeof(*sg), GFP_KERNEL);
		*sgp = sg;
		ret = sg ? hf_stream_setup_host(st, sg) : -ENOMEM;
		mem = &st->mem;
		nsg = st->n;
	} else {
		ret = hf_stream_setup_pin(st, c);
		/* st->pc is NULL when no pin was found */
		if (!ret) {
			mem = &st->pc->chains[XDMA_C2H][chan->ch].mem;
			nsg = st->pc->pin.nsegs;
		}
	}
	if (!ret && (c->flags & HELLOFPGA_STREAM_WB_PIN))
		ret = hf_stream_setup_wb(st, c);
	if (ret)
		return ret;
	if (st->wb_claimed)
		ret = hf_xdma_ring_init(&st->ring, &chan->engine, mem->cpu,
					mem->bus, st->wbw.cpu, st->wbw.bus,
					st->n);
	else
		ret = hf_xdma_ring_init(&st->ring, &chan->engine, mem->cpu,
					mem->bus,
					(u8 *)mem->cpu +
					(size_t)st->n * XDMA_DESC_SIZE,
					mem->bus + (u64)st->n * XDMA_DESC_SIZE,
					st->n);
	if (ret) {
		hf_set_error(hf, ret, "STREAM_START: ring set-up failed");
		return ret;
	}
	if (c->mem != HELLOFPGA_MEM_HOST) {
		ret = hf_stream_pin_sg(st, nsg, sgp);
		if (ret < 0)
			return ret;
		nsg = ret;
		sg = *sgp;
	}
	ret = hf_xdma_ring_build(&st->ring, sg, nsg, st->buf_size, &res);
	if (ret) {
		hf_set_error(hf, ret, "STREAM_START: %s", res.msg);
		return ret;
	}
	for (id = 0; id < st->n; id++)
		hf_stream_sync_dev(st, id);
	return 0;
}

/*
 * STREAM_START, the ring set up: what the reference design's source has
 * dropped so far, then the engine started on the ring.
 */
static int hf_stream_start_ring(struct hf_stream *st)
{
	struct hf_file *hf = st->hf;
	struct hf_chan *chan = st->chan;
	struct hf_card *card = hf->card;
	struct hf_xdma_result res;
	u32 id;
	int ret;

	if (card->user_bar && card->user_bar_size >=
	    HF_USER_ST_SRC(chan->ch) + HF_ST_SRC_DROPPED + 4) {
		ret = hf_card_enter_for(card, hf, "STREAM_START");
		if (ret)
			return ret;
		id = ioread32((u8 __iomem *)card->user_bar + HF_USER_ID);
		st->ref_design = id == HF_USER_ID_VALUE;
		if (st->ref_design)
			st->drop_last = ioread32((u8 __iomem *)card->user_bar +
						 HF_USER_ST_SRC(chan->ch) +
						 HF_ST_SRC_DROPPED);
		hf_card_exit(card);
	}
	ret = hf_card_enter_for(card, hf, "STREAM_START");
	if (ret)
		return ret;
	/* from here on only a revocation of the pin cancels the ring */
	WRITE_ONCE(chan->engine.cancel, false);
	ret = hf_xdma_ring_start(&st->ring, &res);
	ret = hf_run_exit(chan, ret, &res);
	if (ret) {
		hf_set_error(hf, ret == -ENODEV ? -ENODEV : -EIO,
			     "STREAM_START: %s", res.msg);
		return ret == -ENODEV ? -ENODEV : -EIO;
	}
	return 0;
}

/*
 * STREAM_START: check the configuration (hf_stream_check_cfg()) and the
 * channel (hf_stream_start_check()), set the ring up (hf_stream_setup()),
 * start it (hf_stream_start_ring()) and publish it.
 */
static long hf_ioc_stream_start(struct hf_file *hf, void __user *uarg)
{
	struct hf_chan *chan = hf_stream_chan(hf);
	struct hellofpga_stream_config c;
	struct hf_stream *st;
	struct hf_sg *sg = NULL;
	int ret;

	if (copy_from_user(&c, uarg, sizeof(c))) {
		hf_set_error(hf, -EFAULT, "STREAM_START: bad argument pointer");
		return -EFAULT;
	}
	ret = hf_stream_check_cfg(hf, &c, max(chan->engine.addr_align,
					      chan->engine.len_gran));
	if (ret)
		return ret;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	kref_init(&st->ref);
	st->hf = hf;
	st->chan = chan;
	st->mem_kind = c.mem;
	st->n = c.buffers;
	st->buf_size = c.buffer_size;
	INIT_WORK(&st->revoke_work, hf_stream_revoke_work);
	INIT_DELAYED_WORK(&st->poll_work, hf_stream_poll_work);

	ret = hf_chan_lock(chan, hf_file_timeout_ns(hf));
	if (ret) {
		hf_set_error(hf, ret == -EBUSY ? -EBUSY : -EINTR,
			     "STREAM_START: %s", ret == -EBUSY ?
			     "the channel stayed busy until the timeout" :
			     "interrupted");
		kfree(st);
		return ret;
	}
	ret = hf_stream_start_check(hf, chan);
	if (ret)
		goto err_unlock;
	/* from here on hf_stream_halt() undoes what is set up */
	st->live = true;
	ret = hf_stream_setup(st, &c, &sg);
	if (!ret)
		ret = hf_stream_start_ring(st);
	kvfree(sg);
	if (ret) {
		hf_stream_halt(st, 0, NULL);
		goto err_unlock;
	}
	chan->stream = st;
	spin_lock(&hf->stream_lock);
	hf->stream = st;
	spin_unlock(&hf->stream_lock);
	c.mmap_size = c.mem == HELLOFPGA_MEM_HOST ? st->buf_size * st->n : 0;
	c.start_flags = st->ring.resync ? HELLOFPGA_STREAM_STARTED_RESYNC : 0;
	hf_chan_unlock(chan);
	if (copy_to_user(uarg, &c, sizeof(c))) {
		hf_set_error(hf, -EFAULT,
			     "STREAM_START: bad argument pointer (the stream runs: STOP it)");
		return -EFAULT;
	}
	return 0;

err_unlock:
	hf_chan_unlock(chan);
	hf_stream_put(st);
	return ret;
}

/* STREAM_WAIT once its argument is checked: the next filled buffer. */
static int hf_stream_wait_locked(struct hf_file *hf,
				 struct hellofpga_stream_frame *fp)
{
	struct hellofpga_stream_frame f = *fp;
	struct hf_chan *chan = hf_stream_chan(hf);
	struct hf_card *card = hf->card;
	struct hf_xdma_ring_buf b;
	struct hf_xdma_result res;
	struct hf_stream *st;
	u64 deadline, now;
	u32 drop;
	int ret;

	ret = hf_stream_lock(hf, "STREAM_WAIT", &st);
	if (ret)
		return ret;
	deadline = ktime_get_ns() + f.timeout_ns;
	for (;;) {
		if (!st->live) {
			ret = st->err ? st->err : -EIO;
			hf_set_error(hf, ret, "STREAM_WAIT: %s", st->err ?
				     st->why : "stream stopped");
			goto out;
		}
		hf_stream_apply_releases(st);
		if (atomic_read(&st->stopping)) {
			ret = -ENOENT;
			hf_set_error(hf, ret, "STREAM_WAIT: the stream was stopped");
			goto out;
		}
		if (READ_ONCE(st->wake_user)) {
			WRITE_ONCE(st->wake_user, false);
			ret = -EAGAIN;
			hf_set_error(hf, ret, "STREAM_WAIT: woken by HELLOFPGA_STREAM_WAKE");
			goto out;
		}
		ret = hf_card_enter_for(card, hf, "STREAM_WAIT");
		if (ret)
			goto out;
		now = ktime_get_ns();
		ret = hf_xdma_ring_wait(&st->ring,
					deadline > now ? deadline - now : 0,
					&b, &res);
		hf_card_exit(card);
		if (ret != -EAGAIN)
			break;
	}
	if (ret == -ECANCELED) {
		/* the pin is going: end the ring before its memory does */
		hf_stream_halt(st, -EIO,
			       "stream stopped: its pin was revoked or released (the GPU memory was freed, or the control node closed)");
		ret = -EIO;
		hf_set_error(hf, ret, "STREAM_WAIT: %s", st->why);
		goto out;
	}
	if (ret == -ENODEV && READ_ONCE(card->recovering) &&
	    !READ_ONCE(card->dead)) {
		/* cut short by a recovery, which halts the ring next */
		ret = -EIO;
		hf_set_error(hf, ret, "STREAM_WAIT: %s", HF_STREAM_RECOVERY_MSG);
		goto out;
	}
	if (ret) {
		if (ret == -EIO || ret == -ENODEV) {
			hf_report_run(hf, chan, &res);
			/* the engine stopped: GPU waits on the slots end */
			if (st->wb_claimed)
				hf_xdma_ring_mark_error(&st->ring);
		} else {
			hf_set_error(hf, ret, "STREAM_WAIT: %s", res.msg);
		}
		goto out;
	}
	hf_stream_sync_cpu(st, b.index, b.len);
	set_bit(b.index, st->held);
	atomic_inc(&st->nheld);
	memset(&f, 0, sizeof(f));
	f.index = b.index;
	f.frame_flags = b.eop ? HELLOFPGA_STREAM_EOP : 0;
	f.length = b.len;
	f.sequence = b.sequence;
	f.frame = b.frame;
	if (b.eop && st->ref_design && !hf_card_enter(card)) {
		drop = ioread32((u8 __iomem *)card->user_bar +
				HF_USER_ST_SRC(chan->ch) + HF_ST_SRC_DROPPED);
		hf_card_exit(card);
		f.dropped = (u32)(drop - st->drop_last);
		st->drop_last = drop;
	}
	f.timestamp_ns = ktime_get_ns();
	f.offset = (st->mem_kind == HELLOFPGA_MEM_PIN ? st->pin_off : 0) +
		   (u64)b.index * st->buf_size;
out:
	/* pollers look again (this wait may have taken what they saw) */
	wake_up(&chan->engine.irq_event.wq);
	hf_chan_unlock(chan);
	if (!ret)
		*fp = f;
	return ret;
}

static long hf_ioc_stream_wait(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_stream_frame f;
	int ret;

	if (copy_from_user(&f, uarg, sizeof(f))) {
		hf_set_error(hf, -EFAULT, "STREAM_WAIT: bad argument pointer");
		return -EFAULT;
	}
	if (f.flags || f.pad || memchr_inv(f.reserved, 0, sizeof(f.reserved))) {
		hf_set_error(hf, -EINVAL, "STREAM_WAIT: flags, pad and reserved must be 0");
		return -EINVAL;
	}
	if (f.timeout_ns > HELLOFPGA_STREAM_MAX_WAIT_NS) {
		hf_set_error(hf, -EINVAL, "STREAM_WAIT: timeout_ns %llu above %llu",
			     f.timeout_ns, HELLOFPGA_STREAM_MAX_WAIT_NS);
		return -EINVAL;
	}
	ret = hf_stream_wait_locked(hf, &f);
	if (!ret && copy_to_user(uarg, &f, sizeof(f))) {
		hf_set_error(hf, -EFAULT,
			     "STREAM_WAIT: bad argument pointer (buffer %u is held)",
			     f.index);
		return -EFAULT;
	}
	return ret;
}

static long hf_ioc_stream_release(struct hf_file *hf, void __user *uarg)
{
	struct hf_chan *chan = hf_stream_chan(hf);
	struct hellofpga_stream_release r;
	struct hf_stream *st;
	int ret = 0;

	if (copy_from_user(&r, uarg, sizeof(r))) {
		hf_set_error(hf, -EFAULT, "STREAM_RELEASE: bad argument pointer");
		return -EFAULT;
	}
	if ((r.flags & ~HELLOFPGA_STREAM_WAKE) ||
	    memchr_inv(r.reserved, 0, sizeof(r.reserved)) ||
	    (r.flags && r.index)) {
		hf_set_error(hf, -EINVAL,
			     "STREAM_RELEASE: flags must be 0 or HELLOFPGA_STREAM_WAKE (then index 0), reserved 0");
		return -EINVAL;
	}
	st = hf_stream_get(hf);
	if (!st) {
		hf_set_error(hf, -ENOENT,
			     "STREAM_RELEASE: no stream started on this open file of C2H%u",
			     hf->index);
		return -ENOENT;
	}
	if (r.flags) {
		WRITE_ONCE(st->wake_user, true);
		hf_xdma_ring_kick(&st->ring);
		goto out;
	}
	if (r.index >= st->n || !test_and_clear_bit(r.index, st->held)) {
		hf_set_error(hf, -EINVAL,
			     "STREAM_RELEASE: buffer %u is not held (a ring of %u buffers)",
			     r.index, st->n);
		ret = -EINVAL;
		goto out;
	}
	atomic_dec(&st->nheld);
	set_bit(r.index, st->released);
	/* the mark before the kick; pairs with hf_stream_apply_releases() */
	smp_mb__after_atomic();
	/*
	 * Without waiting for the channel's lock while a WAIT holds it,
	 * asleep: the buffer is marked and the wait kicked; it hands the
	 * buffer over before it sleeps again, and wakes us.  Returns once
	 * the buffer went to the engine (its writeback slot cleared,
	 * HELLOFPGA_STREAM_WB_PIN), by this call when the channel is free or
	 * by whoever held it; a fatal signal leaves it to the next WAIT.
	 */
	for (;;) {
		if (mutex_trylock(&chan->lock)) {
			hf_stream_apply_releases(st);
			hf_chan_unlock(chan);
			break;
		}
		if (!test_bit(r.index, st->released))
			break;
		hf_xdma_ring_kick(&st->ring);
		if (wait_event_killable(chan->lock_wq,
					!mutex_is_locked(&chan->lock) ||
					!test_bit(r.index, st->released)))
			break;
	}
out:
	hf_stream_put(st);
	return ret;
}

static long hf_ioc_stream_stop(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_stream_stop s;
	struct hf_stream *st, *kst;
	int ret;

	if (copy_from_user(&s, uarg, sizeof(s))) {
		hf_set_error(hf, -EFAULT, "STREAM_STOP: bad argument pointer");
		return -EFAULT;
	}
	if (s.flags || s.pad || memchr_inv(s.reserved, 0, sizeof(s.reserved))) {
		hf_set_error(hf, -EINVAL, "STREAM_STOP: flags, pad and reserved must be 0");
		return -EINVAL;
	}
	/*
	 * A WAIT asleep on the ring lets go of the channel.  The mark is
	 * this call's: an interrupted STOP takes it back, so the stream's
	 * later WAITs wait again.
	 */
	kst = hf_stream_get(hf);
	if (kst) {
		atomic_inc(&kst->stopping);
		hf_xdma_ring_kick(&kst->ring);
	}
	ret = hf_stream_lock(hf, "STREAM_STOP", &st);
	if (!ret) {
		ret = hf_stream_unlink(hf, st);
		hf_chan_unlock(st->chan);
		hf_stream_put(st);
		if (ret)
			hf_set_error(hf, ret,
				     "STREAM_STOP: the engine did not stop: C2H%u is wedged and keeps the ring's memory until it goes idle",
				     hf->index);
	}
	if (kst) {
		atomic_dec(&kst->stopping);
		hf_stream_put(kst);
	}
	return ret;
}

static long hf_ioc_stream_stats(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_stream_stats s;
	struct hf_stream *st;
	int ret;

	if (copy_from_user(&s, uarg, sizeof(s))) {
		hf_set_error(hf, -EFAULT, "STREAM_STATS: bad argument pointer");
		return -EFAULT;
	}
	if (s.flags || memchr_inv(&s.held, 0, sizeof(s) - sizeof(s.flags))) {
		hf_set_error(hf, -EINVAL, "STREAM_STATS: flags and every output field must be 0");
		return -EINVAL;
	}
	ret = hf_stream_lock(hf, "STREAM_STATS", &st);
	if (ret)
		return ret;
	s.held = atomic_read(&st->nheld);
	s.buffers = st->ring.stats.buffers;
	s.frames = st->ring.stats.frames;
	s.bytes = st->ring.stats.bytes;
	s.ring_full = st->ring.stats.ring_full;
	s.skipped = st->ring.stats.skipped;
	s.wakes = st->ring.stats.wakes;
	s.status_reads = st->ring.stats.status_reads;
	s.credit_writes = st->ring.stats.credit_writes;
	s.running = st->live && !st->ring.failed;
	hf_chan_unlock(st->chan);
	if (copy_to_user(uarg, &s, sizeof(s))) {
		hf_set_error(hf, -EFAULT, "STREAM_STATS: bad argument pointer");
		return -EFAULT;
	}
	return 0;
}

/**
 * hf_stream_ioctl() - the STREAM_* ioctls of a c2h node.
 * @hf: the file
 * @cmd: HELLOFPGA_IOC_STREAM_*
 * @uarg: the user's structure
 *
 * Return: 0 or a negative errno with the file's last error set; -ENOTTY
 * for a command that is none of them.
 */
long hf_stream_ioctl(struct hf_file *hf, unsigned int cmd, void __user *uarg)
{
	int ret;

	switch (cmd) {
	case HELLOFPGA_IOC_STREAM_START:
	case HELLOFPGA_IOC_STREAM_WAIT:
	case HELLOFPGA_IOC_STREAM_RELEASE:
	case HELLOFPGA_IOC_STREAM_STOP:
	case HELLOFPGA_IOC_STREAM_STATS:
		break;
	default:
		return -ENOTTY;
	}
	ret = hf_stream_node_ok(hf, "STREAM");
	if (ret)
		return ret;
	switch (cmd) {
	case HELLOFPGA_IOC_STREAM_START:
		return hf_ioc_stream_start(hf, uarg);
	case HELLOFPGA_IOC_STREAM_WAIT:
		return hf_ioc_stream_wait(hf, uarg);
	case HELLOFPGA_IOC_STREAM_RELEASE:
		return hf_ioc_stream_release(hf, uarg);
	case HELLOFPGA_IOC_STREAM_STOP:
		return hf_ioc_stream_stop(hf, uarg);
	default:
		return hf_ioc_stream_stats(hf, uarg);
	}
}

/**
 * hf_stream_poll() - poll() of a c2h node of an AXI-Stream card.
 * @hf: the file
 * @file: its file
 * @wait: the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM while a filled buffer waits for WAIT,
 * EPOLLERR when the file has no stream or its ring ended or failed, else
 * 0.  A WAIT in progress holds the ring: 0 then (it takes the buffer;
 * its end wakes the pollers).
 */
__poll_t hf_stream_poll(struct hf_file *hf, struct file *file,
			poll_table *wait)
{
	struct hf_chan *chan = hf_stream_chan(hf);
	struct hf_card *card = hf->card;
	struct hf_xdma_result res;
	struct hf_stream *st;
	__poll_t mask = 0;
	int ret;

	poll_wait(file, &chan->engine.irq_event.wq, wait);
	if (!mutex_trylock(&chan->lock))
		return 0;
	st = hf->stream;
	if (!st || !st->live) {
		mask = EPOLLERR;
	} else if (hf_card_enter(card)) {
		mask = EPOLLERR;
	} else {
		ret = hf_xdma_ring_ready(&st->ring, &res);
		hf_card_exit(card);
		if (ret > 0)
			mask = EPOLLIN | EPOLLRDNORM;
		else if (ret < 0)
			mask = EPOLLERR;
		else if (chan->engine.poll)
			mod_delayed_work(system_wq, &st->poll_work, 1);
	}
	hf_chan_unlock(chan);
	return mask;
}

static void hf_stream_vm_open(struct vm_area_struct *vma)
{
	struct hf_stream_pages *sp = vma->vm_private_data;

	refcount_inc(&sp->ref);
}

static void hf_stream_vm_close(struct vm_area_struct *vma)
{
	hf_stream_pages_put(vma->vm_private_data);
}

static const struct vm_operations_struct hf_stream_vm_ops = {
	.open = hf_stream_vm_open,
	.close = hf_stream_vm_close,
};

/**
 * hf_stream_mmap() - mmap() of a c2h node: the file's MEM_HOST ring,
 *	read-only, from offset 0.
 * @hf: the file
 * @vma: the mapping
 *
 * The mapping holds the ring's pages, and their charges, until it goes
 * (a fork()ed child's copy too); the engine writes them only while the
 * ring runs.  Shared or private alike: without VM_MAYWRITE nothing is
 * ever copied on write.  The kernel refused a file not open for reading
 * (-EACCES) before this.
 *
 * Return: 0, -EACCES (writable), -EINVAL (offset not 0, longer than the
 * ring), -ENOENT (no MEM_HOST ring running on this file).
 */
int hf_stream_mmap(struct hf_file *hf, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start, off = 0, l;
	struct hf_stream_pages *sp = NULL;
	int ret = 0;
	u32 i;

	if (vma->vm_flags & VM_WRITE) {
		hf_set_error(hf, -EACCES, "mmap: a stream ring is read-only (no PROT_WRITE)");
		return -EACCES;
	}
	if (vma->vm_pgoff) {
		hf_set_error(hf, -EINVAL, "mmap: a stream ring is mapped from offset 0");
		return -EINVAL;
	}
	/* under mmap_lock: not the channel's lock (lock order, hf_drv.h) */
	spin_lock(&hf->stream_lock);
	if (hf->stream && hf->stream->pages) {
		sp = hf->stream->pages;
		refcount_inc(&sp->ref);
	}
	spin_unlock(&hf->stream_lock);
	if (!sp) {
		hf_set_error(hf, -ENOENT,
			     "mmap: no MEM_HOST stream runs on this open file");
		return -ENOENT;
	}
	if (len > sp->size * sp->n) {
		hf_set_error(hf, -EINVAL,
			     "mmap: %lu bytes asked, the ring has %llu",
			     len, sp->size * sp->n);
		hf_stream_pages_put(sp);
		return -EINVAL;
	}
	hf_vm_flags_clear(vma, VM_MAYWRITE);
	hf_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < sp->n && off < len && !ret; i++) {
		l = min_t(unsigned long, len - off, sp->size);
		ret = remap_pfn_range(vma, vma->vm_start + off,
				      page_to_pfn(sp->pages[i]), PAGE_ALIGN(l),
				      vma->vm_page_prot);
		off += PAGE_ALIGN(l);
	}
	if (ret) {
		hf_stream_pages_put(sp);
		hf_set_error(hf, ret, "mmap: mapping the ring failed");
		return ret;
	}
	/* the mapping's reference, dropped by its close */
	vma->vm_private_data = sp;
	vma->vm_ops = &hf_stream_vm_ops;
	return 0;
}

/**
 * hf_stream_file_release() - the last close of a file: end its stream.
 * @hf: the file
 *
 * The engine is stopped and proven idle before anything is freed (a
 * wedged one keeps the memory in the channel's quarantine).
 */
void hf_stream_file_release(struct hf_file *hf)
{
	struct hf_chan *chan;
	struct hf_stream *st;

	if (hf->type != HF_NODE_C2H || !READ_ONCE(hf->stream))
		return;
	chan = hf_stream_chan(hf);
	mutex_lock(&chan->lock);
	st = hf->stream;
	if (st)
		hf_stream_unlink(hf, st);
	hf_chan_unlock(chan);
	if (st)
		hf_stream_put(st);
}

/**
 * hf_card_halt_streams() - end every ring of a card that stops or freezes.
 * @card: the card, its runs aborted (hf_card_abort_runs(): waits return);
 *	for a recovery or reset also frozen, its engines stopped and bus
 *	mastering off (hf_card_freeze())
 * @err: what later WAITs return (-ENODEV removal, -EIO recovery or reset)
 *
 * The streams stay with their files (STOP and close still work).
 */
void hf_card_halt_streams(struct hf_card *card, int err)
{
	u32 ch;

	for (ch = 0; ch < card->xdev.num_c2h; ch++) {
		struct hf_chan *chan = &card->chans[XDMA_C2H][ch];

		mutex_lock(&chan->lock);
		if (chan->stream)
			hf_stream_halt(chan->stream, err, err == -ENODEV ?
				       "stream stopped: card removed" :
				       HF_STREAM_RECOVERY_MSG);
		hf_chan_unlock(chan);
	}
}
