/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the files of the API fuzzer share (fuzz_api.c has the
 * overview): its parts, its state, the helpers of fuzz_api.c and the
 * operations of each API family's file, one call of the mix each.
 */
#ifndef HF_TEST_FUZZ_H
#define HF_TEST_FUZZ_H

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api_doc.h"
#include "harness.h"
#include "hf_lib.h"
#include "hf_number.h"
#include "hf_stream_pattern.h"
#include "hf_test.h"
#include "hf_user_regs.h"
#include "lib_helpers.h"
#include "xdma_model.h"

#define FZ_MAX_THREADS	16
#define FZ_HOST		(256u << 10)	/* host buffer per thread */
#define FZ_MAX_XFER	(64u << 10)	/* largest valid CPU-path request */
#define FZ_GPU_SIZE	(128u << 10)	/* each GPU buffer of a thread */
#define FZ_NGPU		2
#define FZ_NPINS	6
#define FZ_LOG		8
#define FZ_LOGLEN	200
#define FZ_NCARDS	4

/* ---- parts that can be switched on and off ---- */

enum fz_part {
	P_DATA,			/* DMA_MM on good and bad arguments */
	P_INFO,			/* GetInfo, counters, timeouts, StrError ... */
	P_USER,			/* user BAR scratch, RAM and bad offsets */
	P_GPUDIRECT,		/* Pin, Xfer, Unpin, freeing pinned memory */
	P_TRANSFER_MODE,	/* SetGPUBuffer, SetTransferMode, DMA_MM on it */
	P_GPU_MEM,		/* GPU_Alloc, GPU_Free, GPU_Memcpy */
	P_OPEN,			/* Open of random names, Close */
	P_ALIGNED_CARD,		/* a card with align=64 (bounce, RMW) */
	P_USER_IRQ,		/* user interrupts: the user BAR lines, Wait, GetFd */
	P_CLOSED_HANDLE,	/* calls on a handle after its Close */
	P_CLOSE_RACE,		/* Close while other threads use the handle */
	P_BAD_HOST_PTR,		/* unmapped, PROT_NONE, read-only host buffers */
	P_SHORT_TIMEOUT,	/* 1..20 ms timeouts, -ETIMEDOUT and actual */
	P_FORK,			/* fork(), the child calls every family */
	P_SHARED_OPEN,		/* threads open the same shared emu:N at once */
	P_STREAM,		/* Stream_* on shared streams of an AXI-Stream card */
	P_STREAM_CLOSE,		/* HelloFPGA_Close of the stream card under them */
	P_GPU_STREAM,		/* GPU_Stream*: create, destroy under use, sync */
	P_SUBMIT,		/* GPUDirect_Submit/_Complete, GPU-side flags */
	P_COUNT
};

/* ---- state ---- */

struct fz_card {
	const char *name;
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	const uint8_t *mem;	/* the emulated card's memory, read directly */
	uint64_t slice;		/* bytes each thread owns */
	uint64_t guard;		/* first byte of the guard nobody writes */
};

struct fz_gbuf {
	uint8_t *gpu;		/* NULL: none */
	uint8_t *copy;		/* what it holds */
};

struct fz_pin {
	HELLOFPGA_GPU_HANDLE h;	/* 0: free entry */
	int card;
	int g;			/* its GPU buffer */
	size_t off;		/* in the buffer */
	size_t size;
	bool revoked;		/* its GPU buffer was freed */
};

struct fz_thread {
	int id;
	uint64_t rng;
	pthread_t th;
	uint8_t *host;
	uint8_t *shadow[FZ_NCARDS];	/* of the thread's own slices */
	struct fz_gbuf g[FZ_NGPU];
	struct fz_pin pins[FZ_NPINS];
	HELLOFPGA_HANDLE closed;	/* P_CLOSED_HANDLE */
	uint8_t *sgpu;			/* P_SUBMIT: GPU memory, unchecked */
	HELLOFPGA_GPU_HANDLE spin;	/* its pin on the submission card */
	bool spin_revoked;		/* the pin's memory was freed */
	uint64_t calls;
	unsigned int logn;
	char log[FZ_LOG][FZ_LOGLEN];
	bool failed;
	char failure[1024];
};

