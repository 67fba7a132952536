// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue of hellofpga.ko: device IDs, BARs, DMA mask, interrupt vectors
 * and handlers, probe, remove, shutdown, PCIe error recovery and resets.
 * The card object is hf_card.c's, its engines and descriptor memory
 * hf_engine.c's, what wedged engines hold hf_stop.c's.
 *
 * The XDMA IP exposes up to three memory BARs: the user BAR (the design's
 * own registers, optional), the DMA/config BAR (64 KiB, found by its
 * identifier registers) and the bypass BAR (ignored).  Probe maps them with
 * managed (pcim/dmam) calls; the card itself (hf_card.c) is reference
 * counted because open files outlive remove().  Bus mastering is enabled
 * only once every engine is stopped and proven idle (one left running by an
 * earlier driver would otherwise go on with stale descriptors).  Remove
 * marks the card dead under hw_lock, so no file touches a register
 * afterwards, frees the interrupts, stops every engine and proves it idle,
 * turns bus mastering off, and only then frees what the card could reach:
 * the memory wedged engines held, every pin of every file, the descriptor
 * storage (see hf_stop.c).  Shutdown stops the engines the same way.
 * PCIe error recovery and resets of the function (reset_prepare /
 * reset_done: sysfs reset, a sibling's or the bus's) freeze the card the
 * same way without freeing, then program every engine again with bus
 * mastering off and turn it on only once each is proven idle or keeps, in
 * its channel's quarantine, all that it may reach (docs/driver-stop.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "compat.h"
#include "hf_drv.h"
#include "../refdesign/hf_user_regs.h"

#define HF_XDMA_ID(dev)	{ PCI_DEVICE(PCI_VENDOR_ID_XILINX, (dev)) }

/* Device IDs of the XDMA IP's default configurations (Gen1..4, x1..x16). */
static const struct pci_device_id hf_pci_ids[] = {
	HF_XDMA_ID(0x9011), HF_XDMA_ID(0x9012), HF_XDMA_ID(0x9014),
	HF_XDMA_ID(0x9018), HF_XDMA_ID(0x901f), HF_XDMA_ID(0x9021),
	HF_XDMA_ID(0x9022), HF_XDMA_ID(0x9024), HF_XDMA_ID(0x9028),
	HF_XDMA_ID(0x902f), HF_XDMA_ID(0x9031), HF_XDMA_ID(0x9032),
	HF_XDMA_ID(0x9034), HF_XDMA_ID(0x9038), HF_XDMA_ID(0x903f),
	HF_XDMA_ID(0x8011), HF_XDMA_ID(0x8012), HF_XDMA_ID(0x8014),
	HF_XDMA_ID(0x8018), HF_XDMA_ID(0x8021), HF_XDMA_ID(0x8022),
	HF_XDMA_ID(0x8024), HF_XDMA_ID(0x8028), HF_XDMA_ID(0x8031),
	HF_XDMA_ID(0x8032), HF_XDMA_ID(0x8034), HF_XDMA_ID(0x8038),
	HF_XDMA_ID(0x7011), HF_XDMA_ID(0x7012), HF_XDMA_ID(0x7014),
	HF_XDMA_ID(0x7018), HF_XDMA_ID(0x7021), HF_XDMA_ID(0x7022),
	HF_XDMA_ID(0x7024), HF_XDMA_ID(0x7028), HF_XDMA_ID(0x7031),
	HF_XDMA_ID(0x7032), HF_XDMA_ID(0x7034), HF_XDMA_ID(0x7038),
	HF_XDMA_ID(0x6828), HF_XDMA_ID(0x6830), HF_XDMA_ID(0x6928),
	HF_XDMA_ID(0x6930), HF_XDMA_ID(0x6a28), HF_XDMA_ID(0x6a30),
	HF_XDMA_ID(0x6d30), HF_XDMA_ID(0x4808), HF_XDMA_ID(0x4828),
	HF_XDMA_ID(0x4908), HF_XDMA_ID(0x4a28), HF_XDMA_ID(0x4b28),
	HF_XDMA_ID(0x2808),
	{ }
};
MODULE_DEVICE_TABLE(pci, hf_pci_ids);

/* ------------------------------------------------------------------------ */
/* BARs                                                                     */
/* ------------------------------------------------------------------------ */

/**
 * hf_id_is() - whether an identifier register names an XDMA block.
 * @id: the register value
 * @target: XDMA_TARGET_*
 *
 * Return: true for subsystem 0x1fc and @target.
 */
static bool hf_id_is(u32 id, u32 target)
{
	return FIELD_GET(XDMA_ID_SUBSYSTEM, id) == XDMA_ID_SUBSYSTEM_VALUE &&
	       FIELD_GET(XDMA_ID_TARGET, id) == target;
}

