// SPDX-License-Identifier: MIT
/*
 * tb_src.cpp - testbench of hf_st_src.sv, the C2H frame source (one
 * channel), built once per data width (TB_MODEL: Verilated with
 * -GDATA_W=DATA_W, --public-flat-rw for the sequence number's back door).
 *
 * A monitor takes every beat the source hands over (tvalid && tready
 * before a rising edge), checks AXI-Stream's rules (a beat offered stays,
 * unchanged, until taken; tkeep all ones but on the last beat, contiguous
 * there) and cuts the bytes into frames at TLAST; the cases compare the
 * frames with hf_stream_fill() / hf_stream_rec_len() of
 * refdesign/hf_stream_pattern.h (through rtl_pattern.c) and the registers
 * with hf_refdesign.c's semantics.
 */
#include TB_MODEL_H
#include TB_ROOT_H

#include <chrono>
#include <functional>

#include "hf_user_regs.h"
#include "tb.h"

static const uint32_t B = DATA_W / 8;

#define R(reg) (HF_ST_SRC_##reg)
static const uint32_t ENABLE = HF_ST_SRC_CTRL_ENABLE;
static const uint32_t RECORDS = HF_ST_SRC_CTRL_RECORDS;
static const uint32_t DROP = HF_ST_SRC_CTRL_DROP;
static const uint32_t IRQ = HF_ST_SRC_CTRL_IRQ;
static const uint32_t CLEAR = HF_ST_SRC_CTRL_CLEAR;

struct Frame {
	std::vector<uint8_t> b;
	uint64_t first_cycle;	/* its first beat's handshake */
	uint64_t first_ns;	/* time_ns of its first beat */
	uint64_t last_cycle;	/* its TLAST handshake */
	uint64_t last_ns;	/* time_ns then */
};

struct SrcTb : Clocked<TB_MODEL>, RegPort<SrcTb> {
	uint64_t t = 1000;		/* time_ns */
	unsigned ns_per_clk = 4;
	/* time_ns's step per clock (the co-simulation may jump it) */
	std::function<unsigned()> dt = [this] { return ns_per_clk; };
	std::function<bool()> ready = [] { return true; };
	std::vector<Frame> frames;
	Frame cur;
	bool in_frame = false;
	bool stalled = false;		/* a beat offered and not taken */
	std::vector<uint8_t> stall_data;
	uint64_t stall_keep = 0;
	bool stall_last = false;
	uint64_t beats = 0;
	uint64_t irqs[16] = {};
	uint64_t last_irq_cycle = 0;

	SrcTb()
	{
		m->reg_rd = 0;
		m->reg_wr = 0;
		m->tready = 0;
		m->time_ns = t;
		reset();
	}

	std::vector<uint8_t> data() const
	{
		std::vector<uint8_t> d(B);

		for (int i = 0; i < B; i++)
			d[i] = tb_byte(m->tdata, i);
		return d;
	}
	uint64_t keep() const
	{
		uint64_t k = 0;

		for (int i = 0; i < B; i++)
			k |= (uint64_t)tb_bit(m->tkeep, i) << i;
		return k;
	}

	void pre_edge() override
	{
		bool v = m->tvalid, r = m->tready;

		if (stalled) {
			HF_CHECK_MSG(v, "tvalid dropped before its handshake (cycle %llu)",
				     (unsigned long long)cycles);
			HF_CHECK_MSG(data() == stall_data && keep() == stall_keep &&
				     (bool)m->tlast == stall_last,
				     "a beat changed while stalled (cycle %llu)",
				     (unsigned long long)cycles);
		}
		stalled = v && !r;
		if (stalled) {
			stall_data = data();
			stall_keep = keep();
			stall_last = m->tlast;
		}
		for (int i = 0; i < 16; i++)
			if ((m->irq >> i) & 1) {
				irqs[i]++;
				last_irq_cycle = cycles;
			}
		if (!(v && r))
			return;
		beats++;
		uint64_t k = keep();
		int n = __builtin_popcountll(k);
		uint64_t all = B == 64 ? ~0ull : (1ull << B) - 1;

		HF_CHECK_MSG(k == (n == 64 ? ~0ull : (1ull << n) - 1),
			     "tkeep 0x%llx not contiguous", (unsigned long long)k);
		HF_CHECK_MSG(m->tlast || k == all, "tkeep 0x%llx before TLAST",
			     (unsigned long long)k);
		HF_CHECK(n > 0);
		if (!in_frame) {
			cur = Frame();
			cur.first_cycle = cycles;
			cur.first_ns = m->time_ns;
			in_frame = true;
		}
		std::vector<uint8_t> d = data();
		cur.b.insert(cur.b.end(), d.begin(), d.begin() + n);
		if (m->tlast) {
			cur.last_cycle = cycles;
			cur.last_ns = m->time_ns;
			frames.push_back(cur);
			in_frame = false;
		}
	}

