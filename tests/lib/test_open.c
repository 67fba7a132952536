// SPDX-License-Identifier: MIT
/*
 * test_open.c - opening cards: names, the HELLOFPGA_DEVICE override, the
 * no-hardware error, options, info, errors and last-error texts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hf_lib.h"
#include "lib_helpers.h"
#include "hf_user_regs.h"
#include "xdma_model.h"

HF_TEST(open_default_without_hardware_is_enodev_with_emu_hint)
{
	HELLOFPGA_HANDLE h = (HELLOFPGA_HANDLE)0x1;

	if (getenv("HF_TEST_CARD"))
		HF_SKIP("a driver card is present (HF_TEST_CARD)");
	unsetenv("HELLOFPGA_DEVICE");
	HF_CHECK_ERR(HelloFPGA_Open(NULL, &h), -ENODEV);
	HF_CHECK(h == (HELLOFPGA_HANDLE)0x1);	/* untouched on failure */
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "HELLOFPGA_DEVICE=emu"));
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "driver not loaded"));
	HF_CHECK_ERR(HelloFPGA_Open("", &h), -ENODEV);
}

HF_TEST(open_dev_path_without_driver_is_enodev)
{
	HELLOFPGA_HANDLE h;

	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga7", &h), -ENODEV);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "/dev/hellofpga7"));
}

HF_TEST(open_env_var_stands_in_for_null_name)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;

	t_emu_dir();
	setenv("HELLOFPGA_DEVICE", "emu:3,private,h2c=2", 1);
	HF_CHECK_ERR(HelloFPGA_Open(NULL, &h), 0);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK(!strcmp(info.name, "emu:3,private,h2c=2"));
	HF_CHECK_EQ(info.num_h2c, 2);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HELLOFPGA_DEVICE");
}

HF_TEST(open_empty_name_uses_env_var)
{
	HELLOFPGA_HANDLE h;

	t_emu_dir();
	setenv("HELLOFPGA_DEVICE", "emu,private", 1);
	HF_CHECK_ERR(HelloFPGA_Open("", &h), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HELLOFPGA_DEVICE");
}

HF_TEST(open_emu_defaults_are_4_plus_4_channels_and_2_gib)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	HELLOFPGA_INFO info;

	t_need_emulated(h, "defaults");
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.backend, HELLOFPGA_BACKEND_EMULATED);
	HF_CHECK_EQ(info.num_h2c, 4);
	HF_CHECK_EQ(info.num_c2h, 4);
	HF_CHECK_EQ(info.ddr_size, 2ull << 30);
	HF_CHECK_EQ(info.irq_mode, HELLOFPGA_IRQ_MSIX);
	HF_CHECK_EQ(info.addr_align, 1);
	HF_CHECK_EQ(info.timeout_ms, 5000);
	HF_CHECK(!strcmp(info.lib_version, HelloFPGA_Version()));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(open_emu_options_set_geometry)
{
	HELLOFPGA_HANDLE h = t_open("emu:2,private,h2c=1,c2h=3,ddr=64M,irq=poll,align=64");
	HELLOFPGA_INFO info;

	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.num_h2c, 1);
	HF_CHECK_EQ(info.num_c2h, 3);
	HF_CHECK_EQ(info.ddr_size, 64ull << 20);
	HF_CHECK_EQ(info.irq_mode, HELLOFPGA_IRQ_POLL);
	HF_CHECK_EQ(info.addr_align, 64);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(open_rejects_unknown_name)
{
	HELLOFPGA_HANDLE h;

	HF_CHECK_ERR(HelloFPGA_Open("fpga0", &h), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "unknown card name"));
	HF_CHECK_ERR(HelloFPGA_Open("emulator", &h), -EINVAL);
}

HF_TEST(open_rejects_bad_emu_options)
{
	static const char *const bad[] = {
		"emu,h2c=0", "emu,h2c=5", "emu,c2h=x", "emu,ddr=1000",
		"emu,ddr=-4K", "emu,align=3", "emu,irq=fast", "emu,colour=blue",
		"emu:abc", "emu:-1", "emu,private=1", "emu,st=1",
	};
	HELLOFPGA_HANDLE h;

	t_emu_dir();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = HelloFPGA_Open(bad[i], &h);

		HF_CHECK_MSG(ret == -EINVAL, "%s: %d", bad[i], ret);
		HF_CHECK_MSG(HelloFPGA_GetLastError(NULL)[0], "%s: no text",
			     bad[i]);
	}
}

