// SPDX-License-Identifier: MIT
/*
 * test_gpudirect.c - GPU Direct on the emulated card and the emulated GPU:
 * pin / transfer / unpin, sub-ranges, argument checks, stale and foreign
 * handles, revocation when pinned GPU memory is freed, release at close,
 * no allocation and no descriptor rebuild on the transfer path,
 * TransferMode, rings of pinned buffers, and the region (copy-engine)
 * mapping a real GPU uses.
 *
 * Each case is its own process and picks the GPU (HELLOFPGA_GPU=emu or
 * emu-tegra) before its first GPU call.  Cases that do not depend on the
 * emulation run on the GPU named by HF_TEST_GPU instead when it is set:
 * HF_TEST_GPU=cuda ctest -R test_gpudirect checks a real GPU.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "inproc/emu_host.h"
#include "lib_helpers.h"

#define CARD	"emu,private,ddr=64M"
#define KIB	1024ul
#define MIB	(1024ul * 1024ul)

static void use_gpu(const char *kind)
{
	setenv("HELLOFPGA_GPU", kind, 1);
}

/* The desktop GPU of HF_TEST_GPU (e.g. "cuda"), else the emulated one. */
static void use_any_gpu(void)
{
	const char *t = getenv("HF_TEST_GPU");
	HELLOFPGA_GPU_STATUS st;

	use_gpu(t && *t ? t : "emu");
	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	if (!st.supported)
		HF_SKIP("no GPU Direct: %s", st.reason);
	if (st.platform != HELLOFPGA_PLATFORM_DESKTOP)
		HF_SKIP("not a desktop GPU: %s", st.name);
}

/* The emulated card of CARD, with the GPU of use_any_gpu() */
static HELLOFPGA_HANDLE gpu_card(void)
{
	use_any_gpu();
	return t_open(CARD);
}

/* A real GPU: its memory is not CPU-addressable. */
static bool real_gpu(void)
{
	HELLOFPGA_GPU_STATUS st;

	HF_CHECK_EQ(HelloFPGA_GetGPUStatus(&st), 0);
	return !st.emulated;
}

static void *galloc(size_t size)
{
	void *p = NULL;
	int ret = HelloFPGA_GPU_Alloc(&p, size);

	HF_CHECK_MSG(ret == 0 && p, "HelloFPGA_GPU_Alloc(%zu) = %d: %s", size,
		     ret, HelloFPGA_GetLastError(NULL));
	return p;
}

static void *halloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	HF_CHECK(p);
	return p;
}

/* Fill GPU memory with the pattern of @seed. */
static void gfill(void *gpu, size_t len, uint32_t seed)
{
	uint8_t *tmp = halloc(len);

	t_fill(tmp, len, seed);
	HF_CHECK_EQ(HelloFPGA_GPU_Memcpy(gpu, tmp, len,
					 HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	free(tmp);
}

/* Copy GPU memory to a new host buffer. */
static uint8_t *gread(const void *gpu, size_t len)
{
	uint8_t *tmp = halloc(len);

	HF_CHECK_EQ(HelloFPGA_GPU_Memcpy(tmp, gpu, len,
					 HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	return tmp;
}

/* Card memory through the CPU path. */
static void card_fill(HELLOFPGA_HANDLE h, uint64_t card, size_t len,
		      uint32_t seed)
{
	uint8_t *tmp = halloc(len);

	t_fill(tmp, len, seed);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_WriteH2C(h, 0, tmp, card, len, NULL), 0);
	free(tmp);
}

static uint8_t *card_read(HELLOFPGA_HANDLE h, uint64_t card, size_t len)
{
	uint8_t *tmp = halloc(len);

	HF_CHECK_EQ(HelloFPGA_DMA_MM_ReadC2H(h, 0, tmp, card, len, NULL), 0);
	return tmp;
}

static HELLOFPGA_GPU_HANDLE pin(HELLOFPGA_HANDLE h, void *gpu, size_t size)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	int ret = HelloFPGA_GPUDirect_Pin(h, gpu, size, &gh);

	HF_CHECK_MSG(ret == 0, "Pin(%p, %zu) = %d: %s", gpu, size, ret,
		     HelloFPGA_GetLastError(h));
	HF_CHECK(gh != 0);
	return gh;
}

/* @size bytes of new GPU memory, pinned on @h */
static HELLOFPGA_GPU_HANDLE pin_new(HELLOFPGA_HANDLE h, size_t size)
{
	return pin(h, galloc(size), size);
}

static bool last_error_has(HELLOFPGA_HANDLE h, const char *what)
{
	const char *e = HelloFPGA_GetLastError(h);

	if (!strstr(e, what)) {
		hf_test_log("error text \"%s\" lacks \"%s\"", e, what);
		return false;
	}
	return true;
}

static struct hf_emu_host_stats host_stats(HELLOFPGA_HANDLE h)
{
	struct hf_emu_host_stats st;

	t_need_emulated(h, "host statistics (hf_emu_test_host_stats)");
	HF_CHECK_EQ(hf_emu_test_host_stats(h, &st), 0);
	return st;
}

/* Mappings of caller buffers made so far (the CPU path makes one each). */
static uint64_t buffer_maps(struct hf_emu_host_stats st)
{
	return st.maps_made - st.allocs;
}

static struct hf_emu_pin_info pin_info(HELLOFPGA_HANDLE h,
				       HELLOFPGA_GPU_HANDLE gh)
{
	struct hf_emu_pin_info pi;

	t_need_emulated(h, "pin details (hf_emu_test_pin_info)");
	HF_CHECK_EQ(hf_emu_test_pin_info(h, gh, &pi), 0);
	return pi;
}

/* Pieces of @run bytes, aligned to @run, that [p, p + size) covers. */
static uint32_t pieces(const void *p, size_t size, size_t run)
{
	uintptr_t a = (uintptr_t)p, end = a + size;

	return (uint32_t)((end + run - 1) / run - a / run);
}

/* Pin, write the GPU buffer to the card, read it back into another. */
static void roundtrip(const char *gpu_kind, size_t size, size_t run)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE ga, gb;
	uint8_t *a, *b, *got;
	long bad;

	if (gpu_kind)
		use_gpu(gpu_kind);
	else
		use_any_gpu();
	h = t_open(CARD);
	a = galloc(size);
	b = galloc(size);
	gfill(a, size, 11);
	gfill(b, size, 99);
	ga = pin(h, a, size);
	gb = pin(h, b, size);
	if (!t_card_is_emulated(h)) {
		/* a driver card (HF_TEST_CARD): no emulator pin details */
	} else if (real_gpu()) {
		HF_CHECK_EQ(pin_info(h, ga).nseg, 1);
		HF_CHECK(pin_info(h, ga).region);
	} else {
		HF_CHECK_EQ(pin_info(h, ga).nseg, pieces(a, size, run));
		HF_CHECK(!pin_info(h, ga).region);
	}

	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 1, ga, 0x10000, size, 0),
		    0);
	got = card_read(h, 0x10000, size);
	bad = t_check(got, size, 11);
	HF_CHECK_MSG(bad < 0, "card byte %ld differs after WriteH2C", bad);
	free(got);

	HF_CHECK_EQ(HelloFPGA_GPUDirect_ReadC2H(h, 2, gb, 0x10000, size, 0),
		    0);
	got = gread(b, size);
	bad = t_check(got, size, 11);
	HF_CHECK_MSG(bad < 0, "GPU byte %ld differs after ReadC2H", bad);
	free(got);

	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, ga), 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gb), 0);
	HF_CHECK_EQ(HelloFPGA_Close(h), 0);
	HF_CHECK_EQ(HelloFPGA_GPU_Free(a), 0);
	HF_CHECK_EQ(HelloFPGA_GPU_Free(b), 0);
}

