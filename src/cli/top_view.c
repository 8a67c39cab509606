/*
 * top_view.c - one refresh of `nnscope top` (top.h) as a text block or as
 * one JSON line: the per-trace rows, the slow-rank verdict, the focus
 * trace's top operators and kernels of the last steps, its CPU, GPU and
 * memory, and the alert hits. Both views read the same numbers (struct
 * focus), computed once per refresh.
 */
#include "cli/top.h"
#include "output/live_ranks_json.h"
#include "output/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *top_trace_state(const struct top_trace *tr)
{
	if (tr->f->failed)
		return "error";
	if (tr->f->live->ended || nnst_tail_stats(tr->f->tail)->ended)
		return "ended";
	return live_follow_is_live(tr->f, TOP_IDLE_NS) ? "live" : "idle";
}

const struct top_trace *top_focus(const struct top *t, const char **why)
{
	const struct live_ranks *r = &t->ranks;
	const char *w = NULL;

	*why = "first";
	if (!t->traces.n)
		return NULL;
	if (r->slowest >= 0 && (size_t)r->slowest < r->n) {
		w = r->rows[r->slowest].worker;
		*why = "slowest";
	} else if (r->n) {
		w = r->rows[0].worker;
	}
	for (size_t i = 0; i < t->traces.n && w; i++)
		if (t->traces.v[i].worker == w)
			return &t->traces.v[i];
	*why = "first";
	return &t->traces.v[0];
}

/* What the views show of the focus trace. */
struct focus {
	const struct top_trace *tr;
	const char *why;
	int64_t rank;
	struct live_op *ops;
	struct live_kernel *kernels;
	size_t nops, nkernels;
	double machine_pct, process_pct, rss_kb; /* NAN unknown */
	double gpu_pct;				 /* kernel time / step time, NAN no kernels */
};

static void focus_release(struct focus *fo)
{
	free(fo->ops);
	free(fo->kernels);
}

static const struct live_point *last_point(const struct live_series *s)
{
	return s->p.n ? &s->p.v[s->p.n - 1] : NULL;
}

/* Kernel time over step time of the last `last` steps, %. */
static double gpu_busy(const struct live *l, size_t last)
{
	size_t n = l->steps.n < last ? l->steps.n : last, first = l->steps.n - n;
	struct live_step *s;
	double k = 0, d = 0;

	if (!l->kernels.n || !n || !(s = malloc(n * sizeof(*s))))
		return NAN;
	live_steps_now(l, first, s);
	for (size_t i = 0; i < n; i++) {
		k += (double)s[i].kernel;
		d += (double)(s[i].end - s[i].start);
	}
	free(s);
	return d > 0 ? k * 100 / d : NAN;
}

static int focus_get(const struct top *t, struct focus *fo)
{
	const struct live *l;
	const struct live_point *p;

	memset(fo, 0, sizeof(*fo));
	fo->machine_pct = fo->process_pct = fo->rss_kb = fo->gpu_pct = NAN;
	if (!(fo->tr = top_focus(t, &fo->why)))
		return 0;
	fo->rank = top_trace_rank(t, (size_t)(fo->tr - t->traces.v));
	l = fo->tr->f->live;
	if (live_top_ops(l, (size_t)t->last, &fo->ops, &fo->nops) ||
	    live_top_kernels(l, (size_t)t->last, &fo->kernels, &fo->nkernels)) {
		focus_release(fo);
		return -1;
	}
	if ((p = last_point(&l->cpu_machine)))
		fo->machine_pct = p->v[0] + p->v[1];
	if ((p = last_point(&l->cpu_process))) {
		fo->process_pct = p->v[0] + p->v[1];
		fo->rss_kb = p->v[2];
	}
	fo->gpu_pct = gpu_busy(l, (size_t)t->last);
	return 0;
}

static void clock_text(char *buf, size_t size, int64_t wall_ns)
{
	time_t s = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (!localtime_r(&s, &tm) || !strftime(buf, size, "%H:%M:%S", &tm))
		snprintf(buf, size, "?");
}

/* ---- text ----------------------------------------------------------------- */

