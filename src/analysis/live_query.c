/*
 * live_query.c - what a live view asks of the incremental analysis
 * (live.h): step statistics, the steps with their breakdown now, and the
 * operator and kernel tables of the run or of its last steps. Each query
 * reads the kept results only: the steps, the tables, and at most one pass
 * over the recent log (bounded by LIVE_RECENT_STEPS steps).
 */
#include "analysis/live.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The duration at rank q (0..1) of the run's steps from the histogram: the
 * middle of its bucket, clamped to the exact extremes. */
static int64_t hist_at(const struct live *l, double q)
{
	uint64_t want = (uint64_t)((double)(l->steps.n - 1) * q + 0.5), seen = 0;

	for (size_t b = 0; b < LIVE_HIST_BUCKETS; b++) {
		seen += l->step_hist[b];
		if (seen > want) {
			double mid = b ? 1000.0 * pow(1.01, (double)b - 0.5) : 500.0;
			int64_t v = (int64_t)mid;

			return v < l->step_min ? l->step_min : v > l->step_max ? l->step_max : v;
		}
	}
	return l->step_max;
}

void live_step_stats(const struct live *l, size_t last, struct live_step_stats *st)
{
	size_t n = l->steps.n, first;
	int whole = last == 0 || last >= n;
	int64_t *d;

	memset(st, 0, sizeof(*st));
	if (n == 0)
		return;
	if (last == 0 || last > LIVE_EXACT_STEPS)
		last = LIVE_EXACT_STEPS;
	first = last < n ? n - last : 0;
	if (!(d = malloc((n - first) * sizeof(*d))))
		return;
	st->n = n - first;
	for (size_t i = first; i < n; i++) {
		d[i - first] = l->steps.v[i].end - l->steps.v[i].start;
		st->mean += (double)d[i - first];
	}
	st->mean /= (double)st->n;
	st->last = d[st->n - 1];
	qsort(d, st->n, sizeof(*d), i64_cmp);
	st->min = d[0];
	st->max = d[st->n - 1];
	/* the median of an even count is the mean of the middle two */
	st->median = st->n % 2 ? d[st->n / 2] : (d[st->n / 2 - 1] + d[st->n / 2]) / 2;
	st->p90 = d[(size_t)((double)(st->n - 1) * 0.9 + 0.5)];
	free(d);
	if (whole && first > 0 && l->step_hist) { /* the whole run, beyond the exact sort */
		first = 0;
		st->n = n;
		st->mean = l->step_sum / (double)n;
		st->min = l->step_min;
		st->max = l->step_max;
		st->median = hist_at(l, 0.5);
		st->p90 = hist_at(l, 0.9);
	}
	if (l->steps.v[n - 1].end > l->steps.v[first].start)
		st->steps_per_s =
		    (double)st->n * 1e9 / (double)(l->steps.v[n - 1].end - l->steps.v[first].start);
}

/* The index in s[0..n) of the step holding time ts, n if none (steps are
 * sorted by start and do not overlap). */
static size_t step_at(const struct live_step *s, size_t n, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* first step starting after ts */
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ts < s[lo - 1].end ? lo - 1 : n;
}

