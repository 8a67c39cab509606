/*
 * ms_minddata.c - MindInsight's MindData analyses: queue and time summaries,
 * the queue verdict, the pipeline query / op info / threshold filter and the
 * CPU utilization averages (definitions in ms_minddata.h). The proposals
 * are in ms_minddata_propose.c.
 */
#include "analysis/ms_minddata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- queues ---------------------------------------------------------- */

/* Stable order of n records by step: idx sorted with (step, index). */
struct step_key {
	int64_t step;
	size_t i;
};

static int cmp_step(const void *a, const void *b)
{
	const struct step_key *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The costs of recs sorted by step into out. */
static int sorted_costs(const struct ms_md_trec *r, size_t n, void *outv, double *sum)
{
	VEC(double) *out = outv;
	struct step_key *k = n ? malloc(n * sizeof(*k)) : NULL;

	*sum = 0;
	if (n && !k)
		return NNS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		k[i].step = r[i].step;
		k[i].i = i;
		*sum += r[i].cost_ms; /* file order, as upstream adds them */
	}
	if (n)
		qsort(k, n, sizeof(*k), cmp_step);
	if (vec_reserve(out, n ? n : 1)) {
		free(k);
		return NNS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		out->v[out->n++] = r[k[i].i].cost_ms;
	free(k);
	return NNS_OK;
}

void ms_md_dq_info_release(struct ms_md_dq_info *x)
{
	vec_free(&x->queue_size);
	vec_free(&x->capacity);
	vec_free(&x->total_cost_ms);
	vec_free(&x->push_cost_ms_v);
	vec_free(&x->get_cost_ms_v);
	memset(x, 0, sizeof(*x));
}

int ms_md_dq_analyse(const struct ms_md_dq *q, struct ms_md_dq_info *out)
{
	size_t n = q->queue.n;
	struct step_key *k = n ? malloc(n * sizeof(*k)) : NULL;
	double st, sp, sg;
	int rc;

	memset(out, 0, sizeof(*out));
	if (n && !k)
		return NNS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct ms_md_qrec *r = &q->queue.v[i];

		k[i].step = r->step;
		k[i].i = i;
		out->empty += r->size == 0;
		out->full += r->size == r->capacity;
	}
	out->queue_n = n;
	if (n)
		qsort(k, n, sizeof(*k), cmp_step);
	if (vec_reserve(&out->queue_size, n ? n : 1) || vec_reserve(&out->capacity, n ? n : 1)) {
		free(k);
		ms_md_dq_info_release(out);
		return NNS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		out->queue_size.v[out->queue_size.n++] = q->queue.v[k[i].i].size;
		out->capacity.v[out->capacity.n++] = q->queue.v[k[i].i].capacity;
	}
	free(k);
	rc = sorted_costs(q->total.v, q->total.n, &out->total_cost_ms, &st);
	if (!rc)
		rc = sorted_costs(q->push.v, q->push.n, &out->push_cost_ms_v, &sp);
	if (!rc)
		rc = sorted_costs(q->get.v, q->get.n, &out->get_cost_ms_v, &sg);
	if (rc) {
		ms_md_dq_info_release(out);
		return rc;
	}
	out->time_n = q->total.n;
	if (out->time_n) {
		out->avg_cost_ms = st / (double)out->time_n;
		out->get_cost_ms = sg / (double)out->time_n;
		out->push_cost_ms = sp / (double)out->time_n;
	}
	return NNS_OK;
}

void ms_md_gn_info_release(struct ms_md_gn_info *x)
{
	vec_free(&x->queue);
	vec_free(&x->cost_ms);
	memset(x, 0, sizeof(*x));
}

int ms_md_gn_analyse(const struct ms_md_gn *g, struct ms_md_gn_info *out)
{
	double sum = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < g->rec.n; i++) {
		const struct ms_md_gnrec *r = &g->rec.v[i];

		if (r->has_queue) {
			if (vec_push(&out->queue, r->queue))
				goto nomem;
			out->empty += r->queue == 0;
		}
		if (vec_push(&out->cost_ms, r->cost_ms))
			goto nomem;
		sum += r->cost_ms;
	}
	out->queue_n = out->queue.n;
	out->time_n = out->cost_ms.n;
	if (out->time_n)
		out->avg_cost_ms = sum / (double)out->time_n;
	return NNS_OK;
