// SPDX-License-Identifier: MIT
/*
 * util.c - helpers shared by the hellofpga commands: messages, argument
 * parsing, opening the card, aligned buffers, time and the progress line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hf_number.h"
#include "hf_user_regs.h"

const char *cli_device;

/*
 * Print "hellofpga: <message>[: <err>[: <detail>]]" and a newline on stderr
 * in one piece; an empty @detail is left out.
 */
static void __attribute__((format(printf, 3, 0)))
cli_vmsg(const char *err, const char *detail, const char *fmt, va_list ap)
{
	flockfile(stderr);
	fputs("hellofpga: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", err);
	if (detail && *detail)
		fprintf(stderr, ": %s", detail);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/**
 * cli_err() - print "hellofpga: <message>" on stderr.
 * @fmt: printf format of the message
 */
void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(NULL, NULL, fmt, ap);
	va_end(ap);
}

/**
 * cli_lib_err() - report a failed library call.
 * @h: the handle the call used, or NULL (HelloFPGA_Open())
 * @err: the negative errno it returned
 * @fmt: printf format saying what failed
 *
 * Prints "hellofpga: <what failed>: <StrError(err)>: <GetLastError(h)>",
 * leaving out the last part when the library has no detail to add.
 */
void cli_lib_err(HELLOFPGA_HANDLE h, int err, const char *fmt, ...)
{
	const char *detail = HelloFPGA_GetLastError(h);
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(HelloFPGA_StrError(err), detail, fmt, ap);
	va_end(ap);
}

/**
 * cli_usage_err() - report a bad command line.
 * @cmd: the command, or NULL for the global options
 * @fmt: printf format of the message
 *
 * Prints the message and a hint to the command's --help.
 */
void cli_usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("hellofpga: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hellofpga %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
}

/**
 * cli_parse_size() - parse a size or address: a size of the one number
 * grammar (README.md, "Numbers"): decimal or 0x-prefixed hexadecimal,
 * optionally followed by a binary multiplier K, M, G or T.
 * @s: the argument
 * @out: receives the value
 *
 * Return: 0, or -EINVAL when @s is not a valid size, -ERANGE on overflow.
 */
int cli_parse_size(const char *s, uint64_t *out)
{
	return hf_parse_number(s, HF_NUM_SIZE, UINT64_MAX, out);
}

/**
 * cli_parse_u32() - parse a 32-bit register offset or value (a number of
 * the one grammar, no suffix).
 * Return: 0, -EINVAL or -ERANGE.
 */
