// SPDX-License-Identifier: MIT
/*
 * test_model_dma.c - the engines of the emulated XDMA card: descriptor
 * chains, data movement, error bits and their interrupts, poll-mode
 * writeback, faults, counters, sparse card memory, threaded engines.
 */
#include "model_test.h"

#include <stdio.h>
#include <unistd.h>

#define MIB		(1u << 20)
#define DDR_SIZE	(1u * MIB)

static const struct xdma_model_config cfg_small = {
	.ddr_size = DDR_SIZE,
};

/**
 * struct xfer - a card with a host buffer for one-direction tests.
 * @t: the card
 * @buf: host buffer (DMA-coherent)
 * @bus: its bus address
 * @len: its size
 */
struct xfer {
	struct tcard t;
	u8 *buf;
	u64 bus;
	size_t len;
};

static void xfer_open(struct xfer *x, const struct xdma_model_config *cfg,
		      u32 flags, size_t len)
{
	tcard_open(&x->t, cfg ? cfg : &cfg_small, flags);
	x->len = len;
	x->buf = hf_emu_dma_alloc(x->t.h, len, &x->bus);
	HF_CHECK(x->buf != NULL);
}

static u32 status(struct tcard *t, bool c2h)
{
	return rd(t, ch_off(c2h, 0, XDMA_CHAN_STATUS));
}

static u32 completed(struct tcard *t, bool c2h)
{
	return rd(t, ch_off(c2h, 0, XDMA_CHAN_COMPLETED_DESC));
}

/* Channel 0 interrupts on any status bit: MSI-X vector 0 (H2C), 1 (C2H). */
static void irq_setup(struct tcard *t)
{
	u32 c2h0 = t->num_h2c;	/* engine index of C2H0 */

	record_irqs(t, XDMA_MODEL_IRQ_MSIX);
	wr(t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(0), 0);
	wr(t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(c2h0),
	   rd(t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(c2h0)) |
	   1u << XDMA_IRQ_VEC_SHIFT(c2h0));
	wr(t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, BIT(0) | BIT(t->num_h2c));
	wr(t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	wr(t, ch_off(true, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
}

static bool card_all(struct tcard *t, u64 addr, size_t len, u8 v)
{
	u8 *b = malloc(len);
	bool ok;

	HF_CHECK(b != NULL);
	HF_CHECK_EQ(xdma_model_card_read(t->m, addr, b, len), 0);
	ok = all_bytes(b, len, v);
	free(b);
	return ok;
}

/* ---- data movement ---- */

HF_TEST(h2c_single_descriptor_moves_data)
{
	struct xfer x;
	u8 out[4096];

	xfer_open(&x, NULL, HF_EMU_SYNC, 4096);
	fill(x.buf, 4096, 3);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP | XDMA_DESC_CTRL_EOP, 0, 4096,
		 x.bus, 0x2000, 0);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(completed(&x.t, false), 1);
	HF_CHECK_EQ(xdma_model_card_read(x.t.m, 0x2000, out, 4096), 0);
	HF_CHECK(memcmp(out, x.buf, 4096) == 0);
	tcard_close(&x.t);
}

HF_TEST(c2h_single_descriptor_moves_data)
{
	struct xfer x;
	u8 in[3000];

	xfer_open(&x, NULL, HF_EMU_SYNC, 3000);
	fill(in, sizeof(in), 9);
	HF_CHECK_EQ(xdma_model_card_write(x.t.m, 0x500, in, sizeof(in)), 0);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 3000, 0x500, x.bus, 0);
	start(&x.t, true, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, true), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(memcmp(in, x.buf, sizeof(in)) == 0);
	tcard_close(&x.t);
}

HF_TEST(desc_completed_sets_status_and_continues)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_COMPLETED, 0, 128, x.bus, 0,
		 desc_bus(&x.t, 1));
	set_desc(&x.t, 1, XDMA_DESC_CTRL_STOP, 0, 128, x.bus + 128, 128, 0);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false),
		    XDMA_STAT_DESC_COMPLETED | XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(completed(&x.t, false), 2);
	tcard_close(&x.t);
}

HF_TEST(status_bits_need_control_ie_logging_enable)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_COMPLETED | XDMA_DESC_CTRL_STOP, 0,
		 128, x.bus, 0, 0);
	start(&x.t, false, 0, 0, 0, XDMA_CTRL_RUN);
	HF_CHECK_EQ(status(&x.t, false), 0);
	HF_CHECK_EQ(completed(&x.t, false), 1);
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_CONTROL), 0);
	start(&x.t, false, 0, 0, 0,
	      XDMA_CTRL_RUN | XDMA_CTRL_IE_DESC_COMPLETED);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_COMPLETED);
	tcard_close(&x.t);
}

