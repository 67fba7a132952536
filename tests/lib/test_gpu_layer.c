// SPDX-License-Identifier: MIT
/*
 * test_gpu_layer.c - the library's GPU layer (lib/gpu.h) and the public
 * HelloFPGA_GetGPUStatus / HelloFPGA_GPU_Alloc / _Free / _Memcpy.
 *
 * The GPU is detected once per process, so each case names the GPU it
 * needs (USE_GPU) before the first GPU call: CTest runs every case in its
 * own process; when several cases run in one process, a case needing a
 * different GPU reruns itself in a fresh child.  Without CUDA (CI) "cuda"
 * finds no GPU and "auto" the emulated one; the cuda_* cases, which
 * exercise the real GPU, skip there and run on a machine with a GPU.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu.h"
#include "harness.h"
#include "lib_helpers.h"

#define KiB (1ul << 10)
#define MiB (1ul << 20)

/* Run @name (this case) in a fresh process with HELLOFPGA_GPU=@mode. */
static int run_child(const char *mode, const char *name, const char *ldpath)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (!pid) {
		setenv("HELLOFPGA_GPU", mode, 1);
		if (ldpath) {
			setenv("LD_LIBRARY_PATH", ldpath, 1);
			setenv("HF_GPU_TEST_CHILD", "stub", 1);
		}
		execl("/proc/self/exe", "test_gpu_layer", name, (char *)NULL);
		_exit(127);
	}
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK_MSG(WIFEXITED(status), "child %s died (status %#x)", name,
		     status);
	return WEXITSTATUS(status);
}

/*
 * Select the GPU for this case.  True when the case ran (and passed) in a
 * child process instead, so the caller returns.
 */
static bool use_gpu(const char *mode, const char *name)
{
	static char used[32];
	int rc;

	if (!hf_gpu_peek()) {
		setenv("HELLOFPGA_GPU", mode, 1);
		snprintf(used, sizeof(used), "%s", mode);
		hf_gpu_get();
		return false;
	}
	if (!strcmp(used, mode))
		return false;
	rc = run_child(mode, name, NULL);
	if (rc == 77)
		HF_SKIP("skipped in the child process");
	HF_CHECK_MSG(rc == 0, "%s failed in a child process (exit %d)", name,
		     rc);
	return true;
}

#define USE_GPU(mode)					\
	do {						\
		if (use_gpu(mode, __func__))		\
			return;				\
	} while (0)

static HELLOFPGA_GPU_STATUS status(void)
{
	HELLOFPGA_GPU_STATUS s;

	memset(&s, 0x5a, sizeof(s));
	HF_CHECK_ERR(HelloFPGA_GetGPUStatus(&s), 0);
	return s;
}

static bool cuda_loadable(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (h)
		dlclose(h);
	return h != NULL;
}

static void *gpu_alloc(size_t size)
{
	void *p = NULL;
	int ret = HelloFPGA_GPU_Alloc(&p, size);

	HF_CHECK_MSG(ret == 0, "HelloFPGA_GPU_Alloc(%zu) = %d: %s", size, ret,
		     HelloFPGA_GetLastError(NULL));
	HF_CHECK(p != NULL);
	return p;
}

static void gpu_free(void *p)
{
	HF_CHECK_ERR(HelloFPGA_GPU_Free(p), 0);
}

/* Can the CPU read @p?  write(2) fails with EFAULT where it cannot. */
static bool readable(const void *p)
{
	int fd[2];
	ssize_t n;
	char c;

	HF_CHECK(pipe(fd) == 0);
	n = write(fd[1], p, 1);
	if (n == 1)
		HF_CHECK(read(fd[0], &c, 1) == 1);
	else
		HF_CHECK_EQ(errno, EFAULT);
	close(fd[0]);
	close(fd[1]);
	return n == 1;
}

/* ---- status ---- */

HF_TEST(status_emu_desktop)
{
	HELLOFPGA_GPU_STATUS s;

	USE_GPU("emu");
	s = status();
	HF_CHECK_EQ(s.platform, HELLOFPGA_PLATFORM_DESKTOP);
	HF_CHECK_EQ(s.supported, 1);
	HF_CHECK_EQ(s.emulated, 1);
	HF_CHECK_EQ(s.device, 0);
	HF_CHECK(!strcmp(s.name, "emulated desktop GPU (64 KiB pages)"));
	HF_CHECK_EQ(s.reason[0], 0);
	HF_CHECK_EQ(s.cuda_driver_version, 0);
	HF_CHECK_EQ(s.rdma_supported, 1);
	HF_CHECK_EQ(s.dmabuf_supported, 1);
	HF_CHECK_EQ(s.page_size, 64 * KiB);
	HF_CHECK_EQ(hf_gpu_get()->kind, HF_GPU_EMU);
	HF_CHECK(hf_gpu_cpu_addressable());
}

