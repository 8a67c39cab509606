/*
 * err.h - the one error convention of nnscope.
 *
 * Functions return an int status (NNS_OK or a negative NNS_E* code from
 * nnscope.h) and, when they fail, fill a caller-provided struct nns_err with
 * a one-line message saying what is wrong and where (file, byte offset).
 * The library never prints, exits or aborts; the CLI prints err.msg.
 */
#ifndef NNS_COMMON_ERR_H
#define NNS_COMMON_ERR_H

#include "nnscope.h"

#include <stddef.h>

#define NNS_ERR_MSG_MAX 512

struct nns_err {
	int code;		   /* the status last set, NNS_OK if none */
	char msg[NNS_ERR_MSG_MAX]; /* one line, no trailing newline */
};

/* Clears err (err may be NULL). */
void nns_err_clear(struct nns_err *err);

/* Sets code and a printf-style message; returns code so callers can
 * `return nns_err_set(err, NNS_EFORMAT, "...")`. err may be NULL. */
int nns_err_set(struct nns_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
