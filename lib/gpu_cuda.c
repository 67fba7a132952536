// SPDX-License-Identifier: MIT
/*
 * gpu_cuda.c - a real NVIDIA GPU through CUDA's driver API, loaded at run
 * time: libcuda.so.1 is dlopen()ed, nothing links against it, and the
 * library builds and runs where CUDA is absent.
 *
 * Entry points used exist since CUDA 9.1 (the versioned "_v2" names where
 * the driver API has them); newer ones are optional and looked up by name.
 * The few CUDA types and constants needed are declared here with the values
 * of NVIDIA's cuda.h (checked against CUDA 13.0's header); cuda.h itself is
 * never included.
 *
 * The library works in the primary context of one device: the device of
 * the detecting thread's current context, else device 0, or
 * HELLOFPGA_GPU_DEVICE=N.  Each call makes that context current for its
 * duration: set as the thread's context when the thread has none (as the
 * CUDA runtime does; the emulated card's engine threads so keep it), pushed
 * and popped again when the thread has another one current.
 *
 * Platforms: a desktop GPU (CU_DEVICE_ATTRIBUTE_INTEGRATED = 0) pins device
 * memory (cuMemAlloc / cudaMalloc) and copies with the copy engine; Tegra
 * (integrated) pins pinned host memory (cuMemAllocHost / cudaHostAlloc),
 * which the CPU reaches directly, so copies are memcpy().
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_internal.h"
#include "hf_error.h"
#include "hf_os.h"
#include "hf_number.h"

/* ---- the part of cuda.h this file needs (values as in cuda.h) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS				0
#define CUDA_ERROR_INVALID_VALUE		1
#define CUDA_ERROR_OUT_OF_MEMORY		2
#define CUDA_ERROR_NOT_INITIALIZED		3
#define CUDA_ERROR_DEINITIALIZED		4
#define CUDA_ERROR_STUB_LIBRARY			34
#define CUDA_ERROR_NO_DEVICE			100
#define CUDA_ERROR_INVALID_DEVICE		101
#define CUDA_ERROR_INVALID_CONTEXT		201
#define CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED 712
#define CUDA_ERROR_NOT_READY			600
#define CUDA_ERROR_NOT_SUPPORTED		801

#define CU_POINTER_ATTRIBUTE_CONTEXT		1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE	2
#define CU_POINTER_ATTRIBUTE_SYNC_MEMOPS	6
#define CU_POINTER_ATTRIBUTE_BUFFER_ID		7
#define CU_POINTER_ATTRIBUTE_IS_MANAGED		8
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL	9	/* optional */
/* RANGE_* since CUDA 10.x: optional, cuMemGetAddressRange otherwise */
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR	11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE		12

#define CU_MEMORYTYPE_HOST			1
#define CU_MEMORYTYPE_DEVICE			2

#define CU_DEVICE_ATTRIBUTE_INTEGRATED		18
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED 116	/* 11.x */
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED	124	/* 11.x */
#define CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 92
#define CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES 98

#define CU_STREAM_NON_BLOCKING			0x1
#define CU_STREAM_WAIT_VALUE_FLUSH		(1u << 30)
#define CU_STREAM_WRITE_VALUE_DEFAULT		0x0
#define CU_MEMHOSTREGISTER_DEVICEMAP		0x02

#define CU_MEMHOSTREGISTER_PORTABLE		0x01

#define CU_STREAM_LEGACY			((CUstream)0x1)
#define CU_STREAM_PER_THREAD			((CUstream)0x2)

#define CUDA_LIB	"libcuda.so.1"
#define DESKTOP_PAGE	(64u << 10)
#define TEGRA_PAGE	(4u << 10)
#define MAX_HOST_REGS	16

/* ---- the entry points ---- */
struct cu_api {
	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetAttribute)(int *value, int attrib, CUdevice dev);
	CUresult (*DeviceGetPCIBusId)(char *id, int len, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*CtxGetCurrent)(CUcontext *ctx);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxGetDevice)(CUdevice *dev);
	CUresult (*CtxPushCurrent)(CUcontext ctx);
	CUresult (*CtxPopCurrent)(CUcontext *ctx);
	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t size);
	CUresult (*MemFree)(CUdeviceptr dptr);
	CUresult (*MemAllocHost)(void **pp, size_t size);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemHostRegister)(void *p, size_t size, unsigned int flags);
	CUresult (*MemHostUnregister)(void *p);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t size);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t size);
	CUresult (*MemcpyHtoD_ptds)(CUdeviceptr dst, const void *src,
				    size_t size);
	CUresult (*MemcpyDtoH_ptds)(void *dst, CUdeviceptr src, size_t size);
	CUresult (*StreamSynchronize)(CUstream stream);
	CUresult (*MemGetAddressRange)(CUdeviceptr *base, size_t *size,
				       CUdeviceptr dptr);
	CUresult (*PointerGetAttribute)(void *data, int attrib,
					CUdeviceptr ptr);
	CUresult (*PointerSetAttribute)(const void *value, int attrib,
					CUdeviceptr ptr);
	/* optional */
	CUresult (*GetErrorName)(CUresult err, const char **name);
	/* optional: streams and stream memory operations (GPU-side waits) */
	CUresult (*StreamCreate)(CUstream *stream, unsigned int flags);
	CUresult (*StreamDestroy)(CUstream stream);
	CUresult (*StreamQuery)(CUstream stream);
	CUresult (*LaunchHostFunc)(CUstream stream, void (*fn)(void *arg),
				   void *arg);
	CUresult (*MemHostGetDevicePointer)(CUdeviceptr *dptr, void *p,
					    unsigned int flags);
	CUresult (*StreamWaitValue32)(CUstream stream, CUdeviceptr addr,
				      unsigned int value, unsigned int flags);
	CUresult (*StreamWriteValue32)(CUstream stream, CUdeviceptr addr,
				       unsigned int value, unsigned int flags);
	bool memops_v1;		/* only the v1 entry points (before 11.7) */
	CUresult (*GetErrorString)(CUresult err, const char **text);
};

