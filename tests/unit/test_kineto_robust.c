/*
 * test_kineto_robust.c - unit tests of the Kineto importer's input paths
 * and failure behaviour: gzip (file, memory, multi-member, cut), truncated
 * and damaged input (events before the damage kept, NNS_ETRUNC with the
 * byte offset), garbage and empty input, missing files, nesting limits,
 * tiny parse windows (every unit restarted across refills), and parallel
 * parsing of generated multi-MB traces full of split traps (strings ending
 * in "}, {", nested lists of objects, escaped quotes), which must give the
 * same model as a serial parse, event for event.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/buf.h"
#include "importers/kineto_internal.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------ */

/* Appends printf text to the test's trace text (common/buf.h). */
#define bput(b, ...) assert_int_equal(buf_printf((b), __VA_ARGS__), 0)

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* A trace of about `target` bytes whose event boundaries are mixed with
 * look-alikes: the parallel splitter will pick some of those. */
static void gen_trace(struct buf *b, size_t target, uint64_t seed)
{
	uint64_t s = seed;
	unsigned i = 0;

	bput(b, "{\"schemaVersion\": 1,\n \"deviceProperties\": [{\"id\": 0, \"name\": "
		"\"G}, {\\\"x\", \"numSms\": 80}, {\"id\": 1, \"name\": \"H\"}],\n"
		" \"traceEvents\": [\n");
	while (b->len < target) {
		unsigned r = rnd(&s), ts = i * 7 + r % 5, us = r % 1000;
		if (i)
			bput(b, ",\n  ");
		switch (r % 7) {
		case 0:
			bput(
			    b,
			    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op}, {\\\"x\\\" "
			    "%u\", "
			    "\"pid\": 1, \"tid\": %u, \"ts\": %u.%03u, \"dur\": %u.%03u, \"args\": "
			    "{\"External id\": %u, \"Input Dims\": [[%u, 3], []], \"Call stack\": "
			    "\"f}, {(%u)\", \"list\": [{\"a\": 1}, {\"b\": \"}, {\\\"\"}]}}",
			    r % 13, r % 3, ts, us, r % 50, us, i, r % 17, r % 11);
			break;
		case 1:
			bput(b,
			     "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u\",\"pid\":0,\"tid\":"
			     "\"stream "
			     "7\",\"ts\":%u.%03u,\"dur\":%u,\"args\":{\"device\":0,\"stream\":7,"
			     "\"correlation\":%u,\"grid\":[%u,1,1],\"block\":[128,1,1],"
			     "\"registers per thread\":%u,\"est. achieved occupancy %%\":%u.5}}",
			     r % 29, ts, us, r % 9, i, r % 64, r % 255, r % 100);
			break;
		case 2:
			bput(b,
			     "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, "
			     "\"tid\": 1, \"ts\": %u, \"args\": {\"Device Type\": 1, \"Device "
			     "Id\": 0, "
			     "\"Bytes\": %d}}",
			     ts, (int)(r % 4096) - 2048);
			break;
		case 3:
			bput(b,
			     "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"tricky}, "
			     "{\", "
			     "\"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": %u}",
			     ts, r % 1000);
			break;
		case 4:
			bput(
			    b,
			    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"rt "
			    "\\\\\\\\\\\" }, "
			    "{\\\" %u\", \"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 1, \"args\": "
			    "{\"correlation\": %u}}",
			    r % 7, ts, i - 1);
			break;
		case 5:
			bput(b,
			     "{\"ph\": \"%c\", \"id\": %u, \"pid\": 1, \"tid\": 1, \"ts\": %u, "
			     "\"cat\": \"%s\", \"name\": \"x\"}",
			     r & 8 ? 's' : 'f', r % 100, ts, r & 16 ? "fwdbwd" : "ac2g");
			break;
		default:
			bput(b,
			     "{\"ph\": \"X\", \"name\": \"pad %u\", \"pid\": \"p\", \"tid\": %u, "
			     "\"ts\": %u, \"args\": {\"blob\": \"%0*u\"}}",
			     r % 5, r % 2, ts, (int)(r % 3000), 7);
			break;
		}
		i++;
	}
	bput(b, "\n],\n \"traceName\": \"gen}, {\\\"\", \"distributedInfo\": {\"rank\": 3}}\n");
}

