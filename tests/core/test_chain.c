// SPDX-License-Identifier: MIT
/*
 * test_chain.c - descriptor chains of the engine core (no card involved):
 * counting, merging, splitting, adjacent blocks, flags, errors.
 */
#include "harness.h"

#include <malloc.h>
#include <stdlib.h>

#include "xdma_engine.h"

#define MAXD	1024
#define GUARD	0x5a

/* Descriptor storage; the bus address the "device" sees is separate. */
static struct hf_xdma_desc store[MAXD + 8] __attribute__((aligned(4096)));

#define BUS_PAGE	0x7e000000ull

static void chain_at(struct hf_xdma_chain *c, u32 first, u32 capacity, u64 bus)
{
	memset(store, GUARD, sizeof(store));
	hf_xdma_chain_init(c, &store[first], bus, capacity);
}

static void chain_new(struct hf_xdma_chain *c)
{
	chain_at(c, 0, MAXD, BUS_PAGE);
}

static u32 dctrl(const struct hf_xdma_chain *c, u32 i)
{
	return le32_to_cpu(c->desc[i].control);
}

static u32 dlen(const struct hf_xdma_chain *c, u32 i)
{
	return le32_to_cpu(c->desc[i].len);
}

static u64 dsrc(const struct hf_xdma_chain *c, u32 i)
{
	return (u64)le32_to_cpu(c->desc[i].src_hi) << 32 |
	       le32_to_cpu(c->desc[i].src_lo);
}

static u64 ddst(const struct hf_xdma_chain *c, u32 i)
{
	return (u64)le32_to_cpu(c->desc[i].dst_hi) << 32 |
	       le32_to_cpu(c->desc[i].dst_lo);
}

static u64 dnext(const struct hf_xdma_chain *c, u32 i)
{
	return (u64)le32_to_cpu(c->desc[i].next_hi) << 32 |
	       le32_to_cpu(c->desc[i].next_lo);
}

static u32 dadj(const struct hf_xdma_chain *c, u32 i)
{
	return FIELD_GET(XDMA_DESC_CTRL_NXT_ADJ, dctrl(c, i));
}

#define LAST_FLAGS	(XDMA_DESC_CTRL_STOP | XDMA_DESC_CTRL_COMPLETED | \
			 XDMA_DESC_CTRL_EOP)

/* Structural checks every built chain must pass. */
static void check_chain(const struct hf_xdma_chain *c)
{
	u64 sum = 0;
	u32 i;

	HF_CHECK(c->count > 0);
	for (i = 0; i < c->count; i++) {
		HF_CHECK_EQ(FIELD_GET(XDMA_DESC_CTRL_MAGIC, dctrl(c, i)),
			    XDMA_DESC_MAGIC);
		HF_CHECK(dlen(c, i) > 0 && dlen(c, i) <= XDMA_DESC_MAX_LEN);
		sum += dlen(c, i);
		if (i + 1 < c->count) {
			HF_CHECK_EQ(dctrl(c, i) & LAST_FLAGS, 0);
			HF_CHECK_EQ(dnext(c, i), c->bus + 32ull * (i + 1));
		} else {
			HF_CHECK_EQ(dctrl(c, i) & LAST_FLAGS, LAST_FLAGS);
			HF_CHECK_EQ(dnext(c, i), 0);
			HF_CHECK_EQ(dadj(c, i), 0);
		}
	}
	HF_CHECK_EQ(sum, c->bytes);
}

/*
 * Builds @c in fresh storage after checking hf_xdma_chain_count() says
 * @count descriptors, and checks the structure of what was built.
 */
static void build_checked(struct hf_xdma_chain *c, enum hf_xdma_dir dir,
			  const struct hf_sg *sg, u32 n, u64 off, u64 len,
			  u64 card, u32 count)
{
	chain_new(c);
	HF_CHECK_EQ(hf_xdma_chain_count(sg, n, off, len), count);
	HF_CHECK_ERR(hf_xdma_chain_build(c, dir, sg, n, off, len, card), 0);
	check_chain(c);
}

