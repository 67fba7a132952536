// SPDX-License-Identifier: MIT
/*
 * test_model_time.c - time in the card model, on a host with virtual time
 * (vhost.h): the link model (progressive data at the link's rate, one link
 * per direction shared by the engines, descriptor fetch and desc_ns), the
 * stop rule of PG195's Run bit and of the SGDMA halt bit (the current
 * descriptor is finished, late interrupt and writeback), a start while
 * still busy, reset in the middle of a descriptor, and the fast path
 * without a link model.
 */
#include "vhost.h"

#define MIB		(1u << 20)
#define KIB		(1u << 10)
#define DDR		(4 * MIB)
#define MEM		(8 * MIB)
#define SRC		(1 * MIB)	/* bus memory offset of H2C data */
#define DST		(4 * MIB)	/* bus memory offset of C2H data */
#define WB		(4096 - 64)	/* bus memory offset of a writeback word */
#define RUN_IE		(XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL)

static const struct xdma_link gen1x1 = {
	.gen = 1, .lanes = 1, .mps = 256, .desc_ns = 1000,
};

/* Link time of @bytes on gen1x1, ns (the model's own formula). */
static u64 t_link(u64 bytes)
{
	return (u64)((double)bytes / xdma_link_gbps(&gen1x1) + 0.5);
}

/* Bus memory [@off, @off + @len) gets bytes that are never 0. */
static void fill_nz(struct vhost *v, u64 off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		v->mem[off + i] = (u8)(i % 251 + 1);
}

static bool all_5a(const u8 *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != 0x5a)
			return false;
	return true;
}

static u8 *card(struct vhost *v, u64 addr)
{
	return (u8 *)xdma_model_card_mem(v->m) + addr;
}

static u32 status(struct vhost *v, bool c2h)
{
	return vh_rd(v, vh_chan(c2h, 0, XDMA_CHAN_STATUS));
}

static u32 completed(struct vhost *v, bool c2h)
{
	return vh_rd(v, vh_chan(c2h, 0, XDMA_CHAN_COMPLETED_DESC));
}

/*
 * H2C0: descriptor 0 moves @len bytes from SRC to card 0 with @flags0;
 * descriptor 1 (Stop) 4 KiB to card 2 MiB; started at v->now.
 */
static u64 h2c_chain(struct vhost *v, u32 len, u32 flags0)
{
	fill_nz(v, SRC, len);
	vh_desc(v, 0, flags0, len, VH_BUS + SRC, 0, vh_desc_bus(1));
	vh_desc(v, 1, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + SRC, 2 * MIB, 0);
	vh_start(v, false, 0, 0, RUN_IE);
	return v->now;
}

/* A Gen1 x1 card running h2c_chain(); returns when it started. */
static u64 gen1x1_h2c_chain(struct vhost *v, u32 len, u32 flags0)
{
	vh_open(v, &gen1x1, DDR, MEM);
	return h2c_chain(v, len, flags0);
}

/* ---- the link model ---- */

/*
 * Let time pass until H2C0 and engine (@c2h, @ch) are idle (before
 * @limit); *@e0 and *@e1 get the times each went idle.
 */
static void both_idle(struct vhost *v, bool c2h, u32 ch, u64 limit, u64 *e0,
		      u64 *e1)
{
	u64 next;

	for (*e0 = *e1 = 0; !*e0 || !*e1;) {
		next = vh_next(v);
		HF_CHECK(next && next < limit);
		vh_until(v, next);
		if (!*e0 && !vh_busy(v, false, 0))
			*e0 = v->now;
		if (!*e1 && !vh_busy(v, c2h, ch))
			*e1 = v->now;
	}
}

