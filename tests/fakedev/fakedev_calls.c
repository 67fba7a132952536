// SPDX-License-Identifier: MIT
/*
 * fakedev_calls.c - the interposed C library calls: open and its other
 * names, close, read/write, pread/pwrite, lseek, ioctl, mmap/munmap,
 * access/faccessat and stat/lstat of the fake nodes; every other path and
 * descriptor passes through to the C library.
 */
#include "fakedev.h"

/* ---- the interposed calls ---- */

static int fk_open(const char *path, int flags)
{
	unsigned int card;
	enum fk_node node;
	struct fk_file *f;
	int ch, fd, r = parse_node(path, &card, &node, &ch);

	if (r < 0 || r == 2) {
		errno = r < 0 ? -r : EISDIR;
		return -1;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return -1;
	}
	f->card = card_get(card);
	if (!f->card) {
		free(f);
		errno = ENODEV;
		return -1;
	}
	f->node = node;
	f->ch = ch;
	f->nonblock = flags & O_NONBLOCK;
	f->refs = 1;
	pthread_mutex_init(&f->lock, NULL);
	if (node == FK_EVENTS) {
		/* open enables the interrupt: arm it on the card */
		int efd, ret = HelloFPGA_UserIRQ_GetFd(f->card->h, ch, &efd);

		if (ret) {
			file_put(f);
			errno = ret == -EOPNOTSUPP ? ENOENT : -ret;
			return -1;
		}
		fd = fcntl(efd, flags & O_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD,
			   0);
	} else {
		fd = REAL(open)("/dev/null", O_RDWR | (flags & O_CLOEXEC));
	}
	if (fd < 0 || fd >= FK_MAX_FDS) {
		int err = fd < 0 ? errno : EMFILE;

		if (fd >= 0)
			REAL(close)(fd);
		file_put(f);
		errno = err;
		return -1;
	}
	f->fd = fd;
	pthread_mutex_lock(&fk_lock);
	__atomic_store_n(&fk_files[fd], f, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fk_lock);
	return fd;
}

static bool ours(const char *path)
{
	unsigned int card;
	enum fk_node node;
	int ch;

	return parse_node(path, &card, &node, &ch) != 0;
}

#define OPEN_MODE(flags, mode)						\
	do {								\
		if ((flags) & (O_CREAT | O_TMPFILE)) {			\
			va_list ap_;					\
			va_start(ap_, flags);				\
			mode = va_arg(ap_, int);			\
			va_end(ap_);					\
		}							\
	} while (0)

int open(const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(open)(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(open64)(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(openat)(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;

	OPEN_MODE(flags, mode);
	if (ours(path))
		return fk_open(path, flags);
	return REAL(openat64)(dirfd, path, flags, mode);
}

int __open_2(const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) : REAL(__open_2)(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) :
			    REAL(__open64_2)(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) :
			    REAL(__openat_2)(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return ours(path) ? fk_open(path, flags) :
			    REAL(__openat64_2)(dirfd, path, flags);
}

int close(int fd)
{
	struct fk_file *f = NULL;
	int ret;

	if (fd >= 0 && fd < FK_MAX_FDS &&
	    __atomic_load_n(&fk_files[fd], __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&fk_lock);
		f = fk_files[fd];
		__atomic_store_n(&fk_files[fd], NULL, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&fk_lock);
	}
	ret = REAL(close)(fd);
	if (f)
		file_put(f);
	return ret;
}

static ssize_t fk_rw(struct fk_file *f, void *buf, size_t n, off_t off,
		     bool use_pos, bool write)
{
	ssize_t r;

	if (use_pos) {
		pthread_mutex_lock(&f->lock);
		off = f->pos;
		pthread_mutex_unlock(&f->lock);
	}
	r = node_rw(f, buf, n, off, write);
	if (use_pos && r > 0) {
		pthread_mutex_lock(&f->lock);
		f->pos = off + r;
		pthread_mutex_unlock(&f->lock);
	}
	file_put(f);
	return r;
}

ssize_t read(int fd, void *buf, size_t n)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, 0, true, false) : REAL(read)(fd, buf, n);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, 0, true, false) :
		   REAL(__read_chk)(fd, buf, n, buflen);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, (void *)buf, n, 0, true, true) :
		   REAL(write)(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(pread)(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(pread64)(fd, buf, n, off);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(__pread_chk)(fd, buf, n, off, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, buf, n, off, false, false) :
		   REAL(__pread64_chk)(fd, buf, n, off, buflen);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, (void *)buf, n, off, false, true) :
		   REAL(pwrite)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_rw(f, (void *)buf, n, off, false, true) :
		   REAL(pwrite64)(fd, buf, n, off);
}

