// SPDX-License-Identifier: MIT
/*
 * hf_fuzz - a bounded random fuzzer of hellofpga.ko's nodes and ioctls.
 *
 *   hf_fuzz [-s SECONDS] [-S SEED] [-t THREADS] CARD...    (CARD: /dev/hellofpgaN)
 *
 * Prints "seed N" first: -S N replays the same sequence of calls in each
 * thread (with -t 1 exactly; with more threads their interleaving
 * differs).  For SECONDS (default 20) THREADS threads (default 4) make
 * random calls on every node of every CARD (_control, _user, _h2c_C,
 * _c2h_C, _events_U), on files of their own (opened, closed and opened
 * again with random flags) and on files all threads share:
 *
 *   ioctls    every command of include/uapi/hellofpga.h and of
 *             hellofpga_xdma.h, on every node, with valid structures,
 *             structures with random fields, and bad pointers (NULL,
 *             unmapped, read-only, PROT_NONE, kernel addresses); random
 *             command numbers (magics 0xb6, 'q' and others that the VFS
 *             does not take itself)
 *   pins      PIN of random ranges of the threads' own memory (anonymous,
 *             memfd, read-only, unmapped later while pinned), of bad
 *             ranges, dma-buf with fds that are none; UNPIN of handles that
 *             exist, that other threads hold, and random ones
 *   XFER      over those handles, random ranges, directions, channels,
 *             timeouts (down to 1 ms), card addresses in the first 64 MiB,
 *             at the end of card memory and random
 *   nodes     read/write/pread/pwrite (random sizes up to 1 MiB, random
 *             offsets, bad buffers), lseek (every whence), mmap (random
 *             offsets, lengths, protections, MAP_SHARED/PRIVATE; mappings
 *             of the user BAR are read, and written in its RAM), poll,
 *             user interrupts raised through the user BAR
 *
 * It never touches what would change the card for later tests: the guest
 * fault window (user BAR 0xf000..0xf0ff) is neither written nor mapped
 * writable, and raw DMA/config register access is refused by the driver
 * because hf_fuzz must run without CAP_SYS_RAWIO (it checks, and stops
 * otherwise): root without capabilities through hf_runas, so that pins
 * count against RLIMIT_MEMLOCK (hf_runas -m).  Events nodes are read only
 * when opened O_NONBLOCK.
 *
 * Checks:
 *   - every call returns 0 (or a count) or -1 with an errno of its set
 *     (allowed[] below, by operation; ENOMEM is allowed everywhere): what
 *     the driver documents (docs/security.md, the uapi headers) and what
 *     the VFS returns before the driver is asked (EBADF for a file not
 *     open for it, EINVAL/EOVERFLOW for bad positions, ENXIO for
 *     SEEK_DATA/SEEK_HOLE at the end); a card is never removed meanwhile,
 *     so ENODEV and EINTR are errors everywhere;
 *   - successful calls return what they promise (counts within the
 *     request, a PIN handle that is not 0, XFER bytes = length);
 *   - when every file is closed, GET_STATS of each card shows no pin and
 *     no pinned byte left, and a round trip on every channel still works;
 *   - no crash (the guest harness's dmesg scan, under slub_debug in the
 *     twocards configuration, must stay clean).
 *
 * Prints PASS/FAIL lines "fuzz/NAME"; exit status 1 when one failed.
 */
#define _GNU_SOURCE	/* memfd_create(), SEEK_DATA */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "hf_guest.h"
#include "uapi/hellofpga_xdma.h"

#define MAX_CARDS	4
#define MAX_NODES	(MAX_CARDS * 26)
#define MAX_THREADS	16
#define NREG		8		/* memory regions per thread */
#define NHANDLE		64		/* handles remembered per thread */
#define NSHARED		64		/* handles all threads see */
#define MAX_IO		(1u << 20)
#define CARD_WIN	(64ull << 20)	/* card addresses mostly below this */
#define USER_SAFE	0xf000u		/* user BAR writes stay below */
#define NBAD		8

enum node_type { N_CONTROL, N_USER, N_H2C, N_C2H, N_EVENTS };

struct node {
	char path[64];
	enum node_type type;
	int card;		/* index into cards[] */
	int shared_fd;		/* opened O_RDWR (events: O_RDONLY|O_NONBLOCK) */
};

struct card {
	const char *prefix;
	struct hellofpga_info info;
};

static struct node nodes[MAX_NODES];
static int nnodes;
static struct card cards[MAX_CARDS];
static int ncards;
static atomic_int stop;
static uint64_t seed;
static double secs = 20;
static int nthreads = 4;

/* handles every thread may use (and UNPIN): fd << 32 | handle */
static _Atomic uint64_t shared_handles[NSHARED];

/* ------------------------------------------------------- errno checks -- */

enum op {
	OP_INFO, OP_STATS, OP_LASTERR, OP_PIN, OP_UNPIN, OP_XFER, OP_APERTURE,
	OP_ALIGN, OP_ADDRMODE_GET, OP_ADDRMODE_SET, OP_RANDOM_IOCTL,
	OP_RW_DMA, OP_RW_USER, OP_RW_CONTROL, OP_READ_EVENTS, OP_WRITE_EVENTS,
	OP_LSEEK, OP_MMAP, OP_POLL, OP_OPEN, OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
	"GET_INFO", "GET_STATS", "LAST_ERROR", "PIN", "UNPIN", "XFER",
	"APERTURE", "ALIGN_GET", "ADDRMODE_GET", "ADDRMODE_SET",
	"random-ioctl", "rw-h2c/c2h", "rw-user", "rw-control", "read-events",
	"write-events", "lseek", "mmap", "poll", "open",
};

