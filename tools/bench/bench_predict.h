/* SPDX-License-Identifier: MIT */
/*
 * bench_predict.h - "hellofpga bench"'s predicted cost of one transfer on
 * real hardware, from what the emulated card counts (MMIO reads and
 * writes, descriptors fetched, interrupts, bytes) and the link model's
 * rate and per-descriptor latency.  Every constant is here and in
 * docs/benchmarks.md ("Predicted cost per transfer"), with its source.
 * Pure arithmetic: no library calls, so tests/tools/test_bench_predict.c
 * checks it against hand-computed values.
 */
#ifndef HF_BENCH_PREDICT_H
#define HF_BENCH_PREDICT_H

#include <stdint.h>

/*
 * The cost of each access, in ns (docs/benchmarks.md says why):
 * BCOST_MMIO_READ_NS: a register read is non-posted: the CPU waits for
 *	the completion's round trip through the root complex to the card
 *	and back (about 1 us on PCIe Gen3 hosts);
 * BCOST_MMIO_WRITE_NS: a register write is posted: the CPU does not wait
 *	for the card, it pays the uncached store (about 0.1 us);
 * BCOST_IRQ_NS: an interrupt's delivery, from the card's MSI-X write to
 *	the waiting thread running again (interrupt entry and a wake-up);
 * BCOST_DESC_BYTES: a descriptor's size on the link (PG195: 32 bytes).
 * A descriptor fetch is the card's read of host memory: its latency is
 * the link model's desc_ns (struct bcost_link).
 */
#define BCOST_MMIO_READ_NS	1000.0
#define BCOST_MMIO_WRITE_NS	100.0
#define BCOST_IRQ_NS		2000.0
#define BCOST_DESC_BYTES	32.0

/**
 * struct bcost_counts - what one transfer costs in accesses.
 * @mmio_reads, @mmio_writes: register reads and writes the card saw
 * @desc: descriptors the card fetched
 * @irqs: interrupts the card raised
 * @bytes: payload bytes
 */
struct bcost_counts {
	double mmio_reads;
	double mmio_writes;
	double desc;
	double irqs;
	uint64_t bytes;
};

/**
 * struct bcost_link - the link, from the card's link model.
 * @gbps: payload rate, GB/s = bytes/ns (HELLOFPGA_LINK_MODEL.gbps)
 * @fetch_ns: latency of a descriptor fetch (HELLOFPGA_LINK_MODEL.desc_ns)
 */
struct bcost_link {
	double gbps;
	double fetch_ns;
};

/**
 * struct bcost - a predicted transfer, ns, by part.
 * @mmio_ns: register reads and writes
 * @fetch_ns: descriptor fetches: the first in full, each later one only
 *	by what it exceeds the data of the descriptor before it (the engine
 *	fetches ahead while data moves), and every descriptor's bytes
 * @irq_ns: interrupts
 * @data_ns: payload at the link's rate
 * @total_ns: the sum
 * @gbps: @bytes / @total_ns
 */
struct bcost {
	double mmio_ns;
	double fetch_ns;
	double irq_ns;
	double data_ns;
	double total_ns;
	double gbps;
};

/**
 * struct bcost_ref - the Xilinx reference driver (dma_ip_drivers XDMA
 * 2025.2.0, char devices, MSI-X): what one transfer of @size costs it.
 */
struct bcost_ref {
	uint64_t size;
	struct bcost_counts c;
};

#define BCOST_NREF	3
extern const struct bcost_ref bcost_reference[BCOST_NREF];

void bcost_predict(const struct bcost_link *l, const struct bcost_counts *c,
		   struct bcost *out);

#endif /* HF_BENCH_PREDICT_H */