int cli_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	int ret = hf_parse_number(s, 0, UINT32_MAX, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

/**
 * cli_parse_int() - parse a count or index in [@min, @max] (a number of the
 * one grammar, no suffix; @min >= 0).
 * Return: 0, -EINVAL or -ERANGE.
 */
int cli_parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;
	int ret = hf_parse_number(s, 0, max < 0 ? 0 : (uint64_t)max, &v);

	if (ret)
		return ret;
	if ((int64_t)v < min)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

/**
 * cli_opt_size() - parse the size argument of option @opt, reporting a bad
 * one as a usage error.
 * Return: 0 or -EINVAL.
 */
int cli_opt_size(const char *cmd, const char *opt, const char *arg,
		 uint64_t *out)
{
	int ret = cli_parse_size(arg, out);

	if (ret == -ERANGE)
		cli_usage_err(cmd, "%s: size '%s' is too large", opt, arg);
	else if (ret)
		cli_usage_err(cmd,
			      "%s: bad size '%s' (expected e.g. 4096, 0x1000, 64K, 16M, 1G: README.md, \"Numbers\")",
			      opt, arg);
	return ret ? -EINVAL : 0;
}

/**
 * cli_opt_channel() - parse a -c CHANNEL argument (0..255; the card's real
 * count is checked once it is open).
 * Return: 0 or -EINVAL.
 */
int cli_opt_channel(const char *cmd, const char *arg, int *out)
{
	if (cli_parse_int(arg, 0, 255, out)) {
		cli_usage_err(cmd, "-c: bad channel '%s' (expected 0, 1, ...)",
			      arg);
		return -EINVAL;
	}
	return 0;
}

/**
 * cli_opt_help() - the last case of a command's getopt switch: -h, or an
 * option the command does not know (getopt has said which).
 * @c: what getopt_long() returned
 * @usage: prints the command's usage
 *
 * Return: CLI_EXIT_OK after printing the usage on stdout for -h, else
 * CLI_EXIT_USAGE after printing it on stderr.
 */
int cli_opt_help(int c, void (*usage)(FILE *f))
{
	if (c == 'h') {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	usage(stderr);
	return CLI_EXIT_USAGE;
}

/**
 * cli_no_operand() - after the getopt loop of a command that takes no
 * operand: refuse one.
 * Return: 0, or -EINVAL after a usage error.
 */
int cli_no_operand(const char *cmd, int argc, char **argv)
{
	if (optind < argc) {
		cli_usage_err(cmd, "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/**
 * cli_open_name() - open card @name, reporting a failure.
 * Return: 0 or the negative errno of HelloFPGA_Open().
 */
int cli_open_name(const char *name, HELLOFPGA_HANDLE *h)
{
	int ret = HelloFPGA_Open(name, h);

	if (ret)
		cli_lib_err(NULL, ret, "cannot open card '%s'",
			    name && *name ? name : "(default)");
	return ret;
}

/** cli_open() - open the card chosen with -d (or the default card). */
int cli_open(HELLOFPGA_HANDLE *h)
{
	return cli_open_name(cli_device, h);
}

/** cli_get_info() - HelloFPGA_GetInfo(), reporting a failure. */
int cli_get_info(HELLOFPGA_HANDLE h, HELLOFPGA_INFO *info)
{
	int ret = HelloFPGA_GetInfo(h, info);

	if (ret)
		cli_lib_err(h, ret, "cannot read card information");
	return ret;
}

/**
 * cli_need_refdesign() - before @what uses registers of the hellofpga
 * reference design (refdesign/hf_user_regs.h): check that the card's user
 * BAR identifies as that design (HF_USER_ID reads HF_USER_ID_VALUE), so
 * that no register of another design is written.
 * @what: what needs the design, the start of the message ("stream")
 * @hint: what to do instead, the end of the message, or NULL
 * @version: receives HF_USER_VERSION, or NULL
 *
 * Return: 0; -EOPNOTSUPP after "hellofpga: WHAT: EOPNOTSUPP: ...: the
 * card's user BAR does not identify as the hellofpga reference design
 * (HF_USER_ID 0x... != 0x48465047)[; HINT]" (also when the BAR is too
 * small to have HF_USER_ID); another error of a read after its message.
 */
int cli_need_refdesign(HELLOFPGA_HANDLE h, const char *what, const char *hint,
		       uint32_t *version)
{
	char id_text[32] = "none: the BAR is too small";
	uint32_t id = 0;
	int ret = HelloFPGA_UserRead32(h, HF_USER_ID, &id);

	if (!ret && id == HF_USER_ID_VALUE) {
		if (!version)
			return 0;
		ret = HelloFPGA_UserRead32(h, HF_USER_VERSION, version);
		if (ret)
			cli_lib_err(h, ret, "%s: cannot read the user BAR's HF_USER_VERSION",
				    what);
		return ret;
	}
	if (ret && ret != -EINVAL) {
		cli_lib_err(h, ret, "%s: cannot read the user BAR's HF_USER_ID",
			    what);
		return ret;
	}
	if (!ret)
		snprintf(id_text, sizeof(id_text), "0x%08" PRIx32, id);
	cli_err("%s: %s: the card's user BAR does not identify as the hellofpga reference design (HF_USER_ID %s != 0x%08x)%s%s",
		what, HelloFPGA_StrError(-EOPNOTSUPP), id_text,
		HF_USER_ID_VALUE, hint ? "; " : "", hint ? hint : "");
	return -EOPNOTSUPP;
}

/**
 * cli_check_channel() - check that the card has channel @ch.
 * @info: the card
 * @ch: channel number
 * @h2c: true for an H2C channel, false for C2H
 *
 * Return: 0, or -ECHRNG after printing which channels exist.
 */
int cli_check_channel(const HELLOFPGA_INFO *info, int ch, bool h2c)
{
	int n = h2c ? info->num_h2c : info->num_c2h;

	if (ch >= 0 && ch < n)
		return 0;
	cli_err("channel %d out of range: %s has %d %s channel%s (0..%d)", ch,
		info->name, n, h2c ? "H2C" : "C2H", n == 1 ? "" : "s", n - 1);
	return -ECHRNG;
}

/**
 * cli_check_range() - check that [@addr, @addr + @len) lies in card memory.
 * Return: 0, or -ERANGE after saying why not.
 */
int cli_check_range(const HELLOFPGA_INFO *info, uint64_t addr, uint64_t len)
{
	char sz[32];

	if (addr <= info->ddr_size && len <= info->ddr_size - addr)
		return 0;
	cli_err("range 0x%" PRIx64 " + 0x%" PRIx64
		" is past the end of card memory (%s, 0x%" PRIx64 " bytes)",
		addr, len, cli_fmt_size(info->ddr_size, sz, sizeof(sz)),
		info->ddr_size);
	return -ERANGE;
}

/** cli_irq_name() - name of a HELLOFPGA_IRQ_* mode. */
const char *cli_irq_name(int irq_mode)
{
	switch (irq_mode) {
	case HELLOFPGA_IRQ_POLL:
		return "poll";
	case HELLOFPGA_IRQ_LEGACY:
		return "legacy";
	case HELLOFPGA_IRQ_MSI:
		return "msi";
	case HELLOFPGA_IRQ_MSIX:
		return "msix";
	default:
		return "unknown";
	}
}

/**
 * cli_alloc() - a zeroed, page-aligned (4096) host buffer.
 * Return: the buffer (free with free()), or NULL after reporting.
 */
void *cli_alloc(size_t size)
{
	void *p = NULL;
	char sz[32];
	int ret;

	ret = posix_memalign(&p, HF_BUF_ALIGN, size ? size : 1);
	if (ret) {
		cli_err("cannot allocate %s of host memory: %s",
			cli_fmt_size(size, sz, sizeof(sz)), strerror(ret));
		return NULL;
	}
	memset(p, 0, size);
	return p;
}

/** cli_now_ns() - CLOCK_MONOTONIC in nanoseconds. */
uint64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** cli_gbps() - @bytes in @ns as GB/s (10^9 bytes per second). */
double cli_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / (double)ns : 0.0;
}

/**
 * cli_fmt_size() - format @bytes as "4 KiB", "64 MiB", "1.50 GiB", "123 B".
 * Return: @buf.
 */
const char *cli_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int i = 0;
	uint64_t v = bytes;

	while (i < 4 && v >= 1024 && !(v & 1023)) {
		v >>= 10;
		i++;
	}
	if (i > 0 || bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " %s", v, unit[i]);
		return buf;
	}
	{
		double d = (double)bytes;

		i = 0;
		while (i < 4 && d >= 1024.0) {
			d /= 1024.0;
			i++;
		}
		snprintf(buf, len, "%.2f %s", d, unit[i]);
	}
	return buf;
}

/* Draw the progress line; called with p->lock held. */
static void progress_draw(struct cli_progress *p, uint64_t now)
{
	double secs = (double)(now - p->start_ns) / 1e9;

	if (p->total)
		fprintf(stderr, "%s%s %5.1f%% (%.1f s)%s", p->tty ? "\r" : "",
			p->label, 100.0 * (double)p->done / (double)p->total,
			secs, p->tty ? "\033[K" : "\n");
	else
		fprintf(stderr, "%s%s (%.1f s)%s", p->tty ? "\r" : "",
			p->label, secs, p->tty ? "\033[K" : "\n");
	fflush(stderr);
	p->shown = true;
	p->last_ns = now;
}

static void *progress_thread(void *arg)
{
	struct cli_progress *p = arg;
	/* A terminal gets a live line; a log gets a line every 5 s. */
	uint64_t every = p->tty ? 200000000ull : 5000000000ull;
	struct timespec ts;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		uint64_t now = cli_now_ns();

		if (now - p->start_ns > 1000000000ull &&
		    (!p->shown || now - p->last_ns >= every))
			progress_draw(p, now);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * cli_progress_start() - start a progress line for @total units of work
 * (0: no percentage).  Nothing is drawn during the first second.
 */
void cli_progress_start(struct cli_progress *p, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->total = total;
	p->tty = isatty(STDERR_FILENO);
	p->start_ns = cli_now_ns();
	snprintf(p->label, sizeof(p->label), "working");
	p->running = !pthread_create(&p->thread, NULL, progress_thread, p);
}

/** cli_progress_add() - @n more units done; any thread may call it. */
void cli_progress_add(struct cli_progress *p, uint64_t n)
{
	pthread_mutex_lock(&p->lock);
	p->done += n;
	pthread_mutex_unlock(&p->lock);
}

/** cli_progress_label() - set what the progress line says is running. */
void cli_progress_label(struct cli_progress *p, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&p->lock);
	va_start(ap, fmt);
	vsnprintf(p->label, sizeof(p->label), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&p->lock);
}

/** cli_progress_stop() - stop the thread and clear a live line. */
void cli_progress_stop(struct cli_progress *p)
{
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		p->running = false;
	}
	if (p->shown && p->tty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}

/**
 * cli_open_or_emu() - open the card for demo and test: -d or
 * HELLOFPGA_DEVICE when given; otherwise the first hardware card, and on a
 * machine without one the emulated card (saying so).
 * Return: 0 or a negative errno (reported).
 */
int cli_open_or_emu(HELLOFPGA_HANDLE *h)
{
	const char *env = getenv("HELLOFPGA_DEVICE");
	int ret;

	if (cli_device || (env && *env))
		return cli_open(h);
	ret = HelloFPGA_Open(NULL, h);
	if (ret == -ENODEV) {
		printf("no hardware card found; running on the emulated card (emu)\n");
		fflush(stdout);
		return cli_open_name("emu", h);
	}
	if (ret)
		cli_lib_err(NULL, ret, "cannot open the default card");
	return ret;
}

/**
 * cli_report_gpu() - the GPU a test or bench report runs on.
 * @cmd: the command, for the message
 * @info: the card
 * @gs: receives HelloFPGA_GetGPUStatus()
 *
 * On a hardware card a report passes only on a real GPU, unless the
 * emulated one (or none) was asked for with HELLOFPGA_GPU=emu, emu-tegra
 * or none: left to itself (auto) the library falls back to its emulated
 * GPU where CUDA is not usable, which would pass a hardware test that
 * never touched a GPU.  So the GPU is detected with CUDA insisted on
 * (HELLOFPGA_GPU=cuda for the detection only), and without a real GPU the
 * command stops, saying why CUDA is not usable.  An emulated card takes
 * whatever GPU HELLOFPGA_GPU gives.
 *
 * Return: 0, CLI_EXIT_FAIL (no status) or CLI_EXIT_NO_GPU, reported.
 */
int cli_report_gpu(const char *cmd, const HELLOFPGA_INFO *info,
		   HELLOFPGA_GPU_STATUS *gs)
{
	const char *mode = getenv("HELLOFPGA_GPU");
	bool hw = info->backend != HELLOFPGA_BACKEND_EMULATED;
	bool asked = mode && (!strcmp(mode, "emu") ||
			      !strcmp(mode, "emu-tegra") ||
			      !strcmp(mode, "none"));
	bool forced = hw && (!mode || !*mode || !strcmp(mode, "auto"));
	int ret;

	if (forced)
		setenv("HELLOFPGA_GPU", "cuda", 1);
	ret = HelloFPGA_GetGPUStatus(gs);
	if (forced)
		unsetenv("HELLOFPGA_GPU");
	if (ret) {
		cli_lib_err(NULL, ret, "cannot detect the GPU");
		return CLI_EXIT_FAIL;
	}
	if (!hw || asked ||
	    (gs->platform != HELLOFPGA_PLATFORM_NONE && !gs->emulated))
		return 0;
	cli_err("%s: %s is a hardware card and there is no real GPU (%s%s): nothing to report on; HELLOFPGA_GPU=emu runs on the library's emulated GPU, HELLOFPGA_GPU=none without a GPU",
		cmd, info->name,
		gs->platform == HELLOFPGA_PLATFORM_NONE ? "CUDA is not usable: " :
		"the GPU is the library's emulated one",
		gs->platform == HELLOFPGA_PLATFORM_NONE ? gs->reason : "");
	return CLI_EXIT_NO_GPU;
}

/**
 * cli_parse_duration() - a duration option: one or more parts NUMBER UNIT,
 * NUMBER decimal with an optional fraction, UNIT ms, s, m, h or d ("90s",
 * "10m", "1h30m", "1.5h", "250ms"); a lone NUMBER is seconds.
 * @s: the text
 * @max_s: the longest allowed, in seconds
 * @ns: receives the duration in nanoseconds
 *
 * Return: 0, -EINVAL (malformed) or -ERANGE (longer than @max_s).
 */
int cli_parse_duration(const char *s, uint64_t max_s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
		{ "d", 86400e9 },
	};
	double total = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		double v, mult = 0;
		char *end;

		if ((*p < '0' || *p > '9') && *p != '.')
			return -EINVAL;
		errno = 0;
		v = strtod(p, &end);
		if (errno || end == p || v < 0)
			return -EINVAL;
		if (!*end && p == s)
			mult = 1e9;	/* plain seconds */
		for (size_t i = 0; !mult && i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].unit);

			if (!strncmp(end, units[i].unit, n) &&
			    (end[n] < 'a' || end[n] > 'z')) {
				mult = units[i].ns;
				end += n;
			}
		}
		if (!mult)
			return -EINVAL;	/* "1h30": a unit missing */
		total += v * mult;
		if (total > (double)max_s * 1e9)
			return -ERANGE;
		p = end;
	}
	*ns = (uint64_t)total;
	return 0;
}
