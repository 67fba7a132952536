// SPDX-License-Identifier: MIT
/*
 * check.c - "hellofpga doctor": building a check of the report.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "doctor.h"

/**
 * doc_check_new() - append check @id to the report, skipped until a
 * verdict is given.
 * Return: the check (the last slot again when the report is full).
 */
struct doc_check *doc_check_new(struct doc *d, const char *id,
				const char *title)
{
	struct doc_check *c;

	if (d->n_checks < DOC_MAX_CHECKS)
		d->n_checks++;
	c = &d->checks[d->n_checks - 1];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->title = title;
	c->verdict = DOC_SKIP;
	return c;
}

/** doc_verdict() - the verdict of @c and its one-line finding. */
void doc_verdict(struct doc_check *c, enum doc_verdict v, const char *fmt, ...)
{
	va_list ap;

	c->verdict = v;
	va_start(ap, fmt);
	vsnprintf(c->result, sizeof(c->result), fmt, ap);
	va_end(ap);
}

/** doc_evidence() - add a line of evidence: what was read, and where. */
void doc_evidence(struct doc_check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->n_evidence >= DOC_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(c->evidence[c->n_evidence++], DOC_LINE, fmt, ap);
	va_end(ap);
}

/** doc_fix() - what to do about @c. */
void doc_fix(struct doc_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->fix, sizeof(c->fix), fmt, ap);
	va_end(ap);
}

/** doc_verdict_name() - "ok", "warn", "fail" or "skip". */
const char *doc_verdict_name(enum doc_verdict v)
{
	static const char *const name[] = { "ok", "warn", "fail", "skip" };

	return v <= DOC_SKIP ? name[v] : "?";
}

/** doc_size() - @bytes as "256 MiB" (whole units only), in @buf. */
const char *doc_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB",
					    "TiB" };
	int u = 0;

	while (u < 4 && bytes >= 1024 && !(bytes % 1024)) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", bytes, unit[u]);
	return buf;
}
