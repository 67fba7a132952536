// SPDX-License-Identifier: MIT
/*
 * test_ring.c - the engine core's C2H stream ring (struct hf_xdma_ring)
 * against the emulated card with AXI-Stream channels through its
 * in-process host: probe of a stream card, rings that wrap with every frame
 * verified, frames that span buffers, records, out-of-order release,
 * backpressure and drop, stop and restart, timeouts, the look of
 * hf_xdma_ring_ready() and the register cost per frame, in poll, MSI-X,
 * MSI and legacy modes.
 */
#include "dma_faults.h"
#include "harness.h"

#include <stdlib.h>
#include <time.h>

#include "hf_refdesign.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "xdma_engine.h"
#include "inproc/emu_host.h"

#define TMO		(2ull * 1000 * 1000 * 1000)	/* 2 s */
#define MS		(1000ull * 1000)
#define MAXN		64
#define FRAME_MAX	(64u << 10)

enum rx_mode {
	RX_POLL,
	RX_MSIX,
	RX_MSI,
	RX_LEGACY,
};

struct rx {
	struct hf_emu_host *h;
	const struct hf_mmio *card_bar;
	struct hf_mmio shim;
	bool hold_busy;
	struct xdma_model *m;
	enum rx_mode mode;
	struct hf_xdma_dev xdev;
	struct hf_xdma_engine c2h;
	__le32 *ewb;
	u64 ewb_bus;
	void *desc;
	u64 desc_bus;
	void *wb;
	u64 wb_bus;
	u8 *data;
	u64 data_bus;
	size_t data_len;
	struct hf_xdma_ring r;
	u32 n;
	u32 bs;
	/* the consumer: a frame put together from buffers */
	u8 frame[FRAME_MAX];
	u32 got;
	u64 frames;
	u64 next_seq;
	u64 gaps;
	bool synced;
};

static void rx_isr(void *arg)
{
	hf_xdma_engine_isr(arg);
}

static void rx_shared_isr(void *arg)
{
	struct rx *x = arg;

	if (hf_xdma_dev_isr_pending(&x->xdev) & BIT(x->c2h.index))
		hf_xdma_engine_isr(&x->c2h);
}

/* The card through a shim: with @hold_busy, C2H0 reads Busy (a hung card). */
static u32 rx_shim_read(void *ctx, u32 off)
{
	struct rx *x = ctx;
	u32 v = hf_ioread32(x->card_bar, off);

	if (__atomic_load_n(&x->hold_busy, __ATOMIC_ACQUIRE) &&
	    (off == XDMA_C2H_BASE(0) + XDMA_CHAN_STATUS ||
	     off == XDMA_C2H_BASE(0) + XDMA_CHAN_STATUS_RC))
		v |= XDMA_STAT_BUSY;
	return v;
}

static void rx_shim_write(void *ctx, u32 off, u32 val)
{
	struct rx *x = ctx;

	hf_iowrite32(val, x->card_bar, off);
}

static void src_wr(struct rx *x, u32 reg, u32 val)
{
	xdma_model_user_write32(x->m, HF_USER_ST_SRC(0) + reg, val);
}

static u32 src_rd(struct rx *x, u32 reg)
{
	return xdma_model_user_read32(x->m, HF_USER_ST_SRC(0) + reg);
}

static void rx_open(struct rx *x, enum rx_mode mode)
{
	struct xdma_model_config cfg = {
		.num_h2c = 1, .num_c2h = 1, .ddr_size = 1 << 20, .st = true,
		.user = &hf_refdesign_user,
	};

	memset(x, 0, sizeof(*x));
	x->mode = mode;
	HF_CHECK_ERR(hf_emu_host_create(&cfg, 0, &x->h), 0);
	x->m = hf_emu_host_model(x->h);
	x->card_bar = hf_emu_dma_bar(x->h);
	x->shim.read32 = rx_shim_read;
	x->shim.write32 = rx_shim_write;
	x->shim.ctx = x;
	HF_CHECK_ERR(hf_xdma_dev_probe(&x->xdev, &x->shim), 0);
	HF_CHECK(x->xdev.stream);
	x->ewb = hf_emu_dma_alloc(x->h, XDMA_WB_AREA, &x->ewb_bus);
	x->desc = hf_emu_dma_alloc(x->h, MAXN * XDMA_DESC_SIZE, &x->desc_bus);
	x->wb = hf_emu_dma_alloc(x->h, MAXN * XDMA_STM_WB_SIZE, &x->wb_bus);
	HF_CHECK(x->ewb && x->desc && x->wb);
	if (mode == RX_MSIX) {
		HF_CHECK_ERR(hf_emu_set_irq_mode(x->h, XDMA_MODEL_IRQ_MSIX), 0);
		hf_xdma_dev_set_vectors(&x->xdev, 0, 16, false);
		HF_CHECK_ERR(hf_emu_request_irq(x->h, 1, rx_isr, &x->c2h), 0);
	} else if (mode == RX_MSI || mode == RX_LEGACY) {
		HF_CHECK_ERR(hf_emu_set_irq_mode(x->h, mode == RX_MSI ?
						 XDMA_MODEL_IRQ_MSI :
						 XDMA_MODEL_IRQ_LEGACY), 0);
		hf_xdma_dev_set_vectors(&x->xdev, 0, 0, true);
		HF_CHECK_ERR(hf_emu_request_irq(x->h, 0, rx_shared_isr, x), 0);
	}
	HF_CHECK_ERR(hf_xdma_engine_init(&x->c2h, &x->xdev, XDMA_C2H, 0,
					 mode == RX_POLL, x->ewb, x->ewb_bus),
		     0);
}