/**
 * hf_bar_is_dma() - probe a BAR for the XDMA DMA/config register space.
 * @pdev: the device
 * @bar: BAR number, a memory BAR of at least 64 KiB
 *
 * Maps the first 64 KiB for the look and unmaps it again.  The BAR is the
 * DMA BAR when the config block identifier (0x1fc3xxxx) is there and the
 * H2C0 (0x1fc0xxxx) or the C2H0 (0x1fc1xxxx) identifier.
 *
 * Return: true when it is.
 */
static bool hf_bar_is_dma(struct pci_dev *pdev, int bar)
{
	void __iomem *base;
	u32 h2c, c2h, cfg;

	base = pci_iomap_range(pdev, bar, 0, XDMA_BAR_SIZE);
	if (!base)
		return false;
	h2c = ioread32(base + XDMA_H2C_BASE(0) + XDMA_ID);
	c2h = ioread32(base + XDMA_C2H_BASE(0) + XDMA_ID);
	/* Offset 0x3000 of a user BAR is only read when the rest matched. */
	cfg = hf_id_is(h2c, XDMA_TARGET_H2C) || hf_id_is(c2h, XDMA_TARGET_C2H) ?
	      ioread32(base + XDMA_CONFIG_BASE + XDMA_ID) : 0;
	pci_iounmap(pdev, base);
	return hf_id_is(cfg, XDMA_TARGET_CONFIG);
}

/**
 * hf_map_bars() - find and map the DMA BAR and the user BAR.
 * @card: the card
 *
 * The user BAR is the first memory BAR before the DMA BAR (PG195: user BAR,
 * then DMA BAR, then the optional bypass BAR).
 *
 * Return: 0, -ENODEV when no BAR holds the XDMA registers, or the mapping
 * error.
 */
static int hf_map_bars(struct hf_card *card)
{
	struct pci_dev *pdev = card->pdev;
	void __iomem *base;
	int bar;

	card->dma_bar_idx = -1;
	card->user_bar_idx = -1;
	for (bar = 0; bar < PCI_ROM_RESOURCE; bar++) {
		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
		    pci_resource_len(pdev, bar) < XDMA_BAR_SIZE)
			continue;
		if (hf_bar_is_dma(pdev, bar)) {
			card->dma_bar_idx = bar;
			break;
		}
	}
	if (card->dma_bar_idx < 0) {
		dev_err(hf_dev(card),
			"no BAR holds the XDMA DMA/config registers (identifiers 0x1fc0xxxx/0x1fc1xxxx and 0x1fc3xxxx)\n");
		return -ENODEV;
	}
	for (bar = 0; bar < card->dma_bar_idx; bar++) {
		if ((pci_resource_flags(pdev, bar) & IORESOURCE_MEM) &&
		    pci_resource_len(pdev, bar)) {
			card->user_bar_idx = bar;
			break;
		}
	}

	base = hf_pcim_iomap_bar(pdev, card->dma_bar_idx, HF_DRV_NAME);
	if (IS_ERR_OR_NULL(base)) {
		dev_err(hf_dev(card), "cannot map the DMA BAR %d\n",
			card->dma_bar_idx);
		return base ? PTR_ERR(base) : -ENOMEM;
	}
	card->dma_bar.base = base;

	if (card->user_bar_idx >= 0) {
		bar = card->user_bar_idx;
		base = hf_pcim_iomap_bar(pdev, bar, HF_DRV_NAME);
		if (IS_ERR_OR_NULL(base)) {
			dev_err(hf_dev(card), "cannot map the user BAR %d\n",
				bar);
			return base ? PTR_ERR(base) : -ENOMEM;
		}
		card->user_bar = base;
		card->user_bar_size = pci_resource_len(pdev, bar);
		card->user_bar_phys = pci_resource_start(pdev, bar);
	}
	return 0;
}

/**
 * hf_card_ddr_size() - the card memory size, the bound of card addresses.
 * @card: the card, BARs mapped
 *
 * The XDMA IP does not know what memory its AXI side reaches.  The ddr_size
 * parameter says it for every card; without it a card whose user BAR is the
 * hellofpga reference design's (HF_USER_ID reads HF_USER_ID_VALUE) says its
 * own in HF_USER_DDR_SIZE_MB, so cards of different sizes each get theirs;
 * any other card gets HF_DDR_SIZE_DEFAULT.
 *
 * Return: bytes, 0 for unbounded.
 */
