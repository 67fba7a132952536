// SPDX-License-Identifier: MIT
/*
 * test_numbers.c - the one number grammar (README.md, "Numbers"): the
 * parser itself (lib/hf_number.c), and the numbers of card names and of
 * the HELLOFPGA_* environment variables that use it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_number.h"
#include "lib_helpers.h"

static int num(const char *s, unsigned int flags, uint64_t *v)
{
	return hf_parse_number(s, flags, UINT64_MAX, v);
}

HF_TEST(number_decimal_and_hex_are_read)
{
	uint64_t v;

	HF_CHECK_ERR(num("0", 0, &v), 0);
	HF_CHECK_EQ(v, 0);
	HF_CHECK_ERR(num("4096", 0, &v), 0);
	HF_CHECK_EQ(v, 4096);
	HF_CHECK_ERR(num("0x1000", 0, &v), 0);
	HF_CHECK_EQ(v, 4096);
	HF_CHECK_ERR(num("0xFFff", 0, &v), 0);
	HF_CHECK_EQ(v, 0xffff);
	HF_CHECK_ERR(num("0x0010", 0, &v), 0);	/* hex: zeros are digits */
	HF_CHECK_EQ(v, 16);
}

HF_TEST(number_size_suffixes_are_binary)
{
	uint64_t v;

	HF_CHECK_ERR(num("1K", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 1024);
	HF_CHECK_ERR(num("64M", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 64ull << 20);
	HF_CHECK_ERR(num("2G", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 2ull << 30);
	HF_CHECK_ERR(num("1T", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 1ull << 40);
	HF_CHECK_ERR(num("0x10K", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 16 * 1024);
	HF_CHECK_ERR(num("0K", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 0);
}

HF_TEST(number_suffix_is_refused_where_no_size_is_meant)
{
	uint64_t v = 7;

	HF_CHECK_ERR(num("1K", 0, &v), -EINVAL);
	HF_CHECK_ERR(num("4G", 0, &v), -EINVAL);
	HF_CHECK_EQ(v, 7);			/* untouched on failure */
}

HF_TEST(number_leading_zero_is_refused)
{
	uint64_t v;

	HF_CHECK_ERR(num("010", 0, &v), -EINVAL);	/* not 8, not 10 */
	HF_CHECK_ERR(num("00", 0, &v), -EINVAL);
	HF_CHECK_ERR(num("0010K", HF_NUM_SIZE, &v), -EINVAL);
}

HF_TEST(number_spaces_and_signs_are_refused)
{
	static const char *const bad[] = { " 7", "7 ", "+7", "-7", "1 K",
					   "\t7", "7\n", "", "- 0" };
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		HF_CHECK_MSG(num(bad[i], HF_NUM_SIZE, &v) == -EINVAL,
			     "'%s' accepted", bad[i]);
	HF_CHECK_ERR(num(NULL, 0, &v), -EINVAL);
}

HF_TEST(number_other_forms_are_refused)
{
	static const char *const bad[] = { "1k", "1KiB", "1KB", "1Ki", "1.5",
					   "1e3", "0x", "0X10", "0b101",
					   "010K", "1KK", "K", "0x1G5" };
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		HF_CHECK_MSG(num(bad[i], HF_NUM_SIZE, &v) == -EINVAL,
			     "'%s' accepted", bad[i]);
}

HF_TEST(number_overflow_is_refused)
{
	uint64_t v;

	HF_CHECK_ERR(num("18446744073709551615", 0, &v), 0);
	HF_CHECK_EQ(v, UINT64_MAX);
	HF_CHECK_ERR(num("18446744073709551616", 0, &v), -ERANGE);
	HF_CHECK_ERR(num("99999999999999999999999999", 0, &v), -ERANGE);
	HF_CHECK_ERR(num("0xffffffffffffffff", 0, &v), 0);
	HF_CHECK_ERR(num("0x10000000000000000", 0, &v), -ERANGE);
	HF_CHECK_ERR(num("16777215T", HF_NUM_SIZE, &v), 0);
	HF_CHECK_EQ(v, 16777215ull << 40);
	HF_CHECK_ERR(num("16777216T", HF_NUM_SIZE, &v), -ERANGE);
	HF_CHECK_ERR(num("0x400000000000G", HF_NUM_SIZE, &v), -ERANGE);
}

HF_TEST(number_above_the_callers_maximum_is_erange)
{
	uint64_t v = 7;

	HF_CHECK_ERR(hf_parse_number("4", 0, 4, &v), 0);
	HF_CHECK_EQ(v, 4);
	HF_CHECK_ERR(hf_parse_number("5", 0, 4, &v), -ERANGE);
	HF_CHECK_ERR(hf_parse_number("2K", HF_NUM_SIZE, 2047, &v), -ERANGE);
	HF_CHECK_EQ(v, 4);
}

/* ---- card names ---- */

static int open_name(const char *name)
{
	HELLOFPGA_HANDLE h = NULL;
	int ret;

	t_emu_dir();
	ret = HelloFPGA_Open(name, &h);
	if (!ret)
		HelloFPGA_Close(h);
	return ret;
}

HF_TEST(emu_card_number_with_a_leading_zero_is_refused)
{
	/* was card 8 (octal), sharing emu:8's memory */
	HF_CHECK_ERR(open_name("emu:010"), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "0..9999"));
	HF_CHECK_ERR(open_name("emu:010,private"), -EINVAL);
}

HF_TEST(emu_card_number_in_hex_is_that_card)
{
	HELLOFPGA_HANDLE a = t_open("emu:0x10,ddr=1M");
	HELLOFPGA_HANDLE b = t_open("emu:16");
	uint8_t out[64], in[64];
	HELLOFPGA_INFO info;

	HF_CHECK_ERR(HelloFPGA_GetInfo(b, &info), 0);
	HF_CHECK_EQ(info.ddr_size, 1 << 20);	/* emu:16 adopted its size */
	t_fill(out, sizeof(out), 16);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(a, 0, out, 4096, sizeof(out),
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(b, 0, in, 4096, sizeof(in),
					      NULL), 0);
	HF_CHECK_EQ(t_check(in, sizeof(in), 16), -1);
	HelloFPGA_Close(a);
	HelloFPGA_Close(b);
}

HF_TEST(emu_card_number_with_a_space_is_refused)
{
	HF_CHECK_ERR(open_name("emu: 7"), -EINVAL);
	HF_CHECK_ERR(open_name("emu:7 ,private"), -EINVAL);
	HF_CHECK_ERR(open_name("emu:+7,private"), -EINVAL);
}

HF_TEST(emu_option_value_with_a_space_is_refused)
{
	HF_CHECK_ERR(open_name("emu,private,h2c= 2"), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "h2c= 2"));
	HF_CHECK_ERR(open_name("emu,private,ddr= 64M"), -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,align= 8"), -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,link=gen3x8,mps= 256"), -EINVAL);
}

HF_TEST(emu_ddr_1T_is_one_tebibyte)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,ddr=1T");
	HELLOFPGA_INFO info;
	uint8_t b = 0x5a, r = 0;

	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.ddr_size, 1ull << 40);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, &b, (1ull << 40) - 1, 1,
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, &r, (1ull << 40) - 1, 1,
					      NULL), 0);
	HF_CHECK_EQ(r, 0x5a);
	HelloFPGA_Close(h);
}

