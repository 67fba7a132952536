/* SPDX-License-Identifier: MIT */
/*
 * backend_kernel.h - the kernel backend's own header: its card, pin and
 * stream state, and what its lower files give backend_kernel.c
 * (hf_layers.h): backend_kernel_node.c the driver's nodes, ioctls and
 * error texts; backend_kernel_stream.c C2H streams.
 */
#ifndef HF_BACKEND_KERNEL_H
#define HF_BACKEND_KERNEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hf_dev.h"
#include "hf_gpudirect.h"
#include "hf_stream.h"
#include "uapi/hellofpga.h"

/**
 * struct kcard - the kernel backend's side of a handle.
 * @index: N of /dev/hellofpgaN_*
 * @ctl_fd: the _control node
 * @ch_fd: channel nodes [dir][ch], -1 until first used (under the channel
 *	lock of api.c)
 * @user_fd: the _user node, -1 until first used
 * @ch_timeout: the timeout last set on each channel node
 *	(HELLOFPGA_IOC_SET_TIMEOUT), 0 for the driver's default (under the
 *	channel lock of api.c)
 * @user_lock: guards the lazy open of @user_fd
 * @events_fd: the _events_U nodes, -1 until armed (opened once, under the
 *	device's uirq_lock of user_irq.c)
 * @features: HELLOFPGA_FEAT_* of the driver
 * @abi_minor: the driver's HELLOFPGA_ABI_MINOR
 */
struct kcard {
	unsigned int index;
	int ctl_fd;
	int ch_fd[2][XDMA_MAX_CHANNELS];
	int ch_timeout[2][XDMA_MAX_CHANNELS];
	int user_fd;
	pthread_mutex_t user_lock;
	int events_fd[XDMA_USER_IRQS];
	uint64_t features;
	uint32_t abi_minor;
};

/**
 * struct kpin - a pin's driver handle (struct hf_pin bdata).
 * @handle: from HELLOFPGA_IOC_PIN
 * @type: HELLOFPGA_PIN_* it was pinned as
 * @off: where the buffer starts in the driver's pin (PIN_CUDA pins whole
 *	GPU pages: the range rounded out to them)
 */
struct kpin {
	uint64_t handle;
	uint32_t type;
	uint64_t off;
};

/**
 * struct kstream - a stream on the driver (struct hellofpga_stream bdata).
 * @fd: the stream's own open of the c2h node: the stream is this open
 *	file's (its last close ends it)
 * @map: MEM_HOST: the ring mapped read-only, else NULL
 * @map_len: its length
 * @pin: a GPU ring: the library's pin it lies in (referenced)
 * @host_handle: a ring in the caller's host memory: the driver's pin of
 *	it (PIN_HOST on the control node), else 0
 * @wb: the writeback slots in library memory (HELLOFPGA_STREAM_WB_PIN),
 *	then the doorbells; @wb.mem NULL when the driver keeps the slots (no
 *	HELLOFPGA_FEAT_STREAM_WB_PIN, or it refused: @wb_why)
 * @wb_handle: the driver's pin of the slots' pages
 * @wb_why: why the slots are not in library memory
 * @resync: the ring skips the rest of a frame cut by an earlier stop
 *	(STARTED_RESYNC): which buffer a sequence lands in is known from the
 *	first wait on
 * @known: the mapping is known (atomic): sequence q lands in buffer
 *	(q + @skip) % buffers
 * @skip: buffers skipped at the start, modulo the ring (atomic)
 * @credited: sequences whose buffers went back to the card, in ring
 *	order (atomic; written under the stream's lock)
 * @seq_of: the sequence each buffer last held (under the stream's lock)
 * @rel: per buffer, released and not yet counted in @credited
 */
struct kstream {
	int fd;
	void *map;
	size_t map_len;
	struct hf_pin *pin;
	uint64_t host_handle;
	struct hf_stream_wb wb;
	uint64_t wb_handle;
	char wb_why[320];
	bool resync;
	bool known;
	uint32_t skip;
	uint64_t credited;
	uint64_t seq_of[HELLOFPGA_RING_MAX_BUFFERS];
	uint8_t rel[HELLOFPGA_RING_MAX_BUFFERS];
};

/* backend_kernel_node.c */
void knode_path(char *buf, size_t len, unsigned int card,
		const char *node);
int knode_open(const char *path);
int kioctl(int fd, unsigned long req, void *arg);
bool kdriver_text(int fd, int err, char *buf, size_t len);
int kfail(struct hellofpga_dev *dev, int fd, int err,
	  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* backend_kernel_stream.c */
int kernel_stream_start(struct hellofpga_dev *dev,
			struct hellofpga_stream *s);
int kernel_stream_wait(struct hellofpga_dev *dev,
		       struct hellofpga_stream *s, uint64_t timeout_ns,
		       struct hf_xdma_ring_buf *b);
int kernel_stream_release(struct hellofpga_dev *dev,
			  struct hellofpga_stream *s, uint32_t index);
void kernel_stream_kick(struct hellofpga_dev *dev,
			struct hellofpga_stream *s);
void kernel_stream_stats(struct hellofpga_dev *dev,
			 struct hellofpga_stream *s,
			 struct hf_xdma_ring_stats *st);
int kernel_stream_stop(struct hellofpga_dev *dev,
		       struct hellofpga_stream *s);
int kernel_stream_gpu_slot(struct hellofpga_dev *dev,
			   struct hellofpga_stream *s, uint64_t seq,
			   struct hf_stream_gpu_slot *gs, const char *fn);
int kernel_stream_gpu_doorbells(struct hellofpga_dev *dev,
				struct hellofpga_stream *s, uint32_t **db,
				uint64_t *db_dev, const char *fn);

#endif
