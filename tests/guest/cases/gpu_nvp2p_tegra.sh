#!/bin/sh
# SPDX-License-Identifier: MIT
# gpu_nvp2p_tegra.sh - gpu_nvp2p.sh with the Tegra flavor: the stand-in
# pins ordinary user memory in 4 KiB pages behind an MMU notifier, the
# provider is hellofpga-nvp2p.ko's Tegra flavor, the library's GPU is the
# emulated Tegra one (HELLOFPGA_GPU=emu-tegra).  Lines: nvp2p-tegra/...
export TEGRA=1
exec sh "$(dirname "$0")/gpu_nvp2p.sh"
