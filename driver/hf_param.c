// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters of hellofpga.ko (modinfo hellofpga), read by every
 * layer of the driver: a file of their own at the bottom, so none of those
 * files imports the one that loads the module.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "hf_drv.h"

bool hf_poll_mode;
module_param_named(poll_mode, hf_poll_mode, bool, 0444);
MODULE_PARM_DESC(poll_mode,
		 "Complete transfers by poll-mode writeback instead of interrupts (default: no)");

char *hf_irq_mode = "auto";
module_param_named(irq_mode, hf_irq_mode, charp, 0444);
MODULE_PARM_DESC(irq_mode,
		 "Interrupts: auto (MSI-X, then MSI, then legacy), msix, msi or legacy (default: auto)");

unsigned int hf_timeout_ms = 5000;
module_param_named(timeout_ms, hf_timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "Engine timeout of one run in ms, XFER may ask another; the engine is stopped after it (default: 5000)");

unsigned long long hf_ddr_size = HF_DDR_SIZE_AUTO;
module_param_named(ddr_size, hf_ddr_size, ullong, 0444);
MODULE_PARM_DESC(ddr_size,
		 "Card memory size in bytes, the bound of card addresses, for every card; 0: unbounded (default: each card's own, from the reference design's user BAR register DDR_SIZE_MB, else 2 GiB)");

unsigned int hf_pin_limit_mb;
module_param_named(pin_limit_mb, hf_pin_limit_mb, uint, 0444);
MODULE_PARM_DESC(pin_limit_mb,
		 "Most MiB pinned per card by PIN; 0: half of system RAM (default: 0)");

unsigned int hf_stop_wait_ms = 2000;
module_param_named(stop_wait_ms, hf_stop_wait_ms, uint, 0444);
MODULE_PARM_DESC(stop_wait_ms,
		 "Longest wait, in ms, for a stopped engine to finish the descriptor in progress (bounded first by that descriptor's time at the link's speed); an engine still busy after it is wedged: its memory stays allocated and its channel refuses transfers until it is idle (default: 2000)");

unsigned int hf_max_pins = 4096;
module_param_named(max_pins, hf_max_pins, uint, 0444);
MODULE_PARM_DESC(max_pins,
		 "Most pins one open file may hold (default: 4096)");

char *hf_ids;
module_param_named(ids, hf_ids, charp, 0444);
MODULE_PARM_DESC(ids,
		 "More PCI IDs to bind, \"vendor:device[,vendor:device...]\" in hex");
