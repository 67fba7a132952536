/* SPDX-License-Identifier: MIT */
/*
 * backend_emu.h - what the emulated backend (backend_emu.c, its pins in
 * backend_emu_pin.c) shows the rest of lib/emu/: its test hooks
 * (emu_test.c) see a card and its pins here.
 */
#ifndef HF_BACKEND_EMU_H
#define HF_BACKEND_EMU_H

#include <stdbool.h>
#include <stdint.h>

struct emu_card;
struct hellofpga_dev;
struct hf_emu_host;
struct hf_pin;
struct xdma_user_ops;

/**
 * struct hf_emu_pin_info - what a test may see of an emulated card's pin.
 * @nseg: bus segments (IOMMU mappings) of the pin
 * @region: mapped as one region through the GPU copy engine
 * @desc_cpu: descriptor storage of the pin's chains (never moves)
 * @builds: descriptor chain builds since the pin (at pin time: one per
 *	direction and channel)
 */
struct hf_emu_pin_info {
	uint32_t nseg;
	bool region;
	const void *desc_cpu;
	uint64_t builds;
};

/* where the per-user state directories are made (NULL: the default) */
extern const char *hf_emu_state_base;
/* the user logic of the cards opened next (NULL: the reference design) */
extern const struct xdma_user_ops *hf_emu_user_logic;

struct emu_card *hf_emu_card_of(struct hellofpga_dev *dev);
struct hf_emu_host *hf_emu_card_host(struct emu_card *card);
void hf_emu_card_force_region(struct emu_card *card, bool on);
int hf_emu_pin_info(struct hf_pin *pin, struct hf_emu_pin_info *info);

#endif
