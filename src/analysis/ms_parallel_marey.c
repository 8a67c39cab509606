/*
 * ms_parallel_marey.c - MindInsight's TimelineService (the Marey graph of
 * stages over time, ms_parallel.h): stage grouping and alignment by the
 * shortest AllReduce, the operators of a step per device, and the per-stage
 * aggregation.
 */
#include "analysis/ms_parallel.h"
#include "common/hmap.h"
#include "common/strhash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name -> index map over a VEC of structs whose first member is the name
 * (hash first, then the names compared). */
struct nidx {
	struct hmap h;
};

static long nidx_find(struct nidx *x, char *const *names, size_t stride, size_t n, const char *name)
{
	uint32_t *v = names ? hmap_get(&x->h, strhash(name)) : NULL;

	if (v && !strcmp(*(char *const *)((const char *)names + (size_t)*v * stride), name))
		return *v;
	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) /* a hash collision: look the slow way */
		if (!strcmp(*(char *const *)((const char *)names + i * stride), name))
			return (long)i;
	return -1;
}

static int nidx_add(struct nidx *x, const char *name, uint32_t i)
{
	int is_new;

	/* on a collision the first keeps the slot; nidx_find scans */
	return hmap_put(&x->h, strhash(name), i, &is_new) ? 0 : -1;
}

static int first_num(const char *s)
{
	while (*s && (*s < '0' || *s > '9'))
		s++;
	return atoi(s);
}

int ms_marey_aggregate(struct ms_marey *m, struct nns_err *err)
{
	for (size_t si = 0; si < m->stages.n; si++) {
		struct ms_marey_stage *st = &m->stages.v[si];
		struct nidx ix;

		hmap_init(&ix.h);
		for (size_t k = 0; k < st->data.n; k++)
			free(st->data.v[k].name);
		st->data.n = 0;
		for (size_t di = 0; di < st->devices.n; di++) {
			const struct ms_marey_dev *d = NULL;

			for (size_t k = 0; k < m->maps.n && !d; k++)
				if (!strcmp(m->maps.v[k].name, st->devices.v[di]))
					d = &m->maps.v[k];
			for (size_t k = 0; d && k < d->ops.n; k++) {
				const struct ms_marey_op *o = &d->ops.v[k];
				long at = nidx_find(&ix, st->data.n ? &st->data.v[0].name : NULL,
						    sizeof(st->data.v[0]), st->data.n, o->name);
				struct ms_marey_agg *a;

				if (at >= 0) {
					struct ms_marey_agg *g = &st->data.v[at];

					g->st_max = fmax(g->st_max, o->st);
					g->st_min = fmin(g->st_min, o->st);
					g->ed_max = fmax(g->ed_max, o->ed);
					g->ed_min = fmin(g->ed_min, o->ed);
					g->st_avg = (o->st + g->st_avg * g->n) / (g->n + 1);
					g->ed_avg = (o->ed + g->ed_avg * g->n) / (g->n + 1);
					g->n++;
					continue;
				}
				if (vec_reserve(&st->data, st->data.n + 1) ||
				    !(st->data.v[st->data.n].name = strdup(o->name))) {
					hmap_release(&ix.h);
					return nns_err_set(err, NNS_ENOMEM, "marey: out of memory");
				}
				a = &st->data.v[st->data.n++];
				a->st_max = a->st_min = a->st_avg = o->st;
				a->ed_max = a->ed_min = a->ed_avg = o->ed;
				a->n = 1;
				if (nidx_add(&ix, o->name, (uint32_t)(st->data.n - 1))) {
					hmap_release(&ix.h);
					return nns_err_set(err, NNS_ENOMEM, "marey: out of memory");
				}
			}
		}
		hmap_release(&ix.h);
	}
	return NNS_OK;
}

/* The step's bounds on device t: the first event named step, else
 * [0, inf). */
static void step_bounds(const struct ms_mtl *t, const char *step, double *s, double *e)
{
	*s = 0;
	*e = INFINITY;
	for (size_t i = 0; i < t->ev.n; i++)
		if (!strcmp(t->ev.v[i].name, step)) {
			*s = t->ev.v[i].ts;
			*e = t->ev.v[i].ts + t->ev.v[i].dur;
			return;
		}
}

/* __align_time: stages by the shortest AllReduce of step "1"; the devices'
 * times shifted onto the stage's first. stage_of[i] / order receive the
 * stages as lists of device indexes. */
