/*
 * schema_hta.c - HTA's row tables beyond the per-device and per-stream
 * ones of schema_views.c, column by column (schema.h): the critical path's
 * segments (critical_path.json "segments", and its "arrows" as a selection
 * of them), its top events, the trace diff's rows, the launch summaries,
 * the user annotations and the kernels under them, the kernel sequences,
 * the distributed view's stragglers, idle.json's gap statistics and
 * membw.json's series summary. Rows are the analysis's (an_hta.h, an_dist);
 * a segment's event is read through the model (sc_ctx.m). Same conventions
 * as schema_tables.c; keys and units: docs/HTA.md.
 */
#include "output/output.h"
#include "output/schema_int.h"

#include "analysis/an_hta.h"

/* ---- critical path segments (critical_path.json) --------------------------- */

static const struct model_event *seg_event(const struct sc_ctx *x, uint32_t ev)
{
	return x && x->m && ev < x->m->events.n ? &x->m->events.v[ev] : NULL;
}

static void cs_edge(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	v->s = hcp_edge_names[((const struct hcp_seg *)row)->type];
}

static void cs_class(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	v->s = hcp_class_keys[((const struct hcp_seg *)row)->cls];
}

static void cs_name(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	const struct model_event *e = seg_event(x, ((const struct hcp_seg *)row)->ev);

	v->s = e ? out_str(x->m, e->name) : "";
}

static void cs_kind(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	const struct model_event *e = seg_event(x, ((const struct hcp_seg *)row)->ev);

	v->s = e ? model_kind_name(e->kind) : "";
}

/* the pid (c->off 0) or tid (1) of the segment's event's thread; "" when none */
static void cs_thread(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct model_event *e = seg_event(x, ((const struct hcp_seg *)row)->ev);
	const struct model_thread *t;

	v->s = "";
	if (!e || e->thread >= x->m->threads.n)
		return;
	t = &x->m->threads.v[e->thread];
	v->s = out_str(x->m, c->off ? t->tid : t->pid);
}

static void cs_ts(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	const struct model_event *e = seg_event(x, ((const struct hcp_seg *)row)->ev);

	set_us(v, e ? e->ts : 0);
}

static void cs_dur(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	const struct model_event *e = seg_event(x, ((const struct hcp_seg *)row)->ev);

	set_us(v, e ? e->dur : 0);
}

/* "start" or "end": which node of the source / destination event */
static void cs_end(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	v->s = *((const uint8_t *)row + c->off) ? "start" : "end";
}

#define CS(n, ty, un, src, field, title, doc) COL(n, ty, un, src, struct hcp_seg, field, title, doc)

static const struct sc_col seg_cols[] = {
    FNC("edge", SC_TEXT, SC_PLAIN, cs_edge, "Edge", "edge type, HTA's spelling"),
    FNC("class", SC_TEXT, SC_PLAIN, cs_class, "Class", "what the edge's time is (a breakdown key)"),
    FNC("name", SC_TEXT, SC_PLAIN, cs_name, "Event", "the event the edge is attributed to"),
    FNC("kind", SC_TEXT, SC_PLAIN, cs_kind, "Kind", "its kind"),
    FCOL("id", SC_INT, SC_PLAIN, sc_u32_at, struct hcp_seg, ev, "Id", "its event id"),
    {"pid", SC_TEXT, SC_PLAIN, SC_F_FN, 0, cs_thread, "PID", "its process"},
    {"tid", SC_TEXT, SC_PLAIN, SC_F_FN, 1, cs_thread, "Thread / stream", "its thread or stream"},
    FNC("ts_us", SC_REAL, SC_US, cs_ts, "Start µs", "its start, µs on the trace clock"),
    FNC("dur_us", SC_REAL, SC_US, cs_dur, "Dur µs", "its duration, µs"),
    CS("from_us", SC_REAL, SC_US, SC_F_NS, from, "From µs", "source node time, µs"),
    CS("to_us", SC_REAL, SC_US, SC_F_NS, to, "To µs", "destination node time, µs"),
    CS("weight_us", SC_REAL, SC_US, SC_F_NS, weight, "Weight µs",
       "HTA's edge weight (0 for dependencies), µs"),
    FCOL("src_id", SC_INT, SC_PLAIN, sc_u32_at, struct hcp_seg, src_ev, "Source",
	 "source event id"),
    FCOL("dst_id", SC_INT, SC_PLAIN, sc_u32_at, struct hcp_seg, dst_ev, "Destination",
	 "destination event id"),
    FCOL("src", SC_TEXT, SC_PLAIN, cs_end, struct hcp_seg, src_is_start, "Source node",
	 "the source event's start or end"),
    FCOL("dst", SC_TEXT, SC_PLAIN, cs_end, struct hcp_seg, dst_is_start, "Destination node",
	 "the destination event's start or end"),
};

