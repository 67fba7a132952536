// SPDX-License-Identifier: MIT
/*
 * tb_top.cpp - testbench of hf_refdesign.sv through its ports: the user BAR
 * as an AXI4-Lite master sees it (hf_axil_regs.sv, hf_ram.sv), the user
 * interrupts' request/acknowledge handshake (hf_usr_irq.sv) and the
 * loopback (hf_st_loop.sv).  Two cards: vtop (AXI-Stream, two channel
 * pairs, 64 bits) and vtop_mm (memory-mapped: ST=0).
 */
#include "vtop.h"
#include "vtop_mm.h"

#include <deque>
#include <functional>

#include "hf_user_regs.h"
#include "tb.h"

static const uint32_t DDR_MB = 4096;
static const int NCH = 2;	/* vtop's channel pairs */
static const int B = 8;		/* bytes per beat */

struct Beat {
	uint64_t data;
	uint8_t keep;
	bool last;
	bool operator==(const Beat &o) const
	{
		return data == o.data && keep == o.keep && last == o.last;
	}
};

template <typename M> struct TopTb : Clocked<M> {
	using Clocked<M>::m;
	using Clocked<M>::tick;
	uint64_t t = 1000;
	unsigned errs = 0;		/* reg_err pulses */
	bool aw_hs, w_hs, b_hs, ar_hs, r_hs;
	std::deque<Beat> h2c[NCH];	/* to send */
	std::vector<Beat> c2h[NCH];	/* received */
	uint64_t h2c_taken[NCH] = {};
	std::vector<uint16_t> irq_trace;	/* usr_irq_req per clock */
	std::function<bool(int)> c2h_ready = [](int) { return true; };

	TopTb()
	{
		m->ddr_size_mb = DDR_MB;
		m->s_axil_awvalid = 0;
		m->s_axil_wvalid = 0;
		m->s_axil_bready = 0;
		m->s_axil_arvalid = 0;
		m->s_axil_rready = 0;
		m->usr_irq_ack = 0;
		this->reset();
		steps(1100);		/* the RAM is cleared after reset */
	}

	void pre_edge() override
	{
		aw_hs = m->s_axil_awvalid && m->s_axil_awready;
		w_hs = m->s_axil_wvalid && m->s_axil_wready;
		b_hs = m->s_axil_bvalid && m->s_axil_bready;
		ar_hs = m->s_axil_arvalid && m->s_axil_arready;
		r_hs = m->s_axil_rvalid && m->s_axil_rready;
		errs += m->reg_err;
		irq_trace.push_back(m->usr_irq_req);
		for (int c = 0; c < nch(); c++) {
			if (tb_bit(m->c2h_tvalid, c) && tb_bit(m->c2h_tready, c))
				c2h[c].push_back(Beat{tb_u64(m->c2h_tdata, c),
						      (uint8_t)(tb_word(m->c2h_tkeep, 0) >> (8 * c)),
						      tb_bit(m->c2h_tlast, c)});
			if (tb_bit(m->h2c_tvalid, c) && tb_bit(m->h2c_tready, c))
				h2c_taken[c]++;
		}
	}
	/* vtop has NCH channel pairs, vtop_mm one */
	int nch() const { return sizeof(m->c2h_tdata) > 8 ? NCH : 1; }

	/* one clock: the H2C beats at the heads of the queues, C2H tready */
	void step()
	{
		for (int c = 0; c < nch(); c++) {
			bool v = !h2c[c].empty();
			Beat bt = v ? h2c[c].front() : Beat{0, 0, false};

			tb_set_bit(m->h2c_tvalid, c, v);
			tb_set_bit(m->h2c_tlast, c, bt.last);
			for (int i = 0; i < B; i++) {
				tb_set_byte(m->h2c_tdata, c * B + i, (uint8_t)(bt.data >> (8 * i)));
				tb_set_bit(m->h2c_tkeep, c * B + i, (bt.keep >> i) & 1);
			}
			tb_set_bit(m->c2h_tready, c, c2h_ready(c));
		}
		m->time_ns = t;
		uint64_t before[NCH];

		for (int c = 0; c < nch(); c++)
			before[c] = h2c_taken[c];
		tick();
		t += 4;
		for (int c = 0; c < nch(); c++)
			if (h2c_taken[c] != before[c])
				h2c[c].pop_front();
	}
	void steps(int n)
	{
		while (n--)
			step();
	}

	/*
	 * AXI4-Lite write: AW and W offered @aw_at and @w_at clocks after the
	 * start (each until its handshake), BREADY @b_at clocks after both.
	 * Returns the reg_err pulses it caused.
	 */
	unsigned write(uint32_t addr, uint32_t val, uint8_t strb = 0xf,
		       int aw_at = 0, int w_at = 0, int b_at = 0)
	{
		unsigned e0 = errs;
		bool aw = false, w = false;
		int c = 0;

		m->s_axil_awaddr = addr;
		m->s_axil_wdata = val;
		m->s_axil_wstrb = strb;
		while (!aw || !w) {
			HF_CHECK_MSG(c < 5000, "write 0x%x: no AW/W handshake", addr);
			m->s_axil_awvalid = !aw && c >= aw_at;
			m->s_axil_wvalid = !w && c >= w_at;
			step();
			aw |= aw_hs;
			w |= w_hs;
			c++;
		}
		m->s_axil_awvalid = 0;
		m->s_axil_wvalid = 0;
		for (c = 0; !b_hs; c++) {
			HF_CHECK_MSG(c < 100, "write 0x%x: no B", addr);
			m->s_axil_bready = c >= b_at;
			step();
		}
		HF_CHECK_EQ(m->s_axil_bresp, 0);
		m->s_axil_bready = 0;
		steps(2);
		return errs - e0;
	}
	void w(uint32_t addr, uint32_t val)
	{
		HF_CHECK_MSG(!write(addr, val), "write 0x%x to 0x%x: reg_err", val, addr);
	}
	/* AXI4-Lite read; *@err: the reg_err pulses it caused */
	uint32_t read(uint32_t addr, unsigned *err, int r_at = 0)
	{
		unsigned e0 = errs;
		int c;

		m->s_axil_araddr = addr;
		m->s_axil_arvalid = 1;
		for (c = 0; !ar_hs; c++) {
			HF_CHECK_MSG(c < 5000, "read 0x%x: no AR handshake", addr);
			step();
		}
		m->s_axil_arvalid = 0;
		uint32_t v = 0;

		for (c = 0; !r_hs; c++) {
			HF_CHECK_MSG(c < 100, "read 0x%x: no R", addr);
			m->s_axil_rready = c >= r_at;
			v = m->s_axil_rdata;
			step();
		}
		HF_CHECK_EQ(m->s_axil_rresp, 0);
		m->s_axil_rready = 0;
		steps(2);
		*err = errs - e0;
		return v;
	}
	uint32_t r(uint32_t addr)
	{
		unsigned e;
		uint32_t v = read(addr, &e);

		HF_CHECK_MSG(!e, "read of 0x%x: reg_err", addr);
		return v;
	}
	/* H2C frame @f of channel @c as 8-byte beats */
	void send(int c, const std::vector<uint8_t> &f)
	{
		for (size_t off = 0; off < f.size(); off += B) {
			Beat bt{0, 0, off + B >= f.size()};

			for (size_t i = 0; i < B && off + i < f.size(); i++) {
				bt.data |= (uint64_t)f[off + i] << (8 * i);
				bt.keep |= 1 << i;
			}
			h2c[c].push_back(bt);
		}
	}
};

