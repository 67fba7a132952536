// SPDX-License-Identifier: MIT
/*
 * submit.c - GPU Direct transfers submitted to a channel's queue, and their
 * GPU-side completion (HelloFPGA_GPUDirect_Submit(), _Complete()).
 *
 * Each (direction, channel) of a handle gets, at its first submission, a
 * queue: HELLOFPGA_SUBMIT_DEPTH entries in a ring, a thread that runs them
 * in order, and two pages of words:
 *
 *   page 0  status[i]  the poll-mode writeback of entry i's run (the card
 *                      writes it: mapped for the card by the backend)
 *   page 1  door[i]    START_ON_GPU: the GPU writes the entry's sequence
 *                      number when its stream gets there
 *           seen[i]    WAIT_ON_GPU: the GPU writes the sequence number
 *                      once its wait on status[i] has passed
 *
 * Both pages are mapped for the GPU at the first GPU flag and are never
 * freed after that (a wait may be pending in a GPU stream after the
 * handle is closed).  Door and seen words carry the sequence number, not
 * 1, so that a GPU write enqueued for an earlier round of the entry (a
 * submission that failed after its doorbell write was enqueued) cannot
 * start or free a later one.
 *
 * An entry is free again once its run has ended and, if a GPU waited on
 * it, the GPU wrote its seen word: only then may its status word be
 * cleared for the next round.  Entries are taken in order, so a full
 * queue waits for the oldest.
 *
 * The thread's errors go to its own text (hf_error_to_thread()), kept in
 * the entry and set as the handle's text by HelloFPGA_GPUDirect_Complete():
 * a background failure does not overwrite what a caller's call just set.
 *
 * Locks: q->lock over the ring's state; never held across a GPU call, a
 * run, or hf_dev_put() (whose table lock hf_submit_wake_all() holds when
 * it takes q->lock).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "hf_chanlock.h"
#include "hf_dev.h"
#include "hf_error.h"
#include "hf_gpudirect.h"
#include "hf_handle.h"
#include "hf_submit.h"

#define SQ_DEPTH	HELLOFPGA_SUBMIT_DEPTH
#define SQ_PAGE		4096u
/*
 * The status words the card writes, one per entry, XDMA_WB_SLOT_OFFSET
 * (32) bytes apart: the room a poll-mode writeback may take (the driver's
 * HELLOFPGA_XFER_WB_ROOM), so that one run's writeback never touches the
 * word of another entry; in the first SQ_WB_LEN bytes, the only ones the
 * card may write.  The doorbell and seen words, which only the GPU and the
 * library write, follow in a page of their own.
 */
#define SQ_WB_STRIDE	XDMA_WB_SLOT_OFFSET
#define SQ_WB_LEN	(SQ_DEPTH * SQ_WB_STRIDE)
#define SQ_WORDS_LEN	(SQ_WB_LEN + SQ_PAGE)
#define SQ_DOOR_SPIN_NS	20000ll		/* doorbell: spin, then ... */
#define SQ_DOOR_POLL_NS	20000l		/* ... look this often */
#define SQ_SEEN_POLL_NS	50000l		/* a full queue looks this often */
#define SQ_MSGLEN	256

_Static_assert(SQ_WB_LEN % SQ_PAGE == 0, "status words fill whole pages");
_Static_assert(SQ_DEPTH * 8 <= SQ_PAGE, "door and seen words fit a page");

/*
 * A ticket (HELLOFPGA_SUBMISSION.ticket) names a submission of one
 * handle's queue, never 0:
 *
 *   bits  0..1   channel
 *   bit   2      direction
 *   bits  3..23  the handle's key: the low 21 bits of the handle's value,
 *                its slot + 1 (16 bits: unique among the open handles,
 *                never 0) and 5 bits of its generation
 *   bits 24..63  the low 40 bits of the sequence number
 *
 * so a ticket of another handle (open, or closed and its slot reused) is
 * -EINVAL, not the result of a submission of the same number on this one.
 * Only the last HELLOFPGA_SUBMIT_DEPTH submissions have a result, so the
 * sequence number is the latest one given out with those low bits.
 */
