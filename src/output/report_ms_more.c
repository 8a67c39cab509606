/*
 * report_ms_more.c - the MindSpore tables of `nnscope report` beyond the
 * step trace and AI Core types (report_int.h, chosen by report_ms.c): AI
 * Core by operator, AI CPU, the GPU-mode and host CPU op tables, MindData
 * (queue verdicts, pipeline, proposals), FLOPs, dynamic shape. Every table
 * writes values already read into the ms_profile (an_ms.h); top-N tables are
 * sorted by their time column descending (ties: file order). With full set
 * (the view was named) an absent file prints one line saying so.
 */
#include "analysis/an_ms.h"
#include "output/report_int.h"
#include "output/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t top_of(size_t n, const struct report_opts *o)
{
	return n < (size_t)o->top ? n : (size_t)o->top;
}

static void more(FILE *f, size_t shown, size_t n, const char *what)
{
	if (shown < n)
		fprintf(f, "  … %zu more %s\n", n - shown, what);
}

static void absent(FILE *f, int full, const char *files, int dev)
{
	if (full)
		fprintf(f, "\n(no %s of device %d)\n", files, dev);
}

/* ---- AI Core by operator --------------------------------------------------- */

void rp_ms_op_detail(FILE *f, const struct ms_profile *mp, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Operator", TB_LEFT, TB_TRUNC_MIDDLE},
	    {"Type", TB_LEFT, TB_TRUNC_END},
	    {"Avg µs", TB_RIGHT, 0},
	    {"Calls", TB_RIGHT, 0},
	};
	struct table tb;
	char title[96], b[48];
	size_t shown;

	if (mp->ad_part.rc == NNS_ENOTFOUND) {
		absent(f, 1, "aicore_intermediate_<dev>_detail.csv", mp->src.dev);
		return;
	}
	snprintf(title, sizeof(title), "MindSpore AI Core operators by average time (top %d)",
		 o->top);
	rp_section(f, o, title);
	if (mp->ad_part.rc) {
		fprintf(f, "  (%s)\n", mp->ad_part.named);
		return;
	}
	shown = top_of(mp->ad.rows.n, o); /* ms_ad rows are sorted by avg already */
	tb_init(&tb, cols, 4);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_ad_row *r = &mp->ad.rows.v[i];

		tb_cell(&tb, "%s", r->op_name);
		tb_cell(&tb, "%s", r->kernel_type);
		tb_cell(&tb, "%.3f", r->avg_execution_time_us);
		tb_cell(&tb, "%s", tb_fmt_int(b, sizeof(b), r->execution_frequency));
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	more(f, shown, mp->ad.rows.n, "operators");
}

/* ---- AI CPU ------------------------------------------------------------------ */

void rp_ms_aicpu(FILE *f, const struct ms_profile *mp, int full, const struct report_opts *o)
{
	static const struct tb_col tcols[] = {
	    {"AI CPU type", TB_LEFT, TB_TRUNC_END},
	    {"Total µs", TB_RIGHT, 0},
	    {"Calls", TB_RIGHT, 0},
	    {"Share", TB_RIGHT, 0},
	};
	static const struct tb_col ocols[] = {
	    {"AI CPU kernel", TB_LEFT, TB_TRUNC_MIDDLE},
	    {"Avg µs", TB_RIGHT, 0},
	    {"Dispatch µs", TB_RIGHT, 0},
	    {"Calls", TB_RIGHT, 0},
	};
	const struct ms_aicpu *a = &mp->aicpu;
	struct table tb;
	char title[96], b[48];
	size_t shown;

	if (mp->aicpu_rc == NNS_OK && a->types.n == 0) {
		absent(f, full, "aicpu_intermediate_<dev>.csv", mp->src.dev);
		return;
	}
	snprintf(title, sizeof(title), "MindSpore AI CPU operator time by type (top %d)", o->top);
	rp_section(f, o, title);
	if (mp->aicpu_rc) {
		fprintf(f, "  (%s)\n", mp->aicpu_err.msg);
		return;
	}
	shown = top_of(a->types.n, o);
	tb_init(&tb, tcols, 4);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_aicpu_type *t = &a->types.v[i];

		tb_cell(&tb, "%s", a->s.v + t->type);
		tb_cell(&tb, "%.3f", t->total_time_us);
		tb_cell(&tb, "%s", tb_fmt_int(b, sizeof(b), t->execution_frequency));
		tb_cell(&tb, "%s", tb_fmt_pct(b, sizeof(b), t->percent / 100.0));
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	more(f, shown, a->types.n, "types");
	if (!full)
		return;
	snprintf(title, sizeof(title), "MindSpore AI CPU kernels (top %d)", o->top);
	rp_section(f, o, title);
	shown = top_of(a->ops.n, o);
	tb_init(&tb, ocols, 4);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_aicpu_op *t = &a->ops.v[i];

		tb_cell(&tb, "%s", a->s.v + t->name);
		tb_cell(&tb, "%.3f", t->avg_execution_time_us);
		tb_cell(&tb, "%.3f", t->avg_dispatch_time_us);
		tb_cell(&tb, "%s", tb_fmt_int(b, sizeof(b), t->execution_frequency));
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	more(f, shown, a->ops.n, "kernels");
}

