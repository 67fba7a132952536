// SPDX-License-Identifier: MIT
/*
 * hf_unpin_keep - what the CPU wrote into pinned host memory survives its
 * UNPIN (and the close of the file that held the pin).
 *
 *   hf_unpin_keep [-d /dev/hellofpgaN]
 *
 * A pin's DMA mapping may bounce (swiotlb=force, or memory the card cannot
 * reach): the bounce buffer then holds whatever was synced last.  Undoing
 * the mapping must not copy it back over the pages, or the user's writes
 * since the last transfer are lost.  For each way a pin ends (UNPIN, close)
 * and each last transfer (none, H2C, C2H): fill the buffer, pin, transfer,
 * write a new pattern with the CPU, end the pin, and the new pattern must
 * be there.
 *
 * Prints PASS/FAIL lines "unpin/NAME"; exit status 1 when one failed.
 */
#include <sys/mman.h>

#include "hf_guest.h"

#define LEN	(64 * 1024)

int main(int argc, char **argv)
{
	static const char *const last[] = { "no-xfer", "after-h2c", "after-c2h" };
	const char *card = "/dev/hellofpga0";
	uint8_t *buf;

	hfg_group = "unpin";
	if (hfg_getopt(argc, argv, "d:", &card) != -1)
		return 2;
	buf = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	for (int how = 0; how < 2; how++) {
		for (int x = 0; x < 3; x++) {
			char name[64];
			uint64_t h = 0;
			long bad;
			int ctl, ret;

			snprintf(name, sizeof(name), "%s-keeps-cpu-writes-%s",
				 how ? "close" : "unpin", last[x]);
			ctl = hfg_open(card, "_control", O_RDWR);
			if (ctl < 0) {
				HFG_FAIL(name, "%s_control: %s", card,
					 strerror(errno));
				continue;
			}
			hfg_fill(buf, LEN, 10 + x);
			ret = hfg_pin_host(ctl, buf, LEN, &h);
			if (!ret && x)
				ret = hfg_xfer(ctl, h, x == 1 ? HELLOFPGA_XFER_H2C :
					       HELLOFPGA_XFER_C2H, 0, 0, 1 << 20,
					       LEN, 0, NULL);
			if (ret) {
				HFG_FAIL(name, "%s: %s", strerror(-ret),
					 hfg_drv_err(ctl));
				close(ctl);
				continue;
			}
			/* the CPU's new data, after the last transfer */
			hfg_fill(buf, LEN, 20 + x);
			if (how)
				ret = close(ctl) ? -errno : 0;
			else
				ret = hfg_unpin(ctl, h);
			bad = hfg_check(buf, LEN, 20 + x);
			if (ret)
				HFG_FAIL(name, "%s: %s", how ? "close" : "UNPIN",
					 strerror(-ret));
			else if (bad >= 0)
				HFG_FAIL(name, "the buffer changed at byte %ld when the pin ended: the mapping's bounce buffer was copied back over what the CPU wrote after the last transfer",
					 bad);
			else
				HFG_PASS(name, NULL);
			if (!how)
				close(ctl);
		}
	}
	return hfg_exit();
}
