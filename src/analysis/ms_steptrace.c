/*
 * ms_steptrace.c - MindInsight's step-trace summary of one device (see
 * ms_steptrace.h for the definitions).
 */
#include "analysis/ms_steptrace.h"
#include "importers/ms_st_table.h"

#include <math.h>
#include <string.h>

/* 10 ns counts -> ms rounded to 4 decimals (MindInsight: round(x * 1e-5, 4)). */
static double to_ms(double counts)
{
	return round(counts * 1e-5 * 1e4) / 1e4;
}

static double pct(double part, double total)
{
	if (!(total > 0))
		return 0;
	return round(part / total * 100.0 * 100.0) / 100.0;
}

/* The summary from the average row's four counts. */
static void summary_set(struct ms_st_summary *out, double total, double interval, double fp_bp,
			double tail, size_t steps)
{
	out->total_ms = to_ms(total);
	out->interval_ms = to_ms(interval);
	out->fp_bp_ms = to_ms(fp_bp);
	out->tail_ms = to_ms(tail);
	out->interval_pct = pct(out->interval_ms, out->total_ms);
	out->fp_bp_pct = pct(out->fp_bp_ms, out->total_ms);
	out->tail_pct = pct(out->tail_ms, out->total_ms);
	out->total_steps = steps;
}

int ms_st_summarise(const struct msc_rank *r, struct ms_st_summary *out, struct nns_err *err)
{
	const struct msc_st_row *avg;

	memset(out, 0, sizeof(*out));
	if (!r || r->st.n == 0)
		return nns_err_set(err, NNS_EFORMAT,
				   "step trace: no rows (need at least the average row)");
	avg = &r->st.v[r->st.n - 1];
	summary_set(out, avg->total, avg->interval, avg->fp_bp, avg->tail, r->st.n - 1);
	return NNS_OK;
}

static double zero_nan(double v)
{
	return isnan(v) ? 0 : v;
}

int ms_st_summarise_table(const struct ms_st_table *t, struct ms_st_summary *out,
			  struct nns_err *err)
{
	size_t a;

	memset(out, 0, sizeof(*out));
	if (!t || t->nrows == 0)
		return nns_err_set(err, NNS_EFORMAT,
				   "step trace: no rows (need at least the average row)");
	a = t->nrows - 1;
	summary_set(out, zero_nan(ms_st_cell(t, a, "total")),
		    zero_nan(ms_st_cell(t, a, "iteration_interval")),
		    zero_nan(ms_st_cell(t, a, "fp_and_bp")), zero_nan(ms_st_cell(t, a, "tail")),
		    t->nrows - 1);
	return NNS_OK;
}
