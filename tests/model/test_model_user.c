// SPDX-License-Identifier: MIT
/*
 * test_model_user.c - the seam between the XDMA IP and the user logic
 * (model/xdma_user.h): the IP runs a user logic of the test's own, not the
 * reference design, unchanged.  The test's logic counts its register
 * accesses, sources records of a fixed byte pattern into C2H channel 0,
 * sums what H2C channel 0 streams into it (back-pressuring it once a budget
 * of bytes is spent, when it has one), and drives the usr_irq_req lines
 * from a register; the card runs on the host with virtual time (vhost.h).
 */
#include "vhost.h"

#define MIB		(1u << 20)
#define MEM		(8 * MIB)
#define WBOFF		(64 * 1024)	/* bus memory offset of writebacks */
#define DATA		(1 * MIB)	/* bus memory offset of data */
#define RUN_IE		(XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL)

#define TUL_BAR		4096	/* the test logic's BAR */
#define TUL_REC		1000	/* bytes per record */
#define TUL_LINES	0x0	/* W: the usr_irq_req lines */
#define TUL_SOURCE	0x4	/* W: nonzero turns the source on */
#define TUL_ROOM	0x8	/* W: bytes (+1 for TLAST) H2C may take, 0 all */

/* The test's user logic: what the IP gives it and what it saw. */
struct xdma_user {
	struct xdma_user_config cfg;
	struct xdma_user_env env;
	u32 regs[TUL_BAR / 4];
	unsigned int reads;
	unsigned int writes;
	unsigned int resets;
	unsigned int acks;
	u32 lines;
	u32 taken;		/* bytes of the current record taken */
	u32 records;		/* records ended (TLAST) */
	u64 in_bytes;		/* H2C: bytes streamed in */
	u32 in_sum;		/* their sum */
	u32 in_last;		/* TLASTs */
	u32 in_calls;		/* st_in calls that took nothing */
};

static struct xdma_user *tul_last;	/* the instance the card created */

static u8 tul_byte(u32 i)
{
	return (u8)(i * 7 + 3);
}

static int tul_create(const struct xdma_user_config *cfg,
		      const struct xdma_user_env *env, struct xdma_user **out)
{
	struct xdma_user *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->cfg = *cfg;
	u->env = *env;
	tul_last = u;
	*out = u;
	return 0;
}

static void tul_destroy(struct xdma_user *u)
{
	free(u);
}

static void tul_reset(struct xdma_user *u)
{
	memset(u->regs, 0, sizeof(u->regs));
	u->lines = 0;
	u->taken = 0;
	u->resets++;
}

static void tul_advance(struct xdma_user *u, uint64_t now, uint32_t idle)
{
	(void)u;
	(void)now;
	(void)idle;
}

static uint32_t tul_reg_read(struct xdma_user *u, uint32_t off, uint64_t now)
{
	(void)now;
	u->reads++;
	return u->regs[off / 4];
}

static uint32_t tul_reg_write(struct xdma_user *u, uint32_t off, uint32_t val,
			      uint64_t now)
{
	(void)now;
	u->writes++;
	u->regs[off / 4] = val;
	if (off == TUL_LINES) {
		u->lines = val;
		return XDMA_USER_IRQ;
	}
	if (off == TUL_ROOM)
		return XDMA_USER_KICK_H2C(0);
	return off == TUL_SOURCE ? XDMA_USER_KICK_C2H(0) : 0;
}

static uint32_t tul_irq_lines(struct xdma_user *u)
{
	return u->lines;
}

static void tul_irq_ack(struct xdma_user *u, uint32_t lines)
{
	u->acks++;
	u->lines &= ~lines;
}

static bool tul_st_peek(struct xdma_user *u, uint32_t ch, uint64_t now,
			struct xdma_user_rec *rec)
{
	(void)now;
	if (ch || !u->regs[TUL_SOURCE / 4]) {
		rec->next_ns = UINT64_MAX;
		return false;
	}
	rec->left = TUL_REC - u->taken;
	rec->ready_ns = 0;
	return true;
}

