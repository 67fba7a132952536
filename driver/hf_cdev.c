// SPDX-License-Identifier: GPL-2.0
/*
 * The character devices of a card, named like those of the
 * XDMA reference driver so its tools work unchanged:
 *
 *   /dev/hellofpgaN_control    ioctls; read/write/mmap of DMA/config
 *                              registers (CAP_SYS_RAWIO at open)
 *   /dev/hellofpgaN_user       mmap and pread/pwrite of the user BAR
 *   /dev/hellofpgaN_h2c_C      write(): host memory -> card memory
 *   /dev/hellofpgaN_c2h_C      read():  card memory -> host memory
 *   /dev/hellofpgaN_events_U   read() blocks for user interrupt U
 *
 * The file position is the card address (h2c/c2h) or the BAR offset.
 * Register nodes take 32-bit aligned accesses only; the data goes through
 * a kernel buffer so no user memory is touched while hw_lock is held.
 *
 * Privilege (docs/security.md): whoever may open a node may use what it is
 * for, except raw access to the DMA/config registers through the control
 * node (read, write, mmap): the DMA engines fetch descriptors from any bus
 * address written there, so that needs CAP_SYS_RAWIO, as /dev/mem does.
 * It is decided at open from the opener's credentials and kept with the
 * open file (hf_rawio_decide(), hf_file.c); every ioctl works without it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "hf_drv.h"

/* Bytes of one bounce of a register read or write. */
#define HF_REG_BOUNCE	256

static struct class *hf_class;
static dev_t hf_devt;

/**
 * hf_node_size() - bound of the file position of a node.
 * @hf: the file
 *
 * Return: size in bytes, 0 when unbounded.
 */
static u64 hf_node_size(struct hf_file *hf)
{
	switch (hf->type) {
	case HF_NODE_CONTROL:
		return HF_CONTROL_SIZE;
	case HF_NODE_USER:
		return hf->card->user_bar_size;
	case HF_NODE_H2C:
	case HF_NODE_C2H:
		return hf->card->ddr_size;
	default:
		return 0;
	}
}

static loff_t hf_llseek(struct file *file, loff_t off, int whence)
{
	struct hf_file *hf = file->private_data;
	u64 size = hf_node_size(hf);
	loff_t max = size ? (loff_t)size : MAX_LFS_FILESIZE;

	if (hf->type == HF_NODE_EVENTS)
		return -ESPIPE;
	return generic_file_llseek_size(file, off, whence, max, max);
}

/**
 * hf_reg_access() - pread/pwrite of a register BAR, 32-bit accesses.
 * @hf: the file
 * @base: the mapped BAR
 * @size: bytes of the BAR that may be accessed
 * @ubuf: user buffer
 * @count: bytes
 * @ppos: file position (BAR offset)
 * @write: direction
 *
 * Return: bytes done or a negative errno.
 */
static ssize_t hf_reg_access(struct hf_file *hf, void __iomem *base,
			     u64 size, char __user *ubuf, size_t count,
			     loff_t *ppos, bool write)
{
	struct hf_card *card = hf->card;
	u32 bounce[HF_REG_BOUNCE / 4];
	u64 pos = *ppos;
	size_t done = 0, n, i;
	int ret;

	if (*ppos < 0 || !IS_ALIGNED(pos, 4) || !IS_ALIGNED(count, 4)) {
		hf_set_error(hf, -EINVAL,
			     "register access at 0x%llx of %zu bytes: offset and length must be multiples of 4",
			     (unsigned long long)*ppos, count);
		return -EINVAL;
	}
	if (pos >= size) {
		if (!write || !count)
			return 0;
		hf_set_error(hf, -ENOSPC,
			     "register write at 0x%llx: beyond the BAR (0x%llx bytes)",
			     pos, size);
		return -ENOSPC;
	}
	count = min_t(u64, count, size - pos);
	while (done < count) {
		n = min_t(size_t, count - done, sizeof(bounce));
		if (write && copy_from_user(bounce, ubuf + done, n)) {
			ret = -EFAULT;
			goto fail;
		}
		ret = hf_card_enter(card);
		if (ret)
			goto fail;
		for (i = 0; i < n / 4; i++) {
			if (write)
				iowrite32(bounce[i], base + pos + done + 4 * i);
			else
				bounce[i] = ioread32(base + pos + done + 4 * i);
		}
		hf_card_exit(card);
		if (!write && copy_to_user(ubuf + done, bounce, n)) {
			ret = -EFAULT;
			goto fail;
		}
		done += n;
	}
	*ppos += done;
	return done;

fail:
	hf_set_error(hf, ret, "register %s at 0x%llx failed: %s",
		     write ? "write" : "read", pos + done,
		     ret == -EFAULT ? "bad user buffer" :
		     hf_card_enter_why(ret));
	if (done) {
		*ppos += done;
		return done;
	}
	return ret;
}

