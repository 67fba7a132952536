/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * xdma_regs.h - register map and descriptor layout of the Xilinx DMA/Bridge
 * Subsystem for PCI Express (XDMA, PG195), AXI memory-mapped and AXI-Stream.
 *
 * This is the single register truth of the project: the kernel driver, the
 * library's engine core and the emulated card (model/) all include it.  It
 * uses only BIT(), GENMASK(), FIELD_PREP() and FIELD_GET(), which the kernel
 * provides and core/os/hf_os_user.h provides for user space.
 *
 * Naming: XDMA_<BLOCK>_<REG> for offsets, XDMA_<REG>_<FIELD> for fields.
 * Offsets of channel registers are relative to the channel's block base
 * (XDMA_H2C_BASE(ch) etc.).
 */
#ifndef HF_XDMA_REGS_H
#define HF_XDMA_REGS_H

/* ---- BAR layout (PG195 "Register Space", target = addr[15:12]) ---- */
#define XDMA_BAR_SIZE			0x10000
#define XDMA_TARGET_H2C			0x0
#define XDMA_TARGET_C2H			0x1
#define XDMA_TARGET_IRQ			0x2
#define XDMA_TARGET_CONFIG		0x3
#define XDMA_TARGET_H2C_SGDMA		0x4
#define XDMA_TARGET_C2H_SGDMA		0x5
#define XDMA_TARGET_SGDMA_COMMON	0x6
#define XDMA_TARGET_MSIX		0x8

#define XDMA_BLOCK_BASE(target, ch)	(((target) << 12) | ((ch) << 8))
#define XDMA_H2C_BASE(ch)		XDMA_BLOCK_BASE(XDMA_TARGET_H2C, ch)
#define XDMA_C2H_BASE(ch)		XDMA_BLOCK_BASE(XDMA_TARGET_C2H, ch)
#define XDMA_IRQ_BASE			XDMA_BLOCK_BASE(XDMA_TARGET_IRQ, 0)
#define XDMA_CONFIG_BASE		XDMA_BLOCK_BASE(XDMA_TARGET_CONFIG, 0)
#define XDMA_H2C_SGDMA_BASE(ch)		XDMA_BLOCK_BASE(XDMA_TARGET_H2C_SGDMA, ch)
#define XDMA_C2H_SGDMA_BASE(ch)		XDMA_BLOCK_BASE(XDMA_TARGET_C2H_SGDMA, ch)
#define XDMA_SGDMA_COMMON_BASE		XDMA_BLOCK_BASE(XDMA_TARGET_SGDMA_COMMON, 0)
#define XDMA_MSIX_TABLE_OFFSET		0x8000
#define XDMA_MSIX_PBA_OFFSET		0x8fe0

#define XDMA_MAX_CHANNELS		4	/* per direction */
#define XDMA_MAX_ENGINES		(2 * XDMA_MAX_CHANNELS)
#define XDMA_MSIX_VECTORS		32	/* 16 channel + 16 user sources */
#define XDMA_MSI_VECTORS		32	/* the most MSI allows */
#define XDMA_USER_IRQS			16

/* ---- Identifier register (offset 0x00 of every block) ---- */
#define XDMA_ID				0x00
#define XDMA_ID_SUBSYSTEM		GENMASK(31, 20)
#define XDMA_ID_TARGET			GENMASK(19, 16)
#define XDMA_ID_STREAM			BIT(15)		/* 1 = AXI-ST, 0 = AXI-MM */
#define XDMA_ID_CHANNEL			GENMASK(11, 8)
#define XDMA_ID_VERSION			GENMASK(7, 0)
#define XDMA_ID_SUBSYSTEM_VALUE		0x1fc
#define XDMA_ID_VERSION_VALUE		0x06	/* 2018.3 and later */
#define XDMA_ID_VALUE(target, ch)					\
	(FIELD_PREP(XDMA_ID_SUBSYSTEM, XDMA_ID_SUBSYSTEM_VALUE) |	\
	 FIELD_PREP(XDMA_ID_TARGET, (target)) |				\
	 FIELD_PREP(XDMA_ID_CHANNEL, (ch)) |				\
	 FIELD_PREP(XDMA_ID_VERSION, XDMA_ID_VERSION_VALUE))
#define XDMA_ID_DEAD			0xffffffffu	/* link down / card gone */

