/* SPDX-License-Identifier: MIT */
/*
 * xfer.h - one transfer of a path, timed, and the data check (xfer.c).
 */
#ifndef HF_BENCH_XFER_H
#define HF_BENCH_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

void bench_fill_pattern(uint8_t *p, size_t n, uint32_t seed);
int bench_lib_fail(struct bench *bn, int ret, const char *what, size_t len);
int bench_gpu_fail(const char *what);
int bench_op(struct bench *bn, enum bpath p, int d, size_t len);
int bench_timed(struct bench *bn, enum bpath p, int d, size_t len,
		uint64_t *ns);
int bench_verify(struct bench *bn, size_t len, bool *ok);

#endif /* HF_BENCH_XFER_H */
