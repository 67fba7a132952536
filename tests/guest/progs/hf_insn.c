// SPDX-License-Identifier: MIT
/*
 * hf_insn - guest instructions per transfer, counted by the QEMU TCG
 * plugin tests/guest/plugin/hf_insn.c (loaded by run-config.sh in the
 * configurations with CFG_PLUGIN=insn; the kernel command line then says
 * hf_insn=1).
 *
 *   hf_insn [-d /dev/hellofpga0] [-n N] [-l LABEL0] SIZE...
 *
 * For each SIZE (bytes, K/M suffix allowed, multiples of 4096) and path:
 *   write  pwrite() on CARD_h2c_0 from a page-aligned, populated buffer
 *   read   pread() on CARD_c2h_0 into it
 *   xfer-h2c, xfer-c2h  HelloFPGA_GPUDirect_Xfer() on a buffer of the
 *          emulated GPU (HELLOFPGA_GPU=emu: PIN_HOST through the kernel
 *          backend), pinned once before
 * one warm-up transfer, then N transfers (default 64 of 4 KiB, 16 of
 * 4 MiB), each between a start and a stop marker of the measurement's
 * label (an x86 NOP whose bytes the plugin recognises, see the plugin):
 * N spans of one transfer.  For each span the plugin writes
 * "HF-INSN vcpu=V label=L kernel_insns=K user_insns=U" into QEMU's log;
 * the instructions per transfer are the sum of K over the spans / N (and
 * their minimum: a span that nothing else ran in, no timer tick).
 * The program prints the legend, one line per label, after its spans:
 *   # HF-INSN-LEGEND label=L name=write-4K path=cpu dir=h2c size=4096 spans=N
 *         desc=D irqs=I
 * D and I: descriptors the card fetched and interrupts it raised per
 * transfer (its counter window, -device xdma-sim,fault-regs=on, read
 * outside the spans; "?" without it): what the kernel had to handle.
 * label LABEL0 (default 1) is an empty span (start, stop: the markers'
 * own cost, must be zero kernel instructions), LABEL0 + 1 getppid() in N
 * spans (a bare system call, for scale), then one per measurement.  And
 * a PASS insn/NAME line for each measurement whose transfers all worked.
 *
 * The process is pinned to the CPU it starts on (the guests are -smp 1):
 * the counts are of that vCPU, so they include whatever else ran on it
 * in the span, wanted or not: the transfer's own interrupt handler and
 * the wake-up of the waiting process (wanted), the idle loop while it
 * waits, timer interrupts, softirqs and kernel threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hellofpga.h"
#include "hf_guest.h"

#if !defined(__x86_64__)
/* the markers are x86_64 instructions: elsewhere there is nothing to count */
int main(void)
{
	hfg_group = "insn";
	HFG_SKIP("all", "the hf_insn markers are x86_64 instructions");
	return hfg_exit();
}
#else

/* nopl DISP32(%rax): 0f 1f 80 + disp32 = magic | op << 12 | label */
#define HF_INSN_MAGIC	0x48460000u
#define HF_INSN_START	1u
#define HF_INSN_STOP	2u

#define MARK(op, l)							\
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0"		\
		     : : "n" (HF_INSN_MAGIC | (op) << 12 | (l)) : "memory")

/* labels 0..31: the marker's label is an immediate, one case each */
#define MARK_CASE(op, l)	case l: MARK(op, l); break
#define MARK_CASES8(op, b)						\
	MARK_CASE(op, b); MARK_CASE(op, b + 1); MARK_CASE(op, b + 2);	\
	MARK_CASE(op, b + 3); MARK_CASE(op, b + 4); MARK_CASE(op, b + 5); \
	MARK_CASE(op, b + 6); MARK_CASE(op, b + 7)
#define MAX_LABEL	31

static inline __attribute__((always_inline)) void mark_start(int l)
{
	switch (l) {
	MARK_CASES8(HF_INSN_START, 0);
	MARK_CASES8(HF_INSN_START, 8);
	MARK_CASES8(HF_INSN_START, 16);
	MARK_CASES8(HF_INSN_START, 24);
	}
}

static inline __attribute__((always_inline)) void mark_stop(int l)
{
	switch (l) {
	MARK_CASES8(HF_INSN_STOP, 0);
	MARK_CASES8(HF_INSN_STOP, 8);
	MARK_CASES8(HF_INSN_STOP, 16);
	MARK_CASES8(HF_INSN_STOP, 24);
	}
}

