/* SPDX-License-Identifier: MIT */
/*
 * hf_number.h - the one number parser of libhellofpga and its tools: the
 * numbers of card names ("emu:N,h2c=N,ddr=SIZE,..."), of the HELLOFPGA_*
 * environment variables and of the hellofpga command line.  The grammar is
 * README.md's "Numbers".
 */
#ifndef HF_NUMBER_H
#define HF_NUMBER_H

#include <stdint.h>

/* A size in bytes is meant: a binary K, M, G or T suffix may follow. */
#define HF_NUM_SIZE	1u

int hf_parse_number(const char *s, unsigned int flags, uint64_t max,
		    uint64_t *out);

#endif /* HF_NUMBER_H */
