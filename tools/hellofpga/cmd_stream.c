// SPDX-License-Identifier: MIT
/*
 * cmd_stream.c - "hellofpga stream": program the reference design's C2H
 * stream source (user BAR HF_USER_ST_SRC(ch)), take its frames through a
 * HelloFPGA_Stream ring in host or GPU memory, verify every frame
 * (core/hf_stream_pattern.h), and report frames, drops, corruption, rate
 * and latency.
 *
 * Latency: with --rate, the source's schedule is known (the first frame
 * is due when it is enabled, frame k at k / FPS after that), so a frame's
 * latency is the time from its due time to the Wait that handed out its
 * last buffer (on the emulated card both clocks are CLOCK_MONOTONIC).
 * Without --rate frames come back to back: the figure is then the time
 * between the Waits of consecutive frames.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "hf_stream_pattern.h"
#include "hf_user_regs.h"

#define ST_DEFAULT_FRAMES	10000u
#define ST_DEFAULT_BUFFERS	64u
#define ST_MAX_BUFFER		(64u << 20)
#define ST_IDLE_MS		2000

struct st_run {
	HELLOFPGA_HANDLE h;
	HELLOFPGA_STREAM s;
	int ch;
	uint64_t frames_wanted;	/* 0: until the duration ends */
	uint64_t duration_ns;
	uint64_t prog_ms;	/* --duration: milliseconds shown as done */
	uint32_t frame_size;
	uint32_t rec_min;
	uint32_t rec_max;
	bool records;
	uint32_t buffers;
	uint64_t buffer_size;
	bool gpu;
	double rate;
	bool drop;
	const char *json;
	/* GPU ring */
	void *gpu_mem;
	HELLOFPGA_GPU_HANDLE pin;
	uint8_t *bounce;
	/* results */
	uint64_t frames;
	uint64_t corrupt;
	uint64_t gaps;
	uint64_t bytes;
	uint64_t next_seq;
	bool synced;
	uint64_t *lat;
	size_t nlat;
	size_t cap_lat;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t prev_eop_ns;
	HELLOFPGA_STREAM_STATS st;
	struct cli_progress prog;
};

static void stream_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] stream [-c CH] [--frames N | --duration D]\n"
	      "                 [--frame-size SIZE] [--records MIN-MAX] [--buffers N]\n"
	      "                 [--buffer-size SIZE] [--gpu] [--rate FPS] [--drop]\n"
	      "                 [--json FILE]\n"
	      "\n"
	      "Stream frames from the C2H stream source of a card of the hellofpga\n"
	      "reference design with AXI-Stream channels (the emulated card's 'st'\n"
	      "option: -d emu,st) into a ring of buffers, verify every frame and\n"
	      "report frames, drops, corrupt frames, frames/s, GB/s and latency.\n"
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
	      "  -j, --json FILE         write the summary as JSON to FILE\n"
	      "  -h, --help              show this help\n"
	      "\n"
	      "Latency: with --rate, from a frame's due time on the source's schedule\n"
	      "to the Wait that handed out its last buffer; without it, the time\n"
	      "between the Waits of consecutive frames.  p50, p99 and max are shown.\n"
	      "\n"
	      "Exit status: 0; 1 when a frame was corrupt, or dropped without --drop,\n"
	      "or a call failed; 2 for a bad command line.\n", f);
}

