/*
 * ms_parallel.c - MindInsight's GraphManager: the ranks' parallel strategy
 * graphs merged per stage (ms_parallel.h).
 */
#include "analysis/ms_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

void ms_par_release(struct ms_par *p)
{
	for (size_t i = 0; i < p->stages.n; i++) {
		struct ms_par_stage *s = &p->stages.v[i];

		for (size_t k = 0; k < s->ops.n; k++) {
			free_strs(s->ops.v[k].inputs.v, s->ops.v[k].inputs.n);
			free_strs(s->ops.v[k].groups.v, s->ops.v[k].groups.n);
			vec_free(&s->ops.v[k].inputs);
			vec_free(&s->ops.v[k].groups);
		}
		vec_free(&s->ops);
		vec_free(&s->rank_ids);
	}
	vec_free(&p->stages);
	ms_ps_set_release(&p->set);
	p->parallel_type = "";
}

static const struct ms_ps_file *by_rank(const struct ms_ps_set *s, const char *rank)
{
	char b[16];

	for (size_t i = 0; i < s->files.n; i++) {
		snprintf(b, sizeof(b), "%d", s->files.v[i].rank);
		if (!strcmp(b, rank))
			return &s->files.v[i];
	}
	return NULL;
}

static const struct ms_ps_node *op_by_id(const struct ms_ps_file *f, const char *id)
{
	/* a later node with the same name replaces the earlier (a dict) */
	for (size_t i = f->ops.n; i-- > 0;)
		if (!strcmp(f->ops.v[i].id, id))
			return &f->ops.v[i];
	return NULL;
}

static int is_const(const struct ms_ps_file *f, const char *id)
{
	for (size_t i = 0; i < f->consts.n; i++)
		if (!strcmp(f->consts.v[i].id, id))
			return 1;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_dup_raw(char ***v, size_t *n, size_t *cap, const char *s)
{
	char *x;

	if (vec_reserve_raw((void **)v, cap, *n + 1, sizeof(char *)))
		return -1;
	if (!(x = strdup(s)))
		return -1;
	(*v)[(*n)++] = x;
	return 0;
}

#define push_dup(a, s) push_dup_raw(&(a)->v, &(a)->n, &(a)->cap, (s))

/* The sorted union of groups and other's group (Python sorted(set(...))). */
static int add_group(struct ms_par_node *x, const char *g)
{
	size_t w = 0;

	if (g && push_dup(&x->groups, g))
		return -1;
	if (x->groups.n < 2)
		return 0;
	qsort(x->groups.v, x->groups.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < x->groups.n; i++) {
		if (w && !strcmp(x->groups.v[w - 1], x->groups.v[i])) {
			free(x->groups.v[i]);
			continue;
		}
		x->groups.v[w++] = x->groups.v[i];
	}
	x->groups.n = w;
	return 0;
}

static int merge_stage(struct ms_par_stage *st, const struct ms_ps_file **g, size_t ng)
{
	const struct ms_ps_file *f = g[0];

	st->first = f;
	for (size_t i = 0; i < ng; i++)
		if (vec_push(&st->rank_ids, g[i]->rank))
			return -1;
	qsort(st->rank_ids.v, st->rank_ids.n, sizeof(int), cmp_int);
	for (size_t i = 0; i < f->ops.n; i++) {
		const struct ms_ps_node *n = &f->ops.v[i];
		struct ms_par_node x;
		char b[16];

		if (op_by_id(f, n->id) != n)
			continue; /* replaced by a later node of the same name */
		memset(&x, 0, sizeof(x));
		x.n = n;
		if (vec_push(&st->ops, x))
			return -1;
		struct ms_par_node *y = &st->ops.v[st->ops.n - 1];

		for (size_t k = 0; k < n->inputs.n; k++) {
			const char *in = n->inputs.v[k];
			const struct ms_ps_node *src;

			if (is_const(f, in)) {
				if (push_dup(&y->inputs, in))
					return -1;
			} else if ((src = op_by_id(f, in))) {
				snprintf(b, sizeof(b), "%d", src->topo);
				if (push_dup(&y->inputs, b))
					return -1;
			}
		}
		if (n->group && push_dup(&y->groups, n->group))
			return -1;
		for (size_t r = 1; r < ng; r++) {
			const struct ms_ps_node *o = op_by_id(g[r], n->id);

			if (add_group(y, o ? o->group : NULL))
				return -1;
		}
	}
	return 0;
}

int ms_par_merge(struct ms_par *p, struct ms_ps_set *s, struct nns_err *err)
{
	const struct ms_ps_file *f0;
	const struct ms_ps_file **g = NULL;
	size_t nstages;
	int dp;

	memset(p, 0, sizeof(*p));
	p->set = *s;
	memset(s, 0, sizeof(*s));
	p->parallel_type = "";
	if (!p->set.files.n)
		return NNS_OK;
	f0 = &p->set.files.v[0];
	p->parallel_type = f0->parallel_type;
	dp = !strcmp(f0->parallel_type, "data_parallel");
	nstages = f0->stage_devices.n;
	if (dp && !nstages)
		nstages = 1;
	if (!(g = calloc(p->set.files.n * 2 + 64, sizeof(*g))))
		goto oom;
	for (size_t st = 0; st < nstages; st++) {
		size_t ng = 0, cap = p->set.files.n * 2 + 64;
		struct ms_par_stage one;

		if (st < f0->stage_devices.n)
			for (size_t k = 0; k < f0->stage_devices.v[st].v.n && ng < cap; k++) {
				const struct ms_ps_file *f =
				    by_rank(&p->set, f0->stage_devices.v[st].v.v[k]);

				if (f)
					g[ng++] = f;
			}
		/* data parallel: every rank's graph joins stage 0 */
		if (dp && st == 0)
			for (size_t k = 0; k < p->set.files.n && ng < cap; k++)
				g[ng++] = &p->set.files.v[k];
		if (!ng)
			continue;
		memset(&one, 0, sizeof(one));
		one.stage = (int)st;
		if (vec_push(&p->stages, one) || merge_stage(&p->stages.v[p->stages.n - 1], g, ng))
			goto oom;
	}
	free(g);
	return NNS_OK;
oom:
	free(g);
	ms_par_release(p);
	return nns_err_set(err, NNS_ENOMEM, "parallel strategy: out of memory");
}

void ms_par_load(struct ms_par *p, const struct ms_src *src)
{
	struct ms_ps_set s;
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	rc = ms_ps_read_dir(src, &s, &err);
	if (rc == NNS_OK || rc == NNS_ENOTFOUND) {
		int mrc = ms_par_merge(p, &s, &err);

		rc = mrc ? mrc : rc;
	} else {
		memset(p, 0, sizeof(*p));
		p->parallel_type = "";
	}
	p->rc = rc;
	p->err = err;
}
