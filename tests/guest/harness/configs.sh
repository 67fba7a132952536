# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# configs.sh - the guest configuration matrix, sourced by guest-ci.sh and
# run-config.sh.  hf_config NAME sets, for one configuration:
#   CFG_DESC      one line for people
#   CFG_ARCH      the guest's architecture: x86_64 (q35, Debian's amd64
#                 kernel) or aarch64 (virt, Debian's arm64 kernel; the
#                 modules and the user space cross-built)
#   CFG_KERNEL    the kernel an x86_64 guest boots: empty, Debian 12's
#                 (6.1, the one linux-headers-amd64 points at); 6.12,
#                 Debian's of bookworm-backports (hf_kernel_suite: the
#                 suite whose headers scripts/kernel-ci.sh builds against
#                 and whose linux-image its guest-image-SUITE step fetches)
#   CFG_MACHINE   QEMU -machine (q35; aarch64: virt,gic-version=3...)
#   CFG_MEM       guest RAM (-m)
#   CFG_SMP       vCPUs (-smp)
#   CFG_APPEND    extra kernel command line
#   CFG_QEMU      extra QEMU arguments before the card (array)
#   CFG_DEVICE    the card's -device argument
#   CFG_MODPARAMS hellofpga.ko parameters, comma separated (no spaces)
#   CFG_IRQ       the completion mode "hellofpga info" must report
#   CFG_CASES     extra built-in guest cases (see init), comma separated
#   CFG_TIMEOUT   seconds before the guest counts as hung
#   CFG_HOTPLUG   1: the card sits behind a pcie-root-port (rp0) with
#                 id=card, QEMU gets a QMP socket, and run-config.sh does
#                 QMP device_del / device_add when the guest asks for it on
#                 the console (cases/faults.sh, "hotplug/..." tests)
#   CFG_CARD2     a second card's -device argument: card 0 behind rp0
#                 (id=card), this one behind rp1 (id=card1), and the QMP
#                 socket with its "HF-QMP" request channel (cases ask for
#                 device_del / device_add of either); empty: one card
#   CFG_QMP       1: the card behind rp0 (id=card) and the QMP socket with
#                 its "HF-QMP" request channel, without CFG_HOTPLUG's
#                 hotplug test (the stream configurations: AER under a ring)
#   CFG_ONLY      what the guest runs, comma separated, instead of the
#                 whole suite: built-ins (info, demo, test, lib) and case
#                 scripts by name (stop64 for cases/stop64.sh); the load,
#                 unload, reload and dmesg checks and CFG_CASES always run;
#                 empty: everything; HF_GUEST_ONLY (same form) replaces it
#                 in every configuration, for a quicker run by hand
#   CFG_PLUGIN    a TCG plugin QEMU loads: insn (tests/guest/plugin/hf_insn.c,
#                 built by scripts/build-qemu.sh: guest kernel and user
#                 instructions between marker instructions, for
#                 cases/insn.sh; the guest gets hf_insn=1), with plugin
#                 arguments after a comma (insn,count=insn); empty: none.
#                 HF_GUEST_PLUGIN (same form, or none) replaces it in
#                 every configuration
# Every configuration's card has the guest fault/counter window
# (fault-regs=on, BAR0 + 0xf000; model/qemu/README.md), used by
# cases/faults.sh and cases/efficiency.sh; HF_GUEST_DEVICE gets it added
# unless it says fault-regs= itself.
# Returns 1 for an unknown NAME.

HF_CONFIGS=(msix msi legacy poll viommu swiotlb highmem smp2 twocards fuzz
	stream stream-poll stream-rtl k6.12-msix k6.12-viommu arm64-msix arm64-smmu insn-msix insn-poll)

# What the arm64 guests run (tests/guest/README.md, "Configurations"): the
# CLI, the library tests and the Tegra flavor of nvidia_p2p (the one Jetson
# has), on arm64's DMA, MSI-X (GICv3 ITS) and IOMMU (SMMUv3) paths; the
# rest of the suite checks the driver's own logic, which the x86 guests
# cover.
HF_ARM64_ONLY=info,demo,test,lib,gpu_nvp2p_tegra

