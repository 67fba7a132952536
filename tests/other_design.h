/* SPDX-License-Identifier: MIT */
/*
 * other_design.h - a user logic that is not the hellofpga reference design
 * (model/xdma_user.h), for the tests of what needs that design: the
 * emulated card runs it through hf_emu_test_user_logic() (lib/hf_test.h),
 * the driver's test double with HF_FAKEDEV_DESIGN=other.
 *
 * Its user BAR (64 KiB, as the reference design's: a write meant for that
 * design lands, and counts) reads OTHER_ID at 0x0 and is otherwise plain
 * read-write registers.  On an AXI-Stream card each C2H channel sends, from
 * reset and unasked, records 0, 1, 2, ... back to back: record k is
 * other_design_len(k) bytes long, byte i of it other_design_byte(k, i); it
 * waits for the engine (drops nothing).  What H2C channels send is taken
 * and forgotten; it raises no user interrupt.
 */
#ifndef HF_TEST_OTHER_DESIGN_H
#define HF_TEST_OTHER_DESIGN_H

#include <stdint.h>

#define OTHER_ID		0x55534552u	/* "USER" */
#define OTHER_BAR_SIZE		0x10000u	/* as the reference design's */
/* the record lengths, in turn: 17 .. 9000 bytes, 2835.4 on average */
#define OTHER_LENS		{ 1000, 17, 4096, 9000, 64 }

extern const struct xdma_user_ops other_design;

uint32_t other_design_len(uint64_t k);
uint8_t other_design_byte(uint64_t k, uint64_t i);
/* register reads and writes of the card opened last that runs it */
uint64_t other_design_reads(void);
uint64_t other_design_writes(void);

#endif