HF_TEST(pin_write_read_unpin_roundtrip_desktop)
{
	/* 2 MiB runs of 64 KiB pages: a 5 MiB buffer spans several runs */
	roundtrip(NULL, 5 * MIB + 64 * KIB, 2 * MIB);
}

HF_TEST(pin_write_read_unpin_roundtrip_tegra)
{
	/* 64 KiB chunks of 4 KiB pages */
	roundtrip("emu-tegra", 1 * MIB + 12 * KIB, 64 * KIB);
}

HF_TEST(tegra_pins_4k_aligned_start_inside_a_64k_chunk)
{
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	uint8_t *p, *got;

	use_gpu("emu-tegra");
	h = t_open(CARD);
	p = galloc(256 * KIB);
	gfill(p, 256 * KIB, 5);
	gh = pin(h, p + 12 * KIB, 100 * KIB);
	HF_CHECK_EQ(pin_info(h, gh).nseg, pieces(p + 12 * KIB, 100 * KIB,
						 64 * KIB));
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 100 * KIB, 0),
		    0);
	got = card_read(h, 0, 100 * KIB);
	{
		uint8_t *ref = gread(p + 12 * KIB, 100 * KIB);

		HF_CHECK(!memcmp(got, ref, 100 * KIB));
		free(ref);
	}
	free(got);
	HelloFPGA_Close(h);
}

HF_TEST(xfer_moves_a_sub_range_in_both_directions)
{
	const size_t size = 256 * KIB, off = 4096 + 3, len = 10000;
	const size_t off2 = 50001, len2 = 7777;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	uint8_t *p, *got, *ref = halloc(size);
	size_t actual = 0;

	h = gpu_card();
	p = galloc(size);
	gfill(p, size, 1);
	gh = pin(h, p, size);

	/* GPU [off, off + len) -> card 0x5000 */
	card_fill(h, 0x5000 - 100, len + 200, 3);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Xfer(h, 3, gh, off, 0x5000, len,
					     HELLOFPGA_DIR_H2C, 1000, &actual),
		    0);
	HF_CHECK_EQ(actual, len);
	got = card_read(h, 0x5000 - 100, len + 200);
	t_fill(ref, size, 1);
	HF_CHECK(!memcmp(got + 100, ref + off, len));
	t_fill(ref, len + 200, 3);		/* neighbours untouched */
	HF_CHECK(!memcmp(got, ref, 100));
	HF_CHECK(!memcmp(got + 100 + len, ref + 100 + len, 100));
	free(got);

	/* card 0x123457 -> GPU [off2, off2 + len2) */
	card_fill(h, 0x123457, len2, 2);
	actual = 0;
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Xfer(h, 1, gh, off2, 0x123457, len2,
					     HELLOFPGA_DIR_C2H, 0, &actual),
		    0);
	HF_CHECK_EQ(actual, len2);
	got = gread(p, size);
	t_fill(ref, size, 1);
	HF_CHECK(!memcmp(got, ref, off2));
	HF_CHECK(!memcmp(got + off2 + len2, ref + off2 + len2,
			 size - off2 - len2));
	HF_CHECK_EQ(t_check(got + off2, len2, 2), -1);
	free(got);
	free(ref);
	HelloFPGA_Close(h);
}

