/*
 * cluster_propose.c - the cluster proposers (cluster.h): MindInsight's
 * ParallelProposer rules (parallel_proposer.py / parallel_analyser.py,
 * reference mindinsight.md "Cluster run"), plus one nnscope rule.
 *
 *   slow_rank                 step interval: max(si / mean(si) - 1) > 0.2, si
 *                             the rank's average iteration interval in ms
 *                             rounded to 4 places; percent rounded to 2
 *   slow_rank_flops           FLOPS: max((mean - FLOPS) / mean) > 0.2
 *   slow_link                 per link type, links with src != dst:
 *                             (mean bw - bw) / mean bw > 0.2, the worst link
 *   data_parallel_comm,       Σcomm / (Σcomp + Σcomm) > 0.1 over the cluster
 *   model_parallel_comm       csv average rows, for that parallel mode
 *   pipeline_between_stage    Σreceive / (Σcomp + Σcomm) > 0.1
 *   pipeline_within_stage     per stage Σcollective / Σ(comp + comm) > 0.1,
 *                             the worst stage
 *   pipeline_flops            stage mean FLOPs / mean of the stages - 1 > 0.2
 *   slow_rank_fp_bp (nnscope) the same rule as slow_rank on FP+BP: a rank
 *                             whose compute, not its data wait, is slow;
 *                             only when it is also >= 1 ms per step above
 *                             the other ranks' mean (noise on tiny steps)
 *
 * Gating differs from MindInsight on purpose: MindInsight drops every rule
 * when any rank lacks one of its four files; here each rule needs only the
 * data it reads (every rank's step trace for slow_rank, FLOPs for the FLOPs
 * rules, hccl_raw for slow_link, cluster csv for the rates), so nnscope
 * runs, which have step traces only, get slow_rank.
 */
#include "analysis/cluster.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(struct cl_result *c, const struct cl_proposal *p, struct nns_err *err,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int add(struct cl_result *c, const struct cl_proposal *p, struct nns_err *err,
	       const char *fmt, ...)
{
	struct cl_proposal x = *p;
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	x.text = NULL;
	if (vec_push(&c->proposals, x))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	/* the text is owned by the row in c->proposals */
	if (!(c->proposals.v[c->proposals.n - 1].text = strdup(buf))) {
		c->proposals.n--;
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	return NNS_OK;
}

static void init(struct cl_proposal *p, const char *id)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->id, sizeof(p->id), "%s", id);
	p->rank = p->stage = p->src = p->dst = p->reporter = -1;
	p->val_us = p->mean_us = p->excess_us = NAN;
}

/* A proposal on a value (val, 4 decimals, in unit) a share (0..1) away
 * from the mean, above threshold (0..1): both as percentages. has: what
 * else it names (CL_HAS_RANK ...). */
static void init_off_mean(struct cl_proposal *p, const char *id, unsigned has, double val,
			  const char *unit, double share, double threshold)
{
	init(p, id);
	p->has = has | CL_HAS_PERCENT | CL_HAS_THRESHOLD;
	p->val = cl_round(val, 4);
	snprintf(p->unit, sizeof(p->unit), "%s", unit);
	p->percent = cl_round(share * 100, 2);
	p->threshold = threshold * 100;
}

/* A proposal on a share of time (rate, 0..1) above threshold (0..1): both
 * as percentages. */
static void init_rate(struct cl_proposal *p, const char *id, double rate, double threshold)
{
	init(p, id);
	p->has = CL_HAS_THRESHOLD;
	p->val = cl_round(rate * 100, 2);
	snprintf(p->unit, sizeof(p->unit), "%%");
	p->threshold = threshold * 100;
}

double cl_slow_share(const double *ms, size_t n, size_t *worst)
{
	double sum = 0, mean, best = -INFINITY;

	if (n < 2)
		return -INFINITY;
	for (size_t i = 0; i < n; i++)
		sum += ms[i];
	mean = sum / (double)n;
	if (!(mean > 0))
		return -INFINITY;
	for (size_t i = 0; i < n; i++)
		if (ms[i] / mean - 1 > best) {
			best = ms[i] / mean - 1;
			*worst = i;
		}
	return best;
}

/* The slow-rank rule on one per-rank average (interval or FP+BP, us). */
static int slow_by(struct cl_result *c, const char *id, int fp_bp, double threshold,
		   struct nns_err *err)
{
	struct cl_proposal p;
	double best, others, *ms;
	const struct cl_rank *worst;
	size_t n = c->ranks.n, wi = 0;

