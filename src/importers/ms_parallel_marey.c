/*
 * ms_parallel_marey.c - the stage timeline's files (ms_parallel.h): a saved
 * Marey answer (ascend_marey_timeline_<step>.json), its scope map
 * (scope_map_<step>.json) and the ascend timelines it is computed from.
 */
#include "importers/ms_json.h"
#include "importers/ms_parallel.h"
#include "importers/ms_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ms_marey_release(struct ms_marey *m)
{
	for (size_t i = 0; i < m->maps.n; i++) {
		for (size_t k = 0; k < m->maps.v[i].ops.n; k++)
			free(m->maps.v[i].ops.v[k].name);
		vec_free(&m->maps.v[i].ops);
		free(m->maps.v[i].name);
	}
	vec_free(&m->maps);
	for (size_t i = 0; i < m->stages.n; i++) {
		struct ms_marey_stage *s = &m->stages.v[i];

		for (size_t k = 0; k < s->devices.n; k++)
			free(s->devices.v[k]);
		for (size_t k = 0; k < s->data.n; k++)
			free(s->data.v[k].name);
		vec_free(&s->devices);
		vec_free(&s->data);
		free(s->name);
	}
	vec_free(&m->stages);
	for (size_t i = 0; i < m->scopes.n; i++) {
		free(m->scopes.v[i].op);
		free(m->scopes.v[i].scope);
	}
	vec_free(&m->scopes);
	vec_free(&m->steps);
	memset(m, 0, sizeof(*m));
}

static int nomem(const char *name, struct nns_err *err)
{
	return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
}

static int num(const struct msj *j, const struct msj_node *o, const char *key, double *v)
{
	const struct msj_node *x = msj_get(j, o, key);

	if (!x || x->type != MSJ_NUM)
		return -1;
	*v = x->num;
	return 0;
}

static int bad(const char *name, const struct msj_node *x, const char *key, struct nns_err *err)
{
	return nns_err_set(err, NNS_EFORMAT, "%s:%u: '%s' is not a number", name, x->line, key);
}

static int read_maps(struct ms_marey *m, const struct msj *j, const struct msj_node *maps,
		     const char *name, struct nns_err *err)
{
	for (const struct msj_node *d = msj_first(j, maps); d; d = msj_next(j, d)) {
		struct ms_marey_dev dev;

		memset(&dev, 0, sizeof(dev));
		if (!(dev.name = strdup(msj_key(j, d))) || vec_push(&m->maps, dev)) {
			free(dev.name);
			return nomem(name, err);
		}
		if (d->type != MSJ_OBJ)
			return nns_err_set(err, NNS_EFORMAT, "%s:%u: device '%s' is not an object",
					   name, d->line, msj_key(j, d));
		for (const struct msj_node *o = msj_first(j, d); o; o = msj_next(j, o)) {
			struct ms_marey_op op;

			if (num(j, o, "st", &op.st))
				return bad(name, o, "st", err);
			if (num(j, o, "ed", &op.ed))
				return bad(name, o, "ed", err);
			if (num(j, o, "dur", &op.dur))
				op.dur = op.ed - op.st;
			if (!(op.name = strdup(msj_key(j, o))) ||
			    vec_push(&m->maps.v[m->maps.n - 1].ops, op)) {
				free(op.name);
				return nomem(name, err);
			}
		}
	}
	return NNS_OK;
}