HF_TEST(chain_one_byte)
{
	struct hf_sg sg = { 0x12345000, 1 };
	struct hf_xdma_chain c;

	chain_new(&c);
	HF_CHECK_EQ(hf_xdma_chain_count(&sg, 1, 0, 1), 1);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, &sg, 1, 0, 1, 0x100), 0);
	HF_CHECK_EQ(c.count, 1);
	HF_CHECK_EQ(c.bytes, 1);
	HF_CHECK_EQ(c.first_adj, 0);
	HF_CHECK_EQ(dctrl(&c, 0), 0xad4b0000u | LAST_FLAGS);
	HF_CHECK_EQ(dlen(&c, 0), 1);
	HF_CHECK_EQ(dsrc(&c, 0), 0x12345000);
	HF_CHECK_EQ(ddst(&c, 0), 0x100);
	HF_CHECK_EQ(dnext(&c, 0), 0);
}

HF_TEST(chain_unaligned_start_and_end)
{
	struct hf_sg sg[3] = {
		{ 0x10000, 0x1000 }, { 0x30000, 0x1000 }, { 0x50000, 0x1000 },
	};
	struct hf_xdma_chain c;

	/* bytes 0x7 .. 0x2ffc: mid first page to mid last page */
	build_checked(&c, XDMA_H2C, sg, 3, 7, 0x2ff5, 0x3, 3);
	HF_CHECK_EQ(dsrc(&c, 0), 0x10007);
	HF_CHECK_EQ(dlen(&c, 0), 0xff9);
	HF_CHECK_EQ(ddst(&c, 0), 0x3);
	HF_CHECK_EQ(dsrc(&c, 1), 0x30000);
	HF_CHECK_EQ(dlen(&c, 1), 0x1000);
	HF_CHECK_EQ(ddst(&c, 1), 0x3 + 0xff9);
	HF_CHECK_EQ(dsrc(&c, 2), 0x50000);
	HF_CHECK_EQ(dlen(&c, 2), 0xffc);
	HF_CHECK_EQ(ddst(&c, 2), 0x3 + 0xff9 + 0x1000);
}

HF_TEST(chain_exactly_2_28_bytes_is_two_descriptors)
{
	struct hf_sg sg = { 0x100000000ull, 1ull << 28 };
	struct hf_xdma_chain c;

	build_checked(&c, XDMA_H2C, &sg, 1, 0, 1ull << 28, 0x1000, 2);
	HF_CHECK_EQ(dlen(&c, 0), XDMA_DESC_MAX_LEN);
	HF_CHECK_EQ(dlen(&c, 1), 4096);
	HF_CHECK_EQ(dsrc(&c, 1), 0x100000000ull + XDMA_DESC_MAX_LEN);
	HF_CHECK_EQ(ddst(&c, 1), 0x1000 + XDMA_DESC_MAX_LEN);
}

HF_TEST(chain_2_28_plus_one_bytes)
{
	u64 len = (1ull << 28) + 1;
	struct hf_sg sg = { 0x100000000ull, len };
	struct hf_xdma_chain c;

	build_checked(&c, XDMA_C2H, &sg, 1, 0, len, 0, 2);
	HF_CHECK_EQ(dlen(&c, 0), XDMA_DESC_MAX_LEN);
	HF_CHECK_EQ(dlen(&c, 1), 4097);
	HF_CHECK_EQ(c.bytes, len);
}

HF_TEST(chain_long_run_splits_into_max_len_pieces)
{
	u64 len = 5ull * XDMA_DESC_MAX_LEN + 12345;
	struct hf_sg sg = { 0x2000000000ull, len };
	struct hf_xdma_chain c;
	u32 i;

	build_checked(&c, XDMA_H2C, &sg, 1, 0, len, 0, 6);
	for (i = 0; i < 5; i++)
		HF_CHECK_EQ(dlen(&c, i), XDMA_DESC_MAX_LEN);
	HF_CHECK_EQ(dlen(&c, 5), 12345);
}

HF_TEST(chain_contiguous_segments_merged)
{
	struct hf_sg sg[4] = {
		{ 0x40000, 0x1000 }, { 0x41000, 0x1000 },
		{ 0x42000, 0x1000 }, { 0x43000, 0x1000 },
	};
	struct hf_xdma_chain c;

	build_checked(&c, XDMA_H2C, sg, 4, 0, 0x4000, 0, 1);
	HF_CHECK_EQ(dlen(&c, 0), 0x4000);
	HF_CHECK_EQ(dsrc(&c, 0), 0x40000);
}

