// SPDX-License-Identifier: MIT
/*
 * fuzz_data.c - the fuzzer's data paths: CPU-path DMA_MM calls, a thread's
 * GPU memory, GPU Direct pins and transfers, TransferMode.
 */
#include "fuzz.h"

/* ---- CPU-path data calls ---- */

/* An argument the API must reject, with what it is. */
struct fz_bad {
	HELLOFPGA_HANDLE h;
	int ch;
	void *buf;
	uint64_t off;
	size_t len;
	const char *what;
};

static bool pick_bad(struct fz_thread *t, int ci, int nch, struct fz_bad *b)
{
	const struct fz_card *c = &cards[ci];
	uint64_t ddr = c->info.ddr_size;

	b->h = c->h;
	b->ch = below(t, nch);
	b->buf = t->host + below(t, 64);
	b->off = slice_base(c, t->id);
	b->len = 1 + below(t, 4096);
	switch (below(t, 10)) {
	case 0:
		b->h = chance(t, 50) ? NULL : BOGUS;
		b->what = "bad handle";
		break;
	case 1:
		b->ch = chance(t, 50) ? nch : (chance(t, 50) ? -1 : INT_MAX);
		b->what = "bad channel";
		break;
	case 2:
		b->buf = NULL;
		b->what = "NULL buffer";
		break;
	case 3:
		b->off = ddr + below(t, 1 << 20);
		b->what = "past the end";
		break;
	case 4:
		b->off = ddr - below(t, b->len);
		b->len += below(t, 4096) + 1;
		b->what = "straddling the end";
		break;
	case 5:
		b->off = UINT64_MAX - below(t, 4096);
		b->len = 4097 + below(t, 4096);
		b->what = "address + length wraps";
		break;
	case 6:
		b->len = chance(t, 50) ? SIZE_MAX : SIZE_MAX / 2 + below(t, 99);
		b->what = "huge length";
		break;
	case 7:
		b->buf = (void *)(UINTPTR_MAX - below(t, 4096));
		b->len = 8192;
		b->what = "buffer wraps the address space";
		break;
	case 8:
		b->off = ddr;
		b->len = 1;
		b->what = "first byte past the end";
		break;
	default:
		b->off = (1ull << 63) + below(t, 1 << 30);
		b->what = "address far past the end";
		break;
	}
	return true;
}

void op_bad_dma(struct fz_thread *t)
{
	int ci = pick_card(t);
	const struct fz_card *c = &cards[ci];
	bool h2c = chance(t, 50);
	int nch = h2c ? c->info.num_h2c : c->info.num_c2h;
	const char *fn = h2c ? "HelloFPGA_DMA_MM_WriteH2C" :
			       "HelloFPGA_DMA_MM_ReadC2H";
	size_t actual = 77;
	struct fz_bad b;
	int ret;

	pick_bad(t, ci, nch, &b);
	fz_log(t, "%s(%s, ch %d, buf %p, 0x%llx, 0x%zx): %s", fn,
	       b.h == c->h ? c->name : b.h ? "bogus" : "NULL", b.ch, b.buf,
	       (unsigned long long)b.off, b.len, b.what);
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(b.h, b.ch, b.buf, b.off, b.len,
						&actual);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(b.h, b.ch, b.buf, b.off, b.len,
					       &actual);
	if (!must_fail(t, fn, ret))
		return;
	if (actual)
		fz_fail(t, "%s: rejected (%d), but actual is %zu", fn, ret,
			actual);
	check_whole_slice(t, ci, fn);
}

/*
 * A valid request in the thread's own slice of a random card: the card,
 * the length, the card offset and the host offset, drawn in this order.
 */
struct fz_req {
	int ci;
	const struct fz_card *c;
	uint64_t base, off;
	size_t len, at;
};

static void pick_req(struct fz_thread *t, struct fz_req *r)
{
	r->ci = pick_card(t);
	r->c = &cards[r->ci];
	r->base = slice_base(r->c, t->id);
	r->len = rnd_len(t, max_xfer(r->c));
	r->off = r->base + below(t, r->c->slice - r->len + 1);
	r->at = below(t, FZ_HOST - r->len + 1);
}