static void assert_str_ids(const struct model *a, uint32_t x, const struct model *b, uint32_t y)
{
	assert_int_equal(strpool_len(&a->strings, x), strpool_len(&b->strings, y));
	assert_memory_equal(model_str(a, x), model_str(b, y), strpool_len(&a->strings, x));
}

static void assert_thread(const struct model *a, uint32_t x, const struct model *b, uint32_t y)
{
	assert_str_ids(a, a->threads.v[x].pid, b, b->threads.v[y].pid);
	assert_str_ids(a, a->threads.v[x].tid, b, b->threads.v[y].tid);
	assert_str_ids(a, a->threads.v[x].name, b, b->threads.v[y].name);
}

/* The two models hold the same rows in the same order. */
static void assert_same_model(const struct model *a, const struct model *b)
{
	size_t i;

	assert_int_equal(a->events.n, b->events.n);
	assert_int_equal(a->mems.n, b->mems.n);
	assert_int_equal(a->flows.n, b->flows.n);
	assert_int_equal(a->counters.n, b->counters.n);
	assert_int_equal(a->devices.n, b->devices.n);
	assert_int_equal(a->diag.events_skipped, b->diag.events_skipped);
	assert_int_equal(a->schema_version, b->schema_version);
	assert_int_equal(a->dist_rank, b->dist_rank);
	for (i = 0; i < a->events.n; i++) {
		const struct model_event *x = &a->events.v[i], *y = &b->events.v[i];
		assert_int_equal(x->ts, y->ts);
		assert_int_equal(x->dur, y->dur);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(model_ext_id(a, x), model_ext_id(b, y));
		assert_int_equal(model_corr(a, x), model_corr(b, y));
		assert_int_equal(x->device, y->device);
		assert_str_ids(a, x->name, b, y->name);
		assert_thread(a, x->thread, b, y->thread);
		assert_int_equal(x->extra == MODEL_NOIDX, y->extra == MODEL_NOIDX);
		if (x->extra == MODEL_NOIDX)
			continue;
		if (model_kind_is_device(x->kind)) {
			const struct model_dev_args *p = &a->dev_args.v[x->extra];
			const struct model_dev_args *q = &b->dev_args.v[y->extra];
			assert_int_equal(p->stream, q->stream);
			assert_int_equal(p->regs, q->regs);
			assert_true(p->occupancy == q->occupancy);
			assert_str_ids(a, p->grid, b, q->grid);
			assert_str_ids(a, p->block, b, q->block);
		} else {
			const struct model_op_args *p = &a->op_args.v[x->extra];
			const struct model_op_args *q = &b->op_args.v[y->extra];
			assert_str_ids(a, p->input_dims, b, q->input_dims);
			assert_str_ids(a, p->call_stack, b, q->call_stack);
		}
	}
	for (i = 0; i < a->mems.n; i++) {
		assert_int_equal(a->mems.v[i].ts, b->mems.v[i].ts);
		assert_int_equal(a->mems.v[i].bytes, b->mems.v[i].bytes);
		assert_thread(a, a->mems.v[i].thread, b, b->mems.v[i].thread);
	}
	for (i = 0; i < a->flows.n; i++) {
		assert_int_equal(a->flows.v[i].ts, b->flows.v[i].ts);
		assert_int_equal(a->flows.v[i].id, b->flows.v[i].id);
		assert_int_equal(a->flows.v[i].kind, b->flows.v[i].kind);
		assert_int_equal(a->flows.v[i].ph, b->flows.v[i].ph);
	}
	for (i = 0; i < a->devices.n; i++) {
		assert_int_equal(a->devices.v[i].id, b->devices.v[i].id);
		assert_str_ids(a, a->devices.v[i].name, b, b->devices.v[i].name);
	}
}

