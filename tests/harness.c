// SPDX-License-Identifier: MIT
/*
 * harness.c - main() of every test program: case registry, selection,
 * failure reporting (see harness.h).
 */
#include "harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>

#define HF_MAX_TESTS 512
#define HF_MAX_HOOKS 4

struct hf_case {
	const char *name;
	hf_test_fn fn;
	hf_test_row_fn row_fn;
	const void *row;
};

static struct hf_case cases[HF_MAX_TESTS];
static int ncases;
static hf_test_fn hooks_before[HF_MAX_HOOKS], hooks_after[HF_MAX_HOOKS];
static int nhooks;
static jmp_buf case_env;
static const char *current;

void hf_test_register(const char *name, hf_test_fn fn)
{
	if (ncases == HF_MAX_TESTS) {
		fprintf(stderr, "harness: too many test cases\n");
		exit(2);
	}
	cases[ncases].name = name;
	cases[ncases].fn = fn;
	ncases++;
}

void hf_test_register_row(const char *prefix, const char *name,
			  hf_test_row_fn fn, const void *row)
{
	size_t n = strlen(prefix) + strlen(name) + 2;
	char *full = malloc(n);

	if (!full || ncases == HF_MAX_TESTS) {
		fprintf(stderr, "harness: too many test cases\n");
		exit(2);
	}
	snprintf(full, n, "%s_%s", prefix, name);
	cases[ncases].name = full;
	cases[ncases].row_fn = fn;
	cases[ncases].row = row;
	ncases++;
}

void hf_test_add_hooks(hf_test_fn before, hf_test_fn after)
{
	if (nhooks == HF_MAX_HOOKS) {
		fprintf(stderr, "harness: too many hooks\n");
		exit(2);
	}
	hooks_before[nhooks] = before;
	hooks_after[nhooks] = after;
	nhooks++;
}

/* "@tag CASE: [@file:@line: ]MESSAGE" on stderr */
static void report(const char *tag, const char *file, int line,
		   const char *fmt, va_list ap)
{
	fprintf(stderr, "%s %s: ", tag, current);
	if (file)
		fprintf(stderr, "%s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void hf_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("FAIL", file, line, fmt, ap);
	va_end(ap);
	longjmp(case_env, 1);
}

void hf_test_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("SKIP", NULL, 0, fmt, ap);
	va_end(ap);
	longjmp(case_env, 2);
}

void hf_test_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("    ", NULL, 0, fmt, ap);
	va_end(ap);
}

/* 0 pass, 1 fail, 2 skip */
static int run_case(const struct hf_case *c)
{
	int r;

	current = c->name;
	r = setjmp(case_env);
	if (r == 0) {
		for (int i = 0; i < nhooks; i++)
			if (hooks_before[i])
				hooks_before[i]();
		if (c->row_fn)
			c->row_fn(c->row);
		else
			c->fn();
		for (int i = 0; i < nhooks; i++)
			if (hooks_after[i])
				hooks_after[i]();
		fprintf(stderr, "PASS %s\n", c->name);
	}
	fflush(stderr);
	return r;
}

static const struct hf_case *find_case(const char *name)
{
	for (int i = 0; i < ncases; i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (int i = 0; i < ncases; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			const struct hf_case *c = find_case(argv[i]);
			int r;

			if (!c) {
				fprintf(stderr, "no test case '%s'\n", argv[i]);
				return 2;
			}
			r = run_case(c);
			passed += r == 0;
			failed += r == 1;
			skipped += r == 2;
		}
	} else {
		for (int i = 0; i < ncases; i++) {
			int r = run_case(&cases[i]);

			passed += r == 0;
			failed += r == 1;
			skipped += r == 2;
		}
	}
	fprintf(stderr, "%s: %d passed, %d failed, %d skipped\n", argv[0],
		passed, failed, skipped);
	if (failed)
		return 1;
	if (skipped && !passed)
		return 77;
	return 0;
}