void op_write(struct fz_thread *t)
{
	struct fz_req r;
	size_t actual = 77;
	int ch, ret;

	pick_req(t, &r);
	ch = below(t, r.c->info.num_h2c);
	for (size_t i = 0; i < r.len; i++)
		t->host[r.at + i] = (uint8_t)rnd(t);
	fz_log(t, "HelloFPGA_DMA_MM_WriteH2C(%s, ch %d, host+%zu, 0x%llx, 0x%zx)",
	       r.c->name, ch, r.at, (unsigned long long)r.off, r.len);
	ret = HelloFPGA_DMA_MM_WriteH2C(r.c->h, ch, t->host + r.at, r.off,
					r.len, &actual);
	if (!must_succeed(t, "HelloFPGA_DMA_MM_WriteH2C", ret, r.c->h))
		return;
	if (actual != r.len)
		fz_fail(t, "WriteH2C: actual %zu, length %zu", actual, r.len);
	memcpy(t->shadow[r.ci] + (r.off - r.base), t->host + r.at, r.len);
	check_around(t, r.ci, r.off, r.len, "WriteH2C");
}

void op_read(struct fz_thread *t)
{
	struct fz_req r;
	size_t actual = 77;
	int ch, ret;
	bool guard;

	pick_req(t, &r);
	ch = below(t, r.c->info.num_c2h);
	guard = chance(t, 10);
	if (guard)	/* the guard: nobody writes it, it stays 0 */
		r.off = r.c->guard + below(t, r.c->info.ddr_size -
					   r.c->guard - r.len + 1);
	fz_log(t, "HelloFPGA_DMA_MM_ReadC2H(%s, ch %d, host+%zu, 0x%llx, 0x%zx)",
	       r.c->name, ch, r.at, (unsigned long long)r.off, r.len);
	ret = HelloFPGA_DMA_MM_ReadC2H(r.c->h, ch, t->host + r.at, r.off,
				       r.len, &actual);
	if (!must_succeed(t, "HelloFPGA_DMA_MM_ReadC2H", ret, r.c->h))
		return;
	if (actual != r.len)
		fz_fail(t, "ReadC2H: actual %zu, length %zu", actual, r.len);
	for (size_t i = 0; i < r.len && !t->failed; i++) {
		uint8_t want = guard ? 0 : t->shadow[r.ci][r.off - r.base + i];

		if (t->host[r.at + i] != want)
			fz_fail(t, "ReadC2H: byte 0x%llx read 0x%02x, expected 0x%02x",
				(unsigned long long)(r.off + i), t->host[r.at + i],
				want);
	}
	if (!guard)
		check_around(t, r.ci, r.off, r.len, "ReadC2H");
}

/*
 * Host memory the process may not use (P_BAD_HOST_PTR): unmapped,
 * PROT_NONE, or read-only for a read.  The API must say -EFAULT, and the
 * card must not change.
 */
