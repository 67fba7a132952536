// SPDX-License-Identifier: MIT
/*
 * hf_pin_race - PIN whose argument sits in a read-only page, racing UNPIN of
 * the handles it is about to get, as a hostile user would.
 *
 *   hf_pin_race [-d /dev/hellofpgaN] [-s SECONDS]
 *
 * The PIN argument is readable (copy_from_user works) but not writable
 * (copy_to_user fails), so every PIN must fail with EFAULT after it has
 * pinned; meanwhile other threads UNPIN the next handles in a loop.  A
 * driver that publishes the handle before copy_to_user lets an UNPIN free
 * the pin that PIN's failure path then tears down again (a use-after-free
 * that slub_debug turns into a crash).  Checks: every PIN fails with
 * EFAULT, no UNPIN of a handle PIN never returned succeeds, and once the
 * storm is over the card has no pin and no pinned byte left.
 *
 * Prints PASS/FAIL lines "pinrace/NAME"; exit status 1 when one failed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "hf_guest.h"

#define NUNPIN		3
#define BUF_SIZE	(64 * 1024)

static int ctl;
static atomic_int stop;
static atomic_long unpinned_ok, unpin_tries;
static atomic_uint next_handle = 1;

static void *unpin_loop(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		unsigned int base = atomic_load(&next_handle);

		/* the handles a PIN in flight is getting */
		for (unsigned int h = base; h < base + 8; h++) {
			atomic_fetch_add(&unpin_tries, 1);
			if (!hfg_unpin(ctl, h))
				atomic_fetch_add(&unpinned_ok, 1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *card = "/dev/hellofpga0";
	struct hellofpga_stats st0, st1;
	struct hellofpga_pin *ro;
	pthread_t th[NUNPIN];
	long pins = 0, efault = 0, other = 0;
	double secs = 3, end;
	int opt, lasterr = 0;
	void *buf;

	hfg_group = "pinrace";
	while ((opt = hfg_getopt(argc, argv, "d:s:", &card)) != -1) {
		if (opt == 's')
			secs = atof(optarg);
		else
			return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	if (ctl < 0) {
		HFG_FAIL("open", "%s_control: %s", card, strerror(errno));
		return 1;
	}
	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || ro == MAP_FAILED) {
		HFG_FAIL("setup", "mmap: %s", strerror(errno));
		return 1;
	}
	memset(ro, 0, sizeof(*ro));
	ro->type = HELLOFPGA_PIN_HOST;
	ro->addr = (uintptr_t)buf;
	ro->size = BUF_SIZE;
	ro->fd = -1;
	if (mprotect(ro, 4096, PROT_READ)) {
		HFG_FAIL("setup", "mprotect: %s", strerror(errno));
		return 1;
	}
	hfg_stats(ctl, &st0);

	/* PIN, XFER and UNPIN write memory: not on a read-only open */
	{
		int rd = hfg_open(card, "_control", O_RDONLY);
		uint64_t h = 0;
		int r = rd < 0 ? -errno : hfg_pin_host(rd, buf, BUF_SIZE, &h);

		if (r == -EBADF && strstr(hfg_drv_err(rd), "open for writing"))
			HFG_PASS("pin-needs-write-access", NULL);
		else
			HFG_FAIL("pin-needs-write-access", "PIN on a read-only open of the control node: %s (%s)",
				 r ? strerror(-r) : "succeeded", hfg_drv_err(rd));
		if (!r)
			hfg_unpin(ctl, h);
		if (rd >= 0)
			close(rd);
	}

	for (int i = 0; i < NUNPIN; i++)
		pthread_create(&th[i], NULL, unpin_loop, NULL);
	end = hfg_now() + secs;
	while (hfg_now() < end) {
		int r = ioctl(ctl, HELLOFPGA_IOC_PIN, ro) ? errno : 0;

		pins++;
		if (r == EFAULT)
			efault++;
		else
			other++, lasterr = r;
		/* handles are cyclic: the next PIN gets the next one */
		atomic_fetch_add(&next_handle, 1);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NUNPIN; i++)
		pthread_join(th[i], NULL);

	if (!other && efault == pins)
		HFG_PASS("pin-efault", "%ld PINs with a read-only argument, all EFAULT, %ld UNPINs racing them",
			 pins, atomic_load(&unpin_tries));
	else
		HFG_FAIL("pin-efault", "%ld of %ld PINs did not fail with EFAULT (last: %s)",
			 other, pins, strerror(lasterr));
	if (!atomic_load(&unpinned_ok))
		HFG_PASS("unpin-unpublished", "no UNPIN found a handle PIN never returned");
	else
		HFG_FAIL("unpin-unpublished", "%ld UNPINs succeeded on handles PIN never returned",
			 atomic_load(&unpinned_ok));
	hfg_stats(ctl, &st1);
	if (st1.pins == st0.pins && st1.pinned_bytes == st0.pinned_bytes)
		HFG_PASS("nothing-left", "%llu pins, %llu bytes pinned, as before",
			 (unsigned long long)st1.pins,
			 (unsigned long long)st1.pinned_bytes);
	else
		HFG_FAIL("nothing-left", "pins %llu -> %llu, pinned bytes %llu -> %llu",
			 (unsigned long long)st0.pins,
			 (unsigned long long)st1.pins,
			 (unsigned long long)st0.pinned_bytes,
			 (unsigned long long)st1.pinned_bytes);
	close(ctl);
	return hfg_exit();
}