/* A ring of @n buffers of @bs bytes in one contiguous mapping. */
static void rx_ring(struct rx *x, u32 n, u32 bs)
{
	struct hf_xdma_result res;
	struct hf_sg sg;

	x->n = n;
	x->bs = bs;
	x->data_len = (size_t)n * bs;
	x->data = aligned_alloc(4096, x->data_len);
	HF_CHECK(x->data);
	memset(x->data, 0, x->data_len);
	HF_CHECK_ERR(hf_emu_dma_map(x->h, x->data, x->data_len,
				    HF_DMA_FROM_DEVICE, &x->data_bus), 0);
	HF_CHECK_ERR(hf_xdma_ring_init(&x->r, &x->c2h, x->desc, x->desc_bus,
				       x->wb, x->wb_bus, n), 0);
	sg.addr = x->data_bus;
	sg.len = x->data_len;
	HF_CHECK_ERR(hf_xdma_ring_build(&x->r, &sg, 1, bs, &res), 0);
	HF_CHECK_ERR(hf_xdma_ring_start(&x->r, &res), 0);
}

static void rx_close(struct rx *x)
{
	struct hf_xdma_result res;

	src_wr(x, HF_ST_SRC_CTRL, 0);
	if (x->r.e)
		HF_CHECK_ERR(hf_xdma_ring_stop(&x->r, &res), 0);
	hf_xdma_engine_fini(&x->c2h);
	if (x->mode == RX_MSIX)
		hf_emu_free_irq(x->h, 1);
	else if (x->mode != RX_POLL)
		hf_emu_free_irq(x->h, 0);
	if (x->data) {
		hf_emu_dma_unmap(x->h, x->data_bus);
		free(x->data);
	}
	hf_emu_host_destroy(x->h);
}

/* Source: @count frames of @size bytes (0: unlimited), @ctrl extra bits. */
static void src_start(struct rx *x, u32 size, u32 count, u32 interval_ns,
		      u32 ctrl)
{
	src_wr(x, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR);
	src_wr(x, HF_ST_SRC_FRAME_SIZE, size);
	src_wr(x, HF_ST_SRC_COUNT, count);
	src_wr(x, HF_ST_SRC_INTERVAL_NS, interval_ns);
	src_wr(x, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE | ctrl);
}

/*
 * Take one buffer, add it to the frame in progress; at EOP verify the
 * frame and check its sequence number (gaps counted, none allowed unless
 * @gaps_ok).  Return: the wait's result.
 */
static int rx_step(struct rx *x, u64 tmo, bool gaps_ok, bool release)
{
	struct hf_xdma_result res;
	struct hf_xdma_ring_buf b;
	u64 seq;
	int ret;

	ret = hf_xdma_ring_wait(&x->r, tmo, &b, &res);
	if (ret)
		return ret;
	HF_CHECK(b.index < x->n);
	HF_CHECK(b.len <= x->bs);
	HF_CHECK_MSG(b.eop || b.len == x->bs, "buffer %u: %u bytes, no EOP",
		     b.index, b.len);
	HF_CHECK(x->got + b.len <= FRAME_MAX);
	memcpy(x->frame + x->got, x->data + (size_t)b.index * x->bs, b.len);
	x->got += b.len;
	if (b.eop) {
		HF_CHECK_MSG(hf_stream_verify(x->frame, x->got, &seq) == 0,
			     "frame %llu (%u bytes) corrupt",
			     (unsigned long long)x->frames, x->got);
		if (x->synced && seq != x->next_seq) {
			HF_CHECK_MSG(gaps_ok && seq > x->next_seq,
				     "sequence %llu, expected %llu",
				     (unsigned long long)seq,
				     (unsigned long long)x->next_seq);
			x->gaps += seq - x->next_seq;
		}
		x->synced = true;
		x->next_seq = seq + 1;
		x->frames++;
		x->got = 0;
	}
	if (release)
		HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b.index), 0);
	return 0;
}