static int load_buf(struct model *m, const char *p, size_t n, int threads, struct nns_err *err)
{
	struct kineto_opts o = {.threads = threads};

	assert_int_equal(model_init(m), NNS_OK);
	return kineto_load_buffer(p, n, "gen.json", m, &o, err);
}

/* Parses with a given window size and thread count, splitting even small
 * inputs between the threads (internal entry point). */
static int load_window(struct model *m, const char *p, size_t n, size_t window, int threads,
		       struct nns_err *err)
{
	struct kineto_opts o = {.threads = threads};
	struct ksrc src;
	int rc;

	assert_int_equal(model_init(m), NNS_OK);
	ksrc_mem(&src, p, n, 0, "win.json");
	rc = kineto_parse_source(&src, (int64_t)n, 1, "win.json", m, &o, window, 1, NULL, err);
	ksrc_close(&src);
	return rc;
}

/* Parses gzip bytes with a given window and thread count, and progress
 * pg (may be NULL): with several
 * threads the stream is cut into chunks of 8 windows parsed in parallel
 * as it inflates (kineto_gzpar.c), whatever its size. */
static int load_gz_progress(struct model *m, const unsigned char *gz, size_t n, size_t window,
			    int threads, struct kprogress *pg, struct nns_err *err)
{
	struct kineto_opts o = {.threads = threads};
	struct ksrc src;
	int rc;

	assert_int_equal(model_init(m), NNS_OK);
	ksrc_mem(&src, (const char *)gz, n, 0, "win.json.gz");
	assert_int_equal(ksrc_gz(&src, 0, err), NNS_OK);
	rc = kineto_parse_source(&src, (int64_t)n, 0, "win.json.gz", m, &o, window, 1, pg, err);
	ksrc_close(&src);
	return rc;
}

static int load_gz_window(struct model *m, const unsigned char *gz, size_t n, size_t window,
			  int threads, struct nns_err *err)
{
	return load_gz_progress(m, gz, n, window, threads, NULL, err);
}

static char *temp_path(const char *tag)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "/tmp/nns_test_%s_XXXXXX", tag);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

static void write_file(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* ---- tests --------------------------------------------------------------------- */

static void test_parallel_equals_serial(void **state)
{
	struct buf b = {0};
	struct model ser, par;
	struct nns_err err;
	static const int threads[] = {2, 3, 5, 8};
	uint64_t seed;
	size_t i;

	(void)state;
	for (seed = 1; seed <= 2; seed++) {
		b.len = 0;
		gen_trace(&b, KP_PAR_MIN + ((size_t)3 << 20) * seed, seed);
		assert_int_equal(load_buf(&ser, b.p, b.len, 1, &err), NNS_OK);
		assert_true(ser.events.n > 30000);
		assert_int_equal(ser.dist_rank, 3);
		assert_int_equal(ser.devices.n, 2);
		for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
			assert_int_equal(load_buf(&par, b.p, b.len, threads[i], &err), NNS_OK);
			assert_same_model(&ser, &par);
			model_release(&par);
		}
		model_release(&ser);
	}
	free(b.p);
}

static void test_parallel_file_and_damage(void **state)
{
	struct buf b = {0};
	struct model ser, par;
	struct nns_err err, err2;
	struct kineto_opts o = {.threads = 4};
	char *path;
	size_t cut;

	(void)state;
	gen_trace(&b, KP_PAR_MIN + ((size_t)2 << 20), 7);
	path = temp_path("par");
	write_file(path, b.p, b.len);
	assert_int_equal(load_buf(&ser, b.p, b.len, 1, &err), NNS_OK);
	assert_int_equal(model_init(&par), NNS_OK);
	assert_int_equal(kineto_load_file(path, &par, &o, &err), NNS_OK);
	assert_same_model(&ser, &par);
	model_release(&par);
	model_release(&ser);

	/* truncated in the third quarter: parallel keeps what serial keeps */
	cut = b.len / 4 * 3 + 77;
	write_file(path, b.p, cut);
	assert_int_equal(load_buf(&ser, b.p, cut, 1, &err), NNS_ETRUNC);
	assert_int_equal(model_init(&par), NNS_OK);
	assert_int_equal(kineto_load_file(path, &par, &o, &err2), NNS_ETRUNC);
	assert_same_model(&ser, &par);
	assert_int_equal(par.diag.truncated, 1);
	assert_non_null(strstr(err2.msg, "byte "));
	model_release(&par);
	model_release(&ser);

	/* damaged in the middle of the second half */
	cut = (size_t)(strstr(b.p + b.len / 3 * 2, "\"ts\"") - b.p);
	b.p[cut] = '@';
	assert_int_equal(load_buf(&ser, b.p, b.len, 1, &err), NNS_ETRUNC);
	assert_int_equal(load_buf(&par, b.p, b.len, 4, &err2), NNS_ETRUNC);
	assert_string_equal(err.msg, err2.msg);
	assert_same_model(&ser, &par);
	model_release(&par);
	model_release(&ser);
	unlink(path);
	free(b.p);
}