/* A pin of GPU memory the API refuses: the error, its text, no handle. */
static const struct pin_refusal {
	const char *name;
	size_t off;	/* from the start of a 64 KiB allocation */
	size_t size;
	int err;
	const char *text;
} pin_refusals[] = {
	{ "unaligned_address", 512, 4096, -EINVAL, "4096-byte aligned" },
	{ "unaligned_size", 0, 4097, -EINVAL, "multiple of 4096" },
	{ "zero_size", 0, 0, -EINVAL, "size is 0" },
	{ "past_the_allocation", 60 * KIB, 8 * KIB, -EINVAL,
	  "past the end of the GPU allocation" },
};

static void pin_refused(const void *arg)
{
	const struct pin_refusal *r = arg;
	HELLOFPGA_GPU_HANDLE gh = 7;
	HELLOFPGA_HANDLE h;
	uint8_t *p;

	h = gpu_card();
	p = galloc(64 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, p + r->off, r->size, &gh),
		     r->err);
	HF_CHECK_MSG(last_error_has(h, r->text), "no '%s' in '%s'", r->text,
		     HelloFPGA_GetLastError(h));
	HF_CHECK_EQ(gh, 7);
	HelloFPGA_Close(h);
}

HF_TEST_ROWS(pin_rejects, pin_refusals, pin_refused)

HF_TEST(pin_rejects_host_memory_on_a_desktop_gpu)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	void *host = aligned_alloc(4096, 64 * KIB);

	h = gpu_card();
	HF_CHECK(host);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, host, 64 * KIB, &gh),
		     -EINVAL);
	HF_CHECK(last_error_has(h, "not GPU memory"));
	free(host);
	HelloFPGA_Close(h);
}

HF_TEST(pin_rejects_range_crossing_two_allocations)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	uint8_t *a, *b;

	h = gpu_card();
	a = galloc(64 * KIB);
	b = galloc(64 * KIB);
	if (b != a + 64 * KIB)
		HF_SKIP("allocations not adjacent (%p, %p)", (void *)a,
			(void *)b);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, a, 128 * KIB, &gh), -EINVAL);
	HF_CHECK(last_error_has(h, "one allocation"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, a + 60 * KIB, 8 * KIB, &gh),
		     -EINVAL);
	HelloFPGA_Close(h);
}

HF_TEST(pin_rejects_null_arguments)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	void *p;

	h = gpu_card();
	p = galloc(64 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, NULL, 4096, &gh), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, p, 4096, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(NULL, p, 4096, &gh), -EBADF);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(NULL, 1), -EBADF);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(NULL, 0, 1, 0, 4096, 0),
		     -EBADF);
	HF_CHECK_EQ(gh, 0);
	HelloFPGA_Close(h);
}

HF_TEST(pin_rejects_freed_gpu_memory)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	void *p;

	h = gpu_card();
	p = galloc(64 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPU_Free(p), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, p, 64 * KIB, &gh), -EINVAL);
	HelloFPGA_Close(h);
}

HF_TEST(pin_without_gpu_is_not_supported)
{
	HELLOFPGA_GPU_HANDLE gh = 0;
	HELLOFPGA_HANDLE h;
	void *host = aligned_alloc(4096, 4096);

	use_gpu("none");
	h = t_open(CARD);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, host, 4096, &gh),
		     -EOPNOTSUPP);
	HF_CHECK(last_error_has(h, "HELLOFPGA_GPU=none"));
	HF_CHECK_ERR(HelloFPGA_SetGPUBuffer(h, host, 4096), -EOPNOTSUPP);
	free(host);
	HelloFPGA_Close(h);
}

HF_TEST(unpin_twice_is_enoent)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;

	h = gpu_card();
	gh = pin_new(h, 64 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -ENOENT);
	HF_CHECK(last_error_has(h, "is not pinned on this card"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, 0), -ENOENT);
	HelloFPGA_Close(h);
}

HF_TEST(transfer_after_unpin_is_enoent)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	size_t actual = 1;

	h = gpu_card();
	gh = pin_new(h, 64 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 4096, 0),
		     -ENOENT);
	HF_CHECK(last_error_has(h, "is not pinned on this card"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 4096, 0),
		     -ENOENT);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Xfer(h, 0, gh, 0, 0, 4096,
					      HELLOFPGA_DIR_C2H, 0, &actual),
		     -ENOENT);
	HF_CHECK_EQ(actual, 0);
	HelloFPGA_Close(h);
}

