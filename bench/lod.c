/*
 * lod.c - benchmark of the Trace view's level-of-detail index
 * (src/trace/trace_index.h).
 *
 * Builds a synthetic model in memory (8 host threads of nested operator
 * stacks with runtime launches, 4 GPU streams of kernels correlated to the
 * launches, durations 1 us..10 ms with realistic gaps; >= 10M events by
 * default) or loads the trace file given as argv[1] (.nnst by magic, else
 * Kineto JSON), builds the index, then times window queries at px=1920
 * (JSON written into a memory jsonw included): the whole trace and 1/10,
 * 1/100, 1/1000, 1/10000, 1/100000 of it, 200 random pans at each zoom. Prints a table.
 *
 * usage: lod [TRACE] ;  LOD_EVENTS=N sets the synthetic event count.
 */
#include "importers/kineto.h"
#include "importers/nnst.h"
#include "trace/trace_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PX 1920
#define PANS 200

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* log-uniform in [lo, hi] */
static int64_t logu(int64_t lo, int64_t hi)
{
	double u = (double)(rnd() >> 11) / 9007199254740992.0;
	double l = (double)lo, h = (double)hi;

	return (int64_t)(l * __builtin_exp(u * __builtin_log(h / l)));
}

struct gen {
	struct model *m;
	uint32_t op_names[64], k_names[32], launch, step;
	int64_t stream_t[4];
	int64_t corr;
	size_t n, target;
	int err;
};

static void add(struct gen *g, uint32_t th, int kind, int64_t ts, int64_t dur, uint32_t name,
		int64_t corr, int64_t stream)
{
	struct model_event e;

	model_event_init(&e);
	e.ts = ts;
	e.dur = dur;
	e.thread = th;
	e.kind = (uint8_t)kind;
	e.name = name;
	if (model_id_enc(g->m, corr, &e.corr_enc))
		abort();
	if (model_kind_is_device(kind)) {
		struct model_dev_args a;
		model_dev_args_init(&a);
		a.stream = stream;
		e.device = 0;
		e.extra = (uint32_t)model_add_dev_args(g->m, &a);
	}
	if (model_add_event(g->m, &e) < 0)
		g->err = 1;
	g->n++;
}

/* Operators nested in [s, e) at depth d; leaves launch a kernel. */
static void ops(struct gen *g, uint32_t th, uint32_t kth, int si, int64_t s, int64_t e, int d)
{
	int64_t t = s;

	while (t < e && !g->err) {
		int64_t gap = logu(200, 20000), dur;
		t += gap;
		if (t >= e)
			break;
		dur = logu(1000, d == 0 ? 10000000 : 2000000);
		if (t + dur > e)
			dur = e - t;
		if (dur < 1000)
			break;
		add(g, th, MK_CPU_OP, t, dur, g->op_names[rnd() % 64], MODEL_NONE, -1);
		if (d < 5 && dur > 30000 && rnd() % 4 != 0) {
			ops(g, th, kth, si, t + 500, t + dur - 500, d + 1);
		} else if (dur >= 4000) {
			int64_t lt = t + dur / 4, ld = dur / 2 < 5000 ? dur / 2 : 5000, kt;
			int64_t kd = logu(1000, 200000);
			int64_t c = ++g->corr;
			int st = (si + (int)(rnd() % 2)) % 4;
			add(g, th, MK_RUNTIME, lt, ld, g->launch, c, -1);
			kt = lt + 3000;
			if (g->stream_t[st] > kt)
				kt = g->stream_t[st];
			kt += (int64_t)(rnd() % 2000);
			add(g, kth, MK_KERNEL, kt, kd, g->k_names[rnd() % 32], c, st + 7);
			g->stream_t[st] = kt + kd;
		}
		t += dur;
	}
}

