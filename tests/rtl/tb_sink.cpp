// SPDX-License-Identifier: MIT
/*
 * tb_sink.cpp - testbench of hf_st_sink.sv, the checking H2C sink (one
 * channel), built once per data width (TB_MODEL, -GDATA_W=DATA_W).
 *
 * Frames are made by hf_stream_fill() (good ones) and then corrupted in
 * the ways a frame can be wrong; they go in as beats of any number of
 * bytes (tkeep: the low n lanes; the other lanes carry noise), with or
 * without idle clocks.  The same pieces go through hf_stream_check_feed()
 * and _end() of refdesign/hf_stream_pattern.h (rtl_pattern.c): the sink's
 * counters must equal what the C check counts.
 */
#include TB_MODEL_H

#include <chrono>
#include <deque>

#include "hf_user_regs.h"
#include "tb.h"

static const uint32_t B = DATA_W / 8;
static const int LAG = 24;	/* clocks until the counters show a beat */

#define R(reg) (HF_ST_SINK_##reg)

struct Beat {
	std::vector<uint8_t> b;	/* up to B bytes */
	bool last;
};

/* what the C check makes of the beats */
struct Ref {
	struct rtl_check *c = rtl_check_new();
	uint32_t ok = 0, bad = 0;
	uint64_t bytes = 0, last_seq = 0;

	~Ref() { rtl_check_free(c); }
	void beat(const Beat &bt)
	{
		if (!bt.b.empty()) {
			rtl_check_feed(c, bt.b.data(), bt.b.size());
			bytes += bt.b.size();
		}
		if (bt.last) {
			uint64_t seq;

			if (rtl_check_end(c, &seq)) {
				ok++;
				last_seq = seq;
			} else {
				bad++;
			}
		}
	}
	void clear()
	{
		rtl_check_free(c);
		c = rtl_check_new();
		ok = bad = 0;
		bytes = last_seq = 0;
	}
};

struct SinkTb : Clocked<TB_MODEL>, RegPort<SinkTb> {
	Rng rng;
	std::deque<Beat> q;
	unsigned idle_pct = 0;		/* clocks without a beat */
	bool hold = false;		/* no beat at all */
	Ref ref;

	explicit SinkTb(Rng r) : rng(r)
	{
		m->reg_rd = 0;
		m->reg_wr = 0;
		m->tvalid = 0;
		reset();
	}

	/* one clock: the next beat, or none */
	void step()
	{
		bool v = !hold && !q.empty() && !rng.chance(idle_pct);

		m->tvalid = v;
		m->tlast = 0;
		for (int i = 0; i < B; i++) {
			tb_set_byte(m->tdata, i, (uint8_t)rng.next());
			tb_set_bit(m->tkeep, i, 0);
		}
		if (v) {
			const Beat &bt = q.front();

			for (size_t i = 0; i < bt.b.size(); i++) {
				tb_set_byte(m->tdata, i, bt.b[i]);
				tb_set_bit(m->tkeep, i, 1);
			}
			m->tlast = bt.last;
			ref.beat(bt);
		}
		tick();
		if (v)
			q.pop_front();
	}
	void drain()
	{
		while (!q.empty())
			step();
		for (int i = 0; i < LAG; i++)
			step();
	}

	/*
	 * Frame @f as beats: full ones (@split 0), or of random sizes
	 * (@split 1: 0 .. B bytes, null beats too), the last with TLAST.
	 */
	void send(const std::vector<uint8_t> &f, int split)
	{
		size_t off = 0;

		do {
			size_t n = split ? rng.range(0, B) : B;

			n = std::min(n, f.size() - off);
			Beat bt{std::vector<uint8_t>(f.begin() + off, f.begin() + off + n),
				off + n == f.size()};
			off += n;
			q.push_back(bt);
		} while (off < f.size());
	}
	/* the counters equal the C check's */
	void check_counters()
	{
		drain();
		HF_CHECK_EQ(rd(R(FRAMES_OK)), ref.ok);
		HF_CHECK_EQ(rd(R(FRAMES_BAD)), ref.bad);
		HF_CHECK_EQ(rd64(R(BYTES_LO)), ref.bytes);
		HF_CHECK_EQ(rd64(R(LAST_SEQ_LO)), ref.last_seq);
		HF_CHECK_EQ(rd(R(PARTIAL)), rtl_check_got(ref.c));
	}
};

