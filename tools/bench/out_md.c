// SPDX-License-Identifier: MIT
/*
 * out_md.c - --markdown FILE: a Markdown summary of the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "link.h"
#include "out.h"
#include "stats.h"

/* how stable each median was across the repeats (bench_spread()) */
static void md_spread(FILE *f, const struct bench *bn)
{
	static const enum bpath col[] = { BP_CEIL, BP_DIRECT, BP_TRAD_PAGE,
					  BP_TRAD_PIN, BP_XMODE, BP_CPU };
	char sz[32], c[24];
	double lo, hi;

	fprintf(f, "\n## Stability across %d repeat%s\n\n", bn->repeats,
		bn->repeats > 1 ? "s" : "");
	if (bn->repeats < 2) {
		fputs("One repeat: no spread (`--repeats 3` measures it).\n", f);
		return;
	}
	fputs("Spread of each median: (highest - lowest repeat median) / median of all repeats.\n\n"
	      "| size | dir | ceiling | GPU Direct | % of ceiling, lowest..highest | trad. pageable | trad. pinned | TransferMode | CPU mode |\n"
	      "|---|---|---|---|---|---|---|---|---|\n", f);
	for (int i = 0; i < bn->npoints; i++)
		for (int d = BD_C2H; d >= BD_H2C; d--) {
			uint64_t s = bn->points[i].size;

			fprintf(f, "| %s | %s |", cli_fmt_size(s, sz, sizeof(sz)),
				d == BD_C2H ? "read" : "write");
			for (size_t k = 0; k < sizeof(col) / sizeof(col[0]); k++) {
				fprintf(f, " %s |", bench_cell(c, sizeof(c), "%.1f%%",
					bench_spread(bn, s, col[k], d, NULL, NULL)));
				if (col[k] != BP_DIRECT)
					continue;
				if (isnan(bench_pct_range(bn, s, d, &lo, &hi)))
					fputs(" - |", f);
				else
					fprintf(f, " %.1f..%.1f%% |", lo, hi);
			}
			fputc('\n', f);
		}
}

/* a side of the prediction: "counts | us | GB/s |" or dashes */
static void md_cost(FILE *f, const struct bench *bn,
		    const struct bcost_counts *c)
{
	struct bcost b;

	if (!c || !bench_predict(bn, c, &b))
		fputs(" - | - | - |", f);
	else
		fprintf(f, " %g / %g / %g / %g | %.2f | %.3f |", c->mmio_reads,
			c->mmio_writes, c->desc, c->irqs, b.total_ns / 1e3,
			b.gbps);
}

/* the predicted time per transfer on real hardware (bench_predict.c) */
static void md_predict(FILE *f, const struct bench *bn)
{
	char sz[32], m[24];

	fprintf(f, "\n## Predicted time per transfer on real hardware (%s)\n\n"
		"The counted accesses at MMIO read %.1f us, MMIO write %.1f us, interrupt %.1f us,\n"
		"descriptor fetch %.1f us (a later one only by what it exceeds the data before it),\n"
		"payload and descriptors at %.2f GB/s; software not included (a floor).\n"
		"Counts: MMIO reads / writes / descriptors / interrupts per transfer.\n\n"
		"| size | dir | hellofpga counts (%s) | predicted us | GB/s | reference driver counts | predicted us | GB/s | this run us |\n"
		"|---|---|---|---|---|---|---|---|---|\n",
		bn->link_desc, BCOST_MMIO_READ_NS / 1e3,
		BCOST_MMIO_WRITE_NS / 1e3, BCOST_IRQ_NS / 1e3,
		bn->link_desc_ns / 1e3, bn->link_gbps,
		bpath_label[bn->pred_path]);
	for (int i = 0; i < BCOST_NREF; i++)
		for (int d = BD_C2H; d >= BD_H2C; d--) {
			const struct bpredict *pr = &bn->pred[i];
			const struct bstats *x = bench_st(bn, pr->size,
							  bn->pred_path, d);

			fprintf(f, "| %s | %s |", cli_fmt_size(pr->size, sz,
				sizeof(sz)), d == BD_C2H ? "read" : "write");
			md_cost(f, bn, pr->counted[d] ? &pr->c[d] : NULL);
			md_cost(f, bn, &bcost_reference[i].c);
			fprintf(f, " %s |\n", bench_cell(m, sizeof(m), "%.2f",
				x ? bench_us(x->median_ns) : NAN));
		}
}