static int read_stages(struct ms_marey *m, const struct msj *j, const struct msj_node *sd,
		       const char *name, struct nns_err *err)
{
	static const char *const K[] = {"st_max", "st_min", "st_avg", "ed_max", "ed_min", "ed_avg"};

	for (const struct msj_node *s = msj_first(j, sd); s; s = msj_next(j, s)) {
		const struct msj_node *data = msj_get(j, s, "data"),
				      *devs = msj_get(j, s, "devices");
		struct ms_marey_stage st;
		struct ms_marey_stage *p;

		memset(&st, 0, sizeof(st));
		if (!(st.name = strdup(msj_key(j, s))) || vec_push(&m->stages, st)) {
			free(st.name);
			return nomem(name, err);
		}
		p = &m->stages.v[m->stages.n - 1];
		for (const struct msj_node *d = devs && devs->type == MSJ_ARR ? msj_first(j, devs)
									      : NULL;
		     d; d = msj_next(j, d)) {
			char *x = msj_str(j, d) ? strdup(msj_str(j, d)) : NULL;

			if (!msj_str(j, d))
				continue;
			if (!x || vec_push(&p->devices, x)) {
				free(x);
				return nomem(name, err);
			}
		}
		for (const struct msj_node *o = data && data->type == MSJ_OBJ ? msj_first(j, data)
									      : NULL;
		     o; o = msj_next(j, o)) {
			struct ms_marey_agg a = {0};
			double *f[6] = {&a.st_max, &a.st_min, &a.st_avg,
					&a.ed_max, &a.ed_min, &a.ed_avg};
			double n = 0;

			for (int k = 0; k < 6; k++)
				if (num(j, o, K[k], f[k]))
					return bad(name, o, K[k], err);
			if (num(j, o, "n", &n))
				return bad(name, o, "n", err);
			a.n = (int)n;
			if (!(a.name = strdup(msj_key(j, o))) || vec_push(&p->data, a)) {
				free(a.name);
				return nomem(name, err);
			}
		}
	}
	return NNS_OK;
}

int ms_marey_parse(struct ms_marey *m, const char *buf, size_t n, const char *name,
		   struct nns_err *err)
{
	struct msj j = {0};
	const struct msj_node *r, *maps, *sd;
	int rc;

	memset(m, 0, sizeof(*m));
	m->source = "file";
	if ((rc = msj_parse(&j, buf, n, name, err)))
		return rc;
	r = msj_root(&j);
	maps = msj_get(&j, r, "maps");
	sd = msj_get(&j, r, "stage_data");
	if (r->type != MSJ_OBJ || !maps || maps->type != MSJ_OBJ) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:%u: not a Marey timeline (no 'maps' object)",
				 name, r->line);
		goto out;
	}
	m->has_min = num(&j, r, "minT", &m->min_t) == 0 && num(&j, r, "maxT", &m->max_t) == 0;
	if ((rc = read_maps(m, &j, maps, name, err)))
		goto out;
	if (sd && sd->type == MSJ_OBJ)
		rc = read_stages(m, &j, sd, name, err);
out:
	msj_release(&j);
	if (rc)
		ms_marey_release(m);
	return rc;
}

int ms_marey_parse_scopes(struct ms_marey *m, const char *buf, size_t n, const char *name,
			  struct nns_err *err)
{
	struct msj j = {0};
	const struct msj_node *sm;
	int rc;

	if ((rc = msj_parse(&j, buf, n, name, err)))
		return rc;
	sm = msj_get(&j, msj_root(&j), "scope_map");
	if (!sm || sm->type != MSJ_OBJ) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:%u: no 'scope_map' object", name,
				 msj_root(&j)->line);
		goto out;
	}
	for (const struct msj_node *o = msj_first(&j, sm); o && !rc; o = msj_next(&j, o)) {
		struct ms_marey_scope s;

		s.op = strdup(msj_key(&j, o));
		s.scope = strdup(msj_str(&j, o) ? msj_str(&j, o) : "");
		if (!s.op || !s.scope || vec_push(&m->scopes, s)) {
			free(s.op);
			free(s.scope);
			rc = nomem(name, err);
		}
	}
out:
	msj_release(&j);
	return rc;
}

int ms_marey_read(const struct ms_src *src, int step, struct ms_marey *m, struct nns_err *err)
{
	struct ms_src s = *src;
	char path[4200], *buf = NULL;
	size_t n = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	s.dev = step;
	if ((rc =
		 ms_read(&s, "ascend_marey_timeline_", ".json", path, sizeof(path), &buf, &n, err)))
		return rc;
	if (!buf)
		return nns_err_set(err, NNS_ENOTFOUND, "%s: no ascend_marey_timeline_%d.json",
				   src->dir, step);
	rc = ms_marey_parse(m, buf, n, path, err);
	free(buf);
	m->step = step;
	if (rc)
		return rc;
	buf = NULL;
	if ((rc = ms_read(&s, "scope_map_", ".json", path, sizeof(path), &buf, &n, err)) ==
		NNS_OK &&
	    buf)
		rc = ms_marey_parse_scopes(m, buf, n, path, err);
	free(buf);
	if (rc)
		ms_marey_release(m);
	return rc;
}

