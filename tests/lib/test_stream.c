// SPDX-License-Identifier: MIT
/*
 * test_stream.c - HelloFPGA_Stream_*: C2H AXI-Stream rings on the emulated
 * card with "st", its reference-design source programmed through
 * HelloFPGA_UserWrite32(): sustained streams with every frame verified,
 * records, frames spanning buffers, a consumer that falls behind
 * (backpressure and drop), Close and Open again, timeouts, bad arguments,
 * the handle closed under a waiting thread, releases from another thread,
 * fork(), and a ring in a GPU Direct pin on the emulated GPU (or the GPU
 * of HF_TEST_GPU, e.g. cuda, where the case does not depend on it); in poll,
 * MSI-X, MSI and legacy modes; and a card of another design than the
 * reference design (tests/other_design.h).
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "lib_helpers.h"
#include "other_design.h"

#define FRAME_MAX	(256u << 10)
#define TMO_MS		2000

struct rx {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	u8 frame[FRAME_MAX];
	u32 got;
	u64 frames;
	u64 fbase;		/* frames before the stream opened */
	u64 next_seq;
	u64 gaps;
	u64 dropped;
	bool synced;
};

static void src_wr(HELLOFPGA_HANDLE h, u32 reg, u32 val)
{
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, HF_USER_ST_SRC(0) + reg, val), 0);
}

static u32 src_rd(HELLOFPGA_HANDLE h, u32 reg)
{
	u32 v = 0;

	HF_CHECK_ERR(HelloFPGA_UserRead32(h, HF_USER_ST_SRC(0) + reg, &v), 0);
	return v;
}

static void src_start(HELLOFPGA_HANDLE h, u32 size, u32 count,
		      u32 interval_ns, u32 ctrl)
{
	src_wr(h, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR);
	src_wr(h, HF_ST_SRC_FRAME_SIZE, size);
	src_wr(h, HF_ST_SRC_COUNT, count);
	src_wr(h, HF_ST_SRC_INTERVAL_NS, interval_ns);
	src_wr(h, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE | ctrl);
}

static HELLOFPGA_STREAM_CONFIG cfg_of(u32 buffers, size_t size)
{
	HELLOFPGA_STREAM_CONFIG c;

	memset(&c, 0, sizeof(c));
	c.buffers = buffers;
	c.buffer_size = size;
	return c;
}

static void rx_open(struct rx *x, const char *card, u32 buffers, size_t size)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(buffers, size);
	int ret;

	memset(x, 0, sizeof(*x));
	x->h = t_open(card);
	ret = HelloFPGA_Stream_Open(x->h, &c, &x->s);
	HF_CHECK_MSG(ret == 0, "Stream_Open: %d: %s", ret,
		     HelloFPGA_GetLastError(x->h));
}

static void rx_close(struct rx *x)
{
	if (x->s)
		HF_CHECK_ERR(HelloFPGA_Stream_Close(x->s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(x->h), 0);
}

/*
 * One buffer into the frame in progress; at EOP verify it, check its
 * sequence number (gaps only when @gaps_ok).  Return: Wait's result.
 */
static int rx_step(struct rx *x, int tmo, bool gaps_ok)
{
	HELLOFPGA_FRAME f;
	u64 seq;
	int ret;

	ret = HelloFPGA_Stream_Wait(x->s, tmo, &f);
	if (ret)
		return ret;
	HF_CHECK(x->got + f.length <= FRAME_MAX);
	memcpy(x->frame + x->got, f.host, f.length);
	x->got += f.length;
	x->dropped += f.dropped;
	if (f.flags & HELLOFPGA_FRAME_EOP) {
		HF_CHECK_EQ(f.frame, x->frames - x->fbase);
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
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x->s, f.index), 0);
	return 0;
}

static void rx_frames(struct rx *x, u64 n, bool gaps_ok)
{
	while (x->frames < n)
		HF_CHECK_ERR(rx_step(x, TMO_MS, gaps_ok), 0);
}

static void sleep_us(u32 us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static const struct mode_row {
	const char *name;
	const char *card;
} modes[] = {
	{ "poll", "emu,private,st,h2c=1,c2h=2,ddr=1M,irq=poll" },
	{ "msix", "emu,private,st,h2c=1,c2h=2,ddr=1M,irq=msix" },
	{ "msi", "emu,private,st,h2c=1,c2h=2,ddr=1M,irq=msi" },
	{ "legacy", "emu,private,st,h2c=1,c2h=2,ddr=1M,irq=legacy" },
};

#define CARD	"emu,private,st,h2c=1,c2h=2,ddr=1M"

/* ---- frames ---- */

/* 3000 frames back to back through 16 buffers: wraps 187 times. */
static void sustained_case(const void *arg)
{
	const struct mode_row *row = arg;
	HELLOFPGA_STREAM_STATS st;
	struct rx x;

	rx_open(&x, row->card, 16, 4096);
	src_start(x.h, 4096, 3000, 0, 0);
	rx_frames(&x, 3000, false);
	HF_CHECK_EQ(x.next_seq, 3000);
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(x.s, &st), 0);
	HF_CHECK_EQ(st.buffers, 3000);
	HF_CHECK_EQ(st.frames, 3000);
	HF_CHECK_EQ(st.bytes, 3000ull * 4096);
	HF_CHECK_EQ(st.source_sent, 3000);
	HF_CHECK_EQ(st.source_dropped, 0);
	HF_CHECK_EQ(st.held, 0);
	rx_close(&x);
}

