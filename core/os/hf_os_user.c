// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hf_os_user.c - user-space implementation of the engine core's OS interface
 * (core/hf_os.h): events on a mutex and a CLOCK_MONOTONIC condition
 * variable, monotonic time, busy-wait hint, sleep and debug log.
 */
#include "../hf_os.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HF_NSEC_PER_SEC	1000000000ull

/**
 * hf_os_event_init() - initialise an event, not signalled.
 * @ev: the event
 *
 * The condition variable waits on CLOCK_MONOTONIC, so changes of the wall
 * clock do not stretch or shorten a timeout.
 */
void hf_os_event_init(struct hf_os_event *ev)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&ev->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ev->cond, &attr);
	pthread_condattr_destroy(&attr);
	ev->signalled = false;
	ev->waiters = 0;
}

/**
 * hf_os_event_destroy() - release an event nobody waits on any more.
 * @ev: the event
 */
void hf_os_event_destroy(struct hf_os_event *ev)
{
	pthread_cond_destroy(&ev->cond);
	pthread_mutex_destroy(&ev->lock);
}

/**
 * hf_os_event_reset() - drop a pending signal.
 * @ev: the event
 */
void hf_os_event_reset(struct hf_os_event *ev)
{
	pthread_mutex_lock(&ev->lock);
	ev->signalled = false;
	pthread_mutex_unlock(&ev->lock);
}

/**
 * hf_os_event_signal() - signal an event and wake its waiter.
 * @ev: the event
 */
void hf_os_event_signal(struct hf_os_event *ev)
{
	pthread_mutex_lock(&ev->lock);
	__atomic_store_n(&ev->signalled, true, __ATOMIC_RELEASE);
	if (ev->waiters)
		pthread_cond_broadcast(&ev->cond);
	pthread_mutex_unlock(&ev->lock);
}

/*
 * A waiter spins this long before it blocks: completions of short
 * transfers then cost no thread wake-up (the kernel's hybrid polling idea).
 */
#define HF_OS_EVENT_SPIN_NS	50000ull

/**
 * hf_os_event_wait() - wait for an event to be signalled, consuming it.
 * @ev: the event
 * @timeout_ns: longest wait
 *
 * Spins for up to HF_OS_EVENT_SPIN_NS (or @timeout_ns), then blocks.
 *
 * Return: 0 when signalled (the signal is consumed), -ETIMEDOUT.
 */
int hf_os_event_wait(struct hf_os_event *ev, u64 timeout_ns)
{
	struct timespec ts;
	u64 now = hf_os_now_ns(), end = now + timeout_ns;
	u64 spin_end = now + min(timeout_ns, HF_OS_EVENT_SPIN_NS);
	int ret = 0;

	while (!__atomic_load_n(&ev->signalled, __ATOMIC_ACQUIRE) &&
	       hf_os_now_ns() < spin_end)
		hf_os_relax();

	if (end < now || end / HF_NSEC_PER_SEC > (u64)0x7fffffff)
		end = (u64)0x7fffffff * HF_NSEC_PER_SEC;
	ts.tv_sec = end / HF_NSEC_PER_SEC;
	ts.tv_nsec = end % HF_NSEC_PER_SEC;

	pthread_mutex_lock(&ev->lock);
	ev->waiters++;
	while (!ev->signalled) {
		ret = pthread_cond_timedwait(&ev->cond, &ev->lock, &ts);
		if (ret == ETIMEDOUT)
			break;
	}
	ev->waiters--;
	if (ev->signalled) {
		ev->signalled = false;
		ret = 0;
	} else {
		ret = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&ev->lock);
	return ret;
}

/**
 * hf_os_now_ns() - monotonic time.
 *
 * Return: CLOCK_MONOTONIC in nanoseconds.
 */
u64 hf_os_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * HF_NSEC_PER_SEC + (u64)ts.tv_nsec;
}

/**
 * hf_os_relax() - busy-wait hint.
 *
 * PAUSE on x86; elsewhere, where the engine may run on this very CPU in the
 * emulated card, give the CPU away.
 */
void hf_os_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	sched_yield();
#endif
}

/**
 * hf_os_sleep_us() - sleep at least @us microseconds.
 * @us: microseconds
 */
void hf_os_sleep_us(u32 us)
{
	struct timespec ts = {
		.tv_sec = us / 1000000u,
		.tv_nsec = (long)(us % 1000000u) * 1000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/**
 * hf_os_log() - diagnostic line on stderr when HELLOFPGA_DEBUG is set.
 * @fmt: printf format, without the trailing newline
 */
void hf_os_log(const char *fmt, ...)
{
	static int enabled = -1;
	char line[512];
	va_list ap;
	int on = __atomic_load_n(&enabled, __ATOMIC_RELAXED);

	if (on < 0) {
		const char *v = getenv("HELLOFPGA_DEBUG");

		on = v && *v && strcmp(v, "0") != 0;
		__atomic_store_n(&enabled, on, __ATOMIC_RELAXED);
	}
	if (!on)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hellofpga: %s\n", line);
}
