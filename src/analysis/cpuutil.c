/*
 * cpuutil.c - CPU utilization (SPEC §3; reference mindinsight.md "CPU
 * utilisation"): machine, process and per-thread samples (model.samples)
 * averaged overall, per step and per thread / stage, with the series
 * down-sampled for charts.
 *
 * Units are the collector's (src/collector/sampler.c, docs/FORMAT.md):
 * machine values are percent of all CPUs' time (user + sys + idle + iowait
 * ~ 100); process and thread values are percent of one CPU (top's
 * convention: a thread busy all the time is 100%).
 *
 * Steps: a sample belongs to the last step whose host range started at or
 * before it (gaps between steps go to the step before them); samples after
 * the last step's end belong to no step; samples before the first step go
 * to `before` (MindInsight's step 0). Averages are plain means of the
 * samples (MindInsight rounds them; outputs keep the decimals).
 *
 * Stages are threads grouped by name (DataLoader pin-memory threads,
 * dataset workers, ...): the sum of their averages, and that sum per
 * thread, judged with MindSpore BottleneckAnalyzer's per-worker thresholds
 * (> 75%: more workers may help; < 20% with several workers: more workers
 * will not); unnamed threads and the training loop's thread get no such
 * advice.
 *
 * The overview recommendation (advice id "cpu") is emitted when the whole
 * machine is busy more than 80% of the time (MindInsight's
 * minddata_cpu_utilization rule), when the process uses 90% or more of the
 * machine's CPUs (meta "cpu_count" needed), or when the thread running the
 * training loop (the one with the steps) is busy 90% or more of one CPU.
 */
#include "an_cpu.h"
#include "analysis.h"
#include "names.h"
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void an_cpu_release(struct an_cpu *c)
{
	vec_free(&c->machine_series);
	vec_free(&c->process_series);
	vec_free(&c->steps);
	vec_free(&c->threads);
	for (size_t i = 0; i < c->stages.n; i++)
		free(c->stages.v[i].advice);
	vec_free(&c->stages);
	free(c->recommendation);
	memset(c, 0, sizeof(*c));
}

static void acc(struct an_cpu_avg *a, const struct model_sample *s)
{
	a->samples++;
	a->user += s->user;
	a->sys += s->sys;
	a->idle += s->idle;
	a->iowait += s->iowait;
}

static void mean(struct an_cpu_avg *a)
{
	if (!a->samples)
		return;
	a->user /= (double)a->samples;
	a->sys /= (double)a->samples;
	a->idle /= (double)a->samples;
	a->iowait /= (double)a->samples;
}

/* Bucket-averaged series of the samples of one kind. */
static int series(const struct model *m, uint8_t kind, size_t count, struct an_cpu_point **v,
		  size_t *n, size_t *cap)
{
	size_t per = (count + AN_CPU_SERIES_MAX - 1) / AN_CPU_SERIES_MAX, in = 0;
	double u = 0, s = 0, id = 0, io = 0;
	int64_t ts = 0;

	if (!count)
		return 0;
	if (vec_reserve_raw((void **)v, cap, (count + per - 1) / per, sizeof(**v)))
		return NNS_ENOMEM;
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct model_sample *x = &m->samples.v[i];

		if (x->kind != kind)
			continue;
		if (in == 0)
			ts = x->ts;
		u += x->user;
		s += x->sys;
		id += x->idle;
		io += x->iowait;
		if (++in == per) {
			struct an_cpu_point p = {ts, (float)(u / (double)in),
						 (float)(s / (double)in), (float)(id / (double)in),
						 (float)(io / (double)in)};

			(*v)[(*n)++] = p;
			in = 0;
			u = s = id = io = 0;
		}
	}
	if (in) {
		struct an_cpu_point p = {ts, (float)(u / (double)in), (float)(s / (double)in),
					 (float)(id / (double)in), (float)(io / (double)in)};

		(*v)[(*n)++] = p;
	}
	return 0;
}

/* Step index of time ts: the last step starting at or before ts; -1 before
 * the first, -2 after the last step's end. */