HF_TEST(status_emu_tegra)
{
	HELLOFPGA_GPU_STATUS s;

	USE_GPU("emu-tegra");
	s = status();
	HF_CHECK_EQ(s.platform, HELLOFPGA_PLATFORM_TEGRA);
	HF_CHECK_EQ(s.supported, 1);
	HF_CHECK_EQ(s.emulated, 1);
	HF_CHECK(!strcmp(s.name,
			 "emulated Tegra GPU (integrated, 4 KiB pages)"));
	HF_CHECK_EQ(s.page_size, 4 * KiB);
	HF_CHECK(hf_gpu_cpu_addressable());
}

HF_TEST(status_none_says_why)
{
	HELLOFPGA_GPU_STATUS s;
	void *p = (void *)1;

	USE_GPU("none");
	s = status();
	HF_CHECK_EQ(s.platform, HELLOFPGA_PLATFORM_NONE);
	HF_CHECK_EQ(s.supported, 0);
	HF_CHECK_EQ(s.emulated, 0);
	HF_CHECK(strstr(s.reason, "HELLOFPGA_GPU=none"));
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&p, 4096), -ENODEV);
	HF_CHECK(p == NULL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "no GPU"));
	HF_CHECK(!hf_gpu_cpu_addressable());
}

HF_TEST(status_cuda_without_cuda_has_no_gpu_and_a_reason)
{
	HELLOFPGA_GPU_STATUS s;

	USE_GPU("cuda");
	s = status();
	if (s.platform != HELLOFPGA_PLATFORM_NONE) {
		/* a real GPU is here: then it is real */
		HF_CHECK_EQ(s.emulated, 0);
		HF_CHECK(s.name[0]);
		HF_CHECK(s.cuda_driver_version > 0);
		hf_test_log("real GPU: %s (%s), driver %d, rdma %d, dmabuf %d, supported %d %s",
			    s.name, s.pci_bus_id, s.cuda_driver_version,
			    s.rdma_supported, s.dmabuf_supported, s.supported,
			    s.reason);
		return;
	}
	HF_CHECK_EQ(s.supported, 0);
	HF_CHECK_EQ(s.emulated, 0);
	HF_CHECK_MSG(strstr(s.reason, "libcuda.so.1") ||
		     strstr(s.reason, "cuInit failed") ||
		     strstr(s.reason, "CUDA device"),
		     "reason: %s", s.reason);
	HF_CHECK_EQ(hf_gpu_get()->kind, HF_GPU_NONE);
}

HF_TEST(status_auto_is_emulated_desktop_without_cuda)
{
	HELLOFPGA_GPU_STATUS s;

	USE_GPU("auto");
	s = status();
	if (!s.emulated && cuda_loadable()) {
		HF_CHECK_EQ(hf_gpu_get()->kind, HF_GPU_CUDA);
		return;
	}
	HF_CHECK_EQ(s.emulated, 1);
	HF_CHECK_EQ(s.platform, HELLOFPGA_PLATFORM_DESKTOP);
	HF_CHECK_EQ(s.supported, 1);
}

HF_TEST(status_unknown_mode_is_none_naming_it)
{
	HELLOFPGA_GPU_STATUS s;

	USE_GPU("quantum");
	s = status();
	HF_CHECK_EQ(s.platform, HELLOFPGA_PLATFORM_NONE);
	HF_CHECK(strstr(s.reason, "HELLOFPGA_GPU=quantum"));
}

HF_TEST(status_null_is_efault)
{
	USE_GPU("emu");
	HF_CHECK_ERR(HelloFPGA_GetGPUStatus(NULL), -EFAULT);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "status is NULL"));
}

/*
 * The stub libcuda.so of the CUDA toolkit exports every entry point and
 * fails cuInit: loading it proves all names resolve, and the reason says
 * what failed.  Skipped without a toolkit.
 */