/* ---- ascend timelines ----------------------------------------------------- */

void ms_mtl_set_release(struct ms_mtl_set *s)
{
	for (size_t i = 0; i < s->devs.n; i++) {
		for (size_t k = 0; k < s->devs.v[i].ev.n; k++)
			free(s->devs.v[i].ev.v[k].name);
		vec_free(&s->devs.v[i].ev);
	}
	vec_free(&s->devs);
}

static int digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* ts / dur as a number (MindSpore writes numbers; a numeric string is read
 * too). */
static int tnum(const struct msj *j, const struct msj_node *o, const char *key, double *v)
{
	const struct msj_node *x = msj_get(j, o, key);
	char *end;

	if (!x)
		return -1;
	if (x->type == MSJ_NUM) {
		*v = x->num;
		return 0;
	}
	if (x->type != MSJ_STR || !*msj_str(j, x))
		return -1;
	*v = strtod(msj_str(j, x), &end);
	return *end ? -1 : 0;
}

int ms_mtl_parse(struct ms_mtl *t, const char *buf, size_t n, const char *name, struct nns_err *err)
{
	struct msj j = {0};
	const struct msj_node *r;
	int rc;

	if ((rc = msj_parse(&j, buf, n, name, err)))
		return rc;
	r = msj_root(&j);
	if (r->type != MSJ_ARR) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:%u: not a timeline (expected an array)",
				 name, r->line);
		goto out;
	}
	for (const struct msj_node *e = msj_first(&j, r); e && !rc; e = msj_next(&j, e)) {
		const char *nm = msj_str(&j, msj_get(&j, e, "name"));
		struct ms_mtl_ev ev;

		if (e->type != MSJ_OBJ || !nm || tnum(&j, e, "ts", &ev.ts) ||
		    tnum(&j, e, "dur", &ev.dur))
			continue;
		ev.is_op = msj_get(&j, e, "tid") && strstr(nm, "-op") &&
			   !strstr(nm, "AtomicAddrClean") && !strstr(nm, "StreamSend") &&
			   !strstr(nm, "StreamReceive");
		if (!ev.is_op && !digits(nm))
			continue;
		if (!(ev.name = strdup(nm)) || vec_push(&t->ev, ev)) {
			free(ev.name);
			rc = nomem(name, err);
		}
	}
out:
	msj_release(&j);
	return rc;
}

int ms_mtl_read_dir(const struct ms_src *src, struct ms_mtl_set *s, struct nns_err *err)
{
	int *ids = malloc(MS_PAR_FILES_MAX * sizeof(int)), n, rc = NNS_OK;

	memset(s, 0, sizeof(*s));
	if (!ids)
		return nomem(src->dir, err);
	n = ms_mtl_devices(src, ids, MS_PAR_FILES_MAX);
	if (n <= 0)
		rc = nns_err_set(err, NNS_ENOTFOUND, "%s: no ascend_timeline_display_<dev>.json",
				 src->dir);
	for (int i = 0; i < n && !rc; i++) {
		struct ms_src one = *src;
		struct ms_mtl t;
		char path[4200], *buf = NULL;
		size_t len = 0;

		one.dev = ids[i];
		memset(&t, 0, sizeof(t));
		t.dev = ids[i];
		rc = ms_read(&one, "ascend_timeline_display_", ".json", path, sizeof(path), &buf,
			     &len, err);
		if (!rc && buf)
			rc = ms_mtl_parse(&t, buf, len, path, err);
		free(buf);
		if (!rc && vec_push(&s->devs, t))
			rc = nomem(src->dir, err);
		if (rc) {
			for (size_t k = 0; k < t.ev.n; k++)
				free(t.ev.v[k].name);
			vec_free(&t.ev);
		}
	}
	free(ids);
	if (rc && rc != NNS_ENOTFOUND)
		ms_mtl_set_release(s);
	return rc;
}