static off_t fk_lseek(struct fk_file *f, off_t off, int whence)
{
	uint64_t end = f->node == FK_USER ? f->card->user_bar_size :
		       f->card->info.ddr_size;
	off_t pos;

	pthread_mutex_lock(&f->lock);
	pos = whence == SEEK_SET ? off : whence == SEEK_CUR ? f->pos + off :
	      whence == SEEK_END ? (off_t)end + off : -1;
	if (pos >= 0 && whence >= SEEK_SET && whence <= SEEK_END)
		f->pos = pos;
	pthread_mutex_unlock(&f->lock);
	file_put(f);
	if (pos < 0 || whence < SEEK_SET || whence > SEEK_END) {
		errno = EINVAL;
		return -1;
	}
	return pos;
}

off_t lseek(int fd, off_t off, int whence)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_lseek(f, off, whence) : REAL(lseek)(fd, off, whence);
}

off_t lseek64(int fd, off_t off, int whence)
{
	struct fk_file *f = file_get(fd);

	return f ? fk_lseek(f, off, whence) : REAL(lseek64)(fd, off, whence);
}

int ioctl(int fd, unsigned long req, ...)
{
	struct fk_file *f = file_get(fd);
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!f)
		return REAL(ioctl)(fd, req, arg);
	ret = fk_ioctl(f, req, arg);
	file_put(f);
	return ret;
}

/*
 * mmap() of a c2h node: its MEM_HOST ring, read-only, from offset 0 (the
 * fake's memory itself: the address of the ring); munmap() of it lets go.
 */
static void *fk_mmap(struct fk_file *f, size_t len, int prot, off_t off)
{
	struct fk_map *m;

	if (prot & PROT_WRITE) {
		fail(f, -EACCES, "mmap: a stream ring is read-only (no PROT_WRITE)");
		return MAP_FAILED;
	}
	pthread_mutex_lock(&fk_lock);
	m = f->map;
	if (m && (off || len > m->len || m->mapped))
		m = NULL;
	if (m)
		m->mapped = true;
	pthread_mutex_unlock(&fk_lock);
	if (!m) {
		fail(f, f->map ? -EINVAL : -ENOENT,
		     "mmap: only the MEM_HOST stream ring, once, from offset 0 (hf_fakedev)");
		return MAP_FAILED;
	}
	return m->addr;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fk_file *f = file_get(fd);
	void *ret;

	if (!f)
		return REAL(mmap)(addr, len, prot, flags, fd, off);
	ret = fk_mmap(f, len, prot, off);
	file_put(f);
	return ret;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	struct fk_map *found = NULL;

	pthread_mutex_lock(&fk_lock);
	for (struct fk_map *m = fk_maps; m && !found; m = m->next)
		if (m->addr == addr && m->mapped)
			found = m;
	pthread_mutex_unlock(&fk_lock);
	if (!found)
		return REAL(munmap)(addr, len);
	map_release(found, false);
	return 0;
}

/* access() and stat() of our paths: 0 for a present node, else ENOENT. */
static int fk_exists(const char *path, struct stat *st)
{
	unsigned int card;
	enum fk_node node;
	int ch, r = parse_node(path, &card, &node, &ch);

	if (r < 0) {
		errno = -r;
		return -1;
	}
	if (st) {
		memset(st, 0, sizeof(*st));
		st->st_mode = r == 2 ? S_IFDIR | 0755 : S_IFCHR | 0660;
		st->st_nlink = 1;
		st->st_rdev = makedev(240, node == FK_EVENTS ?
				      card * 64 + 32 + ch :
				      card * 64 + node * 4 + ch);
	}
	return 0;
}

int access(const char *path, int mode)
{
	return ours(path) ? fk_exists(path, NULL) : REAL(access)(path, mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
	return ours(path) ? fk_exists(path, NULL) :
			    REAL(faccessat)(dirfd, path, mode, flags);
}

int stat(const char *path, struct stat *st)
{
	return ours(path) ? fk_exists(path, st) : REAL(stat)(path, st);
}

int lstat(const char *path, struct stat *st)
{
	return ours(path) ? fk_exists(path, st) : REAL(lstat)(path, st);
}
