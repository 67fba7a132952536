/* SPDX-License-Identifier: MIT */
/*
 * backend_emu_priv.h - the emulated backend's own header: the card, its
 * engines, pins and options, and what each of its files gives the ones
 * above it (hf_layers.h):
 *   backend_emu_card.c	card name options, state files, card memory,
 *			interrupts, engines
 *   backend_emu_xfer.c	CPU-path transfers, user registers, counters,
 *			user interrupts
 *   backend_emu_pin.c	GPU Direct pins and transfers
 *   backend_emu_stream.c	C2H streams
 *   backend_emu.c		the ops table, open and close
 */
#ifndef HF_BACKEND_EMU_PRIV_H
#define HF_BACKEND_EMU_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hf_dev.h"
#include "hf_gpudirect.h"
#include "hf_stream.h"
#include "hf_rtl_load.h"
#include "inproc/emu_host.h"

/**
 * struct emu_engine - one engine with its descriptor storage.
 * @eng: engine core state
 * @chain: descriptor chain in @desc_cpu
 * @desc_cpu: DMA-coherent descriptor storage
 * @desc_bus: bus address of @desc_cpu
 * @desc_cap: descriptors @desc_cpu holds
 * @bounce: bounce buffer for engines that need alignment (lazily allocated)
 * @bounce_bus: bus address of @bounce
 */
struct emu_engine {
	struct hf_xdma_engine eng;
	struct hf_xdma_chain chain;
	void *desc_cpu;
	u64 desc_bus;
	u32 desc_cap;
	void *bounce;
	u64 bounce_bus;
};

struct emu_card;

/**
 * struct emu_uirq - a user interrupt of the emulated card.
 * @card: the card
 * @n: its number
 * @efd: eventfd, readable while a delivery waits to be taken (it and
 *	@count change together, under the card's @uirq_lock); -1 until armed
 * @count: deliveries since the last take
 */
struct emu_uirq {
	struct emu_card *card;
	u32 n;
	int efd;
	u32 count;
};

/**
 * struct emu_card - the in-process emulated card behind a handle.
 * @host: in-process host of the model
 * @xdev: engine-core view of the DMA BAR
 * @eng: engines [dir][ch]
 * @by_index: engines in engine order (IRQ block bit order)
 * @nengines: entries of @by_index
 * @wb_cpu: poll-mode writeback words, one per engine
 * @wb_bus: bus address of @wb_cpu
 * @irq_mode: HELLOFPGA_IRQ_*
 * @align: largest of the engines' address alignment and length granularity
 * @ddr: shared card memory mapping (NULL when private)
 * @ddr_size: card memory size
 * @gpu_lock: guards @gpu_host_tried and @gpu_host
 * @gpu_host_tried: registering card memory with the GPU was attempted
 * @gpu_host: card memory registered with hf_gpu_register_host(), or NULL
 * @force_region: map GPU memory as regions even when CPU-addressable
 *	(test hook)
 * @blk_fd: per H2C channel, an open file of the shared card memory whose
 *	OFD byte-range locks serialise writes of the blocks of an aligned
 *	card (emu_blocks_lock()); -1 when the card is private or not aligned
 * @blk_rw: the same for a private aligned card, within the handle
 * @link: the PCIe link model it was opened with (gen 0: none)
 * @uirq_lock: guards the @uirq counts and descriptors
 * @uirq_armed: user interrupts armed (a bit each; changed atomically)
 * @uirq: the user interrupts
 * @wedged_lock: guards @wedged
 * @wedged: rings whose stop found the engine wedged (the card may still
 *	write them): kept until the card's engine threads have stopped at
 *	its close, then freed
 */
struct emu_stream;

struct emu_card {
	struct hf_emu_host *host;
	struct hf_rtl_plugin rtl;
	struct hf_xdma_dev xdev;
	struct emu_engine eng[2][XDMA_MAX_CHANNELS];
	struct emu_engine *by_index[XDMA_MAX_ENGINES];
	u32 nengines;
	void *wb_cpu;
	u64 wb_bus;
	int irq_mode;
	u32 align;
	void *ddr;
	u64 ddr_size;
	pthread_mutex_t gpu_lock;
	bool gpu_host_tried;
	void *gpu_host;
	bool force_region;
	int blk_fd[XDMA_MAX_CHANNELS];
	pthread_rwlock_t blk_rw;
	struct xdma_link link;
	pthread_mutex_t uirq_lock;
	u32 uirq_armed;
	struct emu_uirq uirq[XDMA_USER_IRQS];
	pthread_mutex_t wedged_lock;
	struct emu_stream *wedged;
};