const struct sc_table sc_critpath_segments = {"critpath_segments",
					      "HTA critical path: its edges in path order",
					      seg_cols, NCOLS(seg_cols), sizeof(struct hcp_seg)};

/* ---- critical path top events (aux = hcp_result) --------------------------- */

static void ct_kind(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	v->s = model_kind_name(((const struct sc_critpath_top *)row)->kind);
}

static void ct_class(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	v->s = hcp_class_keys[((const struct sc_critpath_top *)row)->cls];
}

static void ct_share(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	const struct hcp_result *r = x->aux;
	int64_t w = ((const struct sc_critpath_top *)row)->w;

	v->d = r->total > 0 ? (double)w / (double)r->total : 0;
}

static const struct sc_col top_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_STRID, struct sc_critpath_top, name, "Event", "event name"),
    FNC("kind", SC_TEXT, SC_PLAIN, ct_kind, "Kind", "event kind"),
    FNC("class", SC_TEXT, SC_PLAIN, ct_class, "Class", "what the time is (a breakdown key)"),
    COL("edges", SC_INT, SC_COUNT, SC_F_I64, struct sc_critpath_top, n, "Edges",
	"path edges of these events"),
    COL("time_us", SC_REAL, SC_US, SC_F_NS, struct sc_critpath_top, w, "Time µs",
	"their summed weight on the path, µs"),
    FNC("share", SC_REAL, SC_RATIO, ct_share, "Share", "time_us / the path's total"),
};

const struct sc_table sc_critpath_top = {"critpath_top",
					 "HTA critical path: events with most time on it", top_cols,
					 NCOLS(top_cols), sizeof(struct sc_critpath_top)};

/* ---- trace diff rows (the diff document's trace_diff) ----------------------- */

static void td_change(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = hcp_change_names[((const struct hcp_tdiff_row *)row)->change];
}

static void td_dcount(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct hcp_tdiff_row *r = row;

	v->i = r->exp_count - r->base_count;
}

static void td_ddur(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	const struct hcp_tdiff_row *r = row;

	set_us(v, r->exp_dur - r->base_dur);
}

#define TD(n, ty, un, src, field, title, doc)                                                      \
	COL(n, ty, un, src, struct hcp_tdiff_row, field, title, doc)

static const struct sc_col tdiff_cols[] = {
    TD("name", SC_TEXT, SC_PLAIN, SC_F_PSTR, name, "Name", "operator or kernel name"),
    FNC("change", SC_TEXT, SC_PLAIN, td_change, "Change",
	"added, removed, increased, decreased or unchanged (count)"),
    TD("base_count", SC_INT, SC_COUNT, SC_F_I64, base_count, "Base count",
       "occurrences in the base's step"),
    TD("exp_count", SC_INT, SC_COUNT, SC_F_I64, exp_count, "Exp count",
       "occurrences in the experiment's step"),
    FNC("diff_count", SC_INT, SC_COUNT, td_dcount, "Δ count", "exp_count - base_count"),
    TD("base_duration_us", SC_REAL, SC_US, SC_F_NS, base_dur, "Base µs",
       "summed duration in the base, µs"),
    TD("exp_duration_us", SC_REAL, SC_US, SC_F_NS, exp_dur, "Exp µs",
       "summed duration in the experiment, µs"),
    FNC("diff_duration_us", SC_REAL, SC_US, td_ddur, "Δ µs", "exp_duration_us - base_duration_us"),
};

const struct sc_table sc_trace_diff = {"trace_diff",
				       "HTA trace diff: operators or kernels of one step each",
				       tdiff_cols, NCOLS(tdiff_cols), sizeof(struct hcp_tdiff_row)};

/* ---- launch summaries (launches.json summary_us) ---------------------------- */

#define LD(n, src, field, title, doc)                                                              \
	COL(n, SC_REAL, SC_US, src, struct hta_dist, field, title, doc)

