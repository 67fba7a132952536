// SPDX-License-Identifier: MIT
/*
 * gpu.c - the GPU layer's front: detects the process's GPU once
 * (HELLOFPGA_GPU=auto|cuda|emu|emu-tegra|none), dispatches lib/gpu.h to the
 * chosen implementation (gpu_cuda.c or gpu_emu.c) and implements the public
 * HelloFPGA_GetGPUStatus() and HelloFPGA_GPU_Alloc/Free/Memcpy().
 *
 * Detection runs once per process (pthread_once) on the first call that
 * needs the GPU; what it found never changes afterwards, so the ops table
 * and the status are read without locks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"
#include "hf_dev.h"
#include "hf_error.h"

static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;
static struct hf_gpu gpu;
static const struct hf_gpu_ops *gpu_ops;	/* NULL when kind is NONE */
static int gpu_ready;			/* atomic: detection done */

static void gpu_none(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* No GPU: platform NONE, supported 0, @fmt the reason. */
static void gpu_none(const char *fmt, ...)
{
	va_list ap;

	memset(&gpu, 0, sizeof(gpu));
	gpu.kind = HF_GPU_NONE;
	gpu.status.platform = HELLOFPGA_PLATFORM_NONE;
	gpu.status.rdma_supported = -1;
	gpu.status.dmabuf_supported = -1;
	va_start(ap, fmt);
	vsnprintf(gpu.status.reason, sizeof(gpu.status.reason), fmt, ap);
	va_end(ap);
	gpu_ops = NULL;
}

static void gpu_use_emu(bool tegra, const char *why_not_cuda)
{
	char reason[sizeof(gpu.status.reason)] = "";

	gpu_ops = hf_emu_gpu_init(&gpu, tegra, reason, sizeof(reason));
	if (!gpu_ops) {
		gpu_none("emulated GPU unavailable: %s", reason);
		return;
	}
	if (why_not_cuda)
		hf_os_log("gpu: no CUDA (%s): using the emulated GPU",
			  why_not_cuda);
}

/**
 * gpu_detect() - choose the GPU, once per process.
 *
 * HELLOFPGA_GPU selects it: "auto" (default) takes a real GPU when
 * libcuda.so.1 loads, cuInit() succeeds and there is a device, and the
 * emulated desktop GPU when CUDA is absent; "cuda" a real GPU or none;
 * "emu" / "emu-tegra" the emulated desktop / Tegra GPU; "none" no GPU.
 */
static void gpu_detect(void)
{
	char reason[sizeof(gpu.status.reason)] = "";
	const char *mode = getenv("HELLOFPGA_GPU");
	bool absent = false;

	if (!mode || !*mode)
		mode = "auto";
	if (!strcmp(mode, "none")) {
		gpu_none("GPU support disabled (HELLOFPGA_GPU=none)");
	} else if (!strcmp(mode, "emu")) {
		gpu_use_emu(false, NULL);
	} else if (!strcmp(mode, "emu-tegra")) {
		gpu_use_emu(true, NULL);
	} else if (!strcmp(mode, "cuda") || !strcmp(mode, "auto")) {
		gpu_ops = hf_cuda_init(&gpu, &absent, reason, sizeof(reason));
		if (!gpu_ops) {
			if (absent && !strcmp(mode, "auto"))
				gpu_use_emu(false, reason);
			else
				gpu_none("%s", reason);
		}
	} else {
		gpu_none("HELLOFPGA_GPU=%.64s is unknown: use auto, cuda, emu, emu-tegra or none",
			 mode);
	}
	__atomic_store_n(&gpu_ready, 1, __ATOMIC_RELEASE);
}

const struct hf_gpu *hf_gpu_get(void)
{
	pthread_once(&gpu_once, gpu_detect);
	return &gpu;
}

const struct hf_gpu *hf_gpu_peek(void)
{
	return __atomic_load_n(&gpu_ready, __ATOMIC_ACQUIRE) ? &gpu : NULL;
}

/* The ops of the GPU, or NULL (error text set, naming @fn) without one. */
static const struct hf_gpu_ops *gpu_need(const char *fn)
{
	hf_gpu_get();
	if (!gpu_ops)
		hf_set_error(NULL, -ENODEV, "%s: no GPU: %s", fn,
			     gpu.status.reason);
	return gpu_ops;
}

int hf_gpu_alloc(void **ptr, size_t size)
{
	const struct hf_gpu_ops *ops;

	if (!ptr)
		return hf_set_error(NULL, -EFAULT,
				    "HelloFPGA_GPU_Alloc: ptr is NULL");
	*ptr = NULL;
	if (!size)
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_Alloc: size is 0");
	ops = gpu_need("HelloFPGA_GPU_Alloc");
	if (!ops)
		return -ENODEV;
	return ops->alloc(ptr, size);
}

int hf_gpu_free(void *ptr)
{
	const struct hf_gpu_ops *ops;

	if (!ptr)
		return 0;	/* like cudaFree(NULL) and free(NULL) */
	ops = gpu_need("HelloFPGA_GPU_Free");
	if (!ops)
		return -ENODEV;
	return ops->free(ptr);
}

int hf_gpu_memcpy(void *dst, const void *src, size_t size, int kind)
{
	const struct hf_gpu_ops *ops;

	if (!dst || !src)
		return hf_set_error(NULL, -EFAULT,
				    "HelloFPGA_GPU_Memcpy: %s is NULL",
				    !dst ? "dst" : "src");
	if (kind != HELLOFPGA_MEMCPY_HOST_TO_GPU &&
	    kind != HELLOFPGA_MEMCPY_GPU_TO_HOST)
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_Memcpy: kind %d is neither HELLOFPGA_MEMCPY_HOST_TO_GPU (1) nor HELLOFPGA_MEMCPY_GPU_TO_HOST (2)",
				    kind);
	ops = gpu_need("HelloFPGA_GPU_Memcpy");
	if (!ops)
		return -ENODEV;
	if (!size)
		return 0;
	return ops->memcpy(dst, src, size, kind);
}

