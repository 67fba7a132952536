# SPDX-License-Identifier: GPL-2.0 OR MIT
# The kernel driver/Makefile and driver/nvp2p/Makefile build for: the
# running one, or KVER= (KERNELDIR= as DKMS passes it, or KDIR=, the build
# tree itself).  Never another kernel's headers: a module built for one
# does not load into another.  "need-kdir" stops with what to do when the
# tree is not there.
KVER ?= $(shell uname -r)
KDIR ?= $(or $(KERNELDIR),/lib/modules/$(KVER)/build)

# included before the including Makefile's first rule: "all" stays the
# default goal
.DEFAULT_GOAL := all
.PHONY: need-kdir
need-kdir:
ifeq ($(wildcard $(KDIR)/Makefile),)
ifeq ($(origin KDIR)$(KERNELDIR),file)
	@echo "no headers for kernel $(KVER): install linux-headers-$(KVER) or set KDIR=" >&2
else
	@echo "$(if $(KERNELDIR),KERNELDIR,KDIR)=$(KDIR) is not a kernel build tree (no Makefile there)" >&2
endif
	@exit 1
endif
