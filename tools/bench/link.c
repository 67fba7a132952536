// SPDX-License-Identifier: MIT
/*
 * link.c - the link model of the card under test, from the library
 * (HelloFPGA_GetLinkModel()), so the figures the bench predicts are those
 * the card was built with; and the predicted cost per transfer on real
 * hardware over it (bench_predict.c).
 */
#include <string.h>

#include "link.h"

/**
 * bench_link_of() - the link model of @bn->h into @bn.
 * Return: true when the card models a link; @bn->link_desc is set always.
 */
bool bench_link_of(struct bench *bn)
{
	HELLOFPGA_LINK_MODEL lm;

	bn->link_on = false;
	snprintf(bn->link_desc, sizeof(bn->link_desc), "none");
	if (HelloFPGA_GetLinkModel(bn->h, &lm) || !lm.enabled)
		return false;
	bn->link_on = true;
	bn->link_gen = lm.gen;
	bn->link_lanes = lm.lanes;
	bn->link_mps = lm.mps;
	bn->link_desc_ns = lm.desc_ns;
	bn->link_gbps = lm.gbps;
	snprintf(bn->link_desc, sizeof(bn->link_desc), "%s", lm.text);
	return true;
}

/* The model's time for one descriptor of @bytes (HELLOFPGA_LINK_MODEL). */
uint64_t bench_link_ns(const struct bench *bn, uint64_t bytes)
{
	if (!bn->link_on || bn->link_gbps <= 0)
		return 0;
	return bn->link_desc_ns + (uint64_t)((double)bytes / bn->link_gbps + 0.5);
}

/**
 * bench_predict() - the predicted time on real hardware of a transfer of
 * counts @c over @bn's link model (bench_predict.c).
 * Return: true with @out filled, false without a link model or counts.
 */
bool bench_predict(const struct bench *bn, const struct bcost_counts *c,
		   struct bcost *out)
{
	struct bcost_link l = { bn->link_gbps, (double)bn->link_desc_ns };

	if (!bn->link_on || !c)
		return false;
	bcost_predict(&l, c, out);
	return out->total_ns > 0;
}
