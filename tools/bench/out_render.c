// SPDX-License-Identifier: MIT
/*
 * out_render.c - the files of a run: --json written here (out_json.c),
 * then --csv, --markdown, --plot and --plot-dir rendered from that JSON by
 * bench_render.py (beside this program in the build tree, DATADIR/
 * hellofpga installed), run with the python3 the build found (HF_PYTHON3).
 * Without --json the renderer reads a temporary copy.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out.h"

#define RENDERER	"bench_render.py"

extern char **environ;

/* Run the renderer on @json for the files of @o.  Return: 0 or -1. */
static int render(const struct bench_outputs *o, const char *json)
{
	static const char *const flag[] = {
		"--csv", "--markdown", "--plot", "--plot-dir",
	};
	const char *file[] = { o->csv, o->md, o->plot, o->plotdir };
	char path[PATH_MAX];
	char *av[4 + 2 * 4] = { (char *)HF_PYTHON3, path, (char *)json };
	int n = 3, st, ret;
	pid_t pid;

	if (cli_find(RENDERER, HF_REL_DATA, path, sizeof(path)))
		return -1;
	for (int i = 0; i < 4; i++) {
		if (!file[i])
			continue;
		av[n++] = (char *)flag[i];
		av[n++] = (char *)file[i];
	}
	fflush(stdout);
	fflush(stderr);
	ret = posix_spawnp(&pid, HF_PYTHON3, NULL, NULL, av, environ);
	if (ret) {
		cli_err("bench: cannot run %s %s: %s", HF_PYTHON3, path,
			strerror(ret));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/*
 * The JSON the renderer reads: @o->json when it was written to a file,
 * else a temporary one in @tmp.  Return: its path, or NULL after
 * reporting.
 */
static const char *render_source(const struct bench *bn,
				 const struct bench_outputs *o, bool json_ok,
				 char *tmp, size_t len)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (o->json && json_ok && strcmp(o->json, "-"))
		return o->json;
	snprintf(tmp, len, "%s/hellofpga-bench.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		cli_err("cannot create '%s': %s", tmp, strerror(errno));
		return NULL;
	}
	close(fd);
	if (bench_json(bn, tmp)) {
		unlink(tmp);
		return NULL;
	}
	return tmp;
}

/**
 * bench_write_outputs() - the files @o asks for: the JSON, then what is
 * rendered from it.
 * Return: 0, or -1 when one could not be written (reported).
 */
int bench_write_outputs(const struct bench *bn,
			const struct bench_outputs *o)
{
	bool json_ok = !o->json || !bench_json(bn, o->json);
	char tmp[PATH_MAX] = "";
	const char *src;
	int ret = json_ok ? 0 : -1;

	if (!o->csv && !o->md && !o->plot && !o->plotdir)
		return ret;
	src = render_source(bn, o, json_ok, tmp, sizeof(tmp));
	if (!src || render(o, src))
		ret = -1;
	if (src == tmp)
		unlink(tmp);
	return ret;
}
