// SPDX-License-Identifier: MIT
/*
 * cmd_demo.c - "hellofpga demo": the README's first run.  Opens the card
 * (the emulated one when there is no hardware), then for every H2C/C2H
 * channel pair writes a test pattern of its own to a card region of its
 * own, reads it back and verifies every byte: first one channel at a time,
 * then all channels at once from one thread per channel.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#define DEMO_DEFAULT_SIZE	(64ull << 20)
#define DEMO_MAX_ROUNDS		1000000
#define DEMO_POISON		0xa5

/**
 * struct demo_chan - one H2C/C2H channel pair and its card region.
 * @ch: channel number (H2C @ch and C2H @ch)
 * @addr: card address of the region
 * @size: bytes of the region
 * @src: pattern written to the card
 * @dst: what was read back
 * @st: per phase (PHASE_SEQ, PHASE_PAR): time in H2C and in C2H calls,
 *	bytes moved each way, bytes that did not verify, and whether a
 *	transfer failed (already reported)
 */
struct demo_chan {
	int ch;
	uint64_t addr;
	size_t size;
	uint8_t *src;
	uint8_t *dst;
	struct demo_stats {
		uint64_t h2c_ns;
		uint64_t c2h_ns;
		uint64_t bytes;
		uint64_t bad;
		bool failed;
	} st[2];
};

#define PHASE_SEQ	0
#define PHASE_PAR	1

/**
 * struct demo - the whole run.
 * @h: the card
 * @info: what it is
 * @chans: one per channel pair
 * @nchan: channel pairs
 * @rounds: rounds per phase
 * @prog: progress line
 * @barrier: parallel phase: the channel threads and the main thread
 * @gate_lock: protects @gate
 * @gate_cond: signals @gate
 * @gate: parallel phase start: 0 wait, 1 go, -1 give up (not all threads
 *	could be started)
 */
struct demo {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_INFO info;
	struct demo_chan *chans;
	int nchan;
	int rounds;
	struct cli_progress prog;
	pthread_barrier_t barrier;
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	int gate;
};

struct demo_thread_arg {
	struct demo *d;
	struct demo_chan *c;
};

/* splitmix64: every 8-byte word of the pattern comes from its own index. */
static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/**
 * demo_fill() - write the test pattern of (@phase, @round, channel) to
 * c->src, and poison c->dst so that stale data cannot verify.
 */
static void demo_fill(struct demo_chan *c, int phase, int round)
{
	uint64_t seed = mix64(((uint64_t)phase << 56) ^ ((uint64_t)c->ch << 40) ^
			      (uint64_t)round);
	size_t words = c->size / 8, i;
	uint64_t *w = (uint64_t *)c->src;

	for (i = 0; i < words; i++)
		w[i] = mix64(seed + i);
	for (i = words * 8; i < c->size; i++)
		c->src[i] = (uint8_t)mix64(seed + i);
	memset(c->dst, DEMO_POISON, c->size);
}

/**
 * demo_verify() - compare what was read back with what was written, byte
 * by byte, and report the first difference.
 * Return: the number of bytes that differ.
 */
