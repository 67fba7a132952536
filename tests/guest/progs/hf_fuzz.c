// SPDX-License-Identifier: MIT
/*
 * hf_fuzz - a bounded random fuzzer of hellofpga.ko's nodes and ioctls,
 *	from several processes, with PCIe error recoveries mid-run.
 *
 *   hf_fuzz [-s SECONDS] [-S SEED] [-p PROCS] [-t THREADS] [-k MS]
 *           [-g GROUP] [-A QMPID:CARD]... [-v] CARD...  (CARD: /dev/hellofpgaN)
 *
 * Prints "seed N" first: -S N replays the same sequence of calls in each
 * thread, and the same schedule of kills and error injections (their
 * interleaving differs from run to run).  The process that starts (the
 * supervisor) opens every node of every CARD (_control, _user, _h2c_C,
 * _c2h_C, _events_U) once, then forks PROCS worker processes (default 3),
 * which inherit those files (shared by all of them: the same open files),
 * each with THREADS threads (default 2) that also open files of their own
 * (opened, closed and opened again with random flags) and make random
 * calls for SECONDS (default 20):
 *
 *   ioctls    every command of include/uapi/hellofpga.h and of
 *             hellofpga_xdma.h, on every node, with valid structures,
 *             structures with random fields, and bad pointers (NULL,
 *             below mmap_min_addr, read-only, PROT_NONE reservations that
 *             stay, kernel addresses; never an address a later mmap()
 *             could reuse); random
 *             command numbers (magics 0xb6, 'q' and others that the VFS
 *             does not take itself); SET_TIMEOUT
 *   pins      PIN of random ranges of the threads' own memory (anonymous,
 *             memfd, read-only, unmapped later while pinned), of bad
 *             ranges, dma-buf with fds that are none; UNPIN of handles that
 *             exist, that other threads and processes hold, and random ones
 *   XFER      over those handles, random ranges, directions, channels,
 *             timeouts (down to 1 ms; above HELLOFPGA_MAX_TIMEOUT_MS, which
 *             must be refused), card addresses in the first 64 MiB, at the
 *             end of card memory and random; H2C packets of AXI-Stream
 *             cards (card address 0)
 *   XFER_WB   the writeback word in a pin of its own that a forger thread
 *             keeps writing "all done" (0x00ffffff) into, inside the C2H
 *             destination (the card's data writes it first), at the edge
 *             of its pin (the last HELLOFPGA_XFER_WB_ROOM bytes: taken;
 *             closer to the end: must be refused), and random fields;
 *             UNPIN right after a success (a run still going would fault
 *             under the IOMMU)
 *   verified  round trips through a card area no other call touches
 *             (80 MiB + 4 MiB per thread), from a buffer nothing else pins,
 *             on a control file of its own: H2C of a pattern whose first
 *             word says "all done", then C2H back, plain or with the
 *             writeback word inside the destination or forged: a C2H that
 *             returns success must have brought every byte; UNPIN and
 *             munmap right after
 *   streams   (AXI-Stream cards) STREAM_START of rings in driver memory,
 *             in a pin of a control node (own or shared), with
 *             HELLOFPGA_STREAM_WB_PIN writeback slots in a host pin (which
 *             the forger also writes), and with random fields and file
 *             descriptors; STREAM_WAIT (timeouts 0 to 100 ms; above the
 *             maximum: refused), RELEASE (held buffers, others, WAKE),
 *             STOP, STATS, from the files that started them and others;
 *             read-only mmap() of the rings (PROT_WRITE and mprotect()
 *             refused), read, kept across STOP and unmapped later; the
 *             sources of the reference design programmed with sane values
 *   nodes     read/write/pread/pwrite (random sizes up to 1 MiB, random
 *             offsets, bad buffers), lseek (every whence), mmap (random
 *             offsets, lengths, protections, MAP_SHARED/PRIVATE; mappings
 *             of the user BAR are read, and written in its RAM), poll() and
 *             epoll (sets that keep stream and events nodes across calls,
 *             and across recoveries), user interrupts raised through the
 *             user BAR (set, clear, pulse), events nodes read without
 *             blocking and blocking (ended by a timer signal: EINTR)
 *
 * The supervisor meanwhile SIGKILLs a random worker every 0.3 to -k MS ms
 * (default 1500; mid-call, wherever it is) and forks a new one in its
 * place, and with -A QMPID:CARD asks the host (an "HF-QMP" line on
 * /dev/console, tests/guest/README.md) to inject a non-fatal AER error
 * into the card with QMP id QMPID (card index CARD) at a time of the run,
 * one per -A, watching /dev/kmsg for the driver's "recovered" line (it
 * needs CAP_SYSLOG: hf_runas -c 34; a request the console garbled is sent
 * again); a recovery window opens when the request goes out and closes
 * when the line is seen.  From 400 ms before a request until its recovery
 * is over the workers mostly move 4 MiB (18 ms on a Gen1 x1 link) between
 * pins and card areas of their own, so that runs are in flight when the
 * recovery begins.  -v adds each operation's errnos to the summary.
 *
 * It never touches what would change the card for later tests: the guest
 * fault window (user BAR 0xf000..0xf0ff) is neither written nor mapped
 * writable, the stream sources and sinks (user BAR 0x2000..0x3fff) are
 * written only with sane values, and raw DMA/config register access is
 * refused by the driver because hf_fuzz must run without CAP_SYS_RAWIO
 * (it checks, and stops otherwise): root without capabilities through
 * hf_runas, so that pins count against RLIMIT_MEMLOCK (hf_runas -m).
 *
 * Checks:
 *   - every call returns 0 (or a count) or -1 with an errno of its set
 *     (allowed[] below, by operation; ENOMEM is allowed everywhere): what
 *     the driver documents (docs/security.md, the uapi headers) and what
 *     the VFS returns before the driver is asked (EBADF for a file not
 *     open for it, EINVAL/EOVERFLOW for bad positions, ENXIO for
 *     SEEK_DATA/SEEK_HOLE at the end); EIO (a recovery's) only for a call
 *     that overlaps a recovery window of its card; a card is never removed,
 *     so ENODEV is an error everywhere; calls the headers say are refused
 *     (a timeout above the maximum, an XFER_WB word without its room, a
 *     writable ring mapping) must fail;
 *   - successful calls return what they promise (counts within the
 *     request, a PIN handle that is not 0, XFER bytes = length, a verified
 *     C2H with all its data, a WAIT's buffer, length and offset inside its
 *     own ring);
 *   - no worker dies of anything but the supervisor's SIGKILL;
 *   - each requested error is handled and the card recovers;
 *   - at the end, with every worker gone: a stream still open on a shared
 *     file can be waited on (not ENOENT: nothing stopping) and stopped;
 *     when every file is closed, GET_STATS of each card shows no pin and
 *     no pinned byte (no ring) left; a round trip on every channel of a
 *     memory-mapped card, and on an AXI-Stream card a ring with verified
 *     frames on every C2H channel and a packet the sink takes on every
 *     H2C channel, work;
 *   - no crash (the guest harness's dmesg scan, under slub_debug and the
 *     vIOMMU in the fuzz configuration, must stay clean).
 *
 * Prints PASS/FAIL lines "GROUP/NAME" (GROUP: -g, default fuzz); exit
 * status 1 when one failed.
 */
#define _GNU_SOURCE	/* memfd_create(), SEEK_DATA, gettid() */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "hf_guest.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "uapi/hellofpga_xdma.h"

#define MAX_CARDS	4
#define MAX_NODES	(MAX_CARDS * 26)
#define MAX_PROCS	8
#define MAX_THREADS	8
#define MAX_AER		8
#define NREG		8		/* memory regions per thread */
#define ARENA_LEN	65536u		/* region 0: never unmapped */
#define ARENA_SLOTS	32768u		/* its second half: writeback slots */
#define NHANDLE		64		/* handles remembered per thread */
#define NSHARED		64		/* handles all threads see */
#define NSTRM		8		/* streams remembered per thread */
#define NRMAP		8		/* ring mappings kept per thread */
#define NEPOLL		16		/* files in a thread's epoll set */
#define NFORGE		4		/* words a thread has forged */
#define MAX_IO		(1u << 20)
#define CARD_WIN	(64ull << 20)	/* card addresses mostly below this */
#define VERIFY_BASE	(CARD_WIN + (16ull << 20))	/* verified round */
#define VERIFY_SLOT	(4ull << 20)	/* trips: a slot per thread */
#define USER_SAFE	0xf000u		/* user BAR writes stay below */
#define ST_REGS_LO	0x2000u		/* stream sources and sinks */
#define ST_REGS_HI	0x4000u
#define NBAD		8
#define MAX_WIN		8		/* recovery windows per card */
#define WAIT_MAX_MS	100		/* longest valid STREAM_WAIT */

enum node_type { N_CONTROL, N_USER, N_H2C, N_C2H, N_EVENTS };

struct node {
	char path[64];
	enum node_type type;
	int card;		/* index into cards[] */
	unsigned int index;	/* channel or user interrupt */
	int shared_fd;		/* opened O_RDWR (events: O_RDONLY|O_NONBLOCK) */
};

struct card {
	const char *prefix;
	char name[32];		/* hellofpgaN, as the driver's messages say */
	struct hellofpga_info info;
	bool stream;		/* AXI-Stream channels */
};

static struct node nodes[MAX_NODES];
static int nnodes;
static struct card cards[MAX_CARDS];
static int ncards;
static uint64_t seed;
static double secs = 20;
static int nprocs = 3, nthreads = 2, kill_ms = 1500;
static bool verbose;

/* ------------------------------------------------------- errno checks -- */

enum op {
	OP_INFO, OP_STATS, OP_LASTERR, OP_SET_TIMEOUT, OP_PIN, OP_UNPIN,
	OP_XFER, OP_XFER_WB, OP_APERTURE, OP_ALIGN, OP_ADDRMODE_GET,
	OP_ADDRMODE_SET, OP_RANDOM_IOCTL, OP_ST_START, OP_ST_WAIT,
	OP_ST_RELEASE, OP_ST_STOP, OP_ST_STATS, OP_RW_DMA, OP_PACKET,
	OP_RW_USER, OP_RW_CONTROL, OP_READ_EVENTS, OP_BLOCK_EVENTS,
	OP_WRITE_EVENTS, OP_LSEEK, OP_MMAP, OP_MMAP_RING, OP_POLL, OP_EPOLL,
	OP_OPEN, OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
	"GET_INFO", "GET_STATS", "LAST_ERROR", "SET_TIMEOUT", "PIN", "UNPIN",
	"XFER", "XFER_WB", "APERTURE", "ALIGN_GET", "ADDRMODE_GET",
	"ADDRMODE_SET", "random-ioctl", "STREAM_START", "STREAM_WAIT",
	"STREAM_RELEASE", "STREAM_STOP", "STREAM_STATS", "rw-h2c/c2h",
	"h2c-packet", "rw-user", "rw-control", "read-events", "block-events",
	"write-events", "lseek", "mmap", "mmap-ring", "poll", "epoll", "open",
};

/*
 * The errnos each operation may fail with (ENOMEM: all of them).  ENOTTY:
 * a command the node does not take; EBADF: PIN/XFER/UNPIN on a control
 * file not open for writing, aperture against the open mode, read/write
 * against it (VFS), a STREAM_START pin_fd/wb_fd that is no control node
 * of the card; EFAULT: bad pointers; EINVAL: bad fields, flags, reserved
 * words, sizes, alignments, positions; the rest as documented:
 *   PIN        ENOSPC (max_pins), EOPNOTSUPP (no provider of the type)
 *   XFER       ENOENT (no such handle, or wb_handle), ECHRNG (channel),
 *              EOVERFLOW (card address wraps), ERANGE (past ddr_size), EIO
 *              (the card's own memory is smaller than ddr_size: decode
 *              error), ETIMEDOUT (short timeouts), EBUSY (the channel stayed
 *              in use by another thread for the whole timeout), ECANCELED
 *              (UNPIN or close by another thread during the run), EFAULT
 *              (the pin was released meanwhile), EACCES (C2H into a
 *              read-only pin), EOPNOTSUPP (C2H on an AXI-Stream card;
 *              XFER_WB where the mapping needs CPU syncs), EMSGSIZE (an H2C
 *              packet over HELLOFPGA_STREAM_H2C_MAX)
 *   UNPIN      ENOENT, EBUSY (the pin holds a running stream ring)
 *   APERTURE   EOVERFLOW, ERANGE, EIO, ETIMEDOUT, EBUSY, EOPNOTSUPP
 *   ADDRMODE_SET EOPNOTSUPP (non-incremental)
 *   STREAM_*   EOPNOTSUPP (a memory-mapped card), ENOENT (no stream on the
 *              file; no such pin), EBUSY (START: a stream runs on the
 *              channel), ERANGE (START: the ring past the pin's end),
 *              EACCES (START: a read-only pin), ETIMEDOUT and EAGAIN (WAIT:
 *              nothing in time, a WAKE), EIO (WAIT: the ring ended on its
 *              own: its pin went (an UNPIN refused, but a close), or a
 *              recovery halted it: for ever after, until STOP)
 *   rw         ENOSPC (write past the end), EIO, ETIMEDOUT, EBUSY, EOVERFLOW
 *              (position + count wraps, VFS), EPERM (_control without
 *              CAP_SYS_RAWIO; EFAULT before it: the VFS checks the
 *              buffer first), EOPNOTSUPP (read() of an AXI-Stream card's
 *              c2h node), EMSGSIZE (an H2C packet too long)
 *   events     EAGAIN (O_NONBLOCK, nothing pending), EINTR (a blocking
 *              read, ended by this program's timer signal)
 *   lseek      ENXIO (SEEK_DATA/SEEK_HOLE past the end), ESPIPE (events)
 *   mmap       EPERM (_control), ENODEV (nodes without a BAR or ring),
 *              EACCES (PROT_WRITE on a file not open for writing, or of a
 *              stream ring; a file not open for reading), EOVERFLOW
 *              (offset + length wraps), ENOENT (a c2h node of an
 *              AXI-Stream card without a ring in driver memory)
 *   epoll      EEXIST (ADD of a file in the set), ENOENT (DEL/MOD of one
 *              that is not)
 * In a recovery window of the card (from the error's request until the
 * driver said it recovered) a call may also fail with EIO ("card in a
 * reset or PCIe error recovery"): recov_ok[].
 */
