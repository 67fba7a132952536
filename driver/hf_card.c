// SPDX-License-Identifier: GPL-2.0
/*
 * The card object and its lifetime.
 *
 * A struct hf_card is one bound PCI function.  It is reference counted: the
 * PCI driver holds a reference from probe to remove, every open file one
 * until it closes, so files outlive remove() and then fail with -ENODEV.
 * The registry maps the N of /dev/hellofpgaN_* to the card for open(): an
 * index is reserved at probe, the card published once it is set up and
 * unpublished at remove (hf_pci.c).  Every access of a file to the card's
 * registers or engines is bracketed by hf_card_enter() and hf_card_exit(),
 * which hold hw_lock for reading; remove() and the PCIe error handlers take
 * it for writing after hf_card_abort_runs() made runs in flight end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "compat.h"
#include "hf_drv.h"

/* Cards by index (N of /dev/hellofpgaN_*), for open(). */
static DEFINE_MUTEX(hf_cards_lock);	/* protects hf_cards */
static DEFINE_IDR(hf_cards);

/**
 * hf_card_reserve_index() - reserve the lowest free index for a card.
 * @card: the card, not in the registry yet
 *
 * Sets @card->index and @card->name; hf_card_get_by_index() does not find
 * the card before hf_card_publish().
 *
 * Return: 0, -ENOSPC with HF_MAX_CARDS cards bound, -ENOMEM.
 */
int hf_card_reserve_index(struct hf_card *card)
{
	int ret;

	mutex_lock(&hf_cards_lock);
	ret = idr_alloc(&hf_cards, NULL, 0, HF_MAX_CARDS, GFP_KERNEL);
	mutex_unlock(&hf_cards_lock);
	if (ret < 0)
		return ret;
	card->index = ret;
	snprintf(card->name, sizeof(card->name), HF_DRV_NAME "%d",
		 card->index);
	return 0;
}

/**
 * hf_card_publish() - let open() find a card by its reserved index.
 * @card: the card, set up
 */
void hf_card_publish(struct hf_card *card)
{
	mutex_lock(&hf_cards_lock);
	idr_replace(&hf_cards, card, card->index);
	mutex_unlock(&hf_cards_lock);
}

/**
 * hf_card_unpublish() - take a card out of the registry, free its index.
 * @card: the card, published or with its index reserved
 *
 * No open() finds the card afterwards; files already open keep it.
 */
void hf_card_unpublish(struct hf_card *card)
{
	mutex_lock(&hf_cards_lock);
	idr_remove(&hf_cards, card->index);
	mutex_unlock(&hf_cards_lock);
}

/**
 * hf_card_alloc() - allocate and initialise the software state of a card.
 * @pdev: the device
 *
 * Return: the card with one reference, or NULL.
 */
struct hf_card *hf_card_alloc(struct pci_dev *pdev)
{
	struct hf_card *card;
	u32 dir, ch, i;

	card = kzalloc(sizeof(*card), GFP_KERNEL);
	if (!card)
		return NULL;
	kref_init(&card->ref);
	card->pdev = pci_dev_get(pdev);
	card->index = -1;
	init_rwsem(&card->hw_lock);
	mutex_init(&card->files_lock);
	INIT_LIST_HEAD(&card->files);
	atomic64_set(&card->pinned_bytes, 0);
	atomic64_set(&card->pins, 0);
	atomic64_set(&card->irqs, 0);
	atomic_set(&card->bus_off, 0);
	for (dir = 0; dir < 2; dir++) {
		for (ch = 0; ch < XDMA_MAX_CHANNELS; ch++) {
			struct hf_chan *c = &card->chans[dir][ch];

			c->card = card;
			c->dir = dir;
			c->ch = ch;
			mutex_init(&c->lock);
			init_waitqueue_head(&c->lock_wq);
		}
	}
	for (i = 0; i < XDMA_USER_IRQS; i++) {
		card->user_irq[i].card = card;
		card->user_irq[i].n = i;
		spin_lock_init(&card->user_irq[i].lock);
		init_waitqueue_head(&card->user_irq[i].wq);
	}
	card->poll = hf_poll_mode;
	card->timeout_ms = max(hf_timeout_ms, 1u);
	card->pin_limit = hf_pin_limit_mb ? (u64)hf_pin_limit_mb << 20 :
			  max_t(u64, hf_totalram_bytes() / 2, 1ULL << 30);
	return card;
}