HF_TEST_ROWS(stream_sustained_every_frame_verified, modes, sustained_case)

HF_TEST(stream_frames_span_buffers_eop_on_the_last)
{
	HELLOFPGA_FRAME f;
	struct rx x;

	rx_open(&x, CARD, 8, 4096);
	src_start(x.h, 10000, 100, 0, 0);
	for (int i = 0; i < 3; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, TMO_MS, &f), 0);
		HF_CHECK_EQ(f.index, i);
		HF_CHECK_EQ(f.sequence, i);
		HF_CHECK_EQ(f.length, i < 2 ? 4096 : 10000 - 8192);
		HF_CHECK_EQ(!!(f.flags & HELLOFPGA_FRAME_EOP), i == 2);
		memcpy(x.frame + x.got, f.host, f.length);
		x.got += f.length;
		HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, f.index), 0);
	}
	HF_CHECK_ERR(hf_stream_verify(x.frame, x.got, NULL), 0);
	x.got = 0;
	x.frames = 1;
	x.synced = true;
	x.next_seq = 1;
	rx_frames(&x, 100, false);
	rx_close(&x);
}

HF_TEST(stream_records_of_varying_length_verified)
{
	struct rx x;

	rx_open(&x, CARD, 32, 4096);
	src_wr(x.h, HF_ST_SRC_REC_MIN, 16);
	src_wr(x.h, HF_ST_SRC_REC_MAX, 30000);
	src_start(x.h, 4096, 1000, 0, HF_ST_SRC_CTRL_RECORDS);
	rx_frames(&x, 1000, false);
	HF_CHECK_EQ(x.next_seq, 1000);
	rx_close(&x);
}

/* Backpressure: the consumer falls behind, the ring fills, none is lost. */
static void behind_case(const void *arg)
{
	const struct mode_row *row = arg;
	HELLOFPGA_STREAM_STATS st;
	struct rx x;

	rx_open(&x, row->card, 4, 4096);
	src_start(x.h, 4096, 400, 2000, 0);
	while (x.frames < 400) {
		if (x.frames % 50 == 10)
			sleep_us(2000);
		HF_CHECK_ERR(rx_step(&x, TMO_MS, false), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(x.s, &st), 0);
	HF_CHECK(st.ring_full > 0);
	HF_CHECK_EQ(st.source_dropped, 0);
	HF_CHECK_EQ(x.dropped, 0);
	rx_close(&x);
}

HF_TEST_ROWS(stream_consumer_behind_backpressure_loses_nothing, modes,
	     behind_case)

/* Drop: the frames' dropped counts sum to the source's, as the gaps do. */
static void drop_case(const void *arg)
{
	const struct mode_row *row = arg;
	HELLOFPGA_STREAM_STATS st;
	struct rx x;
	int ret;

	rx_open(&x, row->card, 4, 4096);
	src_start(x.h, 4096, 500, 20000, HF_ST_SRC_CTRL_DROP);
	for (;;) {
		if (x.frames % 40 == 5)
			sleep_us(1000);
		ret = rx_step(&x, 50, true);
		if (ret == -ETIMEDOUT &&
		    (src_rd(x.h, HF_ST_SRC_STATUS) & HF_ST_SRC_STS_DONE))
			break;
		HF_CHECK_ERR(ret, 0);
	}
	/* frames dropped after the last one delivered: no Wait told them */
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(x.s, &st), 0);
	HF_CHECK(st.source_dropped > 0);
	HF_CHECK_EQ(x.frames + st.source_dropped, 500);
	HF_CHECK_EQ(x.gaps + (500 - x.next_seq), st.source_dropped);
	/*
	 * Each Wait reports what the source dropped up to it: every gap
	 * before the frame it hands out, and drops since, which the next
	 * frame's gap shows (or, after the last, the tail).
	 */
	HF_CHECK(x.dropped >= x.gaps);
	HF_CHECK(x.dropped <= st.source_dropped);
	rx_close(&x);
}

HF_TEST_ROWS(stream_consumer_behind_drop_counts_match, modes, drop_case)

/* Close in the middle of the stream, Open again: frames go on, whole. */
HF_TEST(stream_close_then_open_again_continues)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	struct rx x;
	u64 last;

	rx_open(&x, CARD, 4, 4096);
	src_start(x.h, 10000, 0, 5000, 0);
	for (int round = 0; round < 5; round++) {
		rx_frames(&x, x.frames + 10, false);
		/* stop mid-frame when the ring has a part of one */
		if (round % 2)
			HF_CHECK_ERR(rx_step(&x, TMO_MS, false), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Close(x.s), 0);
		x.s = NULL;
		last = x.next_seq;
		x.got = 0;
		x.synced = false;
		HF_CHECK_ERR(HelloFPGA_Stream_Open(x.h, &c, &x.s), 0);
		x.fbase = x.frames;
		rx_frames(&x, x.frames + 10, false);
		HF_CHECK(x.next_seq > last);
	}
	rx_close(&x);
}