HF_TEST(link_data_lands_progressively_at_the_link_rate)
{
	double rate = xdma_link_gbps(&gen1x1);
	struct vhost v;
	u64 t0, t;
	size_t got, prev = 0;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	for (int k = 1; k < 8; k++) {
		t = t0 + k * t_link(MIB) / 8;
		vh_until(&v, t);
		got = vh_landed(card(&v, 0), MIB);
		HF_CHECK_MSG(got % 256 == 0, "%zu bytes at %d/8", got, k);
		HF_CHECK_MSG(got > prev && got < MIB, "%zu bytes at %d/8", got,
			     k);
		/* never ahead of the link, at most a slice behind it */
		HF_CHECK_MSG(got <= (t - t0) * rate, "%zu bytes at %d/8", got,
			     k);
		HF_CHECK_MSG(got + 16 * KIB >= (t - t0 - 2000) * rate,
			     "%zu bytes at %d/8", got, k);
		HF_CHECK(vh_busy(&v, false, 0));
		HF_CHECK_EQ(completed(&v, false), 0);
		prev = got;
	}
	vh_close(&v);
}

HF_TEST(link_descriptor_takes_fetch_desc_ns_and_data_time)
{
	struct vhost v;
	u64 t0, end, want;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	end = vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB));
	want = t_link(XDMA_DESC_SIZE) + gen1x1.desc_ns + t_link(MIB);
	HF_CHECK_MSG(end >= t0 + want - 100 && end <= t0 + want + 100,
		     "took %llu ns, want %llu", (unsigned long long)(end - t0),
		     (unsigned long long)want);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	vh_close(&v);
}

HF_TEST(link_late_host_lands_what_is_due_in_one_access)
{
	struct vhost v;
	unsigned int reads;
	u64 t0;
	size_t got;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	reads = v.reads;		/* the descriptor fetch is done */
	vh_jump(&v, t0 + t_link(MIB) / 2);
	got = vh_landed(card(&v, 0), MIB);
	HF_CHECK_EQ(v.reads, reads + 1);
	HF_CHECK_MSG(got > MIB / 2 - 16 * KIB && got <= MIB / 2,
		     "%zu bytes", got);
	vh_close(&v);
}

HF_TEST(link_wakes_per_slice_not_per_payload)
{
	struct vhost v;
	u64 t0;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	HF_CHECK(vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB)));
	/* 4096 payloads of 256 bytes: one wake-up (and access) per slice */
	HF_CHECK_MSG(v.schedules >= 8 && v.schedules <= MIB / 8192,
		     "%u wake-ups", v.schedules);
	HF_CHECK_MSG(v.reads <= v.schedules + 2, "%u reads, %u wake-ups",
		     v.reads, v.schedules);
	vh_close(&v);
}

/*
 * 200 descriptors of 4 KiB (19 us each at Gen1 x1): the engine does not
 * run for each (wake-ups SLICE_NS apart), the chain keeps the link's rate,
 * and the Stop descriptor that ends it is on time within a slice.
 */
HF_TEST(link_short_descriptors_share_wake_ups)
{
	u64 t0, end, want = 0;
	struct vhost v;
	u32 i, n = 200;

	vh_open(&v, &gen1x1, DDR, MEM);
	fill_nz(&v, SRC, n * 4096);
	for (i = 0; i < n; i++) {
		vh_desc(&v, i, i == n - 1 ? XDMA_DESC_CTRL_STOP : 0, 4096,
			VH_BUS + SRC + i * 4096, i * 4096, vh_desc_bus(i + 1));
		want += t_link(XDMA_DESC_SIZE) + gen1x1.desc_ns +
			t_link(4096);
	}
	t0 = v.now;
	vh_start(&v, false, 0, 0, RUN_IE);
	end = vh_until_idle(&v, false, 0, t0 + 10 * want);
	HF_CHECK_MSG(end >= t0 + want - 200 && end <= t0 + want + 60000,
		     "took %llu ns, the link %llu", (unsigned long long)(end - t0),
		     (unsigned long long)want);
	HF_CHECK_MSG(v.schedules <= want / 50000 + 4, "%u wake-ups for %u",
		     v.schedules, n);
	HF_CHECK_EQ(completed(&v, false), n);
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, n * 4096));
	vh_close(&v);
}

