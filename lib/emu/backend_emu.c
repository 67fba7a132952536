// SPDX-License-Identifier: MIT
/*
 * backend_emu.c - the emulated card, in-process: the XDMA model (model/)
 * behind its in-process host (IOMMU, engine threads, interrupts), driven by
 * the same engine core (core/) the kernel module uses.  This file holds the
 * ops table, Open and Close; the rest is in the files that
 * backend_emu_priv.h lists.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend_emu.h"
#include "backend_emu_priv.h"
#include "gpu.h"
#include "hf_refdesign.h"

/* Without a link model the card copies at memory speed; a floor for it. */
#define EMU_NOLINK_RATE		1000000000ull	/* bytes/s */

const struct xdma_user_ops *hf_emu_user_logic;

static void emu_teardown(struct emu_card *card)
{
	if (!card)
		return;
	if (card->gpu_host)
		hf_gpu_unregister_host(card->gpu_host);
	pthread_mutex_destroy(&card->gpu_lock);
	if (card->host) {
		/*
		 * The descriptor storage, bounce buffers and writeback words
		 * are freed by the host, once its engine threads have
		 * stopped: a card's engine may still be finishing (a wedged
		 * one, or a writeback on its way), and it must write nothing
		 * that is freed.  The interrupt handlers go first (freeing
		 * one waits for a run of it in progress): a late interrupt's
		 * handler signals its engine's event, which the engine's fini
		 * destroys.
		 */
		if (card->irq_mode == HELLOFPGA_IRQ_MSIX) {
			for (u32 i = 0; i < card->nengines; i++)
				hf_emu_free_irq(card->host, i);
			for (u32 i = 0; i < XDMA_USER_IRQS; i++)
				hf_emu_free_irq(card->host, XDMA_USER_IRQS + i);
		} else if (card->irq_mode != HELLOFPGA_IRQ_POLL) {
			hf_emu_free_irq(card->host, 0);
		}
		for (u32 i = 0; i < card->nengines; i++)
			hf_xdma_engine_fini(&card->by_index[i]->eng);
		hf_emu_host_destroy(card->host);
		emu_stream_free_wedged(card);
	}
	hf_rtl_unload(&card->rtl);
	pthread_mutex_destroy(&card->wedged_lock);
	if (card->ddr)
		munmap(card->ddr, card->ddr_size);
	for (u32 ch = 0; ch < XDMA_MAX_CHANNELS; ch++)
		if (card->blk_fd[ch] >= 0)
			close(card->blk_fd[ch]);
	pthread_rwlock_destroy(&card->blk_rw);
	for (u32 i = 0; i < XDMA_USER_IRQS; i++)
		if (card->uirq[i].efd >= 0)
			close(card->uirq[i].efd);
	pthread_mutex_destroy(&card->uirq_lock);
	free(card);
}

static void emu_close(struct hellofpga_dev *dev)
{
	emu_teardown(dev->priv);
	dev->priv = NULL;
}

/* fork() child: the card memory files carry the parent's block locks. */
static void emu_fork_child(struct hellofpga_dev *dev)
{
	struct emu_card *card = dev->priv;

	for (u32 ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
		if (card->blk_fd[ch] >= 0)
			close(card->blk_fd[ch]);
		card->blk_fd[ch] = -1;
	}
}

static const struct hf_backend_ops emu_ops = {
	.name = "emulated card (in-process model)",
	.close = emu_close,
	.fork_child = emu_fork_child,
	.xfer = emu_xfer,
	.user_read32 = emu_user_read32,
	.user_write32 = emu_user_write32,
	.counters = emu_counters,
	.dma_faults = emu_dma_faults,
	.link_model = emu_link_model,
	.gpu_pin = emu_gpu_pin,
	.gpu_unpin = emu_gpu_unpin,
	.gpu_xfer = emu_gpu_xfer,
	.wb_map = emu_wb_map,
	.wb_unmap = emu_wb_unmap,
	.uirq_arm = emu_uirq_arm,
	.uirq_take = emu_uirq_take,
	.stream_start = emu_stream_start,
	.stream_wait = emu_stream_wait,
	.stream_release = emu_stream_release,
	.stream_kick = emu_stream_kick,
	.stream_stats = emu_stream_stats,
	.stream_stop = emu_stream_stop,
	.stream_halt = emu_stream_halt,
	.stream_gpu_slot = emu_stream_gpu_slot,
	.stream_gpu_doorbells = emu_stream_gpu_doorbells,
};

/**
 * hf_emu_open() - open an emulated card: "emu[:N][,option...]".
 * Return: 0 or negative errno with the error text set.
 */
