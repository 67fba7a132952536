// SPDX-License-Identifier: MIT
/*
 * env.c - "hellofpga doctor": the facts that are not files.  Live, they
 * are asked of the system and of the library; below another root they
 * are read from ROOT/doctor-env, lines KEY=VALUE that --print-env writes
 * (docs/doctor.md, "The environment file").
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "doctor.h"

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static void add_group(struct doc_env *e, long gid, const char *name)
{
	int i;

	for (i = 0; i < e->n_groups; i++)
		if (e->groups[i].gid == gid)
			return;
	if (e->n_groups < DOC_MAX_GROUPS) {
		e->groups[e->n_groups].gid = gid;
		copy(e->groups[e->n_groups].name,
		     sizeof(e->groups[0].name), name);
		e->n_groups++;
	}
}

static void live_group(struct doc_env *e, long gid)
{
	struct group *g = getgrgid(gid);

	if (g)
		add_group(e, gid, g->gr_name);
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct doc_node *)a)->path,
		      ((const struct doc_node *)b)->path);
}

/* The /dev/hellofpga* character devices. */
static void live_nodes(struct doc_env *e)
{
	struct dirent *de;
	DIR *dir = opendir("/dev");

	if (!dir)
		return;
	while ((de = readdir(dir)) && e->n_nodes < DOC_MAX_NODES) {
		struct doc_node *n = &e->nodes[e->n_nodes];
		struct stat st;

		if (strncmp(de->d_name, "hellofpga", 9))
			continue;
		snprintf(n->path, sizeof(n->path), "/dev/%.80s", de->d_name);
		if (stat(n->path, &st) || !S_ISCHR(st.st_mode))
			continue;
		n->mode = st.st_mode & 07777;
		n->uid = st.st_uid;
		n->gid = st.st_gid;
		live_group(e, n->gid);
		e->n_nodes++;
	}
	closedir(dir);
	qsort(e->nodes, e->n_nodes, sizeof(e->nodes[0]), node_cmp);
}

/* What the library makes of the first card: its ABI, or why not. */
static void live_card(struct doc *d)
{
	struct doc_env *e = &d->env;
	char name[96] = "";
	HELLOFPGA_INFO info;
	HELLOFPGA_HANDLE h;
	int i, ret;

	for (i = 0; i < e->n_nodes && !*name; i++) {
		size_t n = strlen(e->nodes[i].path);

		if (n > 8 && !strcmp(e->nodes[i].path + n - 8, "_control"))
			snprintf(name, sizeof(name), "%.*s", (int)(n - 8),
				 e->nodes[i].path);
	}
	if (cli_device && !strncmp(cli_device, "/dev/", 5))
		copy(name, sizeof(name), cli_device);
	if (!*name)
		return;
	ret = HelloFPGA_Open(name, &h);
	if (ret) {
		snprintf(e->card_error, sizeof(e->card_error), "%s: %s: %s",
			 name, HelloFPGA_StrError(ret),
			 HelloFPGA_GetLastError(NULL));
		e->card_errno = -ret;
		return;
	}
	if (!HelloFPGA_GetInfo(h, &info)) {
		snprintf(e->abi, sizeof(e->abi), "%u.%u",
			 info.abi_version >> 16, info.abi_version & 0xffff);
		e->features = info.features;
		e->features_known = true;
	}
	HelloFPGA_Close(h);
}

/* What the library sees of the GPU; a real one unless HELLOFPGA_GPU says. */
static void live_gpu(struct doc_env *e)
{
	static const char *const platform[] = { "none", "tegra", "desktop" };
	HELLOFPGA_GPU_STATUS st;

	setenv("HELLOFPGA_GPU", "cuda", 0);
	if (HelloFPGA_GetGPUStatus(&st))
		return;
	e->gpu_known = true;
	copy(e->gpu_platform, sizeof(e->gpu_platform),
	     st.platform >= 0 && st.platform <= 2 ? platform[st.platform] :
						    "none");
	e->gpu_emulated = st.emulated;
	copy(e->gpu_name, sizeof(e->gpu_name), st.name);
	copy(e->gpu_pci, sizeof(e->gpu_pci), st.pci_bus_id);
	copy(e->gpu_reason, sizeof(e->gpu_reason), st.reason);
	e->cuda_driver = st.cuda_driver_version;
	e->rdma_supported = st.rdma_supported;
	e->dmabuf_supported = st.dmabuf_supported;
}