HF_TEST(link_is_shared_by_the_engines_of_one_direction)
{
	struct vhost v;
	u64 t0, e0, e1, one = t_link(512 * KIB);

	vh_open(&v, &gen1x1, DDR, MEM);
	fill_nz(&v, SRC, MIB);
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, 512 * KIB, VH_BUS + SRC, 0, 0);
	vh_desc(&v, 1, XDMA_DESC_CTRL_STOP, 512 * KIB,
		VH_BUS + SRC + 512 * KIB, MIB, 0);
	t0 = v.now;
	vh_start(&v, false, 0, 0, RUN_IE);
	vh_start(&v, false, 1, 1, RUN_IE);
	both_idle(&v, false, 1, t0 + 10 * one, &e0, &e1);
	/* each took about twice as long as alone: the link carried both */
	HF_CHECK_MSG(e0 - t0 >= one * 19 / 10 && e1 - t0 >= one * 19 / 10,
		     "%llu and %llu ns, one alone %llu",
		     (unsigned long long)(e0 - t0),
		     (unsigned long long)(e1 - t0), (unsigned long long)one);
	vh_close(&v);
}

HF_TEST(link_directions_are_independent)
{
	struct vhost v;
	u64 t0, eh, ec, one = t_link(512 * KIB);

	vh_open(&v, &gen1x1, DDR, MEM);
	fill_nz(&v, SRC, 512 * KIB);
	memset(card(&v, MIB), 0x5a, 512 * KIB);
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, 512 * KIB, VH_BUS + SRC, 0, 0);
	vh_desc(&v, 1, XDMA_DESC_CTRL_STOP, 512 * KIB, MIB, VH_BUS + DST, 0);
	t0 = v.now;
	vh_start(&v, false, 0, 0, RUN_IE);
	vh_start(&v, true, 0, 1, RUN_IE);
	both_idle(&v, true, 0, t0 + 10 * one, &eh, &ec);
	/* full duplex: each as fast as alone (plus a fetch or two) */
	HF_CHECK_MSG(eh - t0 <= one + 10000 && ec - t0 <= one + 10000,
		     "H2C %llu, C2H %llu ns, one alone %llu",
		     (unsigned long long)(eh - t0),
		     (unsigned long long)(ec - t0), (unsigned long long)one);
	HF_CHECK(all_5a(v.mem + DST, 512 * KIB));
	vh_close(&v);
}

HF_TEST(link_mps_is_what_the_config_block_reports)
{
	struct xdma_link l = gen1x1;
	struct vhost v;

	l.mps = 512;
	vh_open(&v, &l, DDR, MEM);
	HF_CHECK_EQ(vh_rd(&v, XDMA_CONFIG_BASE + XDMA_CFG_MAX_PAYLOAD), 2);
	vh_close(&v);
	vh_open(&v, NULL, DDR, MEM);
	HF_CHECK_EQ(vh_rd(&v, XDMA_CONFIG_BASE + XDMA_CFG_MAX_PAYLOAD), 1);
	vh_close(&v);
}

HF_TEST(bad_link_configuration_is_refused)
{
	static const struct xdma_link bad[] = {
		{ .gen = 6, .lanes = 1, .mps = 256 },
		{ .gen = 3, .lanes = 3, .mps = 256 },
		{ .gen = 3, .lanes = 32, .mps = 256 },
		{ .gen = 3, .lanes = 8, .mps = 100 },
		{ .gen = 3, .lanes = 8, .mps = 8192 },
		{ .gen = 3, .lanes = 8, .mps = 256, .desc_ns = 2000000000 },
	};
	struct xdma_model_config cfg = { .ddr_size = DDR };
	struct xdma_model *m = NULL;
	struct vhost v = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cfg.link = bad[i];
		HF_CHECK_MSG(xdma_model_create(&cfg, &vh_ops, &v, &m) == -EINVAL,
			     "link %zu accepted", i);
	}
}

HF_TEST(host_without_a_clock_is_refused)
{
	struct xdma_model_host_ops ops = vh_ops;
	struct xdma_model *m = NULL;
	struct vhost v = { 0 };

	ops.now_ns = NULL;
	HF_CHECK_ERR(xdma_model_create(NULL, &ops, &v, &m), -EINVAL);
	ops = vh_ops;
	ops.schedule = NULL;
	HF_CHECK_ERR(xdma_model_create(NULL, &ops, &v, &m), -EINVAL);
}

