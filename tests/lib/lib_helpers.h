/* SPDX-License-Identifier: MIT */
/* lib_helpers.h - shared helpers of the library tests. */
#ifndef HF_TEST_LIB_HELPERS_H
#define HF_TEST_LIB_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "dma_faults.h"
#include "hellofpga.h"

/* A fresh HELLOFPGA_EMU_DIR for this process, removed at exit. */
const char *t_emu_dir(void);
/*
 * Open an emulated card; fails the test case on error.
 *
 * With HF_TEST_CARD set (e.g. HF_TEST_CARD=/dev/hellofpga0, as the guest
 * tests under QEMU do), an emulated name "emu[:N][,opts]" opens that card
 * instead when the name asks only for what it has, and skips the case
 * ("needs the emulated card's ...") otherwise:
 *   private             required (a shared emulated card's semantics, such as
 *                       its inter-process lock, are the emulator's own)
 *   N                   one card number per process (a second N asks for
 *                       a second card)
 *   h2c=, c2h=          must equal the card's channel counts (default 4)
 *   ddr=SIZE            at most the card's memory (default 2G); the handle
 *                       then sees the first SIZE bytes: the library checks
 *                       card ranges against that size, as on such a card
 *   irq=MODE            must be the card's completion mode
 *   align=N             must be the card's address alignment (default 1)
 *   sync, anything else skip
 */
HELLOFPGA_HANDLE t_open(const char *name);
/* Whether @h is an emulated (in-process) card. */
int t_card_is_emulated(HELLOFPGA_HANDLE h);
/* Skip the case unless @h is an emulated card: "needs the emulated card's @what". */
void t_need_emulated(HELLOFPGA_HANDLE h, const char *what);
/* Deterministic pattern: byte i of stream seed. */
void t_fill(void *buf, size_t len, uint32_t seed);
/* Index of the first byte that differs from the pattern, or -1. */
long t_check(const void *buf, size_t len, uint32_t seed);
/* xorshift random numbers */
uint64_t t_rand(uint64_t *state);
/*
 * A hang fails instead of blocking CI: unless t_watchdog_off() comes
 * first, @seconds from now the process prints "FAIL: ... @what" and
 * exits 1 (SIGALRM; a fork() child inherits no alarm: it arms its own).
 * A bound far above what the work takes on a loaded machine, no timing
 * assertion.
 */
void t_watchdog(unsigned int seconds, const char *what);
void t_watchdog_off(void);

#endif
