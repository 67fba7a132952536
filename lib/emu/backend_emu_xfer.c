// SPDX-License-Identifier: MIT
/*
 * backend_emu_xfer.c - the emulated card's CPU-path transfers, user
 * registers, counters, link model and user interrupts.
 *
 * Data path of a transfer: the caller's buffer is mapped through the
 * emulated IOMMU (it gets a bus address), the engine core builds a
 * descriptor chain into per-channel DMA-coherent storage (allocated once,
 * grown when a longer chain is needed) and runs the engine; the model's
 * engine thread fetches the descriptors and copies between the caller's
 * buffer and card memory directly: each byte is copied once.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backend_emu_priv.h"
#include "hf_chanlock.h"
#include "hf_user_pages.h"

#define EMU_DESC_MIN		64		/* descriptors per channel at first */
#define EMU_BOUNCE_SIZE		(1u << 20)	/* per engine, aligned engines only */

/* Make sure @e's descriptor storage holds @count descriptors. */
static int reserve_desc(struct hellofpga_dev *dev, struct emu_card *card,
			struct emu_engine *e, u32 count)
{
	u32 cap = EMU_DESC_MIN;
	void *cpu;
	u64 bus;

	if (count <= e->desc_cap)
		return 0;
	while (cap < count)
		cap *= 2;
	cpu = hf_emu_dma_alloc(card->host, (size_t)cap * XDMA_DESC_SIZE, &bus);
	if (!cpu)
		return hf_set_error(dev, -ENOMEM,
				    "cannot allocate %u descriptors", cap);
	if (e->desc_cpu)
		hf_emu_dma_free(card->host, e->desc_cpu, e->desc_bus);
	e->desc_cpu = cpu;
	e->desc_bus = bus;
	e->desc_cap = cap;
	hf_xdma_chain_init(&e->chain, cpu, bus, cap);
	return 0;
}

/**
 * emu_engine_usable() - whether a run may start on an engine.
 * @dev: the card
 * @e: the engine, its channel held
 *
 * An engine left wedged by a failed run (it did not go idle after the
 * stop) is looked at again; the emulated IOMMU keeps it from reaching
 * memory that was unmapped meanwhile (such accesses count as DMA faults).
 *
 * Return: 0, or -EIO (still wedged) / -ENODEV with the error text set.
 */
int emu_engine_usable(struct hellofpga_dev *dev, struct hf_xdma_engine *e)
{
	int ret = hf_xdma_engine_recover(e);

	if (!ret)
		return 0;
	if (ret == -ENODEV)
		return hf_set_error(dev, ret, "%s%u: card not responding",
				    hf_dir_name(e->dir), e->ch);
	return hf_set_error(dev, -EIO,
			    "%s%u: channel wedged: its engine is still busy since a run failed; it is refused until the engine is idle",
			    hf_dir_name(e->dir), e->ch);
}

/* Run engine @e over one bus range. */
static int run_range(struct hellofpga_dev *dev, struct emu_card *card,
		     struct emu_engine *e, u64 bus, u64 card_addr, u64 len,
		     size_t *done)
{
	struct hf_sg sg = { .addr = bus, .len = len };
	struct hf_xdma_result res;
	int count, ret;
	u64 timeout_ns;

	ret = emu_engine_usable(dev, &e->eng);
	if (ret)
		return ret;
	count = hf_xdma_chain_count(&sg, 1, 0, len);
	if (count < 0)
		return hf_set_error(dev, count, "cannot size the descriptor chain");
	ret = reserve_desc(dev, card, e, count);
	if (ret)
		return ret;
	ret = hf_xdma_chain_build(&e->chain, e->eng.dir, &sg, 1, 0, len,
				  card_addr);
	if (ret)
		return hf_set_error(dev, ret,
				    "cannot build the descriptor chain (%d)", ret);
	timeout_ns = (u64)__atomic_load_n(&dev->timeout_ms, __ATOMIC_RELAXED) *
		     1000000ull;
	ret = hf_xdma_engine_run(&e->eng, &e->chain, timeout_ns, &res);
	*done += res.bytes;
	if (ret < 0)
		return hf_set_error(dev, ret, "%s", res.msg);
	return 0;
}