int hf_gpu_query(const void *ptr, size_t size, struct hf_gpu_buf *buf,
		 char *why, size_t whylen)
{
	struct hf_gpu_buf local;
	char whybuf[192];

	hf_gpu_get();
	if (!buf)
		buf = &local;
	if (!why || !whylen) {
		why = whybuf;
		whylen = sizeof(whybuf);
	}
	memset(buf, 0, sizeof(*buf));
	why[0] = '\0';
	if (!gpu_ops) {
		snprintf(why, whylen, "no GPU: %s", gpu.status.reason);
		return -ENODEV;
	}
	if (!ptr) {
		snprintf(why, whylen, "the GPU buffer is NULL");
		return -EINVAL;
	}
	if (!size) {
		snprintf(why, whylen, "size is 0");
		return -EINVAL;
	}
	if ((uintptr_t)ptr + size < (uintptr_t)ptr) {
		snprintf(why, whylen, "%p + %zu overflows the address space",
			 ptr, size);
		return -EINVAL;
	}
	return gpu_ops->query(ptr, size, buf, why, whylen);
}

int hf_gpu_set_sync_memops(const void *ptr)
{
	const struct hf_gpu_ops *ops = gpu_need("set SYNC_MEMOPS");

	if (!ops)
		return -ENODEV;
	return ops->set_sync_memops(ptr);
}

int hf_gpu_check(const void *ptr, uint64_t buffer_id)
{
	const struct hf_gpu_ops *ops = gpu_need("GPU buffer check");
	uint64_t id = 0;
	int ret;

	if (!ops)
		return -ENODEV;
	ret = ops->buffer_id(ptr, &id);
	if (ret)
		return ret;
	if (id != buffer_id)
		return hf_set_error(NULL, -ENXIO,
				    "GPU memory at %p was freed (the address now belongs to a newer allocation, buffer id %llu, not %llu)",
				    ptr, (unsigned long long)id,
				    (unsigned long long)buffer_id);
	return 0;
}

long hf_gpu_watch(const void *ptr, hf_gpu_revoke_fn fn, void *arg)
{
	const struct hf_gpu_ops *ops = gpu_need("GPU free watch");

	if (!ops)
		return -ENODEV;
	if (!fn)
		return hf_set_error(NULL, -EINVAL,
				    "GPU free watch: callback is NULL");
	return ops->watch(ptr, fn, arg);
}