static void rx_frames(struct rx *x, u64 frames, bool gaps_ok)
{
	while (x->frames < frames)
		HF_CHECK_ERR(rx_step(x, TMO, gaps_ok, true), 0);
}

static void sleep_us(u32 us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static const struct mode_row {
	const char *name;
	enum rx_mode mode;
} mode_rows[] = {
	{ "poll", RX_POLL },
	{ "msix", RX_MSIX },
	{ "msi", RX_MSI },
	{ "legacy", RX_LEGACY },
};

/* ---- probe ---- */

HF_TEST(ring_probe_accepts_a_stream_card)
{
	struct xdma_model_config cfg = { .num_h2c = 2, .num_c2h = 3,
					 .st = true,
					 .user = &hf_refdesign_user };
	struct hf_emu_host *h;
	struct hf_xdma_dev xdev;

	HF_CHECK_ERR(hf_emu_host_create(&cfg, HF_EMU_SYNC, &h), 0);
	HF_CHECK_ERR(hf_xdma_dev_probe(&xdev, hf_emu_dma_bar(h)), 0);
	HF_CHECK(xdev.stream);
	HF_CHECK_EQ(xdev.num_h2c, 2);
	HF_CHECK_EQ(xdev.num_c2h, 3);
	hf_emu_host_destroy(h);
}

HF_TEST(ring_probe_mm_card_is_not_stream)
{
	struct xdma_model_config cfg = { .num_h2c = 1, .num_c2h = 1,
					 .user = &hf_refdesign_user };
	struct hf_emu_host *h;
	struct hf_xdma_dev xdev;

	HF_CHECK_ERR(hf_emu_host_create(&cfg, HF_EMU_SYNC, &h), 0);
	HF_CHECK_ERR(hf_xdma_dev_probe(&xdev, hf_emu_dma_bar(h)), 0);
	HF_CHECK(!xdev.stream);
	hf_emu_host_destroy(h);
}

/* A C2H engine of a stream card takes rings, not chains. */
HF_TEST(ring_mm_run_on_a_stream_card_is_eopnotsupp)
{
	struct hf_xdma_result res;
	struct hf_xdma_chain c;
	struct hf_sg sg;
	struct rx *x = calloc(1, sizeof(*x));

	HF_CHECK(x);
	rx_open(x, RX_POLL);
	hf_xdma_chain_init(&c, x->desc, x->desc_bus, MAXN);
	sg.addr = x->wb_bus;
	sg.len = 4096;
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_C2H, &sg, 1, 0, 4096, 0), 0);
	HF_CHECK_ERR(hf_xdma_engine_run(&x->c2h, &c, TMO, &res), -EOPNOTSUPP);
	HF_CHECK(strstr(res.msg, "AXI-Stream"));
	rx_close(x);
	free(x);
}

/*
 * An H2C engine of a stream card runs a chain as one packet: the sink
 * sees one frame, TLAST on the chain's last descriptor only, verified.
 */
