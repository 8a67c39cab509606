/*
 * test_kineto_limits.c - the Kineto importer against hostile and odd input
 * (issue 20): the memory budget (many tiny events fail with a message that
 * names the budget, serial and parallel, while a real-shaped trace of the
 * same size passes), --max-input on plain and gzip input, the gzip ratio
 * guard, whitespace runs and padding (between units, inside an event,
 * mostly padding, after the document), corrupt and cut gzip named by their
 * compressed byte offset, and the minor cases: negative and huge "dur",
 * "ts" out of range, repeated keys (the last one kept, and noted).
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

#define bput(b, ...) assert_int_equal(buf_printf((b), __VA_ARGS__), 0)

static int load(struct model *m, const char *p, size_t n, const struct kineto_opts *o,
		struct nns_err *err)
{
	assert_int_equal(model_init(m), NNS_OK);
	nns_err_clear(err);
	return kineto_load_buffer(p, n, "t.json", m, o, err);
}

static void want_msg(const char *msg, const char *part)
{
	if (!strstr(msg, part))
		fail_msg("message \"%s\" lacks \"%s\"", msg, part);
}

/* ~60-byte complete events, as bench/gen_bombs writes them, up to `bytes`. */
static void tiny_trace(struct buf *b, size_t bytes)
{
	size_t i = 0;

	bput(b, "{\"traceEvents\": [\n");
	for (; b->len < bytes; i++)
		bput(b, "%s{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1}",
		     i ? ",\n" : "", 1000000 + 2 * i);
	bput(b, "\n]}\n");
}

/* Kineto-shaped events (an operator with its shapes and call stack, a
 * launch, a kernel with its launch arguments), pretty-printed, up to `bytes`. */
static void real_trace(struct buf *b, size_t bytes)
{
	size_t i = 0;

	bput(b, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
	while (b->len < bytes) {
		bput(
		    b,
		    "%s  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::conv2d\", "
		    "\"pid\": 1, \"tid\": 1,\n    \"ts\": %zu, \"dur\": 5,\n    \"args\": {\n"
		    "      \"External id\": %zu, \"Input Dims\": [[32, 3, 224, 224], [64, 3, 7, "
		    "7]],\n      \"Input type\": [\"float\", \"float\"], \"Sequence number\": %zu\n"
		    "    }\n  },\n",
		    i ? ",\n" : "", 1000 + 20 * i, i, i);
		bput(b,
		     "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
		     "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,\n    \"ts\": %zu, \"dur\": 2,\n"
		     "    \"args\": {\n      \"External id\": %zu, \"correlation\": %zu\n    }\n  "
		     "},\n",
		     1001 + 20 * i, i, i);
		bput(b,
		     "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
		     "\"void cudnn::winograd_nonfused::winogradForwardFilter4x4<float, float>\", "
		     "\"pid\": 0, \"tid\": 7,\n    \"ts\": %zu, \"dur\": 9,\n    \"args\": {\n"
		     "      \"device\": 0, \"stream\": 7, \"correlation\": %zu, \"registers per "
		     "thread\": 64,\n      \"grid\": [128, 1, 1], \"block\": [256, 1, 1], \"est. "
		     "achieved occupancy %%\": 50\n    }\n  }",
		     1003 + 20 * i, i);
		i++;
	}
	bput(b, "\n]}\n");
}

/* ---- the memory budget ---------------------------------------------------------- */

static void test_budget(void **state)
{
	struct kineto_opts o = {.threads = 1, .max_memory = 1 << 20};
	struct buf b = {0};
	struct nns_err err;
	struct model m;

	(void)state;
	/* 3 MiB of ~60-byte events count 120 bytes each (a 40-byte row and
	 * 80 for the analysis): over max(1 MiB, JSON) */
	tiny_trace(&b, 3 << 20);
	assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_ENOMEM);
	want_msg(err.msg, "t.json: byte ");
	want_msg(err.msg, "needs more than the memory budget of ");
	want_msg(err.msg, " events at 120 bytes each");
	want_msg(err.msg, "--max-memory");
	model_release(&m);

	/* split between threads: one budget for all of them */
	o.threads = 4;
	{
		struct ksrc src;

		assert_int_equal(model_init(&m), NNS_OK);
		ksrc_mem(&src, b.p, b.len, 0, "t.json");
		assert_int_equal(kineto_parse_source(&src, (int64_t)b.len, 1, "t.json", &m, &o,
						     64 << 10, 1, NULL, &err),
				 NNS_ENOMEM);
		want_msg(err.msg, "memory budget");
		ksrc_close(&src);
		model_release(&m);
	}

	/* no budget: loads */
	o.threads = 1;
	o.max_memory = -1;
	assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_OK);
	assert_true(m.events.n > 40000);
	model_release(&m);

	/* a budget above the need: loads */
	o.max_memory = 8 << 20;
	assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_OK);
	model_release(&m);

	/* real-shaped events of the same size take well under their JSON size */
	buf_reset(&b);
	real_trace(&b, 3 << 20);
	o.max_memory = 1 << 20;
	assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_OK);
	assert_true((size_t)model_mem_bytes(&m) < b.len / 2);
	model_release(&m);
	o.threads = 4;
	assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_OK);
	model_release(&m);
	buf_free(&b);
}

