/*
 * text.h - the analyses' formatted texts (advice, findings,
 * recommendations) as heap strings: the one printf-into-malloc of
 * src/analysis. A text is cut at 1023 bytes.
 *
 * The caller owns what these return and frees it with free(); NULL when
 * out of memory.
 */
#ifndef NNS_ANALYSIS_TEXT_H
#define NNS_ANALYSIS_TEXT_H

#include <stdarg.h>

char *an_textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *an_vtextf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