static void test_small_windows(void **state)
{
	struct buf b = {0};
	struct model ref, m;
	struct nns_err err;
	static const size_t wins[] = {64, 65, 100, 257, 1000, 4096};
	size_t i;

	(void)state;
	gen_trace(&b, 200000, 3);
	assert_int_equal(load_buf(&ref, b.p, b.len, 1, &err), NNS_OK);
	for (i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
		assert_int_equal(load_window(&m, b.p, b.len, wins[i], 1, &err), NNS_OK);
		assert_same_model(&ref, &m);
		model_release(&m);
		/* and split between threads, each with the small window */
		assert_int_equal(load_window(&m, b.p, b.len, wins[i], 2 + (int)i, &err), NNS_OK);
		assert_same_model(&ref, &m);
		model_release(&m);
	}
	model_release(&ref);
	free(b.p);
}

/* The first chunk holds only metadata, a no-op event and a "B" whose "E" is
 * in the next chunk: nothing of it may be lost when the chunks are joined. */
static void test_parallel_metadata_chunk(void **state)
{
	struct buf b = {0};
	struct model m;
	struct nns_err err;
	const struct model_event *e;
	int i;

	(void)state;
	bput(&b, "{\"schemaVersion\": 3, \"baseTimeNanoseconds\": 5, \"Framework\": "
		 "\"pytorch-lightning\", \"distributedInfo\": {\"rank\": 2}, "
		 "\"traceEvents\": [{\"ph\": \"M\", \"name\": \"process_name\"}, "
		 "{\"ph\": \"X\", \"name\": \"bad\"}, "
		 "{\"ph\": \"B\", \"name\": \"r\", \"pid\": 1, \"tid\": 1, \"ts\": 1, "
		 "\"args\": {\"pad\": \"");
	for (i = 0; i < 2000; i++)
		bput(&b, "x");
	bput(&b, "\"}}, {\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": 5}]}");
	assert_int_equal(load_window(&m, b.p, b.len, 0, 2, &err), NNS_OK);
	assert_int_equal(m.schema_version, 3);
	assert_int_equal(m.base_time_ns, 5);
	assert_int_equal(m.is_lightning, 1);
	assert_int_equal(m.dist_rank, 2);
	assert_int_equal(m.diag.events_skipped, 1);
	assert_int_equal(m.events.n, 1);
	e = &m.events.v[0];
	assert_string_equal(model_str(&m, e->name), "r");
	assert_int_equal(e->dur, 4000);
	model_release(&m);
	free(b.p);
}

/* A .gz parsed in chunks by several threads while it inflates gives the
 * serial parse's model, for one member or two, and fails as the serial
 * parse does (same status, message and events kept) when cut or corrupt. */
