// SPDX-License-Identifier: MIT
/*
 * checks_gpu.c - "hellofpga doctor": the NVIDIA kernel module, CUDA's
 * GPU Direct attributes, and which of the driver's GPU memory providers
 * (nvidia_p2p for desktop GPUs or Tegra, dma-buf) can serve a pin.
 *
 * Both NVIDIA module flavours export nvidia_p2p; exporting GPU memory as
 * a dma-buf (cuMemGetHandleForAddressRange) needs the open kernel modules
 * (NVIDIA GPU Operator documentation, "GPUDirect RDMA": DMA-BUF is
 * supported with the open kernel modules only).
 */
#include <string.h>
#include <stdlib.h>

#include "doctor.h"
#include "uapi/hellofpga.h"

#define NV_VERSION_FILE	"/proc/driver/nvidia/version"

/* Which NVIDIA module: "open", "proprietary", "tegra" or NULL none. */
static const char *nvidia_flavour(struct doc *d, char *ver, size_t len)
{
	char *text;
	const char *f = NULL;

	ver[0] = '\0';
	if (doc_exists(d, "/sys/module/nvgpu")) {
		snprintf(ver, len, "nvgpu");
		return "tegra";
	}
	if (!doc_exists(d, "/sys/module/nvidia"))
		return NULL;
	if (doc_read_line(d, "/sys/module/nvidia/version", ver, len))
		snprintf(ver, len, "unknown");
	text = doc_read_all(d, NV_VERSION_FILE, NULL);
	if (text)
		f = strstr(text, "Open Kernel Module") ? "open" : "proprietary";
	free(text);
	return f ? f : "unknown";
}

/** doc_check_nvidia() - an NVIDIA kernel module, open or proprietary. */
void doc_check_nvidia(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "nvidia", "NVIDIA kernel module");
	char ver[64], line[DOC_LINE] = "";
	const char *f = nvidia_flavour(d, ver, sizeof(ver));

	if (doc_read_line(d, NV_VERSION_FILE, line, sizeof(line)) == 0)
		doc_evidence(c, NV_VERSION_FILE ": %s", line);
	if (!f) {
		doc_evidence(c, "/sys/module/nvidia, /sys/module/nvgpu: missing");
		doc_verdict(c, DOC_FAIL, "no NVIDIA kernel module loaded: no GPU Direct");
		doc_fix(c, "install the NVIDIA driver, the open kernel modules for dma-buf (Debian/Ubuntu: nvidia-open or nvidia-driver-<ver>-open), then sudo modprobe nvidia");
		return;
	}
	if (!strcmp(f, "tegra")) {
		doc_evidence(c, "/sys/module/nvgpu: present");
		doc_verdict(c, DOC_OK, "Tegra GPU driver (nvgpu): nvidia_p2p of L4T");
		return;
	}
	doc_evidence(c, "/sys/module/nvidia/version: %s", ver);
	if (!strcmp(f, "open"))
		doc_verdict(c, DOC_OK, "NVIDIA %s, open kernel modules: nvidia_p2p and dma-buf export",
			    ver);
	else if (!strcmp(f, "proprietary"))
		doc_verdict(c, DOC_OK, "NVIDIA %s, proprietary kernel module: nvidia_p2p only, no dma-buf export",
			    ver);
	else
		doc_verdict(c, DOC_OK, "NVIDIA %s (flavour unknown: no " NV_VERSION_FILE ")",
			    ver);
}