HF_TEST(chain_merged_run_longer_than_max_is_split)
{
	struct hf_sg sg[2] = {
		{ 0x10000000ull, 1ull << 28 },
		{ 0x20000000ull, 1ull << 28 },
	};
	struct hf_xdma_chain c;

	/* one 512 MiB run: two full pieces plus 8 KiB */
	build_checked(&c, XDMA_H2C, sg, 2, 0, 1ull << 29, 0, 3);
	HF_CHECK_EQ(dlen(&c, 2), 8192);
}

HF_TEST(chain_non_contiguous_not_merged)
{
	struct hf_sg sg[3] = {
		{ 0x80000, 0x1000 }, { 0x70000, 0x1000 }, { 0x71001, 0x1000 },
	};
	struct hf_xdma_chain c;

	build_checked(&c, XDMA_C2H, sg, 3, 0, 0x3000, 0x500000, 3);
	HF_CHECK_EQ(ddst(&c, 0), 0x80000);
	HF_CHECK_EQ(ddst(&c, 1), 0x70000);
	HF_CHECK_EQ(ddst(&c, 2), 0x71001);
	HF_CHECK_EQ(dsrc(&c, 0), 0x500000);
	HF_CHECK_EQ(dsrc(&c, 1), 0x501000);
	HF_CHECK_EQ(dsrc(&c, 2), 0x502000);
}

HF_TEST(chain_segments_crossing_4k)
{
	struct hf_sg sg[2] = { { 0xff0, 0x30 }, { 0x2ff8, 0x10 } };
	struct hf_xdma_chain c;

	build_checked(&c, XDMA_H2C, sg, 2, 0, 0x40, 0xffe, 2);
	HF_CHECK_EQ(dsrc(&c, 0), 0xff0);
	HF_CHECK_EQ(dlen(&c, 0), 0x30);
	HF_CHECK_EQ(ddst(&c, 0), 0xffe);
	HF_CHECK_EQ(dsrc(&c, 1), 0x2ff8);
	HF_CHECK_EQ(dlen(&c, 1), 0x10);
	HF_CHECK_EQ(ddst(&c, 1), 0xffe + 0x30);
}

HF_TEST(chain_bus_addresses_above_4g)
{
	struct hf_sg sg[2] = {
		{ 0x12345678ff000ull, 0x1000 }, { 0xabcdef0001000ull, 0x800 },
	};
	u64 dbus = 0x3fedcba9876540ull;	/* descriptor storage above 4 GiB */
	struct hf_xdma_chain c;

	chain_at(&c, 0, MAXD, dbus);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_C2H, sg, 2, 0, 0x1800,
					 0x1ffffff000ull), 0);
	check_chain(&c);
	HF_CHECK_EQ(le32_to_cpu(c.desc[0].dst_hi), 0x12345);
	HF_CHECK_EQ(le32_to_cpu(c.desc[0].dst_lo), 0x678ff000);
	HF_CHECK_EQ(le32_to_cpu(c.desc[1].dst_hi), 0xabcde);
	HF_CHECK_EQ(le32_to_cpu(c.desc[1].dst_lo), 0xf0001000);
	/* card side crosses 2^37 - 4 KiB into the next 4 GiB */
	HF_CHECK_EQ(le32_to_cpu(c.desc[0].src_hi), 0x1f);
	HF_CHECK_EQ(le32_to_cpu(c.desc[0].src_lo), 0xfffff000);
	HF_CHECK_EQ(le32_to_cpu(c.desc[1].src_hi), 0x20);
	HF_CHECK_EQ(le32_to_cpu(c.desc[1].src_lo), 0);
	HF_CHECK_EQ(le32_to_cpu(c.desc[0].next_hi), 0x3fedcb);
	HF_CHECK_EQ(le32_to_cpu(c.desc[0].next_lo), 0xa9876560);
}

