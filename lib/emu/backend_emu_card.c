// SPDX-License-Identifier: MIT
/*
 * backend_emu_card.c - the emulated card's setup: the card name's options,
 * the state files, card memory, interrupts and engines.
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "backend_emu_priv.h"
#include "hf_chanlock.h"
#include "hf_number.h"

#define EMU_WB_STRIDE		XDMA_WB_AREA	/* writeback bytes per engine */
/*
 * A shared card's lock file: its first page holds the channel locks
 * (struct hf_shared_locks, chanlock.c); an OFD lock on this byte is held
 * while the card memory and those locks are created.
 */
#define EMU_LOCK_CREATE		64

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
	} else if (KEY("rtl") && !eq) {
		o->rtl = true;	/* the reference design's RTL (hf_rtl_load.h) */
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
				    "emulated card option '%.*s' unknown: use h2c=1..4, c2h=1..4, ddr=SIZE[K|M|G|T], irq=msix|msi|legacy|poll, align=N, private, sync, st, rtl, link=genGxW, mps=N, desc_ns=N",
				    (int)klen, opt);
	}
#undef KEY
	return 0;
bad:
	return hf_set_error(dev, -EINVAL,
			    "emulated card option '%s': bad value (h2c/c2h 1..4; ddr a multiple of 4 KiB up to 1 TiB (1T); align a power of two up to 128 (the ALIGNMENTS register's 8-bit field); numbers as README.md's \"Numbers\": decimal without leading zeros or 0x hex, no spaces or signs)",
			    opt);
}

/*
 * $HELLOFPGA_EMU_OPTS: options for every emulated card a process opens,
 * after those of the card's name (so they win), e.g. "rtl" to run a
 * program's cards on the reference design's RTL unchanged.
 */
static int parse_env_opts(struct hellofpga_dev *dev, struct emu_opts *o)
{
	const char *env = getenv("HELLOFPGA_EMU_OPTS");
	char buf[256], *save = NULL, *tok;
	int ret;

	if (!env || !*env)
		return 0;
	if (strlen(env) >= sizeof(buf))
		return hf_set_error(dev, -EINVAL,
				    "$HELLOFPGA_EMU_OPTS too long");
	strcpy(buf, env);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		ret = parse_opt(dev, o, tok);
		if (ret) {
			char why[512];

			snprintf(why, sizeof(why), "%s", hf_last_error(dev));
			return hf_set_error(dev, ret, "$HELLOFPGA_EMU_OPTS: %s",
					    why);
		}
	}
	return 0;
}

int emu_parse_spec(struct hellofpga_dev *dev, const char *spec,
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
	ret = parse_env_opts(dev, o);
	if (ret)
		return ret;
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
int emu_lock_range(int fd, short type, off_t start, off_t len)
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
 * emu_map_shared_ddr() - map the shared card memory of emu:N, creating it on
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
int emu_map_shared_ddr(struct hellofpga_dev *dev, struct emu_card *card,
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
	ret = emu_lock_range(dev->lock_fd, F_WRLCK, EMU_LOCK_CREATE, 1);
	if (ret) {
		close(dirfd);
		return hf_set_error(dev, ret,
				    "cannot lock %s/%s for creating the card: %s",
				    dir, name, strerror(-ret));
	}
	dev->shlocks = hf_shared_locks_map(dev->lock_fd, &ret);
	if (!dev->shlocks) {
		close(dirfd);
		emu_lock_range(dev->lock_fd, F_UNLCK, EMU_LOCK_CREATE, 1);
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
		emu_lock_range(dev->lock_fd, F_UNLCK, EMU_LOCK_CREATE, 1);
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
	emu_lock_range(dev->lock_fd, F_UNLCK, EMU_LOCK_CREATE, 1);
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
int emu_setup_irqs(struct hellofpga_dev *dev, struct emu_card *card)
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

int emu_init_engines(struct hellofpga_dev *dev, struct emu_card *card)
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
