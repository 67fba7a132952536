// SPDX-License-Identifier: MIT
/*
 * test_bench_predict.c - "hellofpga bench"'s predicted cost per transfer
 * (tools/bench/bench_predict.c): the arithmetic for known counts on a
 * round link, against values computed by hand in the comments; and the
 * reference driver's counts it compares hellofpga's with.
 */
#include <math.h>
#include <stdbool.h>

#include "harness.h"
#include "bench_predict.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

/* 4 GB/s = 4 bytes/ns, 1000 ns per descriptor fetch */
static const struct bcost_link link4 = { 4.0, 1000.0 };

HF_TEST(the_constants_are_the_documented_ones)
{
	HF_CHECK(near(BCOST_MMIO_READ_NS, 1000));
	HF_CHECK(near(BCOST_MMIO_WRITE_NS, 100));
	HF_CHECK(near(BCOST_IRQ_NS, 2000));
	HF_CHECK(near(BCOST_DESC_BYTES, 32));
}

HF_TEST(reference_counts_are_those_of_issue_13)
{
	static const double want[BCOST_NREF][4] = {
		{ 5, 7, 1, 1 }, { 5, 7, 16, 1 }, { 7, 10, 1024, 1 },
	};
	static const uint64_t size[BCOST_NREF] = { 4096, 65536, 4194304 };

	for (int i = 0; i < BCOST_NREF; i++) {
		const struct bcost_ref *r = &bcost_reference[i];

		HF_CHECK_EQ(r->size, size[i]);
		HF_CHECK_EQ(r->c.bytes, size[i]);
		HF_CHECK(near(r->c.mmio_reads, want[i][0]));
		HF_CHECK(near(r->c.mmio_writes, want[i][1]));
		HF_CHECK(near(r->c.desc, want[i][2]));
		HF_CHECK(near(r->c.irqs, want[i][3]));
	}
}

HF_TEST(reference_4k_by_hand)
{
	struct bcost b;

	/*
	 * mmio 5 x 1000 + 7 x 100 = 5700; fetch 1000 + 0 + 1 x 32 / 4 = 1008;
	 * irq 2000; data 4096 / 4 = 1024; total 9732 ns, 4096 / 9732 GB/s
	 */
	bcost_predict(&link4, &bcost_reference[0].c, &b);
	HF_CHECK(near(b.mmio_ns, 5700));
	HF_CHECK(near(b.fetch_ns, 1008));
	HF_CHECK(near(b.irq_ns, 2000));
	HF_CHECK(near(b.data_ns, 1024));
	HF_CHECK(near(b.total_ns, 9732));
	HF_CHECK(near(b.gbps, 4096.0 / 9732));
}

HF_TEST(reference_4m_fetches_hide_behind_the_data)
{
	struct bcost b;

	/*
	 * 4 KiB per descriptor takes 1024 ns > 1000: only the first fetch
	 * shows.  mmio 7000 + 1000 = 8000; fetch 1000 + 1024 x 8 = 9192;
	 * irq 2000; data 1048576; total 1067768 ns
	 */
	bcost_predict(&link4, &bcost_reference[2].c, &b);
	HF_CHECK(near(b.mmio_ns, 8000));
	HF_CHECK(near(b.fetch_ns, 9192));
	HF_CHECK(near(b.data_ns, 1048576));
	HF_CHECK(near(b.total_ns, 1067768));
}

HF_TEST(fetches_longer_than_the_data_show)
{
	static const struct bcost_link link8 = { 8.0, 1000.0 };
	struct bcost b;

	/*
	 * 64 KiB in 16 descriptors at 8 bytes/ns: 512 ns of data each, so
	 * each later fetch shows 1000 - 512 = 488 ns.  fetch 1000 + 15 x 488
	 * + 16 x 4 = 8384; mmio 5700; irq 2000; data 8192; total 24276 ns
	 */
	bcost_predict(&link8, &bcost_reference[1].c, &b);
	HF_CHECK(near(b.fetch_ns, 8384));
	HF_CHECK(near(b.total_ns, 24276));
}

HF_TEST(fractional_counts_and_no_interrupt)
{
	const struct bcost_counts c = { 1.5, 4, 2, 0, 8192 };
	struct bcost b;

	/*
	 * hellofpga-like counts, poll mode: mmio 1500 + 400 = 1900; 2
	 * descriptors of 1024 ns data: fetch 1000 + 0 + 2 x 8 = 1016; irq 0;
	 * data 2048; total 4964 ns
	 */
	bcost_predict(&link4, &c, &b);
	HF_CHECK(near(b.mmio_ns, 1900));
	HF_CHECK(near(b.fetch_ns, 1016));
	HF_CHECK(near(b.irq_ns, 0));
	HF_CHECK(near(b.total_ns, 4964));
}

HF_TEST(no_link_no_prediction)
{
	const struct bcost_link none = { 0, 1000 };
	struct bcost b;

	bcost_predict(&none, &bcost_reference[0].c, &b);
	HF_CHECK(b.total_ns == 0 && b.gbps == 0 && b.mmio_ns == 0);
}
