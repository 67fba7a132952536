/* SPDX-License-Identifier: MIT */
/*
 * hf_handle.h - the table of open cards (handle.c): a generation-checked
 * handle per card, references of the calls in progress, Close.
 */
#ifndef HF_HANDLE_H
#define HF_HANDLE_H

#include "hellofpga.h"

struct hellofpga_dev;

int hf_dev_register(struct hellofpga_dev *dev, HELLOFPGA_HANDLE *out);
int hf_dev_ref(HELLOFPGA_HANDLE h, struct hellofpga_dev **out);
int hf_dev_get(HELLOFPGA_HANDLE h, const char *fn, struct hellofpga_dev **out);
void hf_dev_put(struct hellofpga_dev *dev);
int hf_dev_unregister(HELLOFPGA_HANDLE h, struct hellofpga_dev **out,
		      void (*wake)(struct hellofpga_dev *dev));
int hf_dev_wake_fd(struct hellofpga_dev *dev);

/* hf_dev_put(@dev), then @ret: the end of a public call */
static inline int hf_dev_put_ret(struct hellofpga_dev *dev, int ret)
{
	hf_dev_put(dev);
	return ret;
}

#endif /* HF_HANDLE_H */
