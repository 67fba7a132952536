// SPDX-License-Identifier: MIT
/*
 * backend_emu.c - the emulated card, in-process: the XDMA model (model/)
 * behind its in-process host (IOMMU, engine threads, interrupts), driven by
 * the same engine core (core/) the kernel module uses.
 *
 * Data path of a transfer: the caller's buffer is mapped through the
 * emulated IOMMU (it gets a bus address), the engine core builds a
 * descriptor chain into per-channel DMA-coherent storage (allocated once,
 * grown when a longer chain is needed) and runs the engine; the model's
 * engine thread fetches the descriptors and copies between the caller's
 * buffer and card memory directly: each byte is copied once.
 *
 * GPU Direct: a pin maps the GPU range through the emulated IOMMU once and
 * builds a descriptor chain per direction and channel over it; a transfer
 * rebuilds its chain in place only when the sub-range or card address
 * changed, and runs it.  GPU memory the CPU can address (the emulated GPU,
 * Tegra) is mapped in pieces the way the GPU exposes it: 2 MiB runs of
 * 64 KiB pages behind a desktop GPU's BAR window, 64 KiB chunks of 4 KiB
 * pages behind Tegra's SMMU.  A real desktop GPU's memory is one region
 * mapping whose bytes the GPU's copy engine moves straight from or to the
 * card memory (registered with CUDA once per card), so each byte crosses
 * PCIe once, as with hardware.
 *
 * Card memory of "emu:N" lives in a file, "hellofpga-emuN.ddr", mapped
 * shared, so every process of the user opening emu:N sees the same card
 * memory, as with a real card; channel locks use "hellofpga-emuN.lock"
 * beside it.  Both are in the user's own state directory
 * ($HELLOFPGA_EMU_DIR, default /dev/shm/hellofpga-<uid>, mode 0700; files
 * 0600, never followed through a symbolic link), so users never share or
 * collide.  "private" keeps the memory anonymous.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "backend_emu.h"
#include "gpu.h"
#include "hf_chanlock.h"
#include "hf_dev.h"
#include "hf_error.h"
#include "hf_gpudirect.h"
#include "hf_number.h"
#include "hf_refdesign.h"
#include "hf_stream.h"
#include "hf_user_pages.h"
#include "inproc/emu_host.h"

#define EMU_DESC_MIN		64		/* descriptors per channel at first */
#define EMU_BOUNCE_SIZE		(1u << 20)	/* per engine, aligned engines only */
#define EMU_WB_STRIDE		XDMA_WB_AREA	/* writeback bytes per engine */
/* Without a link model the card copies at memory speed; a floor for it. */
#define EMU_NOLINK_RATE		1000000000ull	/* bytes/s */
#define EMU_GPU_RUN_DESKTOP	(2u << 20)	/* BAR window: 2 MiB runs */
#define EMU_GPU_RUN_TEGRA	(64u << 10)	/* SMMU: 64 KiB chunks */
/*
 * A shared card's lock file: its first page holds the channel locks
 * (struct hf_shared_locks, chanlock.c); an OFD lock on this byte is held
 * while the card memory and those locks are created.
 */
#define EMU_LOCK_CREATE		64

/**
 * struct emu_engine - one engine with its descriptor storage.
 * @eng: engine core state
 * @chain: descriptor chain in @desc_cpu
 * @desc_cpu: DMA-coherent descriptor storage
 * @desc_bus: bus address of @desc_cpu
 * @desc_cap: descriptors @desc_cpu holds
 * @bounce: bounce buffer for engines that need alignment (lazily allocated)
 * @bounce_bus: bus address of @bounce
 */
struct emu_engine {
	struct hf_xdma_engine eng;
	struct hf_xdma_chain chain;
	void *desc_cpu;
	u64 desc_bus;
	u32 desc_cap;
	void *bounce;
	u64 bounce_bus;
};

struct emu_card;

/**
 * struct emu_uirq - a user interrupt of the emulated card.
 * @card: the card
 * @n: its number
 * @efd: eventfd, readable while a delivery waits to be taken (it and
 *	@count change together, under the card's @uirq_lock); -1 until armed
 * @count: deliveries since the last take
 */
struct emu_uirq {
	struct emu_card *card;
	u32 n;
	int efd;
	u32 count;
};

/**
 * struct emu_card - the in-process emulated card behind a handle.
 * @host: in-process host of the model
 * @xdev: engine-core view of the DMA BAR
 * @eng: engines [dir][ch]
 * @by_index: engines in engine order (IRQ block bit order)
 * @nengines: entries of @by_index
 * @wb_cpu: poll-mode writeback words, one per engine
 * @wb_bus: bus address of @wb_cpu
 * @irq_mode: HELLOFPGA_IRQ_*
 * @align: largest of the engines' address alignment and length granularity
 * @ddr: shared card memory mapping (NULL when private)
 * @ddr_size: card memory size
 * @gpu_lock: guards @gpu_host_tried and @gpu_host
 * @gpu_host_tried: registering card memory with the GPU was attempted
 * @gpu_host: card memory registered with hf_gpu_register_host(), or NULL
 * @force_region: map GPU memory as regions even when CPU-addressable
 *	(test hook)
 * @blk_fd: per H2C channel, an open file of the shared card memory whose
 *	OFD byte-range locks serialise writes of the blocks of an aligned
 *	card (blocks_lock()); -1 when the card is private or not aligned
 * @blk_rw: the same for a private aligned card, within the handle
 * @link: the PCIe link model it was opened with (gen 0: none)
 * @uirq_lock: guards the @uirq counts and descriptors
 * @uirq_armed: user interrupts armed (a bit each; changed atomically)
 * @uirq: the user interrupts
 * @wedged_lock: guards @wedged
 * @wedged: rings whose stop found the engine wedged (the card may still
 *	write them): kept until the card's engine threads have stopped at
 *	its close, then freed
 */
struct emu_stream;

struct emu_card {
	struct hf_emu_host *host;
	struct hf_xdma_dev xdev;
	struct emu_engine eng[2][XDMA_MAX_CHANNELS];
	struct emu_engine *by_index[XDMA_MAX_ENGINES];
	u32 nengines;
	void *wb_cpu;
	u64 wb_bus;
	int irq_mode;
	u32 align;
	void *ddr;
	u64 ddr_size;
	pthread_mutex_t gpu_lock;
	bool gpu_host_tried;
	void *gpu_host;
	bool force_region;
	int blk_fd[XDMA_MAX_CHANNELS];
	pthread_rwlock_t blk_rw;
	struct xdma_link link;
	pthread_mutex_t uirq_lock;
	u32 uirq_armed;
	struct emu_uirq uirq[XDMA_USER_IRQS];
	pthread_mutex_t wedged_lock;
	struct emu_stream *wedged;
};

/**
 * struct emu_pin - an emulated card's side of a pin (struct hf_pin bdata).
 * @gpu: first byte of the pinned GPU range
 * @region: mapped as one region moved by the GPU copy engine
 * @nseg: entries of @sg
 * @sg: bus segments of the pin, one IOMMU mapping each
 * @desc_cpu: descriptor storage of all the chains
 * @desc_bus: its bus address
 * @builds: chain builds (atomic; statistics for tests)
 * @chain: chains [dir][ch], in @desc_cpu
 */
struct emu_pin {
	u8 *gpu;
	bool region;
	u32 nseg;
	struct hf_sg *sg;
	void *desc_cpu;
	u64 desc_bus;
	u64 builds;
	struct hf_xdma_chain_cache chain[2][XDMA_MAX_CHANNELS];
};

/**
 * struct emu_opts - what a card name asks for.
 */
struct emu_opts {
	unsigned int index;
	u32 num_h2c;
	u32 num_c2h;
	u64 ddr_size;
	bool ddr_given;
	int irq_mode;
	u32 align;
	bool private_mem;
	bool sync;
	bool st;
	struct xdma_link link;
};

/**
 * hf_emu_link_opt() - one link model option of a card name into @l, as
 * xdma_link_parse() takes it, but with the number of mps= (a size) or
 * desc_ns= read by the one number parser (README.md, "Numbers") and
 * handed on in decimal.
 * @opt: "key=value"
 * @l: as for xdma_link_parse()
 *
 * Return: 0, -ENOENT when @opt is not a link option, -EINVAL for a bad
 * value.
 */
static int hf_emu_link_opt(const char *opt, struct xdma_link *l)
{
	bool mps = !strncmp(opt, "mps=", 4);
	char canon[32];
	u64 v;

	if (!mps && strncmp(opt, "desc_ns=", 8))
		return xdma_link_parse(opt, l);
	if (hf_parse_number(strchr(opt, '=') + 1, mps ? HF_NUM_SIZE : 0,
			    UINT64_MAX, &v))
		return -EINVAL;
	snprintf(canon, sizeof(canon), "%s=%llu", mps ? "mps" : "desc_ns",
		 (unsigned long long)v);
	return xdma_link_parse(canon, l);
}

