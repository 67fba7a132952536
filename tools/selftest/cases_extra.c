// SPDX-License-Identifier: MIT
/*
 * cases_extra.c - the five cases beyond the seed: the TransferMode switch,
 * the CPU path beside GPU Direct, pin misuse, handle reuse, rotation over
 * pinned buffers (docs/test-program.md, cases 11 to 15).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

/*
 * xm_register() - TransferMode's refusals before a GPU buffer is
 * registered and of an unaligned one, then @g1 (@n bytes) registered and
 * GPU_PINNED mode on; @g2 is the replacing buffer of later.
 * Return: 0, or -1 (recorded).
 */
static int xm_register(struct tctx *t, struct gbuf *g1, struct gbuf *g2,
		       size_t n)
{
	int ret;

	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (!ret)
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (expect(t, ret, -EINVAL, T_NONE,
		   "SetTransferMode(GPU_PINNED) with no GPU buffer") ||
	    expect(t, HelloFPGA_SetTransferMode(t->h, 42), -EINVAL, T_NONE,
		   "SetTransferMode(42)"))
		return -1;
	if (gbuf_alloc(t, g1, n) || gbuf_alloc(t, g2, T_MIN_SIZE))
		return -1;
	if (expect(t, HelloFPGA_SetGPUBuffer(t->h, (uint8_t *)g1->p + 1,
					     n - T_PAGE),
		   -EINVAL, T_NONE, "SetGPUBuffer of an unaligned address"))
		return -1;
	ret = HelloFPGA_SetGPUBuffer(t->h, g1->p, n);
	if (ret)
		return tlibfail(t, t->h, ret, "SetGPUBuffer of %zu bytes", n);
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (ret)
		return tlibfail(t, t->h, ret, "SetTransferMode(GPU_PINNED)");
	return 0;
}

/*
 * xm_gpu_pinned() - in GPU_PINNED mode: a read into @len bytes at @off of
 * the registered @g1 from card @a (the rest of @g1 untouched), and a
 * write from there to card @b; host buffers still take the CPU path.
 * Return: 0, or -1 (recorded).
 */
static int xm_gpu_pinned(struct tctx *t, const struct gbuf *g1, size_t off,
			 size_t len, uint64_t a, uint64_t b, uint64_t *gr_ns,
			 uint64_t *gw_ns)
{
	uint8_t *buf = (uint8_t *)g1->p + off;
	size_t n = g1->size;

	/* GPU mode: host buffers still take the CPU path ... */
	fill(t->ha, len, seed_of(11, 0, 0));
	if (card_put(t, a, t->ha, len) || gpu_poison(t, g1->p, n))
		return -1;
	/* ... and a buffer inside the registered one goes to the GPU. */
	if (mm_xfer(t, true, buf, a, len, gr_ns,
		    "GPU_PINNED DMA_MM_ReadC2H into the GPU buffer") ||
	    gpu_get(t, t->hb, g1->p, n) ||
	    check_poison(t, "GPU_PINNED DMA_MM_ReadC2H", t->hb, off, 0) ||
	    check_bytes(t, "GPU_PINNED DMA_MM_ReadC2H", t->ha, t->hb + off,
			len, off) ||
	    check_poison(t, "GPU_PINNED DMA_MM_ReadC2H", t->hb + off + len,
			 n - off - len, off + len))
		return -1;
	fill(t->ha, len, seed_of(11, 1, 0));
	if (gpu_put(t, buf, t->ha, len))
		return -1;
	if (mm_xfer(t, false, buf, b, len, gw_ns,
		    "GPU_PINNED DMA_MM_WriteH2C from the GPU buffer") ||
	    card_get(t, b, t->hb, len) ||
	    check_bytes(t, "GPU_PINNED DMA_MM_WriteH2C", t->ha, t->hb, len, b))
		return -1;
	return 0;
}

/*
 * xm_cpu_mode() - back to CPU mode: host buffers as ever (card @b to
 * host, @len bytes), and on a real desktop GPU device memory (@buf)
 * refused from card @a.  @note: what was checked of the refusal.
 * Return: 0, or -1 (recorded).
 */
