// SPDX-License-Identifier: MIT
/*
 * test_engine.c - the engine core against the emulated card (model/ through
 * its in-process host): probe, transfers in poll mode and interrupt modes,
 * register traffic of the hot path, error decoding and fault recovery.
 */
#include "dma_faults.h"
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>

#include "xdma_engine.h"
#include "hf_refdesign.h"
#include "inproc/emu_host.h"

#define NSEG		4
#define RING_DESC	512		/* 16 KiB of descriptor storage */
#define CARD_ADDR	0x100000ull
#define DDR_SIZE	(16ull << 20)
#define TMO		(2ull * 1000 * 1000 * 1000)	/* 2 s */
#define SHORT_TMO	(50ull * 1000 * 1000)		/* 50 ms */

enum fx_mode {
	FX_POLL,
	FX_MSIX,
	FX_MSI,		/* one shared vector */
};

/* Odd sizes: descriptors end mid-page, runs are not merged. */
static const size_t seg_len[NSEG] = { 65536, 4096, 12345, 100003 };

/**
 * struct fx - an emulated card with one H2C and one C2H engine ready.
 */
struct fx {
	struct hf_emu_host *h;
	struct xdma_model *m;
	const struct hf_mmio *bar;
	const struct hf_mmio *card_bar;
	struct hf_mmio shim;
	bool hold_busy;
	bool release_on_stop;
	struct hf_xdma_dev xdev;
	struct hf_xdma_engine h2c;
	struct hf_xdma_engine c2h;
	enum fx_mode mode;
	__le32 *wb;
	u64 wb_bus;
	struct hf_xdma_desc *ring;
	u64 ring_bus;
	struct hf_xdma_chain ch_h2c;
	struct hf_xdma_chain ch_c2h;
	u8 *src[NSEG];
	u8 *dst[NSEG];
	struct hf_sg sg_src[NSEG];
	struct hf_sg sg_dst[NSEG];
	u64 total;
};

static void fx_isr(void *arg)
{
	hf_xdma_engine_isr(arg);
}

static void fx_shared_isr(void *arg)
{
	struct fx *f = arg;
	u32 pend = hf_xdma_dev_isr_pending(&f->xdev);

	if (pend & BIT(f->h2c.index))
		hf_xdma_engine_isr(&f->h2c);
	if (pend & BIT(f->c2h.index))
		hf_xdma_engine_isr(&f->c2h);
}

/*
 * The engine core sees the card through a shim: with @hold_busy set, H2C0's
 * status reads Busy whatever the model says (an engine that does not stop
 * when Run clears, as a hung card's; or, with @release_on_stop, one still
 * busy until the stop clears Run).
 */
static u32 fx_shim_read(void *ctx, u32 off)
{
	struct fx *f = ctx;
	u32 v = hf_ioread32(f->card_bar, off);

	if (__atomic_load_n(&f->hold_busy, __ATOMIC_ACQUIRE) &&
	    (off == XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS ||
	     off == XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS_RC))
		v |= XDMA_STAT_BUSY;
	return v;
}

static void fx_shim_write(void *ctx, u32 off, u32 val)
{
	struct fx *f = ctx;

	/* with @release_on_stop, the Run clear of a stop ends the hold */
	if (f->release_on_stop && (val & XDMA_CTRL_RUN) &&
	    off == XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL_W1C)
		__atomic_store_n(&f->hold_busy, false, __ATOMIC_RELEASE);
	hf_iowrite32(val, f->card_bar, off);
}

static void fx_hold_busy(struct fx *f, bool on)
{
	__atomic_store_n(&f->hold_busy, on, __ATOMIC_RELEASE);
}

static u8 *fx_buf(struct fx *f, size_t len, enum hf_dma_dir dir, u64 *bus)
{
	u8 *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	HF_CHECK(p);
	memset(p, 0, len);
	HF_CHECK_ERR(hf_emu_dma_map(f->h, p, len, dir, bus), 0);
	return p;
}

static void fx_setup_ch(struct fx *f, u32 flags, enum fx_mode mode,
			u32 nh2c, u32 nc2h, u32 h2c_ch, u32 c2h_ch)
{
	struct xdma_model_config cfg = {
		.num_h2c = nh2c, .num_c2h = nc2h, .ddr_size = DDR_SIZE,
		.user = &hf_refdesign_user,
	};
	bool poll = mode == FX_POLL;

	u32 i;

	memset(f, 0, sizeof(*f));
	f->mode = mode;
	HF_CHECK_ERR(hf_emu_host_create(&cfg, flags, &f->h), 0);
	f->m = hf_emu_host_model(f->h);
	f->card_bar = hf_emu_dma_bar(f->h);
	f->shim.read32 = fx_shim_read;
	f->shim.write32 = fx_shim_write;
	f->shim.ctx = f;
	f->bar = &f->shim;
	HF_CHECK_ERR(hf_xdma_dev_probe(&f->xdev, f->bar), 0);

	f->wb = hf_emu_dma_alloc(f->h, 2 * XDMA_WB_AREA, &f->wb_bus);
	HF_CHECK(f->wb);
	f->ring = hf_emu_dma_alloc(f->h, RING_DESC * XDMA_DESC_SIZE,
				   &f->ring_bus);
	HF_CHECK(f->ring);
	/* first half for H2C, second half for C2H */
	hf_xdma_chain_init(&f->ch_h2c, f->ring, f->ring_bus, RING_DESC / 2);
	hf_xdma_chain_init(&f->ch_c2h, f->ring + RING_DESC / 2,
			   f->ring_bus + RING_DESC / 2 * XDMA_DESC_SIZE,
			   RING_DESC / 2);
	for (i = 0; i < NSEG; i++) {
		f->src[i] = fx_buf(f, seg_len[i], HF_DMA_TO_DEVICE,
				   &f->sg_src[i].addr);
		f->dst[i] = fx_buf(f, seg_len[i], HF_DMA_FROM_DEVICE,
				   &f->sg_dst[i].addr);
		f->sg_src[i].len = seg_len[i];
		f->sg_dst[i].len = seg_len[i];
		f->total += seg_len[i];
	}

	if (mode == FX_MSIX) {
		HF_CHECK_ERR(hf_emu_set_irq_mode(f->h, XDMA_MODEL_IRQ_MSIX), 0);
		hf_xdma_dev_set_vectors(&f->xdev, 0, 16, false);
		HF_CHECK_ERR(hf_emu_request_irq(f->h, h2c_ch, fx_isr, &f->h2c),
			     0);
		HF_CHECK_ERR(hf_emu_request_irq(f->h, f->xdev.num_h2c + c2h_ch,
						fx_isr, &f->c2h), 0);
	} else if (mode == FX_MSI) {
		HF_CHECK_ERR(hf_emu_set_irq_mode(f->h, XDMA_MODEL_IRQ_MSI), 0);
		hf_xdma_dev_set_vectors(&f->xdev, 0, 0, true);
		HF_CHECK_ERR(hf_emu_request_irq(f->h, 0, fx_shared_isr, f), 0);
	}
	HF_CHECK_ERR(hf_xdma_engine_init(&f->h2c, &f->xdev, XDMA_H2C, h2c_ch,
					 poll, f->wb, f->wb_bus), 0);
	HF_CHECK_ERR(hf_xdma_engine_init(&f->c2h, &f->xdev, XDMA_C2H, c2h_ch,
					 poll, f->wb + XDMA_WB_AREA / 4,
					 f->wb_bus + XDMA_WB_AREA), 0);
}

static void fx_setup(struct fx *f, u32 flags, enum fx_mode mode)
{
	fx_setup_ch(f, flags, mode, 1, 1, 0, 0);
}

static void fx_teardown(struct fx *f)
{
	u32 i;

	hf_xdma_engine_fini(&f->h2c);
	hf_xdma_engine_fini(&f->c2h);
	if (f->mode == FX_MSIX) {
		hf_emu_free_irq(f->h, f->h2c.index);
		hf_emu_free_irq(f->h, f->c2h.index);
	} else if (f->mode == FX_MSI) {
		hf_emu_free_irq(f->h, 0);
	}
	for (i = 0; i < NSEG; i++) {
		hf_emu_dma_unmap(f->h, f->sg_src[i].addr);
		hf_emu_dma_unmap(f->h, f->sg_dst[i].addr);
		free(f->src[i]);
		free(f->dst[i]);
	}
	hf_emu_dma_free(f->h, f->ring, f->ring_bus);
	hf_emu_dma_free(f->h, f->wb, f->wb_bus);
	hf_emu_host_destroy(f->h);
}

