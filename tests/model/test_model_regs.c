// SPDX-License-Identifier: MIT
/*
 * test_model_regs.c - register behaviour of the emulated XDMA card: one
 * behaviour per case, engines run synchronously (HF_EMU_SYNC).
 */
#include "model_test.h"

static const struct xdma_model_config cfg_1_1 = {
	.num_h2c = 1,
	.num_c2h = 1,
	.ddr_size = 1 << 20,
};

static const struct xdma_model_config cfg_small = {
	.ddr_size = 1 << 20,
};

static int create_with(const struct xdma_model_config *cfg)
{
	struct xdma_model_config c = *cfg;
	struct hf_emu_host *h = NULL;
	int r;

	c.user = &hf_refdesign_user;
	r = hf_emu_host_create(&c, HF_EMU_SYNC, &h);

	hf_emu_host_destroy(h);
	return r;
}

/* ---- configuration ---- */

HF_TEST(config_rejects_five_channels)
{
	struct xdma_model_config c = { .num_h2c = 5 };

	HF_CHECK_ERR(create_with(&c), -EINVAL);
	c.num_h2c = 1;
	c.num_c2h = 5;
	HF_CHECK_ERR(create_with(&c), -EINVAL);
}

HF_TEST(config_rejects_ddr_size_not_page_multiple)
{
	struct xdma_model_config c = { .ddr_size = 4097 };

	HF_CHECK_ERR(create_with(&c), -EINVAL);
}

HF_TEST(config_rejects_bad_alignment)
{
	struct xdma_model_config c = { .ddr_size = 4096, .addr_align = 3 };

	HF_CHECK_ERR(create_with(&c), -EINVAL);
	c.addr_align = 256;	/* does not fit the ALIGNMENTS field */
	HF_CHECK_ERR(create_with(&c), -EINVAL);
	c.addr_align = 1;
	c.len_gran = 6;
	HF_CHECK_ERR(create_with(&c), -EINVAL);
}

HF_TEST(config_defaults_four_plus_four_2gib)
{
	struct tcard t;

	tcard_open(&t, NULL, HF_EMU_SYNC);
	HF_CHECK_EQ(xdma_model_num_engines(t.m), 8);
	HF_CHECK_EQ(xdma_model_card_size(t.m), XDMA_MODEL_DEFAULT_DDR_SIZE);
	tcard_close(&t);
}

HF_TEST(config_uses_host_ddr)
{
	static u8 ddr[8192];
	struct xdma_model_config c = { .ddr = ddr, .ddr_size = sizeof(ddr) };
	struct tcard t;

	tcard_open(&t, &c, HF_EMU_SYNC);
	HF_CHECK(xdma_model_card_mem(t.m) == ddr);
	tcard_close(&t);
}

/* ---- identifiers ---- */

/* The identifier of every channel block: its target and channel number. */
static const struct id_row {
	const char *name;
	u32 (*off)(bool c2h, u32 ch, u32 reg);
	u32 h2c_target;
	u32 c2h_target;
	u32 c2h1_id;	/* C2H1's identifier as PG195 spells it */
} id_rows[] = {
	{ "h2c_and_c2h_channels", ch_off, XDMA_TARGET_H2C, XDMA_TARGET_C2H,
	  0x1fc10106 },
	{ "sgdma_channels", sg_off, XDMA_TARGET_H2C_SGDMA,
	  XDMA_TARGET_C2H_SGDMA, 0x1fc50106 },
};

static void id_case(const void *arg)
{
	const struct id_row *row = arg;
	struct tcard t;
	u32 ch;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	for (ch = 0; ch < 4; ch++) {
		HF_CHECK_EQ(rd(&t, row->off(false, ch, XDMA_ID)),
			    XDMA_ID_VALUE(row->h2c_target, ch));
		HF_CHECK_EQ(rd(&t, row->off(true, ch, XDMA_ID)),
			    XDMA_ID_VALUE(row->c2h_target, ch));
	}
	HF_CHECK_EQ(rd(&t, row->off(true, 1, XDMA_ID)), row->c2h1_id);
	tcard_close(&t);
}

HF_TEST_ROWS(id, id_rows, id_case)

HF_TEST(id_irq_config_and_common_blocks)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_ID), 0x1fc20006);
	HF_CHECK_EQ(rd(&t, XDMA_CONFIG_BASE + XDMA_ID), 0x1fc30006);
	HF_CHECK_EQ(rd(&t, XDMA_SGDMA_COMMON_BASE + XDMA_ID), 0x1fc60006);
	tcard_close(&t);
}

HF_TEST(absent_channel_reads_zero_and_ignores_writes)
{
	struct tcard t;

	tcard_open(&t, &cfg_1_1, HF_EMU_SYNC);
	HF_CHECK_EQ(rd(&t, ch_off(false, 1, XDMA_ID)), 0);
	HF_CHECK_EQ(rd(&t, ch_off(true, 3, XDMA_ID)), 0);
	HF_CHECK_EQ(rd(&t, sg_off(false, 1, XDMA_ID)), 0);
	wr(&t, sg_off(true, 1, XDMA_SGDMA_DESC_LO), 0x1000);
	HF_CHECK_EQ(rd(&t, sg_off(true, 1, XDMA_SGDMA_DESC_LO)), 0);
	wr(&t, ch_off(false, 2, XDMA_CHAN_CONTROL), XDMA_CTRL_RUN);
	HF_CHECK_EQ(rd(&t, ch_off(false, 2, XDMA_CHAN_CONTROL)), 0);
	tcard_close(&t);
}

