// SPDX-License-Identifier: MIT
/*
 * opts.c - the options of "hellofpga bench": usage, parsing (a table of
 * the options, each of a kind that says how its argument is read and
 * checked), and the defaults and budgets they select (docs/benchmarks.md).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "stats.h"

#define BENCH_DEFAULT_MIN	(4ull << 10)
#define BENCH_DEFAULT_MAX	(64ull << 20)
#define BENCH_BUDGET_NS		(5 * NS_PER_S)		/* per size */
#define BENCH_QUICK_BUDGET_NS	(NS_PER_S / 20)
#define BENCH_MIN_ROUNDS	10
#define BENCH_QUICK_MIN_ROUNDS	3
#define BENCH_MAX_ROUNDS	4000
#define BENCH_QUICK_MAX_ROUNDS	200
#define BENCH_MAX_USER_ITERS	100000
#define FRAMES_NS		(3 * NS_PER_S / 2)	/* per buffer count */
#define FRAMES_QUICK_NS		(NS_PER_S / 10)
#define PIN_MAX_DEFAULT		(256ull << 20)
#define PIN_MAX_QUICK		(16ull << 20)
#define SOAK_SAMPLES		72
#define BENCH_MAX_DURATION_S	(31ull * 86400)

static void bench_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] bench [--quick] [--sections LIST] [--min SIZE]\n"
	      "                 [--max SIZE] [--budget SECONDS] [--iters N] [--frame-size SIZE]\n"
	      "                 [--buffers N] [--frames-time SECONDS] [--pin-max SIZE]\n"
	      "                 [--soak DURATION [--interval DURATION] [--soak-size SIZE]]\n"
	      "                 [--repeats N] [--seed N] [--paths LIST] [-c CH] [-a ADDR]\n"
	      "                 [--json FILE] [--csv FILE] [--markdown FILE] [--plot-dir DIR]\n"
	      "                 [--plot FILE.png]\n"
	      "\n"
	      "Measure, side by side in one run, the seed's tables (docs/benchmarks.md):\n"
	      "  sweep     bandwidth and latency (min, median, p99, max) per size and\n"
	      "            direction of GPU Direct, the traditional path (pageable and\n"
	      "            pinned host buffers), TransferMode, CPU mode, and the ceilings\n"
	      "            of the same run (raw pinned cudaMemcpy, host memcpy); speedups\n"
	      "  frames    frame rate at 1 MiB frames, single buffer vs rotation over\n"
	      "            2..8 pinned buffers, a checksum kernel verifying every frame\n"
	      "  pin       pin and unpin cost by size (4 KiB .. 256 MiB)\n"
	      "  overhead  software overhead per transfer (time minus the raw copy)\n"
	      "  stream    an AXI-Stream card's C2H stream into a ring in host and GPU\n"
	      "            memory (4 KiB .. 4 MiB frames, in --min..--max): frames/s,\n"
	      "            GB/s, time between frames, every frame verified\n"
	      "  gpuwait   the card's completion to its consumer kernel's start (min,\n"
	      "            median, p99), a GPU-side wait against a CPU wait and launch,\n"
	      "            beside an unblocked launch; --iters samples each.  An\n"
	      "            AXI-Stream card: a stream buffer (HelloFPGA_Stream_WaitOnGPU);\n"
	      "            a memory-mapped one: a 4 KiB GPU Direct transfer\n"
	      "            (HelloFPGA_GPUDirect_Submit), and a kernel's start to the\n"
	      "            completion of a transfer it starts (START_ON_GPU)\n"
	      "A link model on the emulated card (-d emu,link=gen3x8) adds the model's\n"
	      "prediction beside every figure.  On a hardware card the bench needs a\n"
	      "real GPU (exit status 3 without one) unless HELLOFPGA_GPU=emu, emu-tegra\n"
	      "or none asks for another.\n"
	      "\n"
	      "      --quick         short budgets (seconds in all), pins up to 16 MiB\n"
	      "      --all           every section (the default)\n"
	      "      --sections LIST comma-separated: sweep,frames,pin,overhead; or\n"
	      "                      stream and gpuwait alone (stream: an AXI-Stream\n"
	      "                      card, -d emu,st)\n"
	      "      --min SIZE      smallest transfer (default 4K)\n"
	      "      --max SIZE      largest transfer (default 64M)\n"
	      "      --budget S      seconds of timed rounds per size (default 5;\n"
	      "                      quick 0.05), 10..4000 rounds (quick 3..200)\n"
	      "      --iters N       exactly N rounds per size and repeat instead\n"
	      "      --repeats N     run the sweep N times over, 1..10 (default 3): the\n"
	      "                      figures pool them, their spread says how stable\n"
	      "                      each was; the budget is shared between them\n"
	      "      --seed N        the order of the paths in each round (they rotate\n"
	      "                      through a balanced Latin square; N shuffles it,\n"
	      "                      0..4294967295; default: from the clock, printed)\n"
	      "      --paths LIST    measure only these paths (comma-separated: direct,\n"
	      "                      trad-pg, trad-pin, xmode, cpu; ceiling and memcpy\n"
	      "                      come with the paths measured against them): what\n"
	      "                      the other paths do to caches between them is left out\n"
	      "      --frame-size SIZE  frame size (default 1M)\n"
	      "      --buffers N     rotate up to N buffers, 1..16 (default 8)\n"
	      "      --frames-time S seconds per buffer count (default 1.5; quick 0.1)\n"
	      "      --pin-max SIZE  largest pin (default 256M; quick 16M)\n"
	      "      --soak DURATION keep GPU Direct transfers running (90s, 10m, 12h):\n"
	      "                      samples and the drift; only the soak unless\n"
	      "                      --sections or --all is given too\n"
	      "      --interval D    time per sample (default DURATION/72)\n"
	      "      --soak-size SIZE  bytes per soak transfer (default 4M)\n"
	      "  -c, --channel CH    H2C and C2H channel (default 0)\n"
	      "  -a, --address ADDR  card address of the buffers (default 0)\n"
	      "      --json FILE     write everything as JSON\n"
	      "      --csv FILE      write the measurements as CSV\n"
	      "      --markdown FILE a Markdown summary\n"
	      "      --plot-dir DIR  bandwidth.png/.svg and latency.png/.svg (gnuplot), and\n"
	      "                      their gnuplot scripts bandwidth.gp, latency.gp\n"
	      "      --plot FILE.png the bandwidth plot only, at FILE.png and FILE.svg\n"
	      "  -h, --help          show this help\n", f);
}

