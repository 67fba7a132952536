// SPDX-License-Identifier: MIT
/*
 * cmd_events.c - "hellofpga events": wait for user interrupts (usr_irq_req
 * of the XDMA IP) and print each as it arrives; raise them on a card of the
 * hellofpga reference design (HF_USER_IRQ_SET, then HF_USER_IRQ_CLEAR).
 *
 * One thread: the descriptors of HelloFPGA_UserIRQ_GetFd() in one poll(),
 * and HelloFPGA_UserIRQ_Wait(h, U, 0) takes the count of each readable one.
 * SIGINT and SIGTERM end the wait (their handler only sets a flag, and
 * interrupts the poll()).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "commands.h"
#include "hf_user_regs.h"

static volatile sig_atomic_t events_stop;

static void events_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] events [--irq U[,U...] | --all] [--count N]\n"
	      "                 [--timeout MS] [--json] [--raise U[,U...]]\n"
	      "\n"
	      "Wait for user interrupts (the usr_irq_req lines of the XDMA IP, 0..15)\n"
	      "and print each as it arrives, until --count of them arrived, none\n"
	      "arrived for --timeout MS, or Ctrl-C.  The first wait for an interrupt\n"
	      "enables it; a delivery masks it until it is taken, so requests in\n"
	      "between coalesce into one (COUNT is the deliveries since the last).\n"
	      "\n"
	      "  -i, --irq U[,U...]    the user interrupts to wait for (default: all)\n"
	      "  -a, --all             all 16\n"
	      "  -n, --count N         stop after N interrupts (default: no limit)\n"
	      "  -t, --timeout MS      stop when none arrives for MS milliseconds\n"
	      "  -j, --json            one JSON object per line (JSON Lines)\n"
	      "  -r, --raise U[,U...]  raise these user interrupts on a card of the\n"
	      "                        hellofpga reference design: write 1 << U to\n"
	      "                        HF_USER_IRQ_PULSE (user BAR 0x001c: one\n"
	      "                        interrupt; a design before 1.1: HF_USER_IRQ_SET,\n"
	      "                        0x000c, then HF_USER_IRQ_CLEAR, 0x0010, a level\n"
	      "                        each take may see again).  Alone: raise and\n"
	      "                        exit.  With --irq, --all, --count or --timeout:\n"
	      "                        enable the waited ones, raise, then wait (an\n"
	      "                        emulated card's registers are its process's:\n"
	      "                        raise and wait in one command there)\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "Output, one line per interrupt: 'SECONDS irq=U count=COUNT', SECONDS\n"
	      "since the command started; with --json {\"time_s\":SECONDS,\"irq\":U,\n"
	      "\"count\":COUNT}.  --raise reports 'raised user interrupt U', on\n"
	      "standard error when it also waits.\n"
	      "\n"
	      "Exit status: 0; 1 when --count was given and fewer arrived before the\n"
	      "timeout or Ctrl-C, or a call failed (poll mode has no user interrupts);\n"
	      "2 for a bad command line.\n", f);
}

/* "U[,U...]", each 0..15, into a bit mask; -EINVAL when malformed. */
static int parse_irqs(const char *s, uint32_t *mask)
{
	char buf[128], *tok = buf, *comma;
	int u;

	if (!s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", s);
	*mask = 0;
	do {
		comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		/* every piece a number: "", ",3", "3,,4" and "3," are not */
		if (cli_parse_int(tok, 0, HELLOFPGA_USER_IRQS - 1, &u))
			return -EINVAL;
		*mask |= 1u << u;
		tok = comma + 1;
	} while (comma);
	return 0;
}

static void on_stop(int sig)
{
	(void)sig;
	events_stop = 1;
}

/* SIGINT / SIGTERM end the wait: no SA_RESTART, so poll() returns EINTR. */
static void catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * Raise each interrupt of @mask: a pulse on the reference design's lines,
 * each reported on @out.
 */
static int raise_irqs(HELLOFPGA_HANDLE h, uint32_t mask, FILE *out)
{
	uint32_t version = 0;
	bool pulse;
	int ret;

	ret = cli_need_refdesign(h, "events --raise",
				 "raise the design's interrupts through its own registers (hellofpga reg)",
				 &version);
	if (ret)
		return ret;
	/* a pulse is one interrupt; SET then CLEAR on a 1.0 design */
	pulse = version >= HF_USER_VERSION_PULSE;
	for (int u = 0; u < HELLOFPGA_USER_IRQS; u++) {
		if (!(mask & (1u << u)))
			continue;
		if (pulse) {
			ret = HelloFPGA_UserWrite32(h, HF_USER_IRQ_PULSE,
						    1u << u);
		} else {
			ret = HelloFPGA_UserWrite32(h, HF_USER_IRQ_SET,
						    1u << u);
			if (!ret)
				ret = HelloFPGA_UserWrite32(h,
							    HF_USER_IRQ_CLEAR,
							    1u << u);
		}
		if (ret) {
			cli_lib_err(h, ret, "cannot raise user interrupt %d",
				    u);
			return ret;
		}
		fprintf(out, "raised user interrupt %d\n", u);
	}
	return 0;
}

static void print_event(bool json, uint64_t t0, int u, uint32_t count)
{
	double s = (double)(cli_now_ns() - t0) / 1e9;

	if (json)
		printf("{\"time_s\":%.6f,\"irq\":%d,\"count\":%" PRIu32 "}\n",
		       s, u, count);
	else
		printf("%.6f irq=%d count=%" PRIu32 "\n", s, u, count);
	fflush(stdout);
}

/* Wait for the interrupts of @mask; the exit status. */
static int listen(HELLOFPGA_HANDLE h, uint32_t mask, uint32_t raise,
		  long long want, int timeout_ms, bool json)
{
	struct pollfd pfd[HELLOFPGA_USER_IRQS];
	int irq_of[HELLOFPGA_USER_IRQS];
	long long got = 0;
	uint64_t t0;
	nfds_t n = 0;
	int ret;

	for (int u = 0; u < HELLOFPGA_USER_IRQS; u++) {
		int fd;

		if (!(mask & (1u << u)))
			continue;
		ret = HelloFPGA_UserIRQ_GetFd(h, u, &fd);
		if (ret) {
			cli_lib_err(h, ret, "cannot wait for user interrupt %d",
				    u);
			return CLI_EXIT_FAIL;
		}
		pfd[n] = (struct pollfd){ .fd = fd, .events = POLLIN };
		irq_of[n++] = u;
	}
	catch_stop();
	t0 = cli_now_ns();
	if (raise && raise_irqs(h, raise, stderr))
		return CLI_EXIT_FAIL;
	while (!events_stop && (want < 0 || got < want)) {
		ret = poll(pfd, n, timeout_ms);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			cli_err("poll() of the user interrupts failed: %s",
				strerror(errno));
			return CLI_EXIT_FAIL;
		}
		if (!ret)
			break;	/* none for timeout_ms */
		for (nfds_t i = 0; i < n && (want < 0 || got < want); i++) {
			uint32_t count;

			if (!pfd[i].revents)
				continue;
			ret = HelloFPGA_UserIRQ_Wait(h, irq_of[i], 0, &count);
			if (ret == -ETIMEDOUT)
				continue;	/* another process took it */
			if (ret) {
				cli_lib_err(h, ret,
					    "cannot take user interrupt %d",
					    irq_of[i]);
				return CLI_EXIT_FAIL;
			}
			print_event(json, t0, irq_of[i], count);
			got++;
		}
	}
	if (want >= 0 && got < want) {
		cli_err("%lld of %lld user interrupt%s arrived%s", got, want,
			want == 1 ? "" : "s",
			events_stop ? " (stopped)" :
			" (none arrived for the --timeout)");
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/**
 * cmd_events() - "hellofpga events": wait for user interrupts and print
 * them, or raise them.
 * @argc: argument count, argv[0] being "events"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "irq", required_argument, NULL, 'i' },
		{ "all", no_argument, NULL, 'a' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "raise", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t mask = 0, raise = 0;
	bool wait_given = false, json = false;
	int c, count = -1, timeout_ms = -1, ret;
	HELLOFPGA_HANDLE h;

	while ((c = getopt_long(argc, argv, "+i:an:t:jr:h", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'i':
			if (parse_irqs(optarg, &mask)) {
				cli_usage_err("events",
					      "bad --irq '%s': user interrupts 0..15, separated by commas",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			wait_given = true;
			break;
		case 'a':
			mask = (1u << HELLOFPGA_USER_IRQS) - 1;
			wait_given = true;
			break;
		case 'n':
			if (cli_parse_int(optarg, 1, INT_MAX, &count)) {
				cli_usage_err("events",
					      "bad --count '%s': 1 or more",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			wait_given = true;
			break;
		case 't':
			if (cli_parse_int(optarg, 0, INT_MAX, &timeout_ms)) {
				cli_usage_err("events",
					      "bad --timeout '%s': milliseconds, 0 or more",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			wait_given = true;
			break;
		case 'j':
			json = true;
			break;
		case 'r':
			if (parse_irqs(optarg, &raise)) {
				cli_usage_err("events",
					      "bad --raise '%s': user interrupts 0..15, separated by commas",
					      optarg);
				return CLI_EXIT_USAGE;
			}
			break;
		default:
			return cli_opt_help(c, events_usage);
		}
	}
	if (cli_no_operand("events", argc, argv))
		return CLI_EXIT_USAGE;
	if (!mask)
		mask = (1u << HELLOFPGA_USER_IRQS) - 1;
	if (cli_open(&h))
		return CLI_EXIT_FAIL;
	if (raise && !wait_given) {
		ret = raise_irqs(h, raise, stdout) ? CLI_EXIT_FAIL :
						     CLI_EXIT_OK;
		HelloFPGA_Close(h);
		return ret;
	}
	ret = listen(h, mask, raise, count, timeout_ms, json);
	HelloFPGA_Close(h);
	return ret;
}