/* ---- channel registers ---- */

/*
 * A register case as a script on a card of @cfg: writes, and reads that
 * must return a value, in order.
 */
enum reg_op { REG_END, REG_WR, REG_RD };

struct reg_step {
	enum reg_op op;
	u32 off;
	u32 val;
};

#define WR(off, val)	{ REG_WR, (off), (val) }
#define RD(off, val)	{ REG_RD, (off), (val) }

struct reg_row {
	const char *name;
	const struct xdma_model_config *cfg;
	struct reg_step steps[16];
};

static void reg_case(const void *arg)
{
	const struct reg_row *row = arg;
	const struct reg_step *st;
	struct tcard t;
	u32 v;

	tcard_open(&t, row->cfg, HF_EMU_SYNC);
	for (st = row->steps; st->op != REG_END; st++) {
		if (st->op == REG_WR) {
			wr(&t, st->off, st->val);
			continue;
		}
		v = rd(&t, st->off);
		HF_CHECK_MSG(v == st->val,
			     "step %d: 0x%04x reads 0x%08x, not 0x%08x",
			     (int)(st - row->steps), st->off, v, st->val);
	}
	tcard_close(&t);
}

/* Channel registers, as scripts (reg_case()). */
static const struct reg_row chan_rows[] = {
	{ "control_w1s_sets_and_w1c_clears", &cfg_small, {
		WR(XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL,
		   XDMA_CTRL_IE_DESC_STOPPED),
		WR(XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL_W1S,
		   XDMA_CTRL_IE_MAGIC_STOPPED | XDMA_CTRL_POLL_MODE_WB),
		RD(XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL,
		   XDMA_CTRL_IE_DESC_STOPPED | XDMA_CTRL_IE_MAGIC_STOPPED |
		   XDMA_CTRL_POLL_MODE_WB),
		WR(XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL_W1C,
		   XDMA_CTRL_IE_DESC_STOPPED),
		RD(XDMA_H2C_BASE(0) + XDMA_CHAN_CONTROL,
		   XDMA_CTRL_IE_MAGIC_STOPPED | XDMA_CTRL_POLL_MODE_WB),
	} },
	{ "control_reserved_bits_read_zero", &cfg_small, {
		WR(XDMA_C2H_BASE(0) + XDMA_CHAN_CONTROL,
		   BIT(7) | BIT(8) | BIT(24) | BIT(31)),
		RD(XDMA_C2H_BASE(0) + XDMA_CHAN_CONTROL, 0),
	} },
	{ "alignments_default", &cfg_small, {
		RD(XDMA_H2C_BASE(0) + XDMA_CHAN_ALIGNMENTS, 0x00010140),
		RD(XDMA_C2H_BASE(3) + XDMA_CHAN_ALIGNMENTS, 0x00010140),
	} },
	{ "poll_wb_address_registers", &cfg_small, {
		WR(XDMA_C2H_BASE(2) + XDMA_CHAN_POLL_WB_LO, 0x12345678),
		WR(XDMA_C2H_BASE(2) + XDMA_CHAN_POLL_WB_HI, 0x9abcdef0),
		RD(XDMA_C2H_BASE(2) + XDMA_CHAN_POLL_WB_LO, 0x12345678),
		RD(XDMA_C2H_BASE(2) + XDMA_CHAN_POLL_WB_HI, 0x9abcdef0),
	} },
	{ "irq_mask_w1s_w1c", &cfg_small, {
		WR(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK, ~0u),
		RD(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK, XDMA_CTRL_IE_ALL),
		WR(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK_W1C, XDMA_CTRL_IE_ALL),
		RD(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK, 0),
		WR(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK_W1S,
		   XDMA_CTRL_IE_DESC_STOPPED),
		WR(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK_W1S,
		   XDMA_CTRL_IE_DESC_ERROR),
		RD(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK,
		   XDMA_CTRL_IE_DESC_STOPPED | XDMA_CTRL_IE_DESC_ERROR),
		RD(XDMA_H2C_BASE(1) + XDMA_CHAN_IRQ_MASK_W1S,
		   XDMA_CTRL_IE_DESC_STOPPED | XDMA_CTRL_IE_DESC_ERROR),
	} },
};

HF_TEST_ROWS(chan, chan_rows, reg_case)