static void tul_st_read(struct xdma_user *u, uint32_t ch, uint32_t skip,
			void *buf, uint32_t n)
{
	u8 *p = buf;

	(void)ch;
	for (u32 i = 0; i < n; i++)
		p[i] = tul_byte(u->taken + skip + i);
}

static uint32_t tul_st_take(struct xdma_user *u, uint32_t ch, uint32_t n,
			    uint64_t t)
{
	(void)ch;
	(void)t;
	u->taken += n;
	if (u->taken < TUL_REC)
		return 0;
	u->taken = 0;
	u->records++;
	return XDMA_USER_TLAST;
}

/* With a budget (TUL_ROOM), it takes what the budget allows: back-pressure. */
static uint32_t tul_st_in(struct xdma_user *u, uint32_t ch, const void *buf,
			  uint32_t n, bool last, uint32_t *took)
{
	u32 *room = &u->regs[TUL_ROOM / 4];
	const u8 *p = buf;

	(void)ch;
	if (*room) {
		n = min_t(u32, n, *room - 1);
		*room -= n;
		last = last && *room > 1;
		*room -= last;
		u->in_calls += !n && !last;
	}
	u->in_bytes += n;
	for (u32 i = 0; i < n; i++)
		u->in_sum += p[i];
	u->in_last += last;
	*took = n;
	return last ? XDMA_USER_TLAST : 0;
}

static const struct xdma_user_ops tul_ops = {
	.name = "test user logic",
	.bar_size = TUL_BAR,
	.create = tul_create,
	.destroy = tul_destroy,
	.reset = tul_reset,
	.advance = tul_advance,
	.reg_read = tul_reg_read,
	.reg_write = tul_reg_write,
	.irq_lines = tul_irq_lines,
	.irq_ack = tul_irq_ack,
	.st_peek = tul_st_peek,
	.st_read = tul_st_read,
	.st_take = tul_st_take,
	.st_in = tul_st_in,
};

static struct xdma_user *tul_open(struct vhost *v, bool st)
{
	struct xdma_model_config cfg = {
		.num_h2c = 1, .num_c2h = 1, .ddr_size = MIB, .st = st,
		.user = &tul_ops,
	};

	tul_last = NULL;
	vh_open_cfg(v, &cfg, MEM);
	HF_CHECK(tul_last != NULL);
	return tul_last;
}

static u32 wb_word(struct vhost *v, u32 i, u32 w)
{
	const u8 *p = v->mem + WBOFF + i * XDMA_STM_WB_SIZE + 4 * w;

	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

HF_TEST(user_logic_of_a_test_gets_the_user_bar_and_nothing_else)
{
	struct xdma_model_counters c;
	struct vhost v;
	struct xdma_user *u = tul_open(&v, false);

	HF_CHECK_EQ(u->cfg.num_h2c, 1);
	HF_CHECK_EQ(u->cfg.ddr_size, MIB);
	HF_CHECK(!u->cfg.st);
	HF_CHECK(u->resets >= 1);
	HF_CHECK_EQ(xdma_model_user_bar_size(v.m), TUL_BAR);
	/* not the reference design: no ID, the test's registers */
	HF_CHECK_EQ(xdma_model_user_read32(v.m, HF_USER_ID), 0);
	xdma_model_user_write32(v.m, 0x100, 0x1234);
	HF_CHECK_EQ(xdma_model_user_read32(v.m, 0x100), 0x1234);
	HF_CHECK_EQ(u->reads, 2);
	HF_CHECK_EQ(u->writes, 1);
	/* beyond its BAR or unaligned: the IP stops it, a guest error */
	xdma_model_reset_counters(v.m);
	HF_CHECK_EQ(xdma_model_user_read32(v.m, TUL_BAR), 0);
	xdma_model_user_write32(v.m, 0x102, 1);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.guest_errors, 2);
	HF_CHECK_EQ(u->reads, 2);
	HF_CHECK_EQ(u->writes, 1);
	/* a memory-mapped transfer never reaches the user logic */
	memset(v.mem + DATA, 0x5a, 4096);
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + DATA, 0x1000, 0);
	vh_start(&v, false, 0, 0, RUN_IE);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(xdma_model_card_read(v.m, 0x1000, v.mem + DATA + 8192,
					 4096), 0);
	HF_CHECK(!memcmp(v.mem + DATA, v.mem + DATA + 8192, 4096));
	HF_CHECK_EQ(u->reads + u->writes, 3);
	/* the IP's reset is the user logic's too */
	xdma_model_reset(v.m);
	HF_CHECK_EQ(xdma_model_user_read32(v.m, 0x100), 0);
	vh_close(&v);
}

