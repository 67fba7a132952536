// SPDX-License-Identifier: MIT
/*
 * api_doc.c - the error lists of include/hellofpga.h (see api_doc.h).
 *
 * The header is read once (HF_HEADER_PATH, set by the build) into a table
 * of its int functions; lookups afterwards only read the table, so threads
 * may use them at once.
 */
#include "api_doc.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define T_DOC_MAX_FUNCS	64
#define T_DOC_MAX_REFS	4
#define T_DOC_NAMELEN	64

struct doc_fn {
	char name[T_DOC_NAMELEN];
	int nerr;
	int err[T_DOC_MAX_ERRS];
	int nref;
	char ref[T_DOC_MAX_REFS][T_DOC_NAMELEN];
	bool has_return;
};

static struct doc_fn fns[T_DOC_MAX_FUNCS];
static int nfns;
static bool loaded;
static char load_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static char *read_header(void)
{
	FILE *f = fopen(HF_HEADER_PATH, "r");
	char *text;
	long n;

	if (!f) {
		snprintf(load_error, sizeof(load_error), "cannot open %s",
			 HF_HEADER_PATH);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, n + 1);
	if (!text || fread(text, 1, n, f) != (size_t)n) {
		snprintf(load_error, sizeof(load_error), "cannot read %s",
			 HF_HEADER_PATH);
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* The errno named @name ("EINVAL"), 0 when it names none. */
static int errno_of(const char *name)
{
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return 0;
}

static void add_err(struct doc_fn *f, int e)
{
	for (int i = 0; i < f->nerr; i++)
		if (f->err[i] == e)
			return;
	if (f->nerr < T_DOC_MAX_ERRS)
		f->err[f->nerr++] = e;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The "-EXXX" names and "as / errors of HelloFPGA_X()" of [@p, @end). */
static void scan_return(struct doc_fn *f, const char *p, const char *end)
{
	static const char *const ref_words[] = { "as ", "errors of ", NULL };

	for (; p < end; p++) {
		if (p[0] == '-' && p[1] == 'E' && isupper((unsigned char)p[2])) {
			char name[32];
			size_t n = 0;

			for (const char *q = p + 1; q < end && n < sizeof(name) - 1 &&
			     (isupper((unsigned char)*q) || isdigit((unsigned char)*q)); q++)
				name[n++] = *q;
			name[n] = '\0';
			if (errno_of(name))
				add_err(f, errno_of(name));
			continue;
		}
		for (size_t w = 0; ref_words[w]; w++) {
			size_t wl = strlen(ref_words[w]);
			const char *q = p + wl;
			size_t n = 0;

			if ((size_t)(end - p) <= wl || strncmp(p, ref_words[w], wl) ||
			    strncmp(q, "HelloFPGA_", 10) || f->nref == T_DOC_MAX_REFS)
				continue;
			while (n < T_DOC_NAMELEN - 1 &&
			       (isalnum((unsigned char)q[n]) || q[n] == '_'))
				n++;
			if (q[n] != '(')
				continue;
			memcpy(f->ref[f->nref], q, n);
			f->ref[f->nref][n] = '\0';
			f->nref++;
		}
	}
}

/* Declarations "int HelloFPGA_X(" between @p and @end, documented by @blk. */
static void add_decls(const char *p, const char *end, const char *blk,
		      const char *blk_end)
{
	const char *ret = blk ? strstr(blk, "Return:") : NULL;

	if (ret && ret > blk_end)
		ret = NULL;
	while (p < end && (p = strstr(p, "\nint HelloFPGA_")) && p < end) {
		struct doc_fn *f;
		const char *name = p + 5;
		size_t n = strcspn(name, "(");

		p = name;
		if (nfns == T_DOC_MAX_FUNCS || n >= T_DOC_NAMELEN)
			continue;
		f = &fns[nfns++];
		memcpy(f->name, name, n);
		f->name[n] = '\0';
		if (ret) {
			f->has_return = true;
			scan_return(f, ret, blk_end);
		}
	}
}

/* Resolve "as HelloFPGA_X()" references (one level suffices, twice for chains). */
static void resolve_refs(void)
{
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < nfns; i++) {
			for (int r = 0; r < fns[i].nref; r++) {
				for (int j = 0; j < nfns; j++) {
					if (strcmp(fns[j].name, fns[i].ref[r]))
						continue;
					for (int k = 0; k < fns[j].nerr; k++)
						add_err(&fns[i], fns[j].err[k]);
				}
			}
		}
	}
	for (int i = 0; i < nfns; i++)
		qsort(fns[i].err, fns[i].nerr, sizeof(int), cmp_int);
}

static void load(void)
{
	char *text = read_header();
	const char *p, *blk = NULL, *blk_end = NULL;

	if (!text)
		return;
	p = text;
	for (;;) {
		const char *next = strstr(p, "/**");

		add_decls(p, next ? next : p + strlen(p), blk, blk_end);
		if (!next)
			break;
		blk = next;
		blk_end = strstr(next, "*/");
		if (!blk_end)
			break;
		p = blk_end;
	}
	resolve_refs();
	loaded = true;
	free(text);
}

static const struct doc_fn *find(const char *fn)
{
	pthread_once(&once, load);
	for (int i = 0; i < nfns; i++)
		if (!strcmp(fns[i].name, fn))
			return &fns[i];
	return NULL;
}

int t_doc_errors(const char *fn, int *errs)
{
	const struct doc_fn *f = find(fn);

	HF_CHECK_MSG(loaded, "%s", load_error);
	if (!f || !f->has_return)
		return -1;
	memcpy(errs, f->err, f->nerr * sizeof(int));
	return f->nerr;
}

bool t_doc_allows(const char *fn, int ret)
{
	const struct doc_fn *f = find(fn);

	if (ret >= 0)
		return true;
	if (!f || !f->has_return || ret < -4095)
		return false;
	for (int i = 0; i < f->nerr; i++)
		if (f->err[i] == -ret)
			return true;
	return false;
}

const char *t_doc_function(int i)
{
	pthread_once(&once, load);
	HF_CHECK_MSG(loaded, "%s", load_error);
	return i >= 0 && i < nfns ? fns[i].name : NULL;
}