static ssize_t hf_read(struct file *file, char __user *buf, size_t count,
		       loff_t *ppos)
{
	struct hf_file *hf = file->private_data;
	struct hf_card *card = hf->card;

	switch (hf->type) {
	case HF_NODE_CONTROL:
		if (hf_rawio_check(hf, "read"))
			return -EPERM;
		return hf_reg_access(hf, card->dma_bar.base, HF_CONTROL_SIZE,
				     buf, count, ppos, false);
	case HF_NODE_USER:
		return hf_reg_access(hf, card->user_bar, card->user_bar_size,
				     buf, count, ppos, false);
	case HF_NODE_C2H:
		return hf_xfer_rw(hf, &card->chans[XDMA_C2H][hf->index], buf,
				  count, ppos);
	case HF_NODE_EVENTS:
		return hf_events_read(hf, buf, count);
	default:
		hf_set_error(hf, -EINVAL,
			     "read() of an h2c node: use write(), or the c2h node");
		return -EINVAL;
	}
}

static ssize_t hf_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	struct hf_file *hf = file->private_data;
	struct hf_card *card = hf->card;

	switch (hf->type) {
	case HF_NODE_CONTROL:
		if (hf_rawio_check(hf, "write"))
			return -EPERM;
		return hf_reg_access(hf, card->dma_bar.base, HF_CONTROL_SIZE,
				     (char __user *)buf, count, ppos, true);
	case HF_NODE_USER:
		return hf_reg_access(hf, card->user_bar, card->user_bar_size,
				     (char __user *)buf, count, ppos, true);
	case HF_NODE_H2C:
		return hf_xfer_rw(hf, &card->chans[XDMA_H2C][hf->index],
				  (char __user *)buf, count, ppos);
	default:
		hf_set_error(hf, -EINVAL, "write() of a %s node",
			     hf->type == HF_NODE_C2H ? "c2h" : "events");
		return -EINVAL;
	}
}

static __poll_t hf_poll(struct file *file, poll_table *wait)
{
	struct hf_file *hf = file->private_data;

	if (hf->type == HF_NODE_C2H && hf->card->xdev.stream)
		return hf_stream_poll(hf, file, wait);
	if (hf->type != HF_NODE_EVENTS)
		return DEFAULT_POLLMASK;
	return hf_events_poll(hf, file, wait);
}

/**
 * hf_node_decode() - the node of a minor offset, if the card has it.
 * @card: the card
 * @off: minor - first minor of the card
 * @type: the kind of node
 * @index: its channel or interrupt number
 *
 * Return: 0, or -ENODEV for a node the card lacks.
 */
static int hf_node_decode(struct hf_card *card, u32 off,
			  enum hf_node_type *type, u32 *index)
{
	if (off >= HF_MINORS_PER_CARD || !test_bit(off, card->node_made))
		return -ENODEV;
	*index = 0;
	if (off == HF_MINOR_CONTROL) {
		*type = HF_NODE_CONTROL;
	} else if (off == HF_MINOR_USER) {
		*type = HF_NODE_USER;
	} else if (off < HF_MINOR_C2H(0)) {
		*type = HF_NODE_H2C;
		*index = off - HF_MINOR_H2C(0);
	} else if (off < HF_MINOR_EVENTS(0)) {
		*type = HF_NODE_C2H;
		*index = off - HF_MINOR_C2H(0);
	} else {
		*type = HF_NODE_EVENTS;
		*index = off - HF_MINOR_EVENTS(0);
	}
	return 0;
}

static int hf_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	struct hf_card *card;
	struct hf_file *hf;
	int ret;

	card = hf_card_get_by_index(minor / HF_MINORS_PER_CARD);
	if (!card)
		return -ENODEV;
	hf = kzalloc(sizeof(*hf), GFP_KERNEL);
	if (!hf) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = hf_node_decode(card, minor % HF_MINORS_PER_CARD, &hf->type,
			     &hf->index);
	if (ret)
		goto err_free;
	hf->card = card;
	hf->filp = file;
	spin_lock_init(&hf->err_lock);
	spin_lock_init(&hf->stream_lock);
	mutex_init(&hf->pins_lock);
	idr_init(&hf->pins);
	file->private_data = hf;
	if (hf->type == HF_NODE_CONTROL)
		hf_rawio_decide(hf);
	if (hf->type == HF_NODE_EVENTS) {
		ret = hf_events_open(hf);
		if (ret)
			goto err_free;
	}
	mutex_lock(&card->files_lock);
	list_add_tail(&hf->node, &card->files);
	mutex_unlock(&card->files_lock);
	return 0;

err_free:
	kfree(hf);
err_put:
	hf_card_put(card);
	return ret;
}

