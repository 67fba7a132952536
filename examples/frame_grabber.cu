// SPDX-License-Identifier: MIT
/*
 * frame_grabber.cu - a frame grabber's loop into a ring in GPU memory, with
 * the consumer kernel started by the card itself: for each frame the CUDA
 * stream waits on the GPU for the card's writeback
 * (HelloFPGA_Stream_WaitOnGPU), the kernel that checks the frame runs right
 * after it, and the buffer goes back to the card when the GPU stream gets
 * past the kernel (HelloFPGA_Stream_ReleaseOnGPU).  No CPU thread wakes up
 * between the card's completion and the kernel's start; the CPU only keeps
 * the books (HelloFPGA_Stream_Wait, off the critical path).
 *
 * The card's source here is the reference design's (docs/xdma-model.md,
 * "AXI-Stream"): frames of a 16-byte header (sequence, length, "HFST") and a
 * pattern the kernel recomputes.  On the emulated card (the default device,
 * emu:0,private,st) the program starts it through the user BAR.
 *
 *   nvcc frame_grabber.cu -lHelloFPGACore -o frame_grabber
 *   ./frame_grabber [FRAMES]            (HELLOFPGA_DEVICE picks the card)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <hellofpga.h>

#define BUFFERS		8
#define FRAME_SIZE	(1u << 20)
#define FRAME_MAGIC	0x54534648u	/* "HFST" */

/* The reference design's source on C2H0 (refdesign/hf_user_regs.h). */
#define SRC		0x2000u
#define SRC_CTRL	0x00u
#define SRC_FRAME_SIZE	0x04u
#define SRC_COUNT	0x14u
#define SRC_ENABLE	0x1u
#define SRC_CLEAR	0x80000000u

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

/* The pattern word @idx of frame @seq (refdesign/hf_stream_pattern.h). */
__device__ uint32_t pattern_word(uint64_t seq, uint32_t idx)
{
	uint32_t x = idx * 0x9e3779b1u ^ (uint32_t)seq * 0x85ebca77u ^
		     (uint32_t)(seq >> 32) * 0xc2b2ae3du;

	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/*
 * The consumer: checks frame @seq in @buf against the pattern.  @status is
 * the buffer's writeback slot: a stop marks it HELLOFPGA_STREAM_WB_ERROR
 * (the GPU went on, there is no frame); else the word after it is the
 * length.  Bad words and stopped frames count in @bad.
 */
__global__ void check_frame(const uint32_t *buf, const uint32_t *status,
			    uint64_t seq, unsigned long long *bad)
{
	uint32_t len = status[1], n = len / 4, errs = 0;

	if (status[0] & HELLOFPGA_STREAM_WB_ERROR) {
		if (blockIdx.x == 0 && threadIdx.x == 0)
			atomicAdd(bad, 1);
		return;
	}
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x) {
		uint32_t want;

		if (i == 0)
			want = (uint32_t)seq;
		else if (i == 1)
			want = (uint32_t)(seq >> 32);
		else if (i == 2)
			want = len;
		else if (i == 3)
			want = FRAME_MAGIC;
		else
			want = pattern_word(seq, i);
		errs += buf[i] != want;
	}
	if (errs)
		atomicAdd(bad, errs);
}

/*
 * Enqueue, from frame *@next on, a GPU-side wait and the kernel behind it,
 * for as many frames as the window allows.  Return: 0, or 1 after a message.
 */
