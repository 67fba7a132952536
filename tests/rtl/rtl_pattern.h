/* SPDX-License-Identifier: MIT */
/*
 * rtl_pattern.h - refdesign/hf_stream_pattern.h for the C++ testbenches of
 * the RTL: the header is kernel-style C (hf_os.h), so rtl_pattern.c compiles
 * it as C and exports its functions under these names.
 */
#ifndef HF_RTL_PATTERN_H
#define HF_RTL_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* hf_stream_fill() */
void rtl_fill(void *buf, uint64_t seq, uint32_t len, uint32_t off, uint32_t n);
/* hf_stream_rec_len() */
uint32_t rtl_rec_len(uint64_t seq, uint32_t min, uint32_t max);

/* struct hf_stream_check, opaque: hf_stream_check_feed() and _end() */
struct rtl_check;
struct rtl_check *rtl_check_new(void);
void rtl_check_free(struct rtl_check *c);
void rtl_check_feed(struct rtl_check *c, const void *buf, uint32_t n);
/* the frame ended: true when good, its sequence number in *seq */
bool rtl_check_end(struct rtl_check *c, uint64_t *seq);
/* bytes of the frame in progress (the sink's PARTIAL) */
uint32_t rtl_check_got(const struct rtl_check *c);

#ifdef __cplusplus
}
#endif

#endif /* HF_RTL_PATTERN_H */
