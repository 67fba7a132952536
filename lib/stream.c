// SPDX-License-Identifier: MIT
/*
 * stream.c - HelloFPGA_Stream_*: C2H AXI-Stream rings.  Validation, the
 * stream's life against its handle's (HelloFPGA_Close() stops the streams
 * and wakes their waiters), the hand-over of buffers between a waiting
 * thread and releasing ones, the reference design's source counters; the
 * ring itself is the backend's (the emulated card: the engine core's
 * struct hf_xdma_ring).
 *
 * Releases from any thread: a release marks its buffer (held[] 1 -> 2)
 * and, when no wait holds the stream's lock, hands it to the backend at
 * once; else it kicks the wait, which hands over every marked buffer
 * before it waits again, so a full ring never waits for a release that
 * is already made.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "hf_dev.h"
#include "hf_error.h"
#include "hf_gpudirect.h"
#include "hf_handle.h"
#include "hf_stream.h"
#include "hf_table.h"
#include "hf_user_regs.h"

#define HELD_FREE	0
#define HELD_BY_USER	1
#define HELD_RELEASED	2
/* how often a Wait looks at the doorbells of queued GPU releases */
#define DB_POLL_NS	100000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The table of open streams (hf_table.c).  A HELLOFPGA_STREAM is a slot
 * number and the generation of the stream in it, never the object's
 * address: a value that names no open stream (closed, made up, of another
 * process's table) finds nothing and is -EBADF.  A call takes a reference
 * under the table's lock; HelloFPGA_Stream_Close() takes the stream out of
 * the table (later lookups fail), stops it, and waits for the references
 * of the calls in flight before it frees it.
 *
 * fork(): in the child every stream is marked inherited (its calls are
 * -ECHILD through its handle; Close of one only forgets it) and loses the
 * references of the parent's calls in flight, whose threads are not there
 * to drop them.  Nothing else of a stream is touched: a thread of the
 * parent may have held its locks.
 */
static void stream_fork_child(void *entry)
{
	struct hellofpga_stream *s = entry;

	s->inherited = true;
	s->refs = 0;
}

HF_TABLE_DEFINE(tbl, stream_fork_child)

/* Enter @s in the table: 0, or -ENOMEM / -EMFILE. */
static int tbl_add(struct hellofpga_stream *s)
{
	uintptr_t v;
	int ret;

	hf_table_lock(&tbl);
	ret = hf_table_insert(&tbl, s, &v);
	if (!ret) {
		s->refs = 0;
		s->value = (HELLOFPGA_STREAM)(void *)v;
	}
	hf_table_unlock(&tbl);
	return ret;
}

/* The stream @v names, one reference taken; NULL when none. */
static struct hellofpga_stream *tbl_get(HELLOFPGA_STREAM v)
{
	struct hellofpga_stream *s;

	hf_table_lock(&tbl);
	s = hf_table_find(&tbl, (uintptr_t)(void *)v);
	if (s)
		s->refs++;
	hf_table_unlock(&tbl);
	return s;
}

/*
 * Drop a reference.  A Close waits for its own to be the last one (refs
 * 1), so the wake-up comes at 1 as well as at 0.
 */
static void tbl_put(struct hellofpga_stream *s)
{
	hf_table_lock(&tbl);
	if (--s->refs <= 1)
		hf_table_wake(&tbl);
	hf_table_unlock(&tbl);
}

/*
 * Take @s (referenced by the caller) out of the table: later lookups
 * fail.  Return: false when another Close took it out first.
 */
static bool tbl_remove(struct hellofpga_stream *s)
{
	bool removed;

	hf_table_lock(&tbl);
	removed = hf_table_remove(&tbl, (uintptr_t)(void *)s->value) != NULL;
	hf_table_unlock(&tbl);
	return removed;
}

/*
 * The stop of HelloFPGA_Close() (hf_stream_close_all()) is done with @s:
 * a HelloFPGA_Stream_Close() waiting for it (stream_wait_stopped()) may
 * free it now.  Nothing of @s is touched after this.
 */
static void tbl_mark_stopped(struct hellofpga_stream *s)
{
	hf_table_lock(&tbl);
	s->stopped = true;
	hf_table_wake(&tbl);
	hf_table_unlock(&tbl);
}

/*
 * HelloFPGA_Close() of @s's handle has begun, so @s is its to stop: wait
 * until that stop is done with it (a HelloFPGA_Close() that waits for a
 * transfer in flight comes to the streams only after it).
 */
static void stream_wait_stopped(struct hellofpga_stream *s)
{
	hf_table_lock(&tbl);
	while (!s->stopped)
		hf_table_wait(&tbl);
	hf_table_unlock(&tbl);
}

/* Wait until the caller's is the last reference to @s, then drop it. */
static void tbl_drain(struct hellofpga_stream *s)
{
	hf_table_lock(&tbl);
	while (s->refs > 1)
		hf_table_wait(&tbl);
	s->refs = 0;
	hf_table_unlock(&tbl);
}

/*
 * The stream @v names and its card, a reference on each taken: -EBADF
 * (NULL, closed or made-up stream, handle closed, stream stopped by
 * HelloFPGA_Close()), -ECHILD (after fork()).  Release with
 * stream_put().
 */
static int stream_get(HELLOFPGA_STREAM v, const char *fn,
		      struct hellofpga_stream **sp, struct hellofpga_dev **out)
{
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	if (!v)
		return hf_set_error(NULL, -EBADF, "%s: stream is NULL", fn);
	s = tbl_get(v);
	if (!s)
		return hf_set_error(NULL, -EBADF,
				    "%s: %p is not an open stream (closed, or never opened in this process)",
				    fn, (void *)v);
	ret = hf_dev_get(s->h, fn, &dev);
	if (ret) {
		tbl_put(s);
		return ret;
	}
	if (__atomic_load_n(&s->dev, __ATOMIC_ACQUIRE) != dev) {
		hf_dev_put(dev);
		tbl_put(s);
		return hf_set_error(NULL, -EBADF, "%s: stream %p is closed",
				    fn, (void *)v);
	}
	*sp = s;
	*out = dev;
	return 0;
}

/* Drop what stream_get() took; the result @ret passes through. */
static int stream_put(struct hellofpga_stream *s, struct hellofpga_dev *dev,
		      int ret)
{
	ret = hf_dev_put_ret(dev, ret);
	tbl_put(s);
	return ret;
}

static uint32_t src_reg(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			uint32_t reg)
{
	uint32_t v = 0;

	if (!s->ref_design ||
	    dev->ops->user_read32(dev, HF_USER_ST_SRC(s->cfg.channel) + reg, &v))
		return 0;
	return v;
}

static int check_cfg(struct hellofpga_dev *dev, const HELLOFPGA_STREAM_CONFIG *c,
		     const char *fn)
{
	if (c->channel < 0 || c->channel >= dev->info.num_c2h)
		return hf_set_error(dev, -ECHRNG,
				    "%s: C2H channel %d out of range: %s has %d C2H channel%s",
				    fn, c->channel, dev->info.name,
				    dev->info.num_c2h,
				    dev->info.num_c2h == 1 ? "" : "s");
	if (c->buffers < HELLOFPGA_STREAM_MIN_BUFFERS ||
	    c->buffers > HELLOFPGA_STREAM_MAX_BUFFERS)
		return hf_set_error(dev, -EINVAL,
				    "%s: buffers %u: must be %d..%d", fn,
				    c->buffers, HELLOFPGA_STREAM_MIN_BUFFERS,
				    HELLOFPGA_STREAM_MAX_BUFFERS);
	if (!c->buffer_size || c->buffer_size % 4096 ||
	    c->buffer_size > XDMA_DESC_MAX_LEN)
		return hf_set_error(dev, -EINVAL,
				    "%s: buffer_size %zu: must be a multiple of 4096, at most %u",
				    fn, c->buffer_size, (unsigned int)XDMA_DESC_MAX_LEN);
	if (c->host && c->gpu)
		return hf_set_error(dev, -EINVAL,
				    "%s: host and gpu both set: the ring is in one of them",
				    fn);
	if ((uintptr_t)c->host % 4096)
		return hf_set_error(dev, -EINVAL,
				    "%s: host %p is not 4 KiB aligned", fn, c->host);
	if (c->gpu_offset % 4096 || (c->gpu_offset && !c->gpu))
		return hf_set_error(dev, -EINVAL,
				    "%s: gpu_offset 0x%llx: must be a multiple of 4096, and 0 without gpu",
				    fn, (unsigned long long)c->gpu_offset);
	if (c->flags)
		return hf_set_error(dev, -EINVAL,
				    "%s: flags 0x%x: no flag is defined, must be 0",
				    fn, c->flags);
	for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++)
		if (c->reserved[i])
			return hf_set_error(dev, -EINVAL,
					    "%s: reserved[%zu] is 0x%x: must be 0",
					    fn, i, c->reserved[i]);
	return 0;
}

