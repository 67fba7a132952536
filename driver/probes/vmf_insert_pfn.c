// SPDX-License-Identifier: GPL-2.0
/* vmf_insert_pfn(), returning vm_fault_t: 4.17 */
#include <linux/mm.h>

vm_fault_t hf_probe(struct vm_area_struct *vma, unsigned long addr)
{
	return vmf_insert_pfn(vma, addr, 0);
}
