// SPDX-License-Identifier: MIT
/*
 * cmd_stream.c - "hellofpga stream": program the reference design's C2H
 * stream source (user BAR HF_USER_ST_SRC(ch)), take its frames through a
 * HelloFPGA_Stream ring in host or GPU memory, verify every frame
 * (refdesign/hf_stream_pattern.h), and report frames, drops, corruption, rate
 * and latency (what latency means: stream_run.h); or, --raw, take the
 * frames of any design as they come and report their lengths, rate, drops
 * and gaps.  --save writes the frames to a file.  The run itself is
 * stream_run.c's, shared with the bench's stream section.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "json.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "stream_run.h"

#define ST_DEFAULT_FRAMES	10000u
#define ST_DEFAULT_BUFFERS	64u
#define ST_MAX_BUFFER		(64u << 20)
#define ST_RAW_BUFFER		(64u << 10)	/* --raw's default buffer size */

/* long options without a short one */
enum { OPT_RAW = 256, OPT_SAVE, OPT_TIMEOUT };

/* what the command line asks beyond the run's fields */
struct st_args {
	const char *json;
	const char *save;
	bool frames_given;
	const char *src_opt;	/* an option that programs the source */
};

static void stream_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] stream [-c CH] [--frames N | --duration D]\n"
	      "                 [--frame-size SIZE] [--records MIN-MAX] [--buffers N]\n"
	      "                 [--buffer-size SIZE] [--gpu] [--rate FPS] [--drop]\n"
	      "                 [--raw] [--save FILE] [--timeout MS] [--json FILE]\n"
	      "\n"
	      "Stream frames from the C2H stream source of a card of the hellofpga\n"
	      "reference design with AXI-Stream channels (the emulated card's 'st'\n"
	      "option: -d emu,st) into a ring of buffers, verify every frame and\n"
	      "report frames, drops, corrupt frames, frames/s, GB/s and latency.\n"
	      "A card of another design: --raw.\n"
	      "\n"
	      "  -c, --channel CH        C2H channel (default 0)\n"
	      "  -n, --frames N          frames to take (default 10000)\n"
	      "  -t, --duration D        run for D instead (90s, 10m, 250ms)\n"
	      "  -s, --frame-size SIZE   bytes per frame, 16 or more (default 4096)\n"
	      "  -r, --records MIN-MAX   records of varying length, MIN..MAX bytes\n"
	      "  -b, --buffers N         ring buffers, 2..512 (default 64)\n"
	      "  -B, --buffer-size SIZE  bytes per buffer, a multiple of 4096 (default:\n"
	      "                          the frame size or MAX rounded up to 4096,\n"
	      "                          at most 64M); longer frames span buffers\n"
	      "  -g, --gpu               the ring in GPU memory (GPU Direct): each\n"
	      "                          frame is copied back and verified\n"
	      "  -R, --rate FPS          the source sends FPS frames per second\n"
	      "                          (default: back to back)\n"
	      "  -D, --drop              with --rate: the source drops a frame that\n"
	      "                          finds no free buffer (default: it waits)\n"
	      "      --raw               any design: program nothing, check nothing;\n"
	      "                          take the frames its C2H channel sends and\n"
	      "                          report their lengths, rate, drops and gaps\n"
	      "                          (no --frame-size, --records, --rate, --drop)\n"
	      "      --save FILE         write every frame to FILE: per frame a\n"
	      "                          24-byte header (u32 magic 0x52464648, u32\n"
	      "                          length, u64 index, u64 timestamp ns, little\n"
	      "                          endian), then its bytes\n"
	      "      --timeout MS        fail when no frame came for MS milliseconds\n"
	      "                          (default 2000; --raw --duration waits on)\n"
	      "  -j, --json FILE         write the summary as JSON to FILE\n"
	      "  -h, --help              show this help\n"
	      "\n"
	      "Latency: with --rate, from a frame's due time on the source's schedule\n"
	      "to the Wait that handed out its last buffer; without it, the time\n"
	      "between the Waits of consecutive frames.  p50, p99 and max are shown.\n"
	      "\n"
	      "--raw: gaps are the times between the Waits of consecutive frames;\n"
	      "drops are what the library knows: the times the ring was full (the\n"
	      "card had no free buffer) and, on the reference design, its source's\n"
	      "DROPPED counter.  The default buffer size is 64K.\n"
	      "\n"
	      "Exit status: 0; 1 when a frame was corrupt, or dropped without --drop\n"
	      "(not with --raw), or a call failed, or the card is not of the reference\n"
	      "design without --raw; 2 for a bad command line.\n", f);
}