#define SQ_TK_CH_BITS	2
#define SQ_TK_DIR_SHIFT	SQ_TK_CH_BITS
#define SQ_TK_KEY_SHIFT	(SQ_TK_DIR_SHIFT + 1)
#define SQ_TK_KEY_BITS	21
#define SQ_TK_SEQ_SHIFT	(SQ_TK_KEY_SHIFT + SQ_TK_KEY_BITS)
#define SQ_TK_KEY_MASK	((1ull << SQ_TK_KEY_BITS) - 1)
#define SQ_TK_SEQ_MASK	(~0ull >> SQ_TK_SEQ_SHIFT)

_Static_assert(XDMA_MAX_CHANNELS <= 1 << SQ_TK_CH_BITS,
	       "a channel fits its bits of a ticket");
_Static_assert(SQ_TK_KEY_BITS >= 16 + 1,
	       "a ticket's key holds a handle's slot (handle.c) and more");

enum sq_state {
	SQ_FREE,	/* never used */
	SQ_CLAIMED,	/* a Submit is enqueueing its GPU operations */
	SQ_QUEUED,	/* for the thread */
	SQ_RUNNING,
	SQ_DONE,
};

/**
 * struct sq_entry - one submission.
 * @seq: its sequence number on the queue (from 1)
 * @state: enum sq_state
 * @pin: a reference of the pin, until the run ended
 * @handle: the pin's handle, for texts
 * @off: offset in the pin
 * @card: card address
 * @len: bytes
 * @timeout_ms: engine timeout (0: the handle's)
 * @flags: HELLOFPGA_SUBMIT_*
 * @gpu_waited: a GPU wait on @seq was enqueued: the entry is free only
 *	once the seen word shows @seq
 * @result: 0 or the run's negative errno
 * @actual: bytes moved
 * @msg: the failure's text
 */
struct sq_entry {
	uint64_t seq;
	int state;
	struct hf_pin *pin;
	HELLOFPGA_GPU_HANDLE handle;
	size_t off;
	uint64_t card;
	size_t len;
	int timeout_ms;
	uint32_t flags;
	bool gpu_waited;
	int result;
	size_t actual;
	char msg[SQ_MSGLEN];
};

/**
 * struct hf_submitq - a channel's queue.
 * @dev: the card
 * @dir: direction
 * @ch: channel
 * @lock: over everything below but the words' contents
 * @more: signalled when an entry is queued or the queue stops
 * @done: broadcast when an entry ends, and at wake-ups (close)
 * @thread: runs the entries
 * @stop: HelloFPGA_Close(): cancel what has not started, then end
 * @next: sequence number of the next submission
 * @run: sequence number of the next entry to run
 * @words: the two pages (see the top of the file)
 * @map: page 0's mapping for the card (wb_map)
 * @words_dev: the pages' GPU address, 0 until mapped
 * @e: the ring
 */
struct hf_submitq {
	struct hellofpga_dev *dev;
	enum hf_xdma_dir dir;
	int ch;
	pthread_mutex_t lock;
	pthread_cond_t more;
	pthread_cond_t done;
	pthread_t thread;
	bool stop;
	uint64_t next;
	uint64_t run;
	uint32_t *words;
	uint64_t map;
	uint64_t words_dev;
	struct sq_entry e[SQ_DEPTH];
};

static uint32_t *sq_status(struct hf_submitq *q, uint64_t seq)
{
	return &q->words[seq % SQ_DEPTH * (SQ_WB_STRIDE / 4)];
}

static uint32_t *sq_door(struct hf_submitq *q, uint64_t seq)
{
	return &q->words[SQ_WB_LEN / 4 + seq % SQ_DEPTH];
}

static uint32_t *sq_seen(struct hf_submitq *q, uint64_t seq)
{
	return &q->words[SQ_WB_LEN / 4 + SQ_DEPTH + seq % SQ_DEPTH];
}

static uint64_t sq_dev_addr(struct hf_submitq *q, const uint32_t *w)
{
	return q->words_dev + (uint64_t)((const char *)w - (char *)q->words);
}

/* The key of @dev's handle in its tickets (see above). */
static uint64_t sq_key(const struct hellofpga_dev *dev)
{
	return (uint64_t)dev->handle & SQ_TK_KEY_MASK;
}

static uint64_t sq_ticket(const struct hf_submitq *q, uint64_t seq)
{
	return (seq & SQ_TK_SEQ_MASK) << SQ_TK_SEQ_SHIFT |
	       sq_key(q->dev) << SQ_TK_KEY_SHIFT |
	       (uint64_t)q->dir << SQ_TK_DIR_SHIFT | (uint64_t)q->ch;
}

