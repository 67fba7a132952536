# SPDX-License-Identifier: GPL-2.0 OR MIT
# The project's one version, read from project(VERSION) in CMakeLists.txt
# (the only place it is written) for MODULE_VERSION; included by the Kbuild
# files with HF_TOP set to the tree's top directory.  A tree without
# CMakeLists.txt (the DKMS source, /usr/src/hellofpga-VERSION, whose
# dkms.conf is written from it) passes HF_VERSION=x.y.z on make's command
# line instead.
hf_lparen := (
ifneq ($(origin HF_VERSION),command line)
HF_VERSION := $(shell sed -n 's/^project$(hf_lparen)hellofpga VERSION \([0-9][0-9.]*\) .*/\1/p' $(HF_TOP)/CMakeLists.txt 2>/dev/null)
endif
ifeq ($(HF_VERSION),)
$(error no "project$(hf_lparen)hellofpga VERSION x.y.z" line in $(HF_TOP)/CMakeLists.txt and no HF_VERSION=x.y.z)
endif
ccflags-y += -DHF_VERSION='"$(HF_VERSION)"'
