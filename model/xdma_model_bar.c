// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * xdma_model_bar.c - the XDMA IP model's BARs: the DMA/config BAR's
 * register decode (channel, IRQ, config, SGDMA and SGDMA common blocks,
 * their W1S/W1C aliases) and the user BAR, which reaches the user logic.
 */
#include "xdma_model_priv.h"

static u32 alignments(const struct xdma_model *m)
{
	return FIELD_PREP(XDMA_ALIGN_ADDR, m->cfg.addr_align) |
	       FIELD_PREP(XDMA_ALIGN_LEN_GRAN, m->cfg.len_gran) |
	       FIELD_PREP(XDMA_ALIGN_ADDR_BITS, MODEL_ADDR_BITS);
}

/*
 * PG195 gives some registers two aliases: a write to base + 4 sets the bits
 * written (W1S), one to base + 8 clears them (W1C), and a read of either
 * returns the register.  Each block decodes them once, before its switch,
 * into the base register and the kind of write.
 */
enum alias_op { ALIAS_WRITE, ALIAS_W1S, ALIAS_W1C };

static const u32 chan_aliased[] = { XDMA_CHAN_CONTROL, XDMA_CHAN_IRQ_MASK };
static const u32 common_aliased[] = { XDMA_SGDMA_COMMON_CTRL,
				      XDMA_SGDMA_COMMON_CREDIT };
static const u32 irq_aliased[] = { XDMA_IRQ_USER_EN, XDMA_IRQ_CHAN_EN };

static u32 alias_decode_n(u32 reg, const u32 *bases, size_t n,
			  enum alias_op *op)
{
	*op = ALIAS_WRITE;
	for (size_t i = 0; i < n; i++) {
		if (reg == bases[i] + 4)
			*op = ALIAS_W1S;
		else if (reg == bases[i] + 8)
			*op = ALIAS_W1C;
		else
			continue;
		return bases[i];
	}
	return reg;
}

#define alias_decode(reg, bases, op) \
	alias_decode_n(reg, bases, ARRAY_SIZE(bases), op)

/* An aliased register's value after a write of @val; @mask: what can be set. */
static u32 alias_apply(u32 cur, enum alias_op op, u32 val, u32 mask)
{
	if (op == ALIAS_W1S)
		return cur | (val & mask);
	if (op == ALIAS_W1C)
		return cur & ~val;
	return val & mask;
}

static u32 chan_read(struct xdma_model *m, struct model_engine *e, u32 target,
		     u32 reg, struct model_act *act)
{
	enum alias_op op;
	u64 now;
	u32 v;

	switch (alias_decode(reg, chan_aliased, &op)) {
	case XDMA_ID:
		return XDMA_ID_VALUE(target, e->ch) |
		       (m->cfg.st ? XDMA_ID_STREAM : 0);
	case XDMA_CHAN_CONTROL:
		return e->ctrl;
	case XDMA_CHAN_STATUS:
		return e->status;
	case XDMA_CHAN_STATUS_RC:
		v = e->status;
		e->status &= XDMA_STAT_BUSY;
		xm_irq_update(m, act);
		return v;
	case XDMA_CHAN_COMPLETED_DESC:
		return e->completed;
	case XDMA_CHAN_ALIGNMENTS:
		return alignments(m);
	case XDMA_CHAN_POLL_WB_LO:
		return e->wb_lo;
	case XDMA_CHAN_POLL_WB_HI:
		return e->wb_hi;
	case XDMA_CHAN_IRQ_MASK:
		return e->irq_mask;
	case XDMA_CHAN_PERF_CTRL:
		return e->perf_ctrl;
	}
	now = host_now(m);
	switch (reg) {
	case XDMA_CHAN_PERF_CYC_LO:
		return xm_perf_lo(xm_perf_ns(e, now) / MODEL_AXI_NS_PER_CYCLE);
	case XDMA_CHAN_PERF_CYC_HI:
		return xm_perf_hi(xm_perf_ns(e, now) / MODEL_AXI_NS_PER_CYCLE);
	case XDMA_CHAN_PERF_DATA_LO:
		return xm_perf_lo(e->perf_data);
	case XDMA_CHAN_PERF_DATA_HI:
		return xm_perf_hi(e->perf_data);
	case XDMA_CHAN_PERF_PEND_LO:
		return xm_perf_lo(e->perf_pend_ns / MODEL_AXI_NS_PER_CYCLE);
	case XDMA_CHAN_PERF_PEND_HI:
		return xm_perf_hi(e->perf_pend_ns / MODEL_AXI_NS_PER_CYCLE);
	}
	xm_guest_error(m, "read of reserved channel register 0x%x", reg);
	return 0;
}

