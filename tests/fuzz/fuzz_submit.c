// SPDX-License-Identifier: MIT
/*
 * fuzz_submit.c - the fuzzer's user interrupts and GPU Direct submissions
 * with their tickets.
 */
#include "fuzz.h"

/* ---- user interrupts ---- */

/*
 * P_USER_IRQ: raise, pulse and drop the reference design's lines 0..7 and
 * wait for them (0..5 ms) with good and bad arguments, poll their
 * descriptors, on the memory-mapped cards and on the race and stream
 * cards while those are closed under the calls (a Wait blocked on a card
 * that closes returns -EBADF); and each of the first 8 threads raises a
 * line of its own (8 + id), holds it, waits for it and drops it: a held
 * request is always delivered (0, a count of at least 1), or -EOPNOTSUPP
 * on the card without interrupts.
 */
void op_user_irq(struct fz_thread *t)
{
	static const uint32_t regs[] = {
		HF_USER_IRQ_SET, HF_USER_IRQ_CLEAR, HF_USER_IRQ_PULSE,
	};
	int ci = pick_card(t), where = below(t, 10);
	const char *name = cards[ci].name;
	HELLOFPGA_HANDLE h = cards[ci].h;
	int irq = chance(t, 85) ? (int)below(t, 8) : (int)below(t, 40) - 20;
	uint32_t r = regs[below(t, ARRAY_SIZE(regs))], n = 0;
	uint32_t val = (uint32_t)rnd(t) & 0xff;	/* lines 0..7 only */
	uint64_t gen = 0;
	bool stable = true, poll_mode = cards[ci].info.irq_mode ==
					HELLOFPGA_IRQ_POLL;
	int fd = -1, ret, ms;

	if (where == 8 && part_on[P_CLOSE_RACE]) {
		h = race_card();
		name = "race card";
		stable = poll_mode = false;
	} else if (where == 9 && part_on[P_STREAM]) {
		h = st_card(&gen);
		name = "stream card";
		stable = poll_mode = false;
	}
	if (!h)
		return;
	switch (below(t, 6)) {
	case 0:
		fz_log(t, "HelloFPGA_UserWrite32(%s, 0x%x, 0x%x): user IRQ",
		       name, r, val);
		ret = HelloFPGA_UserWrite32(h, r, val);
		if (stable)
			must_succeed(t, "HelloFPGA_UserWrite32", ret, h);
		else
			doc_ok(t, "HelloFPGA_UserWrite32", ret);
		break;
	case 1:
		ms = chance(t, 50) ? (int)below(t, 2) : (int)below(t, 6);
		fz_log(t, "HelloFPGA_UserIRQ_Wait(%s, %d, %d ms)", name, irq,
		       ms);
		ret = HelloFPGA_UserIRQ_Wait(h, irq, ms,
					     chance(t, 90) ? &n : NULL);
		if (doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret) && !ret && !n)
			fz_fail(t, "HelloFPGA_UserIRQ_Wait: 0 with a count of 0");
		if (ret == -EBADF && stable)
			fz_fail(t, "HelloFPGA_UserIRQ_Wait: -EBADF on an open card");
		break;
	case 2:
		fz_log(t, "HelloFPGA_UserIRQ_GetFd(%s, %d), poll it", name,
		       irq);
		ret = HelloFPGA_UserIRQ_GetFd(h, irq,
					      chance(t, 90) ? &fd : NULL);
		if (!doc_ok(t, "HelloFPGA_UserIRQ_GetFd", ret) || ret)
			break;
		if (fd < 0) {
			fz_fail(t, "HelloFPGA_UserIRQ_GetFd: 0 with fd %d", fd);
			break;
		}
		/* (closed by a Close of the card meanwhile: POLLNVAL) */
		poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0);
		break;
	case 3:
		fz_log(t, "HelloFPGA_UserIRQ_Wait/GetFd(bad handle)");
		must_fail(t, "HelloFPGA_UserIRQ_Wait",
			  HelloFPGA_UserIRQ_Wait(BOGUS, 0, 0, &n));
		must_fail(t, "HelloFPGA_UserIRQ_GetFd",
			  HelloFPGA_UserIRQ_GetFd(NULL, 0, &fd));
		break;
	case 4:
		/* a wait a Close of the race or stream card ends (-EBADF) */
		ms = stable ? 1 : 5 + (int)below(t, 20);
		fz_log(t, "HelloFPGA_UserIRQ_Wait(%s, 7, %d ms)", name, ms);
		ret = HelloFPGA_UserIRQ_Wait(h, 7, ms, &n);
		doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret);
		break;
	default: {
		uint32_t bit;

		if (t->id >= 8)
			break;
		irq = 8 + t->id;
		bit = 1u << irq;
		fz_log(t, "user IRQ %d of %s: raise, wait, drop", irq, name);
		ret = HelloFPGA_UserWrite32(h, HF_USER_IRQ_SET, bit);
		if (!doc_ok(t, "HelloFPGA_UserWrite32", ret) || ret) {
			if (stable)
				must_succeed(t, "HelloFPGA_UserWrite32", ret, h);
			break;
		}
		ret = HelloFPGA_UserIRQ_Wait(h, irq, 2000, &n);
		if (!doc_ok(t, "HelloFPGA_UserIRQ_Wait", ret)) {
			/* reported */
		} else if (poll_mode) {
			if (ret != -EOPNOTSUPP)
				fz_fail(t, "HelloFPGA_UserIRQ_Wait on a card without interrupts: %d",
					ret);
		} else if (stable || (ret && ret != -EBADF)) {
			if (must_succeed(t, "HelloFPGA_UserIRQ_Wait", ret, h) &&
			    !n)
				fz_fail(t, "HelloFPGA_UserIRQ_Wait: 0 with a count of 0");
		}
		ret = HelloFPGA_UserWrite32(h, HF_USER_IRQ_CLEAR, bit);
		if (stable)
			must_succeed(t, "HelloFPGA_UserWrite32", ret, h);
		else
			doc_ok(t, "HelloFPGA_UserWrite32", ret);
		break;
	}
	}
}

