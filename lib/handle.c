// SPDX-License-Identifier: MIT
/*
 * handle.c - card handles: a process-wide table of open cards.
 *
 * A HELLOFPGA_HANDLE is a token, never a pointer:
 *	generation << HF_TABLE_SLOT_BITS | (slot + 1)   (hf_table.c)
 * (submit.c folds its low 21 bits, the slot and 5 bits of the generation,
 * into the tickets of the handle's submissions.)
 * The generation comes from a process-wide counter, so a handle that was
 * closed (its slot free or reused by a later Open) never matches again: any
 * use of it is -EBADF, never the memory of another card.
 *
 * Every call on a handle takes a reference (hf_dev_get()) under the table
 * lock and drops it when done (hf_dev_put()).  HelloFPGA_Close() takes the
 * handle out of the table at once, so calls that start later fail with
 * -EBADF, then waits for the references of the calls in flight to go before
 * anything is freed: Close wins against new calls and never frees what a
 * call still uses.
 *
 * fork(): the child inherits the table but not the engine threads, and the
 * card's locks would be shared with the parent (an OFD lock belongs to the
 * open file description both now hold).  So a handle does not survive
 * fork(): in the child every call on an inherited handle fails at once with
 * -ECHILD, Close of one only forgets it (it touches nothing the parent
 * uses), and the files that carry locks are closed in the child right after
 * fork(), so a parent that dies still releases its locks.  The child opens
 * the card again to use it.
 */
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hf_dev.h"
#include "hf_error.h"
#include "hf_handle.h"
#include "hf_table.h"

/*
 * In the child, on every card of the table (hf_table.c holds its lock): only
 * the thread that forked runs.  Another thread of the parent may have held
 * any other lock of a handle at fork() time, so nothing here takes one.
 */
static void dev_fork_child(void *entry)
{
	struct hellofpga_dev *dev = entry;

	if (dev->inherited)
		return;
	dev->inherited = true;
	if (dev->lock_fd >= 0)
		close(dev->lock_fd);
	dev->lock_fd = -1;
	if (dev->ops->fork_child)
		dev->ops->fork_child(dev);
}

HF_TABLE_DEFINE(tbl, dev_fork_child)

static uintptr_t handle_val(HELLOFPGA_HANDLE h)
{
	return (uintptr_t)(void *)h;
}

/**
 * hf_dev_register() - give the opened card @dev a handle.
 * Return: 0, or -ENOMEM (table full or out of memory).
 */
int hf_dev_register(struct hellofpga_dev *dev, HELLOFPGA_HANDLE *out)
{
	uintptr_t v;

	hf_table_lock(&tbl);
	if (hf_table_insert(&tbl, dev, &v)) {
		hf_table_unlock(&tbl);
		return -ENOMEM;
	}
	dev->refs = 0;
	dev->closing = false;
	dev->inherited = false;
	dev->handle = v;
	*out = (HELLOFPGA_HANDLE)(void *)dev->handle;
	hf_table_unlock(&tbl);
	return 0;
}

/**
 * hf_dev_ref() - take a reference on the card of @h, setting no error text.
 * @h: a handle
 * @out: receives the card
 *
 * Return: 0, -EBADF (NULL, closed or being closed) or -ECHILD (opened by
 * the parent of this process).
 */
int hf_dev_ref(HELLOFPGA_HANDLE h, struct hellofpga_dev **out)
{
	struct hellofpga_dev *dev;
	int ret = 0;

	*out = NULL;
	hf_table_lock(&tbl);
	dev = hf_table_find(&tbl, handle_val(h));
	if (!dev)
		ret = -EBADF;	/* a closing card has left the table */
	else if (dev->inherited)
		ret = -ECHILD;
	else {
		dev->refs++;
		*out = dev;
	}
	hf_table_unlock(&tbl);
	return ret;
}

/**
 * hf_dev_get() - the card of @h for one call of public function @fn.
 * @h: the caller's handle
 * @fn: the function, for the error text
 * @out: receives the card; release it with hf_dev_put()
 *
 * Return: 0, or -EBADF / -ECHILD with the thread's error text set.
 */
int hf_dev_get(HELLOFPGA_HANDLE h, const char *fn, struct hellofpga_dev **out)
{
	int ret = hf_dev_ref(h, out);

	if (ret == -ECHILD)
		return hf_set_error(NULL, ret,
				    "%s: handle %p was opened before fork(): a handle does not survive fork(), open the card again in this process",
				    fn, (void *)h);
	if (ret)
		return hf_set_error(NULL, ret,
				    "%s: invalid handle %p (NULL, closed, or being closed)",
				    fn, (void *)h);
	return 0;
}

/** hf_dev_put() - drop a reference taken by hf_dev_get() or hf_dev_ref(). */
void hf_dev_put(struct hellofpga_dev *dev)
{
	hf_table_lock(&tbl);
	if (!--dev->refs && dev->closing)
		hf_table_wake(&tbl);
	hf_table_unlock(&tbl);
}

/**
 * hf_dev_unregister() - end handle @h for HelloFPGA_Close().
 * @h: the handle
 * @out: receives the card to free, once every call on it has returned;
 *	NULL for a handle inherited over fork() (nothing of it is freed: the
 *	parent's threads may have held its locks when it forked)
 * @wake: called with the card marked closing, under the table lock, to
 *	wake the waits of the layers above (streams, submit queues)
 *
 * Return: 0, or -EBADF (NULL, closed, or being closed by another thread).
 */
/**
 * hf_dev_wake_fd() - the eventfd that HelloFPGA_Close() signals to wake the
 * user-interrupt waits on @dev, made on first use.
 * @dev: a card the caller holds a reference of
 *
 * Made and signalled under the table lock, so a Close either finds it and
 * signals it, or comes first and the caller sees @dev closing.
 *
 * Return: the descriptor, -EBADF (@dev is being closed), or the errno of
 * eventfd() (-EMFILE, -ENFILE, -ENOMEM).
 */
int hf_dev_wake_fd(struct hellofpga_dev *dev)
{
	int ret;

	hf_table_lock(&tbl);
	if (dev->closing) {
		ret = -EBADF;
	} else if (dev->wake_fd >= 0) {
		ret = dev->wake_fd;
	} else {
		ret = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (ret < 0)
			ret = -errno;
		else
			dev->wake_fd = ret;
	}
	hf_table_unlock(&tbl);
	return ret;
}

int hf_dev_unregister(HELLOFPGA_HANDLE h, struct hellofpga_dev **out,
		      void (*wake)(struct hellofpga_dev *dev))
{
	struct hellofpga_dev *dev;

	*out = NULL;
	hf_table_lock(&tbl);
	dev = hf_table_remove(&tbl, handle_val(h));
	if (!dev) {
		hf_table_unlock(&tbl);
		return -EBADF;
	}
	if (dev->inherited) {
		hf_table_unlock(&tbl);
		return 0;
	}
	/* atomic: submit.c looks without the table lock */
	__atomic_store_n(&dev->closing, true, __ATOMIC_RELEASE);
	wake(dev);
	if (dev->wake_fd >= 0) {
		uint64_t one = 1;
		/* an eventfd's counter: cannot fail short of overflowing */
		ssize_t r = write(dev->wake_fd, &one, sizeof(one));

		(void)r;
	}
	while (dev->refs)
		hf_table_wait(&tbl);
	hf_table_unlock(&tbl);
	*out = dev;
	return 0;
}
