// SPDX-License-Identifier: MIT
/*
 * gpu_pipeline.cu - the card as a step of a GPU pipeline, ordered by one
 * CUDA stream alone: each round a kernel produces a block in GPU memory,
 * the card takes it (H2C, started when the stream gets past the producer:
 * HELLOFPGA_SUBMIT_START_ON_GPU), gives it back into another buffer (C2H,
 * the stream waits for the card's writeback: HELLOFPGA_SUBMIT_WAIT_ON_GPU),
 * and a kernel checks it.  The CPU only queues the rounds; it waits once,
 * at the end.  On an FPGA the card step would be the user logic's
 * processing between its H2C and C2H sides; here card memory holds it.
 *
 *   nvcc gpu_pipeline.cu -lHelloFPGACore -o gpu_pipeline
 *   ./gpu_pipeline [ROUNDS]             (HELLOFPGA_DEVICE picks the card)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <hellofpga.h>

#define BLOCK		(256u << 10)	/* bytes per round */
#define CARD_ADDR	0x100000ull

#define CHECK(call)							\
	do {								\
		int r_ = (call);					\
		if (r_ < 0) {						\
			fprintf(stderr, "%s: %s: %s\n", #call,		\
				HelloFPGA_StrError(r_),			\
				HelloFPGA_GetLastError(hDev));		\
			return 1;					\
		}							\
	} while (0)

#define CUDA(call)							\
	do {								\
		cudaError_t e_ = (call);				\
		if (e_ != cudaSuccess) {				\
			fprintf(stderr, "%s: %s\n", #call,		\
				cudaGetErrorString(e_));		\
			return 1;					\
		}							\
	} while (0)

__device__ uint32_t word(uint32_t round, uint32_t i)
{
	return round * 0x9e3779b1u ^ i * 0x85ebca77u;
}

__global__ void produce(uint32_t *out, uint32_t round)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	     i < BLOCK / 4; i += gridDim.x * blockDim.x)
		out[i] = word(round, i);
}

/*
 * @status: the C2H submission's writeback word: the descriptors the card
 * completed, HELLOFPGA_XFER_WB_ERROR if it failed (then there is no data).
 */
__global__ void check(const uint32_t *in, const uint32_t *status,
		      uint32_t round, unsigned long long *bad)
{
	uint32_t errs = 0;

	if (*status & HELLOFPGA_XFER_WB_ERROR) {
		if (blockIdx.x == 0 && threadIdx.x == 0)
			atomicAdd(bad, BLOCK / 4);
		return;
	}
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	     i < BLOCK / 4; i += gridDim.x * blockDim.x)
		errs += in[i] != word(round, i);
	if (errs)
		atomicAdd(bad, errs);
}

int main(int argc, char **argv)
{
	const char *name = getenv("HELLOFPGA_DEVICE");
	uint32_t rounds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1000;
	HELLOFPGA_HANDLE hDev = NULL;
	HELLOFPGA_GPU_HANDLE pin;
	unsigned long long *bad;
	cudaStream_t cs;
	uint8_t *gpu;

	CHECK(HelloFPGA_Open(name ? name : "emu:0,private", &hDev));
	CUDA(cudaMalloc(&gpu, 2 * BLOCK));	/* [0]: produced, [1]: back */
	CUDA(cudaMallocManaged(&bad, sizeof(*bad)));
	*bad = 0;
	CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
	CHECK(HelloFPGA_GPUDirect_Pin(hDev, gpu, 2 * BLOCK, &pin));
	/*
	 * Load both kernels now: with CUDA's lazy loading (the default since
	 * 12.2) a first launch behind a stream that waits for the card may
	 * wait for that stream, and the card for the launch: a deadlock.
	 */
	{
		cudaFuncAttributes a;

		CUDA(cudaFuncGetAttributes(&a, produce));
		CUDA(cudaFuncGetAttributes(&a, check));
	}

	for (uint32_t r = 0; r < rounds; r++) {
		HELLOFPGA_SUBMISSION back;

		produce<<<64, 256, 0, cs>>>((uint32_t *)gpu, r);
		CUDA(cudaGetLastError());
		/* to the card once the producer is done; the C2H after it on
		 * the channel pair waits for it (the stream waits for it) */
		CHECK(HelloFPGA_GPUDirect_Submit(hDev, 0, pin, 0, CARD_ADDR,
						 BLOCK, HELLOFPGA_DIR_H2C, cs,
						 HELLOFPGA_SUBMIT_START_ON_GPU |
						 HELLOFPGA_SUBMIT_WAIT_ON_GPU,
						 0, NULL));
		CHECK(HelloFPGA_GPUDirect_Submit(hDev, 0, pin, BLOCK, CARD_ADDR,
						 BLOCK, HELLOFPGA_DIR_C2H, cs,
						 HELLOFPGA_SUBMIT_START_ON_GPU |
						 HELLOFPGA_SUBMIT_WAIT_ON_GPU,
						 0, &back));
		check<<<64, 256, 0, cs>>>((const uint32_t *)(gpu + BLOCK),
					  (const uint32_t *)(uintptr_t)back.status_dev,
					  r, bad);
		CUDA(cudaGetLastError());
	}
	CUDA(cudaStreamSynchronize(cs));
	printf("%u rounds of %u KiB: GPU -> card -> GPU, ordered on the GPU: %s\n",
	       rounds, BLOCK >> 10, *bad ? "MISMATCH" : "all verified");
	CHECK(HelloFPGA_GPUDirect_Unpin(hDev, pin));
	CHECK(HelloFPGA_Close(hDev));
	return *bad ? 1 : 0;
}
