/*
 * ms_timeline_planes.c - the four planes of one rank of MindInsight's
 * cluster timeline, written as Chrome-trace events (ms_timeline.h gives
 * the definitions; ms_timeline.c finds the ranks and their files).
 *
 * Each file is parsed whole (ms_json.h) and its events are written back
 * with the plane's pid/tid/name changes, the rank's pid, and ts moved by
 * the rank's offset in whole ns.
 */
#include "importers/ms_timeline_int.h"
#include "common/jsonesc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Changes to one event as it is written. */
struct ev_over {
	const char *pid;  /* the plane's pid (digits), NULL: the event's own */
	const char *tid;  /* NULL: the event's own */
	const char *name; /* NULL: the event's own */
};

static void put(struct mstl_w *w, const char *s, size_t n)
{
	if (!w->oom && buf_append(w->b, s, n))
		w->oom = 1;
}

static void puts_(struct mstl_w *w, const char *s)
{
	put(w, s, strlen(s));
}

static void esc_put(void *ctx, const char *s, size_t n)
{
	put(ctx, s, n);
}

static void put_str(struct mstl_w *w, const char *s, size_t n)
{
	put(w, "\"", 1);
	json_escape(s, n, 0, esc_put, w);
	put(w, "\"", 1);
}

/* Python's repr of a float where it is short: the fewest digits that read
 * back as the same double; integers without a fraction. */
static void put_num(struct mstl_w *w, double d)
{
	char s[48];

	if (d != d || isinf(d)) {
		puts_(w, "null");
		return;
	}
	if (d == floor(d) && fabs(d) < 1e15) {
		snprintf(s, sizeof(s), "%.0f", d);
	} else {
		for (int p = 15; p <= 17; p++) {
			snprintf(s, sizeof(s), "%.*g", p, d);
			if (strtod(s, NULL) == d)
				break;
		}
	}
	puts_(w, s);
}

static void put_node(struct mstl_w *w, const struct msj *j, const struct msj_node *x)
{
	const struct msj_node *c;
	int first = 1;

	switch (x->type) {
	case MSJ_NULL:
		puts_(w, "null");
		return;
	case MSJ_BOOL:
		puts_(w, x->num != 0 ? "true" : "false");
		return;
	case MSJ_NUM:
		put_num(w, x->num);
		return;
	case MSJ_STR:
		put_str(w, msj_str(j, x), x->slen);
		return;
	default:
		break;
	}
	put(w, x->type == MSJ_ARR ? "[" : "{", 1);
	for (c = msj_first(j, x); c; c = msj_next(j, c), first = 0) {
		if (!first)
			put(w, ",", 1);
		if (x->type == MSJ_OBJ) {
			put_str(w, msj_key(j, c), c->klen);
			put(w, ":", 1);
		}
		put_node(w, j, c);
	}
	put(w, x->type == MSJ_ARR ? "]" : "}", 1);
}

/* A pid or tid as text: an integer number's digits, a string as it is. */
void mstl_id_text(const struct msj *j, const struct msj_node *x, char *out, size_t n)
{
	if (!x)
		snprintf(out, n, "%s", "");
	else if (x->type == MSJ_NUM)
		snprintf(out, n, "%.0f", x->num);
	else if (x->type == MSJ_STR)
		snprintf(out, n, "%s", msj_str(j, x));
	else
		snprintf(out, n, "%s", "");
}

/* MindInsight's rank pid: int(digits of pid + str(rank)). */
static void put_rank_pid(struct mstl_w *w, const char *pid)
{
	char d[64];
	size_t k = 0;

	for (const char *p = pid; *p && k < 20; p++)
		if (*p >= '0' && *p <= '9')
			d[k++] = *p;
	d[k] = 0;
	while (k > 1 && d[0] == '0') /* int() drops leading zeros */
		memmove(d, d + 1, k--);
	if (k == 1 && d[0] == '0')
		k = 0, d[0] = 0;
	snprintf(d + k, sizeof(d) - k, "%d", w->rank);
	puts_(w, d);
}

