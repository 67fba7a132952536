// SPDX-License-Identifier: MIT
/*
 * test_xfer.c - CPU-path transfers through the emulated card: round trips
 * of random sizes, alignments and card addresses, every completion mode,
 * the end of card memory, chains longer than one descriptor, aligned
 * engines, parallel channels, counters, timeouts and recovery.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "lib_helpers.h"
#include "xdma_model.h"

#define DDR (2ull << 30)

static uint8_t *xalloc(size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	HF_CHECK(p);
	return p;
}

/* Write @len bytes at @card through @h2c, read back through @c2h, compare. */
static void roundtrip(HELLOFPGA_HANDLE h, int h2c, int c2h, uint64_t card,
		      size_t len, size_t src_off, size_t dst_off, uint32_t seed)
{
	uint8_t *src = xalloc(len + src_off), *dst = xalloc(len + dst_off);
	size_t actual = 1;
	long bad;
	int ret;

	t_fill(src + src_off, len, seed);
	memset(dst, 0xee, len + dst_off);
	ret = HelloFPGA_DMA_MM_WriteH2C(h, h2c, src + src_off, card, len,
					&actual);
	HF_CHECK_MSG(ret == 0, "WriteH2C(ch %d, 0x%llx, %zu) = %d: %s", h2c,
		     (unsigned long long)card, len, ret,
		     HelloFPGA_GetLastError(h));
	HF_CHECK_EQ(actual, len);
	ret = HelloFPGA_DMA_MM_ReadC2H(h, c2h, dst + dst_off, card, len,
				       &actual);
	HF_CHECK_MSG(ret == 0, "ReadC2H(ch %d, 0x%llx, %zu) = %d: %s", c2h,
		     (unsigned long long)card, len, ret,
		     HelloFPGA_GetLastError(h));
	HF_CHECK_EQ(actual, len);
	bad = t_check(dst + dst_off, len, seed);
	HF_CHECK_MSG(bad < 0, "byte %ld of %zu differs at card 0x%llx", bad,
		     len, (unsigned long long)card);
	free(src);
	free(dst);
}

HF_TEST(roundtrip_one_byte)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");

	roundtrip(h, 0, 0, 12345, 1, 0, 0, 1);
	HelloFPGA_Close(h);
}

HF_TEST(roundtrip_random_sizes_alignments_and_addresses)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	uint64_t rs = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 60; i++) {
		size_t len = 1 + t_rand(&rs) % (i < 40 ? 70000 : 3u << 20);
		uint64_t card = t_rand(&rs) % (DDR - len + 1);
		int ch = t_rand(&rs) % 4;

		roundtrip(h, ch, (ch + 1) % 4, card, len, t_rand(&rs) % 64,
			  t_rand(&rs) % 64, i);
	}
	HelloFPGA_Close(h);
}

HF_TEST(roundtrip_last_bytes_of_2gib_ddr)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");

	roundtrip(h, 0, 0, DDR - 1, 1, 0, 0, 7);
	roundtrip(h, 1, 2, DDR - 4096, 4096, 0, 0, 8);
	roundtrip(h, 3, 3, DDR - 70001, 70001, 3, 5, 9);
	roundtrip(h, 2, 1, DDR - (1 << 20), 1 << 20, 0, 0, 10);
	HelloFPGA_Close(h);
}

HF_TEST(roundtrip_first_bytes_of_ddr)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");

	roundtrip(h, 0, 0, 0, 4097, 1, 0, 11);
	HelloFPGA_Close(h);
}

static void roundtrip_mode(const char *name)
{
	HELLOFPGA_HANDLE h = t_open(name);
	HELLOFPGA_COUNTERS c0, c;

	/* a driver card's interrupt count is the card's, since it was bound */
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c0), 0);
	for (int ch = 0; ch < 4; ch++)
		roundtrip(h, ch, ch, ch * (64ull << 20) + 100, 300000, 1, 2,
			  ch);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.transfers, 8);
	HF_CHECK_EQ(c.bytes_h2c, 4 * 300000);
	HF_CHECK_EQ(c.bytes_c2h, 4 * 300000);
	/* a driver card (HF_TEST_CARD) has no model counters, only irqs */
	if (t_card_is_emulated(h)) {
		HF_CHECK(c.model_valid);
		HF_CHECK(c.desc_fetched >= 8);
	}
	if (strstr(name, "irq=poll")) {
		HF_CHECK_EQ(c.irqs - c0.irqs, 0);
		if (t_card_is_emulated(h))
			HF_CHECK(c.wb_writes >= 8);
	} else {
		HF_CHECK_MSG(c.irqs - c0.irqs >= 8, "irqs %llu",
			     (unsigned long long)(c.irqs - c0.irqs));
	}
	HelloFPGA_Close(h);
}

