// SPDX-License-Identifier: GPL-2.0
/* totalram_pages() a function, no longer a variable: 5.0 */
#include <linux/mm.h>

unsigned long hf_probe(void)
{
	return totalram_pages();
}
