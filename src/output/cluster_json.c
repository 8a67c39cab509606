/*
 * cluster_json.c - the cluster documents (cluster.h results): cluster.json
 * (docs/CLUSTER.md has every key) and cluster.csv (one row per rank, the
 * average step, MindInsight's cluster step-trace table). Times in us.
 * The ranks, their steps, the links, stages and proposals are the schema's
 * rows (schema_ms.c); this file writes the document around them and the
 * ranks' "bottleneck_us" objects (named by the MindSpore csv's columns).
 * Per-rank step lists are capped at CL_JSON_STEPS_MAX steps in the JSON
 * ("steps_omitted" says how many were left out).
 */
#include "output/cluster_out.h"
#include "output/outfile.h"
#include "common/fs.h"
#include "output/schema.h"

#include <stdio.h>

static void kdouble_finite(struct jsonw *w, const char *key, double v)
{
	if (isfinite(v))
		jsonw_kdouble(w, key, v);
	else
		jsonw_knull(w, key);
}

/* "bottleneck_us": the MindSpore cluster csv's columns of a rank or step */
static void json_bottleneck(struct jsonw *w, const struct cl_rank *r, const double *b)
{
	jsonw_key(w, "bottleneck_us");
	jsonw_obj_begin(w);
	for (int k = 0; k < r->bottleneck_cols && k < CL_BOTTLENECK_NAMES; k++)
		jsonw_kdouble(w, cl_bottleneck_names[k], b[k]);
	jsonw_obj_end(w);
}

/* a rank: its columns (sc_cluster_ranks), bottleneck, steps (at most
 * CL_JSON_STEPS_MAX) and how many steps were left out */
static void json_rank(struct jsonw *w, const struct cl_rank *r)
{
	size_t ns = r->steps.n < CL_JSON_STEPS_MAX ? r->steps.n : CL_JSON_STEPS_MAX;

	jsonw_obj_begin(w);
	sc_json_fields(w, &sc_cluster_ranks, r, NULL, NULL);
	if (r->has_bottleneck)
		json_bottleneck(w, r, r->bottleneck);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ns; i++) {
		const struct cl_step *s = &r->steps.v[i];

		jsonw_obj_begin(w);
		sc_json_fields(w, &sc_cluster_steps, s, NULL, NULL);
		if (s->has_bottleneck)
			json_bottleneck(w, r, s->bottleneck);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (ns < r->steps.n)
		jsonw_kint(w, "steps_omitted", (int64_t)(r->steps.n - ns));
	jsonw_obj_end(w);
}

void out_json_cluster(struct jsonw *w, const struct cl_result *c)
{
	struct sc_ctx x = {NULL, 0, c};

	jsonw_obj_begin(w);
	jsonw_kstr(w, "source", c->source);
	jsonw_kstr(w, "parallel_mode", c->mode);
	jsonw_kint(w, "stage_num", c->stage_num);
	jsonw_kint(w, "rank_size", c->rank_size);
	jsonw_kbool(w, "clock_aligned", c->clock_aligned);
	kdouble_finite(w, "clock_error_us", c->clock_error_us);
	kdouble_finite(w, "communication_rate", c->comm_rate);
	kdouble_finite(w, "between_stage_rate", c->between_stage_rate);
	if (c->note[0])
		jsonw_kstr(w, "note", c->note);
	jsonw_key(w, "ranks");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < c->ranks.n; i++)
		json_rank(w, &c->ranks.v[i]);
	jsonw_arr_end(w);
	sc_json_rows(w, "links", &sc_cluster_links, c->links.v, c->links.n, NULL, NULL);
	sc_json_rows(w, "stages", &sc_cluster_stages, c->stages.v, c->stages.n, NULL, NULL);
	sc_json_rows(w, "proposals", &sc_cluster_proposals, c->proposals.v, c->proposals.n, &x,
		     NULL);
	jsonw_obj_end(w);
}

/* cluster.csv: the ranks' columns without the optional JSON-only ones */
static const char *const csv_cols[] = {"rank",
				       "host",
				       "worker",
				       "stage",
				       "iteration_interval_us",
				       "fp_bp_us",
				       "tail_us",
				       "total_us",
				       "communication_us",
				       "wait_us",
				       "flops_mflops",
				       "flops_per_s_gflops",
				       NULL};

static int write_csv(const char *dir, const char *name, const struct cl_result *c,
		     struct nns_err *err)
{
	struct out_file of;
	int rc = out_file_open(&of, dir, name, err);

	if (rc)
		return rc;
	sc_csv_header(of.f, &sc_cluster_ranks, csv_cols);
	sc_csv_rows(of.f, &sc_cluster_ranks, c->ranks.v, c->ranks.n, NULL, csv_cols);
	return out_file_commit(&of, err);
}

static void cluster_fn(struct jsonw *w, const void *arg)
{
	out_json_cluster(w, arg);
}

int out_write_cluster(const char *dir, const char *stem, const struct cl_result *c, int csv,
		      struct nns_err *err)
{
	char name[OUT_NAME_MAX + 16];
	int rc = fs_mkdirs(dir, err);

	if (rc)
		return rc;
	snprintf(name, sizeof(name), "%s.json", stem);
	if ((rc = out_json_file(dir, name, 3, cluster_fn, c, err)))
		return rc;
	if (csv) {
		snprintf(name, sizeof(name), "%s.csv", stem);
		rc = write_csv(dir, name, c, err);
	}
	return rc;
}
