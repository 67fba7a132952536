// SPDX-License-Identifier: MIT
/*
 * bench_csv.c - --csv FILE: the run as one CSV table.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

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
	fputc('\n', f);
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
	      "max_ns,mean_ns,gbps,value,dropped,corrupt\n", f);
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
			if (bn->link_on)
				csv_row(f, "model", "link", pt->size,
					bdir_name[d], NULL,
					cli_gbps(pt->size,
						 bench_link_ns(bn, pt->size)),
					(double)bench_link_ns(bn, pt->size), -1, -1);
		}
	}
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