/* Run an engine into a magic error and desc-completed so status has bits. */
static void make_status_bits(struct tcard *t)
{
	set_desc(t, 0, XDMA_DESC_CTRL_COMPLETED, 0, 64, 0, t->wb_bus,
		 desc_bus(t, 1));
	t->ring[1].control = 0;	/* bad magic */
	start(t, true, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
}

/* Run the engine again on a card that stalls: status shows busy. */
static void make_busy(struct tcard *t)
{
	xdma_model_inject(t->m, XDMA_FAULT_STALL);
	wr(t, ch_off(true, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	wr(t, ch_off(true, 0, XDMA_CHAN_CONTROL_W1S), XDMA_CTRL_RUN);
}

HF_TEST(status_rw1c_clears_written_bits_not_busy)
{
	struct tcard t;
	u32 st = ch_off(true, 0, XDMA_CHAN_STATUS);

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	make_status_bits(&t);
	HF_CHECK_EQ(rd(&t, st),
		    XDMA_STAT_DESC_COMPLETED | XDMA_STAT_MAGIC_STOPPED);
	wr(&t, st, XDMA_STAT_DESC_COMPLETED);
	HF_CHECK_EQ(rd(&t, st), XDMA_STAT_MAGIC_STOPPED);
	/* busy is not cleared by RW1C */
	make_busy(&t);
	wr(&t, st, ~0u);
	HF_CHECK_EQ(rd(&t, st), XDMA_STAT_BUSY);
	tcard_close(&t);
}

HF_TEST(status_read_to_clear_keeps_busy)
{
	struct tcard t;
	u32 rc = ch_off(true, 0, XDMA_CHAN_STATUS_RC);

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	make_status_bits(&t);
	HF_CHECK_EQ(rd(&t, rc),
		    XDMA_STAT_DESC_COMPLETED | XDMA_STAT_MAGIC_STOPPED);
	HF_CHECK_EQ(rd(&t, rc), 0);
	make_busy(&t);
	HF_CHECK_EQ(rd(&t, rc), XDMA_STAT_BUSY);
	HF_CHECK_EQ(rd(&t, rc), XDMA_STAT_BUSY);
	tcard_close(&t);
}

HF_TEST(completed_count_resets_on_run_edge)
{
	struct tcard t;
	u32 cnt = ch_off(false, 0, XDMA_CHAN_COMPLETED_DESC);

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	set_desc(&t, 0, 0, 0, 64, t.wb_bus, 0, desc_bus(&t, 1));
	set_desc(&t, 1, XDMA_DESC_CTRL_STOP, 0, 64, t.wb_bus, 0, 0);
	start(&t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(rd(&t, cnt), 2);
	/* writing Run again while set is no edge */
	wr(&t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1S), XDMA_CTRL_RUN);
	HF_CHECK_EQ(rd(&t, cnt), 2);
	wr(&t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK_EQ(rd(&t, cnt), 2);
	start(&t, false, 0, 1, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(rd(&t, cnt), 1);
	tcard_close(&t);
}

HF_TEST(completed_count_is_read_only)
{
	struct tcard t;
	struct xdma_model_counters c;
	u32 cnt = ch_off(false, 0, XDMA_CHAN_COMPLETED_DESC);

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	wr(&t, cnt, 5);
	HF_CHECK_EQ(rd(&t, cnt), 0);
	xdma_model_get_counters(t.m, &c);
	HF_CHECK_EQ(c.guest_errors, 1);
	tcard_close(&t);
}

HF_TEST(alignments_from_config)
{
	struct xdma_model_config c = {
		.ddr_size = 1 << 20, .addr_align = 64, .len_gran = 4,
	};
	struct tcard t;
	u32 v;

	tcard_open(&t, &c, HF_EMU_SYNC);
	v = rd(&t, ch_off(true, 0, XDMA_CHAN_ALIGNMENTS));
	HF_CHECK_EQ(FIELD_GET(XDMA_ALIGN_ADDR, v), 64);
	HF_CHECK_EQ(FIELD_GET(XDMA_ALIGN_LEN_GRAN, v), 4);
	HF_CHECK_EQ(FIELD_GET(XDMA_ALIGN_ADDR_BITS, v), 64);
	tcard_close(&t);
}

/* ---- SGDMA ---- */

/* SGDMA registers, as scripts (reg_case()). */
static const struct reg_row sgdma_rows[] = {
	{ "descriptor_registers", &cfg_small, {
		WR(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_LO, 0xdeadbee0),
		WR(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_HI, 0x1),
		WR(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_ADJ, 0xff),
		WR(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_CREDITS, 0xffff),
		RD(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_LO, 0xdeadbee0),
		RD(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_HI, 1),
		RD(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_ADJ, 0x3f),
		RD(XDMA_H2C_SGDMA_BASE(3) + XDMA_SGDMA_DESC_CREDITS, 0x3ff),
	} },
	/* only the bits of present channels stick */
	{ "common_halt_w1s_w1c", &cfg_1_1, {
		WR(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL, ~0u),
		RD(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL,
		   XDMA_SGDMA_HALT_H2C(0) | XDMA_SGDMA_HALT_C2H(0)),
		WR(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1C,
		   XDMA_SGDMA_HALT_H2C(0)),
		RD(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL,
		   XDMA_SGDMA_HALT_C2H(0)),
		WR(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1S,
		   XDMA_SGDMA_HALT_H2C(0)),
		RD(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL,
		   XDMA_SGDMA_HALT_H2C(0) | XDMA_SGDMA_HALT_C2H(0)),
	} },
	{ "common_credit_enable", &cfg_small, {
		WR(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT_W1S,
		   BIT(16) | BIT(1)),
		RD(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT,
		   BIT(16) | BIT(1)),
		WR(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT_W1C,
		   BIT(1)),
		RD(XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT, BIT(16)),
	} },
};

HF_TEST_ROWS(sgdma, sgdma_rows, reg_case)

HF_TEST(halt_stops_descriptor_fetch)
{
	struct tcard t;
	struct xdma_model_counters c;
	u32 st = ch_off(false, 0, XDMA_CHAN_STATUS);

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	set_desc(&t, 0, XDMA_DESC_CTRL_STOP, 0, 64, t.wb_bus, 0, 0);
	wr(&t, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1S,
	   XDMA_SGDMA_HALT_H2C(0));
	start(&t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	xdma_model_get_counters(t.m, &c);
	HF_CHECK_EQ(c.desc_fetched, 0);
	HF_CHECK_EQ(rd(&t, st), XDMA_STAT_BUSY);
	/* other engines are not halted */
	set_desc(&t, 1, XDMA_DESC_CTRL_STOP, 0, 64, 0, t.wb_bus, 0);
	start(&t, true, 0, 1, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(rd(&t, ch_off(true, 0, XDMA_CHAN_COMPLETED_DESC)), 1);
	/* releasing the halt lets the engine go on */
	wr(&t, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1C,
	   XDMA_SGDMA_HALT_H2C(0));
	HF_CHECK_EQ(rd(&t, st), XDMA_STAT_DESC_STOPPED);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_COMPLETED_DESC)), 1);
	tcard_close(&t);
}

HF_TEST(halted_engine_stops_on_run_clear)
{
	struct tcard t;
	u32 st = ch_off(false, 0, XDMA_CHAN_STATUS);

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	set_desc(&t, 0, XDMA_DESC_CTRL_STOP, 0, 64, t.wb_bus, 0, 0);
	wr(&t, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL,
	   XDMA_SGDMA_HALT_H2C(0));
	start(&t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	wr(&t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK_EQ(rd(&t, st), XDMA_STAT_IDLE_STOPPED);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_COMPLETED_DESC)), 0);
	tcard_close(&t);
}

/* ---- IRQ block ---- */

/* IRQ block registers, as scripts (reg_case()). */
static const struct reg_row irq_rows[] = {
	{ "block_enables_w1s_w1c", &cfg_1_1, {
		WR(XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, ~0u),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0xffff),
		WR(XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C, 0xfff0),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0xf),
		WR(XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, 0x100),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x10f),
		/* 1 H2C + 1 C2H: two engine bits */
		WR(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, ~0u),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0x3),
		WR(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1C, 0x1),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0x2),
		WR(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1S, 0x1),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1S, 0x3),
	} },
	{ "vector_registers_five_bits_per_byte", &cfg_small, {
		WR(XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(12), 0xffffffff),
		RD(XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(12), 0x1f1f1f1f),
		WR(XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(4), 0x04030201),
		RD(XDMA_IRQ_BASE + 0xa4, 0x04030201),
	} },
};

