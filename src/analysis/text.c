/* text.c - formatted texts as heap strings (text.h). */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *an_vtextf(const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return strdup(buf);
}

char *an_textf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = an_vtextf(fmt, ap);
	va_end(ap);
	return s;
}