HF_TEST(stale_handle_is_refused_after_its_slot_is_reused)
{
	HELLOFPGA_GPU_HANDLE old, gh;
	HELLOFPGA_HANDLE h;
	void *p;

	h = gpu_card();
	p = galloc(64 * KIB);
	old = pin(h, p, 64 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, old), 0);
	gh = pin(h, p, 64 * KIB);
	HF_CHECK((uint32_t)gh == (uint32_t)old);	/* same slot */
	HF_CHECK(gh != old);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, old, 0, 4096, 0),
		     -ENOENT);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, old), -ENOENT);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 4096, 0), 0);
	HelloFPGA_Close(h);
}

HF_TEST(handle_from_another_card_is_enoent)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE a, b;
	void *p;

	use_any_gpu();
	a = t_open("emu:1,private,ddr=16M");
	b = t_open("emu:2,private,ddr=16M");
	p = galloc(64 * KIB);
	gh = pin(a, p, 64 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(b, 0, gh, 0, 4096, 0),
		     -ENOENT);
	HF_CHECK(last_error_has(b, "from another card"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(b, gh), -ENOENT);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_ReadC2H(a, 0, gh, 0, 4096, 0), 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(a, gh), 0);
	HelloFPGA_Close(a);
	HelloFPGA_Close(b);
}

HF_TEST(freeing_pinned_gpu_memory_revokes_the_pin)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	struct hf_emu_host_stats before = { 0 };
	uint8_t *p, *q, *got;

	h = gpu_card();
	card_fill(h, 0, 128 * KIB, 8);
	if (t_card_is_emulated(h))
		before = host_stats(h);
	p = galloc(128 * KIB);
	gh = pin(h, p, 128 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 128 * KIB, 0),
		    0);
	HF_CHECK_EQ(HelloFPGA_GPU_Free(p), 0);
	/* the card can no longer reach the memory (emulated GPU: at once) */
	if (!real_gpu() && t_card_is_emulated(h))
		HF_CHECK_EQ(host_stats(h).maps, before.maps);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 4096, 0),
		     -ENXIO);
	HF_CHECK(last_error_has(h, "was freed while pinned"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 1, gh, 0, 4096, 0),
		     -ENXIO);

	/* the address comes back in a new allocation: no stray write */
	q = galloc(128 * KIB);
	gfill(q, 128 * KIB, 4);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 128 * KIB, 0),
		     -ENXIO);
	got = gread(q, 128 * KIB);
	HF_CHECK_EQ(t_check(got, 128 * KIB, 4), -1);
	free(got);

	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Unpin(h, gh), -ENOENT);
	HelloFPGA_Close(h);
}

struct spin_arg {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_GPU_HANDLE gh;
	int ch;
	int stop;
	int ok;
	int gone;
	int other;
	int gone_err;
};

/*
 * Transfer until told to stop (or the pin is gone).  Each channel moves
 * its own quarter of the buffer to its own card range: the transfers are
 * in flight together, but no two touch the same bytes.
 */
static void *spin_xfer(void *arg)
{
	struct spin_arg *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		int ret = HelloFPGA_GPUDirect_Xfer(s->h, s->ch, s->gh,
						   s->ch * 64 * KIB,
						   0x100000 + s->ch * 64 * KIB,
						   64 * KIB,
						   s->ch & 1 ? HELLOFPGA_DIR_C2H :
						   HELLOFPGA_DIR_H2C, 0, NULL);

		if (!ret)
			__atomic_add_fetch(&s->ok, 1, __ATOMIC_RELEASE);
		else if (ret == s->gone_err)
			s->gone++;
		else
			__atomic_add_fetch(&s->other, 1, __ATOMIC_RELEASE);
		if (s->gone > 3 || s->other)
			break;
	}
	return NULL;
}

static void race_with_transfers(bool free_it)
{
	struct spin_arg s[4];
	pthread_t t[4];
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	void *p;

	use_gpu("emu");
	h = t_open(CARD);
	p = galloc(256 * KIB);
	gh = pin(h, p, 256 * KIB);
	for (int i = 0; i < 4; i++) {
		s[i] = (struct spin_arg){ .h = h, .gh = gh, .ch = i,
			.gone_err = free_it ? -ENXIO : -ENOENT };
		HF_CHECK_EQ(pthread_create(&t[i], NULL, spin_xfer, &s[i]), 0);
	}
	/* all four are moving data before the buffer goes */
	for (int i = 0; i < 4; i++)
		while (__atomic_load_n(&s[i].ok, __ATOMIC_ACQUIRE) < 20 &&
		       !__atomic_load_n(&s[i].other, __ATOMIC_ACQUIRE))
			sched_yield();
	if (free_it)
		HF_CHECK_EQ(HelloFPGA_GPU_Free(p), 0);
	else
		HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		HF_CHECK_MSG(s[i].other == 0 && s[i].gone > 0,
			     "ch %d: ok %d gone %d other %d (%s)", i,
			     s[i].ok, s[i].gone, s[i].other,
			     HelloFPGA_GetLastError(h));
	}
	if (free_it)
		HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	if (t_card_is_emulated(h))
		HF_CHECK_EQ(host_stats(h).faults, 0);
	HelloFPGA_Close(h);
}

