// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of include/uapi/hellofpga.h.
 *
 * Every node takes GET_INFO, GET_STATS and LAST_ERROR; PIN, XFER and UNPIN
 * are for the control node; the h2c and c2h nodes also take the Xilinx
 * reference driver's ioctls (hf_xdma.c), the c2h nodes of an AXI-Stream
 * card the STREAM_* ioctls (hf_stream.c).  None needs a capability
 * (docs/security.md).  Every input field is checked: flags, pad and
 * reserved fields must be zero (-EINVAL), so they can gain meaning later.
 * Output structures are built zeroed, so no padding reaches user space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "hf_drv.h"
#include "../core/hf_abi.h"

/**
 * hf_efault() - record a bad ioctl argument pointer.
 * @hf: the file
 * @what: the ioctl
 *
 * Return: -EFAULT.
 */
static int hf_efault(struct hf_file *hf, const char *what)
{
	hf_set_error(hf, -EFAULT, "%s: bad argument pointer", what);
	return -EFAULT;
}

/**
 * hf_all_zero() - whether a block of memory is all zero.
 * @p: the memory
 * @len: bytes
 *
 * Return: true when every byte is 0.
 */
static bool hf_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long hf_ioc_get_info(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct pci_dev *pdev = card->pdev;
	struct hellofpga_info in, out;
	struct hf_chan *c;

	if (copy_from_user(&in, uarg, sizeof(in)))
		return hf_efault(hf, "GET_INFO");
	if (in.flags || in.pad || in.pad2 ||
	    !hf_all_zero(in.reserved, sizeof(in.reserved))) {
		hf_set_error(hf, -EINVAL, "GET_INFO: flags, pad, pad2 and reserved must be 0");
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.abi_major = HELLOFPGA_ABI_MAJOR;
	out.abi_minor = HELLOFPGA_ABI_MINOR;
	out.card_index = card->index;
	out.features = hf_pin_features();
	/* writeback words go into host pins */
	if (out.features & HELLOFPGA_FEAT_PIN_HOST) {
		out.features |= HELLOFPGA_FEAT_XFER_WB;
		if (card->xdev.stream)
			out.features |= HELLOFPGA_FEAT_STREAM_WB_PIN;
	}
	if (card->poll)
		out.features |= HELLOFPGA_FEAT_POLL_MODE;
	if (card->nvec)
		out.features |= HELLOFPGA_FEAT_USER_EVENTS;
	if (card->xdev.stream)
		out.features |= HELLOFPGA_FEAT_STREAM |
				HELLOFPGA_FEAT_STREAM_H2C;
	out.num_h2c = card->xdev.num_h2c;
	out.num_c2h = card->xdev.num_c2h;
	out.ddr_size = card->ddr_size;
	out.ip_version = card->xdev.version;
	out.irq_mode = card->poll ? HELLOFPGA_IRQ_MODE_POLL : card->irq_mode;
	c = card->xdev.num_h2c ? &card->chans[XDMA_H2C][0] :
				 &card->chans[XDMA_C2H][0];
	out.addr_align = c->engine.addr_align;
	out.len_granularity = c->engine.len_gran;
	out.timeout_ms = card->timeout_ms;
	out.user_bar_size = min_t(u64, card->user_bar_size, U32_MAX);
	out.pinned_bytes = atomic64_read(&card->pinned_bytes);
	out.pin_limit = card->pin_limit;
	out.pci_vendor = pdev->vendor;
	out.pci_device = pdev->device;
	out.pci_domain = (u32)pci_domain_nr(pdev->bus);
	/* Old binaries: the domain in 16 bits, saturated. */
	out.pci_bdf = min_t(u32, out.pci_domain, 0xffff) << 16 |
		      (u32)pdev->bus->number << 8 | pdev->devfn;
	out.user_bar_size64 = card->user_bar_size;
	strscpy(out.driver_version, HF_VERSION,
		sizeof(out.driver_version));
	if (copy_to_user(uarg, &out, sizeof(out)))
		return hf_efault(hf, "GET_INFO");
	return 0;
}

static long hf_ioc_get_stats(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct hellofpga_stats *st;
	u32 i, ne = hf_engine_count(card);
	long ret = 0;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (copy_from_user(st, uarg, sizeof(*st))) {
		ret = hf_efault(hf, "GET_STATS");
		goto out;
	}
	if (st->flags || !hf_all_zero(st->reserved, sizeof(st->reserved))) {
		hf_set_error(hf, -EINVAL, "GET_STATS: flags and reserved must be 0");
		ret = -EINVAL;
		goto out;
	}
	memset(st, 0, sizeof(*st));
	st->num_engines = ne;
	for (i = 0; i < ne && i < HELLOFPGA_MAX_ENGINES; i++) {
		struct hf_chan *c = i < card->xdev.num_h2c ?
			&card->chans[XDMA_H2C][i] :
			&card->chans[XDMA_C2H][i - card->xdev.num_h2c];
		/* Unlocked snapshot: counters of a running engine may move. */
		const struct hf_xdma_engine_stats *es = &c->engine.stats;

		st->runs[i] = READ_ONCE(es->runs);
		st->bytes[i] = READ_ONCE(es->bytes);
		st->errors[i] = READ_ONCE(es->errors);
		st->timeouts[i] = READ_ONCE(es->timeouts);
		st->lost_irqs[i] = READ_ONCE(es->lost_irqs);
	}
	st->irqs = atomic64_read(&card->irqs);
	st->pins = atomic64_read(&card->pins);
	st->pinned_bytes = atomic64_read(&card->pinned_bytes);
	if (copy_to_user(uarg, st, sizeof(*st)))
		ret = hf_efault(hf, "GET_STATS");
out:
	kfree(st);
	return ret;
}

static long hf_ioc_last_error(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_last_error *le;
	long ret = 0;

	le = kzalloc(sizeof(*le), GFP_KERNEL);
	if (!le)
		return -ENOMEM;
	if (copy_from_user(le, uarg, sizeof(*le))) {
		ret = -EFAULT;
		goto out;
	}
	if (le->flags || !hf_all_zero(le->reserved, sizeof(le->reserved))) {
		/* Not recorded: it would replace the error asked for. */
		ret = -EINVAL;
		goto out;
	}
	memset(le, 0, sizeof(*le));
	spin_lock(&hf->err_lock);
	le->error = hf->err;
	strscpy(le->text, hf->err_text, sizeof(le->text));
	spin_unlock(&hf->err_lock);
	if (copy_to_user(uarg, le, sizeof(*le)))
		ret = -EFAULT;
out:
	kfree(le);
	return ret;
}

/**
 * hf_pins_full() - the error of a PIN over the max_pins parameter.
 * @hf: the file
 *
 * Return: -ENOSPC.
 */
static int hf_pins_full(struct hf_file *hf)
{
	hf_set_error(hf, -ENOSPC,
		     "PIN: this open file holds %u pins already, the most allowed (module parameter max_pins); unpin some, or open the device again",
		     hf_max_pins);
	return -ENOSPC;
}

static long hf_ioc_pin(struct hf_file *hf, void __user *uarg)
{
	struct hf_card *card = hf->card;
	struct hellofpga_pin req;
	struct hf_pin_core *pc;
	int id, ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return hf_efault(hf, "PIN");
	if (req.flags || req.pad || req.pad2 ||
	    !hf_all_zero(req.reserved, sizeof(req.reserved))) {
		hf_set_error(hf, -EINVAL, "PIN: flags, pad, pad2 and reserved must be 0");
		return -EINVAL;
	}
	if (req.type != HELLOFPGA_PIN_CUDA && req.type != HELLOFPGA_PIN_DMABUF &&
	    req.type != HELLOFPGA_PIN_HOST) {
		hf_set_error(hf, -EINVAL, "PIN: unknown type %u", req.type);
		return -EINVAL;
	}
	if (!req.size) {
		hf_set_error(hf, -EINVAL, "PIN: size 0");
		return -EINVAL;
	}
	if (req.type == HELLOFPGA_PIN_DMABUF ? req.fd < 0 : req.fd != -1) {
		hf_set_error(hf, -EINVAL, "PIN: fd must be %s",
			     req.type == HELLOFPGA_PIN_DMABUF ?
			     "a dma-buf file descriptor" : "-1 for this type");
		return -EINVAL;
	}
	if (req.addr + req.size < req.addr) {
		hf_set_error(hf, -EINVAL, "PIN: addr + size wraps");
		return -EINVAL;
	}
	/* Nothing is mapped for a card that is gone. */
	if (READ_ONCE(card->dead)) {
		hf_set_error(hf, -ENODEV, "PIN: card removed");
		return -ENODEV;
	}
	if (READ_ONCE(hf->npins) >= hf_max_pins)
		return hf_pins_full(hf);

	ret = hf_pin_create(hf, &req, &pc);
	if (ret)
		return ret;

	/*
	 * Reserve the handle (a NULL entry: UNPIN and XFER do not see it),
	 * tell the caller, and only then publish the pin: until then no one
	 * else can tear it down, so a failure here undoes only what it did.
	 */
	mutex_lock(&hf->pins_lock);
	/* remove() sets dead before it walks the tables under this lock. */
	if (READ_ONCE(card->dead))
		id = -ENODEV;
	else if (hf->npins >= hf_max_pins)
		id = -ENOSPC;
	else
		id = idr_alloc_cyclic(&hf->pins, NULL, 1, INT_MAX, GFP_KERNEL);
	if (id > 0)
		hf->npins++;
	mutex_unlock(&hf->pins_lock);
	if (id < 0) {
		if (id == -ENOSPC)
			hf_pins_full(hf);
		else
			hf_set_error(hf, id, "PIN: %s", id == -ENODEV ?
				     "card removed" : "no handle left");
		ret = id;
		goto err_teardown;
	}
	pc->handle = id;
	req.handle = id;
	req.page_size = pc->pin.page_size;
	req.nsegs = pc->pin.nsegs;
	ret = 0;
	if (copy_to_user(uarg, &req, sizeof(req)))
		ret = hf_efault(hf, "PIN");
	mutex_lock(&hf->pins_lock);
	if (!ret && READ_ONCE(card->dead)) {
		hf_set_error(hf, -ENODEV, "PIN: card removed");
		ret = -ENODEV;
	}
	if (ret) {
		idr_remove(&hf->pins, id);
		hf->npins--;
	} else {
		idr_replace(&hf->pins, pc, id);
	}
	mutex_unlock(&hf->pins_lock);
	if (ret)
		goto err_teardown;
	return 0;

err_teardown:
	hf_pin_teardown(pc);
	hf_pin_put(pc);
	return ret;
}

static long hf_ioc_unpin(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_unpin req;
	struct hf_pin_core *pc = NULL;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return hf_efault(hf, "UNPIN");
	if (req.flags || req.pad ||
	    !hf_all_zero(req.reserved, sizeof(req.reserved))) {
		hf_set_error(hf, -EINVAL, "UNPIN: flags, pad and reserved must be 0");
		return -EINVAL;
	}
	if (req.handle && req.handle <= INT_MAX) {
		mutex_lock(&hf->pins_lock);
		/* a handle PIN has reserved but not published yet stays */
		pc = idr_find(&hf->pins, req.handle);
		if (pc && READ_ONCE(pc->streams)) {
			mutex_unlock(&hf->pins_lock);
			hf_set_error(hf, -EBUSY,
				     "UNPIN: pin %llu holds a running stream ring: stop the stream first",
				     req.handle);
			return -EBUSY;
		}
		if (pc) {
			idr_remove(&hf->pins, req.handle);
			hf->npins--;
		}
		mutex_unlock(&hf->pins_lock);
	}
	if (!pc) {
		hf_set_error(hf, -ENOENT, "UNPIN: no pin with handle %llu",
			     req.handle);
		return -ENOENT;
	}
	hf_pin_teardown(pc);
	hf_pin_put(pc);
	return 0;
}

static long hf_ioc_set_timeout(struct hf_file *hf, void __user *uarg)
{
	struct hellofpga_timeout t;

	if (copy_from_user(&t, uarg, sizeof(t))) {
		hf_set_error(hf, -EFAULT, "SET_TIMEOUT: bad argument pointer");
		return -EFAULT;
	}
	if (t.flags || !hf_all_zero(t.reserved, sizeof(t.reserved))) {
		hf_set_error(hf, -EINVAL,
			     "SET_TIMEOUT: flags and reserved must be 0");
		return -EINVAL;
	}
	if (t.timeout_ms > HELLOFPGA_MAX_TIMEOUT_MS) {
		hf_set_error(hf, -EINVAL,
			     "SET_TIMEOUT: %u ms is above %u ms (0: the module's timeout_ms)",
			     t.timeout_ms, HELLOFPGA_MAX_TIMEOUT_MS);
		return -EINVAL;
	}
	WRITE_ONCE(hf->timeout_ms, t.timeout_ms);
	return 0;
}

/**
 * hf_ioctl() - ioctls of every node (see include/uapi/hellofpga.h).
 * @file: the file
 * @cmd: HELLOFPGA_IOC_*
 * @arg: user pointer to the command's structure
 *
 * Return: 0 or a negative errno; -ENOTTY for an unknown command, or a
 * PIN/XFER/UNPIN on a node other than control; -EBADF for a PIN, XFER or
 * UNPIN on a control node not open for writing.  Other commands go to
 * hf_xdma_ioctl().
 */
long hf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hf_file *hf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case HELLOFPGA_IOC_GET_INFO:
		return hf_ioc_get_info(hf, uarg);
	case HELLOFPGA_IOC_GET_STATS:
		return hf_ioc_get_stats(hf, uarg);
	case HELLOFPGA_IOC_LAST_ERROR:
		return hf_ioc_last_error(hf, uarg);
	case HELLOFPGA_IOC_SET_TIMEOUT:
		return hf_ioc_set_timeout(hf, uarg);
	case HELLOFPGA_IOC_STREAM_START:
	case HELLOFPGA_IOC_STREAM_WAIT:
	case HELLOFPGA_IOC_STREAM_RELEASE:
	case HELLOFPGA_IOC_STREAM_STOP:
	case HELLOFPGA_IOC_STREAM_STATS:
		return hf_stream_ioctl(hf, cmd, uarg);
	case HELLOFPGA_IOC_PIN:
	case HELLOFPGA_IOC_XFER:
	case HELLOFPGA_IOC_UNPIN:
		if (hf->type != HF_NODE_CONTROL) {
			hf_set_error(hf, -ENOTTY,
				     "PIN, XFER and UNPIN are ioctls of the control node");
			return -ENOTTY;
		}
		/* they write card memory or pinned memory: a writer's right */
		if (!(file->f_mode & FMODE_WRITE)) {
			hf_set_error(hf, -EBADF,
				     "PIN, XFER and UNPIN need the control node open for writing");
			return -EBADF;
		}
		break;
	default:
		return hf_xdma_ioctl(hf, cmd, uarg);
	}

	switch (cmd) {
	case HELLOFPGA_IOC_PIN:
		return hf_ioc_pin(hf, uarg);
	case HELLOFPGA_IOC_XFER:
		return hf_xfer_ioctl(hf, uarg);
	default:
		return hf_ioc_unpin(hf, uarg);
	}
}
