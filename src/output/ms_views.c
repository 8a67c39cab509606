/*
 * ms_views.c - the MindSpore documents of views.c (rows flagged mindspore:
 * written only for workers that are MindSpore devices, ms_load.h). Each
 * reads its device's files when called, as the HTA writers run their
 * analyses; an absent file leaves its part null or empty, a damaged one is
 * named in the document's "errors" and the rest is kept.
 */
#include "importers/ms_load.h"
#include "importers/ms_st_table.h"
#include "output/ms_extra_json.h"
#include "output/ms_minddata_json.h"
#include "output/ms_ops_json.h"
#include "output/outfile.h"
#include "output/schema.h"
#include "output/output.h"

#include <stdlib.h>
#include <string.h>

#define MS_CSV_MAX ((size_t)1 << 30)
#define MS_MAX_ERRS 8

struct errs {
	char msg[MS_MAX_ERRS][NNS_ERR_MSG_MAX];
	const char *ptr[MS_MAX_ERRS];
	size_t n;
};

static void errs_add(struct errs *e, const struct nns_err *err)
{
	if (e->n < MS_MAX_ERRS) {
		memcpy(e->msg[e->n], err->msg, sizeof(e->msg[0]));
		e->ptr[e->n] = e->msg[e->n];
		e->n++;
	}
}

/* Reads one file of the device and parses it with parse(); 1 when parsed. */
static int read_file(const struct ms_src *s, const char *pre, const char *post,
		     int (*parse)(void *t, const char *buf, size_t n, struct nns_err *err), void *t,
		     struct errs *e)
{
	struct nns_err err;
	char *buf;
	size_t n;
	int rc;

	nns_err_clear(&err);
	rc = ms_src_read(s, pre, post, MS_CSV_MAX, &buf, &n, &err);
	if (rc == NNS_OK) {
		rc = parse(t, buf, n, &err);
		free(buf);
		if (rc) { /* the parsers say the line; the file is said here */
			char path[1024], msg[NNS_ERR_MSG_MAX];

			snprintf(msg, sizeof(msg), "%s", err.msg);
			if (ms_src_path(s, pre, post, path, sizeof(path)))
				snprintf(path, sizeof(path), "%s%d%s", pre, s->dev, post);
			nns_err_set(&err, rc, "%s: %s", path, msg);
		}
	}
	if (rc && rc != NNS_ENOTFOUND)
		errs_add(e, &err);
	return rc == NNS_OK;
}

static int parse_at(void *t, const char *buf, size_t n, struct nns_err *err)
{
	return ms_at_parse(t, buf, n, err);
}

static int parse_ad(void *t, const char *buf, size_t n, struct nns_err *err)
{
	return ms_ad_parse(t, buf, n, err);
}

void out_json_ms_ops_view(struct jsonw *w, const struct an_profile *p)
{
	struct ms_src s;
	struct ms_at at;
	struct ms_ad ad;
	struct ms_st_table t;
	struct ms_st_summary sum;
	struct nns_err err;
	struct errs e;
	int have_at, have_ad, have_sum = 0;

	memset(&at, 0, sizeof(at));
	memset(&ad, 0, sizeof(ad));
	memset(&e, 0, sizeof(e));
	if (!ms_model_src(p->m, &s)) {
		out_json_ms_ops(w, NULL, NULL, NULL, NULL, 0);
		return;
	}
	have_at = read_file(&s, "aicore_intermediate_", "_type.csv", parse_at, &at, &e);
	have_ad = read_file(&s, "aicore_intermediate_", "_detail.csv", parse_ad, &ad, &e);
	nns_err_clear(&err);
	if (ms_st_table_load(&t, &s, &err) == NNS_OK) {
		have_sum = ms_st_summarise_table(&t, &sum, &err) == NNS_OK;
		ms_st_table_release(&t);
	} else if (err.code != NNS_ENOTFOUND) {
		errs_add(&e, &err);
	}
	out_json_ms_ops(w, have_sum ? &sum : NULL, have_at ? &at : NULL, have_ad ? &ad : NULL,
			e.ptr, e.n);
	ms_at_release(&at);
	ms_ad_release(&ad);
}

/* The documents written by the readers' own writers (ms_minddata_json.h,
 * ms_extra_json.h); for a worker that is not a MindSpore device, an object
 * that says so. */
