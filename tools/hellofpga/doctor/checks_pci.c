// SPDX-License-Identifier: MIT
/*
 * checks_pci.c - "hellofpga doctor": the PCIe path between the card and
 * the GPU: IOMMU, topology, ACS, MPS/MRRS, link training, BAR1.
 *
 * NVIDIA's GPUDirect RDMA documentation ("Design Considerations",
 * "Supported Systems" and "PCI BAR sizes",
 * https://docs.nvidia.com/cuda/gpudirect-rdma/) ranks the paths: only PCIe
 * switches between the two devices is best, one CPU's root complex works
 * with lower (on some CPUs much lower) peer read bandwidth, a path across
 * CPU sockets (QPI/UPI/HT) may be very slow or unreliable; and since the
 * devices exchange physical addresses, an IOMMU must be off or 1:1
 * (passthrough).  docs/doctor.md cites the rest.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

#define PCI_CAP_EXP		0x10
#define PCI_EXP_DEVCAP		4
#define PCI_EXP_DEVCTL		8
#define PCI_ECAP_ACS		0x0d
#define PCI_ACS_CTRL		6
#define PCI_ACS_RR		0x04	/* P2P Request Redirect */
#define PCI_ACS_CR		0x08	/* P2P Completion Redirect */
#define PCI_ACS_EC		0x20	/* P2P Egress Control */

static const char *dev_path(const struct doc_pci *p, const char *file,
			    char *buf, size_t len)
{
	snprintf(buf, len, "/sys/bus/pci/devices/%s/%s", p->bdf, file);
	return buf;
}

static bool need_both(struct doc *d, struct doc_check *c)
{
	if (d->card && d->gpu)
		return true;
	doc_verdict(c, DOC_SKIP, "needs the card and the GPU on PCI (%s%s%s missing)",
		    d->card ? "" : "card", !d->card && !d->gpu ? ", " : "",
		    d->gpu ? "" : "GPU");
	return false;
}

/* Append the kernel command line's IOMMU words to @c; return iommu=pt. */
static bool cmdline_iommu(struct doc *d, struct doc_check *c)
{
	char *line = doc_read_all(d, "/proc/cmdline", NULL), *tok, *save;
	char words[DOC_LINE] = "";
	bool pt = false;

	if (!line)
		return false;
	for (tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (strncmp(tok, "iommu", 5) && strncmp(tok, "intel_iommu", 11) &&
		    strncmp(tok, "amd_iommu", 9))
			continue;
		if (!strcmp(tok, "iommu=pt") || !strcmp(tok, "iommu.passthrough=1"))
			pt = true;
		snprintf(words + strlen(words), sizeof(words) - strlen(words),
			 " %s", tok);
	}
	free(line);
	doc_evidence(c, "/proc/cmdline:%s", *words ? words : " (no iommu options)");
	return pt;
}

/* Entries of directory @dir below the root, names into @names; -1 none. */
static int count_entries(struct doc *d, const char *dir, char *names,
			 size_t len)
{
	char full[1024];
	struct dirent *de;
	int n = 0;
	DIR *dp;

	if (doc_path(d, full, sizeof(full), "%s", dir))
		return -1;
	dp = opendir(full);
	if (!dp)
		return -1;
	if (names && len)
		names[0] = '\0';
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		if (names && strlen(names) + strlen(de->d_name) + 2 < len)
			snprintf(names + strlen(names), len - strlen(names),
				 "%s%s", n ? " " : "", de->d_name);
		n++;
	}
	closedir(dp);
	return n;
}

