// SPDX-License-Identifier: MIT
/*
 * json.c - the one JSON writer of the tool (json.h: --json of doctor,
 * stream, bench and test): a stream of objects, arrays and keyed values,
 * commas and quoting done here.  Members of the outer levels go on lines
 * of their own, deeper ones on one line, so a file reads as a list of
 * records.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

/* levels below this one are written on one line */
#define CLI_JSON_INLINE	3

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* The separator and @key of a new member of the current level. */
static void member(struct cli_json *j, const char *key)
{
	int d = j->depth;

	if (d > 0 && j->count[d - 1]++)
		fputc(',', j->f);
	if (d > 0 && d < CLI_JSON_INLINE)
		fprintf(j->f, "\n%*s", 2 * d, "");
	else if (d > 0 && j->count[d - 1] > 1)
		fputc(' ', j->f);
	if (key) {
		json_str(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_level(struct cli_json *j, const char *key, char open,
		       char close)
{
	member(j, key);
	fputc(open, j->f);
	if (j->depth < CLI_JSON_MAX_DEPTH) {
		j->close[j->depth] = close;
		j->count[j->depth] = 0;
		j->depth++;
	}
}

/**
 * cli_json_open() - create @path ("-": standard output) and start its
 * top-level object.
 * Return: 0, or -1 after reporting.
 */
int cli_json_open(struct cli_json *j, const char *path)
{
	memset(j, 0, sizeof(*j));
	j->path = path;
	j->f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!j->f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	open_level(j, NULL, '{', '}');
	return 0;
}

/**
 * cli_json_close() - end every open level and the file.
 * Return: 0, or -1 after reporting a write error.
 */
int cli_json_close(struct cli_json *j)
{
	int bad;

	while (j->depth)
		cli_json_end(j);
	fputc('\n', j->f);
	bad = ferror(j->f);
	if ((j->f == stdout ? fflush(j->f) : fclose(j->f)) || bad) {
		cli_err("cannot write '%s': %s", j->path,
			strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/** cli_json_obj() - start an object, the value of @key (NULL in arrays). */
void cli_json_obj(struct cli_json *j, const char *key)
{
	open_level(j, key, '{', '}');
}

/** cli_json_arr() - start an array, the value of @key (NULL in arrays). */
void cli_json_arr(struct cli_json *j, const char *key)
{
	open_level(j, key, '[', ']');
}

/** cli_json_end() - end the innermost object or array. */
void cli_json_end(struct cli_json *j)
{
	int d;

	if (!j->depth)
		return;
	d = --j->depth;
	if (j->count[d] && d + 1 < CLI_JSON_INLINE)
		fprintf(j->f, "\n%*s", 2 * d, "");
	fputc(j->close[d], j->f);
}

/** cli_json_str() - a string member; NULL is null. */
void cli_json_str(struct cli_json *j, const char *key, const char *v)
{
	member(j, key);
	if (v)
		json_str(j->f, v);
	else
		fputs("null", j->f);
}

/** cli_json_u64() - an unsigned integer member. */
void cli_json_u64(struct cli_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

/** cli_json_int() - a signed integer member. */
void cli_json_int(struct cli_json *j, const char *key, long long v)
{
	member(j, key);
	fprintf(j->f, "%lld", v);
}

/**
 * cli_json_num() - a number member written with printf format @fmt (one
 * double); a NaN or infinity is null.
 */
void cli_json_num(struct cli_json *j, const char *key, const char *fmt,
		  double v)
{
	member(j, key);
	if (isnan(v) || isinf(v))
		fputs("null", j->f);
	else
		fprintf(j->f, fmt, v);
}

/**
 * cli_json_real() - a number member written exactly: the fewest digits
 * (15 to 17) that read back as @v, so a reader of the file (the bench's
 * renderer) computes with the writer's value; a NaN or infinity is null.
 */
void cli_json_real(struct cli_json *j, const char *key, double v)
{
	char buf[32];

	member(j, key);
	if (isnan(v) || isinf(v)) {
		fputs("null", j->f);
		return;
	}
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, j->f);
}

/** cli_json_bool() - a true/false member. */
void cli_json_bool(struct cli_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

/** cli_json_null() - a null member. */
void cli_json_null(struct cli_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}
