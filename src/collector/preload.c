/*
 * preload.c - LD_PRELOAD mode (`nnscope run`): with NNSCOPE_PRELOAD=1 in the
 * environment, a constructor creates and starts a profiler from
 * NNSCOPE_OPTIONS (else MS_PROFILER_OPTIONS) before main and installs the
 * fatal-signal flush (sigflush.c); exit.c closes the trace at exit or exec.
 * Programs that are not instrumented still get samplers, metadata and the
 * process lifetime (START at load, STOP at exit). A process that records
 * nothing leaves no file (keep.c); one that execs goes on in the same file
 * in its next image (handoff.c: the constructor takes the file over).
 *
 * This mode is where the library prints: a one-line reason on stderr when
 * the options are wrong or the trace cannot be created, and one when
 * writing the trace fails (status.c), since nobody else can report them.
 */
#include "collector/collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nns_profiler *preload_p;
static int preload_on; /* NNSCOPE_PRELOAD=1 at load */
static int creating;   /* the constructor's nns_create runs */

int nns_preload_creating(void)
{
	return creating;
}

int nns_preload_mode(void)
{
	return preload_on;
}

struct nns_profiler *nns_preload_profiler(void)
{
	return preload_p;
}

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
	int rc;

	if (!on || strcmp(on, "1") != 0)
		return;
	preload_on = 1;
	nns_handoff_receive(); /* before any name is interned or thread registers */
	nns_status_init();
	nns_options_init(&o);
	if (nns_options_from_env(&o, err, sizeof(err))) {
		fprintf(stderr, "nnscope: %s; not profiling this process\n", err);
		return;
	}
	creating = 1;
	rc = nns_create(&preload_p, &o);
	creating = 0;
	if (rc) {
		nns_status_open_failed(nns_last_error(NULL));
		preload_p = NULL;
		return;
	}
	nns_set_metadata(preload_p, "attach", "preload");
	nns_install_signal_flush();
}