static void ms_doc(struct jsonw *w, const struct an_profile *p,
		   void (*fn)(struct jsonw *w, const struct ms_src *s))
{
	struct ms_src s;

	if (ms_model_src(p->m, &s)) {
		fn(w, &s);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kstr(w, "error", "not a MindSpore device");
	jsonw_obj_end(w);
}

void out_json_ms_minddata_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, out_json_ms_minddata);
}

void out_json_ms_flops_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, out_json_ms_flops);
}

void out_json_ms_op_detail_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, out_json_ms_op_detail);
}

void out_json_ms_aicpu_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, out_json_ms_aicpu);
}

void out_json_ms_dynshape_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, out_json_ms_dynshape);
}

/* ---- CSV tables (out_write_csv) ------------------------------------------ */

static void csv_num(FILE *f, double v)
{
	char b[40];

	fputc(',', f);
	jsonw_fmt_double(b, sizeof(b), v != v ? 0 : v);
	fputs(strcmp(b, "null") ? b : "", f);
}

static void csv_steps(FILE *f, const struct ms_st_table *t)
{
	static const char *const part[] = {"iteration_interval", "fp_and_bp", "tail", "total"};

	fputs("step,start_us,end_us,iteration_interval_us,fp_bp_us,tail_us,total_us\n", f);
	for (size_t i = 0; i < t->nrows; i++) {
		out_csv_field(f, i + 1 == t->nrows ? "average" : t->step[i]);
		csv_num(f, ms_st_cell(t, i, "start_point") / 100.0);
		csv_num(f, ms_st_cell(t, i, "end_point") / 100.0);
		for (size_t k = 0; k < 4; k++)
			csv_num(f, ms_st_cell(t, i, part[k]) / 100.0);
		fputc('\n', f);
	}
}

static void csv_types(FILE *f, const struct ms_at *at)
{
	static const char *const cols[] = {"kernel_type", "total_time_us", "execution_frequency",
					   "avg_time_us", NULL};

	sc_csv_header(f, &sc_ms_op_types, cols);
	sc_csv_rows(f, &sc_ms_op_types, at->rows.v, at->rows.n, NULL, cols);
}

static void csv_ops(FILE *f, const struct ms_ad *ad)
{
	sc_csv_header(f, &sc_ms_ops, NULL);
	sc_csv_rows(f, &sc_ms_ops, ad->rows.v, ad->rows.n, NULL, NULL);
}

int out_ms_op_tables(const struct an_profile *p, struct ms_at *at, struct ms_ad *ad)
{
	struct ms_src s;
	struct errs e;
	int got = 0;

	memset(&e, 0, sizeof(e));
	if (!ms_model_src(p->m, &s))
		return 0;
	if (read_file(&s, "aicore_intermediate_", "_type.csv", parse_at, at, &e))
		got |= 1;
	if (read_file(&s, "aicore_intermediate_", "_detail.csv", parse_ad, ad, &e))
		got |= 2;
	return got;
}

int out_write_ms_csv(const char *dir, const struct an_profile *p, struct nns_err *err)
{
	struct ms_src s;
	struct ms_st_table t;
	struct ms_at at;
	struct ms_ad ad;
	struct nns_err ignore;
	struct errs e;
	struct out_file of;
	int rc = NNS_OK;

	if (!ms_model_src(p->m, &s))
		return NNS_OK;
	memset(&e, 0, sizeof(e));
	memset(&at, 0, sizeof(at));
	memset(&ad, 0, sizeof(ad));
	if (ms_st_table_load(&t, &s, &ignore) == NNS_OK) {
		if ((rc = out_file_open(&of, dir, "ms_step_trace.csv", err)) == NNS_OK) {
			csv_steps(of.f, &t);
			rc = out_file_commit(&of, err);
		}
		ms_st_table_release(&t);
	}
	if (!rc && read_file(&s, "aicore_intermediate_", "_type.csv", parse_at, &at, &e) &&
	    (rc = out_file_open(&of, dir, "ms_op_type.csv", err)) == NNS_OK) {
		csv_types(of.f, &at);
		rc = out_file_commit(&of, err);
	}
	if (!rc && read_file(&s, "aicore_intermediate_", "_detail.csv", parse_ad, &ad, &e) &&
	    (rc = out_file_open(&of, dir, "ms_op_detail.csv", err)) == NNS_OK) {
		csv_ops(of.f, &ad);
		rc = out_file_commit(&of, err);
	}
	ms_at_release(&at);
	ms_ad_release(&ad);
	return rc;
}