HF_TEST_ROWS(irq, irq_rows, reg_case)

/* Channel 0 runs one Stop descriptor: status desc_stopped. */
static void complete_one(struct tcard *t, bool c2h, u32 flags)
{
	set_desc(t, 0, XDMA_DESC_CTRL_STOP | flags, 0, 64,
		 c2h ? 0 : t->wb_bus, c2h ? t->wb_bus : 0, 0);
	wr(t, ch_off(c2h, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	start(t, c2h, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
}

/* PG195: the status bits are "Reset (0) on setting the Control register
 * Run bit"; a run after one that failed shows only its own end. */
HF_TEST(run_bit_resets_status)
{
	struct tcard t;
	u32 st = ch_off(false, 0, XDMA_CHAN_STATUS);

	tcard_open(&t, &cfg_1_1, HF_EMU_SYNC);
	/* a descriptor without its magic: the engine stops on it */
	set_desc(&t, 0, XDMA_DESC_CTRL_STOP, 0, 64, t.wb_bus, 0, 0);
	t.ring[0].control = cpu_to_le32(XDMA_DESC_CTRL_STOP);
	start(&t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK(rd(&t, st) & XDMA_STAT_MAGIC_STOPPED);
	complete_one(&t, false, 0);
	HF_CHECK_EQ(rd(&t, st), XDMA_STAT_DESC_STOPPED);
	tcard_close(&t);
}

HF_TEST(irq_request_reflects_status_and_mask)
{
	struct tcard t;
	u32 req = XDMA_IRQ_BASE + XDMA_IRQ_CHAN_REQ;

	tcard_open(&t, &cfg_1_1, HF_EMU_SYNC);
	complete_one(&t, true, 0);
	HF_CHECK_EQ(rd(&t, req), 0);	/* mask 0: no request */
	wr(&t, ch_off(true, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_DESC_STOPPED);
	HF_CHECK_EQ(rd(&t, req), BIT(1));	/* C2H0 is engine 1 */
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND), 0);
	rd(&t, ch_off(true, 0, XDMA_CHAN_STATUS_RC));
	HF_CHECK_EQ(rd(&t, req), 0);
	tcard_close(&t);
}

HF_TEST(irq_pending_is_request_and_enable)
{
	struct tcard t;

	tcard_open(&t, &cfg_1_1, HF_EMU_SYNC);
	wr(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	wr(&t, ch_off(true, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	complete_one(&t, false, 0);
	complete_one(&t, true, 0);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_REQ), 0x3);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0x2);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND), 0x2);
	tcard_close(&t);
}

HF_TEST(irq_vectors_in_engine_order_1h2c_1c2h)
{
	struct tcard t;

	tcard_open(&t, &cfg_1_1, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_MSIX);
	/* H2C0 -> byte 0 of 0xa0, C2H0 -> byte 1 of 0xa0 (not 0xa4) */
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(0), 0x00000705);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0x3);
	wr(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	wr(&t, ch_off(true, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	complete_one(&t, false, 0);
	HF_CHECK_EQ(irq_count(&t, 5), 1);
	HF_CHECK_EQ(irq_total(&t), 1);
	complete_one(&t, true, 0);
	HF_CHECK_EQ(irq_count(&t, 7), 1);
	HF_CHECK_EQ(irq_total(&t), 2);
	tcard_close(&t);
}

/*
 * A 1+1 card delivering in @mode, interrupts recorded, with H2C0's
 * interrupt enabled in the IRQ block and for every cause in the channel.
 */
static void h2c0_irq_card(struct tcard *t, enum xdma_model_irq_mode mode)
{
	tcard_open(t, &cfg_1_1, HF_EMU_SYNC);
	record_irqs(t, mode);
	wr(t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0x1);
	wr(t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
}

/*
 * Runs on H2C0 of a h2c0_irq_card(): a run of two descriptors that both
 * report (Completed, then Stop with Completed) interrupts once (an MSI
 * edge, or the INTx line rising): the request is high from the first event
 * on, so the second sends nothing.  Setting Run for the next run resets the
 * status (PG195), the request falls, and that run's end interrupts again.
 */
static void one_irq_per_run(struct tcard *t)
{
	set_desc(t, 0, XDMA_DESC_CTRL_COMPLETED, 0, 32, t->wb_bus, 0,
		 desc_bus(t, 1));
	set_desc(t, 1, XDMA_DESC_CTRL_STOP | XDMA_DESC_CTRL_COMPLETED, 0, 32,
		 t->wb_bus, 32, 0);
	wr(t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	start(t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(rd(t, ch_off(false, 0, XDMA_CHAN_COMPLETED_DESC)), 2);
	HF_CHECK_EQ(irq_count(t, 0), 1);
	complete_one(t, false, 0);
	HF_CHECK_EQ(irq_count(t, 0), 2);
}

HF_TEST(msi_fires_on_rising_edge_only)
{
	struct tcard t;

	h2c0_irq_card(&t, XDMA_MODEL_IRQ_MSI);
	one_irq_per_run(&t);
	tcard_close(&t);
}

HF_TEST(msi_reenable_with_request_high_fires_again)
{
	struct tcard t;

	h2c0_irq_card(&t, XDMA_MODEL_IRQ_MSIX);
	complete_one(&t, false, 0);
	HF_CHECK_EQ(irq_count(&t, 0), 1);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1C, 0x1);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1S, 0x1);
	HF_CHECK_EQ(irq_count(&t, 0), 2);
	tcard_close(&t);
}

/*
 * xdma_model_stray_irq(): the channel's message once, nothing else (no
 * status, no pending bit); refused with the channel disabled, in INTx
 * mode and under LOST_IRQ.
 */
HF_TEST(stray_irq_sends_the_channel_message_and_changes_nothing)
{
	struct tcard t;

	h2c0_irq_card(&t, XDMA_MODEL_IRQ_MSIX);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_VEC(0), 0x00000705);
	HF_CHECK_ERR(xdma_model_stray_irq(t.m, 0), 0);
	HF_CHECK_EQ(irq_count(&t, 5), 1);
	HF_CHECK_EQ(irq_total(&t), 1);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_STATUS)), 0);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND), 0);
	HF_CHECK_ERR(xdma_model_stray_irq(t.m, 2), -EINVAL);
	/* C2H0's interrupt is not enabled in the IRQ block */
	HF_CHECK_ERR(xdma_model_stray_irq(t.m, 1), -EAGAIN);
	xdma_model_inject(t.m, XDMA_FAULT_LOST_IRQ);
	HF_CHECK_ERR(xdma_model_stray_irq(t.m, 0), -EAGAIN);
	xdma_model_inject(t.m, 0);
	HF_CHECK_EQ(hf_emu_set_irq_mode(t.h, XDMA_MODEL_IRQ_LEGACY), 0);
	HF_CHECK_ERR(xdma_model_stray_irq(t.m, 0), -EAGAIN);
	HF_CHECK_EQ(irq_total(&t), 1);
	tcard_close(&t);
}