static int parse_records(const char *s, uint32_t *min, uint32_t *max)
{
	char buf[64], *dash;
	uint64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (!dash)
		return -EINVAL;
	*dash = '\0';
	if (cli_parse_size(buf, &a) || cli_parse_size(dash + 1, &b))
		return -EINVAL;
	if (a < HF_STREAM_MIN_LEN || b < a || b > HF_STREAM_MAX_LEN)
		return -EINVAL;
	*min = (uint32_t)a;
	*max = (uint32_t)b;
	return 0;
}

/* The lines and JSON members both summaries share: what the ring was. */
static bool report_head(const struct st_run *r, const char *json,
			struct cli_json *j)
{
	printf("stream: C2H%d, %u buffers of %" PRIu64 " bytes in %s memory%s\n",
	       r->ch, r->buffers, r->buffer_size, r->gpu ? "GPU" : "host",
	       r->raw ? ", raw (the design's frames, unchecked)" : "");
	printf("frames:   %" PRIu64 " (%" PRIu64 " bytes, %" PRIu64 " buffers)\n",
	       r->frames, r->bytes, r->st.buffers);
	if (!json || cli_json_open(j, json))
		return false;
	cli_json_u64(j, "channel", r->ch);
	cli_json_u64(j, "buffers", r->buffers);
	cli_json_u64(j, "buffer_size", r->buffer_size);
	cli_json_bool(j, "gpu", r->gpu);
	cli_json_bool(j, "raw", r->raw);
	cli_json_u64(j, "frames", r->frames);
	cli_json_u64(j, "bytes", r->bytes);
	return true;
}

static void report(struct st_run *r, const char *json)
{
	double s = (double)(r->end_ns - r->start_ns) / 1e9;
	double fps = s > 0 ? (double)r->frames / s : 0;
	double gbps = cli_gbps(r->bytes, r->end_ns - r->start_ns);
	struct cli_json j;
	bool js;

	st_finish(r);
	js = report_head(r, json, &j);
	printf("dropped:  %" PRIu64 " (source), %" PRIu64 " (sequence gaps)\n",
	       r->st.source_dropped, r->gaps);
	printf("corrupt:  %" PRIu64 "\n", r->corrupt);
	printf("rate:     %.1f frames/s, %.3f GB/s\n", fps, gbps);
	printf("ring full: %" PRIu64 " times\n", r->st.ring_full);
	printf("latency (%s): p50 %.1f us, p99 %.1f us, max %.1f us\n",
	       r->rate > 0 ? "from the due time" : "between frames",
	       st_pct(r, 50) / 1e3, st_pct(r, 99) / 1e3, st_pct(r, 100) / 1e3);
	if (!js)
		return;
	cli_json_u64(&j, "dropped", r->st.source_dropped);
	cli_json_u64(&j, "sequence_gaps", r->gaps);
	cli_json_u64(&j, "corrupt", r->corrupt);
	cli_json_u64(&j, "ring_full", r->st.ring_full);
	cli_json_num(&j, "seconds", "%.6f", s);
	cli_json_num(&j, "fps", "%.3f", fps);
	cli_json_num(&j, "gbps", "%.6f", gbps);
	cli_json_obj(&j, "latency_us");
	cli_json_str(&j, "meaning", r->rate > 0 ? "from the due time" :
						  "between frames");
	cli_json_num(&j, "p50", "%.3f", st_pct(r, 50) / 1e3);
	cli_json_num(&j, "p99", "%.3f", st_pct(r, 99) / 1e3);
	cli_json_num(&j, "max", "%.3f", st_pct(r, 100) / 1e3);
	cli_json_end(&j);
	cli_json_close(&j);
}

