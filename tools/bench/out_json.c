// SPDX-License-Identifier: MIT
/*
 * out_json.c - --json FILE: the run as JSON (tools/common/json.c), the one
 * source of every other file of the run: the CSV, the Markdown and the
 * plots are rendered from it (out_render.c, bench_render.py), so it holds
 * what they show, exactly (the prediction's and the link's rates written
 * to the last bit).
 */
#include <inttypes.h>
#include <math.h>

#include "json.h"
#include "link.h"
#include "out.h"
#include "stats.h"

/* the members of a series' statistics, its GB/s from the median at @size */
static void json_stats_members(struct cli_json *j, const struct bstats *s,
			       uint64_t size)
{
	cli_json_u64(j, "iterations", s->iters);
	cli_json_u64(j, "min_ns", s->min_ns);
	cli_json_u64(j, "median_ns", s->median_ns);
	cli_json_u64(j, "p99_ns", s->p99_ns);
	cli_json_u64(j, "max_ns", s->max_ns);
	cli_json_u64(j, "mean_ns", s->mean_ns);
	cli_json_num(j, "gbps", "%.4f", cli_gbps(size, s->median_ns));
}

/* @key as an object, opened (true), when @present; else null (false) */
static bool json_obj_or_null(struct cli_json *j, const char *key,
			     bool present)
{
	if (!present) {
		cli_json_null(j, key);
		return false;
	}
	cli_json_obj(j, key);
	return true;
}

static void json_stats(struct cli_json *j, const char *key,
		       const struct bstats *s, uint64_t size)
{
	cli_json_obj(j, key);
	json_stats_members(j, s, size);
	cli_json_end(j);
}

/* a path's series of the sweep: its statistics, each repeat's median and
 * statistics, and their spread (bench_spread()) */
static void json_sweep_stats(struct cli_json *j, const struct bench *bn,
			     const struct bpoint *pt, enum bpath p, int d)
{
	cli_json_obj(j, bpath_name[p]);
	json_stats_members(j, &pt->st[p][d], pt->size);
	cli_json_arr(j, "repeat_median_ns");
	for (int r = 0; r < bn->repeats; r++)
		cli_json_u64(j, NULL, pt->rep[r][p][d].median_ns);
	cli_json_end(j);
	cli_json_arr(j, "repeat_stats");
	for (int r = 0; r < bn->repeats; r++)
		json_stats(j, NULL, &pt->rep[r][p][d], pt->size);
	cli_json_end(j);
	cli_json_num(j, "spread_pct", "%.2f",
		     bench_spread(bn, pt->size, p, d, NULL, NULL));
	cli_json_end(j);
}

static void json_env(struct cli_json *j, const struct bench *bn)
{
	const HELLOFPGA_GPU_STATUS *g = &bn->gpu.status;

	cli_json_obj(j, "environment");
	cli_json_str(j, "card", bn->info.name);
	cli_json_str(j, "backend", bn->info.backend_name);
	cli_json_bool(j, "emulated_card",
		      bn->info.backend == HELLOFPGA_BACKEND_EMULATED);
	cli_json_str(j, "irq", cli_irq_name(bn->info.irq_mode));
	cli_json_int(j, "channel", bn->ch);
	cli_json_u64(j, "card_address", bn->addr);
	cli_json_u64(j, "gpu_card_address", bn->gaddr);
	if (json_obj_or_null(j, "gpu", bn->gpu.present)) {
		cli_json_str(j, "name", g->name);
		cli_json_bool(j, "emulated", !bn->gpu.real);
		cli_json_str(j, "platform",
			     g->platform == HELLOFPGA_PLATFORM_TEGRA ? "tegra" :
			     "desktop");
		cli_json_str(j, "pci_bus_id", g->pci_bus_id);
		cli_json_int(j, "cuda_driver_version", bn->gpu.cuda_version);
		cli_json_str(j, "driver", bn->gpu.driver);
		cli_json_bool(j, "gpudirect_supported", g->supported);
		cli_json_int(j, "rdma_supported", g->rdma_supported);
		cli_json_end(j);
	} else {
		cli_json_str(j, "gpu_why", bn->gpu_why);
	}
	cli_json_str(j, "link", bn->link_desc);
	if (json_obj_or_null(j, "link_model", bn->link_on)) {
		cli_json_u64(j, "gen", bn->link_gen);
		cli_json_u64(j, "lanes", bn->link_lanes);
		cli_json_u64(j, "mps", bn->link_mps);
		cli_json_u64(j, "desc_ns", bn->link_desc_ns);
		cli_json_real(j, "gbps", bn->link_gbps);
		cli_json_str(j, "text", bn->link_desc);
		cli_json_end(j);
	}
	cli_json_u64(j, "seed", bn->seed);
	cli_json_str(j, "date", bn->date);
	cli_json_str(j, "cpu", bn->cpu);
	cli_json_str(j, "kernel", bn->kernel);
	cli_json_str(j, "library", HelloFPGA_Version());
	cli_json_end(j);
}

