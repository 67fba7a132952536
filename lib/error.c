// SPDX-License-Identifier: MIT
/*
 * error.c - error codes and texts: HelloFPGA_StrError() names a negative
 * errno; the detailed text of the last failure is kept per handle (and per
 * thread for calls that have no handle) for HelloFPGA_GetLastError().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hf_lib.h"

struct hf_errname {
	int err;
	const char *text;
};

static const struct hf_errname errnames[] = {
	{ 0, "success" },
	{ EPERM, "EPERM: operation not permitted" },
	{ ENOENT, "ENOENT: no such file or directory" },
	{ EINTR, "EINTR: interrupted" },
	{ EIO, "EIO: DMA engine reported an error" },
	{ ENXIO, "ENXIO: no such device or address" },
	{ EBADF, "EBADF: invalid or closed handle" },
	{ EAGAIN, "EAGAIN: resource temporarily unavailable" },
	{ ENOMEM, "ENOMEM: out of memory" },
	{ EACCES, "EACCES: permission denied" },
	{ EFAULT, "EFAULT: bad buffer address" },
	{ EBUSY, "EBUSY: device or resource busy" },
	{ EEXIST, "EEXIST: already exists" },
	{ ENODEV, "ENODEV: no such card" },
	{ EINVAL, "EINVAL: invalid argument" },
	{ ENOSPC, "ENOSPC: no space left" },
	{ ERANGE, "ERANGE: card address range outside card memory" },
	{ ENOSYS, "ENOSYS: function not implemented" },
	{ ECHRNG, "ECHRNG: channel number out of range" },
	{ EOVERFLOW, "EOVERFLOW: address + length overflows" },
	{ EOPNOTSUPP, "EOPNOTSUPP: not supported by this card or backend" },
	{ ETIMEDOUT, "ETIMEDOUT: DMA engine timed out" },
	{ EPROTO, "EPROTO: protocol error" },
	{ ENOTTY, "ENOTTY: unknown request" },
	{ ECANCELED, "ECANCELED: transfer cancelled: its memory was revoked" },
};

const char *HelloFPGA_StrError(int err)
{
	if (err > 0)
		return "not an error code (positive value)";
	/*
	 * Compare with -errnames[i].err rather than negate @err: -INT_MIN is
	 * undefined behaviour.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(errnames); i++)
		if (-errnames[i].err == err)
			return errnames[i].text;
	return "unknown error code";
}

static _Thread_local char tls_error[HF_ERRLEN];
static _Thread_local char tls_copy[HF_ERRLEN];

/**
 * hf_set_errorv() - record the text of a failure and return @err.
 * @dev: handle, or NULL for a failure without one (the thread's text)
 * @err: negative errno
 */
int hf_set_errorv(struct hellofpga_dev *dev, int err, const char *fmt,
		  va_list ap)
{
	char text[HF_ERRLEN];

	vsnprintf(text, sizeof(text), fmt, ap);
	hf_os_log("%s: %s", dev ? dev->info.name : "hellofpga", text);
	if (!dev) {
		memcpy(tls_error, text, sizeof(text));
		return err;
	}
	pthread_mutex_lock(&dev->err_lock);
	memcpy(dev->last_error, text, sizeof(text));
	pthread_mutex_unlock(&dev->err_lock);
	return err;
}

int hf_set_error(struct hellofpga_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hf_set_errorv(dev, err, fmt, ap);
	va_end(ap);
	return err;
}

void hf_clear_error(struct hellofpga_dev *dev)
{
	if (!dev) {
		tls_error[0] = '\0';
		return;
	}
	pthread_mutex_lock(&dev->err_lock);
	dev->last_error[0] = '\0';
	pthread_mutex_unlock(&dev->err_lock);
}

const char *HelloFPGA_GetLastError(HELLOFPGA_HANDLE hDev)
{
	if (!hDev || hDev->magic != HF_DEV_MAGIC)
		return tls_error;
	pthread_mutex_lock(&hDev->err_lock);
	memcpy(tls_copy, hDev->last_error, sizeof(tls_copy));
	pthread_mutex_unlock(&hDev->err_lock);
	return tls_copy;
}
