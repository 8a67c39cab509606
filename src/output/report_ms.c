/*
 * report_ms.c - the MindSpore part of `nnscope report` for a worker that is
 * a MindSpore device (ms_load.h): MindInsight's step-trace summary with the
 * fp_start / bp_end points, and AI Core operator time by type (top N).
 * Other workers print nothing here.
 */
#include "analysis/ms_steptrace.h"
#include "importers/ms_aicore_type.h"
#include "importers/ms_load.h"
#include "importers/ms_st_table.h"
#include "output/report_int.h"
#include "output/table.h"

#include <stdlib.h>
#include <string.h>

static void step_summary(FILE *f, const struct ms_src *s, const struct report_opts *o)
{
	struct ms_st_table t;
	struct ms_st_summary sum;
	struct nns_err err;
	char fp[256], bp[256];
	int rc;

	nns_err_clear(&err);
	rc = ms_st_table_load(&t, s, &err);
	if (rc == NNS_ENOTFOUND)
		return;
	rp_section(f, o, "MindSpore step trace (MindInsight's summary, ms)");
	if (rc || ms_st_summarise_table(&t, &sum, &err)) {
		fprintf(f, "  (%s)\n", err.msg);
		if (!rc)
			ms_st_table_release(&t);
		return;
	}
	ms_st_table_release(&t);
	fprintf(f, "  Steps %zu, average step %.4f ms\n", sum.total_steps, sum.total_ms);
	fprintf(f, "  Iteration interval %10.4f ms  %6.2f%%\n", sum.interval_ms, sum.interval_pct);
	fprintf(f, "  Forward + backward %10.4f ms  %6.2f%%\n", sum.fp_bp_ms, sum.fp_bp_pct);
	fprintf(f, "  Tail               %10.4f ms  %6.2f%%\n", sum.tail_ms, sum.tail_pct);
	if (ms_point_info_load(s, fp, bp, sizeof(fp), &err) == NNS_OK)
		fprintf(f, "  fp_start %s, bp_end %s\n", fp, bp);
}

static void op_types(FILE *f, const struct ms_src *s, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Op type", TB_LEFT, TB_TRUNC_END},
	    {"Total µs", TB_RIGHT, 0},
	    {"Calls", TB_RIGHT, 0},
	    {"Avg µs", TB_RIGHT, 0},
	    {"Share", TB_RIGHT, 0},
	};
	struct ms_at at;
	struct nns_err err;
	struct table tb;
	char *buf, title[96], b[48];
	size_t n, shown;
	int rc;

	memset(&at, 0, sizeof(at));
	nns_err_clear(&err);
	rc = ms_src_read(s, "aicore_intermediate_", "_type.csv", (size_t)1 << 30, &buf, &n, &err);
	if (rc == NNS_ENOTFOUND)
		return;
	snprintf(title, sizeof(title), "MindSpore AI Core operator time by type (top %d)", o->top);
	rp_section(f, o, title);
	if (rc == NNS_OK) {
		rc = ms_at_parse(&at, buf, n, &err);
		free(buf);
	}
	if (rc) {
		fprintf(f, "  (aicore_intermediate_%d_type.csv: %s)\n", s->dev, err.msg);
		return;
	}
	shown = at.rows.n < (size_t)o->top ? at.rows.n : (size_t)o->top;
	tb_init(&tb, cols, 5);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_at_row *r = &at.rows.v[i];

		tb_cell(&tb, "%s", r->kernel_type);
		tb_cell(&tb, "%.2f", r->total_time_us);
		tb_cell(&tb, "%s", tb_fmt_int(b, sizeof(b), r->execution_frequency));
		tb_cell(&tb, "%.3f", r->avg_time_us);
		/* MindSpore's own share (of all AI Core time), not of these rows */
		tb_cell(&tb, "%s", tb_fmt_pct(b, sizeof(b), r->total_percent / 10000.0));
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	if (shown < at.rows.n)
		fprintf(f, "  … %zu more types\n", at.rows.n - shown);
	ms_at_release(&at);
}

void rp_view_mindspore(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	struct ms_src s;

	if (!ms_model_src(p->m, &s))
		return;
	step_summary(f, &s, o);
	op_types(f, &s, o);
}