/*
 * The errnos each operation may fail with (ENOMEM: all of them).  ENOTTY:
 * a command the node does not take; EBADF: PIN/XFER/UNPIN on a control
 * file not open for writing, aperture against the open mode, read/write
 * against it (VFS); EFAULT: bad pointers; EINVAL: bad fields, flags,
 * reserved words, sizes, alignments, positions; the rest as documented:
 *   PIN        ENOSPC (max_pins), EOPNOTSUPP (no provider of the type)
 *   XFER       ENOENT (no such handle), ECHRNG (channel), EOVERFLOW
 *              (card address wraps), ERANGE (past ddr_size), EIO (the
 *              card's own memory is smaller than ddr_size: decode error),
 *              ETIMEDOUT (short timeouts), EBUSY (the channel stayed in
 *              use by another thread for the whole timeout), ECANCELED
 *              (UNPIN or close by another thread during the run)
 *   UNPIN      ENOENT
 *   APERTURE   EOVERFLOW, ERANGE, EIO, ETIMEDOUT, EBUSY
 *   ADDRMODE_SET EOPNOTSUPP (non-incremental)
 *   rw         ENOSPC (write past the end), EIO, ETIMEDOUT, EBUSY, EOVERFLOW
 *              (position + count wraps, VFS), EPERM (_control without
 *              CAP_SYS_RAWIO; EFAULT before it: the VFS checks the
 *              buffer first)
 *   events     EAGAIN (O_NONBLOCK, nothing pending)
 *   lseek      ENXIO (SEEK_DATA/SEEK_HOLE past the end), ESPIPE (events)
 *   mmap       EPERM (_control), ENODEV (nodes without a BAR), EACCES
 *              (PROT_WRITE on a file not open for writing), EOVERFLOW
 *              (offset + length wraps)
 */
static const int allowed[OP_COUNT][16] = {
	[OP_INFO] = { EFAULT, EINVAL },
	[OP_STATS] = { EFAULT, EINVAL },
	[OP_LASTERR] = { EFAULT, EINVAL },
	[OP_PIN] = { EFAULT, EINVAL, ENOSPC, EOPNOTSUPP, EBADF, ENOTTY },
	[OP_UNPIN] = { EFAULT, EINVAL, ENOENT, EBADF, ENOTTY },
	[OP_XFER] = { EFAULT, EINVAL, ENOENT, ECHRNG, EOVERFLOW, ERANGE, EIO,
		       ETIMEDOUT, EBUSY, ECANCELED, EBADF, ENOTTY },
	[OP_APERTURE] = { EFAULT, EINVAL, EBADF, EOVERFLOW, ERANGE, EIO,
			   ETIMEDOUT, EBUSY, ENOTTY },
	[OP_ALIGN] = { EFAULT, ENOTTY },
	[OP_ADDRMODE_GET] = { EFAULT, ENOTTY },
	[OP_ADDRMODE_SET] = { EFAULT, EINVAL, EOPNOTSUPP, ENOTTY },
	[OP_RANDOM_IOCTL] = { ENOTTY },
	[OP_RW_DMA] = { EFAULT, EINVAL, EIO, ETIMEDOUT, EBUSY, ENOSPC, EBADF,
			 EOVERFLOW },
	[OP_RW_USER] = { EFAULT, EINVAL, ENOSPC, EBADF, EOVERFLOW },
	[OP_RW_CONTROL] = { EPERM, EBADF, EINVAL, EOVERFLOW, EFAULT },
	[OP_READ_EVENTS] = { EAGAIN, EINVAL, EFAULT, EBADF },
	[OP_WRITE_EVENTS] = { EINVAL, EBADF, EFAULT },
	[OP_LSEEK] = { EINVAL, ENXIO, ESPIPE },
	[OP_MMAP] = { EINVAL, EPERM, ENODEV, EACCES, EOVERFLOW },
	[OP_POLL] = { 0 },		/* nothing */
	[OP_OPEN] = { 0 },
};

static atomic_long calls[OP_COUNT], fails[OP_COUNT], bad_total;
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;
static char bad_text[NBAD][300];
static int nbad_text;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void bad(const char *fmt, ...)
{
	va_list ap;
	char t[300];

	va_start(ap, fmt);
	vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	atomic_fetch_add(&bad_total, 1);
	pthread_mutex_lock(&bad_lock);
	if (nbad_text < NBAD)
		snprintf(bad_text[nbad_text++], sizeof(bad_text[0]), "%s", t);
	if (atomic_load(&bad_total) <= 20) {
		printf("# bad: %s\n", t);
		fflush(stdout);
	}
	pthread_mutex_unlock(&bad_lock);
}

/*
 * check OP RET NODE WHAT: a call's outcome against its set; called with
 * the call as its RET argument, so errno is still the call's
 */
static void check(enum op op, long ret, const struct node *n,
		  const char *what)
{
	int err = errno;

	atomic_fetch_add(&calls[op], 1);
	if (ret >= 0)
		return;
	atomic_fetch_add(&fails[op], 1);
	if (ret != -1) {
		bad("%s on %s returned %ld (%s)", op_name[op],
		    n ? n->path : "-", ret, what);
		return;
	}
	if (err == ENOMEM)
		return;
	for (int i = 0; allowed[op][i]; i++)
		if (allowed[op][i] == err)
			return;
	bad("%s on %s: errno %d %s (%s)", op_name[op], n ? n->path : "-",
	    err, strerror(err), what);
}

/* ------------------------------------------------------------- random -- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ull;
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

/* a length: 0, small, page multiples, up to MAX_IO, sometimes odd */
static uint64_t rnd_len(struct rng *r)
{
	switch (below(r, 6)) {
	case 0:
		return below(r, 16);
	case 1:
		return 4096 * (1 + below(r, 16));
	case 2:
		return 4 * below(r, MAX_IO / 4 + 1);
	case 3:
		return below(r, MAX_IO + 1);
	case 4:
		return 65536;
	default:
		return 1 + below(r, 4096);
	}
}

/* ------------------------------------------------------------- memory -- */

/* a region is followed by a PROT_NONE guard page: a range that runs past
 * its end faults there instead of reaching the fuzzer's own memory */
