// SPDX-License-Identifier: MIT
/*
 * pci.c - "hellofpga doctor": the PCI functions of sysfs, their config
 * space (capabilities) and their place in the hierarchy.
 *
 * /sys/bus/pci/devices/BDF links to ../../../devices/pci0000:00/<bridge
 * BDF>/.../BDF: the components of that path are the host bridge, then
 * every bridge down to the function, which is how the report finds the
 * bridges between the card and the GPU.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"

#define PCI_VENDOR_XILINX	0x10ee
#define PCI_VENDOR_NVIDIA	0x10de
#define PCI_STATUS		0x06
#define PCI_STATUS_CAP_LIST	0x10
#define PCI_CAP_PTR		0x34
#define PCI_ECAP_START		0x100

static int pci_cmp(const void *a, const void *b)
{
	return strcmp(((const struct doc_pci *)a)->bdf,
		      ((const struct doc_pci *)b)->bdf);
}

/* The part of link target @t below "devices/", "" if none. */
static const char *below_devices(const char *t)
{
	const char *p, *last = NULL;

	for (p = strstr(t, "devices/"); p; p = strstr(p + 1, "devices/"))
		last = p;
	return last ? last + 8 : "";
}

static void read_id(struct doc *d, const char *bdf, const char *file,
		    unsigned int *v)
{
	char path[128];
	uint64_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, file);
	*v = doc_read_u64(d, path, &n) ? 0 : (unsigned int)n;
}

static void add_function(struct doc *d, const char *bdf, const char *full)
{
	struct doc_pci *p = &d->pci[d->n_pci];
	char target[512], path[128];
	ssize_t n;

	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	n = readlink(full, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	snprintf(p->path, sizeof(p->path), "%s", below_devices(target));
	read_id(d, bdf, "vendor", &p->vendor);
	read_id(d, bdf, "device", &p->device);
	read_id(d, bdf, "class", &p->class);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	if (doc_readlink_base(d, path, p->driver, sizeof(p->driver)))
		p->driver[0] = '\0';
	d->n_pci++;
}

/* "0000:19:00.0" and CUDA's "00000000:19:00.0": the same function. */
static bool same_bdf(const char *sysfs, const char *other)
{
	size_t a = strlen(sysfs), b = strlen(other);

	return a >= 7 && b >= 7 && !strcasecmp(sysfs + a - 7, other + b - 7) &&
	       strtoul(sysfs, NULL, 16) == strtoul(other, NULL, 16);
}

/**
 * doc_pci_scan() - read the functions of /sys/bus/pci/devices and pick
 * the card (bound to hellofpga, else the first Xilinx function) and the
 * GPU (the one CUDA named, else the first NVIDIA display controller).
 * @d: the run
 */
void doc_pci_scan(struct doc *d)
{
	char dir[1024], full[1400];
	struct dirent *de;
	DIR *dp;
	int i;

	d->pci = calloc(DOC_MAX_PCI, sizeof(*d->pci));
	if (!d->pci || doc_path(d, dir, sizeof(dir), "/sys/bus/pci/devices"))
		return;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp)) && d->n_pci < DOC_MAX_PCI) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 16)
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		add_function(d, de->d_name, full);
	}
	closedir(dp);
	qsort(d->pci, d->n_pci, sizeof(*d->pci), pci_cmp);
	for (i = 0; i < d->n_pci && !d->card; i++)
		if (!strcmp(d->pci[i].driver, "hellofpga"))
			d->card = &d->pci[i];
	for (i = 0; i < d->n_pci && !d->card; i++)
		if (d->pci[i].vendor == PCI_VENDOR_XILINX)
			d->card = &d->pci[i];
	for (i = 0; i < d->n_pci && !d->gpu && *d->env.gpu_pci; i++)
		if (same_bdf(d->pci[i].bdf, d->env.gpu_pci))
			d->gpu = &d->pci[i];
	for (i = 0; i < d->n_pci && !d->gpu; i++)
		if (d->pci[i].vendor == PCI_VENDOR_NVIDIA &&
		    d->pci[i].class >> 16 == 0x03)
			d->gpu = &d->pci[i];
}

/** doc_pci_free() - free what doc_pci_scan() and doc_pci_cfg() read. */
void doc_pci_free(struct doc *d)
{
	int i;

	for (i = 0; i < d->n_pci; i++)
		free(d->pci[i].cfg);
	free(d->pci);
	d->pci = NULL;
	d->n_pci = 0;
}