/*
 * What the duration options take, for their errors: BUDGET_HINT is that of
 * --budget and --frames-time.
 */
#define BUDGET_HINT	"seconds, or 500ms, 2m; 0 < S <= 3600"
#define SOAK_HINT	"e.g. 90s, 10m, 12h, 1h30m; up to 31 days"
#define INTERVAL_HINT	"e.g. 500ms, 10s, 10m"

static int parse_sections(struct bench *bn, const char *arg)
{
	char buf[128], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	bn->do_sweep = bn->do_frames = bn->do_pin = bn->do_overhead = false;
	bn->do_stream = bn->do_gpuwait = false;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "sweep"))
			bn->do_sweep = true;
		else if (!strcmp(tok, "frames"))
			bn->do_frames = true;
		else if (!strcmp(tok, "pin"))
			bn->do_pin = true;
		else if (!strcmp(tok, "stream"))
			bn->do_stream = true;
		else if (!strcmp(tok, "gpuwait"))
			bn->do_gpuwait = true;
		else if (!strcmp(tok, "overhead"))
			bn->do_overhead = bn->do_sweep = true;
		else if (!strcmp(tok, "all"))
			bn->do_sweep = bn->do_frames = bn->do_pin =
				bn->do_overhead = true;
		else
			return -1;
	}
	return 0;
}

/*
 * --paths: the paths to measure, by their names (bpath_name[]) or the
 * columns' labels; the ceiling comes with any GPU path and memcpy with CPU
 * mode (their figures are against them).  Return: 0, or -1 for a bad list.
 */
static int parse_paths(struct bench *bn, const char *arg)
{
	static const char *const label[BP_N] = {
		"ceiling", "direct", "trad-pg", "trad-pin", "xmode", "cpu",
		"memcpy",
	};
	char buf[128], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	memset(bn->want, 0, sizeof(bn->want));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int p;

		for (p = 0; p < BP_N; p++)
			if (!strcmp(tok, bpath_name[p]) || !strcmp(tok, label[p]))
				break;
		if (p == BP_N)
			return -1;
		bn->want[p] = true;
	}
	for (int p = BP_DIRECT; p <= BP_XMODE; p++)
		bn->want[BP_CEIL] |= bn->want[p];
	bn->want[BP_MEMCPY] |= bn->want[BP_CPU];
	return 0;
}

