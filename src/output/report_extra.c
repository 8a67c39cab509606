/*
 * report_extra.c - terminal views `datapipe` (queues, verdict, per-step
 * waits, findings) and `cpu` (machine/process/thread utilization, per
 * step, stages, the host_info stage times, and for a MindSpore device
 * MindSpore's dataset table, dataset_<rank>.csv) of one worker/span.
 */
#include "analysis/an_ms.h"
#include "output/report_int.h"
#include "output/table.h"

#include <stdio.h>
#include <string.h>

static void pct_cell(struct table *t, double v)
{
	if (v < 0)
		tb_cell(t, "-");
	else
		tb_cell(t, "%.1f%%", v);
}

static void dp_queues(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Queue", TB_LEFT, TB_TRUNC_END}, {"Role", TB_LEFT, 0},
	    {"Samples", TB_RIGHT, 0},	      {"Avg size", TB_RIGHT, 0},
	    {"Capacity", TB_RIGHT, 0},	      {"Utilization", TB_RIGHT, 0},
	    {"Empty", TB_RIGHT, 0},	      {"Full", TB_RIGHT, 0},
	};
	const struct an_datapipe *d = &p->datapipe;
	struct table t;
	char b[48];

	tb_init(&t, cols, 8);
	for (size_t i = 0; i < d->queues.n; i++) {
		const struct an_queue *q = &d->queues.v[i];

		tb_cell(&t, "%s", rp_str(p, q->name));
		tb_cell(&t, "%s", q->consumer ? "consumer" : "producer");
		tb_cell(&t, "%s", tb_fmt_int(b, sizeof(b), q->samples));
		tb_cell(&t, "%.2f", q->avg_size);
		if (q->capacity > 0)
			tb_cell(&t, "%s", tb_fmt_int(b, sizeof(b), q->capacity));
		else
			tb_cell(&t, "-");
		tb_cell(&t, "%s", tb_fmt_pct(b, sizeof(b), q->utilization));
		tb_cell(&t, "%s", tb_fmt_pct(b, sizeof(b), q->empty_ratio));
		tb_cell(&t, "%s", tb_fmt_pct(b, sizeof(b), q->full_ratio));
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
}

static void dp_steps(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Step", TB_LEFT, TB_TRUNC_END}, {"Step µs", TB_RIGHT, 0},
	    {"DataLoader µs", TB_RIGHT, 0},  {"Queue empty µs", TB_RIGHT, 0},
	    {"Waited", TB_RIGHT, 0},
	};
	const struct an_datapipe *d = &p->datapipe;
	size_t shown = d->steps.n > (size_t)o->top * 2 ? (size_t)o->top : d->steps.n;
	struct table t;
	char b[48];

	if (!d->steps.n || (!d->has_dataloader && d->consumer < 0))
		return;
	rp_section(f, o, "Waiting for data per step");
	tb_init(&t, cols, 5);
	for (size_t i = 0; i < shown; i++) {
		const struct an_dp_step *s = &d->steps.v[i];
		int64_t dur = s->end - s->start;

		tb_cell(&t, "%s", s->name);
		tb_cell(&t, "%s", tb_fmt_us(b, sizeof(b), (double)dur));
		tb_cell(&t, "%s", tb_fmt_us(b, sizeof(b), (double)s->dataloader));
		tb_cell(&t, "%s", tb_fmt_us(b, sizeof(b), (double)s->queue_empty));
		tb_cell(&t, "%s",
			tb_fmt_pct(b, sizeof(b), dur > 0 ? (double)s->wait / (double)dur : 0));
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < d->steps.n)
		fprintf(f, "  … %zu more steps (datapipe.json has them all)\n", d->steps.n - shown);
	fprintf(f, "  waited for data: %.1f%% of the step time overall\n", 100.0 * d->wait_ratio);
}

static void datapipe(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	const struct an_datapipe *d = &p->datapipe;

	rp_section(f, o, "Data pipeline");
	if (d->queues.n == 0) {
		fprintf(f, "  (no data-queue samples in the trace%s)\n",
			d->has_dataloader ? "; DataLoader waits below" : "");
	} else {
		char line[512];

		dp_queues(f, p, o);
		snprintf(line, sizeof(line),
			 "  verdict: %s — consumer queue %s empty in %lld of %lld samples (%.1f%%; "
			 "warning above %.0f%%)",
			 d->warning ? "data_process WARNING" : d->verdict,
			 d->consumer >= 0 ? rp_str(p, d->queues.v[d->consumer].name) : "-",
			 (long long)d->empty_count, (long long)d->total_count,
			 100.0 * d->empty_ratio, 100.0 * AN_DP_EMPTY_WARNING_THRESHOLD);
		rp_put_safe(f, line, sizeof(line));
		fputc('\n', f);
	}
	dp_steps(f, p, o);
	if (d->findings.n) {
		rp_section(f, o, "Findings");
		for (size_t i = 0; i < d->findings.n; i++) {
			char first[48];

			snprintf(first, sizeof(first), "  - [%s] ", d->findings.v[i].kind);
			rp_wrap(f, d->findings.v[i].text ? d->findings.v[i].text : "", o->width,
				first, 4);
		}
	}
}

