// SPDX-License-Identifier: GPL-2.0
/*
 * The state of one open file of a card node that every layer of the driver
 * sets or asks: its last error (what LAST_ERROR returns: an errno and a
 * text that says exactly what went wrong), and whether it may access the
 * DMA/config registers itself (decided at open, docs/security.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "hf_drv.h"

/**
 * hf_set_error() - record the last failure of a file.
 * @hf: the file
 * @err: negative errno
 * @fmt: text
 *
 * Also logs it at debug level.
 */
void hf_set_error(struct hf_file *hf, int err, const char *fmt, ...)
{
	va_list args;

	spin_lock(&hf->err_lock);
	hf->err = err;
	va_start(args, fmt);
	vsnprintf(hf->err_text, sizeof(hf->err_text), fmt, args);
	va_end(args);
	spin_unlock(&hf->err_lock);
	dev_dbg(hf_dev(hf->card), "error %d: %s\n", err, hf->err_text);
}

/**
 * hf_set_errno() - change the errno of the last failure, keeping its text.
 * @hf: the file
 * @err: negative errno
 */
void hf_set_errno(struct hf_file *hf, int err)
{
	spin_lock(&hf->err_lock);
	hf->err = err;
	spin_unlock(&hf->err_lock);
}

/**
 * hf_rawio_decide() - whether an open file of the control node may access
 *	the DMA/config registers itself.
 * @hf: the file, being opened by the current task
 *
 * Decided once, from the opener's credentials, as /dev/mem does: a file
 * handed on (fork, SCM_RIGHTS) keeps the opener's answer, and a privileged
 * task reading or writing through a file that an unprivileged one opened
 * (a confused deputy: a setuid program writing to a descriptor it was given)
 * is refused.  Lockdown is asked only for capable openers, so unprivileged
 * opens log nothing.
 */
void hf_rawio_decide(struct hf_file *hf)
{
	hf->rawio = false;
	if (!hf_rawio_capable())
		hf->rawio_why = "opened without CAP_SYS_RAWIO";
	else if (hf_locked_down())
		hf->rawio_why = "opened while the kernel is locked down";
	else
		hf->rawio = true;
}

/**
 * hf_rawio_check() - refuse raw register access to a file that may not.
 * @hf: the file
 * @what: the access, for the error text ("read", "write", "mmap")
 *
 * Return: 0 when @hf may access the DMA/config registers itself, else
 * -EPERM with the file's last error set.
 */
int hf_rawio_check(struct hf_file *hf, const char *what)
{
	if (hf->rawio)
		return 0;
	hf_set_error(hf, -EPERM,
		     "%s of the DMA/config registers refused: this file of %s_control was %s; raw register access needs CAP_SYS_RAWIO at open (the ioctls, the user, h2c, c2h and events nodes need none)",
		     what, hf->card->name, hf->rawio_why);
	return -EPERM;
}
