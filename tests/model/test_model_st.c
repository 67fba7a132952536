// SPDX-License-Identifier: MIT
/*
 * test_model_st.c - the card model with AXI-Stream channels, on the host
 * with virtual time (vhost.h): stream identifiers, the C2H stream source
 * (frames, records, rate, backpressure or drop, user interrupt) into
 * descriptor chains and cyclic rings with credits, the C2H stream
 * writeback, the H2C stream sink, and the frame format's checker
 * (refdesign/hf_stream_pattern.h).
 */
#include "hf_stream_pattern.h"
#include "vhost.h"

#define KIB		(1u << 10)
#define MIB		(1u << 20)
#define MEM		(8 * MIB)
#define WBOFF		(64 * KIB)	/* bus memory offset of writebacks */
#define DATA		(1 * MIB)	/* bus memory offset of C2H data */
#define H2CDATA		(4 * MIB)	/* bus memory offset of H2C data */
#define RUN_IE		(XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL)
#define US		1000ull

static const struct xdma_link gen1x1 = {
	.gen = 1, .lanes = 1, .mps = 256, .desc_ns = 1000,
};

static void st_open(struct vhost *v, const struct xdma_link *link)
{
	struct xdma_model_config cfg = { .ddr_size = MIB, .st = true };

	if (link)
		cfg.link = *link;
	vh_open_cfg(v, &cfg, MEM);
}

static u32 ur(struct vhost *v, u32 off)
{
	return xdma_model_user_read32(v->m, off);
}

static void uw(struct vhost *v, u32 off, u32 val)
{
	xdma_model_user_write32(v->m, off, val);
	vh_run(v);
}

static u32 src_rd(struct vhost *v, u32 reg)
{
	return ur(v, HF_USER_ST_SRC(0) + reg);
}

static void src_wr(struct vhost *v, u32 reg, u32 val)
{
	uw(v, HF_USER_ST_SRC(0) + reg, val);
}

static u32 sink_rd(struct vhost *v, u32 reg)
{
	return ur(v, HF_USER_ST_SINK(0) + reg);
}

static u32 completed(struct vhost *v, bool c2h)
{
	return vh_rd(v, vh_chan(c2h, 0, XDMA_CHAN_COMPLETED_DESC));
}

static u32 status(struct vhost *v, bool c2h)
{
	return vh_rd(v, vh_chan(c2h, 0, XDMA_CHAN_STATUS));
}

static u64 wb_bus(u32 i)
{
	return VH_BUS + WBOFF + (u64)i * XDMA_STM_WB_SIZE;
}

static u32 wb_word(struct vhost *v, u32 i, u32 w)
{
	const u8 *p = v->mem + WBOFF + i * XDMA_STM_WB_SIZE + 4 * w;

	return hf_stream_le32(p);
}

/* Writeback @i says length @len and EOP @eop. */
static void check_wb(struct vhost *v, u32 i, u32 len, bool eop)
{
	u32 st = wb_word(v, i, 0);

	HF_CHECK_MSG(FIELD_GET(XDMA_STM_WB_MAGIC, st) == XDMA_STM_WB_MAGIC_VALUE,
		     "wb %u status 0x%08x", i, st);
	HF_CHECK_MSG(!!(st & XDMA_STM_WB_EOP) == eop, "wb %u status 0x%08x",
		     i, st);
	HF_CHECK_MSG(wb_word(v, i, 1) == len, "wb %u length %u, want %u", i,
		     wb_word(v, i, 1), len);
}

