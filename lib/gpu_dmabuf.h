/* SPDX-License-Identifier: MIT */
/*
 * gpu_dmabuf.h - export real GPU memory as a dma-buf (CUDA 11.7+,
 * cuMemGetHandleForAddressRange), for a kernel driver that pins GPU memory
 * by importing dma-bufs (HELLOFPGA_PIN_DMABUF).
 */
#ifndef HF_GPU_DMABUF_H
#define HF_GPU_DMABUF_H

#include <stddef.h>
#include <stdint.h>

/**
 * hf_gpu_dmabuf_export() - a dma-buf file descriptor for [@ptr, +@size).
 * @ptr: CUDA device memory, 4 KiB aligned
 * @size: bytes, a multiple of 4 KiB
 * @fd: receives the dma-buf (close it once the importer holds it)
 * @offset: receives the offset of @ptr inside the dma-buf (0)
 *
 * Return: 0, or -EOPNOTSUPP (not a real GPU, or CUDA lacks the entry point
 * or refuses: the thread's error text says why), -EINVAL.
 */
int hf_gpu_dmabuf_export(const void *ptr, size_t size, int *fd,
			 uint64_t *offset);

#endif /* HF_GPU_DMABUF_H */