static void test_gzip_parallel(void **state)
{
	struct buf b = {0};
	struct model ref, m, one;
	struct nns_err err, err1;
	static const int threads[] = {2, 3, 8};
	static const size_t windows[] = {4096, 65536};
	unsigned char *gz, *gz2, *two;
	size_t gzn, gz2n, half, i, w, cut;
	int rc, rc1;

	(void)state;
	gen_trace(&b, 3000000, 7);
	assert_int_equal(load_buf(&ref, b.p, b.len, 1, &err), NNS_OK);
	gz = tu_gzip(b.p, b.len, 6, &gzn);
	assert_non_null(gz);
	half = b.len / 2;
	gz2 = tu_gzip(b.p + half, b.len - half, 6, &gz2n);
	assert_non_null(gz2);
	two = malloc(gzn + gz2n);
	assert_non_null(two);
	for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
			assert_int_equal(load_gz_window(&m, gz, gzn, windows[w], threads[i], &err),
					 NNS_OK);
			assert_same_model(&ref, &m);
			assert_int_equal(m.diag.bytes_read, (int64_t)b.len);
			model_release(&m);
		}
	}

	/* the server's progress (compressed bytes) and cancel flag */
	{
		_Atomic int64_t done = 0;
		_Atomic int cancel = 0;
		struct kprogress pg;

		kprog_init(&pg, 0, "p.json.gz", (int64_t)gzn);
		pg.ext = &done;
		pg.cancel = &cancel;
		assert_int_equal(load_gz_progress(&m, gz, gzn, 4096, 2, &pg, &err), NNS_OK);
		assert_int_equal(atomic_load(&done), (int64_t)gzn);
		model_release(&m);
		atomic_store(&cancel, 1);
		assert_int_not_equal(load_gz_progress(&m, gz, gzn, 4096, 2, &pg, &err), NNS_OK);
		assert_non_null(strstr(err.msg, "cancelled"));
		model_release(&m);
	}

	/* two members, the second starting mid-element */
	free(gz);
	gz = tu_gzip(b.p, half, 6, &gzn);
	assert_non_null(gz);
	memcpy(two, gz, gzn);
	memcpy(two + gzn, gz2, gz2n);
	assert_int_equal(load_gz_window(&m, two, gzn + gz2n, 4096, 2, &err), NNS_OK);
	assert_same_model(&ref, &m);
	model_release(&m);

	/* cut (in either member) or corrupt: as the serial parse says */
	for (cut = 0; cut < 3; cut++) {
		size_t n = cut == 0 ? gzn / 2 : cut == 1 ? gzn + gz2n / 3 : gzn + gz2n;
		if (cut == 2)
			memset(two + gzn + gz2n / 2, 0x55, 64);
		rc1 = load_gz_window(&one, two, n, 4096, 1, &err1);
		rc = load_gz_window(&m, two, n, 4096, 2, &err);
		assert_int_equal(rc, rc1);
		assert_int_not_equal(rc, NNS_OK);
		assert_string_equal(err.msg, err1.msg);
		if (cut < 2) /* corrupt data may inflate to bad JSON first */
			assert_non_null(strstr(err.msg, "gzip"));
		assert_int_equal(m.events.n, one.events.n);
		assert_true(m.events.n > 0 && m.events.n < ref.events.n);
		if (rc == NNS_ETRUNC)
			assert_same_model(&one, &m);
		model_release(&m);
		model_release(&one);
	}
	free(two);
	free(gz);
	free(gz2);
	model_release(&ref);
	free(b.p);
}

