/* SPDX-License-Identifier: MIT */
/* lib_helpers.h - shared helpers of the library tests. */
#ifndef HF_TEST_LIB_HELPERS_H
#define HF_TEST_LIB_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "hellofpga.h"

/* A fresh HELLOFPGA_EMU_DIR for this process, removed at exit. */
const char *t_emu_dir(void);
/* Open an emulated card; fails the test case on error. */
HELLOFPGA_HANDLE t_open(const char *name);
/* Deterministic pattern: byte i of stream seed. */
void t_fill(void *buf, size_t len, uint32_t seed);
/* Index of the first byte that differs from the pattern, or -1. */
long t_check(const void *buf, size_t len, uint32_t seed);
/* xorshift random numbers */
uint64_t t_rand(uint64_t *state);

#endif