/* ---- stopping: the current descriptor is finished ---- */

/* At @t (time passing until then), H2C0's Run bit is cleared. */
static void clear_run_at(struct vhost *v, u64 t)
{
	vh_until(v, t);
	vh_wr(v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
}

HF_TEST(run_clear_mid_descriptor_keeps_busy_until_it_ends)
{
	struct vhost v;
	u64 t0, end;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_COMPLETED);
	clear_run_at(&v, t0 + t_link(MIB) / 4);
	HF_CHECK(vh_busy(&v, false, 0));
	vh_until(&v, t0 + t_link(MIB) * 3 / 4);
	HF_CHECK(vh_busy(&v, false, 0));
	end = vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB));
	HF_CHECK(end >= t0 + t_link(MIB));
	HF_CHECK_EQ(status(&v, false),
		    XDMA_STAT_DESC_COMPLETED | XDMA_STAT_IDLE_STOPPED);
	vh_close(&v);
}

HF_TEST(run_clear_mid_descriptor_lands_all_of_it_and_counts_it)
{
	struct vhost v;
	u64 t0;

	t0 = gen1x1_h2c_chain(&v, MIB, 0);
	vh_until(&v, t0 + t_link(MIB) / 4);
	HF_CHECK(vh_landed(card(&v, 0), MIB) < MIB / 2);
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK(vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB)));
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	HF_CHECK_EQ(completed(&v, false), 1);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_IDLE_STOPPED);
	/* the next descriptor never started */
	HF_CHECK_EQ(vh_landed(card(&v, 2 * MIB), 4096), 0);
	vh_close(&v);
}

HF_TEST(run_clear_mid_descriptor_interrupt_comes_when_it_ends)
{
	struct vhost v;
	u64 t0, end;

	vh_open(&v, &gen1x1, DDR, MEM);
	vh_irqs(&v, false, 0, 4);
	t0 = h2c_chain(&v, MIB, XDMA_DESC_CTRL_COMPLETED);
	clear_run_at(&v, t0 + t_link(MIB) / 4);
	HF_CHECK_EQ(v.msis, 0);
	end = vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB));
	HF_CHECK(v.msis >= 1);
	HF_CHECK_EQ(v.last_msi, end);
	vh_close(&v);
}

HF_TEST(run_clear_mid_descriptor_writeback_comes_when_it_ends)
{
	struct vhost v;
	u32 wb;
	u64 t0;

	vh_open(&v, &gen1x1, DDR, MEM);
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_POLL_WB_LO),
	      lower_32_bits(VH_BUS + WB));
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_POLL_WB_HI),
	      upper_32_bits(VH_BUS + WB));
	fill_nz(&v, SRC, MIB);
	vh_desc(&v, 0, XDMA_DESC_CTRL_COMPLETED, MIB, VH_BUS + SRC, 0,
		vh_desc_bus(1));
	vh_desc(&v, 1, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + SRC, 2 * MIB, 0);
	t0 = v.now;
	vh_start(&v, false, 0, 0, RUN_IE | XDMA_CTRL_POLL_MODE_WB);
	clear_run_at(&v, t0 + t_link(MIB) / 4);
	memcpy(&wb, v.mem + WB, 4);
	HF_CHECK_EQ(wb, 0);
	HF_CHECK(vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB)));
	memcpy(&wb, v.mem + WB, 4);
	HF_CHECK_EQ(le32_to_cpu(wb), 1);	/* count 1, no error */
	vh_close(&v);
}

HF_TEST(halt_mid_descriptor_finishes_it_then_parks)
{
	struct vhost v;
	u64 t0;

	t0 = gen1x1_h2c_chain(&v, MIB, 0);
	vh_until(&v, t0 + t_link(MIB) / 4);
	vh_wr(&v, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1S,
	      XDMA_SGDMA_HALT_H2C(0));
	vh_until(&v, t0 + 2 * t_link(MIB));
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	HF_CHECK_EQ(completed(&v, false), 1);
	HF_CHECK(vh_busy(&v, false, 0));	/* halted, between descriptors */
	HF_CHECK_EQ(vh_landed(card(&v, 2 * MIB), 4096), 0);
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_IDLE_STOPPED);
	vh_close(&v);
}

