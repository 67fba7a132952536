/* SPDX-License-Identifier: MIT */
/*
 * test.h - what the files of "hellofpga test", the GPU Direct test program
 * (docs/test-program.md), share.  cases.c holds the table of cases and
 * runner.c runs them; cases_seed.c has the seed's ten, cases_extra.c five
 * more; common.c the outcomes, their lines, patterns and transfers every
 * case uses; soak.c --soak; report.c --json.
 */
#ifndef HF_CLI_TEST_H
#define HF_CLI_TEST_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

#define T_NCASES		15
#define T_PAGE			4096u
#define T_DEFAULT_SIZE		(4ull << 20)
#define T_MIN_SIZE		(64ull << 10)
#define T_MAX_SIZE		(1ull << 30)
#define T_STRESS_SIZE		(64ull << 20)
#define T_MIN_DDR		(16ull << 20)
#define T_GUARD			4096u	/* bytes checked untouched each side */
#define T_POISON		0xa5
#define T_BATCH			10
#define T_ADDR_POINTS		7
#define T_STRESS_POINTS		6
#define T_REUSE_XFERS		5000
#define T_REUSE_SIZE		(64u << 10)
#define T_REUSE_SLOTS		16
#define T_REUSE_CHECK_EVERY	250
#define T_REUSE_NEW_EVERY	50
#define T_ROT_BUFS		4
#define T_ROT_SLOTS		8
#define T_ROT_FRAMES		64
#define T_ROT_FRAME		(1u << 20)
#define T_CPU_ROUNDS		32
#define T_SOAK_XFERS		10	/* per direction and sample */
#define T_SOAK_WARMUP		3	/* untimed ones before them */
#define T_SOAK_SAMPLES		72	/* default: DURATION / 72 */
#define T_SOAK_CHECK_EVERY	16	/* load rounds per verified round */
#define T_SOAK_MAX_S		(30ull * 86400)
#define T_NONE			1	/* "no alternative" for expect() */
#define NS_PER_S		1000000000ull

enum t_result { T_NOTRUN = 0, T_PASS, T_FAIL, T_SKIP };

extern const char *const result_name[];

/**
 * struct t_res - the outcome of one case (or of the soak).
 * @res: T_*
 * @ns: wall time of the case
 * @text: PASS: what was checked and measured; FAIL/SKIP: the reason
 */
struct t_res {
	enum t_result res;
	uint64_t ns;
	char text[384];
};

/**
 * struct gbuf - a GPU buffer of the test and its pin.
 * @p: memory from HelloFPGA_GPU_Alloc(), NULL when none
 * @size: bytes
 * @hd: GPU Direct handle, 0 when not pinned
 */
struct gbuf {
	void *p;
	size_t size;
	HELLOFPGA_GPU_HANDLE hd;
};

/**
 * struct soak_sample - one soak measurement.
 * @t_ns: start of the sample since the start of the soak
 * @rd_ns: median card -> GPU transfer time
 * @wr_ns: median GPU -> card transfer time
 * @load: load transfers since the previous sample
 */
struct soak_sample {
	uint64_t t_ns;
	uint64_t rd_ns;
	uint64_t wr_ns;
	uint64_t load;
};

/**
 * struct tctx - the test run.
 * @h: the card
 * @info: what it is
 * @gs: the GPU as HelloFPGA_GetGPUStatus() reports it
 * @ch: H2C and C2H channel of the GPU Direct transfers
 * @size: bytes of an ordinary transfer (--size)
 * @stress: bytes of a stress transfer
 * @gran: engine alignment and length granule (at least 1)
 * @ha, @hb, @hc: host scratch buffers of @hlen bytes each
 * @hlen: their size
 * @shared: the buffer pinned by "pin" and used until "unpin"
 * @cur: outcome of the running case; NULL between cases
 * @prog: progress line of the running case
 * @verified: bytes verified by the running case
 * @soak_ns: --soak, 0 without
 * @interval_ns: --interval
 * @samples: soak samples taken
 * @nsamples: how many
 * @soak_start: when the soak began
 * @soak_shown_ms: milliseconds of it the progress line has counted
 * @soak_last: the last sample, for the progress line (NULL before one)
 * @soak_xfers: soak transfers, measured and load
 * @soak_bytes: bytes they moved
 * @soak: outcome of the soak
 */
struct tctx {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	HELLOFPGA_GPU_STATUS gs;
	int ch;
	size_t size;
	size_t stress;
	uint64_t gran;
	uint8_t *ha;
	uint8_t *hb;
	uint8_t *hc;
	size_t hlen;
	struct gbuf shared;
	struct t_res *cur;
	struct cli_progress prog;
	uint64_t verified;
	uint64_t soak_ns;
	uint64_t interval_ns;
	struct soak_sample *samples;
	size_t nsamples;
	uint64_t soak_start;
	uint64_t soak_shown_ms;
	const struct soak_sample *soak_last;
	uint64_t soak_xfers;
	uint64_t soak_bytes;
	struct t_res soak;
};

