#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TransferMode in Python (the C version: examples/transfer_mode.cu): two
added calls make the existing read_c2h / write_h2c calls move card <-> GPU
directly when their buffer lies in the registered GPU buffer.

    HELLOFPGA_DEVICE=emu HELLOFPGA_GPU=emu python3 transfer_mode.py
"""
import sys

import numpy as np

import hellofpga

SIZE = 1 << 20


def main() -> int:
    with hellofpga.Card() as card, hellofpga.gpu_alloc(SIZE) as gpu:
        data = np.random.default_rng(0).integers(0, 256, SIZE, dtype=np.uint8)
        card.write_h2c(data, 0)
        card.set_gpu_buffer(gpu)                                   # register
        card.set_transfer_mode(hellofpga.TransferMode.GPU_PINNED)  # switch
        card.read_c2h(gpu.ptr, 0, size=SIZE)       # the existing call
        back = np.empty(SIZE, dtype=np.uint8)
        gpu.copy_to_host(back)
        card.set_transfer_mode(hellofpga.TransferMode.CPU)
        card.set_gpu_buffer(None)
        ok = np.array_equal(back, data)
        print(f"TransferMode GPU_PINNED, card -> GPU: {'ok' if ok else 'MISMATCH'}")
        return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hellofpga.HelloFPGAError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
