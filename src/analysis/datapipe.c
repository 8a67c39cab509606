/*
 * datapipe.c - the data-pipeline analysis (SPEC §3; reference
 * mindinsight.md "Data preparation (MindData)").
 *
 * Input: the queue samples of the trace (model.queues: name, size,
 * capacity over time) and the DataLoader ranges (overview.role).
 *
 * Per queue: samples, average and largest size, capacity (the largest
 * reported), utilization = average / capacity, empty ratio = samples with
 * size 0 / samples, full ratio = samples with size >= capacity / samples,
 * and a series down-sampled to AN_DP_SERIES_MAX buckets (mean, min, max).
 *
 * The consumer queue is the one the training loop takes batches from (the
 * role of MindSpore's device queue): the queue whose name contains
 * "device"; else the only queue; else the queue sampled on a thread that
 * also runs DataLoader or ProfilerStep ranges; else the most sampled one.
 *
 * Verdict (MindInsight analyse_queue_summary, without chip-side get_next
 * data): the consumer queue empty in more than
 * AN_DP_EMPTY_WARNING_THRESHOLD of its samples -> "data_process" (a
 * warning: the host cannot prepare data fast enough); else "normal";
 * "no_data" without queue samples.
 *
 * Findings, in the spirit of MindSpore's BottleneckAnalyzer:
 *   - consumer queue empty > 60% of the time (DEVICEQUEUE_INPUT_QUEUE_EMPTY_
 *     FREQ_PCT_MAXIMUM): the host cannot keep up with the device;
 *   - another queue under 50% utilization (LEAF_OUTPUT_QUEUE_..._MAXIMUM):
 *     its producer is slow, more parallel workers may help;
 *   - another queue's utilization over the consumer's by more than 50
 *     points (IN_OUT_QUEUE_UTIL_PCT_DIFF_MAXIMUM): the stage between them
 *     consumes slower than its producer delivers;
 *   - the consumer queue full > 90% of the time: the input pipeline is not
 *     the bottleneck.
 *
 * Steps: for each overview step (its host range), the DataLoader time
 * inside it (merged ranges), the time the consumer queue stayed empty
 * inside it (each sample's size holds until the next sample) and its
 * consumer samples; wait = the DataLoader time when the trace has
 * DataLoader ranges, else the empty-queue time.
 */
#include "an_datapipe.h"
#include "analysis.h"
#include "common/hmap.h"
#include "names.h"
#include "common/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void an_datapipe_release(struct an_datapipe *d)
{
	for (size_t i = 0; i < d->queues.n; i++)
		vec_free(&d->queues.v[i].series);
	vec_free(&d->queues);
	vec_free(&d->steps);
	for (size_t i = 0; i < d->findings.n; i++)
		free(d->findings.v[i].text);
	vec_free(&d->findings);
	free(d->recommendation);
	memset(d, 0, sizeof(*d));
	d->consumer = -1;
}

static int add_finding(struct an_datapipe *d, uint32_t queue, const char *kind, char *text)
{
	struct an_dp_finding f;

	if (!text)
		return NNS_ENOMEM;
	memset(&f, 0, sizeof(f));
	f.queue = queue;
	snprintf(f.kind, sizeof(f.kind), "%s", kind);
	f.text = text;
	if (vec_push(&d->findings, f)) {
		free(text);
		return NNS_ENOMEM;
	}
	return 0;
}

static int contains_ci(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (; *s; s++)
		if (strncasecmp(s, w, n) == 0)
			return 1;
	return 0;
}

/* The queues of the samples by name (in order of first sample), each
 * sample's queue in qidx, and per queue the sample count and sums (avg_size
 * a sum until queue_stats). */