static void fx_fill(struct fx *f, u32 seed)
{
	u32 i, x = seed;
	size_t j;

	for (i = 0; i < NSEG; i++)
		for (j = 0; j < seg_len[i]; j++) {
			x = x * 1103515245u + 12345u;
			f->src[i][j] = x >> 16;
		}
}

/* Card memory at CARD_ADDR holds the source segments back to back. */
static void fx_check_card(struct fx *f)
{
	u64 at = CARD_ADDR;
	u32 i;

	for (i = 0; i < NSEG; i++) {
		u8 *tmp = malloc(seg_len[i]);

		HF_CHECK(tmp);
		HF_CHECK_ERR(xdma_model_card_read(f->m, at, tmp, seg_len[i]),
			     0);
		HF_CHECK_MSG(!memcmp(tmp, f->src[i], seg_len[i]),
			     "card memory differs in segment %u", i);
		free(tmp);
		at += seg_len[i];
	}
}

static void fx_check_dst(struct fx *f)
{
	u32 i;

	for (i = 0; i < NSEG; i++)
		HF_CHECK_MSG(!memcmp(f->dst[i], f->src[i], seg_len[i]),
			     "read-back differs in segment %u", i);
}

static void fx_run_ok(struct hf_xdma_engine *e, struct hf_xdma_chain *c)
{
	struct hf_xdma_result res;
	int ret = hf_xdma_engine_run(e, c, TMO, &res);

	HF_CHECK_MSG(ret == 0, "run: %d (%s)", ret, res.msg);
	HF_CHECK_EQ(res.err, 0);
	HF_CHECK_EQ(res.bytes, c->bytes);
	HF_CHECK_EQ(res.completed, c->count);
	HF_CHECK(res.status & XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(res.msg[0], '\0');
}

/* H2C0's chain of the four source segments, to card memory at @card */
static void fx_build_h2c(struct fx *f, u64 card)
{
	HF_CHECK_ERR(hf_xdma_chain_build(&f->ch_h2c, XDMA_H2C, f->sg_src, NSEG, 0,
					 f->total, card), 0);
}

/* C2H0's chain of the four destination segments, from card memory at @card */
static void fx_build_c2h(struct fx *f, u64 card)
{
	HF_CHECK_ERR(hf_xdma_chain_build(&f->ch_c2h, XDMA_C2H, f->sg_dst, NSEG, 0,
					 f->total, card), 0);
}

static void fx_roundtrip(struct fx *f, u32 seed)
{
	fx_fill(f, seed);
	fx_build_h2c(f, CARD_ADDR);
	fx_build_c2h(f, CARD_ADDR);
	fx_run_ok(&f->h2c, &f->ch_h2c);
	fx_check_card(f);
	fx_run_ok(&f->c2h, &f->ch_c2h);
	fx_check_dst(f);
}

/* ---- probe ---- */

/* The channel counts probe finds; 0 in the model's config: its default. */
static const struct probe_row {
	const char *name;
	u32 num;		/* H2C and C2H channels configured */
	u32 expect;		/* and found */
} probe_rows[] = {
	{ "4_and_4_channels", 0, 4 },
	{ "1_and_1_channels", 1, 1 },
};

static void probe_case(const void *arg)
{
	const struct probe_row *row = arg;
	struct xdma_model_config cfg = {
		.num_h2c = row->num, .num_c2h = row->num,
		.user = &hf_refdesign_user,
	};
	struct hf_emu_host *h;
	struct hf_xdma_dev xdev;

	HF_CHECK_ERR(hf_emu_host_create(&cfg, HF_EMU_SYNC, &h), 0);
	HF_CHECK_ERR(hf_xdma_dev_probe(&xdev, hf_emu_dma_bar(h)), 0);
	HF_CHECK_EQ(xdev.num_h2c, row->expect);
	HF_CHECK_EQ(xdev.num_c2h, row->expect);
	HF_CHECK_EQ(xdev.version, XDMA_ID_VERSION_VALUE);
	hf_emu_host_destroy(h);
}

HF_TEST_ROWS(engine_probe_finds, probe_rows, probe_case)

HF_TEST(engine_probe_dead_card_enodev)
{
	struct xdma_model_config cfg = { .user = &hf_refdesign_user };
	struct hf_emu_host *h;
	struct hf_xdma_dev xdev;

	HF_CHECK_ERR(hf_emu_host_create(&cfg, HF_EMU_SYNC, &h), 0);
	xdma_model_inject(hf_emu_host_model(h), XDMA_FAULT_DEAD);
	HF_CHECK_ERR(hf_xdma_dev_probe(&xdev, hf_emu_dma_bar(h)), -ENODEV);
	hf_emu_host_destroy(h);
}

HF_TEST(engine_init_rejects_missing_channel)
{
	struct fx f;
	struct hf_xdma_engine e;

	fx_setup(&f, HF_EMU_SYNC, FX_POLL);
	HF_CHECK_ERR(hf_xdma_engine_init(&e, &f.xdev, XDMA_H2C, 1, true, f.wb,
					 f.wb_bus), -EINVAL);
	HF_CHECK_ERR(hf_xdma_engine_init(&e, &f.xdev, XDMA_C2H, 0, true, NULL,
					 0), -EINVAL);
	fx_teardown(&f);
}

/* Interrupt mode reads the writeback word too: it needs one. */
HF_TEST(engine_init_interrupt_mode_needs_writeback_area)
{
	struct fx f;
	struct hf_xdma_engine e;

	fx_setup(&f, HF_EMU_SYNC, FX_MSIX);
	hf_xdma_engine_fini(&f.c2h);
	HF_CHECK_ERR(hf_xdma_engine_init(&e, &f.xdev, XDMA_C2H, 0, false, NULL,
					 0), -EINVAL);
	HF_CHECK_ERR(hf_xdma_engine_init(&f.c2h, &f.xdev, XDMA_C2H, 0, false,
					 f.wb + XDMA_WB_AREA / 4,
					 f.wb_bus + XDMA_WB_AREA), 0);
	fx_teardown(&f);
}

HF_TEST(engine_index_and_vectors_in_engine_order)
{
	struct fx f;

	fx_setup_ch(&f, HF_EMU_SYNC, FX_POLL, 4, 4, 3, 2);
	HF_CHECK_EQ(f.h2c.index, 3);
	HF_CHECK_EQ(f.c2h.index, 6);
	HF_CHECK_EQ(f.h2c.base, 0x0300);
	HF_CHECK_EQ(f.c2h.base, 0x1200);
	HF_CHECK_EQ(f.c2h.sgdma_base, 0x5200);
	hf_xdma_dev_set_vectors(&f.xdev, 0, 16, false);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(0)),
		    0x03020100);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(4)),
		    0x07060504);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(12)),
		    0x1f1e1d1c);
	fx_teardown(&f);

	/* 1 + 1: C2H0 is engine 1, vector slot byte 1 of 0xA0 */
	fx_setup(&f, HF_EMU_SYNC, FX_POLL);
	HF_CHECK_EQ(f.c2h.index, 1);
	hf_xdma_dev_set_vectors(&f.xdev, 0, 16, false);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(0)),
		    0x0100);
	fx_teardown(&f);
}

HF_TEST(engine_init_stops_a_running_engine)
{
	struct fx f;
	u32 st;

	fx_setup(&f, 0, FX_MSIX);
	/* someone left H2C0 running on a chain that never ends (stalled) */
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	hf_iowrite32(lower_32_bits(f.ch_h2c.bus), f.bar,
		     XDMA_H2C_SGDMA_BASE(0) + XDMA_SGDMA_DESC_LO);
	hf_iowrite32(upper_32_bits(f.ch_h2c.bus), f.bar,
		     XDMA_H2C_SGDMA_BASE(0) + XDMA_SGDMA_DESC_HI);
	hf_iowrite32(XDMA_CTRL_RUN, f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL);
	st = hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS);
	HF_CHECK(st & XDMA_STAT_BUSY);
	hf_xdma_engine_fini(&f.h2c);
	HF_CHECK_ERR(hf_xdma_engine_init(&f.h2c, &f.xdev, XDMA_H2C, 0, false,
					 f.wb, f.wb_bus), 0);
	st = hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS);
	HF_CHECK_EQ(st, 0);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN) &
		    BIT(f.h2c.index), BIT(f.h2c.index));
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 18);
	fx_teardown(&f);
}