HF_TEST(busy_while_running)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 128, x.bus, 0, 0);
	xdma_model_inject(x.t.m, XDMA_FAULT_STALL);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_BUSY);
	xdma_model_inject(x.t.m, 0);	/* the stalled engine goes on */
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	tcard_close(&x.t);
}

/* ISR: stop the engine after the first Completed descriptor. */
static void stop_in_isr(struct tcard *t, u32 v)
{
	wr(t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
}

HF_TEST(run_clear_while_running_sets_idle_stopped)
{
	struct xfer x;
	u32 i;

	xfer_open(&x, NULL, HF_EMU_SYNC, 4096);
	for (i = 0; i < 4; i++)
		set_desc(&x.t, i, i == 1 ? XDMA_DESC_CTRL_COMPLETED : 0, 0,
			 64, x.bus, 64 * i, desc_bus(&x.t, i + 1));
	set_desc(&x.t, 4, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 0, 0);
	irq_setup(&x.t);
	x.t.on_irq = stop_in_isr;
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	/* the descriptor in progress finishes, then the engine stops */
	HF_CHECK_EQ(completed(&x.t, false), 2);
	HF_CHECK_EQ(status(&x.t, false),
		    XDMA_STAT_DESC_COMPLETED | XDMA_STAT_IDLE_STOPPED);
	tcard_close(&x.t);
}

HF_TEST(eop_flag_is_accepted_in_mm_mode)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_EOP, 0, 128, x.bus, 0,
		 desc_bus(&x.t, 1));
	set_desc(&x.t, 1, XDMA_DESC_CTRL_EOP | XDMA_DESC_CTRL_STOP, 0, 128,
		 x.bus, 128, 0);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(completed(&x.t, false), 2);
	tcard_close(&x.t);
}

/* ---- adjacent blocks ---- */

HF_TEST(chain_follows_next_adjacent_blocks)
{
	struct xfer x;
	struct xdma_model_counters c;
	u8 out[6 * 64];
	u32 i;

	xfer_open(&x, NULL, HF_EMU_SYNC, sizeof(out));
	fill(x.buf, sizeof(out), 1);
	/*
	 * Block A: descriptors 0..2 (first adjacent 2); the last says the
	 * next block is 8..9 (Nxt_adj 1); its last says 20 (Nxt_adj 0).
	 * Next pointers inside a block are not used.
	 */
	for (i = 0; i < 3; i++)
		set_desc(&x.t, i, 0, i == 2 ? 1 : 0, 64, x.bus + 64 * i,
			 64 * i, i == 2 ? desc_bus(&x.t, 8) : 0xdead0000);
	set_desc(&x.t, 8, 0, 0, 64, x.bus + 192, 192, 0xdead0000);
	set_desc(&x.t, 9, 0, 0, 64, x.bus + 256, 256, desc_bus(&x.t, 20));
	set_desc(&x.t, 20, XDMA_DESC_CTRL_STOP, 0, 64, x.bus + 320, 320, 0);
	start(&x.t, false, 0, 0, 2, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(completed(&x.t, false), 6);
	HF_CHECK_EQ(xdma_model_card_read(x.t.m, 0, out, sizeof(out)), 0);
	HF_CHECK(memcmp(out, x.buf, sizeof(out)) == 0);
	xdma_model_get_counters(x.t.m, &c);
	HF_CHECK_EQ(c.desc_fetched, 6);
	tcard_close(&x.t);
}

HF_TEST(adjacent_block_crossing_4k_is_descriptor_error)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	/* descriptors 126, 127 of the page + 2 beyond: crosses 4 KiB */
	set_desc(&x.t, 126, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 0, 0);
	start(&x.t, false, 0, 126, 3, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false),
		    FIELD_PREP(XDMA_STAT_DESC_ERROR, XDMA_DESC_ERR_UR));
	HF_CHECK_EQ(completed(&x.t, false), 0);
	HF_CHECK(card_all(&x.t, 0, 64, 0));
	tcard_close(&x.t);
}

/* ---- poll-mode writeback ---- */

