/* SPDX-License-Identifier: MIT */
/*
 * bench.h - "hellofpga bench": shared declarations of cmd_bench.c (the
 * runs), bench_gpu.c (the GPU: CUDA's driver API loaded at run time, or
 * the library's emulated GPU), bench_link.c (the card's link model),
 * bench_stats.c (the figures derived from a run), bench_predict.c (the
 * predicted cost per transfer on real hardware) and one file per output:
 * bench_text.c (tables), bench_json.c, bench_csv.c, bench_md.c
 * (Markdown), bench_plot.c.  docs/benchmarks.md describes what is
 * measured.
 */
#ifndef HF_BENCH_H
#define HF_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_predict.h"
#include "cli.h"

/* The paths measured side by side, one transfer of each in turn. */
enum bpath {
	BP_CEIL,	/* raw copy pinned host <-> GPU (cuMemcpy): the ceiling */
	BP_DIRECT,	/* GPU Direct on a pinned handle */
	BP_TRAD_PAGE,	/* card <-> pageable host buffer + copy to/from GPU */
	BP_TRAD_PIN,	/* card <-> pinned host buffer + copy to/from GPU */
	BP_XMODE,	/* TransferMode: DMA_MM calls in GPU_PINNED mode */
	BP_CPU,		/* CPU mode: DMA_MM calls with a host buffer */
	BP_MEMCPY,	/* host memcpy of the same size: the CPU-mode ceiling */
	BP_N,
};

/* Directions: H2C = GPU (or host) -> card, "write"; C2H = card -> GPU, "read". */
#define NS_PER_S		1000000000ull

enum { BD_H2C = 0, BD_C2H = 1, BD_N = 2 };

extern const char *const bpath_name[BP_N];	/* "direct" ... (JSON/CSV) */
extern const char *const bpath_label[BP_N];	/* "GPU Direct" ... (tables) */
extern const char *const bdir_name[BD_N];	/* "h2c", "c2h" */

/**
 * struct bstats - one series of timed transfers.
 * @iters: transfers timed (0: not measured)
 * @min_ns, @median_ns, @p99_ns, @max_ns: time per transfer
 * @mean_ns: mean time per transfer
 */
struct bstats {
	unsigned int iters;
	uint64_t min_ns;
	uint64_t median_ns;
	uint64_t p99_ns;
	uint64_t max_ns;
	uint64_t mean_ns;
};

/* --repeats: the sweep runs this many times over, its figures' spread */
#define BENCH_MAX_REPEATS	10

/**
 * struct bpoint - one transfer size of the sweep.
 * @size: bytes per transfer
 * @st: [path][direction], every repeat's transfers together
 * @rep: [repeat][path][direction], each repeat's own
 * @first: [path][direction] timed rounds that began with the path
 * @samples: [path][direction] the times of its timed transfers
 * @nsamples: [path][direction] how many
 * @verified: GPU Direct moved the right bytes both ways at this size
 */
struct bpoint {
	uint64_t size;
	struct bstats st[BP_N][BD_N];
	struct bstats rep[BENCH_MAX_REPEATS][BP_N][BD_N];
	unsigned int first[BP_N][BD_N];
	uint64_t *samples[BP_N][BD_N];
	unsigned int nsamples[BP_N][BD_N];
	bool verified;
};

/* The order of the paths in a round: a balanced Latin square (Williams
 * design) of the measured paths, 2n rows for an odd count n. */
#define BENCH_ORDER_ROWS	(2 * BP_N)

/**
 * struct bstream - one point of the stream section (AXI-Stream card).
 * @frame_size: bytes per frame
 * @buffers: buffers in the ring
 * @buffer_size: bytes per buffer: @frame_size, or 1 MiB for larger frames
 *	(which span several)
 * @rate_table: a point of the frame-rate table (by ring depth), else of
 *	the table by frame size
 * @gpu: the ring in GPU memory (a GPU Direct pin), else host memory
 * @frames: frames taken, every one verified
 * @ns: wall time of the run
 * @fps: frames per second
 * @gbps: 10^9 bytes per second
 * @p50_ns: median time between the Waits of consecutive frames
 * @p99_ns: its 99th percentile
 * @corrupt: frames that failed their check
 * @dropped: frames the source dropped, and sequence gaps
 * @ring_full: times every buffer was with the consumer
 * @cpu_gbps: the ceiling of the same run: the CPU filling and checking
 *	frames of @frame_size (the emulated source's and the check's work)
 * @model_gbps: the link model's payload rate for these frames, 0 without
 */
struct bstream {
	uint64_t frame_size;
	uint32_t buffers;
	uint64_t buffer_size;
	bool rate_table;
	bool gpu;
	uint64_t frames;
	uint64_t ns;
	double fps;
	double gbps;
	uint64_t p50_ns;
	uint64_t p99_ns;
	uint64_t corrupt;
	uint64_t dropped;
	uint64_t ring_full;
	double cpu_gbps;
	double model_gbps;
};