static void put_ts(struct mstl_w *w, double us)
{
	char s[48];
	int64_t ns = (int64_t)llround(us * 1000.0) + w->offset_ns;
	int64_t a = ns < 0 ? -ns : ns;

	snprintf(s, sizeof(s), "%s%" PRId64 ".%03" PRId64, ns < 0 ? "-" : "", a / 1000, a % 1000);
	puts_(w, s);
}

/* An id as JSON: a number when it is one, else a string. */
static void put_id(struct mstl_w *w, const char *id)
{
	const char *p = id + (*id == '-');

	if (*p && strspn(p, "0123456789") == strlen(p))
		puts_(w, id);
	else
		put_str(w, id, strlen(id));
}

static void sep(struct mstl_w *w)
{
	if (!*w->first)
		put(w, ",", 1);
	*w->first = 0;
}

/* Writes event ev with the changes of o: pid to the rank's, ts moved
 * (when the offset and the ts are not 0, as MindInsight), process names
 * suffixed " rank<r>". */
static void put_event(struct mstl_w *w, const struct msj *j, const struct msj_node *ev,
		      const struct ev_over *o)
{
	const struct msj_node *nm = msj_get(j, ev, "name"), *ph = msj_get(j, ev, "ph");
	int pname = nm && ph && msj_str(j, nm) && msj_str(j, ph) &&
		    strcmp(msj_str(j, nm), "process_name") == 0 && strcmp(msj_str(j, ph), "M") == 0;
	int first = 1;
	char id[64];

	sep(w);
	put(w, "{", 1);
	for (const struct msj_node *c = msj_first(j, ev); c; c = msj_next(j, c), first = 0) {
		const char *k = msj_key(j, c);

		if (!first)
			put(w, ",", 1);
		put_str(w, k, c->klen);
		put(w, ":", 1);
		if (strcmp(k, "pid") == 0) {
			mstl_id_text(j, c, id, sizeof(id));
			put_rank_pid(w, o->pid ? o->pid : id);
		} else if (strcmp(k, "tid") == 0 && o->tid) {
			put_id(w, o->tid);
		} else if (strcmp(k, "ts") == 0 && c->type == MSJ_NUM && c->num != 0 &&
			   w->offset_ns) {
			put_ts(w, c->num);
		} else if (strcmp(k, "name") == 0 && o->name) {
			put_str(w, o->name, strlen(o->name));
		} else if (strcmp(k, "args") == 0 && pname && c->type == MSJ_OBJ) {
			int f2 = 1;

			put(w, "{", 1);
			for (const struct msj_node *a = msj_first(j, c); a;
			     a = msj_next(j, a), f2 = 0) {
				if (!f2)
					put(w, ",", 1);
				put_str(w, msj_key(j, a), a->klen);
				put(w, ":", 1);
				if (strcmp(msj_key(j, a), "name") == 0 && a->type == MSJ_STR) {
					char s[600];

					snprintf(s, sizeof(s), "%s rank%d", msj_str(j, a), w->rank);
					put_str(w, s, strlen(s));
				} else {
					put_node(w, j, a);
				}
			}
			put(w, "}", 1);
		} else {
			put_node(w, j, c);
		}
	}
	put(w, "}", 1);
}

/* A metadata event MindInsight writes itself. */
static void put_meta(struct mstl_w *w, const char *what, const char *pid, const char *tid,
		     const char *name)
{
	char s[600];

	sep(w);
	puts_(w, "{\"name\":");
	put_str(w, what, strlen(what));
	puts_(w, ",\"pid\":");
	put_rank_pid(w, pid);
	puts_(w, ",\"tid\":");
	put_id(w, tid);
	puts_(w, ",\"args\":{\"name\":");
	if (strcmp(what, "process_name") == 0) {
		snprintf(s, sizeof(s), "%s rank%d", name, w->rank);
		put_str(w, s, strlen(s));
	} else {
		put_str(w, name, strlen(name));
	}
	puts_(w, "},\"ph\":\"M\"}");
}

