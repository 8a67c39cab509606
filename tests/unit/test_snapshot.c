/*
 * test_snapshot.c - snapshots of a finalized model and its trace index
 * (common/snapfile.h, model.h "snapshots", trace_index.h "snapshots"):
 * sections read back as written; files cut short, damaged, of another
 * signature or key refused with a reason; a model and index read back
 * hold every row, string and index array of the original, answer every
 * trace query byte for byte the same, and give the same documents when
 * analysed again (a small trace with memory records, flows, counters and
 * kernels, and the shared ResNet-50 sample when ../shared is there).
 * An index whose lanes, tracks or names would lead a query outside the
 * arrays is refused. Releasing the mapped model unmaps it and frees only
 * what is not mapped (the ASan build checks it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "common/snapfile.h"
#include "importers/kineto.h"
#include "importers/load.h"
#include "output/output.h"
#include "testutil.h"
#include "trace/trace_index.h"
#include "trace/trace_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A tiny trace of every row kind the Kineto importer makes. */
static const char *doc =
    "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"GPU X\","
    "\"totalGlobalMem\":1000,\"computeMajor\":8,\"computeMinor\":0,\"numSms\":10}],"
    "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":1,\"world_size\":2},"
    "\"traceEvents\":["
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"py\"}},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":100,"
    "\"tid\":100,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":100,\"tid\":100,"
    "\"ts\":10,\"dur\":40,\"args\":{\"External id\":1,\"Input Dims\":[[2,3],[4,3]],"
    "\"Input type\":[\"float\",\"float\"],\"Sequence number\":7}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
    "\"tid\":100,\"ts\":15,\"dur\":5,\"args\":{\"correlation\":11,\"External id\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"AddmmBackward0\",\"pid\":100,\"tid\":200,"
    "\"ts\":50,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":\"stream 7\","
    "\"ts\":25,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":11,"
    "\"grid\":[1,2,1],\"block\":[128,1,1],\"registers per thread\":32}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,"
    "\"tid\":\"stream 20\",\"ts\":50,\"dur\":2,\"args\":{\"device\":0,\"stream\":20,"
    "\"bytes\":4096}},"
    "{\"ph\":\"s\",\"id\":5,\"pid\":100,\"tid\":100,\"ts\":12,\"cat\":\"fwdbwd\","
    "\"name\":\"fwdbwd\"},"
    "{\"ph\":\"f\",\"id\":5,\"pid\":100,\"tid\":200,\"ts\":50,\"cat\":\"fwdbwd\","
    "\"name\":\"fwdbwd\",\"bp\":\"e\"},"
    "{\"ph\":\"C\",\"name\":\"loss\",\"pid\":100,\"tid\":100,\"ts\":60,\"args\":{\"v\":2.5}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":10,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":2000,\"Total Allocated\":3000}}"
    "]}";

static char *tmp_file(void)
{
	char *p = strdup("/tmp/nns-snap-test.XXXXXX");
	int fd = mkstemp(p);

	assert_true(fd >= 0);
	close(fd);
	return p;
}

/* ---- the section file ------------------------------------------------------ */

static const uint64_t key[2] = {11, 22};

static void write_three(const char *path)
{
	static const int64_t a[3] = {1, -2, 3};
	static const char b[5] = "abcde";
	struct snapw w;
	struct nns_err err;
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	nns_err_clear(&err);
	snapw_begin(&w, fd, 77, key, &err);
	snapw_add(&w, 1, a, sizeof(a));
	snapw_add(&w, 2, NULL, 0);
	snapw_add(&w, 3, b, sizeof(b));
	assert_int_equal(snapw_end(&w), NNS_OK);
	close(fd);
}

static int open_it(const char *path, uint64_t sig, const uint64_t *k, struct snapr *r,
		   struct nns_err *err)
{
	int fd = open(path, O_RDONLY), rc;

	assert_true(fd >= 0);
	nns_err_clear(err);
	rc = snapr_open(r, fd, sig, k, err);
	close(fd);
	return rc;
}

