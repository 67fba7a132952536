// SPDX-License-Identifier: MIT
/*
 * out_csv.c - --csv FILE: the run as one CSV table: first the
 * "environment" rows (card, GPU, date, CPU, kernel, library; the value in
 * the last column, "text"), then one row per measurement.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "link.h"
#include "out.h"
#include "stats.h"

static void csv_row(FILE *f, const char *section, const char *name,
		    uint64_t size, const char *dir, const struct bstats *s,
		    double gbps, double value, long long dropped,
		    long long corrupt)
{
	fprintf(f, "%s,%s,%" PRIu64 ",%s,", section, name, size, dir);
	if (s)
		fprintf(f, "%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",", s->iters, s->min_ns, s->median_ns,
			s->p99_ns, s->max_ns, s->mean_ns);
	else
		fputs(",,,,,,", f);
	if (!isnan(gbps))
		fprintf(f, "%.4f", gbps);
	fputc(',', f);
	if (!isnan(value))
		fprintf(f, "%.4f", value);
	fputc(',', f);
	if (dropped >= 0)
		fprintf(f, "%lld,%lld", dropped, corrupt);
	else
		fputc(',', f);
	fputs(",\n", f);
}

/* env_row: an "environment" row, TEXT in the last column (RFC 4180 quoted) */
static void env_row(FILE *f, const char *name, const char *text)
{
	fprintf(f, "environment,%s,,,,,,,,,,,,,\"", name);
	for (const char *c = text ? text : ""; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		if (*c != '\n' && *c != '\r')
			fputc(*c, f);
	}
	fputs("\"\n", f);
}

/* the run's environment first, as in the text report and the JSON */
static void csv_env(FILE *f, const struct bench *bn)
{
	const HELLOFPGA_GPU_STATUS *g = &bn->gpu.status;
	char num[32];

	env_row(f, "card", bn->info.name);
	env_row(f, "backend", bn->info.backend_name);
	env_row(f, "emulated_card",
		bn->info.backend == HELLOFPGA_BACKEND_EMULATED ? "yes" : "no");
	env_row(f, "irq", cli_irq_name(bn->info.irq_mode));
	snprintf(num, sizeof(num), "%d", bn->ch);
	env_row(f, "channel", num);
	snprintf(num, sizeof(num), "0x%" PRIx64, bn->addr);
	env_row(f, "card_address", num);
	snprintf(num, sizeof(num), "0x%" PRIx64, bn->gaddr);
	env_row(f, "gpu_card_address", num);
	if (bn->gpu.present) {
		env_row(f, "gpu", g->name);
		env_row(f, "gpu_emulated", bn->gpu.real ? "no" : "yes");
		env_row(f, "gpu_platform",
			g->platform == HELLOFPGA_PLATFORM_TEGRA ? "tegra" :
			"desktop");
		env_row(f, "gpu_pci_bus_id", g->pci_bus_id);
		snprintf(num, sizeof(num), "%d", bn->gpu.cuda_version);
		env_row(f, "cuda_driver_version", num);
		env_row(f, "nvidia_driver", bn->gpu.driver);
		env_row(f, "gpudirect_supported", g->supported ? "yes" : "no");
	} else {
		env_row(f, "gpu", "none");
	}
	if (bn->link_on)
		env_row(f, "link_model", bn->link_desc);
	snprintf(num, sizeof(num), "%" PRIu32, bn->seed);
	env_row(f, "seed", num);
	env_row(f, "date", bn->date);
	env_row(f, "cpu", bn->cpu);
	env_row(f, "kernel", bn->kernel);
	env_row(f, "library", HelloFPGA_Version());
}

/*
 * The repeats of a size and direction: a "repeat" row per path and repeat
 * (its statistics; value: the repeat, 1..N), then a "spread" row per path
 * (iterations: the repeats; min_ns, max_ns: the lowest and highest repeat
 * median; median_ns, gbps: all together; value: bench_spread(), %) and
 * one for GPU Direct's % of the ceiling (value: highest - lowest repeat,
 * points; text: "lowest..highest").
 */
static void csv_repeats(FILE *f, const struct bench *bn,
			const struct bpoint *pt, int d)
{
	uint64_t lo_ns, hi_ns;
	double v, lo, hi;

	for (int p = 0; p < BP_N; p++) {
		if (!bn->paths[p])
			continue;
		for (int r = 0; r < bn->repeats; r++)
			csv_row(f, "repeat", bpath_name[p], pt->size,
				bdir_name[d], &pt->rep[r][p][d],
				cli_gbps(pt->size, pt->rep[r][p][d].median_ns),
				r + 1, -1, -1);
	}
	if (bn->repeats < 2)
		return;
	for (int p = 0; p < BP_N; p++) {
		v = bench_spread(bn, pt->size, p, d, &lo_ns, &hi_ns);
		if (isnan(v))
			continue;
		fprintf(f, "spread,%s,%" PRIu64 ",%s,%d,%" PRIu64 ",%" PRIu64
			",,%" PRIu64 ",,%.4f,%.4f,,,\n", bpath_name[p],
			pt->size, bdir_name[d], bn->repeats, lo_ns,
			pt->st[p][d].median_ns, hi_ns,
			cli_gbps(pt->size, pt->st[p][d].median_ns), v);
	}
	v = bench_pct_range(bn, pt->size, d, &lo, &hi);
	if (!isnan(v))
		fprintf(f, "spread,direct_pct_of_ceiling,%" PRIu64 ",%s,%d,,,,,,,%.4f,,,\"%.2f..%.2f\"\n",
			pt->size, bdir_name[d], bn->repeats, v, lo, hi);
}