static int parse_opt(struct hellofpga_dev *dev, struct emu_opts *o,
		     const char *opt)
{
	const char *eq = strchr(opt, '=');
	size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
	const char *val = eq ? eq + 1 : "";
	u64 v;

#define KEY(k) (klen == strlen(k) && !strncmp(opt, k, klen))
	if (KEY("private") && !eq) {
		o->private_mem = true;
	} else if (KEY("sync") && !eq) {
		o->sync = true;
	} else if (KEY("st") && !eq) {
		o->st = true;	/* AXI-Stream channels (model/xdma_model.h) */
	} else if ((KEY("h2c") || KEY("c2h")) && eq) {
		if (hf_parse_number(val, 0, XDMA_MAX_CHANNELS, &v) || v < 1)
			goto bad;
		if (KEY("h2c"))
			o->num_h2c = v;
		else
			o->num_c2h = v;
	} else if (KEY("ddr") && eq) {
		if (hf_parse_number(val, HF_NUM_SIZE, 1ull << 40, &v) ||
		    v < 4096 || v % 4096)
			goto bad;
		o->ddr_size = v;
		o->ddr_given = true;
	} else if (KEY("align") && eq) {
		if (hf_parse_number(val, HF_NUM_SIZE, 128, &v) || !v ||
		    (v & (v - 1)))
			goto bad;
		o->align = v;
	} else if (KEY("irq") && eq) {
		if (!strcmp(val, "msix"))
			o->irq_mode = HELLOFPGA_IRQ_MSIX;
		else if (!strcmp(val, "msi"))
			o->irq_mode = HELLOFPGA_IRQ_MSI;
		else if (!strcmp(val, "legacy"))
			o->irq_mode = HELLOFPGA_IRQ_LEGACY;
		else if (!strcmp(val, "poll"))
			o->irq_mode = HELLOFPGA_IRQ_POLL;
		else
			goto bad;
	} else if (KEY("link") || KEY("mps") || KEY("desc_ns")) {
		/* the PCIe link model (model/xdma_link.c) */
		if (!eq || hf_emu_link_opt(opt, &o->link))
			return hf_set_error(dev, -EINVAL,
					    "emulated card option '%s': bad value (link=genGxW with G 1..5 and W 1|2|4|8|16, or link=none; mps=128|256|512|1024|2048|4096; desc_ns=0..1000000000)",
					    opt);
	} else {
		return hf_set_error(dev, -EINVAL,
				    "emulated card option '%.*s' unknown: use h2c=1..4, c2h=1..4, ddr=SIZE[K|M|G|T], irq=msix|msi|legacy|poll, align=N, private, sync, st, link=genGxW, mps=N, desc_ns=N",
				    (int)klen, opt);
	}
#undef KEY
	return 0;
bad:
	return hf_set_error(dev, -EINVAL,
			    "emulated card option '%s': bad value (h2c/c2h 1..4; ddr a multiple of 4 KiB up to 1 TiB (1T); align a power of two up to 128 (the ALIGNMENTS register's 8-bit field); numbers as README.md's \"Numbers\": decimal without leading zeros or 0x hex, no spaces or signs)",
			    opt);
}

static int parse_spec(struct hellofpga_dev *dev, const char *spec,
		      struct emu_opts *o)
{
	char buf[256], *p, *save = NULL, *tok;
	u64 v;
	int ret;

	memset(o, 0, sizeof(*o));
	o->num_h2c = XDMA_MAX_CHANNELS;
	o->num_c2h = XDMA_MAX_CHANNELS;
	o->ddr_size = XDMA_MODEL_DEFAULT_DDR_SIZE;
	o->irq_mode = HELLOFPGA_IRQ_MSIX;
	o->align = 1;
	if (strlen(spec) >= sizeof(buf))
		return hf_set_error(dev, -EINVAL, "card name too long");
	strcpy(buf, spec);
	p = buf + 3;			/* past "emu" */
	if (*p == ':') {
		char *end = strchr(p + 1, ',');

		if (end)
			*end = '\0';
		if (hf_parse_number(p + 1, 0, 9999, &v))
			return hf_set_error(dev, -EINVAL,
					    "'%s': the emulated card number must be 0..9999 (decimal without leading zeros, or 0x hex; README.md, \"Numbers\")",
					    spec);
		o->index = v;
		p = end ? end + 1 : p + strlen(p);
	} else if (*p == ',') {
		p++;
	}
	for (tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = parse_opt(dev, o, tok);
		if (ret)
			return ret;
	}
	if (xdma_link_finish(&o->link))
		return hf_set_error(dev, -EINVAL,
				    "'%s': mps= and desc_ns= describe the link model and need link=genGxW too",
				    spec);
	return 0;
}

/* Where the per-user state directories are made (NULL: the default); set
 * by the test hook hf_emu_test_state_base() (emu_test.c). */
const char *hf_emu_state_base;

static bool is_writable_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode) && !access(path, W_OK);
}

/**
 * state_dir_open() - open the directory that holds this user's emulated
 * cards: $HELLOFPGA_EMU_DIR, else "hellofpga-<uid>" in /dev/shm (in /tmp
 * without /dev/shm).
 * @dev: the handle, for the error text
 * @path: receives the directory's path
 * @size: bytes at @path
 *
 * The directory is created 0700 when missing.  What is in it is trusted
 * (card memory, channel locks), so it must be a directory of the user's
 * own: not a symbolic link, owned by the effective uid and writable by
 * nobody else.  Other users have directories of their own and never see
 * these cards.
 *
 * Return: a descriptor of the directory, or negative errno with the error
 * text set: -EPERM (a symbolic link, not a directory, another user's, or
 * writable by others), -ENAMETOOLONG, or what mkdir()/open() failed with.
 */
static int state_dir_open(struct hellofpga_dev *dev, char *path, size_t size)
{
	const char *env = getenv("HELLOFPGA_EMU_DIR");
	const char *base = hf_emu_state_base;
	uid_t uid = geteuid();
	struct stat st;
	int n, fd;

	if (env && *env) {
		n = snprintf(path, size, "%s", env);
	} else {
		if (!base)
			base = is_writable_dir("/dev/shm") ? "/dev/shm" :
							     "/tmp";
		n = snprintf(path, size, "%s/hellofpga-%u", base,
			     (unsigned int)uid);
	}
	if (n < 0 || (size_t)n >= size)
		return hf_set_error(dev, -ENAMETOOLONG,
				    "the emulated cards' state directory name is too long (HELLOFPGA_EMU_DIR)");
	if (mkdir(path, 0700) && errno != EEXIST)
		return hf_set_error(dev, -errno,
				    "cannot create the emulated cards' state directory %s: %s",
				    path, strerror(errno));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return hf_set_error(dev, -EPERM,
				    "the emulated cards' state directory %s is %s: refused (set HELLOFPGA_EMU_DIR to a directory of your own)",
				    path, !lstat(path, &st) && S_ISLNK(st.st_mode) ?
				    "a symbolic link" : "not a directory");
	if (fd < 0)
		return hf_set_error(dev, -errno,
				    "cannot open the emulated cards' state directory %s: %s",
				    path, strerror(errno));
	if (fstat(fd, &st)) {
		n = -errno;
		close(fd);
		return hf_set_error(dev, n, "cannot stat %s: %s", path,
				    strerror(-n));
	}
	if (st.st_uid != uid || (st.st_mode & 022)) {
		close(fd);
		if (st.st_uid != uid)
			return hf_set_error(dev, -EPERM,
					    "the emulated cards' state directory %s belongs to uid %u, not to you (uid %u): refused (remove it, or set HELLOFPGA_EMU_DIR to a directory of your own)",
					    path, (unsigned int)st.st_uid,
					    (unsigned int)uid);
		return hf_set_error(dev, -EPERM,
				    "the emulated cards' state directory %s is writable by other users (mode %04o): refused (chmod 700 it, or set HELLOFPGA_EMU_DIR to a directory of your own)",
				    path, (unsigned int)(st.st_mode & 07777));
	}
	return fd;
}

/**
 * state_file_open() - open a state file of a card, creating it when missing.
 * @dev: the handle, for the error text
 * @dirfd: the state directory (state_dir_open())
 * @dir: its path, for the error text
 * @name: the file's name in it
 *
 * A new file is made with O_EXCL, mode 0600; an existing one is opened
 * without following a symbolic link and must be a regular file of the
 * effective uid.
 *
 * Return: a read-write descriptor, or negative errno with the error text
 * set: -EPERM (a symbolic link, not a regular file, or another user's), or
 * what open() failed with.
 */
static int state_file_open(struct hellofpga_dev *dev, int dirfd,
			   const char *dir, const char *name)
{
	const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd = -1, i;

	/* a file removed between the two opens is made again */
	for (i = 0; i < 8 && fd < 0; i++) {
		fd = openat(dirfd, name, flags | O_CREAT | O_EXCL, 0600);
		if (fd < 0 && errno == EEXIST) {
			fd = openat(dirfd, name, flags);
			if (fd < 0 && errno == ENOENT)
				continue;
		}
		if (fd < 0)
			break;
	}
	if (fd < 0 && errno == ELOOP)
		return hf_set_error(dev, -EPERM,
				    "%s/%s is a symbolic link: refused", dir,
				    name);
	if (fd < 0)
		return hf_set_error(dev, -errno, "cannot open %s/%s: %s", dir,
				    name, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		close(fd);
		return hf_set_error(dev, -EPERM,
				    "%s/%s is not a regular file of your own: refused",
				    dir, name);
	}
	return fd;
}

/* Take (F_WRLCK) or drop (F_UNLCK) the OFD lock on @len bytes at @start. */
static int lock_range(int fd, short type, off_t start, off_t len)
{
	return hf_ofd_lock_until(fd, type, start, len, NULL);
}

/**
 * alloc_ddr() - give a card memory file its size, every block allocated.
 * @dev: the handle, for the error text
 * @fd: the file, the creation lock held
 * @st: what fstat() said of it
 * @size: the card memory size
 * @dir: the state directory, for the error text
 * @name: the file's name, for the error text
 *
 * The card writes its memory through a shared mapping of the file: a page
 * the filesystem cannot provide then would be SIGBUS in the engine thread.
 * So the space is taken now, and a size beyond the filesystem (or the
 * process's file size limit, whose SIGXFSZ would kill it) is an error of
 * the open.  A filesystem without fallocate() keeps the file sparse, with a
 * log line saying so.
 *
 * Return: 0, or negative errno with the error text set: -EFBIG (beyond
 * RLIMIT_FSIZE), -ENOSPC (the filesystem has not that much free), or what
 * fallocate() or ftruncate() failed with.
 */
