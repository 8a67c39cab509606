/*
 * json_out.c - the per-worker/span JSON files of SPEC §4 (overview,
 * operators, kernels, memory, plus modules) and the per-run distributed and
 * diff documents. Contract keys are written exactly as the spec names
 * them; extra keys are documented in docs/CLI.md.
 */
#include "output/output.h"
#include "output/outfile.h"

#include <stdio.h>
#include <string.h>

/* The overview keys of the step roles, in enum an_role order (SPEC §4). */
static const char *const role_key[AN_NROLES] = {
    "kernel_us",  "memcpy_us",	   "memset_us",	  "communication_us",
    "runtime_us", "dataloader_us", "cpu_exec_us", "other_us",
};

static const char *str_or_null(const struct model *m, uint32_t id)
{
	if (!m || id == 0 || id == STRPOOL_NONE)
		return NULL;
	return model_str(m, id);
}

/* ---- overview.json ----------------------------------------------------- */

static void write_step(struct jsonw *w, const struct an_step *s)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "name", s->name);
	jsonw_kdouble(w, "total_us", out_us(s->end - s->start));
	for (int r = 0; r < AN_NROLES; r++)
		jsonw_kdouble(w, role_key[r], out_us(s->cost[r]));
	jsonw_kdouble(w, "start_us", out_us(s->start));
	jsonw_kdouble(w, "end_us", out_us(s->end));
	jsonw_kdouble(w, "host_start_us", out_us(s->host_start));
	jsonw_kdouble(w, "host_end_us", out_us(s->host_end));
	jsonw_kint(w, "device_nodes", s->device_nodes);
	jsonw_obj_end(w);
}

static void write_gpu(struct jsonw *w, const struct an_profile *p, const struct an_gpu *g)
{
	const struct model_device *dev = p->m ? model_device_by_id(p->m, g->id) : NULL;
	char cc[32];

	jsonw_obj_begin(w);
	jsonw_kint(w, "id", g->id);
	if (dev) {
		jsonw_kstr(w, "name", out_str(p->m, dev->name));
		jsonw_kint(w, "memory_bytes", dev->total_mem);
		snprintf(cc, sizeof(cc), "%d.%d", dev->major, dev->minor);
		jsonw_kstr(w, "compute_capability", cc);
	} else {
		jsonw_knull(w, "name");
		jsonw_knull(w, "memory_bytes");
		jsonw_knull(w, "compute_capability");
	}
	jsonw_kdouble(w, "utilization", g->utilization);
	if (g->sm_efficiency < 0)
		jsonw_knull(w, "sm_efficiency");
	else
		jsonw_kdouble(w, "sm_efficiency", g->sm_efficiency);
	if (g->achieved_occupancy < 0)
		jsonw_knull(w, "achieved_occupancy");
	else
		jsonw_kdouble(w, "achieved_occupancy", g->achieved_occupancy);
	jsonw_kdouble(w, "tensor_core_ratio", g->tensor_core_ratio);
	jsonw_kdouble(w, "kernel_us", out_us(g->kernel_time));
	if (dev) {
		jsonw_kint(w, "num_sms", dev->num_sms);
		jsonw_kint(w, "max_threads_per_sm", dev->max_threads_per_sm);
	}
	jsonw_key(w, "gpu_util_timeline");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < g->util_buckets.n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(g->util_buckets.v[i].ts));
		jsonw_double(w, g->util_buckets.v[i].value);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	/* the elementary SM-efficiency ranges can number millions; the file
	 * carries them averaged over the utilization buckets */
	jsonw_key(w, "sm_efficiency_timeline");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < g->sm_buckets.n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(g->sm_buckets.v[i].ts));
		jsonw_double(w, g->sm_buckets.v[i].value);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

/* "unknown_categories": [{name, count}] (+ "unknown_categories_more": the
 * events of categories past the first 16) and "profiler_ranges": the
 * number of CUPTI range-profiler ranges (on the timeline, in no view). */