/* ---- --max-input and the gzip ratio ---------------------------------------------- */

static void test_max_input_and_ratio(void **state)
{
	struct kineto_opts o = {.threads = 1, .max_input = 1 << 20};
	struct buf b = {0};
	struct nns_err err;
	struct model m;
	unsigned char *gz;
	size_t gzn;

	(void)state;
	tiny_trace(&b, 2 << 20);
	/* plain: refused before parsing */
	assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_ENOMEM);
	want_msg(err.msg, "more than the --max-input limit of 1 MiB");
	assert_int_equal(m.events.n, 0);
	model_release(&m);
	/* gzip: when it expands past it */
	gz = tu_gzip(b.p, b.len, 9, &gzn);
	assert_non_null(gz);
	assert_int_equal(load(&m, (char *)gz, gzn, &o, &err), NNS_ENOMEM);
	want_msg(err.msg, "the .gz expands to more than the --max-input limit of 1 MiB of JSON");
	want_msg(err.msg, "at compressed byte ");
	model_release(&m);
	o.max_input = 4 << 20;
	assert_int_equal(load(&m, (char *)gz, gzn, &o, &err), NNS_OK);
	model_release(&m);
	o.max_input = -1;
	assert_int_equal(load(&m, (char *)gz, gzn, &o, &err), NNS_OK);
	model_release(&m);

	/* the ratio (from 256 MiB of JSON by default; 64 KiB here) */
	{
		struct kparser ps;
		struct klimits lim;
		struct ksrc src;

		assert_int_equal(model_init(&m), NNS_OK);
		ksrc_mem(&src, (char *)gz, gzn, 0, "t.json.gz");
		assert_int_equal(ksrc_gz(&src, 0, &err), NNS_OK);
		assert_int_equal(kp_init(&ps, &m, &src, "t.json.gz", 4096, NULL), NNS_OK);
		klimits_init(&lim, NULL);
		lim.ratio_from = 64 << 10;
		lim.max_ratio = (int64_t)(b.len / gzn) / 2; /* half what it compresses to */
		ps.lim = &lim;
		assert_int_equal(kp_run(&ps), KR_ERR);
		assert_int_equal(ps.err_code, NNS_ENOMEM);
		want_msg(ps.err_msg, "the .gz expands more than ");
		want_msg(ps.err_msg, "--max-ratio");
		kp_release(&ps);
		ksrc_close(&src);
		model_release(&m);
	}
	free(gz);
	buf_free(&b);
}

/* ---- whitespace ------------------------------------------------------------------ */

static const char ev_a[] = "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}";

/* head + n blanks + tail, loaded with default limits (one thread, and
 * split between four: the caller releases m).*/
static int load_blanks(const char *head, size_t n, const char *tail, struct model *m,
		       struct nns_err *err)
{
	struct kineto_opts o = {.threads = 1};
	struct buf b = {0};
	int rc, rc4;

	bput(&b, "%s", head);
	assert_int_equal(buf_reserve(&b, n + 1), 0);
	memset(b.p + b.len, ' ', n);
	b.len += n;
	b.p[b.len] = '\0';
	bput(&b, "%s", tail);
	rc = load(m, b.p, b.len, &o, err);
	model_release(m);
	o.threads = 4;
	rc4 = load(m, b.p, b.len, &o, err);
	assert_int_equal(rc4, rc);
	buf_free(&b);
	return rc;
}