/**
 * emu_blocks_lock() - take the card memory blocks [@at, @at + @len) of an
 * aligned card for a write by H2C channel @ch.
 * @dev: the handle, for the error text
 * @card: the card
 * @ch: the H2C channel, held
 * @at: first byte, block aligned
 * @len: bytes, whole blocks
 * @rmw: exclusively, for a read-modify-write of partial blocks; else
 *	shared, for a write of whole blocks
 * @dl: the call's deadline: -EBUSY when another write holds them until then
 *
 * A read-modify-write reads blocks back and writes them whole: a write of
 * the same blocks by another channel, handle or process between the two
 * would be undone.  So it excludes every other write of its blocks: OFD
 * byte-range locks on the card memory file, one open file per channel,
 * for a shared card; a lock of the handle for a private one.  Cards
 * without alignment never read-modify-write and take nothing.
 *
 * Return: 0, or negative errno with the error text set.
 */
int emu_blocks_lock(struct hellofpga_dev *dev, struct emu_card *card,
		    int ch, u64 at, u64 len, bool rmw,
		    const struct timespec *dl)
{
	int ret;

	if (card->align <= 1)
		return 0;
	if (card->blk_fd[ch] < 0)
		ret = hf_rwlock_lock_until(&card->blk_rw, rmw, dl);
	else
		ret = hf_ofd_lock_until(card->blk_fd[ch],
					rmw ? F_WRLCK : F_RDLCK, (off_t)at,
					(off_t)len, dl);
	if (ret == -EBUSY)
		return hf_set_error(dev, ret,
				    "H2C%d: card memory [0x%llx, 0x%llx) stayed locked by a write of another channel or process until the timeout",
				    ch, (unsigned long long)at,
				    (unsigned long long)(at + len));
	if (ret)
		return hf_set_error(dev, ret,
				    "H2C%d: cannot lock card memory [0x%llx, 0x%llx) for writing: %s",
				    ch, (unsigned long long)at,
				    (unsigned long long)(at + len),
				    strerror(-ret));
	return 0;
}

void emu_blocks_unlock(struct emu_card *card, int ch, u64 at, u64 len)
{
	if (card->align <= 1)
		return;
	if (card->blk_fd[ch] < 0)
		pthread_rwlock_unlock(&card->blk_rw);
	else
		emu_lock_range(card->blk_fd[ch], F_UNLCK, (off_t)at, (off_t)len);
}

/* The buffer maps straight through the IOMMU: one copy, by the engine. */
static int xfer_direct(struct hellofpga_dev *dev, struct emu_card *card,
		       struct emu_engine *e, void *buf, u64 card_addr,
		       size_t len, const struct timespec *dl, size_t *done)
{
	enum hf_dma_dir ddir = e->eng.dir == XDMA_H2C ? HF_DMA_TO_DEVICE :
						       HF_DMA_FROM_DEVICE;
	u64 bus;
	int ret;

	ret = hf_emu_dma_map(card->host, buf, len, ddir, &bus);
	if (ret)
		return hf_set_error(dev, ret, "cannot map the buffer for DMA: %s",
				    strerror(-ret));
	if (e->eng.dir == XDMA_H2C)
		ret = emu_blocks_lock(dev, card, e->eng.ch, card_addr, len, false,
				  dl);
	if (!ret) {
		ret = run_range(dev, card, e, bus, card_addr, len, done);
		if (e->eng.dir == XDMA_H2C)
			emu_blocks_unlock(card, e->eng.ch, card_addr, len);
	}
	hf_emu_dma_unmap(card->host, bus);
	return ret;
}

static int get_bounce(struct hellofpga_dev *dev, struct emu_card *card,
		      struct emu_engine *e)
{
	if (e->bounce)
		return 0;
	e->bounce = hf_emu_dma_alloc(card->host, EMU_BOUNCE_SIZE,
				     &e->bounce_bus);
	if (!e->bounce)
		return hf_set_error(dev, -ENOMEM,
				    "cannot allocate the alignment bounce buffer");
	return 0;
}