static void ms_cell(struct table *tb, double ms)
{
	if (isfinite(ms))
		tb_cell(tb, "%.2f", ms);
	else
		tb_cell(tb, "-");
}

static void text_traces(FILE *f, const struct top *t)
{
	static const struct tb_col cols[] = {
	    {"rank", TB_RIGHT, 0},	{"worker", TB_LEFT, TB_TRUNC_MIDDLE},
	    {"steps", TB_RIGHT, 0},	{"last ms", TB_RIGHT, 0},
	    {"median ms", TB_RIGHT, 0}, {"steps/s", TB_RIGHT, 0},
	    {"vs mean", TB_RIGHT, 0},	{"state", TB_LEFT, 0},
	};
	struct table tb;

	tb_init(&tb, cols, 8);
	for (size_t i = 0; i < t->traces.n; i++) {
		const struct top_trace *tr = &t->traces.v[i];
		const struct live_rank_row *row = NULL;
		struct live_step_stats st;

		live_step_stats(tr->f->live, (size_t)t->last, &st);
		for (size_t k = 0; k < t->ranks.n; k++)
			if (t->ranks.rows[k].worker == tr->worker)
				row = &t->ranks.rows[k];
		if (tr->is_rank)
			tb_cell(&tb, "%lld", (long long)top_trace_rank(t, i));
		else
			tb_cell(&tb, "-");
		tb_cell(&tb, "%s", tr->worker);
		tb_cell(&tb, "%zu", tr->f->live->steps.n);
		ms_cell(&tb, st.n ? (double)st.last / 1e6 : NAN);
		ms_cell(&tb, st.n ? (double)st.median / 1e6 : NAN);
		if (st.n && isfinite(st.steps_per_s))
			tb_cell(&tb, "%.2f", st.steps_per_s);
		else
			tb_cell(&tb, "-");
		if (row && isfinite(row->vs_mean_pct))
			tb_cell(&tb, "%+.2f%%", row->vs_mean_pct);
		else
			tb_cell(&tb, "-");
		tb_cell(&tb, "%s", top_trace_state(tr));
	}
	tb_print(&tb, f, t->width, 0, t->color);
	tb_release(&tb);
	for (size_t i = 0; i < t->traces.n; i++) {
		const struct top_trace *tr = &t->traces.v[i];

		if (!tr->f->failed)
			continue;
		if (strncmp(tr->f->err.msg, tr->path, strlen(tr->path)) == 0)
			fprintf(f, "%s\n", tr->f->err.msg); /* it names the file */
		else
			fprintf(f, "%s: %s\n", tr->path, tr->f->err.msg);
	}
}