static long step_of(const struct an_overview *o, int64_t ts)
{
	size_t lo;

	if (!o->steps.n || ts < o->steps.v[0].host_start)
		return -1;
	lo = iv_bound(o->steps.v, o->steps.n, sizeof(*o->steps.v),
		      offsetof(struct an_step, host_start), ts, 1) -
	     1;
	if (lo == o->steps.n - 1 && ts >= o->steps.v[lo].host_end)
		return -2;
	return (long)lo;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct an_cpu_thread *x = a, *y = b;
	double bx = x->avg.user + x->avg.sys, by = y->avg.user + y->avg.sys;

	if (bx != by)
		return bx > by ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int per_thread(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_cpu *c = &p->cpu;
	uint32_t *row = malloc((m->threads.n + 1) * sizeof(*row));

	if (!row)
		return NNS_ENOMEM;
	for (size_t i = 0; i < m->threads.n; i++)
		row[i] = MODEL_NOIDX;
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct model_sample *s = &m->samples.v[i];

		if (s->kind != MS_THREAD || s->thread >= m->threads.n)
			continue;
		if (row[s->thread] == MODEL_NOIDX) {
			struct an_cpu_thread t;

			memset(&t, 0, sizeof(t));
			t.thread = s->thread;
			t.tid = s->tid;
			t.name = m->threads.v[s->thread].name;
			if (vec_push(&c->threads, t)) {
				free(row);
				return NNS_ENOMEM;
			}
			row[s->thread] = (uint32_t)(c->threads.n - 1);
		}
		acc(&c->threads.v[row[s->thread]].avg, s);
	}
	free(row);
	for (size_t i = 0; i < c->threads.n; i++)
		mean(&c->threads.v[i].avg);
	if (c->threads.n > 1)
		qsort(c->threads.v, c->threads.n, sizeof(*c->threads.v), thread_cmp);
	return 0;
}

static uint32_t loop_thread(struct an_profile *p);

static int per_stage(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_cpu *c = &p->cpu;
	uint32_t lt = loop_thread(p), loop_name = lt < m->threads.n ? m->threads.v[lt].name : 0;

	for (size_t i = 0; i < c->threads.n; i++) {
		const struct an_cpu_thread *t = &c->threads.v[i];
		struct an_cpu_stage *st = NULL;
		const char *tn = t->name ? model_str(m, t->name) : NULL;

		/* the collector's own threads ("nnscope-sampler") are no stage of
		 * the program: no advice about them (they stay in the threads) */
		if (tn && strncmp(tn, "nnscope-", 8) == 0)
			continue;

		for (size_t k = 0; k < c->stages.n && !st; k++)
			if (c->stages.v[k].name == t->name)
				st = &c->stages.v[k];
		if (!st) {
			struct an_cpu_stage ns;

			memset(&ns, 0, sizeof(ns));
			ns.name = t->name;
			if (vec_push(&c->stages, ns))
				return NNS_ENOMEM;
			st = &c->stages.v[c->stages.n - 1];
		}
		st->threads++;
		st->user += t->avg.user;
		st->sys += t->avg.sys;
	}
	for (size_t k = 0; k < c->stages.n; k++) {
		struct an_cpu_stage *st = &c->stages.v[k];
		const char *name = st->name ? model_str(m, st->name) : "(unnamed threads)";

		st->per_thread = (st->user + st->sys) / st->threads;
		/* no worker advice for unnamed threads or the training loop's
		 * thread (the recommendation covers a busy loop) */
		if (!st->name || st->name == loop_name)
			continue;
		if (st->per_thread > 75)
			st->advice = str_printf("%s is using %.1f%% CPU per worker. Setting "
						"num_parallel_workers>%d might bring extra "
						"performance.",
						name, st->per_thread, st->threads);
		else if (st->per_thread < 20 && st->threads > 1)
			st->advice = str_printf("%s is using %.1f%% CPU per worker. Using "
						"num_parallel_workers=%d might not bring as much "
						"benefit due to low CPU usage per worker.",
						name, st->per_thread, st->threads);
		else
			continue;
		if (!st->advice)
			return NNS_ENOMEM;
	}
	return 0;
}

/* Index of the thread that owns the steps, MODEL_NOIDX if unknown. */
static uint32_t loop_thread(struct an_profile *p)
{
	const struct model *m = p->m;

	for (size_t i = 0; i < m->events.n && (m->kinds & AN_KB_CPU_NAMED); i++) {
		const struct model_event *e = &m->events.v[i];

		if ((e->kind == MK_CPU_OP || e->kind == MK_USER_ANNOTATION) &&
		    (an_name_flags(p, e->name) & AN_NAME_STEP))
			return e->thread;
	}
	return MODEL_NOIDX;
}