static void chan_write(struct xdma_model *m, struct model_engine *e, u32 reg,
		       u32 val, struct model_act *act)
{
	enum alias_op op;
	u64 now;

	switch (alias_decode(reg, chan_aliased, &op)) {
	case XDMA_CHAN_CONTROL:
		xm_ctrl_write(m, e, alias_apply(e->ctrl, op, val, ~0u), act);
		break;
	case XDMA_CHAN_STATUS:
		e->status &= ~(val & ~XDMA_STAT_BUSY);
		xm_irq_update(m, act);
		break;
	case XDMA_CHAN_POLL_WB_LO:
		e->wb_lo = val;
		break;
	case XDMA_CHAN_POLL_WB_HI:
		e->wb_hi = val;
		break;
	case XDMA_CHAN_IRQ_MASK:
		e->irq_mask = alias_apply(e->irq_mask, op, val,
					  XDMA_CTRL_IE_ALL);
		xm_irq_update(m, act);
		break;
	case XDMA_CHAN_PERF_CTRL:
		now = host_now(m);
		if (val & XDMA_PERF_CLEAR)
			xm_perf_clear(e, now);
		e->perf_ctrl = val & (XDMA_PERF_RUN | XDMA_PERF_AUTO);
		xm_perf_eval(e, now);
		break;
	default:
		xm_guest_error(m, "channel: write 0x%x to RO/reserved 0x%x",
			       val, reg);
	}
}

static u32 sgdma_read(struct xdma_model *m, struct model_engine *e,
		      u32 target, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_VALUE(target, e->ch) |
		       (m->cfg.st ? XDMA_ID_STREAM : 0);
	case XDMA_SGDMA_DESC_LO:
		return e->desc_lo;
	case XDMA_SGDMA_DESC_HI:
		return e->desc_hi;
	case XDMA_SGDMA_DESC_ADJ:
		return e->desc_adj;
	case XDMA_SGDMA_DESC_CREDITS:
		return e->credits;
	}
	xm_guest_error(m, "read of reserved SGDMA register 0x%x", reg);
	return 0;
}

static void sgdma_write(struct xdma_model *m, struct model_engine *e, u32 reg,
			u32 val, struct model_act *act)
{
	switch (reg) {
	case XDMA_SGDMA_DESC_LO:
		e->desc_lo = val;
		break;
	case XDMA_SGDMA_DESC_HI:
		e->desc_hi = val;
		break;
	case XDMA_SGDMA_DESC_ADJ:
		e->desc_adj = val & XDMA_SGDMA_DESC_ADJ_MASK;
		break;
	case XDMA_SGDMA_DESC_CREDITS:
		if (!m->cfg.st) {	/* stored only */
			e->credits = val & XDMA_SGDMA_DESC_CREDITS_MASK;
			break;
		}
		/*
		 * PG195: a write adds credits; they exist only while the
		 * channel's credit mode is on (disabling it clears them).
		 */
		if (!xm_eng_credit_mode(m, e)) {
			xm_guest_error(m, "engine %u: credits without credit mode",
				       e->index);
			break;
		}
		e->credits = min_t(u32, e->credits +
				   (val & XDMA_SGDMA_DESC_CREDITS_MASK),
				   XDMA_SGDMA_DESC_CREDITS_MASK);
		if (e->status & XDMA_STAT_BUSY)
			act->kick |= BIT(e->index);
		break;
	default:
		xm_guest_error(m, "SGDMA: write 0x%x to RO/reserved 0x%x",
			       val, reg);
	}
}

/* Bits of the SGDMA common registers that exist on this card. */
static u32 sg_common_mask(const struct xdma_model *m)
{
	return GENMASK(m->cfg.num_h2c - 1, 0) |
	       GENMASK(m->cfg.num_c2h + 15, 16);
}

static u32 common_read(struct xdma_model *m, u32 reg)
{
	enum alias_op op;

	switch (alias_decode(reg, common_aliased, &op)) {
	case XDMA_ID:
		return XDMA_ID_VALUE(XDMA_TARGET_SGDMA_COMMON, 0);
	case XDMA_SGDMA_COMMON_CTRL:
		return m->sg_halt;
	case XDMA_SGDMA_COMMON_CREDIT:
		return m->sg_credit_en;
	}
	xm_guest_error(m, "read of reserved SGDMA common register 0x%x", reg);
	return 0;
}