static void timeout_case(const void *arg)
{
	const struct mode_row *row = arg;
	HELLOFPGA_FRAME f;
	struct rx x;
	struct timespec a, b;
	long long ms;

	rx_open(&x, row->card, 4, 4096);
	clock_gettime(CLOCK_MONOTONIC, &a);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, 30, &f), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000LL + (b.tv_nsec - a.tv_nsec) / 1000000;
	HF_CHECK(ms >= 29);
	HF_CHECK(strstr(HelloFPGA_GetLastError(x.h), "no stream buffer"));
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, 0, &f), -ETIMEDOUT);
	src_start(x.h, 4096, 10, 0, 0);
	rx_frames(&x, 10, false);
	rx_close(&x);
}

HF_TEST_ROWS(stream_wait_times_out_then_goes_on, modes, timeout_case)

/* ---- arguments ---- */

static const struct bad_row {
	const char *name;
	int field;
	int err;
	const char *text;
} bad_rows[] = {
	{ "channel_negative", 0, -ECHRNG, "out of range" },
	{ "channel_too_big", 1, -ECHRNG, "out of range" },
	{ "buffers_1", 2, -EINVAL, "buffers" },
	{ "buffers_513", 3, -EINVAL, "buffers" },
	{ "buffer_size_0", 4, -EINVAL, "buffer_size" },
	{ "buffer_size_not_4k", 5, -EINVAL, "buffer_size" },
	{ "host_unaligned", 6, -EINVAL, "aligned" },
	{ "host_and_gpu", 7, -EINVAL, "both" },
	{ "gpu_offset_without_gpu", 8, -EINVAL, "gpu_offset" },
	{ "flags", 9, -EINVAL, "flags" },
	{ "reserved", 10, -EINVAL, "reserved[6]" },
	{ "gpu_not_a_pin", 11, -ENOENT, "no pin" },
	{ "buffer_size_too_big", 12, -EINVAL, "buffer_size" },
};

static void bad_case(const void *arg)
{
	const struct bad_row *row = arg;
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_HANDLE h = t_open(CARD);
	static u8 mem[8192] __attribute__((aligned(4096)));
	HELLOFPGA_STREAM s = (HELLOFPGA_STREAM)1;

	switch (row->field) {
	case 0: c.channel = -1; break;
	case 1: c.channel = 2; break;
	case 2: c.buffers = 1; break;
	case 3: c.buffers = HELLOFPGA_STREAM_MAX_BUFFERS + 1; break;
	case 4: c.buffer_size = 0; break;
	case 5: c.buffer_size = 4097; break;
	case 6: c.host = mem + 16; break;
	case 7: c.host = mem; c.gpu = 1; break;
	case 8: c.gpu_offset = 4096; break;
	case 9: c.flags = 1; break;
	case 10: c.reserved[6] = 1; break;
	case 11: c.gpu = 12345; break;
	case 12: c.buffer_size = 256u << 20; break;
	}
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), row->err);
	HF_CHECK(s == NULL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), row->text), "'%s'",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST_ROWS(stream_open_refuses, bad_rows, bad_case)

HF_TEST(stream_open_null_arguments_efault)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_HANDLE h = t_open(CARD);
	HELLOFPGA_STREAM s;

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, NULL, &s), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(NULL, &c, &s), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(NULL, 0, NULL), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(NULL, 0), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(stream_on_a_memory_mapped_card_eopnotsupp)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_HANDLE h = t_open("emu,private,ddr=1M");
	HELLOFPGA_STREAM s;

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EOPNOTSUPP);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "memory-mapped"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/*
 * A user's own design behind the IP: the stream takes its frames as they
 * come, and the library reads no register of it but HF_USER_ID (where the
 * reference design has its source's counters) and writes none.
 */
HF_TEST(stream_on_another_design_reads_only_its_id)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 16384);
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_FRAME f;
	HELLOFPGA_STREAM s;

	hf_emu_test_user_logic(&other_design);
	h = t_open(CARD);
	hf_emu_test_user_logic(NULL);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	for (u64 k = 0; k < 10; k++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, TMO_MS, &f), 0);
		HF_CHECK_EQ(f.flags & HELLOFPGA_FRAME_EOP, HELLOFPGA_FRAME_EOP);
		HF_CHECK_EQ(f.length, other_design_len(k));
		HF_CHECK_EQ(((u8 *)f.host)[f.length - 1],
			    other_design_byte(k, f.length - 1));
		HF_CHECK_EQ(f.dropped, 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(s, &st), 0);
	HF_CHECK_EQ(st.source_sent, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_EQ(other_design_reads(), 1);
	HF_CHECK_EQ(other_design_writes(), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(stream_one_per_channel_ebusy)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_STREAM s2, s3;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(x.h, &c, &s2), -EBUSY);
	c.channel = 1;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(x.h, &c, &s3), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s3), 0);
	rx_close(&x);
}

