// SPDX-License-Identifier: MIT
/*
 * fuzz_stream.c - the fuzzer's GPU streams and the AXI-Stream card's
 * streams, shared by the threads.
 */
#include "fuzz.h"

/* ---- GPU streams of the emulated GPU, shared by the threads ---- */

struct fz_gs_pool gsp = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A value that is never a GPU stream (its high bits are set). */
void *made_up_gs(struct fz_thread *t)
{
	return (void *)(uintptr_t)(rnd(t) | 1ull << 63);
}

/*
 * A GPU stream of pool @sub (submissions) or of the stream waits, made if
 * need be, and its place in *@ip; NULL when none could be made.
 */
void *gs_get(struct fz_thread *t, bool sub, int *ip)
{
	int i = sub ? FZ_GS_WAIT + (int)below(t, FZ_GS_SUB) :
		      (int)below(t, FZ_GS_WAIT);
	void *v;
	int ret = 0;

	pthread_mutex_lock(&gsp.lock);
	if (!gsp.s[i]) {
		void *made = NULL;

		fz_log(t, "HelloFPGA_GPU_StreamCreate(place %d)", i);
		ret = HelloFPGA_GPU_StreamCreate(&made);
		/* (read without the lock by fork()'s child and hammers) */
		__atomic_store_n(&gsp.s[i], ret ? NULL : made, __ATOMIC_RELAXED);
	}
	v = gsp.s[i];
	pthread_mutex_unlock(&gsp.lock);
	if (ret)
		must_succeed(t, "HelloFPGA_GPU_StreamCreate", ret, NULL);
	*ip = i;
	return v;
}

/* Is @v still the GPU stream in place @i (not destroyed)? */
bool gs_current(int i, const void *v)
{
	bool r;

	pthread_mutex_lock(&gsp.lock);
	r = gsp.s[i] == v;
	pthread_mutex_unlock(&gsp.lock);
	return r;
}

/*
 * A GPU stream call on @v (place @i) returned @ret: -EINVAL only once @v
 * was destroyed; else documented.
 */
static bool gs_ret_ok(struct fz_thread *t, const char *fn, int ret, int i,
		      const void *v)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret == -EINVAL && gs_current(i, v)) {
		fz_fail(t, "%s: -EINVAL on a GPU stream not destroyed: %s", fn,
			HelloFPGA_GetLastError(NULL));
		return false;
	}
	return true;
}

void fz_noop(void *arg)
{
	(void)arg;
}

/*
 * A host function after a GPU wait: reads the status word the wait was
 * on (HelloFPGA_GPU_WAIT.status).  The slots of a stream that was waited
 * on are never freed, so this reads live memory even after the stream
 * closed (a sanitizer reports it otherwise).
 */
static void fz_read_word(void *arg)
{
	uint32_t v = __atomic_load_n((const uint32_t *)arg, __ATOMIC_ACQUIRE);

	(void)v;
}

/*
 * P_GPU_STREAM: GPU_StreamCreate/Destroy/Synchronize/LaunchHostFunc with
 * good and bad arguments, a stream destroyed while other threads use it.
 */
void op_gpu_stream(struct fz_thread *t)
{
	void *v, *bad;
	int i, ret;

	v = gs_get(t, chance(t, 50), &i);
	if (!v)
		return;
	switch (below(t, 6)) {
	case 0:
		pthread_mutex_lock(&gsp.lock);
		v = gsp.s[i];
		__atomic_store_n(&gsp.s[i], NULL, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&gsp.lock);
		if (!v)
			break;
		fz_log(t, "HelloFPGA_GPU_StreamDestroy(%p), then again", v);
		must_succeed(t, "HelloFPGA_GPU_StreamDestroy",
			     HelloFPGA_GPU_StreamDestroy(v), NULL);
		must_fail(t, "HelloFPGA_GPU_StreamDestroy",
			  HelloFPGA_GPU_StreamDestroy(v));
		/* a value for calls on a destroyed stream, once it is */
		pthread_mutex_lock(&gsp.lock);
		__atomic_store_n(&gsp.dead[i], v, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&gsp.lock);
		break;
	case 1: {
		int ms = (int)below(t, 6);

		fz_log(t, "HelloFPGA_GPU_StreamSynchronize(%p, %d)", v, ms);
		ret = HelloFPGA_GPU_StreamSynchronize(v, ms);
		gs_ret_ok(t, "HelloFPGA_GPU_StreamSynchronize", ret, i, v);
		break;
	}
	case 2:
		fz_log(t, "HelloFPGA_GPU_LaunchHostFunc(%p, noop)", v);
		ret = HelloFPGA_GPU_LaunchHostFunc(v, fz_noop, NULL);
		gs_ret_ok(t, "HelloFPGA_GPU_LaunchHostFunc", ret, i, v);
		break;
	case 3:
		fz_log(t, "HelloFPGA_GPU_LaunchHostFunc(%p, NULL)", v);
		must_fail(t, "HelloFPGA_GPU_LaunchHostFunc",
			  HelloFPGA_GPU_LaunchHostFunc(v, NULL, NULL));
		fz_log(t, "HelloFPGA_GPU_StreamSynchronize(%p, 3600001)", v);
		must_fail(t, "HelloFPGA_GPU_StreamSynchronize",
			  HelloFPGA_GPU_StreamSynchronize(v, 3600001));
		fz_log(t, "HelloFPGA_GPU_StreamCreate(NULL)");
		must_fail(t, "HelloFPGA_GPU_StreamCreate",
			  HelloFPGA_GPU_StreamCreate(NULL));
		break;
	default:
		pthread_mutex_lock(&gsp.lock);
		bad = chance(t, 60) ? gsp.dead[i] : NULL;
		pthread_mutex_unlock(&gsp.lock);
		if (!bad && chance(t, 80))
			bad = made_up_gs(t);
		fz_log(t, "HelloFPGA_GPU_Stream*(%p): destroyed, made up or NULL",
		       bad);
		must_fail(t, "HelloFPGA_GPU_StreamSynchronize",
			  HelloFPGA_GPU_StreamSynchronize(bad, 0));
		must_fail(t, "HelloFPGA_GPU_LaunchHostFunc",
			  HelloFPGA_GPU_LaunchHostFunc(bad, fz_noop, NULL));
		must_fail(t, "HelloFPGA_GPU_StreamDestroy",
			  HelloFPGA_GPU_StreamDestroy(bad));
		break;
	}
}

