/*
 * json_out.c - the per-worker/span JSON files of SPEC §4 (overview,
 * operators, kernels, memory, plus modules) and the per-run distributed and
 * diff documents. Contract keys are written exactly as the spec names
 * them; extra keys are documented in docs/CLI.md.
 */
#include "output/output.h"
#include "output/ms_host_out.h"
#include "output/outfile.h"
#include "output/schema.h"
#include "common/fs.h"

#include <stdio.h>
#include <string.h>

/* ---- overview.json ----------------------------------------------------- */

/* "key": [[time_us, value], ...] */
static void write_points(struct jsonw *w, const char *key, const struct an_point *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, out_us(v[i].ts));
		jsonw_double(w, v[i].value);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
}

static void write_gpu(struct jsonw *w, const struct an_profile *p, const struct an_gpu *g)
{
	static const char *const always[] = {
	    "id",
	    "name",
	    "memory_bytes",
	    "compute_capability",
	    "utilization",
	    "sm_efficiency",
	    "achieved_occupancy",
	    "tensor_core_ratio",
	    "kernel_us",
	    NULL,
	};
	static const char *const device[] = {"num_sms", "max_threads_per_sm", NULL};
	const struct sc_ctx x = {p->m, 0, NULL};

	jsonw_obj_begin(w);
	sc_json_fields(w, &sc_gpus, g, &x, always);
	/* the device's own figures only when the trace describes it */
	if (p->m && model_device_by_id(p->m, g->id))
		sc_json_fields(w, &sc_gpus, g, &x, device);
	/* a MindSpore device says what it is ("NPU" for Ascend) */
	if (p->m && model_meta_get(p->m, "device_kind"))
		jsonw_kstr(w, "kind", an_device_kind(p->m));
	write_points(w, "gpu_util_timeline", g->util_buckets.v, g->util_buckets.n);
	/* the elementary SM-efficiency ranges can number millions; the file
	 * carries them averaged over the utilization buckets */
	write_points(w, "sm_efficiency_timeline", g->sm_buckets.v, g->sm_buckets.n);
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
	jsonw_kdouble(w, "device_us", a->device_ns / 1e3);
	jsonw_kdouble(w, "device_unattributed_us", a->device_unattributed_ns / 1e3);
	jsonw_kdouble(w, "device_unattributed_pct",
		      a->device_ns ? 100.0 * a->device_unattributed_ns / a->device_ns : 0);
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
		jsonw_kstr(w, "note", p->m->diag.note[0] ? p->m->diag.note : NULL);
		jsonw_kint(w, "odd_spots", p->m->diag.notes);
		jsonw_kstr(w, "first_odd_spot",
			   p->m->diag.first_note[0] ? p->m->diag.first_note : NULL);
		jsonw_kint(w, "bytes_read", p->m->diag.bytes_read);
		jsonw_kint(w, "events", (int64_t)p->m->events.n);
		jsonw_kint(w, "events_lost", p->m->diag.events_lost);
		jsonw_kint(w, "ranges_closed", p->m->diag.ranges_closed);
		write_categories(w, p->m);
	}
	jsonw_kint(w, "partial_overlaps", p->tree.partial_overlaps);
	jsonw_kint(w, "unmatched_runtimes", p->tree.unmatched_runtimes);
	jsonw_kint(w, "negative_self_clamped", p->tree.negative_self);
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
	sc_json_rows(w, "steps", &sc_steps, ov->steps.v, ov->steps.n, NULL, NULL);

	jsonw_key(w, "average");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "total_us", ov->avg_total / 1000.0);
	for (int r = 0; r < AN_NROLES; r++)
		jsonw_kdouble(w, an_role_keys[r], ov->avg[r] / 1000.0);
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
	if (p->m && model_meta_get(p->m, "device_kind")) {
		jsonw_kstr(w, "device_kind", an_device_kind(p->m));
		if (an_device_is_npu(p->m))
			jsonw_kstr(w, "device_vendor", "Ascend");
		if (model_meta_get(p->m, "steps_from"))
			jsonw_kstr(w, "steps_from", model_meta_get(p->m, "steps_from"));
	}
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

void out_json_operators(struct jsonw *w, const struct an_profile *p)
{
	const struct an_ops *o = &p->ops;
	const struct sc_ctx x = {p->m, 0, NULL};

	jsonw_obj_begin(w);
	jsonw_kstr(w, "sort_by", o->sort_by_device ? "device_self_us" : "host_self_us");
	for (int g = 0; g < SC_OP_GROUPS; g++) {
		size_t n;
		const struct an_op_row *rows = sc_op_group_rows(o, g, &n);

		sc_json_rows(w, sc_op_groups[g].key, &sc_operators, rows, n, &x,
			     sc_op_groups[g].cols);
	}
	jsonw_obj_end(w);
}

/* ---- kernels.json ------------------------------------------------------ */

