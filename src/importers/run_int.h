/*
 * run_int.h - what run.c (the walk) and run_file.c (one file: its name
 * and content) share; not for use outside src/importers/run*.c.
 */
#ifndef NNS_IMPORTERS_RUN_INT_H
#define NNS_IMPORTERS_RUN_INT_H

#include "common/fs.h"

#include <stddef.h>

/* One matched trace file while walking. */
struct found {
	char *worker, *suffix, *path; /* suffix NULL if none */
	int ms_prio;		      /* MindSpore anchor priority, -1 for traces */
	int plain;		      /* worker is the file name without its extension */
	int numeric;		      /* the suffix is an ordinal (.nnst): sort as a number */
};

/* File name without ".pt.trace.json[.gz]", ".json[.gz]" or ".gz"
 * (malloc'd; NULL when out of memory). */
char *run_strip_ext(const char *base);
/* A file name discovery looks at: *.json[.gz], *.nnst, MindSpore's. */
int run_candidate(const char *name);
/* Classifies the regular file name at path: 1 a trace (worker in wbuf,
 * suffix in sbuf, f's ms_prio/plain/numeric set), 0 not one (why filled
 * when it should be listed, else why[0] == 0). */
int run_classify(const struct fs_root *fsr, const char *name, const char *path, char *wbuf,
		 size_t wsize, char *sbuf, size_t ssize, struct found *f, char *why,
		 size_t whysize);

#endif
