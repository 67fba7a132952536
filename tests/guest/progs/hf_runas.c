// SPDX-License-Identifier: MIT
/*
 * hf_runas - run a command as another user, with no capabilities (or just
 * the ones named), for the guest tests (busybox has no su fit for it).
 *
 *   hf_runas [-u UID] [-g GID] [-G GID,...] [-c CAP,...] [-b] [-m BYTES] [-n]
 *            [--] COMMAND [ARG...]
 *
 *   -u UID     user ID (real, effective, saved); default 65534
 *   -g GID     group ID (real, effective, saved); default: UID
 *   -G LIST    supplementary groups, comma separated; default none
 *   -c LIST    capabilities to keep, by number (17 = CAP_SYS_RAWIO), as
 *              ambient capabilities, so COMMAND has them; all others go
 *   -b         keep the bounding set: a setuid-root COMMAND gains
 *              capabilities again (default: the bounding set holds only
 *              the -c ones, and UID 0 gets SECBIT_NOROOT, so that neither
 *              setuid programs nor root's exec bring capabilities back)
 *   -m BYTES   RLIMIT_MEMLOCK, soft and hard (K/M/G suffix, or
 *              "unlimited")
 *   -n         PR_SET_NO_NEW_PRIVS
 *
 * Must run as root.  After the switch it checks what it got (IDs, groups,
 * effective and permitted capabilities); file descriptors are inherited
 * as they are.  Exit status: COMMAND's, 125 when the switch failed, 126 or
 * 127 when COMMAND could not be run.
 */
#define _GNU_SOURCE	/* setresuid(), setresgid() */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_GROUPS	64

static void die(const char *what)
{
	fprintf(stderr, "hf_runas: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void usage(void)
{
	fputs("usage: hf_runas [-u UID] [-g GID] [-G GID,...] [-c CAP,...] [-b] [-m BYTES] [-n] [--] COMMAND [ARG...]\n",
	      stderr);
	exit(125);
}

static unsigned long num(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "hf_runas: bad %s '%s'\n", what, s);
		exit(125);
	}
	return v;
}

/* "1,2,3" -> values; returns how many. */
static int list(const char *s, unsigned long *v, int max, const char *what)
{
	char buf[512], *tok, *save;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			fprintf(stderr, "hf_runas: more than %d %s\n", max,
				what);
			exit(125);
		}
		v[n++] = num(tok, what);
	}
	return n;
}

static rlim_t bytes(const char *s)
{
	char *end;
	unsigned long long v;

	if (!strcmp(s, "unlimited"))
		return RLIM_INFINITY;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		usage();
	switch (*end) {
	case 'G': case 'g': v <<= 10;	/* fall through */
	case 'M': case 'm': v <<= 10;	/* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	case '\0': break;
	default: usage();
	}
	if (*end)
		usage();
	return v;
}

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int n = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = CAP_LAST_CAP;
		fclose(f);
	}
	return n;
}

static int capget_raw(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(SYS_capget, &h, d);
}

/* effective = permitted = inheritable = @keep */
static int capset_all(uint64_t keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	for (int i = 0; i < 2; i++) {
		uint32_t w = (uint32_t)(keep >> (32 * i));

		d[i].effective = w;
		d[i].permitted = w;
		d[i].inheritable = w;
	}
	return syscall(SYS_capset, &h, d);
}

int main(int argc, char **argv)
{
	unsigned long uid = 65534, gid = (unsigned long)-1, v[MAX_GROUPS];
	gid_t groups[MAX_GROUPS], got_groups[MAX_GROUPS];
	bool keep_bset = false, nnp = false, set_memlock = false;
	struct __user_cap_data_struct d[2];
	int ngroups = 0, ncaps = 0, c, top, i;
	uint64_t keep = 0, eff, perm;
	rlim_t memlock = 0;

	while ((c = getopt(argc, argv, "+u:g:G:c:bm:n")) != -1) {
		switch (c) {
		case 'u': uid = num(optarg, "UID"); break;
		case 'g': gid = num(optarg, "GID"); break;
		case 'G':
			ngroups = list(optarg, v, MAX_GROUPS, "groups");
			for (i = 0; i < ngroups; i++)
				groups[i] = v[i];
			break;
		case 'c':
			ncaps = list(optarg, v, MAX_GROUPS, "capabilities");
			for (i = 0; i < ncaps; i++) {
				if (v[i] > 63)
					usage();
				keep |= 1ull << v[i];
			}
			break;
		case 'b': keep_bset = true; break;
		case 'm': memlock = bytes(optarg); set_memlock = true; break;
		case 'n': nnp = true; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (gid == (unsigned long)-1)
		gid = uid;
	top = last_cap();

	if (set_memlock) {
		struct rlimit rl = { memlock, memlock };

		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			die("setrlimit(RLIMIT_MEMLOCK)");
	}
	if (!keep_bset) {
		for (i = 0; i <= top; i++)
			if (!(keep >> i & 1) && prctl(PR_CAPBSET_DROP, i, 0, 0, 0))
				die("PR_CAPBSET_DROP");
		/* root's exec would fill the capability sets again */
		if (uid == 0 &&
		    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED,
			  0, 0, 0))
			die("PR_SET_SECUREBITS");
	}
	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		die("PR_SET_KEEPCAPS");
	if (setgroups(ngroups, groups))
		die("setgroups");
	if (setresgid(gid, gid, gid))
		die("setresgid");
	if (setresuid(uid, uid, uid))
		die("setresuid");
	if (capset_all(keep))
		die("capset");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		die("PR_CAP_AMBIENT_CLEAR_ALL");
	for (i = 0; i <= top; i++)
		if (keep >> i & 1 &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, i, 0, 0))
			die("PR_CAP_AMBIENT_RAISE");
	if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");

	/* what we got */
	if (getuid() != uid || geteuid() != uid || getgid() != gid ||
	    getegid() != gid) {
		fprintf(stderr, "hf_runas: IDs are %u/%u:%u/%u, not %lu:%lu\n",
			getuid(), geteuid(), getgid(), getegid(), uid, gid);
		return 125;
	}
	if (getgroups(MAX_GROUPS, got_groups) != ngroups) {
		fprintf(stderr, "hf_runas: supplementary groups not set\n");
		return 125;
	}
	if (capget_raw(d))
		die("capget");
	eff = d[0].effective | (uint64_t)d[1].effective << 32;
	perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	if (eff != keep || perm != keep) {
		fprintf(stderr, "hf_runas: capabilities effective 0x%llx permitted 0x%llx, not 0x%llx\n",
			(unsigned long long)eff, (unsigned long long)perm,
			(unsigned long long)keep);
		return 125;
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "hf_runas: cannot run %s: %s\n", argv[optind],
		strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
