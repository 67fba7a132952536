/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - the GPU as the bench sees it (gpu.c): CUDA's driver API loaded
 * at run time, or the library's emulated GPU; host memory for the pinned
 * paths, honest copies, the frame consumer and the gpuwait section's
 * start-flag kernel.
 */
#ifndef HF_BENCH_GPU_H
#define HF_BENCH_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hellofpga.h"

struct bgpu {
	HELLOFPGA_GPU_STATUS status;
	bool present;		/* any GPU (real or emulated) */
	bool real;		/* CUDA */
	int cuda_version;	/* cuDriverGetVersion, 0 without CUDA */
	char driver[96];	/* NVIDIA driver version, "" unknown */
	void *priv;
};

int bgpu_init(struct bgpu *g, char *why, size_t whylen);
void bgpu_fini(struct bgpu *g);
const char *bgpu_error(void);
void *bgpu_host_alloc(struct bgpu *g, size_t size);	/* pinned when real */
void bgpu_host_free(struct bgpu *g, void *p);
int bgpu_to_gpu(struct bgpu *g, void *gpu, const void *host, size_t n,
		bool pageable);
int bgpu_from_gpu(struct bgpu *g, void *host, const void *gpu, size_t n);
/* the frame consumer: a checksum kernel (CUDA) or a CPU thread (emulated) */
int bgpu_consumer_init(struct bgpu *g, int nbuf, size_t frame_size,
		       uint32_t max_frames);
int bgpu_consume_start(struct bgpu *g, int buf, const void *frame,
		       uint32_t k);
int bgpu_consume_wait(struct bgpu *g, int buf);
int bgpu_consume_results(struct bgpu *g, uint64_t *sum, uint32_t *frame_no,
			 uint32_t n);
void bgpu_consumer_fini(struct bgpu *g);
/* the gpuwait section's consumer: a kernel that flags its start */
int bgpu_flag_init(struct bgpu *g);
int bgpu_flag_launch(struct bgpu *g, void *stream, volatile uint32_t *flag,
		     uint32_t value);
void bgpu_flag_fini(struct bgpu *g);
uint64_t bench_checksum(const uint32_t *w, size_t nwords);

#endif /* HF_BENCH_GPU_H */
