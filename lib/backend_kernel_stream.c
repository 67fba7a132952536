// SPDX-License-Identifier: MIT
/*
 * backend_kernel_stream.c - the kernel backend's C2H AXI-Stream rings
 * (the backend side of stream.c): STREAM_START on a c2h node of their
 * own, waits, releases, stop, and the writeback slots in library memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend_kernel.h"
#include "hf_user_pages.h"

static void kunpin(struct kcard *kc, uint64_t handle)
{
	struct hellofpga_unpin u = { .handle = handle };

	if (handle && kc->ctl_fd >= 0)
		kioctl(kc->ctl_fd, HELLOFPGA_IOC_UNPIN, &u);
}

/* The slots' memory and its pin; the ring no longer uses them. */
static void kstream_wb_free(struct kcard *kc, struct kstream *ks)
{
	kunpin(kc, ks->wb_handle);
	ks->wb_handle = 0;
	hf_stream_wb_free(&ks->wb);
}

static void kstream_free(struct hellofpga_dev *dev, struct kstream *ks)
{
	struct kcard *kc = dev->priv;

	if (ks->map)
		munmap(ks->map, ks->map_len);
	/* the last close ends the ring: its slots get the stop's marks */
	if (ks->fd >= 0)
		close(ks->fd);
	kunpin(kc, ks->host_handle);
	if (ks->wb.mem)
		kstream_wb_free(kc, ks);
	if (ks->pin)
		hf_pin_put_ring(ks->pin);
	free(ks);
}

/*
 * HELLOFPGA_STREAM_WB_PIN: the ring's writeback slots in pages of the
 * library's (a GPU maps them for its waits), a page of doorbells after
 * them, the slots pinned on the control node.  0, or -errno with
 * @ks->wb_why set: the stream then starts with the slots in the driver.
 */
static int kstream_wb_alloc(struct hellofpga_dev *dev, struct kstream *ks,
			    uint32_t n)
{
	struct kcard *kc = dev->priv;
	struct hellofpga_pin p;
	char text[200];
	int ret;

	if (hf_stream_wb_alloc(&ks->wb, n)) {
		snprintf(ks->wb_why, sizeof(ks->wb_why),
			 "no memory for the writeback slots");
		return -ENOMEM;
	}
	memset(&p, 0, sizeof(p));
	p.type = HELLOFPGA_PIN_HOST;
	p.addr = (uintptr_t)ks->wb.mem;
	p.size = ks->wb.slots_len;
	p.fd = -1;
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_PIN, &p);
	if (ret) {
		if (!kdriver_text(kc->ctl_fd, ret, text, sizeof(text)))
			snprintf(text, sizeof(text), "%s", strerror(-ret));
		snprintf(ks->wb_why, sizeof(ks->wb_why),
			 "PIN of the writeback slots failed: %s", text);
		hf_stream_wb_free(&ks->wb);
		return ret;
	}
	ks->wb_handle = p.handle;
	return 0;
}

/* A ring in the caller's memory: pinned on the control node (PIN_HOST). */
static int kstream_pin_host(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			    struct kstream *ks, struct hellofpga_stream_config *c)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	struct kcard *kc = dev->priv;
	struct hellofpga_pin p;
	int ret;

	ret = hf_user_buf_check(dev, XDMA_C2H, s->cfg.host,
				(size_t)s->cfg.buffers * s->cfg.buffer_size);
	if (ret)
		return ret;
	memset(&p, 0, sizeof(p));
	p.type = HELLOFPGA_PIN_HOST;
	p.addr = (uintptr_t)s->cfg.host;
	p.size = (uint64_t)s->cfg.buffers * s->cfg.buffer_size;
	p.fd = -1;
	ret = kioctl(kc->ctl_fd, HELLOFPGA_IOC_PIN, &p);
	if (ret)
		return kfail(dev, kc->ctl_fd, ret, "%s: PIN of the ring's host memory failed",
			     fn);
	ks->host_handle = p.handle;
	c->mem = HELLOFPGA_MEM_PIN;
	c->pin_fd = kc->ctl_fd;
	c->pin_handle = p.handle;
	return 0;
}

