// SPDX-License-Identifier: MIT
/*
 * hf_recover - a memory-mapped card set up again after a reset behind the
 * driver's back, and a PCIe error recovery with one engine that does not
 * stop (docs/driver-stop.md, "Removal, shutdown, PCIe errors, resets").
 *
 *   hf_recover [-d /dev/hellofpgaN] -m reset|hang
 *
 * -m reset: a function reset the driver did not start (sysfs "reset":
 * the PCI core calls reset_prepare / reset_done) between two runs of the
 * same chains: XFERs of one pin range (H2C then C2H, channel 0, same card
 * address) and read()/write() of the nodes (channel 1), before and after.
 * The reset clears the engines' registers (descriptor and writeback
 * addresses, interrupt enables); the runs after it must move the new data
 * (a driver that trusts its cached descriptor address lets the card fetch
 * a chain from bus address 0), the card must count no error and no failed
 * DMA, and dmesg must say the card was stopped and set up again.  Then,
 * where the host can inject AER errors, a fatal one: its slot_reset must
 * still find config space saved (the reset's restore used it up).
 *
 * -m hang: a non-fatal AER error (injected by the host on an "HF-QMP"
 * console request) while a read() of C2H0 hangs on the card (the hang
 * fault, limited to C2H0's engine by the fault window's engine mask):
 *   - from the start of slot_reset to the end of the engines' set-up, bus
 *     mastering stays off (sysfs config space, sampled meanwhile): the
 *     config space restore must not turn it on before the engines are
 *     proven idle;
 *   - a read() of an events node whose interrupt fired before the error,
 *     made meanwhile, hands out the count (not EIO with the count lost);
 *   - the recovery ends (resume): the other channels work, C2H0 keeps the
 *     hung run's memory (no "released" line) and refuses transfers (EIO,
 *     "wedged");
 *   - a second error while C2H0 still hangs changes nothing of that;
 *   - once the hang ends, C2H0 works again and its memory is released,
 *     once.
 *
 * Prints PASS/FAIL/SKIP lines prefixed "recover/"; exit status 1 on
 * failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/hellofpga.h"
#include "hf_guest.h"

#define HFG_FAULT_NONE		0u
#define HFG_FW_HANG_ENGINES	0xfcu
#define HFG_CNT_ERRORS		7
#define LEN			(256u << 10)
#define CARD_ADDR		(40ull << 20)
#define HFG_USER_IRQ_PULSE	0x1cu	/* refdesign: raise, drop at the ack */
#define EV_IRQ			3u

static const char *card = "/dev/hellofpga0";
static struct hellofpga_info info;
static char bdf[32], mark[64];
static int ctl = -1, ufd = -1;
/* -m hang: an events node with an interrupt counted, read in slot_reset */
static int ev_fd = -1, ev_ret, ev_errno;
static uint32_t ev_count;

static void kmark(const char *what)
{
	static unsigned int n;

	snprintf(mark, sizeof(mark), "hf_recover mark %d.%u %s", (int)getpid(),
		 ++n, what);
	hfg_kmark(mark);
}

static int klog(const char *needle)
{
	return hfg_klog_count(mark, needle);
}

/* /sys/bus/pci/devices/BDF/@file */
static void sysfs_path(char *path, size_t len, const char *file)
{
	snprintf(path, len, "/sys/bus/pci/devices/%s/%s", bdf, file);
}

/* Bus mastering of the card in its config space: 1, 0, -1 unknown. */
static int bus_master(void)
{
	char path[128];
	uint16_t cmd = 0;
	int fd, n;

	sysfs_path(path, sizeof(path), "config");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, &cmd, 2, 4);	/* PCI_COMMAND */
	close(fd);
	return n == 2 ? !!(cmd & 0x4) : -1;	/* PCI_COMMAND_MASTER */
}

/* pwrite() of the h2c node of channel @ch then pread() of c2h @ch2, the
 * same card range, compared: 0 or -errno (or -EILSEQ: data differs). */