static int alloc_ddr(struct hellofpga_dev *dev, int fd, const struct stat *st,
		     u64 size, const char *dir, const char *name)
{
	u64 have = (u64)st->st_blocks * 512, avail;
	struct statvfs vfs;
	struct rlimit rl;

	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    size > rl.rlim_cur)
		return hf_set_error(dev, -EFBIG,
				    "emulated card memory of %llu bytes exceeds the file size limit of %llu bytes (ulimit -f): choose a smaller ddr=",
				    (unsigned long long)size,
				    (unsigned long long)rl.rlim_cur);
	/* (a filesystem without a size, as ramfs, says 0 blocks) */
	if (!fstatvfs(fd, &vfs) && vfs.f_blocks) {
		avail = (u64)vfs.f_bavail * vfs.f_frsize;
		if (size > have && size - have > avail)
			return hf_set_error(dev, -ENOSPC,
					    "emulated card memory of %llu bytes does not fit in %s (%llu bytes free): choose a smaller ddr=, or set HELLOFPGA_EMU_DIR to a larger filesystem",
					    (unsigned long long)size, dir,
					    (unsigned long long)avail);
	}
	if (!fallocate(fd, 0, 0, (off_t)size))
		return 0;
	if (errno != EOPNOTSUPP)
		return hf_set_error(dev, -errno,
				    "cannot allocate %llu bytes of emulated card memory in %s/%s: %s",
				    (unsigned long long)size, dir, name,
				    strerror(errno));
	hf_os_log("%s/%s: %s", dir, name,
		  "the filesystem cannot allocate ahead (fallocate): the card memory stays sparse, and a full filesystem would be SIGBUS");
	if ((u64)st->st_size != size && ftruncate(fd, (off_t)size))
		return hf_set_error(dev, -errno,
				    "cannot size the emulated card memory %s/%s: %s",
				    dir, name, strerror(errno));
	return 0;
}

/*
 * An aligned shared card: an open file of the card memory per H2C channel
 * (each its own open file description, so their OFD locks exclude each
 * other), checked to be the file @fd is.
 */
static int open_blk_fds(struct hellofpga_dev *dev, struct emu_card *card,
			int dirfd, int fd, u32 n, const char *dir,
			const char *name)
{
	struct stat st, bst;

	if (fstat(fd, &st))
		return hf_set_error(dev, -errno, "cannot stat %s/%s: %s", dir,
				    name, strerror(errno));
	for (u32 ch = 0; ch < n; ch++) {
		int bfd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);

		if (bfd < 0)
			return hf_set_error(dev, -errno,
					    "cannot open %s/%s again: %s", dir,
					    name, strerror(errno));
		card->blk_fd[ch] = bfd;
		if (fstat(bfd, &bst) || bst.st_dev != st.st_dev ||
		    bst.st_ino != st.st_ino)
			return hf_set_error(dev, -EPERM,
					    "%s/%s was replaced while being opened: refused",
					    dir, name);
	}
	return 0;
}

/**
 * map_shared_ddr() - map the shared card memory of emu:N, creating it on
 * first use.
 * @dev: the handle (its lock file is opened here)
 * @card: receives the mapping
 * @o: the options; @o->ddr_size becomes the card's size
 *
 * Creation is one step for everyone: the card memory file is opened,
 * sized, allocated (alloc_ddr()) and mapped with byte EMU_LOCK_CREATE of
 * the lock file held, so of openers racing to create a card exactly one
 * sets its size; the others see that size (and fail if they asked for
 * another).
 *
 * Return: 0 or negative errno with the error text set.
 */
static int map_shared_ddr(struct hellofpga_dev *dev, struct emu_card *card,
			  struct emu_opts *o)
{
	char dir[512], name[64];
	struct stat st;
	int dirfd, fd, ret;

	dirfd = state_dir_open(dev, dir, sizeof(dir));
	if (dirfd < 0)
		return dirfd;
	snprintf(name, sizeof(name), "hellofpga-emu%u.lock", o->index);
	fd = state_file_open(dev, dirfd, dir, name);
	if (fd < 0) {
		close(dirfd);
		return fd;
	}
	dev->lock_fd = fd;
	ret = lock_range(dev->lock_fd, F_WRLCK, EMU_LOCK_CREATE, 1);
	if (ret) {
		close(dirfd);
		return hf_set_error(dev, ret,
				    "cannot lock %s/%s for creating the card: %s",
				    dir, name, strerror(-ret));
	}
	dev->shlocks = hf_shared_locks_map(dev->lock_fd, &ret);
	if (!dev->shlocks) {
		close(dirfd);
		lock_range(dev->lock_fd, F_UNLCK, EMU_LOCK_CREATE, 1);
		if (ret == -EPROTO)
			return hf_set_error(dev, ret,
					    "%s/%s was laid out by an incompatible build of libhellofpga (another version or ABI); close every program using emu:%u, remove the file and open again",
					    dir, name, o->index);
		return hf_set_error(dev, ret,
				    "cannot map the channel locks of %s/%s: %s",
				    dir, name, strerror(-ret));
	}
	snprintf(name, sizeof(name), "hellofpga-emu%u.ddr", o->index);
	fd = state_file_open(dev, dirfd, dir, name);
	if (fd < 0) {
		close(dirfd);
		lock_range(dev->lock_fd, F_UNLCK, EMU_LOCK_CREATE, 1);
		return fd;
	}
	if (fstat(fd, &st)) {
		ret = hf_set_error(dev, -errno, "cannot stat %s/%s: %s", dir,
				   name, strerror(errno));
		goto err;
	}
	if (st.st_size == 0) {
		ret = alloc_ddr(dev, fd, &st, o->ddr_size, dir, name);
		if (ret) {
			/* not created: a later opener starts from scratch */
			if (ftruncate(fd, 0))
				hf_os_log("cannot truncate %s/%s again: %s",
					  dir, name, strerror(errno));
			goto err;
		}
	} else if ((u64)st.st_size != o->ddr_size) {
		if (o->ddr_given || st.st_size % 4096) {
			ret = hf_set_error(dev, -EINVAL,
					   "emu:%u already exists with %llu bytes of card memory (%s/%s); open it without ddr= or with ddr=%llu, or remove that file",
					   o->index,
					   (unsigned long long)st.st_size,
					   dir, name,
					   (unsigned long long)st.st_size);
			goto err;
		}
		o->ddr_size = st.st_size;
	}
	if (st.st_size && (u64)st.st_blocks * 512 < o->ddr_size) {
		/* a creator died before allocating it all, or an older one */
		ret = alloc_ddr(dev, fd, &st, o->ddr_size, dir, name);
		if (ret)
			goto err;
	}
	card->ddr = mmap(NULL, o->ddr_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (card->ddr == MAP_FAILED) {
		card->ddr = NULL;
		ret = hf_set_error(dev, -errno,
				   "cannot map the emulated card memory %s/%s: %s",
				   dir, name, strerror(errno));
		goto err;
	}
	card->ddr_size = o->ddr_size;
	ret = o->align > 1 ? open_blk_fds(dev, card, dirfd, fd, o->num_h2c,
					  dir, name) : 0;
err:
	close(fd);
	close(dirfd);
	lock_range(dev->lock_fd, F_UNLCK, EMU_LOCK_CREATE, 1);
	return ret;
}

static void isr_engine(void *arg)
{
	hf_xdma_engine_isr(arg);
}

/*
 * A user interrupt was delivered.  As the driver's hf_user_irq_handle(), it
 * masks the interrupt in the IRQ block until the count is taken (the
 * request is a level the user logic holds: INTx would fire again at once),
 * then counts it and makes its eventfd readable.
 */
static void uirq_deliver(struct emu_uirq *ui)
{
	struct emu_card *card = ui->card;
	uint64_t one = 1;

	hf_iowrite32(BIT(ui->n), card->xdev.bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C);
	pthread_mutex_lock(&card->uirq_lock);
	ui->count++;
	if (ui->efd >= 0) {
		/* an eventfd's counter: cannot fail short of overflowing */
		ssize_t r = write(ui->efd, &one, sizeof(one));

		(void)r;
	}
	pthread_mutex_unlock(&card->uirq_lock);
}

/* MSI-X: the vector of one user interrupt. */
static void isr_user(void *arg)
{
	uirq_deliver(arg);
}

/*
 * The user interrupts pending on a shared vector: the IRQ block's user
 * pending register, read only once one is armed (so a card without user
 * interrupt waiters sees no more register reads than before).
 */
static u32 uirq_pending(struct emu_card *card)
{
	u32 armed = __atomic_load_n(&card->uirq_armed, __ATOMIC_ACQUIRE);
	u32 v;

	if (!armed)
		return 0;
	v = hf_ioread32(card->xdev.bar, XDMA_IRQ_BASE + XDMA_IRQ_USER_PEND);
	return v == XDMA_ID_DEAD ? 0 : v & armed;
}

/*
 * The one vector of MSI or INTx.  The pending registers are read again
 * after each round: a source that raised its request while this handler
 * served others made no new edge on INTx (the line was still up) and would
 * otherwise wait for its timeout.  Each round masks what it served, so the
 * loop ends.
 */
static void isr_shared(void *arg)
{
	struct emu_card *card = arg;
	u32 pending, user;

	for (;;) {
		pending = hf_xdma_dev_isr_pending(&card->xdev);
		user = uirq_pending(card);
		if (!pending && !user)
			break;
		for (u32 i = 0; i < card->nengines; i++)
			if (pending & BIT(i))
				hf_xdma_engine_isr(&card->by_index[i]->eng);
		for (u32 i = 0; i < XDMA_USER_IRQS; i++)
			if (user & BIT(i))
				uirq_deliver(&card->uirq[i]);
	}
}

/*
 * MSI-X: engine i on vector i, user interrupts from vector 16 (PG195's
 * 32-entry table).  MSI and INTx: one shared vector for everything.
 */
static int setup_irqs(struct hellofpga_dev *dev, struct emu_card *card)
{
	int ret = 0;

	switch (card->irq_mode) {
	case HELLOFPGA_IRQ_POLL:
		return hf_emu_set_irq_mode(card->host, XDMA_MODEL_IRQ_NONE);
	case HELLOFPGA_IRQ_MSIX:
		hf_xdma_dev_set_vectors(&card->xdev, 0, XDMA_USER_IRQS, false);
		ret = hf_emu_set_irq_mode(card->host, XDMA_MODEL_IRQ_MSIX);
		for (u32 i = 0; !ret && i < card->nengines; i++)
			ret = hf_emu_request_irq(card->host, i, isr_engine,
						 &card->by_index[i]->eng);
		for (u32 i = 0; !ret && i < XDMA_USER_IRQS; i++)
			ret = hf_emu_request_irq(card->host, XDMA_USER_IRQS + i,
						 isr_user, &card->uirq[i]);
		break;
	case HELLOFPGA_IRQ_MSI:
	case HELLOFPGA_IRQ_LEGACY:
		hf_xdma_dev_set_vectors(&card->xdev, 0, 0, true);
		ret = hf_emu_set_irq_mode(card->host,
					  card->irq_mode == HELLOFPGA_IRQ_MSI ?
					  XDMA_MODEL_IRQ_MSI :
					  XDMA_MODEL_IRQ_LEGACY);
		if (!ret)
			ret = hf_emu_request_irq(card->host, 0, isr_shared,
						 card);
		break;
	}
	if (ret)
		return hf_set_error(dev, ret, "cannot set up interrupts: %s",
				    strerror(-ret));
	return 0;
}

static void emu_stream_free_wedged(struct emu_card *card);

static void emu_teardown(struct emu_card *card)
{
	if (!card)
		return;
	if (card->gpu_host)
		hf_gpu_unregister_host(card->gpu_host);
	pthread_mutex_destroy(&card->gpu_lock);
	if (card->host) {
		/*
		 * The descriptor storage, bounce buffers and writeback words
		 * are freed by the host, once its engine threads have
		 * stopped: a card's engine may still be finishing (a wedged
		 * one, or a writeback on its way), and it must write nothing
		 * that is freed.  The interrupt handlers go first (freeing
		 * one waits for a run of it in progress): a late interrupt's
		 * handler signals its engine's event, which the engine's fini
		 * destroys.
		 */
		if (card->irq_mode == HELLOFPGA_IRQ_MSIX) {
			for (u32 i = 0; i < card->nengines; i++)
				hf_emu_free_irq(card->host, i);
			for (u32 i = 0; i < XDMA_USER_IRQS; i++)
				hf_emu_free_irq(card->host, XDMA_USER_IRQS + i);
		} else if (card->irq_mode != HELLOFPGA_IRQ_POLL) {
			hf_emu_free_irq(card->host, 0);
		}
		for (u32 i = 0; i < card->nengines; i++)
			hf_xdma_engine_fini(&card->by_index[i]->eng);
		hf_emu_host_destroy(card->host);
		emu_stream_free_wedged(card);
	}
	pthread_mutex_destroy(&card->wedged_lock);
	if (card->ddr)
		munmap(card->ddr, card->ddr_size);
	for (u32 ch = 0; ch < XDMA_MAX_CHANNELS; ch++)
		if (card->blk_fd[ch] >= 0)
			close(card->blk_fd[ch]);
	pthread_rwlock_destroy(&card->blk_rw);
	for (u32 i = 0; i < XDMA_USER_IRQS; i++)
		if (card->uirq[i].efd >= 0)
			close(card->uirq[i].efd);
	pthread_mutex_destroy(&card->uirq_lock);
	free(card);
}

static void emu_close(struct hellofpga_dev *dev)
{
	emu_teardown(dev->priv);
	dev->priv = NULL;
}

/* fork() child: the card memory files carry the parent's block locks. */
static void emu_fork_child(struct hellofpga_dev *dev)
{
	struct emu_card *card = dev->priv;

	for (u32 ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
		if (card->blk_fd[ch] >= 0)
			close(card->blk_fd[ch]);
		card->blk_fd[ch] = -1;
	}
}

/* Make sure @e's descriptor storage holds @count descriptors. */
static int reserve_desc(struct hellofpga_dev *dev, struct emu_card *card,
			struct emu_engine *e, u32 count)
{
	u32 cap = EMU_DESC_MIN;
	void *cpu;
	u64 bus;

