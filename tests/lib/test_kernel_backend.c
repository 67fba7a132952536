// SPDX-License-Identifier: MIT
/*
 * test_kernel_backend.c - the library's kernel backend (lib/backend_kernel.c)
 * against libhf_fakedev.so, the test double of hellofpga.ko
 * (tests/fakedev/): discovery, GET_INFO and the ABI check, the CPU path
 * through the channel nodes, the user BAR, the driver's error texts, GPU
 * Direct with the emulated GPU through PIN_HOST / XFER / UNPIN, C2H stream
 * rings through STREAM_* (host, caller-memory and GPU rings), writeback
 * words in host pins (ABI 1.4: XFER_WB under the backend's wb_map and
 * gpu_xfer, GPU-side stream waits and releases over STREAM_WB_PIN, and
 * their refusals), and the 15-case "hellofpga test" through the kernel
 * backend.
 *
 * The program re-executes itself with the fake in LD_PRELOAD (and, in
 * sanitizer builds, with ASan's link-order check off: the fake then comes
 * before the ASan runtime, which still intercepts what the fake passes on).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu.h"
#include "gpu_consumer.h"
#include "harness.h"
#include "hf_lib.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "lib_helpers.h"
#include "uapi/hellofpga.h"
#include "xdma_model.h"

#define KIB	1024ul
#define MIB	(1024ul * 1024ul)
#define GIB	(1024ull * MIB)
#define CARD0	"/dev/hellofpga0"

__attribute__((constructor)) static void reexec_under_fake(int argc,
							     char **argv,
							     char **envp)
{
	const char *pre = getenv("LD_PRELOAD");
	const char *asan = getenv("ASAN_OPTIONS");
	char *buf;
	size_t len;

	if (pre && strstr(pre, HF_FAKEDEV_PATH))
		return;
	len = strlen(HF_FAKEDEV_PATH) + (pre ? strlen(pre) : 0) + 2;
	buf = malloc(len);
	if (!buf)
		return;
	snprintf(buf, len, "%s%s%s", HF_FAKEDEV_PATH, pre && *pre ? ":" : "",
		 pre ? pre : "");
	setenv("LD_PRELOAD", buf, 1);
	free(buf);
	len = (asan ? strlen(asan) : 0) + 64;
	buf = malloc(len);
	if (!buf)
		return;
	snprintf(buf, len, "%s%sverify_asan_link_order=0", asan ? asan : "",
		 asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", buf, 1);
	free(buf);
	execv("/proc/self/exe", argv);
	fprintf(stderr, "cannot re-execute under %s: %s\n", HF_FAKEDEV_PATH,
		strerror(errno));
	exit(2);
}

/* A fresh fake: card 0 only, default options. */
static void fake_defaults(void)
{
	unsetenv("HELLOFPGA_DEVICE");
	unsetenv("HF_FAKEDEV_CARDS");
	unsetenv("HF_FAKEDEV_NO_MODULE");
	unsetenv("HF_FAKEDEV_ABI_MAJOR");
	unsetenv("HF_FAKEDEV_FEATURES");
	unsetenv("HF_FAKEDEV_ABI_MINOR");
	unsetenv("HF_FAKEDEV_USER_BAR_SIZE");
	unsetenv("HF_FAKEDEV_PCI_DOMAIN");
	unsetenv("HF_FAKEDEV_TIMEOUT_MS");
	unsetenv("HF_FAKEDEV_MAX_RW");
	unsetenv("HF_FAKEDEV_WB_BOUNCE");
	setenv("HF_FAKEDEV_CARD", "emu,private,ddr=64M", 1);
	setenv("HELLOFPGA_GPU", "emu", 1);
}

static HELLOFPGA_HANDLE kopen(const char *name)
{
	HELLOFPGA_HANDLE h = NULL;
	int ret = HelloFPGA_Open(name, &h);

	HF_CHECK_MSG(ret == 0, "open %s: %d: %s", name ? name : "(NULL)", ret,
		     HelloFPGA_GetLastError(NULL));
	return h;
}

/* The first card of the fake driver, all settings at their defaults. */
static HELLOFPGA_HANDLE kopen_default(void)
{
	fake_defaults();
	return kopen(NULL);
}

/* The fake's counters, read through the ABI from a node of our own. */
static struct hellofpga_stats stats(void)
{
	struct hellofpga_stats st;
	int fd = open(CARD0 "_control", O_RDWR | O_CLOEXEC);

	memset(&st, 0, sizeof(st));
	HF_CHECK(fd >= 0);
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_GET_STATS, &st), 0);
	close(fd);
	return st;
}

static void (*hook_fail_next(void))(int, const char *)
{
	void (*fn)(int, const char *);
	void *p = dlsym(RTLD_DEFAULT, "hf_fakedev_fail_next");

	HF_CHECK(p);
	memcpy(&fn, &p, sizeof(p));
	return fn;
}

/* The fake card, whose next driver call fails with @err and @text. */
static HELLOFPGA_HANDLE kopen_failing(int err, const char *text)
{
	HELLOFPGA_HANDLE h = kopen_default();

	hook_fail_next()(err, text);
	return h;
}

/*
 * A GPU Direct read of a pinned 64 KiB buffer that the driver fails with
 * @drv_err and @drv_text returns @err, with @text in the last error.
 */
static void gpu_read_failed_by_driver(int drv_err, const char *drv_text,
				      int err, const char *text)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	size_t size = 64 * KIB;
	void *gpu;

	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh), 0);
	hook_fail_next()(drv_err, drv_text);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, size, 0), err);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), text), "%s",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
}

HF_TEST(kb_open_null_finds_card0)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;

	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK(!strcmp(info.name, CARD0));
	HF_CHECK_EQ(info.backend, HELLOFPGA_BACKEND_KERNEL);
	HF_CHECK(!strcmp(info.backend_name, "kernel driver"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	/* the environment variable names it too */
	setenv("HELLOFPGA_DEVICE", CARD0, 1);
	h = kopen("");
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HELLOFPGA_DEVICE");
}

HF_TEST(kb_open_null_takes_the_lowest_numbered_card)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;

	fake_defaults();
	setenv("HF_FAKEDEV_CARDS", "5,2,9", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK(!strcmp(info.name, "/dev/hellofpga2"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	h = kopen("/dev/hellofpga9_control");
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK(!strcmp(info.name, "/dev/hellofpga9_control"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_open_errors_say_why)
{
	HELLOFPGA_HANDLE h = (HELLOFPGA_HANDLE)0x1;

	fake_defaults();
	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga1", &h), -ENODEV);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "/dev/hellofpga1"));
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "HELLOFPGA_DEVICE=emu"));
	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga", &h), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Open("/dev/hellofpga0_user", &h), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_Open("/dev/null", &h), -EINVAL);
	/* module loaded, no card */
	setenv("HF_FAKEDEV_CARDS", "", 1);
	HF_CHECK_ERR(HelloFPGA_Open(NULL, &h), -ENODEV);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "driver is loaded"));
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "HELLOFPGA_DEVICE=emu"));
	/* no module, no card: the text of a machine without the driver */
	setenv("HF_FAKEDEV_NO_MODULE", "1", 1);
	HF_CHECK_ERR(HelloFPGA_Open(NULL, &h), -ENODEV);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "driver not loaded"));
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "HELLOFPGA_DEVICE=emu"));
	HF_CHECK(h == (HELLOFPGA_HANDLE)0x1);
}

HF_TEST(kb_info_has_geometry_abi_and_features)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;

	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private,ddr=32M,h2c=2,c2h=3,irq=poll",
	       1);
	setenv("HF_FAKEDEV_TIMEOUT_MS", "1234", 1);
	setenv("HF_FAKEDEV_FEATURES", "0x21", 1);
	setenv("HF_FAKEDEV_ABI_MINOR", "7", 1);
	h = kopen(CARD0);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.num_h2c, 2);
	HF_CHECK_EQ(info.num_c2h, 3);
	HF_CHECK_EQ(info.ddr_size, 32 * MIB);
	HF_CHECK_EQ(info.irq_mode, HELLOFPGA_IRQ_POLL);
	HF_CHECK_EQ(info.addr_align, 1);
	HF_CHECK_EQ(info.len_granularity, 1);
	HF_CHECK(info.ip_version != 0);
	HF_CHECK_EQ(info.timeout_ms, 1234);
	HF_CHECK_EQ(info.abi_version, HELLOFPGA_ABI_MAJOR << 16 | 7);
	HF_CHECK_EQ(info.features, 0x21);
	HF_CHECK(strstr(info.driver_version, "fakedev"));
	HF_CHECK(!strcmp(info.lib_version, HelloFPGA_Version()));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_TIMEOUT_MS");
	unsetenv("HF_FAKEDEV_ABI_MINOR");
}

