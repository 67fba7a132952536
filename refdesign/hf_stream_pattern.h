/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_stream_pattern.h - the frame format of the reference design's AXI-Stream
 * source and sink (docs/xdma-model.md, "AXI-Stream frames"): what the
 * emulated card's C2H stream source sends and its H2C stream sink checks, and
 * what the library, the CLI and the tests fill and verify.
 *
 * A frame (one AXI-Stream packet, ended by TLAST) of len bytes, len at least
 * HF_STREAM_HDR_SIZE:
 *   bytes  0..7   sequence number, little endian
 *   bytes  8..11  len, little endian
 *   bytes 12..15  HF_STREAM_MAGIC, little endian ("HFST")
 *   byte  o >= 16 byte (o % 4) (little endian) of hf_stream_word(seq, o / 4)
 * The pattern depends on the sequence number and the offset, so a frame that
 * is shifted, cut, mixed with another or stale fails the check.
 *
 * Header only, no allocation, kernel style: usable in the kernel and in user
 * space (types from hf_os.h).
 */
#ifndef HF_STREAM_PATTERN_H
#define HF_STREAM_PATTERN_H

#include "hf_os.h"

#define HF_STREAM_HDR_SIZE		16
#define HF_STREAM_MAGIC			0x54534648u	/* "HFST" */
#define HF_STREAM_MIN_LEN		HF_STREAM_HDR_SIZE
#define HF_STREAM_MAX_LEN		0x0fffffffu	/* a descriptor's 28 bits */

