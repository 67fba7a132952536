// SPDX-License-Identifier: MIT
/*
 * test_emu_host.c - the in-process host of the emulated card: IOMMU
 * (bus addresses, byte-exact mappings, permissions), coherent memory,
 * interrupt handler registration.
 */
#include <sys/mman.h>

#include "hf_stream_pattern.h"
#include "model_test.h"

static const struct xdma_model_config cfg_small = {
	.num_h2c = 1,
	.num_c2h = 1,
	.ddr_size = 1 << 20,
};

/*
 * Channel 0 of @c2h moves @len bytes between @bus and card address 0 (H2C
 * reads @bus, C2H writes it); true on success.
 */
static bool card_moves(struct tcard *t, bool c2h, u64 bus, u32 len)
{
	u32 st;

	if (c2h)
		set_desc(t, 0, XDMA_DESC_CTRL_STOP, 0, len, 0, bus, 0);
	else
		set_desc(t, 0, XDMA_DESC_CTRL_STOP, 0, len, bus, 0, 0);
	wr(t, ch_off(c2h, 0, XDMA_CHAN_CONTROL), 0);
	rd(t, ch_off(c2h, 0, XDMA_CHAN_STATUS_RC));
	start(t, c2h, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	st = rd(t, ch_off(c2h, 0, XDMA_CHAN_STATUS));
	return st == XDMA_STAT_DESC_STOPPED;
}

static bool card_reads(struct tcard *t, u64 bus, u32 len)
{
	return card_moves(t, false, bus, len);
}

static bool card_writes(struct tcard *t, u64 bus, u32 len)
{
	return card_moves(t, true, bus, len);
}

HF_TEST(host_rejects_unknown_flags)
{
	struct hf_emu_host *h = NULL;

	HF_CHECK_ERR(hf_emu_host_create(&cfg_small, 0x80, &h), -EINVAL);
	HF_CHECK(h == NULL);
}

HF_TEST(iommu_bus_address_is_not_cpu_address_keeps_page_offset)
{
	struct tcard t;
	u8 *p = aligned_alloc(4096, 8192);
	u64 bus;

	HF_CHECK(p != NULL);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p + 100, 1000, HF_DMA_TO_DEVICE,
				   &bus), 0);
	HF_CHECK(bus != (u64)(uintptr_t)(p + 100));
	HF_CHECK(bus >= 0x100000000ull);
	HF_CHECK_EQ(bus & 4095, 100);
	HF_CHECK_EQ(hf_emu_dma_unmap(t.h, bus), 0);
	tcard_close(&t);
	free(p);
}

HF_TEST(iommu_mapping_is_byte_exact)
{
	struct tcard t;
	struct hf_emu_host_stats st;
	u8 *p = calloc(1, 4096);
	u64 bus;

	t_expect_dma_faults(2);	/* the faults this case provokes */
	HF_CHECK(p != NULL);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p + 8, 100, HF_DMA_TO_DEVICE, &bus),
		    0);
	HF_CHECK(card_reads(&t, bus, 100));
	HF_CHECK(card_reads(&t, bus + 99, 1));
	HF_CHECK(!card_reads(&t, bus + 99, 2));	/* one byte past the end */
	HF_CHECK(!card_reads(&t, bus - 1, 1));	/* one byte before */
	hf_emu_host_get_stats(t.h, &st);
	HF_CHECK_EQ(st.faults, 2);
	HF_CHECK_EQ(st.last_fault_bus, bus - 1);
	HF_CHECK_EQ(hf_emu_dma_unmap(t.h, bus), 0);
	tcard_close(&t);
	free(p);
}

HF_TEST(iommu_neighbouring_mappings_are_separate)
{
	struct tcard t;
	u8 *p = calloc(1, 8192);
	u64 b1, b2;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	HF_CHECK(p != NULL);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p, 4096, HF_DMA_TO_DEVICE, &b1), 0);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p + 4096, 4096, HF_DMA_TO_DEVICE,
				   &b2), 0);
	HF_CHECK(b2 > b1 + 4096);	/* guard gap */
	HF_CHECK(!card_reads(&t, b1 + 4000, 200));
	tcard_close(&t);
	free(p);
}

