/*
 * live_watch.h - the run-level live answers of `nnscope serve`
 * (docs/SERVER.md "Live runs", docs/LIVE.md): the slow-rank verdict of a
 * run whose ranks are still being written (/api/cluster while live), the
 * --alert rules checked on every live run (a watcher thread, once a
 * second, so that a rule fires and is printed whether or not a page is
 * open) and their hits (/api/live_alerts, and the live cluster answer).
 * The decision is analysis/live_run.h's, as `nnscope top` makes it.
 *
 * Concurrency: a run's follows are locked in the registry's order
 * (live_collect); the alert states are guarded by the watch's own mutex,
 * taken after the follows' (never the other way).
 *
 * Ownership: the server owns its watch (live_watch_start ..
 * live_watch_stop); the rules' texts are copied.
 */
#ifndef NNS_SERVER_LIVE_WATCH_H
#define NNS_SERVER_LIVE_WATCH_H

#include "common/err.h"

#include <stddef.h>

struct server;
struct srv_req;
struct live_watch;

/* Checks the rules (NNS_EINVAL: err says which and what is wrong), and
 * starts the watcher thread when there are rules. s->watch is set. */
int live_watch_start(struct server *s, const char *const *rules, size_t n, struct nns_err *err);
/* Stops the thread and frees the watch (before the registry goes). */
void live_watch_stop(struct server *s);

/* /api/cluster?run&span while a .nnst worker of run is live: answers the
 * live verdict and returns 1; 0 (nothing answered) when none is live. */
int live_watch_cluster(struct server *s, struct srv_req *q, const char *run, const char *span);
/* /api/live_alerts?run */
void api_live_alerts(struct server *s, struct srv_req *q);

#endif