static void write_categories(struct jsonw *w, const struct model *m)
{
	int64_t ranges = 0;
	size_t i;

	jsonw_key(w, "unknown_categories");
	jsonw_arr_begin(w);
	for (i = 0; i < MODEL_DIAG_CATS && m->diag.unknown_cats[i].count; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", m->diag.unknown_cats[i].name);
		jsonw_kint(w, "count", m->diag.unknown_cats[i].count);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (m->diag.unknown_cats_more)
		jsonw_kint(w, "unknown_categories_more", m->diag.unknown_cats_more);
	for (i = 0; i < m->events.n; i++)
		ranges += m->events.v[i].kind == MK_PROFILER_RANGE;
	jsonw_kint(w, "profiler_ranges", ranges);
}

/* How launches found their operator (optree.c's rules). */
static void write_attribution(struct jsonw *w, const struct an_attribution *a)
{
	jsonw_key(w, "attribution");
	jsonw_obj_begin(w);
	jsonw_kint(w, "launches", a->launches);
	jsonw_kint(w, "by_external_id", a->by_external_id);
	jsonw_kint(w, "by_thread_root", a->by_thread_root);
	jsonw_kint(w, "by_enclosing_op", a->by_enclosing);
	jsonw_kint(w, "unattributed_launches", a->unattributed);
	jsonw_kint(w, "device_events", a->device_events);
	jsonw_kint(w, "device_without_launch", a->device_no_launch);
	jsonw_kint(w, "device_unattributed", a->device_unattributed);
	jsonw_obj_end(w);
}

static void write_diagnostics(struct jsonw *w, const struct an_profile *p)
{
	jsonw_key(w, "diagnostics");
	jsonw_obj_begin(w);
	if (p->m) {
		jsonw_kint(w, "events_skipped", p->m->diag.events_skipped);
		jsonw_kbool(w, "truncated", p->m->diag.truncated);
		jsonw_kstr(w, "first_problem",
			   p->m->diag.first_problem[0] ? p->m->diag.first_problem : NULL);
		jsonw_kint(w, "bytes_read", p->m->diag.bytes_read);
		jsonw_kint(w, "events", (int64_t)p->m->events.n);
		jsonw_kint(w, "events_lost", p->m->diag.events_lost);
		jsonw_kint(w, "ranges_closed", p->m->diag.ranges_closed);
		write_categories(w, p->m);
	}
	jsonw_kint(w, "dropped_overlaps", p->tree.dropped_overlaps);
	jsonw_kint(w, "unmatched_runtimes", p->tree.unmatched_runtimes);
	write_attribution(w, &p->tree.attr);
	jsonw_obj_end(w);
}

void out_json_overview(struct jsonw *w, const struct an_profile *p, const struct out_source *src)
{
	const struct an_overview *ov = &p->overview;

	jsonw_obj_begin(w);
	jsonw_kstr(w, "nnscope_version", NNS_VERSION_STRING);
	if (src) {
		jsonw_kstr(w, "run", src->run);
		jsonw_kstr(w, "worker", src->worker);
		jsonw_kstr(w, "span", src->span && *src->span ? src->span : NULL);
		jsonw_kstr(w, "source", src->file);
	}
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ov->steps.n; i++)
		write_step(w, &ov->steps.v[i]);
	jsonw_arr_end(w);

	jsonw_key(w, "average");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "total_us", ov->avg_total / 1000.0);
	for (int r = 0; r < AN_NROLES; r++)
		jsonw_kdouble(w, role_key[r], ov->avg[r] / 1000.0);
	jsonw_kint(w, "steps", (int64_t)ov->steps.n);
	jsonw_obj_end(w);

	jsonw_key(w, "gpus");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->gpus.n; i++)
		write_gpu(w, p, &p->gpus.v[i]);
	jsonw_arr_end(w);

	jsonw_key(w, "recommendations");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->advice.items.n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "id", p->advice.items.v[i].id);
		jsonw_kstr(w, "text", p->advice.items.v[i].text ? p->advice.items.v[i].text : "");
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);

	jsonw_kbool(w, "has_runtime", ov->has_runtime);
	jsonw_kbool(w, "has_kernel", ov->has_kernel);
	jsonw_kbool(w, "has_memcpy_or_memset", ov->has_memcpy_or_memset);
	jsonw_kbool(w, "has_communication", ov->has_communication);
	jsonw_kint(w, "steps_dropped", ov->steps_dropped);
	jsonw_kdouble(w, "tc_eligible_ops_kernel_ratio", p->tc_eligible_ops_kernel_ratio);
	jsonw_kbool(w, "use_dp", p->use_dp);
	jsonw_kbool(w, "use_ddp", p->use_ddp);
	jsonw_kint(w, "devices_used", p->devices_used);
	if (p->m) {
		/* Kineto's distributedInfo.rank, or nnscope's "rank" metadata
		 * (model_add_meta sets dist_rank from it) */
		int64_t rank = p->m->dist_rank;

		if (rank >= 0)
			jsonw_kint(w, "rank", rank);
		else
			jsonw_knull(w, "rank");
		jsonw_kdouble(w, "trace_start_us", out_us(p->m->min_ts));
		jsonw_kdouble(w, "trace_end_us", out_us(p->m->max_end));
	}
	write_diagnostics(w, p);
	jsonw_obj_end(w);
}