using Tb = TopTb<vtop>;

static std::vector<uint8_t> frame(uint64_t seq, uint32_t len)
{
	std::vector<uint8_t> f(len);

	rtl_fill(f.data(), seq, len, 0, len);
	return f;
}

/* ID, VERSION (1.2: LOOPBACK), DDR_SIZE_MB from its input */
HF_TEST(id_version_ddr_size)
{
	Tb tb;

	HF_CHECK_EQ(tb.r(HF_USER_ID), HF_USER_ID_VALUE);
	HF_CHECK_EQ(tb.r(HF_USER_VERSION), HF_USER_VERSION_LOOPBACK);
	HF_CHECK_EQ(tb.r(HF_USER_DDR_SIZE_MB), DDR_MB);
	HF_CHECK_EQ(tb.errs, 0);
}

/* SCRATCH and RAM: RW, byte strobes honoured */
HF_TEST(byte_strobes_scratch_ram)
{
	Tb tb;

	for (uint32_t a : {(uint32_t)HF_USER_SCRATCH, (uint32_t)HF_USER_RAM,
			   (uint32_t)HF_USER_RAM + 0x7f4, 0x1ffcu}) {
		tb.w(a, 0x11223344);
		HF_CHECK(!tb.write(a, 0xaabbccdd, 0x5));
		HF_CHECK_EQ(tb.r(a), 0x11bb33dd);
		HF_CHECK(!tb.write(a, 0xeeeeeeee, 0x0));
		HF_CHECK(!tb.write(a, 0xffeeddcc, 0xa));
		HF_CHECK_EQ(tb.r(a), 0xffbbdddd);
	}
	HF_CHECK_EQ(tb.r(HF_USER_RAM + 4), 0);
}