HF_TEST(kb_pci_info_has_64_bit_bar_size_and_32_bit_domain)
{
	HELLOFPGA_PCI_INFO pci;
	HELLOFPGA_HANDLE h;

	fake_defaults();
	setenv("HF_FAKEDEV_CARDS", "3", 1);
	setenv("HF_FAKEDEV_USER_BAR_SIZE", "0x200000000", 1);	/* 8 GiB */
	setenv("HF_FAKEDEV_PCI_DOMAIN", "0x10002", 1);		/* VMD-like */
	h = kopen("/dev/hellofpga3");
	HF_CHECK_ERR(HelloFPGA_GetPCIInfo(h, &pci), 0);
	HF_CHECK_EQ(pci.valid, 1);
	HF_CHECK_EQ(pci.domain, 0x10002);
	HF_CHECK_EQ(pci.bus, 3);
	HF_CHECK_EQ(pci.device, 0);
	HF_CHECK_EQ(pci.function, 0);
	HF_CHECK_EQ(pci.vendor_id, 0x10ee);
	HF_CHECK_EQ(pci.user_bar_size, 8 * GIB);
	HF_CHECK_ERR(HelloFPGA_GetPCIInfo(h, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	/* a driver of ABI 1.0: 32-bit size (saturated), 16-bit domain */
	setenv("HF_FAKEDEV_ABI_MINOR", "0", 1);
	h = kopen("/dev/hellofpga3");
	HF_CHECK_ERR(HelloFPGA_GetPCIInfo(h, &pci), 0);
	HF_CHECK_EQ(pci.domain, 0xffff);
	HF_CHECK_EQ(pci.bus, 3);
	HF_CHECK_EQ(pci.user_bar_size, 0xffffffffull);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	fake_defaults();
}

HF_TEST(kb_emulated_card_reports_no_abi_or_features)
{
	HELLOFPGA_PCI_INFO pci;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;

	t_emu_dir();
	h = kopen("emu,private");
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.abi_version, 0);
	HF_CHECK_EQ(info.features, 0);
	HF_CHECK_ERR(HelloFPGA_GetPCIInfo(h, &pci), 0);
	HF_CHECK_EQ(pci.valid, 0);
	HF_CHECK_EQ(pci.domain, 0);
	HF_CHECK_EQ(pci.user_bar_size, 64 * 1024);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_abi_major_mismatch_is_eproto)
{
	HELLOFPGA_HANDLE h = (HELLOFPGA_HANDLE)0x1;
	char want[64];

	fake_defaults();
	setenv("HF_FAKEDEV_ABI_MAJOR", "2", 1);
	HF_CHECK_ERR(HelloFPGA_Open(NULL, &h), -EPROTO);
	snprintf(want, sizeof(want), "driver ABI 2.%d, library needs %d.x",
		 HELLOFPGA_ABI_MINOR, HELLOFPGA_ABI_MAJOR);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL), want), "%s",
		     HelloFPGA_GetLastError(NULL));
	HF_CHECK(h == (HELLOFPGA_HANDLE)0x1);
	/* and the control node was closed again: the fake has no card left */
	unsetenv("HF_FAKEDEV_ABI_MAJOR");
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_cpu_round_trips_random_sizes_and_addresses)
{
	HELLOFPGA_HANDLE h;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t max = 3 * MIB, actual;
	uint8_t *src = malloc(max + 64), *dst = malloc(max + 64);

	HF_CHECK(src && dst);
	h = kopen_default();
	for (int i = 0; i < 200; i++) {
		size_t len = 1 + t_rand(&rng) % (i % 10 ? 64 * KIB : max);
		uint64_t addr = t_rand(&rng) % (64 * MIB - len);
		size_t so = t_rand(&rng) % 64, dof = t_rand(&rng) % 64;
		int hc = t_rand(&rng) % 4, cc = t_rand(&rng) % 4;

		t_fill(src + so, len, i);
		memset(dst + dof, 0, len);
		HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, hc, src + so, addr,
						       len, &actual), 0);
		HF_CHECK_EQ(actual, len);
		HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, cc, dst + dof, addr,
						      len, &actual), 0);
		HF_CHECK_EQ(actual, len);
		HF_CHECK_MSG(t_check(dst + dof, len, i) < 0,
			     "round %d: %zu bytes at 0x%llx differ at %ld", i,
			     len, (unsigned long long)addr,
			     t_check(dst + dof, len, i));
	}
	/* the last byte of card memory */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, src, 64 * MIB - 1, 1,
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(src);
	free(dst);
}

HF_TEST(kb_short_transfers_and_eintr_are_continued)
{
	HELLOFPGA_HANDLE h;
	size_t len = 1 * MIB + 333, actual;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	struct hellofpga_stats st;

	HF_CHECK(src && dst);
	fake_defaults();
	setenv("HF_FAKEDEV_MAX_RW", "65536", 1);
	setenv("HF_FAKEDEV_EINTR_EVERY", "3", 1);
	h = kopen(NULL);
	t_fill(src, len, 77);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, src, 4096 + 5, len,
					       &actual), 0);
	HF_CHECK_EQ(actual, len);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 2, dst, 4096 + 5, len,
					      &actual), 0);
	HF_CHECK_EQ(actual, len);
	HF_CHECK(t_check(dst, len, 77) < 0);
	st = stats();
	HF_CHECK_EQ(st.runs[1], (len + 65535) / 65536);	/* H2C1 */
	HF_CHECK_EQ(st.bytes[1], len);
	HF_CHECK_EQ(st.bytes[4 + 2], len);			/* C2H2 */
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_MAX_RW");
	unsetenv("HF_FAKEDEV_EINTR_EVERY");
	free(src);
	free(dst);
}

/* One bad call, run against a card; returns its result. */
static int bad_call(HELLOFPGA_HANDLE h, int which, uint8_t *buf)
{
	uint32_t v;

	switch (which) {
	case 0: return HelloFPGA_DMA_MM_ReadC2H(h, 4, buf, 0, 16, NULL);
	case 1: return HelloFPGA_DMA_MM_WriteH2C(h, -1, buf, 0, 16, NULL);
	case 2: return HelloFPGA_DMA_MM_ReadC2H(h, 0, NULL, 0, 16, NULL);
	case 3: return HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 64 * MIB - 8, 16,
						 NULL);
	case 4: return HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, ~0ull - 4, 16,
						NULL);
	case 5: return HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 64 * MIB, 1, NULL);
	case 6: return HelloFPGA_UserRead32(h, 2, &v);
	case 7: return HelloFPGA_UserWrite32(h, HF_USER_BAR_SIZE, 1);
	case 8: return HelloFPGA_UserRead32(h, 0, NULL);
	case 9: return HelloFPGA_SetTimeout(h, 0);
	case 10: return HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, 0, NULL);
	case 11: return HelloFPGA_GPUDirect_Unpin(h, 0x12345);
	case 12: return HelloFPGA_GPUDirect_Xfer(h, 0, 0x12345, 0, 0, 4096, 7,
						 0, NULL);
	case 13: return HelloFPGA_GetCounters(h, NULL);
	case 14: return HelloFPGA_GetDMAFaults(h, NULL);
	}
	return 1;
}

HF_TEST(kb_bad_inputs_fail_as_on_the_emulated_card)
{
	HELLOFPGA_HANDLE k, e;
	uint8_t buf[64];

	fake_defaults();
	t_emu_dir();
	k = kopen(NULL);
	e = kopen("emu,private,ddr=64M");
	for (int i = 0; i < 15; i++) {
		int rk = bad_call(k, i, buf), re = bad_call(e, i, buf);

		HF_CHECK_MSG(rk == re, "case %d: kernel %d, emulated %d (%s)",
			     i, rk, re, HelloFPGA_GetLastError(k));
		HF_CHECK_MSG(i == 10 || rk < 0, "case %d succeeded", i);
	}
	HF_CHECK_ERR(HelloFPGA_Close(k), 0);
	HF_CHECK_ERR(HelloFPGA_Close(e), 0);
}