static int xm_cpu_mode(struct tctx *t, void *buf, size_t len, uint64_t a,
		       uint64_t b, uint64_t *cr_ns, const char **note)
{
	int ret;

	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (ret)
		return tlibfail(t, t->h, ret, "SetTransferMode(CPU)");
	if (mm_xfer(t, true, t->hb, b, len, cr_ns, "CPU-mode DMA_MM_ReadC2H") ||
	    check_bytes(t, "CPU mode read-back", t->ha, t->hb, len, b))
		return -1;
	/*
	 * Real desktop GPU memory is not reachable by the CPU path, so in CPU
	 * mode it must be refused: that also proves the GPU_PINNED transfers
	 * above really went GPU Direct.  Emulated and Tegra GPU memory is
	 * host memory, which the CPU path may use.
	 */
	if (t->gs.platform == HELLOFPGA_PLATFORM_DESKTOP && !t->gs.emulated) {
		if (expect(t, HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, buf, a, len,
						       NULL),
			   -EFAULT, T_NONE,
			   "CPU-mode DMA_MM_ReadC2H into GPU device memory"))
			return -1;
		*note = "; CPU mode refuses device memory (EFAULT)";
	} else {
		*note = t->gs.emulated ?
			"; device-memory refusal not checked: emulated GPU memory is host memory" :
			"";
	}
	return 0;
}

/*
 * xm_again() - GPU_PINNED again into the still registered @g1 (card @a),
 * then @g2 replacing it (card @b), then unregistering, which returns to
 * CPU mode.
 * Return: 0, or -1 (recorded).
 */
static int xm_again(struct tctx *t, const struct gbuf *g1,
		    const struct gbuf *g2, uint64_t a, uint64_t b)
{
	size_t n = g1->size;
	int ret;

	/* And GPU_PINNED again: the buffer is still registered. */
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (ret)
		return tlibfail(t, t->h, ret,
				"SetTransferMode(GPU_PINNED), second time");
	fill(t->ha, n, seed_of(11, 2, 0));
	if (card_put(t, a, t->ha, n))
		return -1;
	if (mm_xfer(t, true, g1->p, a, n, NULL,
		    "GPU_PINNED DMA_MM_ReadC2H, second time") ||
	    gpu_get(t, t->hb, g1->p, n) ||
	    check_bytes(t, "GPU_PINNED read, second time", t->ha, t->hb, n, 0))
		return -1;

	/* A new buffer replaces the old one. */
	ret = HelloFPGA_SetGPUBuffer(t->h, g2->p, g2->size);
	if (ret)
		return tlibfail(t, t->h, ret, "SetGPUBuffer replacing the buffer");
	fill(t->ha, g2->size, seed_of(11, 3, 0));
	if (card_put(t, b, t->ha, g2->size))
		return -1;
	if (mm_xfer(t, true, g2->p, b, g2->size, NULL,
		    "GPU_PINNED DMA_MM_ReadC2H into the replacing buffer") ||
	    gpu_get(t, t->hb, g2->p, g2->size) ||
	    check_bytes(t, "read into the replacing buffer", t->ha, t->hb,
			g2->size, 0))
		return -1;

	/* Unregistering returns to CPU mode. */
	ret = HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
	if (ret)
		return tlibfail(t, t->h, ret, "SetGPUBuffer(NULL, 0)");
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (!ret)
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (expect(t, ret, -EINVAL, T_NONE,
		   "SetTransferMode(GPU_PINNED) after SetGPUBuffer(NULL, 0)") ||
	    card_get(t, b, t->hb, g2->size) ||
	    check_bytes(t, "CPU mode after unregistering", t->ha, t->hb,
			g2->size, b))
		return -1;
	return 0;
}

/**
 * case_transfer_mode() - 11. The TransferMode switch: refusals, a
 * registered GPU buffer in GPU_PINNED mode both ways, CPU mode again,
 * GPU_PINNED again, a replacing buffer, unregistering.
 */
int case_transfer_mode(struct tctx *t)
{
	struct gbuf g1 = { 0 }, g2 = { 0 };
	size_t n = t->size, off = T_PAGE, len = n - 2 * T_PAGE;
	uint64_t a = 0, b = 2 * (uint64_t)n, gr_ns = 0, gw_ns = 0, cr_ns = 0;
	const char *note = "";
	int rc = -1;

	if (xm_register(t, &g1, &g2, n) ||
	    xm_gpu_pinned(t, &g1, off, len, a, b, &gr_ns, &gw_ns) ||
	    xm_cpu_mode(t, (uint8_t *)g1.p + off, len, a, b, &cr_ns, &note) ||
	    xm_again(t, &g1, &g2, a, b))
		goto out;
	tpass(t, "GPU_PINNED DMA_MM card -> GPU %.2f GB/s, GPU -> card %.2f GB/s (CPU mode card -> host %.2f GB/s); CPU <-> GPU_PINNED switches, replacing and unregistering verified%s",
	      cli_gbps(len, gr_ns), cli_gbps(len, gw_ns), cli_gbps(len, cr_ns),
	      note);
	rc = 0;
out:
	HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
	HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	gbuf_free(t, &g1);
	gbuf_free(t, &g2);
	return rc;
}

