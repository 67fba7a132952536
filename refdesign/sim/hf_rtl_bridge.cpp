// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * hf_rtl_bridge.cpp - the reference design's RTL (refdesign/rtl/) as the
 * emulated card's user logic: model/xdma_user.h's ops on a Verilator model
 * of hf_refdesign, loaded as a plugin (refdesign/hf_rtl_load.h) by the
 * in-process card ("emu:N,rtl") and QEMU's xdma-sim (rtl=on).
 *
 * What the ops become (docs/refdesign.md, "Co-simulation"):
 *  - a user BAR access is an AXI4-Lite transaction, clocked until its
 *    response; reg_err of the RTL becomes the IP's guest_error();
 *  - time: the RTL's time_ns input is the host's clock.  The bridge clocks
 *    the RTL while it has work at the current time (c2h_next_ns <= time_ns,
 *    or beats moving), and steps time_ns to each c2h_next_ns the host's
 *    time has passed, so that a source's frame starts at its due time;
 *    clocks cost no time of their own (the IP's link model times the data);
 *    time passing runs the clock too (one per CLK_NS, up to SETTLE after
 *    an H2C beat or a register write), so that pipelines drain as they
 *    would between two host accesses.  A source stalled on tready (tvalid
 *    high, its engine takes nothing) can only drop frames meanwhile: its
 *    events are not stepped one by one, it drops what came due at the
 *    end, all at once (the RTL's drop stride: a few clocks however long
 *    the jump);
 *  - C2H: each channel's s_axis_c2h port ends in the IP's input buffer
 *    (C2H_FIFO bytes here): tready is high while the channel's engine takes
 *    data (it is busy, or peeking) and the buffer has room for a beat.
 *    st_peek() offers what the buffer holds of the record at its head;
 *    st_take() frees it and says TLAST when the record's last beat went;
 *  - H2C: st_in()'s bytes become beats of DATA_W bits, tkeep full but on
 *    the last beat (the one with TLAST), each clocked until tready; a port
 *    whose tready stays low (the loopback FIFO is full) back-pressures the
 *    IP: st_in() takes less, and the next st_take() or reg_write() kicks
 *    the H2C engine (XDMA_USER_KICK_H2C) to offer the rest.  One call
 *    sends at most H2C_OP_BEATS beats, then takes no more and kicks the
 *    engine itself: a long packet (64 MiB: two million clocks) goes in
 *    many engine runs, not one that holds QEMU's main loop for seconds;
 *  - interrupts: usr_irq_req is sampled after every clock; a change is
 *    reported (XDMA_USER_IRQ) by the next op that can return flags;
 *    irq_ack() is usr_irq_ack high for one clock.
 *
 * The Verilator model is built with 4 C2H and 4 H2C stream channels; a card
 * with fewer (or memory-mapped) does not see the blocks of the others: their
 * offsets are reserved here, as the RTL built with fewer would have them.
 *
 * Locking: as model/xdma_user.h says.  st_read() runs without the IP's lock
 * and reads only bytes of the buffer the record offered, which nothing
 * writes until st_take() frees them.
 */
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <type_traits>

#include "Vhf_refdesign.h"
#include "verilated.h"

extern "C" {
#include "hf_user_regs.h"
#include "xdma_user.h"
}

#ifndef HF_RTL_DATA_W
#define HF_RTL_DATA_W 256
#endif

namespace {

constexpr unsigned DATA_W = HF_RTL_DATA_W;
constexpr unsigned BEAT = DATA_W / 8;		// bytes per beat
constexpr unsigned CHANNELS = 4;		// the Verilated build's
constexpr uint32_t C2H_FIFO = 4096;		// the IP's C2H input buffer
constexpr uint64_t SETTLE_MAX = 1ull << 26;	// clocks one op may take
constexpr uint64_t CLK_NS = 4;			// axi_aclk: 250 MHz
constexpr uint32_t SETTLE = 16;			// clocks a pipeline may hold data
constexpr uint64_t READY_MAX = 1ull << 20;	// clocks an AXI-Lite access may take
constexpr uint64_t H2C_TRY = 64;		// clocks a beat waits for tready
constexpr uint32_t H2C_OP_BEATS = 1024;		// beats one st_in() sends at most

/* ---- bits of Verilator's port types (integers, or VlWide word arrays) ---- */

template <typename T> uint32_t word_of(const T &sig, unsigned w)
{
	if constexpr (std::is_integral<T>::value)
		return w * 32 < sizeof(T) * 8 ?
			       static_cast<uint32_t>(static_cast<uint64_t>(sig) >> (w * 32)) :
			       0;
	else
		return sig.at(w);
}

template <typename T> void set_word(T &sig, unsigned w, uint32_t v)
{
	if constexpr (std::is_integral<T>::value) {
		if (w * 32 >= sizeof(T) * 8)
			return;
		uint64_t m = (sizeof(T) >= 8 || w) ? 0xffffffffull << (w * 32) :
						      (1ull << (sizeof(T) * 8)) - 1;
		uint64_t x = static_cast<uint64_t>(sig);

		x = (x & ~m) | ((static_cast<uint64_t>(v) << (w * 32)) & m);
		sig = static_cast<T>(x);
	} else {
		sig.at(w) = v;
	}
}

template <typename T> bool bit_of(const T &sig, unsigned b)
{
	return (word_of(sig, b / 32) >> (b % 32)) & 1;
}

template <typename T> void set_bit(T &sig, unsigned b, bool v)
{
	uint32_t w = word_of(sig, b / 32);

	w = v ? w | (1u << (b % 32)) : w & ~(1u << (b % 32));
	set_word(sig, b / 32, w);
}

/* Byte i (0..BEAT) of channel ch's data bus. */
template <typename T> uint8_t data_byte(const T &sig, unsigned ch, unsigned i)
{
	unsigned bit = ch * DATA_W + i * 8;

	return static_cast<uint8_t>(word_of(sig, bit / 32) >> (bit % 32));
}

template <typename T>
void set_data_byte(T &sig, unsigned ch, unsigned i, uint8_t v)
{
	unsigned bit = ch * DATA_W + i * 8;
	uint32_t w = word_of(sig, bit / 32);

	w = (w & ~(0xffu << (bit % 32))) | (static_cast<uint32_t>(v) << (bit % 32));
	set_word(sig, bit / 32, w);
}

/* ---- the C2H input buffer of one channel ---- */

struct c2h_buf {
	uint8_t ring[C2H_FIFO];
	uint64_t pushed;		// bytes in, ever
	uint64_t taken;			// bytes out, ever
	std::deque<uint64_t> ends;	// where records end (TLAST), as pushed
	std::deque<uint64_t> ready;	// when each record not taken began
	bool mid;			// the last beat in had no TLAST

	uint32_t room() const { return C2H_FIFO - static_cast<uint32_t>(pushed - taken); }
	void clear()
	{
		pushed = taken = 0;
		ends.clear();
		ready.clear();
		mid = false;
	}
};

} // namespace

/* The reference design's RTL on one card. */
struct xdma_user {
	xdma_user_config cfg;
	xdma_user_env env;
	std::unique_ptr<VerilatedContext> ctx;
	std::unique_ptr<Vhf_refdesign> top;
	uint64_t now;			// time_ns driven
	uint32_t busy;			// C2H channels whose engine takes data
	uint32_t peek;			// ... and the one peeking now
	uint16_t irq_told;		// usr_irq_req as the IP last read it
	const char *what;		// the op in progress, for messages
	uint32_t what_off;
	c2h_buf c2h[CHANNELS];
	uint8_t h2c_pend[CHANNELS][2 * BEAT];	// bytes not sent as a beat yet
	uint32_t h2c_n[CHANNELS];
	uint32_t h2c_held;			// H2C ports that back-pressured
	uint32_t settle;			// clocks its pipelines may still need
	uint64_t clocks;			// clocks simulated
	uint64_t c2h_beats;			// C2H beats into the IP's buffers
	uint64_t h2c_beats;			// H2C beats out of the IP
	uint64_t ops;				// ops the IP called
};

namespace {

void rtl_error(xdma_user *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void rtl_error(xdma_user *u, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	u->env.guest_error(u->env.ctx, "%s", msg);
}

uint32_t c2h_mask(const xdma_user *u)
{
	return u->cfg.st ? (1u << u->cfg.num_c2h) - 1 : 0;
}

uint64_t next_ns(const xdma_user *u, unsigned ch)
{
	const auto &v = u->top->c2h_next_ns;

	return static_cast<uint64_t>(word_of(v, 2 * ch)) |
	       static_cast<uint64_t>(word_of(v, 2 * ch + 1)) << 32;
}

/* tready of C2H port ch for the coming clock. */
bool c2h_ready(const xdma_user *u, unsigned ch)
{
	uint32_t want = (u->busy | u->peek) & c2h_mask(u);

	return (want >> ch & 1) && u->c2h[ch].room() >= BEAT;
}

void drive_c2h_ready(xdma_user *u)
{
	for (unsigned ch = 0; ch < CHANNELS; ch++)
		set_bit(u->top->c2h_tready, ch, c2h_ready(u, ch));
}

/* A beat of channel ch handed over at this clock: into its buffer. */
void c2h_push(xdma_user *u, unsigned ch)
{
	c2h_buf &b = u->c2h[ch];
	unsigned n = 0;
	bool last = bit_of(u->top->c2h_tlast, ch);

	while (n < BEAT && bit_of(u->top->c2h_tkeep, ch * BEAT + n))
		n++;
	for (unsigned i = n; i < BEAT; i++)
		if (bit_of(u->top->c2h_tkeep, ch * BEAT + i)) {
			rtl_error(u, "RTL: C2H %u: tkeep not contiguous", ch);
			break;
		}
	if (!n && !b.mid)
		return;		/* an empty packet (no bytes, TLAST): none */
	if (!b.mid)
		b.ready.push_back(u->now);
	else if (b.pushed == b.taken)
		b.ready.back() = u->now;	/* the record's next bytes */
	for (unsigned i = 0; i < n; i++)
		b.ring[(b.pushed + i) % C2H_FIFO] =
			data_byte(u->top->c2h_tdata, ch, i);
	b.pushed += n;
	b.mid = !last;
	if (last)
		b.ends.push_back(b.pushed);
}

/*
 * One clock: the inputs as they are, the C2H handshakes of this clock into
 * the buffers, reg_err to the IP.  Returns whether a C2H beat moved.
 */
bool clock(xdma_user *u)
{
	Vhf_refdesign *t = u->top.get();
	uint32_t moved = 0;

	t->time_ns = u->now;
	drive_c2h_ready(u);
	t->clk = 0;
	t->eval();
	for (unsigned ch = 0; ch < CHANNELS; ch++)
		if (bit_of(t->c2h_tvalid, ch) && bit_of(t->c2h_tready, ch)) {
			c2h_push(u, ch);
			u->c2h_beats++;
			moved |= 1u << ch;
		}
	t->clk = 1;
	t->eval();
	u->clocks++;
	if (u->settle)
		u->settle--;
	if (t->reg_err)
		rtl_error(u, "RTL: %s 0x%x: the design leaves it undefined",
			  u->what, u->what_off);
	return moved;
}

/*
 * Clock the RTL up to @now: while it has work at the current time, and
 * stepping time_ns to every event it announces before @now.  A source
 * stalled on tready (a beat offered, the port not taking it) can only drop
 * frames until an op changes that: its events are not stepped to; once no
 * other event is left before @now, time jumps to @now and it drops all
 * that came due (in a few clocks: the RTL's stride).
 */
void run_to(xdma_user *u, uint64_t now)
{
	uint64_t n;

	if (now < u->now)
		now = u->now;
	/*
	 * the clock runs while time passes: pipelines drain (a sink's
	 * counters follow its last beat by a few clocks)
	 */
	for (n = std::min<uint64_t>((now - u->now) / CLK_NS, u->settle); n; n--)
		clock(u);
	for (n = 0; n < SETTLE_MAX; n++) {
		uint64_t ev = UINT64_MAX, drops = UINT64_MAX;

		for (unsigned ch = 0; ch < CHANNELS; ch++) {
			if (!(c2h_mask(u) >> ch & 1))
				continue;
			if (bit_of(u->top->c2h_tvalid, ch) && !c2h_ready(u, ch))
				drops = std::min(drops, next_ns(u, ch));
			else
				ev = std::min(ev, next_ns(u, ch));
		}
		if (ev > u->now && ev <= now)
			u->now = ev;	// the next event: clock at its time
		else if (ev > now && drops > u->now && drops <= now)
			u->now = now;	// only drops are left: all at once
		ev = std::min(ev, drops);
		if (clock(u) || ev <= u->now)
			continue;
		if (ev > now)
			break;
	}
	if (n == SETTLE_MAX)
		rtl_error(u, "RTL: still busy after %llu clocks",
			  static_cast<unsigned long long>(n));
	u->now = now;
}

/* The usr_irq_req lines moved since the IP last read them. */
uint32_t irq_flag(xdma_user *u)
{
	return u->top->usr_irq_req != u->irq_told ? XDMA_USER_IRQ : 0;
}

/* ---- user BAR: AXI4-Lite ---- */

/* A source or sink block of a channel the card does not have. */
bool hidden(const xdma_user *u, uint32_t off)
{
	uint32_t src0 = HF_USER_ST_SRC(0), sink0 = HF_USER_ST_SINK(0);

	if (off >= src0 && off < HF_USER_ST_SRC(CHANNELS))
		return !u->cfg.st || (off - src0) / 0x100 >= u->cfg.num_c2h;
	if (off >= sink0 && off < HF_USER_ST_SINK(CHANNELS))
		return !u->cfg.st || (off - sink0) / 0x100 >= u->cfg.num_h2c;
	return false;
}

uint32_t axil_read(xdma_user *u, uint32_t off)
{
	Vhf_refdesign *t = u->top.get();
	bool ar = true;
	uint64_t n;

	u->what = "read of";
	u->what_off = off;
	t->s_axil_araddr = static_cast<uint16_t>(off);
	t->s_axil_arvalid = 1;
	t->s_axil_rready = 1;
	for (n = 0; n < READY_MAX; n++) {
		t->clk = 0;
		t->eval();
		bool ar_hs = ar && t->s_axil_arready;
		bool r_hs = !ar && t->s_axil_rvalid;
		uint32_t v = t->s_axil_rdata;

		clock(u);
		if (ar_hs) {
			ar = false;
			t->s_axil_arvalid = 0;
		}
		if (r_hs) {
			t->s_axil_rready = 0;
			return v;
		}
	}
	t->s_axil_arvalid = 0;
	t->s_axil_rready = 0;
	rtl_error(u, "RTL: AXI-Lite read of 0x%x got no response", off);
	return 0;
}

void axil_write(xdma_user *u, uint32_t off, uint32_t val)
{
	Vhf_refdesign *t = u->top.get();
	bool aw = true, w = true;
	uint64_t n;

	u->what = "write of";
	u->what_off = off;
	t->s_axil_awaddr = static_cast<uint16_t>(off);
	t->s_axil_awvalid = 1;
	t->s_axil_wdata = val;
	t->s_axil_wstrb = 0xf;
	t->s_axil_wvalid = 1;
	t->s_axil_bready = 1;
	for (n = 0; n < READY_MAX; n++) {
		t->clk = 0;
		t->eval();
		bool aw_hs = aw && t->s_axil_awready;
		bool w_hs = w && t->s_axil_wready;
		bool b_hs = !aw && !w && t->s_axil_bvalid;

		clock(u);
		if (aw_hs) {
			aw = false;
			t->s_axil_awvalid = 0;
		}
		if (w_hs) {
			w = false;
			t->s_axil_wvalid = 0;
		}
		if (b_hs) {
			t->s_axil_bready = 0;
			u->settle = SETTLE;	/* what the write started */
			return;
		}
	}
	t->s_axil_awvalid = 0;
	t->s_axil_wvalid = 0;
	t->s_axil_bready = 0;
	rtl_error(u, "RTL: AXI-Lite write of 0x%x got no response", off);
}

/* ---- H2C: bytes into beats ---- */

/*
 * Channel ch's port takes one beat of the n first pending bytes; false when
 * its tready stayed low for H2C_TRY clocks (back-pressure: not sent).
 */
bool h2c_beat(xdma_user *u, unsigned ch, unsigned n, bool last)
{
	Vhf_refdesign *t = u->top.get();
	uint64_t k;

	for (unsigned i = 0; i < BEAT; i++) {
		set_data_byte(t->h2c_tdata, ch, i, i < n ? u->h2c_pend[ch][i] : 0);
		set_bit(t->h2c_tkeep, ch * BEAT + i, i < n);
	}
	set_bit(t->h2c_tlast, ch, last);
	set_bit(t->h2c_tvalid, ch, true);
	u->what = "H2C beat of channel";
	u->what_off = ch;
	for (k = 0; k < H2C_TRY; k++) {
		t->clk = 0;
		t->eval();
		bool hs = bit_of(t->h2c_tready, ch);

		clock(u);
		if (hs)
			break;
	}
	u->settle = SETTLE;	/* the sink's counters follow */
	u->h2c_beats++;
	set_bit(t->h2c_tvalid, ch, false);
	if (k == H2C_TRY) {
		u->h2c_held |= 1u << ch;
		return false;
	}
	u->h2c_n[ch] -= n;
	memmove(u->h2c_pend[ch], u->h2c_pend[ch] + n, u->h2c_n[ch]);
	return true;
}

/*
 * The C2H ports with data for their engine (a beat offered, or bytes in the
 * IP's buffer: looped back, or a frame a register write started): kick them.
 */
uint32_t c2h_kicks(xdma_user *u)
{
	uint32_t k = 0;

	for (unsigned ch = 0; ch < CHANNELS; ch++)
		if ((c2h_mask(u) >> ch & 1) &&
		    (bit_of(u->top->c2h_tvalid, ch) ||
		     u->c2h[ch].pushed != u->c2h[ch].taken))
			k |= XDMA_USER_KICK_C2H(ch);
	return k;
}

/* The H2C ports that back-pressured may take data again: kick them. */
uint32_t h2c_kicks(xdma_user *u)
{
	uint32_t k = 0;

	for (unsigned ch = 0; ch < CHANNELS; ch++)
		if (u->h2c_held >> ch & 1)
			k |= XDMA_USER_KICK_H2C(ch);
	u->h2c_held = 0;
	return k;
}

/* ---- the ops ---- */

void rtl_reset(xdma_user *u)
{
	Vhf_refdesign *t = u->top.get();

	t->rst_n = 0;
	t->s_axil_awvalid = t->s_axil_wvalid = t->s_axil_arvalid = 0;
	t->s_axil_bready = t->s_axil_rready = 0;
	t->h2c_tvalid = 0;
	t->usr_irq_ack = 0;
	u->busy = u->peek = 0;
	for (unsigned i = 0; i < 4; i++)
		clock(u);
	t->rst_n = 1;
	clock(u);
	for (unsigned ch = 0; ch < CHANNELS; ch++) {
		u->c2h[ch].clear();
		u->h2c_n[ch] = 0;
	}
	u->h2c_held = 0;
	u->irq_told = t->usr_irq_req;
}

int rtl_create(const xdma_user_config *cfg, const xdma_user_env *env,
	       xdma_user **out)
{
	if (cfg->num_h2c > CHANNELS || cfg->num_c2h > CHANNELS)
		return -EINVAL;
	xdma_user *u = new (std::nothrow) xdma_user();
	if (!u)
		return -ENOMEM;
	try {
		u->cfg = *cfg;
		u->env = *env;
		u->ctx.reset(new VerilatedContext);
		u->ctx->fatalOnError(false);
		u->top.reset(new Vhf_refdesign(u->ctx.get(), "hf_refdesign"));
	} catch (...) {
		delete u;
		return -ENOMEM;
	}
	u->top->ddr_size_mb = static_cast<uint32_t>(cfg->ddr_size >> 20);
	u->what = "reset";
	rtl_reset(u);
	*out = u;
	return 0;
}

void rtl_destroy(xdma_user *u)
{
	const char *stats = getenv("HF_RTL_STATS");

	if (stats && *stats && strcmp(stats, "0"))
		fprintf(stderr,
			"hf_rtl: %llu clocks, %llu C2H beats, %llu H2C beats, %llu ops (%.1f clocks per op)\n",
			static_cast<unsigned long long>(u->clocks),
			static_cast<unsigned long long>(u->c2h_beats),
			static_cast<unsigned long long>(u->h2c_beats),
			static_cast<unsigned long long>(u->ops),
			u->ops ? static_cast<double>(u->clocks) / u->ops : 0.0);
	u->top->final();
	delete u;
}

void rtl_advance(xdma_user *u, uint64_t now, uint32_t c2h_idle)
{
	u->ops++;
	u->busy = ~c2h_idle & c2h_mask(u);
	u->what = "time";
	u->what_off = 0;
	run_to(u, now);
}

uint32_t rtl_reg_read(xdma_user *u, uint32_t off, uint64_t now)
{
	u->ops++;
	run_to(u, now);
	if (hidden(u, off)) {
		rtl_error(u, "user BAR: read of reserved offset 0x%x", off);
		return 0;
	}
	return axil_read(u, off);
}

uint32_t rtl_reg_write(xdma_user *u, uint32_t off, uint32_t val, uint64_t now)
{
	uint32_t flags = 0;

	run_to(u, now);
	if (hidden(u, off)) {
		rtl_error(u, "user BAR: write 0x%x to reserved 0x%x", val, off);
		return 0;
	}
	axil_write(u, off, val);
	/* a source's engine may wait for a frame, or a port change owner */
	for (unsigned ch = 0; ch < u->cfg.num_c2h && u->cfg.st; ch++)
		if ((off >= HF_USER_ST_SRC(ch) && off < HF_USER_ST_SRC(ch + 1)) ||
		    off == HF_USER_LOOPBACK)
			flags |= XDMA_USER_KICK_C2H(ch);
	if (off == HF_USER_LOOPBACK)
		u->h2c_held = (1u << CHANNELS) - 1;	/* routes change */
	return flags | c2h_kicks(u) | irq_flag(u) | h2c_kicks(u);
}

uint32_t rtl_irq_lines(xdma_user *u)
{
	u->irq_told = u->top->usr_irq_req;
	return u->irq_told;
}

void rtl_irq_ack(xdma_user *u, uint32_t lines)
{
	u->top->usr_irq_ack = static_cast<uint16_t>(lines);
	u->what = "usr_irq_ack";
	u->what_off = lines;
	clock(u);
	u->top->usr_irq_ack = 0;
}

bool rtl_st_peek(xdma_user *u, uint32_t ch, uint64_t now, xdma_user_rec *rec)
{
	c2h_buf &b = u->c2h[ch];

	u->ops++;
	u->peek = 1u << ch;
	u->what = "C2H of channel";
	u->what_off = ch;
	run_to(u, now);
	u->peek = 0;
	if (b.pushed == b.taken) {
		uint64_t ev = next_ns(u, ch);

		rec->next_ns = ev == UINT64_MAX ? UINT64_MAX : std::max(ev, u->now);
		return false;
	}
	rec->left = static_cast<uint32_t>((b.ends.empty() ? b.pushed : b.ends.front()) -
					  b.taken);
	rec->ready_ns = b.ready.front();
	return true;
}

void rtl_st_read(xdma_user *u, uint32_t ch, uint32_t skip, void *buf,
		 uint32_t n)
{
	const c2h_buf &b = u->c2h[ch];
	uint8_t *p = static_cast<uint8_t *>(buf);
	uint64_t at = b.taken + skip;

	for (uint32_t i = 0; i < n; i++)
		p[i] = b.ring[(at + i) % C2H_FIFO];
}

uint32_t rtl_st_take(xdma_user *u, uint32_t ch, uint32_t n, uint64_t t)
{
	c2h_buf &b = u->c2h[ch];
	uint32_t flags = 0;

	(void)t;	/* the RTL ended the frame when its last beat came in */
	b.taken += n;
	if (!b.ends.empty() && b.taken == b.ends.front()) {
		b.ends.pop_front();
		b.ready.pop_front();
		flags |= XDMA_USER_TLAST;
	}
	return flags | irq_flag(u) | h2c_kicks(u);
}

uint32_t rtl_st_in(xdma_user *u, uint32_t ch, const void *buf, uint32_t n,
		   bool last, uint32_t *took_out)
{
	const uint8_t *p = static_cast<const uint8_t *>(buf);
	uint32_t &took = *took_out;
	uint32_t beats = 0;

	took = 0;
	u->what = "H2C of channel";
	u->what_off = ch;
	while (took < n) {
		/* enough for one call: the engine comes back for the rest */
		if (beats == H2C_OP_BEATS)
			return c2h_kicks(u) | XDMA_USER_KICK_H2C(ch);
		/* keep a beat back: the last one carries TLAST */
		if (u->h2c_n[ch] == 2 * BEAT) {
			if (!h2c_beat(u, ch, BEAT, false))
				return c2h_kicks(u);
			beats++;
		}
		uint32_t c = std::min<uint32_t>(n - took, 2 * BEAT - u->h2c_n[ch]);

		memcpy(u->h2c_pend[ch] + u->h2c_n[ch], p + took, c);
		u->h2c_n[ch] += c;
		took += c;
	}
	if (!last)
		return c2h_kicks(u);
	if (u->h2c_n[ch] > BEAT && !h2c_beat(u, ch, BEAT, false))
		return c2h_kicks(u);
	if (!h2c_beat(u, ch, u->h2c_n[ch], true))
		return c2h_kicks(u);
	return c2h_kicks(u) | XDMA_USER_TLAST;
}

xdma_user_ops make_ops()
{
	xdma_user_ops o{};

	o.name = "hellofpga reference design (RTL, Verilator)";
	o.bar_size = HF_USER_BAR_SIZE;
	o.create = rtl_create;
	o.destroy = rtl_destroy;
	o.reset = rtl_reset;
	o.advance = rtl_advance;
	o.reg_read = rtl_reg_read;
	o.reg_write = rtl_reg_write;
	o.irq_lines = rtl_irq_lines;
	o.irq_ack = rtl_irq_ack;
	o.st_peek = rtl_st_peek;
	o.st_read = rtl_st_read;
	o.st_take = rtl_st_take;
	o.st_in = rtl_st_in;
	return o;
}

const xdma_user_ops rtl_ops = make_ops();

#define HF_STR2(x) #x
#define HF_STR(x) HF_STR2(x)

} // namespace

extern "C" {
extern __attribute__((visibility("default")))
const struct xdma_user_plugin xdma_user_plugin;
const struct xdma_user_plugin xdma_user_plugin = {
	XDMA_USER_PLUGIN_ABI, &rtl_ops,
	"refdesign/rtl/hf_refdesign.sv, DATA_W=" HF_STR(HF_RTL_DATA_W)
	", 4 C2H + 4 H2C, Verilator"
};
}
