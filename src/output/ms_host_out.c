/*
 * ms_host_out.c - MindSpore's host_info outputs written as Python writes
 * them (ms_host_out.h): csv.writer's minimal quoting and "\r\n", floats as
 * repr(), json.dump's separators and ensure_ascii escapes. Only writes:
 * the rows and items are analysis/ms_host.c's.
 */
#include "output/ms_host_out.h"
#include "analysis/an_ms.h"
#include "analysis/analysis.h"
#include "common/fs.h"
#include "common/jsonesc.h"
#include "common/num.h"
#include "output/outfile.h"
#include "output/output.h"

#include <inttypes.h>
#include <string.h>

/* ---- Python's csv.writer (excel dialect) and json.dump ------------------- */

/* One field of a row (csv_out.c's Python rule). */
static void py_csv_field(FILE *f, const char *s, int first)
{
	if (!first)
		fputc(',', f);
	out_csv_field_py(f, s);
}

static void put_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, (FILE *)ctx);
}

/* A json.dumps string, or null for None. */
static void py_json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	json_escape(s, strlen(s), JSON_ESC_ASCII, put_file, f);
	fputc('"', f);
}

/* ---- the three files ------------------------------------------------------ */

/* MindSpore's name of a rank's file: <pre>_<rank>.<ext>. */
static void file_name(char *name, size_t size, const char *pre, int64_t rank, const char *ext)
{
	snprintf(name, size, "%s_%" PRId64 ".%s", pre, rank, ext);
}

static int open_file(struct out_file *of, const char *dir, const char *pre, int64_t rank,
		     const char *ext, struct nns_err *err)
{
	char name[64];

	file_name(name, sizeof(name), pre, rank, ext);
	return out_file_open(of, dir, name, err);
}

/* dataset_<rank>.csv's header (MindSpore's _calculate_dataset_execution_time) */
static const char *const dataset_head[] = {"Operation", "Stage", "Occurrences", "Avg. time (us)",
					   "Custom Info"};

static void memory_csv(FILE *f, const struct ms_host_csv *h, const struct ms_host_result *r)
{
	size_t n = r->mem_raise_at >= 0 ? (size_t)r->mem_raise_at : r->mem.n;

	for (int c = 0; c < MSH_NCOL; c++)
		py_csv_field(f, ms_host_cols[c], c == 0);
	fputs("\r\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct ms_host_row *row = &h->rows.v[r->mem.v[i]];

		for (int c = 0; c < MSH_NCOL; c++)
			py_csv_field(f, ms_host_val(h, row, c), c == 0);
		fputs("\r\n", f);
	}
}

static void timeline_json(FILE *f, const struct ms_host_csv *h, const struct ms_host_result *r)
{
	fputc('[', f);
	for (size_t i = 0; i < r->tl.n; i++) {
		const struct ms_host_tl_item *it = &r->tl.v[i];
		const struct ms_host_row *row = &h->rows.v[it->row];

		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		if (it->kind == MSH_B) {
			py_json_str(f, strpool_get(&r->strings, it->name));
			fputs(", \"pid\": ", f);
			py_json_str(f, strpool_get(&r->strings, it->pid));
			fputs(", \"tid\": ", f);
			py_json_str(f, strpool_get(&r->strings, it->tid));
			fprintf(f, ", \"ph\": \"B\", \"ts\": %" PRId64 "}", it->ts);
			continue;
		}
		fputc('"', f);
		json_escape(ms_host_val(h, row, MSH_EVENT), strlen(ms_host_val(h, row, MSH_EVENT)),
			    JSON_ESC_ASCII, put_file, f);
		fputs("::", f);
		json_escape(ms_host_val(h, row, MSH_STAGE), strlen(ms_host_val(h, row, MSH_STAGE)),
			    JSON_ESC_ASCII, put_file, f);
		fputs("\", \"cat\": ", f);
		py_json_str(f, ms_host_val(h, row, MSH_MODULE));
		if (it->kind == MSH_X)
			fprintf(f, ", \"ts\": %" PRId64 ", \"dur\": %" PRId64 ", \"ph\": \"X\"",
				it->ts, it->dur);
		else
			fprintf(f, ", \"ts\": %" PRId64 ", \"ph\": \"i\"", it->ts);
		fputs(", \"pid\": ", f);
		py_json_str(f, ms_host_val(h, row, MSH_PID));
		fputs(", \"tid\": ", f);
		py_json_str(f, ms_host_val(h, row, MSH_TID));
		fputs(", \"args\": {\"parent_pid\": ", f);
		py_json_str(f, ms_host_val(h, row, MSH_PPID));
		fputs("}}", f);
	}
	fputc(']', f);
}

