// SPDX-License-Identifier: MIT
/*
 * bench_link.c - what link model the emulated card was opened with: the
 * card name's link=, mps= and desc_ns= options, read with the card's own
 * parser (hf_emu_link_opt(), then model/xdma_link.c) and the model's
 * formula, so the figures the bench predicts are those the card was
 * built with.
 */
#include <string.h>

#include "hf_lib.h"
#include "xdma_link.h"

#include "bench.h"

/**
 * bench_link_from_name() - the link model of card @name ("emu:0,link=gen3x8").
 * Return: true when @name is an emulated card with a link model; the
 * fields of @bn are filled (@bn->link_desc always).
 */
bool bench_link_from_name(struct bench *bn, const char *name)
{
	struct xdma_link l;
	char buf[256], *tok, *save = NULL;

	memset(&l, 0, sizeof(l));
	bn->link_on = false;
	snprintf(bn->link_desc, sizeof(bn->link_desc), "none");
	if (!name || strncmp(name, "emu", 3) || strlen(name) >= sizeof(buf))
		return false;
	strcpy(buf, name);
	tok = strtok_r(buf, ",", &save);	/* "emu[:N]" */
	while ((tok = strtok_r(NULL, ",", &save)))
		hf_emu_link_opt(tok, &l);	/* the card accepted them */
	if (xdma_link_finish(&l) || !l.gen)
		return false;
	bn->link_on = true;
	bn->link_gen = l.gen;
	bn->link_lanes = l.lanes;
	bn->link_mps = l.mps;
	bn->link_desc_ns = l.desc_ns;
	bn->link_gbps = xdma_link_gbps(&l);
	xdma_link_describe(&l, bn->link_desc, sizeof(bn->link_desc));
	return true;
}

/* The model's time for one descriptor of @bytes on the card's link. */
uint64_t bench_link_ns(const struct bench *bn, uint64_t bytes)
{
	struct xdma_link l = {
		.gen = bn->link_gen,
		.lanes = bn->link_lanes,
		.mps = bn->link_mps,
		.desc_ns = bn->link_desc_ns,
	};

	return bn->link_on ? xdma_link_ns(&l, bytes) : 0;
}