static const char *sval(const struct msj *j, const struct msj_node *ev, const char *key)
{
	const struct msj_node *x = msj_get(j, ev, key);
	const char *s = x ? msj_str(j, x) : NULL;

	return s ? s : "";
}

static int is_meta(const struct msj *j, const struct msj_node *ev, const char *name)
{
	return strcmp(sval(j, ev, "ph"), "M") == 0 &&
	       (!name || strcmp(sval(j, ev, "name"), name) == 0);
}

/* args.name of a metadata event, "" if none. */
static const char *arg_name(const struct msj *j, const struct msj_node *ev)
{
	const struct msj_node *a = msj_get(j, ev, "args");

	return sval(j, a, "name");
}

/* The sub-graph of a step-trace thread "Model ID:<m>": 1 when selected. */
static int model_selected(const struct mstl_opts *o, const char *tname)
{
	const char *c = strrchr(tname, ':');
	char *end;
	long v;

	if (!o->nmodels)
		return 1;
	if (!c)
		return 0;
	v = strtol(c + 1, &end, 10);
	while (*end == ' ')
		end++;
	if (end == c + 1 || *end)
		return 0;
	for (int i = 0; i < o->nmodels; i++)
		if (o->models[i] == v)
			return 1;
	return 0;
}

/* Thread ids kept: text of tid -> thread name. */
struct tidmap {
	size_t n;
	char tid[256][32];
	const char *name[256];
};

static const char *tid_get(const struct tidmap *t, const char *tid)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->tid[i], tid) == 0)
			return t->name[i];
	return NULL;
}

static void tid_put(struct tidmap *t, const char *tid, const char *name)
{
	if (t->n < 256 && !tid_get(t, tid)) {
		snprintf(t->tid[t->n], sizeof(t->tid[0]), "%s", tid);
		t->name[t->n++] = name;
	}
}

void mstl_step_trace(struct mstl_w *w, const struct msj *j, const struct mstl_opts *o)
{
	const struct msj_node *root = msj_root(j), *ev;
	struct tidmap *t = calloc(1, sizeof(*t));
	char pid[64] = "", tid[64];
	int have_pid = 0;

	if (!t) {
		w->oom = 1;
		return;
	}
	for (ev = msj_first(j, root); ev; ev = msj_next(j, ev)) {
		if (is_meta(j, ev, "process_name")) {
			mstl_id_text(j, msj_get(j, ev, "pid"), pid, sizeof(pid));
			have_pid = 1;
		} else if (is_meta(j, ev, "thread_name") && model_selected(o, arg_name(j, ev))) {
			mstl_id_text(j, msj_get(j, ev, "tid"), tid, sizeof(tid));
			tid_put(t, tid, arg_name(j, ev));
		}
	}
	if (!o->apart && have_pid) {
		put_meta(w, "process_name", pid, "0", "Step Trace");
		put_meta(w, "thread_name", pid, pid, "iterations");
	}
	for (ev = msj_first(j, root); ev && (have_pid || o->apart); ev = msj_next(j, ev)) {
		struct ev_over ov = {NULL, NULL, NULL};
		const char *tn;
		char nm[600];

		mstl_id_text(j, msj_get(j, ev, "tid"), tid, sizeof(tid));
		tn = tid_get(t, tid);
		if (o->apart) {
			if (is_meta(j, ev, "process_name") || tn)
				put_event(w, j, ev, &ov);
			continue;
		}
		if (is_meta(j, ev, NULL) || !tn)
			continue;
		{
			const char *name = sval(j, ev, "name"), *sp;

			while (*name == ' ')
				name++;
			sp = strchr(name, ' ');
			if (strncmp(name, "Iteration", 9) == 0 && sp && !strchr(sp + 1, ' ') &&
			    sp[1]) {
				snprintf(nm, sizeof(nm), "%s %s", tn, name);
				ov.name = nm;
			}
		}
		ov.tid = pid;
		put_event(w, j, ev, &ov);
	}
	free(t);
}

