/* SPDX-License-Identifier: MIT */
/*
 * hf_lib.h - every private header of libhellofpga, for the tests (and
 * fakedev) that reach into the library.  The library's own files include
 * the headers they use, one per concern (lib/hf_layers.h lists the files by
 * layer):
 *   hf_dev.h        an open card, the backend ops table
 *   hf_error.h      error texts and codes (error.c)
 *   hf_handle.h     the table of open cards (handle.c)
 *   hf_chanlock.h   waits with a deadline, channel locks (chanlock.c)
 *   hf_user_pages.h callers' buffers (user_pages.c)
 *   hf_stream.h     C2H AXI-Stream rings (stream.c)
 *   hf_submit.h     GPU Direct submit queues (submit.c)
 *   hf_gpudirect.h  GPU Direct pins and transfers (gpudirect.c)
 */
#ifndef HF_LIB_H
#define HF_LIB_H

#include "hf_chanlock.h"
#include "hf_dev.h"
#include "hf_error.h"
#include "hf_gpudirect.h"
#include "hf_handle.h"
#include "hf_stream.h"
#include "hf_submit.h"
#include "hf_user_pages.h"

#endif /* HF_LIB_H */