HF_TEST(kb_driver_text_surfaces_in_last_error)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_COUNTERS c;
	uint8_t buf[4096];
	size_t actual = 99;

	h = kopen_failing(-ETIMEDOUT,
			  "C2H1: engine timed out after 5000 ms, stopped; status 0x00000001");
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 1, buf, 0, sizeof(buf),
					      &actual), -ETIMEDOUT);
	/* the engine ran: the card may have written all of it */
	HF_CHECK_EQ(actual, sizeof(buf));
	HF_CHECK(!strcmp(HelloFPGA_GetLastError(h),
			 "C2H1: engine timed out after 5000 ms, stopped; status 0x00000001"));
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.errors, 1);
	HF_CHECK_EQ(c.timeouts, 1);
	HF_CHECK_EQ(c.model_valid, 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* The driver does not see the IOMMU's faults (the kernel log has them). */
HF_TEST(kb_dma_faults_are_not_seen_by_the_kernel_backend)
{
	HELLOFPGA_DMA_FAULTS f;
	HELLOFPGA_HANDLE h;

	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_GetDMAFaults(h, &f), -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "kernel log"), "%s",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_engine_error_of_the_card_surfaces)
{
	int (*inject)(unsigned int, uint32_t);
	void *p = dlsym(RTLD_DEFAULT, "hf_fakedev_inject");
	HELLOFPGA_HANDLE h;
	uint8_t buf[4096];

	HF_CHECK(p);
	memcpy(&inject, &p, sizeof(p));
	h = kopen_default();
	HF_CHECK_ERR(inject(0, XDMA_FAULT_DESC_READ), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), -EIO);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "H2C0"), "%s",
		     HelloFPGA_GetLastError(h));
	/* the card goes on working */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_user_bar_through_the_user_node)
{
	HELLOFPGA_HANDLE h;
	uint32_t v = 0;

	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, 0, &v), 0);
	HF_CHECK_EQ(v, 0x48465047);		/* HF_USER_ID, "HFPG" */
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, 0x8, 0xdeadbeef), 0);
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, 0x8, &v), 0);
	HF_CHECK_EQ(v, 0xdeadbeef);		/* HF_USER_SCRATCH */
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, 0x1ffc, 7), 0);
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, 0x1ffc, &v), 0);
	HF_CHECK_EQ(v, 7);			/* last word of HF_USER_RAM */
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* Raise user interrupt @irq on the reference design's user BAR (a pulse). */
static void kpulse(HELLOFPGA_HANDLE h, int irq)
{
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, HF_USER_IRQ_SET, 1u << irq), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, HF_USER_IRQ_CLEAR, 1u << irq),
		     0);
}

HF_TEST(kb_user_irq_raised_on_the_user_node_is_waited_for_on_its_events_node)
{
	HELLOFPGA_HANDLE h = kopen_default();
	uint32_t n = 0;

	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 3, 0, &n), -ETIMEDOUT);
	kpulse(h, 3);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 3, 1000, &n), 0);
	HF_CHECK_EQ(n, 1);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 3, 0, &n), -ETIMEDOUT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_user_irq_fd_is_the_events_node_and_polls_readable)
{
	HELLOFPGA_HANDLE h = kopen_default();
	struct pollfd pfd;
	uint32_t n = 0;
	int fd = -1;

	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 15, &fd), 0);
	HF_CHECK(fd >= 0);
	HF_CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	HF_CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	HF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	kpulse(h, 15);
	HF_CHECK_EQ(poll(&pfd, 1, 1000), 1);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 15, 0, &n), 0);
	HF_CHECK_EQ(n, 1);
	HF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* As the driver's: the count belongs to the card, the first take gets it. */
HF_TEST(kb_user_irq_count_is_the_cards_shared_by_its_handles)
{
	HELLOFPGA_HANDLE a = kopen_default(), b = kopen(CARD0);
	uint32_t n = 0;

	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(a, 4, 0, &n), -ETIMEDOUT);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(b, 4, 0, &n), -ETIMEDOUT);
	kpulse(a, 4);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(b, 4, 1000, &n), 0);
	HF_CHECK_EQ(n, 1);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(a, 4, 0, &n), -ETIMEDOUT);
	HF_CHECK_ERR(HelloFPGA_Close(b), 0);
	HF_CHECK_ERR(HelloFPGA_Close(a), 0);
}

HF_TEST(kb_user_irq_without_the_driver_feature_is_eopnotsupp)
{
	HELLOFPGA_HANDLE h;
	uint32_t n;
	int fd;

	fake_defaults();
	setenv("HF_FAKEDEV_FEATURES", "0x21", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 0, 0, &n), -EOPNOTSUPP);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "poll mode"));
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 0, &fd), -EOPNOTSUPP);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_FEATURES");
}

HF_TEST(kb_user_irq_of_a_poll_mode_card_is_eopnotsupp)
{
	HELLOFPGA_HANDLE h;
	uint32_t n;

	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private,ddr=64M,irq=poll", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 2, 0, &n), -EOPNOTSUPP);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	fake_defaults();
}

struct kwaiter {
	HELLOFPGA_HANDLE h;
	int ret;
};

static void *kwait_thread(void *arg)
{
	struct kwaiter *w = arg;
	uint32_t n;

	w->ret = HelloFPGA_UserIRQ_Wait(w->h, 8, -1, &n);
	return NULL;
}

HF_TEST(kb_user_irq_close_wakes_a_blocked_waiter)
{
	struct kwaiter w = { kopen_default(), 1 };
	pthread_t t;

	HF_CHECK(!pthread_create(&t, NULL, kwait_thread, &w));
	usleep(50000);
	HF_CHECK_ERR(HelloFPGA_Close(w.h), 0);
	HF_CHECK(!pthread_join(t, NULL));
	HF_CHECK_ERR(w.ret, -EBADF);
}

HF_TEST(kb_user_irq_events_nodes_read_as_the_drivers)
{
	HELLOFPGA_HANDLE h = kopen_default();
	uint32_t n = 0;
	int fd;

	fd = open(CARD0 "_events_6", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	HF_CHECK(fd >= 0);
	HF_CHECK_EQ(read(fd, &n, 4), -1);
	HF_CHECK_EQ(errno, EAGAIN);
	kpulse(h, 6);
	HF_CHECK_EQ(read(fd, &n, 4), 4);
	HF_CHECK_EQ(n, 1);
	HF_CHECK_EQ(read(fd, &n, 2), -1);
	HF_CHECK_EQ(errno, EINVAL);
	close(fd);
	HF_CHECK(open(CARD0 "_events_16", O_RDONLY) < 0 && errno == ENOENT);
	HF_CHECK(open(CARD0 "_events_01", O_RDONLY) < 0 && errno == ENOENT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_counters_come_from_the_handle_and_driver)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_COUNTERS c;
	uint8_t buf[8192];

	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 3, buf, 0, 100, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.transfers, 2);
	HF_CHECK_EQ(c.bytes_h2c, sizeof(buf));
	HF_CHECK_EQ(c.bytes_c2h, 100);
	HF_CHECK_EQ(c.model_valid, 0);
	HF_CHECK(c.irqs >= 2);		/* MSI-X: one per run */
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_gpudirect_emulated_gpu_through_pin_host)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	struct hellofpga_stats st;
	size_t size = 1 * MIB, actual;
	uint8_t *host = malloc(size), *back = malloc(size);
	void *gpu;

	HF_CHECK(host && back);
	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	t_fill(host, size, 5);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(gpu, host, size,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh), 0);
	st = stats();
	HF_CHECK_EQ(st.pins, 1);
	HF_CHECK_EQ(st.pinned_bytes, size);
	/* GPU -> card, checked through the CPU path */
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 2, gh, 8 * MIB, size, 0),
		     0);
	memset(back, 0, size);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, back, 8 * MIB, size, NULL),
		     0);
	HF_CHECK(t_check(back, size, 5) < 0);
	/* card -> GPU, a sub-range */
	t_fill(host, 64 * KIB, 6);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, host, 20 * MIB, 64 * KIB,
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Xfer(h, 3, gh, 128 * KIB, 20 * MIB,
					      64 * KIB, HELLOFPGA_DIR_C2H, 1000,
					      &actual), 0);
	HF_CHECK_EQ(actual, 64 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(back, gpu, size,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	HF_CHECK(t_check(back + 128 * KIB, 64 * KIB, 6) < 0);
	/* the XFERs ran on the engines asked for */
	st = stats();
	HF_CHECK_EQ(st.bytes[2], size);			/* H2C2 */
	HF_CHECK_EQ(st.bytes[4 + 3], 64 * KIB);		/* C2H3 */
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_EQ(stats().pins, 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -ENOENT);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	free(host);
	free(back);
}

/*
 * A read() that times out returns only the error, though the descriptors
 * its engine completed wrote into the buffer: actual counts the whole
 * call, every byte the card may have written.
 */
HF_TEST(kb_timed_out_read_counts_every_byte_the_card_may_have_written)
{
	size_t len = 3 * MIB, actual = 0;
	HELLOFPGA_HANDLE h;
	uint8_t *buf = malloc(len);

	HF_CHECK(buf);
	h = kopen_failing(-ETIMEDOUT,
			  "C2H0: timed out after 1 ms: 1 of 3 descriptors completed");
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, len, &actual),
		     -ETIMEDOUT);
	HF_CHECK_EQ(actual, len);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(buf);
}