static bool all_zero(const u8 *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static u8 *slot(struct vhost *v, u32 i, u32 len)
{
	return v->mem + DATA + (u64)i * len;
}

/*
 * C2H0 descriptors 0..@n-1 of @len bytes each into slot i, writeback i;
 * the last one Stop (or, @cyclic, pointing back to the first).
 */
static void c2h_chain(struct vhost *v, u32 n, u32 len, bool cyclic)
{
	for (u32 i = 0; i < n; i++) {
		bool last = i + 1 == n;

		vh_desc(v, i, last && !cyclic ? XDMA_DESC_CTRL_STOP : 0, len,
			wb_bus(i), VH_BUS + DATA + (u64)i * len,
			vh_desc_bus(last ? 0 : i + 1));
	}
}

/* The source of C2H0 sends frames of @size bytes, @count of them (0: all). */
static void src_frames(struct vhost *v, u32 size, u32 count, u32 interval,
		       u32 ctrl)
{
	src_wr(v, HF_ST_SRC_FRAME_SIZE, size);
	src_wr(v, HF_ST_SRC_COUNT, count);
	src_wr(v, HF_ST_SRC_INTERVAL_NS, interval);
	src_wr(v, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE | ctrl);
}

/* Slot @i holds a good frame with sequence @seq, @len bytes long. */
static void check_frame(struct vhost *v, const u8 *p, u32 len, u64 seq)
{
	u64 got = ~0ull;

	HF_CHECK_MSG(!hf_stream_verify(p, len, &got),
		     "frame %llu (%u bytes) does not verify",
		     (unsigned long long)seq, len);
	HF_CHECK_EQ(got, seq);
}

/* Frame sequence number in slot @i. */
static u64 seq_at(struct vhost *v, u32 i, u32 len)
{
	const u8 *p = slot(v, i, len);

	return (u64)hf_stream_le32(p) | (u64)hf_stream_le32(p + 4) << 32;
}

/* Run is still set after a Stop descriptor: clear it, start at @first. */
static void restart(struct vhost *v, bool c2h, u32 first)
{
	vh_wr(v, vh_chan(c2h, 0, XDMA_CHAN_CONTROL), 0);
	vh_start(v, c2h, 0, first, RUN_IE);
}

/* ---- the frame format ---- */

HF_TEST(st_pattern_filled_in_pieces_is_the_whole_frame)
{
	static u8 a[5003], b[5003];
	u32 off = 0, n = 1;

	hf_stream_fill(a, 77, sizeof(a), 0, sizeof(a));
	while (off < sizeof(b)) {
		n = min_t(u32, n, sizeof(b) - off);
		hf_stream_fill(b + off, 77, sizeof(b), off, n);
		off += n;
		n = n * 3 + 1;
	}
	HF_CHECK(!memcmp(a, b, sizeof(a)));
	HF_CHECK_EQ(hf_stream_verify(a, sizeof(a), NULL), 0);
}

HF_TEST(st_pattern_check_finds_flips_cuts_and_other_frames)
{
	static u8 f[2048];
	u64 seq;

	hf_stream_fill(f, 5, sizeof(f), 0, sizeof(f));
	HF_CHECK_EQ(hf_stream_verify(f, sizeof(f), &seq), 0);
	HF_CHECK_EQ(seq, 5);
	HF_CHECK_EQ(hf_stream_verify(f, sizeof(f) - 1, NULL), -EBADMSG);
	f[1000] ^= 0x10;
	HF_CHECK_EQ(hf_stream_verify(f, sizeof(f), NULL), -EBADMSG);
	f[1000] ^= 0x10;
	f[0] = 6;		/* another sequence number, same bytes */
	HF_CHECK_EQ(hf_stream_verify(f, sizeof(f), NULL), -EBADMSG);
	HF_CHECK_EQ(hf_stream_verify(f, 8, NULL), -EBADMSG);
}

HF_TEST(st_pattern_record_lengths_stay_in_range_and_vary)
{
	u32 lo = ~0u, hi = 0;

	for (u64 s = 0; s < 1000; s++) {
		u32 l = hf_stream_rec_len(s, 100, 3000);

		HF_CHECK(l >= 100 && l <= 3000);
		lo = min(lo, l);
		hi = max(hi, l);
	}
	HF_CHECK(lo < 200 && hi > 2900);
	HF_CHECK_EQ(hf_stream_rec_len(9, 64, 64), 64);
	HF_CHECK_EQ(hf_stream_rec_len(9, 64, 16), 64);
}

/* The hash scales into the range by a multiply-high, as the RTL does. */
HF_TEST(st_pattern_record_length_is_a_multiply_high)
{
	for (u64 s = 0; s < 64; s++) {
		u32 h = hf_stream_mix((u32)s ^ hf_stream_mix(0x5bd1e995u));
		u64 range = (u64)HF_STREAM_MAX_LEN - 16 + 1;

		HF_CHECK_EQ(hf_stream_rec_len(s, 16, HF_STREAM_MAX_LEN),
			    16 + (u32)(((u64)h * range) >> 32));
	}
}

/* ---- identity and registers ---- */

HF_TEST(st_identifiers_say_stream)
{
	struct vhost v;

	st_open(&v, NULL);
	HF_CHECK_EQ(vh_rd(&v, XDMA_H2C_BASE(0)), 0x1fc08006);
	HF_CHECK_EQ(vh_rd(&v, XDMA_C2H_BASE(0)), 0x1fc18006);
	HF_CHECK_EQ(vh_rd(&v, XDMA_C2H_BASE(3)), 0x1fc18306);
	HF_CHECK_EQ(vh_rd(&v, XDMA_H2C_SGDMA_BASE(1)), 0x1fc48106);
	HF_CHECK_EQ(vh_rd(&v, XDMA_C2H_SGDMA_BASE(2)), 0x1fc58206);
	/* blocks that are not channels have no stream bit */
	HF_CHECK_EQ(vh_rd(&v, XDMA_IRQ_BASE) & XDMA_ID_STREAM, 0);
	vh_close(&v);
}

HF_TEST(st_mm_card_has_no_stream_bit_and_no_stream_blocks)
{
	struct xdma_model_counters c;
	struct vhost v;

	vh_open(&v, NULL, MIB, MEM);
	HF_CHECK_EQ(vh_rd(&v, XDMA_H2C_BASE(0)), 0x1fc00006);
	HF_CHECK_EQ(vh_rd(&v, XDMA_C2H_SGDMA_BASE(0)), 0x1fc50006);
	xdma_model_reset_counters(v.m);
	HF_CHECK_EQ(ur(&v, HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE), 0);
	HF_CHECK_EQ(ur(&v, HF_USER_ST_SINK(0) + HF_ST_SINK_FRAMES_OK), 0);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.guest_errors, 2);
	vh_close(&v);
}