HF_TEST(iommu_read_needs_to_device_permission)
{
	struct tcard t;
	u8 *p = calloc(1, 256);
	u64 bus;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	HF_CHECK(p != NULL);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p, 256, HF_DMA_FROM_DEVICE, &bus), 0);
	HF_CHECK(!card_reads(&t, bus, 64));
	tcard_close(&t);
	free(p);
}

HF_TEST(iommu_unmap_makes_range_unreachable)
{
	struct tcard t;
	struct hf_emu_host_stats st;
	u8 *p = calloc(1, 256);
	u64 bus;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	HF_CHECK(p != NULL);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	hf_emu_host_get_stats(t.h, &st);
	HF_CHECK_EQ(st.maps, 2);	/* ring and writeback of tcard */
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p, 256, HF_DMA_BIDIRECTIONAL, &bus),
		    0);
	hf_emu_host_get_stats(t.h, &st);
	HF_CHECK_EQ(st.maps, 3);
	HF_CHECK(card_reads(&t, bus, 64));
	HF_CHECK_EQ(hf_emu_dma_unmap(t.h, bus), 0);
	HF_CHECK(!card_reads(&t, bus, 64));
	hf_emu_host_get_stats(t.h, &st);
	HF_CHECK_EQ(st.faults, 1);		/* unmapped since: a fault */
	HF_CHECK_EQ(st.last_fault_bus, bus);
	HF_CHECK_ERR(hf_emu_dma_unmap(t.h, bus), -ENOENT);
	HF_CHECK_ERR(hf_emu_dma_unmap(t.h, t.ring_bus), -ENOENT);
	tcard_close(&t);
	free(p);
}

/*
 * HF_DMA_GUARDED: memory a careless caller unmaps while it is mapped for
 * the card.  The card's write and read fault at the first byte that is
 * gone (no SIGSEGV); before, they move the bytes.
 */
HF_TEST(iommu_guarded_mapping_of_unmapped_memory_faults)
{
	struct hf_emu_host_stats st;
	struct tcard t;
	u8 *p;
	u64 bus;

	t_expect_dma_faults(2);	/* the faults this case provokes */
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	HF_CHECK(p != MAP_FAILED);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p, 2 * 4096,
				   HF_DMA_BIDIRECTIONAL | HF_DMA_GUARDED,
				   &bus), 0);
	HF_CHECK_EQ(xdma_model_card_write(t.m, 0, "\x5a", 1), 0);
	HF_CHECK(card_writes(&t, bus, 2 * 4096));
	HF_CHECK_EQ(p[0], 0x5a);
	HF_CHECK(card_reads(&t, bus, 2 * 4096));
	HF_CHECK_EQ(munmap(p + 4096, 4096), 0);
	HF_CHECK(!card_writes(&t, bus, 2 * 4096));
	hf_emu_host_get_stats(t.h, &st);
	HF_CHECK_EQ(st.faults, 1);
	HF_CHECK_EQ(st.last_fault_bus, bus + 4096);
	HF_CHECK(!card_reads(&t, bus + 100, 2 * 4096 - 100));
	hf_emu_host_get_stats(t.h, &st);
	HF_CHECK_EQ(st.faults, 2);
	HF_CHECK_EQ(st.last_fault_bus, bus + 4096);
	HF_CHECK_EQ(hf_emu_dma_unmap(t.h, bus), 0);
	tcard_close(&t);
	munmap(p, 4096);
}

/* ... and the card's write to read-only memory faults, as the driver's
 * pinning refuses it. */