/*
 * A 16 MiB write through a driver of ABI 1.@abi_minor whose timeout_ms is
 * 10 s, with the handle's timeout @ms: on a Gen1 x1 link it takes ~70 ms.
 * Return: the write's result.
 */
static int write_16m_with_timeout(const char *abi_minor, int ms)
{
	size_t len = 16 * MIB, actual = 0;
	uint8_t *buf = calloc(1, len);
	HELLOFPGA_HANDLE h;
	int ret;

	HF_CHECK(buf);
	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private,ddr=32M,link=gen1x1", 1);
	setenv("HF_FAKEDEV_TIMEOUT_MS", "10000", 1);
	setenv("HF_FAKEDEV_ABI_MINOR", abi_minor, 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_SetTimeout(h, ms), 0);
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, &actual);
	HF_CHECK(ret || actual == len);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(buf);
	return ret;
}

/* The handle's timeout reaches the driver (SET_TIMEOUT on the node). */
HF_TEST(kb_the_handles_timeout_reaches_the_driver)
{
	HF_CHECK_ERR(write_16m_with_timeout("2", 1), -ETIMEDOUT);
	HF_CHECK_ERR(write_16m_with_timeout("2", 20000), 0);
}

/* A driver before ABI 1.2 has no SET_TIMEOUT: its own timeout applies. */
HF_TEST(kb_a_driver_without_set_timeout_keeps_its_own)
{
	HF_CHECK_ERR(write_16m_with_timeout("1", 1), 0);
}

/*
 * The driver pins and moves a buffer in pieces (HF_FAKEDEV_MAX_RW here): a
 * bad page deep inside a write is refused before any piece reaches the
 * card, as on the emulated card.
 */
HF_TEST(kb_a_bad_page_deep_inside_a_write_moves_nothing)
{
	size_t len = 12 * MIB, actual = 99;
	uint8_t *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *back = calloc(1, len);
	HELLOFPGA_HANDLE h;

	HF_CHECK(buf != MAP_FAILED && back);
	memset(buf, 0x5a, len);
	HF_CHECK(!mprotect(buf + 9 * MIB, 4096, PROT_NONE));
	fake_defaults();
	setenv("HF_FAKEDEV_MAX_RW", "4194304", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, &actual),
		     -EFAULT);
	HF_CHECK_EQ(actual, 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, back, 0, len, NULL), 0);
	for (size_t i = 0; i < len; i += 4096)
		HF_CHECK_MSG(!back[i], "card byte 0x%zx was written", i);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_MAX_RW");
	munmap(buf, len);
	free(back);
}

/* A read() refused before any DMA (here: a bad buffer) counts nothing. */
HF_TEST(kb_read_refused_before_the_engine_counts_nothing)
{
	size_t actual = 99;
	HELLOFPGA_HANDLE h;
	uint8_t buf[4096];

	h = kopen_failing(-EFAULT, "C2H0: cannot pin the user buffer");
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf),
					      &actual), -EFAULT);
	HF_CHECK_EQ(actual, 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* An XFER the driver cancelled because the pin was revoked is -ENXIO. */
HF_TEST(kb_gpudirect_xfer_cancelled_by_revocation_is_enxio)
{
	gpu_read_failed_by_driver(-ECANCELED,
				  "C2H0: cancelled (its memory is being revoked), engine stopped: 0 of 1 descriptors completed",
				  -ENXIO, "revoked");
}

HF_TEST(kb_gpudirect_tegra_emulated_gpu)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	size_t size = 64 * KIB;
	uint8_t *buf = malloc(size);
	void *gpu;

	HF_CHECK(buf);
	fake_defaults();
	setenv("HELLOFPGA_GPU", "emu-tegra", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	t_fill(gpu, size, 9);		/* Tegra: CPU-addressable */
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 4096, size, 0), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 1, buf, 4096, size, NULL), 0);
	HF_CHECK(t_check(buf, size, 9) < 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	free(buf);
}

HF_TEST(kb_transfer_mode_goes_through_xfer)
{
	HELLOFPGA_HANDLE h;
	size_t size = 256 * KIB;
	uint8_t *host = malloc(size), *gpu_u8;
	struct hellofpga_stats st;
	void *gpu;

	HF_CHECK(host);
	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	gpu_u8 = gpu;
	HF_CHECK_ERR(HelloFPGA_SetGPUBuffer(h, gpu, size), 0);
	HF_CHECK_ERR(HelloFPGA_SetTransferMode(h, HELLOFPGA_XFER_MODE_GPU_PINNED),
		     0);
	t_fill(host, size, 11);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(gpu, host, size,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	/* a GPU buffer in a DMA_MM call: XFER on H2C1 */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 1, gpu_u8 + 4096, 0x1000,
					       8192, NULL), 0);
	st = stats();
	HF_CHECK_EQ(st.bytes[1], 8192);
	HF_CHECK_EQ(st.pins, 1);
	/* a host buffer: the CPU path, beside it */
	memset(host, 0, 8192);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, host, 0x1000, 8192, NULL),
		     0);
	{
		uint8_t ref[8192];

		HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(ref, gpu_u8 + 4096, 8192,
						  HELLOFPGA_MEMCPY_GPU_TO_HOST),
			     0);
		HF_CHECK(!memcmp(host, ref, 8192));
	}
	HF_CHECK_ERR(HelloFPGA_SetGPUBuffer(h, NULL, 0), 0);
	HF_CHECK_EQ(stats().pins, 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	free(host);
}

HF_TEST(kb_close_releases_pins)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE a, b;
	int fd;
	void *ga, *gb;

	fake_defaults();
	/* our own node keeps the fake's card alive across the Close */
	fd = open(CARD0 "_control", O_RDWR | O_CLOEXEC);
	HF_CHECK(fd >= 0);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&ga, 128 * KIB), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gb, 64 * KIB), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, ga, 128 * KIB, &a), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gb, 64 * KIB, &b), 0);
	HF_CHECK_EQ(stats().pins, 2);
	HF_CHECK_EQ(stats().pinned_bytes, 192 * KIB);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_EQ(stats().pins, 0);
	HF_CHECK_EQ(stats().pinned_bytes, 0);
	close(fd);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(ga), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gb), 0);
}

HF_TEST(kb_pin_refusals_of_the_driver)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	void *gpu;

	fake_defaults();
	setenv("HF_FAKEDEV_PIN_LIMIT", "65536", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, 128 * KIB), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, 128 * KIB, &gh), -ENOMEM);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "pin limit"), "%s",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, 64 * KIB, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_PIN_LIMIT");
	/* a driver without host pinning */
	setenv("HF_FAKEDEV_FEATURES", "0", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, 64 * KIB, &gh),
		     -EOPNOTSUPP);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "PIN_HOST"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
}

HF_TEST(kb_fake_validates_reserved_fields)
{
	struct hellofpga_info hi;
	struct hellofpga_pin p;
	struct hellofpga_last_error le;
	int fd;

	fake_defaults();
	fd = open(CARD0 "_control", O_RDWR | O_CLOEXEC);
	HF_CHECK(fd >= 0);
	memset(&hi, 0, sizeof(hi));
	hi.reserved[3] = 1;
	HF_CHECK_ERR(ioctl(fd, HELLOFPGA_IOC_GET_INFO, &hi), -1);
	HF_CHECK_EQ(errno, EINVAL);
	memset(&le, 0, sizeof(le));
	HF_CHECK_ERR(ioctl(fd, HELLOFPGA_IOC_LAST_ERROR, &le), 0);
	HF_CHECK_EQ(le.error, -EINVAL);
	HF_CHECK(strstr(le.text, "reserved"));
	memset(&p, 0, sizeof(p));
	p.type = HELLOFPGA_PIN_CUDA;
	p.fd = -1;
	HF_CHECK_ERR(ioctl(fd, HELLOFPGA_IOC_PIN, &p), -1);
	HF_CHECK_EQ(errno, EOPNOTSUPP);
	HF_CHECK_ERR(ioctl(fd, 0x1234, &p), -1);
	HF_CHECK_EQ(errno, ENOTTY);
	close(fd);
}

