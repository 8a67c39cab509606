/*
 * hta_launches.c - kernel launch statistics of one worker (HTA
 * CudaKernelAnalysis.cuda_kernel_launch_stats).
 *
 * Every device event (kernel, memcpy, memset) linked to the runtime/driver
 * event that launched it (model.launch_of: correlation id, else ac2g flow)
 * gives one row: CPU duration = launch dur, GPU duration = device dur,
 * launch delay = device start - launch end, clipped at 0 (HTA's documented
 * definition, "the difference between GPU kernel starting and CPU operator
 * ending"; HTA's code writes ts_k - ts_r + dur_r, which adds the launch
 * duration instead of subtracting it, docs/HTA.md). nnscope also keeps its
 * own start delay = device start - launch start (launch overhead and
 * queueing together), under its own name. Device events of a
 * cudaGraphLaunch are skipped (one launch, many kernels: the delay of the
 * k-th kernel measures the graph, not the launch), as HTA's name filter
 * (cudaLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync) does implicitly.
 *
 * Classes, with HTA's cutoffs (runtime 50 us, launch delay 100 us):
 *   short kernel:     gpu_dur < cpu_dur and cpu_dur <= runtime_cutoff
 *   runtime outlier:  cpu_dur > runtime_cutoff
 *   delay outlier:    delay > launch_delay_cutoff
 */
#include "analysis/hta_launch.h"
#include "analysis/hta_time.h"

#include <stdlib.h>
#include <string.h>

struct keyed {
	int64_t key;
	uint32_t idx;
};

/* key descending, then index ascending */
static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Moves the first k of t[0..n) in keyed_cmp order (a total order: indexes
 * are distinct) to t[0..k), sorted: what sorting all n and keeping k gives,
 * in O(n log k) (a heap of the k best so far, its worst on top; the lists
 * keep tens of rows out of a launch per kernel). Returns min(n, k). */
static size_t keep_top(struct keyed *t, size_t n, size_t k)
{
	size_t i, h = 0;

	if (k == 0)
		return 0;
	if (n <= k) {
		if (n > 1) /* t is NULL when nothing qualified */
			qsort(t, n, sizeof(*t), keyed_cmp);
		return n;
	}
	for (i = 0; i < n; i++) {
		struct keyed x = t[i];
		size_t j;

		if (h == k && keyed_cmp(&x, &t[0]) >= 0)
			continue; /* not better than the worst kept */
		if (h < k) {
			/* grow: sift x up from the end */
			j = h++;
			while (j > 0 && keyed_cmp(&t[(j - 1) / 2], &x) < 0) {
				t[j] = t[(j - 1) / 2];
				j = (j - 1) / 2;
			}
		} else {
			/* replace the worst: sift x down from the top */
			j = 0;
			for (;;) {
				size_t c = 2 * j + 1;

				if (c >= h)
					break;
				if (c + 1 < h && keyed_cmp(&t[c + 1], &t[c]) > 0)
					c++;
				if (keyed_cmp(&t[c], &x) <= 0)
					break;
				t[j] = t[c];
				j = c;
			}
		}
		t[j] = x;
	}
	qsort(t, h, sizeof(*t), keyed_cmp);
	return h;
}

/* Fills d from v[0..n) (nanoseconds held exactly as doubles: below 2^53),
 * reordering v; percentiles with numpy's interpolation (hta_quantile). */
static void dist_of(double *v, size_t n, struct hta_dist *d)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	d->n = (int64_t)n;
	d->min = d->max = (int64_t)v[0];
	for (i = 0; i < n; i++) {
		int64_t x = (int64_t)v[i];
		d->sum += x;
		if (x < d->min)
			d->min = x;
		if (x > d->max)
			d->max = x;
	}
	d->mean = (double)d->sum / (double)n;
	d->p50 = hta_quantile(v, n, 0.50);
	d->p90 = hta_quantile(v, n, 0.90);
	d->p99 = hta_quantile(v, n, 0.99);
}

void hta_launch_row_at(const struct model *m, const struct hta_launches *l, size_t i,
		       struct hta_launch_row *r)
{
	uint32_t dev = l->rows.v[i], launch = model_launch_of(m, dev);
	const struct model_event *e = &m->events.v[dev], *c = &m->events.v[launch];

	r->launch = launch;
	r->dev = dev;
	r->cpu_dur = c->dur;
	r->gpu_dur = e->dur;
	r->start_delay = e->ts - c->ts;
	r->delay = e->ts - (c->ts + c->dur);
	if (r->delay < 0)
		r->delay = 0;
}

/* dist_of over the int64 column at byte offset off of l's rows; vals:
 * room for one value per row. */
static void column_dist(const struct model *m, const struct hta_launches *l, size_t off,
			double *vals, struct hta_dist *d)
{
	for (size_t i = 0; i < l->rows.n; i++) {
		struct hta_launch_row r;
		int64_t x;

		hta_launch_row_at(m, l, i, &r);
		memcpy(&x, (const char *)&r + off, sizeof(x));
		vals[i] = (double)x;
	}
	dist_of(vals, l->rows.n, d);
}

static int is_graph_launch(const struct model *m, uint32_t launch)
{
	return strstr(model_str(m, m->events.v[launch].name), "GraphLaunch") != NULL;
}

/* which: 0 short, 1 runtime, 2 delay. Fills the top list (worst first). */
static int top_list(const struct model *m, struct hta_launches *l, int which, size_t max,
		    struct keyed *tmp)
{
	size_t i, n = 0;

