// SPDX-License-Identifier: MIT
/*
 * cmd_bench.c - "hellofpga bench": the CPU path (host buffer <-> card
 * memory through HelloFPGA_DMA_MM_WriteH2C/ReadC2H) measured per transfer
 * size, beside the ceiling measured in the same run: memcpy() of the same
 * size between two host buffers, timed the same way.
 *
 * Every transfer is timed on its own with CLOCK_MONOTONIC; a series of one
 * size and kind gives min, median, p99 and max, and the bandwidth from
 * the median.  A series runs BENCH_BYTES_PER_SERIES / size transfers
 * (BENCH_MIN_ITERS .. BENCH_MAX_ITERS) and stops early after
 * BENCH_SERIES_NS, so a whole run stays within seconds.  --iters N makes
 * every series exactly N transfers.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define BENCH_DEFAULT_MIN	(4ull << 10)
#define BENCH_DEFAULT_MAX	(64ull << 20)
#define BENCH_BYTES_PER_SERIES	(256ull << 20)
#define BENCH_MIN_ITERS		10
#define BENCH_MAX_ITERS		2000
#define BENCH_SERIES_NS		300000000ull	/* 0.3 s */
#define BENCH_SMALL_LEN		4		/* the overhead probe */
#define BENCH_MAX_USER_ITERS	1000000

enum bench_kind { KIND_MEMCPY, KIND_H2C, KIND_C2H };

static const char *const kind_name[] = { "memcpy", "h2c", "c2h" };

/**
 * struct bench_stats - one series.
 * @iters: transfers timed
 * @min_ns, @median_ns, @p99_ns, @max_ns: time per transfer
 */
struct bench_stats {
	unsigned int iters;
	uint64_t min_ns;
	uint64_t median_ns;
	uint64_t p99_ns;
	uint64_t max_ns;
};

/**
 * struct bench_point - one transfer size.
 * @size: bytes per transfer
 * @st: the series of each enum bench_kind
 */
struct bench_point {
	uint64_t size;
	struct bench_stats st[3];
};

/**
 * struct bench - the run.
 * @h: the card
 * @info: what it is
 * @ch: the H2C and C2H channel used
 * @addr: card address of the buffer
 * @iters: 0, or the fixed number of transfers per series (--iters)
 * @a: host source buffer
 * @b: host destination buffer
 * @samples: one time per transfer of the running series
 * @small: the @BENCH_SMALL_LEN probe: [0] H2C, [1] C2H
 * @points: the measured sizes
 * @npoints: how many
 * @cpu, @kernel, @date: the environment
 * @prog: progress line
 */
struct bench {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	int ch;
	uint64_t addr;
	unsigned int iters;
	uint8_t *a;
	uint8_t *b;
	uint64_t *samples;
	struct bench_stats small[2];
	struct bench_point *points;
	int npoints;
	char cpu[128];
	char kernel[3 * sizeof(((struct utsname *)0)->release) + 8];
	char date[40];
	struct cli_progress prog;
};

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Sort @s and fill @st: median of an even count is the mean of the two
 * middle samples; p99 is the nearest-rank 99th percentile. */
static void bench_stats_from(uint64_t *s, unsigned int n,
			     struct bench_stats *st)
{
	unsigned int rank;

	qsort(s, n, sizeof(*s), cmp_u64);
	st->iters = n;
	st->min_ns = s[0];
	st->max_ns = s[n - 1];
	st->median_ns = n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	rank = (unsigned int)((99ull * n + 99) / 100);	/* ceil(0.99 n) */
	st->p99_ns = s[(rank ? rank : 1) - 1];
}