/* ---- GPU Direct submissions and their tickets ---- */

/*
 * P_SUBMIT: HelloFPGA_GPUDirect_Submit() with and without a GPU stream
 * waiting for the transfer or starting it, on a card of their own (no
 * shadow: the transfers run in the background), on the race card (closed
 * and opened again meanwhile) and as H2C packets on the stream card;
 * pins unpinned and GPU memory freed under queued submissions; the
 * tickets kept and completed later, by any thread, with timeouts of 0 ms
 * up to 200 ms; tickets given to another handle, made up or of a closed
 * handle.
 *
 * Checks: every result documented; a valid submission on the card of its
 * own succeeds; HelloFPGA_GPUDirect_Complete() of an open handle's own
 * ticket is never -EINVAL, of another open handle's is -EINVAL.
 */

struct fz_tickets tks = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct fz_card subc = { .name = FZ_SUB_NAME };

void ticket_add(HELLOFPGA_HANDLE h, uint64_t ticket, int card)
{
	pthread_mutex_lock(&tks.lock);
	tks.t[tks.n++ % FZ_TICKETS] = (struct fz_ticket){ h, ticket, card };
	pthread_mutex_unlock(&tks.lock);
}

static bool ticket_pick(struct fz_thread *t, struct fz_ticket *out)
{
	bool r;

	pthread_mutex_lock(&tks.lock);
	r = tks.n > 0;
	if (r)
		*out = tks.t[below(t, tks.n < FZ_TICKETS ? tks.n : FZ_TICKETS)];
	pthread_mutex_unlock(&tks.lock);
	return r;
}

/* The thread's GPU memory for submissions (its content is not checked). */
static bool sub_gpu(struct fz_thread *t)
{
	int ret;

	if (t->sgpu)
		return true;
	fz_log(t, "HelloFPGA_GPU_Alloc(%u) for submissions", FZ_SUB_GPU);
	ret = HelloFPGA_GPU_Alloc((void **)&t->sgpu, FZ_SUB_GPU);
	if (must_succeed(t, "HelloFPGA_GPU_Alloc", ret, NULL))
		return true;
	t->sgpu = NULL;
	return false;
}

