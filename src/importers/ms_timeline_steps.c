/*
 * ms_timeline_steps.c - the steps of a loaded msprof rank (ms_timeline.h,
 * mstl_load_rank_opts) from its Step Trace plane: one "ProfilerStep#<k>"
 * user annotation per iteration, over the iteration's own range, so that
 * the generic overview, its step table, --steps and the step-based views
 * see the rank's iterations (without them a rank had one step "0").
 *
 * The iterations are the plane's events named "Iteration <k>" (sub-graphs
 * apart: on the thread named "Model ID:<m>") or "Model ID:<m> Iteration
 * <k>" (merged, ms_timeline_planes.c renames them); the FP_BP, Iteration
 * Refresh, Reduce and Data_aug rows are not iterations. With several
 * sub-graphs the one with the most iterations gives the steps (ties: the
 * lowest model id); an iteration number seen twice counts once. The steps
 * go on their own thread ("steps", named "Model ID:<m>") of the plane's
 * process, so the Trace view shows them under "Step Trace rank<r>".
 * Model metadata steps_from = "msprof_step_trace" when any step is added.
 *
 * Contract: called on a model still open (model_reopen done, before
 * model_finalize); adds events and one thread; NNS_OK (also when the
 * plane is absent: no step is added) or NNS_ENOMEM.
 */
#include "importers/ms_timeline_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITER_MAX 1000000 /* iterations read from one rank's plane */

struct iter {
	long model; /* -1: the thread names no sub-graph */
	long k;
	int64_t ts, dur;
	uint32_t pid; /* the plane's process (string id) */
};

static int starts(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

/* "<digits>" as a number into *v: 0, or -1. */
static int whole_number(const char *s, long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	*v = strtol(s, &end, 10);
	return *end || *v < 0 ? -1 : 0;
}

/* The sub-graph of "Model ID:<m>..." into *v, *rest after the digits. */
static int model_id(const char *s, long *v, const char **rest)
{
	char *end;

	if (!starts(s, "Model ID:"))
		return -1;
	s += 9;
	if (*s < '0' || *s > '9')
		return -1;
	*v = strtol(s, &end, 10);
	*rest = end;
	return *v < 0 ? -1 : 0;
}

/* Whether thread t is in the Step Trace plane's process. */
static int step_trace_thread(const struct model *m, const struct model_thread *t)
{
	const char *pid = model_str(m, t->pid);
	char key[240];

	if (!pid)
		return 0;
	snprintf(key, sizeof(key), "process_name:%s", pid);
	return starts(model_meta_get(m, key), "Step Trace");
}

/* 1 with it filled when event i, on a Step Trace thread, is an iteration. */
static int iteration_of(const struct model *m, size_t i, struct iter *it)
{
	const struct model_event *e = &m->events.v[i];
	const struct model_thread *t = &m->threads.v[e->thread];
	const char *name = model_str(m, e->name), *rest;
	const char *tn = t->name ? model_str(m, t->name) : NULL;

	if (e->kind != MK_OTHER || !name)
		return 0;
	while (*name == ' ')
		name++;
	it->model = -1;
	if (model_id(name, &it->model, &rest) == 0) { /* merged */
		if (*rest != ' ')
			return 0;
		name = rest + 1;
	} else if (tn && model_id(tn, &it->model, &rest) == 0 && *rest) {
		it->model = -1; /* "Model ID:2x": not a sub-graph name */
	}
	if (!starts(name, "Iteration ") || whole_number(name + 10, &it->k))
		return 0;
	it->ts = e->ts;
	it->dur = e->dur;
	it->pid = t->pid;
	return 1;
}

static int iter_cmp(const void *x, const void *y)
{
	const struct iter *a = x, *b = y;

	if (a->model != b->model)
		return a->model < b->model ? -1 : 1;
	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

/* The run [*lo, *hi) of the sub-graph with the most distinct iterations
 * in v (sorted by model, k). */
static void best_model(const struct iter *v, size_t n, size_t *lo, size_t *hi)
{
	size_t best = 0;

	*lo = *hi = 0;
	for (size_t a = 0; a < n;) {
		size_t b = a, distinct = 0;

		for (; b < n && v[b].model == v[a].model; b++)
			distinct += b == a || v[b].k != v[b - 1].k;
		if (distinct > best) {
			best = distinct;
			*lo = a;
			*hi = b;
		}
		a = b;
	}
}

int mstl_add_steps(struct model *m, struct nns_err *err)
{
	VEC(struct iter) v = {0};
	size_t lo, hi, added = 0;
	uint32_t tid, thread, tname;
	char name[48];
	int rc = NNS_OK;
	/* the plane's threads, looked up once, not once per event */
	unsigned char *st = calloc(m->threads.n ? m->threads.n : 1, 1);

	if (!st)
		return nns_err_set(err, NNS_ENOMEM, "out of memory reading the step trace");
	for (size_t t = 0; t < m->threads.n; t++)
		st[t] = (unsigned char)step_trace_thread(m, &m->threads.v[t]);
	for (size_t i = 0; i < m->events.n && v.n < ITER_MAX; i++) {
		struct iter it;

		if (st[m->events.v[i].thread] && iteration_of(m, i, &it) && vec_push(&v, it)) {
			rc = nns_err_set(err, NNS_ENOMEM, "out of memory reading the step trace");
			goto out;
		}
	}
	if (!v.n)
		goto out;
	qsort(v.v, v.n, sizeof(*v.v), iter_cmp);
	best_model(v.v, v.n, &lo, &hi);
	snprintf(name, sizeof(name), "Model ID:%ld", v.v[lo].model);
	tid = model_intern(m, "steps", 5);
	tname = v.v[lo].model >= 0 ? model_intern(m, name, strlen(name)) : 0;
	thread = model_thread(m, v.v[lo].pid, tid);
	if (tid == STRPOOL_NONE || tname == STRPOOL_NONE || thread == MODEL_NOIDX)
		goto oom;
	if (tname)
		m->threads.v[thread].name = tname;
	for (size_t i = lo; i < hi; i++) {
		struct model_event ev;

		if (i > lo && v.v[i].k == v.v[i - 1].k)
			continue; /* the same iteration twice: the first */
		model_event_init(&ev);
		ev.kind = MK_USER_ANNOTATION;
		ev.ts = v.v[i].ts;
		ev.dur = v.v[i].dur;
		ev.thread = thread;
		snprintf(name, sizeof(name), "ProfilerStep#%ld", v.v[i].k);
		ev.name = model_intern(m, name, strlen(name));
		if (ev.name == STRPOOL_NONE || model_add_event(m, &ev) < 0)
			goto oom;
		added++;
	}
	if (added && model_add_meta(m, "steps_from", "msprof_step_trace"))
		goto oom;
	goto out;
oom:
	rc = nns_err_set(err, NNS_ENOMEM, "out of memory adding the step trace's steps");
out:
	free(st);
	vec_free(&v);
	return rc;
}