HF_TEST(st_source_registers_reset_values_and_bad_lengths)
{
	struct xdma_model_counters c;
	struct vhost v;

	st_open(&v, NULL);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_FRAME_SIZE), 4096);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_REC_MIN), 64);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_REC_MAX), 4096);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_CTRL), 0);
	xdma_model_reset_counters(v.m);
	src_wr(&v, HF_ST_SRC_FRAME_SIZE, 15);		/* below the header */
	src_wr(&v, HF_ST_SRC_REC_MAX, 0x10000000);	/* above 28 bits */
	src_wr(&v, HF_ST_SRC_SENT, 1);			/* read-only */
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.guest_errors, 3);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_FRAME_SIZE), 4096);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_REC_MAX), 4096);
	src_wr(&v, HF_ST_SRC_CTRL, 0xffffffff);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_CTRL), 0xf0f);
	/* channel 4 does not exist */
	xdma_model_reset_counters(v.m);
	HF_CHECK_EQ(ur(&v, HF_USER_ST_SRC(4)), 0);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.guest_errors, 1);
	vh_close(&v);
}

/* ---- C2H stream ---- */

HF_TEST(st_c2h_frames_into_a_chain_with_writebacks)
{
	struct vhost v;

	st_open(&v, NULL);
	c2h_chain(&v, 4, 4096, false);
	src_frames(&v, 1000, 4, 0, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK(!vh_busy(&v, true, 0));
	HF_CHECK_EQ(completed(&v, true), 4);
	HF_CHECK(status(&v, true) & XDMA_STAT_DESC_STOPPED);
	for (u32 i = 0; i < 4; i++) {
		check_wb(&v, i, 1000, true);
		check_frame(&v, slot(&v, i, 4096), 1000, i);
	}
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_SENT), 4);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_BYTES_LO), 4000);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_SEQ_LO), 4);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_STATUS), HF_ST_SRC_STS_DONE);
	vh_close(&v);
}