HF_TEST(roundtrip_msix_interrupts)
{
	roundtrip_mode("emu,private,irq=msix");
}

HF_TEST(roundtrip_msi_shared_vector)
{
	roundtrip_mode("emu,private,irq=msi");
}

HF_TEST(roundtrip_legacy_intx)
{
	roundtrip_mode("emu,private,irq=legacy");
}

HF_TEST(roundtrip_poll_mode_writeback)
{
	roundtrip_mode("emu,private,irq=poll");
}

HF_TEST(roundtrip_synchronous_engines)
{
	roundtrip_mode("emu,private,sync");
}

HF_TEST(roundtrip_2_28_plus_1_bytes_spans_two_descriptors)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	HELLOFPGA_COUNTERS before, after;
	size_t len = (1u << 28) + 1;

	t_need_emulated(h, "descriptor counters");
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &before), 0);
	roundtrip(h, 0, 0, 12345, len, 0, 0, 42);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &after), 0);
	HF_CHECK_EQ(after.desc_fetched - before.desc_fetched, 4);
	HelloFPGA_Close(h);
}

HF_TEST(aligned_engine_handles_unaligned_buffers_and_keeps_neighbours)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,align=64,ddr=64M");
	uint8_t *ref = xalloc(8192), *out = xalloc(8192);

	/* background pattern, aligned: direct path */
	t_fill(ref, 8192, 99);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, ref, 4096, 8192, NULL), 0);
	/* unaligned write in the middle must keep the bytes around it */
	roundtrip(h, 1, 2, 4096 + 1000, 3001, 3, 7, 5);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, out, 4096, 8192, NULL), 0);
	HF_CHECK(!memcmp(out, ref, 1000));
	HF_CHECK(!memcmp(out + 4001, ref + 4001, 8192 - 4001));
	/* longer than the bounce buffer, unaligned at both ends */
	roundtrip(h, 3, 1, 777, (3u << 20) + 5, 1, 1, 6);
	free(ref);
	free(out);
	HelloFPGA_Close(h);
}

HF_TEST(zero_length_is_a_no_op)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	HELLOFPGA_COUNTERS c;
	size_t actual = 7;

	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, NULL, 0, 0, &actual), 0);
	HF_CHECK_EQ(actual, 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, NULL, DDR, 0, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.desc_fetched, 0);
	HelloFPGA_Close(h);
}

struct worker {
	HELLOFPGA_HANDLE h;
	int ch;
	int iters;
	size_t len;
	uint64_t base;
	int failed;
	char msg[256];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	size_t len = w->len + w->ch * 13;
	uint8_t *src = malloc(len), *dst = malloc(len);

	for (int i = 0; i < w->iters && !w->failed; i++) {
		uint64_t card = w->base + (i % 8) * len;
		int r1, r2;

		t_fill(src, len, w->ch * 1000 + i);
		r1 = HelloFPGA_DMA_MM_WriteH2C(w->h, w->ch, src, card, len,
					       NULL);
		r2 = HelloFPGA_DMA_MM_ReadC2H(w->h, w->ch, dst, card, len,
					      NULL);
		if (r1 || r2 || memcmp(src, dst, len)) {
			snprintf(w->msg, sizeof(w->msg),
				 "ch %d iter %d: %d %d %s", w->ch, i, r1, r2,
				 HelloFPGA_GetLastError(w->h));
			w->failed = 1;
		}
	}
	free(src);
	free(dst);
	return NULL;
}

static void parallel_n(const char *name, int threads_per_channel,
		       int iters, size_t len)
{
	HELLOFPGA_HANDLE h = t_open(name);
	struct worker w[16];
	pthread_t t[16];
	int n = 4 * threads_per_channel;

	for (int i = 0; i < n; i++) {
		w[i] = (struct worker){ .h = h, .ch = i % 4, .iters = iters,
					.len = len,
					.base = (uint64_t)i * (32 << 20) };
		HF_CHECK(!pthread_create(&t[i], NULL, worker_main, &w[i]));
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		HF_CHECK_MSG(!w[i].failed, "%s", w[i].msg);
	HelloFPGA_Close(h);
}

static void parallel(const char *name, int threads_per_channel)
{
	parallel_n(name, threads_per_channel, 40, 256 * 1024);
}

/*
 * Eight engines completing at once on the one vector of MSI or INTx: an
 * engine that raises its request while the handler serves another must
 * not be lost (it would wait for its timeout).
 */
HF_TEST(many_small_transfers_on_every_channel_share_the_intx_line)
{
	parallel_n("emu,private,irq=legacy", 1, 1500, 512);
}

HF_TEST(many_small_transfers_on_every_channel_share_the_msi_vector)
{
	parallel_n("emu,private,irq=msi", 1, 1500, 512);
}

HF_TEST(all_channels_in_parallel_from_threads)
{
	parallel("emu,private", 1);
}

HF_TEST(two_threads_per_channel_share_channels_safely)
{
	parallel("emu,private,irq=msi", 2);
}

HF_TEST(timeout_stops_the_engine_and_channel_recovers)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	uint8_t buf[4096];
	size_t actual = 1;

	t_need_emulated(h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 100), 0);
	HF_CHECK_ERR(hf_emu_test_inject(h, XDMA_FAULT_STALL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 1, buf, 0, sizeof(buf),
					      &actual), -ETIMEDOUT);
	HF_CHECK_EQ(actual, 0);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "C2H1"), "%s",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(hf_emu_test_inject(h, XDMA_FAULT_NONE), 0);
	roundtrip(h, 1, 1, 0, sizeof(buf), 0, 0, 3);
	HelloFPGA_Close(h);
}