HF_TEST(run_set_again_while_busy_starts_anew_after_the_descriptor)
{
	struct xdma_model_counters c;
	u32 sg = XDMA_H2C_SGDMA_BASE(0);
	struct vhost v;
	u64 t0;

	t0 = gen1x1_h2c_chain(&v, MIB, 0);
	vh_desc(&v, 2, XDMA_DESC_CTRL_STOP, 8192, VH_BUS + SRC, 3 * MIB, 0);
	clear_run_at(&v, t0 + t_link(MIB) / 4);
	vh_wr(&v, sg + XDMA_SGDMA_DESC_LO, lower_32_bits(vh_desc_bus(2)));
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1S), XDMA_CTRL_RUN);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.guest_errors, 1);		/* started while busy */
	HF_CHECK(vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB)));
	/* descriptor 0 finished, then the new run: descriptor 2 only */
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	HF_CHECK(!memcmp(card(&v, 3 * MIB), v.mem + SRC, 8192));
	HF_CHECK_EQ(vh_landed(card(&v, 2 * MIB), 4096), 0);
	HF_CHECK_EQ(completed(&v, false), 1);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_DESC_STOPPED);
	vh_close(&v);
}

HF_TEST(reset_mid_descriptor_cuts_it_short)
{
	struct vhost v;
	size_t got;
	u64 t0;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	vh_until(&v, t0 + t_link(MIB) / 2);
	xdma_model_reset(v.m);
	got = vh_landed(card(&v, 0), MIB);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK(got > 0 && got < MIB);
	/* the wake-up it had asked for comes and finds it idle */
	vh_until(&v, t0 + 2 * t_link(MIB));
	HF_CHECK_EQ(vh_landed(card(&v, 0), MIB), got);
	HF_CHECK_EQ(status(&v, false), 0);
	vh_close(&v);
}

/* ---- without a link model ---- */

HF_TEST(no_link_moves_a_descriptor_in_one_access_without_timers)
{
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	/* no time passed: done, one fetch and one data access */
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(v.reads, 2);
	HF_CHECK_EQ(v.schedules, 0);
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	vh_close(&v);
}

/* ---- the HANG fault ---- */

HF_TEST(hang_stops_progress_mid_descriptor)
{
	u64 t0, t1, d = 2 * t_link(MIB);
	struct vhost v;
	unsigned int reads;
	size_t got;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	vh_until(&v, t0 + t_link(MIB) / 4);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	vh_run(&v);
	t1 = v.now;
	got = vh_landed(card(&v, 0), MIB);
	reads = v.reads;
	HF_CHECK(got > 0 && got < MIB / 2);
	vh_until(&v, t1 + d - 1);
	HF_CHECK_EQ(vh_landed(card(&v, 0), MIB), got);
	HF_CHECK_EQ(v.reads, reads);
	HF_CHECK(vh_busy(&v, false, 0));
	HF_CHECK_EQ(completed(&v, false), 0);
	HF_CHECK(xdma_model_get_faults(v.m) & XDMA_FAULT_HANG);
	HF_CHECK_EQ(xdma_model_hang_left_ns(v.m), 1);
	vh_close(&v);
}

HF_TEST(hang_recovers_after_its_duration)
{
	u64 t0, t1, end, d = 2 * t_link(MIB);
	struct vhost v;

	t0 = gen1x1_h2c_chain(&v, MIB, XDMA_DESC_CTRL_STOP);
	vh_until(&v, t0 + t_link(MIB) / 4);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	vh_run(&v);
	t1 = v.now;
	end = vh_until_idle(&v, false, 0, t0 + 10 * d);
	/* the rest of the descriptor after the hang (give or take a slice) */
	HF_CHECK_MSG(end + 60000 >= t1 + d + t_link(MIB) * 3 / 4 &&
		     end <= t1 + d + t_link(MIB) * 3 / 4 + 120000,
		     "ended %llu ns after the hang began",
		     (unsigned long long)(end - t1));
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	HF_CHECK_EQ(xdma_model_get_faults(v.m) & XDMA_FAULT_HANG, 0);
	HF_CHECK_EQ(xdma_model_hang_left_ns(v.m), 0);
	vh_close(&v);
}

