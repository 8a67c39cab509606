/*
 * nnscope.h - the only public C header of nnscope.
 *
 * For now it carries the version macros and the status codes that every
 * nnscope function returns (0 on success, a negative NNS_E* on failure).
 * The collector API (profiler handle, ranges, steps) is added to this
 * header by the collector work; nothing here may be renamed afterwards.
 */
#ifndef NNSCOPE_H
#define NNSCOPE_H

#define NNS_VERSION_MAJOR 0
#define NNS_VERSION_MINOR 1
#define NNS_VERSION_PATCH 0
#define NNS_VERSION_STRING "0.1.0"
#define NNS_VERSION_NUMBER (NNS_VERSION_MAJOR * 10000 + NNS_VERSION_MINOR * 100 + NNS_VERSION_PATCH)

/* Status codes: 0 is success, everything else is negative. */
enum nns_status {
	NNS_OK = 0,
	NNS_ENOMEM = -1,   /* an allocation failed or a configured cap was hit */
	NNS_EIO = -2,	   /* reading or writing a file failed */
	NNS_EFORMAT = -3,  /* the input is malformed */
	NNS_EINVAL = -4,   /* a wrong argument or option */
	NNS_ETRUNC = -5,   /* the input ended early; what was read is kept */
	NNS_ENOTFOUND = -6 /* no such file, run, worker or span */
};

/* A short English description of a status code; never NULL. */
const char *nns_strerror(int status);

#endif /* NNSCOPE_H */
