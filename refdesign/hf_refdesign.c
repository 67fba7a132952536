// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * hf_refdesign.c - the user logic of the hellofpga reference design, in C:
 * what sits behind the XDMA IP of the emulated card (model/xdma_user.h).
 *
 *  - the user BAR (hf_user_regs.h): ID, version, scratch register, 4 KiB
 *    RAM, the usr_irq_req lines (set, clear, pulse), the card memory size;
 *  - on a card with AXI-Stream channels, a frame source per C2H channel and
 *    a checking sink per H2C channel (HF_USER_ST_SRC() / HF_USER_ST_SINK(),
 *    frames of hf_stream_pattern.h), docs/xdma-model.md "AXI-Stream", and
 *    per channel pair a loopback FIFO (HF_USER_LOOPBACK): H2C channel n's
 *    packets come back on C2H channel n, as in PG195's AXI-ST example.
 *
 * A source generates its frames on the card's clock: a frame is due every
 * INTERVAL_NS (back to back without one) and is generated then, taken or
 * not; it holds one frame at a time (its FIFO) until the C2H engine has
 * taken all of it, also after the source is disabled; in drop mode the
 * frames that come due while the FIFO is full are lost, else the source
 * stalls.
 *
 * Locking: none of its own; the IP calls every op but st_read with its lock
 * held (xdma_user.h).  st_read only reads the held frame's fields, which do
 * not change until st_take ends the frame.
 */
#include "hf_refdesign.h"

#include <errno.h>
#include <stdlib.h>

#include "hf_os.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"

#define REF_CHANNELS		4	/* stream blocks per direction */
#define REF_IRQ_MASK		0xffffu	/* 16 usr_irq_req lines */

#define ST_SRC_CTRL_MASK						\
	(HF_ST_SRC_CTRL_ENABLE | HF_ST_SRC_CTRL_RECORDS |		\
	 HF_ST_SRC_CTRL_DROP | HF_ST_SRC_CTRL_IRQ | HF_ST_SRC_CTRL_IRQ_NUM)
#define LOOP_BYTES		16384	/* a loopback FIFO: 512 beats of 256 bits */
#define LOOP_PACKETS		512	/* ... each packet at least one beat */
#define ST_SRC_FRAME_SIZE	4096	/* reset values */
#define ST_SRC_REC_MIN		64
#define ST_SRC_REC_MAX		4096

/**
 * struct st_src - the AXI-Stream source of one C2H channel.
 * @ctrl: HF_ST_SRC_CTRL
 * @frame_size: HF_ST_SRC_FRAME_SIZE
 * @rec_min: HF_ST_SRC_REC_MIN
 * @rec_max: HF_ST_SRC_REC_MAX
 * @interval: HF_ST_SRC_INTERVAL_NS
 * @count: HF_ST_SRC_COUNT
 * @seq: sequence number of the next frame to generate
 * @due: when it is generated (host time)
 * @made: frames generated (held or dropped) since the source was enabled
 * @held: the source holds a frame (waiting for a descriptor, or being
 *	sent): its FIFO holds one frame
 * @h_seq: the held frame's sequence number
 * @h_len: its length
 * @h_off: bytes of it sent
 * @h_due: when it was generated
 * @sent: frames sent whole
 * @dropped: frames dropped
 * @bytes: bytes sent
 * @seq_hi: SEQ_HI, latched by a read of SEQ_LO
 * @bytes_hi: BYTES_HI, latched by a read of BYTES_LO
 */
struct st_src {
	u32 ctrl;
	u32 frame_size;
	u32 rec_min;
	u32 rec_max;
	u32 interval;
	u32 count;
	u64 seq;
	u64 due;
	u64 made;
	bool held;
	u64 h_seq;
	u32 h_len;
	u32 h_off;
	u64 h_due;
	u32 sent;
	u32 dropped;
	u64 bytes;
	u32 seq_hi;
	u32 bytes_hi;
};

