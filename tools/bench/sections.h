/* SPDX-License-Identifier: MIT */
/*
 * sections.h - the sections of the bench, each filling in its part of the
 * run (main.c runs them): sweep.c (the sweep, the counts of the
 * prediction, the soak), frames.c (frame rate, pin), stream.c (an
 * AXI-Stream card's ring), gpuwait.c (GPU-side completion).
 */
#ifndef HF_BENCH_SECTIONS_H
#define HF_BENCH_SECTIONS_H

#include <stdbool.h>

#include "bench.h"

/* the card's frame slots of the frame-rate section, from --address */
#define BENCH_FRAME_SLOTS	4

void bench_order_init(struct bench *bn);
int bench_run_sweep(struct bench *bn);
int bench_count_transfers(struct bench *bn);
int bench_run_soak(struct bench *bn);
int bench_run_frames(struct bench *bn);
int bench_run_pin(struct bench *bn);
int bench_run_stream(struct bench *bn, bool gpu);
int bench_run_gpuwait(struct bench *bn);

#endif /* HF_BENCH_SECTIONS_H */
