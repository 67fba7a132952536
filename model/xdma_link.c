// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_link.c - the PCIe link model's arithmetic and option syntax (see
 * xdma_link.h), shared by the model and every host of it.
 */
#include "xdma_link.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/**
 * xdma_link_lane_gbps() - data rate of one lane after line encoding.
 * @gen: PCIe generation
 *
 * Return: GB/s (10^9 bytes/s) per lane, 0 for an unknown generation.
 */
double xdma_link_lane_gbps(uint32_t gen)
{
	switch (gen) {
	case 1:
		return 2.5 * 8 / 10 / 8;		/* 2.5 GT/s, 8b/10b */
	case 2:
		return 5.0 * 8 / 10 / 8;		/* 5 GT/s, 8b/10b */
	case 3:
		return 8.0 * 128 / 130 / 8;		/* 8 GT/s, 128b/130b */
	case 4:
		return 16.0 * 128 / 130 / 8;
	case 5:
		return 32.0 * 128 / 130 / 8;
	default:
		return 0;
	}
}

/**
 * xdma_link_gbps() - the payload data rate of a link.
 * @l: the link (NULL: none)
 *
 * Return: lanes x lane rate x MPS payload efficiency in GB/s (= bytes per
 * ns), 0 without a link model.
 */
double xdma_link_gbps(const struct xdma_link *l)
{
	if (!l || !l->gen)
		return 0;
	return l->lanes * xdma_link_lane_gbps(l->gen) * l->mps /
	       (double)(l->mps + XDMA_LINK_TLP_OVERHEAD);
}

/**
 * xdma_link_ns() - the time the model gives one descriptor of @bytes.
 * @l: the link
 * @bytes: its length
 *
 * Return: @l->desc_ns + @bytes / rate in ns (descriptor fetch and
 * writeback left out), 0 without a link model.
 */
uint64_t xdma_link_ns(const struct xdma_link *l, uint64_t bytes)
{
	double g = xdma_link_gbps(l);

	if (g <= 0)
		return 0;
	return l->desc_ns + (uint64_t)((double)bytes / g + 0.5);
}

/**
 * xdma_link_describe() - a link for people.
 * @l: the link (NULL: none)
 * @buf: output
 * @len: its size
 *
 * "PCIe Gen3 x8, MPS 256, 1000 ns/descriptor (7.31 GB/s)" or "none".
 *
 * Return: what snprintf() returns.
 */
int xdma_link_describe(const struct xdma_link *l, char *buf, size_t len)
{
	if (!l || !l->gen)
		return snprintf(buf, len, "none");
	return snprintf(buf, len,
			"PCIe Gen%u x%u, MPS %u, %llu ns/descriptor (%.2f GB/s)",
			l->gen, l->lanes, l->mps,
			(unsigned long long)l->desc_ns, xdma_link_gbps(l));
}

static int link_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * xdma_link_parse() - one option that belongs to the link model, into @l:
 *	link=genGxW   G 1..5, W 1, 2, 4, 8, 16 (link=none or off: no model)
 *	mps=BYTES     128, 256, 512, 1024, 2048, 4096 (default 256)
 *	desc_ns=NS    0 .. 10^9 (default 1000)
 * @opt: "key=value"
 * @l: zeroed by the caller before the first option; finish with
 *	xdma_link_finish()
 *
 * Return: 0, -ENOENT when @opt is not a link option, -EINVAL for a bad
 * value.
 */
int xdma_link_parse(const char *opt, struct xdma_link *l)
{
	uint64_t v;

	if (!strncmp(opt, "link=", 5)) {
		const char *val = opt + 5;
		unsigned int g, w;
		char tail;

		if (!strcmp(val, "none") || !strcmp(val, "off")) {
			l->gen = 0;
			l->lanes = 0;
			return 0;
		}
		if (sscanf(val, "gen%ux%u%c", &g, &w, &tail) != 2 || g < 1 ||
		    g > XDMA_LINK_MAX_GEN || !w || w > XDMA_LINK_MAX_LANES ||
		    (w & (w - 1)))
			return -EINVAL;
		l->gen = g;
		l->lanes = w;
		return 0;
	}
	if (!strncmp(opt, "mps=", 4)) {
		if (link_u64(opt + 4, &v) || v < XDMA_LINK_MIN_MPS ||
		    v > XDMA_LINK_MAX_MPS || (v & (v - 1)))
			return -EINVAL;
		l->mps = (uint32_t)v;
		return 0;
	}
	if (!strncmp(opt, "desc_ns=", 8)) {
		if (link_u64(opt + 8, &v) || v > XDMA_LINK_MAX_DESC_NS)
			return -EINVAL;
		l->desc_ns = v;
		l->desc_set = true;
		return 0;
	}
	return -ENOENT;
}

/**
 * xdma_link_finish() - after the options: defaults for what was not given.
 * @l: the parsed link
 *
 * Return: 0, or -EINVAL when mps= or desc_ns= came without link=.
 */
int xdma_link_finish(struct xdma_link *l)
{
	if (!l->gen) {
		if (l->mps || l->desc_set)
			return -EINVAL;
		memset(l, 0, sizeof(*l));
		return 0;
	}
	if (!l->mps)
		l->mps = XDMA_LINK_DEFAULT_MPS;
	if (!l->desc_set)
		l->desc_ns = XDMA_LINK_DEFAULT_DESC_NS;
	return 0;
}