struct tcase {
	const char *name;
	const char *title;
	bool gpu;	/* needs a GPU; SKIP without one */
	int (*fn)(struct tctx *t);
};

extern volatile sig_atomic_t t_stop;

/* the cases, in order (cases.c) */
extern const struct tcase t_cases[T_NCASES];

/**
 * struct drift - a direction's soak statistics.
 * @mean_ns, @mean_gbps: over all samples (bandwidth per sample, averaged)
 * @first_ns, @last_ns, @first_gbps, @last_gbps: means of the first and
 *	last third of the samples
 * @valid: at least 3 samples, so that the thirds exist
 */
struct drift {
	double mean_ns;
	double mean_gbps;
	double first_ns;
	double last_ns;
	double first_gbps;
	double last_gbps;
	bool valid;
};


/* Pattern families of data_correctness; PAT_RANDOM everywhere else. */
enum { PAT_ZERO, PAT_ONES, PAT_ALT, PAT_INC, PAT_WALK, PAT_RANDOM, PAT_N };

/* splitmix64 */
static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* common.c */
int __attribute__((format(printf, 2, 3)))
tfail(struct tctx *t, const char *fmt, ...);
int __attribute__((format(printf, 4, 5)))
tlibfail(struct tctx *t, HELLOFPGA_HANDLE h, int err, const char *fmt, ...);
void __attribute__((format(printf, 2, 3)))
tpass(struct tctx *t, const char *fmt, ...);
int __attribute__((format(printf, 5, 6)))
expect(struct tctx *t, int ret, int want, int alt, const char *fmt, ...);
void __attribute__((format(printf, 2, 3)))
tprog(struct tctx *t, const char *fmt, ...);
uint64_t seed_of(int cs, uint32_t a, uint32_t b);
void fill(uint8_t *p, size_t len, uint64_t seed);
int check_bytes(struct tctx *t, const char *what, const uint8_t *want,
		const uint8_t *got, size_t len, uint64_t base);
int check_poison(struct tctx *t, const char *what, const uint8_t *got,
		 size_t len, uint64_t base);
int mm_xfer(struct tctx *t, bool c2h, void *buf, uint64_t addr, size_t len,
	    uint64_t *ns, const char *what);
int card_put(struct tctx *t, uint64_t addr, const void *buf, size_t len);
int card_get(struct tctx *t, uint64_t addr, void *buf, size_t len);
int gpu_put(struct tctx *t, void *gpu, const void *host, size_t len);
int gpu_get(struct tctx *t, void *host, const void *gpu, size_t len);
int gpu_poison(struct tctx *t, void *gpu, size_t len);
int gd_xfer(struct tctx *t, const struct gbuf *gb, size_t off, uint64_t addr,
	    size_t len, int dir, uint64_t *ns);
int gbuf_alloc(struct tctx *t, struct gbuf *gb, size_t size);
int gbuf_pin(struct tctx *t, struct gbuf *gb, uint64_t *ns);
int gbuf_new(struct tctx *t, struct gbuf *gb, size_t size);
void gbuf_free(struct tctx *t, struct gbuf *gb);
int roundtrip(struct tctx *t, const struct gbuf *gb, size_t off, uint64_t addr,
	      size_t len, int fam, uint64_t seed, uint64_t *ns);
uint64_t align_down(uint64_t v, uint64_t a);
uint64_t median(uint64_t *s, size_t n);
double us(uint64_t ns);
const char *platform_name(int p);
void print_name(const char *name);
void print_result(const struct t_res *r);

/* cases_seed.c */
int case_get_status(struct tctx *t);
int case_pin(struct tctx *t);
int case_read_c2h(struct tctx *t);
int case_write_h2c(struct tctx *t);
int case_unpin(struct tctx *t);
int case_data_correctness(struct tctx *t);
int case_batch_10x_read(struct tctx *t);
int case_addr_space(struct tctx *t);
int case_stress(struct tctx *t);
int case_boundary(struct tctx *t);

/* cases_extra.c */
int case_transfer_mode(struct tctx *t);
int case_cpu_path(struct tctx *t);
int case_pin_misuse(struct tctx *t);
int case_handle_reuse(struct tctx *t);
int case_rotation(struct tctx *t);


/* soak.c */
const char *fmt_duration(uint64_t ns, char *buf, size_t len);
void drift_of(const struct tctx *t, bool rd, struct drift *d);
double pct(double first, double last);
void run_soak(struct tctx *t);

/* report.c */
int write_json(struct tctx *t, const char *path, const struct t_res *res,
	       const bool *sel, int passed, int failed, int skipped);

#endif /* HF_CLI_TEST_H */
