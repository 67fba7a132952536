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
	ev->last_wait_ns = 0;
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
 * Hybrid waiting, as kernel block drivers poll fast devices: spin with the
 * CPU's pause hint for HF_OS_SPIN_HOT_NS, then keep checking while yielding
 * the CPU to other threads, and only then block.  A wait lasts about as
 * long as the last one on the same event (the same transfer size, usually),
 * so the spin budget follows it: twice the last wait, between
 * HF_OS_SPIN_MIN_NS and HF_OS_SPIN_MAX_NS.  A completion that arrives while
 * spinning costs no thread wake-up (tens of microseconds on a busy VM).
 */
#define HF_OS_SPIN_HOT_NS	20000ull
#define HF_OS_SPIN_MIN_NS	50000ull
#define HF_OS_SPIN_MAX_NS	2000000ull

/**
 * hf_os_spin_wait() - spin until *@flag is true or @max_ns have passed.
 * @flag: read with acquire semantics
 * @max_ns: longest spin
 *
 * Return: true when the flag was seen set.
 */
bool hf_os_spin_wait(const bool *flag, u64 max_ns)
{
	u64 start = hf_os_now_ns(), now = start;

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (now - start >= max_ns)
			return false;
		if (now - start < HF_OS_SPIN_HOT_NS)
			hf_os_relax();
		else
			sched_yield();
		now = hf_os_now_ns();
	}
	return true;
}

/**
 * hf_os_event_wait() - wait for an event to be signalled, consuming it.
 * @ev: the event
 * @timeout_ns: longest wait
 *
 * Spins (see hf_os_spin_wait()) for about twice the last wait on @ev, then
 * blocks.
 *
 * Return: 0 when signalled (the signal is consumed), -ETIMEDOUT.
 */
int hf_os_event_wait(struct hf_os_event *ev, u64 timeout_ns)
{
	struct timespec ts;
	u64 now = hf_os_now_ns(), end = now + timeout_ns;
	u64 spin = min(max(2 * ev->last_wait_ns, HF_OS_SPIN_MIN_NS),
		       HF_OS_SPIN_MAX_NS);
	int ret = 0;

	hf_os_spin_wait(&ev->signalled, min(timeout_ns, spin));

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
		ev->last_wait_ns = hf_os_now_ns() - now;
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