HF_TEST(chain_sub_range_of_list)
{
	struct hf_sg sg[4] = {
		{ 0x1000, 0x1000 }, { 0x9000, 0x1000 },
		{ 0x5000, 0x1000 }, { 0x6000, 0x1000 },
	};
	struct hf_xdma_chain c;

	/* from byte 0x1100 (in entry 1) to byte 0x3200 (in entry 3) */
	build_checked(&c, XDMA_H2C, sg, 4, 0x1100, 0x2100, 0x40, 2);
	HF_CHECK_EQ(dsrc(&c, 0), 0x9100);
	HF_CHECK_EQ(dlen(&c, 0), 0xf00);
	HF_CHECK_EQ(dsrc(&c, 1), 0x5000);	/* entries 2 and 3 merged */
	HF_CHECK_EQ(dlen(&c, 1), 0x1200);
	HF_CHECK_EQ(ddst(&c, 1), 0x40 + 0xf00);
	/* a range ending exactly at an entry boundary */
	HF_CHECK_EQ(hf_xdma_chain_count(sg, 4, 0x1000, 0x1000), 1);
	/* a range in the last byte */
	HF_CHECK_EQ(hf_xdma_chain_count(sg, 4, 0x3fff, 1), 1);
}

/*
 * Checks the adjacent counts of a chain of n descriptors as the engine uses
 * them: at a block start it fetches 1 + adj descriptors in one burst.
 */
static void check_blocks(const struct hf_xdma_chain *c)
{
	u32 n = c->count, i = 0, adj = c->first_adj, k;

	while (i < n) {
		u64 first = c->bus + 32ull * i, last = first + 32ull * adj;

		HF_CHECK_MSG(adj <= 63, "block at %u: adj %u", i, adj);
		HF_CHECK_MSG(i + adj < n, "block at %u runs past the end", i);
		HF_CHECK_MSG(first / 4096 == last / 4096,
			     "block at %u (bus 0x%llx, %u more) crosses 4 KiB",
			     i, (unsigned long long)first, adj);
		/* inside a block, counts go down one by one */
		for (k = 0; k < adj; k++)
			HF_CHECK_EQ(dadj(c, i + k), adj - 1 - k);
		i += adj + 1;
		adj = i < n ? dadj(c, i - 1) : 0;
	}
}

HF_TEST(chain_adjacent_blocks_respect_4k_and_64)
{
	static struct hf_sg sg[600];
	struct hf_xdma_chain c;
	u32 i, first;

	for (i = 0; i < 600; i++) {
		sg[i].addr = 0x100000ull + 0x2000ull * i;	/* no merging */
		sg[i].len = 0x1000;
	}
	/* storage starting at each 32-byte slot of a page */
	for (first = 0; first < 128; first += 3) {
		chain_at(&c, first, 600, BUS_PAGE + 32ull * first);
		HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 600, 0,
						 600 * 0x1000ull, 0), 0);
		HF_CHECK_EQ(c.count, 600);
		check_chain(&c);
		check_blocks(&c);
	}
}

HF_TEST(chain_adjacent_counts_mid_page_values)
{
	static struct hf_sg sg[200];
	struct hf_xdma_chain c;
	u32 i;

	for (i = 0; i < 200; i++) {
		sg[i].addr = 0x100000ull + 0x2000ull * i;
		sg[i].len = 0x100;
	}
	/* 4 descriptors before the page boundary, then full pages */
	chain_at(&c, 124, 200, BUS_PAGE + 0xf80);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 200, 0, 200 * 0x100,
					 0), 0);
	HF_CHECK_EQ(c.first_adj, 3);	/* descriptors 0..3 */
	HF_CHECK_EQ(dadj(&c, 0), 2);	/* after descriptor 1: 2, 3 */
	HF_CHECK_EQ(dadj(&c, 2), 0);	/* after descriptor 3: none */
	HF_CHECK_EQ(dadj(&c, 3), 63);	/* 4..67, new page, 64 max */
	HF_CHECK_EQ(dadj(&c, 67), 63);	/* 68..131, rest of that page */
	HF_CHECK_EQ(dadj(&c, 131), 63);	/* 132..195 */
	HF_CHECK_EQ(dadj(&c, 195), 3);	/* 196..199: end of chain */
	HF_CHECK_EQ(dadj(&c, 198), 0);
	check_blocks(&c);

	/* 70 slots into a page: a 58-descriptor block to the boundary */
	chain_at(&c, 70, 200, BUS_PAGE + 70 * 32);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 200, 0, 200 * 0x100,
					 0), 0);
	HF_CHECK_EQ(c.first_adj, 57);
	HF_CHECK_EQ(dadj(&c, 57), 63);
	check_blocks(&c);

	/* page aligned, 2 descriptors: first_adj 1, then nothing */
	chain_new(&c);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 200, 0, 0x200, 0), 0);
	HF_CHECK_EQ(c.first_adj, 1);
	HF_CHECK_EQ(dadj(&c, 0), 0);
}