/*
 * An engine that needs aligned addresses and lengths: move whole aligned
 * blocks through an aligned bounce buffer.  H2C blocks the caller covers
 * only partly are first read back from the card (read-modify-write) on a
 * C2H channel, so the bytes around the caller's range keep their value.
 * *@done counts the caller's bytes the card may have written (H2C) or that
 * were copied out to @buf (C2H: a failed chunk's bytes stay in the bounce
 * buffer).
 */
static int xfer_bounce(struct hellofpga_dev *dev, struct emu_card *card,
		       struct emu_engine *e, int ch, u8 *buf, u64 card_addr,
		       size_t len, const struct timespec *dl, size_t *done)
{
	u64 a0 = ALIGN_DOWN(card_addr, (u64)card->align);
	u64 a1 = ALIGN(card_addr + len, (u64)card->align);
	u64 end = card_addr + len;
	int cch = ch < card->xdev.num_c2h ? ch : 0;
	int ret = get_bounce(dev, card, e);

	for (u64 pos = a0; !ret && pos < a1; pos += EMU_BOUNCE_SIZE) {
		u64 n = min_t(u64, EMU_BOUNCE_SIZE, a1 - pos);
		u64 lo = max(pos, card_addr), hi = min(pos + n, end);
		size_t moved = 0;
		bool partial;

		if (e->eng.dir == XDMA_C2H) {
			ret = run_range(dev, card, e, e->bounce_bus, pos, n,
					&moved);
			if (!ret) {
				memcpy(buf + (lo - card_addr),
				       (u8 *)e->bounce + (lo - pos), hi - lo);
				*done += hi - lo;
			}
			continue;
		}
		partial = lo != pos || hi != pos + n;
		/*
		 * Lock order: channels (H2C, then the C2H one that reads the
		 * block back), then a pin (GPU Direct), then card blocks.
		 */
		if (partial) {
			ret = hf_chan_lock(dev, XDMA_C2H, cch, dl);
			if (ret)
				break;
		}
		ret = emu_blocks_lock(dev, card, ch, pos, n, partial, dl);
		if (ret) {
			if (partial)
				hf_chan_unlock(dev, XDMA_C2H, cch);
			break;
		}
		if (partial) {
			struct emu_engine *rd = &card->eng[XDMA_C2H][cch];

			ret = run_range(dev, card, rd, e->bounce_bus, pos, n,
					&moved);
			moved = 0;
		}
		if (!ret) {
			memcpy((u8 *)e->bounce + (lo - pos),
			       buf + (lo - card_addr), hi - lo);
			ret = run_range(dev, card, e, e->bounce_bus, pos, n,
					&moved);
			/*
			 * Of the caller's bytes, count those the card may
			 * have written: all of the chunk on success, else
			 * those of [pos, pos + moved) (the engine core's
			 * count: completed descriptors, or all if wedged).
			 */
			if (pos + moved > lo)
				*done += min(pos + moved, hi) - lo;
		}
		emu_blocks_unlock(card, ch, pos, n);
		if (partial)
			hf_chan_unlock(dev, XDMA_C2H, cch);
	}
	return ret;
}

int emu_xfer(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
	     void *buf, uint64_t card_addr, size_t len,
	     const struct timespec *dl, size_t *actual)
{
	struct emu_card *card = dev->priv;
	struct emu_engine *e = &card->eng[dir][ch];
	u32 a = card->align;
	int ret;

	*actual = 0;
	ret = hf_user_buf_check(dev, dir, buf, len);
	if (ret)
		return ret;
	if (a > 1 && (!IS_ALIGNED((uintptr_t)buf, a) ||
		      !IS_ALIGNED(card_addr, (u64)a) ||
		      !IS_ALIGNED((u64)len, (u64)a))) {
		/* a bounce moves blocks in pieces: a packet would be cut */
		if (card->xdev.stream)
			return hf_set_error(dev, -EINVAL,
					    "H2C%d: the engines of %s need %u-byte aligned buffers and lengths, and an AXI-Stream packet has no bounce buffer: buffer %p, length 0x%zx",
					    ch, dev->info.name, a, buf, len);
		return xfer_bounce(dev, card, e, ch, buf, card_addr, len, dl,
				   actual);
	}
	return xfer_direct(dev, card, e, buf, card_addr, len, dl, actual);
}

