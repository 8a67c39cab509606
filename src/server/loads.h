/*
 * loads.h - what `nnscope serve` says about the loads queued or under way
 * (registry.h): each one's progress, file, size, bytes read, time, and the
 * cause of a slow one, for the 202 answer and /api/loads. Internal to
 * src/server: the functions ending in _locked read the registry's entries
 * under registry.mu, which the caller holds.
 */
#ifndef NNS_SERVER_LOADS_H
#define NNS_SERVER_LOADS_H

#include "server/registry.h"

#include <stddef.h>
#include <stdint.h>

#define NS_PER_S 1000000000.0

/* The trace file of e relative to the logdir (e->path when outside). */
const char *loads_rel_path(const struct registry *r, const struct reg_entry *e);
/* Whether path names a .gz file. */
int loads_is_gz(const char *path);
/* "12.3 MB" into b (binary units, as the page writes them). */
void loads_bytes(char *b, size_t n, double v);
/* Why e (queued or working) takes long, as far as the registry knows, into
 * out ("" when there is nothing to say). */
void loads_cause_locked(const struct registry *r, const struct reg_entry *e, int64_t now, char *out,
			size_t n);
/* The details of e's progress at now (clock_mono_ns) into pr. */
void loads_progress_locked(const struct registry *r, struct reg_entry *e, int64_t now,
			   struct reg_progress *pr);

#endif
