/*
 * ms_profile.c - reads a MindSpore device's profiler files once into a
 * struct ms_profile (an_ms.h): the readers of src/importers run here, and
 * the step-trace table is turned into rows, summary and graph, so that the
 * writers only write.
 */
#include "analysis/an_ms.h"
#include "analysis/analysis.h"
#include "importers/ms_load.h"
#include "importers/ms_st_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS_CSV_MAX ((size_t)1 << 30)

/* Reads one file of the device and parses it with parse() into t. */
static void read_part(struct ms_part *pt, const struct ms_src *s, const char *pre, const char *post,
		      int (*parse)(void *t, const char *buf, size_t n, struct nns_err *err),
		      void *t)
{
	char *buf;
	size_t n;

	nns_err_clear(&pt->err);
	pt->rc = ms_src_read(s, pre, post, MS_CSV_MAX, &buf, &n, &pt->err);
	if (pt->rc == NNS_OK) {
		pt->rc = parse(t, buf, n, &pt->err);
		free(buf);
		if (pt->rc) { /* the parsers say the line; the file is said here */
			char path[1024];
			struct nns_err named;

			if (ms_src_path(s, pre, post, path, sizeof(path)))
				snprintf(path, sizeof(path), "%s%d%s", pre, s->dev, post);
			nns_err_set(&named, pt->rc, "%s: %s", path, pt->err.msg);
			memcpy(pt->named, named.msg, sizeof(pt->named));
			return;
		}
	}
	snprintf(pt->named, sizeof(pt->named), "%s", pt->err.msg);
}

static int parse_at(void *t, const char *buf, size_t n, struct nns_err *err)
{
	return ms_at_parse(t, buf, n, err);
}

static int parse_ad(void *t, const char *buf, size_t n, struct nns_err *err)
{
	return ms_ad_parse(t, buf, n, err);
}

/* 10 ns counts -> us; a cell that is not a number is 0. */
static double us(double counts)
{
	return isnan(counts) ? 0 : counts / 100.0;
}

static int step_rows(struct ms_profile *mp, const struct ms_st_table *t)
{
	if (t->nrows && vec_reserve(&mp->steps, t->nrows))
		return NNS_ENOMEM;
	for (size_t i = 0; i < t->nrows; i++) {
		struct ms_step_row *r = &mp->steps.v[mp->steps.n++];

		memcpy(r->name, t->step[i], sizeof(r->name));
		r->start_us = us(ms_st_cell(t, i, "start_point"));
		r->end_us = us(ms_st_cell(t, i, "end_point"));
		r->interval_us = us(ms_st_cell(t, i, "iteration_interval"));
		r->fp_bp_us = us(ms_st_cell(t, i, "fp_and_bp"));
		r->tail_us = us(ms_st_cell(t, i, "tail"));
		r->total_us = us(ms_st_cell(t, i, "total"));
	}
	return NNS_OK;
}

/* The step trace: its rows, summary, graph and points. */
static int load_steptrace(struct ms_profile *mp, const struct ms_src *s, struct nns_err *err)
{
	struct ms_st_table t;
	struct nns_err ignore;
	int rc;

	nns_err_clear(&mp->st_part.err);
	mp->st_part.rc = ms_st_table_load(&t, s, &mp->st_part.err);
	snprintf(mp->st_part.named, sizeof(mp->st_part.named), "%s", mp->st_part.err.msg);
	mp->sum_rc = mp->graph_rc = mp->point_rc = NNS_ENOTFOUND;
	if (mp->st_part.rc)
		return NNS_OK;
	if ((rc = step_rows(mp, &t))) {
		ms_st_table_release(&t);
		return nns_err_set(err, rc, "out of memory");
	}
	nns_err_clear(&mp->sum_err);
	mp->sum_rc = ms_st_summarise_table(&t, &mp->sum, &mp->sum_err);
	nns_err_clear(&ignore);
	mp->graph_rc = ms_st_graph_build(&t, 0, &mp->graph, &ignore);
	ms_st_table_release(&t);
	nns_err_clear(&ignore);
	mp->point_rc =
	    ms_point_info_load(s, mp->fp_start, mp->bp_end, sizeof(mp->fp_start), &ignore);
	if (mp->point_rc && s->raw && s->raw->fp_start[0] && s->raw->bp_end[0]) {
		snprintf(mp->fp_start, sizeof(mp->fp_start), "%s", s->raw->fp_start);
		snprintf(mp->bp_end, sizeof(mp->bp_end), "%s", s->raw->bp_end);
		mp->point_rc = NNS_OK;
	}
	return NNS_OK;
}

/* A raw job directory: its intermediate files made in memory and served
 * to every reader below through src.raw. */
static int load_raw(struct ms_profile *mp, struct nns_err *err)
{
	struct nns_err e;

	nns_err_clear(&e);
	mp->raw_rc = mp->src.raw ? NNS_ENOTFOUND : ms_raw_load(&mp->raw, &mp->src, &e);
	if (mp->raw_rc == NNS_ENOMEM)
		return nns_err_set(err, NNS_ENOMEM, "%s", e.msg);
	if (mp->raw_rc == NNS_OK)
		mp->src.raw = &mp->raw;
	return NNS_OK;
}