static uint64_t demo_verify(struct demo_chan *c, const char *phase, int round)
{
	uint64_t bad = 0;
	size_t i, first = 0;

	if (!memcmp(c->src, c->dst, c->size))
		return 0;
	for (i = 0; i < c->size; i++) {
		if (c->src[i] != c->dst[i]) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	cli_err("%s, round %d, channel %d: %" PRIu64
		" bytes differ; first at card 0x%" PRIx64
		": wrote 0x%02x, read back 0x%02x", phase, round + 1, c->ch,
		bad, c->addr + first, c->src[first], c->dst[first]);
	return bad;
}

/**
 * demo_xfer() - one timed transfer of channel @c's whole region.
 * @h2c: true: c->src -> card; false: card -> c->dst
 * Return: 0, or -1 after reporting the failure.
 */
static int demo_xfer(struct demo *d, struct demo_chan *c, int phase,
		     bool h2c)
{
	size_t got = 0;
	uint64_t t0, t;
	int ret;

	t0 = cli_now_ns();
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(d->h, c->ch, c->src, c->addr,
						c->size, &got);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(d->h, c->ch, c->dst, c->addr,
					       c->size, &got);
	t = cli_now_ns() - t0;
	if (ret) {
		cli_lib_err(d->h, ret, "%s of %zu bytes at card 0x%" PRIx64
			    " on channel %d", h2c ? "H2C write" : "C2H read",
			    c->size, c->addr, c->ch);
		return -1;
	}
	if (got != c->size) {
		cli_err("%s at card 0x%" PRIx64 " on channel %d moved %zu of %zu bytes",
			h2c ? "H2C write" : "C2H read", c->addr, c->ch, got,
			c->size);
		return -1;
	}
	if (h2c)
		c->st[phase].h2c_ns += t;
	else
		c->st[phase].c2h_ns += t;
	cli_progress_add(&d->prog, c->size);
	return 0;
}

/**
 * demo_sequential() - phase 1: one channel pair at a time.  The first
 * write of each region is an untimed warm-up, so that first-touch costs
 * (the emulated card allocating its memory pages) stay out of the table.
 */
static void demo_sequential(struct demo *d)
{
	int i, r;

	for (i = 0; i < d->nchan; i++) {
		struct demo_chan *c = &d->chans[i];
		struct demo_stats *st = &c->st[PHASE_SEQ];

		cli_progress_label(&d->prog, "warm-up: channel %d", c->ch);
		if (demo_xfer(d, c, PHASE_SEQ, true)) {
			st->failed = true;
			continue;
		}
		st->h2c_ns = 0;
		for (r = 0; r < d->rounds; r++) {
			cli_progress_label(&d->prog,
					   "one at a time: channel %d, round %d/%d",
					   c->ch, r + 1, d->rounds);
			demo_fill(c, PHASE_SEQ, r);
			if (demo_xfer(d, c, PHASE_SEQ, true) ||
			    demo_xfer(d, c, PHASE_SEQ, false)) {
				st->failed = true;
				break;
			}
			st->bytes += c->size;
			st->bad += demo_verify(c, "one at a time", r);
		}
	}
}

/**
 * demo_thread() - phase 2, one thread per channel pair.  Each round: fill,
 * then three barriers shared with the main thread which time the H2C
 * half and the C2H half of the round across all channels.  A thread whose
 * transfer failed keeps meeting the barriers.
 */
static void *demo_thread(void *arg)
{
	struct demo_thread_arg *a = arg;
	struct demo *d = a->d;
	struct demo_chan *c = a->c;
	struct demo_stats *st = &c->st[PHASE_PAR];
	int r, gate;

	pthread_mutex_lock(&d->gate_lock);
	while (!d->gate)
		pthread_cond_wait(&d->gate_cond, &d->gate_lock);
	gate = d->gate;
	pthread_mutex_unlock(&d->gate_lock);
	if (gate < 0)
		return NULL;

	for (r = 0; r < d->rounds; r++) {
		if (!st->failed)
			demo_fill(c, PHASE_PAR, r);
		pthread_barrier_wait(&d->barrier);
		if (!st->failed && demo_xfer(d, c, PHASE_PAR, true))
			st->failed = true;
		pthread_barrier_wait(&d->barrier);
		if (!st->failed && demo_xfer(d, c, PHASE_PAR, false))
			st->failed = true;
		pthread_barrier_wait(&d->barrier);
		if (!st->failed) {
			st->bytes += c->size;
			st->bad += demo_verify(c, "all at once", r);
		}
	}
	return NULL;
}

/**
 * demo_parallel() - phase 2: all channel pairs at once.
 * @h2c_wall: receives the summed wall time of the H2C halves
 * @c2h_wall: receives the summed wall time of the C2H halves
 * Return: 0, or -1 when the threads could not be started.
 */
static int demo_parallel(struct demo *d, uint64_t *h2c_wall,
			 uint64_t *c2h_wall)
{
	struct demo_thread_arg *args;
	pthread_t *thr;
	int i, r, ret, started = 0;

	*h2c_wall = 0;
	*c2h_wall = 0;
	thr = calloc((size_t)d->nchan, sizeof(*thr));
	args = calloc((size_t)d->nchan, sizeof(*args));
	if (!thr || !args) {
		cli_err("out of memory");
		goto out;
	}
	pthread_mutex_init(&d->gate_lock, NULL);
	pthread_cond_init(&d->gate_cond, NULL);
	d->gate = 0;
	pthread_barrier_init(&d->barrier, NULL, (unsigned int)d->nchan + 1);
	for (i = 0; i < d->nchan; i++) {
		args[i].d = d;
		args[i].c = &d->chans[i];
		ret = pthread_create(&thr[i], NULL, demo_thread, &args[i]);
		if (ret) {
			cli_err("cannot start a thread: %s", strerror(ret));
			break;
		}
		started++;
	}
	pthread_mutex_lock(&d->gate_lock);
	d->gate = started == d->nchan ? 1 : -1;
	pthread_cond_broadcast(&d->gate_cond);
	pthread_mutex_unlock(&d->gate_lock);

	for (r = 0; r < d->rounds && d->gate > 0; r++) {
		uint64_t t0, t1, t2;

		cli_progress_label(&d->prog, "all %d channels at once: round %d/%d",
				   d->nchan, r + 1, d->rounds);
		pthread_barrier_wait(&d->barrier);
		t0 = cli_now_ns();
		pthread_barrier_wait(&d->barrier);
		t1 = cli_now_ns();
		pthread_barrier_wait(&d->barrier);
		t2 = cli_now_ns();
		*h2c_wall += t1 - t0;
		*c2h_wall += t2 - t1;
	}
	for (i = 0; i < started; i++)
		pthread_join(thr[i], NULL);
	pthread_barrier_destroy(&d->barrier);
	pthread_cond_destroy(&d->gate_cond);
	pthread_mutex_destroy(&d->gate_lock);
out:
	free(thr);
	free(args);
	return thr && args && started == d->nchan ? 0 : -1;
}

/**
 * demo_table() - print one phase's per-channel table.
 * Return: true when every channel moved and verified every byte.
 */
static bool demo_table(struct demo *d, int phase)
{
	bool all_ok = true;
	int i;

	printf("  channel  card address        bytes   H2C GB/s   C2H GB/s  verified\n");
	for (i = 0; i < d->nchan; i++) {
		struct demo_chan *c = &d->chans[i];
		struct demo_stats *st = &c->st[phase];
		bool ok = !st->failed && !st->bad &&
			  st->bytes == (uint64_t)c->size * (uint64_t)d->rounds;

		printf("  %7d  0x%010" PRIx64 "  %11" PRIu64 "  %9.2f  %9.2f  %s\n",
		       c->ch, c->addr, st->bytes, cli_gbps(st->bytes, st->h2c_ns),
		       cli_gbps(st->bytes, st->c2h_ns), ok ? "OK" : "FAIL");
		all_ok &= ok;
	}
	return all_ok;
}

/*
 * demo_setup() - the channel pairs of @d's card, each with @size bytes of
 * card memory and a source and a destination buffer.
 * Return: 0, or -1 after reporting.
 */
static int demo_setup(struct demo *d, uint64_t size)
{
	char sz[32], sz2[32];
	uint64_t gran;

	if (cli_get_info(d->h, &d->info))
		return -1;
	d->nchan = d->info.num_h2c < d->info.num_c2h ? d->info.num_h2c :
						       d->info.num_c2h;
	if (d->nchan < 1) {
		cli_err("%s has no H2C/C2H channel pair", d->info.name);
		return -1;
	}
	gran = d->info.addr_align > d->info.len_granularity ?
	       d->info.addr_align : d->info.len_granularity;
	if (gran > 1 && size % gran) {
		cli_err("-s %" PRIu64 " is not a multiple of %" PRIu64
			" bytes, the engine alignment of %s", size, gran,
			d->info.name);
		return -1;
	}
	if (size > d->info.ddr_size / (uint64_t)d->nchan) {
		cli_err("%d channels x %s do not fit in the %s of card memory of %s; use a smaller -s",
			d->nchan, cli_fmt_size(size, sz, sizeof(sz)),
			cli_fmt_size(d->info.ddr_size, sz2, sizeof(sz2)),
			d->info.name);
		return -1;
	}
	d->chans = calloc((size_t)d->nchan, sizeof(*d->chans));
	if (!d->chans) {
		cli_err("out of memory");
		return -1;
	}
	for (int i = 0; i < d->nchan; i++) {
		struct demo_chan *c = &d->chans[i];

		c->ch = i;
		c->addr = (uint64_t)i * size;
		c->size = (size_t)size;
		c->src = cli_alloc((size_t)size);
		c->dst = c->src ? cli_alloc((size_t)size) : NULL;
		if (!c->dst)
			return -1;
	}
	return 0;
}

/*
 * demo_report() - the tables of both phases, the aggregate and the verdict.
 * Return: the exit status.
 */
static int demo_report(struct demo *d, uint64_t h2c_wall, uint64_t c2h_wall)
{
	uint64_t total = 0;
	bool seq_ok, par_ok;

	printf("one channel at a time:\n");
	seq_ok = demo_table(d, PHASE_SEQ);
	printf("\nall channels at once (%d threads, one per channel):\n", d->nchan);
	par_ok = demo_table(d, PHASE_PAR);
	for (int i = 0; i < d->nchan; i++)
		total += d->chans[i].st[PHASE_PAR].bytes;
	printf("  %7s  %12s  %11" PRIu64 "  %9.2f  %9.2f  %s\n", "all", "",
	       total, cli_gbps(total, h2c_wall), cli_gbps(total, c2h_wall),
	       par_ok ? "OK" : "FAIL");
	printf("  aggregate: H2C %.2f GB/s, C2H %.2f GB/s (1 GB/s = 10^9 bytes/s)\n\n",
	       cli_gbps(total, h2c_wall), cli_gbps(total, c2h_wall));

	if (seq_ok && par_ok) {
		printf("PASS: every byte verified on %d channel%s\n", d->nchan,
		       d->nchan == 1 ? "" : "s");
		return CLI_EXIT_OK;
	}
	printf("FAIL: some data did not verify or a transfer failed (see above)\n");
	return CLI_EXIT_FAIL;
}

static void demo_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] demo [-s SIZE] [-r ROUNDS]\n"
	      "\n"
	      "For every H2C/C2H channel pair, write a test pattern of its own to a\n"
	      "card region of its own (channel N at card address N * SIZE), read it\n"
	      "back and verify every byte; first one channel at a time, then all\n"
	      "channels at once from one thread per channel.  Prints a table per\n"
	      "phase and the aggregate throughput.  Without -d and HELLOFPGA_DEVICE,\n"
	      "a machine without a hardware card uses the emulated card (emu).\n"
	      "\n"
	      "  -s, --size SIZE       bytes per channel (default 64M)\n"
	      "  -r, --rounds ROUNDS   transfers each way per channel and phase\n"
	      "                        (default 1)\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Exit status 0 only when every byte verified.\n", f);
}