struct region {
	uint8_t *p;
	size_t len;
	bool ro, memfd;
};

struct worker {
	int id;
	struct rng r;
	struct region reg[NREG];
	int fds[MAX_NODES];		/* own files, -1 when closed */
	int flags[MAX_NODES];
	uint64_t handles[NHANDLE];	/* fd << 32 | handle */
	uint64_t sizes[NHANDLE];	/* bytes pinned under each */
	void *unmapped, *none, *ro_page;
	long ops;
};

static void region_map(struct worker *w, int i)
{
	struct region *g = &w->reg[i];
	static const size_t sizes[] = { 4096, 65536, 1 << 20, 4 << 20 };
	int fd = -1;

	g->len = sizes[below(&w->r, 4)];
	g->memfd = chance(&w->r, 30);
	g->ro = !g->memfd && chance(&w->r, 15);
	if (g->memfd) {
		fd = memfd_create("hf_fuzz", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, g->len)) {
			g->memfd = false;
			if (fd >= 0)
				close(fd);
			fd = -1;
		}
	}
	g->p = mmap(NULL, g->len + 4096, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->p != MAP_FAILED &&
	    mmap(g->p, g->len, g->ro ? PROT_READ : PROT_READ | PROT_WRITE,
		 (g->memfd ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS) |
		 MAP_FIXED | (chance(&w->r, 50) ? MAP_POPULATE : 0), fd,
		 0) == MAP_FAILED) {
		munmap(g->p, g->len + 4096);
		g->p = MAP_FAILED;
	}
	if (fd >= 0)
		close(fd);
	if (g->p == MAP_FAILED) {
		g->p = NULL;
		g->len = 0;
	}
}

static void region_unmap(struct region *g)
{
	if (g->p)
		munmap(g->p, g->len + 4096);
	g->p = NULL;
}

/*
 * A user pointer for @len bytes: mostly inside a region (a range past its
 * end reaches its guard page), sometimes bad: never the fuzzer's own
 * memory outside its regions (random pointers lie in the kernel half or
 * below mmap_min_addr), which the kernel would write into.
 */
static void *rnd_ptr(struct worker *w, size_t len, bool need_write)
{
	struct region *g = &w->reg[below(&w->r, NREG)];

	switch (below(&w->r, 20)) {
	case 0:
		return NULL;
	case 1:
		return w->unmapped;
	case 2:
		return w->none;
	case 3:
		return w->ro_page;
	case 4:
		return (void *)(uintptr_t)0xffff888000000000ull;
	case 5:
		return (void *)(uintptr_t)(chance(&w->r, 50) ?
					   rnd(&w->r) | 1ull << 63 :
					   below(&w->r, 65536));
	default:
		break;
	}
	if (!g->p || (need_write && g->ro && chance(&w->r, 80)))
		g = &w->reg[0];
	if (!g->p)
		return NULL;
	if (len >= g->len)
		return g->p;
	return g->p + below(&w->r, g->len - len + 1);
}

/* ---------------------------------------------------------------- fds -- */

static int pick_node(struct worker *w, enum node_type want, bool any)
{
	int i = below(&w->r, nnodes);

	for (int k = 0; !any && k < nnodes; k++, i = (i + 1) % nnodes)
		if (nodes[i].type == want)
			break;
	return i;
}

/* an open file of node @i: the shared one or the thread's own */
static int node_fd(struct worker *w, int i)
{
	if (chance(&w->r, 30) || w->fds[i] < 0)
		return nodes[i].shared_fd;
	return w->fds[i];
}

static void reopen(struct worker *w, int i)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	int fl = modes[below(&w->r, 3)] | (chance(&w->r, 30) ? O_NONBLOCK : 0);

	if (w->fds[i] >= 0) {
		/* handles of that file go with it */
		for (int k = 0; k < NHANDLE; k++)
			if ((int)(w->handles[k] >> 32) == w->fds[i])
				w->handles[k] = 0;
		close(w->fds[i]);
		w->fds[i] = -1;
	}
	if (nodes[i].type == N_EVENTS)
		fl |= O_NONBLOCK;	/* a blocking read could wait forever */
	w->fds[i] = open(nodes[i].path, fl | O_CLOEXEC);
	w->flags[i] = fl;
	check(OP_OPEN, w->fds[i] < 0 ? -1 : 0, &nodes[i], "open");
}

/* ------------------------------------------------------------- ioctls -- */

static void fill_random(struct worker *w, void *p, size_t len)
{
	uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = rnd(&w->r);
}

/* the argument: a good structure, or a bad pointer */
static void *arg_of(struct worker *w, void *good, size_t len)
{
	if (chance(&w->r, 85))
		return good;
	return rnd_ptr(w, len, true);
}

static void remember(struct worker *w, int fd, uint64_t handle,
		     uint64_t size)
{
	uint64_t v = (uint64_t)fd << 32 | (handle & 0xffffffffu);
	int k = below(&w->r, NHANDLE);

	w->handles[k] = v;
	w->sizes[k] = size;
	atomic_store(&shared_handles[below(&w->r, NSHARED)], v);
}

/* one of this thread's pins on @fd, or -1 */
static int own_pin(struct worker *w, int fd)
{
	int k = below(&w->r, NHANDLE);

	for (int i = 0; i < NHANDLE; i++, k = (k + 1) % NHANDLE)
		if (w->handles[k] && (int)(w->handles[k] >> 32) == fd)
			return k;
	return -1;
}

/* a handle to use on @fd: one of ours, one of anyone's, or random */
static uint64_t pick_handle(struct worker *w, int fd)
{
	uint64_t v;

	switch (below(&w->r, 6)) {
	case 0:
		return rnd(&w->r);
	case 1:
		return below(&w->r, 64);
	case 2:
		v = atomic_load(&shared_handles[below(&w->r, NSHARED)]);
		return v & 0xffffffffu;
	default:
		for (int k = 0; k < 8; k++) {
			v = w->handles[below(&w->r, NHANDLE)];
			if (v && (int)(v >> 32) == fd)
				return v & 0xffffffffu;
		}
		return below(&w->r, 16);
	}
}