int kernel_stream_start(struct hellofpga_dev *dev,
			struct hellofpga_stream *s)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	struct kcard *kc = dev->priv;
	struct hellofpga_stream_config c;
	struct kstream *ks;
	char path[64], node[16];
	int ret;

	if (!dev->stream)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: %s: %s", fn, dev->info.name,
				    kc->abi_minor < 3 ?
				    "the driver has no stream ioctls (ABI 1.3 and later have)" :
				    "the card's channels are memory-mapped, not AXI-Stream");
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	ks->fd = -1;
	memset(&c, 0, sizeof(c));
	c.buffers = s->cfg.buffers;
	c.buffer_size = s->cfg.buffer_size;
	c.mem = HELLOFPGA_MEM_HOST;
	c.pin_fd = -1;
	if (s->cfg.gpu) {
		struct kpin *kp;

		ret = hf_pin_get_ring(dev, s->cfg.gpu, &ks->pin, fn);
		if (ret)
			goto err;
		if (s->cfg.gpu_offset > ks->pin->size ||
		    (uint64_t)s->cfg.buffers * s->cfg.buffer_size >
		    ks->pin->size - s->cfg.gpu_offset) {
			ret = hf_set_error(dev, -ERANGE,
					   "%s: the ring (offset 0x%llx + %llu bytes) lies past the end of the pin (%zu bytes)",
					   fn, (unsigned long long)s->cfg.gpu_offset,
					   (unsigned long long)s->cfg.buffers *
					   s->cfg.buffer_size, ks->pin->size);
			goto err;
		}
		kp = ks->pin->bdata;
		c.mem = HELLOFPGA_MEM_PIN;
		c.pin_fd = kc->ctl_fd;
		c.pin_handle = kp->handle;
		c.pin_offset = kp->off + s->cfg.gpu_offset;
	} else if (s->cfg.host) {
		ret = kstream_pin_host(dev, s, ks, &c);
		if (ret)
			goto err;
	}
	snprintf(node, sizeof(node), "c2h_%d", s->cfg.channel);
	knode_path(path, sizeof(path), kc->index, node);
	ks->fd = knode_open(path);
	if (ks->fd < 0) {
		ret = hf_set_error(dev, ks->fd, "%s: cannot open %s: %s", fn,
				   path, strerror(-ks->fd));
		ks->fd = -1;
		goto err;
	}
	if (kc->abi_minor < 4 || !(kc->features & HELLOFPGA_FEAT_STREAM_WB_PIN))
		snprintf(ks->wb_why, sizeof(ks->wb_why),
			 "the driver (ABI 1.%u) keeps a ring's writeback slots in the kernel: no HELLOFPGA_FEAT_STREAM_WB_PIN (ABI 1.4 and later have it)",
			 kc->abi_minor);
	else if (!kstream_wb_alloc(dev, ks, c.buffers))
		c.flags = HELLOFPGA_STREAM_WB_PIN;
	if (c.flags) {
		struct hellofpga_stream_config w = c;
		char text[200];

		w.wb_fd = kc->ctl_fd;
		w.wb_handle = ks->wb_handle;
		ret = kioctl(ks->fd, HELLOFPGA_IOC_STREAM_START, &w);
		if (!ret) {
			c = w;
		} else {
			/* GPU waits are what is lost: the stream starts anyway */
			if (!kdriver_text(ks->fd, ret, text, sizeof(text)))
				snprintf(text, sizeof(text), "%s", strerror(-ret));
			snprintf(ks->wb_why, sizeof(ks->wb_why),
				 "the driver refused the writeback slots in library memory: %s",
				 text);
			kstream_wb_free(kc, ks);
			c.flags = 0;
		}
	}
	ret = c.flags ? 0 : kioctl(ks->fd, HELLOFPGA_IOC_STREAM_START, &c);
	if (ret) {
		ret = kfail(dev, ks->fd, ret, "%s: STREAM_START failed", fn);
		goto err;
	}
	ks->resync = c.start_flags & HELLOFPGA_STREAM_STARTED_RESYNC;
	__atomic_store_n(&ks->known, !ks->resync, __ATOMIC_RELEASE);
	if (c.mem == HELLOFPGA_MEM_HOST) {
		ks->map_len = c.mmap_size;
		ks->map = mmap(NULL, ks->map_len, PROT_READ, MAP_SHARED,
			       ks->fd, 0);
		if (ks->map == MAP_FAILED) {
			ret = hf_set_error(dev, -errno,
					   "%s: cannot map the ring (%zu bytes): %s",
					   fn, ks->map_len, strerror(errno));
			ks->map = NULL;
			goto err;
		}
		s->host = ks->map;
	} else if (!s->cfg.gpu) {
		s->host = s->cfg.host;
	}
	__atomic_store_n(&s->bdata, ks, __ATOMIC_RELEASE);
	return 0;
