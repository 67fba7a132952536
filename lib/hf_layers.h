/* SPDX-License-Identifier: MIT */
/*
 * hf_layers.h - libhellofpga's files by layer.  A file calls into the files
 * of lower layers only, never into one of its own layer or above; what a
 * lower layer must have done by a higher one it takes as a function pointer
 * (HelloFPGA_Close()'s wake of the streams and submit queues is a hook that
 * api.c hands to hf_dev_unregister()).  tests/lint/deps.sh checks it with
 * scripts/driver-deps.py, as kernel-ci.sh does the driver's (driver/hf_drv.h).
 *
 * layer 0: error.c hf_number.c hf_table.c
 *	error codes and texts; the one number parser; the token tables of
 *	cards and streams
 * layer 1: handle.c chanlock.c user_pages.c
 *	the handle table; waits with a deadline and channel locks; callers'
 *	buffers
 * layer 2: gpu_cuda.c emu/gpu_emu_stream.c
 *	the real GPU through CUDA; the emulated GPU's streams
 * layer 3: emu/gpu_emu.c
 *	the emulated GPU
 * layer 4: gpu.c
 *	the GPU layer over either
 * layer 5: gpu_dmabuf.c user_irq.c stream.c
 *	GPU memory as dma-buf; user interrupts; C2H AXI-Stream rings
 * layer 6: gpudirect.c
 *	GPU Direct pins and transfers
 * layer 7: backend_kernel_node.c emu/backend_emu_card.c
 *	the driver's nodes and ioctls; the emulated card's setup: options,
 *	state files, memory, interrupts
 * layer 8: backend_kernel_stream.c emu/backend_emu_xfer.c
 *	C2H streams on the driver; the emulated card's CPU-path transfers,
 *	registers, user interrupts
 * layer 9: emu/backend_emu_pin.c emu/backend_emu_stream.c
 *	the emulated card's GPU Direct pins and its C2H streams
 * layer 10: backend_kernel.c emu/backend_emu.c submit.c
 *	the two card backends (the emulated one, in emu/, is the only code of
 *	lib/ that includes model/); GPU Direct submit queues
 * layer 11: api.c
 *	the public calls: validation and dispatch, Open and Close
 * layer 12: test_hooks.c emu/emu_test.c
 *	the test hooks (hf_test.h), linked into the tests only
 */
#ifndef HF_LAYERS_H
#define HF_LAYERS_H
#endif
