/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - the library's GPU layer: which GPU there is (real through CUDA's
 * driver API loaded at run time, or the emulated GPU), its memory, and what
 * the emulated card needs to DMA into it.
 *
 * One process-wide instance, initialised on first use (hf_gpu_get()).
 * Both backends (backend_emu.c, backend_kernel.c) use it to validate a
 * buffer for pinning and, for the emulated card, to move bytes between card
 * memory and GPU memory.
 */
#ifndef HF_GPU_H
#define HF_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hellofpga.h"

enum hf_gpu_kind {
	HF_GPU_NONE = 0,	/* no GPU: GPU Direct calls fail with -ENODEV */
	HF_GPU_CUDA,		/* a real GPU through libcuda.so.1 */
	HF_GPU_EMU,		/* the emulated GPU (desktop or Tegra) */
};

/**
 * struct hf_gpu_buf - what hf_gpu_query() found out about a GPU range.
 * @alloc_base: start of the allocation holding the range
 * @alloc_size: size of that allocation
 * @buffer_id: unique id of the allocation (CU_POINTER_ATTRIBUTE_BUFFER_ID,
 *	or the emulated GPU's own); a later hf_gpu_check() compares it
 * @device_memory: true for device memory (desktop), false for pinned host
 *	memory (Tegra)
 */
struct hf_gpu_buf {
	uintptr_t alloc_base;
	size_t alloc_size;
	uint64_t buffer_id;
	bool device_memory;
};

/**
 * typedef hf_gpu_revoke_fn - called when pinned GPU memory goes away
 * (the emulated GPU's free of a pinned allocation; NVIDIA's free callback
 * on hardware).  DMA to the range must have stopped when it returns.
 */
typedef void (*hf_gpu_revoke_fn)(void *arg);

/**
 * struct hf_gpu - the process's GPU.
 * @kind: HF_GPU_*
 * @status: what HelloFPGA_GetGPUStatus() reports
 */
struct hf_gpu {
	enum hf_gpu_kind kind;
	HELLOFPGA_GPU_STATUS status;
};

/* The GPU of this process, detected once (HELLOFPGA_GPU=auto|cuda|emu|emu-tegra|none). */
const struct hf_gpu *hf_gpu_get(void);
/* The GPU if it was already detected, else NULL (does not load CUDA). */
const struct hf_gpu *hf_gpu_peek(void);

int hf_gpu_alloc(void **ptr, size_t size);
int hf_gpu_free(void *ptr);
int hf_gpu_memcpy(void *dst, const void *src, size_t size, int kind);

/*
 * Validate [ptr, ptr + size) for pinning: GPU memory of the platform's kind
 * inside one allocation.  0, or -EINVAL with @why filled.
 */
int hf_gpu_query(const void *ptr, size_t size, struct hf_gpu_buf *buf,
		 char *why, size_t whylen);
/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS on the allocation (no-op when emulated). */
int hf_gpu_set_sync_memops(const void *ptr);
/*
 * Still the same allocation?  0, or -ENXIO when it was freed (and perhaps
 * reallocated at the same address).
 */
int hf_gpu_check(const void *ptr, uint64_t buffer_id);

/*
 * Revocation (emulated GPU): call @fn(@arg) when the allocation holding
 * @ptr is freed.  Returns a registration id (> 0) or negative errno;
 * hf_gpu_unwatch() removes it and waits for a running callback.
 */
long hf_gpu_watch(const void *ptr, hf_gpu_revoke_fn fn, void *arg);
void hf_gpu_unwatch(long id);

/*
 * For the emulated card on a real GPU: copy between host memory (the card's
 * DDR, registered with hf_gpu_register_host()) and GPU memory with the
 * GPU's copy engine; the call returns when the data is in place.
 * On the emulated GPU and on Tegra these are memcpy().
 */
int hf_gpu_copy_to_gpu(void *gpu_dst, const void *host_src, size_t size);
int hf_gpu_copy_from_gpu(void *host_dst, const void *gpu_src, size_t size);
int hf_gpu_register_host(void *ptr, size_t size);
void hf_gpu_unregister_host(void *ptr);
/* true when GPU memory is directly addressable by the CPU (emulated, Tegra) */
bool hf_gpu_cpu_addressable(void);

/* Is @ptr desktop GPU device memory, real or emulated (CPU path must refuse it)? */
bool hf_gpu_is_device_ptr(const void *ptr);

/*
 * GPU streams and their memory operations, for GPU-side completion
 * (HelloFPGA_Stream_WaitOnGPU()).  A stream is a CUstream on a real GPU
 * (of the library's context), a checked name of the emulated GPU's
 * (gpu_emu_stream.c) otherwise.  Each returns 0 or a negative errno with
 * the error text set.
 */
#define HF_GPU_WAIT_GEQ	0	/* (int32_t)(*addr - value) >= 0 */
#define HF_GPU_WAIT_EQ	1	/* *addr == value */
#define HF_GPU_WAIT_AND	2	/* (*addr & value) != 0 */
#define HF_GPU_WAIT_NOR	3	/* ~(*addr | value) != 0 */

int hf_gpu_stream_create(void **stream);
int hf_gpu_stream_destroy(void *stream);
/* wait for the stream's work: -ETIMEDOUT after @timeout_ms (< 0: no end) */
int hf_gpu_stream_sync(void *stream, int timeout_ms);
int hf_gpu_host_func(void *stream, void (*fn)(void *arg), void *arg);
/*
 * Can the GPU wait on and write memory from a stream?  0 (*@can_flush:
 * whether a wait can flush the remote writes before it), or -EOPNOTSUPP
 * (-ENODEV: no GPU) with a text naming @fn.
 */
int hf_gpu_memops(bool *can_flush, const char *fn);
/*
 * Make host memory [@ptr, @ptr + @size) (page aligned, the caller's for
 * the life of the process) reachable by stream memory operations; *@dev
 * its device address.
 */
int hf_gpu_map_host(void *ptr, size_t size, uint64_t *dev, const char *fn);
/* enqueue a wait until the word at @dev meets @value by @cmp (HF_GPU_WAIT_*) */
int hf_gpu_wait32(void *stream, uint64_t dev, uint32_t value,
		  unsigned int cmp, bool flush, const char *fn);
/* enqueue a write of @value to the word at @dev */
int hf_gpu_write32(void *stream, uint64_t dev, uint32_t value, const char *fn);
/* keep @mem (malloc'ed) for the life of the process: a GPU may use it */
void hf_gpu_keep(void *mem);
/* test hook (emulated GPU): it has no stream memory operations */
void hf_gpu_test_no_memops(bool on);

#endif /* HF_GPU_H */
