/* SPDX-License-Identifier: GPL-2.0-or-later OR MIT */
/*
 * xdma_link.h - the PCIe link model of the XDMA card model: what a link of a
 * given generation, width and max payload size carries per second, and the
 * option syntax every host of the model shares (the in-process card's
 * "emu:N,link=gen3x8,mps=256,desc_ns=1000" and xdma-sim's properties of the
 * same names), so both hosts parse, describe and time a link the same way.
 *
 * Data moves at lanes x lane rate x mps / (mps + XDMA_LINK_TLP_OVERHEAD)
 * bytes per second, one link per direction shared by every engine of the
 * card (PCIe is full duplex); each descriptor also costs desc_ns (descriptor
 * fetch round trip, engine start, completion).  The model (xdma_model.c)
 * paces its engines with it; this file is only arithmetic and parsing.
 */
#ifndef HF_XDMA_LINK_H
#define HF_XDMA_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Per-TLP bytes besides the payload: framing/sequence 4 (Gen3 STP token;
 * start/end symbols + sequence number on Gen1/2), 3DW header 12, LCRC 4.
 */
#define XDMA_LINK_TLP_OVERHEAD		20
#define XDMA_LINK_DEFAULT_MPS		256
#define XDMA_LINK_DEFAULT_DESC_NS	1000
#define XDMA_LINK_MIN_MPS		128
#define XDMA_LINK_MAX_MPS		4096
#define XDMA_LINK_MAX_DESC_NS		1000000000ull
#define XDMA_LINK_MAX_GEN		5
#define XDMA_LINK_MAX_LANES		16

/**
 * struct xdma_link - a PCIe link model.
 * @gen: PCIe generation 1..5, 0 = no link model (the default)
 * @lanes: link width 1, 2, 4, 8, 16
 * @mps: max payload size in bytes, 128 .. 4096, a power of two
 * @desc_ns: latency added to each descriptor, ns
 * @desc_set: @desc_ns was given (parsing only)
 */
struct xdma_link {
	uint32_t gen;
	uint32_t lanes;
	uint32_t mps;
	uint64_t desc_ns;
	bool desc_set;
};

int xdma_link_parse(const char *opt, struct xdma_link *l);
int xdma_link_finish(struct xdma_link *l);
double xdma_link_lane_gbps(uint32_t gen);
double xdma_link_gbps(const struct xdma_link *l);
uint64_t xdma_link_ns(const struct xdma_link *l, uint64_t bytes);
int xdma_link_describe(const struct xdma_link *l, char *buf, size_t len);

#endif /* HF_XDMA_LINK_H */