static std::vector<uint8_t> good_frame(uint64_t seq, uint32_t len)
{
	std::vector<uint8_t> f(len);

	rtl_fill(f.data(), seq, len, 0, len);
	return f;
}

enum corrupt {
	C_NONE, C_FLIP_SEQ, C_FLIP_LEN, C_FLIP_MAGIC, C_FLIP_FIRST_PATTERN,
	C_FLIP_ANY, C_FLIP_LAST, C_TRUNCATED, C_EXTENDED, C_SHORT, C_LEN_BELOW_16,
	C_EMPTY, C_OTHER_SEQ, C_COUNT
};

/* frame (@seq, @len), corrupted as @how says */
static std::vector<uint8_t> make_frame(Rng &rng, uint64_t seq, uint32_t len,
				       int how)
{
	std::vector<uint8_t> f = good_frame(seq, len);
	uint8_t bit = (uint8_t)(1u << rng.below(8));

	switch (how) {
	case C_FLIP_SEQ:
		f[rng.below(8)] ^= bit;
		break;
	case C_FLIP_LEN:
		f[8 + rng.below(4)] ^= bit;
		break;
	case C_FLIP_MAGIC:
		f[12 + rng.below(4)] ^= bit;
		break;
	case C_FLIP_FIRST_PATTERN:
		if (len > 16)
			f[16] ^= bit;
		break;
	case C_FLIP_ANY:
		f[rng.below(len)] ^= bit;
		break;
	case C_FLIP_LAST:
		f[len - 1] ^= bit;
		break;
	case C_TRUNCATED:
		f.resize(rng.range(1, len - 1));
		break;
	case C_EXTENDED:
		for (uint32_t i = rng.range(1, 2 * B); i; i--)
			f.push_back((uint8_t)rng.next());
		break;
	case C_SHORT:
		f.resize(rng.range(1, 15));
		break;
	case C_LEN_BELOW_16: {
		uint32_t l = rng.below(16);

		for (int i = 0; i < 4; i++)
			f[8 + i] = (uint8_t)(l >> (8 * i));
		break;
	}
	case C_EMPTY:
		f.clear();
		break;
	case C_OTHER_SEQ: {		/* a whole frame with another's pattern */
		std::vector<uint8_t> g = good_frame(seq + 1, len);

		std::copy(g.begin() + 16, g.end(), f.begin() + 16);
		break;
	}
	}
	return f;
}

/*
 * The equivalence of the sink with hf_stream_check: good and corrupted
 * frames of random sequence numbers and lengths, in beats of random sizes
 * with idle clocks; the counters compared after every frame.
 */
HF_TEST(matches_c_check_per_frame)
{
	SinkTb tb(tb_rng());

	tb.idle_pct = 20;
	for (int i = 0; i < 300; i++) {
		uint32_t len = tb.rng.range(16, i % 3 ? 5 * B : 3000);
		int how = tb.rng.chance(40) ? C_NONE : (int)tb.rng.below(C_COUNT);

		tb.send(make_frame(tb.rng, tb.rng.next(), len, how),
			tb.rng.chance(50));
		tb.check_counters();
	}
	HF_CHECK(tb.ref.ok > 10 && tb.ref.bad > 10);
}

/* Frames back to back, a beat every clock, every length mod the width. */
HF_TEST(full_rate_every_len_mod_width)
{
	SinkTb tb(tb_rng());
	uint64_t seq = tb.rng.next();

	for (uint32_t r = 0; r < 2 * B; r++) {
		tb.send(good_frame(seq++, 16 + r), 0);
		tb.send(good_frame(seq++, 5 * B + r), 0);
	}
	uint64_t c0 = tb.cycles, beats = tb.q.size();

	tb.drain();
	HF_CHECK_EQ(tb.cycles - c0, beats + LAG);	/* one beat per clock */
	tb.check_counters();
	HF_CHECK_EQ(tb.ref.ok, 4 * B);
	HF_CHECK_EQ(tb.ref.bad, 0);
}

