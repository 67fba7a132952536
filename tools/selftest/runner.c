// SPDX-License-Identifier: MIT
/*
 * runner.c - hellofpga-test, the program of "hellofpga test": running
 * the cases (cases.c), the options and the summary.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/* ------------------------------------------------------------------------
 * Running the cases
 * ------------------------------------------------------------------------ */

/**
 * run_case() - run case @i (0-based) and print its line.  Without a GPU a
 * GPU case is SKIP; without GPU Direct it is FAIL, with the reason.
 */
/*
 * DMA faults of the card so far (an emulated card's IOMMU record); false
 * when the backend does not see them (the kernel driver: the kernel log).
 */
static bool dma_faults(struct tctx *t, HELLOFPGA_DMA_FAULTS *f)
{
	return !HelloFPGA_GetDMAFaults(t->h, f);
}

static void run_case(struct tctx *t, int i, struct t_res *r)
{
	const struct tcase *c = &t_cases[i];
	uint64_t t0 = cli_now_ns();
	HELLOFPGA_DMA_FAULTS f0, f1;
	bool faults;
	int ret;

	memset(r, 0, sizeof(*r));
	r->res = T_PASS;
	t->cur = r;
	t->verified = 0;
	if (c->gpu && t->gs.platform == HELLOFPGA_PLATFORM_NONE) {
		r->res = T_SKIP;
		snprintf(r->text, sizeof(r->text), "no GPU: %s", t->gs.reason);
	} else if (c->gpu && !t->gs.supported) {
		tfail(t, "GPU Direct is not supported here: %s", t->gs.reason);
	} else {
		faults = dma_faults(t, &f0);
		cli_progress_start(&t->prog, 0);
		tprog(t, "[%2d/%d] %s", i + 1, T_NCASES, c->name);
		ret = c->fn(t);
		cli_progress_stop(&t->prog);
		if (ret && r->res == T_PASS)
			tfail(t, "failed without a reason (a bug of the test)");
		/* the card never touches memory it was not given */
		if (faults && dma_faults(t, &f1) && f1.faults != f0.faults)
			tfail(t, "%" PRIu64 " DMA fault(s) of the card (last at bus 0x%" PRIx64 "): it reached memory that was not, or no longer, mapped for it",
			      f1.faults - f0.faults, f1.last_fault_bus);
	}
	r->ns = cli_now_ns() - t0;
	t->cur = NULL;
	printf("[%2d/%d] ", i + 1, T_NCASES);
	print_name(c->name);
	print_result(r);
}

/**
 * parse_only() - --only NAME[,NAME]: names or numbers 1..15.
 * Return: 0, or -1 after reporting the first unknown one.
 */
static int parse_only(const char *arg, bool *sel)
{
	char *s = strdup(arg), *tok, *save = NULL;
	int i, n, any = 0;

	if (!s) {
		cli_err("out of memory");
		return -1;
	}
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < T_NCASES; i++)
			if (!strcmp(tok, t_cases[i].name))
				break;
		if (i == T_NCASES && !cli_parse_int(tok, 1, T_NCASES, &n))
			i = n - 1;
		if (i == T_NCASES) {
			cli_usage_err("test", "--only: no case '%s' (see 'hellofpga test --list')",
				      tok);
			free(s);
			return -1;
		}
		sel[i] = true;
		any = 1;
	}
	free(s);
	if (!any) {
		cli_usage_err("test", "--only: no case named");
		return -1;
	}
	return 0;
}

