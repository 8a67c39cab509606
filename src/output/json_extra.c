/*
 * json_extra.c - the per-worker/span documents of the data-pipeline, CPU
 * and host-info analyses: datapipe.json, cpu.json, hostinfo.json (always
 * written, with empty lists when the trace has no such data), the step
 * trace (steptrace.json, always written), and the data_pipeline.csv
 * table. Keys are listed in docs/CLI.md.
 *
 * Times: step ranges are absolute microseconds like overview.json's steps;
 * series are microseconds since the trace start (trace_start_us), like
 * memory.json's curve.
 */
#include "output/outfile.h"
#include "output/schema.h"
#include "output/ms_host_out.h"
#include "output/output.h"
#include "analysis/an_ms.h"
#include "output/ms_ops_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int64_t t0(const struct an_profile *p)
{
	return p->m ? p->m->min_ts : 0;
}

/* ---- datapipe.json -------------------------------------------------------- */

static void write_queue(struct jsonw *w, const struct an_profile *p, const struct an_queue *q)
{
	static const char *const cols[] = {
	    "name",	   "consumer",	  "samples",	"avg_size",    "max_size",   "capacity",
	    "utilization", "empty_count", "full_count", "empty_ratio", "full_ratio", NULL,
	};
	const struct sc_ctx x = {p->m, 0, &p->datapipe};

	jsonw_obj_begin(w);
	sc_json_fields(w, &sc_dp_queues, q, &x, cols);
	jsonw_key(w, "series");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < q->series.n; i++) {
		const struct an_queue_point *pt = &q->series.v[i];

		jsonw_arr_begin(w);
		jsonw_double(w, out_us(pt->ts - t0(p)));
		jsonw_double(w, pt->avg);
		jsonw_int(w, pt->min);
		jsonw_int(w, pt->max);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_datapipe(struct jsonw *w, const struct an_profile *p)
{
	const struct an_datapipe *d = &p->datapipe;

	jsonw_obj_begin(w);
	jsonw_kstr(w, "verdict", d->verdict[0] ? d->verdict : "no_data");
	jsonw_key(w, "data_process");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "status", d->warning ? "warning" : "normal");
	jsonw_obj_end(w);
	jsonw_kdouble(w, "empty_warning_threshold", AN_DP_EMPTY_WARNING_THRESHOLD);
	if (d->consumer >= 0 && (size_t)d->consumer < d->queues.n)
		jsonw_kstr(w, "consumer_queue", out_str(p->m, d->queues.v[d->consumer].name));
	else
		jsonw_knull(w, "consumer_queue");
	jsonw_kint(w, "empty_count", d->empty_count);
	jsonw_kint(w, "full_count", d->full_count);
	jsonw_kint(w, "total_count", d->total_count);
	jsonw_kdouble(w, "empty_ratio", d->empty_ratio);
	jsonw_kbool(w, "has_dataloader", d->has_dataloader);
	jsonw_kdouble(w, "wait_ratio", d->wait_ratio);
	jsonw_kdouble(w, "trace_start_us", out_us(t0(p)));
	jsonw_kstr(w, "series_columns",
		   "[time_us since trace start, mean size, min size, max size]");
	jsonw_key(w, "queues");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->queues.n; i++)
		write_queue(w, p, &d->queues.v[i]);
	jsonw_arr_end(w);
	sc_json_rows(w, "steps", &sc_dp_steps, d->steps.v, d->steps.n, NULL, NULL);
	jsonw_key(w, "findings");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->findings.n; i++) {
		const struct an_dp_finding *f = &d->findings.v[i];

		jsonw_obj_begin(w);
		if (f->queue)
			jsonw_kstr(w, "queue", out_str(p->m, f->queue));
		else
			jsonw_knull(w, "queue");
		jsonw_kstr(w, "kind", f->kind);
		jsonw_kstr(w, "text", f->text ? f->text : "");
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kstr(w, "recommendation", d->recommendation);
	jsonw_obj_end(w);
}