/* ---- the stream card and its streams, shared by the threads ---- */

/*
 * P_STREAM: an AXI-Stream card whose reference-design source sends
 * FZ_ST_FRAME-byte frames back to back on each of its C2H channels, and
 * a stream slot per channel that every thread uses: any thread opens a
 * stream there (a ring the library allocates, one in the fuzzer's host
 * memory, or one in a GPU Direct pin), waits on it, releases what some
 * thread holds (on the CPU or through a GPU stream), reads its counters,
 * enqueues GPU waits on it, frees the GPU memory under its ring, closes
 * it, while others are inside calls on it.  P_STREAM_CLOSE: a thread
 * closes the card under all that (H2C packets in flight, held up by a
 * hang of the card's engines of a few ms) and opens it again.
 *
 * Checks: a frame handed out is whole and as the source sent it, and
 * stays so while held (the card never writes a held buffer); no buffer is
 * handed out twice; -EBADF only once the stream or its card is being
 * closed; -EIO only from a ring whose GPU memory was freed; the calls of
 * a stream never block past their timeout (a Close that does not return
 * is a hang, see run()).
 */

struct fz_st_card stc = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct fz_slot slots[FZ_ST_CH];

struct fz_wedged wedged = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Is the last error text of @h (or the thread's) that of a wedged engine? */
static bool is_wedged(HELLOFPGA_HANDLE h)
{
	return strstr(HelloFPGA_GetLastError(h), "wedged") ||
	       strstr(HelloFPGA_GetLastError(NULL), "wedged");
}

/* The stream card's handle and generation; NULL while it is closed. */
HELLOFPGA_HANDLE st_card(uint64_t *gen)
{
	HELLOFPGA_HANDLE h;

	pthread_mutex_lock(&stc.lock);
	h = stc.h;
	*gen = stc.gen;
	pthread_mutex_unlock(&stc.lock);
	return h;
}

static uint64_t st_gen(void)
{
	return __atomic_load_n(&stc.gen, __ATOMIC_ACQUIRE);
}

/* The stream of @sl (its lock held) is open and its card not closing. */
static bool slot_alive(const struct fz_slot *sl)
{
	return sl->state == SL_OPEN && sl->gen == st_gen();
}

/*
 * A call on stream @v of @sl (opened on card generation @gen) returned
 * -EBADF: only once the stream or its card is being closed.
 */
static void st_ebadf_ok(struct fz_thread *t, struct fz_slot *sl,
			HELLOFPGA_STREAM v, uint64_t gen, const char *fn)
{
	bool ok;

	pthread_mutex_lock(&sl->lock);
	ok = sl->s != v || sl->state != SL_OPEN || gen != st_gen();
	pthread_mutex_unlock(&sl->lock);
	if (!ok)
		fz_fail(t, "%s: -EBADF on an open stream of an open card: %s",
			fn, HelloFPGA_GetLastError(NULL));
}

/* Start the source of every channel of the stream card @h. */
int st_source_start(HELLOFPGA_HANDLE h)
{
	/* the handle's timeout, a Wait's of -1 ms: not all of a case's time */
	int ret = HelloFPGA_SetTimeout(h, 500);

	for (uint32_t ch = 0; !ret && ch < FZ_ST_CH; ch++) {
		ret = HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(ch) +
					    HF_ST_SRC_FRAME_SIZE, FZ_ST_FRAME);
		if (!ret)
			ret = HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(ch) +
						    HF_ST_SRC_CTRL,
						    HF_ST_SRC_CTRL_ENABLE);
	}
	return ret;
}

/*
 * Buffer @i of @sl (lock held, stream alive, host or library ring) holds
 * the whole frame @seq as the source sent it.
 */
static bool st_check_buf(struct fz_thread *t, struct fz_slot *sl,
			 const uint8_t *p, uint32_t i, uint64_t seq,
			 const char *when)
{
	uint64_t got = ~0ull;

	if (hf_stream_verify(p, FZ_ST_FRAME, &got) || got != seq) {
		fz_fail(t, "stream on C2H%d: buffer %u %s: not the whole frame %llu the source sent (header sequence %llu, bytes %02x %02x %02x %02x ...)",
			(int)(sl - slots), i, when, (unsigned long long)seq,
			(unsigned long long)got, p[0], p[1], p[2], p[3]);
		return false;
	}
	return true;
}

/*
 * Free what the fuzzer gave a ring after its stream's Close; its card of
 * generation @gen may be closing meanwhile (its pins go with it).
 */
static void st_free_ring(struct fz_thread *t, HELLOFPGA_HANDLE h, int ring,
			 uint8_t *host, uint8_t *gpu, HELLOFPGA_GPU_HANDLE pin,
			 uint64_t gen)
{
	int ret;

	free(host);
	if (ring != RING_GPU)
		return;
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(ring pin 0x%llx), closed",
	       (unsigned long long)pin);
	ret = HelloFPGA_GPUDirect_Unpin(h, pin);
	if (ret != -EBADF || gen == st_gen())
		must_succeed(t, "HelloFPGA_GPUDirect_Unpin", ret, h);
	else
		doc_ok(t, "HelloFPGA_GPUDirect_Unpin", ret);
	if (gpu) {
		fz_log(t, "HelloFPGA_GPU_Free(ring)");
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu),
			     NULL);
	}
}

/*
 * A storm: a thread about to close a stream names it here, and the other
 * threads, at their next call, hammer it (non-blocking Waits, GetStats,
 * GPU waits, bad releases) until the Close returns, so that the Close
 * comes while calls are in flight on the stream, blocked on its locks
 * during the stop, or entering as it drains them: the races of the
 * stream's life against Stream_Close.  Meanwhile no call ends on another
 * stream (whose end would wake a Close that missed its own wake-up): a
 * Close that waits for ever is a hang (run()).
 */
