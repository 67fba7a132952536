// SPDX-License-Identifier: MIT
/*
 * test_rtl_vs_c.c - the reference design's two implementations side by
 * side: its behaviour in C (refdesign/hf_refdesign.c) and its RTL
 * (refdesign/rtl/, simulated by the Verilator plugin refdesign/sim/) get the
 * same register accesses, time and stream traffic through the ops of the
 * seam (model/xdma_user.h), as the XDMA IP's model would give them, and
 * must answer alike: every register, the usr_irq_req lines, the C2H byte
 * streams with their record ends, the H2C sinks' counts, the accesses each
 * calls undefined.  Random scenarios; the seed is printed, HF_RTL_SEED
 * repeats one.
 *
 * Where the two differ by design the test compares what must agree:
 *  - the RTL offers a record in pieces as its beats reach the IP's input
 *    buffer (xdma_user_rec.left), the C all of it at once: the streams are
 *    compared as bytes and record ends;
 *  - a source's frame ends, for the RTL, when its last beat enters that
 *    buffer, for the C when the engine takes the last byte: counters and
 *    lines are compared once the engines took everything (drained).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hf_os.h"
#include "hf_refdesign.h"
#include "hf_rtl_load.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "xdma_user.h"

#define CH		4	/* stream channels per direction */
#define STREAM_MAX	(1u << 20)	/* bytes of C2H stream compared */

/* One implementation under test, and what it produced. */
struct side {
	const char *name;
	const struct xdma_user_ops *ops;
	struct xdma_user *u;
	unsigned int errors;		/* guest_error() calls */
	u8 *c2h[CH];			/* the C2H streams, as taken */
	u32 c2h_n[CH];
	u32 ends[CH];			/* records ended */
	u32 end_sum[CH];		/* sum of the offsets of the ends */
};

static struct hf_rtl_plugin plugin;
static u64 now;
static u64 rng;
static u32 c2h_idle;	/* the C2H engines that take no data (advance) */

static void count_error(void *ctx, const char *fmt, ...)
{
	struct side *s = ctx;

	(void)fmt;
	s->errors++;
}

static u32 rnd(u32 n)	/* 0 .. n - 1 */
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (u32)((rng >> 33) % n);
}

static void seed_rng(const char *what)
{
	const char *env = getenv("HF_RTL_SEED");
	u64 seed = env && *env ? strtoull(env, NULL, 0) :
		   (u64)time(NULL) ^ (u64)getpid() << 16;

	rng = seed;
	hf_test_log("%s: seed %" PRIu64 " (HF_RTL_SEED=%" PRIu64
		    " repeats it)", what, seed, seed);
}

static void side_open(struct side *s, const char *name,
		      const struct xdma_user_ops *ops, bool st)
{
	struct xdma_user_config cfg = {
		.num_h2c = CH, .num_c2h = CH, .st = st, .ddr_size = 1ull << 30,
	};
	struct xdma_user_env env = { .ctx = s, .guest_error = count_error };

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->ops = ops;
	HF_CHECK_EQ(ops->create(&cfg, &env, &s->u), 0);
	for (u32 ch = 0; ch < CH; ch++) {
		s->c2h[ch] = malloc(STREAM_MAX);
		HF_CHECK(s->c2h[ch]);
	}
}

static void side_close(struct side *s)
{
	s->ops->destroy(s->u);
	for (u32 ch = 0; ch < CH; ch++)
		free(s->c2h[ch]);
}

/* Both sides, C first; skips without the plugin. */
static void open_both(struct side sd[2], bool st)
{
	char err[512];

	if (!plugin.ops && hf_rtl_load(&plugin, err, sizeof(err)))
		HF_SKIP("%s", err);
	now = 1000;
	c2h_idle = 0;
	side_open(&sd[0], "C", &hf_refdesign_user, st);
	side_open(&sd[1], "RTL", plugin.ops, st);
}

static void close_both(struct side sd[2])
{
	side_close(&sd[0]);
	side_close(&sd[1]);
}

/* ---- the ops, on both sides, as the IP calls them ---- */