/*
 * A duration option of 0 < S <= @max_s seconds; @hint says what to give.
 * Return: 0 or -1 (reported).
 */
static int opt_duration(const char *opt, const char *arg, uint64_t max_s,
			const char *hint, uint64_t *ns)
{
	if (!cli_parse_duration(arg, max_s, ns) && *ns)
		return 0;
	cli_usage_err("bench", "%s: bad duration '%s' (%s)", opt, arg, hint);
	return -1;
}

/* A buffer size option: 4 KiB .. 1 GiB in 4 KiB steps.  Return: 0 or -1. */
static int opt_pages(const char *opt, const char *arg, uint64_t *size)
{
	if (cli_opt_size("bench", opt, arg, size))
		return -1;
	if (*size < 4096 || *size % 4096 || *size > (1ull << 30)) {
		cli_usage_err("bench", "%s: 4 KiB .. 1 GiB in 4 KiB steps",
			      opt);
		return -1;
	}
	return 0;
}

/* --pin-max: 4 KiB .. 4 GiB.  Return: 0 or -1 (reported). */
static int opt_pin_max(const char *arg, uint64_t *size)
{
	if (cli_opt_size("bench", "--pin-max", arg, size))
		return -1;
	if (*size < 4096 || *size > (4ull << 30)) {
		cli_usage_err("bench", "--pin-max: 4 KiB .. 4 GiB");
		return -1;
	}
	return 0;
}

/* How an option's argument is read and checked, and where it goes. */
enum bopt_kind {
	K_SIZE,		/* a size or address (uint64_t) */
	K_PAGES,	/* a buffer size: 4 KiB .. 1 GiB in 4 KiB steps */
	K_PIN_MAX,	/* a size, 4 KiB .. 4 GiB */
	K_COUNT,	/* a count in @lo..@hi (int) */
	K_DURATION,	/* 0 < S <= @hi seconds (uint64_t ns); @hint */
	K_FILE,		/* an output (struct bench_outputs) */
	K_FLAG,		/* bool */
	K_SECTIONS,	/* --sections, --all */
	K_PATHS,	/* --paths */
	K_SEED,		/* uint32_t */
	K_CHANNEL,	/* -c */
	K_HELP,
};

/**
 * struct bopt - an option of the bench.
 * @name: its long name
 * @short_name: its one-letter name, or 0; errors name it by this one
 * @kind: how its argument is read (K_*)
 * @off: where it goes: offsetof in struct bench (K_FILE: in struct
 *	bench_outputs)
 * @list: K_SECTIONS: the sections it selects (NULL: its argument's); an
 *	option with a list takes no argument
 * @lo, @hi: K_COUNT: the range; K_DURATION: @hi the longest, in seconds
 * @hint: K_DURATION: what to give
 */
struct bopt {
	const char *name;
	char short_name;
	enum bopt_kind kind;
	size_t off;
	const char *list;
	uint64_t lo, hi;
	const char *hint;
};

#define B(f)	offsetof(struct bench, f)
#define OUT(f)	offsetof(struct bench_outputs, f)