/**
 * struct cpu_job - CPU-path round trips run by a thread of their own.
 * @h: the card
 * @ch: the channel
 * @addr: card region
 * @len: bytes per transfer
 * @src, @dst: host buffers
 * @rounds: write + read-back rounds done
 * @ret: 0, or the failing call's error
 * @err: what failed
 */
struct cpu_job {
	HELLOFPGA_HANDLE h;
	int ch;
	uint64_t addr;
	size_t len;
	uint8_t *src;
	uint8_t *dst;
	int rounds;
	int ret;
	char err[256];
};

static void *cpu_worker(void *arg)
{
	struct cpu_job *j = arg;
	size_t got;
	int r;

	for (r = 0; r < T_CPU_ROUNDS; r++) {
		fill(j->src, j->len, seed_of(12, 100, (uint32_t)r));
		memset(j->dst, T_POISON, j->len);
		j->ret = HelloFPGA_DMA_MM_WriteH2C(j->h, j->ch, j->src, j->addr,
						   j->len, &got);
		if (!j->ret)
			j->ret = HelloFPGA_DMA_MM_ReadC2H(j->h, j->ch, j->dst,
							  j->addr, j->len, &got);
		if (j->ret) {
			snprintf(j->err, sizeof(j->err), "CPU-path transfer on channel %d (other thread): %s: %s",
				 j->ch, HelloFPGA_StrError(j->ret),
				 HelloFPGA_GetLastError(j->h));
			return NULL;
		}
		if (memcmp(j->src, j->dst, j->len)) {
			j->ret = -EIO;
			snprintf(j->err, sizeof(j->err),
				 "CPU-path round %d on channel %d (other thread): data read back differs",
				 r + 1, j->ch);
			return NULL;
		}
		j->rounds++;
	}
	return NULL;
}

/* CPU-path write of @len bytes at @addr and read-back, verified. */
static int cpu_roundtrip(struct tctx *t, const char *what, uint8_t *src,
			 uint64_t addr, size_t len, uint64_t seed)
{
	fill(src, len, seed);
	memset(t->hb, T_POISON, len);
	if (card_put(t, addr, src, len) || card_get(t, addr, t->hb, len))
		return -1;
	return check_bytes(t, what, src, t->hb, len, addr);
}

/*
 * SetGPUBuffer(@p, @n), then SetTransferMode(@mode).
 * Return: 0, or -1 after recording @what as failed.
 */
static int set_gpu_mode(struct tctx *t, void *p, size_t n, int mode,
			const char *what)
{
	int ret = HelloFPGA_SetGPUBuffer(t->h, p, n);

	if (!ret)
		ret = HelloFPGA_SetTransferMode(t->h, mode);
	if (ret)
		return tlibfail(t, t->h, ret, "%s", what);
	return 0;
}

/*
 * cpu_modes() - the mode of the "during" part: with GPU Direct a
 * registered buffer @reg and a pinned @gb (@n bytes each) in GPU_PINNED
 * mode; without, its refusals.
 * Return: 0, or -1 (recorded).
 */
static int cpu_modes(struct tctx *t, bool gpu, struct gbuf *reg,
		     struct gbuf *gb, size_t n)
{
	int ret;

	if (gpu) {
		if (gbuf_alloc(t, reg, n) || gbuf_new(t, gb, n) ||
		    set_gpu_mode(t, reg->p, n, HELLOFPGA_XFER_MODE_GPU_PINNED,
				 "SetGPUBuffer + SetTransferMode(GPU_PINNED)"))
			return -1;
		return 0;
	}
	ret = HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_GPU_PINNED);
	if (!ret)
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	if (expect(t, ret, -EINVAL, T_NONE,
		   "SetTransferMode(GPU_PINNED) without GPU Direct"))
		return -1;
	ret = HelloFPGA_SetGPUBuffer(t->h, t->ha, n);
	if (!ret) {
		HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
		return tfail(t, "SetGPUBuffer of host memory succeeded without GPU Direct");
	}
	return 0;
}

/*
 * cpu_beside_gd() - the CPU path (card @a) interleaved with GPU Direct
 * (@gb, card @c) on the same channel, then at the same time from another
 * thread on another channel (@job, card @b), then CPU mode again.
 * Return: 0, or -1 (recorded).
 */
