/*
 * test_collector.c - the collector end to end inside one process (owner:
 * the collector): events from N threads all arrive, in order per thread,
 * with exact accounting (written + lost == emitted) even across block
 * switches; tiny buffers lose and count; every event type round-trips
 * through the .nnst writer and the format reader field by field; event
 * categories follow the options; schedules and start/stop steps write the
 * documented START/STOP/STEP marks and warmup flags; two profilers hand the
 * buffers over; thread exit flushes; samplers, host_info, metadata,
 * creation errors, nns_analyse without the program, a write error that
 * stops the writing and counts every event not written, and an exec that
 * fails (the trace closed before it, a new one after).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "collector/tsc.h"
#include "test_collector_util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	tt_tmpdir(dir, sizeof(dir));
	return dir[0] ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tt_rmrf(dir);
	return 0;
}

/* Options writing into dir, no sampler unless asked. */
static void opts(struct nns_options *o, const char *json)
{
	char err[256];

	nns_options_init(o);
	snprintf(o->output_path, sizeof(o->output_path), "%s", dir);
	o->cpu_sampling_interval_ms = 0;
	if (json && nns_options_from_json(o, json, err, sizeof(err)))
		fail_msg("options: %s", err);
}

/* Loads the only trace in dir (after the profiler is destroyed). */
static void load_only(struct tt_trace *t)
{
	char paths[4][512];

	assert_int_equal(tt_list(dir, paths, 4), 1);
	assert_int_equal(tt_load(t, paths[0]), 0);
	assert_true(t->ok);
	assert_true(t->has_end);
}

/* ---- many threads ---------------------------------------------------------------- */

struct worker {
	int id, n;
	uint32_t name;
	pthread_barrier_t *go;
	int pace; /* sleep a little every 256 events */
};