static void stream_free(struct hellofpga_stream *s)
{
	pthread_mutex_destroy(&s->gw_lock);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Take @s off its card's list of streams, if it is on it. */
static void stream_unlink(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	pthread_mutex_lock(&dev->stream_lock);
	for (struct hellofpga_stream **p = &dev->streams; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	pthread_mutex_unlock(&dev->stream_lock);
}

static int stream_open(struct hellofpga_dev *dev, HELLOFPGA_HANDLE h,
		       const HELLOFPGA_STREAM_CONFIG *cfg, HELLOFPGA_STREAM *out)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	struct hellofpga_stream *s, *o;
	uint32_t id = 0;
	int ret;

	if (!cfg || !out)
		return hf_set_error(dev, -EFAULT, "%s: %s is NULL", fn,
				    cfg ? "s" : "cfg");
	*out = NULL;
	ret = check_cfg(dev, cfg, fn);
	if (ret)
		return ret;
	if (!dev->ops->stream_start)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: the %s backend has no streams", fn,
				    dev->ops->name);
	s = calloc(1, sizeof(*s));
	if (!s)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->gw_lock, NULL);
	s->h = h;
	s->cfg = *cfg;
	if (!dev->ops->user_read32(dev, HF_USER_ID, &id) &&
	    id == HF_USER_ID_VALUE)
		s->ref_design = true;

	/*
	 * One stream per channel of the handle.  (The channel locks of
	 * MM transfers are thread-owned mutexes, robust across processes:
	 * one held for a stream's life would pass to the next taker when
	 * the opening thread ends.  MM calls are refused on a stream card.)
	 */
	pthread_mutex_lock(&dev->stream_lock);
	for (o = dev->streams; o; o = o->next)
		if (o->cfg.channel == cfg->channel)
			break;
	if (o) {
		pthread_mutex_unlock(&dev->stream_lock);
		stream_free(s);
		return hf_set_error(dev, -EBUSY,
				    "%s: a stream is open on C2H channel %d",
				    fn, cfg->channel);
	}
	s->dev = dev;
	s->next = dev->streams;
	dev->streams = s;
	pthread_mutex_unlock(&dev->stream_lock);

	s->drop_base = src_reg(dev, s, HF_ST_SRC_DROPPED);
	s->sent_base = src_reg(dev, s, HF_ST_SRC_SENT);
	s->drop_last = s->drop_base;
	pthread_mutex_lock(&s->lock);
	ret = dev->ops->stream_start(dev, s);
	pthread_mutex_unlock(&s->lock);
	if (ret) {
		stream_unlink(dev, s);
		stream_free(s);
		return ret;
	}
	ret = tbl_add(s);
	if (ret) {
		stream_unlink(dev, s);
		pthread_mutex_lock(&s->lock);
		dev->ops->stream_stop(dev, s);
		pthread_mutex_unlock(&s->lock);
		stream_free(s);
		return hf_set_error(dev, ret, "%s: %s", fn, ret == -EMFILE ?
				    "too many streams open in this process" :
				    "out of memory");
	}
	*out = s->value;
	return 0;
}

