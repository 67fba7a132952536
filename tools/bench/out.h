/* SPDX-License-Identifier: MIT */
/*
 * out.h - the outputs of the bench, one file each: the tables on standard
 * output (out_text.c), --json (out_json.c), --csv (out_csv.c),
 * --markdown (out_md.c), --plot and --plot-dir (out_plot.c).
 */
#ifndef HF_BENCH_OUT_H
#define HF_BENCH_OUT_H

#include <stdio.h>

#include "bench.h"

void bench_print(const struct bench *bn);
void bench_print_soak(const struct bench *bn);
void bench_print_stream(const struct bench *bn);
void bench_print_gpuwait(const struct bench *bn);
/* the environment, a line each, every line after @pre ("# ", "- ") */
void bench_print_env(const struct bench *bn, FILE *f, const char *pre);
int bench_json(const struct bench *bn, const char *path);
int bench_csv(const struct bench *bn, const char *path);
int bench_markdown(const struct bench *bn, const char *path);
int bench_plots(const struct bench *bn, const char *dir, const char *png);

#endif /* HF_BENCH_OUT_H */
