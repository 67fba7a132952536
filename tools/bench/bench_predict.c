// SPDX-License-Identifier: MIT
/*
 * bench_predict.c - the predicted cost of one transfer on real hardware
 * (bench_predict.h; docs/benchmarks.md, "Predicted cost per transfer"):
 *
 *   total = reads * BCOST_MMIO_READ_NS + writes * BCOST_MMIO_WRITE_NS
 *         + fetch + irqs * BCOST_IRQ_NS + bytes / rate
 *   fetch = desc_ns + (desc - 1) * max(0, desc_ns - bytes / desc / rate)
 *         + desc * BCOST_DESC_BYTES / rate
 *
 * The same arithmetic for the counts the emulated card saw of hellofpga's
 * transfers and for the reference driver's, so the two are compared on
 * the same assumptions.  What it leaves out (software: system calls,
 * pinning and mapping pages, the copy to the GPU of the traditional path)
 * makes it a floor of a transfer's time, not a measurement.
 */
#include "bench_predict.h"

/*
 * The Xilinx reference driver's transfers (dma_ip_drivers XDMA 2025.2.0,
 * a read() or write() of its char devices, MSI-X), as this project's
 * issue 13 counts them: one descriptor per 4 KiB page of the user buffer
 * (docs/results/2026-11-29-efficiency), one interrupt per transfer.
 */
const struct bcost_ref bcost_reference[BCOST_NREF] = {
	{ 4ull << 10, { 5, 7, 1, 1, 4ull << 10 } },
	{ 64ull << 10, { 5, 7, 16, 1, 64ull << 10 } },
	{ 4ull << 20, { 7, 10, 1024, 1, 4ull << 20 } },
};

/**
 * bcost_predict() - the time of a transfer of counts @c over link @l.
 * @out: receives it by part; all zero for a link without a rate
 */
void bcost_predict(const struct bcost_link *l, const struct bcost_counts *c,
		   struct bcost *out)
{
	double per_desc, exposed;

	*out = (struct bcost){ 0 };
	if (!(l->gbps > 0))
		return;
	out->mmio_ns = c->mmio_reads * BCOST_MMIO_READ_NS +
		       c->mmio_writes * BCOST_MMIO_WRITE_NS;
	if (c->desc > 0) {
		per_desc = (double)c->bytes / c->desc / l->gbps;
		exposed = l->fetch_ns > per_desc ? l->fetch_ns - per_desc : 0;
		out->fetch_ns = l->fetch_ns + (c->desc - 1) * exposed +
				c->desc * BCOST_DESC_BYTES / l->gbps;
	}
	out->irq_ns = c->irqs * BCOST_IRQ_NS;
	out->data_ns = (double)c->bytes / l->gbps;
	out->total_ns = out->mmio_ns + out->fetch_ns + out->irq_ns +
			out->data_ns;
	out->gbps = out->total_ns > 0 ? (double)c->bytes / out->total_ns : 0;
}