/* ... and its pin on the card of its own. */
static bool sub_pin(struct fz_thread *t)
{
	int ret;

	if (!sub_gpu(t))
		return false;
	if (!t->spin) {
		fz_log(t, "HelloFPGA_GPUDirect_Pin(submission card, %u)",
		       FZ_SUB_GPU);
		ret = HelloFPGA_GPUDirect_Pin(subc.h, t->sgpu, FZ_SUB_GPU,
					      &t->spin);
		if (!must_succeed(t, "HelloFPGA_GPUDirect_Pin", ret, subc.h)) {
			t->spin = 0;
			return false;
		}
		t->spin_revoked = false;
	}
	return true;
}

/* Unpin the submission pin under queued submissions, or free its memory. */
void op_sub_pin(struct fz_thread *t)
{
	int ret;

	if (!t->spin || !t->sgpu) {
		sub_pin(t);
		return;
	}
	if (chance(t, 70)) {
		fz_log(t, "HelloFPGA_GPUDirect_Unpin(submission pin 0x%llx)",
		       (unsigned long long)t->spin);
		ret = HelloFPGA_GPUDirect_Unpin(subc.h, t->spin);
		must_succeed(t, "HelloFPGA_GPUDirect_Unpin", ret, subc.h);
		t->spin = 0;
		return;
	}
	fz_log(t, "HelloFPGA_GPU_Free(the submission pin's memory)");
	must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(t->sgpu),
		     NULL);
	t->sgpu = NULL;
	t->spin_revoked = true;
}