/* ---- cpu.json ------------------------------------------------------------- */

static void write_avg(struct jsonw *w, const char *key, const struct an_cpu_avg *a, int machine)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_kint(w, "samples", a->samples);
	jsonw_kdouble(w, "user", a->user);
	jsonw_kdouble(w, "sys", a->sys);
	if (machine) {
		jsonw_kdouble(w, "idle", a->idle);
		jsonw_kdouble(w, "iowait", a->iowait);
	}
	jsonw_obj_end(w);
}

static void write_series(struct jsonw *w, const struct an_profile *p, const char *key,
			 const struct an_cpu_point *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(v[i].ts - t0(p)));
		jsonw_double(w, v[i].user);
		jsonw_double(w, v[i].sys);
		jsonw_double(w, v[i].idle);
		jsonw_double(w, v[i].iowait);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
}

void out_json_cpu(struct jsonw *w, const struct an_profile *p)
{
	const struct an_cpu *c = &p->cpu;
	const struct sc_ctx x = {p->m, 0, NULL};

	jsonw_obj_begin(w);
	jsonw_kbool(w, "available", c->machine.samples || c->process.samples || c->threads.n);
	jsonw_kstr(w, "units",
		   "percent: machine of the whole machine, process and threads of one CPU");
	write_avg(w, "machine", &c->machine, 1);
	jsonw_kdouble(w, "running_avg", c->running_avg);
	jsonw_kint(w, "ctx_switches",
		   (int64_t)(c->ctx_switches > INT64_MAX ? INT64_MAX : c->ctx_switches));
	write_avg(w, "process", &c->process, 0);
	jsonw_kint(w, "rss_peak_kb",
		   (int64_t)(c->rss_peak_kb > INT64_MAX ? INT64_MAX : c->rss_peak_kb));
	jsonw_kint(
	    w, "machine_mem_used_peak_kb",
	    (int64_t)(c->machine_mem_peak_kb > INT64_MAX ? INT64_MAX : c->machine_mem_peak_kb));
	jsonw_kdouble(w, "trace_start_us", out_us(t0(p)));
	jsonw_kstr(w, "series_columns", "[time_us since trace start, user, sys, idle, iowait]");
	write_series(w, p, "machine_series", c->machine_series.v, c->machine_series.n);
	write_series(w, p, "process_series", c->process_series.v, c->process_series.n);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < c->steps.n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", c->steps.v[i].name);
		write_avg(w, "machine", &c->steps.v[i].machine, 1);
		write_avg(w, "process", &c->steps.v[i].process, 0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (c->before.machine.samples || c->before.process.samples) {
		jsonw_key(w, "before_steps");
		jsonw_obj_begin(w);
		write_avg(w, "machine", &c->before.machine, 1);
		write_avg(w, "process", &c->before.process, 0);
		jsonw_obj_end(w);
	} else {
		jsonw_knull(w, "before_steps");
	}
	sc_json_rows(w, "threads", &sc_cpu_threads, c->threads.v, c->threads.n, &x, NULL);
	sc_json_rows(w, "stages", &sc_cpu_stages, c->stages.v, c->stages.n, &x, NULL);
	jsonw_kstr(w, "recommendation", c->recommendation);
	jsonw_obj_end(w);
}

/* ---- hostinfo.json -------------------------------------------------------- */

void out_json_hostinfo(struct jsonw *w, const struct an_profile *p)
{
	const struct an_hostinfo *h = &p->hostinfo;
	const struct sc_ctx x = {p->m, 0, NULL};

	jsonw_obj_begin(w);
	jsonw_kbool(w, "available", h->records > 0 || h->memory.n > 0);
	jsonw_kint(w, "records", h->records);
	jsonw_kint(w, "instants", h->instants);
	jsonw_kint(w, "unmatched_starts", h->unmatched_starts);
	jsonw_kint(w, "unmatched_ends", h->unmatched_ends);
	sc_json_rows(w, "events", &sc_host_events, h->rows.v, h->rows.n, &x, NULL);
	jsonw_key(w, "memory");
	jsonw_obj_begin(w);
	jsonw_kint(w, "peak_kb", h->peak_kb);
	jsonw_kbool(w, "aligned", h->aligned);
	jsonw_kstr(w, "columns",
		   h->aligned ? "[time_us since trace start, VmRSS kB]"
			      : "[time_stamp(us) as in the CSV, VmRSS kB]");
	jsonw_key(w, "points");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < h->memory.n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(h->memory.v[i].ts - (h->aligned ? t0(p) : 0)));
		jsonw_int(w, h->memory.v[i].memory_kb);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* ---- steptrace.json ------------------------------------------------------- */

void out_json_steptrace(struct jsonw *w, const struct an_profile *p)
{
	const struct an_steptrace *st = &p->steptrace;

	/* a MindSpore device: MindSpore's own step trace (ms_ops_json.h) */
	if (p->ms && out_json_ms_steptrace(w, p->ms) == 0)
		return;

	jsonw_obj_begin(w);
	sc_json_rows(w, "steps", &sc_steptrace, st->steps.v, st->steps.n, NULL, NULL);
	jsonw_key(w, "average");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "iteration_interval_us", st->avg_interval / 1000.0);
	jsonw_kdouble(w, "fp_bp_us", st->avg_fp_bp / 1000.0);
	jsonw_kdouble(w, "tail_us", st->avg_tail / 1000.0);
	jsonw_kdouble(w, "total_us", st->avg_total / 1000.0);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* ---- files ----------------------------------------------------------------- */

struct view_arg {
	void (*fn)(struct jsonw *, const struct an_profile *);
	const struct an_profile *p;
};

static void view_fn(struct jsonw *w, const void *arg)
{
	const struct view_arg *a = arg;

	a->fn(w, a->p);
}

static int write_one(const char *dir, const char *name,
		     void (*fn)(struct jsonw *, const struct an_profile *),
		     const struct an_profile *p, int pretty, struct nns_err *err)
{
	struct view_arg a = {fn, p};

	return out_json_file(dir, name, pretty, view_fn, &a, err);
}

/* data_pipeline.csv: one row per queue, the consumer first with the verdict. */
static void datapipe_csv(FILE *f, const struct an_profile *p)
{
	static const char *const cols[] = {
	    "name:queue", "role",	 "samples",	    "avg_size",
	    "max_size",	  "capacity",	 "utilization_pct", "empty_pct",
	    "full_pct",	  "empty_count", "full_count",	    "verdict",
	    NULL,
	};
	const struct an_datapipe *d = &p->datapipe;
	const struct sc_ctx x = {p->m, 0, d};

	sc_csv_header(f, &sc_dp_queues, cols);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->queues.n; i++)
			if ((pass == 0) == (d->queues.v[i].consumer != 0))
				sc_csv_row(f, &sc_dp_queues, &d->queues.v[i], &x, cols);
}

int out_write_extra(const char *dir, const struct an_profile *p, const struct out_opts *o,
		    struct nns_err *err)
{
	char name[80];
	int rc = 0;

	for (size_t i = 0; !rc && i < out_nviews; i++) {
		if (!out_view_applies(&out_views[i], p) ||
		    (out_views[i].written_for && !out_views[i].written_for(p)))
			continue;
		snprintf(name, sizeof(name), "%s.json", out_views[i].name);
		rc = write_one(dir, name, out_views[i].fn, p,
			       o && o->pretty_depth ? o->pretty_depth : out_views[i].pretty, err);
	}
	if (!rc && o && o->csv) {
		struct out_file of;

		rc = out_file_open(&of, dir, "data_pipeline.csv", err);
		if (!rc) {
			datapipe_csv(of.f, p);
			rc = out_file_commit(&of, err);
		}
	}
	return rc;
}
