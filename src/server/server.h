/*
 * server.h - `nnscope serve`: the HTTP server (libmicrohttpd) in front of
 * the run registry, answering the JSON API and the embedded UI of
 * docs/SERVER.md.
 *
 * Ownership: struct server is caller storage; srv_start() fills it and
 * srv_stop() releases everything it holds.
 */
#ifndef NNS_SERVER_SERVER_H
#define NNS_SERVER_SERVER_H

#include "common/err.h"
#include "output/jsonw.h"
#include "server/conns.h"
#include "server/hold.h"
#include "server/marey_cache.h"
#include "server/registry.h"

#include <stddef.h>

struct srv_opts {
	const char *logdir;
	const char *cache_dir; /* NULL: beside each run */
	const char *host;      /* address to bind, "127.0.0.1" by default */
	int port;	       /* 0: any free port (srv_start reports it) */
	int threads;	       /* HTTP worker threads (default 4) */
	int max_loaded;	       /* traces kept in memory (default 8) */
	int loopback;	       /* the address is a loopback one: check Host headers */
	int quiet;
	int no_snapshots;	/* --no-snapshots: none read or written */
	double request_timeout; /* s for a request to arrive in full (0: 10; < 0: none) */
	double load_timeout;	/* s a trace may take to load (0: 300; < 0: none) */
	double load_abandon;	/* s without a request before a load stops (0: 30; < 0: none) */
	double live_idle;	/* s without growth before a .nnst stops being live (0: 10;
				 * < 0: nothing is live) */
	/* the input limits (max_*) of every load */
	struct kineto_opts limits;
	/* --alert rules (analysis/live_alert.h), checked on every live run */
	const char *const *alerts;
	size_t nalerts;
};

struct srv_req; /* one request (http.c) */

struct server {
	struct registry reg;
	struct conn_guard guard; /* connection deadlines and shedding (conns.h) */
	struct srv_holds holds;	 /* requests waiting for a load (hold.h) */
	struct srv_opts o;
	struct marey_cache marey; /* ms_marey documents per step (marey_cache.h) */
	struct live_watch *watch; /* live verdicts and --alert rules (live_watch.h) */
	int port;		  /* the bound port */
	void *mhd;
};

int srv_start(struct server *s, const struct srv_opts *o, struct nns_err *err);
void srv_stop(struct server *s);

/* ---- used by routes.c ------------------------------------------------------- */

/* A query parameter of the request, NULL when absent. */
const char *srv_arg(struct srv_req *q, const char *name);
/* Answers with a body that the response takes ownership of (malloc'd). */
void srv_reply(struct srv_req *q, int status, const char *mime, char *body, size_t len);
/* Adds a header to the answer already made (nothing without one). */
void srv_header(struct srv_req *q, const char *name, const char *value);
/* Answers {"error": msg} with status. */
void srv_error(struct srv_req *q, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Finishes w, answers it (200) and releases w; 500 when writing failed. */
void srv_reply_json(struct srv_req *q, struct jsonw *w);
/* Answers 202 with a progress document: pr's state, phase, progress, file
 * details and cause, and the other loads under way (docs/SERVER.md). */
void srv_progress(struct srv_req *q, const struct reg_progress *pr);
/* Instead of answering 202 for entry e (need: what the request reads,
 * enum reg_need): holds the request until e's load settles, when it asked
 * to wait (X-Nnscope-Wait) and was not held before (hold.h). 1 when held:
 * answer nothing. */
int srv_hold(struct srv_req *q, struct reg_entry *e, int need);
/* Writes the members of one load's progress (file, size, phase ...) into
 * the object w is in. */
void srv_json_load(struct jsonw *w, const struct reg_progress *pr);

/* Routes an API request (url starts with "/api/"). routes.c */
void routes_api(struct server *s, struct srv_req *q, const char *url);
/* The entry named by the parameters run<suffix>, worker<suffix>,
 * span<suffix> (suffix "" or "2"), or NULL after answering 400/404.
 * routes.c */
struct reg_entry *srv_entry_arg(struct server *s, struct srv_req *q, const char *suffix);
/* /api/live (docs/SERVER.md). routes_live.c */
void api_live(struct server *s, struct srv_req *q);
/* /api/view of live entry e: its live document `view`, or 409 for a view
 * a live trace does not have; 1 when it answered, 0 when e turned out not
 * to be live any more (the caller answers the ordinary way).
 * routes_live.c */
int api_view_live(struct server *s, struct srv_req *q, struct reg_entry *e, const char *view);
/* Acquires every entry of es[0..n) (a run's workers, a diff's pair):
 * returns 1 with all held (release each with reg_put), or 0 holding none
 * after answering 202 (the mean progress, with the slowest span not
 * ready: its file, bytes, cause) or the error of the first span that
 * failed (503 memory or deadline, 410 replaced, 422 unreadable). Every
 * entry not loaded yet is queued either way. routes.c */
int srv_acquire_all(struct server *s, struct srv_req *q, struct reg_entry **es, size_t n);
/* /api/cluster and /api/cluster_jobs. routes_cluster.c */
void api_cluster(struct server *s, struct srv_req *q);
void api_cluster_jobs(struct server *s, struct srv_req *q);

#endif