/** doc_check_iommu() - off, passthrough or translating, for the card. */
void doc_check_iommu(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "iommu", "IOMMU mode");
	struct doc_pci *dev = d->card ? d->card : d->gpu;
	char group[32] = "", path[160], type[32] = "", names[128] = "";
	int units, groups;
	bool pt;

	units = count_entries(d, "/sys/class/iommu", names, sizeof(names));
	groups = count_entries(d, "/sys/kernel/iommu_groups", NULL, 0);
	doc_evidence(c, "/sys/class/iommu: %s", units > 0 ? names : "none");
	doc_evidence(c, "/sys/kernel/iommu_groups: %d groups",
		     groups > 0 ? groups : 0);
	pt = cmdline_iommu(d, c);
	if (groups <= 0) {
		doc_verdict(c, DOC_OK, "off: devices use physical addresses, as GPUDirect RDMA requires");
		return;
	}
	if (dev && !doc_readlink_base(d, dev_path(dev, "iommu_group", path,
						  sizeof(path)),
				      group, sizeof(group))) {
		snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type",
			 group);
		if (!doc_read_line(d, path, type, sizeof(type)))
			doc_evidence(c, "%s (%s %s): %s", path,
				     dev == d->card ? "card" : "GPU", dev->bdf,
				     type);
	}
	if (!*type && !doc_read_line(d, "/sys/kernel/iommu_groups/0/type",
				     type, sizeof(type)))
		doc_evidence(c, "/sys/kernel/iommu_groups/0/type: %s", type);
	if (!strcmp(type, "identity") || (!*type && pt)) {
		doc_verdict(c, DOC_OK, "passthrough%s: DMA addresses are physical addresses",
			    *type ? "" : " (iommu=pt; no group type to read)");
		return;
	}
	doc_verdict(c, DOC_WARN, "translating%s: peer-to-peer DMA needs IOVA mappings of the GPU's BAR, which nvidia_p2p does not promise; NVIDIA requires off or passthrough for GPUDirect RDMA",
		    *type ? "" : " (assumed: no group type, no iommu=pt)");
	doc_fix(c, "add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub; sudo update-grub; reboot), or turn VT-d / AMD-Vi off in the firmware");
}

/* The host bridge component of @p's path ("pci0000:00"). */
static void host_bridge(const struct doc_pci *p, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(p->path, "/"), p->path);
}

struct doc_route {
	struct doc_pci *card[DOC_MAX_DEPTH];
	struct doc_pci *gpu[DOC_MAX_DEPTH];
	int n_card;
	int n_gpu;
	int common;	/* functions both chains start with */
};

static void route(struct doc *d, struct doc_route *r)
{
	char a[64], b[64];

	r->n_card = doc_pci_chain(d, d->card, r->card, DOC_MAX_DEPTH);
	r->n_gpu = doc_pci_chain(d, d->gpu, r->gpu, DOC_MAX_DEPTH);
	host_bridge(d->card, a, sizeof(a));
	host_bridge(d->gpu, b, sizeof(b));
	r->common = 0;
	if (strcmp(a, b))
		return;
	while (r->common < r->n_card && r->common < r->n_gpu &&
	       r->card[r->common] == r->gpu[r->common])
		r->common++;
}

static long numa_node(struct doc *d, const struct doc_pci *p)
{
	char path[160];
	uint64_t v;

	if (doc_read_u64(d, dev_path(p, "numa_node", path, sizeof(path)), &v))
		return -1;
	return (long)v;
}