HF_TEST(emu_option_numbers_use_hex_and_suffixes)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,h2c=0x2,ddr=0x100000,align=0x40");
	HELLOFPGA_INFO info;

	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.num_h2c, 2);
	HF_CHECK_EQ(info.ddr_size, 1 << 20);
	HF_CHECK_EQ(info.addr_align, 64);
	HelloFPGA_Close(h);
	HelloFPGA_Close(t_open("emu,private,link=gen3x8,mps=0x200,desc_ns=0x64"));
	HelloFPGA_Close(t_open("emu,private,link=gen3x8,mps=4K,desc_ns=100"));
}

HF_TEST(emu_option_overflow_is_refused)
{
	HF_CHECK_ERR(open_name("emu,private,ddr=16777216T"), -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,ddr=18446744073709551616"),
		     -EINVAL);
	HF_CHECK_ERR(open_name("emu:18446744073709551616,private"), -EINVAL);
	HF_CHECK_ERR(open_name("emu:4294967296,private"), -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,h2c=18446744073709551617"),
		     -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,link=gen3x8,desc_ns=18446744073709551616"),
		     -EINVAL);
}

HF_TEST(emu_option_with_a_leading_zero_is_refused)
{
	/* ddr=010M was 8 MiB (octal) */
	HF_CHECK_ERR(open_name("emu,private,ddr=010M"), -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,h2c=01"), -EINVAL);
	HF_CHECK_ERR(open_name("emu,private,link=gen3x8,mps=0256"), -EINVAL);
}

HF_TEST(dev_path_number_with_a_leading_zero_is_refused)
{
	HELLOFPGA_HANDLE h;

	/* was card 1 (-ENODEV without its node) */
	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga01", &h), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga 1", &h), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga7_control", &h), -ENODEV);
}

/* ---- environment variables ---- */

/* GPUDirect_Pin of 64 KiB of the emulated GPU with HELLOFPGA_PIN_LIMIT=@limit. */
static int pin_with_limit(const char *limit)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_GPU_STATUS st;
	HELLOFPGA_HANDLE h;
	void *gpu;
	int ret;

	setenv("HELLOFPGA_GPU", "emu", 1);
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	HF_CHECK_MSG(st.supported, "no emulated GPU: %s", st.reason);
	h = t_open("emu,private,ddr=1M");
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, 65536), 0);
	setenv("HELLOFPGA_PIN_LIMIT", limit, 1);
	ret = HelloFPGA_GPUDirect_Pin(h, gpu, 65536, &gh);
	unsetenv("HELLOFPGA_PIN_LIMIT");
	if (!ret)
		HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	else
		HF_CHECK(strstr(HelloFPGA_GetLastError(h), "PIN_LIMIT"));
	HelloFPGA_Close(h);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	return ret;
}

HF_TEST(pin_limit_1T_is_one_tebibyte)
{
	HF_CHECK_ERR(pin_with_limit("1T"), 0);
	HF_CHECK_ERR(pin_with_limit("64K"), 0);
	HF_CHECK_ERR(pin_with_limit("0x10000"), 0);
	HF_CHECK_ERR(pin_with_limit("65535"), -ENOMEM);
}

HF_TEST(pin_limit_with_a_leading_zero_is_refused)
{
	/* was 8 KiB (octal 010) */
	HF_CHECK_ERR(pin_with_limit("010K"), -EINVAL);
}

HF_TEST(pin_limit_with_a_space_is_refused)
{
	HF_CHECK_ERR(pin_with_limit(" 1G"), -EINVAL);
	HF_CHECK_ERR(pin_with_limit("1G "), -EINVAL);
}

HF_TEST(pin_limit_lower_case_suffix_is_refused)
{
	HF_CHECK_ERR(pin_with_limit("1g"), -EINVAL);
}

HF_TEST(pin_limit_overflow_is_refused)
{
	HF_CHECK_ERR(pin_with_limit("16777216T"), -EINVAL);
	HF_CHECK_ERR(pin_with_limit("18446744073709551616"), -EINVAL);
}
