/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_os.h - the operating-system interface of the OS-neutral engine core.
 *
 * The engine core (xdma_*.c) is kernel-style C that compiles unchanged
 * into hellofpga.ko and into libhellofpga.  Everything it needs from its
 * surroundings is listed here and implemented twice:
 *   - core/os/hf_os_kernel.h  for the Linux kernel (hellofpga.ko),
 *   - core/os/hf_os_user.h    for user space (the library over the emulated
 *                             card, whose MMIO is a function call, not a load).
 *
 * Interface (both implementations provide exactly these):
 *   types     u8 u16 u32 u64 s32 s64 __le32 bool size_t dma-style u64 bus addrs
 *   macros    BIT GENMASK FIELD_PREP FIELD_GET lower_32_bits upper_32_bits
 *             min max min_t ALIGN IS_ALIGNED DIV_ROUND_UP READ_ONCE WRITE_ONCE
 *             likely unlikely cpu_to_le32 le32_to_cpu wmb rmb dma_rmb
 *   const struct hf_mmio *                    handle of a mapped register BAR
 *   hf_ioread32(bar, off)        32-bit MMIO read at byte offset off
 *   hf_iowrite32(val, bar, off)  32-bit MMIO write
 *   struct hf_os_event           one-shot wake-up signalled from an ISR
 *   hf_os_event_init/destroy/reset/signal/wait(ev, timeout_ns)
 *                                wait returns 0 when signalled, -ETIMEDOUT,
 *                                or -EINTR (kernel: fatal signal pending)
 *   hf_os_now_ns()               monotonic time in ns
 *   hf_os_relax()                busy-wait hint (cpu_relax)
 *   hf_os_sleep_us(us)           sleep at least us microseconds
 *   hf_os_fatal_signal_pending() whether the calling task is being killed
 *                                (kernel: fatal_signal_pending(current);
 *                                user space: never)
 *   hf_os_log(fmt, ...)          diagnostic line (dmesg / stderr when enabled)
 */
#ifndef HF_OS_H
#define HF_OS_H

#ifdef __KERNEL__
#include "os/hf_os_kernel.h"
#else
#include "os/hf_os_user.h"
#endif

#endif /* HF_OS_H */