/*
 * Run the hellofpga program (LD_PRELOAD is inherited) with @args; its
 * standard output into @out.  Returns its exit status, -1 when it did not
 * exit.
 */
static int run_cli(char *const args[], char *out, size_t outlen)
{
	int pfd[2], st;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	HF_CHECK(!pipe(pfd));
	pid = fork();
	HF_CHECK(pid >= 0);
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execv(HF_CLI_PATH, args);
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], out + got, outlen - 1 - got)) > 0)
		got += r;
	out[got] = '\0';
	close(pfd[0]);
	HF_CHECK(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

HF_TEST(kb_hellofpga_info_shows_driver_abi_and_features)
{
	char *args[] = { "hellofpga", "-d", CARD0, "info", NULL };
	static char out[8192];
	char want[64];

	fake_defaults();
	HF_CHECK_ERR(run_cli(args, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "driver ABI:        %d.%d",
		 HELLOFPGA_ABI_MAJOR, HELLOFPGA_ABI_MINOR);
	HF_CHECK_MSG(strstr(out, want), "%s", out);
	HF_CHECK_MSG(strstr(out, "driver features:   0x261 pin-host poll-mode user-events xfer-wb"),
		     "%s", out);
	HF_CHECK_MSG(strstr(out, "backend:           kernel driver"), "%s", out);
	/* an AXI-Stream card: rings, their slots in host pins and, from ABI
	 * 1.4 on, H2C packets */
	setenv("HF_FAKEDEV_CARD", "emu,private,st", 1);
	HF_CHECK_ERR(run_cli(args, out, sizeof(out)), 0);
	HF_CHECK_MSG(strstr(out, "driver features:   0x7e1 pin-host poll-mode user-events stream stream-h2c xfer-wb stream-wb-pin"),
		     "%s", out);
}

HF_TEST(kb_hellofpga_test_passes_through_the_kernel_backend)
{
	char *args[] = { "hellofpga", "-d", CARD0, "test", NULL };
	static char out[65536];
	int st;

	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private", 1);	/* 2 GiB, as default */
	st = run_cli(args, out, sizeof(out));
	HF_CHECK_MSG(st == 0, "hellofpga test exited %d:\n%s", st, out);
	HF_CHECK_MSG(!strstr(out, "SKIP"), "%s", out);
}

/*
 * A driver errno the API does not document for the call reaches the
 * caller as -EIO (lib/error.c, hf_api_ret()), with the driver's text.
 */
HF_TEST(kb_undocumented_driver_errno_of_a_read_is_eio)
{
	HELLOFPGA_HANDLE h;
	uint8_t buf[4096];

	h = kopen_failing(-EPIPE, "C2H0: a pipe of the test broke");
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf),
					      NULL), -EIO);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "a pipe of the test broke"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_undocumented_driver_errno_of_a_user_read_is_eio)
{
	HELLOFPGA_HANDLE h;
	uint32_t v;

	h = kopen_failing(-EPIPE, "user BAR: a pipe of the test broke");
	HF_CHECK_ERR(HelloFPGA_UserRead32(h, 0, &v), -EIO);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "a pipe of the test broke"));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

HF_TEST(kb_undocumented_driver_errno_of_xfer_is_eio)
{
	gpu_read_failed_by_driver(-EPIPE, "C2H0: a pipe of the test broke", -EIO,
				  "a pipe of the test broke");
}

/* ---- C2H stream rings through the STREAM_* ioctls ---- */

/* The fake's first card, AXI-Stream ("st"): 2 C2H channels. */
static HELLOFPGA_HANDLE kopen_st(void)
{
	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private,st,c2h=2", 1);
	return kopen(NULL);
}

static void st_src_start(HELLOFPGA_HANDLE h, uint32_t size, uint32_t count)
{
	uint32_t b = HF_USER_ST_SRC(0);

	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, b + HF_ST_SRC_CTRL,
					   HF_ST_SRC_CTRL_CLEAR), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, b + HF_ST_SRC_FRAME_SIZE, size), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, b + HF_ST_SRC_COUNT, count), 0);
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, b + HF_ST_SRC_CTRL,
					   HF_ST_SRC_CTRL_ENABLE), 0);
}

static HELLOFPGA_STREAM_CONFIG st_cfg(uint32_t buffers, size_t size)
{
	HELLOFPGA_STREAM_CONFIG c;

	memset(&c, 0, sizeof(c));
	c.buffers = buffers;
	c.buffer_size = size;
	return c;
}

/* Take @n frames of @size bytes from @s, each verified by @check. */
static void st_take(HELLOFPGA_STREAM s, uint32_t n, uint32_t size,
		    bool (*check)(const HELLOFPGA_FRAME *f, uint32_t size))
{
	HELLOFPGA_FRAME f;

	for (uint32_t i = 0; i < n; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 5000, &f), 0);
		HF_CHECK_EQ(f.sequence, i);
		HF_CHECK(f.flags & HELLOFPGA_FRAME_EOP);
		HF_CHECK_EQ(f.length, size);
		HF_CHECK_MSG(check(&f, size), "frame %u", i);
		HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	}
}

static bool st_host_ok(const HELLOFPGA_FRAME *f, uint32_t size)
{
	uint64_t seq = ~0ull;

	return f->host && !hf_stream_verify(f->host, size, &seq) &&
	       seq == f->sequence;
}

/* Memory-mapped card, or a driver before ABI 1.3: no streams, said why. */
HF_TEST(kb_stream_open_is_eopnotsupp)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 4096);
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h;

	h = kopen_default();
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EOPNOTSUPP);
	HF_CHECK(s == NULL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "memory-mapped"),
		     "'%s'", HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);

	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private,st", 1);
	setenv("HF_FAKEDEV_ABI_MINOR", "2", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "no stream ioctls"),
		     "'%s'", HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_ABI_MINOR");
}

/* A ring in driver memory, mapped read-only: every frame verified. */
HF_TEST(kb_stream_host_ring_frames_verified)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(8, 8192);
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	st_src_start(h, 4096, 100);
	st_take(s, 100, 4096, st_host_ok);
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(s, &st), 0);
	HF_CHECK_EQ(st.frames, 100);
	HF_CHECK_EQ(st.bytes, 100 * 4096);
	HF_CHECK_EQ(st.held, 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* The driver's errors of STREAM_START reach the caller with its text. */
HF_TEST(kb_stream_driver_errors)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 8u << 20);
	HELLOFPGA_STREAM s = NULL, s2 = NULL;
	HELLOFPGA_HANDLE h = kopen_st(), h2;

	/* MEM_HOST buffers of 8 MiB: more than the driver allocates */
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EINVAL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "MEM_HOST"), "'%s'",
		     HelloFPGA_GetLastError(h));
	/* a second handle, one channel: the driver's EBUSY */
	c = st_cfg(4, 4096);
	h2 = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h2, &c, &s2), -EBUSY);
	c.channel = 1;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h2, &c, &s2), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s2), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h2), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* A wait with nothing to take: -ETIMEDOUT, the stream goes on. */
HF_TEST(kb_stream_wait_times_out)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 4096);
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	HELLOFPGA_FRAME f;

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 30, &f), -ETIMEDOUT);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 0, &f), -ETIMEDOUT);
	st_src_start(h, 4096, 1);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 5000, &f), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

struct st_rel {
	HELLOFPGA_STREAM s;
	uint32_t idx[4];
};

static void *st_release_later(void *arg)
{
	struct st_rel *r = arg;

	usleep(50000);
	for (int i = 0; i < 4; i++)
		HelloFPGA_Stream_Release(r->s, r->idx[i]);
	return NULL;
}

/*
 * Every buffer held, a Wait blocked in the driver: releases from another
 * thread wake it (STREAM_RELEASE with HELLOFPGA_STREAM_WAKE) and it goes on.
 */
HF_TEST(kb_stream_release_from_another_thread_wakes_wait)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 4096);
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	struct st_rel r;
	HELLOFPGA_FRAME f;
	pthread_t t;

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	st_src_start(h, 4096, 8);
	r.s = s;
	for (int i = 0; i < 4; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 5000, &f), 0);
		r.idx[i] = f.index;
	}
	HF_CHECK_EQ(pthread_create(&t, NULL, st_release_later, &r), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 5000, &f), 0);
	HF_CHECK_EQ(f.sequence, 4);
	HF_CHECK(st_host_ok(&f, 4096));
	pthread_join(t, NULL);
	HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* A ring in the caller's memory: pinned (PIN_HOST), 4 KiB buffers. */