	for (i = 0; i < l->rows.n; i++) {
		struct hta_launch_row row, *r = &row;
		int in;
		int64_t key;

		hta_launch_row_at(m, l, i, &row);
		switch (which) {
		case 0:
			in = r->gpu_dur < r->cpu_dur && r->cpu_dur <= l->runtime_cutoff;
			key = r->cpu_dur - r->gpu_dur;
			break;
		case 1:
			in = r->cpu_dur > l->runtime_cutoff;
			key = r->cpu_dur;
			break;
		default:
			in = r->delay > l->launch_delay_cutoff;
			key = r->delay;
			break;
		}
		if (in) {
			tmp[n].key = key;
			tmp[n].idx = (uint32_t)i;
			n++;
		}
	}
	if (which == 0)
		l->n_short = (int64_t)n;
	else if (which == 1)
		l->n_runtime_outliers = (int64_t)n;
	else
		l->n_delay_outliers = (int64_t)n;
	n = keep_top(tmp, n, max);
	for (i = 0; i < n; i++) {
		int rc = which == 0   ? vec_push(&l->top_short, tmp[i].idx)
			 : which == 1 ? vec_push(&l->top_runtime, tmp[i].idx)
				      : vec_push(&l->top_delay, tmp[i].idx);
		if (rc)
			return NNS_ENOMEM;
	}
	return 0;
}

static void histogram(const struct model *m, struct hta_launches *l)
{
	int64_t span, w;
	size_t i;

	if (!l->rows.n)
		return;
	span = l->delay.max - l->delay.min + 1;
	w = (span + HTA_DELAY_BINS - 1) / HTA_DELAY_BINS;
	if (w < 1)
		w = 1;
	l->hist_lo = l->delay.min;
	l->hist_width = w;
	for (i = 0; i < l->rows.n; i++) {
		struct hta_launch_row r;
		int64_t b;

		hta_launch_row_at(m, l, i, &r);
		b = (r.delay - l->hist_lo) / w;
		if (b >= HTA_DELAY_BINS)
			b = HTA_DELAY_BINS - 1;
		l->hist[b]++;
	}
}

int hta_launches_compute(const struct an_profile *p, const struct hta_launch_opts *opts,
			 struct hta_launches *out, struct nns_err *err)
{
	const struct model *m = p->m;
	struct keyed *tmp = NULL;
	double *vals = NULL;
	size_t i, max = opts && opts->outliers_max ? opts->outliers_max : HTA_OUTLIERS_MAX;
	int rc = NNS_ENOMEM;

	memset(out, 0, sizeof(*out));
	out->runtime_cutoff =
	    opts && opts->runtime_cutoff > 0 ? opts->runtime_cutoff : HTA_RUNTIME_CUTOFF_NS;
	out->launch_delay_cutoff = opts && opts->launch_delay_cutoff > 0
				       ? opts->launch_delay_cutoff
				       : HTA_LAUNCH_DELAY_CUTOFF_NS;
	if (!m || !m->launch_of)
		return NNS_OK;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t l;

		if (!model_kind_is_device(e->kind))
			continue;
		l = model_launch_of(m, i);
		if (l == MODEL_NOIDX || l >= m->events.n) {
			out->device_unlinked++;
			continue;
		}
		if (is_graph_launch(m, l)) {
			out->graph_launches_skipped++;
			continue;
		}
		if (e->ts < m->events.v[l].ts + m->events.v[l].dur)
			out->n_before_return++; /* its delay is clipped to 0 */
		if (vec_push(&out->rows, (uint32_t)i))
			goto out;
	}
	if (out->rows.n) {
		tmp = malloc(out->rows.n * sizeof(*tmp));
		vals = malloc(out->rows.n * sizeof(*vals));
		if (!tmp || !vals)
			goto out;
	}
	column_dist(m, out, offsetof(struct hta_launch_row, cpu_dur), vals, &out->cpu);
	column_dist(m, out, offsetof(struct hta_launch_row, gpu_dur), vals, &out->gpu);
	column_dist(m, out, offsetof(struct hta_launch_row, delay), vals, &out->delay);
	column_dist(m, out, offsetof(struct hta_launch_row, start_delay), vals, &out->start_delay);
	if (top_list(m, out, 0, max, tmp) || top_list(m, out, 1, max, tmp) ||
	    top_list(m, out, 2, max, tmp))
		goto out;
	histogram(m, out);
	rc = NNS_OK;
out:
	free(tmp);
	free(vals);
	if (rc) {
		hta_launches_release(out);
		nns_err_set(err, rc, "out of memory in the launch statistics");
	}
	return rc;
}

void hta_launches_release(struct hta_launches *l)
{
	vec_free(&l->rows);
	vec_free(&l->top_short);
	vec_free(&l->top_runtime);
	vec_free(&l->top_delay);
	memset(l, 0, sizeof(*l));
}

uint32_t hta_launch_op_name(const struct an_profile *p, uint32_t ev)
{
	uint32_t node;

	if (!p->tree.owner || ev >= p->m->events.n)
		return 0;
	node = an_owner(&p->tree, ev);
	if (node == MODEL_NOIDX || node >= p->tree.nodes.n)
		return 0;
	if (p->tree.nodes.v[node].type == AN_NODE_ROOT)
		return 0;
	return p->tree.nodes.v[node].name;
}
