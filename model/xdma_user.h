/* SPDX-License-Identifier: GPL-2.0-or-later OR MIT */
/*
 * xdma_user.h - the seam between the emulated XDMA IP (xdma_model.c) and the
 * user logic of the design behind it: what a design's logic must provide so
 * that the IP can run it.  The IP knows nothing of a design's registers or
 * frames; it calls the user logic only through struct xdma_user_ops.
 *
 * The ports (PG195 names):
 *  - the AXI-Lite master behind the user BAR (M_AXI_LITE): reg_read and
 *    reg_write;
 *  - on a card with AXI-Stream channels, the C2H channels' stream inputs
 *    (S_AXIS_C2H_n: st_peek, st_read, st_take) and the H2C channels' stream
 *    outputs (M_AXIS_H2C_n: st_in);
 *  - the user interrupt lines usr_irq_req (irq_lines) and their
 *    acknowledgement usr_irq_ack (irq_ack);
 *  - the clock and reset (advance, reset).
 *
 * One implementation is the reference design's behaviour in C
 * (refdesign/hf_refdesign.c); another (an RTL simulation of the same design)
 * can be plugged in without touching the IP.  Whoever creates a card
 * (xdma_model_config.user) picks the user logic.
 *
 * Context: create and destroy are called from xdma_model_create() and
 * xdma_model_destroy(), with no other call in flight.  Every other op but
 * st_read is called with the IP's lock held, from whichever thread entered
 * the IP (an MMIO access of any host thread, an engine thread): the IP
 * serialises them, so an implementation needs no lock of its own for them,
 * but it must not block long and must not call back into the IP (only the
 * env's guest_error()).  Time is the host's clock in ns (ops->now_ns of
 * xdma_model_host_ops: CLOCK_MONOTONIC in process, QEMU's virtual clock),
 * passed in by the IP; it never goes back.
 */
#ifndef HF_XDMA_USER_H
#define HF_XDMA_USER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Flags a reg_write, st_take or st_in returns: what the IP must look at
 * again.
 * XDMA_USER_KICK_C2H(ch): C2H channel ch's stream input may have changed
 * (its engine, when busy, looks again); XDMA_USER_KICK_H2C(ch): H2C channel
 * ch's stream output may take data again after back-pressure (its engine
 * offers the rest); XDMA_USER_IRQ: the usr_irq_req lines may have changed
 * (the IP reads them); XDMA_USER_TLAST: the record ended (st_take), the
 * TLAST asked for was taken (st_in).  st_in returns flags too.
 */
#define XDMA_USER_KICK_C2H(ch)	(1u << (ch))
#define XDMA_USER_KICK_MASK	0xffu
#define XDMA_USER_KICK_H2C(ch)	(1u << (8 + (ch)))
#define XDMA_USER_KICK_H2C_MASK	0xff00u
#define XDMA_USER_IRQ		(1u << 30)
#define XDMA_USER_TLAST		(1u << 31)

/**
 * struct xdma_user_config - what the card gives its user logic.
 * @num_h2c: H2C channels (1..4)
 * @num_c2h: C2H channels (1..4)
 * @st: the channels are AXI-Stream (else memory-mapped: no stream op is
 *	called)
 * @ddr_size: card memory in bytes
 * @arg: xdma_model_config.user_arg, the implementation's own
 */
struct xdma_user_config {
	uint32_t num_h2c;
	uint32_t num_c2h;
	bool st;
	uint64_t ddr_size;
	const void *arg;
};

/**
 * struct xdma_user_env - what the IP gives its user logic.
 * @ctx: first argument of the callbacks
 * @guest_error: software did something the design leaves undefined (a
 *	reserved offset, a value out of range): the IP counts it
 *	(xdma_model_counters.guest_errors) and logs it with HF_MODEL_DEBUG
 *	set; may be called from any op
 */
