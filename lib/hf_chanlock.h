/* SPDX-License-Identifier: MIT */
/*
 * hf_chanlock.h - waits with a deadline and channel locks (chanlock.c), in a
 * process and between the processes of a shared emulated card.
 */
#ifndef HF_CHANLOCK_H
#define HF_CHANLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "xdma_engine.h"

struct hellofpga_dev;

/**
 * struct hf_shared_locks - the first page of a shared emulated card's lock
 * file, mapped by every handle of the card (chanlock.c).
 * @magic: HF_SHARED_LOCKS_MAGIC once initialised (written last)
 * @version: HF_SHARED_LOCKS_VERSION
 * @mutex_size: sizeof(pthread_mutex_t) of the build that laid it out: a
 *	build with another layout (another ABI) is refused, never mixed
 * @chan: a robust process-shared mutex per channel [dir][ch]
 */
struct hf_shared_locks {
	uint32_t magic;
	uint32_t version;
	uint32_t mutex_size;
	uint32_t reserved;
	pthread_mutex_t chan[2][XDMA_MAX_CHANNELS];
};

#define HF_SHARED_LOCKS_MAGIC	0x4b4c4648u	/* "HFLK" */
#define HF_SHARED_LOCKS_VERSION	1u
#define HF_SHARED_LOCKS_SIZE	4096

void hf_deadline_in(struct timespec *dl, int timeout_ms);
int hf_mutex_lock_until(pthread_mutex_t *m, const struct timespec *dl);
int hf_rwlock_lock_until(pthread_rwlock_t *l, bool excl,
			 const struct timespec *dl);
int hf_ofd_lock_until(int fd, short type, off_t start, off_t len,
		      const struct timespec *dl);
struct hf_shared_locks *hf_shared_locks_map(int fd, int *err);
void hf_shared_locks_unmap(struct hf_shared_locks *sl);
int hf_chan_lock(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		 const struct timespec *dl);
void hf_chan_unlock(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch);

#endif /* HF_CHANLOCK_H */
