// SPDX-License-Identifier: MIT
/*
 * stream_run.c - one C2H stream run (stream_run.h): "hellofpga stream"
 * and the bench's stream section.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hf_stream_pattern.h"
#include "hf_user_regs.h"
#include "stream_run.h"

#define ST_IDLE_MS		2000

static int src_wr(struct st_run *r, uint32_t reg, uint32_t v)
{
	int ret = HelloFPGA_UserWrite32(r->h, HF_USER_ST_SRC(r->ch) + reg, v);

	if (ret)
		cli_lib_err(r->h, ret, "cannot program the stream source");
	return ret;
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

/* The @p-th percentile of the latencies, ns; st_finish() sorted them. */
uint64_t st_pct(const struct st_run *r, double p)
{
	size_t i;

	if (!r->nlat)
		return 0;
	i = (size_t)(p / 100.0 * (double)(r->nlat - 1) + 0.5);
	return r->lat[i < r->nlat ? i : r->nlat - 1];
}

/* The latencies above @ns; st_finish() sorted them. */
size_t st_count_above(const struct st_run *r, uint64_t ns)
{
	size_t n = r->nlat;

	while (n && r->lat[n - 1] > ns)
		n--;
	return r->nlat - n;
}

/* The reference design's source: the run's frames, from its start. */
static int src_program(struct st_run *r)
{
	uint32_t ctrl = HF_ST_SRC_CTRL_ENABLE |
			(r->records ? HF_ST_SRC_CTRL_RECORDS : 0) |
			(r->drop ? HF_ST_SRC_CTRL_DROP : 0);

	if (src_wr(r, HF_ST_SRC_FRAME_SIZE, r->frame_size) ||
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

int st_setup(struct st_run *r)
{
	HELLOFPGA_STREAM_CONFIG c;
	uint64_t ring;
	int ret;

	if (!r->raw) {
		ret = cli_need_refdesign(r->h, r->name ? r->name : "stream",
					 r->name ? NULL :
					 "use --raw for the frames of another design",
					 NULL);
		if (ret)
			return ret;
		r->src_set = true;
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
	/*
	 * The source's counters to 0 before the stream opens: Open takes
	 * them as the stream's base (on a real card they hold what earlier
	 * runs, of other processes too, counted)
	 */
	if (r->src_set && src_wr(r, HF_ST_SRC_CTRL, HF_ST_SRC_CTRL_CLEAR))
		return -EIO;
	ret = HelloFPGA_Stream_Open(r->h, &c, &r->s);
	if (ret) {
		cli_lib_err(r->h, ret, "cannot open the stream");
		return ret;
	}
	if (r->src_set)
		return src_program(r);
	r->start_ns = cli_now_ns();
	r->prev_eop_ns = r->start_ns;
	return 0;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Save: the buffer @p of @f; at its EOP the frame, whole, with its header
 * (stream_run.h).  A frame that spans buffers is gathered first.
 */
static int save_take(struct st_run *r, const HELLOFPGA_FRAME *f,
		     const uint8_t *p)
{
	uint64_t len = r->cur_len + f->length;
	uint8_t hdr[ST_SAVE_HDR];
	size_t cap;
	uint8_t *n;

	if (len > UINT32_MAX) {
		cli_err("--save: frame %" PRIu64 " is longer than 4 GiB - 1 bytes: its length has 32 bits",
			f->frame);
		return -EFBIG;
	}
	if (r->cur_len || !(f->flags & HELLOFPGA_FRAME_EOP)) {
		if (len > r->pend_cap) {
			cap = len > 2 * r->pend_cap ? len : 2 * r->pend_cap;
			n = realloc(r->pend, cap);
			if (!n) {
				cli_err("--save: out of memory for a frame of %" PRIu64 " bytes",
					len);
				return -ENOMEM;
			}
			r->pend = n;
			r->pend_cap = cap;
		}
		memcpy(r->pend + r->cur_len, p, f->length);
		if (!(f->flags & HELLOFPGA_FRAME_EOP))
			return 0;
		p = r->pend;
	}
	put_le(hdr, ST_SAVE_MAGIC, 4);
	put_le(hdr + 4, len, 4);
	put_le(hdr + 8, f->frame, 8);
	put_le(hdr + 16, f->timestamp_ns, 8);
	if (fwrite(hdr, 1, sizeof(hdr), r->save) != sizeof(hdr) ||
	    fwrite(p, 1, len, r->save) != len) {
		cli_err("--save: cannot write frame %" PRIu64 ": %s", f->frame,
			strerror(errno));
		return -EIO;
	}
	return 0;
}

/* The end of a frame of the reference design: its check, sequence and
 * latency. */
static void checked_end(struct st_run *r, struct hf_stream_check *chk,
			const HELLOFPGA_FRAME *f)
{
	uint64_t seq, due;

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
}

/* The end of a frame of a raw run: its length, the gap since the last. */
static void raw_end(struct st_run *r, const HELLOFPGA_FRAME *f)
{
	if (!r->frames || r->cur_len < r->len_min)
		r->len_min = r->cur_len;
	if (r->cur_len > r->len_max)
		r->len_max = r->cur_len;
	if (r->frames)
		lat_add(r, f->timestamp_ns - r->prev_eop_ns);
}

/* One buffer of the frame in progress into @chk; at EOP the frame's end. */
static int take(struct st_run *r, struct hf_stream_check *chk,
		const HELLOFPGA_FRAME *f)
{
	const uint8_t *p = f->host;
	int ret;

	if (r->gpu && (!r->raw || r->save)) {
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
	if (!r->raw)
		hf_stream_check_feed(chk, p, (uint32_t)f->length);
	if (r->save) {
		ret = save_take(r, f, p);
		if (ret)
			return ret;
	}
	r->bytes += f->length;
	r->cur_len += f->length;
	if (!(f->flags & HELLOFPGA_FRAME_EOP))
		return 0;
	if (r->raw)
		raw_end(r, f);
	else
		checked_end(r, chk, f);
	r->cur_len = 0;
	r->prev_eop_ns = f->timestamp_ns;
	r->frames++;
	if (!r->progress) {
		return 0;
	} else if (r->frames_wanted) {
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

/*
 * A Wait that timed out after @tmo ms: the end of the run (1), or its
 * failure (negative, reported).  Raw runs for a duration wait on to its
 * end; the reference design's source may be done, its tail dropped.
 */
static int idle(struct st_run *r, int tmo)
{
	uint32_t sts = 0;

	if (r->raw && r->duration_ns)
		return 0;
	if (r->src_set) {
		HelloFPGA_UserRead32(r->h, HF_USER_ST_SRC(r->ch) +
				     HF_ST_SRC_STATUS, &sts);
		if (sts & HF_ST_SRC_STS_DONE)
			return 1;
	}
	cli_lib_err(r->h, -ETIMEDOUT, "no frame for %d ms after %" PRIu64 " frames",
		    tmo, r->frames);
	return -ETIMEDOUT;
}

int st_run(struct st_run *r)
{
	uint64_t idle_ms = r->idle_ms ? r->idle_ms : ST_IDLE_MS;
	struct hf_stream_check chk;
	HELLOFPGA_FRAME f;
	uint64_t t;
	int ret, tmo;

	hf_stream_check_init(&chk);
	for (;;) {
		if (r->frames_wanted && r->frames >= r->frames_wanted)
			break;
		t = cli_now_ns() - r->start_ns;
		if (r->duration_ns && r->frames >= r->min_frames &&
		    t >= r->duration_ns)
			break;
		tmo = (int)idle_ms;
		if (r->raw && r->duration_ns &&
		    (r->duration_ns - t) / 1000000 < idle_ms)
			tmo = (int)((r->duration_ns - t) / 1000000) + 1;
		ret = HelloFPGA_Stream_Wait(r->s, tmo, &f);
		if (ret == -ETIMEDOUT) {
			ret = idle(r, tmo);
			if (ret > 0)
				break;
			if (ret)
				return ret;
			continue;
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

/* Sort the latencies for st_pct(). */
void st_finish(struct st_run *r)
{
	if (r->nlat)
		qsort(r->lat, r->nlat, sizeof(*r->lat), cmp_u64);
}

/* Stop the source and the stream, free the ring; the handle stays open. */
void st_free(struct st_run *r)
{
	if (r->s)
		HelloFPGA_Stream_Close(r->s);
	if (r->src_set)
		HelloFPGA_UserWrite32(r->h, HF_USER_ST_SRC(r->ch) + HF_ST_SRC_CTRL,
				      0);
	if (r->pin)
		HelloFPGA_GPUDirect_Unpin(r->h, r->pin);
	if (r->gpu_mem)
		HelloFPGA_GPU_Free(r->gpu_mem);
	free(r->bounce);
	free(r->lat);
	free(r->pend);
	r->s = NULL;
	r->pin = 0;
	r->gpu_mem = NULL;
	r->bounce = NULL;
	r->lat = NULL;
	r->nlat = r->cap_lat = 0;
	r->pend = NULL;
	r->pend_cap = 0;
	r->src_set = false;
}