/* INTx ISR: reads and clears the status, which lowers the line. */
static void intx_isr(struct tcard *t, u32 v)
{
	rd(t, ch_off(false, 0, XDMA_CHAN_STATUS_RC));
}

HF_TEST(intx_line_follows_pending_level)
{
	struct tcard t;

	h2c0_irq_card(&t, XDMA_MODEL_IRQ_LEGACY);
	one_irq_per_run(&t);
	/* an ISR that clears the status sees one assertion per event */
	t.on_irq = intx_isr;
	rd(&t, ch_off(false, 0, XDMA_CHAN_STATUS_RC));
	complete_one(&t, false, 0);
	complete_one(&t, false, 0);
	HF_CHECK_EQ(irq_count(&t, 0), 4);
	tcard_close(&t);
}

HF_TEST(irq_mode_none_delivers_nothing)
{
	struct tcard t;
	struct xdma_model_counters c;

	tcard_open(&t, &cfg_1_1, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_NONE);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0x3);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x1);
	wr(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	complete_one(&t, false, 0);
	hf_iowrite32(1, t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_total(&t), 0);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_PEND), 0x1);
	xdma_model_get_counters(t.m, &c);
	HF_CHECK_EQ(c.irqs, 0);
	tcard_close(&t);
}

HF_TEST(user_irq_request_pending_and_vector)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_MSIX);
	/* user irq 5 -> byte 1 of 0x84 */
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(5), 0x1300);
	hf_iowrite32(BIT(5) | BIT(2), t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_IRQ_REQ), BIT(5) | BIT(2));
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_REQ),
		    BIT(5) | BIT(2));
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), 0);
	HF_CHECK_EQ(irq_total(&t), 0);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, BIT(5));
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), BIT(5));
	HF_CHECK_EQ(irq_count(&t, 0x13), 1);
	HF_CHECK_EQ(irq_total(&t), 1);
	hf_iowrite32(BIT(5), t.ubar, HF_USER_IRQ_CLEAR);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_REQ), BIT(2));
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), 0);
	hf_iowrite32(BIT(5), t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_count(&t, 0x13), 2);
	tcard_close(&t);
}