/* Random frames at full rate, the counters compared at the end. */
HF_TEST(matches_c_check_full_rate)
{
	SinkTb tb(tb_rng());

	for (int i = 0; i < 1000; i++) {
		int how = tb.rng.chance(60) ? C_NONE : (int)tb.rng.below(C_COUNT);

		tb.send(make_frame(tb.rng, tb.rng.next(), tb.rng.range(16, 4 * B), how),
			tb.rng.chance(30));
	}
	tb.check_counters();
}

/*
 * Not a check but a benchmark: beats per clock the sink takes and checks
 * with a beat offered every clock (4 KiB frames), and how fast the
 * simulation runs; printed.  HF_RTL_BENCH_CLOCKS clocks (20000).
 */
HF_TEST(bench)
{
	const char *e = getenv("HF_RTL_BENCH_CLOCKS");
	uint64_t n = e && *e ? strtoull(e, nullptr, 0) : 20000;
	SinkTb tb(Rng(1));
	uint64_t seq = 0;

	while (tb.q.size() < n + LAG)
		tb.send(good_frame(seq++, 4096), 0);
	uint64_t b0 = tb.rd64(R(BYTES_LO));
	auto t0 = std::chrono::steady_clock::now();

	for (uint64_t i = 0; i < n; i++)
		tb.step();
	double s = std::chrono::duration<double>(
		std::chrono::steady_clock::now() - t0).count();
	uint64_t b1 = tb.rd64(R(BYTES_LO));

	hf_test_log("sink, %u bits, frames of 4 KiB: %.4f beats per clock checked (%llu clocks), %.0f clocks/s simulated",
		    DATA_W, (double)(b1 - b0) / B / n, (unsigned long long)n, n / s);
	HF_CHECK(b1 > b0);
	HF_CHECK(tb.rd(R(FRAMES_BAD)) == 0);
}

#ifndef TB_REDUCED	/* 256 bits: the cases above and clear_mid_frame */
struct corrupt_row {
	const char *name;
	int how;
};

static const corrupt_row corrupt_rows[] = {
	{"seq", C_FLIP_SEQ},
	{"len", C_FLIP_LEN},
	{"magic", C_FLIP_MAGIC},
	{"first_pattern_byte", C_FLIP_FIRST_PATTERN},
	{"last_byte", C_FLIP_LAST},
	{"truncated", C_TRUNCATED},
	{"extended", C_EXTENDED},
	{"shorter_than_header", C_SHORT},
	{"len_below_16", C_LEN_BELOW_16},
	{"empty", C_EMPTY},
	{"other_frames_pattern", C_OTHER_SEQ},
};

/* A corrupted frame between two good ones: bad; the good ones count. */
static void corrupted(const void *row)
{
	const corrupt_row *r = (const corrupt_row *)row;
	SinkTb tb(tb_rng());
	uint64_t seq = tb.rng.next();

	for (int split = 0; split < 2; split++) {
		tb.send(good_frame(seq, 3 * B + 5), split);
		tb.send(make_frame(tb.rng, seq + 1, 3 * B + 7, r->how), split);
		tb.send(good_frame(seq + 2, 2 * B + 1), split);
		tb.check_counters();
	}
	HF_CHECK_EQ(tb.ref.ok, 4);
	HF_CHECK_EQ(tb.ref.bad, 2);
	HF_CHECK_EQ(tb.rd64(R(LAST_SEQ_LO)), seq + 2);
}
HF_TEST_ROWS(corrupted, corrupt_rows, corrupted)

/* PARTIAL: the bytes of the frame in progress; 0 after its TLAST. */
HF_TEST(partial_is_frame_in_progress)
{
	SinkTb tb(tb_rng());
	std::vector<uint8_t> f = good_frame(7, 10 * B + 3);

	tb.send(f, 1);
	while (tb.q.size() > 1)
		tb.step();
	tb.hold = true;
	tb.step();				/* the beat in stage 0 */
	HF_CHECK_EQ(tb.rd(R(PARTIAL)), rtl_check_got(tb.ref.c));
	HF_CHECK(rtl_check_got(tb.ref.c) < f.size());
	tb.hold = false;
	tb.drain();
	HF_CHECK_EQ(tb.rd(R(PARTIAL)), 0);
	HF_CHECK_EQ(tb.rd(R(FRAMES_OK)), 1);
}