/* A read on both; compared when @cmp. */
static u32 both_read_cmp(struct side sd[2], u32 off, bool cmp)
{
	u32 v[2];

	for (int i = 0; i < 2; i++) {
		sd[i].ops->advance(sd[i].u, now, c2h_idle);
		v[i] = sd[i].ops->reg_read(sd[i].u, off, now);
	}
	HF_CHECK_MSG(!cmp || v[0] == v[1], "read of 0x%04x at %" PRIu64
		     " ns: C 0x%08x, RTL 0x%08x", off, now, v[0], v[1]);
	return v[0];
}

static u32 both_read(struct side sd[2], u32 off)
{
	return both_read_cmp(sd, off, true);
}

static void both_write(struct side sd[2], u32 off, u32 val)
{
	for (int i = 0; i < 2; i++) {
		sd[i].ops->advance(sd[i].u, now, c2h_idle);
		sd[i].ops->reg_write(sd[i].u, off, val, now);
	}
}

static void check_lines(struct side sd[2], const char *when)
{
	u32 c = sd[0].ops->irq_lines(sd[0].u);
	u32 r = sd[1].ops->irq_lines(sd[1].u);

	HF_CHECK_MSG(c == r, "usr_irq_req %s: C 0x%04x, RTL 0x%04x", when, c,
		     r);
}

/*
 * The engine of C2H channel @ch takes what its source offers, in pieces of
 * at most @chunk bytes, until nothing is offered at @now.
 */
static void side_drain(struct side *s, u32 ch, u32 chunk)
{
	struct xdma_user_rec rec;
	u8 buf[4096];

	while (s->ops->st_peek(s->u, ch, now, &rec)) {
		u32 n = min_t(u32, min_t(u32, rec.left, chunk), sizeof(buf));
		u32 flags;

		HF_CHECK(rec.left > 0);
		s->ops->st_read(s->u, ch, 0, buf, n);
		if (s->c2h_n[ch] + n <= STREAM_MAX)
			memcpy(s->c2h[ch] + s->c2h_n[ch], buf, n);
		s->c2h_n[ch] += n;
		flags = s->ops->st_take(s->u, ch, n, now);
		if (flags & XDMA_USER_TLAST) {
			s->ends[ch]++;
			s->end_sum[ch] += s->c2h_n[ch];
		}
	}
}

static void check_streams(struct side sd[2])
{
	for (u32 ch = 0; ch < CH; ch++) {
		u32 n = min_t(u32, sd[0].c2h_n[ch], sd[1].c2h_n[ch]);

		HF_CHECK_MSG(sd[0].c2h_n[ch] == sd[1].c2h_n[ch],
			     "C2H %u: C sent %u bytes, RTL %u", ch,
			     sd[0].c2h_n[ch], sd[1].c2h_n[ch]);
		n = min_t(u32, n, STREAM_MAX);
		for (u32 i = 0; i < n; i++)
			if (sd[0].c2h[ch][i] != sd[1].c2h[ch][i]) {
				HF_CHECK_MSG(0, "C2H %u: byte %u: C 0x%02x, RTL 0x%02x",
					     ch, i, sd[0].c2h[ch][i],
					     sd[1].c2h[ch][i]);
				break;
			}
		HF_CHECK_MSG(sd[0].ends[ch] == sd[1].ends[ch] &&
			     sd[0].end_sum[ch] == sd[1].end_sum[ch],
			     "C2H %u: records ended: C %u, RTL %u (or elsewhere)",
			     ch, sd[0].ends[ch], sd[1].ends[ch]);
	}
}