static u64 hf_card_ddr_size(struct hf_card *card)
{
	u32 mb;

	if (hf_ddr_size != HF_DDR_SIZE_AUTO)
		return hf_ddr_size;
	if (!card->user_bar || card->user_bar_size < HF_USER_BAR_SIZE ||
	    ioread32(card->user_bar + HF_USER_ID) != HF_USER_ID_VALUE)
		return HF_DDR_SIZE_DEFAULT;
	mb = ioread32(card->user_bar + HF_USER_DDR_SIZE_MB);
	if (!mb || mb == XDMA_ID_DEAD)
		return HF_DDR_SIZE_DEFAULT;
	return (u64)mb << 20;
}

/**
 * hf_set_dma_mask() - the widest DMA mask both the host and the IP allow.
 * @card: the card, DMA BAR mapped
 *
 * Data may be anywhere the IP reaches; descriptors and writeback words
 * (the coherent allocations) are kept below 4 GiB where the platform can,
 * so every chain's address has the same upper half and a run on a chain
 * not run before writes at most the lower address and the adjacent count
 * to the SGDMA registers (Xilinx's driver keeps its descriptors there
 * too).
 *
 * Return: 0 or the error of dma_set_mask_and_coherent().
 */
static int hf_set_dma_mask(struct hf_card *card)
{
	struct device *dev = hf_dev(card);
	u32 chan = card->xdev.num_h2c ? XDMA_H2C_BASE(0) : XDMA_C2H_BASE(0);
	u32 align, bits = 64;
	int ret;

	align = hf_ioread32(&card->dma_bar, chan + XDMA_CHAN_ALIGNMENTS);
	if (align != XDMA_ID_DEAD) {
		u32 b = FIELD_GET(XDMA_ALIGN_ADDR_BITS, align);

		if (b >= 32 && b < 64)
			bits = b;
	}
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits));
	if (ret && bits > 32) {
		dev_warn(dev, "no %u-bit DMA, falling back to 32-bit (bounce buffers likely)\n",
			 bits);
		ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32));
	}
	if (ret) {
		dev_err(dev, "no usable DMA mask: %d\n", ret);
		return ret;
	}
	if (bits > 32 && dma_set_coherent_mask(dev, DMA_BIT_MASK(32)))
		dma_set_coherent_mask(dev, DMA_BIT_MASK(bits));
	/* Segments of sg tables as long as the engine takes, not 64 KiB. */
	dma_set_max_seg_size(dev, UINT_MAX & PAGE_MASK);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Interrupts                                                               */
/* ------------------------------------------------------------------------ */

/**
 * hf_chan_isr() - interrupt of one engine (its own MSI-X vector).
 * @irq: the interrupt
 * @data: the engine (struct hf_chan)
 *
 * Return: IRQ_HANDLED.
 */
static irqreturn_t hf_chan_isr(int irq, void *data)
{
	struct hf_chan *chan = data;

	atomic64_inc(&chan->card->irqs);
	/* Pairs with hf_engines_init(): the engine is initialised. */
	if (smp_load_acquire(&chan->ready))
		hf_xdma_engine_isr(&chan->engine);
	return IRQ_HANDLED;
}

/**
 * hf_user_isr() - interrupt of one user interrupt (its own MSI-X vector).
 * @irq: the interrupt
 * @data: the user interrupt (struct hf_user_irq)
 *
 * Return: IRQ_HANDLED.
 */
static irqreturn_t hf_user_isr(int irq, void *data)
{
	struct hf_user_irq *ui = data;

	atomic64_inc(&ui->card->irqs);
	return hf_user_irq_handle(ui);
}

/**
 * hf_shared_isr() - the one vector of MSI or INTx, shared by all sources.
 * @irq: the interrupt
 * @data: the card
 *
 * Return: IRQ_HANDLED when an engine or user interrupt of the card was
 * pending, IRQ_NONE otherwise (INTx may be shared with other devices).
 */
static irqreturn_t hf_shared_isr(int irq, void *data)
{
	struct hf_card *card = data;
	u32 num_h2c = card->xdev.num_h2c;
	unsigned long chan, user;
	struct hf_chan *c;
	u32 val;
	int bit;

	chan = hf_xdma_dev_isr_pending(&card->xdev);
	val = hf_ioread32(&card->dma_bar, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND);
	user = val == XDMA_ID_DEAD ? 0 : val & GENMASK(XDMA_USER_IRQS - 1, 0);
	if (!chan && !user)
		return IRQ_NONE;
	atomic64_inc(&card->irqs);
	for_each_set_bit(bit, &chan, XDMA_MAX_ENGINES) {
		c = bit < num_h2c ? &card->chans[XDMA_H2C][bit] :
				    &card->chans[XDMA_C2H][bit - num_h2c];
		/* Pairs with hf_engines_init(): the engine is initialised. */
		if (smp_load_acquire(&c->ready))
			hf_xdma_engine_isr(&c->engine);
	}
	for_each_set_bit(bit, &user, XDMA_USER_IRQS)
		hf_user_irq_handle(&card->user_irq[bit]);
	return IRQ_HANDLED;
}