/* The device's host_info file and MindSpore's analysis of it: absent or
 * refused is recorded in host_rc, only NNS_ENOMEM fails. */
static int load_host(struct ms_profile *mp, const struct ms_src *s, struct nns_err *err)
{
	nns_err_clear(&mp->host_err);
	mp->host_rc = ms_host_load(&mp->host, s, &mp->host_err);
	if (mp->host_rc == NNS_OK) {
		mp->host_rc = ms_host_compute(&mp->host, &mp->host_res, &mp->host_err);
		if (mp->host_rc)
			ms_host_release(&mp->host);
	}
	if (mp->host_rc == NNS_ENOMEM)
		return nns_err_set(err, NNS_ENOMEM, "%s", mp->host_err.msg);
	return NNS_OK;
}

int ms_profile_load(struct ms_profile *mp, const struct ms_src *s, struct nns_err *err)
{
	int rc;

	memset(mp, 0, sizeof(*mp));
	mp->host_rc = NNS_ENOTFOUND;
	mp->src = *s;
	if ((rc = load_raw(mp, err)))
		return rc;
	s = &mp->src;
	read_part(&mp->at_part, s, "aicore_intermediate_", "_type.csv", parse_at, &mp->at);
	read_part(&mp->ad_part, s, "aicore_intermediate_", "_detail.csv", parse_ad, &mp->ad);
	if ((rc = load_steptrace(mp, s, err)))
		goto fail;
	nns_err_clear(&mp->flops_err);
	mp->flops_rc = ms_flops_load(&mp->flops, s, &mp->flops_err);
	nns_err_clear(&mp->opd_err);
	mp->opd_rc = ms_opd_load(&mp->opd, s, &mp->opd_err);
	nns_err_clear(&mp->aicpu_err);
	mp->aicpu_rc = ms_aicpu_load(&mp->aicpu, s, &mp->aicpu_err);
	nns_err_clear(&mp->ds_err);
	mp->ds_rc = ms_ds_load(&mp->ds, s, &mp->ds_err);
	ms_md_load(&mp->md, s);
	if (ms_optabs_load(&mp->optabs, s)) {
		rc = nns_err_set(err, NNS_ENOMEM, "MindSpore op tables: out of memory");
		goto fail;
	}
	ms_md_compute(&mp->md, &mp->md_result);
	if ((rc = load_host(mp, s, err)))
		goto fail;
	if ((rc = ms_mem_load_all(&mp->mem, s, mp->opd_rc ? NULL : &mp->opd.fw,
				  mp->point_rc ? NULL : mp->fp_start,
				  mp->point_rc ? NULL : mp->bp_end)))
		goto fail;
	return NNS_OK;
fail:
	ms_profile_release(mp);
	return rc;
}

void ms_profile_release(struct ms_profile *mp)
{
	if (mp->raw_rc == NNS_OK)
		ms_raw_release(&mp->raw);
	ms_at_release(&mp->at);
	ms_ad_release(&mp->ad);
	vec_free(&mp->steps);
	if (mp->graph_rc == NNS_OK)
		ms_st_graph_release(&mp->graph);
	ms_flops_release(&mp->flops);
	ms_opd_release(&mp->opd);
	ms_aicpu_release(&mp->aicpu);
	ms_ds_release(&mp->ds);
	ms_md_result_release(&mp->md_result);
	ms_md_release(&mp->md);
	ms_optabs_release(&mp->optabs);
	ms_mem_release(&mp->mem);
	if (mp->host_rc == NNS_OK) {
		ms_host_release(&mp->host);
		ms_host_result_release(&mp->host_res);
	}
	memset(mp, 0, sizeof(*mp));
}

int an_ms_attach(struct an_profile *p, struct nns_err *err)
{
	struct ms_src s;
	int rc;

	if (!ms_model_src(p->m, &s))
		return NNS_OK; /* p->ms stays NULL: a server's views may read it already */
	if (!(p->ms = malloc(sizeof(*p->ms))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	if ((rc = ms_profile_load(p->ms, &s, err))) {
		free(p->ms);
		p->ms = NULL;
		return rc;
	}
	/* a model cut to steps (--steps, the CLI's "steps_kept" A-B): the
	 * step trace too */
	{
		const char *k = model_meta_get(p->m, "steps_kept");
		long a, b;

		if (k && sscanf(k, "%ld-%ld", &a, &b) == 2)
			ms_profile_keep_steps(p->ms, a, b);
	}
	/* MindInsight's proposers join the overview's advice */
	return an_advice_add_ms(p, p->ms, err);
}

void an_ms_detach(struct an_profile *p)
{
	if (p->ms) {
		ms_profile_release(p->ms);
		free(p->ms);
		p->ms = NULL;
	}
}