nomem:
	ms_md_gn_info_release(out);
	return NNS_ENOMEM;
}

const char *ms_md_status_name(enum ms_md_status s)
{
	return s == MS_MD_NORMAL ? "normal" : s == MS_MD_WARNING ? "warning" : NULL;
}

void ms_md_queue_summary(const struct ms_md_dq *q, const struct ms_md_gn *g,
			 struct ms_md_queue_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!q || !q->present)
		return;
	out->present = 1;
	for (size_t i = 0; i < q->queue.n; i++) {
		out->dq_empty += q->queue.v[i].size == 0;
		out->dq_full += q->queue.v[i].size == q->queue.v[i].capacity;
	}
	out->dq_total = q->queue.n;
	out->data_process = MS_MD_NORMAL;
	out->device_queue_warning = MS_MD_NORMAL;
	if (g && g->present) {
		out->has_get_next = 1;
		out->data_transmission = MS_MD_NORMAL;
		out->get_next = MS_MD_NORMAL;
		for (size_t i = 0; i < g->rec.n; i++)
			if (g->rec.v[i].has_queue) {
				out->gn_total++;
				out->gn_empty += g->rec.v[i].queue == 0;
			}
	}
	if ((double)out->dq_empty > (double)out->dq_total * MS_MD_EMPTY_WARNING_THRESHOLD)
		out->data_process = MS_MD_WARNING;
	else if (out->has_get_next && out->gn_empty > 0)
		out->data_transmission = MS_MD_WARNING;
	else
		out->device_queue_warning = MS_MD_WARNING;
}

/* ---- pipeline -------------------------------------------------------- */

/* the columns are the file's, in its order */
_Static_assert(MS_MD_NCOLS == MS_MD_PIPELINE_NCOLS, "ms_md_col follows the pipeline file");

const char *ms_md_col_name(int col)
{
	return col >= 0 && col < MS_MD_NCOLS ? ms_md_pipeline_cols[col] : NULL;
}

int ms_md_col_from_name(const char *name)
{
	for (int i = 0; name && i < MS_MD_NCOLS; i++)
		if (strcmp(name, ms_md_pipeline_cols[i]) == 0)
			return i;
	return -1;
}

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

/* Python's comparison of two values of a column, None smallest. */
static int cmp_col(const struct ms_md_op *a, const struct ms_md_op *b, int col)
{
	int ha = 1, hb = 1;
	double x = 0, y = 0;

	switch (col) {
	case MS_MD_COL_OP_ID:
		x = (double)a->op_id, y = (double)b->op_id;
		break;
	case MS_MD_COL_OP_TYPE: {
		int c = strcmp(a->op_type, b->op_type);

		return (c > 0) - (c < 0);
	}
	case MS_MD_COL_NUM_WORKERS:
		x = (double)a->num_workers, y = (double)b->num_workers;
		break;
	case MS_MD_COL_QUEUE_AVG:
		ha = a->has_avg, hb = b->has_avg, x = a->avg, y = b->avg;
		break;
	case MS_MD_COL_QUEUE_LENGTH:
		ha = a->has_length, hb = b->has_length;
		x = (double)a->length, y = (double)b->length;
		break;
	case MS_MD_COL_QUEUE_USAGE:
		ha = a->has_usage, hb = b->has_usage, x = a->usage, y = b->usage;
		break;
	case MS_MD_COL_SAMPLE_INTERVAL:
		x = (double)a->sample_interval, y = (double)b->sample_interval;
		break;
	case MS_MD_COL_PARENT_ID:
		ha = a->has_parent, hb = b->has_parent;
		x = (double)a->parent_id, y = (double)b->parent_id;
		break;
	case MS_MD_COL_QUEUE_SIZE:
	case MS_MD_COL_CHILDREN_ID: {
		int q = col == MS_MD_COL_QUEUE_SIZE;
		size_t na = q ? a->queue_size.n : a->children.n;
		size_t nb = q ? b->queue_size.n : b->children.n;

		ha = q ? a->has_queue_size : a->has_children;
		hb = q ? b->has_queue_size : b->has_children;
		if (!ha || !hb)
			return ha - hb;
		for (size_t i = 0; i < na && i < nb; i++) {
			int c = q ? cmp_num(a->queue_size.v[i], b->queue_size.v[i])
				  : cmp_num((double)a->children.v[i], (double)b->children.v[i]);
			if (c)
				return c;
		}
		return (na > nb) - (na < nb);
	}
	default:
		return 0;
	}
	if (!ha || !hb)
		return ha - hb;
	return cmp_num(x, y);
}

