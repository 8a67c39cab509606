/*
 * ms_steps_cut.c - `--steps A-B` on a MindSpore device (an_ms.h,
 * ms_profile_keep_steps): the step-trace table keeps the rows of steps
 * A..B and a new average row, and MindInsight's summary is computed again
 * from it, so steptrace.json, ms_step_trace.csv and the report's step-trace
 * section describe the selected steps as the overview does.
 *
 * The average row is the mean of the kept rows' columns, leaving out step 1
 * when other steps are kept, as MindSpore's own average row does (run_1:
 * its average total 205.3809 ms is the mean of steps 2..322, not 1..322);
 * the summary is then upstream's _get_summary of that row (ms, 4 decimals;
 * percent of the total, 2 decimals) and total_steps the kept rows.
 *
 * Not cut (their files have no per-step rows, or the document has no step
 * filter): AI Core / AI CPU by type and by op, FLOPs, MindData, dynamic
 * shape, and the training-trace graph of the average step (all steps).
 */
#include "analysis/an_ms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double round_to(double x, double scale)
{
	return round(x * scale) / scale;
}

static int step_in(const char *name, long first, long last, long *k)
{
	char *end;

	if (!*name || *name < '0' || *name > '9')
		return 0;
	*k = strtol(name, &end, 10);
	return !*end && *k >= first && *k <= last;
}

void ms_profile_keep_steps(struct ms_profile *mp, long first, long last)
{
	struct ms_step_row avg;
	size_t n, kept = 0, used = 0, i;
	long k;
	int only_first = 1;

	if (!mp || mp->st_part.rc != NNS_OK || mp->steps.n == 0)
		return;
	n = mp->steps.n - 1; /* the last row is the average */
	for (i = 0; i < n; i++)
		if (step_in(mp->steps.v[i].name, first, last, &k) && k != 1)
			only_first = 0;
	memset(&avg, 0, sizeof(avg));
	strcpy(avg.name, "-");
	for (i = 0; i < n; i++) {
		struct ms_step_row r = mp->steps.v[i];

		if (!step_in(r.name, first, last, &k))
			continue;
		mp->steps.v[kept++] = r;
		if (k == 1 && !only_first)
			continue; /* MindSpore's average leaves the first step out */
		avg.start_us += r.start_us;
		avg.end_us += r.end_us;
		avg.interval_us += r.interval_us;
		avg.fp_bp_us += r.fp_bp_us;
		avg.tail_us += r.tail_us;
		avg.total_us += r.total_us;
		used++;
	}
	if (used) {
		avg.start_us /= (double)used;
		avg.end_us /= (double)used;
		avg.interval_us /= (double)used;
		avg.fp_bp_us /= (double)used;
		avg.tail_us /= (double)used;
		avg.total_us /= (double)used;
	}
	mp->steps.v[kept] = avg;
	mp->steps.n = kept + 1;
	if (mp->sum_rc != NNS_OK)
		return;
	/* upstream: count x 1e-5 rounded to 4 decimals; the rows are in us */
	mp->sum.total_ms = round_to(avg.total_us / 1000.0, 1e4);
	mp->sum.interval_ms = round_to(avg.interval_us / 1000.0, 1e4);
	mp->sum.fp_bp_ms = round_to(avg.fp_bp_us / 1000.0, 1e4);
	mp->sum.tail_ms = round_to(avg.tail_us / 1000.0, 1e4);
	if (mp->sum.total_ms > 0) {
		mp->sum.interval_pct = round_to(mp->sum.interval_ms / mp->sum.total_ms * 100, 100);
		mp->sum.fp_bp_pct = round_to(mp->sum.fp_bp_ms / mp->sum.total_ms * 100, 100);
		mp->sum.tail_pct = round_to(mp->sum.tail_ms / mp->sum.total_ms * 100, 100);
	} else {
		mp->sum.interval_pct = mp->sum.fp_bp_pct = mp->sum.tail_pct = 0;
	}
	mp->sum.total_steps = kept;
}