/* ---- H2C / C2H channel registers ---- */
#define XDMA_CHAN_CONTROL		0x04
#define XDMA_CHAN_CONTROL_W1S		0x08
#define XDMA_CHAN_CONTROL_W1C		0x0c
#define XDMA_CHAN_STATUS		0x40	/* RW1C */
#define XDMA_CHAN_STATUS_RC		0x44	/* read clears */
#define XDMA_CHAN_COMPLETED_DESC	0x48
#define XDMA_CHAN_ALIGNMENTS		0x4c
#define XDMA_CHAN_POLL_WB_LO		0x88
#define XDMA_CHAN_POLL_WB_HI		0x8c
#define XDMA_CHAN_IRQ_MASK		0x90
#define XDMA_CHAN_IRQ_MASK_W1S		0x94
#define XDMA_CHAN_IRQ_MASK_W1C		0x98
#define XDMA_CHAN_PERF_CTRL		0xc0
#define XDMA_CHAN_PERF_CYC_LO		0xc4
#define XDMA_CHAN_PERF_CYC_HI		0xc8
#define XDMA_CHAN_PERF_DATA_LO		0xcc
#define XDMA_CHAN_PERF_DATA_HI		0xd0
#define XDMA_CHAN_PERF_PEND_LO		0xd4
#define XDMA_CHAN_PERF_PEND_HI		0xd8

/* Control register (and the same bit positions in the IRQ mask register). */
#define XDMA_CTRL_RUN			BIT(0)
#define XDMA_CTRL_IE_DESC_STOPPED	BIT(1)
#define XDMA_CTRL_IE_DESC_COMPLETED	BIT(2)
#define XDMA_CTRL_IE_ALIGN_MISMATCH	BIT(3)
#define XDMA_CTRL_IE_MAGIC_STOPPED	BIT(4)
#define XDMA_CTRL_IE_INVALID_LENGTH	BIT(5)
#define XDMA_CTRL_IE_IDLE_STOPPED	BIT(6)
#define XDMA_CTRL_IE_READ_ERROR		GENMASK(13, 9)
#define XDMA_CTRL_IE_WRITE_ERROR	GENMASK(18, 14)
#define XDMA_CTRL_IE_DESC_ERROR		GENMASK(23, 19)
#define XDMA_CTRL_NON_INCR_ADDR		BIT(25)
#define XDMA_CTRL_POLL_MODE_WB		BIT(26)
#define XDMA_CTRL_STM_WB_DISABLE	BIT(27)
#define XDMA_CTRL_IE_ALL						\
	(XDMA_CTRL_IE_DESC_STOPPED | XDMA_CTRL_IE_DESC_COMPLETED |	\
	 XDMA_CTRL_IE_ALIGN_MISMATCH | XDMA_CTRL_IE_MAGIC_STOPPED |	\
	 XDMA_CTRL_IE_INVALID_LENGTH | XDMA_CTRL_IE_IDLE_STOPPED |	\
	 XDMA_CTRL_IE_READ_ERROR | XDMA_CTRL_IE_WRITE_ERROR |		\
	 XDMA_CTRL_IE_DESC_ERROR)

/* Status register (0x40 RW1C, 0x44 read-to-clear). */
#define XDMA_STAT_BUSY			BIT(0)
#define XDMA_STAT_DESC_STOPPED		BIT(1)
#define XDMA_STAT_DESC_COMPLETED	BIT(2)
#define XDMA_STAT_ALIGN_MISMATCH	BIT(3)
#define XDMA_STAT_MAGIC_STOPPED		BIT(4)
#define XDMA_STAT_INVALID_LENGTH	BIT(5)
#define XDMA_STAT_IDLE_STOPPED		BIT(6)
#define XDMA_STAT_READ_ERROR		GENMASK(13, 9)
#define XDMA_STAT_WRITE_ERROR		GENMASK(18, 14)
#define XDMA_STAT_DESC_ERROR		GENMASK(23, 19)
/* Sub-fields of the read-error field.  H2C: PCIe read of host/GPU memory. */
#define XDMA_READ_ERR_UR		BIT(0)	/* unsupported request */
#define XDMA_READ_ERR_CA		BIT(1)	/* completer abort */
#define XDMA_READ_ERR_PARITY		BIT(2)
#define XDMA_READ_ERR_EP		BIT(3)	/* poisoned TLP */
#define XDMA_READ_ERR_UNEXP_COMPL	BIT(4)	/* unexpected completion */
/* C2H read-error field: AXI-MM read of card memory. */
#define XDMA_C2H_READ_ERR_DECODE	BIT(0)
#define XDMA_C2H_READ_ERR_SLAVE		BIT(1)
/* H2C write-error field: AXI-MM write of card memory. */
#define XDMA_WRITE_ERR_DECODE		BIT(0)
#define XDMA_WRITE_ERR_SLAVE		BIT(1)
/* Descriptor-error field: fetching a descriptor over PCIe. */
#define XDMA_DESC_ERR_UR		BIT(0)
#define XDMA_DESC_ERR_CA		BIT(1)
#define XDMA_DESC_ERR_PARITY		BIT(2)
#define XDMA_DESC_ERR_HEADER_EP		BIT(3)
#define XDMA_DESC_ERR_UNEXP_COMPL	BIT(4)
#define XDMA_STAT_ERR_MASK						\
	(XDMA_STAT_ALIGN_MISMATCH | XDMA_STAT_MAGIC_STOPPED |		\
	 XDMA_STAT_INVALID_LENGTH | XDMA_STAT_READ_ERROR |		\
	 XDMA_STAT_WRITE_ERROR | XDMA_STAT_DESC_ERROR)