HF_TEST(user_logic_of_a_test_streams_through_the_ip)
{
	struct vhost v;
	struct xdma_user *u = tul_open(&v, true);
	u32 sum = 0;

	/* C2H: 3 descriptors of 600 bytes; records of TUL_REC bytes */
	for (u32 i = 0; i < 3; i++)
		vh_desc(&v, i, i == 2 ? XDMA_DESC_CTRL_STOP : 0, 600,
			VH_BUS + WBOFF + i * XDMA_STM_WB_SIZE,
			VH_BUS + DATA + i * 600, vh_desc_bus(i + 1));
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK(vh_busy(&v, true, 0));		/* no record yet */
	xdma_model_user_write32(v.m, TUL_SOURCE, 1);	/* kicks the engine */
	vh_run(&v);
	HF_CHECK(!vh_busy(&v, true, 0));
	HF_CHECK_EQ(u->records, 1);
	HF_CHECK_EQ(u->taken, 600);		/* of the second record */
	HF_CHECK_EQ(wb_word(&v, 0, 1), 600);
	HF_CHECK(!(wb_word(&v, 0, 0) & XDMA_STM_WB_EOP));
	HF_CHECK_EQ(wb_word(&v, 1, 1), 400);
	HF_CHECK(wb_word(&v, 1, 0) & XDMA_STM_WB_EOP);	/* TLAST */
	HF_CHECK_EQ(wb_word(&v, 2, 1), 600);
	for (u32 i = 0; i < TUL_REC; i++)	/* descriptors 0 and 1 */
		HF_CHECK_MSG(v.mem[DATA + i] == tul_byte(i), "byte %u", i);
	for (u32 i = 0; i < 600; i++)		/* descriptor 2 */
		HF_CHECK_MSG(v.mem[DATA + 1200 + i] == tul_byte(i),
			     "byte %u of the second record", i);

	/* H2C: 700 bytes in two descriptors, the second with EOP */
	for (u32 i = 0; i < 700; i++) {
		v.mem[4 * MIB + i] = (u8)(i ^ 0x5c);
		sum += (u8)(i ^ 0x5c);
	}
	vh_desc(&v, 0, 0, 300, VH_BUS + 4 * MIB, 0, vh_desc_bus(1));
	vh_desc(&v, 1, XDMA_DESC_CTRL_EOP | XDMA_DESC_CTRL_STOP, 400,
		VH_BUS + 4 * MIB + 300, 0, 0);
	vh_start(&v, false, 0, 0, RUN_IE);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(u->in_bytes, 700);
	HF_CHECK_EQ(u->in_sum, sum);
	HF_CHECK_EQ(u->in_last, 1);
	vh_close(&v);
}

/*
 * A back-pressured H2C port (st_in takes less) holds the engine: it offers
 * the rest, in order, at the user logic's XDMA_USER_KICK_H2C, and ends the
 * descriptor only once the port took its TLAST.  Without a link model and
 * with one.
 */
static const struct bp_row {
	const char *name;
	struct xdma_link link;
} bp_rows[] = {
	{ "no_link", { 0 } },
	{ "gen1x1", { .gen = 1, .lanes = 1, .mps = 256, .desc_ns = 1000 } },
};

