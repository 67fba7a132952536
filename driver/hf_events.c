// SPDX-License-Identifier: GPL-2.0
/*
 * User interrupts (usr_irq_req of the XDMA IP) as the
 * _events_<n> nodes of the reference driver: read() blocks until user
 * interrupt n fired and returns a 4-byte count of interrupts since the last
 * read; poll() reports it readable.
 *
 * The interrupt handler masks the user interrupt in the IRQ block (the
 * request is a level the user logic holds) and read() enables it again once
 * the count was taken, so a level request neither storms nor is lost.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "compat.h"
#include "hf_drv.h"

/**
 * hf_user_irq_enable() - enable one user interrupt in the IRQ block.
 * @card: the card
 * @n: the user interrupt
 *
 * Return: 0, or the error of hf_card_enter().
 */
static int hf_user_irq_enable(struct hf_card *card, u32 n)
{
	int ret = hf_card_enter(card);

	if (ret)
		return ret;
	hf_iowrite32(BIT(n), &card->dma_bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1S);
	hf_card_exit(card);
	return 0;
}

/**
 * hf_user_irq_handle() - a user interrupt fired (hard interrupt context).
 * @ui: the user interrupt
 *
 * Return: IRQ_HANDLED.
 */
irqreturn_t hf_user_irq_handle(struct hf_user_irq *ui)
{
	struct hf_card *card = ui->card;

	hf_iowrite32(BIT(ui->n), &card->dma_bar,
		     XDMA_IRQ_BASE + XDMA_IRQ_USER_EN_W1C);
	spin_lock(&ui->lock);
	ui->events++;
	spin_unlock(&ui->lock);
	wake_up_interruptible(&ui->wq);
	return IRQ_HANDLED;
}

/**
 * hf_events_open() - open of an events node: enable its interrupt.
 * @hf: the file
 *
 * Return: 0 or -ENODEV / -EINTR.
 */
int hf_events_open(struct hf_file *hf)
{
	return hf_user_irq_enable(hf->card, hf->index);
}

/**
 * hf_events_take() - take the count of a user interrupt.
 * @ui: the user interrupt
 *
 * Return: interrupts since the last take.
 */
static u32 hf_events_take(struct hf_user_irq *ui)
{
	u32 n;

	spin_lock_irq(&ui->lock);
	n = ui->events;
	ui->events = 0;
	spin_unlock_irq(&ui->lock);
	return n;
}

/**
 * hf_events_give_back() - put a taken count back, for another reader.
 * @ui: the user interrupt
 * @n: the count hf_events_take() returned
 */
static void hf_events_give_back(struct hf_user_irq *ui, u32 n)
{
	spin_lock_irq(&ui->lock);
	ui->events += n;
	spin_unlock_irq(&ui->lock);
	wake_up_interruptible(&ui->wq);
}

/**
 * hf_events_read() - wait for a user interrupt.
 * @hf: the file of an events node
 * @buf: receives the count (u32)
 * @count: at least 4
 *
 * A count taken while the card is in a reset or PCIe error recovery is
 * handed out as any other.
 *
 * Return: 4, -EINVAL, -EAGAIN (O_NONBLOCK and none yet), -EINTR (a signal;
 * never -ERESTARTSYS), -ENODEV (card removed), -EFAULT.
 */
ssize_t hf_events_read(struct hf_file *hf, char __user *buf, size_t count)
{
	struct hf_card *card = hf->card;
	struct hf_user_irq *ui = &card->user_irq[hf->index];
	u32 events;
	int ret;

	if (count < sizeof(events)) {
		hf_set_error(hf, -EINVAL, "events read needs 4 bytes");
		return -EINVAL;
	}
	for (;;) {
		if (hf->filp->f_flags & O_NONBLOCK) {
			if (!READ_ONCE(ui->events))
				return READ_ONCE(card->dead) ? -ENODEV :
							       -EAGAIN;
		} else if (wait_event_interruptible(ui->wq,
						    READ_ONCE(ui->events) ||
						    READ_ONCE(card->dead))) {
			return -EINTR;
		}
		events = hf_events_take(ui);
		if (events)
			break;
		if (READ_ONCE(card->dead)) {
			hf_set_error(hf, -ENODEV, "card removed");
			return -ENODEV;
		}
		/* another reader of the interrupt took the count first */
	}
	/*
	 * The count is taken: hand it out whatever the enable says.  A card
	 * in a reset or PCIe error recovery (-EIO) enables the interrupts of
	 * the open events nodes when it thaws (hf_events_open_mask()); a
	 * removed one (-ENODEV) has none.  Only a fatal signal (-EINTR)
	 * keeps this reader from enabling it: the count goes back for
	 * another reader, whose read enables it.
	 */
	ret = hf_user_irq_enable(card, hf->index);
	if (ret == -EINTR) {
		hf_events_give_back(ui, events);
		return ret;
	}
	if (copy_to_user(buf, &events, sizeof(events))) {
		hf_events_give_back(ui, events);
		return -EFAULT;
	}
	return sizeof(events);
}

/**
 * hf_events_poll() - poll of an events node.
 * @hf: the file
 * @file: the struct file
 * @wait: the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM when an interrupt is pending, EPOLLHUP |
 * EPOLLERR when the card is gone.
 */
__poll_t hf_events_poll(struct hf_file *hf, struct file *file,
			poll_table *wait)
{
	struct hf_card *card = hf->card;
	struct hf_user_irq *ui = &card->user_irq[hf->index];
	__poll_t mask = 0;

	poll_wait(file, &ui->wq, wait);
	if (READ_ONCE(ui->events))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(card->dead))
		mask |= EPOLLHUP | EPOLLERR;
	return mask;
}

/**
 * hf_events_open_mask() - the user interrupts an open events node waits on.
 * @card: the card
 *
 * For enabling them again after a reset of the card.
 *
 * Return: a bit per user interrupt.
 */
u32 hf_events_open_mask(struct hf_card *card)
{
	struct hf_file *hf;
	u32 user = 0;

	mutex_lock(&card->files_lock);
	list_for_each_entry(hf, &card->files, node)
		if (hf->type == HF_NODE_EVENTS)
			user |= BIT(hf->index);
	mutex_unlock(&card->files_lock);
	return user;
}

/**
 * hf_events_wake_all() - wake every events reader (the card is gone).
 * @card: the card, dead
 */
void hf_events_wake_all(struct hf_card *card)
{
	u32 i;

	for (i = 0; i < XDMA_USER_IRQS; i++)
		wake_up_interruptible_all(&card->user_irq[i].wq);
}