void hf_gpu_unwatch(long id)
{
	const struct hf_gpu *g = hf_gpu_peek();

	if (id <= 0 || !g || !gpu_ops)
		return;
	gpu_ops->unwatch(id);
}

int hf_gpu_copy_to_gpu(void *gpu_dst, const void *host_src, size_t size)
{
	const struct hf_gpu_ops *ops = gpu_need("copy to GPU");

	if (!ops)
		return -ENODEV;
	if (!size)
		return 0;
	return ops->copy_to_gpu(gpu_dst, host_src, size);
}

int hf_gpu_copy_from_gpu(void *host_dst, const void *gpu_src, size_t size)
{
	const struct hf_gpu_ops *ops = gpu_need("copy from GPU");

	if (!ops)
		return -ENODEV;
	if (!size)
		return 0;
	return ops->copy_from_gpu(host_dst, gpu_src, size);
}

int hf_gpu_register_host(void *ptr, size_t size)
{
	hf_gpu_get();
	if (!gpu_ops || !ptr || !size)
		return 0;	/* nothing will copy to a GPU through it */
	return gpu_ops->register_host(ptr, size);
}

void hf_gpu_unregister_host(void *ptr)
{
	if (!hf_gpu_peek() || !gpu_ops || !ptr)
		return;
	gpu_ops->unregister_host(ptr);
}

bool hf_gpu_cpu_addressable(void)
{
	const struct hf_gpu *g = hf_gpu_get();

	return g->kind == HF_GPU_EMU ||
	       (g->kind == HF_GPU_CUDA &&
		g->status.platform == HELLOFPGA_PLATFORM_TEGRA);
}

/**
 * hf_gpu_is_device_ptr() - is @ptr device memory of a desktop GPU (real or
 * emulated), which the CPU path cannot use?
 *
 * Called on the CPU path for every user buffer, so it must not load CUDA
 * into a process that does not use it: before the GPU is detected, a
 * process without libcuda.so.1 loaded cannot hold CUDA memory and the
 * answer is false at once; one with it loaded has the GPU detected now.
 */
bool hf_gpu_is_device_ptr(const void *ptr)
{
	if (!ptr)
		return false;
	if (!hf_gpu_peek() && !hf_cuda_in_process())
		return false;
	hf_gpu_get();
	if (gpu.kind == HF_GPU_NONE)
		return false;
	return gpu_ops->is_device_ptr(ptr);
}

/* ---- streams and their memory operations ---- */

int hf_gpu_stream_create(void **stream)
{
	const struct hf_gpu_ops *ops;

	if (!stream)
		return hf_set_error(NULL, -EFAULT,
				    "HelloFPGA_GPU_StreamCreate: stream is NULL");
	*stream = NULL;
	ops = gpu_need("HelloFPGA_GPU_StreamCreate");
	if (!ops)
		return -ENODEV;
	return ops->stream_create(stream);
}

int hf_gpu_stream_destroy(void *stream)
{
	const struct hf_gpu_ops *ops = gpu_need("HelloFPGA_GPU_StreamDestroy");

	if (!ops)
		return -ENODEV;
	return ops->stream_destroy(stream);
}

int hf_gpu_stream_sync(void *stream, int timeout_ms)
{
	const struct hf_gpu_ops *ops;

	if (timeout_ms > HF_MAX_TIMEOUT_MS)
		return hf_set_error(NULL, -EINVAL,
				    "HelloFPGA_GPU_StreamSynchronize: timeout %d ms above the limit of %d ms",
				    timeout_ms, HF_MAX_TIMEOUT_MS);
	ops = gpu_need("HelloFPGA_GPU_StreamSynchronize");
	if (!ops)
		return -ENODEV;
	return ops->stream_sync(stream, timeout_ms);
}

int hf_gpu_host_func(void *stream, void (*fn)(void *arg), void *arg)
{
	const struct hf_gpu_ops *ops;

	if (!fn)
		return hf_set_error(NULL, -EFAULT,
				    "HelloFPGA_GPU_LaunchHostFunc: fn is NULL");
	ops = gpu_need("HelloFPGA_GPU_LaunchHostFunc");
	if (!ops)
		return -ENODEV;
	return ops->host_func(stream, fn, arg);
}

