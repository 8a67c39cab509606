/*
 * assets.c - lookup in the embedded UI table (assets.h). The table is
 * small (tens of files), so a linear scan is enough.
 */
#include "server/assets.h"

#include <string.h>

const struct asset *asset_find(const char *path)
{
	for (size_t i = 0; i < assets_count; i++)
		if (strcmp(assets_table[i].path, path) == 0)
			return &assets_table[i];
	return NULL;
}
