/* isolated.c: GPU Direct read against the raw copy, alternating, with the
 * time inside the engine copy (needs isolated-patch.py applied to the tree;
 * build against the static library; output in 7-isolated.txt). */
#include <dlfcn.h>
#include <hellofpga.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
extern uint64_t hf_dbg_copy_ns, hf_dbg_copy_n;
static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static int cmp(const void *a, const void *b) { uint64_t x = *(uint64_t *)a, y = *(uint64_t *)b; return x < y ? -1 : x > y; }
static double med(uint64_t *v, int n) { qsort(v, n, 8, cmp); return v[n / 2] / 1000.0; }
int main(void)
{
	void *cu = dlopen("libcuda.so.1", RTLD_NOW);
	int (*init)(unsigned) = dlsym(cu, "cuInit");
	int (*dget)(int *, int) = dlsym(cu, "cuDeviceGet");
	int (*pret)(void **, int) = dlsym(cu, "cuDevicePrimaryCtxRetain");
	int (*setc)(void *) = dlsym(cu, "cuCtxSetCurrent");
	int (*ah)(void **, size_t) = dlsym(cu, "cuMemAllocHost_v2");
	int (*htod)(uint64_t, const void *, size_t) = dlsym(cu, "cuMemcpyHtoD_v2");
	int dev; void *ctx, *hp; HELLOFPGA_HANDLE h; HELLOFPGA_GPU_HANDLE gh; void *g;
	init(0); dget(&dev, 0); pret(&ctx, dev); setc(ctx);
	ah(&hp, 8 << 20);
	if (HelloFPGA_Open("emu:0,private", &h) || HelloFPGA_GPU_Alloc(&g, 8 << 20) || HelloFPGA_GPUDirect_Pin(h, g, 8 << 20, &gh)) { printf("setup failed\n"); return 1; }
	size_t sizes[] = { 4096, 256 << 10, 512 << 10, 1 << 20, 4 << 20 };
	enum { N = 400 };
	static uint64_t a[N], b[N], c[N];
	for (int s = 0; s < 5; s++) {
		size_t len = sizes[s];
		for (int i = 0; i < N; i++) {
			uint64_t t0 = now(), c0 = hf_dbg_copy_ns;
			if (HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 64 << 20, len, 0)) return 2;
			uint64_t t1 = now();
			c[i] = hf_dbg_copy_ns - c0;
			a[i] = t1 - t0;
			t0 = now(); htod((uintptr_t)g, hp, len); b[i] = now() - t0;
		}
		printf("%8zu KiB: GD read %8.2f us (inside cuMemcpy %8.2f us)  ceiling %8.2f us  copies/xfer %.2f\n", len >> 10, med(a, N), med(c, N), med(b, N), 0.0);
	}
	printf("copies total %llu\n", (unsigned long long)hf_dbg_copy_n);
	return 0;
}
