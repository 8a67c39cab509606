/*
 * ms_steps.c - the steps of a MindSpore device's step trace as step ranges
 * of its model (ms_load.h, ms_add_steps): one "ProfilerStep#<k>" user
 * annotation per data row of step_trace_raw_<dev>_detail_time.csv, from
 * its start_point to its end_point, on the thread ("Step Trace", "Steps"),
 * so that the generic overview, its step table and --steps see MindSpore's
 * steps (the average row, "-" or "0", is not a step).
 *
 * The step trace counts 10 ns system cycles; the timeline's ts is µs from
 * a base cycle count: MindSpore's min_cycle_counter_<dev>.txt when it is
 * there, else the first AI Core op of output_timeline_data_<dev>.txt
 * (start in ms = counts / 1e5) put at the timeline's earliest AI Core event
 * (pid < 9000), which is how the timeline writer placed it. Without a
 * timeline the steps start at 0 (the first step's start). With a timeline
 * but neither file the steps cannot be placed and none are added.
 */
#include "importers/ms_load.h"
#include "importers/ms_read.h"
#include "importers/ms_st_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The base cycle count from min_cycle_counter_<dev>.txt. 0 or -1. */
static int base_from_counter(const struct ms_src *s, double *base)
{
	char path[4200], *buf = NULL, *end;
	size_t n = 0;
	struct nns_err e;
	double v;

	nns_err_clear(&e);
	if (ms_read(s, "min_cycle_counter_", ".txt", path, sizeof(path), &buf, &n, &e) || !buf)
		return -1;
	v = strtod(buf, &end);
	free(buf);
	if (end == buf || !isfinite(v) || v <= 0)
		return -1;
	*base = v;
	return 0;
}

/* The earliest start (ms) of output_timeline_data_<dev>.txt
 * ("op_name, stream_id, start_time(ms), duration(ms)"). 0 or -1. */
static int first_aicore_ms(const struct ms_src *s, double *first)
{
	char path[4200], *buf = NULL, *p, *nl;
	size_t n = 0;
	struct nns_err e;
	int found = 0;

	nns_err_clear(&e);
	if (ms_read(s, "output_timeline_data_", ".txt", path, sizeof(path), &buf, &n, &e) || !buf)
		return -1;
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		char *c1, *c2, *end;
		double v;

		nl = strchr(p, '\n');
		c1 = memchr(p, ',', nl ? (size_t)(nl - p) : strlen(p));
		c2 = c1 ? memchr(c1 + 1, ',', nl ? (size_t)(nl - c1 - 1) : strlen(c1 + 1)) : NULL;
		if (!c2)
			continue;
		v = strtod(c2 + 1, &end);
		if (end == c2 + 1 || !isfinite(v))
			continue; /* the header */
		if (!found || v < *first)
			*first = v;
		found = 1;
	}
	free(buf);
	return found ? 0 : -1;
}

/* The timeline's earliest AI Core event (thread pid < 9000), ns. */
static int first_aicore_ts(const struct model *m, int64_t *ts)
{
	int found = 0;

	for (size_t i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		const char *pid = model_str(m, m->threads.v[e->thread].pid);
		char *end;
		long v;

		if (!pid || !*pid)
			continue;
		v = strtol(pid, &end, 10);
		if (*end || v < 0 || v >= 9000)
			continue;
		if (!found || e->ts < *ts)
			*ts = e->ts;
		found = 1;
	}
	return found ? 0 : -1;
}

static int step_number(const char *s, long *v)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -1;
	*v = strtol(s, &end, 10);
	return *end || *v <= 0 ? -1 : 0;
}

int ms_add_steps(struct model *m, const struct ms_src *s, int have_timeline, struct nns_err *err)
{
	struct ms_st_table t = {0};
	struct nns_err e;
	double base = NAN, first_ms = 0;
	int64_t offset_ns = 0, first_ts = 0;
	uint32_t thread, pid, tid;
	int rc, added = 0;

	nns_err_clear(&e);
	rc = ms_st_table_load(&t, s, &e);
	if (rc)
		return NNS_OK; /* no step trace, or one the MindSpore tab reports */
	if (have_timeline) {
		if (base_from_counter(s, &base) == 0) {
			offset_ns = 0;
		} else if (first_aicore_ms(s, &first_ms) == 0 &&
			   first_aicore_ts(m, &first_ts) == 0) {
			base = first_ms * 1e5; /* cycles at the first AI Core op */
			offset_ns = first_ts;
		} else {
			ms_st_table_release(&t);
			return NNS_OK;
		}
	}
	pid = model_intern(m, "Step Trace", 10);
	tid = model_intern(m, "Steps", 5);
	thread = model_thread(m, pid, tid);
	if (pid == STRPOOL_NONE || tid == STRPOOL_NONE || thread == MODEL_NOIDX)
		goto oom;
	for (size_t r = 0; r < t.nrows; r++) {
		double a = ms_st_cell(&t, r, "start_point"), b = ms_st_cell(&t, r, "end_point");
		struct model_event ev;
		char name[48];
		long k;

		if (step_number(t.step[r], &k) || !isfinite(a) || !isfinite(b) || a <= 0 || b < a)
			continue;
		if (isnan(base))
			base = a; /* no timeline: the first step starts at 0 */
		model_event_init(&ev);
		ev.kind = MK_USER_ANNOTATION;
		ev.ts = offset_ns + (int64_t)llround((a - base) * 10.0);
		ev.dur = (int64_t)llround((b - a) * 10.0);
		if (ev.ts < MODEL_TIME_MIN || ev.ts > MODEL_TIME_MAX)
			continue;
		snprintf(name, sizeof(name), "ProfilerStep#%ld", k);
		ev.name = model_intern(m, name, strlen(name));
		ev.thread = thread;
		if (ev.name == STRPOOL_NONE || model_add_event(m, &ev) < 0)
			goto oom;
		added++;
	}
	ms_st_table_release(&t);
	if (added && model_add_meta(m, "steps_from", "mindspore_step_trace"))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
oom:
	ms_st_table_release(&t);
	return nns_err_set(err, NNS_ENOMEM, "out of memory adding the step trace's steps");
}
