// SPDX-License-Identifier: MIT
/*
 * chanlock.c - per-channel mutual exclusion, inside a process (a mutex per
 * channel of the handle) and between processes and handles sharing a card
 * (an open-file-description lock on byte dir * 4 + ch of the card's lock
 * file; released by the kernel if the holder dies).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "hf_lib.h"

static int ofd_lock(int fd, short type, off_t byte)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = byte;
	fl.l_len = 1;
	while (fcntl(fd, F_OFD_SETLKW, &fl) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/**
 * hf_chan_lock() - take channel @ch of direction @dir for one transfer.
 * Waits while another thread or process uses the channel.
 * Return: 0 or negative errno.
 */
int hf_chan_lock(struct hellofpga_dev *dev, enum xdma_dir dir, int ch)
{
	int ret;

	pthread_mutex_lock(&dev->chan_lock[dir][ch]);
	if (dev->lock_fd < 0)
		return 0;
	ret = ofd_lock(dev->lock_fd, F_WRLCK, dir * XDMA_MAX_CHANNELS + ch);
	if (ret) {
		pthread_mutex_unlock(&dev->chan_lock[dir][ch]);
		return hf_set_error(dev, ret, "%s%d: cannot lock the channel: %s",
				    hf_dir_name(dir), ch, strerror(-ret));
	}
	return 0;
}

void hf_chan_unlock(struct hellofpga_dev *dev, enum xdma_dir dir, int ch)
{
	if (dev->lock_fd >= 0)
		ofd_lock(dev->lock_fd, F_UNLCK, dir * XDMA_MAX_CHANNELS + ch);
	pthread_mutex_unlock(&dev->chan_lock[dir][ch]);
}
