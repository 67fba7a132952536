// SPDX-License-Identifier: MIT
/*
 * fuzz_card.c - the fuzzer's calls on the card and its handles: info and
 * counters, the user BAR, Open of random names, closed handles, Close
 * racing transfers, short timeouts.
 */
#include "fuzz.h"

/* ---- everything else ---- */

/* A getter call of op_info(): on card c, with its handle or a bad one. */
struct fz_getter {
	struct fz_thread *t;
	const struct fz_card *c;
	HELLOFPGA_HANDLE h;	/* c->h, NULL or BOGUS */
	bool good;		/* h is c->h */
	bool nul;		/* the result pointer is NULL */
};

/* Log getter @fn of @g before it is called; @arg names its result. */
static void getter_log(const struct fz_getter *g, const char *fn,
		       const char *arg)
{
	fz_log(g->t, "%s(%s, %s)", fn, g->good ? g->c->name : "bad",
	       g->nul ? "NULL" : arg);
}

/*
 * A getter's result: success with a good handle and pointer (true), else
 * one of its documented errors (false).
 */
static bool getter_ok(const struct fz_getter *g, const char *fn, int ret)
{
	if (g->good && !g->nul)
		return must_succeed(g->t, fn, ret, g->h);
	must_fail(g->t, fn, ret);
	return false;
}

/*
 * Log, call and check getter FN of struct fz_getter @g into @res (NULL when
 * @g->nul), @name naming @res in the log; true when it succeeded.
 */
