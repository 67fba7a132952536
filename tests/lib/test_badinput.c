// SPDX-License-Identifier: MIT
/*
 * test_badinput.c - every rejected argument gets its own error code and a
 * text naming it, and nothing reaches the card.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
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

/*
 * The card memory at @at still holds the pattern; no transfer happened,
 * @errors transfers were refused by the card's side.
 */
static void check_card(uint64_t at, uint64_t transfers, uint64_t errors)
{
	uint8_t out[4096];
	HELLOFPGA_COUNTERS c;

	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c), 0);
	HF_CHECK_EQ(c.transfers, transfers);
	HF_CHECK_EQ(c.errors, errors);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, out, at, sizeof(out),
					      NULL), 0);
	HF_CHECK(t_check(out, sizeof(out), 1) < 0);
	HelloFPGA_Close(h);
}

/* The card memory at @at still holds the pattern; no transfer happened. */
static void check_untouched(uint64_t at, uint64_t transfers)
{
	check_card(at, transfers, 0);
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

/* ---- host pointers the process cannot use: -EFAULT, as from the driver */

/* The emulated card names the page and what it lacks. */
static void check_efault_text(const char *what)
{
	if (t_card_is_emulated(h))
		HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(h), what), "%s",
			     HelloFPGA_GetLastError(h));
}

/* @n pages, read-write, filled with @val. */
static uint8_t *map_pages(int n, uint8_t val)
{
	uint8_t *p = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	HF_CHECK(p != MAP_FAILED);
	memset(p, val, n * 4096);
	return p;
}

HF_TEST(write_from_an_unmapped_address_is_efault_and_writes_nothing)
{
	setup(0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, (void *)0x1000, 0, 16,
					       NULL), -EFAULT);
	check_efault_text("not all mapped readable");
	check_card(0, 1, 1);
}

HF_TEST(read_into_an_unmapped_address_is_efault)
{
	setup(0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 1, (void *)0x1000, 0, 4096,
					      NULL), -EFAULT);
	check_efault_text("not all mapped writable");
	check_card(0, 1, 1);
}

/*
 * Without PROCMAP_QUERY (Linux before 6.11) buffers are checked by
 * faulting them in (MADV_POPULATE_*): the same -EFAULT.  Until
 * hf_test_probe_populate(false) the emulated card checks them that way;
 * skips where there is no MADV_POPULATE_@what.
 */
static void check_by_populate(const char *what)
{
	t_need_emulated(h, "buffer checks");
	if (!hf_test_probe_populate(true)) {
		hf_test_probe_populate(false);
		HF_SKIP("no MADV_POPULATE_%s before Linux 5.14", what);
	}
}

/* A read into a read-only page, its buffer checked either way. */
static const struct read_only_row {
	const char *name;
	uint8_t fill;
	bool populate;		/* checked by check_by_populate() */
} read_only_rows[] = {
	{ "and_leaves_it_alone", 0x11, false },
	{ "without_procmap_query", 0x44, true },
};

static void read_only_case(const void *arg)
{
	const struct read_only_row *row = arg;
	uint8_t *p = map_pages(1, row->fill);
	int ret;

	setup(0);
	if (row->populate)
		check_by_populate("WRITE");
	HF_CHECK(!mprotect(p, 4096, PROT_READ));
	ret = HelloFPGA_DMA_MM_ReadC2H(h, 0, p, 0, 4096, NULL);
	if (row->populate)
		hf_test_probe_populate(false);
	HF_CHECK_ERR(ret, -EFAULT);
	check_efault_text("not all mapped writable");
	for (int i = 0; i < 4096; i++)
		HF_CHECK_EQ(p[i], row->fill);
	check_card(0, 1, 1);
	munmap(p, 4096);
}

HF_TEST_ROWS(read_into_a_read_only_page_is_efault, read_only_rows,
	     read_only_case)