HF_TEST(kb_stream_caller_memory_ring)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(8, 4096);
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	void *ring = NULL;

	HF_CHECK_EQ(posix_memalign(&ring, 4096, 8 * 4096), 0);
	memset(ring, 0, 8 * 4096);
	c.host = ring;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	st_src_start(h, 4096, 40);
	st_take(s, 40, 4096, st_host_ok);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	/* 8 KiB buffers are not one contiguous piece of such a pin */
	c.buffer_size = 8192;
	c.buffers = 4;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -EINVAL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "contiguous"), "'%s'",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(ring);
}

static void *st_gpu_base;

static bool st_gpu_ok(const HELLOFPGA_FRAME *f, uint32_t size)
{
	static uint8_t buf[4096];
	uint64_t seq = ~0ull;

	if (f->host || size > sizeof(buf) ||
	    HelloFPGA_GPU_Memcpy(buf, (uint8_t *)st_gpu_base + f->gpu_offset,
				 size, HELLOFPGA_MEMCPY_GPU_TO_HOST))
		return false;
	return !hf_stream_verify(buf, size, &seq) && seq == f->sequence;
}

/* A ring in a GPU Direct pin (the emulated GPU: PIN_HOST to the driver). */
HF_TEST(kb_stream_gpu_ring)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(8, 4096);
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	HELLOFPGA_GPU_HANDLE gh;
	size_t size = 1 * MIB;

	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&st_gpu_base, size), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, st_gpu_base, size, &gh), 0);
	c.gpu = gh;
	c.gpu_offset = 64 * KIB;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	st_src_start(h, 4096, 30);
	st_take(s, 30, 4096, st_gpu_ok);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	/* past the end of the pin */
	c.gpu_offset = size - 4096;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), -ERANGE);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(st_gpu_base), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/*
 * Through the library, as on the emulated card (test_stream.c): Unpin of
 * the pin a GPU ring lies in is -EBUSY while the stream is open (it was 0,
 * the driver's refusal only logged); the ring goes on, and after the
 * stream's Close the pin goes.
 */
HF_TEST(kb_stream_gpu_ring_pin_unpin_while_open_is_ebusy)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(8, 4096);
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	HELLOFPGA_GPU_HANDLE gh;
	size_t size = 1 * MIB;

	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&st_gpu_base, size), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, st_gpu_base, size, &gh), 0);
	c.gpu = gh;
	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -EBUSY);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "open stream"), "'%s'",
		     HelloFPGA_GetLastError(h));
	st_src_start(h, 4096, 10);
	st_take(s, 10, 4096, st_gpu_ok);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -ENOENT);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(st_gpu_base), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* The raw ABI of the fake: a ring's pin cannot be unpinned while it runs. */
HF_TEST(kb_stream_unpin_of_running_ring_is_ebusy)
{
	struct hellofpga_stream_config c;
	struct hellofpga_stream_stop stop;
	struct hellofpga_unpin u;
	uint64_t handle;
	int ctl, fd;
	void *mem = NULL;

	kopen_st();	/* the environment only; the handle is not needed */
	ctl = open(CARD0 "_control", O_RDWR | O_CLOEXEC);
	fd = open(CARD0 "_c2h_0", O_RDWR | O_CLOEXEC);
	HF_CHECK(ctl >= 0 && fd >= 0);
	HF_CHECK_EQ(posix_memalign(&mem, 4096, 64 * KIB), 0);
	{
		struct hellofpga_pin p = { .type = HELLOFPGA_PIN_HOST,
					   .addr = (uintptr_t)mem,
					   .size = 64 * KIB, .fd = -1 };

		HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_PIN, &p), 0);
		handle = p.handle;
	}
	memset(&c, 0, sizeof(c));
	c.buffers = 4;
	c.buffer_size = 4096;
	c.mem = HELLOFPGA_MEM_PIN;
	c.pin_fd = ctl;
	c.pin_handle = handle;
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c), 0);
	memset(&u, 0, sizeof(u));
	u.handle = handle;
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u), -1);
	HF_CHECK_EQ(errno, EBUSY);
	memset(&stop, 0, sizeof(stop));
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, &stop), 0);
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u), 0);
	close(fd);
	close(ctl);
	free(mem);
}

/* ---- H2C packets on an AXI-Stream card (ABI 1.4) ---- */

static uint32_t sink_rd(HELLOFPGA_HANDLE h, uint32_t reg)
{
	uint32_t v = 0;

	HF_CHECK_ERR(HelloFPGA_UserRead32(h, HF_USER_ST_SINK(0) + reg, &v), 0);
	return v;
}

/* Each WriteH2C is one pwrite, one packet at the sink, verified. */
HF_TEST(kb_stream_h2c_packets_reach_the_sink)
{
	static const size_t sizes[] = { 16, 4096, 100000, 3 * MIB + 5 };
	HELLOFPGA_HANDLE h = kopen_st();
	struct hellofpga_stats st;
	uint8_t *buf = malloc(3 * MIB + 5);
	size_t n, total = 0;

	HF_CHECK(buf);
	for (uint32_t i = 0; i < 4; i++) {
		hf_stream_fill(buf, 10 + i, (uint32_t)sizes[i], 0,
			       (uint32_t)sizes[i]);
		n = 0;
		HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizes[i],
						       &n), 0);
		HF_CHECK_EQ(n, sizes[i]);
		total += sizes[i];
	}
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_OK), 4);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_BAD), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_LAST_SEQ_LO), 13);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_PARTIAL), 0);
	st = stats();
	HF_CHECK_EQ(st.runs[0], 4);		/* one driver call each */
	HF_CHECK_EQ(st.bytes[0], total);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(buf);
}

/* From a GPU Direct pin: WriteH2C and Xfer of a sub-range, one packet each. */
HF_TEST(kb_stream_h2c_packets_from_a_pin)
{
	HELLOFPGA_HANDLE h = kopen_st();
	HELLOFPGA_GPU_HANDLE gh;
	size_t size = 1 * MIB, n = 0;
	uint8_t *host = malloc(size);
	void *gpu;

	HF_CHECK(host);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, size), 0);
	hf_stream_fill(host, 21, 256 * KIB, 0, 256 * KIB);
	hf_stream_fill(host + 256 * KIB, 22, 60000, 0, 60000);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(gpu, host, size,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 256 * KIB, 0),
		     0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Xfer(h, 0, gh, 256 * KIB, 0, 60000,
					      HELLOFPGA_DIR_H2C, 0, &n), 0);
	HF_CHECK_EQ(n, 60000);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_OK), 2);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_BAD), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_LAST_SEQ_LO), 22);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(host);
}

/* The driver's refusals: a packet too long for it is EMSGSIZE, not cut. */
HF_TEST(kb_stream_h2c_packet_too_long_is_emsgsize)
{
	size_t len = HELLOFPGA_STREAM_H2C_MAX + 4096ul;
	HELLOFPGA_HANDLE h = kopen_st();
	uint8_t *buf = calloc(1, len);
	size_t n = 1;

	HF_CHECK(buf);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, len, &n),
		     -EMSGSIZE);
	HF_CHECK_EQ(n, 0);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "not cut"), "'%s'",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_BYTES_LO), 0);
	/* the longest one goes */
	hf_stream_fill(buf, 1, HELLOFPGA_STREAM_H2C_MAX, 0,
		       HELLOFPGA_STREAM_H2C_MAX);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0,
					       HELLOFPGA_STREAM_H2C_MAX, &n), 0);
	HF_CHECK_EQ(sink_rd(h, HF_ST_SINK_FRAMES_OK), 1);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	free(buf);
}

/* A driver before ABI 1.4 sends no packets: refused, said why, not tried. */
HF_TEST(kb_stream_h2c_without_the_driver_feature_is_eopnotsupp)
{
	uint8_t buf[4096] = { 0 };
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	void *gpu;

	fake_defaults();
	setenv("HF_FAKEDEV_CARD", "emu,private,st", 1);
	setenv("HF_FAKEDEV_ABI_MINOR", "3", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h),
			    "HELLOFPGA_FEAT_STREAM_H2C"), "'%s'",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gpu, 64 * KIB), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gpu, 64 * KIB, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 4096, 0),
		     -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h),
			    "HELLOFPGA_FEAT_STREAM_H2C"), "'%s'",
		     HelloFPGA_GetLastError(h));
	HF_CHECK_EQ(stats().runs[0], 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gpu), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_ABI_MINOR");
}