HF_TEST(poll_writeback_on_stop)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, 0, 0, 64, x.bus, 0, desc_bus(&x.t, 1));
	set_desc(&x.t, 1, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 64, 0);
	set_wb(&x.t, false, 0);
	x.t.wb[0] = 0xffffffff;
	start(&x.t, false, 0, 0, 0,
	      CH_CTRL_IE_ALL_RUN | XDMA_CTRL_POLL_MODE_WB);
	HF_CHECK_EQ(le32_to_cpu(x.t.wb[0]), 2);
	tcard_close(&x.t);
}

HF_TEST(poll_writeback_on_completed_descriptor)
{
	struct xfer x;
	struct xdma_model_counters c;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_COMPLETED, 0, 64, x.bus, 0,
		 desc_bus(&x.t, 1));
	set_desc(&x.t, 1, 0, 0, 64, x.bus, 64, desc_bus(&x.t, 2));
	x.t.ring[2].control = 0;	/* bad magic ends the chain */
	set_wb(&x.t, false, 0);
	start(&x.t, false, 0, 0, 0,
	      XDMA_CTRL_IE_DESC_COMPLETED | XDMA_CTRL_RUN |
	      XDMA_CTRL_POLL_MODE_WB);
	/* 1 after descriptor 0; 2 with the error (not logged: no err bit) */
	xdma_model_get_counters(x.t.m, &c);
	HF_CHECK_EQ(c.wb_writes, 2);
	HF_CHECK_EQ(le32_to_cpu(x.t.wb[0]), 2);
	tcard_close(&x.t);
}

HF_TEST(poll_writeback_error_bit)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, 0, 0, 64, x.bus, 0, desc_bus(&x.t, 1));
	x.t.ring[1].control = cpu_to_le32(0x12340000);
	set_wb(&x.t, false, 0);
	start(&x.t, false, 0, 0, 0,
	      CH_CTRL_IE_ALL_RUN | XDMA_CTRL_POLL_MODE_WB);
	HF_CHECK_EQ(le32_to_cpu(x.t.wb[0]), XDMA_WB_ERR | 1);
	tcard_close(&x.t);
}

HF_TEST(poll_writeback_off_writes_nothing)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP | XDMA_DESC_CTRL_COMPLETED, 0,
		 64, x.bus, 0, 0);
	set_wb(&x.t, false, 0);
	x.t.wb[0] = 0x77;
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(x.t.wb[0], 0x77);
	tcard_close(&x.t);
}

/* ---- errors: status bit, interrupt, nothing written ---- */

/* Run channel 0 of @c2h on descriptor 0 and check the outcome. */
static void expect_error(struct xfer *x, bool c2h, u32 bits)
{
	u32 vec = c2h ? 1 : 0;

	irq_setup(&x->t);
	start(&x->t, c2h, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x->t, c2h), bits);
	HF_CHECK_EQ(completed(&x->t, c2h), 0);
	HF_CHECK_EQ(irq_count(&x->t, vec), 1);
	HF_CHECK_EQ(irq_total(&x->t), 1);
	HF_CHECK_EQ(rd(&x->t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND),
		    BIT(c2h ? x->t.num_h2c : 0));
}

/*
 * One bad descriptor (a stop descriptor at card address @card, its host
 * side at the start of a @buf-byte mapping): the status bits, one
 * interrupt, and nothing written: H2C leaves card memory [@clean_at,
 * +@clean_len) zero, C2H leaves the host buffer as @fill set it.
 */
struct error_row {
	const char *name;
	bool c2h;
	u32 len_gran, addr_align;	/* the card's (0: the default) */
	size_t buf;
	int fill;		/* -1: none, 0: pattern 1, else every byte */
	u32 len;
	u64 card;
	bool bad_magic;		/* the descriptor's magic broken */
	int dma_faults;		/* that the case provokes */
	u32 status;
	u64 clean_at, clean_len;	/* H2C */
};