static const struct sc_col ldist_cols[] = {
    COL("count", SC_INT, SC_COUNT, SC_F_I64, struct hta_dist, n, "Count", "launches"),
    LD("sum", SC_F_NS, sum, "Sum µs", "summed, µs"),
    LD("mean", SC_F_DNS, mean, "Mean µs", "mean, µs"),
    LD("min", SC_F_NS, min, "Min µs", "minimum, µs"),
    LD("p50", SC_F_DNS, p50, "p50 µs", "median, µs"),
    LD("p90", SC_F_DNS, p90, "p90 µs", "90th percentile, µs"),
    LD("p99", SC_F_DNS, p99, "p99 µs", "99th percentile, µs"),
    LD("max", SC_F_NS, max, "Max µs", "maximum, µs"),
};

const struct sc_table sc_launch_dist = {"launch_summary",
					"HTA launch statistics: one duration or delay", ldist_cols,
					NCOLS(ldist_cols), sizeof(struct hta_dist)};

/* ---- user annotations (annotations.json) ------------------------------------ */

static void an_mean(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	const struct hta_anno_row *r = row;

	set_us_d(v, r->count ? out_us(r->sum) / (double)r->count : 0.0);
}

#define AN(n, ty, un, src, field, title, doc)                                                      \
	COL(n, ty, un, src, struct hta_anno_row, field, title, doc)

static const struct sc_col anno_cols[] = {
    AN("name", SC_TEXT, SC_PLAIN, SC_F_STRID, name, "Annotation", "annotation name"),
    AN("count", SC_INT, SC_COUNT, SC_F_I64, count, "Count", "annotation events"),
    AN("sum_us", SC_REAL, SC_US, SC_F_NS, sum, "Time µs", "their summed duration, µs"),
    FNC("mean_us", SC_REAL, SC_US, an_mean, "Mean µs", "sum_us / count"),
    AN("kernel_count", SC_INT, SC_COUNT, SC_F_I64, kernel_count, "Kernels",
       "GPU: device events whose innermost annotation it is"),
    AN("kernel_sum_us", SC_REAL, SC_US, SC_F_NS, kernel_sum, "Kernel µs",
       "GPU: their summed duration, µs"),
};

const struct sc_table sc_annotations = {"annotations", "HTA user annotations (CPU or GPU)",
					anno_cols, NCOLS(anno_cols), sizeof(struct hta_anno_row)};

#define AK(n, ty, un, src, field, title, doc)                                                      \
	COL(n, ty, un, src, struct hta_anno_kernel, field, title, doc)

static const struct sc_col anno_kernel_cols[] = {
    AK("name", SC_TEXT, SC_PLAIN, SC_F_STRID, name, "Kernel", "kernel name"),
    AK("count", SC_INT, SC_COUNT, SC_F_I64, count, "Count",
       "its device events under the annotation"),
    AK("sum_us", SC_REAL, SC_US, SC_F_NS, sum, "Time µs", "their summed duration, µs"),
};

const struct sc_table sc_anno_kernels = {"annotation_kernels", "HTA kernels under a GPU annotation",
					 anno_kernel_cols, NCOLS(anno_kernel_cols),
					 sizeof(struct hta_anno_kernel)};

/* ---- kernel sequences (sequences.json) ------------------------------------- */

#define SO(n, ty, un, src, field, title, doc)                                                      \
	COL(n, ty, un, src, struct hta_seq_op, field, title, doc)

static const struct sc_col seq_op_cols[] = {
    SO("operator", SC_TEXT, SC_PLAIN, SC_F_CHARS, query, "Operator", "the operator name asked for"),
    SO("exact", SC_BOOL, SC_PLAIN, SC_F_I32, exact, "Exact",
       "names equal to it (else containing it)"),
    SO("launches", SC_INT, SC_COUNT, SC_F_I64, launches, "Launches",
       "launches under its top-level calls"),
    SO("roots", SC_INT, SC_COUNT, SC_F_I64, roots, "Calls", "its calls at the shallowest depth"),
    SO("patterns_total", SC_INT, SC_COUNT, SC_F_I64, patterns_total, "Patterns",
       "distinct sequences before the top k"),
};

const struct sc_table sc_seq_ops = {"sequence_ops", "HTA kernel sequences: the operators",
				    seq_op_cols, NCOLS(seq_op_cols), sizeof(struct hta_seq_op)};

/* the kernels' names (a list) are written beside, between op and count */
#define SP(n, ty, un, src, field, title, doc)                                                      \
	COL(n, ty, un, src, struct hta_seq_pattern, field, title, doc)