static int sq_load(const uint32_t *w)
{
	return (int)__atomic_load_n(w, __ATOMIC_ACQUIRE);
}

/* Has the GPU passed every wait on @x (free for the next round)? */
static bool sq_entry_free(struct hf_submitq *q, const struct sq_entry *x)
{
	if (x->state == SQ_FREE)
		return true;
	if (x->state != SQ_DONE)
		return false;
	return !x->gpu_waited ||
	       (uint32_t)sq_load(sq_seen(q, x->seq)) == (uint32_t)x->seq;
}

/*
 * End entry @x (q->lock held) with @ret; a failure marks the status word
 * so that a GPU waiting on it goes on.
 */
static void sq_finish(struct hf_submitq *q, struct sq_entry *x, int ret,
		      size_t actual, const char *msg)
{
	uint32_t *st = sq_status(q, x->seq);

	if (ret < 0) {
		uint32_t v = __atomic_load_n(st, __ATOMIC_RELAXED);

		__atomic_store_n(st, (v & HELLOFPGA_XFER_WB_COUNT) |
				 HELLOFPGA_XFER_WB_ERROR, __ATOMIC_RELEASE);
		snprintf(x->msg, sizeof(x->msg), "%s", msg);
	}
	x->result = ret;
	x->actual = actual;
	x->state = SQ_DONE;
	pthread_cond_broadcast(&q->done);
}

/*
 * START_ON_GPU: wait, without q->lock, until the GPU rang entry @x's
 * doorbell.  Return: 0, or -ECANCELED (the queue stops) / -ENOENT (the pin
 * was unpinned meanwhile) with the text in @msg.
 */
static int sq_wait_door(struct hf_submitq *q, struct sq_entry *x,
			char *msg, size_t len)
{
	const uint32_t *door = sq_door(q, x->seq);
	struct timespec t0, now, nap = { 0, SQ_DOOR_POLL_NS };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((uint32_t)sq_load(door) != (uint32_t)x->seq) {
		if (__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE)) {
			snprintf(msg, len, "cancelled before its start: the handle was closed while its GPU stream had not got to the start");
			return -ECANCELED;
		}
		if (__atomic_load_n(&x->pin->released, __ATOMIC_ACQUIRE)) {
			snprintf(msg, len, "handle 0x%llx was unpinned before its GPU stream got to the start",
				 (unsigned long long)x->handle);
			return -ENOENT;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000000000ll +
		    (now.tv_nsec - t0.tv_nsec) < SQ_DOOR_SPIN_NS)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
	return 0;
}

/* The queue's thread: run the entries in order until stopped. */
static void *sq_thread(void *arg)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Submit";
	struct hf_submitq *q = arg;
	char msg[SQ_MSGLEN];
	struct hf_xfer_wb wb;
	struct sq_entry *x;
	struct hf_pin *pin;
	size_t actual;
	int ret;

	hf_error_to_thread(true);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		x = &q->e[q->run % SQ_DEPTH];
		if (q->run == q->next || x->state == SQ_CLAIMED) {
			if (q->stop && q->run == q->next)
				break;
			pthread_cond_wait(&q->more, &q->lock);
			continue;
		}
		q->run++;
		if (x->state == SQ_DONE)
			continue;	/* failed in Submit: consumed */
		x->state = SQ_RUNNING;
		pin = x->pin;
		pthread_mutex_unlock(&q->lock);

		ret = 0;
		actual = 0;
		msg[0] = '\0';
		if (__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE)) {
			ret = -ECANCELED;
			snprintf(msg, sizeof(msg), "cancelled before its start: the handle was closed");
		} else if (x->flags & HELLOFPGA_SUBMIT_START_ON_GPU) {
			ret = sq_wait_door(q, x, msg, sizeof(msg));
		}
		if (!ret) {
			wb.cpu = sq_status(q, x->seq);
			wb.map = q->map;
			wb.off = (uint64_t)((char *)wb.cpu - (char *)q->words);
			ret = hf_gpudirect_run(q->dev, pin, x->handle, q->dir,
					       q->ch, x->off, x->card, x->len,
					       x->timeout_ms, &wb, &actual, fn);
			if (ret)
				snprintf(msg, sizeof(msg), "%s",
					 hf_last_error(NULL));
		}
		hf_pin_put(pin);

		pthread_mutex_lock(&q->lock);
		x->pin = NULL;
		sq_finish(q, x, ret, actual, msg);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* The queue of (@dir, @ch), made at the first use.  Text set on failure. */