static void test_gzip(void **state)
{
	struct buf b = {0};
	struct model ref, m;
	struct nns_err err;
	struct kineto_opts o = {.threads = 0};
	unsigned char *gz, *gz2, *two;
	size_t gzn, gz2n, half;
	char *path;

	(void)state;
	gen_trace(&b, 3000000, 5);
	assert_int_equal(load_buf(&ref, b.p, b.len, 1, &err), NNS_OK);
	gz = tu_gzip(b.p, b.len, 6, &gzn);
	assert_non_null(gz);

	/* file, decompressed by a thread */
	path = temp_path("gz");
	write_file(path, (char *)gz, gzn);
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_file(path, &m, &o, &err), NNS_OK);
	assert_same_model(&ref, &m);
	assert_int_equal(m.diag.bytes_read, (int64_t)b.len);
	model_release(&m);

	/* memory */
	assert_int_equal(load_buf(&m, (char *)gz, gzn, 1, &err), NNS_OK);
	assert_same_model(&ref, &m);
	model_release(&m);

	/* two members, as `cat a.gz b.gz` makes */
	half = b.len / 2;
	gz2 = tu_gzip(b.p + half, b.len - half, 6, &gz2n);
	assert_non_null(gz2);
	free(gz);
	gz = tu_gzip(b.p, half, 6, &gzn);
	assert_non_null(gz);
	two = malloc(gzn + gz2n);
	assert_non_null(two);
	memcpy(two, gz, gzn);
	memcpy(two + gzn, gz2, gz2n);
	write_file(path, (char *)two, gzn + gz2n);
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_file(path, &m, &o, &err), NNS_OK);
	assert_same_model(&ref, &m);
	model_release(&m);

	/* cut gzip: ETRUNC with the events before the cut */
	write_file(path, (char *)two, gzn / 2);
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_file(path, &m, &o, &err), NNS_ETRUNC);
	assert_true(m.events.n > 0 && m.events.n < ref.events.n);
	assert_int_equal(m.diag.truncated, 1);
	model_release(&m);

	/* corrupt gzip data */
	memset(two + 20, 0x55, 64);
	write_file(path, (char *)two, gzn + gz2n);
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_not_equal(kineto_load_file(path, &m, &o, &err), NNS_OK);
	assert_non_null(strstr(err.msg, "gzip"));
	model_release(&m);

	unlink(path);
	free(two);
	free(gz);
	free(gz2);
	model_release(&ref);
	free(b.p);
}

static void test_truncated(void **state)
{
	const char *json =
	    "{\"traceEvents\": [\n"
	    "{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1},\n"
	    "{\"ph\": \"X\", \"name\": \"b\", \"ts\": 2, \"dur\": 1, \"pid\": 1, \"tid\": 1},\n"
	    "{\"ph\": \"X\", \"name\": \"c\", \"ts\": 3, \"dur\": 1, \"pid\": 1, \"tid\": 1}\n"
	    "]}";
	size_t n = strlen(json), cut, last = 0;
	struct model m;
	struct nns_err err;
	char want[64];
	int rc;

	(void)state;
	/* cut in the third event */
	cut = (size_t)(strstr(json, "\"c\"") - json);
	rc = load_buf(&m, json, cut, 1, &err);
	assert_int_equal(rc, NNS_ETRUNC);
	assert_int_equal(m.events.n, 2);
	assert_int_equal(m.diag.truncated, 1);
	assert_true(m.finalized);
	snprintf(want, sizeof(want), "gen.json: byte %zu: ", cut);
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(m.diag.first_problem, "truncated"));
	model_release(&m);

	/* every prefix: never a crash, events only grow with the prefix */
	for (cut = 0; cut <= n; cut++) {
		rc = load_buf(&m, json, cut, 1, &err);
		if (cut == 0)
			assert_int_equal(rc, NNS_EFORMAT);
		else if (cut == n)
			assert_int_equal(rc, NNS_OK);
		else
			assert_int_equal(rc, NNS_ETRUNC);
		assert_true(m.events.n >= last);
		last = m.events.n;
		model_release(&m);
	}
	assert_int_equal(last, 3);
}