HF_TEST(iommu_guarded_write_to_read_only_memory_faults)
{
	struct tcard t;
	u8 *p;
	u64 bus;

	t_expect_dma_faults(1);	/* the fault this case provokes */
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	HF_CHECK(p != MAP_FAILED);
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_EQ(hf_emu_dma_map(t.h, p, 4096,
				   HF_DMA_FROM_DEVICE | HF_DMA_GUARDED, &bus),
		    0);
	HF_CHECK(!card_writes(&t, bus, 64));
	HF_CHECK_EQ(hf_emu_dma_unmap(t.h, bus), 0);
	tcard_close(&t);
	munmap(p, 4096);
}

HF_TEST(iommu_map_rejects_bad_arguments)
{
	struct tcard t;
	u8 b[16];
	u64 bus;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_ERR(hf_emu_dma_map(t.h, b, 0, HF_DMA_TO_DEVICE, &bus),
		     -EINVAL);
	HF_CHECK_ERR(hf_emu_dma_map(t.h, NULL, 16, HF_DMA_TO_DEVICE, &bus),
		     -EINVAL);
	HF_CHECK_ERR(hf_emu_dma_map(t.h, b, 16, 0, &bus), -EINVAL);
	HF_CHECK_ERR(hf_emu_dma_map(t.h, b, 16, HF_DMA_GUARDED, &bus),
		     -EINVAL);
	HF_CHECK_ERR(hf_emu_dma_map(t.h, b, 16, 8 | HF_DMA_TO_DEVICE, &bus),
		     -EINVAL);
	tcard_close(&t);
}

HF_TEST(dma_alloc_is_page_aligned_zeroed_and_reachable)
{
	struct tcard t;
	u8 *p;
	u64 bus;

	t_expect_dma_faults(2);	/* the faults this case provokes */
	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	p = hf_emu_dma_alloc(t.h, 5000, &bus);
	HF_CHECK(p != NULL);
	HF_CHECK_EQ((uintptr_t)p & 4095, 0);
	HF_CHECK_EQ(bus & 4095, 0);
	HF_CHECK(all_bytes(p, 5000, 0));
	HF_CHECK(card_reads(&t, bus, 5000));
	HF_CHECK(!card_reads(&t, bus, 5001));
	hf_emu_dma_free(t.h, p, bus);
	HF_CHECK(!card_reads(&t, bus, 64));
	/* not freed: the host frees it at destroy (LSan checks) */
	HF_CHECK(hf_emu_dma_alloc(t.h, 100, &bus) != NULL);
	tcard_close(&t);
}

static void nop_handler(void *arg)
{
}

HF_TEST(request_irq_rejects_bad_vector_and_busy)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_ERR(hf_emu_request_irq(t.h, 32, nop_handler, NULL), -EINVAL);
	HF_CHECK_ERR(hf_emu_request_irq(t.h, 3, NULL, NULL), -EINVAL);
	HF_CHECK_EQ(hf_emu_request_irq(t.h, 3, nop_handler, NULL), 0);
	HF_CHECK_ERR(hf_emu_request_irq(t.h, 3, nop_handler, NULL), -EBUSY);
	hf_emu_free_irq(t.h, 3);
	HF_CHECK_EQ(hf_emu_request_irq(t.h, 3, nop_handler, NULL), 0);
	tcard_close(&t);
}

HF_TEST(free_irq_stops_delivery)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_MSIX);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x3);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(0), 0x0908);
	hf_emu_free_irq(t.h, 8);
	hf_iowrite32(0x3, t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_count(&t, 8), 0);
	HF_CHECK_EQ(irq_count(&t, 9), 1);
	tcard_close(&t);
}

HF_TEST(set_irq_mode_rejects_unknown_mode)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	HF_CHECK_ERR(hf_emu_set_irq_mode(t.h, (enum xdma_model_irq_mode)7),
		     -EINVAL);
	tcard_close(&t);
}

HF_TEST(msi_mode_does_not_drive_intx_handler)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_MSI);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x1);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_VEC(0), 0x5);
	hf_iowrite32(0x1, t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_count(&t, 5), 1);
	HF_CHECK_EQ(irq_total(&t), 1);
	tcard_close(&t);
}

