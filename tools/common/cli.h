/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the hellofpga command-line tool (tools/hellofpga/) and the
 * programs its verbs run (tools/bench/, tools/selftest/) share: exit
 * statuses, messages, argument parsing, opening the card, buffers, time,
 * the progress line, and finding a program of the tool (util.c, prog.c).
 */
#ifndef HF_CLI_H
#define HF_CLI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hellofpga.h"

/* Exit statuses. */
#define CLI_EXIT_OK	0
#define CLI_EXIT_FAIL	1	/* an operation failed or data did not verify */
#define CLI_EXIT_USAGE	2	/* bad command line */
#define CLI_EXIT_NO_GPU	3	/* test, bench: a hardware card, no real GPU */

#define HF_BUF_ALIGN	4096

/* The card name given with -d, or NULL for the default card. */
extern const char *cli_device;

/* Messages. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_lib_err(HELLOFPGA_HANDLE h, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cli_usage_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Argument parsing. */
int cli_parse_size(const char *s, uint64_t *out);
int cli_parse_u32(const char *s, uint32_t *out);
int cli_parse_int(const char *s, int min, int max, int *out);
int cli_opt_size(const char *cmd, const char *opt, const char *arg,
		 uint64_t *out);
int cli_opt_channel(const char *cmd, const char *arg, int *out);
int cli_parse_duration(const char *s, uint64_t max_s, uint64_t *ns);
int cli_opt_help(int c, void (*usage)(FILE *f));
int cli_no_operand(const char *cmd, int argc, char **argv);

/* Card access. */
int cli_open(HELLOFPGA_HANDLE *h);
int cli_open_name(const char *name, HELLOFPGA_HANDLE *h);
int cli_open_or_emu(HELLOFPGA_HANDLE *h);
int cli_get_info(HELLOFPGA_HANDLE h, HELLOFPGA_INFO *info);
int cli_check_channel(const HELLOFPGA_INFO *info, int ch, bool h2c);
int cli_check_range(const HELLOFPGA_INFO *info, uint64_t addr, uint64_t len);
const char *cli_irq_name(int irq_mode);
int cli_need_refdesign(HELLOFPGA_HANDLE h, const char *what, const char *hint,
		       uint32_t *version);
int cli_report_gpu(const char *cmd, const HELLOFPGA_INFO *info,
		   HELLOFPGA_GPU_STATUS *gs);

/* The tool's programs (prog.c). */
int cli_find(const char *name, const char *rel, char *buf, size_t len);
int cli_run_program(const char *prog, int argc, char **argv);
void cli_program_args(int *argc, char ***argv);

/* Memory, time, formatting. */
void *cli_alloc(size_t size);
uint64_t cli_now_ns(void);
double cli_gbps(uint64_t bytes, uint64_t ns);
const char *cli_fmt_size(uint64_t bytes, char *buf, size_t len);

/**
 * struct cli_progress - a progress line on stderr, drawn by its own thread
 * once an operation has run for more than a second.
 */
struct cli_progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool running;
	bool stop;
	bool shown;
	bool tty;
	uint64_t start_ns;
	uint64_t last_ns;
	uint64_t done;
	uint64_t total;
	char label[96];
};

void cli_progress_start(struct cli_progress *p, uint64_t total);
void cli_progress_add(struct cli_progress *p, uint64_t n);
void cli_progress_label(struct cli_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cli_progress_stop(struct cli_progress *p);

#endif /* HF_CLI_H */