static const char *card = "/dev/hellofpga0";
static int label, ufd = -1;

/* The card's descriptor and interrupt counters (hf_guest.h) into @c. */
static void card_counts(uint64_t *c)
{
	c[0] = ufd < 0 ? 0 : hfg_counter(ufd, 2);	/* desc_fetched */
	c[1] = ufd < 0 ? 0 : hfg_counter(ufd, 3);	/* irqs */
}

/*
 * The legend line of label @l: @n spans of one transfer each, the card's
 * counters @c0 before and @c1 after them.
 */
static void legend(int l, const char *name, const char *path, const char *dir,
		   uint64_t size, int n, const uint64_t *c0, const uint64_t *c1)
{
	char d[32] = "?", i[32] = "?";

	if (ufd >= 0 && c0[0] != ~0ull && c1[0] != ~0ull) {
		snprintf(d, sizeof(d), "%.2f", (double)(c1[0] - c0[0]) / n);
		snprintf(i, sizeof(i), "%.2f", (double)(c1[1] - c0[1]) / n);
	}
	printf("# HF-INSN-LEGEND label=%d name=%s path=%s dir=%s size=%llu spans=%d desc=%s irqs=%s\n",
	       l, name, path, dir, (unsigned long long)size, n, d, i);
	fflush(stdout);
}

static void run_cpu(uint64_t size, int n, int h2c, void *buf)
{
	char path[128], name[64], hs[32];
	uint64_t c0[2], c1[2];
	ssize_t r = 0;
	int fd, i, l;

	snprintf(name, sizeof(name), "%s-%s", h2c ? "write" : "read",
		 hfg_hsize(size, hs));
	snprintf(path, sizeof(path), "%s_%s_0", card, h2c ? "h2c" : "c2h");
	fd = open(path, h2c ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		HFG_FAIL(name, "open %s: %s", path, strerror(errno));
		return;
	}
	/* warm-up: the first transfer of a node and of the buffer */
	r = h2c ? pwrite(fd, buf, size, 0) : pread(fd, buf, size, 0);
	if (r != (ssize_t)size) {
		HFG_FAIL(name, "warm-up of %llu bytes returned %zd: %s",
			 (unsigned long long)size, r, strerror(errno));
		close(fd);
		return;
	}
	l = label++;
	card_counts(c0);
	for (i = 0; i < n; i++) {
		mark_start(l);
		r = h2c ? pwrite(fd, buf, size, 0) : pread(fd, buf, size, 0);
		mark_stop(l);
		if (r != (ssize_t)size)
			break;
	}
	card_counts(c1);
	/* a failed transfer's span was counted too */
	legend(l, name, "cpu", h2c ? "h2c" : "c2h", size, i < n ? i + 1 : n,
	       c0, c1);
	if (i < n)
		HFG_FAIL(name, "transfer %d of %llu bytes returned %zd: %s", i,
			 (unsigned long long)size, r, strerror(errno));
	else
		HFG_PASS(name, "label %d: %d transfers, each between the markers", l, n);
	close(fd);
}

static void run_gpu(HELLOFPGA_HANDLE h, HELLOFPGA_GPU_HANDLE gh, uint64_t size,
		    int n, int h2c)
{
	int d = h2c ? HELLOFPGA_DIR_H2C : HELLOFPGA_DIR_C2H;
	uint64_t c0[2], c1[2];
	char name[64], hs[32];
	int ret, i = 0, l;

	snprintf(name, sizeof(name), "xfer-%s-%s", h2c ? "h2c" : "c2h",
		 hfg_hsize(size, hs));
	ret = HelloFPGA_GPUDirect_Xfer(h, 0, gh, 0, 0, size, d, 0, NULL);
	if (!ret) {
		l = label++;
		card_counts(c0);
		for (i = 0; i < n; i++) {
			mark_start(l);
			ret = HelloFPGA_GPUDirect_Xfer(h, 0, gh, 0, 0, size, d,
						       0, NULL);
			mark_stop(l);
			if (ret)
				break;
		}
		card_counts(c1);
		legend(l, name, "gpu", h2c ? "h2c" : "c2h", size,
		       i < n ? i + 1 : n, c0, c1);
	}
	if (ret)
		HFG_FAIL(name, "GPUDirect_Xfer %d of %llu bytes: %s: %s", i,
			 (unsigned long long)size, HelloFPGA_StrError(ret),
			 HelloFPGA_GetLastError(h));
	else
		HFG_PASS(name, "label %d: %d transfers, each between the markers", l, n);
}

