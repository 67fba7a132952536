// SPDX-License-Identifier: MIT
/*
 * rtl_pattern.c - the frame format of refdesign/hf_stream_pattern.h, the
 * header itself (not a copy), for the RTL testbenches (rtl_pattern.h).
 */
#include "rtl_pattern.h"

#include <stdlib.h>

#include "hf_os.h"
#include "hf_stream_pattern.h"

struct rtl_check {
	struct hf_stream_check chk;
};

void rtl_fill(void *buf, uint64_t seq, uint32_t len, uint32_t off, uint32_t n)
{
	hf_stream_fill(buf, seq, len, off, n);
}

uint32_t rtl_rec_len(uint64_t seq, uint32_t min, uint32_t max)
{
	return hf_stream_rec_len(seq, min, max);
}

struct rtl_check *rtl_check_new(void)
{
	struct rtl_check *c = calloc(1, sizeof(*c));

	if (c)
		hf_stream_check_init(&c->chk);
	return c;
}

void rtl_check_free(struct rtl_check *c)
{
	free(c);
}

void rtl_check_feed(struct rtl_check *c, const void *buf, uint32_t n)
{
	hf_stream_check_feed(&c->chk, buf, n);
}

bool rtl_check_end(struct rtl_check *c, uint64_t *seq)
{
	return hf_stream_check_end(&c->chk, seq);
}

uint32_t rtl_check_got(const struct rtl_check *c)
{
	return c->chk.got;
}
