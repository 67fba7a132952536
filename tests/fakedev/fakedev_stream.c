// SPDX-License-Identifier: MIT
/*
 * fakedev_stream.c - the fake driver's C2H stream rings on AXI-Stream
 * cards: STREAM_START, _WAIT, _RELEASE, _STOP, _STATS.
 */
#include "fakedev.h"

/* ---- C2H stream rings (AXI-Stream cards) ---- */

/* STREAM_WB_PIN: the slots' pin of control node @c->wb_fd, claimed. */
static int wb_claim(struct fk_file *f, struct fk_stream *st,
		    const struct hellofpga_stream_config *c)
{
	struct fk_file *o = file_get(c->wb_fd);
	uint8_t *addr = NULL;
	uint64_t size = 0;

	if (!o || o->card != f->card || o->node != FK_CONTROL) {
		if (o)
			file_put(o);
		return fail(f, -EBADF, "STREAM_START: wb_fd %d is not the control node of the card",
			    c->wb_fd);
	}
	st->wb_owner = o;
	pthread_mutex_lock(&o->lock);
	for (struct fk_pin *p = o->pins; p; p = p->next)
		if (p->handle == c->wb_handle) {
			st->wb_pin = p;
			addr = p->addr;
			size = p->size;
		}
	if (st->wb_pin)
		st->wb_pin->streams++;
	pthread_mutex_unlock(&o->lock);
	if (!st->wb_pin)
		return fail(f, -ENOENT, "STREAM_START: no pin with handle %llu on that control node",
			    (unsigned long long)c->wb_handle);
	if (c->wb_offset > size || (uint64_t)c->buffers * 32 > size - c->wb_offset)
		return fail(f, -EINVAL, "STREAM_START: %u writeback slots of 32 bytes at wb_offset 0x%llx lie past the end of pin %llu",
			    c->buffers, (unsigned long long)c->wb_offset,
			    (unsigned long long)c->wb_handle);
	if (c->wb_offset / FK_PAGE !=
	    (c->wb_offset + (uint64_t)c->buffers * 32 - 1) / FK_PAGE)
		return fail(f, -EINVAL, "STREAM_START: HELLOFPGA_STREAM_WB_PIN: the slots do not lie in one contiguous bus piece of pin %llu (keep them in one page, or use an IOMMU)",
			    (unsigned long long)c->wb_handle);
	if (getenv("HF_FAKEDEV_WB_BOUNCE"))
		return fail(f, -EOPNOTSUPP, "STREAM_START: HELLOFPGA_STREAM_WB_PIN: pin %llu's DMA mapping needs CPU syncs (swiotlb bounce buffers or a non-coherent device) (fake)",
			    (unsigned long long)c->wb_handle);
	st->slots = (volatile uint32_t *)(addr + c->wb_offset);
	memset((void *)st->slots, 0, (size_t)c->buffers * 32);
	return 0;
}