/*
 * The prediction: a "predict" row per size, direction and side
 * ("hellofpga", "reference"): gbps and value (ns) predicted, the counts
 * in text ("reads=1 writes=4 descs=1 irqs=1").
 */
static void csv_predict(FILE *f, const struct bench *bn)
{
	for (int i = 0; i < BCOST_NREF && bn->predicted; i++)
		for (int d = 0; d < BD_N; d++)
			for (int k = 0; k < 2; k++) {
				const struct bpredict *pr = &bn->pred[i];
				const struct bcost_counts *c = k ?
					&bcost_reference[i].c : &pr->c[d];
				struct bcost b;

				if ((!k && !pr->counted[d]) ||
				    !bench_predict(bn, c, &b))
					continue;
				fprintf(f, "predict,%s,%" PRIu64 ",%s,,,,,,,%.4f,%.1f,,,\"reads=%g writes=%g descs=%g irqs=%g\"\n",
					k ? "reference" : "hellofpga", pr->size,
					bdir_name[d], b.gbps, b.total_ns,
					c->mmio_reads, c->mmio_writes, c->desc,
					c->irqs);
			}
}

int bench_csv(const struct bench *bn, const char *path)
{
	FILE *f = fopen(path, "w");
	char nm[32];

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("section,name,size,direction,iterations,min_ns,median_ns,p99_ns,"
	      "max_ns,mean_ns,gbps,value,dropped,corrupt,text\n", f);
	csv_env(f, bn);
	for (int i = 0; i < bn->npoints; i++) {
		const struct bpoint *pt = &bn->points[i];

		for (int d = 0; d < BD_N; d++) {
			for (int p = 0; p < BP_N; p++)
				if (bn->paths[p])
					csv_row(f, "sweep", bpath_name[p], pt->size,
						bdir_name[d], &pt->st[p][d],
						cli_gbps(pt->size,
							 pt->st[p][d].median_ns),
						NAN, -1, -1);
			csv_row(f, "speedup", "trad_pageable", pt->size,
				bdir_name[d], NULL, NAN,
				bench_ratio(bn, pt->size, BP_TRAD_PAGE, BP_DIRECT, d),
				-1, -1);
			csv_row(f, "speedup", "trad_pinned", pt->size,
				bdir_name[d], NULL, NAN,
				bench_ratio(bn, pt->size, BP_TRAD_PIN, BP_DIRECT, d),
				-1, -1);
			csv_row(f, "transfer_mode", "cpu_over_gpu_pinned",
				pt->size, bdir_name[d], NULL, NAN,
				bench_ratio(bn, pt->size, BP_CPU, BP_XMODE, d), -1, -1);
			csv_row(f, "overhead", "direct", pt->size, bdir_name[d],
				NULL, NAN,
				bench_diff_ns(bn, pt->size, BP_DIRECT, BP_CEIL, d), -1, -1);
			csv_row(f, "overhead", "transfer_mode", pt->size,
				bdir_name[d], NULL, NAN,
				bench_diff_ns(bn, pt->size, BP_XMODE, BP_CEIL, d), -1, -1);
			csv_row(f, "overhead", "cpu_mode", pt->size,
				bdir_name[d], NULL, NAN,
				bench_diff_ns(bn, pt->size, BP_CPU, BP_MEMCPY, d), -1, -1);
			csv_repeats(f, bn, pt, d);
			if (bn->link_on)
				csv_row(f, "model", "link", pt->size,
					bdir_name[d], NULL,
					cli_gbps(pt->size,
						 bench_link_ns(bn, pt->size)),
					(double)bench_link_ns(bn, pt->size), -1, -1);
		}
	}
	csv_predict(f, bn);
	for (int i = 0; i < bn->nframes; i++) {
		const struct bframes *fr = &bn->frames[i];

		snprintf(nm, sizeof(nm), "buffers=%d", fr->nbuf);
		csv_row(f, "frames", nm, bn->frame_size, "c2h", NULL,
			fr->fps * (double)bn->frame_size / 1e9, fr->fps,
			(long long)fr->dropped, (long long)fr->corrupt);
	}
	if (bn->npins || bn->first_pin_ns)
		csv_row(f, "pin", "first_pin", bn->g ? (bn->max + 65535) / 65536 * 65536 : 0,
			"", NULL, NAN, (double)bn->first_pin_ns, -1, -1);
	for (int i = 0; i < bn->npins; i++) {
		csv_row(f, "pin", "pin", bn->pins[i].size, "",
			&bn->pins[i].pin, NAN, NAN, -1, -1);
		csv_row(f, "pin", "unpin", bn->pins[i].size, "",
			&bn->pins[i].unpin, NAN, NAN, -1, -1);
	}
	for (int i = 0; i < bn->nsoak; i++) {
		snprintf(nm, sizeof(nm), "sample=%d", i + 1);
		for (int d = 0; d < BD_N; d++)
			csv_row(f, "soak", nm, bn->soak_size, bdir_name[d],
				&bn->soak[i].st[d],
				cli_gbps(bn->soak_size, bn->soak[i].st[d].median_ns),
				bn->soak[i].t_ns / 1e9, -1, -1);
	}
	return bench_close_out(f, path);
}
