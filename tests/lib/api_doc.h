/* SPDX-License-Identifier: MIT */
/*
 * api_doc.h - the error lists include/hellofpga.h documents, read from the
 * header itself, so tests hold the code to what its documentation says.
 *
 * A function's errors are the "-EXXX" names in the "Return:" part of the
 * comment block above its declaration, plus those of any function that
 * part names as "as HelloFPGA_X()" or "errors of HelloFPGA_X()".  One block
 * may document several declarations that follow it.
 */
#ifndef HF_TEST_API_DOC_H
#define HF_TEST_API_DOC_H

#include <stdbool.h>

#define T_DOC_MAX_ERRS	48

/*
 * The errnos (positive, sorted) documented for @fn into @errs (room for
 * T_DOC_MAX_ERRS); their number, or -1 when the header declares no int
 * function @fn with a Return: part.  Fails the test case when the header
 * cannot be read.
 */
int t_doc_errors(const char *fn, int *errs);
/* Whether @ret is 0, positive, or a negative errno documented for @fn. */
bool t_doc_allows(const char *fn, int ret);
/* The name of the @i-th int function the header declares; NULL past the end. */
const char *t_doc_function(int i);

#endif