static const struct error_row error_rows[] = {
	{ .name = "bad_magic_sets_magic_stopped", .buf = 256, .fill = 0,
	  .len = 64, .bad_magic = true, .status = XDMA_STAT_MAGIC_STOPPED,
	  .clean_at = 0, .clean_len = 64 },
	{ .name = "zero_length_sets_invalid_length", .c2h = true, .buf = 256,
	  .fill = -1, .len = 0, .status = XDMA_STAT_INVALID_LENGTH },
	{ .name = "length_not_granular_sets_invalid_length", .c2h = true,
	  .len_gran = 4, .buf = 256, .fill = 0xee, .len = 66,
	  .status = XDMA_STAT_INVALID_LENGTH },
	/* bus address aligned, card address not */
	{ .name = "misaligned_address_sets_align_mismatch", .addr_align = 64,
	  .buf = 4096, .fill = 0, .len = 128, .card = 0x1020,
	  .status = XDMA_STAT_ALIGN_MISMATCH,
	  .clean_at = 0x1000, .clean_len = 256 },
	/* 1 byte past the mapping: the whole read fails */
	{ .name = "h2c_read_unmapped_sets_read_error_ur", .buf = 256,
	  .fill = 0x55, .len = 257, .dma_faults = 1,
	  .status = FIELD_PREP(XDMA_STAT_READ_ERROR, XDMA_READ_ERR_UR),
	  .clean_at = 0, .clean_len = 257 },
	{ .name = "h2c_card_past_end_sets_write_error_decode", .buf = 256,
	  .fill = 0x55, .len = 256, .card = DDR_SIZE - 128,
	  .status = FIELD_PREP(XDMA_STAT_WRITE_ERROR, XDMA_WRITE_ERR_DECODE),
	  .clean_at = DDR_SIZE - 128, .clean_len = 128 },
	{ .name = "c2h_card_past_end_sets_read_error_decode", .c2h = true,
	  .buf = 256, .fill = 0xee, .len = 256, .card = DDR_SIZE - 64,
	  .status = FIELD_PREP(XDMA_STAT_READ_ERROR,
			       XDMA_C2H_READ_ERR_DECODE) },
};

static void error_case(const void *arg)
{
	const struct error_row *row = arg;
	struct xdma_model_config c = { .ddr_size = DDR_SIZE,
				       .len_gran = row->len_gran,
				       .addr_align = row->addr_align };
	struct xfer x;

	if (row->dma_faults)
		t_expect_dma_faults(row->dma_faults);
	xfer_open(&x, &c, HF_EMU_SYNC, row->buf);
	if (row->fill == 0)
		fill(x.buf, row->buf, 1);
	else if (row->fill > 0)
		memset(x.buf, row->fill, row->buf);
	if (row->c2h)
		set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, row->len, row->card,
			 x.bus, 0);
	else
		set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, row->len, x.bus,
			 row->card, 0);
	if (row->bad_magic)
		x.t.ring[0].control ^= cpu_to_le32(BIT(16));
	expect_error(&x, row->c2h, row->status);
	if (!row->c2h)
		HF_CHECK(card_all(&x.t, row->clean_at, row->clean_len, 0));
	else if (row->fill > 0)
		HF_CHECK(all_bytes(x.buf, row->buf, row->fill));
	tcard_close(&x.t);
}

HF_TEST_ROWS(error, error_rows, error_case)

HF_TEST(aligned_transfer_passes_with_align_64)
{
	struct xdma_model_config c = { .ddr_size = DDR_SIZE,
				       .addr_align = 64 };
	struct xfer x;

	xfer_open(&x, &c, HF_EMU_SYNC, 4096);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 100, x.bus + 64, 0x1040,
		 0);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	tcard_close(&x.t);
}

HF_TEST(error_descriptor_fetch_unmapped_sets_desc_error_ur)
{
	struct xfer x;
	struct hf_emu_host_stats st;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, 0, 0, 64, x.bus, 0, 0x7700000000ull);
	irq_setup(&x.t);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false),
		    FIELD_PREP(XDMA_STAT_DESC_ERROR, XDMA_DESC_ERR_UR));
	/* descriptor 0 completed before the failing fetch */
	HF_CHECK_EQ(completed(&x.t, false), 1);
	HF_CHECK_EQ(irq_count(&x.t, 0), 1);
	hf_emu_host_get_stats(x.t.h, &st);
	HF_CHECK_EQ(st.faults, 1);
	HF_CHECK_EQ(st.last_fault_bus, 0x7700000000ull);
	tcard_close(&x.t);
}