static const char *const OVERLAP[4] = {"Computing", "Communication",
				       "Communication(Not Overlapped)", "Free"};

/* The pid of the process named pname in j, into pid; 0 if none. */
static int find_pid(const struct msj *j, const char *pname, char *pid, size_t n)
{
	for (const struct msj_node *ev = msj_first(j, msj_root(j)); ev; ev = msj_next(j, ev))
		if (is_meta(j, ev, "process_name") && strcmp(arg_name(j, ev), pname) == 0) {
			mstl_id_text(j, msj_get(j, ev, "pid"), pid, n);
			return 1;
		}
	return 0;
}

void mstl_overlap(struct mstl_w *w, struct msj *files, size_t n)
{
	char pid[64], tid[16];

	if (!n || !find_pid(&files[0], "Overlap Analysis", pid, sizeof(pid)))
		return;
	put_meta(w, "process_name", pid, "0", "Overlap Analysis");
	for (int k = 0; k < 4; k++) {
		snprintf(tid, sizeof(tid), "%d", k);
		put_meta(w, "thread_name", pid, tid, OVERLAP[k]);
	}
	for (size_t f = 0; f < n; f++) {
		const struct msj *j = &files[f];

		for (const struct msj_node *ev = msj_first(j, msj_root(j)); ev;
		     ev = msj_next(j, ev)) {
			const char *name = sval(j, ev, "name");

			if (is_meta(j, ev, NULL))
				continue;
			for (int k = 0; k < 4; k++)
				if (strcmp(name, OVERLAP[k]) == 0) {
					struct ev_over ov = {pid, tid, NULL};

					snprintf(tid, sizeof(tid), "%d", k);
					put_event(w, j, ev, &ov);
					break;
				}
		}
	}
}

static int stream_thread(const char *name)
{
	return strstr(name, "Stream") != NULL;
}

static int hccl_thread(const char *name)
{
	return strstr(name, "Plane") || strstr(name, "Communication");
}

/* Ascend Hardware (task_time files) or HCCL (hccl files): every event,
 * on the process pname of the first file, with the named threads. */
void mstl_copy_plane(struct mstl_w *w, struct msj *files, size_t n, const char *pname)
{
	int hccl = strcmp(pname, "HCCL") == 0;
	struct tidmap *t;
	char pid[64], tid[64];

	if (!n || !find_pid(&files[0], pname, pid, sizeof(pid)))
		return;
	if (!(t = calloc(1, sizeof(*t)))) {
		w->oom = 1;
		return;
	}
	for (size_t f = 0; f < n; f++)
		for (const struct msj_node *ev = msj_first(&files[f], msj_root(&files[f])); ev;
		     ev = msj_next(&files[f], ev)) {
			const char *tn = arg_name(&files[f], ev);

			if (!is_meta(&files[f], ev, "thread_name") ||
			    !(hccl ? hccl_thread(tn) : stream_thread(tn)))
				continue;
			mstl_id_text(&files[f], msj_get(&files[f], ev, "tid"), tid, sizeof(tid));
			tid_put(t, tid, tn);
		}
	put_meta(w, "process_name", pid, "0", pname);
	for (size_t i = 0; i < t->n; i++)
		put_meta(w, "thread_name", pid, t->tid[i], t->name[i]);
	free(t);
	for (size_t f = 0; f < n; f++) {
		struct ev_over ov = {pid, NULL, NULL};

		for (const struct msj_node *ev = msj_first(&files[f], msj_root(&files[f])); ev;
		     ev = msj_next(&files[f], ev))
			if (!is_meta(&files[f], ev, NULL))
				put_event(w, &files[f], ev, &ov);
	}
}