/**
 * struct cu_alloc - memory from cu_alloc(), to be freed by cu_free().
 * @user: the address given out (GPU-page aligned)
 * @base: what cuMemAlloc / cuMemAllocHost returned
 */
struct cu_alloc {
	struct cu_alloc *next;
	uintptr_t user;
	uintptr_t base;
};

/* host memory registered by hf_gpu_register_host() (the emulated card's DDR) */
struct cu_host_reg {
	uintptr_t base;
	size_t size;
	bool ours;	/* registered by us (not "already registered") */
};

static struct {
	void *lib;
	struct cu_api api;
	CUdevice dev;
	int ordinal;
	CUcontext ctx;		/* retained primary context, kept */
	bool tegra;
	bool legacy_engine;	/* HELLOFPGA_CUDA_ENGINE_STREAM=legacy */
	CUstream copy_stream;	/* the stream of the engine copies */
	pthread_mutex_t lock;	/* protects allocs and regs */
	struct cu_alloc *allocs;
	struct cu_host_reg regs[MAX_HOST_REGS];
} cu = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

#define CU (&cu.api)

static const char *cu_name(CUresult r)
{
	static const struct {
		CUresult r;
		const char *name;
	} names[] = {
		{ CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE" },
		{ CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY" },
		{ CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED" },
		{ CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED" },
		{ CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY" },
		{ CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" },
		{ CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE" },
		{ CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT" },
		{ CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		  "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED" },
		{ CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED" },
	};
	const char *s = NULL;

	if (CU->GetErrorName && CU->GetErrorName(r, &s) == CUDA_SUCCESS && s)
		return s;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].r == r)
			return names[i].name;
	return "CUDA error";
}

/* "CUDA_ERROR_X (n)" for texts; thread-local, valid until the next call. */
static const char *cu_err(CUresult r)
{
	static _Thread_local char buf[96];

	snprintf(buf, sizeof(buf), "%s (%d)", cu_name(r), r);
	return buf;
}

static int cu_errno(CUresult r)
{
	switch (r) {
	case CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	case CUDA_ERROR_INVALID_VALUE:
		return -EINVAL;
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		return -ENODEV;
	case CUDA_ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

/* ---- the library's context in the calling thread ---- */

struct cu_scope {
	bool pushed;
};

/**
 * cu_enter() - make the library's primary context current in this thread.
 * @s: remembers whether it was pushed over another context
 *
 * Return: CUDA_SUCCESS or the CUDA error; cu_leave() must follow success.
 */
static CUresult cu_enter(struct cu_scope *s)
{
	CUcontext cur = NULL;
	CUresult r;

	s->pushed = false;
	r = CU->CtxGetCurrent(&cur);
	if (r != CUDA_SUCCESS)
		return r;
	if (cur == cu.ctx)
		return CUDA_SUCCESS;
	if (!cur)
		return CU->CtxSetCurrent(cu.ctx);
	r = CU->CtxPushCurrent(cu.ctx);
	s->pushed = r == CUDA_SUCCESS;
	return r;
}

static void cu_leave(struct cu_scope *s)
{
	CUcontext ctx;

	if (s->pushed)
		CU->CtxPopCurrent(&ctx);
}

/*
 * One pointer attribute into a zeroed 64-bit word: attributes are 4 bytes
 * (memory type, ordinal, booleans) or 8 (ids, addresses, sizes), and on a
 * little-endian CPU either reads back right.
 */
static CUresult cu_attr(int attrib, uintptr_t p, uint64_t *val)
{
	*val = 0;
	return CU->PointerGetAttribute(val, attrib, (CUdeviceptr)p);
}

/* ---- memory ---- */

/**
 * cu_alloc() - device memory (desktop) or pinned host memory (Tegra),
 * @size rounded up to the GPU page and the address aligned to it.
 *
 * cuMemAlloc returns 2 MiB-aligned memory for large sizes but may place a
 * small allocation at any 512-byte boundary; then the allocation is made
 * again one page larger and the address aligned up inside it (that one is
 * kept, aligned or not).
 */
static int cu_alloc(void **ptr, size_t size)
{
	size_t page = cu.tegra ? TEGRA_PAGE : DESKTOP_PAGE;
	struct cu_alloc *a;
	struct cu_scope s;
	uintptr_t base = 0;
	size_t len;
	CUresult r;

	if (size > SIZE_MAX - 2 * page)
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_Alloc: %zu bytes is too large",
				    size);
	a = calloc(1, sizeof(*a));
	if (!a)
		return hf_set_error(NULL, -ENOMEM,
				    "HelloFPGA_GPU_Alloc: out of memory");
	r = cu_enter(&s);
	if (r != CUDA_SUCCESS) {
		free(a);
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_Alloc: cannot make the CUDA context current: %s",
				    cu_err(r));
	}
	len = ALIGN(size, page);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (cu.tegra) {
			void *hp = NULL;

			r = CU->MemAllocHost(&hp, len);
			base = (uintptr_t)hp;
		} else {
			CUdeviceptr d = 0;

			r = CU->MemAlloc(&d, len);
			base = (uintptr_t)d;
		}
		/*
		 * The second attempt is one page larger: an aligned page range
		 * of @size fits in it wherever it lies, so it is kept (freeing
		 * it would hand out memory CUDA no longer knows).
		 */
		if (r != CUDA_SUCCESS || IS_ALIGNED(base, (uintptr_t)page) ||
		    attempt == 1)
			break;
		if (cu.tegra)
			CU->MemFreeHost((void *)base);
		else
			CU->MemFree((CUdeviceptr)base);
		len += page;
	}
	cu_leave(&s);
	if (r != CUDA_SUCCESS) {
		free(a);
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_Alloc: %s(%zu) failed: %s",
				    cu.tegra ? "cuMemAllocHost" : "cuMemAlloc",
				    len, cu_err(r));
	}
	a->base = base;
	a->user = ALIGN(base, (uintptr_t)page);
	pthread_mutex_lock(&cu.lock);
	a->next = cu.allocs;
	cu.allocs = a;
	pthread_mutex_unlock(&cu.lock);
	*ptr = (void *)a->user;
	return 0;
}

static int cu_free(void *ptr)
{
	struct cu_alloc *a, **link;
	struct cu_scope s;
	CUresult r;

	pthread_mutex_lock(&cu.lock);
	for (link = &cu.allocs; *link; link = &(*link)->next)
		if ((*link)->user == (uintptr_t)ptr)
			break;
	a = *link;
	if (a)
		*link = a->next;
	pthread_mutex_unlock(&cu.lock);
	if (!a)
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_Free: %p is not memory from HelloFPGA_GPU_Alloc (or was freed already); free cudaMalloc memory with cudaFree",
				    ptr);
	r = cu_enter(&s);
	if (r == CUDA_SUCCESS) {
		if (cu.tegra)
			r = CU->MemFreeHost((void *)a->base);
		else
			r = CU->MemFree((CUdeviceptr)a->base);
		cu_leave(&s);
	}
	free(a);
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_Free(%p): %s failed: %s", ptr,
				    cu.tegra ? "cuMemFreeHost" : "cuMemFree",
				    cu_err(r));
	return 0;
}

/* The memory type of @p, 0 when CUDA does not know it or it is managed. */
static unsigned int cu_memtype(uintptr_t p)
{
	uint64_t mt, managed;

	if (cu_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p, &mt) != CUDA_SUCCESS)
		return 0;
	if (cu_attr(CU_POINTER_ATTRIBUTE_IS_MANAGED, p, &managed) ==
	    CUDA_SUCCESS && managed)
		return 0;
	return (unsigned int)mt;
}

/*
 * A copy through the copy engine.  @engine: the emulated card's engine
 * threads (per-thread default stream, so channels copy in parallel and
 * do not wait for the application's streams); else the legacy default
 * stream, with cudaMemcpy's semantics.
 */
static CUresult cu_copy(bool to_gpu, void *dst, const void *src, size_t size,
			bool engine)
{
	bool ptds = engine && !cu.legacy_engine && CU->MemcpyHtoD_ptds &&
		    CU->MemcpyDtoH_ptds;

	if (to_gpu)
		return (ptds ? CU->MemcpyHtoD_ptds : CU->MemcpyHtoD)
			((CUdeviceptr)(uintptr_t)dst, src, size);
	return (ptds ? CU->MemcpyDtoH_ptds : CU->MemcpyDtoH)
		(dst, (CUdeviceptr)(uintptr_t)src, size);
}

static int cu_memcpy(void *dst, const void *src, size_t size, int kind)
{
	bool to_gpu = kind == HELLOFPGA_MEMCPY_HOST_TO_GPU;
	uintptr_t g = (uintptr_t)(to_gpu ? dst : src);
	struct cu_scope s;
	CUresult r;

	r = cu_enter(&s);
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_Memcpy: cannot make the CUDA context current: %s",
				    cu_err(r));
	if (cu.tegra && cu_memtype(g) == CU_MEMORYTYPE_HOST) {
		cu_leave(&s);
		memcpy(dst, src, size);
		return 0;
	}
	r = cu_copy(to_gpu, dst, src, size, false);
	cu_leave(&s);
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_Memcpy: %s(%p, %p, %zu) failed: %s",
				    to_gpu ? "cuMemcpyHtoD" : "cuMemcpyDtoH",
				    dst, src, size, cu_err(r));
	return 0;
}