static int cpu_beside_gd(struct tctx *t, const struct gbuf *gb,
			 struct cpu_job *job, uint64_t a, uint64_t b,
			 uint64_t c)
{
	size_t n = t->size;
	int nch = t->info.num_h2c < t->info.num_c2h ? t->info.num_h2c :
						      t->info.num_c2h;
	pthread_t thr;
	int i, ret;

	/* Interleaved with GPU Direct on the same channel. */
	for (i = 0; i < 4; i++) {
		if (roundtrip(t, gb, 0, c, n, PAT_RANDOM,
			      seed_of(12, 3, (uint32_t)i), NULL) ||
		    cpu_roundtrip(t, "CPU path interleaved", t->ha, a, n,
				  seed_of(12, 4, (uint32_t)i)))
			return -1;
	}
	/* At the same time from another thread, on another channel. */
	job->h = t->h;
	job->ch = nch > 1 ? (t->ch + 1) % nch : t->ch;
	job->addr = b;
	job->len = n < (1u << 20) ? n : 1u << 20;
	job->src = cli_alloc(job->len);
	job->dst = job->src ? cli_alloc(job->len) : NULL;
	if (!job->dst)
		return tfail(t, "out of host memory");
	ret = pthread_create(&thr, NULL, cpu_worker, job);
	if (ret)
		return tfail(t, "cannot start a thread: %s", strerror(ret));
	for (i = 0; i < 8; i++)
		if (roundtrip(t, gb, 0, c, n, PAT_RANDOM,
			      seed_of(12, 5, (uint32_t)i), NULL))
			break;
	pthread_join(thr, NULL);
	if (t->cur->res == T_FAIL)
		return -1;
	if (job->ret)
		return tfail(t, "%s", job->err);
	return set_gpu_mode(t, NULL, 0, HELLOFPGA_XFER_MODE_CPU,
			    "SetGPUBuffer(NULL) + SetTransferMode(CPU)") ? -1 : 0;
}

/*
 * cpu_counted() - the card's counters since @c0 count the CPU-path
 * transfers: at least 4 more, and @n + @odd more H2C bytes.
 * Return: 0, or -1 (recorded).
 */
static int cpu_counted(struct tctx *t, const HELLOFPGA_COUNTERS *c0,
		       size_t n, size_t odd)
{
	uint64_t before = c0->bytes_h2c;
	HELLOFPGA_COUNTERS c1;
	int ret;

	ret = HelloFPGA_GetCounters(t->h, &c1);
	if (ret)
		return tlibfail(t, t->h, ret, "GetCounters");
	if (c1.transfers < c0->transfers + 4 ||
	    c1.bytes_h2c < before + n + odd)
		return tfail(t, "counters did not count the CPU-path transfers (transfers %" PRIu64
			     " -> %" PRIu64 ", H2C bytes %" PRIu64 " -> %" PRIu64 ")",
			     c0->transfers, c1.transfers, before, c1.bytes_h2c);
	return 0;
}

/**
 * case_cpu_path() - 12. The CPU path unchanged beside GPU Direct: host
 * buffer round trips (also odd sizes and addresses), error codes of bad
 * calls, and counters, before, during (GPU_PINNED mode, a registered and
 * a pinned buffer, GPU Direct transfers interleaved on the same channel
 * and running at the same time from another thread) and after.  Without
 * GPU Direct only the CPU part runs, and GPU_PINNED must be refused.
 */
int case_cpu_path(struct tctx *t)
{
	bool gpu = t->gs.supported;
	size_t n = t->size, odd = T_PAGE + (size_t)t->gran, got;
	uint64_t a = 0, b = 3 * (uint64_t)n, c = 5 * (uint64_t)n;
	struct cpu_job job = { 0 };
	struct gbuf reg = { 0 }, gb = { 0 };
	HELLOFPGA_COUNTERS c0;
	int ret, rc = -1;

	if (cpu_roundtrip(t, "CPU path before", t->ha, a, n, seed_of(12, 0, 0)))
		goto out;
	ret = HelloFPGA_GetCounters(t->h, &c0);
	if (ret) {
		tlibfail(t, t->h, ret, "GetCounters");
		goto out;
	}
	if (cpu_modes(t, gpu, &reg, &gb, n))
		goto out;

	/* During: same data, same odd cases, same errors. */
	if (cpu_roundtrip(t, "CPU path beside GPU Direct", t->ha, a, n,
			  seed_of(12, 1, 0)) ||
	    cpu_roundtrip(t, "CPU path, unaligned host buffer", t->ha + 1,
			  b + t->gran, odd, seed_of(12, 2, 0)))
		goto out;
	if (expect(t, HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, t->hb,
					       t->info.ddr_size - 8, 16, &got),
		   -ERANGE, T_NONE, "CPU-path read past the end of card memory") ||
	    expect(t, HelloFPGA_DMA_MM_WriteH2C(t->h, 255, t->ha, 0, 16, &got),
		   -ECHRNG, T_NONE, "CPU-path write on channel 255") ||
	    expect(t, HelloFPGA_DMA_MM_ReadC2H(t->h, t->ch, NULL, 0, 16, &got),
		   -EFAULT, T_NONE, "CPU-path read into NULL"))
		goto out;
	if (gpu && cpu_beside_gd(t, &gb, &job, a, b, c))
		goto out;
	if (cpu_counted(t, &c0, n, odd))
		goto out;
	if (cpu_roundtrip(t, "CPU path after", t->ha, a, n, seed_of(12, 6, 0)))
		goto out;
	if (gpu)
		tpass(t, "host-buffer round trips, odd sizes, error codes and counters unchanged in GPU_PINNED mode, interleaved with GPU Direct and beside it on channel %d (%d rounds); %" PRIu64 " bytes verified",
		      job.ch, job.rounds, t->verified);
	else
		tpass(t, "no GPU Direct (%s): CPU path alone verified, GPU_PINNED refused",
		      t->gs.reason);
	rc = 0;
