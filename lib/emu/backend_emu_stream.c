// SPDX-License-Identifier: MIT
/*
 * backend_emu_stream.c - the emulated card's C2H AXI-Stream rings (the
 * backend side of stream.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend_emu_priv.h"
#include "hf_user_pages.h"

/**
 * struct emu_stream - an emulated card's side of a stream (bdata).
 * @r: the engine core's ring
 * @desc: descriptor storage
 * @desc_bus: its bus address
 * @wb: the writeback slots, in pages of their own, so a GPU can map them
 *	for its waits, and the doorbells after them
 *	(HelloFPGA_Stream_ReleaseOnGPU(); not mapped for the card)
 * @wb_bus: the slots' bus address
 * @host: the ring in host memory (NULL for a GPU ring)
 * @own: the library allocated @host
 * @host_bus: bus address of @host (one mapping)
 * @pin: the GPU pin the ring is in (a reference), or NULL
 * @running: the ring counts in @pin's running rings (hf_pin_ring_running())
 *	until a stop or a halt proves its engine idle
 * @next_wedged: the card's list of wedged rings (emu_card.wedged)
 */
struct emu_stream {
	struct hf_xdma_ring r;
	void *desc;
	u64 desc_bus;
	struct hf_stream_wb wb;
	u64 wb_bus;
	u8 *host;
	bool own;
	u64 host_bus;
	struct hf_pin *pin;
	bool running;
	struct emu_stream *next_wedged;
};

static void emu_stream_free(struct emu_card *card, struct emu_stream *es)
{
	if (es->host_bus)
		hf_emu_dma_unmap(card->host, es->host_bus);
	if (es->own)
		free(es->host);
	if (es->desc)
		hf_emu_dma_free(card->host, es->desc, es->desc_bus);
	if (es->wb_bus)
		hf_emu_dma_unmap(card->host, es->wb_bus);
	hf_stream_wb_free(&es->wb);
	if (es->pin)
		hf_pin_put_ring(es->pin);
	free(es);
}

/*
 * The scatter list of bytes [@off, @off + @len) of a pin into @out (at
 * most @max entries); the number of entries.
 */
static u32 emu_pin_range(const struct emu_pin *ep, u64 off, u64 len,
			 struct hf_sg *out, u32 max)
{
	u32 n = 0;

	for (u32 i = 0; i < ep->nseg && len && n < max; i++) {
		u64 sl = ep->sg[i].len;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		out[n].addr = ep->sg[i].addr + off;
		out[n].len = min_t(u64, sl - off, len);
		len -= out[n].len;
		off = 0;
		n++;
	}
	return n;
}

/* Ring memory in a GPU pin: its bus segments for the ring's range. */
static int emu_stream_gpu(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			  struct emu_stream *es, struct hf_sg **sg, u32 *nsg)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	u64 len = (u64)s->cfg.buffers * s->cfg.buffer_size;
	struct emu_pin *ep;
	u64 piece = 0;
	int ret;

	ret = hf_pin_get_ring(dev, s->cfg.gpu, &es->pin, fn);
	if (ret)
		return ret;
	if (s->cfg.gpu_offset > es->pin->size ||
	    len > es->pin->size - s->cfg.gpu_offset)
		return hf_set_error(dev, -ERANGE,
				    "%s: the ring (offset 0x%llx + %llu bytes) lies past the end of the pin (%zu bytes)",
				    fn, (unsigned long long)s->cfg.gpu_offset,
				    (unsigned long long)len, es->pin->size);
	ep = es->pin->bdata;
	for (u32 i = 0; i < ep->nseg; i++)
		piece = max_t(u64, piece, ep->sg[i].len);
	if (s->cfg.buffer_size > piece)
		return hf_set_error(dev, -EINVAL,
				    "%s: buffer_size %zu: the pin's memory is mapped in contiguous pieces of %llu bytes: the largest buffer size that works is %llu (with gpu_offset a multiple of it)",
				    fn, s->cfg.buffer_size,
				    (unsigned long long)piece,
				    (unsigned long long)piece);
	*sg = calloc(ep->nseg, sizeof(**sg));
	if (!*sg)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	*nsg = emu_pin_range(ep, s->cfg.gpu_offset, len, *sg, ep->nseg);
	return 0;
}

