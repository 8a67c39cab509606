/*
 * distributed.c - the distributed view of one run (tb_plugin
 * DistributedRunGenerator, loader._process_distributed_profiles,
 * communication.analyze_communication_nodes, OverallParser comm overlap).
 *
 * Per worker:
 *   - computation/communication overlap, per step: with K = the merged
 *     Kernel ranges (CPU Exec ranges when the worker has no kernels) and C
 *     = the merged Communication ranges, overlap = |step & K & C|,
 *     computation = |step & K|, communication = |step & C|, other = step
 *     length + overlap - computation - communication; the bars
 *     [computation - overlap, overlap, communication - overlap, other] are
 *     averaged over the worker's steps;
 *   - synchronizing vs data transfer: comm op i and range j are matched
 *     across workers; the shortest of the matched ranges is the transfer,
 *     so each worker's transfer range is (end - min, end). Per step, total
 *     = |merged ranges|, transfer = |merged transfer ranges|, sync = total -
 *     transfer, averaged over the steps that have comm ops;
 *   - comm op table per op name: calls, total input bytes, total latency =
 *     |merged ranges|, transfer = |merged transfer ranges|.
 * All values are exact ns; tb_plugin truncates the averaged µs with int(),
 * which is left to the outputs.
 *
 * Degrade instead of disabling (tb_plugin turns the whole view off when
 * workers differ): when the workers' comm op sequences agree (same count,
 * same names, same range counts) ops are matched by index, exactly as
 * tb_plugin; otherwise by name and occurrence (the k-th nccl:all_reduce of
 * each worker), and an op whose range counts differ is left unmatched.
 * Unmatched ops count in the comm op table's calls, bytes and latency but
 * not in any transfer/synchronizing figure. A worker is comparable when all
 * its comm ops were matched; workers without comm ops get overlap bars
 * only. d->note says what was degraded.
 */
#include "an_dist.h"
#include "analysis/cluster.h"
#include "analysis.h"
#include "hta_launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wk {
	const struct an_profile *p;
	uint32_t *by_name; /* node indices sorted by (name id, index) */
	uint8_t *matched;  /* per comm node */
	struct iv *real;   /* per comm range: the transfer range */
};

struct pair_u32 {
	uint32_t a, b;
};