/* ---- data movement ---- */

/* One round trip per completion mode and engine threading. */
static const struct roundtrip_row {
	const char *name;
	u32 flags;
	enum fx_mode mode;
	bool irq;		/* no interrupt may be lost */
} roundtrip_rows[] = {
	{ "poll_threaded", 0, FX_POLL, false },
	{ "poll_sync", HF_EMU_SYNC, FX_POLL, false },
	{ "msix_threaded", 0, FX_MSIX, true },
	{ "msix_sync", HF_EMU_SYNC, FX_MSIX, false },
	{ "shared_msi_threaded", 0, FX_MSI, true },
};

static void roundtrip_case(const void *arg)
{
	const struct roundtrip_row *row = arg;
	struct fx f;

	fx_setup(&f, row->flags, row->mode);
	fx_roundtrip(&f, 1 + (int)(row - roundtrip_rows));
	if (row->irq) {
		HF_CHECK_EQ(f.h2c.stats.lost_irqs, 0);
		HF_CHECK_EQ(f.c2h.stats.lost_irqs, 0);
	}
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_roundtrip, roundtrip_rows, roundtrip_case)

HF_TEST(engine_roundtrip_last_channels_of_4_plus_4)
{
	struct fx f;

	fx_setup_ch(&f, 0, FX_MSIX, 4, 4, 3, 3);
	HF_CHECK_EQ(f.c2h.index, 7);
	fx_roundtrip(&f, 6);
	fx_teardown(&f);
}

HF_TEST(engine_many_runs_threaded_msix)
{
	struct fx f;
	u32 i;

	fx_setup(&f, 0, FX_MSIX);
	fx_roundtrip(&f, 7);
	for (i = 0; i < 200; i++) {
		fx_run_ok(&f.h2c, &f.ch_h2c);
		fx_run_ok(&f.c2h, &f.ch_c2h);
	}
	HF_CHECK_EQ(f.h2c.stats.runs, 201);
	HF_CHECK_EQ(f.h2c.stats.bytes, 201 * f.total);
	HF_CHECK_EQ(f.h2c.stats.errors, 0);
	HF_CHECK_EQ(f.h2c.stats.lost_irqs, 0);
	fx_teardown(&f);
}

HF_TEST(engine_long_chain_with_storage_mid_page)
{
	static struct hf_sg sg[300];
	struct fx f;
	struct hf_xdma_chain c;
	u32 i;

	fx_setup(&f, 0, FX_POLL);
	fx_fill(&f, 8);
	/* 300 descriptors of 100 bytes, every other 256 bytes of src[0] */
	for (i = 0; i < 300; i++) {
		sg[i].addr = f.sg_src[0].addr + 200ull * i;
		sg[i].len = 100;
	}
	hf_xdma_chain_init(&c, f.ring + 100, f.ring_bus + 100 * XDMA_DESC_SIZE,
			   RING_DESC - 100);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 300, 0, 30000,
					 CARD_ADDR), 0);
	HF_CHECK_EQ(c.count, 300);
	fx_run_ok(&f.h2c, &c);
	for (i = 0; i < 300; i++) {
		u8 tmp[100];

		HF_CHECK_ERR(xdma_model_card_read(f.m, CARD_ADDR + 100 * i,
						  tmp, 100), 0);
		HF_CHECK(!memcmp(tmp, f.src[0] + 200 * i, 100));
	}
	fx_teardown(&f);
}

/* ---- register traffic of the hot path ---- */

static void mmio_delta(struct fx *f, struct hf_xdma_engine *e,
		       struct hf_xdma_chain *c, u64 *reads, u64 *writes)
{
	struct xdma_model_counters a, b;

	xdma_model_get_counters(f->m, &a);
	fx_run_ok(e, c);
	xdma_model_get_counters(f->m, &b);
	*reads = b.mmio_reads - a.mmio_reads;
	*writes = b.mmio_writes - a.mmio_writes;
}

/*
 * A rerun of the same chain writes only control and the W1C of run: the
 * first run adds desc lo/hi/adj.  Polling, the writeback says the rest;
 * threaded, a slow run (over ~2 ms) also reads the status register now and
 * then while it sleeps between writeback checks, so reads are counted only
 * synchronously.  With a vector of its own the ISR touches no register, the
 * status comes from the writeback word.
 */
struct rerun_row {
	const char *name;
	u32 flags;
	enum fx_mode mode;
	u32 seed;
	bool h2c;		/* else c2h */
};

static const struct rerun_row rerun_rows[] = {
	{ "poll", HF_EMU_SYNC, FX_POLL, 9, true },
	{ "poll_threaded", 0, FX_POLL, 9, true },
	{ "msix", 0, FX_MSIX, 10, false },
};

static void rerun_case(const void *arg)
{
	const struct rerun_row *row = arg;
	bool reads_counted = row->mode == FX_MSIX ||
			     (row->flags & HF_EMU_SYNC);
	struct hf_xdma_engine *e;
	struct hf_xdma_chain *c;
	struct fx f;
	u64 r, w;

	fx_setup(&f, row->flags, row->mode);
	fx_fill(&f, row->seed);
	if (row->h2c) {
		fx_build_h2c(&f, CARD_ADDR);
		e = &f.h2c;
		c = &f.ch_h2c;
	} else {
		fx_build_c2h(&f, CARD_ADDR);
		e = &f.c2h;
		c = &f.ch_c2h;
	}
	mmio_delta(&f, e, c, &r, &w);
	HF_CHECK_EQ(w, 3 + 2);
	if (reads_counted)
		HF_CHECK_EQ(r, 0);
	mmio_delta(&f, e, c, &r, &w);
	HF_CHECK_EQ(w, 2);
	if (reads_counted)
		HF_CHECK_EQ(r, 0);
	if (row->h2c)
		fx_check_card(&f);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_rerun_writes_no_sgdma_registers, rerun_rows, rerun_case)

/*
 * A shared vector (MSI): the ISR reads the pending register and masks the
 * channel, the run enables it again after Run; still no read of the
 * engine's own registers.
 */
HF_TEST(engine_rerun_register_traffic_shared_vector)
{
	struct fx f;
	u64 r, w;

	fx_setup(&f, 0, FX_MSI);
	fx_fill(&f, 11);
	fx_build_c2h(&f, CARD_ADDR);
	mmio_delta(&f, &f.c2h, &f.ch_c2h, &r, &w);
	mmio_delta(&f, &f.c2h, &f.ch_c2h, &r, &w);
	/* control, channel enable W1S, ISR mask W1C, W1C run; ISR pending */
	HF_CHECK_EQ(w, 4);
	HF_CHECK_EQ(r, 1);
	fx_teardown(&f);
}

HF_TEST(engine_other_chain_reprograms_descriptor_address)
{
	struct fx f;
	struct hf_xdma_chain c2;
	u64 r, w;

	fx_setup(&f, 0, FX_POLL);
	fx_fill(&f, 11);
	fx_build_h2c(&f, CARD_ADDR);
	fx_run_ok(&f.h2c, &f.ch_h2c);
	/* same list, other storage (same page: only the low word differs) */
	hf_xdma_chain_init(&c2, f.ring + 8, f.ring_bus + 8 * XDMA_DESC_SIZE, 64);
	HF_CHECK_ERR(hf_xdma_chain_build(&c2, XDMA_H2C, f.sg_src, 1, 0, 4096,
					 CARD_ADDR + 0x200000), 0);
	mmio_delta(&f, &f.h2c, &c2, &r, &w);
	HF_CHECK_EQ(w, 2 + 2);	/* desc lo + adj */
	{
		u8 tmp[4096];

		HF_CHECK_ERR(xdma_model_card_read(f.m, CARD_ADDR + 0x200000,
						  tmp, 4096), 0);
		HF_CHECK(!memcmp(tmp, f.src[0], 4096));
	}
	mmio_delta(&f, &f.h2c, &f.ch_h2c, &r, &w);
	HF_CHECK_EQ(w, 2 + 2);
	fx_teardown(&f);
}

/* ---- errors ---- */

