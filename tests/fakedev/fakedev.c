// SPDX-License-Identifier: MIT
/*
 * fakedev.c - libhf_fakedev.so, a TEST DOUBLE of hellofpga.ko for CI, where
 * no kernel module can be loaded.  Not a product: nothing installs it, and
 * it emulates only what the library's kernel backend (lib/backend_kernel.c)
 * uses, with the ABI's validation rules.
 *
 * Loaded with LD_PRELOAD, it interposes the C library's open/openat (and
 * their fortified and 64-bit names), close, read/write, pread/pwrite,
 * lseek, ioctl, access/faccessat and stat/lstat for the paths
 * /dev/hellofpga<N>_{control,user,h2c_C,c2h_C,events_U} and
 * /sys/module/hellofpga; every other path and file descriptor passes
 * through to the C library.  An open node gets a real descriptor (of
 * /dev/null) so descriptor numbers never collide; an events node a
 * duplicate of the emulated card's user-interrupt eventfd
 * (HelloFPGA_UserIRQ_GetFd()), so poll() of it works without interposing;
 * dup() and fork() of a fake node are not supported; mmap() only of a
 * c2h node's MEM_HOST stream ring (below).
 *
 * Behind the nodes of card N sits an emulated card of this process: the
 * library's own emulated backend (model, in-process host, engine core),
 * compiled into this object with every symbol but the interposed ones kept
 * local, so it never mixes with the libhellofpga of the program under test.
 * The card is made when its first node is opened and goes away with the
 * last one, like the per-open-file state of the driver (pins, last error).
 *
 * ABI implemented: GET_INFO, GET_STATS, LAST_ERROR (on any node), PIN of
 * type HOST only (CUDA and DMABUF: -EOPNOTSUPP), XFER, UNPIN (control node
 * only); pread/pwrite (read/write at the file position) on _h2c_C (write
 * only), _c2h_C (read only) and _user (4 bytes, 4-byte aligned); read of
 * _events_U (4 bytes: the count; blocks, or -EAGAIN with O_NONBLOCK), whose
 * count is the card's, shared by its opens as the driver's (a raise through
 * _user, HF_USER_IRQ_SET, reaches it).  A card in irq=poll mode has no
 * events nodes and no HELLOFPGA_FEAT_USER_EVENTS.  On an AXI-Stream card
 * ("st" in HF_FAKEDEV_CARD): HELLOFPGA_FEAT_STREAM and the STREAM_* ioctls
 * of the c2h nodes, over the embedded card's HelloFPGA_Stream_* (a
 * MEM_HOST ring is the fake's memory, which mmap() of the node returns,
 * PROT_READ only, and munmap() lets go of; a MEM_PIN ring lies in a host
 * pin of a control node, buffers of 4 KiB: the fake's pins are not
 * contiguous beyond a page, as a driver's without an IOMMU; UNPIN of it
 * is -EBUSY while the ring runs; poll() is not interposed), and from ABI
 * 1.4 on HELLOFPGA_FEAT_STREAM_H2C: a pwrite of an h2c node, or an H2C
 * XFER, is one packet (card address 0: -EINVAL; longer than
 * HELLOFPGA_STREAM_H2C_MAX: -EMSGSIZE; never short); without the feature
 * (HF_FAKEDEV_ABI_MINOR below 4, or HF_FAKEDEV_FEATURES) both are
 * -EOPNOTSUPP, as older drivers; C2H transfers are -EOPNOTSUPP.
 * ABI 1.4 also: XFER with HELLOFPGA_XFER_WB (the word, in a host pin, gets the
 * run's descriptor count: one per 4 KiB page, the fake's pins not being
 * contiguous beyond one; a failed run's gets HELLOFPGA_XFER_WB_FAILED)
 * and STREAM_START with HELLOFPGA_STREAM_WB_PIN (the slots in a host pin
 * of a control node, UNPIN -EBUSY while the ring runs; unlike the driver's
 * card, which writes a slot when it completes the buffer, the fake writes
 * it when its STREAM_WAIT takes the buffer; a RELEASE clears it, the end
 * of the ring marks every clear slot 0x52b48000, length 0), both with the
 * driver's refusals; HF_FAKEDEV_WB_BOUNCE set: both refused with
 * -EOPNOTSUPP as on a driver whose mappings bounce (swiotlb).
 * errno conventions chosen (reported to the driver authors):
 *   flags, pad or reserved field not zero, unknown PIN type,
 *   wrong direction for the node, bad user-BAR access,
 *   XFER range outside the pin, PIN not 4 KiB aligned  -EINVAL
 *   XFER channel out of range                           -ECHRNG
 *   XFER card range past the end of card memory         -ERANGE
 *   XFER card address + length wraps                    -EOVERFLOW
 *   unknown pin handle                                  -ENOENT
 *   pin limit reached                                   -ENOMEM
 *   PIN of unmapped memory                              -EFAULT
 *   PIN type without a provider (CUDA, DMABUF)          -EOPNOTSUPP
 *   pread at or past the end of card memory             0 (end of file)
 *   pwrite at or past the end of card memory            -ENOSPC
 *   pread/pwrite straddling the end                     short count
 *   read/write of the _control node (config BAR)        -EOPNOTSUPP (fake)
 *   unknown ioctl, or PIN/XFER/UNPIN off _control       -ENOTTY
 *   engine errors and timeouts                          as the engine core
 *
 * Environment (read when a card is made unless said otherwise):
 *   HF_FAKEDEV_CARD       emulated card name, default "emu,private"
 *   HF_FAKEDEV_CARDS      card numbers present, e.g. "0,3" (default "0";
 *                         "" for none; read at each lookup)
 *   HF_FAKEDEV_NO_MODULE  set: /sys/module/hellofpga is absent
 *   HF_FAKEDEV_ABI_MAJOR, HF_FAKEDEV_ABI_MINOR   reported ABI (at GET_INFO;
 *                         minor 0: the fields of ABI 1.1 stay 0)
 *   HF_FAKEDEV_USER_BAR_SIZE  reported user BAR size (default: the card's)
 *   HF_FAKEDEV_PCI_DOMAIN reported PCI domain (default 0)
 *   HF_FAKEDEV_FEATURES   feature bits (at GET_INFO and XFER_WB /
 *                         STREAM_WB_PIN; default PIN_HOST|POLL|XFER_WB|
 *                         USER_EVENTS, USER_EVENTS only when the card is
 *                         not in irq=poll mode, STREAM|STREAM_WB_PIN on an
 *                         AXI-Stream card)
 *   HF_FAKEDEV_WB_BOUNCE  set: XFER_WB and STREAM_WB_PIN fail -EOPNOTSUPP
 *   HF_FAKEDEV_VERSION    driver version string
 *   HF_FAKEDEV_TIMEOUT_MS default transfer timeout (5000)
 *   HF_FAKEDEV_PIN_LIMIT  bytes that may be pinned (default 2 GiB)
 *   HF_FAKEDEV_MAX_RW     most bytes one pread/pwrite moves (short counts)
 *   HF_FAKEDEV_EINTR_EVERY  every Nth data call fails with EINTR
 * Hooks for tests (exported; find them with dlsym(RTLD_DEFAULT, ...)):
 *   hf_fakedev_inject(card, faults)   XDMA_FAULT_* into the card's model
 *   hf_fakedev_fail_next(err, text)   the next data call or XFER fails
 */
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "hellofpga.h"
#include "hf_lib.h"
#include "uapi/hellofpga.h"

#define FK_MAX_FDS		4096
#define FK_MAX_CARDS		16
#define FK_PAGE			4096u
#define FK_MODULE_DIR		"/sys/module/hellofpga"
#define FK_DEFAULT_FEATURES	(HELLOFPGA_FEAT_PIN_HOST | HELLOFPGA_FEAT_POLL_MODE | \
				 HELLOFPGA_FEAT_XFER_WB)

enum fk_node { FK_CONTROL, FK_USER, FK_H2C, FK_C2H, FK_EVENTS };

struct fk_engine_stats {
	uint64_t runs, bytes, errors, timeouts;
};

/**
 * struct fk_card - an emulated card behind /dev/hellofpgaN_*.
 * @index: N
 * @refs: open files of the card (under fk_lock)
 * @h: the emulated card (the library's emulated backend, local copy)
 * @info: its geometry
 * @user_bar_size: its user BAR size
 * @timeout_ms: default transfer timeout (module parameter timeout_ms)
 * @pin_limit: bytes that may be pinned (module parameter pin_limit_mb)
 * @lock: guards the fields below
 * @pinned_bytes: bytes pinned by all files
 * @npins: pins alive
 * @eng: per-engine counters, engine order
 */
struct fk_card {
	unsigned int index;
	unsigned int refs;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	uint64_t user_bar_size;
	uint32_t timeout_ms;
	uint64_t pin_limit;
	pthread_mutex_t lock;
	uint64_t pinned_bytes;
	uint64_t npins;
	struct fk_engine_stats eng[HELLOFPGA_MAX_ENGINES];
};

