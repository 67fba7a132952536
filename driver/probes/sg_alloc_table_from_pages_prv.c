// SPDX-License-Identifier: GPL-2.0
/*
 * __sg_alloc_table_from_pages() with prv and left_pages, returning the last
 * entry: 5.10 to 5.14
 */
#include <linux/scatterlist.h>

struct scatterlist *hf_probe(struct sg_table *sgt, struct page **pages)
{
	return __sg_alloc_table_from_pages(sgt, pages, 1, 0, PAGE_SIZE,
					   UINT_MAX, NULL, 0, GFP_KERNEL);
}