void op_bad_host_ptr(struct fz_thread *t)
{
	int ci = pick_card(t);
	const struct fz_card *c = &cards[ci];
	bool h2c = chance(t, 50);
	const char *fn = h2c ? "HelloFPGA_DMA_MM_WriteH2C" :
			       "HelloFPGA_DMA_MM_ReadC2H";
	int kind = below(t, 3), ret;
	size_t len = 1 + below(t, 8192), actual = 0;
	uint64_t off = slice_base(c, t->id);
	uint8_t *p;

	if (kind == 0) {
		/*
		 * Below vm.mmap_min_addr (64 KiB): never mapped.  A buffer
		 * unmapped here could be mapped again by another thread
		 * before the call, which would then write into it.
		 */
		p = (uint8_t *)(uintptr_t)(0x1000 + below(t, 0x4000));
	} else {
		p = mmap(NULL, 16384, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		mprotect(p, 16384, kind == 1 ? PROT_NONE : PROT_READ);
	}
	fz_log(t, "%s(%s, %s buffer %p, 0x%llx, 0x%zx)", fn, c->name,
	       kind == 0 ? "unmapped" : kind == 1 ? "PROT_NONE" : "read-only",
	       p, (unsigned long long)off, len);
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(c->h, 0, p, off, len, &actual);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(c->h, 0, p, off, len, &actual);
	if (kind)
		munmap(p, 16384);
	if (!doc_ok(t, fn, ret))
		return;
	if (kind == 2 && h2c) {		/* reading read-only memory is fine */
		if (must_succeed(t, fn, ret, c->h)) {
			memset(t->shadow[ci], 0, len);
			check_around(t, ci, off, len, fn);
		}
		return;
	}
	if (ret != -EFAULT)
		fz_fail(t, "%s on a %s buffer returned %d, expected -EFAULT",
			fn, kind == 0 ? "unmapped" : kind == 1 ? "PROT_NONE" :
			"read-only", ret);
	check_whole_slice(t, ci, fn);
}

/* ---- GPU memory of a thread ---- */

static bool gpu_alloc(struct fz_thread *t, int g)
{
	void *p = NULL;
	int ret;

	fz_log(t, "HelloFPGA_GPU_Alloc(%u)", FZ_GPU_SIZE);
	ret = HelloFPGA_GPU_Alloc(&p, FZ_GPU_SIZE);
	if (!must_succeed(t, "HelloFPGA_GPU_Alloc", ret, NULL))
		return false;
	for (size_t i = 0; i < FZ_GPU_SIZE; i++)
		t->g[g].copy[i] = (uint8_t)rnd(t);
	ret = HelloFPGA_GPU_Memcpy(p, t->g[g].copy, FZ_GPU_SIZE,
				   HELLOFPGA_MEMCPY_HOST_TO_GPU);
	if (!must_succeed(t, "HelloFPGA_GPU_Memcpy", ret, NULL))
		return false;
	t->g[g].gpu = p;
	return true;
}

/* The GPU buffer @g holds its copy in [@off, @off + @len). */
static bool check_gpu(struct fz_thread *t, int g, size_t off, size_t len,
		      const char *after)
{
	uint8_t *tmp = t->host;	/* scratch: FZ_HOST >= FZ_GPU_SIZE */
	int ret;

	ret = HelloFPGA_GPU_Memcpy(tmp, t->g[g].gpu + off, len,
				   HELLOFPGA_MEMCPY_GPU_TO_HOST);
	if (!must_succeed(t, "HelloFPGA_GPU_Memcpy", ret, NULL))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (tmp[i] != t->g[g].copy[off + i]) {
			fz_fail(t, "%s: GPU buffer %d byte 0x%zx is 0x%02x, expected 0x%02x",
				after, g, off + i, tmp[i],
				t->g[g].copy[off + i]);
			return false;
		}
	}
	return true;
}

static void drop_pins_of(struct fz_thread *t, int g)
{
	for (int i = 0; i < FZ_NPINS; i++)
		if (t->pins[i].h && t->pins[i].g == g)
			t->pins[i].revoked = true;
}

static void gpu_free(struct fz_thread *t, int g)
{
	int ret;

	fz_log(t, "HelloFPGA_GPU_Free(GPU buffer %d %p)", g, t->g[g].gpu);
	ret = HelloFPGA_GPU_Free(t->g[g].gpu);
	must_succeed(t, "HelloFPGA_GPU_Free", ret, NULL);
	t->g[g].gpu = NULL;
	drop_pins_of(t, g);
}