static void do_info(struct worker *w, const struct node *n, int fd)
{
	struct hellofpga_info in;
	void *arg;
	long ret;

	memset(&in, 0, sizeof(in));
	if (chance(&w->r, 20))
		fill_random(w, &in, sizeof(in));
	arg = arg_of(w, &in, sizeof(in));
	ret = ioctl(fd, HELLOFPGA_IOC_GET_INFO, arg);
	check(OP_INFO, ret, n, "GET_INFO");
	if (!ret && arg == &in && (in.abi_major != HELLOFPGA_ABI_MAJOR ||
				   in.ddr_size != cards[n->card].info.ddr_size))
		bad("GET_INFO on %s: abi_major %u, ddr_size 0x%llx", n->path,
		    in.abi_major, (unsigned long long)in.ddr_size);
}

static void do_stats(struct worker *w, const struct node *n, int fd)
{
	struct hellofpga_stats st;

	memset(&st, 0, sizeof(st));
	if (chance(&w->r, 20))
		fill_random(w, &st, sizeof(st));
	check(OP_STATS, ioctl(fd, HELLOFPGA_IOC_GET_STATS,
			      arg_of(w, &st, sizeof(st))), n,
	      "GET_STATS");
}

static void do_lasterr(struct worker *w, const struct node *n, int fd)
{
	struct hellofpga_last_error le;

	memset(&le, 0, sizeof(le));
	if (chance(&w->r, 20))
		fill_random(w, &le, sizeof(le));
	check(OP_LASTERR, ioctl(fd, HELLOFPGA_IOC_LAST_ERROR,
				arg_of(w, &le, sizeof(le))), n,
	      "LAST_ERROR");
}

static void do_pin(struct worker *w, const struct node *n, int fd)
{
	struct hellofpga_pin p = { .type = HELLOFPGA_PIN_HOST, .fd = -1 };
	struct region *g = &w->reg[below(&w->r, NREG)];
	char what[128];
	void *arg;
	long ret;

	if (g->p && chance(&w->r, 80)) {
		uint64_t pages = g->len / 4096, first = below(&w->r, pages);

		p.addr = (uintptr_t)g->p + first * 4096;
		p.size = 4096 * (1 + below(&w->r, pages - first));
	} else {
		/* past a region's end: its guard page */
		p.addr = (uintptr_t)rnd_ptr(w, 4096, true);
		p.size = chance(&w->r, 50) ? 4096 : rnd(&w->r);
	}
	switch (below(&w->r, 12)) {
	case 0:
		fill_random(w, &p, sizeof(p));
		break;
	case 1:
		p.type = below(&w->r, 6);
		break;
	case 2:
		p.type = HELLOFPGA_PIN_DMABUF;
		p.fd = chance(&w->r, 50) ? fd : (int)below(&w->r, 64) - 2;
		break;
	case 3:
		p.flags = 1u << below(&w->r, 32);
		break;
	case 4:
		p.reserved[below(&w->r, 4)] = rnd(&w->r) | 1;
		break;
	case 5:
		p.addr += 1 + below(&w->r, 4095);
		break;
	case 6:
		p.size = below(&w->r, 2) ? 0 : p.size + 1 + below(&w->r, 4095);
		break;
	default:
		break;
	}
	snprintf(what, sizeof(what), "type %u addr 0x%llx size 0x%llx fd %d",
		 p.type, (unsigned long long)p.addr,
		 (unsigned long long)p.size, p.fd);
	arg = arg_of(w, &p, sizeof(p));
	ret = ioctl(fd, HELLOFPGA_IOC_PIN, arg);
	check(OP_PIN, ret, n, what);
	if (!ret && arg == &p) {
		if (!p.handle || !p.nsegs)
			bad("PIN on %s: handle %llu, %u segments (%s)", n->path,
			    (unsigned long long)p.handle, p.nsegs, what);
		remember(w, fd, p.handle, p.size);
	}
}

static void do_unpin(struct worker *w, const struct node *n, int fd)
{
	struct hellofpga_unpin u = { .handle = pick_handle(w, fd) };
	char what[64];

	if (chance(&w->r, 10))
		u.flags = 1;
	else if (chance(&w->r, 5))
		u.reserved[1] = 1;
	snprintf(what, sizeof(what), "handle %llu", (unsigned long long)u.handle);
	check(OP_UNPIN, ioctl(fd, HELLOFPGA_IOC_UNPIN, arg_of(w, &u, sizeof(u))), n, what);
}

static uint64_t rnd_card_addr(struct worker *w, const struct card *c,
			      uint64_t len)
{
	switch (below(&w->r, 8)) {
	case 0:
		return c->info.ddr_size - (len ? len : 1) + below(&w->r, 3) -
		       1;
	case 1:
		return rnd(&w->r);
	case 2:
		return c->info.ddr_size + below(&w->r, 8192);
	default:
		return below(&w->r, CARD_WIN);
	}
}

