// SPDX-License-Identifier: MIT
/*
 * test_user_irq.c - user interrupts end to end on the emulated card: the
 * reference design's user BAR raises usr_irq_req (HF_USER_IRQ_SET / CLEAR),
 * the IRQ block delivers it (MSI-X vector 16 + U, or the shared MSI / INTx
 * vector), HelloFPGA_UserIRQ_Wait() takes the count and
 * HelloFPGA_UserIRQ_GetFd() polls readable.  One behaviour per case, each
 * in the three interrupt modes where the mode matters.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hf_user_regs.h"
#include "lib_helpers.h"

struct mode_row {
	const char *name;
	const char *card;
};

static const struct mode_row modes[] = {
	{ "msix", "emu:0,private,ddr=1M,irq=msix" },
	{ "msi", "emu:0,private,ddr=1M,irq=msi" },
	{ "legacy", "emu:0,private,ddr=1M,irq=legacy" },
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static void raise_irq(HELLOFPGA_HANDLE h, int irq)
{
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, HF_USER_IRQ_SET, 1u << irq), 0);
}

static void drop_irq(HELLOFPGA_HANDLE h, int irq)
{
	HF_CHECK_ERR(HelloFPGA_UserWrite32(h, HF_USER_IRQ_CLEAR, 1u << irq),
		     0);
}

static void pulse(HELLOFPGA_HANDLE h, int irq)
{
	raise_irq(h, irq);
	drop_irq(h, irq);
}

/* Arm @irq (a Wait that finds nothing). */
static void arm(HELLOFPGA_HANDLE h, int irq)
{
	uint32_t n = 77;

	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, irq, 0, &n), -ETIMEDOUT);
	HF_CHECK_EQ(n, 77);
}

static void raise_then_wait_counts_one(const void *r)
{
	HELLOFPGA_HANDLE h = t_open(((const struct mode_row *)r)->card);
	uint32_t n = 0;

	arm(h, 3);
	pulse(h, 3);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 3, 1000, &n), 0);
	HF_CHECK_EQ(n, 1);
	/* taken: nothing more */
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 3, 0, &n), -ETIMEDOUT);
	HelloFPGA_Close(h);
}

HF_TEST_ROWS(user_irq_raise_then_wait_counts_one, modes,
	     raise_then_wait_counts_one)

/* Between a delivery and its take the interrupt is masked: pulses coalesce. */
static void two_pulses_before_a_wait_coalesce(const void *r)
{
	HELLOFPGA_HANDLE h = t_open(((const struct mode_row *)r)->card);
	uint32_t n = 0;

	arm(h, 5);
	pulse(h, 5);
	pulse(h, 5);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 5, 1000, &n), 0);
	/*
	 * The emulated card's handler runs inside the raising write, so the
	 * second pulse always finds the interrupt masked; a real card's may
	 * come after the second pulse, which then made a delivery of its own.
	 */
	if (t_card_is_emulated(h))
		HF_CHECK_EQ(n, 1);
	else
		HF_CHECK(n == 1 || n == 2);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 5, 0, &n), -ETIMEDOUT);
	/* each pulse after a take is its own delivery */
	pulse(h, 5);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 5, 1000, &n), 0);
	HF_CHECK_EQ(n, 1);
	HelloFPGA_Close(h);
}

HF_TEST_ROWS(user_irq_two_pulses_before_a_wait_coalesce, modes,
	     two_pulses_before_a_wait_coalesce)

/* A held level is delivered again after each take, once, until dropped. */
static void held_request_fires_once_per_take(const void *r)
{
	HELLOFPGA_HANDLE h = t_open(((const struct mode_row *)r)->card);
	HELLOFPGA_COUNTERS c0, c1;
	uint32_t n = 0;

	arm(h, 7);
	/*
	 * counted from before the raise: where the interrupt is handled on
	 * another CPU (the driver on a 2-CPU machine), its first delivery
	 * may come after the raising write returns
	 */
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c0), 0);
	raise_irq(h, 7);
	for (int i = 0; i < 3; i++) {
		HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 7, 1000, &n), 0);
		HF_CHECK_EQ(n, 1);
	}
	HF_CHECK_ERR(HelloFPGA_GetCounters(h, &c1), 0);
	/* no storm: the raise, then the three takes re-armed it three times */
	HF_CHECK_MSG(c1.irqs - c0.irqs <= 4, "%llu interrupts for a raise and 3 takes",
		     (unsigned long long)(c1.irqs - c0.irqs));
	drop_irq(h, 7);
	/* the delivery made by the last take's re-enable is still there */
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 7, 1000, &n), 0);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 7, 0, &n), -ETIMEDOUT);
	HelloFPGA_Close(h);
}

HF_TEST_ROWS(user_irq_held_request_fires_once_per_take, modes,
	     held_request_fires_once_per_take)

static void fd_polls_readable(const void *r)
{
	HELLOFPGA_HANDLE h = t_open(((const struct mode_row *)r)->card);
	struct pollfd pfd;
	uint32_t n = 0;
	int fd = -1, fd2 = -1;

	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 9, &fd), 0);
	HF_CHECK(fd >= 0);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 9, &fd2), 0);
	HF_CHECK_EQ(fd2, fd);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	HF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	pulse(h, 9);
	HF_CHECK_EQ(poll(&pfd, 1, 1000), 1);
	HF_CHECK(pfd.revents & POLLIN);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 9, 0, &n), 0);
	HF_CHECK_EQ(n, 1);
	HF_CHECK_EQ(poll(&pfd, 1, 0), 0);
	HelloFPGA_Close(h);
}

HF_TEST_ROWS(user_irq_fd_polls_readable, modes, fd_polls_readable)

