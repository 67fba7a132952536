// SPDX-License-Identifier: MIT
/*
 * report.c - --json FILE: the run as JSON.
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
 * JSON, the command
 * ------------------------------------------------------------------------ */

static void json_result(FILE *f, const struct t_res *r)
{
	fputs("\"result\": ", f);
	cli_json_str(f, result_name[r->res]);
	fprintf(f, ", \"seconds\": %.3f, \"detail\": ", (double)r->ns / 1e9);
	cli_json_str(f, r->text);
}

static void json_drift(FILE *f, const char *name, const struct drift *d)
{
	fprintf(f, "\"%s\": {\"mean_ns\": %.0f, \"mean_gbps\": %.4f", name,
		d->mean_ns, d->mean_gbps);
	if (d->valid)
		fprintf(f, ", \"first_third_ns\": %.0f, \"last_third_ns\": %.0f"
			", \"drift_latency_pct\": %.4f, \"drift_bandwidth_pct\": %.4f}",
			d->first_ns, d->last_ns, pct(d->first_ns, d->last_ns),
			pct(d->first_gbps, d->last_gbps));
	else
		fputs(", \"drift_latency_pct\": null, \"drift_bandwidth_pct\": null}", f);
}

/**
 * write_json() - the run as JSON: card, GPU, cases, soak, totals.
 * Return: 0, or -1 after reporting.
 */
int write_json(struct tctx *t, const char *path,
	       const struct t_res *res, const bool *sel, int passed,
	       int failed, int skipped)
{
	FILE *f = fopen(path, "w");
	bool first = true;
	struct drift d;
	size_t i;
	int bad;

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("{\n  \"tool\": \"hellofpga test\",\n  \"library\": ", f);
	cli_json_str(f, HelloFPGA_Version());
	fputs(",\n  \"card\": {\"name\": ", f);
	cli_json_str(f, t->info.name);
	fputs(", \"backend\": ", f);
	cli_json_str(f, t->info.backend_name);
	fprintf(f, ", \"ddr_size\": %" PRIu64 ", \"num_h2c\": %d, \"num_c2h\": %d, \"channel\": %d},\n",
		t->info.ddr_size, t->info.num_h2c, t->info.num_c2h, t->ch);
	fputs("  \"gpu\": {\"platform\": ", f);
	cli_json_str(f, platform_name(t->gs.platform));
	fprintf(f, ", \"supported\": %d, \"emulated\": %d, \"name\": ",
		t->gs.supported, t->gs.emulated);
	cli_json_str(f, t->gs.name);
	fputs(", \"pci_bus_id\": ", f);
	cli_json_str(f, t->gs.pci_bus_id);
	fputs(", \"reason\": ", f);
	cli_json_str(f, t->gs.reason);
	fprintf(f, ", \"page_size\": %u, \"cuda_driver_version\": %d},\n",
		t->gs.page_size, t->gs.cuda_driver_version);
	fprintf(f, "  \"size\": %zu,\n  \"stress_size\": %zu,\n  \"cases\": [",
		t->size, t->stress);
	for (i = 0; i < T_NCASES; i++) {
		if (!sel[i])
			continue;
		fprintf(f, "%s\n    {\"number\": %zu, \"name\": \"%s\", ",
			first ? "" : ",", i + 1, t_cases[i].name);
		json_result(f, &res[i]);
		fputc('}', f);
		first = false;
	}
	fputs("\n  ],\n  \"soak\": ", f);
	if (!t->soak_ns) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"duration_s\": %.0f, \"interval_s\": %.0f, \"size\": %zu, \"transfers_per_sample\": %d, ",
			(double)t->soak_ns / 1e9, (double)t->interval_ns / 1e9,
			t->size, T_SOAK_XFERS);
		json_result(f, &t->soak);
		fprintf(f, ", \"transfers\": %" PRIu64 ", \"bytes\": %" PRIu64 ",\n    ",
			t->soak_xfers, t->soak_bytes);
		drift_of(t, true, &d);
		json_drift(f, "read", &d);
		fputs(",\n    ", f);
		drift_of(t, false, &d);
		json_drift(f, "write", &d);
		fputs(",\n    \"samples\": [", f);
		for (i = 0; i < t->nsamples; i++) {
			const struct soak_sample *s = &t->samples[i];

			fprintf(f, "%s\n      {\"t_s\": %.3f, \"read_ns\": %" PRIu64
				", \"read_gbps\": %.4f, \"write_ns\": %" PRIu64
				", \"write_gbps\": %.4f, \"load_transfers\": %" PRIu64
				", \"verified\": true}", i ? "," : "",
				(double)s->t_ns / 1e9, s->rd_ns,
				cli_gbps(t->size, s->rd_ns), s->wr_ns,
				cli_gbps(t->size, s->wr_ns), s->load);
		}
		fputs("\n    ]}", f);
	}
	fprintf(f, ",\n  \"passed\": %d,\n  \"failed\": %d,\n  \"skipped\": %d\n}\n",
		passed, failed, skipped);
	bad = ferror(f);
	if (fclose(f) || bad) {
		cli_err("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
