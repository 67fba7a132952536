// SPDX-License-Identifier: GPL-2.0
/* vm_flags read-only behind vm_flags_set(): 6.3 */
#include <linux/mm.h>

void hf_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_IO);
}
