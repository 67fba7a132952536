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

#include "json.h"
#include "test.h"

static void json_result(struct cli_json *j, const struct t_res *r)
{
	cli_json_str(j, "result", result_name[r->res]);
	cli_json_num(j, "seconds", "%.3f", (double)r->ns / 1e9);
	cli_json_str(j, "detail", r->text);
}

static void json_drift(struct cli_json *j, const char *name,
		       const struct drift *d)
{
	cli_json_obj(j, name);
	cli_json_num(j, "mean_ns", "%.0f", d->mean_ns);
	cli_json_num(j, "mean_gbps", "%.4f", d->mean_gbps);
	if (d->valid) {
		cli_json_num(j, "first_third_ns", "%.0f", d->first_ns);
		cli_json_num(j, "last_third_ns", "%.0f", d->last_ns);
		cli_json_num(j, "drift_latency_pct", "%.4f",
			     pct(d->first_ns, d->last_ns));
		cli_json_num(j, "drift_bandwidth_pct", "%.4f",
			     pct(d->first_gbps, d->last_gbps));
	} else {
		cli_json_null(j, "drift_latency_pct");
		cli_json_null(j, "drift_bandwidth_pct");
	}
	cli_json_end(j);
}

static void json_soak(struct cli_json *j, struct tctx *t)
{
	struct drift d;

	if (!t->soak_ns) {
		cli_json_null(j, "soak");
		return;
	}
	cli_json_obj(j, "soak");
	cli_json_num(j, "duration_s", "%.0f", (double)t->soak_ns / 1e9);
	cli_json_num(j, "interval_s", "%.0f", (double)t->interval_ns / 1e9);
	cli_json_u64(j, "size", t->size);
	cli_json_int(j, "transfers_per_sample", T_SOAK_XFERS);
	json_result(j, &t->soak);
	cli_json_u64(j, "transfers", t->soak_xfers);
	cli_json_u64(j, "bytes", t->soak_bytes);
	drift_of(t, true, &d);
	json_drift(j, "read", &d);
	drift_of(t, false, &d);
	json_drift(j, "write", &d);
	cli_json_arr(j, "samples");
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct soak_sample *s = &t->samples[i];

		cli_json_obj(j, NULL);
		cli_json_num(j, "t_s", "%.3f", (double)s->t_ns / 1e9);
		cli_json_u64(j, "read_ns", s->rd_ns);
		cli_json_num(j, "read_gbps", "%.4f", cli_gbps(t->size, s->rd_ns));
		cli_json_u64(j, "write_ns", s->wr_ns);
		cli_json_num(j, "write_gbps", "%.4f",
			     cli_gbps(t->size, s->wr_ns));
		cli_json_u64(j, "load_transfers", s->load);
		cli_json_bool(j, "verified", true);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
}

/**
 * write_json() - the run as JSON: card, GPU, cases, soak, totals.
 * Return: 0, or -1 after reporting.
 */
int write_json(struct tctx *t, const char *path, const struct t_res *res,
	       const bool *sel, int passed, int failed, int skipped)
{
	struct cli_json j;

	if (cli_json_open(&j, path))
		return -1;
	cli_json_str(&j, "tool", "hellofpga test");
	cli_json_obj(&j, "card");
	cli_json_str(&j, "name", t->info.name);
	cli_json_str(&j, "backend", t->info.backend_name);
	cli_json_u64(&j, "ddr_size", t->info.ddr_size);
	cli_json_int(&j, "num_h2c", t->info.num_h2c);
	cli_json_int(&j, "num_c2h", t->info.num_c2h);
	cli_json_int(&j, "channel", t->ch);
	cli_json_end(&j);
	cli_json_obj(&j, "gpu");
	cli_json_str(&j, "platform", platform_name(t->gs.platform));
	cli_json_int(&j, "supported", t->gs.supported);
	cli_json_int(&j, "emulated", t->gs.emulated);
	cli_json_str(&j, "name", t->gs.name);
	cli_json_str(&j, "pci_bus_id", t->gs.pci_bus_id);
	cli_json_str(&j, "reason", t->gs.reason);
	cli_json_u64(&j, "page_size", t->gs.page_size);
	cli_json_int(&j, "cuda_driver_version", t->gs.cuda_driver_version);
	cli_json_end(&j);
	cli_json_str(&j, "library", HelloFPGA_Version());
	cli_json_u64(&j, "size", t->size);
	cli_json_u64(&j, "stress_size", t->stress);
	cli_json_arr(&j, "cases");
	for (size_t i = 0; i < T_NCASES; i++) {
		if (!sel[i])
			continue;
		cli_json_obj(&j, NULL);
		cli_json_u64(&j, "number", i + 1);
		cli_json_str(&j, "name", t_cases[i].name);
		json_result(&j, &res[i]);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	json_soak(&j, t);
	cli_json_int(&j, "passed", passed);
	cli_json_int(&j, "failed", failed);
	cli_json_int(&j, "skipped", skipped);
	return cli_json_close(&j);
}
