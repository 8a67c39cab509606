/*
 * ms_host_out.c - the host_info rows of a MindSpore device split out as
 * MindSpore's Profiler.analyse does for `profile_framework` (ms_host_out.h):
 * the host memory rows, the host timeline (Chrome trace) and the view
 * "ms_host". Only writes: the rows are the model's (importers/hostinfo.c).
 */
#include "output/ms_host_out.h"
#include "analysis/analysis.h"
#include "output/outfile.h"
#include "output/output.h"

#include <stdlib.h>
#include <string.h>

static const char *const COLS[] = {
    "tid",   "pid",	  "parent_pid",	 "module_name",	     "event",	       "stage",
    "level", "start_end", "custom_info", "memory_usage(kB)", "time_stamp(us)", NULL,
};

static const char *str(const struct model *m, uint32_t id)
{
	return id ? model_str(m, id) : "";
}

size_t ms_host_memory_rows(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->host.n; i++)
		n += m->host.v[i].memory_kb != 0;
	return n;
}

/* ---- host_memory.csv ----------------------------------------------------- */

static void csv_row(FILE *f, const struct model *m, const struct model_host *r)
{
	fprintf(f, "%lld,%lld,%lld,", (long long)r->tid, (long long)r->pid,
		(long long)r->parent_pid);
	out_csv_field(f, str(m, r->module));
	fputc(',', f);
	out_csv_field(f, str(m, r->event));
	fputc(',', f);
	out_csv_field(f, str(m, r->stage));
	fprintf(f, ",%d,%d,", r->level, r->start_end);
	out_csv_field(f, str(m, r->custom));
	fprintf(f, ",%lld,%lld\n", (long long)r->memory_kb, (long long)r->ts_us);
}

/* ---- the host timeline --------------------------------------------------- */

/* A row's sort key: (pid, tid, module, event, stage), then time, then
 * file order (qsort is not stable). */
struct hkey {
	int64_t pid, tid, ts;
	uint32_t module, event, stage;
	size_t i;
};

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int same_group(const struct hkey *x, const struct hkey *y)
{
	return x->pid == y->pid && x->tid == y->tid && x->module == y->module &&
	       x->event == y->event && x->stage == y->stage;
}

static int key_cmp(const void *a, const void *b)
{
	const struct hkey *x = a, *y = b;
	int c;

	if ((c = cmp_i64(x->pid, y->pid)) || (c = cmp_i64(x->tid, y->tid)) ||
	    (c = cmp_i64(x->module, y->module)) || (c = cmp_i64(x->event, y->event)) ||
	    (c = cmp_i64(x->stage, y->stage)) || (c = cmp_i64(x->ts, y->ts)))
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void ev_common(struct jsonw *w, const struct model *m, const struct model_host *r,
		      const char *ph)
{
	char name[600];

	snprintf(name, sizeof(name), "%.290s::%.290s", str(m, r->event), str(m, r->stage));
	jsonw_kstr(w, "name", name);
	jsonw_kstr(w, "cat", str(m, r->module));
	jsonw_kstr(w, "ph", ph);
	jsonw_kint(w, "pid", r->pid);
	jsonw_kint(w, "tid", r->tid);
	jsonw_kint(w, "ts", r->ts_us);
}

static void ev_args(struct jsonw *w, const struct model *m, const struct model_host *r)
{
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "module_name", str(m, r->module));
	jsonw_kint(w, "level", r->level);
	if (r->custom)
		jsonw_kstr(w, "custom_info", str(m, r->custom));
	jsonw_obj_end(w);
}