HF_TEST(cuda_stub_library_resolves_and_reports_cuinit)
{
	static const char *const stubs[] = {
		"/usr/local/cuda/lib64/stubs/libcuda.so",
		"/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so",
		"/usr/local/cuda/targets/sbsa-linux/lib/stubs/libcuda.so",
	};
	const char *stub = NULL;
	char dir[64], link[128];
	HELLOFPGA_GPU_STATUS s;
	int rc;

	if (getenv("HF_GPU_TEST_CHILD")) {
		s = status();
		HF_CHECK_EQ(s.platform, HELLOFPGA_PLATFORM_NONE);
		HF_CHECK_MSG(strstr(s.reason, "cuInit failed") &&
			     strstr(s.reason, "(34)"), "reason: %s", s.reason);
		return;
	}
	for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++)
		if (!access(stubs[i], R_OK))
			stub = stubs[i];
	if (!stub)
		HF_SKIP("no CUDA toolkit stub libcuda.so here");
	snprintf(dir, sizeof(dir), "/tmp/hf-cudastub-XXXXXX");
	HF_CHECK(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/libcuda.so.1", dir);
	HF_CHECK(symlink(stub, link) == 0);
	rc = run_child("cuda", __func__, dir);
	unlink(link);
	rmdir(dir);
	HF_CHECK_EQ(rc, 0);
}

/* ---- allocation ---- */

HF_TEST(alloc_desktop_rounds_to_64k_pages_and_aligns)
{
	struct hf_gpu_buf b;
	char why[256];
	void *p, *q;

	USE_GPU("emu");
	p = gpu_alloc(1);
	q = gpu_alloc(100000);
	HF_CHECK(((uintptr_t)p & (64 * KiB - 1)) == 0);
	HF_CHECK(((uintptr_t)q & (64 * KiB - 1)) == 0);
	HF_CHECK_ERR(hf_gpu_query(p, 1, &b, why, sizeof(why)), 0);
	HF_CHECK_EQ(b.alloc_base, (uintptr_t)p);
	HF_CHECK_EQ(b.alloc_size, 64 * KiB);
	HF_CHECK_ERR(hf_gpu_query(q, 1, &b, why, sizeof(why)), 0);
	HF_CHECK_EQ(b.alloc_size, 128 * KiB);
	gpu_free(p);
	gpu_free(q);
}

HF_TEST(alloc_tegra_rounds_to_4k_pages)
{
	struct hf_gpu_buf b;
	char why[256];
	void *p;

	USE_GPU("emu-tegra");
	p = gpu_alloc(5000);
	HF_CHECK(((uintptr_t)p & (4 * KiB - 1)) == 0);
	HF_CHECK_ERR(hf_gpu_query(p, 5000, &b, why, sizeof(why)), 0);
	HF_CHECK_EQ(b.alloc_size, 8 * KiB);
	gpu_free(p);
}

HF_TEST(alloc_bad_args)
{
	void *p = (void *)1;

	USE_GPU("emu");
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(NULL, 4096), -EFAULT);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "ptr is NULL"));
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&p, 0), -EINVAL);
	HF_CHECK(p == NULL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "size is 0"));
	p = (void *)1;
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&p, (size_t)1 << 50), -ENOMEM);
	HF_CHECK(p == NULL);
	HF_CHECK_ERR(HelloFPGA_GPU_Alloc(&p, SIZE_MAX), -ENOMEM);
}

HF_TEST(free_bad_args)
{
	static char host[4096];
	void *p;

	USE_GPU("emu");
	HF_CHECK_ERR(HelloFPGA_GPU_Free(NULL), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(host), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "not GPU memory"));
	p = gpu_alloc(128 * KiB);
	HF_CHECK_ERR(HelloFPGA_GPU_Free((char *)p + 4096), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "inside"));
	gpu_free(p);
	HF_CHECK_ERR(HelloFPGA_GPU_Free(p), -EINVAL);
}

HF_TEST(freed_memory_is_unmapped)
{
	char *p;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	p[100] = 7;
	HF_CHECK(readable(p + 100));
	gpu_free(p);
	HF_CHECK(!readable(p + 100));
}

/* ---- memcpy ---- */

HF_TEST(memcpy_round_trip)
{
	size_t n = 300 * KiB + 17;
	char *host, *back;
	void *g;

	USE_GPU("emu");
	host = malloc(n);
	back = calloc(1, n);
	HF_CHECK(host && back);
	g = gpu_alloc(n);
	t_fill(host, n, 3);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(g, host, n,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(back, g, n,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	HF_CHECK(t_check(back, n, 3) < 0);
	/* a sub-range at an odd offset */
	memset(back, 0, n);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(back, (char *)g + 4097, 1000,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	HF_CHECK(!memcmp(back, host + 4097, 1000));
	gpu_free(g);
	free(host);
	free(back);
}

HF_TEST(memcpy_bad_args)
{
	char host[64];
	void *g;

	USE_GPU("emu");
	g = gpu_alloc(4096);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(NULL, host, 64,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), -EFAULT);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "dst is NULL"));
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(g, NULL, 64,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(g, host, 64, 0), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "kind 0"));
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(g, host, 64, 3), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(g, host, 0,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	gpu_free(g);
}

