// SPDX-License-Identifier: MIT
/*
 * transfer_mode.cu - TransferMode: two added lines make an existing
 * HelloFPGA_DMA_MM_ReadC2H() call move card memory straight into GPU memory.
 * A host buffer passed to the same call still takes the CPU path.
 *
 *   nvcc transfer_mode.cu -lHelloFPGACore -o transfer_mode
 *   HELLOFPGA_DEVICE=emu ./transfer_mode
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <hellofpga.h>

int main(void)
{
	HELLOFPGA_HANDLE hDev;
	const size_t len = 1 << 20;
	const uint64_t offset = 0x200000;
	const int ch = 1;
	unsigned char *host = (unsigned char *)malloc(len);
	unsigned char *check = (unsigned char *)malloc(len);
	size_t actual = 0;
	void *gpuAddr;
	int ret, bad;

	if (HelloFPGA_Open(NULL, &hDev)) {
		fprintf(stderr, "%s\n", HelloFPGA_GetLastError(NULL));
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		host[i] = (unsigned char)(i * 31 + 7);
	HelloFPGA_DMA_MM_WriteH2C(hDev, ch, host, offset, len, NULL);
	cudaMalloc(&gpuAddr, len);

	HelloFPGA_SetGPUBuffer(hDev, gpuAddr, len);                      /* added */
	HelloFPGA_SetTransferMode(hDev, HELLOFPGA_XFER_MODE_GPU_PINNED); /* added */

	void *buf = gpuAddr;
	ret = HelloFPGA_DMA_MM_ReadC2H(hDev, ch, buf, offset, len, &actual); /* unchanged */
	cudaMemcpy(check, gpuAddr, len, cudaMemcpyDeviceToHost);
	bad = memcmp(check, host, len) != 0;
	printf("ReadC2H into GPU memory: ret %d, %zu bytes, data %s\n", ret,
	       actual, bad ? "MISMATCH" : "ok");

	/* a host buffer in the same mode: the CPU path, as before */
	memset(check, 0, len);
	ret |= HelloFPGA_DMA_MM_ReadC2H(hDev, ch, check, offset, len, &actual);
	bad |= memcmp(check, host, len) != 0;
	printf("ReadC2H into host memory: ret %d, data %s\n", ret,
	       memcmp(check, host, len) ? "MISMATCH" : "ok");

	HelloFPGA_SetGPUBuffer(hDev, NULL, 0);
	HelloFPGA_Close(hDev);
	cudaFree(gpuAddr);
	free(host);
	free(check);
	return ret || bad ? 1 : 0;
}
