# SPDX-License-Identifier: MIT
"""Registers of the hellofpga reference design's user BAR
(refdesign/hf_user_regs.h; tests/lint/refdesign_py.py checks this copy
against it), which the emulated card implements: the user-interrupt request
lines and, on an AXI-Stream card (``emu:0,st``), the stream source of each
C2H channel, the sink of each H2C channel and the loopback of each pair.  Other designs have other user BARs."""

USER_ID = 0x0000            # RO: USER_ID_VALUE
USER_VERSION = 0x0004       # RO: major << 16 | minor
USER_SCRATCH = 0x0008       # RW
USER_IRQ_SET = 0x000c       # W1S: raise usr_irq_req[n]
USER_IRQ_CLEAR = 0x0010     # W1C: drop usr_irq_req[n]
USER_IRQ_REQ = 0x0014       # RO: the request lines
USER_DDR_SIZE_MB = 0x0018   # RO: card memory in MiB
USER_IRQ_PULSE = 0x001c     # W1S: raise usr_irq_req[n] as a pulse
USER_LOOPBACK = 0x0020      # RW: bit n loops H2C channel n back to C2H n
USER_VERSION_LOOPBACK = 0x00010002  # first with LOOPBACK
USER_RAM = 0x1000           # 4 KiB RW scratch RAM
USER_RAM_SIZE = 0x1000
USER_ID_VALUE = 0x48465047  # "HFPG"


def ST_SRC(ch: int) -> int:
    """Base of the stream source of C2H channel @ch."""
    return 0x2000 + ch * 0x100


ST_SRC_CTRL = 0x00
ST_SRC_FRAME_SIZE = 0x04
ST_SRC_REC_MIN = 0x08
ST_SRC_REC_MAX = 0x0c
ST_SRC_INTERVAL_NS = 0x10
ST_SRC_COUNT = 0x14
ST_SRC_SEQ_LO = 0x18
ST_SRC_SEQ_HI = 0x1c
ST_SRC_SENT = 0x20
ST_SRC_DROPPED = 0x24
ST_SRC_STATUS = 0x30

ST_SRC_CTRL_ENABLE = 0x00000001
ST_SRC_CTRL_RECORDS = 0x00000002
ST_SRC_CTRL_DROP = 0x00000004
ST_SRC_CTRL_IRQ = 0x00000008
ST_SRC_CTRL_IRQ_SHIFT = 8
ST_SRC_CTRL_CLEAR = 0x80000000

ST_SRC_STS_ACTIVE = 0x1
ST_SRC_STS_HOLDING = 0x2
ST_SRC_STS_DONE = 0x4