int hf_emu_open(struct hellofpga_dev *dev, const char *spec)
{
	struct xdma_model_config cfg;
	struct emu_card *card;
	struct emu_opts o;
	int ret;

	ret = emu_parse_spec(dev, spec, &o);
	if (ret)
		return ret;
	card = calloc(1, sizeof(*card));
	if (!card)
		return hf_set_error(dev, -ENOMEM, "out of memory");
	pthread_mutex_init(&card->gpu_lock, NULL);
	pthread_rwlock_init(&card->blk_rw, NULL);
	for (u32 ch = 0; ch < XDMA_MAX_CHANNELS; ch++)
		card->blk_fd[ch] = -1;
	pthread_mutex_init(&card->uirq_lock, NULL);
	pthread_mutex_init(&card->wedged_lock, NULL);
	for (u32 i = 0; i < XDMA_USER_IRQS; i++)
		card->uirq[i] = (struct emu_uirq){ card, i, -1, 0 };
	card->irq_mode = o.irq_mode;
	card->align = 1;
	if (!o.private_mem) {
		ret = emu_map_shared_ddr(dev, card, &o);
		if (ret)
			goto err;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.num_h2c = o.num_h2c;
	cfg.num_c2h = o.num_c2h;
	cfg.ddr = card->ddr;
	cfg.ddr_size = o.ddr_size;
	cfg.addr_align = o.align;
	cfg.len_gran = o.align;
	cfg.link = o.link;
	cfg.st = o.st;
	cfg.user = &hf_refdesign_user;	/* the reference design */
	if (hf_emu_user_logic) {	/* a test's (hf_emu_test_user_logic()) */
		cfg.user = hf_emu_user_logic;
	} else if (o.rtl) {	/* ... as RTL, in a Verilator simulation */
		char err[PATH_MAX + 160];

		ret = hf_rtl_load(&card->rtl, err, sizeof(err));
		if (ret) {
			hf_set_error(dev, ret, "%s: %s", spec, err);
			goto err;
		}
		cfg.user = card->rtl.ops;
	}
	card->link = o.link;
	ret = hf_emu_host_create(&cfg, o.sync ? HF_EMU_SYNC : 0, &card->host);
	if (ret) {
		hf_set_error(dev, ret, "cannot create the emulated card: %s",
			     strerror(-ret));
		goto err;
	}
	ret = hf_xdma_dev_probe(&card->xdev, hf_emu_dma_bar(card->host));
	if (ret) {
		hf_set_error(dev, ret, "emulated card: XDMA probe failed (%d)",
			     ret);
		goto err;
	}
	/* A stopped engine is proven idle within a descriptor's link time. */
	card->xdev.link_rate = o.link.gen ?
			       (u64)(xdma_link_gbps(&o.link) * 1e9) :
			       EMU_NOLINK_RATE;
	ret = emu_init_engines(dev, card);
	if (ret)
		goto err;
	ret = emu_setup_irqs(dev, card);
	if (ret)
		goto err;

	dev->priv = card;
	dev->ops = &emu_ops;
	dev->stream = card->xdev.stream;
	dev->pci.user_bar_size = cfg.user->bar_size;
	snprintf(dev->info.name, sizeof(dev->info.name), "%s", spec);
	dev->info.backend = HELLOFPGA_BACKEND_EMULATED;
	snprintf(dev->info.backend_name, sizeof(dev->info.backend_name), "%s",
		 emu_ops.name);
	dev->info.num_h2c = card->xdev.num_h2c;
	dev->info.num_c2h = card->xdev.num_c2h;
	dev->info.ddr_size = o.ddr_size;
	dev->info.ip_version = card->xdev.version;
	dev->info.addr_align = card->eng[XDMA_H2C][0].eng.addr_align;
	dev->info.len_granularity = card->eng[XDMA_H2C][0].eng.len_gran;
	dev->info.irq_mode = card->irq_mode;
	return 0;
err:
	emu_teardown(card);
	return ret;
}

/*
 * What the test hooks (emu_test.c, linked into the tests only) see of an
 * emulated card and its pins.
 */

/* @dev's emulated card, or NULL when @dev is another backend's card */
struct emu_card *hf_emu_card_of(struct hellofpga_dev *dev)
{
	return dev->ops == &emu_ops ? dev->priv : NULL;
}

struct hf_emu_host *hf_emu_card_host(struct emu_card *card)
{
	return card->host;
}

/* map later pins as regions moved by hf_gpu_copy_*(), whatever the GPU */
void hf_emu_card_force_region(struct emu_card *card, bool on)
{
	card->force_region = on;
}
