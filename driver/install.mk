# SPDX-License-Identifier: GPL-2.0 OR MIT
# "make install" of driver/Makefile and driver/nvp2p/Makefile, for people
# who do not use the packages (README, "Install without packages"):
# modules_install into /lib/modules/KVER/$(INSTALL_MOD_DIR), then depmod.
# Included after KVER and KDIR are set.
#
# The kernel release is KVER when given, else the one KDIR's path names
# (/lib/modules/X/build, /usr/src/linux-headers-X), else uname -r.  It is
# passed to kbuild as KERNELRELEASE: Debian's headers carry the upstream
# release in include/config/kernel.release (6.1.192, not 6.1.0-57-amd64),
# and modules_install would install there.  depmod runs here because
# kbuild skips it where there is no System.map (Debian's headers).
# INSTALL_MOD_PATH=DIR installs under DIR (a staging root); INSTALL_MOD_DIR
# (default updates) is the directory below /lib/modules/KVER.
INSTALL_MOD_DIR ?= updates
hf_kdir := $(patsubst %/,%,$(KDIR))
hf_kdir_kver := $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(hf_kdir))) \
	$(patsubst /usr/src/linux-headers-%,%,$(filter /usr/src/linux-headers-%,$(hf_kdir)))
HF_INSTALL_KVER := $(if $(filter command line environment,$(origin KVER)),$(KVER),$(or \
	$(firstword $(hf_kdir_kver)),$(KVER)))

# $(call hf_modules_install,KBUILD ARGS): the recipe (-C KDIR M=DIR ...)
define hf_modules_install
	$(MAKE) $(1) KERNELRELEASE=$(HF_INSTALL_KVER) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(HF_INSTALL_KVER)
endef
