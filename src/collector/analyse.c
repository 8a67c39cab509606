/*
 * analyse.c - nns_analyse(): flush, then run `nnscope analyse <output_path>
 * --out <output_path>/analysis --quiet` and wait for it, so the collector
 * never links the analyzer.
 *
 * The program is $NNSCOPE_BIN, else `nnscope` beside libnnscope.so (found
 * with dladdr), else `nnscope` on PATH. It runs with NNSCOPE_PRELOAD
 * removed from its environment, so an LD_PRELOADed collector does not
 * profile the analysis.
 */
#include "collector/collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Fills bin; 0 when found. */
static int find_nnscope(char *bin, size_t size)
{
	const char *env = getenv("NNSCOPE_BIN"), *path;
	Dl_info info;

	if (env && *env) {
		snprintf(bin, size, "%s", env);
		return executable(bin) ? 0 : -1;
	}
	if (dladdr((void *)nns_analyse, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');

		if (slash) {
			snprintf(bin, size, "%.*s/nnscope", (int)(slash - info.dli_fname),
				 info.dli_fname);
			if (executable(bin))
				return 0;
		}
	}
	path = getenv("PATH");
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(bin, size, "%.*s/nnscope", (int)(n ? n : 1), n ? path : ".");
		if (executable(bin))
			return 0;
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

NNS_API int nns_analyse(nns_profiler *p)
{
	char bin[1200], out[1200];
	char *argv[7];
	char **envp;
	size_t n = 0, k = 0;
	pid_t pid;
	int rc, status;

	if (!p)
		return NNS_EINVAL;
	pthread_mutex_lock(&nns_g.life_mu);
	if (!p->child_pending)
		nns_sync_flush(p, 10000);
	pthread_mutex_unlock(&nns_g.life_mu);

	if (find_nnscope(bin, sizeof(bin))) {
		nns_set_error(p, NNS_ENOTFOUND,
			      "nns_analyse: the nnscope program was not found (set NNSCOPE_BIN, "
			      "or put it beside libnnscope.so or on PATH)");
		return NNS_ENOTFOUND;
	}
	snprintf(out, sizeof(out), "%s/analysis", p->o.output_path);
	argv[0] = bin;
	argv[1] = "analyse";
	argv[2] = p->o.output_path;
	argv[3] = "--out";
	argv[4] = out;
	argv[5] = "--quiet";
	argv[6] = NULL;
	while (environ && environ[n])
		n++;
	envp = calloc(n + 1, sizeof(*envp));
	if (!envp)
		return NNS_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "NNSCOPE_PRELOAD=", 16) != 0)
			envp[k++] = environ[i];
	envp[k] = NULL;
	rc = posix_spawn(&pid, bin, NULL, NULL, argv, envp);
	free(envp);
	if (rc) {
		nns_set_error(p, NNS_EIO, "nns_analyse: running %s: %s", bin, strerror(rc));
		return NNS_EIO;
	}
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		nns_set_error(p, NNS_EIO, "nns_analyse: waiting for %s: %s", bin, strerror(errno));
		return NNS_EIO;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NNS_OK;
	if (WIFEXITED(status))
		nns_set_error(p, NNS_EIO, "nns_analyse: %s analyse %s exited with status %d", bin,
			      p->o.output_path, WEXITSTATUS(status));
	else
		nns_set_error(p, NNS_EIO, "nns_analyse: %s was killed by signal %d", bin,
			      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return NNS_EIO;
}
