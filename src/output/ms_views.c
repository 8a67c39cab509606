/*
 * ms_views.c - the MindSpore documents of views.c (rows flagged mindspore:
 * written only for workers that are MindSpore devices, p->ms set) and the
 * MindSpore CSV tables. Each writes the device's results already read into
 * p->ms (an_ms.h); an absent file leaves its part null or empty, a damaged
 * one is named in the document's "errors" and the rest is kept.
 */
#include "analysis/an_ms.h"
#include "output/ms_extra_json.h"
#include "output/ms_minddata_json.h"
#include "output/ms_ops_json.h"
#include "output/ms_optab_json.h"
#include "output/outfile.h"
#include "output/schema.h"
#include "output/output.h"

#include <stdio.h>
#include <string.h>

void out_json_ms_ops_view(struct jsonw *w, const struct an_profile *p)
{
	const struct ms_profile *mp = p->ms;
	const char *errs[4 + MS_RAW_WARN_MAX];
	char more[96];
	size_t ne = 0;

	if (!mp) {
		out_json_ms_ops(w, NULL, NULL, NULL, NULL, 0);
		return;
	}
	/* a raw job's warnings, each (ms_raw.h keeps the first MS_RAW_WARN_MAX) */
	for (size_t i = 0; mp->raw_rc == NNS_OK && i < mp->raw.warnings.n; i++)
		errs[ne++] = mp->raw.warnings.v[i];
	if (mp->raw_rc == NNS_OK && mp->raw.nwarn > mp->raw.warnings.n) {
		snprintf(more, sizeof(more), "%zu more raw-file warnings not listed",
			 mp->raw.nwarn - mp->raw.warnings.n);
		errs[ne++] = more;
	}
	if (mp->at_part.rc && mp->at_part.rc != NNS_ENOTFOUND)
		errs[ne++] = mp->at_part.named;
	if (mp->ad_part.rc && mp->ad_part.rc != NNS_ENOTFOUND)
		errs[ne++] = mp->ad_part.named;
	if (mp->st_part.rc && mp->st_part.rc != NNS_ENOTFOUND)
		errs[ne++] = mp->st_part.named;
	out_json_ms_ops(w, !mp->st_part.rc && !mp->sum_rc ? &mp->sum : NULL,
			mp->at_part.rc ? NULL : &mp->at, mp->ad_part.rc ? NULL : &mp->ad, errs, ne);
}

/* The documents written by the readers' own writers (ms_minddata_json.h,
 * ms_extra_json.h); for a worker that is not a MindSpore device, an object
 * that says so. */
static void ms_doc(struct jsonw *w, const struct an_profile *p,
		   void (*fn)(struct jsonw *w, const struct ms_profile *mp))
{
	if (p->ms) {
		fn(w, p->ms);
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

static void gpu_ops(struct jsonw *w, const struct ms_profile *mp)
{
	out_json_ms_optabs(w, &mp->optabs, MS_OT_GPU_TYPE, MS_OT_GPU_ACTIVITY);
}

static void cpu_ops(struct jsonw *w, const struct ms_profile *mp)
{
	out_json_ms_optabs(w, &mp->optabs, MS_OT_CPU_TYPE, MS_OT_CPU_DETAIL);
}

void out_json_ms_gpu_ops_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, gpu_ops);
}

void out_json_ms_cpu_ops_view(struct jsonw *w, const struct an_profile *p)
{
	ms_doc(w, p, cpu_ops);
}

/* ---- CSV tables (out_write_csv) ------------------------------------------ */

static void csv_num(FILE *f, double v)
{
	char b[40];

	fputc(',', f);
	jsonw_fmt_double(b, sizeof(b), v != v ? 0 : v);
	fputs(strcmp(b, "null") ? b : "", f);
}

static void csv_steps(FILE *f, const struct ms_profile *mp)
{
	fputs("step,start_us,end_us,iteration_interval_us,fp_bp_us,tail_us,total_us\n", f);
	for (size_t i = 0; i < mp->steps.n; i++) {
		const struct ms_step_row *r = &mp->steps.v[i];

		out_csv_field(f, i + 1 == mp->steps.n ? "average" : r->name);
		csv_num(f, r->start_us);
		csv_num(f, r->end_us);
		csv_num(f, r->interval_us);
		csv_num(f, r->fp_bp_us);
		csv_num(f, r->tail_us);
		csv_num(f, r->total_us);
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

int out_write_ms_csv(const char *dir, const struct an_profile *p, struct nns_err *err)
{
	const struct ms_profile *mp = p->ms;
	struct out_file of;
	int rc = NNS_OK;

	if (!mp)
		return NNS_OK;
	if (mp->st_part.rc == NNS_OK &&
	    (rc = out_file_open(&of, dir, "ms_step_trace.csv", err)) == NNS_OK) {
		csv_steps(of.f, mp);
		rc = out_file_commit(&of, err);
	}
	if (!rc && mp->at_part.rc == NNS_OK &&
	    (rc = out_file_open(&of, dir, "ms_op_type.csv", err)) == NNS_OK) {
		csv_types(of.f, &mp->at);
		rc = out_file_commit(&of, err);
	}
	if (!rc && mp->ad_part.rc == NNS_OK &&
	    (rc = out_file_open(&of, dir, "ms_op_detail.csv", err)) == NNS_OK) {
		csv_ops(of.f, &mp->ad);
		rc = out_file_commit(&of, err);
	}
	return rc;
}