static void common_write(struct xdma_model *m, u32 reg, u32 val,
			 struct model_act *act)
{
	u32 mask = sg_common_mask(m), old;
	enum alias_op op;

	switch (alias_decode(reg, common_aliased, &op)) {
	case XDMA_SGDMA_COMMON_CTRL:
		m->sg_halt = alias_apply(m->sg_halt, op, val, mask);
		break;
	case XDMA_SGDMA_COMMON_CREDIT:
		old = m->sg_credit_en;
		m->sg_credit_en = alias_apply(m->sg_credit_en, op, val, mask);
		if (!m->cfg.st)
			return;
		/* credits clear when a channel's credit mode is turned off */
		for (u32 i = 0; i < m->num_engines; i++)
			if (!xm_eng_credit_mode(m, &m->eng[i]) &&
			    (old & (m->eng[i].c2h ?
			    XDMA_SGDMA_CREDIT_C2H(m->eng[i].ch) :
			    XDMA_SGDMA_CREDIT_H2C(m->eng[i].ch))))
				m->eng[i].credits = 0;
		break;
	default:
		xm_guest_error(m, "SGDMA common: write 0x%x to RO/reserved 0x%x",
			       val, reg);
		return;
	}
	xm_kick_busy(m, act);
}

static u32 irq_read(struct xdma_model *m, u32 reg)
{
	enum alias_op op;

	switch (alias_decode(reg, irq_aliased, &op)) {
	case XDMA_ID:
		return XDMA_ID_VALUE(XDMA_TARGET_IRQ, 0);
	case XDMA_IRQ_USER_EN:
		return m->user_en;
	case XDMA_IRQ_CHAN_EN:
		return m->chan_en;
	case XDMA_IRQ_USER_REQ:
		return user_lines(m);
	case XDMA_IRQ_CHAN_REQ:
		return xm_chan_request(m);
	case XDMA_IRQ_USER_PEND:
		return user_lines(m) & m->user_en;
	case XDMA_IRQ_CHAN_PEND:
		return xm_chan_request(m) & m->chan_en;
	case XDMA_IRQ_USER_VEC(0):
	case XDMA_IRQ_USER_VEC(4):
	case XDMA_IRQ_USER_VEC(8):
	case XDMA_IRQ_USER_VEC(12):
		return m->user_vec[(reg - XDMA_IRQ_USER_VEC(0)) / 4];
	case XDMA_IRQ_CHAN_VEC(0):
	case XDMA_IRQ_CHAN_VEC(4):
		return m->chan_vec[(reg - XDMA_IRQ_CHAN_VEC(0)) / 4];
	}
	xm_guest_error(m, "read of reserved IRQ block register 0x%x", reg);
	return 0;
}

static void irq_write(struct xdma_model *m, u32 reg, u32 val,
		      struct model_act *act)
{
	u32 chan_mask = GENMASK(m->num_engines - 1, 0);
	enum alias_op op;

	switch (alias_decode(reg, irq_aliased, &op)) {
	case XDMA_IRQ_USER_EN: {
		u32 old = m->user_en;

		m->user_en = alias_apply(m->user_en, op, val, USER_IRQ_MASK);
		/* masking an enabled line acknowledges it (usr_irq_ack) */
		if (m->uops && (old & ~m->user_en))
			m->uops->irq_ack(m->user, old & ~m->user_en);
		break;
	}
	case XDMA_IRQ_CHAN_EN:
		m->chan_en = alias_apply(m->chan_en, op, val, chan_mask);
		break;
	case XDMA_IRQ_USER_VEC(0):
	case XDMA_IRQ_USER_VEC(4):
	case XDMA_IRQ_USER_VEC(8):
	case XDMA_IRQ_USER_VEC(12):
		m->user_vec[(reg - XDMA_IRQ_USER_VEC(0)) / 4] =
			val & IRQ_VEC_REG_MASK;
		return;
	case XDMA_IRQ_CHAN_VEC(0):
	case XDMA_IRQ_CHAN_VEC(4):
		m->chan_vec[(reg - XDMA_IRQ_CHAN_VEC(0)) / 4] =
			val & IRQ_VEC_REG_MASK;
		return;
	default:
		xm_guest_error(m, "IRQ block: write 0x%x to RO/reserved 0x%x",
			       val, reg);
		return;
	}
	xm_irq_update(m, act);
}