static void *work(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->go);
	for (int i = 0; i < w->n; i++) {
		nns_flow(w->name, (uint64_t)i, 's');
		if (w->pace && i % 256 == 255) {
			struct timespec ts = {0, 200000};

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/* Checks each worker's flows arrived in order, with gaps only where events
 * were counted lost; returns the number written. */
static uint64_t check_workers(struct tt_trace *t, struct worker *w, int nw)
{
	uint64_t written = 0;

	for (int k = 0; k < nw; k++) {
		long last = -1;
		int found = 0;

		for (int i = 0; i < TT_MAX_THREADS; i++) {
			size_t nflow = 0;

			for (size_t e = 0; e < t->nev[i]; e++) {
				const struct nnst_event *ev = &t->ev[i][e];

				if (ev->type != NNST_EV_FLOW || ev->name != w[k].name)
					continue;
				found = 1;
				assert_true((long)ev->a > last);
				assert_int_equal(ev->b, 's');
				last = (long)ev->a;
				nflow++;
			}
			if (nflow && t->lost[i] == 0)
				assert_int_equal(nflow, (size_t)w[k].n);
			written += nflow;
		}
		assert_true(found);
	}
	return written;
}

static void run_workers(int nw, int n, const char *json, int pace, uint64_t *written,
			uint64_t *lost_api, struct tt_trace *t)
{
	struct nns_options o;
	nns_profiler *p;
	pthread_t th[64];
	struct worker w[64];
	pthread_barrier_t go;
	char name[32];

	opts(&o, json);
	assert_int_equal(nns_create(&p, &o), 0);
	pthread_barrier_init(&go, NULL, (unsigned)nw);
	for (int k = 0; k < nw; k++) {
		snprintf(name, sizeof(name), "worker %d", k);
		w[k] = (struct worker){k, n, nns_name(name), &go, pace};
		assert_int_equal(pthread_create(&th[k], NULL, work, &w[k]), 0);
	}
	for (int k = 0; k < nw; k++)
		pthread_join(th[k], NULL);
	assert_int_equal(nns_stop(p), 0);
	*lost_api = nns_lost_events(p);
	nns_destroy(p);
	pthread_barrier_destroy(&go);
	load_only(t);
	assert_true(t->thread_before_events);
	assert_true(t->strings_before_use);
	*written = check_workers(t, w, nw);
}

static void test_threads_all_arrive(void **state)
{
	struct tt_trace t;
	uint64_t written, lost;

	(void)state;
	/* 8 threads x 20000 events: each fits in one 2 MiB block */
	run_workers(8, 20000, "{\"buffer_kb_per_thread\":4096}", 0, &written, &lost, &t);
	assert_int_equal(lost, 0);
	assert_int_equal(written, 8 * 20000);
	assert_int_equal(tt_lost_total(&t), 0);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

static void test_threads_block_switches(void **state)
{
	struct tt_trace t;
	uint64_t written, lost;

	(void)state;
	/* 64 KiB per thread = two 1024-event blocks: ~50 switches per thread,
	 * paced so the writer keeps up; what it cannot keep is counted */
	run_workers(6, 50000, "{\"buffer_kb_per_thread\":64}", 1, &written, &lost, &t);
	assert_int_equal(written + lost, 6 * 50000);
	assert_int_equal(tt_lost_total(&t), lost);
	assert_true(written > 6 * 4 * 1024); /* more than four blocks per thread on average */
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

static void test_lost_tiny_buffers(void **state)
{
	struct tt_trace t;
	uint64_t written, lost;

	(void)state;
	/* 2 KiB per thread: two blocks of 32 events, no pacing */
	run_workers(2, 200000, "{\"buffer_kb_per_thread\":2}", 0, &written, &lost, &t);
	assert_true(lost > 0);
	assert_int_equal(written + lost, 2 * 200000);
	assert_int_equal(tt_lost_total(&t), lost);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

/* ---- every event type ---------------------------------------------------------------- */

static uint64_t handle_from_thread;
static uint32_t cross_name;

static void *end_elsewhere(void *arg)
{
	nns_end(*(uint64_t *)arg);
	handle_from_thread = nns_begin(cross_name);
	return NULL;
}

static const struct nnst_event *find_ev(const struct tt_trace *t, uint8_t type, int *thread)
{
	for (int i = 0; i < TT_MAX_THREADS; i++)
		for (size_t k = 0; k < t->nev[i]; k++)
			if (t->ev[i][k].type == type) {
				if (thread)
					*thread = i;
				return &t->ev[i][k];
			}
	return NULL;
}

static void test_roundtrip(void **state)
{
	struct nns_options o;
	struct tt_trace t;
	nns_profiler *p;
	pthread_t th;
	uint64_t h, v;
	double d = 2.5;
	int local = 0, thr = -1;
	uint32_t n_op, n_q, n_c, n_f, n_m;
	const struct nnst_event *e;

	(void)state;
	opts(&o, "{\"profile_memory\":true}");
	assert_int_equal(nns_create(&p, &o), 0);
	assert_ptr_equal(nns_current(), p);
	n_op = nns_name("conv2d");
	n_q = nns_name("loader queue");
	n_c = nns_name("loss");
	n_f = nns_name("fwd->bwd");
	n_m = nns_name("epoch mark");
	cross_name = nns_name("cross");
	assert_int_equal(nns_name("conv2d"), n_op);
	assert_int_equal(nns_name(""), 0);
	assert_int_equal(nns_set_metadata(p, "rank", "3"), 0);
	assert_int_equal(nns_set_metadata(p, "device.0.name", "Test GPU"), 0);
	assert_int_equal(nns_set_metadata(p, NULL, "x"), NNS_EINVAL);

	nns_push(n_op);
	nns_push_str("inner by string");
	nns_pop();
	nns_pop();
	h = nns_begin(n_op);
	assert_true(h != 0);
	pthread_create(&th, NULL, end_elsewhere, &h);
	pthread_join(th, NULL);
	nns_mark(n_m);
	nns_counter(n_c, d);
	nns_flow(n_f, 77, 'f');
	nns_mem_alloc(&local, 4096, 0, 8192, 1 << 20);
	nns_mem_free(&local, 4096, -1, -1, -1);
	nns_queue(n_q, 3, 8);
	nns_step(p);
	assert_int_equal(nns_stop(p), 0);
	assert_int_equal(nns_lost_events(p), 0);
	assert_string_equal(nns_last_error(p), "");
	nns_destroy(p);

	load_only(&t);
	assert_int_equal(memcmp(t.hdr.magic, NNST_MAGIC, 8), 0);
	assert_int_equal(t.hdr.version, NNST_VERSION);
	assert_int_equal(t.hdr.pid, getpid());
	assert_int_equal(t.hdr.flags & NNST_F_TSC, NNS_CLOCK_FLAGS);
	assert_true(t.clocks >= 2);
	assert_true(t.thread_before_events);
	assert_true(t.strings_before_use);
	assert_string_equal(t.str[n_op], "conv2d");
	assert_string_equal(t.str[n_q], "loader queue");

	e = find_ev(&t, NNST_EV_PUSH, &thr);
	assert_non_null(e);
	assert_int_equal(e->name, n_op);
	assert_int_equal(t.tid[thr], nns_gettid());
	assert_string_equal(t.str[e[1].name], "inner by string");
	assert_int_equal(e[2].type, NNST_EV_POP);
	assert_int_equal(e[3].type, NNST_EV_POP);
	assert_true(e[1].ts >= e[0].ts && e[3].ts >= e[2].ts);
	e = find_ev(&t, NNST_EV_BEGIN, &thr);
	assert_int_equal(e->a, h);
	assert_int_equal(e->name, n_op);
	assert_int_equal(tt_count(&t, NNST_EV_BEGIN, 0, 0), 2);
	{ /* the END came from the other thread, which also began one */
		int te = -1;
		const struct nnst_event *end = find_ev(&t, NNST_EV_END, &te);

		assert_non_null(end);
		assert_int_equal(end->a, h);
		assert_true(te != thr);
		assert_int_equal(end[1].type, NNST_EV_BEGIN);
		assert_int_equal(end[1].a, handle_from_thread);
		assert_true(handle_from_thread != h && handle_from_thread != 0);
	}
	e = find_ev(&t, NNST_EV_MARK, NULL);
	assert_int_equal(e->name, n_m);
	e = find_ev(&t, NNST_EV_COUNTER, NULL);
	assert_int_equal(e->name, n_c);
	memcpy(&v, &d, 8);
	assert_int_equal(e->a, v);
	e = find_ev(&t, NNST_EV_FLOW, NULL);
	assert_int_equal(e->a, 77);
	assert_int_equal(e->b, 'f');
	e = find_ev(&t, NNST_EV_ALLOC, NULL);
	assert_int_equal(e->a, (uint64_t)(uintptr_t)&local);
	assert_int_equal(e->b, 4096);
	assert_int_equal(e->device, 0);
	assert_int_equal(e[1].type, NNST_EV_MEMTOTAL);
	assert_int_equal(e[1].a, 8192);
	assert_int_equal(e[1].b, 1 << 20);
	assert_int_equal(e[1].ts, e->ts);
	e = find_ev(&t, NNST_EV_FREE, NULL);
	assert_int_equal(e->device, -1);
	assert_int_equal((int64_t)e[1].a, -1);
	assert_int_equal((int64_t)e[1].b, -1);
	e = find_ev(&t, NNST_EV_QUEUE, NULL);
	assert_int_equal(e->name, n_q);
	assert_int_equal(e->a, 3);
	assert_int_equal(e->b, 8);
	assert_int_equal(find_ev(&t, NNST_EV_STEP, NULL)->a, 1);
	assert_int_equal(find_ev(&t, NNST_EV_START, NULL)->a, 0);
	assert_int_equal(find_ev(&t, NNST_EV_STOP, NULL)->a, 1);
	assert_int_equal(tt_count(&t, NNST_EV_START, 0, 0), 1);
	assert_int_equal(tt_count(&t, NNST_EV_STOP, 0, 0), 1);

	assert_string_equal(tt_meta(&t, "rank"), "3");
	assert_string_equal(tt_meta(&t, "device.0.name"), "Test GPU");
	assert_non_null(tt_meta(&t, "options"));
	assert_non_null(strstr(tt_meta(&t, "options"), "\"profile_memory\":true"));
	assert_non_null(tt_meta(&t, "host"));
	assert_int_equal(atol(tt_meta(&t, "pid")), getpid());
	assert_string_equal(tt_meta(&t, "clock"), NNS_CLOCK_FLAGS ? "tsc" : "monotonic");
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

static void test_categories(void **state)
{
	struct nns_options o;
	struct tt_trace t;
	nns_profiler *p;
	int x;

	(void)state;
	opts(&o, "{\"op_time\":false,\"data_process\":false}");
	assert_int_equal(nns_create(&p, &o), 0);
	nns_push(1);
	nns_pop();
	assert_int_equal(nns_begin(1), 0);
	nns_mem_alloc(&x, 4, -1, -1, -1); /* profile_memory is off by default */
	nns_queue(1, 1, 2);
	nns_mark(0);
	nns_counter(0, 1.0);
	nns_destroy(p);
	load_only(&t);
	assert_int_equal(tt_count(&t, NNST_EV_PUSH, 0, 0) + tt_count(&t, NNST_EV_POP, 0, 0) +
			     tt_count(&t, NNST_EV_BEGIN, 0, 0) + tt_count(&t, NNST_EV_ALLOC, 0, 0) +
			     tt_count(&t, NNST_EV_QUEUE, 0, 0),
			 0);
	assert_int_equal(tt_count(&t, NNST_EV_MARK, 0, 0), 1);
	assert_int_equal(tt_count(&t, NNST_EV_COUNTER, 0, 0), 1);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

/* ---- schedules ----------------------------------------------------------------------- */

/* Runs steps 0..nsteps-1 with one mark (a = step) per step. */
static void run_steps(const char *json, int nsteps, struct tt_trace *t)
{
	struct nns_options o;
	nns_profiler *p;
	uint32_t m = nns_name("step mark");

	opts(&o, json);
	assert_int_equal(nns_create(&p, &o), 0);
	for (int s = 0; s < nsteps; s++) {
		nns_flow(m, (uint64_t)s, 's');
		assert_int_equal(nns_step(p), 0);
	}
	nns_destroy(p);
	load_only(t);
}

/* The steps whose marks were written, as '.', 'w' (flagged) or 'A'. */
static void marks(const struct tt_trace *t, int nsteps, char *out)
{
	memset(out, '.', (size_t)nsteps);
	out[nsteps] = '\0';
	for (int i = 0; i < TT_MAX_THREADS; i++)
		for (size_t k = 0; k < t->nev[i]; k++)
			if (t->ev[i][k].type == NNST_EV_FLOW && t->ev[i][k].a < (uint64_t)nsteps)
				out[t->ev[i][k].a] =
				    t->ev[i][k].flags & NNST_EVF_WARMUP ? 'w' : 'A';
}

static void test_schedule_trace(void **state)
{
	struct tt_trace t;
	const struct nnst_event *e;
	char s[32];
	uint64_t steps[16];
	int ns = 0;

	(void)state;
	run_steps("{\"wait\":1,\"warmup\":1,\"active\":2,\"repeat\":2}", 10, &t);
	marks(&t, 10, s);
	assert_string_equal(s, ".wAA.wAA..");
	/* windows: START(a=2,b=0) STOP(a=3,b=0) START(a=6,b=1) STOP(a=7,b=1) */
	assert_int_equal(tt_count(&t, NNST_EV_START, 0, 0), 2);
	assert_int_equal(tt_count(&t, NNST_EV_STOP, 0, 0), 2);
	for (int i = 0; i < TT_MAX_THREADS; i++)
		for (size_t k = 0; k < t.nev[i]; k++) {
			e = &t.ev[i][k];
			if (e->type == NNST_EV_START)
				assert_true((e->a == 2 && e->b == 0) || (e->a == 6 && e->b == 1));
			if (e->type == NNST_EV_STOP)
				assert_true((e->a == 3 && e->b == 0) || (e->a == 7 && e->b == 1));
			if (e->type == NNST_EV_STEP && !(e->flags & NNST_EVF_WARMUP))
				steps[ns++] = e->a;
		}
	/* unflagged STEPs only inside windows: step 3 and step 7 begin */
	assert_int_equal(ns, 2);
	assert_int_equal(steps[0], 3);
	assert_int_equal(steps[1], 7);
	/* warmup STEP marks: 1 (off->warmup), 5 (off->warmup) */
	assert_int_equal(tt_count(&t, NNST_EV_STEP, 1, NNST_EVF_WARMUP), 2);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);

	run_steps("{\"start_step\":3,\"stop_step\":4}", 7, &t);
	marks(&t, 7, s);
	assert_string_equal(s, "..AA...");
	e = find_ev(&t, NNST_EV_START, NULL);
	assert_int_equal(e->a, 2);
	e = find_ev(&t, NNST_EV_STOP, NULL);
	assert_int_equal(e->a, 3);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

static void test_manual_start_stop(void **state)
{
	struct nns_options o;
	struct tt_trace t;
	nns_profiler *p;
	uint32_t m = nns_name("manual");
	char s[8];

	(void)state;
	opts(&o, "{\"start\":false}");
	assert_int_equal(nns_create(&p, &o), 0);
	nns_flow(m, 0, 's'); /* not started */
	assert_int_equal(nns_start(p), 0);
	assert_int_equal(nns_start(p), 0); /* idempotent */
	nns_flow(m, 1, 's');
	assert_int_equal(nns_stop(p), 0);
	assert_int_equal(nns_stop(p), 0);
	nns_flow(m, 2, 's');
	assert_int_equal(nns_start(p), 0);
	nns_flow(m, 3, 's');
	nns_destroy(p);
	load_only(&t);
	marks(&t, 4, s);
	assert_string_equal(s, ".A.A");
	assert_int_equal(tt_count(&t, NNST_EV_START, 0, 0), 2);
	assert_int_equal(tt_count(&t, NNST_EV_STOP, 0, 0), 2);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

static void test_two_profilers(void **state)
{
	struct nns_options o;
	struct tt_trace t;
	nns_profiler *a, *b;
	uint32_t m = nns_name("two");
	char paths[4][512];

	(void)state;
	opts(&o, NULL);
	assert_int_equal(nns_create(&a, &o), 0);
	nns_flow(m, 1, 's');
	assert_int_equal(nns_create(&b, &o), 0); /* b starts: a stops */
	assert_ptr_equal(nns_current(), b);
	nns_flow(m, 2, 's');
	nns_destroy(b);
	nns_flow(m, 3, 's'); /* nobody collects */
	nns_destroy(a);
	assert_null(nns_current());
	assert_int_equal(tt_list(dir, paths, 4), 2); /* <host>_<pid>.nnst and .2.nnst */
	for (int i = 0; i < 2; i++) {
		char s[8];

		assert_int_equal(tt_load(&t, paths[i]), 0);
		assert_true(t.has_end);
		marks(&t, 4, s);
		assert_true(strcmp(s, ".A..") == 0 || strcmp(s, "..A.") == 0);
		tt_free(&t);
	}
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

/* ---- thread exit, samplers, host_info ------------------------------------------------- */

static void *short_thread(void *arg)
{
	uint32_t m = *(uint32_t *)arg;

	for (int i = 0; i < 10; i++)
		nns_flow(m, (uint64_t)i, 's');
	return NULL;
}

static void test_thread_exit_and_samplers(void **state)
{
	struct nns_options o;
	struct tt_trace t;
	nns_profiler *p;
	uint32_t m = nns_name("short");
	pthread_t th[3];
	struct timespec start, now;
	volatile double x = 0;
	char csv[256], line[512];
	FILE *f;
	int rows = 0;

	(void)state;
	opts(&o, "{\"cpu_sampling_interval_ms\":20,\"profile_framework\":\"all\"}");
	assert_int_equal(nns_create(&p, &o), 0);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, short_thread, &m);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do { /* busy: the samplers see CPU time */
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 <
		 150);
	nns_step(p);
	nns_destroy(p);
	load_only(&t);
	assert_int_equal(tt_count(&t, NNST_EV_FLOW, 0, 0), 30); /* flushed at thread exit */
	assert_true(t.samples[NNST_SAMPLE_MACHINE] >= 2);
	assert_true(t.samples[NNST_SAMPLE_PROCESS] >= 2);
	assert_true(t.samples[NNST_SAMPLE_THREAD] >= 2);
	tt_free(&t);

	snprintf(csv, sizeof(csv), "%s/host_info/host_info_0.csv", dir);
	f = fopen(csv, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "tid,pid,parent_pid,module_name,event,stage,level,start_end,"
				  "custom_info,memory_usage(kB),time_stamp(us)\n");
	while (fgets(line, sizeof(line), f)) {
		char ev[32], stage[32];
		long tid, pid, ppid, level, se, mem, ts;

		assert_int_equal(sscanf(line,
					"%ld,%ld,%ld,nnscope,%31[^,],%31[^,],%ld,%ld,,%ld,%ld",
					&tid, &pid, &ppid, ev, stage, &level, &se, &mem, &ts),
				 9);
		assert_int_equal(pid, getpid());
		assert_true(mem > 0 && ts > 0);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows,
			 6); /* Collect 0, Step 0 0, Step 0 1, Step 1 0, Step 1 1, Collect 1 */
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void test_create_errors(void **state)
{
	struct nns_options o;
	nns_profiler *p = (nns_profiler *)1;

	(void)state;
	opts(&o, NULL);
	o.struct_size = 0;
	assert_int_equal(nns_create(&p, &o), NNS_EINVAL);
	assert_null(p);
	assert_non_null(strstr(nns_last_error(NULL), "nns_options_init"));
	opts(&o, NULL);
	o.sched_wait = 2;
	assert_int_equal(nns_create(&p, &o), NNS_EINVAL);
	assert_non_null(strstr(nns_last_error(NULL), "active"));
	opts(&o, NULL);
	snprintf(o.output_path, sizeof(o.output_path), "/proc/nnscope-cannot-be-here");
	assert_int_equal(nns_create(&p, &o), NNS_EIO);
	assert_non_null(strstr(nns_last_error(NULL), "/proc/nnscope-cannot-be-here"));
	assert_int_equal(nns_create(NULL, &o), NNS_EINVAL);
	assert_int_equal(nns_start(NULL), NNS_EINVAL);
	assert_int_equal(nns_step(NULL), NNS_EINVAL);
	nns_destroy(NULL);
	assert_int_equal(nns_lost_events(NULL), 0);
}

static void test_analyse_not_found(void **state)
{
	struct nns_options o;
	nns_profiler *p;
	char *old = getenv("NNSCOPE_BIN") ? strdup(getenv("NNSCOPE_BIN")) : NULL;

	(void)state;
	opts(&o, NULL);
	assert_int_equal(nns_create(&p, &o), 0);
	setenv("NNSCOPE_BIN", "/nonexistent/nnscope", 1);
	assert_int_equal(nns_analyse(p), NNS_ENOTFOUND);
	assert_non_null(strstr(nns_last_error(p), "NNSCOPE_BIN"));
	setenv("NNSCOPE_BIN", "/bin/false", 1); /* runs, fails */
	assert_int_equal(nns_analyse(p), NNS_EIO);
	assert_non_null(strstr(nns_last_error(p), "status 1"));
	setenv("NNSCOPE_BIN", "/bin/true", 1);
	assert_int_equal(nns_analyse(p), NNS_OK);
	if (old)
		setenv("NNSCOPE_BIN", old, 1);
	else
		unsetenv("NNSCOPE_BIN");
	free(old);
	nns_destroy(p);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

static void test_write_error_counts(void **state)
{
	struct nns_options o;
	nns_profiler *p;
	struct rlimit old, lim;
	uint32_t m = nns_name("fill");
	struct tt_trace t;
	char paths[2][512];
	uint64_t lost, written = 0;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	/* the file may not grow past 2 MiB (this thread's blocks may be the
	 * 512 KiB of an earlier test: blocks are sized at registration) */
	lim.rlim_cur = 2 << 20;
	setrlimit(RLIMIT_FSIZE, &lim);
	opts(&o, "{\"buffer_kb_per_thread\":64}");
	assert_int_equal(nns_create(&p, &o), 0);
	for (int i = 0; i < 400000; i++) {
		nns_flow(m, (uint64_t)i, 's');
		if (i % 512 == 0)
			usleep(20);
	}
	/* writing stopped, collecting did not: the events are still counted */
	assert_int_not_equal(nns_state_load(), 0);
	assert_int_equal(nns_stop(p), NNS_EIO);
	assert_non_null(strstr(nns_last_error(p), "File too large"));
	assert_non_null(strstr(nns_last_error(p), "not written (counted as lost)"));
	lost = nns_lost_events(p);
	assert_int_equal(nns_state_load(), 0);
	assert_int_equal(nns_start(p), NNS_EIO);
	nns_destroy(p);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	/* what was written before the error is readable, and every event
	 * emitted (START, the flows, STOP) is either there or counted lost */
	assert_int_equal(tt_list(dir, paths, 2), 1);
	assert_int_equal(tt_load(&t, paths[0]), 0);
	assert_false(t.has_end);
	assert_true(tt_count(&t, NNST_EV_FLOW, 0, 0) > 0);
	for (int i = 0; i < TT_MAX_THREADS; i++)
		written += t.nev[i];
	assert_true(lost > 300000);
	assert_int_equal(written + lost, 400000 + 2);
	tt_free(&t);
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

/* exec that fails (exit.c): the trace was closed before it (END, every
 * event), and the profiler collects again into the next file of the pid. */
static void test_exec_failure_reopens(void **state)
{
	struct nns_options o;
	nns_profiler *p;
	uint32_t m = nns_name("around exec");
	char *argv[] = {"nnscope-no-such-program", NULL};
	char paths[3][512];
	struct tt_trace t;
	int n;

	(void)state;
	opts(&o, NULL);
	assert_int_equal(nns_create(&p, &o), 0);
	for (int i = 0; i < 100; i++)
		nns_mark(m);
	assert_int_equal(execv("/nonexistent/nnscope-no-such-program", argv), -1);
	assert_int_equal(errno, ENOENT);
	for (int i = 0; i < 50; i++)
		nns_mark(m);
	nns_destroy(p);
	n = tt_list(dir, paths, 3);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		int second = strstr(paths[i], ".2.nnst") != NULL;

		assert_int_equal(tt_load(&t, paths[i]), 0);
		assert_true(t.has_end);
		assert_int_equal(tt_count(&t, NNST_EV_MARK, 0, 0), second ? 50 : 100);
		if (second)
			assert_non_null(tt_meta(&t, "reopened"));
		tt_free(&t);
	}
	tt_rmrf(dir);
	mkdir(dir, 0700);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_all_arrive),
	    cmocka_unit_test(test_threads_block_switches),
	    cmocka_unit_test(test_lost_tiny_buffers),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_categories),
	    cmocka_unit_test(test_schedule_trace),
	    cmocka_unit_test(test_manual_start_stop),
	    cmocka_unit_test(test_two_profilers),
	    cmocka_unit_test(test_thread_exit_and_samplers),
	    cmocka_unit_test(test_create_errors),
	    cmocka_unit_test(test_analyse_not_found),
	    cmocka_unit_test(test_write_error_counts),
	    cmocka_unit_test(test_exec_failure_reopens),
	};

	unsetenv("NNSCOPE_OPTIONS");
	unsetenv("MS_PROFILER_OPTIONS");
	return cmocka_run_group_tests(tests, setup, teardown);
}