HF_TEST(chain_stop_completed_eop_only_on_last)
{
	struct hf_sg sg[5] = {
		{ 0x10000, 0x10 }, { 0x20000, 0x10 }, { 0x30000, 0x10 },
		{ 0x40000, 0x10 }, { 0x50000, 0x10 },
	};
	struct hf_xdma_chain c;
	u32 i;

	chain_new(&c);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 5, 0, 0x50, 0), 0);
	HF_CHECK_EQ(c.count, 5);
	for (i = 0; i < 4; i++) {
		HF_CHECK_EQ(dctrl(&c, i) & XDMA_DESC_CTRL_STOP, 0);
		HF_CHECK_EQ(dctrl(&c, i) & XDMA_DESC_CTRL_COMPLETED, 0);
		HF_CHECK_EQ(dctrl(&c, i) & XDMA_DESC_CTRL_EOP, 0);
	}
	HF_CHECK(dctrl(&c, 4) & XDMA_DESC_CTRL_STOP);
	HF_CHECK(dctrl(&c, 4) & XDMA_DESC_CTRL_COMPLETED);
	HF_CHECK(dctrl(&c, 4) & XDMA_DESC_CTRL_EOP);
	HF_CHECK_EQ(dnext(&c, 4), 0);
}

HF_TEST(chain_h2c_and_c2h_swap_source_and_destination)
{
	struct hf_sg sg = { 0xabc000, 0x100 };
	struct hf_xdma_chain c;

	chain_new(&c);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, &sg, 1, 0, 0x100, 0x777),
		     0);
	HF_CHECK_EQ(dsrc(&c, 0), 0xabc000);
	HF_CHECK_EQ(ddst(&c, 0), 0x777);
	HF_CHECK_EQ(c.dir, XDMA_H2C);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_C2H, &sg, 1, 0, 0x100, 0x777),
		     0);
	HF_CHECK_EQ(dsrc(&c, 0), 0x777);
	HF_CHECK_EQ(ddst(&c, 0), 0xabc000);
	HF_CHECK_EQ(c.dir, XDMA_C2H);
}

HF_TEST(chain_too_small_storage_enospc)
{
	struct hf_sg sg[3] = {
		{ 0x10000, 0x10 }, { 0x20000, 0x10 }, { 0x30000, 0x10 },
	};
	struct hf_xdma_chain c;

	chain_at(&c, 0, 2, BUS_PAGE);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 3, 0, 0x30, 0),
		     -ENOSPC);
	HF_CHECK_EQ(c.count, 0);
	HF_CHECK_EQ(((unsigned char *)store)[0], GUARD);	/* untouched */
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 3, 0, 0x20, 0), 0);
	HF_CHECK_EQ(c.count, 2);
}

HF_TEST(chain_misaligned_storage_has_no_capacity)
{
	struct hf_sg sg = { 0x10000, 0x10 };
	struct hf_xdma_chain c;

	hf_xdma_chain_init(&c, (char *)store + 16, BUS_PAGE, 8);
	HF_CHECK_EQ(c.capacity, 0);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, &sg, 1, 0, 0x10, 0),
		     -ENOSPC);
	hf_xdma_chain_init(&c, store, BUS_PAGE + 8, 8);
	HF_CHECK_EQ(c.capacity, 0);
	hf_xdma_chain_init(&c, store, BUS_PAGE + 32, 8);
	HF_CHECK_EQ(c.capacity, 8);
}