struct fk_pin {
	struct fk_pin *next;
	uint64_t handle;
	uint8_t *addr;
	uint64_t size;
	unsigned int streams;	/* rings in it (under the owner's lock) */
};

/**
 * struct fk_stream - a stream of a c2h node.
 * @s: the embedded card's stream
 * @n: buffers
 * @size: bytes per buffer
 * @ring: MEM_HOST: the fake's ring memory (mmap()ed by the fake), else
 *	the first byte in the pin
 * @ring_len: MEM_HOST: its length
 * @pin_off: MEM_PIN: offset of @ring in the pin, else 0
 * @pin_owner: MEM_PIN: the control node's file, referenced
 * @pin: MEM_PIN: the pin (its @streams counts this one)
 * @wake: a HELLOFPGA_STREAM_WAKE came: the wait returns EAGAIN
 * @slots: HELLOFPGA_STREAM_WB_PIN: the writeback slots in the pin, else
 *	NULL
 * @wb_owner: the control node holding their pin, referenced
 * @wb_pin: their pin (its @streams counts this one)
 */
struct fk_stream {
	HELLOFPGA_STREAM s;
	uint32_t n;
	uint64_t size;
	uint8_t *ring;
	size_t ring_len;
	uint64_t pin_off;
	struct fk_file *pin_owner;
	struct fk_pin *pin;
	bool wake;
	volatile uint32_t *slots;
	struct fk_file *wb_owner;
	struct fk_pin *wb_pin;
};

/* MEM_HOST rings a caller mapped (mmap() of a c2h node), by address. */
struct fk_map {
	struct fk_map *next;	/* fk_maps, under fk_lock */
	uint8_t *addr;
	size_t len;
	bool live;	/* the ring is still the stream's */
	bool mapped;	/* the caller has not munmap()ed it */
};

/**
 * struct fk_file - an open node (the driver's per-open-file state).
 * @fd: its descriptor
 * @refs: the table's reference and one per call in progress (fk_lock)
 * @card: the card
 * @node: which node
 * @ch: channel of an _h2c_C / _c2h_C node, user interrupt of _events_U
 * @nonblock: opened O_NONBLOCK
 * @lock: guards @pos, the last error and @pins
 * @pos: file position of read()/write()
 * @last_err: negative errno of the last failed call, 0 when none
 * @last_text: its text
 * @pins: pins of this file (control node)
 */
struct fk_file {
	int fd;
	unsigned int refs;
	struct fk_card *card;
	enum fk_node node;
	int ch;
	bool nonblock;
	pthread_mutex_t lock;
	off_t pos;
	int last_err;
	char last_text[256];
	struct fk_pin *pins;
	uint32_t timeout_ms;	/* SET_TIMEOUT, 0: the card's */
	struct fk_stream *stream;	/* c2h node: its stream, under @lock */
	struct fk_map *map;	/* MEM_HOST ring's mapping state, under fk_lock */
};

static pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fk_map *fk_maps;
static struct fk_file *fk_files[FK_MAX_FDS];
static struct fk_card *fk_cards[FK_MAX_CARDS];
static uint64_t fk_next_handle;
static uint64_t fk_calls;
static int fk_fail_err;
static char fk_fail_text[256];

/* The exported names: everything else of this object is local. */
int hf_fakedev_inject(unsigned int card, uint32_t faults);
void hf_fakedev_fail_next(int err, const char *text);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);

/* The next definition of @name (the C library's, or a sanitizer's). */
#define REAL(name)							\
	({								\
		static __typeof__(&name) fn_;				\
		__typeof__(&name) f_ = __atomic_load_n(&fn_, __ATOMIC_RELAXED); \
		if (!f_) {						\
			void *p_ = dlsym(RTLD_NEXT, #name);		\
			memcpy(&f_, &p_, sizeof(p_));			\
			__atomic_store_n(&fn_, f_, __ATOMIC_RELAXED);	\
		}							\
		f_;							\
	})

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	errno = 0;
	x = strtoull(v, &end, 0);
	return errno || *end ? def : x;
}

static bool card_present(unsigned int n)
{
	const char *v = getenv("HF_FAKEDEV_CARDS");
	char *end;

	if (!v)
		return n == 0;
	while (*v) {
		unsigned long x = strtoul(v, &end, 10);

		if (end == v)
			return false;
		if (x == n)
			return true;
		v = *end == ',' ? end + 1 : end;
	}
	return false;
}

static const char *card_spec(void)
{
	const char *v = getenv("HF_FAKEDEV_CARD");

	return v && *v ? v : "emu,private";
}

/* Channels the card will have, from its name ("h2c=N", "c2h=N"; default 4). */
static int spec_channels(const char *key)
{
	const char *s = card_spec(), *p = s;
	size_t kl = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ',') && p[kl] == '=')
			return atoi(p + kl + 1);
		p += kl;
	}
	return XDMA_MAX_CHANNELS;
}

/* Whether the card is AXI-Stream: "st" (or st=on, st=1) in its name. */
static bool spec_stream(void)
{
	const char *s = card_spec(), *p = s;

	while ((p = strstr(p, "st"))) {
		if ((p == s || p[-1] == ',') &&
		    (!p[2] || p[2] == ',' || !strncmp(p + 2, "=on", 3) ||
		     !strncmp(p + 2, "=1", 2)))
			return true;
		p += 2;
	}
	return false;
}

/**
 * parse_node() - is @path a node of the fake driver?
 * Return: 1 (a node: *@card, *@node, *@ch set), 2 (the module directory),
 * 0 (not ours), -ENOENT (ours, but no such node).
 */
static int parse_node(const char *path, unsigned int *card,
		      enum fk_node *node, int *ch)
{
	static const char pfx[] = "/dev/hellofpga";
	const char *p;
	char *end;
	unsigned long n;
	long c;

	if (!path)
		return 0;
	if (!strcmp(path, FK_MODULE_DIR))
		return getenv("HF_FAKEDEV_NO_MODULE") ? -ENOENT : 2;
	if (strncmp(path, pfx, sizeof(pfx) - 1))
		return 0;
	p = path + sizeof(pfx) - 1;
	if (*p < '0' || *p > '9')
		return 0;
	n = strtoul(p, &end, 10);
	if (n >= FK_MAX_CARDS || !card_present(n) || *end != '_')
		return -ENOENT;
	p = end + 1;
	*card = n;
	*ch = 0;
	if (!strcmp(p, "control")) {
		*node = FK_CONTROL;
		return 1;
	}
	if (!strcmp(p, "user")) {
		*node = FK_USER;
		return 1;
	}
	if (!strncmp(p, "events_", 7)) {
		*node = FK_EVENTS;
		if (p[7] < '0' || p[7] > '9' || strstr(card_spec(), "irq=poll"))
			return -ENOENT;
		c = strtol(p + 7, &end, 10);
		if (*end || c >= HELLOFPGA_USER_IRQS || (p[7] == '0' && p[8]))
			return -ENOENT;
		*ch = c;
		return 1;
	}
	if (strncmp(p, "h2c_", 4) && strncmp(p, "c2h_", 4))
		return -ENOENT;
	*node = p[0] == 'h' ? FK_H2C : FK_C2H;
	if (p[4] < '0' || p[4] > '9')
		return -ENOENT;
	c = strtol(p + 4, &end, 10);
	if (*end || c >= spec_channels(*node == FK_H2C ? "h2c" : "c2h"))
		return -ENOENT;
	*ch = c;
	return 1;
}

/* ---- cards and files ---- */

static struct fk_card *card_get(unsigned int n)
{
	HELLOFPGA_PCI_INFO pci;
	struct fk_card *c;
	int ret;