HF_TEST(memcpy_host_pointer_as_gpu_side_is_einval)
{
	char a[64], b[64];
	void *g;

	USE_GPU("emu");
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(a, b, 64,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "not GPU memory"));
	g = gpu_alloc(64 * KiB);
	/* runs past the end of the allocation */
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(a, (char *)g + 64 * KiB - 32, 64,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "past the end"));
	gpu_free(g);
}

/* ---- query ---- */

HF_TEST(query_rejects_host_memory_on_desktop)
{
	struct hf_gpu_buf b;
	char why[256];
	void *host;

	USE_GPU("emu");
	HF_CHECK(posix_memalign(&host, 64 * KiB, 64 * KiB) == 0);
	HF_CHECK_ERR(hf_gpu_query(host, 64 * KiB, &b, why, sizeof(why)),
		     -EINVAL);
	HF_CHECK_MSG(strstr(why, "not GPU memory") &&
		     strstr(why, "desktop GPU needs device memory"),
		     "why: %s", why);
	free(host);
}

HF_TEST(query_accepts_unaligned_range_inside_allocation)
{
	struct hf_gpu_buf b;
	char why[256];
	char *p;

	USE_GPU("emu");
	p = gpu_alloc(256 * KiB);
	HF_CHECK_ERR(hf_gpu_query(p + 1, 100, &b, why, sizeof(why)), 0);
	HF_CHECK_EQ(b.alloc_base, (uintptr_t)p);
	HF_CHECK_EQ(b.alloc_size, 256 * KiB);
	HF_CHECK(b.buffer_id != 0);
	HF_CHECK(b.device_memory);
	/* the whole allocation, ending on its last byte */
	HF_CHECK_ERR(hf_gpu_query(p, 256 * KiB, &b, why, sizeof(why)), 0);
	gpu_free(p);
}

HF_TEST(query_rejects_range_crossing_two_allocations)
{
	struct hf_gpu_buf b;
	char why[256];
	char *p, *q;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	q = gpu_alloc(64 * KiB);
	/* first fit: the second follows the first */
	HF_CHECK(q == p + 64 * KiB);
	HF_CHECK_ERR(hf_gpu_query(p + 60 * KiB, 8 * KiB, &b, why,
				  sizeof(why)), -EINVAL);
	HF_CHECK_MSG(strstr(why, "crosses"), "why: %s", why);
	gpu_free(p);
	gpu_free(q);
}

/*
 * As cudaMalloc(): on a desktop GPU an allocation of 2 MiB or more starts on
 * a 2 MiB boundary (one BAR run), even after a small one; smaller ones still
 * fill the gap before it, first fit.
 */
HF_TEST(alloc_of_2mib_or_more_is_2mib_aligned_on_desktop)
{
	char *small, *big, *big2, *fill;

	USE_GPU("emu");
	small = gpu_alloc(64 * KiB);
	big = gpu_alloc(2 * MiB);
	big2 = gpu_alloc(3 * MiB);
	HF_CHECK_MSG(((uintptr_t)big & (2 * MiB - 1)) == 0, "big at %p", big);
	HF_CHECK_MSG(((uintptr_t)big2 & (2 * MiB - 1)) == 0, "big2 at %p",
		     big2);
	fill = gpu_alloc(64 * KiB);
	HF_CHECK_MSG(fill == small + 64 * KiB, "fill %p, small %p", fill,
		     small);
	gpu_free(fill);
	gpu_free(big2);
	gpu_free(big);
	gpu_free(small);
}

/* Tegra (cudaHostAlloc()-like memory) needs no more than 4 KiB pages. */
HF_TEST(alloc_on_tegra_is_not_padded_to_2mib)
{
	char *small, *big;

	USE_GPU("emu-tegra");
	small = gpu_alloc(4 * KiB);
	big = gpu_alloc(2 * MiB);
	HF_CHECK_MSG(big == small + 4 * KiB, "big %p, small %p", big, small);
	gpu_free(big);
	gpu_free(small);
}

HF_TEST(query_rejects_range_past_allocation_end)
{
	struct hf_gpu_buf b;
	char why[256];
	char *p;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	HF_CHECK_ERR(hf_gpu_query(p + 64 * KiB, 4096, &b, why, sizeof(why)),
		     -EINVAL);
	HF_CHECK_MSG(strstr(why, "not GPU memory"), "why: %s", why);
	HF_CHECK_ERR(hf_gpu_query(p, 128 * KiB, &b, why, sizeof(why)),
		     -EINVAL);
	HF_CHECK_MSG(strstr(why, "past the end"), "why: %s", why);
	gpu_free(p);
}