struct fz_storm storm;

void storm_hammer(struct fz_thread *t)
{
	HELLOFPGA_STREAM v = __atomic_load_n(&storm.v, __ATOMIC_ACQUIRE);
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_GPU_WAIT w;
	HELLOFPGA_FRAME f;
	int gi, ret;
	void *gs = gs_get(t, false, &gi);

	if (!v || __atomic_load_n(&storm.owner, __ATOMIC_RELAXED) == t->id)
		return;
	fz_log(t, "hammer stream %p that another thread closes", (void *)v);
	__atomic_add_fetch(&storm.hammering, 1, __ATOMIC_ACQ_REL);
	while (!t->failed && !__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&storm.v, __ATOMIC_ACQUIRE) == v) {
		switch (below(t, 20)) {
		case 0 ... 5:
			ret = HelloFPGA_Stream_Wait(v, 0, &f);
			doc_ok(t, "HelloFPGA_Stream_Wait", ret);
			break;
		case 6 ... 15:
			ret = HelloFPGA_Stream_GetStats(v, &st);
			doc_ok(t, "HelloFPGA_Stream_GetStats", ret);
			break;
		case 16:
			ret = HelloFPGA_Stream_Release(v, HELLOFPGA_STREAM_MAX_BUFFERS);
			if (must_fail(t, "HelloFPGA_Stream_Release", ret) &&
			    ret != -EINVAL && ret != -EBADF)
				fz_fail(t, "HelloFPGA_Stream_Release of no buffer: %d",
					ret);
			break;
		default:
			if (!gs)
				break;
			ret = HelloFPGA_Stream_WaitOnGPU(v, gs, below(t, 4), 0,
							 &w);
			doc_ok(t, "HelloFPGA_Stream_WaitOnGPU", ret);
			break;
		}
	}
	__atomic_sub_fetch(&storm.hammering, 1, __ATOMIC_ACQ_REL);
}

/* Close the stream of @sl (locked, SL_OPEN); unlocks. */
static void st_close(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_STREAM v = sl->s;
	HELLOFPGA_HANDLE h = sl->h;
	uint64_t gen = sl->gen;
	int ring = sl->ring, ret;
	uint8_t *host = sl->host, *gpu = sl->gpu;
	HELLOFPGA_GPU_HANDLE pin = sl->pin;

	bool in_storm = false;

	sl->state = SL_BUSY;
	sl->held = 0;
	pthread_mutex_unlock(&sl->lock);
	if (nthreads > 1 && gen == st_gen() && chance(t, 80)) {
		HELLOFPGA_STREAM none = NULL;

		in_storm = __atomic_compare_exchange_n(&storm.v, &none, v, false,
						       __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE);
		if (in_storm)
			__atomic_store_n(&storm.owner, t->id, __ATOMIC_RELAXED);
	}
	if (in_storm) {
		/* until a thread hammers it (bounded: they may be busy) */
		for (int i = 0; i < 1000 &&
		     !__atomic_load_n(&storm.hammering, __ATOMIC_ACQUIRE); i++)
			usleep(10);
		if (chance(t, 50))
			usleep(below(t, 100));
		__atomic_add_fetch(&storm.n, 1, __ATOMIC_RELAXED);
		if (__atomic_load_n(&storm.hammering, __ATOMIC_ACQUIRE))
			__atomic_add_fetch(&storm.hammered, 1,
					   __ATOMIC_RELAXED);
	}
	fz_log(t, "HelloFPGA_Stream_Close(C2H%d %p)%s%s", (int)(sl - slots),
	       (void *)v, gen != st_gen() ? ", its card closing" : "",
	       in_storm ? ", hammered by the other threads" : "");
	ret = HelloFPGA_Stream_Close(v);
	if (in_storm)
		__atomic_store_n(&storm.v, NULL, __ATOMIC_RELEASE);
	if (ret == -EIO && is_wedged(h)) {
		/*
		 * The engine did not go idle within the stop's bound (a late
		 * engine thread of the emulated card): the ring stays, and
		 * the stream is freed.
		 */
		fz_log(t, "HelloFPGA_Stream_Close: -EIO, wedged: %s",
		       HelloFPGA_GetLastError(h));
		pthread_mutex_lock(&wedged.lock);
		wedged.count++;
		if (wedged.n < FZ_WEDGED) {
			wedged.host[wedged.n] = host;
			wedged.gpu[wedged.n++] = gpu;
		}
		pthread_mutex_unlock(&wedged.lock);
	} else if (must_succeed(t, "HelloFPGA_Stream_Close", ret, h)) {
		st_free_ring(t, h, ring, host, gpu, pin, gen);
	}
	fz_log(t, "HelloFPGA_Stream_Close(C2H%d %p) again", (int)(sl - slots),
	       (void *)v);
	must_fail(t, "HelloFPGA_Stream_Close", HelloFPGA_Stream_Close(v));
	pthread_mutex_lock(&sl->lock);
	sl->state = SL_EMPTY;
	__atomic_store_n(&sl->s, NULL, __ATOMIC_RELAXED);
	sl->host = NULL;
	sl->gpu = NULL;
	sl->pin = 0;
	sl->closed = v;
	pthread_mutex_unlock(&sl->lock);
}

