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
 *                                      bus, fpe, ill (raise); or, with a
 *                                      SIGSEGV handler installed before:
 *                                      handled (3 faults recovered, then
 *                                      return), gives-up (like Python's
 *                                      faulthandler: default, re-fault)
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

#include <setjmp.h>
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

/* A runtime's SIGSEGV handler installed before the collector's: it
 * recovers (siglongjmp), or it gives up as Python's faulthandler does
 * (restores the default action and returns: the fault repeats). */
static sigjmp_buf recover;

static void on_segv_recover(int sig)
{
	(void)sig;
	siglongjmp(recover, 1);
}

static void on_segv_give_up(int sig)
{
	static const char msg[] = "collector_exit: fatal, giving up\n";

	signal(sig, SIG_DFL);
	if (write(2, msg, sizeof(msg) - 1) < 0)
		return;
}

static int fault(void)
{
	volatile int *volatile null = NULL;

	return *null; /* cppcheck-suppress nullPointer ; the fault is the test */
}

/* handled: N marks around 3 faults the program recovers from, then a
 * return from main; gives-up: N marks, then a fault the handler gives up on. */
static int runtime_handler(const char *dir, long n, int recovers)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = recovers ? on_segv_recover : on_segv_give_up;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	create(dir);
	if (!recovers) {
		marks(n);
		return fault();
	}
	for (int i = 0; i < 3; i++) {
		marks(n / 4);
		if (sigsetjmp(recover, 1) == 0)
			fault();
	}
	marks(n - 3 * (n / 4));
	return 0;
}

static int die(const char *how)
{
	if (strcmp(how, "segv") == 0)
		return fault();
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
	if (argc == 5 && strcmp(argv[1], "signal") == 0 &&
	    (strcmp(argv[4], "handled") == 0 || strcmp(argv[4], "gives-up") == 0))
		return runtime_handler(argv[2], n, argv[4][0] == 'h');
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
