// SPDX-License-Identifier: MIT
/*
 * gpu_emu_stream.c - the emulated GPU's streams: what a CUstream does for
 * GPU-side completion, so CI runs every path of it without a GPU.
 *
 * A stream is a queue of operations run in order by a worker thread of
 * its own: a wait for a 32-bit word (GEQ, EQ, AND or NOR, as
 * cuStreamWaitValue32), a write of one (cuStreamWriteValue32) and a host
 * function (cuLaunchHostFunc; the stand-in for a kernel: it runs only
 * when everything before it in the stream has).  A wait looks at the word
 * with acquire loads, spinning briefly, then sleeping 20 us between looks,
 * as a GPU front end polls memory.  The emulated GPU addresses host memory
 * directly: a device address is the host address.
 *
 * Streams are named by checked values (slot and generation, never the
 * object's address): a destroyed or made-up stream is -EINVAL, one created
 * before fork() is -ECHILD in the child (its worker does not exist there).
 * Destroy returns at once; the worker finishes the queue (a wait that is
 * never satisfied keeps it, as a GPU stream would) and then frees it.
 * The table's lock is taken around fork() (pthread_atfork()), so a child
 * never inherits it held: there its look-up finds the parent's streams
 * and refuses them (-ECHILD) without touching their locks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gpu_internal.h"
#include "hf_error.h"

#define EQ_SLOTS	256
#define EQ_SPIN_NS	20000ull
#define EQ_SLEEP_NS	20000l

enum eq_kind { EQ_WAIT, EQ_WRITE, EQ_FN };

struct eq_op {
	struct eq_op *next;
	enum eq_kind kind;
	uint32_t *addr;
	uint32_t value;
	unsigned int cmp;
	void (*fn)(void *arg);
	void *arg;
};

/**
 * struct eq_stream - an emulated GPU stream.
 * @lock: protects the queue and the flags
 * @cond: signalled when work is queued, and when the queue runs empty
 * @head: the next operation; @tail: the last (NULL: empty)
 * @busy: the worker runs an operation taken off the queue
 * @dead: destroyed: the worker frees the stream when the queue is empty
 *	and no call uses it (@users)
 * @users: calls holding it (eq_get() to eq_put())
 */
struct eq_stream {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct eq_op *head, *tail;
	bool busy;
	bool dead;
	unsigned int users;
	pthread_t thread;
};

static struct {
	pthread_mutex_t lock;
	struct eq_stream *s[EQ_SLOTS];
	uint32_t gen[EQ_SLOTS];
	pid_t pid[EQ_SLOTS];
	bool no_memops;		/* test hook: a GPU without stream memory ops */
} eq = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void eq_fork_prepare(void)
{
	pthread_mutex_lock(&eq.lock);
}

static void eq_fork_release(void)
{
	pthread_mutex_unlock(&eq.lock);
}

/**
 * hf_emu_gpu_stream_fork_init() - register the fork handlers of the
 * streams' table; once, when the emulated GPU is chosen, before any stream.
 */
void hf_emu_gpu_stream_fork_init(void)
{
	pthread_atfork(eq_fork_prepare, eq_fork_release, eq_fork_release);
}

static uint64_t eq_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool eq_met(const struct eq_op *op)
{
	uint32_t v = __atomic_load_n(op->addr, __ATOMIC_ACQUIRE);

	switch (op->cmp) {
	case HF_GPU_WAIT_GEQ:
		return (int32_t)(v - op->value) >= 0;
	case HF_GPU_WAIT_EQ:
		return v == op->value;
	case HF_GPU_WAIT_AND:
		return (v & op->value) != 0;
	default:
		return ~(v | op->value) != 0;
	}
}

static void eq_run(struct eq_op *op)
{
	struct timespec nap = { 0, EQ_SLEEP_NS };
	uint64_t t0;

	switch (op->kind) {
	case EQ_WAIT:
		t0 = eq_now();
		while (!eq_met(op)) {
			if (eq_now() - t0 > EQ_SPIN_NS)
				nanosleep(&nap, NULL);
		}
		break;
	case EQ_WRITE:
		__atomic_store_n(op->addr, op->value, __ATOMIC_RELEASE);
		break;
	case EQ_FN:
		op->fn(op->arg);
		break;
	}
}

static void *eq_worker(void *arg)
{
	struct eq_stream *s = arg;
	struct eq_op *op;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !(s->dead && !s->users))
			pthread_cond_wait(&s->cond, &s->lock);
		op = s->head;
		if (!op)
			break;	/* dead, drained and unused */
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		s->busy = true;
		pthread_mutex_unlock(&s->lock);
		eq_run(op);
		free(op);
		pthread_mutex_lock(&s->lock);
		s->busy = false;
		if (!s->head)
			pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
	return NULL;
}

/* The stream @v names, with its lock held; NULL with the text set. */
static struct eq_stream *eq_get(void *v, const char *fn, int *err)
{
	uintptr_t x = (uintptr_t)v;
	uint32_t i = (uint32_t)(x & 0xff);
	struct eq_stream *s = NULL;

	*err = -EINVAL;
	if (!x) {
		hf_set_error(NULL, -EINVAL,
			     "%s: stream is NULL: the emulated GPU has no default stream (HelloFPGA_GPU_StreamCreate makes one)",
			     fn);
		return NULL;
	}
	pthread_mutex_lock(&eq.lock);
	if (x >> 8 <= UINT32_MAX && i >= 1 && eq.s[i - 1] &&
	    eq.gen[i - 1] == (uint32_t)(x >> 8)) {
		if (eq.pid[i - 1] != getpid()) {
			pthread_mutex_unlock(&eq.lock);
			*err = -ECHILD;
			hf_set_error(NULL, -ECHILD,
				     "%s: the stream was created before fork(): it does not survive fork()",
				     fn);
			return NULL;
		}
		s = eq.s[i - 1];
		pthread_mutex_lock(&s->lock);
		s->users++;
	}
	pthread_mutex_unlock(&eq.lock);
	if (!s)
		hf_set_error(NULL, -EINVAL,
			     "%s: %p is not a stream of the emulated GPU (destroyed, or never created)",
			     fn, v);
	return s;
}

