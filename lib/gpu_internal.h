/* SPDX-License-Identifier: MIT */
/*
 * gpu_internal.h - private to the GPU layer (gpu.c, gpu_cuda.c, gpu_emu.c):
 * the operations a GPU implementation provides behind lib/gpu.h.
 *
 * gpu.c detects the GPU once and then dispatches every hf_gpu_* call to the
 * chosen implementation's ops table.  Argument checks common to all of them
 * (NULL pointers, zero sizes, the memcpy kind) are done in gpu.c.  An
 * implementation records the detailed text of a failure with
 * hf_set_error(NULL, ...) (or fills @why for query) and returns a negative
 * errno.
 */
#ifndef HF_GPU_INTERNAL_H
#define HF_GPU_INTERNAL_H

#include "gpu.h"

/**
 * struct hf_gpu_ops - one GPU implementation (CUDA or emulated).
 * @alloc: GPU memory of at least @size (> 0) bytes, aligned to the GPU page
 * @free: release memory from @alloc (@ptr not NULL)
 * @memcpy: HELLOFPGA_MEMCPY_* copy, arguments checked, @size > 0
 * @query: see hf_gpu_query(); @size > 0
 * @set_sync_memops: see hf_gpu_set_sync_memops()
 * @buffer_id: the buffer id of the allocation that holds @ptr now, or
 *	-ENXIO with the error text set when there is none (for hf_gpu_check())
 * @watch: see hf_gpu_watch()
 * @unwatch: see hf_gpu_unwatch()
 * @copy_to_gpu: see hf_gpu_copy_to_gpu(); @size > 0
 * @copy_from_gpu: see hf_gpu_copy_from_gpu(); @size > 0
 * @register_host: see hf_gpu_register_host()
 * @unregister_host: see hf_gpu_unregister_host()
 * @is_device_ptr: see hf_gpu_is_device_ptr()
 * @stream_create, @stream_destroy, @stream_sync, @host_func, @memops,
 *	@map_host, @wait32, @write32: see hf_gpu_stream_create() and the
 *	calls after it in gpu.h; arguments checked by gpu.c (@fn names the
 *	public call for the error text)
 */
struct hf_gpu_ops {
	int (*alloc)(void **ptr, size_t size);
	int (*free)(void *ptr);
	int (*memcpy)(void *dst, const void *src, size_t size, int kind);
	int (*query)(const void *ptr, size_t size, struct hf_gpu_buf *buf,
		     char *why, size_t whylen);
	int (*set_sync_memops)(const void *ptr);
	int (*buffer_id)(const void *ptr, uint64_t *id);
	long (*watch)(const void *ptr, hf_gpu_revoke_fn fn, void *arg);
	void (*unwatch)(long id);
	int (*copy_to_gpu)(void *gpu_dst, const void *host_src, size_t size);
	int (*copy_from_gpu)(void *host_dst, const void *gpu_src, size_t size);
	int (*register_host)(void *ptr, size_t size);
	void (*unregister_host)(void *ptr);
	bool (*is_device_ptr)(const void *ptr);
	int (*stream_create)(void **stream);
	int (*stream_destroy)(void *stream);
	int (*stream_sync)(void *stream, int timeout_ms);
	int (*host_func)(void *stream, void (*fn)(void *arg), void *arg);
	int (*memops)(bool *can_flush, const char *fn);
	int (*map_host)(void *ptr, size_t size, uint64_t *dev, const char *fn);
	int (*wait32)(void *stream, uint64_t dev, uint32_t value,
		      unsigned int cmp, bool flush, const char *fn);
	int (*write32)(void *stream, uint64_t dev, uint32_t value,
		       const char *fn);
};

/*
 * gpu_cuda.c: the real GPU through libcuda.so.1.
 * hf_cuda_init() fills @gpu (kind HF_GPU_CUDA, status) and returns its ops,
 * or returns NULL with @reason filled; *@absent is set when CUDA simply is
 * not there (no library, cuInit failed, no device), so that "auto" may fall
 * back to the emulated GPU, and left false for other failures.
 */
const struct hf_gpu_ops *hf_cuda_init(struct hf_gpu *gpu, bool *absent,
				      char *reason, size_t reasonlen);
/* Is libcuda.so.1 already loaded in this process (no loading, no cuInit)? */
bool hf_cuda_in_process(void);

/*
 * gpu_emu.c: the emulated GPU, desktop (64 KiB pages of device memory) or
 * Tegra (@tegra: pinned host memory, 4 KiB pages).  Returns its ops, or NULL
 * with @reason filled when its memory window cannot be reserved.
 */
const struct hf_gpu_ops *hf_emu_gpu_init(struct hf_gpu *gpu, bool tegra,
					 char *reason, size_t reasonlen);

/* gpu_emu_stream.c: the emulated GPU's streams */
void hf_emu_gpu_stream_fork_init(void);
int hf_emu_gpu_stream_create(void **stream);
int hf_emu_gpu_stream_destroy(void *stream);
int hf_emu_gpu_stream_sync(void *stream, int timeout_ms);
int hf_emu_gpu_host_func(void *stream, void (*fn)(void *arg), void *arg);
int hf_emu_gpu_memops(bool *can_flush, const char *fn);
int hf_emu_gpu_wait32(void *stream, uint64_t dev, uint32_t value,
		      unsigned int cmp, bool flush, const char *fn);
int hf_emu_gpu_write32(void *stream, uint64_t dev, uint32_t value,
		       const char *fn);

#endif /* HF_GPU_INTERNAL_H */