#define CALL_GETTER(g, fn, res, name)					\
	(getter_log(g, #fn, name),					\
	 getter_ok(g, #fn, fn((g)->h, (g)->nul ? NULL : (res))))

void op_info(struct fz_thread *t)
{
	const struct fz_card *c = &cards[pick_card(t)];
	HELLOFPGA_HANDLE h = chance(t, 15) ? (chance(t, 50) ? NULL : BOGUS) :
			     c->h;
	bool good = h == c->h, nul = chance(t, 15);
	const struct fz_getter g = {
		.t = t, .c = c, .h = h, .good = good, .nul = nul,
	};
	HELLOFPGA_INFO info;
	HELLOFPGA_PCI_INFO pci;
	HELLOFPGA_COUNTERS cnt;
	HELLOFPGA_DMA_FAULTS f;
	HELLOFPGA_GPU_STATUS st;
	HELLOFPGA_LINK_MODEL lm;
	const char *s;
	int ret, v;

	switch (below(t, 10)) {
	case 0:
		if (CALL_GETTER(&g, HelloFPGA_GetInfo, &info, "&info") &&
		    (info.ddr_size != c->info.ddr_size ||
		     info.num_h2c != c->info.num_h2c))
			fz_fail(t, "GetInfo: the card changed");
		break;
	case 1:
		CALL_GETTER(&g, HelloFPGA_GetPCIInfo, &pci, "&pci");
		break;
	case 2:
		CALL_GETTER(&g, HelloFPGA_GetCounters, &cnt, "&c");
		break;
	case 3:
		if (CALL_GETTER(&g, HelloFPGA_GetDMAFaults, &f, "&f") &&
		    f.faults)
			fz_fail(t, "GetDMAFaults: %llu faults",
				(unsigned long long)f.faults);
		break;
	case 4: {
		static const int bad[] = { 0, -1, INT_MIN, INT_MAX, 3600001 };

		v = chance(t, 60) ? 1000 + (int)below(t, 9000) :
		    bad[below(t, ARRAY_SIZE(bad))];
		fz_log(t, "HelloFPGA_SetTimeout(%s, %d)",
		       good ? c->name : "bad", v);
		ret = HelloFPGA_SetTimeout(h, v);
		if (good && v >= 1 && v <= 3600000)
			must_succeed(t, "HelloFPGA_SetTimeout", ret, h);
		else
			must_fail(t, "HelloFPGA_SetTimeout", ret);
		break;
	}
	case 5:
		v = chance(t, 50) ? -(int)below(t, 5000) : (int)rnd(t);
		fz_log(t, "HelloFPGA_StrError(%d)", v);
		s = HelloFPGA_StrError(v);
		if (!s || !*s)
			fz_fail(t, "StrError(%d) is empty", v);
		break;
	case 6:
		fz_log(t, "HelloFPGA_GetLastError(%s)", good ? c->name : "bad");
		s = HelloFPGA_GetLastError(h);
		if (!s)
			fz_fail(t, "GetLastError is NULL");
		break;
	case 7:
		fz_log(t, "HelloFPGA_GetGPUStatus(%s)", nul ? "NULL" : "&st");
		ret = HelloFPGA_GetGPUStatus(nul ? NULL : &st);
		if (nul)
			must_fail(t, "HelloFPGA_GetGPUStatus", ret);
		else if (must_succeed(t, "HelloFPGA_GetGPUStatus", ret, NULL) &&
			 !st.supported)
			fz_fail(t, "GetGPUStatus: the emulated GPU is gone");
		break;
	case 8:
		if (CALL_GETTER(&g, HelloFPGA_GetLinkModel, &lm, "&lm") &&
		    lm.enabled)
			fz_fail(t, "GetLinkModel: a link model on %s", c->name);
		break;
	default:
		fz_log(t, "HelloFPGA_Version()");
		s = HelloFPGA_Version();
		if (!s || strcmp(s, HELLOFPGA_VERSION_STRING))
			fz_fail(t, "Version is '%s'", s ? s : "(null)");
		break;
	}
}

/* The user BAR: scratch and RAM (the thread's own word), bad offsets. */
void op_user(struct fz_thread *t)
{
	const struct fz_card *c = &cards[pick_card(t)];
	uint32_t own = HF_USER_RAM + 4 * t->id, v = 0, val = (uint32_t)rnd(t);
	int ret;

	switch (below(t, 6)) {
	case 0:
	case 1:
		fz_log(t, "HelloFPGA_UserWrite32/Read32(%s, 0x%x)", c->name,
		       own);
		ret = HelloFPGA_UserWrite32(c->h, own, val);
		if (!must_succeed(t, "HelloFPGA_UserWrite32", ret, c->h))
			break;
		ret = HelloFPGA_UserRead32(c->h, own, &v);
		if (must_succeed(t, "HelloFPGA_UserRead32", ret, c->h) &&
		    v != val)
			fz_fail(t, "user RAM 0x%x: wrote 0x%x, read 0x%x", own,
				val, v);
		break;
	case 2: {
		uint32_t off = 4 * below(t, HF_USER_BAR_SIZE / 4);

		fz_log(t, "HelloFPGA_UserRead32(%s, 0x%x)", c->name, off);
		ret = HelloFPGA_UserRead32(c->h, off, &v);
		must_succeed(t, "HelloFPGA_UserRead32", ret, c->h);
		break;
	}
	case 3: {
		uint32_t off = chance(t, 50) ? 4 * below(t, 1024) + 1 +
			       below(t, 3) : HF_USER_BAR_SIZE + (uint32_t)rnd(t) %
			       (UINT32_MAX - HF_USER_BAR_SIZE);

		fz_log(t, "HelloFPGA_UserWrite32(%s, 0x%x): bad offset",
		       c->name, off);
		must_fail(t, "HelloFPGA_UserWrite32",
			  HelloFPGA_UserWrite32(c->h, off, val));
		fz_log(t, "HelloFPGA_UserRead32(%s, 0x%x): bad offset",
		       c->name, off);
		must_fail(t, "HelloFPGA_UserRead32",
			  HelloFPGA_UserRead32(c->h, off, &v));
		break;
	}
	case 4:
		fz_log(t, "HelloFPGA_UserRead32(%s, 0, NULL)", c->name);
		must_fail(t, "HelloFPGA_UserRead32",
			  HelloFPGA_UserRead32(c->h, 0, NULL));
		break;
	default:
		fz_log(t, "HelloFPGA_UserWrite32/Read32(bad handle)");
		must_fail(t, "HelloFPGA_UserWrite32",
			  HelloFPGA_UserWrite32(BOGUS, HF_USER_SCRATCH, val));
		must_fail(t, "HelloFPGA_UserRead32",
			  HelloFPGA_UserRead32(NULL, HF_USER_ID, &v));
		break;
	}
	if (part_on[P_USER_IRQ] && chance(t, 20))
		op_user_irq(t);
}

/* A random card name, mostly near the grammar; shared ones the thread's. */
static void rnd_name(struct fz_thread *t, char *buf, size_t len)
{
	static const char *const pfx[] = {
		"emu", "emu:", "emu,", "", "/dev/hellofpga", "/dev/hellofpga0",
		"emulator", "EMU", "emu::", "/dev/hellofpga01",
	};
	static const char *const nums[] = {
		"0", "7", "9999", "10000", "010", "0x10", " 1", "-1", "", "1K",
		"18446744073709551616", "0x",
	};
	static const char *const opts[] = {
		"sync", "h2c=1", "h2c=5", "c2h=0", "c2h=4", "ddr=64K",
		"ddr=4095", "ddr=1000", "ddr=0x10000", "ddr=16777216T",
		"align=64", "align=3", "irq=poll", "irq=msi", "irq=fast",
		"link=gen3x4", "mps=0x200", "mps=300", "desc_ns=5", "colour=blue",
		"h2c= 2", "", "ddr=010M", "private=1", "link=gen9x1",
		"mps=4K",
	};
	bool private = chance(t, 80) || !part_on[P_SHARED_OPEN];
	size_t n = 0;
	int k = below(t, ARRAY_SIZE(pfx));

	n += snprintf(buf + n, len - n, "%s", pfx[k]);
	if (k == 1) {
		if (!private && chance(t, 70))
			n += snprintf(buf + n, len - n, "%d",
				      part_on[P_SHARED_OPEN] ? 100 :
				      100 + t->id);
		else
			n += snprintf(buf + n, len - n, "%s",
				      nums[below(t, ARRAY_SIZE(nums))]);
	}
	for (int i = below(t, 4); i > 0 && n < len - 32; i--)
		n += snprintf(buf + n, len - n, ",%s",
			      opts[below(t, ARRAY_SIZE(opts))]);
	/*
	 * A shared card (it lives in HELLOFPGA_EMU_DIR) always of 64 KiB:
	 * threads opening one card number at once then agree on its size
	 * (unless P_SHARED_OPEN).
	 */
	if (private || k != 1)
		snprintf(buf + n, len - n, ",private");
	else
		snprintf(buf + n, len - n, ",ddr=%s",
			 part_on[P_SHARED_OPEN] && chance(t, 50) ? "128K" :
			 "64K");
}

void op_open(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h = NULL;
	HELLOFPGA_INFO info;
	char name[256];
	uint8_t b[16], r[16];
	int ret;

	if (chance(t, 10)) {
		fz_log(t, "HelloFPGA_Open(emu,private, NULL)");
		must_fail(t, "HelloFPGA_Open",
			  HelloFPGA_Open("emu,private", NULL));
		fz_log(t, "HelloFPGA_Close(bad handle)");
		must_fail(t, "HelloFPGA_Close",
			  HelloFPGA_Close(chance(t, 50) ? NULL : BOGUS));
		return;
	}
	rnd_name(t, name, sizeof(name));
	fz_log(t, "HelloFPGA_Open(\"%s\")", name);
	ret = HelloFPGA_Open(name, &h);
	if (!doc_ok(t, "HelloFPGA_Open", ret))
		return;
	if (ret < 0) {
		if (!HelloFPGA_GetLastError(NULL)[0])
			fz_fail(t, "Open(\"%s\") failed (%d) without a text",
				name, ret);
		return;
	}
	/* private cards: a round trip of 16 bytes; then Close */
	if (must_succeed(t, "HelloFPGA_GetInfo", HelloFPGA_GetInfo(h, &info),
			 h) && strstr(name, ",private") &&
	    !strcmp(strstr(name, ",private"), ",private")) {
		for (int i = 0; i < 16; i++)
			b[i] = (uint8_t)rnd(t);
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, b, 0, 16, NULL);
		if (must_succeed(t, "HelloFPGA_DMA_MM_WriteH2C", ret, h)) {
			ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, r, 0, 16, NULL);
			if (must_succeed(t, "HelloFPGA_DMA_MM_ReadC2H", ret,
					 h) && memcmp(b, r, 16))
				fz_fail(t, "Open(\"%s\"): round trip differs",
					name);
		}
	}
	fz_log(t, "HelloFPGA_Close(\"%s\")", name);
	must_succeed(t, "HelloFPGA_Close", HelloFPGA_Close(h), NULL);
}

/* P_CLOSED_HANDLE: every handle function on a handle after its Close. */
void op_closed_handle(struct fz_thread *t)
{
	HELLOFPGA_LINK_MODEL lm;
	uint8_t b[16] = { 0 };
	HELLOFPGA_INFO info;
	uint32_t v;

	if (!t->closed) {
		if (HelloFPGA_Open("emu,private,ddr=64K", &t->closed))
			return;
		HelloFPGA_Close(t->closed);
	}
	fz_log(t, "calls on a closed handle");
	must_fail(t, "HelloFPGA_DMA_MM_WriteH2C",
		  HelloFPGA_DMA_MM_WriteH2C(t->closed, 0, b, 0, 16, NULL));
	must_fail(t, "HelloFPGA_DMA_MM_ReadC2H",
		  HelloFPGA_DMA_MM_ReadC2H(t->closed, 0, b, 0, 16, NULL));
	must_fail(t, "HelloFPGA_GetInfo", HelloFPGA_GetInfo(t->closed, &info));
	must_fail(t, "HelloFPGA_GetLinkModel",
		  HelloFPGA_GetLinkModel(t->closed, &lm));
	must_fail(t, "HelloFPGA_UserRead32",
		  HelloFPGA_UserRead32(t->closed, 0, &v));
	must_fail(t, "HelloFPGA_SetTimeout",
		  HelloFPGA_SetTimeout(t->closed, 1000));
	must_fail(t, "HelloFPGA_Close", HelloFPGA_Close(t->closed));
	(void)HelloFPGA_GetLastError(t->closed);
}

/*
 * P_CLOSE_RACE: transfers on a card that one thread closes and opens
 * again meanwhile; -EBADF (and only documented errors) while it is gone.
 */
void op_close_race(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h;
	uint8_t b[4096];
	size_t len;
	int ret;

	pthread_mutex_lock(&race_lock);
	h = race_h;
	if (t->id == 0 && chance(t, 30)) {
		race_h = NULL;
		pthread_mutex_unlock(&race_lock);
		if (h) {
			fz_log(t, "HelloFPGA_Close(race card)");
			must_succeed(t, "HelloFPGA_Close", HelloFPGA_Close(h),
				     NULL);
		}
		fz_log(t, "HelloFPGA_Open(race card)");
		ret = HelloFPGA_Open(FZ_RACE_NAME, &h);
		if (must_succeed(t, "HelloFPGA_Open", ret, NULL)) {
			pthread_mutex_lock(&race_lock);
			race_h = h;
			pthread_mutex_unlock(&race_lock);
		}
		return;
	}
	pthread_mutex_unlock(&race_lock);
	if (!h)
		return;
	/*
	 * h may be closed by now: only documented errors.  Each thread's
	 * bytes of the first 4 KiB (a write and a read of the same card
	 * bytes by two threads at once race in the card's memory).
	 */
	len = ALIGN_DOWN(sizeof(b) / nthreads, 64);
	fz_log(t, "transfers on the race card");
	doc_ok(t, "HelloFPGA_DMA_MM_WriteH2C",
	       HelloFPGA_DMA_MM_WriteH2C(h, 0, b, len * t->id, len, NULL));
	doc_ok(t, "HelloFPGA_DMA_MM_ReadC2H",
	       HelloFPGA_DMA_MM_ReadC2H(h, 0, b, len * t->id, len, NULL));
}

/*
 * Faults the case expects (tests/dma_faults.c): those of the emulated
 * IOMMU against an engine that a short timeout left wedged.  The stop of a
 * timed-out run waits for the descriptor in progress only as long as the
 * link needs for it; when the engine thread is late (a loaded machine, a
 * sanitizer's slowdown) the run ends wedged, the emulated backend unmaps
 * the caller's buffer all the same (it is the caller's again: the emulated
 * IOMMU, not a pin, keeps the late engine out of it), and the engine's
 * next read of it is a fault, by design (backend_emu_xfer.c,
 * emu_engine_usable()).
 */
uint64_t excused_faults;		/* atomic */

/*
 * After a run that ended wedged on @h: wait for its engine to go idle (a
 * transfer on the channel works again), then count the card's faults as
 * expected.
 */
static void short_timeout_wedged(struct fz_thread *t, HELLOFPGA_HANDLE h)
{
	HELLOFPGA_DMA_FAULTS f;
	uint8_t b = 0;
	int ret, i;

	must_succeed(t, "HelloFPGA_SetTimeout", HelloFPGA_SetTimeout(h, 1000),
		     h);
	for (i = 0; i < 10000; i++) {
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, &b, 0, 1, NULL);
		if (ret != -EIO)
			break;
		usleep(1000);
	}
	if (!must_succeed(t, "HelloFPGA_DMA_MM_WriteH2C", ret, h))
		return;
	ret = HelloFPGA_GetDMAFaults(h, &f);
	if (must_succeed(t, "HelloFPGA_GetDMAFaults", ret, h))
		__atomic_add_fetch(&excused_faults, f.faults, __ATOMIC_RELAXED);
}

