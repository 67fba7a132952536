// SPDX-License-Identifier: GPL-2.0
/* account_locked_vm(): 5.3 */
#include <linux/mm.h>

int hf_probe(struct mm_struct *mm)
{
	return account_locked_vm(mm, 1, true);
}
