// SPDX-License-Identifier: MIT
/*
 * test_link_model.c - the emulated card's PCIe link model
 * (model/xdma_link.c): option parsing and the delay it computes,
 * checked as numbers (no timing), and that a card opened with a link model
 * takes at least the model's time per transfer (a floor: generous, one-sided).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "hellofpga.h"
#include "xdma_link.h"

static struct xdma_link parse(const char *a, const char *b, const char *c,
				int *ret)
{
	struct xdma_link l;
	const char *opt[3] = { a, b, c };

	memset(&l, 0, sizeof(l));
	*ret = 0;
	for (int i = 0; i < 3 && opt[i] && !*ret; i++)
		*ret = xdma_link_parse(opt[i], &l);
	if (!*ret)
		*ret = xdma_link_finish(&l);
	return l;
}

static bool near(double a, double b, double rel)
{
	return a > b * (1 - rel) && a < b * (1 + rel);
}

HF_TEST(lane_rates_follow_the_encodings)
{
	HF_CHECK(near(xdma_link_lane_gbps(1), 0.25, 1e-9));
	HF_CHECK(near(xdma_link_lane_gbps(2), 0.5, 1e-9));
	HF_CHECK(near(xdma_link_lane_gbps(3), 8.0 * 128 / 130 / 8, 1e-9));
	HF_CHECK(near(xdma_link_lane_gbps(4), 16.0 * 128 / 130 / 8, 1e-9));
	HF_CHECK(near(xdma_link_lane_gbps(5), 32.0 * 128 / 130 / 8, 1e-9));
	HF_CHECK(xdma_link_lane_gbps(0) == 0 && xdma_link_lane_gbps(6) == 0);
}

HF_TEST(gen3x8_defaults_and_delay)
{
	int ret;
	struct xdma_link l = parse("link=gen3x8", NULL, NULL, &ret);
	double g = 8 * 8.0 * 128 / 130 / 8 * 256 / (256.0 + 20);

	HF_CHECK_EQ(ret, 0);
	HF_CHECK_EQ(l.gen, 3u);
	HF_CHECK_EQ(l.lanes, 8u);
	HF_CHECK_EQ(l.mps, (uint32_t)XDMA_LINK_DEFAULT_MPS);
	HF_CHECK_EQ(l.desc_ns, (uint64_t)XDMA_LINK_DEFAULT_DESC_NS);
	HF_CHECK(near(xdma_link_gbps(&l), g, 1e-9));
	/* 7.31 GB/s: the seed's H100 Gen3 x8 peaked at 7.37 */
	HF_CHECK(near(xdma_link_gbps(&l), 7.31, 0.005));
	HF_CHECK_EQ(xdma_link_ns(&l, 0), 1000ull);
	HF_CHECK_EQ(xdma_link_ns(&l, 1 << 20),
		    1000ull + (uint64_t)((1 << 20) / g + 0.5));
}

HF_TEST(gen3x4_options)
{
	int ret;
	struct xdma_link l = parse("link=gen3x4", "mps=512", "desc_ns=600",
				     &ret);

	HF_CHECK_EQ(ret, 0);
	HF_CHECK_EQ(l.lanes, 4u);
	HF_CHECK_EQ(l.mps, 512u);
	HF_CHECK_EQ(l.desc_ns, 600ull);
	HF_CHECK(near(xdma_link_gbps(&l),
		      4 * 8.0 * 128 / 130 / 8 * 512 / 532.0, 1e-9));
	/* desc_ns=0 is a value, not "unset" */
	l = parse("desc_ns=0", "link=gen4x16", NULL, &ret);
	HF_CHECK_EQ(ret, 0);
	HF_CHECK_EQ(l.desc_ns, 0ull);
	HF_CHECK_EQ(xdma_link_ns(&l, 0), 0ull);
}

HF_TEST(bad_options_are_refused)
{
	static const char *const bad[] = {
		"link=gen0x4", "link=gen6x4", "link=gen3x3", "link=gen3x32",
		"link=gen3", "link=gen3x4z", "link=", "mps=100", "mps=8192",
		"mps=", "desc_ns=-1", "desc_ns=2000000000", "desc_ns=1k",
	};
	struct xdma_link l;
	int ret;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&l, 0, sizeof(l));
		HF_CHECK_MSG(xdma_link_parse(bad[i], &l) == -EINVAL,
			     "%s accepted", bad[i]);
	}
	memset(&l, 0, sizeof(l));
	HF_CHECK_EQ(xdma_link_parse("ddr=1G", &l), -ENOENT);
	parse("mps=256", NULL, NULL, &ret);
	HF_CHECK_EQ(ret, -EINVAL);	/* no link= */
	l = parse("link=gen3x4", "link=none", NULL, &ret);
	HF_CHECK_EQ(ret, 0);
	HF_CHECK_EQ(l.gen, 0u);
	HF_CHECK_EQ(xdma_link_ns(&l, 1 << 20), 0ull);
}

HF_TEST(card_bad_link_name_is_refused)
{
	HELLOFPGA_HANDLE h = NULL;

	HF_CHECK_EQ(HelloFPGA_Open("emu:0,private,link=gen7x4", &h), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "link=") != NULL);
	HF_CHECK_EQ(HelloFPGA_Open("emu:0,private,mps=256", &h), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "need link=") != NULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Gen1 x1 (0.23 GB/s): 1 MiB must take >= 4.5 ms, whatever the machine. */
HF_TEST(card_with_link_model_is_no_faster_than_the_link)
{
	static uint8_t buf[1 << 20];
	struct xdma_link l = { .gen = 1, .lanes = 1, .mps = 128,
				 .desc_ns = 5000 };
	HELLOFPGA_HANDLE h = NULL;
	uint64_t t0, dt;
	size_t got;

	HF_CHECK_EQ(HelloFPGA_Open("emu:0,private,link=gen1x1,mps=128,desc_ns=5000",
				   &h), 0);
	for (int dir = 0; dir < 2; dir++) {
		t0 = now_ns();
		if (dir)
			HF_CHECK_EQ(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0,
							     sizeof(buf), &got), 0);
		else
			HF_CHECK_EQ(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0,
							      sizeof(buf), &got), 0);
		dt = now_ns() - t0;
		HF_CHECK_MSG(dt >= xdma_link_ns(&l, sizeof(buf)),
			     "%s took %llu ns, the model says %llu",
			     dir ? "C2H" : "H2C", (unsigned long long)dt,
			     (unsigned long long)xdma_link_ns(&l, sizeof(buf)));
	}
	HelloFPGA_Close(h);
}