static int group_queues(struct an_profile *p, uint32_t *qidx)
{
	const struct model *m = p->m;
	struct an_datapipe *d = &p->datapipe;
	struct hmap by_name;
	int rc = NNS_ENOMEM;

	hmap_init(&by_name);
	for (size_t i = 0; i < m->queues.n; i++) {
		const struct model_queue *s = &m->queues.v[i];
		int is_new = 0;
		uint32_t *slot = hmap_put(&by_name, s->name, (uint32_t)d->queues.n, &is_new);
		struct an_queue *q;

		if (!slot)
			goto out;
		if (is_new) {
			struct an_queue nq;

			memset(&nq, 0, sizeof(nq));
			nq.name = s->name;
			if (vec_push(&d->queues, nq))
				goto out;
		}
		qidx[i] = *slot;
		q = &d->queues.v[*slot];
		q->samples++;
		q->avg_size += (double)s->size; /* the sum, for now */
		if (s->size > q->max_size)
			q->max_size = s->size;
		if (s->capacity > q->capacity)
			q->capacity = s->capacity;
		q->empty_count += s->size == 0;
		q->full_count += s->capacity > 0 && s->size >= s->capacity;
	}
	rc = 0;
out:
	hmap_release(&by_name);
	return rc;
}

/* Each queue's averages and ratios, its series bucket (bucket_n[k]
 * samples, at most AN_DP_SERIES_MAX points) and room for its series. */
static int queue_stats(struct an_datapipe *d, size_t *bucket_n)
{
	for (size_t k = 0; k < d->queues.n; k++) {
		struct an_queue *q = &d->queues.v[k];
		size_t npts;

		q->avg_size /= (double)q->samples;
		q->utilization = q->capacity > 0 ? q->avg_size / (double)q->capacity : -1;
		q->empty_ratio = (double)q->empty_count / (double)q->samples;
		q->full_ratio = (double)q->full_count / (double)q->samples;
		bucket_n[k] = ((size_t)q->samples + AN_DP_SERIES_MAX - 1) / AN_DP_SERIES_MAX;
		npts = ((size_t)q->samples + bucket_n[k] - 1) / bucket_n[k];
		if (vec_reserve(&q->series, npts))
			return NNS_ENOMEM;
	}
	return 0;
}

/* The series: buckets of bucket_n[k] consecutive samples of queue k
 * (filled: per queue, zeroed, the samples seen). */
static void queue_series(struct an_profile *p, const uint32_t *qidx, const size_t *bucket_n,
			 size_t *filled)
{
	const struct model *m = p->m;
	struct an_datapipe *d = &p->datapipe;

	for (size_t i = 0; i < m->queues.n; i++) {
		const struct model_queue *s = &m->queues.v[i];
		uint32_t k = qidx[i];
		struct an_queue *q = &d->queues.v[k];
		struct an_queue_point *pt;

		if (filled[k] % bucket_n[k] == 0) {
			struct an_queue_point np = {s->ts, 0, s->size, s->size};

			q->series.v[q->series.n++] = np;
		}
		pt = &q->series.v[q->series.n - 1];
		pt->avg += (double)s->size;
		if (s->size < pt->min)
			pt->min = s->size;
		if (s->size > pt->max)
			pt->max = s->size;
		filled[k]++;
		if (filled[k] % bucket_n[k] == 0 || filled[k] == (size_t)q->samples) {
			size_t in = filled[k] % bucket_n[k] ? filled[k] % bucket_n[k] : bucket_n[k];

			pt->avg /= (double)in;
		}
	}
}

/* Groups samples by queue name; fills the statistics and the series. */
static int per_queue(struct an_profile *p, uint32_t *qidx)
{
	struct an_datapipe *d = &p->datapipe;
	size_t *bucket_n = NULL, *filled = NULL;
	int rc = NNS_ENOMEM;

	if (group_queues(p, qidx))
		goto out;
	bucket_n = calloc(d->queues.n + 1, sizeof(*bucket_n));
	filled = calloc(d->queues.n + 1, sizeof(*filled));
	if (!bucket_n || !filled || queue_stats(d, bucket_n))
		goto out;
	queue_series(p, qidx, bucket_n, filled);
	rc = 0;
out:
	free(bucket_n);
	free(filled);
	return rc;
}