HF_TEST(engine_c2h_bad_card_address_decode_error)
{
	struct fx f;
	struct hf_xdma_result res;

	fx_setup(&f, 0, FX_POLL);
	fx_build_c2h(&f, DDR_SIZE + 0x1000);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.c2h, &f.ch_c2h, TMO, &res), -EIO);
	HF_CHECK_EQ(res.err, -EIO);
	HF_CHECK_EQ(res.bytes, 0);
	HF_CHECK_EQ(res.completed, 0);
	HF_CHECK_MSG(strstr(res.msg, "C2H0: engine stopped: read error (decode error at card address) after 0 of 4 descriptors, status 0x"),
		     "msg: %s", res.msg);
	HF_CHECK(FIELD_GET(XDMA_STAT_READ_ERROR, res.status) ==
		 XDMA_C2H_READ_ERR_DECODE);
	HF_CHECK_EQ(f.c2h.stats.errors, 1);
	HF_CHECK(!f.c2h.prog_valid);
	fx_teardown(&f);
}

HF_TEST(engine_h2c_bad_card_address_write_error_irq)
{
	struct fx f;
	struct hf_xdma_result res;

	fx_setup(&f, 0, FX_MSIX);
	fx_build_h2c(&f, DDR_SIZE);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, TMO, &res), -EIO);
	HF_CHECK_MSG(strstr(res.msg, "H2C0: engine stopped: write error (decode error at card address) after 0 of 4"),
		     "msg: %s", res.msg);
	HF_CHECK(res.elapsed_ns < TMO / 2);
	/* and the engine works again */
	fx_roundtrip(&f, 12);
	fx_teardown(&f);
}

HF_TEST(engine_error_mid_chain_counts_completed_bytes)
{
	struct fx f;
	struct hf_xdma_result res;
	u64 first_two = seg_len[0] + seg_len[1];

	fx_setup(&f, 0, FX_POLL);
	/* descriptor 2 starts exactly at the end of card memory */
	fx_build_c2h(&f, DDR_SIZE - first_two);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.c2h, &f.ch_c2h, TMO, &res), -EIO);
	HF_CHECK_EQ(res.completed, 2);
	HF_CHECK_EQ(res.bytes, first_two);
	HF_CHECK_MSG(strstr(res.msg, "after 2 of 4 descriptors"), "msg: %s",
		     res.msg);
	fx_teardown(&f);
}

HF_TEST(engine_unmapped_host_memory_read_error)
{
	struct fx f;
	struct hf_xdma_result res;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	fx_setup(&f, 0, FX_MSIX);
	fx_build_h2c(&f, CARD_ADDR);
	HF_CHECK_ERR(hf_emu_dma_unmap(f.h, f.sg_src[1].addr), 0);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, TMO, &res), -EIO);
	HF_CHECK_EQ(res.completed, 1);
	HF_CHECK_EQ(res.bytes, seg_len[0]);
	HF_CHECK_MSG(strstr(res.msg, "read error (unsupported request reading host memory) after 1 of 4"),
		     "msg: %s", res.msg);
	/* remap so teardown unmaps a live mapping */
	HF_CHECK_ERR(hf_emu_dma_map(f.h, f.src[1], seg_len[1],
				    HF_DMA_TO_DEVICE, &f.sg_src[1].addr), 0);
	fx_teardown(&f);
}

/* A descriptor fetch fails: H2C0 polled, C2H0 with interrupts. */
static const struct fetch_fault_row {
	const char *name;
	enum fx_mode mode;
	bool c2h;
	u32 seed;
	const char *msg;	/* in the result's text; NULL: not checked */
} fetch_fault_rows[] = {
	{ "poll", FX_POLL, false, 13, "descriptor error (unsupported request)" },
	{ "irq", FX_MSIX, true, 14, NULL },
};

static void fetch_fault_case(const void *arg)
{
	const struct fetch_fault_row *row = arg;
	struct hf_xdma_engine *e;
	struct hf_xdma_chain *c;
	struct hf_xdma_result res;
	struct fx f;

	fx_setup(&f, 0, row->mode);
	if (row->c2h) {
		fx_build_c2h(&f, CARD_ADDR);
		e = &f.c2h;
		c = &f.ch_c2h;
	} else {
		fx_build_h2c(&f, CARD_ADDR);
		e = &f.h2c;
		c = &f.ch_h2c;
	}
	xdma_model_inject(f.m, XDMA_FAULT_DESC_READ);
	HF_CHECK_ERR(hf_xdma_engine_run(e, c, TMO, &res), -EIO);
	HF_CHECK(res.status & XDMA_STAT_DESC_ERROR);
	if (row->msg)
		HF_CHECK_MSG(strstr(res.msg, row->msg), "msg: %s", res.msg);
	HF_CHECK(res.elapsed_ns < TMO / 2);
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, row->seed);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_descriptor_fetch_fault_eio, fetch_fault_rows,
	     fetch_fault_case)

/* A variant of a case: the completion mode and the fx_setup() flags. */
struct mode_row {
	const char *name;
	enum fx_mode mode;
	u32 flags;
};

/* The variants that differ only in completion mode. */
static const struct mode_row poll_msix_rows[] = {
	{ "poll", FX_POLL, 0 },
	{ "msix", FX_MSIX, 0 },
};

static void stall_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct fx f;
	struct hf_xdma_result res;
	u64 t0, took;

	fx_setup(&f, row->flags, row->mode);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	t0 = hf_os_now_ns();
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, SHORT_TMO, &res),
		     -ETIMEDOUT);
	took = hf_os_now_ns() - t0;
	HF_CHECK(took >= SHORT_TMO);
	HF_CHECK_MSG(took < SHORT_TMO + 200000000ull, "took %llu ns",
		     (unsigned long long)took);
	HF_CHECK_MSG(strstr(res.msg, "H2C0: timed out after 50 ms: 0 of 4 descriptors completed, status 0x"),
		     "msg: %s", res.msg);
	HF_CHECK_EQ(f.h2c.stats.timeouts, 1);
	/* the engine is stopped */
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL) &
		    XDMA_CTRL_RUN, 0);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS) &
		    XDMA_STAT_BUSY, 0);
	/* and usable again */
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 15);
	HF_CHECK_EQ(f.h2c.stats.timeouts, 1);
	fx_teardown(&f);
}

static const struct mode_row stall_rows[] = {
	{ "msix", FX_MSIX, 0 },
	{ "poll", FX_POLL, 0 },
	{ "sync", FX_MSIX, HF_EMU_SYNC },
};

HF_TEST_ROWS(engine_stall_times_out_and_recovers, stall_rows, stall_case)

HF_TEST(engine_lost_irq_completes_via_status)
{
	struct fx f;
	struct hf_xdma_result res;

	fx_setup(&f, 0, FX_MSIX);
	fx_fill(&f, 16);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_LOST_IRQ);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, SHORT_TMO, &res), 0);
	HF_CHECK_EQ(res.bytes, f.total);
	HF_CHECK_EQ(res.completed, 4);
	HF_CHECK_EQ(f.h2c.stats.lost_irqs, 1);
	HF_CHECK_EQ(f.h2c.stats.timeouts, 0);
	HF_CHECK_EQ(f.h2c.stats.errors, 0);
	fx_check_card(&f);
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 17);
	HF_CHECK_EQ(f.h2c.stats.lost_irqs, 1);
	fx_teardown(&f);
}

static void dead_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct fx f;
	struct hf_xdma_result res;

	fx_setup(&f, row->flags, row->mode);
	fx_build_c2h(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_DEAD);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.c2h, &f.ch_c2h, SHORT_TMO, &res),
		     -ENODEV);
	HF_CHECK_EQ(res.status, XDMA_ID_DEAD);
	HF_CHECK_MSG(!strcmp(res.msg, "C2H0: card not responding (reads all ones): removed or link down"),
		     "msg: %s", res.msg);
	HF_CHECK(!f.c2h.prog_valid);
	/* all ones proves no idle engine: keep the chain's memory */
	HF_CHECK(res.wedged);
	HF_CHECK(f.c2h.wedged);
	HF_CHECK_EQ(res.bytes, f.ch_c2h.bytes);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.c2h), -ENODEV);
	/* the card answers again: the engine is found idle */
	xdma_model_inject(f.m, 0);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.c2h), 0);
	fx_roundtrip(&f, 19);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_dead_card_enodev, poll_msix_rows, dead_case)

/* ---- stopping: the idle proof, wedged engines, late notifications ---- */

/**
 * struct fx_later - do something to a fixture from another thread.
 * @f: the fixture
 * @after_ns: when, from the thread's start
 * @what: 0 release hold_busy, 1 clear the faults, 2 hf_xdma_engine_isr(h2c),
 *	3 hf_xdma_engine_cancel(h2c), 4 a stale poll-mode writeback word,
 *	5 a stray message of H2C0's channel from the card
 *	(xdma_model_stray_irq())
 * @wb: for 4: where, and @wb_val what
 * @busy: act only once the card shows H2C0 busy (its run started)
 * @gap_ns: once every other condition holds, wait this much longer
 * @acting: set just before it acts (what it does may take effect before
 *	@acted is set)
 * @quit: when not NULL and set, stop waiting for the conditions and act
 *	at once (the run they were for is over)
 */
