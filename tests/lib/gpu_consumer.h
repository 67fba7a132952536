/* SPDX-License-Identifier: MIT */
/*
 * gpu_consumer.h - the GPU-side setup of the GPU completion tests
 * (test_gpuwait.c, test_submit.c, test_kernel_backend.c): the GPU a case
 * runs on and the consumer "kernel", a host function enqueued on a GPU
 * stream that records that it ran and the status word it saw.
 */
#ifndef HF_TEST_GPU_CONSUMER_H
#define HF_TEST_GPU_CONSUMER_H

#include <stdint.h>

#include "hellofpga.h"

struct consumer {
	int ran;			/* atomic */
	uint32_t status;
	const volatile uint32_t *word;
};

/* The host function: reads *c->word, then marks @arg (a consumer) ran. */
void consumer_fn(void *arg);
/* Whether consumer_fn ran for @c. */
int ran(struct consumer *c);
/* A GPU wait of @s for @seq on @gs into @w, and consumer @c after it. */
void wait_then_consume(HELLOFPGA_STREAM s, void *gs, uint64_t seq,
		       struct consumer *c, HELLOFPGA_GPU_WAIT *w);
/*
 * HELLOFPGA_GPU is the GPU of HF_TEST_GPU (cuda on the GPU machine), else
 * the emulated one; skips the case when there is no such GPU.
 */
void use_test_gpu(void);

#endif /* HF_TEST_GPU_CONSUMER_H */