HF_TEST(freeing_pinned_gpu_memory_waits_for_transfers_in_flight)
{
	race_with_transfers(true);
}

HF_TEST(unpin_waits_for_transfers_in_flight)
{
	race_with_transfers(false);
}

HF_TEST(close_releases_pins)
{
	struct hf_emu_host_stats st;
	HELLOFPGA_HANDLE h;
	void *p[3];

	h = gpu_card();
	for (int i = 0; i < 3; i++) {
		p[i] = galloc(64 * KIB);
		pin(h, p[i], 64 * KIB);
	}
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, p[0], 64 * KIB), 0);
	if (t_card_is_emulated(h)) {
		st = host_stats(h);
		HF_CHECK(st.maps >= 4);
	}
	HF_CHECK_EQ(HelloFPGA_Close(h), 0);
	/*
	 * Had Close left a free watch behind, these frees would call back
	 * into the freed handle (AddressSanitizer reports it); pins not
	 * released would show as leaks at exit.
	 */
	for (int i = 0; i < 3; i++)
		HF_CHECK_EQ(HelloFPGA_GPU_Free(p[i]), 0);
}

HF_TEST(transfer_on_a_pinned_handle_allocates_nothing)
{
	struct hf_emu_host_stats s0, s1;
	struct hf_emu_pin_info pi;
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	uint64_t rs = 12345;
	void *host = halloc(4096);

	h = gpu_card();
	gh = pin_new(h, 4 * MIB);
	pi = pin_info(h, gh);

	/* the measure is sensitive: a CPU-path transfer maps its buffer */
	s0 = host_stats(h);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_ReadC2H(h, 0, host, 0, 4096, NULL), 0);
	s1 = host_stats(h);
	HF_CHECK_EQ(buffer_maps(s1), buffer_maps(s0) + 1);

	for (int i = 0; i < 64; i++) {
		size_t len = 1 + t_rand(&rs) % (4 * MIB - 1);
		size_t off = t_rand(&rs) % (4 * MIB - len + 1);
		uint64_t card = t_rand(&rs) % (64 * MIB - len + 1);

		HF_CHECK_EQ(HelloFPGA_GPUDirect_Xfer(h, i % 4, gh, off, card,
						     len, i % 3 ? HELLOFPGA_DIR_C2H :
						     HELLOFPGA_DIR_H2C, 0, NULL),
			    0);
	}
	s0 = host_stats(h);
	HF_CHECK_EQ(s0.maps_made, s1.maps_made);
	HF_CHECK_EQ(s0.allocs, s1.allocs);
	HF_CHECK_EQ(s0.maps, s1.maps);
	HF_CHECK(pin_info(h, gh).desc_cpu == pi.desc_cpu);
	free(host);
	HelloFPGA_Close(h);
}

HF_TEST(repeated_identical_transfers_do_not_rewrite_descriptors)
{
	HELLOFPGA_COUNTERS c0, c1, c2;
	struct hf_emu_pin_info pi;
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	uint64_t b0;

	h = gpu_card();
	gh = pin_new(h, 1 * MIB);
	pi = pin_info(h, gh);
	HF_CHECK_EQ(pi.builds, 8);	/* one per direction and channel */

	/* the whole buffer at card 0 was built at pin time */
	HF_CHECK_EQ(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 1 * MIB, 0), 0);
	HF_CHECK_EQ(pin_info(h, gh).builds, 8);

	/* a new range is built once, then reused */
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 2, gh, 0x4000, 8192, 0),
		    0);
	b0 = pin_info(h, gh).builds;
	HF_CHECK_EQ(b0, 9);
	HF_CHECK_EQ(HelloFPGA_GetCounters(h, &c0), 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 2, gh, 0x4000, 8192, 0),
		    0);
	HF_CHECK_EQ(HelloFPGA_GetCounters(h, &c1), 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 2, gh, 0x4000, 8192, 0),
		    0);
	HF_CHECK_EQ(HelloFPGA_GetCounters(h, &c2), 0);
	HF_CHECK_EQ(pin_info(h, gh).builds, b0);
	HF_CHECK_EQ(c1.mmio_writes - c0.mmio_writes,
		    c2.mmio_writes - c1.mmio_writes);
	HF_CHECK_EQ(c2.desc_fetched - c1.desc_fetched, 1);

	/* another card address rebuilds */
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 2, gh, 0x8000, 8192, 0),
		    0);
	HF_CHECK_EQ(pin_info(h, gh).builds, b0 + 1);
	HelloFPGA_Close(h);
}