/** doc_check_topology() - where the card's and the GPU's paths meet. */
void doc_check_topology(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "topology",
					    "PCIe path between card and GPU");
	char a[64], b[64];
	struct doc_route r;
	long na, nb;

	if (!need_both(d, c))
		return;
	route(d, &r);
	doc_evidence(c, "/sys/bus/pci/devices/%s -> /sys/devices/%s (card)",
		     d->card->bdf, d->card->path);
	doc_evidence(c, "/sys/bus/pci/devices/%s -> /sys/devices/%s (GPU)",
		     d->gpu->bdf, d->gpu->path);
	if (r.common) {
		bool pix = r.common == r.n_card - 1 && r.common == r.n_gpu - 1;

		doc_verdict(c, DOC_OK, "%s: they meet at bridge %s below the root complex, the best path",
			    pix ? "PIX" : "PXB", r.card[r.common - 1]->bdf);
		return;
	}
	host_bridge(d->card, a, sizeof(a));
	host_bridge(d->gpu, b, sizeof(b));
	if (!strcmp(a, b)) {
		doc_verdict(c, DOC_WARN, "PHB: they meet only at the root complex (%s)%s: works on most CPUs, with lower peer-to-peer bandwidth (reads above all)",
			    a, r.n_card == 1 && r.n_gpu == 1 ?
			    ", both on its root bus (in a virtual machine the host's topology is hidden)" : "");
		doc_fix(c, "for the best path put the card in a slot below the same PCIe switch as the GPU (lspci -tv shows the tree)");
		return;
	}
	na = numa_node(d, d->card);
	nb = numa_node(d, d->gpu);
	doc_evidence(c, "numa_node: card %ld, GPU %ld", na, nb);
	if (na >= 0 && nb >= 0 && na != nb)
		doc_verdict(c, DOC_WARN, "SYS: different host bridges (%s, %s) on different NUMA nodes: the path crosses CPU sockets, slow or unreliable for peer-to-peer",
			    a, b);
	else
		doc_verdict(c, DOC_WARN, "NODE: different host bridges (%s, %s): peer-to-peer between root complexes, slower than within one, not supported by every CPU",
			    a, b);
	doc_fix(c, "put the card in a slot of the GPU's root complex, best below the same PCIe switch (lspci -tv)");
}

/* Evidence of one bridge's ACS; 1 redirecting, 0 not, -1 unknown. */
static int bridge_acs(struct doc *d, struct doc_check *c, struct doc_pci *p)
{
	unsigned int ctrl;
	int off;

	if (!doc_pci_cfg(d, p) || p->cfg_len <= 64) {
		doc_evidence(c, "/sys/bus/pci/devices/%s/config: %zu bytes, no capabilities (read as root)",
			     p->bdf, p->cfg_len);
		return -1;
	}
	off = doc_pci_ecap(p, PCI_ECAP_ACS);
	if (off < 0) {
		doc_evidence(c, "/sys/bus/pci/devices/%s/config: no ACS capability%s",
			     p->bdf, p->cfg_len <= 256 ? " (no extended config space)" : "");
		return 0;
	}
	ctrl = doc_cfg16(p, off + PCI_ACS_CTRL);
	doc_evidence(c, "/sys/bus/pci/devices/%s/config: ACS control 0x%04x at 0x%03x (ReqRedir%c CmpltRedir%c EgressCtrl%c)",
		     p->bdf, ctrl, off + PCI_ACS_CTRL, ctrl & PCI_ACS_RR ? '+' : '-',
		     ctrl & PCI_ACS_CR ? '+' : '-', ctrl & PCI_ACS_EC ? '+' : '-');
	return !!(ctrl & (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC));
}

/** doc_check_acs() - no bridge between card and GPU redirects P2P. */
void doc_check_acs(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "acs",
					    "ACS on the bridges between card and GPU");
	char redir[DOC_LINE] = "";
	int i, n = 0, unknown = 0;
	struct doc_route r;

	if (!need_both(d, c))
		return;
	route(d, &r);
	/* the ports below where the paths meet, the endpoints left out */
	for (i = 0; i < r.n_card + r.n_gpu; i++) {
		bool card = i < r.n_card;
		int k = card ? i : i - r.n_card;
		struct doc_pci *p = card ? r.card[k] : r.gpu[k];
		int ret;

		if (k < r.common || k == (card ? r.n_card : r.n_gpu) - 1 ||
		    !doc_pci_is_bridge(p))
			continue;
		n++;
		ret = bridge_acs(d, c, p);
		if (ret < 0)
			unknown++;
		if (ret > 0)
			snprintf(redir + strlen(redir),
				 sizeof(redir) - strlen(redir), "%s%s",
				 *redir ? ";" : "", p->bdf);
	}
	if (*redir) {
		doc_verdict(c, DOC_WARN, "ACS redirects peer-to-peer requests at %s: they go up to the root complex (and through the IOMMU) instead of across",
			    redir);
		doc_fix(c, "boot with pci=disable_acs_redir=%s, or until reboot: sudo setpci -s BDF ECAP_ACS+6.w=0000; keep ACS where devices must stay isolated (virtual machines)",
			redir);
	} else if (unknown) {
		doc_verdict(c, DOC_SKIP, "the config space of %d bridge(s) cannot be read: run the doctor as root",
			    unknown);
	} else if (!n) {
		doc_verdict(c, DOC_OK, "no bridge between the card and the GPU");
	} else {
		doc_verdict(c, DOC_OK, "%d bridge(s) on the path, none redirects peer-to-peer",
			    n);
	}
}