HF_TEST(chain_rebuild_in_place_allocates_nothing)
{
	struct hf_sg sg[3] = {
		{ 0x10000, 0x1000 }, { 0x30000, 0x1000 }, { 0x50000, 0x1000 },
	};
	struct hf_xdma_chain c;
	struct mallinfo2 before, after;
	struct hf_xdma_desc *desc;
	u64 bus;
	u32 i;

	chain_at(&c, 0, 3, BUS_PAGE);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 3, 0, 0x3000, 0x1000),
		     0);
	desc = c.desc;
	bus = c.bus;
	before = mallinfo2();
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 3, 0, 0x3000,
					 0x900000), 0);
	after = mallinfo2();
	HF_CHECK_EQ(after.uordblks, before.uordblks);
	HF_CHECK_EQ(after.hblkhd, before.hblkhd);
	HF_CHECK(c.desc == desc);
	HF_CHECK_EQ(c.bus, bus);
	HF_CHECK_EQ(c.card_addr, 0x900000);
	for (i = 0; i < 3; i++)
		HF_CHECK_EQ(ddst(&c, i), 0x900000 + 0x1000ull * i);
	check_chain(&c);
	/* nothing written past the chain */
	HF_CHECK_EQ(((unsigned char *)&store[3])[0], GUARD);
}

HF_TEST(chain_card_address_overflow)
{
	struct hf_sg sg = { 0x10000, 100 };
	struct hf_xdma_chain c;

	chain_new(&c);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, &sg, 1, 0, 100,
					 ~0ull - 10), -EOVERFLOW);
	HF_CHECK_EQ(c.count, 0);
	/* ending exactly at the top of the address space is fine */
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, &sg, 1, 0, 100,
					 ~0ull - 99), 0);
}

HF_TEST(chain_count_errors)
{
	struct hf_sg sg[2] = { { 0x10000, 0x1000 }, { 0x30000, 0x1000 } };
	struct hf_sg empty = { 0x10000, 0 };
	struct hf_sg wrap = { ~0ull - 10, 100 };
	struct hf_xdma_chain c;

	HF_CHECK_ERR(hf_xdma_chain_count(sg, 2, 0, 0), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(sg, 2, 0, 0x2001), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(sg, 2, 0x2000, 1), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(sg, 2, 0x1fff, 2), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(sg, 2, ~0ull, 2), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(sg, 0, 0, 1), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(NULL, 2, 0, 1), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(&empty, 1, 0, 1), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count(&wrap, 1, 0, 1), -EINVAL);
	HF_CHECK_EQ(hf_xdma_chain_count(sg, 2, 0x1fff, 1), 1);
	chain_new(&c);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, XDMA_H2C, sg, 2, 0, 0, 0), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_build(&c, (enum hf_xdma_dir)7, sg, 2, 0, 1, 0),
		     -EINVAL);
}

/* Card address of byte @i of a windowed range (the reference formula). */
static u64 win_card(u64 base, u64 size, u64 off, u64 i)
{
	return base + (off + i) % size;
}

HF_TEST(window_chain_splits_where_the_window_ends)
{
	struct hf_sg sg = { 0x10000, 0x3000 };
	struct hf_xdma_chain c;

	chain_new(&c);
	/* 0x3000 bytes into a 0x1000 window, starting 0x800 into it */
	HF_CHECK_EQ(hf_xdma_chain_count_window(&sg, 1, 0, 0x3000, 0x1000, 0x800),
		    4);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, &sg, 1, 0, 0x3000,
						0x100000, 0x1000, 0x800), 0);
	check_chain(&c);
	HF_CHECK_EQ(c.count, 4);
	HF_CHECK_EQ(c.card_addr, 0x100800);
	HF_CHECK_EQ(dlen(&c, 0), 0x800);
	HF_CHECK_EQ(ddst(&c, 0), 0x100800);
	HF_CHECK_EQ(dsrc(&c, 0), 0x10000);
	HF_CHECK_EQ(dlen(&c, 1), 0x1000);
	HF_CHECK_EQ(ddst(&c, 1), 0x100000);
	HF_CHECK_EQ(dsrc(&c, 1), 0x10800);
	HF_CHECK_EQ(dlen(&c, 2), 0x1000);
	HF_CHECK_EQ(ddst(&c, 2), 0x100000);
	HF_CHECK_EQ(dlen(&c, 3), 0x800);
	HF_CHECK_EQ(ddst(&c, 3), 0x100000);
	HF_CHECK_EQ(dsrc(&c, 3), 0x12800);
}