/**
 * struct bgpuwait - the gpuwait section: the card's completion of a
 *	stream buffer to the start of its consumer kernel.
 * @run: measured
 * @real: on a real GPU (else the emulated one: the path, no figures)
 * @gpu: HelloFPGA_Stream_WaitOnGPU() with the kernel queued behind it
 * @cpu: HelloFPGA_Stream_Wait() on the CPU, then the launch
 * @ceiling: an unblocked launch: the launch call to the kernel's start
 * @mm: a memory-mapped card: GPU Direct transfers submitted to a queue
 *	(HelloFPGA_GPUDirect_Submit(); bench_gpuwait_mm.c), not a stream
 * @start: @mm: a kernel's start to the card's completion of the transfer
 *	HELLOFPGA_SUBMIT_START_ON_GPU queued behind it
 * @xfer: @mm: @start's ceiling, one synchronous 4 KiB transfer
 * @retakes: @mm: samples taken again (an end came before the spinner
 *	looked)
 */
struct bgpuwait {
	bool run;
	bool real;
	struct bstats gpu;
	struct bstats cpu;
	struct bstats ceiling;
	bool mm;
	struct bstats start;
	struct bstats xfer;
	unsigned int retakes;
};

#define BGW_MM_WAYS	5

/**
 * struct bframes - the frame-rate run with @nbuf buffers.
 * @nbuf: buffers rotated (1: single buffer, fill then consume)
 * @frames: frames produced and consumed
 * @ns: wall time from the first fill to the last consumption
 * @fps: frames per second
 * @dropped: frames whose checksum carried another frame number (stale)
 * @corrupt: frames with the right number and a wrong checksum
 */
struct bframes {
	int nbuf;
	uint64_t frames;
	uint64_t ns;
	double fps;
	uint64_t dropped;
	uint64_t corrupt;
};

/**
 * struct bpin - pin and unpin cost at one size.
 */
struct bpin {
	uint64_t size;
	struct bstats pin;
	struct bstats unpin;
};

/**
 * struct bsoak_sample - one soak sample.
 * @t_ns: end of the sample since the soak began
 * @st: [direction] GPU Direct transfers of the sample
 * @verified: the sample's data check passed
 */
struct bsoak_sample {
	uint64_t t_ns;
	struct bstats st[BD_N];
	bool verified;
};

/**
 * struct bpredict - what one transfer of @size cost in accesses, counted
 * on the emulated card (HelloFPGA_GetCounters()) for the prediction.
 * @size: one of bcost_reference[]'s sizes
 * @counted: [direction] @c holds the counts
 * @c: [direction] per transfer, the mean of a few
 */
struct bpredict {
	uint64_t size;
	bool counted[BD_N];
	struct bcost_counts c[BD_N];
};

/* The GPU as the bench sees it (bench_gpu.c). */
struct bgpu {
	HELLOFPGA_GPU_STATUS status;
	bool present;		/* any GPU (real or emulated) */
	bool real;		/* CUDA */
	int cuda_version;	/* cuDriverGetVersion, 0 without CUDA */
	char driver[96];	/* NVIDIA driver version, "" unknown */
	void *priv;
};

int bgpu_init(struct bgpu *g, char *why, size_t whylen);
void bgpu_fini(struct bgpu *g);
const char *bgpu_error(void);
void *bgpu_host_alloc(struct bgpu *g, size_t size);	/* pinned when real */
void bgpu_host_free(struct bgpu *g, void *p);
int bgpu_to_gpu(struct bgpu *g, void *gpu, const void *host, size_t n,
		bool pageable);
int bgpu_from_gpu(struct bgpu *g, void *host, const void *gpu, size_t n);
/* the frame consumer: a checksum kernel (CUDA) or a CPU thread (emulated) */
int bgpu_consumer_init(struct bgpu *g, int nbuf, size_t frame_size,
		       uint32_t max_frames);
int bgpu_consume_start(struct bgpu *g, int buf, const void *frame,
		       uint32_t k);
int bgpu_consume_wait(struct bgpu *g, int buf);
int bgpu_consume_results(struct bgpu *g, uint64_t *sum, uint32_t *frame_no,
			 uint32_t n);
void bgpu_consumer_fini(struct bgpu *g);
/* the gpuwait section's consumer: a kernel that flags its start */
int bgpu_flag_init(struct bgpu *g);
int bgpu_flag_launch(struct bgpu *g, void *stream, volatile uint32_t *flag,
		     uint32_t value);
void bgpu_flag_fini(struct bgpu *g);
uint64_t bench_checksum(const uint32_t *w, size_t nwords);

/**
 * struct bench - the run.
 */