/** doc_pci_find() - the function at @bdf, or NULL. */
struct doc_pci *doc_pci_find(struct doc *d, const char *bdf)
{
	int i;

	for (i = 0; i < d->n_pci; i++)
		if (!strcmp(d->pci[i].bdf, bdf))
			return &d->pci[i];
	return NULL;
}

/**
 * doc_pci_cfg() - @p's config space, read once.  Without root the kernel
 * gives the first 64 bytes only (no capabilities); @p->cfg_len says how
 * much there is.
 * Return: the bytes, or NULL when there are none.
 */
const uint8_t *doc_pci_cfg(struct doc *d, struct doc_pci *p)
{
	char path[128];
	ssize_t n;

	if (p->cfg_read)
		return p->cfg_len ? p->cfg : NULL;
	p->cfg_read = true;
	p->cfg = calloc(1, DOC_PCI_CFG);
	if (!p->cfg)
		return NULL;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", p->bdf);
	n = doc_read(d, path, p->cfg, DOC_PCI_CFG);
	p->cfg_len = n > 0 ? n : 0;
	return p->cfg_len ? p->cfg : NULL;
}

/** doc_cfg16() - the 16-bit register at @off, 0 beyond what was read. */
unsigned int doc_cfg16(const struct doc_pci *p, int off)
{
	if (off < 0 || (size_t)off + 2 > p->cfg_len)
		return 0;
	return p->cfg[off] | p->cfg[off + 1] << 8;
}

/** doc_cfg32() - the 32-bit register at @off, 0 beyond what was read. */
uint32_t doc_cfg32(const struct doc_pci *p, int off)
{
	return doc_cfg16(p, off) | (uint32_t)doc_cfg16(p, off + 2) << 16;
}

/**
 * doc_pci_cap() - offset of capability @id (0x10: PCI Express), walking
 * the list at 0x34 (at most 48 entries: a looping list ends).
 * Return: the offset, or -1.
 */
int doc_pci_cap(const struct doc_pci *p, unsigned int id)
{
	int off, n;

	if (!(doc_cfg16(p, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return -1;
	off = doc_cfg16(p, PCI_CAP_PTR) & 0xfc;
	for (n = 0; off >= 0x40 && n < 48; n++) {
		unsigned int h = doc_cfg16(p, off);

		if ((h & 0xff) == id)
			return off;
		off = (h >> 8) & 0xfc;
	}
	return -1;
}

/**
 * doc_pci_ecap() - offset of extended capability @id (0x0d: ACS), walking
 * the list at 0x100 (config space of 4096 bytes, read as root).
 * Return: the offset, or -1.
 */
int doc_pci_ecap(const struct doc_pci *p, unsigned int id)
{
	int off = PCI_ECAP_START, n;

	for (n = 0; off >= PCI_ECAP_START && n < 480; n++) {
		uint32_t h = doc_cfg32(p, off);

		if (!h || h == 0xffffffff)
			return -1;
		if ((h & 0xffff) == id)
			return off;
		off = (h >> 20) & 0xffc;
	}
	return -1;
}

/** doc_pci_is_bridge() - @p is a PCI-to-PCI bridge (a port). */
bool doc_pci_is_bridge(const struct doc_pci *p)
{
	return p->class >> 8 == 0x0604;
}

/**
 * doc_pci_chain() - the functions from the top of @p's hierarchy down to
 * @p: the bridges above it, then @p itself.
 * @d: the run
 * @p: the function
 * @chain: receives them, top first
 * @max: room in @chain
 *
 * Return: how many; components that are not PCI functions of
 * /sys/bus/pci/devices (host bridges, VMD domains) are left out.
 */
int doc_pci_chain(struct doc *d, const struct doc_pci *p,
		  struct doc_pci **chain, int max)
{
	char path[sizeof(p->path)], *tok, *save = NULL;
	int n = 0;

	snprintf(path, sizeof(path), "%s", p->path);
	for (tok = strtok_r(path, "/", &save); tok && n < max;
	     tok = strtok_r(NULL, "/", &save)) {
		struct doc_pci *f;

		f = doc_pci_find(d, tok);
		if (f)
			chain[n++] = f;
	}
	return n;
}