	/* one clock: tready from the policy, time on by ns_per_clk */
	void step()
	{
		m->tready = ready();
		m->time_ns = t;
		tick();
		t += dt();
	}
	void steps(uint64_t n)
	{
		while (n--)
			step();
	}
	/* clock until @n frames arrived; fails after @limit clocks */
	void until_frames(size_t n, uint64_t limit = 200000)
	{
		uint64_t end = cycles + limit;

		while (frames.size() < n) {
			HF_CHECK_MSG(cycles < end, "%zu of %zu frames after %llu clocks",
				     frames.size(), n, (unsigned long long)limit);
			step();
		}
	}

	void w(uint32_t off, uint32_t val)
	{
		HF_CHECK_MSG(!wr(off, val), "write 0x%x to 0x%x: reg_err", val, off);
	}

	/* disable, and let what is held go out */
	void stop()
	{
		auto keep_ready = ready;

		w(R(CTRL), 0);
		ready = [] { return true; };
		while (rd(R(STATUS)) & HF_ST_SRC_STS_HOLDING)
			;
		steps(4);
		ready = keep_ready;
	}
	/* the next frame's sequence number: a back door (the source idle) */
	void poke_seq(uint64_t seq)
	{
		m->rootp->hf_st_src__DOT__seq = seq;
		m->rootp->hf_st_src__DOT__spec_ok = 0;	/* the pipeline restarts */
		steps(2);
	}
};

/* Frame @f is frame (@seq, @len) of hf_stream_fill(). */
static void check_frame(const Frame &f, uint64_t seq, uint32_t len)
{
	std::vector<uint8_t> want(len);

	rtl_fill(want.data(), seq, len, 0, len);
	HF_CHECK_MSG(f.b.size() == len, "frame %llu: %zu bytes, want %u",
		     (unsigned long long)seq, f.b.size(), len);
	for (uint32_t i = 0; i < len; i++)
		HF_CHECK_MSG(f.b[i] == want[i],
			     "frame %llu len %u: byte %u is 0x%02x, want 0x%02x",
			     (unsigned long long)seq, len, i, f.b[i], want[i]);
}

/* The sequence number in a frame's header. */
static uint64_t frame_seq(const Frame &f)
{
	uint64_t s = 0;

	HF_CHECK(f.b.size() >= 8);
	for (int i = 0; i < 8; i++)
		s |= (uint64_t)f.b[i] << (8 * i);
	return s;
}

/* A ready policy: on and off runs of random lengths; @pct_on of the time. */
static std::function<bool()> bursty(Rng &rng, unsigned pct_on, uint32_t maxrun)
{
	auto left = std::make_shared<uint32_t>(0);
	auto on = std::make_shared<bool>(true);

	return [&rng, pct_on, maxrun, left, on] {
		if (!*left) {
			*on = rng.chance(pct_on);
			*left = rng.range(1, maxrun);
		}
		(*left)--;
		return *on;
	};
}

/* a length for a case: small, near a beat multiple, or up to @max */
static uint32_t pick_len(Rng &rng, uint32_t max)
{
	switch (rng.below(3)) {
	case 0:
		return rng.range(16, 16 + 2 * B);
	case 1:
		return rng.range(1, max / B) * B + rng.range(0, 2) - 1 + 16;
	default:
		return rng.range(16, max);
	}
}

/*
 * The equivalence of the source with hf_stream_pattern.h: random sequence
 * numbers (both halves), frame lengths and records, under random tready.
 */