out:
	free(job.src);
	free(job.dst);
	if (gpu) {
		HelloFPGA_SetGPUBuffer(t->h, NULL, 0);
		HelloFPGA_SetTransferMode(t->h, HELLOFPGA_XFER_MODE_CPU);
	}
	gbuf_free(t, &reg);
	gbuf_free(t, &gb);
	return rc;
}

/**
 * case_pin_misuse() - 13. Pin misuse is refused and harms nothing:
 * unaligned address or size, zero size, a range past the allocation,
 * NULL, host memory on a desktop GPU, a NULL card handle; double unpin
 * and use after unpin (-ENOENT), handle 0 and unknown handles, transfers
 * larger than the buffer or with a bad direction or channel, GPU memory
 * freed while pinned (-ENXIO); afterwards a new pin works.
 */
int case_pin_misuse(struct tctx *t)
{
	HELLOFPGA_GPU_HANDLE hd = 0, hd2 = 0;
	struct gbuf gb = { 0 }, ok = { 0 };
	const char *hostnote = "";
	void *freed;
	size_t got;
	int ret, rc = -1, checks = 0;

	if (gbuf_alloc(t, &gb, t->size))
		goto out;
#define MISUSE(call, want, alt, ...)					\
	do {								\
		checks++;						\
		if (expect(t, (call), (want), (alt), __VA_ARGS__))	\
			goto out;					\
	} while (0)
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)gb.p + 1, T_PAGE, &hd),
	       -EINVAL, T_NONE, "Pin of an address off by 1 byte");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, (uint8_t *)gb.p + T_PAGE / 2, T_PAGE, &hd),
	       -EINVAL, T_NONE, "Pin of an address 2 KiB into a page");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, T_PAGE - 1, &hd),
	       -EINVAL, T_NONE, "Pin of 4095 bytes");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, T_PAGE + 512, &hd),
	       -EINVAL, T_NONE, "Pin of 4608 bytes");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, 0, &hd),
	       -EINVAL, T_NONE, "Pin of 0 bytes");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, gb.size + t->gs.page_size, &hd),
	       -EINVAL, T_NONE, "Pin past the end of the allocation");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, NULL, T_PAGE, &hd),
	       -EINVAL, -EFAULT, "Pin of NULL");
	MISUSE(HelloFPGA_GPUDirect_Pin(NULL, gb.p, T_PAGE, &hd),
	       -EBADF, T_NONE, "Pin on a NULL card handle");
	MISUSE(HelloFPGA_GPUDirect_Pin(t->h, gb.p, T_PAGE, NULL),
	       -EFAULT, -EINVAL, "Pin with a NULL handle pointer");
	if (t->gs.platform == HELLOFPGA_PLATFORM_DESKTOP)
		MISUSE(HelloFPGA_GPUDirect_Pin(t->h, t->ha, T_PAGE, &hd),
		       -EINVAL, T_NONE, "Pin of host memory on a desktop GPU");
	else
		hostnote = "; host-memory check skipped: on Tegra GPU memory is host memory";
	hd = 0;	/* what a refused Pin leaves there is not specified */

	if (gbuf_pin(t, &gb, NULL))
		goto out;
	hd = gb.hd;
	gb.hd = 0;
	ret = HelloFPGA_GPUDirect_Unpin(t->h, hd);
	if (ret) {
		tlibfail(t, t->h, ret, "Unpin");
		goto out;
	}
	MISUSE(HelloFPGA_GPUDirect_Unpin(t->h, hd), -ENOENT, T_NONE,
	       "double Unpin");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "ReadC2H after Unpin");
	MISUSE(HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, hd, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "WriteH2C after Unpin");
	MISUSE(HelloFPGA_GPUDirect_Xfer(t->h, t->ch, hd, 0, 0, T_PAGE,
					HELLOFPGA_DIR_C2H, 0, &got),
	       -ENOENT, T_NONE, "Xfer after Unpin");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, 0, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "ReadC2H on handle 0");
	MISUSE(HelloFPGA_GPUDirect_Unpin(t->h, 0), -ENOENT, T_NONE,
	       "Unpin of handle 0");
	MISUSE(HelloFPGA_GPUDirect_WriteH2C(t->h, t->ch, ~hd, 0, T_PAGE, 0),
	       -ENOENT, T_NONE, "WriteH2C on a handle never issued");

	/* Bad transfers on a good handle. */
	if (gbuf_pin(t, &gb, NULL))
		goto out;
	hd2 = gb.hd;
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd2, 0,
					   gb.size + T_PAGE, 0),
	       -EINVAL, T_NONE, "ReadC2H larger than the buffer");
	MISUSE(HelloFPGA_GPUDirect_Xfer(t->h, t->ch, hd2, gb.size - T_PAGE, 0,
					2 * T_PAGE, HELLOFPGA_DIR_H2C, 0, &got),
	       -EINVAL, T_NONE, "Xfer leaving the buffer");
	MISUSE(HelloFPGA_GPUDirect_Xfer(t->h, t->ch, hd2, 0, 0, T_PAGE, 7, 0,
					&got),
	       -EINVAL, T_NONE, "Xfer in direction 7");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, 255, hd2, 0, T_PAGE, 0),
	       -ECHRNG, T_NONE, "ReadC2H on channel 255");
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(NULL, t->ch, hd2, 0, T_PAGE, 0),
	       -EBADF, T_NONE, "ReadC2H on a NULL card handle");

	/* GPU memory freed while pinned. */
	freed = gb.p;
	ret = HelloFPGA_GPU_Free(gb.p);
	gb.p = NULL;
	gb.hd = 0;
	if (ret) {
		tlibfail(t, NULL, ret, "GPU_Free of pinned memory");
		goto out;
	}
	MISUSE(HelloFPGA_GPUDirect_ReadC2H(t->h, t->ch, hd2, 0, T_PAGE, 0),
	       -ENXIO, T_NONE, "ReadC2H after GPU_Free of the pinned memory %p",
	       freed);
	MISUSE(HelloFPGA_GPUDirect_Unpin(t->h, hd2), 0, -ENOENT,
	       "Unpin after GPU_Free");
	hd2 = 0;

	/* Nothing harmed: a new pin works. */
	if (gbuf_new(t, &ok, T_MIN_SIZE) ||
	    roundtrip(t, &ok, 0, 0, T_MIN_SIZE, PAT_RANDOM, seed_of(13, 0, 0),
		      NULL))
		goto out;
