/* SPDX-License-Identifier: MIT */
/*
 * doctor.h - "hellofpga doctor": is this machine ready for GPU Direct?
 *
 * Every fact comes either from a file (sysfs, procfs, /boot) read below a
 * root directory (--root DIR, default "/"), or from the "environment": the
 * user's credentials and limits, the running kernel, the device nodes,
 * what the library sees of the card and of CUDA.  On the live system the
 * environment is asked for (env.c); below another root it is read from
 * the file ROOT/doctor-env, so a recorded tree (scripts/doctor-record.sh)
 * gives the same report on any machine.  docs/doctor.md lists the checks.
 */
#ifndef HF_DOCTOR_H
#define HF_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum doc_verdict { DOC_OK, DOC_WARN, DOC_FAIL, DOC_SKIP };

#define DOC_MAX_EVIDENCE	16
#define DOC_LINE		320

/**
 * struct doc_check - one check of the report.
 * @id: short name ("driver", "acs"), the key of --json and of the tests
 * @title: what it checks, for people
 * @verdict: DOC_*
 * @result: the finding, one line
 * @evidence: what was read, each line naming its source
 * @n_evidence: lines in @evidence
 * @fix: what to do about a warn or fail ("" when nothing)
 */
struct doc_check {
	const char *id;
	const char *title;
	enum doc_verdict verdict;
	char result[DOC_LINE];
	char evidence[DOC_MAX_EVIDENCE][DOC_LINE];
	int n_evidence;
	char fix[2 * DOC_LINE];
};

#define DOC_MAX_GIDS	64
#define DOC_MAX_NODES	64
#define DOC_MAX_GROUPS	64

/** struct doc_node - a /dev/hellofpga* node: its mode and owner. */
struct doc_node {
	char path[96];
	unsigned int mode;
	long uid;
	long gid;
};

/** struct doc_group - a group's name, for messages. */
struct doc_group {
	long gid;
	char name[64];
};

/**
 * struct doc_env - the facts that are not files (doctor-env keys in
 * brackets; docs/doctor.md describes the file).
 * @known: the facts were gathered (live) or read (a doctor-env file)
 * @uid: [uid] the user's uid, -1 unknown
 * @gids: [gids] the user's primary and supplementary groups
 * @memlock: [memlock] RLIMIT_MEMLOCK in bytes; UINT64_MAX unlimited
 * @memlock_known: @memlock is set
 * @kernel: [kernel] uname -r
 * @nodes: [node] the /dev/hellofpga* nodes
 * @groups: [group] names of the groups above
 * @abi: [abi] the driver's ABI "MAJOR.MINOR" as the library read it, ""
 *	unknown
 * @features: [features] the driver's HELLOFPGA_FEAT_* bits
 * @features_known: @features is set
 * @card_error: [card_error] why the library could not open the card
 * @card_errno: [card_errno] the errno of that (EPROTO: another ABI)
 * @gpu_known: the GPU facts below are set
 * @gpu_platform: [gpu_platform] none, desktop or tegra
 * @gpu_emulated: [gpu_emulated] the library's emulated GPU
 * @gpu_name: [gpu_name]
 * @gpu_pci: [gpu_pci] its PCI address, "" unknown
 * @gpu_reason: [gpu_reason] why GPU Direct is not usable
 * @cuda_driver: [cuda_driver] CUDA driver version (13000), 0 none
 * @rdma_supported: [rdma_supported] GPU_DIRECT_RDMA_SUPPORTED, -1 unknown
 * @dmabuf_supported: [dmabuf_supported] DMA_BUF_SUPPORTED, -1 unknown
 */
struct doc_env {
	bool known;
	long uid;
	long gids[DOC_MAX_GIDS];
	int n_gids;
	uint64_t memlock;
	bool memlock_known;
	char kernel[128];
	struct doc_node nodes[DOC_MAX_NODES];
	int n_nodes;
	struct doc_group groups[DOC_MAX_GROUPS];
	int n_groups;
	char abi[32];
	uint64_t features;
	bool features_known;
	char card_error[256];
	int card_errno;
	bool gpu_known;
	char gpu_platform[16];
	int gpu_emulated;
	char gpu_name[96];
	char gpu_pci[32];
	char gpu_reason[192];
	int cuda_driver;
	int rdma_supported;
	int dmabuf_supported;
};

#define DOC_PCI_CFG	4096
#define DOC_MAX_PCI	512
#define DOC_MAX_DEPTH	16

