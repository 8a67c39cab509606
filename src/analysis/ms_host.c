/*
 * ms_host.c - MindSpore's _parse_host_info and _calculate_dataset_execution_time
 * over a host_info CSV read as Python reads it (ms_host.h): each row walked
 * in the order MindSpore's statements look its columns up, so that a
 * KeyError, a TypeError or a ValueError happens where it happens there.
 */
#include "analysis/ms_host.h"
#include "common/hmap.h"
#include "common/num.h"

#include <stdlib.h>
#include <string.h>

enum { R_OK, R_SKIP, R_RAISE, R_UNSUP, R_NOMEM };

/* row[c]: R_SKIP when the header lacks it (KeyError), else R_OK with *s
 * (NULL for None). */
static int get(const struct ms_host_csv *h, const struct ms_host_row *r, int c, const char **s)
{
	if (r->v[c] == MSH_ABSENT)
		return R_SKIP;
	*s = ms_host_val(h, r, c);
	return R_OK;
}

/* int(row[c]) */
static int get_int(const struct ms_host_csv *h, const struct ms_host_row *r, int c, int64_t *v)
{
	const char *s;
	int rc;

	if (get(h, r, c, &s))
		return R_SKIP;
	if (!s)
		return R_RAISE; /* int(None): TypeError */
	rc = num_pyint(s, strlen(s), v);
	return rc == 0 ? R_OK : rc == -1 ? R_RAISE : R_UNSUP;
}

/* Python's dict of event_stage_tid_pid -> start time: insertion order, a
 * key set again keeps its place, a deleted key set again goes last. */
struct tsmap {
	struct strpool keys;
	struct hmap ix; /* key id -> entry, UINT32_MAX when deleted */
	VEC(struct tsent {
		uint32_t key;
		int alive;
		int64_t ts;
	})
	e;
	size_t alive;
};

static int ts_find(struct tsmap *m, const char *k, size_t n, uint32_t *ent)
{
	uint32_t id = strpool_find(&m->keys, k, n), *p;

	if (id == STRPOOL_NONE || !(p = hmap_get(&m->ix, id)) || *p == UINT32_MAX)
		return 0;
	*ent = *p;
	return 1;
}

static int ts_set(struct tsmap *m, const char *k, size_t n, int64_t ts)
{
	uint32_t id = strpool_intern(&m->keys, k, n), *p;
	int is_new;

	if (id == STRPOOL_NONE || !(p = hmap_put(&m->ix, id, UINT32_MAX, &is_new)))
		return R_NOMEM;
	if (*p != UINT32_MAX) {
		m->e.v[*p].ts = ts;
		return R_OK;
	}
	if (m->e.n >= UINT32_MAX - 1)
		return R_NOMEM;
	*p = (uint32_t)m->e.n;
	if (vec_push(&m->e, ((struct tsent){id, 1, ts})))
		return R_NOMEM;
	m->alive++;
	return R_OK;
}

static void ts_del(struct tsmap *m, uint32_t ent)
{
	uint32_t *p = hmap_get(&m->ix, m->e.v[ent].key);

	if (p)
		*p = UINT32_MAX;
	m->e.v[ent].alive = 0;
	m->alive--;
}

static void ts_release(struct tsmap *m)
{
	strpool_release(&m->keys);
	hmap_release(&m->ix);
	vec_free(&m->e);
}

struct ctx {
	const struct ms_host_csv *h;
	struct ms_host_result *r;
	struct tsmap ts;
	char *key; /* the row's event_stage_tid_pid */
	size_t key_n, key_cap;
};

static int key_add(struct ctx *x, const char *s)
{
	size_t n = strlen(s);

	if (x->key_n + n + 1 > x->key_cap &&
	    vec_reserve_raw((void **)&x->key, &x->key_cap, x->key_n + n + 1, 1))
		return R_NOMEM;
	memcpy(x->key + x->key_n, s, n + 1);
	x->key_n += n;
	return R_OK;
}

/* event + '_' + stage + '_' + row['tid'] + '_' + row['pid'], looked up and
 * added left to right. */
static int make_key(struct ctx *x, const struct ms_host_row *row)
{
	static const int cols[4] = {MSH_EVENT, MSH_STAGE, MSH_TID, MSH_PID};
	int rc;

	x->key_n = 0;
	for (int k = 0; k < 4; k++) {
		const char *s;

		if (get(x->h, row, cols[k], &s))
			return R_SKIP;
		if (!s)
			return R_RAISE; /* str + None */
		if ((rc = key_add(x, s)) || (k < 3 && (rc = key_add(x, "_"))))
			return rc;
	}
	return R_OK;
}

static int is(const char *s, const char *lit)
{
	return s && strcmp(s, lit) == 0;
}

