// SPDX-License-Identifier: MIT
/*
 * test_emu_state.c - where an emulated card's state lives, and how it is
 * made: a directory of the user's own (0700, files 0600, no symbolic link
 * followed), so users never share or collide.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "lib_helpers.h"

#define NOBODY 65534

/* A fresh directory below the test's HELLOFPGA_EMU_DIR parent. */
static void t_subdir(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s", t_emu_dir(), name);
	HF_CHECK_MSG(!mkdir(path, 0700) || errno == EEXIST, "mkdir %s: %s",
		     path, strerror(errno));
}

static char shared_base[64];

static void rm_shared_base(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", shared_base);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", shared_base);
}

/*
 * A world-writable, sticky directory in /tmp (as /dev/shm is) for the
 * per-user state directories, removed at exit.
 */
static const char *t_shared_base(void)
{
	if (shared_base[0])
		return shared_base;
	snprintf(shared_base, sizeof(shared_base), "/tmp/hf-state-XXXXXX");
	HF_CHECK(mkdtemp(shared_base));
	HF_CHECK(!chmod(shared_base, 01777));
	atexit(rm_shared_base);
	return shared_base;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	HF_CHECK_MSG(!lstat(path, &st), "lstat %s: %s", path,
		     strerror(errno));
	return st.st_mode;
}

/* HelloFPGA_Open(@name)'s return value; the handle is closed again. */
static int try_open(const char *name)
{
	HELLOFPGA_HANDLE h;
	int ret = HelloFPGA_Open(name, &h);

	if (!ret)
		HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	return ret;
}

HF_TEST(default_state_dir_is_per_user_0700_with_files_0600)
{
	const char *base = t_shared_base();
	char dir[128], file[192];

	unsetenv("HELLOFPGA_EMU_DIR");
	hf_emu_test_state_base(base);
	HF_CHECK_ERR(try_open("emu:0,ddr=1M"), 0);
	hf_emu_test_state_base(NULL);
	snprintf(dir, sizeof(dir), "%s/hellofpga-%u", base,
		 (unsigned int)geteuid());
	HF_CHECK(S_ISDIR(mode_of(dir)));
	HF_CHECK_EQ(mode_of(dir) & 07777, 0700);
	snprintf(file, sizeof(file), "%s/hellofpga-emu0.ddr", dir);
	HF_CHECK(S_ISREG(mode_of(file)));
	HF_CHECK_EQ(mode_of(file) & 07777, 0600);
	snprintf(file, sizeof(file), "%s/hellofpga-emu0.lock", dir);
	HF_CHECK(S_ISREG(mode_of(file)));
	HF_CHECK_EQ(mode_of(file) & 07777, 0600);
}

HF_TEST(state_dir_that_is_a_symlink_is_refused)
{
	char real[128], link[128];

	t_subdir(real, sizeof(real), "real");
	snprintf(link, sizeof(link), "%s/link", t_emu_dir());
	HF_CHECK(!symlink(real, link));
	setenv("HELLOFPGA_EMU_DIR", link, 1);
	HF_CHECK_ERR(try_open("emu:0,ddr=1M"), -EPERM);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL), "symbolic link"),
		     "%s", HelloFPGA_GetLastError(NULL));
	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
	/* nothing was made behind the link */
	HF_CHECK_ERR(rmdir(real), 0);
}

HF_TEST(card_file_that_is_a_symlink_is_refused_and_its_target_untouched)
{
	char dir[128], victim[192], link[192];
	struct stat st;
	int fd;

	t_subdir(dir, sizeof(dir), "planted");
	snprintf(victim, sizeof(victim), "%s/victim", t_emu_dir());
	fd = open(victim, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	HF_CHECK(fd >= 0);
	close(fd);
	snprintf(link, sizeof(link), "%s/hellofpga-emu0.ddr", dir);
	HF_CHECK(!symlink(victim, link));
	setenv("HELLOFPGA_EMU_DIR", dir, 1);
	HF_CHECK_ERR(try_open("emu:0,ddr=1M"), -EPERM);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL), "symbolic link"),
		     "%s", HelloFPGA_GetLastError(NULL));
	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
	HF_CHECK(!stat(victim, &st));
	HF_CHECK_EQ(st.st_size, 0);
}