/**
 * struct doc_pci - a PCI function of /sys/bus/pci/devices.
 * @bdf: its address, "0000:01:00.0"
 * @path: its place below /sys/devices ("pci0000:00/0000:00:01.0/0000:01:00.0")
 * @vendor: vendor ID
 * @device: device ID
 * @class: class code (0x030200)
 * @driver: the bound driver's name, "" none
 * @cfg: its config space, once read (doc_pci_cfg())
 * @cfg_len: bytes of it; 0 not read or unreadable
 * @cfg_read: doc_pci_cfg() ran
 */
struct doc_pci {
	char bdf[16];
	char path[256];
	unsigned int vendor;
	unsigned int device;
	unsigned int class;
	char driver[64];
	uint8_t *cfg;
	size_t cfg_len;
	bool cfg_read;
};

#define DOC_MAX_CHECKS	24

/**
 * struct doc - a run of the doctor.
 * @root: the root prefix, "" for "/"
 * @live: the facts of the environment are this machine's
 * @env: those facts
 * @pci: the PCI functions
 * @n_pci: how many
 * @card: the XDMA card, NULL none found
 * @gpu: the NVIDIA GPU, NULL none found
 * @checks: the report
 * @n_checks: its checks
 */
struct doc {
	const char *root;
	bool live;
	struct doc_env env;
	struct doc_pci *pci;
	int n_pci;
	struct doc_pci *card;
	struct doc_pci *gpu;
	struct doc_check checks[DOC_MAX_CHECKS];
	int n_checks;
};

/* sys.c: files below the root */
int doc_path(const struct doc *d, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
ssize_t doc_read(const struct doc *d, const char *path, void *buf,
		 size_t len);
int doc_read_line(const struct doc *d, const char *path, char *buf,
		  size_t len);
int doc_read_u64(const struct doc *d, const char *path, uint64_t *v);
bool doc_exists(const struct doc *d, const char *path);
int doc_readlink_base(const struct doc *d, const char *path, char *buf,
		      size_t len);
char *doc_read_all(const struct doc *d, const char *path, size_t *len);
char *doc_read_gzip(const struct doc *d, const char *path, size_t *len);

/* env.c: the facts that are not files */
void doc_env_live(struct doc *d);
int doc_env_load(struct doc *d, const char *path);
void doc_env_print(const struct doc_env *e, FILE *f);
const char *doc_group_name(const struct doc_env *e, long gid, char *buf,
			   size_t len);

/* pci.c: devices, config space, topology */
void doc_pci_scan(struct doc *d);
void doc_pci_free(struct doc *d);
struct doc_pci *doc_pci_find(struct doc *d, const char *bdf);
const uint8_t *doc_pci_cfg(struct doc *d, struct doc_pci *p);
int doc_pci_cap(const struct doc_pci *p, unsigned int id);
int doc_pci_ecap(const struct doc_pci *p, unsigned int id);
unsigned int doc_cfg16(const struct doc_pci *p, int off);
uint32_t doc_cfg32(const struct doc_pci *p, int off);
int doc_pci_chain(struct doc *d, const struct doc_pci *p,
		  struct doc_pci **chain, int max);
bool doc_pci_is_bridge(const struct doc_pci *p);

/* check.c: building the report */
struct doc_check *doc_check_new(struct doc *d, const char *id,
				const char *title);
void doc_verdict(struct doc_check *c, enum doc_verdict v, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));
void doc_evidence(struct doc_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void doc_fix(struct doc_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *doc_verdict_name(enum doc_verdict v);
const char *doc_size(uint64_t bytes, char *buf, size_t len);

/* the checks, in the order of the report */
void doc_check_driver(struct doc *d);
void doc_check_abi(struct doc *d);
void doc_check_card(struct doc *d);
void doc_check_nodes(struct doc *d);
void doc_check_memlock(struct doc *d);
void doc_check_iommu(struct doc *d);
void doc_check_topology(struct doc *d);
void doc_check_acs(struct doc *d);
void doc_check_mps(struct doc *d);
void doc_check_link(struct doc *d);
void doc_check_bar1(struct doc *d);
void doc_check_nvidia(struct doc *d);
void doc_check_cuda(struct doc *d);
void doc_check_providers(struct doc *d);
void doc_check_kconfig(struct doc *d);

#endif /* HF_DOCTOR_H */
