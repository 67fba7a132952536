/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_user_regs.h - the user BAR of the hellofpga reference design: the
 * registers the design's own logic puts behind the XDMA IP's AXI-Lite
 * master (BAR0 of the card, 64 KiB), among them, on a card with AXI-Stream
 * channels, the control and counters of a stream source per C2H channel and
 * a checking sink per H2C channel.  The emulated card's user logic
 * implements them (hf_refdesign.c, docs/xdma-model.md "User BAR"); the
 * driver reads the card memory size from a card that identifies itself with
 * HF_USER_ID_VALUE.
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
/*
 * W1S (version 1.1): raise usr_irq_req[n] as a pulse: the line stays up
 * until software masks the interrupt in the IRQ block after it was pending
 * (every handler does, as its acknowledgment), so one write is one
 * interrupt; HF_USER_IRQ_CLEAR drops it too.
 */
#define HF_USER_IRQ_PULSE		0x001c
#define HF_USER_VERSION_PULSE		0x00010001u	/* first with PULSE */
/*
 * RW (version 1.2): bit n loops H2C channel n's stream back to C2H channel
 * n (an AXI-Stream card): what the host streams out comes back, unchanged,
 * through a FIFO, as in PG195's AXI-ST example design; the channel's sink
 * and source are out of the path meanwhile.  Routes switch between packets.
 */
#define HF_USER_LOOPBACK		0x0020
#define HF_USER_VERSION_LOOPBACK	0x00010002u	/* first with LOOPBACK */
#define HF_USER_RAM			0x1000	/* 4 KiB RW scratch RAM */
#define HF_USER_RAM_SIZE		0x1000
#define HF_USER_ID_VALUE		0x48465047u	/* "HFPG" */

/*
 * AXI-Stream cards only (an XDMA IP built with AXI-ST channels, the
 * emulated card's "st" option): the user logic at the channels' stream
 * ports.  Frames follow hf_stream_pattern.h.  On a memory-mapped card
 * these offsets are reserved.
 *
 * C2H stream source of C2H channel ch: sends frames (or records of varying
 * length) into the channel's AXI-Stream port, each ended by TLAST.
 */
#define HF_USER_ST_SRC(ch)		(0x2000 + (ch) * 0x100)
#define HF_ST_SRC_CTRL			0x00	/* RW, see HF_ST_SRC_CTRL_* */
#define HF_ST_SRC_FRAME_SIZE		0x04	/* RW: bytes per frame */
#define HF_ST_SRC_REC_MIN		0x08	/* RW: shortest record, bytes */
#define HF_ST_SRC_REC_MAX		0x0c	/* RW: longest record, bytes */
#define HF_ST_SRC_INTERVAL_NS		0x10	/* RW: frame interval, 0 = back to back */
#define HF_ST_SRC_COUNT			0x14	/* RW: frames per enable, 0 = unlimited */
#define HF_ST_SRC_SEQ_LO		0x18	/* RO: next sequence number (latches HI) */
#define HF_ST_SRC_SEQ_HI		0x1c	/* RO */
#define HF_ST_SRC_SENT			0x20	/* RO: frames sent whole */
#define HF_ST_SRC_DROPPED		0x24	/* RO: frames dropped (drop mode) */
#define HF_ST_SRC_BYTES_LO		0x28	/* RO: bytes sent (latches HI) */
#define HF_ST_SRC_BYTES_HI		0x2c	/* RO */
#define HF_ST_SRC_STATUS		0x30	/* RO, see HF_ST_SRC_STS_* */

#define HF_ST_SRC_CTRL_ENABLE		0x00000001u	/* on; 0->1 restarts COUNT */
#define HF_ST_SRC_CTRL_RECORDS		0x00000002u	/* REC_MIN..REC_MAX long */
#define HF_ST_SRC_CTRL_DROP		0x00000004u	/* no descriptor ready: drop, else stall */
#define HF_ST_SRC_CTRL_IRQ		0x00000008u	/* usr_irq_req at frame end */
#define HF_ST_SRC_CTRL_IRQ_NUM		0x00000f00u	/* [11:8]: which user interrupt */
#define HF_ST_SRC_CTRL_IRQ_SHIFT	8
#define HF_ST_SRC_CTRL_CLEAR		0x80000000u	/* W: counters and sequence to 0 */

#define HF_ST_SRC_STS_ACTIVE		0x00000001u	/* enabled, frames left to generate */
#define HF_ST_SRC_STS_HOLDING		0x00000002u	/* a frame waits or is being sent */
#define HF_ST_SRC_STS_DONE		0x00000004u	/* COUNT frames generated, none held */

/*
 * H2C stream sink of H2C channel ch: takes what the channel streams out,
 * a frame ending with the descriptor whose EOP bit is set (TLAST), and
 * checks each frame against the format.
 */
#define HF_USER_ST_SINK(ch)		(0x3000 + (ch) * 0x100)
#define HF_ST_SINK_CTRL			0x00	/* W: HF_ST_SINK_CTRL_CLEAR */
#define HF_ST_SINK_FRAMES_OK		0x04	/* RO */
#define HF_ST_SINK_FRAMES_BAD		0x08	/* RO: frames that failed the check */
#define HF_ST_SINK_BYTES_LO		0x0c	/* RO: bytes received (latches HI) */
#define HF_ST_SINK_BYTES_HI		0x10	/* RO */
#define HF_ST_SINK_LAST_SEQ_LO		0x14	/* RO: last good frame (latches HI) */
#define HF_ST_SINK_LAST_SEQ_HI		0x18	/* RO */
#define HF_ST_SINK_PARTIAL		0x1c	/* RO: bytes of the frame in progress */
#define HF_ST_SINK_CTRL_CLEAR		0x80000000u	/* W: counters to 0, frame dropped */

#endif /* HF_USER_REGS_H */