/* Bit mixer of the pattern (a 32-bit integer hash). */
static inline u32 hf_stream_mix(u32 x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/**
 * hf_stream_word() - pattern word @idx of the frame with sequence @seq.
 * @seq: sequence number
 * @idx: word index: bytes [4 * @idx, 4 * @idx + 4) of the frame (>= 4)
 *
 * Return: the word; its bytes go into the frame little endian.
 */
static inline u32 hf_stream_word(u64 seq, u32 idx)
{
	return hf_stream_mix(idx * 0x9e3779b1u ^ (u32)seq * 0x85ebca77u ^
			     (u32)(seq >> 32) * 0xc2b2ae3du);
}

/**
 * hf_stream_rec_len() - the length of record @seq of a varying-length source.
 * @seq: sequence number
 * @min: shortest record (at least HF_STREAM_MIN_LEN)
 * @max: longest record; @max below @min means @min
 *
 * The hash is scaled into the range by a multiply-high (the upper 32 bits
 * of hash * range), not by a modulo: what the RTL source computes in a
 * pipelined multiplier per record (refdesign/rtl/hf_st_src.sv), where a
 * division by a run-time range would take a cycle per bit.
 *
 * Return: a length in [@min, @max], a deterministic function of @seq.
 */
static inline u32 hf_stream_rec_len(u64 seq, u32 min, u32 max)
{
	u32 h;

	if (max <= min)
		return min;
	h = hf_stream_mix((u32)seq ^ hf_stream_mix((u32)(seq >> 32) ^
						   0x5bd1e995u));
	return min + (u32)(((u64)h * ((u64)max - min + 1)) >> 32);
}

/* Byte @off (any offset below @len) of frame (@seq, @len). */
static inline u8 hf_stream_byte(u64 seq, u32 len, u32 off)
{
	u32 w;

	if (off < 8)
		return (u8)(seq >> (8 * off));
	if (off < 12)
		w = len;
	else if (off < HF_STREAM_HDR_SIZE)
		w = HF_STREAM_MAGIC;
	else
		w = hf_stream_word(seq, off / 4);
	return (u8)(w >> (8 * (off % 4)));
}

/**
 * hf_stream_fill() - bytes [@off, @off + @n) of frame (@seq, @len).
 * @buf: where they go (@n bytes)
 * @seq: sequence number
 * @len: frame length
 * @off: first byte; @off + @n must not exceed @len
 * @n: bytes
 *
 * A frame may be filled in pieces of any size and alignment.
 */
static inline void hf_stream_fill(void *buf, u64 seq, u32 len, u32 off, u32 n)
{
	u8 *p = buf;
	u32 w;

	while (n && (off < HF_STREAM_HDR_SIZE || off % 4)) {
		*p++ = hf_stream_byte(seq, len, off++);
		n--;
	}
	for (; n >= 4; n -= 4, off += 4, p += 4) {
		w = hf_stream_word(seq, off / 4);
		p[0] = (u8)w;
		p[1] = (u8)(w >> 8);
		p[2] = (u8)(w >> 16);
		p[3] = (u8)(w >> 24);
	}
	while (n--)
		*p++ = hf_stream_byte(seq, len, off++);
}

/**
 * struct hf_stream_check - checks a frame that arrives in pieces.
 * @hdr: the header bytes received so far
 * @seq: the header's sequence number (once @got >= HF_STREAM_HDR_SIZE)
 * @len: the header's length
 * @got: bytes of the frame received so far
 * @bad: something did not match
 */
struct hf_stream_check {
	u8 hdr[HF_STREAM_HDR_SIZE];
	u64 seq;
	u32 len;
	u32 got;
	bool bad;
};

static inline void hf_stream_check_init(struct hf_stream_check *c)
{
	c->seq = 0;
	c->len = 0;
	c->got = 0;
	c->bad = false;
}

static inline u32 hf_stream_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/**
 * hf_stream_check_feed() - the next @n bytes of the frame in progress.
 * @c: the check
 * @buf: the bytes
 * @n: how many
 */
static inline void hf_stream_check_feed(struct hf_stream_check *c,
					const void *buf, u32 n)
{
	const u8 *p = buf;

	while (n && c->got < HF_STREAM_HDR_SIZE) {
		c->hdr[c->got++] = *p++;
		n--;
		if (c->got < HF_STREAM_HDR_SIZE)
			continue;
		c->seq = (u64)hf_stream_le32(c->hdr) |
			 (u64)hf_stream_le32(c->hdr + 4) << 32;
		c->len = hf_stream_le32(c->hdr + 8);
		if (hf_stream_le32(c->hdr + 12) != HF_STREAM_MAGIC ||
		    c->len < HF_STREAM_MIN_LEN)
			c->bad = true;
	}
	if (!n || c->bad)
		goto count;
	if (n > c->len - c->got || c->got + n < c->got) {
		c->bad = true;	/* longer than its header says */
		goto count;
	}
	while (n && c->got % 4) {
		if (*p++ != hf_stream_byte(c->seq, c->len, c->got++))
			c->bad = true;
		n--;
	}
	for (; n >= 4 && !c->bad; n -= 4, p += 4, c->got += 4)
		if (hf_stream_le32(p) != hf_stream_word(c->seq, c->got / 4))
			c->bad = true;
	while (n && !c->bad) {
		if (*p++ != hf_stream_byte(c->seq, c->len, c->got++))
			c->bad = true;
		n--;
	}
count:
	c->got += n;
}

/**
 * hf_stream_check_end() - the frame in progress ended (TLAST).
 * @c: the check; ready for the next frame afterwards
 * @seq: the frame's sequence number, when it is good (may be NULL)
 *
 * Return: true when the frame was good: a header with the magic, as long as
 * the header says, every pattern byte right.
 */
static inline bool hf_stream_check_end(struct hf_stream_check *c, u64 *seq)
{
	bool ok = !c->bad && c->got >= HF_STREAM_HDR_SIZE && c->got == c->len;

	if (ok && seq)
		*seq = c->seq;
	hf_stream_check_init(c);
	return ok;
}

/**
 * hf_stream_verify() - check one whole frame.
 * @buf: the frame
 * @n: its length as received
 * @seq: its sequence number, when it is good (may be NULL)
 *
 * Return: 0 when it is good, -EBADMSG when not.
 */
static inline int hf_stream_verify(const void *buf, u32 n, u64 *seq)
{
	struct hf_stream_check c;

	hf_stream_check_init(&c);
	hf_stream_check_feed(&c, buf, n);
	return hf_stream_check_end(&c, seq) ? 0 : -EBADMSG;
}

#endif /* HF_STREAM_PATTERN_H */