static void do_xfer(struct worker *w, const struct node *n, int fd)
{
	static const uint32_t tmo[] = { 0, 0, 1, 2, 5, 50, 1000 };
	const struct card *c = &cards[n->card];
	struct hellofpga_xfer x = { 0 };
	char what[160];
	void *arg;
	long ret;

	int k = chance(&w->r, 60) ? own_pin(w, fd) : -1;

	if (k >= 0) {
		/* a valid request over one of our pins */
		x.handle = w->handles[k] & 0xffffffffu;
		x.dir = below(&w->r, 2);
		x.channel = below(&w->r, x.dir ? c->info.num_c2h :
						  c->info.num_h2c);
		x.buf_offset = below(&w->r, w->sizes[k]);
		x.length = below(&w->r, w->sizes[k] - x.buf_offset + 1);
		x.card_addr = below(&w->r, CARD_WIN - x.length);
		x.timeout_ms = chance(&w->r, 80) ? 0 : tmo[below(&w->r, 7)];
	} else {
		x.handle = pick_handle(w, fd);
		x.dir = chance(&w->r, 95) ? below(&w->r, 2) : rnd(&w->r);
		x.channel = chance(&w->r, 90) ? below(&w->r, 4) : rnd(&w->r);
		x.length = rnd_len(&w->r);
		x.buf_offset = chance(&w->r, 80) ? 4096 * below(&w->r, 4) :
						   rnd(&w->r);
		x.card_addr = rnd_card_addr(w, c, x.length);
		x.timeout_ms = tmo[below(&w->r, 7)];
		if (chance(&w->r, 5))
			x.flags = 2;	/* none: 1 is HELLOFPGA_XFER_WB */
		else if (chance(&w->r, 5))
			x.reserved[below(&w->r, 2)] = 1;
	}
	snprintf(what, sizeof(what), "handle %llu dir %u ch %u off 0x%llx card 0x%llx len 0x%llx tmo %u",
		 (unsigned long long)x.handle, x.dir, x.channel,
		 (unsigned long long)x.buf_offset,
		 (unsigned long long)x.card_addr,
		 (unsigned long long)x.length, x.timeout_ms);
	arg = arg_of(w, &x, sizeof(x));
	ret = ioctl(fd, HELLOFPGA_IOC_XFER, arg);
	check(OP_XFER, ret, n, what);
	if (!ret && arg == &x && x.bytes != x.length)
		bad("XFER on %s: success with bytes %llu (%s)", n->path,
		    (unsigned long long)x.bytes, what);
	if (ret && arg == &x && x.bytes > x.length)
		bad("XFER on %s: bytes %llu > length (%s)", n->path,
		    (unsigned long long)x.bytes, what);
}

static void do_xilinx(struct worker *w, const struct node *n, int fd)
{
	struct hellofpga_xdma_aperture io = { 0 };
	const struct card *c = &cards[n->card];
	bool good = false;
	char what[128];
	int v = 0;
	long ret;

	switch (below(&w->r, 5)) {
	case 0:
	case 1:
		io.len = rnd_len(&w->r);
		io.buffer = (uintptr_t)rnd_ptr(w, io.len, true);
		io.aperture = chance(&w->r, 80) ? 4096 << below(&w->r, 6) :
						  rnd(&w->r);
		io.ep_addr = rnd_card_addr(w, c, io.len);
		if (chance(&w->r, 10))
			fill_random(w, &io, sizeof(io));
		good = (n->type == N_H2C || n->type == N_C2H) &&
		       chance(&w->r, 60);
		if (good) {
			/* a valid one: the node's direction, a buffer of ours */
			struct region *g = &w->reg[below(&w->r, NREG)];

			io.len = g->p && !g->ro ? below(&w->r, g->len + 1) : 0;
			io.buffer = (uintptr_t)g->p;
			io.ep_addr = below(&w->r, CARD_WIN - MAX_IO);
		}
		snprintf(what, sizeof(what), "ep 0x%llx aperture 0x%x len 0x%lx",
			 (unsigned long long)io.ep_addr, io.aperture,
			 (unsigned long)io.len);
		ret = ioctl(fd, (good ? n->type == N_H2C : chance(&w->r, 50)) ?
			    HELLOFPGA_XDMA_IOC_APERTURE_W :
			    HELLOFPGA_XDMA_IOC_APERTURE_R,
			    good ? (void *)&io : arg_of(w, &io, sizeof(io)));
		check(OP_APERTURE, ret, n, what);
		if (!ret && io.done > io.len)
			bad("APERTURE on %s: done %lu > len (%s)", n->path,
			    (unsigned long)io.done, what);
		break;
	case 2:
		check(OP_ALIGN, ioctl(fd, HELLOFPGA_XDMA_IOC_ALIGN_GET,
				      arg_of(w, &v, sizeof(v))), n,
		      "ALIGN_GET");
		break;
	case 3:
		check(OP_ADDRMODE_GET, ioctl(fd, HELLOFPGA_XDMA_IOC_ADDRMODE_GET,
					     arg_of(w, &v, sizeof(v))),
		      n, "ADDRMODE_GET");
		break;
	default:
		v = chance(&w->r, 50) ? 0 : (int)rnd(&w->r);
		check(OP_ADDRMODE_SET, ioctl(fd, HELLOFPGA_XDMA_IOC_ADDRMODE_SET,
					     arg_of(w, &v, sizeof(v))),
		      n, "ADDRMODE_SET");
		break;
	}
}

static bool known_cmd(unsigned long cmd)
{
	static const unsigned long known[] = {
		HELLOFPGA_IOC_GET_INFO, HELLOFPGA_IOC_PIN, HELLOFPGA_IOC_XFER,
		HELLOFPGA_IOC_UNPIN, HELLOFPGA_IOC_GET_STATS,
		HELLOFPGA_IOC_LAST_ERROR, HELLOFPGA_IOC_SET_TIMEOUT,
		/* the stream ioctls: commands of the driver, not random ones */
		HELLOFPGA_IOC_STREAM_START, HELLOFPGA_IOC_STREAM_WAIT,
		HELLOFPGA_IOC_STREAM_RELEASE, HELLOFPGA_IOC_STREAM_STOP,
		HELLOFPGA_IOC_STREAM_STATS,
		HELLOFPGA_XDMA_IOC_ADDRMODE_SET,
		HELLOFPGA_XDMA_IOC_ADDRMODE_GET, HELLOFPGA_XDMA_IOC_ALIGN_GET,
		HELLOFPGA_XDMA_IOC_APERTURE_R, HELLOFPGA_XDMA_IOC_APERTURE_W,
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == cmd)
			return true;
	return false;
}

