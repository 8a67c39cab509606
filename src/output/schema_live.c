/*
 * schema_live.c - the row tables of the live documents, column by column
 * (schema.h): a rank of the live slow-rank verdict (analysis/live_ranks.h;
 * /api/cluster while live, `nnscope top --json`). Same conventions as
 * schema_tables.c; what each key means: docs/LIVE.md, docs/CLI.md "top".
 * A value that is not known yet (no step, no common window) is null.
 */
#include "output/schema_int.h"

#include "analysis/live_ranks.h"

#include <math.h>

/* A step number, null when none (-1). */
static void lr_step(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	int64_t s;

	(void)x;
	memcpy(&s, (const char *)row + c->off, sizeof(s));
	if (s < 0)
		set_null(v);
	else
		v->i = s;
}

/* A double, null when not a number (not known yet). */
static void lr_num(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	(void)x;
	memcpy(&v->d, (const char *)row + c->off, sizeof(v->d));
	if (!isfinite(v->d))
		set_null(v);
}

static void lr_steps(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	(void)c;
	(void)x;
	v->i = (int64_t)((const struct live_rank_row *)row)->steps;
}

#define LR(n, ty, un, fn, field, title, doc)                                                       \
	FCOL(n, ty, un, fn, struct live_rank_row, field, title, doc)

static const struct sc_col lr_cols[] = {
    COL("rank", SC_INT, SC_PLAIN, SC_F_I64, struct live_rank_row, rank, "Rank",
	"the rank (META rank, else its place among the traces)"),
    COL("worker", SC_TEXT, SC_PLAIN, SC_F_PSTR, struct live_rank_row, worker, "Worker",
	"the worker (trace) of the rank"),
    COL("host", SC_TEXT, SC_PLAIN, SC_F_PSTR, struct live_rank_row, host, "Host",
	"the host it runs on (META host), empty when unknown"),
    FNC("steps", SC_INT, SC_COUNT, lr_steps, "Steps", "steps completed"),
    LR("last_step", SC_INT, SC_PLAIN, lr_step, last_step, "Last step",
       "the number of its last completed step; null before the first"),
    LR("last_ms", SC_REAL, SC_PLAIN, lr_num, last_ms, "Last ms",
       "the duration of its last completed step, ms"),
    LR("mean_ms", SC_REAL, SC_PLAIN, lr_num, mean_ms, "Mean ms",
       "its mean step time over the whole run so far, ms"),
    LR("window_ms", SC_REAL, SC_PLAIN, lr_num, window_ms, "Window ms",
       "its mean step time over the window of steps every rank completed, ms (what the "
       "verdict compares); null without a window"),
    LR("vs_mean_pct", SC_REAL, SC_PLAIN, lr_num, vs_mean_pct, "vs mean %",
       "window_ms against the mean of every rank's window_ms, % (+: slower)"),
    COL("behind", SC_INT, SC_PLAIN, SC_F_I64, struct live_rank_row, behind, "Behind",
	"steps behind the rank furthest ahead"),
    COL("ended", SC_BOOL, SC_PLAIN, SC_F_I32, struct live_rank_row, ended, "Ended",
	"its trace is closed (END chunk)"),
};

const struct sc_table sc_live_ranks = {"live_ranks",
				       "ranks of a job while it runs (the live slow-rank verdict)",
				       lr_cols, NCOLS(lr_cols), sizeof(struct live_rank_row)};