/* --raw's summary: lengths, rate, what the library knows of drops, gaps. */
static void report_raw(struct st_run *r, const char *json, const char *save)
{
	double s = (double)(r->end_ns - r->start_ns) / 1e9;
	double fps = s > 0 ? (double)r->frames / s : 0;
	double mbps = s > 0 ? (double)r->bytes / s / 1e6 : 0;
	double mean = r->frames ? (double)r->bytes / (double)r->frames : 0;
	uint64_t med;
	size_t over;
	struct cli_json j;
	bool js;

	st_finish(r);
	med = st_pct(r, 50);
	over = st_count_above(r, 2 * med);
	js = report_head(r, json, &j);
	printf("lengths:  min %" PRIu64 ", mean %.1f, max %" PRIu64 " bytes\n",
	       r->len_min, mean, r->len_max);
	printf("rate:     %.1f frames/s, %.3f MB/s\n", fps, mbps);
	printf("dropped:  %" PRIu64 " (source: the reference design's count; 0 on other designs)\n",
	       r->st.source_dropped);
	printf("ring full: %" PRIu64 " times\n", r->st.ring_full);
	printf("gaps:     min %.1f us, median %.1f us, max %.1f us; %zu over twice the median\n",
	       st_pct(r, 0) / 1e3, med / 1e3, st_pct(r, 100) / 1e3, over);
	if (save)
		printf("saved:    %" PRIu64 " frames to %s\n", r->frames, save);
	if (!js)
		return;
	cli_json_obj(&j, "length");
	cli_json_u64(&j, "min", r->len_min);
	cli_json_num(&j, "mean", "%.3f", mean);
	cli_json_u64(&j, "max", r->len_max);
	cli_json_end(&j);
	cli_json_num(&j, "seconds", "%.6f", s);
	cli_json_num(&j, "fps", "%.3f", fps);
	cli_json_num(&j, "mbps", "%.3f", mbps);
	cli_json_u64(&j, "dropped", r->st.source_dropped);
	cli_json_u64(&j, "ring_full", r->st.ring_full);
	cli_json_obj(&j, "gaps_us");
	cli_json_num(&j, "min", "%.3f", st_pct(r, 0) / 1e3);
	cli_json_num(&j, "median", "%.3f", med / 1e3);
	cli_json_num(&j, "max", "%.3f", st_pct(r, 100) / 1e3);
	cli_json_u64(&j, "over_twice_median", over);
	cli_json_end(&j);
	if (save)
		cli_json_str(&j, "saved", save);
	cli_json_close(&j);
}

static void teardown(struct st_run *r)
{
	st_free(r);
	if (r->h)
		HelloFPGA_Close(r->h);
}

static const char cmd[] = "stream";

/*
 * stream_opt() - option @c of "stream" with argument @arg into @r and @a.
 * Return: -1 to go on, else the exit status (after --help or a usage
 * error).
 */
static int stream_opt(int c, const char *arg, struct st_run *r,
		      struct st_args *a)
{
	uint64_t v = 0;
	uint32_t n32;
	char *end;