	if (count <= e->desc_cap)
		return 0;
	while (cap < count)
		cap *= 2;
	cpu = hf_emu_dma_alloc(card->host, (size_t)cap * XDMA_DESC_SIZE, &bus);
	if (!cpu)
		return hf_set_error(dev, -ENOMEM,
				    "cannot allocate %u descriptors", cap);
	if (e->desc_cpu)
		hf_emu_dma_free(card->host, e->desc_cpu, e->desc_bus);
	e->desc_cpu = cpu;
	e->desc_bus = bus;
	e->desc_cap = cap;
	hf_xdma_chain_init(&e->chain, cpu, bus, cap);
	return 0;
}

/**
 * emu_engine_usable() - whether a run may start on an engine.
 * @dev: the card
 * @e: the engine, its channel held
 *
 * An engine left wedged by a failed run (it did not go idle after the
 * stop) is looked at again; the emulated IOMMU keeps it from reaching
 * memory that was unmapped meanwhile (such accesses count as DMA faults).
 *
 * Return: 0, or -EIO (still wedged) / -ENODEV with the error text set.
 */
static int emu_engine_usable(struct hellofpga_dev *dev, struct hf_xdma_engine *e)
{
	int ret = hf_xdma_engine_recover(e);

	if (!ret)
		return 0;
	if (ret == -ENODEV)
		return hf_set_error(dev, ret, "%s%u: card not responding",
				    hf_dir_name(e->dir), e->ch);
	return hf_set_error(dev, -EIO,
			    "%s%u: channel wedged: its engine is still busy since a run failed; it is refused until the engine is idle",
			    hf_dir_name(e->dir), e->ch);
}

/* Run engine @e over one bus range. */
static int run_range(struct hellofpga_dev *dev, struct emu_card *card,
		     struct emu_engine *e, u64 bus, u64 card_addr, u64 len,
		     size_t *done)
{
	struct hf_sg sg = { .addr = bus, .len = len };
	struct hf_xdma_result res;
	int count, ret;
	u64 timeout_ns;

	ret = emu_engine_usable(dev, &e->eng);
	if (ret)
		return ret;
	count = hf_xdma_chain_count(&sg, 1, 0, len);
	if (count < 0)
		return hf_set_error(dev, count, "cannot size the descriptor chain");
	ret = reserve_desc(dev, card, e, count);
	if (ret)
		return ret;
	ret = hf_xdma_chain_build(&e->chain, e->eng.dir, &sg, 1, 0, len,
				  card_addr);
	if (ret)
		return hf_set_error(dev, ret,
				    "cannot build the descriptor chain (%d)", ret);
	timeout_ns = (u64)__atomic_load_n(&dev->timeout_ms, __ATOMIC_RELAXED) *
		     1000000ull;
	ret = hf_xdma_engine_run(&e->eng, &e->chain, timeout_ns, &res);
	*done += res.bytes;
	if (ret < 0)
		return hf_set_error(dev, ret, "%s", res.msg);
	return 0;
}

/**
 * blocks_lock() - take the card memory blocks [@at, @at + @len) of an
 * aligned card for a write by H2C channel @ch.
 * @dev: the handle, for the error text
 * @card: the card
 * @ch: the H2C channel, held
 * @at: first byte, block aligned
 * @len: bytes, whole blocks
 * @rmw: exclusively, for a read-modify-write of partial blocks; else
 *	shared, for a write of whole blocks
 * @dl: the call's deadline: -EBUSY when another write holds them until then
 *
 * A read-modify-write reads blocks back and writes them whole: a write of
 * the same blocks by another channel, handle or process between the two
 * would be undone.  So it excludes every other write of its blocks: OFD
 * byte-range locks on the card memory file, one open file per channel,
 * for a shared card; a lock of the handle for a private one.  Cards
 * without alignment never read-modify-write and take nothing.
 *
 * Return: 0, or negative errno with the error text set.
 */
static int blocks_lock(struct hellofpga_dev *dev, struct emu_card *card,
		       int ch, u64 at, u64 len, bool rmw,
		       const struct timespec *dl)
{
	int ret;

	if (card->align <= 1)
		return 0;
	if (card->blk_fd[ch] < 0)
		ret = hf_rwlock_lock_until(&card->blk_rw, rmw, dl);
	else
		ret = hf_ofd_lock_until(card->blk_fd[ch],
					rmw ? F_WRLCK : F_RDLCK, (off_t)at,
					(off_t)len, dl);
	if (ret == -EBUSY)
		return hf_set_error(dev, ret,
				    "H2C%d: card memory [0x%llx, 0x%llx) stayed locked by a write of another channel or process until the timeout",
				    ch, (unsigned long long)at,
				    (unsigned long long)(at + len));
	if (ret)
		return hf_set_error(dev, ret,
				    "H2C%d: cannot lock card memory [0x%llx, 0x%llx) for writing: %s",
				    ch, (unsigned long long)at,
				    (unsigned long long)(at + len),
				    strerror(-ret));
	return 0;
}

static void blocks_unlock(struct emu_card *card, int ch, u64 at, u64 len)
{
	if (card->align <= 1)
		return;
	if (card->blk_fd[ch] < 0)
		pthread_rwlock_unlock(&card->blk_rw);
	else
		lock_range(card->blk_fd[ch], F_UNLCK, (off_t)at, (off_t)len);
}

/* The buffer maps straight through the IOMMU: one copy, by the engine. */
static int xfer_direct(struct hellofpga_dev *dev, struct emu_card *card,
		       struct emu_engine *e, void *buf, u64 card_addr,
		       size_t len, const struct timespec *dl, size_t *done)
{
	enum hf_dma_dir ddir = e->eng.dir == XDMA_H2C ? HF_DMA_TO_DEVICE :
						       HF_DMA_FROM_DEVICE;
	u64 bus;
	int ret;

	ret = hf_emu_dma_map(card->host, buf, len, ddir, &bus);
	if (ret)
		return hf_set_error(dev, ret, "cannot map the buffer for DMA: %s",
				    strerror(-ret));
	if (e->eng.dir == XDMA_H2C)
		ret = blocks_lock(dev, card, e->eng.ch, card_addr, len, false,
				  dl);
	if (!ret) {
		ret = run_range(dev, card, e, bus, card_addr, len, done);
		if (e->eng.dir == XDMA_H2C)
			blocks_unlock(card, e->eng.ch, card_addr, len);
	}
	hf_emu_dma_unmap(card->host, bus);
	return ret;
}

static int get_bounce(struct hellofpga_dev *dev, struct emu_card *card,
		      struct emu_engine *e)
{
	if (e->bounce)
		return 0;
	e->bounce = hf_emu_dma_alloc(card->host, EMU_BOUNCE_SIZE,
				     &e->bounce_bus);
	if (!e->bounce)
		return hf_set_error(dev, -ENOMEM,
				    "cannot allocate the alignment bounce buffer");
	return 0;
}

/*
 * An engine that needs aligned addresses and lengths: move whole aligned
 * blocks through an aligned bounce buffer.  H2C blocks the caller covers
 * only partly are first read back from the card (read-modify-write) on a
 * C2H channel, so the bytes around the caller's range keep their value.
 * *@done counts the caller's bytes the card may have written (H2C) or that
 * were copied out to @buf (C2H: a failed chunk's bytes stay in the bounce
 * buffer).
 */
static int xfer_bounce(struct hellofpga_dev *dev, struct emu_card *card,
		       struct emu_engine *e, int ch, u8 *buf, u64 card_addr,
		       size_t len, const struct timespec *dl, size_t *done)
{
	u64 a0 = ALIGN_DOWN(card_addr, (u64)card->align);
	u64 a1 = ALIGN(card_addr + len, (u64)card->align);
	u64 end = card_addr + len;
	int cch = ch < card->xdev.num_c2h ? ch : 0;
	int ret = get_bounce(dev, card, e);

	for (u64 pos = a0; !ret && pos < a1; pos += EMU_BOUNCE_SIZE) {
		u64 n = min_t(u64, EMU_BOUNCE_SIZE, a1 - pos);
		u64 lo = max(pos, card_addr), hi = min(pos + n, end);
		size_t moved = 0;
		bool partial;

		if (e->eng.dir == XDMA_C2H) {
			ret = run_range(dev, card, e, e->bounce_bus, pos, n,
					&moved);
			if (!ret) {
				memcpy(buf + (lo - card_addr),
				       (u8 *)e->bounce + (lo - pos), hi - lo);
				*done += hi - lo;
			}
			continue;
		}
		partial = lo != pos || hi != pos + n;
		/*
		 * Lock order: channels (H2C, then the C2H one that reads the
		 * block back), then a pin (GPU Direct), then card blocks.
		 */
		if (partial) {
			ret = hf_chan_lock(dev, XDMA_C2H, cch, dl);
			if (ret)
				break;
		}
		ret = blocks_lock(dev, card, ch, pos, n, partial, dl);
		if (ret) {
			if (partial)
				hf_chan_unlock(dev, XDMA_C2H, cch);
			break;
		}
		if (partial) {
			struct emu_engine *rd = &card->eng[XDMA_C2H][cch];

			ret = run_range(dev, card, rd, e->bounce_bus, pos, n,
					&moved);
			moved = 0;
		}
		if (!ret) {
			memcpy((u8 *)e->bounce + (lo - pos),
			       buf + (lo - card_addr), hi - lo);
			ret = run_range(dev, card, e, e->bounce_bus, pos, n,
					&moved);
			/*
			 * Of the caller's bytes, count those the card may
			 * have written: all of the chunk on success, else
			 * those of [pos, pos + moved) (the engine core's
			 * count: completed descriptors, or all if wedged).
			 */
			if (pos + moved > lo)
				*done += min(pos + moved, hi) - lo;
		}
		blocks_unlock(card, ch, pos, n);
		if (partial)
			hf_chan_unlock(dev, XDMA_C2H, cch);
	}
	return ret;
}

static int emu_xfer(struct hellofpga_dev *dev, enum hf_xdma_dir dir, int ch,
		    void *buf, uint64_t card_addr, size_t len,
		    const struct timespec *dl, size_t *actual)
{
	struct emu_card *card = dev->priv;
	struct emu_engine *e = &card->eng[dir][ch];
	u32 a = card->align;
	int ret;

	*actual = 0;
	ret = hf_user_buf_check(dev, dir, buf, len);
	if (ret)
		return ret;
	if (a > 1 && (!IS_ALIGNED((uintptr_t)buf, a) ||
		      !IS_ALIGNED(card_addr, (u64)a) ||
		      !IS_ALIGNED((u64)len, (u64)a))) {
		/* a bounce moves blocks in pieces: a packet would be cut */
		if (card->xdev.stream)
			return hf_set_error(dev, -EINVAL,
					    "H2C%d: the engines of %s need %u-byte aligned buffers and lengths, and an AXI-Stream packet has no bounce buffer: buffer %p, length 0x%zx",
					    ch, dev->info.name, a, buf, len);
		return xfer_bounce(dev, card, e, ch, buf, card_addr, len, dl,
				   actual);
	}
	return xfer_direct(dev, card, e, buf, card_addr, len, dl, actual);
}

static int emu_user_read32(struct hellofpga_dev *dev, uint32_t off,
			   uint32_t *val)
{
	struct emu_card *card = dev->priv;

	*val = hf_ioread32(hf_emu_user_bar(card->host), off);
	return 0;
}

static int emu_user_write32(struct hellofpga_dev *dev, uint32_t off,
			    uint32_t val)
{
	struct emu_card *card = dev->priv;

	hf_iowrite32(val, hf_emu_user_bar(card->host), off);
	return 0;
}

static void emu_counters(struct hellofpga_dev *dev, HELLOFPGA_COUNTERS *c)
{
	struct emu_card *card = dev->priv;
	struct xdma_model_counters mc;

	xdma_model_get_counters(hf_emu_host_model(card->host), &mc);
	c->model_valid = 1;
	c->mmio_reads = mc.mmio_reads;
	c->mmio_writes = mc.mmio_writes;
	c->desc_fetched = mc.desc_fetched;
	c->irqs = mc.irqs;
	c->wb_writes = mc.wb_writes;
}

static void emu_dma_faults(struct hellofpga_dev *dev, HELLOFPGA_DMA_FAULTS *f)
{
	struct emu_card *card = dev->priv;
	struct xdma_model_counters mc;
	struct hf_emu_host_stats st;

	hf_emu_host_get_stats(card->host, &st);
	xdma_model_get_counters(hf_emu_host_model(card->host), &mc);
	f->faults = st.faults;
	f->last_fault_bus = st.last_fault_bus;
	f->dma_errors = mc.dma_errors;
}

/* ---- GPU Direct ---- */

/* The card reads GPU memory (H2C): the GPU's copy engine moves it. */
static int emu_gpu_region_read(void *ctx, u64 off, void *dst, size_t len)
{
	struct emu_pin *ep = ctx;

	return hf_gpu_copy_from_gpu(dst, ep->gpu + off, len);
}

/* The card writes GPU memory (C2H). */
static int emu_gpu_region_write(void *ctx, u64 off, const void *src,
				size_t len)
{
	struct emu_pin *ep = ctx;

	return hf_gpu_copy_to_gpu(ep->gpu + off, src, len);
}

static const struct hf_emu_region_ops emu_gpu_region_ops = {
	.read = emu_gpu_region_read,
	.write = emu_gpu_region_write,
};

/*
 * Register the card memory with the GPU once per card, so the copy engine
 * reads and writes it at pinned-memory speed.  Failure only costs speed
 * (pageable copies), so it is logged, not returned.
 */
static void emu_gpu_register_ddr(struct hellofpga_dev *dev,
				 struct emu_card *card)
{
	struct xdma_model *m = hf_emu_host_model(card->host);
	void *mem = xdma_model_card_mem(m);
	u64 size = xdma_model_card_size(m);
	int ret;