/* A configuration with one thing wrong: Open must fail.  Slot locked. */
static void st_open_bad(struct fz_thread *t, struct fz_slot *sl,
			HELLOFPGA_HANDLE h)
{
	static const char *const what[] = {
		"channel out of range", "buffers out of range",
		"buffer size not a multiple of 4096", "reserved not 0",
		"flags not 0", "gpu not a pin", "host and gpu both",
		"host not aligned", "gpu_offset without gpu", "NULL cfg",
		"NULL stream", "bad handle", "a channel in use",
		"gpu a pin whose GPU memory was freed",
	};
	void *gpu = NULL;
	HELLOFPGA_GPU_HANDLE pin = 0;
	HELLOFPGA_STREAM_CONFIG c;
	HELLOFPGA_STREAM s = NULL;
	const HELLOFPGA_STREAM_CONFIG *cp = &c;
	HELLOFPGA_STREAM *sp = &s;
	int k = below(t, ARRAY_SIZE(what)), ret;

	memset(&c, 0, sizeof(c));
	c.channel = (int)(sl - slots);
	c.buffers = 2 + below(t, 4);
	c.buffer_size = 4096;
	switch (k) {
	case 0:
		c.channel = chance(t, 50) ? -1 - (int)below(t, 5) :
			    FZ_ST_CH + (int)below(t, 100);
		break;
	case 1:
		c.buffers = chance(t, 50) ? below(t, 2) :
			    HELLOFPGA_STREAM_MAX_BUFFERS + 1 + below(t, 1000);
		break;
	case 2:
		c.buffer_size = chance(t, 30) ? 0 : chance(t, 50) ? SIZE_MAX :
				4096 + 1 + below(t, 4095);
		break;
	case 3:
		c.reserved[below(t, 7)] = 1 + (uint32_t)below(t, 100);
		break;
	case 4:
		c.flags = 1 + (uint32_t)below(t, 0xffff);
		break;
	case 5:
		c.gpu = rnd(t) | 1ull << 62;
		break;
	case 6:
		c.host = t->host;
		c.gpu = 1;
		break;
	case 7:
		c.host = (uint8_t *)ALIGN((uintptr_t)t->host, 4096) + 1 +
			 below(t, 4095);
		break;
	case 8:
		c.gpu_offset = 4096;
		break;
	case 9:
		cp = NULL;
		break;
	case 10:
		sp = NULL;
		break;
	case 11:
		h = chance(t, 50) ? NULL : BOGUS;
		break;
	case 12:
		/* the channel of an open stream of the card */
		if (sl->state != SL_OPEN || sl->gen != st_gen())
			return;
		break;
	default:
		if (sl->state != SL_EMPTY)
			return;
		if (HelloFPGA_GPU_Alloc(&gpu, 65536))
			return;
		if (HelloFPGA_GPUDirect_Pin(h, gpu, 65536, &pin)) {
			HelloFPGA_GPU_Free(gpu);
			return;
		}
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu),
			     NULL);
		c.gpu = pin;
		break;
	}
	fz_log(t, "HelloFPGA_Stream_Open(C2H%d, %u x %zu): %s", c.channel,
	       c.buffers, c.buffer_size, what[k]);
	ret = HelloFPGA_Stream_Open(h, cp, sp);
	if (must_fail(t, "HelloFPGA_Stream_Open", ret) && s)
		fz_fail(t, "Stream_Open failed (%d) but gave a stream %p", ret,
			(void *)s);
	if (k == 12 && ret != -EBUSY && ret != -EBADF)
		fz_fail(t, "Stream_Open on a channel in use: %d, not -EBUSY",
			ret);
	if (k == 13) {
		if (ret != -ENXIO && ret != -EBADF)
			fz_fail(t, "Stream_Open in a pin whose GPU memory was freed: %d, not -ENXIO",
				ret);
		doc_ok(t, "HelloFPGA_GPUDirect_Unpin",
		       HelloFPGA_GPUDirect_Unpin(h, pin));
	}
}

/* Open a stream in @sl (locked, SL_EMPTY); unlocks. */
static void st_open(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_STREAM_CONFIG c;
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_GPU_HANDLE pin = 0;
	uint8_t *host = NULL;
	void *gpu = NULL;
	size_t len, glen = 0;
	uint64_t gen;
	HELLOFPGA_HANDLE h = st_card(&gen);
	int ring = below(t, 4), ret;

	if (!h) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.channel = (int)(sl - slots);
	c.buffers = 2 + below(t, FZ_ST_MAXBUF - 1);
	c.buffer_size = 4096 * (1 + below(t, 2));
	len = c.buffers * c.buffer_size;
	ring = ring == 3 ? RING_LIB : ring;
	sl->state = SL_BUSY;
	pthread_mutex_unlock(&sl->lock);
	if (ring == RING_HOST) {
		host = aligned_alloc(4096, len);
		if (!host)
			goto out;
		memset(host, 0, len);
		c.host = host;
	} else if (ring == RING_GPU) {
		/* buffers never straddle the emulated GPU's pages */
		c.gpu_offset = c.buffer_size * below(t, 3);
		glen = c.gpu_offset + len + 4096 * below(t, 2);
		fz_log(t, "HelloFPGA_GPU_Alloc(%zu), Pin on the stream card", glen);
		ret = HelloFPGA_GPU_Alloc(&gpu, glen);
		if (!must_succeed(t, "HelloFPGA_GPU_Alloc", ret, NULL))
			goto out;
		ret = HelloFPGA_GPUDirect_Pin(h, gpu, glen, &pin);
		if (!doc_ok(t, "HelloFPGA_GPUDirect_Pin", ret))
			goto out;
		if (ret) {
			if (ret != -EBADF || gen == st_gen())
				must_succeed(t, "HelloFPGA_GPUDirect_Pin", ret,
					     h);
			goto out;
		}
		c.gpu = pin;
	}
	fz_log(t, "HelloFPGA_Stream_Open(C2H%d, %u x %zu, %s ring)", c.channel,
	       c.buffers, c.buffer_size, ring == RING_LIB ? "library" :
	       ring == RING_HOST ? "host" : "GPU");
	ret = HelloFPGA_Stream_Open(h, &c, &s);
	if (!doc_ok(t, "HelloFPGA_Stream_Open", ret))
		goto out;
	if (ret) {
		/*
		 * The card's Close began meanwhile (-EBADF), or the channel's
		 * engine is still wedged by the stop of the stream before.
		 */
		if ((ret != -EBADF || gen == st_gen()) &&
		    !(ret == -EIO && is_wedged(h)))
			must_succeed(t, "HelloFPGA_Stream_Open", ret, h);
		goto out;
	}
	pthread_mutex_lock(&sl->lock);
	sl->state = SL_OPEN;
	/* (read without the lock by fork()'s child and hammers) */
	__atomic_store_n(&sl->s, s, __ATOMIC_RELAXED);
	sl->h = h;
	sl->gen = gen;
	sl->bufs = c.buffers;
	sl->bsize = c.buffer_size;
	sl->held = 0;
	sl->ring = ring;
	sl->host = host;
	sl->gpu = gpu;
	sl->gpu_off = c.gpu_offset;
	sl->pin = pin;
	sl->revoked = false;
	pthread_mutex_unlock(&sl->lock);
	return;
out:
	if (pin)
		doc_ok(t, "HelloFPGA_GPUDirect_Unpin",
		       HelloFPGA_GPUDirect_Unpin(h, pin));
	if (gpu)
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu),
			     NULL);
	free(host);
	pthread_mutex_lock(&sl->lock);
	sl->state = SL_EMPTY;
	pthread_mutex_unlock(&sl->lock);
}