static void text_focus(FILE *f, const struct top *t, const struct focus *fo)
{
	static const struct tb_col ocols[] = {
	    {"operator", TB_LEFT, TB_TRUNC_MIDDLE},
	    {"calls", TB_RIGHT, 0},
	    {"self ms", TB_RIGHT, 0},
	    {"total ms", TB_RIGHT, 0},
	};
	static const struct tb_col kcols[] = {
	    {"kernel", TB_LEFT, TB_TRUNC_MIDDLE},
	    {"calls", TB_RIGHT, 0},
	    {"total ms", TB_RIGHT, 0},
	    {"mean us", TB_RIGHT, 0},
	};
	const struct live *l = fo->tr->f->live;
	char who[256], a[40], b[40];
	struct table tb;

	snprintf(who, sizeof(who), "rank %lld (%s, the %s)", (long long)fo->rank, fo->tr->worker,
		 fo->why);
	fprintf(f, "\ntop operators of %s, last %ld steps:\n", who, t->last);
	if (!fo->nops) {
		fprintf(f, "  (none yet)\n");
	} else {
		tb_init(&tb, ocols, 4);
		for (size_t i = 0; i < fo->nops && i < TOP_ROWS; i++) {
			tb_cell(&tb, "%s", live_str(l, fo->ops[i].name));
			tb_cell(&tb, "%llu", (unsigned long long)fo->ops[i].calls);
			tb_cell(&tb, "%.3f", (double)fo->ops[i].self / 1e6);
			tb_cell(&tb, "%.3f", (double)fo->ops[i].total / 1e6);
		}
		tb_print(&tb, f, t->width, 2, t->color);
		tb_release(&tb);
	}
	if (fo->nkernels) {
		fprintf(f, "top kernels of %s, last %ld steps:\n", who, t->last);
		tb_init(&tb, kcols, 4);
		for (size_t i = 0; i < fo->nkernels && i < TOP_ROWS; i++) {
			const struct live_kernel *k = &fo->kernels[i];

			tb_cell(&tb, "%s", live_str(l, k->name));
			tb_cell(&tb, "%llu", (unsigned long long)k->calls);
			tb_cell(&tb, "%.3f", (double)k->total / 1e6);
			tb_cell(&tb, "%.1f",
				k->calls ? (double)k->total / 1e3 / (double)k->calls : 0);
		}
		tb_print(&tb, f, t->width, 2, t->color);
		tb_release(&tb);
	} else {
		fprintf(f, "kernels: none in the last %ld steps of rank %lld\n", t->last,
			(long long)fo->rank);
	}
	fprintf(f, "cpu: machine ");
	fprintf(f, isfinite(fo->machine_pct) ? "%.1f%%" : "-", fo->machine_pct);
	fprintf(f, ", process ");
	fprintf(f, isfinite(fo->process_pct) ? "%.1f%%" : "-", fo->process_pct);
	fprintf(f, " (rank %lld)", (long long)fo->rank);
	if (isfinite(fo->gpu_pct))
		fprintf(f, "; gpu busy %.1f%% of the last steps", fo->gpu_pct);
	fprintf(f, "\nmemory: rss %s",
		isfinite(fo->rss_kb) ? tb_fmt_bytes(a, sizeof(a), fo->rss_kb * 1024) : "-");
	for (size_t i = 0; i < l->mems.n; i++) {
		const struct live_mem *m = &l->mems.v[i];

		if (m->device < 0)
			fprintf(f, "; host");
		else
			fprintf(f, "; gpu%d", m->device);
		fprintf(f, " %s (peak %s)", tb_fmt_bytes(a, sizeof(a), (double)m->allocated),
			tb_fmt_bytes(b, sizeof(b), (double)m->peak_allocated));
	}
	fputc('\n', f);
}

static void text_alerts(FILE *f, const struct top *t)
{
	const struct live_alerts *a = &t->alerts;
	char when[32];

	if (!a->nrules)
		return;
	fprintf(f, "alerts: %llu fired (%d new)\n", (unsigned long long)a->fired, t->new_hits);
	for (size_t i = a->nhits > TOP_HITS_SHOWN ? a->nhits - TOP_HITS_SHOWN : 0; i < a->nhits;
	     i++) {
		const struct live_alert_hit *h = live_alerts_hit(a, i);

		clock_text(when, sizeof(when), h->wall_ns);
		fprintf(f, "  %s  %s\n", when, h->message);
	}
}