HF_TEST(switching_to_intx_with_pending_asserts_line)
{
	struct tcard t;

	tcard_open(&t, &cfg_small, HF_EMU_SYNC);
	record_irqs(&t, XDMA_MODEL_IRQ_NONE);
	wr(&t, XDMA_IRQ_BASE + XDMA_IRQ_USER_EN, 0x1);
	hf_iowrite32(0x1, t.ubar, HF_USER_IRQ_SET);
	HF_CHECK_EQ(irq_total(&t), 0);
	HF_CHECK_EQ(hf_emu_set_irq_mode(t.h, XDMA_MODEL_IRQ_LEGACY), 0);
	HF_CHECK_EQ(irq_count(&t, 0), 1);
	tcard_close(&t);
}

/*
 * An AXI-ST card behind the in-process host, engines on their threads and
 * the stream source paced on CLOCK_MONOTONIC: a C2H chain fills with
 * frames (writebacks, pattern), an H2C chain streams them back into the
 * sink, which finds them good.
 */
HF_TEST(host_st_card_streams_frames_both_ways_on_engine_threads)
{
	const struct xdma_model_config cfg = {
		.num_h2c = 1, .num_c2h = 1, .ddr_size = 1 << 20, .st = true,
	};
	const u32 n = 8, len = 3000;
	struct tcard t;
	u64 bus;
	u8 *buf;

	tcard_open(&t, &cfg, 0);
	HF_CHECK_EQ(rd(&t, XDMA_C2H_BASE(0)), 0x1fc18006);
	buf = hf_emu_dma_alloc(t.h, n * 4096, &bus);
	HF_CHECK(buf != NULL);
	/* C2H: descriptors 0..n-1, writebacks in the upper half of the page */
	for (u32 i = 0; i < n; i++)
		set_desc(&t, i, i + 1 == n ? XDMA_DESC_CTRL_STOP : 0, 0, 4096,
			 desc_bus(&t, 64 + i), bus + i * 4096,
			 desc_bus(&t, i + 1));
	hf_iowrite32(len, t.ubar, HF_USER_ST_SRC(0) + HF_ST_SRC_FRAME_SIZE);
	hf_iowrite32(20000, t.ubar, HF_USER_ST_SRC(0) + HF_ST_SRC_INTERVAL_NS);
	hf_iowrite32(HF_ST_SRC_CTRL_ENABLE, t.ubar,
		     HF_USER_ST_SRC(0) + HF_ST_SRC_CTRL);
	start(&t, true, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK(wait_idle(&t, true, 0));
	HF_CHECK_EQ(rd(&t, ch_off(true, 0, XDMA_CHAN_COMPLETED_DESC)), n);
	for (u32 i = 0; i < n; i++) {
		const __le32 *wb = (const __le32 *)&t.ring[64 + i];
		u64 seq = ~0ull;

		HF_CHECK_EQ(le32_to_cpu(wb[0]), 0x52b40001);
		HF_CHECK_EQ(le32_to_cpu(wb[1]), len);
		HF_CHECK_EQ(hf_stream_verify(buf + i * 4096, len, &seq), 0);
		HF_CHECK_EQ(seq, i);
	}
	/* H2C: the same frames back, one descriptor each, EOP */
	for (u32 i = 0; i < n; i++)
		set_desc(&t, i, XDMA_DESC_CTRL_EOP |
			 (i + 1 == n ? XDMA_DESC_CTRL_STOP : 0), 0, len,
			 bus + i * 4096, 0, desc_bus(&t, i + 1));
	start(&t, false, 0, 0, 0, CH_CTRL_IE_ALL_RUN);
	HF_CHECK(wait_idle(&t, false, 0));
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_ST_SINK(0) +
				HF_ST_SINK_FRAMES_OK), n);
	HF_CHECK_EQ(hf_ioread32(t.ubar, HF_USER_ST_SINK(0) +
				HF_ST_SINK_FRAMES_BAD), 0);
	tcard_close(&t);
}
