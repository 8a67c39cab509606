/*
 * live_json.c - the documents of a .nnst trace followed while it is
 * written (live_json.h). Times in the documents are us: absolute ones (start_us, ...) on the
 * trace's clock as in `nnscope analyse`, series times since the trace's
 * first record (trace_start_us) as in its memory, cpu and datapipe files.
 */
#include "output/live_json.h"

#include "nnscope.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_LAST 20
#define SUMMARY_STEPS 2000 /* steps listed in the summary, the latest */
#define TOP_ROWS 20	   /* rows of the summary's tables */

/* ---- pieces ----------------------------------------------------------- */

static double us(int64_t ns)
{
	return (double)ns / 1000.0;
}

static int64_t t0_of(const struct live *l)
{
	return l->first_ts == INT64_MAX ? 0 : l->first_ts;
}

static void head(struct jsonw *w, const struct live *l, const struct live_src *src)
{
	jsonw_kbool(w, "live", src->live);
	jsonw_kbool(w, "ended", src->ended);
	if (src->error)
		jsonw_kstr(w, "error", src->error);
	else
		jsonw_knull(w, "error");
	jsonw_kstr(w, "file", src->file);
	jsonw_kint(w, "file_size", src->file_size);
	jsonw_kint(w, "bytes_read", src->bytes_read);
	jsonw_kint(w, "refresh_bytes", src->refresh_bytes);
	jsonw_kint(w, "refreshes", src->refreshes);
	jsonw_kdouble(w, "refresh_ms", src->refresh_ms);
	jsonw_kint(w, "chunks", src->chunks);
	jsonw_kint(w, "events", (int64_t)l->events);
	jsonw_kint(w, "gpu_records", (int64_t)l->gpu_records);
	jsonw_kint(w, "events_lost", (int64_t)l->lost);
	jsonw_kint(w, "records_skipped", (int64_t)l->skipped);
	if (l->rank >= 0)
		jsonw_kint(w, "rank", l->rank);
	else
		jsonw_knull(w, "rank");
	if (l->world_size >= 0)
		jsonw_kint(w, "world_size", l->world_size);
	else
		jsonw_knull(w, "world_size");
	jsonw_kstr(w, "host", live_str(l, l->host));
	jsonw_kint(w, "steps_completed", (int64_t)l->steps.n);
	if (l->open_num >= 0)
		jsonw_kint(w, "step_open", l->open_num);
	else
		jsonw_knull(w, "step_open");
	jsonw_kdouble(w, "trace_start_us", us(t0_of(l)));
	jsonw_kdouble(w, "trace_end_us", us(l->last_ts == INT64_MIN ? 0 : l->last_ts));
}

static void stats(struct jsonw *w, const char *key, const struct live_step_stats *st)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_kint(w, "n", (int64_t)st->n);
	jsonw_kdouble(w, "last", (double)st->last / 1e6);
	jsonw_kdouble(w, "min", (double)st->min / 1e6);
	jsonw_kdouble(w, "median", (double)st->median / 1e6);
	jsonw_kdouble(w, "mean", st->mean / 1e6);
	jsonw_kdouble(w, "p90", (double)st->p90 / 1e6);
	jsonw_kdouble(w, "max", (double)st->max / 1e6);
	jsonw_kdouble(w, "steps_per_s", st->steps_per_s);
	jsonw_obj_end(w);
}

/* The other time of a step: what its categories do not cover. */
static int64_t other_of(const struct live_step *s)
{
	int64_t o =
	    (s->end - s->start) - s->kernel - s->memcpy - s->comm - s->dataloader - s->cpu_ops;

	return o > 0 ? o : 0;
}

/* The steps from the latest `max` on, with their breakdown now; *first is
 * the index of the first. NULL when none (or out of memory). */
static struct live_step *steps_now(const struct live *l, size_t max, size_t *first, size_t *n)
{
	struct live_step *s;

	*first = l->steps.n > max ? l->steps.n - max : 0;
	*n = l->steps.n - *first;
	if (!*n || !(s = malloc(*n * sizeof(*s)))) {
		*n = 0;
		return NULL;
	}
	live_steps_now(l, *first, s);
	return s;
}

