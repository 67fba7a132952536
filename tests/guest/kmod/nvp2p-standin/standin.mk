# SPDX-License-Identifier: GPL-2.0
# Kbuild part shared by nvp2p-standin/ (desktop) and nvp2p-standin-tegra/:
# finds nv-p2p.h and sets the flags driver/nvp2p/Makefile sets for the
# provider (HF_NV_P2P_H, HF_NVP2P_TEGRA, HF_NV_HAVE_CAP_PERSISTENT_PAGES).
# The including Kbuild sets hf_tegra (y or empty) first.
#
# nv-p2p.h: HF_NV_P2P_H (a path) if given, else in NVIDIA_SRC_DIR (a
# driver tree: nv-p2p.h, nvidia/nv-p2p.h, kernel-open/nvidia/nv-p2p.h or
# include/linux/nv-p2p.h); desktop default: the cache of
# scripts/fetch-nv-p2p.sh (/var/cache/hellofpga or ~/.cache/hellofpga);
# Tegra default: our mirror driver/nvp2p/tegra/nv-p2p.h.
hf_repo := $(abspath $(src)/../../../..)
hf_nv_in = $(firstword $(wildcard $(addprefix $(1)/,nv-p2p.h \
	nvidia/nv-p2p.h kernel-open/nvidia/nv-p2p.h include/linux/nv-p2p.h)))

ifeq ($(HF_NV_P2P_H),)
ifneq ($(NVIDIA_SRC_DIR),)
HF_NV_P2P_H := $(call hf_nv_in,$(abspath $(NVIDIA_SRC_DIR)))
else ifeq ($(hf_tegra),y)
HF_NV_P2P_H := $(hf_repo)/driver/nvp2p/tegra/nv-p2p.h
else
HF_NV_P2P_H := $(firstword $(wildcard \
	/var/cache/hellofpga/nvidia-open/src/*/*/nvidia/nv-p2p.h \
	$(HOME)/.cache/hellofpga/nvidia-open/src/*/*/nvidia/nv-p2p.h))
endif
endif
ifeq ($(HF_NV_P2P_H),)
$(error nvp2p-standin: no NVIDIA nv-p2p.h: set NVIDIA_SRC_DIR=$$(scripts/fetch-nv-p2p.sh), or run that script once to fill its cache)
endif

hf_nv_cap := $(if $(hf_tegra),,$(if $(shell grep -ls nvidia_p2p_cap_persistent_pages \
	$(HF_NV_P2P_H) $(dir $(HF_NV_P2P_H))nv-p2p.c),y))

ccflags-y += -DHF_NV_P2P_H='"$(HF_NV_P2P_H)"' -I$(hf_repo)/driver/nvp2p
ccflags-$(hf_tegra) += -DHF_NVP2P_TEGRA
ccflags-$(hf_nv_cap) += -DHF_NV_HAVE_CAP_PERSISTENT_PAGES
