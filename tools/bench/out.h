/* SPDX-License-Identifier: MIT */
/*
 * out.h - the outputs of the bench: the tables on standard output
 * (out_text.c), the JSON (out_json.c) and the files rendered from it,
 * CSV, Markdown and plots (out_render.c runs bench_render.py).
 */
#ifndef HF_BENCH_OUT_H
#define HF_BENCH_OUT_H

#include "bench.h"
#include "opts.h"

void bench_print(const struct bench *bn);
void bench_print_soak(const struct bench *bn);
void bench_print_stream(const struct bench *bn);
void bench_print_gpuwait(const struct bench *bn);
int bench_json(const struct bench *bn, const char *path);
int bench_write_outputs(const struct bench *bn,
			const struct bench_outputs *o);

#endif /* HF_BENCH_OUT_H */
