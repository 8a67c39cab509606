/* err.c - status strings and the per-call error message (see err.h). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *nns_strerror(int status)
{
	switch (status) {
	case NNS_OK:
		return "success";
	case NNS_ENOMEM:
		return "out of memory or over a configured limit";
	case NNS_EIO:
		return "input/output error";
	case NNS_EFORMAT:
		return "malformed input";
	case NNS_EINVAL:
		return "invalid argument";
	case NNS_ETRUNC:
		return "input is truncated";
	case NNS_ENOTFOUND:
		return "not found";
	default:
		return "unknown error";
	}
}

void nns_err_clear(struct nns_err *err)
{
	if (!err)
		return;
	err->code = NNS_OK;
	err->msg[0] = '\0';
}

int nns_err_set(struct nns_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
