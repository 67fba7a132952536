/* SPDX-License-Identifier: MIT */
/*
 * gpuwait.h - what the two gpuwait sections share (gpuwait_rig.c): an
 * AXI-Stream card's (gpuwait.c) and a memory-mapped card's (gpuwait_mm.c)
 * measure the card's completion to a consumer kernel's start alike: a
 * spinner thread stamps both ends with CLOCK_MONOTONIC, a consumer thread
 * waits on the CPU and then launches the kernel (cpu-wait), the kernel
 * (bgpu_flag_launch()) stores a value into a flag in host memory mapped
 * for the GPU when it starts, on a GPU stream of the section's.
 */
#ifndef HF_BENCH_GPUWAIT_H
#define HF_BENCH_GPUWAIT_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define GW_TMO_MS	2000
#define GW_SPIN_NS	(1000ull * 1000000ull)	/* a spinner gives up */
#define GW_STREAMS	2

/**
 * struct gw_worker - a thread that runs @fn(@arg) each time it is let go
 * (gw_worker_go()), posting @done after each.
 */
struct gw_worker {
	pthread_t thread;
	bool started;
	bool stop;
	sem_t go, done;
	void (*fn)(void *arg);
	void *arg;
};

/**
 * struct gw_rig - a gpuwait section's set-up.
 * @bn: the run
 * @gs: GPU streams: [0] the consumer kernel's, [1] the memory-mapped
 *	section's holding transfer's (NULL when not asked for)
 * @flag: 16 bytes of host memory mapped for the GPU: the kernel's start
 * @spin: the spinner; its function calls gw_rig_spinning() once it polls
 * @cons: the consumer (cpu-wait)
 * @spinning: set by the spinner once it polls
 */
struct gw_rig {
	struct bench *bn;
	void *gs[GW_STREAMS];
	volatile uint32_t *flag;
	struct gw_worker spin;
	struct gw_worker cons;
	bool spinning;
};

int gw_rig_setup(struct gw_rig *r, struct bench *bn, int nstreams,
		 void (*spin)(void *), void (*cons)(void *), void *arg);
void gw_rig_spin_start(struct gw_rig *r);
void gw_rig_spinning(struct gw_rig *r);
void gw_worker_go(struct gw_worker *w);
void gw_worker_wait(struct gw_worker *w);
int gw_rig_launch(struct gw_rig *r, uint32_t value);
int gw_rig_sync(struct gw_rig *r, const char *what);
void gw_rig_stop(struct gw_rig *r);
void gw_rig_free(struct gw_rig *r);
unsigned int gw_samples(const struct bench *bn);

/* gpuwait_mm.c: the section on a memory-mapped card */
int bench_run_gpuwait_mm(struct bench *bn);

#endif /* HF_BENCH_GPUWAIT_H */