/* GPU_Alloc / Free / Memcpy with good and bad arguments. */
void op_gpu_mem(struct fz_thread *t)
{
	int g = below(t, FZ_NGPU), ret;
	void *p = (void *)1;
	size_t n;

	if (!t->g[g].gpu) {
		gpu_alloc(t, g);
		return;
	}
	switch (below(t, 9)) {
	case 0:
		fz_log(t, "HelloFPGA_GPU_Alloc(NULL, 4096)");
		must_fail(t, "HelloFPGA_GPU_Alloc",
			  HelloFPGA_GPU_Alloc(NULL, 4096));
		break;
	case 1:
		fz_log(t, "HelloFPGA_GPU_Alloc(&p, 0)");
		must_fail(t, "HelloFPGA_GPU_Alloc", HelloFPGA_GPU_Alloc(&p, 0));
		break;
	case 2:
		n = chance(t, 50) ? SIZE_MAX : (1ull << 62);
		fz_log(t, "HelloFPGA_GPU_Alloc(&p, 0x%zx)", n);
		must_fail(t, "HelloFPGA_GPU_Alloc", HelloFPGA_GPU_Alloc(&p, n));
		break;
	case 3:
		fz_log(t, "HelloFPGA_GPU_Free(inside GPU buffer %d)", g);
		must_fail(t, "HelloFPGA_GPU_Free",
			  HelloFPGA_GPU_Free(t->g[g].gpu + 4096 *
					     (1 + below(t, 8))));
		break;
	case 4:
		fz_log(t, "HelloFPGA_GPU_Free(host memory)");
		must_fail(t, "HelloFPGA_GPU_Free",
			  HelloFPGA_GPU_Free(t->host + 4096));
		break;
	case 5:
		fz_log(t, "HelloFPGA_GPU_Free(NULL)");
		must_succeed(t, "HelloFPGA_GPU_Free", HelloFPGA_GPU_Free(NULL),
			     NULL);
		break;
	case 6: {
		int kind = chance(t, 50) ? 0 : (chance(t, 50) ? 3 : INT_MIN);

		fz_log(t, "HelloFPGA_GPU_Memcpy(kind %d)", kind);
		ret = HelloFPGA_GPU_Memcpy(t->g[g].gpu, t->host, 64, kind);
		must_fail(t, "HelloFPGA_GPU_Memcpy", ret);
		break;
	}
	case 7:
		/* across the end of the allocation, or NULL */
		n = FZ_GPU_SIZE - 1 - below(t, 64);
		fz_log(t, "HelloFPGA_GPU_Memcpy(GPU buffer %d + 0x%zx, 4096) or NULL",
		       g, n);
		ret = chance(t, 50) ?
		      HelloFPGA_GPU_Memcpy(t->host, t->g[g].gpu + n, 4096,
					   HELLOFPGA_MEMCPY_GPU_TO_HOST) :
		      HelloFPGA_GPU_Memcpy(NULL, t->host, 16,
					   HELLOFPGA_MEMCPY_HOST_TO_GPU);
		must_fail(t, "HelloFPGA_GPU_Memcpy", ret);
		break;
	default:
		n = below(t, FZ_GPU_SIZE);
		fz_log(t, "check GPU buffer %d from 0x%zx", g, n);
		check_gpu(t, g, n, FZ_GPU_SIZE - n, "GPU_Memcpy");
		break;
	}
}

/* ---- GPU Direct ---- */

static struct fz_pin *free_pin(struct fz_thread *t)
{
	for (int i = 0; i < FZ_NPINS; i++)
		if (!t->pins[i].h)
			return &t->pins[i];
	return NULL;
}

void op_pin(struct fz_thread *t)
{
	int ci = pick_card(t), g = below(t, FZ_NGPU), ret;
	const struct fz_card *c = &cards[ci];
	struct fz_pin *p = free_pin(t);
	HELLOFPGA_GPU_HANDLE gh = 0;
	size_t off, size;

	if (!t->g[g].gpu && !gpu_alloc(t, g))
		return;
	off = 4096 * below(t, FZ_GPU_SIZE / 4096);
	size = 4096 * (1 + below(t, (FZ_GPU_SIZE - off) / 4096));
	if (!p || chance(t, 25)) {
		/* bad: unaligned, size 0 or odd, past the buffer, host, NULL */
		static const char *const what[] = {
			"unaligned address", "unaligned size", "size 0",
			"host memory", "NULL buffer", "NULL handle pointer",
			"bad card handle", "past the allocation",
		};
		void *addr = t->g[g].gpu + off;
		HELLOFPGA_HANDLE h = c->h;
		HELLOFPGA_GPU_HANDLE *out = &gh;
		int k = below(t, ARRAY_SIZE(what));

		switch (k) {
		case 0:
			addr = (uint8_t *)addr + 1 + below(t, 4095);
			break;
		case 1:
			size += 1 + below(t, 4095);
			break;
		case 2:
			size = 0;
			break;
		case 3:
			addr = (void *)ALIGN((uintptr_t)t->host, 4096);
			size = 4096;
			break;
		case 4:
			addr = NULL;
			break;
		case 5:
			out = NULL;
			break;
		case 6:
			h = chance(t, 50) ? NULL : BOGUS;
			break;
		default:
			size = FZ_GPU_SIZE - off + 4096;
			break;
		}
		fz_log(t, "HelloFPGA_GPUDirect_Pin(%s, %p, 0x%zx): %s", c->name,
		       addr, size, what[k]);
		ret = HelloFPGA_GPUDirect_Pin(h, addr, size, out);
		if (must_fail(t, "HelloFPGA_GPUDirect_Pin", ret) && gh)
			fz_fail(t, "GPUDirect_Pin failed (%d) but set a handle",
				ret);
		return;
	}
	fz_log(t, "HelloFPGA_GPUDirect_Pin(%s, GPU buffer %d + 0x%zx, 0x%zx)",
	       c->name, g, off, size);
	ret = HelloFPGA_GPUDirect_Pin(c->h, t->g[g].gpu + off, size, &gh);
	if (!must_succeed(t, "HelloFPGA_GPUDirect_Pin", ret, c->h))
		return;
	if (!gh) {
		fz_fail(t, "GPUDirect_Pin returned handle 0");
		return;
	}
	*p = (struct fz_pin){ .h = gh, .card = ci, .g = g, .off = off,
			      .size = size };
}

