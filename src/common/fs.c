/* fs.c - mkdir -p (fs.h). */
#include "fs.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int fs_mkdirs(const char *dir, struct nns_err *err)
{
	char p[FS_PATH_MAX];
	size_t n = strlen(dir);
	struct stat st;

	if (n == 0 || n >= sizeof(p))
		return nns_err_set(err, NNS_EINVAL, "%s: bad output directory name", dir);
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		char c = p[i];

		if ((c != '/' && c != '\0') || p[i - 1] == '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return nns_err_set(err, NNS_EIO, "%s: cannot create directory: %s", p,
					   strerror(errno));
		p[i] = c;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return nns_err_set(err, NNS_EIO, "%s: not a directory", dir);
	return NNS_OK;
}
