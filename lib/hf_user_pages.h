/* SPDX-License-Identifier: MIT */
/*
 * hf_user_pages.h - is a caller's buffer there? (user_pages.c)
 */
#ifndef HF_USER_PAGES_H
#define HF_USER_PAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "xdma_engine.h"

struct hellofpga_dev;

int hf_user_buf_check(struct hellofpga_dev *dev, enum hf_xdma_dir dir, void *buf,
		      size_t len);
extern bool hf_probe_no_query;
bool hf_populate_supported(void);

#endif /* HF_USER_PAGES_H */
