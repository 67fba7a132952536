#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A frame grabber's loop feeding a torch model from a GPU ring.

The card's C2H AXI-Stream channel fills a ring of buffers in GPU memory (a
GPU Direct pin); each frame is viewed as a torch tensor with no copy
(torch.from_dlpack: its data_ptr() is the ring slot), the model runs on it,
and the buffer goes back to the card once the GPU is done with it.  Every
frame is checked against the reference design's pattern.

    HELLOFPGA_DEVICE=emu:0,st python3 frame_loop_torch.py --frames 1000

With GPU-side completion in the library (hellofpga.has_wait_on_gpu()) the
CUDA stream waits for the card, not the CPU.  Without PyTorch and CUDA (CI)
the ring is the library's GPU memory (the emulated GPU) and a NumPy
function stands in for the model.
"""
import argparse
import sys
import time

import hellofpga
from hellofpga import pattern, regs

BUFFERS = 8
# Each ring buffer must be one contiguous range of bus addresses: GPU
# memory is contiguous within its large pages (2 MiB on the emulated GPU's
# IOMMU), so the ring starts on a 2 MiB boundary
RING_ALIGN = 2 << 20


def start_source(card, size, count):
    base = regs.ST_SRC(0)
    card.user_write32(base + regs.ST_SRC_CTRL, regs.ST_SRC_CTRL_CLEAR)
    card.user_write32(base + regs.ST_SRC_FRAME_SIZE, size)
    card.user_write32(base + regs.ST_SRC_COUNT, count)
    card.user_write32(base + regs.ST_SRC_CTRL, regs.ST_SRC_CTRL_ENABLE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--frame-size", type=int, default=1 << 20)
    ap.add_argument("--verify", type=int, default=1,
                    help="check every Nth frame against the pattern (0: none)")
    a = ap.parse_args()
    size = -(-a.frame_size // 4096) * 4096
    st = hellofpga.gpu_status()
    try:
        import torch
        use_torch = torch.cuda.is_available() and not st.emulated
    except ImportError:
        use_torch = False

    with hellofpga.Card() as card:
        if use_torch:
            big = torch.empty(BUFFERS * size + RING_ALIGN,
                              dtype=torch.uint8, device="cuda")
            off = hellofpga.align_offset(big, RING_ALIGN)
            ring, ring_off = big[off:off + BUFFERS * size], 0
            model = torch.nn.Sequential(torch.nn.Linear(256, 64),
                                        torch.nn.ReLU(),
                                        torch.nn.Linear(64, 1)).cuda()
            cuda = torch.cuda.Stream()
        else:
            ring = hellofpga.gpu_alloc(BUFFERS * size + RING_ALIGN)
            ring_off = hellofpga.align_offset(ring, RING_ALIGN)
        gpu_wait = use_torch and hellofpga.has_wait_on_gpu()
        bad = 0
        with card.pin(ring) as pin, \
                card.open_stream(buffers=BUFFERS, buffer_size=size,
                                 pin=pin, gpu_offset=ring_off) as stream:
            start_source(card, a.frame_size, a.frames)
            t0 = time.monotonic()
            for i in range(a.frames):
                f = (stream.wait_on_gpu(cuda, 5000) if gpu_wait
                     else stream.wait(5000))
                if use_torch:
                    with torch.cuda.stream(cuda):
                        x = torch.from_dlpack(f)            # no copy
                        assert x.data_ptr() == ring.data_ptr() + f.gpu_offset
                        n = f.length // 256 * 256
                        score = model(x[:n].view(-1, 256).float() / 255).mean()
                        if a.verify and i % a.verify == 0:
                            want = torch.from_numpy(
                                pattern.make(f.sequence, f.length)).cuda()
                            bad += int(not torch.equal(x, want))
                    # the ring slot goes back once the GPU has read it
                    cuda.synchronize()
                    del x
                    score = float(score)
                else:
                    x = f.numpy()                          # no copy
                    score = float(x[:f.length // 256 * 256]
                                  .reshape(-1, 256).mean())
                    if a.verify and i % a.verify == 0:
                        try:
                            pattern.verify(x)
                        except ValueError:
                            bad += 1
                    del x
                f.release()
            dt = time.monotonic() - t0
            s = stream.stats()
        print(f"{a.frames} frames of {a.frame_size} bytes in {dt:.3f} s "
              f"({a.frames / dt:.0f} fps), {'torch' if use_torch else 'numpy'}"
              f"{' after GPU-side waits' if gpu_wait else ''}, last score "
              f"{score:.4f}, {bad} bad, {s.source_dropped} dropped")
        if not use_torch:
            ring.free()
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hellofpga.HelloFPGAError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