/* ---- cpu -------------------------------------------------------------------- */

static void cpu_steps(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Step", TB_LEFT, TB_TRUNC_END}, {"Samples", TB_RIGHT, 0},
	    {"Machine user", TB_RIGHT, 0},   {"Machine sys", TB_RIGHT, 0},
	    {"Machine idle", TB_RIGHT, 0},   {"Machine iowait", TB_RIGHT, 0},
	    {"Process user", TB_RIGHT, 0},   {"Process sys", TB_RIGHT, 0},
	};
	const struct an_cpu *c = &p->cpu;
	size_t shown = c->steps.n > (size_t)o->top * 2 ? (size_t)o->top : c->steps.n;
	struct table t;

	tb_init(&t, cols, 8);
	for (size_t i = 0; i <= shown; i++) {
		const struct an_cpu_step *s = i == 0 ? &c->before : &c->steps.v[i - 1];
		int64_t n = s->machine.samples ? s->machine.samples : s->process.samples;

		if (!n)
			continue; /* (the sampling interval is longer than the step) */
		tb_cell(&t, "%s", i == 0 ? "(before)" : s->name);
		tb_cell(&t, "%lld", (long long)n);
		pct_cell(&t, s->machine.samples ? s->machine.user : -1);
		pct_cell(&t, s->machine.samples ? s->machine.sys : -1);
		pct_cell(&t, s->machine.samples ? s->machine.idle : -1);
		pct_cell(&t, s->machine.samples ? s->machine.iowait : -1);
		pct_cell(&t, s->process.samples ? s->process.user : -1);
		pct_cell(&t, s->process.samples ? s->process.sys : -1);
	}
	tb_rule(&t);
	tb_cell(&t, "All");
	tb_cell(&t, "%lld",
		(long long)(c->machine.samples ? c->machine.samples : c->process.samples));
	pct_cell(&t, c->machine.samples ? c->machine.user : -1);
	pct_cell(&t, c->machine.samples ? c->machine.sys : -1);
	pct_cell(&t, c->machine.samples ? c->machine.idle : -1);
	pct_cell(&t, c->machine.samples ? c->machine.iowait : -1);
	pct_cell(&t, c->process.samples ? c->process.user : -1);
	pct_cell(&t, c->process.samples ? c->process.sys : -1);
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < c->steps.n)
		fprintf(f, "  … %zu more steps (cpu.json has them all)\n", c->steps.n - shown);
}

static void cpu_threads(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Thread", TB_LEFT, TB_TRUNC_END},
	    {"Tid", TB_RIGHT, 0},
	    {"User", TB_RIGHT, 0},
	    {"Sys", TB_RIGHT, 0},
	};
	const struct an_cpu *c = &p->cpu;
	size_t shown = c->threads.n < (size_t)o->top ? c->threads.n : (size_t)o->top;
	struct table t;

	if (!c->threads.n)
		return;
	rp_section(f, o, "Threads (percent of one CPU)");
	tb_init(&t, cols, 4);
	for (size_t i = 0; i < shown; i++) {
		const struct an_cpu_thread *th = &c->threads.v[i];

		tb_cell(&t, "%s", th->name ? rp_str(p, th->name) : "");
		tb_cell(&t, "%lld", (long long)th->tid);
		pct_cell(&t, th->avg.user);
		pct_cell(&t, th->avg.sys);
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < c->threads.n)
		fprintf(f, "  … %zu more threads\n", c->threads.n - shown);
	for (size_t i = 0; i < c->stages.n; i++)
		if (c->stages.v[i].advice)
			rp_wrap(f, c->stages.v[i].advice, o->width, "  - ", 4);
}

