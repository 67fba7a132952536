/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * hf_os_user.h - user-space implementation of the engine core's OS interface
 * (see core/hf_os.h).  Also gives user-space code (the emulated card, the
 * library, tests) the kernel helpers the shared register header uses.
 *
 * MMIO goes through struct hf_mmio: over the in-process emulated card a
 * register access is a call into the model, so read-to-clear and W1S/W1C
 * behave as on hardware.  (The kernel module has its own OS layer,
 * hf_os_kernel.h, where an access is ioread32()/iowrite32() of the BAR.)
 */
#ifndef HF_OS_USER_H
#define HF_OS_USER_H

#include <endian.h>
#include <linux/types.h>	/* __le32, __le64 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>		/* snprintf */
#include <string.h>	/* memset, memcpy, strlen */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#ifndef BIT
#define BIT(n)			(1u << (n))
#endif
#define BIT_ULL(n)		(1ull << (n))
#define GENMASK(h, l)		(((~0u) << (l)) & (~0u >> (31 - (h))))
#define GENMASK_ULL(h, l)	(((~0ull) << (l)) & (~0ull >> (63 - (h))))
#define FIELD_PREP(mask, val)	(((u32)(val) << __builtin_ctz(mask)) & (mask))
#define FIELD_GET(mask, reg)	(((u32)(reg) & (mask)) >> __builtin_ctz(mask))
#define lower_32_bits(n)	((u32)((n) & 0xffffffffu))
#define upper_32_bits(n)	((u32)((u64)(n) >> 32))

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define ALIGN(x, a)		(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

/*
 * READ_ONCE() / WRITE_ONCE() of a scalar that another thread (the model,
 * an interrupt handler, a canceller) writes or reads at the same time:
 * relaxed atomics, the C11 form of the kernel's volatile accesses, which
 * C11 counts as data races.  ThreadSanitizer models no fences, so under it
 * they are acquire and release, which is what the fence after a
 * READ_ONCE() (dma_rmb(), mb()) or before a WRITE_ONCE() makes of them.
 */
#ifdef __SANITIZE_THREAD__
#define HF_ONCE_LOAD		__ATOMIC_ACQUIRE
#define HF_ONCE_STORE		__ATOMIC_RELEASE
#else
#define HF_ONCE_LOAD		__ATOMIC_RELAXED
#define HF_ONCE_STORE		__ATOMIC_RELAXED
#endif
#define READ_ONCE(x)		__atomic_load_n(&(x), HF_ONCE_LOAD)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), HF_ONCE_STORE)

#define cpu_to_le32(x)		htole32(x)
#define le32_to_cpu(x)		le32toh(x)

/* Barriers: the model is another thread, so these are real fences. */
#define wmb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define mb()			__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define dma_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define dma_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)

/**
 * struct hf_mmio - a register BAR as user space sees it.
 * @read32: read the 32-bit register at byte offset @off; NULL for a mapped BAR
 * @write32: write the 32-bit register at byte offset @off
 * @ctx: first argument of @read32 and @write32
 * @base: mapped BAR (used when @read32 is NULL)
 * @size: size of the BAR in bytes
 */
struct hf_mmio {
	u32 (*read32)(void *ctx, u32 off);
	void (*write32)(void *ctx, u32 off, u32 val);
	void *ctx;
	volatile u8 *base;
	u32 size;
};

static inline u32 hf_ioread32(const struct hf_mmio *bar, u32 off)
{
	if (bar->read32)
		return bar->read32(bar->ctx, off);
	return le32toh(*(volatile u32 *)(bar->base + off));
}

static inline void hf_iowrite32(u32 val, const struct hf_mmio *bar, u32 off)
{
	if (bar->write32)
		bar->write32(bar->ctx, off, val);
	else
		*(volatile u32 *)(bar->base + off) = htole32(val);
}

/**
 * struct hf_os_event - one-shot wake-up from interrupt context.
 * @lock: protects @signalled
 * @cond: waited on by hf_os_event_wait()
 * @signalled: set by hf_os_event_signal(), consumed by a successful wait;
 *	written under @lock, read without it while a waiter spins
 * @waiters: threads blocked on @cond (signal only wakes when non-zero)
 * @last_wait_ns: how long the last successful wait took (sizes the spin)
 */
struct hf_os_event {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool signalled;
	int waiters;
	u64 last_wait_ns;
};

void hf_os_event_init(struct hf_os_event *ev);
void hf_os_event_destroy(struct hf_os_event *ev);
void hf_os_event_reset(struct hf_os_event *ev);
void hf_os_event_signal(struct hf_os_event *ev);
int hf_os_event_wait(struct hf_os_event *ev, u64 timeout_ns);

u64 hf_os_now_ns(void);
void hf_os_relax(void);
bool hf_os_spin_wait(const bool *flag, u64 max_ns);
void hf_os_sleep_us(u32 us);

/* A process is never killed in the middle of a library call: it dies. */
static inline bool hf_os_fatal_signal_pending(void)
{
	return false;
}
void hf_os_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* HF_OS_USER_H */