static int recommendation(struct an_profile *p)
{
	const struct model *m = p->m;
	struct an_cpu *c = &p->cpu;
	char text[1600] = "";
	size_t n = 0;
	const char *cpus = model_meta_get(m, "cpu_count");
	long ncpu = cpus ? strtol(cpus, NULL, 10) : 0;
	uint32_t lt = loop_thread(p);

	if (c->machine.samples && 100.0 - c->machine.idle > 80)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "The average CPU usage of the entire system is %.1f%%, which "
				      "may affect the data processing performance. ",
				      100.0 - c->machine.idle);
	if (n < sizeof(text) && c->process.samples && ncpu > 0 &&
	    c->process.user + c->process.sys >= 0.9 * 100.0 * (double)ncpu)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "The process uses %.1f%% CPU, %.1f of its %ld CPUs: it is "
				      "CPU-bound. ",
				      c->process.user + c->process.sys,
				      (c->process.user + c->process.sys) / 100.0, ncpu);
	for (size_t i = 0; n < sizeof(text) && lt != MODEL_NOIDX && i < c->threads.n; i++) {
		const struct an_cpu_thread *t = &c->threads.v[i];
		double busy = t->avg.user + t->avg.sys;

		if (t->thread != lt || busy < 90)
			continue;
		n += (size_t)snprintf(
		    text + n, sizeof(text) - n,
		    "The thread running the training loop (tid %lld%s%s) is busy %.1f%% of one "
		    "CPU: the step is CPU-bound on the host (Python overhead, data preparation or "
		    "kernel launches in that thread). Move data work into DataLoader workers, or "
		    "cut launch overhead (CUDA graphs, torch.compile, larger batches). ",
		    (long long)t->tid, t->name ? ", " : "", t->name ? model_str(m, t->name) : "",
		    busy);
	}
	if (n == 0)
		return 0;
	if (n >= sizeof(text))
		n = sizeof(text) - 1;
	while (n > 0 && text[n - 1] == ' ')
		text[--n] = '\0';
	c->recommendation = strdup(text);
	return c->recommendation ? 0 : NNS_ENOMEM;
}

int an_cpu_compute(struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	const struct an_overview *o = &p->overview;
	struct an_cpu *c = &p->cpu;
	size_t nmach = 0, nproc = 0;
	double running = 0;

	memset(c, 0, sizeof(*c));
	snprintf(c->before.name, sizeof(c->before.name), "before");
	if (vec_reserve(&c->steps, o->steps.n + 1))
		goto oom;
	for (size_t k = 0; k < o->steps.n; k++) {
		struct an_cpu_step s;

		memset(&s, 0, sizeof(s));
		snprintf(s.name, sizeof(s.name), "%s", o->steps.v[k].name);
		c->steps.v[c->steps.n++] = s;
	}
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct model_sample *s = &m->samples.v[i];
		struct an_cpu_step *st;
		long k;

		if (s->kind != MS_MACHINE && s->kind != MS_PROCESS)
			continue;
		k = step_of(o, s->ts);
		st = k >= 0 ? &c->steps.v[k] : k == -1 ? &c->before : NULL;
		if (s->kind == MS_MACHINE) {
			nmach++;
			acc(&c->machine, s);
			running += s->running;
			c->ctx_switches += s->ctx_switches;
			if (st)
				acc(&st->machine, s);
			if (s->rss_kb > c->machine_mem_peak_kb)
				c->machine_mem_peak_kb = s->rss_kb;
		} else {
			nproc++;
			acc(&c->process, s);
			if (s->rss_kb > c->rss_peak_kb)
				c->rss_peak_kb = s->rss_kb;
			if (st)
				acc(&st->process, s);
		}
	}
	c->running_avg = nmach ? running / (double)nmach : 0;
	mean(&c->machine);
	mean(&c->process);
	mean(&c->before.machine);
	mean(&c->before.process);
	for (size_t k = 0; k < c->steps.n; k++) {
		mean(&c->steps.v[k].machine);
		mean(&c->steps.v[k].process);
	}
	if (series(m, MS_MACHINE, nmach, &c->machine_series.v, &c->machine_series.n,
		   &c->machine_series.cap) ||
	    series(m, MS_PROCESS, nproc, &c->process_series.v, &c->process_series.n,
		   &c->process_series.cap) ||
	    per_thread(p) || per_stage(p) || recommendation(p))
		goto oom;
	return NNS_OK;
oom:
	return nns_err_set(err, NNS_ENOMEM, "out of memory in the CPU utilization analysis");
}
