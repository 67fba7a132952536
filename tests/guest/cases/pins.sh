#!/bin/sh
# SPDX-License-Identifier: MIT
# pins.sh - PIN, XFER and UNPIN attacked as a hostile but fair user would,
# through the real driver (tests/guest/progs):
#   hf_pin_race   PIN with its argument in a read-only page (copy_to_user
#                 fails after the pin was made) while other threads UNPIN the
#                 handles it is getting: every PIN fails with EFAULT, no UNPIN
#                 finds an unpublished handle, nothing is left pinned; under
#                 slub_debug (the viommu configuration) a double teardown
#                 would crash the guest
#   hf_sync_race  concurrent XFERs over different ranges of one host pin, on
#                 their own channels, every byte checked (under swiotlb a
#                 whole-pin sync around a run loses other ranges' data)
#   hf_memlock    max_pins per open file (ENOSPC) and RLIMIT_MEMLOCK of an
#                 unprivileged pinner (ENOMEM), descriptor storage included
#   hf_unpin_keep what the CPU wrote after the last transfer survives UNPIN
#                 and close (under swiotlb the bounce buffer must not be
#                 copied back over it)
#   hf_wb         XFER with HELLOFPGA_XFER_WB: the run's writeback in a word
#                 of a host pin (the descriptor count; a failed run's mark;
#                 the refusals, a word without HELLOFPGA_XFER_WB_ROOM bytes
#                 of the pin and a timeout_ms over the cap among them; a
#                 word forged "done" by another thread while the engine is
#                 stalled, in MSI-X mode with stray interrupts, ends nothing
#                 before the engine; the library's Submit with a GPU wait);
#                 under swiotlb=force refused (EOPNOTSUPP)
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
hf_prog pins 60 hf_pin_race -s 3 -d "$CARD"
hf_prog pins 60 hf_sync_race -s 3 -d "$CARD"
hf_prog pins 120 hf_memlock -d "$CARD"
hf_prog pins 60 hf_unpin_keep -d "$CARD"
# every mapping bounces: a GPU could not watch a writeback word
bflag=
grep -q 'swiotlb=[^ ]*force' /proc/cmdline && bflag=-b
hf_prog pins 60 hf_wb -d "$CARD" $bflag
exit $hf_rc