static const struct bopt bopts[] = {
	{ .name = "min", .kind = K_SIZE, .off = B(min) },
	{ .name = "max", .kind = K_SIZE, .off = B(max) },
	{ .name = "iters", .kind = K_COUNT, .off = B(fixed_iters),
	  .lo = 1, .hi = BENCH_MAX_USER_ITERS },
	{ .name = "budget", .kind = K_DURATION, .off = B(budget_ns),
	  .hi = 3600, .hint = BUDGET_HINT },
	{ .name = "json", .kind = K_FILE, .off = OUT(json) },
	{ .name = "csv", .kind = K_FILE, .off = OUT(csv) },
	{ .name = "markdown", .kind = K_FILE, .off = OUT(md) },
	{ .name = "plot", .kind = K_FILE, .off = OUT(plot) },
	{ .name = "plot-dir", .kind = K_FILE, .off = OUT(plotdir) },
	{ .name = "quick", .kind = K_FLAG, .off = B(quick) },
	{ .name = "all", .kind = K_SECTIONS, .list = "all" },
	{ .name = "sections", .kind = K_SECTIONS },
	{ .name = "frame-size", .kind = K_PAGES, .off = B(frame_size) },
	{ .name = "buffers", .kind = K_COUNT, .off = B(max_buffers),
	  .lo = 1, .hi = 16 },
	{ .name = "frames-time", .kind = K_DURATION, .off = B(frames_ns),
	  .hi = 3600, .hint = BUDGET_HINT },
	{ .name = "pin-max", .kind = K_PIN_MAX, .off = B(pin_max) },
	{ .name = "soak", .kind = K_DURATION, .off = B(soak_ns),
	  .hi = BENCH_MAX_DURATION_S, .hint = SOAK_HINT },
	{ .name = "interval", .kind = K_DURATION, .off = B(interval_ns),
	  .hi = BENCH_MAX_DURATION_S, .hint = INTERVAL_HINT },
	{ .name = "soak-size", .kind = K_PAGES, .off = B(soak_size) },
	{ .name = "seed", .kind = K_SEED, .off = B(seed) },
	{ .name = "paths", .kind = K_PATHS },
	{ .name = "repeats", .kind = K_COUNT, .off = B(repeats),
	  .lo = 1, .hi = BENCH_MAX_REPEATS },
	{ .name = "channel", .short_name = 'c', .kind = K_CHANNEL,
	  .off = B(ch) },
	{ .name = "address", .short_name = 'a', .kind = K_SIZE,
	  .off = B(addr) },
	{ .name = "help", .short_name = 'h', .kind = K_HELP },
};

#define BOPTS	(sizeof(bopts) / sizeof(bopts[0]))

/* What parsing keeps besides the run's fields. */
struct bparse {
	struct bench *bn;
	struct bench_outputs *o;
	bool sections_given;
	bool seed_given;
};

/*
 * bopt_set() - option @op with argument @arg into the run.
 * Return: 0, 1 after --help, -1 after a usage error (reported).
 */
static int bopt_set(struct bparse *ps, const struct bopt *op, const char *arg)
{
	void *at = (char *)ps->bn + op->off;
	char opt[32];
	int n;

	if (op->short_name)
		snprintf(opt, sizeof(opt), "-%c", op->short_name);
	else
		snprintf(opt, sizeof(opt), "--%s", op->name);
	switch (op->kind) {
	case K_SIZE:
		return cli_opt_size("bench", opt, arg, at) ? -1 : 0;
	case K_PAGES:
		return opt_pages(opt, arg, at);
	case K_PIN_MAX:
		return opt_pin_max(arg, at);
	case K_COUNT:
		if (!cli_parse_int(arg, (int)op->lo, (int)op->hi, &n)) {
			*(int *)at = n;	/* an unsigned field too (--iters) */
			return 0;
		}
		cli_usage_err("bench", "%s: bad count '%s' (%d..%d)", opt, arg,
			      (int)op->lo, (int)op->hi);
		return -1;
	case K_DURATION:
		return opt_duration(opt, arg, op->hi, op->hint, at);
	case K_FILE:
		*(const char **)((char *)ps->o + op->off) = arg;
		return 0;
	case K_FLAG:
		*(bool *)at = true;
		return 0;
	case K_SECTIONS:
		ps->sections_given = true;
		if (!parse_sections(ps->bn, op->list ? op->list : arg))
			return 0;
		cli_usage_err("bench", "--sections: '%s': use a comma-separated list of sweep, frames, pin, overhead, all, or stream and gpuwait alone",
			      arg);
		return -1;
	case K_PATHS:
		if (!parse_paths(ps->bn, arg))
			return 0;
		cli_usage_err("bench", "--paths: '%s': use a comma-separated list of ceiling, direct, trad-pg, trad-pin, xmode, cpu, memcpy",
			      arg);
		return -1;
	case K_SEED:
		ps->seed_given = true;
		if (!cli_parse_u32(arg, at))
			return 0;
		cli_usage_err("bench", "--seed: bad number '%s' (0..4294967295)",
			      arg);
		return -1;
	case K_CHANNEL:
		return cli_opt_channel("bench", arg, at) ? -1 : 0;
	default:
		bench_usage(stdout);
		return 1;
	}
}

/*
 * bench_settle() - after the options: check what they say together, and
 * the defaults and budgets of what was not given.
 * Return: 0, or -1 after a usage error.
 */