/**
 * struct st_sink - the AXI-Stream sink of one H2C channel.
 * @chk: the frame in progress
 * @ok: frames that passed the check
 * @bad: frames that failed it
 * @bytes: bytes received
 * @last_seq: sequence number of the last good frame
 * @bytes_hi: BYTES_HI, latched by a read of BYTES_LO
 * @seq_hi: LAST_SEQ_HI, latched by a read of LAST_SEQ_LO
 */
struct st_sink {
	struct hf_stream_check chk;
	u32 ok;
	u32 bad;
	u64 bytes;
	u64 last_seq;
	u32 bytes_hi;
	u32 seq_hi;
};

/**
 * struct st_loop - the loopback FIFO of one channel pair, and who owns
 * the channels' ports.
 * @buf: its bytes, a ring (index: a position modulo LOOP_BYTES)
 * @in: bytes that ever went in (position of the next)
 * @out: bytes that ever came out
 * @ends: the position after each packet held that ended (TLAST), a ring
 *	of @nends from @end0
 * @end0: the oldest entry of @ends
 * @nends: packets held that ended
 * @in_loop: the H2C packet in progress goes into the FIFO, not the sink
 *	(the route is chosen at a packet's start)
 * @in_mid: the H2C side is in the middle of a packet
 * @c2h: who feeds C2H channel's port: LOOP_NONE between packets, else the
 *	source (LOOP_SRC) or the FIFO (LOOP_FIFO) until its packet ended
 */
struct st_loop {
	u8 buf[LOOP_BYTES];
	u32 in;
	u32 out;
	u32 ends[LOOP_PACKETS];
	u32 end0;
	u32 nends;
	bool in_loop;
	bool in_mid;
	u8 c2h;
};

enum { LOOP_NONE, LOOP_SRC, LOOP_FIFO };

/**
 * struct xdma_user - the reference design's logic on one card.
 * @cfg: the card
 * @env: the IP's callbacks
 * @scratch: HF_USER_SCRATCH
 * @uram: HF_USER_RAM
 * @irq_req: usr_irq_req lines set by HF_USER_IRQ_SET (level)
 * @irq_pulse: lines raised as a pulse (HF_USER_IRQ_PULSE, a stream
 *	source's frame end): held until acknowledged (irq_ack) or
 *	HF_USER_IRQ_CLEAR
 * @src: AXI-ST: the stream source of each C2H channel
 * @sink: AXI-ST: the stream sink of each H2C channel
 * @loopback: HF_USER_LOOPBACK
 * @loop: AXI-ST: the loopback FIFO of each channel pair
 */
struct xdma_user {
	struct xdma_user_config cfg;
	struct xdma_user_env env;
	u32 scratch;
	u32 uram[HF_USER_RAM_SIZE / 4];
	u32 irq_req;
	u32 irq_pulse;
	struct st_src src[REF_CHANNELS];
	struct st_sink sink[REF_CHANNELS];
	u32 loopback;
	struct st_loop loop[REF_CHANNELS];
};

#define ref_error(u, ...) (u)->env.guest_error((u)->env.ctx, __VA_ARGS__)

/* ---- C2H stream sources ---- */

/* The source drops frames (drop mode with an interval; else it stalls). */
static inline bool src_drops(const struct st_src *s)
{
	return (s->ctrl & HF_ST_SRC_CTRL_DROP) && s->interval;
}

static u32 src_len(const struct st_src *s, u64 seq)
{
	if (s->ctrl & HF_ST_SRC_CTRL_RECORDS)
		return hf_stream_rec_len(seq, s->rec_min, s->rec_max);
	return s->frame_size;
}

/* Frames the source may still generate since it was enabled. */
static u64 src_left(const struct st_src *s)
{
	if (!(s->ctrl & HF_ST_SRC_CTRL_ENABLE))
		return 0;
	if (!s->count)
		return UINT64_MAX;
	return s->made < s->count ? s->count - s->made : 0;
}

