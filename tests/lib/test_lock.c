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

/*
 * Fork a child that takes the lock of channel @ch of direction @dir
 * (byte dir * 4 + ch of the card's lock file), holds it for @hold_ms (or
 * forever when 0), records the release time in *@released, releases and
 * exits.  Returns once the child holds the lock.
 */
static pid_t hold_channel(int dir, int ch, int hold_ms,
			  volatile uint64_t *released)
{
	char path[256];
	int pipefd[2];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/hellofpga-emu6.lock", t_emu_dir());
	HF_CHECK(!pipe(pipefd));
	pid = fork();
	HF_CHECK(pid >= 0);
	if (pid == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = dir * 4 + ch, .l_len = 1 };
		int fd = open(path, O_RDWR | O_CREAT, 0666);

		if (fd < 0 || fcntl(fd, F_OFD_SETLKW, &fl))
			_exit(1);
		if (write(pipefd[1], "L", 1) != 1)
			_exit(1);
		if (!hold_ms)
			pause();
		usleep(hold_ms * 1000);
		*released = now_ns();
		fl.l_type = F_UNLCK;
		fcntl(fd, F_OFD_SETLK, &fl);
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
	/* the kernel dropped the dead holder's lock */
	HF_CHECK_ERR(HelloFPGA_DMA_MM_ReadC2H(h, 0, buf, 0, sizeof(buf),
					      NULL), 0);
	HelloFPGA_Close(h);
}

HF_TEST(private_cards_take_no_interprocess_lock)
{
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
}
