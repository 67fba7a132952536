// SPDX-License-Identifier: MIT
/*
 * gpuwait_rig.c - the set-up both gpuwait sections share (gpuwait.h): the
 * GPU streams, the start flag and its kernel, the spinner and the
 * consumer threads; starting a spinner so that it polls before the
 * sample goes on; a launch, a stream's end; the teardown.
 */
#include <stdlib.h>
#include <string.h>

#include "gpuwait.h"

static void *worker_main(void *arg)
{
	struct gw_worker *w = arg;

	for (;;) {
		sem_wait(&w->go);
		if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
			break;
		w->fn(w->arg);
		sem_post(&w->done);
	}
	return NULL;
}

static int worker_start(struct gw_worker *w, void (*fn)(void *), void *arg,
			const char *name)
{
	w->fn = fn;
	w->arg = arg;
	sem_init(&w->go, 0, 0);
	sem_init(&w->done, 0, 0);
	if (pthread_create(&w->thread, NULL, worker_main, w)) {
		sem_destroy(&w->go);
		sem_destroy(&w->done);
		cli_err("bench: gpuwait: cannot start the %s thread", name);
		return -1;
	}
	w->started = true;
	return 0;
}

static void worker_stop(struct gw_worker *w)
{
	if (!w->started)
		return;
	__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
	sem_post(&w->go);
	pthread_join(w->thread, NULL);
	sem_destroy(&w->go);
	sem_destroy(&w->done);
	w->started = false;
}

/** gw_worker_go() - let @w run its function once. */
void gw_worker_go(struct gw_worker *w)
{
	sem_post(&w->go);
}

/** gw_worker_wait() - wait until @w has run its function once more. */
void gw_worker_wait(struct gw_worker *w)
{
	sem_wait(&w->done);
}

/**
 * gw_rig_setup() - @nstreams GPU streams, the start flag and its kernel,
 * the spinner @spin and the consumer @cons, both called with @arg.
 * Return: 0, or -1 after reporting (gw_rig_stop() and gw_rig_free() undo
 * what was done).
 */
int gw_rig_setup(struct gw_rig *r, struct bench *bn, int nstreams,
		 void (*spin)(void *), void (*cons)(void *), void *arg)
{
	int ret = 0;

	r->bn = bn;
	for (int i = 0; !ret && i < nstreams; i++)
		ret = HelloFPGA_GPU_StreamCreate(&r->gs[i]);
	if (ret) {
		cli_lib_err(NULL, ret, "bench: gpuwait: HelloFPGA_GPU_StreamCreate");
		return -1;
	}
	r->flag = bgpu_host_alloc(&bn->gpu, 16);
	if (!r->flag || bgpu_flag_init(&bn->gpu)) {
		cli_err("bench: gpuwait: %s", bgpu_error());
		return -1;
	}
	if (worker_start(&r->spin, spin, arg, "spinner") ||
	    worker_start(&r->cons, cons, arg, "consumer"))
		return -1;
	return 0;
}

/**
 * gw_rig_spin_start() - let the spinner go and wait until it polls: a
 * thread woken by a semaphore starts tens of microseconds later, when the
 * frame or the kernel may be there already; both ends would be stamped
 * late.
 */
void gw_rig_spin_start(struct gw_rig *r)
{
	__atomic_store_n(&r->spinning, false, __ATOMIC_RELAXED);
	gw_worker_go(&r->spin);
	while (!__atomic_load_n(&r->spinning, __ATOMIC_ACQUIRE))
		;
}

/** gw_rig_spinning() - the spinner's word that it polls now. */
void gw_rig_spinning(struct gw_rig *r)
{
	__atomic_store_n(&r->spinning, true, __ATOMIC_RELEASE);
}

/**
 * gw_rig_launch() - the consumer kernel on stream 0, storing @value into
 * the flag when it starts.
 * Return: 0, or -1 after reporting.
 */
int gw_rig_launch(struct gw_rig *r, uint32_t value)
{
	if (!bgpu_flag_launch(&r->bn->gpu, r->gs[0], r->flag, value))
		return 0;
	cli_err("bench: gpuwait: %s", bgpu_error());
	return -1;
}

/**
 * gw_rig_sync() - the end of a sample's GPU work: stream 0 idle.
 * Return: 0, or -1 after reporting (@what: the sample's way).
 */
int gw_rig_sync(struct gw_rig *r, const char *what)
{
	int ret = HelloFPGA_GPU_StreamSynchronize(r->gs[0], GW_TMO_MS);

	if (!ret)
		return 0;
	cli_lib_err(NULL, ret, "bench: gpuwait: %s: the GPU stream", what);
	return -1;
}

/** gw_rig_stop() - end the consumer and the spinner thread. */
void gw_rig_stop(struct gw_rig *r)
{
	worker_stop(&r->cons);
	worker_stop(&r->spin);
}

/** gw_rig_free() - the GPU streams, once idle, and the flag. */
void gw_rig_free(struct gw_rig *r)
{
	if (!r->bn)
		return;
	for (int i = 0; i < GW_STREAMS; i++) {
		if (!r->gs[i])
			continue;
		HelloFPGA_GPU_StreamSynchronize(r->gs[i], GW_TMO_MS);
		HelloFPGA_GPU_StreamDestroy(r->gs[i]);
		r->gs[i] = NULL;
	}
	bgpu_host_free(&r->bn->gpu, (void *)r->flag);
	r->flag = NULL;
}

/** gw_samples() - samples of each way: --iters, else 1000 (--quick 100). */
unsigned int gw_samples(const struct bench *bn)
{
	return bn->fixed_iters ? bn->fixed_iters : bn->quick ? 100 : 1000;
}