/* What a thread knows of a slot's stream for one call. */
struct fz_st {
	struct fz_slot *sl;
	HELLOFPGA_STREAM v;
	uint64_t gen;
	uint32_t bufs;
	size_t bsize;
	int ring;
	uint8_t *host;
	size_t gpu_off;
};

static void st_snap(struct fz_slot *sl, struct fz_st *x)
{
	x->sl = sl;
	x->v = sl->s;
	x->gen = sl->gen;
	x->bufs = sl->bufs;
	x->bsize = sl->bsize;
	x->ring = sl->ring;
	x->host = sl->host;
	x->gpu_off = sl->gpu_off;
}

/* A stream call's result: documented, and -EBADF only when closing. */
static bool st_ret_ok(struct fz_thread *t, const struct fz_st *x,
		      const char *fn, int ret)
{
	if (!doc_ok(t, fn, ret))
		return false;
	if (ret == -EBADF)
		st_ebadf_ok(t, x->sl, x->v, x->gen, fn);
	return ret == 0;
}

static void st_wait(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_Wait";
	struct fz_slot *sl = x->sl;
	HELLOFPGA_FRAME f;
	int ms, ret;
	uint32_t i;

	switch (below(t, 20)) {
	case 0:
		fz_log(t, "%s(C2H%d, NULL frame)", fn, (int)(sl - slots));
		must_fail(t, fn, HelloFPGA_Stream_Wait(x->v, 0, NULL));
		return;
	case 1:
		fz_log(t, "%s(C2H%d, 3600001 ms)", fn, (int)(sl - slots));
		must_fail(t, fn, HelloFPGA_Stream_Wait(x->v, 3600001, &f));
		return;
	case 2:
		ms = -1;	/* the handle's timeout */
		break;
	default:
		ms = chance(t, 40) ? 0 : 1 + (int)below(t, 5);
		break;
	}
	fz_log(t, "%s(C2H%d %p, %d ms)", fn, (int)(sl - slots), (void *)x->v,
	       ms);
	ret = HelloFPGA_Stream_Wait(x->v, ms, &f);
	if (ret == -EIO) {
		bool revoked;

		pthread_mutex_lock(&sl->lock);
		revoked = sl->s == x->v && sl->revoked;
		pthread_mutex_unlock(&sl->lock);
		if (!revoked)
			fz_fail(t, "%s: -EIO from a stream whose ring is intact: %s",
				fn, HelloFPGA_GetLastError(NULL));
		return;
	}
	if (!st_ret_ok(t, x, fn, ret))
		return;
	i = f.index;
	if (i >= x->bufs || f.length != FZ_ST_FRAME ||
	    !(f.flags & HELLOFPGA_FRAME_EOP)) {
		fz_fail(t, "%s: buffer %u of %u, length %llu, flags 0x%x: frames are %u bytes, one a buffer",
			fn, i, x->bufs, (unsigned long long)f.length, f.flags,
			FZ_ST_FRAME);
		return;
	}
	if (x->ring == RING_GPU ?
	    f.host || f.gpu_offset != x->gpu_off + i * x->bsize :
	    !f.host || (x->ring == RING_HOST &&
			f.host != x->host + i * x->bsize)) {
		fz_fail(t, "%s: buffer %u at host %p, GPU offset 0x%llx: not where the %s ring has it",
			fn, i, f.host, (unsigned long long)f.gpu_offset,
			x->ring == RING_GPU ? "GPU" : "host");
		return;
	}
	if (chance(t, 20)) {
		/*
		 * Before anyone else knows the buffer is held (nobody can
		 * release it): the GPU wait for its sequence lies in the
		 * window and names it.
		 */
		HELLOFPGA_GPU_WAIT w;
		int gi;
		void *gs = gs_get(t, false, &gi);

		fz_log(t, "HelloFPGA_Stream_WaitOnGPU(C2H%d, sequence %llu of buffer %u just handed out)",
		       (int)(sl - slots), (unsigned long long)f.sequence, i);
		ret = gs ? HelloFPGA_Stream_WaitOnGPU(x->v, gs, f.sequence, 0,
						      &w) : -EBADF;
		if (!gs || (ret == -EINVAL && !gs_current(gi, gs))) {
			/* no GPU stream, or it was destroyed */
		} else if (st_ret_ok(t, x, "HelloFPGA_Stream_WaitOnGPU", ret) &&
			   (w.index != i || w.sequence != f.sequence)) {
			fz_fail(t, "HelloFPGA_Stream_WaitOnGPU(%llu): buffer %u, but Wait handed out sequence %llu in buffer %u",
				(unsigned long long)f.sequence, w.index,
				(unsigned long long)f.sequence, i);
		} else if (ret && ret != -EBADF) {
			fz_fail(t, "HelloFPGA_Stream_WaitOnGPU of a held buffer's sequence: %d: %s",
				ret, HelloFPGA_GetLastError(NULL));
		}
	}
	pthread_mutex_lock(&sl->lock);
	if (sl->s == x->v && sl->state == SL_OPEN) {
		if (sl->held & 1ull << i)
			fz_fail(t, "%s: buffer %u handed out while another thread holds it",
				fn, i);
		sl->fptr[i] = NULL;
		if (x->ring != RING_GPU && slot_alive(sl) &&
		    st_check_buf(t, sl, f.host, i, *(const uint64_t *)f.host,
				 "as handed out")) {
			sl->fseq[i] = *(const uint64_t *)f.host;
			sl->fptr[i] = f.host;
		}
		sl->held |= 1ull << i;
	}
	pthread_mutex_unlock(&sl->lock);
}