HF_TEST(stream_wait_bad_arguments)
{
	HELLOFPGA_FRAME f;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, 0, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, 3600001, &f), -EINVAL);
	rx_close(&x);
}

HF_TEST(stream_release_of_a_buffer_not_held_einval)
{
	HELLOFPGA_FRAME f;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, 0), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, 4), -EINVAL);
	src_start(x.h, 4096, 1, 0, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, TMO_MS, &f), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, f.index), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, f.index), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(x.h), "not held"));
	rx_close(&x);
}

HF_TEST(stream_in_the_callers_host_memory)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 8192);
	HELLOFPGA_HANDLE h = t_open(CARD);
	u8 *mem = aligned_alloc(4096, 4 * 8192);
	HELLOFPGA_STREAM s;
	HELLOFPGA_FRAME f;

	HF_CHECK(mem);
	c.host = mem;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	src_start(h, 5000, 8, 0, 0);
	for (int i = 0; i < 8; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, TMO_MS, &f), 0);
		HF_CHECK(f.host == mem + (size_t)(i % 4) * 8192);
		HF_CHECK_ERR(hf_stream_verify(f.host, f.length, NULL), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(mem);
}

/*
 * A careless caller unmaps its ring while the card still writes it: the
 * card's next write into it faults (no SIGSEGV in the emulated card's
 * thread), the engine stops and Wait says so; buffers written before the
 * unmap are still handed out first.
 */
HF_TEST(stream_callers_ring_unmapped_while_running_stops_with_eio)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 8192);
	HELLOFPGA_HANDLE h = t_open(CARD);
	HELLOFPGA_STREAM s;
	HELLOFPGA_FRAME f;
	int ret = 0, taken = 0;
	u8 *mem;

	mem = mmap(NULL, 4 * 8192, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	HF_CHECK(mem != MAP_FAILED);
	c.host = mem;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	src_start(h, 8192, 0, 0, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, TMO_MS, &f), 0);
	HF_CHECK_ERR(munmap(mem, 4 * 8192), 0);
	t_expect_dma_faults(1);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	while (taken < 16) {
		ret = HelloFPGA_Stream_Wait(s, TMO_MS, &f);
		if (ret)
			break;
		taken++;
		HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	}
	HF_CHECK_ERR(ret, -EIO);
	HF_CHECK_MSG(taken <= 4, "%d buffers after the unmap", taken);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* ---- threads and lifetime ---- */

struct waiter {
	HELLOFPGA_STREAM s;
	int ret;
	bool started;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	HELLOFPGA_FRAME f;

	__atomic_store_n(&w->started, true, __ATOMIC_RELEASE);
	w->ret = HelloFPGA_Stream_Wait(w->s, 10000, &f);
	return NULL;
}

HF_TEST(stream_handle_close_wakes_a_waiter_with_ebadf)
{
	struct waiter w = { 0 };
	HELLOFPGA_FRAME f;
	pthread_t t;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	w.s = x.s;
	HF_CHECK_ERR(pthread_create(&t, NULL, waiter_fn, &w), 0);
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
		sleep_us(100);
	sleep_us(20000);	/* in the wait */
	HF_CHECK_ERR(HelloFPGA_Close(x.h), 0);
	HF_CHECK_ERR(pthread_join(t, NULL), 0);
	HF_CHECK_ERR(w.ret, -EBADF);
	/* the stream object stays until its Close, every call -EBADF */
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, 0, &f), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, 0), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(x.s), 0);
}

HF_TEST(stream_handle_close_with_streams_open_frees_them)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_STREAM s2;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	c.channel = 1;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(x.h, &c, &s2), 0);
	src_start(x.h, 4096, 0, 10000, 0);
	rx_frames(&x, 5, false);
	HF_CHECK_ERR(HelloFPGA_Close(x.h), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s2), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(x.s), 0);
}

struct releaser {
	HELLOFPGA_STREAM s;
	uint32_t idx[4];
	int ret;
};

static void *releaser_fn(void *arg)
{
	struct releaser *r = arg;

	sleep_us(20000);	/* the main thread waits on a full ring */
	for (int i = 0; i < 4 && !r->ret; i++)
		r->ret = HelloFPGA_Stream_Release(r->s, r->idx[i]);
	return NULL;
}

/* A full ring, a Wait blocked on it: another thread's release feeds it. */
HF_TEST(stream_release_from_another_thread_feeds_a_waiter)
{
	struct releaser r = { 0 };
	HELLOFPGA_FRAME f;
	pthread_t t;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	src_start(x.h, 4096, 100, 0, 0);
	for (int i = 0; i < 4; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, TMO_MS, &f), 0);
		r.idx[i] = f.index;
	}
	r.s = x.s;
	HF_CHECK_ERR(pthread_create(&t, NULL, releaser_fn, &r), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(x.s, 5000, &f), 0);
	HF_CHECK_EQ(f.sequence, 4);
	HF_CHECK_ERR(hf_stream_verify(f.host, f.length, NULL), 0);
	HF_CHECK_ERR(pthread_join(t, NULL), 0);
	HF_CHECK_ERR(r.ret, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(x.s, f.index), 0);
	rx_close(&x);
}