/* Alignments register (read-only). */
#define XDMA_ALIGN_ADDR			GENMASK(23, 16)	/* address alignment, bytes */
#define XDMA_ALIGN_LEN_GRAN		GENMASK(15, 8)	/* length granularity, bytes */
#define XDMA_ALIGN_ADDR_BITS		GENMASK(7, 0)	/* address width, bits */

/* Performance monitor control. */
#define XDMA_PERF_AUTO			BIT(0)
#define XDMA_PERF_CLEAR			BIT(1)
#define XDMA_PERF_RUN			BIT(2)
/* High words of the 42-bit performance counters. */
#define XDMA_PERF_HI_COUNT		GENMASK(9, 0)	/* counter bits [41:32] */
#define XDMA_PERF_HI_MAXED		BIT(16)		/* counter saturated */

/* Poll-mode writeback word, written by the engine to POLL_WB_LO/HI. */
#define XDMA_WB_COUNT			GENMASK(23, 0)
#define XDMA_WB_ERR			BIT(31)

/*
 * C2H stream writeback (AXI-ST C2H, unless Control bit 27 disables it): per
 * descriptor, 32 bytes at the descriptor's source address: the status word,
 * the length received, six reserved words.
 */
#define XDMA_STM_WB_SIZE		32
#define XDMA_STM_WB_MAGIC		GENMASK(31, 16)
#define XDMA_STM_WB_MAGIC_VALUE		0x52b4
#define XDMA_STM_WB_EOP			BIT(0)

/* ---- SGDMA registers (per channel) ---- */
#define XDMA_SGDMA_DESC_LO		0x80
#define XDMA_SGDMA_DESC_HI		0x84
#define XDMA_SGDMA_DESC_ADJ		0x88
#define XDMA_SGDMA_DESC_CREDITS		0x8c
#define XDMA_SGDMA_DESC_ADJ_MASK	GENMASK(5, 0)
#define XDMA_SGDMA_DESC_CREDITS_MASK	GENMASK(9, 0)

/* ---- SGDMA common block ---- */
#define XDMA_SGDMA_COMMON_CTRL		0x10
#define XDMA_SGDMA_COMMON_CTRL_W1S	0x14
#define XDMA_SGDMA_COMMON_CTRL_W1C	0x18
#define XDMA_SGDMA_COMMON_CREDIT	0x20
#define XDMA_SGDMA_COMMON_CREDIT_W1S	0x24
#define XDMA_SGDMA_COMMON_CREDIT_W1C	0x28
#define XDMA_SGDMA_HALT_H2C(ch)		BIT(ch)
#define XDMA_SGDMA_HALT_C2H(ch)		BIT(16 + (ch))
/* Descriptor Credit Mode Enable (0x20): the same bit per channel. */
#define XDMA_SGDMA_CREDIT_H2C(ch)	BIT(ch)
#define XDMA_SGDMA_CREDIT_C2H(ch)	BIT(16 + (ch))

