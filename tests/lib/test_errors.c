// SPDX-License-Identifier: MIT
/*
 * test_errors.c - error codes and their texts: HelloFPGA_StrError() for
 * every int, and the error lists include/hellofpga.h documents.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "harness.h"
#include "lib_helpers.h"

/* -INT_MIN does not exist: StrError must not negate its argument. */
HF_TEST(strerror_of_int_min_is_defined)
{
	const char *s = HelloFPGA_StrError(INT_MIN);

	HF_CHECK(s && s[0]);
	HF_CHECK(strcmp(s, HelloFPGA_StrError(0)));
}

/*
 * Every errno of Linux up to EHWPOISON (133) is named, with glibc's name
 * for it; the two numbers below 133 that no errno has (41, 58 on the
 * asm-generic table) say so.
 */
HF_TEST(strerror_names_every_errno_1_to_133)
{
	for (int e = 1; e <= 133; e++) {
		const char *name = strerrorname_np(e);
		const char *s = HelloFPGA_StrError(-e);
		size_t n;

		HF_CHECK_MSG(s && s[0], "errno %d: no text", e);
		if (!name) {
			HF_CHECK_MSG(strstr(s, "no errno of Linux"),
				     "%d is no errno, but StrError says '%s'",
				     e, s);
			continue;
		}
		n = strlen(name);
		HF_CHECK_MSG(!strncmp(s, name, n) && s[n] == ':' &&
			     s[n + 1] == ' ' && s[n + 2],
			     "errno %d (%s): StrError says '%s'", e, name, s);
	}
}

/* The edges of int each get a text of their own, never a guess. */
HF_TEST(strerror_of_int_limits_zero_and_positive_is_specific)
{
	HF_CHECK(!strcmp(HelloFPGA_StrError(0), "success"));
	HF_CHECK(strstr(HelloFPGA_StrError(1), "positive"));
	HF_CHECK(strstr(HelloFPGA_StrError(INT_MAX), "positive"));
	HF_CHECK(strstr(HelloFPGA_StrError(INT_MIN), "not an error code"));
	HF_CHECK(strstr(HelloFPGA_StrError(-4096), "not an error code"));
	HF_CHECK(strstr(HelloFPGA_StrError(-4095), "no errno of Linux"));
	HF_CHECK(strstr(HelloFPGA_StrError(-134), "no errno of Linux"));
}