/**
 * hf_irq_quiesce() - disable every interrupt source in the IRQ block.
 * @card: the card
 */
static void hf_irq_quiesce(struct hf_card *card)
{
	hf_iowrite32(GENMASK(XDMA_USER_IRQS - 1, 0), &card->dma_bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C);
	hf_iowrite32(GENMASK(XDMA_MAX_ENGINES - 1, 0), &card->dma_bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1C);
}

/**
 * hf_irq_free() - free the requested interrupts and the vectors.
 * @card: the card
 */
static void hf_irq_free(struct hf_card *card)
{
	struct pci_dev *pdev = card->pdev;
	u32 ne = hf_engine_count(card);
	int v;

	for_each_set_bit(v, card->irq_requested,
			 HF_MAX_VECTORS) {
		void *data;

		if (card->irq_mode != HELLOFPGA_IRQ_MODE_MSIX)
			data = card;
		else if (v < ne)
			data = v < card->xdev.num_h2c ?
			       &card->chans[XDMA_H2C][v] :
			       &card->chans[XDMA_C2H][v - card->xdev.num_h2c];
		else
			data = &card->user_irq[v - ne];
		free_irq(pci_irq_vector(pdev, v), data);
	}
	bitmap_zero(card->irq_requested, HF_MAX_VECTORS);
	if (card->nvec > 0)
		pci_free_irq_vectors(pdev);
	card->nvec = 0;
}

/**
 * hf_irq_request() - request one vector and remember it for hf_irq_free().
 * @card: the card
 * @v: vector index
 * @handler: the handler
 * @flags: IRQF_*
 * @data: the handler's data
 * @what: name suffix
 *
 * Return: 0 or the error of request_irq().
 */
static int hf_irq_request(struct hf_card *card, int v, irq_handler_t handler,
			  unsigned long flags, void *data, const char *what)
{
	int ret;

	snprintf(card->irq_names[v], sizeof(card->irq_names[v]), "%s_%s",
		 card->name, what);
	ret = request_irq(pci_irq_vector(card->pdev, v), handler, flags,
			  card->irq_names[v], data);
	if (ret) {
		dev_err(hf_dev(card), "cannot request interrupt %s: %d\n",
			card->irq_names[v], ret);
		return ret;
	}
	set_bit(v, card->irq_requested);
	return 0;
}

/**
 * hf_irq_alloc() - allocate vectors by the irq_mode parameter.
 * @card: the card
 *
 * MSI-X with one vector per engine plus 16 user vectors, else one MSI
 * vector, else INTx.  Sets card->irq_mode and card->nvec.
 *
 * Return: 0 (also when no interrupt could be had: card->nvec is then 0),
 * -EINVAL for a bad parameter.
 */
static int hf_irq_alloc(struct hf_card *card)
{
	static const struct {
		const char *name;	/* of irq_mode */
		const char *what;	/* for the message */
		unsigned int type;	/* PCI_IRQ_* */
		u32 mode;		/* HELLOFPGA_IRQ_MODE_* */
		bool all;		/* a vector per engine and user IRQ */
	} kinds[] = {
		{ "msix", "MSI-X vectors", PCI_IRQ_MSIX,
		  HELLOFPGA_IRQ_MODE_MSIX, true },
		{ "msi", "MSI vector", PCI_IRQ_MSI, HELLOFPGA_IRQ_MODE_MSI },
		{ "legacy", "legacy interrupt", HF_PCI_IRQ_INTX,
		  HELLOFPGA_IRQ_MODE_LEGACY },
	};
	int all = hf_engine_count(card) + XDMA_USER_IRQS;
	bool any = sysfs_streq(hf_irq_mode, "auto");
	bool known = any;
	unsigned int i;
	int want, n;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		known |= sysfs_streq(hf_irq_mode, kinds[i].name);
	if (!known) {
		dev_err(hf_dev(card),
			"irq_mode=%s: expected auto, msix, msi or legacy\n",
			hf_irq_mode);
		return -EINVAL;
	}
	card->irq_mode = HELLOFPGA_IRQ_MODE_POLL;
	card->nvec = 0;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!any && !sysfs_streq(hf_irq_mode, kinds[i].name))
			continue;
		want = kinds[i].all ? all : 1;
		n = pci_alloc_irq_vectors(card->pdev, want, want,
					  kinds[i].type);
		if (n > 0) {
			card->irq_mode = kinds[i].mode;
			card->nvec = n;
			return 0;
		}
		dev_info(hf_dev(card), "no %d %s (%d)\n", want, kinds[i].what,
			 n);
	}
	return 0;
}

