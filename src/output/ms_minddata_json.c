/*
 * ms_minddata_json.c - writes the MindData document of one MindSpore device
 * (shape in ms_minddata_json.h).
 */
#include "output/ms_minddata_json.h"

#include "analysis/ms_minddata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static void ints(struct jsonw *w, const char *key, const int64_t *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_int(w, v[i]);
	jsonw_arr_end(w);
}

static void dbls(struct jsonw *w, const char *key, const double *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_double(w, v[i]);
	jsonw_arr_end(w);
}

static void kdouble_or_null(struct jsonw *w, const char *key, int has, double v)
{
	if (has)
		jsonw_kdouble(w, key, v);
	else
		jsonw_knull(w, key);
}

static void kint_or_null(struct jsonw *w, const char *key, int has, int64_t v)
{
	if (has)
		jsonw_kint(w, key, v);
	else
		jsonw_knull(w, key);
}

static void kstatus(struct jsonw *w, const char *key, enum ms_md_status s)
{
	jsonw_kstr(w, key, ms_md_status_name(s)); /* NULL -> null */
}

static void err_line(struct jsonw *w, const char *what, int rc)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: analysis failed (status %d)", what, rc);
	jsonw_str(w, msg);
}

/* Writes the device queue; returns 0 or the analysis status. */
static int write_dq(struct jsonw *w, const struct ms_md_dq *q, const struct ms_md_result *r)
{
	const struct ms_md_dq_info *x = &r->dq;

	if (!q->present || r->dq_rc) {
		jsonw_knull(w, "device_queue");
		return r->dq_rc;
	}
	jsonw_key(w, "device_queue");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", base(q->path));
	jsonw_key(w, "queue");
	jsonw_obj_begin(w);
	jsonw_kint(w, "size", (int64_t)x->queue_n);
	jsonw_kint(w, "empty_batches", (int64_t)x->empty);
	jsonw_kint(w, "full_batches", (int64_t)x->full);
	ints(w, "queue_size", x->queue_size.v, x->queue_size.n);
	ints(w, "capacity", x->capacity.v, x->capacity.n);
	jsonw_obj_end(w);
	jsonw_key(w, "time");
	jsonw_obj_begin(w);
	jsonw_kint(w, "size", (int64_t)x->time_n);
	kdouble_or_null(w, "avg_cost_ms", x->time_n > 0, x->avg_cost_ms);
	kdouble_or_null(w, "avg_get_cost_ms", x->time_n > 0, x->get_cost_ms);
	kdouble_or_null(w, "avg_push_cost_ms", x->time_n > 0, x->push_cost_ms);
	dbls(w, "total_cost_ms", x->total_cost_ms.v, x->total_cost_ms.n);
	dbls(w, "push_cost_ms", x->push_cost_ms_v.v, x->push_cost_ms_v.n);
	dbls(w, "get_cost_ms", x->get_cost_ms_v.v, x->get_cost_ms_v.n);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
	return 0;
}

static int write_gn(struct jsonw *w, const struct ms_md_gn *g, const struct ms_md_result *r)
{
	const struct ms_md_gn_info *x = &r->gn;

	if (!g->present || r->gn_rc) {
		jsonw_knull(w, "get_next");
		return r->gn_rc;
	}
	jsonw_key(w, "get_next");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", base(g->path));
	jsonw_kstr(w, "time_unit_in_file", g->gpu ? "ns" : "us");
	jsonw_key(w, "queue");
	jsonw_obj_begin(w);
	jsonw_kint(w, "size", (int64_t)x->queue_n);
	jsonw_kint(w, "empty_batches", (int64_t)x->empty);
	ints(w, "queue_size", x->queue.v, x->queue.n);
	jsonw_obj_end(w);
	jsonw_key(w, "time");
	jsonw_obj_begin(w);
	jsonw_kint(w, "size", (int64_t)x->time_n);
	kdouble_or_null(w, "avg_cost_ms", x->time_n > 0, x->avg_cost_ms);
	dbls(w, "cost_ms", x->cost_ms.v, x->cost_ms.n);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
	return 0;
}