HF_TEST(state_dir_writable_by_others_is_refused)
{
	char dir[128];

	t_subdir(dir, sizeof(dir), "open-to-all");
	HF_CHECK(!chmod(dir, 0777));
	setenv("HELLOFPGA_EMU_DIR", dir, 1);
	HF_CHECK_ERR(try_open("emu:0,ddr=1M"), -EPERM);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL),
			    "writable by other users"),
		     "%s", HelloFPGA_GetLastError(NULL));
	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
}

HF_TEST(state_dir_of_another_user_is_refused)
{
	char dir[128];

	if (geteuid() != 0)
		HF_SKIP("needs root to give a directory to another user");
	t_subdir(dir, sizeof(dir), "nobodys");
	HF_CHECK(!chown(dir, NOBODY, NOBODY));
	setenv("HELLOFPGA_EMU_DIR", dir, 1);
	HF_CHECK_ERR(try_open("emu:0,ddr=1M"), -EPERM);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL), "belongs to uid"),
		     "%s", HelloFPGA_GetLastError(NULL));
	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
}

/* As user nobody: emu:1 with 2 MiB, its own pattern written and read back. */
static int nobody_uses_emu1(void)
{
	static uint8_t buf[4096], back[4096];
	HELLOFPGA_HANDLE h;
	int ret;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return 10;
	ret = HelloFPGA_Open("emu:1,ddr=2M", &h);
	if (ret) {
		fprintf(stderr, "nobody: open: %d %s\n", ret,
			HelloFPGA_GetLastError(NULL));
		return 11;
	}
	t_fill(buf, sizeof(buf), 2);
	if (HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf), NULL) ||
	    HelloFPGA_DMA_MM_ReadC2H(h, 0, back, 0, sizeof(back), NULL) ||
	    t_check(back, sizeof(back), 2) >= 0)
		return 12;
	return HelloFPGA_Close(h) ? 13 : 0;
}

/*
 * Root and nobody both open emu:1, with different sizes: each gets a card
 * of its own in a directory of its own, where a shared directory made the
 * second user fail (EACCES on the first one's lock file, or "already
 * exists").
 */
HF_TEST(two_users_have_separate_cards)
{
	static uint8_t buf[4096], back[4096];
	const char *base;
	char dir[128];
	HELLOFPGA_INFO info;
	HELLOFPGA_HANDLE h;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		HF_SKIP("needs root to run a second user (setuid in a child)");
	base = t_shared_base();
	unsetenv("HELLOFPGA_EMU_DIR");
	hf_emu_test_state_base(base);
	HF_CHECK_ERR(HelloFPGA_Open("emu:1,ddr=1M", &h), 0);
	t_fill(buf, sizeof(buf), 1);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf), NULL),
		     0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	/* no handle open (no engine thread) across the fork */
	fflush(NULL);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0)
		_exit(nobody_uses_emu1());
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		     "nobody's child: status 0x%x", status);
	/* root's card kept its size and its data */
	HF_CHECK_ERR(HelloFPGA_Open("emu:1", &h), 0);
	HF_CHECK_ERR(HelloFPGA_GetInfo(h, &info), 0);
	HF_CHECK_EQ(info.ddr_size, 1 << 20);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, back, 0, sizeof(back), NULL),
		     0);
	HF_CHECK(t_check(back, sizeof(back), 1) < 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
	hf_emu_test_state_base(NULL);
	snprintf(dir, sizeof(dir), "%s/hellofpga-%u", base, NOBODY);
	HF_CHECK(S_ISDIR(mode_of(dir)));
	snprintf(dir, sizeof(dir), "%s/hellofpga-0", base);
	HF_CHECK(S_ISDIR(mode_of(dir)));
	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
}

#define RACERS 4

/*
 * Child @i of a creation race: open emu:@card with (@i + 1) MiB once @go is
 * set, then write and read the last page of the card memory it was given.
 * Exit 0 with its size in @sizes[@i], 1 when told the card exists with
 * another size, 2 on anything else.
 */
