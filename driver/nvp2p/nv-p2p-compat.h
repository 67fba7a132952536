/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * NVIDIA's nv-p2p.h as hellofpga-nvp2p.ko and nv-p2p-stub.ko see it.
 *
 * The Makefile finds the header and passes its full path as HF_NV_P2P_H,
 * so NVIDIA's driver directory never joins the include path.  Flavors:
 *   desktop (default)  nvidia.ko, open or proprietary, 535 and later:
 *                      kernel-open/nvidia/nv-p2p.h
 *   HF_NVP2P_TEGRA     Jetson L4T include/linux/nv-p2p.h (or our mirror,
 *                      driver/nvp2p/tegra/nv-p2p.h, for compile checks)
 * HF_NV_HAVE_CAP_PERSISTENT_PAGES: the driver tree exports
 * nvidia_p2p_cap_persistent_pages (not 535.261.03); declared here when the
 * header itself does not.
 */
#ifndef HF_NV_P2P_COMPAT_H
#define HF_NV_P2P_COMPAT_H

#include <linux/dma-mapping.h>
#include <linux/types.h>

#ifndef HF_NV_P2P_H
#error "HF_NV_P2P_H (path of nv-p2p.h) is set by driver/nvp2p/Makefile"
#endif
#include HF_NV_P2P_H

#if defined(HF_NV_HAVE_CAP_PERSISTENT_PAGES) && !defined(HF_NVP2P_TEGRA)
extern int nvidia_p2p_cap_persistent_pages;
#endif

#endif /* HF_NV_P2P_COMPAT_H */
