// SPDX-License-Identifier: MIT
/*
 * cmd_doctor.c - "hellofpga doctor": a readiness report for GPU Direct on
 * this machine (or on a recorded tree, --root), each check with a
 * verdict, its evidence and a fix; text for people, --json for scripts.
 * docs/doctor.md describes the checks.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../commands.h"
#include "json.h"
#include "doctor.h"

static void doctor_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] doctor [--root DIR] [--json FILE] [--print-env]\n"
	      "\n"
	      "Check whether this machine is ready for GPU Direct between the card and\n"
	      "the GPU: the driver and its ABI, the device nodes for this user, the pin\n"
	      "limits, the IOMMU, the PCIe path (topology, ACS, MPS/MRRS, link training),\n"
	      "the GPU's BAR1, the NVIDIA module, CUDA's GPU Direct attributes, the\n"
	      "usable GPU memory providers and the kernel's options.  Each check has a\n"
	      "verdict (ok, warn, fail, skip), the evidence it read, and a fix.\n"
	      "\n"
	      "Options:\n"
	      "  --root DIR     read the system files below DIR (a tree recorded by\n"
	      "                 scripts/doctor-record.sh) and the facts that are not\n"
	      "                 files from DIR/doctor-env (default: /, this machine)\n"
	      "  --json FILE    write the report as JSON to FILE ('-': standard output)\n"
	      "                 instead of the text\n"
	      "  --print-env    print the facts that are not files, in the format of\n"
	      "                 doctor-env, and exit\n"
	      "  -h, --help     show this help\n"
	      "\n"
	      "Exit status: 0 when no check fails, 1 when one does, 2 for a bad command\n"
	      "line.  docs/doctor.md describes every check.\n", f);
}

typedef void (*doc_check_fn)(struct doc *d);

static const doc_check_fn checks[] = {
	doc_check_driver,   doc_check_abi,	doc_check_card,
	doc_check_nodes,    doc_check_memlock,	doc_check_iommu,
	doc_check_topology, doc_check_acs,	doc_check_mps,
	doc_check_link,	    doc_check_bar1,	doc_check_nvidia,
	doc_check_cuda,	    doc_check_providers, doc_check_kconfig,
};

static void count(const struct doc *d, int n[4])
{
	int i;

	memset(n, 0, 4 * sizeof(*n));
	for (i = 0; i < d->n_checks; i++)
		n[d->checks[i].verdict]++;
}

static void print_text(const struct doc *d, const char *root)
{
	static const char *const tag[] = { "ok  ", "warn", "FAIL", "skip" };
	int i, k, n[4];

	printf("hellofpga doctor: GPU Direct readiness of %s\n",
	       d->live ? "this machine" : root);
	for (i = 0; i < d->n_checks; i++) {
		const struct doc_check *c = &d->checks[i];

		printf("\n[%s] %s - %s\n       %s\n", tag[c->verdict], c->id,
		       c->title, c->result);
		for (k = 0; k < c->n_evidence; k++)
			printf("       %s %s\n", k ? "         " : "evidence:",
			       c->evidence[k]);
		if (*c->fix)
			printf("       fix:      %s\n", c->fix);
	}
	count(d, n);
	printf("\nsummary: %d ok, %d warn, %d fail, %d skip\n", n[DOC_OK],
	       n[DOC_WARN], n[DOC_FAIL], n[DOC_SKIP]);
}

static int print_json(const struct doc *d, const char *root, const char *path)
{
	struct cli_json j;
	int i, k, n[4];

	if (cli_json_open(&j, path))
		return -1;
	cli_json_str(&j, "tool", "hellofpga doctor");
	cli_json_str(&j, "version", HELLOFPGA_VERSION_STRING);
	cli_json_str(&j, "root", root);
	cli_json_bool(&j, "live", d->live);
	cli_json_arr(&j, "checks");
	for (i = 0; i < d->n_checks; i++) {
		const struct doc_check *c = &d->checks[i];

		cli_json_obj(&j, NULL);
		cli_json_str(&j, "id", c->id);
		cli_json_str(&j, "title", c->title);
		cli_json_str(&j, "verdict", doc_verdict_name(c->verdict));
		cli_json_str(&j, "result", c->result);
		cli_json_arr(&j, "evidence");
		for (k = 0; k < c->n_evidence; k++)
			cli_json_str(&j, NULL, c->evidence[k]);
		cli_json_end(&j);
		cli_json_str(&j, "fix", *c->fix ? c->fix : NULL);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	count(d, n);
	cli_json_obj(&j, "summary");
	for (i = DOC_OK; i <= DOC_SKIP; i++)
		cli_json_int(&j, doc_verdict_name(i), n[i]);
	cli_json_end(&j);
	return cli_json_close(&j);
}

/* d->root from @root: "" for "/", else without trailing slashes. */
static int set_root(struct doc *d, char *root)
{
	struct stat st;
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		root[--n] = '\0';
	if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
		cli_usage_err("doctor", "--root '%s' is not a directory", root);
		return -1;
	}
	d->live = !strcmp(root, "/");
	d->root = d->live ? "" : root;
	return 0;
}

/**
 * cmd_doctor() - "hellofpga doctor": the GPU Direct readiness report.
 * @argc: argument count, argv[0] being "doctor"
 * @argv: arguments
 *
 * Return: the exit status: 0 no check failed, 1 one did (or the report
 * could not be written), 2 bad command line.
 */
int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "print-env", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *root = "/", *json = NULL, envpath[1100];
	bool print_env = false;
	struct doc *d;
	int c, ret, n[4];
	size_t i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'e':
			print_env = true;
			break;
		default:
			return cli_opt_help(c, doctor_usage);
		}
	}
	if (cli_no_operand("doctor", argc, argv))
		return CLI_EXIT_USAGE;
	d = calloc(1, sizeof(*d));
	if (!d) {
		cli_err("doctor: out of memory");
		return CLI_EXIT_FAIL;
	}
	if (set_root(d, root)) {
		free(d);
		return CLI_EXIT_USAGE;
	}
	d->env.uid = -1;
	d->env.rdma_supported = d->env.dmabuf_supported = -1;
	ret = 0;
	if (d->live) {
		doc_env_live(d);
	} else {
		snprintf(envpath, sizeof(envpath), "%s/doctor-env", d->root);
		ret = doc_env_load(d, envpath);
	}
	if (!ret && print_env) {
		doc_env_print(&d->env, stdout);
	} else if (!ret) {
		doc_pci_scan(d);
		for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			checks[i](d);
		if (json)
			ret = print_json(d, root, json);
		else
			print_text(d, root);
		count(d, n);
		if (n[DOC_FAIL])
			ret = -1;
		doc_pci_free(d);
	}
	free(d);
	return ret ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