static int race_open(unsigned int card, int i, int *go, uint64_t *sizes)
{
	uint8_t page[4096];
	HELLOFPGA_INFO info;
	HELLOFPGA_HANDLE h;
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "emu:%u,ddr=%dM", card, i + 1);
	while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
		sched_yield();
	ret = HelloFPGA_Open(name, &h);
	if (ret == -EINVAL &&
	    strstr(HelloFPGA_GetLastError(NULL), "already exists"))
		return 1;
	if (ret)
		return 2;
	if (HelloFPGA_GetInfo(h, &info))
		return 2;
	__atomic_store_n(&sizes[i], info.ddr_size, __ATOMIC_RELEASE);
	t_fill(page, sizeof(page), i);
	if (HelloFPGA_DMA_MM_WriteH2C(h, 0, page, info.ddr_size - 4096,
				      sizeof(page), NULL) ||
	    HelloFPGA_DMA_MM_ReadC2H(h, 0, page, info.ddr_size - 4096,
				     sizeof(page), NULL))
		return 2;
	return HelloFPGA_Close(h) ? 2 : 0;
}

/*
 * Processes racing to create one card with different ddr= sizes: exactly
 * one size wins, every opener that asked for another fails with -EINVAL
 * ("already exists"), none dies of a signal (SIGBUS: mapped larger than a
 * racer truncated the file), and the file has the winner's size.  With an
 * unlocked fstat-then-ftruncate, 16 of 60 such races went wrong.
 */
HF_TEST(racing_creators_with_different_sizes_agree_on_one)
{
	uint64_t *sizes;
	void *shm;
	int *go;

	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	HF_CHECK(shm != MAP_FAILED);
	go = shm;
	sizes = (uint64_t *)((char *)shm + 64);
	for (unsigned int card = 100; card < 140; card++) {
		uint64_t won = 0;
		int winners = 0, status;
		pid_t pid[RACERS];
		char path[192];
		struct stat st;

		__atomic_store_n(go, 0, __ATOMIC_RELEASE);
		fflush(NULL);
		for (int i = 0; i < RACERS; i++) {
			sizes[i] = 0;
			pid[i] = fork();
			HF_CHECK(pid[i] >= 0);
			if (pid[i] == 0)
				_exit(race_open(card, i, go, sizes));
		}
		__atomic_store_n(go, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < RACERS; i++) {
			HF_CHECK(waitpid(pid[i], &status, 0) == pid[i]);
			HF_CHECK_MSG(WIFEXITED(status),
				     "emu:%u racer %d killed by signal %d",
				     card, i, WTERMSIG(status));
			HF_CHECK_MSG(WEXITSTATUS(status) <= 1,
				     "emu:%u racer %d failed otherwise", card,
				     i);
			if (WEXITSTATUS(status))
				continue;
			HF_CHECK_MSG(!won || sizes[i] == won,
				     "emu:%u opened with 0x%llx and 0x%llx bytes",
				     card, (unsigned long long)won,
				     (unsigned long long)sizes[i]);
			HF_CHECK_EQ(sizes[i], (uint64_t)(i + 1) << 20);
			won = sizes[i];
			winners++;
		}
		HF_CHECK_EQ(winners, 1);
		snprintf(path, sizeof(path), "%s/hellofpga-emu%u.ddr",
			 t_emu_dir(), card);
		HF_CHECK(!stat(path, &st));
		HF_CHECK_EQ(st.st_size, won);
	}
	munmap(shm, 4096);
}

/* ---- card memory on a filesystem that is too small or full ---- */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * In a child: a private mount namespace (as root, or as root of a new user
 * namespace) with a @mib MiB tmpfs, mode 0700, on @dir.
 * Return: 0, or -1 with errno set when neither works.
 */
static int mount_small_tmpfs(const char *dir, int mib)
{
	char opt[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWNS)) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			return -1;
		snprintf(opt, sizeof(opt), "0 %u 1", (unsigned int)uid);
		if (write_file("/proc/self/setgroups", "deny") ||
		    write_file("/proc/self/uid_map", opt))
			return -1;
		snprintf(opt, sizeof(opt), "0 %u 1", (unsigned int)gid);
		if (write_file("/proc/self/gid_map", opt))
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	snprintf(opt, sizeof(opt), "size=%dm,mode=0700", mib);
	return mount("hf-test", dir, "tmpfs", 0, opt);
}