static int align(struct ms_mtl_set *s, int *stage_of, int *nstages)
{
	size_t n = s->devs.n;
	char *visited = calloc(n + 1, 1);
	double *shift = calloc(n + 1, sizeof(double));
	int cur = 0, open = 0;

	if (!visited || !shift) {
		free(visited);
		free(shift);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		stage_of[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct ms_mtl *t = &s->devs.v[i];
		const struct ms_mtl_ev *best = NULL;
		double a, b;

		if (visited[i])
			continue;
		visited[i] = 1;
		stage_of[i] = cur;
		open = 1;
		step_bounds(t, "1", &a, &b);
		for (size_t k = 0; k < t->ev.n; k++) {
			const struct ms_mtl_ev *e = &t->ev.v[k];

			if (e->is_op && e->ts > a && e->ts < b && strstr(e->name, "AllReduce") &&
			    (!best || e->dur < best->dur))
				best = e;
		}
		if (!best)
			continue; /* MindInsight keeps collecting into the same stage */
		for (size_t j = 0; j < n; j++) {
			const struct ms_mtl *u = &s->devs.v[j];
			double a2, b2;

			if (visited[j])
				continue;
			step_bounds(u, "1", &a2, &b2);
			for (size_t k = 0; k < u->ev.n; k++) {
				const struct ms_mtl_ev *e = &u->ev.v[k];

				if (e->is_op && e->ts > a2 && e->ts < b2 &&
				    !strcmp(e->name, best->name)) {
					visited[j] = 1;
					stage_of[j] = cur;
					shift[j] = best->ts - e->ts;
					break;
				}
			}
		}
		cur++;
		open = 0;
	}
	*nstages = cur + open;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < s->devs.v[i].ev.n; k++)
			s->devs.v[i].ev.v[k].ts += shift[i];
	free(visited);
	free(shift);
	return 0;
}

static int nomem(struct nns_err *err)
{
	return nns_err_set(err, NNS_ENOMEM, "marey: out of memory");
}

/* One device's operators of the step into maps (a later operator of the
 * same name replaces the values, keeping the first one's place). */
static int device_ops(struct ms_marey *m, const struct ms_mtl *t, const char *step)
{
	struct ms_marey_dev d;
	struct nidx ix;
	double a, b;

	memset(&d, 0, sizeof(d));
	if (!(d.name = malloc(24)))
		return -1;
	snprintf(d.name, 24, "device%d", t->dev);
	if (vec_push(&m->maps, d)) {
		free(d.name);
		return -1;
	}
	hmap_init(&ix.h);
	step_bounds(t, step, &a, &b);
	for (size_t k = 0; k < t->ev.n; k++) {
		const struct ms_mtl_ev *e = &t->ev.v[k];
		struct ms_marey_dev *p = &m->maps.v[m->maps.n - 1];
		struct ms_marey_op o;
		long at;

		/* as upstream writes it: "dur < step_start" (not ts) */
		if (!e->is_op || !((a < e->ts && e->ts < b) || (e->dur < a && a < e->ts + e->dur)))
			continue;
		o.st = e->ts;
		o.ed = e->ts + e->dur;
		o.dur = e->dur;
		m->min_t = fmin(m->min_t, o.st);
		m->max_t = fmax(m->max_t, o.ed);
		at = nidx_find(&ix, p->ops.n ? &p->ops.v[0].name : NULL, sizeof(p->ops.v[0]),
			       p->ops.n, e->name);
		if (at >= 0) {
			o.name = p->ops.v[at].name;
			p->ops.v[at] = o;
			continue;
		}
		if (!(o.name = strdup(e->name)) || vec_push(&p->ops, o)) {
			free(o.name);
			hmap_release(&ix.h);
			return -1;
		}
		if (nidx_add(&ix, e->name, (uint32_t)(p->ops.n - 1))) {
			hmap_release(&ix.h);
			return -1;
		}
	}
	hmap_release(&ix.h);
	return 0;
}

int ms_marey_compute(struct ms_mtl_set *s, const char *step, struct ms_marey *m,
		     struct nns_err *err)
{
	int *stage_of = calloc(s->devs.n + 1, sizeof(int)), nst = 0;
	int *order = calloc(s->devs.n + 1, sizeof(int));