/* The markers alone and a bare system call, for scale. */
static void run_base(int n)
{
	uint64_t c0[2], c1[2];
	int l, i;

	l = label++;
	card_counts(c0);
	mark_start(l);
	mark_stop(l);
	card_counts(c1);
	legend(l, "empty", "none", "none", 0, 1, c0, c1);
	l = label++;
	card_counts(c0);
	for (i = 0; i < n; i++) {
		mark_start(l);
		getppid();
		mark_stop(l);
	}
	card_counts(c1);
	legend(l, "getppid", "syscall", "none", 0, n, c0, c1);
}

static int reps(uint64_t size, int n)
{
	return n ? n : size >= (1u << 20) ? 16 : 64;
}

int main(int argc, char **argv)
{
	uint64_t sizes[8], max = 0;
	int nsz = 0, n = 0, c, s, ret;
	HELLOFPGA_HANDLE h = NULL;
	HELLOFPGA_GPU_HANDLE gh = 0;
	cpu_set_t cpus;
	void *buf, *g = NULL;

	hfg_group = "insn";
	label = 1;
	while ((c = hfg_getopt(argc, argv, "d:n:l:", &card)) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'l': label = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: hf_insn [-d CARD] [-n N] [-l LABEL0] SIZE...\n");
			return 2;
		}
	}
	for (; optind < argc && nsz < 8; optind++) {
		sizes[nsz] = hfg_parse_size(argv[optind]);
		if (!sizes[nsz] || sizes[nsz] % 4096) {
			fprintf(stderr, "hf_insn: sizes must be multiples of 4096\n");
			return 2;
		}
		if (sizes[nsz] > max)
			max = sizes[nsz];
		nsz++;
	}
	if (!nsz || label < 0 || label + 2 + 4 * nsz > MAX_LABEL + 1) {
		fprintf(stderr, "hf_insn: 1 to 7 sizes, labels up to %d\n", MAX_LABEL);
		return 2;
	}
	/* one vCPU's counts: stay on the CPU we started on */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		HFG_FAIL("affinity", "sched_setaffinity: %s", strerror(errno));

	/* the card's counters, if it has the window */
	{
		char path[128];

		snprintf(path, sizeof(path), "%s_user", card);
		ufd = open(path, O_RDWR);
		if (ufd >= 0 && !hfg_fw_present(ufd)) {
			close(ufd);
			ufd = -1;
		}
	}
	run_base(reps(4096, n));

	buf = mmap(NULL, max, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		HFG_FAIL("mmap", "%llu bytes: %s", (unsigned long long)max,
			 strerror(errno));
		return hfg_exit();
	}
	memset(buf, 0x5a, max);
	for (s = 0; s < nsz; s++) {
		run_cpu(sizes[s], reps(sizes[s], n), 1, buf);
		run_cpu(sizes[s], reps(sizes[s], n), 0, buf);
	}
	munmap(buf, max);

	/* the GPU path: emulated GPU memory, pinned once (PIN_HOST) */
	setenv("HELLOFPGA_GPU", "emu", 0);
	ret = HelloFPGA_Open(card, &h);
	if (!ret)
		ret = HelloFPGA_GPU_Alloc(&g, max);
	if (!ret)
		ret = HelloFPGA_GPUDirect_Pin(h, g, max, &gh);
	if (ret) {
		HFG_FAIL("xfer-setup", "open/alloc/pin %llu bytes: %s: %s",
			 (unsigned long long)max, HelloFPGA_StrError(ret),
			 h ? HelloFPGA_GetLastError(h) : "");
	} else {
		for (s = 0; s < nsz; s++) {
			run_gpu(h, gh, sizes[s], reps(sizes[s], n), 1);
			run_gpu(h, gh, sizes[s], reps(sizes[s], n), 0);
		}
	}
	if (gh)
		HelloFPGA_GPUDirect_Unpin(h, gh);
	if (g)
		HelloFPGA_GPU_Free(g);
	if (h)
		HelloFPGA_Close(h);
	if (ufd >= 0)
		close(ufd);
	return hfg_exit();
}
#endif /* __x86_64__ */
