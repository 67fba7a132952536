/* SPDX-License-Identifier: MIT */
/*
 * vhost.h - a host of the XDMA model with virtual time, for tests: the
 * clock moves only when the test says so, kicks and wake-ups (ops->kick,
 * ops->schedule) are served in time order by vh_until(), bus memory is one
 * flat buffer at VH_BUS.  So what the model does at a given time is
 * deterministic: no thread, no sleep, no timing assertion that a loaded
 * machine can break.
 */
#ifndef HF_TEST_VHOST_H
#define HF_TEST_VHOST_H

#include "desc_fill.h"
#include "harness.h"
#include "hf_os.h"
#include "hf_refdesign.h"
#include "hf_user_regs.h"
#include "xdma_model.h"
#include "xdma_regs.h"

#include <errno.h>
#include <stdlib.h>

#define VH_BUS		0x100000000ull	/* bus address of vh->mem[0] */
#define VH_T0		1000000000ull	/* the clock at creation, ns */

/**
 * struct vhost - the virtual host.
 * @m: the model
 * @now: the clock, ns
 * @wake: per engine, the time it asked to run at (0: none)
 * @kicked: engines kicked and not yet run (bits, engine order)
 * @mem: bus memory, @size bytes at VH_BUS
 * @size: its size
 * @hole: bus address of a 4 KiB page that faults (0: none)
 * @reads: successful bus reads
 * @writes: successful bus writes
 * @faults: failed bus accesses
 * @schedules: ops->schedule calls
 * @msis: MSI/MSI-X messages
 * @last_msi: the time of the last one
 */
struct vhost {
	struct xdma_model *m;
	u64 now;
	u64 wake[XDMA_MAX_ENGINES];
	u32 kicked;
	u8 *mem;
	size_t size;
	u64 hole;
	unsigned int reads;
	unsigned int writes;
	unsigned int faults;
	unsigned int schedules;
	unsigned int msis;
	u64 last_msi;
	bool bm_off;
};

/* The bytes [bus, bus + len) in vh->mem, or NULL (a fault, counted). */
static inline u8 *vh_at(struct vhost *v, u64 bus, size_t len)
{
	if (bus < VH_BUS || bus - VH_BUS > v->size ||
	    len > v->size - (bus - VH_BUS) ||
	    (v->hole && bus < v->hole + 4096 && bus + len > v->hole)) {
		v->faults++;
		return NULL;
	}
	return v->mem + (bus - VH_BUS);
}

static inline int vh_dma_read(void *host, uint64_t bus, void *dst,
			      size_t len)
{
	struct vhost *v = host;
	u8 *p;

	if (v->bm_off)		/* bus mastering off: not issued */
		return -EBUSY;
	p = vh_at(v, bus, len);
	if (p) {
		memcpy(dst, p, len);
		v->reads++;
	}
	return p ? 0 : -EFAULT;
}

static inline int vh_dma_write(void *host, uint64_t bus, const void *src,
			       size_t len)
{
	struct vhost *v = host;
	u8 *p;

	if (v->bm_off)
		return -EBUSY;
	p = vh_at(v, bus, len);
	if (p) {
		memcpy(p, src, len);
		v->writes++;
	}
	return p ? 0 : -EFAULT;
}

static inline void vh_msi(void *host, uint32_t vector)
{
	struct vhost *v = host;

	v->msis++;
	v->last_msi = v->now;
}

static inline void vh_kick(void *host, uint32_t engine)
{
	struct vhost *v = host;

	v->kicked |= BIT(engine);
}

static inline uint64_t vh_now(void *host)
{
	return ((struct vhost *)host)->now;
}

static inline void vh_schedule(void *host, uint32_t engine, uint64_t when)
{
	struct vhost *v = host;

	v->wake[engine] = when ? when : 1;
	v->schedules++;
}

static const struct xdma_model_host_ops vh_ops = {
	.dma_read = vh_dma_read,
	.dma_write = vh_dma_write,
	.msi = vh_msi,
	.kick = vh_kick,
	.now_ns = vh_now,
	.schedule = vh_schedule,
};

/* A card built with @cfg; @mem bytes of bus memory. */
static inline void vh_open_cfg(struct vhost *v,
			       const struct xdma_model_config *cfg, size_t mem)
{
	struct xdma_model_config c = *cfg;

	if (!c.user)	/* the reference design, unless the test has its own */
		c.user = &hf_refdesign_user;
	memset(v, 0, sizeof(*v));
	v->now = VH_T0;
	v->size = mem;
	v->mem = calloc(1, mem);
	HF_CHECK(v->mem != NULL);
	HF_CHECK_EQ(xdma_model_create(&c, &vh_ops, v, &v->m), 0);
	xdma_model_set_irq_mode(v->m, XDMA_MODEL_IRQ_MSIX);
}

/* A card of @ddr bytes with @link (NULL: none); @mem bytes of bus memory. */
static inline void vh_open(struct vhost *v, const struct xdma_link *link,
			   u64 ddr, size_t mem)
{
	struct xdma_model_config cfg = { .ddr_size = ddr };

	if (link)
		cfg.link = *link;
	vh_open_cfg(v, &cfg, mem);
}