/* The RAM and every register read 0 after a reset. */
HF_TEST(reset_clears_ram_and_registers)
{
	Tb tb;

	tb.w(HF_USER_RAM + 0x40, 0x12345678);
	tb.w(HF_USER_SCRATCH, 7);
	tb.w(HF_USER_IRQ_SET, 0x3);
	tb.w(HF_USER_LOOPBACK, 0x3);
	tb.reset(1);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0);
	HF_CHECK_EQ(tb.r(HF_USER_RAM + 0x40), 0);	/* waits for the clearing */
	HF_CHECK_EQ(tb.r(HF_USER_SCRATCH), 0);
	HF_CHECK_EQ(tb.r(HF_USER_IRQ_REQ), 0);
	HF_CHECK_EQ(tb.r(HF_USER_LOOPBACK), 0);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE), 4096);
}

struct order_row {
	const char *name;
	int aw_at, w_at, b_at;
};

static const order_row order_rows[] = {
	{"together", 0, 0, 0},
	{"aw_first", 0, 5, 0},
	{"w_first", 5, 0, 0},
	{"bready_late", 0, 0, 9},
	{"w_first_bready_late", 3, 0, 4},
};

/* AW and W in any order, together or apart; B whenever BREADY comes. */
static void aw_w_order(const void *row)
{
	const order_row *o = (const order_row *)row;
	Tb tb;

	HF_CHECK(!tb.write(HF_USER_SCRATCH, 0xc0ffee00 + o->aw_at, 0xf,
			   o->aw_at, o->w_at, o->b_at));
	HF_CHECK(!tb.write(HF_USER_RAM + 8, 0xbeef0000 + o->w_at, 0xf,
			   o->aw_at, o->w_at, o->b_at));
	unsigned e;

	HF_CHECK_EQ(tb.read(HF_USER_SCRATCH, &e, o->b_at), 0xc0ffee00 + o->aw_at);
	HF_CHECK_EQ(tb.read(HF_USER_RAM + 8, &e, o->b_at), 0xbeef0000 + o->w_at);
	HF_CHECK_EQ(tb.errs, 0);
}
HF_TEST_ROWS(aw_w_order, order_rows, aw_w_order)

/*
 * reg_err, one pulse per access: reserved offsets (read 0), RO registers,
 * a register other than SCRATCH and RAM written without all four strobes
 * (ignored), a length out of range (ignored).
 */
HF_TEST(reg_err_pulses)
{
	Tb tb;
	unsigned e;

	for (uint32_t a : {0x0024u, 0x00fcu, 0x0ffcu, 0x2034u, 0x20fcu,
			   0x2200u /* source 2 of 2 */, 0x2400u, 0x3020u,
			   0x3200u /* sink 2 of 2 */, 0x3400u, 0x4000u, 0xfffcu}) {
		HF_CHECK_EQ(tb.read(a, &e), 0);
		HF_CHECK_MSG(e == 1, "read of 0x%x: %u reg_err pulses", a, e);
		HF_CHECK_MSG(tb.write(a, 0x5a5a5a5a) == 1, "write of 0x%x", a);
	}
	for (uint32_t a : {(uint32_t)HF_USER_ID, (uint32_t)HF_USER_VERSION,
			   (uint32_t)HF_USER_IRQ_REQ, (uint32_t)HF_USER_DDR_SIZE_MB,
			   (uint32_t)HF_USER_ST_SRC(1) + HF_ST_SRC_SENT,
			   (uint32_t)HF_USER_ST_SINK(0) + HF_ST_SINK_FRAMES_OK})
		HF_CHECK_MSG(tb.write(a, 1) == 1, "write of RO 0x%x", a);
	HF_CHECK_EQ(tb.write(HF_USER_IRQ_SET, 0xffff, 0x3), 1);
	HF_CHECK_EQ(tb.write(HF_USER_IRQ_PULSE, 0xffff, 0x1), 1);
	HF_CHECK_EQ(tb.write(HF_USER_LOOPBACK, 0x3, 0xe), 1);
	HF_CHECK_EQ(tb.write(HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE, 100, 0x1), 1);
	HF_CHECK_EQ(tb.write(HF_USER_ST_SRC(1) + HF_ST_SRC_REC_MAX, 8), 1);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0);
	HF_CHECK_EQ(tb.r(HF_USER_LOOPBACK), 0);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE), 4096);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SRC(1) + HF_ST_SRC_REC_MAX), 4096);
	HF_CHECK_EQ(tb.write(HF_USER_ST_SRC(1) + HF_ST_SRC_REC_MAX, 16), 0);
	/* address bits [1:0] are ignored */
	tb.w(HF_USER_SCRATCH + 2, 0x600d);
	HF_CHECK_EQ(tb.r(HF_USER_SCRATCH + 1), 0x600d);
}

