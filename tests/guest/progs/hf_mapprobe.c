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
 * "PASS hotplug/mmap-..." or "FAIL hotplug/mmap-...: why"; exit status 1
 * when one failed.
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
	int fd[MAX_NODES], n = argc - 1, i, p, failed = 0;
	struct sigaction sa;
	char line[16];
	uint32_t v;

	if (n < 1 || n > MAX_NODES) {
		fprintf(stderr, "usage: hf_mapprobe NODE...\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	for (i = 0; i < n; i++) {
		name[i] = strrchr(argv[i + 1], '_') ? strrchr(argv[i + 1], '_') + 1 :
			  argv[i + 1];
		fd[i] = open(argv[i + 1], O_RDWR | O_CLOEXEC);
		map[i] = fd[i] < 0 ? MAP_FAILED :
			 mmap(NULL, PAGES * pg, PROT_READ, MAP_SHARED, fd[i], 0);
		if (map[i] == MAP_FAILED) {
			printf("FAIL hotplug/mmap-%s: %s: %s\n", name[i],
			       argv[i + 1], strerror(errno));
			return 1;
		}
		if (probe(map[i], &v)) {
			printf("FAIL hotplug/mmap-%s: SIGBUS before the removal\n",
			       name[i]);
			return 1;
		}
		printf("PASS hotplug/mmap-%s-before: page 0 reads 0x%08x\n",
		       name[i], v);
	}
	printf("READY\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	for (i = 0; i < n; i++) {
		for (p = 0; p < PAGES; p++) {
			int bus = probe(map[i] + p * pg / 4, &v);

			printf("%s hotplug/mmap-%s-page%d-sigbus: %s\n",
			       bus ? "PASS" : "FAIL", name[i], p,
			       bus ? (p ? "the untouched page faults to SIGBUS" :
				      "the mapped page was zapped: SIGBUS") :
			       "read without SIGBUS after the removal");
			failed |= !bus;
		}
		munmap((void *)map[i], PAGES * pg);
		map[i] = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd[i], 0);
		v = map[i] == MAP_FAILED && errno == ENODEV;
		printf("%s hotplug/mmap-%s-after-removal: %s\n",
		       v ? "PASS" : "FAIL", name[i],
		       map[i] == MAP_FAILED ? strerror(errno) : "mapped");
		failed |= !v;
		close(fd[i]);
	}
	return failed;
}