	if (n < 2)
		return NNS_OK;
	if (!(ms = malloc(n * sizeof(*ms))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		ms[i] =
		    cl_round(cl_ms(fp_bp ? c->ranks.v[i].fp_bp_us : c->ranks.v[i].interval_us), 4);
	best = cl_slow_share(ms, n, &wi);
	free(ms);
	worst = &c->ranks.v[wi];
	if (!(best > threshold))
		return NNS_OK;
	init_off_mean(&p, id, CL_HAS_RANK | CL_HAS_EXCESS,
		      cl_ms(fp_bp ? worst->fp_bp_us : worst->interval_us), "ms", best, threshold);
	p.rank = worst->rank;
	p.val_us = fp_bp ? worst->fp_bp_us : worst->interval_us;
	p.mean_us = 0;
	others = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cl_rank *r = &c->ranks.v[i];
		double v = fp_bp ? r->fp_bp_us : r->interval_us;

		p.mean_us += v / (double)n;
		if (r != worst)
			others += v / (double)(n - 1);
	}
	p.excess_us = p.val_us - others;
	if (fp_bp && p.excess_us < CL_FP_BP_MIN_EXCESS_US)
		return NNS_OK; /* noise on tiny steps */
	if (fp_bp)
		return add(
		    c, &p, err,
		    "The forward and backward propagation time of the device %d%s%s%s is "
		    "%.4f ms, which is %.2f%% higher than the average value. Its computation "
		    "is slower than the other devices' (%.1f us more per step than their "
		    "mean): check its load, clock frequency and throttling.",
		    p.rank, worst->host[0] ? " (host " : "", worst->host, worst->host[0] ? ")" : "",
		    p.val, p.percent, p.excess_us);
	return add(c, &p, err,
		   "The step interval of the device %d%s%s%s is %.4f ms, which is %.2f%% higher "
		   "than the average value (%.1f us more per step than the other devices' mean). "
		   "The data processing of its host may be slow: check the data pipeline and the "
		   "load on that host.",
		   p.rank, worst->host[0] ? " (host " : "", worst->host, worst->host[0] ? ")" : "",
		   p.val, p.percent, p.excess_us);
}

static int slow_flops(struct cl_result *c, struct nns_err *err)
{
	struct cl_proposal p;
	double sum = 0, mean, best = -INFINITY;
	const struct cl_rank *worst = NULL;

	if (!c->analyse_flops || c->ranks.n < 2)
		return NNS_OK;
	for (size_t i = 0; i < c->ranks.n; i++)
		sum += c->ranks.v[i].flops_per_s;
	mean = sum / (double)c->ranks.n;
	if (!(mean > 0))
		return NNS_OK;
	for (size_t i = 0; i < c->ranks.n; i++) {
		double d = (mean - c->ranks.v[i].flops_per_s) / mean;

		if (d > best) {
			best = d;
			worst = &c->ranks.v[i];
		}
	}
	if (!worst || !(best > CL_FLOPS_PER_SECOND_THRESHOLD))
		return NNS_OK;
	init_off_mean(&p, "slow_rank_flops", CL_HAS_RANK, worst->flops_per_s, "GFLOPS", best,
		      CL_FLOPS_PER_SECOND_THRESHOLD);
	p.rank = worst->rank;
	return add(c, &p, err,
		   "The FLOPS value of the device %d is %.4f G/s, which is %.2f%% lower than the "
		   "average value. Check the computing load and the hardware of this device.",
		   p.rank, p.val, p.percent);
}

/* One proposal per link type (SDMA, RDMA, ...): its worst link. */
static int slow_link(struct cl_result *c, struct nns_err *err)
{
	for (size_t i = 0; i < c->links.n; i++) {
		const struct cl_link *t = &c->links.v[i], *worst = NULL;
		double sum = 0, mean, worst_d = -INFINITY;
		struct cl_proposal p;
		size_t n = 0;
		int seen = 0;

		/* once per link type: at its first link */
		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(c->links.v[k].type, t->type) == 0;
		if (seen)
			continue;
		for (size_t k = i; k < c->links.n; k++) {
			const struct cl_link *l = &c->links.v[k];

			if (strcmp(l->type, t->type) == 0 && l->src != l->dst) {
				sum += l->bw_kbps;
				n++;
			}
		}
		mean = n ? sum / (double)n : 0;
		if (!(mean > 0))
			continue;
		for (size_t k = i; k < c->links.n; k++) {
			const struct cl_link *l = &c->links.v[k];
			double d;

			if (strcmp(l->type, t->type) != 0 || l->src == l->dst)
				continue;
			d = (mean - l->bw_kbps) / mean;
			if (d > worst_d) {
				worst_d = d;
				worst = l;
			}
		}
		if (!worst || !(worst_d > CL_RANK_LINK_THRESHOLD))
			continue;
		init_off_mean(&p, "slow_link", CL_HAS_LINK, worst->bw_kbps, "KB/s", worst_d,
			      CL_RANK_LINK_THRESHOLD);
		p.src = worst->src;
		p.dst = worst->dst;
		p.reporter = worst->reporter;
		snprintf(p.link_type, sizeof(p.link_type), "%s", worst->type);
		if (add(c, &p, err,
			"The bandwidth of the communication link (%s) from device %d to device %d "
			"(reported by rank %d) is %.4f KB/s, which is %.2f%% lower than the "
			"average "
			"bandwidth of its link type (%.4f KB/s). Check the link and the network "
			"configuration.",
			p.link_type, p.src, p.dst, p.reporter, p.val, p.percent, mean))
			return NNS_ENOMEM;
	}
	return NNS_OK;
}

/* Proposal id when rate (a fraction) is above threshold; the text is fmt
 * with the rate and the threshold in percent. */
static int rate_over(struct cl_result *c, const char *id, double rate, double threshold,
		     const char *fmt, struct nns_err *err)
{
	struct cl_proposal p;

	if (!isfinite(rate) || !(rate > threshold))
		return NNS_OK;
	init_rate(&p, id, rate, threshold);
	return add(c, &p, err, fmt, p.val, p.threshold);
}

static int comm_rates(struct cl_result *c, struct nns_err *err)
{
	int rc = NNS_OK;

	if (!isfinite(c->comm_rate))
		return NNS_OK;
	if (strcmp(c->mode, "data-parallel") == 0)
		rc = rate_over(
		    c, "data_parallel_comm", c->comm_rate, CL_DATA_PARALLEL_COMM_THRESHOLD,
		    "In data parallel mode the communication takes %.2f%% of the step, more "
		    "than %.0f%%. Fuse the gradients' AllReduce (all_reduce_fusion_config) "
		    "so that communication overlaps computation.",
		    err);
	if (!rc && strcmp(c->mode, "model-parallel") == 0)
		rc = rate_over(c, "model_parallel_comm", c->comm_rate,
			       CL_MODEL_PARALLEL_COMM_THRESHOLD,
			       "In model parallel mode the communication takes %.2f%% of the step, "
			       "more than %.0f%%. Review the operator sharding strategy.",
			       err);
	if (!rc)
		rc = rate_over(
		    c, "pipeline_between_stage", c->between_stage_rate, CL_BETWEEN_STAGE_THRESHOLD,
		    "In pipeline parallel mode the communication between stages (Receive "
		    "not overlapped by computation) takes %.2f%% of the step, more than "
		    "%.0f%%. The stages are unbalanced: rebalance the layers between "
		    "stages or raise the micro-batch count.",
		    err);
	return rc;
}

static int stages(struct cl_result *c, struct nns_err *err)
{
	const struct cl_stage *worst = NULL;
	double best = -INFINITY, sum = 0, mean;
	int rc, nf = 0;

	if (strcmp(c->mode, "pipeline-parallel") != 0 || c->stages.n == 0)
		return NNS_OK;
	for (size_t i = 0; i < c->stages.n; i++)
		if (isfinite(c->stages.v[i].within_comm_rate) &&
		    c->stages.v[i].within_comm_rate > best) {
			best = c->stages.v[i].within_comm_rate;
			worst = &c->stages.v[i];
		}
	if (worst && best > CL_WITHIN_STAGE_THRESHOLD) {
		struct cl_proposal p;

		init_rate(&p, "pipeline_within_stage", best, CL_WITHIN_STAGE_THRESHOLD);
		p.has |= CL_HAS_STAGE;
		p.stage = worst->stage;
		if ((rc = add(c, &p, err,
			      "In pipeline parallel mode the collective communication within stage "
			      "%d takes %.2f%% of its ranks' time, more than %.0f%%. Review the "
			      "sharding inside that stage.",
			      p.stage, p.val, p.threshold)))
			return rc;
	}
	/* FLOPs per stage */
	if (!c->analyse_flops || c->stages.n < 2)
		return NNS_OK;
	for (size_t i = 0; i < c->stages.n; i++)
		if (c->stages.v[i].ranks > 0) {
			sum += c->stages.v[i].flops_avg;
			nf++;
		}
	mean = nf ? sum / nf : 0;
	if (!(mean > 0))
		return NNS_OK;
	worst = NULL;
	best = -INFINITY;
	for (size_t i = 0; i < c->stages.n; i++) {
		double d = c->stages.v[i].flops_avg / mean - 1;

		if (c->stages.v[i].ranks > 0 && d > best) {
			best = d;
			worst = &c->stages.v[i];
		}
	}
	if (worst && best > CL_FLOPS_THRESHOLD) {
		struct cl_proposal p;

		init_off_mean(&p, "pipeline_flops", CL_HAS_STAGE, worst->flops_avg, "MFLOPs", best,
			      CL_FLOPS_THRESHOLD);
		p.stage = worst->stage;
		return add(
		    c, &p, err,
		    "In pipeline parallel mode stage %d computes %.4f MFLOPs per rank, %.2f%% "
		    "more than the average stage: the stages are imbalanced. Move layers out "
		    "of this stage.",
		    p.stage, p.val, p.percent);
	}
	return NNS_OK;
}

int cl_propose(struct cl_result *c, struct nns_err *err)
{
	int rc;

	for (size_t i = 0; i < c->proposals.n; i++)
		free(c->proposals.v[i].text);
	c->proposals.n = 0;
	if (c->analyse_steps &&
	    ((rc = slow_by(c, "slow_rank", 0, CL_STEP_INTERVAL_THRESHOLD, err)) ||
	     (strcmp(c->source, "nnscope") == 0 &&
	      (rc = slow_by(c, "slow_rank_fp_bp", 1, CL_FP_BP_THRESHOLD, err)))))
		return rc;
	if ((rc = slow_flops(c, err)) || (rc = slow_link(c, err)) || (rc = comm_rates(c, err)) ||
	    (rc = stages(c, err)))
		return rc;
	return NNS_OK;
}