/* ---- operators.json ---------------------------------------------------- */

static double ratio(int64_t num, int64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

static void write_op_rows(struct jsonw *w, const struct model *m, const char *key,
			  const struct an_op_row *rows, size_t n, int shape, int stack)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		const struct an_op_row *r = &rows[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", out_str(m, r->name));
		if (shape)
			jsonw_kstr(w, "input_shape", out_str(m, r->input_shape));
		if (stack)
			jsonw_kstr(w, "call_stack", out_str(m, r->call_stack));
		jsonw_kint(w, "calls", r->calls);
		jsonw_kdouble(w, "host_self_us", out_us(r->host_self));
		jsonw_kdouble(w, "host_total_us", out_us(r->host_total));
		jsonw_kdouble(w, "device_self_us", out_us(r->dev_self));
		jsonw_kdouble(w, "device_total_us", out_us(r->dev_total));
		jsonw_kbool(w, "tc_eligible", r->tc_eligible);
		jsonw_kdouble(w, "tc_self_ratio", ratio(r->tc_self, r->dev_self));
		jsonw_kdouble(w, "tc_total_ratio", ratio(r->tc_total, r->dev_total));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void out_json_operators(struct jsonw *w, const struct an_profile *p)
{
	const struct an_ops *o = &p->ops;

	jsonw_obj_begin(w);
	jsonw_kstr(w, "sort_by", o->sort_by_device ? "device_self_us" : "host_self_us");
	write_op_rows(w, p->m, "by_name", o->by_name.v, o->by_name.n, 0, 0);
	write_op_rows(w, p->m, "by_name_shape", o->by_name_shape.v, o->by_name_shape.n, 1, 0);
	write_op_rows(w, p->m, "by_name_stack", o->by_name_stack.v, o->by_name_stack.n, 0, 1);
	write_op_rows(w, p->m, "by_name_shape_stack", o->by_name_shape_stack.v,
		      o->by_name_shape_stack.n, 1, 1);
	jsonw_obj_end(w);
}

/* ---- kernels.json ------------------------------------------------------ */

static void write_kernel_rows(struct jsonw *w, const struct model *m, const char *key,
			      const struct an_kernel_row *rows, size_t n, int props)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		const struct an_kernel_row *r = &rows[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", out_str(m, r->name));
		if (props) {
			const char *op = str_or_null(m, r->op_name);

			jsonw_kstr(w, "op_name", op ? op : "N/A");
			jsonw_kstr(w, "grid", out_str(m, r->grid));
			jsonw_kstr(w, "block", out_str(m, r->block));
			jsonw_kint(w, "registers_per_thread", r->regs);
			jsonw_kint(w, "shared_memory", r->shared_mem);
		}
		jsonw_kint(w, "calls", r->calls);
		jsonw_kdouble(w, "total_us", out_us(r->total));
		jsonw_kdouble(w, "mean_us", r->calls ? out_us(r->total) / (double)r->calls : 0.0);
		jsonw_kdouble(w, "min_us", out_us(r->min));
		jsonw_kdouble(w, "max_us", out_us(r->max));
		jsonw_kdouble(w, "mean_blocks_per_sm", r->mean_blocks_per_sm);
		jsonw_kdouble(w, "mean_occupancy", r->mean_occupancy);
		jsonw_kbool(w, "tensor_core", r->tensor_core);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void out_json_kernels(struct jsonw *w, const struct an_profile *p)
{
	const struct an_kernels *k = &p->kernels;

	jsonw_obj_begin(w);
	jsonw_kdouble(w, "total_us", out_us(k->total_time));
	jsonw_kdouble(w, "tc_used_ratio", k->tc_used_ratio);
	write_kernel_rows(w, p->m, "by_name", k->by_name.v, k->by_name.n, 0);
	write_kernel_rows(w, p->m, "by_properties", k->by_properties.v, k->by_properties.n, 1);
	jsonw_obj_end(w);
}

/* ---- memory.json ------------------------------------------------------- */

/* "op": tb_plugin's label, "<parent> (aten::empty...)" for allocations of
 * factory ops inside another op, null when unknown; plus the parts. */
static void write_event_op(struct jsonw *w, const struct model *m, const struct an_mem_event *e)
{
	const char *op = str_or_null(m, e->op), *parent = str_or_null(m, e->parent_op);
	char label[1024];

	if (op && parent) {
		snprintf(label, sizeof(label), "%s (%s)", parent, op);
		jsonw_kstr(w, "op", label);
	} else {
		jsonw_kstr(w, "op", op);
	}
	jsonw_kstr(w, "op_name", op);
	jsonw_kstr(w, "parent_op", parent);
}

static void write_mem_device(struct jsonw *w, const struct model *m, const struct an_mem_device *d)
{
	int64_t t0 = m ? m->min_ts : 0;

	jsonw_key(w, d->name[0] ? d->name : "?");
	jsonw_obj_begin(w);
	jsonw_kint(w, "device_type", d->device_type);
	jsonw_kint(w, "device_id", d->device_id);
	if (d->peak_allocated < 0)
		jsonw_knull(w, "peak_allocated_bytes");
	else
		jsonw_kint(w, "peak_allocated_bytes", d->peak_allocated);

	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->ops.n; i++) {
		const struct an_mem_op_row *r = &d->ops.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", out_str(m, r->name));
		jsonw_kint(w, "calls", r->calls);
		jsonw_kint(w, "size_increase", r->size_increase);
		jsonw_kint(w, "self_size_increase", r->self_size_increase);
		jsonw_kint(w, "alloc_count", r->alloc_count);
		jsonw_kint(w, "self_alloc_count", r->self_alloc_count);
		jsonw_kint(w, "alloc_size", r->alloc_size);
		jsonw_kint(w, "self_alloc_size", r->self_alloc_size);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);

	jsonw_key(w, "curve");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->curve.n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(d->curve.v[i].ts - t0));
		jsonw_int(w, d->curve.v[i].allocated);
		jsonw_int(w, d->curve.v[i].reserved);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);

	jsonw_key(w, "events");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->events.n; i++) {
		const struct an_mem_event *e = &d->events.v[i];
		int has_a = e->alloc_ts != MODEL_NONE, has_f = e->free_ts != MODEL_NONE;

		jsonw_obj_begin(w);
		write_event_op(w, m, e);
		jsonw_kint(w, "size", e->size);
		if (has_a)
			jsonw_kdouble(w, "alloc_us", out_us(e->alloc_ts - t0));
		else
			jsonw_knull(w, "alloc_us");
		if (has_f)
			jsonw_kdouble(w, "free_us", out_us(e->free_ts - t0));
		else
			jsonw_knull(w, "free_us");
		if (has_a && has_f)
			jsonw_kdouble(w, "duration_us", out_us(e->free_ts - e->alloc_ts));
		else
			jsonw_knull(w, "duration_us");
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_memory(struct jsonw *w, const struct an_profile *p)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "curve_columns",
		   "[time_us since trace start, allocated bytes, reserved bytes]");
	jsonw_key(w, "devices");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < p->memory.devices.n; i++)
		write_mem_device(w, p->m, &p->memory.devices.v[i]);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* ---- modules.json ------------------------------------------------------ */