static inline void vh_close(struct vhost *v)
{
	xdma_model_destroy(v->m);
	free(v->mem);
	memset(v, 0, sizeof(*v));
}

/* Run every engine that was kicked or whose wake-up is due, until none is. */
static inline void vh_run(struct vhost *v)
{
	bool any;
	u32 i;

	do {
		any = false;
		for (i = 0; i < XDMA_MAX_ENGINES; i++) {
			bool due = v->wake[i] && v->wake[i] <= v->now;

			if (!due && !(v->kicked & BIT(i)))
				continue;
			v->kicked &= ~BIT(i);
			if (due)
				v->wake[i] = 0;
			xdma_model_engine_work(v->m, i);
			any = true;
		}
	} while (any);
}

/* The earliest wake-up after now, or 0. */
static inline u64 vh_next(const struct vhost *v)
{
	u64 t = 0;
	u32 i;

	for (i = 0; i < XDMA_MAX_ENGINES; i++)
		if (v->wake[i] > v->now && (!t || v->wake[i] < t))
			t = v->wake[i];
	return t;
}

/* Let time pass until @t, every engine running at the times it asked for. */
static inline void vh_until(struct vhost *v, u64 t)
{
	u64 next;

	for (;;) {
		vh_run(v);
		next = vh_next(v);
		if (!next || next > t)
			break;
		v->now = next;
	}
	if (t > v->now)
		v->now = t;
	vh_run(v);
}

/* A host that comes late: the clock jumps to @t, then the engines run. */
static inline void vh_jump(struct vhost *v, u64 t)
{
	v->now = t;
	vh_run(v);
}

static inline u32 vh_rd(struct vhost *v, u32 off)
{
	return xdma_model_dma_read32(v->m, off);
}

static inline void vh_wr(struct vhost *v, u32 off, u32 val)
{
	xdma_model_dma_write32(v->m, off, val);
	vh_run(v);
}

static inline u32 vh_chan(bool c2h, u32 ch, u32 reg)
{
	return (c2h ? XDMA_C2H_BASE(ch) : XDMA_H2C_BASE(ch)) + reg;
}

static inline bool vh_busy(struct vhost *v, bool c2h, u32 ch)
{
	return vh_rd(v, vh_chan(c2h, ch, XDMA_CHAN_STATUS)) & XDMA_STAT_BUSY;
}

/*
 * Let time pass in the engines' own steps until engine (@c2h, @ch) is idle
 * or @limit; returns the time it went idle, 0 if it did not.
 */
static inline u64 vh_until_idle(struct vhost *v, bool c2h, u32 ch, u64 limit)
{
	u64 next;

	for (;;) {
		vh_run(v);
		if (!vh_busy(v, c2h, ch))
			return v->now;
		next = vh_next(v);
		if (!next || next > limit)
			return 0;
		v->now = next;
	}
}

/* Descriptor @i of a ring at bus memory offset 0. */
static inline void vh_desc(struct vhost *v, u32 i, u32 flags, u32 len,
			   u64 src, u64 dst, u64 next)
{
	desc_fill((struct hf_xdma_desc *)v->mem + i, flags, 0, len, src, dst,
		  next);
}

static inline u64 vh_desc_bus(u32 i)
{
	return VH_BUS + (u64)i * XDMA_DESC_SIZE;
}

/* Start engine (@c2h, @ch) on descriptor @first with Control @ctrl. */
static inline void vh_start(struct vhost *v, bool c2h, u32 ch, u32 first,
			    u32 ctrl)
{
	u32 sg = c2h ? XDMA_C2H_SGDMA_BASE(ch) : XDMA_H2C_SGDMA_BASE(ch);

	vh_wr(v, sg + XDMA_SGDMA_DESC_LO, lower_32_bits(vh_desc_bus(first)));
	vh_wr(v, sg + XDMA_SGDMA_DESC_HI, upper_32_bits(vh_desc_bus(first)));
	vh_wr(v, sg + XDMA_SGDMA_DESC_ADJ, 0);
	vh_wr(v, vh_chan(c2h, ch, XDMA_CHAN_CONTROL), ctrl);
}

/* Interrupts of engine (@c2h, @ch) on every status bit, MSI-X vector 0. */
static inline void vh_irqs(struct vhost *v, bool c2h, u32 ch, u32 num_h2c)
{
	vh_wr(v, XDMA_IRQ_BASE + XDMA_IRQ_CHAN_EN_W1S,
	      BIT(c2h ? num_h2c + ch : ch));
	vh_wr(v, vh_chan(c2h, ch, XDMA_CHAN_IRQ_MASK), XDMA_CTRL_IE_ALL);
}

/* Bytes at the start of @p, @len long, that are no longer 0. */
static inline size_t vh_landed(const u8 *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i])
		i++;
	return i;
}

#endif /* HF_TEST_VHOST_H */