static int sq_get(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		  struct hf_submitq **out, const char *fn)
{
	struct hf_submitq *q;
	int ret;

	pthread_mutex_lock(&dev->submit_lock);
	q = dev->submitq[dir][ch];
	if (q)
		goto out;
	if (!dev->ops->wb_map) {
		pthread_mutex_unlock(&dev->submit_lock);
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: the %s backend cannot send a transfer's writeback to the library's word",
				    fn, dev->ops->name);
	}
	q = calloc(1, sizeof(*q));
	if (q)
		q->words = aligned_alloc(SQ_PAGE, SQ_WORDS_LEN);
	if (!q || !q->words) {
		free(q);
		pthread_mutex_unlock(&dev->submit_lock);
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	}
	memset(q->words, 0, SQ_WORDS_LEN);
	q->dev = dev;
	q->dir = dir;
	q->ch = ch;
	q->next = 1;
	q->run = 1;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->done, NULL);
	ret = dev->ops->wb_map(dev, q->words, SQ_WB_LEN, &q->map);
	if (ret)
		goto err;
	ret = pthread_create(&q->thread, NULL, sq_thread, q);
	if (ret) {
		dev->ops->wb_unmap(dev, q->map);
		ret = hf_set_error(dev, -EAGAIN,
				   "%s: cannot start the queue thread of %s%d: %s",
				   fn, hf_dir_name(dir), ch, strerror(ret));
		goto err;
	}
	dev->submitq[dir][ch] = q;
out:
	pthread_mutex_unlock(&dev->submit_lock);
	*out = q;
	return 0;
err:
	pthread_mutex_unlock(&dev->submit_lock);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->lock);
	free(q->words);
	free(q);
	return ret;
}

/* Map the words for the GPU (once).  Text set on failure. */
static int sq_gpu_map(struct hellofpga_dev *dev, struct hf_submitq *q,
		      const char *fn)
{
	uint64_t d;
	int ret;

	pthread_mutex_lock(&q->lock);
	d = q->words_dev;
	pthread_mutex_unlock(&q->lock);
	if (d)
		return 0;
	ret = hf_gpu_map_host(q->words, SQ_WORDS_LEN, &d, fn);
	if (ret)
		return hf_set_error(dev, ret, "%s",
				    hf_last_error(NULL));
	pthread_mutex_lock(&q->lock);
	q->words_dev = d;	/* mapped twice by racing callers: the same */
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/*
 * Take the next entry (q->lock held), waiting for it to be free until
 * @dl.  Return: 0, -EBUSY (text set), -EBADF (the handle is closing).
 */
static int sq_claim(struct hellofpga_dev *dev, struct hf_submitq *q,
		    const struct timespec *dl, struct sq_entry **out,
		    const char *fn)
{
	struct sq_entry *x = &q->e[q->next % SQ_DEPTH];
	struct timespec now, at;
	int r;

	while (!sq_entry_free(q, x)) {
		if (q->stop || __atomic_load_n(&dev->closing, __ATOMIC_ACQUIRE))
			return hf_set_error(dev, -EBADF, "%s: the handle is being closed",
					    fn);
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > dl->tv_sec ||
		    (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec))
			return hf_set_error(dev, -EBUSY,
					    "%s: the queue of %s%d stayed full until the timeout: submission %llu %s",
					    fn, hf_dir_name(q->dir), q->ch,
					    (unsigned long long)x->seq,
					    x->state == SQ_DONE ?
					    "ended, but the GPU stream that waits for it has not passed its wait" :
					    "has not ended (its start may wait for a GPU stream)");
		/* the GPU's seen words raise no event: look now and then */
		at = now;
		at.tv_nsec += SQ_SEEN_POLL_NS;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		r = pthread_cond_timedwait(&q->done, &q->lock, &at);
		(void)r;
	}
	*out = x;
	return 0;
}

/*
 * The GPU's operations of submission @seq in @gpu_stream, as @flags ask:
 * the doorbell write its start waits for; the wait for its end and the
 * seen write after it.  Return: 0 or the GPU layer's negative errno.
 */
