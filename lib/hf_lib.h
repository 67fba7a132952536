/* SPDX-License-Identifier: MIT */
/*
 * hf_lib.h - internals of libhellofpga: the handle, the backend ops table,
 * error reporting and channel locking.
 *
 * A handle (struct hellofpga_dev) holds what every backend shares: geometry,
 * per-channel locks, the last-error text and statistics.  What differs
 * between the emulated card (backend_emu.c) and the kernel driver
 * (backend_kernel.c) sits behind struct hf_backend_ops.
 */
#ifndef HF_LIB_H
#define HF_LIB_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hellofpga.h"
#include "xdma_engine.h"

#define HF_DEV_MAGIC		0x48464456u	/* "HFDV" */
#define HF_DEFAULT_TIMEOUT_MS	5000
#define HF_MAX_TIMEOUT_MS	3600000
#define HF_ERRLEN		512

struct hellofpga_dev;

/**
 * struct hf_backend_ops - what a backend implements.
 * @name: backend name for HELLOFPGA_INFO.backend_name
 * @close: release everything the backend holds
 * @xfer: move @len bytes between @buf and card address @card on channel
 *	@ch of direction @dir; arguments are already validated and the
 *	channel lock is held.  Sets *@actual to the bytes moved.
 * @user_read32: read a user-BAR register (offset validated)
 * @user_write32: write a user-BAR register (offset validated)
 * @counters: fill the card-side (model) fields of @c, if any
 */
struct hf_backend_ops {
	const char *name;
	void (*close)(struct hellofpga_dev *dev);
	int (*xfer)(struct hellofpga_dev *dev, enum xdma_dir dir, int ch,
		    void *buf, uint64_t card, size_t len, size_t *actual);
	int (*user_read32)(struct hellofpga_dev *dev, uint32_t off,
			   uint32_t *val);
	int (*user_write32)(struct hellofpga_dev *dev, uint32_t off,
			    uint32_t val);
	void (*counters)(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c);
};

/**
 * struct hf_stats - per-handle transfer statistics (updated atomically).
 */
struct hf_stats {
	uint64_t transfers;
	uint64_t bytes[2];	/* indexed by enum xdma_dir */
	uint64_t errors;
	uint64_t timeouts;
};

/**
 * struct hellofpga_dev - an open card.
 * @magic: HF_DEV_MAGIC while open
 * @ops: backend
 * @priv: backend state
 * @info: geometry and identity, filled by the backend's open
 * @user_bar_size: size of the user BAR in bytes
 * @timeout_ms: per-transfer timeout
 * @life: transfers hold it for reading, HelloFPGA_Close() for writing
 * @chan_lock: in-process mutual exclusion per channel [dir][ch]
 * @lock_fd: file whose byte (dir * 4 + ch) is locked (OFD lock) while a
 *	channel is in use, for exclusion between processes; -1 for none
 * @err_lock: protects @last_error
 * @last_error: text of the last failure on this handle
 * @stats: transfer statistics
 */
struct hellofpga_dev {
	uint32_t magic;
	const struct hf_backend_ops *ops;
	void *priv;
	HELLOFPGA_INFO info;
	uint32_t user_bar_size;
	int timeout_ms;
	pthread_rwlock_t life;
	pthread_mutex_t chan_lock[2][XDMA_MAX_CHANNELS];
	int lock_fd;
	pthread_mutex_t err_lock;
	char last_error[HF_ERRLEN];
	struct hf_stats stats;
};

/* error.c */
int hf_set_error(struct hellofpga_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hf_set_errorv(struct hellofpga_dev *dev, int err, const char *fmt,
		  va_list ap);
void hf_clear_error(struct hellofpga_dev *dev);

/* chanlock.c */
int hf_lockfile_open(struct hellofpga_dev *dev, const char *path);
int hf_chan_lock(struct hellofpga_dev *dev, enum xdma_dir dir, int ch);
void hf_chan_unlock(struct hellofpga_dev *dev, enum xdma_dir dir, int ch);

/* backends: open fills dev->info, dev->ops, dev->priv */
int hf_emu_open(struct hellofpga_dev *dev, const char *spec);
int hf_kernel_open(struct hellofpga_dev *dev, const char *path);

/* test hook (static library only): inject model faults, XDMA_FAULT_* */
int hf_emu_test_inject(struct hellofpga_dev *dev, uint32_t faults);

static inline const char *hf_dir_name(enum xdma_dir dir)
{
	return dir == XDMA_H2C ? "H2C" : "C2H";
}

#endif /* HF_LIB_H */
