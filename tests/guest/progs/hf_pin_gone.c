// SPDX-License-Identifier: MIT
/*
 * hf_pin_gone - PIN on an open control node of a card that has been removed
 * fails before anything is pinned or mapped.
 *
 *   hf_pin_gone -d /dev/hellofpgaN -g GO_FILE
 *
 * Opens the control node, prints "ready", waits until GO_FILE exists (the
 * caller unbinds the driver or unplugs the card meanwhile), then:
 *   - a PIN of memory that cannot be pinned (an inaccessible mapping) must
 *     fail with ENODEV, not with the EFAULT of a provider that tried;
 *   - a PIN of ordinary memory must fail with ENODEV and leave this
 *     process's locked memory (VmLck) as it was.
 * Prints PASS/FAIL lines "pingone/NAME"; exit status 1 when one failed.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include "hf_guest.h"

int main(int argc, char **argv)
{
	const char *card = "/dev/hellofpga0", *go = NULL;
	long before, after;
	struct stat st;
	uint64_t h;
	void *none, *buf;
	int ctl, opt, r, i;

	hfg_group = "pingone";
	while ((opt = hfg_getopt(argc, argv, "d:g:", &card)) != -1) {
		if (opt == 'g')
			go = optarg;
		else
			return 2;
	}
	if (!go)
		return 2;
	ctl = hfg_open(card, "_control", O_RDWR);
	none = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	buf = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ctl < 0 || none == MAP_FAILED || buf == MAP_FAILED) {
		HFG_FAIL("setup", "%s", strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < 600 && stat(go, &st); i++)
		usleep(100000);
	r = hfg_pin_host(ctl, none, 65536, &h);
	if (r == -ENODEV)
		HFG_PASS("unpinnable-memory", "ENODEV: %s", hfg_drv_err(ctl));
	else
		HFG_FAIL("unpinnable-memory", "PIN on a removed card: %s (%s), expected ENODEV before the provider ran",
			 r ? strerror(-r) : "succeeded", hfg_drv_err(ctl));
	before = hfg_vmlck_kib();
	r = hfg_pin_host(ctl, buf, 65536, &h);
	after = hfg_vmlck_kib();
	if (r == -ENODEV && after == before)
		HFG_PASS("nothing-pinned", "ENODEV, VmLck %ld kB as before", after);
	else
		HFG_FAIL("nothing-pinned", "PIN on a removed card: %s (%s), VmLck %ld -> %ld kB",
			 r ? strerror(-r) : "succeeded", hfg_drv_err(ctl),
			 before, after);
	close(ctl);
	return hfg_exit();
}