/**
 * hf_irq_program() - the IRQ block's vector numbers for the vectors we have.
 * @card: the card, vectors allocated (card->nvec > 0)
 *
 * MSI-X: engine n gets vector n, user interrupt n vector engines + n; MSI
 * and INTx: everything on vector 0.  Again after a reset of the card.
 */
static void hf_irq_program(struct hf_card *card)
{
	u32 ne = hf_engine_count(card);

	if (card->irq_mode == HELLOFPGA_IRQ_MODE_MSIX)
		hf_xdma_dev_set_vectors(&card->xdev, 0, ne, false);
	else
		hf_xdma_dev_set_vectors(&card->xdev, 0, 0, true);
}

/**
 * hf_irq_setup() - vectors, the IRQ block's vector numbers and handlers.
 * @card: the card, probed
 *
 * Without any interrupt the engines run in poll mode and the card has no
 * events nodes.
 *
 * Return: 0 or a negative errno.
 */
static int hf_irq_setup(struct hf_card *card)
{
	u32 ne = hf_engine_count(card), i;
	int ret;

	hf_irq_quiesce(card);
	ret = hf_irq_alloc(card);
	if (ret)
		return ret;
	if (!card->nvec) {
		if (!card->poll)
			dev_warn(hf_dev(card),
				 "no interrupt available: engines use poll mode, no user events\n");
		card->poll = true;
		return 0;
	}
	hf_irq_program(card);
	if (card->irq_mode == HELLOFPGA_IRQ_MODE_MSIX) {
		for (i = 0; i < ne; i++) {
			struct hf_chan *c = i < card->xdev.num_h2c ?
				&card->chans[XDMA_H2C][i] :
				&card->chans[XDMA_C2H][i - card->xdev.num_h2c];
			char what[8];

			snprintf(what, sizeof(what), "%s%u",
				 c->dir == XDMA_H2C ? "h2c" : "c2h", c->ch);
			ret = hf_irq_request(card, i, hf_chan_isr, 0, c, what);
			if (ret)
				goto err;
		}
		for (i = 0; i < XDMA_USER_IRQS; i++) {
			char what[8];

			snprintf(what, sizeof(what), "user%u", i);
			ret = hf_irq_request(card, ne + i, hf_user_isr, 0,
					     &card->user_irq[i], what);
			if (ret)
				goto err;
		}
		return 0;
	}
	ret = hf_irq_request(card, 0, hf_shared_isr,
			     card->irq_mode == HELLOFPGA_IRQ_MODE_LEGACY ?
			     IRQF_SHARED : 0, card, "dma");
	if (ret)
		goto err;
	return 0;

err:
	hf_irq_free(card);
	return ret;
}

static const char * const hf_irq_mode_name[] = {
	[HELLOFPGA_IRQ_MODE_POLL] = "no",
	[HELLOFPGA_IRQ_MODE_LEGACY] = "legacy",
	[HELLOFPGA_IRQ_MODE_MSI] = "MSI",
	[HELLOFPGA_IRQ_MODE_MSIX] = "MSI-X",
};

static int hf_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct hf_card *card;
	int ret;

	card = hf_card_alloc(pdev);
	if (!card)
		return -ENOMEM;

	ret = hf_card_reserve_index(card);
	if (ret) {
		dev_err(dev, "more than %d cards\n", HF_MAX_CARDS);
		goto err_put;
	}
	pci_set_drvdata(pdev, card);

	ret = pcim_enable_device(pdev);
	if (ret) {
		dev_err(dev, "cannot enable the device: %d\n", ret);
		goto err_idr;
	}
	/* An earlier driver may have left it on: off until the engines stop. */
	pci_clear_master(pdev);
	ret = hf_map_bars(card);
	if (ret)
		goto err_idr;
	card->ddr_size = hf_card_ddr_size(card);
	ret = hf_xdma_dev_probe(&card->xdev, &card->dma_bar);
	if (ret) {
		dev_err(dev, "XDMA IP not usable (%d): no memory-mapped channel or card not responding\n",
			ret);
		goto err_idr;
	}
	ret = hf_set_dma_mask(card);
	if (ret)
		goto err_idr;
	card->xdev.link_rate = hf_link_rate(pdev);
	card->xdev.stop_max_ns = (u64)max(hf_stop_wait_ms, 1u) * NSEC_PER_MSEC;
	card->wb_cpu = dmam_alloc_coherent(dev, PAGE_SIZE, &card->wb_bus,
					   GFP_KERNEL);
	if (!card->wb_cpu) {
		ret = -ENOMEM;
		goto err_idr;
	}
	ret = hf_irq_setup(card);
	if (ret)
		goto err_idr;
	ret = hf_engines_init(card);
	if (ret)
		goto err_engines;
	/* PCIe errors reach the AER driver and our error handlers */
	hf_aer_reporting(pdev, true);
	/*
	 * For the config space restore after a reset (PCIe error recovery),
	 * saved with error reporting on and bus mastering still off: the
	 * restore must not turn it on before the engines are proven idle
	 * again (hf_card_reinit()).
	 */
	pci_save_state(pdev);
	/* Every engine stopped and proven idle: DMA may start. */
	pci_set_master(pdev);
	ret = hf_cdev_create(card);
	if (ret)
		goto err_engines;

	hf_card_publish(card);

	dev_info(dev, "%s: XDMA IP version %u, %u H2C + %u C2H channels, DMA BAR %d, user BAR %d (%llu KiB), %s interrupts, %s completion\n",
		 card->name, card->xdev.version, card->xdev.num_h2c,
		 card->xdev.num_c2h, card->dma_bar_idx, card->user_bar_idx,
		 (unsigned long long)card->user_bar_size >> 10,
		 hf_irq_mode_name[card->irq_mode],
		 card->poll ? "poll-mode" : "interrupt");
	return 0;