HF_TEST(st_c2h_frame_longer_than_a_descriptor_continues_in_the_next)
{
	static u8 frame[10000];
	struct vhost v;

	st_open(&v, NULL);
	c2h_chain(&v, 3, 4096, false);
	src_frames(&v, sizeof(frame), 1, 0, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK_EQ(completed(&v, true), 3);
	check_wb(&v, 0, 4096, false);
	check_wb(&v, 1, 4096, false);
	check_wb(&v, 2, 10000 - 8192, true);
	memcpy(frame, slot(&v, 0, 4096), sizeof(frame));
	check_frame(&v, frame, sizeof(frame), 0);
	vh_close(&v);
}

HF_TEST(st_c2h_records_vary_in_length)
{
	struct vhost v;
	bool differ = false;

	st_open(&v, NULL);
	c2h_chain(&v, 8, 4096, false);
	src_wr(&v, HF_ST_SRC_REC_MIN, 100);
	src_wr(&v, HF_ST_SRC_REC_MAX, 3000);
	src_frames(&v, 4096, 8, 0, HF_ST_SRC_CTRL_RECORDS);
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK_EQ(completed(&v, true), 8);
	for (u32 i = 0; i < 8; i++) {
		u32 len = hf_stream_rec_len(i, 100, 3000);

		check_wb(&v, i, len, true);
		check_frame(&v, slot(&v, i, 4096), len, i);
		differ |= len != hf_stream_rec_len(0, 100, 3000);
	}
	HF_CHECK(differ);
	vh_close(&v);
}

HF_TEST(st_c2h_writeback_disable_bit_writes_none)
{
	struct vhost v;

	st_open(&v, NULL);
	c2h_chain(&v, 2, 4096, false);
	src_frames(&v, 600, 2, 0, 0);
	vh_start(&v, true, 0, 0, RUN_IE | XDMA_CTRL_STM_WB_DISABLE);
	HF_CHECK_EQ(completed(&v, true), 2);
	HF_CHECK(all_zero(v.mem + WBOFF, 2 * XDMA_STM_WB_SIZE));
	check_frame(&v, slot(&v, 1, 4096), 600, 1);
	vh_close(&v);
}

/* Credits for C2H0 (credit mode on). */
static void credits(struct vhost *v, u32 n)
{
	vh_wr(v, XDMA_C2H_SGDMA_BASE(0) + XDMA_SGDMA_DESC_CREDITS, n);
}

HF_TEST(st_c2h_cyclic_ring_with_credits_wraps_with_every_frame_good)
{
	const u32 n = 4, len = 512;
	struct vhost v;

	st_open(&v, NULL);
	c2h_chain(&v, n, len, true);
	vh_wr(&v, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT_W1S,
	      XDMA_SGDMA_CREDIT_C2H(0));
	src_frames(&v, len, 0, 0, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	/* no credits: busy, nothing taken */
	HF_CHECK(vh_busy(&v, true, 0));
	HF_CHECK_EQ(completed(&v, true), 0);
	for (u32 round = 0; round < 5; round++) {
		for (u32 i = 0; i < n; i++) {
			credits(&v, 1);
			HF_CHECK_EQ(completed(&v, true), round * n + i + 1);
			check_wb(&v, i, len, true);
			check_frame(&v, slot(&v, i, len), len, round * n + i);
		}
		HF_CHECK_EQ(vh_rd(&v, XDMA_C2H_SGDMA_BASE(0) +
				  XDMA_SGDMA_DESC_CREDITS), 0);
	}
	credits(&v, 3);		/* three at once */
	HF_CHECK_EQ(completed(&v, true), 23);
	check_frame(&v, slot(&v, 2, len), len, 22);
	HF_CHECK(vh_busy(&v, true, 0));
	vh_wr(&v, vh_chan(true, 0, XDMA_CHAN_CONTROL), XDMA_CTRL_IE_ALL);
	HF_CHECK(!vh_busy(&v, true, 0));
	HF_CHECK(status(&v, true) & XDMA_STAT_IDLE_STOPPED);
	vh_close(&v);
}

HF_TEST(st_credits_need_credit_mode_and_clear_when_run_falls)
{
	u32 cr = XDMA_C2H_SGDMA_BASE(0) + XDMA_SGDMA_DESC_CREDITS;
	struct vhost v;

	st_open(&v, NULL);
	credits(&v, 5);
	HF_CHECK_EQ(vh_rd(&v, cr), 0);
	vh_wr(&v, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT_W1S,
	      XDMA_SGDMA_CREDIT_C2H(0));
	credits(&v, 5);
	credits(&v, 0x3ff);
	HF_CHECK_EQ(vh_rd(&v, cr), 0x3ff);	/* adds, saturates */
	c2h_chain(&v, 4, 512, true);
	vh_start(&v, true, 0, 0, RUN_IE);
	vh_wr(&v, vh_chan(true, 0, XDMA_CHAN_CONTROL), 0);
	HF_CHECK_EQ(vh_rd(&v, cr), 0);
	credits(&v, 7);
	vh_wr(&v, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CREDIT_W1C,
	      XDMA_SGDMA_CREDIT_C2H(0));
	HF_CHECK_EQ(vh_rd(&v, cr), 0);
	vh_close(&v);
}

HF_TEST(st_c2h_backpressure_delays_frames_and_loses_none)
{
	const u32 len = 256;
	struct vhost v;
	u64 t0;

	st_open(&v, NULL);
	c2h_chain(&v, 4, len, false);
	t0 = v.now;
	src_frames(&v, len, 0, 10 * US, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK_EQ(vh_until_idle(&v, true, 0, t0 + 100 * US), t0 + 30 * US);
	vh_until(&v, t0 + 1000 * US);		/* 97 frames' time */
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_DROPPED), 0);
	restart(&v, true, 0);
	vh_until_idle(&v, true, 0, t0 + 2000 * US);
	for (u32 i = 0; i < 4; i++)
		check_frame(&v, slot(&v, i, len), len, 4 + i);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_SENT), 8);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_DROPPED), 0);
	vh_close(&v);
}