/*
 * Take a held buffer of @sl for a release: its index, or -1.  The frame
 * in it must still be the one handed out.
 */
static int st_take_held(struct fz_thread *t, const struct fz_st *x)
{
	struct fz_slot *sl = x->sl;
	uint32_t i;
	int r = -1;

	pthread_mutex_lock(&sl->lock);
	if (sl->s == x->v && sl->state == SL_OPEN && sl->held) {
		do {
			i = below(t, x->bufs);
		} while (!(sl->held & 1ull << i));
		if (sl->fptr[i] && slot_alive(sl))
			st_check_buf(t, sl, sl->fptr[i], i, sl->fseq[i],
				     "when released");
		sl->held &= ~(1ull << i);
		r = (int)i;
	}
	pthread_mutex_unlock(&sl->lock);
	return r;
}

/* Give back a buffer taken with st_take_held() whose release failed. */
static void st_untake(const struct fz_st *x, int i)
{
	pthread_mutex_lock(&x->sl->lock);
	if (x->sl->s == x->v && x->sl->state == SL_OPEN)
		x->sl->held |= 1ull << i;
	pthread_mutex_unlock(&x->sl->lock);
}

static void st_release(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_Release";
	int i = chance(t, 85) ? st_take_held(t, x) : -1, ret;

	if (i < 0) {
		uint32_t bad = x->bufs + (uint32_t)below(t, 3);

		if (chance(t, 10))
			bad = UINT32_MAX - (uint32_t)below(t, 3);
		fz_log(t, "%s(C2H%d, %u): out of range", fn,
		       (int)(x->sl - slots), bad);
		must_fail(t, fn, HelloFPGA_Stream_Release(x->v, bad));
		return;
	}
	fz_log(t, "%s(C2H%d %p, %d)", fn, (int)(x->sl - slots), (void *)x->v,
	       i);
	ret = HelloFPGA_Stream_Release(x->v, (uint32_t)i);
	if (!st_ret_ok(t, x, fn, ret) && ret != -EBADF)
		fz_fail(t, "%s of a held buffer: %d: %s", fn, ret,
			HelloFPGA_GetLastError(NULL));
	if (ret || nthreads > 1)
		return;
	/* one thread: nobody had it handed out again since */
	fz_log(t, "%s(C2H%d, %d) again", fn, (int)(x->sl - slots), i);
	must_fail(t, fn, HelloFPGA_Stream_Release(x->v, (uint32_t)i));
}

static void st_release_on_gpu(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_ReleaseOnGPU";
	int gi, i = st_take_held(t, x), ret;
	void *gs = gs_get(t, false, &gi);
	uint32_t flags = 0;
	bool bad = false;

	if (i < 0 || !gs) {
		if (i >= 0)
			st_untake(x, i);
		return;
	}
	if (chance(t, 10)) {
		bad = true;
		if (chance(t, 50))
			flags = 1u << below(t, 32);
		else
			gs = made_up_gs(t);
	}
	fz_log(t, "%s(C2H%d %p, GPU stream %p, %d, 0x%x)", fn,
	       (int)(x->sl - slots), (void *)x->v, gs, i, flags);
	ret = HelloFPGA_Stream_ReleaseOnGPU(x->v, gs, (uint32_t)i, flags);
	if (bad) {
		must_fail(t, fn, ret);
		st_untake(x, i);
		return;
	}
	if (ret == -EINVAL && !gs_current(gi, gs)) {
		st_untake(x, i);	/* the GPU stream was destroyed */
		return;
	}
	if (!st_ret_ok(t, x, fn, ret) && ret != -EBADF)
		fz_fail(t, "%s of a held buffer: %d: %s", fn, ret,
			HelloFPGA_GetLastError(NULL));
	if (!ret && nthreads == 1 && chance(t, 30)) {
		/*
		 * The GPU release is queued (or done: then nobody else had
		 * the buffer handed out since): a CPU release is -EINVAL.
		 */
		fz_log(t, "HelloFPGA_Stream_Release(C2H%d, %d): queued on the GPU",
		       (int)(x->sl - slots), i);
		ret = HelloFPGA_Stream_Release(x->v, (uint32_t)i);
		if (must_fail(t, "HelloFPGA_Stream_Release", ret) &&
		    ret != -EINVAL && ret != -EBADF)
			fz_fail(t, "Release of a buffer released by the GPU: %d",
				ret);
	}
}

static void st_stats(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_GetStats";
	HELLOFPGA_STREAM_STATS st;
	bool nul = chance(t, 5);
	int ret;

	fz_log(t, "%s(C2H%d %p%s)", fn, (int)(x->sl - slots), (void *)x->v,
	       nul ? ", NULL" : "");
	ret = HelloFPGA_Stream_GetStats(x->v, nul ? NULL : &st);
	if (nul) {
		must_fail(t, fn, ret);
		return;
	}
	if (st_ret_ok(t, x, fn, ret) && (st.held > x->bufs ||
					 st.frames > st.buffers ||
					 st.bytes > st.buffers * x->bsize))
		fz_fail(t, "%s: held %u of %u buffers, %llu frames in %llu buffers, %llu bytes",
			fn, st.held, x->bufs, (unsigned long long)st.frames,
			(unsigned long long)st.buffers,
			(unsigned long long)st.bytes);
}

