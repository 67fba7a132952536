// SPDX-License-Identifier: GPL-2.0
/*
 * mmap() of the card's register BARs:
 *
 *   /dev/hellofpgaN_user      the whole user BAR, for every opener
 *   /dev/hellofpgaN_control   the DMA/config BAR below the MSI-X table
 *                             (HF_CONTROL_SIZE, 32 KiB), for files opened
 *                             with CAP_SYS_RAWIO only (hf_rawio_check())
 *
 * mmap() only checks and sets the mapping up (VM_IO | VM_PFNMAP |
 * VM_DONTEXPAND | VM_DONTDUMP, uncached); pages are inserted one at a time
 * by the fault handler with vmf_insert_pfn(), as vfio-pci does.  The handler
 * takes the card's hw_lock for reading and inserts nothing once the card is
 * dead; remove() sets dead under the lock for writing and then zaps every
 * mapping of the card's files (hf_mmap_zap()).  So no mapping can hold on
 * to a removed card's BAR: not one set up while remove() runs (its pages
 * are not mapped before they fault), not one of a forked child (the same
 * file), and every later access raises SIGBUS.  MAP_PRIVATE is
 * refused: a private (copy-on-write) mapping of registers means nothing,
 * and vmf_insert_pfn() must not be used on one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pci.h>

#include "compat.h"
#include "hf_drv.h"

/**
 * struct hf_bar_window - the part of a BAR that a node maps.
 * @phys: physical address of its first byte
 * @pages: its length in pages
 * @name: what it is, for error texts
 */
struct hf_bar_window {
	phys_addr_t phys;
	u64 pages;
	const char *name;
};

/**
 * hf_bar_window() - what a file of the user or control node maps.
 * @hf: the file
 * @w: filled in
 *
 * Return: 0, -ENODEV for a node that maps nothing (with the file's last
 * error set), -EINVAL when the BAR cannot be mapped in whole pages.
 */
static int hf_bar_window(struct hf_file *hf, struct hf_bar_window *w)
{
	struct hf_card *card = hf->card;
	u64 size;

	switch (hf->type) {
	case HF_NODE_USER:
		w->phys = card->user_bar_phys;
		size = card->user_bar_size;
		w->name = "the user BAR";
		break;
	case HF_NODE_CONTROL:
		w->phys = pci_resource_start(card->pdev, card->dma_bar_idx);
		/* Below the MSI-X table: whole pages only. */
		size = HF_CONTROL_SIZE & PAGE_MASK;
		w->name = "the DMA/config BAR below the MSI-X table";
		break;
	default:
		hf_set_error(hf, -ENODEV,
			     "mmap() is for the user node and (with CAP_SYS_RAWIO) the control node");
		return -ENODEV;
	}
	w->pages = size >> PAGE_SHIFT;
	if (!w->pages || !PAGE_ALIGNED(w->phys)) {
		hf_set_error(hf, -EINVAL,
			     "mmap() of %s: 0x%llx bytes at physical 0x%llx cannot be mapped in pages of %lu bytes",
			     w->name, size, (unsigned long long)w->phys,
			     PAGE_SIZE);
		return -EINVAL;
	}
	return 0;
}

/**
 * hf_bar_vm_fault() - map the faulting page of a BAR mapping.
 * @vmf: the fault
 *
 * Runs under the mmap lock; takes hw_lock for reading (the lock order of
 * hf_drv.h: nothing holds hw_lock while touching user memory).
 *
 * Return: VM_FAULT_NOPAGE when the page is mapped, VM_FAULT_SIGBUS when
 * the card is gone or the page lies outside the window, VM_FAULT_OOM.
 */
static vm_fault_t hf_bar_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct hf_file *hf = vma->vm_private_data;
	struct hf_card *card = hf->card;
	struct hf_bar_window w;
	unsigned long pgoff;
	vm_fault_t ret;

	if (hf_bar_window(hf, &w))
		return VM_FAULT_SIGBUS;
	pgoff = vma->vm_pgoff + ((vmf->address - vma->vm_start) >> PAGE_SHIFT);
	if (pgoff >= w.pages)
		return VM_FAULT_SIGBUS;
	down_read(&card->hw_lock);
	if (card->dead)
		ret = VM_FAULT_SIGBUS;
	else
		ret = hf_vmf_insert_pfn(vma, vmf->address,
					PHYS_PFN(w.phys) + pgoff);
	up_read(&card->hw_lock);
	return ret;
}

static const struct vm_operations_struct hf_bar_vm_ops = {
	.fault = hf_bar_vm_fault,
};

/**
 * hf_mmap() - mmap() of the user node, or of the control node.
 * @file: the file
 * @vma: the new mapping
 *
 * Return: 0; -EPERM (control node opened without CAP_SYS_RAWIO), -ENODEV
 * (another node, or the card is gone), -EINVAL (MAP_PRIVATE, a range
 * beyond the window, a BAR that cannot be mapped in pages); the file's
 * last error says which.
 */
int hf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct hf_file *hf = file->private_data;
	unsigned long pages = vma_pages(vma);
	struct hf_bar_window w;
	int ret;

	if (hf->type == HF_NODE_C2H && hf->card->xdev.stream)
		return hf_stream_mmap(hf, vma);
	if (hf->type == HF_NODE_CONTROL && hf_rawio_check(hf, "mmap"))
		return -EPERM;
	ret = hf_bar_window(hf, &w);
	if (ret)
		return ret;
	/* MAP_SHARED of a read-only file clears VM_SHARED, not VM_MAYSHARE. */
	if (!(vma->vm_flags & VM_MAYSHARE)) {
		hf_set_error(hf, -EINVAL,
			     "mmap() of %s with MAP_PRIVATE: registers are mapped MAP_SHARED only",
			     w.name);
		return -EINVAL;
	}
	if (vma->vm_pgoff >= w.pages || pages > w.pages - vma->vm_pgoff) {
		hf_set_error(hf, -EINVAL,
			     "mmap() of 0x%llx bytes at 0x%llx: beyond %s (0x%llx bytes)",
			     (u64)pages << PAGE_SHIFT,
			     (u64)vma->vm_pgoff << PAGE_SHIFT, w.name,
			     w.pages << PAGE_SHIFT);
		return -EINVAL;
	}
	if (READ_ONCE(hf->card->dead)) {
		hf_set_error(hf, -ENODEV, "mmap() of %s: card removed", w.name);
		return -ENODEV;
	}
	vma->vm_ops = &hf_bar_vm_ops;
	vma->vm_private_data = hf;
	vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	hf_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

/**
 * hf_mmap_zap() - remove every BAR mapping of the card.
 * @card: the card, dead (set under hw_lock, which the fault handler takes)
 *
 * A mapping holds its file open, so walking the open files finds them all,
 * of the user and of the control node; pages are only mapped by the fault
 * handler, which saw the card alive, so after this nothing maps the BARs
 * and a later access faults to SIGBUS.
 */
void hf_mmap_zap(struct hf_card *card)
{
	struct hf_file *hf;

	mutex_lock(&card->files_lock);
	list_for_each_entry(hf, &card->files, node) {
		if (hf->type == HF_NODE_USER || hf->type == HF_NODE_CONTROL)
			unmap_mapping_range(hf->filp->f_mapping, 0, 0, 1);
	}
	mutex_unlock(&card->files_lock);
}