static void op_rows(struct jsonw *w, const struct live *l, const struct live_op *r, size_t n,
		    int full)
{
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", live_str(l, r[i].name));
		jsonw_kint(w, "calls", (int64_t)r[i].calls);
		jsonw_kdouble(w, "host_self_us", us(r[i].self));
		jsonw_kdouble(w, "host_total_us", us(r[i].total));
		if (full) {
			jsonw_kdouble(w, "device_self_us", 0);
			jsonw_kdouble(w, "device_total_us", 0);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void kernel_rows(struct jsonw *w, const struct live *l, const struct live_kernel *r,
			size_t n)
{
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", live_str(l, r[i].name));
		jsonw_kint(w, "calls", (int64_t)r[i].calls);
		jsonw_kdouble(w, "total_us", us(r[i].total));
		jsonw_kdouble(w, "mean_us", r[i].calls ? us(r[i].total) / (double)r[i].calls : 0);
		jsonw_kdouble(w, "min_us", us(r[i].min));
		jsonw_kdouble(w, "max_us", us(r[i].max));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static int ops_table(struct jsonw *w, const char *key, const struct live *l, size_t last,
		     size_t max, int full)
{
	struct live_op *r;
	size_t n;

	if (live_top_ops(l, last, &r, &n))
		return NNS_ENOMEM;
	jsonw_key(w, key);
	op_rows(w, l, r, n < max ? n : max, full);
	free(r);
	return NNS_OK;
}

static int kernels_table(struct jsonw *w, const char *key, const struct live *l, size_t last,
			 size_t max, int64_t *total)
{
	struct live_kernel *r;
	size_t n;

	if (live_top_kernels(l, last, &r, &n))
		return NNS_ENOMEM;
	if (total)
		for (size_t i = 0; i < n; i++)
			*total += r[i].total;
	jsonw_key(w, key);
	kernel_rows(w, l, r, n < max ? n : max);
	free(r);
	return NNS_OK;
}

static const char *device_name(int16_t d, char *buf, size_t size)
{
	if (d < 0)
		return "CPU";
	snprintf(buf, size, "GPU%d", d);
	return buf;
}

static void series(struct jsonw *w, const char *key, const struct live_series *s, int64_t t0,
		   int cols)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < s->p.n; i++) {
		jsonw_arr_begin(w);
		jsonw_double(w, us(s->p.v[i].ts - t0));
		for (int c = 0; c < cols; c++)
			jsonw_double(w, s->p.v[i].v[c]);
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
}

/* The latest point's values of a series (zeros when empty). */
static const double *latest(const struct live_series *s)
{
	static const double zero[4];

	return s->p.n ? s->p.v[s->p.n - 1].v : zero;
}

/* ---- documents --------------------------------------------------------- */

void live_json_memory(struct jsonw *w, const struct live *l)
{
	char dn[16];

	jsonw_arr_begin(w);
	for (size_t i = 0; i < l->mems.n; i++) {
		const struct live_mem *m = &l->mems.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "device", device_name(m->device, dn, sizeof(dn)));
		jsonw_kint(w, "allocated_bytes", m->allocated);
		jsonw_kint(w, "reserved_bytes", m->reserved);
		jsonw_kint(w, "peak_allocated_bytes", m->peak_allocated);
		jsonw_kint(w, "peak_reserved_bytes", m->peak_reserved);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static int summary(struct jsonw *w, const struct live *l, size_t last)
{
	struct live_step_stats st;
	size_t first, n;
	struct live_step *s = steps_now(l, SUMMARY_STEPS, &first, &n);
	int64_t t0 = t0_of(l), kern = 0, wall = 0;

	jsonw_kint(w, "last", (int64_t)last);
	live_step_stats(l, last, &st);
	stats(w, "step_ms", &st);
	live_step_stats(l, 0, &st);
	stats(w, "run_step_ms", &st);
	jsonw_kstr(w, "steps_columns",
		   "[step, start_us since trace start, total_us, dataloader_us, cpu_ops_us, "
		   "kernel_us, memcpy_us, communication_us, other_us]");
	jsonw_kint(w, "steps_first", (int64_t)first);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_arr_begin(w);
		jsonw_int(w, s[i].num);
		jsonw_double(w, us(s[i].start - t0));
		jsonw_double(w, us(s[i].end - s[i].start));
		jsonw_double(w, us(s[i].dataloader));
		jsonw_double(w, us(s[i].cpu_ops));
		jsonw_double(w, us(s[i].kernel));
		jsonw_double(w, us(s[i].memcpy));
		jsonw_double(w, us(s[i].comm));
		jsonw_double(w, us(other_of(&s[i])));
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	for (size_t i = n > last ? n - last : 0; i < n; i++) {
		kern += s[i].kernel;
		wall += s[i].end - s[i].start;
	}
	free(s);
	jsonw_kdouble(w, "gpu_busy_pct", wall > 0 ? 100.0 * (double)kern / (double)wall : 0);
	if (ops_table(w, "operators_last", l, last, TOP_ROWS, 0) ||
	    ops_table(w, "operators", l, 0, TOP_ROWS, 0) ||
	    kernels_table(w, "kernels_last", l, last, TOP_ROWS, NULL) ||
	    kernels_table(w, "kernels", l, 0, TOP_ROWS, NULL))
		return NNS_ENOMEM;
	jsonw_key(w, "memory");
	live_json_memory(w, l);
	jsonw_key(w, "cpu");
	jsonw_obj_begin(w);
	jsonw_kint(w, "samples", (int64_t)l->samples);
	if (l->cpu_machine.p.n) {
		const double *v = latest(&l->cpu_machine);

		jsonw_kdouble(w, "machine_user", v[0]);
		jsonw_kdouble(w, "machine_sys", v[1]);
		jsonw_kdouble(w, "machine_idle", v[2]);
	}
	if (l->cpu_process.p.n) {
		const double *v = latest(&l->cpu_process);

		jsonw_kdouble(w, "process_user", v[0]);
		jsonw_kdouble(w, "process_sys", v[1]);
		jsonw_kint(w, "rss_kb", (int64_t)v[2]);
	}
	jsonw_obj_end(w);
	jsonw_key(w, "queues");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < l->queues.n; i++) {
		const struct live_queue *q = &l->queues.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", live_str(l, q->name));
		jsonw_kint(w, "samples", (int64_t)q->samples);
		jsonw_kdouble(w, "avg_size", q->samples ? q->size_sum / (double)q->samples : 0);
		jsonw_kint(w, "capacity", q->capacity);
		jsonw_kdouble(w, "empty_ratio",
			      q->samples ? (double)q->empty / (double)q->samples : 0);
		jsonw_kdouble(w, "full_ratio",
			      q->samples ? (double)q->full / (double)q->samples : 0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	return NNS_OK;
}

/* overview.json's steps (and average) of the completed steps. */
static int overview(struct jsonw *w, const struct live *l, const struct live_src *src)
{
	size_t first, n;
	struct live_step *s = steps_now(l, SIZE_MAX, &first, &n);
	double avg[8] = {0};
	static const char *const keys[8] = {"total_us",		"kernel_us",	 "memcpy_us",
					    "communication_us", "dataloader_us", "cpu_exec_us",
					    "other_us",		"runtime_us"};
	char name[32];

	if (l->steps.n && !s)
		return NNS_ENOMEM;
	jsonw_kstr(w, "nnscope_version", NNS_VERSION_STRING);
	jsonw_kstr(w, "source", src->file);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		double v[8] = {
		    us(s[i].end - s[i].start), us(s[i].kernel),	 us(s[i].memcpy),     us(s[i].comm),
		    us(s[i].dataloader),       us(s[i].cpu_ops), us(other_of(&s[i])), 0};

		snprintf(name, sizeof(name), "%lld", (long long)s[i].num);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", name);
		for (int k = 0; k < 8; k++) {
			jsonw_kdouble(w, keys[k], v[k]);
			avg[k] += v[k] / (double)n;
		}
		jsonw_kdouble(w, "memset_us", 0);
		jsonw_kdouble(w, "start_us", us(s[i].start));
		jsonw_kdouble(w, "end_us", us(s[i].end));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	free(s);
	jsonw_key(w, "average");
	jsonw_obj_begin(w);
	for (int k = 0; k < 8; k++)
		jsonw_kdouble(w, keys[k], avg[k]);
	jsonw_kdouble(w, "memset_us", 0);
	jsonw_kint(w, "steps", (int64_t)n);
	jsonw_obj_end(w);
	jsonw_kbool(w, "has_kernel", l->kernels.n > 0);
	jsonw_kdouble(w, "trace_start_us", us(t0_of(l)));
	jsonw_kdouble(w, "trace_end_us", us(l->last_ts == INT64_MIN ? 0 : l->last_ts));
	if (l->rank >= 0)
		jsonw_kint(w, "rank", l->rank);
	else
		jsonw_knull(w, "rank");
	return NNS_OK;
}

static int memory(struct jsonw *w, const struct live *l)
{
	int64_t t0 = t0_of(l);
	char dn[16];

	jsonw_kstr(w, "curve_columns",
		   "[time_us since trace start, allocated bytes, reserved bytes]");
	jsonw_key(w, "devices");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < l->mems.n; i++) {
		const struct live_mem *m = &l->mems.v[i];

		jsonw_key(w, device_name(m->device, dn, sizeof(dn)));
		jsonw_obj_begin(w);
		jsonw_kint(w, "device_type", m->device < 0 ? 0 : 1);
		jsonw_kint(w, "device_id", m->device);
		jsonw_kint(w, "peak_allocated_bytes", m->peak_allocated);
		series(w, "curve", &m->s, t0, 2);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	return NNS_OK;
}

static void cpu_avg(struct jsonw *w, const char *key, const struct live_series *s, int cols)
{
	static const char *const names[4] = {"user", "sys", "idle", "iowait"};
	double sum[4] = {0};

	for (size_t i = 0; i < s->p.n; i++)
		for (int c = 0; c < cols; c++)
			sum[c] += s->p.v[i].v[c];
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_kint(w, "samples", (int64_t)s->raw);
	for (int c = 0; c < cols; c++)
		jsonw_kdouble(w, names[c], s->p.n ? sum[c] / (double)s->p.n : 0);
	jsonw_obj_end(w);
}

static int cpu(struct jsonw *w, const struct live *l)
{
	int64_t t0 = t0_of(l);
	uint64_t rss = 0;

	for (size_t i = 0; i < l->cpu_process.p.n; i++)
		if (l->cpu_process.p.v[i].v[2] > (double)rss)
			rss = (uint64_t)l->cpu_process.p.v[i].v[2];
	jsonw_kbool(w, "available", l->cpu_machine.p.n || l->cpu_process.p.n);
	jsonw_kstr(w, "units", "percent: machine of the whole machine, process of one CPU");
	cpu_avg(w, "machine", &l->cpu_machine, 4);
	cpu_avg(w, "process", &l->cpu_process, 2);
	jsonw_kint(w, "rss_peak_kb", (int64_t)rss);
	jsonw_kdouble(w, "trace_start_us", us(t0));
	jsonw_kstr(w, "series_columns", "[time_us since trace start, user, sys, idle, iowait]");
	series(w, "machine_series", &l->cpu_machine, t0, 4);
	series(w, "process_series", &l->cpu_process, t0, 2);
	return NNS_OK;
}

static int datapipe(struct jsonw *w, const struct live *l)
{
	int64_t t0 = t0_of(l);

	jsonw_kdouble(w, "trace_start_us", us(t0));
	jsonw_kstr(w, "series_columns", "[time_us since trace start, size, capacity]");
	jsonw_key(w, "queues");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < l->queues.n; i++) {
		const struct live_queue *q = &l->queues.v[i];
		double avg = q->samples ? q->size_sum / (double)q->samples : 0;

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", live_str(l, q->name));
		jsonw_kint(w, "samples", (int64_t)q->samples);
		jsonw_kdouble(w, "avg_size", avg);
		jsonw_kint(w, "max_size", q->max_size);
		jsonw_kint(w, "capacity", q->capacity);
		jsonw_kdouble(w, "utilization", q->capacity > 0 ? avg / (double)q->capacity : 0);
		jsonw_kint(w, "empty_count", (int64_t)q->empty);
		jsonw_kint(w, "full_count", (int64_t)q->full);
		jsonw_kdouble(w, "empty_ratio",
			      q->samples ? (double)q->empty / (double)q->samples : 0);
		jsonw_kdouble(w, "full_ratio",
			      q->samples ? (double)q->full / (double)q->samples : 0);
		series(w, "series", &q->s, t0, 1);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	return NNS_OK;
}

static const char *const views[] = {"summary", "overview", "operators", "kernels",
				    "memory",  "cpu",	   "datapipe"};

int live_json_has_view(const char *view)
{
	for (size_t i = 0; i < sizeof(views) / sizeof(*views); i++)
		if (strcmp(view, views[i]) == 0)
			return 1;
	return 0;
}

int live_json_view(struct jsonw *w, const struct live *l, const struct live_src *src,
		   const char *view, size_t last)
{
	int rc = NNS_OK;
	int64_t total = 0;

	if (!live_json_has_view(view))
		return NNS_EINVAL;
	if (last == 0)
		last = DEFAULT_LAST;
	if (last > LIVE_RECENT_STEPS)
		last = LIVE_RECENT_STEPS;
	jsonw_obj_begin(w);
	if (strcmp(view, "summary") == 0) {
		head(w, l, src);
		rc = summary(w, l, last);
		jsonw_obj_end(w);
		return rc;
	}
	jsonw_key(w, "live");
	jsonw_obj_begin(w);
	head(w, l, src);
	jsonw_obj_end(w);
	if (strcmp(view, "overview") == 0) {
		rc = overview(w, l, src);
	} else if (strcmp(view, "operators") == 0) {
		jsonw_kstr(w, "sort_by", "host_self_us");
		rc = ops_table(w, "by_name", l, 0, SIZE_MAX, 1);
	} else if (strcmp(view, "kernels") == 0) {
		rc = kernels_table(w, "by_name", l, 0, SIZE_MAX, &total);
		jsonw_kdouble(w, "total_us", us(total));
	} else if (strcmp(view, "memory") == 0) {
		rc = memory(w, l);
	} else if (strcmp(view, "cpu") == 0) {
		rc = cpu(w, l);
	} else {
		rc = datapipe(w, l);
	}
	jsonw_obj_end(w);
	return rc;
}
