// SPDX-License-Identifier: MIT
/*
 * cmd_xfer.c - "hellofpga write" (file -> card memory, H2C) and
 * "hellofpga read" (card memory -> file, C2H), after the XDMA reference
 * tools dma_to_device and dma_from_device.
 *
 * Files move through one page-aligned bounce buffer of at most
 * XFER_CHUNK bytes; each chunk is one DMA_MM call.  The reported
 * throughput counts the time spent in DMA calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

#define XFER_CHUNK	(16u << 20)

/**
 * read_full() - read up to @len bytes, retrying short reads until EOF.
 * Return: bytes read (less than @len only at end of file), or -errno.
 */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/** write_full() - write all @len bytes.  Return: 0 or -errno. */
static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/**
 * skip_input() - move @fd @off bytes forward: lseek() on a regular file,
 * reading and discarding otherwise.
 * Return: 0, -ESPIPE when the input ends first, or -errno.
 */
static int skip_input(int fd, bool seekable, uint64_t off, void *scratch,
		      size_t scratch_len)
{
	if (seekable)
		return lseek(fd, (off_t)off, SEEK_SET) < 0 ? -errno : 0;
	while (off) {
		size_t want = off < scratch_len ? (size_t)off : scratch_len;
		ssize_t n = read_full(fd, scratch, want);

		if (n < 0)
			return (int)n;
		if ((size_t)n < want)
			return -ESPIPE;
		off -= (uint64_t)n;
	}
	return 0;
}

static void print_result(FILE *f, const char *verb, uint64_t bytes,
			 const char *dir, uint64_t addr, const char *chname,
			 int ch, uint64_t dma_ns)
{
	char sz[32];

	fprintf(f, "%s %" PRIu64 " bytes (%s) %s card 0x%" PRIx64
		" on %s channel %d in %.3f ms: %.3f GB/s\n", verb, bytes,
		cli_fmt_size(bytes, sz, sizeof(sz)), dir, addr, chname, ch,
		(double)dma_ns / 1e6, cli_gbps(bytes, dma_ns));
}

static void write_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] write -a ADDR [-c CH] [-s SIZE] [-o FILEOFFSET] FILE\n"
	      "\n"
	      "Copy FILE (or standard input when FILE is '-') to card memory at ADDR\n"
	      "through the H2C DMA engine, and print the bytes moved and the\n"
	      "throughput of the DMA calls.\n"
	      "\n"
	      "  -a, --address ADDR    card address of the first byte (required)\n"
	      "  -c, --channel CH      H2C channel (default 0)\n"
	      "  -s, --size SIZE       bytes to copy (default: the rest of FILE)\n"
	      "  -o, --offset OFFSET   skip OFFSET bytes of FILE first (default 0)\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Sizes and addresses are decimal or 0x hexadecimal, with an optional\n"
	      "K, M or G (binary) suffix: 4096, 0x1000, 64K, 16M, 1G.\n", f);
}

/* What "write" copies: the options, FILE, and what its size says. */
struct wr_args {
	uint64_t addr, size, foff;
	bool have_size;
	int ch;
	const char *path;
	int fd;
	bool seekable;
};

/*
 * write_args() - the options and FILE of "write" into @a.
 * Return: -1 to go on, else the exit status (after --help or a usage
 * error).
 */
