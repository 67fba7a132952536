/* SPDX-License-Identifier: MIT */
/*
 * hf_test.h - the library's test hooks, in test_hooks.c and emu/emu_test.c:
 * linked into the tests (the hellofpga_test library), never into the
 * installed libhellofpga.so or libhellofpga.a.
 */
#ifndef HF_TEST_H
#define HF_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/backend_emu.h"
#include "hellofpga.h"

struct hf_emu_host_stats;
struct xdma_model;
struct xdma_user_ops;

/* inject model faults, XDMA_FAULT_*;
 * a hang of every engine for @ns (0 ends it) */
int hf_emu_test_inject(HELLOFPGA_HANDLE h, uint32_t faults);
int hf_emu_test_inject_hang(HELLOFPGA_HANDLE h, uint64_t ns);

/* -EOPNOTSUPP unless an emulated card */
int hf_emu_test_host_stats(HELLOFPGA_HANDLE h, struct hf_emu_host_stats *st);
int hf_emu_test_pin_info(HELLOFPGA_HANDLE h, HELLOFPGA_GPU_HANDLE handle,
			 struct hf_emu_pin_info *info);
/* map later pins as regions (the real-GPU path) even on a CPU-addressable
 * GPU, so CI exercises it */
int hf_emu_test_force_region(HELLOFPGA_HANDLE h, bool on);
/* the card model behind an emulated card, for register-level tests (NULL
 * unless an emulated card) */
struct xdma_model *hf_emu_test_model(HELLOFPGA_HANDLE h);
/* the library's range checks see only the first @ddr bytes of the card
 * (any backend) */
int hf_test_limit_ddr(HELLOFPGA_HANDLE h, uint64_t ddr);
/*
 * make the per-user state directories of emulated cards in @dir instead of
 * /dev/shm (NULL: the default again), so tests leave the real ones alone
 */
void hf_emu_test_state_base(const char *dir);
/*
 * the user logic (model/xdma_user.h) of the emulated cards opened next: a
 * design other than the reference design (NULL: the reference design)
 */
void hf_emu_test_user_logic(const struct xdma_user_ops *ops);
/*
 * check callers' buffers with MADV_POPULATE_* rather than PROCMAP_QUERY;
 * returns whether that works on this kernel
 */
bool hf_test_probe_populate(bool on);

#endif
