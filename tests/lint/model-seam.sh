#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# model-seam.sh SOURCE_DIR - the XDMA IP's model knows no design: nothing
# under model/ but the QEMU host (model/qemu/, which creates a card and
# attaches the reference design) includes a header of refdesign/ or names
# one of its registers (HF_USER_*, HF_ST_*); the user logic is reached only
# through model/xdma_user.h.  Prints each offending line and exits 1.
set -euo pipefail
cd "$1"
bad=$(grep -n -E '#include *"(\.\./)*(refdesign/)?(hf_refdesign|hf_user_regs|hf_stream_pattern)\.h"|\bHF_(USER|ST)_[A-Z_]+' \
	model/*.[ch] model/inproc/*.[ch] 2>/dev/null || true)
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	echo "model-seam: model/ reaches into the reference design (use model/xdma_user.h)"
	exit 1
fi
echo "model-seam: model/ includes nothing of refdesign/"
