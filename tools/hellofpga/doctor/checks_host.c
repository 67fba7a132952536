// SPDX-License-Identifier: MIT
/*
 * checks_host.c - "hellofpga doctor": the driver, the card on PCI, its
 * nodes for this user, the pin limits and the kernel's configuration.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "doctor.h"
#include "uapi/hellofpga.h"

#define MODULE_DIR	"/sys/module/hellofpga"

static bool driver_loaded(const struct doc *d)
{
	return doc_exists(d, MODULE_DIR);
}

/** doc_check_driver() - hellofpga.ko is loaded, and which version. */
void doc_check_driver(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "driver", "hellofpga.ko loaded");
	char ver[64];

	if (!driver_loaded(d)) {
		doc_verdict(c, DOC_FAIL, "hellofpga.ko is not loaded");
		doc_evidence(c, MODULE_DIR ": missing");
		doc_fix(c, "sudo modprobe hellofpga, or from a build: make -C driver && sudo insmod driver/hellofpga.ko (README, \"The kernel driver\")");
		return;
	}
	if (doc_read_line(d, MODULE_DIR "/version", ver, sizeof(ver)))
		snprintf(ver, sizeof(ver), "unknown");
	doc_verdict(c, DOC_OK, "hellofpga.ko %s is loaded", ver);
	doc_evidence(c, MODULE_DIR "/version: %s", ver);
	doc_evidence(c, "this tool: %s", HELLOFPGA_VERSION_STRING);
}

/** doc_check_abi() - the driver speaks the library's ABI. */
void doc_check_abi(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "abi",
					    "driver ABI matches the library");
	const struct doc_env *e = &d->env;
	unsigned int major, minor;

	if (!driver_loaded(d)) {
		doc_verdict(c, DOC_SKIP, "no driver loaded");
		return;
	}
	if (!*e->abi && e->card_errno == EPROTO) {
		doc_verdict(c, DOC_FAIL, "the library cannot talk to the driver");
		doc_evidence(c, "HelloFPGA_Open(): %s", e->card_error);
		doc_fix(c, "install hellofpga.ko and libhellofpga of one release (this tool: %s, ABI %d.%d)",
			HELLOFPGA_VERSION_STRING, HELLOFPGA_ABI_MAJOR,
			HELLOFPGA_ABI_MINOR);
		return;
	}
	if (sscanf(e->abi, "%u.%u", &major, &minor) != 2) {
		doc_verdict(c, DOC_SKIP, "no card opened%s",
			    *e->card_error ? "" : " (no /dev/hellofpga*_control node)");
		if (*e->card_error)
			doc_evidence(c, "HelloFPGA_Open(): %s", e->card_error);
		return;
	}
	doc_evidence(c, "GET_INFO of the card: ABI %u.%u", major, minor);
	doc_evidence(c, "the library: ABI %d.%d", HELLOFPGA_ABI_MAJOR,
		     HELLOFPGA_ABI_MINOR);
	if (major != HELLOFPGA_ABI_MAJOR) {
		doc_verdict(c, DOC_FAIL, "driver ABI %u.%u, the library needs %d.x",
			    major, minor, HELLOFPGA_ABI_MAJOR);
		doc_fix(c, "install hellofpga.ko and libhellofpga of one release");
	} else if (minor < HELLOFPGA_ABI_MINOR) {
		doc_verdict(c, DOC_WARN, "driver ABI %u.%u is older than the library's %d.%d: newer calls answer EOPNOTSUPP",
			    major, minor, HELLOFPGA_ABI_MAJOR,
			    HELLOFPGA_ABI_MINOR);
		doc_fix(c, "update hellofpga.ko to the library's release (%s)",
			HELLOFPGA_VERSION_STRING);
	} else {
		doc_verdict(c, DOC_OK, "driver ABI %u.%u", major, minor);
	}
}

/** doc_check_card() - an XDMA card on PCI, bound to hellofpga. */
void doc_check_card(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "card",
					    "XDMA card on PCI, bound to hellofpga");
	const struct doc_pci *p = d->card;

	if (!p) {
		doc_verdict(c, DOC_FAIL, "no Xilinx function (vendor 0x10ee) on PCI");
		doc_evidence(c, "/sys/bus/pci/devices/*/vendor: %d functions, none 0x10ee",
			     d->n_pci);
		doc_fix(c, "seat and power the card, load an XDMA bitstream, then rescan: echo 1 | sudo tee /sys/bus/pci/rescan; lspci -d 10ee:");
		return;
	}
	doc_evidence(c, "/sys/bus/pci/devices/%s: vendor 0x%04x, device 0x%04x, class 0x%06x",
		     p->bdf, p->vendor, p->device, p->class);
	doc_evidence(c, "/sys/bus/pci/devices/%s/driver: %s", p->bdf,
		     *p->driver ? p->driver : "none");
	if (!strcmp(p->driver, "hellofpga")) {
		doc_verdict(c, DOC_OK, "%s %04x:%04x, bound to hellofpga",
			    p->bdf, p->vendor, p->device);
	} else if (*p->driver) {
		doc_verdict(c, DOC_FAIL, "%s is bound to %s, not hellofpga",
			    p->bdf, p->driver);
		doc_fix(c, "echo %s | sudo tee /sys/bus/pci/drivers/%s/unbind; echo %s | sudo tee /sys/bus/pci/drivers/hellofpga/bind",
			p->bdf, p->driver, p->bdf);
	} else {
		doc_verdict(c, DOC_FAIL, "%s %04x:%04x has no driver",
			    p->bdf, p->vendor, p->device);
		doc_fix(c, "load hellofpga.ko, with ids=%04x:%04x if the card's ID is not among its own (modinfo hellofpga)",
			p->vendor, p->device);
	}
}

