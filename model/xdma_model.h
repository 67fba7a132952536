/* SPDX-License-Identifier: GPL-2.0-or-later OR MIT */
/*
 * xdma_model.h - host-independent software model of an FPGA card with the
 * Xilinx XDMA IP (PG195) with AXI memory-mapped channels (card DDR) or, built
 * with xdma_model_config.st, AXI-Stream channels: the DMA/config BAR and the
 * H2C/C2H scatter-gather engines.  The user logic behind the IP (the user
 * BAR, what the stream ports connect to, the user interrupt lines) is the
 * design's: its creator attaches it through xdma_user.h (the reference
 * design: refdesign/hf_refdesign.h).
 *
 * The model knows nothing about where it runs.  A host (model/inproc/ for
 * the library, model/qemu/ for QEMU) gives it bus-master DMA, interrupt
 * delivery, time and engine threads or timers through struct
 * xdma_model_host_ops, and calls its MMIO entry points.  docs/xdma-model.md
 * is the register reference.
 *
 * Time: with a link model (xdma_model_config.link) a descriptor's data moves
 * progressively at the link's rate; the model never sleeps, it asks its host
 * to call xdma_model_engine_work() again at a given time (ops->schedule).
 * Without a link model an engine moves each descriptor in one copy and
 * needs no timer (only a timed fault does).
 *
 * Concurrency: MMIO entry points may be called from any thread; each engine's
 * work runs in the thread the host chooses (xdma_model_engine_work()).  The
 * model never calls a host op with its internal lock held, so a host may
 * call back into the model (an ISR reading a status register) from msi()/intx().
 */
#ifndef HF_XDMA_MODEL_H
#define HF_XDMA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdma_link.h"
#include "xdma_user.h"

#define XDMA_MODEL_DEFAULT_DDR_SIZE	(2ull << 30)	/* 2 GiB */

/**
 * enum xdma_model_irq_mode - what the host enabled in PCI config space.
 */
enum xdma_model_irq_mode {
	XDMA_MODEL_IRQ_NONE = 0,	/* nothing enabled: poll mode only */
	XDMA_MODEL_IRQ_LEGACY,		/* INTx level */
	XDMA_MODEL_IRQ_MSI,
	XDMA_MODEL_IRQ_MSIX,
};

/**
 * enum xdma_model_fault - injectable faults (tests, fault tolerance).
 */
enum xdma_model_fault {
	XDMA_FAULT_NONE = 0,
	XDMA_FAULT_DESC_READ = 1u << 0,	/* next descriptor fetch fails (UR) */
	XDMA_FAULT_STALL = 1u << 1,	/* engine stays busy until Run clears */
	XDMA_FAULT_LOST_IRQ = 1u << 2,	/* interrupts are not delivered */
	XDMA_FAULT_DEAD = 1u << 3,	/* every register reads 0xffffffff */
	XDMA_FAULT_HANG = 1u << 4,	/* engines hang for a time, recover */
};

#define XDMA_FAULTS_ALL			0x1f
#define XDMA_MODEL_MAX_HANG_NS		(3600ull * 1000000000ull)

/**
 * struct xdma_model_config - what the card is built with.
 * @num_h2c: H2C channels, 1..4 (default 4 when 0)
 * @num_c2h: C2H channels, 1..4 (default 4 when 0)
 * @ddr: card memory provided by the host, @ddr_size bytes, or NULL to let
 *	the model map sparse anonymous memory (costs only what is touched)
 * @ddr_size: card memory size in bytes (default 2 GiB when 0)
 * @addr_align: ALIGNMENTS address alignment in bytes (default 1)
 * @len_gran: ALIGNMENTS length granularity in bytes (default 1)
 * @link: PCIe link model (@link.gen 0, the default: none, each descriptor
 *	moves in one copy as fast as the host copies); a link from
 *	xdma_link_parse() + xdma_link_finish()
 * @st: the channels are AXI-Stream (identifiers say so): C2H engines take
 *	records from the user logic at their channel's port, H2C engines feed
 *	it (the reference design: a frame source and a checking sink per
 *	channel, docs/xdma-model.md "AXI-Stream"); descriptor credits are
 *	used; card DDR is still there for xdma_model_card_read/write() but no
 *	engine reaches it
 * @user: the user logic behind the IP (xdma_user.h), created with the
 *	card; NULL: none (the user BAR reads 0, every access a guest error;
 *	stream ports carry nothing)
 * @user_arg: passed to @user->create (the implementation's own)
 */
struct xdma_model_config {
	uint32_t num_h2c;
	uint32_t num_c2h;
	void *ddr;
	uint64_t ddr_size;
	uint32_t addr_align;
	uint32_t len_gran;
	struct xdma_link link;
	bool st;
	const struct xdma_user_ops *user;
	const void *user_arg;
};

