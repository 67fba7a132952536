// SPDX-License-Identifier: MIT
/*
 * test_badinput.c - every rejected argument gets its own error code and a
 * text naming it, and nothing reaches the card.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "lib_helpers.h"

#define DDR (2ull << 30)

static HELLOFPGA_HANDLE h;
static uint8_t buf[4096];

/* Open a card whose memory around @at holds a known pattern. */
static void setup(uint64_t at)
{
	h = t_open("emu,private");
	t_fill(buf, sizeof(buf), 1);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, at, sizeof(buf),
					       NULL), 0);
}

/* The card memory at @at still holds the pattern; no transfer happened. */
static void check_untouched(uint64_t at, uint64_t transfers)
{
	uint8_t out[4096];
	HELLOFPGA_COUNTERS c;

	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.transfers, transfers);
	HF_CHECK_EQ(c.errors, 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, out, at, sizeof(out),
					      NULL), 0);
	HF_CHECK(t_check(out, sizeof(out), 1) < 0);
	HelloFPGA_Close(h);
}

HF_TEST(null_handle_is_ebadf)
{
	size_t actual = 5;

	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(NULL, 0, buf, 0, 16, &actual),
		     -EBADF);
	HF_CHECK_EQ(actual, 0);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "invalid handle"));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(NULL, 0, buf, 0, 16, NULL),
		     -EBADF);
}

HF_TEST(null_buffer_is_efault)
{
	setup(0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, NULL, 0, 16, NULL),
		     -EFAULT);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "buf is NULL"));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, NULL, 0, 16, NULL),
		     -EFAULT);
	check_untouched(0, 1);
}

HF_TEST(channel_out_of_range_is_echrng)
{
	setup(0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 4, buf, 0, 16, NULL),
		     -ECHRNG);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "channel 4 out of range"));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, -1, buf, 0, 16, NULL),
		     -ECHRNG);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 4, buf, 0, 16, NULL),
		     -ECHRNG);
	check_untouched(0, 1);
}

HF_TEST(channel_beyond_configured_count_is_echrng)
{
	HELLOFPGA_HANDLE g = t_open("emu,private,h2c=2,c2h=1");

	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(g, 2, buf, 0, 16, NULL),
		     -ECHRNG);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(g, 1, buf, 0, 16, NULL),
		     -ECHRNG);
	HF_CHECK(strstr(HelloFPGA_GetLastError(g), "1 C2H channel (0..0)"));
	HelloFPGA_Close(g);
}

HF_TEST(address_past_the_end_is_erange)
{
	setup(DDR - 4096);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, DDR, 1, NULL),
		     -ERANGE);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "past the end"));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, DDR + 4096, 16, NULL),
		     -ERANGE);
	check_untouched(DDR - 4096, 1);
}

HF_TEST(range_straddling_the_end_is_erange_and_writes_nothing)
{
	setup(DDR - 4096);
	/* would overwrite the pattern's last 4000 bytes and run 96 past */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, DDR - 4000,
					       4096, NULL), -ERANGE);
	check_untouched(DDR - 4096, 1);
}

HF_TEST(offset_plus_length_overflow_is_eoverflow)
{
	setup(0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, UINT64_MAX - 7, 16,
					       NULL), -EOVERFLOW);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "overflows"));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 16, SIZE_MAX, NULL),
		     -EOVERFLOW);
	check_untouched(0, 1);
}

HF_TEST(buffer_wrapping_the_address_space_is_efault)
{
	setup(0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, (void *)(UINTPTR_MAX - 15),
					       0, 64, NULL), -EFAULT);
	check_untouched(0, 1);
}