static void print_header(const struct tctx *t)
{
	const HELLOFPGA_GPU_STATUS *g = &t->gs;
	char sz[32], sz2[32];

	/* the card and the GPU first: what the results are of */
	printf("card:     %s (%s), %d H2C / %d C2H channels, %s card memory, irq %s; channel %d\n",
	       t->info.name, t->info.backend_name, t->info.num_h2c,
	       t->info.num_c2h, cli_fmt_size(t->info.ddr_size, sz, sizeof(sz)),
	       cli_irq_name(t->info.irq_mode), t->ch);
	if (g->platform == HELLOFPGA_PLATFORM_NONE) {
		printf("GPU:      none: %s\n", g->reason);
	} else {
		printf("GPU:      %s, %s: %s", platform_name(g->platform),
		       g->emulated ? "emulated" : "real", g->name);
		if (g->pci_bus_id[0])
			printf(" (%s)", g->pci_bus_id);
		printf(", page %s", cli_fmt_size(g->page_size, sz, sizeof(sz)));
		if (g->cuda_driver_version)
			printf(", CUDA driver %d.%d", g->cuda_driver_version / 1000,
			       g->cuda_driver_version % 1000 / 10);
		if (g->supported)
			printf("; GPU Direct supported\n");
		else
			printf("; GPU Direct NOT supported: %s\n", g->reason);
	}
	printf("library:  libhellofpga %s\n", HelloFPGA_Version());
	printf("sizes:    %s per transfer, %s per stress transfer\n\n",
	       cli_fmt_size(t->size, sz, sizeof(sz)),
	       cli_fmt_size(t->stress, sz2, sizeof(sz2)));
	fflush(stdout);
}

static void test_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] test [--soak DURATION] [--interval DURATION]\n"
	      "                 [-s SIZE] [-c CH] [--json FILE] [--only NAME[,NAME]] [--list]\n"
	      "\n"
	      "The GPU Direct test program: 15 cases (the seed's gpu_direct_api_test and\n"
	      "five more), each reported PASS, FAIL or SKIP with the reason, then, with\n"
	      "--soak, a soak phase sampling latency and bandwidth at intervals.  Uses\n"
	      "the GPU HelloFPGA_GetGPUStatus() reports (HELLOFPGA_GPU=emu, emu-tegra:\n"
	      "the library's emulated GPU).  Without -d and HELLOFPGA_DEVICE, a machine\n"
	      "without a hardware card uses the emulated card (emu).\n"
	      "\n"
	      "      --soak DURATION     after the cases, soak for DURATION: 90s, 10m,\n"
	      "                          12h, 1h30m, 1d (plain number: seconds)\n"
	      "      --interval DURATION time between soak samples (default DURATION/72,\n"
	      "                          at least 1s)\n"
	      "  -s, --size SIZE         bytes per transfer, a multiple of 4K, 64K .. 1G\n"
	      "                          (default 4M); stress transfers are 64M\n"
	      "  -c, --channel CH        H2C and C2H channel (default 0)\n"
	      "      --json FILE         write cases, soak samples and totals as JSON\n"
	      "      --only NAME[,NAME]  run only these cases (names or numbers)\n"
	      "      --list              list the cases and exit\n"
	      "  -h, --help              show this help\n"
	      "\n"
	      "The last line is \"N passed, N failed\" (\", N skipped\" when some were).\n"
	      "Exit status 0 only when nothing failed, something passed, and a GPU was\n"
	      "there to test; 3 on a hardware card without a real GPU, unless\n"
	      "HELLOFPGA_GPU=emu, emu-tegra or none asks for it.\n", f);
}

enum { OPT_SOAK = 256, OPT_INTERVAL, OPT_JSON, OPT_ONLY, OPT_LIST };

/* Parse a --soak / --interval argument.  Return: 0 or -1 (reported). */
static int opt_duration(const char *opt, const char *arg, uint64_t *ns)
{
	int ret = cli_parse_duration(arg, T_SOAK_MAX_S, ns);

	if (ret == -ERANGE) {
		cli_usage_err("test", "%s: duration '%s' is too long (at most 30d)",
			      opt, arg);
		return -1;
	}
	if (ret) {
		cli_usage_err("test", "%s: bad duration '%s' (expected e.g. 90s, 10m, 12h, 1h30m)",
			      opt, arg);
		return -1;
	}
	if (*ns < NS_PER_S) {
		cli_usage_err("test", "%s: duration '%s' is shorter than 1s", opt,
			      arg);
		return -1;
	}
	return 0;
}