HF_TEST(frames_match_pattern)
{
	Rng rng = tb_rng();
	SrcTb tb;

	tb.ready = bursty(rng, 70, 20);
	for (int round = 0; round < 30; round++) {
		uint64_t seq0 = rng.next();
		bool rec = rng.chance(50);
		uint32_t fs = pick_len(rng, 3000);
		uint32_t mn = rng.range(16, 600), mx = rng.range(16, 2500);
		uint32_t n = rng.range(4, 12);

		if (round == 1)
			seq0 = 0xfffffffaull;	/* across the high word */
		tb.stop();
		tb.poke_seq(seq0);
		tb.w(R(FRAME_SIZE), fs);
		tb.w(R(REC_MIN), mn);
		tb.w(R(REC_MAX), mx);
		tb.w(R(COUNT), n);
		tb.frames.clear();
		tb.w(R(CTRL), ENABLE | (rec ? RECORDS : 0));
		tb.until_frames(n);
		for (uint32_t i = 0; i < n; i++)
			check_frame(tb.frames[i], seq0 + i,
				    rec ? rtl_rec_len(seq0 + i, mn, mx) : fs);
		HF_CHECK_EQ(tb.rd64(R(SEQ_LO)), seq0 + n);
	}
}

/* Back-pressure of random on/off runs: no beat lost, repeated or changed. */
HF_TEST(backpressure_random)
{
	Rng rng = tb_rng();
	SrcTb tb;
	uint32_t fs = pick_len(rng, 1500);

	tb.ready = bursty(rng, 50, 40);
	tb.w(R(FRAME_SIZE), fs);
	tb.w(R(CTRL), ENABLE);
	tb.steps(50000);
	tb.stop();
	HF_CHECK(tb.frames.size() > 5);
	for (size_t i = 0; i < tb.frames.size(); i++)
		check_frame(tb.frames[i], i, fs);
	HF_CHECK_EQ(tb.rd(R(SENT)), tb.frames.size());
	HF_CHECK_EQ(tb.rd64(R(BYTES_LO)), (uint64_t)fs * tb.frames.size());
	HF_CHECK_EQ(tb.rd(R(DROPPED)), 0);
}

/* A stall of thousands of clocks in the middle of a frame loses nothing. */
HF_TEST(long_stall_mid_frame)
{
	SrcTb tb;
	uint64_t from = 0;

	tb.ready = [&tb, &from] {	/* 5000 clocks after the 3rd beat */
		if (tb.beats == 3 && !from)
			from = tb.cycles;
		return !from || tb.cycles >= from + 5000;
	};
	tb.w(R(FRAME_SIZE), 40 * B + 3);
	tb.w(R(COUNT), 3);
	tb.w(R(CTRL), ENABLE);
	tb.until_frames(3);
	for (int i = 0; i < 3; i++)
		check_frame(tb.frames[i], i, 40 * B + 3);
	HF_CHECK(tb.frames[0].last_cycle - tb.frames[0].first_cycle > 5000);
}

/* Every length modulo the data width, one beat to several: tkeep, TLAST. */
HF_TEST(every_len_mod_width)
{
	SrcTb tb;
	Rng rng = tb_rng();

	tb.ready = bursty(rng, 80, 5);
	for (uint32_t base : {16u, 3u * B + 16}) {
		for (uint32_t r = 0; r < B; r++) {
			uint32_t len = base + r;

			tb.frames.clear();
			tb.w(R(CTRL), 0);
			tb.w(R(FRAME_SIZE), len);
			tb.w(R(COUNT), 1);
			tb.w(R(CTRL), ENABLE | CLEAR);
			tb.until_frames(1);
			check_frame(tb.frames[0], 0, len);
		}
	}
}

struct b2b_row {
	const char *name;
	uint32_t ctrl;
	uint32_t frame_size, rec_min, rec_max, interval;
};

static const b2b_row b2b_rows[] = {
	{"min_len", ENABLE, 16, 64, 4096, 0},
	{"one_beat_plus_one", ENABLE, B > 16 ? B + 1 : 17, 64, 4096, 0},
	{"4k", ENABLE, 4096, 64, 4096, 0},
	{"records_short", ENABLE | RECORDS, 4096, 16, 3 * B, 0},
	{"records", ENABLE | RECORDS, 4096, 16, 900, 0},
	{"interval_shorter_than_frame", ENABLE, 4096, 64, 4096, 8},
};

