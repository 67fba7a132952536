/* SPDX-License-Identifier: MIT */
/*
 * hf_submit.h - GPU Direct submit queues (submit.c).
 */
#ifndef HF_SUBMIT_H
#define HF_SUBMIT_H

struct hellofpga_dev;
struct hf_submitq;

void hf_submit_wake_all(struct hellofpga_dev *dev);
void hf_submit_close(struct hellofpga_dev *dev);

#endif /* HF_SUBMIT_H */