/**
 * doc_env_live() - gather the environment of this process and machine.
 * @d: the run (root "/")
 */
void doc_env_live(struct doc *d)
{
	struct doc_env *e = &d->env;
	gid_t gids[DOC_MAX_GIDS - 1];
	struct rlimit rl;
	struct utsname u;
	int i, n;

	e->known = true;
	e->uid = getuid();
	e->gids[e->n_gids++] = getgid();
	n = getgroups(DOC_MAX_GIDS - 1, gids);
	for (i = 0; i < n; i++)
		if (gids[i] != getgid())
			e->gids[e->n_gids++] = gids[i];
	for (i = 0; i < e->n_gids; i++)
		live_group(e, e->gids[i]);
	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		e->memlock = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX :
							    rl.rlim_cur;
		e->memlock_known = true;
	}
	if (!uname(&u))
		copy(e->kernel, sizeof(e->kernel), u.release);
	live_nodes(e);
	if (doc_exists(d, "/sys/module/hellofpga"))
		live_card(d);
	live_gpu(e);
}

/* parse_long: all of @s as a number (C base prefixes), nothing after it */
static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 0);
	return errno || end == s || *end ? -EINVAL : 0;
}

/* parse_u64: as parse_long, unsigned: a digit first (strtoull would take
 * " -1" as 2^64 - 1)
 */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int load_gids(struct doc_env *e, char *v)
{
	char *tok, *save = NULL;
	long gid;

	for (tok = strtok_r(v, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		if (parse_long(tok, &gid))
			return -EINVAL;
		if (e->n_gids < DOC_MAX_GIDS)
			e->gids[e->n_gids++] = gid;
	}
	return 0;
}

static int load_node(struct doc_env *e, const char *v)
{
	struct doc_node *n = &e->nodes[e->n_nodes];
	int end = 0;

	if (e->n_nodes >= DOC_MAX_NODES)
		return 0;
	if (sscanf(v, "%95s %o %ld %ld %n", n->path, &n->mode, &n->uid,
		   &n->gid, &end) != 4 || v[end])
		return -EINVAL;
	e->n_nodes++;
	return 0;
}

static int load_key(struct doc_env *e, const char *k, char *v)
{
	long n;

	if (!strcmp(k, "uid"))
		return parse_long(v, &e->uid);
	if (!strcmp(k, "gids"))
		return load_gids(e, v);
	if (!strcmp(k, "memlock")) {
		uint64_t m;

		if (!strcmp(v, "unlimited"))
			m = UINT64_MAX;
		else if (cli_parse_size(v, &m))
			return -EINVAL;
		e->memlock = m;
		e->memlock_known = true;
	} else if (!strcmp(k, "kernel")) {
		copy(e->kernel, sizeof(e->kernel), v);
	} else if (!strcmp(k, "node")) {
		return load_node(e, v);
	} else if (!strcmp(k, "group")) {
		char name[64];
		int end = 0;

		if (sscanf(v, "%ld %63s %n", &n, name, &end) != 2 || v[end])
			return -EINVAL;
		add_group(e, n, name);
	} else if (!strcmp(k, "abi")) {
		copy(e->abi, sizeof(e->abi), v);
	} else if (!strcmp(k, "features")) {
		if (parse_u64(v, &e->features))
			return -EINVAL;
		e->features_known = true;
	} else if (!strcmp(k, "card_error")) {
		copy(e->card_error, sizeof(e->card_error), v);
	} else if (!strcmp(k, "card_errno")) {
		if (parse_long(v, &n))
			return -EINVAL;
		e->card_errno = n;
	} else if (!strncmp(k, "gpu_", 4) || !strcmp(k, "cuda_driver") ||
		   !strcmp(k, "rdma_supported") ||
		   !strcmp(k, "dmabuf_supported")) {
		e->gpu_known = true;
		if (!strcmp(k, "gpu_platform"))
			copy(e->gpu_platform, sizeof(e->gpu_platform), v);
		else if (!strcmp(k, "gpu_name"))
			copy(e->gpu_name, sizeof(e->gpu_name), v);
		else if (!strcmp(k, "gpu_pci"))
			copy(e->gpu_pci, sizeof(e->gpu_pci), v);
		else if (!strcmp(k, "gpu_reason"))
			copy(e->gpu_reason, sizeof(e->gpu_reason), v);
		else if (parse_long(v, &n))
			return -EINVAL;
		else if (!strcmp(k, "gpu_emulated"))
			e->gpu_emulated = n;
		else if (!strcmp(k, "cuda_driver"))
			e->cuda_driver = n;
		else if (!strcmp(k, "rdma_supported"))
			e->rdma_supported = n;
		else if (!strcmp(k, "dmabuf_supported"))
			e->dmabuf_supported = n;
	}
	return 0;	/* keys of later versions are left alone */
}

/**
 * doc_env_load() - read the environment from file @path (ROOT/doctor-env).
 * @d: the run
 * @path: the file, not below the root
 *
 * A missing file leaves the environment unknown: the checks that need it
 * are skipped.
 *
 * Return: 0 (also for a missing file), or -EINVAL after reporting a line
 * that does not parse.
 */
int doc_env_load(struct doc *d, const char *path)
{
	struct doc_env *e = &d->env;
	char line[512];
	int lineno = 0;
	FILE *f;

	e->rdma_supported = -1;
	e->dmabuf_supported = -1;
	f = fopen(path, "r");
	if (!f)
		return 0;
	e->known = true;
	while (fgets(line, sizeof(line), f)) {
		char *eq, *k = line + strspn(line, " \t");

		lineno++;
		k[strcspn(k, "\r\n")] = '\0';
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (eq)
			*eq = '\0';
		if (!eq || load_key(e, k, eq + 1)) {
			cli_err("doctor: %s:%d: not KEY=VALUE of a known form",
				path, lineno);
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	return 0;
}

/**
 * doc_env_print() - write @e in the doctor-env format (--print-env).
 * @e: the facts
 * @f: where to
 */
void doc_env_print(const struct doc_env *e, FILE *f)
{
	int i;

	fprintf(f, "# hellofpga doctor --print-env (docs/doctor.md)\n");
	fprintf(f, "uid=%ld\ngids=", e->uid);
	for (i = 0; i < e->n_gids; i++)
		fprintf(f, "%s%ld", i ? " " : "", e->gids[i]);
	fputc('\n', f);
	if (e->memlock_known && e->memlock == UINT64_MAX)
		fprintf(f, "memlock=unlimited\n");
	else if (e->memlock_known)
		fprintf(f, "memlock=%" PRIu64 "\n", e->memlock);
	fprintf(f, "kernel=%s\n", e->kernel);
	for (i = 0; i < e->n_nodes; i++)
		fprintf(f, "node=%s %04o %ld %ld\n", e->nodes[i].path,
			e->nodes[i].mode, e->nodes[i].uid, e->nodes[i].gid);
	for (i = 0; i < e->n_groups; i++)
		fprintf(f, "group=%ld %s\n", e->groups[i].gid,
			e->groups[i].name);
	if (*e->abi)
		fprintf(f, "abi=%s\n", e->abi);
	if (e->features_known)
		fprintf(f, "features=0x%" PRIx64 "\n", e->features);
	if (*e->card_error)
		fprintf(f, "card_error=%s\ncard_errno=%d\n", e->card_error,
			e->card_errno);
	if (!e->gpu_known)
		return;
	fprintf(f, "gpu_platform=%s\ngpu_emulated=%d\ngpu_name=%s\n"
		   "gpu_pci=%s\ngpu_reason=%s\ncuda_driver=%d\n"
		   "rdma_supported=%d\ndmabuf_supported=%d\n",
		e->gpu_platform, e->gpu_emulated, e->gpu_name, e->gpu_pci,
		e->gpu_reason, e->cuda_driver, e->rdma_supported,
		e->dmabuf_supported);
}

/**
 * doc_group_name() - "NAME" of group @gid, else its number.
 * Return: @buf.
 */
const char *doc_group_name(const struct doc_env *e, long gid, char *buf,
			   size_t len)
{
	int i;

	for (i = 0; i < e->n_groups; i++)
		if (e->groups[i].gid == gid) {
			snprintf(buf, len, "%s", e->groups[i].name);
			return buf;
		}
	snprintf(buf, len, "%ld", gid);
	return buf;
}