HF_TEST(query_bad_args)
{
	struct hf_gpu_buf b;
	char why[256];
	char *p;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	HF_CHECK_ERR(hf_gpu_query(NULL, 4096, &b, why, sizeof(why)), -EINVAL);
	HF_CHECK_ERR(hf_gpu_query(p, 0, &b, why, sizeof(why)), -EINVAL);
	HF_CHECK(strstr(why, "size is 0"));
	HF_CHECK_ERR(hf_gpu_query(p, SIZE_MAX, &b, why, sizeof(why)),
		     -EINVAL);
	HF_CHECK(strstr(why, "overflows"));
	/* no why buffer is fine */
	HF_CHECK_ERR(hf_gpu_query(p, 4096, NULL, NULL, 0), 0);
	gpu_free(p);
}

HF_TEST(tegra_query_accepts_its_memory_and_rejects_malloc)
{
	struct hf_gpu_buf b;
	char why[256];
	void *p, *host;

	USE_GPU("emu-tegra");
	p = gpu_alloc(16 * KiB);
	HF_CHECK_ERR(hf_gpu_query(p, 16 * KiB, &b, why, sizeof(why)), 0);
	HF_CHECK(!b.device_memory);
	HF_CHECK_EQ(b.alloc_base, (uintptr_t)p);
	HF_CHECK(posix_memalign(&host, 4096, 16 * KiB) == 0);
	HF_CHECK_ERR(hf_gpu_query(host, 16 * KiB, &b, why, sizeof(why)),
		     -EINVAL);
	HF_CHECK_MSG(strstr(why, "not GPU memory") && strstr(why, "Tegra"),
		     "why: %s", why);
	free(host);
	gpu_free(p);
}

HF_TEST(tegra_memory_is_usable_by_the_cpu_path)
{
	void *p;

	USE_GPU("emu-tegra");
	p = gpu_alloc(16 * KiB);
	/* pinned host memory: not refused as device memory */
	HF_CHECK(!hf_gpu_is_device_ptr(p));
	gpu_free(p);
}

HF_TEST(sync_memops_on_gpu_memory_only)
{
	static char host[4096];
	void *p;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	HF_CHECK_ERR(hf_gpu_set_sync_memops(p), 0);
	HF_CHECK_ERR(hf_gpu_set_sync_memops(host), -EINVAL);
	gpu_free(p);
}

/* ---- buffer ids ---- */

static uint64_t buffer_id(const void *p)
{
	struct hf_gpu_buf b;
	char why[256];

	HF_CHECK_ERR(hf_gpu_query(p, 1, &b, why, sizeof(why)), 0);
	return b.buffer_id;
}

HF_TEST(check_after_free_is_enxio)
{
	uint64_t id;
	void *p;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	id = buffer_id(p);
	HF_CHECK_ERR(hf_gpu_check(p, id), 0);
	HF_CHECK_ERR(hf_gpu_check((char *)p + 4096, id), 0);
	gpu_free(p);
	HF_CHECK_ERR(hf_gpu_check(p, id), -ENXIO);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "was freed"));
}

HF_TEST(check_after_free_and_realloc_at_same_address_is_enxio)
{
	uint64_t id, id2;
	void *p, *q;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	id = buffer_id(p);
	gpu_free(p);
	q = gpu_alloc(64 * KiB);
	HF_CHECK(q == p);	/* first fit hands the address out again */
	id2 = buffer_id(q);
	HF_CHECK(id2 != id);
	HF_CHECK_ERR(hf_gpu_check(p, id), -ENXIO);
	HF_CHECK(strstr(HelloFPGA_GetLastError(NULL), "newer allocation"));
	HF_CHECK_ERR(hf_gpu_check(q, id2), 0);
	gpu_free(q);
}

/* ---- revocation ---- */

struct revoke_probe {
	char *mem;		/* watched memory, pattern at [0, 4096) */
	int calls;
	bool was_readable;
	bool pattern_intact;
	int sleep_ms;
	volatile int started;
	volatile int finished;
	long self_id;		/* unwatch this from inside the callback */
};

static void probe_revoke(void *arg)
{
	struct revoke_probe *r = arg;

	__atomic_store_n(&r->started, 1, __ATOMIC_SEQ_CST);
	r->calls++;
	r->was_readable = readable(r->mem);
	r->pattern_intact = t_check(r->mem, 4096, 9) < 0;
	if (r->self_id)
		hf_gpu_unwatch(r->self_id);
	if (r->sleep_ms) {
		struct timespec ts = { 0, r->sleep_ms * 1000000L };

		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&r->finished, 1, __ATOMIC_SEQ_CST);
}

