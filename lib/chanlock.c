// SPDX-License-Identifier: MIT
/*
 * chanlock.c - waits with a deadline, and per-channel mutual exclusion.
 *
 * A channel is held inside a process by a mutex per channel of the handle,
 * and between processes and handles sharing a card by a robust,
 * process-shared mutex per channel in the first page of the card's lock
 * file (struct hf_shared_locks), mapped by every handle of the card.  An
 * uncontended transfer so takes and drops it without a system call; a
 * holder that dies (killed in the middle of a transfer, or exec()) leaves it
 * to the next taker, who gets EOWNERDEAD from the kernel's robust-futex list
 * and marks it consistent: the channel was the dead holder's alone.
 *
 * The card's other inter-process locks (creation, read-modify-write of card
 * memory blocks) stay open-file-description locks on bytes of files: they
 * are taken rarely, or only by an aligned card's partial writes.
 *
 * Every wait of a call ends at the call's deadline (its handle's timeout,
 * or the timeout the call was given), with -EBUSY: nothing was moved.  The
 * deadline is of CLOCK_REALTIME, the clock of pthread_mutex_timedlock(),
 * which the thread sanitizer understands.  An OFD lock has no timed wait:
 * it is tried, then retried after a sleep that grows from 50 us to 5 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hf_chanlock.h"
#include "hf_dev.h"
#include "hf_error.h"

#define HF_OFD_SLEEP_MIN_NS	50000L
#define HF_OFD_SLEEP_MAX_NS	5000000L

_Static_assert(sizeof(struct hf_shared_locks) <= HF_SHARED_LOCKS_SIZE,
	       "the channel locks fit the lock file's first page");

/** hf_deadline_in() - the deadline @timeout_ms from now. */
void hf_deadline_in(struct timespec *dl, int timeout_ms)
{
	clock_gettime(CLOCK_REALTIME, dl);
	dl->tv_sec += timeout_ms / 1000;
	dl->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl->tv_nsec >= 1000000000L) {
		dl->tv_sec++;
		dl->tv_nsec -= 1000000000L;
	}
}

/* Nanoseconds left until @dl, 0 when past. */
static long long ns_left(const struct timespec *dl)
{
	struct timespec now;
	long long left;

	clock_gettime(CLOCK_REALTIME, &now);
	left = (long long)(dl->tv_sec - now.tv_sec) * 1000000000LL +
	       (dl->tv_nsec - now.tv_nsec);
	return left > 0 ? left : 0;
}

/*
 * Sleep before the next try of a lock: *@sleep_ns, at most until @dl, then
 * twice as long next time (up to HF_OFD_SLEEP_MAX_NS).  Return: true when
 * @dl has passed (no sleep).
 */
static bool backoff(const struct timespec *dl, long *sleep_ns)
{
	long long left = ns_left(dl);

	if (!left)
		return true;
	if (left < *sleep_ns)
		*sleep_ns = (long)left;
	nanosleep(&(struct timespec){ 0, *sleep_ns }, NULL);
	*sleep_ns = *sleep_ns * 2 > HF_OFD_SLEEP_MAX_NS ?
		    HF_OFD_SLEEP_MAX_NS : *sleep_ns * 2;
	return false;
}

/** hf_mutex_lock_until() - lock @m by @dl; 0, or -EBUSY at the deadline. */
int hf_mutex_lock_until(pthread_mutex_t *m, const struct timespec *dl)
{
	return pthread_mutex_timedlock(m, dl) ? -EBUSY : 0;
}

/** hf_rwlock_lock_until() - lock @l shared or (@excl) exclusively by @dl. */
int hf_rwlock_lock_until(pthread_rwlock_t *l, bool excl,
			 const struct timespec *dl)
{
	int ret = excl ? pthread_rwlock_timedwrlock(l, dl) :
			 pthread_rwlock_timedrdlock(l, dl);

	return ret ? -EBUSY : 0;
}

/**
 * hf_ofd_lock_until() - take (@type F_RDLCK or F_WRLCK) or drop (F_UNLCK)
 * the OFD lock on @len bytes of @fd at @start, waiting until @dl at most.
 * @dl: NULL to wait for as long as it takes
 *
 * Return: 0, -EBUSY (another holder kept it until @dl), or negative errno.
 */
int hf_ofd_lock_until(int fd, short type, off_t start, off_t len,
		      const struct timespec *dl)
{
	long sleep_ns = HF_OFD_SLEEP_MIN_NS;
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = start;
	fl.l_len = len;
	for (;;) {
		if (!fcntl(fd, dl ? F_OFD_SETLK : F_OFD_SETLKW, &fl))
			return 0;
		if (errno == EINTR)
			continue;
		if (!dl || (errno != EAGAIN && errno != EACCES))
			return -errno;
		if (backoff(dl, &sleep_ns))
			return -EBUSY;
	}
}