	pthread_mutex_lock(&card->gpu_lock);
	if (!card->gpu_host_tried) {
		card->gpu_host_tried = true;
		ret = hf_gpu_register_host(mem, size);
		if (!ret)
			card->gpu_host = mem;
		else
			hf_os_log("%s: cannot register the emulated card memory (%llu bytes) with the GPU (%d): GPU copies run from pageable memory",
				  dev->info.name, (unsigned long long)size,
				  ret);
	}
	pthread_mutex_unlock(&card->gpu_lock);
}

static void emu_pin_free(struct emu_card *card, struct emu_pin *ep)
{
	for (u32 i = 0; i < ep->nseg; i++)
		hf_emu_dma_unmap(card->host, ep->sg[i].addr);
	if (ep->desc_cpu)
		hf_emu_dma_free(card->host, ep->desc_cpu, ep->desc_bus);
	free(ep->sg);
	free(ep);
}

/*
 * Map CPU-addressable GPU memory in @run-byte pieces aligned to @run in
 * GPU addresses: each piece is bus-contiguous, pieces are not.
 */
static int emu_gpu_map_pieces(struct hellofpga_dev *dev,
			      struct emu_card *card, struct emu_pin *ep,
			      size_t size, size_t run)
{
	uintptr_t start = (uintptr_t)ep->gpu, end = start + size, a;
	u32 n = 0;
	int ret;

	for (a = start; a < end; a = ALIGN_DOWN(a, run) + run)
		n++;
	ep->sg = calloc(n, sizeof(*ep->sg));
	if (!ep->sg)
		return hf_set_error(dev, -ENOMEM, "out of memory (%u GPU pieces)",
				    n);
	for (a = start; a < end; a = ALIGN_DOWN(a, run) + run) {
		size_t len = min_t(uintptr_t, ALIGN_DOWN(a, run) + run, end) - a;
		struct hf_sg *sg = &ep->sg[ep->nseg];

		ret = hf_emu_dma_map(card->host, (void *)a, len,
				     HF_DMA_BIDIRECTIONAL, &sg->addr);
		if (ret)
			return hf_set_error(dev, ret,
					    "cannot map GPU memory %p (+0x%zx) for DMA: %s",
					    (void *)a, len, strerror(-ret));
		sg->len = len;
		ep->nseg++;
	}
	return 0;
}

/**
 * emu_gpu_pin() - map a GPU range for the emulated card and build its
 * descriptor chains, one per direction and channel.
 * @dev: the card
 * @pin: the pin (validated range)
 *
 * Each chain gets room for the whole buffer plus two descriptors, which is
 * enough for any sub-range, so transfers rebuild in place and allocate
 * nothing.
 *
 * Return: 0 or negative errno with the error text set.
 */
static int emu_gpu_pin(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	struct emu_card *card = dev->priv;
	const struct hf_gpu *g = hf_gpu_get();
	struct emu_pin *ep;
	int count, ret;
	u32 cap, nchains, i = 0;

	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return hf_set_error(dev, -ENOMEM, "out of memory");
	ep->gpu = pin->gpu;
	ep->region = card->force_region || !hf_gpu_cpu_addressable();
	if (ep->region) {
		emu_gpu_register_ddr(dev, card);
		ep->sg = calloc(1, sizeof(*ep->sg));
		if (!ep->sg) {
			ret = hf_set_error(dev, -ENOMEM, "out of memory");
			goto err;
		}
		ret = hf_emu_dma_map_region(card->host, pin->size,
					    HF_DMA_BIDIRECTIONAL,
					    &emu_gpu_region_ops, ep,
					    &ep->sg[0].addr);
		if (ret) {
			hf_set_error(dev, ret,
				     "cannot map GPU memory %p (+0x%zx) for DMA: %s",
				     pin->gpu, pin->size, strerror(-ret));
			goto err;
		}
		ep->sg[0].len = pin->size;
		ep->nseg = 1;
	} else {
		ret = emu_gpu_map_pieces(dev, card, ep, pin->size,
					 g->status.platform ==
					 HELLOFPGA_PLATFORM_TEGRA ?
					 EMU_GPU_RUN_TEGRA :
					 EMU_GPU_RUN_DESKTOP);
		if (ret)
			goto err;
	}

	count = hf_xdma_chain_count(ep->sg, ep->nseg, 0, pin->size);
	if (count < 0) {
		ret = hf_set_error(dev, count,
				   "cannot pin 0x%zx bytes: the descriptor chain (%u segments) exceeds what the engine takes (%d)",
				   pin->size, ep->nseg, count);
		goto err;
	}
	cap = count + 2;
	nchains = card->xdev.num_h2c + card->xdev.num_c2h;
	ep->desc_cpu = hf_emu_dma_alloc(card->host,
					(size_t)cap * nchains * XDMA_DESC_SIZE,
					&ep->desc_bus);
	if (!ep->desc_cpu) {
		ret = hf_set_error(dev, -ENOMEM,
				   "cannot allocate %u descriptors for the pin",
				   cap * nchains);
		goto err;
	}
	for (int d = 0; d < 2; d++) {
		u32 n = d == XDMA_H2C ? card->xdev.num_h2c : card->xdev.num_c2h;

		for (u32 ch = 0; ch < n; ch++, i++) {
			struct hf_xdma_chain_cache *pc = &ep->chain[d][ch];
			u64 at = (u64)i * cap * XDMA_DESC_SIZE;

			hf_xdma_chain_init(&pc->chain, (u8 *)ep->desc_cpu + at,
					   ep->desc_bus + at, cap);
			ret = hf_xdma_chain_cache_build(pc, d, ep->sg, ep->nseg,
							0, pin->size, 0);
			if (ret) {
				hf_set_error(dev, ret,
					     "cannot build the descriptor chain of the pin (%d)",
					     ret);
				goto err;
			}
			ep->builds++;
		}
	}
	pin->bdata = ep;
	return 0;
err:
	emu_pin_free(card, ep);
	return ret;
}

static void emu_gpu_unpin(struct hellofpga_dev *dev, struct hf_pin *pin)
{
	if (pin->bdata)
		emu_pin_free(dev->priv, pin->bdata);
	pin->bdata = NULL;
}

/**
 * emu_gpu_xfer() - run a pinned buffer's chain on one engine.
 *
 * The chain is rebuilt, in place, only when the range or card address
 * differ from its last build; the engine core skips reprogramming the
 * descriptor registers when the chain is the one they hold.
 */
static int emu_gpu_xfer(struct hellofpga_dev *dev, struct hf_pin *pin,
			enum hf_xdma_dir dir, int ch, size_t off, uint64_t card_addr,
			size_t len, int timeout_ms, const struct timespec *dl,
			const struct hf_xfer_wb *wb, size_t *actual)
{
	struct emu_card *card = dev->priv;
	struct emu_pin *ep = pin->bdata;
	struct hf_xdma_chain_cache *pc = &ep->chain[dir][ch];
	struct hf_xdma_result res;
	int ret;

	*actual = 0;
	ret = emu_engine_usable(dev, &card->eng[dir][ch].eng);
	if (ret)
		return ret;
	if (!hf_xdma_chain_cached(pc, off, len, card_addr)) {
		ret = hf_xdma_chain_cache_build(pc, dir, ep->sg, ep->nseg, off,
						len, card_addr);
		if (ret)
			return hf_set_error(dev, ret,
					    "cannot build the descriptor chain (%d)",
					    ret);
		__atomic_add_fetch(&ep->builds, 1, __ATOMIC_RELAXED);
	}
	if (dir == XDMA_H2C) {
		ret = blocks_lock(dev, card, ch, card_addr, len, false, dl);
		if (ret)
			return ret;
	}
	ret = hf_xdma_engine_run_wb(&card->eng[dir][ch].eng, &pc->chain,
				    (u64)timeout_ms * 1000000ull,
				    wb ? (__le32 *)wb->cpu : NULL,
				    wb ? wb->map + wb->off : 0, &res);
	if (dir == XDMA_H2C)
		blocks_unlock(card, ch, card_addr, len);
	*actual = res.bytes;
	if (ret < 0)
		return hf_set_error(dev, ret, "%s", res.msg);
	return 0;
}

/* The card's view of host memory for writebacks: one mapping. */
static int emu_wb_map(struct hellofpga_dev *dev, void *mem, size_t len,
		      uint64_t *map)
{
	struct emu_card *card = dev->priv;

	if (hf_emu_dma_map(card->host, mem, len, HF_DMA_FROM_DEVICE, map))
		return hf_set_error(dev, -ENOMEM,
				    "cannot map %zu bytes of writeback words for the card",
				    len);
	return 0;
}

static void emu_wb_unmap(struct hellofpga_dev *dev, uint64_t map)
{
	hf_emu_dma_unmap(((struct emu_card *)dev->priv)->host, map);
}

static void emu_link_model(struct hellofpga_dev *dev,
			   HELLOFPGA_LINK_MODEL *lm)
{
	const struct xdma_link *l = &((struct emu_card *)dev->priv)->link;

	if (!l->gen)
		return;
	lm->enabled = 1;
	lm->gen = l->gen;
	lm->lanes = l->lanes;
	lm->mps = l->mps;
	lm->desc_ns = l->desc_ns;
	lm->gbps = xdma_link_gbps(l);
	xdma_link_describe(l, lm->text, sizeof(lm->text));
}

/*
 * Arm user interrupt @irq: its eventfd, then its enable in the IRQ block (a
 * request held already is delivered at once, in this thread).
 */
static int emu_uirq_arm(struct hellofpga_dev *dev, int irq, int *fd)
{
	struct emu_card *card = dev->priv;
	struct emu_uirq *ui = &card->uirq[irq];
	int efd;

	if (card->irq_mode == HELLOFPGA_IRQ_POLL)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "user interrupt %d: %s runs in poll mode (irq=poll), which delivers no interrupts; open it with irq=msix, msi or legacy",
				    irq, dev->info.name);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return hf_set_error(dev, -errno,
				    "user interrupt %d: cannot make an eventfd: %s",
				    irq, strerror(errno));
	pthread_mutex_lock(&card->uirq_lock);
	ui->efd = efd;
	pthread_mutex_unlock(&card->uirq_lock);
	__atomic_or_fetch(&card->uirq_armed, BIT(irq), __ATOMIC_RELEASE);
	hf_iowrite32(BIT(irq), card->xdev.bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S);
	*fd = efd;
	return 0;
}

