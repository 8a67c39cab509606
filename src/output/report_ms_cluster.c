/*
 * report_ms_cluster.c - `nnscope report --view cluster` (and the default
 * view) of a MindSpore cluster job (analysis/cluster.h, cl_from_ms): the
 * per-rank step-trace table MindInsight's cluster page shows (average step
 * in ms: iteration interval, forward + backward, tail, total; stage,
 * communication and FLOPs where the job has them), the slowest links and
 * the cluster proposals. Values are cluster.json's, only printed.
 */
#include "analysis/cluster.h"
#include "output/report.h"
#include "output/report_int.h"
#include "output/table.h"

#include <math.h>

void report_ms_cluster(FILE *f, const struct cl_result *c, const char *title,
		       const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Rank", TB_RIGHT, 0},     {"Stage", TB_RIGHT, 0},	 {"Interval ms", TB_RIGHT, 0},
	    {"FP+BP ms", TB_RIGHT, 0}, {"Tail ms", TB_RIGHT, 0}, {"Total ms", TB_RIGHT, 0},
	    {"Comm ms", TB_RIGHT, 0},  {"Wait ms", TB_RIGHT, 0}, {"MFLOPs", TB_RIGHT, 0},
	    {"GFLOPS", TB_RIGHT, 0},
	};
	struct table tb;
	char head[160];

	if (title)
		rp_heading(f, o, title);
	snprintf(head, sizeof(head), "MindSpore cluster: %zu ranks, %s, %d stage(s)", c->ranks.n,
		 c->mode[0] ? c->mode : "?", c->stage_num > 0 ? c->stage_num : 1);
	rp_section(f, o, head);
	if (c->note[0])
		fprintf(f, "  (%s)\n", c->note);
	tb_init(&tb, cols, 10);
	for (size_t i = 0; i < c->ranks.n; i++) {
		const struct cl_rank *r = &c->ranks.v[i];

		tb_cell(&tb, "%d", r->rank);
		tb_cell(&tb, "%d", r->stage);
		if (r->has_steptrace) {
			tb_cell(&tb, "%.4f", r->interval_us / 1000.0);
			tb_cell(&tb, "%.4f", r->fp_bp_us / 1000.0);
			tb_cell(&tb, "%.4f", r->tail_us / 1000.0);
			tb_cell(&tb, "%.4f", r->total_us / 1000.0);
		} else {
			for (int k = 0; k < 4; k++)
				tb_cell(&tb, "-");
		}
		if (r->has_comm) {
			tb_cell(&tb, "%.4f", r->comm_cost_us / 1000.0);
			tb_cell(&tb, "%.4f", r->wait_cost_us / 1000.0);
		} else {
			tb_cell(&tb, "-");
			tb_cell(&tb, "-");
		}
		if (r->has_flops) {
			tb_cell(&tb, "%.3f", r->flops);
			tb_cell(&tb, "%.3f", r->flops_per_s);
		} else {
			tb_cell(&tb, "-");
			tb_cell(&tb, "-");
		}
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
	if (!isnan(c->comm_rate))
		fprintf(f, "  Communication share %.2f %%\n", c->comm_rate * 100.0);
	if (c->links.n)
		fprintf(f, "  %zu communication links (cluster.json has them)\n", c->links.n);
	if (c->proposals.n)
		fprintf(f, "  Proposals:\n");
	for (size_t i = 0; i < c->proposals.n; i++)
		rp_wrap(f, c->proposals.v[i].text ? c->proposals.v[i].text : c->proposals.v[i].id,
			o->width, "  - ", 4);
}
