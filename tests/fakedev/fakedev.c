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
 *   HF_FAKEDEV_DESIGN     "other": the card's user logic is not the hellofpga
 *                         reference design but tests/other_design.h's;
 *                         the card's last close prints "hf_fakedev: card
 *                         N: W user register writes" on standard error
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
 *
 * Files: this one has the cards, the open files and the data calls
 * behind them, and the hooks; fakedev_ioctl.c the ioctls of the control
 * node and every node, fakedev_stream.c the C2H stream rings' ioctls,
 * fakedev_calls.c the interposed C library calls; fakedev.h is what they
 * share.
 */
#include "fakedev.h"
#include "other_design.h"

pthread_mutex_t fk_lock = PTHREAD_MUTEX_INITIALIZER;
struct fk_map *fk_maps;
struct fk_file *fk_files[FK_MAX_FDS];
static struct fk_card *fk_cards[FK_MAX_CARDS];
uint64_t fk_next_handle;
static uint64_t fk_calls;
static int fk_fail_err;
static char fk_fail_text[256];

uint64_t env_u64(const char *name, uint64_t def)
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

/* The card's user logic: NULL for the reference design. */
static const struct xdma_user_ops *card_design(void)
{
	const char *v = getenv("HF_FAKEDEV_DESIGN");

	return v && !strcmp(v, "other") ? &other_design : NULL;
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
bool spec_stream(void)
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
int parse_node(const char *path, unsigned int *card,
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

struct fk_card *card_get(unsigned int n)
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
	hf_emu_test_user_logic(card_design());
	ret = HelloFPGA_Open(card_spec(), &c->h);
	hf_emu_test_user_logic(NULL);
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
	/* what a test asks of a design it must not touch */
	if (card_design())
		fprintf(stderr, "hf_fakedev: card %u: %llu user register writes\n",
			c->index, (unsigned long long)other_design_writes());
	HelloFPGA_Close(c->h);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct fk_file *file_get(int fd)
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

/* Free a ring's memory once neither the stream nor a mapping has it. */
void map_release(struct fk_map *m, bool stream_side)
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
void wb_release(struct fk_stream *st, bool mark)
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

int stream_end(struct fk_file *f)
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
void file_put(struct fk_file *f)
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
int fail(struct fk_file *f, int err, const char *fmt, ...)
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
int injected(struct fk_file *f)
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
int card_xfer(struct fk_file *f, enum hf_xdma_dir dir, int ch, void *buf,
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
uint64_t fk_features(void)
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
int packet_ok(struct fk_file *f, const char *what, uint64_t addr,
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
ssize_t node_rw(struct fk_file *f, void *buf, size_t n, off_t off,
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
