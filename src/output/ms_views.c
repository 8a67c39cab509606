/*
 * ms_views.c - the MindSpore documents of views.c (rows flagged mindspore:
 * written only for workers that are MindSpore devices, ms_load.h). Each
 * reads its device's files when called, as the HTA writers run their
 * analyses; an absent file leaves its part null or empty, a damaged one is
 * named in the document's "errors" and the rest is kept.
 */
#include "importers/ms_load.h"
#include "importers/ms_st_table.h"
#include "output/ms_ops_json.h"
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
