/*
 * test_collector_stress.c - 32 threads emitting while the main thread forks
 * (owner: the collector). The parent's trace must hold every thread's
 * events in order with exact accounting (written + lost == emitted) and a
 * clean END; the child, whose threads emit too, must get its own valid
 * trace <host>_<childpid>.nnst (its pid in the header, fork_parent_pid in
 * META, START at its first event, END at nns_destroy) holding only its own
 * events: nothing of the parent's 32 threads, and no inherited lock held.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "test_collector_util.h"

#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>

#define NTHREADS 32
#define NEVENTS 30000
#define CHILD_MAIN 1000
#define CHILD_THREAD 5000

static char dir[64];
static uint32_t names[NTHREADS];
static uint32_t child_names[3];
static pthread_barrier_t go;

struct job {
	uint32_t name;
	int n;
	int pace;
};

static void *emit(void *arg)
{
	struct job *j = arg;

	if (j->pace) { /* registered (the one allocation) before the fork */
		nns_mark(j->name);
		pthread_barrier_wait(&go);
	}
	for (int i = 0; i < j->n; i++) {
		nns_push(j->name);
		nns_flow(j->name, (uint64_t)i, 's');
		nns_pop();
		if (j->pace && i % 1024 == 1023)
			sched_yield();
	}
	return NULL;
}

/* In the child: emit from this thread and two new ones, close, exit. */
static void child_main(nns_profiler *p)
{
	struct job main_job = {child_names[0], CHILD_MAIN, 0};
	struct job jobs[2] = {{child_names[1], CHILD_THREAD, 0}, {child_names[2], CHILD_THREAD, 0}};
	pthread_t th[2];

	emit(&main_job);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, emit, &jobs[i]))
			_exit(3);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (nns_stop(p) != 0)
		_exit(4);
	nns_destroy(p);
	_exit(0);
}

/* Checks the flows of `name` in t: in order; all there when the thread
 * lost nothing. Returns how many. */
static uint64_t flows_of(const struct tt_trace *t, uint32_t name, int expect)
{
	uint64_t n = 0;

	for (int i = 0; i < TT_MAX_THREADS; i++) {
		long last = -1;
		uint64_t here = 0;

		for (size_t k = 0; k < t->nev[i]; k++) {
			const struct nnst_event *e = &t->ev[i][k];

			if (e->type != NNST_EV_FLOW || e->name != name)
				continue;
			assert_true((long)e->a > last);
			last = (long)e->a;
			here++;
		}
		if (here && !t->lost[i])
			assert_int_equal(here, (uint64_t)expect);
		n += here;
	}
	return n;
}

static void test_stress_fork(void **state)
{
	struct nns_options o;
	nns_profiler *p;
	pthread_t th[NTHREADS];
	struct job jobs[NTHREADS];
	char err[256], paths[8][512], name[32];
	pid_t child;
	int status, nfiles, parent_file = -1, child_file = -1;
	uint64_t lost, written = 0;
	struct tt_trace t;

	(void)state;
	tt_tmpdir(dir, sizeof(dir));
	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	assert_int_equal(nns_options_from_json(&o,
					       "{\"buffer_kb_per_thread\":256,"
					       "\"cpu_sampling_interval_ms\":50}",
					       err, sizeof(err)),
			 0);
#ifdef __SANITIZE_ADDRESS__
	/* ASan's allocator has no fork handler: a child forked while another
	 * thread is in malloc (the sampler reading /proc) can hang in malloc.
	 * glibc's malloc is fork-safe, so only the sanitizer build turns the
	 * sampler off. */
	o.cpu_sampling_interval_ms = 0;
#endif
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(name, sizeof(name), "stress %d", i);
		names[i] = nns_name(name);
	}
	child_names[0] = nns_name("child main");
	child_names[1] = nns_name("child a");
	child_names[2] = nns_name("child b");
	assert_int_equal(nns_create(&p, &o), 0);
	pthread_barrier_init(&go, NULL, NTHREADS + 1);
	for (int i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct job){names[i], NEVENTS, 1};
		assert_int_equal(pthread_create(&th[i], NULL, emit, &jobs[i]), 0);
	}
	pthread_barrier_wait(&go);
	{
		struct timespec ts = {0, 5000000};

		nanosleep(&ts, NULL); /* the threads are in full swing */
	}
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		child_main(p);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(nns_stop(p), 0);
	lost = nns_lost_events(p);
	nns_destroy(p);
	pthread_barrier_destroy(&go);

	nfiles = tt_list(dir, paths, 8);
	assert_int_equal(nfiles, 2);
	for (int i = 0; i < nfiles; i++) {
		char suffix[32];

		snprintf(suffix, sizeof(suffix), "_%ld.nnst", (long)child);
		if (strstr(paths[i], suffix))
			child_file = i;
		else
			parent_file = i;
	}
	assert_true(child_file >= 0 && parent_file >= 0);
	if (child_file < 0 || parent_file < 0)
		return;

	/* the parent: 32 threads x 3 events, exact accounting */
	assert_int_equal(tt_load(&t, paths[parent_file]), 0);
	assert_true(t.ok);
	assert_true(t.has_end);
	assert_int_equal(t.hdr.pid, getpid());
	assert_true(t.thread_before_events);
	assert_true(t.strings_before_use);
	for (int i = 0; i < NTHREADS; i++)
		written += flows_of(&t, names[i], NEVENTS);
	assert_int_equal(tt_lost_total(&t), lost);
	written += tt_count(&t, NNST_EV_PUSH, 0, 0) + tt_count(&t, NNST_EV_POP, 0, 0) +
		   tt_count(&t, NNST_EV_MARK, 0, 0);
	assert_int_equal(written + lost, (uint64_t)NTHREADS * (NEVENTS * 3 + 1));
	assert_int_equal(flows_of(&t, child_names[0], 0), 0);
	tt_free(&t);

	/* the child: its own events only */
	assert_int_equal(tt_load(&t, paths[child_file]), 0);
	assert_true(t.ok);
	assert_true(t.has_end);
	assert_int_equal(t.hdr.pid, child);
	assert_non_null(tt_meta(&t, "fork_parent_pid"));
	assert_int_equal(atol(tt_meta(&t, "fork_parent_pid")), getpid());
	assert_int_equal(tt_count(&t, NNST_EV_START, 0, 0), 1);
	assert_int_equal(tt_count(&t, NNST_EV_STOP, 0, 0), 1);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(flows_of(&t, names[i], 0), 0);
	written = flows_of(&t, child_names[0], CHILD_MAIN) +
		  flows_of(&t, child_names[1], CHILD_THREAD) +
		  flows_of(&t, child_names[2], CHILD_THREAD);
	written += tt_count(&t, NNST_EV_PUSH, 0, 0) + tt_count(&t, NNST_EV_POP, 0, 0);
	assert_int_equal(written + tt_lost_total(&t), (CHILD_MAIN + 2 * CHILD_THREAD) * 3);
	tt_free(&t);
	tt_rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stress_fork),
	};

	unsetenv("NNSCOPE_OPTIONS");
	unsetenv("MS_PROFILER_OPTIONS");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
