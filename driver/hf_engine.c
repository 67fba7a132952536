// SPDX-License-Identifier: GPL-2.0
/*
 * The engines of a card and their descriptor memory.
 *
 * Every H2C and C2H channel of the card is one engine of the engine core
 * (core/xdma_engine.c): hf_engines_init() sets them up at probe (stopping
 * and proving idle any engine an earlier driver left running) and
 * hf_engines_fini() takes them down; hf_engines_quiesce() stops every one
 * and proves it idle for removal, shutdown and PCIe error recovery, bounded
 * by what a descriptor can still take at the link's rate (hf_link_rate()).
 * Descriptor chains live in DMA-coherent storage (struct hf_desc_mem), grown
 * on demand and kept between runs: the read()/write() path's per channel,
 * each pin's per channel and direction.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/pci.h>

#include "compat.h"
#include "hf_drv.h"

/**
 * hf_chan_lock() - take @chan for a run, waiting while another run of any
 *	file holds it, for at most @timeout_ns (the run's own timeout).
 * @chan: the channel
 * @timeout_ns: how long to wait
 *
 * Release with hf_chan_unlock(), which wakes the waiters.
 *
 * Return: 0, -EBUSY (still held at the deadline) or -EINTR (fatal signal).
 */
int hf_chan_lock(struct hf_chan *chan, u64 timeout_ns)
{
	unsigned long deadline = jiffies + nsecs_to_jiffies(timeout_ns) + 1;

	/* the wait looks at the lock only: nothing sleeps in its condition */
	while (!mutex_trylock(&chan->lock)) {
		long left = (long)(deadline - jiffies);

		if (left <= 0)
			return -EBUSY;
		if (wait_event_killable_timeout(chan->lock_wq,
						!mutex_is_locked(&chan->lock),
						left) < 0)
			return -EINTR;
	}
	return 0;
}

/**
 * hf_chan_unlock() - release @chan taken by hf_chan_lock() or mutex_lock().
 * @chan: the channel
 */
void hf_chan_unlock(struct hf_chan *chan)
{
	mutex_unlock(&chan->lock);
	wake_up(&chan->lock_wq);
}

/**
 * hf_chan_name() - "H2C0" etc., for messages.
 * @chan: the channel
 *
 * Return: a static string.
 */
const char *hf_chan_name(const struct hf_chan *chan)
{
	static const char * const names[2][XDMA_MAX_CHANNELS] = {
		{ "H2C0", "H2C1", "H2C2", "H2C3" },
		{ "C2H0", "C2H1", "C2H2", "C2H3" },
	};

	return names[chan->dir][chan->ch % XDMA_MAX_CHANNELS];
}

/**
 * hf_link_rate() - data rate of the card's PCIe link in one direction.
 * @pdev: the card
 *
 * From the negotiated speed and width in the Link Status register: lanes x
 * transfer rate x line encoding (8b/10b up to 5 GT/s, 128b/130b above),
 * without packet overheads (the idle bound has its own margin).
 *
 * Return: bytes per second, 0 when unknown (not PCIe, or the register
 * reads a speed or width of 0).
 */
u64 hf_link_rate(struct pci_dev *pdev)
{
	/* Mbit/s of payload per lane, by the Current Link Speed encoding */
	static const u32 lane_mbps[] = { 0, 2000, 4000, 7877, 15754, 31508,
					 63015 };
	u16 lnksta = 0;
	u32 speed, width;

	if (!pci_is_pcie(pdev) ||
	    pcie_capability_read_word(pdev, PCI_EXP_LNKSTA, &lnksta))
		return 0;
	speed = lnksta & PCI_EXP_LNKSTA_CLS;
	width = (lnksta & PCI_EXP_LNKSTA_NLW) >> PCI_EXP_LNKSTA_NLW_SHIFT;
	if (!width || speed >= ARRAY_SIZE(lane_mbps))
		return 0;
	return (u64)lane_mbps[speed] * width * 1000000 / 8;
}

/**
 * hf_engine_setup() - the engine core's init of one engine.
 * @c: the channel, its engine order index set
 *
 * Each engine has XDMA_WB_AREA bytes (a cache line) of the card's
 * poll-mode writeback area, by its index.
 *
 * Return: 0 or the engine core's error.
 */
static int hf_engine_setup(struct hf_chan *c)
{
	struct hf_card *card = c->card;
	u32 idx = c->index;

	return hf_xdma_engine_init(&c->engine, &card->xdev, c->dir, c->ch,
				   card->poll,
				   card->wb_cpu + XDMA_WB_AREA / 4 * idx,
				   card->wb_bus + XDMA_WB_AREA * idx);
}

/**
 * hf_engines_init() - initialise every engine of the card.
 * @card: the card, interrupts set up, bus mastering off
 *
 * On failure the engines initialised so far stay so: the caller frees the
 * interrupts, then calls hf_engines_fini().
 *
 * Return: 0 or the engine core's error.
 */