HF_TEST(ring_h2c_run_on_a_stream_card_sends_one_packet)
{
	struct hf_xdma_engine h2c;
	struct hf_xdma_result res;
	struct hf_xdma_chain c;
	struct hf_sg sg[3];
	struct rx *x = calloc(1, sizeof(*x));
	u64 ewb_bus, data_bus;
	void *ewb;
	u8 *data;

	HF_CHECK(x);
	rx_open(x, RX_POLL);
	ewb = hf_emu_dma_alloc(x->h, XDMA_WB_AREA, &ewb_bus);
	data = hf_emu_dma_alloc(x->h, 3 * 4096, &data_bus);
	HF_CHECK(ewb && data);
	HF_CHECK_ERR(hf_xdma_engine_init(&h2c, &x->xdev, XDMA_H2C, 0, true,
					 ewb, ewb_bus), 0);
	hf_stream_fill(data, 7, 3 * 4096, 0, 3 * 4096);
	for (int i = 0; i < 3; i++) {
		sg[i].addr = data_bus + (u64)i * 4096;
		sg[i].len = 4096;
	}
	hf_xdma_chain_init(&c, x->desc, x->desc_bus, MAXN);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 3, 0, 3 * 4096, 0),
		     0);
	HF_CHECK_ERR(hf_xdma_engine_run(&h2c, &c, TMO, &res), 0);
	HF_CHECK_EQ(res.bytes, 3 * 4096);
	HF_CHECK_EQ(xdma_model_user_read32(x->m, HF_USER_ST_SINK(0) +
					   HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_EQ(xdma_model_user_read32(x->m, HF_USER_ST_SINK(0) +
					   HF_ST_SINK_FRAMES_BAD), 0);
	HF_CHECK_EQ(xdma_model_user_read32(x->m, HF_USER_ST_SINK(0) +
					   HF_ST_SINK_LAST_SEQ_LO), 7);
	HF_CHECK_EQ(xdma_model_user_read32(x->m, HF_USER_ST_SINK(0) +
					   HF_ST_SINK_PARTIAL), 0);
	hf_xdma_engine_fini(&h2c);
	rx_close(x);
	free(x);
}

HF_TEST(ring_init_refuses_a_memory_mapped_card)
{
	struct xdma_model_config cfg = { .num_h2c = 1, .num_c2h = 1,
					 .user = &hf_refdesign_user };
	struct hf_xdma_engine e;
	struct hf_xdma_ring r;
	struct hf_emu_host *h;
	struct hf_xdma_dev xdev;
	void *wb, *d, *w;
	u64 wbb, db, wb2;

	HF_CHECK_ERR(hf_emu_host_create(&cfg, HF_EMU_SYNC, &h), 0);
	HF_CHECK_ERR(hf_xdma_dev_probe(&xdev, hf_emu_dma_bar(h)), 0);
	wb = hf_emu_dma_alloc(h, XDMA_WB_AREA, &wbb);
	d = hf_emu_dma_alloc(h, 4096, &db);
	w = hf_emu_dma_alloc(h, 4096, &wb2);
	HF_CHECK_ERR(hf_xdma_engine_init(&e, &xdev, XDMA_C2H, 0, true, wb,
					 wbb), 0);
	HF_CHECK_ERR(hf_xdma_ring_init(&r, &e, d, db, w, wb2, 4), -EINVAL);
	hf_xdma_engine_fini(&e);
	hf_emu_host_destroy(h);
}

/* ---- frames ---- */

static struct rx *rx_new(enum rx_mode mode)
{
	struct rx *x = calloc(1, sizeof(*x));

	HF_CHECK(x);
	rx_open(x, mode);
	return x;
}

static void rx_free(struct rx *x)
{
	rx_close(x);
	free(x);
}

/* 4 buffers, 200 frames of one buffer each: 50 wraps, each verified. */
static void wrap_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);

	rx_ring(x, 4, 4096);
	src_start(x, 4096, 200, 0, 0);
	rx_frames(x, 200, false);
	HF_CHECK_EQ(x->next_seq, 200);
	HF_CHECK_EQ(x->r.stats.buffers, 200);
	HF_CHECK_EQ(x->r.stats.frames, 200);
	HF_CHECK_EQ(x->r.stats.bytes, 200 * 4096);
	HF_CHECK_EQ(src_rd(x, HF_ST_SRC_DROPPED), 0);
	HF_CHECK_ERR(rx_step(x, 20 * MS, false, true), -ETIMEDOUT);
	rx_free(x);
}

HF_TEST_ROWS(ring_wraps_every_frame_verified, mode_rows, wrap_case)

/* Frames of 10000 bytes in buffers of 4096: 3 buffers, EOP on the third. */
static void span_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);
	struct hf_xdma_ring_buf b;
	int i;

	rx_ring(x, 8, 4096);
	src_start(x, 10000, 50, 0, 0);
	for (i = 0; i < 3; i++) {
		HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, TMO, &b, NULL), 0);
		HF_CHECK_EQ(b.index, i);
		HF_CHECK_EQ(b.len, i < 2 ? 4096 : 10000 - 8192);
		HF_CHECK_EQ(b.eop, i == 2);
		HF_CHECK_EQ(b.frame, 0);
		memcpy(x->frame + x->got, x->data + (size_t)i * 4096, b.len);
		x->got += b.len;
		HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b.index), 0);
	}
	HF_CHECK_ERR(hf_stream_verify(x->frame, x->got, NULL), 0);
	x->got = 0;
	x->frames = 1;
	x->synced = true;
	x->next_seq = 1;
	rx_frames(x, 50, false);
	HF_CHECK_EQ(x->r.stats.buffers, 150);
	HF_CHECK_EQ(x->r.stats.frames, 50);
	rx_free(x);
}

HF_TEST_ROWS(ring_frames_span_buffers, mode_rows, span_case)

HF_TEST(ring_records_of_varying_length_verified)
{
	struct rx *x = rx_new(RX_MSIX);

	rx_ring(x, 16, 4096);
	src_wr(x, HF_ST_SRC_REC_MIN, 16);
	src_wr(x, HF_ST_SRC_REC_MAX, 20000);
	src_start(x, 4096, 500, 0, HF_ST_SRC_CTRL_RECORDS);
	rx_frames(x, 500, false);
	HF_CHECK(x->r.stats.buffers > 500);
	HF_CHECK_EQ(x->r.stats.frames, 500);
	HF_CHECK_EQ(src_rd(x, HF_ST_SRC_SENT), 500);
	rx_free(x);
}