/* A raise on another interrupt, or a channel's completion, wakes nobody. */
static void other_sources_are_not_counted(const void *r)
{
	HELLOFPGA_HANDLE h = t_open(((const struct mode_row *)r)->card);
	uint8_t buf[4096] = { 1 };
	uint32_t n = 0;

	arm(h, 2);
	arm(h, 4);
	pulse(h, 4);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf),
					      NULL), 0);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 2, 0, &n), -ETIMEDOUT);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 4, 0, &n), 0);
	HelloFPGA_Close(h);
}

HF_TEST_ROWS(user_irq_other_sources_are_not_counted, modes,
	     other_sources_are_not_counted)

HF_TEST(user_irq_a_pulse_before_arming_is_not_seen_a_held_one_is)
{
	HELLOFPGA_HANDLE h = t_open("emu:0,private,ddr=1M");
	uint32_t n = 0;

	/* the driver keeps an interrupt enabled once any process armed it */
	t_need_emulated(h, "arming per handle");
	pulse(h, 1);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 1, 0, &n), -ETIMEDOUT);
	raise_irq(h, 6);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 6, 0, &n), 0);
	HF_CHECK_EQ(n, 1);
	drop_irq(h, 6);
	HelloFPGA_Close(h);
}

HF_TEST(user_irq_wait_times_out_within_the_time)
{
	HELLOFPGA_HANDLE h = t_open("emu:0,private,ddr=1M");
	uint32_t n = 0;
	uint64_t t0;

	t0 = now_ms();
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 0, 200, &n), -ETIMEDOUT);
	t0 = now_ms() - t0;
	HF_CHECK_MSG(t0 >= 190 && t0 < 2000, "waited %llu ms for 200",
		     (unsigned long long)t0);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "within 200 ms"));
	HelloFPGA_Close(h);
}

HF_TEST(user_irq_bad_arguments_are_refused)
{
	HELLOFPGA_HANDLE h = t_open("emu:0,private,ddr=1M");
	uint32_t n = 5;
	int fd = -7;

	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, -1, 0, &n), -EINVAL);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "out of range (0..15)"));
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 16, 0, &n), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 16, &fd), -EINVAL);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, -2147483647 - 1, &fd),
		     -EINVAL);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 0, 0, NULL), -EFAULT);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 0, NULL), -EFAULT);
	HF_CHECK_EQ(n, 5);
	HF_CHECK_EQ(fd, -7);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(NULL, 0, 0, &n), -EBADF);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(NULL, 0, &fd), -EBADF);
	HelloFPGA_Close(h);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 0, 0, &n), -EBADF);
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 0, &fd), -EBADF);
}

HF_TEST(user_irq_poll_mode_has_none)
{
	HELLOFPGA_HANDLE h = t_open("emu:0,private,ddr=1M,irq=poll");
	uint32_t n;
	int fd;

	/* the driver's poll_mode keeps user interrupts (documented) */
	t_need_emulated(h, "poll mode without user interrupts");
	HF_CHECK_ERR(HelloFPGA_UserIRQ_Wait(h, 0, 0, &n), -EOPNOTSUPP);
	HF_CHECK(strstr(HelloFPGA_GetLastError(h), "poll mode"));
	HF_CHECK_ERR(HelloFPGA_UserIRQ_GetFd(h, 0, &fd), -EOPNOTSUPP);
	HelloFPGA_Close(h);
}

struct waiter {
	HELLOFPGA_HANDLE h;
	int irq;
	int timeout_ms;
	int ret;
	uint32_t n;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->ret = HelloFPGA_UserIRQ_Wait(w->h, w->irq, w->timeout_ms, &w->n);
	return NULL;
}

HF_TEST(user_irq_a_raise_wakes_a_waiter_in_another_thread)
{
	struct waiter w = { t_open("emu:0,private,ddr=1M"), 11, 5000, 1, 0 };
	pthread_t t;

	arm(w.h, 11);
	HF_CHECK(!pthread_create(&t, NULL, wait_thread, &w));
	usleep(20000);
	pulse(w.h, 11);
	HF_CHECK(!pthread_join(t, NULL));
	HF_CHECK_ERR(w.ret, 0);
	HF_CHECK_EQ(w.n, 1);
	HelloFPGA_Close(w.h);
}

HF_TEST(user_irq_close_wakes_a_blocked_waiter)
{
	struct waiter w = { t_open("emu:0,private,ddr=1M"), 12, -1, 1, 0 };
	pthread_t t;
	uint64_t t0;

	HF_CHECK(!pthread_create(&t, NULL, wait_thread, &w));
	usleep(50000);
	t0 = now_ms();
	HF_CHECK_ERR(HelloFPGA_Close(w.h), 0);
	HF_CHECK(!pthread_join(t, NULL));
	HF_CHECK_MSG(now_ms() - t0 < 2000, "Close took %llu ms",
		     (unsigned long long)(now_ms() - t0));
	HF_CHECK_ERR(w.ret, -EBADF);
	HF_CHECK_EQ(w.n, 0);
}

static void on_signal(int sig)
{
	(void)sig;
}

HF_TEST(user_irq_a_signal_handler_ends_a_wait_with_eintr)
{
	struct waiter w = { t_open("emu:0,private,ddr=1M"), 13, 10000, 1, 0 };
	struct sigaction sa, old;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	HF_CHECK(!sigaction(SIGUSR1, &sa, &old));
	arm(w.h, 13);
	HF_CHECK(!pthread_create(&t, NULL, wait_thread, &w));
	usleep(50000);
	HF_CHECK(!pthread_kill(t, SIGUSR1));
	HF_CHECK(!pthread_join(t, NULL));
	sigaction(SIGUSR1, &old, NULL);
	HF_CHECK_ERR(w.ret, -EINTR);
	HelloFPGA_Close(w.h);
}