HF_TEST(hang_ignores_run_clear_until_it_ends)
{
	u64 t0, d = 2 * t_link(MIB);
	struct vhost v;

	t0 = gen1x1_h2c_chain(&v, MIB, 0);
	vh_until(&v, t0 + t_link(MIB) / 4);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	vh_until(&v, v.now + d / 2);
	HF_CHECK(vh_busy(&v, false, 0));
	HF_CHECK(vh_until_idle(&v, false, 0, t0 + 10 * d));
	/* after the hang: the current descriptor finished, then idle */
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, MIB));
	HF_CHECK_EQ(completed(&v, false), 1);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_IDLE_STOPPED);
	HF_CHECK_EQ(vh_landed(card(&v, 2 * MIB), 4096), 0);
	vh_close(&v);
}

HF_TEST(hang_holds_a_parked_engine_and_stops_it_after)
{
	u64 t0, d = 1000000;
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	vh_wr(&v, XDMA_SGDMA_COMMON_BASE + XDMA_SGDMA_COMMON_CTRL_W1S,
	      XDMA_SGDMA_HALT_H2C(0));
	t0 = h2c_chain(&v, 4096, XDMA_DESC_CTRL_STOP);
	HF_CHECK(vh_busy(&v, false, 0));	/* halted */
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK(vh_busy(&v, false, 0));	/* hung: Run clear noted */
	HF_CHECK_EQ(vh_until_idle(&v, false, 0, t0 + 10 * d), t0 + d);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_IDLE_STOPPED);
	HF_CHECK_EQ(completed(&v, false), 0);
	vh_close(&v);
}

HF_TEST(hang_without_link_holds_a_start_until_it_ends)
{
	u64 t0, d = 1000000;
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	t0 = h2c_chain(&v, 64 * KIB, XDMA_DESC_CTRL_STOP);
	HF_CHECK(vh_busy(&v, false, 0));
	HF_CHECK_EQ(v.reads, 0);		/* not even a fetch */
	HF_CHECK_EQ(vh_until_idle(&v, false, 0, t0 + 10 * d), t0 + d);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, 64 * KIB));
	vh_close(&v);
}

/* A hang limited to other engines leaves H2C0 alone: it finishes. */
HF_TEST(hang_of_other_engines_leaves_an_engine_working)
{
	u64 t0, d = 1000000;
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	/* engine 1 (H2C1) alone */
	xdma_model_set_hang_engines(v.m, BIT(1));
	HF_CHECK_EQ(xdma_model_get_hang_engines(v.m), BIT(1));
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	t0 = h2c_chain(&v, 64 * KIB, XDMA_DESC_CTRL_STOP);
	vh_run(&v);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK(v.now < t0 + d);
	HF_CHECK_EQ(status(&v, false), XDMA_STAT_DESC_STOPPED);
	HF_CHECK(!memcmp(card(&v, 0), v.mem + SRC, 64 * KIB));
	HF_CHECK(xdma_model_get_faults(v.m) & XDMA_FAULT_HANG);
	vh_close(&v);
}

/* A hang limited to H2C0 holds it as an unlimited one does; a reset keeps
 * the mask and stops the engine. */
HF_TEST(hang_of_one_engine_holds_it_and_survives_a_reset)
{
	u64 t0, d = 1000000;
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	xdma_model_set_hang_engines(v.m, BIT(0));
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	t0 = h2c_chain(&v, 64 * KIB, XDMA_DESC_CTRL_STOP);
	HF_CHECK(vh_busy(&v, false, 0));
	HF_CHECK_EQ(v.reads, 0);		/* not even a fetch */
	vh_until(&v, t0 + d / 2);
	HF_CHECK(vh_busy(&v, false, 0));
	xdma_model_reset(v.m);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(xdma_model_get_hang_engines(v.m), BIT(0));
	vh_close(&v);
}

