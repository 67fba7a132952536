// SPDX-License-Identifier: MIT
/*
 * backend_kernel_node.c - the kernel backend's access to the driver's
 * nodes (backend_kernel.c): their paths, open, ioctl, and the driver's
 * text for a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "backend_kernel.h"

void knode_path(char *buf, size_t len, unsigned int card,
		const char *node)
{
	snprintf(buf, len, "/dev/hellofpga%u_%s", card, node);
}

int knode_open(const char *path)
{
	int fd;

	do {
		fd = open(path, O_RDWR | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

int kioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

/**
 * kdriver_text() - the driver's text for the failure @err of @fd.
 * @fd: the open node the failing call used
 * @err: the negative errno it failed with
 * @buf: receives the text
 * @len: size of @buf
 *
 * Return: true when the driver had a text for exactly this error.
 */
bool kdriver_text(int fd, int err, char *buf, size_t len)
{
	struct hellofpga_last_error le;

	memset(&le, 0, sizeof(le));
	if (kioctl(fd, HELLOFPGA_IOC_LAST_ERROR, &le) || le.error != err ||
	    !le.text[0])
		return false;
	le.text[sizeof(le.text) - 1] = '\0';
	snprintf(buf, len, "%s", le.text);
	return true;
}

/**
 * kfail() - record a failure of a driver call and return @err.
 * @dev: the handle
 * @fd: the node the call used (its LAST_ERROR text is preferred)
 * @err: negative errno
 * @fmt: what was being done, used when the driver has no text
 */
int kfail(struct hellofpga_dev *dev, int fd, int err,
	  const char *fmt, ...)
{
	char what[256], text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (fd >= 0 && kdriver_text(fd, err, text, sizeof(text)))
		return hf_set_error(dev, err, "%s", text);
	return hf_set_error(dev, err, "%s: %s", what, strerror(-err));
}