HF_TEST(transfer_mode_dma_mm_into_the_registered_buffer_goes_direct)
{
	struct hf_emu_host_stats s0, s1;
	HELLOFPGA_COUNTERS c;
	HELLOFPGA_HANDLE h;
	uint8_t *p, *got;
	size_t actual = 0;

	h = gpu_card();
	p = galloc(1 * MIB);
	gfill(p, 1 * MIB, 6);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, p, 1 * MIB), 0);
	HF_CHECK_EQ(HelloFPGA_SetTransferMode(h,
					      HELLOFPGA_XFER_MODE_GPU_PINNED),
		    0);
	card_fill(h, 0x40000, 65536, 7);

	s0 = host_stats(h);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_ReadC2H(h, 1, p + 8192, 0x40000, 65536,
					    &actual), 0);
	HF_CHECK_EQ(actual, 65536);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_WriteH2C(h, 1, p + 1 * MIB - 4096,
					     0x200000, 4096, &actual), 0);
	HF_CHECK_EQ(actual, 4096);
	s1 = host_stats(h);
	HF_CHECK_EQ(buffer_maps(s1), buffer_maps(s0));	/* no CPU-path map */

	got = gread(p + 8192, 65536);
	HF_CHECK_EQ(t_check(got, 65536, 7), -1);
	free(got);
	got = card_read(h, 0x200000, 4096);
	{
		uint8_t ref[4096];
		uint8_t *all = halloc(1 * MIB);

		t_fill(all, 1 * MIB, 6);
		memcpy(ref, all + 1 * MIB - 4096, 4096);
		HF_CHECK(!memcmp(got, ref, 4096));
		free(all);
	}
	free(got);
	HF_CHECK_EQ(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.bytes_c2h, 65536 + 4096);	/* two card reads above */
	HelloFPGA_Close(h);
}

HF_TEST(transfer_mode_host_buffer_takes_the_cpu_path)
{
	struct hf_emu_host_stats s0, s1;
	HELLOFPGA_HANDLE h;
	uint8_t *host = halloc(8192);
	void *p;

	h = gpu_card();
	p = galloc(64 * KIB);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, p, 64 * KIB), 0);
	HF_CHECK_EQ(HelloFPGA_SetTransferMode(h,
					      HELLOFPGA_XFER_MODE_GPU_PINNED),
		    0);
	t_fill(host, 8192, 3);
	s0 = host_stats(h);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_WriteH2C(h, 0, host, 0x1000, 8192, NULL),
		    0);
	memset(host, 0, 8192);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_ReadC2H(h, 0, host, 0x1000, 8192, NULL),
		    0);
	s1 = host_stats(h);
	HF_CHECK_EQ(buffer_maps(s1), buffer_maps(s0) + 2);
	HF_CHECK_EQ(t_check(host, 8192, 3), -1);
	free(host);
	HelloFPGA_Close(h);
}

HF_TEST(transfer_mode_straddling_buffer_is_einval)
{
	HELLOFPGA_HANDLE h;
	size_t actual = 5;
	uint8_t *p;

	h = gpu_card();
	p = galloc(128 * KIB);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, p + 64 * KIB, 64 * KIB), 0);
	HF_CHECK_EQ(HelloFPGA_SetTransferMode(h,
					      HELLOFPGA_XFER_MODE_GPU_PINNED),
		    0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, p + 128 * KIB - 100, 0,
					     200, &actual), -EINVAL);
	HF_CHECK(last_error_has(h, "straddles the registered GPU buffer"));
	HF_CHECK_EQ(actual, 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, p + 64 * KIB - 1, 0, 2,
					      NULL), -EINVAL);
	HelloFPGA_Close(h);
}

HF_TEST(transfer_mode_gpu_pinned_needs_a_buffer)
{
	HELLOFPGA_HANDLE h;

	h = gpu_card();
	HF_CHECK_ERR(HelloFPGA_SetTransferMode(h,
					       HELLOFPGA_XFER_MODE_GPU_PINNED),
		     -EINVAL);
	HF_CHECK(last_error_has(h, "HelloFPGA_SetGPUBuffer"));
	HF_CHECK_ERR(HelloFPGA_SetTransferMode(h, 7), -EINVAL);
	HF_CHECK_EQ(HelloFPGA_SetTransferMode(h, HELLOFPGA_XFER_MODE_CPU), 0);
	HF_CHECK_ERR(HelloFPGA_SetTransferMode(NULL, 0), -EBADF);
	HelloFPGA_Close(h);
}

HF_TEST(set_gpu_buffer_null_returns_to_cpu_mode)
{
	struct hf_emu_host_stats s0;
	HELLOFPGA_HANDLE h;
	uint64_t base_maps;
	uint8_t *p;

	h = gpu_card();
	base_maps = host_stats(h).maps;
	p = galloc(64 * KIB);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, p, 64 * KIB), 0);
	HF_CHECK(host_stats(h).maps > base_maps);
	HF_CHECK_EQ(HelloFPGA_SetTransferMode(h,
					      HELLOFPGA_XFER_MODE_GPU_PINNED),
		    0);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, NULL, 0), 0);
	HF_CHECK_EQ(host_stats(h).maps, base_maps);	/* pin released */
	HF_CHECK_ERR(HelloFPGA_SetTransferMode(h,
					       HELLOFPGA_XFER_MODE_GPU_PINNED),
		     -EINVAL);
	s0 = host_stats(h);
	/*
	 * Back in CPU mode, desktop device memory (real, or emulated alike)
	 * is refused by the CPU path: no engine runs.
	 */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, p, 0, 4096, NULL), -EFAULT);
	HF_CHECK(last_error_has(h, "GPU device memory"));
	HF_CHECK_EQ(buffer_maps(host_stats(h)), buffer_maps(s0));
	HelloFPGA_Close(h);
}

