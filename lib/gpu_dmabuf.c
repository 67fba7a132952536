// SPDX-License-Identifier: MIT
/*
 * gpu_dmabuf.c - export CUDA device memory as a dma-buf for the kernel
 * backend (HELLOFPGA_PIN_DMABUF), through the optional driver-API entry
 * point cuMemGetHandleForAddressRange (CUDA 11.7 and later).
 *
 * Kept apart from gpu_cuda.c: it only needs the already loaded
 * libcuda.so.1 (looked up with RTLD_NOLOAD, never loaded from here) and the
 * context the pointer belongs to, which it pushes for the call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "gpu.h"
#include "gpu_dmabuf.h"
#include "hf_error.h"

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS				0
#define CU_POINTER_ATTRIBUTE_CONTEXT		1
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD	1

static struct {
	pthread_once_t once;
	CUresult (*get_handle)(void *handle, CUdeviceptr dptr, size_t size,
			       int type, unsigned long long flags);
	CUresult (*ptr_attr)(void *data, int attrib, CUdeviceptr ptr);
	CUresult (*push)(CUcontext ctx);
	CUresult (*pop)(CUcontext *ctx);
} dmabuf = { .once = PTHREAD_ONCE_INIT };

static void dmabuf_load(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *f[4];

	if (!lib)
		return;
	f[0] = dlsym(lib, "cuMemGetHandleForAddressRange");
	f[1] = dlsym(lib, "cuPointerGetAttribute");
	f[2] = dlsym(lib, "cuCtxPushCurrent_v2");
	f[3] = dlsym(lib, "cuCtxPopCurrent_v2");
	if (f[0] && f[1] && f[2] && f[3]) {
		/* POSIX: function pointers and void * convert both ways */
		memcpy(&dmabuf.get_handle, &f[0], sizeof(f[0]));
		memcpy(&dmabuf.ptr_attr, &f[1], sizeof(f[1]));
		memcpy(&dmabuf.push, &f[2], sizeof(f[2]));
		memcpy(&dmabuf.pop, &f[3], sizeof(f[3]));
	}
	/* libcuda.so.1 stays loaded by gpu_cuda.c; drop our reference */
	dlclose(lib);
}

int hf_gpu_dmabuf_export(const void *ptr, size_t size, int *fd,
			 uint64_t *offset)
{
	const struct hf_gpu *g = hf_gpu_get();
	CUdeviceptr d = (uintptr_t)ptr;
	CUcontext ctx = NULL, popped;
	CUresult r;
	int h = -1;

	if (!g || g->kind != HF_GPU_CUDA)
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "dma-buf export needs a real GPU through CUDA");
	if (!size || (d | size) & 4095)
		return hf_set_error(NULL, -EINVAL,
				    "dma-buf export of [%p, +0x%zx): not 4 KiB aligned",
				    ptr, size);
	pthread_once(&dmabuf.once, dmabuf_load);
	if (!dmabuf.get_handle)
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "libcuda.so.1 lacks cuMemGetHandleForAddressRange (CUDA 11.7 or newer needed for dma-buf export)");
	r = dmabuf.ptr_attr(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, d);
	if (r != CUDA_SUCCESS || !ctx)
		return hf_set_error(NULL, -EINVAL,
				    "%p is not CUDA device memory (cuPointerGetAttribute: CUresult %d)",
				    ptr, r);
	r = dmabuf.push(ctx);
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "cuCtxPushCurrent failed: CUresult %d", r);
	r = dmabuf.get_handle(&h, d, size, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
			      0);
	dmabuf.pop(&popped);
	if (r != CUDA_SUCCESS || h < 0)
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "cuMemGetHandleForAddressRange(%p, 0x%zx, DMA_BUF_FD) failed: CUresult %d (the GPU or its kernel driver may lack dma-buf support)",
				    ptr, size, r);
	*fd = h;
	*offset = 0;
	return 0;
}