/*
 * Run @fn in a child whose HELLOFPGA_EMU_DIR is a @mib MiB tmpfs of its
 * own; the case skips when no such tmpfs can be mounted here.  @fn returns
 * 0 for a pass or a line number; a signal fails the case.
 */
static void in_small_tmpfs(int mib, int (*fn)(const char *dir))
{
	char dir[128];
	int status;
	pid_t pid;

	t_subdir(dir, sizeof(dir), "small");
	fflush(NULL);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		if (mount_small_tmpfs(dir, mib)) {
			fprintf(stderr, "cannot mount a tmpfs: %s\n",
				strerror(errno));
			_exit(77);
		}
		setenv("HELLOFPGA_EMU_DIR", dir, 1);
		_exit(fn(dir));
	}
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK_MSG(WIFEXITED(status), "killed by signal %d",
		     WTERMSIG(status));
	if (WEXITSTATUS(status) == 77)
		HF_SKIP("no private tmpfs: needs root or user namespaces");
	HF_CHECK_MSG(WEXITSTATUS(status) == 0, "the child failed (exit %d)",
		     WEXITSTATUS(status));
}

/* A check that failed in a child: say where, and exit 1. */
static int child_fail(int line)
{
	fprintf(stderr, "test_emu_state.c:%d: failed in the child\n", line);
	return 1;
}

#define CHILD_FAIL() child_fail(__LINE__)

/* In a child: opening emu:0 of 64 MiB fails with @err, its text has @text. */
static int open_64m_fails(int err, const char *text)
{
	HELLOFPGA_HANDLE h;
	int ret = HelloFPGA_Open("emu:0,ddr=64M", &h);

	if (ret != err) {
		fprintf(stderr, "open: %d %s\n", ret,
			HelloFPGA_GetLastError(NULL));
		return CHILD_FAIL();
	}
	if (!strstr(HelloFPGA_GetLastError(NULL), text))
		return CHILD_FAIL();
	return 0;
}

static int open_64m_on_8m(const char *dir)
{
	return open_64m_fails(-ENOSPC, "does not fit");
}

/* ddr=64M on an 8 MiB tmpfs: -ENOSPC at the open, not SIGBUS later. */
HF_TEST(card_memory_larger_than_its_filesystem_is_enospc_at_open)
{
	in_small_tmpfs(8, open_64m_on_8m);
}

static int fill_then_write_4m(const char *dir)
{
	static uint8_t buf[4 << 20];
	HELLOFPGA_HANDLE h;
	char path[192];
	int fd;

	if (HelloFPGA_Open("emu:0,ddr=4M", &h))
		return CHILD_FAIL();
	/* another file takes every free block */
	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return CHILD_FAIL();
	memset(buf, 0x5a, sizeof(buf));
	while (write(fd, buf, 4096) == 4096)
		;
	if (errno != ENOSPC)
		return CHILD_FAIL();
	close(fd);
	t_fill(buf, sizeof(buf), 6);
	if (HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf), NULL))
		return CHILD_FAIL();
	memset(buf, 0, sizeof(buf));
	if (HelloFPGA_DMA_MM_ReadC2H(h, 1, buf, 0, sizeof(buf), NULL) ||
	    t_check(buf, sizeof(buf), 6) >= 0)
		return CHILD_FAIL();
	return HelloFPGA_Close(h) ? CHILD_FAIL() : 0;
}

/*
 * The card memory is the card's from the open on: a 4 MiB card on an
 * 8 MiB tmpfs that something else then fills up still takes 4 MiB of
 * writes (a sparse file needed new pages there: SIGBUS).
 */
HF_TEST(card_memory_is_allocated_at_open_so_a_full_filesystem_cannot_fail_writes)
{
	in_small_tmpfs(8, fill_then_write_4m);
}