/*
 * Full throughput: with tready high and the next frame due, one beat every
 * clock from the first beat on, frame after frame, no idle clock.
 */
static void back_to_back(const void *row)
{
	const b2b_row *r = (const b2b_row *)row;
	SrcTb tb;

	tb.w(R(FRAME_SIZE), r->frame_size);
	tb.w(R(REC_MIN), r->rec_min);
	tb.w(R(REC_MAX), r->rec_max);
	tb.w(R(INTERVAL_NS), r->interval);
	tb.w(R(CTRL), r->ctrl);
	tb.until_frames(2);	/* the pipeline is full */
	size_t first = tb.frames.size();

	tb.until_frames(first + 200);
	uint64_t beats = 0;

	for (size_t i = first; i < first + 200; i++) {
		const Frame &f = tb.frames[i];
		uint64_t seq = frame_seq(f);
		uint32_t len = r->ctrl & RECORDS ?
			rtl_rec_len(seq, r->rec_min, r->rec_max) : r->frame_size;

		check_frame(f, seq, len);
		HF_CHECK_EQ(seq, i);
		beats += (len + B - 1) / B;
		if (i > first)
			HF_CHECK_MSG(f.first_cycle == tb.frames[i - 1].last_cycle + 1,
				     "frame %zu starts %llu clocks after the last beat of the one before",
				     i, (unsigned long long)(f.first_cycle -
							      tb.frames[i - 1].last_cycle));
	}
	HF_CHECK_EQ(tb.frames[first + 199].last_cycle - tb.frames[first].first_cycle + 1,
		    beats);
}
HF_TEST_ROWS(back_to_back, b2b_rows, back_to_back)

/* clocks a benchmark runs: HF_RTL_BENCH_CLOCKS, else 20000 */
static uint64_t bench_clocks(void)
{
	const char *e = getenv("HF_RTL_BENCH_CLOCKS");

	return e && *e ? strtoull(e, nullptr, 0) : 20000;
}

/*
 * Not a check but a benchmark: beats per clock of the source without
 * back-pressure, and how fast the simulation runs; printed.
 */
HF_TEST(bench)
{
	static const struct {
		const char *what;
		uint32_t ctrl, frame_size;
	} runs[] = {
		{"frames of 4 KiB", ENABLE, 4096},
		{"frames of 16 bytes", ENABLE, 16},
		{"records of 16..4096 bytes", ENABLE | RECORDS, 4096},
	};
	uint64_t n = bench_clocks();

	for (const auto &r : runs) {
		SrcTb tb;

		tb.w(R(FRAME_SIZE), r.frame_size);
		tb.w(R(REC_MIN), 16);
		tb.w(R(CTRL), r.ctrl);
		tb.until_frames(2);
		uint64_t b0 = tb.beats;
		auto t0 = std::chrono::steady_clock::now();

		tb.steps(n);
		double s = std::chrono::duration<double>(
			std::chrono::steady_clock::now() - t0).count();

		hf_test_log("source, %u bits, %s: %.4f beats per clock (%llu clocks), %.0f clocks/s simulated",
			    DATA_W, r.what, (double)(tb.beats - b0) / n,
			    (unsigned long long)n, n / s);
		HF_CHECK(tb.beats > b0);
	}
}

#ifndef TB_REDUCED	/* 256 bits: the cases above and clear_mid_frame */
/*
 * Drop mode: frames that come due while one is held are dropped (SEQ moves
 * on: the frames that arrive show the gaps); DROPPED counts them.
 */