#undef MISUSE
	tpass(t, "%d misuses refused with the documented error; a new pin then works%s",
	      checks, hostnote);
	rc = 0;
out:
	if (hd2)
		HelloFPGA_GPUDirect_Unpin(t->h, hd2);
	gbuf_free(t, &ok);
	gbuf_free(t, &gb);
	return rc;
}

/* The pattern id @id of handle_reuse, T_REUSE_SIZE bytes into @p. */
static void reuse_pattern(uint8_t *p, uint32_t id)
{
	fill(p, T_REUSE_SIZE, seed_of(14, id, 0));
}

/* Card slot @k above @base must hold pattern @id.  Return: 0 or -1. */
static int reuse_check_slot(struct tctx *t, uint64_t base, int k, uint32_t id,
			    const char *what)
{
	uint64_t addr = base + (uint64_t)k * T_REUSE_SIZE;

	reuse_pattern(t->ha, id);
	if (card_get(t, addr, t->hb, T_REUSE_SIZE))
		return -1;
	return check_bytes(t, what, t->ha, t->hb, T_REUSE_SIZE, addr);
}

/**
 * case_handle_reuse() - 14. One handle over thousands of transfers:
 * T_REUSE_XFERS transfers of 64 KiB alternating card -> GPU and GPU ->
 * card between one pinned buffer and 16 card slots picked at random,
 * the program tracking which pattern each slot and the buffer hold; fresh
 * patterns enter now and then, the buffer and a slot are verified every
 * T_REUSE_CHECK_EVERY transfers and all slots at the end.
 */
