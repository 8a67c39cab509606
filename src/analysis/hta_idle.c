/*
 * hta_idle.c - HTA's idle time breakdown (BreakdownAnalysis.
 * get_idle_time_breakdown) per CUDA stream of one worker.
 *
 * On each (device, stream), device events in start order; every gap
 * between the end of the previous event and the start of the next is an
 * idle interval, put in one category (HTA's rule, in this order):
 *   host wait   - the next event's launch (runtime/driver call with the same
 *                 correlation) started after the previous event ended: the
 *                 CPU had not enqueued it yet;
 *   kernel wait - otherwise, the gap is shorter than the consecutive-kernel
 *                 delay (HTA's default 30 in trace units = 30 us; its
 *                 docstring says ns but its dataframe holds Kineto's us):
 *                 launch overhead between back-to-back kernels, and gaps
 *                 before device events without a launch;
 *   other       - the rest (waiting on an event, a sync, another stream).
 * Per category: total, and count/mean/min/p50/p95/max of the intervals.
 *
 * Differences from HTA: HTA takes the gap to the previous event's end,
 * which is negative when events on a stream overlap, and also puts
 * zero-length gaps into its statistics (as kernel wait); nnscope measures
 * from the latest end so far and counts only positive gaps, so the sums
 * are the same where events do not overlap and the interval statistics
 * describe real idle intervals. Streams are keyed by (device, stream)
 * rather than stream alone.
 */
#include "analysis/hta_time.h"

#include <stdlib.h>
#include <string.h>

const char *const hta_idle_names[HTA_IDLE_N] = {"host_wait", "kernel_wait", "other"};

/* Reorders gaps[0..n) so that category 0 comes first, then 1, then 2
 * (three-way partition, linear). */
static void group_by_category(double *gaps, uint8_t *cats, size_t n)
{
	size_t lo = 0, mid = 0, hi = n;

	while (mid < hi) {
		double g = gaps[mid];
		uint8_t c = cats[mid];

		if (c == 0) {
			gaps[mid] = gaps[lo], cats[mid] = cats[lo];
			gaps[lo] = g, cats[lo] = c;
			lo++, mid++;
		} else if (c == 1) {
			mid++;
		} else {
			hi--;
			gaps[mid] = gaps[hi], cats[mid] = cats[hi];
			gaps[hi] = g, cats[hi] = c;
		}
	}
}

int hta_idle_compute(const struct model *m, int64_t delay_ns, struct hta_idle *out,
		     struct nns_err *err)
{
	uint32_t *idx = NULL;
	double *gaps = NULL;  /* the idle intervals of one stream */
	uint8_t *cats = NULL; /* their categories */
	size_t n = 0, i, g, k, ng[HTA_IDLE_N], cnt;
	int rc;

	memset(out, 0, sizeof(*out));
	if (delay_ns < 0)
		delay_ns = HTA_CONSECUTIVE_KERNEL_DELAY_NS;
	out->consecutive_kernel_delay = delay_ns;
	rc = hta_stream_order(m, &idx, &n);
	if (rc != NNS_OK)
		goto out;
	rc = NNS_ENOMEM;
	if (n > 0 && (!(gaps = malloc(n * sizeof(*gaps))) || !(cats = malloc(n))))
		goto out;
	for (i = 0; i < n; i = g) {
		const struct model_event *first = &m->events.v[idx[i]];
		struct hta_idle_stream s;
		int64_t stream = hta_event_stream(m, first), prev_end;

		memset(&s, 0, sizeof(s));
		memset(ng, 0, sizeof(ng));
		cnt = 0;
		s.device = hta_event_device(m, first);
		s.stream = stream;
		prev_end = first->ts + first->dur;
		for (g = i + 1; g < n; g++) {
			const struct model_event *e = &m->events.v[idx[g]];
			uint32_t l;
			int64_t gap;
			int cat;

			if (hta_event_device(m, e) != hta_event_device(m, first) ||
			    hta_event_stream(m, e) != stream)
				break;
			gap = e->ts - prev_end;
			if (gap > 0) {
				l = model_launch_of(m, idx[g]);
				if (l != MODEL_NOIDX && m->events.v[l].ts > prev_end)
					cat = HTA_IDLE_HOST;
				else if (gap < delay_ns)
					cat = HTA_IDLE_KERNEL;
				else
					cat = HTA_IDLE_OTHER;
				s.idle[cat] += gap;
				ng[cat]++;
				gaps[cnt] = (double)gap;
				cats[cnt++] = (uint8_t)cat;
			}
			if (e->ts + e->dur > prev_end)
				prev_end = e->ts + e->dur;
		}
		s.events = (int64_t)(g - i);
		group_by_category(gaps, cats, cnt);
		for (k = 0, cnt = 0; k < HTA_IDLE_N; cnt += ng[k], k++)
			hta_stats_of(gaps + cnt, ng[k], &s.st[k]);
		if (vec_push(&out->streams, s) != 0)
			goto out;
	}
	rc = NNS_OK;
out:
	free(gaps);
	free(cats);
	free(idx);
	if (rc != NNS_OK)
		return nns_err_set(err, rc, "idle time breakdown: out of memory");
	return rc;
}

void hta_idle_release(struct hta_idle *t)
{
	vec_free(&t->streams);
}