/* The raw ABI: position or card address not 0, C2H, and the feature bit. */
HF_TEST(kb_stream_h2c_raw_abi_of_the_fake)
{
	struct hellofpga_info info;
	uint8_t buf[4096] = { 0 };
	int ctl, fd;

	kopen_st();	/* the environment only */
	ctl = open(CARD0 "_control", O_RDWR | O_CLOEXEC);
	fd = open(CARD0 "_h2c_0", O_RDWR | O_CLOEXEC);
	HF_CHECK(ctl >= 0 && fd >= 0);
	memset(&info, 0, sizeof(info));
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_GET_INFO, &info), 0);
	HF_CHECK(info.features & HELLOFPGA_FEAT_STREAM_H2C);
	HF_CHECK(info.abi_minor >= 4);
	HF_CHECK_EQ(pwrite(fd, buf, sizeof(buf), 4096), -1);
	HF_CHECK_EQ(errno, EINVAL);
	HF_CHECK_EQ(pwrite(fd, buf, 0, 0), 0);
	close(fd);
	close(ctl);
}

/* ---- writeback words in host pins (ABI 1.4) ---- */

/*
 * HelloFPGA_Stream_WaitOnGPU() through the kernel backend: the slots in
 * library memory pinned for the driver (STREAM_WB_PIN); the consumer runs
 * after the slot shows the completion (the fake writes it when its WAIT
 * takes the buffer), the window moves with the releases, the close ends a
 * pending wait with the error mark.
 */
HF_TEST(kb_gpuwait_stream_slots_in_library_memory)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 4096);
	HELLOFPGA_GPU_WAIT w, w4;
	struct consumer k, k4;
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	HELLOFPGA_FRAME f;
	void *gs = NULL;

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&gs), 0);
	wait_then_consume(s, gs, 0, &k, &w);
	HF_CHECK_EQ(w.index, 0);
	HF_CHECK(w.host != NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 100), -ETIMEDOUT);
	HF_CHECK_EQ(ran(&k), 0);
	st_src_start(h, 1000, 1);
	HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 5000, &f), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 5000), 0);
	HF_CHECK_EQ(ran(&k), 1);
	HF_CHECK_EQ(k.status, HELLOFPGA_STREAM_WB_MAGIC | HELLOFPGA_STREAM_WB_EOP);
	HF_CHECK_EQ(w.status[1], 1000);
	HF_CHECK(w.host == f.host);
	/* the window: released .. released + buffers - 1 */
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 4, 0, NULL), -ERANGE);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "whole ring"));
	HF_CHECK_ERR(HelloFPGA_Stream_Release(s, f.index), 0);
	HF_CHECK_EQ(w.status[0], 0);	/* the release cleared the slot */
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 0, 0, NULL), -ERANGE);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "went back"));
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 5, 0, NULL), -ERANGE);
	wait_then_consume(s, gs, 4, &k4, &w4);
	HF_CHECK_EQ(w4.index, 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 100), -ETIMEDOUT);
	HF_CHECK_EQ(ran(&k4), 0);
	/* no frame comes: the close marks the slot, the wait ends */
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 5000), 0);
	HF_CHECK_EQ(ran(&k4), 1);
	HF_CHECK_EQ(k4.status, HELLOFPGA_STREAM_WB_MAGIC | HELLOFPGA_STREAM_WB_ERROR);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/* A GPU release rings a doorbell in library memory: STREAM_RELEASE. */
HF_TEST(kb_gpuwait_release_on_gpu)
{
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 4096);
	HELLOFPGA_STREAM_STATS st;
	HELLOFPGA_STREAM s = NULL;
	HELLOFPGA_HANDLE h = kopen_st();
	HELLOFPGA_FRAME f;
	void *gs = NULL;

	HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&gs), 0);
	st_src_start(h, 4096, 6);
	for (int i = 0; i < 6; i++) {
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 5000, &f), 0);
		HF_CHECK_EQ(f.sequence, (uint64_t)i);
		HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(s, gs, f.index, 0), 0);
		HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 5000), 0);
	}
	HF_CHECK_ERR(HelloFPGA_Stream_GetStats(s, &st), 0);
	HF_CHECK_EQ(st.held, 0);
	/* six went back: sequences 6..9 may be waited for */
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 5, 0, NULL), -ERANGE);
	HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 9, 0, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 5000), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

/*
 * No GPU waits through a driver that keeps the slots (no feature, ABI
 * 1.3) or whose mappings bounce: the stream runs, the GPU calls say why.
 */
HF_TEST(kb_gpuwait_refused_without_the_feature_or_with_bounce_buffers)
{
	static const struct {
		const char *env, *val, *text;
	} cases[] = {
		{ "HF_FAKEDEV_FEATURES", "0xa1", "HELLOFPGA_FEAT_STREAM_WB_PIN" },
		{ "HF_FAKEDEV_ABI_MINOR", "3", "ABI 1.3" },
		{ "HF_FAKEDEV_WB_BOUNCE", "1", "CPU syncs" },
	};
	HELLOFPGA_STREAM_CONFIG c = st_cfg(4, 4096);
	HELLOFPGA_FRAME f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		HELLOFPGA_STREAM s = NULL;
		HELLOFPGA_HANDLE h;
		void *gs = NULL;

		fake_defaults();
		setenv("HF_FAKEDEV_CARD", "emu,private,st,c2h=2", 1);
		setenv(cases[i].env, cases[i].val, 1);
		h = kopen(NULL);
		HF_CHECK_ERR(HelloFPGA_Stream_Open(h, &c, &s), 0);
		HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&gs), 0);
		HF_CHECK_ERR(HelloFPGA_Stream_WaitOnGPU(s, gs, 0, 0, NULL),
			     -EOPNOTSUPP);
		HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), cases[i].text),
			     "%s=%s: '%s'", cases[i].env, cases[i].val,
			     HelloFPGA_GetLastError(h));
		HF_CHECK_ERR(HelloFPGA_Stream_Wait(s, 0, &f), -ETIMEDOUT);
		HF_CHECK_ERR(HelloFPGA_Stream_ReleaseOnGPU(s, gs, 0, 0),
			     -EINVAL);
		/* the stream itself runs */
		st_src_start(h, 4096, 2);
		st_take(s, 2, 4096, st_host_ok);
		HF_CHECK_ERR(HelloFPGA_Stream_Close(s), 0);
		HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), 0);
		HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	}
	unsetenv("HF_FAKEDEV_ABI_MINOR");
	unsetenv("HF_FAKEDEV_FEATURES");
	unsetenv("HF_FAKEDEV_WB_BOUNCE");
}

/* One GPU Direct run of @len bytes with its writeback to @wb. */
static int kb_run_wb(struct hellofpga_dev *dev, HELLOFPGA_GPU_HANDLE gh,
		     size_t len, const struct hf_xfer_wb *wb)
{
	struct hf_pin *pin = hf_pin_get(dev, gh);
	struct timespec dl;
	size_t actual = 0;
	int ret;

	HF_CHECK(pin != NULL);
	hf_deadline_in(&dl, 5000);
	ret = dev->ops->gpu_xfer(dev, pin, XDMA_H2C, 0, 0, 0, len, 5000, &dl,
				 wb, &actual);
	hf_pin_put(pin);
	return ret;
}

/*
 * The backend's writeback words (submit.c's): wb_map pins the memory
 * (PIN_HOST), a GPU Direct run with a word sends its writeback there
 * (XFER_WB), wb_unmap unpins; refused with the driver's reason.
 */