void out_json_modules(struct jsonw *w, const struct an_profile *p)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "modules");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->modules.rows.n; i++) {
		const struct an_module_row *r = &p->modules.rows.v[i];
		char name[1024];

		an_module_name(p->m, r, 0, name, sizeof(name));
		jsonw_obj_begin(w);
		jsonw_kint(w, "id", (int64_t)i);
		jsonw_kstr(w, "name", name);
		jsonw_kbool(w, "backward", r->backward);
		jsonw_kint(w, "module_id", r->module_id);
		if (r->parent == MODEL_NOIDX || r->parent >= p->modules.rows.n)
			jsonw_knull(w, "parent");
		else
			jsonw_kint(w, "parent", r->parent);
		jsonw_kint(w, "occurrences", r->occurrences);
		jsonw_kint(w, "operators", r->operators);
		jsonw_kdouble(w, "host_self_us", out_us(r->host_self));
		jsonw_kdouble(w, "host_total_us", out_us(r->host_total));
		jsonw_kdouble(w, "device_self_us", out_us(r->dev_self));
		jsonw_kdouble(w, "device_total_us", out_us(r->dev_total));
		jsonw_kdouble(w, "avg_duration_us", r->avg_duration / 1000.0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

/* ---- distributed.json -------------------------------------------------- */

void out_json_dist(struct jsonw *w, const struct an_dist *d, const char *span)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "span", span && *span ? span : NULL);
	jsonw_kbool(w, "available", d->available);
	jsonw_kstr(w, "note", d->note);
	jsonw_key(w, "workers");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->workers.n; i++) {
		const struct an_dist_worker *x = &d->workers.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "worker", x->name);
		jsonw_kdouble(w, "computation_us", x->computation / 1000.0);
		jsonw_kdouble(w, "overlap_us", x->overlap / 1000.0);
		jsonw_kdouble(w, "communication_us", x->communication / 1000.0);
		jsonw_kdouble(w, "other_us", x->other / 1000.0);
		jsonw_kdouble(w, "transfer_us", x->transfer / 1000.0);
		jsonw_kdouble(w, "synchronizing_us", x->synchronizing / 1000.0);
		jsonw_kbool(w, "comparable", x->comparable);
		hta_dist_worker_json(w, x);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "comm_ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->comm_ops.n; i++) {
		const struct an_dist_comm_row *c = &d->comm_ops.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "worker",
			   c->worker < d->workers.n ? d->workers.v[c->worker].name : "");
		jsonw_kstr(w, "name", c->name);
		jsonw_kint(w, "calls", c->calls);
		jsonw_kint(w, "total_bytes", c->total_bytes);
		jsonw_kdouble(w, "total_latency_us", out_us(c->total_latency));
		jsonw_kdouble(w, "transfer_us", out_us(c->transfer));
		jsonw_kdouble(w, "avg_bytes",
			      c->calls ? (double)c->total_bytes / (double)c->calls : 0.0);
		jsonw_kdouble(w, "avg_latency_us",
			      c->calls ? out_us(c->total_latency) / (double)c->calls : 0.0);
		jsonw_kdouble(w, "avg_transfer_us",
			      c->calls ? out_us(c->transfer) / (double)c->calls : 0.0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	hta_dist_stragglers_json(w, d);
	jsonw_obj_end(w);
}