	pthread_mutex_lock(&fk_lock);
	c = fk_cards[n];
	if (c) {
		c->refs++;
		goto out;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	ret = HelloFPGA_Open(card_spec(), &c->h);
	if (ret) {
		fprintf(stderr, "hf_fakedev: cannot make card %u from '%s': %s\n",
			n, card_spec(), HelloFPGA_GetLastError(NULL));
		free(c);
		c = NULL;
		goto out;
	}
	HelloFPGA_GetInfo(c->h, &c->info);
	HelloFPGA_GetPCIInfo(c->h, &pci);
	c->index = n;
	c->refs = 1;
	c->user_bar_size = env_u64("HF_FAKEDEV_USER_BAR_SIZE",
				   pci.user_bar_size);
	c->timeout_ms = env_u64("HF_FAKEDEV_TIMEOUT_MS", 5000);
	if (c->timeout_ms < 1 || c->timeout_ms > HF_MAX_TIMEOUT_MS)
		c->timeout_ms = 5000;
	c->pin_limit = env_u64("HF_FAKEDEV_PIN_LIMIT", 2ull << 30);
	pthread_mutex_init(&c->lock, NULL);
	fk_cards[n] = c;
out:
	pthread_mutex_unlock(&fk_lock);
	return c;
}

static void card_put(struct fk_card *c)
{
	bool last;

	pthread_mutex_lock(&fk_lock);
	last = !--c->refs;
	if (last)
		fk_cards[c->index] = NULL;
	pthread_mutex_unlock(&fk_lock);
	if (!last)
		return;
	HelloFPGA_Close(c->h);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct fk_file *file_get(int fd)
{
	struct fk_file *f;

	if (fd < 0 || fd >= FK_MAX_FDS ||
	    !__atomic_load_n(&fk_files[fd], __ATOMIC_ACQUIRE))
		return NULL;
	pthread_mutex_lock(&fk_lock);
	f = fk_files[fd];
	if (f)
		f->refs++;
	pthread_mutex_unlock(&fk_lock);
	return f;
}

static void file_put(struct fk_file *f);

/* Free a ring's memory once neither the stream nor a mapping has it. */
static void map_release(struct fk_map *m, bool stream_side)
{
	bool free_it;

	pthread_mutex_lock(&fk_lock);
	if (stream_side)
		m->live = false;
	else
		m->mapped = false;
	free_it = !m->live && !m->mapped;
	if (free_it)
		for (struct fk_map **p = &fk_maps; *p; p = &(*p)->next)
			if (*p == m) {
				*p = m->next;
				break;
			}
	pthread_mutex_unlock(&fk_lock);
	if (free_it) {
		REAL(munmap)(m->addr, m->len);
		free(m);
	}
}

/* End @f's stream: the embedded stream closed, its memory let go. */
/*
 * A ring's writeback slots in a pin (STREAM_WB_PIN): at its end every
 * slot not completed gets the error mark, and the pin is let go.
 */
static void wb_release(struct fk_stream *st, bool mark)
{
	if (st->slots && mark) {
		for (uint32_t i = 0; i < st->n; i++) {
			if (st->slots[i * 8])
				continue;
			st->slots[i * 8 + 1] = 0;
			__atomic_store_n(&st->slots[i * 8],
					 HELLOFPGA_STREAM_WB_MAGIC |
					 HELLOFPGA_STREAM_WB_ERROR,
					 __ATOMIC_RELEASE);
		}
	}
	if (st->wb_pin) {
		pthread_mutex_lock(&st->wb_owner->lock);
		st->wb_pin->streams--;
		pthread_mutex_unlock(&st->wb_owner->lock);
	}
	if (st->wb_owner)
		file_put(st->wb_owner);
	st->slots = NULL;
	st->wb_pin = NULL;
	st->wb_owner = NULL;
}

static int stream_end(struct fk_file *f)
{
	struct fk_stream *st;
	struct fk_map *m;
	int ret;

	pthread_mutex_lock(&f->lock);
	st = f->stream;
	f->stream = NULL;
	pthread_mutex_lock(&fk_lock);
	m = f->map;
	f->map = NULL;
	pthread_mutex_unlock(&fk_lock);
	pthread_mutex_unlock(&f->lock);
	if (!st)
		return -ENOENT;
	ret = HelloFPGA_Stream_Close(st->s);
	wb_release(st, true);
	if (st->pin) {
		pthread_mutex_lock(&st->pin_owner->lock);
		st->pin->streams--;
		pthread_mutex_unlock(&st->pin_owner->lock);
		file_put(st->pin_owner);
	}
	if (m)
		map_release(m, true);
	free(st);
	return ret;
}

/* Drop a reference; the last one ends the open file: pins go. */
static void file_put(struct fk_file *f)
{
	struct fk_card *c = f->card;
	bool last;

	pthread_mutex_lock(&fk_lock);
	last = !--f->refs;
	pthread_mutex_unlock(&fk_lock);
	if (!last)
		return;
	stream_end(f);
	while (f->pins) {
		struct fk_pin *p = f->pins;

		f->pins = p->next;
		pthread_mutex_lock(&c->lock);
		c->pinned_bytes -= p->size;
		c->npins--;
		pthread_mutex_unlock(&c->lock);
		free(p);
	}
	pthread_mutex_destroy(&f->lock);
	free(f);
	card_put(c);
}

/* Record a failure of a call on @f; returns -1 with errno = -@err. */
static int fail(struct fk_file *f, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct fk_file *f, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&f->lock);
	f->last_err = err;
	va_start(ap, fmt);
	vsnprintf(f->last_text, sizeof(f->last_text), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&f->lock);
	errno = -err;
	return -1;
}

/* An injected failure (hf_fakedev_fail_next() or EINTR), else 0. */
static int injected(struct fk_file *f)
{
	uint64_t every = env_u64("HF_FAKEDEV_EINTR_EVERY", 0);
	char text[256];
	int err;

	if (every && !(__atomic_add_fetch(&fk_calls, 1, __ATOMIC_RELAXED) %
		       every)) {
		errno = EINTR;
		return -1;
	}
	pthread_mutex_lock(&fk_lock);
	err = fk_fail_err;
	fk_fail_err = 0;
	memcpy(text, fk_fail_text, sizeof(text));
	pthread_mutex_unlock(&fk_lock);
	if (err)
		return fail(f, err, "%s", text);
	return 0;
}

static int engine_index(struct fk_card *c, enum hf_xdma_dir dir, int ch)
{
	return dir == XDMA_H2C ? ch : c->info.num_h2c + ch;
}

/* Run one transfer on the emulated card, with counters. */
static int card_xfer(struct fk_file *f, enum hf_xdma_dir dir, int ch, void *buf,
		     uint64_t card, size_t len, uint32_t timeout_ms,
		     size_t *done)
{
	struct fk_card *c = f->card;
	struct fk_engine_stats *e = &c->eng[engine_index(c, dir, ch)];
	int ret;

	HelloFPGA_SetTimeout(c->h, timeout_ms ? timeout_ms : c->timeout_ms);
	if (dir == XDMA_H2C)
		ret = HelloFPGA_DMA_MM_WriteH2C(c->h, ch, buf, card, len, done);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(c->h, ch, buf, card, len, done);
	pthread_mutex_lock(&c->lock);
	e->runs++;
	e->bytes += *done;
	if (ret) {
		e->errors++;
		if (ret == -ETIMEDOUT)
			e->timeouts++;
	}
	pthread_mutex_unlock(&c->lock);
	if (ret)
		return fail(f, ret, "%s", HelloFPGA_GetLastError(c->h));
	return 0;
}

/*
 * read() of an events node: wait for the user interrupt (not at all with
 * O_NONBLOCK) and take its count, as the driver's hf_events_read().
 */
static ssize_t events_read(struct fk_file *f, void *buf, size_t n, bool write)
{
	uint32_t count;
	int ret;

	if (write)
		return fail(f, -EINVAL, "events_%d: the node is read-only",
			    f->ch);
	if (n < sizeof(count))
		return fail(f, -EINVAL, "events read needs 4 bytes");
	ret = HelloFPGA_UserIRQ_Wait(f->card->h, f->ch, f->nonblock ? 0 : -1,
				     &count);
	if (ret == -ETIMEDOUT && f->nonblock) {
		errno = EAGAIN;
		return -1;
	}
	if (ret == -EINTR) {
		errno = EINTR;
		return -1;
	}
	if (ret)
		return fail(f, ret, "%s", HelloFPGA_GetLastError(f->card->h));
	memcpy(buf, &count, sizeof(count));
	return sizeof(count);
}

/*
 * The feature bits the fake reports (HF_FAKEDEV_FEATURES, else what the
 * driver would: host pins give XFER_WB, an AXI-Stream card adds STREAM
 * and STREAM_WB_PIN, and from ABI 1.4 on STREAM_H2C).
 */
static uint64_t fk_features(void)
{
	uint64_t minor = env_u64("HF_FAKEDEV_ABI_MINOR", HELLOFPGA_ABI_MINOR);

	return env_u64("HF_FAKEDEV_FEATURES", FK_DEFAULT_FEATURES |
		       (strstr(card_spec(), "irq=poll") ? 0 :
			HELLOFPGA_FEAT_USER_EVENTS) |
		       (spec_stream() ? HELLOFPGA_FEAT_STREAM |
			HELLOFPGA_FEAT_STREAM_WB_PIN : 0) |
		       (spec_stream() && minor >= 4 ?
			HELLOFPGA_FEAT_STREAM_H2C : 0));
}

/*
 * An H2C packet of an AXI-Stream card, as the driver takes it (uapi "H2C
 * packets"): refused without HELLOFPGA_FEAT_STREAM_H2C (as drivers before
 * ABI 1.4), card address 0, at most HELLOFPGA_STREAM_H2C_MAX bytes.
 * Return: 0, or -1 with the error recorded.
 */
static int packet_ok(struct fk_file *f, const char *what, uint64_t addr,
		     uint64_t len)
{
	if (!(fk_features() & HELLOFPGA_FEAT_STREAM_H2C))
		return fail(f, -EOPNOTSUPP, "%s%s", what, XDMA_STREAM_MM_MSG);
	if (addr)
		return fail(f, -EINVAL, "%scard address 0x%llx: %s", what,
			    (unsigned long long)addr, XDMA_STREAM_H2C_ADDR_MSG);
	if (len > HELLOFPGA_STREAM_H2C_MAX)
		return fail(f, -EMSGSIZE,
			    "%sa packet of 0x%llx bytes is longer than HELLOFPGA_STREAM_H2C_MAX; it is not cut",
			    what, (unsigned long long)len);
	return 0;
}

/* pread()/pwrite() of a node at @off. */
static ssize_t node_rw(struct fk_file *f, void *buf, size_t n, off_t off,
		       bool write)
{
	struct fk_card *c = f->card;
	uint64_t max = env_u64("HF_FAKEDEV_MAX_RW", 0);
	size_t done = 0;
	uint32_t v;

	if (injected(f))
		return -1;
	switch (f->node) {
	case FK_EVENTS:
		return events_read(f, buf, n, write);
	case FK_CONTROL:
		return fail(f, -EOPNOTSUPP,
			    "hf_fakedev: the DMA/config BAR (_control read/write) is not emulated");
	case FK_USER:
		if (n != 4 || off < 0 || off & 3 ||
		    (uint64_t)off + 4 > c->user_bar_size)
			return fail(f, -EINVAL,
				    "user BAR: %s of %zu bytes at 0x%llx: 4-byte accesses at 4-byte aligned offsets below 0x%llx only",
				    write ? "write" : "read", n,
				    (long long)off,
				    (unsigned long long)c->user_bar_size);
		if (write) {
			memcpy(&v, buf, 4);
			HelloFPGA_UserWrite32(c->h, off, v);
		} else {
			HelloFPGA_UserRead32(c->h, off, &v);
			memcpy(buf, &v, 4);
		}
		return 4;
	case FK_H2C:
	case FK_C2H:
		break;
	}
	if (write != (f->node == FK_H2C))
		return fail(f, -EINVAL, "%s%d: the node is %s-only",
			    f->node == FK_H2C ? "H2C" : "C2H", f->ch,
			    f->node == FK_H2C ? "write" : "read");
	if (off < 0)
		return fail(f, -EINVAL, "negative card address %lld",
			    (long long)off);
	if (spec_stream() && write) {
		/* one packet, never cut (HF_FAKEDEV_MAX_RW does not apply) */
		if (packet_ok(f, "", (uint64_t)off, n))
			return -1;
		if (!n)
			return 0;
		if (card_xfer(f, XDMA_H2C, f->ch, buf, 0, n,
			      __atomic_load_n(&f->timeout_ms, __ATOMIC_RELAXED),
			      &done))
			return -1;
		return done;
	}
	if (!n)
		return 0;
	if ((uint64_t)off >= c->info.ddr_size) {
		if (!write)
			return 0;
		return fail(f, -ENOSPC,
			    "H2C%d: card address 0x%llx is past the end of card memory (0x%llx bytes)",
			    f->ch, (long long)off,
			    (unsigned long long)c->info.ddr_size);
	}
	if (n > c->info.ddr_size - off)
		n = c->info.ddr_size - off;
	if (max && n > max)
		n = max;
	if (card_xfer(f, write ? XDMA_H2C : XDMA_C2H, f->ch, buf, off, n,
		      __atomic_load_n(&f->timeout_ms, __ATOMIC_RELAXED), &done))
		return -1;
	return done;
}

/* ---- ioctls ---- */

static bool zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static int ioc_get_info(struct fk_file *f, struct hellofpga_info *hi)
{
	struct fk_card *c = f->card;
	const char *ver = getenv("HF_FAKEDEV_VERSION");

	uint64_t domain = env_u64("HF_FAKEDEV_PCI_DOMAIN", 0);

	if (hi->flags || hi->pad || hi->pad2 ||
	    !zero(hi->reserved, sizeof(hi->reserved)))
		return fail(f, -EINVAL, "GET_INFO: flags, pad, pad2 and reserved must be 0");
	hi->abi_major = env_u64("HF_FAKEDEV_ABI_MAJOR", HELLOFPGA_ABI_MAJOR);
	hi->abi_minor = env_u64("HF_FAKEDEV_ABI_MINOR", HELLOFPGA_ABI_MINOR);
	hi->card_index = c->index;
	hi->features = fk_features();
	hi->num_h2c = c->info.num_h2c;
	hi->num_c2h = c->info.num_c2h;
	hi->ddr_size = c->info.ddr_size;
	hi->ip_version = c->info.ip_version;
	hi->irq_mode = c->info.irq_mode;	/* same numbering */
	hi->addr_align = c->info.addr_align;
	hi->len_granularity = c->info.len_granularity;
	hi->timeout_ms = c->timeout_ms;
	hi->user_bar_size = c->user_bar_size > UINT32_MAX ? UINT32_MAX :
			    c->user_bar_size;
	pthread_mutex_lock(&c->lock);
	hi->pinned_bytes = c->pinned_bytes;
	pthread_mutex_unlock(&c->lock);
	hi->pin_limit = c->pin_limit;
	hi->pci_vendor = 0x10ee;
	hi->pci_device = 0x903f;
	hi->pci_bdf = (domain > 0xffff ? 0xffff : domain) << 16 | c->index << 8;
	if (hi->abi_minor >= 1) {
		hi->user_bar_size64 = c->user_bar_size;
		hi->pci_domain = domain;
	}
	snprintf(hi->driver_version, sizeof(hi->driver_version), "%s",
		 ver ? ver : HELLOFPGA_VERSION_STRING "-fakedev");
	return 0;
}

static int ioc_get_stats(struct fk_file *f, struct hellofpga_stats *st)
{
	struct fk_card *c = f->card;
	HELLOFPGA_COUNTERS cnt;
	uint32_t n = c->info.num_h2c + c->info.num_c2h;

	if (st->flags || !zero(st->reserved, sizeof(st->reserved)))
		return fail(f, -EINVAL, "GET_STATS: flags and reserved must be 0");
	memset(st, 0, sizeof(*st));
	st->num_engines = n;
	pthread_mutex_lock(&c->lock);
	for (uint32_t i = 0; i < n; i++) {
		st->runs[i] = c->eng[i].runs;
		st->bytes[i] = c->eng[i].bytes;
		st->errors[i] = c->eng[i].errors;
		st->timeouts[i] = c->eng[i].timeouts;
	}
	st->pins = c->npins;
	st->pinned_bytes = c->pinned_bytes;
	pthread_mutex_unlock(&c->lock);
	if (!HelloFPGA_GetCounters(c->h, &cnt))
		st->irqs = cnt.irqs;
	return 0;
}

static int ioc_last_error(struct fk_file *f, struct hellofpga_last_error *le)
{
	if (le->flags || !zero(le->reserved, sizeof(le->reserved))) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&f->lock);
	le->error = f->last_err;
	snprintf(le->text, sizeof(le->text), "%s", f->last_text);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* SET_TIMEOUT (ABI 1.2): the file's timeout; ENOTTY as an older driver. */
static int ioc_set_timeout(struct fk_file *f, struct hellofpga_timeout *t)
{
	if (env_u64("HF_FAKEDEV_ABI_MINOR", HELLOFPGA_ABI_MINOR) < 2)
		return fail(f, -ENOTTY, "SET_TIMEOUT: not in ABI 1.%llu",
			    (unsigned long long)env_u64("HF_FAKEDEV_ABI_MINOR",
							HELLOFPGA_ABI_MINOR));
	if (t->flags || !zero(t->reserved, sizeof(t->reserved)))
		return fail(f, -EINVAL,
			    "SET_TIMEOUT: flags and reserved must be 0");
	if (t->timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS)
		return fail(f, -EINVAL, "SET_TIMEOUT: %u ms is above %u ms",
			    t->timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
	__atomic_store_n(&f->timeout_ms, t->timeout_ms, __ATOMIC_RELAXED);
	return 0;
}

/* Is [addr, addr + size) mapped?  (pin_user_pages() would fault.) */
static bool mapped(uint64_t addr, uint64_t size)
{
	size_t pages = size / FK_PAGE;
	unsigned char *vec = malloc(pages ? pages : 1);
	bool ok;

	if (!vec)
		return false;
	ok = !mincore((void *)(uintptr_t)addr, size, vec);
	free(vec);
	return ok;
}

static int ioc_pin(struct fk_file *f, struct hellofpga_pin *p)
{
	struct fk_card *c = f->card;
	struct fk_pin *pin;

	if (p->flags || p->pad || p->pad2 ||
	    !zero(p->reserved, sizeof(p->reserved)))
		return fail(f, -EINVAL, "PIN: flags, pad and reserved must be 0");
	if (p->type == HELLOFPGA_PIN_CUDA || p->type == HELLOFPGA_PIN_DMABUF)
		return fail(f, -EOPNOTSUPP,
			    "PIN: type %u: hf_fakedev has no GPU memory provider (nvidia_p2p, dma-buf); only HELLOFPGA_PIN_HOST",
			    p->type);
	if (p->type != HELLOFPGA_PIN_HOST)
		return fail(f, -EINVAL, "PIN: unknown type %u", p->type);
	if (p->fd != -1)
		return fail(f, -EINVAL, "PIN: fd must be -1 for host memory");
	if (!p->size || p->addr % FK_PAGE || p->size % FK_PAGE ||
	    p->addr + p->size < p->addr)
		return fail(f, -EINVAL,
			    "PIN: host memory [0x%llx, +0x%llx) must be 4 KiB aligned and not empty",
			    (unsigned long long)p->addr,
			    (unsigned long long)p->size);
	if (!mapped(p->addr, p->size))
		return fail(f, -EFAULT,
			    "PIN: [0x%llx, +0x%llx) is not mapped memory",
			    (unsigned long long)p->addr,
			    (unsigned long long)p->size);
	pin = calloc(1, sizeof(*pin));
	if (!pin)
		return fail(f, -ENOMEM, "PIN: out of memory");
	pthread_mutex_lock(&c->lock);
	if (c->pinned_bytes + p->size > c->pin_limit) {
		uint64_t pinned = c->pinned_bytes;

		pthread_mutex_unlock(&c->lock);
		free(pin);
		return fail(f, -ENOMEM,
			    "PIN: 0x%llx more bytes would exceed the pin limit of 0x%llx bytes (0x%llx pinned)",
			    (unsigned long long)p->size,
			    (unsigned long long)c->pin_limit,
			    (unsigned long long)pinned);
	}
	c->pinned_bytes += p->size;
	c->npins++;
	pthread_mutex_unlock(&c->lock);
	pin->addr = (uint8_t *)(uintptr_t)p->addr;
	pin->size = p->size;
	pin->handle = __atomic_add_fetch(&fk_next_handle, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&f->lock);
	pin->next = f->pins;
	f->pins = pin;
	pthread_mutex_unlock(&f->lock);
	p->handle = pin->handle;
	p->page_size = FK_PAGE;
	p->nsegs = p->size / FK_PAGE;	/* no merging in the fake */
	return 0;
}

/* The pin @handle of @f: its address and size; false when unknown. */
static bool find_pin(struct fk_file *f, uint64_t handle, uint8_t **addr,
		     uint64_t *size)
{
	bool found = false;

	pthread_mutex_lock(&f->lock);
	for (struct fk_pin *p = f->pins; p; p = p->next) {
		if (p->handle == handle) {
			*addr = p->addr;
			*size = p->size;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	return found;
}

static int ioc_xfer(struct fk_file *f, struct hellofpga_xfer *x)
{
	struct fk_card *c = f->card;
	struct timespec t0, t1;
	uint8_t *addr;
	uint64_t size;
	size_t done = 0;
	int nch, ret;

	volatile uint32_t *word = NULL;

	x->bytes = 0;
	x->engine_ns = 0;
	if ((x->flags & ~HELLOFPGA_XFER_WB) ||
	    !zero(x->reserved, sizeof(x->reserved)))
		return fail(f, -EINVAL, "XFER: flags must be 0 or HELLOFPGA_XFER_WB, reserved 0");
	if (!(x->flags & HELLOFPGA_XFER_WB) && (x->wb_handle || x->wb_offset))
		return fail(f, -EINVAL, "XFER: wb_handle and wb_offset must be 0 without HELLOFPGA_XFER_WB");
	if (x->timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS)
		return fail(f, -EINVAL, "XFER: timeout_ms %u is above %u ms (0: the file's timeout)",
			    x->timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
	if (x->dir != HELLOFPGA_XFER_H2C && x->dir != HELLOFPGA_XFER_C2H)
		return fail(f, -EINVAL, "XFER: direction %u unknown", x->dir);
	nch = x->dir == HELLOFPGA_XFER_H2C ? c->info.num_h2c : c->info.num_c2h;
	if (x->channel >= (uint32_t)nch)
		return fail(f, -ECHRNG, "XFER: %s channel %u out of range (0..%d)",
			    x->dir == HELLOFPGA_XFER_H2C ? "H2C" : "C2H",
			    x->channel, nch - 1);
	if (!find_pin(f, x->handle, &addr, &size))
		return fail(f, -ENOENT, "XFER: pin handle 0x%llx unknown",
			    (unsigned long long)x->handle);
	if (x->buf_offset > size || x->length > size - x->buf_offset)
		return fail(f, -EINVAL,
			    "XFER: [0x%llx, +0x%llx) leaves the pin (0x%llx bytes)",
			    (unsigned long long)x->buf_offset,
			    (unsigned long long)x->length,
			    (unsigned long long)size);
	if (x->card_addr + x->length < x->card_addr)
		return fail(f, -EOVERFLOW, "XFER: card address + length wraps");
	if (spec_stream() && x->dir == HELLOFPGA_XFER_C2H)
		return fail(f, -EOPNOTSUPP, "XFER: %s", XDMA_STREAM_MM_MSG);
	if (spec_stream() && packet_ok(f, "XFER: ", x->card_addr, x->length))
		return -1;
	if (!spec_stream() && (x->card_addr > c->info.ddr_size ||
			       x->length > c->info.ddr_size - x->card_addr))
		return fail(f, -ERANGE,
			    "XFER: card range [0x%llx, +0x%llx) past the end of card memory (0x%llx bytes)",
			    (unsigned long long)x->card_addr,
			    (unsigned long long)x->length,
			    (unsigned long long)c->info.ddr_size);
	if (!x->length)
		return 0;
	if (x->flags & HELLOFPGA_XFER_WB) {
		uint8_t *wa;
		uint64_t ws;

		if (!(fk_features() & HELLOFPGA_FEAT_XFER_WB))
			return fail(f, -EINVAL, "XFER: HELLOFPGA_XFER_WB needs HELLOFPGA_FEAT_XFER_WB (host pins), which this driver lacks");
		if (x->wb_offset % 4)
			return fail(f, -EINVAL, "XFER: wb_offset 0x%llx is not a multiple of 4",
				    (unsigned long long)x->wb_offset);
		if (!find_pin(f, x->wb_handle, &wa, &ws))
			return fail(f, -ENOENT, "XFER: no pin with wb_handle %llu",
				    (unsigned long long)x->wb_handle);
		if (ws < HELLOFPGA_XFER_WB_ROOM ||
		    x->wb_offset > ws - HELLOFPGA_XFER_WB_ROOM)
			return fail(f, -EINVAL, "XFER: wb_offset 0x%llx: the word and the %u bytes from it the card may write (HELLOFPGA_XFER_WB_ROOM) must lie inside pin %llu",
				    (unsigned long long)x->wb_offset,
				    HELLOFPGA_XFER_WB_ROOM,
				    (unsigned long long)x->wb_handle);
		if (getenv("HF_FAKEDEV_WB_BOUNCE"))
			return fail(f, -EOPNOTSUPP,
				    "XFER: HELLOFPGA_XFER_WB: pin %llu's DMA mapping needs CPU syncs (swiotlb bounce buffers or a non-coherent device) (fake)",
				    (unsigned long long)x->wb_handle);
		word = (volatile uint32_t *)(wa + x->wb_offset);
		*word = 0;
	}
	if (injected(f)) {
		if (word)
			*word |= HELLOFPGA_XFER_WB_FAILED;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = card_xfer(f, x->dir == HELLOFPGA_XFER_H2C ? XDMA_H2C : XDMA_C2H,
			x->channel, addr + x->buf_offset, x->card_addr,
			x->length, x->timeout_ms ? x->timeout_ms :
			__atomic_load_n(&f->timeout_ms, __ATOMIC_RELAXED),
			&done);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->bytes = done;
	x->engine_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
		       t1.tv_nsec - t0.tv_nsec;
	/* one descriptor per page: the fake's pins are 4 KiB pieces */
	if (word)
		__atomic_store_n(word, ret ? HELLOFPGA_XFER_WB_FAILED :
				 (uint32_t)((x->buf_offset % FK_PAGE + x->length +
					     FK_PAGE - 1) / FK_PAGE),
				 __ATOMIC_RELEASE);
	return ret;
}

static int ioc_unpin(struct fk_file *f, struct hellofpga_unpin *u)
{
	struct fk_card *c = f->card;
	struct fk_pin **pp, *p = NULL;

	if (u->flags || u->pad || !zero(u->reserved, sizeof(u->reserved)))
		return fail(f, -EINVAL, "UNPIN: flags, pad and reserved must be 0");
	pthread_mutex_lock(&f->lock);
	for (pp = &f->pins; *pp; pp = &(*pp)->next) {
		if ((*pp)->handle == u->handle) {
			if ((*pp)->streams) {
				pthread_mutex_unlock(&f->lock);
				return fail(f, -EBUSY,
					    "UNPIN: pin %llu holds a running stream ring: stop the stream first",
					    (unsigned long long)u->handle);
			}
			p = *pp;
			*pp = p->next;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (!p)
		return fail(f, -ENOENT, "UNPIN: pin handle 0x%llx unknown",
			    (unsigned long long)u->handle);
	pthread_mutex_lock(&c->lock);
	c->pinned_bytes -= p->size;
	c->npins--;
	pthread_mutex_unlock(&c->lock);
	free(p);
	return 0;
}

/* ---- C2H stream rings (AXI-Stream cards) ---- */

/* STREAM_WB_PIN: the slots' pin of control node @c->wb_fd, claimed. */
static int wb_claim(struct fk_file *f, struct fk_stream *st,
		    const struct hellofpga_stream_config *c)
{
	struct fk_file *o = file_get(c->wb_fd);
	uint8_t *addr = NULL;
	uint64_t size = 0;

	if (!o || o->card != f->card || o->node != FK_CONTROL) {
		if (o)
			file_put(o);
		return fail(f, -EBADF, "STREAM_START: wb_fd %d is not the control node of the card",
			    c->wb_fd);
	}
	st->wb_owner = o;
	pthread_mutex_lock(&o->lock);
	for (struct fk_pin *p = o->pins; p; p = p->next)
		if (p->handle == c->wb_handle) {
			st->wb_pin = p;
			addr = p->addr;
			size = p->size;
		}
	if (st->wb_pin)
		st->wb_pin->streams++;
	pthread_mutex_unlock(&o->lock);
	if (!st->wb_pin)
		return fail(f, -ENOENT, "STREAM_START: no pin with handle %llu on that control node",
			    (unsigned long long)c->wb_handle);
	if (c->wb_offset > size || (uint64_t)c->buffers * 32 > size - c->wb_offset)
		return fail(f, -EINVAL, "STREAM_START: %u writeback slots of 32 bytes at wb_offset 0x%llx lie past the end of pin %llu",
			    c->buffers, (unsigned long long)c->wb_offset,
			    (unsigned long long)c->wb_handle);
	if (c->wb_offset / FK_PAGE !=
	    (c->wb_offset + (uint64_t)c->buffers * 32 - 1) / FK_PAGE)
		return fail(f, -EINVAL, "STREAM_START: HELLOFPGA_STREAM_WB_PIN: the slots do not lie in one contiguous bus piece of pin %llu (keep them in one page, or use an IOMMU)",
			    (unsigned long long)c->wb_handle);
	if (getenv("HF_FAKEDEV_WB_BOUNCE"))
		return fail(f, -EOPNOTSUPP, "STREAM_START: HELLOFPGA_STREAM_WB_PIN: pin %llu's DMA mapping needs CPU syncs (swiotlb bounce buffers or a non-coherent device) (fake)",
			    (unsigned long long)c->wb_handle);
	st->slots = (volatile uint32_t *)(addr + c->wb_offset);
	memset((void *)st->slots, 0, (size_t)c->buffers * 32);
	return 0;
}

static int ioc_stream_start(struct fk_file *f, struct hellofpga_stream_config *c)
{
	struct fk_card *card = f->card;
	HELLOFPGA_STREAM_CONFIG cfg;
	struct fk_stream *st;
	struct fk_map *m = NULL;
	int ret;

	if ((c->flags & ~HELLOFPGA_STREAM_WB_PIN) || c->mmap_size ||
	    c->start_flags || !zero(c->reserved, sizeof(c->reserved)))
		return fail(f, -EINVAL, "STREAM_START: flags: 0 or WB_PIN; mmap_size, start_flags, reserved 0");
	if (!(c->flags & HELLOFPGA_STREAM_WB_PIN) &&
	    (c->wb_handle || c->wb_offset || c->wb_fd))
		return fail(f, -EINVAL, "STREAM_START: wb_handle, wb_offset, wb_fd must be 0 without WB_PIN");
	if ((c->flags & HELLOFPGA_STREAM_WB_PIN) &&
	    !(fk_features() & HELLOFPGA_FEAT_STREAM_WB_PIN))
		return fail(f, -EINVAL, "STREAM_START: WB_PIN needs FEAT_STREAM_WB_PIN (host pins)");
	if ((c->flags & HELLOFPGA_STREAM_WB_PIN) &&
	    (!c->wb_handle || c->wb_fd < 0 || c->wb_offset % 32))
		return fail(f, -EINVAL, "STREAM_START: WB_PIN: wb_handle, wb_fd name a pin, wb_offset 32-aligned");
	if (c->buffers < HELLOFPGA_RING_MIN_BUFFERS ||
	    c->buffers > HELLOFPGA_RING_MAX_BUFFERS)
		return fail(f, -EINVAL, "STREAM_START: buffers must be 2..512");
	if (!c->buffer_size || c->buffer_size % FK_PAGE ||
	    c->buffer_size > HELLOFPGA_RING_MAX_BUFFER)
		return fail(f, -EINVAL, "STREAM_START: buffer_size: 4096..268431360, 4 KiB aligned");
	if (c->mem != HELLOFPGA_MEM_HOST && c->mem != HELLOFPGA_MEM_PIN)
		return fail(f, -EINVAL, "STREAM_START: mem must be HELLOFPGA_MEM_HOST or HELLOFPGA_MEM_PIN");
	if (c->mem == HELLOFPGA_MEM_HOST &&
	    (c->pin_handle || c->pin_offset || c->pin_fd != -1))
		return fail(f, -EINVAL, "STREAM_START: MEM_HOST: pin_handle and pin_offset must be 0, pin_fd -1");
	if (c->mem == HELLOFPGA_MEM_PIN &&
	    (!c->pin_handle || c->pin_fd < 0 || c->pin_offset % FK_PAGE))
		return fail(f, -EINVAL, "STREAM_START: MEM_PIN: pin_handle and pin_fd name a pin, pin_offset a multiple of 4096");
	if (c->mem == HELLOFPGA_MEM_HOST && c->buffer_size > (4u << 20))
		return fail(f, -EINVAL, "STREAM_START: MEM_HOST buffers are at most 4194304 bytes here");
	st = calloc(1, sizeof(*st));
	if (!st)
		return fail(f, -ENOMEM, "STREAM_START: no memory");
	st->n = c->buffers;
	st->size = c->buffer_size;
	if (c->mem == HELLOFPGA_MEM_PIN) {
		struct fk_file *o = file_get(c->pin_fd);
		uint8_t *addr = NULL;
		uint64_t size = 0;

		if (!o || o->card != card || o->node != FK_CONTROL) {
			if (o)
				file_put(o);
			free(st);
			return fail(f, -EBADF, "STREAM_START: pin_fd %d is not the control node of the card",
				    c->pin_fd);
		}
		pthread_mutex_lock(&o->lock);
		for (struct fk_pin *p = o->pins; p; p = p->next)
			if (p->handle == c->pin_handle) {
				st->pin = p;
				addr = p->addr;
				size = p->size;
			}
		if (st->pin)
			st->pin->streams++;
		pthread_mutex_unlock(&o->lock);
		st->pin_owner = o;
		if (!st->pin) {
			ret = fail(f, -ENOENT, "STREAM_START: no pin with handle %llu on that control node",
				   (unsigned long long)c->pin_handle);
			goto err;
		}
		if (c->pin_offset > size ||
		    (uint64_t)c->buffers * c->buffer_size > size - c->pin_offset) {
			ret = fail(f, -ERANGE, "STREAM_START: the ring lies past the end of the pin");
			goto err;
		}
		if (c->buffer_size > FK_PAGE) {
			ret = fail(f, -EINVAL,
				   "C2H%d: ring buffer 0 is not contiguous in bus addresses (4096 of its %llu bytes are): each buffer must be one contiguous range",
				   f->ch, (unsigned long long)c->buffer_size);
			goto err;
		}
		st->ring = addr + c->pin_offset;
		st->pin_off = c->pin_offset;
	} else {
		st->ring_len = (size_t)c->buffers * c->buffer_size;
		st->ring = REAL(mmap)(NULL, st->ring_len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		m = calloc(1, sizeof(*m));
		if (st->ring == MAP_FAILED || !m) {
			if (st->ring != MAP_FAILED)
				REAL(munmap)(st->ring, st->ring_len);
			st->ring = NULL;
			ret = fail(f, -ENOMEM, "STREAM_START: no memory for the ring");
			goto err;
		}
		m->addr = st->ring;
		m->len = st->ring_len;
		m->live = true;
	}
	if (c->flags & HELLOFPGA_STREAM_WB_PIN) {
		ret = wb_claim(f, st, c);
		if (ret)
			goto err;
	}
	pthread_mutex_lock(&f->lock);
	if (f->stream) {
		pthread_mutex_unlock(&f->lock);
		ret = fail(f, -EBUSY, "STREAM_START: a stream runs on C2H%d already",
			   f->ch);
		goto err;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.channel = f->ch;
	cfg.buffers = c->buffers;
	cfg.buffer_size = c->buffer_size;
	cfg.host = st->ring;
	ret = HelloFPGA_Stream_Open(card->h, &cfg, &st->s);
	if (ret) {
		pthread_mutex_unlock(&f->lock);
		ret = fail(f, ret, "STREAM_START: %s",
			   HelloFPGA_GetLastError(card->h));
		goto err;
	}
	f->stream = st;
	pthread_mutex_lock(&fk_lock);
	f->map = m;
	if (m) {
		m->next = fk_maps;
		fk_maps = m;
	}
	pthread_mutex_unlock(&fk_lock);
	pthread_mutex_unlock(&f->lock);
	c->mmap_size = c->mem == HELLOFPGA_MEM_HOST ? st->ring_len : 0;
	c->start_flags = 0;
	return 0;
err:
	wb_release(st, false);
	if (st->pin) {
		pthread_mutex_lock(&st->pin_owner->lock);
		st->pin->streams--;
		pthread_mutex_unlock(&st->pin_owner->lock);
	}
	if (st->pin_owner)
		file_put(st->pin_owner);
	if (m) {
		REAL(munmap)(m->addr, m->len);
		free(m);
	}
	free(st);
	return ret;
}

/* @f's stream, or NULL with the error recorded (-1, errno ENOENT). */
static struct fk_stream *stream_of(struct fk_file *f, const char *what)
{
	struct fk_stream *st;

	pthread_mutex_lock(&f->lock);
	st = f->stream;
	pthread_mutex_unlock(&f->lock);
	if (!st)
		fail(f, -ENOENT, "%s: no stream started on this open file of C2H%d",
		     what, f->ch);
	return st;
}

static int ioc_stream_wait(struct fk_file *f, struct hellofpga_stream_frame *w)
{
	struct fk_card *card = f->card;
	struct fk_stream *st;
	HELLOFPGA_FRAME fr;
	uint64_t left = w->timeout_ns;
	int ret, slice;

	if (w->flags || w->pad || !zero(w->reserved, sizeof(w->reserved)))
		return fail(f, -EINVAL, "STREAM_WAIT: flags, pad and reserved must be 0");
	if (w->timeout_ns > HELLOFPGA_STREAM_MAX_WAIT_NS)
		return fail(f, -EINVAL, "STREAM_WAIT: timeout_ns above the limit");
	st = stream_of(f, "STREAM_WAIT");
	if (!st)
		return -1;
	/* in slices, so a HELLOFPGA_STREAM_WAKE ends it */
	for (;;) {
		if (__atomic_exchange_n(&st->wake, false, __ATOMIC_ACQ_REL))
			return fail(f, -EAGAIN, "STREAM_WAIT: woken by HELLOFPGA_STREAM_WAKE");
		slice = left > 10000000ull ? 10 : (int)((left + 999999) / 1000000);
		ret = HelloFPGA_Stream_Wait(st->s, slice, &fr);
		if (ret != -ETIMEDOUT || left <= 10000000ull)
			break;
		left -= 10000000ull;
	}
	if (ret)
		return fail(f, ret, "STREAM_WAIT: %s", HelloFPGA_GetLastError(card->h));
	memset(w, 0, sizeof(*w));
	w->index = fr.index;
	w->frame_flags = fr.flags & HELLOFPGA_FRAME_EOP ? HELLOFPGA_STREAM_EOP : 0;
	w->length = fr.length;
	w->sequence = fr.sequence;
	w->frame = fr.frame;
	w->dropped = fr.dropped;
	w->timestamp_ns = fr.timestamp_ns;
	w->offset = st->pin_off + (uint64_t)fr.index * st->size;
	if (st->slots && fr.index < st->n) {
		st->slots[fr.index * 8 + 1] = fr.length;
		__atomic_store_n(&st->slots[fr.index * 8],
				 HELLOFPGA_STREAM_WB_MAGIC |
				 (fr.flags & HELLOFPGA_FRAME_EOP ?
				  HELLOFPGA_STREAM_WB_EOP : 0), __ATOMIC_RELEASE);
	}
	return 0;
}

static int ioc_stream_release(struct fk_file *f, struct hellofpga_stream_release *r)
{
	struct fk_stream *st;
	int ret;

	if ((r->flags & ~HELLOFPGA_STREAM_WAKE) || (r->flags && r->index) ||
	    !zero(r->reserved, sizeof(r->reserved)))
		return fail(f, -EINVAL, "STREAM_RELEASE: flags must be 0 or HELLOFPGA_STREAM_WAKE (then index 0), reserved 0");
	st = stream_of(f, "STREAM_RELEASE");
	if (!st)
		return -1;
	if (r->flags) {
		__atomic_store_n(&st->wake, true, __ATOMIC_RELEASE);
		return 0;
	}
	ret = HelloFPGA_Stream_Release(st->s, r->index);
	if (ret)
		return fail(f, ret, "STREAM_RELEASE: buffer %u is not held (a ring of %u buffers)",
			    r->index, st->n);
	/* back to the card: its slot is cleared */
	if (st->slots) {
		__atomic_store_n(&st->slots[r->index * 8], 0, __ATOMIC_RELEASE);
		st->slots[r->index * 8 + 1] = 0;
	}
	return 0;
}

static int ioc_stream_stop(struct fk_file *f, struct hellofpga_stream_stop *s)
{
	int ret;

	if (s->flags || s->pad || !zero(s->reserved, sizeof(s->reserved)))
		return fail(f, -EINVAL, "STREAM_STOP: flags, pad and reserved must be 0");
	ret = stream_end(f);
	if (ret == -ENOENT)
		return fail(f, ret, "STREAM_STOP: no stream started on this open file of C2H%d",
			    f->ch);
	if (ret)
		return fail(f, -EIO, "STREAM_STOP: the engine did not stop");
	return 0;
}

static int ioc_stream_stats(struct fk_file *f, struct hellofpga_stream_stats *k)
{
	HELLOFPGA_STREAM_STATS ss;
	struct fk_stream *st;

	if (k->flags || !zero(&k->held, sizeof(*k) - sizeof(k->flags)))
		return fail(f, -EINVAL, "STREAM_STATS: flags and every output field must be 0");
	st = stream_of(f, "STREAM_STATS");
	if (!st)
		return -1;
	if (HelloFPGA_Stream_GetStats(st->s, &ss))
		return fail(f, -EIO, "STREAM_STATS: %s",
			    HelloFPGA_GetLastError(f->card->h));
	k->held = ss.held;
	k->buffers = ss.buffers;
	k->frames = ss.frames;
	k->bytes = ss.bytes;
	k->ring_full = ss.ring_full;
	k->running = 1;
	return 0;
}

static int fk_stream_ioctl(struct fk_file *f, unsigned long req, void *arg)
{
	if (f->node != FK_C2H)
		return fail(f, -ENOTTY, "STREAM: an ioctl of the c2h nodes");
	if (!spec_stream())
		return fail(f, -EOPNOTSUPP,
			    "STREAM: the card's channels are memory-mapped, not AXI-Stream");
	switch (req) {
	case HELLOFPGA_IOC_STREAM_START:
		return ioc_stream_start(f, arg);
	case HELLOFPGA_IOC_STREAM_WAIT:
		return ioc_stream_wait(f, arg);
	case HELLOFPGA_IOC_STREAM_RELEASE:
		return ioc_stream_release(f, arg);
	case HELLOFPGA_IOC_STREAM_STOP:
		return ioc_stream_stop(f, arg);
	default:
		return ioc_stream_stats(f, arg);
	}
}

static int fk_ioctl(struct fk_file *f, unsigned long req, void *arg)
{
	bool ctl = f->node == FK_CONTROL;

	if (!arg && (req == HELLOFPGA_IOC_GET_INFO ||
		     req == HELLOFPGA_IOC_GET_STATS ||
		     req == HELLOFPGA_IOC_LAST_ERROR ||
		     req == HELLOFPGA_IOC_PIN || req == HELLOFPGA_IOC_XFER ||
		     req == HELLOFPGA_IOC_UNPIN ||
		     req == HELLOFPGA_IOC_SET_TIMEOUT ||
		     req == HELLOFPGA_IOC_STREAM_START ||
		     req == HELLOFPGA_IOC_STREAM_WAIT ||
		     req == HELLOFPGA_IOC_STREAM_RELEASE ||
		     req == HELLOFPGA_IOC_STREAM_STOP ||
		     req == HELLOFPGA_IOC_STREAM_STATS))
		return fail(f, -EFAULT, "ioctl 0x%lx: NULL argument", req);
	switch (req) {
	case HELLOFPGA_IOC_STREAM_START:
	case HELLOFPGA_IOC_STREAM_WAIT:
	case HELLOFPGA_IOC_STREAM_RELEASE:
	case HELLOFPGA_IOC_STREAM_STOP:
	case HELLOFPGA_IOC_STREAM_STATS:
		return fk_stream_ioctl(f, req, arg);
	case HELLOFPGA_IOC_GET_INFO:
		return ioc_get_info(f, arg);
	case HELLOFPGA_IOC_GET_STATS:
		return ioc_get_stats(f, arg);
	case HELLOFPGA_IOC_LAST_ERROR:
		return ioc_last_error(f, arg);
	case HELLOFPGA_IOC_SET_TIMEOUT:
		return ioc_set_timeout(f, arg);
	case HELLOFPGA_IOC_PIN:
		if (ctl)
			return ioc_pin(f, arg);
		break;
	case HELLOFPGA_IOC_XFER:
		if (ctl)
			return ioc_xfer(f, arg);
		break;
	case HELLOFPGA_IOC_UNPIN:
		if (ctl)
			return ioc_unpin(f, arg);
		break;
	}
	return fail(f, -ENOTTY, "ioctl 0x%lx unknown on this node", req);
}

/* ---- the interposed calls ---- */

static int fk_open(const char *path, int flags)
{
	unsigned int card;
	enum fk_node node;
	struct fk_file *f;
	int ch, fd, r = parse_node(path, &card, &node, &ch);

	if (r < 0 || r == 2) {
		errno = r < 0 ? -r : EISDIR;
		return -1;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return -1;
	}
	f->card = card_get(card);
	if (!f->card) {
		free(f);
		errno = ENODEV;
		return -1;
	}
	f->node = node;
	f->ch = ch;
	f->nonblock = flags & O_NONBLOCK;
	f->refs = 1;
	pthread_mutex_init(&f->lock, NULL);
	if (node == FK_EVENTS) {
		/* open enables the interrupt: arm it on the card */
		int efd, ret = HelloFPGA_UserIRQ_GetFd(f->card->h, ch, &efd);

		if (ret) {
			file_put(f);
			errno = ret == -EOPNOTSUPP ? ENOENT : -ret;
			return -1;
		}
		fd = fcntl(efd, flags & O_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD,
			   0);
	} else {
		fd = REAL(open)("/dev/null", O_RDWR | (flags & O_CLOEXEC));
	}
	if (fd < 0 || fd >= FK_MAX_FDS) {
		int err = fd < 0 ? errno : EMFILE;

		if (fd >= 0)
			REAL(close)(fd);
		file_put(f);
		errno = err;
		return -1;
	}
	f->fd = fd;
	pthread_mutex_lock(&fk_lock);
	__atomic_store_n(&fk_files[fd], f, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fk_lock);
	return fd;
}

static bool ours(const char *path)
{
	unsigned int card;
	enum fk_node node;
	int ch;

	return parse_node(path, &card, &node, &ch) != 0;
}

#define OPEN_MODE(flags, mode)						\
	do {								\
		if ((flags) & (O_CREAT | O_TMPFILE)) {			\
			va_list ap_;					\
			va_start(ap_, flags);				\
			mode = va_arg(ap_, int);			\
			va_end(ap_);					\
		}							\
	} while (0)

int open(const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(open)(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(open64)(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(openat)(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(openat64)(dirfd, path, flags, mode);
}

int __open_2(const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) : REAL(__open_2)(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) :
			    REAL(__open64_2)(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) :
			    REAL(__openat_2)(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) :
			    REAL(__openat64_2)(dirfd, path, flags);
}

int close(int fd)
{
	struct fk_file *f = NULL;
	int ret;

	if (fd >= 0 && fd < FK_MAX_FDS &&
	    __atomic_load_n(&fk_files[fd], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&fk_lock);
		f = fk_files[fd];
		__atomic_store_n(&fk_files[fd], NULL, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&fk_lock);
	}
	ret = REAL(close)(fd);
	if (f)
		file_put(f);
	return ret;
}

static ssize_t fk_rw(struct fk_file *f, void *buf, size_t n, off_t off,
		     bool use_pos, bool write)
{
	ssize_t r;

	if (use_pos) {
		pthread_mutex_lock(&f->lock);
		off = f->pos;
		pthread_mutex_unlock(&f->lock);
	}
	r = node_rw(f, buf, n, off, write);
	if (use_pos && r > 0) {
		pthread_mutex_lock(&f->lock);
		f->pos = off + r;
		pthread_mutex_unlock(&f->lock);
	}
	file_put(f);
	return r;
}

ssize_t read(int fd, void *buf, size_t n)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, 0, true, false) : REAL(read)(fd, buf, n);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, 0, true, false) :
		   REAL(__read_chk)(fd, buf, n, buflen);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, (void *)buf, n, 0, true, true) :
		   REAL(write)(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(pread)(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(pread64)(fd, buf, n, off);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(__pread_chk)(fd, buf, n, off, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(__pread64_chk)(fd, buf, n, off, buflen);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, (void *)buf, n, off, false, true) :
		   REAL(pwrite)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, (void *)buf, n, off, false, true) :
		   REAL(pwrite64)(fd, buf, n, off);
}

static off_t fk_lseek(struct fk_file *f, off_t off, int whence)
{
	uint64_t end = f->node == FK_USER ? f->card->user_bar_size :
		       f->card->info.ddr_size;
	off_t pos;

	pthread_mutex_lock(&f->lock);
	pos = whence == SEEK_SET ? off : whence == SEEK_CUR ? f->pos + off :
	      whence == SEEK_END ? (off_t)end + off : -1;
	if (pos >= 0 && whence >= SEEK_SET && whence <= SEEK_END)
		f->pos = pos;
	pthread_mutex_unlock(&f->lock);
	file_put(f);
	if (pos < 0 || whence < SEEK_SET || whence > SEEK_END) {
		errno = EINVAL;
		return -1;
	}
	return pos;
}

off_t lseek(int fd, off_t off, int whence)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_lseek(f, off, whence) : REAL(lseek)(fd, off, whence);
}

off_t lseek64(int fd, off_t off, int whence)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_lseek(f, off, whence) : REAL(lseek64)(fd, off, whence);
}

int ioctl(int fd, unsigned long req, ...)
{
	struct fk_file *f = file_get(fd);
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!f)
		return REAL(ioctl)(fd, req, arg);
	ret = fk_ioctl(f, req, arg);
	file_put(f);
	return ret;
}

/*
 * mmap() of a c2h node: its MEM_HOST ring, read-only, from offset 0 (the
 * fake's memory itself: the address of the ring); munmap() of it lets go.
 */
static void *fk_mmap(struct fk_file *f, size_t len, int prot, off_t off)
{
	struct fk_map *m;

	if (prot & PROT_WRITE) {
		fail(f, -EACCES, "mmap: a stream ring is read-only (no PROT_WRITE)");
		return MAP_FAILED;
	}
	pthread_mutex_lock(&fk_lock);
	m = f->map;
	if (m && (off || len > m->len || m->mapped))
		m = NULL;
	if (m)
		m->mapped = true;
	pthread_mutex_unlock(&fk_lock);
	if (!m) {
		fail(f, f->map ? -EINVAL : -ENOENT,
		     "mmap: only the MEM_HOST stream ring, once, from offset 0 (hf_fakedev)");
		return MAP_FAILED;
	}
	return m->addr;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fk_file *f = file_get(fd);
	void *ret;

	if (!f)
		return REAL(mmap)(addr, len, prot, flags, fd, off);
	ret = fk_mmap(f, len, prot, off);
	file_put(f);
	return ret;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	struct fk_map *found = NULL;

	pthread_mutex_lock(&fk_lock);
	for (struct fk_map *m = fk_maps; m && !found; m = m->next)
		if (m->addr == addr && m->mapped)
			found = m;
	pthread_mutex_unlock(&fk_lock);
	if (!found)
		return REAL(munmap)(addr, len);
	map_release(found, false);
	return 0;
}

/* access() and stat() of our paths: 0 for a present node, else ENOENT. */
static int fk_exists(const char *path, struct stat *st)
{
	unsigned int card;
	enum fk_node node;
	int ch, r = parse_node(path, &card, &node, &ch);

	if (r < 0) {
		errno = -r;
		return -1;
	}
	if (st) {
		memset(st, 0, sizeof(*st));
		st->st_mode = r == 2 ? S_IFDIR | 0755 : S_IFCHR | 0660;
		st->st_nlink = 1;
		st->st_rdev = makedev(240, node == FK_EVENTS ?
				      card * 64 + 32 + ch :
				      card * 64 + node * 4 + ch);
	}
	return 0;
}

int access(const char *path, int mode)
{
	return ours(path) ? fk_exists(path, NULL) : REAL(access)(path, mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	return ours(path) ? fk_exists(path, NULL) :
			    REAL(faccessat)(dirfd, path, mode, flags);
}

int stat(const char *path, struct stat *st)
{
	return ours(path) ? fk_exists(path, st) : REAL(stat)(path, st);
}

int lstat(const char *path, struct stat *st)
{
	return ours(path) ? fk_exists(path, st) : REAL(lstat)(path, st);
}

/* ---- test hooks ---- */

/**
 * hf_fakedev_inject() - inject XDMA_FAULT_* into card @card's model.
 * Return: 0, or -ENODEV when no node of the card is open.
 */
int hf_fakedev_inject(unsigned int card, uint32_t faults)
{
	struct fk_card *c = NULL;
	int ret = -ENODEV;

	pthread_mutex_lock(&fk_lock);
	if (card < FK_MAX_CARDS)
		c = fk_cards[card];
	if (c)
		ret = hf_emu_test_inject(c->h, faults);
	pthread_mutex_unlock(&fk_lock);
	return ret;
}

/**
 * hf_fakedev_fail_next() - make the next pread/pwrite of a node or XFER
 * fail with @err (negative errno) and the driver text @text.
 */
void hf_fakedev_fail_next(int err, const char *text)
{
	pthread_mutex_lock(&fk_lock);
	fk_fail_err = err;
	snprintf(fk_fail_text, sizeof(fk_fail_text), "%s", text ? text : "");
	pthread_mutex_unlock(&fk_lock);
}