/* ---- GPU-mode and host CPU op tables ---------------------------------------- */

/* One ms_optab, top N rows by its time column, every column. */
static void optab(FILE *f, const struct ms_optabs *a, int k, const char *title,
		  const struct report_opts *o)
{
	const struct ms_optab *t = &a->t[k];
	const struct ms_ot_spec *sp = &ms_ot_specs[k];
	struct tb_col cols[MS_OT_MAX_COLS];
	struct rp_key *keys;
	struct table tb;
	char full_title[128], b[48];
	size_t shown;

	snprintf(full_title, sizeof(full_title), "%s (top %d by %s)", title, o->top,
		 sp->cols[sp->time_col].name);
	rp_section(f, o, full_title);
	if (a->rc[k]) {
		fprintf(f, "  (%s)\n", a->err[k].msg);
		return;
	}
	keys = malloc((t->rows ? t->rows : 1) * sizeof(*keys));
	if (!keys) {
		fprintf(f, "  (out of memory)\n");
		return;
	}
	for (size_t r = 0; r < t->rows; r++) {
		/* ns-like integer key: µs × 1000 keeps three decimals */
		keys[r].key = (int64_t)llround(ms_optab_num(t, r, sp->time_col) * 1000.0);
		keys[r].idx = r;
	}
	rp_sort_desc(keys, t->rows);
	for (int c = 0; c < sp->ncols; c++) {
		cols[c].title = sp->cols[c].name;
		cols[c].align = sp->cols[c].conv == MS_OT_STR ? TB_LEFT : TB_RIGHT;
		cols[c].trunc = sp->cols[c].conv == MS_OT_STR ? TB_TRUNC_MIDDLE : TB_TRUNC_NONE;
	}
	shown = top_of(t->rows, o);
	tb_init(&tb, cols, sp->ncols);
	for (size_t i = 0; i < shown; i++) {
		size_t r = keys[i].idx;

		for (int c = 0; c < sp->ncols; c++) {
			if (sp->cols[c].conv == MS_OT_STR)
				tb_cell(&tb, "%s", ms_optab_str(t, r, c));
			else if (sp->cols[c].conv == MS_OT_INT)
				tb_cell(&tb, "%s",
					tb_fmt_int(b, sizeof(b), (int64_t)ms_optab_num(t, r, c)));
			else
				tb_cell(&tb, "%.6g", ms_optab_num(t, r, c));
		}
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	more(f, shown, t->rows, "rows");
	free(keys);
}

void rp_ms_optabs(FILE *f, const struct ms_profile *mp, int gpu, int full,
		  const struct report_opts *o)
{
	const struct ms_optabs *a = &mp->optabs;
	int first = gpu ? MS_OT_GPU_TYPE : MS_OT_CPU_TYPE;
	int last = gpu ? MS_OT_GPU_ACTIVITY : MS_OT_CPU_DETAIL;
	static const char *const titles[MS_OT_N] = {
	    "MindSpore GPU operator time by type",   "MindSpore GPU operators",
	    "MindSpore GPU kernels (CUDA activity)", "MindSpore host CPU operator time by type",
	    "MindSpore host CPU operators",
	};

	if (!ms_optabs_any(a, first, last)) {
		absent(f, full,
		       gpu ? "gpu_op_type_info / gpu_op_detail_info / gpu_activity_data csv"
			   : "cpu_op_type_info / cpu_op_detail_info csv",
		       mp->src.dev);
		return;
	}
	for (int k = first; k <= (full ? last : first); k++)
		if (a->rc[k] != NNS_ENOTFOUND)
			optab(f, a, k, titles[k], o);
}

/* ---- MindData ---------------------------------------------------------------- */

static const char *status(enum ms_md_status s)
{
	const char *n = ms_md_status_name(s);

	return n ? n : "-";
}

void rp_ms_minddata(FILE *f, const struct ms_profile *mp, int full, const struct report_opts *o)
{
	const struct ms_md_result *r = &mp->md_result;
	const struct ms_md_queue_summary *q = &r->sum;
	const struct ms_md_pipeline *pl = &mp->md.pl;
	int any = q->present || pl->present || r->props.v.n || mp->md.nerr;

	if (!any) {
		absent(f, full,
		       "MindData files (device_queue_profiling, minddata_pipeline_raw ...)",
		       mp->src.dev);
		return;
	}
	rp_section(f, o, "MindSpore data preparation (MindData)");
	for (int i = 0; i < mp->md.nerr; i++)
		fprintf(f, "  (%s)\n", mp->md.errors[i].msg);
	if (q->present) {
		fprintf(f, "  Device queue: %zu records, %zu empty, %zu full\n", q->dq_total,
			q->dq_empty, q->dq_full);
		if (q->has_get_next)
			fprintf(f, "  Chip queue (GetNext): %zu records, %zu empty\n", q->gn_total,
				q->gn_empty);
		fprintf(f, "  data_process %s, data_transmission %s, device_queue_warning %s\n",
			status(q->data_process), status(q->data_transmission),
			status(q->device_queue_warning));
	}
	if (full && pl->present) {
		static const struct tb_col cols[] = {
		    {"Op id", TB_RIGHT, 0},	   {"Op type", TB_LEFT, TB_TRUNC_END},
		    {"Workers", TB_RIGHT, 0},	   {"Queue avg", TB_RIGHT, 0},
		    {"Queue length", TB_RIGHT, 0}, {"Usage", TB_RIGHT, 0},
		    {"Parent", TB_RIGHT, 0},
		};
		struct table tb;
		char b[48];

		fprintf(f, "  Pipeline (%zu ops):\n", pl->ops.n);
		tb_init(&tb, cols, 7);
		for (size_t i = 0; i < pl->ops.n; i++) {
			const struct ms_md_op *op = &pl->ops.v[i];

			tb_cell(&tb, "%lld", (long long)op->op_id);
			tb_cell(&tb, "%s", op->op_type);
			tb_cell(&tb, "%lld", (long long)op->num_workers);
			tb_cell(&tb, "%s",
				op->has_avg ? (snprintf(b, sizeof(b), "%.4g", op->avg), b) : "-");
			if (op->has_length)
				tb_cell(&tb, "%lld", (long long)op->length);
			else
				tb_cell(&tb, "-");
			if (op->has_usage)
				tb_cell(&tb, "%s", tb_fmt_pct(b, sizeof(b), op->usage));
			else
				tb_cell(&tb, "-");
			if (op->has_parent)
				tb_cell(&tb, "%lld", (long long)op->parent_id);
			else
				tb_cell(&tb, "-");
		}
		tb_print(&tb, f, o->width, 4, o->color);
		tb_release(&tb);
	}
	for (size_t i = 0; i < r->props.v.n; i++) {
		const struct ms_md_proposal *p = &r->props.v.v[i];

		rp_wrap(f, p->text, o->width, "  - ", 4);
	}
}

/* ---- FLOPs ------------------------------------------------------------------- */

void rp_ms_flops(FILE *f, const struct ms_profile *mp, int full, const struct report_opts *o)
{
	const struct ms_flops *fl = &mp->flops;
	struct rp_key *keys;
	size_t shown;

	if (mp->flops_rc == NNS_OK && !fl->has_summary && !fl->has_ops) {
		absent(f, full, "flops_summary_<dev>.json / flops_<dev>.txt", mp->src.dev);
		return;
	}
	rp_section(f, o, "MindSpore FLOPs");
	if (mp->flops_rc)
		fprintf(f, "  (%s)\n", mp->flops_err.msg);
	if (fl->has_summary)
		fprintf(f, "  %.3f MFLOPs, %.3f GFLOPS, utilization %.2f %%\n", fl->sum.mflops,
			fl->sum.gflops, fl->sum.util_pct);
	if (!full || !fl->has_ops)
		return;
	keys = malloc((fl->ops.n ? fl->ops.n : 1) * sizeof(*keys));
	if (!keys)
		return;
	for (size_t i = 0; i < fl->ops.n; i++) {
		const struct ms_flops_op *op = &fl->ops.v[i];
		double m = !isnan(op->mflops) ? op->mflops
					      : (isnan(op->mflops_cube) ? 0 : op->mflops_cube) +
						    (isnan(op->mflops_vec) ? 0 : op->mflops_vec);

		keys[i].key = (int64_t)llround(m * 1000.0);
		keys[i].idx = i;
	}
	rp_sort_desc(keys, fl->ops.n);
	{
		static const struct tb_col cols[] = {
		    {"Operator", TB_LEFT, TB_TRUNC_MIDDLE},
		    {"MFLOPs", TB_RIGHT, 0},
		};
		struct table tb;

		shown = top_of(fl->ops.n, o);
		fprintf(f, "  Operators by MFLOPs (top %d):\n", o->top);
		tb_init(&tb, cols, 2);
		for (size_t i = 0; i < shown; i++) {
			const struct ms_flops_op *op = &fl->ops.v[keys[i].idx];

			tb_cell(&tb, "%s", fl->names.v + op->name);
			tb_cell(&tb, "%.3f", (double)keys[i].key / 1000.0);
		}
		tb_print(&tb, f, o->width, 4, o->color);
		tb_release(&tb);
		more(f, shown, fl->ops.n, "operators");
	}
	free(keys);
}

/* ---- dynamic shape ------------------------------------------------------------ */

void rp_ms_dynshape(FILE *f, const struct ms_profile *mp, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Step", TB_RIGHT, 0},     {"Operator type", TB_LEFT, TB_TRUNC_END},
	    {"Total µs", TB_RIGHT, 0}, {"Calls", TB_RIGHT, 0},
	    {"Avg µs", TB_RIGHT, 0},
	};
	const struct ms_ds *d = &mp->ds;
	const struct ms_ds_series *s = &d->op_types;
	struct table tb;
	size_t shown;

	if (mp->ds_rc == NNS_OK && !d->has) {
		absent(f, 1, "dynamic_shape_info_<dev>.json", mp->src.dev);
		return;
	}
	rp_section(f, o, "MindSpore dynamic shape: operator time by type and step");
	if (mp->ds_rc) {
		fprintf(f, "  (%s)\n", mp->ds_err.msg);
		return;
	}
	fprintf(f, "  %zu operator rows, %zu kernel rows, %zu steps\n", d->ops.n, d->kernels.n,
		s->steps.n);
	shown = top_of(s->cells.n, o);
	tb_init(&tb, cols, 5);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_ds_cell *c = &s->cells.v[i];

		tb_cell(&tb, "%ld", c->step < s->steps.n ? s->steps.v[c->step] : -1L);
		tb_cell(&tb, "%s", c->type < s->types.n ? d->s.v + s->types.v[c->type] : "?");
		tb_cell(&tb, "%.3f", c->total_us);
		tb_cell(&tb, "%ld", c->calls);
		tb_cell(&tb, "%.3f", c->avg_us);
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	more(f, shown, s->cells.n, "rows (ms_dynshape.json has them all)");
}