HF_TEST(ring_out_of_order_release_credits_in_ring_order)
{
	struct rx *x = rx_new(RX_MSIX);
	struct hf_xdma_ring_buf b[3];
	u64 w;
	int i;

	rx_ring(x, 4, 4096);
	src_start(x, 4096, 3, 0, 0);
	for (i = 0; i < 3; i++)
		HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, TMO, &b[i], NULL), 0);
	w = x->r.stats.credit_writes;
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b[2].index), 0);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b[1].index), 0);
	/* buffer 0 is still held: nothing goes back yet */
	HF_CHECK_EQ(x->r.stats.credit_writes, w);
	HF_CHECK_EQ(x->r.held, 3);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b[0].index), 0);
	HF_CHECK_EQ(x->r.stats.credit_writes, w + 1);
	HF_CHECK_EQ(x->r.held, 0);
	/* 4 credits, one used: the engine fetched buffer 3's descriptor */
	HF_CHECK_EQ(xdma_model_dma_read32(x->m, XDMA_C2H_SGDMA_BASE(0) +
					  XDMA_SGDMA_DESC_CREDITS), 3);
	rx_free(x);
}

HF_TEST(ring_release_of_a_buffer_not_held_einval)
{
	struct rx *x = rx_new(RX_MSIX);
	struct hf_xdma_ring_buf b;

	rx_ring(x, 4, 4096);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, 0), -EINVAL);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, 4), -EINVAL);
	src_start(x, 4096, 1, 0, 0);
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, TMO, &b, NULL), 0);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b.index), 0);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b.index), -EINVAL);
	rx_free(x);
}

/* Backpressure: a consumer that falls behind fills the ring; none lost. */
static void behind_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);

	rx_ring(x, 4, 4096);
	src_start(x, 4096, 300, 2000, 0);
	while (x->frames < 300) {
		if (x->frames % 50 == 10)
			sleep_us(2000);	/* behind: the ring fills */
		HF_CHECK_ERR(rx_step(x, TMO, false, true), 0);
	}
	HF_CHECK_EQ(x->next_seq, 300);
	HF_CHECK_EQ(src_rd(x, HF_ST_SRC_DROPPED), 0);
	HF_CHECK(x->r.stats.ring_full > 0);
	rx_free(x);
}

HF_TEST_ROWS(ring_consumer_behind_backpressure_loses_nothing, mode_rows,
	     behind_case)

/* Drop mode: the source's DROPPED counter is the sum of the gaps. */
static void drop_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);
	int ret;

	rx_ring(x, 4, 4096);
	src_start(x, 4096, 400, 20000, HF_ST_SRC_CTRL_DROP);
	for (;;) {
		if (x->frames % 40 == 5)
			sleep_us(1000);	/* behind: frames come due and drop */
		ret = rx_step(x, 50 * MS, true, true);
		if (ret == -ETIMEDOUT &&
		    (src_rd(x, HF_ST_SRC_STATUS) & HF_ST_SRC_STS_DONE))
			break;
		HF_CHECK_ERR(ret, 0);
	}
	/* the frames after the last delivered one were dropped too */
	x->gaps += 400 - x->next_seq;
	HF_CHECK(x->gaps > 0);
	HF_CHECK_EQ(x->gaps, src_rd(x, HF_ST_SRC_DROPPED));
	HF_CHECK_EQ(x->frames + x->gaps, 400);
	rx_free(x);
}

HF_TEST_ROWS(ring_consumer_behind_drop_gaps_equal_dropped, mode_rows,
	     drop_case)

/*
 * Stopped while the source runs, with every buffer held (the engine out of
 * credits, often in the middle of a frame of three buffers), started
 * again: the rest of a cut frame is skipped, the next frame is whole and
 * no other frame is lost (backpressure).
 */
static void restart_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);
	struct hf_xdma_result res;
	u64 skipped, cuts = 0;
	bool cut;
	int round;

	rx_ring(x, 4, 4096);
	src_start(x, 10000, 0, 5000, 0);
	for (round = 0; round < 6; round++) {
		rx_frames(x, x->frames + 5, false);
		while (x->r.held < x->n)
			HF_CHECK_ERR(rx_step(x, TMO, false, false), 0);
		cut = x->got != 0;
		HF_CHECK_ERR(hf_xdma_ring_stop(&x->r, &res), 0);
		HF_CHECK_EQ(x->c2h.st_cut, cut);
		HF_CHECK_EQ(xdma_model_dma_read32(x->m, XDMA_SGDMA_COMMON_BASE +
						  XDMA_SGDMA_COMMON_CREDIT), 0);
		HF_CHECK(!(xdma_model_dma_read32(x->m, XDMA_C2H_BASE(0) +
						 XDMA_CHAN_STATUS) &
			   XDMA_STAT_BUSY));
		HF_CHECK_EQ(x->r.held, 0);
		x->got = 0;
		skipped = x->r.stats.skipped;
		HF_CHECK_ERR(hf_xdma_ring_start(&x->r, &res), 0);
		/* the cut frame's number is skipped, no other */
		x->next_seq += cut;
		rx_frames(x, x->frames + 1, false);
		HF_CHECK_EQ(x->r.stats.skipped > skipped, cut);
		cuts += cut;
	}
	HF_CHECK(cuts > 0);
	HF_CHECK_EQ(src_rd(x, HF_ST_SRC_DROPPED), 0);
	rx_free(x);
}

