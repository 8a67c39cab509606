/*
 * routes_live.c - the live answers of `nnscope serve` (docs/SERVER.md,
 * "Live runs"): /api/live (the live summary of a .nnst trace, while it is
 * written and after) and /api/view of a live entry (its live document, or
 * 409 for a view that only the whole trace gives). The documents are
 * output/live_json.h's, written from the entry's follow
 * (live_entries.h), which reads only the bytes appended since its last
 * refresh.
 */
#include "server/live_entries.h"
#include "server/server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* `last`: the N of "the last N steps", 0 when absent; 0 after answering
 * 400 when it is not 1..LIVE_RECENT_STEPS. */
static int last_arg(struct srv_req *q, size_t *last)
{
	const char *v = srv_arg(q, "last");
	char *end;
	long x;

	*last = 0;
	if (!v || !*v)
		return 1;
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || x < 1 || x > LIVE_RECENT_STEPS) {
		srv_error(q, 400, "parameter 'last' wants an integer in [1, %d], not '%.40s'",
			  LIVE_RECENT_STEPS, v);
		return 0;
	}
	*last = (size_t)x;
	return 1;
}

/* Answers document `view` of lv's follow (held, locked) and releases lv. */
static void reply_doc(struct server *s, struct srv_req *q, struct reg_live *lv, const char *view,
		      size_t last)
{
	struct live_src src;
	struct jsonw w;
	int rc;

	if (jsonw_init_mem(&w, 0, 0)) {
		live_put(&s->reg, lv);
		return srv_error(q, 503, "out of memory");
	}
	live_follow_src(lv->f, s->reg.live_idle_ns, &src);
	rc = live_json_view(&w, lv->f->live, &src, view, last);
	live_put(&s->reg, lv);
	if (rc != NNS_OK) {
		jsonw_release(&w);
		return srv_error(q, rc == NNS_EINVAL ? 404 : 500, "cannot write live view '%.64s'",
				 view);
	}
	srv_reply_json(q, &w);
}

void api_live(struct server *s, struct srv_req *q)
{
	struct reg_entry *e;
	struct reg_live *lv;
	struct nns_err err;
	size_t last;
	int status = 500;

	if (!(e = srv_entry_arg(s, q, "")) || !last_arg(q, &last))
		return;
	nns_err_clear(&err);
	if (!(lv = live_get(&s->reg, e, &status, &err)))
		return srv_error(q, status, "%s", err.msg);
	reply_doc(s, q, lv, "summary", last);
}

int api_view_live(struct server *s, struct srv_req *q, struct reg_entry *e, const char *view)
{
	struct reg_live *lv;
	struct nns_err err;
	size_t last;
	int status = 500;

	if (!live_json_has_view(view) || !strcmp(view, "summary")) {
		srv_error(
		    q, 409,
		    "%s is still being written: the '%.64s' view is available when the run "
		    "ends (while it runs: overview, operators, kernels, memory, cpu, datapipe "
		    "and the trace)",
		    e->path, view);
		return 1;
	}
	if (!last_arg(q, &last))
		return 1;
	nns_err_clear(&err);
	if (!(lv = live_get(&s->reg, e, &status, &err))) {
		srv_error(q, status, "%s", err.msg);
		return 1;
	}
	if (!live_entry_is_live(&s->reg, e)) {
		/* it ended at this refresh: the whole trace answers now */
		live_put(&s->reg, lv);
		return 0;
	}
	reply_doc(s, q, lv, view, last);
	return 1;
}