err:
	kstream_free(dev, ks);
	return ret;
}

int kernel_stream_wait(struct hellofpga_dev *dev,
		       struct hellofpga_stream *s, uint64_t timeout_ns,
		       struct hf_xdma_ring_buf *b)
{
	struct kstream *ks = s->bdata;
	struct hellofpga_stream_frame f;
	int ret;

	memset(&f, 0, sizeof(f));
	f.timeout_ns = timeout_ns;
	ret = kioctl(ks->fd, HELLOFPGA_IOC_STREAM_WAIT, &f);
	if (ret == -EAGAIN)
		return ret;
	if (ret)
		return kfail(dev, ks->fd, ret, "%s: STREAM_WAIT failed",
			     dev->info.name);
	if (f.index < s->cfg.buffers) {
		ks->seq_of[f.index] = f.sequence;
		if (!__atomic_load_n(&ks->known, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&ks->skip,
					 (uint32_t)((f.index + s->cfg.buffers -
						     f.sequence % s->cfg.buffers) %
						    s->cfg.buffers),
					 __ATOMIC_RELAXED);
			__atomic_store_n(&ks->known, true, __ATOMIC_RELEASE);
		}
	}
	memset(b, 0, sizeof(*b));
	b->index = f.index;
	b->len = (u32)f.length;
	b->eop = f.frame_flags & HELLOFPGA_STREAM_EOP;
	b->sequence = f.sequence;
	b->frame = f.frame;
	return 0;
}

/*
 * Buffer @index went back to the driver, which credits buffers to the
 * card in ring order and has done so, clearing their slots, when the
 * RELEASE returns (no WAIT holds the ring: stream.c serialises the two).
 * Count the sequences whose buffers went back; under the stream's lock.
 */
static void kstream_count_credits(struct hellofpga_stream *s,
				  struct kstream *ks, uint32_t index)
{
	uint32_t n = s->cfg.buffers, i;
	uint64_t c = ks->credited;

	ks->rel[index] = 1;
	if (!__atomic_load_n(&ks->known, __ATOMIC_ACQUIRE))
		return;
	for (;;) {
		i = (uint32_t)((c + ks->skip) % n);
		if (!ks->rel[i] || ks->seq_of[i] != c)
			break;
		ks->rel[i] = 0;
		c++;
	}
	__atomic_store_n(&ks->credited, c, __ATOMIC_RELEASE);
}

int kernel_stream_release(struct hellofpga_dev *dev,
			  struct hellofpga_stream *s, uint32_t index)
{
	struct kstream *ks = s->bdata;
	struct hellofpga_stream_release r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.index = index;
	ret = kioctl(ks->fd, HELLOFPGA_IOC_STREAM_RELEASE, &r);
	if (ret)
		return kfail(dev, ks->fd, ret, "%s: STREAM_RELEASE of buffer %u failed",
			     dev->info.name, index);
	kstream_count_credits(s, ks, index);
	return 0;
}

/* Make a STREAM_WAIT of another thread return EAGAIN. */
void kernel_stream_kick(struct hellofpga_dev *dev,
			struct hellofpga_stream *s)
{
	struct kstream *ks = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);
	struct hellofpga_stream_release r;

	(void)dev;
	if (!ks)
		return;
	memset(&r, 0, sizeof(r));
	r.flags = HELLOFPGA_STREAM_WAKE;
	kioctl(ks->fd, HELLOFPGA_IOC_STREAM_RELEASE, &r);
}