static void dataset_csv(FILE *f, const struct ms_host_csv *h, const struct ms_host_result *r)
{

	for (int c = 0; c < 5; c++)
		py_csv_field(f, dataset_head[c], c == 0);
	fputs("\r\n", f);
	for (size_t i = 0; i < r->ds.n; i++) {
		const struct ms_host_ds_item *d = &r->ds.v[i];
		const struct ms_host_row *row = &h->rows.v[d->row];
		char cnt[24], avg[NUM_PYFLOAT_MAX];

		snprintf(cnt, sizeof(cnt), "%" PRId64, d->count);
		num_pyfloat(d->avg, avg, sizeof(avg));
		py_csv_field(f, ms_host_val(h, row, MSH_EVENT), 1);
		py_csv_field(f, ms_host_val(h, row, MSH_STAGE), 0);
		py_csv_field(f, cnt, 0);
		py_csv_field(f, avg, 0);
		py_csv_field(f, ms_host_val(h, row, MSH_CUSTOM), 0);
		fputs("\r\n", f);
	}
}

void out_ms_host_stream(FILE *f, int which, const struct ms_host_csv *h,
			const struct ms_host_result *r)
{
	if (which == MS_HOST_MEMORY)
		memory_csv(f, h, r);
	else if (which == MS_HOST_TIMELINE)
		timeline_json(f, h, r);
	else
		dataset_csv(f, h, r);
}

typedef void (*file_fn)(FILE *f, const struct ms_host_csv *h, const struct ms_host_result *r);

static int write_one(const char *dir, const char *pre, const char *ext, file_fn fn,
		     const struct ms_host_csv *h, const struct ms_host_result *r,
		     struct nns_err *err)
{
	struct out_file of;
	int rc;

	if ((rc = open_file(&of, dir, pre, h->rank, ext, err)))
		return rc;
	fn(of.f, h, r);
	return out_file_commit(&of, err);
}

int out_ms_host_files(const char *dir, const struct ms_host_csv *h, const struct ms_host_result *r,
		      struct nns_err *err)
{
	int rc = NNS_OK;

	if (!ms_host_writes_memory(r) && !ms_host_writes_timeline(r) && !ms_host_writes_dataset(r))
		return NNS_OK;
	if ((rc = fs_mkdirs(dir, err)))
		return rc;
	if (ms_host_writes_memory(r))
		rc = write_one(dir, "host_memory", "csv", memory_csv, h, r, err);
	if (!rc && ms_host_writes_timeline(r))
		rc = write_one(dir, "timeline", "json", timeline_json, h, r, err);
	if (!rc && ms_host_writes_dataset(r))
		rc = write_one(dir, "dataset", "csv", dataset_csv, h, r, err);
	return rc;
}

int out_write_ms_host(const char *out_root, const struct an_profile *p, struct nns_err *err)
{
	char dir[OUT_PATH_MAX];
	int rc;

	if (!p->ms || p->ms->host_rc != NNS_OK)
		return NNS_OK;
	if ((rc = out_join(dir, sizeof(dir), out_root, "host_info", err)))
		return rc;
	return out_ms_host_files(dir, &p->ms->host, &p->ms->host_res, err);
}

/* ---- the view ------------------------------------------------------------- */

static void view_memory(struct jsonw *w, const struct ms_host_csv *h,
			const struct ms_host_result *r)
{
	size_t shown = r->mem.n < MS_HOST_VIEW_MAX ? r->mem.n : MS_HOST_VIEW_MAX;
	char file[64];

	if (!ms_host_writes_memory(r)) {
		jsonw_knull(w, "memory");
		return;
	}
	file_name(file, sizeof(file), "host_memory", h->rank, "csv");
	jsonw_key(w, "memory");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", file);
	jsonw_key(w, "col_name");
	jsonw_arr_begin(w);
	for (int c = 0; c < MSH_NCOL; c++)
		jsonw_str(w, ms_host_cols[c]);
	jsonw_arr_end(w);
	jsonw_key(w, "object");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_host_row *row = &h->rows.v[r->mem.v[i]];

		jsonw_arr_begin(w);
		for (int c = 0; c < MSH_NCOL; c++) {
			const char *s = ms_host_val(h, row, c);

			if (s)
				jsonw_str(w, s);
			else
				jsonw_null(w);
		}
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "size", (int64_t)r->mem.n);
	jsonw_kint(w, "shown", (int64_t)shown);
	jsonw_kint(w, "peak_kb", r->mem_peak_kb);
	jsonw_obj_end(w);
}

