// SPDX-License-Identifier: MIT
/*
 * fakedev_ioctl.c - the fake driver's ioctls: GET_INFO, GET_STATS,
 * LAST_ERROR, SET_TIMEOUT, PIN, XFER, UNPIN, and the dispatch of every
 * ioctl of a node.
 */
#include "fakedev.h"

/* ---- ioctls ---- */

bool zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static int ioc_get_info(struct fk_file *f, struct hellofpga_info *hi)
{
	struct fk_card *c = f->card;
	const char *ver = getenv("HF_FAKEDEV_VERSION");

	uint64_t domain = env_u64("HF_FAKEDEV_PCI_DOMAIN", 0);

	if (hi->flags || hi->pad || hi->pad2 ||
	    !zero(hi->reserved, sizeof(hi->reserved)))
		return fail(f, -EINVAL, "GET_INFO: flags, pad, pad2 and reserved must be 0");
	hi->abi_major = env_u64("HF_FAKEDEV_ABI_MAJOR", HELLOFPGA_ABI_MAJOR);
	hi->abi_minor = env_u64("HF_FAKEDEV_ABI_MINOR", HELLOFPGA_ABI_MINOR);
	hi->card_index = c->index;
	hi->features = fk_features();
	hi->num_h2c = c->info.num_h2c;
	hi->num_c2h = c->info.num_c2h;
	hi->ddr_size = c->info.ddr_size;
	hi->ip_version = c->info.ip_version;
	hi->irq_mode = c->info.irq_mode;	/* same numbering */
	hi->addr_align = c->info.addr_align;
	hi->len_granularity = c->info.len_granularity;
	hi->timeout_ms = c->timeout_ms;
	hi->user_bar_size = c->user_bar_size > UINT32_MAX ? UINT32_MAX :
			    c->user_bar_size;
	pthread_mutex_lock(&c->lock);
	hi->pinned_bytes = c->pinned_bytes;
	pthread_mutex_unlock(&c->lock);
	hi->pin_limit = c->pin_limit;
	hi->pci_vendor = 0x10ee;
	hi->pci_device = 0x903f;
	hi->pci_bdf = (domain > 0xffff ? 0xffff : domain) << 16 | c->index << 8;
	if (hi->abi_minor >= 1) {
		hi->user_bar_size64 = c->user_bar_size;
		hi->pci_domain = domain;
	}
	snprintf(hi->driver_version, sizeof(hi->driver_version), "%s",
		 ver ? ver : HELLOFPGA_VERSION_STRING "-fakedev");
	return 0;
}

static int ioc_get_stats(struct fk_file *f, struct hellofpga_stats *st)
{
	struct fk_card *c = f->card;
	HELLOFPGA_COUNTERS cnt;
	uint32_t n = c->info.num_h2c + c->info.num_c2h;

	if (st->flags || !zero(st->reserved, sizeof(st->reserved)))
		return fail(f, -EINVAL, "GET_STATS: flags and reserved must be 0");
	memset(st, 0, sizeof(*st));
	st->num_engines = n;
	pthread_mutex_lock(&c->lock);
	for (uint32_t i = 0; i < n; i++) {
		st->runs[i] = c->eng[i].runs;
		st->bytes[i] = c->eng[i].bytes;
		st->errors[i] = c->eng[i].errors;
		st->timeouts[i] = c->eng[i].timeouts;
	}
	st->pins = c->npins;
	st->pinned_bytes = c->pinned_bytes;
	pthread_mutex_unlock(&c->lock);
	if (!HelloFPGA_GetCounters(c->h, &cnt))
		st->irqs = cnt.irqs;
	return 0;
}

static int ioc_last_error(struct fk_file *f, struct hellofpga_last_error *le)
{
	if (le->flags || !zero(le->reserved, sizeof(le->reserved))) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&f->lock);
	le->error = f->last_err;
	snprintf(le->text, sizeof(le->text), "%s", f->last_text);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* SET_TIMEOUT (ABI 1.2): the file's timeout; ENOTTY as an older driver. */