/* Every register of the user BAR, read on both (SEQ and BYTES LO first). */
static void check_regs(struct side sd[2])
{
	static const u32 top[] = {
		HF_USER_ID, HF_USER_SCRATCH, HF_USER_IRQ_REQ,
		HF_USER_DDR_SIZE_MB,
	};
	static const u32 src[] = {
		HF_ST_SRC_CTRL, HF_ST_SRC_FRAME_SIZE, HF_ST_SRC_REC_MIN,
		HF_ST_SRC_REC_MAX, HF_ST_SRC_INTERVAL_NS, HF_ST_SRC_COUNT,
		HF_ST_SRC_SEQ_LO, HF_ST_SRC_SEQ_HI, HF_ST_SRC_SENT,
		HF_ST_SRC_DROPPED, HF_ST_SRC_BYTES_LO, HF_ST_SRC_BYTES_HI,
		HF_ST_SRC_STATUS,
	};
	static const u32 sink[] = {
		HF_ST_SINK_FRAMES_OK, HF_ST_SINK_FRAMES_BAD,
		HF_ST_SINK_BYTES_LO, HF_ST_SINK_BYTES_HI,
		HF_ST_SINK_LAST_SEQ_LO, HF_ST_SINK_LAST_SEQ_HI,
		HF_ST_SINK_PARTIAL,
	};

	for (u32 i = 0; i < ARRAY_SIZE(top); i++)
		both_read(sd, top[i]);
	for (u32 ch = 0; ch < CH; ch++) {
		for (u32 i = 0; i < ARRAY_SIZE(src); i++)
			both_read(sd, HF_USER_ST_SRC(ch) + src[i]);
		for (u32 i = 0; i < ARRAY_SIZE(sink); i++)
			both_read(sd, HF_USER_ST_SINK(ch) + sink[i]);
	}
	HF_CHECK_MSG(sd[0].errors == sd[1].errors,
		     "undefined accesses: C counted %u, RTL %u", sd[0].errors,
		     sd[1].errors);
}

/* ---- the scenarios ---- */

/* ID, scratch, the RAM and reserved offsets read and write alike. */
HF_TEST(rtl_and_c_registers_and_ram_alike)
{
	struct side sd[2];

	open_both(sd, true);
	seed_rng("registers");
	for (int i = 0; i < 400; i++) {
		u32 off, v = rnd(0xffffffffu);

		switch (rnd(5)) {
		case 0:
			off = HF_USER_SCRATCH;
			break;
		case 1:
		case 2:
			off = HF_USER_RAM + 4 * rnd(HF_USER_RAM_SIZE / 4);
			break;
		case 3:	/* reserved, or read-only */
			off = 4 * rnd(0x2000 / 4);
			break;
		default:
			off = HF_USER_ID + 4 * rnd(8);
			break;
		}
		if (off == HF_USER_IRQ_SET || off == HF_USER_IRQ_PULSE ||
		    off == HF_USER_IRQ_CLEAR || off == HF_USER_VERSION ||
		    off == HF_USER_LOOPBACK)
			continue;	/* the other scenarios', or not yet alike */
		if (rnd(2))
			both_write(sd, off, v);
		both_read(sd, off);
		now += rnd(100);
	}
	check_regs(sd);
	close_both(sd);
}

/* SET, CLEAR, PULSE and the IP's acknowledgement move the lines alike. */
HF_TEST(rtl_and_c_interrupt_lines_alike)
{
	struct side sd[2];

	open_both(sd, true);
	seed_rng("interrupts");
	for (int i = 0; i < 400; i++) {
		static const u32 regs[] = {
			HF_USER_IRQ_SET, HF_USER_IRQ_CLEAR, HF_USER_IRQ_PULSE,
		};
		u32 lines = 1u << rnd(16) | (rnd(4) ? 0 : rnd(0x10000));

		if (rnd(4)) {
			both_write(sd, regs[rnd(3)], lines);
		} else {
			sd[0].ops->irq_ack(sd[0].u, lines);
			sd[1].ops->irq_ack(sd[1].u, lines);
		}
		check_lines(sd, "after a write or an acknowledgement");
		both_read(sd, HF_USER_IRQ_REQ);
	}
	close_both(sd);
}

/*
 * Stall-mode sources (fixed frames and records, intervals, counts, frame-end
 * interrupts) send the same bytes and record ends, and count alike.
 */