int case_handle_reuse(struct tctx *t)
{
	uint32_t id[T_REUSE_SLOTS], gid = UINT32_MAX, next = T_REUSE_SLOTS;
	uint64_t rng = 0x853c49e6748fea9bull, busy = 0, ns, base = 0;
	struct gbuf gb = { 0 };
	unsigned int checks = 0;
	char what[80];
	int i, k, rc = -1;

	if (gbuf_new(t, &gb, T_REUSE_SIZE))
		goto out;
	for (k = 0; k < T_REUSE_SLOTS; k++) {
		id[k] = (uint32_t)k;
		reuse_pattern(t->ha, id[k]);
		if (card_put(t, base + (uint64_t)k * T_REUSE_SIZE, t->ha,
			     T_REUSE_SIZE))
			goto out;
	}
	for (i = 0; i < T_REUSE_XFERS; i++) {
		rng = mix64(rng);
		k = (int)(rng % T_REUSE_SLOTS);
		if (i % T_REUSE_NEW_EVERY == T_REUSE_NEW_EVERY - 1) {
			/* A fresh pattern, so slots do not all end up alike. */
			id[k] = next++;
			reuse_pattern(t->ha, id[k]);
			if (card_put(t, base + (uint64_t)k * T_REUSE_SIZE,
				     t->ha, T_REUSE_SIZE))
				goto out;
			rng = mix64(rng);
			k = (int)(rng % T_REUSE_SLOTS);
		}
		if (!(i & 1)) {
			if (gd_xfer(t, &gb, 0, base + (uint64_t)k * T_REUSE_SIZE,
				    T_REUSE_SIZE, HELLOFPGA_DIR_C2H, &ns))
				goto out;
			gid = id[k];
		} else {
			if (gd_xfer(t, &gb, 0, base + (uint64_t)k * T_REUSE_SIZE,
				    T_REUSE_SIZE, HELLOFPGA_DIR_H2C, &ns))
				goto out;
			id[k] = gid;
		}
		busy += ns;
		if ((i + 1) % T_REUSE_CHECK_EVERY)
			continue;
		tprog(t, "handle_reuse: %d/%d transfers", i + 1, T_REUSE_XFERS);
		snprintf(what, sizeof(what), "buffer after transfer %d", i + 1);
		reuse_pattern(t->ha, gid);
		if (gpu_get(t, t->hb, gb.p, T_REUSE_SIZE) ||
		    check_bytes(t, what, t->ha, t->hb, T_REUSE_SIZE, 0))
			goto out;
		snprintf(what, sizeof(what), "card slot %d after transfer %d",
			 k, i + 1);
		if (reuse_check_slot(t, base, k, id[k], what))
			goto out;
		checks++;
	}
	for (k = 0; k < T_REUSE_SLOTS; k++) {
		snprintf(what, sizeof(what), "card slot %d at the end", k);
		if (reuse_check_slot(t, base, k, id[k], what))
			goto out;
	}
	tpass(t, "%d transfers of 64 KiB alternating directions on handle 0x%" PRIx64
	      ", mean %.1f us each; %u checkpoints and all %d slots verified",
	      T_REUSE_XFERS, gb.hd, us(busy / T_REUSE_XFERS), checks,
	      T_REUSE_SLOTS);
	rc = 0;
out:
	gbuf_free(t, &gb);
	return rc;
}

/**
 * struct rot_job - one frame's card -> GPU transfer, run by a thread so
 * that the program can check the previous frame meanwhile.
 */
struct rot_job {
	HELLOFPGA_HANDLE h;
	int ch;
	HELLOFPGA_GPU_HANDLE hd;
	uint64_t addr;
	size_t len;
	int ret;
	char err[200];
};

static void *rot_worker(void *arg)
{
	struct rot_job *j = arg;

	j->ret = HelloFPGA_GPUDirect_ReadC2H(j->h, j->ch, j->hd, j->addr,
					     j->len, 0);
	if (j->ret)
		snprintf(j->err, sizeof(j->err), "%s",
			 HelloFPGA_GetLastError(j->h));
	return NULL;
}

/* Check that buffer @gb holds frame @f. */
static int rot_check(struct tctx *t, const struct gbuf *gb, int f, size_t len)
{
	char what[64];

	snprintf(what, sizeof(what), "frame %d", f);
	fill(t->ha, len, seed_of(15, (uint32_t)f, 0));
	if (gpu_get(t, t->hb, gb->p, len))
		return -1;
	return check_bytes(t, what, t->ha, t->hb, len, 0);
}