/* Level lines: IRQ_SET raises, acknowledgements do not drop, IRQ_CLEAR does;
 * IRQ_SET, IRQ_CLEAR, IRQ_REQ and IRQ_PULSE all read the lines. */
HF_TEST(irq_level_lines)
{
	Tb tb;

	tb.w(HF_USER_IRQ_SET, 0x18005);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x8005);
	tb.m->usr_irq_ack = 0xffff;
	tb.steps(3);
	tb.m->usr_irq_ack = 0;
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x8005);
	for (uint32_t a : {HF_USER_IRQ_SET, HF_USER_IRQ_CLEAR, HF_USER_IRQ_REQ,
			   HF_USER_IRQ_PULSE})
		HF_CHECK_EQ(tb.r(a), 0x8005);
	tb.w(HF_USER_IRQ_CLEAR, 0x8001);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x4);
}

/* A pulse line stays up until usr_irq_ack of its bit is high for a clock. */
HF_TEST(irq_pulse_until_ack)
{
	Tb tb;

	tb.w(HF_USER_IRQ_PULSE, 0x0120);
	tb.steps(50);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x0120);
	tb.m->usr_irq_ack = 0x0020;
	tb.steps(1);
	tb.m->usr_irq_ack = 0;
	tb.steps(1);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x0100);
	tb.w(HF_USER_IRQ_CLEAR, 0x0100);	/* CLEAR drops a pulse too */
	HF_CHECK_EQ(tb.m->usr_irq_req, 0);
}

/* A pulse set in the clock of an ack of its line wins: up for that clock. */
HF_TEST(irq_pulse_set_wins_over_ack)
{
	Tb tb;

	tb.m->usr_irq_ack = 0xffff;		/* acknowledging all along */
	tb.irq_trace.clear();
	tb.w(HF_USER_IRQ_PULSE, 0x0002);
	int up = 0;

	for (uint16_t l : tb.irq_trace)
		up += (l >> 1) & 1;
	HF_CHECK_EQ(up, 1);
	HF_CHECK_EQ(tb.m->usr_irq_req, 0);
}

/* A source's frame end with CTRL.IRQ pulses its line until the ack. */
HF_TEST(irq_source_frame_end)
{
	Tb tb;
	uint32_t src = HF_USER_ST_SRC(1);

	tb.w(src + HF_ST_SRC_FRAME_SIZE, 64);
	tb.w(src + HF_ST_SRC_COUNT, 2);
	tb.w(src + HF_ST_SRC_INTERVAL_NS, 4000);
	tb.w(src + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE | HF_ST_SRC_CTRL_IRQ |
				   3u << HF_ST_SRC_CTRL_IRQ_SHIFT);
	for (int i = 0; i < 100 && !tb.m->usr_irq_req; i++)
		tb.step();
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x8);
	HF_CHECK_EQ(tb.c2h[1].size(), 8);
	tb.m->usr_irq_ack = 0x8;
	tb.step();
	tb.m->usr_irq_ack = 0;
	tb.step();
	HF_CHECK_EQ(tb.m->usr_irq_req, 0);
	for (int i = 0; i < 2000 && !tb.m->usr_irq_req; i++)
		tb.step();
	HF_CHECK_EQ(tb.m->usr_irq_req, 0x8);
	HF_CHECK_EQ(tb.c2h[1].size(), 16);
}

/*
 * Loopback: channel 0's H2C packets come back on its C2H, beats unchanged,
 * under back-pressure on both sides; channel 0's sink sees nothing, channel
 * 1 keeps its own sink.
 */
HF_TEST(loopback_echoes_packets)
{
	Rng rng = tb_rng();
	Tb tb;
	std::vector<Beat> sent;

	tb.w(HF_USER_LOOPBACK, 0x1);
	HF_CHECK_EQ(tb.r(HF_USER_LOOPBACK), 0x1);
	tb.c2h_ready = [&rng](int) { return rng.chance(60); };
	for (int p = 0; p < 40; p++) {
		uint32_t n = rng.range(1, 20);

		for (uint32_t i = 0; i < n; i++) {
			Beat bt{rng.next(), 0xff, i == n - 1};

			if (bt.last)
				bt.keep = (uint8_t)((1u << rng.range(1, 8)) - 1);
			tb.h2c[0].push_back(bt);
			sent.push_back(bt);
		}
	}
	tb.send(1, frame(77, 200));
	for (int i = 0; i < 20000 && tb.c2h[0].size() < sent.size(); i++)
		tb.step();
	HF_CHECK_EQ(tb.c2h[0].size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++)
		HF_CHECK_MSG(tb.c2h[0][i] == sent[i], "beat %zu changed", i);
	tb.steps(50);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SINK(0) + HF_ST_SINK_BYTES_LO), 0);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SINK(1) + HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SINK(1) + HF_ST_SINK_LAST_SEQ_LO), 77);
}

