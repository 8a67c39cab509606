/*
 * report_dist.c - terminal views across profiles: the distributed view of
 * a run (per-worker computation/communication bars, collectives) and the
 * diff of two profiles (step-time and top operator deltas). The
 * distributed tables' columns are the schema's; the diff's cells pair base
 * and experiment ("3→4", deltas with their percent), the report's own.
 */
#include "output/report_int.h"
#include "output/schema.h"
#include "output/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_dist(FILE *f, const struct an_dist *d, const char *title, const struct report_opts *o)
{
	/* the schema's columns (sc_dist_workers, sc_comm_ops); the worker's
	 * name is the report's own cell, marked when not comparable */
	static const char *const wsel[] = {
	    "computation_us",	"overlap_us", "communication_us", "other_us", "transfer_us",
	    "synchronizing_us", NULL};
	static const char *const csel[] = {
	    "worker",		"name:Collective", "calls", "total_bytes:Total bytes",
	    "total_latency_us", "transfer_us",	   NULL};
	const struct sc_ctx x = {NULL, 0, d};
	struct tb_col wcols[7], ccols[6];
	struct table t;

	rp_heading(f, o, title ? title : "Distributed");
	if (d->note[0])
		rp_wrap(f, d->note, o->width, "  note: ", 8);
	if (!d->available && d->workers.n == 0) {
		fprintf(f, "  (no communication in this run)\n");
		return;
	}
	rp_section(f, o, "Computation / communication per step (average, µs)");
	wcols[0] = (struct tb_col){"Worker", TB_LEFT, TB_TRUNC_END};
	tb_init(&t, wcols, 1 + sc_term_cols(wcols + 1, 6, &sc_dist_workers, wsel, TB_TRUNC_NONE));
	for (size_t i = 0; i < d->workers.n; i++) {
		const struct an_dist_worker *w = &d->workers.v[i];

		tb_cell(&t, "%s%s", w->name, w->comparable || !d->available ? "" : " (*)");
		sc_term_row(&t, &sc_dist_workers, w, &x, wsel);
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	for (size_t i = 0; d->available && i < d->workers.n; i++)
		if (!d->workers.v[i].comparable) {
			fprintf(f, "  (*) communication ops do not match the other workers; "
				   "transfer/synchronizing are not comparable\n");
			break;
		}
	if (d->comm_ops.n == 0)
		return;
	rp_section(f, o, "Collectives");
	tb_init(&t, ccols, sc_term_cols(ccols, 6, &sc_comm_ops, csel, TB_TRUNC_NONE));
	ccols[1].trunc = TB_TRUNC_END; /* the collective's name shrinks, not the worker's */
	for (size_t i = 0; i < d->comm_ops.n; i++)
		sc_term_row(&t, &sc_comm_ops, &d->comm_ops.v[i], &x, csel);
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
}

static void delta_cells(struct table *t, double base, double exp)
{
	char b[48];

	tb_cell(t, "%s", tb_fmt_us(b, sizeof(b), base));
	tb_cell(t, "%s", tb_fmt_us(b, sizeof(b), exp));
	tb_fmt_us(b, sizeof(b), exp - base);
	tb_cell(t, "%s%s", exp - base > 0 ? "+" : "", b);
	if (base != 0)
		tb_cell(t, "%+.1f%%", 100.0 * (exp - base) / fabs(base));
	else
		tb_cell(t, "%s", exp != 0 ? "new" : "-");
}

void report_diff(FILE *f, const struct an_diff *d, const char *base_label, const char *exp_label,
		 const struct report_opts *o)
{
	static const struct tb_col scols[] = {
	    {"Average step", TB_LEFT, 0}, {"Base µs", TB_RIGHT, 0}, {"Exp µs", TB_RIGHT, 0},
	    {"Delta µs", TB_RIGHT, 0},	  {"Delta", TB_RIGHT, 0},
	};
	static const struct tb_col ocols[] = {
	    {"Operator", TB_LEFT, TB_TRUNC_END}, {"Calls", TB_RIGHT, 0},
	    {"Base host µs", TB_RIGHT, 0},	 {"Exp host µs", TB_RIGHT, 0},
	    {"Δ host µs", TB_RIGHT, 0},		 {"Δ host", TB_RIGHT, 0},
	    {"Base device µs", TB_RIGHT, 0},	 {"Exp device µs", TB_RIGHT, 0},
	    {"Δ device µs", TB_RIGHT, 0},	 {"Δ device", TB_RIGHT, 0},
	};
	struct table t;
	size_t shown;
	char title[160];

	rp_heading(f, o, "Diff");
	fputs("  base: ", f);
	rp_put_safe(f, base_label, strlen(base_label));
	fprintf(f, " (%zu steps)\n  exp:  ", d->base_steps);
	rp_put_safe(f, exp_label, strlen(exp_label));
	fprintf(f, " (%zu steps)\n", d->exp_steps);
	rp_section(f, o, "Step time");
	tb_init(&t, scols, 5);
	tb_cell(&t, "Total");
	delta_cells(&t, d->base_step[AN_NROLES], d->exp_step[AN_NROLES]);
	tb_rule(&t);
	for (int r = 0; r < AN_NROLES; r++) {
		if (d->base_step[r] == 0 && d->exp_step[r] == 0)
			continue;
		tb_cell(&t, "%s", an_role_names[r]);
		delta_cells(&t, d->base_step[r], d->exp_step[r]);
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);

	shown = d->ops.n < (size_t)o->top ? d->ops.n : (size_t)o->top;
	snprintf(title, sizeof(title), "Operators (top %zu by absolute change)", shown);
	rp_section(f, o, title);
	if (d->ops.n == 0) {
		fprintf(f, "  (no operators)\n");
		return;
	}
	tb_init(&t, ocols, 10);
	for (size_t i = 0; i < shown; i++) {
		const struct an_diff_row *r = &d->ops.v[i];

		tb_cell(&t, "%s", r->name);
		tb_cell(&t, "%lld→%lld", (long long)r->base_calls, (long long)r->exp_calls);
		delta_cells(&t, (double)r->base_host, (double)r->exp_host);
		delta_cells(&t, (double)r->base_dev, (double)r->exp_dev);
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < d->ops.n)
		fprintf(f, "  … %zu more operators\n", d->ops.n - shown);
}
