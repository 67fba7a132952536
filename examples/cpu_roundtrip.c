// SPDX-License-Identifier: MIT
/*
 * cpu_roundtrip.c - the smallest HelloFPGA program: write a buffer to card
 * memory over H2C channel 0, read it back over C2H channel 0, compare.
 *
 *   cc cpu_roundtrip.c -lHelloFPGACore -o cpu_roundtrip     (seed's name)
 *   cc cpu_roundtrip.c $(pkg-config --cflags --libs hellofpga)
 *   HELLOFPGA_DEVICE=emu ./cpu_roundtrip
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hellofpga.h>

int main(void)
{
	HELLOFPGA_HANDLE hDev;
	size_t len = 1 << 20, actual;
	unsigned char *out = malloc(len), *in = malloc(len);
	int ret;

	if (!out || !in)
		return 1;
	for (size_t i = 0; i < len; i++)
		out[i] = (unsigned char)(i * 7);

	ret = HelloFPGA_Open(NULL, &hDev);	/* HELLOFPGA_DEVICE or card 0 */
	if (ret) {
		fprintf(stderr, "open: %s\n%s\n", HelloFPGA_StrError(ret),
			HelloFPGA_GetLastError(NULL));
		return 1;
	}
	ret = HelloFPGA_DMA_MM_WriteH2C(hDev, 0, out, 0x1000, len, &actual);
	if (!ret)
		ret = HelloFPGA_DMA_MM_ReadC2H(hDev, 0, in, 0x1000, len,
					       &actual);
	if (ret) {
		fprintf(stderr, "transfer: %s\n%s\n", HelloFPGA_StrError(ret),
			HelloFPGA_GetLastError(hDev));
		HelloFPGA_Close(hDev);
		return 1;
	}
	printf("%zu bytes round trip: %s\n", actual,
	       memcmp(out, in, len) ? "MISMATCH" : "ok");
	HelloFPGA_Close(hDev);
	free(out);
	free(in);
	return 0;
}