static const int allowed[OP_COUNT][20] = {
	[OP_INFO] = { EFAULT, EINVAL },
	[OP_STATS] = { EFAULT, EINVAL },
	[OP_LASTERR] = { EFAULT, EINVAL },
	[OP_SET_TIMEOUT] = { EFAULT, EINVAL },
	[OP_PIN] = { EFAULT, EINVAL, ENOSPC, EOPNOTSUPP, EBADF, ENOTTY },
	[OP_UNPIN] = { EFAULT, EINVAL, ENOENT, EBADF, ENOTTY, EBUSY },
	[OP_XFER] = { EFAULT, EINVAL, ENOENT, ECHRNG, EOVERFLOW, ERANGE, EIO,
		       ETIMEDOUT, EBUSY, ECANCELED, EBADF, ENOTTY, EACCES,
		       EOPNOTSUPP, EMSGSIZE },
	[OP_XFER_WB] = { EFAULT, EINVAL, ENOENT, ECHRNG, EOVERFLOW, ERANGE,
			  EIO, ETIMEDOUT, EBUSY, ECANCELED, EBADF, ENOTTY,
			  EACCES, EOPNOTSUPP, EMSGSIZE },
	[OP_APERTURE] = { EFAULT, EINVAL, EBADF, EOVERFLOW, ERANGE, EIO,
			   ETIMEDOUT, EBUSY, ENOTTY, EOPNOTSUPP },
	[OP_ALIGN] = { EFAULT, ENOTTY },
	[OP_ADDRMODE_GET] = { EFAULT, ENOTTY },
	[OP_ADDRMODE_SET] = { EFAULT, EINVAL, EOPNOTSUPP, ENOTTY },
	[OP_RANDOM_IOCTL] = { ENOTTY },
	[OP_ST_START] = { EFAULT, EINVAL, ERANGE, ENOENT, EBADF, EACCES, EBUSY,
			   EOPNOTSUPP, ENOTTY },
	[OP_ST_WAIT] = { EFAULT, EINVAL, ENOENT, ETIMEDOUT, EAGAIN, EIO,
			  EOPNOTSUPP, ENOTTY },
	[OP_ST_RELEASE] = { EFAULT, EINVAL, ENOENT, EOPNOTSUPP, ENOTTY },
	[OP_ST_STOP] = { EFAULT, EINVAL, ENOENT, EOPNOTSUPP, ENOTTY },
	[OP_ST_STATS] = { EFAULT, EINVAL, ENOENT, EOPNOTSUPP, ENOTTY },
	[OP_RW_DMA] = { EFAULT, EINVAL, EIO, ETIMEDOUT, EBUSY, ENOSPC, EBADF,
			 EOVERFLOW, EOPNOTSUPP, EMSGSIZE },
	[OP_PACKET] = { EFAULT, EINVAL, ETIMEDOUT, EBUSY, EBADF, EMSGSIZE },
	[OP_RW_USER] = { EFAULT, EINVAL, ENOSPC, EBADF, EOVERFLOW },
	[OP_RW_CONTROL] = { EPERM, EBADF, EINVAL, EOVERFLOW, EFAULT },
	[OP_READ_EVENTS] = { EAGAIN, EINVAL, EFAULT, EBADF },
	[OP_BLOCK_EVENTS] = { EINTR, EINVAL, EFAULT, EBADF },
	[OP_WRITE_EVENTS] = { EINVAL, EBADF, EFAULT },
	[OP_LSEEK] = { EINVAL, ENXIO, ESPIPE },
	[OP_MMAP] = { EINVAL, EPERM, ENODEV, EACCES, EOVERFLOW, ENOENT },
	[OP_MMAP_RING] = { EINVAL, EPERM, ENODEV, EACCES, ENOENT, EOVERFLOW },
	[OP_POLL] = { 0 },		/* nothing */
	[OP_EPOLL] = { EEXIST, ENOENT },
	[OP_OPEN] = { 0 },
};

/* what a call overlapping a recovery window of its card may return too */
static const int recov_ok[] = { EIO, 0 };

/* -------------------------------------------- shared by the processes -- */

/* A recovery window, in ms since boot: end 0 while it is open. */
struct window {
	_Atomic long long start, end;
};

enum bad_kind { B_ERRNO, B_DATA, B_KINDS };

struct shared {
	atomic_int stop;
	atomic_int storm;	/* an error is about to come: long transfers */
	atomic_long calls[OP_COUNT], fails[OP_COUNT], recov[OP_COUNT];
	atomic_long errs[OP_COUNT][136];	/* -v: by errno */
	atomic_long nbad[B_KINDS];
	atomic_int ntext[B_KINDS];
	char text[B_KINDS][NBAD][320];
	/* handles every thread may use (and UNPIN): fd << 32 | handle */
	_Atomic uint64_t handles[NSHARED];
	atomic_int nwin[MAX_CARDS];
	struct window win[MAX_CARDS][MAX_WIN];
	atomic_long verified, verified_wb, wb_calls, wb_forged_ok,
		    wb_edge_refused, ring_maps, stream_frames, kills, spawns,
		    blocked_reads, rings[3];
};

