// SPDX-License-Identifier: MIT
/* gpu_consumer.c - the shared GPU setup of the GPU completion tests. */
#include <stdlib.h>
#include <string.h>

#include "gpu_consumer.h"
#include "harness.h"
#include "hellofpga.h"

void consumer_fn(void *arg)
{
	struct consumer *c = arg;

	c->status = __atomic_load_n((const uint32_t *)c->word, __ATOMIC_ACQUIRE);
	__atomic_store_n(&c->ran, 1, __ATOMIC_RELEASE);
}

int ran(struct consumer *c)
{
	return __atomic_load_n(&c->ran, __ATOMIC_ACQUIRE);
}

void wait_then_consume(HELLOFPGA_STREAM s, void *gs, uint64_t seq,
		       struct consumer *c, HELLOFPGA_GPU_WAIT *w)
{
	memset(c, 0, sizeof(*c));
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, seq, 0, w), 0);
	c->word = w->status;
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(gs, consumer_fn, c), 0);
}

void use_test_gpu(void)
{
	const char *t = getenv("HF_TEST_GPU");
	HELLOFPGA_GPU_STATUS st;

	setenv("HELLOFPGA_GPU", t && *t ? t : "emu", 1);
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	if (!st.supported)
		HF_SKIP("HELLOFPGA_GPU=%s: no GPU: %s", t && *t ? t : "emu",
			st.reason);
}