HF_TEST(user_irq_asserts_intx)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_LEGACY);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x3);
	hf_iowrite32(BIT(0), t.ubar, HF_USER_IRQ_SET);
	hf_iowrite32(BIT(1), t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_count(&t, 0), 1);
	hf_iowrite32(0x3, t.ubar, HF_USER_IRQ_CLEAR);
	hf_iowrite32(BIT(1), t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_count(&t, 0), 2);
	tcard_close(&t);
}

/*
 * A pulse (HF_USER_IRQ_PULSE) is one interrupt: it stays pending until the
 * handler masks it, and enabling it again does not deliver it again.
 */
HF_TEST(user_irq_pulse_is_delivered_once_and_dropped_by_the_mask)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_MSIX);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(3), 0x11000000);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, BIT(3));
	hf_iowrite32(BIT(3), t.ubar, HF_USER_IRQ_PULSE);
	HF_CHECK_EQ(irq_count(&t, 0x11), 1);
	/* pending until acknowledged: a shared handler can still find it */
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), BIT(3));
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_IRQ_REQ), BIT(3));
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C, BIT(3));
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_IRQ_REQ), 0);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, BIT(3));
	HF_CHECK_EQ(irq_count(&t, 0x11), 1);
	/* the next pulse is the next interrupt */
	hf_iowrite32(BIT(3), t.ubar, HF_USER_IRQ_PULSE);
	HF_CHECK_EQ(irq_count(&t, 0x11), 2);
	tcard_close(&t);
}

/* A pulse raised while its interrupt is masked waits for the enable. */
HF_TEST(user_irq_pulse_while_masked_is_delivered_when_enabled)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_LEGACY);
	hf_iowrite32(BIT(1), t.ubar, HF_USER_IRQ_PULSE);
	HF_CHECK_EQ(irq_count(&t, 0), 0);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, BIT(1));
	HF_CHECK_EQ(irq_count(&t, 0), 1);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), BIT(1));
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C, BIT(1));
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, BIT(1));
	HF_CHECK_EQ(irq_count(&t, 0), 1);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), 0);
	tcard_close(&t);
}

/* ---- config block ---- */