HF_TEST(rtl_and_c_stall_mode_sources_alike)
{
	struct side sd[2];

	open_both(sd, true);
	seed_rng("sources");
	for (u32 ch = 0; ch < CH; ch++) {
		u32 base = HF_USER_ST_SRC(ch);
		u32 ctrl = HF_ST_SRC_CTRL_ENABLE | (rnd(2) ? HF_ST_SRC_CTRL_RECORDS : 0) |
			   (rnd(2) ? HF_ST_SRC_CTRL_IRQ | ch << HF_ST_SRC_CTRL_IRQ_SHIFT : 0);
		u32 min = 16 + rnd(300), max = min + rnd(5000);

		both_write(sd, base + HF_ST_SRC_FRAME_SIZE, 16 + rnd(9000));
		both_write(sd, base + HF_ST_SRC_REC_MIN, min);
		both_write(sd, base + HF_ST_SRC_REC_MAX, max);
		both_write(sd, base + HF_ST_SRC_INTERVAL_NS, rnd(2) ? 0 : rnd(20000));
		both_write(sd, base + HF_ST_SRC_COUNT, 1 + rnd(12));
		both_write(sd, base + HF_ST_SRC_CTRL, ctrl);
	}
	for (int step = 0; step < 200; step++) {
		u32 ch = rnd(CH), chunk = 1 + rnd(rnd(2) ? 64 : 5000);

		now += rnd(3) ? rnd(2000) : rnd(200000);
		side_drain(&sd[0], ch, chunk);
		side_drain(&sd[1], ch, chunk);
	}
	now += 10000000;	/* every frame came due: drain them all */
	for (u32 ch = 0; ch < CH; ch++) {
		side_drain(&sd[0], ch, 4096);
		side_drain(&sd[1], ch, 4096);
	}
	check_streams(sd);
	check_regs(sd);
	check_lines(sd, "after the sources drained");
	close_both(sd);
}

/*
 * With no engine taking data, a source generates its frame when it is due
 * all the same, and holds it (SEQ moves on, STATUS HOLDING): the RTL
 * presents it (TVALID).  Disabled, it still holds it; CLEARed and enabled
 * again, that frame (old sequence number, old length) goes out first, then
 * the new run's from sequence 0.
 */
HF_TEST(rtl_and_c_source_holds_a_due_frame_past_its_disable)
{
	struct side sd[2];

	open_both(sd, true);
	seed_rng("held frame");
	c2h_idle = 0xf;		/* no engine takes data */
	for (u32 ch = 0; ch < CH; ch++) {
		u32 base = HF_USER_ST_SRC(ch);

		both_write(sd, base + HF_ST_SRC_FRAME_SIZE, 16 + rnd(9000));
		both_write(sd, base + HF_ST_SRC_INTERVAL_NS, rnd(2) ? 0 : rnd(5000));
		both_write(sd, base + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE);
		now += 1 + rnd(20000);
		HF_CHECK_EQ(both_read(sd, base + HF_ST_SRC_SEQ_LO), 1);
		HF_CHECK_EQ(both_read(sd, base + HF_ST_SRC_STATUS),
			    HF_ST_SRC_STS_ACTIVE | HF_ST_SRC_STS_HOLDING);
		both_write(sd, base + HF_ST_SRC_CTRL, 0);
		now += rnd(20000);
		HF_CHECK_EQ(both_read(sd, base + HF_ST_SRC_STATUS),
			    HF_ST_SRC_STS_HOLDING);
		both_write(sd, base + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR);
		both_write(sd, base + HF_ST_SRC_FRAME_SIZE, 16 + rnd(9000));
		both_write(sd, base + HF_ST_SRC_INTERVAL_NS, 0);
		both_write(sd, base + HF_ST_SRC_COUNT, 1 + rnd(4));
		both_write(sd, base + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE);
		now += rnd(20000);
		for (int i = 0; i < 2; i++)
			side_drain(&sd[i], ch, 1 + rnd(5000));
		/* the held frame first (old sequence 0), then the new run */
		HF_CHECK_EQ(sd[0].ends[ch], 1 + both_read(sd, base + HF_ST_SRC_COUNT));
	}
	check_streams(sd);
	check_regs(sd);
	close_both(sd);
}

/*
 * Drop mode with no engine taking data while time jumps far ahead (the
 * host's clock in co-simulation; hours of frames): every frame that came
 * due is dropped at once, DROPPED (32 bits, wrapping), SEQ and STATUS as
 * the C's formula says, COUNT's frames left respected; the RTL catches up
 * in a few clocks, not one per frame.
 */