HF_TEST(watch_fires_on_free_before_unmap)
{
	struct revoke_probe r = { 0 };
	long id;

	USE_GPU("emu");
	r.mem = gpu_alloc(64 * KiB);
	t_fill(r.mem, 4096, 9);
	id = hf_gpu_watch(r.mem + 8192, probe_revoke, &r);
	HF_CHECK(id > 0);
	gpu_free(r.mem);
	HF_CHECK_EQ(r.calls, 1);
	HF_CHECK(r.was_readable);
	HF_CHECK(r.pattern_intact);
	HF_CHECK(!readable(r.mem));
	hf_gpu_unwatch(id);	/* already fired: a no-op */
}

HF_TEST(watch_every_watcher_fires_once)
{
	struct revoke_probe r1 = { 0 }, r2 = { 0 };
	char *p;

	USE_GPU("emu");
	p = gpu_alloc(64 * KiB);
	t_fill(p, 4096, 9);
	r1.mem = r2.mem = p;
	HF_CHECK(hf_gpu_watch(p, probe_revoke, &r1) > 0);
	HF_CHECK(hf_gpu_watch(p, probe_revoke, &r2) > 0);
	gpu_free(p);
	HF_CHECK_EQ(r1.calls, 1);
	HF_CHECK_EQ(r2.calls, 1);
}

HF_TEST(unwatch_prevents_callback)
{
	struct revoke_probe r = { 0 };
	long id;

	USE_GPU("emu");
	r.mem = gpu_alloc(64 * KiB);
	id = hf_gpu_watch(r.mem, probe_revoke, &r);
	HF_CHECK(id > 0);
	hf_gpu_unwatch(id);
	gpu_free(r.mem);
	HF_CHECK_EQ(r.calls, 0);
}

HF_TEST(unwatch_from_inside_its_callback_returns)
{
	struct revoke_probe r = { 0 };

	USE_GPU("emu");
	r.mem = gpu_alloc(64 * KiB);
	t_fill(r.mem, 4096, 9);
	r.self_id = hf_gpu_watch(r.mem, probe_revoke, &r);
	HF_CHECK(r.self_id > 0);
	gpu_free(r.mem);
	HF_CHECK_EQ(r.calls, 1);
	HF_CHECK(r.finished);
}

static void *free_thread(void *arg)
{
	return (void *)(intptr_t)HelloFPGA_GPU_Free(arg);
}

HF_TEST(unwatch_waits_for_running_callback)
{
	struct revoke_probe r = { .sleep_ms = 200 };
	pthread_t t;
	void *ret;
	long id;

	USE_GPU("emu");
	r.mem = gpu_alloc(64 * KiB);
	id = hf_gpu_watch(r.mem, probe_revoke, &r);
	HF_CHECK(id > 0);
	HF_CHECK(pthread_create(&t, NULL, free_thread, r.mem) == 0);
	while (!__atomic_load_n(&r.started, __ATOMIC_SEQ_CST))
		sched_yield();
	hf_gpu_unwatch(id);
	HF_CHECK(__atomic_load_n(&r.finished, __ATOMIC_SEQ_CST));
	HF_CHECK(pthread_join(t, &ret) == 0);
	HF_CHECK_EQ((intptr_t)ret, 0);
}

HF_TEST(watch_bad_args)
{
	static char host[4096];
	struct revoke_probe r = { 0 };
	void *p;

	USE_GPU("emu");
	HF_CHECK_ERR(hf_gpu_watch(host, probe_revoke, &r), -EINVAL);
	p = gpu_alloc(64 * KiB);
	HF_CHECK_ERR(hf_gpu_watch(p, NULL, &r), -EINVAL);
	hf_gpu_unwatch(0);
	hf_gpu_unwatch(-5);
	hf_gpu_unwatch(123456);
	gpu_free(p);
	HF_CHECK_EQ(r.calls, 0);
}

/* ---- the emulated card's copy path ---- */

HF_TEST(emu_copies_and_host_registration)
{
	char src[256], dst[256];
	char *g;

	USE_GPU("emu");
	g = gpu_alloc(64 * KiB);
	t_fill(src, sizeof(src), 5);
	HF_CHECK_ERR(hf_gpu_register_host(src, sizeof(src)), 0);
	HF_CHECK_ERR(hf_gpu_copy_to_gpu(g + 10, src, sizeof(src)), 0);
	HF_CHECK_ERR(hf_gpu_copy_from_gpu(dst, g + 10, sizeof(dst)), 0);
	HF_CHECK(t_check(dst, sizeof(dst), 5) < 0);
	HF_CHECK_ERR(hf_gpu_copy_to_gpu(g, src, 0), 0);
	hf_gpu_unregister_host(src);
	/* desktop device memory: the CPU path must refuse it, as on hardware */
	HF_CHECK(hf_gpu_is_device_ptr(g));
	gpu_free(g);
}