/*
 * Take the count of @irq; then enable it again, outside the lock (a
 * request still held is delivered at once, in this thread).
 */
static int emu_uirq_take(struct hellofpga_dev *dev, int irq, uint32_t *count)
{
	struct emu_card *card = dev->priv;
	struct emu_uirq *ui = &card->uirq[irq];
	uint64_t v;
	u32 n;

	pthread_mutex_lock(&card->uirq_lock);
	n = ui->count;
	ui->count = 0;
	if (n) {
		/* drain the eventfd: it was written with the count */
		ssize_t r = read(ui->efd, &v, sizeof(v));

		(void)r;
	}
	pthread_mutex_unlock(&card->uirq_lock);
	if (!n)
		return 0;
	hf_iowrite32(BIT(irq), card->xdev.bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S);
	*count = n;
	return 1;
}

/* ---- C2H streams (stream.c) ---- */

/**
 * struct emu_stream - an emulated card's side of a stream (bdata).
 * @r: the engine core's ring
 * @desc: descriptor storage
 * @desc_bus: its bus address
 * @wb: the writeback slots, in pages of their own (@wb_len bytes), so a
 *	GPU can map them for its waits
 * @wb_bus: their bus address
 * @wb_len: their size, whole pages, and a page of doorbells after them
 *	(HelloFPGA_Stream_ReleaseOnGPU(); not mapped for the card)
 * @slots_len: the slots' pages (what the card may write)
 * @wb_dev: their device address for GPU waits, 0 until the first
 * @gpu_waited: a GPU wait was enqueued on the slots: they are never freed
 *	(a wait may still be pending in a GPU stream when the ring stops;
 *	the stop's error marks end it)
 * @host: the ring in host memory (NULL for a GPU ring)
 * @own: the library allocated @host
 * @host_bus: bus address of @host (one mapping)
 * @pin: the GPU pin the ring is in (a reference), or NULL
 * @running: the ring counts in @pin's running rings (hf_pin_ring_running())
 *	until a stop or a halt proves its engine idle
 * @next_wedged: the card's list of wedged rings (emu_card.wedged)
 */
struct emu_stream {
	struct hf_xdma_ring r;
	void *desc;
	u64 desc_bus;
	void *wb;
	u64 wb_bus;
	size_t wb_len;
	size_t slots_len;
	u64 wb_dev;
	bool gpu_waited;
	u8 *host;
	bool own;
	u64 host_bus;
	struct hf_pin *pin;
	bool running;
	struct emu_stream *next_wedged;
};