/* Config block registers, as scripts (reg_case()). */
static const struct reg_row config_rows[] = {
	{ "block_values", &cfg_small, {
		RD(XDMA_CONFIG_BASE + XDMA_CFG_BUSDEV, 0),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_MAX_PAYLOAD, 1), /* 256 B */
		RD(XDMA_CONFIG_BASE + XDMA_CFG_MAX_READ_REQ, 2), /* 512 B */
		RD(XDMA_CONFIG_BASE + XDMA_CFG_SYSTEM_ID, 0xff01),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_DATA_WIDTH, 2), /* 256 bit */
		RD(XDMA_CONFIG_BASE + XDMA_CFG_PCIE_CONTROL,
		   XDMA_CFG_PCIE_CTRL_RELAXED),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_AXI_USER_MAX_PAYLOAD, 0x11),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_AXI_USER_MAX_READ_REQ, 0x22),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_WRITE_FLUSH_TIMEOUT, 0),
	} },
	{ "block_read_only_fields_ignore_writes", &cfg_small, {
		WR(XDMA_CONFIG_BASE + XDMA_CFG_MAX_PAYLOAD, 3),
		WR(XDMA_CONFIG_BASE + XDMA_CFG_DATA_WIDTH, 3),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_MAX_PAYLOAD, 1),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_DATA_WIDTH, 2),
		/* AXI user sizes are RW, effective = min with PCIe */
		WR(XDMA_CONFIG_BASE + XDMA_CFG_AXI_USER_MAX_PAYLOAD, 0x77),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_AXI_USER_MAX_PAYLOAD, 0x17),
		WR(XDMA_CONFIG_BASE + XDMA_CFG_AXI_USER_MAX_READ_REQ, 0x0),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_AXI_USER_MAX_READ_REQ, 0x00),
		WR(XDMA_CONFIG_BASE + XDMA_CFG_WRITE_FLUSH_TIMEOUT, 0xff),
		RD(XDMA_CONFIG_BASE + XDMA_CFG_WRITE_FLUSH_TIMEOUT, 0x1f),
	} },
};

HF_TEST_ROWS(config, config_rows, reg_case)

HF_TEST(config_msi_enable_reflects_irq_mode)
{
	struct tcard t;
	u32 reg = XDMA_CONFIG_BASE + XDMA_CFG_MSI_ENABLE;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(rd(&t, reg), 0);
	hf_emu_set_irq_mode(t.h, XDMA_MODEL_IRQ_MSI);
	HF_CHECK_EQ(rd(&t, reg), XDMA_CFG_MSI_EN_MSI);
	hf_emu_set_irq_mode(t.h, XDMA_MODEL_IRQ_MSIX);
	HF_CHECK_EQ(rd(&t, reg), XDMA_CFG_MSI_EN_MSIX);
	hf_emu_set_irq_mode(t.h, XDMA_MODEL_IRQ_LEGACY);
	HF_CHECK_EQ(rd(&t, reg), 0);
	tcard_close(&t);
}

/* ---- performance monitor ---- */

static u64 perf_data(struct tcard *t, bool c2h)
{
	return rd(t, ch_off(c2h, 0, XDMA_CHAN_PERF_DATA_LO)) |
	       (u64)FIELD_GET(XDMA_PERF_HI_COUNT,
			      rd(t, ch_off(c2h, 0, XDMA_CHAN_PERF_DATA_HI)))
			<< 32;
}

static u64 perf_cycles(struct tcard *t, bool c2h)
{
	return rd(t, ch_off(c2h, 0, XDMA_CHAN_PERF_CYC_LO)) |
	       (u64)FIELD_GET(XDMA_PERF_HI_COUNT,
			      rd(t, ch_off(c2h, 0, XDMA_CHAN_PERF_CYC_HI)))
			<< 32;
}

/* H2C0 moves 100 + 64 bytes: 4 + 2 beats of 32 bytes. */
static void perf_run_two(struct tcard *t, u32 ctrl)
{
	set_desc(t, 0, 0, 0, 100, t->ring_bus + 1024, 0, desc_bus(t, 1));
	set_desc(t, 1, XDMA_DESC_CTRL_STOP, 0, 64, t->ring_bus + 1024, 0, 0);
	start(t, false, 0, 0, 0, ctrl);
}

HF_TEST(perf_counts_nothing_unless_armed)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	perf_run_two(&t, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(perf_data(&t, false), 0);
	HF_CHECK_EQ(perf_cycles(&t, false), 0);
	tcard_close(&t);
}

HF_TEST(perf_run_counts_data_beats_and_cycles)
{
	struct tcard t;
	u64 c1, c2;
	struct timespec ts = { 0, 2000000 };

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	wr(&t, ch_off(false, 0, XDMA_CHAN_PERF_CTRL), XDMA_PERF_RUN);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_PERF_CTRL)),
		    XDMA_PERF_RUN);
	HF_CHECK_EQ(perf_cycles(&t, false), 0);	/* armed, engine not run */
	perf_run_two(&t, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(perf_data(&t, false), 6);
	c1 = perf_cycles(&t, false);
	nanosleep(&ts, NULL);
	c2 = perf_cycles(&t, false);
	HF_CHECK(c2 > c1);	/* counts while Run is set */
	wr(&t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	c1 = perf_cycles(&t, false);
	nanosleep(&ts, NULL);
	HF_CHECK_EQ(perf_cycles(&t, false), c1);	/* halted */
	tcard_close(&t);
}

HF_TEST(perf_clear_zeroes_counters)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	wr(&t, ch_off(false, 0, XDMA_CHAN_PERF_CTRL), XDMA_PERF_RUN);
	perf_run_two(&t, CH_CTRL_IE_ALL_RUN);
	wr(&t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK_EQ(perf_data(&t, false), 6);
	wr(&t, ch_off(false, 0, XDMA_CHAN_PERF_CTRL), XDMA_PERF_CLEAR);
	HF_CHECK_EQ(perf_data(&t, false), 0);
	HF_CHECK_EQ(perf_cycles(&t, false), 0);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_PERF_PEND_LO)), 0);
	/* Clear is write-only */
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_PERF_CTRL)), 0);
	tcard_close(&t);
}

