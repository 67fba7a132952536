// SPDX-License-Identifier: MIT
/*
 * cmd_info.c - "hellofpga info": what the card is and what it has done.
 */
#include <getopt.h>
#include <inttypes.h>

#include "commands.h"
#include "uapi/hellofpga.h"

static void info_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] info\n"
	      "\n"
	      "Show the card: name, backend, DMA channels, card memory, XDMA IP\n"
	      "version, engine alignment, interrupt mode, timeout, user BAR size,\n"
	      "library and driver versions (with a kernel driver: the PCI address\n"
	      "and IDs, its ABI version and feature bits), and the handle's\n"
	      "counters (and the emulated card's own counters when the card is\n"
	      "emulated, with its DMA faults: DMA to bus addresses its IOMMU did\n"
	      "not map).\n", f);
}

/**
 * cmd_info() - "hellofpga info": print GetInfo() and GetCounters().
 * @argc: argument count, argv[0] being "info"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	HELLOFPGA_DMA_FAULTS df;
	HELLOFPGA_COUNTERS cnt;
	HELLOFPGA_LINK_MODEL lm;
	HELLOFPGA_PCI_INFO pci;
	HELLOFPGA_INFO info;
	HELLOFPGA_HANDLE h;
	char sz[32];
	int c, ret;

	c = getopt_long(argc, argv, "h", opts, NULL);
	if (c != -1)	/* -h or a bad option */
		return cli_opt_help(c, info_usage);
	if (cli_no_operand("info", argc, argv))
		return CLI_EXIT_USAGE;

	if (cli_open(&h))
		return CLI_EXIT_FAIL;
	if (cli_get_info(h, &info)) {
		HelloFPGA_Close(h);
		return CLI_EXIT_FAIL;
	}
	ret = HelloFPGA_GetPCIInfo(h, &pci);
	if (!ret)
		ret = HelloFPGA_GetCounters(h, &cnt);
	if (!ret)
		ret = HelloFPGA_GetLinkModel(h, &lm);
	if (ret) {
		cli_lib_err(h, ret, "cannot read PCI info, counters or link model");
		HelloFPGA_Close(h);
		return CLI_EXIT_FAIL;
	}

	printf("card:              %s\n", info.name);
	printf("backend:           %s\n", info.backend_name);
	printf("H2C channels:      %d\n", info.num_h2c);
	printf("C2H channels:      %d\n", info.num_c2h);
	printf("card memory:       %s (0x%" PRIx64 " bytes)\n",
	       cli_fmt_size(info.ddr_size, sz, sizeof(sz)), info.ddr_size);
	printf("XDMA IP version:   0x%02" PRIx32 "\n", info.ip_version);
	printf("address alignment: %" PRIu32 " bytes\n", info.addr_align);
	printf("length granule:    %" PRIu32 " bytes\n", info.len_granularity);
	printf("interrupts:        %s\n", cli_irq_name(info.irq_mode));
	printf("timeout:           %d ms\n", info.timeout_ms);
	if (lm.enabled)
		printf("link model:        %s\n", lm.text);
	printf("user BAR:          %s (0x%" PRIx64 " bytes)\n",
	       cli_fmt_size(pci.user_bar_size, sz, sizeof(sz)),
	       pci.user_bar_size);
	if (pci.valid)
		printf("PCI device:        %04" PRIx32 ":%02" PRIx32 ":%02" PRIx32
		       ".%" PRIx32 " (%04" PRIx32 ":%04" PRIx32 ")\n",
		       pci.domain, pci.bus, pci.device, pci.function,
		       pci.vendor_id, pci.device_id);
	printf("library version:   %s\n", info.lib_version);
	printf("driver version:    %s\n",
	       info.driver_version[0] ? info.driver_version : "(none)");
	if (info.backend == HELLOFPGA_BACKEND_KERNEL) {
		printf("driver ABI:        %" PRIu32 ".%" PRIu32 "\n",
		       info.abi_version >> 16, info.abi_version & 0xffff);
		printf("driver features:   0x%" PRIx64 "%s%s%s%s%s%s%s%s%s%s%s\n",
		       info.features,
		       info.features & HELLOFPGA_FEAT_PIN_HOST ? " pin-host" : "",
		       info.features & HELLOFPGA_FEAT_PIN_NVP2P ? " pin-nvp2p" : "",
		       info.features & HELLOFPGA_FEAT_PIN_NVP2P_PERSISTENT ? " pin-nvp2p-persistent" : "",
		       info.features & HELLOFPGA_FEAT_PIN_TEGRA ? " pin-tegra" : "",
		       info.features & HELLOFPGA_FEAT_PIN_DMABUF ? " pin-dmabuf" : "",
		       info.features & HELLOFPGA_FEAT_POLL_MODE ? " poll-mode" : "",
		       info.features & HELLOFPGA_FEAT_USER_EVENTS ? " user-events" : "",
		       info.features & HELLOFPGA_FEAT_STREAM ? " stream" : "",
		       info.features & HELLOFPGA_FEAT_STREAM_H2C ? " stream-h2c" : "",
		       info.features & HELLOFPGA_FEAT_XFER_WB ? " xfer-wb" : "",
		       info.features & HELLOFPGA_FEAT_STREAM_WB_PIN ? " stream-wb-pin" : "");
	}
	printf("counters:\n");
	printf("  transfers:       %" PRIu64 "\n", cnt.transfers);
	printf("  bytes H2C:       %" PRIu64 "\n", cnt.bytes_h2c);
	printf("  bytes C2H:       %" PRIu64 "\n", cnt.bytes_c2h);
	printf("  errors:          %" PRIu64 "\n", cnt.errors);
	printf("  timeouts:        %" PRIu64 "\n", cnt.timeouts);
	if (cnt.model_valid) {
		printf("emulated card counters:\n");
		printf("  MMIO reads:      %" PRIu64 "\n", cnt.mmio_reads);
		printf("  MMIO writes:     %" PRIu64 "\n", cnt.mmio_writes);
		printf("  descriptors:     %" PRIu64 "\n", cnt.desc_fetched);
		printf("  interrupts:      %" PRIu64 "\n", cnt.irqs);
		printf("  writebacks:      %" PRIu64 "\n", cnt.wb_writes);
	}
	if (!HelloFPGA_GetDMAFaults(h, &df)) {
		printf("  DMA faults:      %" PRIu64, df.faults);
		if (df.faults)
			printf(" (last at bus address 0x%" PRIx64 ")",
			       df.last_fault_bus);
		printf("\n  DMA errors:      %" PRIu64 "\n", df.dma_errors);
	}

	HelloFPGA_Close(h);
	return CLI_EXIT_OK;
}
