/*
 * collector_exit.c - programs that leave without nns_destroy, for
 * tests/e2e/collector_exit.sh (owner: the collector), linked to
 * libnnscope.so. Each emits exactly N marks named "exit-mark" (plus the
 * profiler's own START/STOP), so the test counts what reached the trace.
 *
 *   collector_exit return DIR N        create, N marks, return from main
 *   collector_exit exec DIR N          create, N marks, execv /bin/true
 *   collector_exit signal DIR N SIG    create, N marks, then die by SIG:
 *                                      segv (a real fault), abort, term,
 *                                      bus, fpe, ill (raise)
 *   collector_exit fork DIR N HOW      create, 10 marks, fork: the child
 *                                      emits N marks and leaves by HOW
 *                                      (exit, _exit, exec, abort, return);
 *                                      the parent waits, then destroys
 *   collector_exit flood N [MS]        under `nnscope run`: N marks on the
 *                                      preloaded profiler, a sleep of MS
 *                                      milliseconds, normal exit
 * DIR "-" (under `nnscope run`): the preloaded profiler, not a new one.
 * The child's pid is printed on stdout ("child=PID") in fork mode.
 */
#include "nnscope.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static nns_profiler *create(const char *dir)
{
	struct nns_options o;
	nns_profiler *p;

	if (strcmp(dir, "-") == 0) { /* under `nnscope run`: the preloaded one */
		if (!(p = nns_current())) {
			fprintf(stderr, "collector_exit: no preloaded profiler\n");
			exit(1);
		}
		return p;
	}
	nns_options_init(&o);
	o.cpu_sampling_interval_ms = 0;
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	if (nns_create(&p, &o)) {
		fprintf(stderr, "collector_exit: %s\n", nns_last_error(NULL));
		exit(1);
	}
	return p;
}

static void marks(long n)
{
	uint32_t id = nns_name("exit-mark");

	for (long i = 0; i < n; i++)
		nns_mark(id);
}

static void run_true(void)
{
	char *argv[] = {"true", NULL};

	execv("/bin/true", argv);
	perror("collector_exit: execv /bin/true");
	_exit(126);
}

static int die(const char *how)
{
	if (strcmp(how, "segv") == 0) {
		volatile int *volatile null = NULL;

		return *null; /* cppcheck-suppress nullPointer ; the fault is the test */
	}
	if (strcmp(how, "abort") == 0)
		abort();
	if (strcmp(how, "term") == 0)
		raise(SIGTERM);
	else if (strcmp(how, "bus") == 0)
		raise(SIGBUS);
	else if (strcmp(how, "fpe") == 0)
		raise(SIGFPE);
	else if (strcmp(how, "ill") == 0)
		raise(SIGILL);
	fprintf(stderr, "collector_exit: unknown signal %s\n", how);
	return 2;
}

static int leave(const char *how)
{
	if (strcmp(how, "exit") == 0)
		exit(0);
	if (strcmp(how, "_exit") == 0)
		_exit(0);
	if (strcmp(how, "exec") == 0)
		run_true();
	if (strcmp(how, "abort") == 0)
		abort();
	return 0; /* "return": from main */
}

static int forked(const char *dir, long n, const char *how)
{
	nns_profiler *p = create(dir);
	pid_t child;
	int status;

	marks(10);
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		marks(n);
		return leave(how);
	}
	printf("child=%ld\n", (long)child);
	waitpid(child, &status, 0);
	if (strcmp(dir, "-") != 0)
		nns_destroy(p);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 0;

	if (argc == 4 && strcmp(argv[1], "return") == 0) {
		create(argv[2]);
		marks(n);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "exec") == 0) {
		create(argv[2]);
		marks(n);
		run_true();
	}
	if (argc == 5 && strcmp(argv[1], "signal") == 0) {
		create(argv[2]);
		marks(n);
		return die(argv[4]);
	}
	if (argc == 5 && strcmp(argv[1], "fork") == 0)
		return forked(argv[2], n, argv[4]);
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "flood") == 0) {
		if (!nns_current()) {
			fprintf(stderr, "collector_exit: no preloaded profiler\n");
			return 1;
		}
		marks(atol(argv[2]));
		if (argc == 4) /* still running: the failure is said meanwhile */
			usleep((useconds_t)atol(argv[3]) * 1000);
		return 0;
	}
	fprintf(stderr, "usage: collector_exit return|exec DIR N | signal DIR N SIG | "
			"fork DIR N HOW | flood N [MS]\n");
	return 2;
}
