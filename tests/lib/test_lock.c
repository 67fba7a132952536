// SPDX-License-Identifier: MIT
/*
 * test_lock.c - per-channel mutual exclusion between processes sharing an
 * emulated card: a transfer waits while another process holds the channel,
 * other channels stay free, and a dead holder releases it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "hf_lib.h"
#include "lib_helpers.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Until the child of hold_channel() says it holds the lock. */
static void wait_locked(int pipefd[2])
{
	char c;

	HF_CHECK(read(pipefd[0], &c, 1) == 1 && c == 'L');
	close(pipefd[0]);
	close(pipefd[1]);
}

/* The channel locks of emu:6, mapped from its lock file. */
static struct hf_shared_locks *map_locks(void)
{
	struct hf_shared_locks *sl;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/hellofpga-emu6.lock", t_emu_dir());
	fd = open(path, O_RDWR);
	if (fd < 0)
		return NULL;
	sl = mmap(NULL, HF_SHARED_LOCKS_SIZE, PROT_READ | PROT_WRITE,
		  MAP_SHARED, fd, 0);
	close(fd);
	return sl == MAP_FAILED ? NULL : sl;
}

/*
 * Fork a child that takes the lock of channel @ch of direction @dir
 * (its mutex in the card's lock file; a handle of the card is open, so
 * the locks are there), holds it for @hold_ms (or forever when 0), records
 * the release time in *@released, releases and exits.  Returns once the
 * child holds the lock.
 */
static pid_t hold_channel(int dir, int ch, int hold_ms,
			  volatile uint64_t *released)
{
	int pipefd[2];
	pid_t pid;

	HF_CHECK(!pipe(pipefd));
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		struct hf_shared_locks *sl = map_locks();

		if (!sl || sl->magic != HF_SHARED_LOCKS_MAGIC ||
		    pthread_mutex_lock(&sl->chan[dir][ch]))
			_exit(1);
		if (write(pipefd[1], "L", 1) != 1)
			_exit(1);
		if (!hold_ms)
			pause();
		usleep(hold_ms * 1000);
		*released = now_ns();
		pthread_mutex_unlock(&sl->chan[dir][ch]);
		_exit(0);
	}
	wait_locked(pipefd);
	return pid;
}

HF_TEST(transfer_waits_while_another_process_holds_the_channel)
{
	volatile uint64_t *released = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	HELLOFPGA_HANDLE h = t_open("emu:6,ddr=16M");
	uint8_t buf[256] = { 0 };
	int status;
	pid_t pid;

	HF_CHECK(released != MAP_FAILED);
	*released = 0;
	pid = hold_channel(0, 2, 300, released);	/* H2C2 */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 2, buf, 0, sizeof(buf),
					       NULL), 0);
	/* the transfer could only start after the holder let go */
	HF_CHECK(*released != 0);
	HF_CHECK(now_ns() >= *released);
	waitpid(pid, &status, 0);
	HelloFPGA_Close(h);
}

HF_TEST(other_channels_stay_free_while_one_is_held)
{
	HELLOFPGA_HANDLE h = t_open("emu:6,ddr=16M");
	uint8_t buf[256] = { 0 };
	int status;
	pid_t pid;

	pid = hold_channel(1, 0, 0, NULL);	/* C2H0, held forever */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 1, buf, 0, sizeof(buf),
					      NULL), 0);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* the dead holder's lock went to the next taker (robust futex) */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf),
					      NULL), 0);
	HelloFPGA_Close(h);
}

HF_TEST(private_cards_take_no_interprocess_lock)
{
	HELLOFPGA_HANDLE s = t_open("emu:6,ddr=16M");	/* the locks exist */
	HELLOFPGA_HANDLE h = t_open("emu:6,private,ddr=16M");
	uint8_t buf[256] = { 0 };
	int status;
	pid_t pid;

	pid = hold_channel(0, 0, 0, NULL);
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 0, buf, 0, sizeof(buf),
					       NULL), 0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	HelloFPGA_Close(h);
	HelloFPGA_Close(s);
}

HF_TEST(a_dead_holder_of_a_waited_for_channel_hands_it_on)
{
	HELLOFPGA_HANDLE h = t_open("emu:6,ddr=16M");
	uint8_t buf[256] = { 0 };
	int status;
	pid_t pid;

	pid = hold_channel(0, 3, 0, NULL);	/* H2C3, held forever */
	if (fork() == 0) {
		usleep(100000);
		kill(pid, SIGKILL);
		_exit(0);
	}
	/* waits in the futex, woken by the kernel when the holder died */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 3, buf, 0, sizeof(buf),
					       NULL), 0);
	waitpid(pid, &status, 0);
	while (wait(&status) > 0)
		;
	/* and the channel works on after it was made consistent */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_WriteH2C(h, 3, buf, 0, sizeof(buf),
					       NULL), 0);
	HelloFPGA_Close(h);
}

HF_TEST(a_lock_file_of_another_layout_is_refused)
{
	HELLOFPGA_HANDLE h = t_open("emu:6,ddr=16M");
	struct hf_shared_locks *sl;
	HELLOFPGA_HANDLE h2;
	uint32_t v;

	HelloFPGA_Close(h);
	sl = map_locks();
	HF_CHECK(sl != NULL);
	v = sl->version;
	sl->version = v + 1;	/* as another build would have laid it out */
	HF_CHECK_ERR(HelloFPGA_Open("emu:6", &h2), -EPROTO);
	sl->version = v;
	HF_CHECK_ERR(HelloFPGA_Open("emu:6", &h2), 0);
	HelloFPGA_Close(h2);
	munmap(sl, HF_SHARED_LOCKS_SIZE);
}