static int sq_gpu_enqueue(struct hf_submitq *q, uint64_t seq,
			  enum hf_xdma_dir xd, uint32_t flags, bool can_flush,
			  void *gpu_stream, const char *fn)
{
	int ret = 0;

	if (flags & HELLOFPGA_SUBMIT_START_ON_GPU) {
		ret = hf_gpu_write32(gpu_stream, sq_dev_addr(q, sq_door(q, seq)),
				     (uint32_t)seq, fn);
	}
	if (!ret && (flags & HELLOFPGA_SUBMIT_WAIT_ON_GPU)) {
		ret = hf_gpu_wait32(gpu_stream,
				    sq_dev_addr(q, sq_status(q, seq)),
				    HELLOFPGA_XFER_WB_MASK, HF_GPU_WAIT_AND,
				    xd == XDMA_C2H && can_flush, fn);
		if (!ret)
			ret = hf_gpu_write32(gpu_stream,
					     sq_dev_addr(q, sq_seen(q, seq)),
					     (uint32_t)seq, fn);
		/*
		 * A wait enqueued without its seen write (CUDA failing
		 * between the two) would hold the entry for ever: the entry
		 * is freed all the same, its word marked, so that wait goes
		 * on (or, were the entry used again first, waits for the
		 * next round's end).
		 */
	}
	return ret;
}

static int submit(struct hellofpga_dev *dev, int ch,
		  HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		  size_t len, int dir, void *gpu_stream, uint32_t flags,
		  int timeout_ms, HELLOFPGA_SUBMISSION *sub)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Submit";
	const uint32_t known = HELLOFPGA_SUBMIT_WAIT_ON_GPU |
			       HELLOFPGA_SUBMIT_START_ON_GPU;
	struct hf_submitq *q = NULL;
	struct sq_entry *x = NULL;
	struct timespec dl;
	enum hf_xdma_dir xd;
	struct hf_pin *pin;
	bool can_flush = false;
	uint64_t seq;
	int ret, tmo;

	if (sub)
		memset(sub, 0, sizeof(*sub));
	if (flags & ~known)
		return hf_set_error(dev, -EINVAL,
				    "%s: flags 0x%x: only HELLOFPGA_SUBMIT_WAIT_ON_GPU (0x%x) and HELLOFPGA_SUBMIT_START_ON_GPU (0x%x) are defined",
				    fn, flags, HELLOFPGA_SUBMIT_WAIT_ON_GPU,
				    HELLOFPGA_SUBMIT_START_ON_GPU);
	if (!len)
		return hf_set_error(dev, -EINVAL,
				    "%s: size 0: a submission moves at least one byte",
				    fn);
	ret = hf_gpudirect_check(dev, ch, handle, off, card, len, dir,
				 timeout_ms, &xd, &pin, fn);
	if (ret)
		return ret;
	ret = hf_gpudirect_pin_live(dev, pin, handle, fn);
	if (ret)
		goto out_pin;
	if (flags) {
		ret = hf_gpu_memops(&can_flush, fn);
		if (ret) {
			ret = hf_set_error(dev, ret, "%s",
					   hf_last_error(NULL));
			goto out_pin;
		}
	}
	ret = sq_get(dev, xd, ch, &q, fn);
	if (!ret && flags)
		ret = sq_gpu_map(dev, q, fn);
	if (ret)
		goto out_pin;

	tmo = timeout_ms > 0 ? timeout_ms :
	      __atomic_load_n(&dev->timeout_ms, __ATOMIC_RELAXED);
	hf_deadline_in(&dl, tmo);
	pthread_mutex_lock(&q->lock);
	ret = sq_claim(dev, q, &dl, &x, fn);
	if (ret) {
		pthread_mutex_unlock(&q->lock);
		goto out_pin;
	}
	seq = q->next++;
	memset(x, 0, sizeof(*x));
	x->seq = seq;
	x->state = SQ_CLAIMED;
	x->handle = handle;
	x->off = off;
	x->card = card;
	x->len = len;
	x->timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
	x->flags = flags;
	__atomic_store_n(sq_status(q, seq), 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&q->lock);

	/*
	 * The GPU's operations, without q->lock: a full GPU queue may block
	 * the call.  The entry is CLAIMED: the thread waits for it.
	 */
	ret = sq_gpu_enqueue(q, seq, xd, flags, can_flush, gpu_stream, fn);

	/* the GPU layer's text, taken before q->lock (the table lock) */
	if (ret)
		ret = hf_set_error(dev, ret, "%s", hf_last_error(NULL));
	pthread_mutex_lock(&q->lock);
	if (ret) {
		/* consumed, marked, free again (see above) */
		sq_finish(q, x, ret, 0, hf_last_error(dev));
		pthread_cond_signal(&q->more);
		pthread_mutex_unlock(&q->lock);
		goto out_pin;
	}
	x->gpu_waited = !!(flags & HELLOFPGA_SUBMIT_WAIT_ON_GPU);
	x->pin = pin;		/* the reference goes to the entry */
	x->state = SQ_QUEUED;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	if (sub) {
		sub->ticket = sq_ticket(q, seq);
		sub->status = sq_status(q, seq);
		sub->status_dev = flags ? sq_dev_addr(q, sq_status(q, seq)) : 0;
	}
	return 0;