HF_TEST(st_c2h_drop_mode_counts_what_the_sequence_skips)
{
	const u32 len = 256;
	struct vhost v;
	u64 t0, gaps = 0, prev;

	st_open(&v, NULL);
	c2h_chain(&v, 8, len, false);
	/* the first run takes 4 frames, then stops */
	vh_desc(&v, 3, XDMA_DESC_CTRL_STOP, len, wb_bus(3),
		VH_BUS + DATA + 3 * len, vh_desc_bus(4));
	t0 = v.now;
	src_frames(&v, len, 0, 10 * US, HF_ST_SRC_CTRL_DROP);
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK_EQ(vh_until_idle(&v, true, 0, t0 + 100 * US), t0 + 30 * US);
	vh_until(&v, t0 + 1000 * US);
	/* frame 4 waits in the source, 5..99 came meanwhile */
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_DROPPED), 95);
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_STATUS),
		    HF_ST_SRC_STS_ACTIVE | HF_ST_SRC_STS_HOLDING);
	restart(&v, true, 4);
	vh_until_idle(&v, true, 0, t0 + 2000 * US);
	prev = seq_at(&v, 0, len);
	HF_CHECK_EQ(prev, 0);
	for (u32 i = 1; i < 8; i++) {
		u64 s = seq_at(&v, i, len);

		check_frame(&v, slot(&v, i, len), len, s);
		HF_CHECK(s > prev);
		gaps += s - prev - 1;
		prev = s;
	}
	HF_CHECK_EQ(prev, 102);
	HF_CHECK_EQ(gaps, src_rd(&v, HF_ST_SRC_DROPPED));
	HF_CHECK_EQ(src_rd(&v, HF_ST_SRC_SENT), 8);
	vh_close(&v);
}