static void test_whitespace(void **state)
{
	struct nns_err err;
	struct model m;
	char head[256], tail[256];
	size_t big = ((size_t)16 << 20) + 10;

	(void)state;
	/* between two events */
	snprintf(head, sizeof(head), "{\"traceEvents\": [%s,", ev_a);
	snprintf(tail, sizeof(tail), "%s]}", ev_a);
	assert_int_equal(load_blanks(head, big, tail, &m, &err), NNS_ENOMEM);
	want_msg(err.msg, "more than 16 MiB of whitespace in a row from byte ");
	model_release(&m);
	/* a shorter run is fine */
	assert_int_equal(load_blanks(head, 1 << 20, tail, &m, &err), NNS_OK);
	assert_int_equal(m.events.n, 2);
	model_release(&m);

	/* before the document */
	assert_int_equal(load_blanks("", big, "{\"traceEvents\": []}", &m, &err), NNS_ENOMEM);
	want_msg(err.msg, "t.json: byte ");
	want_msg(err.msg, "16 MiB of whitespace");
	model_release(&m);

	/* inside an event, between its keys */
	assert_int_equal(load_blanks("{\"traceEvents\": [{\"ph\": \"X\",", big,
				     "\"ts\": 1, \"name\": \"a\"}]}", &m, &err),
			 NNS_ENOMEM);
	want_msg(err.msg, "16 MiB of whitespace in a row");
	model_release(&m);

	/* after the document: noted, the rest not read, the trace kept */
	snprintf(head, sizeof(head), "{\"traceEvents\": [%s]}", ev_a);
	{
		struct kineto_opts o = {.threads = 1};
		struct buf b = {0};

		bput(&b, "%s", head);
		assert_int_equal(buf_reserve(&b, (20 << 20) + 8), 0);
		memset(b.p + b.len, ' ', 20 << 20);
		b.len += 20 << 20;
		bput(&b, "garbage");
		assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_OK);
		assert_int_equal(m.diag.notes, 1);
		want_msg(m.diag.first_note, "more than 16 MiB of padding after the JSON document");
		assert_true(m.diag.bytes_read > 0);
		model_release(&m);
		/* data after a short tail is noted too */
		b.len = strlen(head) + 100;
		bput(&b, "garbage");
		assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_OK);
		assert_int_equal(m.diag.notes, 1);
		want_msg(m.diag.first_note, "data after the end of the JSON document ignored");
		model_release(&m);
		buf_free(&b);
	}

	/* mostly padding: 1 MiB runs between 20 events */
	{
		struct kineto_opts o = {.threads = 1};
		struct buf b = {0};

		bput(&b, "{\"traceEvents\": [");
		for (int i = 0; i < 20; i++) {
			bput(&b, "%s%s", i ? "," : "", ev_a);
			assert_int_equal(buf_reserve(&b, (1 << 20) + 1), 0);
			memset(b.p + b.len, '\n', 1 << 20);
			b.len += 1 << 20;
			b.p[b.len] = '\0';
		}
		bput(&b, "]}");
		assert_int_equal(load(&m, b.p, b.len, &o, &err), NNS_ENOMEM);
		want_msg(err.msg, "the input is mostly padding");
		model_release(&m);
		buf_free(&b);
	}
}

/* ---- gzip damage --------------------------------------------------------------------- */

static void test_gzip_damage(void **state)
{
	struct kineto_opts o = {.threads = 1};
	struct buf b = {0};
	struct nns_err err;
	struct model m;
	unsigned char *gz;
	size_t gzn;
	char want[96];

	(void)state;
	tiny_trace(&b, 200000);
	gz = tu_gzip(b.p, b.len, 9, &gzn);
	assert_non_null(gz);

	/* cut: the events before the cut, and where the stream ends */
	assert_int_equal(load(&m, (char *)gz, gzn / 2, &o, &err), NNS_ETRUNC);
	snprintf(want, sizeof(want), "the gzip stream ends early at compressed byte %zu", gzn / 2);
	want_msg(err.msg, want);
	want_msg(err.msg, "kept the ");
	assert_true(m.events.n > 10);
	model_release(&m);

	/* cut inside the header: no JSON at all, not "empty input" */
	assert_int_equal(load(&m, (char *)gz, 6, &o, &err), NNS_EFORMAT);
	want_msg(err.msg, "t.json: byte 0: the gzip stream ends early at compressed byte 6");
	model_release(&m);

	/* corrupt from the start */
	gz[3] = 0xff; /* reserved flag bits */
	assert_int_equal(load(&m, (char *)gz, gzn, &o, &err), NNS_EFORMAT);
	want_msg(err.msg, "t.json: byte 0: corrupt gzip data at compressed byte ");
	model_release(&m);
	free(gz);

	/* corrupt in the middle: what came before is kept (zlib or the JSON
	 * parser, whichever notices first, says where) */
	gz = tu_gzip(b.p, b.len, 9, &gzn);
	assert_non_null(gz);
	memset(gz + gzn / 2, 0x55, 64);
	assert_int_equal(load(&m, (char *)gz, gzn, &o, &err), NNS_ETRUNC);
	want_msg(err.msg, "kept the ");
	assert_true(m.events.n > 10);
	model_release(&m);
	free(gz);

	/* a bad checksum: the document is whole, the note says the end was bad */
	gz = tu_gzip(b.p, b.len, 9, &gzn);
	assert_non_null(gz);
	gz[gzn - 8] ^= 0xff;
	assert_int_equal(load(&m, (char *)gz, gzn, &o, &err), NNS_OK);
	assert_int_equal(m.diag.notes, 1);
	want_msg(m.diag.first_note, "the input after the JSON document could not be read");
	model_release(&m);
	free(gz);
	buf_free(&b);
}