out_pin:
	hf_pin_put(pin);
	return ret;
}

int HelloFPGA_GPUDirect_Submit(HELLOFPGA_HANDLE hDev, int ch,
			       HELLOFPGA_GPU_HANDLE handle, size_t bufOffset,
			       uint64_t fpgaAddr, size_t size, int dir,
			       void *gpu_stream, uint32_t flags, int timeout_ms,
			       HELLOFPGA_SUBMISSION *sub)
{
	struct hellofpga_dev *dev;
	int ret;

	ret = hf_dev_get(hDev, "HelloFPGA_GPUDirect_Submit", &dev);
	if (!ret)
		ret = hf_dev_put_ret(dev, submit(dev, ch, handle, bufOffset,
						 fpgaAddr, size, dir,
						 gpu_stream, flags,
						 timeout_ms, sub));
	return hf_api_ret(HF_API_GPUDIRECT_SUBMIT, ret);
}

/*
 * The queue a ticket names, q->lock taken, and in *@seqp the sequence
 * number; or NULL: another handle's ticket, no such channel, no queue, or
 * a sequence number it never gave.
 */
static struct hf_submitq *sq_of_ticket(struct hellofpga_dev *dev,
				       uint64_t ticket, uint64_t *seqp)
{
	unsigned int d = (ticket >> SQ_TK_DIR_SHIFT) & 1;
	unsigned int ch = ticket & ((1u << SQ_TK_CH_BITS) - 1);
	int nch = d == XDMA_H2C ? dev->info.num_h2c : dev->info.num_c2h;
	uint64_t low = ticket >> SQ_TK_SEQ_SHIFT, last, back;
	struct hf_submitq *q = NULL;

	if (((ticket >> SQ_TK_KEY_SHIFT) & SQ_TK_KEY_MASK) != sq_key(dev))
		return NULL;
	pthread_mutex_lock(&dev->submit_lock);
	if ((int)ch < nch)
		q = dev->submitq[d][ch];
	pthread_mutex_unlock(&dev->submit_lock);
	if (!q)
		return NULL;
	pthread_mutex_lock(&q->lock);
	/* the latest number given out with these low bits */
	last = q->next - 1;
	back = (last - low) & SQ_TK_SEQ_MASK;
	if (back < last) {
		*seqp = last - back;
		return q;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static int complete(struct hellofpga_dev *dev, uint64_t ticket,
		    int timeout_ms, size_t *actual)
{
	static const char fn[] = "HelloFPGA_GPUDirect_Complete";
	unsigned int d = (ticket >> SQ_TK_DIR_SHIFT) & 1;
	unsigned int ch = ticket & ((1u << SQ_TK_CH_BITS) - 1);
	struct hf_submitq *q;
	uint64_t seq = 0;
	struct timespec dl;
	struct sq_entry *x;
	int ret;

	if (timeout_ms > HF_MAX_TIMEOUT_MS)
		return hf_set_error(dev, -EINVAL,
				    "%s: timeout %d ms is above %d ms (< 0 waits without end)",
				    fn, timeout_ms, HF_MAX_TIMEOUT_MS);
	q = sq_of_ticket(dev, ticket, &seq);
	if (!q)
		return hf_set_error(dev, -EINVAL,
				    "%s: ticket 0x%llx is not one of a submission on this handle",
				    fn, (unsigned long long)ticket);
	x = &q->e[seq % SQ_DEPTH];
	if (timeout_ms > 0)
		hf_deadline_in(&dl, timeout_ms);
	while (x->seq == seq && x->state != SQ_DONE) {
		if (q->stop || __atomic_load_n(&dev->closing, __ATOMIC_ACQUIRE)) {
			pthread_mutex_unlock(&q->lock);
			return hf_set_error(dev, -EBADF,
					    "%s: the handle was closed while waiting",
					    fn);
		}
		if (!timeout_ms) {
			ret = ETIMEDOUT;
		} else if (timeout_ms < 0) {
			ret = pthread_cond_wait(&q->done, &q->lock);
		} else {
			ret = pthread_cond_timedwait(&q->done, &q->lock, &dl);
		}
		if (ret == ETIMEDOUT) {
			pthread_mutex_unlock(&q->lock);
			return hf_set_error(dev, -EAGAIN,
					    "%s: submission %llu on %s%u has not ended%s",
					    fn, (unsigned long long)seq,
					    hf_dir_name(d), ch,
					    timeout_ms ? " within the timeout" : "");
		}
	}
	if (x->seq != seq) {
		pthread_mutex_unlock(&q->lock);
		return hf_set_error(dev, -ERANGE,
				    "%s: the result of submission %llu on %s%u is gone: %u later submissions used its word again",
				    fn, (unsigned long long)seq, hf_dir_name(d), ch,
				    SQ_DEPTH);
	}
	if (actual)
		*actual = x->actual;
	ret = x->result;
	if (ret)
		hf_set_error(dev, ret, "%s: submission %llu on %s%u: %s", fn,
			     (unsigned long long)seq, hf_dir_name(d), ch,
			     x->msg);
	pthread_mutex_unlock(&q->lock);
	return ret;
}

int HelloFPGA_GPUDirect_Complete(HELLOFPGA_HANDLE hDev, uint64_t ticket,
				 int timeout_ms, size_t *actual)
{
	struct hellofpga_dev *dev;
	int ret;

	if (actual)
		*actual = 0;
	ret = hf_dev_get(hDev, "HelloFPGA_GPUDirect_Complete", &dev);
	if (!ret)
		ret = hf_dev_put_ret(dev, complete(dev, ticket, timeout_ms,
						   actual));
	return hf_api_ret(HF_API_GPUDIRECT_COMPLETE, ret);
}

/**
 * hf_submit_wake_all() - HelloFPGA_Close() began (the table lock held):
 * wake the Submit and Complete calls waiting on @dev's queues.
 * @dev: the card
 */
void hf_submit_wake_all(struct hellofpga_dev *dev)
{
	pthread_mutex_lock(&dev->submit_lock);
	for (int d = 0; d < 2; d++)
		for (int ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
			struct hf_submitq *q = dev->submitq[d][ch];

			if (!q)
				continue;
			pthread_mutex_lock(&q->lock);
			pthread_cond_broadcast(&q->done);
			pthread_mutex_unlock(&q->lock);
		}
	pthread_mutex_unlock(&dev->submit_lock);
}

/**
 * hf_submit_close() - HelloFPGA_Close(), no call in flight: cancel what
 * has not started, wait for the runs, end the threads, free the queues
 * (their words stay if a GPU mapped them).
 * @dev: the card
 */
void hf_submit_close(struct hellofpga_dev *dev)
{
	for (int d = 0; d < 2; d++)
		for (int ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
			struct hf_submitq *q = dev->submitq[d][ch];

			if (!q)
				continue;
			pthread_mutex_lock(&q->lock);
			__atomic_store_n(&q->stop, true, __ATOMIC_RELEASE);
			pthread_cond_signal(&q->more);
			pthread_mutex_unlock(&q->lock);
			pthread_join(q->thread, NULL);
			/* entries whose GPU operations failed keep no pin */
			dev->ops->wb_unmap(dev, q->map);
			if (q->words_dev)
				hf_gpu_keep(q->words);
			else
				free(q->words);
			pthread_cond_destroy(&q->more);
			pthread_cond_destroy(&q->done);
			pthread_mutex_destroy(&q->lock);
			free(q);
			dev->submitq[d][ch] = NULL;
		}
}