static void test_sections_round_trip(void **state)
{
	char *path = tmp_file();
	struct snapr r;
	struct nns_err err;
	const int64_t *a;
	const char *b;
	size_t n;
	(void)state;

	write_three(path);
	assert_int_equal(open_it(path, 77, key, &r, &err), NNS_OK);
	assert_non_null(a = snapr_next(&r, 1, sizeof(*a), &n, &err));
	assert_int_equal(n, 3);
	assert_true(a[0] == 1 && a[1] == -2 && a[2] == 3);
	assert_int_equal((uintptr_t)a % 64, 0); /* aligned for any row */
	assert_non_null(snapr_next(&r, 2, 8, &n, &err));
	assert_int_equal(n, 0);
	/* the wrong tag, or rows that do not divide the section: refused */
	assert_null(snapr_next(&r, 4, 1, &n, &err));
	assert_int_equal(err.code, NNS_EFORMAT);
	assert_null(snapr_next(&r, 3, 2, &n, &err));
	assert_non_null(b = snapr_next(&r, 3, 1, &n, &err));
	assert_int_equal(n, 5);
	assert_memory_equal(b, "abcde", 5);
	assert_null(snapr_next(&r, 3, 1, &n, &err)); /* no more */
	assert_non_null(strstr(err.msg, "missing"));
	snap_map_release(&r.map);
	assert_null(r.map.base);
	unlink(path);
	free(path);
}

static void test_refused_files(void **state)
{
	char *path = tmp_file();
	const uint64_t other[2] = {11, 23};
	struct snapr r;
	struct nns_err err;
	struct stat st;
	int fd;
	(void)state;

	write_three(path);
	assert_int_equal(open_it(path, 78, key, &r, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "another build"));
	assert_null(r.map.base);
	assert_int_equal(open_it(path, 77, other, &r, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "another version of the source"));

	/* a byte short: the trailer is not where the size says */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	assert_int_equal(open_it(path, 77, key, &r, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "cut short"));
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(open_it(path, 77, key, &r, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "too short"));

	/* the header written last is missing: not a snapshot at all */
	write_three(path);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\0\0\0\0\0\0\0\0", 8, 0), 8);
	close(fd);
	assert_int_equal(open_it(path, 77, key, &r, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "not a snapshot"));

	/* a section table pointing past the data */
	write_three(path);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	{
		struct snap_sec s;
		off_t tab = 0;
		uint64_t t;

		assert_int_equal(stat(path, &st), 0);
		/* the trailer's table offset: after magic and the count */
		assert_int_equal(pread(fd, &t, 8, st.st_size - 64 + 16), 8);
		tab = (off_t)t;
		assert_int_equal(pread(fd, &s, sizeof(s), tab), sizeof(s));
		s.bytes = 1u << 30;
		assert_int_equal(pwrite(fd, &s, sizeof(s), tab), sizeof(s));
	}
	close(fd);
	assert_int_equal(open_it(path, 77, key, &r, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "outside"));
	unlink(path);
	free(path);
}

/* ---- a model and its index ------------------------------------------------- */

static char *json_of(struct jsonw *w)
{
	char *s;
	size_t n;

	assert_int_equal(jsonw_finish(w, NULL), NNS_OK);
	s = jsonw_take(w, &n);
	assert_non_null(s);
	jsonw_release(w);
	return s;
}

/* Every trace query of a and b gives the same bytes. */
static void same_answers(const struct trace_index *a, const struct trace_index *b,
			 const struct model *m)
{
	const struct trace_index *ix[2] = {a, b};
	char *out[2];
	int64_t end = m->max_end - m->min_ts + 1;
	struct nns_err err;

	for (int q = 0; q < 6; q++) {
		for (int k = 0; k < 2; k++) {
			struct jsonw w;
			struct trace_window_q wq = {0, q == 1 ? end : end / 3 + 1,
						    q == 1 ? 1920 : 50, NULL, 0};

			assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
			nns_err_clear(&err);
			if (q == 0)
				trace_meta_json(ix[k], &w);
			else if (q <= 2)
				assert_int_equal(trace_window_json(ix[k], &wq, &w, &err), NNS_OK);
			else if (q <= 4)
				assert_int_equal(
				    trace_event_json(ix[k], q == 3 ? 1 : (int64_t)m->events.n / 2,
						     &w, &err),
				    NNS_OK);
			else
				assert_int_equal(
				    trace_summary_json(ix[k], 0, end, NULL, 0, &w, &err), NNS_OK);
			out[k] = json_of(&w);
		}
		assert_string_equal(out[0], out[1]);
		free(out[0]);
		free(out[1]);
	}
}