/* ---- diff -------------------------------------------------------------- */

static void write_step_avg(struct jsonw *w, const char *key, const double *v)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "total_us", v[AN_NROLES] / 1000.0);
	for (int r = 0; r < AN_NROLES; r++)
		jsonw_kdouble(w, role_key[r], v[r] / 1000.0);
	jsonw_obj_end(w);
}

static void write_triplet(struct jsonw *w, const char *what, int64_t base, int64_t exp, int time)
{
	char k[64];

	static const char *const prefix[3] = {"base", "exp", "delta"};
	const int64_t v[3] = {base, exp, exp - base};

	for (int i = 0; i < 3; i++) {
		snprintf(k, sizeof(k), "%s_%s%s", prefix[i], what, time ? "_us" : "");
		if (time)
			jsonw_kdouble(w, k, out_us(v[i]));
		else
			jsonw_kint(w, k, v[i]);
	}
}

void out_json_diff(struct jsonw *w, const struct an_diff *d, const char *base_label,
		   const char *exp_label)
{
	double delta[AN_NROLES + 1];

	for (int r = 0; r <= AN_NROLES; r++)
		delta[r] = d->exp_step[r] - d->base_step[r];
	jsonw_obj_begin(w);
	jsonw_kstr(w, "base", base_label);
	jsonw_kstr(w, "exp", exp_label);
	jsonw_kint(w, "base_steps", (int64_t)d->base_steps);
	jsonw_kint(w, "exp_steps", (int64_t)d->exp_steps);
	jsonw_key(w, "steps");
	jsonw_obj_begin(w);
	write_step_avg(w, "base", d->base_step);
	write_step_avg(w, "exp", d->exp_step);
	write_step_avg(w, "delta", delta);
	jsonw_obj_end(w);
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->ops.n; i++) {
		const struct an_diff_row *r = &d->ops.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", r->name);
		write_triplet(w, "calls", r->base_calls, r->exp_calls, 0);
		write_triplet(w, "host_total", r->base_host, r->exp_host, 1);
		write_triplet(w, "device_total", r->base_dev, r->exp_dev, 1);
		write_triplet(w, "host_self", r->base_host_self, r->exp_host_self, 1);
		write_triplet(w, "device_self", r->base_dev_self, r->exp_dev_self, 1);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	out_json_trace_diff(w, d);
	jsonw_obj_end(w);
}