/*
 * An unaligned write on an aligned card goes through the bounce buffer; a
 * chunk whose run timed out may still have reached the card (the engine
 * finishes its descriptor after Run clears), and actual counts it.  Here a
 * 1 MiB descriptor takes about 4 ms on a Gen1 x1 link, the timeout is 1 ms.
 * A waiter that wakes only after the chain ended sees a success (a lost
 * interrupt), an engine stopped before it began wrote nothing: those are
 * tried again, on fresh card memory.
 */
HF_TEST(timed_out_unaligned_write_counts_what_may_have_reached_the_card)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,align=64,ddr=16M,link=gen1x1");
	size_t len = 1 << 20, actual, written = 0;
	uint8_t *src = xalloc(len + 1), *back = xalloc(len);
	int ret;

	t_need_emulated(h, "link model");
	t_fill(src + 1, len, 12);
	for (uint64_t at = 0; at < 8 * len && !written; at += len) {
		HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 1), 0);
		ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, src + 1, at, len,
						&actual);
		HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 5000), 0);
		if (!ret)
			continue;
		HF_CHECK_MSG(ret == -ETIMEDOUT, "WriteH2C: %d %s", ret,
			     HelloFPGA_GetLastError(h));
		HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, back, at, len,
						      NULL), 0);
		for (size_t i = 0; i < len; i++)
			if (back[i] && back[i] == src[1 + i])
				written = i + 1;
		HF_CHECK_MSG(actual >= written,
			     "actual %zu, but the card holds the first %zu bytes",
			     actual, written);
	}
	if (!written)
		HF_SKIP("no write of 8 was both timed out and begun here");
	free(src);
	free(back);
	HelloFPGA_Close(h);
}

/*
 * The case of the report, on the direct path: a read whose 1 ms timeout
 * expires in its first (only) descriptor: 32 MiB on a Gen1 x1 link, about
 * 160 ms (without a link model the card moves it at memory speed, inside
 * the start; on a faster link a slow host, a sanitizer's say, can fall
 * behind the link's time, past the stop's bound).  Every byte written
 * into the buffer is counted (the engine core counts the descriptor that
 * finished after Run cleared).
 */
HF_TEST(timed_out_read_counts_every_byte_written_into_the_buffer)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,ddr=64M,link=gen1x1");
	size_t len = 32u << 20, actual = 0, written = 0;
	uint8_t *buf = xalloc(len);

	t_need_emulated(h, "timing of a 256 MiB descriptor");
	memset(buf, 0xaa, len);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 1), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, len, &actual),
		     -ETIMEDOUT);
	for (size_t i = len; i > 0; i--)
		if (buf[i - 1] != 0xaa) {
			written = i;
			break;
		}
	HF_CHECK_MSG(actual >= written,
		     "actual %zu, but the first %zu bytes of the buffer were written",
		     actual, written);
	free(buf);
	HelloFPGA_Close(h);
}

HF_TEST(hang_shorter_than_the_timeout_delays_the_transfer)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	uint64_t hang = 50000000, t0;
	uint8_t buf[4096];
	size_t actual = 0;

	t_need_emulated(h, "fault injection (hf_emu_test_inject_hang)");
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 5000), 0);
	t_fill(buf, sizeof(buf), 7);
	t0 = hf_os_now_ns();
	HF_CHECK_ERR(hf_emu_test_inject_hang(h, hang), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 2, buf, 0, sizeof(buf),
					       &actual), 0);
	t0 = hf_os_now_ns() - t0;
	HF_CHECK_MSG(t0 >= hang, "done %llu ns after a %llu ns hang",
		     (unsigned long long)t0, (unsigned long long)hang);
	HF_CHECK_EQ(actual, sizeof(buf));
	roundtrip(h, 2, 2, 0, sizeof(buf), 0, 0, 8);
	HelloFPGA_Close(h);
}

