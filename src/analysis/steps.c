/*
 * steps.c - step detection and device-side adjustment (tb_plugin
 * StepParser._parse_step / _find_device_steps / _update_steps_duration).
 *
 * Deliberate fixes: GPU-side copies of step annotations (gpu_user_annotation
 * "ProfilerStep#N") are not steps; tb_plugin counted them twice. Only
 * device work whose launch ended before the first step can move the first
 * step's start (tb_plugin also let device work with no launch in the trace
 * move it, which shrank a 100 ms step to 135 us), and the last step is
 * kept even with fewer device events than the one before (tb_plugin
 * dropped it below 0.8x).
 * A CPU step name seen twice (same name, overlapping) is kept once.
 */
#include "an_steps.h"
#include "analysis.h"
#include "names.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct launch_info {
	int64_t dmin, dmax; /* device span of the events it launched */
	int64_t count;
};

static int step_cmp(const void *x, const void *y)
{
	const struct an_step *a = x, *b = y;
	if (a->host_start != b->host_start)
		return a->host_start < b->host_start ? -1 : 1;
	return (a->host_end < b->host_end) - (a->host_end > b->host_end);
}

/* One step "0" spanning the CPU-side events when there is no ProfilerStep. */
static int default_step(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_step s;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	for (i = 0; i < m->events.n && (m->kinds & (MODEL_KB(MK_CPU_OP) | MODEL_KB(MK_PYTHON)));
	     i++) {
		const struct model_event *e = &m->events.v[i];
		if (e->kind != MK_CPU_OP && e->kind != MK_PYTHON)
			continue;
		if (e->ts < lo)
			lo = e->ts;
		if (e->ts + e->dur > hi)
			hi = e->ts + e->dur;
	}
	if (lo > hi) { /* no CPU events at all: span everything */
		lo = m->min_ts;
		hi = m->max_end;
	}
	memset(&s, 0, sizeof(s));
	strcpy(s.name, "0");
	s.host_start = s.start = lo;
	s.host_end = s.end = hi;
	return vec_push(&p->overview.steps, s) ? NNS_ENOMEM : 0;
}

static int collect_steps(struct an_profile *p)
{
	const struct model *m = p->m;
	size_t i;

	for (i = 0; i < m->events.n && (m->kinds & AN_KB_CPU_NAMED); i++) {
		const struct model_event *e = &m->events.v[i];
		const char *name;
		long long num;
		struct an_step s;

		if (e->kind != MK_CPU_OP && e->kind != MK_USER_ANNOTATION)
			continue;
		if (!(an_name_flags(p, e->name) & AN_NAME_STEP))
			continue;
		name = model_str(m, e->name);
		if (!an_is_step_name(name, &num))
			continue;
		memset(&s, 0, sizeof(s));
		if (num >= 0)
			snprintf(s.name, sizeof(s.name), "%lld", num);
		else
			snprintf(s.name, sizeof(s.name), "%zu", p->overview.steps.n);
		s.host_start = s.start = e->ts;
		s.host_end = s.end = e->ts + e->dur;
		if (vec_push(&p->overview.steps, s))
			return NNS_ENOMEM;
	}
	if (p->overview.steps.n > 1)
		qsort(p->overview.steps.v, p->overview.steps.n, sizeof(struct an_step), step_cmp);
	/* drop a repeated step: same name overlapping the previous one */
	{
		size_t o = 0;
		for (i = 0; i < p->overview.steps.n; i++) {
			struct an_step *s = &p->overview.steps.v[i];
			if (o && strcmp(p->overview.steps.v[o - 1].name, s->name) == 0 &&
			    s->host_start < p->overview.steps.v[o - 1].host_end)
				continue;
			p->overview.steps.v[o++] = *s;
		}
		p->overview.steps.n = o;
	}
	return 0;
}

/* Launch events and the device work each launched; every array is indexed
 * by launch slot (the order of launches in the model) except slot and
 * matched, which are per event. Owned by an_steps_compute. */
struct steps_work {
	size_t nrt;		  /* launches */
	uint32_t *slot;		  /* per event: ~its launch slot, 0 if not a launch
				   * (zeroed: only pages with launches are touched) */
	uint32_t *rts;		  /* per slot: the launch event */
	struct launch_info *li;	  /* per slot: span and count of its device work */
	uint8_t *matched;	  /* per event: a launch inside some step */
	int64_t *dev_lo, *dev_hi; /* per step: span of its launches' device work */
};

/* Fills w's per-launch arrays: each launch's slot and the span and count
 * of the device events it launched. */
static int launch_spans(const struct model *m, struct steps_work *w)
{
	size_t n = m->events.n, i;

	w->slot = calloc(n + 1, sizeof(*w->slot));
	if (!w->slot)
		return NNS_ENOMEM;
	for (i = 0; i < n && (m->kinds & MODEL_KB_LAUNCH); i++)
		if (model_kind_is_launch(m->events.v[i].kind))
			w->slot[i] = ~(uint32_t)w->nrt++;
	w->li = malloc((w->nrt + 1) * sizeof(*w->li));
	w->rts = malloc((w->nrt + 1) * sizeof(*w->rts));
	w->matched = calloc(n + 1, 1);
	if (!w->li || !w->rts || !w->matched)
		return NNS_ENOMEM;
	for (i = 0; i < n && w->nrt; i++) {
		uint32_t k = ~w->slot[i];
		if (k == MODEL_NOIDX)
			continue;
		w->rts[k] = (uint32_t)i;
		w->li[k].dmin = INT64_MAX;
		w->li[k].dmax = INT64_MIN;
		w->li[k].count = 0;
	}
	for (i = 0; i < n && w->nrt && (m->kinds & MODEL_KB_DEVICE); i++) {
		uint32_t l = model_launch_of(m, i);
		const struct model_event *e = &m->events.v[i];
		struct launch_info *x;
		if (l == MODEL_NOIDX)
			continue;
		x = &w->li[~w->slot[l]];
		if (e->ts < x->dmin)
			x->dmin = e->ts;
		if (e->ts + e->dur > x->dmax)
			x->dmax = e->ts + e->dur;
		x->count++;
	}
	return 0;
}