void out_json_kernels(struct jsonw *w, const struct an_profile *p)
{
	const struct an_kernels *k = &p->kernels;
	const struct sc_ctx x = {p->m, 0, NULL};

	jsonw_obj_begin(w);
	jsonw_kdouble(w, "total_us", out_us(k->total_time));
	if (k->tc_used_ratio < 0) /* no NVIDIA tensor cores possible: unknown */
		jsonw_knull(w, "tc_used_ratio");
	else
		jsonw_kdouble(w, "tc_used_ratio", k->tc_used_ratio);
	for (int g = 0; g < SC_KERNEL_GROUPS; g++) {
		size_t n;
		const struct an_kernel_row *rows = sc_kernel_group_rows(k, g, &n);

		sc_json_rows(w, sc_kernel_groups[g].key, &sc_kernels, rows, n, &x,
			     sc_kernel_groups[g].cols);
	}
	jsonw_obj_end(w);
}

/* ---- memory.json ------------------------------------------------------- */

static void write_mem_device(struct jsonw *w, const struct model *m, const struct an_mem_device *d)
{
	static const char *const ev_cols[] = {
	    "op", "op_name", "parent_op", "size", "alloc_us", "free_us", "duration_us", NULL,
	};
	const struct sc_ctx x = {m, 0, d};
	int64_t t0 = m ? m->min_ts : 0;

	jsonw_key(w, d->name[0] ? d->name : "?");
	jsonw_obj_begin(w);
	jsonw_kint(w, "device_type", d->device_type);
	jsonw_kint(w, "device_id", d->device_id);
	if (d->peak_allocated < 0)
		jsonw_knull(w, "peak_allocated_bytes");
	else
		jsonw_kint(w, "peak_allocated_bytes", d->peak_allocated);
	sc_json_rows(w, "ops", &sc_memory_ops, d->ops.v, d->ops.n, &x, sc_memory_op_cols);

	/* the curve stays compact: [time_us, allocated, reserved] triples */
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
	sc_json_rows(w, "events", &sc_memory_allocs, d->events.v, d->events.n, &x, ev_cols);
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
	const struct sc_ctx x = {p->m, 0, &p->modules};

	jsonw_obj_begin(w);
	sc_json_rows(w, "modules", &sc_modules, p->modules.rows.v, p->modules.rows.n, &x, NULL);
	jsonw_obj_end(w);
}

/* ---- distributed.json -------------------------------------------------- */

void out_json_dist(struct jsonw *w, const struct an_dist *d, const char *span)
{
	const struct sc_ctx x = {NULL, 0, d};

	jsonw_obj_begin(w);
	jsonw_kstr(w, "span", span && *span ? span : NULL);
	jsonw_kbool(w, "available", d->available);
	jsonw_kstr(w, "note", d->note);
	sc_json_rows(w, "workers", &sc_dist_workers, d->workers.v, d->workers.n, &x, NULL);
	sc_json_rows(w, "comm_ops", &sc_comm_ops, d->comm_ops.v, d->comm_ops.n, &x, NULL);
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
		jsonw_kdouble(w, an_role_keys[r], v[r] / 1000.0);
	jsonw_obj_end(w);
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
	sc_json_rows(w, "ops", &sc_diff_ops, d->ops.v, d->ops.n, NULL, NULL);
	out_json_trace_diff(w, d);
	jsonw_obj_end(w);
}

/* ---- files ------------------------------------------------------------- */

enum { DOC_OVERVIEW, DOC_OPERATORS, DOC_KERNELS, DOC_MEMORY, DOC_MODULES };

struct doc_arg {
	int doc;
	const struct an_profile *p;
	const struct out_source *src;
};

static void doc_fn(struct jsonw *w, const void *arg)
{
	const struct doc_arg *a = arg;

	switch (a->doc) {
	case DOC_OVERVIEW:
		out_json_overview(w, a->p, a->src);
		break;
	case DOC_OPERATORS:
		out_json_operators(w, a->p);
		break;
	case DOC_KERNELS:
		out_json_kernels(w, a->p);
		break;
	case DOC_MEMORY:
		out_json_memory(w, a->p);
		break;
	default:
		out_json_modules(w, a->p);
		break;
	}
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

int out_write_views(const char *dir, const struct out_source *src, const struct an_profile *p,
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
	int rc = NNS_OK;

	for (size_t i = 0; !rc && i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct doc_arg a = {docs[i].doc, p, src};

		rc = out_json_file(dir, docs[i].file,
				   o && o->pretty_depth ? o->pretty_depth : docs[i].pretty, doc_fn,
				   &a, err);
	}
	if (!rc && o && o->csv)
		rc = out_write_csv(dir, p, err);
	if (!rc)
		rc = out_write_extra(dir, p, o, err);
	return rc;
}

int out_write_profile(const char *dir, const struct out_source *src, const struct an_profile *p,
		      const struct out_opts *o, struct nns_err *err)
{
	char sub[2 * OUT_NAME_MAX + 16], path[OUT_PATH_MAX];
	int rc;

	out_profile_dirname(sub, sizeof(sub), src ? src->worker : NULL, src ? src->span : NULL);
	rc = out_join(path, sizeof(path), dir, sub, err);
	if (!rc)
		rc = fs_mkdirs(path, err);
	if (!rc)
		rc = out_write_views(path, src, p, o, err);
	/* MindSpore's host_info outputs sit in <out>/host_info, as MindSpore's do */
	return rc ? rc : out_write_ms_host(dir, p, err);
}

static int write_small(const char *dir, const char *name, void (*fn)(struct jsonw *, const void *),
		       const void *arg, struct nns_err *err)
{
	return out_json_file(dir, name, 2, fn, arg, err);
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
	int rc = fs_mkdirs(dir, err);

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