HF_TEST(drop_mode_drops_while_held)
{
	SrcTb tb;
	uint64_t n = 0;
	const uint32_t iv = 400;	/* ns: 100 clocks */

	tb.ready = [&n] { n++; return n < 3000 || n > 23000; };
	tb.w(R(FRAME_SIZE), 4 * B);
	tb.w(R(INTERVAL_NS), iv);
	tb.w(R(CTRL), ENABLE | DROP);
	tb.steps(40000);
	tb.w(R(CTRL), DROP);
	tb.steps(100);
	uint32_t dropped = tb.rd(R(DROPPED));
	uint64_t gaps = 0;

	for (size_t i = 0; i < tb.frames.size(); i++) {
		uint64_t seq = frame_seq(tb.frames[i]);

		check_frame(tb.frames[i], seq, 4 * B);
		if (i)
			gaps += seq - frame_seq(tb.frames[i - 1]) - 1;
	}
	HF_CHECK_EQ(gaps, dropped);
	HF_CHECK_EQ(tb.rd(R(SENT)), tb.frames.size());
	/* 20000 clocks without tready: 80000 ns, a frame due every 400 */
	HF_CHECK_MSG(dropped >= 190 && dropped <= 202, "dropped %u", dropped);
	HF_CHECK_EQ(tb.rd64(R(SEQ_LO)), tb.frames.size() + dropped);
}

/*
 * Drop mode, exactly as the C: frame k is due at d0 + k * interval; the
 * frames due while one is held, up to its end (TLAST at t_end), are
 * dropped, one due at t_end is not.  So the frame after one that ended at
 * t_end is the first frame due at or after t_end (or the next one).  Time
 * jumps now and then (as the co-simulation's may): several frames come
 * due in one clock.
 */
HF_TEST(drop_mode_follows_schedule)
{
	Rng rng = tb_rng();
	SrcTb tb;
	const uint64_t iv = 40;

	tb.ready = bursty(rng, 60, 30);
	tb.dt = [&rng] { return rng.chance(2) ? rng.range(4, 300) : 4; };
	tb.w(R(FRAME_SIZE), 3 * B + 1);
	tb.w(R(INTERVAL_NS), iv);
	uint64_t d0 = tb.t;

	tb.w(R(CTRL), ENABLE | DROP);
	tb.steps(20000);
	HF_CHECK(tb.frames.size() > 100);
	for (size_t i = 1; i < tb.frames.size(); i++) {
		uint64_t s = frame_seq(tb.frames[i - 1]);
		uint64_t t_end = tb.frames[i - 1].last_ns;
		uint64_t first_due = (t_end - d0 + iv - 1) / iv;

		HF_CHECK_MSG(frame_seq(tb.frames[i]) == std::max(s + 1, first_due),
			     "frame %llu ended at %llu: next %llu, want %llu",
			     (unsigned long long)s, (unsigned long long)t_end,
			     (unsigned long long)frame_seq(tb.frames[i]),
			     (unsigned long long)std::max(s + 1, first_due));
	}
}

struct jump_row {
	const char *name;
	uint32_t interval, count;
	uint64_t jump;		/* ns */
};

static const jump_row jump_rows[] = {
	{"a_1000_s_of_1_us_frames", 1000, 0, 1000000000000ull},
	{"odd_interval", 7, 0, 12345678901ull},
	{"count_reached", 1000, 500, 1000000000ull},
	{"dropped_wraps", 1, 0, 1ull << 40},
};

/*
 * Drop mode, no tready, time jumps far ahead (as the co-simulation's may):
 * every frame due before the new time is dropped, as hf_refdesign.c's
 * src_drop() counts them (COUNT's frames left respected, DROPPED wrapping
 * at 32 bits), in a few clocks: 2^k frames a clock, k growing while the
 * frame after them is due too, then shrinking.
 */
static void drop_time_jump(const void *row)
{
	const jump_row *r = (const jump_row *)row;
	SrcTb tb;
	uint64_t due, t, c0, n;

	tb.ready = [] { return false; };
	tb.w(R(FRAME_SIZE), 64);
	tb.w(R(INTERVAL_NS), r->interval);
	tb.w(R(COUNT), r->count);
	due = tb.t;			/* frame 0: due at the enable */
	tb.w(R(CTRL), ENABLE | DROP);
	tb.steps(40);
	HF_CHECK(tb.m->tvalid);		/* frame 0 held */
	t = tb.t + r->jump;
	tb.t = t;
	tb.dt = [] { return 0u; };
	c0 = tb.cycles;
	while (tb.m->next_ns <= t) {
		HF_CHECK_MSG(tb.cycles - c0 < 100000, "still dropping after %llu clocks",
			     (unsigned long long)(tb.cycles - c0));
		tb.step();
	}
	uint64_t clocks = tb.cycles - c0;

	/* src_drop(): frames 1.. (due + interval on) that are due before t */
	n = (t - due - r->interval - 1) / r->interval + 1;
	if (r->count)
		n = std::min<uint64_t>(n, r->count - 1);
	HF_CHECK_EQ(tb.rd(R(DROPPED)), (uint32_t)n);
	HF_CHECK_EQ(tb.rd64(R(SEQ_LO)), 1 + n);
	HF_CHECK_MSG(clocks <= 100 + (n >> 31), "%llu frames dropped in %llu clocks",
		     (unsigned long long)n, (unsigned long long)clocks);
	hf_test_log("%llu frames dropped in %llu clocks", (unsigned long long)n,
		    (unsigned long long)clocks);
	HF_CHECK(tb.m->tvalid);		/* still frame 0, whole */
	tb.ready = [] { return true; };
	tb.until_frames(1);
	check_frame(tb.frames[0], 0, 64);
}
HF_TEST_ROWS(drop_time_jump, jump_rows, drop_time_jump)