/* _extract_timeline_item */
static int extract(struct ctx *x, const struct ms_host_row *row, size_t i, int64_t t)
{
	const char *se, *mod, *ppid;
	uint32_t ent;
	int rc;

	if (get(x->h, row, MSH_START_END, &se))
		return R_SKIP;
	if ((rc = make_key(x, row)))
		return rc;
	if (is(se, "1") && ts_find(&x->ts, x->key, x->key_n, &ent)) {
		int64_t ts = x->ts.e.v[ent].ts;

		if (get(x->h, row, MSH_MODULE, &mod) || get(x->h, row, MSH_PPID, &ppid))
			return R_SKIP;
		if (vec_push(&x->r->tl, ((struct ms_host_tl_item){MSH_X, i, ts, t - ts, 0, 0, 0})))
			return R_NOMEM;
		ts_del(&x->ts, ent);
	} else if (is(se, "0")) {
		return ts_set(&x->ts, x->key, x->key_n, t);
	} else if (is(se, "2")) {
		if (get(x->h, row, MSH_MODULE, &mod) || get(x->h, row, MSH_PPID, &ppid))
			return R_SKIP;
		if (vec_push(&x->r->tl, ((struct ms_host_tl_item){MSH_I, i, t, 0, 0, 0, 0})))
			return R_NOMEM;
	}
	return R_OK;
}

static uint32_t intern(struct ms_host_result *r, const char *s, size_t n)
{
	return strpool_intern(&r->strings, s, n);
}

/* The starts left open: {'name', 'pid', 'tid', 'ph': 'B', 'ts'}. */
static int unfinished(struct ctx *x)
{
	for (size_t e = 0; e < x->ts.e.n; e++) {
		const char *k = strpool_get(&x->ts.keys, x->ts.e.v[e].key);
		size_t n = strpool_len(&x->ts.keys, x->ts.e.v[e].key), last, second;
		struct ms_host_tl_item it = {MSH_B, 0, x->ts.e.v[e].ts, 0, 0, 0, 0};

		if (!x->ts.e.v[e].alive)
			continue;
		for (last = n; last > 0 && k[last - 1] != '_'; last--)
			;
		if (last == 0)
			continue; /* k.rfind('_') == -1 */
		last--;
		/* k.rfind('_', 0, last_dash - 1) */
		for (second = last >= 1 ? last - 1 : 0; second > 0 && k[second - 1] != '_';
		     second--)
			;
		if (second == 0)
			continue;
		second--;
		it.pid = intern(x->r, k + last + 1, n - last - 1);
		it.tid = intern(x->r, k + second + 1, last - second - 1);
		it.name = intern(x->r, k, second);
		if (it.pid == STRPOOL_NONE || it.tid == STRPOOL_NONE || it.name == STRPOOL_NONE ||
		    vec_push(&x->r->tl, it))
			return R_NOMEM;
	}
	return R_OK;
}

/* One row of _parse_host_info's loop (is_develop_user=True: level only
 * looked up). */
static int parse_row(struct ctx *x, size_t i)
{
	const struct ms_host_row *row = &x->h->rows.v[i];
	const char *level;
	int64_t t, mem;
	int rc;

	if (get(x->h, row, MSH_LEVEL, &level))
		return R_SKIP;
	if ((rc = get_int(x->h, row, MSH_TIME, &t)))
		return rc;
	if (t > 0 && (rc = extract(x, row, i, t)))
		return rc;
	if ((rc = get_int(x->h, row, MSH_MEMORY, &mem)))
		return rc;
	if (mem > 0) {
		if (x->r->mem_raise_at < 0 && (x->h->header_foreign || row->extra))
			x->r->mem_raise_at = (int64_t)x->r->mem.n;
		if (mem > x->r->mem_peak_kb)
			x->r->mem_peak_kb = mem;
		if (vec_push(&x->r->mem, i))
			return R_NOMEM;
	}
	return R_OK;
}