HF_TEST(window_chain_follows_the_formula_over_segments)
{
	/* odd window, segments that merge and that do not */
	struct hf_sg sg[4] = {
		{ 0x10000, 0x1000 }, { 0x11000, 0x0800 },
		{ 0x40000, 0x2345 }, { 0x90000, 0x0777 },
	};
	const u64 base = 0x7000, size = 0x1234, off = 0x1000;
	struct hf_xdma_chain c;
	u64 at = 0, i;
	u32 d;

	chain_new(&c);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_C2H, sg, 4, 5, 0x3a00,
						base, size, off), 0);
	check_chain(&c);
	HF_CHECK_EQ(hf_xdma_chain_count_window(sg, 4, 5, 0x3a00, size, off),
		    c.count);
	for (d = 0; d < c.count; d++) {
		/* C2H: the card address is the source */
		HF_CHECK_EQ(dsrc(&c, d), win_card(base, size, off, at));
		for (i = 1; i < dlen(&c, d); i++)	/* no wrap inside one */
			HF_CHECK(win_card(base, size, off, at + i) ==
				 dsrc(&c, d) + i);
		at += dlen(&c, d);
	}
	HF_CHECK_EQ(at, 0x3a00);
}

HF_TEST(window_chain_without_window_is_the_linear_chain)
{
	struct hf_sg sg[2] = { { 0x10000, 0x1000 }, { 0x30000, 0x1000 } };
	struct hf_xdma_chain c;

	chain_new(&c);
	HF_CHECK_EQ(hf_xdma_chain_count_window(sg, 2, 0x10, 0x1ff0, 0, 0),
		    hf_xdma_chain_count(sg, 2, 0x10, 0x1ff0));
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, sg, 2, 0x10, 0x1ff0,
						0x5000, 0, 0x100), 0);
	check_chain(&c);
	HF_CHECK_EQ(c.count, 2);
	HF_CHECK_EQ(ddst(&c, 0), 0x5100);
	HF_CHECK_EQ(ddst(&c, 1), 0x5100 + 0xff0);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, sg, 2, 0, 1, ~0ull,
						0, 1), -EOVERFLOW);
}

HF_TEST(window_chain_errors)
{
	struct hf_sg sg = { 0x10000, 0x1000 };
	struct hf_xdma_chain c;

	chain_new(&c);
	/* the offset lies outside the window */
	HF_CHECK_ERR(hf_xdma_chain_count_window(&sg, 1, 0, 0x10, 0x100, 0x100),
		     -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, &sg, 1, 0, 0x10, 0,
						0x100, 0x200), -EINVAL);
	HF_CHECK_EQ(c.count, 0);
	/* the window wraps the address space; ending at its top is fine */
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, &sg, 1, 0, 0x10,
						~0ull - 0x80, 0x100, 0), -EOVERFLOW);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, &sg, 1, 0, 0x10,
						~0ull - 0xff, 0x100, 0), 0);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, (enum hf_xdma_dir)3, &sg, 1, 0,
						0x10, 0, 0x100, 0), -EINVAL);
	HF_CHECK_ERR(hf_xdma_chain_count_window(&sg, 1, 0, 0x1001, 0x100, 0),
		     -EINVAL);
	/* storage for 4 descriptors, 16 needed */
	chain_at(&c, 0, 4, BUS_PAGE);
	HF_CHECK_ERR(hf_xdma_chain_build_window(&c, XDMA_H2C, &sg, 1, 0, 0x1000,
						0, 0x100, 0), -ENOSPC);
}

HF_TEST(window_chain_of_one_byte_windows_is_bounded)
{
	static struct hf_sg sg = { 0x100000000ull, 1ull << 28 };

	/* more descriptors than the engine counts: stops early, -E2BIG */
	HF_CHECK_ERR(hf_xdma_chain_count_window(&sg, 1, 0, XDMA_WB_COUNT + 1ull,
						1, 0), -E2BIG);
	HF_CHECK_EQ(hf_xdma_chain_count_window(&sg, 1, 0, 4096, 4, 0), 1024);
}