void live_steps_now(const struct live *l, size_t first, struct live_step *out)
{
	size_t n = l->steps.n > first ? l->steps.n - first : 0;
	size_t sum_from = n; /* out[sum_from..n) are summed from the log */

	if (!n)
		return;
	memcpy(out, l->steps.v + first, n * sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (!out[i].final) {
			sum_from = i;
			break;
		}
	for (size_t i = sum_from; i < n; i++)
		out[i].dataloader = out[i].cpu_ops = out[i].kernel = out[i].memcpy = out[i].comm =
		    0;
	if (sum_from == n)
		return;
	for (size_t i = 0; i < l->recent.n; i++) {
		const struct live_rec *r = &l->recent.v[i];
		size_t k = step_at(out + sum_from, n - sum_from, r->start);
		struct live_step *s;

		if (k == n - sum_from)
			continue;
		s = &out[sum_from + k];
		switch (r->what) {
		case LIVE_R_CPU:
			s->cpu_ops += r->dur;
			break;
		case LIVE_R_DATALOADER:
			s->dataloader += r->dur;
			break;
		case LIVE_R_KERNEL:
			s->kernel += r->dur;
			break;
		case LIVE_R_MEMCPY:
			s->memcpy += r->dur;
			break;
		case LIVE_R_COMM:
			s->comm += r->dur;
			break;
		}
	}
}

/* The time range of the last `last` steps: [*lo, *hi). 0 if none. */
static int last_range(const struct live *l, size_t last, int64_t *lo, int64_t *hi)
{
	size_t n = l->steps.n;

	if (!n)
		return 0;
	if (last > LIVE_RECENT_STEPS)
		last = LIVE_RECENT_STEPS;
	if (last > n)
		last = n;
	*lo = l->steps.v[n - last].start;
	*hi = l->steps.v[n - 1].end;
	return 1;
}

static int op_cmp(const void *a, const void *b, void *arg)
{
	const struct live_op *x = a, *y = b;
	const struct live *l = arg;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(live_str(l, x->name), live_str(l, y->name));
}

static int kernel_cmp(const void *a, const void *b, void *arg)
{
	const struct live_kernel *x = a, *y = b;
	const struct live *l = arg;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(live_str(l, x->name), live_str(l, y->name));
}

/* Rows of the records of kind `what` in [lo, hi) grouped by name: into
 * *rows (malloc'd), as live_op or live_kernel rows. */
static int group_recent(const struct live *l, uint8_t what, int64_t lo, int64_t hi, void **rows,
			size_t *n)
{
	struct hmap at;
	size_t cap = 0,
	       elem = what == LIVE_R_OP ? sizeof(struct live_op) : sizeof(struct live_kernel);
	char *v = NULL;

	hmap_init(&at);
	*n = 0;
	for (size_t i = 0; i < l->recent.n; i++) {
		const struct live_rec *r = &l->recent.v[i];
		uint32_t *ix;
		int is_new;

		if (r->what != what || r->start < lo || r->start >= hi)
			continue;
		if (!(ix = hmap_put(&at, r->name, (uint32_t)*n, &is_new)))
			goto nomem;
		if (is_new) {
			if (vec_reserve_raw((void **)&v, &cap, *n + 1, elem))
				goto nomem;
			memset(v + *n * elem, 0, elem);
			(*n)++;
		}
		if (what == LIVE_R_OP) {
			struct live_op *o = (struct live_op *)(void *)v + *ix;

			o->name = r->name;
			o->calls++;
			o->total += r->dur;
			o->self += r->self;
		} else {
			struct live_kernel *k = (struct live_kernel *)(void *)v + *ix;

			if (!k->calls || r->dur < k->min)
				k->min = r->dur;
			if (r->dur > k->max)
				k->max = r->dur;
			k->name = r->name;
			k->calls++;
			k->total += r->dur;
		}
	}
	hmap_release(&at);
	*rows = v;
	return NNS_OK;
nomem:
	hmap_release(&at);
	free(v);
	*n = 0;
	return NNS_ENOMEM;
}

/* The whole run's rows (a sorted copy of `base`) or the last steps' (from
 * the recent log), sorted by cmp. */
static int top_rows(const struct live *l, size_t last, uint8_t what, const void *base, size_t nbase,
		    size_t elem, int (*cmp)(const void *, const void *, void *), void **rows,
		    size_t *n)
{
	int64_t lo, hi;
	void *v = NULL;

	*rows = NULL;
	*n = 0;
	if (last == 0) {
		if (!nbase)
			return NNS_OK;
		if (!(v = malloc(nbase * elem)))
			return NNS_ENOMEM;
		memcpy(v, base, nbase * elem);
		*n = nbase;
	} else if (!last_range(l, last, &lo, &hi)) {
		return NNS_OK;
	} else if (group_recent(l, what, lo, hi, &v, n)) {
		return NNS_ENOMEM;
	}
	if (*n)
		qsort_r(v, *n, elem, cmp, (void *)l);
	*rows = v;
	return NNS_OK;
}

int live_top_ops(const struct live *l, size_t last, struct live_op **rows, size_t *n)
{
	return top_rows(l, last, LIVE_R_OP, l->ops.v, l->ops.n, sizeof(struct live_op), op_cmp,
			(void **)rows, n);
}

int live_top_kernels(const struct live *l, size_t last, struct live_kernel **rows, size_t *n)
{
	return top_rows(l, last, LIVE_R_KERNEL, l->kernels.v, l->kernels.n,
			sizeof(struct live_kernel), kernel_cmp, (void **)rows, n);
}