static int ioc_set_timeout(struct fk_file *f, struct hellofpga_timeout *t)
{
	if (env_u64("HF_FAKEDEV_ABI_MINOR", HELLOFPGA_ABI_MINOR) < 2)
		return fail(f, -ENOTTY, "SET_TIMEOUT: not in ABI 1.%llu",
			    (unsigned long long)env_u64("HF_FAKEDEV_ABI_MINOR",
							HELLOFPGA_ABI_MINOR));
	if (t->flags || !zero(t->reserved, sizeof(t->reserved)))
		return fail(f, -EINVAL,
			    "SET_TIMEOUT: flags and reserved must be 0");
	if (t->timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS)
		return fail(f, -EINVAL, "SET_TIMEOUT: %u ms is above %u ms",
			    t->timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
	__atomic_store_n(&f->timeout_ms, t->timeout_ms, __ATOMIC_RELAXED);
	return 0;
}

/* Is [addr, addr + size) mapped?  (pin_user_pages() would fault.) */
bool mapped(uint64_t addr, uint64_t size)
{
	size_t pages = size / FK_PAGE;
	unsigned char *vec = malloc(pages ? pages : 1);
	bool ok;

	if (!vec)
		return false;
	ok = !mincore((void *)(uintptr_t)addr, size, vec);
	free(vec);
	return ok;
}

static int ioc_pin(struct fk_file *f, struct hellofpga_pin *p)
{
	struct fk_card *c = f->card;
	struct fk_pin *pin;

	if (p->flags || p->pad || p->pad2 ||
	    !zero(p->reserved, sizeof(p->reserved)))
		return fail(f, -EINVAL, "PIN: flags, pad and reserved must be 0");
	if (p->type == HELLOFPGA_PIN_CUDA || p->type == HELLOFPGA_PIN_DMABUF)
		return fail(f, -EOPNOTSUPP,
			    "PIN: type %u: hf_fakedev has no GPU memory provider (nvidia_p2p, dma-buf); only HELLOFPGA_PIN_HOST",
			    p->type);
	if (p->type != HELLOFPGA_PIN_HOST)
		return fail(f, -EINVAL, "PIN: unknown type %u", p->type);
	if (p->fd != -1)
		return fail(f, -EINVAL, "PIN: fd must be -1 for host memory");
	if (!p->size || p->addr % FK_PAGE || p->size % FK_PAGE ||
	    p->addr + p->size < p->addr)
		return fail(f, -EINVAL,
			    "PIN: host memory [0x%llx, +0x%llx) must be 4 KiB aligned and not empty",
			    (unsigned long long)p->addr,
			    (unsigned long long)p->size);
	if (!mapped(p->addr, p->size))
		return fail(f, -EFAULT,
			    "PIN: [0x%llx, +0x%llx) is not mapped memory",
			    (unsigned long long)p->addr,
			    (unsigned long long)p->size);
	pin = calloc(1, sizeof(*pin));
	if (!pin)
		return fail(f, -ENOMEM, "PIN: out of memory");
	pthread_mutex_lock(&c->lock);
	if (c->pinned_bytes + p->size > c->pin_limit) {
		uint64_t pinned = c->pinned_bytes;

		pthread_mutex_unlock(&c->lock);
		free(pin);
		return fail(f, -ENOMEM,
			    "PIN: 0x%llx more bytes would exceed the pin limit of 0x%llx bytes (0x%llx pinned)",
			    (unsigned long long)p->size,
			    (unsigned long long)c->pin_limit,
			    (unsigned long long)pinned);
	}
	c->pinned_bytes += p->size;
	c->npins++;
	pthread_mutex_unlock(&c->lock);
	pin->addr = (uint8_t *)(uintptr_t)p->addr;
	pin->size = p->size;
	pin->handle = __atomic_add_fetch(&fk_next_handle, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&f->lock);
	pin->next = f->pins;
	f->pins = pin;
	pthread_mutex_unlock(&f->lock);
	p->handle = pin->handle;
	p->page_size = FK_PAGE;
	p->nsegs = p->size / FK_PAGE;	/* no merging in the fake */
	return 0;
}

/* The pin @handle of @f: its address and size; false when unknown. */
static bool find_pin(struct fk_file *f, uint64_t handle, uint8_t **addr,
		     uint64_t *size)
{
	bool found = false;

	pthread_mutex_lock(&f->lock);
	for (struct fk_pin *p = f->pins; p; p = p->next) {
		if (p->handle == handle) {
			*addr = p->addr;
			*size = p->size;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	return found;
}

static int ioc_xfer(struct fk_file *f, struct hellofpga_xfer *x)
{
	struct fk_card *c = f->card;
	struct timespec t0, t1;
	uint8_t *addr;
	uint64_t size;
	size_t done = 0;
	int nch, ret;

	volatile uint32_t *word = NULL;

	x->bytes = 0;
	x->engine_ns = 0;
	if ((x->flags & ~HELLOFPGA_XFER_WB) ||
	    !zero(x->reserved, sizeof(x->reserved)))
		return fail(f, -EINVAL, "XFER: flags must be 0 or HELLOFPGA_XFER_WB, reserved 0");
	if (!(x->flags & HELLOFPGA_XFER_WB) && (x->wb_handle || x->wb_offset))
		return fail(f, -EINVAL, "XFER: wb_handle and wb_offset must be 0 without HELLOFPGA_XFER_WB");
	if (x->timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS)
		return fail(f, -EINVAL, "XFER: timeout_ms %u is above %u ms (0: the file's timeout)",
			    x->timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
	if (x->dir != HELLOFPGA_XFER_H2C && x->dir != HELLOFPGA_XFER_C2H)
		return fail(f, -EINVAL, "XFER: direction %u unknown", x->dir);
	nch = x->dir == HELLOFPGA_XFER_H2C ? c->info.num_h2c : c->info.num_c2h;
	if (x->channel >= (uint32_t)nch)
		return fail(f, -ECHRNG, "XFER: %s channel %u out of range (0..%d)",
			    x->dir == HELLOFPGA_XFER_H2C ? "H2C" : "C2H",
			    x->channel, nch - 1);
	if (!find_pin(f, x->handle, &addr, &size))
		return fail(f, -ENOENT, "XFER: pin handle 0x%llx unknown",
			    (unsigned long long)x->handle);
	if (x->buf_offset > size || x->length > size - x->buf_offset)
		return fail(f, -EINVAL,
			    "XFER: [0x%llx, +0x%llx) leaves the pin (0x%llx bytes)",
			    (unsigned long long)x->buf_offset,
			    (unsigned long long)x->length,
			    (unsigned long long)size);
	if (x->card_addr + x->length < x->card_addr)
		return fail(f, -EOVERFLOW, "XFER: card address + length wraps");
	if (spec_stream() && x->dir == HELLOFPGA_XFER_C2H)
		return fail(f, -EOPNOTSUPP, "XFER: %s", XDMA_STREAM_MM_MSG);
	if (spec_stream() && packet_ok(f, "XFER: ", x->card_addr, x->length))
		return -1;
	if (!spec_stream() && (x->card_addr > c->info.ddr_size ||
			       x->length > c->info.ddr_size - x->card_addr))
		return fail(f, -ERANGE,
			    "XFER: card range [0x%llx, +0x%llx) past the end of card memory (0x%llx bytes)",
			    (unsigned long long)x->card_addr,
			    (unsigned long long)x->length,
			    (unsigned long long)c->info.ddr_size);
	if (!x->length)
		return 0;
	if (x->flags & HELLOFPGA_XFER_WB) {
		uint8_t *wa;
		uint64_t ws;

		if (!(fk_features() & HELLOFPGA_FEAT_XFER_WB))
			return fail(f, -EINVAL, "XFER: HELLOFPGA_XFER_WB needs HELLOFPGA_FEAT_XFER_WB (host pins), which this driver lacks");
		if (x->wb_offset % 4)
			return fail(f, -EINVAL, "XFER: wb_offset 0x%llx is not a multiple of 4",
				    (unsigned long long)x->wb_offset);
		if (!find_pin(f, x->wb_handle, &wa, &ws))
			return fail(f, -ENOENT, "XFER: no pin with wb_handle %llu",
				    (unsigned long long)x->wb_handle);
		if (ws < HELLOFPGA_XFER_WB_ROOM ||
		    x->wb_offset > ws - HELLOFPGA_XFER_WB_ROOM)
			return fail(f, -EINVAL, "XFER: wb_offset 0x%llx: the word and the %u bytes from it the card may write (HELLOFPGA_XFER_WB_ROOM) must lie inside pin %llu",
				    (unsigned long long)x->wb_offset,
				    HELLOFPGA_XFER_WB_ROOM,
				    (unsigned long long)x->wb_handle);
		if (getenv("HF_FAKEDEV_WB_BOUNCE"))
			return fail(f, -EOPNOTSUPP,
				    "XFER: HELLOFPGA_XFER_WB: pin %llu's DMA mapping needs CPU syncs (swiotlb bounce buffers or a non-coherent device) (fake)",
				    (unsigned long long)x->wb_handle);
		word = (volatile uint32_t *)(wa + x->wb_offset);
		*word = 0;
	}
	if (injected(f)) {
		if (word)
			*word |= HELLOFPGA_XFER_WB_FAILED;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = card_xfer(f, x->dir == HELLOFPGA_XFER_H2C ? XDMA_H2C : XDMA_C2H,
			x->channel, addr + x->buf_offset, x->card_addr,
			x->length, x->timeout_ms ? x->timeout_ms :
			__atomic_load_n(&f->timeout_ms, __ATOMIC_RELAXED),
			&done);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->bytes = done;
	x->engine_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
		       t1.tv_nsec - t0.tv_nsec;
	/* one descriptor per page: the fake's pins are 4 KiB pieces */
	if (word)
		__atomic_store_n(word, ret ? HELLOFPGA_XFER_WB_FAILED :
				 (uint32_t)((x->buf_offset % FK_PAGE + x->length +
					     FK_PAGE - 1) / FK_PAGE),
				 __ATOMIC_RELEASE);
	return ret;
}

static int ioc_unpin(struct fk_file *f, struct hellofpga_unpin *u)
{
	struct fk_card *c = f->card;
	struct fk_pin **pp, *p = NULL;

	if (u->flags || u->pad || !zero(u->reserved, sizeof(u->reserved)))
		return fail(f, -EINVAL, "UNPIN: flags, pad and reserved must be 0");
	pthread_mutex_lock(&f->lock);
	for (pp = &f->pins; *pp; pp = &(*pp)->next) {
		if ((*pp)->handle == u->handle) {
			if ((*pp)->streams) {
				pthread_mutex_unlock(&f->lock);
				return fail(f, -EBUSY,
					    "UNPIN: pin %llu holds a running stream ring: stop the stream first",
					    (unsigned long long)u->handle);
			}
			p = *pp;
			*pp = p->next;
			break;
		}
	}
	pthread_mutex_unlock(&f->lock);
	if (!p)
		return fail(f, -ENOENT, "UNPIN: pin handle 0x%llx unknown",
			    (unsigned long long)u->handle);
	pthread_mutex_lock(&c->lock);
	c->pinned_bytes -= p->size;
	c->npins--;
	pthread_mutex_unlock(&c->lock);
	free(p);
	return 0;
}

int fk_ioctl(struct fk_file *f, unsigned long req, void *arg)
{
	bool ctl = f->node == FK_CONTROL;

	if (!arg && (req == HELLOFPGA_IOC_GET_INFO ||
		     req == HELLOFPGA_IOC_GET_STATS ||
		     req == HELLOFPGA_IOC_LAST_ERROR ||
		     req == HELLOFPGA_IOC_PIN || req == HELLOFPGA_IOC_XFER ||
		     req == HELLOFPGA_IOC_UNPIN ||
		     req == HELLOFPGA_IOC_SET_TIMEOUT ||
		     req == HELLOFPGA_IOC_STREAM_START ||
		     req == HELLOFPGA_IOC_STREAM_WAIT ||
		     req == HELLOFPGA_IOC_STREAM_RELEASE ||
		     req == HELLOFPGA_IOC_STREAM_STOP ||
		     req == HELLOFPGA_IOC_STREAM_STATS))
		return fail(f, -EFAULT, "ioctl 0x%lx: NULL argument", req);
	switch (req) {
	case HELLOFPGA_IOC_STREAM_START:
	case HELLOFPGA_IOC_STREAM_WAIT:
	case HELLOFPGA_IOC_STREAM_RELEASE:
	case HELLOFPGA_IOC_STREAM_STOP:
	case HELLOFPGA_IOC_STREAM_STATS:
		return fk_stream_ioctl(f, req, arg);
	case HELLOFPGA_IOC_GET_INFO:
		return ioc_get_info(f, arg);
	case HELLOFPGA_IOC_GET_STATS:
		return ioc_get_stats(f, arg);
	case HELLOFPGA_IOC_LAST_ERROR:
		return ioc_last_error(f, arg);
	case HELLOFPGA_IOC_SET_TIMEOUT:
		return ioc_set_timeout(f, arg);
	case HELLOFPGA_IOC_PIN:
		if (ctl)
			return ioc_pin(f, arg);
		break;
	case HELLOFPGA_IOC_XFER:
		if (ctl)
			return ioc_xfer(f, arg);
		break;
	case HELLOFPGA_IOC_UNPIN:
		if (ctl)
			return ioc_unpin(f, arg);
		break;
	}
	return fail(f, -ENOTTY, "ioctl 0x%lx unknown on this node", req);
}