void op_submit(struct fz_thread *t)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Submit";
	static const uint32_t good_flags[] = {
		0, HELLOFPGA_SUBMIT_WAIT_ON_GPU, HELLOFPGA_SUBMIT_START_ON_GPU,
		HELLOFPGA_SUBMIT_WAIT_ON_GPU | HELLOFPGA_SUBMIT_START_ON_GPU,
	};
	int where = chance(t, 70) ? TK_SUB : chance(t, 50) ? TK_RACE : TK_ST;
	HELLOFPGA_SUBMISSION sub;
	HELLOFPGA_GPU_HANDLE pin = 0;
	HELLOFPGA_HANDLE h;
	uint64_t card = 0, gen = 0, part;
	size_t off, len;
	int dir = chance(t, 50) ? HELLOFPGA_DIR_H2C : HELLOFPGA_DIR_C2H;
	int ch = (int)below(t, 2), gi = -1, tmo = 0, ret, bad = -1;
	uint32_t flags = good_flags[below(t, 4)];
	bool nul = chance(t, 5), valid;
	void *gs = NULL;
	static const char *const what[] = {
		"unknown flags", "unknown direction", "no such channel",
		"size 0", "range leaves the pin", "timeout above the limit",
		"a made-up GPU stream", "a destroyed GPU stream",
	};

	if (flags) {
		gs = gs_get(t, true, &gi);
		if (!gs)
			return;
	}
	/*
	 * Card memory: the thread's slice, a quarter of it per queue
	 * (direction and channel), so that no two transfers running at once
	 * write, or write and read, the same bytes (the race card's: after
	 * the 4 KiB that op_close_race() moves).
	 */
	part = (where == TK_SUB ? subc.slice :
		ALIGN_DOWN((FZ_RACE_SIZE - 4096) / nthreads, 1024)) / 4;
	len = 1 + below(t, part < FZ_SUB_WR ? part : FZ_SUB_WR);
	card = part * ((dir == HELLOFPGA_DIR_C2H) * 2 + ch) +
	       below(t, part - len + 1);
	if (where == TK_SUB) {
		if (!sub_pin(t) && !t->spin)
			return;
		h = subc.h;
		pin = t->spin;
		card += slice_base(&subc, t->id);
	} else {
		if (where == TK_RACE) {
			h = race_card();
		} else {
			/* H2C1: the packets of H2C0 are checked by its sink */
			h = st_card(&gen);
			dir = HELLOFPGA_DIR_H2C;
			ch = 1;
		}
		if (!h || !sub_gpu(t))
			return;
		/* a pin of this call's, on a card that may be closing */
		ret = HelloFPGA_GPUDirect_Pin(h, t->sgpu, FZ_SUB_GPU, &pin);
		if (!doc_ok(t, "HelloFPGA_GPUDirect_Pin", ret) || ret)
			return;
		if (where == TK_RACE)
			card += 4096 + 4 * part * t->id;
		else
			card = 0;	/* a packet */
	}
	if (dir == HELLOFPGA_DIR_H2C)
		off = below(t, FZ_SUB_RD - len + 1);
	else
		off = FZ_SUB_RD + FZ_SUB_WR * ((where == TK_SUB ? 0 : 2) + ch) +
		      below(t, FZ_SUB_WR - len + 1);
	if (chance(t, 15)) {
		bad = (int)below(t, ARRAY_SIZE(what));
		switch (bad) {
		case 0:
			flags = 4u << below(t, 30);
			break;
		case 1:
			dir = chance(t, 50) ? 2 : -1;
			break;
		case 2:
			ch = chance(t, 50) ? -1 : XDMA_MAX_CHANNELS +
						   (int)below(t, 60);
			break;
		case 3:
			len = 0;
			break;
		case 4:
			off = FZ_SUB_GPU - below(t, len);
			break;
		case 5:
			tmo = 3600001 + (int)below(t, 1000);
			break;
		case 6:
			flags |= HELLOFPGA_SUBMIT_WAIT_ON_GPU;
			gs = made_up_gs(t);
			break;
		default:
			flags |= HELLOFPGA_SUBMIT_START_ON_GPU;
			pthread_mutex_lock(&gsp.lock);
			gs = gsp.dead[FZ_GS_WAIT + below(t, FZ_GS_SUB)];
			pthread_mutex_unlock(&gsp.lock);
			if (!gs)
				gs = made_up_gs(t);
			break;
		}
	} else if (chance(t, 20)) {
		tmo = 1000 + (int)below(t, 4000);
	}
	valid = bad < 0;
	fz_log(t, "%s(%s, %s%d, pin 0x%llx + 0x%zx, 0x%llx, 0x%zx, GPU stream %p, flags 0x%x, %d ms)%s%s",
	       fn, where == TK_SUB ? "submission card" : where == TK_RACE ?
	       "race card" : "stream card",
	       dir == HELLOFPGA_DIR_H2C ? "H2C" : "C2H", ch,
	       (unsigned long long)pin, off, (unsigned long long)card, len,
	       gs, flags, tmo, valid ? "" : ": ", valid ? "" : what[bad]);
	ret = HelloFPGA_GPUDirect_Submit(h, ch, pin, off, card, len, dir, gs,
					 flags, tmo, nul ? NULL : &sub);
	if (!valid) {
		must_fail(t, fn, ret);
	} else if (!doc_ok(t, fn, ret)) {
		/* reported */
	} else if (ret) {
		/*
		 * The card of its own fails only a submission of a pin whose
		 * memory was freed (-ENXIO) or a GPU stream just destroyed;
		 * the others may be closing meanwhile.
		 */
		if (where == TK_SUB && !(ret == -ENXIO && t->spin_revoked) &&
		    !(ret == -EINVAL && gi >= 0 && !gs_current(gi, gs)))
			must_succeed(t, fn, ret, h);
	} else if (!nul) {
		if (!sub.ticket || !sub.status ||
		    !sub.status_dev != !flags)
			fz_fail(t, "%s: ticket 0x%llx, status %p, status_dev 0x%llx with flags 0x%x",
				fn, (unsigned long long)sub.ticket,
				(void *)sub.status,
				(unsigned long long)sub.status_dev, flags);
		ticket_add(h, sub.ticket, where);
	}
	if (where == TK_SUB)
		return;
	/* the call's pin goes now or after a wait for its transfer */
	if (!ret && !nul && chance(t, 50)) {
		size_t actual = 0;

		ret = HelloFPGA_GPUDirect_Complete(h, sub.ticket, 50, &actual);
		doc_ok(t, "HelloFPGA_GPUDirect_Complete", ret);
	}
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(this submission's pin)");
	ret = HelloFPGA_GPUDirect_Unpin(h, pin);
	doc_ok(t, "HelloFPGA_GPUDirect_Unpin", ret);
}

