/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_os_kernel.h - Linux kernel implementation of the engine core's OS
 * interface (see core/hf_os.h).  Everything is a thin inline over the kernel
 * API; hellofpga.ko compiles core/xdma_*.c with this header.
 */
#ifndef HF_OS_KERNEL_H
#define HF_OS_KERNEL_H

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#include <asm/processor.h>

/**
 * struct hf_mmio - a mapped register BAR.
 * @base: the mapping (pcim_iomap_region() and friends)
 */
struct hf_mmio {
	void __iomem *base;
};

static inline u32 hf_ioread32(const struct hf_mmio *bar, u32 off)
{
	return ioread32(bar->base + off);
}

static inline void hf_iowrite32(u32 val, const struct hf_mmio *bar, u32 off)
{
	iowrite32(val, bar->base + off);
}

/**
 * struct hf_os_event - one-shot wake-up from interrupt context.
 * @wq: the waiter sleeps here
 * @signalled: set by hf_os_event_signal(), consumed by a successful wait
 */
struct hf_os_event {
	wait_queue_head_t wq;
	atomic_t signalled;
};

static inline void hf_os_event_init(struct hf_os_event *ev)
{
	init_waitqueue_head(&ev->wq);
	atomic_set(&ev->signalled, 0);
}

static inline void hf_os_event_destroy(struct hf_os_event *ev)
{
}

static inline void hf_os_event_reset(struct hf_os_event *ev)
{
	atomic_set(&ev->signalled, 0);
}

/* Callable from hard interrupt context. */
static inline void hf_os_event_signal(struct hf_os_event *ev)
{
	atomic_set_release(&ev->signalled, 1);
	wake_up(&ev->wq);
}

/**
 * hf_os_event_wait() - wait for the event, consuming its signal.
 * @ev: the event
 * @timeout_ns: longest wait
 *
 * Sleeps killable: only a fatal signal ends the wait early, so callers never
 * see -ERESTARTSYS (a transfer cannot be restarted half done).
 *
 * Return: 0 when signalled, -ETIMEDOUT, -EINTR on a fatal signal.
 */
static inline int hf_os_event_wait(struct hf_os_event *ev, u64 timeout_ns)
{
	unsigned long j = nsecs_to_jiffies64(timeout_ns);
	long ret;

	if (j > MAX_SCHEDULE_TIMEOUT - 1)
		j = MAX_SCHEDULE_TIMEOUT - 1;
	ret = wait_event_killable_timeout(ev->wq,
					  atomic_xchg(&ev->signalled, 0),
					  (long)j + 1);
	if (ret > 0)
		return 0;
	if (ret == 0)
		return -ETIMEDOUT;
	/* Signalled and killed at once: the completion wins. */
	if (atomic_xchg(&ev->signalled, 0))
		return 0;
	return -EINTR;
}

static inline u64 hf_os_now_ns(void)
{
	return ktime_get_ns();
}

static inline void hf_os_relax(void)
{
	cpu_relax();
}

static inline void hf_os_sleep_us(u32 us)
{
	if (us < 10)
		udelay(us);
	else
		usleep_range(us, us + us / 4 + 1);
}

static inline bool hf_os_fatal_signal_pending(void)
{
	return fatal_signal_pending(current);
}

#define hf_os_log(fmt, ...)	pr_debug(fmt "\n", ##__VA_ARGS__)

#endif /* HF_OS_KERNEL_H */
