/*
 * test_ms_marey_lines.c - the Marey view's FLOPs / memory lines and stage /
 * device blocks (src/analysis/ms_marey_lines.c) and the step checks of
 * ms_marey_load (src/analysis/ms_parallel_marey.c).
 *
 * Oracle: hand-computed values. A stage timeline written here (stage0 =
 * device0, device3; stage1 = device1), flops_<dev>.txt / flops_summary
 * text parsed by the importer, and a memory result built by hand:
 *   device0 FLOPs rows (file order): MatMul-op2 30 (x = (50+70)/2 = 60),
 *     Conv-op1 10 (x = (10+30)/2 = 20), StreamSend-op5 9 (Stream*: out),
 *     AtomicAddrClean-op6 9 (out), Gone-op7 4 (not in the map: out)
 *     -> [[20,10],[60,30]] sorted by x;
 *   device3 cube/vector file: Conv-op1 cube 5 + vector 1 = 6 at x 25
 *     (map 20..30); range [6, 30];
 *   device1 memory graph 1: nodes Add-op3 (x 100), Send-op4 (x 130):
 *     lines 700, 900; a graph 2 node is ignored; range [700, 900];
 *   summaries: device0 FLOPs 50 FLOPS 5, device3 150 / 20 -> ratios
 *     1/3, 1/4 and 1, 1; stage0 means 100 (2/3), 12.5 (0.625);
 *     device1 memory peak 900 of 3000 -> 0.3; stage1 the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ms_marey_lines.h"
#include "analysis/ms_parallel.h"

static void add_op(struct ms_marey_dev *d, const char *name, double st, double ed)
{
	struct ms_marey_op o = {strdup(name), st, ed, ed - st};

	assert_non_null(o.name);
	assert_int_equal(vec_push(&d->ops, o), 0);
}

static struct ms_marey_dev *add_dev(struct ms_marey *m, const char *name)
{
	struct ms_marey_dev d;

	memset(&d, 0, sizeof(d));
	d.name = strdup(name);
	assert_int_equal(vec_push(&m->maps, d), 0);
	return &m->maps.v[m->maps.n - 1];
}

static void add_stage(struct ms_marey *m, const char *name, const char *d1, const char *d2)
{
	struct ms_marey_stage s;
	char *a = strdup(d1), *b = d2 ? strdup(d2) : NULL;

	memset(&s, 0, sizeof(s));
	s.name = strdup(name);
	assert_int_equal(vec_push(&s.devices, a), 0);
	if (b)
		assert_int_equal(vec_push(&s.devices, b), 0);
	assert_int_equal(vec_push(&m->stages, s), 0);
}

static void parse_flops(struct ms_flops *f, const char *ops, const char *sum)
{
	struct nns_err err;

	ms_flops_init(f);
	assert_int_equal(ms_flops_parse_ops(f, ops, strlen(ops), "flops.txt", &err), NNS_OK);
	assert_int_equal(ms_flops_parse_summary(f, sum, strlen(sum), "summary.json", &err), NNS_OK);
	f->has_ops = f->has_summary = 1;
}

static void pt_eq(const struct ms_marey_line *l, size_t i, double x, double y, const char *op)
{
	assert_true(i < l->pts.n);
	assert_true(fabs(l->pts.v[i].x - x) < 1e-9);
	assert_true(fabs(l->pts.v[i].y - y) < 1e-9);
	assert_string_equal(l->pts.v[i].op, op);
}

static void near(double a, double b)
{
	if (isnan(b))
		assert_true(isnan(a));
	else
		assert_true(fabs(a - b) < 1e-12);
}

static void lines_and_blocks(void **state)
{
	struct ms_marey m;
	struct ms_marey_lines l;
	struct ms_flops f0, f3;
	struct ms_mem_file mf;
	struct ms_mem_result mr;
	struct ms_mem_gres g[2];
	struct ms_mem_nrow nodes[3];
	int64_t lines1[2] = {700, 900}, lines2[1] = {5000};
	struct ms_mem_graph gr[2];
	struct ms_mem_node mn[3];
	struct nns_err err;
	struct ms_marey_dev *d;
	static const char strs[] = "\0Add-op3\0Default/Send-op4\0Add-op3";

	(void)state;
	memset(&m, 0, sizeof(m));
	d = add_dev(&m, "device0");
	add_op(d, "Conv-op1", 10, 30);
	add_op(d, "MatMul-op2", 50, 70);
	add_op(d, "StreamSend-op5", 71, 72);
	add_op(d, "AtomicAddrClean-op6", 73, 74);
	d = add_dev(&m, "device1");
	add_op(d, "Add-op3", 90, 110);
	add_op(d, "Send-op4", 120, 140);
	d = add_dev(&m, "device3");
	add_op(d, "Conv-op1", 20, 30);
	add_stage(&m, "stage0", "device3", "device0"); /* blocks sort them by number */
	add_stage(&m, "stage1", "device1", NULL);

	parse_flops(&f0,
		    "op_full_name, MFLOPs(10^6), GFLOPS(10^9), FLOPS utilization(%)\n"
		    "Default/MatMul-op2, 30, 3, 1\nDefault/Conv-op1, 10, 1, 1\n"
		    "StreamSend-op5, 9, 1, 1\nAtomicAddrClean-op6, 9, 1, 1\nGone-op7, 4, 1, 1\n",
		    "{\"FLOPs\": 50, \"FLOPS\": 5, \"FLOPS_Utilization\": 1}");
	parse_flops(
	    &f3,
	    "full_kernel_name, MFLOPs(10^6 cube), GFLOPS(10^9 cube), FLOPS utilization(cube), "
	    "MFLOPs(10^6 vector), GFLOPS(10^9 vector), FLOPS utilization(vec)\n"
	    "a/b/Conv-op1, 5, 1, 1, 1, 1, 1\n",
	    "{\"FLOPs\": 150, \"FLOPS\": 20, \"FLOPS_Utilization\": 1}");

	/* device1's memory: graph id 1 (nodes 0, 1) and graph id 2 (node 2) */
	memset(&mf, 0, sizeof(mf));
	memset(gr, 0, sizeof(gr));
	memset(mn, 0, sizeof(mn));
	gr[0].graph_id = 2;
	gr[1].graph_id = 1;
	mn[0].name = 1;	 /* Add-op3 */
	mn[1].name = 9;	 /* Default/Send-op4 */
	mn[2].name = 26; /* Add-op3 of graph 2 */
	mf.graphs.v = gr;
	mf.graphs.n = 2;
	mf.nodes.v = mn;
	mf.nodes.n = 3;
	mf.s.v = (char *)strs;
	mf.s.n = sizeof(strs);
	memset(&mr, 0, sizeof(mr));
	memset(g, 0, sizeof(g));
	memset(nodes, 0, sizeof(nodes));
	nodes[0].n = 2;
	nodes[1].n = 0;
	nodes[2].n = 1;
	g[0].g = 0; /* graph id 2 first: not the one drawn */
	g[0].lines = lines2;
	g[0].nodes = &nodes[0];
	g[0].nnode = 1;
	g[1].g = 1;
	g[1].lines = lines1;
	g[1].nodes = &nodes[1];
	g[1].nnode = 2;
	mr.graphs.v = g;
	mr.graphs.n = 2;
	mr.capacity = 3000;
	mr.peak = 900;

	ms_marey_lines_init(&l);
	assert_int_equal(ms_marey_lines_add(&l, &m, 0, &f0, NULL, NULL, &err), NNS_OK);
	assert_int_equal(ms_marey_lines_add(&l, &m, 1, NULL, &mr, &mf, &err), NNS_OK);
	assert_int_equal(ms_marey_lines_add(&l, &m, 2, &f3, NULL, NULL, &err), NNS_OK);
	assert_int_equal(ms_marey_lines_finish(&l, &m, &err), NNS_OK);

	assert_int_equal(l.flops.n, 2);
	assert_string_equal(l.flops.v[0].device, "device0");
	assert_int_equal(l.flops.v[0].pts.n, 2);
	pt_eq(&l.flops.v[0], 0, 20, 10, "Conv-op1");
	pt_eq(&l.flops.v[0], 1, 60, 30, "MatMul-op2");
	assert_string_equal(l.flops.v[1].device, "device3");
	assert_int_equal(l.flops.v[1].pts.n, 1);
	pt_eq(&l.flops.v[1], 0, 25, 6, "Conv-op1");
	near(l.flops_min, 6);
	near(l.flops_max, 30);
	assert_int_equal(l.mem.n, 1);
	assert_string_equal(l.mem.v[0].device, "device1");
	assert_int_equal(l.mem.v[0].pts.n, 2);
	pt_eq(&l.mem.v[0], 0, 100, 700, "Add-op3");
	pt_eq(&l.mem.v[0], 1, 130, 900, "Send-op4");
	near(l.mem_min, 700);
	near(l.mem_max, 900);

	assert_int_equal(l.blocks.n, 5);
	assert_string_equal(l.blocks.v[0].name, "device0");
	assert_string_equal(l.blocks.v[1].name, "device3");
	assert_string_equal(l.blocks.v[2].name, "stage0");
	assert_string_equal(l.blocks.v[3].name, "device1");
	assert_string_equal(l.blocks.v[4].name, "stage1");
	assert_int_equal(l.blocks.v[2].is_stage, 1);
	near(l.blocks.v[0].flops_ratio, 50.0 / 150);
	near(l.blocks.v[0].flops_s_ratio, 5.0 / 20);
	near(l.blocks.v[1].flops_ratio, 1);
	near(l.blocks.v[2].flops, 100);
	near(l.blocks.v[2].flops_ratio, 100.0 / 150);
	near(l.blocks.v[2].flops_s, 12.5);
	near(l.blocks.v[2].flops_s_ratio, 12.5 / 20);
	near(l.blocks.v[2].mem_ratio, NAN);
	near(l.blocks.v[3].peak, 900);
	near(l.blocks.v[3].mem_ratio, 0.3);
	near(l.blocks.v[3].flops, NAN);
	near(l.blocks.v[4].mem_ratio, 0.3);
	near(l.blocks.v[4].capacity, 3000);

	ms_marey_lines_release(&l);
	ms_flops_release(&f0);
	ms_flops_release(&f3);
	ms_marey_release(&m);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* ms_marey_load's steps: the numbers of the step rows; a step that is not
 * one of them, or not a number, is NNS_EINVAL naming them. */