static unsigned int mps_bytes(unsigned int code)
{
	return 128u << (code & 7);
}

/** doc_check_mps() - the card's MPS is what its path supports; MRRS. */
void doc_check_mps(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "mps",
					    "Max Payload and Max Read Request Size");
	struct doc_pci *chain[DOC_MAX_DEPTH];
	unsigned int common = 4096, card_mps = 0, card_mrrs = 0;
	int i, n;

	if (!d->card) {
		doc_verdict(c, DOC_SKIP, "no card on PCI");
		return;
	}
	n = doc_pci_chain(d, d->card, chain, DOC_MAX_DEPTH);
	for (i = 0; i < n; i++) {
		struct doc_pci *p = chain[i];
		unsigned int cap, ctl;
		int off;

		if (!doc_pci_cfg(d, p) || (off = doc_pci_cap(p, PCI_CAP_EXP)) < 0)
			continue;
		cap = doc_cfg32(p, off + PCI_EXP_DEVCAP);
		ctl = doc_cfg16(p, off + PCI_EXP_DEVCTL);
		doc_evidence(c, "/sys/bus/pci/devices/%s/config: MPS %u (supports %u), MRRS %u",
			     p->bdf, mps_bytes(ctl >> 5), mps_bytes(cap),
			     mps_bytes(ctl >> 12));
		if (mps_bytes(cap) < common)
			common = mps_bytes(cap);
		if (p == d->card) {
			card_mps = mps_bytes(ctl >> 5);
			card_mrrs = mps_bytes(ctl >> 12);
		}
	}
	if (!card_mps) {
		doc_verdict(c, DOC_SKIP, "no PCI Express capability readable for %s (config space: read as root)",
			    d->card->bdf);
		return;
	}
	if (card_mps < common) {
		doc_verdict(c, DOC_WARN, "MPS %u, while the card and every port above it support %u: TLPs carry less data than they could",
			    card_mps, common);
		doc_fix(c, "boot with pci=pcie_bus_perf (the kernel then sets the largest MPS each path allows)");
		return;
	}
	doc_verdict(c, DOC_OK, "MPS %u, the most its path supports; MRRS %u",
		    card_mps, card_mrrs);
}

struct doc_link {
	double speed, max_speed;
	long width, max_width;
	char speed_s[32], max_speed_s[32];
};

static bool read_link(struct doc *d, struct doc_check *c,
		      const struct doc_pci *p, const char *what,
		      struct doc_link *l)
{
	char path[160], w[16] = "", mw[16] = "";

	if (doc_read_line(d, dev_path(p, "current_link_speed", path, sizeof(path)),
			  l->speed_s, sizeof(l->speed_s)) ||
	    doc_read_line(d, dev_path(p, "max_link_speed", path, sizeof(path)),
			  l->max_speed_s, sizeof(l->max_speed_s)) ||
	    doc_read_line(d, dev_path(p, "current_link_width", path, sizeof(path)),
			  w, sizeof(w)) ||
	    doc_read_line(d, dev_path(p, "max_link_width", path, sizeof(path)),
			  mw, sizeof(mw))) {
		doc_evidence(c, "/sys/bus/pci/devices/%s/current_link_*: missing (%s)",
			     p->bdf, what);
		return false;
	}
	l->speed = strtod(l->speed_s, NULL);
	l->max_speed = strtod(l->max_speed_s, NULL);
	l->width = strtol(w, NULL, 10);
	l->max_width = strtol(mw, NULL, 10);
	doc_evidence(c, "/sys/bus/pci/devices/%s/{current,max}_link_{speed,width}: %s x%ld of %s x%ld (%s)",
		     p->bdf, l->speed_s, l->width, l->max_speed_s, l->max_width,
		     what);
	return l->speed > 0 && l->width > 0;
}