int emu_stream_start(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	struct emu_card *card = dev->priv;
	struct hf_xdma_engine *e = &card->eng[XDMA_C2H][s->cfg.channel].eng;
	u32 n = s->cfg.buffers;
	size_t len = (size_t)n * s->cfg.buffer_size;
	struct hf_xdma_result res;
	struct emu_stream *es;
	struct hf_sg one, *sg = &one;
	u32 nsg = 1;
	int ret;

	if (!dev->stream)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: %s has memory-mapped channels, not AXI-Stream ones",
				    fn, dev->info.name);
	ret = emu_engine_usable(dev, e);
	if (ret)
		return ret;
	es = calloc(1, sizeof(*es));
	if (!es)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	es->desc = hf_emu_dma_alloc(card->host, (size_t)n * XDMA_DESC_SIZE,
				    &es->desc_bus);
	if (!hf_stream_wb_alloc(&es->wb, n) &&
	    hf_emu_dma_map(card->host, es->wb.mem, es->wb.slots_len,
			   HF_DMA_FROM_DEVICE, &es->wb_bus))
		hf_stream_wb_free(&es->wb);
	if (!es->desc || !es->wb.mem) {
		ret = hf_set_error(dev, -ENOMEM,
				   "%s: cannot allocate the ring's descriptors",
				   fn);
		goto err;
	}
	if (s->cfg.gpu) {
		ret = emu_stream_gpu(dev, s, es, &sg, &nsg);
		if (ret)
			goto err;
	} else {
		es->host = s->cfg.host;
		if (!es->host) {
			es->host = aligned_alloc(4096, len);
			if (!es->host) {
				ret = hf_set_error(dev, -ENOMEM,
						   "%s: cannot allocate a ring of %zu bytes",
						   fn, len);
				goto err;
			}
			es->own = true;
			memset(es->host, 0, len);
		} else {
			ret = hf_user_buf_check(dev, XDMA_C2H, es->host, len);
			if (ret)
				goto err;
		}
		ret = hf_emu_dma_map(card->host, es->host, len,
				     HF_DMA_FROM_DEVICE |
				     (es->own ? 0 : HF_DMA_GUARDED),
				     &es->host_bus);
		if (ret) {
			ret = hf_set_error(dev, ret, "%s: cannot map the ring: %s",
					   fn, strerror(-ret));
			goto err;
		}
		one.addr = es->host_bus;
		one.len = len;
	}
	ret = hf_xdma_ring_init(&es->r, e, es->desc, es->desc_bus, es->wb.mem,
				es->wb_bus, n);
	if (!ret)
		ret = hf_xdma_ring_build(&es->r, sg, nsg, s->cfg.buffer_size,
					 &res);
	if (sg != &one)
		free(sg);
	if (ret) {
		ret = hf_set_error(dev, ret, "%s: %s", fn,
				   res.msg[0] ? res.msg : "cannot set up the ring");
		goto err;
	}
	ret = hf_xdma_ring_start(&es->r, &res);
	if (ret) {
		ret = hf_set_error(dev, ret, "%s: %s", fn, res.msg);
		goto err;
	}
	s->host = es->host;
	if (es->pin) {
		hf_pin_ring_running(es->pin, true);
		es->running = true;
	}
	__atomic_store_n(&s->bdata, es, __ATOMIC_RELEASE);
	return 0;
err:
	emu_stream_free(card, es);
	return ret;
}

/* The ring's engine is proven idle: a revocation of its pin may go on. */
static void emu_stream_idle(struct emu_stream *es)
{
	if (!es->running)
		return;
	es->running = false;
	hf_pin_ring_running(es->pin, false);
}

/*
 * The rings a stop left to the card (wedged), once its engine threads
 * have stopped: what the host freed with it (descriptors, mappings) is
 * gone; the rest is freed here.
 */
void emu_stream_free_wedged(struct emu_card *card)
{
	while (card->wedged) {
		struct emu_stream *es = card->wedged;

		card->wedged = es->next_wedged;
		if (es->own)
			free(es->host);
		hf_stream_wb_free(&es->wb);
		if (es->pin) {
			emu_stream_idle(es);
			hf_pin_put_ring(es->pin);
		}
		free(es);
	}
}