/* The text for a failed query: what the platform needs. */
static const char *cu_need(void)
{
	return cu.tegra ?
	       "GPU Direct on Tegra needs pinned host memory (cudaHostAlloc)" :
	       "GPU Direct on a desktop GPU needs device memory (cudaMalloc)";
}

/**
 * cu_range() - the allocation holding @p: CU_POINTER_ATTRIBUTE_RANGE_* when
 * the driver knows them, else cuMemGetAddressRange().
 * Return: CUDA_SUCCESS, or the error of the last attempt.
 */
static CUresult cu_range(uintptr_t p, uintptr_t *base, size_t *size)
{
	uint64_t b, sz;
	CUdeviceptr db = 0;
	size_t dsz = 0;
	CUresult r;

	if (cu_attr(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p, &b) ==
	    CUDA_SUCCESS &&
	    cu_attr(CU_POINTER_ATTRIBUTE_RANGE_SIZE, p, &sz) == CUDA_SUCCESS &&
	    sz) {
		*base = (uintptr_t)b;
		*size = (size_t)sz;
		return CUDA_SUCCESS;
	}
	r = CU->MemGetAddressRange(&db, &dsz, (CUdeviceptr)p);
	if (r == CUDA_SUCCESS) {
		*base = (uintptr_t)db;
		*size = dsz;
	}
	return r;
}

/**
 * cu_query() - validate [@ptr, @ptr + @size) for pinning.
 *
 * Desktop: device memory (not managed) of the library's device; Tegra:
 * pinned host memory.  The range must lie inside one allocation: found
 * from the allocation range, or, if the driver can tell neither
 * attribute nor address range, from the buffer ids of its first and last
 * byte.
 */
