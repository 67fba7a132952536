// SPDX-License-Identifier: MIT
/*
 * hf_regrw - what Xilinx's reg_rw tool (dma_ip_drivers, XDMA tools) does,
 * written for the guest tests: map the page of a register node that holds
 * ADDRESS and read or write it with one byte, halfword or word access.
 *
 *   hf_regrw DEVICE ADDRESS [TYPE [DATA]]
 *
 *   DEVICE   /dev/hellofpgaN_control or /dev/hellofpgaN_user
 *   ADDRESS  byte offset in the BAR (a multiple of 2 for h, of 4 for w)
 *   TYPE     b, h or w (default w)
 *   DATA     with it the access is a write, else a read
 *
 * Like reg_rw: open(O_RDWR | O_SYNC), mmap(MAP_SHARED) of offset + 4 bytes
 * from the page boundary below ADDRESS, one access through the mapping,
 * munmap.  Prints "read8|read16|read32 ADDRESS = VALUE" or "write8|16|32
 * ADDRESS = VALUE" (hex); on failure the failing step and errno, exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long addr, data = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char type = 'w';
	size_t in_page;
	off_t base;
	uint8_t *map;
	int fd, write;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: hf_regrw DEVICE ADDRESS [b|h|w [DATA]]\n");
		return 2;
	}
	addr = strtoull(argv[2], NULL, 0);
	if (argc >= 4)
		type = argv[3][0];
	write = argc == 5;
	if (write)
		data = strtoull(argv[4], NULL, 0);
	if ((type != 'b' && type != 'h' && type != 'w') ||
	    (type == 'h' && addr & 1) || (type == 'w' && addr & 3)) {
		fprintf(stderr, "hf_regrw: bad type '%c' for address 0x%llx\n",
			type, addr);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_SYNC);
	if (fd < 0) {
		printf("open %s failed: %s\n", argv[1], strerror(errno));
		return 1;
	}
	base = (off_t)(addr & ~(unsigned long long)(pg - 1));
	in_page = addr - (unsigned long long)base;
	map = mmap(NULL, in_page + 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   base);
	if (map == MAP_FAILED) {
		printf("mmap of 0x%zx bytes at 0x%llx failed: %s\n",
		       in_page + 4, (unsigned long long)base, strerror(errno));
		close(fd);
		return 1;
	}
	switch (type) {
	case 'b':
		if (write)
			*(volatile uint8_t *)(map + in_page) = (uint8_t)data;
		else
			data = *(volatile uint8_t *)(map + in_page);
		break;
	case 'h':
		if (write)
			*(volatile uint16_t *)(map + in_page) = (uint16_t)data;
		else
			data = *(volatile uint16_t *)(map + in_page);
		break;
	default:
		if (write)
			*(volatile uint32_t *)(map + in_page) = (uint32_t)data;
		else
			data = *(volatile uint32_t *)(map + in_page);
	}
	printf("%s%d 0x%llx = 0x%llx\n", write ? "write" : "read",
	       type == 'b' ? 8 : type == 'h' ? 16 : 32, addr, data);
	munmap(map, in_page + 4);
	close(fd);
	return 0;
}