static void write_summary(struct jsonw *w, const struct ms_md_result *r)
{
	const struct ms_md_queue_summary *s = &r->sum;

	if (!s->present) {
		jsonw_knull(w, "queue_summary");
		return;
	}
	jsonw_key(w, "queue_summary");
	jsonw_obj_begin(w);
	jsonw_key(w, "device_queue");
	jsonw_obj_begin(w);
	jsonw_kint(w, "empty_batch_count", (int64_t)s->dq_empty);
	jsonw_kint(w, "full_batch_count", (int64_t)s->dq_full);
	jsonw_kint(w, "total_batch", (int64_t)s->dq_total);
	jsonw_obj_end(w);
	if (s->has_get_next) {
		jsonw_key(w, "get_next_queue");
		jsonw_obj_begin(w);
		jsonw_kint(w, "empty_batch_count", (int64_t)s->gn_empty);
		jsonw_kint(w, "total_batch", (int64_t)s->gn_total);
		jsonw_obj_end(w);
	} else {
		jsonw_knull(w, "get_next_queue");
	}
	kstatus(w, "data_process", s->data_process);
	kstatus(w, "data_transmission", s->data_transmission);
	kstatus(w, "device_queue_warning", s->device_queue_warning);
	kstatus(w, "get_next", s->get_next);
	jsonw_obj_end(w);
}

static int write_pipeline(struct jsonw *w, const struct ms_md_pipeline *p,
			  const struct ms_md_result *r)
{
	if (!p->present || r->pl_rc) {
		jsonw_knull(w, "pipeline");
		return r->pl_rc;
	}
	jsonw_key(w, "pipeline");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", base(p->path));
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->ops.n; i++) {
		const struct ms_md_op *o = &p->ops.v[i];

		jsonw_obj_begin(w);
		jsonw_kint(w, "op_id", o->op_id);
		jsonw_kstr(w, "op_type", o->op_type);
		jsonw_kint(w, "num_workers", o->num_workers);
		if (o->has_queue_size)
			dbls(w, "output_queue_size", o->queue_size.v, o->queue_size.n);
		else
			jsonw_knull(w, "output_queue_size");
		kdouble_or_null(w, "output_queue_average_size", o->has_avg, o->avg);
		kint_or_null(w, "output_queue_length", o->has_length, o->length);
		kdouble_or_null(w, "output_queue_usage_rate", o->has_usage, o->usage);
		jsonw_kint(w, "sample_interval_ms", o->sample_interval);
		kint_or_null(w, "parent_id", o->has_parent, o->parent_id);
		if (o->has_children)
			ints(w, "children_id", o->children.v, o->children.n);
		else
			jsonw_knull(w, "children_id");
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "threshold");
	jsonw_arr_begin(w);
	jsonw_double(w, MS_MD_PIPE_HIGH);
	jsonw_double(w, MS_MD_PIPE_LOW);
	jsonw_arr_end(w);
	jsonw_key(w, "bottleneck_op_ids");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->bottleneck.n; i++)
		jsonw_int(w, p->ops.v[r->bottleneck.v[i]].op_id);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	return 0;
}