HF_TEST(stream_does_not_survive_fork)
{
	HELLOFPGA_FRAME f;
	struct rx x;
	pid_t pid;
	int st;

	rx_open(&x, CARD, 4, 4096);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (!pid) {
		int a = HelloFPGA_Stream_Wait(x.s, 0, &f);
		int b = HelloFPGA_Stream_Release(x.s, 0);
		int c = HelloFPGA_Stream_Close(x.s);

		_exit(a == -ECHILD && b == -ECHILD && c == -ECHILD ? 0 : 1);
	}
	HF_CHECK_EQ(waitpid(pid, &st, 0), pid);
	HF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	src_start(x.h, 4096, 3, 0, 0);
	rx_frames(&x, 3, false);
	rx_close(&x);
}

/* ---- a ring in a GPU Direct pin (the emulated GPU) ---- */

static void use_emu_gpu(void)
{
	HELLOFPGA_GPU_STATUS st;

	setenv("HELLOFPGA_GPU", "emu", 1);
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	HF_CHECK_MSG(st.supported, "no emulated GPU: %s", st.reason);
}

/*
 * The GPU of HF_TEST_GPU (HF_TEST_GPU=cuda ctest -R test_stream checks a
 * real GPU's memory), else the emulated one: for cases that do not depend
 * on the emulation.
 */
static void use_test_gpu(void)
{
	const char *t = getenv("HF_TEST_GPU");
	HELLOFPGA_GPU_STATUS st;

	if (!t || !*t) {
		use_emu_gpu();
		return;
	}
	setenv("HELLOFPGA_GPU", t, 1);
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	if (!st.supported)
		HF_SKIP("HF_TEST_GPU=%s: no GPU Direct: %s", t, st.reason);
}

/* The card, and @size bytes of GPU memory pinned on it. */
static HELLOFPGA_HANDLE gpu_pinned(size_t size, void **gpu,
				   HELLOFPGA_GPU_HANDLE *gh)
{
	HELLOFPGA_HANDLE h = t_open(CARD);

	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(gpu, size), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, *gpu, size, gh), 0);
	return h;
}

HF_TEST(stream_gpu_ring_in_a_pin_frames_verified)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(8, 64 << 10);
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	HELLOFPGA_FRAME f;
	size_t size = 1 << 20;
	static u8 host[64 << 10];
	void *gpu = NULL;

	use_test_gpu();
	h = gpu_pinned(size, &gpu, &gh);
	c.gpu = gh;
	c.gpu_offset = 256 << 10;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	src_start(h, 60000, 40, 0, 0);
	for (int i = 0; i < 40; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, TMO_MS, &f), 0);
		HF_CHECK(f.host == NULL);
		HF_CHECK_EQ(f.gpu_offset, (256 << 10) + (i % 8) * (64 << 10));
		HF_CHECK_EQ(f.length, 60000);
		HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(host, (u8 *)gpu + f.gpu_offset,
						  f.length,
						  HELLOFPGA_MEMCPY_GPU_TO_HOST),
			     0);
		HF_CHECK_ERR(hf_stream_verify(host, f.length, NULL), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
}

/*
 * The pin a GPU ring lies in cannot be unpinned while the stream is open
 * (-EBUSY, as the kernel driver's UNPIN refuses it); the ring goes on, and
 * once the stream is closed the pin goes.
 */
HF_TEST(stream_gpu_ring_pin_unpin_while_open_is_ebusy)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 64 << 10);
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	HELLOFPGA_FRAME f;
	size_t size = 1 << 20;
	static u8 host[64 << 10];
	void *gpu = NULL;

	use_test_gpu();
	h = gpu_pinned(size, &gpu, &gh);
	c.gpu = gh;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -EBUSY);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "open stream"), "%s",
		     HelloFPGA_GetLastError(h));
	src_start(h, 60000, 8, 0, 0);
	for (int i = 0; i < 8; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, TMO_MS, &f), 0);
		HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(host, (u8 *)gpu + f.gpu_offset,
						  f.length,
						  HELLOFPGA_MEMCPY_GPU_TO_HOST),
			     0);
		HF_CHECK_ERR(hf_stream_verify(host, f.length, NULL), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -ENOENT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
}

/*
 * A ring in a pin whose GPU memory was freed (the pin revoked, its mapping
 * gone): Stream_Open is -ENXIO, as a transfer of the pin is, and the card
 * goes on (it dereferenced the released pin's mapping: SIGSEGV).
 */
HF_TEST(stream_gpu_ring_in_a_pin_whose_memory_was_freed_enxio)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s = NULL;
	size_t size = 1 << 16;
	void *gpu = NULL;

	use_emu_gpu();
	h = gpu_pinned(size, &gpu, &gh);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	c.gpu = gh;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -ENXIO);
	HF_CHECK(s == NULL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "was freed"), "%s",
		     HelloFPGA_GetLastError(h));
	/* the channel is free: a ring in host memory opens there */
	c.gpu = 0;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