/* _calculate_dataset_item, for a Dataset row. */
static int dataset_row(struct ctx *x, struct hmap *titles, struct strpool *tp, size_t i)
{
	const struct ms_host_row *row = &x->h->rows.v[i];
	const char *se, *ev, *st, *ci;
	uint32_t ent;
	int64_t t;
	int rc;

	if (get(x->h, row, MSH_START_END, &se) || get(x->h, row, MSH_EVENT, &ev) ||
	    get(x->h, row, MSH_STAGE, &st) || get(x->h, row, MSH_CUSTOM, &ci))
		return R_SKIP;
	if ((rc = make_key(x, row)))
		return rc;
	if (is(se, "1") && ts_find(&x->ts, x->key, x->key_n, &ent)) {
		struct ms_host_ds_item *d;
		uint32_t id, *slot;
		size_t kn = x->key_n;
		int is_new;

		if (!ci)
			return R_RAISE; /* str + None */
		/* the title event::stage::custom_info, after the key in x->key */
		if ((rc = key_add(x, "")) || (rc = key_add(x, ev)) || (rc = key_add(x, "::")) ||
		    (rc = key_add(x, st)) || (rc = key_add(x, "::")) || (rc = key_add(x, ci)))
			return rc;
		if ((rc = get_int(x->h, row, MSH_TIME, &t)))
			return rc;
		id = strpool_intern(tp, x->key + kn, x->key_n - kn);
		if (id == STRPOOL_NONE || !(slot = hmap_put(titles, id, UINT32_MAX, &is_new)))
			return R_NOMEM;
		if (*slot == UINT32_MAX) {
			*slot = (uint32_t)x->r->ds.n;
			if (vec_push(&x->r->ds, ((struct ms_host_ds_item){i, 0, 0.0})))
				return R_NOMEM;
		}
		d = &x->r->ds.v[*slot];
		d->count++;
		d->avg += ((double)(t - x->ts.e.v[ent].ts) - d->avg) / (double)d->count;
		x->key_n = kn;
		ts_del(&x->ts, ent);
	} else if (is(se, "0")) {
		if ((rc = get_int(x->h, row, MSH_TIME, &t)))
			return rc;
		return ts_set(&x->ts, x->key, x->key_n, t);
	}
	return R_OK;
}

static int dataset(struct ctx *x)
{
	struct hmap titles;
	struct strpool tp;
	int rc = R_OK;

	hmap_init(&titles);
	if (strpool_init(&tp))
		return R_NOMEM;
	for (size_t i = 0; i < x->h->rows.n; i++) {
		const char *mod;

		if (get(x->h, &x->h->rows.v[i], MSH_MODULE, &mod) || !is(mod, "Dataset"))
			continue;
		rc = dataset_row(x, &titles, &tp, i);
		if (rc == R_SKIP)
			rc = R_OK;
		if (rc == R_RAISE) {
			x->r->ds_raised = 1;
			x->r->ds_raised_row = (int64_t)i;
			rc = R_OK;
			break;
		}
		if (rc)
			break;
	}
	x->r->ds_unmatched_starts = (int64_t)x->ts.alive;
	hmap_release(&titles);
	strpool_release(&tp);
	return rc;
}

static int fresh_map(struct tsmap *m)
{
	ts_release(m);
	memset(m, 0, sizeof(*m));
	hmap_init(&m->ix);
	return strpool_init(&m->keys) ? R_NOMEM : R_OK;
}

static int run(struct ctx *x)
{
	int rc = R_OK;

	for (size_t i = 0; i < x->h->rows.n; i++) {
		rc = parse_row(x, i);
		if (rc == R_SKIP)
			rc = R_OK;
		if (rc == R_RAISE) {
			x->r->parse_raised = 1;
			x->r->parse_raised_row = (int64_t)i;
			return R_OK;
		}
		if (rc)
			return rc;
	}
	if ((rc = unfinished(x)) || (rc = fresh_map(&x->ts)))
		return rc;
	return dataset(x);
}

int ms_host_compute(const struct ms_host_csv *h, struct ms_host_result *r, struct nns_err *err)
{
	struct ctx x;
	int rc;

	memset(r, 0, sizeof(*r));
	r->mem_raise_at = -1;
	memset(&x, 0, sizeof(x));
	x.h = h;
	x.r = r;
	hmap_init(&x.ts.ix);
	if (strpool_init(&r->strings) || strpool_init(&x.ts.keys)) {
		rc = R_NOMEM;
		goto out;
	}
	rc = run(&x);
out:
	ts_release(&x.ts);
	free(x.key);
	if (rc == R_UNSUP)
		nns_err_set(
		    err, NNS_EFORMAT,
		    "host_info_%lld.csv: a number beyond 2^62 or with non-ASCII digits "
		    "(MindSpore reads it; nnscope cannot reproduce that exactly): no host_info "
		    "output",
		    (long long)h->rank);
	else if (rc)
		nns_err_set(err, NNS_ENOMEM, "host_info: out of memory");
	if (rc) {
		ms_host_result_release(r);
		return rc == R_UNSUP ? NNS_EFORMAT : NNS_ENOMEM;
	}
	return NNS_OK;
}

void ms_host_result_release(struct ms_host_result *r)
{
	vec_free(&r->mem);
	vec_free(&r->tl);
	vec_free(&r->ds);
	strpool_release(&r->strings);
	memset(r, 0, sizeof(*r));
	r->mem_raise_at = -1;
}

int ms_host_writes_memory(const struct ms_host_result *r)
{
	return !r->parse_raised && r->mem.n > 0;
}

int ms_host_writes_timeline(const struct ms_host_result *r)
{
	return !r->parse_raised && r->mem_raise_at < 0 && r->tl.n > 0;
}

int ms_host_writes_dataset(const struct ms_host_result *r)
{
	return !r->parse_raised && r->mem_raise_at < 0 && !r->ds_raised;
}