HF_TEST(st_c2h_frames_come_at_the_interval_on_the_link_model)
{
	const u32 len = 4096, ival = 100 * US;
	struct vhost v;
	u64 t0, tk, tl;

	st_open(&v, &gen1x1);
	tl = (u64)((double)len / xdma_link_gbps(&gen1x1) + 0.5);
	c2h_chain(&v, 8, len, false);
	t0 = v.now;
	src_frames(&v, len, 8, ival, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	for (u32 k = 1; k < 8; k++) {
		tk = t0 + k * ival + tl;
		vh_until(&v, tk - 1);
		HF_CHECK_MSG(src_rd(&v, HF_ST_SRC_SENT) == k,
			     "frame %u early: %u sent", k,
			     src_rd(&v, HF_ST_SRC_SENT));
		vh_until(&v, tk);
		HF_CHECK_MSG(src_rd(&v, HF_ST_SRC_SENT) == k + 1,
			     "frame %u late: %u sent", k,
			     src_rd(&v, HF_ST_SRC_SENT));
		HF_CHECK_EQ(completed(&v, true), k + 1);
	}
	HF_CHECK(!vh_busy(&v, true, 0));
	for (u32 i = 0; i < 8; i++)
		check_frame(&v, slot(&v, i, len), len, i);
	vh_close(&v);
}

HF_TEST(st_c2h_frames_come_at_the_interval_without_a_link_model)
{
	const u32 len = 300, ival = 7 * US;
	struct vhost v;
	u64 t0;

	st_open(&v, NULL);
	c2h_chain(&v, 6, 4096, false);
	t0 = v.now;
	src_frames(&v, len, 0, ival, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	for (u32 k = 1; k < 6; k++) {
		vh_until(&v, t0 + k * ival - 1);
		HF_CHECK_EQ(completed(&v, true), k);
		vh_until(&v, t0 + k * ival);
		HF_CHECK_EQ(completed(&v, true), k + 1);
	}
	vh_close(&v);
}

HF_TEST(st_c2h_user_interrupt_at_frame_end)
{
	struct vhost v;

	st_open(&v, NULL);
	c2h_chain(&v, 3, 4096, false);
	vh_wr(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S, BIT(5));
	vh_wr(&v, XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(5), 9 << 8);
	src_frames(&v, 2000, 0, 10 * US,
		   HF_ST_SRC_CTRL_IRQ | 5 << HF_ST_SRC_CTRL_IRQ_SHIFT);
	vh_start(&v, true, 0, 0, XDMA_CTRL_RUN);
	HF_CHECK_EQ(completed(&v, true), 1);
	HF_CHECK_EQ(ur(&v, HF_USER_IRQ_REQ), BIT(5));
	HF_CHECK_EQ(v.msis, 1);
	uw(&v, HF_USER_IRQ_CLEAR, BIT(5));
	vh_until(&v, v.now + 10 * US);
	HF_CHECK_EQ(completed(&v, true), 2);
	HF_CHECK_EQ(v.msis, 2);
	HF_CHECK_EQ(v.last_msi, v.now);
	vh_close(&v);
}

HF_TEST(st_c2h_run_clear_while_waiting_for_data_stops_the_engine)
{
	struct vhost v;

	st_open(&v, NULL);
	c2h_chain(&v, 2, 4096, false);
	vh_start(&v, true, 0, 0, RUN_IE);	/* the source is off */
	HF_CHECK(vh_busy(&v, true, 0));
	vh_wr(&v, vh_chan(true, 0, XDMA_CHAN_CONTROL), XDMA_CTRL_IE_ALL);
	HF_CHECK(!vh_busy(&v, true, 0));
	HF_CHECK_EQ(completed(&v, true), 0);
	HF_CHECK(status(&v, true) & XDMA_STAT_IDLE_STOPPED);
	HF_CHECK(all_zero(v.mem + WBOFF, XDMA_STM_WB_SIZE));
	vh_close(&v);
}

HF_TEST(st_c2h_mm_style_descriptor_fails_cleanly)
{
	struct xdma_model_counters c;
	struct vhost v;

	st_open(&v, NULL);
	/* an MM read: the source field is a card address, no bus memory */
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, 4096, 0x1000, VH_BUS + DATA, 0);
	src_frames(&v, 512, 0, 0, 0);
	vh_start(&v, true, 0, 0, RUN_IE);
	HF_CHECK(!vh_busy(&v, true, 0));
	HF_CHECK_EQ(FIELD_GET(XDMA_STAT_READ_ERROR, status(&v, true)),
		    XDMA_C2H_READ_ERR_SLAVE);
	HF_CHECK_EQ(completed(&v, true), 0);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.dma_errors, 1);
	HF_CHECK_EQ(c.errors, 1);
	vh_close(&v);
}