HF_TEST(none_refuses_every_gpu_operation)
{
	struct hf_gpu_buf b;
	char host[64] = "", why[256];

	USE_GPU("none");
	HF_CHECK_ERR(hf_gpu_query(host, 64, &b, why, sizeof(why)), -ENODEV);
	HF_CHECK(strstr(why, "no GPU"));
	HF_CHECK_ERR(hf_gpu_check(host, 1), -ENODEV);
	HF_CHECK_ERR(hf_gpu_watch(host, probe_revoke, NULL), -ENODEV);
	HF_CHECK_ERR(hf_gpu_copy_to_gpu(host, host, 64), -ENODEV);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(host, host, 64,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), -ENODEV);
	HF_CHECK_ERR(hf_gpu_register_host(host, sizeof(host)), 0);
	HF_CHECK(!hf_gpu_is_device_ptr(host));
}

HF_TEST(is_device_ptr_does_not_detect_without_cuda_loaded)
{
	char host[64];

	if (cuda_loadable())
		HF_SKIP("libcuda.so.1 is on this machine");
	/* no USE_GPU: the CPU path asks before any GPU call */
	if (hf_gpu_peek())
		HF_SKIP("GPU already detected in this process");
	HF_CHECK(!hf_gpu_is_device_ptr(host));
	HF_CHECK(hf_gpu_peek() == NULL);
}

/* ---- a real GPU (skipped without CUDA) ---- */

static void need_cuda(void)
{
	if (hf_gpu_get()->kind != HF_GPU_CUDA)
		HF_SKIP("no CUDA GPU: %s", hf_gpu_get()->status.reason);
}

HF_TEST(cuda_alloc_memcpy_round_trip)
{
	size_t n = 3 * MiB + 5;
	char *host, *back;
	void *g;

	USE_GPU("cuda");
	need_cuda();
	host = malloc(n);
	back = calloc(1, n);
	HF_CHECK(host && back);
	g = gpu_alloc(n);
	HF_CHECK(((uintptr_t)g & (hf_gpu_get()->status.page_size - 1)) == 0);
	t_fill(host, n, 11);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(g, host, n,
					  HELLOFPGA_MEMCPY_HOST_TO_GPU), 0);
	HF_CHECK_ERR(HelloFPGA_GPU_Memcpy(back, g, n,
					  HELLOFPGA_MEMCPY_GPU_TO_HOST), 0);
	HF_CHECK(t_check(back, n, 11) < 0);
	gpu_free(g);
	free(host);
	free(back);
}

HF_TEST(cuda_small_allocs_are_page_aligned)
{
	void *p[8];

	USE_GPU("cuda");
	need_cuda();
	for (int i = 0; i < 8; i++) {
		p[i] = gpu_alloc(1000);
		HF_CHECK(((uintptr_t)p[i] &
			  (hf_gpu_get()->status.page_size - 1)) == 0);
	}
	for (int i = 0; i < 8; i++)
		gpu_free(p[i]);
}

/*
 * With CUDA's small-allocation pool fragmented (512-byte blocks taken
 * around them), both tries of cu_alloc() may come back unaligned: the
 * memory handed out must still be memory CUDA knows, and free cleanly.
 */
HF_TEST(cuda_page_allocs_in_a_fragmented_pool_are_live)
{
	typedef int (*mem_alloc_fn)(unsigned long long *, size_t);
	typedef int (*mem_free_fn)(unsigned long long);
	unsigned long long frag[64];
	struct hf_gpu_buf b;
	mem_alloc_fn ma;
	mem_free_fn mf;
	char why[256];
	void *h, *p;

	USE_GPU("cuda");
	need_cuda();
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	HF_CHECK(h != NULL);
	ma = (mem_alloc_fn)dlsym(h, "cuMemAlloc_v2");
	mf = (mem_free_fn)dlsym(h, "cuMemFree_v2");
	HF_CHECK(ma && mf);
	gpu_free(gpu_alloc(64 * KiB));	/* the library's context current */
	for (int i = 0; i < 64; i++) {
		HF_CHECK(ma(&frag[i], 512) == 0);
		p = gpu_alloc(64 * KiB);
		HF_CHECK_MSG(hf_gpu_query(p, 64 * KiB, &b, why,
					  sizeof(why)) == 0,
			     "try %d, %p: %s", i, p, why);
		gpu_free(p);
	}
	for (int i = 0; i < 64; i++)
		mf(frag[i]);
	dlclose(h);
}