struct fx_later {
	struct fx *f;
	u64 after_ns;
	int what;
	__le32 *wb;
	u32 wb_val;
	bool busy;
	u64 gap_ns;
	struct fx_later *prev;	/* acts only once prev has acted */
	int acting;
	int acted;
	const int *quit;
	pthread_t t;
};

static bool fx_later_quit(const struct fx_later *l)
{
	return l->quit && __atomic_load_n(l->quit, __ATOMIC_ACQUIRE);
}

static void *fx_later_fn(void *arg)
{
	struct fx_later *l = arg;
	u64 end = hf_os_now_ns() + l->after_ns;

	while ((hf_os_now_ns() < end ||
		(l->prev && !__atomic_load_n(&l->prev->acted, __ATOMIC_ACQUIRE)) ||
		(l->busy && !(hf_ioread32(l->f->card_bar, XDMA_H2C_BASE(0) +
					  XDMA_CHAN_STATUS) & XDMA_STAT_BUSY))) &&
	       !fx_later_quit(l))
		hf_os_sleep_us(500);
	end = hf_os_now_ns() + l->gap_ns;
	while (hf_os_now_ns() < end && !fx_later_quit(l))
		hf_os_sleep_us(500);
	__atomic_store_n(&l->acting, 1, __ATOMIC_RELEASE);
	switch (l->what) {
	case 0:
		fx_hold_busy(l->f, false);
		break;
	case 1:
		xdma_model_inject(l->f->m, 0);
		break;
	case 2:
		hf_xdma_engine_isr(&l->f->h2c);
		break;
	case 3:
		hf_xdma_engine_cancel(&l->f->h2c);
		break;
	case 5:
		HF_CHECK_ERR(xdma_model_stray_irq(l->f->m, l->f->h2c.index), 0);
		break;
	default:
		__atomic_store_n(l->wb, l->wb_val, __ATOMIC_RELEASE);
		break;
	}
	__atomic_store_n(&l->acted, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * @what after @ms, and not before @prev (NULL: none) has acted; the caller
 * may set @busy, @gap_ns and @quit before fx_later_go() starts it
 */
static void fx_later_init(struct fx_later *l, struct fx *f, int what, u64 ms,
			  struct fx_later *prev)
{
	l->f = f;
	l->what = what;
	l->after_ns = ms * 1000000ull;
	l->prev = prev;
	l->acting = 0;
	l->acted = 0;
	l->busy = false;
	l->gap_ns = 0;
	l->quit = NULL;
}

static void fx_later_go(struct fx_later *l)
{
	HF_CHECK_ERR(pthread_create(&l->t, NULL, fx_later_fn, l), 0);
}

/* @what after @ms, and not before @prev (NULL: none) has acted */
static void fx_later_after(struct fx_later *l, struct fx *f, int what, u64 ms,
			   struct fx_later *prev)
{
	fx_later_init(l, f, what, ms, prev);
	fx_later_go(l);
}

static void fx_later(struct fx_later *l, struct fx *f, int what, u64 ms)
{
	fx_later_after(l, f, what, ms, NULL);
}

static void fx_later_join(struct fx_later *l)
{
	pthread_join(l->t, NULL);
}

/* A timed-out run H2C0 whose engine stays busy after Run clears. */
static int fx_stuck_run(struct fx *f, struct hf_xdma_result *res)
{
	fx_build_h2c(f, CARD_ADDR);
	xdma_model_inject(f->m, XDMA_FAULT_STALL);
	fx_hold_busy(f, true);
	return hf_xdma_engine_run(&f->h2c, &f->ch_h2c, SHORT_TMO, res);
}

HF_TEST(engine_stop_waits_until_the_engine_is_idle)
{
	struct fx_later l;
	struct hf_xdma_result res;
	struct fx f;
	u64 t0, took;

	fx_setup(&f, 0, FX_POLL);
	/* the 64 KiB descriptor in progress at 250 kB/s: a bound of 0.5 s */
	f.xdev.link_rate = 250000;
	t0 = hf_os_now_ns();
	fx_later(&l, &f, 0, 120);
	HF_CHECK_ERR(fx_stuck_run(&f, &res), -ETIMEDOUT);
	took = hf_os_now_ns() - t0;
	fx_later_join(&l);
	HF_CHECK_MSG(took >= 120000000ull, "returned after %llu ns, before the engine went idle",
		     (unsigned long long)took);
	HF_CHECK(!res.wedged);
	HF_CHECK(!f.h2c.wedged);
	HF_CHECK_EQ(f.h2c.stats.wedges, 0);
	HF_CHECK_EQ(res.bytes, 0);
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 40);
	fx_teardown(&f);
}

static void wedge_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct hf_xdma_result res;
	struct fx f;
	u64 t0;

	fx_setup(&f, row->flags, row->mode);
	/* 1 GB/s: the 64 KiB descriptor in progress gets a bound of ~2 ms */
	f.xdev.link_rate = 1000000000;
	HF_CHECK_ERR(fx_stuck_run(&f, &res), -ETIMEDOUT);
	HF_CHECK(res.wedged);
	HF_CHECK(f.h2c.wedged);
	HF_CHECK_EQ(f.h2c.stats.wedges, 1);
	/* the card may have written all of it */
	HF_CHECK_EQ(res.bytes, f.ch_h2c.bytes);
	HF_CHECK_MSG(strstr(res.msg, "H2C0: timed out after 50 ms and the engine did not stop") &&
		     strstr(res.msg, "channel wedged"), "msg: %s", res.msg);

	/* refused at once while wedged */
	t0 = hf_os_now_ns();
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, TMO, &res), -EIO);
	HF_CHECK(hf_os_now_ns() - t0 < 100000000ull);
	HF_CHECK(!res.wedged);
	HF_CHECK_MSG(strstr(res.msg, "H2C0: channel wedged"), "msg: %s",
		     res.msg);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.h2c), -EBUSY);
	HF_CHECK(f.h2c.wedged);

	/* the engine finally stops: the channel comes back */
	fx_hold_busy(&f, false);
	xdma_model_inject(f.m, 0);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.h2c), 0);
	HF_CHECK(!f.h2c.wedged);
	HF_CHECK_EQ(f.h2c.stats.recoveries, 1);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS), 0);
	fx_roundtrip(&f, 41);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_not_idle_within_the_link_bound_is_wedged, poll_msix_rows,
	     wedge_case)

HF_TEST(engine_stop_wait_is_capped_by_stop_max)
{
	struct hf_xdma_result res;
	struct fx f;
	u64 t0, took;

	fx_setup(&f, 0, FX_POLL);
	f.xdev.link_rate = 0;			/* unknown: the cap applies */
	f.xdev.stop_max_ns = 30000000ull;	/* 30 ms */
	t0 = hf_os_now_ns();
	HF_CHECK_ERR(fx_stuck_run(&f, &res), -ETIMEDOUT);
	took = hf_os_now_ns() - t0;
	HF_CHECK(res.wedged);
	HF_CHECK(took >= SHORT_TMO + 30000000ull);
	HF_CHECK_MSG(took < SHORT_TMO + 30000000ull + 500000000ull,
		     "took %llu ns", (unsigned long long)took);
	fx_hold_busy(&f, false);
	xdma_model_inject(f.m, 0);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.h2c), 0);
	fx_teardown(&f);
}

HF_TEST(engine_init_refuses_an_engine_that_does_not_stop)
{
	struct fx f;

	fx_setup(&f, 0, FX_POLL);
	f.xdev.stop_max_ns = 10000000ull;
	hf_xdma_engine_fini(&f.h2c);
	fx_hold_busy(&f, true);
	HF_CHECK_ERR(hf_xdma_engine_init(&f.h2c, &f.xdev, XDMA_H2C, 0, true,
					 f.wb, f.wb_bus), -EBUSY);
	fx_hold_busy(&f, false);
	HF_CHECK_ERR(hf_xdma_engine_init(&f.h2c, &f.xdev, XDMA_H2C, 0, true,
					 f.wb, f.wb_bus), 0);
	fx_teardown(&f);
}