static void st_wait_on_gpu(struct fz_thread *t, const struct fz_st *x)
{
	static const char fn[] = "HelloFPGA_Stream_WaitOnGPU";
	HELLOFPGA_GPU_WAIT w;
	uint64_t seq = below(t, 3 * x->bufs + 1);
	uint32_t flags = chance(t, 20) ? HELLOFPGA_GPU_WAIT_FLUSH : 0;
	bool bad = false, nul = chance(t, 10);
	int gi, ret;
	void *gs = gs_get(t, false, &gi);

	if (!gs)
		return;
	if (chance(t, 5))
		seq = rnd(t);
	if (chance(t, 8)) {
		bad = true;
		if (chance(t, 50))
			flags = 2u << below(t, 31);
		else
			gs = made_up_gs(t);
	}
	fz_log(t, "%s(C2H%d %p, GPU stream %p, %llu, 0x%x)", fn,
	       (int)(x->sl - slots), (void *)x->v, gs, (unsigned long long)seq,
	       flags);
	ret = HelloFPGA_Stream_WaitOnGPU(x->v, gs, seq, flags, nul ? NULL : &w);
	if (bad) {
		must_fail(t, fn, ret);
		return;
	}
	if (ret == -EINVAL && !gs_current(gi, gs))
		return;		/* the GPU stream was destroyed */
	if (!st_ret_ok(t, x, fn, ret) || nul)
		return;
	if (w.index >= x->bufs || w.sequence != seq || !w.status ||
	    !w.status_dev ||
	    (x->ring == RING_GPU ? w.host ||
	     w.gpu_offset != x->gpu_off + w.index * x->bsize :
	     !w.host || (x->ring == RING_HOST &&
			 w.host != x->host + w.index * x->bsize)))
		fz_fail(t, "%s(%llu): buffer %u of %u, sequence %llu, status %p/0x%llx, host %p, GPU offset 0x%llx",
			fn, (unsigned long long)seq, w.index, x->bufs,
			(unsigned long long)w.sequence, (void *)w.status,
			(unsigned long long)w.status_dev, w.host,
			(unsigned long long)w.gpu_offset);
	else if (chance(t, 50))
		gs_ret_ok(t, "HelloFPGA_GPU_LaunchHostFunc",
			  HelloFPGA_GPU_LaunchHostFunc(gs, fz_read_word,
						       (void *)w.status),
			  gi, gs);
}

/*
 * The GPU ring's memory freed while the stream is open: the pin is
 * revoked; the ring must stop before the memory goes (no DMA fault), and
 * Wait may then return -EIO.  Or: its pin cannot be unpinned (-EBUSY).
 */
static void st_gpu_ring(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE pin;
	uint64_t gen;
	uint8_t *gpu;
	int ret;

	pthread_mutex_lock(&sl->lock);
	if (sl->state != SL_OPEN || sl->ring != RING_GPU || !sl->gpu) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	h = sl->h;
	pin = sl->pin;
	gen = sl->gen;
	if (chance(t, 70)) {
		pthread_mutex_unlock(&sl->lock);
		fz_log(t, "HelloFPGA_GPUDirect_Unpin(the pin of C2H%d's open ring)",
		       (int)(sl - slots));
		ret = HelloFPGA_GPUDirect_Unpin(h, pin);
		if (must_fail(t, "HelloFPGA_GPUDirect_Unpin", ret) &&
		    ret != -EBUSY && (ret != -EBADF || gen == st_gen()))
			fz_fail(t, "Unpin of an open stream's ring pin: %d, not -EBUSY",
				ret);
		return;
	}
	gpu = sl->gpu;
	sl->gpu = NULL;
	sl->revoked = true;
	pthread_mutex_unlock(&sl->lock);
	fz_log(t, "HelloFPGA_GPU_Free(the GPU memory of C2H%d's open ring)",
	       (int)(sl - slots));
	must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(gpu), NULL);
}

/* Calls on a closed, made-up or NULL stream: -EBADF (Close(NULL): 0). */
static void st_bad(struct fz_thread *t, struct fz_slot *sl)
{
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_STREAM bad;
	HELLOFPGA_FRAME f;
	HELLOFPGA_GPU_WAIT w;
	int gi;
	void *gs = gs_get(t, false, &gi);

	pthread_mutex_lock(&sl->lock);
	bad = chance(t, 60) ? sl->closed : NULL;
	pthread_mutex_unlock(&sl->lock);
	if (!bad && chance(t, 80))
		bad = (HELLOFPGA_STREAM)(void *)(uintptr_t)(rnd(t) |
							    1ull << 62);
	fz_log(t, "HelloFPGA_Stream_*(%p): closed, made up or NULL",
	       (void *)bad);
	must_fail(t, "HelloFPGA_Stream_Wait", HelloFPGA_Stream_Wait(bad, 0, &f));
	must_fail(t, "HelloFPGA_Stream_Release",
		  HelloFPGA_Stream_Release(bad, 0));
	must_fail(t, "HelloFPGA_Stream_GetStats",
		  HelloFPGA_Stream_GetStats(bad, &st));
	if (gs) {
		must_fail(t, "HelloFPGA_Stream_WaitOnGPU",
			  HelloFPGA_Stream_WaitOnGPU(bad, gs, 0, 0, &w));
		must_fail(t, "HelloFPGA_Stream_ReleaseOnGPU",
			  HelloFPGA_Stream_ReleaseOnGPU(bad, gs, 0, 0));
	}
	if (bad)
		must_fail(t, "HelloFPGA_Stream_Close",
			  HelloFPGA_Stream_Close(bad));
	else
		must_succeed(t, "HelloFPGA_Stream_Close",
			     HelloFPGA_Stream_Close(NULL), NULL);
}

