// SPDX-License-Identifier: GPL-2.0
/* the vm_fault_t type: 4.17 */
#include <linux/mm.h>

vm_fault_t hf_probe(void)
{
	return VM_FAULT_NOPAGE;
}
