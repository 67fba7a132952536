/* SPDX-License-Identifier: MIT */
/*
 * json.h - the one JSON writer of the tool's --json outputs (json.c):
 * "hellofpga doctor", "stream", the bench and the test program.
 */
#ifndef HF_CLI_JSON_H
#define HF_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
void cli_json_real(struct cli_json *j, const char *key, double v);
void cli_json_bool(struct cli_json *j, const char *key, bool v);
void cli_json_null(struct cli_json *j, const char *key);

#endif /* HF_CLI_JSON_H */