int emu_stream_wait(struct hellofpga_dev *dev, struct hellofpga_stream *s,
		    uint64_t timeout_ns, struct hf_xdma_ring_buf *b)
{
	struct emu_stream *es = s->bdata;
	struct hf_xdma_result res;
	int ret;

	ret = hf_xdma_ring_wait(&es->r, timeout_ns, b, &res);
	if (ret == -EIO || ret == -ENODEV)
		hf_xdma_ring_mark_error(&es->r);	/* end GPU waits */
	if (ret && ret != -EAGAIN)
		return hf_set_error(dev, ret, "%s: %s", dev->info.name, res.msg);
	return ret;
}

int emu_stream_release(struct hellofpga_dev *dev,
		       struct hellofpga_stream *s, uint32_t index)
{
	struct emu_stream *es = s->bdata;

	return hf_xdma_ring_release(&es->r, index);
}

void emu_stream_kick(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	struct emu_stream *es = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);

	if (es)
		hf_xdma_ring_kick(&es->r);
}

void emu_stream_stats(struct hellofpga_dev *dev, struct hellofpga_stream *s,
		      struct hf_xdma_ring_stats *st)
{
	struct emu_stream *es = s->bdata;

	*st = es->r.stats;
}

/*
 * What a stop and a halt open with: the ring stopped and its slots marked
 * (no buffer completes any more: GPU waits on one end now), its engine
 * proven idle; -EIO (the error set) when the ring is wedged: the card may
 * still write it.
 */
static int emu_stream_stop_ring(struct hellofpga_dev *dev,
				struct emu_stream *es)
{
	struct hf_xdma_result res;
	int ret;

	ret = hf_xdma_ring_stop(&es->r, &res);
	hf_xdma_ring_mark_error(&es->r);
	if (ret == -EBUSY)
		return hf_set_error(dev, -EIO, "%s: %s", dev->info.name,
				    res.msg);
	emu_stream_idle(es);
	return 0;
}

int emu_stream_stop(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	struct emu_card *card = dev->priv;
	struct emu_stream *es = s->bdata;
	int ret;

	if (!es)
		return 0;
	ret = emu_stream_stop_ring(dev, es);
	if (ret) {
		/*
		 * Wedged: the card keeps the ring until its close, where the
		 * engine threads stop first (emu_stream_free_wedged()); the
		 * stream goes.
		 */
		pthread_mutex_lock(&card->wedged_lock);
		es->next_wedged = card->wedged;
		card->wedged = es;
		pthread_mutex_unlock(&card->wedged_lock);
		__atomic_store_n(&s->bdata, NULL, __ATOMIC_RELEASE);
		return ret;
	}
	__atomic_store_n(&s->bdata, NULL, __ATOMIC_RELEASE);
	emu_stream_free(card, es);
	return 0;
}

/*
 * The GPU memory of the ring's pin is being freed: stop the ring, prove
 * its engine idle and mark its slots, before the pin's mapping goes; the
 * ring stays allocated until the stream's close (emu_stream_stop()).
 */
int emu_stream_halt(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	struct emu_stream *es = s->bdata;

	return es ? emu_stream_stop_ring(dev, es) : 0;
}

/*
 * The writeback slot that buffer @seq of @s lands in, mapped for the GPU;
 * under @s->gw_lock.
 */
int emu_stream_gpu_slot(struct hellofpga_dev *dev,
			struct hellofpga_stream *s, u64 seq,
			struct hf_stream_gpu_slot *gs, const char *fn)
{
	struct emu_stream *es = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);
	u64 credited;
	u32 index;
	int ret;

	if (!es)
		return hf_set_error(dev, -EBADF, "%s: the stream is stopped", fn);
	ret = hf_xdma_ring_slot_of(&es->r, seq, &index);
	credited = READ_ONCE(es->r.credited) - READ_ONCE(es->r.seq_skip);
	if (ret)
		return hf_stream_slot_error(dev, ret, fn, seq, credited,
					    es->r.n);
	ret = hf_stream_wb_gpu_slot(dev, &es->wb, index, gs, fn);
	if (ret)
		return ret;
	gs->gpu_ring = !es->host;
	return 0;
}

/* The doorbells of GPU releases: the page after the slots; gw_lock held. */
int emu_stream_gpu_doorbells(struct hellofpga_dev *dev,
			     struct hellofpga_stream *s, u32 **db,
			     u64 *db_dev, const char *fn)
{
	struct emu_stream *es = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);

	if (!es)
		return hf_set_error(dev, -EBADF, "%s: the stream is stopped", fn);
	return hf_stream_wb_gpu_doorbells(dev, &es->wb, db, db_dev, fn);
}