HF_TEST(inject_keeps_a_hang_with_its_bit_and_ends_it_without)
{
	u64 t0, d = 1000000;
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, d), 0);
	t0 = h2c_chain(&v, 4096, XDMA_DESC_CTRL_STOP);
	xdma_model_inject(v.m, xdma_model_get_faults(v.m) |
			  XDMA_FAULT_LOST_IRQ);
	vh_run(&v);
	HF_CHECK_EQ(xdma_model_get_faults(v.m),
		    XDMA_FAULT_HANG | XDMA_FAULT_LOST_IRQ);
	HF_CHECK(vh_busy(&v, false, 0));
	vh_until(&v, t0 + d / 2);
	xdma_model_inject(v.m, 0);		/* ends the hang now */
	vh_run(&v);
	HF_CHECK(!vh_busy(&v, false, 0));
	HF_CHECK_EQ(xdma_model_get_faults(v.m), 0);
	vh_close(&v);
}

HF_TEST(inject_hang_zero_ends_it_and_too_long_is_refused)
{
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	HF_CHECK_ERR(xdma_model_inject_hang(v.m, XDMA_MODEL_MAX_HANG_NS + 1),
		     -EINVAL);
	HF_CHECK_EQ(xdma_model_get_faults(v.m), 0);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, 5000), 0);
	HF_CHECK_EQ(xdma_model_hang_left_ns(v.m), 5000);
	HF_CHECK_EQ(xdma_model_inject_hang(v.m, 0), 0);
	HF_CHECK_EQ(xdma_model_get_faults(v.m), 0);
	HF_CHECK_EQ(xdma_model_hang_left_ns(v.m), 0);
	vh_close(&v);
}

/* ---- failed bus accesses ---- */

HF_TEST(dma_errors_count_every_failed_bus_access)
{
	struct xdma_model_counters c;
	struct vhost v;

	vh_open(&v, NULL, DDR, MEM);
	/* a fetch from outside bus memory (bus address 0) */
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL), RUN_IE);
	/* data from a hole, then a writeback into it */
	v.hole = VH_BUS + SRC;
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + SRC, 0, 0);
	vh_start(&v, false, 1, 0, RUN_IE);
	vh_wr(&v, vh_chan(false, 2, XDMA_CHAN_POLL_WB_LO),
	      lower_32_bits(VH_BUS + SRC));
	vh_wr(&v, vh_chan(false, 2, XDMA_CHAN_POLL_WB_HI),
	      upper_32_bits(VH_BUS + SRC));
	vh_desc(&v, 1, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + 2 * MIB, 0, 0);
	vh_start(&v, false, 2, 1, RUN_IE | XDMA_CTRL_POLL_MODE_WB);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(v.faults, 3);
	HF_CHECK_EQ(c.dma_errors, 3);
	HF_CHECK_EQ(vh_rd(&v, vh_chan(false, 0, XDMA_CHAN_STATUS)),
		    FIELD_PREP(XDMA_STAT_DESC_ERROR, XDMA_DESC_ERR_UR));
	HF_CHECK_EQ(vh_rd(&v, vh_chan(false, 1, XDMA_CHAN_STATUS)),
		    FIELD_PREP(XDMA_STAT_READ_ERROR, XDMA_READ_ERR_UR));
	vh_close(&v);
}

/* H2C0 started on one 4 KiB descriptor with bus mastering off. */
static void bm_off_start(struct vhost *v)
{
	vh_open(v, NULL, DDR, MEM);
	vh_desc(v, 0, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + SRC, 0, 0);
	v->bm_off = true;
	vh_start(v, false, 0, 0, RUN_IE);
}