static struct shared *sh;
static const char *group = "fuzz";

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void bad_kind(enum bad_kind k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad_kind(enum bad_kind k, const char *fmt, ...)
{
	va_list ap;
	char t[320];
	long n;
	int i;

	va_start(ap, fmt);
	vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	n = atomic_fetch_add(&sh->nbad[k], 1);
	i = atomic_fetch_add(&sh->ntext[k], 1);
	if (i < NBAD)
		snprintf(sh->text[k][i], sizeof(sh->text[k][i]), "%s", t);
	if (n < 20) {
		/* on the console too: the kernel may not survive the run */
		int fd = open("/dev/console", O_WRONLY | O_CLOEXEC);

		dprintf(1, "# bad (pid %d): %s\n", (int)getpid(), t);
		if (fd >= 0) {
			dprintf(fd, "\n# hf_fuzz %s: bad: %s\n", group, t);
			close(fd);
		}
	}
}

#define bad(...)	bad_kind(B_ERRNO, __VA_ARGS__)
#define bad_data(...)	bad_kind(B_DATA, __VA_ARGS__)

static bool in_set(const int *set, int err)
{
	for (int i = 0; set[i]; i++)
		if (set[i] == err)
			return true;
	return false;
}

/* when the operation in progress began (the start of one_op()) */
static __thread long long op_t0;

/* Whether [@t0, now] overlaps a recovery window of card @c. */
static bool in_window(int c, long long t0)
{
	long long now = now_ms();
	int n = atomic_load(&sh->nwin[c]);

	for (int i = 0; i < n && i < MAX_WIN; i++) {
		long long s = atomic_load(&sh->win[c][i].start);
		long long e = atomic_load(&sh->win[c][i].end);

		if (now >= s && (!e || t0 <= e + 50))
			return true;
	}
	return false;
}

/*
 * check OP RET NODE WHAT: a call's outcome against its set; called with
 * the call as its RET argument, so errno is still the call's
 */
static void check(enum op op, long ret, const struct node *n,
		  const char *what)
{
	int err = errno;

	atomic_fetch_add(&sh->calls[op], 1);
	if (ret >= 0)
		return;
	atomic_fetch_add(&sh->fails[op], 1);
	if (err > 0 && err < 136)
		atomic_fetch_add(&sh->errs[op][err], 1);
	if (ret != -1) {
		bad("%s on %s returned %ld (%s)", op_name[op],
		    n ? n->path : "-", ret, what);
		return;
	}
	if (err == ENOMEM || in_set(allowed[op], err))
		return;
	if (n && in_set(recov_ok, err) && in_window(n->card, op_t0)) {
		atomic_fetch_add(&sh->recov[op], 1);
		return;
	}
	bad("%s on %s: errno %d %s (%s)%s", op_name[op], n ? n->path : "-",
	    err, strerror(err), what,
	    n && in_set(recov_ok, err) ? " outside a recovery window" : "");
}

/* check() that passes the call's result on */
static long check_ret(enum op op, long ret, const struct node *n,
		      const char *what)
{
	int err = errno;

	check(op, ret, n, what);
	errno = err;
	return ret;
}

/* A call the headers say is refused succeeded. */
static void must_fail(enum op op, long ret, const struct node *n,
		      const char *what, const char *why)
{
	if (ret >= 0)
		bad("%s on %s succeeded (%s): %s", op_name[op],
		    n ? n->path : "-", what, why);
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

static void rng_seed(struct rng *r, uint64_t s)
{
	r->s = s ? s : 1;
	for (int i = 0; i < 4; i++)
		rnd(r);
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

/* a stream this thread started (a hint: others may stop it) */
struct strm {
	int node, fd;		/* fd < 0: free */
	bool own;		/* on a file of this thread only */
	uint32_t mem, n;
	uint64_t size, mlen, pin_off;
	uint64_t held[8];	/* buffers WAIT gave, not released */
};

struct rmap {
	const volatile uint8_t *p;
	size_t len;
};

struct worker {
	int id;
	struct rng r;
	struct region reg[NREG];	/* 0: the arena, never unmapped */
	int fds[MAX_NODES];		/* own files, -1 when closed */
	int flags[MAX_NODES];
	uint64_t handles[NHANDLE];	/* fd << 32 | handle */
	uint64_t sizes[NHANDLE];	/* bytes pinned under each */
	uintptr_t addrs[NHANDLE];	/* and where (host pins) */
	void *unmapped, *none, *ro_page;
	int vfd[MAX_CARDS];		/* control files of do_verify() */
	void *storm_buf;		/* do_storm()'s buffer, pinned */
	uint64_t storm_handle;
	int storm_card;
	int ep;				/* epoll set */
	int ep_fds[NEPOLL];
	struct strm st[NSTRM];
	struct rmap rm[NRMAP];
	timer_t timer;
	bool have_timer;
	/* arena offsets the forger writes: word (>= 0) or slot (| 1 << 30) */
	atomic_int forge[NFORGE];
	long ops;
};

#define FORGE_SLOT	(1 << 30)

static struct worker *workers;		/* this process's threads */
static int proc_slot = -1;		/* worker process slot */

static void region_map(struct worker *w, int i)
{
	struct region *g = &w->reg[i];
	static const size_t sizes[] = { 4096, 65536, 1 << 20, 4 << 20 };
	int fd = -1;

	g->len = sizes[below(&w->r, 4)];
	g->memfd = chance(&w->r, 30);
	g->ro = !g->memfd && chance(&w->r, 15);
	if (i == 0) {
		/* the arena: forged words and slots, always there */
		g->len = ARENA_LEN;
		g->memfd = g->ro = false;
	}
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
		 MAP_FIXED | (i == 0 || chance(&w->r, 50) ? MAP_POPULATE : 0),
		 fd, 0) == MAP_FAILED) {
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

/* a writable region of this thread other than the arena, or NULL */
static struct region *rw_region(struct worker *w, size_t min)
{
	int i = 1 + below(&w->r, NREG - 1);

	for (int k = 0; k < NREG - 1; k++, i = i % (NREG - 1) + 1)
		if (w->reg[i].p && !w->reg[i].ro && w->reg[i].len >= min)
			return &w->reg[i];
	return NULL;
}

/* ---------------------------------------------------------------- fds -- */

/* a node of type @want (any node now and then, or with @any) */
static int pick_node(struct worker *w, enum node_type want, bool any)
{
	int i = below(&w->r, nnodes);

	for (int k = 0; !any && k < nnodes; k++, i = (i + 1) % nnodes)
		if (nodes[i].type == want)
			break;
	return i;
}

/* a c2h node of an AXI-Stream card, mostly; any node now and then */
static int pick_stream_node(struct worker *w)
{
	int i = below(&w->r, nnodes);

	if (chance(&w->r, 8))
		return i;
	for (int k = 0; k < nnodes; k++, i = (i + 1) % nnodes)
		if (nodes[i].type == N_C2H && cards[nodes[i].card].stream)
			return i;
	return pick_node(w, N_C2H, false);
}

/* the node of type @t, channel @index, of card @c; -1 when none */
static int node_of(int c, enum node_type t, unsigned int index)
{
	for (int i = 0; i < nnodes; i++)
		if (nodes[i].card == c && nodes[i].type == t &&
		    nodes[i].index == index)
			return i;
	return -1;
}

/* an open file of node @i: the shared one or the thread's own */
static int node_fd(struct worker *w, int i)
{
	if (chance(&w->r, 30) || w->fds[i] < 0)
		return nodes[i].shared_fd;
	return w->fds[i];
}

/* the open mode of @fd, a file of node @i */
static int fd_flags(struct worker *w, int i, int fd)
{
	if (fd == nodes[i].shared_fd)
		return nodes[i].type == N_EVENTS ? O_RDONLY | O_NONBLOCK : O_RDWR;
	return w->flags[i];
}

/* a control file of card @c that PIN takes (open for writing) */
static int ctl_fd(struct worker *w, int c)
{
	int i = node_of(c, N_CONTROL, 0);
	int fd;

	if (i < 0)
		return -1;
	fd = node_fd(w, i);
	if ((fd_flags(w, i, fd) & O_ACCMODE) == O_RDONLY)
		fd = nodes[i].shared_fd;
	return fd;
}

static void forget_fd(struct worker *w, int fd)
{
	for (int k = 0; k < NHANDLE; k++)
		if ((int)(w->handles[k] >> 32) == fd)
			w->handles[k] = 0;
	for (int k = 0; k < NSTRM; k++)
		if (w->st[k].fd == fd)
			w->st[k].fd = -1;
	for (int k = 0; k < NEPOLL; k++)
		if (w->ep_fds[k] == fd)
			w->ep_fds[k] = -1;
}

static void reopen(struct worker *w, int i)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	int fl = modes[below(&w->r, 3)] | (chance(&w->r, 30) ? O_NONBLOCK : 0);

	if (w->fds[i] >= 0) {
		/* handles and streams of that file go with it */
		forget_fd(w, w->fds[i]);
		close(w->fds[i]);
		w->fds[i] = -1;
	}
	if (nodes[i].type == N_EVENTS)
		fl |= O_NONBLOCK;	/* blocking reads: do_block_events() */
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

static int remember(struct worker *w, int fd, uint64_t handle,
		    uint64_t size, uintptr_t addr)
{
	uint64_t v = (uint64_t)fd << 32 | (handle & 0xffffffffu);
	int k = below(&w->r, NHANDLE);

	w->handles[k] = v;
	w->sizes[k] = size;
	w->addrs[k] = addr;
	atomic_store(&sh->handles[below(&w->r, NSHARED)], v);
	return k;
}

/* the handle UNPIN on @fd took is gone */
static void forget_handle(struct worker *w, int fd, uint64_t handle)
{
	uint64_t v = (uint64_t)fd << 32 | (handle & 0xffffffffu);

	for (int k = 0; k < NHANDLE; k++)
		if (w->handles[k] == v)
			w->handles[k] = 0;
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
		v = atomic_load(&sh->handles[below(&w->r, NSHARED)]);
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

/* PIN of [@p, @p + @len) on @fd, remembered; its slot, or -1 */
static int pin_now(struct worker *w, const struct node *n, int fd, void *p,
		   size_t len)
{
	struct hellofpga_pin pin = {
		.type = HELLOFPGA_PIN_HOST, .addr = (uintptr_t)p, .size = len,
		.fd = -1,
	};
	char what[96];
	long ret;

	snprintf(what, sizeof(what), "host 0x%llx size 0x%zx",
		 (unsigned long long)pin.addr, len);
	ret = ioctl(fd, HELLOFPGA_IOC_PIN, &pin);
	check(OP_PIN, ret, n, what);
	if (ret)
		return -1;
	return remember(w, fd, pin.handle, len, (uintptr_t)p);
}

/* a pin of the arena on @fd (pinned now when there is none), or -1 */
static int arena_pin(struct worker *w, const struct node *n, int fd)
{
	for (int k = 0; k < NHANDLE; k++)
		if (w->handles[k] && (int)(w->handles[k] >> 32) == fd &&
		    w->addrs[k] == (uintptr_t)w->reg[0].p &&
		    w->sizes[k] == ARENA_LEN)
			return k;
	return pin_now(w, n, fd, w->reg[0].p, ARENA_LEN);
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

static void do_set_timeout(struct worker *w, const struct node *n, int fd)
{
	static const uint32_t ms[] = { 0, 0, 1, 5, 100, 1000, 20000,
				       HELLOFPGA_MAX_TIMEOUT_MS,
				       HELLOFPGA_MAX_TIMEOUT_MS + 1 };
	struct hellofpga_timeout t = { 0 };
	char what[64];
	void *arg;
	long ret;

	t.timeout_ms = chance(&w->r, 90) ? ms[below(&w->r, 9)] :
					   (uint32_t)rnd(&w->r);
	if (chance(&w->r, 5))
		t.flags = 1u << below(&w->r, 32);
	else if (chance(&w->r, 5))
		t.reserved[below(&w->r, 2)] = 1;
	snprintf(what, sizeof(what), "%u ms", t.timeout_ms);
	arg = arg_of(w, &t, sizeof(t));
	ret = ioctl(fd, HELLOFPGA_IOC_SET_TIMEOUT, arg);
	check(OP_SET_TIMEOUT, ret, n, what);
	if (arg == &t && t.timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS)
		must_fail(OP_SET_TIMEOUT, ret, n, what,
			  "above HELLOFPGA_MAX_TIMEOUT_MS");
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
		remember(w, fd, p.handle, p.size,
			 p.type == HELLOFPGA_PIN_HOST ? p.addr : 0);
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
	void *arg = arg_of(w, &u, sizeof(u));
	long ret;

	snprintf(what, sizeof(what), "handle %llu", (unsigned long long)u.handle);
	ret = ioctl(fd, HELLOFPGA_IOC_UNPIN, arg);
	check(OP_UNPIN, ret, n, what);
	if (!ret && arg == &u)
		forget_handle(w, fd, u.handle);
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
		if (c->stream) {
			/* an H2C packet (C2H: EOPNOTSUPP) */
			x.card_addr = chance(&w->r, 90) ? 0 : x.card_addr;
			x.dir = chance(&w->r, 90) ? HELLOFPGA_XFER_H2C : x.dir;
		}
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
	if (chance(&w->r, 4))
		x.timeout_ms = HELLOFPGA_MAX_TIMEOUT_MS + 1 +
			       below(&w->r, 1u << 31);
	snprintf(what, sizeof(what), "handle %llu dir %u ch %u off 0x%llx card 0x%llx len 0x%llx tmo %u",
		 (unsigned long long)x.handle, x.dir, x.channel,
		 (unsigned long long)x.buf_offset,
		 (unsigned long long)x.card_addr,
		 (unsigned long long)x.length, x.timeout_ms);
	arg = arg_of(w, &x, sizeof(x));
	ret = ioctl(fd, HELLOFPGA_IOC_XFER, arg);
	check(OP_XFER, ret, n, what);
	if (arg != &x)
		return;
	if (x.timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS)
		must_fail(OP_XFER, ret, n, what,
			  "timeout_ms above HELLOFPGA_MAX_TIMEOUT_MS");
	if (!ret && x.bytes != x.length)
		bad("XFER on %s: success with bytes %llu (%s)", n->path,
		    (unsigned long long)x.bytes, what);
	if (ret && x.bytes > x.length)
		bad("XFER on %s: bytes %llu > length (%s)", n->path,
		    (unsigned long long)x.bytes, what);
}

/* a word the forger keeps writing: an arena offset, or a slot's */
static int forge_start(struct worker *w, int off)
{
	for (int k = 0; k < NFORGE; k++) {
		int none = -1;

		if (atomic_compare_exchange_strong(&w->forge[k], &none, off))
			return k;
	}
	return -1;
}

static void forge_end(struct worker *w, int k)
{
	if (k >= 0)
		atomic_store(&w->forge[k], -1);
}

/*
 * XFER with HELLOFPGA_XFER_WB: the word in a pin of the arena (forged
 * "all done" meanwhile), inside the C2H destination, at the edge of its
 * pin (the last HELLOFPGA_XFER_WB_ROOM bytes; closer to the end refused),
 * or random fields; on a memory-mapped card mostly.
 */
static void do_xfer_wb(struct worker *w)
{
	static const uint32_t tmo[] = { 0, 0, 0, 2, 50, 1000 };
	int ci = below(&w->r, ncards), fd, k, wk = -1, fk = -1;
	const struct card *c;
	struct hellofpga_xfer x = { .flags = HELLOFPGA_XFER_WB };
	const struct node *n;
	bool edge_bad = false, forged = false;
	char what[200];
	long ret;

	for (int i = 0; i < ncards && cards[ci].stream && chance(&w->r, 80);
	     i++)
		ci = (ci + 1) % ncards;
	c = &cards[ci];
	fd = ctl_fd(w, ci);
	if (fd < 0)
		return;
	n = &nodes[node_of(ci, N_CONTROL, 0)];
	k = own_pin(w, fd);
	if (k < 0) {
		struct region *g = rw_region(w, 4096);

		if (!g)
			return;
		k = pin_now(w, n, fd, g->p, 4096 * (1 + below(&w->r, g->len / 4096)));
		if (k < 0)
			return;
	}
	x.handle = w->handles[k] & 0xffffffffu;
	x.dir = chance(&w->r, 65) ? HELLOFPGA_XFER_C2H : HELLOFPGA_XFER_H2C;
	if (c->stream)
		x.dir = HELLOFPGA_XFER_H2C;
	x.channel = below(&w->r, x.dir ? c->info.num_c2h : c->info.num_h2c);
	x.buf_offset = 4 * below(&w->r, w->sizes[k] / 4);
	x.length = below(&w->r, w->sizes[k] - x.buf_offset + 1);
	x.card_addr = c->stream ? 0 : below(&w->r, CARD_WIN - x.length);
	x.timeout_ms = tmo[below(&w->r, 6)];
	switch (below(&w->r, 8)) {
	case 0:
	case 1:
	case 2:
		/* in a pin of the arena, a page of its own, forged */
		wk = arena_pin(w, n, fd);
		if (wk < 0)
			return;
		x.wb_handle = w->handles[wk] & 0xffffffffu;
		x.wb_offset = 4096 + 32 * below(&w->r, (ARENA_SLOTS - 8192) / 32);
		if (chance(&w->r, 85)) {
			fk = forge_start(w, (int)x.wb_offset);
			forged = fk >= 0;
		}
		break;
	case 3:
	case 4:
		/* inside the destination: the card's data writes it first */
		x.wb_handle = x.handle;
		x.wb_offset = x.buf_offset +
			      4 * below(&w->r, (x.length < 256 ? x.length : 256) / 4);
		if (x.wb_offset + HELLOFPGA_XFER_WB_ROOM > w->sizes[k])
			x.wb_offset = w->sizes[k] - HELLOFPGA_XFER_WB_ROOM;
		break;
	case 5:
		/* at the edge of its pin: the room, or less (refused) */
		x.wb_handle = x.handle;
		if (chance(&w->r, 50)) {
			x.wb_offset = w->sizes[k] - HELLOFPGA_XFER_WB_ROOM;
		} else {
			x.wb_offset = w->sizes[k] - 4 * (1 + below(&w->r, 7));
			edge_bad = true;
		}
		break;
	case 6:
		/* random word fields */
		x.wb_handle = pick_handle(w, fd);
		x.wb_offset = chance(&w->r, 50) ? rnd(&w->r) :
			      below(&w->r, 2 * w->sizes[k]);
		break;
	default:
		/* the flag without a word, or a word without the flag */
		if (chance(&w->r, 50)) {
			x.wb_handle = 0;
		} else {
			x.flags = 0;
			x.wb_handle = x.handle;
		}
		x.wb_offset = 4 * below(&w->r, 64);
		break;
	}
	snprintf(what, sizeof(what), "handle %llu dir %u ch %u off 0x%llx card 0x%llx len 0x%llx tmo %u wb %llu+0x%llx%s",
		 (unsigned long long)x.handle, x.dir, x.channel,
		 (unsigned long long)x.buf_offset,
		 (unsigned long long)x.card_addr,
		 (unsigned long long)x.length, x.timeout_ms,
		 (unsigned long long)x.wb_handle,
		 (unsigned long long)x.wb_offset, forged ? " forged" : "");
	ret = ioctl(fd, HELLOFPGA_IOC_XFER, &x);
	forge_end(w, fk);
	check(OP_XFER_WB, ret, n, what);
	atomic_fetch_add(&sh->wb_calls, 1);
	if (edge_bad && x.length) {
		must_fail(OP_XFER_WB, ret, n, what,
			  "the word without HELLOFPGA_XFER_WB_ROOM bytes of its pin");
		if (ret)
			atomic_fetch_add(&sh->wb_edge_refused, 1);
	}
	if (!ret && x.bytes != x.length)
		bad("XFER_WB on %s: success with bytes %llu (%s)", n->path,
		    (unsigned long long)x.bytes, what);
	if (!ret && forged)
		atomic_fetch_add(&sh->wb_forged_ok, 1);
	/* a run the driver let go too early would now fault (IOMMU) */
	if (!ret && chance(&w->r, 60)) {
		struct hellofpga_unpin u = { .handle = x.handle };

		if (!check_ret(OP_UNPIN, ioctl(fd, HELLOFPGA_IOC_UNPIN, &u), n,
			       "UNPIN right after XFER_WB"))
			forget_handle(w, fd, x.handle);
	}
}

/* pattern word @i of a verified round trip */
static uint32_t vword(uint32_t v, uint64_t i)
{
	return hf_stream_mix(v ^ (uint32_t)i * 0x9e3779b1u);
}

/*
 * A verified C2H that succeeded without all its data: what is where, to
 * tell a run that ended early (the buffer changes later, or a second C2H
 * brings the pattern) from card memory without the pattern (the H2C).
 */
static void verify_bad(int fd, const struct hellofpga_xfer *x,
		       const uint32_t *b, uint64_t len, uint32_t v, int first,
		       int last, int nbad, const char *what,
		       const struct node *n)
{
	uint32_t was = b[first], later, again = 0;
	struct hellofpga_pin p = { .type = HELLOFPGA_PIN_HOST, .fd = -1 };
	struct hellofpga_xfer y = *x;
	struct hellofpga_unpin u = { 0 };
	struct timespec ts = { 0, 50000000 };
	uint32_t *c;
	int r = -1;

	nanosleep(&ts, NULL);
	later = b[first];
	c = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c != MAP_FAILED) {
		p.addr = (uintptr_t)c;
		p.size = len;
		if (!ioctl(fd, HELLOFPGA_IOC_PIN, &p)) {
			y.handle = p.handle;
			y.flags = 0;
			y.wb_handle = 0;
			y.wb_offset = 0;
			r = ioctl(fd, HELLOFPGA_IOC_XFER, &y) ? -errno : 0;
			again = c[first];
			u.handle = p.handle;
			ioctl(fd, HELLOFPGA_IOC_UNPIN, &u);
		}
		munmap(c, len);
	}
	bad_data("%s (%s) returned success with words 0x%x..0x%x not there (%d words differ; at 0x%x: 0x%08x, 50 ms later 0x%08x, expected 0x%08x; a second C2H: %d, 0x%08x): the run had not ended",
		 what, n->path, first * 4, last * 4, nbad, first * 4, was, later,
		 vword(v, first), r, again);
}

/*
 * A verified round trip through this thread's own card area (no other
 * call reaches VERIFY_BASE + 4 MiB * (process slot * MAX_THREADS +
 * thread)), from a buffer of its own that nothing else pins, pinned on a
 * control file nothing else uses: the pattern H2C, the buffer
 * overwritten, C2H back (plain, the word inside the destination at its
 * first byte, where the pattern says "all done", or in the arena,
 * forged): a C2H that succeeds has every byte.  Then UNPIN and munmap at
 * once: a run still going would fault under the IOMMU.
 */
static void do_verify(struct worker *w)
{
	int ci = below(&w->r, ncards), fd, fk = -1, variant, i;
	uint64_t area, len, handle, ahandle = 0, word = ~0ull;
	struct hellofpga_xfer x = { 0 };
	struct hellofpga_pin p = { .type = HELLOFPGA_PIN_HOST, .fd = -1 };
	struct hellofpga_unpin u = { 0 };
	const struct card *c;
	const struct node *n;
	uint32_t v = rnd(&w->r), *b;
	char what[160];
	long ret;

	for (i = 0; i < ncards && (cards[ci].stream ||
				   cards[ci].info.ddr_size < VERIFY_BASE +
				   MAX_PROCS * MAX_THREADS * VERIFY_SLOT); i++)
		ci = (ci + 1) % ncards;
	c = &cards[ci];
	if (c->stream || proc_slot < 0 || c->info.ddr_size < VERIFY_BASE +
	    MAX_PROCS * MAX_THREADS * VERIFY_SLOT)
		return;
	area = VERIFY_BASE + (uint64_t)(proc_slot * MAX_THREADS + w->id) *
			     VERIFY_SLOT;
	n = &nodes[node_of(ci, N_CONTROL, 0)];
	if (w->vfd[ci] < 0) {
		w->vfd[ci] = open(n->path, O_RDWR | O_CLOEXEC);
		check(OP_OPEN, w->vfd[ci] < 0 ? -1 : 0, n, "open");
	}
	fd = w->vfd[ci];
	if (fd < 0)
		return;
	len = 4096 * (2 + below(&w->r, VERIFY_SLOT / 4096 - 1));
	b = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b == MAP_FAILED)
		return;
	p.addr = (uintptr_t)b;
	p.size = len;
	ret = ioctl(fd, HELLOFPGA_IOC_PIN, &p);
	check(OP_PIN, ret, n, "verified round trip: PIN");
	if (ret)
		goto out_unmap;
	handle = p.handle;
	for (i = 0; (uint64_t)i < len / 4; i++)
		b[i] = vword(v, i);
	b[0] = 0x00ffffff;		/* "all done", were it a writeback */
	x.handle = handle;
	x.length = len;
	x.card_addr = area;
	x.dir = HELLOFPGA_XFER_H2C;
	x.channel = below(&w->r, c->info.num_h2c);
	ret = ioctl(fd, HELLOFPGA_IOC_XFER, &x);
	check(OP_XFER, ret, n, "verified round trip: H2C");
	if (ret)
		goto out;
	memset(b, 0x5a, len);
	memset(&x, 0, sizeof(x));
	x.handle = handle;
	x.length = len;
	x.card_addr = area;
	x.dir = HELLOFPGA_XFER_C2H;
	x.channel = below(&w->r, c->info.num_c2h);
	variant = below(&w->r, 3);
	if (variant == 1) {
		/* the word where the card's data says "all done" first */
		x.flags = HELLOFPGA_XFER_WB;
		x.wb_handle = handle;
		x.wb_offset = 0;
		word = 0;
	} else if (variant == 2) {
		/* in the arena, which the forger writes "all done" into */
		memset(&p, 0, sizeof(p));
		p.type = HELLOFPGA_PIN_HOST;
		p.fd = -1;
		p.addr = (uintptr_t)w->reg[0].p;
		p.size = ARENA_LEN;
		ret = ioctl(fd, HELLOFPGA_IOC_PIN, &p);
		check(OP_PIN, ret, n, "verified round trip: PIN of the arena");
		if (!ret) {
			ahandle = p.handle;
			x.flags = HELLOFPGA_XFER_WB;
			x.wb_handle = ahandle;
			x.wb_offset = 4096 + 32 * below(&w->r, (ARENA_SLOTS - 8192) / 32);
			fk = forge_start(w, (int)x.wb_offset);
		}
	}
	snprintf(what, sizeof(what), "verified round trip: C2H of 0x%llx bytes from card 0x%llx on C2H%u%s",
		 (unsigned long long)len, (unsigned long long)area, x.channel,
		 variant == 1 ? ", the XFER_WB word at the destination's first byte" :
		 fk >= 0 ? ", the XFER_WB word forged" : x.flags ? ", XFER_WB" : "");
	ret = ioctl(fd, HELLOFPGA_IOC_XFER, &x);
	forge_end(w, fk);
	check(x.flags ? OP_XFER_WB : OP_XFER, ret, n, what);
	if (!ret) {
		int first = -1, last = -1, nbad = 0;

		for (i = 1; (uint64_t)i < len / 4; i++) {
			if ((uint64_t)i * 4 >= word &&
			    (uint64_t)i * 4 < word + HELLOFPGA_XFER_WB_ROOM)
				continue;
			if (b[i] != vword(v, i)) {
				if (first < 0)
					first = i;
				last = i;
				nbad++;
			}
		}
		if (first >= 0)
			verify_bad(fd, &x, b, len, v, first, last, nbad,
				   what, n);
		atomic_fetch_add(&sh->verified, 1);
		if (x.flags)
			atomic_fetch_add(&sh->verified_wb, 1);
	}
out:
	u.handle = handle;
	check(OP_UNPIN, ioctl(fd, HELLOFPGA_IOC_UNPIN, &u), n,
	      "verified round trip: UNPIN");
	if (ahandle) {
		u.handle = ahandle;
		check(OP_UNPIN, ioctl(fd, HELLOFPGA_IOC_UNPIN, &u), n,
		      "verified round trip: UNPIN of the arena");
	}
out_unmap:
	munmap(b, len);
}

/*
 * An error is about to come: XFERs of 4 MiB (18 ms on the slow link)
 * between a pin of this thread's own (on its own control file) and its
 * own card area, so that runs are in flight when the recovery begins.
 */
static void do_storm(struct worker *w)
{
	int ci = below(&w->r, ncards), fd;
	struct hellofpga_xfer x = { 0 };
	const struct card *c;
	const struct node *n;
	long ret;

	for (int i = 0; i < ncards && cards[ci].stream; i++)
		ci = (ci + 1) % ncards;
	c = &cards[ci];
	n = &nodes[node_of(ci, N_CONTROL, 0)];
	if (c->stream || proc_slot < 0 || c->info.ddr_size < VERIFY_BASE +
	    MAX_PROCS * MAX_THREADS * VERIFY_SLOT)
		return;
	if (w->vfd[ci] < 0) {
		w->vfd[ci] = open(n->path, O_RDWR | O_CLOEXEC);
		check(OP_OPEN, w->vfd[ci] < 0 ? -1 : 0, n, "open");
	}
	fd = w->vfd[ci];
	if (fd < 0)
		return;
	if (!w->storm_buf) {
		struct hellofpga_pin p = { .type = HELLOFPGA_PIN_HOST, .fd = -1 };

		w->storm_buf = mmap(NULL, VERIFY_SLOT, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				    -1, 0);
		if (w->storm_buf == MAP_FAILED) {
			w->storm_buf = NULL;
			return;
		}
		p.addr = (uintptr_t)w->storm_buf;
		p.size = VERIFY_SLOT;
		ret = ioctl(fd, HELLOFPGA_IOC_PIN, &p);
		check(OP_PIN, ret, n, "PIN for transfers in flight");
		w->storm_handle = ret ? 0 : p.handle;
		w->storm_card = ci;
	}
	if (!w->storm_handle || w->storm_card != ci)
		return;
	x.handle = w->storm_handle;
	x.length = VERIFY_SLOT;
	x.card_addr = VERIFY_BASE + (uint64_t)(proc_slot * MAX_THREADS + w->id) *
				    VERIFY_SLOT;
	x.dir = below(&w->r, 2);
	x.channel = below(&w->r, x.dir ? c->info.num_c2h : c->info.num_h2c);
	check(OP_XFER, ioctl(fd, HELLOFPGA_IOC_XFER, &x), n,
	      "4 MiB while an error comes");
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

/* ------------------------------------------------------------ streams -- */

static struct strm *strm_find(struct worker *w, int fd)
{
	for (int k = 0; k < NSTRM; k++)
		if (w->st[k].fd >= 0 && w->st[k].fd == fd)
			return &w->st[k];
	return NULL;
}

/* one of this thread's streams, or NULL */
static struct strm *strm_pick(struct worker *w)
{
	int k = below(&w->r, NSTRM);

	for (int i = 0; i < NSTRM; i++, k = (k + 1) % NSTRM)
		if (w->st[k].fd >= 0)
			return &w->st[k];
	return NULL;
}

/* the reference design's source of card @c's C2H @ch, sane values */
static void source_set(struct worker *w, int c, unsigned int ch)
{
	int i = node_of(c, N_USER, 0);
	uint32_t base = HF_USER_ST_SRC(ch), ctrl = HF_ST_SRC_CTRL_ENABLE;
	uint32_t size = 16 + 4 * below(&w->r, 4096);
	const struct node *n;

	if (i < 0)
		return;
	n = &nodes[i];
	if (chance(&w->r, 30))
		ctrl |= HF_ST_SRC_CTRL_DROP;
	if (chance(&w->r, 20))
		ctrl |= HF_ST_SRC_CTRL_RECORDS;
	if (chance(&w->r, 15))
		ctrl |= HF_ST_SRC_CTRL_IRQ |
			(uint32_t)below(&w->r, 16) << HF_ST_SRC_CTRL_IRQ_SHIFT;
	if (chance(&w->r, 5))
		ctrl = 0;
	{
		const uint32_t regs[][2] = {
			{ HF_ST_SRC_CTRL, 0 },
			{ HF_ST_SRC_FRAME_SIZE, size },
			{ HF_ST_SRC_REC_MIN, 16 },
			{ HF_ST_SRC_REC_MAX, size * 2 },
			{ HF_ST_SRC_INTERVAL_NS,
			  20000 + 1000 * (uint32_t)below(&w->r, 500) },
			{ HF_ST_SRC_COUNT,
			  chance(&w->r, 80) ? 0 : (uint32_t)below(&w->r, 200) },
			{ HF_ST_SRC_CTRL, ctrl },
		};

		for (size_t k = 0; k < sizeof(regs) / sizeof(regs[0]); k++)
			check(OP_RW_USER, pwrite(n->shared_fd, &regs[k][1], 4,
						 base + regs[k][0]), n,
			      "stream source set-up");
	}
}

/* STREAM_START: a ring in driver memory, in a pin, with writeback slots */
static void do_st_start(struct worker *w)
{
	int i = pick_stream_node(w), fd, pfd = -1, k, kind, sk = -1;
	const struct node *n = &nodes[i];
	struct hellofpga_stream_config c;
	uint64_t pin_size = 0;
	char what[200];
	void *arg;
	long ret;

	fd = node_fd(w, i);
	memset(&c, 0, sizeof(c));
	c.buffers = 2 + below(&w->r, 15);
	c.buffer_size = 4096 * (1 + below(&w->r, 16));
	c.mem = HELLOFPGA_MEM_HOST;
	c.pin_fd = -1;
	kind = below(&w->r, 10);
	if (kind >= 5 && kind <= 7) {
		/* in a pin of a control node of the card */
		pfd = ctl_fd(w, n->card);
		k = pfd < 0 ? -1 : own_pin(w, pfd);
		c.mem = HELLOFPGA_MEM_PIN;
		c.pin_fd = pfd;
		if (k >= 0) {
			uint64_t max;

			pin_size = w->sizes[k];
			c.pin_handle = w->handles[k] & 0xffffffffu;
			if (pin_size / c.buffer_size < 2)
				c.buffer_size = 4096;
			max = pin_size / c.buffer_size;
			if (max > 16)
				max = 16;
			c.buffers = max >= 2 ? 2 + below(&w->r, max - 1) : 2;
			if (c.buffers * c.buffer_size <= pin_size)
				c.pin_offset = 4096 * below(&w->r, (pin_size - c.buffers * c.buffer_size) / 4096 + 1);
		} else {
			c.pin_handle = pick_handle(w, pfd);
		}
	}
	if (chance(&w->r, 25)) {
		/* the writeback slots in a pin of the arena's second half */
		int wfd = ctl_fd(w, n->card);
		int wk = wfd < 0 ? -1 : arena_pin(w, &nodes[node_of(n->card, N_CONTROL, 0)], wfd);

		c.flags = HELLOFPGA_STREAM_WB_PIN;
		c.wb_fd = wfd;
		if (wk >= 0) {
			c.wb_handle = w->handles[wk] & 0xffffffffu;
			c.wb_offset = ARENA_SLOTS +
				      32 * below(&w->r, (ARENA_LEN - ARENA_SLOTS) / 32 - c.buffers + 1);
			if (chance(&w->r, 40))
				sk = forge_start(w, (int)(c.wb_offset + 32 * below(&w->r, c.buffers)) | FORGE_SLOT);
		}
	}
	if (kind == 8) {
		fill_random(w, &c, sizeof(c));
	} else if (kind == 9) {
		switch (below(&w->r, 9)) {
		case 0:
			c.buffers = below(&w->r, 2) ? below(&w->r, 2) : 513 + below(&w->r, 1000);
			break;
		case 1:
			c.buffer_size = chance(&w->r, 50) ? 0 : 1 + below(&w->r, 1u << 29);
			break;
		case 2:
			c.mem = below(&w->r, 2) ? 0 : 3 + below(&w->r, 100);
			break;
		case 3:
			c.reserved[0] = 1;
			break;
		case 4:
			c.flags = 1u << below(&w->r, 32);
			break;
		case 5:
			c.pin_fd = node_fd(w, below(&w->r, nnodes));
			c.mem = HELLOFPGA_MEM_PIN;
			c.pin_handle = pick_handle(w, c.pin_fd);
			break;
		case 6:
			c.mmap_size = 1;
			break;
		case 7:
			c.wb_offset = 32;
			break;
		default:
			c.buffer_size = 4 << 20 | 4096 * below(&w->r, 256);
			break;
		}
	}
	snprintf(what, sizeof(what), "mem %u buffers %u size 0x%llx pin %d:%llu+0x%llx flags 0x%x wb %d:%llu+0x%llx",
		 c.mem, c.buffers, (unsigned long long)c.buffer_size, c.pin_fd,
		 (unsigned long long)c.pin_handle,
		 (unsigned long long)c.pin_offset, c.flags, c.wb_fd,
		 (unsigned long long)c.wb_handle,
		 (unsigned long long)c.wb_offset);
	arg = arg_of(w, &c, sizeof(c));
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_START, arg);
	check_ret(OP_ST_START, ret, n, what);
	if (ret && errno == EBUSY && chance(&w->r, 50)) {
		/* the channel's stream may be the shared file's: end it */
		struct hellofpga_stream_stop s0 = { 0 };

		check(OP_ST_STOP, ioctl(n->shared_fd, HELLOFPGA_IOC_STREAM_STOP,
					&s0), n, "STREAM_STOP of the shared file");
	}
	if (ret || arg != &c) {
		if (ret)
			forge_end(w, sk);
		return;
	}
	atomic_fetch_add(&sh->rings[c.flags ? 2 : c.mem == HELLOFPGA_MEM_PIN], 1);
	if (c.mmap_size != (c.mem == HELLOFPGA_MEM_HOST ?
			    (uint64_t)c.buffers * c.buffer_size : 0))
		bad_data("STREAM_START on %s: mmap_size 0x%llx (%s)", n->path,
			 (unsigned long long)c.mmap_size, what);
	/* remember it (replacing one) */
	{
		struct strm *s = strm_find(w, fd);

		if (!s)
			s = &w->st[below(&w->r, NSTRM)];
		memset(s, 0, sizeof(*s));
		s->node = i;
		s->fd = fd;
		s->own = fd != n->shared_fd;
		s->mem = c.mem;
		s->n = c.buffers;
		s->size = c.buffer_size;
		s->mlen = c.mmap_size;
		s->pin_off = c.mem == HELLOFPGA_MEM_PIN ? c.pin_offset : 0;
	}
	if (chance(&w->r, 60))
		source_set(w, n->card, n->index);
}

/* the file and (when it is this thread's) stream to call on */
static int st_target(struct worker *w, struct strm **sp, int *node)
{
	struct strm *s = chance(&w->r, 70) ? strm_pick(w) : NULL;
	int i;

	*sp = s;
	if (s) {
		*node = s->node;
		return s->fd;
	}
	i = pick_stream_node(w);
	*node = i;
	/* the shared file mostly: the streams other workers left there */
	return chance(&w->r, 60) ? nodes[i].shared_fd : node_fd(w, i);
}

/*
 * ENOENT for a stream this thread started on a file of its own and did
 * not stop: nobody else can stop it (nothing else has the file), so the
 * driver lost it (or thinks a STOP is under way).
 */
static void st_lost(const struct strm *s, long ret, const char *what)
{
	if (ret && errno == ENOENT && s && s->own)
		bad("%s on %s: ENOENT for the stream this thread started on its own file and never stopped",
		    what, nodes[s->node].path);
}

/* the buffer a WAIT gave, back at once (rings keep flowing) */
static void st_give_back(struct worker *w, int fd, const struct node *n,
			 struct strm *s, uint32_t index)
{
	struct hellofpga_stream_release r = { .index = index };
	long ret;

	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_RELEASE, &r);
	check_ret(OP_ST_RELEASE, ret, n, "STREAM_RELEASE of the buffer WAIT gave");
	st_lost(s, ret, "STREAM_RELEASE");
	if (s && s->own && index < s->n)
		s->held[index / 64] &= ~(1ull << (index % 64));
}

static void do_st_wait(struct worker *w)
{
	struct hellofpga_stream_frame f;
	struct strm *s;
	int i, fd = st_target(w, &s, &i);
	const struct node *n = &nodes[i];
	char what[96];
	void *arg;
	long ret;

	memset(&f, 0, sizeof(f));
	switch (below(&w->r, 20)) {
	case 0:
		f.timeout_ns = HELLOFPGA_STREAM_MAX_WAIT_NS + 1 + below(&w->r, 1ull << 40);
		break;
	case 1:
		fill_random(w, &f, sizeof(f));
		break;
	case 2:
		f.reserved[below(&w->r, 4)] = 1;
		break;
	case 3:
	case 4:
	case 5:
		f.timeout_ns = 1000000ull * (5 + below(&w->r, WAIT_MAX_MS - 4));
		break;
	case 6 ... 12:
		f.timeout_ns = 1000000ull * below(&w->r, 5);
		break;
	default:
		f.timeout_ns = 0;
		break;
	}
	snprintf(what, sizeof(what), "timeout %llu ns", (unsigned long long)f.timeout_ns);
	arg = arg_of(w, &f, sizeof(f));
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_WAIT, arg);
	check_ret(OP_ST_WAIT, ret, n, what);
	if (arg != &f)
		return;
	st_lost(s, ret, "STREAM_WAIT");
	if (f.timeout_ns > HELLOFPGA_STREAM_MAX_WAIT_NS && !f.flags && !f.pad &&
	    !f.reserved[0] && !f.reserved[1] && !f.reserved[2] && !f.reserved[3])
		must_fail(OP_ST_WAIT, ret, n, what,
			  "timeout_ns above HELLOFPGA_STREAM_MAX_WAIT_NS");
	if (ret)
		return;
	atomic_fetch_add(&sh->stream_frames, 1);
	if (f.frame_flags & ~HELLOFPGA_STREAM_EOP)
		bad_data("STREAM_WAIT on %s: frame_flags 0x%x", n->path, f.frame_flags);
	if (!s || !s->own) {
		if (chance(&w->r, 70))
			st_give_back(w, fd, n, NULL, f.index);
		return;
	}
	/* this thread's own stream: its geometry is known */
	if (f.index >= s->n || f.length > s->size ||
	    f.offset != s->pin_off + f.index * s->size)
		bad_data("STREAM_WAIT on %s: buffer %u, length %llu, offset 0x%llx of a ring of %u x 0x%llx at 0x%llx",
			 n->path, f.index, (unsigned long long)f.length,
			 (unsigned long long)f.offset, s->n,
			 (unsigned long long)s->size,
			 (unsigned long long)s->pin_off);
	else if (chance(&w->r, 60))
		st_give_back(w, fd, n, s, f.index);
	else
		s->held[f.index / 64] |= 1ull << (f.index % 64);
}


static void do_st_release(struct worker *w)
{
	struct hellofpga_stream_release r = { 0 };
	struct strm *s;
	int i, fd = st_target(w, &s, &i), held = -1;
	const struct node *n = &nodes[i];
	char what[64];
	long ret;

	if (s) {
		for (int b = 0; b < (int)s->n && held < 0; b++)
			if (s->held[b / 64] & 1ull << (b % 64))
				held = b;
	}
	switch (below(&w->r, 12)) {
	case 0:
		r.flags = HELLOFPGA_STREAM_WAKE;
		break;
	case 1:
		r.flags = chance(&w->r, 50) ? HELLOFPGA_STREAM_WAKE : 1u << below(&w->r, 32);
		r.index = 1 + below(&w->r, 4);
		break;
	case 2:
		r.reserved[below(&w->r, 2)] = 1;
		break;
	case 3:
		r.index = chance(&w->r, 50) ? (uint32_t)rnd(&w->r) : below(&w->r, 520);
		break;
	default:
		r.index = held >= 0 ? (uint32_t)held : below(&w->r, 16);
		break;
	}
	snprintf(what, sizeof(what), "index %u flags 0x%x", r.index, r.flags);
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_RELEASE, arg_of(w, &r, sizeof(r)));
	check_ret(OP_ST_RELEASE, ret, n, what);
	st_lost(s, ret, "STREAM_RELEASE");
	if (s && !r.flags && r.index < s->n)
		s->held[r.index / 64] &= ~(1ull << (r.index % 64));
}