static void do_random_ioctl(struct worker *w, const struct node *n, int fd)
{
	/* none of the types the VFS takes before the driver (0: FIBMAP,
	 * FIGETBSZ; 'T': FIOCLEX, FIONBIO...; 'X': FIFREEZE; 'f', 0x94) */
	static const uint8_t types[] = { HELLOFPGA_IOC_MAGIC,
					 HELLOFPGA_XDMA_IOC_MAGIC, 0xb7, 'Q',
					 'a', 0x42 };
	uint8_t type = types[below(&w->r, sizeof(types))];
	unsigned long cmd;
	char what[64];
	uint8_t buf[1024];

	cmd = _IOC(below(&w->r, 4), type, chance(&w->r, 50) ?
		   below(&w->r, 12) : below(&w->r, 256),
		   below(&w->r, sizeof(buf)));
	if (known_cmd(cmd))
		return;
	fill_random(w, buf, sizeof(buf));
	snprintf(what, sizeof(what), "cmd 0x%lx", cmd);
	check(OP_RANDOM_IOCTL, ioctl(fd, cmd, arg_of(w, buf, sizeof(buf))), n, what);
}

/* ---------------------------------------------------------- data path -- */

static int64_t rnd_pos(struct worker *w, const struct node *n, size_t len)
{
	const struct card *c = &cards[n->card];

	switch (n->type) {
	case N_USER:
		if (chance(&w->r, 10))
			return (int64_t)rnd(&w->r);
		return 4 * below(&w->r, (c->info.user_bar_size + 64) / 4);
	case N_CONTROL:
		return chance(&w->r, 80) ? 4 * below(&w->r, 0x2400) :
					   (int64_t)rnd(&w->r);
	default:
		if (chance(&w->r, 15))
			return (int64_t)rnd_card_addr(w, c, len);
		return below(&w->r, CARD_WIN);
	}
}

static void do_rw(struct worker *w, const struct node *n, int fd, int flags)
{
	enum op op = n->type == N_USER ? OP_RW_USER :
		     n->type == N_CONTROL ? OP_RW_CONTROL :
		     n->type == N_EVENTS ? OP_READ_EVENTS : OP_RW_DMA;
	bool wr = chance(&w->r, 50), pos_io = chance(&w->r, 70);
	size_t len = rnd_len(&w->r);
	int64_t pos = rnd_pos(w, n, len);
	char what[96];
	void *buf;
	long ret;

	if (n->type == N_USER || n->type == N_CONTROL) {
		len = chance(&w->r, 80) ? 4 * (1 + below(&w->r, 16)) :
					  below(&w->r, 300);
		pos = rnd_pos(w, n, len);
	}
	if (n->type == N_EVENTS) {
		if (!(flags & O_NONBLOCK) && !wr)
			return;
		len = chance(&w->r, 80) ? 4 : below(&w->r, 16);
		if (wr)
			op = OP_WRITE_EVENTS;
	}
	/* the fault window (user BAR 0xf000..0xf0ff) stays as it is, and a
	 * position the file may have after lseek counts too */
	if (n->type == N_USER && wr) {
		if (pos < 0 || (uint64_t)pos >= USER_SAFE)
			pos = 4 * below(&w->r, USER_SAFE / 4);
		if ((uint64_t)pos + len > USER_SAFE)
			len = USER_SAFE - pos;
		pos_io = true;
	}
	/* the file position of a DMA node stays near the first 64 MiB of
	 * card memory, so the card's (sparse) memory is not touched all over */
	if (!pos_io && (n->type == N_H2C || n->type == N_C2H))
		lseek(fd, pos, SEEK_SET);
	buf = rnd_ptr(w, len, !wr);
	if ((n->type == N_H2C || n->type == N_C2H) && chance(&w->r, 50)) {
		/* a valid one: the node's direction, a buffer of ours */
		struct region *g = &w->reg[below(&w->r, NREG)];

		wr = n->type == N_H2C;
		buf = g->p;
		len = g->p && (wr || !g->ro) ? below(&w->r, g->len + 1) : 0;
		pos = below(&w->r, CARD_WIN - MAX_IO);
		if (!pos_io)
			lseek(fd, pos, SEEK_SET);
	}
	snprintf(what, sizeof(what), "%s%s of 0x%zx at 0x%llx", pos_io ? "p" : "",
		 wr ? "write" : "read", len, (unsigned long long)pos);
	if (wr)
		ret = pos_io ? pwrite(fd, buf, len, pos) : write(fd, buf, len);
	else
		ret = pos_io ? pread(fd, buf, len, pos) : read(fd, buf, len);
	check(op, ret, n, what);
	if (ret > (long)len)
		bad("%s on %s: returned %ld > count", what, n->path, ret);
}

static void do_lseek(struct worker *w, const struct node *n, int fd)
{
	static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA,
				      SEEK_HOLE, 7 };
	int wh = whence[below(&w->r, 6)];
	off_t off = chance(&w->r, 70) ? (off_t)below(&w->r, n->type == N_USER ?
							 65536 : CARD_WIN) :
					(off_t)rnd(&w->r);
	char what[64];

	/* no user write goes through the file position (do_rw), so any */
	snprintf(what, sizeof(what), "whence %d off %lld", wh, (long long)off);
	check(OP_LSEEK, lseek(fd, off, wh) < 0 ? -1 : 0, n, what);
}