struct xdma_user_env {
	void *ctx;
	void (*guest_error)(void *ctx, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
};

/**
 * struct xdma_user_rec - a C2H stream input's view of the record its source
 * offers.
 * @left: bytes of it offered now, not taken yet (at least 1): all the rest
 *	of the record (the C behaviour), or what the port's input buffer holds
 *	of it (an RTL simulation, which learns where a record ends only from
 *	TLAST): the record goes on until st_take() returns XDMA_USER_TLAST
 * @ready_ns: when the record was ready: none of its bytes leaves earlier
 * @next_ns: st_peek() found no record: when the next one comes (the IP
 *	asks again then), UINT64_MAX when none comes without a register write
 *	(which returns XDMA_USER_KICK_C2H)
 */
struct xdma_user_rec {
	uint32_t left;
	uint64_t ready_ns;
	uint64_t next_ns;
};

struct xdma_user;

/**
 * struct xdma_user_ops - a design's user logic.
 * @name: what it is, for messages
 * @bar_size: bytes of the user BAR (a power of two); accesses beyond it
 *	and unaligned ones never reach reg_read/reg_write
 * @create: build one instance for a card with @cfg; @env stays valid until
 *	destroy.  The instance starts out of reset (as after @reset).
 *	0 or a negative errno (the card is not created)
 * @destroy: free it
 * @reset: the card's reset (xdma_model_reset(), and at create): every
 *	register, line and stream to its reset value; no stream op is in
 *	flight
 * @advance: time is @now; @c2h_idle has a bit per C2H channel whose
 *	engine takes no data now (idle or parked): a source that drops what
 *	it cannot send drops now what came due meanwhile.  Called before
 *	every user BAR access and every DMA BAR write
 * @reg_read: AXI-Lite read of the 32-bit register at @off (aligned, below
 *	@bar_size) at time @now
 * @reg_write: AXI-Lite write; returns XDMA_USER_KICK_C2H() bits and
 *	XDMA_USER_IRQ as they apply
 * @irq_lines: the usr_irq_req lines now (bit n: line n of 16)
 * @irq_ack: usr_irq_ack of @lines: software masked their interrupt in the
 *	IRQ block after it was enabled (the model's acknowledgement,
 *	docs/xdma-model.md "User interrupts"); a line raised as a pulse drops.
 *	The IP re-reads the lines afterwards
 * @st_peek: C2H channel @ch's engine wants data at time @now: true and
 *	*@rec when a record is offered, false (with @rec->next_ns) when not.
 *	A record offered stays offered until its bytes are taken or a reset;
 *	@left shrinks only by what st_take() takes (it may grow)
 * @st_read: bytes [@skip, @skip + @n) of what the offered record has not
 *	had taken yet, into @buf (@skip + @n <= left).  Called WITHOUT the
 *	IP's lock, by the one thread working on channel @ch's engine, between
 *	an st_peek() that offered the record and the st_take() of those bytes;
 *	other ops (not st_take or reset of that record) may run meanwhile
 * @st_take: the next @n bytes of the offered record were sent, the last at
 *	time @t; returns XDMA_USER_TLAST when that ended the record, and
 *	XDMA_USER_IRQ when the lines may have changed
 * @st_in: H2C channel @ch's stream output: @n bytes at @buf, then, with
 *	@last, TLAST (a descriptor with EOP ended; @n is 0 then).  *@took:
 *	the bytes it took, all of them unless the port is back-pressured
 *	(tready low: a FIFO of the user logic is full), when the IP offers the
 *	rest again, in order, after a XDMA_USER_KICK_H2C(@ch) of a later op's
 *	flags (or of this one's: a slow implementation, a simulation, may take
 *	part and kick at once, so that one engine run does not hold the host
 *	long).  Returns XDMA_USER_TLAST when it took the TLAST asked for, and
 *	kicks and XDMA_USER_IRQ as they apply (data looped back to a C2H
 *	channel kicks its engine)
 */
struct xdma_user_ops {
	const char *name;
	uint32_t bar_size;
	int (*create)(const struct xdma_user_config *cfg,
		      const struct xdma_user_env *env, struct xdma_user **out);
	void (*destroy)(struct xdma_user *u);
	void (*reset)(struct xdma_user *u);
	void (*advance)(struct xdma_user *u, uint64_t now, uint32_t c2h_idle);
	uint32_t (*reg_read)(struct xdma_user *u, uint32_t off, uint64_t now);
	uint32_t (*reg_write)(struct xdma_user *u, uint32_t off, uint32_t val,
			      uint64_t now);
	uint32_t (*irq_lines)(struct xdma_user *u);
	void (*irq_ack)(struct xdma_user *u, uint32_t lines);
	bool (*st_peek)(struct xdma_user *u, uint32_t ch, uint64_t now,
			struct xdma_user_rec *rec);
	void (*st_read)(struct xdma_user *u, uint32_t ch, uint32_t skip,
			void *buf, uint32_t n);
	uint32_t (*st_take)(struct xdma_user *u, uint32_t ch, uint32_t n,
			    uint64_t t);
	uint32_t (*st_in)(struct xdma_user *u, uint32_t ch, const void *buf,
			  uint32_t n, bool last, uint32_t *took);
};

/*
 * A user logic built as a shared object (an RTL simulation: C++, a
 * simulator's runtime) exports one symbol, XDMA_USER_PLUGIN_SYMBOL, a
 * struct xdma_user_plugin whose @abi is XDMA_USER_PLUGIN_ABI: whoever
 * creates the card loads it with dlopen() only when asked to, so that
 * nothing else links it.  The ABI number changes with any change of
 * struct xdma_user_ops or of what its ops mean.
 */
#define XDMA_USER_PLUGIN_ABI	2
#define XDMA_USER_PLUGIN_SYMBOL	"xdma_user_plugin"

/**
 * struct xdma_user_plugin - what a user-logic shared object exports.
 * @abi: XDMA_USER_PLUGIN_ABI of the headers it was built with
 * @ops: its user logic
 * @about: what it is built from (e.g. the RTL's parameters), for messages
 */
struct xdma_user_plugin {
	uint32_t abi;
	const struct xdma_user_ops *ops;
	const char *about;
};

#endif /* HF_XDMA_USER_H */