static bool member(const struct doc_env *e, long gid)
{
	int i;

	for (i = 0; i < e->n_gids; i++)
		if (e->gids[i] == gid)
			return true;
	return false;
}

/* Whether the user may open @n read-write, as the library does. */
static bool node_rw(const struct doc_env *e, const struct doc_node *n)
{
	if (e->uid == 0)
		return true;	/* CAP_DAC_OVERRIDE */
	if (n->uid == e->uid)
		return (n->mode & 0600) == 0600;
	if (member(e, n->gid))
		return (n->mode & 0060) == 0060;
	return (n->mode & 0006) == 0006;
}

static void user_evidence(struct doc_check *c, const struct doc_env *e)
{
	char line[DOC_LINE], name[64];
	size_t len;
	int i;

	len = snprintf(line, sizeof(line), "user: uid %ld, groups", e->uid);
	for (i = 0; i < e->n_gids && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s",
				doc_group_name(e, e->gids[i], name,
					       sizeof(name)));
	doc_evidence(c, "%s", line);
}

/** doc_check_nodes() - the user may open the card's nodes read-write. */
void doc_check_nodes(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "nodes",
					    "device nodes open for this user");
	const struct doc_env *e = &d->env;
	const struct doc_node *bad = NULL;
	int i, n_bad = 0, shown = 0;
	char name[64];

	if (!e->known || !driver_loaded(d)) {
		doc_verdict(c, DOC_SKIP, e->known ? "no driver loaded" :
			    "no environment facts (doctor-env) below the root");
		return;
	}
	user_evidence(c, e);
	if (!e->n_nodes) {
		doc_verdict(c, DOC_FAIL, "no /dev/hellofpga* nodes: no card is bound to the driver");
		doc_evidence(c, "/dev/hellofpga*: none");
		doc_fix(c, "see the check \"card\"; the nodes appear when a card is bound");
		return;
	}
	for (i = 0; i < e->n_nodes; i++) {
		const struct doc_node *n = &e->nodes[i];
		bool ok = node_rw(e, n);

		if (!ok && !n_bad++)
			bad = n;
		if (shown < DOC_MAX_EVIDENCE - 3 && (!ok || i < 2)) {
			doc_evidence(c, "%s: mode %04o, owner %ld, group %s: %s",
				     n->path, n->mode, n->uid,
				     doc_group_name(e, n->gid, name,
						    sizeof(name)),
				     ok ? "read-write" : "not read-write");
			shown++;
		}
	}
	if (!bad) {
		doc_verdict(c, DOC_OK, "%d nodes, all open read-write for uid %ld",
			    e->n_nodes, e->uid);
		return;
	}
	doc_verdict(c, DOC_FAIL, "%d of %d nodes cannot be opened read-write (HelloFPGA_Open() fails with EACCES)",
		    n_bad, e->n_nodes);
	doc_group_name(e, bad->gid, name, sizeof(name));
	if (bad->gid != 0 && (bad->mode & 0060) == 0060)
		doc_fix(c, "sudo usermod -aG %s $USER, then log in again", name);
	else
		doc_fix(c, "give the nodes to group hellofpga (the packaging's udev rule does; by hand: sudo chgrp hellofpga /dev/hellofpga*; sudo chmod 0660 /dev/hellofpga*), then sudo usermod -aG hellofpga $USER (docs/security.md)");
}

/* The driver's pin limit per card in bytes: pin_limit_mb, else half of RAM. */
static uint64_t pin_limit(struct doc *d, struct doc_check *c)
{
	uint64_t mb, kb = 0;
	char *meminfo, *p;

	if (!doc_read_u64(d, MODULE_DIR "/parameters/pin_limit_mb", &mb)) {
		doc_evidence(c, MODULE_DIR "/parameters/pin_limit_mb: %" PRIu64,
			     mb);
		if (mb)
			return mb << 20;
	}
	meminfo = doc_read_all(d, "/proc/meminfo", NULL);
	p = meminfo ? strstr(meminfo, "MemTotal:") : NULL;
	if (p)
		kb = strtoull(p + 9, NULL, 10);
	free(meminfo);
	if (kb)
		doc_evidence(c, "/proc/meminfo: MemTotal %" PRIu64 " kB", kb);
	return kb * 1024 / 2;
}