static void steps(void **state)
{
	char dir[] = "/tmp/nns_mareylines_XXXXXX", path[600];
	struct ms_src src = {dir, 0, NULL, NULL};
	struct ms_marey m;
	struct nns_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put(dir, "ascend_timeline_display_0.json",
	    "[{\"name\":\"3\",\"ts\":100,\"dur\":100,\"tid\":\"s\"},"
	    "{\"name\":\"2\",\"ts\":0,\"dur\":100,\"tid\":\"s\"},"
	    "{\"name\":\"A-op1\",\"ts\":10,\"dur\":5,\"tid\":\"1\"},"
	    "{\"name\":\"B-op2\",\"ts\":110,\"dur\":5,\"tid\":\"1\"}]");
	assert_int_equal(ms_marey_load(&src, NULL, &m, &err), NNS_OK);
	assert_int_equal(m.steps.n, 2);
	assert_int_equal(m.steps.v[0], 2);
	assert_int_equal(m.steps.v[1], 3);
	assert_int_equal(m.step, 2); /* the first step */
	assert_int_equal(m.maps.v[0].ops.n, 1);
	assert_string_equal(m.maps.v[0].ops.v[0].name, "A-op1");
	ms_marey_release(&m);
	assert_int_equal(ms_marey_load(&src, "3", &m, &err), NNS_OK);
	assert_string_equal(m.maps.v[0].ops.v[0].name, "B-op2");
	ms_marey_release(&m);
	assert_int_equal(ms_marey_load(&src, "1", &m, &err), NNS_EINVAL);
	assert_string_equal(err.msg, "step 1 is not a step of this job (steps: 2, 3)");
	assert_int_equal(ms_marey_load(&src, "2x", &m, &err), NNS_EINVAL);
	assert_non_null(strstr(err.msg, "not a step number"));
	assert_int_equal(ms_marey_load(&src, "0", &m, &err), NNS_EINVAL);
	snprintf(path, sizeof(path), "%s/ascend_timeline_display_0.json", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lines_and_blocks),
	    cmocka_unit_test(steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