/* Drop what eq_get() took: the lock and the use. */
static void eq_put(struct eq_stream *s)
{
	if (!--s->users)
		pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

int hf_emu_gpu_stream_create(void **out)
{
	static uint32_t next_gen;
	struct eq_stream *s;
	pthread_condattr_t ca;
	uint32_t i;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_StreamCreate: out of memory");
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* sync's deadline */
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_lock(&eq.lock);
	for (i = 0; i < EQ_SLOTS && eq.s[i]; i++)
		;
	if (i == EQ_SLOTS) {
		pthread_mutex_unlock(&eq.lock);
		ret = hf_set_error(NULL, -ENOMEM,
				   "HelloFPGA_GPU_StreamCreate: %d streams of the emulated GPU exist already",
				   EQ_SLOTS);
		goto err;
	}
	ret = pthread_create(&s->thread, NULL, eq_worker, s);
	if (ret) {
		pthread_mutex_unlock(&eq.lock);
		ret = hf_set_error(NULL, -EAGAIN,
				   "HelloFPGA_GPU_StreamCreate: cannot start the stream's thread");
		goto err;
	}
	pthread_detach(s->thread);
	next_gen = next_gen + 1 ? next_gen + 1 : 1;
	eq.s[i] = s;
	eq.gen[i] = next_gen;
	eq.pid[i] = getpid();
	*out = (void *)((uintptr_t)next_gen << 8 | (i + 1));
	pthread_mutex_unlock(&eq.lock);
	return 0;
err:
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
	return ret;
}

int hf_emu_gpu_stream_destroy(void *v)
{
	uintptr_t x = (uintptr_t)v;
	struct eq_stream *s;
	int err;

	s = eq_get(v, "HelloFPGA_GPU_StreamDestroy", &err);
	if (!s)
		return err;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_lock(&eq.lock);
	pthread_mutex_lock(&s->lock);
	if (eq.s[(x & 0xff) - 1] == s) {
		eq.s[(x & 0xff) - 1] = NULL;
		s->dead = true;
		err = 0;
	} else {
		err = hf_set_error(NULL, -EINVAL,
				   "HelloFPGA_GPU_StreamDestroy: %p is being destroyed by another thread",
				   v);
	}
	pthread_mutex_unlock(&eq.lock);
	eq_put(s);
	return err;
}

int hf_emu_gpu_stream_sync(void *v, int timeout_ms)
{
	struct eq_stream *s;
	struct timespec dl;
	int err, r = 0;

	s = eq_get(v, "HelloFPGA_GPU_StreamSynchronize", &err);
	if (!s)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000l;
	if (dl.tv_nsec >= 1000000000l) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000l;
	}
	/* eq_worker() signals @cond when the queue runs empty */
	while ((s->head || s->busy) && r != ETIMEDOUT) {
		if (timeout_ms < 0)
			pthread_cond_wait(&s->cond, &s->lock);
		else
			r = pthread_cond_timedwait(&s->cond, &s->lock, &dl);
	}
	err = s->head || s->busy;
	eq_put(s);
	if (err)
		return hf_set_error(NULL, -ETIMEDOUT,
				    "HelloFPGA_GPU_StreamSynchronize: the stream's work did not finish within %d ms",
				    timeout_ms);
	return 0;
}

static int eq_push(void *v, const char *fn, const struct eq_op *tmpl)
{
	struct eq_stream *s;
	struct eq_op *op;
	int err;

	op = malloc(sizeof(*op));
	if (!op)
		return hf_set_error(NULL, -ENOMEM, "%s: out of memory", fn);
	*op = *tmpl;
	op->next = NULL;
	s = eq_get(v, fn, &err);
	if (!s) {
		free(op);
		return err;
	}
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	pthread_cond_broadcast(&s->cond);
	eq_put(s);
	return 0;
}

int hf_emu_gpu_host_func(void *v, void (*fn)(void *arg), void *arg)
{
	struct eq_op op = { .kind = EQ_FN, .fn = fn, .arg = arg };

	return eq_push(v, "HelloFPGA_GPU_LaunchHostFunc", &op);
}

int hf_emu_gpu_memops(bool *can_flush, const char *fn)
{
	if (__atomic_load_n(&eq.no_memops, __ATOMIC_RELAXED))
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "%s: the GPU has no stream memory operations (cuStreamWaitValue32): wait on the CPU (HelloFPGA_Stream_Wait) and launch after it",
				    fn);
	*can_flush = true;
	return 0;
}

int hf_emu_gpu_wait32(void *v, uint64_t dev, uint32_t value, unsigned int cmp,
		      bool flush, const char *fn)
{
	struct eq_op op = { .kind = EQ_WAIT, .addr = (uint32_t *)(uintptr_t)dev,
			    .value = value, .cmp = cmp };

	(void)flush;	/* host memory: every write is visible */
	return eq_push(v, fn, &op);
}

int hf_emu_gpu_write32(void *v, uint64_t dev, uint32_t value, const char *fn)
{
	struct eq_op op = { .kind = EQ_WRITE, .addr = (uint32_t *)(uintptr_t)dev,
			    .value = value };

	return eq_push(v, fn, &op);
}

void hf_gpu_test_no_memops(bool on)
{
	__atomic_store_n(&eq.no_memops, on, __ATOMIC_RELAXED);
}