void op_unpin(struct fz_thread *t)
{
	struct fz_pin *p = &t->pins[below(t, FZ_NPINS)];
	int ret;

	if (!p->h || chance(t, 20)) {
		/* never pinned, 0, another card's or random handles */
		const struct fz_card *c = &cards[pick_card(t)];
		HELLOFPGA_GPU_HANDLE gh = chance(t, 30) ? 0 : rnd(t);

		if (p->h && p->card != c - cards)
			gh = p->h;
		fz_log(t, "HelloFPGA_GPUDirect_Unpin(%s, 0x%llx): not pinned there",
		       c->name, (unsigned long long)gh);
		must_fail(t, "HelloFPGA_GPUDirect_Unpin",
			  HelloFPGA_GPUDirect_Unpin(chance(t, 10) ? NULL : c->h,
						    gh));
		return;
	}
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(%s, 0x%llx)", cards[p->card].name,
	       (unsigned long long)p->h);
	ret = HelloFPGA_GPUDirect_Unpin(cards[p->card].h, p->h);
	must_succeed(t, "HelloFPGA_GPUDirect_Unpin", ret, cards[p->card].h);
	fz_log(t, "HelloFPGA_GPUDirect_Unpin(again)");
	must_fail(t, "HelloFPGA_GPUDirect_Unpin",
		  HelloFPGA_GPUDirect_Unpin(cards[p->card].h, p->h));
	p->h = 0;
}

/* Free the GPU buffer of a pin: its later transfers are -ENXIO. */
void op_free_pinned(struct fz_thread *t)
{
	struct fz_pin *p = &t->pins[below(t, FZ_NPINS)];

	if (!p->h || p->revoked || !t->g[p->g].gpu)
		return;
	gpu_free(t, p->g);
}