static int ioc_stream_start(struct fk_file *f, struct hellofpga_stream_config *c)
{
	struct fk_card *card = f->card;
	HELLOFPGA_STREAM_CONFIG cfg;
	struct fk_stream *st;
	struct fk_map *m = NULL;
	int ret;

	if ((c->flags & ~HELLOFPGA_STREAM_WB_PIN) || c->mmap_size ||
	    c->start_flags || !zero(c->reserved, sizeof(c->reserved)))
		return fail(f, -EINVAL, "STREAM_START: flags: 0 or WB_PIN; mmap_size, start_flags, reserved 0");
	if (!(c->flags & HELLOFPGA_STREAM_WB_PIN) &&
	    (c->wb_handle || c->wb_offset || c->wb_fd))
		return fail(f, -EINVAL, "STREAM_START: wb_handle, wb_offset, wb_fd must be 0 without WB_PIN");
	if ((c->flags & HELLOFPGA_STREAM_WB_PIN) &&
	    !(fk_features() & HELLOFPGA_FEAT_STREAM_WB_PIN))
		return fail(f, -EINVAL, "STREAM_START: WB_PIN needs FEAT_STREAM_WB_PIN (host pins)");
	if ((c->flags & HELLOFPGA_STREAM_WB_PIN) &&
	    (!c->wb_handle || c->wb_fd < 0 || c->wb_offset % 32))
		return fail(f, -EINVAL, "STREAM_START: WB_PIN: wb_handle, wb_fd name a pin, wb_offset 32-aligned");
	if (c->buffers < HELLOFPGA_RING_MIN_BUFFERS ||
	    c->buffers > HELLOFPGA_RING_MAX_BUFFERS)
		return fail(f, -EINVAL, "STREAM_START: buffers must be 2..512");
	if (!c->buffer_size || c->buffer_size % FK_PAGE ||
	    c->buffer_size > HELLOFPGA_RING_MAX_BUFFER)
		return fail(f, -EINVAL, "STREAM_START: buffer_size: 4096..268431360, 4 KiB aligned");
	if (c->mem != HELLOFPGA_MEM_HOST && c->mem != HELLOFPGA_MEM_PIN)
		return fail(f, -EINVAL, "STREAM_START: mem must be HELLOFPGA_MEM_HOST or HELLOFPGA_MEM_PIN");
	if (c->mem == HELLOFPGA_MEM_HOST &&
	    (c->pin_handle || c->pin_offset || c->pin_fd != -1))
		return fail(f, -EINVAL, "STREAM_START: MEM_HOST: pin_handle and pin_offset must be 0, pin_fd -1");
	if (c->mem == HELLOFPGA_MEM_PIN &&
	    (!c->pin_handle || c->pin_fd < 0 || c->pin_offset % FK_PAGE))
		return fail(f, -EINVAL, "STREAM_START: MEM_PIN: pin_handle and pin_fd name a pin, pin_offset a multiple of 4096");
	if (c->mem == HELLOFPGA_MEM_HOST && c->buffer_size > (4u << 20))
		return fail(f, -EINVAL, "STREAM_START: MEM_HOST buffers are at most 4194304 bytes here");
	st = calloc(1, sizeof(*st));
	if (!st)
		return fail(f, -ENOMEM, "STREAM_START: no memory");
	st->n = c->buffers;
	st->size = c->buffer_size;
	if (c->mem == HELLOFPGA_MEM_PIN) {
		struct fk_file *o = file_get(c->pin_fd);
		uint8_t *addr = NULL;
		uint64_t size = 0;

		if (!o || o->card != card || o->node != FK_CONTROL) {
			if (o)
				file_put(o);
			free(st);
			return fail(f, -EBADF, "STREAM_START: pin_fd %d is not the control node of the card",
				    c->pin_fd);
		}
		pthread_mutex_lock(&o->lock);
		for (struct fk_pin *p = o->pins; p; p = p->next)
			if (p->handle == c->pin_handle) {
				st->pin = p;
				addr = p->addr;
				size = p->size;
			}
		if (st->pin)
			st->pin->streams++;
		pthread_mutex_unlock(&o->lock);
		st->pin_owner = o;
		if (!st->pin) {
			ret = fail(f, -ENOENT, "STREAM_START: no pin with handle %llu on that control node",
				   (unsigned long long)c->pin_handle);
			goto err;
		}
		if (c->pin_offset > size ||
		    (uint64_t)c->buffers * c->buffer_size > size - c->pin_offset) {
			ret = fail(f, -ERANGE, "STREAM_START: the ring lies past the end of the pin");
			goto err;
		}
		if (c->buffer_size > FK_PAGE) {
			ret = fail(f, -EINVAL,
				   "C2H%d: ring buffer 0 is not contiguous in bus addresses (4096 of its %llu bytes are): each buffer must be one contiguous range",
				   f->ch, (unsigned long long)c->buffer_size);
			goto err;
		}
		st->ring = addr + c->pin_offset;
		st->pin_off = c->pin_offset;
	} else {
		st->ring_len = (size_t)c->buffers * c->buffer_size;
		st->ring = REAL(mmap)(NULL, st->ring_len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		m = calloc(1, sizeof(*m));
		if (st->ring == MAP_FAILED || !m) {
			if (st->ring != MAP_FAILED)
				REAL(munmap)(st->ring, st->ring_len);
			st->ring = NULL;
			ret = fail(f, -ENOMEM, "STREAM_START: no memory for the ring");
			goto err;
		}
		m->addr = st->ring;
		m->len = st->ring_len;
		m->live = true;
	}
	if (c->flags & HELLOFPGA_STREAM_WB_PIN) {
		ret = wb_claim(f, st, c);
		if (ret)
			goto err;
	}
	pthread_mutex_lock(&f->lock);
	if (f->stream) {
		pthread_mutex_unlock(&f->lock);
		ret = fail(f, -EBUSY, "STREAM_START: a stream runs on C2H%d already",
			   f->ch);
		goto err;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.channel = f->ch;
	cfg.buffers = c->buffers;
	cfg.buffer_size = c->buffer_size;
	cfg.host = st->ring;
	ret = HelloFPGA_Stream_Open(card->h, &cfg, &st->s);
	if (ret) {
		pthread_mutex_unlock(&f->lock);
		ret = fail(f, ret, "STREAM_START: %s",
			   HelloFPGA_GetLastError(card->h));
		goto err;
	}
	f->stream = st;
	pthread_mutex_lock(&fk_lock);
	f->map = m;
	if (m) {
		m->next = fk_maps;
		fk_maps = m;
	}
	pthread_mutex_unlock(&fk_lock);
	pthread_mutex_unlock(&f->lock);
	c->mmap_size = c->mem == HELLOFPGA_MEM_HOST ? st->ring_len : 0;
	c->start_flags = 0;
	return 0;
err:
	wb_release(st, false);
	if (st->pin) {
		pthread_mutex_lock(&st->pin_owner->lock);
		st->pin->streams--;
		pthread_mutex_unlock(&st->pin_owner->lock);
	}
	if (st->pin_owner)
		file_put(st->pin_owner);
	if (m) {
		REAL(munmap)(m->addr, m->len);
		free(m);
	}
	free(st);
	return ret;
}

/* @f's stream, or NULL with the error recorded (-1, errno ENOENT). */
static struct fk_stream *stream_of(struct fk_file *f, const char *what)
{
	struct fk_stream *st;

	pthread_mutex_lock(&f->lock);
	st = f->stream;
	pthread_mutex_unlock(&f->lock);
	if (!st)
		fail(f, -ENOENT, "%s: no stream started on this open file of C2H%d",
		     what, f->ch);
	return st;
}

static int ioc_stream_wait(struct fk_file *f, struct hellofpga_stream_frame *w)
{
	struct fk_card *card = f->card;
	struct fk_stream *st;
	HELLOFPGA_FRAME fr;
	uint64_t left = w->timeout_ns;
	int ret, slice;

	if (w->flags || w->pad || !zero(w->reserved, sizeof(w->reserved)))
		return fail(f, -EINVAL, "STREAM_WAIT: flags, pad and reserved must be 0");
	if (w->timeout_ns > HELLOFPGA_STREAM_MAX_WAIT_NS)
		return fail(f, -EINVAL, "STREAM_WAIT: timeout_ns above the limit");
	st = stream_of(f, "STREAM_WAIT");
	if (!st)
		return -1;
	/* in slices, so a HELLOFPGA_STREAM_WAKE ends it */
	for (;;) {
		if (__atomic_exchange_n(&st->wake, false, __ATOMIC_ACQ_REL))
			return fail(f, -EAGAIN, "STREAM_WAIT: woken by HELLOFPGA_STREAM_WAKE");
		slice = left > 10000000ull ? 10 : (int)((left + 999999) / 1000000);
		ret = HelloFPGA_Stream_Wait(st->s, slice, &fr);
		if (ret != -ETIMEDOUT || left <= 10000000ull)
			break;
		left -= 10000000ull;
	}
	if (ret)
		return fail(f, ret, "STREAM_WAIT: %s", HelloFPGA_GetLastError(card->h));
	memset(w, 0, sizeof(*w));
	w->index = fr.index;
	w->frame_flags = fr.flags & HELLOFPGA_FRAME_EOP ? HELLOFPGA_STREAM_EOP : 0;
	w->length = fr.length;
	w->sequence = fr.sequence;
	w->frame = fr.frame;
	w->dropped = fr.dropped;
	w->timestamp_ns = fr.timestamp_ns;
	w->offset = st->pin_off + (uint64_t)fr.index * st->size;
	if (st->slots && fr.index < st->n) {
		st->slots[fr.index * 8 + 1] = fr.length;
		__atomic_store_n(&st->slots[fr.index * 8],
				 HELLOFPGA_STREAM_WB_MAGIC |
				 (fr.flags & HELLOFPGA_FRAME_EOP ?
				  HELLOFPGA_STREAM_WB_EOP : 0), __ATOMIC_RELEASE);
	}
	return 0;
}

static int ioc_stream_release(struct fk_file *f, struct hellofpga_stream_release *r)
{
	struct fk_stream *st;
	int ret;

	if ((r->flags & ~HELLOFPGA_STREAM_WAKE) || (r->flags && r->index) ||
	    !zero(r->reserved, sizeof(r->reserved)))
		return fail(f, -EINVAL, "STREAM_RELEASE: flags must be 0 or HELLOFPGA_STREAM_WAKE (then index 0), reserved 0");
	st = stream_of(f, "STREAM_RELEASE");
	if (!st)
		return -1;
	if (r->flags) {
		__atomic_store_n(&st->wake, true, __ATOMIC_RELEASE);
		return 0;
	}
	ret = HelloFPGA_Stream_Release(st->s, r->index);
	if (ret)
		return fail(f, ret, "STREAM_RELEASE: buffer %u is not held (a ring of %u buffers)",
			    r->index, st->n);
	/* back to the card: its slot is cleared */
	if (st->slots) {
		__atomic_store_n(&st->slots[r->index * 8], 0, __ATOMIC_RELEASE);
		st->slots[r->index * 8 + 1] = 0;
	}
	return 0;
}

static int ioc_stream_stop(struct fk_file *f, struct hellofpga_stream_stop *s)
{
	int ret;

	if (s->flags || s->pad || !zero(s->reserved, sizeof(s->reserved)))
		return fail(f, -EINVAL, "STREAM_STOP: flags, pad and reserved must be 0");
	ret = stream_end(f);
	if (ret == -ENOENT)
		return fail(f, ret, "STREAM_STOP: no stream started on this open file of C2H%d",
			    f->ch);
	if (ret)
		return fail(f, -EIO, "STREAM_STOP: the engine did not stop");
	return 0;
}

static int ioc_stream_stats(struct fk_file *f, struct hellofpga_stream_stats *k)
{
	HELLOFPGA_STREAM_STATS ss;
	struct fk_stream *st;

	if (k->flags || !zero(&k->held, sizeof(*k) - sizeof(k->flags)))
		return fail(f, -EINVAL, "STREAM_STATS: flags and every output field must be 0");
	st = stream_of(f, "STREAM_STATS");
	if (!st)
		return -1;
	if (HelloFPGA_Stream_GetStats(st->s, &ss))
		return fail(f, -EIO, "STREAM_STATS: %s",
			    HelloFPGA_GetLastError(f->card->h));
	k->held = ss.held;
	k->buffers = ss.buffers;
	k->frames = ss.frames;
	k->bytes = ss.bytes;
	k->ring_full = ss.ring_full;
	k->running = 1;
	return 0;
}

int fk_stream_ioctl(struct fk_file *f, unsigned long req, void *arg)
{
	if (f->node != FK_C2H)
		return fail(f, -ENOTTY, "STREAM: an ioctl of the c2h nodes");
	if (!spec_stream())
		return fail(f, -EOPNOTSUPP,
			    "STREAM: the card's channels are memory-mapped, not AXI-Stream");
	switch (req) {
	case HELLOFPGA_IOC_STREAM_START:
		return ioc_stream_start(f, arg);
	case HELLOFPGA_IOC_STREAM_WAIT:
		return ioc_stream_wait(f, arg);
	case HELLOFPGA_IOC_STREAM_RELEASE:
		return ioc_stream_release(f, arg);
	case HELLOFPGA_IOC_STREAM_STOP:
		return ioc_stream_stop(f, arg);
	default:
		return ioc_stream_stats(f, arg);
	}
}