HF_TEST_ROWS(ring_stop_while_running_then_restart, mode_rows, restart_case)

static void timeout_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);
	struct hf_xdma_result res;
	struct hf_xdma_ring_buf b;
	u64 t0 = hf_os_now_ns();

	rx_ring(x, 4, 4096);
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, 30 * MS, &b, &res), -ETIMEDOUT);
	HF_CHECK(hf_os_now_ns() - t0 >= 30 * MS);
	HF_CHECK_EQ(res.err, -ETIMEDOUT);
	HF_CHECK(strstr(res.msg, "no stream buffer"));
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, 0, &b, &res), -ETIMEDOUT);
	/* a timeout is no failure: the ring goes on */
	src_start(x, 4096, 5, 0, 0);
	rx_frames(x, 5, false);
	rx_free(x);
}

HF_TEST_ROWS(ring_wait_times_out_without_frames, mode_rows, timeout_case)

/*
 * hf_xdma_ring_ready() (poll() of the driver's stream node): 0 with
 * nothing there, 1 once a buffer completed, and it takes nothing (the
 * wait after it gets that buffer); -EINVAL on a ring not running.
 */
static void ready_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);
	struct hf_xdma_result res;
	struct hf_xdma_ring_buf b;
	u64 t0;
	int ret;

	HF_CHECK_ERR(hf_xdma_ring_ready(&x->r, &res), -EINVAL);
	rx_ring(x, 4, 4096);
	HF_CHECK_ERR(hf_xdma_ring_ready(&x->r, &res), 0);
	src_start(x, 4096, 1, 0, 0);
	t0 = hf_os_now_ns();
	while ((ret = hf_xdma_ring_ready(&x->r, &res)) == 0 &&
	       hf_os_now_ns() - t0 < TMO)
		sleep_us(100);
	HF_CHECK_ERR(ret, 1);
	/* again: still there, nothing taken */
	HF_CHECK_ERR(hf_xdma_ring_ready(&x->r, &res), 1);
	HF_CHECK_EQ(x->r.stats.buffers, 0);
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, 0, &b, &res), 0);
	HF_CHECK_EQ(b.index, 0);
	HF_CHECK(b.eop);
	HF_CHECK_ERR(hf_xdma_ring_ready(&x->r, &res), 0);
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, b.index), 0);
	rx_free(x);
}

HF_TEST_ROWS(ring_ready_looks_without_taking, mode_rows, ready_case)

HF_TEST(ring_build_refuses_a_buffer_not_contiguous)
{
	struct rx *x = rx_new(RX_POLL);
	struct hf_xdma_result res;
	struct hf_sg sg[2];
	u8 *a = aligned_alloc(4096, 8192), *b = aligned_alloc(4096, 8192);

	HF_CHECK(a && b);
	HF_CHECK_ERR(hf_emu_dma_map(x->h, a, 8192, HF_DMA_FROM_DEVICE,
				    &sg[0].addr), 0);
	HF_CHECK_ERR(hf_emu_dma_map(x->h, b, 8192, HF_DMA_FROM_DEVICE,
				    &sg[1].addr), 0);
	sg[0].len = 6144;	/* buffer 1 straddles the two mappings */
	sg[1].len = 8192;
	HF_CHECK(sg[0].addr + sg[0].len != sg[1].addr);
	HF_CHECK_ERR(hf_xdma_ring_init(&x->r, &x->c2h, x->desc, x->desc_bus,
				       x->wb, x->wb_bus, 2), 0);
	HF_CHECK_ERR(hf_xdma_ring_build(&x->r, sg, 2, 4096, &res), -EINVAL);
	HF_CHECK_MSG(strstr(res.msg, "buffer 1 is not contiguous"), "%s",
		     res.msg);
	HF_CHECK_ERR(hf_xdma_ring_build(&x->r, sg, 2, 0, &res), -EINVAL);
	HF_CHECK_ERR(hf_xdma_ring_build(&x->r, sg, 2, XDMA_DESC_MAX_LEN + 1ull,
					&res), -EINVAL);
	HF_CHECK_ERR(hf_xdma_ring_build(&x->r, sg, 1, 4096, &res), -EINVAL);
	HF_CHECK_ERR(hf_xdma_ring_start(&x->r, &res), -EINVAL);
	hf_emu_dma_unmap(x->h, sg[0].addr);
	hf_emu_dma_unmap(x->h, sg[1].addr);
	free(a);
	free(b);
	x->r.e = NULL;
	rx_free(x);
}