static int cu_query(const void *ptr, size_t size, struct hf_gpu_buf *buf,
		    char *why, size_t whylen)
{
	uintptr_t p = (uintptr_t)ptr, last = p + size - 1, base;
	uint64_t mt, managed, ord, id, id_last;
	struct cu_scope s;
	size_t asize;
	int ret = -EINVAL;
	CUresult r;

	r = cu_enter(&s);
	if (r != CUDA_SUCCESS) {
		snprintf(why, whylen,
			 "cannot make the CUDA context current: %s",
			 cu_err(r));
		return cu_errno(r);
	}
	r = cu_attr(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p, &mt);
	if (r != CUDA_SUCCESS) {
		snprintf(why, whylen,
			 "%p is not GPU memory (CUDA does not know it: %s); %s",
			 ptr, cu_err(r), cu_need());
		goto out;
	}
	if (cu_attr(CU_POINTER_ATTRIBUTE_IS_MANAGED, p, &managed) ==
	    CUDA_SUCCESS && managed) {
		snprintf(why, whylen,
			 "%p is managed memory (cudaMallocManaged): %s", ptr,
			 cu_need());
		goto out;
	}
	if (!cu.tegra && mt == CU_MEMORYTYPE_HOST) {
		snprintf(why, whylen,
			 "%p is host memory: GPU Direct on a desktop GPU needs device memory (cudaMalloc)",
			 ptr);
		goto out;
	}
	if (cu.tegra && mt == CU_MEMORYTYPE_DEVICE) {
		snprintf(why, whylen,
			 "%p is device memory: GPU Direct on Tegra needs pinned host memory (cudaHostAlloc)",
			 ptr);
		goto out;
	}
	if (mt != (cu.tegra ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE)) {
		snprintf(why, whylen, "%p has CUDA memory type %llu: %s", ptr,
			 (unsigned long long)mt, cu_need());
		goto out;
	}
	if (!cu.tegra &&
	    cu_attr(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p, &ord) ==
	    CUDA_SUCCESS && (int)ord != cu.ordinal) {
		snprintf(why, whylen,
			 "%p is memory of CUDA device %d; the library uses device %d (HELLOFPGA_GPU_DEVICE selects it)",
			 ptr, (int)ord, cu.ordinal);
		goto out;
	}
	r = cu_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, p, &id);
	if (r != CUDA_SUCCESS) {
		snprintf(why, whylen, "%p: no CUDA buffer id: %s", ptr,
			 cu_err(r));
		goto out;
	}
	if (cu_range(p, &base, &asize) == CUDA_SUCCESS) {
		if (size > asize - (p - base)) {
			bool other = cu_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID,
					     last, &id_last) == CUDA_SUCCESS;

			if (other)
				snprintf(why, whylen,
					 "[%p, +%zu) crosses from the GPU allocation at %#lx (%zu bytes) into another one: a buffer must lie inside one allocation",
					 ptr, size, (unsigned long)base, asize);
			else
				snprintf(why, whylen,
					 "[%p, +%zu) runs %zu bytes past the end of the GPU allocation at %#lx (%zu bytes)",
					 ptr, size,
					 (size_t)(p + size - (base + asize)),
					 (unsigned long)base, asize);
			goto out;
		}
	} else {
		r = cu_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, last, &id_last);
		if (r != CUDA_SUCCESS || id_last != id) {
			snprintf(why, whylen,
				 "[%p, +%zu) does not lie inside one GPU allocation",
				 ptr, size);
			goto out;
		}
		base = p;
		asize = size;
	}
	buf->alloc_base = base;
	buf->alloc_size = asize;
	buf->buffer_id = id;
	buf->device_memory = !cu.tegra;
	ret = 0;
out:
	cu_leave(&s);
	return ret;
}

static int cu_set_sync_memops(const void *ptr)
{
	unsigned int one = 1;
	struct cu_scope s;
	CUresult r;

	if (cu.tegra)
		return 0;	/* host memory, coherent for CPU and GPU */
	r = cu_enter(&s);
	if (r == CUDA_SUCCESS) {
		r = CU->PointerSetAttribute(&one,
					    CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
					    (CUdeviceptr)(uintptr_t)ptr);
		cu_leave(&s);
	}
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "cuPointerSetAttribute(SYNC_MEMOPS, %p) failed: %s",
				    ptr, cu_err(r));
	return 0;
}

static int cu_buffer_id(const void *ptr, uint64_t *id)
{
	struct cu_scope s;
	CUresult r;

	r = cu_enter(&s);
	if (r == CUDA_SUCCESS) {
		r = cu_attr(CU_POINTER_ATTRIBUTE_BUFFER_ID, (uintptr_t)ptr, id);
		cu_leave(&s);
	}
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, -ENXIO,
				    "GPU memory at %p was freed (CUDA no longer knows it: %s)",
				    ptr, cu_err(r));
	return 0;
}

static long cu_watch(const void *ptr, hf_gpu_revoke_fn fn, void *arg)
{
	return hf_set_error(NULL, -EOPNOTSUPP,
			    "GPU free watch: a real GPU gives user space no free callback; check the buffer id (hf_gpu_check) before each transfer");
}

static void cu_unwatch(long id)
{
}

/* Is [p, p + size) inside host memory registered for copies?  No lock held. */
static bool cu_registered(uintptr_t p, size_t size)
{
	bool found = false;

	pthread_mutex_lock(&cu.lock);
	for (int i = 0; i < MAX_HOST_REGS && !found; i++) {
		const struct cu_host_reg *g = &cu.regs[i];

		found = g->size && p >= g->base && p - g->base < g->size &&
			size <= g->size - (p - g->base);
	}
	pthread_mutex_unlock(&cu.lock);
	return found;
}

/**
 * cu_engine_copy() - a copy for the emulated card's engine: synchronous,
 * the data is in place when it returns.
 *
 * A host-to-device copy from pinned (registered) memory is synchronous; one
 * from pageable memory may return before its DMA has finished, so then the
 * stream is synchronised too.  Device-to-host copies are always complete
 * on return.  On Tegra GPU memory is host memory: memcpy().
 */