#endif

/*
 * CTRL.CLEAR in the middle of a frame: counters to 0, the frame dropped;
 * the rest of it, up to its TLAST, counts as a (bad) frame.
 */
HF_TEST(clear_mid_frame)
{
	SinkTb tb(tb_rng());
	std::vector<uint8_t> f = good_frame(9, 12 * B);

	tb.send(good_frame(8, 100), 0);
	tb.send(f, 0);
	while (tb.q.size() > 6)
		tb.step();
	HF_CHECK(!tb.wr(R(CTRL), HF_ST_SINK_CTRL_CLEAR));
	tb.ref.clear();
	tb.check_counters();
	HF_CHECK_EQ(tb.ref.bad, 1);
	HF_CHECK_EQ(tb.ref.ok, 0);
	HF_CHECK_EQ(tb.ref.bytes, 5 * B);
	tb.send(good_frame(10, 100), 1);
	tb.check_counters();
	HF_CHECK_EQ(tb.ref.ok, 1);
}

#ifndef TB_REDUCED
/* Reset in the middle of a frame: everything to 0; the next frame counts. */
HF_TEST(reset_mid_frame)
{
	SinkTb tb(tb_rng());

	tb.send(good_frame(1, 200), 0);
	tb.send(good_frame(2, 12 * B), 1);
	while (tb.q.size() > 3)
		tb.step();
	tb.m->tvalid = 0;
	tb.reset(1);
	tb.q.clear();
	tb.ref.clear();
	tb.check_counters();
	tb.send(good_frame(3, 3 * B), 1);
	tb.check_counters();
	HF_CHECK_EQ(tb.ref.ok, 1);
	HF_CHECK_EQ(tb.rd64(R(LAST_SEQ_LO)), 3);
}

/* A TLAST beat with no byte (tkeep 0) ends the frame. */
HF_TEST(tlast_without_bytes)
{
	SinkTb tb(tb_rng());
	std::vector<uint8_t> f = good_frame(0x123456789aull, 4 * B);

	for (size_t off = 0; off < f.size(); off += B)
		tb.q.push_back(Beat{std::vector<uint8_t>(f.begin() + off,
							 f.begin() + off + B), false});
	tb.q.push_back(Beat{{}, true});
	tb.check_counters();
	HF_CHECK_EQ(tb.ref.ok, 1);
	HF_CHECK_EQ(tb.rd64(R(LAST_SEQ_LO)), 0x123456789aull);
}

/*
 * Registers: CTRL reads 0; RO and reserved offsets (reg_err, reads 0);
 * LAST_SEQ_LO and BYTES_LO latch the high halves.
 */
HF_TEST(registers)
{
	SinkTb tb(tb_rng());

	HF_CHECK_EQ(tb.rd(R(CTRL)), 0);
	check_ro_reserved(tb, {R(FRAMES_OK), R(FRAMES_BAD), R(BYTES_LO),
			       R(BYTES_HI), R(LAST_SEQ_LO), R(LAST_SEQ_HI),
			       R(PARTIAL), 0x20, 0xfc},
			  {0x20, 0x24, 0xfc});
	tb.send(good_frame(0x500000001ull, 64), 0);
	tb.drain();
	HF_CHECK_EQ(tb.rd(R(LAST_SEQ_HI)), 0);
	HF_CHECK_EQ(tb.rd(R(LAST_SEQ_LO)), 1);
	tb.send(good_frame(0x600000002ull, 64), 0);
	tb.drain();
	HF_CHECK_EQ(tb.rd(R(LAST_SEQ_HI)), 5);	/* as latched */
	HF_CHECK_EQ(tb.rd(R(LAST_SEQ_LO)), 2);
	HF_CHECK_EQ(tb.rd(R(LAST_SEQ_HI)), 6);
	HF_CHECK_EQ(tb.rd(R(BYTES_HI)), 0);
	HF_CHECK_EQ(tb.rd(R(BYTES_LO)), 128);
}
#endif /* TB_REDUCED */
