// SPDX-License-Identifier: MIT
/*
 * hf_eff - per-transfer efficiency counts of the xdma-sim card model, read
 * through its guest fault/counter window (BAR0 + 0xf000, -device
 * xdma-sim,fault-regs=on; model/qemu/README.md): MMIO reads, MMIO writes,
 * descriptors fetched, interrupts and writebacks per transfer.
 *
 *   hf_eff [-d /dev/hellofpga0] [-n N] [-m MODE] SIZE...
 *
 * For each SIZE (bytes, K/M suffix allowed) and each path:
 *   cpu  pwrite() on CARD_h2c_0 / pread() on CARD_c2h_0 from a page-aligned
 *        buffer (one system call = one transfer)
 *   gpu  HelloFPGA_GPUDirect_Xfer() H2C / C2H on a buffer of the emulated
 *        GPU (HELLOFPGA_GPU=emu: PIN_HOST through the kernel backend),
 *        pinned once before the measurement
 * the counters are reset, N transfers run, the counters are read; the
 * averages per transfer are printed as
 *   # EFF mode=M path=P dir=D size=S n=N mmio_reads=.. mmio_writes=..
 *         desc_fetched=.. irqs=.. wb_writes=.. runs=..
 * and each measurement as a "PASS eff/P-D-SIZE: ..." line (hf_guest.h).
 * It FAILs when a transfer fails, the byte counter of the model disagrees,
 * or the driver's register traffic misses its target for MODE (-m):
 *   msix, poll   0 MMIO reads; at most 2 writes on the pinned path (its
 *                chain is reused), at most 4 on read()/write()
 *   msi, legacy  at most 2 reads (the shared handler's channel and user
 *                pending registers), at most 2 writes more than above (the
 *                handler masks the channel, the next run enables it)
 *   and one interrupt per transfer (none in poll), one writeback each,
 * and, with -c, when the descriptors per transfer differ from the
 * physically contiguous runs of the buffer (from /proc/self/pagemap, as
 * root; bus addresses are physical ones only without an IOMMU).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hellofpga.h"
#include "hf_guest.h"

/* counters of the fault window (hf_guest.h): mmio_reads, mmio_writes,
 * desc_fetched, irqs, wb_writes, bytes_h2c, bytes_c2h, errors,
 * guest_errors */
#define NCNT		9

static int ufd = -1;
static const char *card = "/dev/hellofpga0", *mode = "?";
static bool check_runs;

/*
 * Physically contiguous runs of the pages of [p, p + len), from
 * /proc/self/pagemap (PFNs need CAP_SYS_ADMIN); 0 when unknown.
 */
static uint64_t phys_runs(const void *p, uint64_t len)
{
	uint64_t va = (uintptr_t)p & ~4095ull, end = (uintptr_t)p + len;
	uint64_t runs = 0, prev = 0, ent;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	for (; va < end; va += 4096) {
		uint64_t pfn;

		if (pread(fd, &ent, sizeof(ent), (off_t)(va / 4096 * 8)) !=
		    sizeof(ent) || !(ent >> 63)) {
			runs = 0;
			break;
		}
		pfn = ent & ((1ull << 55) - 1);
		if (!pfn) {		/* PFNs hidden: not root */
			runs = 0;
			break;
		}
		if (!runs || pfn != prev + 1)
			runs++;
		prev = pfn;
	}
	close(fd);
	return runs;
}

/* The counters into @c; -1 when one cannot be read. */
static int counters(uint64_t *c)
{
	for (int i = 0; i < NCNT; i++) {
		c[i] = hfg_counter(ufd, i);
		if (c[i] == ~0ull)
			return -1;
	}
	return 0;
}

/*
 * The targets of MODE for a transfer of PATH: the most MMIO reads and
 * writes, the interrupts; -1 where MODE names none.
 */
static void targets(const char *path, int *reads, int *writes, int *irqs)
{
	bool pinned = !strcmp(path, "gpu");

	*reads = *writes = *irqs = -1;
	if (!strcmp(mode, "msix") || !strcmp(mode, "poll")) {
		*reads = 0;
		*writes = pinned ? 2 : 4;
		*irqs = !strcmp(mode, "msix");
	} else if (!strcmp(mode, "msi") || !strcmp(mode, "legacy")) {
		*reads = 2;
		*writes = pinned ? 4 : 6;
		*irqs = 1;
	}
}