# What the 6.12 guests run (tests/guest/README.md, "Configurations"): the
# driver on another kernel's APIs, those its probes switch between 6.1 and
# 6.12 (pcim_iomap_region and class_create at probe and remove,
# vm_flags_set at mmap, AER) and those it calls alike (pin_user_pages,
# dma-buf, PCI hotplug).  msix: every case of one MSI-X card but the Tegra
# stand-in; viommu: what maps DMA (user pins, the Tegra stand-in, dma-buf,
# a rebind) under the strict vIOMMU and slub_debug.
# What the x86 configurations besides msix and viommu run (tests/guest/
# README.md, "Configurations"): the cases whose path the configuration
# changes, not the whole suite again.  msix runs every case; viommu every
# case but the packages' udev rule again.
#   msi, legacy: the interrupt mode: completions, user interrupts, the
#     stop path's wake-ups (transfers, events, faults, hang, stuck)
#   poll: the poll-mode writeback: the same, the efficiency counters and
#     the nvidia_p2p free callback under a polling wait
#   swiotlb: every DMA mapping bounced: transfers, pins, dma-buf, the stop
#     path's data (not the nvidia_p2p stand-ins: their mappings are the
#     stand-in's own, never bounced on a real GPU)
#   highmem: buffers above 4 GiB and a 64-bit user BAR: transfers, pins,
#     dma-buf, nvidia_p2p, the user BAR's mmap (privsep)
#   smp2: two vCPUs: the concurrent case, transfers, events, the stop path
#     and the nvidia_p2p free callback racing them
HF_IRQ_ONLY=info,demo,test,lib,events,faults,hang,stuck
HF_POLL_ONLY=$HF_IRQ_ONLY,efficiency,gpu_nvp2p
HF_SWIOTLB_ONLY=info,demo,test,lib,pins,gpu_vgem,faults,hang
HF_HIGHMEM_ONLY=info,demo,test,lib,pins,gpu_vgem,gpu_nvp2p,privsep
HF_SMP2_ONLY=info,demo,test,lib,events,faults,hang,stuck,pins,gpu_nvp2p

HF_K612_MSIX_ONLY=info,demo,test,lib,aer,faults,gpu_nvp2p,gpu_vgem,hang,pins,privsep,stuck,xilinx-compat
HF_K612_VIOMMU_ONLY=info,test,pins,gpu_vgem,gpu_nvp2p_tegra,rebind

# hf_kernel_suite KERNEL: the Debian suite of a CFG_KERNEL (the headers'
# and image's, scripts/kernel-ci.sh SUITES); 1 for an unknown one
hf_kernel_suite() {
	case $1 in
	6.12) echo bookworm-backports ;;
	*) return 1 ;;
	esac
}

