#!/bin/bash
# install-deps.sh - installs the Debian packages nnscope needs, only those missing.
set -e
PKGS="build-essential clang zlib1g-dev libcmocka-dev libjansson-dev libzstd-dev libsqlite3-dev jq"
missing=""
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