/* The options of a run (the rest go into the test's context). */
struct topts {
	bool sel[T_NCASES];
	uint64_t size;
	const char *json;
};

/*
 * parse_args() - the options into @t and @o.
 * Return: -1 to run, else the exit status (after --help, --list or a bad
 * command line).
 */
static int parse_args(int argc, char **argv, struct tctx *t, struct topts *o)
{
	static const struct option opts[] = {
		{ "soak", required_argument, NULL, OPT_SOAK },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "size", required_argument, NULL, 's' },
		{ "channel", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool only = false;
	char sz[32];
	int c, i;

	while ((c = getopt_long(argc, argv, "s:c:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOAK:
			if (opt_duration("--soak", optarg, &t->soak_ns))
				return CLI_EXIT_USAGE;
			break;
		case OPT_INTERVAL:
			if (opt_duration("--interval", optarg, &t->interval_ns))
				return CLI_EXIT_USAGE;
			break;
		case 's':
			if (cli_opt_size("test", "--size", optarg, &o->size))
				return CLI_EXIT_USAGE;
			break;
		case 'c':
			if (cli_opt_channel("test", optarg, &t->ch))
				return CLI_EXIT_USAGE;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_ONLY:
			if (parse_only(optarg, o->sel))
				return CLI_EXIT_USAGE;
			only = true;
			break;
		case OPT_LIST:
			for (i = 0; i < T_NCASES; i++)
				printf("%2d  %-22s %s\n", i + 1, t_cases[i].name,
				       t_cases[i].title);
			return CLI_EXIT_OK;
		default:	/* -h or a bad option */
			return cli_opt_help(c, test_usage);
		}
	}
	if (cli_no_operand("test", argc, argv))
		return CLI_EXIT_USAGE;
	if (o->size < T_MIN_SIZE || o->size > T_MAX_SIZE || o->size % T_PAGE) {
		cli_usage_err("test", "--size: %s is not a multiple of 4 KiB from 64 KiB to 1 GiB",
			      cli_fmt_size(o->size, sz, sizeof(sz)));
		return CLI_EXIT_USAGE;
	}
	if (t->interval_ns && !t->soak_ns) {
		cli_usage_err("test", "--interval needs --soak");
		return CLI_EXIT_USAGE;
	}
	if (t->soak_ns && !t->interval_ns) {
		t->interval_ns = (t->soak_ns + T_SOAK_SAMPLES - 1) / T_SOAK_SAMPLES;
		if (t->interval_ns < NS_PER_S)
			t->interval_ns = NS_PER_S;
	}
	if (t->interval_ns > t->soak_ns) {
		cli_usage_err("test", "--interval is longer than --soak");
		return CLI_EXIT_USAGE;
	}
	if (!only)
		for (i = 0; i < T_NCASES; i++)
			o->sel[i] = true;
	return -1;
}

/*
 * open_card() - the card of the run (-d, HELLOFPGA_DEVICE, else the first
 * hardware card or the emulated one), checked for the test, the sizes of
 * its transfers, the GPU and the host buffers.
 * Return: -1 to run, else the exit status (reported).
 */
static int open_card(struct tctx *t, uint64_t size)
{
	uint64_t ddr, g;
	char sz[32], sz2[32];
	int ret;

	t->size = (size_t)size;
	if (cli_open_or_emu(&t->h))
		return CLI_EXIT_FAIL;
	if (cli_get_info(t->h, &t->info) ||
	    cli_check_channel(&t->info, t->ch, true) ||
	    cli_check_channel(&t->info, t->ch, false))
		return CLI_EXIT_FAIL;
	ddr = t->info.ddr_size;
	if (ddr < 12 * size || ddr < T_MIN_DDR) {
		cli_err("%s has %s of card memory, too little for --size %s: the test needs 12 x SIZE and at least 16 MiB",
			t->info.name, cli_fmt_size(ddr, sz, sizeof(sz)),
			cli_fmt_size(size, sz2, sizeof(sz2)));
		return CLI_EXIT_FAIL;
	}
	g = t->info.addr_align > t->info.len_granularity ?
	    t->info.addr_align : t->info.len_granularity;
	t->gran = g ? g : 1;
	if (t->gran > 512 || (t->gran & (t->gran - 1))) {
		cli_err("%s: engine alignment %" PRIu64 " bytes is not supported by the test (1 .. 512, a power of two)",
			t->info.name, t->gran);
		return CLI_EXIT_FAIL;
	}
	t->stress = T_STRESS_SIZE;
	if (t->stress > align_down(ddr / 8, T_PAGE))
		t->stress = (size_t)align_down(ddr / 8, T_PAGE);
	if (t->stress < t->size)
		t->stress = t->size;
	ret = cli_report_gpu("test", &t->info, &t->gs);
	if (ret)
		return ret;
	t->hlen = t->stress + 2 * T_GUARD;
	t->ha = cli_alloc(t->hlen);
	t->hb = t->ha ? cli_alloc(t->hlen) : NULL;
	t->hc = t->hb ? cli_alloc(t->hlen) : NULL;
	return t->hc ? -1 : CLI_EXIT_FAIL;
}

/*
 * run_all() - the header, the selected cases, the soak, the totals and
 * the JSON.
 * Return: CLI_EXIT_OK only when nothing failed, at least one result
 * passed and the GPU cases could run (there was a GPU).
 */
static int run_all(struct tctx *t, const struct topts *o)
{
	struct t_res res[T_NCASES];
	int i, n, passed = 0, failed = 0, skipped = 0;
	int status = CLI_EXIT_FAIL;
	bool no_gpu;
	char sz[32];

	for (i = 0, n = 0; i < T_NCASES; i++)
		n += o->sel[i];
	printf("hellofpga test: GPU Direct test program, %d of %d cases%s%s\n",
	       n, T_NCASES, t->soak_ns ? ", then a soak of " : "",
	       t->soak_ns ? fmt_duration(t->soak_ns, sz, sizeof(sz)) : "");
	print_header(t);

	for (i = 0; i < T_NCASES; i++) {
		if (!o->sel[i])
			continue;
		run_case(t, i, &res[i]);
		passed += res[i].res == T_PASS;
		failed += res[i].res == T_FAIL;
		skipped += res[i].res == T_SKIP;
	}
	gbuf_free(t, &t->shared);
	if (t->soak_ns) {
		run_soak(t);
		passed += t->soak.res == T_PASS;
		failed += t->soak.res == T_FAIL;
		skipped += t->soak.res == T_SKIP;
	}

	no_gpu = t->gs.platform == HELLOFPGA_PLATFORM_NONE;
	putchar('\n');
	if (no_gpu)
		printf("GPU Direct was not tested: no GPU (%s)\n", t->gs.reason);
	if (!failed && passed && !no_gpu)
		status = CLI_EXIT_OK;
	if (o->json && write_json(t, o->json, res, o->sel, passed, failed,
				  skipped))
		status = CLI_EXIT_FAIL;
	printf("%d passed, %d failed", passed, failed);
	if (skipped)
		printf(", %d skipped", skipped);
	putchar('\n');
	fflush(stdout);
	return status;
}

/**
 * main() - hellofpga-test, run by "hellofpga test" (tools/common/prog.c):
 * parse the options, open the card, run the cases.
 *
 * Return: the exit status: run_all()'s, 1 when the run could not start,
 * 2 for a bad command line, 3 on a hardware card without a real GPU.
 */
int main(int argc, char **argv)
{
	struct tctx t = { 0 };
	struct topts o = { .size = T_DEFAULT_SIZE };
	int status;

	cli_program_args(&argc, &argv);
	status = parse_args(argc, argv, &t, &o);
	if (status >= 0)
		return status;
	status = open_card(&t, o.size);
	if (status < 0)
		status = run_all(&t, &o);
	gbuf_free(&t, &t.shared);
	free(t.samples);
	free(t.ha);
	free(t.hb);
	free(t.hc);
	if (t.h)
		HelloFPGA_Close(t.h);
	return status;
}
