#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A frame grabber's loop feeding a torch model from a GPU ring, completed
on the GPU.

The card's C2H AXI-Stream channel fills a ring of buffers in GPU memory (a
GPU Direct pin).  For each frame the loop queues, a few frames ahead, a
GPU-side wait (Stream.wait_on_gpu: the CUDA stream waits for the card's
writeback, no CPU thread is woken for it) and then the model on the ring
slot (a torch tensor viewing it, no copy), so the model starts when the
frame lands.  The CPU only takes each buffer (Stream.wait) and queues its
release behind the model (Stream.release_on_gpu: the GPU stream gives it
back to the card once the model read it).  Every Nth frame is compared
with the reference design's pattern on the GPU.

    HELLOFPGA_DEVICE=emu:0,st python3 frame_loop_torch.py --frames 1000

Without PyTorch and CUDA (CI) the ring is the emulated GPU's memory, the
CUDA stream a hellofpga.GPUStream of the emulated GPU, and a host function
queued on it (NumPy on the slot) stands in for the model: the same waits
and releases.
"""
import argparse
import sys
import time

import hellofpga
from hellofpga import pattern, regs

BUFFERS = 8
AHEAD = BUFFERS // 2        # GPU waits queued ahead of the frames
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


def wait_on_gpu(stream, gpu_stream):
    """The GPU-side wait for the next frame.  ERANGE means it is a whole
    ring ahead of the buffers given back: the GPU stream is behind (its
    releases have not run yet); let the library see them and try again."""
    while True:
        try:
            return stream.wait_on_gpu(gpu_stream)
        except hellofpga.HelloFPGAError as e:
            if e.name != "ERANGE":
                raise
        stream.stats()              # any call on the stream takes them
        time.sleep(0.0001)


class TorchConsumer:
    """The model and the check, queued on a CUDA stream."""

    def __init__(self, torch, ring, frame_size, verify):
        self.torch = torch
        self.ring = ring
        self.size = frame_size
        self.verify = verify
        self.cuda = torch.cuda.Stream()
        self.model = torch.nn.Sequential(torch.nn.Linear(256, 64),
                                         torch.nn.ReLU(),
                                         torch.nn.Linear(64, 1)).cuda()
        self.bad = torch.zeros((), dtype=torch.int64, device="cuda")
        self.score = None
        # the model's weights were set on the default stream; torch's
        # streams do not wait for it (non-blocking)
        torch.cuda.synchronize()

    def queue(self, w):
        torch = self.torch
        with torch.cuda.stream(self.cuda):
            x = self.ring[w.gpu_offset:w.gpu_offset + self.size]  # no copy
            n = self.size // 256 * 256
            self.score = self.model(x[:n].view(-1, 256).float() / 255).mean()
            if self.verify and w.sequence % self.verify == 0:
                want = torch.from_numpy(pattern.make(w.sequence, self.size))
                want = want.pin_memory().to("cuda", non_blocking=True)
                self.bad += (x != want).any()

    def finish(self):
        self.cuda.synchronize()
        return int(self.bad), float(self.score)


class EmulatedConsumer:
    """The emulated GPU: a host function per frame on a GPUStream."""

    def __init__(self, ring_view, frame_size, verify):
        self.ring = ring_view
        self.size = frame_size
        self.verify = verify
        self.cuda = hellofpga.GPUStream()
        self.bad = 0
        self.score = 0.0

    def _consume(self, w):
        r = w.read()                # the GPU passed the wait: it is there
        if r.error or r.length != self.size:
            self.bad += 1
            return
        x = self.ring[w.gpu_offset:w.gpu_offset + r.length]
        n = r.length // 256 * 256
        self.score = float(x[:n].reshape(-1, 256).mean())
        if self.verify and w.sequence % self.verify == 0:
            try:
                pattern.verify(x)
            except ValueError:
                self.bad += 1

    def queue(self, w):
        self.cuda.launch_host_func(self._consume, w)

    def finish(self):
        self.cuda.synchronize()     # raises a host function's exception
        self.cuda.destroy()
        return self.bad, self.score


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
    if not use_torch and not st.emulated:
        print("a real GPU needs PyTorch with CUDA here (or run with "
              "HELLOFPGA_GPU=emu)", file=sys.stderr)
        return 2

    with hellofpga.Card() as card:
        if use_torch:
            big = torch.empty(BUFFERS * size + RING_ALIGN,
                              dtype=torch.uint8, device="cuda")
            off = hellofpga.align_offset(big, RING_ALIGN)
            ring = big[off:off + BUFFERS * size]
            cons = TorchConsumer(torch, ring, a.frame_size, a.verify)
            ring_off = 0
        else:
            mem = hellofpga.gpu_alloc(BUFFERS * size + RING_ALIGN)
            ring_off = hellofpga.align_offset(mem, RING_ALIGN)
            view = mem.numpy()
            ring = view[ring_off:]
            cons = EmulatedConsumer(ring, a.frame_size, a.verify)
            ring = mem
        bad = 0
        with card.pin(ring) as pin, \
                card.open_stream(buffers=BUFFERS, buffer_size=size,
                                 pin=pin, gpu_offset=ring_off) as stream:
            start_source(card, a.frame_size, a.frames)
            t0 = time.monotonic()
            queued = 0
            for k in range(a.frames):
                # the consumer of frames k .. k + AHEAD - 1 is queued on the
                # GPU stream behind their waits before they land
                while queued < a.frames and queued < k + AHEAD:
                    cons.queue(wait_on_gpu(stream, cons.cuda))
                    queued += 1
                f = stream.wait(5000)       # the CPU takes the buffer ...
                if f.sequence != k or f.length != a.frame_size:
                    bad += 1
                stream.release_on_gpu(cons.cuda, f)   # ... the GPU frees it
            gpu_bad, score = cons.finish()
            bad += gpu_bad
            dt = time.monotonic() - t0
            s = stream.stats()
        print(f"{a.frames} frames of {a.frame_size} bytes in {dt:.3f} s "
              f"({a.frames / dt:.0f} fps), "
              f"{'torch' if use_torch else 'host functions (emulated GPU)'} "
              f"after GPU-side waits, released on the GPU, last score "
              f"{score:.4f}, {bad} bad, {s.source_dropped} dropped")
        if not use_torch:
            del view, cons
            mem.free()
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hellofpga.HelloFPGAError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