static u32 config_read(struct xdma_model *m, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_VALUE(XDMA_TARGET_CONFIG, 0);
	case XDMA_CFG_BUSDEV:
		return 0;
	case XDMA_CFG_MAX_PAYLOAD:
		return m->mps_code;
	case XDMA_CFG_MAX_READ_REQ:
		return MODEL_MRRS_CODE;
	case XDMA_CFG_SYSTEM_ID:
		return MODEL_SYSTEM_ID;
	case XDMA_CFG_MSI_ENABLE:
		if (m->irq_mode == XDMA_MODEL_IRQ_MSI)
			return XDMA_CFG_MSI_EN_MSI;
		if (m->irq_mode == XDMA_MODEL_IRQ_MSIX)
			return XDMA_CFG_MSI_EN_MSIX;
		return 0;
	case XDMA_CFG_DATA_WIDTH:
		return MODEL_DATA_WIDTH_CODE;
	case XDMA_CFG_PCIE_CONTROL:
		return m->pcie_ctrl;
	case XDMA_CFG_AXI_USER_MAX_PAYLOAD:
		return FIELD_PREP(XDMA_CFG_USER_EFF,
				  min_t(u32, m->user_mps, m->mps_code)) |
		       FIELD_PREP(XDMA_CFG_USER_PRG, m->user_mps);
	case XDMA_CFG_AXI_USER_MAX_READ_REQ:
		return FIELD_PREP(XDMA_CFG_USER_EFF,
				  min_t(u32, m->user_mrrs, MODEL_MRRS_CODE)) |
		       FIELD_PREP(XDMA_CFG_USER_PRG, m->user_mrrs);
	case XDMA_CFG_WRITE_FLUSH_TIMEOUT:
		return m->wr_flush;
	}
	xm_guest_error(m, "read of reserved config block register 0x%x", reg);
	return 0;
}

static void config_write(struct xdma_model *m, u32 reg, u32 val)
{
	switch (reg) {
	case XDMA_CFG_PCIE_CONTROL:
		m->pcie_ctrl = val & XDMA_CFG_PCIE_CTRL_RELAXED;
		break;
	case XDMA_CFG_AXI_USER_MAX_PAYLOAD:
		m->user_mps = FIELD_GET(XDMA_CFG_USER_PRG, val);
		break;
	case XDMA_CFG_AXI_USER_MAX_READ_REQ:
		m->user_mrrs = FIELD_GET(XDMA_CFG_USER_PRG, val);
		break;
	case XDMA_CFG_WRITE_FLUSH_TIMEOUT:
		m->wr_flush = val & XDMA_CFG_WRITE_FLUSH_MASK;
		break;
	default:
		xm_guest_error(m, "config: write 0x%x to RO/reserved 0x%x",
			       val, reg);
	}
}

static bool bad_offset(struct xdma_model *m, u32 off, u32 size,
		       const char *bar)
{
	if (off < size && !(off & 3))
		return false;
	xm_guest_error(m, "%s BAR: bad access at 0x%x", bar, off);
	return true;
}

