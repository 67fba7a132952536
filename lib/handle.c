// SPDX-License-Identifier: MIT
/*
 * handle.c - card handles: a process-wide table of open cards.
 *
 * A HELLOFPGA_HANDLE is a token, never a pointer:
 *	generation << HF_HANDLE_SLOT_BITS | (slot + 1)
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
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hf_dev.h"
#include "hf_error.h"
#include "hf_handle.h"

#define HF_HANDLE_SLOT_BITS	16
#define HF_HANDLE_MAX_SLOTS	((1u << HF_HANDLE_SLOT_BITS) - 1)
#define HF_HANDLE_GEN_MASK	(UINTPTR_MAX >> HF_HANDLE_SLOT_BITS)

/**
 * struct hf_dev_slot - an entry of the handle table.
 * @dev: the card, or NULL for a free slot
 * @gen: generation of the handle that names @dev
 */
struct hf_dev_slot {
	struct hellofpga_dev *dev;
	uintptr_t gen;
};

static pthread_mutex_t tbl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tbl_idle = PTHREAD_COND_INITIALIZER;
static pthread_once_t tbl_once = PTHREAD_ONCE_INIT;
static struct hf_dev_slot *slots;
static uint32_t nslots;
static uintptr_t next_gen;

static void tbl_prepare(void)
{
	pthread_mutex_lock(&tbl_lock);
}

static void tbl_parent(void)
{
	pthread_mutex_unlock(&tbl_lock);
}

/*
 * In the child: only the thread that forked runs, holding @tbl_lock (taken
 * in tbl_prepare()).  Another thread of the parent may have held any other
 * lock of a handle at fork() time, so nothing here takes one.
 */
static void tbl_child(void)
{
	for (uint32_t i = 0; i < nslots; i++) {
		struct hellofpga_dev *dev = slots[i].dev;

		if (!dev || dev->inherited)
			continue;
		dev->inherited = true;
		if (dev->lock_fd >= 0)
			close(dev->lock_fd);
		dev->lock_fd = -1;
		if (dev->ops->fork_child)
			dev->ops->fork_child(dev);
	}
	/* a new condition variable: waiters of the parent are not here */
	pthread_cond_init(&tbl_idle, NULL);
	pthread_mutex_unlock(&tbl_lock);
}

static void tbl_init(void)
{
	pthread_atfork(tbl_prepare, tbl_parent, tbl_child);
}

static uintptr_t handle_val(HELLOFPGA_HANDLE h)
{
	return (uintptr_t)(void *)h;
}

/* The slot @h names, if it is the handle of the card in it; @tbl_lock held. */
static struct hf_dev_slot *slot_of(HELLOFPGA_HANDLE h)
{
	uintptr_t v = handle_val(h);
	uintptr_t idx = (v & HF_HANDLE_MAX_SLOTS) - 1;

	if (!v || idx >= nslots)
		return NULL;
	if (!slots[idx].dev || slots[idx].gen != v >> HF_HANDLE_SLOT_BITS)
		return NULL;
	return &slots[idx];
}

/**
 * hf_dev_register() - give the opened card @dev a handle.
 * Return: 0, or -ENOMEM (table full or out of memory).
 */
int hf_dev_register(struct hellofpga_dev *dev, HELLOFPGA_HANDLE *out)
{
	struct hf_dev_slot *s = NULL;
	uint32_t i;

	pthread_once(&tbl_once, tbl_init);
	pthread_mutex_lock(&tbl_lock);
	for (i = 0; i < nslots; i++)
		if (!slots[i].dev)
			break;
	if (i == nslots) {
		uint32_t n = nslots ? nslots * 2 : 16;

		if (n > HF_HANDLE_MAX_SLOTS)
			n = HF_HANDLE_MAX_SLOTS;
		s = n > nslots ? realloc(slots, n * sizeof(*slots)) : NULL;
		if (!s) {
			pthread_mutex_unlock(&tbl_lock);
			return -ENOMEM;
		}
		for (uint32_t j = nslots; j < n; j++)
			s[j] = (struct hf_dev_slot){ NULL, 0 };
		slots = s;
		nslots = n;
	}
	next_gen = (next_gen + 1) & HF_HANDLE_GEN_MASK;
	if (!next_gen)
		next_gen = 1;
	slots[i].dev = dev;
	slots[i].gen = next_gen;
	dev->refs = 0;
	dev->closing = false;
	dev->inherited = false;
	dev->handle = next_gen << HF_HANDLE_SLOT_BITS | (uintptr_t)(i + 1);
	*out = (HELLOFPGA_HANDLE)(void *)dev->handle;
	pthread_mutex_unlock(&tbl_lock);
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
	struct hf_dev_slot *s;
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&tbl_lock);
	s = slot_of(h);
	if (!s)
		ret = -EBADF;	/* a closing card has left the table */
	else if (s->dev->inherited)
		ret = -ECHILD;
	else {
		s->dev->refs++;
		*out = s->dev;
	}
	pthread_mutex_unlock(&tbl_lock);
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
	pthread_mutex_lock(&tbl_lock);
	if (!--dev->refs && dev->closing)
		pthread_cond_broadcast(&tbl_idle);
	pthread_mutex_unlock(&tbl_lock);
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

	pthread_mutex_lock(&tbl_lock);
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
	pthread_mutex_unlock(&tbl_lock);
	return ret;
}

int hf_dev_unregister(HELLOFPGA_HANDLE h, struct hellofpga_dev **out,
		      void (*wake)(struct hellofpga_dev *dev))
{
	struct hf_dev_slot *s;
	struct hellofpga_dev *dev;

	*out = NULL;
	pthread_mutex_lock(&tbl_lock);
	s = slot_of(h);
	if (!s) {
		pthread_mutex_unlock(&tbl_lock);
		return -EBADF;
	}
	dev = s->dev;
	s->dev = NULL;
	if (dev->inherited) {
		pthread_mutex_unlock(&tbl_lock);
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
		pthread_cond_wait(&tbl_idle, &tbl_lock);
	pthread_mutex_unlock(&tbl_lock);
	*out = dev;
	return 0;
}