static const struct sc_col seq_pat_cols[] = {
    SP("op", SC_TEXT, SC_PLAIN, SC_F_STRID, op, "Operator", "the root operator's name"),
    SP("count", SC_INT, SC_COUNT, SC_F_I64, count, "Count", "calls with exactly this sequence"),
    SP("gpu_time_us", SC_REAL, SC_US, SC_F_NS, gpu_time, "GPU time",
       "summed duration of its device events, µs"),
    SP("cpu_time_us", SC_REAL, SC_US, SC_F_NS, cpu_time, "CPU time",
       "summed duration of the root operators, µs"),
};

const struct sc_table sc_seq_patterns = {
    "sequence_patterns", "HTA kernel sequences: the patterns of an operator", seq_pat_cols,
    NCOLS(seq_pat_cols), sizeof(struct hta_seq_pattern)};

/* ---- stragglers (distributed.json; aux = an_dist) --------------------------- */

static int is_step_time(const struct hta_straggler *s)
{
	return !strcmp(s->metric, "step_time");
}

static void sg_worker(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct an_dist *d = x->aux;
	uint32_t i = ((const struct hta_straggler *)row)->worker;

	v->s = i < d->workers.n ? d->workers.v[i].name : "";
}

static void sg_unit(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	v->s = is_step_time(row) ? "us" : "step_fraction";
}

/* the value or median at c->off: ns as µs for step_time, a fraction else */
static void sg_scaled(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	double d;

	memcpy(&d, (const char *)row + c->off, sizeof(d));
	v->d = d * (is_step_time(row) ? 1e-3 : 1.0);
}

static const struct sc_col straggler_cols[] = {
    FNC("worker", SC_TEXT, SC_PLAIN, sg_worker, "Worker", "the worker"),
    COL("metric", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct hta_straggler, metric, "Metric",
	"step_time or late_start"),
    FNC("unit", SC_TEXT, SC_PLAIN, sg_unit, "Unit", "us or step_fraction"),
    FCOL("value", SC_REAL, SC_PLAIN, sg_scaled, struct hta_straggler, value, "Value",
	 "the worker's value, in unit"),
    FCOL("median", SC_REAL, SC_PLAIN, sg_scaled, struct hta_straggler, median, "Median",
	 "the median over the workers, in unit"),
    COL("excess", SC_REAL, SC_PLAIN, SC_F_DBL, struct hta_straggler, excess, "Excess",
	"step_time: percent above the median; late_start: value - median"),
};

const struct sc_table sc_stragglers = {"stragglers", "HTA stragglers among the workers",
				       straggler_cols, NCOLS(straggler_cols),
				       sizeof(struct hta_straggler)};

/* ---- idle gaps (idle.json "intervals", one row per gap kind) ---------------- */

#define IG(n, field, title, doc)                                                                   \
	COL(n, SC_REAL, SC_US, SC_F_DNS, struct hta_stats, field, title, doc)

static const struct sc_col gap_cols[] = {
    COL("count", SC_INT, SC_COUNT, SC_F_I64, struct hta_stats, count, "Gaps", "gaps of this kind"),
    IG("mean_us", mean, "Mean µs", "mean gap, µs"),
    IG("min_us", min, "Min µs", "shortest gap, µs"),
    IG("p50_us", p50, "p50 µs", "median gap, µs"),
    IG("p95_us", p95, "p95 µs", "95th percentile, µs"),
    IG("max_us", max, "Max µs", "longest gap, µs"),
};

const struct sc_table sc_idle_gaps = {"idle_gaps", "HTA idle gaps of one kind on a stream",
				      gap_cols, NCOLS(gap_cols), sizeof(struct hta_stats)};

/* ---- a series summary (membw.json "summary", HTA's describe()) -------------- */

#define DS(n, field, doc) COL(n, SC_REAL, SC_PLAIN, SC_F_DBL, struct hta_describe, field, NULL, doc)

static const struct sc_col describe_cols[] = {
    COL("count", SC_INT, SC_COUNT, SC_F_I64, struct hta_describe, count, NULL, "points"),
    DS("mean", mean, "mean"),
    DS("std", std, "sample standard deviation"),
    DS("min", min, "minimum"),
    DS("p25", p25, "25th percentile"),
    DS("p50", p50, "median"),
    DS("p75", p75, "75th percentile"),
    DS("max", max, "maximum"),
};

const struct sc_table sc_describe = {"describe", "HTA summary of a series (describe())",
				     describe_cols, NCOLS(describe_cols),
				     sizeof(struct hta_describe)};