static int cu_engine_copy(bool to_gpu, void *dst, const void *src,
			  size_t size)
{
	const void *host = to_gpu ? src : dst;
	struct cu_scope s;
	CUresult r;

	if (cu.tegra) {
		memcpy(dst, src, size);
		return 0;
	}
	r = cu_enter(&s);
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, -EIO,
				    "GPU copy: cannot make the CUDA context current: %s",
				    cu_err(r));
	r = cu_copy(to_gpu, dst, src, size, true);
	if (r == CUDA_SUCCESS && to_gpu &&
	    !cu_registered((uintptr_t)host, size))
		r = CU->StreamSynchronize(cu.copy_stream);
	cu_leave(&s);
	if (r == CUDA_SUCCESS)
		return 0;
	return hf_set_error(NULL,
			    r == CUDA_ERROR_INVALID_VALUE ? -EFAULT : -EIO,
			    "GPU copy: %s(%p, %p, %zu) failed: %s",
			    to_gpu ? "cuMemcpyHtoD" : "cuMemcpyDtoH", dst, src,
			    size, cu_err(r));
}

static int cu_copy_to_gpu(void *gpu_dst, const void *host_src, size_t size)
{
	return cu_engine_copy(true, gpu_dst, host_src, size);
}

static int cu_copy_from_gpu(void *host_dst, const void *gpu_src, size_t size)
{
	return cu_engine_copy(false, host_dst, gpu_src, size);
}

/**
 * cu_register_host() - page-lock host memory the copy engine reads and
 * writes (cuMemHostRegister, PORTABLE), so engine copies are direct DMA.
 * Memory already registered (by the application) counts as success and is
 * left registered by cu_unregister_host().
 */
static int cu_register_host(void *ptr, size_t size)
{
	struct cu_scope s;
	bool ours;
	CUresult r;

	if (cu.tegra)
		return 0;	/* copies are memcpy() */
	r = cu_enter(&s);
	if (r == CUDA_SUCCESS) {
		r = CU->MemHostRegister(ptr, size, CU_MEMHOSTREGISTER_PORTABLE);
		cu_leave(&s);
	}
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
		return hf_set_error(NULL, cu_errno(r),
				    "cuMemHostRegister(%p, %zu) failed: %s", ptr,
				    size, cu_err(r));
	ours = r == CUDA_SUCCESS;
	pthread_mutex_lock(&cu.lock);
	for (int i = 0; i < MAX_HOST_REGS; i++)
		if (!cu.regs[i].size) {
			cu.regs[i].base = (uintptr_t)ptr;
			cu.regs[i].size = size;
			cu.regs[i].ours = ours;
			ours = false;
			break;
		}
	pthread_mutex_unlock(&cu.lock);
	if (ours && cu_enter(&s) == CUDA_SUCCESS) {
		/* no slot left: do not keep what the table cannot track */
		CU->MemHostUnregister(ptr);
		cu_leave(&s);
		return hf_set_error(NULL, -ENOSPC,
				    "cuMemHostRegister: more than %d host ranges registered",
				    MAX_HOST_REGS);
	}
	return 0;
}

static void cu_unregister_host(void *ptr)
{
	struct cu_scope s;
	bool ours = false, found = false;
	CUresult r;

	pthread_mutex_lock(&cu.lock);
	for (int i = 0; i < MAX_HOST_REGS; i++)
		if (cu.regs[i].size && cu.regs[i].base == (uintptr_t)ptr) {
			ours = cu.regs[i].ours;
			cu.regs[i].size = 0;
			found = true;
			break;
		}
	pthread_mutex_unlock(&cu.lock);
	if (!found || !ours)
		return;
	if (cu_enter(&s) != CUDA_SUCCESS)
		return;
	r = CU->MemHostUnregister(ptr);
	cu_leave(&s);
	if (r != CUDA_SUCCESS)
		hf_os_log("gpu: cuMemHostUnregister(%p) failed: %s", ptr,
			  cu_err(r));
}

static bool cu_is_device_ptr(const void *ptr)
{
	struct cu_scope s;
	unsigned int mt;

	if (cu_enter(&s) != CUDA_SUCCESS)
		return false;
	mt = cu_memtype((uintptr_t)ptr);
	cu_leave(&s);
	return mt == CU_MEMORYTYPE_DEVICE;
}

/* ---- streams and stream memory operations (GPU-side waits) ---- */

static int cu_dev_attr(int attrib);

/* A CUDA call in the library's context; the CUDA result. */
#define CU_CALL(expr) ({					\
	struct cu_scope _s;					\
	CUresult _r = cu_enter(&_s);				\
	if (_r == CUDA_SUCCESS) {				\
		_r = (expr);					\
		cu_leave(&_s);					\
	}							\
	_r;							\
})

static int cu_missing(const char *fn, const char *what)
{
	return hf_set_error(NULL, -EOPNOTSUPP,
			    "%s: " CUDA_LIB " has no %s: the NVIDIA driver is too old",
			    fn, what);
}

static int cu_stream_create(void **stream)
{
	CUstream st = NULL;
	CUresult r;

	if (!CU->StreamCreate)
		return cu_missing("HelloFPGA_GPU_StreamCreate", "cuStreamCreate");
	r = CU_CALL(CU->StreamCreate(&st, CU_STREAM_NON_BLOCKING));
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_StreamCreate: cuStreamCreate failed: %s",
				    cu_err(r));
	*stream = st;
	return 0;
}

static int cu_stream_destroy(void *stream)
{
	CUresult r;

	if (!CU->StreamDestroy)
		return cu_missing("HelloFPGA_GPU_StreamDestroy",
				  "cuStreamDestroy_v2");
	if (!stream)
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_StreamDestroy: the default stream (NULL) cannot be destroyed");
	r = CU_CALL(CU->StreamDestroy((CUstream)stream));
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_StreamDestroy: cuStreamDestroy failed: %s",
				    cu_err(r));
	return 0;
}