HF_TEST(set_gpu_buffer_replaces_the_previous_one)
{
	struct hf_emu_host_stats s0, s1;
	HELLOFPGA_HANDLE h;
	uint8_t *a, *b;
	uint64_t one_pin;

	h = gpu_card();
	a = galloc(64 * KIB);
	b = galloc(64 * KIB);
	s0 = host_stats(h);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, a, 64 * KIB), 0);
	one_pin = host_stats(h).maps - s0.maps;
	HF_CHECK_EQ(HelloFPGA_SetTransferMode(h,
					      HELLOFPGA_XFER_MODE_GPU_PINNED),
		    0);
	HF_CHECK_EQ(HelloFPGA_SetGPUBuffer(h, b, 64 * KIB), 0);
	HF_CHECK_EQ(host_stats(h).maps - s0.maps, one_pin);	/* a unpinned */
	s0 = host_stats(h);
	HF_CHECK_EQ(HelloFPGA_DMA_MM_ReadC2H(h, 0, b, 0, 4096, NULL), 0);
	s1 = host_stats(h);
	HF_CHECK_EQ(buffer_maps(s1), buffer_maps(s0));		/* direct */
	/* a is no longer registered: device memory, refused by the CPU path */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, a, 0, 4096, NULL), -EFAULT);
	HF_CHECK_EQ(buffer_maps(host_stats(h)), buffer_maps(s1));
	HelloFPGA_Close(h);
}

HF_TEST(multi_buffer_rotation_over_four_pins)
{
	const size_t fsz = 256 * KIB;
	HELLOFPGA_GPU_HANDLE gh[4];
	HELLOFPGA_HANDLE h;
	uint8_t *p[4], *got;

	h = gpu_card();
	for (int i = 0; i < 4; i++) {
		p[i] = galloc(fsz);
		gh[i] = pin(h, p[i], fsz);
	}
	/* frames arrive in card memory; each lands in the next buffer */
	for (int f = 0; f < 16; f++)
		card_fill(h, f * fsz, fsz, 100 + f);
	for (int f = 0; f < 16; f++) {
		int b = f % 4;
		size_t actual = 0;

		HF_CHECK_EQ(HelloFPGA_GPUDirect_Xfer(h, b, gh[b], 0, f * fsz,
						     fsz, HELLOFPGA_DIR_C2H, 0,
						     &actual), 0);
		HF_CHECK_EQ(actual, fsz);
		got = gread(p[b], fsz);
		HF_CHECK_MSG(t_check(got, fsz, 100 + f) < 0,
			     "frame %d in buffer %d", f, b);
		free(got);
		/* and goes back out, processed, to another card region */
		HF_CHECK_EQ(HelloFPGA_GPUDirect_Xfer(h, b, gh[b], 0,
						     32 * MIB + f * fsz, fsz,
						     HELLOFPGA_DIR_H2C, 0,
						     NULL), 0);
	}
	for (int f = 0; f < 16; f++) {
		got = card_read(h, 32 * MIB + f * fsz, fsz);
		HF_CHECK_EQ(t_check(got, fsz, 100 + f), -1);
		free(got);
	}
	for (int i = 0; i < 4; i++)
		HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh[i]), 0);
	HelloFPGA_Close(h);
}

HF_TEST(xfer_validates_channel_direction_range_and_card_address)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;

	use_any_gpu();
	h = t_open("emu,private,ddr=64M,h2c=2,c2h=3");
	gh = pin_new(h, 64 * KIB);
#define XF(ch, off, card, len, dir) \
	HelloFPGA_GPUDirect_Xfer(h, ch, gh, off, card, len, dir, 0, NULL)
	HF_CHECK_ERR(XF(2, 0, 0, 4096, HELLOFPGA_DIR_H2C), -ECHRNG);
	HF_CHECK(last_error_has(h, "2 H2C channels"));
	HF_CHECK_ERR(XF(-1, 0, 0, 4096, HELLOFPGA_DIR_C2H), -ECHRNG);
	HF_CHECK_EQ(XF(2, 0, 0, 4096, HELLOFPGA_DIR_C2H), 0);
	HF_CHECK_ERR(XF(0, 0, 0, 4096, 2), -EINVAL);
	HF_CHECK_ERR(XF(0, 60 * KIB, 0, 8 * KIB, HELLOFPGA_DIR_H2C), -EINVAL);
	HF_CHECK(last_error_has(h, "leaves the pinned buffer"));
	HF_CHECK_ERR(XF(0, SIZE_MAX, 0, 2, HELLOFPGA_DIR_H2C), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 64 * KIB + 1,
						 0), -EINVAL);
	HF_CHECK_ERR(XF(0, 0, 64 * MIB - 4095, 4096, HELLOFPGA_DIR_H2C),
		     -ERANGE);
	HF_CHECK(last_error_has(h, "past the end of card memory"));
	HF_CHECK_ERR(XF(0, 0, UINT64_MAX - 10, 4096, HELLOFPGA_DIR_H2C),
		     -EOVERFLOW);
	HF_CHECK_EQ(XF(0, 0, 64 * MIB - 4096, 4096, HELLOFPGA_DIR_H2C), 0);
	HF_CHECK_EQ(XF(0, 0, 0, 0, HELLOFPGA_DIR_H2C), 0);	/* no-op */
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 4096, 3600001),
		     -EINVAL);