/* The next frame, if it is due by @t and the FIFO is free, is held. */
static void src_gen(struct st_src *s, u64 t)
{
	if (s->held || !src_left(s) || s->due > t)
		return;
	s->held = true;
	s->h_seq = s->seq++;
	s->h_len = src_len(s, s->h_seq);
	s->h_off = 0;
	s->h_due = s->due;
	s->made++;
	if (src_drops(s))
		s->due += s->interval;	/* fixed schedule */
}

/* Drop mode: every frame due before @t while the FIFO is full is lost. */
static void src_drop(struct st_src *s, u64 t)
{
	u64 n;

	if (!s->held || !src_drops(s) || s->due >= t)
		return;
	n = (t - s->due - 1) / s->interval + 1;
	n = min_t(u64, n, src_left(s));
	s->dropped += (u32)n;
	s->seq += n;
	s->made += n;
	s->due += n * s->interval;
}

/* The held frame's last byte was sent at @t (TLAST); XDMA_USER_* flags. */
static u32 src_frame_end(struct xdma_user *u, struct st_src *s, u64 t)
{
	src_drop(s, t);
	s->held = false;
	s->sent++;
	if (!src_drops(s))	/* stalled: the schedule moves on from here */
		s->due = max_t(u64, s->h_due + s->interval, t);
	if (!(s->ctrl & HF_ST_SRC_CTRL_IRQ))
		return XDMA_USER_TLAST;
	u->irq_pulse |= BIT((s->ctrl & HF_ST_SRC_CTRL_IRQ_NUM) >>
			    HF_ST_SRC_CTRL_IRQ_SHIFT);
	return XDMA_USER_TLAST | XDMA_USER_IRQ;
}

/* ---- loopback FIFOs ---- */

/* The LOOPBACK bits of channel pairs the card has. */
static u32 loop_mask(const struct xdma_user *u)
{
	if (!u->cfg.st)
		return 0;
	return (u32)BIT(min_t(u32, u->cfg.num_h2c, u->cfg.num_c2h)) - 1;
}

/*
 * C2H channel @ch's port is fed by its loopback FIFO, not its source.  The
 * owner changes only between packets: to the FIFO when LOOPBACK is set and
 * the source holds no frame (a frame it offers goes out first: the IP saw
 * its TVALID), back to the source once the FIFO is empty.
 */
static bool c2h_from_fifo(const struct xdma_user *u, u32 ch)
{
	const struct st_loop *l = &u->loop[ch];

	if (l->c2h != LOOP_NONE)
		return l->c2h == LOOP_FIFO;
	if (u->loopback & BIT(ch))
		return !u->src[ch].held;
	return l->in != l->out;
}

/* Bytes the FIFO offers: the rest of its first packet, or what it holds. */
static u32 loop_avail(const struct st_loop *l)
{
	return (l->nends ? l->ends[l->end0] : l->in) - l->out;
}

/* H2C into the FIFO; as ref_st_in(). */
static u32 loop_in(struct st_loop *l, u32 ch, const u8 *p, u32 n, bool last,
		   u32 *took)
{
	u32 c = min_t(u32, n, LOOP_BYTES - (l->in - l->out)), i;

	for (i = 0; i < c; i++)
		l->buf[(l->in + i) % LOOP_BYTES] = p[i];
	l->in += c;
	*took = c;
	if (c < n || !last || l->nends == LOOP_PACKETS)
		return c ? XDMA_USER_KICK_C2H(ch) : 0;
	if (l->in != (l->nends ? l->ends[(l->end0 + l->nends - 1) %
					 LOOP_PACKETS] : l->out))
		l->ends[(l->end0 + l->nends++) % LOOP_PACKETS] = l->in;
	/* (an empty packet ends nothing: AXI-Stream has no empty packets) */
	return XDMA_USER_TLAST | XDMA_USER_KICK_C2H(ch);
}