static void host_info(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Module", TB_LEFT, 0}, {"Event", TB_LEFT, TB_TRUNC_END}, {"Stage", TB_LEFT, 0},
	    {"Count", TB_RIGHT, 0}, {"Avg µs", TB_RIGHT, 0},	      {"Total µs", TB_RIGHT, 0},
	};
	const struct an_hostinfo *h = &p->hostinfo;
	size_t shown = h->rows.n < (size_t)o->top ? h->rows.n : (size_t)o->top;
	struct table t;
	char b[48];

	if (!h->records && !h->memory.n)
		return;
	rp_section(f, o, "Host framework stages (host_info)");
	tb_init(&t, cols, 6);
	for (size_t i = 0; i < shown; i++) {
		const struct an_host_row *r = &h->rows.v[i];

		tb_cell(&t, "%s", rp_str(p, r->module));
		tb_cell(&t, "%s", rp_str(p, r->event));
		tb_cell(&t, "%s", rp_str(p, r->stage));
		tb_cell(&t, "%s", tb_fmt_int(b, sizeof(b), r->count));
		tb_cell(&t, "%.1f", r->avg_us);
		tb_cell(&t, "%s", tb_fmt_int(b, sizeof(b), r->total_us));
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < h->rows.n)
		fprintf(f, "  … %zu more rows (hostinfo.json has them all)\n", h->rows.n - shown);
	if (h->peak_kb)
		fprintf(f, "  host memory (VmRSS) peak: %s\n",
			tb_fmt_bytes(b, sizeof(b), 1024.0 * (double)h->peak_kb));
	if (h->unmatched_starts || h->unmatched_ends)
		fprintf(f, "  %lld start(s) without end, %lld end(s) without start\n",
			(long long)h->unmatched_starts, (long long)h->unmatched_ends);
}

/* MindSpore's dataset execution time (analysis/ms_host.h), as dataset_<rank>.csv. */
static void ms_dataset(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Operation", TB_LEFT, TB_TRUNC_END},   {"Stage", TB_LEFT, 0},
	    {"Occurrences", TB_RIGHT, 0},	    {"Avg. time (us)", TB_RIGHT, 0},
	    {"Custom Info", TB_LEFT, TB_TRUNC_END},
	};
	const struct ms_profile *mp = p->ms;
	const struct ms_host_result *r;
	size_t shown;
	struct table t;
	char title[96], b[48];

	if (!mp || mp->host_rc != NNS_OK)
		return;
	r = &mp->host_res;
	snprintf(title, sizeof(title), "MindSpore dataset execution time (dataset_%lld.csv)",
		 (long long)mp->host.rank);
	rp_section(f, o, title);
	if (!ms_host_writes_dataset(r)) {
		fprintf(f, "  (none: MindSpore's analysis raises on this host_info before "
			   "writing it; ms_host.json says where)\n");
		return;
	}
	if (!r->ds.n) {
		fprintf(f, "  (no Dataset start/end pairs in host_info_%lld.csv)\n",
			(long long)mp->host.rank);
		return;
	}
	shown = r->ds.n < (size_t)o->top ? r->ds.n : (size_t)o->top;
	tb_init(&t, cols, 5);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_host_ds_item *d = &r->ds.v[i];
		const struct ms_host_row *row = &mp->host.rows.v[d->row];

		tb_cell(&t, "%s", ms_host_val(&mp->host, row, MSH_EVENT));
		tb_cell(&t, "%s", ms_host_val(&mp->host, row, MSH_STAGE));
		tb_cell(&t, "%s", tb_fmt_int(b, sizeof(b), d->count));
		tb_cell(&t, "%.3f", d->avg);
		tb_cell(&t, "%s", ms_host_val(&mp->host, row, MSH_CUSTOM));
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < r->ds.n)
		fprintf(f, "  … %zu more rows (dataset_%lld.csv has them all)\n", r->ds.n - shown,
			(long long)mp->host.rank);
}

static void cpu(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	const struct an_cpu *c = &p->cpu;
	char b[48];

	rp_section(f, o, "CPU utilization (machine: % of all CPUs; process: % of one CPU)");
	if (!c->machine.samples && !c->process.samples && !c->threads.n) {
		fprintf(f, "  (no CPU samples in the trace)\n");
	} else {
		cpu_steps(f, p, o);
		if (c->machine.samples)
			fprintf(f, "  runnable processes: %.1f on average\n", c->running_avg);
		if (c->rss_peak_kb)
			fprintf(f, "  process memory (VmRSS) peak: %s\n",
				tb_fmt_bytes(b, sizeof(b), 1024.0 * (double)c->rss_peak_kb));
		cpu_threads(f, p, o);
	}
	host_info(f, p, o);
	ms_dataset(f, p, o);
}

void rp_view_datapipe(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	datapipe(f, p, o);
}

void rp_view_cpu(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	cpu(f, p, o);
}