/**
 * struct emu_pin - an emulated card's side of a pin (struct hf_pin bdata).
 * @gpu: first byte of the pinned GPU range
 * @region: mapped as one region moved by the GPU copy engine
 * @nseg: entries of @sg
 * @sg: bus segments of the pin, one IOMMU mapping each
 * @desc_cpu: descriptor storage of all the chains
 * @desc_bus: its bus address
 * @builds: chain builds (atomic; statistics for tests)
 * @chain: chains [dir][ch], in @desc_cpu
 */
struct emu_pin {
	u8 *gpu;
	bool region;
	u32 nseg;
	struct hf_sg *sg;
	void *desc_cpu;
	u64 desc_bus;
	u64 builds;
	struct hf_xdma_chain_cache chain[2][XDMA_MAX_CHANNELS];
};

/**
 * struct emu_opts - what a card name asks for.
 */
struct emu_opts {
	unsigned int index;
	u32 num_h2c;
	u32 num_c2h;
	u64 ddr_size;
	bool ddr_given;
	int irq_mode;
	u32 align;
	bool private_mem;
	bool sync;
	bool st;
	bool rtl;
	struct xdma_link link;
};

/* backend_emu_card.c */
int emu_parse_spec(struct hellofpga_dev *dev, const char *spec,
		   struct emu_opts *o);
int emu_lock_range(int fd, short type, off_t start, off_t len);
int emu_map_shared_ddr(struct hellofpga_dev *dev, struct emu_card *card,
		       struct emu_opts *o);
int emu_setup_irqs(struct hellofpga_dev *dev, struct emu_card *card);
int emu_init_engines(struct hellofpga_dev *dev, struct emu_card *card);

/* backend_emu_xfer.c */
int emu_engine_usable(struct hellofpga_dev *dev, struct hf_xdma_engine *e);
int emu_blocks_lock(struct hellofpga_dev *dev, struct emu_card *card,
		    int ch, u64 at, u64 len, bool rmw,
		    const struct timespec *dl);
void emu_blocks_unlock(struct emu_card *card, int ch, u64 at, u64 len);
int emu_xfer(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
	     void *buf, uint64_t card_addr, size_t len,
	     const struct timespec *dl, size_t *actual);
int emu_user_read32(struct hellofpga_dev *dev, uint32_t off,
		    uint32_t *val);
int emu_user_write32(struct hellofpga_dev *dev, uint32_t off,
		     uint32_t val);
void emu_counters(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c);
void emu_dma_faults(struct hellofpga_dev *dev, HELLOFPGA_DMA_FAULTS *f);
void emu_link_model(struct hellofpga_dev *dev,
		    HELLOFPGA_LINK_MODEL *lm);
int emu_uirq_arm(struct hellofpga_dev *dev, int irq, int *fd);
int emu_uirq_take(struct hellofpga_dev *dev, int irq, uint32_t *count);

/* backend_emu_pin.c */
int emu_gpu_pin(struct hellofpga_dev *dev, struct hf_pin *pin);
void emu_gpu_unpin(struct hellofpga_dev *dev, struct hf_pin *pin);
int emu_gpu_xfer(struct hellofpga_dev *dev, struct hf_pin *pin,
		 enum hf_xdma_dir dir, int ch, size_t off, uint64_t card_addr,
		 size_t len, int timeout_ms, const struct timespec *dl,
		 const struct hf_xfer_wb *wb, size_t *actual);
int emu_wb_map(struct hellofpga_dev *dev, void *mem, size_t len,
	       uint64_t *map);
void emu_wb_unmap(struct hellofpga_dev *dev, uint64_t map);

/* backend_emu_stream.c */
int emu_stream_start(struct hellofpga_dev *dev, struct hellofpga_stream *s);
void emu_stream_free_wedged(struct emu_card *card);
int emu_stream_wait(struct hellofpga_dev *dev, struct hellofpga_stream *s,
		    uint64_t timeout_ns, struct hf_xdma_ring_buf *b);
int emu_stream_release(struct hellofpga_dev *dev,
		       struct hellofpga_stream *s, uint32_t index);
void emu_stream_kick(struct hellofpga_dev *dev, struct hellofpga_stream *s);
void emu_stream_stats(struct hellofpga_dev *dev, struct hellofpga_stream *s,
		      struct hf_xdma_ring_stats *st);
int emu_stream_stop(struct hellofpga_dev *dev, struct hellofpga_stream *s);
int emu_stream_halt(struct hellofpga_dev *dev, struct hellofpga_stream *s);
int emu_stream_gpu_slot(struct hellofpga_dev *dev,
			struct hellofpga_stream *s, u64 seq,
			struct hf_stream_gpu_slot *gs, const char *fn);
int emu_stream_gpu_doorbells(struct hellofpga_dev *dev,
			     struct hellofpga_stream *s, u32 **db,
			     u64 *db_dev, const char *fn);

#endif