struct ring_consumer {
	HELLOFPGA_STREAM s;
	unsigned long frames;	/* atomic */
	int ret;
};

/* Take and release frames until a Wait fails; its result in ->ret. */
static void *ring_consume_fn(void *arg)
{
	struct ring_consumer *rc = arg;
	HELLOFPGA_FRAME f;
	int ret;

	while (!(ret = HelloFPGA_Stream_Wait(rc->s, TMO_MS, &f))) {
		__atomic_add_fetch(&rc->frames, 1, __ATOMIC_RELEASE);
		ret = HelloFPGA_Stream_Release(rc->s, f.index);
		if (ret)
			break;
	}
	rc->ret = ret;
	return NULL;
}

/*
 * The GPU memory of an open GPU ring freed while the card fills the ring
 * and a thread consumes it: the ring is stopped before the pin's mapping
 * goes, so the card writes nothing there (no DMA fault: the harness counts
 * them), and the consumer's Wait returns -EIO; the stream then closes and
 * the pin unpins.  (The card went on writing into the unmapped pin.)
 */
HF_TEST(stream_gpu_ring_memory_freed_stops_the_ring_first)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_GPU_HANDLE gh = 0;
	struct ring_consumer rc;
	HELLOFPGA_HANDLE h;
	size_t size = 1 << 16;
	void *gpu = NULL;
	pthread_t t;

	t_watchdog(120, "a GPU ring whose memory is freed");
	use_emu_gpu();
	h = t_open(CARD);
	t_need_emulated(h, "the emulated IOMMU's fault count");
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh), 0);
	c.gpu = gh;
	memset(&rc, 0, sizeof(rc));
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &rc.s), 0);
	src_start(h, 4096, 0, 0, 0);
	HF_CHECK_ERR(pthread_create(&t, NULL, ring_consume_fn, &rc), 0);
	/* the card is filling the ring */
	while (__atomic_load_n(&rc.frames, __ATOMIC_ACQUIRE) < 50)
		sleep_us(100);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	HF_CHECK_ERR(pthread_join(t, NULL), 0);
	HF_CHECK_MSG(rc.ret == -EIO, "the consumer's Wait returned %d: %s",
		     rc.ret, HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Stream_Close(rc.s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	t_watchdog_off();
}

HF_TEST(stream_gpu_ring_buffers_larger_than_the_pins_pieces_einval)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(2, 4 << 20);
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	size_t size = 8 << 20;
	void *gpu = NULL;

	use_emu_gpu();
	h = gpu_pinned(size, &gpu, &gh);
	c.gpu = gh;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EINVAL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h),
			    "largest buffer size that works is 2097152"),
		     "'%s'", HelloFPGA_GetLastError(h));
	c.gpu_offset = 4096;
	c.buffer_size = 2 << 20;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "not contiguous"));
	c.gpu_offset = 6 << 20;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -ERANGE);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
}

/*
 * A stream whose engine does not go idle within its stop's bound (the
 * card's engines hang for longer): Stream_Close is -EIO, the ring stays
 * with the card while the card may write it, and HelloFPGA_Close frees it
 * once the engines have stopped (it was never freed: the ASan stage's leak
 * check reports it).  A host ring and a library ring.
 */
HF_TEST(stream_wedged_at_its_close_frees_its_ring_at_the_cards_close)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_STREAM s1, s2;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_FRAME f;
	void *mem;
	int ret;

	h = t_open(CARD);
	t_need_emulated(h, "fault injection (hf_emu_test_inject_hang)");
	mem = aligned_alloc(4096, 4 * 4096);
	HF_CHECK(mem);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s1), 0);
	c.channel = 1;
	c.host = mem;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s2), 0);
	src_start(h, 4096, 0, 0, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s1, TMO_MS, &f), 0);
	/* far longer than a stop waits for an engine of no link model */
	HF_CHECK_ERR(hf_emu_test_inject_hang(h, 200000000ull), 0);
	ret = HelloFPGA_Stream_Close(s1);
	HF_CHECK_MSG(ret == -EIO && strstr(HelloFPGA_GetLastError(h), "wedged"),
		     "Stream_Close under a hang: %d: %s", ret,
		     HelloFPGA_GetLastError(h));
	ret = HelloFPGA_Stream_Close(s2);
	HF_CHECK_MSG(ret == -EIO && strstr(HelloFPGA_GetLastError(h), "wedged"),
		     "Stream_Close under a hang: %d: %s", ret,
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s1), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	/* the card wrote its last into the host ring before its close ended */
	free(mem);
}

/* A closed stream, or a value no Open returned, is -EBADF: never a crash. */
HF_TEST(stream_closed_or_made_up_streams_are_ebadf)
{
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_FRAME f;
	HELLOFPGA_STREAM s;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	s = x.s;
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	x.s = NULL;
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 0, &f), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(s, 0), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(s, &st), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), -EBADF);
	s = (HELLOFPGA_STREAM)(void *)(uintptr_t)0x1234;
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 0, &f), -EBADF);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "not an open stream"));
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), -EBADF);
	s = (HELLOFPGA_STREAM)(void *)&f;	/* an address, not a name */
	HF_CHECK_ERR(HelloFPGA_Stream_Release(s, 0), -EBADF);
	rx_close(&x);
}