/**
 * hf_shared_locks_map() - map the channel locks of a shared card.
 * @fd: the card's lock file, its creation lock held by the caller (so of
 *	racing openers exactly one initialises the locks)
 * @err: receives the negative errno on failure
 *
 * Return: the mapping, or NULL with *@err set to a negative errno (the
 * error text is the caller's to set: -EPROTO when the file was laid out by
 * an incompatible build of the library, -ENOSPC when its filesystem has no
 * room for the page).
 */
struct hf_shared_locks *hf_shared_locks_map(int fd, int *err)
{
	struct hf_shared_locks *sl;
	pthread_mutexattr_t a;
	int ret;

	/*
	 * The page is touched through a shared mapping: one the filesystem
	 * cannot provide then (full) would be SIGBUS.  So its block is taken
	 * now, as the card memory's are (-ENOSPC); posix_fallocate() writes
	 * it where the filesystem has no fallocate(), and leaves a page
	 * already there as it is.  (It grows the file to the page as well.)
	 */
	do {
		ret = posix_fallocate(fd, 0, HF_SHARED_LOCKS_SIZE);
	} while (ret == EINTR);
	if (ret)
		return *err = -ret, NULL;
	sl = mmap(NULL, HF_SHARED_LOCKS_SIZE, PROT_READ | PROT_WRITE,
		  MAP_SHARED, fd, 0);
	if (sl == MAP_FAILED)
		return *err = -errno, NULL;
	if (__atomic_load_n(&sl->magic, __ATOMIC_ACQUIRE) == HF_SHARED_LOCKS_MAGIC) {
		if (sl->version == HF_SHARED_LOCKS_VERSION &&
		    sl->mutex_size == sizeof(pthread_mutex_t))
			return sl;
		munmap(sl, HF_SHARED_LOCKS_SIZE);
		return *err = -EPROTO, NULL;
	}
	if (sl->magic) {
		munmap(sl, HF_SHARED_LOCKS_SIZE);
		return *err = -EPROTO, NULL;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < XDMA_MAX_CHANNELS; c++)
			pthread_mutex_init(&sl->chan[d][c], &a);
	pthread_mutexattr_destroy(&a);
	sl->version = HF_SHARED_LOCKS_VERSION;
	sl->mutex_size = sizeof(pthread_mutex_t);
	__atomic_store_n(&sl->magic, HF_SHARED_LOCKS_MAGIC, __ATOMIC_RELEASE);
	return sl;
}

void hf_shared_locks_unmap(struct hf_shared_locks *sl)
{
	if (sl)
		munmap(sl, HF_SHARED_LOCKS_SIZE);
}

/*
 * Take the inter-process lock of a channel by @dl: 0, -EBUSY, or -EIO for
 * a lock left unrecoverable (never by this library: it always marks a dead
 * holder's lock consistent before it lets go).  A holder that died leaves
 * the lock EOWNERDEAD: what it held was its own engine's run, so the lock
 * is marked consistent and taken.
 *
 * The thread sanitizer's pthread_mutex_timedlock() does not know
 * EOWNERDEAD (its trylock does): built with it, a held lock is polled.
 */
static int shared_lock_until(pthread_mutex_t *m, const struct timespec *dl)
{
	long sleep_ns = HF_OFD_SLEEP_MIN_NS;
	int ret;

	for (;;) {
		ret = pthread_mutex_trylock(m);
		if (ret != EBUSY)
			break;
#ifdef __SANITIZE_THREAD__
		if (backoff(dl, &sleep_ns))
			return -EBUSY;
#else
		(void)sleep_ns;
		ret = pthread_mutex_timedlock(m, dl);
		break;
#endif
	}
	if (ret == EOWNERDEAD) {
		pthread_mutex_consistent(m);
		return 0;
	}
	if (ret == ETIMEDOUT)
		return -EBUSY;
	return ret ? -EIO : 0;
}

/**
 * hf_chan_lock() - take channel @ch of direction @dir for one transfer.
 * @dl: the call's deadline
 *
 * Waits while another thread or process uses the channel, until @dl.
 * Return: 0, -EBUSY (still in use at @dl) or negative errno, with the error
 * text set.
 */
int hf_chan_lock(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		 const struct timespec *dl)
{
	int ret = hf_mutex_lock_until(&dev->chan_lock[dir][ch], dl);

	if (!ret && dev->shlocks) {
		ret = shared_lock_until(&dev->shlocks->chan[dir][ch], dl);
		if (ret)
			pthread_mutex_unlock(&dev->chan_lock[dir][ch]);
	}
	if (ret == -EBUSY)
		return hf_set_error(dev, ret,
				    "%s%d: the channel stayed in use by another thread or process until the timeout; nothing was moved",
				    hf_dir_name(dir), ch);
	if (ret)
		return hf_set_error(dev, ret, "%s%d: cannot lock the channel: %s",
				    hf_dir_name(dir), ch, strerror(-ret));
	return 0;
}

void hf_chan_unlock(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch)
{
	if (dev->shlocks)
		pthread_mutex_unlock(&dev->shlocks->chan[dir][ch]);
	pthread_mutex_unlock(&dev->chan_lock[dir][ch]);
}