static int pair_cmp(const void *x, const void *y)
{
	const struct pair_u32 *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static void note_add(struct an_dist *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_add(struct an_dist *d, const char *fmt, ...)
{
	size_t len = strlen(d->note);
	va_list ap;

	if (len + 3 >= sizeof(d->note))
		return;
	if (len) {
		memcpy(d->note + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(d->note + len, sizeof(d->note) - len, fmt, ap);
	va_end(ap);
}

static const char *node_name(const struct an_profile *p, uint32_t i)
{
	return model_str(p->m, p->comm_nodes.v[i].name);
}

/* ---- overlap bars ------------------------------------------------------------ */

static int overlap_bars(const struct an_profile *p, struct an_dist_worker *w)
{
	const struct an_overview *o = &p->overview;
	const struct iv_set *k = o->role[AN_KERNEL].r.n ? &o->role[AN_KERNEL] : &o->role[AN_CPUOP];
	const struct iv_set *c = &o->role[AN_COMM];
	struct iv_set ov = {0};
	double sum[4] = {0, 0, 0, 0};
	size_t i, ns = o->steps.n;

	if (iv_intersect(k, c, &ov)) {
		iv_set_release(&ov);
		return NNS_ENOMEM;
	}
	for (i = 0; i < ns; i++) {
		int64_t s = o->steps.v[i].start, e = o->steps.v[i].end;
		int64_t olap = iv_total_in(&ov, s, e);
		int64_t comp = iv_total_in(k, s, e);
		int64_t comm = iv_total_in(c, s, e);
		sum[0] += (double)(comp - olap);
		sum[1] += (double)olap;
		sum[2] += (double)(comm - olap);
		sum[3] += (double)((e - s) + olap - comp - comm);
	}
	if (ns) {
		w->computation = sum[0] / (double)ns;
		w->overlap = sum[1] / (double)ns;
		w->communication = sum[2] / (double)ns;
		w->other = sum[3] / (double)ns;
	}
	iv_set_release(&ov);
	return 0;
}

/* ---- HTA overlap % and straggler metrics (hta_dist.c) ---------------------- */

static int hta_fill(const struct an_profile *p, struct an_dist_worker *w)
{
	struct hta_worker_metrics hm;
	int64_t olap, comm;

	if (hta_comm_overlap(p, &w->overlap_pct, &olap, &comm, NULL) ||
	    hta_worker_metrics(p, &hm, NULL))
		return NNS_ENOMEM;
	w->step_time = hm.step_time;
	w->late_start = hm.late_start;
	return 0;
}

static int stragglers(struct an_dist *d)
{
	struct hta_worker_metrics *hm = calloc(d->workers.n + 1, sizeof(*hm));
	size_t i;
	int rc;

	if (!hm)
		return NNS_ENOMEM;
	for (i = 0; i < d->workers.n; i++) {
		hm[i].step_time = d->workers.v[i].step_time;
		hm[i].late_start = d->workers.v[i].late_start;
	}
	rc = hta_stragglers(hm, d->workers.n, &d->stragglers, &d->nstragglers, NULL);
	free(hm);
	return rc;
}

/* ---- matching ---------------------------------------------------------------- */

static int wk_init(struct wk *w, const struct an_profile *p)
{
	size_t n = p->comm_nodes.n, i;
	struct pair_u32 *tmp;

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->by_name = malloc((n + 1) * sizeof(*w->by_name));
	w->matched = calloc(n + 1, 1);
	w->real = malloc((p->comm_ranges.n + 1) * sizeof(*w->real));
	tmp = malloc((n + 1) * sizeof(*tmp));
	if (!w->by_name || !w->matched || !w->real || !tmp) {
		free(tmp);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		tmp[i].a = p->comm_nodes.v[i].name;
		tmp[i].b = (uint32_t)i;
	}
	qsort(tmp, n, sizeof(*tmp), pair_cmp);
	for (i = 0; i < n; i++)
		w->by_name[i] = tmp[i].b;
	free(tmp);
	return 0;
}

static void wk_release(struct wk *w)
{
	free(w->by_name);
	free(w->matched);
	free(w->real);
}

/* The k-th node (in time order) named `name` in worker w, or MODEL_NOIDX. */
static uint32_t kth_named(const struct wk *w, const char *name, size_t k)
{
	const struct an_profile *p = w->p;
	uint32_t id = strpool_find(&p->m->strings, name, strlen(name));
	size_t lo = 0, hi = p->comm_nodes.n;

	if (id == STRPOOL_NONE)
		return MODEL_NOIDX;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->comm_nodes.v[w->by_name[mid]].name < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo + k < p->comm_nodes.n && p->comm_nodes.v[w->by_name[lo + k]].name == id)
		return w->by_name[lo + k];
	return MODEL_NOIDX;
}

/* Whether every worker has the same comm op sequence (count and names). */
static int same_sequences(struct wk *const *ws, size_t nw)
{
	size_t i, k;

	for (k = 1; k < nw; k++) {
		if (ws[k]->p->comm_nodes.n != ws[0]->p->comm_nodes.n)
			return 0;
		for (i = 0; i < ws[0]->p->comm_nodes.n; i++)
			if (strcmp(node_name(ws[k]->p, (uint32_t)i),
				   node_name(ws[0]->p, (uint32_t)i)))
				return 0;
	}
	return 1;
}

/* Matches one group (member[k] = node of worker k): sets the transfer ranges
 * and marks the nodes matched. Returns 0 if the range counts differ. */
static int match_group(struct wk *const *ws, size_t nw, const uint32_t *member)
{
	const struct an_comm_node *c0 = &ws[0]->p->comm_nodes.v[member[0]];
	size_t k, j;

	for (k = 1; k < nw; k++)
		if (ws[k]->p->comm_nodes.v[member[k]].nranges != c0->nranges)
			return 0;
	for (j = 0; j < c0->nranges; j++) {
		int64_t min = INT64_MAX;
		for (k = 0; k < nw; k++) {
			const struct an_comm_node *c = &ws[k]->p->comm_nodes.v[member[k]];
			const struct iv *r = &ws[k]->p->comm_ranges.v[c->first_range + j];
			if (r->end - r->start < min)
				min = r->end - r->start;
		}
		for (k = 0; k < nw; k++) {
			const struct an_comm_node *c = &ws[k]->p->comm_nodes.v[member[k]];
			const struct iv *r = &ws[k]->p->comm_ranges.v[c->first_range + j];
			ws[k]->real[c->first_range + j].start = r->end - min;
			ws[k]->real[c->first_range + j].end = r->end;
		}
	}
	for (k = 0; k < nw; k++)
		ws[k]->matched[member[k]] = 1;
	return 1;
}

static int match_all(struct an_dist *d, struct wk *const *ws, size_t nw)
{
	const struct an_profile *p0 = ws[0]->p;
	size_t n0 = p0->comm_nodes.n, i, k, bad_ranges = 0, unmatched = 0;
	uint32_t *member = malloc((nw + 1) * sizeof(*member));
	uint32_t *occ = malloc((n0 + 1) * sizeof(*occ));
	int by_index = same_sequences(ws, nw);

	if (!member || !occ) {
		free(member);
		free(occ);
		return NNS_ENOMEM;
	}
	/* occurrence number of each node of worker 0 among those of its name */
	for (i = 0, k = 0; i < n0; i++) {
		if (i && p0->comm_nodes.v[ws[0]->by_name[i]].name !=
			     p0->comm_nodes.v[ws[0]->by_name[i - 1]].name)
			k = i;
		occ[ws[0]->by_name[i]] = (uint32_t)(i - k);
	}
	for (i = 0; i < n0; i++) {
		int ok = 1;
		member[0] = (uint32_t)i;
		for (k = 1; k < nw && ok; k++) {
			member[k] = by_index ? (uint32_t)i
					     : kth_named(ws[k], node_name(p0, (uint32_t)i), occ[i]);
			ok = member[k] != MODEL_NOIDX;
		}
		if (ok && !match_group(ws, nw, member))
			bad_ranges++;
	}
	free(member);
	free(occ);
	for (k = 0; k < nw; k++)
		for (i = 0; i < ws[k]->p->comm_nodes.n; i++)
			unmatched += !ws[k]->matched[i];
	if (!by_index) {
		char counts[96] = "";
		size_t len = 0;
		for (k = 0; k < nw && len + 1 < sizeof(counts); k++) {
			int w = snprintf(counts + len, sizeof(counts) - len, "%s%zu", k ? "/" : "",
					 ws[k]->p->comm_nodes.n);
			if (w < 0)
				break;
			len += (size_t)w;
		}
		note_add(
		    d,
		    "workers have different communication op sequences (%s ops); ops matched by "
		    "name and occurrence",
		    counts);
	}
	if (bad_ranges)
		note_add(d, "%zu comm ops have different kernel counts across workers", bad_ranges);
	if (unmatched)
		note_add(d, "%zu unmatched comm ops are left out of synchronizing/transfer time",
			 unmatched);
	return 0;
}

/* ---- per-worker figures --------------------------------------------------------- */

/* |merged ranges| of the listed nodes: their own ranges (real = 0) or their
 * transfer ranges (real = 1). */
static int64_t nodes_total(const struct wk *w, const uint32_t *nodes, size_t n, int real,
			   struct iv_set *tmp, int *rc)
{
	const struct an_profile *p = w->p;
	size_t i, j;

	tmp->r.n = 0;
	for (i = 0; i < n; i++) {
		const struct an_comm_node *c = &p->comm_nodes.v[nodes[i]];
		if (real && !w->matched[nodes[i]])
			continue;
		for (j = 0; j < c->nranges; j++) {
			const struct iv *r = real ? &w->real[c->first_range + j]
						  : &p->comm_ranges.v[c->first_range + j];
			if (iv_add(tmp, r->start, r->end))
				*rc = NNS_ENOMEM;
		}
	}
	iv_merge(tmp);
	return iv_total(tmp);
}

/* Transfer and synchronizing time, averaged over the steps with matched
 * comm ops. */
static int wait_bars(const struct wk *w, struct an_dist_worker *out, struct iv_set *tmp)
{
	const struct an_profile *p = w->p;
	size_t n = p->comm_nodes.n, m = 0, i, steps = 0;
	struct pair_u32 *sn = malloc((n + 1) * sizeof(*sn));
	uint32_t *nodes = malloc((n + 1) * sizeof(*nodes));
	double transfer = 0, sync = 0;
	int rc = 0;

	if (!sn || !nodes) {
		free(sn);
		free(nodes);
		return NNS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!w->matched[i] || p->comm_nodes.v[i].step < 0)
			continue;
		sn[m].a = (uint32_t)p->comm_nodes.v[i].step;
		sn[m].b = (uint32_t)i;
		m++;
	}
	qsort(sn, m, sizeof(*sn), pair_cmp);
	for (i = 0; i < m;) {
		size_t j = i, k = 0;
		int64_t total, real;
		while (j < m && sn[j].a == sn[i].a)
			nodes[k++] = sn[j++].b;
		total = nodes_total(w, nodes, k, 0, tmp, &rc);
		real = nodes_total(w, nodes, k, 1, tmp, &rc);
		transfer += (double)real;
		sync += (double)(total - real);
		steps++;
		i = j;
	}
	if (steps) {
		out->transfer = transfer / (double)steps;
		out->synchronizing = sync / (double)steps;
	}
	free(sn);
	free(nodes);
	return rc;
}

struct row_first {
	struct an_dist_comm_row r;
	uint32_t first; /* first node (time order) with this name */
};

static int row_first_cmp(const void *x, const void *y)
{
	const struct row_first *a = x, *b = y;
	return (a->first > b->first) - (a->first < b->first);
}

/* Comm op table rows of one worker, one per op name in order of first use. */
static int op_rows(struct an_dist *d, const struct wk *w, uint32_t worker, struct iv_set *tmp)
{
	const struct an_profile *p = w->p;
	size_t n = p->comm_nodes.n, nr = 0, i;
	struct row_first *rows = malloc((n + 1) * sizeof(*rows));
	int rc = 0;

	if (!rows)
		return NNS_ENOMEM;
	for (i = 0; i < n;) {
		size_t j = i, k;
		struct row_first *x = &rows[nr++];
		memset(x, 0, sizeof(*x));
		while (j < n &&
		       p->comm_nodes.v[w->by_name[j]].name == p->comm_nodes.v[w->by_name[i]].name)
			j++;
		/* by_name is sorted by (name, index): the run starts with the first use */
		x->first = w->by_name[i];
		for (k = i; k < j; k++) {
			x->r.calls++;
			x->r.total_bytes += p->comm_nodes.v[w->by_name[k]].bytes;
		}
		x->r.worker = worker;
		snprintf(x->r.name, sizeof(x->r.name), "%s", node_name(p, x->first));
		x->r.total_latency = nodes_total(w, w->by_name + i, j - i, 0, tmp, &rc);
		x->r.transfer = nodes_total(w, w->by_name + i, j - i, 1, tmp, &rc);
		i = j;
	}
	qsort(rows, nr, sizeof(*rows), row_first_cmp);
	for (i = 0; i < nr && !rc; i++)
		if (vec_push(&d->comm_ops, rows[i].r))
			rc = NNS_ENOMEM;
	free(rows);
	return rc;
}

/* ---- entry points ------------------------------------------------------------------ */

static int dist_compute(struct an_dist *d, const struct an_profile *const *profiles,
			const char *const *worker_names, size_t n, struct nns_err *err)
{
	struct wk *wks = NULL;
	struct wk **ws = NULL; /* the workers with comm ops */
	struct iv_set tmp = {0};
	size_t nw = 0, i;
	int rc = NNS_ENOMEM, nccl = 0, gloo = 0;

	memset(d, 0, sizeof(*d));
	if (!n)
		return NNS_OK;
	wks = calloc(n, sizeof(*wks));
	ws = calloc(n, sizeof(*ws));
	if (!wks || !ws || vec_reserve(&d->workers, n))
		goto out;
	for (i = 0; i < n; i++) {
		struct an_dist_worker w;
		memset(&w, 0, sizeof(w));
		if (worker_names && worker_names[i])
			snprintf(w.name, sizeof(w.name), "%s", worker_names[i]);
		else
			snprintf(w.name, sizeof(w.name), "worker%zu", i);
		if (overlap_bars(profiles[i], &w) || hta_fill(profiles[i], &w))
			goto out;
		d->workers.v[d->workers.n++] = w;
		if (wk_init(&wks[i], profiles[i]))
			goto out;
		if (profiles[i]->comm_nodes.n)
			ws[nw++] = &wks[i];
		nccl |= profiles[i]->use_nccl;
		gloo |= profiles[i]->use_gloo;
	}
	d->available = nw > 0;
	if (!nw) {
		rc = stragglers(d);
		goto out;
	}
	if (nw < n) {
		char names[160] = "";
		size_t len = 0;
		for (i = 0; i < n && len + 1 < sizeof(names); i++) {
			int w;
			if (profiles[i]->comm_nodes.n)
				continue;
			w = snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
				     d->workers.v[i].name);
			if (w < 0)
				break;
			len += (size_t)w;
		}
		note_add(d, "no communication ops in %s", names);
	}
	if (nccl && gloo)
		note_add(d, "both NCCL and Gloo ops present");
	if (match_all(d, ws, nw))
		goto out;
	if (stragglers(d))
		goto out;
	for (i = 0; i < n; i++) {
		struct wk *w = &wks[i];
		size_t k, all = w->p->comm_nodes.n > 0;
		for (k = 0; k < w->p->comm_nodes.n && all; k++)
			all = w->matched[k];
		d->workers.v[i].comparable = (int)all;
		if (!w->p->comm_nodes.n)
			continue;
		if (wait_bars(w, &d->workers.v[i], &tmp) || op_rows(d, w, (uint32_t)i, &tmp))
			goto out;
	}
	rc = NNS_OK;
out:
	if (wks)
		for (i = 0; i < n; i++)
			wk_release(&wks[i]);
	free(wks);
	free(ws);
	iv_set_release(&tmp);
	if (rc) {
		an_dist_release(d);
		nns_err_set(err, rc, "out of memory in the distributed view");
	}
	return rc;
}

/* Launchers and helpers (cl_not_a_rank) are left out, as in the cluster
 * view, and named in the note. */
int an_dist_compute(struct an_dist *d, const struct an_profile *const *profiles,
		    const char *const *worker_names, size_t n, struct nns_err *err)
{
	const struct an_profile **ps = n ? calloc(n, sizeof(*ps)) : NULL;
	const char **names = n ? calloc(n, sizeof(*names)) : NULL;
	char out[160] = "";
	size_t k = 0, len = 0;
	int rc;

	if (n && (!ps || !names)) {
		free(ps);
		free(names);
		memset(d, 0, sizeof(*d));
		return nns_err_set(err, NNS_ENOMEM, "out of memory in the distributed view");
	}
	for (size_t i = 0; i < n; i++) {
		const char *why = cl_not_a_rank(profiles[i]->m);
		const char *name = worker_names ? worker_names[i] : NULL;

		if (!why) {
			ps[k] = profiles[i];
			names[k++] = name;
		} else if (len + 1 < sizeof(out)) {
			int w = snprintf(out + len, sizeof(out) - len, "%s%s (%s)", len ? ", " : "",
					 name ? name : "?", why);

			if (w > 0)
				len += (size_t)w;
		}
	}
	rc = dist_compute(d, ps, worker_names ? names : NULL, k, err);
	if (rc == NNS_OK && out[0])
		note_add(d, "left out, not ranks: %s", out);
	free(ps);
	free(names);
	return rc;
}

void an_dist_release(struct an_dist *d)
{
	free(d->stragglers);
	d->stragglers = NULL;
	d->nstragglers = 0;
	vec_free(&d->workers);
	vec_free(&d->comm_ops);
}