/** doc_check_cuda() - CUDA's GPU_DIRECT_RDMA and DMA_BUF attributes. */
void doc_check_cuda(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "cuda",
					    "CUDA GPU Direct attributes");
	const struct doc_env *e = &d->env;
	bool rdma = e->rdma_supported == 1, dmabuf = e->dmabuf_supported == 1;

	if (!e->gpu_known) {
		doc_verdict(c, DOC_SKIP, "no CUDA facts (no gpu_* in doctor-env)");
		return;
	}
	if (e->gpu_emulated) {
		doc_verdict(c, DOC_SKIP, "the library's emulated GPU is selected (HELLOFPGA_GPU=%s)",
			    getenv("HELLOFPGA_GPU") ? getenv("HELLOFPGA_GPU") : "emu");
		doc_fix(c, "unset HELLOFPGA_GPU for the real GPU");
		return;
	}
	if (!strcmp(e->gpu_platform, "none") || !*e->gpu_platform) {
		doc_evidence(c, "HelloFPGA_GetGPUStatus(): %s", e->gpu_reason);
		doc_verdict(c, DOC_FAIL, "no CUDA GPU: %s", e->gpu_reason);
		doc_fix(c, "install the NVIDIA driver's libcuda.so.1 and check nvidia-smi lists the GPU");
		return;
	}
	doc_evidence(c, "HelloFPGA_GetGPUStatus(): %s (%s), %s, CUDA driver %d",
		     e->gpu_name, *e->gpu_pci ? e->gpu_pci : "PCI address unknown",
		     e->gpu_platform, e->cuda_driver);
	doc_evidence(c, "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: %d",
		     e->rdma_supported);
	doc_evidence(c, "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: %d",
		     e->dmabuf_supported);
	if (*e->gpu_reason)
		doc_evidence(c, "the library: %s", e->gpu_reason);
	if (rdma && dmabuf) {
		doc_verdict(c, DOC_OK, "%s supports GPU Direct RDMA and dma-buf",
			    e->gpu_name);
	} else if (rdma || dmabuf) {
		doc_verdict(c, DOC_WARN, "%s supports %s only", e->gpu_name,
			    rdma ? "GPU Direct RDMA (nvidia_p2p), not dma-buf" :
				   "dma-buf, not GPU Direct RDMA (nvidia_p2p)");
		doc_fix(c, "%s", rdma ?
			"dma-buf export needs the open kernel modules and a kernel with dma-buf peer-to-peer (see \"nvidia\", \"kconfig\")" :
			"GPU Direct RDMA needs a data-center or professional GPU and driver (NVIDIA's GPUDirect RDMA documentation)");
	} else {
		doc_verdict(c, DOC_FAIL, "%s supports neither GPU Direct RDMA nor dma-buf",
			    e->gpu_name);
		doc_fix(c, "GPU Direct needs a GPU and driver that support it (NVIDIA's GPUDirect RDMA documentation); the traditional path through host memory still works");
	}
}

/** doc_check_providers() - which GPU memory providers can pin. */
void doc_check_providers(struct doc *d)
{
	struct doc_check *c = doc_check_new(d, "providers",
					    "GPU Direct providers usable");
	const struct doc_env *e = &d->env;
	char ver[64], usable[DOC_LINE] = "";
	const char *f = nvidia_flavour(d, ver, sizeof(ver));
	bool drv = doc_exists(d, "/sys/module/hellofpga");
	bool nvp2p = doc_exists(d, "/sys/module/hellofpga_nvp2p");
	bool tegra = (f && !strcmp(f, "tegra")) ||
		     !strcmp(e->gpu_platform, "tegra");
	bool p2p_ok, dmabuf_ok;

	if (e->features_known) {
		doc_evidence(c, "GET_INFO features: 0x%llx (nvidia_p2p %s, Tegra %s, dma-buf %s)",
			     (unsigned long long)e->features,
			     e->features & HELLOFPGA_FEAT_PIN_NVP2P ? "yes" : "no",
			     e->features & HELLOFPGA_FEAT_PIN_TEGRA ? "yes" : "no",
			     e->features & HELLOFPGA_FEAT_PIN_DMABUF ? "yes" : "no");
		p2p_ok = e->features & (tegra ? HELLOFPGA_FEAT_PIN_TEGRA :
						HELLOFPGA_FEAT_PIN_NVP2P);
		dmabuf_ok = e->features & HELLOFPGA_FEAT_PIN_DMABUF;
	} else {
		p2p_ok = drv && nvp2p && f;
		dmabuf_ok = drv;
	}
	doc_evidence(c, "/sys/module/hellofpga: %s; /sys/module/hellofpga_nvp2p: %s",
		     drv ? "loaded" : "missing", nvp2p ? "loaded" : "missing");
	p2p_ok = p2p_ok && f && e->rdma_supported != 0;
	dmabuf_ok = dmabuf_ok && f && !strcmp(f, "open") &&
		    e->dmabuf_supported != 0;
	if (p2p_ok)
		snprintf(usable, sizeof(usable), "nvidia_p2p (%s)",
			 tegra ? "Tegra" : "desktop");
	if (dmabuf_ok)
		snprintf(usable + strlen(usable), sizeof(usable) - strlen(usable),
			 "%sdma-buf", *usable ? ", " : "");
	if (*usable) {
		doc_verdict(c, DOC_OK, "%s", usable);
		return;
	}
	doc_verdict(c, DOC_FAIL, "none: GPU memory cannot be pinned for the card");
	if (!drv)
		doc_fix(c, "load hellofpga.ko (see \"driver\")");
	else if (!f)
		doc_fix(c, "load the NVIDIA driver (see \"nvidia\")");
	else if (!nvp2p)
		doc_fix(c, "make -C driver/nvp2p NVIDIA_SRC_DIR=/usr/src/nvidia-<ver> && sudo insmod driver/nvp2p/hellofpga-nvp2p.ko (README, \"The kernel driver\")%s",
			strcmp(f, "open") ? "; dma-buf needs the open kernel modules" : "");
	else
		doc_fix(c, "see \"cuda\": the GPU offers neither path");
}
