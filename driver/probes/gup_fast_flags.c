// SPDX-License-Identifier: GPL-2.0
/* get_user_pages_fast() takes gup_flags, not int write: 5.2 */
#include <linux/mm.h>

int (*hf_probe)(unsigned long, int, unsigned int, struct page **) =
	get_user_pages_fast;