static void emu_stream_free(struct emu_card *card, struct emu_stream *es)
{
	if (es->host_bus)
		hf_emu_dma_unmap(card->host, es->host_bus);
	if (es->own)
		free(es->host);
	if (es->desc)
		hf_emu_dma_free(card->host, es->desc, es->desc_bus);
	if (es->wb_bus)
		hf_emu_dma_unmap(card->host, es->wb_bus);
	if (!es->gpu_waited)
		free(es->wb);
	else
		hf_gpu_keep(es->wb);
	if (es->pin)
		hf_pin_put_ring(es->pin);
	free(es);
}

/*
 * The scatter list of bytes [@off, @off + @len) of a pin into @out (at
 * most @max entries); the number of entries.
 */
static u32 emu_pin_range(const struct emu_pin *ep, u64 off, u64 len,
			 struct hf_sg *out, u32 max)
{
	u32 n = 0;

	for (u32 i = 0; i < ep->nseg && len && n < max; i++) {
		u64 sl = ep->sg[i].len;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		out[n].addr = ep->sg[i].addr + off;
		out[n].len = min_t(u64, sl - off, len);
		len -= out[n].len;
		off = 0;
		n++;
	}
	return n;
}

/* Ring memory in a GPU pin: its bus segments for the ring's range. */
static int emu_stream_gpu(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			  struct emu_stream *es, struct hf_sg **sg, u32 *nsg)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	u64 len = (u64)s->cfg.buffers * s->cfg.buffer_size;
	struct emu_pin *ep;
	u64 piece = 0;
	int ret;

	ret = hf_pin_get_ring(dev, s->cfg.gpu, &es->pin, fn);
	if (ret)
		return ret;
	if (s->cfg.gpu_offset > es->pin->size ||
	    len > es->pin->size - s->cfg.gpu_offset)
		return hf_set_error(dev, -ERANGE,
				    "%s: the ring (offset 0x%llx + %llu bytes) lies past the end of the pin (%zu bytes)",
				    fn, (unsigned long long)s->cfg.gpu_offset,
				    (unsigned long long)len, es->pin->size);
	ep = es->pin->bdata;
	for (u32 i = 0; i < ep->nseg; i++)
		piece = max_t(u64, piece, ep->sg[i].len);
	if (s->cfg.buffer_size > piece)
		return hf_set_error(dev, -EINVAL,
				    "%s: buffer_size %zu: the pin's memory is mapped in contiguous pieces of %llu bytes: the largest buffer size that works is %llu (with gpu_offset a multiple of it)",
				    fn, s->cfg.buffer_size,
				    (unsigned long long)piece,
				    (unsigned long long)piece);
	*sg = calloc(ep->nseg, sizeof(**sg));
	if (!*sg)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	*nsg = emu_pin_range(ep, s->cfg.gpu_offset, len, *sg, ep->nseg);
	return 0;
}

static int emu_stream_start(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	static const char fn[] = "HelloFPGA_Stream_Open";
	struct emu_card *card = dev->priv;
	struct hf_xdma_engine *e = &card->eng[XDMA_C2H][s->cfg.channel].eng;
	u32 n = s->cfg.buffers;
	size_t len = (size_t)n * s->cfg.buffer_size;
	struct hf_xdma_result res;
	struct emu_stream *es;
	struct hf_sg one, *sg = &one;
	u32 nsg = 1;
	int ret;

	if (!dev->stream)
		return hf_set_error(dev, -EOPNOTSUPP,
				    "%s: %s has memory-mapped channels, not AXI-Stream ones",
				    fn, dev->info.name);
	ret = emu_engine_usable(dev, e);
	if (ret)
		return ret;
	es = calloc(1, sizeof(*es));
	if (!es)
		return hf_set_error(dev, -ENOMEM, "%s: out of memory", fn);
	es->desc = hf_emu_dma_alloc(card->host, (size_t)n * XDMA_DESC_SIZE,
				    &es->desc_bus);
	hf_stream_wb_layout(n, &es->slots_len, &es->wb_len);
	es->wb = aligned_alloc(4096, es->wb_len);
	if (es->wb) {
		memset(es->wb, 0, es->wb_len);
		if (hf_emu_dma_map(card->host, es->wb, es->slots_len,
				   HF_DMA_FROM_DEVICE, &es->wb_bus)) {
			free(es->wb);
			es->wb = NULL;
		}
	}
	if (!es->desc || !es->wb) {
		ret = hf_set_error(dev, -ENOMEM,
				   "%s: cannot allocate the ring's descriptors",
				   fn);
		goto err;
	}
	if (s->cfg.gpu) {
		ret = emu_stream_gpu(dev, s, es, &sg, &nsg);
		if (ret)
			goto err;
	} else {
		es->host = s->cfg.host;
		if (!es->host) {
			es->host = aligned_alloc(4096, len);
			if (!es->host) {
				ret = hf_set_error(dev, -ENOMEM,
						   "%s: cannot allocate a ring of %zu bytes",
						   fn, len);
				goto err;
			}
			es->own = true;
			memset(es->host, 0, len);
		} else {
			ret = hf_user_buf_check(dev, XDMA_C2H, es->host, len);
			if (ret)
				goto err;
		}
		ret = hf_emu_dma_map(card->host, es->host, len,
				     HF_DMA_FROM_DEVICE |
				     (es->own ? 0 : HF_DMA_GUARDED),
				     &es->host_bus);
		if (ret) {
			ret = hf_set_error(dev, ret, "%s: cannot map the ring: %s",
					   fn, strerror(-ret));
			goto err;
		}
		one.addr = es->host_bus;
		one.len = len;
	}
	ret = hf_xdma_ring_init(&es->r, e, es->desc, es->desc_bus, es->wb,
				es->wb_bus, n);
	if (!ret)
		ret = hf_xdma_ring_build(&es->r, sg, nsg, s->cfg.buffer_size,
					 &res);
	if (sg != &one)
		free(sg);
	if (ret) {
		ret = hf_set_error(dev, ret, "%s: %s", fn,
				   res.msg[0] ? res.msg : "cannot set up the ring");
		goto err;
	}
	ret = hf_xdma_ring_start(&es->r, &res);
	if (ret) {
		ret = hf_set_error(dev, ret, "%s: %s", fn, res.msg);
		goto err;
	}
	s->host = es->host;
	if (es->pin) {
		hf_pin_ring_running(es->pin, true);
		es->running = true;
	}
	__atomic_store_n(&s->bdata, es, __ATOMIC_RELEASE);
	return 0;
err:
	emu_stream_free(card, es);
	return ret;
}

/* The ring's engine is proven idle: a revocation of its pin may go on. */
static void emu_stream_idle(struct emu_stream *es)
{
	if (!es->running)
		return;
	es->running = false;
	hf_pin_ring_running(es->pin, false);
}

/*
 * The rings a stop left to the card (wedged), once its engine threads
 * have stopped: what the host freed with it (descriptors, mappings) is
 * gone; the rest is freed here.
 */
static void emu_stream_free_wedged(struct emu_card *card)
{
	while (card->wedged) {
		struct emu_stream *es = card->wedged;

		card->wedged = es->next_wedged;
		if (es->own)
			free(es->host);
		if (!es->gpu_waited)
			free(es->wb);
		else
			hf_gpu_keep(es->wb);
		if (es->pin) {
			emu_stream_idle(es);
			hf_pin_put_ring(es->pin);
		}
		free(es);
	}
}

static int emu_stream_wait(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			   uint64_t timeout_ns, struct hf_xdma_ring_buf *b)
{
	struct emu_stream *es = s->bdata;
	struct hf_xdma_result res;
	int ret;

	ret = hf_xdma_ring_wait(&es->r, timeout_ns, b, &res);
	if (ret == -EIO || ret == -ENODEV)
		hf_xdma_ring_mark_error(&es->r);	/* end GPU waits */
	if (ret && ret != -EAGAIN)
		return hf_set_error(dev, ret, "%s: %s", dev->info.name, res.msg);
	return ret;
}

static int emu_stream_release(struct hellofpga_dev *dev,
			      struct hellofpga_stream *s, uint32_t index)
{
	struct emu_stream *es = s->bdata;

	return hf_xdma_ring_release(&es->r, index);
}

static void emu_stream_kick(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	struct emu_stream *es = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);

	if (es)
		hf_xdma_ring_kick(&es->r);
}

static void emu_stream_stats(struct hellofpga_dev *dev, struct hellofpga_stream *s,
			     struct hf_xdma_ring_stats *st)
{
	struct emu_stream *es = s->bdata;

	*st = es->r.stats;
}

static int emu_stream_stop(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	struct emu_card *card = dev->priv;
	struct emu_stream *es = s->bdata;
	struct hf_xdma_result res;
	int ret;

	if (!es)
		return 0;
	ret = hf_xdma_ring_stop(&es->r, &res);
	/* no buffer completes any more: GPU waits on one end now */
	hf_xdma_ring_mark_error(&es->r);
	if (ret == -EBUSY) {
		/*
		 * Wedged: the card may still write the ring.  The card keeps
		 * it until its close, where the engine threads stop first
		 * (emu_stream_free_wedged()); the stream goes.
		 */
		pthread_mutex_lock(&card->wedged_lock);
		es->next_wedged = card->wedged;
		card->wedged = es;
		pthread_mutex_unlock(&card->wedged_lock);
		__atomic_store_n(&s->bdata, NULL, __ATOMIC_RELEASE);
		return hf_set_error(dev, -EIO, "%s: %s", dev->info.name,
				    res.msg);
	}
	emu_stream_idle(es);
	__atomic_store_n(&s->bdata, NULL, __ATOMIC_RELEASE);
	emu_stream_free(card, es);
	return 0;
}

/*
 * The GPU memory of the ring's pin is being freed: stop the ring, prove
 * its engine idle and mark its slots, before the pin's mapping goes; the
 * ring stays allocated until the stream's close (emu_stream_stop()).
 */
static int emu_stream_halt(struct hellofpga_dev *dev, struct hellofpga_stream *s)
{
	struct emu_stream *es = s->bdata;
	struct hf_xdma_result res;
	int ret;

	if (!es)
		return 0;
	ret = hf_xdma_ring_stop(&es->r, &res);
	hf_xdma_ring_mark_error(&es->r);
	if (ret == -EBUSY)
		return hf_set_error(dev, -EIO, "%s: %s", dev->info.name,
				    res.msg);
	emu_stream_idle(es);
	return 0;
}

