/* SPDX-License-Identifier: MIT */
/*
 * fakedev.h - what the files of libhf_fakedev.so share (fakedev.c has the
 * overview): its nodes, cards, pins, streams and open files, their state
 * and locks, and the functions one family's file calls in another's.
 * Every symbol but the interposed calls and the hooks stays local to the
 * object (fakedev.map).
 */
#ifndef HF_TEST_FAKEDEV_H
#define HF_TEST_FAKEDEV_H

/* as the target's -U_FORTIFY_SOURCE: this object defines open, read, ... */
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
#include "hf_test.h"
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

/* fakedev.c */
extern pthread_mutex_t fk_lock;
extern struct fk_map *fk_maps;
extern struct fk_file *fk_files[FK_MAX_FDS];
extern uint64_t fk_next_handle;
uint64_t env_u64(const char *name, uint64_t def);
bool spec_stream(void);
int parse_node(const char *path, unsigned int *card,
	       enum fk_node *node, int *ch);
struct fk_card *card_get(unsigned int n);
struct fk_file *file_get(int fd);
void map_release(struct fk_map *m, bool stream_side);
void wb_release(struct fk_stream *st, bool mark);
int stream_end(struct fk_file *f);
void file_put(struct fk_file *f);
int fail(struct fk_file *f, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int injected(struct fk_file *f);
int card_xfer(struct fk_file *f, enum hf_xdma_dir dir, int ch, void *buf,
	      uint64_t card, size_t len, uint32_t timeout_ms,
	      size_t *done);
uint64_t fk_features(void);
int packet_ok(struct fk_file *f, const char *what, uint64_t addr,
	      uint64_t len);
ssize_t node_rw(struct fk_file *f, void *buf, size_t n, off_t off,
		bool write);

/* fakedev_ioctl.c */
bool zero(const void *p, size_t len);
bool mapped(uint64_t addr, uint64_t size);
int fk_ioctl(struct fk_file *f, unsigned long req, void *arg);

/* fakedev_stream.c */
int fk_stream_ioctl(struct fk_file *f, unsigned long req, void *arg);

#endif /* HF_TEST_FAKEDEV_H */