#define SAME_ROWS(vec)                                                                             \
	do {                                                                                       \
		assert_int_equal(a->vec.n, b->vec.n);                                              \
		if (a->vec.n)                                                                      \
			assert_memory_equal(a->vec.v, b->vec.v, a->vec.n * sizeof(*a->vec.v));     \
	} while (0)

static void same_model(const struct model *a, const struct model *b)
{
	size_t n = a->events.n;

	assert_int_equal(a->strings.count, b->strings.count);
	for (uint32_t i = 0; i < a->strings.count; i++) {
		assert_int_equal(strpool_len(&a->strings, i), strpool_len(&b->strings, i));
		assert_memory_equal(model_str(a, i), model_str(b, i), strpool_len(&a->strings, i));
	}
	SAME_ROWS(threads);
	SAME_ROWS(events);
	SAME_ROWS(dev_args);
	SAME_ROWS(op_args);
	SAME_ROWS(mems);
	SAME_ROWS(flows);
	SAME_ROWS(counters);
	SAME_ROWS(devices);
	SAME_ROWS(meta);
	assert_memory_equal(a->launch_of, b->launch_of, n * sizeof(*a->launch_of));
	assert_memory_equal(a->parent, b->parent, n * sizeof(*a->parent));
	assert_memory_equal(a->depth, b->depth, n * sizeof(*a->depth));
	assert_memory_equal(a->op_of, b->op_of, n * sizeof(*a->op_of));
	assert_memory_equal(a->thread_pid, b->thread_pid, a->threads.n * sizeof(int64_t));
	assert_memory_equal(&a->attr, &b->attr, sizeof(a->attr));
	assert_true(a->min_ts == b->min_ts && a->max_end == b->max_end);
	assert_true(a->dist_rank == b->dist_rank && a->dist_world_size == b->dist_world_size);
	assert_string_equal(model_str(a, a->dist_backend), model_str(b, b->dist_backend));
	assert_int_equal(b->finalized, 1);
	/* the thread map answers as before */
	for (uint32_t t = 0; t < a->threads.n; t++) {
		const uint32_t *ix =
		    hmap_get(&b->thread_ix, hmap_pair(b->threads.v[t].pid, b->threads.v[t].tid));

		assert_non_null(ix);
		assert_int_equal(*ix, t);
	}
}

/* The bytes of every file in dir, concatenated in name order. */
static void same_dirs(const char *d1, const char *d2)
{
	struct dirent **names;
	int n = scandir(d1, &names, NULL, alphasort);

	assert_true(n > 4);
	for (int i = 0; i < n; i++) {
		char p1[512], p2[512];
		FILE *f1, *f2;
		int c1, c2;

		if (names[i]->d_name[0] == '.') {
			free(names[i]);
			continue;
		}
		snprintf(p1, sizeof(p1), "%s/%s", d1, names[i]->d_name);
		snprintf(p2, sizeof(p2), "%s/%s", d2, names[i]->d_name);
		assert_non_null(f1 = fopen(p1, "r"));
		if (!(f2 = fopen(p2, "r")))
			fail_msg("%s missing beside %s", p2, p1);
		do {
			c1 = fgetc(f1);
			c2 = fgetc(f2);
			if (c1 != c2)
				fail_msg("%s and %s differ", p1, p2);
		} while (c1 != EOF);
		fclose(f1);
		fclose(f2);
		unlink(p1);
		unlink(p2);
		free(names[i]);
	}
	free(names);
	rmdir(d1);
	rmdir(d2);
}