/*
 * A reset of the card clears the engines' registers behind their backs
 * (descriptor and writeback addresses, interrupt mask and enables,
 * vectors): after hf_xdma_engine_reinit() the same chains, not rebuilt,
 * run again and move the data; the counters are kept.
 */
static void reinit_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct fx f;
	u64 runs;
	u32 i;

	fx_setup(&f, row->flags, row->mode);
	fx_roundtrip(&f, 50);
	runs = f.h2c.stats.runs;
	xdma_model_reset(f.m);
	if (f.mode == FX_MSIX)
		hf_xdma_dev_set_vectors(&f.xdev, 0, 16, false);
	HF_CHECK_ERR(hf_xdma_engine_reinit(&f.h2c), 0);
	HF_CHECK_ERR(hf_xdma_engine_reinit(&f.c2h), 0);
	HF_CHECK_EQ(f.h2c.stats.runs, runs);
	fx_fill(&f, 51);
	for (i = 0; i < NSEG; i++)
		memset(f.dst[i], 0, seg_len[i]);
	fx_run_ok(&f.h2c, &f.ch_h2c);
	fx_check_card(&f);
	fx_run_ok(&f.c2h, &f.ch_c2h);
	fx_check_dst(&f);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_reinit_after_a_card_reset_runs_the_same_chains,
	     poll_msix_rows, reinit_case)

static void *event_waiter(void *arg)
{
	struct hf_xdma_engine *e = arg;

	return (void *)(intptr_t)hf_os_event_wait(&e->irq_event, TMO);
}

/*
 * A waiter on an engine's event across hf_xdma_engine_reinit() (in the
 * driver: poll() and epoll of a stream's node sit on its wait queue) is
 * woken by the next signal: the event is not set up anew under it.
 */
HF_TEST(engine_reinit_keeps_the_event_and_its_waiter)
{
	struct fx f;
	pthread_t t;
	void *ret;

	fx_setup(&f, 0, FX_MSIX);
	HF_CHECK_EQ(pthread_create(&t, NULL, event_waiter, &f.h2c), 0);
	hf_os_sleep_us(20000);
	HF_CHECK_ERR(hf_xdma_engine_reinit(&f.h2c), 0);
	hf_xdma_engine_isr(&f.h2c);
	HF_CHECK_EQ(pthread_join(t, &ret), 0);
	HF_CHECK_EQ((int)(intptr_t)ret, 0);
	fx_teardown(&f);
}

/*
 * An engine that does not stop when the card is set up again after a
 * reset stays wedged (runs refused at once); once it is idle,
 * hf_xdma_engine_recover() programs the registers the reset cleared (a
 * poll-mode run needs its writeback address) and runs work again.
 */
HF_TEST(engine_reinit_of_an_engine_that_does_not_stop_leaves_it_wedged)
{
	struct hf_xdma_result res;
	struct fx f;

	fx_setup(&f, 0, FX_POLL);
	f.xdev.stop_max_ns = 10000000ull;
	fx_roundtrip(&f, 52);
	xdma_model_reset(f.m);
	fx_hold_busy(&f, true);
	HF_CHECK_ERR(hf_xdma_engine_reinit(&f.h2c), -EBUSY);
	HF_CHECK(f.h2c.wedged);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, TMO, &res), -EIO);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.h2c), -EBUSY);
	fx_hold_busy(&f, false);
	HF_CHECK_ERR(hf_xdma_engine_recover(&f.h2c), 0);
	HF_CHECK(!f.h2c.wedged);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_POLL_WB_LO),
		    lower_32_bits(f.wb_bus));
	fx_fill(&f, 53);
	fx_run_ok(&f.h2c, &f.ch_h2c);
	fx_check_card(&f);
	fx_teardown(&f);
}

/* A run that timed out; then its late interrupt arrives in the next run. */
HF_TEST(engine_late_interrupt_of_a_failed_run_is_ignored)
{
	struct fx_later late, done;
	struct hf_xdma_result res;
	struct fx f;

	fx_setup(&f, 0, FX_MSIX);
	fx_fill(&f, 42);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, SHORT_TMO, &res),
		     -ETIMEDOUT);
	/* next run: still stalled when the late interrupt comes (the stall
	 * ends after it, however late a loaded machine runs the threads) */
	fx_later(&late, &f, 2, 30);
	fx_later_after(&done, &f, 1, 80, &late);
	HF_CHECK_MSG(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, TMO, &res) == 0,
		     "run: %s", res.msg);
	fx_later_join(&late);
	fx_later_join(&done);
	HF_CHECK_EQ(f.h2c.stats.late_notices, 1);
	HF_CHECK_EQ(res.bytes, f.total);
	fx_check_card(&f);
	/* a clean run trusts interrupts again */
	HF_CHECK(!f.h2c.stale);
	fx_teardown(&f);
}

/* Poll mode: a late writeback of the failed run lands in the other slot. */
HF_TEST(engine_late_writeback_of_a_failed_run_is_ignored)
{
	struct fx_later late;
	struct hf_xdma_result res;
	u32 lo;
	struct fx f;

	fx_setup(&f, 0, FX_POLL);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, SHORT_TMO, &res),
		     -ETIMEDOUT);
	/* the failed run's slot gets "all 4 done" during the next run */
	late.wb = f.wb;
	late.wb_val = cpu_to_le32(FIELD_PREP(XDMA_WB_COUNT, 4));
	fx_later(&late, &f, 4, 20);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, SHORT_TMO, &res),
		     -ETIMEDOUT);
	fx_later_join(&late);
	lo = hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_POLL_WB_LO);
	HF_CHECK(lo == lower_32_bits(f.wb_bus) ||
		 lo == lower_32_bits(f.wb_bus + XDMA_WB_SLOT_OFFSET));
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 43);
	fx_teardown(&f);
}

/* ---- a run's writeback into a word of the caller's ---- */

/*
 * hf_xdma_engine_run_wb(): the card's completion lands in the caller's
 * word (the descriptor count, no error bit), which the run waits on; the
 * next plain run goes back to the engine's own slot, and a run of another
 * word moves the address again.
 */
static void run_wb_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct hf_xdma_result res;
	__le32 *words;
	u64 bus, lo;
	struct fx f;

	fx_setup(&f, 0, row->mode);
	words = (__le32 *)fx_buf(&f, 4096, HF_DMA_FROM_DEVICE, &bus);
	fx_fill(&f, 51);
	fx_build_h2c(&f, CARD_ADDR);
	words[1] = cpu_to_le32(0xdeadbeef);
	HF_CHECK_ERR(hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, TMO, &words[1],
					   bus + 4, &res), 0);
	HF_CHECK_EQ(le32_to_cpu(words[1]), f.ch_h2c.count);
	HF_CHECK_EQ(res.bytes, f.ch_h2c.bytes);
	fx_check_card(&f);
	lo = hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_POLL_WB_LO);
	HF_CHECK_EQ(lo, lower_32_bits(bus + 4));

	/* another word: its own completion, the first one untouched */
	words[2] = 0;
	HF_CHECK_ERR(hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, TMO, &words[2],
					   bus + 8, &res), 0);
	HF_CHECK_EQ(le32_to_cpu(words[2]), f.ch_h2c.count);

	/* a plain run: the engine's slot again, the caller's word left */
	words[2] = 0;
	fx_run_ok(&f.h2c, &f.ch_h2c);
	HF_CHECK_EQ(le32_to_cpu(words[2]), 0);
	lo = hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_POLL_WB_LO);
	HF_CHECK_EQ(lo, lower_32_bits(f.wb_bus));
	fx_roundtrip(&f, 52);
	hf_emu_dma_unmap(f.h, bus);
	free(words);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_run_wb_lands_in_the_callers_word, poll_msix_rows,
	     run_wb_case)

/* An engine error reaches the caller's word with the error bit. */
HF_TEST(engine_run_wb_error_sets_the_error_bit)
{
	struct hf_xdma_result res;
	__le32 *words;
	u64 bus;
	struct fx f;

	fx_setup(&f, 0, FX_POLL);
	words = (__le32 *)fx_buf(&f, 4096, HF_DMA_FROM_DEVICE, &bus);
	fx_build_c2h(&f, DDR_SIZE + 0x1000);
	HF_CHECK_ERR(hf_xdma_engine_run_wb(&f.c2h, &f.ch_c2h, TMO, words, bus,
					   &res), -EIO);
	HF_CHECK(le32_to_cpu(words[0]) & XDMA_WB_ERR);
	hf_emu_dma_unmap(f.h, bus);
	free(words);
	fx_roundtrip(&f, 53);
	fx_teardown(&f);
}

