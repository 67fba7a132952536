/* SPDX-License-Identifier: MIT */
/*
 * bench.h - hellofpga-bench, the program of "hellofpga bench": the run,
 * its configuration and its results, which every section fills in
 * (sections.h) and the outputs read (out.h).  docs/benchmarks.md
 * describes what is measured.
 */
#ifndef HF_BENCH_H
#define HF_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "gpu.h"
#include "bench_predict.h"

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

/* stats.c */
extern const char *const bpath_name[BP_N];	/* "direct" ... (JSON, --paths) */
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
 *	(HelloFPGA_GPUDirect_Submit(); gpuwait_mm.c), not a stream
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

#endif /* HF_BENCH_H */