static void json_config(struct cli_json *j, const struct bench *bn)
{
	cli_json_obj(j, "config");
	cli_json_bool(j, "quick", bn->quick);
	cli_json_num(j, "budget_s", "%.3f", bn->budget_ns / 1e9);
	cli_json_u64(j, "min_rounds", bn->min_iters);
	cli_json_u64(j, "max_rounds", bn->max_iters);
	cli_json_u64(j, "fixed_rounds", bn->fixed_iters);
	cli_json_int(j, "repeats", bn->repeats);
	cli_json_u64(j, "frame_size", bn->frame_size);
	cli_json_int(j, "buffers", bn->max_buffers);
	cli_json_num(j, "frames_time_s", "%.3f", bn->frames_ns / 1e9);
	cli_json_u64(j, "pin_max", bn->pin_max);
	cli_json_obj(j, "order");
	cli_json_u64(j, "seed", bn->seed);
	cli_json_int(j, "period", bn->order_period);
	cli_json_arr(j, "rounds");
	for (int r = 0; r < bn->order_period && bn->order_n; r++) {
		cli_json_arr(j, NULL);
		for (int k = 0; k < bn->order_n; k++)
			cli_json_str(j, NULL, bpath_name[bn->order[r][k]]);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
	cli_json_end(j);
	cli_json_obj(j, "paths");
	for (int p = 0; p < BP_N; p++) {
		cli_json_obj(j, bpath_name[p]);
		cli_json_str(j, "label", bpath_label[p]);
		cli_json_bool(j, "measured", bn->paths[p] && bn->npoints);
		cli_json_str(j, "why", bn->path_why[p]);
		cli_json_end(j);
	}
	cli_json_end(j);
}

/*
 * The figures of a size and direction: the speedups (a median over
 * another, "%.4f") and the overheads (a median minus another, ns).
 */
static const struct jfigure {
	bool speedup;
	const char *key;
	enum bpath a, b;
} jfigures[] = {
	{ true, "trad_pageable", BP_TRAD_PAGE, BP_DIRECT },
	{ true, "trad_pinned", BP_TRAD_PIN, BP_DIRECT },
	{ true, "transfer_mode_vs_cpu", BP_CPU, BP_XMODE },
	{ false, "direct", BP_DIRECT, BP_CEIL },
	{ false, "transfer_mode", BP_XMODE, BP_CEIL },
	{ false, "cpu_mode", BP_CPU, BP_MEMCPY },
};

/* the object of direction @d: its speedups (with GPU Direct's % of the
 * ceiling and its range over the repeats), or its overheads */
static void json_figures(struct cli_json *j, const struct bench *bn,
			 uint64_t size, int d, bool speedup)
{
	double lo, hi;

	cli_json_obj(j, bdir_name[d]);
	for (size_t i = 0; i < sizeof(jfigures) / sizeof(jfigures[0]); i++) {
		const struct jfigure *f = &jfigures[i];

		if (f->speedup != speedup)
			continue;
		if (speedup)
			cli_json_num(j, f->key, "%.4f",
				     bench_ratio(bn, size, f->a, f->b, d));
		else
			cli_json_num(j, f->key, "%.0f",
				     bench_diff_ns(bn, size, f->a, f->b, d));
	}
	if (speedup) {
		cli_json_num(j, "direct_pct_of_ceiling", "%.2f",
			     100 / bench_ratio(bn, size, BP_DIRECT, BP_CEIL, d));
		if (isnan(bench_pct_range(bn, size, d, &lo, &hi)))
			lo = hi = NAN;
		cli_json_num(j, "direct_pct_of_ceiling_lo", "%.2f", lo);
		cli_json_num(j, "direct_pct_of_ceiling_hi", "%.2f", hi);
	}
	cli_json_end(j);
}

static void json_point(struct cli_json *j, const struct bench *bn,
		       const struct bpoint *pt)
{
	int d, p;

	cli_json_obj(j, NULL);
	cli_json_u64(j, "size", pt->size);
	cli_json_bool(j, "verified", pt->verified);
	if (bn->link_on)
		cli_json_u64(j, "model_ns", bench_link_ns(bn, pt->size));
	for (d = 0; d < BD_N; d++) {
		cli_json_obj(j, bdir_name[d]);
		for (p = 0; p < BP_N; p++)
			if (bn->paths[p])
				json_sweep_stats(j, bn, pt, p, d);
		cli_json_end(j);
	}
	cli_json_obj(j, "first");
	for (d = 0; d < BD_N; d++) {
		cli_json_obj(j, bdir_name[d]);
		for (p = 0; p < BP_N; p++)
			if (bn->paths[p])
				cli_json_u64(j, bpath_name[p], pt->first[p][d]);
		cli_json_end(j);
	}
	cli_json_end(j);
	for (int k = 0; k < 2; k++) {
		cli_json_obj(j, k ? "overhead_ns" : "speedup");
		for (d = 0; d < BD_N; d++)
			json_figures(j, bn, pt->size, d, !k);
		cli_json_end(j);
	}
	cli_json_end(j);
}

static void json_frames_pins(struct cli_json *j, const struct bench *bn)
{
	int i;

	cli_json_obj(j, "frames");
	cli_json_u64(j, "frame_size", bn->frame_size);
	cli_json_str(j, "consumer", bn->gpu.real ? "cuda_kernel" :
		     "cpu_thread");
	if (bn->link_on)
		cli_json_u64(j, "model_ns", bench_link_ns(bn, bn->frame_size));
	cli_json_arr(j, "runs");
	for (i = 0; i < bn->nframes; i++) {
		const struct bframes *fr = &bn->frames[i];

		cli_json_obj(j, NULL);
		cli_json_int(j, "buffers", fr->nbuf);
		cli_json_u64(j, "frames", fr->frames);
		cli_json_u64(j, "ns", fr->ns);
		cli_json_num(j, "seconds", "%.4f", fr->ns / 1e9);
		cli_json_num(j, "fps", "%.1f", fr->fps);
		cli_json_num(j, "gbps", "%.4f",
			     fr->fps * (double)bn->frame_size / 1e9);
		cli_json_u64(j, "dropped", fr->dropped);
		cli_json_u64(j, "corrupt", fr->corrupt);
		cli_json_num(j, "vs_single", "%.4f", bn->frames[0].fps > 0 ?
			     fr->fps / bn->frames[0].fps : 0);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
	cli_json_obj(j, "pin");
	cli_json_u64(j, "first_pin_ns", bn->first_pin_ns);
	cli_json_u64(j, "first_pin_size",
		     bn->g ? (bn->max + 65535) / 65536 * 65536 : 0);
	cli_json_arr(j, "sizes");
	for (i = 0; i < bn->npins; i++) {
		cli_json_obj(j, NULL);
		cli_json_u64(j, "size", bn->pins[i].size);
		json_stats(j, "pin", &bn->pins[i].pin, 0);
		json_stats(j, "unpin", &bn->pins[i].unpin, 0);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
}

static void json_soak(struct cli_json *j, const struct bench *bn)
{
	if (!json_obj_or_null(j, "soak", bn->nsoak))
		return;
	cli_json_u64(j, "size", bn->soak_size);
	cli_json_num(j, "duration_s", "%.1f", bn->soak_ns / 1e9);
	cli_json_num(j, "interval_s", "%.3f", bn->interval_ns / 1e9);
	cli_json_arr(j, "samples");
	for (int i = 0; i < bn->nsoak; i++) {
		cli_json_obj(j, NULL);
		cli_json_num(j, "t_s", "%.3f", bn->soak[i].t_ns / 1e9);
		cli_json_u64(j, "t_ns", bn->soak[i].t_ns);
		cli_json_bool(j, "verified", bn->soak[i].verified);
		json_stats(j, "c2h", &bn->soak[i].st[BD_C2H], bn->soak_size);
		json_stats(j, "h2c", &bn->soak[i].st[BD_H2C], bn->soak_size);
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_obj(j, "drift_pct");
	cli_json_num(j, "c2h", "%.3f", bench_soak_drift(bn, BD_C2H));
	cli_json_num(j, "h2c", "%.3f", bench_soak_drift(bn, BD_H2C));
	cli_json_end(j);
	cli_json_end(j);
}

/* one side of a prediction: the counts and the predicted time by part */
static void json_cost(struct cli_json *j, const struct bench *bn,
		      const char *key, const struct bcost_counts *c)
{
	struct bcost b;

	if (!json_obj_or_null(j, key, c && bench_predict(bn, c, &b)))
		return;
	cli_json_num(j, "mmio_reads", "%.3f", c->mmio_reads);
	cli_json_num(j, "mmio_writes", "%.3f", c->mmio_writes);
	cli_json_num(j, "descriptors", "%.3f", c->desc);
	cli_json_num(j, "irqs", "%.3f", c->irqs);
	cli_json_u64(j, "bytes", c->bytes);
	cli_json_real(j, "ns", b.total_ns);
	cli_json_real(j, "gbps", b.gbps);
	cli_json_num(j, "mmio_ns", "%.1f", b.mmio_ns);
	cli_json_num(j, "fetch_ns", "%.1f", b.fetch_ns);
	cli_json_num(j, "irq_ns", "%.1f", b.irq_ns);
	cli_json_num(j, "data_ns", "%.1f", b.data_ns);
	cli_json_end(j);
}

/* the predicted time per transfer on real hardware (bench_predict.c) */
static void json_predict(struct cli_json *j, const struct bench *bn)
{
	if (!json_obj_or_null(j, "prediction", bn->predicted))
		return;
	cli_json_obj(j, "constants");
	cli_json_num(j, "mmio_read_ns", "%.1f", BCOST_MMIO_READ_NS);
	cli_json_num(j, "mmio_write_ns", "%.1f", BCOST_MMIO_WRITE_NS);
	cli_json_num(j, "irq_ns", "%.1f", BCOST_IRQ_NS);
	cli_json_num(j, "desc_bytes", "%.0f", BCOST_DESC_BYTES);
	cli_json_u64(j, "fetch_ns", bn->link_desc_ns);
	cli_json_real(j, "gbps", bn->link_gbps);
	cli_json_end(j);
	cli_json_str(j, "path", bpath_name[bn->pred_path]);
	cli_json_str(j, "reference", "Xilinx dma_ip_drivers XDMA 2025.2.0, char devices, MSI-X");
	cli_json_arr(j, "sizes");
	for (int i = 0; i < BCOST_NREF; i++) {
		const struct bpredict *pr = &bn->pred[i];

		cli_json_obj(j, NULL);
		cli_json_u64(j, "size", pr->size);
		for (int d = 0; d < BD_N; d++) {
			const struct bstats *x = bench_st(bn, pr->size,
							  bn->pred_path, d);

			cli_json_obj(j, bdir_name[d]);
			json_cost(j, bn, "hellofpga",
				  pr->counted[d] ? &pr->c[d] : NULL);
			json_cost(j, bn, "reference", &bcost_reference[i].c);
			if (x)
				cli_json_u64(j, "measured_ns", x->median_ns);
			else
				cli_json_null(j, "measured_ns");
			cli_json_end(j);
		}
		cli_json_end(j);
	}
	cli_json_end(j);
	cli_json_end(j);
}

static void json_gpuwait_way(struct cli_json *j, const char *name,
			      const struct bstats *st)
{
	cli_json_obj(j, name);
	cli_json_u64(j, "samples", st->iters);
	cli_json_num(j, "min_us", "%.3f", st->min_ns / 1e3);
	cli_json_num(j, "median_us", "%.3f", st->median_ns / 1e3);
	cli_json_num(j, "p99_us", "%.3f", st->p99_ns / 1e3);
	cli_json_num(j, "max_us", "%.3f", st->max_ns / 1e3);
	cli_json_end(j);
}

/* The gpuwait section: completion to the consumer kernel's start. */
static void json_gpuwait(struct cli_json *j, const struct bench *bn)
{
	const struct bgpuwait *w = &bn->gpuwait;

	if (!w->run)
		return;
	cli_json_obj(j, "gpuwait");
	cli_json_str(j, "gpu", w->real ? "cuda" : "emulated");
	cli_json_str(j, "kind", w->mm ? "gpudirect" : "stream");
	cli_json_u64(j, w->mm ? "transfer_size" : "frame_size", 4096);
	json_gpuwait_way(j, "gpu_wait", &w->gpu);
	json_gpuwait_way(j, "cpu_wait", &w->cpu);
	json_gpuwait_way(j, "ceiling_unblocked_launch", &w->ceiling);
	if (w->mm) {
		json_gpuwait_way(j, "gpu_start", &w->start);
		json_gpuwait_way(j, "ceiling_one_transfer", &w->xfer);
		cli_json_u64(j, "retaken", w->retakes);
	}
	cli_json_end(j);
}

int bench_json(const struct bench *bn, const char *path)
{
	struct cli_json j;

	if (cli_json_open(&j, path))
		return -1;
	cli_json_str(&j, "tool", "hellofpga bench");
	cli_json_int(&j, "format", 2);
	json_env(&j, bn);
	json_config(&j, bn);
	cli_json_arr(&j, "sweep");
	for (int i = 0; i < bn->npoints; i++)
		json_point(&j, bn, &bn->points[i]);
	cli_json_end(&j);
	json_predict(&j, bn);
	json_frames_pins(&j, bn);
	json_soak(&j, bn);
	cli_json_arr(&j, "stream");
	for (int i = 0; i < bn->nstreams; i++) {
		const struct bstream *p = &bn->streams[i];

		cli_json_obj(&j, NULL);
		cli_json_str(&j, "table", p->rate_table ? "frame_rate" :
						    "frame_size");
		cli_json_u64(&j, "frame_size", p->frame_size);
		cli_json_u64(&j, "buffers", p->buffers);
		cli_json_u64(&j, "buffer_size", p->buffer_size);
		cli_json_str(&j, "ring", p->gpu ? "gpu" : "host");
		cli_json_u64(&j, "frames", p->frames);
		cli_json_num(&j, "seconds", "%.4f", p->ns / 1e9);
		cli_json_num(&j, "fps", "%.1f", p->fps);
		cli_json_num(&j, "gbps", "%.4f", p->gbps);
		cli_json_num(&j, "between_p50_us", "%.3f", p->p50_ns / 1e3);
		cli_json_num(&j, "between_p99_us", "%.3f", p->p99_ns / 1e3);
		cli_json_u64(&j, "corrupt", p->corrupt);
		cli_json_u64(&j, "dropped", p->dropped);
		cli_json_u64(&j, "ring_full", p->ring_full);
		cli_json_num(&j, "ceiling_cpu_gbps", "%.4f", p->cpu_gbps);
		if (bn->link_on)
			cli_json_num(&j, "model_gbps", "%.4f",
				     p->model_gbps);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	json_gpuwait(&j, bn);
	return cli_json_close(&j);
}