static void series(struct jsonw *w, const struct ms_md_series *g, size_t n, const double *avg)
{
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "metric", g[i].name);
		jsonw_kdouble(w, "avg", avg[i]);
		dbls(w, "values", g[i].v.v, g[i].v.n);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static int write_cpu(struct jsonw *w, const struct ms_md *m, const struct ms_md_result *r)
{
	const struct ms_md_cpu *c = &m->cpu;
	const struct ms_md_cpu_info *ci = &r->cpu;

	if (!c->present || r->cpu_rc) {
		jsonw_knull(w, "cpu_utilization");
		return r->cpu_rc;
	}
	jsonw_key(w, "cpu_utilization");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", base(c->path));
	kdouble_or_null(w, "sampling_interval_ms", c->has_sampling_interval, c->sampling_interval);
	kint_or_null(w, "cpu_processor_num", c->has_cpu_num, c->cpu_processor_num);
	jsonw_kint(w, "samples", (int64_t)ci->nsamples);
	jsonw_kint(w, "step_total_num", (int64_t)ci->step_total_num);
	if (ci->mapped)
		ints(w, "sample_steps", ci->sample_step.v, ci->sample_step.n);
	else
		jsonw_knull(w, "sample_steps");
	jsonw_kint(w, "first_sample", (int64_t)ci->first);
	jsonw_kint(w, "end_sample", (int64_t)ci->end);
	dbls(w, "time_stamp_ms", c->time_stamp.v, c->time_stamp.n);
	jsonw_key(w, "device");
	series(w, c->device, c->ndevice, r->dev_avg);
	jsonw_key(w, "process");
	series(w, c->process, c->nprocess, r->proc_avg);
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t k = 0; k < c->ops.n; k++) {
		const struct ms_md_cpu_op *o = &c->ops.v[k];

		if (o->op_id == -1) /* not a pipeline op */
			continue;
		jsonw_obj_begin(w);
		jsonw_kint(w, "op_id", o->op_id);
		kint_or_null(w, "num_workers", o->num_workers >= 0, o->num_workers);
		jsonw_key(w, "metrics");
		series(w, o->metrics, o->nmetrics, &r->op_avg.v[k * MS_MD_MAX_METRICS]);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "total_op_avg");
	jsonw_obj_begin(w);
	for (size_t t = 0; t < r->ntot; t++)
		jsonw_kdouble(w, r->tot_name[t], r->tot[t]);
	jsonw_obj_end(w);
	kdouble_or_null(w, "active_percent", ci->has_idle, ci->active_avg);
	jsonw_obj_end(w);
	return 0;
}

static int write_proposals(struct jsonw *w, const struct ms_md_result *r)
{
	const struct ms_md_proposals *ps = &r->props;
	int rc = r->prop_rc;

	jsonw_key(w, "proposals");
	jsonw_arr_begin(w);
	for (size_t i = 0; !rc && i < ps->v.n; i++) {
		const struct ms_md_proposal *p = &ps->v.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "id", p->id);
		jsonw_key(w, "args");
		if (p->cause) {
			jsonw_obj_begin(w);
			jsonw_kdouble(w, "empty_rate", p->nums[0]);
			jsonw_kdouble(w, "empty_warning_threshold", p->nums[1]);
			jsonw_obj_end(w);
			jsonw_kstr(w, "cause", p->cause);
		} else {
			jsonw_arr_begin(w);
			for (int k = 0; k < p->nnums; k++)
				jsonw_double(w, p->nums[k]);
			if (p->str)
				jsonw_str(w, p->str);
			jsonw_arr_end(w);
		}
		jsonw_kstr(w, "text", p->text);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	return rc;
}

void out_json_ms_minddata_data(struct jsonw *w, const struct ms_md *m, const struct ms_md_result *r)
{
	int rc[5];

	jsonw_obj_begin(w);
	rc[0] = write_dq(w, &m->dq, r);
	rc[1] = write_gn(w, &m->gn, r);
	write_summary(w, r);
	rc[2] = write_pipeline(w, &m->pl, r);
	rc[3] = write_cpu(w, m, r);
	rc[4] = write_proposals(w, r);
	jsonw_key(w, "errors");
	jsonw_arr_begin(w);
	for (int i = 0; i < m->nerr; i++)
		jsonw_str(w, m->errors[i].msg);
	if (rc[0])
		err_line(w, "device_queue", rc[0]);
	if (rc[1])
		err_line(w, "get_next", rc[1]);
	if (rc[2])
		err_line(w, "pipeline", rc[2]);
	if (rc[3])
		err_line(w, "cpu_utilization", rc[3]);
	if (rc[4])
		err_line(w, "proposals", rc[4]);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_ms_minddata(struct jsonw *w, const struct ms_profile *mp)
{
	out_json_ms_minddata_data(w, &mp->md, &mp->md_result);
}
