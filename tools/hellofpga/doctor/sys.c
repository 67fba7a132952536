// SPDX-License-Identifier: MIT
/*
 * sys.c - "hellofpga doctor": reading the files of the system below the
 * root directory (--root), so a recorded tree reads as the live one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doctor.h"

/**
 * doc_path() - the name of system file @fmt below the root.
 * @d: the run
 * @buf: receives ROOT/PATH
 * @len: its size
 * @fmt: printf format of the absolute path ("/sys/module/%s")
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int doc_path(const struct doc *d, char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(d->root);
	va_list ap;
	int ret;

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, d->root, n);
	va_start(ap, fmt);
	ret = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return ret < 0 || (size_t)ret >= len - n ? -ENAMETOOLONG : 0;
}

static int open_below(const struct doc *d, const char *path)
{
	char full[1024];
	int fd;

	if (doc_path(d, full, sizeof(full), "%s", path))
		return -ENAMETOOLONG;
	do {
		fd = open(full, O_RDONLY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

/**
 * doc_read() - read up to @len bytes of system file @path.
 * Return: the bytes read, or a negative errno.
 */
ssize_t doc_read(const struct doc *d, const char *path, void *buf, size_t len)
{
	size_t got = 0;
	int fd = open_below(d, path);

	if (fd < 0)
		return fd;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	close(fd);
	return got;
}

/**
 * doc_read_line() - the first line of system file @path, without its
 * newline.
 * Return: 0, or a negative errno.
 */
int doc_read_line(const struct doc *d, const char *path, char *buf, size_t len)
{
	ssize_t n = doc_read(d, path, buf, len - 1);

	if (n < 0)
		return n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/**
 * doc_read_u64() - system file @path as a number (decimal, or hex with 0x).
 * Return: 0, a negative errno, or -EINVAL when it holds no number.
 */
int doc_read_u64(const struct doc *d, const char *path, uint64_t *v)
{
	char buf[64], *end;
	int ret = doc_read_line(d, path, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || end == buf ? -EINVAL : 0;
}

/** doc_exists() - whether system file or directory @path is there. */
bool doc_exists(const struct doc *d, const char *path)
{
	char full[1024];

	return !doc_path(d, full, sizeof(full), "%s", path) &&
	       access(full, F_OK) == 0;
}

/**
 * doc_readlink_base() - the last component of symbolic link @path's target
 * ("nvidia" of .../drivers/nvidia).
 * Return: 0, or a negative errno.
 */
int doc_readlink_base(const struct doc *d, const char *path, char *buf,
		      size_t len)
{
	char full[1024], target[1024];
	const char *base;
	ssize_t n;

	if (doc_path(d, full, sizeof(full), "%s", path))
		return -ENAMETOOLONG;
	n = readlink(full, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, base);
	return 0;
}

/* Read all of @fd into a NUL-terminated buffer, then close it. */
static char *read_fd(int fd, size_t *len)
{
	size_t cap = 65536, got = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t n;

		if (got + 1 >= cap) {
			char *more = realloc(buf, cap * 2);

			if (!more || cap > (64u << 20)) {
				free(more ? more : buf);
				buf = NULL;
				break;
			}
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			buf = NULL;
		} else if (!n) {
			buf[got] = '\0';
			break;
		} else {
			got += n;
		}
	}
	close(fd);
	if (buf && len)
		*len = got;
	return buf;
}

/**
 * doc_read_all() - all of system file @path, NUL-terminated; free() it.
 * Return: the text, or NULL (errno set) when it cannot be read.
 */
char *doc_read_all(const struct doc *d, const char *path, size_t *len)
{
	int fd = open_below(d, path);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return read_fd(fd, len);
}

/**
 * doc_read_gzip() - gzip-compressed system file @path (/proc/config.gz),
 * decompressed by "gzip -dc"; free() it.
 * Return: the text, or NULL when it is missing or gzip cannot decode it.
 */
char *doc_read_gzip(const struct doc *d, const char *path, size_t *len)
{
	int fd = open_below(d, path), pfd[2], status;
	char *text;
	pid_t pid;

	if (fd < 0)
		return NULL;
	if (pipe(pfd)) {
		close(fd);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd, 0);
		dup2(pfd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execlp("gzip", "gzip", "-dc", (char *)NULL);
		_exit(127);
	}
	close(fd);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return NULL;
	}
	text = read_fd(pfd[0], len);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (text && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		free(text);
		text = NULL;
	}
	return text;
}
