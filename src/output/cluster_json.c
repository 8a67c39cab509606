/*
 * cluster_json.c - the cluster documents (cluster.h results): cluster.json
 * (docs/CLUSTER.md has every key) and cluster.csv (one row per rank, the
 * average step, MindInsight's cluster step-trace table). Times in us.
 * Per-rank step lists are capped at CL_JSON_STEPS_MAX steps in the JSON
 * ("steps_omitted" says how many were left out).
 */
#include "output/cluster_out.h"
#include "output/outfile.h"
#include "common/fs.h"
#include "output/schema.h"

#include <stdio.h>
#include <string.h>

static void kdouble_finite(struct jsonw *w, const char *key, double v)
{
	if (isfinite(v))
		jsonw_kdouble(w, key, v);
	else
		jsonw_knull(w, key);
}

static void json_rank(struct jsonw *w, const struct cl_rank *r)
{
	size_t ns = r->steps.n < CL_JSON_STEPS_MAX ? r->steps.n : CL_JSON_STEPS_MAX;

	jsonw_obj_begin(w);
	jsonw_kint(w, "rank", r->rank);
	jsonw_kstr(w, "host", r->host);
	if (r->worker[0])
		jsonw_kstr(w, "worker", r->worker);
	jsonw_kint(w, "stage", r->stage);
	if (r->clock_sync[0])
		jsonw_kstr(w, "clock_sync", r->clock_sync);
	if (isfinite(r->clock_error_us))
		jsonw_kdouble(w, "clock_error_us", r->clock_error_us);
	if (r->has_steptrace) {
		jsonw_kdouble(w, "iteration_interval_us", r->interval_us);
		jsonw_kdouble(w, "fp_bp_us", r->fp_bp_us);
		jsonw_kdouble(w, "tail_us", r->tail_us);
		jsonw_kdouble(w, "total_us", r->total_us);
	} else {
		jsonw_knull(w, "iteration_interval_us");
		jsonw_knull(w, "fp_bp_us");
		jsonw_knull(w, "tail_us");
		jsonw_knull(w, "total_us");
	}
	if (r->has_comm) {
		jsonw_kdouble(w, "communication_us", r->comm_cost_us);
		jsonw_kdouble(w, "wait_us", r->wait_cost_us);
		jsonw_kint(w, "communication_ops", (int64_t)r->comm_ops);
	}
	if (r->has_flops) {
		jsonw_kdouble(w, "flops_mflops", r->flops);
		jsonw_kdouble(w, "flops_per_s_gflops", r->flops_per_s);
	}
	if (r->has_bottleneck) {
		jsonw_key(w, "bottleneck_us");
		jsonw_obj_begin(w);
		for (int k = 0; k < r->bottleneck_cols && k < CL_BOTTLENECK_NAMES; k++)
			jsonw_kdouble(w, cl_bottleneck_names[k], r->bottleneck[k]);
		jsonw_obj_end(w);
	}
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ns; i++) {
		const struct cl_step *s = &r->steps.v[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "step", s->name);
		if (isfinite(s->start_us))
			jsonw_kdouble(w, "start_us", s->start_us);
		jsonw_kdouble(w, "iteration_interval_us", s->interval_us);
		jsonw_kdouble(w, "fp_bp_us", s->fp_bp_us);
		jsonw_kdouble(w, "tail_us", s->tail_us);
		jsonw_kdouble(w, "total_us", s->total_us);
		if (s->has_bottleneck) {
			jsonw_key(w, "bottleneck_us");
			jsonw_obj_begin(w);
			for (int k = 0; k < r->bottleneck_cols && k < CL_BOTTLENECK_NAMES; k++)
				jsonw_kdouble(w, cl_bottleneck_names[k], s->bottleneck[k]);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	if (ns < r->steps.n)
		jsonw_kint(w, "steps_omitted", (int64_t)(r->steps.n - ns));
	jsonw_obj_end(w);
}

static void json_proposal(struct jsonw *w, const struct cl_proposal *p, const struct cl_result *c)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "id", p->id);
	jsonw_kstr(w, "text", p->text);
	if (p->has & CL_HAS_RANK) {
		const struct cl_rank *r = cl_find_rank(c, p->rank);

		jsonw_kint(w, "rank", p->rank);
		if (r && r->host[0])
			jsonw_kstr(w, "host", r->host);
		if (r && r->worker[0])
			jsonw_kstr(w, "worker", r->worker);
	}
	if (p->has & CL_HAS_STAGE)
		jsonw_kint(w, "stage", p->stage);
	if (p->has & CL_HAS_LINK) {
		jsonw_kint(w, "src_rank", p->src);
		jsonw_kint(w, "dst_rank", p->dst);
		jsonw_kint(w, "reported_by", p->reporter);
		jsonw_kstr(w, "link_type", p->link_type);
	}
	jsonw_kdouble(w, "value", p->val);
	jsonw_kstr(w, "unit", p->unit);
	if (p->has & CL_HAS_PERCENT)
		jsonw_kdouble(w, "percent", p->percent);
	if (p->has & CL_HAS_THRESHOLD)
		jsonw_kdouble(w, "threshold_percent", p->threshold);
	if (p->has & CL_HAS_EXCESS) {
		jsonw_kdouble(w, "value_us", p->val_us);
		jsonw_kdouble(w, "mean_us", p->mean_us);
		jsonw_kdouble(w, "excess_us", p->excess_us);
	}
	jsonw_obj_end(w);
}

void out_json_cluster(struct jsonw *w, const struct cl_result *c)
{
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
	jsonw_key(w, "proposals");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < c->proposals.n; i++)
		json_proposal(w, &c->proposals.v[i], c);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static void csv_num(FILE *f, int have, double v)
{
	char b[40];

	fputc(',', f);
	if (!have || !isfinite(v))
		return;
	jsonw_fmt_double(b, sizeof(b), v);
	fputs(b, f);
}

static int write_csv(const char *dir, const char *name, const struct cl_result *c,
		     struct nns_err *err)
{
	struct out_file of;
	int rc = out_file_open(&of, dir, name, err);

	if (rc)
		return rc;
	fputs("rank,host,worker,stage,iteration_interval_us,fp_bp_us,tail_us,total_us,"
	      "communication_us,wait_us,flops_mflops,flops_per_s_gflops\n",
	      of.f);
	for (size_t i = 0; i < c->ranks.n; i++) {
		const struct cl_rank *r = &c->ranks.v[i];

		fprintf(of.f, "%d,", r->rank);
		out_csv_field(of.f, r->host);
		fputc(',', of.f);
		out_csv_field(of.f, r->worker);
		fprintf(of.f, ",%d", r->stage);
		csv_num(of.f, r->has_steptrace, r->interval_us);
		csv_num(of.f, r->has_steptrace, r->fp_bp_us);
		csv_num(of.f, r->has_steptrace, r->tail_us);
		csv_num(of.f, r->has_steptrace, r->total_us);
		csv_num(of.f, r->has_comm, r->comm_cost_us);
		csv_num(of.f, r->has_comm, r->wait_cost_us);
		csv_num(of.f, r->has_flops, r->flops);
		csv_num(of.f, r->has_flops, r->flops_per_s);
		fputc('\n', of.f);
	}
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