err_engines:
	/* Interrupts first: a handler must not meet an engine being freed. */
	hf_irq_quiesce(card);
	hf_irq_free(card);
	pci_clear_master(pdev);
	hf_engines_fini(card);
err_idr:
	hf_card_unpublish(card);
	pci_set_drvdata(pdev, NULL);
err_put:
	hf_card_put(card);
	return ret;
}

/**
 * hf_card_stop() - end every access to the card and every DMA of it.
 * @card: the card
 *
 * Runs in flight stop waiting at once (each still proves its engine idle
 * before it returns, so the memory it used may go), new ones fail; then,
 * with every file's access ended, the interrupts go, every engine is
 * stopped and proven idle and bus mastering is turned off.  After this the
 * card reaches no memory.
 */
static void hf_card_stop(struct hf_card *card)
{
	hf_card_abort_runs(card);
	/* stream rings: engines stopped and proven idle, mappings gone */
	hf_card_halt_streams(card, -ENODEV);
	/* Waits for every register access and engine run of a file. */
	down_write(&card->hw_lock);
	card->dead = true;
	hf_irq_quiesce(card);
	hf_irq_free(card);
	hf_engines_quiesce(card);
	up_write(&card->hw_lock);
}

/**
 * hf_remove() - unplug, unbind, rmmod: the card goes, its open files stay.
 * @pdev: the device
 *
 * No new open; every access and DMA of the card ended and bus mastering
 * off (hf_card_stop()); only then is what the card could reach freed.
 * Open files fail with -ENODEV until they close (docs/driver-stop.md).
 */
static void hf_remove(struct pci_dev *pdev)
{
	struct hf_card *card = pci_get_drvdata(pdev);

	/* No new open; existing files keep the card until they close. */
	hf_card_unpublish(card);
	hf_cdev_destroy(card);

	hf_card_stop(card);
	hf_engines_fini(card);
	hf_aer_reporting(pdev, false);

	/* Bus mastering is off: nothing below can be reached by the card. */
	hf_events_wake_all(card);
	hf_mmap_zap(card);
	hf_card_release_quarantines(card);
	hf_card_release_pins(card);
	hf_engines_free_desc(card);
	dev_info(&pdev->dev, "%s removed\n", card->name);
	pci_set_drvdata(pdev, NULL);
	hf_card_put(card);
}

/**
 * hf_shutdown() - reboot, kexec, power off: no DMA may outlive the kernel.
 * @pdev: the device
 *
 * Stops and proves idle every engine and turns bus mastering off; frees
 * nothing (the system is going away, and files may still be open).
 */
static void hf_shutdown(struct pci_dev *pdev)
{
	struct hf_card *card = pci_get_drvdata(pdev);

	if (!card || card->dead)
		return;
	hf_card_stop(card);
	dev_info(&pdev->dev, "%s stopped for shutdown\n", card->name);
}

/* ------------------------------------------------------------------------ */
/* PCIe error recovery (AER, DPC)                                           */
/* ------------------------------------------------------------------------ */

/**
 * hf_card_freeze() - stop every access and DMA for an error recovery or a
 *	reset of the card.
 * @card: the card
 * @mmio: the card's registers still respond (a non-fatal error, a reset
 *	to come)
 *
 * As hf_card_stop(), but reversible: runs in flight end (their engines
 * proven idle where the registers respond, else wedged with their memory
 * kept), new accesses fail with -EIO, every engine is stopped and bus
 * mastering goes off; only then do the stream rings end and give back
 * what their engines were proven done with (a ring whose engine was not
 * proven idle keeps its memory in the channel's quarantine).  The
 * interrupts stay requested.
 */
