/*
 * registry_int.h - what the registry's files share (registry.c: entries,
 * workers; registry_load.c: an entry's load; registry_runs.c: the
 * /api/runs document). Internal to src/server; the functions ending in
 * _locked want registry.mu held.
 */
#ifndef NNS_SERVER_REGISTRY_INT_H
#define NNS_SERVER_REGISTRY_INT_H

#include "server/cache.h"
#include "server/registry.h"

#include <stdint.h>

struct run_set;

/* What the disk cache of e is valid for. */
struct cache_key reg_key_of(const struct reg_entry *e);
/* Loads e (its snapshot, else the trace, analysed, cached and indexed)
 * into *mo, *po and *ixo; the trace index may have been published to the
 * trace endpoints before the return (e->trace_early). Called by a worker
 * without mu. */
int reg_load_entry(struct registry *r, struct reg_entry *e, struct model **mo,
		   struct an_profile **po, struct trace_index **ixo, struct nns_err *err);
/* Writes e's snapshot after its load, unless it has one or cannot have one
 * (a variant, a MindSpore profile, whose documents read files beside the
 * trace). Called without mu, holding a reference to e. */
void reg_save_snapshot(struct registry *r, struct reg_entry *e);

/* The entry of trace file path (not replaced, not a variant), or NULL. */
struct reg_entry *reg_entry_by_path_locked(struct registry *r, const char *path);
/* Writes the /api/runs document of rs into r->runs_json (kept as it was
 * when out of memory). */
void reg_runs_doc_locked(struct registry *r, const struct run_set *rs);
/* What rs's skipped list says, as one number (the runs document is made
 * again when it changes). */
uint64_t reg_skipped_sig(const struct run_set *rs);

#endif