/* ---- files ------------------------------------------------------------- */

enum { DOC_OVERVIEW, DOC_OPERATORS, DOC_KERNELS, DOC_MEMORY, DOC_MODULES };

static int write_doc(const char *dir, const char *name, int doc, const struct an_profile *p,
		     const struct out_source *src, int pretty, struct nns_err *err)
{
	struct out_file of;
	struct jsonw w;
	int rc;

	rc = out_file_open(&of, dir, name, err);
	if (rc)
		return rc;
	if (jsonw_init_file(&w, of.f, pretty)) {
		out_file_abort(&of);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", of.path);
	}
	switch (doc) {
	case DOC_OVERVIEW:
		out_json_overview(&w, p, src);
		break;
	case DOC_OPERATORS:
		out_json_operators(&w, p);
		break;
	case DOC_KERNELS:
		out_json_kernels(&w, p);
		break;
	case DOC_MEMORY:
		out_json_memory(&w, p);
		break;
	default:
		out_json_modules(&w, p);
		break;
	}
	rc = jsonw_finish(&w, NULL);
	jsonw_release(&w);
	if (rc) {
		out_file_abort(&of);
		return nns_err_set(err, rc, "%s: cannot write: %s", of.path, nns_strerror(rc));
	}
	return out_file_commit(&of, err);
}