/* Stall mode: nothing is dropped; the frames wait for tready. */
HF_TEST(stall_mode_never_drops)
{
	SrcTb tb;
	uint64_t n = 0;

	tb.ready = [&n] { n++; return n < 300 || n > 2300; };
	tb.w(R(FRAME_SIZE), 4 * B);
	tb.w(R(INTERVAL_NS), 40);
	tb.w(R(CTRL), ENABLE);
	tb.steps(4000);
	tb.stop();
	for (size_t i = 0; i < tb.frames.size(); i++)
		check_frame(tb.frames[i], i, 4 * B);
	HF_CHECK_EQ(tb.rd(R(DROPPED)), 0);
}

/* INTERVAL_NS paces the frames: one every interval, from the first on. */
HF_TEST(interval_paces_frames)
{
	SrcTb tb;

	tb.w(R(FRAME_SIZE), 64);
	tb.w(R(INTERVAL_NS), 400);
	tb.w(R(CTRL), ENABLE);
	tb.until_frames(10);
	for (size_t i = 2; i < 10; i++)
		HF_CHECK_EQ(tb.frames[i].first_ns - tb.frames[i - 1].first_ns, 400);
}

/*
 * A frame's length latches when it is generated: a FRAME_SIZE write while
 * the frame waits for its first beat (after a restart of the pipeline:
 * here CLEAR's) changes the next frames only.
 */
HF_TEST(length_latches_at_generation)
{
	SrcTb tb;

	tb.w(R(FRAME_SIZE), 100);
	tb.w(R(CTRL), ENABLE | CLEAR);
	tb.steps(3);
	HF_CHECK(tb.rd(R(STATUS)) & HF_ST_SRC_STS_HOLDING);
	HF_CHECK(!tb.m->tvalid);		/* its beats being computed */
	tb.w(R(FRAME_SIZE), 200);
	tb.until_frames(3);
	check_frame(tb.frames[0], 0, 100);
	check_frame(tb.frames[1], 1, 200);
	check_frame(tb.frames[2], 2, 200);
}

/* COUNT frames per enable, then STATUS DONE; ENABLE 0->1 starts again. */
HF_TEST(count_then_done)
{
	SrcTb tb;

	tb.w(R(FRAME_SIZE), 100);
	tb.w(R(COUNT), 5);
	tb.w(R(CTRL), ENABLE);
	HF_CHECK(tb.rd(R(STATUS)) & HF_ST_SRC_STS_ACTIVE);
	tb.until_frames(5);
	tb.steps(500);
	HF_CHECK_EQ(tb.frames.size(), 5);
	HF_CHECK_EQ(tb.rd(R(STATUS)), HF_ST_SRC_STS_DONE);
	tb.w(R(CTRL), 0);
	HF_CHECK_EQ(tb.rd(R(STATUS)), 0);
	tb.w(R(CTRL), ENABLE);
	tb.until_frames(10);
	tb.steps(500);
	HF_CHECK_EQ(tb.frames.size(), 10);
	for (size_t i = 0; i < 10; i++)
		check_frame(tb.frames[i], i, 100);
	HF_CHECK_EQ(tb.rd(R(SENT)), 10);
}