/* cuStreamQuery until the stream is idle or @timeout_ms passed. */
static int cu_stream_sync(void *stream, int timeout_ms)
{
	struct timespec t0, now, nap = { 0, 20000 };
	CUresult r;

	if (!CU->StreamQuery)
		return cu_missing("HelloFPGA_GPU_StreamSynchronize",
				  "cuStreamQuery");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = CU_CALL(CU->StreamQuery((CUstream)stream));
		if (r != CUDA_ERROR_NOT_READY)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (timeout_ms >= 0 &&
		    (now.tv_sec - t0.tv_sec) * 1000 +
		    (now.tv_nsec - t0.tv_nsec) / 1000000 >= timeout_ms)
			return hf_set_error(NULL, -ETIMEDOUT,
					    "HelloFPGA_GPU_StreamSynchronize: the stream's work did not finish within %d ms",
					    timeout_ms);
		nanosleep(&nap, NULL);
	}
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_StreamSynchronize: cuStreamQuery failed: %s",
				    cu_err(r));
	return 0;
}

static int cu_host_func(void *stream, void (*fn)(void *arg), void *arg)
{
	CUresult r;

	if (!CU->LaunchHostFunc)
		return cu_missing("HelloFPGA_GPU_LaunchHostFunc",
				  "cuLaunchHostFunc (CUDA 10.0)");
	r = CU_CALL(CU->LaunchHostFunc((CUstream)stream, fn, arg));
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "HelloFPGA_GPU_LaunchHostFunc: cuLaunchHostFunc failed: %s",
				    cu_err(r));
	return 0;
}

/*
 * Stream memory operations: the _v2 entry points (CUDA 11.7 on) work on
 * every device of a driver that has them; the v1 ones only where the
 * device reports CAN_USE_STREAM_MEM_OPS_V1 (a driver option before 11.7).
 */
static int cu_memops(bool *can_flush, const char *fn)
{
	if (!CU->StreamWaitValue32 || !CU->StreamWriteValue32)
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "%s: " CUDA_LIB " has no stream memory operations (cuStreamWaitValue32_v2, CUDA 11.7 or newer): wait on the CPU and launch after it",
				    fn);
	if (CU->memops_v1 &&
	    cu_dev_attr(CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1) != 1)
		return hf_set_error(NULL, -EOPNOTSUPP,
				    "%s: device %d does not allow stream memory operations (CAN_USE_STREAM_MEM_OPS = 0; before CUDA 11.7 the NVIDIA driver enables them with NVreg_EnableStreamMemOPs=1)",
				    fn, cu.ordinal);
	*can_flush = cu_dev_attr(CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES) == 1;
	return 0;
}

/* Register the page-aligned host range for the device (kept registered). */
static int cu_map_host(void *ptr, size_t size, uint64_t *dev, const char *fn)
{
	CUdeviceptr d = 0;
	CUresult r;

	if (!CU->MemHostGetDevicePointer)
		return cu_missing(fn, "cuMemHostGetDevicePointer_v2");
	r = CU_CALL(CU->MemHostRegister(ptr, size, CU_MEMHOSTREGISTER_PORTABLE |
					CU_MEMHOSTREGISTER_DEVICEMAP));
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
		return hf_set_error(NULL, cu_errno(r),
				    "%s: cuMemHostRegister(%p, %zu, DEVICEMAP) of the writeback slots failed: %s",
				    fn, ptr, size, cu_err(r));
	r = CU_CALL(CU->MemHostGetDevicePointer(&d, ptr, 0));
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, cu_errno(r),
				    "%s: cuMemHostGetDevicePointer(%p) failed: %s",
				    fn, ptr, cu_err(r));
	*dev = d;
	return 0;
}

static int cu_wait32(void *stream, uint64_t dev, uint32_t value,
		     unsigned int cmp, bool flush, const char *fn)
{
	unsigned int flags = cmp | (flush ? CU_STREAM_WAIT_VALUE_FLUSH : 0);
	CUresult r;

	r = CU_CALL(CU->StreamWaitValue32((CUstream)stream, (CUdeviceptr)dev,
					  value, flags));
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, r == CUDA_ERROR_NOT_SUPPORTED ?
				    -EOPNOTSUPP : cu_errno(r),
				    "%s: cuStreamWaitValue32(stream %p, 0x%llx, 0x%x, flags 0x%x) failed: %s",
				    fn, stream, (unsigned long long)dev, value,
				    flags, cu_err(r));
	return 0;
}

static int cu_write32(void *stream, uint64_t dev, uint32_t value,
		      const char *fn)
{
	CUresult r;

	r = CU_CALL(CU->StreamWriteValue32((CUstream)stream, (CUdeviceptr)dev,
					   value,
					   CU_STREAM_WRITE_VALUE_DEFAULT));
	if (r != CUDA_SUCCESS)
		return hf_set_error(NULL, r == CUDA_ERROR_NOT_SUPPORTED ?
				    -EOPNOTSUPP : cu_errno(r),
				    "%s: cuStreamWriteValue32(stream %p, 0x%llx, 0x%x) failed: %s",
				    fn, stream, (unsigned long long)dev, value,
				    cu_err(r));
	return 0;
}

static const struct hf_gpu_ops cu_ops = {
	.alloc = cu_alloc,
	.free = cu_free,
	.memcpy = cu_memcpy,
	.query = cu_query,
	.set_sync_memops = cu_set_sync_memops,
	.buffer_id = cu_buffer_id,
	.watch = cu_watch,
	.unwatch = cu_unwatch,
	.copy_to_gpu = cu_copy_to_gpu,
	.copy_from_gpu = cu_copy_from_gpu,
	.register_host = cu_register_host,
	.unregister_host = cu_unregister_host,
	.is_device_ptr = cu_is_device_ptr,
	.stream_create = cu_stream_create,
	.stream_destroy = cu_stream_destroy,
	.stream_sync = cu_stream_sync,
	.host_func = cu_host_func,
	.memops = cu_memops,
	.map_host = cu_map_host,
	.wait32 = cu_wait32,
	.write32 = cu_write32,
};

