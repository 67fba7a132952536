#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HelloFPGA four-step GPU Direct guide in Python (the C version:
examples/gpudirect_four_steps.cu): allocate GPU memory, pin it once, move
data card -> GPU and GPU -> card with the pin, unpin.

    HELLOFPGA_DEVICE=emu python3 gpudirect_four_steps.py          # CUDA GPU
    HELLOFPGA_DEVICE=emu HELLOFPGA_GPU=emu python3 gpudirect_four_steps.py

With PyTorch and a CUDA GPU the memory is a torch tensor, checked on the
GPU by a torch op; without them the library's GPU memory
(hellofpga.gpu_alloc: the emulated GPU without CUDA), checked with NumPy.
"""
import sys

import numpy as np

import hellofpga

SIZE = 4 << 20              # 4 MiB, a multiple of 4096
FPGA_ADDR = 0x100000
CH, TIMEOUT_MS = 0, 1000


def main() -> int:
    st = hellofpga.gpu_status()
    print(f"GPU: {st.name} ({st.platform.name.lower()}, "
          f"{'emulated' if st.emulated else 'real'}), GPU Direct "
          f"{'supported' if st.supported else 'not supported: ' + st.reason}")
    try:
        import torch
        use_torch = torch.cuda.is_available() and not st.emulated
    except ImportError:
        use_torch = False

    pattern = (np.arange(SIZE // 4, dtype=np.uint64) * 2654435761
               & 0xffffffff).astype(np.uint32)
    with hellofpga.Card() as card:              # $HELLOFPGA_DEVICE, or card 0
        card.write_h2c(pattern, FPGA_ADDR)      # a pattern, by the CPU path

        # 1. allocate
        if use_torch:
            big = torch.empty(SIZE + hellofpga.GPU_ALIGN, dtype=torch.uint8,
                              device="cuda")
            off = hellofpga.align_offset(big)   # torch aligns to 512 only
            gpu = big[off:off + SIZE]
        else:
            gpu = hellofpga.gpu_alloc(SIZE)
        # 2. pin once
        with card.pin(gpu) as pin:
            # 3. transfer, reusing the pin: card -> GPU ...
            pin.read_c2h(FPGA_ADDR, SIZE, CH, TIMEOUT_MS)
            if use_torch:
                ok = torch.equal(gpu.view(torch.int32),
                                 torch.from_numpy(pattern.view(np.int32)).cuda())
            else:
                back = np.empty(SIZE // 4, dtype=np.uint32)
                gpu.copy_to_host(back)
                ok = np.array_equal(back, pattern)
            print(f"card -> GPU: {'ok' if ok else 'MISMATCH'}")
            # ... and GPU -> card, to another card address
            pin.write_h2c(FPGA_ADDR + SIZE, SIZE, CH, TIMEOUT_MS)
            ok2 = np.array_equal(card.read_array(FPGA_ADDR + SIZE, SIZE // 4,
                                                 np.uint32), pattern)
            print(f"GPU -> card: {'ok' if ok2 else 'MISMATCH'}")
        # 4. released at the end of the with block
    return 0 if ok and ok2 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hellofpga.HelloFPGAError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