static int hf_release(struct inode *inode, struct file *file)
{
	struct hf_file *hf = file->private_data;
	struct hf_card *card = hf->card;

	hf_stream_file_release(hf);
	hf_file_release_pins(hf);
	mutex_lock(&card->files_lock);
	list_del(&hf->node);
	mutex_unlock(&card->files_lock);
	idr_destroy(&hf->pins);
	kfree(hf);
	hf_card_put(card);
	return 0;
}

static const struct file_operations hf_fops = {
	.owner = THIS_MODULE,
	.open = hf_open,
	.release = hf_release,
	.llseek = hf_llseek,
	.read = hf_read,
	.write = hf_write,
	.poll = hf_poll,
	.mmap = hf_mmap,
	.unlocked_ioctl = hf_ioctl,
	.compat_ioctl = hf_compat_ptr_ioctl,
};

/**
 * hf_node_create() - create one device node.
 * @card: the card
 * @off: minor offset
 * @suffix: name after "hellofpgaN_"
 *
 * Return: 0 or the error of device_create().
 */
static int hf_node_create(struct hf_card *card, u32 off, const char *suffix)
{
	struct device *d;

	d = device_create(hf_class, hf_dev(card), card->devt + off, card,
			  "%s_%s", card->name, suffix);
	if (IS_ERR(d)) {
		dev_err(hf_dev(card), "cannot create %s_%s: %ld\n",
			card->name, suffix, PTR_ERR(d));
		return PTR_ERR(d);
	}
	set_bit(off, card->node_made);
	return 0;
}

/**
 * hf_cdev_create() - the character device and nodes of a card.
 * @card: the card, engines and interrupts set up
 *
 * Return: 0 or a negative errno (what was made is undone).
 */
int hf_cdev_create(struct hf_card *card)
{
	char suffix[16];
	u32 i;
	int ret;

	card->devt = MKDEV(MAJOR(hf_devt),
			   MINOR(hf_devt) + card->index * HF_MINORS_PER_CARD);
	card->cdev = cdev_alloc();
	if (!card->cdev)
		return -ENOMEM;
	card->cdev->owner = THIS_MODULE;
	card->cdev->ops = &hf_fops;
	ret = cdev_add(card->cdev, card->devt, HF_MINORS_PER_CARD);
	if (ret) {
		kobject_put(&card->cdev->kobj);
		card->cdev = NULL;
		return ret;
	}
	ret = hf_node_create(card, HF_MINOR_CONTROL, "control");
	if (!ret && card->user_bar)
		ret = hf_node_create(card, HF_MINOR_USER, "user");
	for (i = 0; !ret && i < card->xdev.num_h2c; i++) {
		snprintf(suffix, sizeof(suffix), "h2c_%u", i);
		ret = hf_node_create(card, HF_MINOR_H2C(i), suffix);
	}
	for (i = 0; !ret && i < card->xdev.num_c2h; i++) {
		snprintf(suffix, sizeof(suffix), "c2h_%u", i);
		ret = hf_node_create(card, HF_MINOR_C2H(i), suffix);
	}
	for (i = 0; !ret && card->nvec && i < XDMA_USER_IRQS; i++) {
		snprintf(suffix, sizeof(suffix), "events_%u", i);
		ret = hf_node_create(card, HF_MINOR_EVENTS(i), suffix);
	}
	if (ret)
		hf_cdev_destroy(card);
	return ret;
}

/**
 * hf_cdev_destroy() - remove the nodes and the character device of a card.
 * @card: the card
 *
 * Open files stay valid (they hold the card); no new open succeeds.
 */
void hf_cdev_destroy(struct hf_card *card)
{
	u32 off;

	for_each_set_bit(off, card->node_made, HF_MINORS_PER_CARD)
		device_destroy(hf_class, card->devt + off);
	/* node_made stays: open() of an already looked-up card checks it. */
	if (card->cdev)
		cdev_del(card->cdev);
	card->cdev = NULL;
}

/**
 * hf_cdev_init() - the device number region and the class, at load.
 *
 * Return: 0 or a negative errno.
 */
int hf_cdev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&hf_devt, 0,
				  HF_MAX_CARDS * HF_MINORS_PER_CARD,
				  HF_DRV_NAME);
	if (ret)
		return ret;
	hf_class = hf_class_create(HF_DRV_NAME);
	if (IS_ERR(hf_class)) {
		ret = PTR_ERR(hf_class);
		unregister_chrdev_region(hf_devt,
					 HF_MAX_CARDS * HF_MINORS_PER_CARD);
		return ret;
	}
	return 0;
}

/**
 * hf_cdev_exit() - undo hf_cdev_init(), at unload.
 */
void hf_cdev_exit(void)
{
	class_destroy(hf_class);
	unregister_chrdev_region(hf_devt, HF_MAX_CARDS * HF_MINORS_PER_CARD);
}