/* $HELLOFPGA_EMU_OPTS: options after the name's, for every emulated card. */
HF_TEST(open_env_emu_options_apply_after_the_name)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;

	t_emu_dir();
	setenv("HELLOFPGA_EMU_OPTS", "h2c=2,c2h=1", 1);
	HF_CHECK_EQ(HelloFPGA_Open("emu,private,ddr=1M,h2c=3", &h), 0);
	HF_CHECK_EQ(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.num_h2c, 2);
	HF_CHECK_EQ(info.num_c2h, 1);
	HelloFPGA_Close(h);
	setenv("HELLOFPGA_EMU_OPTS", "colour=blue", 1);
	HF_CHECK_ERR(HelloFPGA_Open("emu,private,ddr=1M", &h), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL),
			"$HELLOFPGA_EMU_OPTS: emulated card option 'colour'"));
	unsetenv("HELLOFPGA_EMU_OPTS");
}

/*
 * "rtl" without the co-simulation plugin: -ENOENT saying how to get it;
 * a file that is not one: -ENOEXEC.  Nothing of the card is left.
 */
HF_TEST(open_rtl_card_without_its_plugin_fails_clearly)
{
	static const struct {
		const char *plugin;
		int err;
		const char *text;
	} rows[] = {
		{ "/nonexistent/libhf_refdesign_rtl.so", -ENOEXEC,
		  "cannot load the RTL plugin" },
		{ "/dev/null", -ENOEXEC, "cannot load the RTL plugin" },
	};
	HELLOFPGA_HANDLE h;

	t_emu_dir();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		setenv("HF_RTL_PLUGIN", rows[i].plugin, 1);
		HF_CHECK_ERR(HelloFPGA_Open("emu,private,st,ddr=1M,rtl", &h),
			     rows[i].err);
		HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL),
				    rows[i].text), "%s: %s", rows[i].plugin,
			     HelloFPGA_GetLastError(NULL));
	}
	unsetenv("HF_RTL_PLUGIN");
}

/*
 * A card with AXI-Stream channels ("st") opens: the info says its
 * channels, and every memory-mapped C2H transfer is refused with
 * -EOPNOTSUPP and a text that names the stream API (H2C writes send
 * packets: test_stream.c).
 */
HF_TEST(open_st_card_opens_and_refuses_c2h_mm_calls)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	char buf[64] = { 0 };
	size_t n;

	HF_CHECK_ERR(HelloFPGA_Open("emu,private,st,h2c=1,c2h=2,ddr=16M", &h),
		     0);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.num_h2c, 1);
	HF_CHECK_EQ(info.num_c2h, 2);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf), &n),
		     -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h),
			    "the card's channels are AXI-Stream: use HelloFPGA_Stream_*"),
		     "'%s'", HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, 1, 0, 4096, 100),
		     -EOPNOTSUPP);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Xfer(h, 0, 1, 0, 0, 4096,
					      HELLOFPGA_DIR_C2H, 100, &n),
		     -EOPNOTSUPP);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "AXI-Stream"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(open_null_handle_pointer_is_efault)
{
	HF_CHECK_ERR(HelloFPGA_Open("emu,private", NULL), -EFAULT);
}

HF_TEST(open_existing_shared_card_with_other_size_is_einval)
{
	HELLOFPGA_HANDLE h = t_open("emu:5,ddr=16M"), h2;

	HF_CHECK_ERR(HelloFPGA_Open("emu:5,ddr=32M", &h2), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "already exists"));
	/* without ddr= the existing size is adopted */
	HF_CHECK_ERR(HelloFPGA_Open("emu:5", &h2), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h2), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(close_null_is_ebadf)
{
	HF_CHECK_ERR(HelloFPGA_Close(NULL), -EBADF);
}

HF_TEST(strerror_names_each_code)
{
	static const int codes[] = { EBADF, EFAULT, ECHRNG, ERANGE, EOVERFLOW,
				     ETIMEDOUT, EIO, ENODEV, EINVAL, ENOMEM };

	HF_CHECK(!strcmp(HelloFPGA_StrError(0), "success"));
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = HelloFPGA_StrError(-codes[i]);

		HF_CHECK_MSG(strcmp(s, "unknown error code") &&
			     s[0] == 'E', "code %d: %s", codes[i], s);
	}
	HF_CHECK(strstr(HelloFPGA_StrError(-ECHRNG), "channel"));
	HF_CHECK(strstr(HelloFPGA_StrError(-ECANCELED), "revoked"));
	HF_CHECK(strstr(HelloFPGA_StrError(-4095), "unknown error code"));
	HF_CHECK(strstr(HelloFPGA_StrError(5), "positive"));
}