/* Writes m and its index to a snapshot, reads it back and compares. */
static void round_trip(struct model *m)
{
	char *path = tmp_file(), d1[] = "/tmp/nns-snap-a.XXXXXX", d2[] = "/tmp/nns-snap-b.XXXXXX";
	struct trace_index *ix, *ix2;
	struct an_profile p, p2;
	struct out_source src = {"w", NULL, "t.json", "r"};
	struct out_opts oo = {0, 0};
	struct model m2;
	struct snapw w;
	struct snapr r;
	struct nns_err err;
	int fd;

	nns_err_clear(&err);
	assert_int_equal(trace_index_build(&ix, m, NULL, &err), NNS_OK);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	snapw_begin(&w, fd, trace_index_snap_sig(), key, &err);
	model_snap_write(m, &w);
	trace_index_snap_write(ix, &w);
	assert_int_equal(snapw_end(&w), NNS_OK);
	close(fd);

	assert_int_equal(open_it(path, trace_index_snap_sig(), key, &r, &err), NNS_OK);
	assert_int_equal(model_snap_read(&m2, &r, &err), NNS_OK);
	assert_null(r.map.base); /* the model took the mapping */
	assert_non_null(m2.map.base);
	assert_true(snap_map_holds(&m2.map, m2.events.v));
	assert_int_equal(trace_index_snap_read(&ix2, &m2, &r, &err), NNS_OK);
	same_model(m, &m2);
	same_answers(ix, ix2, m);

	/* analysed again, the mapped model gives the same documents */
	assert_int_equal(an_profile_compute_mask(&p, m, AN_PASSES_DOCS, 1, &err), NNS_OK);
	assert_int_equal(an_profile_compute_mask(&p2, &m2, AN_PASSES_DOCS, 2, &err), NNS_OK);
	assert_non_null(mkdtemp(d1));
	assert_non_null(mkdtemp(d2));
	assert_int_equal(out_write_views(d1, &src, &p, &oo, &err), NNS_OK);
	assert_int_equal(out_write_views(d2, &src, &p2, &oo, &err), NNS_OK);
	same_dirs(d1, d2);

	an_profile_release(&p);
	an_profile_release(&p2);
	trace_index_free(ix);
	trace_index_free(ix2);
	model_release(&m2);
	assert_null(m2.map.base);
	unlink(path);
	free(path);
}

static void test_model_round_trip(void **state)
{
	struct model m;
	(void)state;

	assert_int_equal(tu_kineto_profile(doc, &m, NULL), 0);
	assert_true(m.mems.n == 1 && m.flows.n == 2 && m.counters.n == 1 && m.devices.n == 1);
	round_trip(&m);
	model_release(&m);
}

static void test_sample_round_trip(void **state)
{
	char path[1024];
	struct kineto_opts ko = {.threads = 2};
	struct model m;
	struct nns_err err;
	(void)state;

	snprintf(path, sizeof(path),
		 "%s/data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
		 tu_shared_dir());
	if (access(path, R_OK) != 0) {
		print_message("skipped: %s not found (set NNS_SHARED)\n", path);
		skip();
	}
	nns_err_clear(&err);
	assert_int_equal(load_trace(&m, path, &ko, &err), NNS_OK);
	assert_true(m.events.n > 40000);
	round_trip(&m);
	model_release(&m);
}

/* A snapshot whose model sections are of another count than its index
 * says: refused, and what was read is released. */
