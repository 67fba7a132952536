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