int top_print_text(FILE *f, const struct top *t)
{
	struct focus fo;
	char when[32];

	clock_text(when, sizeof(when), t->wall_ns);
	fprintf(f, "nnscope top  %s  %s  refresh %zu, every %g s, last %ld steps%s\n", t->dir, when,
		t->refresh, t->interval_s, t->last,
		t->all_ended ? "  (every trace has ended: final state)" : "");
	text_traces(f, t);
	fprintf(f, "slow rank: %s\n", t->ranks.verdict);
	if (focus_get(t, &fo))
		return -1;
	if (fo.tr)
		text_focus(f, t, &fo);
	focus_release(&fo);
	text_alerts(f, t);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_ms(struct jsonw *w, const char *key, size_t n, int64_t ns)
{
	jsonw_kdouble(w, key, n ? (double)ns / 1e6 : NAN);
}

static void json_traces(struct jsonw *w, const struct top *t)
{
	jsonw_key(w, "traces");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < t->traces.n; i++) {
		const struct top_trace *tr = &t->traces.v[i];
		const struct live *l = tr->f->live;
		struct live_step_stats st;

		live_step_stats(l, (size_t)t->last, &st);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "worker", tr->worker);
		jsonw_kstr(w, "path", tr->path);
		jsonw_kint(w, "rank", top_trace_rank(t, i));
		jsonw_kbool(w, "is_rank", tr->is_rank);
		jsonw_kstr(w, "state", top_trace_state(tr));
		if (tr->f->failed)
			jsonw_kstr(w, "error", tr->f->err.msg);
		else
			jsonw_knull(w, "error");
		jsonw_kint(w, "bytes", (int64_t)nnst_tail_stats(tr->f->tail)->bytes_read);
		jsonw_kint(w, "steps", (int64_t)l->steps.n);
		if (l->steps.n)
			jsonw_kint(w, "last_step", l->steps.v[l->steps.n - 1].num);
		else
			jsonw_knull(w, "last_step");
		json_ms(w, "last_ms", st.n, st.last);
		json_ms(w, "median_ms", st.n, st.median);
		jsonw_kdouble(w, "mean_ms", st.n ? st.mean / 1e6 : NAN);
		jsonw_kdouble(w, "steps_per_s", st.n ? st.steps_per_s : NAN);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void json_focus(struct jsonw *w, const struct top *t, const struct focus *fo)
{
	const struct live *l = fo->tr->f->live;

	jsonw_obj_begin(w);
	jsonw_kstr(w, "worker", fo->tr->worker);
	jsonw_kint(w, "rank", fo->rank);
	jsonw_kstr(w, "why", fo->why);
	jsonw_kint(w, "last", t->last);
	jsonw_key(w, "ops");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < fo->nops && i < TOP_ROWS; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", live_str(l, fo->ops[i].name));
		jsonw_kint(w, "calls", (int64_t)fo->ops[i].calls);
		jsonw_kdouble(w, "self_ms", (double)fo->ops[i].self / 1e6);
		jsonw_kdouble(w, "total_ms", (double)fo->ops[i].total / 1e6);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "kernels");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < fo->nkernels && i < TOP_ROWS; i++) {
		const struct live_kernel *k = &fo->kernels[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", live_str(l, k->name));
		jsonw_kint(w, "calls", (int64_t)k->calls);
		jsonw_kdouble(w, "total_ms", (double)k->total / 1e6);
		jsonw_kdouble(w, "min_us", (double)k->min / 1e3);
		jsonw_kdouble(w, "max_us", (double)k->max / 1e3);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kdouble(w, "cpu_machine_pct", fo->machine_pct);
	jsonw_kdouble(w, "cpu_process_pct", fo->process_pct);
	jsonw_kdouble(w, "gpu_busy_pct", fo->gpu_pct);
	jsonw_kdouble(w, "rss_kb", fo->rss_kb);
	jsonw_key(w, "memory");
	live_json_memory(w, l);
	jsonw_obj_end(w);
}

int top_print_json(FILE *f, const struct top *t)
{
	struct jsonw w;
	struct focus fo;
	int rc;

	if (focus_get(t, &fo))
		return -1;
	if (jsonw_init_file(&w, f, 0)) {
		focus_release(&fo);
		return -1;
	}
	jsonw_obj_begin(&w);
	jsonw_kint(&w, "refresh", (int64_t)t->refresh);
	jsonw_kint(&w, "wall_ns", t->wall_ns);
	jsonw_kstr(&w, "run", t->dir);
	jsonw_kdouble(&w, "interval_s", t->interval_s);
	jsonw_kint(&w, "last", t->last);
	jsonw_kstr(&w, "state", t->all_ended ? "ended" : "live");
	json_traces(&w, t);
	jsonw_key(&w, "ranks");
	live_ranks_json(&w, &t->ranks);
	jsonw_key(&w, "focus");
	if (fo.tr)
		json_focus(&w, t, &fo);
	else
		jsonw_null(&w);
	jsonw_kint(&w, "alerts_new", t->new_hits);
	jsonw_key(&w, "alerts");
	live_alerts_json(&w, &t->alerts, TOP_HITS_JSON);
	jsonw_obj_end(&w);
	rc = jsonw_finish(&w, NULL);
	jsonw_release(&w);
	focus_release(&fo);
	return rc ? -1 : 0;
}