HF_TEST(error_c2h_write_to_read_only_mapping_sets_read_error_slave)
{
	struct xfer x;
	struct hf_emu_host_stats st;
	u8 *ro;
	u64 ro_bus;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	ro = malloc(512);
	HF_CHECK(ro != NULL);
	memset(ro, 0xee, 512);
	HF_CHECK_EQ(hf_emu_dma_map(x.t.h, ro, 512, HF_DMA_TO_DEVICE,
				   &ro_bus), 0);
	HF_CHECK_EQ(xdma_model_card_write(x.t.m, 0, "abcd", 4), 0);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 512, 0, ro_bus, 0);
	expect_error(&x, true, FIELD_PREP(XDMA_STAT_READ_ERROR,
					  XDMA_C2H_READ_ERR_SLAVE));
	HF_CHECK(all_bytes(ro, 512, 0xee));
	hf_emu_host_get_stats(x.t.h, &st);
	HF_CHECK_EQ(st.faults, 1);
	HF_CHECK_EQ(st.last_fault_bus, ro_bus);
	HF_CHECK_EQ(hf_emu_dma_unmap(x.t.h, ro_bus), 0);
	free(ro);
	tcard_close(&x.t);
}

HF_TEST(error_not_logged_without_ie_still_stops)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, 0, 0, 64, x.bus, 0, desc_bus(&x.t, 1));
	x.t.ring[1].control = 0;
	set_desc(&x.t, 2, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 64, 0);
	irq_setup(&x.t);
	start(&x.t, false, 0, 0, 0,
	      XDMA_CTRL_RUN | XDMA_CTRL_IE_DESC_STOPPED);
	HF_CHECK_EQ(status(&x.t, false), 0);	/* idle, nothing logged */
	HF_CHECK_EQ(completed(&x.t, false), 1);
	HF_CHECK_EQ(irq_total(&x.t), 0);
	tcard_close(&x.t);
}

HF_TEST(error_interrupt_needs_mask_bit)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 0, 0);
	x.t.ring[0].control = 0;
	irq_setup(&x.t);
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK),
	   XDMA_CTRL_IE_DESC_STOPPED);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_MAGIC_STOPPED);
	HF_CHECK_EQ(irq_total(&x.t), 0);
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK_W1S),
	   XDMA_CTRL_IE_MAGIC_STOPPED);
	HF_CHECK_EQ(irq_total(&x.t), 1);
	tcard_close(&x.t);
}

/* ---- faults ---- */

HF_TEST(fault_desc_read_fails_next_fetch_once)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 0, 0);
	xdma_model_inject(x.t.m, XDMA_FAULT_DESC_READ);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false),
		    FIELD_PREP(XDMA_STAT_DESC_ERROR, XDMA_DESC_ERR_UR));
	rd(&x.t, ch_off(false, 0, XDMA_CHAN_STATUS_RC));
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	tcard_close(&x.t);
}

HF_TEST(fault_stall_busy_until_run_cleared)
{
	struct xfer x;
	struct xdma_model_counters c;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	memset(x.buf, 0x11, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 0, 0);
	xdma_model_inject(x.t.m, XDMA_FAULT_STALL);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_BUSY);
	HF_CHECK_EQ(completed(&x.t, false), 0);
	xdma_model_get_counters(x.t.m, &c);
	HF_CHECK_EQ(c.bytes_h2c, 0);
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_IDLE_STOPPED);
	HF_CHECK(card_all(&x.t, 0, 64, 0));
	tcard_close(&x.t);
}

HF_TEST(fault_lost_irq_swallows_interrupts)
{
	struct xfer x;

	xfer_open(&x, NULL, HF_EMU_SYNC, 256);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 64, x.bus, 0, 0);
	irq_setup(&x.t);
	xdma_model_inject(x.t.m, XDMA_FAULT_LOST_IRQ);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(rd(&x.t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND), 1);
	HF_CHECK_EQ(irq_total(&x.t), 0);
	tcard_close(&x.t);
}

HF_TEST(fault_dead_reads_all_ones_ignores_writes)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	xdma_model_inject(t.m, XDMA_FAULT_DEAD);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_ID)), XDMA_ID_DEAD);
	HF_CHECK_EQ(rd(&t, XDMA_CONFIG_BASE + XDMA_CFG_SYSTEM_ID),
		    0xffffffff);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_ID), 0xffffffff);
	wr(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	xdma_model_inject(t.m, 0);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK)), 0);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_ID)),
		    XDMA_ID_VALUE(XDMA_TARGET_H2C, 0));
	tcard_close(&t);
}

/* ---- counters ---- */