/* Fill the filesystem of @dir with a file @dir/filler: 0, or -1. */
static int fill_up(const char *dir)
{
	static uint8_t buf[4096];
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	while (write(fd, buf, sizeof(buf)) > 0)
		;
	if (errno != ENOSPC) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int open_on_a_full_filesystem(const char *dir)
{
	HELLOFPGA_HANDLE h;
	char path[192];
	int ret;

	if (fill_up(dir))
		return CHILD_FAIL();
	ret = HelloFPGA_Open("emu:0,ddr=64K", &h);
	if (ret != -ENOSPC) {
		fprintf(stderr, "open: %d %s\n", ret,
			HelloFPGA_GetLastError(NULL));
		return CHILD_FAIL();
	}
	/* room again: the card opens (nothing half made is left in the way) */
	snprintf(path, sizeof(path), "%s/filler", dir);
	if (unlink(path))
		return CHILD_FAIL();
	ret = HelloFPGA_Open("emu:0,ddr=64K", &h);
	if (ret) {
		fprintf(stderr, "open: %d %s\n", ret,
			HelloFPGA_GetLastError(NULL));
		return CHILD_FAIL();
	}
	return HelloFPGA_Close(h) ? CHILD_FAIL() : 0;
}

/*
 * A full filesystem: -ENOSPC at the open (the channel-lock page of the lock
 * file is allocated before it is mapped and touched), not SIGBUS.
 */
HF_TEST(open_on_a_full_filesystem_is_enospc_not_sigbus)
{
	in_small_tmpfs(1, open_on_a_full_filesystem);
}

/* ddr= beyond the filesystem: -ENOSPC at once, and no card is left. */
HF_TEST(card_memory_beyond_the_filesystem_is_enospc_at_open)
{
	HELLOFPGA_HANDLE h;
	struct statvfs vfs;
	char path[192];
	struct stat st;

	setenv("HELLOFPGA_EMU_DIR", t_emu_dir(), 1);
	HF_CHECK(!statvfs(t_emu_dir(), &vfs));
	if ((uint64_t)vfs.f_bavail * vfs.f_frsize >= 1ull << 40)
		HF_SKIP("%s has 1 TiB free", t_emu_dir());
	HF_CHECK_ERR(HelloFPGA_Open("emu:7,ddr=1024G", &h), -ENOSPC);
	HF_CHECK_MSG(strstr(HelloFPGA_GetLastError(NULL), "does not fit"),
		     "%s", HelloFPGA_GetLastError(NULL));
	/* the card was not made: another size may create it */
	snprintf(path, sizeof(path), "%s/hellofpga-emu7.ddr", t_emu_dir());
	HF_CHECK(!stat(path, &st));
	HF_CHECK_EQ(st.st_size, 0);
	HF_CHECK_ERR(HelloFPGA_Open("emu:7,ddr=1M", &h), 0);
	HF_CHECK_ERR(HelloFPGA_Close(h), 0);
}

static int open_64m_with_fsize_8m(const char *dir)
{
	struct rlimit rl = { .rlim_cur = 8 << 20, .rlim_max = 8 << 20 };

	if (setrlimit(RLIMIT_FSIZE, &rl))
		return CHILD_FAIL();
	return open_64m_fails(-EFBIG, "file size limit");
}

/*
 * Card memory beyond the process's file size limit (ulimit -f): -EFBIG at
 * the open, not SIGXFSZ from growing the file.
 */
HF_TEST(card_memory_beyond_the_file_size_limit_is_efbig_at_open)
{
	char dir[128];
	int status;
	pid_t pid;

	t_subdir(dir, sizeof(dir), "fsize");
	fflush(NULL);
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		setenv("HELLOFPGA_EMU_DIR", dir, 1);
		_exit(open_64m_with_fsize_8m(dir));
	}
	HF_CHECK(waitpid(pid, &status, 0) == pid);
	HF_CHECK_MSG(WIFEXITED(status), "killed by signal %d",
		     WTERMSIG(status));
	HF_CHECK_MSG(WEXITSTATUS(status) == 0, "the child failed (exit %d)",
		     WEXITSTATUS(status));
}
