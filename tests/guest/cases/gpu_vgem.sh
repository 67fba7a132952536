#!/bin/sh
# SPDX-License-Identifier: MIT
# gpu_vgem.sh - dma-buf pins (HELLOFPGA_PIN_DMABUF) through the real
# driver's dma-buf provider, with vgem (Debian's virtual GEM driver) as the
# exporter standing in for a GPU: vgem_pin (tests/guest/progs) pins whole
# buffers and sub-ranges, moves data both ways, checks the bytes through
# the dma-buf's mmap, refusals, a pin outliving the exporter's fd, a
# dma-buf exported read-only (H2C works, C2H is refused with EACCES),
# UNPIN, and closing the control node with pins alive.
#
# "hellofpga test" cannot run with dma-buf pins here: the library only
# gets dma-bufs from CUDA (cuMemGetHandleForAddressRange), and the
# emulated GPU has no exporter; that is reported as a SKIP.
#
# Under swiotlb=force the whole case is skipped: vgem's
# drm_gem_map_dma_buf() maps with DMA_ATTR_SKIP_CPU_SYNC, so the card's
# writes stay in the bounce buffers (an exporter limitation, not ours).
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
if grep -q -E 'swiotlb=([^ ]*,)?force' /proc/cmdline; then
	echo "SKIP vgem/all: swiotlb=force: vgem maps its dma-bufs with DMA_ATTR_SKIP_CPU_SYNC, so bounced DMA never reaches its pages (exporter limitation)"
	exit 0
fi
loaded=
# the load order the harness found (vgem and what it needs, which differs
# between kernels: 6.12's drm_shmem_helper needs drm_kms_helper)
order=$(cat "$MODS/vgem.order" 2>/dev/null) || order="drm drm_shmem_helper vgem"
for m in $order; do
	grep -q "^$m " /proc/modules && continue
	if [ ! -f "$MODS/$m.ko" ]; then
		echo "SKIP vgem/all: $MODS/$m.ko missing (the harness copies vgem and the modules it needs from the guest kernel's /lib/modules)"
		exit 0
	fi
	if ! insmod "$MODS/$m.ko" >/tmp/vg.out 2>&1; then
		echo "FAIL vgem/load: insmod $m.ko: $(head -c 200 /tmp/vg.out)"
		exit 1
	fi
	loaded="$m $loaded"
done
echo "PASS vgem/load"
timeout 300 vgem_pin -d "$CARD" >/tmp/vg.out 2>&1
rc=$?
cat /tmp/vg.out
if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/vg.out || { [ $rc != 0 ] && ! grep -q '^FAIL' /tmp/vg.out; }; then
	echo "FAIL vgem/vgem_pin: exit $rc without a result"
	rc=1
fi
echo "SKIP vgem/test: the library pins dma-bufs only as CUDA exports them; the emulated GPU has no dma-buf exporter, so hellofpga test cannot run over vgem"
for m in $loaded; do
	rmmod "$m" >/tmp/vg.out 2>&1 || {
		echo "FAIL vgem/unload: rmmod $m: $(head -c 200 /tmp/vg.out)"
		rc=1
	}
done
[ $rc = 0 ] && echo "PASS vgem/unload"
exit $rc
