// SPDX-License-Identifier: GPL-2.0
/* unpin_user_pages_dirty_lock(): 5.8 */
#include <linux/mm.h>

void hf_probe(struct page **pages, unsigned long n)
{
	unpin_user_pages_dirty_lock(pages, n, true);
}