#undef XF
	HelloFPGA_Close(h);
}

HF_TEST(aligned_engines_need_aligned_gpu_transfers)
{
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	uint8_t *p, *got;

	use_any_gpu();
	h = t_open("emu,private,ddr=64M,align=64");
	p = galloc(64 * KIB);
	gfill(p, 64 * KIB, 9);
	gh = pin(h, p, 64 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Xfer(h, 0, gh, 1, 0, 64,
					      HELLOFPGA_DIR_H2C, 0, NULL),
		     -EINVAL);
	HF_CHECK(last_error_has(h, "no bounce buffer"));
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 32, 64, 0),
		     -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 100, 0),
		     -EINVAL);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 128, 64 * KIB, 0),
		    0);
	got = card_read(h, 128, 64 * KIB);
	HF_CHECK_EQ(t_check(got, 64 * KIB, 9), -1);
	free(got);
	HelloFPGA_Close(h);
}

HF_TEST(pin_limit_is_enforced)
{
	HELLOFPGA_GPU_HANDLE a, gh = 0;
	HELLOFPGA_HANDLE h;
	uint8_t *p;

	use_any_gpu();
	setenv("HELLOFPGA_PIN_LIMIT", "128K", 1);
	h = t_open(CARD);
	p = galloc(256 * KIB);
	a = pin(h, p, 64 * KIB);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_Pin(h, p + 64 * KIB, 128 * KIB, &gh),
		     -ENOMEM);
	HF_CHECK(last_error_has(h, "HELLOFPGA_PIN_LIMIT"));
	pin(h, p + 64 * KIB, 64 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, a), 0);
	pin(h, p + 128 * KIB, 64 * KIB);
	HelloFPGA_Close(h);
}

HF_TEST(gpudirect_counts_transfers_like_the_cpu_path)
{
	HELLOFPGA_COUNTERS c;
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;

	h = gpu_card();
	gh = pin_new(h, 64 * KIB);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0, 64 * KIB, 0), 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 4096, 0), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 9, gh, 0, 4096, 0),
		     -ECHRNG);
	HF_CHECK_EQ(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.transfers, 2);
	HF_CHECK_EQ(c.bytes_h2c, 64 * KIB);
	HF_CHECK_EQ(c.bytes_c2h, 4096);
	HF_CHECK_EQ(c.errors, 0);
	HelloFPGA_Close(h);
}

HF_TEST(gpudirect_engine_timeout_is_reported_and_recovers)
{
	HELLOFPGA_COUNTERS c;
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;

	h = gpu_card();
	gh = pin_new(h, 64 * KIB);
	t_need_emulated(h, "fault injection (hf_emu_test_inject)");
	HF_CHECK_EQ(hf_emu_test_inject(h, XDMA_FAULT_STALL), 0);
	HF_CHECK_ERR(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 4096, 50),
		     -ETIMEDOUT);
	HF_CHECK_EQ(hf_emu_test_inject(h, XDMA_FAULT_NONE), 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_ReadC2H(h, 0, gh, 0, 4096, 0), 0);
	HF_CHECK_EQ(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.timeouts, 1);
	HF_CHECK_EQ(c.errors, 1);
	HelloFPGA_Close(h);
}

/* The path a real desktop GPU takes: one region, moved by copy calls. */
HF_TEST(region_mapping_moves_bytes_through_gpu_copies)
{
	struct hf_emu_host_stats s0, s1;
	struct hf_emu_pin_info pi;
	HELLOFPGA_GPU_HANDLE gh;
	HELLOFPGA_HANDLE h;
	uint8_t *p, *got;
	const size_t size = 3 * MIB;

	use_gpu("emu");
	h = t_open(CARD);
	t_need_emulated(h, "region mapping (hf_emu_test_force_region)");
	HF_CHECK_EQ(hf_emu_test_force_region(h, true), 0);
	p = galloc(size);
	gfill(p, size, 21);
	gh = pin(h, p, size);
	pi = pin_info(h, gh);
	HF_CHECK(pi.region);
	HF_CHECK_EQ(pi.nseg, 1);
	s0 = host_stats(h);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_WriteH2C(h, 0, gh, 0x3000, size, 0),
		    0);
	got = card_read(h, 0x3000, size);
	HF_CHECK_EQ(t_check(got, size, 21), -1);
	free(got);
	card_fill(h, 0x900000, 5000, 22);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Xfer(h, 3, gh, 777, 0x900000, 5000,
					     HELLOFPGA_DIR_C2H, 0, NULL), 0);
	got = gread(p + 777, 5000);
	HF_CHECK_EQ(t_check(got, 5000, 22), -1);
	free(got);
	s1 = host_stats(h);
	HF_CHECK(s1.region_calls >= s0.region_calls + 2);
	HF_CHECK_EQ(s1.faults, 0);
	HF_CHECK_EQ(HelloFPGA_GPUDirect_Unpin(h, gh), 0);
	HF_CHECK_EQ(host_stats(h).maps, s1.maps - 2);	/* region + descs */
	HelloFPGA_Close(h);
}
