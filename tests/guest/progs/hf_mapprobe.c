// SPDX-License-Identifier: MIT
/*
 * hf_mapprobe - BAR mappings across a removal of the card, for the hotplug
 * test of cases/faults.sh.
 *
 *   hf_mapprobe NODE...
 *
 * Maps the first two pages of each NODE (a _user or _control node;
 * MAP_SHARED), reads page 0 of each (so it is mapped), prints "READY" and
 * waits for a line on standard input: meanwhile the card is removed.  Then
 * every access must raise SIGBUS, the touched page 0 (zapped by the
 * removal) and the untouched page 1 (never mapped) alike, and a new mmap()
 * of the still open file must fail with ENODEV.  One line per check:
 * "PASS hotplug/mmap-..." or "FAIL hotplug/mmap-...: why" (hf_guest.h);
 * exit status 1 when one failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hf_guest.h"

#define MAX_NODES	4
#define PAGES		2

static sigjmp_buf env;
static volatile sig_atomic_t in_probe;

static void on_sigbus(int sig)
{
	if (in_probe)
		siglongjmp(env, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read a word; returns 1 when it raised SIGBUS, 0 when it did not. */
static int probe(volatile uint32_t *p, uint32_t *v)
{
	if (sigsetjmp(env, 1)) {
		in_probe = 0;
		return 1;
	}
	in_probe = 1;
	*v = *p;
	in_probe = 0;
	return 0;
}

int main(int argc, char **argv)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint32_t *map[MAX_NODES];
	const char *name[MAX_NODES];
	int fd[MAX_NODES], n = argc - 1, i, p;
	struct sigaction sa;
	char line[16], check[64];
	uint32_t v;

	if (n < 1 || n > MAX_NODES) {
		fprintf(stderr, "usage: hf_mapprobe NODE...\n");
		return 2;
	}
	hfg_group = "hotplug";
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < n; i++) {
		name[i] = strrchr(argv[i + 1], '_') ? strrchr(argv[i + 1], '_') + 1 :
			  argv[i + 1];
		snprintf(check, sizeof(check), "mmap-%s", name[i]);
		fd[i] = open(argv[i + 1], O_RDWR | O_CLOEXEC);
		map[i] = fd[i] < 0 ? MAP_FAILED :
			 mmap(NULL, PAGES * pg, PROT_READ, MAP_SHARED, fd[i], 0);
		if (map[i] == MAP_FAILED) {
			HFG_FAIL(check, "%s: %s", argv[i + 1], strerror(errno));
			return 1;
		}
		if (probe(map[i], &v)) {
			HFG_FAIL(check, "SIGBUS before the removal");
			return 1;
		}
		snprintf(check, sizeof(check), "mmap-%s-before", name[i]);
		HFG_PASS(check, "page 0 reads 0x%08x", v);
	}
	printf("READY\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	for (i = 0; i < n; i++) {
		for (p = 0; p < PAGES; p++) {
			int bus = probe(map[i] + p * pg / 4, &v);

			snprintf(check, sizeof(check), "mmap-%s-page%d-sigbus",
				 name[i], p);
			hfg_expect(bus, check, "%s", !bus ?
				   "read without SIGBUS after the removal" : p ?
				   "the untouched page faults to SIGBUS" :
				   "the mapped page was zapped: SIGBUS");
		}
		munmap((void *)map[i], PAGES * pg);
		snprintf(check, sizeof(check), "mmap-%s-after-removal",
			 name[i]);
		map[i] = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd[i], 0);
		hfg_expect(map[i] == MAP_FAILED && errno == ENODEV, check, "%s",
			   map[i] == MAP_FAILED ? strerror(errno) : "mapped");
		close(fd[i]);
	}
	return hfg_exit();
}