void kernel_stream_stats(struct hellofpga_dev *dev,
			 struct hellofpga_stream *s,
			 struct hf_xdma_ring_stats *st)
{
	struct kstream *ks = s->bdata;
	struct hellofpga_stream_stats k;

	(void)dev;
	memset(st, 0, sizeof(*st));
	memset(&k, 0, sizeof(k));
	if (kioctl(ks->fd, HELLOFPGA_IOC_STREAM_STATS, &k))
		return;
	st->buffers = k.buffers;
	st->frames = k.frames;
	st->bytes = k.bytes;
	st->ring_full = k.ring_full;
	st->skipped = k.skipped;
	st->wakes = k.wakes;
	st->status_reads = k.status_reads;
	st->credit_writes = k.credit_writes;
}

int kernel_stream_stop(struct hellofpga_dev *dev,
		       struct hellofpga_stream *s)
{
	struct kstream *ks = s->bdata;
	struct hellofpga_stream_stop st;
	int ret;

	if (!ks)
		return 0;
	memset(&st, 0, sizeof(st));
	ret = kioctl(ks->fd, HELLOFPGA_IOC_STREAM_STOP, &st);
	if (ret && ret != -ENOENT && ret != -ENODEV)
		ret = kfail(dev, ks->fd, -EIO, "%s: STREAM_STOP failed",
			    dev->info.name);
	else
		ret = 0;
	/* the driver keeps what a wedged engine may reach: ours may go */
	__atomic_store_n(&s->bdata, NULL, __ATOMIC_RELEASE);
	kstream_free(dev, ks);
	return ret;
}

/*
 * The stream of @s in @ks for a GPU wait or release: one whose writeback
 * slots lie in library memory, which a GPU can map.  Under @s->gw_lock.
 */
static int kstream_gpu(struct hellofpga_dev *dev, struct hellofpga_stream *s,
		       const char *fn, struct kstream **ks)
{
	*ks = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);
	if (!*ks)
		return hf_set_error(dev, -EBADF, "%s: the stream is stopped", fn);
	if (!(*ks)->wb.mem)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: %s: GPU-side waits need the ring's writeback slots in memory a GPU can map: %s",
				    fn, dev->info.name, (*ks)->wb_why);
	return 0;
}

/*
 * The writeback slot that buffer @seq of @s lands in, mapped for the GPU;
 * under @s->gw_lock.  The window is the library's count of the buffers
 * that went back (kstream_count_credits()).
 */
int kernel_stream_gpu_slot(struct hellofpga_dev *dev,
			   struct hellofpga_stream *s, uint64_t seq,
			   struct hf_stream_gpu_slot *gs, const char *fn)
{
	uint32_t n = s->cfg.buffers, index;
	struct kstream *ks;
	uint64_t credited;
	int ret;

	ret = kstream_gpu(dev, s, fn, &ks);
	if (ret)
		return ret;
	if (!__atomic_load_n(&ks->known, __ATOMIC_ACQUIRE))
		return hf_stream_slot_error(dev, -EAGAIN, fn, seq, 0, n);
	credited = __atomic_load_n(&ks->credited, __ATOMIC_ACQUIRE);
	if (seq < credited || seq - credited >= n)
		return hf_stream_slot_error(dev, -ERANGE, fn, seq, credited, n);
	index = (uint32_t)((seq + __atomic_load_n(&ks->skip, __ATOMIC_RELAXED)) %
			   n);
	ret = hf_stream_wb_gpu_slot(dev, &ks->wb, index, gs, fn);
	if (ret)
		return ret;
	gs->gpu_ring = !s->host;
	return 0;
}

/*
 * The doorbells of GPU releases: the page after the slots, library memory
 * the GPU writes and stream.c applies by STREAM_RELEASE; gw_lock held.
 */
int kernel_stream_gpu_doorbells(struct hellofpga_dev *dev,
				struct hellofpga_stream *s, uint32_t **db,
				uint64_t *db_dev, const char *fn)
{
	struct kstream *ks;
	int ret;

	ret = kstream_gpu(dev, s, fn, &ks);
	if (ret)
		return ret;
	return hf_stream_wb_gpu_doorbells(dev, &ks->wb, db, db_dev, fn);
}