	memset(m, 0, sizeof(*m));
	m->source = "timelines";
	m->step = atoi(step);
	m->min_t = INFINITY; /* MindInsight: min inf, max 0 */
	m->max_t = 0;
	if (!stage_of || !order || align(s, stage_of, &nst))
		goto oom;
	for (size_t i = 0; i < s->devs.n; i++)
		if (device_ops(m, &s->devs.v[i], step))
			goto oom;
	m->has_min = isfinite(m->min_t);
	/* stages sorted by the number in their first device's name */
	for (int k = 0; k < nst; k++)
		order[k] = k;
	for (int k = 1; k < nst; k++)
		for (int j = k; j > 0; j--) {
			int fa = -1, fb = -1;

			for (size_t i = 0; i < s->devs.n; i++) {
				if (fa < 0 && stage_of[i] == order[j - 1])
					fa = (int)i;
				if (fb < 0 && stage_of[i] == order[j])
					fb = (int)i;
			}
			if (fa < 0 || fb < 0 ||
			    first_num(m->maps.v[fa].name) <= first_num(m->maps.v[fb].name))
				break;
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int k = 0; k < nst; k++) {
		struct ms_marey_stage st;

		memset(&st, 0, sizeof(st));
		if (!(st.name = malloc(24)) || vec_push(&m->stages, st)) {
			free(st.name);
			goto oom;
		}
		snprintf(m->stages.v[k].name, 24, "stage%d", k);
		for (size_t i = 0; i < s->devs.n; i++) {
			char *d;

			if (stage_of[i] != order[k])
				continue;
			if (!(d = strdup(m->maps.v[i].name)) ||
			    vec_push(&m->stages.v[k].devices, d)) {
				free(d);
				goto oom;
			}
		}
	}
	free(stage_of);
	free(order);
	return ms_marey_aggregate(m, err);
oom:
	free(stage_of);
	free(order);
	ms_marey_release(m);
	return nomem(err);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The steps of the timelines: the numbers that name a step row, ascending,
 * once each; [1] (the whole time) when no device has step rows. */
static int mtl_steps(const struct ms_mtl_set *s, struct ms_marey *m)
{
	size_t w = 0;

	for (size_t i = 0; i < s->devs.n; i++)
		for (size_t k = 0; k < s->devs.v[i].ev.n; k++) {
			const struct ms_mtl_ev *e = &s->devs.v[i].ev.v[k];

			if (!e->is_op && strlen(e->name) <= 9 && vec_push(&m->steps, atoi(e->name)))
				return -1;
		}
	if (!m->steps.n && vec_push(&m->steps, 1))
		return -1;
	qsort(m->steps.v, m->steps.n, sizeof(int), cmp_int);
	for (size_t i = 0; i < m->steps.n; i++)
		if (!w || m->steps.v[w - 1] != m->steps.v[i])
			m->steps.v[w++] = m->steps.v[i];
	m->steps.n = w;
	return 0;
}

/* The step asked for, checked against steps[0..n): NNS_OK and *k, else
 * NNS_EINVAL naming the steps there are. step NULL: the first step. */
static int pick_step(const char *step, const int *steps, size_t n, int *k, struct nns_err *err)
{
	char list[96];
	size_t used = 0;

	if (!step) {
		*k = n ? steps[0] : 1;
		return NNS_OK;
	}
	if (!*step || strlen(step) > 9 || strspn(step, "0123456789") != strlen(step) ||
	    (*k = atoi(step)) < 1)
		return nns_err_set(err, NNS_EINVAL,
				   "step '%.40s' is not a step number (a whole number from 1)",
				   step);
	for (size_t i = 0; i < n; i++)
		if (steps[i] == *k)
			return NNS_OK;
	list[0] = 0;
	for (size_t i = 0; i < n && used + 16 < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d", i ? ", " : "",
					 steps[i]);
	return nns_err_set(err, NNS_EINVAL, "step %d is not a step of this job (steps: %s%s)", *k,
			   list, used + 16 >= sizeof(list) ? ", ..." : "");
}

int ms_marey_load(const struct ms_src *src, const char *step, struct ms_marey *m,
		  struct nns_err *err)
{
	struct ms_mtl_set s;
	struct ms_marey tmp;
	char name[16];
	int rc, k, ids[64], n;

	memset(m, 0, sizeof(*m));
	memset(&tmp, 0, sizeof(tmp));
	rc = ms_mtl_read_dir(src, &s, err);
	if (rc == NNS_OK) {
		if (mtl_steps(&s, &tmp)) {
			ms_mtl_set_release(&s);
			vec_free(&tmp.steps);
			return nomem(err);
		}
		rc = pick_step(step, tmp.steps.v, tmp.steps.n, &k, err);
		if (rc == NNS_OK) {
			snprintf(name, sizeof(name), "%d", k);
			rc = ms_marey_compute(&s, name, m, err);
		}
		ms_mtl_set_release(&s);
		if (rc == NNS_OK)
			m->steps = tmp.steps;
		else
			vec_free(&tmp.steps);
		return rc;
	}
	if (rc != NNS_ENOTFOUND)
		return rc;
	n = ms_marey_file_steps(src, ids, 64);
	if (n <= 0)
		return nns_err_set(err, NNS_ENOTFOUND,
				   "%s: no ascend_timeline_display_<dev>.json nor "
				   "ascend_marey_timeline_<step>.json",
				   src->dir);
	nns_err_clear(err);
	if ((rc = pick_step(step, ids, (size_t)n, &k, err)) != NNS_OK)
		return rc;
	if ((rc = ms_marey_read(src, k, m, err)) != NNS_OK)
		return rc;
	for (int i = 0; i < n; i++)
		if (vec_push(&m->steps, ids[i])) {
			ms_marey_release(m);
			return nomem(err);
		}
	return NNS_OK;
}

int ms_marey_owner(const struct ms_src *src)
{
	int ids[1];

	/* the first timeline device, else device 0 for a saved answer */
	return ms_mtl_devices(src, ids, 1) == 1 ? ids[0] == src->dev : src->dev == 0;
}