HF_TEST(counters_track_activity)
{
	struct xfer x;
	struct xdma_model_counters c;

	xfer_open(&x, NULL, HF_EMU_SYNC, 1024);
	xdma_model_reset_counters(x.t.m);
	set_desc(&x.t, 0, 0, 0, 1000, x.bus, 0, desc_bus(&x.t, 1));
	set_desc(&x.t, 1, XDMA_DESC_CTRL_STOP, 0, 24, x.bus, 1000, 0);
	set_desc(&x.t, 2, XDMA_DESC_CTRL_STOP, 0, 512, 0, x.bus, 0);
	set_wb(&x.t, true, 0);
	irq_setup(&x.t);
	xdma_model_reset_counters(x.t.m);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	start(&x.t, true, 0, 2, 0,
	      CH_CTRL_IE_ALL_RUN | XDMA_CTRL_POLL_MODE_WB);
	x.t.ring[3].control = 0;
	set_desc(&x.t, 4, 0, 0, 64, x.bus, 0, desc_bus(&x.t, 3));
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	start(&x.t, false, 0, 4, 0, CH_CTRL_IE_ALL_RUN);
	rd(&x.t, 0x7000);
	xdma_model_get_counters(x.t.m, &c);
	HF_CHECK_EQ(c.desc_fetched, 5);
	HF_CHECK_EQ(c.bytes_h2c, 1088);
	HF_CHECK_EQ(c.bytes_c2h, 512);
	/* three runs, each Run resets the status: three rising requests */
	HF_CHECK_EQ(c.irqs, 3);
	HF_CHECK_EQ(c.wb_writes, 1);
	HF_CHECK_EQ(c.errors, 1);
	HF_CHECK_EQ(c.guest_errors, 1);
	HF_CHECK(c.mmio_writes > 10);
	HF_CHECK(c.mmio_reads >= 1);
	xdma_model_reset_counters(x.t.m);
	xdma_model_get_counters(x.t.m, &c);
	HF_CHECK_EQ(c.bytes_h2c + c.irqs + c.mmio_reads + c.errors, 0);
	tcard_close(&x.t);
}

/* ---- card memory ---- */

HF_TEST(card_backdoor_range_checks)
{
	struct tcard t;
	u8 b[8] = { 0 };

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(xdma_model_card_write(t.m, DDR_SIZE - 8, b, 8), 0);
	HF_CHECK_ERR(xdma_model_card_write(t.m, DDR_SIZE - 7, b, 8), -ERANGE);
	HF_CHECK_ERR(xdma_model_card_read(t.m, DDR_SIZE, b, 1), -ERANGE);
	HF_CHECK_ERR(xdma_model_card_read(t.m, ~0ull - 2, b, 8), -EOVERFLOW);
	tcard_close(&t);
}

static long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

HF_TEST(sparse_ddr_2gib_costs_what_is_touched)
{
	struct tcard t;
	long before, after;
	u8 b = 0xa5, r = 0;

	before = rss_kib();
	if (before < 0)
		HF_SKIP("no /proc/self/statm");
	tcard_open(&t, NULL, HF_EMU_SYNC);
	HF_CHECK_EQ(xdma_model_card_size(t.m), 2ull << 30);
	HF_CHECK_EQ(xdma_model_card_write(t.m, (2ull << 30) - 1, &b, 1), 0);
	HF_CHECK_EQ(xdma_model_card_read(t.m, (2ull << 30) - 1, &r, 1), 0);
	HF_CHECK_EQ(r, 0xa5);
	after = rss_kib();
	HF_CHECK_MSG(after - before < 64 * 1024,
		     "RSS grew by %ld KiB", after - before);
	tcard_close(&t);
}

/* ---- threaded engines ---- */