/* Stream_Close while another thread waits on the stream: the wait ends
 * with -EBADF before the stream is freed (ASan/TSan check the rest). */
HF_TEST(stream_close_wakes_a_waiter_on_the_stream)
{
	struct waiter w = { 0 };
	pthread_t t;
	struct rx x;

	rx_open(&x, CARD, 4, 4096);
	w.s = x.s;
	HF_CHECK_ERR(pthread_create(&t, NULL, waiter_fn, &w), 0);
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
		sleep_us(100);
	sleep_us(20000);	/* in the wait */
	HF_CHECK_ERR(HelloFPGA_Stream_Close(x.s), 0);
	x.s = NULL;
	HF_CHECK_ERR(pthread_join(t, NULL), 0);
	HF_CHECK_ERR(w.ret, -EBADF);
	rx_close(&x);
}

/*
 * Threads that call on a stream while another closes it: each calls
 * until it gets -EBADF (the stream closed), counting its calls.
 */
enum caller_kind {
	CALL_POLL,		/* Stream_Wait(s, 0) */
	CALL_STATS,		/* Stream_GetStats() */
};

struct caller {
	HELLOFPGA_STREAM s;
	enum caller_kind kind;
	unsigned long calls;	/* atomic */
	int bad;		/* a result other than 0, -ETIMEDOUT, -EBADF */
	pthread_t t;
};

static void *caller_fn(void *arg)
{
	struct caller *c = arg;
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_FRAME f;
	int ret;

	for (;;) {
		switch (c->kind) {
		case CALL_POLL:
			ret = HelloFPGA_Stream_Wait(c->s, 0, &f);
			break;
		default:
			ret = HelloFPGA_Stream_GetStats(c->s, &st);
			break;
		}
		__atomic_add_fetch(&c->calls, 1, __ATOMIC_RELEASE);
		if (ret == -EBADF)
			return NULL;
		if (ret && ret != -ETIMEDOUT) {
			c->bad = ret;
			return NULL;
		}
	}
}

struct close_race_row {
	const char *name;
	enum caller_kind kind;
	int threads;
	int rounds;
};

/*
 * Stream_Close while @row->threads threads call on the stream, @rounds
 * times: it returns, and every call ends with -EBADF, never a crash.
 */
static void close_race(const struct close_race_row *row)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	struct caller cl[2];
	HELLOFPGA_HANDLE h;

	t_watchdog(120, "HelloFPGA_Stream_Close() with calls in flight");
	h = t_open(CARD);
	for (int r = 0; r < row->rounds; r++) {
		HELLOFPGA_STREAM s;
		int ret;

		HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
		memset(cl, 0, sizeof(cl));
		for (int i = 0; i < row->threads; i++) {
			cl[i].s = s;
			cl[i].kind = row->kind;
			HF_CHECK_ERR(pthread_create(&cl[i].t, NULL, caller_fn,
						    &cl[i]), 0);
		}
		/* every thread is in its calls */
		for (int i = 0; i < row->threads; i++)
			while (__atomic_load_n(&cl[i].calls,
					       __ATOMIC_ACQUIRE) < 2)
				sleep_us(50);
		sleep_us((r % 4) * 100);
		ret = HelloFPGA_Stream_Close(s);
		HF_CHECK_MSG(!ret, "round %d: Stream_Close: %d: %s", r, ret,
			     HelloFPGA_GetLastError(h));
		for (int i = 0; i < row->threads; i++) {
			HF_CHECK_ERR(pthread_join(cl[i].t, NULL), 0);
			HF_CHECK_MSG(!cl[i].bad, "round %d: a call returned %d",
				     r, cl[i].bad);
		}
	}
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	t_watchdog_off();
}

static const struct close_race_row close_wait_rows[] = {
	{ "one_thread_polling", CALL_POLL, 1, 40 },
	{ "two_threads_polling", CALL_POLL, 2, 40 },
};

static void close_wait_case(const void *arg)
{
	close_race(arg);
}

/* Stream_Close() returns once the calls in flight have: no lost wake-up. */
HF_TEST_ROWS(stream_close_returns_while_other_threads_wait_on_the_stream,
	     close_wait_rows, close_wait_case)

/*
 * A call that began before Stream_Close() stopped the ring never reaches
 * the ring after it: -EBADF.  (GetStats reaches it every time it comes
 * late; releases pending at the stop take the same guard, but a test
 * cannot make them come late on demand.)
 */
HF_TEST(stream_get_stats_racing_close_never_reaches_the_stopped_ring)
{
	static const struct close_race_row row = {
		"get_stats", CALL_STATS, 2, 60
	};

	close_race(&row);
}

struct card_closer {
	HELLOFPGA_HANDLE h;
	int ret;
};

static void *card_close_fn(void *arg)
{
	struct card_closer *c = arg;

	c->ret = HelloFPGA_Close(c->h);
	return NULL;
}

struct h2c_holder {
	HELLOFPGA_HANDLE h;
	int ret;
};

