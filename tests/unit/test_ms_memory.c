/*
 * test_ms_memory.c - MindSpore device memory: the memory_usage_<dev>.pb
 * reader (src/importers/ms_memory.c), MindInsight's views of it
 * (src/analysis/ms_memory.c), the ms_memory document
 * (src/output/ms_memory_json.c) and the device's ms_profile part.
 *
 * Oracles: the files are written here by a small protobuf encoder that
 * follows MindSpore's memory_profiling.proto (field numbers and wire types
 * written out below, independently of the reader); the expected curve,
 * peak, per-node sizes, breakdown and lifetimes are computed by hand in the
 * comments from MindSpore's GraphMemoryParser rules (no fixture has a
 * memory_usage_*.pb). Hostile inputs: every truncation of a valid file and
 * a few hand-broken ones give NNS_EFORMAT with a byte offset, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/an_ms.h"
#include "analysis/ms_memory.h"
#include "importers/ms_memory.h"
#include "output/ms_memory_json.h"

/* ---- a protobuf encoder (wire format: varint keys (field << 3 | type)) ---- */

struct pb {
	unsigned char b[8192];
	size_t n;
};

static void pv(struct pb *p, uint64_t v)
{
	do {
		assert_true(p->n < sizeof(p->b));
		p->b[p->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pint(struct pb *p, unsigned field, uint64_t v)
{
	pv(p, (uint64_t)field << 3 | 0);
	pv(p, v);
}

static void pbytes(struct pb *p, unsigned field, const void *s, size_t n)
{
	pv(p, (uint64_t)field << 3 | 2);
	pv(p, n);
	assert_true(p->n + n <= sizeof(p->b));
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

static void pstr(struct pb *p, unsigned field, const char *s)
{
	pbytes(p, field, s, strlen(s));
}

static void pmsg(struct pb *p, unsigned field, const struct pb *m)
{
	pbytes(p, field, m->b, m->n);
}

static void ppacked(struct pb *p, unsigned field, const uint64_t *v, size_t n)
{
	struct pb t = {{0}, 0};

	for (size_t i = 0; i < n; i++)
		pv(&t, v[i]);
	pmsg(p, field, &t);
}

/* NodeMemProto: 1 node_name, 2 node_id, 3 input, 4 output, 5 workspace
 * tensor ids (packed here). */
static void node(struct pb *g, const char *name, uint64_t id, const uint64_t *in, size_t nin,
		 const uint64_t *out, size_t nout, const uint64_t *ws, size_t nws)
{
	struct pb n = {{0}, 0};

	pstr(&n, 1, name);
	pint(&n, 2, id);
	if (nin)
		ppacked(&n, 3, in, nin);
	if (nout)
		ppacked(&n, 4, out, nout);
	if (nws)
		ppacked(&n, 5, ws, nws);
	pmsg(g, 3, &n);
}

/* TensorMemProto: 1 tensor_id, 2 size, 3 type, 4 life_start, 5 life_end,
 * 6 life_long. */
static void tensor(struct pb *g, uint64_t id, uint64_t size, uint64_t start, uint64_t end,
		   const char *ll)
{
	struct pb t = {{0}, 0};

	pint(&t, 1, id);
	pint(&t, 2, size);
	pstr(&t, 3, "Common");
	pint(&t, 4, start);
	pint(&t, 5, end);
	pstr(&t, 6, ll);
	pmsg(g, 4, &t);
}

#define TOTAL_MEM 34359738368ull /* 32 GiB */

/* The file of the tests. Graph 1 (static 100 B), nodes in execution order
 * (node ids 10..13):
 *   0 Conv2D-op1  out [1]  ws [2]
 *   1 ReLU-op2    in [1] out [3]
 *   2 MatMul-op3  in [3] out [4]  ws [4, 5] (4 again: counted once)
 *   3 Add-op4     out [6]
 * tensors (live range on the curve):
 *   1  1000 None 0..1        [0,2)
 *   2    50 None 0..0        [0,1)
 *   3   200 None 1..2        [1,3)
 *   4   400 GraphEnd from 2  [2,4)  life_end reported 4
 *   5    30 None 2..2        [2,3)
 *   6     7 None 3..9        [3,4)  cut at N = 4 (upstream: IndexError)
 *   7  5000 GraphAll         [0,4)  no source node (a weight)
 *   8     9 None 3..1        not counted (start > end)
 *   9    11 "Bogus"          not counted
 *   10   13 GraphStart to 1  [0,2)  life_start reported 0, no source
 * lines = 100 + 5000 + ...:
 *   0: 1000 + 50 + 13 = 6163     1: 1000 + 200 + 13 = 6313 (peak)
 *   2: 200 + 400 + 30 = 5730     3: 400 + 7 = 5507
 * allocated: 6063, 150, -583, -223; node sizes 1050 (2), 200 (1), 430 (2), 7 (1).
 * Breakdown at 1: tensors 1 (Conv2D-op1:0) and 3 (ReLU-op2:0).
 * Graph 2: one node, no tensor: skipped (its static 999 not counted).
 * Graph -3 (a 10-byte varint): its tensor before its node, output ids not
 * packed, tensor id 1 twice (the second, 20 B, wins): lines [20].
 * Unknown fields of each wire type are sprinkled in and must be skipped. */
static void build_file(struct pb *f)
{
	struct pb g = {{0}, 0}, g2 = {{0}, 0}, g3 = {{0}, 0}, n3 = {{0}, 0};
	static const uint64_t o1[] = {1}, w1[] = {2}, i2[] = {1}, o2[] = {3}, i3[] = {3},
			      o3[] = {4}, w3[] = {4, 5}, o4[] = {6};
	static const unsigned char fixed64[] = {0x71, 1, 2, 3, 4, 5, 6, 7, 8}; /* field 14, I64 */
	static const unsigned char fixed32[] = {0x7d, 1, 2, 3, 4};	       /* field 15, I32 */

	memset(f, 0, sizeof(*f));
	pint(&g, 1, 1);
	pint(&g, 2, 100);
	pstr(&g, 5, "Default/Conv2D-op1");
	pstr(&g, 6, "Gradients/MatMul-op3");
	node(&g, "Conv2D-op1", 10, NULL, 0, o1, 1, w1, 1);
	memcpy(g.b + g.n, fixed64, sizeof(fixed64));
	g.n += sizeof(fixed64);
	node(&g, "ReLU-op2", 11, i2, 1, o2, 1, NULL, 0);
	node(&g, "MatMul-op3", 12, i3, 1, o3, 1, w3, 2);
	node(&g, "Add-op4", 13, NULL, 0, o4, 1, NULL, 0);
	tensor(&g, 1, 1000, 0, 1, "LifeLongNone");
	tensor(&g, 2, 50, 0, 0, "LifeLongNone");
	tensor(&g, 3, 200, 1, 2, "LifeLongNone");
	tensor(&g, 4, 400, 2, 0, "LifeLongGraphEnd");
	tensor(&g, 5, 30, 2, 2, "LifeLongNone");
	tensor(&g, 6, 7, 3, 9, "LifeLongNone");
	tensor(&g, 7, 5000, 0, 0, "LifeLongGraphAll");
	tensor(&g, 8, 9, 3, 1, "LifeLongNone");
	tensor(&g, 9, 11, 0, 0, "Bogus");
	tensor(&g, 10, 13, 0, 1, "LifeLongGraphStart");
	pstr(&g, 20, "unknown string field");

	pint(&g2, 1, 2);
	pint(&g2, 2, 999);
	node(&g2, "Lonely-op1", 0, NULL, 0, NULL, 0, NULL, 0);

	pint(&g3, 1, (uint64_t)(int64_t)-3);
	tensor(&g3, 1, 10, 0, 0, "LifeLongGraphAll");
	pstr(&n3, 1, "A-op1");
	pint(&n3, 2, 0);
	pint(&n3, 4, 1); /* not packed */
	pint(&n3, 9, 77);
	pmsg(&g3, 3, &n3);
	tensor(&g3, 1, 20, 0, 0, "LifeLongGraphAll");
	memcpy(g3.b + g3.n, fixed32, sizeof(fixed32));
	g3.n += sizeof(fixed32);

	pmsg(f, 1, &g);
	pint(f, 2, TOTAL_MEM);
	pmsg(f, 1, &g2);
	pmsg(f, 1, &g3);
	pint(f, 99, 5);
}

static void write_file(const char *dir, int dev, const void *b, size_t n)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/memory_usage_%d.pb", dir, dev);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(b, 1, n, fp), n);
	fclose(fp);
}

static void rm_dir(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- reader -------------------------------------------------------------- */

static void reader_fields(void **state)
{
	struct pb f;
	struct ms_mem_file m;
	struct nns_err err;
	const struct ms_mem_node *nd;

	(void)state;
	build_file(&f);
	assert_int_equal(ms_mem_parse(&m, f.b, f.n, &err), NNS_OK);
	assert_int_equal(m.total_mem, TOTAL_MEM);
	assert_int_equal(m.graphs.n, 3);
	assert_int_equal(m.graphs.v[0].graph_id, 1);
	assert_int_equal(m.graphs.v[0].static_mem, 100);
	assert_int_equal(m.graphs.v[0].nnode, 4);
	assert_int_equal(m.graphs.v[0].ntensor, 10);
	assert_string_equal(ms_mem_str(&m, m.graphs.v[0].fp_start), "Default/Conv2D-op1");
	assert_int_equal(m.graphs.v[2].graph_id, -3);
	nd = &m.nodes.v[m.graphs.v[0].node0 + 2];
	assert_string_equal(ms_mem_str(&m, nd->name), "MatMul-op3");
	assert_int_equal(nd->node_id, 12);
	assert_int_equal(nd->nin, 1);
	assert_int_equal(nd->nout, 1);
	assert_int_equal(nd->nws, 2);
	assert_int_equal(m.ids.v[nd->ws0 + 1], 5);
	nd = &m.nodes.v[m.graphs.v[2].node0];
	assert_int_equal(nd->nout, 1); /* unpacked */
	assert_int_equal(m.ids.v[nd->out0], 1);
	assert_string_equal(ms_mem_str(&m, m.tensors.v[3].life_long), "LifeLongGraphEnd");
	assert_string_equal(ms_mem_str(&m, m.tensors.v[3].type), "Common");
	ms_mem_file_release(&m);

	/* empty file: no graph, capacity 0 */
	assert_int_equal(ms_mem_parse(&m, f.b, 0, &err), NNS_OK);
	assert_int_equal(m.graphs.n, 0);
	ms_mem_file_release(&m);
}

static void expect_bad(const unsigned char *b, size_t n, const char *part)
{
	struct ms_mem_file m;
	struct nns_err err;

	nns_err_clear(&err);
	assert_int_equal(ms_mem_parse(&m, b, n, &err), NNS_EFORMAT);
	if (!strstr(err.msg, part))
		printf("message: %s (want %s)\n", err.msg, part);
	assert_non_null(strstr(err.msg, part));
}

static void reader_hostile(void **state)
{
	struct pb f;
	static const unsigned char longlen[] = {0x0a, 0x05, 0x08, 0x01}; /* 5 bytes, 2 there */
	static const unsigned char group[] = {0x10, 0x01, 0x0b};	 /* wire type 3 */
	static const unsigned char field0[] = {0x00, 0x01};		 /* field 0 */
	static const unsigned char longvar[] = {0x10, 0xff, 0xff, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0x7f}; /* 70 bits */
	static const unsigned char negsize[] = {0x0a, 0x0e, 0x22, 0x0c, 0x10, 0xff, 0xff, 0xff,
						0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
	(void)state;
	expect_bad(longlen, sizeof(longlen), "byte 1: length 5 runs past the end");
	expect_bad(group, sizeof(group), "byte 2: wire type 3");
	expect_bad(field0, sizeof(field0), "byte 0: field number 0");
	expect_bad(longvar, sizeof(longvar), "byte 1: varint over 64 bits");
	expect_bad(negsize, sizeof(negsize), "byte 4: tensor size");

	/* every prefix of the valid file: OK or a byte-offset error, no crash
	 * (ASan and the fuzzer check memory; here the contract) */
	build_file(&f);
	for (size_t n = 0; n < f.n; n++) {
		struct ms_mem_file m;
		struct nns_err err;
		int rc = ms_mem_parse(&m, f.b, n, &err);

		if (rc == NNS_OK) {
			ms_mem_file_release(&m);
			continue;
		}
		assert_int_equal(rc, NNS_EFORMAT);
		assert_memory_equal(err.msg, "byte ", 5);
	}
}

/* ---- analysis ------------------------------------------------------------ */

static void views_hand_computed(void **state)
{
	static const int64_t lines[] = {6163, 6313, 5730, 5507};
	static const int64_t alloc[] = {6063, 150, -583, -223};
	static const int64_t size[] = {1050, 200, 430, 7};
	static const uint32_t nalloc[] = {2, 1, 2, 1};
	/* per tensor (file order): from, to, life_start, life_end reported */
	static const int64_t live[10][4] = {
	    {0, 2, 0, 1}, {0, 1, 0, 0}, {1, 3, 1, 2},	{2, 4, 2, 4},	{2, 3, 2, 2},
	    {3, 4, 3, 9}, {0, 4, 0, 4}, {-1, -1, 3, 1}, {-1, -1, 0, 0}, {0, 2, 0, 1},
	};
	struct pb f;
	struct ms_mem_file m;
	struct ms_mem_result r;
	struct nns_err err;
	const struct ms_mem_gres *g;
	size_t bd[8];

	(void)state;
	build_file(&f);
	assert_int_equal(ms_mem_parse(&m, f.b, f.n, &err), NNS_OK);
	assert_int_equal(ms_mem_compute(&r, &m, NULL, NULL, NULL, &err), NNS_OK);
	assert_int_equal(r.capacity, TOTAL_MEM);
	assert_int_equal(r.peak, 6313);
	assert_int_equal(r.static_mem, 100);
	assert_int_equal(r.allocations, 11);
	assert_int_equal(r.deallocations, 11);
	assert_int_equal(r.skipped, 1);
	assert_int_equal(r.graphs.n, 2);
	g = &r.graphs.v[0];
	assert_int_equal(g->nnode, 4);
	assert_int_equal(g->ntensor, 10);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(g->lines[i], lines[i]);
		assert_int_equal(g->nodes[i].allocated, alloc[i]);
		assert_int_equal(g->nodes[i].size, size[i]);
		assert_int_equal(g->nodes[i].allocations, nalloc[i]);
	}
	assert_int_equal(g->peak, 6313);
	assert_int_equal(g->peak_node, 1);
	for (int k = 0; k < 10; k++) {
		assert_int_equal(g->tensors[k].from, live[k][0]);
		assert_int_equal(g->tensors[k].to, live[k][1]);
		assert_int_equal(g->tensors[k].life_start, live[k][2]);
		assert_int_equal(g->tensors[k].life_end, live[k][3]);
	}
	/* sources and names: 1 <- Conv2D-op1:0, 3 <- ReLU-op2:0, 4 <- MatMul-op3:0 */
	assert_int_equal(g->tensors[0].source, 0);
	assert_int_equal(g->tensors[2].source, 1);
	assert_int_equal(g->tensors[3].source, 2);
	assert_int_equal(g->tensors[3].out_idx, 0);
	assert_int_equal(g->tensors[1].source, -1); /* a workspace only */
	assert_int_equal(g->tensors[6].source, -1);
	assert_int_equal(ms_mem_breakdown(g, 1, bd, 8), 2);
	assert_int_equal(bd[0], 0);
	assert_int_equal(bd[1], 2);
	assert_int_equal(ms_mem_breakdown(g, 3, bd, 8), 2); /* 4 and 6 */
	assert_int_equal(bd[0], 3);
	assert_int_equal(bd[1], 5);
	/* no point info: the graph's own fp_start / bp_end, as node ids */
	assert_int_equal(g->fp_start, 10);
	assert_int_equal(g->bp_end, 12);
	/* graph -3: the repeated tensor id keeps its last value */
	g = &r.graphs.v[1];
	assert_int_equal(m.graphs.v[g->g].graph_id, -3);
	assert_int_equal(g->ntensor, 1);
	assert_int_equal(g->lines[0], 20);
	assert_int_equal(g->fp_start, -1);
	ms_mem_result_release(&r);

	/* step_trace_point_info's points win over the graph's fields */
	assert_int_equal(ms_mem_compute(&r, &m, NULL, "Default/net/ReLU-op2", "x/Add-op4", &err),
			 NNS_OK);
	assert_int_equal(r.graphs.v[0].fp_start, 11);
	assert_int_equal(r.graphs.v[0].bp_end, 13);
	ms_mem_result_release(&r);
	ms_mem_file_release(&m);
}

static void views_errors(void **state)
{
	struct pb f = {{0}, 0}, g = {{0}, 0};
	static const uint64_t out[] = {42};
	struct ms_mem_file m;
	struct ms_mem_result r;
	struct nns_err err;

	(void)state;
	pint(&g, 1, 7);
	node(&g, "Cast-op9", 0, NULL, 0, out, 1, NULL, 0);
	tensor(&g, 1, 8, 0, 0, "LifeLongGraphAll");
	pmsg(&f, 1, &g);
	assert_int_equal(ms_mem_parse(&m, f.b, f.n, &err), NNS_OK);
	assert_int_equal(ms_mem_compute(&r, &m, NULL, NULL, NULL, &err), NNS_EFORMAT);
	assert_string_equal(
	    err.msg,
	    "graph 7: node 0 (Cast-op9): output or workspace tensor 42 is not in tensor_mems");
	ms_mem_file_release(&m);

	/* two huge tensors: the sum overflows int64, said, not wrapped */
	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	pint(&g, 1, 8);
	node(&g, "X-op1", 0, NULL, 0, NULL, 0, NULL, 0);
	tensor(&g, 1, (uint64_t)INT64_MAX, 0, 0, "LifeLongGraphAll");
	tensor(&g, 2, (uint64_t)INT64_MAX, 0, 0, "LifeLongGraphAll");
	pmsg(&f, 1, &g);
	assert_int_equal(ms_mem_parse(&m, f.b, f.n, &err), NNS_OK);
	assert_int_equal(ms_mem_compute(&r, &m, NULL, NULL, NULL, &err), NNS_EFORMAT);
	assert_string_equal(err.msg, "graph 8: memory total overflows");
	ms_mem_file_release(&m);
}

/* ---- the device's part and its document ----------------------------------- */

static json_t *render(const char *dir, int dev)
{
	struct ms_src s = {.dir = dir, .dev = dev};
	struct ms_profile mp;
	struct jsonw w;
	struct nns_err err;
	json_error_t jerr;
	json_t *doc;
	size_t len;
	char *out;

	assert_int_equal(ms_profile_load(&mp, &s, &err), NNS_OK);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), NNS_OK);
	out_json_ms_memory(&w, &mp.mem, mp.opd_rc ? NULL : &mp.opd.fw, dev);
	ms_profile_release(&mp);
	assert_int_equal(jsonw_finish(&w, &err), NNS_OK);
	out = jsonw_take(&w, &len);
	assert_non_null(out);
	doc = json_loads(out, 0, &jerr);
	assert_non_null(doc);
	free(out);
	jsonw_release(&w);
	return doc;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void document(void **state)
{
	char dir[] = "/tmp/nns_ms_mem_XXXXXX";
	struct pb f;
	json_t *doc, *sum, *g, *t, *n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* absent: source null, no summary, no error */
	doc = render(dir, 0);
	assert_true(json_is_null(json_object_get(doc, "source")));
	assert_true(json_is_null(json_object_get(doc, "summary")));
	assert_int_equal(json_array_size(json_object_get(doc, "errors")), 0);
	json_decref(doc);

	build_file(&f);
	write_file(dir, 0, f.b, f.n);
	/* framework_raw gives the full names and the output shapes */
	write_text(dir, "aicore_intermediate_0_detail.csv",
		   "full_kernel_name,execution_time,execution_frequency\n"
		   "Default/net/Conv2D-op1,0.02,2\n");
	write_text(
	    dir, "framework_raw_0.csv",
	    "task_id,stream_id,block_dim,full_op_name,op_name,op_type,subgraph,op_info\n"
	    "1,2,32,Default/net/Conv2D-op1,Conv2D-op1,Conv2D,Default,\"{\"\"input_0\"\": "
	    "{\"\"format\"\": \"\"NCHW\"\", \"\"data_type\"\": \"\"FLOAT16\"\", "
	    "\"\"shape\"\": \"\"1,3\"\"}, \"\"output_0\"\": {\"\"format\"\": \"\"NC1HWC0\"\", "
	    "\"\"data_type\"\": \"\"FLOAT32\"\", \"\"shape\"\": \"\"32,16,7,7\"\"}}\"\n");
	doc = render(dir, 0);
	assert_string_equal(json_string_value(json_object_get(doc, "source")), "memory_usage_0.pb");
	sum = json_object_get(doc, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "peak_mem_bytes")), 6313);
	assert_float_equal(json_number_value(json_object_get(sum, "capacity_gb")), 32.0, 1e-12);
	assert_int_equal(json_integer_value(json_object_get(sum, "allocations")), 11);
	g = json_array_get(json_object_get(doc, "graphs"), 0);
	assert_int_equal(json_integer_value(json_object_get(g, "peak_node")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(g, "lines_bytes"), 2)),
			 5730);
	n = json_array_get(json_object_get(g, "nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "fullname")),
			    "Default/net/Conv2D-op1");
	assert_int_equal(json_integer_value(json_object_get(n, "allocated_bytes")), 6063);
	t = json_array_get(json_object_get(g, "tensors"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "name")), "Conv2D-op1:0");
	assert_string_equal(json_string_value(json_object_get(t, "type")), "output");
	assert_string_equal(json_string_value(json_object_get(t, "proto_type")), "Common");
	assert_string_equal(json_string_value(json_object_get(t, "format")), "NC1HWC0");
	assert_string_equal(json_string_value(json_object_get(t, "data_type")), "FLOAT32");
	assert_int_equal(json_array_size(json_object_get(t, "shape")), 4);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(t, "shape"), 0)), 32);
	t = json_array_get(json_object_get(g, "tensors"), 7); /* not counted */
	assert_true(json_is_null(json_object_get(t, "live_from")));
	assert_int_equal(json_array_size(json_object_get(g, "peak_breakdown")), 2);
	json_decref(doc);

	/* damaged: the error names the file and the byte; the rest of the device stays */
	write_file(dir, 0, f.b, 40);
	doc = render(dir, 0);
	assert_true(json_is_null(json_object_get(doc, "summary")));
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(doc, "errors"), 0)),
			       "memory_usage_0.pb: byte "));
	json_decref(doc);
	rm_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reader_fields),
	    cmocka_unit_test(reader_hostile),
	    cmocka_unit_test(views_hand_computed),
	    cmocka_unit_test(views_errors),
	    cmocka_unit_test(document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
