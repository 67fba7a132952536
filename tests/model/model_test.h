/* SPDX-License-Identifier: MIT */
/*
 * model_test.h - helpers of the emulated-card tests: a card behind the
 * in-process host, register access by block, descriptor building, interrupt
 * recording.
 */
#ifndef HF_MODEL_TEST_H
#define HF_MODEL_TEST_H

#include "desc_fill.h"
#include "dma_faults.h"
#include "harness.h"
#include "hf_os.h"
#include "hf_refdesign.h"
#include "hf_user_regs.h"
#include "inproc/emu_host.h"
#include "xdma_regs.h"

#include <stdlib.h>
#include <time.h>

#define CH_CTRL_IE_ALL_RUN	(XDMA_CTRL_RUN | XDMA_CTRL_IE_ALL)

struct tcard;

/**
 * struct irq_arg - argument of the handler of one vector.
 * @t: the card
 * @v: the vector
 */
struct irq_arg {
	struct tcard *t;
	u32 v;
};

/**
 * struct tcard - a card under test.
 * @h: in-process host
 * @m: the model
 * @bar: DMA/config BAR
 * @ubar: user BAR
 * @ring: descriptor memory (one page, DMA-coherent)
 * @ring_bus: its bus address
 * @wb: writeback word memory (DMA-coherent)
 * @wb_bus: its bus address
 * @irq: handler arguments, one per vector
 * @irqs: handler calls per vector
 * @irq_total: handler calls
 * @on_irq: optional action run inside a handler
 * @num_h2c: H2C channels of the card
 */
struct tcard {
	struct hf_emu_host *h;
	struct xdma_model *m;
	const struct hf_mmio *bar;
	const struct hf_mmio *ubar;
	struct hf_xdma_desc *ring;
	u64 ring_bus;
	volatile u32 *wb;
	u64 wb_bus;
	struct irq_arg irq[32];
	unsigned int irqs[32];
	unsigned int irq_total;
	void (*on_irq)(struct tcard *t, u32 v);
	u32 num_h2c;
};

static inline void tcard_open(struct tcard *t,
			      const struct xdma_model_config *cfg,
			      u32 flags)
{
	struct xdma_model_config c = { 0 };
	int r;

	if (cfg)
		c = *cfg;
	if (!c.user)	/* the reference design, unless the test has its own */
		c.user = &hf_refdesign_user;
	memset(t, 0, sizeof(*t));
	r = hf_emu_host_create(&c, flags, &t->h);
	HF_CHECK_EQ(r, 0);
	t->m = hf_emu_host_model(t->h);
	t->bar = hf_emu_dma_bar(t->h);
	t->ubar = hf_emu_user_bar(t->h);
	t->ring = hf_emu_dma_alloc(t->h, 4096, &t->ring_bus);
	HF_CHECK(t->ring != NULL);
	t->wb = hf_emu_dma_alloc(t->h, 64, &t->wb_bus);
	HF_CHECK(t->wb != NULL);
	t->num_h2c = cfg && cfg->num_h2c ? cfg->num_h2c : 4;
}

static inline void tcard_close(struct tcard *t)
{
	hf_emu_host_destroy(t->h);
	memset(t, 0, sizeof(*t));
}

static inline u32 rd(struct tcard *t, u32 off)
{
	return hf_ioread32(t->bar, off);
}

static inline void wr(struct tcard *t, u32 off, u32 val)
{
	hf_iowrite32(val, t->bar, off);
}

/* Channel register of H2C (c2h = false) or C2H channel @ch. */
static inline u32 ch_off(bool c2h, u32 ch, u32 reg)
{
	return (c2h ? XDMA_C2H_BASE(ch) : XDMA_H2C_BASE(ch)) + reg;
}

static inline u32 sg_off(bool c2h, u32 ch, u32 reg)
{
	return (c2h ? XDMA_C2H_SGDMA_BASE(ch) : XDMA_H2C_SGDMA_BASE(ch)) + reg;
}

static inline u32 engine_index(struct tcard *t, bool c2h, u32 ch)
{
	return c2h ? t->num_h2c + ch : ch;
}

/* Fill descriptor @i of the ring. */
static inline void set_desc(struct tcard *t, u32 i, u32 flags, u32 nxt_adj,
			    u32 len, u64 src, u64 dst, u64 next)
{
	desc_fill(&t->ring[i], flags, nxt_adj, len, src, dst, next);
}

static inline u64 desc_bus(struct tcard *t, u32 i)
{
	return t->ring_bus + (u64)i * XDMA_DESC_SIZE;
}

/* Program first descriptor @first (+ @adj adjacent) and write @ctrl. */
static inline void start(struct tcard *t, bool c2h, u32 ch, u32 first,
			 u32 adj, u32 ctrl)
{
	u64 bus = desc_bus(t, first);

	wr(t, sg_off(c2h, ch, XDMA_SGDMA_DESC_LO), lower_32_bits(bus));
	wr(t, sg_off(c2h, ch, XDMA_SGDMA_DESC_HI), upper_32_bits(bus));
	wr(t, sg_off(c2h, ch, XDMA_SGDMA_DESC_ADJ), adj);
	wr(t, ch_off(c2h, ch, XDMA_CHAN_CONTROL), ctrl);
}

static inline void set_wb(struct tcard *t, bool c2h, u32 ch)
{
	wr(t, ch_off(c2h, ch, XDMA_CHAN_POLL_WB_LO), lower_32_bits(t->wb_bus));
	wr(t, ch_off(c2h, ch, XDMA_CHAN_POLL_WB_HI), upper_32_bits(t->wb_bus));
}

static inline void irq_handler(void *arg)
{
	struct irq_arg *a = arg;
	struct tcard *t = a->t;

	__atomic_fetch_add(&t->irqs[a->v], 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&t->irq_total, 1, __ATOMIC_SEQ_CST);
	if (t->on_irq)
		t->on_irq(t, a->v);
}

/* Select @mode and count the interrupts of every vector. */
static inline void record_irqs(struct tcard *t, enum xdma_model_irq_mode mode)
{
	u32 v;

	HF_CHECK_EQ(hf_emu_set_irq_mode(t->h, mode), 0);
	for (v = 0; v < 32; v++) {
		t->irq[v].t = t;
		t->irq[v].v = v;
		HF_CHECK_EQ(hf_emu_request_irq(t->h, v, irq_handler,
					       &t->irq[v]), 0);
	}
}

static inline unsigned int irq_count(struct tcard *t, u32 v)
{
	return __atomic_load_n(&t->irqs[v], __ATOMIC_SEQ_CST);
}

static inline unsigned int irq_total(struct tcard *t)
{
	return __atomic_load_n(&t->irq_total, __ATOMIC_SEQ_CST);
}

/* Wait (bounded) until the engine's busy bit is clear. */
static inline bool wait_idle(struct tcard *t, bool c2h, u32 ch)
{
	struct timespec ts = { 0, 100000 };
	int i;

	for (i = 0; i < 50000; i++) {	/* about 5 s and more */
		if (!(rd(t, ch_off(c2h, ch, XDMA_CHAN_STATUS)) &
		      XDMA_STAT_BUSY))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static inline void fill(void *p, size_t len, u8 seed)
{
	u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (u8)(seed + i * 7);
}

static inline bool all_bytes(const void *p, size_t len, u8 v)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != v)
			return false;
	return true;
}

#endif /* HF_MODEL_TEST_H */
