/* SPDX-License-Identifier: MIT */
/*
 * cli.h - shared declarations of the hellofpga command-line tool.
 *
 * Each command lives in its own cmd_*.c file and is entered through a
 * cmd_*() function taking the command's own argc/argv (argv[0] is the
 * command name) and returning the process exit status.
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

/* Commands. */
int cmd_info(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_read(int argc, char **argv);
int cmd_reg(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

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

/* json.c: the JSON writer of --json outputs */
#define CLI_JSON_MAX_DEPTH	8

/**
 * struct cli_json - a JSON file being written.
 * @f: the file
 * @path: its name, for errors
 * @depth: open objects and arrays
 * @close: the closing character of each
 * @count: members written in each
 */
struct cli_json {
	FILE *f;
	const char *path;
	int depth;
	char close[CLI_JSON_MAX_DEPTH];
	unsigned int count[CLI_JSON_MAX_DEPTH];
};

int cli_json_open(struct cli_json *j, const char *path);
int cli_json_close(struct cli_json *j);
void cli_json_obj(struct cli_json *j, const char *key);
void cli_json_arr(struct cli_json *j, const char *key);
void cli_json_end(struct cli_json *j);
void cli_json_str(struct cli_json *j, const char *key, const char *v);
void cli_json_u64(struct cli_json *j, const char *key, uint64_t v);
void cli_json_int(struct cli_json *j, const char *key, long long v);
void cli_json_num(struct cli_json *j, const char *key, const char *fmt,
		  double v);
void cli_json_bool(struct cli_json *j, const char *key, bool v);
void cli_json_null(struct cli_json *j, const char *key);

/* Card access. */
int cli_open(HELLOFPGA_HANDLE *h);
int cli_open_name(const char *name, HELLOFPGA_HANDLE *h);
int cli_open_or_emu(HELLOFPGA_HANDLE *h);
int cli_get_info(HELLOFPGA_HANDLE h, HELLOFPGA_INFO *info);
int cli_check_channel(const HELLOFPGA_INFO *info, int ch, bool h2c);
int cli_check_range(const HELLOFPGA_INFO *info, uint64_t addr, uint64_t len);
const char *cli_irq_name(int irq_mode);
int cli_report_gpu(const char *cmd, const HELLOFPGA_INFO *info,
		   HELLOFPGA_GPU_STATUS *gs);

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
