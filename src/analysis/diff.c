/*
 * diff.c - two profiles (runs or spans) side by side: average step
 * breakdown of each, and per-operator deltas over the union of operator
 * names, sorted by the size of the change (device total when either side
 * has GPU time, host total otherwise).
 */
#include "an_diff.h"
#include "analysis.h"
#include "hta_critpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct an_diff_row *find_or_add(struct an_diff *d, const char *name)
{
	size_t i;
	struct an_diff_row r;

	for (i = 0; i < d->ops.n; i++)
		if (strcmp(d->ops.v[i].name, name) == 0)
			return &d->ops.v[i];
	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", name);
	if (vec_push(&d->ops, r))
		return NULL;
	return &d->ops.v[d->ops.n - 1];
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int delta_cmp(const void *x, const void *y)
{
	const struct an_diff_row *a = x, *b = y;
	int64_t da = abs64(a->exp_dev - a->base_dev), db = abs64(b->exp_dev - b->base_dev);

	if (da == db) {
		da = abs64(a->exp_host - a->base_host);
		db = abs64(b->exp_host - b->base_host);
	}
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

int an_diff_compute(struct an_diff *d, const struct an_profile *base, const struct an_profile *exp,
		    struct nns_err *err)
{
	const struct an_profile *side[2] = {base, exp};
	int s, r;
	size_t i;

	memset(d, 0, sizeof(*d));
	for (s = 0; s < 2; s++) {
		const struct an_profile *p = side[s];
		double *step = s ? d->exp_step : d->base_step;
		for (r = 0; r < AN_NROLES; r++)
			step[r] = p->overview.avg[r];
		step[AN_NROLES] = p->overview.avg_total;
		if (s)
			d->exp_steps = p->overview.steps.n;
		else
			d->base_steps = p->overview.steps.n;
		for (i = 0; i < p->ops.by_name.n; i++) {
			const struct an_op_row *o = &p->ops.by_name.v[i];
			struct an_diff_row *row = find_or_add(d, model_str(p->m, o->name));
			if (!row) {
				an_diff_release(d);
				return nns_err_set(err, NNS_ENOMEM, "out of memory in diff");
			}
			if (s) {
				row->exp_calls = o->calls;
				row->exp_host = o->host_total;
				row->exp_dev = o->dev_total;
				row->exp_host_self = o->host_self;
				row->exp_dev_self = o->dev_self;
			} else {
				row->base_calls = o->calls;
				row->base_host = o->host_total;
				row->base_dev = o->dev_total;
				row->base_host_self = o->host_self;
				row->base_dev_self = o->dev_self;
			}
		}
	}
	if (d->ops.n > 1)
		qsort(d->ops.v, d->ops.n, sizeof(*d->ops.v), delta_cmp);
	d->hta = malloc(sizeof(*d->hta));
	if (!d->hta || hcp_tdiff_compute(d->hta, base, exp, err)) {
		free(d->hta);
		d->hta = NULL;
		an_diff_release(d);
		return nns_err_set(err, NNS_ENOMEM, "out of memory in diff");
	}
	return NNS_OK;
}

void an_diff_release(struct an_diff *d)
{
	vec_free(&d->ops);
	if (d->hta) {
		hcp_tdiff_release(d->hta);
		free(d->hta);
		d->hta = NULL;
	}
}
