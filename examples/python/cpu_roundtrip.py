#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host memory -> card -> host memory (examples/cpu_roundtrip.c in Python).

    HELLOFPGA_DEVICE=emu python3 cpu_roundtrip.py
"""
import os
import sys

import hellofpga


def main() -> int:
    data = os.urandom(1 << 20)
    with hellofpga.Card() as card:
        info = card.info()
        print(f"{info.name}: {info.backend_name}, {info.num_h2c} H2C / "
              f"{info.num_c2h} C2H channels, {info.ddr_size >> 20} MiB")
        card.write_h2c(data, 0x1000)
        back = card.read(0x1000, len(data))
    ok = back == data
    print(f"1 MiB round trip: {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except hellofpga.HelloFPGAError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