HF_TEST(ring_init_refuses_bad_counts)
{
	struct rx *x = rx_new(RX_POLL);

	HF_CHECK_ERR(hf_xdma_ring_init(&x->r, &x->c2h, x->desc, x->desc_bus,
				       x->wb, x->wb_bus, 1), -EINVAL);
	HF_CHECK_ERR(hf_xdma_ring_init(&x->r, &x->c2h, x->desc, x->desc_bus,
				       x->wb, x->wb_bus, XDMA_RING_MAX + 1),
		     -EINVAL);
	HF_CHECK_ERR(hf_xdma_ring_init(&x->r, &x->c2h, x->desc, x->desc_bus,
				       (u8 *)x->wb + 4, x->wb_bus + 4, 4),
		     -EINVAL);
	x->r.e = NULL;
	rx_free(x);
}

/*
 * Register and interrupt cost per frame, one frame per wake-up (frames
 * 1 ms apart): the waiter reads the read-to-clear status once per
 * wake-up, the release writes one credit; shared vectors add the ISR's
 * pending read, its mask and the enable.  Logged for the documentation.
 */
static void cost_case(const void *arg)
{
	const struct mode_row *row = arg;
	struct rx *x = rx_new(row->mode);
	struct xdma_model_counters a, b;
	double r, w, irq;
	const u64 n = 100;

	/* 1 ms apart: even a slow (sanitizer) consumer waits for each */
	rx_ring(x, 8, 4096);
	src_start(x, 4096, 0, 1000000, 0);
	rx_frames(x, 5, false);
	xdma_model_get_counters(x->m, &a);
	rx_frames(x, 5 + n, false);
	xdma_model_get_counters(x->m, &b);
	HF_CHECK_EQ(x->r.stats.dropped_at_stop, 0);
	r = (double)(b.mmio_reads - a.mmio_reads) / n;
	w = (double)(b.mmio_writes - a.mmio_writes) / n;
	irq = (double)(b.irqs - a.irqs) / n;
	hf_test_log("%s: per frame %.2f MMIO reads, %.2f writes, %.2f interrupts",
		    row->name, r, w, irq);
	/* at most one of each per frame, fewer when frames come in bunches */
	HF_CHECK(w <= (row->mode == RX_MSI || row->mode == RX_LEGACY ? 3.01 :
		       1.01));
	HF_CHECK(irq <= 1.01);
	if (row->mode == RX_POLL) {
		HF_CHECK(r < 0.5);
		HF_CHECK_EQ(b.irqs - a.irqs, 0);
	} else {
		/*
		 * one status read per wake-up (shared: and the ISR's); a
		 * wake-up whose buffer a look after the read already took
		 * costs the next wait a second one, now and then
		 */
		HF_CHECK(b.irqs > a.irqs);
		HF_CHECK(r <= (row->mode == RX_MSIX ? 1.1 : 2.2));
	}
	HF_CHECK_EQ(b.guest_errors - a.guest_errors, 0);
	rx_free(x);
}

HF_TEST_ROWS(ring_register_cost_per_frame, mode_rows, cost_case)

/* A consumer that is behind takes several buffers per wake-up. */
HF_TEST(ring_batches_completions_without_register_reads)
{
	struct rx *x = rx_new(RX_MSIX);
	struct xdma_model_counters a, b;

	rx_ring(x, 16, 4096);
	src_start(x, 4096, 12, 0, 0);
	while ((src_rd(x, HF_ST_SRC_STATUS) & HF_ST_SRC_STS_DONE) == 0)
		sleep_us(100);
	xdma_model_get_counters(x->m, &a);
	while (x->frames < 12)
		HF_CHECK_ERR(rx_step(x, TMO, false, false), 0);
	xdma_model_get_counters(x->m, &b);
	HF_CHECK_EQ(b.mmio_reads - a.mmio_reads, 0);
	HF_CHECK_EQ(b.mmio_writes - a.mmio_writes, 0);
	rx_free(x);
}

HF_TEST(ring_kick_ends_a_wait_with_eagain)
{
	struct rx *x = rx_new(RX_MSIX);
	struct hf_xdma_result res;
	struct hf_xdma_ring_buf b;
	u64 t0;

	rx_ring(x, 4, 4096);
	hf_xdma_ring_kick(&x->r);
	t0 = hf_os_now_ns();
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, TMO, &b, &res), -EAGAIN);
	HF_CHECK(hf_os_now_ns() - t0 < TMO / 2);
	/* once: the next wait waits */
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, 10 * MS, &b, &res), -ETIMEDOUT);
	rx_free(x);
}