static void *h2c_hold_fn(void *arg)
{
	struct h2c_holder *ho = arg;
	static u8 buf[4096];

	ho->ret = HelloFPGA_DMA_MM_WriteH2C(ho->h, 0, buf, 0, sizeof(buf),
					    NULL);
	return NULL;
}

/*
 * Stream_Close() while HelloFPGA_Close() of its handle waits for a
 * transfer in flight (the card hangs): the stream is still on the card's
 * list, and that Close stops it later; Stream_Close() waits for that stop
 * rather than free what it will read.  (Freed memory is scribbled over,
 * M_PERTURB, so that a use after free shows without ASan too.)
 */
HF_TEST(stream_close_during_the_handles_close_waits_for_its_stop)
{
	HELLOFPGA_STREAM_CONFIG c = cfg_of(4, 4096);
	HELLOFPGA_COUNTERS c0, c1;
	struct card_closer cc;
	struct h2c_holder ho;
	HELLOFPGA_INFO info;
	pthread_t tc, th;
	HELLOFPGA_STREAM s;
	HELLOFPGA_HANDLE h;

	t_watchdog(120, "Stream_Close() during HelloFPGA_Close()");
	mallopt(M_PERTURB, 0x5a);
	h = t_open(CARD);
	t_need_emulated(h, "fault injection (hf_emu_test_inject_hang)");
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 20000), 0);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c0), 0);
	HF_CHECK_ERR(hf_emu_test_inject_hang(h, 300000000ull), 0);
	ho.h = h;
	ho.ret = 1;
	HF_CHECK_ERR(pthread_create(&th, NULL, h2c_hold_fn, &ho), 0);
	/* the write is in flight once its engine was started */
	do {
		sleep_us(1000);
		HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c1), 0);
	} while (c1.mmio_writes == c0.mmio_writes);
	cc.h = h;
	cc.ret = 1;
	HF_CHECK_ERR(pthread_create(&tc, NULL, card_close_fn, &cc), 0);
	/* the Close began: the handle is out of the table */
	while (HelloFPGA_GetInfo(h, &info) != -EBADF)
		sleep_us(1000);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(pthread_join(tc, NULL), 0);
	HF_CHECK_ERR(pthread_join(th, NULL), 0);
	HF_CHECK_ERR(cc.ret, 0);
	HF_CHECK_ERR(ho.ret, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), -EBADF);
	mallopt(M_PERTURB, 0);
	t_watchdog_off();
}

/* ---- H2C: a write sends one packet to the channel's sink ---- */

static u32 sink_rd(HELLOFPGA_HANDLE h, u32 reg)
{
	u32 v = 0;

	HF_CHECK_ERR(HelloFPGA_UserRead32(h, HF_USER_ST_SINK(0) + reg, &v), 0);
	return v;
}

/* Each write is one frame at the sink (TLAST at its end), verified. */
HF_TEST(stream_h2c_write_sends_one_packet_each)
{
	HELLOFPGA_HANDLE h = t_open(CARD);
	size_t len = 100000, n = 0;
	u8 *buf = malloc(len);

	HF_CHECK(buf);
	for (u64 seq = 3; seq < 6; seq++) {
		hf_stream_fill(buf, seq, (u32)len, 0, (u32)len);
		HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, &n),
			     0);
		HF_CHECK_EQ(n, len);
	}
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_OK), 3);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_BAD), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_LAST_SEQ_LO), 5);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_PARTIAL), 0);
	/* a packet that is not a frame of the format: the sink says so */
	buf[len / 2] ^= 1;
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, NULL), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_BAD), 1);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(buf);
}

/* An AXI-Stream channel has no card address: any but 0 is refused. */
HF_TEST(stream_h2c_write_with_a_card_address_einval)
{
	HELLOFPGA_HANDLE h = t_open(CARD);
	u8 buf[4096] = { 0 };

	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 4096, sizeof(buf),
					       NULL), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "no card address"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, 1, 64, 4096, 100),
		     -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "no card address"));
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_BYTES_LO), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* An H2C packet from a GPU Direct pin (the emulated GPU), verified. */
HF_TEST(stream_h2c_write_from_a_gpu_pin)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	size_t size = 1 << 20;
	u8 *host = malloc(size);
	void *gpu = NULL;

	HF_CHECK(host);
	use_test_gpu();
	h = t_open(CARD);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	hf_stream_fill(host, 9, (u32)size, 0, (u32)size);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(gpu, host, size,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, size, 0), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_LAST_SEQ_LO), 9);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	free(host);
}

/* A card whose engines need alignment: an unaligned packet is refused
 * (a bounce buffer would cut it into several packets). */
HF_TEST(stream_h2c_unaligned_packet_on_an_aligned_card_einval)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,st,h2c=1,c2h=1,align=64");
	u8 *buf = aligned_alloc(64, 8192);

	HF_CHECK(buf);
	hf_stream_fill(buf, 0, 8192, 0, 8192);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf + 1, 0, 4096, NULL),
		     -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "no bounce buffer"));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, 8192, NULL), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(buf);
}