/* C2H takes @n bytes of the FIFO; as ref_st_take(). */
static u32 loop_take(struct st_loop *l, u32 ch, u32 n)
{
	l->out += n;
	if (!l->nends || l->out != l->ends[l->end0])
		return XDMA_USER_KICK_H2C(ch);
	l->end0 = (l->end0 + 1) % LOOP_PACKETS;
	l->nends--;
	l->c2h = LOOP_NONE;
	return XDMA_USER_TLAST | XDMA_USER_KICK_H2C(ch);
}

/*
 * Bring the sources up to @now, whether or not an engine takes data: a
 * frame that came due is generated and held (the RTL's source presents it,
 * TVALID, when it is due, and AXI-Stream does not let it take that back: a
 * source disabled afterwards still sends it, on the channel's next ring).
 * The drop-mode sources of engines that take no data (idle, or parked: no
 * credits, halt, stall; or their port is the loopback FIFO's) drop what
 * came due meanwhile; sources of running engines are brought along by the
 * engines.
 */
static void ref_advance(struct xdma_user *u, u64 now, u32 c2h_idle)
{
	u32 ch;

	if (!u->cfg.st)
		return;
	for (ch = 0; ch < u->cfg.num_c2h; ch++) {
		struct st_src *s = &u->src[ch];
		bool idle = (c2h_idle & BIT(ch)) || c2h_from_fifo(u, ch);

		src_gen(s, now);
		if (idle)
			src_drop(s, now);
	}
}

static bool ref_st_peek(struct xdma_user *u, u32 ch, u64 now,
			struct xdma_user_rec *rec)
{
	struct st_loop *l = &u->loop[ch];
	struct st_src *s = &u->src[ch];

	if (c2h_from_fifo(u, ch)) {
		/* its source sees no TREADY: it stalls, or drops */
		src_gen(s, now);
		src_drop(s, now);
		if (!loop_avail(l)) {
			rec->next_ns = UINT64_MAX;	/* st_in kicks */
			return false;
		}
		l->c2h = LOOP_FIFO;
		rec->left = loop_avail(l);
		rec->ready_ns = 0;
		return true;
	}
	src_gen(s, now);
	if (!s->held) {
		rec->next_ns = src_left(s) ? s->due : UINT64_MAX;
		return false;
	}
	l->c2h = LOOP_SRC;
	rec->left = s->h_len - s->h_off;
	rec->ready_ns = s->h_due;
	return true;
}

static void ref_st_read(struct xdma_user *u, u32 ch, u32 skip, void *buf,
			u32 n)
{
	const struct st_loop *l = &u->loop[ch];
	const struct st_src *s = &u->src[ch];
	u8 *p = buf;

	if (l->c2h == LOOP_FIFO) {
		for (u32 i = 0; i < n; i++)
			p[i] = l->buf[(l->out + skip + i) % LOOP_BYTES];
		return;
	}
	hf_stream_fill(buf, s->h_seq, s->h_len, s->h_off + skip, n);
}

static u32 ref_st_take(struct xdma_user *u, u32 ch, u32 n, u64 t)
{
	struct st_loop *l = &u->loop[ch];
	struct st_src *s = &u->src[ch];

	if (l->c2h == LOOP_FIFO)
		return loop_take(l, ch, n);
	s->h_off += n;
	s->bytes += n;
	if (s->h_off != s->h_len)
		return 0;
	l->c2h = LOOP_NONE;
	return src_frame_end(u, s, t);
}

/* ---- H2C stream sinks ---- */

/* A frame ended at the sink (TLAST: a descriptor with EOP). */
static void sink_frame_end(struct st_sink *k)
{
	u64 seq;

	if (hf_stream_check_end(&k->chk, &seq)) {
		k->ok++;
		k->last_seq = seq;
	} else {
		k->bad++;
	}
}

