/*
 * live_ranks.c - the live slow-rank verdict (live_ranks.h): per-rank rows
 * from the live states, the common window of completed steps, and
 * cluster.json's slow_rank rule on it (cl_slow_share, cluster.h).
 */
#include "analysis/live_ranks.h"

#include "analysis/cluster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void live_ranks_release(struct live_ranks *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
	r->slowest = r->slow = -1;
	r->window_lo = r->window_hi = -1;
	r->slowest_pct = r->slow_pct = r->excess_ms = NAN;
}

static int cmp_row(const void *a, const void *b)
{
	const struct live_rank_row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->worker, y->worker);
}

static double step_ms(const struct live_step *s)
{
	return (double)(s->end - s->start) / 1e6;
}

/* The mean duration (ns) of l's completed steps numbered lo..hi; 0 steps
 * in *k when none. Steps are in order: the scan starts from the end. */
static double window_mean_ns(const struct live *l, int64_t lo, int64_t hi, size_t *k)
{
	double sum = 0;

	*k = 0;
	for (size_t i = l->steps.n; i-- > 0;) {
		const struct live_step *s = &l->steps.v[i];

		if (s->num < lo)
			break;
		if (s->num > hi)
			continue;
		sum += (double)(s->end - s->start);
		(*k)++;
	}
	return *k ? sum / (double)*k : 0;
}

static void fill_row(struct live_rank_row *row, const struct live *l, const char *worker,
		     size_t pos)
{
	struct live_step_stats st;

	memset(row, 0, sizeof(*row));
	row->rank = l->rank >= 0 ? l->rank : (int64_t)pos;
	row->worker = worker ? worker : "";
	row->host = l->host ? live_str(l, l->host) : "";
	if (!row->host)
		row->host = "";
	row->steps = l->steps.n;
	row->last_step = l->steps.n ? l->steps.v[l->steps.n - 1].num : -1;
	row->last_ms = l->steps.n ? step_ms(&l->steps.v[l->steps.n - 1]) : NAN;
	if (l->steps.n) {
		live_step_stats(l, 0, &st);
		row->mean_ms = st.n ? st.mean / 1e6 : NAN;
	} else {
		row->mean_ms = NAN;
	}
	row->window_ms = row->vs_mean_pct = NAN;
	row->ended = l->ended;
}

/* The common window [lo, hi] of the ranks' completed steps, or 0. */
static size_t common_window(struct live *const *ranks, size_t n, size_t last, int64_t *lo,
			    int64_t *hi)
{
	int64_t h = INT64_MAX, first = INT64_MIN;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct live *l = ranks[i];

		if (!l->steps.n)
			return 0;
		if (l->steps.v[l->steps.n - 1].num < h)
			h = l->steps.v[l->steps.n - 1].num;
		if (l->steps.v[0].num > first)
			first = l->steps.v[0].num;
	}
	*hi = h;
	*lo = h - (int64_t)last + 1 > first ? h - (int64_t)last + 1 : first;
	return *lo <= *hi ? (size_t)(*hi - *lo + 1) : 0;
}

static void say(struct live_ranks *r)
{
	const struct live_rank_row *w;

	if (r->n < 2) {
		snprintf(r->verdict, sizeof(r->verdict),
			 "No slow-rank verdict: %zu rank%s (it compares ranks)", r->n,
			 r->n == 1 ? "" : "s");
		return;
	}
	if (!r->window || r->slowest < 0) {
		snprintf(r->verdict, sizeof(r->verdict),
			 "No slow-rank verdict yet: waiting for a step every rank has completed");
		return;
	}
	w = &r->rows[r->slowest];
	if (r->slow < 0) {
		snprintf(r->verdict, sizeof(r->verdict),
			 "No slow rank over steps %lld..%lld: the slowest, rank %lld, is %.2f%% "
			 "above the average (threshold %.0f%%).",
			 (long long)r->window_lo, (long long)r->window_hi, (long long)w->rank,
			 r->slowest_pct, CL_STEP_INTERVAL_THRESHOLD * 100);
		return;
	}
	snprintf(r->verdict, sizeof(r->verdict),
		 "The step time of rank %lld%s%s%s over steps %lld..%lld is %.4f ms, which is "
		 "%.2f%% higher than the average value (%.1f us more per step than the other "
		 "ranks' mean).",
		 (long long)w->rank, w->host[0] ? " (host " : "", w->host, w->host[0] ? ")" : "",
		 (long long)r->window_lo, (long long)r->window_hi, w->window_ms, r->slow_pct,
		 r->excess_ms * 1e3);
}

int live_ranks_compute(struct live *const *ranks, const char *const *workers, size_t n, size_t last,
		       struct live_ranks *out, struct nns_err *err)
{
	int64_t lo = -1, hi = -1, ahead = INT64_MIN;
	double *ms = NULL, sum = 0, mean;
	size_t worst = 0;

	live_ranks_release(out);
	if (!last)
		last = LIVE_RANKS_LAST_DEFAULT;
	if (n && !(out->rows = calloc(n, sizeof(*out->rows))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	out->n = n;
	out->window = common_window(ranks, n, last, &lo, &hi);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		fill_row(&out->rows[i], ranks[i], workers ? workers[i] : NULL, i);
		if (out->window) {
			double ns = window_mean_ns(ranks[i], lo, hi, &k);

			out->rows[i].window_ms = cl_round(cl_ms(ns / 1e3), 4);
		}
		if (out->window && !k)
			out->window = 0; /* a gap in this rank's step numbers */
		if (out->rows[i].last_step > ahead)
			ahead = out->rows[i].last_step;
	}
	for (size_t i = 0; i < n; i++)
		out->rows[i].behind = ahead - out->rows[i].last_step;
	for (size_t i = 0; i < n; i++)
		if (out->rows[i].behind > out->behind_max)
			out->behind_max = out->rows[i].behind;
	if (n > 1)
		qsort(out->rows, n, sizeof(*out->rows), cmp_row);
	if (!out->window) {
		for (size_t i = 0; i < n; i++)
			out->rows[i].window_ms = NAN;
		say(out);
		return NNS_OK;
	}
	out->window_lo = lo;
	out->window_hi = hi;
	if (!(ms = malloc(n * sizeof(*ms)))) {
		live_ranks_release(out);
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		sum += ms[i] = out->rows[i].window_ms;
	mean = sum / (double)n;
	double share = cl_slow_share(ms, n, &worst);

	free(ms);
	if (isfinite(share)) {
		double others = (sum - out->rows[worst].window_ms) / (double)(n - 1);

		for (size_t i = 0; i < n; i++)
			out->rows[i].vs_mean_pct =
			    cl_round((out->rows[i].window_ms / mean - 1) * 100, 2);
		out->slowest = (int)worst;
		out->slowest_pct = cl_round(share * 100, 2);
		out->excess_ms = out->rows[worst].window_ms - others;
		if (share > CL_STEP_INTERVAL_THRESHOLD) {
			out->slow = (int)worst;
			out->slow_pct = out->slowest_pct;
		}
	}
	say(out);
	return NNS_OK;
}
