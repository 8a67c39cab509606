/*
 * hta_queue.c - HTA's CUDA launch queue length (TraceCounters.
 * get_queue_length_time_series / _summary / get_time_spent_blocked_on_full_
 * queue) per CUDA stream of one worker.
 *
 * The queue length of a stream counts operations enqueued but not yet
 * started: +1 at the start of each runtime/driver call that launched a
 * device event on the stream (matched by correlation, model.launch_of),
 * -1 at the start of that device event (HTA: "decremented when a CUDA
 * kernel/memcopy operation executes"). Device events without a launch on
 * the host are left out, as HTA's semi-join does. Rows are sorted by time;
 * at equal times increments come first. The statistics are pandas'
 * describe() over the rows (one per change, unweighted by time): count,
 * mean, sample std, min, p25, p50, p75, max. time_at_max is the time the
 * length stays >= max_queue_length (default 1024, HTA's
 * CUDA_MAX_LAUNCH_QUEUE_PER_STREAM), summed over rows until the next row.
 *
 * Differences from HTA: a launch is any runtime or driver event linked by
 * correlation (HTA keeps a fixed list of cudaLaunchKernel/cudaMemcpyAsync/
 * ... names), streams are keyed by (device, stream), and ties at one
 * timestamp are ordered (HTA's sort is unstable there). The series is
 * down-sampled (hta_ds) for the UI; the statistics use every row.
 */
#include "analysis/hta_time.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct row {
	int64_t ts;
	int64_t delta;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->delta < y->delta) - (x->delta > y->delta); /* +1 first */
}

/* The k-th smallest (0-based) value of a histogram of integers from vmin. */
static double kth(const int64_t *hist, size_t nbins, int64_t vmin, int64_t k)
{
	size_t b;
	int64_t seen = 0;

	for (b = 0; b < nbins; b++) {
		seen += hist[b];
		if (seen > k)
			return (double)(vmin + (int64_t)b);
	}
	return (double)(vmin + (int64_t)nbins - 1);
}

/* pandas' linear-interpolation percentile over the histogram. */
static double hist_percentile(const int64_t *hist, size_t nbins, int64_t vmin, int64_t n, double p)
{
	double pos = p * (double)(n - 1), frac, lo;
	int64_t k = (int64_t)pos;

	frac = pos - (double)k;
	lo = kth(hist, nbins, vmin, k);
	if (frac == 0 || k + 1 >= n)
		return lo;
	return lo + frac * (kth(hist, nbins, vmin, k + 1) - lo);
}

/* Fills the statistics and series of one stream from its sorted rows. */
static int stream_stats(struct row *r, size_t n, int64_t maxq, struct hta_queue_stream *s)
{
	int64_t v = 0, vmin = INT64_MAX, vmax = INT64_MIN, *hist = NULL;
	double sum = 0, sq = 0, mean;
	size_t i, nbins;
	struct hta_ds ds;

	s->count = (int64_t)n;
	for (i = 0; i < n; i++) {
		v += r[i].delta;
		r[i].delta = v; /* from here on: the length after the row */
		if (v < vmin)
			vmin = v;
		if (v > vmax)
			vmax = v;
		sum += (double)v;
		if (v >= maxq && i + 1 < n)
			s->time_at_max += r[i + 1].ts - r[i].ts;
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += ((double)r[i].delta - mean) * ((double)r[i].delta - mean);
	s->mean = mean;
	s->std = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	s->min = (double)vmin;
	s->max = (double)vmax;
	nbins = (size_t)(vmax - vmin) + 1; /* <= n + 1: each row moves by 1 */
	hist = calloc(nbins, sizeof(*hist));
	if (!hist)
		return NNS_ENOMEM;
	for (i = 0; i < n; i++)
		hist[r[i].delta - vmin]++;
	s->p25 = hist_percentile(hist, nbins, vmin, (int64_t)n, 0.25);
	s->p50 = hist_percentile(hist, nbins, vmin, (int64_t)n, 0.50);
	s->p75 = hist_percentile(hist, nbins, vmin, (int64_t)n, 0.75);
	free(hist);
	hta_ds_init(&ds, &s->series, r[0].ts, r[n - 1].ts, n, HTA_SERIES_MAX_POINTS);
	for (i = 0; i < n; i++)
		hta_ds_add(&ds, r[i].ts, (double)r[i].delta);
	return hta_ds_finish(&ds);
}

int hta_queue_compute(const struct model *m, int64_t max_queue_length, struct hta_queue *out,
		      struct nns_err *err)
{
	uint32_t *idx = NULL;
	struct row *rows = NULL;
	size_t n = 0, i, g, nr;
	int rc;

	memset(out, 0, sizeof(*out));
	out->max_queue_length = max_queue_length > 0 ? max_queue_length : HTA_MAX_LAUNCH_QUEUE;
	if (m->events.n > 0 && m->max_end > m->min_ts)
		out->trace_dur = m->max_end - m->min_ts;
	rc = hta_stream_order(m, &idx, &n);
	if (rc != NNS_OK || n == 0 || !m->launch_of)
		goto out;
	rc = NNS_ENOMEM;
	if (!(rows = malloc(2 * n * sizeof(*rows))))
		goto out;
	for (i = 0; i < n; i = g) {
		const struct model_event *first = &m->events.v[idx[i]];
		int64_t stream = hta_event_stream(m, first);
		struct hta_queue_stream s;

		nr = 0;
		for (g = i; g < n; g++) {
			const struct model_event *e = &m->events.v[idx[g]];
			uint32_t l = model_launch_of(m, idx[g]);

			if (hta_event_device(m, e) != hta_event_device(m, first) ||
			    hta_event_stream(m, e) != stream)
				break;
			if (l == MODEL_NOIDX)
				continue;
			rows[nr].ts = m->events.v[l].ts;
			rows[nr++].delta = 1;
			rows[nr].ts = e->ts;
			rows[nr++].delta = -1;
		}
		if (nr == 0)
			continue;
		qsort(rows, nr, sizeof(*rows), cmp_row);
		memset(&s, 0, sizeof(s));
		s.device = hta_event_device(m, first);
		s.stream = stream;
		s.launches = (int64_t)(nr / 2);
		if (stream_stats(rows, nr, out->max_queue_length, &s) != 0 ||
		    vec_push(&out->streams, s) != 0) {
			vec_free(&s.series);
			goto out;
		}
	}
	rc = NNS_OK;
out:
	free(rows);
	free(idx);
	if (rc != NNS_OK)
		return nns_err_set(err, rc, "queue length: out of memory");
	return rc;
}

void hta_queue_release(struct hta_queue *t)
{
	size_t i;

	for (i = 0; i < t->streams.n; i++)
		vec_free(&t->streams.v[i].series);
	vec_free(&t->streams);
}
