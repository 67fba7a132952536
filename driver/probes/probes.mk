# SPDX-License-Identifier: GPL-2.0
#
# Kernel feature probes (probe.sh): $(obj)/hf_features.h, included by
# compat.h, says which kernel APIs the tree built against has.  Each
# probes/NAME.c is a few lines in the form the API must have; it is compiled
# with the kernel's compiler and the flags kbuild compiles a module with
# (c_flags of scripts/Makefile.lib, less the per-file ones), without the
# -Werror of KCFLAGS, with as errors only the diagnostics that mean the
# API differs.  The header is remade when a probe or the command (compiler,
# flags, kernel tree) changes.  Included by driver/Kbuild, which makes its
# objects depend on $(obj)/hf_features.h.
hf-probe-dir := $(src)/probes
hf-probes := $(sort $(wildcard $(hf-probe-dir)/*.c))
hf-probe-flags = $(filter-out -Werror -Werror=%, \
	$(NOSTDINC_FLAGS) $(LINUXINCLUDE) \
	$(if $(wildcard $(srctree)/include/linux/compiler_types.h), \
		-include $(srctree)/include/linux/compiler_types.h) \
	$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE)) \
	-DKBUILD_MODNAME='"hf_probe"' -DKBUILD_BASENAME='"hf_probe"' \
	-Wno-missing-prototypes -Wno-missing-declarations \
	-Werror=implicit-function-declaration -Werror=implicit-int \
	-Werror=incompatible-pointer-types -Werror=int-conversion

quiet_cmd_hf_probes = PROBE   $@
      cmd_hf_probes = $(CONFIG_SHELL) $(hf-probe-dir)/probe.sh $@ \
		      $(hf-probes) -- $(CC) $(hf-probe-flags)

$(obj)/hf_features.h: $(hf-probes) $(hf-probe-dir)/probe.sh FORCE
	$(call if_changed,hf_probes)

targets += hf_features.h
clean-files += hf_features.h hf_features.h.log
ccflags-y += -I$(obj)
