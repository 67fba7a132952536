// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hellofpga-nvp2p.ko, the real nvidia_p2p provider, built here so that
 * modpost links it against nvp2p-standin.ko of the same build.
 */
#include "../../../../driver/nvp2p/hf_nvp2p.c"