static int src_wr(struct st_run *r, uint32_t reg, uint32_t v)
{
	int ret = HelloFPGA_UserWrite32(r->h, HF_USER_ST_SRC(r->ch) + reg, v);

	if (ret)
		cli_lib_err(r->h, ret, "cannot program the stream source");
	return ret;
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

static void lat_add(struct st_run *r, uint64_t ns)
{
	uint64_t *p;

	if (r->nlat == r->cap_lat) {
		r->cap_lat = r->cap_lat ? 2 * r->cap_lat : 4096;
		p = realloc(r->lat, r->cap_lat * sizeof(*p));
		if (!p)
			return;
		r->lat = p;
	}
	r->lat[r->nlat++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(const struct st_run *r, double p)
{
	size_t i;

	if (!r->nlat)
		return 0;
	i = (size_t)(p / 100.0 * (double)(r->nlat - 1) + 0.5);
	return r->lat[i < r->nlat ? i : r->nlat - 1];
}

static int setup(struct st_run *r)
{
	HELLOFPGA_STREAM_CONFIG c;
	uint32_t id = 0, ctrl;
	uint64_t ring;
	int ret;

	ret = HelloFPGA_UserRead32(r->h, HF_USER_ID, &id);
	if (ret) {
		cli_lib_err(r->h, ret, "cannot read the user BAR's HF_USER_ID");
		return ret;
	}
	if (id != HF_USER_ID_VALUE) {
		cli_err("not a card of the hellofpga reference design (HF_USER_ID reads 0x%08" PRIx32 ", not 0x%08x): it has no stream source to program",
			id, HF_USER_ID_VALUE);
		return -ENODEV;
	}
	memset(&c, 0, sizeof(c));
	c.channel = r->ch;
	c.buffers = r->buffers;
	c.buffer_size = r->buffer_size;
	ring = (uint64_t)r->buffers * r->buffer_size;
	if (r->gpu) {
		ret = HelloFPGA_GPU_Alloc(&r->gpu_mem, ring);
		if (ret) {
			cli_lib_err(NULL, ret, "cannot allocate %" PRIu64 " bytes of GPU memory",
				    ring);
			return ret;
		}
		ret = HelloFPGA_GPUDirect_Pin(r->h, r->gpu_mem, ring, &r->pin);
		if (ret) {
			cli_lib_err(r->h, ret, "cannot pin the GPU ring");
			return ret;
		}
		r->bounce = cli_alloc(r->buffer_size);
		if (!r->bounce)
			return -ENOMEM;
		c.gpu = r->pin;
	}
	ret = HelloFPGA_Stream_Open(r->h, &c, &r->s);
	if (ret) {
		cli_lib_err(r->h, ret, "cannot open the stream");
		return ret;
	}
	ctrl = HF_ST_SRC_CTRL_ENABLE | (r->records ? HF_ST_SRC_CTRL_RECORDS : 0) |
	       (r->drop ? HF_ST_SRC_CTRL_DROP : 0);
	if (src_wr(r, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR) ||
	    src_wr(r, HF_ST_SRC_FRAME_SIZE, r->frame_size) ||
	    src_wr(r, HF_ST_SRC_REC_MIN, r->rec_min) ||
	    src_wr(r, HF_ST_SRC_REC_MAX, r->rec_max) ||
	    src_wr(r, HF_ST_SRC_INTERVAL_NS,
		   r->rate > 0 ? (uint32_t)(1e9 / r->rate + 0.5) : 0) ||
	    src_wr(r, HF_ST_SRC_COUNT, (uint32_t)r->frames_wanted))
		return -EIO;
	r->start_ns = cli_now_ns();
	r->prev_eop_ns = r->start_ns;
	return src_wr(r, HF_ST_SRC_CTRL, ctrl);
}

/* One buffer of the frame in progress into @chk; at EOP the frame's end. */
static int take(struct st_run *r, struct hf_stream_check *chk,
		const HELLOFPGA_FRAME *f)
{
	const uint8_t *p = f->host;
	uint64_t seq, due;
	int ret;

	if (r->gpu) {
		ret = HelloFPGA_GPU_Memcpy(r->bounce,
					   (uint8_t *)r->gpu_mem + f->gpu_offset,
					   f->length,
					   HELLOFPGA_MEMCPY_GPU_TO_HOST);
		if (ret) {
			cli_lib_err(NULL, ret, "cannot copy a GPU buffer back");
			return ret;
		}
		p = r->bounce;
	}
	hf_stream_check_feed(chk, p, (uint32_t)f->length);
	r->bytes += f->length;
	if (!(f->flags & HELLOFPGA_FRAME_EOP))
		return 0;
	if (!hf_stream_check_end(chk, &seq)) {
		r->corrupt++;
		r->synced = false;
	} else {
		if (r->synced && seq > r->next_seq)
			r->gaps += seq - r->next_seq;
		r->synced = true;
		r->next_seq = seq + 1;
		if (r->rate > 0) {
			due = r->start_ns + (uint64_t)((double)seq * 1e9 / r->rate);
			lat_add(r, f->timestamp_ns > due ? f->timestamp_ns - due : 0);
		}
	}
	if (r->rate <= 0)
		lat_add(r, f->timestamp_ns - r->prev_eop_ns);
	r->prev_eop_ns = f->timestamp_ns;
	r->frames++;
	if (r->frames_wanted) {
		cli_progress_add(&r->prog, 1);
	} else {
		/* --duration: progress in milliseconds of it */
		uint64_t ms = (f->timestamp_ns - r->start_ns) / 1000000;

		if (ms > r->prog_ms) {
			cli_progress_add(&r->prog, ms - r->prog_ms);
			r->prog_ms = ms;
		}
	}
	return 0;
}

static int run(struct st_run *r)
{
	struct hf_stream_check chk;
	HELLOFPGA_FRAME f;
	uint32_t sts = 0;
	int ret;

	hf_stream_check_init(&chk);
	for (;;) {
		if (r->frames_wanted && r->frames >= r->frames_wanted)
			break;
		if (r->duration_ns && cli_now_ns() - r->start_ns >= r->duration_ns)
			break;
		ret = HelloFPGA_Stream_Wait(r->s, ST_IDLE_MS, &f);
		if (ret == -ETIMEDOUT) {
			/* drop mode: the source may be done, its tail dropped */
			HelloFPGA_UserRead32(r->h, HF_USER_ST_SRC(r->ch) +
					     HF_ST_SRC_STATUS, &sts);
			if (sts & HF_ST_SRC_STS_DONE)
				break;
			cli_lib_err(r->s ? r->h : NULL, ret,
				    "no frame for %d ms", ST_IDLE_MS);
			return ret;
		}
		if (ret) {
			cli_lib_err(r->h, ret, "stream wait failed");
			return ret;
		}
		ret = take(r, &chk, &f);
		if (!ret)
			ret = HelloFPGA_Stream_Release(r->s, f.index);
		if (ret) {
			cli_lib_err(r->h, ret, "stream failed");
			return ret;
		}
	}
	r->end_ns = cli_now_ns();
	return 0;
}

static void report(struct st_run *r)
{
	double s = (double)(r->end_ns - r->start_ns) / 1e9;
	double fps = s > 0 ? (double)r->frames / s : 0;
	double gbps = cli_gbps(r->bytes, r->end_ns - r->start_ns);
	struct cli_json j;

	qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u64);
	printf("stream: C2H%d, %u buffers of %" PRIu64 " bytes in %s memory\n",
	       r->ch, r->buffers, r->buffer_size, r->gpu ? "GPU" : "host");
	printf("frames:   %" PRIu64 " (%" PRIu64 " bytes, %" PRIu64 " buffers)\n",
	       r->frames, r->bytes, r->st.buffers);
	printf("dropped:  %" PRIu64 " (source), %" PRIu64 " (sequence gaps)\n",
	       r->st.source_dropped, r->gaps);
	printf("corrupt:  %" PRIu64 "\n", r->corrupt);
	printf("rate:     %.1f frames/s, %.3f GB/s\n", fps, gbps);
	printf("ring full: %" PRIu64 " times\n", r->st.ring_full);
	printf("latency (%s): p50 %.1f us, p99 %.1f us, max %.1f us\n",
	       r->rate > 0 ? "from the due time" : "between frames",
	       pct(r, 50) / 1e3, pct(r, 99) / 1e3, pct(r, 100) / 1e3);
	if (!r->json || cli_json_open(&j, r->json))
		return;
	cli_json_u64(&j, "channel", r->ch);
	cli_json_u64(&j, "buffers", r->buffers);
	cli_json_u64(&j, "buffer_size", r->buffer_size);
	cli_json_bool(&j, "gpu", r->gpu);
	cli_json_u64(&j, "frames", r->frames);
	cli_json_u64(&j, "bytes", r->bytes);
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
	cli_json_num(&j, "p50", "%.3f", pct(r, 50) / 1e3);
	cli_json_num(&j, "p99", "%.3f", pct(r, 99) / 1e3);
	cli_json_num(&j, "max", "%.3f", pct(r, 100) / 1e3);
	cli_json_end(&j);
	cli_json_close(&j);
}

static void teardown(struct st_run *r)
{
	if (r->s)
		HelloFPGA_Stream_Close(r->s);
	if (r->h)
		HelloFPGA_UserWrite32(r->h, HF_USER_ST_SRC(r->ch) + HF_ST_SRC_CTRL,
				      0);
	if (r->pin)
		HelloFPGA_GPUDirect_Unpin(r->h, r->pin);
	if (r->h)
		HelloFPGA_Close(r->h);
	if (r->gpu_mem)
		HelloFPGA_GPU_Free(r->gpu_mem);
	free(r->bounce);
	free(r->lat);
}

int cmd_stream(int argc, char **argv)
{
	static const char cmd[] = "stream";
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
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct st_run r;
	uint64_t v = 0;
	uint32_t n32;
	char *end;
	int c, ret;
	bool frames_given = false;

	memset(&r, 0, sizeof(r));
	r.frame_size = 4096;
	r.rec_min = 64;
	r.rec_max = 4096;
	r.buffers = ST_DEFAULT_BUFFERS;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+c:n:t:s:r:b:B:gR:Dj:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'c':
			if (cli_opt_channel(cmd, optarg, &r.ch))
				return CLI_EXIT_USAGE;
			break;
		case 'n':
			if (cli_parse_u32(optarg, &n32) || !n32) {
				cli_usage_err(cmd, "bad --frames '%s': 1..4294967295",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			r.frames_wanted = n32;
			frames_given = true;
			break;
		case 't':
			if (cli_parse_duration(optarg, 7 * 86400, &r.duration_ns) ||
			    !r.duration_ns) {
				cli_usage_err(cmd, "bad --duration '%s'", optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 's':
			if (cli_opt_size(cmd, "--frame-size", optarg, &v))
				return CLI_EXIT_USAGE;
			if (v < HF_STREAM_MIN_LEN || v > HF_STREAM_MAX_LEN) {
				cli_usage_err(cmd, "--frame-size %s: 16..%u bytes",
					      optarg, HF_STREAM_MAX_LEN);
				return CLI_EXIT_USAGE;
			}
			r.frame_size = (uint32_t)v;
			break;
		case 'r':
			if (parse_records(optarg, &r.rec_min, &r.rec_max)) {
				cli_usage_err(cmd, "bad --records '%s': MIN-MAX, 16 <= MIN <= MAX",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			r.records = true;
			break;
		case 'b':
			if (cli_parse_u32(optarg, &r.buffers) || r.buffers < 2 ||
			    r.buffers > HELLOFPGA_STREAM_MAX_BUFFERS) {
				cli_usage_err(cmd, "bad --buffers '%s': 2..%d", optarg,
					      HELLOFPGA_STREAM_MAX_BUFFERS);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'B':
			if (cli_opt_size(cmd, "--buffer-size", optarg,
					 &r.buffer_size))
				return CLI_EXIT_USAGE;
			if (!r.buffer_size || r.buffer_size % 4096 ||
			    r.buffer_size > ST_MAX_BUFFER) {
				cli_usage_err(cmd, "--buffer-size %s: a multiple of 4096, at most 64M",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'g':
			r.gpu = true;
			break;
		case 'R':
			r.rate = strtod(optarg, &end);
			if (*end || end == optarg || !(r.rate > 0) ||
			    r.rate < 0.25 || r.rate > 1e9) {
				cli_usage_err(cmd, "bad --rate '%s': frames per second, 0.25..1e9",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		case 'D':
			r.drop = true;
			break;
		case 'j':
			r.json = optarg;
			break;
		default:
			return cli_opt_help(c, stream_usage);
		}
	}
	if (cli_no_operand(cmd, argc, argv))
		return CLI_EXIT_USAGE;
	if (frames_given && r.duration_ns) {
		cli_usage_err(cmd, "--frames and --duration: give one");
		return CLI_EXIT_USAGE;
	}
	if (r.drop && r.rate <= 0) {
		cli_usage_err(cmd, "--drop needs --rate: a source sending back to back never drops");
		return CLI_EXIT_USAGE;
	}
	if (!frames_given && !r.duration_ns)
		r.frames_wanted = ST_DEFAULT_FRAMES;
	if (!r.buffer_size) {
		v = r.records ? r.rec_max : r.frame_size;
		v = (v + 4095) / 4096 * 4096;
		r.buffer_size = v > ST_MAX_BUFFER ? ST_MAX_BUFFER : v;
	}

	if (cli_open(&r.h))
		return CLI_EXIT_FAIL;
	ret = setup(&r);
	if (!ret) {
		cli_progress_start(&r.prog, r.frames_wanted ? r.frames_wanted :
				   r.duration_ns / 1000000);
		cli_progress_label(&r.prog, "stream: C2H%d", r.ch);
		ret = run(&r);
		cli_progress_stop(&r.prog);
	}
	if (!ret) {
		ret = HelloFPGA_Stream_GetStats(r.s, &r.st);
		if (ret)
			cli_lib_err(r.h, ret, "cannot read the stream's counters");
	}
	if (!ret)
		report(&r);
	teardown(&r);
	if (ret)
		return CLI_EXIT_FAIL;
	if (r.corrupt)
		return CLI_EXIT_FAIL;
	if (!r.drop && (r.st.source_dropped || r.gaps))
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}
