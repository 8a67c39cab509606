/*
 * test_serve_live.c - the live entries of `nnscope serve`
 * (src/server/live_entries.h) on a real registry over a temporary logdir:
 *   - live_probe: a .nnst without END modified within the idle time is
 *     live; one ending in END, one modified before, a .json, or an idle
 *     time of 0 is not;
 *   - a growing .nnst is listed live in /api/runs, reg_acquire refuses to
 *     load it (REG_LIVE, saying why), and its follow reads the file, then
 *     only what was appended since (the chunk being written included);
 *   - the rescan keeps the same entry while the file grows;
 *   - its END chunk makes it an ordinary entry at the next refresh: not
 *     live, listed so (generation changed), loaded by reg_acquire, and the
 *     follow, kept while asked for, is closed by the sweep afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/clock.h"
#include "nnstb.h"
#include "server/live_entries.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define S_FWD 1
#define SEC 1000000000LL

static char dir[256];

static void path_of(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", dir, rel);
}

static void append(int fd, const struct nb *b, size_t from, size_t to)
{
	assert_int_equal(write(fd, b->p + from, to - from), (ssize_t)(to - from));
}

/* steps first..first+n-1 of thread 0: a step mark, then a "forward" range */
static void steps(struct nb *b, int64_t first, int n)
{
	struct nb ev = {0};

	for (int i = 0; i < n; i++) {
		uint64_t t = (uint64_t)(first + i) * 1000000;

		nb_ev(&ev, t, NNST_EV_STEP, 0, 0, -1, (uint64_t)(first + i), 0);
		nb_ev(&ev, t + 1000, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
		nb_ev(&ev, t + 800000, NNST_EV_POP, 0, 0, -1, 0, 0);
	}
	nb_events(b, 0, &ev);
	nb_free(&ev);
}

static void rm_tree(const char *p)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p);
	assert_int_equal(system(cmd), 0);
}

static void test_probe(void **state)
{
	struct fs_root root;
	struct nns_err err;
	struct nb b = {0};
	char p[512];
	struct stat st;
	struct timespec old[2] = {{0, 0}, {0, 0}};
	int64_t idle = 10 * SEC;

	(void)state;
	nb_header(&b, 1, 0, clock_real_ns(), clock_mono_ns(), 0);
	nb_string(&b, S_FWD, "forward");
	path_of(p, sizeof(p), "open.nnst");
	assert_int_equal(nb_write(&b, p, b.n), 0);
	nb_end(&b);
	path_of(p, sizeof(p), "closed.nnst");
	assert_int_equal(nb_write(&b, p, b.n), 0);
	path_of(p, sizeof(p), "old.nnst");
	assert_int_equal(nb_write(&b, p, b.n - 24), 0); /* no END */
	old[0].tv_sec = old[1].tv_sec = time(NULL) - 60;
	assert_int_equal(utimensat(AT_FDCWD, p, old, 0), 0);
	path_of(p, sizeof(p), "x.pt.trace.json");
	assert_int_equal(nb_write(&b, p, 10), 0);
	nns_err_clear(&err);
	assert_int_equal(fs_root_open(&root, dir, &err), NNS_OK);

#define PROBE(name, idle_ns)                                                                       \
	(path_of(p, sizeof(p), name), assert_int_equal(stat(p, &st), 0),                           \
	 live_probe(&root, name, st.st_size,                                                       \
		    (int64_t)st.st_mtim.tv_sec * SEC + st.st_mtim.tv_nsec, idle_ns))
	assert_int_equal(PROBE("open.nnst", idle), 1);
	assert_int_equal(PROBE("open.nnst", 0), 0);
	assert_int_equal(PROBE("closed.nnst", idle), 0);
	assert_int_equal(PROBE("old.nnst", idle), 0);
	assert_int_equal(PROBE("x.pt.trace.json", idle), 0);
#undef PROBE
	assert_int_equal(live_is_nnst("a/b.nnst"), 1);
	assert_int_equal(live_is_nnst("a/b.nnst.gz"), 0);
	fs_root_close(&root);
	nb_free(&b);
}

/* The follow's counters after a live_get (refreshing it). */
static struct nnst_tail_stats follow(struct registry *r, struct reg_entry *e)
{
	struct nnst_tail_stats ts;
	struct nns_err err;
	struct reg_live *lv;
	int status = 0;

	nns_err_clear(&err);
	lv = live_get(r, e, &status, &err);
	assert_non_null(lv);
	assert_non_null(lv->f);
	ts = *nnst_tail_stats(lv->f->tail);
	live_put(r, lv);
	return ts;
}