HF_TEST(rtl_and_c_drop_mode_time_jumps_alike)
{
	struct side sd[2];

	open_both(sd, true);
	seed_rng("drop jumps");
	c2h_idle = 0xf;
	for (u32 ch = 0; ch < CH; ch++) {
		u32 base = HF_USER_ST_SRC(ch);

		both_write(sd, base + HF_ST_SRC_FRAME_SIZE, 16 + rnd(3000));
		both_write(sd, base + HF_ST_SRC_INTERVAL_NS, 1 + rnd(rnd(2) ? 10 : 100000));
		both_write(sd, base + HF_ST_SRC_COUNT, rnd(2) ? 0 : rnd(1u << 30));
		both_write(sd, base + HF_ST_SRC_CTRL,
			   HF_ST_SRC_CTRL_ENABLE | HF_ST_SRC_CTRL_DROP);
	}
	for (int step = 0; step < 40; step++) {
		u32 ch = rnd(CH), base = HF_USER_ST_SRC(ch);

		now += (u64)rnd(1u << 20) << rnd(21);	/* up to 2^40 ns */
		both_read(sd, base + HF_ST_SRC_DROPPED);
		both_read(sd, base + HF_ST_SRC_SEQ_LO);
		both_read(sd, base + HF_ST_SRC_SEQ_HI);
		both_read(sd, base + HF_ST_SRC_STATUS);
		if (!rnd(4)) {	/* the engine takes what is there */
			side_drain(&sd[0], ch, 1 + rnd(5000));
			side_drain(&sd[1], ch, 1 + rnd(5000));
		}
	}
	for (u32 ch = 0; ch < CH; ch++) {
		both_write(sd, HF_USER_ST_SRC(ch) + HF_ST_SRC_CTRL, 0);
		side_drain(&sd[0], ch, 4096);
		side_drain(&sd[1], ch, 4096);
	}
	check_streams(sd);
	check_regs(sd);
	close_both(sd);
}

/* A frame for a sink: good, or with one thing wrong. */
static u32 make_frame(u8 *f, u32 max, u64 seq)
{
	u32 len = 16 + rnd(max - 16);

	hf_stream_fill(f, seq, len, 0, len);
	switch (rnd(6)) {
	case 0:	/* a pattern byte */
		f[rnd(len)] ^= (u8)(1 + rnd(255));
		break;
	case 1:	/* cut short: the header says more */
		len = len > 17 ? 16 + rnd(len - 16) : len;
		break;
	}
	return len;
}

/* Good and damaged frames, in pieces of any size, count alike. */
HF_TEST(rtl_and_c_sinks_count_alike)
{
	static u8 frame[20000];
	struct side sd[2];

	open_both(sd, true);
	seed_rng("sinks");
	for (int i = 0; i < 120; i++) {
		u32 ch = rnd(CH), len = make_frame(frame, sizeof(frame), rnd(1000));
		u32 off = 0;

		while (off < len) {
			u32 n = min_t(u32, len - off, 1 + rnd(rnd(2) ? 7 : 3000));

			u32 took[2];

			sd[0].ops->st_in(sd[0].u, ch, frame + off, n, false,
					 &took[0]);
			sd[1].ops->st_in(sd[1].u, ch, frame + off, n, false,
					 &took[1]);
			HF_CHECK_EQ(took[0], n);	/* sinks take all */
			HF_CHECK_EQ(took[1], n);
			off += n;
			/*
			 * the counters mid-frame (latching HI): not compared,
			 * the RTL's lag the beats by its pipeline and the
			 * IP's last beat, held back until it knows TLAST
			 */
			if (!rnd(40))
				both_read_cmp(sd, HF_USER_ST_SINK(ch) +
						  HF_ST_SINK_BYTES_LO, false);
		}
		for (int k = 0; k < 2; k++) {
			u32 took;

			HF_CHECK(sd[k].ops->st_in(sd[k].u, ch, NULL, 0, true,
						  &took) & XDMA_USER_TLAST);
		}
		if (!rnd(30))
			both_write(sd, HF_USER_ST_SINK(ch) + HF_ST_SINK_CTRL,
				   HF_ST_SINK_CTRL_CLEAR);
	}
	check_regs(sd);
	close_both(sd);
}

/*
 * A long H2C packet (1 MiB: 32768 beats of 256 bits) goes in pieces: the
 * RTL takes part of it per call and kicks its own engine for the rest, so
 * that one engine run does not hold the host (QEMU's main loop) for long;
 * the C takes it at once.  The sinks count it alike.
 */
