#!/bin/bash
# install-deps.sh - installs the Debian packages nnscope needs, only those missing.
#   libisal-dev       ISA-L igzip, the inflater of .json.gz traces (kineto_io.c)
#   python3-dev       headers for the Python extension (build/python/nnscope)
#   libopenblas-dev   the C example (examples/mlp)
#   libclang-rt-14-dev libFuzzer and sanitizer runtimes for clang (make fuzz)
#   libmicrohttpd-dev the HTTP server of `nnscope serve`
#   clang-format cppcheck
#                     `make lint` (run first by `make test`)
#   nodejs npm        the UI's chart library (web/package.json, bundled into
#                     the binary) and playwright-core for the browser tests
#   chromium          the browser the UI tests drive (headless)
#   wrk curl          bench/serve (load test) and the API tests
#   python3 time      tests/hostile/gen.py (the hostile-input corpus, standard
#                     library only) and the peak RSS of bench/ingest and
#                     bench/hostile_rss (/usr/bin/time)
#   openssh-server openssh-client rsync
#                     nnscope collect (ssh + rsync) and its test's own sshd
#                     (tests/e2e/collect_ssh.sh)
#   openmpi-bin libopenmpi-dev
#                     mpirun and libmpi.so.40 for `nnscope analyse --mpi`
#                     (tests/e2e/analyse_mpi.sh; nnscope loads it at run time)
#   python3-torch     optional, large (~1 GB with its dependencies): the
#                     PyTorch example and tests/e2e/python_torch.sh. Installed
#                     only when /usr/bin/python3 cannot import torch already;
#                     NNS_NO_TORCH=1 skips it (those tests then skip).
#   libtorch-dev      optional (~26 MB): torch's C++ headers, with which `make
#                     python` prebuilds nnscope.torch's RecordFunction shim
#                     (tests/e2e/python_torch_rf.sh). Installed with
#                     python3-torch, or alone when Debian's python3-torch is
#                     there already; NNS_NO_TORCH=1 skips it too.
set -e
PKGS="build-essential clang zlib1g-dev libisal-dev libcmocka-dev libjansson-dev libzstd-dev libsqlite3-dev jq"
PKGS="$PKGS python3-dev libopenblas-dev libclang-rt-14-dev clang-format cppcheck"
PKGS="$PKGS libmicrohttpd-dev chromium wrk curl fonts-dejavu-core python3 time"
PKGS="$PKGS openssh-server openssh-client rsync openmpi-bin libopenmpi-dev"
# node and npm: Debian's packages unless a node (e.g. NodeSource's, which
# bundles npm) is already installed
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
missing=""
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
torch=""
if [ "${NNS_NO_TORCH:-0}" != 1 ] && ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
	torch="python3-torch libtorch-dev"
elif [ "${NNS_NO_TORCH:-0}" != 1 ] && dpkg -s python3-torch >/dev/null 2>&1 &&
	! dpkg -s libtorch-dev >/dev/null 2>&1; then
	torch=libtorch-dev
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
updated=""
if [ -n "$missing" ]; then
	echo "installing:$missing"
	$SUDO apt-get update -qq
	updated=1
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
if [ -n "$torch" ]; then
	echo "installing: $torch (optional; NNS_NO_TORCH=1 skips it)"
	[ -n "$updated" ] || $SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $torch ||
		echo "install-deps: $torch could not be installed; the PyTorch parts will be skipped"
fi
# npm packages of the UI (web/package.json): ECharts, playwright-core
if [ ! -f web/node_modules/echarts/dist/echarts.min.js ] ||
	[ ! -f web/node_modules/playwright-core/package.json ]; then
	echo "installing npm packages (web/package.json)"
	(cd web && npm install --no-audit --no-fund --loglevel=error)
fi