int hf_gpu_memops(bool *can_flush, const char *fn)
{
	const struct hf_gpu_ops *ops = gpu_need(fn);

	*can_flush = false;
	if (!ops)
		return -ENODEV;
	return ops->memops(can_flush, fn);
}

int hf_gpu_map_host(void *ptr, size_t size, uint64_t *dev, const char *fn)
{
	const struct hf_gpu_ops *ops = gpu_need(fn);

	if (!ops)
		return -ENODEV;
	return ops->map_host(ptr, size, dev, fn);
}

int hf_gpu_wait32(void *stream, uint64_t dev, uint32_t value,
		  unsigned int cmp, bool flush, const char *fn)
{
	const struct hf_gpu_ops *ops = gpu_need(fn);

	if (!ops)
		return -ENODEV;
	return ops->wait32(stream, dev, value, cmp, flush, fn);
}

int hf_gpu_write32(void *stream, uint64_t dev, uint32_t value, const char *fn)
{
	const struct hf_gpu_ops *ops = gpu_need(fn);

	if (!ops)
		return -ENODEV;
	return ops->write32(stream, dev, value, fn);
}

/*
 * Host memory a GPU may still read or write after its owner is gone (the
 * words of GPU-side waits: a wait may be pending in a GPU stream): never
 * freed, but kept here, reachable, so that a leak checker sees what the
 * header promises.
 */
struct hf_gpu_kept {
	struct hf_gpu_kept *next;
	void *mem;
};

static struct hf_gpu_kept *gpu_kept;
static pthread_mutex_t gpu_kept_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t gpu_kept_once = PTHREAD_ONCE_INIT;

/* the lock is taken around fork(): a child never inherits it held */
static void kept_prepare(void)
{
	pthread_mutex_lock(&gpu_kept_lock);
}

static void kept_release(void)
{
	pthread_mutex_unlock(&gpu_kept_lock);
}

static void kept_init(void)
{
	pthread_atfork(kept_prepare, kept_release, kept_release);
}

void hf_gpu_keep(void *mem)
{
	struct hf_gpu_kept *k = malloc(sizeof(*k));

	if (!k)
		return;		/* kept all the same, unrecorded */
	k->mem = mem;
	pthread_once(&gpu_kept_once, kept_init);
	pthread_mutex_lock(&gpu_kept_lock);
	k->next = gpu_kept;
	gpu_kept = k;
	pthread_mutex_unlock(&gpu_kept_lock);
}

/* ---- public API ---- */

int HelloFPGA_GetGPUStatus(HELLOFPGA_GPU_STATUS *status)
{
	hf_clear_error(NULL);
	if (!status)
		return hf_set_error(NULL, -EFAULT,
				    "HelloFPGA_GetGPUStatus: status is NULL");
	*status = hf_gpu_get()->status;
	return 0;
}

int HelloFPGA_GPU_Alloc(void **ptr, size_t size)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_ALLOC, hf_gpu_alloc(ptr, size));
}

int HelloFPGA_GPU_Free(void *ptr)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_FREE, hf_gpu_free(ptr));
}

int HelloFPGA_GPU_Memcpy(void *dst, const void *src, size_t size, int kind)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_MEMCPY,
			  hf_gpu_memcpy(dst, src, size, kind));
}

int HelloFPGA_GPU_StreamCreate(void **stream)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_STREAM_CREATE,
			  hf_gpu_stream_create(stream));
}

int HelloFPGA_GPU_StreamDestroy(void *stream)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_STREAM_DESTROY,
			  hf_gpu_stream_destroy(stream));
}

int HelloFPGA_GPU_StreamSynchronize(void *stream, int timeout_ms)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_STREAM_SYNCHRONIZE,
			  hf_gpu_stream_sync(stream, timeout_ms));
}

int HelloFPGA_GPU_LaunchHostFunc(void *stream, void (*fn)(void *arg),
				 void *arg)
{
	hf_clear_error(NULL);
	return hf_api_ret(HF_API_GPU_LAUNCH_HOST_FUNC,
			  hf_gpu_host_func(stream, fn, arg));
}