static void test_index_of_another_model(void **state)
{
	char *path = tmp_file();
	struct model m, small, m2;
	struct trace_index *ix, *ix2 = NULL;
	struct snapw w;
	struct snapr r;
	struct nns_err err;
	int fd;
	(void)state;

	assert_int_equal(tu_kineto_profile(doc, &m, NULL), 0);
	assert_int_equal(
	    tu_kineto_profile("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\","
			      "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]}",
			      &small, NULL),
	    0);
	nns_err_clear(&err);
	assert_int_equal(trace_index_build(&ix, &m, NULL, &err), NNS_OK);
	fd = open(path, O_WRONLY | O_TRUNC);
	snapw_begin(&w, fd, trace_index_snap_sig(), key, &err);
	model_snap_write(&small, &w);
	trace_index_snap_write(ix, &w);
	assert_int_equal(snapw_end(&w), NNS_OK);
	close(fd);
	assert_int_equal(open_it(path, trace_index_snap_sig(), key, &r, &err), NNS_OK);
	assert_int_equal(model_snap_read(&m2, &r, &err), NNS_OK);
	assert_int_equal(trace_index_snap_read(&ix2, &m2, &r, &err), NNS_EFORMAT);
	assert_null(ix2);
	assert_non_null(strstr(err.msg, "not its model's"));
	model_release(&m2);
	trace_index_free(ix);
	model_release(&m);
	model_release(&small);
	unlink(path);
	free(path);
}

/* An index whose lanes or tracks place rows outside the arrays (a damaged
 * file that still has the right counts): refused, never queried. */
static void damaged_layout(void (*damage)(struct trace_index *ix, int undo))
{
	char *path = tmp_file();
	struct model m, m2;
	struct trace_index *ix, *ix2 = NULL;
	struct snapw w;
	struct snapr r;
	struct nns_err err;
	int fd;

	assert_int_equal(tu_kineto_profile(doc, &m, NULL), 0);
	nns_err_clear(&err);
	assert_int_equal(trace_index_build(&ix, &m, NULL, &err), NNS_OK);
	damage(ix, 0);
	fd = open(path, O_WRONLY | O_TRUNC);
	snapw_begin(&w, fd, trace_index_snap_sig(), key, &err);
	model_snap_write(&m, &w);
	trace_index_snap_write(ix, &w);
	assert_int_equal(snapw_end(&w), NNS_OK);
	close(fd);
	damage(ix, 1);
	assert_int_equal(open_it(path, trace_index_snap_sig(), key, &r, &err), NNS_OK);
	assert_int_equal(model_snap_read(&m2, &r, &err), NNS_OK);
	assert_int_equal(trace_index_snap_read(&ix2, &m2, &r, &err), NNS_EFORMAT);
	assert_null(ix2);
	assert_non_null(strstr(err.msg, "layout is damaged"));
	model_release(&m2);
	trace_index_free(ix);
	model_release(&m);
	unlink(path);
	free(path);
}

static void lane_past_events(struct trace_index *ix, int undo)
{
	static size_t n;

	if (!undo) {
		n = ix->lanes[0].n;
		ix->lanes[0].n = ix->nev + 1;
	} else {
		ix->lanes[0].n = n;
	}
}

static void track_past_lanes(struct trace_index *ix, int undo)
{
	static uint32_t lane0;

	if (!undo) {
		lane0 = ix->tracks[ix->ntracks - 1].lane0;
		ix->tracks[ix->ntracks - 1].lane0 = (uint32_t)ix->nlanes;
	} else {
		ix->tracks[ix->ntracks - 1].lane0 = lane0;
	}
}

static void name_unterminated(struct trace_index *ix, int undo)
{
	static char name[TI_NAME_MAX];

	if (!undo) {
		memcpy(name, ix->tracks[0].name, sizeof(name));
		memset(ix->tracks[0].name, 'x', sizeof(name));
	} else {
		memcpy(ix->tracks[0].name, name, sizeof(name));
	}
}

static void test_damaged_layout_refused(void **state)
{
	(void)state;
	damaged_layout(lane_past_events);
	damaged_layout(track_past_lanes);
	damaged_layout(name_unterminated);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sections_round_trip),
	    cmocka_unit_test(test_refused_files),
	    cmocka_unit_test(test_model_round_trip),
	    cmocka_unit_test(test_sample_round_trip),
	    cmocka_unit_test(test_index_of_another_model),
	    cmocka_unit_test(test_damaged_layout_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