/* ---- loading and detection ---- */

static int cu_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name, *slash;

	if (!name)
		return 0;
	slash = strrchr(name, '/');
	return !strncmp(slash ? slash + 1 : name, "libcuda.so", 10);
}

/*
 * Walks the loaded objects in memory (about a microsecond); a dlopen()
 * with RTLD_NOLOAD would search the library path on disk (tens of
 * microseconds), too slow for every CPU-path transfer.
 */
bool hf_cuda_in_process(void)
{
	return dl_iterate_phdr(cu_phdr_cb, NULL) != 0;
}

/* dlsym of @name, else of @alt (an older name; may be NULL). */
static void *cu_sym(const char *name, const char *alt)
{
	void *f = dlsym(cu.lib, name);

	if (!f && alt)
		f = dlsym(cu.lib, alt);
	return f;
}

/**
 * cu_load() - dlopen libcuda.so.1 and look up the entry points.
 * Return: 0, or -ENOENT (no library), -ENOSYS (an entry point missing),
 * with @reason filled.
 */
static int cu_load(char *reason, size_t reasonlen)
{
	static const struct {
		size_t off;
		bool optional;
		const char *name;
		const char *alt;
	} syms[] = {
#define S(field, opt, nm) { offsetof(struct cu_api, field), opt, nm, NULL }
#define S2(field, opt, nm, alt) { offsetof(struct cu_api, field), opt, nm, alt }
		S(Init, false, "cuInit"),
		S(DriverGetVersion, false, "cuDriverGetVersion"),
		S(DeviceGetCount, false, "cuDeviceGetCount"),
		S(DeviceGet, false, "cuDeviceGet"),
		S(DeviceGetName, false, "cuDeviceGetName"),
		S(DeviceGetAttribute, false, "cuDeviceGetAttribute"),
		S(DeviceGetPCIBusId, false, "cuDeviceGetPCIBusId"),
		S(DevicePrimaryCtxRetain, false, "cuDevicePrimaryCtxRetain"),
		S(CtxGetCurrent, false, "cuCtxGetCurrent"),
		S(CtxSetCurrent, false, "cuCtxSetCurrent"),
		S(CtxGetDevice, false, "cuCtxGetDevice"),
		S(CtxPushCurrent, false, "cuCtxPushCurrent_v2"),
		S(CtxPopCurrent, false, "cuCtxPopCurrent_v2"),
		S(MemAlloc, false, "cuMemAlloc_v2"),
		S(MemFree, false, "cuMemFree_v2"),
		S(MemAllocHost, false, "cuMemAllocHost_v2"),
		S(MemFreeHost, false, "cuMemFreeHost"),
		S2(MemHostRegister, false, "cuMemHostRegister_v2",
		   "cuMemHostRegister"),
		S(MemHostUnregister, false, "cuMemHostUnregister"),
		S(MemcpyHtoD, false, "cuMemcpyHtoD_v2"),
		S(MemcpyDtoH, false, "cuMemcpyDtoH_v2"),
		S(MemcpyHtoD_ptds, true, "cuMemcpyHtoD_v2_ptds"),
		S(MemcpyDtoH_ptds, true, "cuMemcpyDtoH_v2_ptds"),
		S(StreamSynchronize, false, "cuStreamSynchronize"),
		S(MemGetAddressRange, false, "cuMemGetAddressRange_v2"),
		S(PointerGetAttribute, false, "cuPointerGetAttribute"),
		S(PointerSetAttribute, false, "cuPointerSetAttribute"),
		S(GetErrorName, true, "cuGetErrorName"),
		S(StreamCreate, true, "cuStreamCreate"),
		S(StreamDestroy, true, "cuStreamDestroy_v2"),
		S(StreamQuery, true, "cuStreamQuery"),
		S(LaunchHostFunc, true, "cuLaunchHostFunc"),
		S(MemHostGetDevicePointer, true, "cuMemHostGetDevicePointer_v2"),
		S(StreamWaitValue32, true, "cuStreamWaitValue32_v2"),
		S(StreamWriteValue32, true, "cuStreamWriteValue32_v2"),
		S(GetErrorString, true, "cuGetErrorString"),
#undef S
#undef S2
	};
	const char *e;

	cu.lib = dlopen(CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		e = dlerror();
		snprintf(reason, reasonlen, CUDA_LIB " not found (%.120s)",
			 e ? e : "dlopen failed");
		return -ENOENT;
	}
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		void *f = cu_sym(syms[i].name, syms[i].alt);

		if (!f && !syms[i].optional) {
			snprintf(reason, reasonlen,
				 CUDA_LIB " lacks %s: the NVIDIA driver is too old (CUDA 9.1 or newer needed)",
				 syms[i].name);
			dlclose(cu.lib);
			cu.lib = NULL;
			memset(&cu.api, 0, sizeof(cu.api));
			return -ENOSYS;
		}
		/* POSIX: function pointers and void * convert both ways */
		memcpy((char *)&cu.api + syms[i].off, &f, sizeof(f));
	}
	if (!CU->StreamWaitValue32 || !CU->StreamWriteValue32) {
		/* drivers before CUDA 11.7: the v1 names, if enabled */
		void *w = cu_sym("cuStreamWaitValue32", NULL);
		void *v = cu_sym("cuStreamWriteValue32", NULL);

		if (w && v) {
			memcpy(&cu.api.StreamWaitValue32, &w, sizeof(w));
			memcpy(&cu.api.StreamWriteValue32, &v, sizeof(v));
			cu.api.memops_v1 = true;
		} else {
			cu.api.StreamWaitValue32 = NULL;
			cu.api.StreamWriteValue32 = NULL;
		}
	}
	return 0;
}

/* A device attribute, -1 when the driver does not know it. */
static int cu_dev_attr(int attrib)
{
	int v = -1;

	if (CU->DeviceGetAttribute(&v, attrib, cu.dev) != CUDA_SUCCESS)
		return -1;
	return v;
}

