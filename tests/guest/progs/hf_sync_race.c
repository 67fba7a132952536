// SPDX-License-Identifier: MIT
/*
 * hf_sync_race - concurrent XFERs over different ranges of one host pin,
 * each on its own channels, every byte checked.
 *
 *   hf_sync_race [-d /dev/hellofpgaN] [-s SECONDS] [-t THREADS]
 *
 * Thread i owns bytes [i * R, (i + 1) * R) of one pinned buffer and card
 * region i.  Each round it writes a fresh pattern into its range, moves it
 * to the card (H2C channel i), clears its range, moves it back (C2H
 * channel i) and compares.  Under swiotlb (bounce buffers) a driver that
 * syncs the whole pin around a run copies stale bounce bytes over another
 * thread's range (the sync after its C2H run) or over bounce memory another
 * C2H run is filling (the sync before its H2C run): rounds fail.  Where the
 * mapping needs no sync this still checks concurrent XFERs on one pin.
 *
 * Prints PASS/FAIL lines "syncrace/NAME"; exit status 1 when one failed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "hf_guest.h"

#define RANGE		(1024 * 1024)
#define CARD_BASE	(256ull << 20)
#define MAX_THREADS	4

static int ctl;
static uint8_t *buf;
static uint64_t handle;
static double end;

struct worker {
	int i;
	long rounds;
	long bad;
	long first_bad;
	int err;
	char what[160];
	pthread_t t;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint8_t *mine = buf + (size_t)w->i * RANGE;
	uint64_t off = (uint64_t)w->i * RANGE;
	uint64_t card = CARD_BASE + off;
	long at;
	int r;

	while (hfg_now() < end) {
		uint32_t seed = (uint32_t)(w->i * 1000003 + w->rounds);

		hfg_fill(mine, RANGE, seed);
		r = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, w->i, off, card,
			     RANGE, 5000, NULL);
		if (!r) {
			memset(mine, 0, RANGE);
			r = hfg_xfer(ctl, handle, HELLOFPGA_XFER_C2H, w->i,
				     off, card, RANGE, 5000, NULL);
		}
		if (r) {
			w->err = r;
			snprintf(w->what, sizeof(w->what), "round %ld: XFER: %s",
				 w->rounds, strerror(-r));
			return NULL;
		}
		at = hfg_check(mine, RANGE, seed);
		if (at >= 0 && !w->bad++) {
			w->first_bad = w->rounds;
			snprintf(w->what, sizeof(w->what),
				 "round %ld: byte %ld of its range differs",
				 w->rounds, at);
		}
		w->rounds++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *card = "/dev/hellofpga0";
	struct worker w[MAX_THREADS];
	struct hellofpga_info info = { 0 };
	int opt, n = 2, bad = 0, r;
	double secs = 4;
	long rounds = 0;

	hfg_group = "syncrace";
	while ((opt = hfg_getopt(argc, argv, "d:s:t:", &card)) != -1) {
		if (opt == 's')
			secs = atof(optarg);
		else if (opt == 't')
			n = atoi(optarg);
		else
			return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	if (ctl < 0 || ioctl(ctl, HELLOFPGA_IOC_GET_INFO, &info)) {
		HFG_FAIL("open", "%s_control: %s", card, strerror(errno));
		return 1;
	}
	if (n > (int)info.num_h2c)
		n = info.num_h2c;
	if (n > (int)info.num_c2h)
		n = info.num_c2h;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if (n < 2) {
		HFG_SKIP("concurrent-ranges", "the card has fewer than 2 channels per direction");
		return 0;
	}
	buf = mmap(NULL, (size_t)n * RANGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		HFG_FAIL("setup", "mmap: %s", strerror(errno));
		return 1;
	}
	r = hfg_pin_host(ctl, buf, (uint64_t)n * RANGE, &handle);
	if (r) {
		HFG_FAIL("pin", "PIN of %d MiB: %s (%s)", n, strerror(-r),
			 hfg_drv_err(ctl));
		return 1;
	}
	end = hfg_now() + secs;
	for (int i = 0; i < n; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].i = i;
		pthread_create(&w[i].t, NULL, work, &w[i]);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].t, NULL);
		rounds += w[i].rounds;
		if (w[i].err || w[i].bad) {
			bad++;
			HFG_FAIL("concurrent-ranges", "thread %d, %ld bad of %ld rounds: %s",
				 i, w[i].bad, w[i].rounds, w[i].what);
		}
	}
	if (!bad)
		HFG_PASS("concurrent-ranges", "%d threads, %ld round trips of 1 MiB over one pin, every byte right",
			 n, rounds);
	hfg_unpin(ctl, handle);
	close(ctl);
	return hfg_exit();
}
