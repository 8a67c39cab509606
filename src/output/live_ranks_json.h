/*
 * live_ranks_json.h - the JSON of the live slow-rank verdict
 * (analysis/live_ranks.h) and of the alert rules and hits
 * (analysis/live_alert.h), as the server and `nnscope top --json` give
 * them (docs/CLI.md "top"). Each writes one value where jsonw expects one
 * (at the top, in an array, or after a key); numbers that are unknown
 * (NAN, step -1) are null.
 *
 *   live_ranks_json: {"window", "window_lo", "window_hi", "threshold_pct",
 *     "slow": {"rank", "worker", "host", "pct", "excess_ms"} | null,
 *     "slowest": {"rank", "worker", "pct"} | null, "behind_max", "verdict",
 *     "ranks": [{"rank", "worker", "host", "steps", "last_step", "last_ms",
 *                "mean_ms", "window_ms", "vs_mean_pct", "behind", "ended"}]}
 *   live_alerts_json: {"rules": [{"text", "metric", "op", "stat", "factor",
 *     "value"}], "fired", "hits": [{"rule", "text", "rank", "step",
 *     "value", "bound", "wall_ns", "message"}]}   (the last `max` kept
 *     hits, oldest first; max 0: all kept)
 *
 * Nothing is owned; the writer's errors are sticky (jsonw.h).
 */
#ifndef NNS_OUTPUT_LIVE_RANKS_JSON_H
#define NNS_OUTPUT_LIVE_RANKS_JSON_H

#include "analysis/live_alert.h"
#include "analysis/live_ranks.h"
#include "output/jsonw.h"

void live_ranks_json(struct jsonw *w, const struct live_ranks *r);
void live_alerts_json(struct jsonw *w, const struct live_alerts *a, size_t max);

#endif