static bool wait_wb(volatile u32 *wb, u32 want)
{
	struct timespec ts = { 0, 100000 };
	int i;

	for (i = 0; i < 50000; i++) {
		if (__atomic_load_n(wb, __ATOMIC_ACQUIRE) == want)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

HF_TEST(threaded_h2c_then_c2h_round_trip)
{
	struct xfer x;
	u8 *back;
	u64 back_bus;
	u32 i;

	xfer_open(&x, NULL, 0, 64 * 1024);
	back = hf_emu_dma_alloc(x.t.h, 64 * 1024, &back_bus);
	HF_CHECK(back != NULL);
	fill(x.buf, 64 * 1024, 42);
	for (i = 0; i < 16; i++)
		set_desc(&x.t, i, i == 15 ? XDMA_DESC_CTRL_STOP : 0, 0, 4096,
			 x.bus + 4096 * i, 0x10000 + 4096 * i,
			 desc_bus(&x.t, i + 1));
	set_desc(&x.t, 20, XDMA_DESC_CTRL_STOP, 0, 64 * 1024, 0x10000,
		 back_bus, 0);
	set_wb(&x.t, false, 0);
	start(&x.t, false, 0, 0, 0,
	      CH_CTRL_IE_ALL_RUN | XDMA_CTRL_POLL_MODE_WB);
	HF_CHECK(wait_wb(x.t.wb, 16));
	start(&x.t, true, 0, 20, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK(wait_idle(&x.t, true, 0));
	HF_CHECK_EQ(status(&x.t, true), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(memcmp(back, x.buf, 64 * 1024) == 0);
	tcard_close(&x.t);
}

/* Signalled from the MSI handler (runs in an engine thread). */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

static void signal_done(struct tcard *t, u32 v)
{
	pthread_mutex_lock(&done_lock);
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

static bool wait_irqs(struct tcard *t, unsigned int n)
{
	struct timespec dl;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 5;
	pthread_mutex_lock(&done_lock);
	while (irq_total(t) < n && ok)
		ok = pthread_cond_timedwait(&done_cond, &done_lock, &dl) == 0 ||
		     irq_total(t) >= n;
	pthread_mutex_unlock(&done_lock);
	return irq_total(t) >= n;
}

HF_TEST(threaded_msix_completion)
{
	struct xfer x;

	xfer_open(&x, NULL, 0, 4096);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 4096, x.bus, 0, 0);
	irq_setup(&x.t);
	x.t.on_irq = signal_done;
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK(wait_irqs(&x.t, 1));
	HF_CHECK_EQ(irq_count(&x.t, 0), 1);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	tcard_close(&x.t);
}

HF_TEST(threaded_run_clear_stops_long_chain)
{
	struct xdma_model_config c = {
		.ddr_size = DDR_SIZE,
		.link = { .gen = 1, .lanes = 1, .mps = 256,
			  .desc_ns = 1000000 },
	};
	struct xfer x;
	u32 i;

	xfer_open(&x, &c, 0, 4096);
	for (i = 0; i < 100; i++)
		set_desc(&x.t, i, i == 99 ? XDMA_DESC_CTRL_STOP : 0, 0, 64,
			 x.bus, 64 * i, desc_bus(&x.t, i + 1));
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	wr(&x.t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK(wait_idle(&x.t, false, 0));
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_IDLE_STOPPED);
	HF_CHECK(completed(&x.t, false) < 100);
	tcard_close(&x.t);
}

static const struct xdma_model_config cfg_gen1x1 = {
	.ddr_size = 64 * MIB,
	.link = { .gen = 1, .lanes = 1, .mps = 256, .desc_ns = 1000 },
};

/*
 * Gen1 x1: 32 MiB take 145 ms (long enough to be seen half done on a
 * loaded machine); the first bytes land while the last have not
 * and the engine is busy.  The test thread looks at two bytes only and
 * sleeps between looks, so the engine thread gets a CPU on a loaded
 * machine (a starved engine catches up in one access when it runs).
 */
HF_TEST(threaded_link_data_lands_progressively)
{
	u64 len = 32 * MIB, want = xdma_link_ns(&cfg_gen1x1.link, len);
	struct timespec nap = { 0, 50000 };
	bool partial = false;
	const u8 *card;
	struct xfer x;
	u64 t0, took;

	xfer_open(&x, &cfg_gen1x1, 0, len);
	card = xdma_model_card_mem(x.t.m);
	for (size_t i = 0; i < len; i++)
		x.buf[i] = (u8)(i % 251 + 1);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, len, x.bus, 0, 0);
	t0 = hf_os_now_ns();
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	while (status(&x.t, false) & XDMA_STAT_BUSY) {
		if (__atomic_load_n(&card[0], __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&card[len - 1], __ATOMIC_RELAXED) &&
		    (status(&x.t, false) & XDMA_STAT_BUSY))
			partial = true;
		HF_CHECK(hf_os_now_ns() - t0 < 20000000000ull);
		nanosleep(&nap, NULL);
	}
	took = hf_os_now_ns() - t0;
	HF_CHECK_MSG(partial, "never saw the descriptor partly done");
	HF_CHECK_MSG(took >= want, "took %llu ns, the link needs %llu",
		     (unsigned long long)took, (unsigned long long)want);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(!memcmp(card, x.buf, len));
	tcard_close(&x.t);
}

/* HF_EMU_SYNC with a link model: the start returns when the link is done. */
HF_TEST(sync_link_start_returns_after_the_link_time)
{
	u64 want = xdma_link_ns(&cfg_gen1x1.link, 256 * 1024), t0, took;
	struct xfer x;

	xfer_open(&x, &cfg_gen1x1, HF_EMU_SYNC, 256 * 1024);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 256 * 1024, x.bus, 0, 0);
	t0 = hf_os_now_ns();
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	took = hf_os_now_ns() - t0;
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_MSG(took >= want, "took %llu ns, the link needs %llu",
		     (unsigned long long)took, (unsigned long long)want);
	tcard_close(&x.t);
}

/* A hang injected before a start holds the engine thread until it ends. */
HF_TEST(threaded_hang_delays_a_transfer_then_it_completes)
{
	u64 hang = 30000000, t0, took;
	struct xfer x;

	xfer_open(&x, NULL, 0, 4096);
	set_desc(&x.t, 0, XDMA_DESC_CTRL_STOP, 0, 4096, x.bus, 0, 0);
	t0 = hf_os_now_ns();
	HF_CHECK_EQ(xdma_model_inject_hang(x.t.m, hang), 0);
	start(&x.t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK(status(&x.t, false) & XDMA_STAT_BUSY);
	HF_CHECK(wait_idle(&x.t, false, 0));
	took = hf_os_now_ns() - t0;
	HF_CHECK_MSG(took >= hang, "done %llu ns after a %llu ns hang",
		     (unsigned long long)took, (unsigned long long)hang);
	HF_CHECK_EQ(status(&x.t, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(xdma_model_get_faults(x.t.m), 0);
	tcard_close(&x.t);
}

HF_TEST(threaded_all_engines_in_parallel)
{
	struct xfer x;
	u32 ch, done = 0;
	u64 wbs;
	volatile u32 *wb;

	xfer_open(&x, NULL, 0, 8 * 4096);
	fill(x.buf, 4 * 4096, 5);
	wb = hf_emu_dma_alloc(x.t.h, 64, &wbs);
	HF_CHECK(wb != NULL);
	for (ch = 0; ch < 4; ch++) {
		HF_CHECK_EQ(xdma_model_card_write(x.t.m, 0x80000 + 4096 * ch,
						  x.buf + 4096 * ch, 4096), 0);
		/* H2C: buf[ch] -> card[ch]; C2H: card2[ch] -> buf[4 + ch] */
		set_desc(&x.t, ch, XDMA_DESC_CTRL_STOP, 0, 4096,
			 x.bus + 4096 * ch, 4096 * ch, 0);
		set_desc(&x.t, 4 + ch, XDMA_DESC_CTRL_STOP, 0, 4096,
			 0x80000 + 4096 * ch, x.bus + 4096 * (4 + ch), 0);
		wr(&x.t, ch_off(false, ch, XDMA_CHAN_POLL_WB_LO),
		   lower_32_bits(wbs + 4 * ch));
		wr(&x.t, ch_off(false, ch, XDMA_CHAN_POLL_WB_HI),
		   upper_32_bits(wbs + 4 * ch));
		wr(&x.t, ch_off(true, ch, XDMA_CHAN_POLL_WB_LO),
		   lower_32_bits(wbs + 16 + 4 * ch));
		wr(&x.t, ch_off(true, ch, XDMA_CHAN_POLL_WB_HI),
		   upper_32_bits(wbs + 16 + 4 * ch));
	}
	for (ch = 0; ch < 4; ch++) {
		start(&x.t, false, ch, ch, 0,
		      CH_CTRL_IE_ALL_RUN | XDMA_CTRL_POLL_MODE_WB);
		start(&x.t, true, ch, 4 + ch, 0,
		      CH_CTRL_IE_ALL_RUN | XDMA_CTRL_POLL_MODE_WB);
	}
	for (ch = 0; ch < 8; ch++)
		done += wait_wb(&wb[ch], 1);
	HF_CHECK_EQ(done, 8);
	HF_CHECK(card_all(&x.t, 4 * 4096, 4096, 0));
	for (ch = 0; ch < 4; ch++) {
		u8 out[4096];

		HF_CHECK_EQ(xdma_model_card_read(x.t.m, 4096 * ch, out, 4096),
			    0);
		HF_CHECK(memcmp(out, x.buf + 4096 * ch, 4096) == 0);
		HF_CHECK(memcmp(x.buf + 4096 * (4 + ch), x.buf + 4096 * ch,
				4096) == 0);
	}
	tcard_close(&x.t);
}