static int node_roundtrip(unsigned int ch, unsigned int ch2, uint64_t addr,
			  uint32_t seed, char *err, size_t errlen)
{
	char sfx[32];
	uint8_t *a = malloc(LEN), *b = malloc(LEN);
	int h = -1, c = -1, ret = 0;

	snprintf(sfx, sizeof(sfx), "_h2c_%u", ch);
	h = hfg_open(card, sfx, O_RDWR);
	snprintf(sfx, sizeof(sfx), "_c2h_%u", ch2);
	c = hfg_open(card, sfx, O_RDWR);
	if (!a || !b || h < 0 || c < 0) {
		ret = -ENOMEM;
		snprintf(err, errlen, "setup: %s", strerror(errno));
		goto out;
	}
	hfg_fill(a, LEN, seed);
	memset(b, 0, LEN);
	if (pwrite(h, a, LEN, addr) != LEN) {
		ret = -errno;
		snprintf(err, errlen, "write h2c_%u: %s: %s", ch, strerror(errno),
			 hfg_drv_err(h));
	} else if (pread(c, b, LEN, addr) != LEN) {
		ret = -errno;
		snprintf(err, errlen, "read c2h_%u: %s: %s", ch2, strerror(errno),
			 hfg_drv_err(c));
	} else if (hfg_check(b, LEN, seed) >= 0) {
		ret = -EILSEQ;
		snprintf(err, errlen, "c2h_%u: byte %ld differs", ch2,
			 hfg_check(b, LEN, seed));
	}
out:
	if (h >= 0)
		close(h);
	if (c >= 0)
		close(c);
	free(a);
	free(b);
	return ret;
}

/* H2C then C2H XFER of @len bytes at card CARD_ADDR on channel 0 of the
 * pin @handle (@buf: source at 0, destination at LEN), compared. */
static int xfer_roundtrip(uint64_t handle, uint8_t *buf, uint32_t seed,
			  char *err, size_t errlen)
{
	uint64_t bytes = 0;
	int ret;

	hfg_fill(buf, LEN, seed);
	memset(buf + LEN, 0, LEN);
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_H2C, 0, 0, CARD_ADDR, LEN,
		       3000, &bytes);
	if (ret) {
		snprintf(err, errlen, "XFER H2C: %s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		return ret;
	}
	ret = hfg_xfer(ctl, handle, HELLOFPGA_XFER_C2H, 0, LEN, CARD_ADDR, LEN,
		       3000, &bytes);
	if (ret) {
		snprintf(err, errlen, "XFER C2H: %s: %s", strerror(-ret),
			 hfg_drv_err(ctl));
		return ret;
	}
	if (hfg_check(buf + LEN, LEN, seed) >= 0) {
		snprintf(err, errlen, "XFER C2H: byte %ld differs",
			 hfg_check(buf + LEN, LEN, seed));
		return -EILSEQ;
	}
	return 0;
}

/* Whether an AER error can be injected: a hotplug configuration's QMP
 * channel is one too. */
static bool aer_possible(const char **why)
{
	return hfg_aer_possible("hf_hotplug=1", "CFG_QMP, CFG_HOTPLUG", why);
}

static void inject(const char *tag, const char *error);

/*
 * -m reset: runs of the same chains before and after a function reset:
 * XFERs on channel 0, read()/write() on channel 1, so that each engine's
 * last chain before the reset is its first after it.
 */