static void test_damaged_and_garbage(void **state)
{
	static const struct {
		const char *json;
		int rc;
		const char *msg;
	} cases[] = {
	    {"", NNS_EFORMAT, "x.json: byte 0: empty input"},
	    {"  \n ", NNS_EFORMAT, "only whitespace"},
	    {"hello world", NNS_EFORMAT, "x.json: byte 0: not a JSON trace"},
	    {"\x01\x02\x03", NNS_EFORMAT, "x.json: byte 0: not a JSON trace: expected '{' or '['"},
	    {"{\"a\": 1}", NNS_EFORMAT, "no \"traceEvents\""},
	    {"{\"traceEvents\": [{\"ph\": \"X\" \"ts\": 1}]}", NNS_EFORMAT,
	     "x.json: byte 28: expected ',' or '}' in event object"},
	    {"{\"traceEvents\": [{\"ph\":\"X\",\"ts\":1,\"name\":\"a\"},"
	     "{\"ph\":\"X\",\"ts\":1 x}, {\"ph\":\"X\",\"ts\":2}]}",
	     NNS_ETRUNC, "expected ',' or '}' in event object; kept"},
	    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}] garbage", NNS_ETRUNC,
	     "expected ',' or '}' after a top-level value; kept"},
	    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}]} trailing", NNS_OK, NULL},
	    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 12345678901234567890123}]}", NNS_OK, NULL},
	    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": tru}]}", NNS_EFORMAT, "invalid literal"},
	    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 0000000000000000000000000000000000000000"
	     "00000000000000000000000000001}]}",
	     NNS_EFORMAT, "number longer than"},
	    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": [}]}}]}", NNS_EFORMAT,
	     "mismatched bracket"},
	    {"{\"traceEvents\": {\"ph\": \"X\"}}", NNS_EFORMAT, "no \"traceEvents\""},
	};
	struct model m;
	struct nns_err err;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kineto_opts o = {.threads = 1};
		assert_int_equal(model_init(&m), NNS_OK);
		rc = kineto_load_buffer(cases[i].json, strlen(cases[i].json), "x.json", &m, &o,
					&err);
		if (rc != cases[i].rc || (cases[i].msg && !strstr(err.msg, cases[i].msg)))
			fail_msg("case %zu: rc %d (want %d), msg \"%s\" (want \"%s\")", i, rc,
				 cases[i].rc, rc ? err.msg : "", cases[i].msg ? cases[i].msg : "");
		if (rc == NNS_ETRUNC) {
			assert_int_equal(m.events.n, 1);
			assert_int_equal(m.diag.truncated, 1);
		}
		model_release(&m);
	}
}

static void test_missing_file(void **state)
{
	struct model m;
	struct nns_err err;

	(void)state;
	assert_int_equal(model_init(&m), NNS_OK);
	assert_int_equal(kineto_load_file("/nonexistent/trace.json", &m, NULL, &err), NNS_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent/trace.json"));
	assert_non_null(strstr(err.msg, "No such file or directory"));
	assert_int_equal(kineto_load_file("/tmp", &m, NULL, &err), NNS_EIO);
	model_release(&m);
}

static void test_deep_nesting(void **state)
{
	struct buf b = {0};
	struct model m;
	struct nns_err err;
	static const char *const key[] = {"x", "Input Dims", NULL};
	int i, k;

	(void)state;
	for (k = 0; k < 3; k++) {
		b.len = 0;
		if (key[k])
			bput(&b,
			     "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"%s\": ",
			     key[k]);
		else
			bput(&b, "{\"other\": ");
		for (i = 0; i < 10000; i++)
			bput(&b, "[");
		for (i = 0; i < 10000; i++)
			bput(&b, "]");
		bput(&b, "%s", key[k] ? "}}]}" : ", \"traceEvents\": []}");
		assert_int_equal(load_buf(&m, b.p, b.len, 1, &err), NNS_EFORMAT);
		assert_non_null(strstr(err.msg, "nesting deeper than 64"));
		model_release(&m);
	}
	/* 50 levels are fine */
	b.len = 0;
	bput(&b, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"Input Dims\": ");
	for (i = 0; i < 50; i++)
		bput(&b, "[");
	for (i = 0; i < 50; i++)
		bput(&b, "]");
	bput(&b, "}}]}");
	assert_int_equal(load_buf(&m, b.p, b.len, 1, &err), NNS_OK);
	assert_int_equal(m.events.n, 1);
	model_release(&m);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_damaged_and_garbage),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_deep_nesting),
	    cmocka_unit_test(test_small_windows),
	    cmocka_unit_test(test_parallel_metadata_chunk),
	    cmocka_unit_test(test_gzip),
	    cmocka_unit_test(test_gzip_parallel),
	    cmocka_unit_test(test_parallel_equals_serial),
	    cmocka_unit_test(test_parallel_file_and_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