/* ---- H2C stream ---- */

HF_TEST(st_h2c_sink_counts_good_and_corrupt_frames)
{
	u32 lens[4] = { 800, 5000, 700, 600 };
	u32 off = 0, d = 0;
	struct vhost v;
	u8 *p = NULL;

	st_open(&v, NULL);
	for (u32 f = 0; f < 4; f++) {
		p = v.mem + H2CDATA + off;
		hf_stream_fill(p, f, lens[f], 0, lens[f]);
		if (f == 2)
			p[500] ^= 1;		/* corrupt */
		if (f == 1) {		/* across two descriptors */
			vh_desc(&v, d, 0, 4096, VH_BUS + H2CDATA + off,
				0xdead0000, vh_desc_bus(d + 1));
			d++;
			vh_desc(&v, d, XDMA_DESC_CTRL_EOP, lens[f] - 4096,
				VH_BUS + H2CDATA + off + 4096, 0,
				vh_desc_bus(d + 1));
		} else {
			vh_desc(&v, d, XDMA_DESC_CTRL_EOP, lens[f],
				VH_BUS + H2CDATA + off, 0, vh_desc_bus(d + 1));
		}
		d++;
		off += lens[f];
	}
	/* frame 3 cut short: its last descriptor ends it early */
	vh_desc(&v, d - 1, XDMA_DESC_CTRL_EOP | XDMA_DESC_CTRL_STOP, 300,
		VH_BUS + H2CDATA + off - 600, 0, 0);
	vh_start(&v, false, 0, 0, RUN_IE);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(completed(&v, false), d);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_FRAMES_OK), 2);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_FRAMES_BAD), 2);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_BYTES_LO), 800 + 5000 + 700 + 300);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_LAST_SEQ_LO), 1);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_PARTIAL), 0);
	uw(&v, HF_USER_ST_SINK(0) + HF_ST_SINK_CTRL, HF_ST_SINK_CTRL_CLEAR);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_FRAMES_OK), 0);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_BYTES_LO), 0);
	vh_close(&v);
}

/*
 * LOOPBACK (version 1.2): two packets streamed out of H2C channel 0 come
 * back on C2H channel 0 unchanged, each ended by TLAST (EOP in the C2H
 * writeback), the second larger than the loopback FIFO: the H2C engine is
 * back-pressured until the C2H engine takes, and finishes.  The sink sees
 * none of it.  Without and with a link model.
 */
static const struct loop_row {
	const char *name;
	const struct xdma_link *link;
} loop_rows[] = {
	{ "no_link", NULL },
	{ "gen1x1", &gen1x1 },
};