/* read a few bytes of a ring mapping (it must stay readable) */
static void rmap_touch(struct worker *w, const struct rmap *m)
{
	volatile uint8_t sink;

	for (int k = 0; k < 4; k++)
		sink = m->p[below(&w->r, m->len)];
	(void)sink;
}

static void do_st_stop(struct worker *w)
{
	struct hellofpga_stream_stop s0;
	struct strm *s;
	int i, fd = st_target(w, &s, &i);
	const struct node *n = &nodes[i];
	long ret;

	memset(&s0, 0, sizeof(s0));
	if (chance(&w->r, 5))
		s0.flags = 1u << below(&w->r, 32);
	else if (chance(&w->r, 5))
		s0.reserved[below(&w->r, 2)] = 1;
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, arg_of(w, &s0, sizeof(s0)));
	check_ret(OP_ST_STOP, ret, n, "STREAM_STOP");
	st_lost(s, ret, "STREAM_STOP");
	/* EIO: the engine did not stop, but the stream is over anyway */
	if (!ret || errno == EIO || errno == ENOENT) {
		if (!s)
			s = strm_find(w, fd);
		if (s)
			s->fd = -1;
	}
	/* the mappings of a stopped ring stay readable */
	for (int k = 0; k < NRMAP; k++)
		if (w->rm[k].p)
			rmap_touch(w, &w->rm[k]);
}