/* P_SHORT_TIMEOUT: a big transfer under a timeout of a few ms. */
void op_short_timeout(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h;
	size_t len = 4u << 20, actual = 0;
	uint8_t *buf;
	int ret;

	if (HelloFPGA_Open("emu,private,ddr=8M,link=gen1x1", &h))
		return;
	buf = calloc(1, len);
	if (!buf) {
		HelloFPGA_Close(h);
		return;
	}
	memset(buf, 0xa5, len);
	fz_log(t, "HelloFPGA_SetTimeout(1..20 ms), WriteH2C 4 MiB on Gen1 x1");
	must_succeed(t, "HelloFPGA_SetTimeout",
		     HelloFPGA_SetTimeout(h, 1 + below(t, 20)), h);
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, &actual);
	if (doc_ok(t, "HelloFPGA_DMA_MM_WriteH2C", ret) && ret &&
	    ret != -ETIMEDOUT)
		fz_fail(t, "short timeout: %d, expected 0 or -ETIMEDOUT", ret);
	if (actual > len || (!ret && actual != len)) {
		fz_fail(t, "short timeout: %d, actual %zu of %zu", ret, actual,
			len);
	} else {
		/* actual counts every byte that may have been written */
		const uint8_t *mem = xdma_model_card_mem(hf_emu_test_model(h));

		for (size_t i = actual; i < len; i++) {
			if (mem[i]) {
				fz_fail(t, "short timeout: %d, actual %zu, but byte 0x%zx was written",
					ret, actual, i);
				break;
			}
		}
	}
	if (ret == -ETIMEDOUT && strstr(HelloFPGA_GetLastError(h), "wedged"))
		short_timeout_wedged(t, h);
	free(buf);
	HelloFPGA_Close(h);
}

/* The race card's handle now (NULL while it is closed). */
HELLOFPGA_HANDLE race_card(void)
{
	HELLOFPGA_HANDLE h;

	pthread_mutex_lock(&race_lock);
	h = race_h;
	pthread_mutex_unlock(&race_lock);
	return h;
}