static void check_reset(void)
{
	uint64_t handle = 0, errs, dmaerrs;
	char path[128], err[256] = "";
	const char *why = NULL;
	uint8_t *buf;
	int ret, fd, i;

	sysfs_path(path, sizeof(path), "reset");
	if (access(path, W_OK)) {
		HFG_SKIP("reset/all", "%s: %s (no reset method)", path,
			 strerror(errno));
		return;
	}
	buf = mmap(NULL, 2 * LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ret = buf == MAP_FAILED ? -errno : hfg_pin_host(ctl, buf, 2 * LEN, &handle);
	if (ret) {
		HFG_FAIL("reset/pin", "%s", strerror(-ret));
		return;
	}
	ret = xfer_roundtrip(handle, buf, 1, err, sizeof(err));
	hfg_expect(!ret, "reset/xfer-before", "%s", err);
	ret = node_roundtrip(1, 1, CARD_ADDR + 2 * LEN, 2, err, sizeof(err));
	hfg_expect(!ret, "reset/rw-before", "%s", err);
	errs = hfg_counter(ufd, HFG_CNT_ERRORS);
	dmaerrs = hfg_counter(ufd, HFG_CNT_DMA_ERRORS);

	kmark("reset");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ret = fd < 0 || write(fd, "1", 1) != 1 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	hfg_expect(!ret, "reset/sysfs-reset", "%s", ret ? strerror(-ret) : "");
	hfg_expect(klog("reset of the card: transfers stopped") == 1 &&
		   klog("set up again after the reset") == 1,
		   "reset/driver-told", "'stopped' %d, 'set up again' %d lines",
		   klog("reset of the card: transfers stopped"),
		   klog("set up again after the reset"));

	/* the same pin range, channel and card address: the same chains */
	ret = xfer_roundtrip(handle, buf, 3, err, sizeof(err));
	hfg_expect(!ret, "reset/xfer-same-range-after", "%s", err);
	ret = node_roundtrip(1, 1, CARD_ADDR + 2 * LEN, 4, err, sizeof(err));
	hfg_expect(!ret, "reset/rw-same-range-after", "%s", err);
	hfg_expect(hfg_counter(ufd, HFG_CNT_ERRORS) == errs &&
		   hfg_counter(ufd, HFG_CNT_DMA_ERRORS) == dmaerrs,
		   "reset/card-no-error",
		   "engine errors %llu -> %llu, failed DMA %llu -> %llu",
		   (unsigned long long)errs,
		   (unsigned long long)hfg_counter(ufd, HFG_CNT_ERRORS),
		   (unsigned long long)dmaerrs,
		   (unsigned long long)hfg_counter(ufd, HFG_CNT_DMA_ERRORS));
	hfg_expect(bus_master() == 1, "reset/bus-master-on", "%d",
		   bus_master());
	hfg_expect(klog("wedged") == 0 && klog("DMAR") == 0,
		   "reset/dmesg", "'wedged' %d, 'DMAR' %d lines", klog("wedged"),
		   klog("DMAR"));

	/*
	 * The PCI core's restore after the reset used up the saved config
	 * space: a fatal error's link reset must still find one to restore.
	 */
	if (aer_possible(&why)) {
		kmark("reset-fatal");
		inject("reset-fatal", "MALF_TLP");
		for (i = 0; i < 300 && klog("recovered from the PCIe error") < 1 &&
		     klog("not responding after the reset") < 1; i++)
			usleep(100000);
		ret = xfer_roundtrip(handle, buf, 5, err, sizeof(err));
		hfg_expect(klog("recovered from the PCIe error") == 1 && !ret,
			   "reset/fatal-error-after",
			   "recovery %d lines; %s",
			   klog("recovered from the PCIe error"), err);
	} else {
		HFG_SKIP("reset/fatal-error-after", "%s", why);
	}
	hfg_unpin(ctl, handle);
	munmap(buf, 2 * LEN);
}

/* An AER error of the card (UNSUP: non-fatal, MALF_TLP: fatal). */
static void inject(const char *tag, const char *error)
{
	int fd = open("/dev/console", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		HFG_FAIL("console", "%s", strerror(errno));
		return;
	}
	dprintf(fd, "\nHF-QMP recover-%s {\"execute\":\"human-monitor-command\",\"arguments\":{\"command-line\":\"pcie_aer_inject_error card %s\"}}\n",
		tag, error);
	close(fd);
}

/*
 * Until the recovery's end ("recovered" in dmesg, at most 30 s), sample
 * bus mastering; a sample counts when slot_reset had begun before it and
 * had not yet finished setting the engines up after it.  Returns the
 * samples counted, *on those with bus mastering on.
 */
static int sample_slot_reset(int *on)
{
	bool began = false, ended = false;
	double t0 = hfg_now();
	int n = 0, bm;

	*on = 0;
	while (hfg_now() - t0 < 30) {
		if (!began)
			began = klog("slot reset: setting the engines up again") > 0;
		bm = bus_master();
		if (!ended)
			ended = klog("did not stop after the reset") > 0;
		if (began && !ended) {
			n++;
			*on += bm != 0;
			if (ev_fd >= 0 && !ev_ret) {
				ev_ret = (int)read(ev_fd, &ev_count,
						   sizeof(ev_count));
				ev_errno = ev_ret < 0 ? errno : 0;
			}
		}
		if (ended && klog("recovered from the PCIe error") > 0)
			break;
		if (!began || ended)
			usleep(5000);
	}
	return n;
}

/*
 * Open events node EV_IRQ and make its interrupt fire once (the design's
 * pulse), so that a count waits in the driver for the read in slot_reset;
 * ev_fd stays -1 (and the check is skipped) where the card has no such
 * node.
 */
static void ev_armed(void)
{
	char node[16];
	struct pollfd pf;

	snprintf(node, sizeof(node), "_events_%u", EV_IRQ);
	ev_fd = hfg_open(card, node, O_RDONLY | O_NONBLOCK);
	ev_ret = 0;
	ev_count = 0;
	if (ev_fd < 0) {
		HFG_SKIP("hang/events-read-in-recovery-keeps-the-count",
			 "no %s node", node);
		return;
	}
	hfg_wr32(ufd, HFG_USER_IRQ_PULSE, 1u << EV_IRQ);
	pf.fd = ev_fd;
	pf.events = POLLIN;
	if (poll(&pf, 1, 5000) != 1) {
		HFG_FAIL("hang/events-read-in-recovery-keeps-the-count",
			 "the pulsed interrupt never made the node readable");
		close(ev_fd);
		ev_fd = -1;
	}
}

/* read() of 256 KiB from c2h_0 in a child; its result on @pfd. */
static pid_t hung_read(int pfd)
{
	pid_t pid = fork();

	if (!pid) {
		uint8_t *b = malloc(LEN);
		int fd = hfg_open(card, "_c2h_0", O_RDWR);
		ssize_t n = b && fd >= 0 ? pread(fd, b, LEN, CARD_ADDR) : -1;
		int e = n < 0 ? errno : 0;

		if (write(pfd, &e, sizeof(e)) != sizeof(e))
			_exit(2);
		_exit(0);
	}
	return pid;
}

/* read() of c2h_0 now: 0, or -errno with the driver's text in @err. */
static int c2h0_read(char *err, size_t errlen)
{
	uint8_t *b = malloc(LEN);
	int fd = hfg_open(card, "_c2h_0", O_RDWR), ret = 0;

	if (!b || fd < 0) {
		ret = -ENOMEM;
	} else if (pread(fd, b, LEN, CARD_ADDR) != LEN) {
		ret = -errno;
		snprintf(err, errlen, "%s", hfg_drv_err(fd));
	}
	if (fd >= 0)
		close(fd);
	free(b);
	return ret;
}

/* After a recovery with C2H0 hung: the others work, C2H0 keeps its memory
 * and refuses transfers; @wedges "C2H0 wedged" lines since the mark. */
static void check_hung_state(const char *name, int wedges)
{
	char n[64], err[256] = "";
	int ret;

	snprintf(n, sizeof(n), "hang/%s-others-work", name);
	ret = node_roundtrip(1, 1, CARD_ADDR, 11, err, sizeof(err));
	if (!ret)
		ret = node_roundtrip(0, 2, CARD_ADDR + LEN, 12, err, sizeof(err));
	hfg_expect(!ret, n, "%s", err);
	snprintf(n, sizeof(n), "hang/%s-c2h0-refused", name);
	ret = c2h0_read(err, sizeof(err));
	hfg_expect(ret == -EIO && strstr(err, "wedged"), n, "%d: %s", ret, err);
	snprintf(n, sizeof(n), "hang/%s-memory-kept", name);
	hfg_expect(klog("C2H0 wedged") == wedges && klog("memory released") == 0,
		   n, "'C2H0 wedged' %d, 'memory released' %d lines",
		   klog("C2H0 wedged"), klog("memory released"));
}

/* -m hang: PCIe error recovery with C2H0's engine hung. */
static void check_hang(void)
{
	const char *why = NULL;
	char err[256] = "";
	int p[2], e = -1, st, n, on, ret, i;
	pid_t pid;

	if (!aer_possible(&why)) {
		HFG_SKIP("hang/all", "%s", why);
		return;
	}
	if (!hfg_fw_present(ufd)) {
		HFG_SKIP("hang/all", "no fault window (fault-regs=on)");
		return;
	}
	if (pipe(p)) {
		HFG_FAIL("hang/pipe", "%s", strerror(errno));
		return;
	}
	kmark("hang");
	/* C2H0 alone hangs (engine index num_h2c), ended by hand below */
	hfg_wr32(ufd, HFG_FW + HFG_FW_HANG_ENGINES, 1u << info.num_h2c);
	hfg_hang(ufd, 600000000u);
	pid = hung_read(p[1]);
	usleep(300000);
	ev_armed();
	inject("hang1", "UNSUP");
	n = sample_slot_reset(&on);
	/*
	 * A read of an events node while the card is frozen hands out the
	 * count it took (the thaw enables the interrupt again), not EIO with
	 * the count lost.
	 */
	if (ev_fd >= 0) {
		hfg_expect(ev_ret == (int)sizeof(ev_count) && ev_count == 1,
			   "hang/events-read-in-recovery-keeps-the-count",
			   "read %d (%s), count %u", ev_ret,
			   ev_errno ? strerror(ev_errno) : "-", ev_count);
		close(ev_fd);
		ev_fd = -1;
	}
	hfg_expect(klog("recovered from the PCIe error") == 1, "hang/recovered",
		   "error %d, slot reset %d, recovery %d lines",
		   klog("PCIe error (non-fatal)"),
		   klog("slot reset: setting the engines up again"),
		   klog("recovered from the PCIe error"));
	hfg_expect(n > 0 && !on, "hang/bus-master-off-in-slot-reset",
		   "%d of %d samples during slot_reset with bus mastering on",
		   on, n);
	hfg_expect(bus_master() == 1, "hang/bus-master-on-after", "%d",
		   bus_master());
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = -1;
	waitpid(pid, &st, 0);
	/* EIO: cut short by the recovery (the card stays, not a removal's
	 * ENODEV), or refused by the frozen card */
	hfg_expect(e == EIO, "hang/stuck-read-ends", "errno %d", e);
	check_hung_state("first", 1);

	/* a second error while C2H0 still hangs: the same */
	kmark("hang2");
	inject("hang2", "UNSUP");
	for (i = 0; i < 300 && klog("recovered from the PCIe error") < 1; i++)
		usleep(100000);
	hfg_expect(klog("recovered from the PCIe error") == 1,
		   "hang/second-recovered", "%d lines",
		   klog("recovered from the PCIe error"));
	check_hung_state("second", 0);

	/* the hang ends: C2H0 finishes, is found idle and works again */
	kmark("hang-end");
	hfg_fault(ufd, HFG_FAULT_NONE);
	hfg_wr32(ufd, HFG_FW + HFG_FW_HANG_ENGINES, 0);
	usleep(100000);
	ret = c2h0_read(err, sizeof(err));
	hfg_expect(!ret, "hang/c2h0-works-after", "%d: %s", ret, err);
	hfg_expect(klog("C2H0: wedged run's memory released") == 1,
		   "hang/memory-released-once", "%d lines",
		   klog("C2H0: wedged run's memory released"));
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	const char *mode = "";
	int opt;

	hfg_group = "recover";
	while ((opt = hfg_getopt(argc, argv, "d:m:", &card)) != -1) {
		if (opt == 'm')
			mode = optarg;
		else
			return 2;
	}
	ctl = hfg_open(card, "_control", O_RDWR);
	ufd = hfg_open(card, "_user", O_RDWR);
	if (ctl < 0 || ufd < 0 || hfg_info(ctl, &info)) {
		HFG_FAIL("open", "%s: %s", card, strerror(errno));
		return hfg_exit();
	}
	snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", info.pci_domain,
		 (info.pci_bdf >> 8) & 0xff, (info.pci_bdf >> 3) & 0x1f,
		 info.pci_bdf & 7);
	if (!strcmp(mode, "reset"))
		check_reset();
	else if (!strcmp(mode, "hang"))
		check_hang();
	else
		HFG_FAIL("usage", "-m reset|hang");
	return hfg_exit();
}