static void do_st_stats(struct worker *w)
{
	struct hellofpga_stream_stats st;
	struct strm *s;
	int i, fd = st_target(w, &s, &i);
	const struct node *n = &nodes[i];
	void *arg;
	long ret;

	memset(&st, 0, sizeof(st));
	if (chance(&w->r, 5))
		fill_random(w, &st, sizeof(st));
	else if (chance(&w->r, 5))
		st.held = 1;
	arg = arg_of(w, &st, sizeof(st));
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_STATS, arg);
	check_ret(OP_ST_STATS, ret, n, "STREAM_STATS");
	if (arg == &st && !st.held && !st.flags)
		st_lost(s, ret, "STREAM_STATS");
	if (!ret && arg == &st && s && s->own &&
	    (st.held > s->n || st.frames > st.buffers || st.running > 1))
		bad_data("STREAM_STATS on %s: held %u of %u, frames %llu of %llu buffers, running %u",
			 n->path, st.held, s->n, (unsigned long long)st.frames,
			 (unsigned long long)st.buffers, st.running);
}

/* mmap() of a ring: read-only, from offset 0; writable refused */
static void do_ring_mmap(struct worker *w)
{
	struct strm *s;
	int i, fd = st_target(w, &s, &i), k;
	const struct node *n = &nodes[i];
	size_t len = s && s->mlen ? s->mlen : 4096 * (1 + below(&w->r, 64));
	int prot = PROT_READ, mf = chance(&w->r, 70) ? MAP_SHARED : MAP_PRIVATE;
	off_t off = 0;
	bool refuse = false;
	char what[96];
	void *p;

	switch (below(&w->r, 12)) {
	case 0:
		prot |= PROT_WRITE;
		refuse = true;
		break;
	case 1:
		off = 4096 * (1 + below(&w->r, 4));
		break;
	case 2:
		len += 4096 * (1 + below(&w->r, 4));
		break;
	case 3:
		len = 4096 * (1 + below(&w->r, len / 4096));
		break;
	default:
		break;
	}
	snprintf(what, sizeof(what), "ring 0x%zx at 0x%llx prot %d %s", len,
		 (unsigned long long)off, prot,
		 mf == MAP_SHARED ? "shared" : "private");
	p = mmap(NULL, len, prot, mf, fd, off);
	check(OP_MMAP_RING, p == MAP_FAILED ? -1 : 0, n, what);
	if (p == MAP_FAILED)
		return;
	if (n->type == N_USER && !refuse) {
		munmap(p, len);		/* the user BAR */
		return;
	}
	if (refuse || n->type != N_C2H || !cards[n->card].stream)
		bad("mmap on %s succeeded (%s)%s", n->path, what,
		    refuse ? ": a ring is read-only" : "");
	atomic_fetch_add(&sh->ring_maps, 1);
	if (!mprotect(p, len, PROT_READ | PROT_WRITE))
		bad("mprotect(PROT_WRITE) of a ring mapping of %s succeeded (%s)",
		    n->path, what);
	k = below(&w->r, NRMAP);
	if (w->rm[k].p) {
		rmap_touch(w, &w->rm[k]);
		munmap((void *)w->rm[k].p, w->rm[k].len);
	}
	w->rm[k].p = p;
	w->rm[k].len = len;
	rmap_touch(w, &w->rm[k]);
}

static void do_ring_munmap(struct worker *w)
{
	int k = below(&w->r, NRMAP);

	if (!w->rm[k].p)
		return;
	rmap_touch(w, &w->rm[k]);
	munmap((void *)w->rm[k].p, w->rm[k].len);
	w->rm[k].p = NULL;
}