static void loopback(const void *row)
{
	const struct loop_row *r = row;
	static const u32 lens[2] = { 5000, 40000 };
	struct vhost v;
	u32 d = 0;

	st_open(&v, r->link);
	HF_CHECK_EQ(ur(&v, HF_USER_VERSION), HF_USER_VERSION_LOOPBACK);
	uw(&v, HF_USER_LOOPBACK, 0x1);
	HF_CHECK_EQ(ur(&v, HF_USER_LOOPBACK), 0x1);
	for (u32 i = 0; i < 45000; i++)
		v.mem[H2CDATA + i] = (u8)(i * 7 + i / 251);
	/* C2H: descriptors 0..11 of 4 KiB; H2C: 16.. (one per packet) */
	for (d = 0; d < 12; d++)
		vh_desc(&v, d, d == 11 ? XDMA_DESC_CTRL_STOP : 0, 4096,
			wb_bus(d), VH_BUS + DATA + d * 4096,
			vh_desc_bus(d + 1));
	vh_desc(&v, 16, XDMA_DESC_CTRL_EOP, lens[0], VH_BUS + H2CDATA, 0,
		vh_desc_bus(17));
	vh_desc(&v, 17, XDMA_DESC_CTRL_EOP | XDMA_DESC_CTRL_STOP, lens[1],
		VH_BUS + H2CDATA + lens[0], 0, 0);
	vh_start(&v, false, 0, 16, RUN_IE);
	vh_until(&v, v.now + 100000 * US);
	HF_CHECK(vh_busy(&v, false, 0));	/* the FIFO is full */
	vh_start(&v, true, 0, 0, RUN_IE);
	vh_until(&v, v.now + 100000 * US);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(completed(&v, false), 2);
	/* packet 0: descriptors 0 (4096) and 1 (904, EOP) */
	HF_CHECK_EQ(wb_word(&v, 0, 1), 4096);
	HF_CHECK(!(wb_word(&v, 0, 0) & XDMA_STM_WB_EOP));
	HF_CHECK_EQ(wb_word(&v, 1, 1), 904);
	HF_CHECK(wb_word(&v, 1, 0) & XDMA_STM_WB_EOP);
	/* packet 1: descriptors 2..11: 9 * 4096 + 3136, EOP on the last */
	HF_CHECK_EQ(wb_word(&v, 11, 1), 40000 - 9 * 4096);
	HF_CHECK(wb_word(&v, 11, 0) & XDMA_STM_WB_EOP);
	HF_CHECK(!memcmp(v.mem + DATA, v.mem + H2CDATA, 5000));
	HF_CHECK(!memcmp(v.mem + DATA + 2 * 4096, v.mem + H2CDATA + 5000,
			 40000));
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_BYTES_LO), 0);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_FRAMES_OK) +
		    sink_rd(&v, HF_ST_SINK_FRAMES_BAD), 0);
	vh_close(&v);
}
HF_TEST_ROWS(st_loopback_returns_h2c_packets_on_c2h, loop_rows, loopback);

HF_TEST(st_h2c_frame_without_eop_stays_partial)
{
	struct vhost v;

	st_open(&v, &gen1x1);
	hf_stream_fill(v.mem + H2CDATA, 3, 20000, 0, 20000);
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, 12000, VH_BUS + H2CDATA, 0, 0);
	vh_start(&v, false, 0, 0, RUN_IE);
	HF_CHECK(vh_until_idle(&v, false, 0, v.now + 1000 * US));
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_PARTIAL), 12000);
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP | XDMA_DESC_CTRL_EOP, 8000,
		VH_BUS + H2CDATA + 12000, 0, 0);
	restart(&v, false, 0);
	HF_CHECK(vh_until_idle(&v, false, 0, v.now + 1000 * US));
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_EQ(sink_rd(&v, HF_ST_SINK_LAST_SEQ_LO), 3);
	vh_close(&v);
}