/**
 * hf_card_release() - free a card when its last reference goes.
 * @ref: the card's kref
 */
static void hf_card_release(struct kref *ref)
{
	struct hf_card *card = container_of(ref, struct hf_card, ref);
	u32 i;

	for (i = 0; i < HF_NCHANS; i++) {
		kvfree(hf_chan_at(card, i)->pages);
		kvfree(hf_chan_at(card, i)->sg);
	}
	pci_dev_put(card->pdev);
	kfree(card);
}

/**
 * hf_card_put() - drop a reference to a card.
 * @card: the card
 */
void hf_card_put(struct hf_card *card)
{
	kref_put(&card->ref, hf_card_release);
}

/**
 * hf_card_get_by_index() - find a live card by its index.
 * @index: N of /dev/hellofpgaN_*
 *
 * Return: the card with a reference the caller puts, or NULL.
 */
struct hf_card *hf_card_get_by_index(int index)
{
	struct hf_card *card;

	mutex_lock(&hf_cards_lock);
	card = idr_find(&hf_cards, index);
	if (card)
		kref_get(&card->ref);
	mutex_unlock(&hf_cards_lock);
	return card;
}

/**
 * hf_card_enter() - start an access to the card's registers or engines.
 * @card: the card
 *
 * Takes hw_lock for reading; hf_card_exit() ends the access.  Must not be
 * called with hw_lock already held, nor held while touching user memory.
 *
 * Return: 0, -ENODEV when the card was removed, -EIO while it recovers
 * from a PCIe error, -EINTR on a fatal signal (hf_card_enter_why() says
 * which in words).
 */
int hf_card_enter(struct hf_card *card)
{
	if (down_read_killable(&card->hw_lock))
		return -EINTR;
	if (card->dead || card->frozen) {
		up_read(&card->hw_lock);
		return card->dead ? -ENODEV : -EIO;
	}
	return 0;
}

/**
 * hf_card_enter_why() - the words for an error of hf_card_enter().
 * @err: its return value
 *
 * Return: a static string.
 */
const char *hf_card_enter_why(int err)
{
	switch (err) {
	case -ENODEV:
		return "card removed";
	case -EIO:
		return "card in a reset or PCIe error recovery (see dmesg); try again";
	default:
		return "interrupted";
	}
}

/**
 * hf_card_enter_for() - hf_card_enter() for a call of an open file.
 * @card: the card
 * @hf: the file (its last error is set on failure)
 * @what: the call, the first words of the error ("XFER"), or NULL
 *
 * Return: what hf_card_enter() returns; on failure @hf's error says why in
 * words (hf_card_enter_why()), after "@what: " when @what is not NULL.
 */
int hf_card_enter_for(struct hf_card *card, struct hf_file *hf,
		      const char *what)
{
	int ret = hf_card_enter(card);

	if (ret)
		hf_set_error(hf, ret, "%s%s%s", what ?: "", what ? ": " : "",
			     hf_card_enter_why(ret));
	return ret;
}

/**
 * hf_card_exit() - end an access started by hf_card_enter().
 * @card: the card
 */
void hf_card_exit(struct hf_card *card)
{
	up_read(&card->hw_lock);
}

/**
 * hf_card_abort_runs() - make runs in flight stop waiting, new ones fail.
 * @card: the card
 *
 * Each run still stops its engine and proves it idle before it returns
 * (hf_xdma_dev.gone); the caller then takes hw_lock for writing to wait for
 * them.
 */
void hf_card_abort_runs(struct hf_card *card)
{
	u32 i;

	WRITE_ONCE(card->xdev.gone, true);
	/* order the flag before the wake-ups; pairs with hf_xdma_engine_run() */
	smp_mb();
	for (i = 0; i < HF_NCHANS; i++) {
		struct hf_xdma_engine *e = &hf_chan_at(card, i)->engine;

		if (READ_ONCE(e->xdev))
			hf_xdma_engine_abort(e);
	}
}
