/*
 * collector_crash.c - a small instrumented program for the collector's
 * end-to-end tests (owner: the collector), linked to libnnscope.so.
 *
 *   collector_crash DIR      profiles itself into DIR: two threads emit
 *                            ranges, flows and counters in a loop with a
 *                            step every 1000 iterations, forever; prints
 *                            "running" once 20 steps are done (the test
 *                            then SIGKILLs it).
 *   collector_crash --preload N
 *                            under `nnscope run`: N steps of events on the
 *                            preloaded profiler (nns_current()), a forked
 *                            child that emits too, then a normal exit.
 */
#include "nnscope.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint32_t n_iter, n_work, n_loss;

static void *side(void *arg)
{
	(void)arg;
	for (uint64_t i = 0;; i++) {
		nns_push(n_work);
		nns_flow(n_work, i, 's');
		nns_pop();
		if (i % 64 == 0)
			usleep(100);
	}
	return NULL;
}

static void iteration(uint64_t i)
{
	nns_push(n_iter);
	nns_counter(n_loss, 1.0 / (double)(i + 1));
	nns_pop();
}

static int forever(const char *dir)
{
	struct nns_options o;
	nns_profiler *p;
	pthread_t th;
	char err[256];

	nns_options_init(&o);
	if (nns_options_from_json(&o, "{\"cpu_sampling_interval_ms\":50}", err, sizeof(err)))
		return 2;
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	if (nns_create(&p, &o)) {
		fprintf(stderr, "collector_crash: %s\n", nns_last_error(NULL));
		return 1;
	}
	pthread_create(&th, NULL, side, NULL);
	for (uint64_t i = 0;; i++) {
		iteration(i);
		if (i % 1000 == 999) {
			nns_step(p);
			usleep(1000);
		}
		if (i == 20 * 1000) {
			printf("running\n");
			fflush(stdout);
		}
	}
}

static int preload(int steps)
{
	nns_profiler *p = nns_current();
	pid_t child;
	int status;

	if (!p) {
		fprintf(stderr, "collector_crash: no preloaded profiler\n");
		return 1;
	}
	for (int s = 0; s < steps; s++) {
		for (uint64_t i = 0; i < 100; i++)
			iteration(i);
		nns_step(p);
	}
	child = fork();
	if (child == 0) { /* a forked worker: its own trace */
		for (uint64_t i = 0; i < 500; i++)
			iteration(i);
		exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	n_iter = nns_name("iteration");
	n_work = nns_name("side work");
	n_loss = nns_name("loss");
	if (argc == 3 && strcmp(argv[1], "--preload") == 0)
		return preload(atoi(argv[2]));
	if (argc == 2)
		return forever(argv[1]);
	fprintf(stderr, "usage: collector_crash DIR | --preload STEPS\n");
	return 2;
}
