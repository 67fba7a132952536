// SPDX-License-Identifier: MIT
/*
 * emu_test.c - the emulated card's test hooks (hf_test.h): faults and hangs
 * of the model, its IOMMU's statistics, a pin's inside, where the state
 * directories go, which user logic the cards run.  Linked into the tests
 * only (the hellofpga_test library).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend_emu.h"
#include "hf_dev.h"
#include "hf_gpudirect.h"
#include "hf_handle.h"
#include "hf_test.h"
#include "inproc/emu_host.h"
#include "xdma_model.h"

/**
 * hf_emu_test_state_base() - make the per-user state directories in @dir
 * instead of /dev/shm (NULL restores the default).
 */
void hf_emu_test_state_base(const char *dir)
{
	hf_emu_state_base = dir;
}

/**
 * hf_emu_test_user_logic() - run @ops as the user logic of the emulated
 * cards opened from now on, a design other than the reference design (NULL
 * restores it), also where the card option rtl asks for the reference
 * design's RTL.  Cards open already keep theirs.
 */
void hf_emu_test_user_logic(const struct xdma_user_ops *ops)
{
	hf_emu_user_logic = ops;
}

/*
 * The emulated card of handle @h for a test hook, with a reference on
 * *@dev to drop with hf_dev_put(); NULL (no reference) when @h is not an
 * open emulated card.
 */
static struct emu_card *test_card(HELLOFPGA_HANDLE h,
				  struct hellofpga_dev **dev)
{
	struct emu_card *card;

	if (hf_dev_ref(h, dev))
		return NULL;
	card = hf_emu_card_of(*dev);
	if (!card)
		hf_dev_put(*dev);
	return card;
}

/**
 * hf_emu_test_inject() - inject faults into an emulated card.
 * Return: 0, or -EOPNOTSUPP when @h is not an emulated card.
 */
int hf_emu_test_inject(HELLOFPGA_HANDLE h, uint32_t faults)
{
	struct hellofpga_dev *dev;
	struct emu_card *card = test_card(h, &dev);

	if (!card)
		return -EOPNOTSUPP;
	xdma_model_inject(hf_emu_host_model(hf_emu_card_host(card)), faults);
	return hf_dev_put_ret(dev, 0);
}

/**
 * hf_emu_test_inject_hang() - every engine of an emulated card hangs for
 * @ns, then recovers by itself (xdma_model_inject_hang(); tests only).
 * Return: 0, -EINVAL (@ns too long), or -EOPNOTSUPP when @h is not an
 * emulated card.
 */
int hf_emu_test_inject_hang(HELLOFPGA_HANDLE h, uint64_t ns)
{
	struct hellofpga_dev *dev;
	struct emu_card *card = test_card(h, &dev);

	if (!card)
		return -EOPNOTSUPP;
	return hf_dev_put_ret(dev, xdma_model_inject_hang(
				      hf_emu_host_model(hf_emu_card_host(card)), ns));
}

/**
 * hf_emu_test_host_stats() - the emulated IOMMU's statistics (tests only).
 * Return: 0, or -EOPNOTSUPP when @h is not an emulated card.
 */
int hf_emu_test_host_stats(HELLOFPGA_HANDLE h, struct hf_emu_host_stats *st)
{
	struct hellofpga_dev *dev;
	struct emu_card *card = test_card(h, &dev);

	if (!card)
		return -EOPNOTSUPP;
	hf_emu_host_get_stats(hf_emu_card_host(card), st);
	return hf_dev_put_ret(dev, 0);
}

/**
 * hf_emu_test_pin_info() - what a pin looks like inside (tests only).
 * Return: 0, -EOPNOTSUPP (not an emulated card), -ENOENT (not pinned),
 * -ENXIO (revoked).
 */
int hf_emu_test_pin_info(HELLOFPGA_HANDLE h, HELLOFPGA_GPU_HANDLE handle,
			 struct hf_emu_pin_info *info)
{
	struct hellofpga_dev *dev;
	struct hf_pin *pin;
	int ret;

	if (!test_card(h, &dev))
		return -EOPNOTSUPP;
	pin = hf_pin_get(dev, handle);
	if (!pin)
		return hf_dev_put_ret(dev, -ENOENT);
	ret = hf_emu_pin_info(pin, info);
	hf_pin_put(pin);
	return hf_dev_put_ret(dev, ret);
}

/**
 * hf_emu_test_model() - the card model behind an emulated card, for tests
 * that drive its registers directly (tests only; valid until the handle is
 * closed).
 * Return: the model, or NULL when @h is not an emulated card.
 */
struct xdma_model *hf_emu_test_model(HELLOFPGA_HANDLE h)
{
	struct hellofpga_dev *dev;
	struct emu_card *card = test_card(h, &dev);
	struct xdma_model *m;

	if (!card)
		return NULL;
	m = hf_emu_host_model(hf_emu_card_host(card));
	hf_dev_put(dev);
	return m;
}

/**
 * hf_emu_test_force_region() - map later pins as regions moved by
 * hf_gpu_copy_*(), the real-GPU path, whatever the GPU (tests only).
 * Return: 0 or -EOPNOTSUPP.
 */
int hf_emu_test_force_region(HELLOFPGA_HANDLE h, bool on)
{
	struct hellofpga_dev *dev;
	struct emu_card *card = test_card(h, &dev);

	if (!card)
		return -EOPNOTSUPP;
	hf_emu_card_force_region(card, on);
	return hf_dev_put_ret(dev, 0);
}
