// SPDX-License-Identifier: MIT
/*
 * gpudirect_four_steps.cu - the HelloFPGA four-step GPU Direct guide as a
 * complete program: allocate GPU memory, pin it once, move data card -> GPU
 * and GPU -> card with the handle, unpin.  A CUDA kernel checks on the GPU
 * what the card wrote there.
 *
 *   nvcc gpudirect_four_steps.cu -lHelloFPGACore -o four_steps
 *   HELLOFPGA_DEVICE=emu ./four_steps
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <hellofpga.h>

#define CHECK(call)							\
	do {								\
		int r_ = (call);					\
		if (r_) {						\
			fprintf(stderr, "%s: %s: %s\n", #call,		\
				HelloFPGA_StrError(r_),			\
				HelloFPGA_GetLastError(hDev));		\
			return 1;					\
		}							\
	} while (0)

__global__ void checksum(const unsigned int *p, size_t n,
			 unsigned long long *sum)
{
	unsigned long long s = 0;

	for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		s += p[i];
	atomicAdd(sum, s);
}

int main(void)
{
	HELLOFPGA_HANDLE hDev = NULL;
	HELLOFPGA_GPU_STATUS status;
	HELLOFPGA_GPU_HANDLE handle;
	const size_t size = 4 << 20;		/* 4 MiB, 4096-byte multiple */
	const uint64_t fpgaAddr = 0x100000;
	const int ch = 0, timeout = 1000;
	unsigned int *host = (unsigned int *)malloc(size);
	unsigned long long *sum, expect = 0;
	size_t n = size / sizeof(unsigned int);
	void *gpuBuf;

	CHECK(HelloFPGA_GetGPUStatus(&status));
	printf("GPU: %s (%s, %s), GPU Direct %s%s\n", status.name,
	       status.platform == 1 ? "Tegra" : "Desktop",
	       status.emulated ? "emulated" : "real",
	       status.supported ? "supported" : "not supported: ",
	       status.reason);
	CHECK(HelloFPGA_Open(NULL, &hDev));

	/* put a pattern into card memory through the CPU path */
	for (size_t i = 0; i < n; i++) {
		host[i] = (unsigned int)(i * 2654435761u);
		expect += host[i];
	}
	CHECK(HelloFPGA_DMA_MM_WriteH2C(hDev, ch, host, fpgaAddr, size, NULL));

	/* 1. allocate: cudaMalloc on desktop, cudaHostAlloc on Tegra */
	if (status.platform == HELLOFPGA_PLATFORM_TEGRA)
		cudaHostAlloc(&gpuBuf, size, cudaHostAllocDefault);
	else
		cudaMalloc(&gpuBuf, size);
	/* 2. pin once */
	CHECK(HelloFPGA_GPUDirect_Pin(hDev, gpuBuf, size, &handle));
	/* 3. transfer, reusing the handle: card -> GPU ... */
	CHECK(HelloFPGA_GPUDirect_ReadC2H(hDev, ch, handle, fpgaAddr, size,
					  timeout));
	cudaMalloc(&sum, sizeof(*sum));
	cudaMemset(sum, 0, sizeof(*sum));
	checksum<<<64, 256>>>((const unsigned int *)gpuBuf, n, sum);
	unsigned long long got = 0;
	cudaMemcpy(&got, sum, sizeof(got), cudaMemcpyDeviceToHost);
	printf("card -> GPU: checksum on the GPU %s\n",
	       got == expect ? "ok" : "MISMATCH");

	/* ... and GPU -> card, to another card address */
	CHECK(HelloFPGA_GPUDirect_WriteH2C(hDev, ch, handle, fpgaAddr + size,
					   size, timeout));
	memset(host, 0, size);
	CHECK(HelloFPGA_DMA_MM_ReadC2H(hDev, ch, host, fpgaAddr + size, size,
				       NULL));
	unsigned long long back = 0;
	for (size_t i = 0; i < n; i++)
		back += host[i];
	printf("GPU -> card: %s\n", back == expect ? "ok" : "MISMATCH");

	/* 4. release at exit */
	CHECK(HelloFPGA_GPUDirect_Unpin(hDev, handle));
	HelloFPGA_Close(hDev);
	cudaFree(sum);
	if (status.platform == HELLOFPGA_PLATFORM_TEGRA)
		cudaFreeHost(gpuBuf);
	else
		cudaFree(gpuBuf);
	free(host);
	return got == expect && back == expect ? 0 : 1;
}