struct bench {
	/* configuration */
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	int ch;
	uint64_t addr;
	uint64_t gaddr;			/* card address of the GPU paths */
	uint64_t min, max;
	unsigned int fixed_iters;	/* --iters */
	uint64_t budget_ns;		/* per size */
	unsigned int min_iters, max_iters;
	bool quick;
	bool do_sweep, do_frames, do_pin, do_overhead, do_stream, do_gpuwait;
	uint64_t frame_size;
	int max_buffers;
	uint64_t frames_ns;		/* per buffer count */
	uint64_t pin_max;
	uint64_t soak_ns, interval_ns, soak_size;
	int repeats;			/* --repeats: times the sweep runs */
	uint32_t seed;			/* --seed, else from the clock */
	/* the order: round r runs order[r % order_period][0..order_n-1] */
	int order_n;
	int order_period;
	uint8_t order[BENCH_ORDER_ROWS][BP_N];
	/* environment */
	struct bgpu gpu;
	char gpu_why[256];
	char cpu[128];
	char kernel[256];
	char date[40];
	char link_desc[128];
	bool link_on;
	uint32_t link_gen, link_lanes, link_mps;
	uint64_t link_desc_ns;
	double link_gbps;
	/* buffers */
	void *g;			/* GPU buffer, pinned as @hg */
	void *gx;			/* GPU buffer of TransferMode */
	HELLOFPGA_GPU_HANDLE hg;
	uint8_t *hp, *hb;		/* pageable host buffers */
	uint8_t *hpin;			/* pinned host buffer */
	uint8_t *hceil;			/* pinned, the ceiling's alone */
	uint8_t *pattern;		/* reference data */
	/* results */
	bool want[BP_N];		/* --paths (all by default) */
	bool paths[BP_N];
	char path_why[BP_N][128];
	struct bpoint *points;
	int npoints;
	uint64_t first_pin_ns;
	struct bframes *frames;
	int nframes;
	struct bstream *streams;	/* the stream section's points */
	int nstreams;
	struct bgpuwait gpuwait;	/* the gpuwait section */
	struct bpin *pins;
	int npins;
	struct bsoak_sample *soak;
	int nsoak;
	/* the prediction (a link model): bcost_reference[i] and pred[i] */
	bool predicted;
	enum bpath pred_path;		/* the path counted */
	struct bpredict pred[BCOST_NREF];
	bool failed_verify;
	struct cli_progress prog;
};

void bench_order_init(struct bench *bn);
bool bench_link_of(struct bench *bn);
uint64_t bench_link_ns(const struct bench *bn, uint64_t bytes);
bool bench_predict(const struct bench *bn, const struct bcost_counts *c,
		   struct bcost *out);
void bench_stats_from(uint64_t *s, unsigned int n, struct bstats *st);
const struct bpoint *bench_point(const struct bench *bn, uint64_t size);
/* the environment, a line each, every line after @pre ("# ", "- ") */
void bench_print_env(const struct bench *bn, FILE *f, const char *pre);
void bench_print(const struct bench *bn);
void bench_print_soak(const struct bench *bn);
int bench_run_stream(struct bench *bn, bool gpu);
void bench_print_stream(const struct bench *bn);
int bench_run_gpuwait(struct bench *bn);
int bench_run_gpuwait_mm(struct bench *bn);
void bench_print_gpuwait(const struct bench *bn);

/* bench_stats.c: figures of a run; NAN (bench_cell(): "-") when not measured */
double bench_us(uint64_t ns);
const struct bstats *bench_st(const struct bench *bn, uint64_t size,
			      enum bpath p, int d);
double bench_ratio(const struct bench *bn, uint64_t size, enum bpath a,
		   enum bpath b, int d);
double bench_diff_ns(const struct bench *bn, uint64_t size, enum bpath a,
		     enum bpath b, int d);
double bench_gbps(const struct bench *bn, uint64_t size, enum bpath p,
		  int d);
double bench_spread(const struct bench *bn, uint64_t size, enum bpath p,
		    int d, uint64_t *lo_ns, uint64_t *hi_ns);
double bench_pct_range(const struct bench *bn, uint64_t size, int d,
		       double *lo, double *hi);
const struct bframes *bench_frames_n(const struct bench *bn, int n);
const char *bench_cell(char *buf, size_t len, const char *fmt, double v);
double bench_soak_drift(const struct bench *bn, int d);
int bench_close_out(FILE *f, const char *path);

/* the outputs: bench_text.c (bench_print*), bench_json.c, bench_csv.c,
 * bench_md.c, bench_plot.c */
/**
 * struct bench_outputs - the files --json, --csv, --markdown, --plot and
 * --plot-dir asked for (NULL: not asked).
 */
struct bench_outputs {
	const char *json;
	const char *csv;
	const char *md;
	const char *plot;
	const char *plotdir;
};

/* bench_opts.c */
int bench_parse_args(int argc, char **argv, struct bench *bn,
		     struct bench_outputs *o);

int bench_json(const struct bench *bn, const char *path);
int bench_csv(const struct bench *bn, const char *path);
int bench_markdown(const struct bench *bn, const char *path);
int bench_plots(const struct bench *bn, const char *dir, const char *png);

#endif /* HF_BENCH_H */