int bench_markdown(const struct bench *bn, const char *path)
{
	static const uint64_t head[] = { 4ull << 10, 64ull << 10, 1ull << 20,
					 4ull << 20, 64ull << 20 };
	FILE *f = fopen(path, "w");
	char sz[32], c[8][24];

	if (!f) {
		cli_err("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fputs("# hellofpga bench\n\n", f);
	bench_print_env(bn, f, "- ");
	if (bn->npoints) {
		fputs("\n## Headline (GB/s from the median; speedup = traditional pageable / GPU Direct)\n\n"
		      "| size | dir | ceiling | GPU Direct | % of ceiling | trad. pageable | trad. pinned | TransferMode | CPU mode | speedup |\n"
		      "|---|---|---|---|---|---|---|---|---|---|\n", f);
		for (size_t j = 0; j < sizeof(head) / sizeof(head[0]); j++) {
			if (!bench_point(bn, head[j]))
				continue;
			for (int d = BD_C2H; d >= BD_H2C; d--) {
				uint64_t s = head[j];

				fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					cli_fmt_size(s, sz, sizeof(sz)),
					d == BD_C2H ? "read" : "write",
					bench_cell(c[0], 24, "%.2f", bench_gbps(bn, s, BP_CEIL, d)),
					bench_cell(c[1], 24, "%.2f", bench_gbps(bn, s, BP_DIRECT, d)),
					bench_cell(c[2], 24, "%.1f%%", 100 / bench_ratio(bn, s, BP_DIRECT, BP_CEIL, d)),
					bench_cell(c[3], 24, "%.2f", bench_gbps(bn, s, BP_TRAD_PAGE, d)),
					bench_cell(c[4], 24, "%.2f", bench_gbps(bn, s, BP_TRAD_PIN, d)),
					bench_cell(c[5], 24, "%.2f", bench_gbps(bn, s, BP_XMODE, d)),
					bench_cell(c[6], 24, "%.2f", bench_gbps(bn, s, BP_CPU, d)),
					bench_cell(c[7], 24, "%.2fx", bench_ratio(bn, s, BP_TRAD_PAGE, BP_DIRECT, d)));
			}
		}
		md_spread(f, bn);
		fputs("\n## Latency of GPU Direct (us) beside the ceiling\n\n"
		      "| size | dir | min | median | p99 | max | ceiling median | trad. pageable median |\n"
		      "|---|---|---|---|---|---|---|---|\n", f);
		for (int i = 0; i < bn->npoints; i++)
			for (int d = BD_C2H; d >= BD_H2C; d--) {
				uint64_t s = bn->points[i].size;
				const struct bstats *x = bench_st(bn, s, BP_DIRECT, d);
				const struct bstats *cl = bench_st(bn, s, BP_CEIL, d);
				const struct bstats *tp = bench_st(bn, s, BP_TRAD_PAGE, d);

				if (!x)
					continue;
				fprintf(f, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s |\n",
					cli_fmt_size(s, sz, sizeof(sz)),
					d == BD_C2H ? "read" : "write", bench_us(x->min_ns),
					bench_us(x->median_ns), bench_us(x->p99_ns), bench_us(x->max_ns),
					bench_cell(c[0], 24, "%.2f", cl ? bench_us(cl->median_ns) : NAN),
					bench_cell(c[1], 24, "%.2f", tp ? bench_us(tp->median_ns) : NAN));
			}
	}
	if (bn->predicted)
		md_predict(f, bn);
	if (bn->nframes) {
		fprintf(f, "\n## Frame rate (%s frames, consumer: %s)\n\n| buffers | fps | vs single | dropped | corrupt |\n|---|---|---|---|---|\n",
			cli_fmt_size(bn->frame_size, sz, sizeof(sz)),
			bn->gpu.real ? "CUDA checksum kernel" : "CPU thread");
		for (int i = 0; i < bn->nframes; i++)
			fprintf(f, "| %d | %.0f | %.1f%% | %" PRIu64 " | %" PRIu64 " |\n",
				bn->frames[i].nbuf, bn->frames[i].fps,
				bn->frames[0].fps > 0 ?
				bn->frames[i].fps / bn->frames[0].fps * 100 : 0,
				bn->frames[i].dropped, bn->frames[i].corrupt);
	}
	if (bn->npins) {
		fprintf(f, "\n## Pin / unpin (median us)\n\nFirst pin of the run: %.1f us%s.\n\n| size | pin | unpin |\n|---|---|---|\n",
			bench_us(bn->first_pin_ns), bn->gpu.real ?
			" (includes registering the card memory with CUDA)" : "");
		for (int i = 0; i < bn->npins; i++)
			fprintf(f, "| %s | %.1f | %.1f |\n",
				cli_fmt_size(bn->pins[i].size, sz, sizeof(sz)),
				bench_us(bn->pins[i].pin.median_ns),
				bench_us(bn->pins[i].unpin.median_ns));
	}
	if (bn->nsoak)
		fprintf(f, "\n## Soak\n\n%d samples of %s transfers; drift (last third vs first, bandwidth): read %+.2f%%, write %+.2f%%\n",
			bn->nsoak, cli_fmt_size(bn->soak_size, sz, sizeof(sz)),
			bench_soak_drift(bn, BD_C2H), bench_soak_drift(bn, BD_H2C));
	return bench_close_out(f, path);
}