struct sort_ctx {
	const struct ms_md_pipeline *p;
	int col, desc;
};

/* A merge sort (stable) of order by the column. */
static void merge_sort(size_t *v, size_t *tmp, size_t n, const struct sort_ctx *c)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	merge_sort(v, tmp, h, c);
	merge_sort(v + h, tmp, n - h, c);
	while (i < h && j < n) {
		int r = cmp_col(&c->p->ops.v[v[j]], &c->p->ops.v[v[i]], c->col);

		/* take the right one only when it must come strictly first */
		if (c->desc ? r > 0 : r < 0)
			tmp[k++] = v[j++];
		else
			tmp[k++] = v[i++];
	}
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

int ms_md_pipeline_sort(const struct ms_md_pipeline *p, int col, int descending, size_t *order)
{
	struct sort_ctx c = {p, col, descending};
	size_t n = p->ops.n, *tmp;

	if (col < 0 || col >= MS_MD_NCOLS)
		return NNS_EINVAL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n < 2)
		return NNS_OK;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return NNS_ENOMEM;
	merge_sort(order, tmp, n, &c);
	free(tmp);
	return NNS_OK;
}

int ms_md_op_and_parent(const struct ms_md_pipeline *p, int64_t op_id, long *cur, long *parent)
{
	long i = ms_md_pipeline_find(p, op_id);

	*cur = i;
	*parent = -1;
	if (i < 0)
		return NNS_ENOTFOUND;
	if (p->ops.v[i].has_parent)
		*parent = ms_md_pipeline_find(p, p->ops.v[i].parent_id);
	return NNS_OK;
}

static double usage_of(const struct ms_md_op *o)
{
	return o->has_usage ? o->usage : 0.0;
}

void ms_md_pipeline_outside_threshold(const struct ms_md_pipeline *p, double high, double low,
				      size_t *idx, size_t *n)
{
	long root = -1;
	size_t nres = 0, nleaf = 0;
	int all_below_low = 1, all_above_high = 1;

	*n = 0;
	for (size_t i = 0; i < p->ops.n; i++) {
		const struct ms_md_op *o = &p->ops.v[i];
		double u = usage_of(o);
		int is_low = 0, is_high = 1;

		if (!o->has_parent) {
			root = (long)i;
			continue;
		}
		if (u < low)
			is_low = 1;
		else
			all_below_low = 0;
		if (u < high)
			all_above_high = 0;
		if (!o->has_children || o->children.n == 0) {
			nleaf++;
			continue;
		}
		for (size_t c = 0; c < o->children.n; c++) {
			long ci = ms_md_pipeline_find(p, o->children.v[c]);

			if (ci < 0 || usage_of(&p->ops.v[ci]) < high) {
				is_high = 0;
				break;
			}
		}
		if (is_high && is_low)
			idx[nres++] = i;
	}
	if (all_below_low) {
		nres = 0;
		for (size_t i = 0; i < p->ops.n && nleaf; i++) {
			const struct ms_md_op *o = &p->ops.v[i];

			if (o->has_parent && (!o->has_children || o->children.n == 0))
				idx[nres++] = i;
		}
	} else if (all_above_high) {
		nres = 0;
		if (root >= 0)
			idx[nres++] = (size_t)root;
	}
	*n = nres;
}

/* ---- CPU utilization ------------------------------------------------- */

double ms_md_cpu_avg(const struct ms_md_series *s, size_t first, size_t end)
{
	double sum = 0;
	size_t n;

	if (!s)
		return 0;
	if (end > s->v.n)
		end = s->v.n;
	if (first >= end)
		return 0;
	n = end - first;
	for (size_t i = first; i < end; i++)
		sum += s->v.v[i];
	return nearbyint(sum / (double)n); /* round half to even, like Python's round */
}

