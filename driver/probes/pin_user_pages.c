// SPDX-License-Identifier: GPL-2.0
/* pin_user_pages_fast() and unpin_user_page() (FOLL_PIN): 5.6 */
#include <linux/mm.h>

int hf_probe(unsigned long start, struct page **pages)
{
	int n = pin_user_pages_fast(start, 1, FOLL_WRITE, pages);

	if (n == 1)
		unpin_user_page(pages[0]);
	return n;
}