static int synth(struct model *m, size_t target, struct nns_err *err)
{
	struct gen g = {0};
	uint32_t th[8], kth, pid;
	int i;
	int64_t t;
	char b[64];

	g.m = m;
	g.target = target;
	for (i = 0; i < 64; i++)
		g.op_names[i] =
		    model_intern(m, b, (size_t)snprintf(b, sizeof(b), "aten::op_%d", i));
	for (i = 0; i < 32; i++)
		g.k_names[i] =
		    model_intern(m, b, (size_t)snprintf(b, sizeof(b), "volta_sgemm_%dx64_nn", i));
	g.launch = model_intern(m, "cudaLaunchKernel", 16);
	g.step = model_intern(m, "ProfilerStep#", 13);
	pid = model_intern(m, "4242", 4);
	for (i = 0; i < 8; i++)
		th[i] = model_thread(
		    m, pid, model_intern(m, b, (size_t)snprintf(b, sizeof(b), "%d", 4242 + i)));
	kth = model_thread(m, model_intern(m, "0", 1), model_intern(m, "stream 7", 8));
	/* steps of 100 ms: each thread runs an operator stack per step */
	for (t = 0; g.n < target && !g.err; t += 100000000) {
		for (i = 0; i < 8 && !g.err; i++) {
			if (i == 0)
				add(&g, th[0], MK_USER_ANNOTATION, t, 99000000, g.step, MODEL_NONE,
				    -1);
			ops(&g, th[i], kth, i % 4, t + 1000, t + 98000000, i == 0 ? 1 : 0);
		}
	}
	if (g.err)
		return nns_err_set(err, NNS_ENOMEM, "out of memory generating the model");
	return model_finalize(m, err);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct model m;
	struct trace_index *ix;
	struct nns_err err;
	double t0, tm, tb;
	size_t target = 10500000;
	int64_t span;
	static const int64_t zooms[] = {1, 10, 100, 1000, 10000, 100000};
	size_t z;
	int rc;

	if (getenv("LOD_EVENTS"))
		target = (size_t)strtoull(getenv("LOD_EVENTS"), NULL, 10);
	if (model_init(&m) != NNS_OK)
		return 1;
	t0 = now();
	if (argc > 1) {
		if (nnst_is_trace_file(argv[1])) {
			rc = nnst_load_file(argv[1], &m, &err);
		} else {
			struct kineto_opts o = {0};
			rc = kineto_load_file(argv[1], &m, &o, &err);
		}
		if (rc != NNS_OK && rc != NNS_ETRUNC) {
			fprintf(stderr, "lod: %s\n", err.msg);
			return 1;
		}
	} else if (synth(&m, target, &err) != NNS_OK) {
		fprintf(stderr, "lod: %s\n", err.msg);
		return 1;
	}
	tm = now() - t0;
	t0 = now();
	if (trace_index_build(&ix, &m, NULL, &err) != NNS_OK) {
		fprintf(stderr, "lod: %s\n", err.msg);
		return 1;
	}
	tb = now() - t0;
	span = m.max_end - m.min_ts;
	printf("trace: %s\n", argc > 1 ? argv[1] : "synthetic (8 threads, 4 streams)");
	printf("events %zu, span %.3f s\n", m.events.n, (double)span * 1e-9);
	printf("model build %.2f s, index build %.2f s, index %.1f MiB (%.1f bytes/event)\n", tm,
	       tb, (double)trace_index_bytes(ix) / 1048576.0,
	       (double)trace_index_bytes(ix) / (double)(m.events.n ? m.events.n : 1));
	printf("\n%-10s %14s %10s %10s %10s %12s\n", "zoom", "window_ns", "median_ms", "p95_ms",
	       "items", "json_bytes");
	for (z = 0; z < sizeof(zooms) / sizeof(zooms[0]); z++) {
		int64_t w = span / zooms[z] > 0 ? span / zooms[z] : 1;
		double ms[PANS];
		size_t items[PANS], bytes[PANS];
		int k;
		for (k = 0; k < PANS; k++) {
			struct jsonw jw;
			struct trace_window_q q;
			char *out, *st;
			size_t len;
			q.t0 = w < span ? (int64_t)(rnd() % (uint64_t)(span - w)) : 0;
			q.t1 = q.t0 + w;
			q.px = PX;
			q.tracks = NULL;
			q.ntracks = 0;
			t0 = now();
			jsonw_init_mem(&jw, 0, 0);
			rc = trace_window_json(ix, &q, &jw, &err);
			if (rc == NNS_OK)
				rc = jsonw_finish(&jw, &err);
			ms[k] = (now() - t0) * 1e3;
			if (rc != NNS_OK) {
				fprintf(stderr, "lod: window: %s\n", err.msg);
				return 1;
			}
			out = jsonw_take(&jw, &len);
			st = out ? strstr(out, "\"stats\":{\"items\":") : NULL;
			items[k] = st ? (size_t)strtoull(st + 17, NULL, 10) : 0;
			bytes[k] = len;
			free(out);
			jsonw_release(&jw);
		}
		{
			double sorted[PANS];
			size_t si[PANS], sb[PANS], a, b2;
			memcpy(sorted, ms, sizeof(ms));
			qsort(sorted, PANS, sizeof(double), cmp_d);
			for (a = 0; a < PANS; a++) {
				si[a] = items[a];
				sb[a] = bytes[a];
			}
			/* medians of items and bytes (insertion sort, small) */
			for (a = 1; a < PANS; a++)
				for (b2 = a; b2 > 0 && si[b2 - 1] > si[b2]; b2--) {
					size_t x = si[b2];
					si[b2] = si[b2 - 1];
					si[b2 - 1] = x;
				}
			for (a = 1; a < PANS; a++)
				for (b2 = a; b2 > 0 && sb[b2 - 1] > sb[b2]; b2--) {
					size_t x = sb[b2];
					sb[b2] = sb[b2 - 1];
					sb[b2 - 1] = x;
				}
			char label[32];
			snprintf(label, sizeof(label), "1/%lld", (long long)zooms[z]);
			printf("%-10s %14lld %10.2f %10.2f %10zu %12zu\n", label, (long long)w,
			       sorted[PANS / 2], sorted[PANS * 95 / 100], si[PANS / 2],
			       sb[PANS / 2]);
		}
	}
	trace_index_free(ix);
	model_release(&m);
	return 0;
}