static void test_entry(void **state)
{
	struct registry r;
	struct reg_progress pr;
	struct nns_err err;
	struct nnst_tail_stats ts;
	struct nb b = {0};
	struct reg_entry *e;
	char p[512], cache[512], *doc;
	size_t a, bb, c, len = 0;
	uint64_t gen;
	int fd, st;

	(void)state;
	/* part A: header, names, thread, 5 steps; part B: 5 more and half of
	 * a chunk; part C: the rest of it and the END chunk */
	nb_header(&b, 1, 0, clock_real_ns(), clock_mono_ns(), 0);
	nb_string(&b, S_FWD, "forward");
	nb_thread(&b, 0, 11, "main");
	steps(&b, 1, 5);
	a = b.n;
	steps(&b, 6, 5);
	steps(&b, 11, 5);
	bb = b.n - 100; /* inside the last chunk */
	nb_end(&b);
	c = b.n;

	path_of(p, sizeof(p), "run1");
	assert_int_equal(mkdir(p, 0700), 0);
	path_of(p, sizeof(p), "run1/w0.nnst");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	append(fd, &b, 0, a);
	path_of(cache, sizeof(cache), "cache");
	assert_int_equal(mkdir(cache, 0700), 0);

	nns_err_clear(&err);
	assert_int_equal(reg_init(&r, dir, cache, NULL, &err), NNS_OK);
	r.quiet = 1;
	r.live_refresh_ns = 0; /* every live_get refreshes */
	e = reg_find(&r, "run1", "w0", NULL);
	assert_non_null(e);
	assert_true(live_entry_is_live(&r, e));
	doc = reg_runs_json(&r, &len);
	assert_non_null(doc);
	assert_non_null(strstr(doc, "\"live\":true"));
	free(doc);
	gen = r.generation;

	/* never loaded while live */
	assert_int_equal(reg_acquire(&r, e, &pr), REG_LIVE);
	assert_int_equal(pr.state, REG_LIVE);
	assert_non_null(strstr(pr.err, "still being written"));
	assert_int_equal(reg_state(&r, e), REG_IDLE);

	/* the follow reads part A, then only what came after */
	ts = follow(&r, e);
	assert_int_equal(ts.bytes_read, a);
	assert_int_equal(ts.last_bytes, a);
	append(fd, &b, a, bb);
	ts = follow(&r, e);
	assert_int_equal(ts.bytes_read, bb);
	assert_int_equal(ts.last_bytes, bb - a);
	assert_true(live_entry_is_live(&r, e));
	assert_non_null(e->lv);
	assert_true(e->lv->f->live->steps.n >= 9);

	/* a rescan keeps the entry (same pointer) while it grows */
	pthread_mutex_lock(&r.mu);
	r.scanned_ns = 0;
	pthread_mutex_unlock(&r.mu);
	free(reg_runs_json(&r, &len));
	assert_ptr_equal(reg_find(&r, "run1", "w0", NULL), e);
	assert_true(live_entry_is_live(&r, e));

	/* the END chunk: the next refresh makes it an ordinary entry */
	append(fd, &b, bb, c);
	close(fd);
	ts = follow(&r, e);
	assert_int_equal(ts.bytes_read, c); /* nothing read twice */
	assert_int_equal(ts.last_bytes, c - bb);
	assert_true(ts.ended);
	assert_false(live_entry_is_live(&r, e));
	doc = reg_runs_json(&r, &len); /* the flip asked for a rescan */
	assert_non_null(doc);
	assert_null(strstr(doc, "\"live\""));
	free(doc);
	assert_true(r.generation > gen);
	assert_ptr_equal(reg_find(&r, "run1", "w0", NULL), e);
	st = reg_acquire(&r, e, &pr);
	assert_true(st == REG_QUEUED || st == REG_WORKING || st == REG_READY);
	if (st == REG_READY)
		reg_put(&r, e);

	/* the follow stays while asked for, the sweep closes it after */
	pthread_mutex_lock(&r.mu);
	live_sweep_locked(&r, clock_mono_ns());
	assert_non_null(e->lv);
	live_sweep_locked(&r, clock_mono_ns() + LIVE_KEEP_NS + SEC);
	assert_null(e->lv);
	assert_int_equal(r.nfollows, 0);
	pthread_mutex_unlock(&r.mu);

	reg_release(&r);
	nb_free(&b);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/nns-serve-live.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_tree(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_entry, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
