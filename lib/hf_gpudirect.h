/* SPDX-License-Identifier: MIT */
/*
 * hf_gpudirect.h - GPU Direct pins and transfers (gpudirect.c).
 */
#ifndef HF_GPUDIRECT_H
#define HF_GPUDIRECT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "hellofpga.h"
#include "xdma_engine.h"

struct hellofpga_dev;
struct hf_xfer_wb;

/**
 * struct hf_pin - a pinned GPU buffer (GPU Direct).
 * @dev: the card it is pinned on
 * @handle: its HELLOFPGA_GPU_HANDLE
 * @gpu: first byte (4 KiB aligned)
 * @size: bytes (a multiple of 4 KiB)
 * @alloc_base: start of the GPU allocation holding it
 * @buffer_id: id of that allocation (hf_gpu_check())
 * @lock: transfers hold it shared; unpin and revocation exclusively
 * @refs: references (the table's, and one per lookup in progress); under
 *	the device's @pin_lock.  The last one frees the pin.
 * @rings: open streams whose ring lies in the pin (hf_pin_get_ring());
 *	under the device's @pin_lock.  Unpin is -EBUSY while there are.
 * @rings_running: of them, those whose engine may still write the pin
 *	(hf_pin_ring_running()); under the device's @pin_lock
 * @revoking: the GPU memory is being freed: no new ring goes into the pin
 *	(under the device's @pin_lock)
 * @watch: hf_gpu_watch() registration, 0 when the GPU layer offers no
 *	free callback (then every transfer calls hf_gpu_check())
 * @revoked: the GPU memory was freed while pinned (under @lock)
 * @released: the backend state is released (under @lock)
 * @internal: pinned by HelloFPGA_SetGPUBuffer()
 * @bdata: backend state
 */
struct hf_pin {
	struct hellofpga_dev *dev;
	uint64_t handle;
	void *gpu;
	size_t size;
	uintptr_t alloc_base;
	uint64_t buffer_id;
	pthread_rwlock_t lock;
	unsigned int refs;
	unsigned int rings;
	unsigned int rings_running;
	bool revoking;
	long watch;
	bool revoked;
	bool released;
	bool internal;
	void *bdata;
};

int hf_gpudirect_check(struct hellofpga_dev *dev, int ch,
		       HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		       size_t len, int dir, int timeout_ms,
		       enum hf_xdma_dir *xd, struct hf_pin **pinp,
		       const char *fn);
int hf_gpudirect_pin_live(struct hellofpga_dev *dev, struct hf_pin *pin,
			  HELLOFPGA_GPU_HANDLE handle, const char *fn);
int hf_gpudirect_run(struct hellofpga_dev *dev, struct hf_pin *pin,
		     HELLOFPGA_GPU_HANDLE handle, enum hf_xdma_dir xd, int ch,
		     size_t off, uint64_t card, size_t len, int timeout_ms,
		     const struct hf_xfer_wb *wb, size_t *actual,
		     const char *fn);
int hf_gpudirect_xfer(struct hellofpga_dev *dev, int ch,
		      HELLOFPGA_GPU_HANDLE handle, size_t off, uint64_t card,
		      size_t len, int dir, int timeout_ms, size_t *actual,
		      const char *fn);
int hf_gpudirect_dma_mm(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			int ch, void *buf, uint64_t card, size_t len,
			size_t *actual, const char *fn);
void hf_gpudirect_close(struct hellofpga_dev *dev);
struct hf_pin *hf_pin_get(struct hellofpga_dev *dev,
			  HELLOFPGA_GPU_HANDLE handle);
void hf_pin_put(struct hf_pin *pin);
int hf_pin_get_ring(struct hellofpga_dev *dev, HELLOFPGA_GPU_HANDLE handle,
		    struct hf_pin **out, const char *fn);
void hf_pin_put_ring(struct hf_pin *pin);
void hf_pin_ring_running(struct hf_pin *pin, bool on);

#endif /* HF_GPUDIRECT_H */