static void view_timeline(struct jsonw *w, const struct ms_host_csv *h,
			  const struct ms_host_result *r)
{
	size_t k[3] = {0, 0, 0};
	char file[64];

	if (!ms_host_writes_timeline(r)) {
		jsonw_knull(w, "timeline");
		return;
	}
	for (size_t i = 0; i < r->tl.n; i++)
		k[r->tl.v[i].kind]++;
	file_name(file, sizeof(file), "timeline", h->rank, "json");
	jsonw_key(w, "timeline");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", file);
	jsonw_kint(w, "items", (int64_t)r->tl.n);
	jsonw_kint(w, "spans", (int64_t)k[MSH_X]);
	jsonw_kint(w, "instants", (int64_t)k[MSH_I]);
	jsonw_kint(w, "unfinished", (int64_t)k[MSH_B]);
	jsonw_obj_end(w);
}

static void view_dataset(struct jsonw *w, const struct ms_host_csv *h,
			 const struct ms_host_result *r)
{
	char file[64];

	if (!ms_host_writes_dataset(r)) {
		jsonw_knull(w, "dataset");
		return;
	}
	file_name(file, sizeof(file), "dataset", h->rank, "csv");
	jsonw_key(w, "dataset");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", file);
	jsonw_key(w, "col_name");
	jsonw_arr_begin(w);
	for (int c = 0; c < 5; c++)
		jsonw_str(w, dataset_head[c]);
	jsonw_arr_end(w);
	jsonw_key(w, "object");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->ds.n && i < MS_HOST_VIEW_MAX; i++) {
		const struct ms_host_ds_item *d = &r->ds.v[i];
		const struct ms_host_row *row = &h->rows.v[d->row];

		jsonw_arr_begin(w);
		jsonw_str(w, ms_host_val(h, row, MSH_EVENT));
		jsonw_str(w, ms_host_val(h, row, MSH_STAGE));
		jsonw_int(w, d->count);
		jsonw_double(w, d->avg);
		jsonw_str(w, ms_host_val(h, row, MSH_CUSTOM));
		jsonw_arr_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "size", (int64_t)r->ds.n);
	jsonw_kint(w, "unmatched_starts", r->ds_unmatched_starts);
	jsonw_obj_end(w);
}

static void view_notes(struct jsonw *w, const struct ms_host_result *r)
{
	char msg[160];

	jsonw_key(w, "notes");
	jsonw_arr_begin(w);
	if (r->parse_raised) {
		snprintf(msg, sizeof(msg),
			 "row %" PRId64 " makes MindSpore's _parse_host_info raise (a value int() "
			 "or str + cannot take): no host_info output",
			 r->parse_raised_row + 2);
		jsonw_str(w, msg);
	}
	if (r->mem_raise_at >= 0)
		jsonw_str(w, "a memory row has a column outside MindSpore's memory_header: "
			     "csv.DictWriter raises there, so the memory file stops at it and "
			     "neither the timeline nor the dataset file is written");
	if (r->ds_raised) {
		snprintf(msg, sizeof(msg),
			 "row %" PRId64 " makes MindSpore's _calculate_dataset_execution_time "
			 "raise: no dataset file",
			 r->ds_raised_row + 2);
		jsonw_str(w, msg);
	}
	jsonw_arr_end(w);
}

void out_json_ms_host_view(struct jsonw *w, const struct an_profile *p)
{
	const struct ms_profile *mp = p->ms;

	jsonw_obj_begin(w);
	if (!mp) {
		jsonw_kstr(w, "error", "not a MindSpore device");
		jsonw_obj_end(w);
		return;
	}
	if (mp->host_rc != NNS_OK) {
		jsonw_knull(w, "rank");
		jsonw_kint(w, "rows", 0);
		if (mp->host_rc == NNS_ENOTFOUND)
			jsonw_knull(w, "error");
		else
			jsonw_kstr(w, "error", mp->host_err.msg);
		jsonw_knull(w, "memory");
		jsonw_knull(w, "timeline");
		jsonw_knull(w, "dataset");
		jsonw_obj_end(w);
		return;
	}
	{
		char file[64];

		snprintf(file, sizeof(file), "host_info_%" PRId64 ".csv", mp->host.rank);
		jsonw_kint(w, "rank", mp->host.rank);
		jsonw_kstr(w, "file", file);
	}
	jsonw_kint(w, "rows", (int64_t)mp->host.rows.n);
	jsonw_knull(w, "error");
	view_memory(w, &mp->host, &mp->host_res);
	view_timeline(w, &mp->host, &mp->host_res);
	view_dataset(w, &mp->host, &mp->host_res);
	view_notes(w, &mp->host_res);
	jsonw_obj_end(w);
}