/* H2C channel @ch's output: into its sink, or with LOOPBACK its FIFO. */
static u32 ref_st_in(struct xdma_user *u, u32 ch, const void *buf, u32 n,
		     bool last, u32 *took)
{
	struct st_loop *l = &u->loop[ch];
	struct st_sink *k = &u->sink[ch];
	u32 flags = last ? XDMA_USER_TLAST : 0;

	if (!l->in_mid)		/* a packet's start chooses its route */
		l->in_loop = u->loopback & BIT(ch);
	if (l->in_loop) {
		flags = loop_in(l, ch, buf, n, last, took);
	} else {
		*took = n;
		if (n) {
			hf_stream_check_feed(&k->chk, buf, n);
			k->bytes += n;
		}
		if (last)
			sink_frame_end(k);
	}
	l->in_mid = !(flags & XDMA_USER_TLAST);
	return flags;
}

/* ---- user BAR: AXI-Stream source and sink blocks ---- */

static u32 src_read(struct xdma_user *u, struct st_src *s, u32 reg)
{
	u32 v = 0;

	switch (reg) {
	case HF_ST_SRC_CTRL:
		return s->ctrl;
	case HF_ST_SRC_FRAME_SIZE:
		return s->frame_size;
	case HF_ST_SRC_REC_MIN:
		return s->rec_min;
	case HF_ST_SRC_REC_MAX:
		return s->rec_max;
	case HF_ST_SRC_INTERVAL_NS:
		return s->interval;
	case HF_ST_SRC_COUNT:
		return s->count;
	case HF_ST_SRC_SEQ_LO:
		s->seq_hi = upper_32_bits(s->seq);
		return lower_32_bits(s->seq);
	case HF_ST_SRC_SEQ_HI:
		return s->seq_hi;
	case HF_ST_SRC_SENT:
		return s->sent;
	case HF_ST_SRC_DROPPED:
		return s->dropped;
	case HF_ST_SRC_BYTES_LO:
		s->bytes_hi = upper_32_bits(s->bytes);
		return lower_32_bits(s->bytes);
	case HF_ST_SRC_BYTES_HI:
		return s->bytes_hi;
	case HF_ST_SRC_STATUS:
		if (src_left(s))
			v |= HF_ST_SRC_STS_ACTIVE;
		if (s->held)
			v |= HF_ST_SRC_STS_HOLDING;
		if ((s->ctrl & HF_ST_SRC_CTRL_ENABLE) && s->count &&
		    !src_left(s) && !s->held)
			v |= HF_ST_SRC_STS_DONE;
		return v;
	}
	ref_error(u, "user BAR: read of reserved source register 0x%x", reg);
	return 0;
}

/* A frame length register: HF_STREAM_MIN_LEN..HF_STREAM_MAX_LEN. */
static void src_len_write(struct xdma_user *u, u32 *reg, u32 val)
{
	if (val < HF_STREAM_MIN_LEN || val > HF_STREAM_MAX_LEN) {
		ref_error(u, "user BAR: stream length %u out of range", val);
		return;
	}
	*reg = val;
}

/* A write to C2H channel @ch's source; XDMA_USER_* flags. */
static u32 src_write(struct xdma_user *u, u32 ch, u32 reg, u32 val, u64 now)
{
	struct st_src *s = &u->src[ch];

	switch (reg) {
	case HF_ST_SRC_CTRL:
		if (val & HF_ST_SRC_CTRL_CLEAR) {
			/* a frame being sent still ends (and counts) */
			s->seq = 0;
			s->made = 0;
			s->sent = 0;
			s->dropped = 0;
			s->bytes = 0;
			s->due = now;
		}
		if (!(s->ctrl & HF_ST_SRC_CTRL_ENABLE) &&
		    (val & HF_ST_SRC_CTRL_ENABLE)) {
			s->made = 0;
			s->due = now;
		}
		s->ctrl = val & ST_SRC_CTRL_MASK;
		break;
	case HF_ST_SRC_FRAME_SIZE:
		src_len_write(u, &s->frame_size, val);
		break;
	case HF_ST_SRC_REC_MIN:
		src_len_write(u, &s->rec_min, val);
		break;
	case HF_ST_SRC_REC_MAX:
		src_len_write(u, &s->rec_max, val);
		break;
	case HF_ST_SRC_INTERVAL_NS:
		s->interval = val;
		break;
	case HF_ST_SRC_COUNT:
		s->count = val;
		break;
	default:
		ref_error(u, "user BAR: write 0x%x to RO/reserved source 0x%x",
			  val, reg);
		return 0;
	}
	return XDMA_USER_KICK_C2H(ch);	/* its engine may wait for a frame */
}

