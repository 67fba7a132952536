/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_user_regs.h - the user BAR of the hellofpga reference design: the
 * registers the design's own logic puts behind the XDMA IP's AXI-Lite
 * master (BAR0 of the card, 64 KiB).  The emulated card implements them
 * (model/xdma_model.c, docs/xdma-model.md "User BAR"); the driver reads the
 * card memory size from a card that identifies itself with HF_USER_ID_VALUE.
 * Other designs have other user BARs: nothing else depends on these.
 */
#ifndef HF_USER_REGS_H
#define HF_USER_REGS_H

#define HF_USER_BAR_SIZE		0x10000
#define HF_USER_ID			0x0000	/* RO: HF_USER_ID_VALUE */
#define HF_USER_VERSION			0x0004	/* RO: major << 16 | minor */
#define HF_USER_SCRATCH			0x0008	/* RW */
#define HF_USER_IRQ_SET			0x000c	/* W1S: raise usr_irq_req[n] */
#define HF_USER_IRQ_CLEAR		0x0010	/* W1C: drop usr_irq_req[n] */
#define HF_USER_IRQ_REQ			0x0014	/* RO: usr_irq_req lines */
#define HF_USER_DDR_SIZE_MB		0x0018	/* RO: card memory in MiB */
#define HF_USER_RAM			0x1000	/* 4 KiB RW scratch RAM */
#define HF_USER_RAM_SIZE		0x1000
#define HF_USER_ID_VALUE		0x48465047u	/* "HFPG" */

#endif /* HF_USER_REGS_H */