/* Reset in the middle of a frame: tvalid low, every register as at reset. */
HF_TEST(reset_mid_frame)
{
	Rng rng = tb_rng();
	SrcTb tb;

	tb.ready = bursty(rng, 60, 10);
	tb.w(R(FRAME_SIZE), 50 * B + 7);
	tb.w(R(INTERVAL_NS), 1000);
	tb.w(R(COUNT), 9);
	tb.w(R(CTRL), ENABLE | RECORDS | IRQ);
	while (!tb.in_frame || tb.cur.b.size() < 10 * B)
		tb.step();
	tb.reset(1);
	tb.in_frame = false;
	tb.stalled = false;
	tb.frames.clear();
	HF_CHECK(!tb.m->tvalid);
	const struct { uint32_t off, val; } regs[] = {
		{R(CTRL), 0}, {R(FRAME_SIZE), 4096}, {R(REC_MIN), 64},
		{R(REC_MAX), 4096}, {R(INTERVAL_NS), 0}, {R(COUNT), 0},
		{R(SEQ_LO), 0}, {R(SEQ_HI), 0}, {R(SENT), 0}, {R(DROPPED), 0},
		{R(BYTES_LO), 0}, {R(BYTES_HI), 0}, {R(STATUS), 0},
	};
	for (const auto &r : regs)
		HF_CHECK_EQ(tb.rd(r.off), r.val);
	tb.steps(1000);
	HF_CHECK(tb.frames.empty() && !tb.in_frame);
	tb.w(R(FRAME_SIZE), 3 * B + 1);
	tb.w(R(CTRL), ENABLE);
	tb.until_frames(4);
	for (size_t i = 0; i < 4; i++)
		check_frame(tb.frames[i], i, 3 * B + 1);
}

#endif

/*
 * CLEAR in the middle of a frame: the frame goes out whole and counts; the
 * next frame is sequence number 0.
 */
HF_TEST(clear_mid_frame)
{
	Rng rng = tb_rng();
	SrcTb tb;
	const uint32_t fs = 30 * B + 5;

	tb.ready = bursty(rng, 50, 8);
	tb.w(R(FRAME_SIZE), fs);
	tb.w(R(CTRL), ENABLE);
	tb.until_frames(3);
	while (!tb.in_frame || tb.cur.b.size() < 5 * B)
		tb.step();
	size_t cut = tb.frames.size();	/* the frame in flight */
	uint64_t sent_bytes = tb.cur.b.size();

	tb.w(R(CTRL), ENABLE | CLEAR);
	tb.until_frames(cut + 4);
	check_frame(tb.frames[cut], cut, fs);
	for (size_t i = cut + 1; i < cut + 4; i++)
		check_frame(tb.frames[i], i - cut - 1, fs);
	tb.stop();
	uint64_t after = 0;

	for (size_t i = cut; i < tb.frames.size(); i++)
		after += tb.frames[i].b.size();
	HF_CHECK_EQ(tb.rd(R(SENT)), tb.frames.size() - cut);
	/* the bytes of the frame in flight sent before the CLEAR (give or
	 * take the beat of the write's clock) are not counted */
	uint64_t bytes = tb.rd64(R(BYTES_LO));

	HF_CHECK_MSG(bytes <= after - sent_bytes + B && bytes + B >= after - sent_bytes,
		     "BYTES %llu, %llu sent after the CLEAR",
		     (unsigned long long)bytes,
		     (unsigned long long)(after - sent_bytes));
}

#ifndef TB_REDUCED
/* CTRL.IRQ: a pulse on line CTRL[11:8] per frame end (TLAST handshake). */
HF_TEST(irq_pulse_per_frame_end)
{
	SrcTb tb;

	tb.w(R(FRAME_SIZE), 5 * B);
	tb.w(R(COUNT), 3);
	tb.w(R(CTRL), ENABLE | IRQ | 5u << HF_ST_SRC_CTRL_IRQ_SHIFT);
	tb.until_frames(3);
	tb.steps(10);
	for (int i = 0; i < 16; i++)
		HF_CHECK_EQ(tb.irqs[i], i == 5 ? 3 : 0);
	HF_CHECK_EQ(tb.last_irq_cycle, tb.frames[2].last_cycle + 1);
}

