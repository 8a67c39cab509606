/*
 * registry_int.h - what the registry's files share (registry.c: entries,
 * loading; registry_runs.c: the /api/runs document). Internal to
 * src/server; the functions ending in _locked want registry.mu held.
 */
#ifndef NNS_SERVER_REGISTRY_INT_H
#define NNS_SERVER_REGISTRY_INT_H

#include "server/registry.h"

#include <stdint.h>

struct run_set;

/* The entry of trace file path (not replaced, not a variant), or NULL. */
struct reg_entry *reg_entry_by_path_locked(struct registry *r, const char *path);
/* Writes the /api/runs document of rs into r->runs_json (kept as it was
 * when out of memory). */
void reg_runs_doc_locked(struct registry *r, const struct run_set *rs);
/* What rs's skipped list says, as one number (the runs document is made
 * again when it changes). */
uint64_t reg_skipped_sig(const struct run_set *rs);

#endif