uint32_t xdma_model_dma_read32(struct xdma_model *m, uint32_t off)
{
	u32 target = off >> 12, ch = (off >> 8) & 0xf, reg = off & 0xff;
	struct model_act act = { 0 };
	struct model_engine *e;
	u32 v = 0;

	cnt_add(&m->cnt.mmio_reads, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return XDMA_ID_DEAD;
	if (bad_offset(m, off, XDMA_BAR_SIZE, "DMA"))
		return 0;
	pthread_mutex_lock(&m->lock);
	/* PCIe ordering: the completion pushes the card's posted writes */
	while (m->wb_pending) {
		m->wb_waiters++;
		pthread_cond_wait(&m->wb_cond, &m->lock);
		m->wb_waiters--;
	}
	switch (target) {
	case XDMA_TARGET_H2C:
	case XDMA_TARGET_C2H:
		e = xm_chan_engine(m, target == XDMA_TARGET_C2H, ch);
		if (e)
			v = chan_read(m, e, target, reg, &act);
		else if (reg != XDMA_ID)
			xm_guest_error(m, "read of absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_H2C_SGDMA:
	case XDMA_TARGET_C2H_SGDMA:
		e = xm_chan_engine(m, target == XDMA_TARGET_C2H_SGDMA, ch);
		if (e)
			v = sgdma_read(m, e, target, reg);
		else if (reg != XDMA_ID)
			xm_guest_error(m, "read of absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_IRQ:
		v = irq_read(m, ch ? ~0u : reg);
		break;
	case XDMA_TARGET_CONFIG:
		v = config_read(m, ch ? ~0u : reg);
		break;
	case XDMA_TARGET_SGDMA_COMMON:
		v = common_read(m, ch ? ~0u : reg);
		break;
	default:
		/* The MSI-X table and PBA belong to the host. */
		if (off < XDMA_MSIX_TABLE_OFFSET || off >= MSIX_REGION_END)
			xm_guest_error(m, "read of reserved offset 0x%x", off);
	}
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
	return v;
}

void xdma_model_dma_write32(struct xdma_model *m, uint32_t off, uint32_t val)
{
	u32 target = off >> 12, ch = (off >> 8) & 0xf, reg = off & 0xff;
	struct model_act act = { 0 };
	struct model_engine *e;

	cnt_add(&m->cnt.mmio_writes, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return;
	if (bad_offset(m, off, XDMA_BAR_SIZE, "DMA"))
		return;
	pthread_mutex_lock(&m->lock);
	xm_user_advance(m, host_now(m));
	switch (target) {
	case XDMA_TARGET_H2C:
	case XDMA_TARGET_C2H:
		e = xm_chan_engine(m, target == XDMA_TARGET_C2H, ch);
		if (e)
			chan_write(m, e, reg, val, &act);
		else
			xm_guest_error(m, "write to absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_H2C_SGDMA:
	case XDMA_TARGET_C2H_SGDMA:
		e = xm_chan_engine(m, target == XDMA_TARGET_C2H_SGDMA, ch);
		if (e)
			sgdma_write(m, e, reg, val, &act);
		else
			xm_guest_error(m, "write to absent channel at 0x%x", off);
		break;
	case XDMA_TARGET_IRQ:
		irq_write(m, ch ? ~0u : reg, val, &act);
		break;
	case XDMA_TARGET_CONFIG:
		config_write(m, ch ? ~0u : reg, val);
		break;
	case XDMA_TARGET_SGDMA_COMMON:
		common_write(m, ch ? ~0u : reg, val, &act);
		break;
	default:
		if (off < XDMA_MSIX_TABLE_OFFSET || off >= MSIX_REGION_END)
			xm_guest_error(m, "write of 0x%x to reserved offset 0x%x",
				       val, off);
	}
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
}

/* ---- user BAR: the user logic's AXI-Lite registers ---- */

/*
 * Whether user BAR offset @off reaches the user logic; else a guest error.
 */
static bool user_reaches(struct xdma_model *m, u32 off)
{
	if (!m->uops) {
		xm_guest_error(m, "user BAR: no user logic at 0x%x", off);
		return false;
	}
	return !bad_offset(m, off, m->uops->bar_size, "user");
}

uint32_t xdma_model_user_read32(struct xdma_model *m, uint32_t off)
{
	u64 now;
	u32 v;

	cnt_add(&m->cnt.mmio_reads, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return XDMA_ID_DEAD;
	if (!user_reaches(m, off))
		return 0;
	pthread_mutex_lock(&m->lock);
	now = host_now(m);
	xm_user_advance(m, now);
	v = m->uops->reg_read(m->user, off, now);
	pthread_mutex_unlock(&m->lock);
	return v;
}

void xdma_model_user_write32(struct xdma_model *m, uint32_t off, uint32_t val)
{
	struct model_act act = { 0 };
	u64 now;

	cnt_add(&m->cnt.mmio_writes, 1);
	if (__atomic_load_n(&m->faults, __ATOMIC_RELAXED) & XDMA_FAULT_DEAD)
		return;
	if (!user_reaches(m, off))
		return;
	pthread_mutex_lock(&m->lock);
	now = host_now(m);
	xm_user_advance(m, now);
	xm_user_flags(m, m->uops->reg_write(m->user, off, val, now), &act);
	pthread_mutex_unlock(&m->lock);
	xm_act_flush(m, &act);
}

/* The user BAR's size: the user logic's (0 without one). */
uint32_t xdma_model_user_bar_size(const struct xdma_model *m)
{
	return m->uops ? m->uops->bar_size : 0;
}