int emu_user_read32(struct hellofpga_dev *dev, uint32_t off,
		    uint32_t *val)
{
	struct emu_card *card = dev->priv;

	*val = hf_ioread32(hf_emu_user_bar(card->host), off);
	return 0;
}

int emu_user_write32(struct hellofpga_dev *dev, uint32_t off,
		     uint32_t val)
{
	struct emu_card *card = dev->priv;

	hf_iowrite32(val, hf_emu_user_bar(card->host), off);
	return 0;
}

void emu_counters(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c)
{
	struct emu_card *card = dev->priv;
	struct xdma_model_counters mc;

	xdma_model_get_counters(hf_emu_host_model(card->host), &mc);
	c->model_valid = 1;
	c->mmio_reads = mc.mmio_reads;
	c->mmio_writes = mc.mmio_writes;
	c->desc_fetched = mc.desc_fetched;
	c->irqs = mc.irqs;
	c->wb_writes = mc.wb_writes;
}

void emu_dma_faults(struct hellofpga_dev *dev, HELLOFPGA_DMA_FAULTS *f)
{
	struct emu_card *card = dev->priv;
	struct xdma_model_counters mc;
	struct hf_emu_host_stats st;

	hf_emu_host_get_stats(card->host, &st);
	xdma_model_get_counters(hf_emu_host_model(card->host), &mc);
	f->faults = st.faults;
	f->last_fault_bus = st.last_fault_bus;
	f->dma_errors = mc.dma_errors;
}

void emu_link_model(struct hellofpga_dev *dev,
		    HELLOFPGA_LINK_MODEL *lm)
{
	const struct xdma_link *l = &((struct emu_card *)dev->priv)->link;

	if (!l->gen)
		return;
	lm->enabled = 1;
	lm->gen = l->gen;
	lm->lanes = l->lanes;
	lm->mps = l->mps;
	lm->desc_ns = l->desc_ns;
	lm->gbps = xdma_link_gbps(l);
	xdma_link_describe(l, lm->text, sizeof(lm->text));
}

/*
 * Arm user interrupt @irq: its eventfd, then its enable in the IRQ block (a
 * request held already is delivered at once, in this thread).
 */
int emu_uirq_arm(struct hellofpga_dev *dev, int irq, int *fd)
{
	struct emu_card *card = dev->priv;
	struct emu_uirq *ui = &card->uirq[irq];
	int efd;

	if (card->irq_mode == HELLOFPGA_IRQ_POLL)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "user interrupt %d: %s runs in poll mode (irq=poll), which delivers no interrupts; open it with irq=msix, msi or legacy",
				    irq, dev->info.name);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return hf_set_error(dev, -errno,
				    "user interrupt %d: cannot make an eventfd: %s",
				    irq, strerror(errno));
	pthread_mutex_lock(&card->uirq_lock);
	ui->efd = efd;
	pthread_mutex_unlock(&card->uirq_lock);
	__atomic_or_fetch(&card->uirq_armed, BIT(irq), __ATOMIC_RELEASE);
	hf_iowrite32(BIT(irq), card->xdev.bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S);
	*fd = efd;
	return 0;
}

/*
 * Take the count of @irq; then enable it again, outside the lock (a
 * request still held is delivered at once, in this thread).
 */
int emu_uirq_take(struct hellofpga_dev *dev, int irq, uint32_t *count)
{
	struct emu_card *card = dev->priv;
	struct emu_uirq *ui = &card->uirq[irq];
	uint64_t v;
	u32 n;

	pthread_mutex_lock(&card->uirq_lock);
	n = ui->count;
	ui->count = 0;
	if (n) {
		/* drain the eventfd: it was written with the count */
		ssize_t r = read(ui->efd, &v, sizeof(v));

		(void)r;
	}
	pthread_mutex_unlock(&card->uirq_lock);
	if (!n)
		return 0;
	hf_iowrite32(BIT(irq), card->xdev.bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S);
	*count = n;
	return 1;
}
