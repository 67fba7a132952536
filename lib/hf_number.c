// SPDX-License-Identifier: MIT
/*
 * hf_number.c - the one number grammar (README.md, "Numbers"):
 *
 *	number = "0" | [1-9][0-9]* | "0x" [0-9a-fA-F]+
 *	size   = number [ "K" | "M" | "G" | "T" ]	(x 2^10, 2^20, 2^30, 2^40)
 *
 * The whole text is the number: no sign, no space, no other suffix.  A
 * decimal number has no leading zero (so "010" is neither 10 nor octal 8);
 * a value past 2^64 - 1, before or after the suffix, is refused.
 */
#include "hf_number.h"

#include <errno.h>
#include <stdbool.h>

static int digit_value(char c, bool hex)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (hex && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (hex && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned int suffix_shift(char c)
{
	switch (c) {
	case 'K':
		return 10;
	case 'M':
		return 20;
	case 'G':
		return 30;
	case 'T':
		return 40;
	default:
		return 0;
	}
}

/**
 * hf_parse_number() - a number of the one grammar.
 * @s: the text, all of it the number
 * @flags: HF_NUM_SIZE where a size in bytes is meant (a suffix allowed)
 * @max: the largest value the caller takes
 * @out: receives the value; untouched on failure
 *
 * Return: 0, -EINVAL when @s is not a number of the grammar (NULL, empty,
 * a sign, a space, a leading zero, a suffix where none is allowed, any
 * other character), -ERANGE when it is one but above @max or above
 * 2^64 - 1.
 */
int hf_parse_number(const char *s, unsigned int flags, uint64_t max,
		    uint64_t *out)
{
	bool hex, overflow = false;
	unsigned int base, shift = 0;
	const char *p;
	uint64_t v = 0;
	int d;

	if (!s || !*s)
		return -EINVAL;
	hex = s[0] == '0' && s[1] == 'x';
	base = hex ? 16 : 10;
	p = hex ? s + 2 : s;
	if (digit_value(*p, hex) < 0)
		return -EINVAL;			/* "", "0x", "-1", " 1", "K" */
	if (!hex && p[0] == '0' && digit_value(p[1], false) >= 0)
		return -EINVAL;			/* "010": a leading zero */
	for (; (d = digit_value(*p, hex)) >= 0; p++) {
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (*p && (flags & HF_NUM_SIZE)) {
		shift = suffix_shift(*p);
		if (shift)
			p++;
	}
	if (*p)
		return -EINVAL;
	if (overflow || (shift && v > UINT64_MAX >> shift))
		return -ERANGE;
	v <<= shift;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
