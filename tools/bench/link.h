/* SPDX-License-Identifier: MIT */
/*
 * link.h - the card's link model and the prediction over it (link.c).
 */
#ifndef HF_BENCH_LINK_H
#define HF_BENCH_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

bool bench_link_of(struct bench *bn);
uint64_t bench_link_ns(const struct bench *bn, uint64_t bytes);
bool bench_predict(const struct bench *bn, const struct bcost_counts *c,
		   struct bcost *out);

#endif /* HF_BENCH_LINK_H */