static void do_source(struct worker *w)
{
	int i = pick_stream_node(w);

	if (nodes[i].type == N_C2H && cards[nodes[i].card].stream)
		source_set(w, nodes[i].card, nodes[i].index);
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
	/* the fault window (user BAR 0xf000..0xf0ff) stays as it is, the
	 * stream sources and sinks get sane values only (source_set()), and
	 * a position the file may have after lseek counts too */
	if (n->type == N_USER && wr) {
		if (pos < 0 || (uint64_t)pos >= USER_SAFE)
			pos = 4 * below(&w->r, USER_SAFE / 4);
		if ((uint64_t)pos + len > USER_SAFE)
			len = USER_SAFE - pos;
		if ((uint64_t)pos < ST_REGS_HI && (uint64_t)pos + len > ST_REGS_LO)
			pos = 4 * below(&w->r, ST_REGS_LO / 4 - 16);
		if ((uint64_t)pos + len > ST_REGS_LO && (uint64_t)pos < ST_REGS_LO)
			len = ST_REGS_LO - pos;
		pos_io = true;
	}
	/*
	 * The file position of a DMA node stays near the first 64 MiB of
	 * card memory, so the card's (sparse) memory is not touched all over,
	 * and never reaches the card areas of do_verify(): on a shared file
	 * another thread may move it between the lseek and the call, and a
	 * refused lseek leaves it where an earlier one put it: pread/pwrite
	 * then.
	 */
	if (fd == n->shared_fd && (n->type == N_H2C || n->type == N_C2H))
		pos_io = true;
	if (!pos_io && (n->type == N_H2C || n->type == N_C2H) &&
	    lseek(fd, pos, SEEK_SET) != pos)
		pos_io = true;
	buf = rnd_ptr(w, len, !wr);
	if ((n->type == N_H2C || n->type == N_C2H) && chance(&w->r, 50)) {
		/* a valid one: the node's direction, a buffer of ours */
		struct region *g = &w->reg[below(&w->r, NREG)];

		wr = n->type == N_H2C;
		buf = g->p;
		len = g->p && (wr || !g->ro) ? below(&w->r, g->len + 1) : 0;
		pos = below(&w->r, CARD_WIN - MAX_IO);
		if (!pos_io && lseek(fd, pos, SEEK_SET) != pos)
			pos_io = true;
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

/* an H2C packet of an AXI-Stream card: write() at position 0 */
static void do_packet(struct worker *w)
{
	int i = pick_node(w, N_H2C, false), fd, start = below(&w->r, nnodes);
	struct region *g = rw_region(w, 4096);
	const struct node *n;
	size_t len;
	char what[96];
	long ret;

	for (int k = 0; k < nnodes; k++) {
		int j = (start + k) % nnodes;

		if (nodes[j].type == N_H2C && cards[nodes[j].card].stream) {
			i = j;
			break;
		}
	}
	n = &nodes[i];
	fd = node_fd(w, i);
	if (chance(&w->r, 90) && (fd_flags(w, i, fd) & O_ACCMODE) == O_RDONLY)
		fd = n->shared_fd;
	if (!g)
		return;
	len = chance(&w->r, 80) ? 16 + below(&w->r, g->len - 15) : below(&w->r, 16);
	if (chance(&w->r, 70) && len >= HF_STREAM_MIN_LEN)
		hf_stream_fill(g->p, rnd(&w->r) & 0xffffff, (uint32_t)len, 0,
			       (uint32_t)len);
	snprintf(what, sizeof(what), "packet of 0x%zx", len);
	if (chance(&w->r, 50) || !cards[n->card].stream ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		/* pwrite: a memory-mapped card's file position is a card
		 * address another thread may have moved */
		ret = pwrite(fd, g->p, len, 0);
	} else {
		ret = write(fd, g->p, len);
	}
	check(OP_PACKET, ret, n, what);
	if (ret >= 0 && (size_t)ret != len && cards[n->card].stream)
		bad("%s on %s: wrote %ld (a packet is never cut)", what, n->path,
		    ret);
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
	if (n->type == N_C2H && cards[n->card].stream && off == 0 &&
	    !(prot & PROT_WRITE)) {
		/* a stream ring of this file */
		atomic_fetch_add(&sh->ring_maps, 1);
		munmap((void *)p, len);
		return;
	}
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

/* a node for poll()/epoll: stream c2h and events nodes mostly */
static int pick_poll_node(struct worker *w)
{
	int i = below(&w->r, nnodes);

	if (chance(&w->r, 20))
		return i;
	for (int k = 0; k < nnodes; k++, i = (i + 1) % nnodes)
		if (nodes[i].type == N_EVENTS ||
		    (nodes[i].type == N_C2H && cards[nodes[i].card].stream))
			break;
	return i;
}

static void do_poll(struct worker *w)
{
	struct pollfd pf[4];

	for (int i = 0; i < 4; i++) {
		int k = pick_poll_node(w);

		pf[i].fd = node_fd(w, k);
		pf[i].events = POLLIN | POLLOUT | POLLPRI;
	}
	check(OP_POLL, poll(pf, 4, chance(&w->r, 80) ? below(&w->r, 3) :
					       below(&w->r, 20)), NULL, "poll");
}

/* epoll: a set per thread that keeps its files across calls */
static void do_epoll(struct worker *w)
{
	struct epoll_event ev = { 0 }, evs[8];
	int k = below(&w->r, NEPOLL), i, fd;
	char what[96];
	long ret;

	switch (below(&w->r, 12)) {
	case 0 ... 3:
		i = pick_poll_node(w);
		fd = node_fd(w, i);
		ev.events = EPOLLIN | EPOLLPRI | EPOLLERR |
			    (chance(&w->r, 20) ? EPOLLET : 0) |
			    (chance(&w->r, 10) ? EPOLLONESHOT : 0);
		ev.data.fd = fd;
		snprintf(what, sizeof(what), "ADD %s", nodes[i].path);
		ret = epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev);
		check(OP_EPOLL, ret, NULL, what);
		if (!ret)
			w->ep_fds[k] = fd;
		break;
	case 4:
	case 5:
		fd = w->ep_fds[k] >= 0 && chance(&w->r, 80) ? w->ep_fds[k] :
			node_fd(w, pick_poll_node(w));
		snprintf(what, sizeof(what), "DEL fd %d", fd);
		ret = epoll_ctl(w->ep, EPOLL_CTL_DEL, fd, NULL);
		check(OP_EPOLL, ret, NULL, what);
		if (!ret && w->ep_fds[k] == fd)
			w->ep_fds[k] = -1;
		break;
	case 6:
		fd = w->ep_fds[k] >= 0 ? w->ep_fds[k] : node_fd(w, pick_poll_node(w));
		ev.events = EPOLLIN | (chance(&w->r, 50) ? EPOLLET : 0);
		ev.data.fd = fd;
		snprintf(what, sizeof(what), "MOD fd %d", fd);
		check(OP_EPOLL, epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev), NULL,
		      what);
		break;
	case 7:
		if (chance(&w->r, 30)) {
			/* a new set: the old one's entries go with it */
			close(w->ep);
			w->ep = epoll_create1(EPOLL_CLOEXEC);
			for (int j = 0; j < NEPOLL; j++)
				w->ep_fds[j] = -1;
		}
		break;
	default:
		ret = epoll_wait(w->ep, evs, 8, chance(&w->r, 70) ? 0 :
					     (int)below(&w->r, 10));
		check(OP_EPOLL, ret, NULL, "epoll_wait");
		break;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A blocking read() of an events node (a file of its own, opened
 * blocking), the interrupt raised first or not; this thread's timer ends
 * it (SIGUSR1, no SA_RESTART: EINTR) when nothing comes.
 */
static void do_block_events(struct worker *w)
{
	int i = pick_node(w, N_EVENTS, false), fd, ui;
	struct itimerspec its = { 0 };
	const struct node *n = &nodes[i];
	uint32_t v = 0;
	long ret;

	if (n->type != N_EVENTS || !w->have_timer)
		return;
	fd = open(n->path, O_RDONLY | O_CLOEXEC);
	check(OP_OPEN, fd < 0 ? -1 : 0, n, "open blocking");
	if (fd < 0)
		return;
	ui = node_of(n->card, N_USER, 0);
	if (ui >= 0 && chance(&w->r, 60))
		check(OP_RW_USER, hfg_wr32(nodes[ui].shared_fd,
					   chance(&w->r, 50) ? HF_USER_IRQ_PULSE :
							       HF_USER_IRQ_SET,
					   1u << n->index) ? -1 : 0,
		      &nodes[ui], "user IRQ raise");
	its.it_value.tv_nsec = 1000000 * (1 + below(&w->r, 20));
	timer_settime(w->timer, 0, &its, NULL);
	ret = read(fd, &v, 4);
	memset(&its, 0, sizeof(its));
	timer_settime(w->timer, 0, &its, NULL);
	check(OP_BLOCK_EVENTS, ret, n, "blocking read");
	if (!ret || (ret > 0 && (ret != 4 || !v)))
		bad("blocking read of %s: %ld, count %u", n->path, ret, v);
	atomic_fetch_add(&sh->blocked_reads, 1);
	close(fd);
}

/* user interrupts: raise (level or pulse) or drop some lines */
static void do_user_irq(struct worker *w)
{
	static const uint32_t regs[] = { HF_USER_IRQ_SET, HF_USER_IRQ_CLEAR,
					 HF_USER_IRQ_PULSE };
	int i = pick_node(w, N_USER, false);
	uint32_t v = rnd(&w->r) & 0xffff;

	check(OP_RW_USER, pwrite(nodes[i].shared_fd, &v, 4,
				 regs[below(&w->r, 3)]), &nodes[i],
	      "user IRQ set/clear/pulse");
}

/* one region goes (with its pins staying) and another comes */
static void do_remap(struct worker *w)
{
	int i = 1 + below(&w->r, NREG - 1);

	region_unmap(&w->reg[i]);
	region_map(w, i);
}

/* ------------------------------------------------------------ workers -- */

static void one_op(struct worker *w)
{
	static const enum node_type rw_types[] = { N_H2C, N_C2H, N_H2C, N_C2H,
						   N_USER, N_EVENTS, N_CONTROL };
	unsigned int pick = below(&w->r, 1000);
	enum node_type want;
	const struct node *n;
	int i, fd, flags;

	op_t0 = now_ms();
	/* an error is about to come: transfers in flight when it does */
	if (atomic_load(&sh->storm) && chance(&w->r, 60)) {
		do_storm(w);
		goto done;
	}
	/* operations that choose their node themselves */
	switch (pick) {
	case 0 ... 39:
		do_xfer_wb(w);
		goto done;
	case 40 ... 59:
		do_verify(w);
		goto done;
	case 60 ... 99:
		do_st_start(w);
		goto done;
	case 100 ... 169:
		do_st_wait(w);
		goto done;
	case 170 ... 209:
		do_st_release(w);
		goto done;
	case 210 ... 234:
		do_st_stop(w);
		goto done;
	case 235 ... 249:
		do_st_stats(w);
		goto done;
	case 250 ... 274:
		do_ring_mmap(w);
		goto done;
	case 275 ... 289:
		do_ring_munmap(w);
		goto done;
	case 290 ... 299:
		do_source(w);
		goto done;
	case 300 ... 319:
		do_packet(w);
		goto done;
	case 320 ... 334:
		do_poll(w);
		goto done;
	case 335 ... 364:
		do_epoll(w);
		goto done;
	case 365 ... 374:
		do_block_events(w);
		goto done;
	case 375 ... 389:
		do_user_irq(w);
		goto done;
	case 390 ... 409:
		do_remap(w);
		goto done;
	default:
		break;
	}
	/* the node: mostly what the operation is for, else any */
	if (pick >= 700 && pick < 740)
		want = chance(&w->r, 50) ? N_H2C : N_C2H;
	else if (pick >= 780 && pick < 900)
		want = rw_types[below(&w->r, 7)];
	else if (pick >= 900 && pick < 930)
		want = N_USER;
	else
		want = N_CONTROL;
	i = pick_node(w, want, pick >= 960 || chance(&w->r, 25));
	n = &nodes[i];
	fd = node_fd(w, i);
	flags = fd_flags(w, i, fd);

	switch (pick) {
	case 410 ... 449:
		do_info(w, n, fd);
		break;
	case 450 ... 474:
		do_stats(w, n, fd);
		break;
	case 475 ... 489:
		do_lasterr(w, n, fd);
		break;
	case 490 ... 499:
		do_set_timeout(w, n, fd);
		break;
	case 500 ... 589:
		do_pin(w, n, fd);
		break;
	case 590 ... 639:
		do_unpin(w, n, fd);
		break;
	case 640 ... 699:
		do_xfer(w, n, fd);
		break;
	case 700 ... 739:
		do_xilinx(w, n, fd);
		break;
	case 740 ... 779:
		do_random_ioctl(w, n, fd);
		break;
	case 780 ... 879:
		do_rw(w, n, fd, flags);
		break;
	case 880 ... 899:
		do_lseek(w, n, fd);
		break;
	case 900 ... 929:
		do_mmap(w, n, fd, flags);
		break;
	default:
		reopen(w, i);
		break;
	}
done:
	w->ops++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sigevent sev = { 0 };

	for (int i = 1; i < NREG; i++)
		region_map(w, i);
	/*
	 * No access there, as at an unmapped address, but reserved for good:
	 * a range unmapped at once would be reused by the next mmap() (a
	 * buffer of do_verify()), and calls given it would write into that.
	 */
	w->unmapped = mmap(NULL, 65536, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	w->none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	w->ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	for (int i = 0; i < NEPOLL; i++)
		w->ep_fds[i] = -1;
	for (int i = 0; i < NSTRM; i++)
		w->st[i].fd = -1;
	for (int i = 0; i < MAX_CARDS; i++)
		w->vfd[i] = -1;
	/* the timer that ends blocking reads: SIGUSR1 to this thread */
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	w->have_timer = !timer_create(CLOCK_MONOTONIC, &sev, &w->timer);
	op_t0 = now_ms();
	for (int i = 0; i < nnodes; i++) {
		w->fds[i] = -1;
		reopen(w, i);
	}
	while (!atomic_load(&sh->stop))
		one_op(w);
	for (int i = 0; i < NRMAP; i++)
		if (w->rm[i].p)
			munmap((void *)w->rm[i].p, w->rm[i].len);
	for (int i = 0; i < nnodes; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	for (int i = 0; i < MAX_CARDS; i++)
		if (w->vfd[i] >= 0)
			close(w->vfd[i]);
	close(w->ep);
	for (int i = 1; i < NREG; i++)
		region_unmap(&w->reg[i]);
	return NULL;
}

/*
 * The forger: keeps writing "all done" into the writeback words of this
 * process's XFER_WB runs (0x00ffffff, a count no chain reaches, or a small
 * one) and a completed status into stream writeback slots, in the arenas.
 */
static atomic_int forger_stop;

static void *forger_main(void *arg)
{
	struct rng r;

	rng_seed(&r, (uint64_t)(uintptr_t)arg);
	while (!atomic_load(&forger_stop)) {
		struct timespec ts = { 0, 500000 + 1000 * (long)below(&r, 1500) };

		for (int t = 0; t < nthreads; t++) {
			uint8_t *a = workers[t].reg[0].p;

			for (int k = 0; a && k < NFORGE; k++) {
				int off = atomic_load(&workers[t].forge[k]);
				volatile uint32_t *p;

				if (off < 0)
					continue;
				p = (volatile uint32_t *)(a + (off & ~FORGE_SLOT));
				if (off & FORGE_SLOT) {
					p[1] = rnd(&r);
					p[0] = 0x52b40000u | (uint32_t)below(&r, 2);
				} else {
					p[0] = chance(&r, 70) ? 0x00ffffffu :
						1 + (uint32_t)below(&r, 16);
				}
			}
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* a worker process: THREADS threads and the forger until stop */
static void worker_process(int slot, unsigned int gen)
{
	pthread_t th[MAX_THREADS], fth;
	struct sigaction sa = { 0 };
	uint64_t ps = seed ^ (0x9e3779b97f4a7c15ull * (slot + 1)) ^
		      (0xbf58476d1ce4e5b9ull * gen);

	proc_slot = slot;
	sa.sa_handler = on_alarm;	/* no SA_RESTART: EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	workers = calloc(nthreads, sizeof(*workers));
	if (!workers)
		_exit(3);
	for (int t = 0; t < nthreads; t++) {
		struct worker *w = &workers[t];

		w->id = t;
		rng_seed(&w->r, ps ^ (0x94d049bb133111ebull * (t + 1)));
		for (int k = 0; k < NFORGE; k++)
			atomic_init(&w->forge[k], -1);
		region_map(w, 0);
	}
	pthread_create(&fth, NULL, forger_main, (void *)(uintptr_t)(ps | 1));
	for (int t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker_main, &workers[t]);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	atomic_store(&forger_stop, 1);
	pthread_join(fth, NULL);
	_exit(0);
}

/* --------------------------------------------------------- supervisor -- */

struct aer {
	char qmpid[32];
	int card;
	long long at;		/* when to inject, ms since boot */
	long long sent;		/* last request, 0 before */
	int tries, win;
	bool errored, done, failed;
	long long seen_err, seen_ok;
};

static struct aer aers[MAX_AER];
static int naer;
static int kmsg = -1;
static pid_t pids[MAX_PROCS];
static unsigned int gens[MAX_PROCS];
static long long t_start;
static struct rng srng;		/* the supervisor's own */

static void spawn(int slot)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		worker_process(slot, gens[slot]);
	pids[slot] = pid;
	gens[slot]++;
	atomic_fetch_add(&sh->spawns, 1);
}

/* a reaped worker's end: only our SIGKILL or a clean exit */
static void reaped(int slot, int status, bool killed)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return;
	bad("worker process %d (slot %d) ended with %s %d", (int)pids[slot],
	    slot, WIFSIGNALED(status) ? "signal" : "exit status",
	    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static void kill_one(void)
{
	int slot = below(&srng, nprocs), status;

	if (pids[slot] <= 0)
		return;
	kill(pids[slot], SIGKILL);
	if (waitpid(pids[slot], &status, 0) == pids[slot])
		reaped(slot, status, true);
	atomic_fetch_add(&sh->kills, 1);
	spawn(slot);
}

/* Whether this guest can inject an AER error (the QMP channel, AER) and
 * watch the kernel log for the recovery: /dev/kmsg open in kmsg. */
static bool aer_possible(const char **why)
{
	if (!hfg_aer_possible(NULL, "CFG_QMP or CFG_CARD2", why))
		return false;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0) {
		*why = "/dev/kmsg cannot be read (CAP_SYSLOG: hf_runas -c 34)";
		return false;
	}
	lseek(kmsg, 0, SEEK_END);
	return true;
}

static void aer_send(struct aer *a)
{
	int fd = open("/dev/console", O_WRONLY | O_CLOEXEC);
	int k = atomic_load(&sh->nwin[a->card]);

	if (a->win < 0) {
		if (k >= MAX_WIN)
			return;
		/* the window opens before the request goes out */
		a->win = k;
		atomic_store(&sh->win[a->card][k].start, now_ms());
		atomic_store(&sh->win[a->card][k].end, 0);
		atomic_store(&sh->nwin[a->card], k + 1);
	}
	a->sent = now_ms();
	a->tries++;
	if (fd >= 0) {
		dprintf(fd, "\nHF-QMP fuzz-aer-%d-%d-%d {\"execute\":\"human-monitor-command\",\"arguments\":{\"command-line\":\"pcie_aer_inject_error %s UNSUP\"}}\n",
			(int)getpid(), (int)(a - aers), a->tries, a->qmpid);
		close(fd);
	}
	printf("# aer: %s (card %d) requested at %.1f s (try %d)\n",
	       a->qmpid, a->card, (a->sent - t_start) / 1000.0, a->tries);
	fflush(stdout);
}

/* the kernel's lines since the last look: the errors and recoveries */
static void aer_watch(void)
{
	char rec[2048], pat[96];
	ssize_t n;

	while (kmsg >= 0) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten: read on */
		if (n <= 0)
			break;
		rec[n] = 0;
		for (int j = 0; j < naer; j++) {
			struct aer *a = &aers[j];

			if (!a->sent || a->done)
				continue;
			snprintf(pat, sizeof(pat), "%s: PCIe error (",
				 cards[a->card].name);
			if (!a->errored && strstr(rec, pat)) {
				a->errored = true;
				a->seen_err = now_ms();
			}
			snprintf(pat, sizeof(pat), "%s: recovered from the PCIe error",
				 cards[a->card].name);
			if (a->errored && strstr(rec, pat)) {
				a->done = true;
				a->seen_ok = now_ms();
				atomic_store(&sh->win[a->card][a->win].end,
					     a->seen_ok);
				printf("# aer: %s recovered at %.1f s\n",
				       a->qmpid, (a->seen_ok - t_start) / 1000.0);
				fflush(stdout);
				break;	/* one line closes one window */
			}
		}
	}
	for (int j = 0; j < naer; j++) {
		struct aer *a = &aers[j];
		long long now = now_ms();

		/* a request line the console garbled: ask again */
		if (a->sent && !a->errored && !a->done && now - a->sent > 4000) {
			if (a->tries < 3) {
				aer_send(a);
			} else if (!a->failed) {
				a->failed = true;
				a->done = true;
				atomic_store(&sh->win[a->card][a->win].end, now);
			}
		}
		if (a->errored && !a->done && now - a->seen_err > 30000) {
			a->failed = true;
			a->done = true;
			atomic_store(&sh->win[a->card][a->win].end, now);
		}
	}
}

static void aer_tick(void)
{
	long long now = now_ms();
	bool storm = false;

	for (int j = 0; j < naer; j++) {
		if (!aers[j].sent && now >= aers[j].at)
			aer_send(&aers[j]);
		/* from 400 ms before a request until the recovery is over */
		storm |= !aers[j].done && now + 400 >= aers[j].at;
	}
	aer_watch();
	atomic_store(&sh->storm, storm);
}

static void aer_results(void)
{
	for (int j = 0; j < naer; j++) {
		struct aer *a = &aers[j];
		char name[64];
		long rec = 0;

		snprintf(name, sizeof(name), "aer-%.20s-%d", a->qmpid, j);
		if (!a->sent) {
			HFG_FAIL(name, "never requested");
		} else if (a->failed || !a->done) {
			HFG_FAIL(name, "%s: no %s after %d request(s) (the host's QMP answers: logs/CONFIG.log.qmp.out)",
				 a->qmpid, a->errored ?
				 "\"recovered from the PCIe error\" within 30 s of the error" :
				 "\"PCIe error (\" line within 4 s", a->tries);
		} else {
			for (int o = 0; o < OP_COUNT; o++)
				rec += atomic_load(&sh->recov[o]);
			HFG_PASS(name, "a non-fatal error into %s (card %d) at %.1f s, handled, recovered %.1f s after the request, while the workers ran (%ld calls failed with EIO in the recovery windows)",
				 a->qmpid, a->card, (a->sent - t_start) / 1000.0,
				 (a->seen_ok - a->sent) / 1000.0, rec);
		}
	}
}

/* ------------------------------------------------------------- set-up -- */

static void add_node(int card, const char *suffix, enum node_type t,
		     unsigned int index)
{
	struct node *n = &nodes[nnodes];

	snprintf(n->path, sizeof(n->path), "%s%s", cards[card].prefix, suffix);
	if (access(n->path, F_OK))
		return;
	n->type = t;
	n->card = card;
	n->index = index;
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
	const char *b = strrchr(cards[c].prefix, '/');
	uint32_t v;

	snprintf(cards[c].name, sizeof(cards[c].name), "%s",
		 b ? b + 1 : cards[c].prefix);
	if (fd < 0 || hfg_info(fd, &cards[c].info)) {
		HFG_FAIL("setup", "%s_control: %s", cards[c].prefix,
			 strerror(errno));
		return -1;
	}
	cards[c].stream = cards[c].info.features & HELLOFPGA_FEAT_STREAM;
	/* raw register access must be refused: the fuzzer writes at random */
	if (pread(fd, &v, 4, 0) == 4 || errno != EPERM) {
		HFG_FAIL("setup", "%s_control lets this process read DMA registers: run hf_fuzz without CAP_SYS_RAWIO (hf_runas)",
			 cards[c].prefix);
		close(fd);
		return -1;
	}
	close(fd);
	add_node(c, "_control", N_CONTROL, 0);
	add_node(c, "_user", N_USER, 0);
	for (unsigned int i = 0; i < cards[c].info.num_h2c; i++) {
		snprintf(sfx, sizeof(sfx), "_h2c_%u", i);
		add_node(c, sfx, N_H2C, i);
	}
	for (unsigned int i = 0; i < cards[c].info.num_c2h; i++) {
		snprintf(sfx, sizeof(sfx), "_c2h_%u", i);
		add_node(c, sfx, N_C2H, i);
	}
	for (unsigned int i = 0; i < 16; i++) {
		snprintf(sfx, sizeof(sfx), "_events_%u", i);
		add_node(c, sfx, N_EVENTS, i);
	}
	return 0;
}

/* every source of the stream cards: 4 KiB frames, 50 us apart (or off) */
static void sources(bool on)
{
	for (int i = 0; i < nnodes; i++) {
		const struct node *n = &nodes[i];
		int u = node_of(n->card, N_USER, 0);
		uint32_t base = HF_USER_ST_SRC(n->index);

		if (n->type != N_C2H || !cards[n->card].stream || u < 0)
			continue;
		u = nodes[u].shared_fd;
		hfg_wr32(u, base + HF_ST_SRC_CTRL, 0);
		if (!on)
			continue;
		hfg_wr32(u, base + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR);
		hfg_wr32(u, base + HF_ST_SRC_FRAME_SIZE, 4096);
		hfg_wr32(u, base + HF_ST_SRC_REC_MIN, 0);
		hfg_wr32(u, base + HF_ST_SRC_REC_MAX, 0);
		hfg_wr32(u, base + HF_ST_SRC_INTERVAL_NS, 50000);
		hfg_wr32(u, base + HF_ST_SRC_COUNT, 0);
		hfg_wr32(u, base + HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_ENABLE);
	}
}

/* ------------------------------------------------------------ after -- */

/*
 * The streams still open on the shared files, every worker gone: one
 * that STATS shows must take a WAIT (a buffer, or none yet, or EIO when
 * its ring ended, or EAGAIN for a WAKE nobody took), not ENOENT (nothing
 * is stopping it), and STOP.
 */
static void after_streams(void)
{
	int seen = 0, bad_n = 0;
	char why[640] = "";

	for (int i = 0; i < nnodes; i++) {
		const struct node *n = &nodes[i];
		struct hellofpga_stream_stats s;
		struct hellofpga_stream_frame f;
		struct hellofpga_stream_stop st;
		int ret;

		if (n->type != N_C2H || !cards[n->card].stream)
			continue;
		memset(&s, 0, sizeof(s));
		if (ioctl(n->shared_fd, HELLOFPGA_IOC_STREAM_STATS, &s))
			continue;
		seen++;
		memset(&f, 0, sizeof(f));
		ret = ioctl(n->shared_fd, HELLOFPGA_IOC_STREAM_WAIT, &f) ? errno : 0;
		if (ret == ENOENT || (ret && ret != ETIMEDOUT && ret != EIO &&
				      ret != EAGAIN)) {
			if (!bad_n++)
				snprintf(why, sizeof(why), "%.64s: STATS shows a stream (running %u), WAIT %.60s: %.300s",
					 n->path, s.running, strerror(ret),
					 hfg_drv_err(n->shared_fd));
		}
		memset(&st, 0, sizeof(st));
		if (ioctl(n->shared_fd, HELLOFPGA_IOC_STREAM_STOP, &st)) {
			if (!bad_n++)
				snprintf(why, sizeof(why), "%.64s: STOP: %.60s: %.300s",
					 n->path, strerror(errno),
					 hfg_drv_err(n->shared_fd));
		}
	}
	if (!bad_n)
		HFG_PASS("streams-left", "%d stream(s) left on the shared files: each waited on and stopped",
			 seen);
	else
		HFG_FAIL("streams-left", "%s", why);
}

/* a ring with a few verified frames on C2H @ch of card @c */
static int stream_works(int c, unsigned int ch, char *why, size_t wl)
{
	int i = node_of(c, N_C2H, ch), fd;
	struct hellofpga_stream_config cfg = { .buffers = 4, .buffer_size = 8192,
					       .mem = HELLOFPGA_MEM_HOST, .pin_fd = -1 };
	struct hellofpga_stream_stop st = { 0 };
	struct hf_stream_check chk;
	const uint8_t *m = MAP_FAILED;
	int frames = 0, ret = -1;
	uint64_t seq;

	fd = i < 0 ? -1 : open(nodes[i].path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wl, "open C2H%u: %s", ch, strerror(errno));
		return -1;
	}
	if (ioctl(fd, HELLOFPGA_IOC_STREAM_START, &cfg)) {
		snprintf(why, wl, "C2H%u: STREAM_START: %s: %.300s", ch,
			 strerror(errno), hfg_drv_err(fd));
		goto out;
	}
	m = mmap(NULL, cfg.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		snprintf(why, wl, "C2H%u: mmap: %s", ch, strerror(errno));
		goto out;
	}
	hf_stream_check_init(&chk);
	while (frames < 4) {
		struct hellofpga_stream_frame f = { .timeout_ns = 5000000000ull };
		struct hellofpga_stream_release r = { 0 };

		if (ioctl(fd, HELLOFPGA_IOC_STREAM_WAIT, &f)) {
			snprintf(why, wl, "C2H%u: STREAM_WAIT: %s: %.300s", ch,
				 strerror(errno), hfg_drv_err(fd));
			goto out;
		}
		hf_stream_check_feed(&chk, m + f.offset, (uint32_t)f.length);
		if (f.frame_flags & HELLOFPGA_STREAM_EOP) {
			/* the first frame may be the rest of a cut one */
			if (!hf_stream_check_end(&chk, &seq) && frames) {
				snprintf(why, wl, "C2H%u: frame %d corrupt", ch,
					 frames);
				goto out;
			}
			frames++;
		}
		r.index = f.index;
		if (ioctl(fd, HELLOFPGA_IOC_STREAM_RELEASE, &r)) {
			snprintf(why, wl, "C2H%u: STREAM_RELEASE: %s", ch,
				 strerror(errno));
			goto out;
		}
	}
	ret = ioctl(fd, HELLOFPGA_IOC_STREAM_STOP, &st);
	if (ret)
		snprintf(why, wl, "C2H%u: STREAM_STOP: %s", ch, strerror(errno));
out:
	if (m != MAP_FAILED)
		munmap((void *)m, cfg.mmap_size);
	close(fd);
	return ret;
}

/* a good frame written to H2C @ch of card @c: the sink takes it */
static int packet_works(int c, unsigned int ch, char *why, size_t wl)
{
	int i = node_of(c, N_H2C, ch), u = node_of(c, N_USER, 0), fd;
	static uint8_t buf[4096];
	uint32_t ok = 0, badf = 0;
	ssize_t r;

	fd = i < 0 ? -1 : open(nodes[i].path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || u < 0) {
		snprintf(why, wl, "open H2C%u: %s", ch, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	u = nodes[u].shared_fd;
	hfg_wr32(u, HF_USER_ST_SINK(ch) + HF_ST_SINK_CTRL, HF_ST_SINK_CTRL_CLEAR);
	hf_stream_fill(buf, 77, sizeof(buf), 0, sizeof(buf));
	r = write(fd, buf, sizeof(buf));
	hfg_rd32(u, HF_USER_ST_SINK(ch) + HF_ST_SINK_FRAMES_OK, &ok);
	hfg_rd32(u, HF_USER_ST_SINK(ch) + HF_ST_SINK_FRAMES_BAD, &badf);
	if (r != sizeof(buf) || ok != 1 || badf) {
		snprintf(why, wl, "H2C%u: write %zd (%s), the sink saw %u good, %u bad frames",
			 ch, r, r < 0 ? hfg_drv_err(fd) : "", ok, badf);
		close(fd);
		return -1;
	}
	close(fd);
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
		char name[64], sfx[16], why[640] = "";
		int bad_ch = -1, hf = -1, cf = -1;

		if (ufd >= 0) {
			if (pwrite(ufd, &all, 4, HF_USER_IRQ_CLEAR) != 4)
				perror("user IRQ clear");
			close(ufd);
		}
		snprintf(name, sizeof(name), "no-pin-left-card%d", c);
		memset(&st, 0, sizeof(st));
		if (fd >= 0 && !hfg_stats(fd, &st) && !st.pins && !st.pinned_bytes)
			HFG_PASS(name, "%s: GET_STATS: 0 pins, 0 bytes pinned (no pin, no ring)", p);
		else
			HFG_FAIL(name, "%s after every file of the fuzzer was closed: %llu pins, %llu bytes pinned",
				 p, (unsigned long long)st.pins,
				 (unsigned long long)st.pinned_bytes);
		if (fd >= 0)
			close(fd);
		snprintf(name, sizeof(name), "card%d-works-after", c);
		if (cards[c].stream) {
			for (unsigned int ch = 0; ch < cards[c].info.num_c2h &&
			     bad_ch < 0; ch++)
				if (stream_works(c, ch, why, sizeof(why)))
					bad_ch = ch;
			for (unsigned int ch = 0; ch < cards[c].info.num_h2c &&
			     bad_ch < 0; ch++)
				if (packet_works(c, ch, why, sizeof(why)))
					bad_ch = ch;
			if (bad_ch < 0)
				HFG_PASS(name, "%s: a ring with verified frames on every C2H channel, a packet the sink takes on every H2C channel", p);
			else
				HFG_FAIL(name, "%s: %s", p, why);
			continue;
		}
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
		if (bad_ch < 0)
			HFG_PASS(name, "%s: a round trip on every H2C channel", p);
		else
			HFG_FAIL(name, "%s: the round trip through H2C%d failed: %s",
				 p, bad_ch, strerror(errno));
	}
}

static void report_bad(enum bad_kind k, const char *name, const char *ok_text)
{
	long n = atomic_load(&sh->nbad[k]);

	if (!n) {
		HFG_PASS(name, "%s", ok_text);
		return;
	}
	HFG_FAIL(name, "%ld (seed %llu, replay: hf_fuzz -S %llu); first: %s%s%s",
		 n, (unsigned long long)seed, (unsigned long long)seed,
		 sh->text[k][0], n > 1 ? "; then: " : "",
		 n > 1 ? sh->text[k][1] : "");
}

int main(int argc, char **argv)
{
	long total = 0, failed = 0;
	long long end, next_kill;
	char ok_text[400];
	int opt, status;

	seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 16;
	while ((opt = getopt(argc, argv, "s:S:t:p:k:g:A:v")) != -1) {
		if (opt == 's') {
			secs = atof(optarg);
		} else if (opt == 'S') {
			seed = strtoull(optarg, NULL, 0);
		} else if (opt == 't') {
			nthreads = atoi(optarg);
		} else if (opt == 'p') {
			nprocs = atoi(optarg);
		} else if (opt == 'k') {
			kill_ms = atoi(optarg);
		} else if (opt == 'v') {
			verbose = true;
		} else if (opt == 'g') {
			group = optarg;
		} else if (opt == 'A' && naer < MAX_AER && strchr(optarg, ':')) {
			struct aer *a = &aers[naer++];

			snprintf(a->qmpid, sizeof(a->qmpid), "%.*s",
				 (int)(strchr(optarg, ':') - optarg), optarg);
			a->card = atoi(strchr(optarg, ':') + 1);
			a->win = -1;
		} else {
			return 2;
		}
	}
	hfg_group = group;
	if (optind >= argc || nthreads < 1 || nthreads > MAX_THREADS ||
	    nprocs < 1 || nprocs > MAX_PROCS || kill_ms < 300) {
		fprintf(stderr, "usage: hf_fuzz [-s SECONDS] [-S SEED] [-p PROCS] [-t THREADS] [-k MS] [-g GROUP] [-A QMPID:CARD]... [-v] CARD...\n");
		return 2;
	}
	printf("seed %llu\n", (unsigned long long)seed);
	fflush(stdout);
	{
		/* on the console too: a run the kernel does not survive */
		int fd = open("/dev/console", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			dprintf(fd, "\n# hf_fuzz %s: seed %llu (replay: hf_fuzz -S %llu)\n",
				group, (unsigned long long)seed,
				(unsigned long long)seed);
			close(fd);
		}
	}
	rng_seed(&srng, seed ^ 0x5bd1e995ull);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	for (int i = optind; i < argc && ncards < MAX_CARDS; i++)
		cards[ncards++].prefix = argv[i];
	for (int c = 0; c < ncards; c++)
		if (setup_card(c))
			return 1;
	for (int j = 0; j < naer; j++)
		if (aers[j].card < 0 || aers[j].card >= ncards) {
			fprintf(stderr, "hf_fuzz: -A %s:%d: no such card\n",
				aers[j].qmpid, aers[j].card);
			return 2;
		}
	if (naer) {
		const char *why;

		if (!aer_possible(&why)) {
			HFG_SKIP("aer", "%s", why);
			naer = 0;
		}
	}
	sources(true);
	t_start = now_ms();
	end = t_start + (long long)(secs * 1000);
	/* the errors: spread over the middle of the run */
	for (int j = 0; j < naer; j++)
		aers[j].at = t_start + (long long)(secs * 1000 *
			     (0.2 + 0.5 * (j + 0.2 + 0.6 * below(&srng, 1000) / 1000.0) / naer));
	for (int p = 0; p < nprocs; p++)
		spawn(p);
	next_kill = t_start + 300 + below(&srng, kill_ms - 299);
	while (now_ms() < end) {
		struct timespec ts = { 0, 10000000 };
		pid_t pid;

		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			for (int p = 0; p < nprocs; p++)
				if (pids[p] == pid) {
					reaped(p, status, false);
					bad("worker process %d (slot %d) ended before the end of the run",
					    (int)pid, p);
					spawn(p);
				}
		if (now_ms() >= next_kill) {
			kill_one();
			next_kill = now_ms() + 300 + below(&srng, kill_ms - 299);
		}
		aer_tick();
		nanosleep(&ts, NULL);
	}
	atomic_store(&sh->stop, 1);
	/* every worker ends within 10 s, or is killed */
	for (int p = 0; p < nprocs; p++) {
		for (int i = 0; i < 1000; i++) {
			if (waitpid(pids[p], &status, WNOHANG) == pids[p]) {
				reaped(p, status, false);
				pids[p] = 0;
				break;
			}
			aer_watch();
			usleep(10000);
		}
		if (pids[p] > 0) {
			printf("# worker %d did not end in 10 s: killed\n",
			       (int)pids[p]);
			kill(pids[p], SIGKILL);
			if (waitpid(pids[p], &status, 0) == pids[p])
				reaped(p, status, true);
		}
	}
	/* the recoveries end before the checks */
	for (int i = 0; i < 3000; i++) {
		bool open = false;

		aer_tick();
		for (int j = 0; j < naer; j++)
			open |= aers[j].sent && !aers[j].done;
		for (int j = 0; j < naer && !open; j++)
			open |= !aers[j].sent;
		if (!open)
			break;
		for (int j = 0; j < naer; j++)
			if (!aers[j].sent)
				aer_send(&aers[j]);
		usleep(10000);
	}
	for (int o = 0; o < OP_COUNT; o++) {
		total += atomic_load(&sh->calls[o]);
		failed += atomic_load(&sh->fails[o]);
		printf("# %-14s %7ld calls, %7ld failed, %5ld in a recovery",
		       op_name[o], atomic_load(&sh->calls[o]),
		       atomic_load(&sh->fails[o]), atomic_load(&sh->recov[o]));
		for (int e = 1; verbose && e < 136; e++)
			if (atomic_load(&sh->errs[o][e]))
				printf(" %s %ld", strerrorname_np(e),
				       atomic_load(&sh->errs[o][e]));
		printf("\n");
	}
	printf("# %ld worker processes killed, %ld started; %ld XFER_WB calls, %ld forged words that ended in a success, %ld edge words refused; rings started: %ld in driver memory, %ld in a pin, %ld with writeback slots in a pin; %ld ring mappings, %ld stream buffers, %ld blocking events reads\n",
	       atomic_load(&sh->kills), atomic_load(&sh->spawns),
	       atomic_load(&sh->wb_calls), atomic_load(&sh->wb_forged_ok),
	       atomic_load(&sh->wb_edge_refused), atomic_load(&sh->rings[0]),
	       atomic_load(&sh->rings[1]), atomic_load(&sh->rings[2]),
	       atomic_load(&sh->ring_maps), atomic_load(&sh->stream_frames),
	       atomic_load(&sh->blocked_reads));
	snprintf(ok_text, sizeof(ok_text), "%ld calls on %d nodes of %d cards in %.0f s by %d processes of %d threads (%ld killed mid-run), %ld failed, each with an errno of its set (seed %llu)",
		 total, nnodes, ncards, secs, nprocs, nthreads,
		 atomic_load(&sh->kills), failed, (unsigned long long)seed);
	report_bad(B_ERRNO, "errnos", ok_text);
	snprintf(ok_text, sizeof(ok_text), "%ld verified round trips (%ld with XFER_WB), every C2H that succeeded brought all its data; stream buffers inside their rings",
		 atomic_load(&sh->verified), atomic_load(&sh->verified_wb));
	report_bad(B_DATA, "data", ok_text);
	aer_results();
	after_streams();
	/* every file but the user BAR's (the sources, the sinks) closed */
	for (int i = 0; i < nnodes; i++)
		if (nodes[i].type != N_USER)
			close(nodes[i].shared_fd);
	sources(true);
	after();
	sources(false);
	for (int i = 0; i < nnodes; i++)
		if (nodes[i].type == N_USER)
			close(nodes[i].shared_fd);
	return hfg_exit();
}