/*
 * Registers: reset values, the length range (out of range: ignored,
 * reg_err), RO and reserved offsets (reg_err), CTRL's mask, SEQ_LO and
 * BYTES_LO latching the high halves.
 */
HF_TEST(registers)
{
	SrcTb tb;

	HF_CHECK_EQ(tb.rd(R(FRAME_SIZE)), 4096);
	HF_CHECK(tb.wr(R(FRAME_SIZE), 15));
	HF_CHECK(tb.wr(R(REC_MIN), 0x10000000));
	HF_CHECK(tb.wr(R(REC_MAX), 0));
	HF_CHECK_EQ(tb.rd(R(FRAME_SIZE)), 4096);
	HF_CHECK_EQ(tb.rd(R(REC_MIN)), 64);
	HF_CHECK_EQ(tb.rd(R(REC_MAX)), 4096);
	tb.w(R(FRAME_SIZE), 16);
	tb.w(R(REC_MAX), 0x0fffffff);
	HF_CHECK_EQ(tb.rd(R(FRAME_SIZE)), 16);
	HF_CHECK_EQ(tb.rd(R(REC_MAX)), 0x0fffffff);
	check_ro_reserved(tb, {R(SEQ_LO), R(SEQ_HI), R(SENT), R(DROPPED),
			       R(BYTES_LO), R(BYTES_HI), R(STATUS), 0x34, 0xfc},
			  {0x34, 0x80, 0xfc});
	tb.w(R(CTRL), 0x7fffffff);
	HF_CHECK_EQ(tb.rd(R(CTRL)), 0xf0f);
	tb.w(R(CTRL), 0);
	tb.stop();
	tb.poke_seq(0x100000005ull);
	HF_CHECK_EQ(tb.rd(R(SEQ_HI)), 0);	/* not latched yet */
	HF_CHECK_EQ(tb.rd(R(SEQ_LO)), 5);
	tb.poke_seq(0x200000007ull);
	HF_CHECK_EQ(tb.rd(R(SEQ_HI)), 1);	/* as latched */
	HF_CHECK_EQ(tb.rd(R(SEQ_LO)), 7);
	HF_CHECK_EQ(tb.rd(R(SEQ_HI)), 2);
	tb.m->rootp->hf_st_src__DOT__bytes = 0x300000009ull;
	HF_CHECK_EQ(tb.rd(R(BYTES_HI)), 0);
	HF_CHECK_EQ(tb.rd(R(BYTES_LO)), 9);
	HF_CHECK_EQ(tb.rd(R(BYTES_HI)), 3);
}

/*
 * c2h_next_ns: all ones while disabled or waiting for tready (stall), the
 * due time while waiting for time, past (<= time_ns) with work to do,
 * due + 1 in drop mode while held (the next drop).
 */
HF_TEST(next_ns)
{
	SrcTb tb;

	HF_CHECK_EQ(tb.m->next_ns, ~0ull);
	tb.ready = [] { return false; };
	tb.w(R(FRAME_SIZE), 64);
	tb.w(R(INTERVAL_NS), 10000);
	uint64_t t_en = tb.t;

	tb.w(R(CTRL), ENABLE);
	HF_CHECK(tb.m->next_ns <= tb.t);	/* a frame to start */
	tb.steps(100);
	HF_CHECK(tb.m->tvalid);
	HF_CHECK_EQ(tb.m->next_ns, ~0ull);	/* stalled on tready */
	tb.ready = [] { return true; };
	tb.until_frames(1);
	tb.steps(2);
	HF_CHECK(tb.m->next_ns > tb.t);
	HF_CHECK_EQ(tb.m->next_ns, t_en + 10000);
	tb.ready = [] { return false; };
	tb.w(R(CTRL), ENABLE | DROP);
	tb.t = tb.m->next_ns;
	tb.steps(20);
	HF_CHECK(tb.m->tvalid);
	HF_CHECK(tb.m->next_ns > tb.t);		/* the next drop */
	tb.t = tb.m->next_ns;
	tb.steps(3);
	HF_CHECK_EQ(tb.rd(R(DROPPED)), 1);
	tb.w(R(COUNT), 1);			/* no frame left */
	HF_CHECK_EQ(tb.m->next_ns, ~0ull);
}
#endif /* TB_REDUCED */