int ms_host_timeline(struct jsonw *w, const struct model *m, struct ms_host_counts *n)
{
	struct hkey *ix = NULL;
	size_t *stack = NULL, k = 0;

	memset(n, 0, sizeof(*n));
	if (m->host.n && (!(ix = malloc(m->host.n * sizeof(*ix))) ||
			  !(stack = malloc(m->host.n * sizeof(*stack))))) {
		free(ix);
		return NNS_ENOMEM;
	}
	for (size_t i = 0; i < m->host.n; i++) {
		const struct model_host *r = &m->host.v[i];

		if (r->ts_us == 0)
			continue;
		ix[k++] = (struct hkey){r->pid, r->tid, r->ts_us, r->module, r->event, r->stage, i};
	}
	if (k > 1)
		qsort(ix, k, sizeof(*ix), key_cmp);
	jsonw_obj_begin(w);
	jsonw_kstr(w, "displayTimeUnit", "ms");
	jsonw_key(w, "traceEvents");
	jsonw_arr_begin(w);
	for (size_t a = 0; a < k;) {
		size_t b = a + 1, sp = 0;

		while (b < k && same_group(&ix[a], &ix[b]))
			b++;
		/* one (pid, tid, module, event, stage) in time order: an end closes
		 * the latest open start */
		for (size_t c = a; c < b; c++) {
			const struct model_host *r = &m->host.v[ix[c].i];

			if (r->start_end == 0) {
				stack[sp++] = ix[c].i;
			} else if (r->start_end == 1) {
				const struct model_host *s;

				if (!sp) {
					n->unmatched_ends++;
					continue;
				}
				s = &m->host.v[stack[--sp]];
				jsonw_obj_begin(w);
				ev_common(w, m, s, "X");
				jsonw_kint(w, "dur", r->ts_us - s->ts_us);
				ev_args(w, m, s);
				jsonw_obj_end(w);
				n->spans++;
			} else {
				jsonw_obj_begin(w);
				ev_common(w, m, r, "i");
				jsonw_kstr(w, "s", "t");
				ev_args(w, m, r);
				jsonw_obj_end(w);
				n->instants++;
			}
		}
		n->unmatched_starts += sp;
		a = b;
	}
	/* the host memory as a counter per process, in file order */
	for (size_t i = 0; i < m->host.n; i++) {
		const struct model_host *r = &m->host.v[i];

		if (!r->memory_kb || !r->ts_us)
			continue;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", "Host memory (kB)");
		jsonw_kstr(w, "ph", "C");
		jsonw_kint(w, "pid", r->pid);
		jsonw_kint(w, "ts", r->ts_us);
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		jsonw_kint(w, "memory_usage(kB)", r->memory_kb);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
		n->counters++;
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	free(ix);
	free(stack);
	return NNS_OK;
}

/* ---- files --------------------------------------------------------------- */

int out_write_ms_host(const char *dir, const struct an_profile *p, struct nns_err *err)
{
	const struct model *m = p->m;
	struct out_file of;
	struct jsonw w;
	struct ms_host_counts n;
	int rc;

	if (!p->ms || !m || !m->host.n)
		return NNS_OK;
	if (ms_host_memory_rows(m)) {
		if ((rc = out_file_open(&of, dir, "host_memory.csv", err)))
			return rc;
		for (int c = 0; COLS[c]; c++)
			fprintf(of.f, "%s%s", c ? "," : "", COLS[c]);
		fputc('\n', of.f);
		for (size_t i = 0; i < m->host.n; i++)
			if (m->host.v[i].memory_kb != 0)
				csv_row(of.f, m, &m->host.v[i]);
		if ((rc = out_file_commit(&of, err)))
			return rc;
	}
	if ((rc = out_file_open(&of, dir, "host_timeline.json", err)))
		return rc;
	if (jsonw_init_file(&w, of.f, 0)) {
		out_file_abort(&of);
		return nns_err_set(err, NNS_ENOMEM, "host_timeline.json: out of memory");
	}
	rc = ms_host_timeline(&w, m, &n);
	if (!rc)
		rc = jsonw_finish(&w, err);
	else
		nns_err_set(err, rc, "host_timeline.json: out of memory");
	jsonw_release(&w);
	if (rc) {
		out_file_abort(&of);
		return rc;
	}
	return out_file_commit(&of, err);
}

/* ---- the view ------------------------------------------------------------ */

void out_json_ms_host_view(struct jsonw *w, const struct an_profile *p)
{
	const struct model *m = p->m;
	size_t nmem = m ? ms_host_memory_rows(m) : 0, shown = 0;
	int64_t peak = 0;

	jsonw_obj_begin(w);
	if (!p->ms || !m) {
		jsonw_kstr(w, "error", "not a MindSpore device");
		jsonw_obj_end(w);
		return;
	}
	jsonw_kint(w, "rows", (int64_t)m->host.n);
	jsonw_key(w, "memory");
	if (!nmem) {
		jsonw_null(w);
	} else {
		jsonw_obj_begin(w);
		jsonw_key(w, "col_name");
		jsonw_arr_begin(w);
		for (int c = 0; COLS[c]; c++)
			jsonw_str(w, COLS[c]);
		jsonw_arr_end(w);
		jsonw_key(w, "object");
		jsonw_arr_begin(w);
		for (size_t i = 0; i < m->host.n; i++) {
			const struct model_host *r = &m->host.v[i];

			if (!r->memory_kb)
				continue;
			if (r->memory_kb > peak)
				peak = r->memory_kb;
			if (shown >= MS_HOST_VIEW_MAX)
				continue;
			shown++;
			jsonw_arr_begin(w);
			jsonw_int(w, r->tid);
			jsonw_int(w, r->pid);
			jsonw_int(w, r->parent_pid);
			jsonw_str(w, str(m, r->module));
			jsonw_str(w, str(m, r->event));
			jsonw_str(w, str(m, r->stage));
			jsonw_int(w, r->level);
			jsonw_int(w, r->start_end);
			jsonw_str(w, str(m, r->custom));
			jsonw_int(w, r->memory_kb);
			jsonw_int(w, r->ts_us);
			jsonw_arr_end(w);
		}
		jsonw_arr_end(w);
		jsonw_kint(w, "size", (int64_t)nmem);
		jsonw_kint(w, "shown", (int64_t)shown);
		jsonw_kint(w, "peak_kb", peak);
		jsonw_obj_end(w);
	}
	{
		struct ms_host_counts n;
		struct jsonw sink;

		/* the timeline's counts, as analyse writes it (into a discarded buffer) */
		if (m->host.n && !jsonw_init_mem(&sink, (size_t)1 << 30, 0) &&
		    !ms_host_timeline(&sink, m, &n)) {
			jsonw_key(w, "timeline");
			jsonw_obj_begin(w);
			jsonw_kstr(w, "file", "host_timeline.json");
			jsonw_kint(w, "spans", (int64_t)n.spans);
			jsonw_kint(w, "instants", (int64_t)n.instants);
			jsonw_kint(w, "counters", (int64_t)n.counters);
			jsonw_kint(w, "unmatched_starts", (int64_t)n.unmatched_starts);
			jsonw_kint(w, "unmatched_ends", (int64_t)n.unmatched_ends);
			jsonw_obj_end(w);
			jsonw_release(&sink);
		} else {
			jsonw_knull(w, "timeline");
		}
	}
	jsonw_knull(w, "dataset");
	jsonw_kstr(w, "dataset_note", MS_HOST_DATASET_NOTE);
	jsonw_obj_end(w);
}