/*
 * A hang longer than the stop bound: the timed-out transfer leaves its
 * channel wedged (the engine did not go idle), the next transfer there is
 * refused at once, and once the hang is over the channel works again.
 */
HF_TEST(hang_longer_than_the_stop_bound_wedges_the_channel_until_it_ends)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	uint64_t hang = 1500000000ull, t_inject, t0;
	uint8_t buf[4096];
	size_t actual = 0;

	t_need_emulated(h, "fault injection (hf_emu_test_inject_hang)");
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 50), 0);
	t_fill(buf, sizeof(buf), 9);
	t_inject = hf_os_now_ns();
	HF_CHECK_ERR(hf_emu_test_inject_hang(h, hang), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, buf, 0, sizeof(buf),
					       &actual), -ETIMEDOUT);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "wedged"), "%s",
		     HelloFPGA_GetLastError(h));
	t0 = hf_os_now_ns();
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, buf, 0, sizeof(buf),
					       &actual), -EIO);
	HF_CHECK_MSG(hf_os_now_ns() - t0 < 500000000ull,
		     "refused only after %llu ns",
		     (unsigned long long)(hf_os_now_ns() - t0));
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "H2C1: channel wedged"),
		     "%s", HelloFPGA_GetLastError(h));
	while (hf_os_now_ns() - t_inject < hang + 100000000ull)
		hf_os_sleep_us(10000);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 5000), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, buf, 0, sizeof(buf),
					       &actual), 0);
	roundtrip(h, 1, 1, 0, sizeof(buf), 0, 0, 10);
	HelloFPGA_Close(h);
}

/*
 * An engine driven past the library fetches its descriptor from a bus
 * address nothing is mapped at: HelloFPGA_GetDMAFaults() reports the
 * emulated IOMMU's fault (and the card's failed access).
 */
HF_TEST(dma_faults_of_the_card_are_reported)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,irq=poll");
	const uint32_t sg = XDMA_H2C_SGDMA_BASE(3), ch = XDMA_H2C_BASE(3);
	HELLOFPGA_DMA_FAULTS f;
	struct xdma_model *m;
	int i;

	t_need_emulated(h, "card model (hf_emu_test_model)");
	m = hf_emu_test_model(h);
	HF_CHECK(m != NULL);
	HF_CHECK_ERR(HelloFPGA_GetDMAFaults(h, &f), 0);
	HF_CHECK_EQ(f.faults, 0);
	t_expect_dma_faults(1);
	xdma_model_dma_write32(m, sg + XDMA_SGDMA_DESC_LO, 0x2000);
	xdma_model_dma_write32(m, sg + XDMA_SGDMA_DESC_HI, 0);
	xdma_model_dma_write32(m, ch + XDMA_CHAN_CONTROL, XDMA_CTRL_RUN);
	for (i = 0; i < 5000; i++) {
		if (!(xdma_model_dma_read32(m, ch + XDMA_CHAN_STATUS) &
		      XDMA_STAT_BUSY))
			break;
		hf_os_sleep_us(1000);
	}
	xdma_model_dma_write32(m, ch + XDMA_CHAN_CONTROL_W1C, XDMA_CTRL_RUN);
	HF_CHECK_ERR(HelloFPGA_GetDMAFaults(h, &f), 0);
	HF_CHECK_EQ(f.faults, 1);
	HF_CHECK_EQ(f.last_fault_bus, 0x2000);
	HF_CHECK_EQ(f.dma_errors, 1);
	HelloFPGA_Close(h);
}

HF_TEST(dead_card_reports_enodev)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	uint8_t buf[64];

	t_need_emulated(h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 100), 0);
	HF_CHECK_ERR(hf_emu_test_inject(h, XDMA_FAULT_DEAD), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf), NULL),
		     -ENODEV);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "not responding"));
	HelloFPGA_Close(h);
}

HF_TEST(shared_card_memory_is_seen_by_a_second_handle)
{
	HELLOFPGA_HANDLE a = t_open("emu:4,ddr=32M"), b = t_open("emu:4");
	uint8_t src[1000], dst[1000];

	t_fill(src, sizeof(src), 77);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(a, 0, src, 5000, sizeof(src),
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(b, 3, dst, 5000, sizeof(dst),
					      NULL), 0);
	HF_CHECK(!memcmp(src, dst, sizeof(src)));
	HelloFPGA_Close(a);
	HelloFPGA_Close(b);
}
