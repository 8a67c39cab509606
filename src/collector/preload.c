/*
 * preload.c - LD_PRELOAD mode (`nnscope run`): with NNSCOPE_PRELOAD=1 in the
 * environment, a constructor creates and starts a profiler from
 * NNSCOPE_OPTIONS (else MS_PROFILER_OPTIONS) before main, installs the
 * SIGTERM/SIGINT flush (fork.c), and a destructor closes the trace at
 * exit. Programs that are not instrumented still get samplers, metadata
 * and the process lifetime (START at load, STOP at exit).
 *
 * This is the one place the library prints: a one-line reason on stderr
 * when the options are wrong or the trace cannot be created, since in this
 * mode nobody else can report it.
 */
#include "collector/collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nns_profiler *preload_p;

NNS_API nns_profiler *nns_current(void)
{
	struct nns_profiler *p;

	pthread_mutex_lock(&nns_g.reg_mu);
	p = nns_g.current;
	pthread_mutex_unlock(&nns_g.reg_mu);
	return p ? p : preload_p;
}

__attribute__((constructor)) static void preload_init(void)
{
	const char *on = getenv("NNSCOPE_PRELOAD");
	struct nns_options o;
	char err[NNS_ERR_MSG_MAX];

	if (!on || strcmp(on, "1") != 0)
		return;
	nns_options_init(&o);
	if (nns_options_from_env(&o, err, sizeof(err))) {
		fprintf(stderr, "nnscope: %s; not profiling this process\n", err);
		return;
	}
	if (nns_create(&preload_p, &o)) {
		fprintf(stderr, "nnscope: %s; not profiling this process\n", nns_last_error(NULL));
		preload_p = NULL;
		return;
	}
	nns_set_metadata(preload_p, "attach", "preload");
	nns_install_signal_flush();
}

__attribute__((destructor)) static void preload_fini(void)
{
	nns_profiler *p = preload_p;

	preload_p = NULL;
	nns_destroy(p);
}