HF_TEST(perf_auto_clears_on_run_and_stops_at_stop_descriptor)
{
	struct tcard t;
	u64 c1;
	struct timespec ts = { 0, 2000000 };

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	wr(&t, ch_off(false, 0, XDMA_CHAN_PERF_CTRL),
	   XDMA_PERF_RUN | XDMA_PERF_AUTO);
	perf_run_two(&t, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(perf_data(&t, false), 6);
	/* stopped at the Stop descriptor although Run is still set */
	c1 = perf_cycles(&t, false);
	nanosleep(&ts, NULL);
	HF_CHECK_EQ(perf_cycles(&t, false), c1);
	/* the next Run edge clears, then counts again */
	wr(&t, ch_off(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	start(&t, false, 0, 1, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK_EQ(perf_data(&t, false), 2);
	tcard_close(&t);
}

/* ---- reserved offsets ---- */

HF_TEST(reserved_offsets_read_zero_and_count_guest_errors)
{
	struct tcard t;
	struct xdma_model_counters c;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, 0x50)), 0);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + 0x30), 0);
	HF_CHECK_EQ(rd(&t, 0x7000), 0);
	HF_CHECK_EQ(rd(&t, XDMA_CONFIG_BASE + 0x20), 0);
	wr(&t, XDMA_CONFIG_BASE + 0x20, 1);
	HF_CHECK_EQ(rd(&t, XDMA_CONFIG_BASE + 0x20), 0);
	wr(&t, ch_off(false, 0, XDMA_ID), 1);	/* read-only */
	HF_CHECK_EQ(rd(&t, 0x10002), 0);	/* beyond the BAR */
	xdma_model_get_counters(t.m, &c);
	HF_CHECK_EQ(c.guest_errors, 8);
	tcard_close(&t);
}

HF_TEST(msix_region_is_left_to_the_host)
{
	struct tcard t;
	struct xdma_model_counters c;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(rd(&t, XDMA_MSIX_TABLE_OFFSET), 0);
	wr(&t, XDMA_MSIX_PBA_OFFSET, 1);
	xdma_model_get_counters(t.m, &c);
	HF_CHECK_EQ(c.guest_errors, 0);
	tcard_close(&t);
}

/* ---- user BAR ---- */

HF_TEST(user_bar_identity_scratch_ram)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_ID), HF_USER_ID_VALUE);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_VERSION), 0x00010002);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_DDR_SIZE_MB), 1);
	hf_iowrite32(0xcafef00d, t.ubar, HF_USER_SCRATCH);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_SCRATCH), 0xcafef00d);
	hf_iowrite32(0x11, t.ubar, HF_USER_RAM);
	hf_iowrite32(0x22, t.ubar, HF_USER_RAM + HF_USER_RAM_SIZE - 4);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_RAM), 0x11);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_RAM + HF_USER_RAM_SIZE - 4),
		    0x22);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_RAM + HF_USER_RAM_SIZE), 0);
	tcard_close(&t);
}

/* ---- reset ---- */

HF_TEST(reset_restores_registers_keeps_card_memory)
{
	struct tcard t;
	u8 b = 0;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(xdma_model_card_write(t.m, 100, "\x5a", 1), 0);
	wr(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
	wr(&t, sg_off(false, 0, XDMA_SGDMA_DESC_LO), 0x1000);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN, 0xff);
	hf_iowrite32(7, t.ubar, HF_USER_SCRATCH);
	make_status_bits(&t);
	xdma_model_reset(t.m);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_IRQ_MASK)), 0);
	HF_CHECK_EQ(rd(&t, ch_off(true, 0, XDMA_CHAN_STATUS)), 0);
	HF_CHECK_EQ(rd(&t, ch_off(true, 0, XDMA_CHAN_CONTROL)), 0);
	HF_CHECK_EQ(rd(&t, ch_off(true, 0, XDMA_CHAN_COMPLETED_DESC)), 0);
	HF_CHECK_EQ(rd(&t, sg_off(false, 0, XDMA_SGDMA_DESC_LO)), 0);
	HF_CHECK_EQ(rd(&t, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN), 0);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_SCRATCH), 0);
	HF_CHECK_EQ(xdma_model_card_read(t.m, 100, &b, 1), 0);
	HF_CHECK_EQ(b, 0x5a);
	tcard_close(&t);
}

HF_TEST(reset_stops_a_stalled_engine)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	xdma_model_inject(t.m, XDMA_FAULT_STALL);
	complete_one(&t, false, 0);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_STATUS)),
		    XDMA_STAT_BUSY);
	xdma_model_reset(t.m);
	xdma_model_inject(t.m, 0);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_STATUS)), 0);
	HF_CHECK_EQ(rd(&t, ch_off(false, 0, XDMA_CHAN_COMPLETED_DESC)), 0);
	tcard_close(&t);
}
