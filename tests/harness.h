/* SPDX-License-Identifier: MIT */
/*
 * harness.h - a tiny test harness: one behaviour per test case.
 *
 *	HF_TEST(w1c_clears_only_written_bits) {
 *		HF_CHECK_EQ(read(...), 0x5);
 *	}
 *
 * Every test program links tests/harness.c, which provides main():
 *	prog            run every case
 *	prog NAME...    run the named cases
 *	prog --list     print the case names (CTest discovers cases with it)
 * A failed check ends its case; HF_SKIP() ends it as skipped (exit 77 when
 * it is the only case run, which CTest reports as skipped).  Hooks
 * (hf_test_add_hooks()) run around every case.
 */
#ifndef HF_TEST_HARNESS_H
#define HF_TEST_HARNESS_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*hf_test_fn)(void);
typedef void (*hf_test_row_fn)(const void *row);

void hf_test_register(const char *name, hf_test_fn fn);
void hf_test_register_row(const char *prefix, const char *name,
			  hf_test_row_fn fn, const void *row);
/*
 * @before runs before every case, @after after every case body that did not
 * fail or skip; a check failing in @after fails the case (tests/dma_faults.c
 * checks the emulated card's DMA faults this way).
 */
void hf_test_add_hooks(hf_test_fn before, hf_test_fn after);
void hf_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void hf_test_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void hf_test_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define HF_TEST(name)							\
	static void name(void);						\
	__attribute__((constructor)) static void hf_reg_##name(void)	\
	{								\
		hf_test_register(#name, name);				\
	}								\
	static void name(void)

/*
 * HF_TEST_ROWS(prefix, rows, fn): a table of variants, one case
 * "prefix_NAME" per element of the array @rows (a struct whose member
 * @name is the variant's name); @fn(const void *row) runs one.
 */
#define HF_TEST_ROWS(prefix, rows, fn)					\
	__attribute__((constructor)) static void hf_reg_rows_##prefix(void) \
	{								\
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) \
			hf_test_register_row(#prefix, rows[i].name, fn,	\
					     &rows[i]);			\
	}

#define HF_CHECK(cond)							\
	do {								\
		if (!(cond))						\
			hf_test_fail(__FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define HF_CHECK_MSG(cond, ...)						\
	do {								\
		if (!(cond))						\
			hf_test_fail(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

#define HF_CHECK_EQ(a, b)						\
	do {								\
		uint64_t hf_a_ = (uint64_t)(a), hf_b_ = (uint64_t)(b);	\
		if (hf_a_ != hf_b_)					\
			hf_test_fail(__FILE__, __LINE__,		\
				     "%s == %s: 0x%" PRIx64 " != 0x%" PRIx64, \
				     #a, #b, hf_a_, hf_b_);		\
	} while (0)

#define HF_CHECK_ERR(expr, err)						\
	do {								\
		long hf_r_ = (long)(expr);				\
		if (hf_r_ != (long)(err))				\
			hf_test_fail(__FILE__, __LINE__,		\
				     "%s returned %ld, expected %s (%ld)", \
				     #expr, hf_r_, #err, (long)(err));	\
	} while (0)

#define HF_SKIP(...) hf_test_skip(__VA_ARGS__)

#endif /* HF_TEST_HARNESS_H */
