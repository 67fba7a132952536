// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model.c - software model of an FPGA card with the Xilinx XDMA IP
 * (PG195, "DMA/Bridge Subsystem for PCI Express") with AXI memory-mapped or
 * AXI-Stream channels.
 *
 * What is modelled (docs/xdma-model.md is the register reference):
 *  - the DMA/config BAR: H2C/C2H channel blocks, IRQ block, config block,
 *    H2C/C2H SGDMA blocks and the SGDMA common block;
 *  - the scatter-gather engines: descriptor fetch over the bus (host ops),
 *    adjacent-descriptor blocks, data movement between bus memory and card
 *    memory, status, completed count, poll-mode writeback, halt, and the
 *    stop rule of PG195's Run bit (a descriptor that started is finished);
 *  - time, with a PCIe link model (xdma_link.h): descriptor fetches, data
 *    and writebacks take link time on one link per direction shared by the
 *    engines, a descriptor's data lands progressively, in MPS multiples;
 *  - interrupts: channel and user sources, IRQ block enables, requests,
 *    pending bits and vector numbers, delivered as MSI/MSI-X messages on a
 *    rising edge of a pending bit or as an INTx level;
 *  - the performance monitors of each channel;
 *  - card DDR;
 *  - AXI-Stream channels (config st): the C2H stream writeback and
 *    descriptor credits.
 *
 * What is not: the user logic behind the IP (the user BAR, the stream
 * sources and sinks at the AXI-Stream ports, the usr_irq_req lines).  The
 * card's creator attaches it (xdma_model_config.user); the IP reaches it
 * only through its ops (xdma_user.h), always with m->lock held, but for
 * st_read (the bytes of a C2H record, made in the bounce buffer without it).
 *
 * Locking: one mutex (m->lock) protects every register.  Host ops are never
 * called with it held: work that must reach the host (kick, writeback,
 * messages, INTx) is collected in a struct model_act while the lock is held
 * and performed after it is dropped (xm_act_flush()).  Data is copied between
 * bus memory and card memory without the lock; a sequence number per engine
 * (seq) tells an engine thread that the engine was reset while it was
 * copying, so it drops the result.
 *
 * Time (link model): each engine keeps its own clock, the time its last
 * activity ended on the link; a descriptor is fetched (link time), waits
 * desc_ns, then its data is carried in slices reserved one after the other
 * on its direction's link (link_busy).  A slice's bytes land when the host
 * calls the engine after the slice's end (ops->schedule), in one bus access
 * per wake-up.  Slices follow the engine's clock, not the time of the
 * wake-up, so a late wake-up catches up and the rate stays the link's.
 *
 * The model's files and what they share: xdma_model_priv.h.  This one holds
 * the card's life cycle and the calls of its hosts besides register
 * accesses (card memory, counters, fault injection).
 */
#include "xdma_model_priv.h"

/*
 * A guest did something the IP (or the user logic: xdma_user_env) leaves
 * undefined: count it, maybe log it.  @ctx: the card.
 */