/**
 * cmd_demo() - "hellofpga demo": check the card fits the run, allocate one
 * source and one destination buffer per channel pair, run both phases and
 * print their tables.
 * @argc: argument count, argv[0] being "demo"
 * @argv: arguments
 *
 * Return: CLI_EXIT_OK only when every byte of every round verified.
 */
int cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct demo d = { .rounds = 1 };
	uint64_t size = DEMO_DEFAULT_SIZE, total, h2c_wall, c2h_wall;
	int c, i, ret, status = CLI_EXIT_FAIL;
	char sz[32];

	while ((c = getopt_long(argc, argv, "s:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (cli_opt_size("demo", "-s", optarg, &size))
				return CLI_EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_int(optarg, 1, DEMO_MAX_ROUNDS, &d.rounds)) {
				cli_usage_err("demo", "-r: bad number of rounds '%s' (1..%d)",
					      optarg, DEMO_MAX_ROUNDS);
				return CLI_EXIT_USAGE;
			}
			break;
		default:	/* -h or a bad option */
			return cli_opt_help(c, demo_usage);
		}
	}
	if (cli_no_operand("demo", argc, argv))
		return CLI_EXIT_USAGE;
	if (!size || size > SIZE_MAX / 2) {
		cli_usage_err("demo", "-s: size must be 1 .. %zu bytes",
			      (size_t)(SIZE_MAX / 2));
		return CLI_EXIT_USAGE;
	}

	if (cli_open_or_emu(&d.h))
		return CLI_EXIT_FAIL;
	if (demo_setup(&d, size))
		goto out;

	printf("hellofpga demo on %s (%s): %d H2C / %d C2H channels, %s card memory, irq %s\n",
	       d.info.name, d.info.backend_name, d.info.num_h2c,
	       d.info.num_c2h, cli_fmt_size(d.info.ddr_size, sz, sizeof(sz)),
	       cli_irq_name(d.info.irq_mode));
	printf("test pattern: %s per channel, %d round%s; channel N uses card 0x%" PRIx64 " * N\n\n",
	       cli_fmt_size(size, sz, sizeof(sz)), d.rounds,
	       d.rounds == 1 ? "" : "s", size);
	fflush(stdout);

	total = (uint64_t)d.nchan * size * ((uint64_t)d.rounds * 4 + 1);
	cli_progress_start(&d.prog, total);
	demo_sequential(&d);
	ret = demo_parallel(&d, &h2c_wall, &c2h_wall);
	cli_progress_stop(&d.prog);
	if (ret)
		goto out;

	status = demo_report(&d, h2c_wall, c2h_wall);
out:
	if (d.chans) {
		for (i = 0; i < d.nchan; i++) {
			free(d.chans[i].src);
			free(d.chans[i].dst);
		}
		free(d.chans);
	}
	HelloFPGA_Close(d.h);
	return status;
}