/*
 * Routes switch between packets: a packet under way when LOOPBACK is set
 * ends in the sink, the next one loops; with LOOPBACK cleared the FIFO
 * drains before the source has the C2H port again.
 */
HF_TEST(loopback_switches_between_packets)
{
	Tb tb;
	uint32_t src = HF_USER_ST_SRC(0);
	std::vector<uint8_t> a = frame(5, 30 * B), b = frame(6, 20 * B);

	tb.c2h_ready = [](int) { return false; };
	tb.send(0, a);
	tb.steps(10);				/* a under way to the sink */
	tb.w(HF_USER_LOOPBACK, 0x1);
	tb.send(0, b);				/* b loops */
	tb.w(src + HF_ST_SRC_FRAME_SIZE, 3 * B);
	tb.w(src + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE);	/* paused */
	tb.steps(100);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SINK(0) + HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_EQ(tb.r(HF_USER_ST_SINK(0) + HF_ST_SINK_LAST_SEQ_LO), 5);
	tb.w(HF_USER_LOOPBACK, 0);
	tb.steps(20);
	HF_CHECK(tb.c2h[0].empty());		/* no tready yet */
	tb.c2h_ready = [](int) { return true; };
	tb.steps(200);
	HF_CHECK(tb.c2h[0].size() > 20 + 3);
	for (int i = 0; i < 20; i++) {		/* b first, whole */
		uint64_t d = 0;

		for (int k = 0; k < B; k++)
			d |= (uint64_t)b[i * B + k] << (8 * k);
		HF_CHECK_EQ(tb.c2h[0][i].data, d);
		HF_CHECK_EQ(tb.c2h[0][i].last, i == 19);
	}
	std::vector<uint8_t> f0 = frame(0, 3 * B);	/* then the source */

	for (int i = 0; i < 3; i++) {
		uint64_t d = 0;

		for (int k = 0; k < B; k++)
			d |= (uint64_t)f0[i * B + k] << (8 * k);
		HF_CHECK_EQ(tb.c2h[0][20 + i].data, d);
	}
}

/* The loop FIFO's room is h2c_tready: LOOP_DEPTH beats (and its output
 * register) without C2H tready, then they all come out in order. */
HF_TEST(loopback_backpressure)
{
	Tb tb;

	tb.c2h_ready = [](int) { return false; };
	tb.w(HF_USER_LOOPBACK, 0x3);
	for (uint64_t i = 0; i < 600; i++)
		tb.h2c[1].push_back(Beat{i, 0xff, i % 7 == 6 || i == 599});
	tb.steps(1000);
	HF_CHECK_EQ(tb.h2c_taken[1], 513);
	HF_CHECK(!tb_bit(tb.m->h2c_tready, 1));
	tb.c2h_ready = [](int) { return true; };
	tb.steps(700);
	HF_CHECK_EQ(tb.c2h[1].size(), 600);
	for (uint64_t i = 0; i < 600; i++)
		HF_CHECK_EQ(tb.c2h[1][i].data, i);
}

/* A memory-mapped card (ST=0): the stream offsets and LOOPBACK reserved. */
HF_TEST(mm_card_reserves_stream_offsets)
{
	TopTb<vtop_mm> tb;
	unsigned e;

	HF_CHECK_EQ(tb.r(HF_USER_ID), HF_USER_ID_VALUE);
	for (uint32_t a : {(uint32_t)HF_USER_LOOPBACK, (uint32_t)HF_USER_ST_SRC(0),
			   (uint32_t)HF_USER_ST_SINK(0) + HF_ST_SINK_PARTIAL}) {
		HF_CHECK_EQ(tb.read(a, &e), 0);
		HF_CHECK_EQ(e, 1);
		HF_CHECK_EQ(tb.write(a, 1), 1);
	}
	HF_CHECK_EQ(tb.m->c2h_next_ns, ~0ull);
	HF_CHECK(!tb.m->h2c_tready);
}