void op_xfer(struct fz_thread *t)
{
	struct fz_pin *p = &t->pins[below(t, FZ_NPINS)];
	const struct fz_card *c;
	bool h2c = chance(t, 50), valid_ch, bad = chance(t, 20);
	int dir = h2c ? HELLOFPGA_DIR_H2C : HELLOFPGA_DIR_C2H;
	uint64_t base, card_addr;
	size_t bo, len, actual = 77, align;
	int ch, ret, variant = below(t, 4), timeout = 0;
	const char *fn;

	if (!p->h)
		return;
	c = &cards[p->card];
	align = c->info.addr_align;
	base = slice_base(c, t->id);
	ch = rnd_channel(t, h2c ? c->info.num_h2c : c->info.num_c2h,
			 &valid_ch);
	len = rnd_len(t, p->size < c->slice ? p->size : c->slice);
	bo = variant >= 2 ? below(t, p->size - len + 1) : 0;
	card_addr = base + below(t, c->slice - len + 1);
	if (align > 1) {
		len = ALIGN_DOWN(len, align);
		bo = ALIGN_DOWN(bo, align);
		card_addr = ALIGN_DOWN(card_addr, align);
	}
	if (variant == 3 && !len)
		variant = 2;	/* a submission moves at least one byte */
	if (bad) {
		switch (below(t, 6)) {
		case 0:
			card_addr = c->info.ddr_size - len / 2;
			len = len ? len : 1;
			break;
		case 1:
			card_addr = UINT64_MAX - below(t, 100);
			len = 4096;
			break;
		case 2:
			dir = chance(t, 50) ? 2 : -1;
			variant = 2;
			break;
		case 3:
			timeout = 3600001 + below(t, 1000);
			break;
		case 4:
			variant = 2;
			bo = p->size - below(t, 4096);
			len = 8192;
			break;
		default:
			ch = -1;
			valid_ch = false;
			break;
		}
	} else if (chance(t, 20)) {
		timeout = chance(t, 50) ? -1 : 1000 + below(t, 5000);
	}
	if (variant == 0) {
		fn = h2c ? "HelloFPGA_GPUDirect_WriteH2C" :
			   "HelloFPGA_GPUDirect_ReadC2H";
		fz_log(t, "%s(%s, ch %d, 0x%llx, 0x%llx, 0x%zx, %d ms)%s", fn,
		       c->name, ch, (unsigned long long)p->h,
		       (unsigned long long)card_addr, len, timeout,
		       p->revoked ? " revoked" : "");
		ret = h2c ? HelloFPGA_GPUDirect_WriteH2C(c->h, ch, p->h,
							  card_addr, len,
							  timeout) :
			    HelloFPGA_GPUDirect_ReadC2H(c->h, ch, p->h,
							card_addr, len,
							timeout);
		actual = ret ? 0 : len;
	} else if (variant == 3) {
		/* queued, then its result: as an Xfer's */
		HELLOFPGA_SUBMISSION sub;

		fn = "HelloFPGA_GPUDirect_Submit";
		fz_log(t, "%s(%s, ch %d, 0x%llx, +0x%zx, 0x%llx, 0x%zx, dir %d, %d ms)%s",
		       fn, c->name, ch, (unsigned long long)p->h, bo,
		       (unsigned long long)card_addr, len, dir, timeout,
		       p->revoked ? " revoked" : "");
		ret = HelloFPGA_GPUDirect_Submit(c->h, ch, p->h, bo, card_addr,
						 len, dir, NULL, 0, timeout,
						 &sub);
		actual = 0;
		if (!ret) {
			if (!doc_ok(t, fn, ret))
				return;
			fn = "HelloFPGA_GPUDirect_Complete";
			ret = HelloFPGA_GPUDirect_Complete(c->h, sub.ticket, -1,
							   &actual);
			/* completed again later, also through other handles */
			if (part_on[P_SUBMIT])
				ticket_add(c->h, sub.ticket, TK_MM);
		}
	} else {
		fn = "HelloFPGA_GPUDirect_Xfer";
		fz_log(t, "%s(%s, ch %d, 0x%llx, +0x%zx, 0x%llx, 0x%zx, dir %d, %d ms)%s",
		       fn, c->name, ch, (unsigned long long)p->h, bo,
		       (unsigned long long)card_addr, len, dir, timeout,
		       p->revoked ? " revoked" : "");
		ret = HelloFPGA_GPUDirect_Xfer(c->h, ch, p->h, bo, card_addr,
					       len, dir, timeout, &actual);
	}
	if (!doc_ok(t, fn, ret))
		return;
	if (bad || !valid_ch) {
		if (ret >= 0 && len)
			fz_fail(t, "%s: bad arguments, returned %d", fn, ret);
		if (ret < 0 && actual)
			fz_fail(t, "%s: rejected (%d), but actual is %zu", fn,
				ret, actual);
		check_whole_slice(t, p->card, fn);
		return;
	}
	if (p->revoked) {
		if (len && ret != -ENXIO)
			fz_fail(t, "%s on freed pinned memory: %d, not -ENXIO",
				fn, ret);
		check_whole_slice(t, p->card, fn);
		return;
	}
	if (!must_succeed(t, fn, ret, c->h))
		return;
	if (actual != len)
		fz_fail(t, "%s: actual %zu, length %zu", fn, actual, len);
	if (h2c) {
		memcpy(t->shadow[p->card] + (card_addr - base),
		       t->g[p->g].copy + p->off + bo, len);
		check_around(t, p->card, card_addr, len, fn);
	} else {
		memcpy(t->g[p->g].copy + p->off + bo,
		       t->shadow[p->card] + (card_addr - base), len);
		check_gpu(t, p->g, p->off + bo, len, fn);
	}
}

/* ---- TransferMode ---- */