/**
 * struct xdma_model_host_ops - what a host gives the model.
 * @dma_read: bus-master read of @len bytes at bus address @bus into @dst;
 *	0, or a negative errno if any byte is not mapped for reading (then
 *	the model reports a PCIe read error and discards the data); -EBUSY
 *	when the host has bus mastering off (the request is not issued: a
 *	descriptor fetch waits for xdma_model_bus_master(m, true), other
 *	accesses fail as errors do, see docs/xdma-model.md)
 * @dma_write: bus-master write; 0 or a negative errno as @dma_read
 * @msi: deliver message interrupt @vector (MSI-X table entry or MSI vector)
 * @intx: set the legacy interrupt line to @level
 * @kick: engine @engine (engine order) has work: call
 *	xdma_model_engine_work(@engine) from an engine thread, soon
 * @now_ns: the host's clock in ns, monotonic (the in-process host's
 *	CLOCK_MONOTONIC, QEMU's virtual clock); the link model, timed faults
 *	and the performance counters run on it
 * @schedule: call xdma_model_engine_work(@engine) again once now_ns()
 *	reaches @when_ns (or later; never sleep in the caller): the model
 *	asks for at most one wake-up per engine, a new request replaces the
 *	previous one; a kick in between is allowed, as are spurious calls
 */
struct xdma_model_host_ops {
	int (*dma_read)(void *host, uint64_t bus, void *dst, size_t len);
	int (*dma_write)(void *host, uint64_t bus, const void *src,
			 size_t len);
	void (*msi)(void *host, uint32_t vector);
	void (*intx)(void *host, bool level);
	void (*kick)(void *host, uint32_t engine);
	uint64_t (*now_ns)(void *host);
	void (*schedule)(void *host, uint32_t engine, uint64_t when_ns);
};

/**
 * struct xdma_model_counters - activity since creation (or counter reset).
 */
struct xdma_model_counters {
	uint64_t mmio_reads;
	uint64_t mmio_writes;
	uint64_t desc_fetched;
	uint64_t bytes_h2c;
	uint64_t bytes_c2h;
	uint64_t irqs;		/* MSI/MSI-X messages and INTx assertions */
	uint64_t wb_writes;	/* poll-mode writebacks */
	uint64_t errors;	/* engine stops with an error status */
	uint64_t guest_errors;	/* accesses to reserved/read-only offsets */
	uint64_t dma_errors;	/* bus accesses that failed (IOMMU, MEMTX) */
	uint64_t dma_blocked;	/* accesses held back: bus mastering off */
};

struct xdma_model;

int xdma_model_create(const struct xdma_model_config *cfg,
		      const struct xdma_model_host_ops *ops, void *host,
		      struct xdma_model **out);
void xdma_model_destroy(struct xdma_model *m);
void xdma_model_reset(struct xdma_model *m);

uint32_t xdma_model_dma_read32(struct xdma_model *m, uint32_t off);
void xdma_model_dma_write32(struct xdma_model *m, uint32_t off, uint32_t val);
uint32_t xdma_model_user_read32(struct xdma_model *m, uint32_t off);
void xdma_model_user_write32(struct xdma_model *m, uint32_t off, uint32_t val);
uint32_t xdma_model_user_bar_size(const struct xdma_model *m);

void xdma_model_engine_work(struct xdma_model *m, uint32_t engine);
void xdma_model_set_irq_mode(struct xdma_model *m,
			     enum xdma_model_irq_mode mode);

int xdma_model_card_read(struct xdma_model *m, uint64_t addr, void *buf,
			 size_t len);
int xdma_model_card_write(struct xdma_model *m, uint64_t addr,
			  const void *buf, size_t len);
void *xdma_model_card_mem(struct xdma_model *m);
uint64_t xdma_model_card_size(const struct xdma_model *m);
uint32_t xdma_model_num_engines(const struct xdma_model *m);

void xdma_model_get_counters(struct xdma_model *m,
			     struct xdma_model_counters *c);
void xdma_model_reset_counters(struct xdma_model *m);
void xdma_model_inject(struct xdma_model *m, uint32_t faults);
void xdma_model_bus_master(struct xdma_model *m, bool on);
int xdma_model_inject_hang(struct xdma_model *m, uint64_t ns);
uint64_t xdma_model_hang_left_ns(struct xdma_model *m);
void xdma_model_set_hang_engines(struct xdma_model *m, uint32_t mask);
uint32_t xdma_model_get_hang_engines(struct xdma_model *m);
uint32_t xdma_model_get_faults(struct xdma_model *m);
int xdma_model_stray_irq(struct xdma_model *m, uint32_t engine);

#endif /* HF_XDMA_MODEL_H */
