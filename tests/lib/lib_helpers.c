// SPDX-License-Identifier: MIT
/* lib_helpers.c - shared helpers of the library tests. */
#include "lib_helpers.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "hf_lib.h"
#include "hf_test.h"
#include "hf_number.h"

static char emu_dir[64];

static void remove_emu_dir(void)
{
	char cmd[128];

	if (!emu_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", emu_dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", emu_dir);
}

const char *t_emu_dir(void)
{
	if (emu_dir[0])
		return emu_dir;
	strcpy(emu_dir, "/tmp/hf-test-XXXXXX");
	if (!mkdtemp(emu_dir)) {
		perror("mkdtemp");
		exit(2);
	}
	setenv("HELLOFPGA_EMU_DIR", emu_dir, 1);
	atexit(remove_emu_dir);
	return emu_dir;
}

/* A number of the card names' grammar (lib/hf_number.c); 0 when malformed. */
static uint64_t parse_num(const char *s, unsigned int flags)
{
	uint64_t v;

	return hf_parse_number(s, flags, UINT64_MAX, &v) ? 0 : v;
}

static const char *irq_name(uint32_t mode)
{
	switch (mode) {
	case HELLOFPGA_IRQ_POLL: return "poll";
	case HELLOFPGA_IRQ_LEGACY: return "legacy";
	case HELLOFPGA_IRQ_MSI: return "msi";
	case HELLOFPGA_IRQ_MSIX: return "msix";
	}
	return "?";
}

/*
 * open_test_card() - HF_TEST_CARD @card in place of the emulated @name, when
 * @name asks only for what a driver card has (see lib_helpers.h).
 */
static HELLOFPGA_HANDLE open_test_card(const char *name, const char *card)
{
	static long card_no = -1;
	uint64_t ddr = 2ull << 30;
	unsigned long h2c = 4, c2h = 4, align = 1;
	const char *irq = NULL, *p = name + 3;
	bool private = false;
	char opts[256], *tok, *save;
	HELLOFPGA_HANDLE h = NULL;
	HELLOFPGA_INFO info;
	long no = 0;
	int ret;

	if (*p == ':') {
		char num[16];
		size_t n = strcspn(p + 1, ",");

		snprintf(num, sizeof(num), "%.*s", (int)n, p + 1);
		no = parse_num(num, 0);
		p += 1 + n;
	}
	if (card_no >= 0 && no != card_no)
		HF_SKIP("needs a second emulated card (emu:%ld besides emu:%ld)",
			no, card_no);
	snprintf(opts, sizeof(opts), "%s", *p == ',' ? p + 1 : "");
	for (tok = strtok_r(opts, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "private"))
			private = true;
		else if (!strncmp(tok, "h2c=", 4))
			h2c = parse_num(tok + 4, 0);
		else if (!strncmp(tok, "c2h=", 4))
			c2h = parse_num(tok + 4, 0);
		else if (!strncmp(tok, "ddr=", 4))
			ddr = parse_num(tok + 4, HF_NUM_SIZE);
		else if (!strncmp(tok, "align=", 6))
			align = parse_num(tok + 6, HF_NUM_SIZE);
		else if (!strncmp(tok, "irq=", 4))
			irq = tok + 4;
		else
			HF_SKIP("needs the emulated card's '%s' (%s)", tok, name);
	}
	if (!private)
		HF_SKIP("needs the emulated card's shared-card semantics (%s is not private)",
			name);
	ret = HelloFPGA_Open(card, &h);
	HF_CHECK_MSG(ret == 0, "HelloFPGA_Open(%s) for %s = %d (%s): %s", card,
		     name, ret, HelloFPGA_StrError(ret),
		     HelloFPGA_GetLastError(NULL));
	HF_CHECK_EQ(HelloFPGA_GetInfo(h, &info), 0);
	card_no = no;
	if (info.num_h2c != h2c || info.num_c2h != c2h) {
		HelloFPGA_Close(h);
		HF_SKIP("needs the emulated card's h2c=%lu,c2h=%lu (%s has %u+%u)",
			h2c, c2h, card, info.num_h2c, info.num_c2h);
	}
	if (!ddr || ddr > info.ddr_size) {
		HelloFPGA_Close(h);
		HF_SKIP("needs the emulated card's ddr of %s (%s has 0x%llx bytes)",
			name, card, (unsigned long long)info.ddr_size);
	}
	if (irq && strcmp(irq, irq_name(info.irq_mode))) {
		HelloFPGA_Close(h);
		HF_SKIP("needs the emulated card's irq=%s (%s completes by %s)",
			irq, card, irq_name(info.irq_mode));
	}
	if (align != info.addr_align) {
		HelloFPGA_Close(h);
		HF_SKIP("needs the emulated card's align=%lu (%s aligns to %u)",
			align, card, info.addr_align);
	}
	/* the first @ddr bytes of the card: the library's range checks use it */
	HF_CHECK_EQ(hf_test_limit_ddr(h, ddr), 0);
	return h;
}

HELLOFPGA_HANDLE t_open(const char *name)
{
	const char *card = getenv("HF_TEST_CARD");
	HELLOFPGA_HANDLE h = NULL;
	int ret;

	t_emu_dir();
	if (card && *card && !strncmp(name, "emu", 3) &&
	    (!name[3] || name[3] == ':' || name[3] == ','))
		return open_test_card(name, card);
	ret = HelloFPGA_Open(name, &h);
	HF_CHECK_MSG(ret == 0, "HelloFPGA_Open(%s) = %d (%s): %s", name, ret,
		     HelloFPGA_StrError(ret), HelloFPGA_GetLastError(NULL));
	return h;
}

int t_card_is_emulated(HELLOFPGA_HANDLE h)
{
	HELLOFPGA_INFO info;

	HF_CHECK_EQ(HelloFPGA_GetInfo(h, &info), 0);
	return info.backend == HELLOFPGA_BACKEND_EMULATED;
}

void t_need_emulated(HELLOFPGA_HANDLE h, const char *what)
{
	if (!t_card_is_emulated(h))
		HF_SKIP("needs the emulated card's %s", what);
}

static inline uint8_t pattern_byte(size_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;

	return (uint8_t)(x >> 13 ^ x >> 5 ^ i >> 12);
}

void t_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(i, seed);
}

long t_check(const void *buf, size_t len, uint32_t seed)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(i, seed))
			return (long)i;
	return -1;
}

static char watchdog_msg[256];

static void watchdog_fire(int sig)
{
	ssize_t r = write(2, watchdog_msg, strlen(watchdog_msg));

	(void)sig;
	(void)r;
	_exit(1);
}

void t_watchdog(unsigned int seconds, const char *what)
{
	struct sigaction sa;

	snprintf(watchdog_msg, sizeof(watchdog_msg),
		 "FAIL: still not done after %u s (a hang): %s\n", seconds,
		 what);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fire;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

void t_watchdog_off(void)
{
	alarm(0);
}

uint64_t t_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}