hf_config() {
	CFG_DESC= CFG_ARCH=x86_64 CFG_KERNEL= CFG_MACHINE=q35
	CFG_MEM=1G CFG_SMP=1 CFG_APPEND= CFG_QEMU=()
	CFG_DEVICE=${HF_GUEST_DEVICE:-xdma-sim}
	CFG_MODPARAMS= CFG_IRQ=msix CFG_CASES= CFG_TIMEOUT=${HF_GUEST_TIMEOUT:-300}
	CFG_HOTPLUG= CFG_CARD2= CFG_QMP= CFG_ONLY= CFG_PLUGIN=
	case $CFG_DEVICE in
	*fault-regs=*) ;;
	*) CFG_DEVICE+=,fault-regs=on ;;
	esac
	case $1 in
	msix)
		CFG_DESC="MSI-X, one vector per engine (irq_mode=msix); QMP device_del during a transfer"
		CFG_MODPARAMS=irq_mode=msix
		CFG_HOTPLUG=1
		CFG_CASES=udev
		;;
	msi)
		CFG_DESC="MSI (irq_mode=msi)"
		CFG_MODPARAMS=irq_mode=msi CFG_IRQ=msi
		CFG_ONLY=$HF_IRQ_ONLY
		;;
	legacy)
		CFG_DESC="legacy INTx (irq_mode=legacy)"
		CFG_MODPARAMS=irq_mode=legacy CFG_IRQ=legacy
		CFG_ONLY=$HF_IRQ_ONLY
		;;
	poll)
		CFG_DESC="poll-mode writeback, no interrupts (poll_mode=1)"
		CFG_MODPARAMS=poll_mode=1 CFG_IRQ=poll
		CFG_ONLY=$HF_POLL_ONLY
		;;
	insn-msix | insn-poll)
		# guest instructions per transfer (cases/insn.sh) under the
		# hf_insn plugin, in a guest of their own: a loaded plugin makes
		# all of TCG slower (about 10 %: every block is translated with
		# its hooks), too much for a whole suite; this one boots and runs
		# only that (about 5 s on an idle core)
		CFG_DESC="guest instructions per transfer (TCG plugin hf_insn), ${1#insn-}"
		if [ "$1" = insn-msix ]; then
			CFG_MODPARAMS=irq_mode=msix
		else
			CFG_MODPARAMS=poll_mode=1 CFG_IRQ=poll
		fi
		CFG_PLUGIN=insn
		CFG_ONLY=insn
		;;
	viommu)
		CFG_DESC="emulated Intel VT-d, strict invalidation (intel_iommu=on iommu.strict=1), slab debugging (slub_debug=FZPU)"
		CFG_QEMU=(-device intel-iommu,intremap=off)
		CFG_APPEND="intel_iommu=on iommu.strict=1 slub_debug=FZPU"
		CFG_CASES=iommu
		;;
	swiotlb)
		CFG_DESC="every DMA mapping bounced (swiotlb=force, 256 MiB pool)"
		# 131072 slabs of 2 KiB: "hellofpga test" pins 64 MiB buffers
		# (PIN_HOST keeps them mapped, i.e. bounced, while pinned) and
		# then moves 64 MiB through the CPU path; the default 64 MiB
		# pool runs out (see tests/guest/README.md)
		CFG_APPEND="swiotlb=131072,force"
		CFG_CASES=swiotlb
		CFG_ONLY=$HF_SWIOTLB_ONLY
		;;
	highmem)
		CFG_DESC="5 GiB guest, buffers above 4 GiB; an 8 GiB 64-bit user BAR"
		CFG_MEM=5G
		# GET_INFO and mmap of a user BAR over 4 GiB (cases/privsep.sh)
		case $CFG_DEVICE in
		*user-bar-size=*) ;;
		*) CFG_DEVICE+=,user-bar-size=8G ;;
		esac
		CFG_CASES=highmem
		CFG_ONLY=$HF_HIGHMEM_ONLY
		;;
	smp2)
		CFG_DESC="2 vCPUs, 6 processes on 4 channels at once"
		CFG_SMP=2
		CFG_CASES=concurrent
		CFG_ONLY=$HF_SMP2_ONLY
		;;
	twocards)
		CFG_DESC="two cards (4+4 channels, 2 GiB; 2+1 channels, 512 MiB on a PCIe Gen1 x1 link), vIOMMU (strict), slub_debug; stop path, hang, unplug"
		CFG_QEMU=(-device intel-iommu,intremap=off)
		CFG_APPEND="intel_iommu=on iommu.strict=1 slub_debug=FZPU"
		# card 1 (hellofpga1): other channel counts and memory size, and a
		# slow link, so that one 64 MiB descriptor takes ~290 ms
		CFG_CARD2=xdma-sim,h2c=2,c2h=1,ddr-size=512M,link=gen1x1,fault-regs=on
		# not the whole suite: what needs two cards, the slow link, the
		# vIOMMU or slub_debug (tests/guest/README.md, "Configurations")
		CFG_ONLY=info,stop64,twocards,hang,pins
		CFG_CASES=iommu
		;;
	fuzz)
		# the fuzzer (cases/fuzz.sh) alone: a memory-mapped card on a
		# slow link (transfers long enough for a forged writeback word
		# to come first) and an AXI-Stream card (rings, H2C packets),
		# each behind a root port with the QMP channel (AER mid-run),
		# under the strict vIOMMU and slub_debug; poll mode, then MSI-X
		CFG_DESC="the fuzzer: a memory-mapped card on a PCIe Gen1 x1 link and an AXI-Stream card, vIOMMU (strict), slub_debug, AER errors mid-run; poll mode, then MSI-X"
		CFG_QEMU=(-device intel-iommu,intremap=off)
		CFG_APPEND="intel_iommu=on iommu.strict=1 slub_debug=FZPU hf_fuzz=30"
		CFG_MODPARAMS=irq_mode=msix
		case $CFG_DEVICE in
		*link=*) ;;
		*) CFG_DEVICE+=,link=gen1x1 ;;
		esac
		CFG_CARD2=xdma-sim,st=on,fault-regs=on
		CFG_ONLY=fuzz
		CFG_CASES=iommu
		;;
	stream | stream-poll)
		# an AXI-Stream card (xdma-sim,st=on): memory-mapped transfers
		# are refused on it, so only what streams runs (cases/stream.sh)
		if [ "$1" = stream ]; then
			CFG_DESC="AXI-Stream card (st=on), MSI-X: C2H stream rings"
			CFG_MODPARAMS=irq_mode=msix
		else
			CFG_DESC="AXI-Stream card (st=on), poll-mode writeback: C2H stream rings"
			CFG_MODPARAMS=poll_mode=1 CFG_IRQ=poll
		fi
		CFG_DEVICE+=,st=on
		# behind a root port with QMP: an AER error under a running ring
		CFG_QMP=1
		CFG_ONLY=info,stream
		;;
	stream-rtl)
		# the same card with the reference design's RTL as its user logic
		# (xdma-sim,rtl=on: the Verilator model, refdesign/sim/): the
		# real hellofpga.ko against the real RTL: its user BAR, user
		# interrupts and streams (cases/events.sh and cases/stream.sh:
		# tests/guest/README.md)
		CFG_DESC="AXI-Stream card (st=on) with the reference design's RTL (rtl=on), MSI-X"
		CFG_MODPARAMS=irq_mode=msix
		CFG_DEVICE+=,st=on,rtl=on
		CFG_QMP=1
		CFG_ONLY=info,events,stream
		;;
	k6.12-msix)
		CFG_DESC="Debian's 6.12 kernel (bookworm-backports), MSI-X; QMP device_del during a transfer"
		CFG_KERNEL=6.12
		CFG_MODPARAMS=irq_mode=msix
		CFG_HOTPLUG=1
		CFG_ONLY=$HF_K612_MSIX_ONLY
		;;
	k6.12-viommu)
		CFG_DESC="Debian's 6.12 kernel, emulated Intel VT-d (strict), slub_debug"
		CFG_KERNEL=6.12
		CFG_QEMU=(-device intel-iommu,intremap=off)
		CFG_APPEND="intel_iommu=on iommu.strict=1 slub_debug=FZPU"
		CFG_ONLY=$HF_K612_VIOMMU_ONLY
		CFG_CASES=iommu
		;;
	arm64-msix)
		CFG_DESC="arm64: virt, GICv3 (ITS), MSI-X (irq_mode=msix), no IOMMU"
		CFG_ARCH=aarch64 CFG_MACHINE=virt,gic-version=3
		CFG_MODPARAMS=irq_mode=msix
		CFG_ONLY=$HF_ARM64_ONLY
		;;
	arm64-smmu)
		CFG_DESC="arm64: virt, GICv3 (ITS), MSI-X behind the SMMUv3 (strict invalidation)"
		CFG_ARCH=aarch64 CFG_MACHINE=virt,gic-version=3,iommu=smmuv3
		CFG_MODPARAMS=irq_mode=msix
		CFG_APPEND="iommu.strict=1"
		CFG_ONLY=$HF_ARM64_ONLY
		CFG_CASES=iommu
		;;
	*)
		return 1
		;;
	esac
	[ -n "${HF_GUEST_ONLY:-}" ] && CFG_ONLY=$HF_GUEST_ONLY
	[ -n "${HF_GUEST_PLUGIN:-}" ] && CFG_PLUGIN=$HF_GUEST_PLUGIN
	[ "$CFG_PLUGIN" = none ] && CFG_PLUGIN=
	return 0
}