/* The card puts frame @f into its slot (as a frame grabber would). */
static int rot_produce(struct tctx *t, uint64_t base, int f, size_t len)
{
	fill(t->hc, len, seed_of(15, (uint32_t)f, 0));
	return card_put(t, base + (uint64_t)(f % T_ROT_SLOTS) * len, t->hc, len);
}

/**
 * rot_run() - move @frames frames of @len bytes from a ring of card slots
 * into @nb pinned buffers in turn.  With more than one buffer, frame f
 * arrives in buffer f % nb while the program checks frame f - 1 and the
 * card produces frame f + 7; with one, the steps run one after another.
 * @ns: receives the wall time
 * Return: 0 or -1 (recorded).
 */
static int rot_run(struct tctx *t, struct gbuf *bufs, int nb, int frames,
		   size_t len, uint64_t base, uint64_t *ns)
{
	struct rot_job job;
	uint64_t t0;
	pthread_t thr;
	int f, ret;

	for (f = 0; f < T_ROT_SLOTS - 1 && f < frames; f++)
		if (rot_produce(t, base, f, len))
			return -1;
	t0 = cli_now_ns();
	for (f = 0; f < frames; f++) {
		memset(&job, 0, sizeof(job));
		job.h = t->h;
		job.ch = t->ch;
		job.hd = bufs[f % nb].hd;
		job.addr = base + (uint64_t)(f % T_ROT_SLOTS) * len;
		job.len = len;
		ret = pthread_create(&thr, NULL, rot_worker, &job);
		if (ret)
			return tfail(t, "cannot start a thread: %s",
				     strerror(ret));
		if (nb > 1) {
			/* While frame f arrives: check f - 1, produce f + 7. */
			ret = 0;
			if (f > 0)
				ret = rot_check(t, &bufs[(f - 1) % nb], f - 1, len);
			if (!ret && f + T_ROT_SLOTS - 1 < frames)
				ret = rot_produce(t, base, f + T_ROT_SLOTS - 1,
						  len);
			pthread_join(thr, NULL);
			if (ret)
				return -1;
		} else {
			pthread_join(thr, NULL);
		}
		if (job.ret)
			return tfail(t, "GPUDirect_ReadC2H of frame %d into buffer %d: %s%s%s",
				     f, f % nb, HelloFPGA_StrError(job.ret),
				     job.err[0] ? ": " : "", job.err);
		if (nb == 1 &&
		    (rot_check(t, &bufs[0], f, len) ||
		     (f + T_ROT_SLOTS - 1 < frames &&
		      rot_produce(t, base, f + T_ROT_SLOTS - 1, len))))
			return -1;
	}
	if (nb > 1 && rot_check(t, &bufs[(frames - 1) % nb], frames - 1, len))
		return -1;
	*ns = cli_now_ns() - t0;
	return 0;
}

/**
 * case_rotation() - 15. Multi-buffer rotation over 4 pinned buffers: 64
 * frames of 1 MiB from a ring of 8 card slots, the card filling buffer k
 * while the program checks buffer k - 1; every frame verified.  The same
 * run through a single buffer gives the frame rate to compare with.
 */
int case_rotation(struct tctx *t)
{
	struct gbuf bufs[T_ROT_BUFS];
	size_t len = t->size < T_ROT_FRAME ? t->size : T_ROT_FRAME;
	uint64_t base = 0, ns4, ns1;
	char sz[32];
	int i, rc = -1;

	memset(bufs, 0, sizeof(bufs));
	for (i = 0; i < T_ROT_BUFS; i++)
		if (gbuf_new(t, &bufs[i], len))
			goto out;
	tprog(t, "multi_buffer_rotation: 4 buffers");
	if (rot_run(t, bufs, T_ROT_BUFS, T_ROT_FRAMES, len, base, &ns4))
		goto out;
	tprog(t, "multi_buffer_rotation: single buffer");
	if (rot_run(t, bufs, 1, T_ROT_FRAMES, len, base + T_ROT_SLOTS * len,
		    &ns1))
		goto out;
	tpass(t, "%d frames of %s through %d pinned buffers, every frame verified: %.0f fps (single buffer %.0f fps)",
	      T_ROT_FRAMES, cli_fmt_size(len, sz, sizeof(sz)), T_ROT_BUFS,
	      ns4 ? T_ROT_FRAMES * 1e9 / (double)ns4 : 0.0,
	      ns1 ? T_ROT_FRAMES * 1e9 / (double)ns1 : 0.0);
	rc = 0;
out:
	for (i = 0; i < T_ROT_BUFS; i++)
		gbuf_free(t, &bufs[i]);
	return rc;
}