/* An engine error (the ring's memory unmapped): -EIO, status decoded. */
HF_TEST(ring_engine_error_is_eio_with_the_status_decoded)
{
	struct rx *x = rx_new(RX_MSIX);
	struct hf_xdma_result res;
	struct hf_xdma_ring_buf b;

	rx_ring(x, 4, 4096);
	t_expect_dma_faults(1);
	HF_CHECK_ERR(hf_emu_dma_unmap(x->h, x->data_bus), 0);
	src_start(x, 4096, 1, 0, 0);
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, TMO, &b, &res), -EIO);
	HF_CHECK_MSG(strstr(res.msg, "read error (slave error"), "%s", res.msg);
	HF_CHECK(res.status & XDMA_STAT_READ_ERROR);
	/* the ring stays failed until stopped */
	HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, 0, &b, &res), -EIO);
	HF_CHECK_ERR(hf_xdma_ring_stop(&x->r, &res), 0);
	free(x->data);
	x->data = NULL;
	rx_free(x);
}

/* A stop that cannot prove the engine idle: -EBUSY, wedged, memory kept. */
HF_TEST(ring_stop_of_an_engine_that_stays_busy_is_wedged)
{
	struct rx *x = rx_new(RX_POLL);
	struct hf_xdma_result res;

	rx_ring(x, 4, 4096);
	x->xdev.stop_max_ns = 5 * MS;
	__atomic_store_n(&x->hold_busy, true, __ATOMIC_RELEASE);
	HF_CHECK_ERR(hf_xdma_ring_stop(&x->r, &res), -EBUSY);
	HF_CHECK(res.wedged);
	HF_CHECK(x->c2h.wedged);
	HF_CHECK(strstr(res.msg, "wedged"));
	HF_CHECK(x->r.running);
	/* idle again: recovered, then stopped for good */
	__atomic_store_n(&x->hold_busy, false, __ATOMIC_RELEASE);
	HF_CHECK_ERR(hf_xdma_engine_recover(&x->c2h), 0);
	HF_CHECK_ERR(hf_xdma_ring_stop(&x->r, &res), 0);
	rx_free(x);
}

static u32 slot_status(const struct rx *x, u32 i)
{
	return le32_to_cpu(READ_ONCE(((__le32 *)x->wb)[i * XDMA_STM_WB_SIZE / 4]));
}

/*
 * A slot keeps its writeback from the completion to the buffer's credit
 * (a GPU waiting on it sees it whether or not the CPU took the buffer),
 * hf_xdma_ring_slot_of() maps sequences inside one ring ahead of the
 * credits, and a stop marks the slots still clear.
 */
HF_TEST(ring_slot_holds_the_writeback_until_the_credit_then_marks_at_stop)
{
	struct rx *x = rx_new(RX_POLL);
	struct hf_xdma_result res;
	struct hf_xdma_ring_buf b;
	u32 idx, magic = XDMA_STM_WB_MAGIC_VALUE << 16;

	rx_ring(x, 4, 4096);
	for (u32 q = 0; q < 4; q++) {
		HF_CHECK_ERR(hf_xdma_ring_slot_of(&x->r, q, &idx), 0);
		HF_CHECK_EQ(idx, q);
	}
	HF_CHECK_ERR(hf_xdma_ring_slot_of(&x->r, 4, &idx), -ERANGE);
	src_start(x, 4096, 2, 0, 0);
	for (u32 i = 0; i < 2; i++) {
		HF_CHECK_ERR(hf_xdma_ring_wait(&x->r, TMO, &b, NULL), 0);
		HF_CHECK_EQ(b.index, i);
		/* taken, not released: the writeback stays */
		HF_CHECK_EQ(slot_status(x, i) & 0xffff0000u, magic);
	}
	HF_CHECK_ERR(hf_xdma_ring_release(&x->r, 0), 0);
	HF_CHECK_EQ(slot_status(x, 0), 0);
	HF_CHECK_ERR(hf_xdma_ring_slot_of(&x->r, 0, &idx), -ERANGE);
	HF_CHECK_ERR(hf_xdma_ring_slot_of(&x->r, 4, &idx), 0);
	HF_CHECK_EQ(idx, 0);
	HF_CHECK_ERR(hf_xdma_ring_slot_of(&x->r, 5, &idx), -ERANGE);
	src_wr(x, HF_ST_SRC_CTRL, 0);
	HF_CHECK_ERR(hf_xdma_ring_stop(&x->r, &res), 0);
	hf_xdma_ring_mark_error(&x->r);
	HF_CHECK_EQ(slot_status(x, 0), magic | XDMA_RING_WB_ERROR);
	HF_CHECK_EQ(slot_status(x, 1) & XDMA_RING_WB_ERROR, 0);
	HF_CHECK_EQ(slot_status(x, 1) & 0xffff0000u, magic);
	HF_CHECK_EQ(slot_status(x, 3), magic | XDMA_RING_WB_ERROR);
	rx_free(x);
}