/**
 * cu_pick_device() - HELLOFPGA_GPU_DEVICE, else the device of the calling
 * thread's current context, else device 0.
 */
static int cu_pick_device(int count, char *reason, size_t reasonlen)
{
	const char *env = getenv("HELLOFPGA_GPU_DEVICE");
	CUcontext cur = NULL;
	CUdevice dev;
	CUresult r;
	uint64_t n;

	if (env && *env) {
		/* a number of the one grammar (README.md, "Numbers") */
		if (hf_parse_number(env, 0, INT_MAX, &n) || n >= (uint64_t)count) {
			snprintf(reason, reasonlen,
				 "HELLOFPGA_GPU_DEVICE=%.32s: not a device ordinal 0..%d",
				 env, count - 1);
			return -EINVAL;
		}
		cu.ordinal = (int)n;
	} else if (CU->CtxGetCurrent(&cur) == CUDA_SUCCESS && cur &&
		   CU->CtxGetDevice(&dev) == CUDA_SUCCESS) {
		cu.ordinal = dev;	/* a CUdevice is its ordinal */
	} else {
		cu.ordinal = 0;
	}
	r = CU->DeviceGet(&cu.dev, cu.ordinal);
	if (r != CUDA_SUCCESS) {
		snprintf(reason, reasonlen, "cuDeviceGet(%d) failed: %s",
			 cu.ordinal, cu_err(r));
		return cu_errno(r);
	}
	return 0;
}

/**
 * hf_cuda_init() - load CUDA and describe its GPU in @g.
 * @g: filled on success
 * @absent: set when CUDA is not there (library missing, cuInit failing,
 *	no device): "auto" then takes the emulated GPU
 * @reason: why not, on failure
 * @reasonlen: size of @reason
 *
 * Return: the ops, or NULL.  After cuInit() the library stays loaded for
 * the life of the process (the driver has threads in it).
 */
const struct hf_gpu_ops *hf_cuda_init(struct hf_gpu *g, bool *absent,
				      char *reason, size_t reasonlen)
{
	HELLOFPGA_GPU_STATUS *s = &g->status;
	int version = 0, count = 0, integrated;
	const char *env;
	CUresult r;
	int ret;

	*absent = false;
	ret = cu_load(reason, reasonlen);
	if (ret) {
		*absent = ret == -ENOENT;
		return NULL;
	}
	CU->DriverGetVersion(&version);
	r = CU->Init(0);
	if (r != CUDA_SUCCESS) {
		snprintf(reason, reasonlen, "cuInit failed: %s", cu_err(r));
		*absent = true;
		return NULL;
	}
	r = CU->DeviceGetCount(&count);
	if (r != CUDA_SUCCESS || count < 1) {
		if (r != CUDA_SUCCESS)
			snprintf(reason, reasonlen,
				 "cuDeviceGetCount failed: %s", cu_err(r));
		else
			snprintf(reason, reasonlen, "no CUDA device");
		*absent = true;
		return NULL;
	}
	if (cu_pick_device(count, reason, reasonlen))
		return NULL;
	r = CU->DevicePrimaryCtxRetain(&cu.ctx, cu.dev);
	if (r != CUDA_SUCCESS) {
		snprintf(reason, reasonlen,
			 "cuDevicePrimaryCtxRetain(device %d) failed: %s",
			 cu.ordinal, cu_err(r));
		return NULL;
	}
	integrated = cu_dev_attr(CU_DEVICE_ATTRIBUTE_INTEGRATED);
	cu.tegra = integrated > 0;
	/*
	 * Engine copies go to the per-thread default stream, so channels copy
	 * in parallel; HELLOFPGA_CUDA_ENGINE_STREAM=legacy puts them on the
	 * legacy default stream instead (for measurements).
	 */
	env = getenv("HELLOFPGA_CUDA_ENGINE_STREAM");
	cu.legacy_engine = env && !strcmp(env, "legacy");
	cu.copy_stream = !cu.legacy_engine && CU->MemcpyHtoD_ptds &&
			 CU->MemcpyDtoH_ptds ? CU_STREAM_PER_THREAD :
					       CU_STREAM_LEGACY;

	memset(g, 0, sizeof(*g));
	g->kind = HF_GPU_CUDA;
	s->platform = cu.tegra ? HELLOFPGA_PLATFORM_TEGRA :
				 HELLOFPGA_PLATFORM_DESKTOP;
	s->emulated = 0;
	s->device = cu.ordinal;
	if (CU->DeviceGetName(s->name, sizeof(s->name), cu.dev) != CUDA_SUCCESS)
		snprintf(s->name, sizeof(s->name), "CUDA device %d",
			 cu.ordinal);
	s->name[sizeof(s->name) - 1] = '\0';
	if (CU->DeviceGetPCIBusId(s->pci_bus_id, sizeof(s->pci_bus_id),
				  cu.dev) != CUDA_SUCCESS)
		s->pci_bus_id[0] = '\0';
	s->pci_bus_id[sizeof(s->pci_bus_id) - 1] = '\0';
	s->cuda_driver_version = version;
	s->rdma_supported =
		cu_dev_attr(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
	s->dmabuf_supported =
		cu_dev_attr(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
	s->page_size = cu.tegra ? TEGRA_PAGE : DESKTOP_PAGE;
	/*
	 * Tegra pins host memory (nvidia-p2p on L4T), whatever the RDMA
	 * attribute says; a desktop GPU needs GPUDirect RDMA (attribute
	 * unknown = a driver older than the attribute: assume it).
	 */
	s->supported = cu.tegra || s->rdma_supported != 0;
	if (!s->supported)
		snprintf(s->reason, sizeof(s->reason),
			 "%s reports GPU_DIRECT_RDMA_SUPPORTED = 0: no GPUDirect RDMA on this GPU or driver",
			 s->name);
	return &cu_ops;
}