void xm_guest_error(void *ctx, const char *fmt, ...)
{
	struct xdma_model *m = ctx;
	va_list ap;

	cnt_add(&m->cnt.guest_errors, 1);
	if (!m->debug)
		return;
	fputs("xdma-model: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Registers to their reset values; m->lock held, no copy in flight. */
static void regs_reset(struct xdma_model *m)
{
	u32 i;

	for (i = 0; i < m->num_engines; i++) {
		struct model_engine *e = &m->eng[i];
		u32 seq = e->seq + 1;
		bool in_work = e->in_work;

		memset(e, 0, sizeof(*e));
		e->seq = seq;
		e->in_work = in_work;
		e->index = i;
		e->c2h = i >= m->cfg.num_h2c;
		e->ch = e->c2h ? i - m->cfg.num_h2c : i;
	}
	m->user_en = 0;
	m->chan_en = 0;
	memset(m->user_vec, 0, sizeof(m->user_vec));
	memset(m->chan_vec, 0, sizeof(m->chan_vec));
	m->user_pend_prev = 0;
	m->chan_pend_prev = 0;
	m->intx_level = false;
	m->sg_halt = 0;
	m->sg_credit_en = 0;
	m->pcie_ctrl = XDMA_CFG_PCIE_CTRL_RELAXED;
	m->user_mps = m->mps_code;
	m->user_mrrs = MODEL_MRRS_CODE;
	m->wr_flush = 0;
	if (m->uops)	/* the user logic shares the IP's reset */
		m->uops->reset(m->user);
}

/* A link as xdma_link_parse() + xdma_link_finish() make them, or none. */
static int link_check(struct xdma_link *l)
{
	if (!l->gen) {
		memset(l, 0, sizeof(*l));
		return 0;
	}
	if (l->gen > XDMA_LINK_MAX_GEN || !is_pow2(l->lanes) ||
	    l->lanes > XDMA_LINK_MAX_LANES || !is_pow2(l->mps) ||
	    l->mps < XDMA_LINK_MIN_MPS || l->mps > XDMA_LINK_MAX_MPS ||
	    l->desc_ns > XDMA_LINK_MAX_DESC_NS)
		return -EINVAL;
	return 0;
}

/* The pace of a card with link @l: rate, slice, MPS code. */
static void link_setup(struct xdma_model *m, const struct xdma_link *l)
{
	u64 slice;

	m->mps_code = MODEL_MPS_CODE;
	m->rate = xdma_link_gbps(l);
	if (!m->rate)
		return;
	m->mps_code = __builtin_ctz(l->mps) - 7;	/* 128 << code */
	/* at least SLICE_NS of link time each, in MPS multiples */
	slice = DIV_ROUND_UP((u64)(m->rate * SLICE_NS), l->mps) * l->mps;
	m->slice = max_t(u64, slice, (u64)SLICE_MIN_MPS * l->mps);
}

/* User logic ops: every one there, a power-of-two BAR. */
static int user_check(const struct xdma_user_ops *u)
{
	if (!u)
		return 0;
	if (!u->create || !u->destroy || !u->reset || !u->advance ||
	    !u->reg_read || !u->reg_write || !u->irq_lines || !u->irq_ack ||
	    !u->st_peek || !u->st_read || !u->st_take || !u->st_in ||
	    !is_pow2(u->bar_size) || u->bar_size < 4)
		return -EINVAL;
	return 0;
}

static int config_check(struct xdma_model_config *c)
{
	if (!c->num_h2c)
		c->num_h2c = XDMA_MAX_CHANNELS;
	if (!c->num_c2h)
		c->num_c2h = XDMA_MAX_CHANNELS;
	if (c->num_h2c > XDMA_MAX_CHANNELS || c->num_c2h > XDMA_MAX_CHANNELS)
		return -EINVAL;
	if (!c->ddr_size) {
		if (c->ddr)
			return -EINVAL;
		c->ddr_size = XDMA_MODEL_DEFAULT_DDR_SIZE;
	}
	if (c->ddr_size % 4096)
		return -EINVAL;
	if (!c->addr_align)
		c->addr_align = 1;
	if (!c->len_gran)
		c->len_gran = 1;
	if (!is_pow2(c->addr_align) || c->addr_align > MODEL_MAX_ALIGN ||
	    !is_pow2(c->len_gran) || c->len_gran > MODEL_MAX_ALIGN)
		return -EINVAL;
	if (user_check(c->user))
		return -EINVAL;
	return link_check(&c->link);
}

/* The card's user logic (xdma_model_config.user), out of reset. */
static int user_create(struct xdma_model *m)
{
	struct xdma_user_config uc = {
		.num_h2c = m->cfg.num_h2c,
		.num_c2h = m->cfg.num_c2h,
		.st = m->cfg.st,
		.ddr_size = m->cfg.ddr_size,
		.arg = m->cfg.user_arg,
	};
	int r;

	m->uenv.ctx = m;
	m->uenv.guest_error = xm_guest_error;
	if (!m->cfg.user)
		return 0;
	r = m->cfg.user->create(&uc, &m->uenv, &m->user);
	if (!r)
		m->uops = m->cfg.user;
	return r;
}

/**
 * xdma_model_create() - build a card.
 * @cfg: configuration (NULL: all defaults)
 * @ops: host operations; all but msi and intx are required
 * @host: first argument of every host op
 * @out: the card
 *
 * Return: 0, -EINVAL for a bad configuration, -ENOMEM.
 */
int xdma_model_create(const struct xdma_model_config *cfg,
		      const struct xdma_model_host_ops *ops, void *host,
		      struct xdma_model **out)
{
	struct xdma_model_config c = { 0 };
	pthread_mutexattr_t attr;
	struct xdma_model *m;
	int r;

	if (!ops || !ops->dma_read || !ops->dma_write || !ops->kick ||
	    !ops->now_ns || !ops->schedule || !out)
		return -EINVAL;
	if (cfg)
		c = *cfg;
	r = config_check(&c);
	if (r)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = c;
	m->ops = *ops;
	m->host = host;
	m->num_engines = c.num_h2c + c.num_c2h;
	m->debug = getenv("HF_MODEL_DEBUG") != NULL;
	link_setup(m, &c.link);
	if (c.ddr) {
		m->ddr = c.ddr;
	} else {
		void *p = mmap(NULL, c.ddr_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

		if (p == MAP_FAILED) {
			free(m);
			return -ENOMEM;
		}
		/*
		 * Huge pages where the kernel offers them: a DMA that a host
		 * hands to a copy engine (a GPU's, registered memory) walks
		 * fewer, larger pages.  Advice only; touched pages still cost
		 * what they cost.
		 */
		madvise(p, c.ddr_size, MADV_HUGEPAGE);
		m->ddr = p;
		m->ddr_mapped = true;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->copies_cond, NULL);
	pthread_cond_init(&m->wb_cond, NULL);
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m->intx_lock, &attr);
	pthread_mutexattr_destroy(&attr);
	r = user_create(m);
	if (r) {
		xdma_model_destroy(m);
		return r;
	}
	regs_reset(m);
	for (u32 i = 0; c.st && i < m->num_engines; i++) {
		m->st_buf[i] = malloc(ST_BUF_SIZE);
		if (!m->st_buf[i]) {
			xdma_model_destroy(m);
			return -ENOMEM;
		}
	}
	*out = m;
	return 0;
}

/**
 * xdma_model_destroy() - free a card.
 * @m: the card (NULL is ignored)
 *
 * The host must have stopped calling into the model: engine threads joined,
 * wake-ups asked for with ops->schedule cancelled (timers deleted).
 */
void xdma_model_destroy(struct xdma_model *m)
{
	if (!m)
		return;
	if (m->uops)
		m->uops->destroy(m->user);
	if (m->ddr_mapped)
		munmap(m->ddr, m->cfg.ddr_size);
	for (u32 i = 0; i < XDMA_MAX_ENGINES; i++)
		free(m->st_buf[i]);
	pthread_mutex_destroy(&m->intx_lock);
	pthread_cond_destroy(&m->copies_cond);
	pthread_cond_destroy(&m->wb_cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/**
 * xdma_model_reset() - reset the IP: engines stop, registers take their
 * reset values; card memory is kept.
 * @m: the card
 *
 * Waits for data copies in flight to end; an engine thread that was copying
 * drops its result, and a descriptor that was moving stops where it was
 * (a reset is the one thing that cuts a descriptor short).  Wake-ups asked
 * for earlier may still come: they find the engines idle.  The INTx line is
 * lowered.
 */
void xdma_model_reset(struct xdma_model *m)
{
	struct model_act act = { 0 };

	pthread_mutex_lock(&m->lock);
	while (m->copies)
		pthread_cond_wait(&m->copies_cond, &m->lock);
	regs_reset(m);
	act.intx = true;
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
}

void xdma_model_set_irq_mode(struct xdma_model *m,
			     enum xdma_model_irq_mode mode)
{
	pthread_mutex_lock(&m->lock);
	m->irq_mode = mode;
	pthread_mutex_unlock(&m->lock);
	xm_intx_sync(m);
}

static int card_range(const struct xdma_model *m, uint64_t addr, size_t len)
{
	if (addr + len < addr)
		return -EOVERFLOW;
	if (addr > m->cfg.ddr_size || len > m->cfg.ddr_size - addr)
		return -ERANGE;
	return 0;
}

int xdma_model_card_read(struct xdma_model *m, uint64_t addr, void *buf,
			 size_t len)
{
	int r = card_range(m, addr, len);

	if (r)
		return r;
	memcpy(buf, m->ddr + addr, len);
	return 0;
}

int xdma_model_card_write(struct xdma_model *m, uint64_t addr,
			  const void *buf, size_t len)
{
	int r = card_range(m, addr, len);

	if (r)
		return r;
	memcpy(m->ddr + addr, buf, len);
	return 0;
}

void *xdma_model_card_mem(struct xdma_model *m)
{
	return m->ddr;
}

uint64_t xdma_model_card_size(const struct xdma_model *m)
{
	return m->cfg.ddr_size;
}

uint32_t xdma_model_num_engines(const struct xdma_model *m)
{
	return m->num_engines;
}

void xdma_model_get_counters(struct xdma_model *m,
			     struct xdma_model_counters *c)
{
	const uint64_t *src = (const uint64_t *)&m->cnt;
	uint64_t *dst = (uint64_t *)c;
	size_t i;

	for (i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void xdma_model_reset_counters(struct xdma_model *m)
{
	uint64_t *c = (uint64_t *)&m->cnt;
	size_t i;

	for (i = 0; i < sizeof(m->cnt) / sizeof(uint64_t); i++)
		__atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
}

/**
 * xdma_model_inject() - set the injected faults (replaces the previous set).
 * @m: the card
 * @faults: enum xdma_model_fault bits
 *
 * DESC_READ is one-shot: the next descriptor fetch of any engine fails and
 * the bit clears.  Clearing STALL or DEAD lets parked engines go on.  HANG
 * needs a duration (xdma_model_inject_hang()): set here it keeps a hang in
 * force, clear it ends one.
 */
void xdma_model_inject(struct xdma_model *m, uint32_t faults)
{
	struct model_act act = { 0 };
	u64 now = host_now(m);
	u32 f = faults & ~(u32)XDMA_FAULT_HANG;

	pthread_mutex_lock(&m->lock);
	if (xm_hang_holds(m, now)) {
		if (faults & XDMA_FAULT_HANG)
			f |= XDMA_FAULT_HANG;
		else
			m->hang_until = now;
	}
	xm_user_advance(m, now);
	__atomic_store_n(&m->faults, f, __ATOMIC_RELAXED);
	xm_kick_busy(m, &act);
	act.intx = true;
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
}

/**
 * xdma_model_bus_master() - the host turned bus mastering on or off.
 * @m: the card
 * @on: on
 *
 * With it off the host's DMA ops fail with -EBUSY: a descriptor fetch then
 * waits, its engine busy, as the request a PCIe function may not issue
 * does; turning it on lets such engines go on (an engine started before
 * and not stopped fetches its descriptors now).
 */
void xdma_model_bus_master(struct xdma_model *m, bool on)
{
	struct model_act act = { 0 };

	if (!on)
		return;
	pthread_mutex_lock(&m->lock);
	xm_user_advance(m, host_now(m));
	xm_kick_busy(m, &act);
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
}

/**
 * xdma_model_inject_hang() - every engine hangs for @ns, then recovers.
 * @m: the card
 * @ns: how long from now, at most XDMA_MODEL_MAX_HANG_NS; 0 ends a hang
 *
 * From now on no engine makes progress: no byte moves, no descriptor is
 * fetched or completes, Busy stays set, a Run clear is noted but not acted
 * on.  Once @ns have passed the XDMA_FAULT_HANG bit clears itself and the
 * engines go on where they were: each finishes its current descriptor and,
 * if Run was cleared meanwhile, then goes idle.  A new call during a hang
 * moves its end.  Other faults are left as they are.
 *
 * Return: 0, or -EINVAL when @ns is too long.
 */
int xdma_model_inject_hang(struct xdma_model *m, uint64_t ns)
{
	struct model_act act = { 0 };
	u64 now = host_now(m);

	if (ns > XDMA_MODEL_MAX_HANG_NS)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	xm_user_advance(m, now);
	if (!ns) {
		if (xm_hang_holds(m, now)) {
			m->hang_until = now;
			__atomic_and_fetch(&m->faults, ~(u32)XDMA_FAULT_HANG,
					   __ATOMIC_RELAXED);
		}
	} else {
		if (!xm_hang_holds(m, now))
			m->hang_from = now;
		m->hang_until = now + ns;
		__atomic_or_fetch(&m->faults, XDMA_FAULT_HANG,
				  __ATOMIC_RELAXED);
	}
	xm_kick_busy(m, &act);
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
	return 0;
}

/**
 * xdma_model_set_hang_engines() - which engines a hang holds.
 * @m: the card
 * @mask: a bit per engine index (H2C n is bit n, C2H n bit num_h2c + n);
 *	0, the default: every engine
 *
 * For a hang of one channel while the others work (a driver's handling
 * of one engine that does not stop); applies to the hang in force too.
 * Kept across xdma_model_reset(), as the other faults are.
 */
void xdma_model_set_hang_engines(struct xdma_model *m, uint32_t mask)
{
	struct model_act act = { 0 };

	pthread_mutex_lock(&m->lock);
	xm_user_advance(m, host_now(m));
	m->hang_engines = mask & (u32)GENMASK(m->num_engines - 1, 0);
	xm_kick_busy(m, &act);
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
}

/**
 * xdma_model_get_hang_engines() - the engines a hang holds.
 * @m: the card
 *
 * Return: xdma_model_set_hang_engines()'s mask (0: every engine).
 */
uint32_t xdma_model_get_hang_engines(struct xdma_model *m)
{
	uint32_t v;

	pthread_mutex_lock(&m->lock);
	v = m->hang_engines;
	pthread_mutex_unlock(&m->lock);
	return v;
}

/**
 * xdma_model_hang_left_ns() - how long the hang in force still lasts.
 * @m: the card
 *
 * Return: ns, 0 when no engine hangs.
 */
uint64_t xdma_model_hang_left_ns(struct xdma_model *m)
{
	u64 now = host_now(m), left = 0;

	pthread_mutex_lock(&m->lock);
	if (xm_hang_holds(m, now))
		left = m->hang_until - now;
	pthread_mutex_unlock(&m->lock);
	return left;
}

/**
 * xdma_model_get_faults() - the injected faults now in force.
 * @m: the card
 *
 * Return: enum xdma_model_fault bits (DESC_READ clears once it fired,
 * HANG once the hang is over).
 */
uint32_t xdma_model_get_faults(struct xdma_model *m)
{
	u64 now = host_now(m);
	u32 f;

	pthread_mutex_lock(&m->lock);
	xm_hang_holds(m, now);
	f = m->faults;
	pthread_mutex_unlock(&m->lock);
	return f;
}

/**
 * xdma_model_stray_irq() - send an engine's channel message once, as a
 *	stray or late completion message would arrive (tests).
 * @m: the card
 * @engine: the engine, in engine order
 *
 * Nothing else changes: no status, no request or pending bit, no
 * writeback.  Only a message interrupt (MSI-X: the channel's vector; MSI:
 * the card's one vector) while the channel's interrupt is enabled in the
 * IRQ block and no LOST_IRQ or DEAD fault holds; INTx is a level the IRQ
 * block drives from pending bits, which a stray message does not touch.
 * Counted in irqs.
 *
 * Return: 0 sent, -EINVAL no such engine, -EAGAIN not sent (not in MSI or
 * MSI-X mode, the channel's interrupt disabled, or a fault holds).
 */
int xdma_model_stray_irq(struct xdma_model *m, uint32_t engine)
{
	struct model_act act = { 0 };
	int ret = 0;

	if (engine >= m->num_engines)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	if ((m->irq_mode != XDMA_MODEL_IRQ_MSI &&
	     m->irq_mode != XDMA_MODEL_IRQ_MSIX) ||
	    !(m->chan_en & BIT(engine)) || xm_irq_blocked(m))
		ret = -EAGAIN;
	else
		act.msi[act.nmsi++] = xm_chan_vector(m, engine);
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
	return ret;
}