static int write_args(int argc, char **argv, struct wr_args *a)
{
	static const struct option opts[] = {
		{ "address", required_argument, NULL, 'a' },
		{ "channel", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "offset", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_addr = false;
	int c;

	while ((c = getopt_long(argc, argv, "a:c:s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (cli_opt_size("write", "-a", optarg, &a->addr))
				return CLI_EXIT_USAGE;
			have_addr = true;
			break;
		case 'c':
			if (cli_opt_channel("write", optarg, &a->ch))
				return CLI_EXIT_USAGE;
			break;
		case 's':
			if (cli_opt_size("write", "-s", optarg, &a->size))
				return CLI_EXIT_USAGE;
			a->have_size = true;
			break;
		case 'o':
			if (cli_opt_size("write", "-o", optarg, &a->foff))
				return CLI_EXIT_USAGE;
			break;
		default:	/* -h or a bad option */
			return cli_opt_help(c, write_usage);
		}
	}
	if (!have_addr) {
		cli_usage_err("write", "the card address (-a ADDR) is required");
		return CLI_EXIT_USAGE;
	}
	if (optind != argc - 1) {
		cli_usage_err("write", optind >= argc ?
			      "no input FILE given ('-' for standard input)" :
			      "exactly one input FILE expected");
		return CLI_EXIT_USAGE;
	}
	a->path = argv[optind];
	return -1;
}

/*
 * open_input() - FILE ('-': standard input) into @a->fd; a regular file's
 * size checks -o and -s, and is the size without -s.
 * Return: 0, or -1 after reporting.
 */
static int open_input(struct wr_args *a)
{
	struct stat st;

	if (!strcmp(a->path, "-")) {
		a->fd = STDIN_FILENO;
		a->path = "(standard input)";
	} else {
		a->fd = open(a->path, O_RDONLY | O_CLOEXEC);
		if (a->fd < 0) {
			cli_err("cannot open '%s': %s", a->path, strerror(errno));
			return -1;
		}
	}
	if (fstat(a->fd, &st)) {
		cli_err("cannot stat '%s': %s", a->path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		uint64_t fsize = (uint64_t)st.st_size;

		a->seekable = true;
		if (a->foff > fsize) {
			cli_err("offset %" PRIu64 " is past the end of '%s' (%"
				PRIu64 " bytes)", a->foff, a->path, fsize);
			return -1;
		}
		if (!a->have_size) {
			a->size = fsize - a->foff;
			a->have_size = true;
		} else if (a->size > fsize - a->foff) {
			cli_err("'%s' has %" PRIu64 " bytes after offset %" PRIu64
				", fewer than the %" PRIu64 " asked for", a->path,
				fsize - a->foff, a->foff, a->size);
			return -1;
		}
	}
	return 0;
}

/*
 * write_chunks() - FILE to the card, a DMA call per chunk of @buf; standard
 * input without -s until its end.  @done: bytes moved, @dma_ns: time in
 * the DMA calls.
 * Return: 0, or -1 after reporting.
 */
static int write_chunks(HELLOFPGA_HANDLE h, const HELLOFPGA_INFO *info,
			const struct wr_args *a, void *buf, size_t chunk,
			uint64_t *done, uint64_t *dma_ns)
{
	for (;;) {
		size_t want = chunk, got = 0;
		uint64_t t0, at = a->addr + *done;
		ssize_t n;
		int ret;

		if (a->have_size && a->size - *done < want)
			want = (size_t)(a->size - *done);
		if (!want)
			return 0;
		n = read_full(a->fd, buf, want);
		if (n < 0) {
			cli_err("cannot read '%s': %s", a->path, strerror((int)-n));
			return -1;
		}
		if (a->have_size && (size_t)n < want) {
			cli_err("'%s' ended after %" PRIu64 " of %" PRIu64
				" bytes", a->path, *done + (uint64_t)n, a->size);
			return -1;
		}
		if (n == 0)
			return 0;
		if (!a->have_size && cli_check_range(info, at, (uint64_t)n))
			return -1;
		t0 = cli_now_ns();
		ret = HelloFPGA_DMA_MM_WriteH2C(h, a->ch, buf, at, (size_t)n,
						&got);
		*dma_ns += cli_now_ns() - t0;
		if (ret) {
			cli_lib_err(h, ret, "H2C write of %zd bytes to card 0x%"
				    PRIx64 " on channel %d", n, at, a->ch);
			return -1;
		}
		if (got != (size_t)n) {
			cli_err("H2C write to card 0x%" PRIx64
				" moved %zu of %zd bytes", at, got, n);
			return -1;
		}
		*done += (uint64_t)n;
		if (!a->have_size && (size_t)n < want)
			return 0;
	}
}

/**
 * cmd_write() - "hellofpga write": FILE (or stdin) -> card memory over H2C,
 * in pieces of at most XFER_CHUNK bytes.
 * @argc: argument count, argv[0] being "write"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int cmd_write(int argc, char **argv)
{
	struct wr_args a = { .fd = -1 };
	uint64_t done = 0, dma_ns = 0;
	int ret, status = CLI_EXIT_FAIL;
	HELLOFPGA_HANDLE h = NULL;
	HELLOFPGA_INFO info;
	size_t chunk;
	void *buf = NULL;

	ret = write_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	if (open_input(&a))
		goto out;
	if (cli_open(&h))
		goto out;
	if (cli_get_info(h, &info) || cli_check_channel(&info, a.ch, true))
		goto out;
	if (a.have_size && cli_check_range(&info, a.addr, a.size))
		goto out;

	chunk = XFER_CHUNK;
	if (a.have_size && a.size < chunk)
		chunk = (size_t)a.size;
	buf = cli_alloc(chunk);
	if (!buf)
		goto out;
	ret = skip_input(a.fd, a.seekable, a.foff, buf, chunk ? chunk : 1);
	if (ret) {
		cli_err("cannot skip %" PRIu64 " bytes of '%s': %s", a.foff,
			a.path, ret == -ESPIPE ? "input too short" :
			strerror(-ret));
		goto out;
	}
	if (write_chunks(h, &info, &a, buf, chunk, &done, &dma_ns))
		goto out;
	print_result(stdout, "wrote", done, "to", a.addr, "H2C", a.ch, dma_ns);
	status = CLI_EXIT_OK;
out:
	free(buf);
	if (h)
		HelloFPGA_Close(h);
	if (a.fd >= 0 && a.fd != STDIN_FILENO)
		close(a.fd);
	return status;
}

static void read_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] read -a ADDR -s SIZE [-c CH] FILE\n"
	      "\n"
	      "Copy SIZE bytes of card memory at ADDR to FILE (standard output when\n"
	      "FILE is '-') through the C2H DMA engine, and print the bytes moved\n"
	      "and the throughput of the DMA calls (on standard error when FILE is\n"
	      "'-').\n"
	      "\n"
	      "  -a, --address ADDR    card address of the first byte (required)\n"
	      "  -s, --size SIZE       bytes to copy (required)\n"
	      "  -c, --channel CH      C2H channel (default 0)\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Sizes and addresses are decimal or 0x hexadecimal, with an optional\n"
	      "K, M or G (binary) suffix: 4096, 0x1000, 64K, 16M, 1G.\n", f);
}

/**
 * cmd_read() - "hellofpga read": card memory -> FILE (or stdout) over C2H,
 * in pieces of at most XFER_CHUNK bytes.
 * @argc: argument count, argv[0] being "read"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int cmd_read(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "address", required_argument, NULL, 'a' },
		{ "channel", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t addr = 0, size = 0, done = 0, dma_ns = 0;
	bool have_addr = false, have_size = false, to_stdout = false;
	int c, ch = 0, fd = -1, ret, status = CLI_EXIT_FAIL;
	HELLOFPGA_HANDLE h = NULL;
	HELLOFPGA_INFO info;
	const char *path;
	size_t chunk;
	void *buf = NULL;

	while ((c = getopt_long(argc, argv, "a:c:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (cli_opt_size("read", "-a", optarg, &addr))
				return CLI_EXIT_USAGE;
			have_addr = true;
			break;
		case 'c':
			if (cli_opt_channel("read", optarg, &ch))
				return CLI_EXIT_USAGE;
			break;
		case 's':
			if (cli_opt_size("read", "-s", optarg, &size))
				return CLI_EXIT_USAGE;
			have_size = true;
			break;
		default:	/* -h or a bad option */
			return cli_opt_help(c, read_usage);
		}
	}
	if (!have_addr || !have_size) {
		cli_usage_err("read", "the card address (-a ADDR) and the size (-s SIZE) are required");
		return CLI_EXIT_USAGE;
	}
	if (optind != argc - 1) {
		cli_usage_err("read", optind >= argc ?
			      "no output FILE given ('-' for standard output)" :
			      "exactly one output FILE expected");
		return CLI_EXIT_USAGE;
	}
	path = argv[optind];

	/* Check the card first: a failed read leaves no empty file behind. */
	if (cli_open(&h))
		return CLI_EXIT_FAIL;
	if (cli_get_info(h, &info) || cli_check_channel(&info, ch, false) ||
	    cli_check_range(&info, addr, size))
		goto out;

	if (!strcmp(path, "-")) {
		fd = STDOUT_FILENO;
		to_stdout = true;
		path = "(standard output)";
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			cli_err("cannot create '%s': %s", path, strerror(errno));
			goto out;
		}
	}

	chunk = size < XFER_CHUNK ? (size_t)size : XFER_CHUNK;
	buf = cli_alloc(chunk);
	if (!buf)
		goto out;
	while (done < size) {
		size_t n = size - done < chunk ? (size_t)(size - done) : chunk;
		size_t got = 0;
		uint64_t t0;

		t0 = cli_now_ns();
		ret = HelloFPGA_DMA_MM_ReadC2H(h, ch, buf, addr + done, n, &got);
		dma_ns += cli_now_ns() - t0;
		if (ret) {
			cli_lib_err(h, ret, "C2H read of %zu bytes from card 0x%"
				    PRIx64 " on channel %d", n, addr + done, ch);
			goto out;
		}
		if (got != n) {
			cli_err("C2H read from card 0x%" PRIx64
				" moved %zu of %zu bytes", addr + done, got, n);
			goto out;
		}
		ret = write_full(fd, buf, n);
		if (ret) {
			cli_err("cannot write '%s': %s", path, strerror(-ret));
			goto out;
		}
		done += n;
	}
	print_result(to_stdout ? stderr : stdout, "read", done, "from", addr,
		     "C2H", ch, dma_ns);
	status = CLI_EXIT_OK;
out:
	free(buf);
	if (h)
		HelloFPGA_Close(h);
	if (fd >= 0 && !to_stdout && close(fd) && status == CLI_EXIT_OK) {
		cli_err("cannot write '%s': %s", path, strerror(errno));
		status = CLI_EXIT_FAIL;
	}
	return status;
}
