/*
 * live_alert.c - alert rules over a live run (live_alert.h): the rule
 * parser (errors name the column), and their evaluation against the live
 * states (step rules: once per new completed step of a rank, with the
 * metric's recent history for a STAT) and the rank verdict (rank rules:
 * edge-triggered, re-armed when the rule stops holding).
 */
#include "analysis/live_alert.h"

#include "common/clock.h"
#include "common/hmap.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---------------------------------------------------------------- */

static const char *const metric_names[] = {NULL,       "step_ms",  "data_ms",
					   "data_pct", "rank_pct", "behind"};
static const char *const op_names[] = {NULL, ">", ">=", "<", "<="};
static const char *const stat_names[] = {NULL, "median", "mean", "min", "max", "p90"};

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const char *const *names, size_t n, const char *s, size_t len)
{
	for (size_t i = 1; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return (int)i;
	return 0;
}

static const char *name_of(const char *const *names, size_t n, int i)
{
	return i > 0 && (size_t)i < n ? names[i] : NULL;
}

const char *live_alert_metric_name(int metric)
{
	return name_of(metric_names, NAMES(metric_names), metric);
}

const char *live_alert_op_name(int op)
{
	return name_of(op_names, NAMES(op_names), op);
}

const char *live_alert_stat_name(int stat)
{
	return name_of(stat_names, NAMES(stat_names), stat);
}

static int is_step_metric(int m)
{
	return m == LIVE_M_STEP_MS || m == LIVE_M_DATA_MS || m == LIVE_M_DATA_PCT;
}

/* ---- parsing -------------------------------------------------------------- */

struct scan {
	const char *s;
	size_t i;
};

static void blanks(struct scan *x)
{
	while (x->s[x->i] == ' ' || x->s[x->i] == '\t')
		x->i++;
}

static size_t word(const struct scan *x)
{
	size_t n = 0;

	while (isalnum((unsigned char)x->s[x->i + n]) || x->s[x->i + n] == '_')
		n++;
	return n;
}

/* What is at the scan position, for a message: 'text' or "the end". */
static const char *here(const struct scan *x, char *buf, size_t size)
{
	size_t n = 0;

	if (!x->s[x->i])
		return "the end";
	while (x->s[x->i + n] && x->s[x->i + n] != ' ' && n < 24)
		n++;
	snprintf(buf, size, "'%.*s'", (int)n, x->s + x->i);
	return buf;
}

static int bad(struct nns_err *err, const struct scan *x, const char *fmt, const char *what)
    __attribute__((format(printf, 3, 0)));

static int bad(struct nns_err *err, const struct scan *x, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	return nns_err_set(err, NNS_EINVAL, "column %zu: %s", x->i + 1, msg);
}

static int parse_stat(struct scan *x, struct live_alert_rule *r, struct nns_err *err)
{
	size_t n = word(x);
	char buf[40];

	if (!(r->stat = lookup(stat_names, NAMES(stat_names), x->s + x->i, n)))
		return bad(err, x, "expected a number or median, mean, min, max or p90, not %s",
			   here(x, buf, sizeof(buf)));
	if (!is_step_metric(r->metric))
		return bad(err, x,
			   "%s compares with a number, not a statistic (median, mean, min, max, "
			   "p90 are of step metrics: step_ms, data_ms, data_pct)",
			   metric_names[r->metric]);
	x->i += n;
	return NNS_OK;
}

static int parse_rule(const char *s, struct live_alert_rule *r, struct nns_err *err)
{
	struct scan x = {s, 0};
	char buf[40];
	size_t n;

	memset(r, 0, sizeof(*r));
	r->factor = 1;
	blanks(&x);
	if (!s[x.i])
		return nns_err_set(
		    err, NNS_EINVAL,
		    "empty rule: expected METRIC OP BOUND, e.g. 'step_ms > 1.2*median'");
	n = word(&x);
	if (!(r->metric = lookup(metric_names, NAMES(metric_names), s + x.i, n)))
		return bad(err, &x,
			   "unknown metric %s (step_ms, data_ms, data_pct, rank_pct, behind)",
			   here(&x, buf, sizeof(buf)));
	x.i += n;
	blanks(&x);
	n = (s[x.i] == '<' || s[x.i] == '>') ? (s[x.i + 1] == '=' ? 2 : 1) : 0;
	if (!n || !(r->op = lookup(op_names, NAMES(op_names), s + x.i, n)))
		return bad(err, &x, "expected >, >=, < or <= after the metric, not %s",
			   here(&x, buf, sizeof(buf)));
	x.i += n;
	blanks(&x);
	if (!s[x.i])
		return bad(err, &x, "expected a number or a statistic after the operator, not %s",
			   "the end");
	if (isalpha((unsigned char)s[x.i])) {
		if (parse_stat(&x, r, err))
			return NNS_EINVAL;
	} else {
		char *end;
		double v = strtod(s + x.i, &end);

		if (end == s + x.i || !isfinite(v))
			return bad(err, &x, "expected a number or a statistic, not %s",
				   here(&x, buf, sizeof(buf)));
		x.i = (size_t)(end - s);
		blanks(&x);
		if (s[x.i] == '*') {
			x.i++;
			blanks(&x);
			r->factor = v;
			if (parse_stat(&x, r, err))
				return NNS_EINVAL;
		} else if (isalpha((unsigned char)s[x.i])) {
			return bad(err, &x, "expected '*' between the number and %s",
				   here(&x, buf, sizeof(buf)));
		} else {
			r->value = v;
		}
	}
	blanks(&x);
	if (s[x.i])
		return bad(err, &x, "unexpected %s after the bound", here(&x, buf, sizeof(buf)));
	return NNS_OK;
}

/* ---- state ---------------------------------------------------------------- */

struct prog {
	size_t rule;
	int64_t rank; /* the rank given; INT64_MIN: the rank rule's own */
	size_t next;  /* steps checked */
	size_t nhist; /* values in hist */
	size_t head;  /* next slot */
	int holding;  /* held at the last check (rank rules) or step (step rules) */
	double hist[LIVE_ALERT_HISTORY];
};

struct alert_state {
	VEC(struct prog *) p;
	struct hmap of; /* (rule, rank key) -> index in p */
};

void live_alerts_init(struct live_alerts *a)
{
	memset(a, 0, sizeof(*a));
}

void live_alerts_release(struct live_alerts *a)
{
	struct alert_state *st = a->state;

	if (st) {
		for (size_t i = 0; i < st->p.n; i++)
			free(st->p.v[i]);
		vec_free(&st->p);
		hmap_release(&st->of);
		free(st);
	}
	free(a->rules);
	memset(a, 0, sizeof(*a));
}

int live_alerts_add(struct live_alerts *a, const char *rule, struct nns_err *err)
{
	struct live_alert_rule r, *rules;
	size_t len = strlen(rule);
	int rc;

	if (len >= sizeof(r.text))
		return nns_err_set(err, NNS_EINVAL, "rule too long (%zu characters, at most %zu)",
				   len, sizeof(r.text) - 1);
	if (a->nrules >= LIVE_ALERT_RULES_MAX)
		return nns_err_set(err, NNS_EINVAL, "too many rules (at most %d)",
				   LIVE_ALERT_RULES_MAX);
	if ((rc = parse_rule(rule, &r, err)))
		return rc;
	memcpy(r.text, rule, len + 1);
	rules = realloc(a->rules, (a->nrules + 1) * sizeof(*rules));
	if (!rules)
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	a->rules = rules;
	a->rules[a->nrules++] = r;
	return NNS_OK;
}

static uint64_t prog_key(size_t rule, int64_t rank)
{
	uint32_t rk = rank == INT64_MIN ? UINT32_MAX : rank < 0 ? UINT32_MAX - 1 : (uint32_t)rank;

	return hmap_pair((uint32_t)rule, rk);
}

/* The progress of (rule, rank), made on first use; NULL out of memory. */
static struct prog *prog_of(struct live_alerts *a, size_t rule, int64_t rank)
{
	struct alert_state *st = a->state;
	const uint32_t *at;
	struct prog *p;
	int is_new = 0;

	if (!st) {
		if (!(st = a->state = calloc(1, sizeof(*st))))
			return NULL;
		hmap_init(&st->of);
	}
	if ((at = hmap_get(&st->of, prog_key(rule, rank))))
		return st->p.v[*at];
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->rule = rule;
	p->rank = rank;
	if (vec_push(&st->p, p)) {
		free(p);
		return NULL;
	}
	if (!hmap_put(&st->of, prog_key(rule, rank), (uint32_t)(st->p.n - 1), &is_new)) {
		st->p.n--;
		free(p);
		return NULL;
	}
	return p;
}

/* ---- evaluation ----------------------------------------------------------- */

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double stat_of(const struct prog *p, int stat)
{
	double v[LIVE_ALERT_HISTORY], sum = 0;
	size_t n = p->nhist;

	memcpy(v, p->hist, n * sizeof(*v));
	if (stat == LIVE_S_MEAN) {
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		return sum / (double)n;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	switch (stat) {
	case LIVE_S_MIN:
		return v[0];
	case LIVE_S_MAX:
		return v[n - 1];
	case LIVE_S_P90: {
		size_t k = (size_t)ceil(0.9 * (double)n);

		return v[k ? k - 1 : 0];
	}
	default: /* median */
		return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
}

static int holds(int op, double v, double bound)
{
	switch (op) {
	case LIVE_OP_GT:
		return v > bound;
	case LIVE_OP_GE:
		return v >= bound;
	case LIVE_OP_LT:
		return v < bound;
	default:
		return v <= bound;
	}
}

/* The metric of step s (with its breakdown for the data metrics). */
static double step_value(const struct live_step *s, int metric)
{
	double dur = (double)(s->end - s->start);

	if (metric == LIVE_M_STEP_MS)
		return dur / 1e6;
	if (metric == LIVE_M_DATA_MS)
		return (double)s->dataloader / 1e6;
	return dur > 0 ? (double)s->dataloader * 100 / dur : 0;
}

static void add_hit(struct live_alerts *a, size_t rule, int64_t rank, int64_t step, double value,
		    double bound, const char *where)
{
	struct live_alert_hit *h = &a->hits[a->fired % LIVE_ALERTS_MAX];
	const struct live_alert_rule *r = &a->rules[rule];

	memset(h, 0, sizeof(*h));
	h->rule = rule;
	h->rank = rank;
	h->step = step;
	h->value = value;
	h->bound = bound;
	h->wall_ns = clock_real_ns();
	snprintf(h->message, sizeof(h->message), "%s: %s: %.6g (bound %.6g)", r->text, where, value,
		 bound);
	a->fired++;
	if (a->nhits < LIVE_ALERTS_MAX)
		a->nhits++;
}

static int check_steps(struct live_alerts *a, size_t rule, const struct live *l, int64_t rank)
{
	const struct live_alert_rule *r = &a->rules[rule];
	struct prog *p = prog_of(a, rule, rank);
	const struct live_step *steps;
	struct live_step *now = NULL;
	int fired = 0;

	if (!p)
		return NNS_ENOMEM;
	if (l->steps.n < p->next) /* the trace was read again from its start */
		p->next = p->nhist = p->head = 0;
	if (p->next == l->steps.n)
		return 0;
	steps = l->steps.v + p->next;
	if (r->metric != LIVE_M_STEP_MS) { /* the breakdown as of now */
		if (!(now = malloc((l->steps.n - p->next) * sizeof(*now))))
			return NNS_ENOMEM;
		live_steps_now(l, p->next, now);
		steps = now;
	}
	for (size_t i = 0; i < l->steps.n - p->next; i++) {
		const struct live_step *s = &steps[i];
		double v = step_value(s, r->metric), bound = r->value;
		char where[64];

		if (r->stat)
			bound = p->nhist >= LIVE_ALERT_MIN_HISTORY ? r->factor * stat_of(p, r->stat)
								   : NAN;
		int held = !isnan(bound) && holds(r->op, v, bound);

		/* once per episode: a step where it stops holding re-arms it */
		if (held && !p->holding) {
			if (rank >= 0)
				snprintf(where, sizeof(where), "rank %lld step %lld",
					 (long long)rank, (long long)s->num);
			else
				snprintf(where, sizeof(where), "step %lld", (long long)s->num);
			add_hit(a, rule, rank, s->num, v, bound, where);
			fired++;
		}
		p->holding = held;
		p->hist[p->head] = v;
		p->head = (p->head + 1) % LIVE_ALERT_HISTORY;
		if (p->nhist < LIVE_ALERT_HISTORY)
			p->nhist++;
	}
	free(now);
	p->next = l->steps.n;
	return fired;
}

static int check_ranks(struct live_alerts *a, size_t rule, const struct live_ranks *rk)
{
	const struct live_alert_rule *r = &a->rules[rule];
	struct prog *p;
	const struct live_rank_row *who = NULL;
	double v;
	char where[96];
	int now, fired;

	if (rk->n < 2)
		return 0;
	if (r->metric == LIVE_M_RANK_PCT) {
		if (rk->slowest < 0 || !isfinite(rk->slowest_pct))
			return 0; /* no verdict window yet */
		who = &rk->rows[rk->slowest];
		v = rk->slowest_pct;
	} else {
		for (size_t i = 0; i < rk->n && !who; i++)
			if (rk->rows[i].behind == rk->behind_max)
				who = &rk->rows[i];
		v = (double)rk->behind_max;
	}
	if (!(p = prog_of(a, rule, INT64_MIN)))
		return NNS_ENOMEM;
	now = holds(r->op, v, r->value);
	fired = now && !p->holding;
	if (fired) {
		if (r->metric == LIVE_M_RANK_PCT)
			snprintf(where, sizeof(where), "rank %lld over steps %lld..%lld",
				 (long long)who->rank, (long long)rk->window_lo,
				 (long long)rk->window_hi);
		else
			snprintf(where, sizeof(where), "rank %lld", (long long)who->rank);
		add_hit(a, rule, who->rank, -1, v, r->value, where);
	}
	p->holding = now;
	return fired;
}

int live_alerts_check(struct live_alerts *a, const struct live *l, int64_t rank,
		      const struct live_ranks *ranks)
{
	int fired = 0, rc;

	for (size_t i = 0; i < a->nrules; i++) {
		if (is_step_metric(a->rules[i].metric)) {
			if (!l)
				continue;
			rc = check_steps(a, i, l, rank);
		} else {
			if (!ranks)
				continue;
			rc = check_ranks(a, i, ranks);
		}
		if (rc < 0)
			return rc;
		fired += rc;
	}
	return fired;
}

const struct live_alert_hit *live_alerts_hit(const struct live_alerts *a, size_t i)
{
	if (i >= a->nhits)
		return NULL;
	return &a->hits[(a->fired - a->nhits + i) % LIVE_ALERTS_MAX];
}