/** doc_check_link() - card and GPU links run at what they can. */
void doc_check_link(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "link",
					    "negotiated PCIe link against capability");
	char bad[DOC_LINE] = "";
	struct doc_link l;
	int read = 0;

	if (d->card && read_link(d, c, d->card, "card", &l)) {
		read++;
		if (l.speed < l.max_speed || l.width < l.max_width)
			snprintf(bad, sizeof(bad), "card %s x%ld of %s x%ld",
				 l.speed_s, l.width, l.max_speed_s, l.max_width);
	}
	if (d->gpu && read_link(d, c, d->gpu, "GPU", &l)) {
		read++;
		if (l.width < l.max_width)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%sGPU x%ld of x%ld", *bad ? ", " : "",
				 l.width, l.max_width);
		else if (l.speed < l.max_speed)
			doc_evidence(c, "the GPU lowers its link speed when idle: look again under load");
	}
	if (!read) {
		doc_verdict(c, DOC_SKIP, "no link to read (card or GPU missing, or no link files)");
		return;
	}
	if (*bad) {
		doc_verdict(c, DOC_WARN, "down-trained: %s: bandwidth drops with speed and width",
			    bad);
		doc_fix(c, "reseat the card in a slot wired for its full width (check the slot's lanes in the board manual), clean the contacts, check the riser; the port's max_link_* shows what the slot offers");
		return;
	}
	doc_verdict(c, DOC_OK, "every link at its full width%s",
		    d->card ? " and the card at its full speed" : "");
}

/*
 * BAR1 is the GPU's second memory BAR: resource line 1 when BAR0 is 32-bit
 * (older GPUs), line 2 when BAR0 is 64-bit and takes two registers (H100,
 * H200).  Return its line (0-based), or -1.
 */
static int bar1_line(char *text, uint64_t *start, uint64_t *end)
{
	char *line, *save = NULL;
	int i = 0, seen = 0;

	for (line = strtok_r(text, "\n", &save); line && i < 6;
	     line = strtok_r(NULL, "\n", &save), i++) {
		if (sscanf(line, "%" SCNx64 " %" SCNx64, start, end) != 2 ||
		    *end <= *start)
			continue;
		if (++seen == 2)
			return i;
	}
	return -1;
}

/** doc_check_bar1() - the GPU's BAR1, the window GPU pins are seen through. */
void doc_check_bar1(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "bar1", "GPU BAR1 size");
	uint64_t start, end, size;
	char path[160], sz[32];
	bool readable;
	char *text;
	int line;

	if (!d->gpu) {
		doc_verdict(c, DOC_SKIP, "no NVIDIA GPU on PCI");
		return;
	}
	text = doc_read_all(d, dev_path(d->gpu, "resource", path, sizeof(path)),
			    NULL);
	readable = text;
	line = text ? bar1_line(text, &start, &end) : -1;
	free(text);
	if (line < 0) {
		doc_verdict(c, DOC_SKIP, "%s: %s", path, readable ?
			    "no second memory BAR" : "cannot be read");
		return;
	}
	size = end - start + 1;
	doc_evidence(c, "%s, line %d (BAR1, the second memory BAR): 0x%" PRIx64 "-0x%" PRIx64 ", %s",
		     path, line + 1, start, end, doc_size(size, sz, sizeof(sz)));
	if (size >= (1ull << 30)) {
		doc_verdict(c, DOC_OK, "BAR1 %s: room for large GPU pins", sz);
		return;
	}
	doc_verdict(c, DOC_WARN, "BAR1 %s: every pinned GPU buffer is mapped through it, so all pins together stay below that (less what the driver reserves)",
		    sz);
	doc_fix(c, "enable \"Above 4G decoding\" and \"Resizable BAR\" in the firmware; nvidia-smi -q -d MEMORY shows BAR1 in use");
}