HF_TEST(cuda_query_check_and_free)
{
	const HELLOFPGA_GPU_STATUS *s;
	struct hf_gpu_buf b;
	char why[256];
	uint64_t id;
	char *g;

	USE_GPU("cuda");
	need_cuda();
	s = &hf_gpu_get()->status;
	g = gpu_alloc(1 * MiB);
	HF_CHECK_MSG(hf_gpu_query(g + 4096, 64 * KiB, &b, why,
				  sizeof(why)) == 0, "why: %s", why);
	HF_CHECK(b.alloc_base <= (uintptr_t)g);
	HF_CHECK(b.alloc_base + b.alloc_size >= (uintptr_t)g + 1 * MiB);
	HF_CHECK_EQ(b.device_memory,
		    s->platform == HELLOFPGA_PLATFORM_DESKTOP);
	id = b.buffer_id;
	HF_CHECK(id != 0);
	HF_CHECK_ERR(hf_gpu_query(g, 4 * MiB, &b, why, sizeof(why)), -EINVAL);
	hf_test_log("past the end: %s", why);
	HF_CHECK_ERR(hf_gpu_set_sync_memops(g), 0);
	HF_CHECK_ERR(hf_gpu_check(g, id), 0);
	HF_CHECK_ERR(hf_gpu_watch(g, probe_revoke, NULL), -EOPNOTSUPP);
	if (s->platform == HELLOFPGA_PLATFORM_DESKTOP)
		HF_CHECK(hf_gpu_is_device_ptr(g));
	gpu_free(g);
	HF_CHECK_ERR(hf_gpu_check(g, id), -ENXIO);
	hf_test_log("after free: %s", HelloFPGA_GetLastError(NULL));
}

HF_TEST(cuda_rejects_host_memory)
{
	struct hf_gpu_buf b;
	char why[256];
	void *host;

	USE_GPU("cuda");
	need_cuda();
	HF_CHECK(posix_memalign(&host, 64 * KiB, 1 * MiB) == 0);
	HF_CHECK(!hf_gpu_is_device_ptr(host));
	HF_CHECK_ERR(hf_gpu_query(host, 64 * KiB, &b, why, sizeof(why)),
		     -EINVAL);
	hf_test_log("pageable: %s", why);
	if (hf_gpu_get()->status.platform == HELLOFPGA_PLATFORM_DESKTOP) {
		/* registered (pinned) host memory: still not device memory */
		HF_CHECK_ERR(hf_gpu_register_host(host, 1 * MiB), 0);
		HF_CHECK_ERR(hf_gpu_query(host, 64 * KiB, &b, why,
					  sizeof(why)), -EINVAL);
		HF_CHECK_MSG(strstr(why, "host memory"), "why: %s", why);
		hf_gpu_unregister_host(host);
	}
	free(host);
}

struct copy_job {
	char *gpu;
	char *host;
	size_t n;
	int ret[2];
};

static void *copy_thread(void *arg)
{
	struct copy_job *j = arg;

	j->ret[0] = hf_gpu_copy_to_gpu(j->gpu, j->host, j->n);
	memset(j->host, 0, j->n);
	j->ret[1] = hf_gpu_copy_from_gpu(j->host, j->gpu, j->n);
	return NULL;
}

/* Engine copies from a thread without a CUDA context, pageable and pinned. */
HF_TEST(cuda_engine_copies_from_another_thread)
{
	struct copy_job j = { .n = 1 * MiB + 4096 };
	pthread_t t;

	USE_GPU("cuda");
	need_cuda();
	j.gpu = gpu_alloc(2 * MiB);
	j.host = malloc(j.n);
	HF_CHECK(j.host);
	for (int pinned = 0; pinned < 2; pinned++) {
		if (pinned)
			HF_CHECK_ERR(hf_gpu_register_host(j.host, j.n), 0);
		t_fill(j.host, j.n, 21 + pinned);
		HF_CHECK(pthread_create(&t, NULL, copy_thread, &j) == 0);
		HF_CHECK(pthread_join(t, NULL) == 0);
		HF_CHECK_ERR(j.ret[0], 0);
		HF_CHECK_ERR(j.ret[1], 0);
		HF_CHECK(t_check(j.host, j.n, 21 + pinned) < 0);
	}
	hf_gpu_unregister_host(j.host);
	free(j.host);
	gpu_free(j.gpu);
}