/* ---- minor cases --------------------------------------------------------------------- */

static const struct model_event *find(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->events.n; i++)
		if (strcmp(model_str(m, m->events.v[i].name), name) == 0)
			return &m->events.v[i];
	return NULL;
}

static void test_minor_cases(void **state)
{
	static const struct {
		const char *ev; /* one event after a good one */
		const char *skip, *note;
	} cases[] = {
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":10,\"dur\":-1000}",
	     "complete event with a negative \"dur\" skipped", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":10,\"dur\":9.2e18}",
	     "complete event with a \"dur\" beyond the trace's range", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":10,\"dur\":5000000000000000}",
	     "complete event with a \"dur\" beyond the trace's range", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":10,\"dur\":\"abc\"}",
	     "complete event with a non-numeric \"dur\" skipped", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":1e308,\"dur\":1}",
	     "complete event with a \"ts\" out of range", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":-4e15,\"dur\":1}",
	     "complete event with a \"ts\" out of range", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":\"99999999999999999999\",\"dur\":1}",
	     "complete event with a non-numeric \"ts\" skipped", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":\"abc\"}",
	     "complete event with a non-numeric \"ts\" skipped", NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"dur\":1}", "complete event without \"ts\" skipped",
	     NULL},
	    {"{\"ph\":\"i\",\"name\":\"[memory]\",\"ts\":1e300}",
	     "[memory] event with a \"ts\" out of range", NULL},
	    {"{\"ph\":\"s\",\"id\":1,\"ts\":1e300}", "flow event with a \"ts\" out of range", NULL},
	    {"{\"ph\":\"s\",\"ts\":1}", "flow event without an \"id\" skipped", NULL},
	    {"{\"ph\":\"B\",\"name\":\"x\",\"ts\":\"q\"}", "B/E event with a non-numeric \"ts\"",
	     NULL},
	    {"{\"ph\":\"X\",\"name\":\"x\",\"ts\":1,\"ts\":5,\"dur\":1}", NULL,
	     "event with a repeated \"ts\" key: its last occurrence is kept"},
	    {"{\"ph\":\"X\",\"name\":\"y\",\"name\":\"x\",\"ts\":5,\"dur\":1}", NULL,
	     "event with a repeated \"name\" key"},
	};
	struct kineto_opts o = {.threads = 1};
	struct nns_err err;
	struct model m;
	char doc[512], want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int at = snprintf(doc, sizeof(doc), "{\"traceEvents\": [%s, ", ev_a);

		snprintf(doc + at, sizeof(doc) - (size_t)at, "%s]}", cases[i].ev);
		assert_int_equal(load(&m, doc, strlen(doc), &o, &err), NNS_OK);
		snprintf(want, sizeof(want), "t.json: byte %d: ", at);
		if (cases[i].skip) {
			if (m.diag.events_skipped != 1)
				fail_msg("case %zu: %lld skipped", i,
					 (long long)m.diag.events_skipped);
			want_msg(m.diag.first_problem, want);
			want_msg(m.diag.first_problem, cases[i].skip);
			assert_null(find(&m, "x"));
		} else {
			assert_int_equal(m.diag.events_skipped, 0);
			assert_int_equal(m.diag.notes, 1);
			want_msg(m.diag.first_note, want);
			want_msg(m.diag.first_note, cases[i].note);
			assert_non_null(find(&m, "x")); /* the last occurrence */
			assert_int_equal(find(&m, "x")->ts, 5000);
		}
		model_release(&m);
	}

	/* a repeated "args": the last one's fields only */
	snprintf(doc, sizeof(doc),
		 "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,"
		 "\"dur\":1,\"args\":{\"stream\":7,\"correlation\":3},\"args\":{\"device\":1}}]}");
	assert_int_equal(load(&m, doc, strlen(doc), &o, &err), NNS_OK);
	assert_int_equal(m.diag.notes, 1);
	want_msg(m.diag.first_note, "repeated \"args\" key");
	assert_int_equal(model_corr(&m, &m.events.v[0]), MODEL_NONE);
	assert_int_equal(m.events.v[0].device, 1);
	assert_int_equal(m.dev_args.v[m.events.v[0].extra].stream, -1);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_minor_cases), cmocka_unit_test(test_gzip_damage),
	    cmocka_unit_test(test_whitespace),	cmocka_unit_test(test_max_input_and_ratio),
	    cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