static void do_mmap(struct worker *w, const struct node *n, int fd, int flags)
{
	size_t len = 4096 * (1 + below(&w->r, 32));
	off_t off = chance(&w->r, 80) ? 4096 * (off_t)below(&w->r, 20) :
					(off_t)(rnd(&w->r) & ~4095ull);
	int prot = chance(&w->r, 50) ? PROT_READ : PROT_READ | PROT_WRITE;
	int mf = chance(&w->r, 85) ? MAP_SHARED : MAP_PRIVATE;
	volatile uint32_t *p;
	char what[96];

	if (chance(&w->r, 5))
		off += 1 + below(&w->r, 4095);
	if (n->type == N_USER && chance(&w->r, 50)) {
		/* a valid one, inside the BAR */
		off = 4096 * below(&w->r, 4);
		len = 4096 * (1 + below(&w->r, 4));
		mf = MAP_SHARED;
		if ((flags & O_ACCMODE) == O_RDONLY)
			prot = PROT_READ;
	}
	snprintf(what, sizeof(what), "0x%zx at 0x%llx prot %d %s", len,
		 (unsigned long long)off, prot,
		 mf == MAP_SHARED ? "shared" : "private");
	p = mmap(NULL, len, prot, mf, fd, off);
	check(OP_MMAP, p == MAP_FAILED ? -1 : 0, n, what);
	if (p == MAP_FAILED)
		return;
	if (n->type != N_USER) {
		bad("mmap of %s succeeded (%s)", n->path, what);
		munmap((void *)p, len);
		return;
	}
	/* read a few words anywhere; write only the user BAR's RAM page */
	for (int i = 0; i < 4; i++)
		(void)p[below(&w->r, len / 4)];
	if ((prot & PROT_WRITE) && off <= 0x1000 && off + (off_t)len > 0x1000 &&
	    (flags & O_ACCMODE) != O_RDONLY)
		p[(0x1000 - off) / 4 + below(&w->r, 1024)] = rnd(&w->r);
	munmap((void *)p, len);
}

static void do_poll(struct worker *w)
{
	struct pollfd pf[4];

	for (int i = 0; i < 4; i++) {
		int k = below(&w->r, nnodes);

		pf[i].fd = node_fd(w, k);
		pf[i].events = POLLIN | POLLOUT | POLLPRI;
	}
	check(OP_POLL, poll(pf, 4, below(&w->r, 3)), NULL, "poll");
}

/* user interrupts: raise or drop some lines through the user BAR */
static void do_user_irq(struct worker *w)
{
	int i = pick_node(w, N_USER, false);
	uint32_t v = rnd(&w->r) & 0xffff;

	check(OP_RW_USER, pwrite(nodes[i].shared_fd, &v, 4,
				 chance(&w->r, 50) ? 0xc : 0x10), &nodes[i], "user IRQ set/clear");
}

/* one region goes (with its pins staying) and another comes */
static void do_remap(struct worker *w)
{
	int i = 1 + below(&w->r, NREG - 1);

	region_unmap(&w->reg[i]);
	region_map(w, i);
}

