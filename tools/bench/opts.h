/* SPDX-License-Identifier: MIT */
/*
 * opts.h - the options of "hellofpga bench" (opts.c).
 */
#ifndef HF_BENCH_OPTS_H
#define HF_BENCH_OPTS_H

#include "bench.h"

/**
 * struct bench_outputs - the files --json, --csv, --markdown, --plot and
 * --plot-dir asked for (NULL: not asked).
 */
struct bench_outputs {
	const char *json;
	const char *csv;
	const char *md;
	const char *plot;
	const char *plotdir;
};

int bench_parse_args(int argc, char **argv, struct bench *bn,
		     struct bench_outputs *o);

#endif /* HF_BENCH_OPTS_H */