/* report PATH DIR SIZE N BEFORE AFTER ERRTEXT RUNS */
static void report(const char *path, const char *dir, uint64_t size, int n,
		   const uint64_t *a, const uint64_t *b, const char *err,
		   uint64_t runs)
{
	char hs[32], name[96];
	double d[NCNT];
	uint64_t want, got;
	int max_r, max_w, irqs;

	snprintf(name, sizeof(name), "%s-%s-%s", path, dir, hfg_hsize(size, hs));
	if (err) {
		HFG_FAIL(name, "%s", err);
		return;
	}
	for (int i = 0; i < NCNT; i++)
		d[i] = (double)(b[i] - a[i]) / n;
	want = size * (uint64_t)n;
	got = !strcmp(dir, "h2c") ? b[5] - a[5] : b[6] - a[6];
	printf("# EFF mode=%s path=%s dir=%s size=%llu n=%d mmio_reads=%.2f mmio_writes=%.2f desc_fetched=%.2f irqs=%.2f wb_writes=%.2f errors=%.0f runs=%llu\n",
	       mode, path, dir, (unsigned long long)size, n, d[0], d[1], d[2],
	       d[3], d[4], d[7] * n, (unsigned long long)runs);
	if (got != want || b[7] != a[7]) {
		HFG_FAIL(name, "the model moved %llu bytes (expected %llu), %llu engine errors",
			 (unsigned long long)got, (unsigned long long)want,
			 (unsigned long long)(b[7] - a[7]));
		return;
	}
	targets(path, &max_r, &max_w, &irqs);
	if (max_r >= 0 && (d[0] > max_r || d[1] > max_w || d[3] != irqs ||
			   d[4] != 1)) {
		HFG_FAIL(name, "%s: %.2f MMIO reads (at most %d), %.2f writes (at most %d), %.2f interrupts (%d), %.2f writebacks (1) per transfer",
			 mode, d[0], max_r, d[1], max_w, d[3], irqs, d[4]);
		return;
	}
	if (check_runs && runs && d[2] != (double)runs) {
		HFG_FAIL(name, "%.2f descriptors per transfer for %llu physically contiguous runs",
			 d[2], (unsigned long long)runs);
		return;
	}
	HFG_PASS(name, "per transfer (n=%d) mmio_reads=%.2f mmio_writes=%.2f desc_fetched=%.2f (runs %llu) irqs=%.2f wb_writes=%.2f",
		 n, d[0], d[1], d[2], (unsigned long long)runs, d[3], d[4]);
}

static void run_cpu(uint64_t size, int n, const char *dir, void *buf)
{
	char path[128], err[160];
	uint64_t a[NCNT], b[NCNT];
	int h2c = !strcmp(dir, "h2c"), fd;

	snprintf(path, sizeof(path), "%s_%s_0", card, dir);
	fd = open(path, h2c ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		snprintf(err, sizeof(err), "open %s: %s", path, strerror(errno));
		report("cpu", dir, size, n, NULL, NULL, err, 0);
		return;
	}
	/* one warm-up transfer: first-touch of the buffer pages */
	if ((h2c ? pwrite(fd, buf, size, 0) : pread(fd, buf, size, 0)) != (ssize_t)size) {
		snprintf(err, sizeof(err), "warm-up %s of %llu bytes: %s", dir,
			 (unsigned long long)size, strerror(errno));
		report("cpu", dir, size, n, NULL, NULL, err, 0);
		close(fd);
		return;
	}
	hfg_wr32(ufd, HFG_FW + 8, 1);
	if (counters(a)) {
		report("cpu", dir, size, n, NULL, NULL,
		       "cannot read the counter window", 0);
		close(fd);
		return;
	}
	for (int i = 0; i < n; i++) {
		ssize_t r = h2c ? pwrite(fd, buf, size, 0) : pread(fd, buf, size, 0);

		if (r != (ssize_t)size) {
			snprintf(err, sizeof(err), "%s %d of %llu bytes: returned %zd: %s",
				 dir, i, (unsigned long long)size, r, strerror(errno));
			report("cpu", dir, size, n, NULL, NULL, err, 0);
			close(fd);
			return;
		}
	}
	counters(b);
	close(fd);
	report("cpu", dir, size, n, a, b, NULL, phys_runs(buf, size));
}