static void one_op(struct worker *w)
{
	static const enum node_type rw_types[] = { N_H2C, N_C2H, N_H2C, N_C2H,
						   N_USER, N_EVENTS, N_CONTROL };
	unsigned int pick = below(&w->r, 100);
	enum node_type want;
	const struct node *n;
	int i, fd, flags;

	/* the node: mostly what the operation is for, else any */
	if (pick >= 55 && pick <= 61)
		want = chance(&w->r, 50) ? N_H2C : N_C2H;
	else if (pick >= 67 && pick <= 83)
		want = rw_types[below(&w->r, 7)];
	else if (pick >= 84 && pick <= 87)
		want = N_USER;
	else
		want = N_CONTROL;
	i = pick_node(w, want, pick >= 95 || chance(&w->r, 25));
	n = &nodes[i];
	fd = node_fd(w, i);
	flags = fd == n->shared_fd ?
		(n->type == N_EVENTS ? O_RDONLY | O_NONBLOCK : O_RDWR) :
		w->flags[i];

	switch (pick) {
	case 0 ... 7:
		do_info(w, n, fd);
		break;
	case 8 ... 11:
		do_stats(w, n, fd);
		break;
	case 12 ... 14:
		do_lasterr(w, n, fd);
		break;
	case 15 ... 29:
		do_pin(w, n, fd);
		break;
	case 30 ... 37:
		do_unpin(w, n, fd);
		break;
	case 38 ... 54:
		do_xfer(w, n, fd);
		break;
	case 55 ... 61:
		do_xilinx(w, n, fd);
		break;
	case 62 ... 66:
		do_random_ioctl(w, n, fd);
		break;
	case 67 ... 80:
		do_rw(w, n, fd, flags);
		break;
	case 81 ... 83:
		do_lseek(w, n, fd);
		break;
	case 84 ... 87:
		do_mmap(w, n, fd, flags);
		break;
	case 88 ... 89:
		do_poll(w);
		break;
	case 90 ... 91:
		do_user_irq(w);
		break;
	case 92 ... 94:
		do_remap(w);
		break;
	default:
		reopen(w, i);
		break;
	}
	w->ops++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->r.s = seed ^ (0x9e3779b97f4a7c15ull * (w->id + 1));
	if (!w->r.s)
		w->r.s = 1;
	for (int i = 0; i < NREG; i++)
		region_map(w, i);
	w->unmapped = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	munmap(w->unmapped, 65536);
	w->none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	w->ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	for (int i = 0; i < nnodes; i++) {
		w->fds[i] = -1;
		reopen(w, i);
	}
	while (!atomic_load(&stop))
		one_op(w);
	for (int i = 0; i < nnodes; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	for (int i = 0; i < NREG; i++)
		region_unmap(&w->reg[i]);
	return NULL;
}

/* ------------------------------------------------------------- set-up -- */

static void add_node(int card, const char *suffix, enum node_type t)
{
	struct node *n = &nodes[nnodes];

	snprintf(n->path, sizeof(n->path), "%s%s", cards[card].prefix, suffix);
	if (access(n->path, F_OK))
		return;
	n->type = t;
	n->card = card;
	n->shared_fd = open(n->path, (t == N_EVENTS ? O_RDONLY | O_NONBLOCK :
				      O_RDWR) | O_CLOEXEC);
	if (n->shared_fd < 0) {
		HFG_FAIL("open", "%s: %s", n->path, strerror(errno));
		return;
	}
	nnodes++;
}

static int setup_card(int c)
{
	char sfx[16];
	int fd = hfg_open(cards[c].prefix, "_control", O_RDWR);
	uint32_t v;

	if (fd < 0 || hfg_info(fd, &cards[c].info)) {
		HFG_FAIL("setup", "%s_control: %s", cards[c].prefix,
			 strerror(errno));
		return -1;
	}
	/* raw register access must be refused: the fuzzer writes at random */
	if (pread(fd, &v, 4, 0) == 4 || errno != EPERM) {
		HFG_FAIL("setup", "%s_control lets this process read DMA registers: run hf_fuzz without CAP_SYS_RAWIO (hf_runas)",
			 cards[c].prefix);
		close(fd);
		return -1;
	}
	close(fd);
	add_node(c, "_control", N_CONTROL);
	add_node(c, "_user", N_USER);
	for (unsigned int i = 0; i < cards[c].info.num_h2c; i++) {
		snprintf(sfx, sizeof(sfx), "_h2c_%u", i);
		add_node(c, sfx, N_H2C);
	}
	for (unsigned int i = 0; i < cards[c].info.num_c2h; i++) {
		snprintf(sfx, sizeof(sfx), "_c2h_%u", i);
		add_node(c, sfx, N_C2H);
	}
	for (unsigned int i = 0; i < 16; i++) {
		snprintf(sfx, sizeof(sfx), "_events_%u", i);
		add_node(c, sfx, N_EVENTS);
	}
	return 0;
}

/* after: no pin left, every channel works, user interrupts dropped */
static void after(void)
{
	static uint8_t a[65536], b[65536];

	for (int c = 0; c < ncards; c++) {
		struct hellofpga_stats st;
		const char *p = cards[c].prefix;
		int fd = hfg_open(p, "_control", O_RDONLY);
		int ufd = hfg_open(p, "_user", O_WRONLY);
		uint32_t all = 0xffff;
		char name[64], sfx[16];
		int bad_ch = -1, hf = -1, cf = -1;

		if (ufd >= 0) {
			if (pwrite(ufd, &all, 4, 0x10) != 4)
				perror("user IRQ clear");
			close(ufd);
		}
		snprintf(name, sizeof(name), "no-pin-left-card%d", c);
		if (fd >= 0 && !hfg_stats(fd, &st) && !st.pins && !st.pinned_bytes)
			HFG_PASS(name, "%s: GET_STATS: 0 pins, 0 bytes pinned", p);
		else
			HFG_FAIL(name, "%s after every file of the fuzzer was closed: %llu pins, %llu bytes pinned",
				 p, (unsigned long long)st.pins,
				 (unsigned long long)st.pinned_bytes);
		if (fd >= 0)
			close(fd);
		for (unsigned int ch = 0; ch < cards[c].info.num_h2c && bad_ch < 0;
		     ch++) {
			unsigned int k = ch % cards[c].info.num_c2h;

			snprintf(sfx, sizeof(sfx), "_h2c_%u", ch);
			hf = hfg_open(p, sfx, O_WRONLY);
			snprintf(sfx, sizeof(sfx), "_c2h_%u", k);
			cf = hfg_open(p, sfx, O_RDONLY);
			hfg_fill(a, sizeof(a), ch + 100);
			if (hf < 0 || cf < 0 ||
			    pwrite(hf, a, sizeof(a), 8 << 20) != sizeof(a) ||
			    pread(cf, b, sizeof(b), 8 << 20) != sizeof(b) ||
			    memcmp(a, b, sizeof(a)))
				bad_ch = ch;
			if (hf >= 0)
				close(hf);
			if (cf >= 0)
				close(cf);
		}
		snprintf(name, sizeof(name), "card%d-works-after", c);
		if (bad_ch < 0)
			HFG_PASS(name, "%s: a round trip on every H2C channel", p);
		else
			HFG_FAIL(name, "%s: the round trip through H2C%d failed: %s",
				 p, bad_ch, strerror(errno));
	}
}

int main(int argc, char **argv)
{
	struct worker *w;
	pthread_t th[MAX_THREADS];
	long total = 0, failed = 0;
	int opt;

	hfg_group = "fuzz";
	seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 16;
	while ((opt = getopt(argc, argv, "s:S:t:")) != -1) {
		if (opt == 's')
			secs = atof(optarg);
		else if (opt == 'S')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 't')
			nthreads = atoi(optarg);
		else
			return 2;
	}
	if (optind >= argc || nthreads < 1 || nthreads > MAX_THREADS) {
		fprintf(stderr, "usage: hf_fuzz [-s SECONDS] [-S SEED] [-t THREADS] CARD...\n");
		return 2;
	}
	printf("seed %llu\n", (unsigned long long)seed);
	fflush(stdout);
	for (int i = optind; i < argc && ncards < MAX_CARDS; i++)
		cards[ncards++].prefix = argv[i];
	for (int c = 0; c < ncards; c++)
		if (setup_card(c))
			return 1;
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	for (int t = 0; t < nthreads; t++) {
		w[t].id = t;
		pthread_create(&th[t], NULL, worker_main, &w[t]);
	}
	{
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, 1);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < nnodes; i++)
		close(nodes[i].shared_fd);
	for (int o = 0; o < OP_COUNT; o++) {
		total += calls[o];
		failed += fails[o];
		printf("# %-14s %7ld calls, %7ld failed\n", op_name[o],
		       (long)calls[o], (long)fails[o]);
	}
	if (!bad_total) {
		HFG_PASS("errnos", "%ld calls on %d nodes of %d cards in %.0f s by %d threads, %ld failed, each with an errno of its set (seed %llu)",
			 total, nnodes, ncards, secs, nthreads, failed,
			 (unsigned long long)seed);
	} else {
		HFG_FAIL("errnos", "%ld of %ld calls outside what they may return (seed %llu, replay: hf_fuzz -S %llu); first: %s",
			 (long)bad_total, total, (unsigned long long)seed,
			 (unsigned long long)seed, bad_text[0]);

	}
	after();
	free(w);
	return hfg_exit();
}