void op_transfer_mode(struct fz_thread *t)
{
	int ci = pick_card(t), g = below(t, FZ_NGPU), ret;
	const struct fz_card *c = &cards[ci];
	int mode;

	if (!t->g[g].gpu && !gpu_alloc(t, g))
		return;
	switch (below(t, 5)) {
	case 0:
		fz_log(t, "HelloFPGA_SetGPUBuffer(%s, GPU buffer %d)", c->name,
		       g);
		ret = HelloFPGA_SetGPUBuffer(c->h, t->g[g].gpu, FZ_GPU_SIZE);
		must_succeed(t, "HelloFPGA_SetGPUBuffer", ret, c->h);
		break;
	case 1:
		fz_log(t, "HelloFPGA_SetGPUBuffer(%s, NULL)", c->name);
		ret = HelloFPGA_SetGPUBuffer(c->h, NULL, 0);
		must_succeed(t, "HelloFPGA_SetGPUBuffer", ret, c->h);
		break;
	case 2: {
		void *bad = chance(t, 50) ? t->g[g].gpu + 1 :
			    (void *)ALIGN((uintptr_t)t->host, 4096);

		fz_log(t, "HelloFPGA_SetGPUBuffer(%s, %p: unaligned or host)",
		       c->name, bad);
		ret = HelloFPGA_SetGPUBuffer(chance(t, 10) ? BOGUS : c->h, bad,
					     4096);
		must_fail(t, "HelloFPGA_SetGPUBuffer", ret);
		break;
	}
	default:
		mode = chance(t, 80) ? (int)below(t, 2) :
		       (chance(t, 50) ? 2 : INT_MIN);
		fz_log(t, "HelloFPGA_SetTransferMode(%s, %d)", c->name, mode);
		ret = HelloFPGA_SetTransferMode(c->h, mode);
		if (!doc_ok(t, "HelloFPGA_SetTransferMode", ret))
			break;
		if (mode > 1 || mode < 0)
			must_fail(t, "HelloFPGA_SetTransferMode", ret);
		break;
	}
}

/*
 * DMA_MM with a buffer inside one of the thread's GPU buffers: GPU Direct
 * when it is the registered one in GPU_PINNED mode, else refused (device
 * memory on the CPU path) or the GPU Direct errors; either way, on
 * success the data moved.
 */
void op_dma_gpu(struct fz_thread *t)
{
	int ci = pick_card(t), g = below(t, FZ_NGPU), ch, ret;
	const struct fz_card *c = &cards[ci];
	uint64_t base = slice_base(c, t->id);
	size_t len, bo, actual = 0, a = c->info.addr_align;
	uint64_t off;
	bool h2c = chance(t, 50);
	const char *fn = h2c ? "HelloFPGA_DMA_MM_WriteH2C" :
			       "HelloFPGA_DMA_MM_ReadC2H";

	if (!t->g[g].gpu)
		return;
	len = rnd_len(t, max_xfer(c));
	bo = below(t, FZ_GPU_SIZE - len + 1);
	off = base + below(t, c->slice - len + 1);
	if (a > 1 && chance(t, 80)) {
		len = ALIGN_DOWN(len, a);
		bo = ALIGN_DOWN(bo, a);
		off = ALIGN(off, a);
		if (off + len > base + c->slice)
			off -= a;
	}
	if (len && chance(t, 10))	/* straddles the end: starts inside */
		bo = FZ_GPU_SIZE - 1 - below(t, len);
	ch = below(t, h2c ? c->info.num_h2c : c->info.num_c2h);
	fz_log(t, "%s(%s, ch %d, GPU buffer %d + 0x%zx, 0x%llx, 0x%zx)", fn,
	       c->name, ch, g, bo, (unsigned long long)off, len);
	if (h2c)
		ret = HelloFPGA_DMA_MM_WriteH2C(c->h, ch, t->g[g].gpu + bo, off,
						len, &actual);
	else
		ret = HelloFPGA_DMA_MM_ReadC2H(c->h, ch, t->g[g].gpu + bo, off,
					       len, &actual);
	if (!doc_ok(t, fn, ret))
		return;
	if (ret < 0 || bo + len > FZ_GPU_SIZE) {
		if (ret >= 0 && len)
			fz_fail(t, "%s: a buffer straddling the GPU buffer's end succeeded",
				fn);
		check_whole_slice(t, ci, fn);
		return;
	}
	if (actual != len)
		fz_fail(t, "%s: actual %zu, length %zu", fn, actual, len);
	if (h2c) {
		memcpy(t->shadow[ci] + (off - base), t->g[g].copy + bo, len);
		check_around(t, ci, off, len, fn);
	} else {
		memcpy(t->g[g].copy + bo, t->shadow[ci] + (off - base), len);
		check_gpu(t, g, bo, len, fn);
	}
}