/** doc_check_memlock() - RLIMIT_MEMLOCK lets pins reach the driver's limit. */
void doc_check_memlock(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "memlock",
					    "RLIMIT_MEMLOCK against the pin limit");
	const struct doc_env *e = &d->env;
	char a[32], b[32];
	uint64_t limit;

	if (!e->memlock_known) {
		doc_verdict(c, DOC_SKIP, "RLIMIT_MEMLOCK unknown (no memlock in doctor-env)");
		return;
	}
	if (e->memlock == UINT64_MAX)
		doc_evidence(c, "RLIMIT_MEMLOCK: unlimited");
	else
		doc_evidence(c, "RLIMIT_MEMLOCK: %s",
			     doc_size(e->memlock, a, sizeof(a)));
	limit = pin_limit(d, c);
	if (e->uid == 0) {
		doc_verdict(c, DOC_OK, "root: CAP_IPC_LOCK lifts RLIMIT_MEMLOCK");
	} else if (e->memlock == UINT64_MAX || e->memlock >= limit) {
		doc_verdict(c, DOC_OK, "RLIMIT_MEMLOCK %s reaches the driver's pin limit (%s)",
			    e->memlock == UINT64_MAX ? "unlimited" :
			    doc_size(e->memlock, a, sizeof(a)),
			    doc_size(limit, b, sizeof(b)));
	} else {
		doc_verdict(c, DOC_WARN, "RLIMIT_MEMLOCK %s: pins of host memory stop there (ENOMEM), below the driver's pin limit (%s); GPU pins count only their descriptors",
			    doc_size(e->memlock, a, sizeof(a)),
			    doc_size(limit, b, sizeof(b)));
		doc_fix(c, "echo '@hellofpga - memlock unlimited' | sudo tee /etc/security/limits.d/hellofpga.conf, then log in again (a systemd service: LimitMEMLOCK=infinity)");
	}
}

/* The value of CONFIG_@name in @config: "y", "m", or NULL when not set. */
static const char *kconfig(const char *config, const char *name, char *buf,
			   size_t len)
{
	char key[64];
	const char *p;
	size_t n;

	n = snprintf(key, sizeof(key), "CONFIG_%s=", name);
	for (p = strstr(config, key); p; p = strstr(p + 1, key)) {
		if (p != config && p[-1] != '\n')
			continue;
		p += n;
		snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
		return buf;
	}
	return NULL;
}

/** doc_check_kconfig() - the kernel options of the dma-buf path. */
void doc_check_kconfig(struct doc *d)
{
	static const char *const opt[] = { "DMA_SHARED_BUFFER", "PCI_P2PDMA",
					   "DMABUF_MOVE_NOTIFY" };
	struct doc_check *c = doc_check_new(d, "kconfig",
					    "kernel options of the dma-buf path");
	char path[192], val[16], missing[128] = "";
	char *config = NULL;
	size_t i;

	if (*d->env.kernel) {
		snprintf(path, sizeof(path), "/boot/config-%s", d->env.kernel);
		config = doc_read_all(d, path, NULL);
	}
	if (!config) {
		snprintf(path, sizeof(path), "/proc/config.gz");
		config = doc_read_gzip(d, path, NULL);
	}
	if (!config) {
		doc_verdict(c, DOC_SKIP, "the kernel's configuration cannot be read");
		doc_evidence(c, "/boot/config-%s, /proc/config.gz: missing",
			     *d->env.kernel ? d->env.kernel : "(kernel unknown)");
		doc_fix(c, "sudo modprobe configs (for /proc/config.gz), or install the kernel's config file");
		return;
	}
	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
		const char *v = kconfig(config, opt[i], val, sizeof(val));

		doc_evidence(c, "%s: CONFIG_%s=%s", path, opt[i],
			     v ? v : "(not set)");
		if (!v)
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), "%s%s",
				 *missing ? ", " : "", opt[i]);
	}
	free(config);
	if (!*missing) {
		doc_verdict(c, DOC_OK, "dma-buf with peer-to-peer DMA and move notification");
		return;
	}
	doc_verdict(c, DOC_WARN, "not set: %s: the dma-buf path may be refused (nvidia_p2p is not affected)",
		    missing);
	doc_fix(c, "a kernel built with CONFIG_DMA_SHARED_BUFFER=y, CONFIG_PCI_P2PDMA=y and CONFIG_DMABUF_MOVE_NOTIFY=y (docs/doctor.md, \"kconfig\")");
}
