/* ms_src.c - file names of one MindSpore device's profiler files (ms_src.h). */
#include "importers/ms_src.h"

#include <stdio.h>
#include <sys/stat.h>

int ms_src_path(const struct ms_src *s, const char *pre, const char *post, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s/%s%d%s", s->dir, pre, s->dev, post);

	return k < 0 || (size_t)k >= n ? -1 : 0;
}

int ms_src_has(const struct ms_src *s, const char *pre, const char *post)
{
	char path[4096];
	struct stat st;

	return ms_src_path(s, pre, post, path, sizeof(path)) == 0 && stat(path, &st) == 0 &&
	       S_ISREG(st.st_mode);
}