HF_TEST(last_error_is_per_handle)
{
	HELLOFPGA_HANDLE a = t_open("emu:0,private"), b = t_open("emu:1,private");
	uint8_t buf[16];

	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(a, 9, buf, 0, 16, NULL), -ECHRNG);
	HF_CHECK(strstr(HelloFPGA_GetLastError(a), "channel 9"));
	HF_CHECK(!strcmp(HelloFPGA_GetLastError(b), ""));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(b, 0, buf, 3ull << 30, 16, NULL),
		     -ERANGE);
	HF_CHECK(strstr(HelloFPGA_GetLastError(a), "channel 9"));
	HF_CHECK(strstr(HelloFPGA_GetLastError(b), "past the end"));
	HF_CHECK_ERR(HelloFPGA_Close(a), 0);
	HF_CHECK_ERR(HelloFPGA_Close(b), 0);
}

HF_TEST(set_timeout_validates_range)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	HELLOFPGA_INFO info;

	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 0), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 3600001), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, 250), 0);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.timeout_ms, 250);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(NULL, 250), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(get_info_and_counters_reject_null)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");

	HF_CHECK_ERR(HelloFPGA_GetInfo(h, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GetDMAFaults(h, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GetInfo(NULL, NULL), -EBADF);
	HF_CHECK_ERR(HelloFPGA_GetDMAFaults(NULL, NULL), -EBADF);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(link_model_is_the_one_the_card_was_opened_with)
{
	HELLOFPGA_HANDLE h = t_open("emu,private,link=gen3x8,mps=512,desc_ns=2000");
	HELLOFPGA_LINK_MODEL lm;

	t_need_emulated(h, "link model (link=)");
	memset(&lm, 0xff, sizeof(lm));
	HF_CHECK_ERR(HelloFPGA_GetLinkModel(h, &lm), 0);
	HF_CHECK_EQ(lm.enabled, 1);
	HF_CHECK_EQ(lm.gen, 3);
	HF_CHECK_EQ(lm.lanes, 8);
	HF_CHECK_EQ(lm.mps, 512);
	HF_CHECK_EQ(lm.desc_ns, 2000);
	HF_CHECK_MSG(lm.gbps > 7 && lm.gbps < 8, "%.3f GB/s", lm.gbps);
	HF_CHECK_MSG(strstr(lm.text, "Gen3 x8") && strstr(lm.text, "MPS 512"),
		     "'%s'", lm.text);
	HF_CHECK_ERR(HelloFPGA_GetLinkModel(h, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GetLinkModel(h, &lm), -EBADF);
}

HF_TEST(link_model_is_off_without_link_option)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	HELLOFPGA_LINK_MODEL lm;

	memset(&lm, 0xff, sizeof(lm));
	HF_CHECK_ERR(HelloFPGA_GetLinkModel(h, &lm), 0);
	HF_CHECK_EQ(lm.enabled, 0);
	HF_CHECK_EQ(lm.gen, 0);
	HF_CHECK_EQ(lm.text[0], '\0');
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(user_bar_id_scratch_and_bad_offsets)
{
	HELLOFPGA_HANDLE h = t_open("emu,private");
	HELLOFPGA_PCI_INFO pci;
	uint32_t v = 0;

	HF_CHECK_ERR(HelloFPGA_GetPCIInfo(h, &pci), 0);
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, HF_USER_ID, &v), 0);
	HF_CHECK_EQ(v, HF_USER_ID_VALUE);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, HF_USER_SCRATCH, 0xdeadbeef), 0);
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, HF_USER_SCRATCH, &v), 0);
	HF_CHECK_EQ(v, 0xdeadbeef);
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, 2, &v), -EINVAL);
	/* the first offset past the BAR (64 KiB on the emulated card; a driver
	 * card's may be 4 GiB or more, with no 32-bit offset past it) */
	if (pci.user_bar_size <= UINT32_MAX)
		HF_CHECK_ERR(HelloFPGA_UserRead32(h, (uint32_t)pci.user_bar_size,
						  &v), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, 0x10001, 1), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, 0, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}
