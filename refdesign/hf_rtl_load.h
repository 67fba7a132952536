/* SPDX-License-Identifier: GPL-2.0-or-later OR MIT */
/*
 * hf_rtl_load.h - the reference design's RTL as the emulated card's user
 * logic: finds and loads the co-simulation plugin (refdesign/sim/, a
 * Verilator build of refdesign/rtl/), which implements model/xdma_user.h.
 * The card option "rtl" of emu:N and QEMU's xdma-sim,rtl=on use it; nothing
 * links Verilator's C++ unless one of them asks.
 */
#ifndef HF_RTL_LOAD_H
#define HF_RTL_LOAD_H

#include <stddef.h>

#include "xdma_user.h"

#define HF_RTL_PLUGIN_FILE	"libhf_refdesign_rtl.so"
#define HF_RTL_PLUGIN_ENV	"HF_RTL_PLUGIN"

/**
 * struct hf_rtl_plugin - a loaded plugin.
 * @dl: its dlopen() handle
 * @ops: its user logic (for xdma_model_config.user)
 * @about: what it was built from, for messages
 */
struct hf_rtl_plugin {
	void *dl;
	const struct xdma_user_ops *ops;
	const char *about;
};

/**
 * hf_rtl_load() - find and load the RTL co-simulation plugin.
 * @p: filled on success
 * @err: a message on failure (what was tried, how to get the plugin)
 * @errlen: its size
 *
 * Looks in $HF_RTL_PLUGIN (a file), else beside the object that holds this
 * code (DIR/hellofpga/ for libhellofpga.so in the build tree's lib/,
 * DIR/../lib/hellofpga/ for a program linked statically in its bin/), else
 * in HF_RTL_PLUGIN_DIR ($libdir/hellofpga of the installation).
 *
 * Return: 0; -ENOENT when no plugin is found (built without Verilator),
 * -ENOEXEC when one is found but cannot be loaded, is not a user-logic
 * plugin or was built for another XDMA_USER_PLUGIN_ABI.
 */
int hf_rtl_load(struct hf_rtl_plugin *p, char *err, size_t errlen);

/* hf_rtl_unload() - let go of @p (no card may use its ops any more). */
void hf_rtl_unload(struct hf_rtl_plugin *p);

#endif /* HF_RTL_LOAD_H */