void out_profile_dirname(char *dst, size_t size, const char *worker, const char *span)
{
	char w[OUT_NAME_MAX + 8], s[OUT_NAME_MAX + 8];

	out_sanitize(w, sizeof(w), worker);
	if (span && *span) {
		out_sanitize(s, sizeof(s), span);
		snprintf(dst, size, "%s.%s", w, s);
	} else {
		snprintf(dst, size, "%s", w);
	}
}

int out_write_profile(const char *dir, const struct out_source *src, const struct an_profile *p,
		      const struct out_opts *o, struct nns_err *err)
{
	static const struct {
		const char *file;
		int doc, pretty;
	} docs[] = {
	    {"overview.json", DOC_OVERVIEW, 3}, {"operators.json", DOC_OPERATORS, 2},
	    {"kernels.json", DOC_KERNELS, 2},	{"memory.json", DOC_MEMORY, 4},
	    {"modules.json", DOC_MODULES, 2},
	};
	char sub[2 * OUT_NAME_MAX + 16], path[OUT_PATH_MAX];
	int rc;

	out_profile_dirname(sub, sizeof(sub), src ? src->worker : NULL, src ? src->span : NULL);
	rc = out_join(path, sizeof(path), dir, sub, err);
	if (!rc)
		rc = out_mkdirs(path, err);
	for (size_t i = 0; !rc && i < sizeof(docs) / sizeof(docs[0]); i++)
		rc = write_doc(path, docs[i].file, docs[i].doc, p, src,
			       o && o->pretty_depth ? o->pretty_depth : docs[i].pretty, err);
	if (!rc && o && o->csv)
		rc = out_write_csv(path, p, err);
	if (!rc)
		rc = out_write_extra(path, p, o, err);
	return rc;
}

static int write_small(const char *dir, const char *name, void (*fn)(struct jsonw *, const void *),
		       const void *arg, struct nns_err *err)
{
	struct out_file of;
	struct jsonw w;
	int rc = out_file_open(&of, dir, name, err);

	if (rc)
		return rc;
	if (jsonw_init_file(&w, of.f, 2)) {
		out_file_abort(&of);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", of.path);
	}
	fn(&w, arg);
	rc = jsonw_finish(&w, NULL);
	jsonw_release(&w);
	if (rc) {
		out_file_abort(&of);
		return nns_err_set(err, rc, "%s: cannot write: %s", of.path, nns_strerror(rc));
	}
	return out_file_commit(&of, err);
}

struct dist_arg {
	const struct an_dist *d;
	const char *span;
};

static void dist_fn(struct jsonw *w, const void *arg)
{
	const struct dist_arg *a = arg;

	out_json_dist(w, a->d, a->span);
}

int out_write_dist(const char *dir, const char *file_name, const char *span,
		   const struct an_dist *d, struct nns_err *err)
{
	struct dist_arg a = {d, span};
	int rc = out_mkdirs(dir, err);

	return rc ? rc : write_small(dir, file_name, dist_fn, &a, err);
}

struct diff_arg {
	const struct an_diff *d;
	const char *base, *exp;
};

static void diff_fn(struct jsonw *w, const void *arg)
{
	const struct diff_arg *a = arg;

	out_json_diff(w, a->d, a->base, a->exp);
}

int out_write_diff(const char *path, const struct an_diff *d, const char *base_label,
		   const char *exp_label, struct nns_err *err)
{
	struct diff_arg a = {d, base_label, exp_label};
	char dir[OUT_PATH_MAX];
	const char *slash = strrchr(path, '/');
	int n;

	if (!slash)
		return write_small(".", path, diff_fn, &a, err);
	n = snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return nns_err_set(err, NNS_EINVAL, "%s: path too long", path);
	if (n == 0)
		strcpy(dir, "/");
	return write_small(dir, slash + 1, diff_fn, &a, err);
}