static u32 sink_read(struct xdma_user *u, struct st_sink *k, u32 reg)
{
	switch (reg) {
	case HF_ST_SINK_CTRL:
		return 0;
	case HF_ST_SINK_FRAMES_OK:
		return k->ok;
	case HF_ST_SINK_FRAMES_BAD:
		return k->bad;
	case HF_ST_SINK_BYTES_LO:
		k->bytes_hi = upper_32_bits(k->bytes);
		return lower_32_bits(k->bytes);
	case HF_ST_SINK_BYTES_HI:
		return k->bytes_hi;
	case HF_ST_SINK_LAST_SEQ_LO:
		k->seq_hi = upper_32_bits(k->last_seq);
		return lower_32_bits(k->last_seq);
	case HF_ST_SINK_LAST_SEQ_HI:
		return k->seq_hi;
	case HF_ST_SINK_PARTIAL:
		return k->chk.got;
	}
	ref_error(u, "user BAR: read of reserved sink register 0x%x", reg);
	return 0;
}

static void sink_write(struct xdma_user *u, struct st_sink *k, u32 reg,
		       u32 val)
{
	if (reg != HF_ST_SINK_CTRL) {
		ref_error(u, "user BAR: write 0x%x to RO/reserved sink 0x%x",
			  val, reg);
		return;
	}
	if (val & HF_ST_SINK_CTRL_CLEAR) {
		hf_stream_check_init(&k->chk);
		k->ok = 0;
		k->bad = 0;
		k->bytes = 0;
		k->last_seq = 0;
	}
}

/*
 * The stream blocks of an AXI-ST card: *@ch and *@reg of offset @off in
 * the source (*@sink false) or sink block of a channel the card has.
 */
static bool st_block(const struct xdma_user *u, u32 off, u32 *ch, u32 *reg,
		     bool *sink)
{
	u32 base;

	if (!u->cfg.st)
		return false;
	if (off >= HF_USER_ST_SRC(0) && off < HF_USER_ST_SRC(REF_CHANNELS))
		base = HF_USER_ST_SRC(0);
	else if (off >= HF_USER_ST_SINK(0) &&
		 off < HF_USER_ST_SINK(REF_CHANNELS))
		base = HF_USER_ST_SINK(0);
	else
		return false;
	*sink = base == HF_USER_ST_SINK(0);
	*ch = (off - base) >> 8;
	*reg = off & 0xff;
	return *ch < (*sink ? u->cfg.num_h2c : u->cfg.num_c2h);
}

/* ---- user BAR ---- */

static u32 ref_reg_read(struct xdma_user *u, u32 off, u64 now)
{
	u32 ch, reg;
	bool sink;

	(void)now;
	if (off >= HF_USER_RAM && off < HF_USER_RAM + HF_USER_RAM_SIZE)
		return u->uram[(off - HF_USER_RAM) / 4];
	if (st_block(u, off, &ch, &reg, &sink))
		return sink ? sink_read(u, &u->sink[ch], reg) :
			      src_read(u, &u->src[ch], reg);
	switch (off) {
	case HF_USER_ID:
		return HF_USER_ID_VALUE;
	case HF_USER_VERSION:
		return HF_REFDESIGN_VERSION;
	case HF_USER_SCRATCH:
		return u->scratch;
	case HF_USER_IRQ_SET:
	case HF_USER_IRQ_CLEAR:
	case HF_USER_IRQ_REQ:
	case HF_USER_IRQ_PULSE:
		return u->irq_req | u->irq_pulse;
	case HF_USER_DDR_SIZE_MB:
		return (u32)(u->cfg.ddr_size >> 20);
	case HF_USER_LOOPBACK:
		if (!u->cfg.st)
			break;
		return u->loopback;
	}
	ref_error(u, "user BAR: read of reserved offset 0x%x", off);
	return 0;
}