HF_TEST(kb_xfer_wb_word_in_a_host_pin)
{
	HELLOFPGA_HANDLE h = kopen_default();
	struct hellofpga_dev *dev = NULL;
	HELLOFPGA_GPU_HANDLE gh;
	struct hf_xfer_wb wb;
	uint32_t *words = NULL;
	void *gbuf = NULL;
	uint64_t map = 0;
	uint64_t pins0 = stats().pins;

	HF_CHECK_EQ(posix_memalign((void **)&words, 4096, 4096), 0);
	memset(words, 0xff, 4096);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gbuf, 64 * KIB), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gbuf, 64 * KIB, &gh), 0);
	HF_CHECK_ERR(hf_dev_get(h, "test", &dev), 0);
	HF_CHECK(dev->ops->wb_map && dev->ops->wb_unmap);
	HF_CHECK_ERR(dev->ops->wb_map(dev, words, 4096, &map), 0);
	HF_CHECK_EQ(stats().pins, pins0 + 2);
	wb.cpu = &words[3];
	wb.map = map;
	wb.off = 12;
	HF_CHECK_ERR(kb_run_wb(dev, gh, 4096, &wb), 0);
	HF_CHECK_EQ(words[3], 1);
	HF_CHECK_EQ(words[2], 0xffffffffu);
	HF_CHECK_ERR(kb_run_wb(dev, gh, 16 * KIB, &wb), 0);
	HF_CHECK_EQ(words[3], 4);	/* one descriptor per page of the fake */
	/* a run the driver fails: the word is marked */
	hook_fail_next()(-EIO, "C2H0: engine stopped (fake)");
	HF_CHECK_ERR(kb_run_wb(dev, gh, 4096, &wb), -EIO);
	HF_CHECK(words[3] & HELLOFPGA_XFER_WB_FAILED);
	/* the driver refuses an unaligned word */
	wb.off = 6;
	HF_CHECK_ERR(kb_run_wb(dev, gh, 4096, &wb), -EINVAL);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "multiple of 4"), "'%s'",
		     HelloFPGA_GetLastError(h));
	/* bounce buffers: the driver's reason */
	wb.off = 12;
	setenv("HF_FAKEDEV_WB_BOUNCE", "1", 1);
	HF_CHECK_ERR(kb_run_wb(dev, gh, 4096, &wb), -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "CPU syncs"), "'%s'",
		     HelloFPGA_GetLastError(h));
	unsetenv("HF_FAKEDEV_WB_BOUNCE");
	/* a plain run after them */
	HF_CHECK_ERR(kb_run_wb(dev, gh, 4096, NULL), 0);
	dev->ops->wb_unmap(dev, map);
	HF_CHECK_EQ(stats().pins, pins0 + 1);
	hf_dev_put(dev);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gbuf), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);

	/* a driver without XFER_WB: wb_map says so */
	fake_defaults();
	setenv("HF_FAKEDEV_FEATURES", "0x21", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(hf_dev_get(h, "test", &dev), 0);
	HF_CHECK_ERR(dev->ops->wb_map(dev, words, 4096, &map), -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "HELLOFPGA_FEAT_XFER_WB"),
		     "'%s'", HelloFPGA_GetLastError(h));
	hf_dev_put(dev);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_FEATURES");
	free(words);
}

/* The fake's refusals of the ABI 1.4 fields, as the driver's. */
HF_TEST(kb_wb_fields_refused_by_the_abi)
{
	struct hellofpga_stream_config c;
	struct hellofpga_xfer x;
	uint64_t hd, hw;
	int ctl, fd;
	void *mem = NULL, *wmem = NULL;

	kopen_st();	/* the environment only */
	ctl = open(CARD0 "_control", O_RDWR | O_CLOEXEC);
	fd = open(CARD0 "_c2h_0", O_RDWR | O_CLOEXEC);
	HF_CHECK(ctl >= 0 && fd >= 0);
	HF_CHECK_EQ(posix_memalign(&mem, 4096, 8192), 0);
	HF_CHECK_EQ(posix_memalign(&wmem, 4096, 4096), 0);
	{
		struct hellofpga_pin p = { .type = HELLOFPGA_PIN_HOST,
					   .addr = (uintptr_t)mem,
					   .size = 8192, .fd = -1 };
		struct hellofpga_pin q = { .type = HELLOFPGA_PIN_HOST,
					   .addr = (uintptr_t)wmem,
					   .size = 4096, .fd = -1 };

		HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_PIN, &p), 0);
		HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_PIN, &q), 0);
		hd = p.handle;
		hw = q.handle;
	}
	memset(&x, 0, sizeof(x));
	x.handle = hd;
	x.length = 4096;
	x.wb_handle = hw;	/* without the flag */
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_XFER, &x), -1);
	HF_CHECK_EQ(errno, EINVAL);
	x.flags = HELLOFPGA_XFER_WB;
	x.wb_offset = 4096;	/* outside */
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_XFER, &x), -1);
	HF_CHECK_EQ(errno, EINVAL);
	/* the word inside, not the room the card may write from it */
	x.wb_offset = 4096 - 4;
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_XFER, &x), -1);
	HF_CHECK_EQ(errno, EINVAL);
	x.wb_offset = 4096 - HELLOFPGA_XFER_WB_ROOM + 4;
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_XFER, &x), -1);
	HF_CHECK_EQ(errno, EINVAL);
	/* a timeout above SET_TIMEOUT's cap */
	x.wb_offset = 0;
	x.timeout_ms = HELLOFPGA_MAX_TIMEOUT_MS + 1;
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_XFER, &x), -1);
	HF_CHECK_EQ(errno, EINVAL);
	x.timeout_ms = 0;
	x.wb_handle = hw + 100;
	HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_XFER, &x), -1);
	HF_CHECK_EQ(errno, ENOENT);

	memset(&c, 0, sizeof(c));
	c.buffers = 4;
	c.buffer_size = 4096;
	c.mem = HELLOFPGA_MEM_HOST;
	c.pin_fd = -1;
	c.wb_handle = hw;	/* without the flag */
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c), -1);
	HF_CHECK_EQ(errno, EINVAL);
	c.flags = HELLOFPGA_STREAM_WB_PIN;
	c.wb_fd = ctl;
	c.wb_offset = 16;	/* unaligned */
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c), -1);
	HF_CHECK_EQ(errno, EINVAL);
	c.wb_offset = 4096 - 64;	/* past the pin */
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c), -1);
	HF_CHECK_EQ(errno, EINVAL);
	c.wb_offset = 0;
	c.wb_fd = fd;		/* not a control node */
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c), -1);
	HF_CHECK_EQ(errno, EBADF);
	c.wb_fd = ctl;
	HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_START, &c), 0);
	{
		struct hellofpga_unpin u = { .handle = hw };
		struct hellofpga_stream_stop stop;

		HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u), -1);
		HF_CHECK_EQ(errno, EBUSY);
		memset(&stop, 0, sizeof(stop));
		HF_CHECK_EQ(ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, &stop), 0);
		/* every slot not completed: the error mark */
		for (int i = 0; i < 4; i++)
			HF_CHECK_EQ(((uint32_t *)wmem)[i * 8],
				    HELLOFPGA_STREAM_WB_MAGIC |
				    HELLOFPGA_STREAM_WB_ERROR);
		HF_CHECK_EQ(ioctl(ctl, HELLOFPGA_IOC_UNPIN, &u), 0);
	}
	close(fd);
	close(ctl);
	free(mem);
	free(wmem);
}

/*
 * HelloFPGA_GPUDirect_Submit() through the kernel backend: the queue's
 * words pinned on the control node (wb_map), each run an XFER_WB; a GPU
 * wait holds the consumer until the word shows the count; a driver
 * without HELLOFPGA_FEAT_XFER_WB: -EOPNOTSUPP, said why.
 */
HF_TEST(kb_submit_wait_on_gpu_through_xfer_wb)
{
	HELLOFPGA_HANDLE h = kopen_default();
	HELLOFPGA_SUBMISSION sub;
	HELLOFPGA_GPU_HANDLE gh;
	struct consumer k;
	void *gbuf = NULL, *gs = NULL;
	size_t actual = 0;

	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&gbuf, 64 * KIB), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gbuf, 64 * KIB, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamCreate(&gs), 0);
	memset(&sub, 0, sizeof(sub));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(h, 0, gh, 0, 0, 16 * KIB,
						HELLOFPGA_DIR_H2C, gs,
						HELLOFPGA_SUBMIT_WAIT_ON_GPU, 0,
						&sub), 0);
	memset(&k, 0, sizeof(k));
	k.word = sub.status;
	HF_CHECK_ERR(HelloFPGA_GPU_LaunchHostFunc(gs, consumer_fn, &k), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Complete(h, sub.ticket, 5000, &actual),
		     0);
	HF_CHECK_EQ(actual, 16 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPU_StreamSynchronize(gs, 5000), 0);
	HF_CHECK_EQ(ran(&k), 1);
	HF_CHECK_EQ(k.status, 4);	/* the fake's descriptors: a page each */
	HF_CHECK_ERR(HelloFPGA_GPU_StreamDestroy(gs), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);

	fake_defaults();
	setenv("HF_FAKEDEV_FEATURES", "0x21", 1);
	h = kopen(NULL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, gbuf, 64 * KIB, &gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Submit(h, 0, gh, 0, 0, 4096,
						HELLOFPGA_DIR_H2C, NULL, 0, 0,
						NULL), -EOPNOTSUPP);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), "HELLOFPGA_FEAT_XFER_WB"),
		     "'%s'", HelloFPGA_GetLastError(h));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	unsetenv("HF_FAKEDEV_FEATURES");
	HF_CHECK_ERR(HelloFPGA_GPU_Free(gbuf), 0);
}