#define FZ_RACE_NAME	"emu:9,private,ddr=64K"
#define FZ_RACE_SIZE	(64u << 10)
/* where a submission's ticket comes from (P_SUBMIT) */
enum { TK_SUB, TK_RACE, TK_ST, TK_MM };
/* a handle-shaped object that is no handle (magic 0) */
#define BOGUS ((HELLOFPGA_HANDLE)(void *)bogus_dev)

/*
 * Two pools: streams that carry the stream rings' GPU waits and GPU
 * releases (and host functions), and streams that carry submissions'
 * doorbell writes and waits.  Kept apart so that a submission's start
 * never waits behind a ring's wait for a frame: a submission's GPU
 * operations then only depend on earlier submissions, and every
 * HelloFPGA_GPUDirect_Complete() ends.  Any thread destroys one now and
 * then while others use it.
 */
#define FZ_GS_WAIT	2
#define FZ_GS_SUB	2
#define FZ_GS		(FZ_GS_WAIT + FZ_GS_SUB)

#define FZ_ST_NAME	"emu:8,private,st,ddr=64K,h2c=2,c2h=4"
#define FZ_ST_CH	4
#define FZ_ST_FRAME	4096u
#define FZ_ST_MAXBUF	8

enum { RING_LIB, RING_HOST, RING_GPU };
enum { SL_EMPTY, SL_BUSY, SL_OPEN };

/**
 * struct fz_slot - the stream of one C2H channel of the stream card.
 * @lock: over all below
 * @state: SL_EMPTY, SL_BUSY (a thread opens or closes it), SL_OPEN
 * @s: the stream (SL_OPEN)
 * @h: the card's handle it was opened on
 * @gen: that card's generation (stc.gen): once the card's Close began,
 *	the stream is dead (its calls are -EBADF, its ring freed)
 * @bufs: its buffers
 * @bsize: their size
 * @held: bit i: buffer i was handed out and no thread has taken it to
 *	release it yet
 * @fseq: the sequence number of the frame in each held buffer
 * @fptr: where each held buffer is (host and library rings)
 * @ring: RING_*
 * @host: RING_HOST: the ring's memory (the fuzzer's)
 * @gpu: RING_GPU: the ring's GPU memory, NULL once freed under it
 * @gpu_off: the ring's offset in it
 * @pin: RING_GPU: the pin the ring lies in
 * @revoked: RING_GPU: its GPU memory was freed while the stream was open
 * @closed: the last stream closed here (for calls on a closed stream)
 */
struct fz_slot {
	pthread_mutex_t lock;
	int state;
	HELLOFPGA_STREAM s;
	HELLOFPGA_HANDLE h;
	uint64_t gen;
	uint32_t bufs;
	size_t bsize;
	uint64_t held;
	uint64_t fseq[FZ_ST_MAXBUF];
	const uint8_t *fptr[FZ_ST_MAXBUF];
	int ring;
	uint8_t *host;
	uint8_t *gpu;
	size_t gpu_off;
	HELLOFPGA_GPU_HANDLE pin;
	bool revoked;
	HELLOFPGA_STREAM closed;
};

/*
 * Rings whose stream's close found the engine wedged (-EIO: the card may
 * still write them): what the fuzzer gave them is freed after the cards
 * are closed.
 */
#define FZ_WEDGED	64

#define FZ_SUB_NAME	"emu:10,private,ddr=256K,h2c=2,c2h=2"
/*
 * A thread's GPU memory for submissions: H2C ones read the first 32 KiB;
 * each queue that writes (C2H of a channel of the submission card or the
 * race card) has 16 KiB of its own after it, so no two transfers running
 * at once write, or write and read, the same bytes.
 */
#define FZ_SUB_GPU	(128u << 10)
#define FZ_SUB_RD	(32u << 10)
#define FZ_SUB_WR	(16u << 10)
#define FZ_TICKETS	64

struct fz_ticket {
	HELLOFPGA_HANDLE h;	/* the handle that gave it */
	uint64_t ticket;
	int card;		/* TK_* */
};

