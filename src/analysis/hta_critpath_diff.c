/*
 * hta_critpath_diff.c - HTA's trace_diff (TraceDiff.compare_traces and
 * ops_diff) between two profiles: per operator and per kernel name, the
 * count and total duration in the first step of each, their difference,
 * and whether the name was added, removed, or occurs more, fewer or as
 * many times. `nnscope diff` and /api/diff carry it (an_diff.hta).
 */
#include "hta_critpath.h"

#include <stdlib.h>
#include <string.h>

const char *const hcp_change_names[HCP_CH__N] = {"added", "removed", "increased", "decreased",
						 "unchanged"};

/* One aggregated name of one side. */
struct agg {
	const char *name;
	int64_t count, dur;
};

struct item {
	uint32_t name;
	int64_t dur;
};

static int item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	return (a->name > b->name) - (a->name < b->name);
}

static int agg_cmp(const void *x, const void *y)
{
	return strcmp(((const struct agg *)x)->name, ((const struct agg *)y)->name);
}

/* The events of kind class (0 ops, 1 device) in p's first step, summed by
 * name and sorted by name text. *out owned by the caller. */
static int collect(const struct an_profile *p, int device, struct agg **out, size_t *nout)
{
	const struct model *m = p->m;
	struct item *it = NULL;
	struct agg *ag = NULL;
	int64_t lo, hi;
	size_t i, n = 0, k = 0;

	*out = NULL;
	*nout = 0;
	if (!p->overview.steps.n || !m->events.n)
		return 0;
	lo = p->overview.steps.v[0].host_start;
	hi = p->overview.steps.v[0].host_end;
	it = malloc(m->events.n * sizeof(*it));
	if (!it)
		return NNS_ENOMEM;
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		int64_t at = e->ts;

		if (device) {
			if (!model_kind_is_device(e->kind))
				continue;
			if (m->launch_of && model_launch_of(m, i) != MODEL_NOIDX)
				at = m->events.v[model_launch_of(m, i)].ts;
		} else if (e->kind != MK_CPU_OP) {
			continue;
		}
		if (at < lo || at >= hi)
			continue;
		it[n++] = (struct item){e->name, e->dur};
	}
	if (n) {
		qsort(it, n, sizeof(*it), item_cmp);
		ag = malloc(n * sizeof(*ag));
		if (!ag) {
			free(it);
			return NNS_ENOMEM;
		}
		for (i = 0; i < n; i++) {
			if (k && it[i].name == it[i - 1].name) {
				ag[k - 1].count++;
				ag[k - 1].dur += it[i].dur;
			} else {
				ag[k++] = (struct agg){model_str(m, it[i].name), 1, it[i].dur};
			}
		}
		qsort(ag, k, sizeof(*ag), agg_cmp);
	}
	free(it);
	*out = ag;
	*nout = k;
	return 0;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int row_cmp(const void *x, const void *y)
{
	const struct hcp_tdiff_row *a = x, *b = y;
	int64_t da = abs64(a->exp_dur - a->base_dur), db = abs64(b->exp_dur - b->base_dur);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int add_row(struct hcp_tdiff_table *t, const char *name, const struct agg *b,
		   const struct agg *e)
{
	struct hcp_tdiff_row r;

	memset(&r, 0, sizeof(r));
	r.name = strdup(name);
	if (!r.name)
		return NNS_ENOMEM;
	if (b) {
		r.base_count = b->count;
		r.base_dur = b->dur;
	}
	if (e) {
		r.exp_count = e->count;
		r.exp_dur = e->dur;
	}
	r.change = !b				? HCP_ADDED
		   : !e				? HCP_REMOVED
		   : r.exp_count > r.base_count ? HCP_INCREASED
		   : r.exp_count < r.base_count ? HCP_DECREASED
						: HCP_UNCHANGED;
	if (vec_push(&t->rows, r)) {
		free(r.name);
		return NNS_ENOMEM;
	}
	t->changes[r.change]++;
	return 0;
}

static int table(struct hcp_tdiff_table *t, const struct an_profile *base,
		 const struct an_profile *exp, int device)
{
	struct agg *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, i = 0, j = 0;
	int r;

	if ((r = collect(base, device, &a, &na)) || (r = collect(exp, device, &b, &nb)))
		goto out;
	while (!r && (i < na || j < nb)) {
		int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].name, b[j].name);
		if (c < 0) {
			r = add_row(t, a[i].name, &a[i], NULL);
			i++;
		} else if (c > 0) {
			r = add_row(t, b[j].name, NULL, &b[j]);
			j++;
		} else {
			r = add_row(t, a[i].name, &a[i], &b[j]);
			i++;
			j++;
		}
	}
	if (!r && t->rows.n > 1)
		qsort(t->rows.v, t->rows.n, sizeof(*t->rows.v), row_cmp);
out:
	free(a);
	free(b);
	return r;
}

static void table_release(struct hcp_tdiff_table *t)
{
	for (size_t i = 0; i < t->rows.n; i++)
		free(t->rows.v[i].name);
	vec_free(&t->rows);
}

int hcp_tdiff_compute(struct hcp_tdiff *d, const struct an_profile *base,
		      const struct an_profile *exp, struct nns_err *err)
{
	memset(d, 0, sizeof(*d));
	if (base->overview.steps.n)
		memcpy(d->base_step, base->overview.steps.v[0].name, sizeof(d->base_step));
	if (exp->overview.steps.n)
		memcpy(d->exp_step, exp->overview.steps.v[0].name, sizeof(d->exp_step));
	if (table(&d->ops, base, exp, 0) || table(&d->kernels, base, exp, 1)) {
		hcp_tdiff_release(d);
		return nns_err_set(err, NNS_ENOMEM, "out of memory in the trace diff");
	}
	return NNS_OK;
}

void hcp_tdiff_release(struct hcp_tdiff *d)
{
	table_release(&d->ops);
	table_release(&d->kernels);
}