int hf_engines_init(struct hf_card *card)
{
	u32 dir, ch, n;
	int ret;

	for (dir = 0; dir < 2; dir++) {
		n = dir == XDMA_H2C ? card->xdev.num_h2c : card->xdev.num_c2h;
		for (ch = 0; ch < n; ch++) {
			struct hf_chan *c = &card->chans[dir][ch];

			c->index = dir == XDMA_H2C ? ch :
				   card->xdev.num_h2c + ch;
			ret = hf_engine_setup(c);
			if (ret) {
				const char *why = ret == -EBUSY ?
					" (left running, not stopping: bus mastering off)" :
					"";

				dev_err(hf_dev(card),
					"%s%u: engine init failed: %d%s\n",
					dir == XDMA_H2C ? "H2C" : "C2H", ch, ret,
					why);
				return ret;
			}
			/* The handlers may use the engine from now on. */
			smp_store_release(&c->ready, true);
		}
	}
	return 0;
}

/**
 * hf_engine_reinit() - set an engine up again after a reset of the card.
 * @c: the channel, initialised before and not ready (no interrupt handler
 *	uses it)
 *
 * The engine's registers are programmed again once it is stopped and
 * proven idle, as at probe (hf_xdma_engine_reinit()); the engine object
 * is kept: its statistics, and its event, on whose wait queue poll() and
 * epoll of a stream's c2h node may sit.
 *
 * Return: 0, or -EBUSY / -ENODEV when the engine was not proven idle: it
 * is wedged then, and the channel keeps its quarantine.
 */
int hf_engine_reinit(struct hf_chan *c)
{
	return hf_xdma_engine_reinit(&c->engine);
}

/**
 * hf_engines_fini() - stop every initialised engine and take it down.
 * @card: the card, its interrupts freed
 *
 * Takes hw_lock for writing: no access of a file to an engine is in
 * progress meanwhile.
 */
void hf_engines_fini(struct hf_card *card)
{
	u32 i;

	down_write(&card->hw_lock);
	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_chan *c = hf_chan_at(card, i);

		if (!c->ready)
			continue;
		WRITE_ONCE(c->ready, false);
		hf_xdma_engine_fini(&c->engine);
	}
	up_write(&card->hw_lock);
}

/**
 * hf_engines_quiesce() - stop every engine and make sure none moves data.
 * @card: the card, dead or frozen (no run in progress: hw_lock held for
 *	writing)
 *
 * For removal, shutdown, PCIe error recovery and resets: each engine is
 * stopped and proven idle; then bus mastering goes off whatever the
 * engines did, so nothing freed after this can be reached by the card.
 */
void hf_engines_quiesce(struct hf_card *card)
{
	int ret;
	u32 i;

	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_chan *c = hf_chan_at(card, i);

		if (!c->ready)
			continue;
		ret = hf_xdma_engine_quiesce(&c->engine, NULL);
		if (ret == -EBUSY)
			dev_warn(hf_dev(card),
				 "%s still busy after its stop: bus mastering goes off before anything it may reach is freed\n",
				 hf_chan_name(c));
	}
	pci_clear_master(card->pdev);
}

/**
 * hf_desc_mem_free() - free descriptor storage.
 * @card: the card whose device it was allocated for
 * @mem: the storage (emptied)
 */
void hf_desc_mem_free(struct hf_card *card, struct hf_desc_mem *mem)
{
	if (mem->cpu)
		dma_free_coherent(hf_dev(card),
				  (size_t)mem->cap * XDMA_DESC_SIZE, mem->cpu,
				  mem->bus);
	mem->cpu = NULL;
	mem->bus = 0;
	mem->cap = 0;
}

/**
 * hf_desc_mem_pages() - pages of descriptor storage for @n descriptors.
 * @n: descriptors needed
 *
 * Return: the pages hf_desc_mem_reserve() allocates for them.
 */
unsigned long hf_desc_mem_pages(u32 n)
{
	u64 cap = max_t(u32, PAGE_SIZE / XDMA_DESC_SIZE, roundup_pow_of_two(n));

	return DIV_ROUND_UP(cap * XDMA_DESC_SIZE, PAGE_SIZE);
}

/**
 * hf_desc_mem_reserve() - make descriptor storage hold @n descriptors.
 * @card: the card
 * @mem: the storage; grown (to a power of two, at least a page) when too
 *	small, kept otherwise
 * @n: descriptors needed
 *
 * Return: 0, or -ENOMEM (the old storage is kept then).
 */
int hf_desc_mem_reserve(struct hf_card *card, struct hf_desc_mem *mem, u32 n)
{
	u32 cap = max_t(u32, PAGE_SIZE / XDMA_DESC_SIZE,
			roundup_pow_of_two(n));
	dma_addr_t bus;
	void *cpu;

	if (mem->cpu && mem->cap >= n)
		return 0;
	cpu = dma_alloc_coherent(hf_dev(card), (size_t)cap * XDMA_DESC_SIZE,
				 &bus, GFP_KERNEL);
	if (!cpu)
		return -ENOMEM;
	hf_desc_mem_free(card, mem);
	mem->cpu = cpu;
	mem->bus = bus;
	mem->cap = cap;
	return 0;
}

/**
 * hf_engines_free_desc() - free the read()/write() descriptor storage of
 *	every channel, at removal.
 * @card: the card, bus mastering off
 */
void hf_engines_free_desc(struct hf_card *card)
{
	u32 i;

	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_chan *c = hf_chan_at(card, i);

		mutex_lock(&c->lock);
		hf_desc_mem_free(card, &c->mem);
		hf_xdma_chain_init(&c->chain, NULL, 0, 0);
		hf_chan_unlock(c);
	}
}