/*
 * The slots and doorbells of @es mapped for the GPU (once), and marked as
 * used by it: a wait or a doorbell write may be queued in a GPU stream, so
 * they are never freed.  Under @s->gw_lock.
 */
static int emu_stream_gpu_map(struct hellofpga_dev *dev,
			      struct emu_stream *es, const char *fn)
{
	int ret;

	if (!es->wb_dev) {
		ret = hf_gpu_map_host(es->wb, es->wb_len, &es->wb_dev, fn);
		if (ret)
			return hf_set_error(dev, ret, "%s",
					    hf_last_error(NULL));
	}
	es->gpu_waited = true;
	return 0;
}

/*
 * The writeback slot that buffer @seq of @s lands in, mapped for the GPU;
 * under @s->gw_lock.
 */
static int emu_stream_gpu_slot(struct hellofpga_dev *dev,
			       struct hellofpga_stream *s, u64 seq,
			       struct hf_stream_gpu_slot *gs, const char *fn)
{
	struct emu_stream *es = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);
	u64 credited;
	u32 index;
	int ret;

	if (!es)
		return hf_set_error(dev, -EBADF, "%s: the stream is stopped", fn);
	ret = hf_xdma_ring_slot_of(&es->r, seq, &index);
	credited = READ_ONCE(es->r.credited) - READ_ONCE(es->r.seq_skip);
	if (ret)
		return hf_stream_slot_error(dev, ret, fn, seq, credited,
					    es->r.n);
	ret = emu_stream_gpu_map(dev, es, fn);
	if (ret)
		return ret;
	hf_stream_wb_slot(es->wb, es->wb_dev, index, gs);
	gs->gpu_ring = !es->host;
	return 0;
}

/* The doorbells of GPU releases: the page after the slots; gw_lock held. */
static int emu_stream_gpu_doorbells(struct hellofpga_dev *dev,
				    struct hellofpga_stream *s, u32 **db,
				    u64 *db_dev, const char *fn)
{
	struct emu_stream *es = __atomic_load_n(&s->bdata, __ATOMIC_ACQUIRE);
	int ret;

	if (!es)
		return hf_set_error(dev, -EBADF, "%s: the stream is stopped", fn);
	ret = emu_stream_gpu_map(dev, es, fn);
	if (ret)
		return ret;
	hf_stream_wb_doorbells(es->wb, es->wb_dev, es->slots_len, db, db_dev);
	return 0;
}

static const struct hf_backend_ops emu_ops = {
	.name = "emulated card (in-process model)",
	.close = emu_close,
	.fork_child = emu_fork_child,
	.xfer = emu_xfer,
	.user_read32 = emu_user_read32,
	.user_write32 = emu_user_write32,
	.counters = emu_counters,
	.dma_faults = emu_dma_faults,
	.link_model = emu_link_model,
	.gpu_pin = emu_gpu_pin,
	.gpu_unpin = emu_gpu_unpin,
	.gpu_xfer = emu_gpu_xfer,
	.wb_map = emu_wb_map,
	.wb_unmap = emu_wb_unmap,
	.uirq_arm = emu_uirq_arm,
	.uirq_take = emu_uirq_take,
	.stream_start = emu_stream_start,
	.stream_wait = emu_stream_wait,
	.stream_release = emu_stream_release,
	.stream_kick = emu_stream_kick,
	.stream_stats = emu_stream_stats,
	.stream_stop = emu_stream_stop,
	.stream_halt = emu_stream_halt,
	.stream_gpu_slot = emu_stream_gpu_slot,
	.stream_gpu_doorbells = emu_stream_gpu_doorbells,
};

static int init_engines(struct hellofpga_dev *dev, struct emu_card *card)
{
	bool poll = card->irq_mode == HELLOFPGA_IRQ_POLL;
	int ret;

	card->wb_cpu = hf_emu_dma_alloc(card->host,
					XDMA_MAX_ENGINES * EMU_WB_STRIDE,
					&card->wb_bus);
	if (!card->wb_cpu)
		return hf_set_error(dev, -ENOMEM,
				    "cannot allocate writeback words");
	for (int d = 0; d < 2; d++) {
		u32 n = d == XDMA_H2C ? card->xdev.num_h2c : card->xdev.num_c2h;

		for (u32 ch = 0; ch < n; ch++) {
			struct emu_engine *e = &card->eng[d][ch];
			u32 i = card->nengines;

			ret = hf_xdma_engine_init(&e->eng, &card->xdev, d, ch,
						  poll,
						  (u8 *)card->wb_cpu +
						  i * EMU_WB_STRIDE,
						  card->wb_bus + i * EMU_WB_STRIDE);
			if (ret)
				return hf_set_error(dev, ret,
						    "cannot initialise engine %s%u (%d)",
						    hf_dir_name(d), ch, ret);
			card->by_index[e->eng.index] = e;
			card->nengines++;
			card->align = max(card->align,
					  max(e->eng.addr_align,
					      e->eng.len_gran));
		}
	}
	return 0;
}

/**
 * hf_emu_open() - open an emulated card: "emu[:N][,option...]".
 * Return: 0 or negative errno with the error text set.
 */
int hf_emu_open(struct hellofpga_dev *dev, const char *spec)
{
	struct xdma_model_config cfg;
	struct emu_card *card;
	struct emu_opts o;
	int ret;

	ret = parse_spec(dev, spec, &o);
	if (ret)
		return ret;
	card = calloc(1, sizeof(*card));
	if (!card)
		return hf_set_error(dev, -ENOMEM, "out of memory");
	pthread_mutex_init(&card->gpu_lock, NULL);
	pthread_rwlock_init(&card->blk_rw, NULL);
	for (u32 ch = 0; ch < XDMA_MAX_CHANNELS; ch++)
		card->blk_fd[ch] = -1;
	pthread_mutex_init(&card->uirq_lock, NULL);
	pthread_mutex_init(&card->wedged_lock, NULL);
	for (u32 i = 0; i < XDMA_USER_IRQS; i++)
		card->uirq[i] = (struct emu_uirq){ card, i, -1, 0 };
	card->irq_mode = o.irq_mode;
	card->align = 1;
	if (!o.private_mem) {
		ret = map_shared_ddr(dev, card, &o);
		if (ret)
			goto err;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.num_h2c = o.num_h2c;
	cfg.num_c2h = o.num_c2h;
	cfg.ddr = card->ddr;
	cfg.ddr_size = o.ddr_size;
	cfg.addr_align = o.align;
	cfg.len_gran = o.align;
	cfg.link = o.link;
	cfg.st = o.st;
	cfg.user = &hf_refdesign_user;	/* the reference design */
	card->link = o.link;
	ret = hf_emu_host_create(&cfg, o.sync ? HF_EMU_SYNC : 0, &card->host);
	if (ret) {
		hf_set_error(dev, ret, "cannot create the emulated card: %s",
			     strerror(-ret));
		goto err;
	}
	ret = hf_xdma_dev_probe(&card->xdev, hf_emu_dma_bar(card->host));
	if (ret) {
		hf_set_error(dev, ret, "emulated card: XDMA probe failed (%d)",
			     ret);
		goto err;
	}
	/* A stopped engine is proven idle within a descriptor's link time. */
	card->xdev.link_rate = o.link.gen ?
			       (u64)(xdma_link_gbps(&o.link) * 1e9) :
			       EMU_NOLINK_RATE;
	ret = init_engines(dev, card);
	if (ret)
		goto err;
	ret = setup_irqs(dev, card);
	if (ret)
		goto err;

	dev->priv = card;
	dev->ops = &emu_ops;
	dev->stream = card->xdev.stream;
	dev->pci.user_bar_size = hf_refdesign_user.bar_size;
	snprintf(dev->info.name, sizeof(dev->info.name), "%s", spec);
	dev->info.backend = HELLOFPGA_BACKEND_EMULATED;
	snprintf(dev->info.backend_name, sizeof(dev->info.backend_name), "%s",
		 emu_ops.name);
	dev->info.num_h2c = card->xdev.num_h2c;
	dev->info.num_c2h = card->xdev.num_c2h;
	dev->info.ddr_size = o.ddr_size;
	dev->info.ip_version = card->xdev.version;
	dev->info.addr_align = card->eng[XDMA_H2C][0].eng.addr_align;
	dev->info.len_granularity = card->eng[XDMA_H2C][0].eng.len_gran;
	dev->info.irq_mode = card->irq_mode;
	return 0;
err:
	emu_teardown(card);
	return ret;
}

/*
 * What the test hooks (emu_test.c, linked into the tests only) see of an
 * emulated card and its pins.
 */

/* @dev's emulated card, or NULL when @dev is another backend's card */
struct emu_card *hf_emu_card_of(struct hellofpga_dev *dev)
{
	return dev->ops == &emu_ops ? dev->priv : NULL;
}

struct hf_emu_host *hf_emu_card_host(struct emu_card *card)
{
	return card->host;
}

/* map later pins as regions moved by hf_gpu_copy_*(), whatever the GPU */
void hf_emu_card_force_region(struct emu_card *card, bool on)
{
	card->force_region = on;
}

/**
 * hf_emu_pin_info() - what @pin looks like inside.
 * Return: 0, -ENOENT (not pinned) or -ENXIO (revoked).
 */
int hf_emu_pin_info(struct hf_pin *pin, struct hf_emu_pin_info *info)
{
	struct emu_pin *ep;
	int ret = 0;

	pthread_rwlock_rdlock(&pin->lock);
	ep = pin->bdata;
	if (!ep) {
		ret = pin->revoked ? -ENXIO : -ENOENT;
	} else {
		info->nseg = ep->nseg;
		info->region = ep->region;
		info->desc_cpu = ep->desc_cpu;
		info->builds = __atomic_load_n(&ep->builds, __ATOMIC_RELAXED);
	}
	pthread_rwlock_unlock(&pin->lock);
	return ret;
}