/*
 * The caller's word is memory others write (the user, a GPU, the card's
 * data when it lies in the C2H destination): what it says must not end a
 * run the engine has not finished.  H2C0 is stalled (busy, nothing moves);
 * once its run started, a thread forges the word ("all done", or the error
 * flag; in interrupt mode with a stray message of the channel as the
 * wake-up); only later is the stall lifted.  The run must return after
 * that, with the true outcome: success, every byte on the card, and the
 * card's own writeback (the descriptor count) in the word.
 */
struct forge_row {
	const char *name;
	enum fx_mode mode;
	u32 forged;
};

static const struct forge_row forge_rows[] = {
	{ "poll-done", FX_POLL, 0x00ffffff },
	{ "poll-error", FX_POLL, 0x80000000 },
	{ "msix-done", FX_MSIX, 0x00ffffff },
	{ "msix-error", FX_MSIX, 0x80000000 },
};

/*
 * Forge *@word once H2C0 runs; in interrupt mode a stray message after.
 * Once *@quit is set (the run returned) they act at once if they have not.
 */
static void forge_start(struct fx *f, const struct forge_row *row,
			__le32 *word, struct fx_later *forge,
			struct fx_later *wake, const int *quit)
{
	fx_later_init(forge, f, 4, 0, NULL);
	forge->wb = word;
	forge->wb_val = cpu_to_le32(row->forged);
	forge->busy = true;
	forge->quit = quit;
	fx_later_go(forge);
	if (row->mode == FX_MSIX) {
		fx_later_init(wake, f, 5, 0, forge);
		wake->quit = quit;
		fx_later_go(wake);
	}
}

static void forge_join(const struct forge_row *row, struct fx_later *forge,
		       struct fx_later *wake)
{
	fx_later_join(forge);
	if (row->mode == FX_MSIX)
		fx_later_join(wake);
}

static void forged_word_case(const void *arg)
{
	const struct forge_row *row = arg;
	struct fx_later forge, wake, lift;
	struct hf_xdma_result res;
	__le32 *words;
	u64 bus;
	struct fx f;
	int ret, lifted, quit = 0;

	fx_setup(&f, 0, row->mode);
	words = (__le32 *)fx_buf(&f, 4096, HF_DMA_FROM_DEVICE, &bus);
	fx_fill(&f, 55);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	forge_start(&f, row, words, &forge, &wake, &quit);
	/* the stall ends 40 ms after the forgery (and the wake-up) */
	fx_later_init(&lift, &f, 1, 0, row->mode == FX_MSIX ? &wake : &forge);
	lift.gap_ns = 40000000ull;
	lift.quit = &quit;
	fx_later_go(&lift);
	ret = hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, 10 * TMO, words, bus,
				    &res);
	lifted = __atomic_load_n(&lift.acting, __ATOMIC_ACQUIRE);
	__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
	forge_join(row, &forge, &wake);
	fx_later_join(&lift);
	HF_CHECK_MSG(lifted, "the run returned %d (%s) while the engine was still stalled: it believed the forged word 0x%08x",
		     ret, res.msg, row->forged);
	HF_CHECK_MSG(ret == 0, "run: %d (%s)", ret, res.msg);
	HF_CHECK_EQ(res.bytes, f.ch_h2c.bytes);
	HF_CHECK_EQ(res.completed, f.ch_h2c.count);
	HF_CHECK_EQ(le32_to_cpu(words[0]), f.ch_h2c.count);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS) &
		    XDMA_STAT_BUSY, 0);
	fx_check_card(&f);
	HF_CHECK(f.h2c.stats.wb_unconfirmed <= 1);
	fx_roundtrip(&f, 56);
	hf_emu_dma_unmap(f.h, bus);
	free(words);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_run_wb_forged_word_waits_for_the_engine, forge_rows,
	     forged_word_case)

/*
 * The same forgery while the engine stays stalled past the run's timeout:
 * the true outcome is a timeout (the stop and its idle proof), not the
 * success the word claims.
 */
static void forged_word_timeout_case(const void *arg)
{
	const struct forge_row *row = arg;
	struct fx_later forge, wake;
	struct hf_xdma_result res;
	__le32 *words;
	u64 bus;
	struct fx f;
	int ret, quit = 0;

	fx_setup(&f, 0, row->mode);
	words = (__le32 *)fx_buf(&f, 4096, HF_DMA_FROM_DEVICE, &bus);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	forge_start(&f, row, words, &forge, &wake, &quit);
	ret = hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, 4 * SHORT_TMO, words,
				    bus, &res);
	/* a forger that came too late (a loaded machine) acts now, harmless */
	__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
	forge_join(row, &forge, &wake);
	HF_CHECK_MSG(ret == -ETIMEDOUT, "run: %d (%s), want -ETIMEDOUT", ret,
		     res.msg);
	HF_CHECK(!res.wedged);
	HF_CHECK_EQ(res.bytes, 0);
	HF_CHECK_EQ(f.h2c.stats.timeouts, 1);
	HF_CHECK_EQ(hf_ioread32(f.bar, XDMA_H2C_BASE(0) + XDMA_CHAN_STATUS) &
		    XDMA_STAT_BUSY, 0);
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 57);
	hf_emu_dma_unmap(f.h, bus);
	free(words);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_run_wb_forged_word_of_a_stalled_engine_times_out,
	     forge_rows, forged_word_timeout_case)

/*
 * Runs on the engine's own slots keep their fast path: a run that succeeds
 * reads no register.  A run on a caller's word confirms its end from the
 * engine: the status, and the count when the status says stopped.
 */
static void wb_reads_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct xdma_model_counters c0, c1;
	__le32 *words;
	u64 bus;
	struct fx f;

	fx_setup(&f, row->flags, row->mode);
	words = (__le32 *)fx_buf(&f, 4096, HF_DMA_FROM_DEVICE, &bus);
	fx_build_h2c(&f, CARD_ADDR);
	fx_run_ok(&f.h2c, &f.ch_h2c);
	xdma_model_get_counters(f.m, &c0);
	fx_run_ok(&f.h2c, &f.ch_h2c);
	xdma_model_get_counters(f.m, &c1);
	HF_CHECK_EQ(c1.mmio_reads - c0.mmio_reads, 0);
	HF_CHECK_ERR(hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, TMO, words, bus,
					   NULL), 0);
	xdma_model_get_counters(f.m, &c0);
	HF_CHECK_ERR(hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, TMO, words, bus,
					   NULL), 0);
	xdma_model_get_counters(f.m, &c1);
	HF_CHECK_EQ(c1.mmio_reads - c0.mmio_reads, 2);
	HF_CHECK_EQ(f.h2c.stats.wb_unconfirmed, 0);
	hf_emu_dma_unmap(f.h, bus);
	free(words);
	fx_teardown(&f);
}

/* poll: synchronous engines, so no health look at the status either */
static const struct mode_row wb_reads_rows[] = {
	{ "poll", FX_POLL, HF_EMU_SYNC },
	{ "msix", FX_MSIX, 0 },
};

HF_TEST_ROWS(engine_run_wb_confirms_from_the_engine_own_slots_read_nothing,
	     wb_reads_rows, wb_reads_case)

HF_TEST(engine_run_wb_refuses_an_unaligned_word)
{
	struct hf_xdma_result res;
	__le32 *words;
	u64 bus;
	struct fx f;

	fx_setup(&f, 0, FX_POLL);
	words = (__le32 *)fx_buf(&f, 4096, HF_DMA_FROM_DEVICE, &bus);
	fx_build_h2c(&f, CARD_ADDR);
	HF_CHECK_ERR(hf_xdma_engine_run_wb(&f.h2c, &f.ch_h2c, TMO,
					   (__le32 *)((u8 *)words + 2), bus + 2,
					   &res), -EINVAL);
	HF_CHECK(strstr(res.msg, "aligned"));
	hf_emu_dma_unmap(f.h, bus);
	free(words);
	fx_roundtrip(&f, 54);
	fx_teardown(&f);
}

/*
 * A chain still busy when its wait times out, that ends while the stop
 * proves the engine idle: the run timed out all the same (its interrupt was
 * not lost before the timeout, the chain was late), and bytes counts what
 * the card wrote.  The shim shows H2C0 busy until the stop clears Run; the
 * model's interrupt is lost so the waiter is not woken first.
 */