/* An engine started with bus mastering off waits at its fetch, busy. */
HF_TEST(fetch_waits_while_bus_mastering_is_off_then_goes_out)
{
	struct xdma_model_counters c;
	struct vhost v;

	bm_off_start(&v);
	vh_until(&v, v.now + 1000000);
	HF_CHECK(vh_busy(&v, false, 0));
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.desc_fetched, 0);
	HF_CHECK_EQ(c.dma_errors, 0);
	HF_CHECK(c.dma_blocked >= 1);
	/* turned on: the descriptor that waited is fetched and done */
	v.bm_off = false;
	xdma_model_bus_master(v.m, true);
	vh_run(&v);
	HF_CHECK(!vh_busy(&v, false, 0));
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.desc_fetched, 1);
	HF_CHECK_EQ(c.bytes_h2c, 4096);
	HF_CHECK_EQ(vh_rd(&v, vh_chan(false, 0, XDMA_CHAN_STATUS)),
		    XDMA_STAT_DESC_STOPPED);
	vh_close(&v);
}

/* Stopped before bus mastering comes back: it never fetches. */
HF_TEST(run_clear_stops_an_engine_waiting_for_bus_mastering)
{
	struct xdma_model_counters c;
	struct vhost v;

	bm_off_start(&v);
	HF_CHECK(vh_busy(&v, false, 0));
	vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C), XDMA_CTRL_RUN);
	HF_CHECK(!vh_busy(&v, false, 0));
	v.bm_off = false;
	xdma_model_bus_master(v.m, true);
	vh_run(&v);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.desc_fetched, 0);
	HF_CHECK_EQ(c.bytes_h2c, 0);
	HF_CHECK_EQ(v.reads, 0);
	vh_close(&v);
}

HF_TEST(link_data_fault_mid_descriptor_keeps_what_landed_before)
{
	struct xdma_model_counters c;
	struct vhost v;
	size_t got;
	u64 t0;

	vh_open(&v, &gen1x1, DDR, MEM);
	fill_nz(&v, SRC, MIB);
	v.hole = VH_BUS + SRC + MIB / 2;	/* "unmapped" half-way */
	vh_desc(&v, 0, XDMA_DESC_CTRL_STOP, MIB, VH_BUS + SRC, 0, 0);
	t0 = v.now;
	vh_start(&v, false, 0, 0, RUN_IE);
	HF_CHECK(vh_until_idle(&v, false, 0, t0 + 10 * t_link(MIB)));
	got = vh_landed(card(&v, 0), MIB);
	HF_CHECK_MSG(got > MIB / 2 - 16 * KIB && got <= MIB / 2, "%zu", got);
	HF_CHECK_EQ(status(&v, false),
		    FIELD_PREP(XDMA_STAT_READ_ERROR, XDMA_READ_ERR_UR));
	HF_CHECK_EQ(completed(&v, false), 0);
	xdma_model_get_counters(v.m, &c);
	HF_CHECK_EQ(c.dma_errors, 1);
	HF_CHECK_EQ(c.errors, 1);
	vh_close(&v);
}

/* Back-to-back runs of two short descriptors: each as fast as alone. */
HF_TEST(link_short_runs_back_to_back_are_not_held_back)
{
	u64 t0, end, want;
	struct vhost v;

	vh_open(&v, &gen1x1, DDR, MEM);
	fill_nz(&v, SRC, 8192);
	vh_desc(&v, 0, 0, 4096, VH_BUS + SRC, 0, vh_desc_bus(1));
	vh_desc(&v, 1, XDMA_DESC_CTRL_STOP, 4096, VH_BUS + SRC + 4096, 4096,
		0);
	want = 2 * (t_link(XDMA_DESC_SIZE) + gen1x1.desc_ns + t_link(4096));
	for (int run = 0; run < 3; run++) {
		vh_wr(&v, vh_chan(false, 0, XDMA_CHAN_CONTROL_W1C),
		      XDMA_CTRL_RUN);
		t0 = v.now;
		vh_start(&v, false, 0, 0, RUN_IE);
		end = vh_until_idle(&v, false, 0, t0 + 100 * want);
		HF_CHECK_MSG(end && end - t0 <= want + 100,
			     "run %d took %llu ns, the link %llu", run,
			     (unsigned long long)(end - t0),
			     (unsigned long long)want);
	}
	vh_close(&v);
}