/*
 * An open handle other than @h that never closes during the case: mostly
 * one with submissions of its own on the same channels (the submission
 * card for a ticket of another card, and the reverse).
 */
static HELLOFPGA_HANDLE other_handle(struct fz_thread *t, HELLOFPGA_HANDLE h)
{
	HELLOFPGA_HANDLE o;

	if (h != subc.h && chance(t, 70))
		return subc.h;
	do {
		int k = below(t, ncards + 1);

		o = k == ncards ? subc.h : cards[k].h;
	} while (o == h);
	return o;
}

void op_complete(struct fz_thread *t)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Complete";
	struct fz_ticket tk;
	HELLOFPGA_HANDLE h, now = NULL;
	size_t actual = 77;
	bool own, stable, nul = chance(t, 10);
	uint64_t ticket;
	int ms, ret;

	if (!ticket_pick(t, &tk))
		return;
	ms = chance(t, 30) ? 0 : chance(t, 70) ? 1 + (int)below(t, 5) :
	     chance(t, 90) ? 200 : -1;
	ticket = tk.ticket;
	h = tk.h;
	/* the cards of TK_SUB and TK_MM never close during the case */
	stable = tk.card == TK_SUB || tk.card == TK_MM;
	switch (below(t, 10)) {
	case 0 ... 5:
		own = true;
		break;
	case 6 ... 7:
		own = false;
		h = other_handle(t, tk.h);
		break;
	case 8:
		own = false;
		ticket = chance(t, 50) ? 0 : rnd(t);
		h = stable ? tk.h : subc.h;
		break;
	default:
		fz_log(t, "%s(ticket 0x%llx, 3600001 ms)", fn,
		       (unsigned long long)ticket);
		must_fail(t, fn, HelloFPGA_GPUDirect_Complete(tk.h, ticket,
							      3600001, NULL));
		fz_log(t, "%s(bad handle)", fn);
		must_fail(t, fn, HelloFPGA_GPUDirect_Complete(chance(t, 50) ?
							      NULL : BOGUS,
							      ticket, 0, NULL));
		return;
	}
	if (own && !stable)
		now = tk.card == TK_RACE ? race_card() : st_card(&(uint64_t){0});
	fz_log(t, "%s(%s handle, ticket 0x%llx, %d ms)", fn,
	       own ? "its" : "another", (unsigned long long)ticket, ms);
	ret = HelloFPGA_GPUDirect_Complete(h, ticket, ms, nul ? NULL : &actual);
	if (!doc_ok(t, fn, ret))
		return;
	if (!nul && actual && (ret == -EBADF || ret == -EINVAL ||
			       ret == -EAGAIN || ret == -ERANGE))
		fz_fail(t, "%s: %d, but actual %zu", fn, ret, actual);
	if (!own) {
		/* another open handle's ticket, or a made-up one */
		if (ret != -EINVAL)
			fz_fail(t, "%s: ticket 0x%llx of another handle (or made up): %d, not -EINVAL",
				fn, (unsigned long long)ticket, ret);
		return;
	}
	if (ret == -EINVAL && (stable || now == h))
		fz_fail(t, "%s: the handle's own ticket 0x%llx refused: %s",
			fn, (unsigned long long)ticket,
			HelloFPGA_GetLastError(h));
	if (ret == -EBADF && stable)
		fz_fail(t, "%s: -EBADF on an open handle", fn);
	if (ret != -EBADF && !stable && now != h)
		fz_fail(t, "%s on a closed handle: %d, not -EBADF", fn, ret);
}