	switch (c) {
	case 'c':
		return cli_opt_channel(cmd, arg, &r->ch) ? CLI_EXIT_USAGE : -1;
	case 'n':
		if (cli_parse_u32(arg, &n32) || !n32) {
			cli_usage_err(cmd, "bad --frames '%s': 1..4294967295", arg);
			return CLI_EXIT_USAGE;
		}
		r->frames_wanted = n32;
		a->frames_given = true;
		return -1;
	case 't':
		if (cli_parse_duration(arg, 7 * 86400, &r->duration_ns) ||
		    !r->duration_ns) {
			cli_usage_err(cmd, "bad --duration '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 's':
		a->src_opt = a->src_opt ? a->src_opt : "--frame-size";
		if (cli_opt_size(cmd, "--frame-size", arg, &v))
			return CLI_EXIT_USAGE;
		if (v < HF_STREAM_MIN_LEN || v > HF_STREAM_MAX_LEN) {
			cli_usage_err(cmd, "--frame-size %s: 16..%u bytes", arg,
				      HF_STREAM_MAX_LEN);
			return CLI_EXIT_USAGE;
		}
		r->frame_size = (uint32_t)v;
		return -1;
	case 'r':
		a->src_opt = a->src_opt ? a->src_opt : "--records";
		if (parse_records(arg, &r->rec_min, &r->rec_max)) {
			cli_usage_err(cmd, "bad --records '%s': MIN-MAX, 16 <= MIN <= MAX",
				      arg);
			return CLI_EXIT_USAGE;
		}
		r->records = true;
		return -1;
	case 'b':
		if (cli_parse_u32(arg, &r->buffers) || r->buffers < 2 ||
		    r->buffers > HELLOFPGA_STREAM_MAX_BUFFERS) {
			cli_usage_err(cmd, "bad --buffers '%s': 2..%d", arg,
				      HELLOFPGA_STREAM_MAX_BUFFERS);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'B':
		if (cli_opt_size(cmd, "--buffer-size", arg, &r->buffer_size))
			return CLI_EXIT_USAGE;
		if (!r->buffer_size || r->buffer_size % 4096 ||
		    r->buffer_size > ST_MAX_BUFFER) {
			cli_usage_err(cmd, "--buffer-size %s: a multiple of 4096, at most 64M",
				      arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'g':
		r->gpu = true;
		return -1;
	case 'R':
		a->src_opt = a->src_opt ? a->src_opt : "--rate";
		r->rate = strtod(arg, &end);
		if (*end || end == arg || !(r->rate > 0) || r->rate < 0.25 ||
		    r->rate > 1e9) {
			cli_usage_err(cmd, "bad --rate '%s': frames per second, 0.25..1e9",
				      arg);
			return CLI_EXIT_USAGE;
		}
		return -1;
	case 'D':
		a->src_opt = a->src_opt ? a->src_opt : "--drop";
		r->drop = true;
		return -1;
	case OPT_RAW:
		r->raw = true;
		return -1;
	case OPT_SAVE:
		if (!*arg || !strcmp(arg, "-")) {
			cli_usage_err(cmd, "bad --save '%s': a file (standard output has the summary)",
				      arg);
			return CLI_EXIT_USAGE;
		}
		a->save = arg;
		return -1;
	case OPT_TIMEOUT:
		if (cli_parse_u32(arg, &n32) || !n32 || n32 > 3600000) {
			cli_usage_err(cmd, "bad --timeout '%s': 1..3600000 ms", arg);
			return CLI_EXIT_USAGE;
		}
		r->idle_ms = n32;
		return -1;
	case 'j':
		a->json = arg;
		return -1;
	default:
		return cli_opt_help(c, stream_usage);
	}
}

/*
 * stream_args() - the options of "stream" into @r and @a, checked
 * together, and the defaults of what was not given.
 * Return: -1 to run, else the exit status.
 */
static int stream_args(int argc, char **argv, struct st_run *r,
		       struct st_args *a)
{
	static const struct option opts[] = {
		{ "channel", required_argument, NULL, 'c' },
		{ "frames", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 't' },
		{ "frame-size", required_argument, NULL, 's' },
		{ "records", required_argument, NULL, 'r' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "buffer-size", required_argument, NULL, 'B' },
		{ "gpu", no_argument, NULL, 'g' },
		{ "rate", required_argument, NULL, 'R' },
		{ "drop", no_argument, NULL, 'D' },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, ret;

	memset(r, 0, sizeof(*r));
	memset(a, 0, sizeof(*a));
	r->frame_size = 4096;
	r->rec_min = 64;
	r->rec_max = 4096;
	r->buffers = ST_DEFAULT_BUFFERS;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+c:n:t:s:r:b:B:gR:Dj:h", opts,
				NULL)) != -1) {
		ret = stream_opt(c, optarg, r, a);
		if (ret >= 0)
			return ret;
	}
	if (cli_no_operand(cmd, argc, argv))
		return CLI_EXIT_USAGE;
	if (a->frames_given && r->duration_ns) {
		cli_usage_err(cmd, "--frames and --duration: give one");
		return CLI_EXIT_USAGE;
	}
	if (r->raw && a->src_opt) {
		cli_usage_err(cmd, "--raw and %s: --raw takes what the design sends, %s programs the reference design's source",
			      a->src_opt, a->src_opt);
		return CLI_EXIT_USAGE;
	}
	if (r->drop && r->rate <= 0) {
		cli_usage_err(cmd, "--drop needs --rate: a source sending back to back never drops");
		return CLI_EXIT_USAGE;
	}
	if (!a->frames_given && !r->duration_ns)
		r->frames_wanted = ST_DEFAULT_FRAMES;
	if (!r->buffer_size && r->raw) {
		r->buffer_size = ST_RAW_BUFFER;
	} else if (!r->buffer_size) {
		v = r->records ? r->rec_max : r->frame_size;
		v = (v + 4095) / 4096 * 4096;
		r->buffer_size = v > ST_MAX_BUFFER ? ST_MAX_BUFFER : v;
	}
	return -1;
}

/* The run, from the open card to its figures.  Return: 0 or the error. */
static int stream_run(struct st_run *r)
{
	int ret = st_setup(r);

	if (!ret) {
		cli_progress_start(&r->prog, r->frames_wanted ? r->frames_wanted :
				   r->duration_ns / 1000000);
		r->progress = true;
		cli_progress_label(&r->prog, "stream: C2H%d", r->ch);
		ret = st_run(r);
		cli_progress_stop(&r->prog);
	}
	if (!ret) {
		ret = HelloFPGA_Stream_GetStats(r->s, &r->st);
		if (ret)
			cli_lib_err(r->h, ret, "cannot read the stream's counters");
	}
	return ret;
}

/* --save's file: closed, and its errors reported.  Return: 0 or -EIO. */
static int save_close(struct st_run *r, const char *path)
{
	if (!r->save || !fclose(r->save)) {
		r->save = NULL;
		return 0;
	}
	r->save = NULL;
	cli_err("--save %s: %s", path, strerror(errno));
	return -EIO;
}

int cmd_stream(int argc, char **argv)
{
	struct st_args a;
	struct st_run r;
	int ret;

	ret = stream_args(argc, argv, &r, &a);
	if (ret >= 0)
		return ret;
	if (cli_open(&r.h))
		return CLI_EXIT_FAIL;
	if (a.save && !(r.save = fopen(a.save, "wb"))) {
		cli_err("--save %s: %s", a.save, strerror(errno));
		teardown(&r);
		return CLI_EXIT_FAIL;
	}
	ret = stream_run(&r);
	if (save_close(&r, a.save) && !ret)
		ret = -EIO;
	if (!ret && r.raw)
		report_raw(&r, a.json, a.save);
	else if (!ret)
		report(&r, a.json);
	teardown(&r);
	if (ret)
		return CLI_EXIT_FAIL;
	if (r.corrupt)
		return CLI_EXIT_FAIL;
	if (!r.drop && !r.raw && (r.st.source_dropped || r.gaps))
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}