static int enqueue(HELLOFPGA_HANDLE hDev, HELLOFPGA_STREAM s, cudaStream_t cs,
		   uint8_t *ring, unsigned long long *bad, uint64_t *next,
		   uint64_t frames)
{
	for (; *next < frames; (*next)++) {
		HELLOFPGA_GPU_WAIT w;
		int r = HelloFPGA_Stream_WaitOnGPU(s, cs, *next, 0, &w);

		if (r == -ERANGE)	/* a ring ahead: later */
			return 0;
		CHECK(r);
		check_frame<<<64, 256, 0, cs>>>(
			(const uint32_t *)(ring + w.gpu_offset),
			(const uint32_t *)(uintptr_t)w.status_dev, *next, bad);
		CUDA(cudaGetLastError());
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = getenv("HELLOFPGA_DEVICE");
	uint64_t frames = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000;
	HELLOFPGA_HANDLE hDev = NULL;
	HELLOFPGA_STREAM_CONFIG cfg;
	HELLOFPGA_GPU_HANDLE pin;
	HELLOFPGA_STREAM s;
	HELLOFPGA_INFO info;
	unsigned long long *bad, nbad;
	cudaStream_t cs;
	uint8_t *ring;

	CHECK(HelloFPGA_Open(name ? name : "emu:0,private,st", &hDev));
	CHECK(HelloFPGA_GetInfo(hDev, &info));
	/* cudaMalloc()'s large allocations start on 2 MiB: each buffer lies
	 * in one contiguous piece of the pin */
	CUDA(cudaMalloc(&ring, BUFFERS * FRAME_SIZE));
	CUDA(cudaMallocManaged(&bad, sizeof(*bad)));
	*bad = 0;
	CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
	CHECK(HelloFPGA_GPUDirect_Pin(hDev, ring, BUFFERS * FRAME_SIZE, &pin));

	memset(&cfg, 0, sizeof(cfg));
	cfg.channel = 0;
	cfg.buffers = BUFFERS;
	cfg.buffer_size = FRAME_SIZE;
	cfg.gpu = pin;
	CHECK(HelloFPGA_Stream_Open(hDev, &cfg, &s));
	if (info.backend == HELLOFPGA_BACKEND_EMULATED) {
		CHECK(HelloFPGA_UserWrite32(hDev, SRC + SRC_CTRL, SRC_CLEAR));
		CHECK(HelloFPGA_UserWrite32(hDev, SRC + SRC_FRAME_SIZE,
					    FRAME_SIZE));
		CHECK(HelloFPGA_UserWrite32(hDev, SRC + SRC_COUNT,
					    (uint32_t)frames));
		CHECK(HelloFPGA_UserWrite32(hDev, SRC + SRC_CTRL, SRC_ENABLE));
	}

	/*
	 * The GPU runs ahead: a wait may be enqueued for any buffer from
	 * those given back so far up to a ring ahead (-ERANGE beyond), so
	 * the kernels of up to BUFFERS frames queue before the frames come.
	 */
	for (uint64_t seq = 0, next = 0; seq < frames; seq++) {
		HELLOFPGA_FRAME f;

		if (enqueue(hDev, s, cs, ring, bad, &next, frames))
			return 1;
		/* the books: take frame seq (this also sees the GPU's
		 * releases; once seq is here its wait is in the window) */
		CHECK(HelloFPGA_Stream_Wait(s, 5000, &f));
		if (f.dropped)
			printf("frame %llu: %llu frames dropped before it\n",
			       (unsigned long long)f.sequence,
			       (unsigned long long)f.dropped);
		if (enqueue(hDev, s, cs, ring, bad, &next, frames))
			return 1;
		/* back to the card once the GPU stream is past its kernel */
		CHECK(HelloFPGA_Stream_ReleaseOnGPU(s, cs, f.index, 0));
	}
	CUDA(cudaStreamSynchronize(cs));
	nbad = *bad;
	printf("%llu frames of %u bytes checked on the GPU after a GPU-side wait: %s\n",
	       (unsigned long long)frames, FRAME_SIZE,
	       nbad ? "MISMATCH" : "all verified");

	CHECK(HelloFPGA_Stream_Close(s));
	CHECK(HelloFPGA_GPUDirect_Unpin(hDev, pin));
	CHECK(HelloFPGA_Close(hDev));
	cudaStreamDestroy(cs);
	cudaFree(bad);
	cudaFree(ring);
	return nbad ? 1 : 0;
}