static void hf_card_freeze(struct hf_card *card, bool mmio)
{
	/* waits cut short by the abort tell a recovery from a removal */
	WRITE_ONCE(card->recovering, true);
	hf_card_abort_runs(card);
	down_write(&card->hw_lock);
	card->frozen = true;
	if (mmio) {
		hf_irq_quiesce(card);
		hf_engines_quiesce(card);
	}
	pci_clear_master(card->pdev);
	up_write(&card->hw_lock);
	/* bus mastering off: no ring memory goes before (docs/driver-stop.md) */
	hf_card_halt_streams(card, -EIO);
}

/**
 * hf_card_reinit() - set the card up again after a reset of it or of its
 *	link, bus mastering off.
 * @card: the card, frozen (hf_card_freeze()); its config space restored
 *
 * Bus mastering goes off first (a config space restore turns it on with
 * the state saved at probe or by the PCI core) and stays off: only
 * hf_card_thaw() turns it on, once every engine is proven idle or keeps
 * what it may reach.  The IRQ block's vectors are programmed again, and
 * every engine the card has (hf_engine_reinit(): its registers, once it is
 * stopped and proven idle; its object, event and counters kept).  An
 * engine that does not stop, or that reads all ones, stays wedged: its
 * channel keeps its quarantine and refuses transfers until it is idle.
 *
 * Return: 0, or -ENODEV when the card does not respond.
 */
static int hf_card_reinit(struct hf_card *card)
{
	struct pci_dev *pdev = card->pdev;
	int ret, err = 0;
	u32 i, id;

	pci_clear_master(pdev);
	down_write(&card->hw_lock);
	id = hf_ioread32(&card->dma_bar, XDMA_CONFIG_BASE + XDMA_ID);
	if (!hf_id_is(id, XDMA_TARGET_CONFIG)) {
		dev_err(&pdev->dev, "%s: not responding after the reset (0x%08x)\n",
			card->name, id);
		up_write(&card->hw_lock);
		return -ENODEV;
	}
	WRITE_ONCE(card->xdev.gone, false);
	card->xdev.link_rate = hf_link_rate(pdev);
	hf_irq_quiesce(card);
	if (card->nvec)
		hf_irq_program(card);
	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_chan *c = hf_chan_at(card, i);

		/* not initialised: a channel the card lacks */
		if (!c->engine.xdev)
			continue;
		WRITE_ONCE(c->ready, false);
		/* a handler that saw ready true is done before the reinit */
		if (card->nvec) {
			bool own = card->irq_mode == HELLOFPGA_IRQ_MODE_MSIX;

			synchronize_irq(pci_irq_vector(pdev, own ? c->index : 0));
		}
		ret = hf_engine_reinit(c);
		if (ret == -EBUSY)
			dev_err(&pdev->dev, "%s: %s did not stop after the reset: it stays wedged and keeps what it may reach; the channel refuses transfers until it is idle\n",
				card->name, hf_chan_name(c));
		else if (ret)
			dev_err(&pdev->dev, "%s: %s does not come back after the reset: %d\n",
				card->name, hf_chan_name(c), ret);
		if (ret && ret != -EBUSY)
			err = -ENODEV;
		/* the handlers may use the engine again (a wedged one too) */
		smp_store_release(&c->ready, true);
	}
	up_write(&card->hw_lock);
	return err;
}

/**
 * hf_card_thaw() - the card was set up again: transfers may go on.
 * @card: the card, hf_card_reinit() succeeded
 *
 * The quarantines of engines the reset proved idle go; an engine still
 * wedged keeps its quarantine, which holds everything it may reach, and
 * its channel refuses transfers until hf_chan_usable() finds it idle.
 * Then the user interrupts of open events nodes are enabled again and bus
 * mastering goes on (unless hf_card_bus_off() turned it off for good): the
 * other channels work.
 */
static void hf_card_thaw(struct hf_card *card)
{
	u32 user;

	hf_card_release_idle_quarantines(card);
	user = hf_events_open_mask(card);
	down_write(&card->hw_lock);
	if (user)
		hf_iowrite32(user, &card->dma_bar,
			     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S);
	if (!atomic_read(&card->bus_off))
		pci_set_master(card->pdev);
	card->frozen = false;
	up_write(&card->hw_lock);
	WRITE_ONCE(card->recovering, false);
}

/**
 * hf_error_detected() - the PCI core saw an error of the card or its link.
 * @pdev: the device
 * @state: normal (non-fatal: registers work), frozen (fatal: the link is
 *	reset next), perm_failure (the card is gone)
 *
 * Return: PCI_ERS_RESULT_NEED_RESET (the engines are set up again in
 * hf_slot_reset()), or PCI_ERS_RESULT_DISCONNECT.
 */