/* Keep the compiler from dropping or merging memcpy()s of @p. */
static inline void clobber(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/**
 * bench_once() - one transfer of @len bytes of kind @kind, timed.
 * @ns: receives its time
 * Return: 0, or -1 after reporting a failed transfer.
 */
static int bench_once(struct bench *bn, enum bench_kind kind, size_t len,
		      uint64_t *ns)
{
	size_t got = len;
	uint64_t t0;
	int ret = 0;

	t0 = cli_now_ns();
	switch (kind) {
	case KIND_MEMCPY:
		memcpy(bn->b, bn->a, len);
		clobber(bn->b);
		break;
	case KIND_H2C:
		ret = HelloFPGA_DMA_MM_WriteH2C(bn->h, bn->ch, bn->a, bn->addr,
						len, &got);
		break;
	case KIND_C2H:
		ret = HelloFPGA_DMA_MM_ReadC2H(bn->h, bn->ch, bn->b, bn->addr,
					       len, &got);
		break;
	}
	*ns = cli_now_ns() - t0;
	if (ret) {
		cli_lib_err(bn->h, ret, "%s of %zu bytes at card 0x%" PRIx64
			    " on channel %d", kind == KIND_H2C ?
			    "H2C write" : "C2H read", len, bn->addr, bn->ch);
		return -1;
	}
	if (got != len) {
		cli_err("%s transfer at card 0x%" PRIx64 " moved %zu of %zu bytes",
			kind_name[kind], bn->addr, got, len);
		return -1;
	}
	return 0;
}

/**
 * bench_series() - time transfers of @len bytes of kind @kind, after one
 * untimed warm-up transfer.
 * Return: 0 or -1 (reported).
 */
static int bench_series(struct bench *bn, enum bench_kind kind, size_t len,
			struct bench_stats *st)
{
	unsigned int n, i;
	uint64_t start, ns;

	if (bn->iters) {
		n = bn->iters;
	} else {
		uint64_t want = BENCH_BYTES_PER_SERIES / (len ? len : 1);

		if (want < BENCH_MIN_ITERS)
			want = BENCH_MIN_ITERS;
		if (want > BENCH_MAX_ITERS)
			want = BENCH_MAX_ITERS;
		n = (unsigned int)want;
	}
	if (bench_once(bn, kind, len, &ns))
		return -1;
	start = cli_now_ns();
	for (i = 0; i < n; i++) {
		if (bench_once(bn, kind, len, &bn->samples[i]))
			return -1;
		if (!bn->iters && i + 1 >= BENCH_MIN_ITERS &&
		    cli_now_ns() - start > BENCH_SERIES_NS) {
			i++;
			break;
		}
	}
	bench_stats_from(bn->samples, i, st);
	cli_progress_add(&bn->prog, 1);
	return 0;
}

/* The "model name" line of /proc/cpuinfo (or "Hardware", or "unknown"). */
static void read_cpu_model(char *buf, size_t len)
{
	char line[256];
	FILE *f;

	snprintf(buf, len, "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		char *v;

		if (!colon || (strncmp(line, "model name", 10) &&
			       strncmp(line, "Hardware", 8)))
			continue;
		v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		if (!strncmp(line, "model name", 10))
			break;
	}
	fclose(f);
}

static void bench_environment(struct bench *bn)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	read_cpu_model(bn->cpu, sizeof(bn->cpu));
	if (!uname(&u))
		snprintf(bn->kernel, sizeof(bn->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	else
		snprintf(bn->kernel, sizeof(bn->kernel), "unknown");
	gmtime_r(&now, &tm);
	strftime(bn->date, sizeof(bn->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* median(transfer) - median(memcpy), signed. */
static double overhead_ns(const struct bench_point *p, enum bench_kind k)
{
	return (double)p->st[k].median_ns - (double)p->st[KIND_MEMCPY].median_ns;
}

static void bench_print(const struct bench *bn)
{
	char sz[32];
	int i, k;

	printf("# hellofpga bench: CPU path, host buffer <-> card memory through DMA_MM calls\n");
	printf("# date:     %s\n", bn->date);
	printf("# cpu:      %s\n", bn->cpu);
	printf("# kernel:   %s\n", bn->kernel);
	printf("# library:  %s\n", HelloFPGA_Version());
	printf("# card:     %s, %s, irq %s, channel %d, card address 0x%" PRIx64 "\n",
	       bn->info.name, bn->info.backend_name,
	       cli_irq_name(bn->info.irq_mode), bn->ch, bn->addr);
	printf("# overhead: median %d-byte transfer: H2C %.2f us, C2H %.2f us\n",
	       BENCH_SMALL_LEN, us(bn->small[0].median_ns),
	       us(bn->small[1].median_ns));
	printf("# times in microseconds per transfer; GB/s = 10^9 bytes/s from the median;\n"
	       "# memcpy = the same size between two host buffers, timed the same way;\n"
	       "# overhead = median(transfer) - median(memcpy)\n");
	printf("%9s %4s %6s %9s %9s %9s %9s %8s | %9s %8s | %9s\n", "size",
	       "dir", "iters", "min", "median", "p99", "max", "GB/s",
	       "memcpy", "GB/s", "overhead");
	for (i = 0; i < bn->npoints; i++) {
		const struct bench_point *p = &bn->points[i];
		const struct bench_stats *m = &p->st[KIND_MEMCPY];

		for (k = KIND_H2C; k <= KIND_C2H; k++) {
			const struct bench_stats *s = &p->st[k];

			printf("%9s %4s %6u %9.2f %9.2f %9.2f %9.2f %8.3f | %9.2f %8.3f | %9.2f\n",
			       cli_fmt_size(p->size, sz, sizeof(sz)),
			       k == KIND_H2C ? "H2C" : "C2H", s->iters,
			       us(s->min_ns), us(s->median_ns), us(s->p99_ns),
			       us(s->max_ns), cli_gbps(p->size, s->median_ns),
			       us(m->median_ns), cli_gbps(p->size, m->median_ns),
			       overhead_ns(p, k) / 1e3);
		}
	}
}

static void json_stats(FILE *f, const struct bench_stats *s, uint64_t size)
{
	fprintf(f, "{\"iterations\": %u, \"min_ns\": %" PRIu64
		", \"median_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
		", \"max_ns\": %" PRIu64 ", \"gbps\": %.4f}", s->iters,
		s->min_ns, s->median_ns, s->p99_ns, s->max_ns,
		cli_gbps(size, s->median_ns));
}

/* Return: 0, or -1 after reporting. */
static int close_out(FILE *f, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad) {
		cli_err("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static int bench_json(const struct bench *bn, const char *path)
{
	FILE *f = fopen(path, "w");
	int i, k;

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("{\n  \"tool\": \"hellofpga bench\",\n  \"environment\": {\"date\": ", f);
	cli_json_str(f, bn->date);
	fputs(", \"cpu\": ", f);
	cli_json_str(f, bn->cpu);
	fputs(", \"kernel\": ", f);
	cli_json_str(f, bn->kernel);
	fputs(", \"library\": ", f);
	cli_json_str(f, HelloFPGA_Version());
	fputs(", \"card\": ", f);
	cli_json_str(f, bn->info.name);
	fputs(", \"backend\": ", f);
	cli_json_str(f, bn->info.backend_name);
	fputs(", \"irq\": ", f);
	cli_json_str(f, cli_irq_name(bn->info.irq_mode));
	fprintf(f, ", \"channel\": %d, \"card_address\": %" PRIu64 "},\n",
		bn->ch, bn->addr);
	fprintf(f, "  \"overhead\": {\"size\": %d, \"h2c\": ", BENCH_SMALL_LEN);
	json_stats(f, &bn->small[0], BENCH_SMALL_LEN);
	fputs(", \"c2h\": ", f);
	json_stats(f, &bn->small[1], BENCH_SMALL_LEN);
	fputs("},\n  \"results\": [", f);
	for (i = 0; i < bn->npoints; i++) {
		const struct bench_point *p = &bn->points[i];

		for (k = KIND_H2C; k <= KIND_C2H; k++) {
			fprintf(f, "%s\n    {\"size\": %" PRIu64
				", \"direction\": \"%s\", \"transfer\": ",
				i || k != KIND_H2C ? "," : "", p->size,
				kind_name[k]);
			json_stats(f, &p->st[k], p->size);
			fputs(", \"memcpy\": ", f);
			json_stats(f, &p->st[KIND_MEMCPY], p->size);
			fprintf(f, ", \"overhead_ns\": %.0f}", overhead_ns(p, k));
		}
	}
	fputs("\n  ]\n}\n", f);
	return close_out(f, path);
}

static int bench_csv(const struct bench *bn, const char *path)
{
	FILE *f = fopen(path, "w");
	int i, k;

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("size,direction,iterations,min_ns,median_ns,p99_ns,max_ns,gbps,"
	      "memcpy_iterations,memcpy_min_ns,memcpy_median_ns,memcpy_p99_ns,"
	      "memcpy_max_ns,memcpy_gbps,overhead_ns\n", f);
	for (i = 0; i < bn->npoints; i++) {
		const struct bench_point *p = &bn->points[i];
		const struct bench_stats *m = &p->st[KIND_MEMCPY];

		for (k = KIND_H2C; k <= KIND_C2H; k++) {
			const struct bench_stats *s = &p->st[k];

			fprintf(f, "%" PRIu64 ",%s,%u,%" PRIu64 ",%" PRIu64 ",%"
				PRIu64 ",%" PRIu64 ",%.4f,%u,%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%.4f,%.0f\n", p->size,
				kind_name[k], s->iters, s->min_ns, s->median_ns,
				s->p99_ns, s->max_ns,
				cli_gbps(p->size, s->median_ns), m->iters,
				m->min_ns, m->median_ns, m->p99_ns, m->max_ns,
				cli_gbps(p->size, m->median_ns),
				overhead_ns(p, k));
		}
	}
	return close_out(f, path);
}

/* Is an executable @name on $PATH? */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".",
			 name);
		if (!access(buf, X_OK))
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/* A gnuplot single-quoted string: ' is written ''. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/**
 * bench_plot() - bandwidth vs size, with the memcpy ceiling, as @png and
 * as an SVG next to it (@png with .svg for .png), drawn by gnuplot.
 * Return: 0 (also when gnuplot is missing: said on stderr), or -1.
 */
static int bench_plot(const struct bench *bn, const char *png)
{
	size_t n = strlen(png);
	char *svg, title[256], sz[32];
	int i, status;
	FILE *gp;

	if (!on_path("gnuplot")) {
		cli_err("bench: --plot: gnuplot is not on PATH, so no plot was written (install gnuplot, e.g. apt-get install gnuplot-nox)");
		return 0;
	}
	svg = malloc(n + 5);
	if (!svg) {
		cli_err("out of memory");
		return -1;
	}
	if (n > 4 && !strcmp(png + n - 4, ".png"))
		snprintf(svg, n + 5, "%.*s.svg", (int)(n - 4), png);
	else
		snprintf(svg, n + 5, "%s.svg", png);

	fflush(stdout);
	fflush(stderr);
	gp = popen("gnuplot", "w");
	if (!gp) {
		cli_err("cannot run gnuplot: %s", strerror(errno));
		free(svg);
		return -1;
	}
	snprintf(title, sizeof(title), "hellofpga CPU path: %s (%s), %s",
		 bn->info.name, bn->info.backend_name, bn->date);
	fputs("$data << EOD\n", gp);
	for (i = 0; i < bn->npoints; i++) {
		const struct bench_point *p = &bn->points[i];

		fprintf(gp, "%" PRIu64 " %.4f %.4f %.4f \"%s\"\n", p->size,
			cli_gbps(p->size, p->st[KIND_H2C].median_ns),
			cli_gbps(p->size, p->st[KIND_C2H].median_ns),
			cli_gbps(p->size, p->st[KIND_MEMCPY].median_ns),
			cli_fmt_size(p->size, sz, sizeof(sz)));
	}
	fputs("EOD\n", gp);
	fprintf(gp, "set xrange [%g:%g]\n", (double)bn->points[0].size / 1.4,
		(double)bn->points[bn->npoints - 1].size * 1.4);
	fputs("set title ", gp);
	gp_str(gp, title);
	fputs("\nset xlabel 'transfer size (bytes)'\n"
	      "set ylabel 'bandwidth from the median (GB/s, 10^9 B/s)'\n"
	      "set logscale x 2\n"
	      "set logscale y 10\n"
	      "set grid\n"
	      "set key bottom right box opaque\n"
	      "set xtics rotate by -45\n"
	      "set style line 1 lw 2 pt 7 lc rgb '#1f77b4'\n"
	      "set style line 2 lw 2 pt 5 lc rgb '#d62728'\n"
	      "set style line 3 lw 2 dt 2 pt 0 lc rgb '#555555'\n"
	      "set terminal pngcairo size 1000,640 noenhanced\n"
	      "set output ", gp);
	gp_str(gp, png);
	fputs("\nplot $data using 1:2:xtic(5) with linespoints ls 1 title 'H2C (write)', \\\n"
	      "     $data using 1:3 with linespoints ls 2 title 'C2H (read)', \\\n"
	      "     $data using 1:4 with lines ls 3 title 'memcpy ceiling (host to host)'\n"
	      "set terminal svg size 1000,640 dynamic noenhanced\n"
	      "set output ", gp);
	gp_str(gp, svg);
	fputs("\nreplot\nset output\n", gp);
	status = pclose(gp);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		cli_err("gnuplot failed to write '%s' and '%s' (status %d)", png,
			svg, status);
		free(svg);
		return -1;
	}
	if (access(png, R_OK) || access(svg, R_OK)) {
		cli_err("gnuplot did not write '%s' and '%s'", png, svg);
		free(svg);
		return -1;
	}
	printf("plot: %s, %s\n", png, svg);
	free(svg);
	return 0;
}

static void bench_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] bench [--min SIZE] [--max SIZE] [--iters N]\n"
	      "                 [-c CH] [-a ADDR] [--json FILE] [--csv FILE] [--plot FILE.png]\n"
	      "\n"
	      "Measure the CPU path: for every size from --min to --max (doubling)\n"
	      "and both directions, the time of each DMA_MM transfer (min, median,\n"
	      "p99, max) and the bandwidth from the median, beside the ceiling of\n"
	      "the same run: memcpy() of the same size between two host buffers,\n"
	      "timed the same way.  Also the software overhead: the median time of\n"
	      "a 4-byte transfer, and median(transfer) - median(memcpy) per size.\n"
	      "\n"
	      "      --min SIZE     smallest transfer (default 4K)\n"
	      "      --max SIZE     largest transfer (default 64M)\n"
	      "      --iters N      transfers per series (default: 256 MiB / size,\n"
	      "                     10 .. 2000, each series stopping after 0.3 s)\n"
	      "  -c, --channel CH   H2C and C2H channel (default 0)\n"
	      "  -a, --address ADDR card address of the buffer (default 0)\n"
	      "      --json FILE    write the results as JSON\n"
	      "      --csv FILE     write the results as CSV\n"
	      "      --plot FILE    write a PNG plot of bandwidth vs size (and an SVG\n"
	      "                     next to it) with gnuplot, when gnuplot is on PATH\n"
	      "  -h, --help         show this help\n", f);
}

enum { OPT_MIN = 256, OPT_MAX, OPT_ITERS, OPT_JSON, OPT_CSV, OPT_PLOT };

/**
 * cmd_bench() - "hellofpga bench": the 4-byte overhead probe, then for
 * each size a memcpy, an H2C and a C2H series; then the report and the
 * --json, --csv and --plot outputs.
 * @argc: argument count, argv[0] being "bench"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "min", required_argument, NULL, OPT_MIN },
		{ "max", required_argument, NULL, OPT_MAX },
		{ "iters", required_argument, NULL, OPT_ITERS },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "channel", required_argument, NULL, 'c' },
		{ "address", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json = NULL, *csv = NULL, *plot = NULL;
	uint64_t min = BENCH_DEFAULT_MIN, max = BENCH_DEFAULT_MAX, s;
	unsigned int max_iters;
	struct bench bn = { 0 };
	int c, i, iters, status = CLI_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, "c:a:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_MIN:
			if (cli_opt_size("bench", "--min", optarg, &min))
				return CLI_EXIT_USAGE;
			break;
		case OPT_MAX:
			if (cli_opt_size("bench", "--max", optarg, &max))
				return CLI_EXIT_USAGE;
			break;
		case OPT_ITERS:
			if (cli_parse_int(optarg, 1, BENCH_MAX_USER_ITERS, &iters)) {
				cli_usage_err("bench", "--iters: bad count '%s' (1..%d)",
					      optarg, BENCH_MAX_USER_ITERS);
				return CLI_EXIT_USAGE;
			}
			bn.iters = (unsigned int)iters;
			break;
		case OPT_JSON:
			json = optarg;
			break;
		case OPT_CSV:
			csv = optarg;
			break;
		case OPT_PLOT:
			plot = optarg;
			break;
		case 'c':
			if (cli_opt_channel("bench", optarg, &bn.ch))
				return CLI_EXIT_USAGE;
			break;
		case 'a':
			if (cli_opt_size("bench", "-a", optarg, &bn.addr))
				return CLI_EXIT_USAGE;
			break;
		case 'h':
			bench_usage(stdout);
			return CLI_EXIT_OK;
		default:
			bench_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_usage_err("bench", "unexpected argument '%s'", argv[optind]);
		return CLI_EXIT_USAGE;
	}
	if (!min || min > max || max > SIZE_MAX / 2) {
		cli_usage_err("bench", "need 0 < --min <= --max (got %" PRIu64
			      " and %" PRIu64 ")", min, max);
		return CLI_EXIT_USAGE;
	}
	for (s = min; s <= max && s <= UINT64_MAX / 2; s *= 2)
		bn.npoints++;

	bn.points = calloc((size_t)bn.npoints, sizeof(*bn.points));
	max_iters = bn.iters ? bn.iters : BENCH_MAX_ITERS;
	bn.samples = calloc(max_iters, sizeof(*bn.samples));
	if (!bn.points || !bn.samples) {
		cli_err("out of memory");
		goto out;
	}
	if (cli_open(&bn.h))
		goto out;
	if (cli_get_info(bn.h, &bn.info) ||
	    cli_check_channel(&bn.info, bn.ch, true) ||
	    cli_check_channel(&bn.info, bn.ch, false) ||
	    cli_check_range(&bn.info, bn.addr, max))
		goto out;
	bn.a = cli_alloc((size_t)max);
	bn.b = bn.a ? cli_alloc((size_t)max) : NULL;
	if (!bn.b)
		goto out;
	for (s = 0; s < max; s++)
		bn.a[s] = (uint8_t)(s * 131 + (s >> 12));
	bench_environment(&bn);

	cli_progress_start(&bn.prog, 2 + 3 * (uint64_t)bn.npoints);
	cli_progress_label(&bn.prog, "bench: %d-byte transfers",
			   BENCH_SMALL_LEN);
	if (bench_series(&bn, KIND_H2C, BENCH_SMALL_LEN, &bn.small[0]) ||
	    bench_series(&bn, KIND_C2H, BENCH_SMALL_LEN, &bn.small[1]))
		goto out_prog;
	for (i = 0, s = min; i < bn.npoints; i++, s *= 2) {
		struct bench_point *p = &bn.points[i];
		char sz[32];

		p->size = s;
		cli_progress_label(&bn.prog, "bench: %s (%d/%d)",
				   cli_fmt_size(s, sz, sizeof(sz)), i + 1,
				   bn.npoints);
		if (bench_series(&bn, KIND_MEMCPY, (size_t)s,
				 &p->st[KIND_MEMCPY]) ||
		    bench_series(&bn, KIND_H2C, (size_t)s, &p->st[KIND_H2C]) ||
		    bench_series(&bn, KIND_C2H, (size_t)s, &p->st[KIND_C2H]))
			goto out_prog;
	}
	cli_progress_stop(&bn.prog);

	/* The last C2H read back what the last H2C wrote. */
	if (memcmp(bn.a, bn.b, (size_t)bn.points[bn.npoints - 1].size)) {
		cli_err("the data read back from the card differs from what was written");
		goto out;
	}
	bench_print(&bn);
	status = CLI_EXIT_OK;
	if (json && bench_json(&bn, json))
		status = CLI_EXIT_FAIL;
	if (csv && bench_csv(&bn, csv))
		status = CLI_EXIT_FAIL;
	if (plot && bench_plot(&bn, plot))
		status = CLI_EXIT_FAIL;
	goto out;
out_prog:
	cli_progress_stop(&bn.prog);
out:
	free(bn.a);
	free(bn.b);
	free(bn.samples);
	free(bn.points);
	if (bn.h)
		HelloFPGA_Close(bn.h);
	return status;
}
