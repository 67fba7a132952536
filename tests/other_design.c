// SPDX-License-Identifier: MIT
/*
 * other_design.c - a user logic that is not the hellofpga reference design
 * (other_design.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "other_design.h"
#include "xdma_user.h"

#define OD_MAX_CH	4

struct xdma_user {
	struct xdma_user_config cfg;
	uint32_t regs[OTHER_BAR_SIZE / 4];
	uint64_t rec[OD_MAX_CH];	/* the record a source offers */
	uint32_t taken[OD_MAX_CH];	/* its bytes sent */
	uint64_t reads;
	uint64_t writes;
};

static struct xdma_user *od_last;	/* the instance made last */

uint32_t other_design_len(uint64_t k)
{
	static const uint32_t lens[] = OTHER_LENS;

	return lens[k % (sizeof(lens) / sizeof(lens[0]))];
}

uint8_t other_design_byte(uint64_t k, uint64_t i)
{
	return (uint8_t)(k * 31 + i);
}

static int od_create(const struct xdma_user_config *cfg,
		     const struct xdma_user_env *env, struct xdma_user **out)
{
	struct xdma_user *u = calloc(1, sizeof(*u));

	(void)env;
	if (!u)
		return -ENOMEM;
	u->cfg = *cfg;
	__atomic_store_n(&od_last, u, __ATOMIC_RELEASE);
	*out = u;
	return 0;
}

static void od_destroy(struct xdma_user *u)
{
	__atomic_compare_exchange_n(&od_last, &u, NULL, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	free(u);
}

static void od_reset(struct xdma_user *u)
{
	memset(u->regs, 0, sizeof(u->regs));
	memset(u->rec, 0, sizeof(u->rec));
	memset(u->taken, 0, sizeof(u->taken));
}

static void od_advance(struct xdma_user *u, uint64_t now, uint32_t idle)
{
	(void)u;
	(void)now;
	(void)idle;
}

static uint32_t od_reg_read(struct xdma_user *u, uint32_t off, uint64_t now)
{
	(void)now;
	__atomic_fetch_add(&u->reads, 1, __ATOMIC_RELAXED);
	return off ? u->regs[off / 4] : OTHER_ID;
}

static uint32_t od_reg_write(struct xdma_user *u, uint32_t off, uint32_t val,
			     uint64_t now)
{
	(void)now;
	__atomic_fetch_add(&u->writes, 1, __ATOMIC_RELAXED);
	if (off)
		u->regs[off / 4] = val;
	return 0;
}

static uint32_t od_irq_lines(struct xdma_user *u)
{
	(void)u;
	return 0;
}

static void od_irq_ack(struct xdma_user *u, uint32_t lines)
{
	(void)u;
	(void)lines;
}

static bool od_st_peek(struct xdma_user *u, uint32_t ch, uint64_t now,
		       struct xdma_user_rec *rec)
{
	(void)now;
	if (ch >= OD_MAX_CH)
		return false;
	rec->left = other_design_len(u->rec[ch]) - u->taken[ch];
	rec->ready_ns = 0;
	return true;
}

static void od_st_read(struct xdma_user *u, uint32_t ch, uint32_t skip,
		       void *buf, uint32_t n)
{
	uint64_t at = (uint64_t)u->taken[ch] + skip;
	uint8_t *p = buf;

	for (uint32_t i = 0; i < n; i++)
		p[i] = other_design_byte(u->rec[ch], at + i);
}

static uint32_t od_st_take(struct xdma_user *u, uint32_t ch, uint32_t n,
			   uint64_t t)
{
	(void)t;
	u->taken[ch] += n;
	if (u->taken[ch] < other_design_len(u->rec[ch]))
		return 0;
	u->taken[ch] = 0;
	u->rec[ch]++;
	return XDMA_USER_TLAST;
}

static uint32_t od_st_in(struct xdma_user *u, uint32_t ch, const void *buf,
			 uint32_t n, bool last, uint32_t *took)
{
	(void)u;
	(void)ch;
	(void)buf;
	*took = n;
	return last ? XDMA_USER_TLAST : 0;
}

const struct xdma_user_ops other_design = {
	.name = "other design (tests)",
	.bar_size = OTHER_BAR_SIZE,
	.create = od_create,
	.destroy = od_destroy,
	.reset = od_reset,
	.advance = od_advance,
	.reg_read = od_reg_read,
	.reg_write = od_reg_write,
	.irq_lines = od_irq_lines,
	.irq_ack = od_irq_ack,
	.st_peek = od_st_peek,
	.st_read = od_st_read,
	.st_take = od_st_take,
	.st_in = od_st_in,
};

static struct xdma_user *od_now(void)
{
	return __atomic_load_n(&od_last, __ATOMIC_ACQUIRE);
}

uint64_t other_design_reads(void)
{
	struct xdma_user *u = od_now();

	return u ? __atomic_load_n(&u->reads, __ATOMIC_RELAXED) : 0;
}

uint64_t other_design_writes(void)
{
	struct xdma_user *u = od_now();

	return u ? __atomic_load_n(&u->writes, __ATOMIC_RELAXED) : 0;
}