static pci_ers_result_t hf_error_detected(struct pci_dev *pdev,
					  pci_channel_state_t state)
{
	struct hf_card *card = pci_get_drvdata(pdev);
	bool normal = state == pci_channel_io_normal;

	if (!card || card->dead)
		return PCI_ERS_RESULT_DISCONNECT;
	dev_warn(&pdev->dev, "%s: PCIe error (%s): transfers stopped for the recovery\n",
		 card->name, normal ? "non-fatal" :
		 state == pci_channel_io_frozen ? "fatal, link reset" :
						  "permanent failure");
	hf_card_freeze(card, normal);
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	return PCI_ERS_RESULT_NEED_RESET;
}

/**
 * hf_slot_reset() - the card was reset (or is usable again): set it up.
 * @pdev: the device
 *
 * Restores config space with bus mastering off and programs the IP again
 * (hf_card_reinit()): the vectors, and every engine (stopped, proven idle,
 * status cleared; their counters kept).  An engine wedged before the error
 * is idle after a reset; one still busy stays wedged (after a non-fatal
 * error nothing reset it) and hf_resume() leaves its quarantine alone.
 *
 * Return: PCI_ERS_RESULT_RECOVERED, or PCI_ERS_RESULT_DISCONNECT when the
 * card does not respond.
 */
static pci_ers_result_t hf_slot_reset(struct pci_dev *pdev)
{
	struct hf_card *card = pci_get_drvdata(pdev);

	if (!card || card->dead)
		return PCI_ERS_RESULT_DISCONNECT;
	dev_info(&pdev->dev, "%s: slot reset: setting the engines up again, bus mastering off until they are proven idle\n",
		 card->name);
	pci_restore_state(pdev);
	pci_clear_master(pdev);
	pci_save_state(pdev);
	if (hf_card_reinit(card))
		return PCI_ERS_RESULT_DISCONNECT;
	return PCI_ERS_RESULT_RECOVERED;
}

/**
 * hf_resume() - error recovery is over: transfers may go on.
 * @pdev: the device
 *
 * hf_card_thaw(): the memory of engines the reset proved idle released,
 * the user interrupts of open events nodes enabled again, bus mastering
 * on.
 */
static void hf_resume(struct pci_dev *pdev)
{
	struct hf_card *card = pci_get_drvdata(pdev);

	if (!card || card->dead)
		return;
	hf_card_thaw(card);
	dev_info(&pdev->dev, "%s: recovered from the PCIe error\n", card->name);
}

/**
 * hf_reset_prepare() - the PCI core is about to reset the function (sysfs
 *	reset, a reset of a sibling or of the bus, VFIO...).
 * @pdev: the device
 *
 * As for a PCIe error whose registers still respond (hf_card_freeze()):
 * runs in flight end with -EIO once their engines are proven idle (or
 * wedged, their memory kept), rings end, every engine is stopped, bus
 * mastering goes off; the PCI core saves config space after this, so the
 * restore after the reset leaves bus mastering off.
 */
static void hf_reset_prepare(struct pci_dev *pdev)
{
	struct hf_card *card = pci_get_drvdata(pdev);

	if (!card || card->dead)
		return;
	dev_info(&pdev->dev, "%s: reset of the card: transfers stopped\n",
		 card->name);
	hf_card_freeze(card, true);
}

/**
 * hf_reset_done() - the function was reset and its config space restored.
 * @pdev: the device
 *
 * The reset cleared the engines' registers (descriptor and writeback
 * addresses, interrupt enables) and the IRQ block's: everything is
 * programmed again with bus mastering off (hf_card_reinit()), and bus
 * mastering goes on only then (hf_card_thaw()).  The PCI core's restore
 * used up the saved config space: it is saved again (bus mastering off)
 * for a later error recovery's slot_reset.  A card that does not respond
 * stays frozen: transfers fail with -EIO until the driver is bound again.
 */
static void hf_reset_done(struct pci_dev *pdev)
{
	struct hf_card *card = pci_get_drvdata(pdev);

	if (!card || card->dead || !card->frozen)
		return;
	pci_clear_master(pdev);
	pci_save_state(pdev);
	if (hf_card_reinit(card)) {
		dev_err(&pdev->dev, "%s: transfers stay refused (unbind and bind the driver)\n",
			card->name);
		return;
	}
	hf_card_thaw(card);
	dev_info(&pdev->dev, "%s: set up again after the reset\n", card->name);
}

static const struct pci_error_handlers hf_err_handlers = {
	.error_detected = hf_error_detected,
	.slot_reset = hf_slot_reset,
	.resume = hf_resume,
	.reset_prepare = hf_reset_prepare,
	.reset_done = hf_reset_done,
};

struct pci_driver hf_pci_driver = {
	.name = HF_DRV_NAME,
	.id_table = hf_pci_ids,
	.probe = hf_probe,
	.remove = hf_remove,
	.shutdown = hf_shutdown,
	.err_handler = &hf_err_handlers,
};