/* Two-pointer walk over steps and launches (both by start): the launches
 * fully inside a step's host range give the step its device span
 * (dev_lo/dev_hi, INT64_MAX/INT64_MIN without any) and device_nodes, and
 * are marked matched. *any: whether some launch matched. */
static int match_launches(struct an_profile *p, struct steps_work *w, int *any)
{
	const struct model *m = p->m;
	size_t ns = p->overview.steps.n, is = 0, ir = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	w->dev_lo = malloc(ns * sizeof(*w->dev_lo));
	w->dev_hi = malloc(ns * sizeof(*w->dev_hi));
	if (!w->dev_lo || !w->dev_hi)
		return NNS_ENOMEM;
	*any = 0;
	while (is < ns && ir < w->nrt) {
		struct an_step *s = &p->overview.steps.v[is];
		const struct model_event *r = &m->events.v[w->rts[ir]];
		if (r->ts < s->host_start) {
			ir++;
		} else if (r->ts + r->dur <= s->host_end) {
			struct launch_info *x = &w->li[ir];
			if (x->count) {
				if (x->dmin < lo)
					lo = x->dmin;
				if (x->dmax > hi)
					hi = x->dmax;
				s->device_nodes += x->count;
				*any = 1;
				w->matched[w->rts[ir]] = 1;
			}
			ir++;
		} else if (r->ts < s->host_end) {
			ir++;
		} else {
			w->dev_lo[is] = lo;
			w->dev_hi[is] = hi;
			is++;
			lo = INT64_MAX;
			hi = INT64_MIN;
		}
	}
	for (; is < ns; is++) {
		w->dev_lo[is] = lo;
		w->dev_hi[is] = hi;
		lo = INT64_MAX;
		hi = INT64_MIN;
	}
	return 0;
}

/* The previous end before step 0: device work launched before step 0 (its
 * launch ended by step 0's host start) that ends before step 0's first
 * device event. Device work with no launch in the trace is not known to
 * come from before the first step; tb_plugin let it move step 0's start,
 * and a step of 100,298 us of host time came out as 135 us. */
static int64_t end_before_first(const struct an_profile *p, const struct steps_work *w)
{
	const struct model *m = p->m;
	int64_t h0 = p->overview.steps.v[0].host_start, prev_end = h0;
	size_t i;

	if (w->dev_lo[0] == INT64_MAX)
		return prev_end;
	for (i = 0; i < m->events.n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t l = model_launch_of(m, i);
		if (!model_kind_is_device(e->kind) || l == MODEL_NOIDX || w->matched[l] ||
		    m->events.v[l].ts + m->events.v[l].dur > h0)
			continue;
		if (e->ts + e->dur < w->dev_lo[0] && e->ts + e->dur > prev_end)
			prev_end = e->ts + e->dur;
	}
	return prev_end;
}

/* Each step's device-adjusted [start, end): from the later of its host
 * start and the previous step's end, to the later of its host end and its
 * last device work. */
static void adjust_steps(struct an_profile *p, const struct steps_work *w, int64_t prev_end)
{
	size_t i;

	for (i = 0; i < p->overview.steps.n; i++) {
		struct an_step *s = &p->overview.steps.v[i];
		int64_t start = prev_end > s->host_start ? prev_end : s->host_start;
		int64_t end = s->host_end;
		if (w->dev_lo[i] == INT64_MAX) {
			if (start > end)
				end = start;
		} else {
			if (w->dev_hi[i] > end)
				end = w->dev_hi[i];
			if (end < start)
				end = start;
		}
		s->start = start;
		s->end = end;
		prev_end = end;
	}
}

/* Tail removal: trailing steps without device work (torch.profiler's
 * schedule opens one more ProfilerStep after the last). tb_plugin also
 * dropped a last step with less than 0.8x the previous step's device
 * events; a real last step with fewer kernels (a shorter last batch, an
 * evaluation) vanished with it, so nnscope keeps it. */
static void drop_idle_tail(struct an_profile *p)
{
	size_t ns = p->overview.steps.n, last = ns;

	if (ns <= 1)
		return;
	while (last > 0 && p->overview.steps.v[last - 1].device_nodes == 0)
		last--;
	if (last > 0) {
		p->overview.steps_dropped = (int)(ns - last);
		p->overview.steps.n = last;
	}
}

int an_steps_compute(struct an_profile *p, struct nns_err *err)
{
	struct steps_work w;
	int any_matched = 0, rc = NNS_ENOMEM;

	memset(&w, 0, sizeof(w));
	if (collect_steps(p))
		goto out;
	/* no ProfilerStep: one step "0", device-adjusted like any other */
	if (p->overview.steps.n == 0 && default_step(p))
		goto out;
	if (launch_spans(p->m, &w) || match_launches(p, &w, &any_matched))
		goto out;
	if (any_matched) {
		adjust_steps(p, &w, end_before_first(p, &w));
		drop_idle_tail(p);
	}
	rc = NNS_OK;
out:
	free(w.li);
	free(w.slot);
	free(w.rts);
	free(w.dev_lo);
	free(w.dev_hi);
	free(w.matched);
	if (rc)
		nns_err_set(err, rc, "out of memory while detecting steps");
	return rc;
}