/* A buffer whose middle page is gone: refused whole, before any DMA. */
HF_TEST(write_from_a_buffer_with_a_hole_is_efault_and_writes_nothing)
{
	uint8_t *p = map_pages(3, 0x22);
	HELLOFPGA_INFO info;

	setup(0);
	HF_CHECK(!munmap(p + 4096, 4096));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 2, p + 100, 0, 3 * 4096 - 200,
					       NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	if (info.backend == HELLOFPGA_BACKEND_KERNEL) {
		/* the driver's write() moves the pages before the hole (a
		 * short write, as POSIX has it) and then fails: only the
		 * emulated card checks the whole buffer first */
		HelloFPGA_Close(h);
	} else {
		check_efault_text("not all mapped readable");
		check_card(0, 1, 1);
	}
	munmap(p, 4096);
	munmap(p + 2 * 4096, 4096);
}

/*
 * An aligned card moves unaligned buffers through a bounce buffer, which
 * the library copies out with the CPU: a read-only destination is -EFAULT
 * there too.
 */
HF_TEST(aligned_card_read_into_a_read_only_page_is_efault)
{
	HELLOFPGA_HANDLE g = t_open("emu,private,align=64,ddr=16M");
	uint8_t *p = map_pages(1, 0x33);

	HF_CHECK(!mprotect(p, 4096, PROT_READ));
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(g, 0, p + 1, 0, 100, NULL),
		     -EFAULT);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(g), "not all mapped writable"),
		     "%s", HelloFPGA_GetLastError(g));
	for (int i = 0; i < 4096; i++)
		HF_CHECK_EQ(p[i], 0x33);
	HF_CHECK_ERR(HelloFPGA_Close(g), 0);
	munmap(p, 4096);
}

HF_TEST(write_from_a_buffer_with_a_hole_is_efault_without_procmap_query)
{
	uint8_t *p = map_pages(3, 0x55);
	int ret;

	setup(0);
	check_by_populate("READ");
	HF_CHECK(!munmap(p + 4096, 4096));
	ret = HelloFPGA_DMA_MM_WriteH2C(h, 1, p, 0, 3 * 4096, NULL);
	hf_test_probe_populate(false);
	HF_CHECK_ERR(ret, -EFAULT);
	check_card(0, 1, 1);
	munmap(p, 4096);
	munmap(p + 2 * 4096, 4096);
}

/* A good buffer over several mappings (split by madvise) still moves. */
HF_TEST(buffer_over_several_mappings_moves)
{
	uint8_t *p = map_pages(3, 0), *q = map_pages(3, 0);

	setup(8192);
	HF_CHECK(!madvise(p + 4096, 4096, MADV_DONTFORK));
	HF_CHECK(!madvise(q + 4096, 4096, MADV_DONTFORK));
	t_fill(p, 3 * 4096, 8);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, p + 1, 1 << 20,
					       3 * 4096 - 2, NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, q + 1, 1 << 20,
					      3 * 4096 - 2, NULL), 0);
	HF_CHECK(!memcmp(p + 1, q + 1, 3 * 4096 - 2));
	check_untouched(8192, 3);
	munmap(p, 3 * 4096);
	munmap(q, 3 * 4096);
}

/*
 * A forked child checks buffers against its own mappings, not against the
 * parent's maps file the library had open: a buffer only the child mapped
 * moves, and one only the parent still has is -EFAULT in the child.
 */
HF_TEST(a_forked_child_checks_buffers_against_its_own_mappings)
{
	uint8_t *gone = map_pages(1, 0);
	int status;
	pid_t pid;

	setup(0);	/* a transfer of the parent opened its maps file */
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		uint8_t *mine = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		HELLOFPGA_HANDLE c;

		if (mine == MAP_FAILED || munmap(gone, 4096))
			_exit(1);
		if (HelloFPGA_Open("emu:0,private,ddr=1M", &c))
			_exit(2);
		if (HelloFPGA_DMA_MM_ReadC2H(c, 0, mine, 0, 4096, NULL))
			_exit(3);
		if (HelloFPGA_DMA_MM_ReadC2H(c, 0, gone, 0, 4096, NULL) !=
		    -EFAULT)
			_exit(4);
		HelloFPGA_Close(c);
		_exit(0);
	}
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	munmap(gone, 4096);
}