static int pick_consumer(struct an_profile *p, const uint32_t *qidx)
{
	const struct model *m = p->m;
	struct an_datapipe *d = &p->datapipe;
	int best = -1;

	if (d->queues.n == 0)
		return -1;
	for (size_t k = 0; k < d->queues.n; k++)
		if (contains_ci(model_str(m, d->queues.v[k].name), "device") &&
		    (best < 0 || d->queues.v[k].samples > d->queues.v[best].samples))
			best = (int)k;
	if (best >= 0 || d->queues.n == 1)
		return best >= 0 ? best : 0;
	{
		/* threads that run DataLoader or ProfilerStep ranges */
		uint8_t *loop = calloc(m->threads.n + 1, 1);
		int64_t *score = calloc(d->queues.n, sizeof(*score));

		if (loop && score) {
			for (size_t i = 0; i < m->events.n && (m->kinds & AN_KB_CPU_NAMED); i++) {
				const struct model_event *e = &m->events.v[i];

				if ((e->kind == MK_CPU_OP || e->kind == MK_USER_ANNOTATION) &&
				    (an_name_flags(p, e->name) &
				     (AN_NAME_STEP | AN_NAME_DATALOADER | AN_NAME_DL_PREFIX)))
					loop[e->thread] = 1;
			}
			for (size_t i = 0; i < m->queues.n; i++)
				if (m->queues.v[i].thread < m->threads.n &&
				    loop[m->queues.v[i].thread])
					score[qidx[i]]++;
			for (size_t k = 0; k < d->queues.n; k++)
				if (score[k] && (best < 0 || score[k] > score[best]))
					best = (int)k;
		}
		free(loop);
		free(score);
	}
	if (best < 0)
		for (size_t k = 0; k < d->queues.n; k++)
			if (best < 0 || d->queues.v[k].samples > d->queues.v[best].samples)
				best = (int)k;
	return best;
}

/* Per-step waits. */
static int per_step(struct an_profile *p, const uint32_t *qidx)
{
	const struct model *m = p->m;
	struct an_datapipe *d = &p->datapipe;
	const struct iv_set *dl = &p->overview.role[AN_DATALOADER];
	struct iv_set empty = {0};
	size_t prev = SIZE_MAX, si = 0;
	int64_t sum_wait = 0, sum_steps = 0;

	d->has_dataloader = dl->r.n > 0;
	/* consumer-empty intervals: [sample, next sample) while size == 0 */
	for (size_t i = 0; d->consumer >= 0 && i < m->queues.n; i++) {
		if (qidx[i] != (uint32_t)d->consumer)
			continue;
		if (prev != SIZE_MAX && m->queues.v[prev].size == 0 &&
		    m->queues.v[i].ts > m->queues.v[prev].ts &&
		    iv_add(&empty, m->queues.v[prev].ts, m->queues.v[i].ts)) {
			iv_set_release(&empty);
			return NNS_ENOMEM;
		}
		prev = i;
	}
	if (iv_merge(&empty)) {
		iv_set_release(&empty);
		return NNS_ENOMEM;
	}
	for (size_t k = 0; k < p->overview.steps.n; k++) {
		const struct an_step *st = &p->overview.steps.v[k];
		struct an_dp_step r;

		memset(&r, 0, sizeof(r));
		snprintf(r.name, sizeof(r.name), "%s", st->name);
		r.start = st->host_start;
		r.end = st->host_end;
		r.dataloader = iv_total_in(dl, r.start, r.end);
		r.queue_empty = iv_total_in(&empty, r.start, r.end);
		/* steps are sorted by start; samples by time */
		while (si < m->queues.n && m->queues.v[si].ts < r.start)
			si++;
		for (size_t i = si; i < m->queues.n && m->queues.v[i].ts < r.end; i++) {
			if (d->consumer < 0 || qidx[i] != (uint32_t)d->consumer)
				continue;
			r.samples++;
			r.empty_samples += m->queues.v[i].size == 0;
		}
		r.wait = d->has_dataloader ? r.dataloader : r.queue_empty;
		sum_wait += r.wait;
		sum_steps += r.end - r.start;
		if (vec_push(&d->steps, r)) {
			iv_set_release(&empty);
			return NNS_ENOMEM;
		}
	}
	iv_set_release(&empty);
	d->wait_ratio = sum_steps > 0 ? (double)sum_wait / (double)sum_steps : 0;
	return 0;
}

