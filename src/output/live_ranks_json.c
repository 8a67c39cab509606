/*
 * live_ranks_json.c - the live slow-rank verdict and the alert rules and
 * hits as JSON (live_ranks_json.h).
 */
#include "output/live_ranks_json.h"

#include "analysis/cluster.h"
#include "output/schema.h"

static void kstep(struct jsonw *w, const char *key, int64_t step)
{
	if (step < 0)
		jsonw_knull(w, key);
	else
		jsonw_kint(w, key, step);
}

void live_ranks_json(struct jsonw *w, const struct live_ranks *r)
{
	jsonw_obj_begin(w);
	jsonw_kint(w, "window", (int64_t)r->window);
	kstep(w, "window_lo", r->window ? r->window_lo : -1);
	kstep(w, "window_hi", r->window ? r->window_hi : -1);
	jsonw_kdouble(w, "threshold_pct", CL_STEP_INTERVAL_THRESHOLD * 100);
	jsonw_key(w, "slow");
	if (r->slow >= 0 && (size_t)r->slow < r->n) {
		const struct live_rank_row *s = &r->rows[r->slow];

		jsonw_obj_begin(w);
		jsonw_kint(w, "rank", s->rank);
		jsonw_kstr(w, "worker", s->worker);
		jsonw_kstr(w, "host", s->host);
		jsonw_kdouble(w, "pct", r->slow_pct);
		jsonw_kdouble(w, "excess_ms", r->excess_ms);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	jsonw_key(w, "slowest");
	if (r->slowest >= 0 && (size_t)r->slowest < r->n) {
		jsonw_obj_begin(w);
		jsonw_kint(w, "rank", r->rows[r->slowest].rank);
		jsonw_kstr(w, "worker", r->rows[r->slowest].worker);
		jsonw_kdouble(w, "pct", r->slowest_pct);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	jsonw_kint(w, "behind_max", r->behind_max);
	jsonw_kstr(w, "verdict", r->verdict);
	jsonw_key(w, "ranks");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->n; i++)
		sc_json_row(w, &sc_live_ranks, &r->rows[i], NULL, NULL);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void live_alerts_json(struct jsonw *w, const struct live_alerts *a, size_t max)
{
	size_t from = max && a->nhits > max ? a->nhits - max : 0;

	jsonw_obj_begin(w);
	jsonw_key(w, "rules");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < a->nrules; i++) {
		const struct live_alert_rule *r = &a->rules[i];

		jsonw_obj_begin(w);
		jsonw_kstr(w, "text", r->text);
		jsonw_kstr(w, "metric", live_alert_metric_name(r->metric));
		jsonw_kstr(w, "op", live_alert_op_name(r->op));
		jsonw_kstr(w, "stat", live_alert_stat_name(r->stat));
		jsonw_kdouble(w, "factor", r->factor);
		jsonw_kdouble(w, "value", r->value);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "fired", (int64_t)a->fired);
	jsonw_key(w, "hits");
	jsonw_arr_begin(w);
	for (size_t i = from; i < a->nhits; i++) {
		const struct live_alert_hit *h = live_alerts_hit(a, i);

		jsonw_obj_begin(w);
		jsonw_kint(w, "rule", (int64_t)h->rule);
		jsonw_kstr(w, "text", h->rule < a->nrules ? a->rules[h->rule].text : NULL);
		if (h->rank < 0 && h->step >= 0)
			jsonw_knull(w, "rank");
		else
			jsonw_kint(w, "rank", h->rank);
		kstep(w, "step", h->step);
		jsonw_kdouble(w, "value", h->value);
		jsonw_kdouble(w, "bound", h->bound);
		jsonw_kint(w, "wall_ns", h->wall_ns);
		jsonw_kstr(w, "message", h->message);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}
