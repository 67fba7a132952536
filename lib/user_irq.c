// SPDX-License-Identifier: MIT
/*
 * user_irq.c - user interrupts (usr_irq_req of the XDMA IP):
 * HelloFPGA_UserIRQ_Wait() and HelloFPGA_UserIRQ_GetFd().
 *
 * The backend arms an interrupt and gives a descriptor that polls readable
 * while a delivery waits (the emulated card: an eventfd its interrupt
 * handler signals; the kernel driver: the _events_U node), and takes a
 * count without waiting.  Waiting is the same for both: take, else poll()
 * the descriptor and the handle's wake eventfd, which HelloFPGA_Close()
 * signals, until the deadline.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "hf_dev.h"
#include "hf_error.h"
#include "hf_handle.h"

/* Check @irq and arm it once; the backend's descriptor. */
static int uirq_fd(struct hellofpga_dev *dev, int irq, const char *fn)
{
	int fd, ret;

	if (irq < 0 || irq >= XDMA_USER_IRQS)
		return hf_set_error(dev, -EINVAL,
				    "%s: user interrupt %d out of range (0..%d)",
				    fn, irq, XDMA_USER_IRQS - 1);
	if (!dev->ops->uirq_arm)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: the %s backend has no user interrupts",
				    fn, dev->ops->name);
	pthread_mutex_lock(&dev->uirq_lock);
	fd = dev->uirq_fd[irq];
	if (fd < 0) {
		ret = dev->ops->uirq_arm(dev, irq, &fd);
		if (ret < 0)
			fd = ret;
		else
			dev->uirq_fd[irq] = fd;
	}
	pthread_mutex_unlock(&dev->uirq_lock);
	return fd;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int uirq_wait(struct hellofpga_dev *dev, int irq, int timeout_ms,
		     uint32_t *count)
{
	static const char fn[] = "HelloFPGA_UserIRQ_Wait";
	int64_t end = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	struct pollfd pfd[2];
	int fd, wfd, ret;
	uint32_t n;

	if (!count)
		return hf_set_error(dev, -EFAULT, "%s: count is NULL", fn);
	fd = uirq_fd(dev, irq, fn);
	if (fd < 0)
		return fd;
	wfd = hf_dev_wake_fd(dev);
	if (wfd == -EBADF)
		return hf_set_error(dev, wfd, "%s: the handle is being closed",
				    fn);
	if (wfd < 0)
		return hf_set_error(dev, wfd,
				    "%s: cannot make the handle's wake eventfd: %s",
				    fn, strerror(-wfd));
	for (;;) {
		int wait_ms;

		ret = dev->ops->uirq_take(dev, irq, &n);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			*count = n;
			return 0;
		}
		if (timeout_ms < 0) {
			wait_ms = -1;
		} else {
			int64_t left = timeout_ms ? end - now_ms() : 0;

			if (left <= 0)
				return hf_set_error(dev, -ETIMEDOUT,
						    "%s: no user interrupt %d within %d ms",
						    fn, irq, timeout_ms);
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = wfd, .events = POLLIN };
		ret = poll(pfd, 2, wait_ms);
		if (ret < 0 && errno == EINTR)
			return hf_set_error(dev, -EINTR,
					    "%s: interrupted by a signal while waiting for user interrupt %d",
					    fn, irq);
		if (ret < 0)
			return hf_set_error(dev, -errno,
					    "%s: poll() of user interrupt %d failed: %s",
					    fn, irq, strerror(errno));
		if (pfd[1].revents)
			return hf_set_error(dev, -EBADF,
					    "%s: the handle was closed while waiting for user interrupt %d",
					    fn, irq);
		/* readable, or POLLHUP / POLLERR: the take says which */
	}
}

int HelloFPGA_UserIRQ_Wait(HELLOFPGA_HANDLE hDev, int irq, int timeout_ms,
			   uint32_t *count)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_UserIRQ_Wait", &dev);

	if (!ret)
		ret = hf_dev_put_ret(dev, uirq_wait(dev, irq, timeout_ms,
						    count));
	return hf_api_ret(HF_API_USER_IRQ_WAIT, ret);
}

int HelloFPGA_UserIRQ_GetFd(HELLOFPGA_HANDLE hDev, int irq, int *fd)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_get(hDev, "HelloFPGA_UserIRQ_GetFd", &dev);

	if (ret)
		return hf_api_ret(HF_API_USER_IRQ_GET_FD, ret);
	if (!fd)
		ret = hf_set_error(dev, -EFAULT,
				   "HelloFPGA_UserIRQ_GetFd: fd is NULL");
	else
		ret = uirq_fd(dev, irq, "HelloFPGA_UserIRQ_GetFd");
	if (ret >= 0) {
		*fd = ret;
		ret = 0;
	}
	hf_dev_put(dev);
	return hf_api_ret(HF_API_USER_IRQ_GET_FD, ret);
}
