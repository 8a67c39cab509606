/*
 * report_ms.c - the MindSpore part of `nnscope report` for a worker that is
 * a MindSpore device (p->ms, an_ms.h): MindInsight's step-trace summary with
 * the fp_start / bp_end points, AI Core operator time by type (top N), and
 * the choice of the other tables (report_ms_more.c) by view. The default
 * view (overview) prints what MindInsight's summary page shows: step trace,
 * op time by type (AI Core, AI CPU, GPU, host CPU), the MindData queue
 * verdicts with their proposals, the FLOPs summary. Other workers print
 * nothing here.
 */
#include "analysis/an_ms.h"
#include "output/report_int.h"
#include "output/table.h"

static void step_summary(FILE *f, const struct ms_profile *mp, const struct report_opts *o)
{
	const struct ms_st_summary *sum = &mp->sum;

	if (mp->st_part.rc == NNS_ENOTFOUND)
		return;
	rp_section(f, o, "MindSpore step trace (MindInsight's summary, ms)");
	if (mp->st_part.rc || mp->sum_rc) {
		fprintf(f, "  (%s)\n", mp->st_part.rc ? mp->st_part.err.msg : mp->sum_err.msg);
		return;
	}
	fprintf(f, "  Steps %zu, average step %.4f ms\n", sum->total_steps, sum->total_ms);
	fprintf(f, "  Iteration interval %10.4f ms  %6.2f%%\n", sum->interval_ms,
		sum->interval_pct);
	fprintf(f, "  Forward + backward %10.4f ms  %6.2f%%\n", sum->fp_bp_ms, sum->fp_bp_pct);
	fprintf(f, "  Tail               %10.4f ms  %6.2f%%\n", sum->tail_ms, sum->tail_pct);
	if (mp->point_rc == NNS_OK) /* the report's names stop at 255 bytes */
		fprintf(f, "  fp_start %.255s, bp_end %.255s\n", mp->fp_start, mp->bp_end);
}

static void op_types(FILE *f, const struct ms_profile *mp, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Op type", TB_LEFT, TB_TRUNC_END},
	    {"Total µs", TB_RIGHT, 0},
	    {"Calls", TB_RIGHT, 0},
	    {"Avg µs", TB_RIGHT, 0},
	    {"Share", TB_RIGHT, 0},
	};
	const struct ms_at *at = &mp->at;
	struct table tb;
	char title[96], b[48];
	size_t shown;

	if (mp->at_part.rc == NNS_ENOTFOUND)
		return;
	snprintf(title, sizeof(title), "MindSpore AI Core operator time by type (top %d)", o->top);
	rp_section(f, o, title);
	if (mp->at_part.rc) {
		fprintf(f, "  (aicore_intermediate_%d_type.csv: %s)\n", mp->src.dev,
			mp->at_part.err.msg);
		return;
	}
	shown = at->rows.n < (size_t)o->top ? at->rows.n : (size_t)o->top;
	tb_init(&tb, cols, 5);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_at_row *r = &at->rows.v[i];

		tb_cell(&tb, "%s", r->kernel_type);
		tb_cell(&tb, "%.2f", r->total_time_us);
		tb_cell(&tb, "%s", tb_fmt_int(b, sizeof(b), r->execution_frequency));
		tb_cell(&tb, "%.3f", r->avg_time_us);
		/* MindSpore's own share (of all AI Core time), not of these rows */
		tb_cell(&tb, "%s", tb_fmt_pct(b, sizeof(b), r->total_percent / 10000.0));
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	if (shown < at->rows.n)
		fprintf(f, "  … %zu more types\n", at->rows.n - shown);
}

void rp_view_mindspore(FILE *f, const struct an_profile *p, unsigned views,
		       const struct report_opts *o)
{
	const struct ms_profile *mp = p->ms;
	int sum = (views & (RV_OVERVIEW | RV_OPERATORS)) != 0;

	if (!mp)
		return;
	if (sum || (views & RV_MS_STEPTRACE)) {
		if ((views & RV_MS_STEPTRACE) && mp->st_part.rc == NNS_ENOTFOUND)
			fprintf(f, "\n(no step_trace_raw_%d_detail_time.csv)\n", mp->src.dev);
		step_summary(f, mp, o);
	}
	if (sum || (views & RV_MS_OPS)) {
		if ((views & RV_MS_OPS) && mp->at_part.rc == NNS_ENOTFOUND)
			fprintf(f, "\n(no aicore_intermediate_%d_type.csv)\n", mp->src.dev);
		op_types(f, mp, o);
	}
	if (views & RV_MS_OP_DETAIL)
		rp_ms_op_detail(f, mp, o);
	if (sum || (views & RV_MS_AICPU))
		rp_ms_aicpu(f, mp, (views & RV_MS_AICPU) != 0, o);
	if (sum || (views & RV_MS_GPU))
		rp_ms_optabs(f, mp, 1, (views & RV_MS_GPU) != 0, o);
	if (sum || (views & RV_MS_CPU))
		rp_ms_optabs(f, mp, 0, (views & RV_MS_CPU) != 0, o);
	if (sum || (views & RV_MS_MINDDATA))
		rp_ms_minddata(f, mp, (views & RV_MS_MINDDATA) != 0, o);
	if (sum || (views & RV_MS_FLOPS))
		rp_ms_flops(f, mp, (views & RV_MS_FLOPS) != 0, o);
	if (views & RV_MS_DYNSHAPE)
		rp_ms_dynshape(f, mp, o);
}
