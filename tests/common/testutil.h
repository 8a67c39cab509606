/*
 * testutil.h - helpers shared by the golden and unit tests: where ../shared
 * is, and loading Kineto events (a jansson value or a JSON text) through the
 * real importer.
 */
#ifndef NNS_TESTUTIL_H
#define NNS_TESTUTIL_H

#include "analysis/analysis.h"

#include <jansson.h>

/* $NNS_SHARED or "../shared"; never NULL. */
const char *tu_shared_dir(void);
/* Removes dir and everything beneath it, links not followed (a test's
 * temporary directory); 0, or -1 when something could not be removed. */
int tu_rmtree(const char *dir);
/* Reads a JSON file under the shared dir; NULL (and a printed reason) if absent. */
json_t *tu_load_shared_json(const char *rel);
/* Wraps events as {"schemaVersion":1,"traceEvents":events} and imports them
 * with kineto_load_buffer into *m (model_init done here). 0 on success. */
int tu_model_from_events(json_t *events, struct model *m);
/* Imports the Kineto JSON document json with kineto_load_buffer (one
 * parser thread) into *m (model_init done here) and, when p is not NULL,
 * runs every analysis into *p. 0 on success; on failure prints the
 * importer's or the analysis's message and returns its status. */
int tu_kineto_profile(const char *json, struct model *m, struct an_profile *p);
/* A Kineto document imported and analysed: its model and profile, owned
 * together; tu_fx_load returns NULL (the reason printed) on failure and
 * tu_fx_free releases both. */
struct tu_fx {
	struct model m;
	struct an_profile p;
};
struct tu_fx *tu_fx_load(const char *json);
void tu_fx_free(struct tu_fx *f);
/* Runs a document writer (out_json_cpu, out_json_hta_launches, ...) on p
 * into memory and parses what it wrote; NULL (the reason printed) when the
 * writer fails or the output is not JSON. Caller json_decref()s. */
struct jsonw;
json_t *tu_view_json(void (*fn)(struct jsonw *w, const struct an_profile *p),
		     const struct an_profile *p);
/* Finds a row by name in a vector of op rows; NULL if absent. */
const struct an_op_row *tu_find_op(const struct an_profile *p, const struct an_op_row *rows,
				   size_t n, const char *name);
const struct an_kernel_row *tu_find_kernel(const struct an_profile *p,
					   const struct an_kernel_row *rows, size_t n,
					   const char *name);
/* Writes the n bytes of a .nnst file to a temporary file and loads it with
 * the .nnst importer into m (initialised here; the caller releases it).
 * The importer's status; NNS_EIO when the file cannot be written,
 * NNS_EFORMAT when nnst_is_trace_file does not recognise it. */
int tu_nnst_load(const void *bytes, size_t n, struct model *m);
/* The nth (from 0) event named name, or NULL. */
const struct model_event *tu_find_event(const struct model *m, const char *name, int nth);
/* p gzip-compressed at zlib level `level` into a new buffer (one member;
 * caller frees), its length in *out_n; NULL on a zlib or memory error. */
unsigned char *tu_gzip(const char *p, size_t n, int level, size_t *out_n);
#endif
