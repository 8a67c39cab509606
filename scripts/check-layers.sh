#!/bin/bash
# scripts/check-layers.sh - the include-direction check of `make lint`.
# A file under src/<layer>/ may include its own layer's headers, the public
# include/nnscope.h, and the headers of the layers its row below names;
# anything else (a header of a layer above it, of a layer it may not see, or
# by a relative path) is reported as FILE:LINE and the check fails.
#
#   bash scripts/check-layers.sh ["LAYERS"]
#
# LAYERS is the Makefile's link order, bottom-up (`make lint` passes it): the
# table is then checked against it, so that no row lets a layer include one
# linked above it. Known violations that are being removed are listed, one
# "FILE HEADER" a line, in scripts/layers-allow.txt; they are not reported,
# and an entry that no longer matches anything is named so that it is
# dropped.
set -euo pipefail
cd "$(dirname "$0")/.."

# layer      the other layers it may include (docs: shared DESIGN.md, issue 19).
# The importers build the model, so model sits under importers. Writers
# (output) read no input files: no importers/ and no format/ there. The
# trace index answers the timeline in JSON, so it sits on output. The
# collector (libnnscope.so) sees only common and format.
RULES='
common
format     common
model      common
importers  model format common
analysis   importers model format common
output     analysis model common
trace      output analysis model common
server     trace output analysis importers model format common
cli        server trace output analysis importers model format common
collector  format common
'
ALLOW=scripts/layers-allow.txt
ORDER=${1:-}

grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' src \
	--include='*.c' --include='*.h' --include='*.cpp' | LC_ALL=C sort -t: -k1,1 -k2,2n |
	awk -v rules="$RULES" -v order="$ORDER" -v allowfile="$ALLOW" '
	BEGIN {
		n = split(rules, lines, "\n")
		for (i = 1; i <= n; i++) {
			k = split(lines[i], w, /[ \t]+/)
			if (k == 0 || w[1] == "") continue
			row[w[1]] = ""
			for (j = 2; j <= k; j++) { may[w[1], w[j]] = 1; row[w[1]] = row[w[1]] " " w[j] }
		}
		# the table against the link order: a layer includes only layers under it
		no = split(order, ord, /[ \t]+/)
		for (i = 1; i <= no; i++) pos[ord[i]] = i
		for (key in may) {
			split(key, p, SUBSEP)
			if ((p[1] in pos) && (p[2] in pos) && pos[p[2]] >= pos[p[1]]) {
				printf "check-layers: the table lets %s include %s, linked above it (LAYERS: %s)\n", p[1], p[2], order
				bad++
			}
		}
		while ((getline line < allowfile) > 0) {
			sub(/#.*/, "", line)
			if (split(line, a, /[ \t]+/) < 2) { if (a[1] != "") { print "check-layers: " allowfile ": not FILE HEADER: " line; bad++ }; continue }
			if (a[1] == "") { a[1] = a[2]; a[2] = a[3] }
			allowed[a[1], a[2]] = 1
		}
	}
	{
		# src/LAYER/FILE:LINE:#include "HEADER"
		i = index($0, ":"); file = substr($0, 1, i - 1); rest = substr($0, i + 1)
		i = index(rest, ":"); lineno = substr(rest, 1, i - 1)
		split(file, fp, "/"); layer = fp[2]
		hdr = rest; sub(/^[^"]*"/, "", hdr); sub(/".*/, "", hdr)
		if (!(layer in row)) {
			if (!(layer in unknown)) printf "check-layers: src/%s is in no row of the table in scripts/check-layers.sh\n", layer
			unknown[layer] = 1; bad++; next
		}
		if (index(hdr, "/") == 0) next          # its own directory, or include/
		split(hdr, hp, "/"); to = hp[1]
		if (to == layer || ((layer, to) in may)) next
		if ((file, hdr) in allowed) { used[file, hdr] = 1; next }
		why = (to == "." || to == "..") ? "a relative path" : ("src/" layer " may not include " to "/")
		printf "%s:%s: includes \"%s\": %s (it may include:%s)\n", file, lineno, hdr, why, \
			row[layer] == "" ? " its own headers only" : row[layer]
		bad++
	}
	END {
		for (key in allowed) if (!(key in used)) {
			split(key, p, SUBSEP)
			printf "check-layers: %s: \"%s %s\" matches no include any more: remove it\n", allowfile, p[1], p[2]
			bad++
		}
		if (bad) { printf "check-layers: %d problem(s) with the layers\n", bad; exit 1 }
	}'