int HelloFPGA_Stream_Open(HELLOFPGA_HANDLE hDev,
			  const HELLOFPGA_STREAM_CONFIG *cfg,
			  HELLOFPGA_STREAM *s)
{
	struct hellofpga_dev *dev;
	int ret;

	ret = hf_dev_get(hDev, "HelloFPGA_Stream_Open", &dev);
	if (ret)
		return hf_api_ret(HF_API_STREAM_OPEN, ret);
	ret = stream_open(dev, hDev, cfg, s);
	return hf_api_ret(HF_API_STREAM_OPEN, hf_dev_put_ret(dev, ret));
}

/*
 * The doorbells of GPU releases the GPU rang: those buffers are released
 * as HelloFPGA_Stream_Release() would; under @s->lock.
 */
static void apply_gpu_releases(struct hellofpga_stream *s)
{
	uint32_t *db = __atomic_load_n(&s->db, __ATOMIC_ACQUIRE);

	if (!db || !__atomic_load_n(&s->ndb_armed, __ATOMIC_ACQUIRE))
		return;
	for (uint32_t i = 0; i < s->cfg.buffers; i++) {
		uint8_t want = HELD_BY_USER;

		if (!__atomic_load_n(&s->db_armed[i], __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&db[i], __ATOMIC_ACQUIRE) != 1)
			continue;
		__atomic_store_n(&db[i], 0, __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&s->held[i], &want,
						HELD_RELEASED, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_sub_fetch(&s->nheld, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&s->pending, true, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&s->db_armed[i], 0, __ATOMIC_RELEASE);
		__atomic_sub_fetch(&s->ndb_armed, 1, __ATOMIC_ACQ_REL);
	}
}

/*
 * Has the stream been stopped (its ring freed)?  Under @s->lock or
 * @s->gw_lock, which the stop holds while it clears @s->dev: a call that
 * took its references before a Stream_Close() began may get here after
 * the stop, and then must not reach the ring.
 */
static bool stream_stopped(const struct hellofpga_stream *s)
{
	return !__atomic_load_n(&s->dev, __ATOMIC_ACQUIRE);
}

/*
 * Hand the released buffers to the backend; under @s->lock.  Nothing once
 * the stream has stopped: its ring is gone.
 */
static void apply_releases(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	if (stream_stopped(s) || __atomic_load_n(&s->revoked, __ATOMIC_ACQUIRE))
		return;
	apply_gpu_releases(s);
	if (!__atomic_exchange_n(&s->pending, false, __ATOMIC_ACQ_REL))
		return;
	for (uint32_t i = 0; i < s->cfg.buffers; i++) {
		uint8_t want = HELD_RELEASED;

		if (__atomic_compare_exchange_n(&s->held[i], &want, HELD_FREE,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			dev->ops->stream_release(dev, s, i);
	}
}

/*
 * apply_releases() unless a Wait holds the stream (it applies them itself,
 * every DB_POLL_NS): for the calls that never wait for the card.
 * Return: whether they were applied.
 */
static bool try_apply_releases(struct hellofpga_dev *dev,
			       struct hellofpga_stream *s)
{
	if (pthread_mutex_trylock(&s->lock))
		return false;
	apply_releases(dev, s);
	pthread_mutex_unlock(&s->lock);
	return true;
}

/* Where buffer @index of @s is: in @host, or at @gpu_offset of the pin. */
static void buf_at(const struct hellofpga_stream *s, uint32_t index,
		   void **host, uint64_t *gpu_offset)
{
	if (s->host)
		*host = s->host + (size_t)index * s->cfg.buffer_size;
	else
		*gpu_offset = s->cfg.gpu_offset +
			      (uint64_t)index * s->cfg.buffer_size;
}

static int stream_wait(struct hellofpga_dev *dev, struct hellofpga_stream *s,
		       int timeout_ms, HELLOFPGA_FRAME *f)
{
	static const char fn[] = "HelloFPGA_Stream_Wait";
	struct hf_xdma_ring_buf b;
	uint64_t deadline, now, ns, slice;
	uint32_t dropped;
	int ret;

	if (!f)
		return hf_set_error(dev, -EFAULT, "%s: f is NULL", fn);
	if (timeout_ms > HF_MAX_TIMEOUT_MS)
		return hf_set_error(dev, -EINVAL,
				    "%s: timeout %d ms above the limit of %d ms",
				    fn, timeout_ms, HF_MAX_TIMEOUT_MS);
	if (timeout_ms < 0)
		timeout_ms = __atomic_load_n(&dev->timeout_ms, __ATOMIC_RELAXED);
	deadline = mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		apply_releases(dev, s);
		if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE)) {
			ret = hf_set_error(dev, -EBADF,
					   "%s: the handle was closed while the wait ran",
					   fn);
			break;
		}
		if (__atomic_load_n(&s->revoked, __ATOMIC_ACQUIRE)) {
			ret = hf_set_error(dev, -EIO,
					   "%s: the ring stopped: the GPU memory of its pin was freed (close the stream)",
					   fn);
			break;
		}
		now = mono_ns();
		ns = deadline > now ? deadline - now : 0;
		/* GPU releases queued: look at their doorbells now and then */
		slice = __atomic_load_n(&s->ndb_armed, __ATOMIC_ACQUIRE) &&
			ns > DB_POLL_NS ? DB_POLL_NS : ns;
		ret = dev->ops->stream_wait(dev, s, slice, &b);
		if (ret == -ETIMEDOUT && slice < ns)
			continue;
		if (ret != -EAGAIN)
			break;
	}
	if (!ret) {
		memset(f, 0, sizeof(*f));
		f->index = b.index;
		f->flags = b.eop ? HELLOFPGA_FRAME_EOP : 0;
		f->length = b.len;
		f->sequence = b.sequence;
		f->frame = b.frame;
		if (b.eop && s->ref_design) {
			dropped = src_reg(dev, s, HF_ST_SRC_DROPPED);
			f->dropped = (uint32_t)(dropped - s->drop_last);
			s->drop_last = dropped;
		}
		f->timestamp_ns = mono_ns();
		buf_at(s, b.index, &f->host, &f->gpu_offset);
		__atomic_store_n(&s->held[b.index], HELD_BY_USER,
				 __ATOMIC_RELEASE);
		__atomic_add_fetch(&s->nheld, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int HelloFPGA_Stream_Wait(HELLOFPGA_STREAM v, int timeout_ms,
			  HELLOFPGA_FRAME *f)
{
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	ret = stream_get(v, "HelloFPGA_Stream_Wait", &s, &dev);
	if (ret)
		return hf_api_ret(HF_API_STREAM_WAIT, ret);
	ret = stream_wait(dev, s, timeout_ms, f);
	return hf_api_ret(HF_API_STREAM_WAIT, stream_put(s, dev, ret));
}

static int stream_release(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			  uint32_t index)
{
	uint8_t want = HELD_BY_USER;

	if (index < s->cfg.buffers &&
	    __atomic_load_n(&s->db_armed[index], __ATOMIC_ACQUIRE))
		return hf_set_error(dev, -EINVAL,
				    "HelloFPGA_Stream_Release: buffer %u: its release is queued on a GPU stream (HelloFPGA_Stream_ReleaseOnGPU)",
				    index);
	if (index >= s->cfg.buffers ||
	    !__atomic_compare_exchange_n(&s->held[index], &want, HELD_RELEASED,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return hf_set_error(dev, -EINVAL,
				    "HelloFPGA_Stream_Release: buffer %u is not held (a stream of %u buffers)",
				    index, s->cfg.buffers);
	__atomic_sub_fetch(&s->nheld, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->pending, true, __ATOMIC_RELEASE);
	if (!try_apply_releases(dev, s)) {
		/*
		 * A wait holds the ring: it hands the buffer over.  Or the
		 * stop does: @s->gw_lock keeps the ring until the kick is
		 * done (the stop frees it under that lock too).
		 */
		pthread_mutex_lock(&s->gw_lock);
		if (!stream_stopped(s))
			dev->ops->stream_kick(dev, s);
		pthread_mutex_unlock(&s->gw_lock);
	}
	return 0;
}

int HelloFPGA_Stream_Release(HELLOFPGA_STREAM v, uint32_t index)
{
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	ret = stream_get(v, "HelloFPGA_Stream_Release", &s, &dev);
	if (ret)
		return hf_api_ret(HF_API_STREAM_RELEASE, ret);
	ret = stream_release(dev, s, index);
	return hf_api_ret(HF_API_STREAM_RELEASE, stream_put(s, dev, ret));
}

int HelloFPGA_Stream_GetStats(HELLOFPGA_STREAM v, HELLOFPGA_STREAM_STATS *st)
{
	struct hf_xdma_ring_stats rs;
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	ret = stream_get(v, "HelloFPGA_Stream_GetStats", &s, &dev);
	if (ret)
		return hf_api_ret(HF_API_STREAM_GET_STATS, ret);
	if (!st) {
		ret = hf_set_error(dev, -EFAULT,
				   "HelloFPGA_Stream_GetStats: st is NULL");
		return hf_api_ret(HF_API_STREAM_GET_STATS,
				  stream_put(s, dev, ret));
	}
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&s->lock);
	if (stream_stopped(s)) {
		/* a Stream_Close() stopped it after this call began */
		pthread_mutex_unlock(&s->lock);
		ret = hf_set_error(dev, -EBADF,
				   "HelloFPGA_Stream_GetStats: the stream was closed while this call ran");
		return hf_api_ret(HF_API_STREAM_GET_STATS,
				  stream_put(s, dev, ret));
	}
	apply_releases(dev, s);
	dev->ops->stream_stats(dev, s, &rs);
	pthread_mutex_unlock(&s->lock);
	st->buffers = rs.buffers;
	st->frames = rs.frames;
	st->bytes = rs.bytes;
	st->ring_full = rs.ring_full;
	st->source_dropped = (uint32_t)(src_reg(dev, s, HF_ST_SRC_DROPPED) -
					s->drop_base);
	st->source_sent = (uint32_t)(src_reg(dev, s, HF_ST_SRC_SENT) -
				     s->sent_base);
	st->held = __atomic_load_n(&s->nheld, __ATOMIC_RELAXED);
	return hf_api_ret(HF_API_STREAM_GET_STATS, stream_put(s, dev, 0));
}

/*
 * Stop @s and take it off its card; under no lock of the card.  Return:
 * 0, or -EIO (wedged: the ring's memory is kept).
 */
static int stream_stop(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	int ret;

	__atomic_store_n(&s->closing, true, __ATOMIC_RELEASE);
	dev->ops->stream_kick(dev, s);
	pthread_mutex_lock(&s->lock);
	pthread_mutex_lock(&s->gw_lock);
	ret = dev->ops->stream_stop(dev, s);
	__atomic_store_n(&s->dev, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->gw_lock);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/*
 * Take @s->gw_lock, unless the stream is being closed.  Return: 0 (the
 * lock held), or -EBADF with the error text set (not held).
 */
static int gw_lock_open(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			const char *fn)
{
	pthread_mutex_lock(&s->gw_lock);
	if (!__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_unlock(&s->gw_lock);
	return hf_set_error(dev, -EBADF, "%s: the stream is being closed", fn);
}

/* the public names of the writeback status are the engine core's */
_Static_assert(HELLOFPGA_STREAM_WB_MAGIC ==
	       XDMA_STM_WB_MAGIC_VALUE << 16, "writeback magic");
_Static_assert(HELLOFPGA_STREAM_WB_MAGIC_MASK == XDMA_STM_WB_MAGIC,
	       "writeback magic field");
_Static_assert(HELLOFPGA_STREAM_WB_EOP == XDMA_STM_WB_EOP, "writeback EOP");
_Static_assert(HELLOFPGA_STREAM_WB_ERROR == XDMA_RING_WB_ERROR,
	       "the stop's error mark");

/*
 * GPU-side completion: a wait in a GPU stream for the magic of the
 * writeback slot that buffer @seq lands in.  The slot's status word is
 * 0 from the buffer's credit until its writeback (hf_xdma_ring_credit()
 * clears it, so an earlier round's writeback never satisfies it), then
 * holds the magic; a stop writes the magic with the error bit into
 * every slot still clear.  So the wait is "(status & magic mask) != 0".
 */
static int stream_wait_on_gpu(struct hellofpga_dev *dev,
			      struct hellofpga_stream *s, void *gpu_stream,
			      uint64_t seq, uint32_t flags,
			      HELLOFPGA_GPU_WAIT *w)
{
	static const char fn[] = "HelloFPGA_Stream_WaitOnGPU";
	struct hf_stream_gpu_slot gs;
	bool can_flush, flush;
	int ret;

	if (flags & ~HELLOFPGA_GPU_WAIT_FLUSH)
		return hf_set_error(dev, -EINVAL,
				    "%s: flags 0x%x: only HELLOFPGA_GPU_WAIT_FLUSH (0x%x) is defined",
				    fn, flags, HELLOFPGA_GPU_WAIT_FLUSH);
	if (!dev->ops->stream_gpu_slot)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: the %s backend has no GPU-side waits",
				    fn, dev->ops->name);
	/* the releases the GPU rang for since the last call widen the window */
	try_apply_releases(dev, s);
	ret = hf_gpu_memops(&can_flush, fn);
	if (ret)
		return hf_set_error(dev, ret, "%s", hf_last_error(NULL));
	if ((flags & HELLOFPGA_GPU_WAIT_FLUSH) && !can_flush)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: HELLOFPGA_GPU_WAIT_FLUSH: the GPU cannot flush remote writes (CAN_FLUSH_REMOTE_WRITES = 0)",
				    fn);
	ret = gw_lock_open(dev, s, fn);
	if (ret)
		return ret;
	ret = dev->ops->stream_gpu_slot(dev, s, seq, &gs, fn);
	pthread_mutex_unlock(&s->gw_lock);
	if (ret)
		return ret;
	/*
	 * Enqueued without the lock: a full GPU queue may block the call,
	 * and the stop, whose marks end such waits, must not wait for it.
	 * The slot stays allocated (marked waited on); a stop before the
	 * wait is enqueued has marked it, and the wait ends at once.
	 * The card's data in GPU memory visible to what follows the wait.
	 */
	flush = (flags & HELLOFPGA_GPU_WAIT_FLUSH) || (gs.gpu_ring && can_flush);
	ret = hf_gpu_wait32(gpu_stream, gs.status_dev, HELLOFPGA_STREAM_WB_MAGIC_MASK,
			    HF_GPU_WAIT_AND, flush, fn);
	if (ret)
		return hf_set_error(dev, ret, "%s", hf_last_error(NULL));
	if (w) {
		memset(w, 0, sizeof(*w));
		w->index = gs.index;
		w->sequence = seq;
		w->status = gs.status;
		w->status_dev = gs.status_dev;
		buf_at(s, gs.index, &w->host, &w->gpu_offset);
	}
	return 0;
}

/*
 * A GPU release: the GPU stream writes 1 to the buffer's doorbell (host
 * memory) when it gets there; the library releases the buffer at its
 * next look (every call on the stream, and a Wait every DB_POLL_NS while
 * GPU releases are queued).  The card's credit register is not a thing a
 * GPU can write: the emulated card's registers are function calls, and
 * through the kernel driver the DMA BAR is not mapped to user space.
 */
static int stream_release_on_gpu(struct hellofpga_dev *dev,
				 struct hellofpga_stream *s, void *gpu_stream,
				 uint32_t index, uint32_t flags)
{
	static const char fn[] = "HelloFPGA_Stream_ReleaseOnGPU";
	uint32_t *db;
	bool can_flush;
	int ret;

	if (flags)
		return hf_set_error(dev, -EINVAL,
				    "%s: flags 0x%x: no flag is defined, must be 0",
				    fn, flags);
	if (index >= s->cfg.buffers ||
	    __atomic_load_n(&s->held[index], __ATOMIC_ACQUIRE) != HELD_BY_USER)
		return hf_set_error(dev, -EINVAL,
				    "%s: buffer %u is not held (a stream of %u buffers)",
				    fn, index, s->cfg.buffers);
	if (!dev->ops->stream_gpu_doorbells)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: the %s backend has no GPU releases",
				    fn, dev->ops->name);
	ret = hf_gpu_memops(&can_flush, fn);
	if (ret)
		return hf_set_error(dev, ret, "%s", hf_last_error(NULL));
	ret = gw_lock_open(dev, s, fn);
	if (ret)
		return ret;
	db = __atomic_load_n(&s->db, __ATOMIC_ACQUIRE);
	if (!db) {
		ret = dev->ops->stream_gpu_doorbells(dev, s, &db, &s->db_dev,
						     fn);
		if (ret)
			goto out;
		__atomic_store_n(&s->db, db, __ATOMIC_RELEASE);
	}
	if (__atomic_load_n(&s->db_armed[index], __ATOMIC_ACQUIRE)) {
		ret = hf_set_error(dev, -EINVAL,
				   "%s: buffer %u: its release is queued already",
				   fn, index);
		goto out;
	}
	__atomic_store_n(&db[index], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->db_armed[index], 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->ndb_armed, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&s->gw_lock);
	/* enqueued without the lock, as in stream_wait_on_gpu() */
	ret = hf_gpu_write32(gpu_stream, s->db_dev + 4ull * index, 1, fn);
	if (ret) {
		__atomic_store_n(&s->db_armed[index], 0, __ATOMIC_RELEASE);
		__atomic_sub_fetch(&s->ndb_armed, 1, __ATOMIC_ACQ_REL);
		ret = hf_set_error(dev, ret, "%s", hf_last_error(NULL));
	}
	return ret;
out:
	pthread_mutex_unlock(&s->gw_lock);
	return ret;
}

int HelloFPGA_Stream_ReleaseOnGPU(HELLOFPGA_STREAM v, void *gpu_stream,
				  uint32_t index, uint32_t flags)
{
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	ret = stream_get(v, "HelloFPGA_Stream_ReleaseOnGPU", &s, &dev);
	if (ret)
		return hf_api_ret(HF_API_STREAM_RELEASE_ON_GPU, ret);
	ret = stream_release_on_gpu(dev, s, gpu_stream, index, flags);
	if (!ret)
		try_apply_releases(dev, s);	/* rung already? */
	return hf_api_ret(HF_API_STREAM_RELEASE_ON_GPU,
			  stream_put(s, dev, ret));
}

int HelloFPGA_Stream_WaitOnGPU(HELLOFPGA_STREAM v, void *gpu_stream,
			       uint64_t sequence, uint32_t flags,
			       HELLOFPGA_GPU_WAIT *w)
{
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	ret = stream_get(v, "HelloFPGA_Stream_WaitOnGPU", &s, &dev);
	if (ret)
		return hf_api_ret(HF_API_STREAM_WAIT_ON_GPU, ret);
	ret = stream_wait_on_gpu(dev, s, gpu_stream, sequence, flags, w);
	return hf_api_ret(HF_API_STREAM_WAIT_ON_GPU, stream_put(s, dev, ret));
}

int HelloFPGA_Stream_Close(HELLOFPGA_STREAM v)
{
	struct hellofpga_stream *s;
	struct hellofpga_dev *dev;
	int ret;

	if (!v)
		return 0;
	s = tbl_get(v);
	if (!s)
		return hf_api_ret(HF_API_STREAM_CLOSE,
				  hf_set_error(NULL, -EBADF,
					       "HelloFPGA_Stream_Close: %p is not an open stream (closed already, or never opened in this process)",
					       (void *)v));
	ret = hf_dev_ref(s->h, &dev);
	if (ret == -ECHILD) {
		tbl_put(s);
		return hf_api_ret(HF_API_STREAM_CLOSE,
				  hf_set_error(NULL, ret,
					       "HelloFPGA_Stream_Close: the stream was opened before fork(): it does not survive fork()"));
	}
	if (!tbl_remove(s)) {
		/* another Close of it got there first */
		if (!ret)
			hf_dev_put(dev);
		tbl_put(s);
		return hf_api_ret(HF_API_STREAM_CLOSE,
				  hf_set_error(NULL, -EBADF,
					       "HelloFPGA_Stream_Close: %p is being closed by another thread",
					       (void *)v));
	}
	if (ret || __atomic_load_n(&s->dev, __ATOMIC_ACQUIRE) != dev) {
		/*
		 * The handle is closed, or being closed: its Close stops the
		 * ring (it may still be waiting for a transfer in flight
		 * before it gets to the streams, @s still on its list), so
		 * @s is freed only once that stop is done with it.  In a
		 * fork() child whose inherited handle was closed, nothing
		 * stops it: it is only forgotten (its locks may be held by
		 * threads of the parent).
		 */
		if (!ret)
			hf_dev_put(dev);
		if (s->inherited) {
			tbl_drain(s);
			free(s);
			return 0;
		}
		stream_wait_stopped(s);
		tbl_drain(s);
		stream_free(s);
		return 0;
	}
	stream_unlink(dev, s);
	ret = stream_stop(dev, s);
	/* calls in flight saw the stop (-EBADF); none starts any more */
	tbl_drain(s);
	stream_free(s);
	return hf_api_ret(HF_API_STREAM_CLOSE, hf_dev_put_ret(dev, ret));
}

/*
 * On an AXI-Stream card: a C2H transfer is refused (rings only), an H2C
 * one is a packet with no card address.  Return: 0 (also on a memory-mapped
 * card), -EOPNOTSUPP or -EINVAL with the error text set.
 */
int hf_stream_card_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			 uint64_t card_addr, const char *fn)
{
	if (!dev->stream)
		return 0;
	if (dir == XDMA_C2H)
		return hf_set_error(dev, -EOPNOTSUPP, "%s: %s: %s",
				    dev->info.name, fn, XDMA_STREAM_MM_MSG);
	if (card_addr)
		return hf_set_error(dev, -EINVAL, "%s: card address 0x%llx: %s",
				    fn, (unsigned long long)card_addr,
				    XDMA_STREAM_H2C_ADDR_MSG);
	return 0;
}

/**
 * hf_stream_wb_alloc() - the writeback memory of a ring of @n buffers,
 *	zeroed, laid out as struct hf_stream_wb says.
 * @w: receives it (@w->mem NULL on failure)
 * @n: the ring's buffers
 *
 * Return: 0 or -ENOMEM.
 */
int hf_stream_wb_alloc(struct hf_stream_wb *w, uint32_t n)
{
	memset(w, 0, sizeof(*w));
	w->slots_len = ((size_t)n * XDMA_STM_WB_SIZE + 4095) & ~(size_t)4095;
	w->len = w->slots_len + (((size_t)n * 4 + 4095) & ~(size_t)4095);
	w->mem = aligned_alloc(4096, w->len);
	if (!w->mem)
		return -ENOMEM;
	memset(w->mem, 0, w->len);
	return 0;
}

/* The ring no longer uses @w: freed, or kept if a GPU wait may reach it. */
void hf_stream_wb_free(struct hf_stream_wb *w)
{
	if (w->gpu_waited)
		hf_gpu_keep(w->mem);
	else
		free(w->mem);
	w->mem = NULL;
}

/*
 * @w mapped for the GPU (once), and marked as used by it: a wait or a
 * doorbell write may be queued in a GPU stream, so it is never freed.
 * Under the stream's gw_lock.
 */
static int hf_stream_wb_gpu_map(struct hellofpga_dev *dev,
				struct hf_stream_wb *w, const char *fn)
{
	int ret;

	if (!w->dev) {
		ret = hf_gpu_map_host(w->mem, w->len, &w->dev, fn);
		if (ret)
			return hf_set_error(dev, ret, "%s",
					    hf_last_error(NULL));
	}
	w->gpu_waited = true;
	return 0;
}

/* Slot @index of @w, mapped for the GPU, in @gs; under gw_lock. */
int hf_stream_wb_gpu_slot(struct hellofpga_dev *dev, struct hf_stream_wb *w,
			  uint32_t index, struct hf_stream_gpu_slot *gs,
			  const char *fn)
{
	int ret = hf_stream_wb_gpu_map(dev, w, fn);

	if (ret)
		return ret;
	gs->index = index;
	gs->status = (uint32_t *)((uint8_t *)w->mem +
				  (size_t)index * XDMA_STM_WB_SIZE);
	gs->status_dev = w->dev + (uint64_t)index * XDMA_STM_WB_SIZE;
	return 0;
}

/* The doorbells of @w (the pages after the slots), mapped for the GPU;
 * under gw_lock. */
int hf_stream_wb_gpu_doorbells(struct hellofpga_dev *dev,
			       struct hf_stream_wb *w, uint32_t **db,
			       uint64_t *db_dev, const char *fn)
{
	int ret = hf_stream_wb_gpu_map(dev, w, fn);

	if (ret)
		return ret;
	*db = (uint32_t *)((uint8_t *)w->mem + w->slots_len);
	*db_dev = w->dev + w->slots_len;
	return 0;
}

/**
 * hf_stream_slot_error() - why a backend has no slot for sequence @seq.
 * @err: -EAGAIN: the ring skips the rest of a cut frame; else out of range
 * @credited: the buffers that went back to the card, in sequences
 * @n: the ring's buffers
 *
 * Return: -EAGAIN or -ERANGE, with the error text set.
 */
int hf_stream_slot_error(struct hellofpga_dev *dev, int err, const char *fn,
			 uint64_t seq, uint64_t credited, uint32_t n)
{
	if (err == -EAGAIN)
		return hf_set_error(dev, -EAGAIN,
				    "%s: the ring skips the rest of a frame the last stop cut: the buffer of sequence %llu is not known until the first HelloFPGA_Stream_Wait() returns",
				    fn, (unsigned long long)seq);
	return hf_set_error(dev, -ERANGE,
			    "%s: sequence %llu: %s (buffers up to %llu went back to the card; a ring of %u buffers can wait for sequences %llu..%llu)",
			    fn, (unsigned long long)seq,
			    seq < credited ?
			    "its buffer went back to the card already" :
			    "a whole ring or more ahead of the releases",
			    (unsigned long long)credited, n,
			    (unsigned long long)credited,
			    (unsigned long long)(credited + n - 1));
}

/**
 * hf_stream_wake_all() - HelloFPGA_Close() began: waits on the card's
 *	streams return -EBADF.
 * @dev: the card, marked closing (under the handle table's lock)
 */
void hf_stream_wake_all(struct hellofpga_dev *dev)
{
	pthread_mutex_lock(&dev->stream_lock);
	for (struct hellofpga_stream *s = dev->streams; s; s = s->next) {
		__atomic_store_n(&s->closing, true, __ATOMIC_RELEASE);
		dev->ops->stream_kick(dev, s);
	}
	pthread_mutex_unlock(&dev->stream_lock);
}

/* How often, and how long, a revocation tries the locks of busy streams. */
#define REVOKE_RETRY_US		100
#define REVOKE_TRIES		50000

/*
 * Halt the rings in @pin of the streams on @dev's list that are not yet;
 * under @dev->stream_lock (no stream on the list is freed meanwhile).
 * Return: how many could not be now (their locks busy).
 */
static int revoke_pass(struct hellofpga_dev *dev, const struct hf_pin *pin)
{
	struct hellofpga_stream *s;
	int busy = 0;

	for (s = dev->streams; s; s = s->next) {
		if (s->cfg.gpu != pin->handle)
			continue;
		/* a wait holding the lock sees the mark and returns */
		__atomic_store_n(&s->revoked, true, __ATOMIC_RELEASE);
		dev->ops->stream_kick(dev, s);
		/*
		 * Only tried: the stream lock is not to be held while waiting
		 * for a stream's locks (a stop under those takes locks that
		 * fork()'s handlers take around the card table's, whose holder
		 * in HelloFPGA_Close() takes the stream lock).
		 */
		if (pthread_mutex_trylock(&s->lock)) {
			busy++;
			continue;
		}
		if (pthread_mutex_trylock(&s->gw_lock)) {
			pthread_mutex_unlock(&s->lock);
			busy++;
			continue;
		}
		if (!s->halted && __atomic_load_n(&s->dev, __ATOMIC_ACQUIRE))
			dev->ops->stream_halt(dev, s);
		s->halted = true;
		pthread_mutex_unlock(&s->gw_lock);
		pthread_mutex_unlock(&s->lock);
	}
	return busy;
}

/**
 * hf_stream_pin_revoke() - the GPU memory of @pin is being freed: stop the
 *	rings of the card's streams that lie in it (their Waits return -EIO;
 *	the rings stay allocated until HelloFPGA_Stream_Close()).
 * @dev: the card
 * @pin: the pin, marked revoking (no new ring goes into it)
 *
 * A stream whose locks are busy (a wait about to see the mark, a start, a
 * stop) is tried again shortly.  A ring a close is stopping right now is
 * off the list already: the pin's revocation waits for that stop itself.
 */
void hf_stream_pin_revoke(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	int busy;

	if (!dev->ops->stream_halt)
		return;
	for (int i = 0; i < REVOKE_TRIES; i++) {
		pthread_mutex_lock(&dev->stream_lock);
		busy = revoke_pass(dev, pin);
		pthread_mutex_unlock(&dev->stream_lock);
		if (!busy)
			return;
		hf_os_sleep_us(REVOKE_RETRY_US);
	}
}

/**
 * hf_stream_close_all() - stop every stream of a card being closed (no
 *	call on it in flight any more) and free their rings.
 * @dev: the card
 */
void hf_stream_close_all(struct hellofpga_dev *dev)
{
	struct hellofpga_stream *s;

	pthread_mutex_lock(&dev->stream_lock);
	s = dev->streams;
	dev->streams = NULL;
	pthread_mutex_unlock(&dev->stream_lock);
	while (s) {
		struct hellofpga_stream *next = s->next;

		stream_stop(dev, s);
		/* a Stream_Close() of it may free it from here on */
		tbl_mark_stopped(s);
		s = next;
	}
}