HF_TEST(engine_chain_ending_during_the_stop_still_timed_out)
{
	struct hf_xdma_result res;
	struct fx f;

	fx_setup(&f, 0, FX_MSIX);
	fx_fill(&f, 45);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_LOST_IRQ);
	fx_hold_busy(&f, true);
	f.release_on_stop = true;
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, SHORT_TMO, &res),
		     -ETIMEDOUT);
	HF_CHECK(!res.wedged);
	HF_CHECK_EQ(res.bytes, f.total);
	HF_CHECK_EQ(res.completed, NSEG);
	HF_CHECK_EQ(f.h2c.stats.lost_irqs, 0);
	HF_CHECK_EQ(f.h2c.stats.timeouts, 1);
	fx_check_card(&f);
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 46);
	fx_teardown(&f);
}

static void cancel_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct fx_later l;
	struct hf_xdma_result res;
	struct fx f;
	u64 t0, took;

	fx_setup(&f, row->flags, row->mode);
	fx_build_h2c(&f, CARD_ADDR);
	xdma_model_inject(f.m, XDMA_FAULT_STALL);
	t0 = hf_os_now_ns();
	fx_later(&l, &f, 3, 20);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &f.ch_h2c, 10 * TMO, &res),
		     -ECANCELED);
	took = hf_os_now_ns() - t0;
	fx_later_join(&l);
	HF_CHECK_MSG(took < TMO, "took %llu ns", (unsigned long long)took);
	HF_CHECK_MSG(strstr(res.msg, "cancelled"), "msg: %s", res.msg);
	HF_CHECK(!res.wedged);
	/* the caller clears the flag before the next run it lets be cancelled */
	WRITE_ONCE(f.h2c.cancel, false);
	xdma_model_inject(f.m, 0);
	fx_roundtrip(&f, 44);
	fx_teardown(&f);
}

HF_TEST_ROWS(engine_cancel_ends_a_run_early, poll_msix_rows, cancel_case)

HF_TEST(engine_chain_of_other_direction_einval)
{
	struct fx f;
	struct hf_xdma_result res;
	struct hf_xdma_chain empty;

	fx_setup(&f, HF_EMU_SYNC, FX_POLL);
	fx_build_h2c(&f, CARD_ADDR);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.c2h, &f.ch_h2c, TMO, &res), -EINVAL);
	HF_CHECK(strstr(res.msg, "other direction"));
	hf_xdma_chain_init(&empty, f.ring, f.ring_bus, 4);
	HF_CHECK_ERR(hf_xdma_engine_run(&f.h2c, &empty, TMO, &res), -EINVAL);
	HF_CHECK(strstr(res.msg, "not built"));
	fx_teardown(&f);
}

/* ---- status decoding ---- */

static void check_decode(enum hf_xdma_dir dir, u32 status, int err,
			 const char *text)
{
	char buf[256];

	HF_CHECK_ERR(hf_xdma_decode_status(dir, status, buf, sizeof(buf)), err);
	HF_CHECK_MSG(!strcmp(buf, text), "0x%08x: \"%s\" != \"%s\"", status,
		     buf, text);
}

HF_TEST(decode_status_no_bits)
{
	check_decode(XDMA_H2C, 0, 0, "none");
}

HF_TEST(decode_status_non_error_bits)
{
	check_decode(XDMA_H2C, XDMA_STAT_BUSY, 0, "busy");
	check_decode(XDMA_H2C, XDMA_STAT_DESC_STOPPED, 0, "descriptor stopped");
	check_decode(XDMA_H2C, XDMA_STAT_DESC_COMPLETED, 0,
		     "descriptor completed");
	check_decode(XDMA_C2H, XDMA_STAT_IDLE_STOPPED, 0, "idle stopped");
	check_decode(XDMA_C2H, 0x6, 0,
		     "descriptor stopped, descriptor completed");
}

HF_TEST(decode_status_engine_errors)
{
	check_decode(XDMA_H2C, XDMA_STAT_ALIGN_MISMATCH, -EIO,
		     "alignment mismatch");
	check_decode(XDMA_H2C, XDMA_STAT_MAGIC_STOPPED, -EIO,
		     "bad descriptor magic");
	check_decode(XDMA_C2H, XDMA_STAT_INVALID_LENGTH, -EIO,
		     "invalid length");
}

HF_TEST(decode_status_h2c_read_error_bits)
{
	static const char * const t[5] = {
		"read error (unsupported request reading host memory)",
		"read error (completer abort reading host memory)",
		"read error (parity error reading host memory)",
		"read error (poisoned data reading host memory)",
		"read error (unexpected completion reading host memory)",
	};
	u32 i;

	for (i = 0; i < 5; i++)
		check_decode(XDMA_H2C, FIELD_PREP(XDMA_STAT_READ_ERROR, BIT(i)),
			     -EIO, t[i]);
}

HF_TEST(decode_status_c2h_read_error_bits)
{
	check_decode(XDMA_C2H, FIELD_PREP(XDMA_STAT_READ_ERROR, BIT(0)), -EIO,
		     "read error (decode error at card address)");
	check_decode(XDMA_C2H, FIELD_PREP(XDMA_STAT_READ_ERROR, BIT(1)), -EIO,
		     "read error (slave error at card address)");
	check_decode(XDMA_C2H, FIELD_PREP(XDMA_STAT_READ_ERROR, BIT(2)), -EIO,
		     "read error (undefined bit 2)");
	check_decode(XDMA_C2H, FIELD_PREP(XDMA_STAT_READ_ERROR, 3), -EIO,
		     "read error (decode error at card address, slave error at card address)");
}

HF_TEST(decode_status_write_error_bits)
{
	check_decode(XDMA_H2C, FIELD_PREP(XDMA_STAT_WRITE_ERROR, BIT(0)), -EIO,
		     "write error (decode error at card address)");
	check_decode(XDMA_H2C, FIELD_PREP(XDMA_STAT_WRITE_ERROR, BIT(1)), -EIO,
		     "write error (slave error at card address)");
	check_decode(XDMA_H2C, FIELD_PREP(XDMA_STAT_WRITE_ERROR, BIT(4)), -EIO,
		     "write error (undefined bit 4)");
	/* C2H has no write-error field */
	check_decode(XDMA_C2H, FIELD_PREP(XDMA_STAT_WRITE_ERROR, BIT(0)), -EIO,
		     "write error (undefined bit 0)");
}

HF_TEST(decode_status_descriptor_error_bits)
{
	static const char * const t[5] = {
		"descriptor error (unsupported request)",
		"descriptor error (completer abort)",
		"descriptor error (parity error)",
		"descriptor error (poisoned header)",
		"descriptor error (unexpected completion)",
	};
	u32 i;

	for (i = 0; i < 5; i++) {
		check_decode(XDMA_H2C, FIELD_PREP(XDMA_STAT_DESC_ERROR, BIT(i)),
			     -EIO, t[i]);
		check_decode(XDMA_C2H, FIELD_PREP(XDMA_STAT_DESC_ERROR, BIT(i)),
			     -EIO, t[i]);
	}
}

HF_TEST(decode_status_reserved_bits)
{
	check_decode(XDMA_H2C, BIT(7) | BIT(31), 0,
		     "reserved bit 7, reserved bit 31");
}

HF_TEST(decode_status_several_bits_in_order)
{
	check_decode(XDMA_H2C, XDMA_STAT_BUSY | XDMA_STAT_DESC_STOPPED |
		     FIELD_PREP(XDMA_STAT_READ_ERROR, XDMA_READ_ERR_CA) |
		     FIELD_PREP(XDMA_STAT_DESC_ERROR, XDMA_DESC_ERR_HEADER_EP),
		     -EIO,
		     "busy, descriptor stopped, read error (completer abort reading host memory), descriptor error (poisoned header)");
}

HF_TEST(decode_status_all_ones_enodev)
{
	check_decode(XDMA_H2C, 0xffffffffu, -ENODEV,
		     "card not responding (reads all ones)");
}

HF_TEST(decode_status_truncates_safely)
{
	char buf[12];

	memset(buf, 'x', sizeof(buf));
	HF_CHECK_ERR(hf_xdma_decode_status(XDMA_H2C, 0x00ffff7f, buf, 10), -EIO);
	HF_CHECK_EQ(strlen(buf), 9);
	HF_CHECK_EQ(buf[10], 'x');
	HF_CHECK_ERR(hf_xdma_decode_status(XDMA_H2C, 0x2, buf, 0), 0);
}
