// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hf_insn - a QEMU TCG plugin (QEMU 7.2, plugin API version 1) that counts
 * the guest instructions executed in kernel mode and in user mode, per
 * vCPU, between two marker instructions a guest program executes.
 *
 *   qemu-system-x86_64 -plugin PATH/hf_insn.so[,count=tb|insn] \
 *                      -d plugin -D LOGFILE ...
 *
 * Kernel or user: an instruction counts as kernel when its virtual address
 * has bit 63 set.  On x86_64 that is the upper canonical half
 * (>= 0xffff800000000000), where Linux keeps its text, modules and
 * trampolines; user space lives in the lower half.  (The privilege level
 * itself cannot be read: API version 1 has no register access.)  A
 * translation block never crosses the two halves, so each block is
 * either kernel or user.
 *
 * Markers: 7.2 cannot read registers either, so a guest program delimits
 * a measurement with a multi-byte NOP whose displacement carries the
 * request, recognised by its bytes when the block is translated:
 *
 *   nopl HF_INSN_MAGIC|op<<12|label(%rax)    0f 1f 80 <disp32, little endian>
 *
 * with op 1 (start) or 2 (stop) and label 0..4095.  The marker gets an
 * execution callback, so only an executed marker counts.  At a start the
 * vCPU's counters are noted; at the stop of the same label on that vCPU
 * one line goes to QEMU's log (-d plugin, -D FILE):
 *
 *   HF-INSN vcpu=V label=N kernel_insns=K user_insns=U
 *
 * K and U are every instruction that vCPU executed from the start marker
 * (counted) to the stop marker (not counted): the program's own, the
 * system calls, interrupts, softirqs, other tasks and the idle loop that
 * ran on it meanwhile.
 *
 * Counting: count=tb (default) adds a block's instruction count when the
 * block starts, an inline add (one host add per block, cheap); a block
 * left early by an exception (a page fault) still counts whole.
 * count=insn adds one per instruction (exact; the guest runs slower,
 * which changes what the asynchronous card and timers do meanwhile).
 * Blocks holding a marker are always counted per instruction, so the
 * span starts and ends exactly at the markers.  Inline adds go to one
 * memory location for every vCPU (7.2 has no per-vCPU inline storage):
 * with one vCPU they are the counters; with more, each block gets an
 * execution callback with the vCPU's index instead (slower, still per
 * vCPU).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* the marker's displacement: magic in bits 31..16, op in 15..12, label */
#define HF_INSN_MAGIC	0x48460000u	/* "HF" */
#define HF_INSN_START	1u
#define HF_INSN_STOP	2u
#define HF_INSN_LABELS	4096u

#define KERNEL_HALF	(1ull << 63)

struct vcpu_cnt {
	uint64_t kern;
	uint64_t user;
	/* at the open start marker */
	uint64_t kern0;
	uint64_t user0;
	int label;	/* -1: none open */
};

static struct vcpu_cnt *vcpus;
static int nvcpus;
static bool per_insn;	/* count=insn */
static bool shared;	/* one vCPU: inline adds on vcpus[0] */

static uint64_t *counter(bool kern)
{
	return kern ? &vcpus[0].kern : &vcpus[0].user;
}

/* userdata of a counting callback: the count, and bit 63 for kernel */
static void count_cb(unsigned int vcpu, void *udata)
{
	uint64_t v = (uintptr_t)udata;

	if ((int)vcpu >= nvcpus)
		return;
	if (v & KERNEL_HALF)
		vcpus[vcpu].kern += v & ~KERNEL_HALF;
	else
		vcpus[vcpu].user += v;
}

static void marker_cb(unsigned int vcpu, void *udata)
{
	unsigned int code = (uintptr_t)udata;
	unsigned int op = (code >> 12) & 0xf, label = code & 0xfff;
	struct vcpu_cnt *c;
	char line[160];

	if ((int)vcpu >= nvcpus)
		return;
	c = &vcpus[vcpu];
	if (op == HF_INSN_START) {
		c->kern0 = c->kern;
		c->user0 = c->user;
		c->label = label;
		return;
	}
	if (c->label != (int)label) {
		snprintf(line, sizeof(line),
			 "HF-INSN vcpu=%u label=%u error=stop-without-start open=%d\n",
			 vcpu, label, c->label);
		qemu_plugin_outs(line);
		return;
	}
	snprintf(line, sizeof(line),
		 "HF-INSN vcpu=%u label=%u kernel_insns=%" PRIu64 " user_insns=%" PRIu64 "\n",
		 vcpu, label, c->kern - c->kern0, c->user - c->user0);
	qemu_plugin_outs(line);
	c->label = -1;
}

/* The marker code of @insn, or 0 when it is none. */
static unsigned int marker_code(struct qemu_plugin_insn *insn)
{
	const uint8_t *b;
	uint32_t disp;
	unsigned int op;

	if (qemu_plugin_insn_size(insn) != 7)
		return 0;
	b = qemu_plugin_insn_data(insn);
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return 0;
	disp = b[3] | b[4] << 8 | b[5] << 16 | (uint32_t)b[6] << 24;
	if ((disp & 0xffff0000u) != HF_INSN_MAGIC)
		return 0;
	op = (disp >> 12) & 0xf;
	if (op != HF_INSN_START && op != HF_INSN_STOP)
		return 0;
	return disp & 0xffff;
}

static void count_insn(struct qemu_plugin_insn *insn, bool kern)
{
	if (shared)
		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64, counter(kern), 1);
	else
		qemu_plugin_register_vcpu_insn_exec_cb(insn, count_cb,
			QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)(1 | (kern ? KERNEL_HALF : 0)));
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	bool kern = qemu_plugin_tb_vaddr(tb) & KERNEL_HALF;
	bool marked = false;

	/* user space only: the kernel never executes a marker */
	for (i = 0; !kern && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		unsigned int code = marker_code(insn);

		if (!code)
			continue;
		/* before the instruction's own count: a start counts, a stop not */
		qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_cb,
			QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)code);
		marked = true;
	}
	if (marked || per_insn) {
		for (i = 0; i < n; i++)
			count_insn(qemu_plugin_tb_get_insn(tb, i), kern);
	} else if (shared) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, counter(kern), n);
	} else {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, count_cb,
			QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)(n | (kern ? KERNEL_HALF : 0)));
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "hf_insn: x86_64 guests only (the markers are x86 NOPs), not %s\n",
			info->target_name);
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "hf_insn: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "count=tb")) {
			per_insn = false;
		} else if (!strcmp(argv[i], "count=insn")) {
			per_insn = true;
		} else {
			fprintf(stderr, "hf_insn: unknown argument '%s' (count=tb|insn)\n",
				argv[i]);
			return -1;
		}
	}
	nvcpus = info->system.max_vcpus;
	if (nvcpus < 1)
		nvcpus = 1;
	shared = nvcpus == 1;
	vcpus = calloc(nvcpus, sizeof(*vcpus));
	if (!vcpus)
		return -1;
	for (i = 0; i < nvcpus; i++)
		vcpus[i].label = -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
