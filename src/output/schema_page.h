/*
 * schema_page.h - the result tables' description for the web page
 * (GET /api/schema): columns with their schema type, unit, titles and the
 * page's formatter, and the step-time roles. schema_page.c.
 */
#ifndef NNS_OUTPUT_SCHEMA_PAGE_H
#define NNS_OUTPUT_SCHEMA_PAGE_H

#include "output/jsonw.h"

struct sc_col;

/* Writes {"roles":[{key,name}...],"tables":{NAME:{doc,columns:[{name,
 * type, unit?, title, page?, fmt, doc?}...]}...}}. Errors stay in w. */
void out_json_schema(struct jsonw *w);

/* The page's formatter name for column c: "us", "bytes", "int", "pct",
 * "pct100", "num", "bool" or "text" (web/lib/util.js formatters). */
const char *sc_page_fmt(const struct sc_col *c);

/* 0 when every page title names a column of its table; else -1 with the
 * bad entry in *bad (a programming error the unit test catches). */
int sc_page_check(const char **bad);

#endif
