// SPDX-License-Identifier: MIT
/*
 * user_pages.c - is a caller's buffer there?  Every page of a transfer's
 * host buffer must be mapped, readable for H2C and writable for C2H, as
 * the kernel driver's pinning requires; both backends check it before a
 * byte moves (-EFAULT).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hf_dev.h"
#include "hf_error.h"
#include "hf_user_pages.h"

#define HF_PAGE		4096u

/**
 * struct hf_vma_query - the PROCMAP_QUERY ioctl of /proc/PID/maps (Linux
 * 6.11, struct procmap_query of <linux/fs.h>): the mapping that holds an
 * address, with its permissions.  Spelled out here for older headers.
 */
struct hf_vma_query {
	u64 size;
	u64 query_flags;
	u64 query_addr;
	u64 vma_start;
	u64 vma_end;
	u64 vma_flags;
	u64 vma_page_size;
	u64 vma_offset;
	u64 inode;
	u32 dev_major;
	u32 dev_minor;
	u32 vma_name_size;
	u32 build_id_size;
	u64 vma_name_addr;
	u64 build_id_addr;
};

#define HF_PROCMAP_QUERY	_IOWR('f', 17, struct hf_vma_query)
#define HF_VMA_READABLE	0x01
#define HF_VMA_WRITABLE	0x02

_Static_assert(sizeof(struct hf_vma_query) == 104,
	       "struct procmap_query is 104 bytes");

/* Check buffers with MADV_POPULATE_* even with PROCMAP_QUERY; set by the
 * test hook hf_test_probe_populate() (test_hooks.c). */
bool hf_probe_no_query;

/* Whether madvise() knows MADV_POPULATE_* (Linux 5.14): 0 unknown, 1, -1. */
static int populate_ok;

bool hf_populate_supported(void)
{
	int ok = __atomic_load_n(&populate_ok, __ATOMIC_RELAXED);

	if (!ok) {
		/* the page of a variable of ours: mapped and readable */
		void *page = (void *)ALIGN_DOWN((uintptr_t)&populate_ok,
						HF_PAGE);

		ok = madvise(page, HF_PAGE, MADV_POPULATE_READ) ? -1 : 1;
		__atomic_store_n(&populate_ok, ok, __ATOMIC_RELAXED);
	}
	return ok > 0;
}

#define MAPS_UNOPENED	-2

static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;
/* /proc/self/maps, -1 when unusable, MAPS_UNOPENED before the first use */
static int maps_fd_cur = MAPS_UNOPENED;

static void maps_prepare(void)
{
	pthread_mutex_lock(&maps_lock);
}

static void maps_parent(void)
{
	pthread_mutex_unlock(&maps_lock);
}

/* The file is of the process that opened it: a child opens its own. */
static void maps_child(void)
{
	if (maps_fd_cur >= 0)
		close(maps_fd_cur);
	maps_fd_cur = MAPS_UNOPENED;
	pthread_mutex_unlock(&maps_lock);
}

static void maps_init(void)
{
	pthread_atfork(maps_prepare, maps_parent, maps_child);
}

/*
 * /proc/self/maps of this process, for PROCMAP_QUERY; -1 when the kernel
 * (or the lack of /proc) offers none.  Opened on first use, and again in a
 * forked child (a fork handler forgets the parent's), so that after the
 * first call this costs one atomic load and no system call.
 */
static int maps_fd(void)
{
	int fd = __atomic_load_n(&maps_fd_cur, __ATOMIC_ACQUIRE);

	if (fd != MAPS_UNOPENED)
		return fd;
	pthread_once(&maps_once, maps_init);
	pthread_mutex_lock(&maps_lock);
	fd = maps_fd_cur;
	if (fd == MAPS_UNOPENED) {
		struct hf_vma_query q = {
			.size = sizeof(q),
			.query_addr = (uintptr_t)&hf_probe_no_query,
		};

		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && ioctl(fd, HF_PROCMAP_QUERY, &q)) {
			close(fd);
			fd = -1;
		}
		__atomic_store_n(&maps_fd_cur, fd < 0 ? -1 : fd,
				 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&maps_lock);
	return fd < 0 ? -1 : fd;
}

/*
 * Every mapping of [@a, @end) has permissions @need (HF_VMA_*): one
 * PROCMAP_QUERY per mapping.  Return: 0, -EFAULT with *@bad set, or
 * another negative errno when the query itself failed.
 */
static int vma_check(int fd, uintptr_t a, uintptr_t end, u64 need,
		     uintptr_t *bad)
{
	while (a < end) {
		struct hf_vma_query q = { .size = sizeof(q), .query_addr = a };

		if (ioctl(fd, HF_PROCMAP_QUERY, &q))
			return errno == ENOENT ? (*bad = a, -EFAULT) : -errno;
		if ((q.vma_flags & need) != need) {
			*bad = a;
			return -EFAULT;
		}
		a = q.vma_end;
	}
	return 0;
}

/**
 * hf_user_buf_check() - check a caller's buffer the way pinning its pages
 * (get_user_pages() in the kernel driver) would: every page mapped, and
 * readable for H2C, writable for C2H.
 * @dev: the handle, for the error text
 * @dir: the transfer's direction
 * @buf: first byte
 * @len: bytes, > 0 (the range does not wrap: api.c checked)
 *
 * Both backends check before a byte moves.  The emulated engine (and the
 * bounce path) reach the buffer with the CPU, where a bad pointer is
 * SIGSEGV, in an engine thread; the kernel driver pins and moves a buffer
 * 1024 pages at a time, so a bad page deep inside it would fail the call
 * only after the pieces before it reached the card.  The kernel looks
 * instead: PROCMAP_QUERY (Linux 6.11) gives each mapping of the range with
 * its permissions, one ioctl per mapping; without it, MADV_POPULATE_READ or
 * _WRITE (Linux 5.14) faults the pages in as the engine's access would,
 * failing where that access would fault (it costs about one page-table
 * walk per page, like the driver's pinning).  So unmapped, PROT_NONE and
 * (C2H) read-only pages are -EFAULT, as from the kernel driver.  Older
 * kernels leave buffers unchecked.  Like the driver's pins this holds at
 * submission: a buffer unmapped during its own transfer is the caller's
 * bug.
 *
 * Return: 0, or -EFAULT with the error text set.
 */
int hf_user_buf_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir, void *buf,
		      size_t len)
{
	uintptr_t a = (uintptr_t)buf, end = a + len, bad = a;
	bool c2h = dir == XDMA_C2H;
	int fd, ret = -ENOTTY;

	fd = __atomic_load_n(&hf_probe_no_query, __ATOMIC_RELAXED) ? -1 :
	     maps_fd();
	if (fd >= 0)
		ret = vma_check(fd, a, end, c2h ? HF_VMA_WRITABLE :
					       HF_VMA_READABLE, &bad);
	if (ret && ret != -EFAULT && hf_populate_supported()) {
		uintptr_t s = ALIGN_DOWN(a, HF_PAGE), e = ALIGN(end, HF_PAGE);

		do {
			ret = madvise((void *)s, e - s, c2h ?
				      MADV_POPULATE_WRITE :
				      MADV_POPULATE_READ) ? -errno : 0;
		} while (ret == -EINTR || ret == -EAGAIN);
		if (ret)
			ret = -EFAULT;
	}
	if (ret != -EFAULT)
		return 0;
	return hf_set_error(dev, -EFAULT,
			    "%s: buffer %p + %zu is not all mapped %s by this process (first bad address about %p)",
			    hf_dir_name(dir), buf, len,
			    c2h ? "writable" : "readable", (void *)bad);
}
