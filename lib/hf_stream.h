/* SPDX-License-Identifier: MIT */
/*
 * hf_stream.h - C2H AXI-Stream rings (stream.c): a stream, what a GPU waits
 * on, the writeback layout both backends share.
 */
#ifndef HF_STREAM_H
#define HF_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hellofpga.h"
#include "xdma_engine.h"

struct hellofpga_dev;
struct hf_pin;

/**
 * struct hf_stream_gpu_slot - where a GPU waits for a buffer of a stream.
 * @index: the buffer
 * @status: its writeback slot's status word (host address)
 * @status_dev: the same, the GPU's address
 * @gpu_ring: the ring is in GPU memory (the wait flushes remote writes)
 */
struct hf_stream_gpu_slot {
	uint32_t index;
	uint32_t *status;
	uint64_t status_dev;
	bool gpu_ring;
};

/**
 * struct hellofpga_stream - a C2H stream (HELLOFPGA_STREAM).
 * @h: the handle it was opened on (every call looks it up: -EBADF, -ECHILD)
 * @dev: the card; NULL once the ring is stopped (by HelloFPGA_Close() of @h
 *	or HelloFPGA_Stream_Close(); cleared under @lock and @gw_lock)
 * @next: the card's list of streams, under the card's @stream_lock
 * @cfg: the configuration
 * @lock: serialises waits, the application of releases and the stop
 * @gw_lock: serialises GPU waits (HelloFPGA_Stream_WaitOnGPU()) and GPU
 *	releases with the stop (taken inside @lock there)
 * @db: the doorbells of HelloFPGA_Stream_ReleaseOnGPU(), one word per
 *	buffer the GPU sets to 1 (atomic pointer; NULL until the first)
 * @db_dev: their GPU address
 * @db_armed: per buffer (atomic): a GPU release of it is queued
 * @ndb_armed: how many are (atomic)
 * @closing: set (atomic) when the handle or the stream is being closed
 * @revoked: set (atomic) when the GPU memory of the pin the ring lies in
 *	is freed: the ring is stopped (stream_halt), its waits -EIO
 * @halted: that stop was done (under @lock)
 * @pending: releases wait to be applied (atomic)
 * @held: per buffer (atomic): 0 with the card, 1 held by the caller, 2
 *	released, to be handed to the backend under @lock
 * @nheld: buffers in state 1 (atomic)
 * @host: the ring in host memory (NULL for a GPU ring)
 * @ref_design: the card is the reference design (HF_USER_ID): its source's
 *	counters are read
 * @drop_base: the source's DROPPED counter when the stream opened
 * @sent_base: its SENT counter then
 * @drop_last: DROPPED at the last EOP a wait handed out
 * @bdata: the backend's state
 * @refs: calls using it, under the stream table's lock (stream.c): a
 *	HelloFPGA_Stream_Close() waits for the others before it frees it
 * @stopped: HelloFPGA_Close() of @h has stopped it and is done with it
 *	(stream table's lock): a HelloFPGA_Stream_Close() that came during
 *	that Close waits for this before it frees it
 * @inherited: this process is a fork() child of the one that opened it
 *	(stream table's lock)
 * @value: its HELLOFPGA_STREAM (generation << 16 | slot + 1), never a
 *	pointer: a stale or made-up value is -EBADF, not a crash
 */
struct hellofpga_stream {
	uint32_t refs;
	bool stopped;
	bool inherited;
	HELLOFPGA_STREAM value;
	HELLOFPGA_HANDLE h;
	struct hellofpga_dev *dev;
	struct hellofpga_stream *next;
	HELLOFPGA_STREAM_CONFIG cfg;
	pthread_mutex_t lock;
	pthread_mutex_t gw_lock;
	uint32_t *db;
	uint64_t db_dev;
	uint8_t db_armed[HELLOFPGA_STREAM_MAX_BUFFERS];
	uint32_t ndb_armed;
	bool closing;
	bool revoked;
	bool halted;
	bool pending;
	uint8_t held[HELLOFPGA_STREAM_MAX_BUFFERS];
	uint32_t nheld;
	uint8_t *host;
	bool ref_design;
	uint32_t drop_base;
	uint32_t sent_base;
	uint32_t drop_last;
	void *bdata;
};

void hf_stream_wake_all(struct hellofpga_dev *dev);
void hf_stream_close_all(struct hellofpga_dev *dev);
void hf_stream_pin_revoke(struct hellofpga_dev *dev, struct hf_pin *pin);

/**
 * struct hf_stream_wb - a ring's writeback memory in the library, the same
 *	in both backends: the slots of XDMA_STM_WB_SIZE bytes the card writes,
 *	one per buffer, in whole pages of their own, then the doorbells of GPU
 *	releases, a word per buffer, in whole pages after them
 *	(hf_stream_wb_alloc()).
 * @mem: the memory, NULL when there is none
 * @len: its bytes
 * @slots_len: the slots' pages (what the card may write)
 * @dev: its device address for the GPU, 0 until the first GPU wait or
 *	release
 * @gpu_waited: a GPU wait or release was enqueued on it: it is never freed
 *	(one may still be pending in a GPU stream when the ring stops; the
 *	stop's error marks end it)
 */
struct hf_stream_wb {
	void *mem;
	size_t len;
	size_t slots_len;
	uint64_t dev;
	bool gpu_waited;
};

int hf_stream_wb_alloc(struct hf_stream_wb *w, uint32_t n);
void hf_stream_wb_free(struct hf_stream_wb *w);
int hf_stream_wb_gpu_slot(struct hellofpga_dev *dev, struct hf_stream_wb *w,
			  uint32_t index, struct hf_stream_gpu_slot *gs,
			  const char *fn);
int hf_stream_wb_gpu_doorbells(struct hellofpga_dev *dev,
			       struct hf_stream_wb *w, uint32_t **db,
			       uint64_t *db_dev, const char *fn);
int hf_stream_slot_error(struct hellofpga_dev *dev, int err, const char *fn,
			 uint64_t seq, uint64_t credited, uint32_t n);

/* An MM call on an AXI-Stream card: C2H refused, H2C a packet (stream.c). */
int hf_stream_card_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir,
			 uint64_t card_addr, const char *fn);

#endif /* HF_STREAM_H */