void op_stream(struct fz_thread *t)
{
	struct fz_slot *sl = &slots[below(t, FZ_ST_CH)];
	struct fz_st x;
	uint64_t gen;

	if (chance(t, 5)) {
		st_bad(t, sl);
		return;
	}
	pthread_mutex_lock(&sl->lock);
	if (sl->state == SL_BUSY) {
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	if (sl->state == SL_EMPTY) {
		HELLOFPGA_HANDLE h = st_card(&gen);

		if (h && chance(t, 15)) {
			st_open_bad(t, sl, h);
			pthread_mutex_unlock(&sl->lock);
			return;
		}
		st_open(t, sl);		/* unlocks */
		return;
	}
	/* the card's Close began: close its streams (while it runs) */
	if (sl->gen != st_gen() || chance(t, 4)) {
		st_close(t, sl);	/* unlocks */
		return;
	}
	if (chance(t, 3)) {
		HELLOFPGA_HANDLE h = st_card(&gen);

		if (h)
			st_open_bad(t, sl, h);
		pthread_mutex_unlock(&sl->lock);
		return;
	}
	st_snap(sl, &x);
	pthread_mutex_unlock(&sl->lock);
	switch (below(t, 20)) {
	case 0 ... 7:
		st_wait(t, &x);
		break;
	case 8 ... 11:
		st_release(t, &x);
		break;
	case 12 ... 13:
		st_release_on_gpu(t, &x);
		break;
	case 14 ... 15:
		st_stats(t, &x);
		break;
	case 16 ... 18:
		st_wait_on_gpu(t, &x);
		break;
	default:
		st_gpu_ring(t, sl);
		break;
	}
}

/*
 * An H2C packet on the stream card (its sink checks the frame), at times
 * behind a hang of the card's engines of a few ms, so that a Close of the
 * card waits for it; and the calls an AXI-Stream card refuses.
 */
void op_st_h2c(struct fz_thread *t)
{
	static const char fn[] = "HelloFPGA_DMA_MM_WriteH2C";
	uint64_t gen;
	HELLOFPGA_HANDLE h = st_card(&gen);
	uint32_t len = HF_STREAM_MIN_LEN + (uint32_t)below(t, 64 << 10), v = 1;
	size_t actual = 77;
	int ret;

	if (!h)
		return;
	if (chance(t, 10)) {
		uint8_t b[64];

		fz_log(t, "stream card: C2H read, H2C at a card address");
		ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, sizeof(b), &actual);
		if (must_fail(t, "HelloFPGA_DMA_MM_ReadC2H", ret) &&
		    ret != -EOPNOTSUPP && ret != -EBADF)
			fz_fail(t, "ReadC2H on a stream card: %d, not -EOPNOTSUPP",
				ret);
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, b, 4096, sizeof(b),
						&actual);
		if (must_fail(t, fn, ret) && ret != -EINVAL && ret != -EBADF)
			fz_fail(t, "WriteH2C at a card address on a stream card: %d, not -EINVAL",
				ret);
		return;
	}
	hf_stream_fill(t->host, t->calls, len, 0, len);
	if (chance(t, 25)) {
		/*
		 * Below the 2 ms a stop of the card's engines is given to go
		 * idle (no link model): a Close meanwhile waits for the packet,
		 * a stream's stop for the hang, and neither wedges.
		 */
		uint64_t ns = 200000 + below(t, 600000);

		fz_log(t, "stream card: its engines hang for %llu us",
		       (unsigned long long)ns / 1000);
		ret = hf_emu_test_inject_hang(h, ns);
		if (ret && (ret != -EOPNOTSUPP || gen == st_gen()))
			fz_fail(t, "hf_emu_test_inject_hang: %d", ret);
	}
	fz_log(t, "%s(stream card, packet of %u bytes)", fn, len);
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, t->host, 0, len, &actual);
	if (!doc_ok(t, fn, ret))
		return;
	if (ret) {
		if (ret != -EBADF || gen == st_gen())
			must_succeed(t, fn, ret, h);
		return;
	}
	if (actual != len)
		fz_fail(t, "%s: a packet of %u bytes, actual %zu", fn, len,
			actual);
	/* every packet was whole: the sink found none bad */
	ret = HelloFPGA_UserRead32(h, HF_USER_ST_SINK(0) + HF_ST_SINK_FRAMES_BAD,
				   &v);
	if (!doc_ok(t, "HelloFPGA_UserRead32", ret))
		return;
	if (!ret && v)
		fz_fail(t, "stream card: the H2C sink found %u bad frames", v);
	else if (ret && (ret != -EBADF || gen == st_gen()))
		must_succeed(t, "HelloFPGA_UserRead32", ret, h);
}

/*
 * P_STREAM_CLOSE: HelloFPGA_Close() of the stream card while the threads
 * are inside calls on it and its streams; the streams' slots see the new
 * generation at once, so other threads close those streams while the
 * Close may still wait for calls in flight.  Then the card is opened again.
 */
void op_st_card_close(struct fz_thread *t)
{
	HELLOFPGA_HANDLE h, nh = NULL;
	int ret;

	pthread_mutex_lock(&stc.lock);
	h = stc.h;
	if (!h) {
		pthread_mutex_unlock(&stc.lock);
		return;
	}
	stc.h = NULL;
	__atomic_add_fetch(&stc.gen, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&stc.lock);
	/* a thread checking a frame of a stream of @h is done with it */
	for (int i = 0; i < FZ_ST_CH; i++) {
		pthread_mutex_lock(&slots[i].lock);
		pthread_mutex_unlock(&slots[i].lock);
	}
	fz_log(t, "HelloFPGA_Close(stream card)");
	must_succeed(t, "HelloFPGA_Close", HelloFPGA_Close(h), NULL);
	fz_log(t, "HelloFPGA_Open(stream card)");
	ret = HelloFPGA_Open(FZ_ST_NAME, &nh);
	if (!must_succeed(t, "HelloFPGA_Open", ret, NULL))
		return;
	ret = st_source_start(nh);
	if (!must_succeed(t, "stream card: the source's start", ret, nh)) {
		HelloFPGA_Close(nh);
		return;
	}
	pthread_mutex_lock(&stc.lock);
	stc.h = nh;
	pthread_mutex_unlock(&stc.lock);
}