static u32 ref_reg_write(struct xdma_user *u, u32 off, u32 val, u64 now)
{
	u32 ch, reg;
	bool sink;

	if (off >= HF_USER_RAM && off < HF_USER_RAM + HF_USER_RAM_SIZE) {
		u->uram[(off - HF_USER_RAM) / 4] = val;
		return 0;
	}
	if (st_block(u, off, &ch, &reg, &sink)) {
		if (!sink)
			return src_write(u, ch, reg, val, now);
		sink_write(u, &u->sink[ch], reg, val);
		return 0;
	}
	switch (off) {
	case HF_USER_SCRATCH:
		u->scratch = val;
		return 0;
	case HF_USER_LOOPBACK:
		if (!u->cfg.st)
			break;
		u->loopback = val & loop_mask(u);
		/* ports may change owner, routes at their next packet */
		return XDMA_USER_KICK_MASK | XDMA_USER_KICK_H2C_MASK;
	case HF_USER_IRQ_SET:
		u->irq_req |= val & REF_IRQ_MASK;
		return XDMA_USER_IRQ;
	case HF_USER_IRQ_CLEAR:
		u->irq_req &= ~val;
		u->irq_pulse &= ~val;
		return XDMA_USER_IRQ;
	case HF_USER_IRQ_PULSE:
		u->irq_pulse |= val & REF_IRQ_MASK;
		return XDMA_USER_IRQ;
	}
	ref_error(u, "user BAR: write 0x%x to RO/reserved 0x%x", val, off);
	return 0;
}

static u32 ref_irq_lines(struct xdma_user *u)
{
	return u->irq_req | u->irq_pulse;
}

/* Masking a pending pulse acknowledges it: the line drops. */
static void ref_irq_ack(struct xdma_user *u, u32 lines)
{
	u->irq_pulse &= ~lines;
}

/* ---- life cycle ---- */

static void ref_reset(struct xdma_user *u)
{
	u32 i;

	u->scratch = 0;
	memset(u->uram, 0, sizeof(u->uram));
	u->irq_req = 0;
	u->irq_pulse = 0;
	memset(u->src, 0, sizeof(u->src));
	memset(u->sink, 0, sizeof(u->sink));
	u->loopback = 0;
	memset(u->loop, 0, sizeof(u->loop));
	for (i = 0; i < REF_CHANNELS; i++) {
		u->src[i].frame_size = ST_SRC_FRAME_SIZE;
		u->src[i].rec_min = ST_SRC_REC_MIN;
		u->src[i].rec_max = ST_SRC_REC_MAX;
		hf_stream_check_init(&u->sink[i].chk);
	}
}

static int ref_create(const struct xdma_user_config *cfg,
		      const struct xdma_user_env *env, struct xdma_user **out)
{
	struct xdma_user *u;

	if (cfg->num_h2c > REF_CHANNELS || cfg->num_c2h > REF_CHANNELS)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->cfg = *cfg;
	u->env = *env;
	ref_reset(u);
	*out = u;
	return 0;
}

static void ref_destroy(struct xdma_user *u)
{
	free(u);
}

const struct xdma_user_ops hf_refdesign_user = {
	.name = "hellofpga reference design",
	.bar_size = HF_USER_BAR_SIZE,
	.create = ref_create,
	.destroy = ref_destroy,
	.reset = ref_reset,
	.advance = ref_advance,
	.reg_read = ref_reg_read,
	.reg_write = ref_reg_write,
	.irq_lines = ref_irq_lines,
	.irq_ack = ref_irq_ack,
	.st_peek = ref_st_peek,
	.st_read = ref_st_read,
	.st_take = ref_st_take,
	.st_in = ref_st_in,
};