static void h2c_backpressure(const void *row)
{
	const struct bp_row *r = row;
	struct xdma_model_config cfg = {
		.num_h2c = 1, .num_c2h = 1, .ddr_size = MIB, .st = true,
		.user = &tul_ops,
	};
	struct xdma_user *u;
	struct vhost v;
	u32 sum = 0;

	cfg.link = r->link;
	tul_last = NULL;
	vh_open_cfg(&v, &cfg, MEM);
	u = tul_last;
	HF_CHECK(u != NULL);
	for (u32 i = 0; i < 5000; i++) {
		v.mem[4 * MIB + i] = (u8)(i * 13 + 1);
		sum += (u8)(i * 13 + 1);
	}
	xdma_model_user_write32(v.m, TUL_ROOM, 1 + 1000);
	vh_desc(&v, 0, XDMA_DESC_CTRL_EOP | XDMA_DESC_CTRL_STOP, 5000,
		VH_BUS + 4 * MIB, 0, 0);
	vh_start(&v, false, 0, 0, RUN_IE);
	vh_until(&v, v.now + 100000000);	/* 100 ms */
	HF_CHECK(vh_busy(&v, false, 0));	/* held: the port is full */
	HF_CHECK_EQ(u->in_bytes, 1000);
	xdma_model_user_write32(v.m, TUL_ROOM, 1 + 3000);	/* kicks it */
	vh_until(&v, v.now + 100000000);	/* 100 ms */
	HF_CHECK(vh_busy(&v, false, 0));
	HF_CHECK_EQ(u->in_bytes, 4000);
	xdma_model_user_write32(v.m, TUL_ROOM, 1 + 1000);	/* no TLAST */
	vh_until(&v, v.now + 100000000);	/* 100 ms */
	HF_CHECK(vh_busy(&v, false, 0));	/* the TLAST waits */
	HF_CHECK_EQ(u->in_bytes, 5000);
	HF_CHECK_EQ(u->in_last, 0);
	xdma_model_user_write32(v.m, TUL_ROOM, 1 + 1);
	vh_until(&v, v.now + 100000000);	/* 100 ms */
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(u->in_sum, sum);		/* every byte, once, in order */
	HF_CHECK_EQ(u->in_last, 1);
	HF_CHECK(u->in_calls < 8);		/* no spinning on a full port */
	vh_close(&v);
}
HF_TEST_ROWS(user_logic_h2c_backpressure_holds_the_engine, bp_rows,
	     h2c_backpressure);

HF_TEST(user_logic_of_a_test_drives_the_user_interrupt_lines)
{
	struct vhost v;
	struct xdma_user *u = tul_open(&v, false);

	vh_wr(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x3);
	xdma_model_user_write32(v.m, TUL_LINES, 0x2);
	HF_CHECK_EQ(v.msis, 1);
	HF_CHECK_EQ(vh_rd(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_REQ), 0x2);
	HF_CHECK_EQ(vh_rd(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND), 0x2);
	/* masking an enabled line is its acknowledgement (usr_irq_ack) */
	vh_wr(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C, 0x2);
	HF_CHECK_EQ(u->acks, 1);
	HF_CHECK_EQ(vh_rd(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_REQ), 0);
	vh_close(&v);
}

HF_TEST(user_logic_missing_an_op_is_refused)
{
	struct xdma_user_ops ops = tul_ops;
	struct xdma_model_config cfg = { .ddr_size = MIB, .user = &ops };
	struct xdma_model *m = NULL;
	struct vhost v = { 0 };

	ops.st_in = NULL;
	HF_CHECK_ERR(xdma_model_create(&cfg, &vh_ops, &v, &m), -EINVAL);
	ops = tul_ops;
	ops.bar_size = 3000;
	HF_CHECK_ERR(xdma_model_create(&cfg, &vh_ops, &v, &m), -EINVAL);
}