static int findings(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_datapipe *d = &p->datapipe;
	const struct an_queue *c = d->consumer >= 0 ? &d->queues.v[d->consumer] : NULL;
	int rc = 0;

	if (c && c->empty_ratio > 0.6) {
		double pct = 100.0 * c->empty_ratio;

		rc |= add_finding(
		    d, c->name, "empty",
		    str_printf(
			"%s's queue is empty %.1f%% of the time. This might indicate dataset "
			"bottlenecks. Hence host cannot keep up with the device %.1f%% of the "
			"time. Device waits whenever input queue is empty.",
			model_str(m, c->name), pct, pct));
	}
	for (size_t k = 0; k < d->queues.n; k++) {
		const struct an_queue *q = &d->queues.v[k];
		const char *name = model_str(m, q->name);

		if ((int)k == d->consumer || q->utilization < 0)
			continue;
		if (q->utilization < 0.5)
			rc |= add_finding(
			    d, q->name, "low_utilization",
			    str_printf(
				"Queue %s is using %.1f%% of its capacity on average: the stage "
				"producing into it is slow. More parallel workers for that "
				"stage (num_workers / num_parallel_workers) might speed up "
				"I/O.",
				name, 100.0 * q->utilization));
		if (c && c->utilization >= 0 && q->utilization - c->utilization > 0.5)
			rc |= add_finding(
			    d, q->name, "in_out_gap",
			    str_printf(
				"Queue %s usage=%.1f%% is greater than the consumer queue %s "
				"usage=%.1f%%. The stage between them might be producing "
				"slower than %s delivers. If it has low CPU utilization, try "
				"increasing prefetch_size or the number of workers.",
				name, 100.0 * q->utilization, model_str(m, c->name),
				100.0 * c->utilization, name));
	}
	if (c && !d->warning && c->full_ratio > 0.9)
		rc |=
		    add_finding(d, c->name, "full",
				str_printf("Queue %s is full %.1f%% of the time: batches are ready "
					   "before the training loop asks for them; the input "
					   "pipeline is not the bottleneck.",
					   model_str(m, c->name), 100.0 * c->full_ratio));
	return rc ? NNS_ENOMEM : 0;
}

static int recommendation(struct an_profile *p)
{
	struct an_datapipe *d = &p->datapipe;
	const struct an_queue *c;
	char waited[160] = "";

	if (!d->warning || d->consumer < 0)
		return 0;
	c = &d->queues.v[d->consumer];
	if (d->steps.n && d->wait_ratio > 0)
		snprintf(waited, sizeof(waited),
			 " On average the training loop waited for data %.1f%% of the step time.",
			 100.0 * d->wait_ratio);
	d->recommendation = str_printf(
	    "The ratio of empty queues on a host is %.0f%%, and the threshold is %.0f%%: queue %s "
	    "was empty in %lld of %lld samples.%s The data processing stage can be optimized: "
	    "use more DataLoader workers (num_workers), pin_memory, a larger prefetch_factor, or "
	    "cheaper per-sample transforms.",
	    ceil(100.0 * (double)d->empty_count / (double)d->total_count),
	    100.0 * AN_DP_EMPTY_WARNING_THRESHOLD, model_str(p->m, c->name),
	    (long long)d->empty_count, (long long)d->total_count, waited);
	return d->recommendation ? 0 : NNS_ENOMEM;
}

int an_datapipe_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	struct an_datapipe *d = &p->datapipe;
	uint32_t *qidx = malloc((m->queues.n + 1) * sizeof(*qidx));
	int rc = NNS_ENOMEM;

	memset(d, 0, sizeof(*d));
	d->consumer = -1;
	snprintf(d->verdict, sizeof(d->verdict), "no_data");
	if (!qidx || per_queue(p, qidx))
		goto out;
	d->consumer = pick_consumer(p, qidx);
	if (d->consumer >= 0) {
		struct an_queue *c = &d->queues.v[d->consumer];

		c->consumer = 1;
		d->empty_count = c->empty_count;
		d->full_count = c->full_count;
		d->total_count = c->samples;
		d->empty_ratio = c->empty_ratio;
		d->warning =
		    (double)c->empty_count > (double)c->samples * AN_DP_EMPTY_WARNING_THRESHOLD;
		snprintf(d->verdict, sizeof(d->verdict), "%s",
			 d->warning ? "data_process" : "normal");
	}
	if (per_step(p, qidx) || findings(p) || recommendation(p))
		goto out;
	rc = NNS_OK;
out:
	free(qidx);
	if (rc)
		return nns_err_set(err, rc, "out of memory in the data-pipeline analysis");
	return NNS_OK;
}
