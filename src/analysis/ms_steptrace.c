/*
 * ms_steptrace.c - MindInsight's step-trace summary of one device (see
 * ms_steptrace.h for the definitions).
 */
#include "analysis/ms_steptrace.h"

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

int ms_st_summarise(const struct msc_rank *r, struct ms_st_summary *out, struct nns_err *err)
{
	const struct msc_st_row *avg;

	memset(out, 0, sizeof(*out));
	if (!r || r->st.n == 0)
		return nns_err_set(err, NNS_EFORMAT,
				   "step trace: no rows (need at least the average row)");
	avg = &r->st.v[r->st.n - 1];
	out->total_ms = to_ms(avg->total);
	out->interval_ms = to_ms(avg->interval);
	out->fp_bp_ms = to_ms(avg->fp_bp);
	out->tail_ms = to_ms(avg->tail);
	out->interval_pct = pct(out->interval_ms, out->total_ms);
	out->fp_bp_pct = pct(out->fp_bp_ms, out->total_ms);
	out->tail_pct = pct(out->tail_ms, out->total_ms);
	out->total_steps = r->st.n - 1;
	return NNS_OK;
}