void ms_md_cpu_info_release(struct ms_md_cpu_info *x)
{
	vec_free(&x->sample_step);
	memset(x, 0, sizeof(*x));
}

/* Upstream _get_minddata_cpu_utilization_steps_info: the step of each sample
 * from the queue records' (step, time), in file order. */
static int map_steps(const struct ms_md_cpu *c, const struct ms_md_dq *q,
		     struct ms_md_cpu_info *out)
{
	size_t nq = 0, l = 0, r = 0;
	const struct ms_md_qrec **qt;

	for (size_t i = 0; q && i < q->queue.n; i++)
		nq += !isnan(q->queue.v[i].time);
	out->step_total_num = nq;
	if (nq == 0)
		return NNS_OK;
	qt = malloc(nq * sizeof(*qt));
	if (!qt)
		return NNS_ENOMEM;
	nq = 0;
	for (size_t i = 0; i < q->queue.n; i++)
		if (!isnan(q->queue.v[i].time))
			qt[nq++] = &q->queue.v[i];
	for (size_t s = 0; s < c->time_stamp.n; s++) {
		double t = c->time_stamp.v[s];
		int64_t step = -1;

		if (t < qt[0]->time) {
			step = 0;
		} else {
			while (r < nq) {
				if (t <= qt[r]->time) {
					step = t < qt[r]->time ? qt[l]->step : qt[r]->step;
					break;
				}
				l = r;
				r++;
			}
			if (r == nq)
				step = qt[r - 1]->step;
		}
		if (vec_push(&out->sample_step, step)) {
			free(qt);
			return NNS_ENOMEM;
		}
	}
	free(qt);
	out->mapped = 1;
	return NNS_OK;
}

int ms_md_cpu_analyse(const struct ms_md_cpu *c, const struct ms_md_dq *q,
		      struct ms_md_cpu_info *out)
{
	const struct ms_md_series *idle;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	out->nsamples = c->time_stamp.n;
	if ((rc = map_steps(c, q, out))) {
		ms_md_cpu_info_release(out);
		return rc;
	}
	out->first = 0;
	out->end = c->time_stamp.n; /* every sample of every series */
	for (size_t i = 0; i < c->ndevice; i++)
		out->end = c->device[i].v.n > out->end ? c->device[i].v.n : out->end;
	for (size_t i = 0; i < c->nprocess; i++)
		out->end = c->process[i].v.n > out->end ? c->process[i].v.n : out->end;
	for (size_t k = 0; k < c->ops.n; k++)
		for (size_t i = 0; i < c->ops.v[k].nmetrics; i++)
			if (c->ops.v[k].metrics[i].v.n > out->end)
				out->end = c->ops.v[k].metrics[i].v.n;
	n = out->sample_step.n;
	if (out->mapped && n) {
		/* _filter(start_step=1, end_step=step_total_num): the smallest
		 * step >= 1 present, the largest <= step_total_num present; the
		 * pre-step samples (step 0) never match. */
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		long left = -1, right = -1;

		for (size_t i = 0; i < n; i++) {
			int64_t s = out->sample_step.v[i];

			if (s >= 1 && s < lo)
				lo = s;
			if (s >= 1 && s <= (int64_t)out->step_total_num && s > hi)
				hi = s;
		}
		if (lo != INT64_MAX && hi != INT64_MIN && lo <= hi) {
			size_t cnt = 0;

			for (size_t i = 0; i < n; i++) {
				if (left < 0 && out->sample_step.v[i] == lo)
					left = (long)i;
				if (out->sample_step.v[i] == hi) {
					if (right < 0)
						right = (long)i;
					cnt++;
				}
			}
			out->first = (size_t)left;
			right = right + (long)cnt - 1;
			out->end = right + 1 > left ? (size_t)right + 1 : (size_t)left;
		} else {
			out->mapped = 0; /* upstream would not finish; keep every sample */
		}
	}
	idle = ms_md_series_find(c->device, c->ndevice, "idle_utilization");
	if (idle) {
		out->has_idle = 1;
		out->idle_avg = ms_md_cpu_avg(idle, out->first, out->end);
		out->active_avg = 100 - out->idle_avg;
	}
	return NNS_OK;
}