/* fuzz_api.c */
extern bool part_on[P_COUNT];
extern struct fz_card cards[FZ_NCARDS];
extern int ncards;
extern int nthreads;
extern int stop;
extern HELLOFPGA_HANDLE race_h;
extern pthread_mutex_t race_lock;
extern uint64_t bogus_dev[512];
uint64_t rnd(struct fz_thread *t);
uint64_t below(struct fz_thread *t, uint64_t n);
bool chance(struct fz_thread *t, unsigned int percent);
size_t rnd_len(struct fz_thread *t, size_t max);
void fz_log(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fz_fail(struct fz_thread *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool doc_ok(struct fz_thread *t, const char *fn, int ret);
bool must_succeed(struct fz_thread *t, const char *fn, int ret,
		  HELLOFPGA_HANDLE h);
bool must_fail(struct fz_thread *t, const char *fn, int ret);
uint64_t slice_base(const struct fz_card *c, int tid);
size_t max_xfer(const struct fz_card *c);
bool check_whole_slice(struct fz_thread *t, int ci, const char *after);
bool check_around(struct fz_thread *t, int ci, uint64_t off,
		  uint64_t len, const char *after);
int pick_card(struct fz_thread *t);
int rnd_channel(struct fz_thread *t, int n, bool *valid);

/* fuzz_data.c */
void op_bad_dma(struct fz_thread *t);
void op_write(struct fz_thread *t);
void op_read(struct fz_thread *t);
void op_bad_host_ptr(struct fz_thread *t);
void op_gpu_mem(struct fz_thread *t);
void op_pin(struct fz_thread *t);
void op_unpin(struct fz_thread *t);
void op_free_pinned(struct fz_thread *t);
void op_xfer(struct fz_thread *t);
void op_transfer_mode(struct fz_thread *t);
void op_dma_gpu(struct fz_thread *t);

/* fuzz_card.c */
void op_info(struct fz_thread *t);
void op_user(struct fz_thread *t);
void op_open(struct fz_thread *t);
void op_closed_handle(struct fz_thread *t);
void op_close_race(struct fz_thread *t);
extern uint64_t excused_faults;
void op_short_timeout(struct fz_thread *t);
HELLOFPGA_HANDLE race_card(void);

/* fuzz_stream.c */

struct fz_gs_pool {
	pthread_mutex_t lock;
	void *s[FZ_GS];		/* NULL: none now */
	void *dead[FZ_GS];	/* the last one destroyed in each place */
};
extern struct fz_gs_pool gsp;

void *made_up_gs(struct fz_thread *t);
void *gs_get(struct fz_thread *t, bool sub, int *ip);
bool gs_current(int i, const void *v);
void fz_noop(void *arg);
void op_gpu_stream(struct fz_thread *t);

struct fz_st_card {
	pthread_mutex_t lock;
	HELLOFPGA_HANDLE h;	/* NULL while it is closed and opened again */
	uint64_t gen;		/* bumped when a Close of it begins */
	int closers;		/* atomic: a Close of it runs */
};
extern struct fz_st_card stc;

extern struct fz_slot slots[FZ_ST_CH];

struct fz_wedged {
	pthread_mutex_t lock;
	uint8_t *host[FZ_WEDGED];
	uint8_t *gpu[FZ_WEDGED];
	unsigned int n;
	unsigned int count;
};
extern struct fz_wedged wedged;

HELLOFPGA_HANDLE st_card(uint64_t *gen);
int st_source_start(HELLOFPGA_HANDLE h);

struct fz_storm {
	HELLOFPGA_STREAM v;	/* atomic: the stream being closed, or NULL */
	int owner;		/* atomic: its closer */
	int hammering;		/* atomic: threads hammering it */
	unsigned int n;		/* atomic: storms */
	unsigned int hammered;	/* atomic: of them, hammered at the Close */
};
extern struct fz_storm storm;

void storm_hammer(struct fz_thread *t);
void op_stream(struct fz_thread *t);
void op_st_h2c(struct fz_thread *t);
void op_st_card_close(struct fz_thread *t);

/* fuzz_submit.c */
void op_user_irq(struct fz_thread *t);

struct fz_tickets {
	pthread_mutex_t lock;
	struct fz_ticket t[FZ_TICKETS];
	unsigned int n;
};
extern struct fz_tickets tks;

extern struct fz_card subc;
void ticket_add(HELLOFPGA_HANDLE h, uint64_t ticket, int card);
void op_sub_pin(struct fz_thread *t);
void op_submit(struct fz_thread *t);
void op_complete(struct fz_thread *t);

/* fuzz_fork.c */

struct fz_fork_storm {
	int owner;		/* atomic: the forking thread + 1, or 0 */
	int hammering;		/* atomic: threads in fork_hammer() */
};
extern struct fz_fork_storm fstorm;

void fork_hammer(struct fz_thread *t);
void op_fork(struct fz_thread *t);

#endif /* HF_TEST_FUZZ_H */