/* ---- IRQ block ---- */
#define XDMA_IRQ_USER_EN		0x04
#define XDMA_IRQ_USER_EN_W1S		0x08
#define XDMA_IRQ_USER_EN_W1C		0x0c
#define XDMA_IRQ_CHAN_EN		0x10
#define XDMA_IRQ_CHAN_EN_W1S		0x14
#define XDMA_IRQ_CHAN_EN_W1C		0x18
#define XDMA_IRQ_USER_REQ		0x40
#define XDMA_IRQ_CHAN_REQ		0x44
#define XDMA_IRQ_USER_PEND		0x48
#define XDMA_IRQ_CHAN_PEND		0x4c
#define XDMA_IRQ_USER_VEC(n)		(0x80 + 4 * ((n) / 4))	/* n = user irq */
#define XDMA_IRQ_CHAN_VEC(n)		(0xa0 + 4 * ((n) / 4))	/* n = engine */
#define XDMA_IRQ_VEC_SHIFT(n)		(8 * ((n) % 4))
#define XDMA_IRQ_VEC_MASK		GENMASK(4, 0)
/*
 * Channel interrupt bits (CHAN_EN/REQ/PEND) and channel vector slots are in
 * engine order: bit n = H2C n for n < num_h2c, then C2H channels.
 */

/* ---- Config block (PG195 "Config Block Register Space") ---- */
#define XDMA_CFG_BUSDEV			0x04	/* [15:0] bus/device/function */
#define XDMA_CFG_MAX_PAYLOAD		0x08	/* 0:128 1:256 2:512 3:1024 */
#define XDMA_CFG_MAX_READ_REQ		0x0c	/* 0:128 ... 5:4096 */
#define XDMA_CFG_SYSTEM_ID		0x10
#define XDMA_CFG_MSI_ENABLE		0x14	/* bit0 MSI, bit1 MSI-X */
#define XDMA_CFG_DATA_WIDTH		0x18	/* 0:64 1:128 2:256 3:512 bits */
#define XDMA_CFG_PCIE_CONTROL		0x1c	/* bit0 relaxed ordering */
#define XDMA_CFG_AXI_USER_MAX_PAYLOAD	0x40
#define XDMA_CFG_AXI_USER_MAX_READ_REQ	0x44
#define XDMA_CFG_WRITE_FLUSH_TIMEOUT	0x60
#define XDMA_CFG_MSI_EN_MSI		BIT(0)
#define XDMA_CFG_MSI_EN_MSIX		BIT(1)
#define XDMA_CFG_PCIE_CTRL_RELAXED	BIT(0)
#define XDMA_CFG_USER_EFF		GENMASK(6, 4)	/* effective size, RO */
#define XDMA_CFG_USER_PRG		GENMASK(2, 0)	/* programmed size, RW */
#define XDMA_CFG_WRITE_FLUSH_MASK	GENMASK(4, 0)

/* ---- Descriptor (32 bytes, little endian, 32-byte aligned) ---- */
#define XDMA_DESC_SIZE			32
#define XDMA_DESC_MAGIC			0xad4b
#define XDMA_DESC_CTRL_MAGIC		GENMASK(31, 16)
#define XDMA_DESC_CTRL_NXT_ADJ		GENMASK(13, 8)
#define XDMA_DESC_CTRL_EOP		BIT(4)
#define XDMA_DESC_CTRL_COMPLETED	BIT(1)
#define XDMA_DESC_CTRL_STOP		BIT(0)
#define XDMA_DESC_LEN_MASK		GENMASK(27, 0)
#define XDMA_DESC_MAX_ADJ		63
/* Largest length one descriptor carries: 2^28 - 4 KiB keeps chunks aligned. */
#define XDMA_DESC_MAX_LEN		((1u << 28) - 4096u)
/* A block of adjacent descriptors never crosses a 4 KiB boundary. */
#define XDMA_DESC_BLOCK_BOUNDARY	4096u

/**
 * struct hf_xdma_desc - one SGDMA descriptor as the engine fetches it.
 * @control: magic, next-adjacent count and flags (XDMA_DESC_CTRL_*)
 * @len: length in bytes, bits [27:0]
 * @src_lo: source address, low word (H2C: bus address, C2H: card address)
 * @src_hi: source address, high word
 * @dst_lo: destination address, low word (H2C: card address, C2H: bus address)
 * @dst_hi: destination address, high word
 * @next_lo: bus address of the next descriptor, low word
 * @next_hi: bus address of the next descriptor, high word
 *
 * All words are little endian; the engine core converts with cpu_to_le32().
 */
struct hf_xdma_desc {
	__le32 control;
	__le32 len;
	__le32 src_lo;
	__le32 src_hi;
	__le32 dst_lo;
	__le32 dst_hi;
	__le32 next_lo;
	__le32 next_hi;
};

#endif /* HF_XDMA_REGS_H */
