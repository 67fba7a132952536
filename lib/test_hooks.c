// SPDX-License-Identifier: MIT
/*
 * test_hooks.c - test hooks of any backend (hf_test.h): a smaller card
 * memory for the range checks, buffer checks by MADV_POPULATE_*.  Linked
 * into the tests only (the hellofpga_test library).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "hf_dev.h"
#include "hf_handle.h"
#include "hf_test.h"
#include "hf_user_pages.h"

/**
 * hf_test_limit_ddr() - let the library's range checks see only the first
 * @ddr bytes of card memory, on any backend.
 * Return: 0, -EINVAL (@ddr larger than the card) or -EBADF.
 */
int hf_test_limit_ddr(HELLOFPGA_HANDLE h, uint64_t ddr)
{
	struct hellofpga_dev *dev;
	int ret = hf_dev_ref(h, &dev);

	if (ret)
		return ret;
	if (ddr > dev->info.ddr_size)
		return hf_dev_put_ret(dev, -EINVAL);
	dev->info.ddr_size = ddr;
	return hf_dev_put_ret(dev, 0);
}

/**
 * hf_test_probe_populate() - check callers' buffers with MADV_POPULATE_*
 * even where PROCMAP_QUERY is there.
 * Return: whether MADV_POPULATE_* works here (else buffers go unchecked
 * whenever PROCMAP_QUERY is not used).
 */
bool hf_test_probe_populate(bool on)
{
	__atomic_store_n(&hf_probe_no_query, on, __ATOMIC_RELAXED);
	return hf_populate_supported();
}
