// SPDX-License-Identifier: GPL-2.0-or-later OR MIT
/*
 * hf_rtl_load.c - finds and loads the reference design's RTL co-simulation
 * plugin (hf_rtl_load.h).
 */
#include "hf_rtl_load.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder of the object that holds this code, into @dir; false if none. */
static bool self_dir(char *dir, size_t n)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)hf_rtl_load, &info) || !info.dli_fname)
		return false;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return false;
	return snprintf(dir, n, "%.*s", (int)(slash - info.dli_fname),
			info.dli_fname) < (int)n;
}

/* Load @path into @p: 0 or -ENOEXEC with @err set. */
static int load_file(struct hf_rtl_plugin *p, const char *path, char *err,
		     size_t errlen)
{
	const struct xdma_user_plugin *pl;
	void *dl;

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(err, errlen, "cannot load the RTL plugin: %s",
			 dlerror());
		return -ENOEXEC;
	}
	pl = dlsym(dl, XDMA_USER_PLUGIN_SYMBOL);
	if (!pl || pl->abi != XDMA_USER_PLUGIN_ABI || !pl->ops) {
		snprintf(err, errlen,
			 "%s is not a user-logic plugin of this version (%s; want ABI %u)",
			 path, pl ? "another ABI" : "no " XDMA_USER_PLUGIN_SYMBOL,
			 XDMA_USER_PLUGIN_ABI);
		dlclose(dl);
		return -ENOEXEC;
	}
	p->dl = dl;
	p->ops = pl->ops;
	p->about = pl->about ? pl->about : pl->ops->name;
	return 0;
}

int hf_rtl_load(struct hf_rtl_plugin *p, char *err, size_t errlen)
{
	const char *env = getenv(HF_RTL_PLUGIN_ENV);
	char dir[PATH_MAX], path[PATH_MAX + 64];

	memset(p, 0, sizeof(*p));
	if (env && *env)
		return load_file(p, env, err, errlen);
	if (self_dir(dir, sizeof(dir))) {
		/* beside a shared library; or a program in bin/ of the build */
		snprintf(path, sizeof(path), "%s/hellofpga/%s", dir,
			 HF_RTL_PLUGIN_FILE);
		if (!access(path, F_OK))
			return load_file(p, path, err, errlen);
		snprintf(path, sizeof(path), "%s/../lib/hellofpga/%s", dir,
			 HF_RTL_PLUGIN_FILE);
		if (!access(path, F_OK))
			return load_file(p, path, err, errlen);
	}
#ifdef HF_RTL_PLUGIN_DIR
	snprintf(path, sizeof(path), "%s/%s", HF_RTL_PLUGIN_DIR,
		 HF_RTL_PLUGIN_FILE);
	if (!access(path, F_OK))
		return load_file(p, path, err, errlen);
#endif
	snprintf(err, errlen,
		 "the RTL co-simulation plugin %s is not installed (build with Verilator: cmake -DHF_RTL=ON, docs/refdesign.md), nor named by $%s",
		 HF_RTL_PLUGIN_FILE, HF_RTL_PLUGIN_ENV);
	return -ENOENT;
}

void hf_rtl_unload(struct hf_rtl_plugin *p)
{
	if (p->dl)
		dlclose(p->dl);
	memset(p, 0, sizeof(*p));
}