HF_TEST(rtl_and_c_long_h2c_packet_in_bounded_calls)
{
	static u8 frame[1u << 20];
	struct side sd[2];
	u32 calls[2] = { 0 };

	open_both(sd, true);
	hf_stream_fill(frame, 7, sizeof(frame), 0, sizeof(frame));
	for (int i = 0; i < 2; i++) {
		u32 off = 0, took, flags;

		while (off < sizeof(frame) && calls[i] < 1000) {
			flags = sd[i].ops->st_in(sd[i].u, 1, frame + off,
						 sizeof(frame) - off, false, &took);
			calls[i]++;
			off += took;
			HF_CHECK(off == sizeof(frame) ||
				 (flags & XDMA_USER_KICK_H2C(1)));
		}
		HF_CHECK(sd[i].ops->st_in(sd[i].u, 1, NULL, 0, true, &took) &
			 XDMA_USER_TLAST);
	}
	HF_CHECK_EQ(calls[0], 1);
	HF_CHECK_MSG(calls[1] >= 16, "the RTL took 1 MiB in %u calls", calls[1]);
	HF_CHECK_EQ(both_read(sd, HF_USER_ST_SINK(1) + HF_ST_SINK_FRAMES_OK), 1);
	check_regs(sd);
	close_both(sd);
}

/*
 * H2C channel @ch streams @len bytes at @p as one packet into side @s,
 * pieces of @chunk bytes; whatever its port does not take (back-pressure)
 * waits until the C2H engine of the channel took what came back.
 */
static void side_packet(struct side *s, u32 ch, const u8 *p, u32 len,
			u32 chunk)
{
	u32 off = 0, took, spins = 0, flags = 0;

	while (!(flags & XDMA_USER_TLAST) && spins < 1000) {
		u32 n = min_t(u32, len - off, chunk);

		flags = s->ops->st_in(s->u, ch, p + off, n, off + n == len,
				      &took);
		HF_CHECK(took <= n);
		off += took;
		if (took < n || (off == len && !(flags & XDMA_USER_TLAST))) {
			side_drain(s, ch, 4096);	/* make room */
			spins++;
		}
	}
	HF_CHECK_MSG(flags & XDMA_USER_TLAST, "%s: H2C %u: packet of %u bytes stuck at %u",
		     s->name, ch, len, off);
}

/*
 * LOOPBACK: what an H2C channel streams comes back on the C2H channel of its
 * number, packet for packet, on both (the sinks see none of it); cleared,
 * the sources own the ports again.
 */
HF_TEST(rtl_and_c_loopback_returns_each_packet_alike)
{
	static u8 pkt[40000];
	struct side sd[2];
	u32 sent[CH] = { 0 };

	open_both(sd, true);
	seed_rng("loopback");
	both_read(sd, HF_USER_VERSION);
	both_write(sd, HF_USER_LOOPBACK, 0xff);
	HF_CHECK_EQ(both_read(sd, HF_USER_LOOPBACK), 0xf);
	for (int i = 0; i < 60; i++) {
		u32 ch = rnd(CH), len = 1 + rnd(rnd(4) ? 3000 : sizeof(pkt) - 1);
		u32 chunk = 1 + rnd(rnd(2) ? 100 : 8000);

		for (u32 k = 0; k < len; k++)
			pkt[k] = (u8)rnd(256);
		for (int j = 0; j < 2; j++)
			side_packet(&sd[j], ch, pkt, len, chunk);
		sent[ch] += len;
		if (!rnd(3)) {
			side_drain(&sd[0], ch, 1 + rnd(5000));
			side_drain(&sd[1], ch, 1 + rnd(5000));
		}
	}
	for (u32 ch = 0; ch < CH; ch++) {
		side_drain(&sd[0], ch, 4096);
		side_drain(&sd[1], ch, 4096);
		HF_CHECK_EQ(sd[0].c2h_n[ch], sent[ch]);
	}
	check_streams(sd);
	both_write(sd, HF_USER_LOOPBACK, 0);
	check_regs(sd);		/* the sinks counted nothing */
	close_both(sd);
}

/* A memory-mapped card has no stream blocks: their offsets are reserved. */
HF_TEST(rtl_and_c_mm_card_has_no_stream_blocks)
{
	struct side sd[2];

	open_both(sd, false);
	both_write(sd, HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE, 100);
	both_read(sd, HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE);
	both_read(sd, HF_USER_ST_SINK(3) + HF_ST_SINK_FRAMES_OK);
	HF_CHECK_EQ(sd[0].errors, 3);
	HF_CHECK_EQ(sd[1].errors, 3);
	close_both(sd);
}