static int bench_settle(struct bench *bn, bool sections_given,
			bool seed_given)
{
	if (!bn->min || bn->min > bn->max || bn->max > (1ull << 30)) {
		cli_usage_err("bench", "need 0 < --min <= --max <= 1G (got %" PRIu64
			      " and %" PRIu64 ")", bn->min, bn->max);
		return -1;
	}
	if (bn->interval_ns && !bn->soak_ns) {
		cli_usage_err("bench", "--interval needs --soak");
		return -1;
	}
	if ((bn->do_stream || bn->do_gpuwait) &&
	    (bn->do_sweep || bn->do_frames || bn->do_pin || bn->soak_ns)) {
		cli_usage_err("bench", "--sections stream and gpuwait run alone (stream needs an AXI-Stream card, -d emu,st; gpuwait runs on either kind)");
		return -1;
	}
	if (bn->soak_ns && !sections_given)
		bn->do_sweep = bn->do_frames = bn->do_pin = bn->do_overhead = false;
	if (bn->soak_ns && !bn->interval_ns)
		bn->interval_ns = bn->soak_ns / SOAK_SAMPLES;
	if (bn->soak_ns && bn->interval_ns < NS_PER_S / 100)
		bn->interval_ns = NS_PER_S / 100;
	if (bn->interval_ns > bn->soak_ns)
		bn->interval_ns = bn->soak_ns;
	if (!bn->budget_ns)
		bn->budget_ns = bn->quick ? BENCH_QUICK_BUDGET_NS : BENCH_BUDGET_NS;
	bn->min_iters = bn->quick ? BENCH_QUICK_MIN_ROUNDS : BENCH_MIN_ROUNDS;
	bn->max_iters = bn->quick ? BENCH_QUICK_MAX_ROUNDS : BENCH_MAX_ROUNDS;
	if (!bn->frames_ns)
		bn->frames_ns = bn->quick ? FRAMES_QUICK_NS : FRAMES_NS;
	if (!bn->pin_max)
		bn->pin_max = bn->quick ? PIN_MAX_QUICK : PIN_MAX_DEFAULT;
	if (!seed_given)
		bn->seed = (uint32_t)(cli_now_ns() ^ cli_now_ns() >> 32 ^
				      (uint64_t)getpid() << 16);
	for (uint64_t s = bn->min; s <= bn->max; s *= 2)
		bn->npoints++;
	if (!bn->do_sweep)
		bn->npoints = 0;
	return 0;
}

/**
 * bench_parse_args() - the options of "hellofpga bench" into @bn (zeroed
 * first, then its defaults) and @o.
 * Return: 0 to run, 1 after --help, -1 after a usage error (reported).
 */
int bench_parse_args(int argc, char **argv, struct bench *bn,
		     struct bench_outputs *o)
{
	struct bparse ps = { bn, o, false, false };
	struct option lopts[BOPTS + 1];
	const struct bopt *op;
	int c, ret;

	memset(bn, 0, sizeof(*bn));
	memset(o, 0, sizeof(*o));
	memset(lopts, 0, sizeof(lopts));
	for (size_t i = 0; i < BOPTS; i++) {
		lopts[i].name = bopts[i].name;
		lopts[i].has_arg = bopts[i].kind == K_FLAG ||
				   bopts[i].kind == K_HELP ||
				   bopts[i].list ? no_argument :
				   required_argument;
		lopts[i].val = 256 + (int)i;
	}
	bn->min = BENCH_DEFAULT_MIN;
	bn->max = BENCH_DEFAULT_MAX;
	bn->frame_size = 1ull << 20;
	bn->max_buffers = 8;
	bn->soak_size = 4ull << 20;
	bn->repeats = 3;
	bn->do_sweep = bn->do_frames = bn->do_pin = bn->do_overhead = true;
	for (int p = 0; p < BP_N; p++)
		bn->want[p] = true;
	while ((c = getopt_long(argc, argv, "c:a:h", lopts, NULL)) != -1) {
		op = NULL;
		for (size_t i = 0; i < BOPTS && !op; i++)
			if (c == 256 + (int)i || c == bopts[i].short_name)
				op = &bopts[i];
		if (!op) {
			bench_usage(stderr);
			return -1;
		}
		ret = bopt_set(&ps, op, optarg);
		if (ret)
			return ret;
	}
	if (cli_no_operand("bench", argc, argv))
		return -1;
	return bench_settle(bn, ps.sections_given, ps.seed_given);
}