static void run_gpu(HELLOFPGA_HANDLE h, HELLOFPGA_GPU_HANDLE gh, void *g,
		    uint64_t size, int n, const char *dir)
{
	int d = !strcmp(dir, "h2c") ? HELLOFPGA_DIR_H2C : HELLOFPGA_DIR_C2H;
	uint64_t a[NCNT], b[NCNT];
	char err[256];
	int ret;

	ret = HelloFPGA_GPUDirect_Xfer(h, 0, gh, 0, 0, size, d, 0, NULL);
	if (!ret) {
		hfg_wr32(ufd, HFG_FW + 8, 1);
		if (counters(a))
			ret = -EIO;
	}
	for (int i = 0; !ret && i < n; i++)
		ret = HelloFPGA_GPUDirect_Xfer(h, 0, gh, 0, 0, size, d, 0, NULL);
	if (ret) {
		snprintf(err, sizeof(err), "GPUDirect_Xfer %s %llu bytes: %s: %s", dir,
			 (unsigned long long)size, HelloFPGA_StrError(ret),
			 HelloFPGA_GetLastError(h));
		report("gpu", dir, size, n, NULL, NULL, err, 0);
		return;
	}
	counters(b);
	report("gpu", dir, size, n, a, b, NULL, phys_runs(g, size));
}

int main(int argc, char **argv)
{
	uint64_t sizes[16], max = 0;
	int nsz = 0, n = 0, c;
	char path[128];
	void *buf;

	hfg_group = "eff";
	while ((c = getopt(argc, argv, "cd:n:m:")) != -1) {
		switch (c) {
		case 'c': check_runs = true; break;
		case 'd': card = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'm': mode = optarg; break;
		default:
			fprintf(stderr, "usage: hf_eff [-c] [-d CARD] [-n N] [-m MODE] SIZE...\n");
			return 2;
		}
	}
	for (; optind < argc && nsz < 16; optind++) {
		sizes[nsz] = hfg_parse_size(argv[optind]);
		if (sizes[nsz] > max)
			max = sizes[nsz];
		nsz++;
	}
	if (!nsz || !max || max % 4096) {
		fprintf(stderr, "hf_eff: sizes must be multiples of 4096\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s_user", card);
	ufd = open(path, O_RDWR);
	if (ufd < 0 || !hfg_fw_present(ufd)) {
		HFG_SKIP("all", "no counter window at %s + 0x%x (needs -device xdma-sim,fault-regs=on)",
			 path, HFG_FW);
		return 0;
	}
	buf = mmap(NULL, max, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(buf, 0x5a, max);
	for (int s = 0; s < nsz; s++) {
		int reps = n ? n : (sizes[s] >= (1u << 20) ? 8 : 32);

		run_cpu(sizes[s], reps, "h2c", buf);
		run_cpu(sizes[s], reps, "c2h", buf);
	}

	/* GPU path: emulated GPU memory pinned with PIN_HOST, GPUDirect_Xfer */
	setenv("HELLOFPGA_GPU", "emu", 0);
	{
		HELLOFPGA_HANDLE h = NULL;
		HELLOFPGA_GPU_HANDLE gh = 0;
		void *g = NULL;
		int ret = HelloFPGA_Open(card, &h);

		if (!ret)
			ret = HelloFPGA_GPU_Alloc(&g, max);
		if (!ret)
			ret = HelloFPGA_GPUDirect_Pin(h, g, max, &gh);
		if (ret) {
			HFG_FAIL("gpu-setup", "open/alloc/pin %llu bytes: %s: %s",
				 (unsigned long long)max, HelloFPGA_StrError(ret),
				 HelloFPGA_GetLastError(h));
		} else {
			for (int s = 0; s < nsz; s++) {
				int reps = n ? n : (sizes[s] >= (1u << 20) ? 8 : 32);

				run_gpu(h, gh, g, sizes[s], reps, "h2c");
				run_gpu(h, gh, g, sizes[s], reps, "c2h");
			}
		}
		if (gh)
			HelloFPGA_GPUDirect_Unpin(h, gh);
		if (g)
			HelloFPGA_GPU_Free(g);
		if (h)
			HelloFPGA_Close(h);
	}
	munmap(buf, max);
	close(ufd);
	return hfg_exit();
}
